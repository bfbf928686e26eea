/*
 * tf_fit: reference layers in, terrain spec out (thesis 5.4). Each layer is
 * analysed on its own thread (quantiles, equalized curve, frequency, the
 * synthesized check); then masks, the value range, and the report. Its
 * input checks are in fit_inputs.c, the report's JSON in fit_report.c.
 */

#include <math.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/autolayer_internal.h"
#include "analysis/fit_internal.h"
#include "base/error.h"
#include "util/util.h"
#include "terrafit/metrics.h"
#include "terrafit/terrafit.h"

/* Progress steps per layer: quantiles, frequency, synthesis, mask. */
#define STEPS_PER_LAYER 4
/* Samples of the synthesized window rendered at a time (256 KiB). */
#define SYNTHESIS_BAND_SAMPLES 65536

/* The noises --noise auto tries (docs/fitting.md): every seeded kind but
 * perlin-reference-simplex (simplex's unseeded twin) and cellular-f2. */
const tf_noise_type tf_fit_auto_candidates[TF_FIT_AUTO_CANDIDATES] = {
    TF_NOISE_SIMPLEX, TF_NOISE_PERLIN,       TF_NOISE_EXPONENTIAL_PERLIN, TF_NOISE_POLYNOMIAL,
    TF_NOISE_VALUE,   TF_NOISE_CELLULAR_F1, TF_NOISE_CELLULAR_F2_F1};

void tf_fit_options_init(tf_fit_options *opt)
{
    memset(opt, 0, sizeof *opt);
    opt->points = TF_FIT_DEFAULT_POINTS;
    opt->frequency = TF_FREQUENCY_AUTO;
    opt->noise = TF_NOISE_SIMPLEX;
    opt->seed = 0;
    opt->threads = 0;
    opt->names = NULL;
}

/* ------------------------------------------------------------ per layer */

typedef struct {
    /* in */
    const tf_layer_map *map;
    const tf_layer_spec *spec_layer; /* seed and offset for the synthesis */
    const tf_fit_options *opt;
    const char *label; /* the layer's name in messages */
    size_t index;
    tf_layer_spec kind; /* noise_type and fractal of the layer being fitted */
    int try_auto;       /* --noise auto for this layer */
    /* out */
    fit_layer_data data;
    float *sorted;
    tf_point *points;
    size_t point_count;
    double frequency; /* the one the spec uses */
    tf_fit_layer_report *rep;
    int failed;
    tf_error err;
} layer_job;

/* Prefix a building block's message with the layer's name. */
static void job_fail(layer_job *job, const tf_error *cause)
{
    job->failed = 1;
    tf_error_set(&job->err, cause->code ? cause->code : TF_ERR_INVALID, "%s: %s", job->label,
                 cause->message);
}

/* Stage 1 (thesis 5.4.1): the visible values, sorted; the equalized curve. */
static int stage_quantiles(layer_job *job)
{
    const tf_layer_map *map = job->map;
    size_t cells = map->width * map->height;
    tf_error err;
    size_t n = tf_sorted_values(map->value, map->weight, cells, &job->sorted, &err);
    if (n == (size_t)-1) {
        job_fail(job, &err);
        return -1;
    }
    if (n == 0) { /* checked before, but the values could all be NaN */
        tf_error_set(&job->err, TF_ERR_INVALID, "%s: no visible cell", job->label);
        job->failed = 1;
        return -1;
    }
    float weight_max = 0.0f;
    for (size_t k = 0; k < cells; k++)
        if (map->weight[k] > weight_max)
            weight_max = map->weight[k];
    /* Opaque: present at full strength (within half an 8-bit step of its
     * strongest) on every cell, so no mask can describe it. */
    int opaque = n == cells;
    for (size_t k = 0; k < cells && opaque; k++)
        opaque = (double)map->weight[k] >= (double)weight_max - FIT_CORE_WEIGHT_MARGIN;
    job->data.map = map;
    job->data.sorted = job->sorted;
    job->data.visible = n;
    job->data.weight_max = weight_max;
    job->data.opaque = opaque;
    job->data.flat = job->sorted[0] == job->sorted[n - 1];

    tf_fit_layer_report *rep = job->rep;
    rep->visible_cells = n;
    rep->opaque = job->data.opaque;
    rep->flat = job->data.flat;
    rep->value_min = job->sorted[0];
    rep->value_max = job->sorted[n - 1];
    rep->points_requested = job->opt->points;

    job->points = malloc(job->opt->points * sizeof *job->points);
    if (!job->points) {
        tf_error_set(&job->err, TF_ERR_NOMEM, "%s: out of memory", job->label);
        job->failed = 1;
        return -1;
    }
    return 0;
}

/* Stage 1b: the equalized curve against the layer kind's output. */
static int stage_equalize(layer_job *job)
{
    tf_error err;
    if (tf_equalized_points_layer(job->sorted, job->data.visible, &job->kind, job->opt->points,
                                  job->points, &job->point_count, &err) != 0) {
        job_fail(job, &err);
        return -1;
    }
    job->rep->points = job->point_count;
    return 0;
}

/* Stage 2: the base frequency. A flat layer is the same constant at any
 * frequency, so it keeps the format's default and no estimator runs. */
static int stage_frequency(layer_job *job, const tf_curve *curve)
{
    tf_fit_layer_report *rep = job->rep;
    tf_frequency_estimate *est = &rep->frequency;
    if (job->data.flat) {
        est->peaks = est->spectrum = NAN;
        est->reference_peaks_per_pixel = 0.0;
        est->chosen = 1.0 / 64.0;
        est->chosen_method = job->opt->frequency == TF_FREQUENCY_PEAKS ? TF_FREQUENCY_PEAKS
                                                                      : TF_FREQUENCY_SPECTRUM;
        snprintf(est->reason, sizeof est->reason,
                 "flat layer: every visible value is %.6g, so the frequency has no effect; "
                 "the default 1/64 is kept",
                 rep->value_min);
        rep->frequency_estimated = 0;
        job->frequency = est->chosen;
        return 0;
    }
    tf_error err;
    /* A fractal layer's frequency is estimated as its base noise's (the
     * documented approximation: the estimators model one octave). */
    if (tf_estimate_frequency(job->map, job->kind.noise_type, curve, job->opt->frequency, est,
                              &err) != 0) {
        job_fail(job, &err);
        return -1;
    }
    if (!(isfinite(est->chosen) && est->chosen > 0.0)) {
        tf_error_set(&job->err, TF_ERR_INVALID, "%s: no base frequency could be estimated (%s)",
                     job->label, est->reason);
        job->failed = 1;
        return -1;
    }
    rep->frequency_estimated = 1;
    job->frequency = est->chosen;
    return 0;
}

/* Stage 3: the layer synthesized alone — its noise at the fitted frequency,
 * seed and offset through its curve — on a window of the same size at
 * (TF_FIT_SYNTHESIS_OFFSET, TF_FIT_SYNTHESIS_OFFSET), and the chi-square
 * distance of its histogram to the reference's (thesis 5.4.1, Table 3). */
static int synthesize(layer_job *job, double f, float *keep, double *chi2_out);

static int stage_synthesis(layer_job *job)
{
    return synthesize(job, job->frequency, NULL, &job->rep->chi2);
}

/* The window rendered by the runtime (a one-layer terrain of the layer's
 * kind through its equalized curve, fit_layer_terrain) at frequency f; the
 * whole window into keep (w * h values) when not NULL. */
static int synthesize(layer_job *job, double f, float *keep, double *chi2_out)
{
    const tf_layer_map *map = job->map;
    tf_fit_layer_report *rep = job->rep;
    size_t w = map->width, h = map->height;
    /* Bins over the reference's visible range; a flat layer gets a unit
     * range around its value (everything then falls in one bin). */
    double lo = rep->value_min, hi = rep->value_max;
    if (!(hi > lo)) {
        lo -= 0.5;
        hi += 0.5;
    }
    /* The window is rendered a band of rows at a time, each band binned by
     * tf_histogram and its counts (fraction * band size, rounded: exact)
     * summed, so memory stays small for any reference size. */
    size_t band_rows = SYNTHESIS_BAND_SAMPLES / w ? SYNTHESIS_BAND_SAMPLES / w : 1;
    if (band_rows > h)
        band_rows = h;
    if (keep)
        band_rows = h;
    float *band = keep ? keep : malloc(band_rows * w * sizeof *band);
    double *row = malloc(w * sizeof *row);
    tf_error err;
    tf_terrain *t = band && row ? fit_layer_terrain(&job->kind, job->spec_layer, f, job->points,
                                                    job->point_count, &err)
                                : NULL;
    if (!t) {
        if (!band || !row)
            tf_error_set(&err, TF_ERR_NOMEM, "out of memory");
        if (!keep)
            free(band);
        free(row);
        tf_error_set(&job->err, err.code, "%s: %s", job->label, err.message);
        job->failed = 1;
        return -1;
    }
    double counts[TF_FIT_CHI2_BINS] = {0.0}, band_hist[TF_FIT_CHI2_BINS];
    for (size_t j0 = 0; j0 < h; j0 += band_rows) {
        size_t rows = h - j0 < band_rows ? h - j0 : band_rows;
        for (size_t r = 0; r < rows; r++) {
            /* the layer's redistributed value r (docs/spec.md, step 2) */
            tf_terrain_sample_stage_window(t, TF_STAGE_REDISTRIBUTED, 0,
                                           TF_FIT_SYNTHESIS_OFFSET, TF_FIT_SYNTHESIS_OFFSET,
                                           1.0, 0, (int64_t)(j0 + r), w, 1, row, NULL);
            for (size_t i = 0; i < w; i++)
                band[r * w + i] = (float)row[i];
        }
        tf_histogram(band, NULL, rows * w, lo, hi, TF_FIT_CHI2_BINS, band_hist);
        for (size_t b = 0; b < TF_FIT_CHI2_BINS; b++)
            counts[b] += round(band_hist[b] * (double)(rows * w));
    }
    tf_terrain_free(t);
    free(row);
    if (!keep)
        free(band);
    double total = 0.0, syn_hist[TF_FIT_CHI2_BINS], ref_hist[TF_FIT_CHI2_BINS];
    for (size_t b = 0; b < TF_FIT_CHI2_BINS; b++)
        total += counts[b];
    for (size_t b = 0; b < TF_FIT_CHI2_BINS; b++)
        syn_hist[b] = total > 0.0 ? counts[b] / total : 0.0;
    tf_histogram(map->value, map->weight, w * h, lo, hi, TF_FIT_CHI2_BINS, ref_hist);
    rep->hist_min = lo;
    rep->hist_max = hi;
    *chi2_out = tf_chi2_distance(ref_hist, syn_hist, TF_FIT_CHI2_BINS);
    return 0;
}

/* --noise auto for one layer (docs/fitting.md, "Noises and layer kinds"):
 * each candidate noise (the layer's fractal kept) gets its own equalized
 * curve and frequency, is synthesized on the chi2 window, and is scored
 * against the reference by compare's slope and spectrum figures; the
 * lowest score wins, ties to the earlier candidate. A candidate that fails
 * (no frequency, say) scores NaN and is listed but never chosen. */
static int stage_auto(layer_job *job)
{
    const tf_layer_map *map = job->map;
    size_t w = map->width, h = map->height, cells = w * h;
    tf_fit_layer_report *rep = job->rep;
    rep->noise_candidates = calloc(TF_FIT_AUTO_CANDIDATES, sizeof *rep->noise_candidates);
    tf_layer_map *ref = tf_layer_map_new(w, h, NULL), *syn = tf_layer_map_new(w, h, NULL);
    float *window = malloc(cells * sizeof *window);
    if (!rep->noise_candidates || !ref || !syn || !window) {
        tf_layer_map_free(ref);
        tf_layer_map_free(syn);
        free(window);
        tf_error_set(&job->err, TF_ERR_NOMEM, "%s: out of memory", job->label);
        job->failed = 1;
        return -1;
    }
    rep->noise_candidate_count = TF_FIT_AUTO_CANDIDATES;
    /* Both maps in [0, 1] over the reference's visible range. */
    double lo = rep->value_min, span = rep->value_max - rep->value_min;
    for (size_t k = 0; k < cells; k++) {
        double v = span > 0.0 ? ((double)map->value[k] - lo) / span : 0.5;
        ref->value[k] = (float)(v < 0.0 ? 0.0 : v > 1.0 ? 1.0 : v);
        ref->weight[k] = map->weight[k];
        syn->weight[k] = 1.0f;
    }
    tf_metrics_options mopt = tf_metrics_options_default();
    int best = -1;
    for (int c = 0; c < TF_FIT_AUTO_CANDIDATES; c++) {
        tf_fit_noise_candidate *cand = &rep->noise_candidates[c];
        cand->noise = tf_fit_auto_candidates[c];
        cand->frequency = cand->chi2 = cand->slope_chi2 = cand->spectrum_log_rms = NAN;
        cand->score = cand->depression_share = cand->pit_peak_ratio = NAN;
        job->kind.noise_type = cand->noise;
        tf_error err;
        if (stage_equalize(job) != 0)
            goto fail;
        tf_curve *curve =
            tf_curve_new(job->points, job->point_count, TF_INTERP_MONOTONE_CUBIC, &err);
        if (!curve) {
            job_fail(job, &err);
            goto fail;
        }
        tf_frequency_estimate est;
        memset(&est, 0, sizeof est);
        int ok = tf_estimate_frequency(map, cand->noise, curve, job->opt->frequency, &est,
                                       &err) == 0 &&
                 isfinite(est.chosen) && est.chosen > 0.0;
        if (ok) {
            cand->frequency = est.chosen;
            ok = synthesize(job, est.chosen, window, &cand->chi2) == 0;
        }
        tf_curve_free(curve);
        if (!ok)
            continue;
        for (size_t k = 0; k < cells; k++) {
            double v = span > 0.0 ? ((double)window[k] - lo) / span : 0.5;
            syn->value[k] = (float)(v < 0.0 ? 0.0 : v > 1.0 ? 1.0 : v);
        }
        tf_metrics_report mr;
        if (tf_metrics_compute(ref, syn, &mopt, &mr, &err) != 0)
            continue;
        cand->slope_chi2 = mr.slope_chi2;
        cand->spectrum_log_rms = mr.spectrum_log_rms;
        cand->score = mr.slope_chi2 + mr.spectrum_log_rms;
        cand->depression_share = mr.b.depression_share;
        cand->pit_peak_ratio = mr.b.pit_peak_ratio;
        if (isfinite(cand->score) && (best < 0 || cand->score < rep->noise_candidates[best].score))
            best = c;
    }
    tf_layer_map_free(ref);
    tf_layer_map_free(syn);
    free(window);
    job->kind.noise_type = best >= 0 ? tf_fit_auto_candidates[best] : TF_NOISE_SIMPLEX;
    return 0;
fail:
    tf_layer_map_free(ref);
    tf_layer_map_free(syn);
    free(window);
    return -1;
}

/* ------------------------------------------------ the layers in parallel */

/* How often the calling thread reports progress while layers run: steps
 * finish inside a layer's task, which the watch hears of only this way. */
#define PROGRESS_POLL_SECONDS 0.05

/* One phase over the layers: a task per layer claimed in turn
 * (tf_parallel_claim), the calling thread reporting progress. */
typedef struct fit_pool fit_pool;
struct fit_pool {
    layer_job *jobs;
    const fit_layer_data *layers; /* for the mask phase */
    void (*run)(fit_pool *pool, size_t task);
    atomic_size_t steps_done; /* progress steps finished, all phases */
    size_t total, reported;   /* reported: (size_t)-1 before the first report */
    tf_progress_fn progress;  /* NULL: no reports */
    void *user;
};

static void pool_step_done(fit_pool *pool)
{
    atomic_fetch_add_explicit(&pool->steps_done, 1, memory_order_relaxed);
}

/* The watch: a report whenever the count moved. */
static void pool_report(void *arg)
{
    fit_pool *pool = arg;
    size_t done = atomic_load_explicit(&pool->steps_done, memory_order_relaxed);
    if (pool->progress && done != pool->reported) {
        pool->progress(pool->user, done, pool->total);
        pool->reported = done;
    }
}

static void pool_range(void *arg, size_t lo, size_t hi)
{
    fit_pool *pool = arg;
    for (size_t task = lo; task < hi; task++)
        pool->run(pool, task);
}

/* Run `count` tasks, one layer each, on up to `threads` threads. A layer's
 * task is long, so with progress to report the calling thread only
 * watches. Tasks are independent, so the result does not depend on the
 * schedule. */
static void pool_run(fit_pool *pool, void (*run)(fit_pool *, size_t), size_t count,
                     unsigned threads)
{
    pool->run = run;
    pool_report(pool);
    tf_parallel_watch watch = {pool_report, pool, PROGRESS_POLL_SECONDS, 1};
    tf_parallel_claim(count, 1, threads, pool_range, pool, pool->progress ? &watch : NULL);
}

static void task_analyze(fit_pool *pool, size_t task)
{
    layer_job *job = &pool->jobs[task];
    double t0 = tf_clock_seconds();
    int ok = stage_quantiles(job) == 0;
    /* A flat layer is the same at any noise: no candidates to compare. */
    if (ok && job->try_auto && !job->data.flat)
        ok = stage_auto(job) == 0;
    ok = ok && stage_equalize(job) == 0;
    job->rep->noise = job->kind.noise_type;
    job->rep->fractal = job->kind.fractal_kind;
    double t1 = tf_clock_seconds();
    job->rep->seconds_quantiles = t1 - t0;
    pool_step_done(pool);
    tf_curve *curve = NULL;
    if (ok) {
        tf_error err;
        curve = tf_curve_new(job->points, job->point_count, TF_INTERP_MONOTONE_CUBIC, &err);
        if (!curve) {
            job_fail(job, &err);
            ok = 0;
        }
    }
    ok = ok && stage_frequency(job, curve) == 0;
    double t2 = tf_clock_seconds();
    job->rep->seconds_frequency = t2 - t1;
    pool_step_done(pool);
    ok = ok && stage_synthesis(job) == 0;
    job->rep->seconds_synthesis = tf_clock_seconds() - t2;
    pool_step_done(pool);
    tf_curve_free(curve);
}

static void task_mask(fit_pool *pool, size_t task)
{
    layer_job *job = &pool->jobs[task];
    double t0 = tf_clock_seconds();
    if (!job->failed && fit_mask_search(pool->layers, task, job->rep, &job->err) != 0)
        job->failed = 1;
    job->rep->seconds_mask = tf_clock_seconds() - t0;
    pool_step_done(pool);
}

/* ------------------------------------------------------------ the spec */

/* Cell k of the combined reference, sum_i (value_i - 0.5) over the layers
 * visible there; 0 where none is. */
static int combined_value(const tf_layer_map *const *layers, size_t count, size_t k,
                          double *value)
{
    double sum = 0.0;
    int seen = 0;
    for (size_t i = 0; i < count; i++) {
        if (layers[i]->weight[k] > 0.0f) {
            sum += (double)layers[i]->value[k] - 0.5;
            seen = 1;
        }
    }
    *value = sum;
    return seen;
}

/* minValue / maxValue: the range of the combined reference
 * sum_i (value_i - 0.5) over the cells where any layer is visible, which is
 * what the spec's layers sum to with preAmpShift -0.5 and ampScale 1. */
static void combined_range(const tf_layer_map *const *layers, size_t count, double *lo,
                           double *hi)
{
    size_t cells = layers[0]->width * layers[0]->height;
    double mn = HUGE_VAL, mx = -HUGE_VAL;
    for (size_t k = 0; k < cells; k++) {
        double sum;
        if (!combined_value(layers, count, k, &sum))
            continue;
        if (sum < mn)
            mn = sum;
        if (sum > mx)
            mx = sum;
    }
    /* Flat references (every layer constant) have no range; the format
     * needs minValue < maxValue, so give them one unit around the value. */
    if (!(mx > mn)) {
        mn -= 0.5;
        mx += 0.5;
    }
    *lo = mn;
    *hi = mx;
}

/* The drainage stage of a reference-layer fit, fitted to the combined
 * reference (combined_range's sum, present where any layer is). */
static int drainage_on_references(const tf_layer_map *const *layers, size_t count,
                                  const tf_fit_options *opt, const char *label, tf_spec **spec,
                                  tf_fit_drainage_report *rep, tf_error *err)
{
    size_t w = layers[0]->width, h = layers[0]->height, cells = w * h;
    tf_layer_map *combined = tf_layer_map_new(w, h, err);
    if (!combined)
        return -1;
    for (size_t k = 0; k < cells; k++) {
        double sum;
        int seen = combined_value(layers, count, k, &sum);
        combined->value[k] = seen ? (float)sum : 0.0f;
        combined->weight[k] = seen ? 1.0f : 0.0f;
    }
    int rc = fit_drainage(combined, opt, label, spec, rep, err);
    tf_layer_map_free(combined);
    return rc;
}

static void free_jobs(layer_job *jobs, size_t count)
{
    if (!jobs)
        return;
    for (size_t i = 0; i < count; i++) {
        free(jobs[i].sorted);
        free(jobs[i].points);
    }
    free(jobs);
}

/* Layer i's noise and kind from the options (docs/fitting.md, "Noises and
 * layer kinds"); *try_auto says whether it tries the auto candidates.
 * Auto-layering (autolayer.c) takes its bands' kinds from here too. */
void fit_layer_kind_of(const tf_fit_options *opt, size_t i, tf_layer_spec *kind, int *try_auto)
{
    memset(kind, 0, sizeof *kind);
    unsigned ln = i < TF_MAX_LAYERS ? opt->layer_noise[i] : 0;
    unsigned lf = i < TF_MAX_LAYERS ? opt->layer_fractal[i] : 0;
    *try_auto = ln == TF_FIT_LAYER_NOISE_AUTO || (ln == 0 && opt->noise_auto);
    kind->noise_type = ln && ln != TF_FIT_LAYER_NOISE_AUTO ? (tf_noise_type)(ln - 1) : opt->noise;
    tf_fractal_set_defaults(kind, lf ? (tf_fractal_kind)(lf - 1) : opt->fractal);
}

/* The --layers rules (docs/fitting.md, "Auto-layering a single DEM"): a
 * single fully present reference is split into bands unless one layer is
 * asked for. 1: fitted here (success); -1: failed (err filled); 0: go on
 * with one layer per reference. */
static int fit_by_bands(const tf_layer_map *const *layers, size_t count,
                        const tf_fit_options *opt, char (*labels)[32], tf_spec **spec_out,
                        tf_fit_report *report_out, tf_progress_fn progress, void *user,
                        tf_error *err)
{
    if (opt->layers > TF_FIT_MAX_BANDS) {
        tf_error_set(err, TF_ERR_LIMIT, "fit: %zu layers asked for; 1 to %d allowed",
                     opt->layers, TF_FIT_MAX_BANDS);
        return -1;
    }
    if (count > 1 && opt->layers != TF_FIT_LAYERS_AUTO && opt->layers != 1 &&
        opt->layers != count) {
        tf_error_set(err, TF_ERR_ARGUMENT,
                     "fit: %zu layers asked for, but %zu references give one layer each "
                     "(a number of layers applies to a single reference)",
                     opt->layers, count);
        return -1;
    }
    if (count != 1 || opt->layers == 1)
        return 0;
    const tf_layer_map *map = layers[0];
    const char *name = fit_layer_label(opt, 0, labels[0], sizeof labels[0]);
    int full = autolayer_fully_present(map);
    if (!full && opt->layers != TF_FIT_LAYERS_AUTO) {
        tf_error_set(err, TF_ERR_INVALID,
                     "%s: %zu layers need a fully present reference (every cell at full "
                     "strength or no-data), but this layer is partly transparent",
                     name, opt->layers);
        return -1;
    }
    size_t bands = opt->layers ? opt->layers : tf_bands_auto_count(map->width, map->height);
    if (!full || bands < 2 || map->width < 8 || map->height < 8)
        /* too small for two bands: the thesis's one layer */
        return fit_check_layer_kinds(opt, 1, err) != 0 ? -1 : 0;
    tf_fit_report report;
    if (fit_autolayer(map, opt->layers, opt, name, spec_out, &report, progress, user, err) != 0) {
        tf_fit_report_free(&report);
        return -1;
    }
    if (report_out)
        *report_out = report;
    else
        tf_fit_report_free(&report);
    return 1;
}

int tf_fit(const tf_layer_map *const *layers, size_t count, const tf_fit_options *opt,
           tf_spec **spec_out, tf_fit_report *report_out, tf_progress_fn progress, void *user,
           tf_error *err)
{
    double t_start = tf_clock_seconds();
    if (spec_out)
        *spec_out = NULL;
    if (report_out)
        memset(report_out, 0, sizeof *report_out);
    if (!spec_out) {
        tf_error_set(err, TF_ERR_ARGUMENT, "fit: nowhere to put the spec");
        return -1;
    }
    char(*labels)[32] = calloc(count ? count : 1, sizeof *labels);
    if (!labels) {
        tf_error_set(err, TF_ERR_NOMEM, "fit: out of memory");
        return -1;
    }
    if (fit_check_inputs(layers, count, opt, labels, err) != 0) {
        free(labels);
        return -1;
    }
    int handled = fit_by_bands(layers, count, opt, labels, spec_out, report_out, progress, user,
                               err);
    if (handled != 0) {
        free(labels);
        return handled > 0 ? 0 : -1;
    }

    tf_fit_report report;
    memset(&report, 0, sizeof report);
    report.width = layers[0]->width;
    report.height = layers[0]->height;
    report.layer_count = count;
    report.points = opt->points;
    report.frequency_method = opt->frequency;
    report.noise = opt->noise;
    report.noise_auto = opt->noise_auto;
    report.fractal = opt->fractal;
    report.seed = opt->seed;

    tf_spec *spec = tf_spec_new(count, err);
    layer_job *jobs = calloc(count, sizeof *jobs);
    fit_layer_data *data = calloc(count, sizeof *data);
    report.layers = calloc(count, sizeof *report.layers);
    if (!spec || !jobs || !data || !report.layers) {
        if (spec)
            tf_error_set(err, TF_ERR_NOMEM, "fit: out of memory");
        goto fail;
    }
    tf_spec_reseed(spec, opt->seed);

    /* The base-noise sample, built here (once, kept until
     * tf_fit_release_caches) so its cost is reported on its own rather
     * than inside one layer's timing. */
    double t_sample = tf_clock_seconds();
    for (size_t i = 0; i < count; i++) {
        layer_job *job = &jobs[i];
        fit_layer_kind_of(opt, i, &job->kind, &job->try_auto);
        if (!job->try_auto && !fit_layer_sample(&job->kind, err))
            goto fail;
    }
    report.seconds_noise_sample = tf_clock_seconds() - t_sample;

    for (size_t i = 0; i < count; i++) {
        layer_job *job = &jobs[i];
        job->map = layers[i];
        job->spec_layer = &spec->layers[i];
        job->opt = opt;
        job->label = fit_layer_label(opt, i, labels[i], sizeof labels[i]);
        job->index = i;
        job->rep = &report.layers[i];
        job->rep->name = opt->names ? opt->names[i] : NULL;
        job->rep->mask_layer = -1;
    }

    unsigned threads = opt->threads ? opt->threads : tf_cpu_count();
    size_t total = STEPS_PER_LAYER * count;
    fit_pool pool = {.jobs = jobs, .total = total, .reported = (size_t)-1, .progress = progress,
                     .user = user};
    atomic_init(&pool.steps_done, 0);
    pool_run(&pool, task_analyze, count, threads);
    int failed = -1;
    for (size_t i = 0; i < count && failed < 0; i++)
        if (jobs[i].failed)
            failed = (int)i;
    if (failed < 0) {
        for (size_t i = 0; i < count; i++)
            data[i] = jobs[i].data;
        pool.layers = data;
        pool_run(&pool, task_mask, count, threads);
        for (size_t i = 0; i < count && failed < 0; i++)
            if (jobs[i].failed)
                failed = (int)i;
    }
    if (failed >= 0) {
        /* The lowest failing layer, whatever the schedule, so the message
         * is deterministic. */
        *err = jobs[failed].err;
        goto fail;
    }

    /* The spec (thesis 5.4.3): X_i = (RD_i(u) - 0.5) * 1, so the layers sum
     * to the sum of the reference layers' offsets from 0.5. */
    for (size_t i = 0; i < count; i++) {
        tf_layer_spec *ls = &spec->layers[i];
        const tf_fit_layer_report *rep = &report.layers[i];
        tf_fractal_set_defaults(ls, jobs[i].kind.fractal_kind);
        ls->noise_type = jobs[i].kind.noise_type;
        ls->frequency = jobs[i].frequency;
        ls->rd_interpolation = TF_INTERP_MONOTONE_CUBIC;
        ls->pre_amp_shift = -0.5;
        ls->amp_scale = 1.0;
        ls->mask_layer_index = rep->mask_layer;
        if (rep->mask_layer >= 0) {
            ls->mask_min_value = rep->mask_min;
            ls->mask_max_value = rep->mask_max;
            ls->mask_falloff = rep->mask_falloff;
        }
        if (tf_spec_set_rd_points(spec, i, jobs[i].points, jobs[i].point_count, err) != 0)
            goto fail;
    }
    combined_range(layers, count, &spec->min_value, &spec->max_value);
    if (tf_spec_validate(spec, err) != 0)
        goto fail;
    /* The drainage stage only when asked for: the layers are the
     * artist's, not bands the fitter chose. */
    if (opt->drainage == TF_FIT_DRAINAGE_ON) {
        double t_drain = tf_clock_seconds();
        if (drainage_on_references(layers, count, opt, labels[0], &spec, &report.drainage,
                                   err) != 0)
            goto fail;
        report.seconds_drainage = tf_clock_seconds() - t_drain;
    } else {
        snprintf(report.drainage.why, sizeof report.drainage.why,
                 opt->drainage == TF_FIT_DRAINAGE_OFF ? "off"
                                                      : "reference layers: only with --drainage on");
    }
    report.min_value = spec->min_value;
    report.max_value = spec->max_value;

    free_jobs(jobs, count);
    free(data);
    free(labels);
    report.seconds_total = tf_clock_seconds() - t_start;
    if (report_out)
        *report_out = report;
    else
        tf_fit_report_free(&report);
    *spec_out = spec;
    if (progress)
        progress(user, total, total);
    tf_error_clear(err);
    return 0;

fail:
    free_jobs(jobs, count);
    free(data);
    free(labels);
    tf_fit_report_free(&report);
    tf_spec_free(spec);
    return -1;
}

/* The tables are built by noise_sample.c (fit, quantiles) and
 * autolayer_spectrum.c (auto-layering); one call frees both. */
void tf_fit_release_caches(void)
{
    fit_noise_samples_release();
    autolayer_noise_spectra_release();
}
