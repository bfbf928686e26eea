/*
 * Base noises: golden vectors (Perlin's Java for perlin-reference-simplex,
 * the independent Python port for simplex), range, seeds, behaviour far
 * from the origin, and the analytic gradients against finite differences
 * (docs/noise.md).
 */
#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "terrafit/runtime.h"
#include "runtime/noise.h"
#include "testutil.h"

/* Reads "a b c ..." lines of numbers (hex or decimal), skipping '#'.
 * Calls `check` for each line; returns the number of lines. */
typedef void (*vector_fn)(const double *v, int count, int line);

static int for_each_vector(const char *path, int want, vector_fn check)
{
    FILE *f = fopen(path, "r");
    ck_assert_msg(f != NULL, "cannot open %s", path);
    char line[1024];
    int lines = 0, number = 0;
    while (fgets(line, sizeof line, f)) {
        number++;
        if (line[0] == '#' || line[0] == '\n')
            continue;
        double v[8];
        int count = 0;
        char *p = line, *end;
        while (count < 8) {
            double d = strtod(p, &end);
            if (end == p)
                break;
            v[count++] = d;
            p = end;
        }
        ck_assert_msg(count == want, "%s:%d: expected %d numbers, got %d", path, number, want,
                      count);
        check(v, count, number);
        lines++;
    }
    fclose(f);
    return lines;
}

static void check_perlin_vector(const double *v, int count, int line)
{
    (void)count;
    double got = tf_noise_eval(TF_NOISE_PERLIN_REFERENCE_SIMPLEX, 0, v[0], v[1], v[2]);
    /* The C port must give Java's exact double (docs ask 1e-15; we have 0). */
    ck_assert_msg(got == v[3] || (isnan(got) && isnan(v[3])),
                  "line %d: noise(%a, %a, %a) = %a, Java gives %a", line, v[0], v[1], v[2], got,
                  v[3]);
}

START_TEST(perlin_reference_matches_java)
{
    int n = for_each_vector(tu_path("%s/tests/data/noise/perlin_reference_simplex.txt",
                                    tu_srcdir()),
                            4, check_perlin_vector);
    ck_assert_int_ge(n, 1000);
}
END_TEST

/* The _deriv variant keeps the value's bits on every Java vector (lattice
 * points, negative and huge coordinates, saturating casts included). */
static void check_perlin_deriv_vector(const double *v, int count, int line)
{
    (void)count;
    double dx, dy, got = tf_perlin_reference_simplex3_deriv(v[0], v[1], v[2], &dx, &dy);
    ck_assert_msg(memcmp(&got, &v[3], sizeof got) == 0 || (isnan(got) && isnan(v[3])),
                  "line %d: _deriv(%a, %a, %a) = %a, Java gives %a", line, v[0], v[1], v[2], got,
                  v[3]);
    ck_assert_msg(isfinite(dx) == isfinite(got) && isfinite(dy) == isfinite(got),
                  "line %d: gradient (%g, %g) for n = %g", line, dx, dy, got);
}

START_TEST(perlin_reference_deriv_keeps_java_bits)
{
    int n = for_each_vector(tu_path("%s/tests/data/noise/perlin_reference_simplex.txt",
                                    tu_srcdir()),
                            4, check_perlin_deriv_vector);
    ck_assert_int_ge(n, 1000);
}
END_TEST

static void check_simplex_vector(const double *v, int count, int line)
{
    (void)count;
    double got = tf_noise_eval(TF_NOISE_SIMPLEX, (uint32_t)v[0], v[1], v[2], 0.0);
    ck_assert_msg(got == v[3] || (isnan(got) && isnan(v[3])), "line %d: simplex(%.0f, %a, %a) = %a, reference gives %a", line,
                  v[0], v[1], v[2], got, v[3]);
}

START_TEST(simplex_matches_reference_port)
{
    int n = for_each_vector(tu_path("%s/tests/data/noise/simplex.txt", tu_srcdir()), 4,
                            check_simplex_vector);
    ck_assert_int_ge(n, 500);
}
END_TEST

/* Mean and standard deviation of a size x size patch of simplex noise at
 * spacing `spacing`, starting at (x0, y0). */
static void patch_stats(uint32_t seed, double x0, double y0, double spacing, int size,
                        double *mean, double *sd, double *max_abs)
{
    double s = 0, s2 = 0, m = 0;
    for (int j = 0; j < size; j++)
        for (int i = 0; i < size; i++) {
            double n = tf_noise_eval(TF_NOISE_SIMPLEX, seed, x0 + i * spacing, y0 + j * spacing, 0);
            s += n;
            s2 += n * n;
            if (fabs(n) > m)
                m = fabs(n);
        }
    double count = (double)size * size;
    *mean = s / count;
    *sd = sqrt(s2 / count - *mean * *mean);
    *max_abs = m;
}

START_TEST(simplex_range_and_statistics)
{
    double mean, sd, max_abs;
    patch_stats(12345u, 0.1, 0.2, 0.37, 1024, &mean, &sd, &max_abs);
    ck_assert_double_lt(max_abs, 1.0);
    ck_assert_double_gt(max_abs, 0.9); /* uses most of [-1, 1] */
    ck_assert_double_lt(fabs(mean), 0.02);
    ck_assert_double_gt(sd, 0.45);
    ck_assert_double_lt(sd, 0.62);
}
END_TEST

/* |x|, |y| up to 1e7: same statistics as near the origin, continuous,
 * and not a copy of the pattern near the origin. */
START_TEST(simplex_far_from_origin)
{
    static const double origins[][2] = {{1e7, 1e7}, {-1e7, 3e6}, {9.99e6, -1e7}};
    double mean0, sd0, max0;
    patch_stats(7u, 0.25, 0.5, 0.37, 256, &mean0, &sd0, &max0);
    for (size_t k = 0; k < sizeof origins / sizeof origins[0]; k++) {
        double mean, sd, max_abs;
        patch_stats(7u, origins[k][0], origins[k][1], 0.37, 256, &mean, &sd, &max_abs);
        ck_assert_double_lt(fabs(mean), 0.05);
        ck_assert_double_lt(fabs(sd - sd0), 0.05);
        ck_assert_double_lt(max_abs, 1.0);
        /* Continuity: a step of 1e-6 lattice units moves n by a bounded
         * amount everywhere (the gradient of n is at most ~4). */
        double worst = 0;
        for (int i = 0; i < 20000; i++) {
            double x = origins[k][0] + i * 0.0131, y = origins[k][1] + i * 0.0077;
            double a = tf_noise_eval(TF_NOISE_SIMPLEX, 7u, x, y, 0);
            double b = tf_noise_eval(TF_NOISE_SIMPLEX, 7u, x + 1e-6, y, 0);
            if (fabs(a - b) > worst)
                worst = fabs(a - b);
        }
        ck_assert_msg(worst < 1e-4, "jump of %g at origin %g,%g", worst, origins[k][0],
                      origins[k][1]);
        /* Not a repeat of the pattern at the origin. */
        int same = 0;
        for (int i = 0; i < 100; i++)
            same += tf_noise_eval(TF_NOISE_SIMPLEX, 7u, 0.25 + i * 0.37, 0.5, 0) ==
                    tf_noise_eval(TF_NOISE_SIMPLEX, 7u, origins[k][0] + i * 0.37,
                                  origins[k][1], 0);
        ck_assert_int_lt(same, 5);
    }
}
END_TEST

START_TEST(simplex_seeds_decorrelate)
{
    double sab = 0, saa = 0, sbb = 0;
    for (int j = 0; j < 200; j++)
        for (int i = 0; i < 200; i++) {
            double a = tf_noise_eval(TF_NOISE_SIMPLEX, 1u, i * 0.31, j * 0.31, 0);
            double b = tf_noise_eval(TF_NOISE_SIMPLEX, 2u, i * 0.31, j * 0.31, 0);
            sab += a * b;
            saa += a * a;
            sbb += b * b;
        }
    ck_assert_double_lt(fabs(sab / sqrt(saa * sbb)), 0.05);
}
END_TEST

/* At a lattice point (a = b = 0) corner 0 has d = 0 and the other two are
 * beyond the kernel's radius, so n is 0 up to the rounding of the unskew. */
START_TEST(simplex_lattice_points_are_zero)
{
    const double G2 = (3.0 - sqrt(3.0)) / 6.0;
    for (int j = -4; j <= 4; j++)
        for (int i = -4; i <= 4; i++) {
            double x = i - (i + j) * G2, y = j - (i + j) * G2;
            double n = tf_noise_eval(TF_NOISE_SIMPLEX, 99u, x, y, 0);
            ck_assert_msg(fabs(n) < 1e-12, "n(%d, %d) = %g", i, j, n);
        }
}
END_TEST

START_TEST(non_finite_and_huge_coordinates)
{
    ck_assert(isnan(tf_noise_eval(TF_NOISE_SIMPLEX, 1u, NAN, 0.5, 0)));
    ck_assert(isnan(tf_noise_eval(TF_NOISE_SIMPLEX, 1u, INFINITY, 0.5, 0)));
    ck_assert(isnan(tf_noise_eval(TF_NOISE_SIMPLEX, 1u, 0.5, 1e300, 0)));
    ck_assert(isnan(tf_noise_eval(TF_NOISE_SIMPLEX, 1u, 0x1p52, 0.5, 0)));
    ck_assert(isfinite(tf_noise_eval(TF_NOISE_SIMPLEX, 1u, 0x1p51, 0.5, 0)));
    ck_assert(isnan(tf_noise_eval(TF_NOISE_PERLIN_REFERENCE_SIMPLEX, 0, NAN, 0.5, 0.5)));
    /* Java saturates (int) casts; far out every kernel weight t is -inf,
     * so Java returns 0 (and the sanitizer build checks there is no UB). */
    ck_assert(tf_noise_eval(TF_NOISE_PERLIN_REFERENCE_SIMPLEX, 0, 1e300, -1e300, 0.5) == 0.0);
    ck_assert(isnan(tf_noise_eval((tf_noise_type)99, 0, 0.5, 0.5, 0.5)));
}
END_TEST

/* The analytic gradient (docs/noise.md, "simplex", gradient): the value
 * has tf_simplex2's bits, the derivatives agree with central differences,
 * and out-of-range points give NaN everywhere. */
START_TEST(simplex_gradient_is_analytic)
{
    uint64_t state = 5;
    for (int k = 0; k < 2000; k++) {
        state = state * 6364136223846793005ull + 1442695040888963407ull;
        double x = (double)(state >> 11) * 0x1p-53 * 200.0 - 100.0;
        state = state * 6364136223846793005ull + 1442695040888963407ull;
        double y = (double)(state >> 11) * 0x1p-53 * 200.0 - 100.0;
        uint32_t seed = (uint32_t)(state >> 32);
        double dx, dy, n = tf_simplex2_deriv(seed, x, y, &dx, &dy);
        double plain = tf_simplex2(seed, x, y);
        ck_assert_msg(memcmp(&n, &plain, sizeof n) == 0, "value differs at (%a, %a)", x, y);
        const double h = 1e-6;
        double fx = (tf_simplex2(seed, x + h, y) - tf_simplex2(seed, x - h, y)) / (2 * h);
        double fy = (tf_simplex2(seed, x, y + h) - tf_simplex2(seed, x, y - h)) / (2 * h);
        ck_assert_msg(fabs(dx - fx) < 1e-6 * (1 + fabs(fx)) && fabs(dy - fy) < 1e-6 * (1 + fabs(fy)),
                      "(%g, %g): analytic (%g, %g), differences (%g, %g)", x, y, dx, dy, fx, fy);
    }
    double dx = 0, dy = 0;
    ck_assert(isnan(tf_simplex2_deriv(1, NAN, 0.0, &dx, &dy)) && isnan(dx) && isnan(dy));
    ck_assert(isnan(tf_simplex2_deriv(1, 0x1p52, 0.0, NULL, NULL)));
}
END_TEST

/* Distance (in skewed units) from (x, y, z) to the nearest face of the
 * simplex holding it: a cell face (x + s integer, s = (x + y + z) / 3, and
 * likewise y, z) or one of the planes u = v, v = w, u = w that split the
 * cell. Perlin's kernel radius (t = 0.6 - |d|^2, radius sqrt(0.6)) reaches
 * past the four corners' simplex, so the noise jumps slightly on these
 * faces; a finite difference must not straddle one. */
static double simplex_face_distance(double x, double y, double z)
{
    double s = (x + y + z) / 3;
    double f[3] = {x + s, y + s, z + s}, d = 1.0;
    for (int a = 0; a < 3; a++) {
        f[a] -= floor(f[a]);
        d = fmin(d, fmin(f[a], 1.0 - f[a]));
    }
    d = fmin(d, fmin(fabs(f[0] - f[1]), fmin(fabs(f[1] - f[2]), fabs(f[0] - f[2]))));
    return d;
}

/* The analytic gradient of perlin-reference-simplex (docs/noise.md) against
 * central differences of the value, away from the simplex faces: near the
 * origin with h = 1e-6, and at |x| ~ 1e5 .. 1e6 (where the offsets carry
 * ~1e-10 of rounding) with h = 1e-4 and a looser bound. */
START_TEST(perlin_reference_gradient_is_analytic)
{
    uint64_t state = 17;
    int checked = 0, skipped = 0;
    for (int k = 0; k < 6000; k++) {
        double c[3];
        for (int a = 0; a < 3; a++) {
            state = state * 6364136223846793005ull + 1442695040888963407ull;
            c[a] = (double)(state >> 11) * 0x1p-53 * 200.0 - 100.0;
        }
        double far = k % 3 == 2 ? (k % 2 ? 1e6 : -2.5e5) : 0.0;
        double x = c[0] + far, y = c[1] - far, z = k % 5 == 0 ? floor(c[2]) : c[2];
        if (k % 7 == 0 && far == 0.0) /* just beside a lattice point */
            x = floor(x) + 3e-4, y = floor(y) - 1e-4, z = floor(z) + 5e-4;
        double h = far != 0.0 ? 1e-4 : 1e-6, tol = far != 0.0 ? 1e-5 : 1e-6;
        if (simplex_face_distance(x, y, z) < 4 * h) {
            skipped++;
            continue;
        }
        double dx, dy, n = tf_perlin_reference_simplex3_deriv(x, y, z, &dx, &dy);
        double plain = tf_perlin_reference_simplex3(x, y, z);
        ck_assert_msg(memcmp(&n, &plain, sizeof n) == 0, "value differs at (%a, %a, %a)", x, y,
                      z);
        double fx = (tf_perlin_reference_simplex3(x + h, y, z) -
                     tf_perlin_reference_simplex3(x - h, y, z)) /
                    ((x + h) - (x - h));
        double fy = (tf_perlin_reference_simplex3(x, y + h, z) -
                     tf_perlin_reference_simplex3(x, y - h, z)) /
                    ((y + h) - (y - h));
        double scale = fmax(1.0, fmax(fabs(dx), fabs(dy)));
        ck_assert_msg(fabs(dx - fx) <= tol * scale && fabs(dy - fy) <= tol * scale,
                      "(%a, %a, %a): analytic (%.17g, %.17g), differences (%.17g, %.17g)", x, y,
                      z, dx, dy, fx, fy);
        checked++;
    }
    ck_assert_int_ge(checked, 5800);
    /* Either pointer may be NULL; NaN in, NaN out; far out, 0 and 0. */
    double dx = 0, dy = 0;
    double n = tf_perlin_reference_simplex3_deriv(0.3, 0.2, 0.1, NULL, &dy);
    ck_assert(n == tf_perlin_reference_simplex3(0.3, 0.2, 0.1) && dy != 0);
    ck_assert(isnan(tf_perlin_reference_simplex3_deriv(NAN, 0.5, 0.5, &dx, &dy)) && isnan(dx) &&
              isnan(dy));
    ck_assert(tf_perlin_reference_simplex3_deriv(1e300, -1e300, 0.5, &dx, &dy) == 0.0 &&
              dx == 0.0 && dy == 0.0);
}
END_TEST

static Suite *noise_suite(void)
{
    Suite *s = suite_create("noise");
    TCase *golden = tcase_create("golden");
    tcase_add_test(golden, perlin_reference_matches_java);
    tcase_add_test(golden, perlin_reference_deriv_keeps_java_bits);
    tcase_add_test(golden, simplex_matches_reference_port);
    suite_add_tcase(s, golden);
    TCase *props = tcase_create("properties");
    tcase_set_timeout(props, 60);
    tcase_add_test(props, simplex_range_and_statistics);
    tcase_add_test(props, simplex_far_from_origin);
    tcase_add_test(props, simplex_seeds_decorrelate);
    tcase_add_test(props, simplex_lattice_points_are_zero);
    tcase_add_test(props, non_finite_and_huge_coordinates);
    tcase_add_test(props, simplex_gradient_is_analytic);
    tcase_add_test(props, perlin_reference_gradient_is_analytic);
    suite_add_tcase(s, props);
    return s;
}

int main(void)
{
    SRunner *runner = srunner_create(noise_suite());
    srunner_run_all(runner, CK_ENV);
    int failed = srunner_ntests_failed(runner);
    srunner_free(runner);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
