/*
 * The compiled terrain and its evaluation (docs/spec.md, "Evaluation").
 * Compiling resolves everything that does not depend on the sample point
 * into one flat, read-only block: per-layer constants, knot arrays and
 * per-segment polynomial coefficients of every rd, mask curve and the output
 * curve. Sampling then walks the layers once, keeping each layer's
 * redistributed value for the layers it masks, with no allocation and no
 * shared state, so any number of threads may sample.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "curve_lanes.h"
#include "internal.h"
#include "noise.h"

/* ---- evaluation */

/* Layer L's base noise at noise-space (nx, ny), any kind, one point at a
 * time (the rows and batches take terrain_fast.c's row code). */
static inline double base_noise(const tf_compiled_layer *L, double nx, double ny)
{
    if (L->plan) /* other kinds and fractals: docs/spec.md, "Layer kinds" */
        return tf_fractal_plan_eval(L->plan, nx, ny, L->offset_z, NULL, NULL);
    switch (L->noise_type) {
    case TF_NOISE_PERLIN_REFERENCE_SIMPLEX:
        return tf_perlin_reference_simplex3(nx, ny, L->offset_z);
    case TF_NOISE_SIMPLEX:
    default:
        return tf_simplex2(L->seed, nx, ny);
    }
}

/* Layer L's base noise at the sample (x, y) (step 1), one layer at a
 * time: on the AVX2 path a plain simplex layer takes the AVX2 build of the
 * scalar code (floor in one instruction; the same bits). */
static inline double layer_noise(const tf_terrain *t, const tf_compiled_layer *L, double x,
                                 double y)
{
    double nx = x * L->frequency + L->offset_x, ny = y * L->frequency + L->offset_y;
#if TF_HAVE_AVX2_PATH
    if (t->simd >= TF_SIMD_AVX2 && tf_layer_is_plain_simplex(L))
        return tf_simplex2_avx2(L->seed, nx, ny);
    if (L->plan_lanes)
        return tf_fractal_plan_eval_lanes(L->plan, L->plan_lanes, nx, ny);
#else
    (void)t;
#endif
    return base_noise(L, nx, ny);
}

double tf_layer_noise(const tf_terrain *t, const tf_compiled_layer *L, double x, double y)
{
    return layer_noise(t, L, x, y);
}

/* Step 1 of every layer into noise: the groups of noise lanes taken on
 * the terrain's path (three or more plain simplex layers on the AVX2
 * path, two or more of most noises on the AVX-512 path: for fewer, one
 * vector's latency costs more than the scalar calls), then the other
 * layers one at a time. Out of line: the callers inline only the loop
 * without lanes (layer_noises), as a call there cost a single sample of
 * one layer 4% (GCC had split the function so before). */
static __attribute__((noinline)) void layer_noises_lanes(const tf_terrain *t, double x, double y,
                                                         double *noise)
{
    double lane_n[TF_MAX_LAYERS + 8]; /* a group's last vector stored whole */
    for (size_t j = 0; j < t->lane_groups_on; j++) {
        size_t g = t->lane_group_on[j];
        size_t a = t->noise_lane_first[g], end = a + t->noise_lane_group_size[g];
        t->lane_group_lanes[j](t->noise_lane_seed + a, x, y, t->noise_lane_frequency + a,
                               t->noise_lane_offset_x + a, t->noise_lane_offset_y + a,
                               t->noise_lane_z + a, end - a, lane_n + a);
        for (size_t k = a; k < end; k++)
            noise[t->noise_lane_layer[k]] = lane_n[k];
    }
    for (size_t j = 0; j < t->scalar_layer_count; j++) {
        size_t i = t->scalar_layer[j];
        noise[i] = layer_noise(t, &t->layers[i], x, y);
    }
}

TF_ALWAYS_INLINE void layer_noises(const tf_terrain *t, double x, double y, double *noise)
{
    if (t->lane_groups_on != 0) {
        layer_noises_lanes(t, x, y, noise);
        return;
    }
    for (size_t i = 0; i < t->layer_count; i++)
        noise[i] = layer_noise(t, &t->layers[i], x, y);
}

/* Steps 3-4: layer L's contribution from its redistributed value r and
 * the redistributed values of the layers below it. */
TF_ALWAYS_INLINE double layer_contribution(const tf_compiled_layer *L, double r,
                                           const double *redistributed)
{
    double contribution = (r + L->pre_amp_shift) * L->amp_scale;
    if (L->mask == TF_MASK_RANGE)
        contribution *= tf_mask_weight(L, redistributed[L->mask_layer_index]);
    else if (L->mask == TF_MASK_CURVE)
        contribution *= tf_curve_table_eval_inline(&L->mask_curve,
                                                   redistributed[L->mask_layer_index]);
    return contribution;
}

#if TF_HAVE_AVX2_PATH
/* Steps 1-4 with the curves as lanes (tf_terrain.quads, curve_lanes.h):
 * every layer's rd lookup four at a time, then step 3 in the same lanes,
 * then the mask curves (four at a time, or as scalars when they all
 * read one layer), each contribution multiplied by
 * its weight, into c (4 rd_quads entries). The same operations on each
 * value as layer_contribution, so its bits. */
__attribute__((target("avx2"))) TF_ALWAYS_INLINE void
contributions_lanes_avx2(const tf_terrain *t, double x, double y, double *c)
{
    size_t layers = t->layer_count, lanes = 4 * t->rd_quads;
    double noise[TF_MAX_LAYERS], r[TF_MAX_LAYERS], w[TF_MAX_LAYERS];
    /* 1. noises; when one group of lanes holds every layer, its call
     * writes the padded count (lanes past the layers sample seed 0,
     * frequency 0, offset 0) in whole vectors, which the lookups load
     * without waiting on small stores */
    if (t->lanes_hold_every_layer) {
        t->lane_group_lanes[0](t->noise_lane_seed, x, y, t->noise_lane_frequency,
                               t->noise_lane_offset_x, t->noise_lane_offset_y, t->noise_lane_z,
                               lanes, noise);
    } else {
        layer_noises(t, x, y, noise);
        for (size_t i = layers; i < lanes; i++)
            noise[i] = 0.0;
    }
    /* the one mask source's r as a scalar lookup too (its bits: the same
     * operations as the lanes'), whose chain is shorter than its quad's,
     * so the mask lookups below need not wait for the quad */
    double r_source = 0.0;
    if (t->mask_one_source >= 0)
        r_source = tf_curve_table_eval_avx2(&t->layers[t->mask_one_source].rd,
                                            (noise[t->mask_one_source] + 1.0) * 0.5);
    /* 2. u = (n + 1) * 0.5 and r = RD(u); 3. (r + preAmpShift) * ampScale */
    const __m256d one = _mm256_set1_pd(1.0), half = _mm256_set1_pd(0.5);
    for (size_t g = 0; g < t->rd_quads; g++) {
        __m256d u = _mm256_mul_pd(_mm256_add_pd(_mm256_loadu_pd(noise + 4 * g), one), half);
        __m256d rv = tf_curve_quad_eval(&t->quads[g], t->tables, u);
        _mm256_storeu_pd(r + 4 * g, rv);
        _mm256_storeu_pd(c + 4 * g,
                         _mm256_mul_pd(_mm256_add_pd(rv, _mm256_loadu_pd(t->lane_shift + 4 * g)),
                                       _mm256_loadu_pd(t->lane_scale + 4 * g)));
    }
    /* 4. the mask curves at their sources' r, then every mask's weight
     * multiplied in. With one source, scalar lookups at its scalar r:
     * each starts as soon as that r is known, and a scalar lookup's chain
     * is shorter than a quad's (docs/performance.md, "One mask source"),
     * and a curve of few segments finds its segment by comparisons, with
     * no bucket to load (tf_curve_table_eval_avx2); else quads (lanes past
     * the masks: layer 0's r, discarded). */
    if (t->mask_one_source >= 0 && t->mask_knots_source == t->mask_one_source) {
        /* curves on one set of knots: r_source's segment and t once */
        tf_curve_place at = tf_curve_place_avx2(t->mask_knots, r_source);
        for (size_t j = 0; j < t->mask_lane_count; j++) {
            const tf_curve_table *mc = t->mask_lane_table[j];
            c[t->mask_lane_layer[j]] *= t->layers[t->mask_lane_layer[j]].mask_shares_knots
                                            ? tf_curve_placed_value(mc, at)
                                            : tf_curve_table_eval_avx2(mc, r_source);
        }
    } else if (t->mask_one_source >= 0) {
        for (size_t j = 0; j < t->mask_lane_count; j++)
            c[t->mask_lane_layer[j]] *= tf_curve_table_eval_avx2(t->mask_lane_table[j], r_source);
    } else {
        const tf_curve_quad *mq = t->quads + t->rd_quads;
        for (size_t g = 0; g < t->mask_quads; g++) {
            const unsigned char *src = t->mask_lane_source + 4 * g;
            __m256d in = _mm256_setr_pd(r[src[0]], r[src[1]], r[src[2]], r[src[3]]);
            _mm256_storeu_pd(w + 4 * g, tf_curve_quad_eval(&mq[g], t->tables, in));
        }
        for (size_t j = 0; j < t->mask_lane_count; j++)
            c[t->mask_lane_layer[j]] *= w[j];
    }
    for (size_t i = 0; t->sample_range_masks && i < layers; i++) {
        const tf_compiled_layer *L = &t->layers[i];
        if (L->mask == TF_MASK_RANGE)
            c[i] *= tf_mask_weight(L, r[L->mask_layer_index]);
    }
}

/* Steps 1-5 with the curves as lanes: 5. the sum in layer order from 0.0,
 * so evaluate_sum's bits. */
__attribute__((target("avx2"))) static double evaluate_sum_lanes_avx2(const tf_terrain *t,
                                                                      double x, double y)
{
    double c[TF_MAX_LAYERS];
    contributions_lanes_avx2(t, x, y, c);
    double h = 0.0;
    for (size_t i = 0; i < t->layer_count; i++)
        h += c[i];
    return h;
}

/* layers_sum's sums over add and part_mask (*part) from the lanes'
 * contributions, in layer order: its bits. */
__attribute__((target("avx2"))) static double partial_sums_lanes_avx2(const tf_terrain *t,
                                                                      uint64_t add,
                                                                      uint64_t part_mask,
                                                                      double x, double y,
                                                                      double *part)
{
    double c[TF_MAX_LAYERS], sum = 0.0, p = 0.0;
    contributions_lanes_avx2(t, x, y, c);
    for (size_t i = 0; i < t->layer_count; i++) {
        if (!(add >> i & 1))
            continue;
        sum += c[i];
        if (part_mask >> i & 1)
            p += c[i];
    }
    if (part)
        *part = p;
    return sum;
}
#endif

/* Steps 1-5: the layers' sum at (x, y). */
TF_ALWAYS_INLINE double evaluate_sum(const tf_terrain *t, double x, double y)
{
    double redistributed[TF_MAX_LAYERS], noise[TF_MAX_LAYERS];
    double h = 0.0;
#if TF_HAVE_AVX2_PATH
    if (t->simd >= TF_SIMD_AVX2 && t->sample_lanes)
        return evaluate_sum_lanes_avx2(t, x, y);
#endif
    /* 1. base noise in noise space, every layer's before any lookup (the
     * lookups' chains of dependent loads then overlap one another, not a
     * noise call each: a noise per layer just before its lookup was 1.6x
     * slower on 6 polynomial layers) */
    layer_noises(t, x, y, noise);
    for (size_t i = 0; i < t->layer_count; i++) {
        const tf_compiled_layer *L = &t->layers[i];
        double n = noise[i];
        /* 2. redistribution of the unit value u = (n + 1) / 2 */
        double r = tf_curve_table_eval_inline(&L->rd, (n + 1.0) * 0.5);
        redistributed[i] = r;
        /* 3. shift and scale, 4. mask by a lower layer's redistributed
         * value (a range, or a curve: a partial mask), 5. sum in layer
         * order */
        h += layer_contribution(L, r, redistributed);
    }
    return h;
}

/* ---- the drainage stage's inputs and scratch */

/* Steps 3-5 of the layers in `add` (bit i: layer i), added in layer order
 * to 0.0, from every layer's redistributed value (those of the added
 * layers and of their mask layers must be set); *part (when part_mask is
 * not 0) gets the same over the layers in part_mask, a subset of add. */
static double sum_from_redistributed(const tf_terrain *t, const double *redistributed,
                                     uint64_t add, uint64_t part_mask, double *part)
{
    double sum = 0.0, p = 0.0;
    for (size_t i = 0; i < t->layer_count; i++) {
        if (!(add >> i & 1))
            continue;
        double contribution = layer_contribution(&t->layers[i], redistributed[i], redistributed);
        sum += contribution;
        if (part_mask >> i & 1)
            p += contribution;
    }
    if (part)
        *part = p;
    return sum;
}

/* Whether three or more layers are needed, as a partial sum takes the
 * lanes (all layers' noises and curves at once) only then: as for a whole
 * sample (sample_lanes_compile), one vector's latency costs more than one
 * or two scalar layers. Two lowest bits cleared, not a popcount (a
 * library call on the baseline x86-64 target). */
static inline int bits_at_least_3(uint64_t m)
{
    m &= m - 1;
    m &= m - 1;
    return m != 0;
}

/* Steps 1-5 of sum_from_redistributed's layers at (x, y), evaluating each
 * masked layer's mask source too. One layer's value is the bits
 * evaluate_sum computes. */
static double layers_sum(const tf_terrain *t, uint64_t add, uint64_t part_mask, double x,
                         double y, double *part)
{
    double redistributed[TF_MAX_LAYERS];
    uint64_t needed = add;
    for (size_t i = 0; i < t->layer_count; i++)
        if ((add >> i & 1) && t->layers[i].mask != TF_MASK_NONE)
            needed |= (uint64_t)1 << t->layers[i].mask_layer_index;
#if TF_HAVE_AVX2_PATH
    /* every layer's contribution as lanes, then the sums over add and
     * part_mask in layer order: the bits of the loops below */
    if (t->simd >= TF_SIMD_AVX2 && t->sample_lanes && bits_at_least_3(needed))
        return partial_sums_lanes_avx2(t, add, part_mask, x, y, part);
#endif
    for (size_t i = 0; i < t->layer_count; i++) {
        if (!(needed >> i & 1))
            continue;
        const tf_compiled_layer *L = &t->layers[i];
        redistributed[i] = tf_curve_table_eval_inline(&L->rd, (layer_noise(t, L, x, y) + 1.0) * 0.5);
    }
    return sum_from_redistributed(t, redistributed, add, part_mask, part);
}

double tf_terrain_partial_sum(const tf_terrain *t, uint64_t layers, double x, double y)
{
    return layers_sum(t, layers, 0, x, y, NULL);
}

static uint64_t all_layers(const tf_terrain *t)
{
    return t->layer_count >= 64 ? ~(uint64_t)0 : ((uint64_t)1 << t->layer_count) - 1;
}

/* Each thread keeps one scratch for rebuilding networks, freed when the
 * thread ends (C11 thread-specific storage); without C11 threads a call
 * makes its own. */
#if !defined(__STDC_NO_THREADS__)
#include <threads.h>
static tss_t work_key;
static int work_key_made;
static once_flag work_once = ONCE_FLAG_INIT;

static void free_work(void *w)
{
    tf_drainage_work_free(w);
}

static void make_work_key(void)
{
    work_key_made = tss_create(&work_key, free_work) == thrd_success;
}

/* This thread's scratch, or NULL (then *own says the caller frees a new one). */
static tf_drainage_work *thread_work(int *own)
{
    *own = 0;
    call_once(&work_once, make_work_key);
    tf_drainage_work *w = work_key_made ? tss_get(work_key) : NULL;
    if (w)
        return w;
    w = tf_drainage_work_new();
    if (w && work_key_made && tss_set(work_key, w) == thrd_success)
        return w;
    *own = w != NULL;
    return w;
}
#else
static tf_drainage_work *thread_work(int *own)
{
    tf_drainage_work *w = tf_drainage_work_new();
    *own = w != NULL;
    return w;
}
#endif

/* Step 5b at one point: the sum after the drainage stage. */
static double drained_sum(const tf_terrain *t, double x, double y)
{
    double low;
    double sum = layers_sum(t, all_layers(t), t->drainage.low, x, y, &low);
    int own;
    tf_drainage_work *w = thread_work(&own);
    if (!w)
        return NAN;
    double d = tf_drainage_apply(t, &t->drainage, w, x, y, sum, low);
    if (own)
        tf_drainage_work_free(w);
    return d;
}

/* Steps 1-6: the height at (x, y). */
TF_ALWAYS_INLINE double evaluate(const tf_terrain *t, double x, double y)
{
    double h = t->drainage.levels ? drained_sum(t, x, y) : evaluate_sum(t, x, y);
    /* 6. output curve */
    if (t->has_output_curve)
        h = tf_curve_table_eval_inline(&t->output_curve, h);
    return h;
}

/* The drainage stage over a window, a band of one tile's rows at a time
 * (at most TF_DRAINAGE_TILE_MAX), each band in chunks of whole tiles
 * (about DRAINED_CHUNK columns), so the scratch stays under 30 MB however
 * wide the window: the sum after step 5b into out (doubles), or,
 * with height set, h as floats into out_f. Tiles start at each chunk's
 * first column, which gives the same bits (any cut does). -1 when memory
 * runs out. */
#define DRAINED_CHUNK 2048

static int drained_window(const tf_terrain *t, double x0, double y0, double step, int64_t i0,
                          int64_t j0, size_t nx, size_t ny, double *out, float *out_f)
{
    size_t layers = t->layer_count;
    if (nx == 0 || ny == 0)
        return 0;
    size_t tile = tf_drainage_tile(&t->drainage, step);
    size_t chunk = DRAINED_CHUNK / tile * tile;
    chunk = chunk < tile ? tile : chunk;
    chunk = chunk > nx ? nx : chunk;
    /* bands of a tile's rows, so that tf_drainage_window's tiles are the
     * ones a whole window would have (any cut gives the same bits) */
    size_t band = tile < ny ? tile : ny;
    /* sum, low and drained of a band's chunk, then one row of every
     * layer's redistributed values and one of its contributions: the
     * thread's scratch, which its next windows reuse */
    int own;
    tf_drainage_work *w = thread_work(&own);
    double *sum = w ? tf_drainage_work_rows(w, (3 * band + 2 * layers) * chunk) : NULL;
    int status = sum ? 0 : -1;
    for (size_t j = 0; j < ny && status == 0; j += band) {
        size_t rows = ny - j < band ? ny - j : band;
        for (size_t c = 0; c < nx && status == 0; c += chunk) {
            size_t n = nx - c < chunk ? nx - c : chunk;
            int64_t ic = i0 + (int64_t)c;
            double *low = sum + band * n, *drained = low + band * n, *r = drained + band * n;
            double *contribution = r + layers * n;
            const double *rows_r[TF_MAX_LAYERS];
            for (size_t i = 0; i < layers; i++)
                rows_r[i] = r + i * n;
            for (size_t b = 0; b < rows; b++) {
                /* each layer's row and its contribution (steps 1-4) on the
                 * batched path, then step 5 in layer order, the sum of them
                 * all and of the carved ones, as sum_from_redistributed
                 * adds them. The batched contribution is 0.0 + c, +0.0 for
                 * a c of -0.0: the same sums, which start at +0.0 and so
                 * never hold -0.0. */
                double y = y0 + (double)(j0 + (int64_t)(j + b)) * step;
                double *s_b = sum + b * n, *l_b = low + b * n;
                for (size_t i = 0; i < layers; i++)
                    tf_terrain_stage_row(t, TF_STAGE_REDISTRIBUTED, i, x0, step, ic, y, n,
                                         r + i * n);
                for (size_t k = 0; k < n; k++)
                    s_b[k] = l_b[k] = 0.0;
                for (size_t i = 0; i < layers; i++) {
                    tf_terrain_combine_row(t, TF_STAGE_CONTRIBUTION, i, rows_r, n, contribution);
                    for (size_t k = 0; k < n; k++)
                        s_b[k] += contribution[k];
                    if (t->drainage.low >> i & 1)
                        for (size_t k = 0; k < n; k++)
                            l_b[k] += contribution[k];
                }
            }
            status = tf_drainage_window(t, &t->drainage, w, x0, y0, step, ic,
                                        j0 + (int64_t)j, n, rows, sum, low, drained);
            for (size_t b = 0; b < rows; b++) {
                for (size_t k = 0; k < n; k++) {
                    double h = drained[b * n + k];
                    size_t o = (j + b) * nx + c + k;
                    if (out_f) {
                        if (t->has_output_curve)
                            h = tf_curve_table_eval_inline(&t->output_curve, h);
                        out_f[o] = (float)h;
                    } else {
                        out[o] = h;
                    }
                }
            }
        }
    }
    if (own)
        tf_drainage_work_free(w);
    return status;
}

/* Steps 1-6 at n points in any order with a drainage stage, POINTS_BLOCK
 * at a time: each point's sums as a single sample makes them, then the
 * stage over the block's points together (tf_drainage_points: points
 * near each other share one network, whatever their order), then the
 * output curve. The bits of evaluate at each point. Where the scratch
 * cannot grow, the points go one at a time (evaluate's NaN when even
 * that fails). */
#define POINTS_BLOCK 16384

static void drained_points(const tf_terrain *t, const double *x, const double *y, size_t n,
                           double *out)
{
    int own;
    tf_drainage_work *w = thread_work(&own);
    double *sum = w ? tf_drainage_work_rows(w, 2 * POINTS_BLOCK) : NULL;
    for (size_t b = 0; b < n; b += POINTS_BLOCK) {
        size_t m = n - b < POINTS_BLOCK ? n - b : POINTS_BLOCK;
        int done = 0;
        if (sum) {
            double *low = sum + POINTS_BLOCK;
            for (size_t k = 0; k < m; k++)
                sum[k] = layers_sum(t, all_layers(t), t->drainage.low, x[b + k], y[b + k], &low[k]);
            done = tf_drainage_points(t, &t->drainage, w, x + b, y + b, m, sum, low, out + b) == 0;
        }
        for (size_t k = 0; k < m; k++) {
            double h = done ? out[b + k] : drained_sum(t, x[b + k], y[b + k]);
            if (t->has_output_curve)
                h = tf_curve_table_eval_inline(&t->output_curve, h);
            out[b + k] = h;
        }
    }
    if (own)
        tf_drainage_work_free(w);
}

double tf_terrain_sample(const tf_terrain *t, double x, double y)
{
    return evaluate(t, x, y);
}

void tf_terrain_sample_points(const tf_terrain *t, const double *x, const double *y, size_t n,
                              double *out)
{
    if (!t || !x || !y || !out)
        return;
    if (t->drainage.levels) {
        drained_points(t, x, y, n, out);
        return;
    }
    tf_terrain_eval_points(t, x, y, n, out);
}

/* ---- stages (docs/spec.md, "Stages"): the same steps, stopped early */

static double layer_redistributed(const tf_terrain *t, size_t i, double x, double y)
{
    const tf_compiled_layer *L = &t->layers[i];
    return tf_curve_table_eval_inline(&L->rd, (layer_noise(t, L, x, y) + 1.0) * 0.5);
}

static int stage_is_valid(const tf_terrain *t, tf_stage stage, size_t layer)
{
    if (stage == TF_STAGE_SUM || stage == TF_STAGE_HEIGHT || stage == TF_STAGE_DRAINED)
        return 1;
    return (stage == TF_STAGE_NOISE || stage == TF_STAGE_REDISTRIBUTED ||
            stage == TF_STAGE_CONTRIBUTION) &&
           layer < t->layer_count;
}

double tf_terrain_sample_stage(const tf_terrain *t, tf_stage stage, size_t layer, double x,
                               double y)
{
    if (!t || !stage_is_valid(t, stage, layer))
        return NAN;
    switch (stage) {
    case TF_STAGE_NOISE:
        return layer_noise(t, &t->layers[layer], x, y);
    case TF_STAGE_REDISTRIBUTED:
        return layer_redistributed(t, layer, x, y);
    case TF_STAGE_CONTRIBUTION: {
        /* steps 3-4 as evaluate_sum does them, added to a zero sum */
        const tf_compiled_layer *L = &t->layers[layer];
        double contribution = (layer_redistributed(t, layer, x, y) + L->pre_amp_shift) *
                              L->amp_scale;
        if (L->mask == TF_MASK_RANGE)
            contribution *=
                tf_mask_weight(L, layer_redistributed(t, (size_t)L->mask_layer_index, x, y));
        else if (L->mask == TF_MASK_CURVE)
            contribution *= tf_curve_table_eval_inline(
                &L->mask_curve, layer_redistributed(t, (size_t)L->mask_layer_index, x, y));
        return 0.0 + contribution;
    }
    case TF_STAGE_SUM:
        return evaluate_sum(t, x, y);
    case TF_STAGE_DRAINED:
        return t->drainage.levels ? drained_sum(t, x, y) : evaluate_sum(t, x, y);
    default:
        return evaluate(t, x, y);
    }
}

int tf_terrain_sample_stage_window(const tf_terrain *t, tf_stage stage, size_t layer, double x0,
                                   double y0, double step, int64_t i0, int64_t j0, size_t nx,
                                   size_t ny, double *out, tf_error *err)
{
    if (!t || (!out && nx && ny)) {
        tf_error_set(err, TF_ERR_ARGUMENT, "stage window: no terrain or no output");
        return -1;
    }
    if (!stage_is_valid(t, stage, layer)) {
        tf_error_set(err, TF_ERR_ARGUMENT,
                     "stage window: stage %d of layer %zu: no such stage (the terrain has "
                     "%zu layers)",
                     (int)stage, layer, t->layer_count);
        return -1;
    }
    if (t->drainage.levels && (stage == TF_STAGE_DRAINED || stage == TF_STAGE_HEIGHT)) {
        if (drained_window(t, x0, y0, step, i0, j0, nx, ny, out, NULL) != 0) {
            tf_error_set(err, TF_ERR_NOMEM, "stage window: out of memory for the drainage "
                                            "network of %zux%zu samples",
                         nx, ny);
            return -1;
        }
        if (stage == TF_STAGE_HEIGHT && t->has_output_curve)
            for (size_t k = 0; k < nx * ny; k++)
                out[k] = tf_curve_table_eval_inline(&t->output_curve, out[k]);
        tf_error_clear(err);
        return 0;
    }
    if (stage == TF_STAGE_DRAINED)
        stage = TF_STAGE_SUM; /* no drainage: the sum itself */
    for (size_t j = 0; j < ny; j++) {
        double y = y0 + (double)(j0 + (int64_t)j) * step;
        tf_terrain_stage_row(t, stage, layer, x0, step, i0, y, nx, out + j * nx);
    }
    tf_error_clear(err);
    return 0;
}

int tf_terrain_combine(const tf_terrain *t, tf_stage stage, size_t layer,
                       const double *const *redistributed, size_t n, double *out, tf_error *err)
{
    if (!t || !redistributed || (!out && n)) {
        tf_error_set(err, TF_ERR_ARGUMENT, "combine: no terrain, no values or no output");
        return -1;
    }
    if (t->drainage.levels && (stage == TF_STAGE_HEIGHT || stage == TF_STAGE_DRAINED)) {
        tf_error_set(err, TF_ERR_ARGUMENT,
                     "combine: the spec's drainage stage needs the points; sample the "
                     "height or the drained sum with the stage functions");
        return -1;
    }
    if (stage == TF_STAGE_DRAINED)
        stage = TF_STAGE_SUM;
    if (!(stage == TF_STAGE_CONTRIBUTION || stage == TF_STAGE_SUM ||
          stage == TF_STAGE_HEIGHT) ||
        !stage_is_valid(t, stage, layer)) {
        tf_error_set(err, TF_ERR_ARGUMENT,
                     "combine: stage %d of layer %zu: expected the contribution of one of "
                     "the %zu layers, the sum or the height",
                     (int)stage, layer, t->layer_count);
        return -1;
    }
    /* the layers the stage reads must be given */
    const tf_compiled_layer *L = stage == TF_STAGE_CONTRIBUTION ? &t->layers[layer] : NULL;
    for (size_t i = 0; i < t->layer_count; i++) {
        int read = !L || i == layer ||
                   (L->mask != TF_MASK_NONE && (size_t)L->mask_layer_index == i);
        if (read && !redistributed[i]) {
            tf_error_set(err, TF_ERR_ARGUMENT, "combine: layer %zu's values are missing", i);
            return -1;
        }
    }
    tf_terrain_combine_row(t, stage, layer, redistributed, n, out);
    tf_error_clear(err);
    return 0;
}

/* Layer L's base noise and its derivatives in noise space: analytic where
 * docs/noise.md gives them, else the documented central differences
 * (tf_noise_eval_gradient, tf_fractal_plan_eval). */
static double base_noise_slope(const tf_compiled_layer *L, double nx, double ny, double *dnx,
                               double *dny)
{
    if (L->plan)
        return tf_fractal_plan_eval(L->plan, nx, ny, L->offset_z, dnx, dny);
    return tf_noise_eval_gradient(L->noise_type, L->seed, nx, ny, L->offset_z, dnx, dny);
}

/* The chain rule through docs/spec.md steps 1-6 (docs/spec.md,
 * "Gradients"). Each layer's value and its (d/dx, d/dy) travel together. */
double tf_terrain_sample_gradient(const tf_terrain *t, double x, double y, double *dhdx,
                                  double *dhdy)
{
    if (t->drainage.levels) {
        /* docs/spec.md, "Gradients": central differences across e = the
         * finest lattice spacing / 256, each coordinate offset rounded. */
        double e = t->drainage.L[t->drainage.levels - 1] * 0x1p-8;
        double gx = (evaluate(t, x + e, y) - evaluate(t, x - e, y)) / (2.0 * e);
        double gy = (evaluate(t, x, y + e) - evaluate(t, x, y - e)) / (2.0 * e);
        if (dhdx)
            *dhdx = gx;
        if (dhdy)
            *dhdy = gy;
        return evaluate(t, x, y);
    }
    double r[TF_MAX_LAYERS], rx[TF_MAX_LAYERS], ry[TF_MAX_LAYERS];
    double h = 0.0, hx = 0.0, hy = 0.0;
    for (size_t i = 0; i < t->layer_count; i++) {
        const tf_compiled_layer *L = &t->layers[i];
        double dnx, dny;
        double n = base_noise_slope(L, x * L->frequency + L->offset_x,
                                    y * L->frequency + L->offset_y, &dnx, &dny);
        /* u = (n + 1) / 2, so du/dx = dn/dnx * f / 2 */
        double u = (n + 1.0) * 0.5, slope = tf_curve_table_slope(&L->rd, u);
        r[i] = tf_curve_table_eval_inline(&L->rd, u);
        rx[i] = slope * (dnx * L->frequency * 0.5);
        ry[i] = slope * (dny * L->frequency * 0.5);
        double value = r[i] + L->pre_amp_shift, w = 1.0, dw = 0.0;
        if (L->mask != TF_MASK_NONE) {
            double rm = r[L->mask_layer_index];
            if (L->mask == TF_MASK_CURVE) {
                w = tf_curve_table_eval_inline(&L->mask_curve, rm);
                dw = tf_curve_table_slope(&L->mask_curve, rm);
            } else {
                w = tf_mask_weight_slope(L, rm, &dw);
            }
        }
        int m = L->mask_layer_index;
        h += value * L->amp_scale * w;
        hx += L->amp_scale * (rx[i] * w + (L->mask != TF_MASK_NONE ? value * dw * rx[m] : 0.0));
        hy += L->amp_scale * (ry[i] * w + (L->mask != TF_MASK_NONE ? value * dw * ry[m] : 0.0));
    }
    if (t->has_output_curve) {
        double slope = tf_curve_table_slope(&t->output_curve, h);
        h = tf_curve_table_eval_inline(&t->output_curve, h);
        hx *= slope;
        hy *= slope;
    }
    if (dhdx)
        *dhdx = hx;
    if (dhdy)
        *dhdy = hy;
    return h;
}

void tf_terrain_sample_window(const tf_terrain *t, double x0, double y0, double step,
                              int64_t i0, int64_t j0, size_t nx, size_t ny, float *out)
{
    if (!t || !out)
        return;
    if (t->drainage.levels) {
        if (drained_window(t, x0, y0, step, i0, j0, nx, ny, NULL, out) != 0)
            for (size_t k = 0; k < nx * ny; k++)
                out[k] = NAN;
        return;
    }
    /* Row by row through the batched path (terrain_fast.c), which gives
     * the bits of evaluate() at every sample. */
    for (size_t j = 0; j < ny; j++) {
        double y = y0 + (double)(j0 + (int64_t)j) * step;
        tf_terrain_eval_row(t, x0, step, i0, y, nx, out + j * nx);
    }
}

size_t tf_terrain_window_rows(const tf_terrain *t, double step)
{
    if (!t || !t->drainage.levels || !(step > 0.0) || !isfinite(step))
        return 1;
    return tf_drainage_tile(&t->drainage, step);
}

int tf_terrain_drainage_segments(const tf_terrain *t, double x0, double y0, double x1,
                                 double y1,
                                 int (*visit)(void *user, const tf_drainage_segment *s),
                                 void *user, tf_error *err)
{
    if (!t || !visit) {
        tf_error_set(err, TF_ERR_ARGUMENT, "drainage segments: %s",
                     t ? "no visit function" : "no terrain");
        return -1;
    }
    const tf_drainage *dr = &t->drainage;
    if (!dr->levels) {
        tf_error_set(err, TF_ERR_ARGUMENT, "drainage segments: the spec has no drainage stage");
        return -1;
    }
    if (!isfinite(x0) || !isfinite(y0) || !isfinite(x1) || !isfinite(y1) || x1 < x0 ||
        y1 < y0) {
        tf_error_set(err, TF_ERR_ARGUMENT,
                     "drainage segments: the box [%g, %g] x [%g, %g] is not finite and ordered",
                     x0, x1, y0, y1);
        return -1;
    }
    if (!tf_drainage_box_in_range(dr, x0, y0, x1, y1)) {
        tf_error_set(err, TF_ERR_LIMIT,
                     "drainage segments: the box passes the stage's range (2^50 finest cells "
                     "of %g from the origin)",
                     dr->L[dr->levels - 1]);
        return -1;
    }
    size_t cells = tf_drainage_box_cells(dr, x0, y0, x1, y1);
    if (cells > TF_DRAINAGE_MAX_BOX_CELLS) {
        tf_error_set(err, TF_ERR_LIMIT,
                     "drainage segments: the box covers %zu finest cells (of %g), more than "
                     "%zu",
                     cells, dr->L[dr->levels - 1], TF_DRAINAGE_MAX_BOX_CELLS);
        return -1;
    }
    tf_drainage_work *w = tf_drainage_work_new();
    int stopped = 0;
    int r = w ? tf_drainage_segments(t, dr, w, x0, y0, x1, y1, visit, user, &stopped) : -1;
    tf_drainage_work_free(w);
    if (r < 0) {
        tf_error_set(err, TF_ERR_NOMEM, "drainage segments: out of memory");
        return -1;
    }
    return stopped;
}

void tf_terrain_sample_grid(const tf_terrain *t, double x0, double y0, double step, size_t nx,
                            size_t ny, float *out)
{
    tf_terrain_sample_window(t, x0, y0, step, 0, 0, nx, ny, out);
}

double tf_terrain_normalize(const tf_terrain *t, double h)
{
    return (h - t->min_value) / (t->max_value - t->min_value);
}

double tf_terrain_min_value(const tf_terrain *t)
{
    return t->min_value;
}

double tf_terrain_max_value(const tf_terrain *t)
{
    return t->max_value;
}

size_t tf_terrain_layer_count(const tf_terrain *t)
{
    return t->layer_count;
}

const tf_spec *tf_terrain_spec(const tf_terrain *t)
{
    return t->spec;
}

double tf_noise_eval(tf_noise_type type, uint32_t seed, double x, double y, double z)
{
    return tf_noise_eval_gradient(type, seed, x, y, z, NULL, NULL);
}

/* ---- compilation */

void tf_terrain_free(tf_terrain *t)
{
    if (!t)
        return;
    tf_spec_free(t->spec);
    free(t->layers);
    free(t->tables);
    free(t->plans);
    free(t->quads);
    free(t);
}

/* Whether curves a and b have the same knots: count, interpolation and
 * every x, bit for bit (so the same segment and t for every u). */
static int same_knots(const tf_curve_table *a, const tf_curve_table *b)
{
    return a->count == b->count && a->interp == b->interp &&
           memcmp(a->x, b->x, a->count * sizeof *a->x) == 0;
}

/* tf_terrain.mask_knots: the first mask source whose first mask curve
 * shares its knots with at least one more of its mask curves. */
static void mask_knots_compile(tf_terrain *t)
{
    t->mask_knots_source = -1;
    t->mask_knots = NULL;
    for (size_t s = 0; s < t->layer_count && !t->mask_knots; s++) {
        const tf_curve_table *lead = NULL;
        size_t sharing = 0;
        for (size_t i = s + 1; i < t->layer_count; i++) {
            tf_compiled_layer *L = &t->layers[i];
            if (L->mask != TF_MASK_CURVE || L->mask_layer_index != (int)s)
                continue;
            if (!lead)
                lead = &L->mask_curve;
            if (same_knots(lead, &L->mask_curve))
                sharing++;
        }
        if (sharing < 2)
            continue;
        t->mask_knots_source = (int)s;
        t->mask_knots = lead;
        for (size_t i = s + 1; i < t->layer_count; i++) {
            tf_compiled_layer *L = &t->layers[i];
            L->mask_shares_knots = L->mask == TF_MASK_CURVE && L->mask_layer_index == (int)s &&
                                   same_knots(lead, &L->mask_curve);
        }
    }
}

/* Plain: a layer of a base noise alone, no fractal (a plain simplex or
 * perlin-reference-simplex layer has no plan). */
static int is_plain_layer_of(const tf_terrain *t, size_t i, tf_noise_type type)
{
    const tf_compiled_layer *L = &t->layers[i];
    return L->noise_type == type && (!L->plan || L->plan->kind == TF_FRACTAL_NONE);
}

/* The AVX2 build of a 2D base noise's scalar code with its gradient, for
 * a fractal's octaves sampled one point at a time on a vector path; NULL
 * (tf_noise_eval_gradient) for the portable path and the 3D noises (an
 * AVX2 build of perlin's and exponential-perlin's gradient code measured
 * no faster: docs/performance.md). */
static tf_noise2_deriv_fn point_deriv_on_path(tf_noise_type noise, tf_simd_level simd)
{
#if TF_HAVE_AVX2_PATH
    if (simd >= TF_SIMD_AVX2) {
        switch (noise) {
        case TF_NOISE_SIMPLEX:
            return tf_simplex2_deriv_avx2;
        case TF_NOISE_VALUE:
            return tf_value2_deriv_avx2;
        case TF_NOISE_POLYNOMIAL:
            return tf_polynomial2_deriv_avx2;
        case TF_NOISE_CELLULAR_F1:
            return tf_cellular_f1_deriv_avx2;
        case TF_NOISE_CELLULAR_F2:
            return tf_cellular_f2_deriv_avx2;
        case TF_NOISE_CELLULAR_F2_F1:
            return tf_cellular_f2_f1_deriv_avx2;
        default:
            break;
        }
    }
#endif
    (void)noise;
    (void)simd;
    return NULL;
}

void tf_terrain_select_lanes(tf_terrain *t)
{
    unsigned char laned[TF_MAX_LAYERS] = {0};
    t->lane_groups_on = 0;
    for (size_t g = 0; g < t->noise_lane_groups; g++) {
        tf_noise_lanes_fn lanes =
            tf_noise_lanes_for(t->simd, t->noise_lane_type[g], t->noise_lane_group_size[g]);
        if (!lanes)
            continue;
        t->lane_group_lanes[t->lane_groups_on] = lanes;
        t->lane_group_on[t->lane_groups_on++] = (unsigned char)g;
        for (size_t k = 0; k < t->noise_lane_group_size[g]; k++)
            laned[t->noise_lane_layer[t->noise_lane_first[g] + k]] = 1;
    }
    t->scalar_layer_count = 0;
    for (size_t i = 0; i < t->layer_count; i++)
        if (!laned[i])
            t->scalar_layer[t->scalar_layer_count++] = (unsigned char)i;
    t->lanes_hold_every_layer = t->layer_count > 0 && t->scalar_layer_count == 0 &&
                                t->lane_groups_on == 1;
    for (size_t i = 0; i < t->layer_count; i++) {
        tf_compiled_layer *L = &t->layers[i];
        L->plan_lanes = L->plan ? tf_fractal_plan_lanes(L->plan, t->simd) : NULL;
        if (L->plan) /* L->plan is t->plans[i] */
            t->plans[i].point_deriv = point_deriv_on_path(L->plan->noise, t->simd);
    }
}

/* t's noise lanes (tf_terrain.noise_lane_*): a group per noise with
 * lanes of which a layer is plain, in the order of the noises, each
 * group's layers in layer order. Whether a group pays is the path's
 * choice (tf_terrain_select_lanes). */
static void noise_lanes_compile(tf_terrain *t)
{
    for (int type = 0; type < TF_NOISE_TYPE_COUNT; type++) {
        if (!tf_noise_has_lanes((tf_noise_type)type))
            continue;
        size_t count = 0;
        for (size_t i = 0; i < t->layer_count; i++)
            count += (size_t)is_plain_layer_of(t, i, (tf_noise_type)type);
        if (count == 0)
            continue;
        size_t g = t->noise_lane_groups++;
        t->noise_lane_type[g] = (tf_noise_type)type;
        t->noise_lane_first[g] = t->noise_lane_count;
        t->noise_lane_group_size[g] = count;
        for (size_t i = 0; i < t->layer_count; i++)
            if (is_plain_layer_of(t, i, (tf_noise_type)type)) {
                size_t k = t->noise_lane_count++;
                t->noise_lane_seed[k] = t->layers[i].seed;
                t->noise_lane_frequency[k] = t->layers[i].frequency;
                t->noise_lane_offset_x[k] = t->layers[i].offset_x;
                t->noise_lane_offset_y[k] = t->layers[i].offset_y;
                t->noise_lane_z[k] = t->layers[i].offset_z;
                t->noise_lane_layer[k] = (unsigned char)i;
            }
    }
}

/* The single sample's curve lanes (see tf_terrain.quads); 0, or -1 when
 * memory runs out. Fewer than three layers stay scalar: like the noises'
 * lanes (evaluate_sum), one vector's latency costs more than one or two
 * scalar lookups. */
static int sample_lanes_compile(tf_terrain *t)
{
    size_t layers = t->layer_count;
    if (layers < 3)
        return 0;
    for (size_t i = 0; i < layers; i++) {
        const tf_compiled_layer *L = &t->layers[i];
        t->sample_range_masks |= L->mask == TF_MASK_RANGE;
        t->lane_shift[i] = L->pre_amp_shift;
        t->lane_scale[i] = L->amp_scale;
        if (L->mask == TF_MASK_CURVE) {
            t->mask_lane_table[t->mask_lane_count] = &L->mask_curve;
            t->mask_lane_layer[t->mask_lane_count] = (unsigned char)i;
            t->mask_lane_source[t->mask_lane_count++] = (unsigned char)L->mask_layer_index;
        }
    }
    t->mask_one_source = t->mask_lane_count ? t->mask_lane_source[0] : -1;
    for (size_t j = 1; j < t->mask_lane_count; j++)
        if (t->mask_lane_source[j] != t->mask_lane_source[0])
            t->mask_one_source = -1;
    t->rd_quads = (layers + 3) / 4;
    t->mask_quads = t->mask_one_source >= 0 ? 0 : (t->mask_lane_count + 3) / 4;
    t->quads = calloc(t->rd_quads + t->mask_quads, sizeof *t->quads);
    if (!t->quads)
        return -1;
    for (size_t l = 0; l < 4 * t->rd_quads; l++)
        tf_curve_quad_set(&t->quads[l / 4], l % 4, &t->layers[l < layers ? l : 0].rd, t->tables);
    tf_curve_quad *mq = t->quads + t->rd_quads;
    for (size_t l = 0; l < 4 * t->mask_quads; l++)
        tf_curve_quad_set(&mq[l / 4], l % 4,
                          &t->layers[t->mask_lane_layer[l < t->mask_lane_count ? l : 0]].mask_curve,
                          t->tables);
    t->sample_lanes = 1;
    return 0;
}

tf_terrain *tf_terrain_compile(const tf_spec *spec, tf_error *err)
{
    if (tf_spec_check(spec, "spec", err) != 0)
        return NULL;
    tf_terrain *t = calloc(1, sizeof *t);
    /* One block for every table: rd and mask curve of each layer, then the
     * output curve. */
    size_t table_bytes = 0, most_points = spec->output_curve_point_count;
    if (spec->output_curve_point_count > 0)
        table_bytes +=
            tf_curve_table_bytes(spec->output_curve_points, spec->output_curve_point_count);
    for (size_t i = 0; i < spec->layer_count; i++) {
        const tf_layer_spec *L = &spec->layers[i];
        table_bytes += tf_curve_table_bytes(L->rd_points, L->rd_point_count);
        if (L->mask_curve_point_count > 0)
            table_bytes +=
                tf_curve_table_bytes(L->mask_curve_points, L->mask_curve_point_count);
        if (L->rd_point_count > most_points)
            most_points = L->rd_point_count;
        if (L->mask_curve_point_count > most_points)
            most_points = L->mask_curve_point_count;
    }
    double *scratch = malloc(2 * most_points * sizeof *scratch);
    if (t) {
        t->spec = tf_spec_copy(spec, err);
        t->layers = calloc(spec->layer_count, sizeof *t->layers);
        t->tables = malloc(table_bytes);
        t->plans = calloc(spec->layer_count, sizeof *t->plans);
    }
    if (!t || !t->spec || !t->layers || !t->tables || !t->plans || !scratch) {
        free(scratch);
        tf_terrain_free(t);
        tf_error_set(err, TF_ERR_NOMEM, "spec: out of memory while compiling");
        return NULL;
    }

    t->layer_count = spec->layer_count;
    tf_drainage_compile(&t->drainage, spec);
    t->simd = tf_simd_select();
    t->min_value = spec->min_value;
    t->max_value = spec->max_value;
    char *storage = t->tables; /* segments are doubles: every table stays aligned */
    for (size_t i = 0; i < spec->layer_count; i++) {
        const tf_layer_spec *src = &spec->layers[i];
        tf_compiled_layer *L = &t->layers[i];
        L->noise_type = src->noise_type;
        L->seed = src->seed;
        L->frequency = src->frequency;
        L->offset_x = src->offset[0];
        L->offset_y = src->offset[1];
        L->offset_z = src->offset[2];
        if (src->fractal_kind != TF_FRACTAL_NONE || (src->noise_type != TF_NOISE_SIMPLEX &&
                                                     src->noise_type != TF_NOISE_PERLIN_REFERENCE_SIMPLEX)) {
            tf_fractal_plan_init(&t->plans[i], src);
            L->plan = &t->plans[i];
        }
        tf_curve_table_build(&L->rd, storage, src->rd_points, src->rd_point_count,
                             src->rd_interpolation, scratch);
        storage += tf_curve_table_bytes(src->rd_points, src->rd_point_count);
        L->pre_amp_shift = src->pre_amp_shift;
        L->amp_scale = src->amp_scale;
        L->mask_layer_index = src->mask_layer_index;
        if (src->mask_curve_point_count > 0) {
            L->mask = TF_MASK_CURVE;
            tf_curve_table_build(&L->mask_curve, storage, src->mask_curve_points,
                                 src->mask_curve_point_count, src->mask_curve_interpolation,
                                 scratch);
            storage +=
                tf_curve_table_bytes(src->mask_curve_points, src->mask_curve_point_count);
        } else if (src->mask_layer_index >= 0) {
            L->mask = TF_MASK_RANGE;
            L->mask_min = src->mask_min_value;
            L->mask_max = src->mask_max_value;
            L->mask_falloff = src->mask_falloff;
            L->mask_inv_falloff = src->mask_falloff > 0.0 ? 1.0 / src->mask_falloff : 0.0;
        } else {
            L->mask = TF_MASK_NONE;
        }
    }
    noise_lanes_compile(t);
    tf_terrain_select_lanes(t);
    for (size_t i = 0; i < spec->layer_count; i++)
        if (t->layers[i].mask_layer_index >= 0)
            t->layers[t->layers[i].mask_layer_index].is_mask_source = 1;
    mask_knots_compile(t);
    if (spec->output_curve_point_count > 0) {
        t->has_output_curve = 1;
        tf_curve_table_build(&t->output_curve, storage, spec->output_curve_points,
                             spec->output_curve_point_count, spec->output_curve_interpolation,
                             scratch);
    }
    free(scratch);
    if (sample_lanes_compile(t) != 0) {
        tf_terrain_free(t);
        tf_error_set(err, TF_ERR_NOMEM, "spec: out of memory while compiling");
        return NULL;
    }
    tf_error_clear(err);
    return t;
}

tf_terrain *tf_terrain_parse(const char *json, size_t len, tf_error *err)
{
    tf_spec *spec = tf_spec_parse(json, len, NULL, err);
    if (!spec)
        return NULL;
    tf_terrain *t = tf_terrain_compile(spec, err);
    tf_spec_free(spec);
    return t;
}

tf_terrain *tf_terrain_load(const char *path, tf_error *err)
{
    tf_spec *spec = tf_spec_load(path, err);
    if (!spec)
        return NULL;
    tf_terrain *t = tf_terrain_compile(spec, err);
    tf_spec_free(spec);
    return t;
}
