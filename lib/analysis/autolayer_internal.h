/*
 * Private declarations of auto-layering (bands.c, autolayer.c): fitting one
 * fully present reference as a stack of octave-band layers with learned
 * mask curves and an output curve (docs/fitting.md, "Auto-layering").
 */
#ifndef TF_ANALYSIS_AUTOLAYER_INTERNAL_H
#define TF_ANALYSIS_AUTOLAYER_INTERNAL_H

#include <stddef.h>

#include "terrafit/fit.h"

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

/* Fit `map` as `count` band layers (0: automatic count). `report` is filled
 * (zeroed first; free with tf_fit_report_free even on failure). `label`
 * names the reference in messages. 0 on success with *spec_out set. */
int fit_autolayer(const tf_layer_map *map, size_t count, const tf_fit_options *opt,
                  const char *label, tf_spec **spec_out, tf_fit_report *report,
                  tf_progress_fn progress, void *user, tf_error *err);

#endif
