/*
 * Private declarations shared by the fitter's sources (fit.c, fit_inputs.c,
 * fit_limits.c, equalize.c, masks.c, noise_sample.c, synthesis.c): the
 * input checks and the size limit, the base-noise sample, the runtime's
 * stages and the mask search.
 */
#ifndef TF_ANALYSIS_FIT_INTERNAL_H
#define TF_ANALYSIS_FIT_INTERNAL_H

#include <stddef.h>

#include "terrafit/fit.h"
#include "terrafit/image.h"

/* Layer i's name in messages: opt->names[i], else "layer i" written into
 * buf (size bytes). */
const char *fit_layer_label(const tf_fit_options *opt, size_t i, char *buf, size_t size);

/* tf_fit's arguments (fit_inputs.c): the options, 1 to TF_MAX_LAYERS
 * layers of one size within the reference limits, weights in [0, 1] with
 * finite values where visible, a visible cell in each. labels[i] (count
 * entries) holds the names fit_layer_label gives. 0, or -1 with err filled. */
int fit_check_inputs(const tf_layer_map *const *layers, size_t count, const tf_fit_options *opt,
                     char (*labels)[32], tf_error *err);

/* The sorted sample of u = (n + 1) / 2 for a noise kind,
 * TF_NOISE_SAMPLE_COUNT values, built on first use (thread-safe) and kept
 * until fit_noise_samples_release. NULL with err filled on failure. */
const double *fit_noise_sample(tf_noise_type noise, tf_error *err);
/* The same for a layer kind: noise_type and fractal of
 * `kind` (tf_layer_unit_quantiles). */
const double *fit_layer_sample(const tf_layer_spec *kind, tf_error *err);
/* Free every sample (tf_fit_release_caches): none may be in use. */
void fit_noise_samples_release(void);

/* tf_fit_options.max_pixels, or TF_FIT_DEFAULT_MAX_PIXELS for 0. */
size_t fit_max_pixels(const tf_fit_options *opt);
/* 0 when the `count` layers (of equal, checked sizes) hold at most
 * fit_max_pixels(opt) pixels together; else -1 with a TF_ERR_LIMIT message
 * naming `first` (the first layer's label), the size and how to raise it.
 * tf_fit calls it before allocating anything (fit_limits.c). */
int fit_check_pixels(const tf_layer_map *const *layers, size_t count, const tf_fit_options *opt,
                     const char *first, tf_error *err);

/* Type 7 quantile of n >= 1 sorted doubles. */
double fit_sample_quantile(const double *sorted, size_t n, double p);

/* The layer `kind` (its noise and fractal) synthesized alone as the
 * runtime renders it: a one-layer terrain with the seed and offsets of
 * `placed`, frequency f and the monotone-cubic curve through `points`
 * (count >= 2). NULL with err filled on failure. */
tf_terrain *fit_layer_terrain(const tf_layer_spec *kind, const tf_layer_spec *placed, double f,
                              const tf_point *points, size_t count, tf_error *err);

/* A stage of `t` (tf_terrain_sample_stage_window) on the w x h window at
 * (TF_FIT_SYNTHESIS_OFFSET, TF_FIT_SYNTHESIS_OFFSET), `step` apart, rows
 * split over `threads` threads (0: one per core). 0 on success. */
int fit_render_stage(const tf_terrain *t, tf_stage stage, size_t layer, double step, size_t w,
                     size_t h, unsigned threads, double *out, tf_error *err);

/* The same on the window whose first point is (x0, y0). */
int fit_render_stage_at(const tf_terrain *t, tf_stage stage, size_t layer, double x0, double y0,
                        double step, size_t w, size_t h, unsigned threads, double *out,
                        tf_error *err);

/* The drainage stage of a fitted spec (drainage_fit.c; docs/fitting.md,
 * "The drainage stage"): `ref` is what the spec was fitted to (a DEM, or
 * the combined reference of a reference-layer fit, weights 0 or 1), in the
 * units of the spec's height. Measures the reference's drainage, derives
 * the stage's parameters, and, as opt->drainage says, gives `spec` the
 * stage with a re-fitted output curve (minValue / maxValue the
 * reference's range; *spec replaced) or leaves it untouched. Fills *rep. 0, or -1 with
 * err filled (the spec is then untouched). */
int fit_drainage(const tf_layer_map *ref, const tf_fit_options *opt, const char *label,
                 tf_spec **spec, tf_fit_drainage_report *rep, tf_error *err);

/* The drainage decision's score of `spec` as it is (the score of
 * docs/fitting.md, "The drainage stage", on the decision's windows), for
 * choices between fits that the stage did not score. 0, or -1 with err
 * filled. */
int fit_drainage_score(const tf_layer_map *ref, const tf_fit_options *opt, const char *label,
                       const tf_spec *spec, double *score, tf_error *err);

/* tf_terrain_combine of n points (rows[i]: layer i's redistributed values,
 * NULL where the stage does not read them), the points split over
 * `threads` threads (0: one per core). 0 on success. */
int fit_combine(const tf_terrain *t, tf_stage stage, size_t layer, const double *const *rows,
                size_t n, unsigned threads, double *out, tf_error *err);

/* The golden ratio: steps of it (or of a power-of-two share of it)
 * across a lattice fall on offsets spread evenly over its cells (Weyl's
 * equidistribution), where a rational step repeats a few. */
#define FIT_GOLDEN_RATIO 1.6180339887498949

/* A layer's core: the cells within half an 8-bit step of its strongest
 * presence (weight >= max weight - this). */
#define FIT_CORE_WEIGHT_MARGIN (1.0 / 512.0)

/* One reference layer as the mask search sees it. */
typedef struct {
    const tf_layer_map *map;
    const float *sorted; /* values of the visible cells, ascending */
    size_t visible;      /* their number */
    float weight_max;    /* the layer's strongest presence */
    int opaque;          /* at full strength on every cell */
    int flat;            /* every visible value equal */
} fit_layer_data;

/* The mask search for layer i over layers 0 .. i-1 (thesis 5.4.2;
 * docs/fitting.md, "Masks"): fills rep->candidates (allocated, i entries),
 * rep->mask_* and rep->mask_reason. 0 on success, -1 on allocation failure. */
int fit_mask_search(const fit_layer_data *layers, size_t i, tf_fit_layer_report *rep,
                    tf_error *err);

#endif
