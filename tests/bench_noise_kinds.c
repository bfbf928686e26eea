/*
 * The further base noises outside the test suite: `make bench` prints ns per
 * sample of each (against tf_simplex2 and Perlin's reference simplex);
 * --vectors prints the C golden vectors (tests/data/noise/kinds_golden.txt);
 * --stats prints the range figures quoted in docs/noise.md.
 */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "runtime/noise.h"
#include "runtime/noise_kinds.h"
#include "util/util.h"

typedef double (*noise_fn)(uint32_t seed, double x, double y, double z);
typedef double (*deriv_fn)(uint32_t seed, double x, double y, double z, double *dx, double *dy);

static double simplex2(uint32_t s, double x, double y, double z) { (void)z; return tf_simplex2(s, x, y); }
static double ref_simplex3(uint32_t s, double x, double y, double z) { (void)s; return tf_perlin_reference_simplex3(x, y, z); }
static double poly(uint32_t s, double x, double y, double z) { (void)z; return tf_polynomial2(s, x, y); }
static double value(uint32_t s, double x, double y, double z) { (void)z; return tf_value2(s, x, y); }
static double f1(uint32_t s, double x, double y, double z) { (void)z; return tf_cellular_f1(s, x, y); }
static double f2(uint32_t s, double x, double y, double z) { (void)z; return tf_cellular_f2(s, x, y); }
static double f21(uint32_t s, double x, double y, double z) { (void)z; return tf_cellular_f2_f1(s, x, y); }
static double poly_d(uint32_t s, double x, double y, double z, double *dx, double *dy) { (void)z; return tf_polynomial2_deriv(s, x, y, dx, dy); }
static double value_d(uint32_t s, double x, double y, double z, double *dx, double *dy) { (void)z; return tf_value2_deriv(s, x, y, dx, dy); }
static double f1_d(uint32_t s, double x, double y, double z, double *dx, double *dy) { (void)z; return tf_cellular_f1_deriv(s, x, y, dx, dy); }
static double f2_d(uint32_t s, double x, double y, double z, double *dx, double *dy) { (void)z; return tf_cellular_f2_deriv(s, x, y, dx, dy); }
static double f21_d(uint32_t s, double x, double y, double z, double *dx, double *dy) { (void)z; return tf_cellular_f2_f1_deriv(s, x, y, dx, dy); }

static const struct {
    const char *name;
    noise_fn fn;
    deriv_fn deriv;
} kinds[] = {
    {"perlin", tf_perlin_improved3, tf_perlin_improved3_deriv},
    {"exponential-perlin", tf_exp_perlin3, tf_exp_perlin3_deriv},
    {"polynomial", poly, poly_d},
    {"value", value, value_d},
    {"cellular-f1", f1, f1_d},
    {"cellular-f2", f2, f2_d},
    {"cellular-f2-f1", f21, f21_d},
};
enum { NKINDS = sizeof kinds / sizeof kinds[0] };

/* splitmix64: the deterministic point stream of the golden vectors. */
static uint64_t rng_state = 20261123u;
static double uniform(void)
{
    uint64_t z = (rng_state += 0x9e3779b97f4a7c15u);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9u;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebu;
    z ^= z >> 31;
    return (double)(z >> 11) * 0x1p-53;
}

static void vectors(void)
{
    printf("# further base noises, C golden vectors: kind seed x y z n dn/dx dn/dy (hex\n"
           "# doubles), from tests/bench_noise_kinds --vectors (2D kinds ignore z).\n");
    static const uint32_t seeds[] = {0, 7, 4000000000u};
    static const double scales[] = {1, 50, 1e5, 1e7};
    for (size_t s = 0; s < 3; s++)
        for (size_t c = 0; c < 4; c++)
            for (int n = 0; n < 12; n++) {
                double x = (uniform() * 2 - 1) * scales[c], y = (uniform() * 2 - 1) * scales[c];
                double z = uniform() * 8 - 4;
                for (int k = 0; k < NKINDS; k++) {
                    double dx, dy, v = kinds[k].deriv(seeds[s], x, y, z, &dx, &dy);
                    printf("%s %u %a %a %a %a %a %a\n", kinds[k].name, (unsigned)seeds[s], x, y,
                           z, v, dx, dy);
                }
            }
}

static void stats(void)
{
    const int n = 1 << 20;
    for (int k = 0; k < NKINDS; k++) {
        double lo = INFINITY, hi = -INFINITY, sum = 0, sum2 = 0;
        for (int i = 0; i < n; i++) {
            /* 1024 x 1024 grid, spacing 0.0625 cells -> 64 x 64 cells. */
            double x = (i & 1023) * 0.0625 + 0.03125, y = (i >> 10) * 0.0625 + 0.03125;
            double v = kinds[k].fn(12345, x, y, 0.5);
            lo = v < lo ? v : lo;
            hi = v > hi ? v : hi;
            sum += v;
            sum2 += v * v;
        }
        double mean = sum / n;
        printf("%-20s min %9.5f max %9.5f mean %9.5f std %8.5f\n", kinds[k].name, lo, hi, mean,
               sqrt(sum2 / n - mean * mean));
    }
    /* Bound of the zero-gradient D2M1N3 cubic: max over the cell of the sum
     * of |corner weights| (corner heights in [-1, 1)). */
    double best = 0, bx = 0, by = 0;
    for (int i = 0; i <= 2000; i++)
        for (int j = 0; j <= 2000; j++) {
            double x = i / 2000.0, y = j / 2000.0;
            double sx = x * x * (3 - 2 * x), sy = y * y * (3 - 2 * y), q = sx * y + sy * x - x * y;
            double w = fabs(1 - sx - sy + q) + fabs(sx - q) + fabs(sy - q) + fabs(q);
            if (w > best) {
                best = w;
                bx = x;
                by = y;
            }
        }
    printf("polynomial bound: max sum |w| = %.6f at (%.4f, %.4f)\n", best, bx, by);
}

/* The paper's claim, tested like for like: 2D improved Perlin against 2D
 * zero-gradient D2M1N3 with the same lattice code and the same hash (a
 * 256-entry permutation table, p[p[X] + Y]); only the interpolant differs.
 * Bench-only copies, not library functions. */
static uint8_t bench_perm[512];

static void bench_perm_init(void)
{
    for (int i = 0; i < 256; i++)
        bench_perm[i] = (uint8_t)i;
    uint64_t s = 1;
    for (int i = 255; i > 0; i--) {
        s = s * 6364136223846793005u + 1442695040888963407u;
        int j = (int)((s >> 33) % (uint64_t)(i + 1));
        uint8_t t = bench_perm[i];
        bench_perm[i] = bench_perm[j];
        bench_perm[j] = t;
    }
    for (int i = 0; i < 256; i++)
        bench_perm[256 + i] = bench_perm[i];
}

static double grad2(int h, double x, double y)
{
    return ((h & 1) ? -x : x) + ((h & 2) ? -y : y);
}

static double perlin2_table(uint32_t s, double x, double y, double z)
{
    (void)s;
    (void)z;
    double fx0 = floor(x), fy0 = floor(y);
    int X = (int)fx0 & 255, Y = (int)fy0 & 255;
    double fx = x - fx0, fy = y - fy0;
    double u = nk_fade5(fx), v = nk_fade5(fy);
    int A = bench_perm[X] + Y, B = bench_perm[X + 1] + Y;
    double a = grad2(bench_perm[A], fx, fy), b = grad2(bench_perm[B], fx - 1, fy);
    double c = grad2(bench_perm[A + 1], fx, fy - 1), d = grad2(bench_perm[B + 1], fx - 1, fy - 1);
    double ab = a + u * (b - a), cd = c + u * (d - c);
    return ab + v * (cd - ab);
}

static double poly2_table(uint32_t s, double x, double y, double z)
{
    (void)s;
    (void)z;
    double fx0 = floor(x), fy0 = floor(y);
    int X = (int)fx0 & 255, Y = (int)fy0 & 255;
    double fx = x - fx0, fy = y - fy0;
    int A = bench_perm[X] + Y, B = bench_perm[X + 1] + Y;
    double h00 = bench_perm[A] * (2.0 / 255) - 1, h10 = bench_perm[B] * (2.0 / 255) - 1;
    double h01 = bench_perm[A + 1] * (2.0 / 255) - 1, h11 = bench_perm[B + 1] * (2.0 / 255) - 1;
    double dX = h10 - h00, dY = h01 - h00, Ac = ((h11 + h00) - h10) - h01;
    double sx = fx * fx * (3 - 2 * fx), sy = fy * fy * (3 - 2 * fy);
    return ((h00 + sx * dX) + sy * dY) + Ac * ((sx * fy + sy * fx) - fx * fy);
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* ns per sample over a 512 x 512 grid (spacing 1/37 cell), median of 7. */
static double bench_one(noise_fn fn)
{
    double runs[7];
    volatile double sink = 0;
    for (int r = 0; r < 7; r++) {
        double t0 = tf_clock_seconds(), acc = 0;
        for (int j = 0; j < 512; j++)
            for (int i = 0; i < 512; i++)
                acc += fn(99, i * (1.0 / 37) + 0.1, j * (1.0 / 37) + 0.2, 0.3);
        sink += acc;
        runs[r] = (tf_clock_seconds() - t0) * 1e9 / (512.0 * 512.0);
    }
    (void)sink;
    qsort(runs, 7, sizeof runs[0], cmp_double);
    return runs[3];
}

static void bench(void)
{
    printf("ns per sample (median of 7 passes over 512x512 points, one thread):\n");
    double perlin = bench_one(tf_perlin_improved3), polyn = bench_one(poly);
    printf("%-28s %7.2f\n", "simplex (tf_simplex2)", bench_one(simplex2));
    printf("%-28s %7.2f\n", "perlin-reference-simplex", bench_one(ref_simplex3));
    for (int k = 0; k < NKINDS; k++)
        printf("%-28s %7.2f\n", kinds[k].name, bench_one(kinds[k].fn));
    printf("polynomial (hashed, 2D) vs perlin (table, 3D): %.2fx faster\n", perlin / polyn);
    bench_perm_init();
    double p2 = bench_one(perlin2_table), z2 = bench_one(poly2_table);
    printf("like for like, 2D, same table hash: perlin %.2f, D2M1N3 %.2f -> %.2fx faster\n", p2,
           z2, p2 / z2);
}

int main(int argc, char **argv)
{
    if (argc > 1 && strcmp(argv[1], "--vectors") == 0)
        vectors();
    else if (argc > 1 && strcmp(argv[1], "--stats") == 0)
        stats();
    else if (argc > 1) {
        fprintf(stderr, "usage: bench_noise_kinds [--vectors | --stats]\n");
        return 2;
    } else
        bench();
    return 0;
}
