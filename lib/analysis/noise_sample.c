/*
 * The value distribution of each base noise, for equalized redistribution
 * (thesis 5.4.1, after Ebert et al. 2002): a large deterministic sample of
 * u = (n + 1) / 2, sorted once per noise kind and process, read by quantile.
 */
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/fit_internal.h"
#include "runtime/internal.h"
#include "terrafit/terrafit.h"

/* The sample (docs/fitting.md, "The base-noise sample"): SHEETS grids of
 * SIDE x SIDE points. Steps are irrational multiples of the lattice unit
 * (the golden ratio along x, sqrt 2 along y), so by Weyl's equidistribution
 * theorem the points fall evenly over every position inside the (skewed)
 * lattice cells, rather than on a few phases as a rational step would; a
 * step above 1 keeps neighbouring samples nearly uncorrelated, and each
 * sheet covers about 828 x 724 lattice units (600 000 cells). Sheets differ
 * in seed (simplex) or z plane (perlin-reference-simplex) and origin. */
#define SHEETS 4
#define SIDE 512
#define STEP_X 1.6180339887498949
#define STEP_Y 1.4142135623730951

static const uint32_t SHEET_SEEDS[SHEETS] = {0x2545F491u, 0x9E3779B9u, 0x6A09E667u, 0xBB67AE85u};
static const double SHEET_ORIGIN[SHEETS][3] = {
    {-3000.25, 1000.5, 0.3},
    {5000.125, -7000.75, 17.7},
    {-20000.5, -30000.375, 64.1},
    {40000.75, 25000.25, 133.9},
};

static pthread_mutex_t sample_lock = PTHREAD_MUTEX_INITIALIZER;
static double *sample_sorted[TF_NOISE_KIND_COUNT];

/* Doubles to unsigned keys that sort the same way: flip every bit of a
 * negative number, only the sign bit of a positive one. */
static uint64_t sort_key(double v)
{
    uint64_t bits;
    memcpy(&bits, &v, sizeof bits);
    return (bits & 0x8000000000000000u) ? ~bits : bits | 0x8000000000000000u;
}

static double key_value(uint64_t key)
{
    uint64_t bits = (key & 0x8000000000000000u) ? key & ~0x8000000000000000u : ~key;
    double v;
    memcpy(&v, &bits, sizeof v);
    return v;
}

/* LSD radix sort, 11-bit digits (a 2048-entry count table stays in the
 * first-level cache), skipping a pass when every key has the same digit
 * there, as the high bits of values in [0, 1] mostly do: linear time, which
 * matters for 2^20 values (a comparison sort takes several times longer). */
#define RADIX_BITS 11
#define RADIX_SIZE (1u << RADIX_BITS)

static int radix_sort_doubles(double *values, size_t n)
{
    uint64_t *a = malloc(n * sizeof *a), *b = malloc(n * sizeof *b);
    if (!a || !b) {
        free(a);
        free(b);
        return -1;
    }
    for (size_t k = 0; k < n; k++)
        a[k] = sort_key(values[k]);
    for (int shift = 0; shift < 64; shift += RADIX_BITS) {
        size_t count[RADIX_SIZE] = {0};
        for (size_t k = 0; k < n; k++)
            count[(a[k] >> shift) & (RADIX_SIZE - 1)]++;
        if (count[(a[0] >> shift) & (RADIX_SIZE - 1)] == n)
            continue; /* every key shares this digit */
        size_t total = 0;
        for (size_t d = 0; d < RADIX_SIZE; d++) {
            size_t c = count[d];
            count[d] = total;
            total += c;
        }
        for (size_t k = 0; k < n; k++)
            b[count[(a[k] >> shift) & (RADIX_SIZE - 1)]++] = a[k];
        uint64_t *swap = a;
        a = b;
        b = swap;
    }
    for (size_t k = 0; k < n; k++)
        values[k] = key_value(a[k]);
    free(a);
    free(b);
    return 0;
}

/* One sheet of the sample into u[0 .. SIDE*SIDE - 1]. */
static void sample_sheet(tf_noise_type noise, int s, double *u)
{
    const double *o = SHEET_ORIGIN[s];
    size_t k = 0;
    for (int j = 0; j < SIDE; j++) {
        double y = o[1] + (double)j * STEP_Y;
        for (int i = 0; i < SIDE; i++) {
            double x = o[0] + (double)i * STEP_X;
            /* u exactly as the runtime computes it (docs/spec.md step 2) */
            u[k++] = (tf_noise_eval(noise, SHEET_SEEDS[s], x, y, o[2]) + 1.0) * 0.5;
        }
    }
}

typedef struct {
    tf_noise_type noise;
    int first, step; /* sheets first, first + step, ... */
    double *u;
} sheet_job;

static void *sheet_worker(void *arg)
{
    sheet_job *job = arg;
    for (int s = job->first; s < SHEETS; s += job->step)
        sample_sheet(job->noise, s, job->u + (size_t)s * SIDE * SIDE);
    return NULL;
}

/* The sheets are independent: evaluated on up to one thread per core
 * (perlin-reference-simplex takes ~0.17 s on one), then sorted. The values,
 * hence the result, do not depend on the threads. */
static double *build_sample(tf_noise_type noise)
{
    double *u = malloc(TF_NOISE_SAMPLE_COUNT * sizeof *u);
    if (!u)
        return NULL;
    unsigned threads = tf_cpu_count();
    if (threads > SHEETS)
        threads = SHEETS;
    pthread_t tid[SHEETS];
    sheet_job jobs[SHEETS];
    unsigned started = 0;
    for (unsigned t = 0; t < threads; t++) {
        jobs[t] = (sheet_job){noise, (int)t, (int)threads, u};
        if (t > 0 && pthread_create(&tid[t], NULL, sheet_worker, &jobs[t]) == 0)
            started |= 1u << t;
    }
    sheet_worker(&jobs[0]);
    for (unsigned t = 1; t < threads; t++) {
        if (started & (1u << t))
            pthread_join(tid[t], NULL);
        else
            sheet_worker(&jobs[t]); /* no thread: do its sheets here */
    }
    if (radix_sort_doubles(u, TF_NOISE_SAMPLE_COUNT) != 0) {
        free(u);
        return NULL;
    }
    return u;
}

const double *fit_noise_sample(tf_noise_type noise, tf_error *err)
{
    if ((unsigned)noise >= TF_NOISE_KIND_COUNT) {
        tf_error_set(err, TF_ERR_ARGUMENT, "fit: unknown noise type %d", (int)noise);
        return NULL;
    }
    /* Built under the lock: a second thread asking for the same kind waits
     * for the first instead of building it twice. Kept for the process. */
    pthread_mutex_lock(&sample_lock);
    if (!sample_sorted[noise])
        sample_sorted[noise] = build_sample(noise);
    const double *sorted = sample_sorted[noise];
    pthread_mutex_unlock(&sample_lock);
    if (!sorted)
        tf_error_set(err, TF_ERR_NOMEM, "fit: out of memory for the base-noise sample");
    return sorted;
}

/* Type 7 quantile (Hyndman & Fan), the rule tf_quantile_sorted uses. */
double fit_sample_quantile(const double *sorted, size_t n, double p)
{
    if (!(p > 0.0))
        return sorted[0];
    if (p >= 1.0)
        return sorted[n - 1];
    double h = p * (double)(n - 1);
    size_t lo = (size_t)h;
    if (lo >= n - 1)
        return sorted[n - 1];
    double frac = h - (double)lo;
    return sorted[lo] + frac * (sorted[lo + 1] - sorted[lo]);
}

int tf_noise_unit_quantiles(tf_noise_type noise, const double *p, size_t count, double *out,
                            tf_error *err)
{
    if (count && (!p || !out)) {
        tf_error_set(err, TF_ERR_ARGUMENT, "noise quantiles: no probabilities given");
        return -1;
    }
    const double *sorted = fit_noise_sample(noise, err);
    if (!sorted)
        return -1;
    for (size_t k = 0; k < count; k++) {
        if (!(p[k] >= 0.0 && p[k] <= 1.0)) {
            tf_error_set(err, TF_ERR_ARGUMENT,
                         "noise quantiles: probability %zu is %g, not in [0, 1]", k, p[k]);
            return -1;
        }
        out[k] = fit_sample_quantile(sorted, TF_NOISE_SAMPLE_COUNT, p[k]);
    }
    tf_error_clear(err);
    return 0;
}
