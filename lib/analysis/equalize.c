/*
 * Equalized redistribution (thesis 5.4.1): control points that pair the base
 * noise's quantiles with the reference's at the same probabilities, so the
 * redistributed noise takes on the reference's value distribution.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/fit_internal.h"
#include "base/error.h"
#include "terrafit/fit.h"
#include "terrafit/stats.h"

int tf_equalized_points(const float *sorted, size_t n, tf_noise_type noise, size_t points,
                        tf_point *out, size_t *out_count, tf_error *err)
{
    tf_layer_spec kind;
    memset(&kind, 0, sizeof kind);
    kind.noise_type = noise;
    return tf_equalized_points_layer(sorted, n, &kind, points, out, out_count, err);
}

/* The noise side is the layer's actual output (its fractal included):
 * equalization needs only that distribution, whatever produced it. */
int tf_equalized_points_layer(const float *sorted, size_t n, const tf_layer_spec *kind,
                              size_t points, tf_point *out, size_t *out_count, tf_error *err)
{
    if (!kind) {
        tf_error_set(err, TF_ERR_ARGUMENT, "equalize: no layer kind given");
        return -1;
    }
    if (!sorted || n == 0 || !out || !out_count) {
        tf_error_set(err, TF_ERR_ARGUMENT, "equalize: no reference values");
        return -1;
    }
    if (points < 2 || points > TF_FIT_MAX_POINTS) {
        tf_error_set(err, TF_ERR_LIMIT, "equalize: %zu control points asked for; 2 to %d allowed",
                     points, TF_FIT_MAX_POINTS);
        return -1;
    }
    const double *noise_sorted = fit_layer_sample(kind, err);
    if (!noise_sorted)
        return -1;

    /* p_k = k / (K - 1): x_k from the noise's quantile function, y_k from
     * the reference's, both of type 7, so p_0 gives the minima and
     * p_(K-1) the maxima. A running maximum keeps y non-decreasing even
     * where interpolation between order statistics rounds down by an ulp. */
    size_t m = 0;
    size_t run_start = 0; /* first point of the current run of equal x */
    double run_sum = 0.0;
    double y_prev = -HUGE_VAL;
    for (size_t k = 0; k < points; k++) {
        double p = (double)k / (double)(points - 1);
        double x = fit_sample_quantile(noise_sorted, TF_NOISE_SAMPLE_COUNT, p);
        double y = tf_quantile_sorted(sorted, n, p);
        if (y < y_prev)
            y = y_prev;
        y_prev = y;
        /* Ties in x (an atom in the noise's distribution, or more points
         * than distinct sample values) merge into one point whose y is the
         * mean of the run's y: it lies between the run's first and last y,
         * so y stays non-decreasing and x strictly increasing. */
        if (m > 0 && !(x > out[m - 1].x)) {
            run_sum += y;
            out[m - 1].y = run_sum / (double)(k - run_start + 1);
            continue;
        }
        out[m].x = x;
        out[m].y = y;
        m++;
        run_start = k;
        run_sum = y;
    }
    /* The mean of a run can only lower the run's last y; the next point's y
     * is at least that last y, so order holds. Check it anyway, cheaply. */
    for (size_t k = 1; k < m; k++)
        if (out[k].y < out[k - 1].y)
            out[k].y = out[k - 1].y;
    if (m < 2) {
        tf_error_set(err, TF_ERR_INVALID,
                     "equalize: the %s noise sample has a single value; no curve can be built",
                     tf_noise_type_name(kind->noise_type));
        return -1;
    }
    *out_count = m;
    tf_error_clear(err);
    return 0;
}
