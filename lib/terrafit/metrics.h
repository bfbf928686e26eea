/*
 * Fidelity metrics between two height maps (`terrafit compare`):
 * value histogram, power spectrum, slope distribution, box-counting
 * dimension of the median contour, peaks, depressions, the drainage network
 * and relief structure.
 * Every definition, formula and constant is in docs/metrics.md.
 *
 *     tf_metrics_report r;
 *     if (tf_metrics_compute(reference, synthesized, NULL, &r, &err) != 0)
 *         fprintf(stderr, "%s\n", err.message);
 *     printf("chi2 %.4f, beta %.2f vs %.2f\n", r.histogram_chi2,
 *            r.a.spectral_slope, r.b.spectral_slope);
 *
 * Part of the full library (FFTW3 through stats.h).
 */
#ifndef TERRAFIT_METRICS_H
#define TERRAFIT_METRICS_H

#include <stddef.h>
#include <terrafit/image.h>
#include <terrafit/runtime.h>

#ifdef __cplusplus
extern "C" {
#endif

#define TF_METRICS_HISTOGRAM_BINS 32 /* value and slope histograms */
#define TF_METRICS_MIN_SIDE 8        /* smallest width or height accepted */

/* Knobs; tf_metrics_options_default() gives the documented defaults. */
typedef struct {
    /* Slopes are height_scale * |gradient of the value map| per pixel.
     * 1: value units (the map's full range) per pixel. For a DEM whose
     * range is R metres on cells of c metres, R / c gives rise over run.
     * 0 < height_scale <= 1e6. */
    double height_scale;
    /* Half-width r of the (2r+1) x (2r+1) box low-pass that separates
     * elevation from roughness; 1 to 256. */
    unsigned lowpass_radius;
} tf_metrics_options;

TF_API tf_metrics_options tf_metrics_options_default(void);

/* Values of one map. NaN where undefined (docs/metrics.md says when: e.g.
 * a flat map has no slope rate and no median contour). */
typedef struct {
    double spectral_slope;      /* beta of P(k) ~ k^-beta over the fitted band */
    double slope_mean;          /* mean slope (height_scale units per pixel) */
    double slope_rate;          /* exponential rate lambda = 1 / slope_mean */
    double slope_evenness;      /* mean slope / RMS slope: 1 when every cell is as steep,
                                   0.886 for a Gaussian field, lower where steep and gentle
                                   ground alternate */
    double box_dimension;       /* box-counting dimension of the median contour */
    double peak_density;        /* strict 8-neighbour maxima per 1000 cells */
    double pit_peak_ratio;      /* strict 8-neighbour minima / maxima */
    double depression_share;    /* share of cells in closed depressions */
    double channel_share;       /* share of cells draining >= 64 cells after the flood */
    double flow_path_length;    /* mean flow path to an outlet / sqrt(cells) */
    double roughness_elevation; /* normal-score correlation, roughness vs low-pass */
    double slope_elevation;     /* normal-score correlation, slope vs low-pass */
} tf_map_metrics;

typedef struct {
    size_t width, height;
    size_t cells;             /* cells where both weights are > 0 */
    tf_map_metrics a, b;      /* per map, over those cells */
    double histogram_chi2;    /* value histograms, 32 bins over [0, 1] */
    double spectrum_log_rms;  /* RMS of log10 P_a - log10 P_b, unit total power */
    double slope_chi2;        /* slope histograms, 32 bins over [0, slope_range] */
    double slope_range;       /* max of the two maps' 99th-percentile slopes */
    tf_metrics_options options;
} tf_metrics_report;

/* Compare `a` with `b` (same size, values in [0, 1]). A cell counts where
 * both weights are > 0. `options` may be NULL (defaults). 0 on success;
 * -1 with err filled on different sizes, a side below TF_METRICS_MIN_SIDE,
 * more than TF_MAX_REFERENCE_PIXELS cells, no cell counted, bad options or
 * no memory. Deterministic; `out` is untouched on failure. */
TF_API int tf_metrics_compute(const tf_layer_map *a, const tf_layer_map *b,
                       const tf_metrics_options *options, tf_metrics_report *out, tf_error *err);

/* Distance between two per-map values: |x - y|, NaN when either is NaN. */
TF_API double tf_metrics_difference(double x, double y);

/* Pearson correlation of the normal scores of x and y (n pairs): each
 * series is ranked (ties get their mean rank), rank r of n maps to
 * Phi^-1((r - 0.5) / n), then the two score series are correlated. NaN when
 * n < 3 or a series is constant; -2 (not a correlation) on allocation
 * failure, with err filled. */
TF_API double tf_normal_score_correlation(const double *x, const double *y, size_t n, tf_error *err);

/* The standard normal quantile Phi^-1(p) for p in (0, 1) (Wichura's AS241,
 * about 1e-16 relative accuracy); -inf / +inf at 0 / 1, NaN outside. */
TF_API double tf_normal_quantile(double p);

#ifdef __cplusplus
}
#endif
#endif /* TERRAFIT_METRICS_H */
