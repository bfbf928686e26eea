/*
 * Private declarations shared by the fitter's sources (fit.c, equalize.c,
 * masks.c, noise_sample.c): the base-noise sample and the mask search.
 */
#ifndef TF_ANALYSIS_FIT_INTERNAL_H
#define TF_ANALYSIS_FIT_INTERNAL_H

#include <stddef.h>

#include "terrafit/fit.h"
#include "terrafit/image.h"

/* The sorted sample of u = (n + 1) / 2 for a noise kind,
 * TF_NOISE_SAMPLE_COUNT values, built on first use (thread-safe) and kept
 * for the process. NULL with err filled on failure. */
const double *fit_noise_sample(tf_noise_type noise, tf_error *err);
/* The same for a layer kind: noise_type and fractal of
 * `kind` (tf_layer_unit_quantiles). */
const double *fit_layer_sample(const tf_layer_spec *kind, tf_error *err);

/* Type 7 quantile of n >= 1 sorted doubles. */
double fit_sample_quantile(const double *sorted, size_t n, double p);

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
