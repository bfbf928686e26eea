/*
 * Base-frequency estimation for one reference layer (thesis 5.4.1 and
 * beyond): the thesis's peak-count estimator and a power-spectrum estimator
 * (FFTW3), each matched against the layer's own base noise. Full library.
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
const char *tf_frequency_method_name(tf_frequency_method method);
/* 0 and *method set when `name` is a method name; -1 otherwise. */
int tf_frequency_method_from_name(const char *name, tf_frequency_method *method);

typedef struct {
    double peaks;     /* frequency (lattice units per pixel) from peak density; NaN if none */
    double spectrum;  /* frequency from spectrum matching; NaN if none */
    double chosen;    /* the one to use (as `method` asked, or auto's pick) */
    tf_frequency_method chosen_method; /* PEAKS or SPECTRUM */
    double reference_peaks_per_pixel;  /* measured on the reference layer */
    char reason[200]; /* one sentence: why this estimate was chosen */
} tf_frequency_estimate;

/* Estimate the base frequency of `layer` (cells with weight > 0 only) for
 * base noise `noise`. `rd` is the layer's fitted redistribution curve (the
 * map from the noise's unit value u = (n + 1) / 2 to the layer's value), or
 * NULL for the identity; it lets the estimator model the noise as it will
 * be synthesized. Deterministic. 0 on success; on failure (e.g. too few
 * visible cells) -1 with err filled. */
int tf_estimate_frequency(const tf_layer_map *layer, tf_noise_type noise, const tf_curve *rd,
                          tf_frequency_method method, tf_frequency_estimate *out, tf_error *err);

#ifdef __cplusplus
}
#endif
#endif /* TERRAFIT_FREQUENCY_H */
