/*
 * What tf_fit accepts, checked before any work: the options, the layer
 * count, and each reference layer's size, weights and values; and the
 * names messages give the layers.
 */
#include <math.h>
#include <stdio.h>

#include "analysis/autolayer_internal.h"
#include "analysis/fit_internal.h"
#include "base/error.h"
#include "terrafit/terrafit.h"

/* The per-layer noises and kinds name layers below `count`. */
int fit_check_layer_kinds(const tf_fit_options *opt, size_t count, tf_error *err)
{
    for (size_t i = count; i < TF_MAX_LAYERS; i++)
        if (opt->layer_noise[i] || opt->layer_fractal[i]) {
            tf_error_set(err, TF_ERR_ARGUMENT,
                         "fit: a noise or kind is given for layer %zu, but there %s only %zu "
                         "layer%s",
                         i, count == 1 ? "is" : "are", count, count == 1 ? "" : "s");
            return -1;
        }
    return 0;
}

const char *fit_layer_label(const tf_fit_options *opt, size_t i, char *buf, size_t size)
{
    if (opt->names && opt->names[i])
        return opt->names[i];
    snprintf(buf, size, "layer %zu", i);
    return buf;
}

int fit_check_inputs(const tf_layer_map *const *layers, size_t count, const tf_fit_options *opt,
                     char (*labels)[32], tf_error *err)
{
    if (!opt) {
        tf_error_set(err, TF_ERR_ARGUMENT, "fit: no options given");
        return -1;
    }
    if (!layers || count == 0) {
        tf_error_set(err, TF_ERR_ARGUMENT, "fit: no reference layer given");
        return -1;
    }
    if (count > TF_MAX_LAYERS) {
        tf_error_set(err, TF_ERR_LIMIT, "fit: %zu reference layers; a spec holds at most %d",
                     count, TF_MAX_LAYERS);
        return -1;
    }
    if (opt->points < 2 || opt->points > TF_FIT_MAX_POINTS) {
        tf_error_set(err, TF_ERR_LIMIT, "fit: %zu control points asked for; 2 to %d allowed",
                     opt->points, TF_FIT_MAX_POINTS);
        return -1;
    }
    if (opt->drainage_levels < 0 || opt->drainage_levels > TF_FIT_DRAINAGE_MAX_LEVELS) {
        tf_error_set(err, TF_ERR_ARGUMENT,
                     "fit: %d drainage levels asked for; 0 (derived) or 1 to %d allowed",
                     opt->drainage_levels, TF_FIT_DRAINAGE_MAX_LEVELS);
        return -1;
    }
    if (opt->drainage_breach < 0 || opt->drainage_breach > TF_FIT_DRAINAGE_MAX_BREACH) {
        tf_error_set(err, TF_ERR_ARGUMENT,
                     "fit: a drainage breach of %d asked for; 0 (derived) or 1 to %d allowed",
                     opt->drainage_breach, TF_FIT_DRAINAGE_MAX_BREACH);
        return -1;
    }
    if (opt->drainage_inflow < TF_FIT_DRAINAGE_INFLOW_ANY || opt->drainage_inflow > 8) {
        tf_error_set(err, TF_ERR_ARGUMENT,
                     "fit: a drainage inflow of %d asked for; 0 (chosen), 1 to 8 or %d (no "
                     "limit) allowed",
                     opt->drainage_inflow, TF_FIT_DRAINAGE_INFLOW_ANY);
        return -1;
    }
    if ((unsigned)opt->noise >= TF_NOISE_TYPE_COUNT) {
        tf_error_set(err, TF_ERR_ARGUMENT, "fit: unknown noise type %d", (int)opt->noise);
        return -1;
    }
    if ((unsigned)opt->fractal >= TF_FRACTAL_KIND_COUNT) {
        tf_error_set(err, TF_ERR_ARGUMENT, "fit: unknown fractal kind %d", (int)opt->fractal);
        return -1;
    }
    for (size_t i = 0; i < TF_MAX_LAYERS; i++) {
        unsigned ln = opt->layer_noise[i], lf = opt->layer_fractal[i];
        if ((ln > TF_NOISE_TYPE_COUNT && ln != TF_FIT_LAYER_NOISE_AUTO) ||
            lf > TF_FRACTAL_KIND_COUNT) {
            tf_error_set(err, TF_ERR_ARGUMENT, "fit: layer %zu: unknown noise or kind code", i);
            return -1;
        }
    }
    /* A single reference may be split into bands (fit_by_bands): its layer
     * count is known only then, and checked there. */
    if (!(count == 1 && opt->layers != 1) && fit_check_layer_kinds(opt, count, err) != 0)
        return -1;
    if (!tf_frequency_method_name(opt->frequency)) {
        tf_error_set(err, TF_ERR_ARGUMENT, "fit: unknown frequency method %d",
                     (int)opt->frequency);
        return -1;
    }
    const char *first = fit_layer_label(opt, 0, labels[0], sizeof labels[0]);
    for (size_t i = 0; i < count; i++) {
        const tf_layer_map *m = layers[i];
        const char *name = fit_layer_label(opt, i, labels[i], sizeof labels[i]);
        if (!m || !m->value || !m->weight || m->width == 0 || m->height == 0) {
            tf_error_set(err, TF_ERR_ARGUMENT, "%s: an empty layer map", name);
            return -1;
        }
        if (m->width > TF_MAX_REFERENCE_SIDE || m->height > TF_MAX_REFERENCE_SIDE ||
            m->width * m->height > TF_MAX_REFERENCE_PIXELS) {
            tf_error_set(err, TF_ERR_LIMIT, "%s: %zux%zu is beyond the reference size limit",
                         name, m->width, m->height);
            return -1;
        }
        if (i > 0 && (m->width != layers[0]->width || m->height != layers[0]->height)) {
            tf_error_set(err, TF_ERR_INVALID,
                         "%s: %zux%zu, but %s is %zux%zu (every layer must have the same size)",
                         name, m->width, m->height, first, layers[0]->width, layers[0]->height);
            return -1;
        }
        size_t cells = m->width * m->height, visible = 0;
        for (size_t k = 0; k < cells; k++) {
            float w = m->weight[k];
            if (!(w >= 0.0f && w <= 1.0f) || (w > 0.0f && !isfinite(m->value[k]))) {
                tf_error_set(err, TF_ERR_INVALID,
                             "%s: pixel (%zu, %zu): weight %g, value %g (expected a weight in "
                             "[0, 1] and a finite value)",
                             name, k % m->width, k / m->width, (double)w, (double)m->value[k]);
                return -1;
            }
            visible += w > 0.0f;
        }
        if (visible == 0) {
            tf_error_set(err, TF_ERR_INVALID,
                         "%s: no visible cell (the layer is transparent or no-data everywhere)",
                         name);
            return -1;
        }
    }
    return fit_check_pixels(layers, count, opt, first, err);
}
