/*
 * The further base noises (lib/runtime/noise_kinds.h, docs/noise.md): Perlin's
 * Java ImprovedNoise and an independent Java port of every kind, C golden
 * vectors, analytic derivatives against finite differences, range and
 * statistics, seeds, continuity across cells, and large coordinates.
 */
#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "runtime/noise_kinds.h"
#include "testutil.h"

typedef double (*deriv_fn)(uint32_t seed, double x, double y, double z, double *dx, double *dy);

static double poly_d(uint32_t s, double x, double y, double z, double *dx, double *dy)
{
    (void)z;
    return tf_polynomial2_deriv(s, x, y, dx, dy);
}
static double value_d(uint32_t s, double x, double y, double z, double *dx, double *dy)
{
    (void)z;
    return tf_value2_deriv(s, x, y, dx, dy);
}
static double f1_d(uint32_t s, double x, double y, double z, double *dx, double *dy)
{
    (void)z;
    return tf_cellular_f1_deriv(s, x, y, dx, dy);
}
static double f2_d(uint32_t s, double x, double y, double z, double *dx, double *dy)
{
    (void)z;
    return tf_cellular_f2_deriv(s, x, y, dx, dy);
}
static double f21_d(uint32_t s, double x, double y, double z, double *dx, double *dy)
{
    (void)z;
    return tf_cellular_f2_f1_deriv(s, x, y, dx, dy);
}
/* The plain entry points, for checking that they equal the _deriv value. */
static double plain(int kind, uint32_t s, double x, double y, double z);

static const struct {
    const char *name;
    deriv_fn fn;
    int smooth;         /* differentiable inside cells: derivative checked by FD */
    int c1;             /* and C1 across cell edges */
    double lo, hi;      /* documented bounds, inclusive */
    double std_lo, std_hi;
} kinds[] = {
    {"perlin", tf_perlin_improved3_deriv, 1, 1, -2, 2, 0.2, 0.4},
    {"exponential-perlin", tf_exp_perlin3_deriv, 1, 1, -2, 2, 0.05, 0.15},
    {"polynomial", poly_d, 1, 0, -1.009766, 1.009766, 0.35, 0.5},
    {"value", value_d, 1, 1, -1, 1, 0.35, 0.5},
    {"cellular-f1", f1_d, 0, 0, 0, 1.4142135623730951, 0.1, 0.3},
    {"cellular-f2", f2_d, 0, 0, 0, 1.8027756377319946, 0.1, 0.3},
    {"cellular-f2-f1", f21_d, 0, 0, 0, 1.8027756377319946, 0.1, 0.3},
};
enum { NKINDS = sizeof kinds / sizeof kinds[0] };

static double plain(int kind, uint32_t s, double x, double y, double z)
{
    switch (kind) {
    case 0: return tf_perlin_improved3(s, x, y, z);
    case 1: return tf_exp_perlin3(s, x, y, z);
    case 2: return tf_polynomial2(s, x, y);
    case 3: return tf_value2(s, x, y);
    case 4: return tf_cellular_f1(s, x, y);
    case 5: return tf_cellular_f2(s, x, y);
    default: return tf_cellular_f2_f1(s, x, y);
    }
}

static int kind_index(const char *name)
{
    for (int k = 0; k < NKINDS; k++)
        if (strcmp(kinds[k].name, name) == 0)
            return k;
    return -1;
}

static int same_bits(double a, double b)
{
    return a == b ? signbit(a) == signbit(b) : isnan(a) && isnan(b);
}

/* Reads "kind seed v0 v1 ..." lines (numbers hex or decimal), skipping '#'. */
typedef void (*line_fn)(int kind, uint32_t seed, const double *v, int count, int line,
                        int *counts);

static int for_each_line(const char *path, int want, line_fn check, int *counts)
{
    FILE *f = fopen(path, "r");
    ck_assert_msg(f != NULL, "cannot open %s", path);
    char buf[1024];
    int lines = 0, number = 0;
    while (fgets(buf, sizeof buf, f)) {
        number++;
        if (buf[0] == '#' || buf[0] == '\n')
            continue;
        char name[64];
        unsigned long seed;
        int used = 0;
        ck_assert_msg(sscanf(buf, "%63s %lu%n", name, &seed, &used) == 2, "%s:%d: bad line",
                      path, number);
        int kind = kind_index(name);
        ck_assert_msg(kind >= 0, "%s:%d: unknown kind %s", path, number, name);
        double v[8];
        int count = 0;
        char *p = buf + used, *end;
        while (count < 8) {
            double d = strtod(p, &end);
            if (end == p)
                break;
            v[count++] = d;
            p = end;
        }
        ck_assert_msg(count == want, "%s:%d: expected %d numbers, got %d", path, number, want,
                      count);
        check(kind, (uint32_t)seed, v, count, number, counts);
        lines++;
    }
    fclose(f);
    return lines;
}

static void check_java_line(int kind, uint32_t seed, const double *v, int count, int line,
                            int *counts)
{
    (void)count;
    double got = plain(kind, seed, v[0], v[1], v[2]);
    /* Exact doubles: both follow the documented operation order. */
    ck_assert_msg(same_bits(got, v[3]), "kinds_java.txt:%d: %s(%u, %a, %a, %a) = %a, Java %a",
                  line, kinds[kind].name, (unsigned)seed, v[0], v[1], v[2], got, v[3]);
    counts[kind]++;
    if (kind == 0 && seed == 0)
        counts[NKINDS]++;
    if (kind == 0 && seed == 0 && (v[0] < 0 || v[1] < 0 || v[2] < 0))
        counts[NKINDS + 1]++;
    if (kind == 0 && seed == 0 && fabs(v[0]) > 1e8)
        counts[NKINDS + 2]++;
}

START_TEST(matches_java_reference)
{
    int counts[NKINDS + 3] = {0};
    for_each_line(tu_path("%s/tests/data/noise/kinds_java.txt", tu_srcdir()), 4,
                  check_java_line, counts);
    /* Perlin's own noise (seed 0) at >= 1000 points, negative and large ones. */
    ck_assert_int_ge(counts[NKINDS], 1000);
    ck_assert_int_ge(counts[NKINDS + 1], 500);
    ck_assert_int_ge(counts[NKINDS + 2], 100);
    for (int k = 0; k < NKINDS; k++)
        ck_assert_msg(counts[k] >= 400, "%s: only %d Java vectors", kinds[k].name, counts[k]);
}
END_TEST

static void check_golden_line(int kind, uint32_t seed, const double *v, int count, int line,
                              int *counts)
{
    (void)count;
    double dx, dy, got = kinds[kind].fn(seed, v[0], v[1], v[2], &dx, &dy);
    ck_assert_msg(same_bits(got, v[3]) && same_bits(dx, v[4]) && same_bits(dy, v[5]),
                  "kinds_golden.txt:%d: %s(%u, %a, %a, %a) = %a (%a, %a), golden %a (%a, %a)",
                  line, kinds[kind].name, (unsigned)seed, v[0], v[1], v[2], got, dx, dy, v[3],
                  v[4], v[5]);
    counts[kind]++;
}

START_TEST(matches_golden_vectors)
{
    int counts[NKINDS] = {0};
    for_each_line(tu_path("%s/tests/data/noise/kinds_golden.txt", tu_srcdir()), 6,
                  check_golden_line, counts);
    for (int k = 0; k < NKINDS; k++)
        ck_assert_int_ge(counts[k], 100);
}
END_TEST

START_TEST(magnitude_table)
{
    /* The literal table equals the recurrence m[i] = m[i-1] / 1.02 and the
     * Java table, bit for bit. */
    FILE *f = fopen(tu_path("%s/tests/data/noise/exp_magnitudes.txt", tu_srcdir()), "r");
    ck_assert(f != NULL);
    char buf[256];
    int i = 0;
    double m = 1;
    while (fgets(buf, sizeof buf, f)) {
        if (buf[0] == '#')
            continue;
        ck_assert_int_lt(i, 256);
        double java = strtod(buf, NULL);
        ck_assert_msg(same_bits(tf_exp_perlin_magnitude[i], java), "m[%d] = %a, Java %a", i,
                      tf_exp_perlin_magnitude[i], java);
        ck_assert(same_bits(tf_exp_perlin_magnitude[i], m));
        m /= 1.02;
        i++;
    }
    fclose(f);
    ck_assert_int_eq(i, 256);
}
END_TEST

/* Deterministic points: splitmix64. */
static uint64_t rng;
static double uniform(void)
{
    uint64_t z = (rng += 0x9e3779b97f4a7c15u);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9u;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebu;
    z ^= z >> 31;
    return (double)(z >> 11) * 0x1p-53;
}

/* Analytic derivatives against central differences (h = 1e-6): error below
 * 1e-6 * max(1, |d|). Cellular kinds are checked only where the forward and
 * backward differences agree (away from Voronoi edges, where they are C0). */
START_TEST(derivatives_match_finite_differences)
{
    int k = _i;
    rng = 77 + (uint64_t)k;
    const double h = 1e-6, scales[] = {3, 1e3, 1e6};
    int checked = 0;
    for (int n = 0; n < 3000; n++) {
        double s = scales[n % 3];
        double x = (uniform() * 2 - 1) * s, y = (uniform() * 2 - 1) * s, z = uniform() * 4;
        uint32_t seed = (uint32_t)(n % 5);
        double dx, dy, v = kinds[k].fn(seed, x, y, z, &dx, &dy);
        ck_assert_msg(same_bits(v, plain(k, seed, x, y, z)), "%s: _deriv value differs",
                      kinds[k].name);
        double d[2] = {dx, dy};
        for (int a = 0; a < 2; a++) {
            double xp = a == 0 ? x + h : x, yp = a == 1 ? y + h : y;
            double xm = a == 0 ? x - h : x, ym = a == 1 ? y - h : y;
            double vp = plain(k, seed, xp, yp, z), vm = plain(k, seed, xm, ym, z);
            /* Divide by the step actually taken (x + h is rounded). */
            double step = a == 0 ? xp - xm : yp - ym;
            double fd = (vp - vm) / step;
            if (!kinds[k].smooth) {
                double fwd = (vp - v) / (step / 2), bwd = (v - vm) / (step / 2);
                if (fabs(fwd - bwd) > 1e-3 || v < 1e-3)
                    continue;
            }
            double tol = 1e-6 * fmax(1, fabs(d[a]));
            if (s >= 1e6) /* the step is 1e-6 of a cell; rounding of x +- h dominates */
                tol = 1e-4 * fmax(1, fabs(d[a]));
            ck_assert_msg(fabs(fd - d[a]) <= tol, "%s(%u, %a, %a, %a): d/d%c = %.12g, FD %.12g",
                          kinds[k].name, (unsigned)seed, x, y, z, a == 0 ? 'x' : 'y', d[a], fd);
            checked++;
        }
    }
    ck_assert_int_ge(checked, 3000);
}
END_TEST

/* Range, mean and spread over a 256 x 256 grid at 1/8 cell spacing. */
static void grid_stats(int k, uint32_t seed, double x0, double y0, double *mean, double *std,
                       double *lo, double *hi)
{
    double sum = 0, sum2 = 0;
    *lo = INFINITY;
    *hi = -INFINITY;
    for (int j = 0; j < 256; j++)
        for (int i = 0; i < 256; i++) {
            double v = plain(k, seed, x0 + i * 0.125 + 0.0625, y0 + j * 0.125 + 0.0625, 0.37);
            sum += v;
            sum2 += v * v;
            *lo = fmin(*lo, v);
            *hi = fmax(*hi, v);
        }
    *mean = sum / 65536;
    *std = sqrt(sum2 / 65536 - *mean * *mean);
}

START_TEST(range_and_statistics)
{
    int k = _i;
    double mean, std, lo, hi;
    grid_stats(k, 12345, 0, 0, &mean, &std, &lo, &hi);
    ck_assert_msg(lo >= kinds[k].lo && hi <= kinds[k].hi, "%s: [%g, %g] outside [%g, %g]",
                  kinds[k].name, lo, hi, kinds[k].lo, kinds[k].hi);
    ck_assert_msg(std >= kinds[k].std_lo && std <= kinds[k].std_hi, "%s: std %g", kinds[k].name,
                  std);
    /* The gradient and value kinds are symmetric about 0. */
    if (k <= 3)
        ck_assert_msg(fabs(mean) < 0.05, "%s: mean %g", kinds[k].name, mean);
    /* Far from the origin: the same statistics (no precision collapse). */
    double mean2, std2, lo2, hi2;
    grid_stats(k, 12345, 1e7 + 0.5, -1e7 - 0.25, &mean2, &std2, &lo2, &hi2);
    ck_assert_msg(fabs(std2 - std) < 0.15 * std && fabs(mean2 - mean) < 0.1,
                  "%s at 1e7: mean %g std %g (near origin %g %g)", kinds[k].name, mean2, std2,
                  mean, std);
    ck_assert(lo2 >= kinds[k].lo && hi2 <= kinds[k].hi);
}
END_TEST

START_TEST(seeds_decorrelate)
{
    int k = _i;
    const uint32_t seeds[] = {1, 2, 3, 1000000007u};
    double v[4][1024];
    for (int s = 0; s < 4; s++)
        for (int n = 0; n < 1024; n++)
            v[s][n] = plain(k, seeds[s], (n % 32) * 0.71 + 0.1, (n / 32) * 0.73 + 0.2, 0.4);
    for (int a = 0; a < 4; a++)
        for (int b = a + 1; b < 4; b++) {
            double ma = 0, mb = 0, sab = 0, saa = 0, sbb = 0;
            for (int n = 0; n < 1024; n++) {
                ma += v[a][n] / 1024;
                mb += v[b][n] / 1024;
            }
            for (int n = 0; n < 1024; n++) {
                sab += (v[a][n] - ma) * (v[b][n] - mb);
                saa += (v[a][n] - ma) * (v[a][n] - ma);
                sbb += (v[b][n] - mb) * (v[b][n] - mb);
            }
            double r = sab / sqrt(saa * sbb);
            ck_assert_msg(fabs(r) < 0.12, "%s: seeds %u and %u correlate (r = %g)",
                          kinds[k].name, (unsigned)seeds[a], (unsigned)seeds[b], r);
        }
}
END_TEST

/* No jumps across cell boundaries (every kind is at least C0); the gradient
 * and value kinds are C1, so their derivatives agree on both sides too. The
 * polynomial is C1 only at the corners: across an edge its tangential
 * derivative is continuous and its normal derivative jumps by
 * (A' - A)(S3(t) - t), at most 8 * sqrt(3)/18 = 0.7698 (docs/noise.md). */
START_TEST(continuous_across_cells)
{
    int k = _i;
    const double e = 1e-9, bases[] = {0, -37, 1e7};
    for (int b = 0; b < 3; b++)
        for (int c = 0; c < 40; c++) {
            double edge = bases[b] + c - 20, t = bases[b] + 0.3 + c * 0.17;
            for (int a = 0; a < 2; a++) {
                double x1 = a == 0 ? edge - e : t, y1 = a == 0 ? t : edge - e;
                double x2 = a == 0 ? edge + e : t, y2 = a == 0 ? t : edge + e;
                double d1x, d1y, d2x, d2y;
                double v1 = kinds[k].fn(9, x1, y1, 0.25, &d1x, &d1y);
                double v2 = kinds[k].fn(9, x2, y2, 0.25, &d2x, &d2y);
                ck_assert_msg(fabs(v1 - v2) < 1e-6, "%s jumps at %s = %g: %.17g vs %.17g",
                              kinds[k].name, a == 0 ? "x" : "y", edge, v1, v2);
                if (kinds[k].c1)
                    ck_assert_msg(fabs(d1x - d2x) < 1e-5 && fabs(d1y - d2y) < 1e-5,
                                  "%s: derivative jumps at %g", kinds[k].name, edge);
                if (k == 2) {
                    double tangential = a == 0 ? d1y - d2y : d1x - d2x;
                    double normal = a == 0 ? d1x - d2x : d1y - d2y;
                    ck_assert(fabs(tangential) < 1e-5);
                    ck_assert(fabs(normal) <= 0.7698);
                }
            }
        }
}
END_TEST

START_TEST(bad_coordinates_give_nan)
{
    int k = _i;
    const double bad[] = {NAN, INFINITY, -INFINITY, 0x1p52, -0x1p52, 1e300};
    for (int b = 0; b < 6; b++) {
        double dx = 0, dy = 0;
        ck_assert(isnan(kinds[k].fn(1, bad[b], 0.5, 0.5, &dx, &dy)) && isnan(dx) && isnan(dy));
        ck_assert(isnan(kinds[k].fn(1, 0.5, bad[b], 0.5, NULL, NULL)));
        ck_assert(isnan(plain(k, 1, 0.5, bad[b], 0.5)));
    }
    /* Just inside the domain: finite. */
    ck_assert(isfinite(plain(k, 1, 0x1p52 - 1, -0x1p52 + 1.5, 0.5)));
}
END_TEST

START_TEST(polynomial_and_value_corners)
{
    /* Zero gradient at the lattice points (D2M1N3 and the quintic fade), and
     * the value there is the corner height k * 2^-23 - 1. */
    for (int i = -3; i <= 3; i++)
        for (int j = -3; j <= 3; j++) {
            double dx, dy;
            double p = tf_polynomial2_deriv(5, i, j, &dx, &dy);
            ck_assert(dx == 0 && dy == 0);
            double v = tf_value2_deriv(5, i, j, &dx, &dy);
            ck_assert(dx == 0 && dy == 0);
            ck_assert(p == v && p >= -1 && p < 1);
            ck_assert(ldexp(p + 1, 23) == floor(ldexp(p + 1, 23)));
        }
}
END_TEST

START_TEST(perlin_seed_zero_is_periodic_reference)
{
    /* Seed 0 has period 256 in every axis; another seed is a translate of
     * it by whole cells (docs/noise.md). */
    for (int n = 0; n < 50; n++) {
        /* Dyadic coordinates, so x + 256 keeps the same fraction exactly. */
        double x = n * 0.375 - 9, y = n * 0.6875 + 2, z = 0.3125;
        ck_assert(tf_perlin_improved3(0, x, y, z) == tf_perlin_improved3(0, x + 256, y - 512, z));
        ck_assert(tf_perlin_improved3(0, x, y, z) != tf_perlin_improved3(1, x, y, z) ||
                  tf_perlin_improved3(0, x, y, z) == 0);
    }
}
END_TEST

static Suite *kinds_suite(void)
{
    Suite *s = suite_create("noise_kinds");
    TCase *tc = tcase_create("vectors");
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, matches_java_reference);
    tcase_add_test(tc, matches_golden_vectors);
    tcase_add_test(tc, magnitude_table);
    tcase_add_test(tc, polynomial_and_value_corners);
    tcase_add_test(tc, perlin_seed_zero_is_periodic_reference);
    suite_add_tcase(s, tc);
    TCase *props = tcase_create("properties");
    tcase_set_timeout(props, 120);
    tcase_add_loop_test(props, derivatives_match_finite_differences, 0, NKINDS);
    tcase_add_loop_test(props, range_and_statistics, 0, NKINDS);
    tcase_add_loop_test(props, seeds_decorrelate, 0, NKINDS);
    tcase_add_loop_test(props, continuous_across_cells, 0, NKINDS);
    tcase_add_loop_test(props, bad_coordinates_give_nan, 0, NKINDS);
    suite_add_tcase(s, props);
    return s;
}

int main(void)
{
    return tu_run_suite(kinds_suite());
}
