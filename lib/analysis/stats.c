/*
 * Order statistics and histograms of height maps (thesis 5.4.1): sorted
 * visible values, type-7 quantiles, normalized histograms and the thesis's
 * chi-square histogram distance (Table 3).
 */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "base/error.h"
#include "terrafit/stats.h"

/* Floats sort by their bits once the sign is folded: an LSD radix sort on
 * 32-bit keys is linear, and four 1024^2 layers sort in a few milliseconds
 * (qsort would take ten times longer). */
static uint32_t float_key(float v)
{
    uint32_t bits;
    memcpy(&bits, &v, sizeof bits);
    return (bits & 0x80000000u) ? ~bits : bits | 0x80000000u;
}

static float key_float(uint32_t key)
{
    uint32_t bits = (key & 0x80000000u) ? key & 0x7FFFFFFFu : ~key;
    float v;
    memcpy(&v, &bits, sizeof v);
    return v;
}

static int radix_sort_keys(uint32_t *keys, size_t n)
{
    uint32_t *tmp = malloc(n * sizeof *tmp);
    if (!tmp)
        return -1;
    uint32_t *from = keys, *to = tmp;
    for (int shift = 0; shift < 32; shift += 8) {
        size_t counts[257] = {0};
        for (size_t k = 0; k < n; k++)
            counts[((from[k] >> shift) & 0xFFu) + 1]++;
        if (counts[((from[0] >> shift) & 0xFFu) + 1] == n)
            continue; /* every key shares this byte */
        for (int b = 0; b < 256; b++)
            counts[b + 1] += counts[b];
        for (size_t k = 0; k < n; k++)
            to[counts[(from[k] >> shift) & 0xFFu]++] = from[k];
        uint32_t *swap = from;
        from = to;
        to = swap;
    }
    if (from != keys)
        memcpy(keys, from, n * sizeof *keys);
    free(tmp);
    return 0;
}

size_t tf_sorted_values(const float *values, const float *weight, size_t n, float **out,
                        tf_error *err)
{
    *out = NULL;
    size_t count = 0;
    for (size_t k = 0; k < n; k++)
        if ((!weight || weight[k] > 0.0f) && !isnan(values[k]))
            count++;
    if (count == 0)
        return 0;
    uint32_t *keys = malloc(count * sizeof *keys);
    if (!keys) {
        tf_error_set(err, TF_ERR_NOMEM, "out of memory sorting %zu values", count);
        return (size_t)-1;
    }
    size_t m = 0;
    for (size_t k = 0; k < n; k++)
        if ((!weight || weight[k] > 0.0f) && !isnan(values[k]))
            keys[m++] = float_key(values[k]);
    if (radix_sort_keys(keys, count) != 0) {
        free(keys);
        tf_error_set(err, TF_ERR_NOMEM, "out of memory sorting %zu values", count);
        return (size_t)-1;
    }
    /* Reuse the key buffer for the floats: same size, converted in place. */
    float *sorted = (float *)(void *)keys;
    for (size_t k = 0; k < count; k++) {
        float v = key_float(keys[k]);
        memcpy(&sorted[k], &v, sizeof v);
    }
    *out = sorted;
    return count;
}

double tf_quantile_sorted(const float *sorted, size_t n, double p)
{
    if (n == 0)
        return NAN;
    if (!(p > 0.0))
        return sorted[0];
    if (p >= 1.0)
        return sorted[n - 1];
    double position = p * (double)(n - 1);
    size_t below = (size_t)position;
    if (below >= n - 1)
        return sorted[n - 1];
    double fraction = position - (double)below;
    return (double)sorted[below] + fraction * ((double)sorted[below + 1] - (double)sorted[below]);
}

void tf_histogram(const float *values, const float *weight, size_t n, double lo, double hi,
                  size_t bins, double *out)
{
    if (bins == 0)
        return;
    for (size_t b = 0; b < bins; b++)
        out[b] = 0.0;
    if (!(hi > lo))
        return;
    double scale = (double)bins / (hi - lo);
    size_t counted = 0;
    for (size_t k = 0; k < n; k++) {
        if ((weight && !(weight[k] > 0.0f)) || isnan(values[k]))
            continue;
        double position = ((double)values[k] - lo) * scale;
        size_t b = position <= 0.0 ? 0 : position >= (double)bins ? bins - 1 : (size_t)position;
        out[b] += 1.0;
        counted++;
    }
    if (counted == 0)
        return;
    for (size_t b = 0; b < bins; b++)
        out[b] /= (double)counted;
}

double tf_chi2_distance(const double *a, const double *b, size_t bins)
{
    double sum = 0.0;
    for (size_t k = 0; k < bins; k++) {
        double total = a[k] + b[k];
        if (total > 0.0) {
            double diff = a[k] - b[k];
            sum += diff * diff / total;
        }
    }
    return 0.5 * sum;
}
