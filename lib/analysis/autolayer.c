/*
 * Auto-layering (issue 4): one fully present reference (a DEM) fitted as a
 * stack of octave-band layers: frequency by spectral-centroid matching,
 * amplitudes calibrated jointly on the radial spectrum, learned mask curves
 * over the coarse elevation, and an output curve; with --noise auto, each
 * band's noise chosen by trials of the whole terrain (issue 6).
 * docs/fitting.md has every formula. The spectral parts (the noise's
 * spectrum, frequency matching, the amplitude calibration) are in
 * autolayer_spectrum.c.
 */

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "analysis/autolayer_internal.h"
#include "analysis/fit_internal.h"
#include "analysis/metrics_internal.h"
#include "runtime/fractal.h"
#include "base/error.h"
#include "util/util.h"
#include "terrafit/terrafit.h"

/* Sample windows of the synthesized layer sum (output curve) and of one
 * layer (its chi-square): points per side. */
#define OUTPUT_SAMPLE_SIDE 512
#define BAND_CHI2_SIDE 256
/* Lattice units between the points of a sample window of a low-frequency
 * layer: 1/8 of the golden ratio, so the points fall evenly over the cells
 * (Weyl) and the window spans many features. */
#define SAMPLE_LATTICE_STEP 0.20225424859373686
/* A band whose de-modulated values have excess kurtosis above this is
 * heavy-tailed (a Laplace distribution has 3). */
#define HEAVY_TAIL_KURTOSIS 3.0
/* Smallest mask-curve weight, relative to the band's RMS. */
#define MASK_WEIGHT_FLOOR 0.05

/* The step between a sample window's points, in samples, for a layer of
 * frequency f: SAMPLE_LATTICE_STEP lattice units, but at least 1. */
static double sample_window_step(double f)
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

typedef struct {
    /* shared, read-only */
    const tf_layer_map *map;
    const tf_bands *bands;
    const tf_fit_options *opt;
    const unsigned char *bin_of; /* coarse-elevation bin of each visible cell */
    const double *bin_x;         /* bin centres (median coarse value of each bin) */
    size_t bin_count;
    const tf_layer_spec *kind; /* each band's noise and layer kind */
    const double *u_mean, *u_sd; /* of each band's layer unit value */
    const tf_spec *spec; /* seeds and offsets */
    struct band_job *jobs;
} band_shared;

typedef struct band_job {
    double frequency; /* in */
    double mean, var, rms;
    tf_point mask[TF_FIT_MASK_CURVE_BINS];
    size_t mask_count;
    tf_point *rd;
    size_t rd_count;
    double kurtosis, blend;
    double value_min, value_max; /* of the de-modulated values */
    double chi2;
    int flat;
    int failed;
    tf_error err;
} band_job;

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
                        const band_job *job, const tf_curve *curve, const float *values,
                        size_t cells)
{
    const tf_layer_spec *ls = &sh->spec->layers[k];
    tf_layer_spec layer = *kind;
    layer.seed = ls->seed;
    tf_fractal_plan plan;
    tf_fractal_plan_init(&plan, &layer);
    double f = job->frequency, step = sample_window_step(f);
    size_t m = BAND_CHI2_SIDE;
    float *syn = malloc(m * m * sizeof *syn);
    if (!syn)
        return NAN;
    for (size_t j = 0; j < m; j++) {
        double y = TF_FIT_SYNTHESIS_OFFSET + (double)j * step;
        for (size_t i = 0; i < m; i++) {
            double x = TF_FIT_SYNTHESIS_OFFSET + (double)i * step;
            double nv = tf_fractal_plan_eval(&plan, x * f + ls->offset[0],
                                             y * f + ls->offset[1], ls->offset[2], NULL, NULL);
            syn[j * m + i] = (float)tf_curve_eval(curve, (nv + 1.0) * 0.5);
        }
    }
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

/* What band k's layer is fitted to, whatever its noise: the de-modulated
 * values (0 at invisible cells), the visible ones sorted, and their mean
 * and variance. */
typedef struct {
    float *demod;
    float *sorted;
    size_t n;
    double mean, var;
} band_values;

static void band_values_free(band_values *bv)
{
    free(bv->demod);
    free(bv->sorted);
    memset(bv, 0, sizeof *bv);
}

/* The noise-independent part of a band's fit: its moments, mask curve,
 * de-modulated values and their kurtosis and range (into *job). */
static int band_demodulate(const band_shared *sh, size_t k, band_job *job, band_values *bv)
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
static int band_curve(const band_shared *sh, size_t k, const band_values *bv,
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
    tf_curve *curve = tf_curve_new(job->rd, job->rd_count, TF_INTERP_MONOTONE_CUBIC, &err);
    if (!curve) {
        job->err = err;
        return -1;
    }
    job->chi2 = band_chi2(sh, k, kind, job, curve, bv->demod,
                          sh->map->width * sh->map->height);
    tf_curve_free(curve);
    return 0;
}

static int band_fit_one(const band_shared *sh, size_t k)
{
    band_values bv;
    int rc = band_demodulate(sh, k, &sh->jobs[k], &bv);
    if (rc == 0)
        rc = band_curve(sh, k, &bv, &sh->kind[k], sh->u_mean[k], sh->u_sd[k], &sh->jobs[k]);
    band_values_free(&bv);
    return rc;
}

static void band_fit_range(void *ctx, size_t lo, size_t hi)
{
    band_shared *sh = ctx;
    for (size_t k = lo; k < hi; k++)
        if (band_fit_one(sh, k) != 0)
            sh->jobs[k].failed = 1;
}

/* ------------------------------------------------------ output curve */

typedef struct {
    const tf_spec *spec;
    const tf_fractal_plan *plan;
    tf_curve **rd, **mask;
    double step;
    float *out; /* OUTPUT_SAMPLE_SIDE^2 layer sums */
} stack_sampler;

/* Layer k's redistributed value r = RD_k(u) at world point (x, y), the
 * runtime's steps 1-2 (docs/spec.md): its base noise or fractal through
 * the layer's plan, the function the runtime evaluates. */
static double layer_redistributed(const tf_layer_spec *l, const tf_fractal_plan *plan,
                                  const tf_curve *rd, double x, double y)
{
    double n = tf_fractal_plan_eval(plan, x * l->frequency + l->offset[0],
                                    y * l->frequency + l->offset[1], l->offset[2], NULL, NULL);
    return tf_curve_eval(rd, (n + 1.0) * 0.5);
}

/* The layer sum at world point (x, y), as the runtime evaluates a spec
 * with mask curves over layer 0 (docs/spec.md), before the output curve. */
static double stack_sum(const stack_sampler *s, double x, double y)
{
    const tf_spec *spec = s->spec;
    double h = 0.0, r0 = 0.0;
    for (size_t i = 0; i < spec->layer_count; i++) {
        const tf_layer_spec *l = &spec->layers[i];
        double r = layer_redistributed(l, &s->plan[i], s->rd[i], x, y);
        if (i == 0)
            r0 = r;
        double v = (r + l->pre_amp_shift) * l->amp_scale;
        if (s->mask[i])
            v *= tf_curve_eval(s->mask[i], r0);
        h += v;
    }
    return h;
}

static void stack_rows(void *ctx, size_t j0, size_t j1)
{
    stack_sampler *s = ctx;
    size_t m = OUTPUT_SAMPLE_SIDE;
    for (size_t j = j0; j < j1; j++) {
        double y = TF_FIT_SYNTHESIS_OFFSET + (double)j * s->step;
        for (size_t i = 0; i < m; i++)
            s->out[j * m + i] =
                (float)stack_sum(s, TF_FIT_SYNTHESIS_OFFSET + (double)i * s->step, y);
    }
}

/* Each layer synthesized alone at amplitude 1 (its mask curve over layer
 * 0's value included) on a window of the reference's size at the synthesis
 * offset: the maps whose spectra the calibration fits. */
typedef struct {
    const tf_spec *spec;
    const tf_fractal_plan *plan;
    tf_curve **rd, **mask;
    size_t w, h;
    float **maps; /* layer_count maps of w * h */
} layer_renderer;

static void layer_rows(void *ctx, size_t j0, size_t j1)
{
    layer_renderer *lr = ctx;
    const tf_spec *spec = lr->spec;
    for (size_t j = j0; j < j1; j++) {
        double y = TF_FIT_SYNTHESIS_OFFSET + (double)j;
        for (size_t i = 0; i < lr->w; i++) {
            double x = TF_FIT_SYNTHESIS_OFFSET + (double)i, r0 = 0.0;
            for (size_t k = 0; k < spec->layer_count; k++) {
                double r = layer_redistributed(&spec->layers[k], &lr->plan[k], lr->rd[k], x, y);
                if (k == 0)
                    r0 = r;
                if (lr->mask[k])
                    r *= tf_curve_eval(lr->mask[k], r0);
                lr->maps[k][j * lr->w + i] = (float)r;
            }
        }
    }
}

/* -------------------------------------------------------------- driver */

/* Everything one auto-layered fit holds; freed by ctx_free. */
typedef struct {
    const tf_layer_map *map;
    const tf_fit_options *opt;
    const char *label;
    tf_fit_report *report;
    tf_error *err;
    size_t cells;
    tf_bands bands;
    tf_radial_spectrum ref_spectrum;
    tf_spec *spec;
    band_job *jobs;
    unsigned char *bin_of;
    double bin_x[TF_FIT_MASK_CURVE_BINS];
    tf_curve *rd[TF_FIT_MAX_BANDS], *mask[TF_FIT_MAX_BANDS];
    /* Each band's noise and layer kind (--noise, --layer-kind, per band or
     * for all), its unit value's mean and standard deviation, and the
     * compiled plan of its spec layer (set with the layers). */
    tf_layer_spec kind[TF_FIT_MAX_BANDS];
    double u_mean[TF_FIT_MAX_BANDS], u_sd[TF_FIT_MAX_BANDS];
    tf_fractal_plan plan[TF_FIT_MAX_BANDS];
    /* --noise auto: the bands that try the candidates. */
    int try_auto[TF_FIT_MAX_BANDS];
} autolayer_ctx;

static void ctx_free(autolayer_ctx *c)
{
    for (size_t k = 0; k < TF_FIT_MAX_BANDS; k++) {
        tf_curve_free(c->rd[k]);
        tf_curve_free(c->mask[k]);
    }
    if (c->jobs)
        for (size_t k = 0; k < c->bands.count; k++)
            free(c->jobs[k].rd);
    free(c->jobs);
    free(c->bin_of);
    tf_radial_spectrum_free(&c->ref_spectrum);
    tf_bands_free(&c->bands);
    tf_spec_free(c->spec);
}

static int fail_nomem(autolayer_ctx *c)
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
static double band_frequency(const autolayer_ctx *c, size_t k, tf_noise_type noise, double finer,
                             tf_frequency_estimate *est, int *estimated)
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
        finer = c->jobs[k].frequency = band_frequency(c, k, c->kind[k].noise_type, finer,
                                                      &rep->frequency, &rep->frequency_estimated);
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
        return fail_nomem(c);
    for (size_t k = 0; k < c->cells; k++)
        coarse[k] = (float)c->bands.band[0][k];
    tf_error e;
    size_t nv = tf_sorted_values(coarse, c->map->weight, c->cells, &sorted, &e);
    if (nv == (size_t)-1 || nv == 0) {
        free(coarse);
        return nv == 0 ? (tf_error_set(c->err, TF_ERR_INVALID, "%s: no visible cell", c->label),
                          -1)
                       : fail_nomem(c);
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

/* Progress of the whole fit, advanced on the calling thread. */
typedef struct {
    tf_progress_fn fn;
    void *user;
    size_t done, total;
} fit_progress;

static void progress_step(fit_progress *p)
{
    p->done++;
    if (p->fn)
        p->fn(p->user, p->done, p->total);
}

/* The mean and standard deviation of a layer kind's unit value u, with its
 * equalization sample and its base noise's spectrum made ready (both built
 * once per kind and process). */
static int kind_prepare(const tf_layer_spec *kind, double *mean, double *sd, tf_error *err)
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
static int slope_q99(const float *slope, const float *slope_weight, size_t n, double *q)
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

static void band_shared_init(autolayer_ctx *c, band_shared *sh)
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
    band_shared_init(c, &sh);
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
                                                TF_INTERP_MONOTONE_CUBIC, c->err) != 0) ||
            !(c->rd[k] =
                  tf_curve_new(job->rd, job->rd_count, TF_INTERP_MONOTONE_CUBIC, c->err)) ||
            (has_mask && !(c->mask[k] = tf_curve_new(job->mask, job->mask_count,
                                                     TF_INTERP_MONOTONE_CUBIC, c->err))))
            return -1;
        tf_fractal_plan_init(&c->plan[k], ls);

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

/* Amplitudes from the layers' spectra, measured like the reference's. */
static int stage_calibration(autolayer_ctx *c)
{
    size_t count = c->bands.count, w = c->map->width, h = c->map->height;
    tf_radial_spectrum spectra[TF_FIT_MAX_BANDS];
    memset(spectra, 0, sizeof spectra);
    float *maps[TF_FIT_MAX_BANDS] = {NULL};
    double amp[TF_FIT_MAX_BANDS];
    int rc = 0;
    for (size_t k = 0; k < count && rc == 0; k++)
        if (!(maps[k] = malloc(c->cells * sizeof **maps)))
            rc = fail_nomem(c);
    if (rc == 0) {
        layer_renderer lr = {c->spec, c->plan, c->rd, c->mask, w, h, maps};
        tf_parallel_for(h, c->opt->threads, layer_rows, &lr);
        for (size_t k = 0; k < count && rc == 0; k++)
            rc = tf_radial_spectrum_compute(maps[k], NULL, w, h, &spectra[k], c->err);
    }
    for (size_t k = 0; k < count; k++)
        free(maps[k]);
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
static size_t output_curve_points(const float *sum_sorted, size_t nsum, const float *ref_sorted,
                                  size_t nref, size_t kpts, tf_point *pts)
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

/* The output curve: the layer sum sampled on a window far from the
 * reference that spans many coarse features; its quantiles to the
 * reference's. Also sets the spec's range (the reference's). */
static int stage_output_curve(autolayer_ctx *c)
{
    size_t m = OUTPUT_SAMPLE_SIDE, nm = m * m, kpts = c->opt->points;
    float *sums = malloc(nm * sizeof *sums), *sum_sorted = NULL, *ref_sorted = NULL;
    tf_point *pts = malloc(kpts * sizeof *pts);
    tf_curve *oc = NULL;
    int rc = -1;
    if (!sums || !pts) {
        fail_nomem(c);
        goto done;
    }
    stack_sampler ss = {c->spec, c->plan, c->rd, c->mask,
                        sample_window_step(c->jobs[0].frequency), sums};
    tf_parallel_for(m, c->opt->threads, stack_rows, &ss);
    tf_error e;
    size_t nsum = tf_sorted_values(sums, NULL, nm, &sum_sorted, &e);
    size_t nref = tf_sorted_values(c->map->value, c->map->weight, c->cells, &ref_sorted, &e);
    if (nsum == (size_t)-1 || nref == (size_t)-1 || nsum < 2 || nref == 0) {
        fail_nomem(c);
        goto done;
    }
    size_t mo = output_curve_points(sum_sorted, nsum, ref_sorted, nref, kpts, pts);
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
    if (mo >= 2) {
        if (!(oc = tf_curve_new(pts, mo, TF_INTERP_MONOTONE_CUBIC, c->err)) ||
            tf_spec_set_output_curve(c->spec, pts, mo, TF_INTERP_MONOTONE_CUBIC, c->err) != 0)
            goto done;
        for (size_t i = 0; i < nm; i++)
            sums[i] = (float)tf_curve_eval(oc, sums[i]);
        tf_histogram(sums, NULL, nm, lo, hi, TF_FIT_CHI2_BINS, b);
        c->report->output_chi2_after = tf_chi2_distance(a, b, TF_FIT_CHI2_BINS);
        c->report->output_curve_points = mo;
    }
    c->spec->min_value = lo;
    c->spec->max_value = hi;
    rc = 0;
done:
    tf_curve_free(oc);
    free(sums);
    free(sum_sorted);
    free(ref_sorted);
    free(pts);
    return rc;
}

/* ------------------------------------- --noise auto: the terrain trials */

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
    tf_curve *mask[TF_FIT_MAX_BANDS];
    /* Band k's redistribution curve for noise n (and its chi-square),
     * built on first use: it does not depend on the other bands. */
    tf_curve *rd[TF_FIT_MAX_BANDS][TF_NOISE_KIND_COUNT];
    double rd_chi2[TF_FIT_MAX_BANDS][TF_NOISE_KIND_COUNT];
    layer_render raw[TF_FIT_MAX_BANDS];    /* on the reference's window */
    layer_render sample[TF_FIT_MAX_BANDS]; /* on the output curve's sample window */
    /* m_k = r_k x mask_k(r_0) on the reference's window and its spectrum
     * (the calibration's), keyed by the noise and frequency of layer k and
     * of layer 0. */
    double *masked[TF_FIT_MAX_BANDS];
    tf_radial_spectrum spectrum[TF_FIT_MAX_BANDS];
    int spectrum_valid[TF_FIT_MAX_BANDS];
    tf_noise_type spectrum_noise[TF_FIT_MAX_BANDS][2];
    double spectrum_freq[TF_FIT_MAX_BANDS][2];
    float *scratch, *sums, *terrain, *slope, *slope_weight;
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
        band_values_free(&t->bv[k]);
        tf_curve_free(t->mask[k]);
        for (size_t n = 0; n < TF_NOISE_KIND_COUNT; n++)
            tf_curve_free(t->rd[k][n]);
        free(t->raw[k].values);
        free(t->sample[k].values);
        free(t->masked[k]);
        if (t->spectrum_valid[k])
            tf_radial_spectrum_free(&t->spectrum[k]);
    }
    free(t->scratch);
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
        if (band_demodulate(&t->sh, k, &t->base[k], &t->bv[k]) != 0)
            t->base[k].failed = 1;
}

static int terrain_trials_init(autolayer_ctx *c, terrain_trials *t)
{
    memset(t, 0, sizeof *t);
    t->c = c;
    band_shared_init(c, &t->sh);
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
        if (t->base[k].mask_count >= 2 &&
            !(t->mask[k] = tf_curve_new(t->base[k].mask, t->base[k].mask_count,
                                        TF_INTERP_MONOTONE_CUBIC, c->err)))
            return -1;
    }
    size_t n = t->cells, m = OUTPUT_SAMPLE_SIDE;
    t->scratch = malloc(n * sizeof *t->scratch);
    t->sums = malloc(m * m * sizeof *t->sums);
    t->terrain = malloc(n * sizeof *t->terrain);
    t->slope = malloc(n * sizeof *t->slope);
    t->slope_weight = malloc(n * sizeof *t->slope_weight);
    t->ok = malloc(n);
    t->ref_unit = malloc(n * sizeof *t->ref_unit);
    t->ref_slope = malloc(n * sizeof *t->ref_slope);
    tf_error e;
    if (!t->scratch || !t->sums || !t->terrain || !t->slope || !t->slope_weight || !t->ok ||
        !t->ref_unit || !t->ref_slope)
        return fail_nomem(c);
    size_t nref = tf_sorted_values(c->map->value, c->map->weight, n, &t->ref_sorted, &e);
    if (nref == (size_t)-1 || nref == 0)
        return fail_nomem(c);
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
    if (slope_q99(t->ref_slope, t->slope_weight, n, &t->ref_q99) != 0 ||
        tf_radial_spectrum_compute(t->ref_unit, c->map->weight, t->w, t->h,
                                   &t->ref_unit_spectrum, &e) != 0)
        return fail_nomem(c);
    return 0;
}

typedef struct {
    const tf_layer_spec *layer;
    const tf_fractal_plan *plan;
    const tf_curve *rd;
    double step;
    size_t w;
    double *out;
} raw_renderer;

/* r = RD(u) on a window at the synthesis origin, `step` apart: the values
 * layer_rows (step 1) and stack_rows (the sample window) compute. */
static void raw_rows(void *ctx, size_t j0, size_t j1)
{
    raw_renderer *r = ctx;
    for (size_t j = j0; j < j1; j++) {
        double y = TF_FIT_SYNTHESIS_OFFSET + (double)j * r->step;
        for (size_t i = 0; i < r->w; i++)
            r->out[j * r->w + i] = layer_redistributed(
                r->layer, r->plan, r->rd, TF_FIT_SYNTHESIS_OFFSET + (double)i * r->step, y);
    }
}

/* Layer k with `noise` at frequency f rendered into lr (w x h, `step`
 * apart) unless it already holds exactly that. */
static int render_layer(terrain_trials *t, layer_render *lr, size_t k, tf_noise_type noise,
                        double f, double step, size_t w, size_t h)
{
    if (lr->valid && lr->noise == noise && lr->frequency == f && lr->step == step)
        return 0;
    if (!lr->values && !(lr->values = malloc(w * h * sizeof *lr->values)))
        return fail_nomem(t->c);
    const tf_layer_spec *ls = &t->c->spec->layers[k];
    tf_layer_spec layer = t->c->kind[k];
    layer.noise_type = noise;
    layer.seed = ls->seed;
    memcpy(layer.offset, ls->offset, sizeof layer.offset);
    layer.frequency = f;
    tf_fractal_plan plan;
    tf_fractal_plan_init(&plan, &layer);
    raw_renderer r = {&layer, &plan, t->rd[k][noise], step, w, lr->values};
    tf_parallel_for(h, t->c->opt->threads, raw_rows, &r);
    lr->noise = noise;
    lr->frequency = f;
    lr->step = step;
    lr->valid = 1;
    return 0;
}

/* The per-cell loops of a trial, split over the threads (each cell is
 * computed alone, so the result does not depend on the split). */
typedef enum { TRIAL_MASKED, TRIAL_SUMS, TRIAL_TERRAIN } trial_loop_kind;

typedef struct {
    terrain_trials *t;
    trial_loop_kind kind;
    size_t k;             /* TRIAL_MASKED: the layer */
    const double *amp;    /* TRIAL_SUMS, TRIAL_TERRAIN */
    const tf_curve *oc;   /* TRIAL_TERRAIN: the output curve, or NULL */
} trial_loop;

static void trial_cells(void *ctx, size_t lo, size_t hi)
{
    const trial_loop *tl = ctx;
    terrain_trials *t = tl->t;
    size_t count = t->count;
    if (tl->kind == TRIAL_MASKED) {
        /* m_k = r_k x mask_k(r_0), and its float copy for the spectrum. */
        const double *r = t->raw[tl->k].values, *r0 = t->raw[0].values;
        const tf_curve *mask = t->mask[tl->k];
        double *mk = t->masked[tl->k];
        for (size_t i = lo; i < hi; i++) {
            mk[i] = mask ? r[i] * tf_curve_eval(mask, r0[i]) : r[i];
            t->scratch[i] = (float)mk[i];
        }
    } else if (tl->kind == TRIAL_SUMS) {
        /* The layer sum on the sample window, as stack_sum adds it. */
        for (size_t i = lo; i < hi; i++) {
            double sum = 0.0, s0 = t->sample[0].values[i];
            for (size_t k = 0; k < count; k++) {
                double v = (t->sample[k].values[i] + 0.0) * tl->amp[k];
                if (t->mask[k])
                    v *= tf_curve_eval(t->mask[k], s0);
                sum += v;
            }
            t->sums[i] = (float)sum;
        }
    } else {
        /* The terrain through the output curve, mapped to [0, 1] over the
         * reference's range; invisible cells hold compare's placeholder.
         * (a_k m_k may differ from the runtime's (r_k a_k) mask_k(r_0) in
         * the last bit: this terrain is only scored.) */
        double span = t->hi > t->lo ? t->hi - t->lo : 1.0;
        for (size_t i = lo; i < hi; i++) {
            if (!t->ok[i]) {
                t->terrain[i] = 0.5f;
                continue;
            }
            double sum = 0.0;
            for (size_t k = 0; k < count; k++)
                sum += tl->amp[k] * t->masked[k][i];
            double v = ((tl->oc ? tf_curve_eval(tl->oc, sum) : sum) - t->lo) / span;
            t->terrain[i] = (float)(v < 0.0 ? 0.0 : v > 1.0 ? 1.0 : v);
        }
    }
}

/* Band k's curve for `noise` (built once; band_curve at frequency f).
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
    if (kind_prepare(&kind, &u_mean, &u_sd, &e) != 0) {
        tf_error_set(c->err, e.code, "%s: band %zu: %s", c->label, k, e.message);
        return -1;
    }
    band_job job = t->base[k];
    job.rd = NULL;
    job.frequency = f;
    int rc = band_curve(&t->sh, k, &t->bv[k], &kind, u_mean, u_sd, &job) != 0 ? 1 : 0;
    if (rc == 0 &&
        !(t->rd[k][noise] = tf_curve_new(job.rd, job.rd_count, TF_INTERP_MONOTONE_CUBIC, &e)))
        rc = 1;
    if (rc == 0)
        t->rd_chi2[k][noise] = job.chi2;
    else if (job.err.code == TF_ERR_NOMEM || e.code == TF_ERR_NOMEM)
        rc = fail_nomem(c);
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
    size_t count = t->count, w = t->w, h = t->h, n = t->cells, m = OUTPUT_SAMPLE_SIDE;
    double freq[TF_FIT_MAX_BANDS] = {0.0}, finer = NAN;
    for (size_t k = count; k-- > 0;) {
        tf_frequency_estimate est;
        memset(&est, 0, sizeof est);
        int estimated;
        finer = freq[k] = band_frequency(c, k, noise[k], finer, &est, &estimated);
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

    /* The calibration (stage_calibration): each layer's spectrum at
     * amplitude 1, its mask over layer 0's value included. */
    for (size_t k = 0; k < count; k++) {
        if (t->spectrum_valid[k] && t->spectrum_noise[k][0] == noise[k] &&
            t->spectrum_freq[k][0] == freq[k] && t->spectrum_noise[k][1] == noise[0] &&
            t->spectrum_freq[k][1] == freq[0])
            continue;
        if (!t->masked[k] && !(t->masked[k] = malloc(n * sizeof *t->masked[k])))
            return fail_nomem(c);
        trial_loop tl = {t, TRIAL_MASKED, k, NULL, NULL};
        tf_parallel_for(n, c->opt->threads, trial_cells, &tl);
        if (t->spectrum_valid[k])
            tf_radial_spectrum_free(&t->spectrum[k]);
        t->spectrum_valid[k] = 0;
        if (tf_radial_spectrum_compute(t->scratch, NULL, w, h, &t->spectrum[k], c->err) != 0)
            return -1;
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

    /* The output curve (stage_output_curve): the layer sum on the sample
     * window, as stack_sum adds it. */
    double step = sample_window_step(freq[0]);
    for (size_t k = 0; k < count; k++)
        if (render_layer(t, &t->sample[k], k, noise[k], freq[k], step, m, m) != 0)
            return -1;
    trial_loop sums = {t, TRIAL_SUMS, 0, amp, NULL};
    tf_parallel_for(m * m, c->opt->threads, trial_cells, &sums);
    float *sum_sorted = NULL;
    tf_error e;
    size_t nsum = tf_sorted_values(t->sums, NULL, m * m, &sum_sorted, &e);
    tf_point *pts = malloc(c->opt->points * sizeof *pts);
    if (nsum == (size_t)-1 || !pts) {
        free(sum_sorted);
        free(pts);
        return fail_nomem(c);
    }
    size_t mo = nsum >= 2 ? output_curve_points(sum_sorted, nsum, t->ref_sorted, t->nref,
                                                c->opt->points, pts)
                          : 0;
    free(sum_sorted);
    tf_curve *oc = NULL;
    if (mo >= 2 && !(oc = tf_curve_new(pts, mo, TF_INTERP_MONOTONE_CUBIC, &e))) {
        free(pts);
        return e.code == TF_ERR_NOMEM ? fail_nomem(c) : 1;
    }
    free(pts);

    /* The terrain on the reference's window (trial_cells). */
    trial_loop terrain = {t, TRIAL_TERRAIN, 0, amp, oc};
    tf_parallel_for(n, c->opt->threads, trial_cells, &terrain);
    tf_curve_free(oc);

    /* The score: compare's slope chi-square and spectrum distance. */
    metrics_grid terrain_grid = {w, h, t->terrain, c->map->weight, t->ok};
    metrics_slope_map(&terrain_grid, 1.0, t->slope, t->slope_weight);
    double q99;
    tf_radial_spectrum sp;
    if (slope_q99(t->slope, t->slope_weight, n, &q99) != 0 ||
        tf_radial_spectrum_compute(t->terrain, c->map->weight, w, h, &sp, &e) != 0)
        return fail_nomem(c);
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
        return fail_nomem(c);
    return 0;
}

/* The coordinate descent over the bands that try the candidates; each
 * band's candidates are listed in its report, and c->kind holds the
 * chosen noises. A band whose de-modulated values are flat is the same
 * constant whatever its noise: it does not try. */
static int stage_noise_auto(autolayer_ctx *c, fit_progress *progress)
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
                progress_step(progress);
            continue;
        }
        if (!(rep->noise_candidates =
                  calloc(TF_FIT_AUTO_CANDIDATES, sizeof *rep->noise_candidates))) {
            rc = fail_nomem(c);
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
            progress_step(progress);
        }
        if (best >= 0)
            noise[k] = tf_fit_auto_candidates[best];
    }
    terrain_trials_free(&t);
    for (size_t k = 0; rc == 0 && k < c->bands.count; k++) {
        c->kind[k].noise_type = noise[k];
        if (kind_prepare(&c->kind[k], &c->u_mean[k], &c->u_sd[k], c->err) != 0)
            rc = -1;
    }
    return rc;
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
        if (kind_prepare(&c.kind[k], &c.u_mean[k], &c.u_sd[k], err) != 0)
            goto fail;
    }
    report->seconds_noise_sample = tf_clock_seconds() - t0;
    /* Progress: the kinds, each --noise auto trial, the band fits (one step
     * per band), the calibration and the output curve. */
    fit_progress prog = {progress, user, 0, 1 + trials + count + 2};
    progress_step(&prog);

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
        fail_nomem(&c);
        goto fail;
    }
    if (!(c.spec = tf_spec_new(count, err)))
        goto fail;
    tf_spec_reseed(c.spec, opt->seed);

    if (stage_reference_spectrum(&c) != 0 || stage_coarse_bins(&c) != 0)
        goto fail;
    if (trials) {
        t0 = tf_clock_seconds();
        if (stage_noise_auto(&c, &prog) != 0)
            goto fail;
        report->seconds_noise_auto = tf_clock_seconds() - t0;
    }
    stage_frequencies(&c);
    t0 = tf_clock_seconds();
    if (stage_band_fits(&c) != 0 || stage_spec_layers(&c, tf_clock_seconds() - t0) != 0)
        goto fail;
    prog.done += count - 1;
    progress_step(&prog);

    t0 = tf_clock_seconds();
    if (stage_calibration(&c) != 0)
        goto fail;
    report->seconds_calibration = tf_clock_seconds() - t0;
    progress_step(&prog);

    t0 = tf_clock_seconds();
    if (stage_output_curve(&c) != 0)
        goto fail;
    report->seconds_output_curve = tf_clock_seconds() - t0;
    if (tf_spec_validate(c.spec, err) != 0)
        goto fail;
    report->min_value = c.spec->min_value;
    report->max_value = c.spec->max_value;
    report->seconds_total = tf_clock_seconds() - t_start;
    *spec_out = c.spec;
    c.spec = NULL;
    ctx_free(&c);
    progress_step(&prog);
    tf_error_clear(err);
    return 0;

fail:
    ctx_free(&c);
    return -1;
}
