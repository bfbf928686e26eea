/*
 * Private declarations of auto-layering (bands.c, autolayer.c,
 * autolayer_spectrum.c, autolayer_trials.c): fitting one fully present
 * reference as a stack of octave-band layers with learned mask curves and
 * an output curve (docs/fitting.md, "Auto-layering").
 */
#ifndef TF_ANALYSIS_AUTOLAYER_INTERNAL_H
#define TF_ANALYSIS_AUTOLAYER_INTERNAL_H

#include <stddef.h>

#include "terrafit/fit.h"
#include "terrafit/terrafit.h"

/* Merge the finest band into the next one (count >= 2): the new finest is
 * the residual above the next low-pass scale. */
void autolayer_bands_merge_finest(tf_bands *bands);

/* The automatic band count stops where the finest band's RMS falls below
 * this share of the reference's standard deviation (docs/fitting.md). */
#define AUTOLAYER_MIN_BAND_SHARE 0.06

/* 1 when every weight is 0 or 1 (a DEM, optionally with no-data cells or a
 * --valid mask): the reference auto-layering accepts. */
int autolayer_fully_present(const tf_layer_map *map);

/* Measure the base noise's radial spectrum once per kind (thread-safe), so
 * frequency matching finds it ready. 0 on success. */
int autolayer_noise_spectrum_prepare(tf_noise_type noise, tf_error *err);

/* Free every measured spectrum (tf_fit_release_caches): none may be in use. */
void autolayer_noise_spectra_release(void);

/* Joint amplitudes a_k of `count` layers whose spectra at amplitude 1 are
 * `layer_spectra`, against the reference's spectrum `ref`
 * (docs/fitting.md, "Amplitudes"); *rms_out is the data term's RMS in ln
 * units. 0 on success. */
int autolayer_calibrate_amplitudes(const tf_radial_spectrum *layer_spectra,
                                   const tf_radial_spectrum *ref, size_t count, double *amp,
                                   double *rms_out, tf_error *err);

/* Layer (band) i's base noise and layer kind from the options (noise_type
 * and the fractal with its kind's defaults; the rest zeroed); *try_auto
 * says whether the options ask for the --noise auto trials (fit.c). */
void fit_layer_kind_of(const tf_fit_options *opt, size_t i, tf_layer_spec *kind, int *try_auto);

/* 0 when no per-layer noise or kind names a layer at or beyond `count`;
 * else -1 with err filled. */
int fit_check_layer_kinds(const tf_fit_options *opt, size_t count, tf_error *err);

/* ------------------------------------ shared by autolayer.c and the trials */

/* The sample window of the synthesized layer sum (output curve): points
 * per side. */
#define AUTOLAYER_OUTPUT_SAMPLE_SIDE 512

/* What the per-band fits share, read-only (autolayer_band_shared_init). */
typedef struct {
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

/* One band's fit: its frequency in; its moments, mask curve, equalized
 * curve (rd, malloc'd), blend and chi-square out. */
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

/* What band k's layer is fitted to, whatever its noise: the de-modulated
 * values (0 at invisible cells), the visible ones sorted, and their mean
 * and variance. */
typedef struct {
    float *demod;
    float *sorted;
    size_t n;
    double mean, var;
} band_values;

/* The calibrated fit and its report figures, kept while the slope match
 * tilts the spec, for the drainage stage's choice between the two. */
typedef struct {
    tf_spec *spec; /* NULL without a tilt to choose against */
    double amplitude[TF_FIT_MAX_BANDS];
    double output_chi2_before, output_chi2_after;
    size_t output_curve_points;
    double output_slope_gain;
} autolayer_calibrated;

/* Everything one auto-layered fit holds (fit_autolayer; freed by its
 * ctx_free). */
typedef struct {
    const tf_layer_map *map;
    const tf_fit_options *opt;
    const char *label;
    tf_fit_report *report;
    tf_error *err;
    size_t cells;
    tf_bands bands;
    tf_radial_spectrum ref_spectrum;
    autolayer_calibrated calibrated;
    tf_spec *spec;
    band_job *jobs;
    unsigned char *bin_of;
    double bin_x[TF_FIT_MASK_CURVE_BINS];
    /* Each band's noise and layer kind (--noise, --layer-kind, per band or
     * for all), and its unit value's mean and standard deviation. */
    tf_layer_spec kind[TF_FIT_MAX_BANDS];
    double u_mean[TF_FIT_MAX_BANDS], u_sd[TF_FIT_MAX_BANDS];
    /* --noise auto: the bands that try the candidates. */
    int try_auto[TF_FIT_MAX_BANDS];
} autolayer_ctx;

/* Progress of the whole fit, advanced on the calling thread. */
typedef struct {
    tf_progress_fn fn;
    void *user;
    size_t done, total;
} fit_progress;

/* The spectra at amplitude 1 of the layers k with wanted[k] set (every
 * layer when wanted is NULL), as the calibration fits them, each averaged
 * over the calibration's windows (autolayer.c) into out[k]; `t` is the
 * spec with every amplitude 1.
 * window0 (NULL, or NULL entries: rendered) may hold layers' redistributed
 * values on the first window, the reference's size at the synthesis
 * offset. 0, or -1 with c->err filled (the wanted out[] then hold
 * nothing). */
int autolayer_calibration_spectra(autolayer_ctx *c, const tf_terrain *t, const int *wanted,
                                  const double *const *window0, tf_radial_spectrum *out);

/* The step between a sample window's points, in samples, for a layer of
 * frequency f: a fixed irrational share of a lattice unit, at least 1. */
double autolayer_sample_window_step(double f);

/* The noise-independent part of band k's fit: its moments, mask curve,
 * de-modulated values (into *bv; free with autolayer_band_values_free)
 * and their kurtosis and range (into *job). 0, or -1 with job->err. */
int autolayer_band_demodulate(const band_shared *sh, size_t k, band_job *job, band_values *bv);
void autolayer_band_values_free(band_values *bv);

/* The part of band k's fit that depends on its noise and kind: equalized
 * curve against `kind`'s output (u_mean, u_sd: of its unit value), the
 * heavy-tail blend, the chi-square at job->frequency; job->rd is
 * (re)allocated. 0, or -1 with job->err. */
int autolayer_band_curve(const band_shared *sh, size_t k, const band_values *bv,
                         const tf_layer_spec *kind, double u_mean, double u_sd, band_job *job);

/* Band k's frequency for `noise`: the centroid match, kept below the next
 * finer band's frequency `finer`; fills *est and *estimated. */
double autolayer_band_frequency(const autolayer_ctx *c, size_t k, tf_noise_type noise,
                                double finer, tf_frequency_estimate *est, int *estimated);

/* The mean and standard deviation of a layer kind's unit value, with its
 * equalization sample and its base noise's spectrum made ready. 0 on
 * success. */
int autolayer_kind_prepare(const tf_layer_spec *kind, double *mean, double *sd, tf_error *err);

/* The slopes' 99th percentile (NaN when no cell has one). 0, or -1 out
 * of memory. */
int autolayer_slope_q99(const float *slope, const float *slope_weight, size_t n, double *q);

void autolayer_band_shared_init(autolayer_ctx *c, band_shared *sh);

/* "out of memory" for the fit's label into c->err; returns -1. */
int autolayer_fail_nomem(autolayer_ctx *c);

/* The output curve's points (at most kpts), the layer sums' quantiles to
 * the reference's; returns how many are kept. */
size_t autolayer_output_curve_points(const float *sum_sorted, size_t nsum,
                                     const float *ref_sorted, size_t nref, size_t kpts,
                                     tf_point *pts);

/* One step of the fit's progress, reported on the calling thread. */
void autolayer_progress_step(fit_progress *p);

/* --noise auto on the bands (autolayer_trials.c): the coordinate descent
 * over the bands that try the candidates, their candidates listed in
 * their reports, c->kind (and u_mean, u_sd) set to the chosen noises. 0,
 * or -1 with c->err filled. */
int autolayer_noise_auto(autolayer_ctx *c, fit_progress *progress);

/* Fit `map` as `count` band layers (0: automatic count). `report` is filled
 * (zeroed first; free with tf_fit_report_free even on failure). `label`
 * names the reference in messages. 0 on success with *spec_out set. */
int fit_autolayer(const tf_layer_map *map, size_t count, const tf_fit_options *opt,
                  const char *label, tf_spec **spec_out, tf_fit_report *report,
                  tf_progress_fn progress, void *user, tf_error *err);

#endif
