/*
 * The value distribution of each base noise, or of a layer kind (a fractal
 * over a base noise), for equalized redistribution (thesis 5.4.1, after
 * Ebert et al. 2002): a large deterministic sample of u = (n + 1) / 2,
 * sorted once per distinct (noise, fractal) and kept until
 * tf_fit_release_caches, read by quantile.
 */
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/fit_internal.h"
#include "base/error.h"
#include "util/util.h"
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
#define STEP_X FIT_GOLDEN_RATIO
#define STEP_Y 1.4142135623730951
#define STEP_Z 0.7548776662466927 /* 1 / the plastic number */

static const uint32_t SHEET_SEEDS[SHEETS] = {0x2545F491u, 0x9E3779B9u, 0x6A09E667u, 0xBB67AE85u};
static const double SHEET_ORIGIN[SHEETS][3] = {
    {-3000.25, 1000.5, 0.3},
    {5000.125, -7000.75, 17.7},
    {-20000.5, -30000.375, 64.1},
    {40000.75, 25000.25, 133.9},
};

static pthread_mutex_t sample_lock = PTHREAD_MUTEX_INITIALIZER;

/* What a sample depends on: the noise, the kind and the fractal parameters
 * the kind uses, as doubles (the others zero), compared element by element. */
#define KEY_LEN 11
typedef struct {
    double v[KEY_LEN];
} sample_key;

static int same_key(const sample_key *a, const sample_key *b)
{
    for (int k = 0; k < KEY_LEN; k++)
        if (!(a->v[k] == b->v[k]))
            return 0;
    return 1;
}

typedef struct sample_entry {
    sample_key key;
    double *sorted;
    struct sample_entry *next;
} sample_entry;

/* Every sample built so far, kept for reuse (a fit uses a handful) until
 * tf_fit_release_caches. */
static sample_entry *samples;

static sample_key key_of(const tf_layer_spec *kind)
{
    sample_key k = {{0}};
    k.v[0] = (double)kind->noise_type;
    k.v[1] = (double)kind->fractal_kind;
    if (kind->fractal_kind == TF_FRACTAL_NONE)
        return k;
    k.v[2] = (double)kind->fractal_octaves;
    k.v[3] = kind->fractal_lacunarity;
    k.v[4] = kind->fractal_gain;
    if (kind->fractal_kind == TF_FRACTAL_SWISS || kind->fractal_kind == TF_FRACTAL_JORDAN)
        k.v[5] = kind->fractal_warp;
    if (kind->fractal_kind == TF_FRACTAL_JORDAN) {
        k.v[6] = kind->fractal_gain1;
        k.v[7] = kind->fractal_warp0;
        k.v[8] = kind->fractal_damp0;
        k.v[9] = kind->fractal_damp;
        k.v[10] = kind->fractal_damp_scale;
    }
    return k;
}

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

/* One sheet of the sample into u[0 .. SIDE*SIDE - 1]: the layer kind's
 * base value n (TF_STAGE_NOISE) as the runtime evaluates it, with the
 * sheet's seed as the layer's noise seed (so its octave offsets follow it
 * too), at frequency 1 and no x, y offset, so the noise-space point is the
 * sample point itself. 0 on success, -1 out of memory. */
static int sample_sheet(const tf_layer_spec *kind, int s, double *u)
{
    static const tf_point identity[2] = {{0.0, 0.0}, {1.0, 1.0}};
    const double *o = SHEET_ORIGIN[s];
    tf_layer_spec placed;
    memset(&placed, 0, sizeof placed);
    placed.seed = SHEET_SEEDS[s];
    /* Perlin's 3D noises (and their exponential variant) have a value
     * distribution that depends on z's fraction, and a layer samples one
     * z = oz: rows step z by an irrational amount so the sample covers
     * every fraction evenly (the two older kinds keep their sheets' z). */
    int vary_z = kind->noise_type == TF_NOISE_PERLIN ||
                 kind->noise_type == TF_NOISE_EXPONENTIAL_PERLIN;
    tf_terrain *t = NULL;
    double n[SIDE];
    for (int j = 0; j < SIDE; j++) {
        if (!t || vary_z) {
            tf_terrain_free(t);
            placed.offset[2] = vary_z ? o[2] + (double)j * STEP_Z : o[2];
            if (!(t = fit_layer_terrain(kind, &placed, 1.0, identity, 2, NULL)))
                return -1;
        }
        /* the row x = o0 + i * STEP_X at y = o1 + j * STEP_Y */
        double y = o[1] + (double)j * STEP_Y;
        tf_terrain_sample_stage_window(t, TF_STAGE_NOISE, 0, o[0], y, STEP_X, 0, 0, SIDE, 1, n,
                                       NULL);
        /* u exactly as the runtime computes it (docs/spec.md step 2) */
        for (int i = 0; i < SIDE; i++)
            u[(size_t)j * SIDE + (size_t)i] = (n[i] + 1.0) * 0.5;
    }
    tf_terrain_free(t);
    return 0;
}

typedef struct {
    const tf_layer_spec *kind;
    double *u;
    int failed[SHEETS];
} sheet_job;

static void sheet_range(void *ctx, size_t lo, size_t hi)
{
    sheet_job *job = ctx;
    for (size_t s = lo; s < hi; s++)
        job->failed[s] = sample_sheet(job->kind, (int)s, job->u + s * SIDE * SIDE) != 0;
}

/* The sheets are independent: evaluated on up to one thread per core
 * (perlin-reference-simplex takes ~0.17 s on one), then sorted. The values,
 * hence the result, do not depend on the threads. */
static double *build_sample(const tf_layer_spec *kind)
{
    double *u = malloc(TF_NOISE_SAMPLE_COUNT * sizeof *u);
    if (!u)
        return NULL;
    sheet_job job = {kind, u, {0}};
    tf_parallel_for(SHEETS, 0, sheet_range, &job);
    int failed = 0;
    for (int s = 0; s < SHEETS; s++)
        failed |= job.failed[s];
    if (failed || radix_sort_doubles(u, TF_NOISE_SAMPLE_COUNT) != 0) {
        free(u);
        return NULL;
    }
    return u;
}

const double *fit_layer_sample(const tf_layer_spec *kind, tf_error *err)
{
    if ((unsigned)kind->noise_type >= TF_NOISE_TYPE_COUNT) {
        tf_error_set(err, TF_ERR_ARGUMENT, "fit: unknown noise type %d", (int)kind->noise_type);
        return NULL;
    }
    if ((unsigned)kind->fractal_kind >= TF_FRACTAL_KIND_COUNT) {
        tf_error_set(err, TF_ERR_ARGUMENT, "fit: unknown fractal kind %d",
                     (int)kind->fractal_kind);
        return NULL;
    }
    sample_key key = key_of(kind);
    /* Built under the lock: a second thread asking for the same kind waits
     * for the first instead of building it twice. Kept until
     * tf_fit_release_caches. */
    pthread_mutex_lock(&sample_lock);
    sample_entry *e = samples;
    while (e && !same_key(&e->key, &key))
        e = e->next;
    if (!e && (e = calloc(1, sizeof *e)) != NULL) {
        e->key = key;
        e->sorted = build_sample(kind);
        if (e->sorted) {
            e->next = samples;
            samples = e;
        } else {
            free(e);
            e = NULL;
        }
    }
    const double *sorted = e ? e->sorted : NULL;
    pthread_mutex_unlock(&sample_lock);
    if (!sorted)
        tf_error_set(err, TF_ERR_NOMEM, "fit: out of memory for the base-noise sample");
    return sorted;
}

void fit_noise_samples_release(void)
{
    pthread_mutex_lock(&sample_lock);
    while (samples) {
        sample_entry *e = samples;
        samples = e->next;
        free(e->sorted);
        free(e);
    }
    pthread_mutex_unlock(&sample_lock);
}

const double *fit_noise_sample(tf_noise_type noise, tf_error *err)
{
    tf_layer_spec kind;
    memset(&kind, 0, sizeof kind);
    kind.noise_type = noise;
    return fit_layer_sample(&kind, err);
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
    tf_layer_spec kind;
    memset(&kind, 0, sizeof kind);
    kind.noise_type = noise;
    return tf_layer_unit_quantiles(&kind, p, count, out, err);
}

int tf_layer_unit_quantiles(const tf_layer_spec *kind, const double *p, size_t count,
                            double *out, tf_error *err)
{
    if (count && (!p || !out)) {
        tf_error_set(err, TF_ERR_ARGUMENT, "noise quantiles: no probabilities given");
        return -1;
    }
    if (!kind) {
        tf_error_set(err, TF_ERR_ARGUMENT, "noise quantiles: no layer kind given");
        return -1;
    }
    const double *sorted = fit_layer_sample(kind, err);
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
