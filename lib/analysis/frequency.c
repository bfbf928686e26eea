/*
 * Base-frequency estimation of a reference layer: runs the peak-count and
 * spectrum estimators (frequency_peaks.c, frequency_spectrum.c) and, for
 * "auto", picks one per layer by the rule documented in docs/frequency.md.
 */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/frequency_internal.h"
#include "base/error.h"

/* Fewest visible cells an estimate is attempted on. */
#define MIN_VISIBLE_CELLS 64
/* Sample depths up to this many bits get the quantization correction;
 * deeper samples lose a negligible share of peaks to rounding. */
#define QUANTIZED_BITS 12
/* auto: peaks this much above spectrum means peaks that are not features
 * (pixel-scale noise, the thesis's failure case). */
#define AUTO_PEAKS_EXCESS 1.10
/* auto: below this visible share the spectrum's window is mostly mask. */
#define AUTO_SPECTRUM_VISIBLE 0.5
/* Where alpha fades, a layer's values are its signal times a ramp
 * (thesis 5.3: 0.5 + (R - 0.5) * A), and the ramp adds peaks and spectral
 * power of its own. The estimators therefore measure the cells at full
 * strength (alpha within half an 8-bit step of the layer's largest) when
 * they are at least this share of the visible cells (and enough to
 * measure); otherwise every visible cell. */
#define FULL_STRENGTH_SHARE 0.25
#define FULL_STRENGTH_TOLERANCE (0.5f / 255.0f)

static const char *const method_names[] = {"peaks", "spectrum", "auto"};

const char *tf_frequency_method_name(tf_frequency_method method)
{
    if ((int)method < 0 || (size_t)method >= sizeof method_names / sizeof method_names[0])
        return NULL;
    return method_names[method];
}

int tf_frequency_method_from_name(const char *name, tf_frequency_method *method)
{
    if (!name)
        return -1;
    for (size_t i = 0; i < sizeof method_names / sizeof method_names[0]; i++)
        if (strcmp(name, method_names[i]) == 0) {
            *method = (tf_frequency_method)i;
            return 0;
        }
    return -1;
}

/* Peak estimate: the thesis's density, then the step at which the base
 * noise has the same density. NaN with `why` filled when there is none. */
static double estimate_peaks(const tf_layer_map *layer, tf_noise_type noise, const tf_curve *rd,
                             tf_frequency_estimate *out, char *why, size_t why_size,
                             int *nomem)
{
    freq_peak_count c;
    *nomem = 0;
    if (freq_count_peaks(layer, &c) != 0) {
        *nomem = 1;
        snprintf(why, why_size, "out of memory");
        return NAN;
    }
    if (c.interior == 0) {
        snprintf(why, why_size, "no row or column has 3 visible cells in a row");
        return NAN;
    }
    out->reference_peaks_per_pixel = (double)c.peaks / (double)c.interior;
    if (c.peaks == 0) {
        snprintf(why, why_size,
                 "no peak along any row or column: the layer holds less than one feature");
        return NAN;
    }
    int saturated;
    double f = freq_noise_peak_step(noise, out->reference_peaks_per_pixel, &saturated);
    if (saturated)
        snprintf(why, why_size,
                 "%.4f peaks per pixel is more than the base noise reaches at any frequency "
                 "(%.4f at f = %.3g): pixel-scale noise dominates",
                 out->reference_peaks_per_pixel,
                 tf_noise_peak_density(noise, tf_noise_peak_step_max(noise)),
                 tf_noise_peak_step_max(noise));
    else if (isnan(f))
        snprintf(why, why_size, "the base noise's peak table could not be built (out of memory)");
    else if (layer->bits > 0 && layer->bits <= QUANTIZED_BITS) {
        /* Quantized samples (docs/frequency.md, "8-bit references"): the
         * density the noise would show after the same curve and rounding. */
        double quantum = 1.0 / (double)((1u << layer->bits) - 1u);
        for (int pass = 0; pass < 2 && !isnan(f); pass++) {
            double ratio = freq_quantized_peak_ratio(noise, rd, f, quantum);
            if (!(ratio > 0.0 && ratio <= 1.0))
                break;
            double g = freq_noise_peak_step(noise, out->reference_peaks_per_pixel / ratio,
                                            &saturated);
            if (isnan(g))
                break;
            f = g;
        }
    }
    return f;
}

static void value_stats(const tf_layer_map *layer, size_t *visible, double *sigma)
{
    /* Two passes (mean, then squared deviations): exact enough for values
     * in [0, 1] and cheaper than a running update per cell. */
    size_t n = 0, cells = layer->width * layer->height;
    double sum = 0.0, squares = 0.0;
    for (size_t k = 0; k < cells; k++)
        if (layer->weight[k] > 0.0f && isfinite(layer->value[k])) {
            sum += layer->value[k];
            n++;
        }
    double mean = n ? sum / (double)n : 0.0;
    for (size_t k = 0; k < cells; k++)
        if (layer->weight[k] > 0.0f && isfinite(layer->value[k])) {
            double d = layer->value[k] - mean;
            squares += d * d;
        }
    *visible = n;
    *sigma = n > 1 ? sqrt(squares / (double)(n - 1)) : 0.0;
}

static void choose(tf_frequency_estimate *out, tf_frequency_method m, const char *fmt, ...)
    TF_PRINTF(3, 4);

static void choose(tf_frequency_estimate *out, tf_frequency_method m, const char *fmt, ...)
{
    out->chosen_method = m;
    out->chosen = m == TF_FREQUENCY_PEAKS ? out->peaks : out->spectrum;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(out->reason, sizeof out->reason, fmt, ap);
    va_end(ap);
}

/* The auto rule (docs/frequency.md, "auto"), in order. */
static void choose_auto(tf_frequency_estimate *out, const tf_layer_map *layer,
                        int spectrum_at_limit, const char *peaks_why, const char *spectrum_why)
{
    double white_share = out->white_noise_sigma / out->value_sigma;
    if (isnan(out->spectrum)) {
        choose(out, TF_FREQUENCY_PEAKS, "peaks: the spectrum estimator failed (%s)",
               spectrum_why);
    } else if (isnan(out->peaks)) {
        choose(out, TF_FREQUENCY_SPECTRUM, "spectrum: the peak estimator failed (%s)",
               peaks_why);
    } else if (out->peaks > out->spectrum * AUTO_PEAKS_EXCESS) {
        choose(out, TF_FREQUENCY_SPECTRUM,
               "spectrum: peaks gives %.0f%% more; the extra peaks are noise or detail finer "
               "than the noise's band (white floor sigma %.3g, %.1f%% of the spread)",
               100.0 * (out->peaks / out->spectrum - 1.0), out->white_noise_sigma,
               100.0 * white_share);
    } else if (spectrum_at_limit) {
        choose(out, TF_FREQUENCY_PEAKS,
               "peaks: the spectrum's best match is at the edge of what a %zux%zu window can "
               "resolve",
               layer->width, layer->height);
    } else if (out->visible_fraction < AUTO_SPECTRUM_VISIBLE) {
        choose(out, TF_FREQUENCY_PEAKS,
               "peaks: only %.0f%% of the layer is visible, so mask edges dominate its "
               "spectrum, while peaks are counted inside visible runs only",
               100.0 * out->visible_fraction);
    } else if (out->peaks >= out->spectrum / AUTO_PEAKS_EXCESS) {
        choose(out, TF_FREQUENCY_SPECTRUM,
               "spectrum: peaks agrees within %.1f%%; the spectrum fits the noise's whole band, "
               "so it is the more precise",
               100.0 * fabs(out->peaks / out->spectrum - 1.0));
    } else {
        choose(out, TF_FREQUENCY_SPECTRUM,
               "spectrum: peaks gives %.0f%% less (a smoothed or terraced reference hides "
               "peaks); the spectrum fits the noise's whole band",
               100.0 * (1.0 - out->peaks / out->spectrum));
    }
}

static int estimate_frequency(const tf_layer_map *layer, tf_noise_type noise, const tf_curve *rd,
                              tf_frequency_method method, tf_frequency_estimate *out,
                              tf_error *err);

/* The cells at full strength, as a view of `layer` with its own weights
 * (0 elsewhere, 1 there): *view_weight is malloc'd. 0 when the view is
 * used, 1 when every visible cell should be (no fade, or too few cells at
 * full strength), -1 when out of memory. */
static int full_strength_view(const tf_layer_map *layer, tf_layer_map *view, float **view_weight)
{
    size_t cells = layer->width * layer->height, visible = 0, full = 0;
    float strongest = 0.0f;
    for (size_t k = 0; k < cells; k++)
        if (layer->weight[k] > strongest && isfinite(layer->value[k]))
            strongest = layer->weight[k];
    for (size_t k = 0; k < cells; k++) {
        if (!(layer->weight[k] > 0.0f) || !isfinite(layer->value[k]))
            continue;
        visible++;
        full += layer->weight[k] >= strongest - FULL_STRENGTH_TOLERANCE;
    }
    if (full == visible || full < MIN_VISIBLE_CELLS ||
        (double)full < FULL_STRENGTH_SHARE * (double)visible)
        return 1;
    *view_weight = malloc(cells * sizeof **view_weight);
    if (!*view_weight)
        return -1;
    for (size_t k = 0; k < cells; k++)
        (*view_weight)[k] = layer->weight[k] >= strongest - FULL_STRENGTH_TOLERANCE &&
                                    layer->weight[k] > 0.0f
                                ? 1.0f
                                : 0.0f;
    *view = *layer;
    view->weight = *view_weight;
    return 0;
}

int tf_estimate_frequency(const tf_layer_map *layer, tf_noise_type noise, const tf_curve *rd,
                          tf_frequency_method method, tf_frequency_estimate *out, tf_error *err)
{
    if (!layer || !layer->value || !layer->weight || layer->width == 0 || layer->height == 0)
        return estimate_frequency(layer, noise, rd, method, out, err);
    tf_layer_map view;
    float *view_weight = NULL;
    int use_view = full_strength_view(layer, &view, &view_weight);
    if (use_view < 0) {
        memset(out, 0, sizeof *out);
        tf_error_set(err, TF_ERR_NOMEM, "frequency: out of memory");
        return -1;
    }
    int status = estimate_frequency(use_view == 0 ? &view : layer, noise, rd, method, out, err);
    free(view_weight);
    return status;
}

static int estimate_frequency(const tf_layer_map *layer, tf_noise_type noise, const tf_curve *rd,
                              tf_frequency_method method, tf_frequency_estimate *out,
                              tf_error *err)
{
    memset(out, 0, sizeof *out);
    out->peaks = out->spectrum = out->chosen = NAN;
    out->reference_peaks_per_pixel = NAN;
    out->white_noise_sigma = out->value_sigma = out->spectrum_misfit = NAN;
    out->visible_fraction = NAN;
    out->chosen_method = method == TF_FREQUENCY_SPECTRUM ? TF_FREQUENCY_SPECTRUM
                                                         : TF_FREQUENCY_PEAKS;
    if (!layer || !layer->value || !layer->weight || layer->width == 0 || layer->height == 0) {
        tf_error_set(err, TF_ERR_ARGUMENT, "frequency: no layer");
        return -1;
    }
    if (!tf_frequency_method_name(method)) {
        tf_error_set(err, TF_ERR_ARGUMENT, "frequency: unknown method %d", (int)method);
        return -1;
    }
    if ((int)noise < 0 || noise >= TF_NOISE_TYPE_COUNT) {
        tf_error_set(err, TF_ERR_ARGUMENT, "frequency: unknown noise kind %d", (int)noise);
        return -1;
    }
    size_t visible;
    value_stats(layer, &visible, &out->value_sigma);
    out->visible_fraction = (double)visible / ((double)layer->width * (double)layer->height);
    if (visible < MIN_VISIBLE_CELLS) {
        tf_error_set(err, TF_ERR_INVALID,
                     "frequency: the %zux%zu layer has %zu visible cells; at least %d are needed",
                     layer->width, layer->height, visible, MIN_VISIBLE_CELLS);
        return -1;
    }
    if (!(out->value_sigma > 0.0)) {
        tf_error_set(err, TF_ERR_INVALID,
                     "frequency: every visible cell of the %zux%zu layer has the same value, so "
                     "it has no features to measure (constant layer)",
                     layer->width, layer->height);
        return -1;
    }

    char peaks_why[160] = "", spectrum_why[256] = "";
    int spectrum_at_limit = 0;
    if (method != TF_FREQUENCY_SPECTRUM) {
        int nomem;
        out->peaks = estimate_peaks(layer, noise, rd, out, peaks_why, sizeof peaks_why, &nomem);
        if (isnan(out->peaks) && (method == TF_FREQUENCY_PEAKS || nomem)) {
            tf_error_set(err, nomem ? TF_ERR_NOMEM : TF_ERR_INVALID, "frequency (peaks): %s",
                         peaks_why);
            return -1;
        }
    }
    if (method != TF_FREQUENCY_PEAKS) {
        freq_spectrum_fit fit;
        tf_error serr;
        if (freq_spectrum_estimate(layer, noise, rd, &fit, &serr) == 0) {
            out->spectrum = fit.frequency;
            out->white_noise_sigma = sqrt(fit.white);
            out->spectrum_misfit = fit.misfit;
            spectrum_at_limit = fit.at_limit;
        } else if (method == TF_FREQUENCY_SPECTRUM || serr.code == TF_ERR_NOMEM) {
            tf_error_set(err, serr.code, "frequency: %s", serr.message);
            return -1;
        } else {
            snprintf(spectrum_why, sizeof spectrum_why, "%s", serr.message);
        }
    }

    if (method == TF_FREQUENCY_PEAKS)
        choose(out, TF_FREQUENCY_PEAKS, "peaks, as asked: %.4f peaks per pixel",
               out->reference_peaks_per_pixel);
    else if (method == TF_FREQUENCY_SPECTRUM)
        choose(out, TF_FREQUENCY_SPECTRUM, "spectrum, as asked: log-power misfit %.3f",
               out->spectrum_misfit);
    else if (isnan(out->peaks) && isnan(out->spectrum)) {
        tf_error_set(err, TF_ERR_INVALID, "frequency: peaks: %s; spectrum: %s", peaks_why,
                     spectrum_why);
        return -1;
    } else
        choose_auto(out, layer, spectrum_at_limit, peaks_why, spectrum_why);
    return 0;
}
