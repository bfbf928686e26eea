/*
 * tf_fit: reference layers in, terrain spec out (thesis 5.4). Each layer is
 * analysed on its own thread (quantiles, equalized curve, frequency, the
 * synthesized check); then masks, the value range, and the report.
 */

#include <cjson/cJSON.h>
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

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

/* ---------------------------------------------------- a small task pool */

typedef struct fit_pool fit_pool;
typedef void (*task_fn)(fit_pool *pool, size_t task);

struct fit_pool {
    pthread_mutex_t lock;
    pthread_cond_t changed;
    size_t next_task, task_count;
    size_t steps_done; /* progress steps finished, all phases */
    unsigned running;  /* worker threads not yet finished */
    task_fn run;
    layer_job *jobs;
    const fit_layer_data *layers; /* for the mask phase */
};

static void pool_step_done(fit_pool *pool)
{
    pthread_mutex_lock(&pool->lock);
    pool->steps_done++;
    pthread_cond_signal(&pool->changed);
    pthread_mutex_unlock(&pool->lock);
}

static void *pool_worker(void *arg)
{
    fit_pool *pool = arg;
    for (;;) {
        pthread_mutex_lock(&pool->lock);
        size_t task = pool->next_task < pool->task_count ? pool->next_task++ : (size_t)-1;
        pthread_mutex_unlock(&pool->lock);
        if (task == (size_t)-1)
            break;
        pool->run(pool, task);
    }
    pthread_mutex_lock(&pool->lock);
    pool->running--;
    pthread_cond_signal(&pool->changed);
    pthread_mutex_unlock(&pool->lock);
    return NULL;
}

/* Run `count` tasks on up to `threads` workers while the calling thread
 * reports progress (steps done of `total`). Tasks are independent, so the
 * result does not depend on the schedule. */
static void pool_run(fit_pool *pool, task_fn run, size_t count, unsigned threads, size_t total,
                     tf_progress_fn progress, void *user)
{
    pool->run = run;
    pool->next_task = 0;
    pool->task_count = count;
    if (threads > count)
        threads = (unsigned)count;
    pthread_t tid[TF_MAX_LAYERS];
    unsigned started = 0;
    pthread_mutex_lock(&pool->lock);
    pool->running = 0;
    pthread_mutex_unlock(&pool->lock);
    for (; started < threads; started++) {
        pthread_mutex_lock(&pool->lock);
        pool->running++;
        pthread_mutex_unlock(&pool->lock);
        if (pthread_create(&tid[started], NULL, pool_worker, pool) != 0) {
            pthread_mutex_lock(&pool->lock);
            pool->running--;
            pthread_mutex_unlock(&pool->lock);
            break;
        }
    }
    if (started == 0) { /* no thread could start: do the work here */
        pthread_mutex_lock(&pool->lock);
        pool->running = 1;
        pthread_mutex_unlock(&pool->lock);
        pool_worker(pool);
        if (progress)
            progress(user, pool->steps_done, total);
        return;
    }
    size_t reported = (size_t)-1;
    pthread_mutex_lock(&pool->lock);
    for (;;) {
        size_t done = pool->steps_done;
        unsigned running = pool->running;
        if (done != reported && progress) {
            pthread_mutex_unlock(&pool->lock);
            progress(user, done, total);
            reported = done;
            pthread_mutex_lock(&pool->lock);
            continue; /* look again: more may have finished meanwhile */
        }
        if (running == 0)
            break;
        pthread_cond_wait(&pool->changed, &pool->lock);
    }
    pthread_mutex_unlock(&pool->lock);
    for (unsigned t = 0; t < started; t++)
        pthread_join(tid[t], NULL);
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

/* ------------------------------------------------------------- checking */

static const char *layer_label(const tf_fit_options *opt, size_t i, char *buf, size_t size)
{
    if (opt->names && opt->names[i])
        return opt->names[i];
    snprintf(buf, size, "layer %zu", i);
    return buf;
}

static int check_inputs(const tf_layer_map *const *layers, size_t count,
                        const tf_fit_options *opt, char (*labels)[32], tf_error *err)
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
    if ((unsigned)opt->noise >= TF_NOISE_KIND_COUNT) {
        tf_error_set(err, TF_ERR_ARGUMENT, "fit: unknown noise type %d", (int)opt->noise);
        return -1;
    }
    if ((unsigned)opt->fractal >= TF_FRACTAL_KIND_COUNT) {
        tf_error_set(err, TF_ERR_ARGUMENT, "fit: unknown fractal kind %d", (int)opt->fractal);
        return -1;
    }
    for (size_t i = 0; i < TF_MAX_LAYERS; i++) {
        unsigned ln = opt->layer_noise[i], lf = opt->layer_fractal[i];
        if ((ln > TF_NOISE_KIND_COUNT && ln != TF_FIT_LAYER_NOISE_AUTO) ||
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
    const char *first = layer_label(opt, 0, labels[0], sizeof labels[0]);
    for (size_t i = 0; i < count; i++) {
        const tf_layer_map *m = layers[i];
        const char *name = layer_label(opt, i, labels[i], sizeof labels[i]);
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

/* ------------------------------------------------------------ the spec */

/* minValue / maxValue: the range of the combined reference
 * sum_i (value_i - 0.5) over the cells where any layer is visible, which is
 * what the spec's layers sum to with preAmpShift -0.5 and ampScale 1. */
static void combined_range(const tf_layer_map *const *layers, size_t count, double *lo,
                           double *hi)
{
    size_t cells = layers[0]->width * layers[0]->height;
    double mn = HUGE_VAL, mx = -HUGE_VAL;
    for (size_t k = 0; k < cells; k++) {
        double sum = 0.0;
        int seen = 0;
        for (size_t i = 0; i < count; i++) {
            if (layers[i]->weight[k] > 0.0f) {
                sum += (double)layers[i]->value[k] - 0.5;
                seen = 1;
            }
        }
        if (!seen)
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
    const char *name = layer_label(opt, 0, labels[0], sizeof labels[0]);
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
    if (check_inputs(layers, count, opt, labels, err) != 0) {
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

    /* The base-noise sample, built here (once per process) so its cost is
     * reported on its own rather than inside one layer's timing. */
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
        job->label = layer_label(opt, i, labels[i], sizeof labels[i]);
        job->index = i;
        job->rep = &report.layers[i];
        job->rep->name = opt->names ? opt->names[i] : NULL;
        job->rep->mask_layer = -1;
    }

    fit_pool pool;
    memset(&pool, 0, sizeof pool);
    pthread_mutex_init(&pool.lock, NULL);
    pthread_cond_init(&pool.changed, NULL);
    pool.jobs = jobs;
    unsigned threads = opt->threads ? opt->threads : tf_cpu_count();
    size_t total = STEPS_PER_LAYER * count;
    pool_run(&pool, task_analyze, count, threads, total, progress, user);
    int failed = -1;
    for (size_t i = 0; i < count && failed < 0; i++)
        if (jobs[i].failed)
            failed = (int)i;
    if (failed < 0) {
        for (size_t i = 0; i < count; i++)
            data[i] = jobs[i].data;
        pool.layers = data;
        pool_run(&pool, task_mask, count, threads, total, progress, user);
        for (size_t i = 0; i < count && failed < 0; i++)
            if (jobs[i].failed)
                failed = (int)i;
    }
    pthread_cond_destroy(&pool.changed);
    pthread_mutex_destroy(&pool.lock);
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

/* A number, or null where it has none (JSON has no NaN). */
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
    if (r->mask_layer >= 0)
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
                          add_number(oc, "chi2After", report->output_chi2_after);
        bad |= add_number(root, "calibrationRms", report->calibration_rms);
    }
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
            add_number(secs, "total", report->seconds_total))
            goto nomem;
        if (report->auto_layered &&
            (add_number(secs, "bands", report->seconds_bands) ||
             add_number(secs, "noiseAuto", report->seconds_noise_auto) ||
             add_number(secs, "calibration", report->seconds_calibration) ||
             add_number(secs, "outputCurve", report->seconds_output_curve)))
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
