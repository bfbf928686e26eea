/*
 * The fit report's life after tf_fit: freeing what it holds, and its JSON
 * text (terrafit fit --report), every decision with the figures behind it.
 */
#include <cjson/cJSON.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/error.h"
#include "terrafit/terrafit.h"

void tf_fit_report_free(tf_fit_report *report)
{
    if (!report)
        return;
    if (report->layers)
        for (size_t i = 0; i < report->layer_count; i++) {
            free(report->layers[i].candidates);
            free(report->layers[i].noise_candidates);
        }
    free(report->layers);
    report->layers = NULL;
    report->layer_count = 0;
}

/* ---------------------------------------------------------- report JSON */

/* A number that reads back as the same double: cJSON prints 15 digits
 * when they come within its own epsilon of the value, so the report's
 * figures could differ from the spec's in the last bit. %.15g when exact,
 * else %.17g, with '.' whatever the locale (as the spec writer does). */
static cJSON *exact_number(double v)
{
    char text[40];
    snprintf(text, sizeof text, "%.15g", v);
    if (strtod(text, NULL) != v)
        snprintf(text, sizeof text, "%.17g", v);
    for (char *c = text; *c; c++)
        if (!((*c >= '0' && *c <= '9') || *c == '-' || *c == '+' || *c == 'e' || *c == 'E'))
            *c = '.';
    return cJSON_CreateRaw(text);
}

/* A number, or null where it has none (JSON has no NaN). */
static int add_number(cJSON *obj, const char *key, double v)
{
    cJSON *item = isfinite(v) ? exact_number(v) : cJSON_CreateNull();
    if (item && cJSON_AddItemToObject(obj, key, item))
        return 0;
    cJSON_Delete(item);
    return -1;
}

static int add_string(cJSON *obj, const char *key, const char *s)
{
    return cJSON_AddStringToObject(obj, key, s ? s : "") ? 0 : -1;
}

static int add_bool(cJSON *obj, const char *key, int v)
{
    return cJSON_AddBoolToObject(obj, key, v != 0) ? 0 : -1;
}

static cJSON *candidate_json(const tf_fit_mask_candidate *c)
{
    cJSON *o = cJSON_CreateObject();
    if (!o)
        return NULL;
    int bad = add_number(o, "layer", c->layer) | add_number(o, "overlapCells", (double)c->overlap_cells) |
              add_bool(o, "considered", c->considered) | add_number(o, "rangeMin", c->range_min) |
              add_number(o, "rangeMax", c->range_max) | add_number(o, "spanMin", c->span_min) |
              add_number(o, "spanMax", c->span_max) | add_number(o, "coreMin", c->core_min) |
              add_number(o, "coreMax", c->core_max);
    if (c->considered)
        bad |= add_bool(o, "cutBelow", c->cut_below) | add_bool(o, "cutAbove", c->cut_above) |
               add_bool(o, "masks", c->masks) | add_number(o, "maskMinValue", c->mask_min) |
               add_number(o, "maskMaxValue", c->mask_max) |
               add_number(o, "maskFalloff", c->falloff) |
               add_number(o, "keptShare", c->kept_share) |
               add_number(o, "agreement", c->agreement);
    if (bad) {
        cJSON_Delete(o);
        return NULL;
    }
    return o;
}

static cJSON *layer_json(const tf_fit_layer_report *r, size_t index, int auto_layered, int timings)
{
    cJSON *o = cJSON_CreateObject(), *freq = NULL, *mask = NULL, *cands = NULL, *secs = NULL;
    if (!o)
        return NULL;
    int bad = add_number(o, "index", (double)index);
    bad |= r->name ? add_string(o, "source", r->name) : 0;
    bad |= add_number(o, "visibleCells", (double)r->visible_cells) | add_bool(o, "opaque", r->opaque) |
           add_bool(o, "flat", r->flat) | add_number(o, "valueMin", r->value_min) |
           add_number(o, "valueMax", r->value_max) |
           add_number(o, "pointsRequested", (double)r->points_requested) |
           add_number(o, "points", (double)r->points);

    freq = cJSON_AddObjectToObject(o, "frequency");
    if (!freq)
        goto fail;
    const tf_frequency_estimate *e = &r->frequency;
    bad |= add_number(freq, "peaks", e->peaks) | add_number(freq, "spectrum", e->spectrum) |
           add_number(freq, "chosen", e->chosen) |
           add_string(freq, "method", r->frequency_estimated
                                          ? tf_frequency_method_name(e->chosen_method)
                                          : "none") |
           add_string(freq, "reason", e->reason) |
           add_number(freq, "referencePeaksPerPixel", e->reference_peaks_per_pixel);

    mask = cJSON_AddObjectToObject(o, "mask");
    if (!mask)
        goto fail;
    bad |= add_number(mask, "maskLayerIndex", r->mask_layer);
    if (r->mask_layer >= 0 && !r->mask_curve_points) /* a range mask, not a curve */
        bad |= add_number(mask, "maskMinValue", r->mask_min) |
               add_number(mask, "maskMaxValue", r->mask_max) |
               add_number(mask, "maskFalloff", r->mask_falloff);
    bad |= add_string(mask, "reason", r->mask_reason);
    cands = cJSON_AddArrayToObject(mask, "candidates");
    if (!cands)
        goto fail;
    for (size_t j = 0; j < r->candidate_count; j++) {
        cJSON *c = candidate_json(&r->candidates[j]);
        if (!c || !cJSON_AddItemToArray(cands, c)) {
            cJSON_Delete(c);
            goto fail;
        }
    }

    if (auto_layered) {
        cJSON *band = cJSON_AddObjectToObject(o, "band");
        if (!band)
            goto fail;
        bad |= add_number(band, "sigmaFine", r->band_sigma_fine) |
               add_number(band, "sigmaCoarse", r->band_sigma_coarse) |
               add_number(band, "rms", r->band_rms) | add_number(band, "centroid", r->band_centroid) |
               add_number(band, "amplitude", r->amplitude) |
               add_number(band, "kurtosis", r->kurtosis) |
               add_number(band, "gentleBlend", r->gentle_blend) |
               add_number(band, "maskCurvePoints", (double)r->mask_curve_points);
        if (r->mask_curve_points)
            bad |= add_number(band, "maskCurveMin", r->mask_curve_min) |
                   add_number(band, "maskCurveMax", r->mask_curve_max);
    }
    /* Every layer's noise and kind, a band's too (--noise/--layer-kind per
     * band). */
    bad |= add_string(o, "noise", tf_noise_type_name(r->noise)) |
           add_string(o, "fractal", tf_fractal_kind_name(r->fractal));
    /* --noise auto: every candidate, a band's too. Only a finite score
     * can be the chosen one. */
    if (r->noise_candidate_count) {
        cJSON *nc = cJSON_AddArrayToObject(o, "noiseCandidates");
        if (!nc)
            goto fail;
        for (size_t k = 0; k < r->noise_candidate_count; k++) {
            const tf_fit_noise_candidate *c = &r->noise_candidates[k];
            cJSON *item = cJSON_CreateObject();
            if (!item || !cJSON_AddItemToArray(nc, item)) {
                cJSON_Delete(item);
                goto fail;
            }
            bad |= add_string(item, "noise", tf_noise_type_name(c->noise)) |
                   add_number(item, "frequency", c->frequency) |
                   add_number(item, "chi2", c->chi2) |
                   add_number(item, "slopeChi2", c->slope_chi2) |
                   add_number(item, "spectrumLogRms", c->spectrum_log_rms) |
                   add_number(item, "score", c->score) |
                   add_number(item, "depressionShare", c->depression_share) |
                   add_number(item, "pitsPerPeak", c->pit_peak_ratio) |
                   add_bool(item, "chosen", c->noise == r->noise && isfinite(c->score));
        }
    }
    bad |= add_number(o, "chi2", r->chi2) | add_number(o, "chi2Bins", TF_FIT_CHI2_BINS) |
           add_number(o, "histogramMin", r->hist_min) | add_number(o, "histogramMax", r->hist_max) |
           add_number(o, "synthesisOrigin", TF_FIT_SYNTHESIS_OFFSET);
    if (timings) {
        secs = cJSON_AddObjectToObject(o, "seconds");
        if (!secs)
            goto fail;
        bad |= add_number(secs, "quantiles", r->seconds_quantiles) |
               add_number(secs, "frequency", r->seconds_frequency) |
               add_number(secs, "synthesis", r->seconds_synthesis) |
               add_number(secs, "mask", r->seconds_mask);
    }
    if (bad)
        goto fail;
    return o;
fail:
    cJSON_Delete(o);
    return NULL;
}

static int add_scores(cJSON *parent, const char *name, const tf_fit_drainage_scores *s)
{
    cJSON *o = cJSON_AddObjectToObject(parent, name);
    return !o || add_number(o, "score", s->score) | add_number(o, "histChi2", s->hist_chi2) |
                     add_number(o, "spectrumLogRms", s->spectrum_log_rms) |
                     add_number(o, "spectralSlopeDiff", s->spectral_slope_diff) |
                     add_number(o, "slopeChi2", s->slope_chi2) |
                     add_number(o, "slopeRateLogRatio", s->slope_rate_log_ratio) |
                     add_number(o, "boxDimensionDiff", s->box_dimension_diff) |
                     add_number(o, "depressionShare", s->depression_share) |
                     add_number(o, "pitsPerPeak", s->pit_peak_ratio);
}

/* "drainage": the measured inputs, the parameters and the scores of the
 * decision (docs/fitting.md, "The drainage stage"). */
static int add_drainage(cJSON *root, const tf_fit_drainage_report *d)
{
    cJSON *o = cJSON_AddObjectToObject(root, "drainage");
    if (!o)
        return 1;
    int bad = add_bool(o, "considered", d->considered) | add_bool(o, "chosen", d->chosen) |
              add_string(o, "why", d->why);
    if (!d->considered)
        return bad;
    cJSON *m = cJSON_AddObjectToObject(o, "measured");
    bad |= !m || add_number(m, "channelThreshold", d->channel_threshold) |
                     add_number(m, "valleySpacing", d->valley_spacing) |
                     add_number(m, "heightAboveDrainage", d->height_above_drainage) |
                     add_number(m, "maxAccumulationShare", d->max_accumulation_share) |
                     add_number(m, "referenceDepressionShare", d->reference_depression_share) |
                     add_number(m, "depressionShareTarget", d->depression_share_target);
    cJSON *p = cJSON_AddObjectToObject(o, "parameters");
    bad |= !p || add_number(p, "levels", d->levels) | add_number(p, "spacing", d->spacing) |
                     add_number(p, "depth", d->depth) | add_number(p, "breach", d->breach);
    if (d->preset)
        bad |= add_string(p, "preset", d->preset) | add_number(p, "gamma", d->gamma) |
               add_number(p, "slope", d->slope) | add_number(p, "fade", d->fade) |
               add_number(p, "detailWavelength", d->detail_wavelength) |
               add_number(p, "detailGain", d->detail_gain) |
               add_string(p, "fadeBy", tf_fade_by_name(d->fade_by)) |
               add_string(p, "breachTo", tf_breach_to_name(d->breach_to)) |
               add_number(p, "inflow", d->inflow) |
               add_number(p, "floor", d->floor_width) | add_number(p, "reach", d->reach);
    if (d->windows)
        bad |= add_number(o, "windows", (double)d->windows) |
               add_scores(o, "without", &d->without) |
               (d->preset ? add_scores(o, "with", &d->with) : 0);
    return bad;
}

char *tf_fit_report_to_json(const tf_fit_report *report, int timings, tf_error *err)
{
    if (!report || (report->layer_count && !report->layers)) {
        tf_error_set(err, TF_ERR_ARGUMENT, "fit report: no report given");
        return NULL;
    }
    char *text = NULL;
    cJSON *root = cJSON_CreateObject(), *arr = NULL;
    if (!root)
        goto nomem;
    int bad = add_string(root, "format", "terrafit-fit-report") | add_number(root, "version", 1) |
              add_number(root, "width", (double)report->width) |
              add_number(root, "height", (double)report->height) |
              add_number(root, "points", (double)report->points) |
              add_string(root, "frequencyMethod", tf_frequency_method_name(report->frequency_method)) |
              add_string(root, "noise",
                         report->noise_auto ? "auto" : tf_noise_type_name(report->noise)) |
              add_string(root, "fractal", tf_fractal_kind_name(report->fractal)) |
              add_number(root, "seed", report->seed) |
              add_number(root, "minValue", report->min_value) |
              add_number(root, "maxValue", report->max_value);
    bad |= add_bool(root, "autoLayered", report->auto_layered);
    if (report->auto_layered) {
        cJSON *oc = cJSON_AddObjectToObject(root, "outputCurve");
        bad |= !oc || add_number(oc, "points", (double)report->output_curve_points) |
                          add_number(oc, "chi2Before", report->output_chi2_before) |
                          add_number(oc, "chi2After", report->output_chi2_after) |
                          add_number(oc, "slopeGain", report->output_slope_gain);
        bad |= add_number(root, "calibrationRms", report->calibration_rms);
        const tf_fit_slope_match *sm = &report->slope_match;
        cJSON *o = cJSON_AddObjectToObject(root, "slopeMatch");
        bad |= !o || add_number(o, "referenceMeanSlope", sm->reference_mean_slope) |
                         add_number(o, "ratioBefore", sm->ratio_before) |
                         add_number(o, "ratioTilted", sm->ratio_tilted) |
                         add_number(o, "elasticity", sm->elasticity) |
                         add_number(o, "tilt", sm->tilt) | add_bool(o, "kept", sm->kept) |
                         add_number(o, "tiltedScore", sm->tilted_score) |
                         add_number(o, "calibratedScore", sm->calibrated_score);
    }
    bad |= add_drainage(root, &report->drainage);
    arr = cJSON_AddArrayToObject(root, "layers");
    if (bad || !arr)
        goto nomem;
    for (size_t i = 0; i < report->layer_count; i++) {
        cJSON *l = layer_json(&report->layers[i], i, report->auto_layered, timings);
        if (!l || !cJSON_AddItemToArray(arr, l)) {
            cJSON_Delete(l);
            goto nomem;
        }
    }
    if (timings) {
        cJSON *secs = cJSON_AddObjectToObject(root, "seconds");
        if (!secs || add_number(secs, "noiseSample", report->seconds_noise_sample) ||
            add_number(secs, "drainage", report->seconds_drainage) ||
            add_number(secs, "total", report->seconds_total))
            goto nomem;
        if (report->auto_layered &&
            (add_number(secs, "bands", report->seconds_bands) ||
             add_number(secs, "noiseAuto", report->seconds_noise_auto) ||
             add_number(secs, "calibration", report->seconds_calibration) ||
             add_number(secs, "outputCurve", report->seconds_output_curve) ||
             add_number(secs, "slopeMatch", report->seconds_slope_match)))
            goto nomem;
    }
    text = cJSON_Print(root);
    if (!text)
        goto nomem;
    cJSON_Delete(root);
    /* cJSON's allocator is malloc unless a program changed it; copy so the
     * caller can always free() the text. */
    size_t len = strlen(text);
    char *copy = malloc(len + 2);
    if (!copy) {
        cJSON_free(text);
        tf_error_set(err, TF_ERR_NOMEM, "fit report: out of memory");
        return NULL;
    }
    memcpy(copy, text, len);
    copy[len] = '\n';
    copy[len + 1] = '\0';
    cJSON_free(text);
    tf_error_clear(err);
    return copy;
nomem:
    cJSON_Delete(root);
    tf_error_set(err, TF_ERR_NOMEM, "fit report: out of memory");
    return NULL;
}
