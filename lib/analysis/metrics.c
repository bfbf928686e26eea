/*
 * Fidelity metrics between two height maps (docs/metrics.md): which cells
 * count, the value histogram, the power spectrum and the slope
 * distribution; the relief measures live in metrics_relief.c.
 */
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/metrics_internal.h"
#include "base/error.h"
#include "terrafit/stats.h"

/* Spectral slope band, in radial bins b (frequency b / N cycles per pixel,
 * N the longer side): from SPECTRUM_FIT_FIRST_BIN, below which the Hann
 * window's main lobe and the few features across the map dominate, to N /
 * SPECTRUM_FIT_LAST_DIVISOR, above which 8-bit quantization and pixel
 * aliasing flatten real spectra. */
#define SPECTRUM_FIT_FIRST_BIN 4
#define SPECTRUM_FIT_LAST_DIVISOR 4
/* The slope histogram spans [0, the larger of the two maps' quantiles at
 * this probability]: the top 1% is steep outliers (cliffs, seams). */
#define SLOPE_RANGE_QUANTILE 0.99
#define MAX_LOWPASS_RADIUS 256u /* box sums cost (2r + 1) per cell and pass */
/* Slopes are stored as floats: a larger scale could overflow them. */
#define MAX_HEIGHT_SCALE 1e6

tf_metrics_options tf_metrics_options_default(void)
{
    tf_metrics_options o = {.height_scale = 1.0, .lowpass_radius = 4};
    return o;
}

double tf_metrics_difference(double x, double y)
{
    if (isnan(x) || isnan(y))
        return NAN;
    return fabs(x - y);
}

/* Weighted least squares of y on x, accumulated point by point. */
typedef struct {
    double sw, sx, sy, sxx, sxy;
    size_t n;
} line_fit;

static void line_fit_add(line_fit *f, double x, double y, double wt)
{
    f->sw += wt;
    f->sx += wt * x;
    f->sy += wt * y;
    f->sxx += wt * x * x;
    f->sxy += wt * x * y;
    f->n++;
}

/* The fitted slope; NaN with fewer than 3 points or no spread in x. */
static double line_fit_slope(const line_fit *f)
{
    if (f->n < 3)
        return NAN;
    double var = f->sxx * f->sw - f->sx * f->sx;
    return var > 0.0 ? (f->sxy * f->sw - f->sx * f->sy) / var : NAN;
}

/* beta of P(f) ~ f^-beta: least squares of log10 P on log10 f over the
 * band, each bin weighted 1/b so every octave weighs the same (linear bins
 * would let the top octave, half of all bins, decide alone). */
static double spectral_slope(const tf_radial_spectrum *s, size_t longer_side)
{
    size_t last = longer_side / SPECTRUM_FIT_LAST_DIVISOR;
    line_fit fit = {0};
    for (size_t b = SPECTRUM_FIT_FIRST_BIN; b <= last && b < s->bin_count; b++) {
        if (s->count[b] == 0 || !(s->power[b] > 0.0) || !(s->frequency[b] > 0.0))
            continue;
        line_fit_add(&fit, log10(s->frequency[b]), log10(s->power[b]), 1.0 / (double)b);
    }
    double m = line_fit_slope(&fit);
    return isnan(m) ? NAN : -m;
}

/* RMS of log10 Pa' - log10 Pb' over the bins both spectra have (b >= 1:
 * not the mean), each spectrum normalized to unit total power over those
 * bins, so overall amplitude drops out and only the shape is compared. */
double metrics_spectrum_log_rms(const tf_radial_spectrum *a, const tf_radial_spectrum *b)
{
    size_t bins = a->bin_count < b->bin_count ? a->bin_count : b->bin_count;
    double total_a = 0.0, total_b = 0.0;
    size_t n = 0;
    for (size_t k = 1; k < bins; k++) {
        if (a->count[k] && b->count[k] && a->power[k] > 0.0 && b->power[k] > 0.0) {
            total_a += a->power[k];
            total_b += b->power[k];
            n++;
        }
    }
    if (n == 0)
        return NAN;
    double sum = 0.0;
    for (size_t k = 1; k < bins; k++) {
        if (a->count[k] && b->count[k] && a->power[k] > 0.0 && b->power[k] > 0.0) {
            double d = log10(a->power[k] / total_a) - log10(b->power[k] / total_b);
            sum += d * d;
        }
    }
    return sqrt(sum / (double)n);
}

void metrics_slope_map(const metrics_grid *g, double height_scale, float *slope,
                      float *slope_weight)
{
    size_t w = g->w, h = g->h;
    for (size_t y = 0; y < h; y++) {
        for (size_t x = 0; x < w; x++) {
            size_t k = y * w + x;
            if (x == 0 || y == 0 || x + 1 == w || y + 1 == h || !g->ok[k] || !g->ok[k - 1] ||
                !g->ok[k + 1] || !g->ok[k - w] || !g->ok[k + w]) {
                slope[k] = 0.0f;
                slope_weight[k] = 0.0f;
                continue;
            }
            double gx = 0.5 * ((double)g->v[k + 1] - (double)g->v[k - 1]);
            double gy = 0.5 * ((double)g->v[k + w] - (double)g->v[k - w]);
            slope[k] = (float)(height_scale * sqrt(gx * gx + gy * gy));
            slope_weight[k] = 1.0f;
        }
    }
}

/* Mean slope, its evenness (mean / RMS) and the quantile that bounds the
 * slope histogram. */
static int slope_summary(const float *slope, const float *slope_weight, size_t n, double *mean,
                         double *evenness, double *range_quantile, tf_error *err)
{
    float *sorted = NULL;
    size_t count = tf_sorted_values(slope, slope_weight, n, &sorted, err);
    if (count == (size_t)-1)
        return -1;
    if (count == 0) {
        *mean = *evenness = *range_quantile = NAN;
        return 0;
    }
    double sum = 0.0, squares = 0.0;
    for (size_t i = 0; i < count; i++) {
        sum += sorted[i];
        squares += (double)sorted[i] * (double)sorted[i];
    }
    *mean = sum / (double)count;
    /* mean / RMS: with sum > 0, squares > 0 too, and the ratio is in (0, 1] */
    *evenness = sum > 0.0 ? *mean / sqrt(squares / (double)count) : NAN;
    *range_quantile = tf_quantile_sorted(sorted, count, SLOPE_RANGE_QUANTILE);
    free(sorted);
    return 0;
}

static int check_inputs(const tf_layer_map *a, const tf_layer_map *b, const tf_metrics_options *o,
                        tf_error *err)
{
    if (!a || !b || !a->value || !a->weight || !b->value || !b->weight) {
        tf_error_set(err, TF_ERR_ARGUMENT, "a map is missing");
        return -1;
    }
    if (a->width != b->width || a->height != b->height) {
        tf_error_set(err, TF_ERR_ARGUMENT, "the maps differ in size (%zux%zu and %zux%zu)",
                     a->width, a->height, b->width, b->height);
        return -1;
    }
    if (a->width < TF_METRICS_MIN_SIDE || a->height < TF_METRICS_MIN_SIDE) {
        tf_error_set(err, TF_ERR_ARGUMENT,
                     "the maps are %zux%zu; each side must be at least %d",
                     a->width, a->height, TF_METRICS_MIN_SIDE);
        return -1;
    }
    if (a->width > TF_MAX_REFERENCE_SIDE || a->height > TF_MAX_REFERENCE_SIDE ||
        a->width * a->height > TF_MAX_REFERENCE_PIXELS) {
        tf_error_set(err, TF_ERR_LIMIT,
                     "the maps are %zux%zu, beyond the limit of %u per side and %zu "
                     "cells",
                     a->width, a->height, TF_MAX_REFERENCE_SIDE, TF_MAX_REFERENCE_PIXELS);
        return -1;
    }
    if (!(o->height_scale > 0.0 && o->height_scale <= MAX_HEIGHT_SCALE)) {
        tf_error_set(err, TF_ERR_ARGUMENT, "height scale %g must be > 0 and at most %g",
                     o->height_scale, MAX_HEIGHT_SCALE);
        return -1;
    }
    if (o->lowpass_radius < 1 || o->lowpass_radius > MAX_LOWPASS_RADIUS) {
        tf_error_set(err, TF_ERR_ARGUMENT, "low-pass radius %u must be 1 to %u",
                     o->lowpass_radius, MAX_LOWPASS_RADIUS);
        return -1;
    }
    return 0;
}

/* Working memory of one comparison, freed in one place. */
typedef struct {
    unsigned char *ok;
    float *weight;
    float *value[2];
    float *slope[2];
    float *slope_weight;
    tf_radial_spectrum spectrum[2];
    bool have_spectrum[2];
} work;

static void work_free(work *wk)
{
    free(wk->ok);
    free(wk->weight);
    free(wk->slope_weight);
    for (int m = 0; m < 2; m++) {
        free(wk->value[m]);
        free(wk->slope[m]);
        if (wk->have_spectrum[m])
            tf_radial_spectrum_free(&wk->spectrum[m]);
    }
}

/* The arrays of a comparison of n cells; -1 (err set, wk freed) when
 * memory runs out. */
static int work_alloc(work *wk, size_t w, size_t h, tf_error *err)
{
    size_t n = w * h;
    wk->ok = malloc(n);
    wk->weight = malloc(n * sizeof *wk->weight);
    wk->slope_weight = malloc(n * sizeof *wk->slope_weight);
    for (int m = 0; m < 2; m++) {
        wk->value[m] = malloc(n * sizeof *wk->value[m]);
        wk->slope[m] = malloc(n * sizeof *wk->slope[m]);
    }
    if (!wk->ok || !wk->weight || !wk->slope_weight || !wk->value[0] || !wk->value[1] ||
        !wk->slope[0] || !wk->slope[1]) {
        work_free(wk);
        tf_error_set(err, TF_ERR_NOMEM, "out of memory for %zux%zu maps", w, h);
        return -1;
    }
    return 0;
}

/* The per-map measurements (everything but the pairwise distances); with
 * `full` 0 only those the fitter's scorer reads (no flow routing, no
 * relief correlations: NaN). */
static int measure_map(const metrics_grid *g, work *wk, int m, const tf_metrics_options *o,
                       int full, tf_map_metrics *out, double *slope_range_quantile,
                       tf_error *err)
{
    size_t n = g->w * g->h;
    if (wk->have_spectrum[m]) {
        tf_radial_spectrum_free(&wk->spectrum[m]);
        wk->have_spectrum[m] = false;
    }
    if (tf_radial_spectrum_compute(g->v, g->weight, g->w, g->h, &wk->spectrum[m], err) != 0)
        return -1;
    wk->have_spectrum[m] = true;
    out->spectral_slope = spectral_slope(&wk->spectrum[m], g->w > g->h ? g->w : g->h);

    metrics_slope_map(g, o->height_scale, wk->slope[m], wk->slope_weight);
    if (slope_summary(wk->slope[m], wk->slope_weight, n, &out->slope_mean, &out->slope_evenness,
                      slope_range_quantile, err) != 0)
        return -1;
    /* Maximum likelihood rate of an exponential distribution (Parberry 2015). */
    out->slope_rate = out->slope_mean > 0.0 ? 1.0 / out->slope_mean : NAN;

    if (metrics_box_dimension(g, &out->box_dimension, err) != 0)
        return -1;
    metrics_extrema(g, &out->peak_density, &out->pit_peak_ratio);
    if (!full) {
        out->channel_share = out->flow_path_length = NAN;
        out->roughness_elevation = out->slope_elevation = NAN;
        return metrics_depression_share(g, &out->depression_share, err);
    }
    metrics_drainage_values drainage;
    if (metrics_drainage(g, &drainage, err) != 0)
        return -1;
    out->depression_share = drainage.depression_share;
    out->channel_share = drainage.channel_share;
    out->flow_path_length = drainage.flow_path_length;
    return metrics_relief_correlations(g, wk->slope[m], wk->slope_weight, o->lowpass_radius,
                                       &out->roughness_elevation, &out->slope_elevation, err);
}

/* The distances that need both maps measured: the spectra's, and the
 * slope histograms' over a range both maps share (all-flat maps put every
 * slope in the first bin). */
static void pair_distances(const work *wk, size_t n, const double range_quantile[2],
                           tf_metrics_report *r)
{
    r->spectrum_log_rms = metrics_spectrum_log_rms(&wk->spectrum[0], &wk->spectrum[1]);
    if (isnan(range_quantile[0])) {
        r->slope_range = r->slope_chi2 = NAN;
        return;
    }
    double hist[2][TF_METRICS_HISTOGRAM_BINS];
    r->slope_range = fmax(range_quantile[0], range_quantile[1]);
    double hi = r->slope_range > 0.0 ? r->slope_range : 1.0;
    for (int m = 0; m < 2; m++)
        tf_histogram(wk->slope[m], wk->slope_weight, n, 0.0, hi, TF_METRICS_HISTOGRAM_BINS,
                     hist[m]);
    r->slope_chi2 = tf_chi2_distance(hist[0], hist[1], TF_METRICS_HISTOGRAM_BINS);
}

int tf_metrics_compute(const tf_layer_map *a, const tf_layer_map *b,
                       const tf_metrics_options *options, tf_metrics_report *out, tf_error *err)
{
    tf_metrics_options o = options ? *options : tf_metrics_options_default();
    if (!out) {
        tf_error_set(err, TF_ERR_ARGUMENT, "no report to fill");
        return -1;
    }
    if (check_inputs(a, b, &o, err) != 0)
        return -1;
    size_t w = a->width, h = a->height, n = w * h;
    const tf_layer_map *maps[2] = {a, b};

    work wk;
    memset(&wk, 0, sizeof wk);
    if (work_alloc(&wk, w, h, err) != 0)
        return -1;

    /* A cell counts where both weights are > 0 and both values finite;
     * elsewhere the working values hold a finite placeholder. */
    size_t cells = 0;
    for (size_t k = 0; k < n; k++) {
        bool ok = a->weight[k] > 0.0f && b->weight[k] > 0.0f && isfinite(a->value[k]) &&
                  isfinite(b->value[k]);
        wk.ok[k] = ok;
        wk.weight[k] = ok ? 1.0f : 0.0f;
        cells += ok;
        for (int m = 0; m < 2; m++)
            wk.value[m][k] = ok ? maps[m]->value[k] : 0.5f;
    }
    if (cells == 0) {
        work_free(&wk);
        tf_error_set(err, TF_ERR_ARGUMENT, "no cell is present in both maps");
        return -1;
    }

    tf_metrics_report r;
    memset(&r, 0, sizeof r);
    r.width = w;
    r.height = h;
    r.cells = cells;
    r.options = o;

    /* Value histograms: 32 bins over [0, 1], the thesis's chi-square (5.4.1). */
    double hist[2][TF_METRICS_HISTOGRAM_BINS];
    for (int m = 0; m < 2; m++)
        tf_histogram(wk.value[m], wk.weight, n, 0.0, 1.0, TF_METRICS_HISTOGRAM_BINS, hist[m]);
    r.histogram_chi2 = tf_chi2_distance(hist[0], hist[1], TF_METRICS_HISTOGRAM_BINS);

    tf_map_metrics *per_map[2] = {&r.a, &r.b};
    double range_quantile[2];
    for (int m = 0; m < 2; m++) {
        metrics_grid g = {.w = w, .h = h, .v = wk.value[m], .weight = wk.weight, .ok = wk.ok};
        if (measure_map(&g, &wk, m, &o, 1, per_map[m], &range_quantile[m], err) != 0) {
            work_free(&wk);
            return -1;
        }
    }
    pair_distances(&wk, n, range_quantile, &r);
    work_free(&wk);
    *out = r;
    return 0;
}

/* ---- one reference, many maps (metrics_internal.h) */

struct metrics_scorer {
    const tf_layer_map *reference;
    tf_metrics_options o;
    size_t w, h, cells;
    work wk; /* [0]: the reference's arrays and spectrum, kept; [1]: the map's */
    tf_map_metrics a;
    double range_quantile[2];                /* [0]: the reference's */
    double hist[TF_METRICS_HISTOGRAM_BINS]; /* the reference's values */
};

void metrics_scorer_free(metrics_scorer *s)
{
    if (!s)
        return;
    work_free(&s->wk);
    free(s);
}

metrics_scorer *metrics_scorer_new(const tf_layer_map *reference,
                                   const tf_metrics_options *options, tf_error *err)
{
    tf_metrics_options o = options ? *options : tf_metrics_options_default();
    if (check_inputs(reference, reference, &o, err) != 0)
        return NULL;
    metrics_scorer *s = calloc(1, sizeof *s);
    if (!s) {
        tf_error_set(err, TF_ERR_NOMEM, "out of memory for the metrics of a reference");
        return NULL;
    }
    s->reference = reference;
    s->o = o;
    s->w = reference->width;
    s->h = reference->height;
    size_t n = s->w * s->h;
    work *wk = &s->wk;
    if (work_alloc(wk, s->w, s->h, err) != 0) {
        free(s);
        return NULL;
    }
    /* tf_metrics_compute's cells with b = the reference: the cells where
     * the reference counts (a map compared later counts there too, or is
     * compared by tf_metrics_compute) */
    for (size_t k = 0; k < n; k++) {
        bool ok = reference->weight[k] > 0.0f && isfinite(reference->value[k]);
        wk->ok[k] = ok;
        wk->weight[k] = ok ? 1.0f : 0.0f;
        s->cells += ok;
        wk->value[0][k] = ok ? reference->value[k] : 0.5f;
    }
    if (s->cells == 0) {
        metrics_scorer_free(s);
        tf_error_set(err, TF_ERR_ARGUMENT, "no cell is present in both maps");
        return NULL;
    }
    tf_histogram(wk->value[0], wk->weight, n, 0.0, 1.0, TF_METRICS_HISTOGRAM_BINS, s->hist);
    metrics_grid g = {.w = s->w, .h = s->h, .v = wk->value[0], .weight = wk->weight,
                      .ok = wk->ok};
    if (measure_map(&g, wk, 0, &o, 1, &s->a, &s->range_quantile[0], err) != 0) {
        metrics_scorer_free(s);
        return NULL;
    }
    return s;
}

int metrics_scorer_compare(metrics_scorer *s, const tf_layer_map *b, tf_metrics_report *out,
                           tf_error *err)
{
    if (check_inputs(s->reference, b, &s->o, err) != 0)
        return -1;
    work *wk = &s->wk;
    size_t n = s->w * s->h;
    for (size_t k = 0; k < n; k++) {
        if (wk->ok[k] && !(b->weight[k] > 0.0f && isfinite(b->value[k])))
            return tf_metrics_compute(s->reference, b, &s->o, out, err);
        wk->value[1][k] = wk->ok[k] ? b->value[k] : 0.5f;
    }
    tf_metrics_report r;
    memset(&r, 0, sizeof r);
    r.width = s->w;
    r.height = s->h;
    r.cells = s->cells;
    r.options = s->o;
    r.a = s->a;
    double hist[TF_METRICS_HISTOGRAM_BINS];
    tf_histogram(wk->value[1], wk->weight, n, 0.0, 1.0, TF_METRICS_HISTOGRAM_BINS, hist);
    r.histogram_chi2 = tf_chi2_distance(s->hist, hist, TF_METRICS_HISTOGRAM_BINS);
    metrics_grid g = {.w = s->w, .h = s->h, .v = wk->value[1], .weight = wk->weight,
                      .ok = wk->ok};
    if (measure_map(&g, wk, 1, &s->o, 0, &r.b, &s->range_quantile[1], err) != 0)
        return -1;
    pair_distances(wk, n, s->range_quantile, &r);
    *out = r;
    return 0;
}
