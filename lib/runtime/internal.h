/*
 * Private declarations shared by the runtime's sources:
 * the compiled curve tables (used by terrain.c and curve.c), the derived
 * default rules (seeds, offsets, falloff) and the spec's allocation helpers.
 */
#ifndef TF_RUNTIME_INTERNAL_H
#define TF_RUNTIME_INTERNAL_H

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include "drainage.h"
#include "base/error.h"
#include "terrafit/runtime.h"
#include "fractal.h"

/* Lookups every sample makes: inlined whole where the compiler allows
 * asking (GCC, clang), so their loads overlap the caller's work. */
#if defined(__GNUC__)
#define TF_ALWAYS_INLINE static inline __attribute__((always_inline))
#else
#define TF_ALWAYS_INLINE static inline
#endif


/* The AVX2 functions are compiled (with a target attribute, no -m flags)
 * where GCC-style x86 intrinsics exist; they run only when the CPU has
 * AVX2 (cpu.c). */
#if (defined(__x86_64__) || defined(__i386__)) && defined(__GNUC__) && !defined(TF_NO_AVX2)
#define TF_HAVE_AVX2_PATH 1
#else
#define TF_HAVE_AVX2_PATH 0
#endif
/* An AVX2 noise row (a grid's inner loop): compiled for AVX2 and started
 * on a 64-byte line, so its loop sits at the same offset within a line
 * whatever code is linked before it. The same instructions 32 bytes off a
 * line cost the value and polynomial grids 4-8% on the AVX2 path
 * (docs/performance.md, "Value and polynomial points on the AVX2 path"). */
#define TF_AVX2_ROW __attribute__((target("avx2"), aligned(64)))
/* The AVX-512 functions, the same way (AVX-512F and DQ, with BMI2; run
 * only when the CPU and the OS support them). */
#if TF_HAVE_AVX2_PATH && !defined(TF_NO_AVX512)
#define TF_HAVE_AVX512_PATH 1
#else
#define TF_HAVE_AVX512_PATH 0
#endif

/* ---- compiled control-point curves (docs/spec.md, step 2) */

/* One segment [x_k, x_(k+1)): y = c0 + t*(c1 + t*(c2 + t*c3)) with
 * t = (u - x_k) * inv_width for linear and monotone cubic, and
 * y = c0 + c1 * cosine_blend(t) for cosine. 64 bytes: on the AVX2 path a
 * lookup reads the first four members as one vector load and c2, c3 as
 * one 16-byte load. */
typedef struct {
    double x0; /* x_k */
    double inv_width;
    double c0, c1, c2, c3;
    double unused[2]; /* pads to 8 doubles */
} tf_curve_segment;

/* A bucket of the segment search (see tf_curve_table): its segment and
 * the one knot it may hold, together in 16 bytes (one load). */
typedef struct {
    double next;    /* x_(k+1), k = first without the flag */
    uint64_t first; /* k, the inner knots in earlier buckets; the flag below */
} tf_curve_bucket;

/* tf_curve_bucket.first's top bit: two or more inner knots fall in the
 * bucket, so a lookup there binary-searches the knots. */
#define TF_CURVE_BUCKET_CROWDED ((uint64_t)1 << 63)

/* A curve of at most TF_CURVE_LANE_SEGMENTS segments also keeps its
 * segments side by side (tf_curve_table.lanes): row TF_CURVE_LANE_KNOT
 * holds the inner knots x_1 .. x_(K-2) at their index (NaN elsewhere, so
 * no comparison passes there), the other rows a member of each segment
 * (0 beyond the last). The vector rows then find a sample's segment and
 * its members in registers, with no load per sample. */
#define TF_CURVE_LANE_SEGMENTS 16
enum {
    TF_CURVE_LANE_KNOT,
    TF_CURVE_LANE_X0,
    TF_CURVE_LANE_INV_WIDTH,
    TF_CURVE_LANE_C0,
    TF_CURVE_LANE_C1,
    TF_CURVE_LANE_C2,
    TF_CURVE_LANE_C3,
    TF_CURVE_LANE_ROWS
};

typedef struct {
    size_t count;        /* control points, >= 2 */
    tf_interp interp;
    const double *x;     /* count knots */
    const tf_curve_segment *segments; /* count - 1 */
    double y_first, y_last;
    /* Segment search in O(1) (docs/performance.md, "How the fast paths
     * work"): [x_0, x_last] is cut into bucket_count equal buckets, and
     * tf_curve_bucket_of(u) names u's bucket. The inner knots x_1 ..
     * x_(K-2) are put in buckets by that same function when the table is
     * built; buckets[b].first is the number of inner knots in buckets
     * before b, which is the segment of every u in bucket b unless u has
     * passed a knot of bucket b itself. With at most one such knot, one
     * comparison (u >= buckets[b].next, that knot) finishes the search;
     * with more, first has TF_CURVE_BUCKET_CROWDED set and the lookup
     * searches the knots from there. Exact, because tf_curve_bucket_of
     * never decreases as u grows: the same segment as a binary search for
     * every u. */
    uint32_t bucket_count;
    double bucket_scale; /* bucket_count / (x_last - x_0), or 0 */
    double bucket_top;   /* bucket_count - 1 */
    const tf_curve_bucket *buckets;
    /* TF_CURVE_LANE_ROWS rows of TF_CURVE_LANE_SEGMENTS doubles (see
     * there), or NULL for a curve of more segments */
    const double *lanes;
} tf_curve_table;

/* Bytes needed for a table of these `count` valid points (knots, segments,
 * buckets), a multiple of sizeof(double). */
size_t tf_curve_table_bytes(const tf_point *points, size_t count);
/* Build the table into `storage` (tf_curve_table_bytes(count) bytes,
 * aligned for double), using `scratch` (2 * count doubles) for the
 * tangents. Points must be valid (checked by the caller). */
void tf_curve_table_build(tf_curve_table *table, void *storage, const tf_point *points,
                          size_t count, tf_interp interp, double *scratch);
double tf_curve_table_eval(const tf_curve_table *table, double u);
/* d/du of tf_curve_table_eval: 0 on the clamped ends (and at u = x_0 or
 * x_(K-1) exactly), the segment polynomial's derivative inside. */
double tf_curve_table_slope(const tf_curve_table *table, double u);
/* tf_curve_table_eval at u[k], k < n. */
void tf_curve_table_eval_row(const tf_curve_table *table, const double *u, size_t n, double *out);
#if TF_HAVE_AVX2_PATH
/* The same bits, four lanes at a time; only on a CPU with AVX2. */
void tf_curve_table_eval_row_avx2(const tf_curve_table *table, const double *u, size_t n,
                                  double *out);
/* The same at u = (noise[k] + 1) * 0.5, the redistribution's unit value
 * (docs/spec.md, step 2), computed in the lookup's first pass. */
void tf_curve_table_eval_unit_row_avx2(const tf_curve_table *table, const double *noise,
                                       size_t n, double *out);
/* Curves on one set of knots (tf_terrain.mask_knots): the row of places
 * of u[k] on `table`'s knots, its segment (as tf_curve_table_segment
 * finds it) into seg[k] and t = (u - x_k) * inv_width_k into t[k]; then
 * any curve on the same knots at those places, out[k] being
 * tf_curve_table_eval(curve, u[k]) bit for bit. For tables with lanes (at
 * most TF_CURVE_LANE_SEGMENTS segments) only; the AVX-512 pair below is
 * the same with eight lanes. */
void tf_curve_table_place_row_avx2(const tf_curve_table *table, const double *u, size_t n,
                                   int64_t *seg, double *t);
void tf_curve_table_placed_row_avx2(const tf_curve_table *curve, const double *u,
                                    const int64_t *seg, const double *t, size_t n, double *out);
#if TF_HAVE_AVX512_PATH
/* The same two rows on the AVX-512 path (eight lanes). */
void tf_curve_table_eval_row_avx512(const tf_curve_table *table, const double *u, size_t n,
                                    double *out);
void tf_curve_table_eval_unit_row_avx512(const tf_curve_table *table, const double *noise,
                                         size_t n, double *out);
void tf_curve_table_place_row_avx512(const tf_curve_table *table, const double *u, size_t n,
                                     int64_t *seg, double *t);
void tf_curve_table_placed_row_avx512(const tf_curve_table *curve, const double *u,
                                      const int64_t *seg, const double *t, size_t n,
                                      double *out);
#endif
#endif
/* The segment of u: the largest k <= count - 2 with x_k <= u (0 when
 * u < x_1), as a binary search finds it; count - 2 for NaN (so NaN stays
 * NaN). */
size_t tf_curve_table_segment(const tf_curve_table *table, double u);

/* Taylor coefficients of sin(pi*s), (-1)^k pi^(2k+1) / (2k+1)!, k = 0..10,
 * rounded to double (docs/spec.md, "Redistribution curves": cosine). For
 * |s| <= 0.5 the truncation error is below 2e-18, so the result is sin to
 * within rounding, with no libm call: the same bits on every IEEE-754
 * platform. */
static const double TF_SINPI_COEFFS[11] = {
    3.141592653589793,       -5.16771278004997,       2.5501640398773455,
    -0.5992645293207921,     0.08214588661112823,     -0.0073704309457143504,
    0.00046630280576761255,  -2.1915353447830217e-05, 7.952054001475513e-07,
    -2.2948428997269873e-08, 5.392664662608129e-10,
};

/* 0.5 - 0.5*cos(pi*t), evaluated with the documented polynomial. */
double tf_cosine_blend(double t);

/* The bucket of u (not NaN): floor((u - x_0) * bucket_scale) within
 * [0, bucket_top], a function that never decreases as u grows. The AVX2
 * lookup does these IEEE operations too. bucket_top < 2^31, so the
 * conversion is a signed one (one instruction; an unsigned 64-bit one is a
 * branch and several). */
TF_ALWAYS_INLINE size_t tf_curve_bucket_of(const tf_curve_table *table, double u)
{
    double f = (u - table->x[0]) * table->bucket_scale;
    f = f > 0.0 ? f : 0.0;
    return (size_t)(int64_t)(f < table->bucket_top ? f : table->bucket_top);
}

/* The segment of u < x_last: the largest k with x_k <= u, as a binary
 * search finds it (see tf_curve_table): the inner knots of earlier buckets,
 * plus the knot of this bucket if u has passed it. No bound check is needed
 * on that step: in a bucket with no inner knot left, next is x_last, which
 * u is below. A crowded bucket may hold nearly every knot (a tight cluster
 * of them), so the rest is a binary search over the knots from there, not
 * a walk. NaN gets bucket 0's segment, a valid one (the value stays NaN). */
TF_ALWAYS_INLINE size_t tf_curve_table_segment_below_last(const tf_curve_table *table, double u)
{
    const tf_curve_bucket *bucket = &table->buckets[tf_curve_bucket_of(table, u)];
    size_t k = (size_t)(bucket->first & ~TF_CURVE_BUCKET_CROWDED);
    if (!(bucket->first & TF_CURVE_BUCKET_CROWDED))
        return k + (size_t)(u >= bucket->next);
    const double *x = table->x;
    size_t hi = table->count - 2; /* the answer is in [k, hi] */
    while (k < hi) {
        size_t mid = k + (hi - k + 1) / 2;
        if (u >= x[mid])
            k = mid;
        else
            hi = mid - 1;
    }
    return k;
}

/* tf_curve_table_segment and tf_curve_table_eval, inlined into the
 * evaluation loops. */
TF_ALWAYS_INLINE size_t tf_curve_table_segment_inline(const tf_curve_table *table, double u)
{
    if (!(u < table->x[table->count - 1])) /* x_last and beyond, and NaN */
        return table->count - 2;
    return tf_curve_table_segment_below_last(table, u);
}

/* Segment k's interpolant at u (the lookups' last steps). */
TF_ALWAYS_INLINE double tf_curve_segment_at(const tf_curve_table *table, size_t k, double u)
{
    const tf_curve_segment *s = &table->segments[k];
    double t = (u - s->x0) * s->inv_width;
    if (table->interp == TF_INTERP_COSINE)
        return s->c0 + s->c1 * tf_cosine_blend(t);
    return s->c0 + t * (s->c1 + t * (s->c2 + t * s->c3));
}

TF_ALWAYS_INLINE double tf_curve_table_eval_inline(const tf_curve_table *table, double u)
{
    const double *x = table->x;
    if (u <= x[0])
        return table->y_first;
    if (u >= x[table->count - 1])
        return table->y_last;
    /* x_0 < u < x_last here, or u is NaN (and stays NaN in any segment) */
    return tf_curve_segment_at(table, tf_curve_table_segment_below_last(table, u), u);
}

/* Four curves of a compiled terrain as the lanes of one lookup
 * (curve_lanes.h): each lane's table constants side by side, so a member
 * of all four lanes is one vector load. Lanes beyond the curves in use
 * repeat lane 0's curve. */
typedef struct {
    double x_first[4], x_last[4], y_first[4], y_last[4];
    double scale[4], top[4]; /* the tables' bucket_scale and bucket_top */
    /* byte offsets of the buckets and segments in the terrain's table block */
    int64_t buckets[4], segments[4];
    double cosine[4]; /* all bits set in the lanes of cosine curves */
    const tf_curve_table *table[4]; /* for a crowded bucket's search */
    int any_cosine;
} tf_curve_quad;

/* Fill lane `lane` of q with `table`, whose storage is in the block at `base`. */
void tf_curve_quad_set(tf_curve_quad *q, size_t lane, const tf_curve_table *table,
                       const void *base);
#if TF_HAVE_AVX2_PATH
/* out[4 g + l] = tf_curve_table_eval(lane l of q[g], in[4 g + l]) for g <
 * quads (curve_lanes.h's lookup, not inlined: for tests). */
void tf_curve_quads_eval_avx2(const tf_curve_quad *q, size_t quads, const void *base,
                              const double *in, double *out);
#endif

/* ---- the compiled terrain (terrain.c compiles, terrain.c and
 * terrain_fast.c evaluate) */

/* How a layer is masked (docs/spec.md, step 4). */
typedef enum { TF_MASK_NONE, TF_MASK_RANGE, TF_MASK_CURVE } tf_mask_kind;

/* A noise's lanes on one path (tf_noise_lanes, below). */
typedef void (*tf_noise_lanes_fn)(const uint32_t *seed, double x, double y, const double *f,
                                  const double *ox, const double *oy, const double *z, size_t n,
                                  double *out);

typedef struct {
    tf_noise_type noise_type;
    uint32_t seed;
    double frequency;
    double offset_x, offset_y, offset_z;
    tf_curve_table rd;
    double pre_amp_shift, amp_scale;
    tf_mask_kind mask;
    int mask_layer_index; /* -1: unmasked */
    int is_mask_source;   /* a later layer is masked by this one */
    double mask_min, mask_max;
    double mask_falloff, mask_inv_falloff; /* inv is 0 when falloff is 0 */
    tf_curve_table mask_curve;              /* TF_MASK_CURVE: w = MC(r_m) */
    /* The mask curve's knots are those of tf_terrain.mask_knots (so a
     * sample finds its segment once for all of them) */
    int mask_shares_knots;
    /* The noise kinds of docs/noise.md beyond the two plain ones, and any
     * layer with a "fractal": its compiled plan (fractal.c), NULL for a
     * plain simplex or perlin-reference-simplex layer. */
    const tf_fractal_plan *plan;
    /* tf_fractal_plan_lanes(plan, the terrain's path): the lanes of the
     * plan's noise where its octaves run as lanes on that path, set with
     * the path (tf_terrain_select_lanes); else NULL */
    tf_noise_lanes_fn plan_lanes;
} tf_compiled_layer;

/* Evaluation paths: the same bits on each, only the speed differs. */
/* Ordered: a level runs every routine of the levels below it (an AVX-512
 * CPU has AVX2), and its own where it has one. */
typedef enum { TF_SIMD_NONE = 0, TF_SIMD_AVX2 = 1, TF_SIMD_AVX512 = 2 } tf_simd_level;

struct tf_terrain {
    tf_spec *spec; /* the source, for tools (tf_terrain_spec) */
    tf_drainage drainage; /* step 5b; drainage.levels == 0: none */
    size_t layer_count;
    double min_value, max_value;
    tf_compiled_layer *layers;
    int has_output_curve;
    tf_curve_table output_curve;
    tf_simd_level simd; /* chosen when compiled (tf_simd_select) */
    /* The plain layers of the noises that have lanes (those
     * tf_noise_lanes names on some path), whose noises a single sample can compute
     * as the lanes of vectors: a group per noise with a plain layer,
     * noise_lane_groups of them in the order of the noises; group g is
     * lanes noise_lane_first[g] .. + noise_lane_group_size[g] - 1 of the
     * arrays below (noise_lane_count in all; zero past it), of noise
     * noise_lane_type[g], its layers in layer order. */
    size_t noise_lane_groups, noise_lane_count;
    tf_noise_type noise_lane_type[TF_NOISE_TYPE_COUNT];
    size_t noise_lane_first[TF_NOISE_TYPE_COUNT], noise_lane_group_size[TF_NOISE_TYPE_COUNT];
    uint32_t noise_lane_seed[TF_MAX_LAYERS];
    double noise_lane_frequency[TF_MAX_LAYERS];
    double noise_lane_offset_x[TF_MAX_LAYERS], noise_lane_offset_y[TF_MAX_LAYERS];
    double noise_lane_z[TF_MAX_LAYERS];
    unsigned char noise_lane_layer[TF_MAX_LAYERS];
    /* What a single sample takes on the terrain's path
     * (tf_terrain_select_lanes): the groups whose lanes pay
     * (lane_group_on[0 .. lane_groups_on - 1], group lane_group_on[j]
     * computed by lane_group_lanes[j]), the layers they leave, one at a
     * time (scalar_layer[0 .. scalar_layer_count - 1], in layer order),
     * and whether one group taken holds every layer (lane k is layer k,
     * so the lanes can write the noises directly). */
    size_t lane_groups_on, scalar_layer_count;
    unsigned char lane_group_on[TF_NOISE_TYPE_COUNT];
    tf_noise_lanes_fn lane_group_lanes[TF_NOISE_TYPE_COUNT];
    unsigned char scalar_layer[TF_MAX_LAYERS];
    int lanes_hold_every_layer;
    /* A single sample on the AVX2 path with three or more layers
     * (sample_lanes set) looks its curves up as lanes
     * (curve_lanes.h): quads holds every layer's rd, four a quad (rd_quads
     * of them), then the mask curves' (mask_quads), whose lane j belongs to
     * layer mask_lane_layer[j] and reads the rd value of layer
     * mask_lane_source[j]. lane_shift and lane_scale are the layers'
     * preAmpShift and ampScale side by side, for step 3 in lanes. When
     * every mask curve reads the same layer (a fitted DEM's masks all
     * read layer 0), mask_one_source is that layer and a sample looks its
     * rd up once more as a scalar and its mask curves as scalars at that
     * r (no mask quads); otherwise -1. sample_range_masks: some layer
     * has a range mask (else the sample skips their loop). */
    int sample_lanes, mask_one_source, sample_range_masks;
    size_t rd_quads, mask_quads, mask_lane_count;
    tf_curve_quad *quads;
    unsigned char mask_lane_layer[TF_MAX_LAYERS], mask_lane_source[TF_MAX_LAYERS];
    const tf_curve_table *mask_lane_table[TF_MAX_LAYERS]; /* lane j's mask curve */
    double lane_shift[TF_MAX_LAYERS], lane_scale[TF_MAX_LAYERS];
    /* Mask curves on one set of knots: a fitted DEM's masks of layer 0
     * are curves at the same quantiles of its r. mask_knots_source is
     * the first mask source with two or more mask curves whose knots
     * (count, interpolation and every x, bit for bit) are those of its
     * first mask curve, mask_knots; those layers have mask_shares_knots
     * set (-1 and NULL when no source has such curves). The segment and
     * t of a sample are then the same for all of them: found once. */
    int mask_knots_source;
    const tf_curve_table *mask_knots;
    void *tables;       /* one block holding every curve table */
    tf_fractal_plan *plans; /* one per layer, used by the layers whose plan is set */
};

/* The path for terrains compiled now: the fastest the CPU runs, unless the
 * environment variable TERRAFIT_SIMD says "none" or "avx2" (a cap). */
tf_simd_level tf_simd_select(void);
/* Whether this CPU (and build) can run the AVX2, the AVX-512 path. */
int tf_simd_avx2_available(void);
int tf_simd_avx512_available(void);

/* Mask weight (step 4) of a TF_MASK_RANGE layer: 1 inside [min, max]
 * (and for NaN), the smoothstep of s = 1 - d / falloff at distance d < falloff
 * outside, else 0; and, when dw_dr is not NULL, its derivative. */
TF_ALWAYS_INLINE double tf_mask_weight_slope(const tf_compiled_layer *L, double r_mask,
                                             double *dw_dr)
{
    double beyond, sign; /* d beyond / d r_mask = -sign */
    if (dw_dr)
        *dw_dr = 0.0;
    if (r_mask < L->mask_min)
        beyond = L->mask_min - r_mask, sign = 1.0;
    else if (r_mask > L->mask_max)
        beyond = r_mask - L->mask_max, sign = -1.0;
    else
        return 1.0;
    if (!(beyond < L->mask_falloff))
        return 0.0;
    double s = 1.0 - beyond * L->mask_inv_falloff;
    /* smoothstep(s)' = 6 s (1 - s), ds/dr_mask = sign / falloff */
    if (dw_dr)
        *dw_dr = 6.0 * s * (1.0 - s) * (sign * L->mask_inv_falloff);
    return s * s * (3.0 - 2.0 * s);
}

static inline double tf_mask_weight(const tf_compiled_layer *L, double r_mask)
{
    return tf_mask_weight_slope(L, r_mask, NULL);
}

/* A layer of plain simplex noise (no fractal, so no plan): the one kind
 * with row and lane versions on the AVX2 path. */
static inline int tf_layer_is_plain_simplex(const tf_compiled_layer *L)
{
    return L->noise_type == TF_NOISE_SIMPLEX && !L->plan;
}

/* Layer L's step 1 at the sample (x, y), as a single sample takes it (a
 * fractal kind's octaves as lanes where the terrain has them). */
double tf_layer_noise(const tf_terrain *t, const tf_compiled_layer *L, double x, double y);

/* One lattice row of the window: n samples at x = x0 + (double)(i0 + i) *
 * step, i = 0..n-1, and the given y, written as floats; the bits of
 * (float)tf_terrain_sample. Batched per layer, vectorized on the AVX2 path. */
void tf_terrain_eval_row(const tf_terrain *t, double x0, double step, int64_t i0, double y,
                         size_t n, float *out);

/* n points (x[k], y[k]) of their own, batched as a row is: the bits of
 * tf_terrain_sample at each, for a terrain without a drainage stage. */
void tf_terrain_eval_points(const tf_terrain *t, const double *x, const double *y, size_t n,
                            double *out);

/* tf_terrain_sample_stage at the n samples of a lattice row, x = x0 +
 * (double)(i0 + i) * step and the given y (stage and layer checked by the
 * caller). */
void tf_terrain_stage_row(const tf_terrain *t, tf_stage stage, size_t layer, double x0,
                          double step, int64_t i0, double y, size_t n, double *out);

/* tf_terrain_combine's work (arguments checked by the caller): r[i] may be
 * NULL for a layer the stage does not read. */
void tf_terrain_combine_row(const tf_terrain *t, tf_stage stage, size_t layer,
                            const double *const *r, size_t n, double *out);

/* Base noise of one kind at n points (x[i], y) on the path `simd`: the bits
 * of tf_noise_eval(type, seed, x[i], y, z). The benchmarks' baseline rows
 * (tf_fractal_sum_row) use it. */
void tf_noise_row(tf_simd_level simd, tf_noise_type type, uint32_t seed, const double *x,
                  double y, double z, size_t n, double *out);
/* Base noise of one kind and its gradient at n points (x[i], y[i]) of
 * their own on the path `simd`: the bits of tf_noise_eval_gradient at
 * each; with dx and dy NULL the values only. swiss and jordan rows use it
 * (each octave's points are warped per sample). */
void tf_noise_points_deriv(tf_simd_level simd, tf_noise_type type, uint32_t seed,
                           const double *x, const double *y, double z, size_t n, double *v,
                           double *dx, double *dy);
/* Base noise of one kind at n points (x * f[k] + ox[k], y * f[k] + oy[k],
 * z[k]) with seeds seed[k], as the lanes of vectors: the bits of
 * tf_noise_eval at each. A single sample's layers or a layer's octaves.
 * tf_noise_lanes gives the function of a noise on a path, NULL where it
 * has none (the portable path; on the AVX2 path every noise but simplex);
 * the callers choose it when the path is set, not per sample.
 * tf_noise_lanes_from is the fewest lanes worth a vector, 0 where there is
 * no function; tf_noise_lanes_for is the function for count lanes where
 * they are worth it, else NULL (simplex: four lanes a vector on the AVX2
 * path, eight on the AVX-512 path, z unused; the others eight on the
 * AVX-512 path). out
 * has room for n rounded up to a multiple of 8: the lanes store whole
 * vectors (TF_MAX_LAYERS and TF_MAX_OCTAVES are multiples of 8, so arrays
 * of either size hold them). */
tf_noise_lanes_fn tf_noise_lanes(tf_simd_level simd, tf_noise_type type);
/* Whether a noise has lanes on some vector path of this build (a build
 * without the AVX-512 path has simplex's only): where a layer's noise can
 * join a single sample's lane group at all. */
int tf_noise_has_lanes(tf_noise_type type);
int tf_noise_lanes_from(tf_simd_level simd, tf_noise_type type);
tf_noise_lanes_fn tf_noise_lanes_for(tf_simd_level simd, tf_noise_type type, size_t count);
_Static_assert(TF_MAX_LAYERS % 8 == 0 && TF_MAX_OCTAVES % 8 == 0,
               "the lanes store whole vectors of 8");
#if TF_HAVE_AVX512_PATH
#include <immintrin.h>
/* The points of a single sample's lanes m .. m + 7 on the AVX-512 path,
 * (x * f[k] + ox[k], y * f[k] + oy[k]) for the lanes in `present`: a
 * multiply then an add, the scalar expression's operations, so its bits;
 * the other lanes load 0 and hold 0 * x + 0. */
static inline __attribute__((target("avx512f"), always_inline)) void
tf_lane_points8(__mmask8 present, double x, double y, const double *f, const double *ox,
                const double *oy, __m512d *px, __m512d *py)
{
    __m512d vf = _mm512_maskz_loadu_pd(present, f);
    *px = _mm512_add_pd(_mm512_mul_pd(_mm512_set1_pd(x), vf), _mm512_maskz_loadu_pd(present, ox));
    *py = _mm512_add_pd(_mm512_mul_pd(_mm512_set1_pd(y), vf), _mm512_maskz_loadu_pd(present, oy));
}
#endif
/* tf_fractal_plan_lanes: the lanes of a plan's noise on a path where its
 * octaves are worth running as lanes (fbm, ridged or billow, enough
 * octaves), else NULL. tf_fractal_plan_eval_lanes: fbm, ridged or billow
 * at one point (nx, ny, nz) with nz the layer's offset[2] (as a terrain
 * samples it), the octaves' noises as the lanes of vectors (`lanes`:
 * tf_fractal_plan_lanes on the path): tf_fractal_plan_eval's value, the
 * same bits. */
tf_noise_lanes_fn tf_fractal_plan_lanes(const tf_fractal_plan *plan, tf_simd_level simd);
double tf_fractal_plan_eval_lanes(const tf_fractal_plan *plan, tf_noise_lanes_fn lanes, double nx,
                                  double ny);

/* Which lanes a single sample takes on t->simd (tf_terrain.lane_group_on,
 * scalar_layer, lanes_hold_every_layer, each layer's plan_lanes): made
 * when the terrain is compiled and again when its path changes, not
 * tested per sample. */
void tf_terrain_select_lanes(tf_terrain *t);

/* ---- derived defaults (docs/spec.md, "Seeds and offsets") */
uint32_t tf_mix32(uint32_t x);
uint32_t tf_layer_seed(uint32_t root_seed, size_t layer_index);
void tf_default_offset(uint32_t layer_seed, double offset[3]);
/* The drainage stage's default seed (docs/spec.md, "Drainage"). */
uint32_t tf_drainage_seed(uint32_t root_seed);
/* 5% of the mask layer's control-point y span. */
double tf_default_mask_falloff(const tf_layer_spec *mask_layer);
/* The value range implied by the layers' curves, shifts, scales and masks. */
void tf_spec_derived_range(const tf_spec *spec, double *lo, double *hi);

/* ---- spec internals */
/* tf_spec_validate with a source name (e.g. the file) to start messages. */
int tf_spec_check(const tf_spec *spec, const char *source, tf_error *err);
char *tf_strdup(const char *s);
/* Append a path to spec->unknown_keys. 0 on success. */
int tf_spec_add_unknown_key(tf_spec *spec, const char *path);
/* Default-initialize one layer (no points). */
void tf_layer_init(tf_layer_spec *layer, uint32_t root_seed, size_t index);

#endif
