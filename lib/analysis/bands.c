/*
 * Octave-band decomposition of one reference for auto-layering:
 * differences of Gaussian low-passes, masked cells handled by normalized
 * convolution, the finest band the residual so the bands sum back to the map.
 */
#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/autolayer_internal.h"
#include "base/error.h"
#include "util/util.h"
#include "terrafit/terrafit.h"

/* Young & van Vliet (1995) recursive Gaussian: a causal and an anti-causal
 * third-order pass whose cascade approximates a Gaussian of standard
 * deviation sigma (within about 1% of its transfer function for sigma >= 1).
 * The cost per sample does not depend on sigma, which is what makes a
 * decomposition of a 1024 x 1024 map at sigma up to 128 px cheap. */
typedef struct {
    double b, a1, a2, a3; /* w[n] = b x[n] + a1 w[n-1] + a2 w[n-2] + a3 w[n-3] */
} iir_coeffs;

static iir_coeffs iir_for_sigma(double sigma)
{
    double q = sigma >= 2.5 ? 0.98711 * sigma - 0.96330
                            : 3.97156 - 4.14554 * sqrt(1.0 - 0.26891 * sigma);
    double q2 = q * q, q3 = q2 * q;
    double b0 = 1.57825 + 2.44413 * q + 1.4281 * q2 + 0.422205 * q3;
    double b1 = 2.44413 * q + 2.85619 * q2 + 1.26661 * q3;
    double b2 = -(1.4281 * q2 + 1.26661 * q3);
    double b3 = 0.422205 * q3;
    iir_coeffs c;
    c.a1 = b1 / b0;
    c.a2 = b2 / b0;
    c.a3 = b3 / b0;
    c.b = 1.0 - (c.a1 + c.a2 + c.a3);
    return c;
}

/* The two passes over n samples `stride` apart, in place. Samples outside
 * the map are zero (the state starts at zero at both ends), which is what
 * normalized convolution needs: outside the map has weight 0. */
static void iir_line(double *x, size_t n, size_t stride, const iir_coeffs *c)
{
    double w1 = 0.0, w2 = 0.0, w3 = 0.0;
    for (size_t i = 0; i < n; i++) {
        double w = c->b * x[i * stride] + c->a1 * w1 + c->a2 * w2 + c->a3 * w3;
        x[i * stride] = w;
        w3 = w2;
        w2 = w1;
        w1 = w;
    }
    w1 = w2 = w3 = 0.0;
    for (size_t i = n; i-- > 0;) {
        double w = c->b * x[i * stride] + c->a1 * w1 + c->a2 * w2 + c->a3 * w3;
        x[i * stride] = w;
        w3 = w2;
        w2 = w1;
        w1 = w;
    }
}

/* The column pass, rows outer and columns inner (cache-friendly), over
 * columns [x0, x1) of a w-wide, h-high array. */
static void iir_columns(double *a, size_t w, size_t h, size_t x0, size_t x1,
                        const iir_coeffs *c)
{
    for (size_t y = 0; y < h; y++) {
        double *row = a + y * w;
        const double *r1 = y >= 1 ? row - w : NULL, *r2 = y >= 2 ? row - 2 * w : NULL,
                     *r3 = y >= 3 ? row - 3 * w : NULL;
        for (size_t x = x0; x < x1; x++)
            row[x] = c->b * row[x] + c->a1 * (r1 ? r1[x] : 0.0) + c->a2 * (r2 ? r2[x] : 0.0) +
                     c->a3 * (r3 ? r3[x] : 0.0);
    }
    for (size_t y = h; y-- > 0;) {
        double *row = a + y * w;
        const double *r1 = y + 1 < h ? row + w : NULL, *r2 = y + 2 < h ? row + 2 * w : NULL,
                     *r3 = y + 3 < h ? row + 3 * w : NULL;
        for (size_t x = x0; x < x1; x++)
            row[x] = c->b * row[x] + c->a1 * (r1 ? r1[x] : 0.0) + c->a2 * (r2 ? r2[x] : 0.0) +
                     c->a3 * (r3 ? r3[x] : 0.0);
    }
}

/* One low-pass of the map: L = G * (w v) / G * (w) at visible cells. */
typedef struct {
    const tf_layer_map *map;
    int full;          /* every weight is 0 or 1 and none is 0: den is separable */
    double sigma;
    double *num, *den; /* w*h scratch each (den unused when full) */
    double *den_x, *den_y;
    double *out;       /* w*h: the low-pass at visible cells, 0 elsewhere */
    iir_coeffs c;
} lowpass_job;

static void lowpass_rows(void *ctx, size_t y0, size_t y1)
{
    lowpass_job *j = ctx;
    size_t w = j->map->width;
    for (size_t y = y0; y < y1; y++) {
        double *num = j->num + y * w, *den = j->den ? j->den + y * w : NULL;
        const float *v = j->map->value + y * w, *wt = j->map->weight + y * w;
        for (size_t x = 0; x < w; x++) {
            double ww = wt[x] > 0.0f ? (double)wt[x] : 0.0;
            num[x] = ww > 0.0 ? ww * (double)v[x] : 0.0;
            if (den)
                den[x] = ww;
        }
        iir_line(num, w, 1, &j->c);
        if (den)
            iir_line(den, w, 1, &j->c);
    }
}

static void lowpass_cols(void *ctx, size_t x0, size_t x1)
{
    lowpass_job *j = ctx;
    size_t w = j->map->width, h = j->map->height;
    iir_columns(j->num, w, h, x0, x1, &j->c);
    if (j->den)
        iir_columns(j->den, w, h, x0, x1, &j->c);
}

static void lowpass_divide(void *ctx, size_t y0, size_t y1)
{
    lowpass_job *j = ctx;
    size_t w = j->map->width;
    for (size_t y = y0; y < y1; y++)
        for (size_t x = 0; x < w; x++) {
            size_t k = y * w + x;
            if (!(j->map->weight[k] > 0.0f)) {
                j->out[k] = 0.0;
                continue;
            }
            double d = j->den ? j->den[k] : j->den_x[x] * j->den_y[y];
            /* d >= the kernel's own weight at the cell (> 0) for a visible
             * cell; the guard only keeps a pathological sigma finite. */
            j->out[k] = d > 0.0 ? j->num[k] / d : (double)j->map->value[k];
        }
}

/* -------------------------------------------------------------- bands */

size_t tf_bands_auto_count(size_t width, size_t height)
{
    double smax = (double)(width < height ? width : height) / 8.0;
    size_t count = 1;
    for (double s = 1.0; s <= smax && count < TF_FIT_MAX_BANDS; s *= 2.0)
        count++;
    return count;
}

/* The count - 1 low-pass scales, ascending (docs/fitting.md,
 * "Auto-layering"): octaves 1, 2, 4, ... px up to 1/8 of the shorter side
 * for the automatic count; for another count, geometric steps from 1 px to
 * that largest scale. */
static void band_scales(size_t width, size_t height, size_t count, double *scales)
{
    double smax = (double)(width < height ? width : height) / 8.0;
    if (smax < 1.0)
        smax = 1.0;
    size_t auto_count = tf_bands_auto_count(width, height);
    for (size_t j = 0; j + 1 < count; j++) {
        if (count == auto_count)
            scales[j] = ldexp(1.0, (int)j);
        else if (count == 2)
            scales[j] = smax;
        else
            scales[j] = pow(smax, (double)j / (double)(count - 2));
    }
}

void tf_bands_free(tf_bands *bands)
{
    if (!bands)
        return;
    if (bands->band)
        for (size_t k = 0; k < bands->count; k++)
            free(bands->band[k]);
    free(bands->band);
    free(bands->sigma);
    memset(bands, 0, sizeof *bands);
}

int tf_bands_decompose(const tf_layer_map *map, size_t count, unsigned threads, tf_bands *out,
                       tf_error *err)
{
    if (out)
        memset(out, 0, sizeof *out);
    if (!map || !map->value || !map->weight || map->width == 0 || map->height == 0 || !out) {
        tf_error_set(err, TF_ERR_ARGUMENT, "bands: no reference map");
        return -1;
    }
    if (count == 0)
        count = tf_bands_auto_count(map->width, map->height);
    if (count > TF_FIT_MAX_BANDS) {
        tf_error_set(err, TF_ERR_LIMIT, "bands: %zu bands asked for; 1 to %d allowed", count,
                     TF_FIT_MAX_BANDS);
        return -1;
    }
    size_t w = map->width, h = map->height, cells = w * h;
    int full = 1;
    for (size_t k = 0; k < cells && full; k++)
        full = map->weight[k] == 1.0f;
    lowpass_job job;
    memset(&job, 0, sizeof job);
    out->width = w;
    out->height = h;
    out->count = count;
    out->sigma = calloc(count, sizeof *out->sigma);
    out->band = calloc(count, sizeof *out->band);
    job.num = malloc(cells * sizeof *job.num);
    if (!full)
        job.den = malloc(cells * sizeof *job.den);
    else {
        job.den_x = malloc(w * sizeof *job.den_x);
        job.den_y = malloc(h * sizeof *job.den_y);
    }
    int nomem = !out->sigma || !out->band || !job.num || (!full && !job.den) ||
                (full && (!job.den_x || !job.den_y));
    for (size_t k = 0; k < count && !nomem; k++)
        nomem = !(out->band[k] = malloc(cells * sizeof **out->band));
    if (nomem) {
        free(job.num);
        free(job.den);
        free(job.den_x);
        free(job.den_y);
        tf_bands_free(out);
        tf_error_set(err, TF_ERR_NOMEM, "bands: out of memory for %zu bands of %zux%zu", count,
                     w, h);
        return -1;
    }
    band_scales(w, h, count, out->sigma);
    out->sigma[count - 1] = 0.0; /* the residual has no scale of its own */

    /* Low-pass j (scale sigma[j]) goes to band[count - 2 - j], so band[0]
     * holds the coarsest; differences are then taken in place. */
    job.map = map;
    job.full = full;
    for (size_t j = 0; j + 1 < count; j++) {
        job.sigma = out->sigma[j];
        job.c = iir_for_sigma(job.sigma);
        job.out = out->band[count - 2 - j];
        if (full) {
            for (size_t x = 0; x < w; x++)
                job.den_x[x] = 1.0;
            for (size_t y = 0; y < h; y++)
                job.den_y[y] = 1.0;
            iir_line(job.den_x, w, 1, &job.c);
            iir_line(job.den_y, h, 1, &job.c);
        }
        tf_parallel_for(h, threads, lowpass_rows, &job);
        tf_parallel_for(w, threads, lowpass_cols, &job);
        tf_parallel_for(h, threads, lowpass_divide, &job);
    }
    free(job.num);
    free(job.den);
    free(job.den_x);
    free(job.den_y);
    /* band[0] = the coarsest low-pass as it is; band[k] = L_(count-2-k) -
     * L_(count-1-k) for 1 <= k <= count - 2 (finer minus next coarser).
     * k descends, so band[k - 1] still holds its low-pass when read. */
    for (size_t k = count - 2; k >= 1 && k < count; k--) {
        double *b = out->band[k];
        const double *coarser = out->band[k - 1];
        for (size_t c = 0; c < cells; c++)
            b[c] -= coarser[c];
    }
    /* The residual: v minus the sum of the other bands, accumulated in band
     * order, so summing all bands in order gives v back (to one rounding). */
    double *res = out->band[count - 1];
    for (size_t c = 0; c < cells; c++) {
        if (!(map->weight[c] > 0.0f)) {
            for (size_t k = 0; k < count; k++)
                out->band[k][c] = 0.0;
            continue;
        }
        double s = 0.0;
        for (size_t k = 0; k + 1 < count; k++)
            s += out->band[k][c];
        res[c] = (double)map->value[c] - s;
    }
    tf_error_clear(err);
    return 0;
}

double tf_band_transfer(const tf_bands *bands, size_t k, double f)
{
    if (!bands || k >= bands->count)
        return NAN;
    size_t n = bands->count;
    if (n == 1)
        return 1.0;
    /* Band k sits between low-pass scales sigma[n-1-k] (finer) and
     * sigma[n-k] (coarser); G(f) = exp(-2 pi^2 sigma^2 f^2). */
    const double two_pi2 = 19.739208802178716; /* 2 pi^2 */
    double s_fine = k == n - 1 ? 0.0 : bands->sigma[n - 2 - k];
    double s_coarse = k == 0 ? 0.0 : bands->sigma[n - 1 - k];
    double g_fine = k == n - 1 ? 1.0 : exp(-two_pi2 * s_fine * s_fine * f * f);
    double g_coarse = k == 0 ? 0.0 : exp(-two_pi2 * s_coarse * s_coarse * f * f);
    return g_fine - g_coarse;
}

void autolayer_bands_merge_finest(tf_bands *bands)
{
    size_t n = bands->count;
    if (n < 2)
        return;
    size_t cells = bands->width * bands->height;
    double *fine = bands->band[n - 1], *next = bands->band[n - 2];
    /* (L_0 - L_1) + (v - L_0) = v - L_1: the residual above the next scale. */
    for (size_t c = 0; c < cells; c++)
        next[c] += fine[c];
    free(fine);
    bands->band[n - 1] = NULL;
    for (size_t j = 0; j + 2 < n; j++)
        bands->sigma[j] = bands->sigma[j + 1];
    bands->sigma[n - 2] = 0.0;
    bands->count = n - 1;
}
