/*
 * --noise auto on the bands of an auto-layered fit: each candidate noise
 * scored by the whole terrain it gives (autolayer_noise_auto, called by
 * fit_autolayer in autolayer.c, whose stages it repeats per trial).
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/autolayer_internal.h"
#include "analysis/fit_internal.h"
#include "analysis/metrics_internal.h"
#include "base/error.h"
#include "util/util.h"
#include "terrafit/terrafit.h"

/* --noise auto on the bands (docs/fitting.md, "--noise auto on the
 * bands"). The bands' amplitudes are calibrated jointly and the output
 * curve maps their sum, so a band's layer alone says little about the
 * terrain it makes (measured: noises chosen by scoring each band's layer
 * against its band made the whole terrain worse on the very figures
 * scored). A candidate is therefore scored by the whole terrain it gives:
 * every band fitted for its noise exactly as fit_autolayer does, the
 * amplitudes calibrated, the output curve built, the terrain synthesized
 * on the reference's window at the synthesis origin and compared with the
 * reference by compare's slope chi-square + spectrum log-RMS (both mapped
 * to [0, 1] over the reference's range). Bands are tried one at a time,
 * the finest first, the others at their current noise (coordinate descent
 * from the options' noises). Layer renders and spectra are cached by
 * (noise, frequency), so a trial re-renders only what it changes. */

typedef struct {
    tf_noise_type noise;
    double frequency, step;
    int valid;
    double *values; /* r_k = RD_k(u) on a window of the key's step */
} layer_render;

typedef struct {
    autolayer_ctx *c;
    band_shared sh;
    size_t w, h, cells, count;
    band_values bv[TF_FIT_MAX_BANDS];
    band_job base[TF_FIT_MAX_BANDS]; /* the noise-independent fit: mask curve, moments */
    /* Band k's redistribution curve for noise n (its points and
     * chi-square), built on first use: it does not depend on the other
     * bands. */
    tf_point *rd[TF_FIT_MAX_BANDS][TF_NOISE_TYPE_COUNT];
    size_t rd_count[TF_FIT_MAX_BANDS][TF_NOISE_TYPE_COUNT];
    double rd_chi2[TF_FIT_MAX_BANDS][TF_NOISE_TYPE_COUNT];
    layer_render raw[TF_FIT_MAX_BANDS];    /* on the reference's window */
    layer_render sample[TF_FIT_MAX_BANDS]; /* on the output curve's sample window */
    /* Layer k's spectrum at amplitude 1, its mask over layer 0's value
     * included (the calibration's), keyed by the noise and frequency of
     * layer k and of layer 0. */
    tf_radial_spectrum spectrum[TF_FIT_MAX_BANDS];
    int spectrum_valid[TF_FIT_MAX_BANDS];
    tf_noise_type spectrum_noise[TF_FIT_MAX_BANDS][2];
    double spectrum_freq[TF_FIT_MAX_BANDS][2];
    double *values;
    float *sums, *terrain, *slope, *slope_weight;
    unsigned char *ok;
    /* The reference: sorted values (output curve), range, and its [0, 1]
     * map's slopes and spectrum (the score). */
    float *ref_sorted;
    size_t nref;
    double lo, hi;
    float *ref_unit, *ref_slope;
    double ref_q99;
    tf_radial_spectrum ref_unit_spectrum;
} terrain_trials;

static void terrain_trials_free(terrain_trials *t)
{
    for (size_t k = 0; k < TF_FIT_MAX_BANDS; k++) {
        autolayer_band_values_free(&t->bv[k]);
        for (size_t n = 0; n < TF_NOISE_TYPE_COUNT; n++)
            free(t->rd[k][n]);
        free(t->raw[k].values);
        free(t->sample[k].values);
        if (t->spectrum_valid[k])
            tf_radial_spectrum_free(&t->spectrum[k]);
    }
    free(t->values);
    free(t->sums);
    free(t->terrain);
    free(t->slope);
    free(t->slope_weight);
    free(t->ok);
    free(t->ref_sorted);
    free(t->ref_unit);
    free(t->ref_slope);
    tf_radial_spectrum_free(&t->ref_unit_spectrum);
}

static void base_fit_range(void *ctx, size_t lo, size_t hi)
{
    terrain_trials *t = ctx;
    for (size_t k = lo; k < hi; k++)
        if (autolayer_band_demodulate(&t->sh, k, &t->base[k], &t->bv[k]) != 0)
            t->base[k].failed = 1;
}

static int terrain_trials_init(autolayer_ctx *c, terrain_trials *t)
{
    memset(t, 0, sizeof *t);
    t->c = c;
    autolayer_band_shared_init(c, &t->sh);
    t->w = c->map->width;
    t->h = c->map->height;
    t->cells = c->cells;
    t->count = c->bands.count;
    tf_parallel_for(t->count, c->opt->threads, base_fit_range, t);
    for (size_t k = 0; k < t->count; k++) {
        if (t->base[k].failed) {
            tf_error_set(c->err, t->base[k].err.code ? t->base[k].err.code : TF_ERR_INVALID,
                         "%s: band %zu: %s", c->label, k, t->base[k].err.message);
            return -1;
        }
    }
    size_t n = t->cells, m = AUTOLAYER_OUTPUT_SAMPLE_SIDE;
    t->values = malloc((n > m * m ? n : m * m) * sizeof *t->values);
    t->sums = malloc(m * m * sizeof *t->sums);
    t->terrain = malloc(n * sizeof *t->terrain);
    t->slope = malloc(n * sizeof *t->slope);
    t->slope_weight = malloc(n * sizeof *t->slope_weight);
    t->ok = malloc(n);
    t->ref_unit = malloc(n * sizeof *t->ref_unit);
    t->ref_slope = malloc(n * sizeof *t->ref_slope);
    tf_error e;
    if (!t->values || !t->sums || !t->terrain || !t->slope || !t->slope_weight || !t->ok ||
        !t->ref_unit || !t->ref_slope)
        return autolayer_fail_nomem(c);
    size_t nref = tf_sorted_values(c->map->value, c->map->weight, n, &t->ref_sorted, &e);
    if (nref == (size_t)-1 || nref == 0)
        return autolayer_fail_nomem(c);
    t->nref = nref;
    t->lo = t->ref_sorted[0];
    t->hi = t->ref_sorted[nref - 1];
    double span = t->hi > t->lo ? t->hi - t->lo : 1.0;
    for (size_t i = 0; i < n; i++) {
        t->ok[i] = c->map->weight[i] > 0.0f;
        double v = t->ok[i] ? ((double)c->map->value[i] - t->lo) / span : 0.5;
        t->ref_unit[i] = (float)(v < 0.0 ? 0.0 : v > 1.0 ? 1.0 : v);
    }
    /* slopes as `terrafit compare` measures them (docs/metrics.md) */
    metrics_grid ref_grid = {t->w, t->h, t->ref_unit, c->map->weight, t->ok};
    metrics_slope_map(&ref_grid, 1.0, t->ref_slope, t->slope_weight);
    if (autolayer_slope_q99(t->ref_slope, t->slope_weight, n, &t->ref_q99) != 0 ||
        tf_radial_spectrum_compute(t->ref_unit, c->map->weight, t->w, t->h,
                                   &t->ref_unit_spectrum, &e) != 0)
        return autolayer_fail_nomem(c);
    return 0;
}

/* Layer k with `noise` at frequency f: r = RD(u) (TF_STAGE_REDISTRIBUTED)
 * on a window at the synthesis origin, `step` apart, into lr (w x h)
 * unless it already holds exactly that. */
static int render_layer(terrain_trials *t, layer_render *lr, size_t k, tf_noise_type noise,
                        double f, double step, size_t w, size_t h)
{
    if (lr->valid && lr->noise == noise && lr->frequency == f && lr->step == step)
        return 0;
    if (!lr->values && !(lr->values = malloc(w * h * sizeof *lr->values)))
        return autolayer_fail_nomem(t->c);
    lr->valid = 0;
    tf_layer_spec kind = t->c->kind[k];
    kind.noise_type = noise;
    tf_terrain *layer = fit_layer_terrain(&kind, &t->c->spec->layers[k], f, t->rd[k][noise],
                                          t->rd_count[k][noise], t->c->err);
    int rc = layer ? fit_render_stage(layer, TF_STAGE_REDISTRIBUTED, 0, step, w, h,
                                      t->c->opt->threads, lr->values, t->c->err)
                   : -1;
    tf_terrain_free(layer);
    if (rc != 0)
        return -1;
    lr->noise = noise;
    lr->frequency = f;
    lr->step = step;
    lr->valid = 1;
    return 0;
}

/* The terrain a trial scores, compiled by the runtime: every band's layer
 * with its noise, frequency, curve and mask curve over layer 0, the
 * amplitudes `amp` (NULL: 1) and the output curve `oc` (NULL: none). NULL
 * on failure (c->err filled). */
static tf_terrain *trial_terrain(terrain_trials *t, const tf_noise_type *noise,
                                 const double *freq, const double *amp, const tf_point *oc,
                                 size_t oc_count)
{
    autolayer_ctx *c = t->c;
    tf_spec *spec = tf_spec_copy(c->spec, c->err);
    int rc = spec ? 0 : -1;
    for (size_t k = 0; k < t->count && rc == 0; k++) {
        tf_layer_spec *ls = &spec->layers[k];
        tf_fractal_set_defaults(ls, c->kind[k].fractal_kind);
        ls->noise_type = noise[k];
        ls->frequency = freq[k];
        ls->rd_interpolation = TF_INTERP_MONOTONE_CUBIC;
        ls->pre_amp_shift = 0.0;
        ls->amp_scale = amp ? amp[k] : 1.0;
        const band_job *base = &t->base[k];
        rc = tf_spec_set_rd_points(spec, k, t->rd[k][noise[k]], t->rd_count[k][noise[k]],
                                   c->err);
        if (rc == 0 && base->mask_count >= 2)
            rc = tf_spec_set_mask_curve(spec, k, 0, base->mask, base->mask_count,
                                        TF_INTERP_MONOTONE_CUBIC, c->err);
    }
    if (rc == 0 && oc)
        rc = tf_spec_set_output_curve(spec, oc, oc_count, TF_INTERP_MONOTONE_CUBIC, c->err);
    tf_terrain *terrain = rc == 0 ? tf_terrain_compile(spec, c->err) : NULL;
    tf_spec_free(spec);
    return terrain;
}

/* The layers' cached windows (raw or sample), as tf_terrain_combine
 * reads them. */
static void window_rows(const layer_render *lr, size_t count, const double **rows)
{
    for (size_t k = 0; k < count; k++)
        rows[k] = lr[k].values;
}

/* Band k's curve for `noise` (built once; autolayer_band_curve at
 * frequency f).
 * 0, 1 when the curve cannot be built for this noise (the candidate
 * fails), -1 out of memory. */
static int band_curve_for(terrain_trials *t, size_t k, tf_noise_type noise, double f)
{
    if (t->rd[k][noise])
        return 0;
    autolayer_ctx *c = t->c;
    tf_layer_spec kind = c->kind[k];
    kind.noise_type = noise;
    double u_mean, u_sd;
    tf_error e;
    if (autolayer_kind_prepare(&kind, &u_mean, &u_sd, &e) != 0) {
        tf_error_set(c->err, e.code, "%s: band %zu: %s", c->label, k, e.message);
        return -1;
    }
    band_job job = t->base[k];
    job.rd = NULL;
    job.frequency = f;
    int rc = autolayer_band_curve(&t->sh, k, &t->bv[k], &kind, u_mean, u_sd, &job) != 0 ? 1 : 0;
    /* a curve the runtime would refuse fails the candidate, not the fit */
    tf_curve *check = rc == 0 ? tf_curve_new(job.rd, job.rd_count, TF_INTERP_MONOTONE_CUBIC, &e)
                              : NULL;
    if (rc == 0 && !check)
        rc = e.code == TF_ERR_NOMEM ? autolayer_fail_nomem(c) : 1;
    tf_curve_free(check);
    if (rc == 0) {
        t->rd[k][noise] = job.rd; /* kept: the trials' curve of this band and noise */
        t->rd_count[k][noise] = job.rd_count;
        t->rd_chi2[k][noise] = job.chi2;
        return 0;
    }
    if (rc == 1 && job.err.code == TF_ERR_NOMEM)
        rc = autolayer_fail_nomem(c);
    free(job.rd);
    return rc;
}

/* The terrain the bands' noises noise[] give, scored into *cand (its
 * frequency, chi2, slope chi-square, spectrum distance, score and
 * drainage figures are band k's candidate's). 0 scored, 1 the candidate
 * fails (NaN score), -1 error (c->err filled). */
static int terrain_trial(terrain_trials *t, const tf_noise_type *noise, size_t k_tried,
                         tf_fit_noise_candidate *cand)
{
    autolayer_ctx *c = t->c;
    size_t count = t->count, w = t->w, h = t->h, n = t->cells, m = AUTOLAYER_OUTPUT_SAMPLE_SIDE;
    double freq[TF_FIT_MAX_BANDS] = {0.0}, finer = NAN;
    for (size_t k = count; k-- > 0;) {
        tf_frequency_estimate est;
        memset(&est, 0, sizeof est);
        int estimated;
        finer = freq[k] = autolayer_band_frequency(c, k, noise[k], finer, &est, &estimated);
    }
    cand->frequency = freq[k_tried];
    for (size_t k = 0; k < count; k++) {
        int rc = band_curve_for(t, k, noise[k], freq[k]);
        if (rc != 0)
            return rc;
        if (render_layer(t, &t->raw[k], k, noise[k], freq[k], 1.0, w, h) != 0)
            return -1;
    }
    cand->chi2 = t->rd_chi2[k_tried][noise[k_tried]];

    /* The calibration (autolayer.c's stage_calibration): each layer's spectrum at
     * amplitude 1, its mask over layer 0's value included. */
    const double *rows[TF_FIT_MAX_BANDS];
    int wanted[TF_FIT_MAX_BANDS], any = 0;
    for (size_t k = 0; k < count; k++) {
        wanted[k] = !(t->spectrum_valid[k] && t->spectrum_noise[k][0] == noise[k] &&
                      t->spectrum_freq[k][0] == freq[k] && t->spectrum_noise[k][1] == noise[0] &&
                      t->spectrum_freq[k][1] == freq[0]);
        any |= wanted[k];
        if (wanted[k] && t->spectrum_valid[k])
            tf_radial_spectrum_free(&t->spectrum[k]);
        if (wanted[k])
            t->spectrum_valid[k] = 0;
    }
    tf_terrain *terrain = NULL;
    if (any) {
        /* the raw windows are the calibration's first window */
        window_rows(t->raw, count, rows);
        if (!(terrain = trial_terrain(t, noise, freq, NULL, NULL, 0)) ||
            autolayer_calibration_spectra(c, terrain, wanted, rows, t->spectrum) != 0) {
            tf_terrain_free(terrain);
            return -1;
        }
        tf_terrain_free(terrain);
    }
    for (size_t k = 0; k < count; k++) {
        if (!wanted[k])
            continue;
        t->spectrum_valid[k] = 1;
        t->spectrum_noise[k][0] = noise[k];
        t->spectrum_freq[k][0] = freq[k];
        t->spectrum_noise[k][1] = noise[0];
        t->spectrum_freq[k][1] = freq[0];
    }
    double amp[TF_FIT_MAX_BANDS], calibration_rms;
    if (autolayer_calibrate_amplitudes(t->spectrum, &c->ref_spectrum, count, amp,
                                       &calibration_rms, c->err) != 0)
        return -1;

    /* The output curve (autolayer.c's stage_output_curve): the layer sum on the sample
     * window. */
    double step = autolayer_sample_window_step(freq[0]);
    for (size_t k = 0; k < count; k++)
        if (render_layer(t, &t->sample[k], k, noise[k], freq[k], step, m, m) != 0)
            return -1;
    window_rows(t->sample, count, rows);
    if (!(terrain = trial_terrain(t, noise, freq, amp, NULL, 0)) ||
        fit_combine(terrain, TF_STAGE_SUM, 0, rows, m * m, c->opt->threads, t->values,
                    c->err) != 0) {
        tf_terrain_free(terrain);
        return -1;
    }
    tf_terrain_free(terrain);
    for (size_t i = 0; i < m * m; i++)
        t->sums[i] = (float)t->values[i];
    float *sum_sorted = NULL;
    tf_error e;
    size_t nsum = tf_sorted_values(t->sums, NULL, m * m, &sum_sorted, &e);
    tf_point *pts = malloc(c->opt->points * sizeof *pts);
    if (nsum == (size_t)-1 || !pts) {
        free(sum_sorted);
        free(pts);
        return autolayer_fail_nomem(c);
    }
    size_t mo = nsum >= 2 ? autolayer_output_curve_points(sum_sorted, nsum, t->ref_sorted,
                                                          t->nref, c->opt->points, pts)
                          : 0;
    free(sum_sorted);
    tf_curve *check = NULL;
    if (mo >= 2 && !(check = tf_curve_new(pts, mo, TF_INTERP_MONOTONE_CUBIC, &e))) {
        free(pts);
        return e.code == TF_ERR_NOMEM ? autolayer_fail_nomem(c) : 1;
    }
    tf_curve_free(check);

    /* The terrain on the reference's window, as the runtime renders it,
     * mapped to [0, 1] over the reference's range; invisible cells hold
     * compare's placeholder. */
    window_rows(t->raw, count, rows);
    terrain = trial_terrain(t, noise, freq, amp, mo >= 2 ? pts : NULL, mo);
    free(pts);
    if (!terrain ||
        fit_combine(terrain, TF_STAGE_HEIGHT, 0, rows, n, c->opt->threads, t->values, c->err) != 0) {
        tf_terrain_free(terrain);
        return -1;
    }
    tf_terrain_free(terrain);
    double span = t->hi > t->lo ? t->hi - t->lo : 1.0;
    for (size_t i = 0; i < n; i++) {
        double v = (t->values[i] - t->lo) / span;
        t->terrain[i] = !t->ok[i] ? 0.5f : (float)(v < 0.0 ? 0.0 : v > 1.0 ? 1.0 : v);
    }

    /* The score: compare's slope chi-square and spectrum distance. */
    metrics_grid terrain_grid = {w, h, t->terrain, c->map->weight, t->ok};
    metrics_slope_map(&terrain_grid, 1.0, t->slope, t->slope_weight);
    double q99;
    tf_radial_spectrum sp;
    if (autolayer_slope_q99(t->slope, t->slope_weight, n, &q99) != 0 ||
        tf_radial_spectrum_compute(t->terrain, c->map->weight, w, h, &sp, &e) != 0)
        return autolayer_fail_nomem(c);
    cand->spectrum_log_rms = metrics_spectrum_log_rms(&t->ref_unit_spectrum, &sp);
    tf_radial_spectrum_free(&sp);
    if (!isnan(t->ref_q99)) {
        double range = fmax(t->ref_q99, q99), top = range > 0.0 ? range : 1.0;
        double a[TF_METRICS_HISTOGRAM_BINS], b[TF_METRICS_HISTOGRAM_BINS];
        tf_histogram(t->ref_slope, t->slope_weight, n, 0.0, top, TF_METRICS_HISTOGRAM_BINS, a);
        tf_histogram(t->slope, t->slope_weight, n, 0.0, top, TF_METRICS_HISTOGRAM_BINS, b);
        cand->slope_chi2 = tf_chi2_distance(a, b, TF_METRICS_HISTOGRAM_BINS);
    }
    cand->score = cand->slope_chi2 + cand->spectrum_log_rms;
    /* Drainage, reported only (docs/metrics.md). */
    double peak_density;
    metrics_extrema(&terrain_grid, &peak_density, &cand->pit_peak_ratio);
    if (metrics_depression_share(&terrain_grid, &cand->depression_share, &e) != 0)
        return autolayer_fail_nomem(c);
    return 0;
}

/* The coordinate descent over the bands that try the candidates; each
 * band's candidates are listed in its report, and c->kind holds the
 * chosen noises. A band whose de-modulated values are flat is the same
 * constant whatever its noise: it does not try. */
int autolayer_noise_auto(autolayer_ctx *c, fit_progress *progress)
{
    terrain_trials t;
    int rc = terrain_trials_init(c, &t);
    tf_noise_type noise[TF_FIT_MAX_BANDS];
    for (size_t k = 0; k < t.count; k++)
        noise[k] = c->kind[k].noise_type;
    for (size_t k = t.count; rc == 0 && k-- > 0;) {
        if (!c->try_auto[k])
            continue;
        tf_fit_layer_report *rep = &c->report->layers[k];
        if (t.base[k].flat) {
            for (int i = 0; i < TF_FIT_AUTO_CANDIDATES; i++)
                autolayer_progress_step(progress);
            continue;
        }
        if (!(rep->noise_candidates =
                  calloc(TF_FIT_AUTO_CANDIDATES, sizeof *rep->noise_candidates))) {
            rc = autolayer_fail_nomem(c);
            break;
        }
        rep->noise_candidate_count = TF_FIT_AUTO_CANDIDATES;
        int best = -1;
        for (int i = 0; i < TF_FIT_AUTO_CANDIDATES && rc == 0; i++) {
            tf_fit_noise_candidate *cand = &rep->noise_candidates[i];
            cand->noise = tf_fit_auto_candidates[i];
            cand->frequency = cand->chi2 = cand->slope_chi2 = cand->spectrum_log_rms = NAN;
            cand->score = cand->depression_share = cand->pit_peak_ratio = NAN;
            tf_noise_type tried[TF_FIT_MAX_BANDS];
            memcpy(tried, noise, sizeof tried);
            tried[k] = cand->noise;
            if (terrain_trial(&t, tried, k, cand) < 0) {
                rc = -1;
                break;
            }
            if (isfinite(cand->score) &&
                (best < 0 || cand->score < rep->noise_candidates[best].score))
                best = i;
            autolayer_progress_step(progress);
        }
        if (best >= 0)
            noise[k] = tf_fit_auto_candidates[best];
    }
    terrain_trials_free(&t);
    for (size_t k = 0; rc == 0 && k < c->bands.count; k++) {
        c->kind[k].noise_type = noise[k];
        if (autolayer_kind_prepare(&c->kind[k], &c->u_mean[k], &c->u_sd[k], c->err) != 0)
            rc = -1;
    }
    return rc;
}
