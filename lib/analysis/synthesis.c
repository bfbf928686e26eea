/*
 * Synthesis for the fitter: layers and whole terrains rendered by the
 * runtime through its public API (terrafit/runtime.h, the stage calls), so
 * every figure the fit measures is what `terrafit render` produces.
 */
#include <math.h>
#include <string.h>

#include "analysis/fit_internal.h"
#include "base/error.h"
#include "util/util.h"

tf_terrain *fit_layer_terrain(const tf_layer_spec *kind, const tf_layer_spec *placed, double f,
                              const tf_point *points, size_t count, tf_error *err)
{
    tf_spec *spec = tf_spec_new(1, err);
    if (!spec)
        return NULL;
    tf_layer_spec *l = &spec->layers[0];
    /* the kind's noise and fractal; everything else the layer's own */
    l->noise_type = kind->noise_type;
    l->fractal_kind = kind->fractal_kind;
    l->fractal_octaves = kind->fractal_octaves;
    l->fractal_lacunarity = kind->fractal_lacunarity;
    l->fractal_gain = kind->fractal_gain;
    l->fractal_gain1 = kind->fractal_gain1;
    l->fractal_warp0 = kind->fractal_warp0;
    l->fractal_warp = kind->fractal_warp;
    l->fractal_damp0 = kind->fractal_damp0;
    l->fractal_damp = kind->fractal_damp;
    l->fractal_damp_scale = kind->fractal_damp_scale;
    l->seed = placed->seed;
    memcpy(l->offset, placed->offset, sizeof l->offset);
    l->frequency = f;
    l->rd_interpolation = TF_INTERP_MONOTONE_CUBIC;
    tf_terrain *t = NULL;
    if (tf_spec_set_rd_points(spec, 0, points, count, err) == 0) {
        /* the stated range is not used by the stages; any valid one */
        double lo = HUGE_VAL, hi = -HUGE_VAL;
        for (size_t k = 0; k < count; k++) {
            lo = fmin(lo, points[k].y);
            hi = fmax(hi, points[k].y);
        }
        spec->min_value = hi > lo ? lo : lo - 0.5;
        spec->max_value = hi > lo ? hi : lo + 0.5;
        t = tf_terrain_compile(spec, err);
    }
    tf_spec_free(spec);
    return t;
}

typedef struct {
    const tf_terrain *t;
    tf_stage stage;
    size_t layer;
    double x0, y0, step;
    size_t w;
    double *out;
} stage_rows;

static void render_stage_rows(void *ctx, size_t j0, size_t j1)
{
    const stage_rows *r = ctx;
    /* arguments were checked by fit_render_stage_at: no error here */
    tf_terrain_sample_stage_window(r->t, r->stage, r->layer, r->x0, r->y0, r->step, 0,
                                   (int64_t)j0, r->w, j1 - j0, r->out + j0 * r->w, NULL);
}

int fit_render_stage_at(const tf_terrain *t, tf_stage stage, size_t layer, double x0, double y0,
                        double step, size_t w, size_t h, unsigned threads, double *out,
                        tf_error *err)
{
    /* a window of no rows checks the stage and layer before the threads */
    if (tf_terrain_sample_stage_window(t, stage, layer, x0, y0, step, 0, 0, w, 0, out, err) != 0)
        return -1;
    stage_rows r = {t, stage, layer, x0, y0, step, w, out};
    tf_parallel_for(h, threads, render_stage_rows, &r);
    return 0;
}

int fit_render_stage(const tf_terrain *t, tf_stage stage, size_t layer, double step, size_t w,
                     size_t h, unsigned threads, double *out, tf_error *err)
{
    return fit_render_stage_at(t, stage, layer, TF_FIT_SYNTHESIS_OFFSET, TF_FIT_SYNTHESIS_OFFSET,
                               step, w, h, threads, out, err);
}

typedef struct {
    const tf_terrain *t;
    tf_stage stage;
    size_t layer, count;
    const double *const *rows;
    double *out;
} combine_cells;

static void combine_range(void *ctx, size_t lo, size_t hi)
{
    const combine_cells *c = ctx;
    const double *rows[TF_MAX_LAYERS];
    for (size_t i = 0; i < c->count; i++)
        rows[i] = c->rows[i] ? c->rows[i] + lo : NULL;
    /* arguments were checked by fit_combine: no error here */
    tf_terrain_combine(c->t, c->stage, c->layer, rows, hi - lo, c->out + lo, NULL);
}

int fit_combine(const tf_terrain *t, tf_stage stage, size_t layer, const double *const *rows,
                size_t n, unsigned threads, double *out, tf_error *err)
{
    /* no points: checks the stage, the layer and the rows it reads */
    if (tf_terrain_combine(t, stage, layer, rows, 0, out, err) != 0)
        return -1;
    combine_cells c = {t, stage, layer, tf_terrain_layer_count(t), rows, out};
    tf_parallel_for(n, threads, combine_range, &c);
    return 0;
}
