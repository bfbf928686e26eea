/*
 * The evaluation's stages (terrafit/runtime.h, docs/spec.md "Stages"): each
 * stage's window equals its single samples bit for bit on every path, the
 * height stage is tf_terrain_sample, the contributions add up to the sum,
 * the output curve maps the sum to the height, the redistributed value is
 * the curve of the noise, tf_terrain_combine rebuilds the later stages
 * from redistributed values exactly, and bad arguments are refused.
 */
#define _DEFAULT_SOURCE
#include <check.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "terrafit/runtime.h"
#include "testutil.h"

/* Every spec of tests/data/terrain, in name order. */
static const char *const SPECS[] = {
    "drainage",    "drainage-bands", "drainage-breach", "drainage-breach-nearest",
    "drainage-breach-pass", "drainage-cut", "drainage-inflow", "interpolations",
    "kinds",       "mask-curves",    "mask-knots",      "masks",           "mixed-kinds",
    "nan-far",     "output-curve-cosine", "output-curve", "thesis",
    "version-only-extreme",
};
#define SPEC_COUNT (sizeof SPECS / sizeof SPECS[0])
static const char *const PATHS[] = {"none", "auto"};

#define NX 37
#define NY 5

static tf_terrain *load_spec(const char *name, const char *path)
{
    tf_error err;
    tf_terrain *t = tf_terrain_load(tu_path("%s/tests/data/terrain/%s.json", tu_srcdir(), name),
                                    &err);
    ck_assert_msg(t != NULL, "%s: %s", name, err.message);
    ck_assert_int_eq(tf_terrain_set_path(t, path, &err), 0);
    return t;
}

static int same_bits(double a, double b)
{
    return (isnan(a) && isnan(b)) || memcmp(&a, &b, sizeof a) == 0;
}

/* Windows at an ordinary origin, far away, and with lattice offsets. */
static const struct {
    double x0, y0, step;
    int64_t i0, j0;
} WINDOWS[] = {
    {-37.25, 12.5, 0.73, 0, 0},
    {1e6 + 0.125, -3e5, 1.0, -40, 7},
    {100000.0, 100000.0, 2.5, 3, -2},
};
#define WINDOW_COUNT (sizeof WINDOWS / sizeof WINDOWS[0])

/* Which stages a terrain has: the layer stages per layer, then sum,
 * drained sum and height. */
static size_t stage_list(const tf_terrain *t, tf_stage *stage, size_t *layer)
{
    size_t n = 0;
    for (size_t i = 0; i < tf_terrain_layer_count(t); i++)
        for (int s = TF_STAGE_NOISE; s <= TF_STAGE_CONTRIBUTION; s++) {
            stage[n] = (tf_stage)s;
            layer[n++] = i;
        }
    stage[n] = TF_STAGE_SUM;
    layer[n++] = 0;
    stage[n] = TF_STAGE_DRAINED;
    layer[n++] = 0;
    stage[n] = TF_STAGE_HEIGHT;
    layer[n++] = 0;
    return n;
}

/* Each spec (loop index), both paths: every stage's window equals its
 * single samples. */
START_TEST(window_equals_samples)
{
    for (size_t p = 0; p < 2; p++) {
        tf_terrain *t = load_spec(SPECS[_i], PATHS[p]);
        tf_stage stage[3 * TF_MAX_LAYERS + 3];
        size_t layer[3 * TF_MAX_LAYERS + 3];
        size_t n = stage_list(t, stage, layer);
        double out[NX * NY];
        for (size_t s = 0; s < n; s++)
            for (size_t w = 0; w < WINDOW_COUNT; w++) {
                tf_error err;
                ck_assert_int_eq(tf_terrain_sample_stage_window(
                                     t, stage[s], layer[s], WINDOWS[w].x0, WINDOWS[w].y0,
                                     WINDOWS[w].step, WINDOWS[w].i0, WINDOWS[w].j0, NX, NY, out,
                                     &err),
                                 0);
                for (size_t j = 0; j < NY; j++)
                    for (size_t i = 0; i < NX; i++) {
                        double x = WINDOWS[w].x0 + (double)(WINDOWS[w].i0 + (int64_t)i) *
                                                       WINDOWS[w].step;
                        double y = WINDOWS[w].y0 + (double)(WINDOWS[w].j0 + (int64_t)j) *
                                                       WINDOWS[w].step;
                        double one = tf_terrain_sample_stage(t, stage[s], layer[s], x, y);
                        ck_assert_msg(same_bits(out[j * NX + i], one),
                                      "%s (%s path): stage %d of layer %zu at (%.17g, %.17g): "
                                      "window %.17g, sample %.17g",
                                      SPECS[_i], PATHS[p], (int)stage[s], layer[s], x, y,
                                      out[j * NX + i], one);
                    }
            }
        tf_terrain_free(t);
    }
}
END_TEST

/* Each spec: the stages fit together as docs/spec.md's steps say. */
START_TEST(stages_compose)
{
    tf_terrain *t = load_spec(SPECS[_i], "auto");
    const tf_spec *spec = tf_terrain_spec(t);
    tf_curve *rd[TF_MAX_LAYERS] = {NULL}, *oc = NULL;
    for (size_t i = 0; i < spec->layer_count; i++)
        rd[i] = tf_curve_new(spec->layers[i].rd_points, spec->layers[i].rd_point_count,
                             spec->layers[i].rd_interpolation, NULL);
    if (spec->output_curve_point_count > 0)
        oc = tf_curve_new(spec->output_curve_points, spec->output_curve_point_count,
                          spec->output_curve_interpolation, NULL);
    for (int k = 0; k < 200; k++) {
        double x = -5000.0 + 61.37 * k, y = 2500.0 - 17.91 * k;
        double sum = 0.0;
        for (size_t i = 0; i < spec->layer_count; i++) {
            const tf_layer_spec *L = &spec->layers[i];
            double n = tf_terrain_sample_stage(t, TF_STAGE_NOISE, i, x, y);
            double expect_n = tf_fractal_eval(L, x * L->frequency + L->offset[0],
                                              y * L->frequency + L->offset[1], L->offset[2],
                                              NULL, NULL);
            ck_assert_msg(same_bits(n, expect_n), "%s layer %zu: noise %.17g, expected %.17g",
                          SPECS[_i], i, n, expect_n);
            double r = tf_terrain_sample_stage(t, TF_STAGE_REDISTRIBUTED, i, x, y);
            ck_assert(same_bits(r, tf_curve_eval(rd[i], (n + 1.0) * 0.5)));
            sum += tf_terrain_sample_stage(t, TF_STAGE_CONTRIBUTION, i, x, y);
        }
        double stage_sum = tf_terrain_sample_stage(t, TF_STAGE_SUM, 0, x, y);
        ck_assert_msg(same_bits(sum, stage_sum), "%s: contributions add to %.17g, sum %.17g",
                      SPECS[_i], sum, stage_sum);
        /* step 5b: the sum itself without a drainage stage */
        double drained = tf_terrain_sample_stage(t, TF_STAGE_DRAINED, 0, x, y);
        if (spec->drainage.levels == 0)
            ck_assert(same_bits(drained, stage_sum));
        double h = tf_terrain_sample_stage(t, TF_STAGE_HEIGHT, 0, x, y);
        ck_assert(same_bits(h, tf_terrain_sample(t, x, y)));
        ck_assert(same_bits(h, oc ? tf_curve_eval(oc, drained) : drained));
    }
    for (size_t i = 0; i < spec->layer_count; i++)
        tf_curve_free(rd[i]);
    tf_curve_free(oc);
    tf_terrain_free(t);
}
END_TEST

/* Each spec, both paths: tf_terrain_combine over redistributed windows
 * gives the contribution, sum and height windows bit for bit (with a
 * drainage stage it refuses the drained sum and the height, which need
 * the points). */
START_TEST(combine_equals_window)
{
    for (size_t p = 0; p < 2; p++) {
        tf_terrain *t = load_spec(SPECS[_i], PATHS[p]);
        size_t layers = tf_terrain_layer_count(t), n = NX * NY;
        double *r[TF_MAX_LAYERS], window[NX * NY], combined[NX * NY];
        for (size_t i = 0; i < layers; i++) {
            r[i] = malloc(n * sizeof *r[i]);
            ck_assert_int_eq(tf_terrain_sample_stage_window(t, TF_STAGE_REDISTRIBUTED, i, 3.5,
                                                            -8.25, 1.5, 11, -4, NX, NY, r[i],
                                                            NULL),
                             0);
        }
        bool drained = tf_terrain_spec(t)->drainage.levels > 0;
        for (size_t s = 0; s < layers + 3; s++) {
            tf_stage stage = s < layers        ? TF_STAGE_CONTRIBUTION
                             : s == layers     ? TF_STAGE_SUM
                             : s == layers + 1 ? TF_STAGE_DRAINED
                                               : TF_STAGE_HEIGHT;
            size_t layer = s < layers ? s : 0;
            tf_error err;
            if (drained && (stage == TF_STAGE_DRAINED || stage == TF_STAGE_HEIGHT)) {
                ck_assert_int_eq(tf_terrain_combine(t, stage, layer,
                                                    (const double *const *)r, n, combined,
                                                    &err),
                                 -1);
                continue;
            }
            ck_assert_int_eq(tf_terrain_sample_stage_window(t, stage, layer, 3.5, -8.25, 1.5, 11,
                                                            -4, NX, NY, window, &err),
                             0);
            ck_assert_msg(tf_terrain_combine(t, stage, layer, (const double *const *)r, n,
                                             combined, &err) == 0,
                          "%s", err.message);
            for (size_t k = 0; k < n; k++)
                ck_assert_msg(same_bits(window[k], combined[k]),
                              "%s (%s path): stage %d of layer %zu, point %zu: window %.17g, "
                              "combined %.17g",
                              SPECS[_i], PATHS[p], (int)stage, layer, k, window[k],
                              combined[k]);
        }
        for (size_t i = 0; i < layers; i++)
            free(r[i]);
        tf_terrain_free(t);
    }
}
END_TEST

START_TEST(bad_arguments)
{
    tf_terrain *t = load_spec("masks", "auto");
    size_t layers = tf_terrain_layer_count(t);
    tf_error err;
    double out[4], r0[4] = {0.1, 0.2, 0.3, 0.4};
    ck_assert(isnan(tf_terrain_sample_stage(t, TF_STAGE_NOISE, layers, 0.0, 0.0)));
    ck_assert(isnan(tf_terrain_sample_stage(t, (tf_stage)99, 0, 0.0, 0.0)));
    ck_assert(isnan(tf_terrain_sample_stage(NULL, TF_STAGE_HEIGHT, 0, 0.0, 0.0)));
    /* a batch of points with a NULL argument writes nothing */
    double px[2] = {1.0, 2.0}, py[2] = {3.0, 4.0}, ph[2] = {-7.0, -7.0};
    tf_terrain_sample_points(NULL, px, py, 2, ph);
    tf_terrain_sample_points(t, NULL, py, 2, ph);
    tf_terrain_sample_points(t, px, NULL, 2, ph);
    tf_terrain_sample_points(t, px, py, 2, NULL);
    tf_terrain_sample_points(t, px, py, 0, ph);
    ck_assert(ph[0] == -7.0 && ph[1] == -7.0);

    ck_assert_int_eq(
        tf_terrain_sample_stage_window(t, TF_STAGE_REDISTRIBUTED, layers, 0, 0, 1, 0, 0, 2, 2,
                                       out, &err),
        -1);
    ck_assert_int_eq(err.code, TF_ERR_ARGUMENT);
    ck_assert_ptr_nonnull(strstr(err.message, "no such stage"));
    ck_assert_int_eq(
        tf_terrain_sample_stage_window(t, (tf_stage)-1, 0, 0, 0, 1, 0, 0, 2, 2, out, &err), -1);
    ck_assert_int_eq(
        tf_terrain_sample_stage_window(NULL, TF_STAGE_SUM, 0, 0, 0, 1, 0, 0, 2, 2, out, &err),
        -1);
    ck_assert_int_eq(
        tf_terrain_sample_stage_window(t, TF_STAGE_SUM, 0, 0, 0, 1, 0, 0, 2, 2, NULL, &err), -1);
    /* an empty window is a valid call that writes nothing */
    ck_assert_int_eq(
        tf_terrain_sample_stage_window(t, TF_STAGE_SUM, 0, 0, 0, 1, 0, 0, 0, 0, NULL, &err), 0);

    const double *rows[TF_MAX_LAYERS] = {r0};
    /* the noise and redistributed stages come before what combine builds */
    ck_assert_int_eq(tf_terrain_combine(t, TF_STAGE_NOISE, 0, rows, 4, out, &err), -1);
    ck_assert_int_eq(err.code, TF_ERR_ARGUMENT);
    ck_assert_int_eq(tf_terrain_combine(t, TF_STAGE_REDISTRIBUTED, 0, rows, 4, out, &err), -1);
    /* the sum reads every layer: layer 1's row is missing */
    ck_assert_int_eq(tf_terrain_combine(t, TF_STAGE_SUM, 0, rows, 4, out, &err), -1);
    ck_assert_ptr_nonnull(strstr(err.message, "layer 1's values are missing"));
    ck_assert_int_eq(tf_terrain_combine(t, TF_STAGE_CONTRIBUTION, layers, rows, 4, out, &err),
                     -1);
    ck_assert_int_eq(tf_terrain_combine(NULL, TF_STAGE_SUM, 0, rows, 4, out, &err), -1);
    ck_assert_int_eq(tf_terrain_combine(t, TF_STAGE_SUM, 0, NULL, 4, out, &err), -1);
    /* layer 0 is unmasked: its contribution reads its own row only */
    ck_assert_int_eq(tf_terrain_combine(t, TF_STAGE_CONTRIBUTION, 0, rows, 4, out, &err), 0);
    tf_terrain_free(t);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("stages");
    TCase *tc = tcase_create("stages");
    tcase_set_timeout(tc, 120);
    tcase_add_loop_test(tc, window_equals_samples, 0, SPEC_COUNT);
    tcase_add_loop_test(tc, stages_compose, 0, SPEC_COUNT);
    tcase_add_loop_test(tc, combine_equals_window, 0, SPEC_COUNT);
    tcase_add_test(tc, bad_arguments);
    suite_add_tcase(s, tc);
    return tu_run_suite(s);
}
