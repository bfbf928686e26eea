/*
 * Measures the base-frequency estimators (docs/frequency.md, "Accuracy"):
 * renders one-layer references of known frequency, optionally with white
 * Gaussian noise or 8-bit quantization, and prints each estimator's error.
 * Run: ./tests/frequency_accuracy [--seeds N] [--side N] [--perlin] [--time | --bench]
 * (--bench: wall time of each method on one reference instead of the table).
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "frequency_reference.h"
#include "terrafit/terrafit.h"
#include "util/util.h"

enum { CLEAN = 0, NOISY = 1, BYTE = 2 };

/* A side x side reference (frequency_reference.h): one layer of the
 * chosen noise at frequency f through the curve, normalized to [0, 1];
 * then noise (sigma 0.05) or 8-bit rounding. */
static tf_noise_type noise_kind = TF_NOISE_SIMPLEX;

static tf_layer_map *reference(double f, uint32_t seed, size_t side, int kind)
{
    tf_error err;
    tf_layer_map *map = fr_render_reference(noise_kind, f, seed, side, kind == NOISY ? 0.05 : 0.0,
                                            kind == BYTE, &err);
    if (!map)
        fprintf(stderr, "reference: %s\n", err.message);
    return map;
}

/* Wall time per call of each method on one side x side reference at
 * f = 1/32, after a first call that builds the noise tables. */
static int run_bench(const tf_curve *curve, size_t side)
{
    enum { CALLS = 10 };
    tf_layer_map *map = reference(1.0 / 32.0, 5u, side, CLEAN);
    if (!map)
        return 1;
    tf_frequency_estimate est;
    tf_error err;
    double t0 = tf_clock_seconds();
    if (tf_estimate_frequency(map, noise_kind, curve, TF_FREQUENCY_AUTO, &est, &err) != 0) {
        fprintf(stderr, "%s\n", err.message);
        return 1;
    }
    printf("%s, %zux%zu, f = 1/32: first call (builds the tables) %.1f ms\n",
           tf_noise_type_name(noise_kind), side, side, 1000.0 * (tf_clock_seconds() - t0));
    for (int m = 0; m < 3; m++) {
        t0 = tf_clock_seconds();
        for (int c = 0; c < CALLS; c++)
            if (tf_estimate_frequency(map, noise_kind, curve, (tf_frequency_method)m, &est,
                                      &err) != 0) {
                fprintf(stderr, "%s\n", err.message);
                return 1;
            }
        printf("  %-8s %6.1f ms per call (mean of %d)\n",
               tf_frequency_method_name((tf_frequency_method)m), 1000.0 * (tf_clock_seconds() - t0) / CALLS,
               CALLS);
    }
    tf_layer_map_free(map);
    return 0;
}

int main(int argc, char **argv)
{
    int seeds = 4, timing = 0, bench = 0;
    size_t side = 1024;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--seeds") == 0 && i + 1 < argc)
            seeds = atoi(argv[++i]);
        else if (strcmp(argv[i], "--side") == 0 && i + 1 < argc)
            side = (size_t)atol(argv[++i]);
        else if (strcmp(argv[i], "--time") == 0)
            timing = 1;
        else if (strcmp(argv[i], "--bench") == 0)
            bench = 1;
        else if (strcmp(argv[i], "--perlin") == 0)
            noise_kind = TF_NOISE_PERLIN_REFERENCE_SIMPLEX;
        else {
            fprintf(stderr, "usage: %s [--seeds N] [--side N] [--perlin] [--time | --bench]\n", argv[0]);
            return 2;
        }
    }
    if (seeds < 1 || side < 16) {
        fprintf(stderr, "frequency_accuracy: need --seeds >= 1 and --side >= 16\n");
        return 2;
    }
    tf_error err;
    tf_curve *curve =
        tf_curve_new(fr_curve_points, FR_CURVE_POINT_COUNT, TF_INTERP_MONOTONE_CUBIC, &err);
    if (!curve) {
        fprintf(stderr, "%s\n", err.message);
        return 1;
    }
    if (bench)
        return run_bench(curve, side);
    static const double periods[] = {400, 200, 100, 64, 40, 25, 16, 12, 8, 6, 4, 3};
    const char *kinds[] = {"clean", "sigma 5%", "8-bit"};
    printf("# %zux%zu %s references, curve through (0,0) (.3,.1) (.5,.35) (.7,.8) (1,1);\n",
           side, side, tf_noise_type_name(noise_kind));
    printf("# error = estimate / truth - 1 over %d seeds: mean and worst |error|\n", seeds);
    printf("%-8s %-9s %-22s %-22s %s\n", "f", "reference", "peaks mean / worst",
           "spectrum mean / worst", "auto picks");
    double seconds = 0.0, first = -1.0;
    int timed = 0;
    for (size_t fi = 0; fi < sizeof periods / sizeof periods[0]; fi++) {
        double f = 1.0 / periods[fi];
        for (int kind = CLEAN; kind <= BYTE; kind++) {
            double sum[2] = {0, 0}, worst[2] = {0, 0};
            int failed[2] = {0, 0}, spectrum_picks = 0;
            for (int s = 0; s < seeds; s++) {
                tf_layer_map *map = reference(f, 1000u + (uint32_t)s, side, kind);
                if (!map)
                    return 1;
                tf_frequency_estimate est;
                double t0 = tf_clock_seconds();
                int rc = tf_estimate_frequency(map, noise_kind, curve, TF_FREQUENCY_AUTO,
                                               &est, &err);
                /* The first call also builds the per-noise tables. */
                if (first < 0.0) {
                    first = tf_clock_seconds() - t0;
                } else {
                    seconds += tf_clock_seconds() - t0;
                    timed++;
                }
                tf_layer_map_free(map);
                if (rc != 0) {
                    failed[0]++;
                    failed[1]++;
                    continue;
                }
                double e[2] = {est.peaks / f - 1.0, est.spectrum / f - 1.0};
                for (int m = 0; m < 2; m++) {
                    if (isnan(e[m])) {
                        failed[m]++;
                        continue;
                    }
                    sum[m] += e[m];
                    worst[m] = fmax(worst[m], fabs(e[m]));
                }
                spectrum_picks += est.chosen_method == TF_FREQUENCY_SPECTRUM;
            }
            char cell[2][40];
            for (int m = 0; m < 2; m++) {
                int ok = seeds - failed[m];
                if (ok == 0)
                    snprintf(cell[m], sizeof cell[m], "none");
                else
                    snprintf(cell[m], sizeof cell[m], "%+6.1f%% / %5.1f%%%s",
                             100.0 * sum[m] / ok, 100.0 * worst[m], failed[m] ? " (some none)" : "");
            }
            printf("1/%-6g %-9s %-22s %-22s spectrum %d/%d\n", periods[fi], kinds[kind], cell[0],
                   cell[1], spectrum_picks, seeds);
            fflush(stdout);
        }
    }
    if (timing && timed > 0)
        printf("# wall time per %zux%zu estimate (auto: both estimators): first %.1f ms (builds "
               "the noise tables), then %.1f ms on average\n",
               side, side, 1000.0 * first, 1000.0 * seconds / timed);
    tf_curve_free(curve);
    return 0;
}
