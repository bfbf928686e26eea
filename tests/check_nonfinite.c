/*
 * Non-finite coordinates through every noise kind and layer kind: single
 * samples, gradients, stages, grids and windows give non-finite heights on
 * every evaluation path, and never index outside a table (run it in the
 * sanitizer build: UBSan flags a bad index, ASan a bad read).
 */
#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "terrafit/runtime.h"
#include "testutil.h"

/* Layer 0 of the given noise and kind; layer 1 masked by it and warped
 * through an output curve, so masks and curves see the NaNs too. */
static tf_terrain *build(tf_noise_type noise, tf_fractal_kind kind)
{
    char fractal[96] = "";
    if (kind != TF_FRACTAL_NONE)
        snprintf(fractal, sizeof fractal, "\"fractal\": {\"kind\": \"%s\", \"octaves\": 4},",
                 tf_fractal_kind_name(kind));
    char json[1024];
    snprintf(json, sizeof json,
             "{\"format\": \"terrafit-terrain\", \"version\": 1, \"seed\": 3,"
             " \"noiseLayers\": ["
             "  {\"baseNoise\": {\"type\": \"%s\", \"frequency\": 0.05}, %s"
             "   \"rd\": {\"points\": [{\"x\": 0, \"y\": 0}, {\"x\": 1, \"y\": 1}]},"
             "   \"preAmpShift\": -0.5},"
             "  {\"baseNoise\": {\"frequency\": 0.2},"
             "   \"rd\": {\"points\": [{\"x\": 0, \"y\": 0}, {\"x\": 1, \"y\": 1}]},"
             "   \"preAmpShift\": -0.5, \"maskLayerIndex\": 0,"
             "   \"maskMinValue\": 0.2, \"maskMaxValue\": 0.8, \"maskFalloff\": 0.1}],"
             " \"outputCurve\": {\"points\": [{\"x\": -1, \"y\": -1}, {\"x\": 0, \"y\": 0.2},"
             "  {\"x\": 1, \"y\": 1}]}}",
             tf_noise_type_name(noise), fractal);
    tf_error err;
    tf_terrain *t = tf_terrain_parse(json, strlen(json), &err);
    ck_assert_msg(t != NULL, "%s/%s: %s", tf_noise_type_name(noise), tf_fractal_kind_name(kind),
                  err.message);
    return t;
}

static const double BAD[] = {NAN, INFINITY, -INFINITY};
enum { NBAD = sizeof BAD / sizeof BAD[0] };

static void check_path(tf_terrain *t, const char *what)
{
    /* (bad, finite), (finite, bad) and (bad, bad) in every combination:
     * both NaN is the case that walked A[-1] in perlin-reference-simplex. */
    for (int a = 0; a < NBAD; a++) {
        ck_assert_msg(!isfinite(tf_terrain_sample(t, BAD[a], 2.5)), "%s: h(%g, 2.5)", what,
                      BAD[a]);
        ck_assert_msg(!isfinite(tf_terrain_sample(t, -7.25, BAD[a])), "%s: h(-7.25, %g)", what,
                      BAD[a]);
        for (int b = 0; b < NBAD; b++) {
            double x = BAD[a], y = BAD[b], dx = 0, dy = 0;
            ck_assert_msg(!isfinite(tf_terrain_sample(t, x, y)), "%s: h(%g, %g)", what, x, y);
            ck_assert_msg(!isfinite(tf_terrain_sample_gradient(t, x, y, &dx, &dy)),
                          "%s: gradient at (%g, %g)", what, x, y);
            for (int s = TF_STAGE_NOISE; s <= TF_STAGE_HEIGHT; s++)
                for (size_t layer = 0; layer < 2; layer++)
                    ck_assert_msg(!isfinite(tf_terrain_sample_stage(t, (tf_stage)s, layer, x, y)),
                                  "%s: stage %d of layer %zu at (%g, %g)", what, s, layer, x, y);
        }
    }
    /* Grids and windows whose origin or step is not finite: every sample
     * at a non-finite coordinate is non-finite (the grid is the single
     * sample, bit for bit). */
    enum { N = 5 };
    float out[N * N];
    for (int a = 0; a < NBAD; a++) {
        tf_terrain_sample_grid(t, BAD[a], 1.0, 0.5, N, N, out);
        for (int k = 0; k < N * N; k++)
            ck_assert_msg(!isfinite(out[k]), "%s: grid x0 %g, cell %d", what, BAD[a], k);
        tf_terrain_sample_grid(t, 1.0, BAD[a], 0.5, N, N, out);
        for (int k = 0; k < N * N; k++)
            ck_assert_msg(!isfinite(out[k]), "%s: grid y0 %g, cell %d", what, BAD[a], k);
        tf_terrain_sample_grid(t, BAD[a], BAD[a], 0.5, N, N, out);
        for (int k = 0; k < N * N; k++)
            ck_assert_msg(!isfinite(out[k]), "%s: grid at (%g, %g), cell %d", what, BAD[a],
                          BAD[a], k);
        tf_terrain_sample_window(t, 0.0, 0.0, BAD[a], -2, -2, N, N, out);
        for (int k = 0; k < N * N; k++)
            ck_assert_msg(!isfinite(out[k]), "%s: window step %g, cell %d", what, BAD[a], k);
        double stage[N * N];
        tf_error err;
        ck_assert_int_eq(tf_terrain_sample_stage_window(t, TF_STAGE_NOISE, 0, BAD[a], BAD[a], 1.0,
                                                        0, 0, N, N, stage, &err),
                         0);
        for (int k = 0; k < N * N; k++)
            ck_assert_msg(!isfinite(stage[k]), "%s: noise window at %g, cell %d", what, BAD[a],
                          k);
    }
}

START_TEST(non_finite_coordinates_give_non_finite_heights)
{
    tf_noise_type noise = (tf_noise_type)(_i / TF_FRACTAL_KIND_COUNT);
    tf_fractal_kind kind = (tf_fractal_kind)(_i % TF_FRACTAL_KIND_COUNT);
    tf_terrain *t = build(noise, kind);
    static const char *const paths[] = {"none", "avx2", "avx512"};
    for (size_t p = 0; p < 3; p++) {
        tf_error err;
        if (tf_terrain_set_path(t, paths[p], &err) != 0)
            continue; /* a path this CPU or build does not run */
        char what[96];
        snprintf(what, sizeof what, "%s/%s on %s", tf_noise_type_name(noise),
                 tf_fractal_kind_name(kind), paths[p]);
        check_path(t, what);
    }
    tf_terrain_free(t);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("nonfinite");
    TCase *tc = tcase_create("kinds");
    tcase_set_timeout(tc, 120);
    tcase_add_loop_test(tc, non_finite_coordinates_give_non_finite_heights, 0,
                        TF_NOISE_TYPE_COUNT * TF_FRACTAL_KIND_COUNT);
    suite_add_tcase(s, tc);
    return tu_run_suite(s);
}
