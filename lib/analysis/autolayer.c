/*
 * Auto-layering: one fully present reference (a DEM) fitted as a stack of
 * octave-band layers: frequency by spectral-centroid matching, amplitudes
 * calibrated jointly on the radial spectrum, learned mask curves over the
 * coarse elevation, and an output curve; with --noise auto, each band's
 * noise chosen by trials of the whole terrain. docs/fitting.md has every
 * formula. The spectral parts (the noise's spectrum, frequency matching,
 * the amplitude calibration) are in autolayer_spectrum.c, the --noise auto
 * trials in autolayer_trials.c; what they share with this file is in
 * autolayer_internal.h.
 */

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/autolayer_internal.h"
#include "analysis/fit_internal.h"
#include "base/error.h"
#include "util/util.h"
#include "terrafit/terrafit.h"

/* The sample window of one layer (its chi-square): points per side. */
#define BAND_CHI2_SIDE 256
/* Lattice units between the points of a sample window of a low-frequency
 * layer: 1/8 of the golden ratio, so the points fall evenly over the cells
 * (Weyl) and the window spans many features. */
#define SAMPLE_LATTICE_STEP (FIT_GOLDEN_RATIO / 8.0)
/* A band whose de-modulated values have excess kurtosis above this is
 * heavy-tailed (a Laplace distribution has 3). */
#define HEAVY_TAIL_KURTOSIS 3.0
/* Smallest mask-curve weight, relative to the band's RMS. */
#define MASK_WEIGHT_FLOOR 0.05
/* The amplitude calibration averages each layer's spectrum over windows
 * of the reference's size until they hold this many cells, and over at
 * most CALIBRATION_WINDOWS_MAX windows (autolayer_calibration_spectra). */
#define CALIBRATION_CELLS ((size_t)1 << 20)
#define CALIBRATION_WINDOWS_MAX 8
/* The slope match (stage_slope_match): the tilt's range, the tolerance on
 * |ln(mean slope / the reference's)|, the secant steps, and the least
 * elasticity worth tilting for (below it the coarsest layer carries the
 * slope). */
#define SLOPE_TILT_MIN 0.125
#define SLOPE_TILT_MAX 2.0
#define SLOPE_TOLERANCE 0.01
#define SLOPE_ITERATIONS 8
#define SLOPE_ELASTICITY_MIN 0.25

/* The step between a sample window's points, in samples, for a layer of
 * frequency f: SAMPLE_LATTICE_STEP lattice units, but at least 1. */
double autolayer_sample_window_step(double f)
{
    return SAMPLE_LATTICE_STEP / f > 1.0 ? SAMPLE_LATTICE_STEP / f : 1.0;
}

int autolayer_fully_present(const tf_layer_map *map)
{
    size_t cells = map->width * map->height, visible = 0;
    for (size_t k = 0; k < cells; k++) {
        if (map->weight[k] != 0.0f && map->weight[k] != 1.0f)
            return 0;
        visible += map->weight[k] > 0.0f;
    }
    return visible > 0;
}

/* ------------------------------------------------------ per-band fits */

/* The learned mask curve of band k (docs/fitting.md, "Partial masks"):
 * per equal-count bin of the coarse elevation, the band's RMS over the
 * bin relative to its global RMS, so that mean(w^2) = 1 and weight times
 * de-modulated values keep the band's RMS. */
static void learn_mask_curve(const band_shared *sh, size_t k, band_job *job)
{
    const double *band = sh->bands->band[k];
    size_t cells = sh->map->width * sh->map->height;
    double sum2[TF_FIT_MASK_CURVE_BINS] = {0.0};
    size_t n[TF_FIT_MASK_CURVE_BINS] = {0};
    for (size_t c = 0; c < cells; c++) {
        if (!(sh->map->weight[c] > 0.0f))
            continue;
        unsigned b = sh->bin_of[c];
        sum2[b] += band[c] * band[c];
        n[b]++;
    }
    job->mask_count = 0;
    if (!(job->rms > 0.0))
        return;
    double run_sum = 0.0;
    size_t run = 0;
    for (size_t b = 0; b < sh->bin_count; b++) {
        if (n[b] == 0)
            continue;
        double w = sqrt(sum2[b] / (double)n[b]) / job->rms;
        if (w < MASK_WEIGHT_FLOOR)
            w = MASK_WEIGHT_FLOOR;
        /* Bins with the same centre (a coarse plateau) merge: the mean
         * weight of the run. */
        if (job->mask_count > 0 && !(sh->bin_x[b] > job->mask[job->mask_count - 1].x)) {
            run_sum += w;
            run++;
            job->mask[job->mask_count - 1].y = run_sum / (double)run;
            continue;
        }
        job->mask[job->mask_count].x = sh->bin_x[b];
        job->mask[job->mask_count].y = w;
        job->mask_count++;
        run_sum = w;
        run = 1;
    }
    if (job->mask_count < 2)
        job->mask_count = 0;
}

/* The chi-square of the layer synthesized alone (its noise, as `kind`
 * gives it, through its curve, before amplitude and mask) against the
 * values its curve was equalized to, on a window far from the reference. */
static double band_chi2(const band_shared *sh, size_t k, const tf_layer_spec *kind,
                        const band_job *job, const float *values, size_t cells)
{
    double f = job->frequency, step = autolayer_sample_window_step(f);
    size_t m = BAND_CHI2_SIDE;
    float *syn = malloc(m * m * sizeof *syn);
    double *r = malloc(m * m * sizeof *r);
    tf_terrain *t = syn && r ? fit_layer_terrain(kind, &sh->spec->layers[k], f, job->rd,
                                                 job->rd_count, NULL)
                             : NULL;
    if (!t || tf_terrain_sample_stage_window(t, TF_STAGE_REDISTRIBUTED, 0, TF_FIT_SYNTHESIS_OFFSET,
                                             TF_FIT_SYNTHESIS_OFFSET, step, 0, 0, m, m, r,
                                             NULL) != 0) {
        tf_terrain_free(t);
        free(syn);
        free(r);
        return NAN;
    }
    tf_terrain_free(t);
    for (size_t i = 0; i < m * m; i++)
        syn[i] = (float)r[i];
    free(r);
    double lo = job->value_min, hi = job->value_max;
    if (!(hi > lo)) {
        lo -= 0.5;
        hi += 0.5;
    }
    double a[TF_FIT_CHI2_BINS], b[TF_FIT_CHI2_BINS];
    tf_histogram(values, sh->map->weight, cells, lo, hi, TF_FIT_CHI2_BINS, a);
    tf_histogram(syn, NULL, m * m, lo, hi, TF_FIT_CHI2_BINS, b);
    free(syn);
    return tf_chi2_distance(a, b, TF_FIT_CHI2_BINS);
}

void autolayer_band_values_free(band_values *bv)
{
    free(bv->demod);
    free(bv->sorted);
    memset(bv, 0, sizeof *bv);
}

/* The noise-independent part of a band's fit: its moments, mask curve,
 * de-modulated values and their kurtosis and range (into *job). */
int autolayer_band_demodulate(const band_shared *sh, size_t k, band_job *job, band_values *bv)
{
    const tf_layer_map *map = sh->map;
    const double *band = sh->bands->band[k];
    size_t cells = map->width * map->height;
    memset(bv, 0, sizeof *bv);
    double s1 = 0.0, s2 = 0.0;
    size_t n = 0;
    for (size_t c = 0; c < cells; c++)
        if (map->weight[c] > 0.0f) {
            s1 += band[c];
            s2 += band[c] * band[c];
            n++;
        }
    job->mean = s1 / (double)n;
    job->var = s2 / (double)n - job->mean * job->mean;
    if (job->var < 0.0)
        job->var = 0.0;
    job->rms = k == 0 ? sqrt(job->var) : sqrt(s2 / (double)n);
    if (k > 0)
        learn_mask_curve(sh, k, job);

    /* De-modulate: band / w(coarse), the values the layer's curve must
     * reproduce so that weight x redistributed noise gives the band. */
    tf_curve *mask = NULL;
    tf_error err;
    if (job->mask_count >= 2 &&
        !(mask = tf_curve_new(job->mask, job->mask_count, TF_INTERP_MONOTONE_CUBIC, &err))) {
        job->err = err;
        return -1;
    }
    float *demod = malloc(cells * sizeof *demod);
    if (!demod) {
        tf_curve_free(mask);
        tf_error_set(&job->err, TF_ERR_NOMEM, "band %zu: out of memory", k);
        return -1;
    }
    const double *coarse = sh->bands->band[0];
    double m1 = 0.0, m2 = 0.0;
    for (size_t c = 0; c < cells; c++) {
        double d = 0.0;
        if (map->weight[c] > 0.0f) {
            d = band[c];
            if (mask) {
                double w = tf_curve_eval(mask, coarse[c]);
                d /= w > MASK_WEIGHT_FLOOR ? w : MASK_WEIGHT_FLOOR;
            }
            m1 += d;
        }
        demod[c] = (float)d;
    }
    tf_curve_free(mask);
    m1 /= (double)n;
    double m4 = 0.0;
    for (size_t c = 0; c < cells; c++)
        if (map->weight[c] > 0.0f) {
            double e = (double)demod[c] - m1, e2 = e * e;
            m2 += e2;
            m4 += e2 * e2;
        }
    m2 /= (double)n;
    m4 /= (double)n;
    job->kurtosis = m2 > 0.0 ? m4 / (m2 * m2) - 3.0 : 0.0;

    float *sorted = NULL;
    size_t ns = tf_sorted_values(demod, map->weight, cells, &sorted, &err);
    if (ns == (size_t)-1 || ns == 0) {
        free(demod);
        if (ns == 0)
            tf_error_set(&err, TF_ERR_INVALID, "band %zu: no visible value", k);
        job->err = err;
        return -1;
    }
    job->value_min = sorted[0];
    job->value_max = sorted[ns - 1];
    job->flat = sorted[0] == sorted[ns - 1];
    bv->demod = demod;
    bv->sorted = sorted;
    bv->n = ns;
    bv->mean = m1;
    bv->var = m2;
    return 0;
}

/* The part that depends on the band's noise and kind: the equalized curve
 * against `kind`'s output (u_mean, u_sd: of its unit value), the
 * heavy-tail blend, and the chi-square at job->frequency. job->rd is
 * (re)allocated here. */
int autolayer_band_curve(const band_shared *sh, size_t k, const band_values *bv,
                         const tf_layer_spec *kind, double u_mean, double u_sd, band_job *job)
{
    tf_error err;
    free(job->rd);
    job->rd = malloc(sh->opt->points * sizeof *job->rd);
    if (!job->rd ||
        tf_equalized_points_layer(bv->sorted, bv->n, kind, sh->opt->points, job->rd,
                                  &job->rd_count, &err) != 0) {
        if (!job->rd)
            tf_error_set(&err, TF_ERR_NOMEM, "band %zu: out of memory", k);
        job->err = err;
        return -1;
    }
    /* Heavy tails: noise's extremes are isolated points, so an equalized
     * curve would turn the band's rare extreme values (clustered along
     * cliffs in the reference) into isolated spikes. Blend the curve toward
     * the linear map with the same mean and standard deviation:
     * y = t y_eq + (1 - t) (mean + sd (x - u_mean) / u_sd), t = 3 / kurtosis. */
    job->blend = 1.0;
    if (job->kurtosis > HEAVY_TAIL_KURTOSIS && u_sd > 0.0) {
        double t = HEAVY_TAIL_KURTOSIS / job->kurtosis, sd = sqrt(bv->var);
        for (size_t p = 0; p < job->rd_count; p++) {
            double lin = bv->mean + sd * (job->rd[p].x - u_mean) / u_sd;
            job->rd[p].y = t * job->rd[p].y + (1.0 - t) * lin;
        }
        job->blend = t;
    }
    job->chi2 = band_chi2(sh, k, kind, job, bv->demod, sh->map->width * sh->map->height);
    return 0;
}

static int band_fit_one(const band_shared *sh, size_t k)
{
    band_values bv;
    int rc = autolayer_band_demodulate(sh, k, &sh->jobs[k], &bv);
    if (rc == 0)
        rc = autolayer_band_curve(sh, k, &bv, &sh->kind[k], sh->u_mean[k], sh->u_sd[k],
                                  &sh->jobs[k]);
    autolayer_band_values_free(&bv);
    return rc;
}

static void band_fit_range(void *ctx, size_t lo, size_t hi)
{
    band_shared *sh = ctx;
    for (size_t k = lo; k < hi; k++)
        if (band_fit_one(sh, k) != 0)
            sh->jobs[k].failed = 1;
}

/* -------------------------------------------------------------- driver */

static void ctx_free(autolayer_ctx *c)
{
    if (c->jobs)
        for (size_t k = 0; k < c->bands.count; k++)
            free(c->jobs[k].rd);
    free(c->jobs);
    free(c->bin_of);
    tf_radial_spectrum_free(&c->ref_spectrum);
    tf_bands_free(&c->bands);
    tf_spec_free(c->spec);
    tf_spec_free(c->calibrated.spec);
}

int autolayer_fail_nomem(autolayer_ctx *c)
{
    tf_error_set(c->err, TF_ERR_NOMEM, "%s: out of memory", c->label);
    return -1;
}

/* Bands; with the automatic count, the finest bands too weak to matter for
 * the relief (on smooth relief they hold little but the curvature of the
 * coarse shape, which independent fine noise would turn into roughness)
 * merge into the next one. */
static int stage_bands(autolayer_ctx *c, size_t count)
{
    const tf_layer_map *map = c->map;
    tf_error e;
    if (tf_bands_decompose(map, count, c->opt->threads, &c->bands, &e) != 0) {
        tf_error_set(c->err, e.code, "%s: %s", c->label, e.message);
        return -1;
    }
    if (count != TF_FIT_LAYERS_AUTO)
        return 0;
    double s1 = 0.0, s2 = 0.0;
    size_t nv = 0;
    for (size_t k = 0; k < c->cells; k++)
        if (map->weight[k] > 0.0f) {
            s1 += map->value[k];
            s2 += (double)map->value[k] * map->value[k];
            nv++;
        }
    double mean = s1 / (double)nv, sd = sqrt(fmax(s2 / (double)nv - mean * mean, 0.0));
    while (c->bands.count > 2) {
        const double *fine = c->bands.band[c->bands.count - 1];
        double f2 = 0.0;
        for (size_t k = 0; k < c->cells; k++)
            if (map->weight[k] > 0.0f)
                f2 += fine[k] * fine[k];
        if (sqrt(f2 / (double)nv) >= AUTOLAYER_MIN_BAND_SHARE * sd)
            break;
        autolayer_bands_merge_finest(&c->bands);
    }
    return 0;
}

/* The reference's spectrum, and per band its scales and spectral centroid. */
static int stage_reference_spectrum(autolayer_ctx *c)
{
    const tf_layer_map *map = c->map;
    size_t count = c->bands.count;
    tf_error e;
    if (tf_radial_spectrum_compute(map->value, map->weight, map->width, map->height,
                                   &c->ref_spectrum, &e) != 0) {
        tf_error_set(c->err, e.code, "%s: %s", c->label, e.message);
        return -1;
    }
    for (size_t k = 0; k < count; k++) {
        tf_fit_layer_report *rep = &c->report->layers[k];
        rep->band_sigma_fine = k + 1 < count ? c->bands.sigma[count - 2 - k] : 0.0;
        rep->band_sigma_coarse = k > 0 ? c->bands.sigma[count - 1 - k] : 0.0;
        rep->band_centroid = tf_band_centroid(&c->bands, k, &c->ref_spectrum);
    }
    return 0;
}

/* Band k's frequency for base noise `noise`: the centroid match, then kept
 * below the next finer band's frequency `finer` (unused for the finest).
 * Fills *est (its other members untouched) and *estimated; returns the
 * frequency. */
double autolayer_band_frequency(const autolayer_ctx *c, size_t k, tf_noise_type noise,
                                double finer, tf_frequency_estimate *est, int *estimated)
{
    double centroid = c->report->layers[k].band_centroid, f = NAN;
    tf_error e;
    if (centroid > 0.0)
        /* A fractal layer's frequency is matched as its base noise's
         * (as the one-layer fit estimates it); the calibration then
         * measures the layer's whole spectrum. */
        f = tf_band_match_frequency(&c->bands, k, noise, centroid, &c->ref_spectrum, &e);
    est->peaks = est->white_noise_sigma = est->value_sigma = NAN;
    est->spectrum_misfit = est->visible_fraction = est->reference_peaks_per_pixel = NAN;
    est->chosen_method = TF_FREQUENCY_SPECTRUM;
    if (isfinite(f) && f > 0.0) {
        est->spectrum = est->chosen = f;
        *estimated = 1;
        snprintf(est->reason, sizeof est->reason,
                 "band centroid %.4g cycles/px matched by the noise through the same filter",
                 centroid);
    } else {
        est->spectrum = NAN;
        est->chosen = f = 1.0 / 64.0;
        *estimated = 0;
        snprintf(est->reason, sizeof est->reason,
                 "the band has no power: the default 1/64 is kept");
    }
    /* A band whose centroid lies beyond what the noise can show through its
     * filter (a low-pass narrower than the reference's features, typically
     * the coarsest) matches at the top of the search range or not at all:
     * it gets one octave below the next finer band, as the band scales are
     * an octave apart. */
    if (k + 1 < c->bands.count && !(f < finer && *estimated)) {
        f = est->chosen = 0.5 * finer;
        *estimated = 1;
        snprintf(est->reason, sizeof est->reason,
                 "band centroid %.4g cycles/px: no frequency below the next band's matches it "
                 "through this filter; one octave below that band",
                 centroid);
    }
    return f;
}

/* Every band's frequency for its noise, the finest first (a coarser band
 * is kept below the next finer one). */
static void stage_frequencies(autolayer_ctx *c)
{
    double finer = NAN;
    for (size_t k = c->bands.count; k-- > 0;) {
        tf_fit_layer_report *rep = &c->report->layers[k];
        double t0 = tf_clock_seconds();
        finer = c->jobs[k].frequency =
            autolayer_band_frequency(c, k, c->kind[k].noise_type, finer, &rep->frequency,
                                     &rep->frequency_estimated);
        rep->seconds_frequency = tf_clock_seconds() - t0;
    }
}

/* Equal-count bins of the coarse elevation (band 0) for the mask curves:
 * edges at its quantiles b / B, centres at (b + 0.5) / B. */
static int stage_coarse_bins(autolayer_ctx *c)
{
    const size_t bins = TF_FIT_MASK_CURVE_BINS;
    float *coarse = malloc(c->cells * sizeof *coarse), *sorted = NULL;
    if (!coarse)
        return autolayer_fail_nomem(c);
    for (size_t k = 0; k < c->cells; k++)
        coarse[k] = (float)c->bands.band[0][k];
    tf_error e;
    size_t nv = tf_sorted_values(coarse, c->map->weight, c->cells, &sorted, &e);
    if (nv == (size_t)-1 || nv == 0) {
        free(coarse);
        return nv == 0 ? (tf_error_set(c->err, TF_ERR_INVALID, "%s: no visible cell", c->label),
                          -1)
                       : autolayer_fail_nomem(c);
    }
    double edge[TF_FIT_MASK_CURVE_BINS + 1];
    for (size_t b = 0; b <= bins; b++)
        edge[b] = tf_quantile_sorted(sorted, nv, (double)b / (double)bins);
    for (size_t b = 0; b < bins; b++)
        c->bin_x[b] = tf_quantile_sorted(sorted, nv, ((double)b + 0.5) / (double)bins);
    /* A cell's bin is the number of inner edges at or below its value, so
     * equal values share a bin. */
    for (size_t k = 0; k < c->cells; k++) {
        unsigned b = 0;
        while (b + 1 < bins && (double)coarse[k] >= edge[b + 1])
            b++;
        c->bin_of[k] = (unsigned char)b;
    }
    free(sorted);
    free(coarse);
    return 0;
}

/* ------------------------------- shared by the stages and the trials */

void autolayer_progress_step(fit_progress *p)
{
    p->done++;
    if (p->fn)
        p->fn(p->user, p->done, p->total);
}

/* The mean and standard deviation of a layer kind's unit value u, with its
 * equalization sample and its base noise's spectrum made ready (both built
 * once per kind and process). */
int autolayer_kind_prepare(const tf_layer_spec *kind, double *mean, double *sd, tf_error *err)
{
    const double *u = fit_layer_sample(kind, err);
    if (!u || autolayer_noise_spectrum_prepare(kind->noise_type, err) != 0)
        return -1;
    double s1 = 0.0, s2 = 0.0;
    for (size_t i = 0; i < TF_NOISE_SAMPLE_COUNT; i++)
        s1 += u[i];
    *mean = s1 / (double)TF_NOISE_SAMPLE_COUNT;
    for (size_t i = 0; i < TF_NOISE_SAMPLE_COUNT; i++)
        s2 += (u[i] - *mean) * (u[i] - *mean);
    *sd = sqrt(s2 / (double)TF_NOISE_SAMPLE_COUNT);
    return 0;
}

/* The slopes' 99th percentile (compare's slope histogram range); NaN when
 * no cell has a slope. 0, or -1 out of memory. */
int autolayer_slope_q99(const float *slope, const float *slope_weight, size_t n, double *q)
{
    float *sorted = NULL;
    tf_error e;
    size_t count = tf_sorted_values(slope, slope_weight, n, &sorted, &e);
    if (count == (size_t)-1)
        return -1;
    *q = count ? tf_quantile_sorted(sorted, count, 0.99) : NAN;
    free(sorted);
    return 0;
}

void autolayer_band_shared_init(autolayer_ctx *c, band_shared *sh)
{
    memset(sh, 0, sizeof *sh);
    sh->map = c->map;
    sh->bands = &c->bands;
    sh->opt = c->opt;
    sh->bin_of = c->bin_of;
    sh->bin_x = c->bin_x;
    sh->bin_count = TF_FIT_MASK_CURVE_BINS;
    sh->kind = c->kind;
    sh->u_mean = c->u_mean;
    sh->u_sd = c->u_sd;
    sh->spec = c->spec;
    sh->jobs = c->jobs;
}

/* Per band (in parallel): mask curve, de-modulation, equalized curve,
 * heavy-tail check, chi-square. */
static int stage_band_fits(autolayer_ctx *c)
{
    band_shared sh;
    autolayer_band_shared_init(c, &sh);
    tf_parallel_for(c->bands.count, c->opt->threads, band_fit_range, &sh);
    for (size_t k = 0; k < c->bands.count; k++)
        if (c->jobs[k].failed) {
            tf_error_set(c->err, c->jobs[k].err.code ? c->jobs[k].err.code : TF_ERR_INVALID,
                         "%s: band %zu: %s", c->label, k, c->jobs[k].err.message);
            return -1;
        }
    return 0;
}

/* The spec's layers (amplitude 1 until calibrated), their compiled curves
 * and their reports. */
static int stage_spec_layers(autolayer_ctx *c, double seconds_band_fits)
{
    size_t count = c->bands.count;
    for (size_t k = 0; k < count; k++) {
        tf_layer_spec *ls = &c->spec->layers[k];
        band_job *job = &c->jobs[k];
        tf_fractal_set_defaults(ls, c->kind[k].fractal_kind);
        ls->noise_type = c->kind[k].noise_type;
        ls->frequency = job->frequency;
        ls->rd_interpolation = TF_INTERP_MONOTONE_CUBIC;
        ls->pre_amp_shift = 0.0;
        ls->amp_scale = 1.0;
        ls->mask_layer_index = -1;
        int has_mask = job->mask_count >= 2;
        if (tf_spec_set_rd_points(c->spec, k, job->rd, job->rd_count, c->err) != 0 ||
            (has_mask && tf_spec_set_mask_curve(c->spec, k, 0, job->mask, job->mask_count,
                                                TF_INTERP_MONOTONE_CUBIC, c->err) != 0))
            return -1;

        tf_fit_layer_report *rep = &c->report->layers[k];
        rep->noise = ls->noise_type;
        rep->fractal = ls->fractal_kind;
        rep->name = c->opt->names ? c->opt->names[0] : NULL;
        rep->visible_cells = tf_layer_map_visible_count(c->map);
        rep->opaque = 1;
        rep->flat = job->flat;
        rep->value_min = job->value_min;
        rep->value_max = job->value_max;
        rep->points_requested = c->opt->points;
        rep->points = job->rd_count;
        rep->chi2 = job->chi2;
        /* The chi-square's bins (band_chi2): the de-modulated range, or a
         * unit range around a flat band's value. */
        int flat_range = !(job->value_max > job->value_min);
        rep->hist_min = flat_range ? job->value_min - 0.5 : job->value_min;
        rep->hist_max = flat_range ? job->value_max + 0.5 : job->value_max;
        rep->band_rms = job->rms;
        rep->kurtosis = job->kurtosis;
        rep->gentle_blend = job->blend;
        rep->mask_layer = ls->mask_layer_index; /* as written: 0 under a mask curve */
        rep->mask_curve_points = job->mask_count;
        /* The bands are fitted together on the worker threads: each gets
         * an equal share of that stage's wall time. */
        rep->seconds_synthesis = seconds_band_fits / (double)count;
        if (has_mask) {
            double lo = HUGE_VAL, hi = -HUGE_VAL;
            for (size_t p = 0; p < job->mask_count; p++) {
                lo = fmin(lo, job->mask[p].y);
                hi = fmax(hi, job->mask[p].y);
            }
            rep->mask_curve_min = lo;
            rep->mask_curve_max = hi;
            snprintf(rep->mask_reason, sizeof rep->mask_reason,
                     "mask curve over layer 0's value, %zu points: weight %.3g to %.3g",
                     job->mask_count, lo, hi);
        } else {
            snprintf(rep->mask_reason, sizeof rep->mask_reason, "%s",
                     k == 0 ? "the coarsest band: unmasked"
                            : "no mask curve: the band has no power");
        }
    }
    return 0;
}

/* The windows every whole-terrain measurement here uses: the calibration's
 * (CALIBRATION_CELLS cells in all, at most CALIBRATION_WINDOWS_MAX). */
static size_t measure_windows(const autolayer_ctx *c)
{
    size_t windows = (CALIBRATION_CELLS + c->cells - 1) / c->cells;
    return windows > CALIBRATION_WINDOWS_MAX ? CALIBRATION_WINDOWS_MAX : windows;
}

/* Window wi's origin: diagonally apart from the synthesis offset. */
static void window_origin(const autolayer_ctx *c, size_t wi, double *x0, double *y0)
{
    *x0 = TF_FIT_SYNTHESIS_OFFSET + 2.0 * (double)(wi * c->map->width);
    *y0 = TF_FIT_SYNTHESIS_OFFSET + 2.0 * (double)(wi * c->map->height);
}

/* The layers' spectra at amplitude 1 as the calibration fits them: each
 * wanted layer's contribution (its mask curve over layer 0's value
 * included: TF_STAGE_CONTRIBUTION of `t`, a terrain of the spec with every
 * amplitude 1) on windows of the reference's size diagonally apart from
 * the synthesis offset, each measured like the reference, averaged. The
 * windows hold at least CALIBRATION_CELLS cells (at most
 * CALIBRATION_WINDOWS_MAX windows): on a small reference one window holds
 * a handful of the coarse layers' features, so its spectrum at the coarse
 * bins is as much chance as shape (a ring's estimate varies as one over
 * the frequencies it averages, which grow with the cells). The windows are
 * the outer loop, so layer 0 (every mask curve's input) is rendered once
 * per window. */
int autolayer_calibration_spectra(autolayer_ctx *c, const tf_terrain *t, const int *wanted,
                                  const double *const *window0, tf_radial_spectrum *out)
{
    size_t w = c->map->width, h = c->map->height, n = c->cells;
    size_t count = tf_terrain_layer_count(t);
    size_t windows = measure_windows(c);
    double *r0 = malloc(n * sizeof *r0), *rk = malloc(n * sizeof *rk);
    double *contribution = malloc(n * sizeof *contribution);
    float *map = malloc(n * sizeof *map);
    const double *rows[TF_FIT_MAX_BANDS] = {NULL};
    int rc = !r0 || !rk || !contribution || !map ? autolayer_fail_nomem(c) : 0;
    for (size_t k = 0; k < count; k++)
        if (!wanted || wanted[k])
            memset(&out[k], 0, sizeof out[k]);
    for (size_t wi = 0; wi < windows && rc == 0; wi++) {
        double x0, y0;
        window_origin(c, wi, &x0, &y0);
        /* window 0 is where the caller may already hold a layer's values */
        if (wi == 0 && window0 && window0[0])
            rows[0] = window0[0];
        else if ((rc = fit_render_stage_at(t, TF_STAGE_REDISTRIBUTED, 0, x0, y0, 1.0, w, h,
                                           c->opt->threads, r0, c->err)) == 0)
            rows[0] = r0;
        for (size_t k = 0; k < count && rc == 0; k++) {
            if (wanted && !wanted[k])
                continue;
            if (k == 0)
                rows[k] = rows[0];
            else if (wi == 0 && window0 && window0[k])
                rows[k] = window0[k];
            else if ((rc = fit_render_stage_at(t, TF_STAGE_REDISTRIBUTED, k, x0, y0, 1.0, w, h,
                                               c->opt->threads, rk, c->err)) == 0)
                rows[k] = rk;
            if (rc == 0)
                rc = fit_combine(t, TF_STAGE_CONTRIBUTION, k, rows, n, c->opt->threads,
                                 contribution, c->err);
            for (size_t i = 0; rc == 0 && i < n; i++)
                map[i] = (float)contribution[i];
            tf_radial_spectrum one;
            memset(&one, 0, sizeof one);
            if (rc == 0)
                rc = tf_radial_spectrum_compute(map, NULL, w, h, wi ? &one : &out[k], c->err);
            for (size_t b = 0; rc == 0 && wi > 0 && b < out[k].bin_count; b++)
                out[k].power[b] += one.power[b];
            tf_radial_spectrum_free(&one);
            if (k > 0)
                rows[k] = NULL; /* combine reads only layer 0 and layer k */
        }
    }
    for (size_t k = 0; k < count; k++) {
        if (wanted && !wanted[k])
            continue;
        for (size_t b = 0; rc == 0 && b < out[k].bin_count; b++)
            out[k].power[b] /= (double)windows;
        if (rc != 0)
            tf_radial_spectrum_free(&out[k]);
    }
    free(r0);
    free(rk);
    free(contribution);
    free(map);
    return rc;
}

/* Amplitudes from the layers' spectra (autolayer_calibration_spectra). */
static int stage_calibration(autolayer_ctx *c)
{
    size_t count = c->bands.count;
    tf_radial_spectrum spectra[TF_FIT_MAX_BANDS];
    memset(spectra, 0, sizeof spectra);
    double amp[TF_FIT_MAX_BANDS];
    tf_terrain *t = tf_terrain_compile(c->spec, c->err);
    int rc = t ? 0 : -1;
    if (rc == 0)
        rc = autolayer_calibration_spectra(c, t, NULL, NULL, spectra);
    tf_terrain_free(t);
    if (rc == 0)
        rc = autolayer_calibrate_amplitudes(spectra, &c->ref_spectrum, count, amp,
                                           &c->report->calibration_rms, c->err);
    for (size_t k = 0; k < count; k++)
        tf_radial_spectrum_free(&spectra[k]);
    if (rc != 0)
        return -1;
    for (size_t k = 0; k < count; k++)
        c->spec->layers[k].amp_scale = c->report->layers[k].amplitude = amp[k];
    return 0;
}

/* The output curve's points: the sorted layer sums' quantiles to the
 * sorted reference's, K points at p_k = k / (K - 1); ties in x merged (the
 * larger y). Returns the number of points kept. */
size_t autolayer_output_curve_points(const float *sum_sorted, size_t nsum,
                                     const float *ref_sorted, size_t nref, size_t kpts,
                                     tf_point *pts)
{
    size_t mo = 0;
    for (size_t k = 0; k < kpts; k++) {
        double p = (double)k / (double)(kpts - 1);
        double x = tf_quantile_sorted(sum_sorted, nsum, p);
        double y = tf_quantile_sorted(ref_sorted, nref, p);
        if (mo > 0 && y < pts[mo - 1].y)
            y = pts[mo - 1].y;
        if (mo > 0 && !(x > pts[mo - 1].x)) {
            pts[mo - 1].y = y;
            continue;
        }
        pts[mo].x = x;
        pts[mo].y = y;
        mo++;
    }
    return mo;
}

/* The output curve: the layer sum (TF_STAGE_SUM of the spec as it
 * stands) sampled on a window far from the reference that spans many
 * coarse features; its quantiles to the reference's. The chi-square after
 * is the terrain's own (TF_STAGE_HEIGHT) with the curve. Also sets the
 * spec's range (the reference's). */
static int stage_output_curve(autolayer_ctx *c)
{
    size_t m = AUTOLAYER_OUTPUT_SAMPLE_SIDE, nm = m * m, kpts = c->opt->points;
    double step = autolayer_sample_window_step(c->jobs[0].frequency);
    float *sums = malloc(nm * sizeof *sums), *sum_sorted = NULL, *ref_sorted = NULL;
    double *values = malloc(nm * sizeof *values);
    tf_point *pts = malloc(kpts * sizeof *pts);
    tf_terrain *t = NULL;
    int rc = -1;
    if (!sums || !values || !pts) {
        autolayer_fail_nomem(c);
        goto done;
    }
    if (!(t = tf_terrain_compile(c->spec, c->err)) ||
        fit_render_stage(t, TF_STAGE_SUM, 0, step, m, m, c->opt->threads, values, c->err) != 0)
        goto done;
    for (size_t i = 0; i < nm; i++)
        sums[i] = (float)values[i];
    tf_error e;
    size_t nsum = tf_sorted_values(sums, NULL, nm, &sum_sorted, &e);
    size_t nref = tf_sorted_values(c->map->value, c->map->weight, c->cells, &ref_sorted, &e);
    if (nsum == (size_t)-1 || nref == (size_t)-1 || nsum < 2 || nref == 0) {
        autolayer_fail_nomem(c);
        goto done;
    }
    size_t mo = autolayer_output_curve_points(sum_sorted, nsum, ref_sorted, nref, kpts, pts);
    double lo = ref_sorted[0], hi = ref_sorted[nref - 1];
    if (!(hi > lo)) {
        lo -= 0.5;
        hi += 0.5;
    }
    double a[TF_FIT_CHI2_BINS], b[TF_FIT_CHI2_BINS];
    tf_histogram(c->map->value, c->map->weight, c->cells, lo, hi, TF_FIT_CHI2_BINS, a);
    tf_histogram(sums, NULL, nm, lo, hi, TF_FIT_CHI2_BINS, b);
    c->report->output_chi2_before = c->report->output_chi2_after =
        tf_chi2_distance(a, b, TF_FIT_CHI2_BINS);
    c->spec->min_value = lo;
    c->spec->max_value = hi;
    if (mo >= 2) {
        if (tf_spec_set_output_curve(c->spec, pts, mo, TF_INTERP_MONOTONE_CUBIC, c->err) != 0)
            goto done;
        tf_terrain_free(t);
        if (!(t = tf_terrain_compile(c->spec, c->err)) ||
            fit_render_stage(t, TF_STAGE_HEIGHT, 0, step, m, m, c->opt->threads, values,
                             c->err) != 0)
            goto done;
        for (size_t i = 0; i < nm; i++)
            sums[i] = (float)values[i];
        tf_histogram(sums, NULL, nm, lo, hi, TF_FIT_CHI2_BINS, b);
        c->report->output_chi2_after = tf_chi2_distance(a, b, TF_FIT_CHI2_BINS);
        c->report->output_curve_points = mo;
    }
    rc = 0;
done:
    tf_terrain_free(t);
    free(sums);
    free(values);
    free(sum_sorted);
    free(ref_sorted);
    free(pts);
    return rc;
}

/* The mean slope of a w x h map by compare's definition (central
 * differences at the cells whose four neighbours are visible;
 * docs/metrics.md, "Slopes"); NAN without such a cell. `weight` NULL:
 * every cell is visible. */
static double mean_slope(const float *fv, const double *dv, const float *weight, size_t w, size_t h)
{
    double sum = 0.0;
    size_t count = 0;
    for (size_t y = 1; y + 1 < h; y++)
        for (size_t x = 1; x + 1 < w; x++) {
            size_t k = y * w + x;
            if (weight &&
                (!(weight[k] > 0.0f) || !(weight[k - 1] > 0.0f) || !(weight[k + 1] > 0.0f) ||
                 !(weight[k - w] > 0.0f) || !(weight[k + w] > 0.0f)))
                continue;
            double gx =
                fv ? 0.5 * ((double)fv[k + 1] - (double)fv[k - 1]) : 0.5 * (dv[k + 1] - dv[k - 1]);
            double gy =
                fv ? 0.5 * ((double)fv[k + w] - (double)fv[k - w]) : 0.5 * (dv[k + w] - dv[k - w]);
            sum += sqrt(gx * gx + gy * gy);
            count++;
        }
    return count ? sum / (double)count : NAN;
}

/* Slopes of the terrain on the measuring windows, in one pass over the
 * stages asked for: the mean slope of its height by compare's definition
 * (mean_slope), and the sums of squared forward differences, one pixel
 * apart, of the height and of the layer sum, for the slope gain. What is
 * not asked for is left as it was. */
enum { MEASURE_SUM = 1, MEASURE_HEIGHT = 2 };

typedef struct {
    double mean_slope;
    double height_squares;
    double sum_squares;
} terrain_slopes;

/* Adds to *squares cell by cell, so that the windows pool in one sum. */
static void add_forward_squares(const double *v, size_t w, size_t h, double *squares)
{
    for (size_t j = 0; j + 1 < h; j++)
        for (size_t i = 0; i + 1 < w; i++) {
            double dx = v[j * w + i + 1] - v[j * w + i], dy = v[(j + 1) * w + i] - v[j * w + i];
            *squares += dx * dx + dy * dy;
        }
}

static int measure_slopes(autolayer_ctx *c, int stages, terrain_slopes *out)
{
    size_t w = c->map->width, h = c->map->height, windows = measure_windows(c);
    double *values = malloc(c->cells * sizeof *values);
    tf_terrain *t = values ? tf_terrain_compile(c->spec, c->err) : NULL;
    int rc = !values ? autolayer_fail_nomem(c) : t ? 0 : -1;
    if (stages & MEASURE_HEIGHT)
        out->mean_slope = out->height_squares = 0.0;
    if (stages & MEASURE_SUM)
        out->sum_squares = 0.0;
    for (size_t wi = 0; wi < windows && rc == 0; wi++) {
        double x0, y0;
        window_origin(c, wi, &x0, &y0);
        if ((stages & MEASURE_SUM) &&
            (rc = fit_render_stage_at(t, TF_STAGE_SUM, 0, x0, y0, 1.0, w, h, c->opt->threads,
                                      values, c->err)) == 0)
            add_forward_squares(values, w, h, &out->sum_squares);
        if (rc == 0 && (stages & MEASURE_HEIGHT) &&
            (rc = fit_render_stage_at(t, TF_STAGE_HEIGHT, 0, x0, y0, 1.0, w, h, c->opt->threads,
                                      values, c->err)) == 0) {
            add_forward_squares(values, w, h, &out->height_squares);
            out->mean_slope += mean_slope(NULL, values, NULL, w, h) / (double)windows;
        }
    }
    tf_terrain_free(t);
    free(values);
    return rc;
}

/* The output curve's slope gain, for the report (the spec does not depend
 * on it): the RMS slope (forward differences) of the height over that of
 * the layer sum, pooled over the measuring windows. The curve maps the
 * sum's quantiles to the reference's and scales every slope by its
 * derivative (docs/fitting.md, "Output curve"). */
static double slope_gain(const terrain_slopes *s)
{
    return s->sum_squares > 0.0 ? sqrt(s->height_squares / s->sum_squares) : 0.0;
}

/* Every layer k >= 1 at its calibrated amplitude a_k times
 * f^(k / (n - 1)), f = e^lf: a tilt that leaves the coarsest layer and
 * moves the finest most. */
static void tilt_amplitudes(autolayer_ctx *c, double lf)
{
    size_t n = c->bands.count;
    for (size_t k = 1; k < n; k++)
        c->spec->layers[k].amp_scale = c->report->layers[k].amplitude =
            c->calibrated.amplitude[k] * exp(lf * (double)k / (double)(n - 1));
}

/* The slope match (docs/fitting.md, "Slope match"): the calibration fits
 * the spectrum's shape up to N/4 and the output curve then stretches the
 * sum to the reference's range, so the terrain's mean slope comes out up
 * to twice the reference's. The finer layers are tilted (tilt_amplitudes)
 * so that the mean slope on the measuring windows matches the reference's:
 * secant steps on ln f, the output curve rebuilt each time, within
 * [SLOPE_TILT_MIN, SLOPE_TILT_MAX], until |ln ratio| <= SLOPE_TOLERANCE.
 * When the slope answers the tilt less than SLOPE_ELASTICITY_MIN (the
 * coarsest layer carries the slope: the tilt would strip the finer ones
 * and not reach it), the calibrated amplitudes stay. `before` holds the
 * calibrated spec's slopes (measure_slopes, both stages). Sets *tilted
 * when the spec was tilted, and then the report's slope gain anew and
 * c->calibrated (the spec as calibrated and its report figures). */
static int stage_slope_match(autolayer_ctx *c, const terrain_slopes *before, int *tilted)
{
    tf_fit_slope_match *sm = &c->report->slope_match;
    size_t n = c->bands.count;
    *tilted = 0;
    sm->tilt = 1.0;
    sm->tilted_score = sm->calibrated_score = NAN;
    autolayer_calibrated *cal = &c->calibrated;
    cal->output_chi2_before = c->report->output_chi2_before;
    cal->output_chi2_after = c->report->output_chi2_after;
    cal->output_curve_points = c->report->output_curve_points;
    cal->output_slope_gain = c->report->output_slope_gain;
    sm->reference_mean_slope =
        mean_slope(c->map->value, NULL, c->map->weight, c->map->width, c->map->height);
    sm->ratio_before = sm->ratio_tilted = sm->elasticity = NAN;
    for (size_t k = 0; k < n; k++)
        cal->amplitude[k] = c->spec->layers[k].amp_scale;
    double m = before->mean_slope;
    if (c->opt->slope_match_off || n < 2 || !(sm->reference_mean_slope > 0.0))
        return 0;
    sm->ratio_before = sm->ratio_tilted = m / sm->reference_mean_slope;
    if (!(m > 0.0))
        return 0;
    if (!(cal->spec = tf_spec_copy(c->spec, c->err)))
        return -1;
    double lf = 0.0, lr = log(sm->ratio_before), best_lf = 0.0, best_lr = lr, p = 1.0;
    terrain_slopes now = *before;
    const double lo = log(SLOPE_TILT_MIN), hi = log(SLOPE_TILT_MAX);
    for (int it = 0; it < SLOPE_ITERATIONS && fabs(lr) > SLOPE_TOLERANCE; it++) {
        double next = lf - lr / p;
        next = next < lo ? lo : next > hi ? hi : next;
        if (next == lf)
            break;
        tilt_amplitudes(c, next);
        if (stage_output_curve(c) != 0 || measure_slopes(c, MEASURE_HEIGHT, &now) != 0)
            return -1;
        m = now.mean_slope;
        double r = m > 0.0 ? log(m / sm->reference_mean_slope) : lr;
        /* the slope's elasticity d ln(mean slope) / d ln f, kept positive */
        p = fmax((r - lr) / (next - lf), 0.01);
        if (it == 0)
            sm->elasticity = p;
        lf = next;
        lr = r;
        if (fabs(lr) < fabs(best_lr)) {
            best_lf = lf;
            best_lr = lr;
        }
        if (it == 0 && p < SLOPE_ELASTICITY_MIN) {
            best_lf = 0.0;
            best_lr = log(sm->ratio_before);
            break;
        }
    }
    if (best_lf != lf) {
        tilt_amplitudes(c, best_lf);
        if (stage_output_curve(c) != 0)
            return -1;
    }
    sm->tilt = exp(best_lf);
    sm->ratio_tilted = exp(best_lr);
    *tilted = best_lf != 0.0;
    if (!*tilted) {
        tf_spec_free(cal->spec);
        cal->spec = NULL;
        return 0;
    }
    /* the slope gain of the tilted spec; the last step measured its height
     * when that step is the one kept */
    if (measure_slopes(c, best_lf == lf ? MEASURE_SUM : MEASURE_SUM | MEASURE_HEIGHT, &now) != 0)
        return -1;
    c->report->output_slope_gain = slope_gain(&now);
    return 0;
}

/* The final score of a fit_drainage result: the stage's when chosen, the
 * spec's without it otherwise. */
static double drainage_result_score(const tf_fit_drainage_report *r)
{
    return r->chosen ? r->with.score : r->without.score;
}

/* The drainage stage (drainage_fit.c) on the fitted spec. With a slope
 * match, carving changes the slopes again, so the stage is fitted on the
 * tilted spec and on the calibrated one (c->calibrated), and the one
 * whose result scores lower on the decision's windows is kept (a tie
 * keeps the tilt). Where the stage scored nothing (off, or declined
 * before its candidates), the two specs are scored as they are by the
 * same score. */
static int stage_drainage(autolayer_ctx *c)
{
    tf_fit_report *report = c->report;
    tf_fit_slope_match *sm = &report->slope_match;
    autolayer_calibrated *cal = &c->calibrated;
    tf_fit_drainage_report other;
    if (fit_drainage(c->map, c->opt, c->label, &c->spec, &report->drainage, c->err) != 0)
        return -1;
    if (!cal->spec)
        return 0;
    if (fit_drainage(c->map, c->opt, c->label, &cal->spec, &other, c->err) != 0)
        return -1;
    if (report->drainage.windows && other.windows) {
        sm->tilted_score = drainage_result_score(&report->drainage);
        sm->calibrated_score = drainage_result_score(&other);
    } else if (fit_drainage_score(c->map, c->opt, c->label, c->spec, &sm->tilted_score, c->err) !=
                   0 ||
               fit_drainage_score(c->map, c->opt, c->label, cal->spec, &sm->calibrated_score,
                                  c->err) != 0) {
        return -1;
    }
    if (!(sm->calibrated_score < sm->tilted_score))
        return 0;
    tf_spec_free(c->spec);
    c->spec = cal->spec;
    cal->spec = NULL;
    report->drainage = other;
    sm->kept = 0;
    for (size_t k = 0; k < c->bands.count; k++)
        report->layers[k].amplitude = cal->amplitude[k];
    report->output_chi2_before = cal->output_chi2_before;
    report->output_chi2_after = cal->output_chi2_after;
    report->output_curve_points = cal->output_curve_points;
    report->output_slope_gain = cal->output_slope_gain;
    return 0;
}

int fit_autolayer(const tf_layer_map *map, size_t count, const tf_fit_options *opt,
                  const char *label, tf_spec **spec_out, tf_fit_report *report,
                  tf_progress_fn progress, void *user, tf_error *err)
{
    double t_start = tf_clock_seconds();
    *spec_out = NULL;
    memset(report, 0, sizeof *report);
    autolayer_ctx c;
    memset(&c, 0, sizeof c);
    c.map = map;
    c.opt = opt;
    c.label = label;
    c.report = report;
    c.err = err;
    c.cells = map->width * map->height;

    double t0 = tf_clock_seconds();
    if (stage_bands(&c, count) != 0)
        goto fail;
    count = c.bands.count;
    report->seconds_bands = tf_clock_seconds() - t0;
    if (fit_check_layer_kinds(opt, count, err) != 0) {
        tf_error_set(err, TF_ERR_ARGUMENT,
                     "%s: a noise or kind is given for a layer beyond the %zu bands the DEM "
                     "splits into (layers 0 to %zu)",
                     label, count, count - 1);
        goto fail;
    }

    /* Each band's noise and kind; the layer sample (equalization) and the
     * base noise's spectrum (matching) are built once per kind and process;
     * their cost is reported on its own. */
    t0 = tf_clock_seconds();
    size_t trials = 0;
    for (size_t k = 0; k < count; k++) {
        fit_layer_kind_of(opt, k, &c.kind[k], &c.try_auto[k]);
        trials += c.try_auto[k] ? TF_FIT_AUTO_CANDIDATES : 0;
        /* The unit value's mean and standard deviation (gentle curves). */
        if (autolayer_kind_prepare(&c.kind[k], &c.u_mean[k], &c.u_sd[k], err) != 0)
            goto fail;
    }
    report->seconds_noise_sample = tf_clock_seconds() - t0;
    /* Progress: the kinds, each --noise auto trial, the band fits (one step
     * per band), the calibration and the output curve. */
    fit_progress prog = {progress, user, 0, 1 + trials + count + 2};
    autolayer_progress_step(&prog);

    report->width = map->width;
    report->height = map->height;
    report->layer_count = count;
    report->points = opt->points;
    report->frequency_method = opt->frequency;
    report->noise = opt->noise;
    report->noise_auto = opt->noise_auto;
    report->fractal = opt->fractal;
    report->seed = opt->seed;
    report->auto_layered = 1;
    report->layers = calloc(count, sizeof *report->layers);
    c.jobs = calloc(count, sizeof *c.jobs);
    c.bin_of = malloc(c.cells);
    if (!report->layers || !c.jobs || !c.bin_of) {
        autolayer_fail_nomem(&c);
        goto fail;
    }
    if (!(c.spec = tf_spec_new(count, err)))
        goto fail;
    tf_spec_reseed(c.spec, opt->seed);

    if (stage_reference_spectrum(&c) != 0 || stage_coarse_bins(&c) != 0)
        goto fail;
    if (trials) {
        t0 = tf_clock_seconds();
        if (autolayer_noise_auto(&c, &prog) != 0)
            goto fail;
        report->seconds_noise_auto = tf_clock_seconds() - t0;
    }
    stage_frequencies(&c);
    t0 = tf_clock_seconds();
    if (stage_band_fits(&c) != 0 || stage_spec_layers(&c, tf_clock_seconds() - t0) != 0)
        goto fail;
    prog.done += count - 1;
    autolayer_progress_step(&prog);

    t0 = tf_clock_seconds();
    if (stage_calibration(&c) != 0)
        goto fail;
    report->seconds_calibration = tf_clock_seconds() - t0;
    autolayer_progress_step(&prog);

    t0 = tf_clock_seconds();
    terrain_slopes slopes;
    if (stage_output_curve(&c) != 0 ||
        measure_slopes(&c, MEASURE_SUM | MEASURE_HEIGHT, &slopes) != 0)
        goto fail;
    report->output_slope_gain = slope_gain(&slopes);
    report->seconds_output_curve = tf_clock_seconds() - t0;
    t0 = tf_clock_seconds();
    int tilted = 0;
    if (stage_slope_match(&c, &slopes, &tilted) != 0)
        goto fail;
    report->slope_match.kept = tilted;
    report->seconds_slope_match = tf_clock_seconds() - t0;
    t0 = tf_clock_seconds();
    if (stage_drainage(&c) != 0)
        goto fail;
    report->seconds_drainage = tf_clock_seconds() - t0;
    if (report->drainage.chosen)
        report->output_curve_points = c.spec->output_curve_point_count;
    if (tf_spec_validate(c.spec, err) != 0)
        goto fail;
    report->min_value = c.spec->min_value;
    report->max_value = c.spec->max_value;
    report->seconds_total = tf_clock_seconds() - t_start;
    *spec_out = c.spec;
    c.spec = NULL;
    ctx_free(&c);
    autolayer_progress_step(&prog);
    tf_error_clear(err);
    return 0;

fail:
    ctx_free(&c);
    return -1;
}
