/*
 * Prints the value statistics of each base noise that docs/noise.md quotes:
 * extremes, mean, standard deviation and quartiles over 2^20 samples, the
 * unit-mapped range u = (n + 1) / 2, and the simplex kernel's largest
 * possible sum (a dense search over one cell). Run: ./tests/noise_stats
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "terrafit/runtime.h"

static int compare_doubles(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static void report(const char *name, tf_noise_type type, uint32_t seed, double z)
{
    enum { SIDE = 1024, COUNT = SIDE * SIDE };
    double *v = malloc(COUNT * sizeof *v);
    if (!v)
        exit(1);
    double sum = 0, sum2 = 0;
    for (int k = 0; k < COUNT; k++) {
        /* Irrational-ish spacing so samples fall all over the cells. */
        double x = (k % SIDE) * 0.731 + 0.1, y = (k / SIDE) * 0.613 + 0.2;
        v[k] = tf_noise_eval(type, seed, x, y, z);
        sum += v[k];
        sum2 += v[k] * v[k];
    }
    qsort(v, COUNT, sizeof *v, compare_doubles);
    double mean = sum / COUNT;
    printf("%-26s n: min %.4f  q25 %.4f  median %.4f  q75 %.4f  max %.4f  mean %.4f  sd %.4f\n",
           name, v[0], v[COUNT / 4], v[COUNT / 2], v[3 * COUNT / 4], v[COUNT - 1], mean,
           sqrt(sum2 / COUNT - mean * mean));
    printf("%-26s u: min %.3f  q25 %.3f  q75 %.3f  max %.3f\n", "", (v[0] + 1) / 2,
           (v[COUNT / 4] + 1) / 2, (v[3 * COUNT / 4] + 1) / 2, (v[COUNT - 1] + 1) / 2);
    free(v);
}

/* Largest sum over the three corners of (0.5 - |d|^2)^4 |d|: the kernel
 * sum with every gradient pointing at the sample. */
static double simplex_kernel_bound(void)
{
    const double G2 = (3.0 - sqrt(3.0)) / 6.0;
    const int steps = 3000;
    double best = 0;
    for (int a = 0; a <= steps; a++)
        for (int b = 0; b <= a; b++) {
            double xs = (double)a / steps, ys = (double)b / steps; /* skewed, lower triangle */
            double t = (xs + ys) * G2;
            double px[3] = {xs - t, xs - t - 1 + G2, xs - t - 1 + 2 * G2};
            double py[3] = {ys - t, ys - t + G2, ys - t - 1 + 2 * G2};
            double sum = 0;
            for (int c = 0; c < 3; c++) {
                double d2 = px[c] * px[c] + py[c] * py[c], k = 0.5 - d2;
                if (k > 0)
                    sum += k * k * k * k * sqrt(d2);
            }
            if (sum > best)
                best = sum;
        }
    return best;
}

int main(void)
{
    report("simplex (seed 12345)", TF_NOISE_SIMPLEX, 12345u, 0.0);
    report("perlin-reference-simplex", TF_NOISE_PERLIN_REFERENCE_SIMPLEX, 0, 17.3);
    double bound = simplex_kernel_bound();
    printf("simplex kernel bound %.7f -> |n| <= 99 * bound = %.5f\n", bound, 99 * bound);
    return 0;
}
