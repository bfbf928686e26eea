/* References of known base frequency, shared by the estimators' Check
 * suite (check_frequency) and their measurement (frequency_accuracy,
 * docs/frequency.md "Accuracy"): one layer rendered by the runtime, the
 * same on every platform. */
#ifndef TF_FREQUENCY_REFERENCE_H
#define TF_FREQUENCY_REFERENCE_H

#include <stddef.h>
#include <stdint.h>

#include "terrafit/terrafit.h"

/* The redistribution curve of every reference: monotone, clearly
 * non-linear (flattened lows, steep mids), as fitting would produce. */
#define FR_CURVE_POINT_COUNT 5
extern const tf_point fr_curve_points[FR_CURVE_POINT_COUNT];

/* A side x side reference: one layer of `noise` (seed) at frequency f
 * through the curve, normalized to [0, 1]; plus white Gaussian noise of
 * standard deviation sigma (splitmix64 and Box-Muller, seeded from seed);
 * rounded to 1/255 with bits = 8 when `byte` (else bits = 0). Every cell
 * visible. NULL with err (not NULL) filled when it cannot be made (also
 * when the render is flat). */
tf_layer_map *fr_render_reference(tf_noise_type noise, double f, uint32_t seed, size_t side,
                                  double sigma, int byte, tf_error *err);

#endif
