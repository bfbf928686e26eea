/*
 * Statistics of height maps shared by fitting and comparison: sorted values
 * and quantiles, normalized histograms and the thesis's chi-square distance,
 * and the radially averaged power spectrum (FFTW3). Part of the full library.
 */
#ifndef TERRAFIT_STATS_H
#define TERRAFIT_STATS_H

#include <stddef.h>
#include <terrafit/runtime.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The values whose weight is > 0 (all of them when weight is NULL), sorted
 * ascending, in a new malloc'd array (*out; free with free()). Returns the
 * count; 0 with *out NULL when there are none. (size_t)-1 on allocation
 * failure, with err filled. NaN values are skipped. */
TF_API size_t tf_sorted_values(const float *values, const float *weight, size_t n, float **out,
                        tf_error *err);

/* Quantile at probability p in [0, 1] of n >= 1 sorted values: linear
 * interpolation between order statistics at position p * (n - 1)
 * (Hyndman & Fan type 7). */
TF_API double tf_quantile_sorted(const float *sorted, size_t n, double p);

/* Normalized histogram (sums to 1) of the values with weight > 0 (all when
 * weight is NULL) over [lo, hi] in `bins` equal bins; values outside are
 * counted in the end bins. All zero when no value counts. */
TF_API void tf_histogram(const float *values, const float *weight, size_t n, double lo, double hi,
                  size_t bins, double *out);

/* The thesis's chi-square histogram distance (5.4.1, Table 3):
 * 0.5 * sum_b (a_b - b_b)^2 / (a_b + b_b) over bins where a_b + b_b > 0.
 * 0 for identical histograms, 1 for disjoint normalized ones. */
TF_API double tf_chi2_distance(const double *a, const double *b, size_t bins);

/* Radially averaged power spectrum of a w x h map:
 *  1. subtract the mean of the cells with weight > 0 (all when weight is
 *     NULL); cells with weight 0 become 0;
 *  2. multiply by a separable Hann window;
 *  3. FFTW r2c 2D transform (FFTW_ESTIMATE: reproducible);
 *  4. |F|^2 / sum(window^2), averaged over the frequencies whose radius
 *     r = sqrt((kx/w)^2 + (ky/h)^2) cycles per pixel rounds to bin
 *     b = round(r * N), N = max(w, h), for b = 0 .. N/2.
 * frequency[b] = b / N cycles per pixel; power[b] = mean power (0 where a
 * bin holds no frequency); count[b] = frequencies averaged. */
typedef struct {
    size_t bin_count;
    double *frequency;
    double *power;
    size_t *count;
} tf_radial_spectrum;

/* 0 on success (free with tf_radial_spectrum_free). w, h >= 4. Thread-safe. */
TF_API int tf_radial_spectrum_compute(const float *values, const float *weight, size_t w, size_t h,
                               tf_radial_spectrum *out, tf_error *err);
TF_API void tf_radial_spectrum_free(tf_radial_spectrum *spectrum);

#ifdef __cplusplus
}
#endif
#endif /* TERRAFIT_STATS_H */
