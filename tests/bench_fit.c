/*
 * `make bench`: the wall time of tf_fit on four 1024x1024 reference layers
 * (a base layer and three detail layers, each masked by the one below),
 * built in memory from known specs, and of auto-layering one 1024x1024 DEM
 * (a synthetic multi-octave relief). Prints every run and the medians.
 */

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "terrafit/terrafit.h"
#include "util/util.h"

#define SIDE 1024
#define LAYERS 4
#define RUNS 7

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* A one-layer spec whose height is RD(u) in [0, 1] at frequency f. */
static tf_layer_map *render_layer(double frequency, uint32_t seed, tf_error *err)
{
    static const tf_point curve[] = {{0.25, 0.0}, {0.45, 0.3}, {0.55, 0.6}, {0.75, 1.0}};
    tf_spec *spec = tf_spec_new(1, err);
    if (!spec)
        return NULL;
    tf_spec_reseed(spec, seed);
    spec->layers[0].frequency = frequency;
    spec->min_value = 0.0;
    spec->max_value = 1.0;
    tf_terrain *t = NULL;
    tf_layer_map *map = NULL;
    if (tf_spec_set_rd_points(spec, 0, curve, 4, err) == 0 &&
        (t = tf_terrain_compile(spec, err)) && (map = tf_layer_map_new(SIDE, SIDE, err))) {
        if (tf_render_grid(t, 0.0, 0.0, 1.0, SIDE, SIDE, 0, map->value, NULL, NULL, err) != 0) {
            tf_layer_map_free(map);
            map = NULL;
        }
    }
    tf_terrain_free(t);
    tf_spec_free(spec);
    return map;
}

/* Auto-layering one 1024x1024 DEM: eight octaves of simplex noise, each
 * half the amplitude of the one below, rougher where high (docs/fitting.md,
 * "Speed"). */
static int bench_autolayer(void)
{
    tf_error err;
    tf_layer_map *dem = tf_layer_map_new(SIDE, SIDE, &err);
    if (!dem) {
        fprintf(stderr, "bench_fit: %s\n", err.message);
        return -1;
    }
    double lo = 1e300, hi = -1e300;
    for (size_t j = 0; j < SIDE; j++)
        for (size_t i = 0; i < SIDE; i++) {
            double base = tf_noise_eval(TF_NOISE_SIMPLEX, 1, i / 300.0, j / 300.0, 0.0), v = base;
            for (int o = 1; o < 8; o++)
                v += (0.6 + 0.4 * base) * ldexp(1.0, -o) *
                     tf_noise_eval(TF_NOISE_SIMPLEX, 1u + (uint32_t)o, ldexp(i / 300.0, o),
                                   ldexp(j / 300.0, o), 0.0);
            dem->value[j * SIDE + i] = (float)v;
            lo = v < lo ? v : lo;
            hi = v > hi ? v : hi;
        }
    for (size_t k = 0; k < (size_t)SIDE * SIDE; k++)
        dem->value[k] = (float)((dem->value[k] - lo) / (hi - lo));
    tf_fit_options opt;
    tf_fit_options_init(&opt);
    double seconds[RUNS];
    printf("tf_fit: one %dx%d DEM, auto-layered, %zu points, %u threads\n", SIDE, SIDE,
           opt.points, tf_cpu_count());
    for (int r = 0; r < RUNS; r++) {
        tf_spec *spec = NULL;
        tf_fit_report report;
        double t0 = tf_clock_seconds();
        if (tf_fit((const tf_layer_map *const *)&dem, 1, &opt, &spec, &report, NULL, NULL,
                   &err) != 0) {
            fprintf(stderr, "bench_fit: %s\n", err.message);
            tf_layer_map_free(dem);
            return -1;
        }
        seconds[r] = tf_clock_seconds() - t0;
        printf("  run %d: %.3f s (%zu layers; noise sample and spectrum %.3f s, bands %.3f s, "
               "calibration %.3f s, output curve %.3f s)\n",
               r + 1, seconds[r], report.layer_count, report.seconds_noise_sample,
               report.seconds_bands, report.seconds_calibration, report.seconds_output_curve);
        tf_fit_report_free(&report);
        tf_spec_free(spec);
    }
    qsort(seconds, RUNS, sizeof seconds[0], cmp_double);
    printf("auto-layered fit of one %dx%d DEM: median %.3f s wall over %d runs\n", SIDE, SIDE,
           seconds[RUNS / 2], RUNS);
    tf_layer_map_free(dem);
    return 0;
}

int main(void)
{
    tf_error err;
    tf_layer_map *layers[LAYERS] = {NULL};
    static const double FREQ[LAYERS] = {1.0 / 96, 1.0 / 40, 1.0 / 17, 1.0 / 9};
    int status = 1;
    for (int i = 0; i < LAYERS; i++) {
        if (!(layers[i] = render_layer(FREQ[i], 11u + (uint32_t)i, &err))) {
            fprintf(stderr, "bench_fit: %s\n", err.message);
            goto done;
        }
    }
    /* Layer i > 0 is present (alpha 1) only where layer i-1 lies in
     * [0.35, 0.8], transparent elsewhere, as an RGBA reference would be. */
    for (int i = 1; i < LAYERS; i++) {
        for (size_t k = 0; k < (size_t)SIDE * SIDE; k++) {
            float below = layers[i - 1]->weight[k] > 0.0f ? layers[i - 1]->value[k] : 0.0f;
            if (below >= 0.35f && below <= 0.8f) {
                layers[i]->weight[k] = 1.0f;
            } else {
                layers[i]->weight[k] = 0.0f;
                layers[i]->value[k] = 0.5f;
            }
        }
    }

    tf_fit_options opt;
    tf_fit_options_init(&opt);
    double seconds[RUNS];
    printf("tf_fit: %d layers of %dx%d, %zu points, auto frequency, %u threads\n", LAYERS, SIDE,
           SIDE, opt.points, tf_cpu_count());
    for (int r = 0; r < RUNS; r++) {
        tf_spec *spec = NULL;
        tf_fit_report report;
        double t0 = tf_clock_seconds();
        if (tf_fit((const tf_layer_map *const *)layers, LAYERS, &opt, &spec, &report, NULL, NULL,
                   &err) != 0) {
            fprintf(stderr, "bench_fit: %s\n", err.message);
            goto done;
        }
        seconds[r] = tf_clock_seconds() - t0;
        printf("  run %d: %.3f s (base-noise sample %.3f s", r + 1, seconds[r],
               report.seconds_noise_sample);
        for (size_t i = 0; i < report.layer_count; i++) {
            const tf_fit_layer_report *l = &report.layers[i];
            printf("; layer %zu: quantiles %.3f, frequency %.3f, synthesis %.3f, mask %.3f", i,
                   l->seconds_quantiles, l->seconds_frequency, l->seconds_synthesis,
                   l->seconds_mask);
        }
        printf(")\n");
        tf_fit_report_free(&report);
        tf_spec_free(spec);
    }
    double first = seconds[0];
    qsort(seconds, RUNS, sizeof seconds[0], cmp_double);
    printf("fit of %d %dx%d layers: median %.3f s wall over %d runs "
           "(first run, which builds the base-noise sample: %.3f s)\n",
           LAYERS, SIDE, SIDE, seconds[RUNS / 2], RUNS, first);
    if (bench_autolayer() != 0)
        goto done;
    status = 0;
done:
    for (int i = 0; i < LAYERS; i++)
        tf_layer_map_free(layers[i]);
    tf_fit_release_caches();
    return status;
}
