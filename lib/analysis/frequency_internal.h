/*
 * Private interface between the frequency estimators' sources: the peak
 * counter and the base noise's peak-density table (frequency_peaks.c) and
 * the spectrum matcher (frequency_spectrum.c), combined in frequency.c.
 */
#ifndef TF_ANALYSIS_FREQUENCY_INTERNAL_H
#define TF_ANALYSIS_FREQUENCY_INTERNAL_H

#include <stddef.h>

#include "terrafit/frequency.h"

/* Peaks and interior cells over all visible runs of rows and columns. */
typedef struct {
    size_t peaks;
    size_t interior;
} freq_peak_count;

/* 0 on success; -1 when out of memory. */
int freq_count_peaks(const tf_layer_map *layer, freq_peak_count *count);

/* The step s (lattice units per sample) at which the base noise has
 * `density` peaks per sample: the inverse of tf_noise_peak_density.
 * NaN when density <= 0; *saturated = 1 (and NaN) when density is at or
 * beyond the largest density the table resolves. */
double freq_noise_peak_step(tf_noise_type noise, double density, int *saturated);

/* Share of the base noise's peaks at `step` that survive the layer's
 * storage: the curve `rd` (NULL: identity), then rounding to multiples of
 * `quantum` (1/255 for 8-bit samples). Rounding merges peak-valley pairs
 * smaller than a step, so a quantized reference has fewer peaks than its
 * noise; dividing its density by this ratio undoes that. NaN on failure. */
double freq_quantized_peak_ratio(tf_noise_type noise, const tf_curve *rd, double step,
                                 double quantum);

/* What the spectrum matcher found. */
typedef struct {
    double frequency;  /* the estimate, lattice units per pixel */
    double amplitude;  /* A: reference power = A * model(k / f) + floor */
    double floor;      /* W, the fitted white-noise floor (power per frequency) */
    double white;      /* floor used for the white-noise figure (see docs) */
    double misfit;     /* RMS ln residual over the band */
    size_t band_bins;  /* bins fitted */
    int at_limit;      /* the estimate sits at the edge of the searchable range */
} freq_spectrum_fit;

/* 0 on success; -1 with err filled (too small, constant, no power). */
int freq_spectrum_estimate(const tf_layer_map *layer, tf_noise_type noise, const tf_curve *rd,
                           freq_spectrum_fit *fit, tf_error *err);

#endif
