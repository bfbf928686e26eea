/*
 * Base-frequency estimation for one reference layer (thesis 5.4.1 and
 * beyond): the thesis's peak-count estimator and a power-spectrum estimator
 * (FFTW3), each matched against the layer's own base noise. Full library.
 * Every formula, the sample designs and the measured accuracy are in
 * docs/frequency.md.
 *
 *     tf_frequency_estimate est;
 *     if (tf_estimate_frequency(layer, TF_NOISE_SIMPLEX, curve, TF_FREQUENCY_AUTO, &est,
 *                               &err) == 0)
 *         printf("f = %g (%s): %s\n", est.chosen,
 *                tf_frequency_method_name(est.chosen_method), est.reason);
 *
 * Frequency f is in lattice units of the base noise per pixel: a layer's
 * noise is base(x*f + ox, y*f + oy) with x, y in pixels.
 */
#ifndef TERRAFIT_FREQUENCY_H
#define TERRAFIT_FREQUENCY_H

#include <terrafit/image.h>
#include <terrafit/runtime.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef enum {
    TF_FREQUENCY_PEAKS = 0,    /* "peaks": peak density along rows and columns */
    TF_FREQUENCY_SPECTRUM = 1, /* "spectrum": radially averaged power spectrum */
    TF_FREQUENCY_AUTO = 2      /* "auto": pick per layer, with a reason */
} tf_frequency_method;

/* "peaks", "spectrum", "auto"; NULL when out of range. */
TF_API const char *tf_frequency_method_name(tf_frequency_method method);
/* 0 and *method set when `name` is a method name; -1 otherwise. */
TF_API int tf_frequency_method_from_name(const char *name, tf_frequency_method *method);

typedef struct {
    double peaks;     /* frequency (lattice units per pixel) from peak density; NaN if none */
    double spectrum;  /* frequency from spectrum matching; NaN if none */
    double chosen;    /* the one to use (as `method` asked, or auto's pick) */
    tf_frequency_method chosen_method; /* PEAKS or SPECTRUM */
    double reference_peaks_per_pixel;  /* measured on the reference layer */
    char reason[200]; /* one sentence: why this estimate was chosen */
    /* Diagnostics (NaN when the estimator that makes them did not run or failed): */
    double white_noise_sigma; /* the spectrum's white-noise floor as a standard deviation, in
                                 value units (sqrt of the floor's power) */
    double value_sigma;       /* standard deviation of the visible values */
    double spectrum_misfit;   /* RMS of ln(reference power / model power) over the fitted band */
    double visible_fraction;  /* visible cells / all cells */
} tf_frequency_estimate;

/* Estimate the base frequency of `layer` (cells with weight > 0 only) for
 * base noise `noise`. `rd` is the layer's fitted redistribution curve (the
 * map from the noise's unit value u = (n + 1) / 2 to the layer's value), or
 * NULL for the identity; it lets the estimator model the noise as it will
 * be synthesized. Deterministic; safe to call from several threads at once.
 * 0 on success; on failure (e.g. too few visible cells) -1 with err filled.
 * With TF_FREQUENCY_PEAKS or TF_FREQUENCY_SPECTRUM only that estimator runs
 * (the other field is NaN) and its failure is the call's failure; with
 * TF_FREQUENCY_AUTO both run and the call fails only when both do. */
TF_API int tf_estimate_frequency(const tf_layer_map *layer, tf_noise_type noise, const tf_curve *rd,
                          tf_frequency_method method, tf_frequency_estimate *out, tf_error *err);

/* The thesis's peak density of a layer (5.4.1): along every row and every
 * column, over each run of consecutive visible cells, the number of changes
 * from increasing to decreasing (flat steps keep the previous direction),
 * divided by the number of interior cells of the runs (a run of n cells has
 * n - 2 cells that can be a peak). 0 on success; -1 with err filled when no
 * run has an interior cell. */
TF_API int tf_layer_peak_density(const tf_layer_map *layer, double *peaks_per_pixel, tf_error *err);

/* Peaks per sample of base noise `noise` sampled along lines at `step`
 * lattice units per sample, from a table built once per noise kind
 * (docs/frequency.md, "Peak density of the base noise"). Increasing in
 * step up to tf_noise_peak_step_max(noise); NaN beyond it or for step <= 0
 * or non-finite step. */
TF_API double tf_noise_peak_density(tf_noise_type noise, double step);
/* The largest step the table resolves (where the density stops increasing). */
TF_API double tf_noise_peak_step_max(tf_noise_type noise);

#ifdef __cplusplus
}
#endif
#endif /* TERRAFIT_FREQUENCY_H */
