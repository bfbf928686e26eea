/*
 * Control-point curves: the redistribution function of thesis 5.2 / 5.4.1.
 * Binary search for the segment, then one of three interpolants; outside
 * the knots the curve is clamped to its end values (docs/spec.md, step 2).
 * All per-segment constants (reciprocal widths, polynomial coefficients,
 * Fritsch-Carlson tangents) are computed once when the curve is compiled.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "curve_lanes.h"
#include "internal.h"

/* (1 - cos(pi*t)) / 2 = sin(pi*t/2)^2, with sin(pi*s) for s = t/2 in
 * [0, 0.5] by Horner in s^2. Exactly 0 at t = 0, so a segment starts at
 * its knot's y exactly. */
double tf_cosine_blend(double t)
{
    double s = t * 0.5;
    double s2 = s * s;
    double p = TF_SINPI_COEFFS[10];
    for (int k = 9; k >= 0; k--)
        p = p * s2 + TF_SINPI_COEFFS[k];
    double sine = s * p;
    return sine * sine;
}

/* d/dt of tf_cosine_blend: with q = s P(s^2), s = t / 2, the blend is q^2,
 * so its derivative is 2 q q'(s) / 2 = q (P(s^2) + 2 s^2 P'(s^2)); the same
 * polynomial, not libm's sin, so gradients are reproducible too. */
static double cosine_blend_slope(double t)
{
    double s = t * 0.5;
    double s2 = s * s;
    double p = TF_SINPI_COEFFS[10], dp = 10.0 * TF_SINPI_COEFFS[10];
    for (int k = 9; k >= 0; k--) {
        p = p * s2 + TF_SINPI_COEFFS[k];
        if (k >= 1)
            dp = dp * s2 + (double)k * TF_SINPI_COEFFS[k];
    }
    /* p = P(s^2), dp = P'(s^2) (Horner on the k a_k) */
    double q = s * p;
    return q * (p + 2.0 * s2 * dp);
}

double tf_curve_table_slope(const tf_curve_table *table, double u)
{
    const double *x = table->x;
    if (!(u > x[0]) || !(u < x[table->count - 1]))
        return u == u ? 0.0 : u; /* clamped ends are flat; NaN stays NaN */
    const tf_curve_segment *s = &table->segments[tf_curve_table_segment_inline(table, u)];
    double t = (u - s->x0) * s->inv_width;
    if (table->interp == TF_INTERP_COSINE)
        return s->c1 * cosine_blend_slope(t) * s->inv_width;
    return (s->c1 + t * (2.0 * s->c2 + t * (3.0 * s->c3))) * s->inv_width;
}

/* Buckets of the O(1) search: at least two per segment, and as many as
 * the range holds of the closest knot gap (so a bucket has at most one knot
 * inside and the lookup is a step or none), up to 16 per segment and
 * 4096 in all (unless two per segment are more). The cap bounds a large
 * curve's table (16 bytes a bucket: 2 MB, not 16, for 65536 points); the
 * knots of its uneven parts then share buckets, which a lookup
 * binary-searches. */
#define BUCKETS_MIN_PER_SEGMENT 2
#define BUCKETS_MAX_PER_SEGMENT 16
#define BUCKETS_MAX_TOTAL 4096

static size_t curve_bucket_count(const tf_point *p, size_t count)
{
    double gap = INFINITY;
    for (size_t k = 0; k + 1 < count; k++)
        if (p[k + 1].x - p[k].x < gap)
            gap = p[k + 1].x - p[k].x;
    double want = ceil((p[count - 1].x - p[0].x) / gap) + 1.0;
    size_t lo = (count - 1) * BUCKETS_MIN_PER_SEGMENT, hi = (count - 1) * BUCKETS_MAX_PER_SEGMENT;
    size_t cap = lo > BUCKETS_MAX_TOTAL ? lo : BUCKETS_MAX_TOTAL;
    hi = hi < cap ? hi : cap;
    if (!(want > (double)lo)) /* NaN too */
        return lo;
    return want < (double)hi ? (size_t)want : hi;
}

size_t tf_curve_table_bytes(const tf_point *points, size_t count)
{
    size_t bytes = count * sizeof(double) + (count - 1) * sizeof(tf_curve_segment) +
                   curve_bucket_count(points, count) * sizeof(tf_curve_bucket);
    if (count - 1 <= TF_CURVE_LANE_SEGMENTS)
        bytes += TF_CURVE_LANE_ROWS * TF_CURVE_LANE_SEGMENTS * sizeof(double);
    return (bytes + sizeof(double) - 1) / sizeof(double) * sizeof(double);
}

/* Fritsch-Carlson (1980) tangents: start from the mean of adjacent secants
 * (zero at a local extremum or flat secant), then scale any pair (a, b) of
 * tangent/secant ratios with a^2 + b^2 > 9 back onto that circle, which
 * makes each cubic piece monotone. Order of operations as in docs/spec.md. */
static void monotone_tangents(const tf_point *p, size_t count, double *secant, double *tangent)
{
    for (size_t k = 0; k + 1 < count; k++)
        secant[k] = (p[k + 1].y - p[k].y) / (p[k + 1].x - p[k].x);
    tangent[0] = secant[0];
    tangent[count - 1] = secant[count - 2];
    for (size_t k = 1; k + 1 < count; k++) {
        double left = secant[k - 1], right = secant[k];
        if (left == 0.0 || right == 0.0 || (left < 0.0) != (right < 0.0))
            tangent[k] = 0.0;
        else
            tangent[k] = (left + right) * 0.5;
    }
    for (size_t k = 0; k + 1 < count; k++) {
        if (secant[k] == 0.0) {
            tangent[k] = 0.0;
            tangent[k + 1] = 0.0;
            continue;
        }
        double a = tangent[k] / secant[k], b = tangent[k + 1] / secant[k];
        double r2 = a * a + b * b;
        if (r2 > 9.0) {
            double tau = 3.0 / sqrt(r2);
            tangent[k] = tau * a * secant[k];
            tangent[k + 1] = tau * b * secant[k];
        }
    }
}

void tf_curve_table_build(tf_curve_table *table, void *storage, const tf_point *points,
                          size_t count, tf_interp interp, double *scratch)
{
    double *x = storage;
    tf_curve_segment *seg = (tf_curve_segment *)(x + count);
    for (size_t k = 0; k < count; k++)
        x[k] = points[k].x;
    for (size_t k = 0; k + 1 < count; k++) {
        double width = points[k + 1].x - points[k].x;
        seg[k].x0 = points[k].x;
        seg[k].unused[0] = seg[k].unused[1] = 0.0;
        seg[k].inv_width = 1.0 / width;
        seg[k].c0 = points[k].y;
        seg[k].c1 = points[k + 1].y - points[k].y;
        seg[k].c2 = 0.0;
        seg[k].c3 = 0.0;
    }
    if (interp == TF_INTERP_MONOTONE_CUBIC) {
        /* Each segment becomes y_k + t*(a + t*(3D - 2a - b + t*(a + b - 2D)))
         * with D = y_(k+1) - y_k, a = m_k*h, b = m_(k+1)*h. */
        double *secant = scratch, *tangent = scratch + count;
        monotone_tangents(points, count, secant, tangent);
        for (size_t k = 0; k + 1 < count; k++) {
            double h = points[k + 1].x - points[k].x;
            double d = seg[k].c1;
            double a = tangent[k] * h, b = tangent[k + 1] * h;
            seg[k].c1 = a;
            seg[k].c2 = 3.0 * d - 2.0 * a - b;
            seg[k].c3 = a + b - 2.0 * d;
        }
    }
    table->count = count;
    table->interp = interp;
    table->x = x;
    table->segments = seg;
    table->y_first = points[0].y;
    table->y_last = points[count - 1].y;
    /* The buckets (see tf_curve_table): each inner knot x_1 .. x_(K-2) is
     * put in its bucket by the lookup's own tf_curve_bucket_of. Knots
     * ascend and the buckets never decrease with them, so one pass counts
     * the inner knots before each bucket (its segment) and in it. */
    size_t buckets = curve_bucket_count(points, count);
    tf_curve_bucket *bucket = (tf_curve_bucket *)(seg + (count - 1));
    double scale = (double)buckets / (x[count - 1] - x[0]);
    table->bucket_count = (uint32_t)buckets;
    table->bucket_scale = isfinite(scale) ? scale : 0.0;
    table->bucket_top = (double)(buckets - 1);
    table->buckets = bucket;
    size_t inner = 1; /* the next inner knot not yet in a bucket before b */
    for (size_t b = 0; b < buckets; b++) {
        size_t before = inner - 1; /* inner knots in buckets 0 .. b - 1 */
        while (inner + 1 < count && tf_curve_bucket_of(table, x[inner]) == b)
            inner++;
        bucket[b].next = x[before + 1];
        bucket[b].first = (uint64_t)before | (inner - 1 - before > 1 ? TF_CURVE_BUCKET_CROWDED : 0);
    }
    table->lanes = NULL;
    if (count - 1 <= TF_CURVE_LANE_SEGMENTS) {
        double *lanes = (double *)(void *)(bucket + buckets);
        for (size_t k = 0; k < TF_CURVE_LANE_SEGMENTS; k++) {
            int in = k + 1 < count;
            double *at = lanes + k;
            at[TF_CURVE_LANE_KNOT * TF_CURVE_LANE_SEGMENTS] = k > 0 && in ? x[k] : NAN;
            at[TF_CURVE_LANE_X0 * TF_CURVE_LANE_SEGMENTS] = in ? seg[k].x0 : 0.0;
            at[TF_CURVE_LANE_INV_WIDTH * TF_CURVE_LANE_SEGMENTS] = in ? seg[k].inv_width : 0.0;
            at[TF_CURVE_LANE_C0 * TF_CURVE_LANE_SEGMENTS] = in ? seg[k].c0 : 0.0;
            at[TF_CURVE_LANE_C1 * TF_CURVE_LANE_SEGMENTS] = in ? seg[k].c1 : 0.0;
            at[TF_CURVE_LANE_C2 * TF_CURVE_LANE_SEGMENTS] = in ? seg[k].c2 : 0.0;
            at[TF_CURVE_LANE_C3 * TF_CURVE_LANE_SEGMENTS] = in ? seg[k].c3 : 0.0;
        }
        table->lanes = lanes;
    }
}

size_t tf_curve_table_segment(const tf_curve_table *table, double u)
{
    return tf_curve_table_segment_inline(table, u);
}

double tf_curve_table_eval(const tf_curve_table *table, double u)
{
    return tf_curve_table_eval_inline(table, u);
}

/* ---- the public curve object */

struct tf_curve {
    tf_curve_table table;
    double storage[]; /* knots then segments */
};

tf_curve *tf_curve_new(const tf_point *points, size_t count, tf_interp interp, tf_error *err)
{
    if (!points || count < 2) {
        tf_error_set(err, TF_ERR_ARGUMENT, "curve: needs at least 2 control points, has %zu",
                     points ? count : (size_t)0);
        return NULL;
    }
    if (count > TF_MAX_POINTS) {
        tf_error_set(err, TF_ERR_LIMIT, "curve: more than %d control points", TF_MAX_POINTS);
        return NULL;
    }
    if ((unsigned)interp >= TF_INTERP_KIND_COUNT) {
        tf_error_set(err, TF_ERR_ARGUMENT, "curve: unknown interpolation %d", (int)interp);
        return NULL;
    }
    for (size_t k = 0; k < count; k++) {
        if (!isfinite(points[k].x) || !isfinite(points[k].y)) {
            tf_error_set(err, TF_ERR_ARGUMENT, "curve: point %zu is not finite", k);
            return NULL;
        }
        if (k > 0 && !(points[k].x > points[k - 1].x)) {
            tf_error_set(err, TF_ERR_ARGUMENT,
                         "curve: point %zu: x must be greater than the previous point's x", k);
            return NULL;
        }
    }
    tf_curve *curve = malloc(sizeof *curve + tf_curve_table_bytes(points, count));
    double *scratch = malloc(2 * count * sizeof(double));
    if (!curve || !scratch) {
        free(curve);
        free(scratch);
        tf_error_set(err, TF_ERR_NOMEM, "curve: out of memory");
        return NULL;
    }
    tf_curve_table_build(&curve->table, curve->storage, points, count, interp, scratch);
    free(scratch);
    tf_error_clear(err);
    return curve;
}

double tf_curve_eval(const tf_curve *curve, double u)
{
    return tf_curve_table_eval(&curve->table, u);
}

void tf_curve_free(tf_curve *curve)
{
    free(curve);
}

int tf_curve_get_segment(const tf_curve *curve, size_t k, double *x0, double *inv_width, double c[4])
{
    if (!curve || k + 1 >= curve->table.count)
        return -1;
    const tf_curve_segment *s = &curve->table.segments[k];
    if (x0)
        *x0 = s->x0;
    if (inv_width)
        *inv_width = s->inv_width;
    if (c) {
        c[0] = s->c0;
        c[1] = s->c1;
        c[2] = curve->table.interp == TF_INTERP_COSINE ? 0.0 : s->c2;
        c[3] = curve->table.interp == TF_INTERP_COSINE ? 0.0 : s->c3;
    }
    return 0;
}

/* ---- curves as lanes (curve_lanes.h) */

void tf_curve_quad_set(tf_curve_quad *q, size_t lane, const tf_curve_table *table,
                       const void *base)
{
    const char *b = base;
    q->x_first[lane] = table->x[0];
    q->x_last[lane] = table->x[table->count - 1];
    q->y_first[lane] = table->y_first;
    q->y_last[lane] = table->y_last;
    q->scale[lane] = table->bucket_scale;
    q->top[lane] = table->bucket_top;
    q->buckets[lane] = (int64_t)((const char *)table->buckets - b);
    q->segments[lane] = (int64_t)((const char *)table->segments - b);
    int cosine = table->interp == TF_INTERP_COSINE;
    uint64_t bits = cosine ? ~(uint64_t)0 : 0;
    memcpy(&q->cosine[lane], &bits, sizeof bits);
    q->table[lane] = table;
    if (cosine)
        q->any_cosine = 1;
}

#if TF_HAVE_AVX2_PATH
__attribute__((target("avx2"))) void tf_curve_quads_eval_avx2(const tf_curve_quad *q,
                                                              size_t quads, const void *base,
                                                              const double *in, double *out)
{
    for (size_t g = 0; g < quads; g++)
        _mm256_storeu_pd(out + 4 * g, tf_curve_quad_eval(&q[g], base, _mm256_loadu_pd(in + 4 * g)));
}
#endif

/* ---- rows of lookups */

void tf_curve_table_eval_row(const tf_curve_table *table, const double *u, size_t n, double *out)
{
    for (size_t k = 0; k < n; k++)
        out[k] = tf_curve_table_eval(table, u[k]);
}

#if TF_HAVE_AVX2_PATH
#include <immintrin.h>

/* The segments (x0, inv_width, c0, c1 | c2, c3) at byte offsets at[0 ..
 * 3] from seg, for four lanes, as six vectors: the first four members are
 * a 32-byte load per lane and a 4x4 transpose, c2 and c3 a 16-byte load
 * per lane, lanes 0 and 2 (1 and 3) in one register, and an unpack. */
typedef struct {
    __m256d x0, inv_width, c0, c1, c2, c3;
} curve_lanes;

__attribute__((target("avx2"))) static inline void curve_load_lanes(const tf_curve_segment *seg,
                                                                    const int64_t *at,
                                                                    curve_lanes *v)
{
    const char *base = (const char *)seg;
    const tf_curve_segment *s0 = (const tf_curve_segment *)(const void *)(base + at[0]),
                           *s1 = (const tf_curve_segment *)(const void *)(base + at[1]),
                           *s2 = (const tf_curve_segment *)(const void *)(base + at[2]),
                           *s3 = (const tf_curve_segment *)(const void *)(base + at[3]);
    __m256d m[4];
    tf_transpose4(_mm256_loadu_pd(&s0->x0), _mm256_loadu_pd(&s1->x0), _mm256_loadu_pd(&s2->x0),
                  _mm256_loadu_pd(&s3->x0), m);
    v->x0 = m[0];
    v->inv_width = m[1];
    v->c0 = m[2];
    v->c1 = m[3];
    __m256d b02 = _mm256_insertf128_pd(_mm256_castpd128_pd256(_mm_loadu_pd(&s0->c2)),
                                       _mm_loadu_pd(&s2->c2), 1);
    __m256d b13 = _mm256_insertf128_pd(_mm256_castpd128_pd256(_mm_loadu_pd(&s1->c2)),
                                       _mm_loadu_pd(&s3->c2), 1);
    v->c2 = _mm256_unpacklo_pd(b02, b13);
    v->c3 = _mm256_unpackhi_pd(b02, b13);
}

/* Four lanes of tf_curve_table_eval at a time. Two passes over the row:
 * first every sample's segment, branch-free (tf_curve_table_segment_inline's
 * bucket and one step, four lanes at a time; a lane in a crowded bucket,
 * rare, takes the scalar search), then the interpolants four at a time.
 * The same segment and the same IEEE operations in the same order as the
 * scalar lookup, so the scalar bits in every lane. Splitting the passes
 * keeps the dependent loads of the search out of the vector loop, so many
 * samples' lookups are in flight at once. */
#define CURVE_ROW_BLOCK 64
/* log2 of sizeof(tf_curve_segment) */
#define CURVE_SEGMENT_SHIFT 6
_Static_assert(sizeof(tf_curve_segment) == (size_t)1 << CURVE_SEGMENT_SHIFT,
               "a segment is 64 bytes");

/* A curve of at most four segments (five points or fewer: a drawn or an
 * identity curve) needs no bucket: a sample's segment is the number of
 * inner knots x_1 .. x_(K-2) at or below u (the largest k with x_k <= u,
 * as the search finds; 0 for NaN, every comparison false), and each
 * member of its segment one permute from a register of the table's lanes
 * (tf_curve_table.lanes). One pass, no loads but the input; the same
 * segment and the same IEEE operations as the two passes below, so the
 * same bits. */
#define CURVE_REGISTER_SEGMENTS4 4

/* member row `v` at each lane's segment s (64-bit lanes, 0 .. 3): a
 * permute of 32-bit halves, s's pair at 2s and 2s + 1 */
__attribute__((target("avx2"))) static inline __m256d segment_member4(__m256d v, __m256i s)
{
    __m256i lo = _mm256_slli_epi64(s, 1);
    __m256i pair =
        _mm256_or_si256(lo, _mm256_slli_epi64(_mm256_add_epi64(lo, _mm256_set1_epi64x(1)), 32));
    return _mm256_castsi256_pd(_mm256_permutevar8x32_epi32(_mm256_castpd_si256(v), pair));
}

/* The segment of each lane's u on a curve of few knots: the inner knots
 * x_1 .. x_(K-2) it has passed (all compare false for NaN: segment 0),
 * as -1 per knot passed, subtracted. */
__attribute__((target("avx2"))) static inline __attribute__((always_inline)) __m256i
few_segment4(const tf_curve_table *table, __m256d v)
{
    __m256i s = _mm256_setzero_si256();
    for (size_t j = 1; j + 1 < table->count; j++)
        s = _mm256_sub_epi64(
            s, _mm256_castpd_si256(_mm256_cmp_pd(v, _mm256_set1_pd(table->x[j]), _CMP_GE_OQ)));
    return s;
}

__attribute__((target("avx2"))) static __attribute__((noinline)) void
curve_row_few_avx2(const tf_curve_table *table, const double *in, size_t n, double *out, int unit)
{
#define CURVE_ROW(r) _mm256_loadu_pd(table->lanes + (r) * TF_CURVE_LANE_SEGMENTS)
    const __m256d m_x0 = CURVE_ROW(TF_CURVE_LANE_X0);
    const __m256d m_inv_width = CURVE_ROW(TF_CURVE_LANE_INV_WIDTH);
    const __m256d m_c0 = CURVE_ROW(TF_CURVE_LANE_C0), m_c1 = CURVE_ROW(TF_CURVE_LANE_C1);
    const __m256d m_c2 = CURVE_ROW(TF_CURVE_LANE_C2), m_c3 = CURVE_ROW(TF_CURVE_LANE_C3);
#undef CURVE_ROW
    const __m256d x_first = _mm256_set1_pd(table->x[0]);
    const __m256d x_last = _mm256_set1_pd(table->x[table->count - 1]);
    const __m256d y_first = _mm256_set1_pd(table->y_first);
    const __m256d y_last = _mm256_set1_pd(table->y_last);
    const int cosine = table->interp == TF_INTERP_COSINE;
    const __m256d one = _mm256_set1_pd(1.0), half = _mm256_set1_pd(0.5);
    size_t k = 0;
    for (; k + 4 <= n; k += 4) {
        __m256d v = _mm256_loadu_pd(in + k);
        if (unit)
            v = _mm256_mul_pd(_mm256_add_pd(v, one), half);
        __m256i s = few_segment4(table, v);
        __m256d t = _mm256_mul_pd(_mm256_sub_pd(v, segment_member4(m_x0, s)),
                                  segment_member4(m_inv_width, s));
        __m256d y = tf_curve_segment_value4(cosine, t, segment_member4(m_c0, s),
                                            segment_member4(m_c1, s), segment_member4(m_c2, s),
                                            segment_member4(m_c3, s));
        _mm256_storeu_pd(out + k, tf_curve_ends4(v, y, x_first, x_last, y_first, y_last));
    }
    for (; k < n; k++)
        out[k] = tf_curve_table_eval(table, unit ? (in[k] + 1.0) * 0.5 : in[k]);
}

/* The row of lookups; with `unit`, in[] holds base noise values n and the
 * lookups are at u = (n + 1) * 0.5 (step 2 of docs/spec.md, in pass 1, so
 * a layer's chunk takes no separate pass for it): pass 1 stores each u in
 * out[], where pass 2 reads it back and writes the value over it. */
__attribute__((target("avx2"))) static inline __attribute__((always_inline)) void
curve_row_avx2(const tf_curve_table *table, const double *in, size_t n, double *out, int unit)
{
    const double *x = table->x;
    const tf_curve_segment *seg = table->segments;
    const __m256d x_first = _mm256_set1_pd(x[0]);
    const __m256d x_last = _mm256_set1_pd(x[table->count - 1]);
    const __m256d y_first = _mm256_set1_pd(table->y_first);
    const __m256d y_last = _mm256_set1_pd(table->y_last);
    const int cosine = table->interp == TF_INTERP_COSINE;
    const tf_curve_bucket *buckets = table->buckets;
    const __m256d vscale = _mm256_set1_pd(table->bucket_scale);
    const __m256d vtop = _mm256_set1_pd(table->bucket_top);
    const __m256d one = _mm256_set1_pd(1.0), half = _mm256_set1_pd(0.5);
    const double *u = unit ? out : in; /* the lookups' u, once pass 1 has run */
    /* each sample's segment as a byte offset into the segments, 64-bit:
     * the form pass 1 makes and pass 2 addresses with, no conversions */
    _Alignas(32) int64_t segment[CURVE_ROW_BLOCK];
    _Alignas(16) int32_t bucket[4];
    size_t k = 0;
    while (k + 4 <= n) {
        size_t block = n - k < CURVE_ROW_BLOCK ? (n - k) & ~(size_t)3 : CURVE_ROW_BLOCK;
        for (size_t m = 0; m < block; m += 4) {
            /* tf_curve_bucket_of (NaN: bucket 0, its segment is in range
             * and the result NaN) */
            __m256d v = _mm256_loadu_pd(in + k + m);
            if (unit) {
                v = _mm256_mul_pd(_mm256_add_pd(v, one), half);
                _mm256_storeu_pd(out + k + m, v);
            }
            __m256d f = _mm256_mul_pd(_mm256_sub_pd(v, x_first), vscale);
            f = _mm256_min_pd(_mm256_max_pd(f, _mm256_setzero_pd()), vtop);
            /* the four buckets, each one 16-byte load (next | first), read
             * through indices stored and reloaded (cheaper than gathers or
             * extractions here): lanes 0 and 2 in one register, 1 and 3 in
             * the other, and two unpacks make the next and first vectors */
            _mm_store_si128((__m128i *)(void *)bucket, _mm256_cvttpd_epi32(f));
            __asm__("" : "+m"(bucket));
#define CURVE_BUCKET(lane) _mm_loadu_pd(&buckets[bucket[lane]].next)
            __m256d b02 = _mm256_insertf128_pd(_mm256_castpd128_pd256(CURVE_BUCKET(0)),
                                               CURVE_BUCKET(2), 1);
            __m256d b13 = _mm256_insertf128_pd(_mm256_castpd128_pd256(CURVE_BUCKET(1)),
                                               CURVE_BUCKET(3), 1);
#undef CURVE_BUCKET
            __m256d knot = _mm256_unpacklo_pd(b02, b13);
            __m256d first = _mm256_unpackhi_pd(b02, b13);
            /* one step when u >= the knot, and u < x_last (a segment in
             * range; beyond x_last the value is y_last anyway): -1 per
             * stepping lane, subtracted */
            __m256d step = _mm256_and_pd(_mm256_cmp_pd(v, knot, _CMP_GE_OQ),
                                         _mm256_cmp_pd(v, x_last, _CMP_LT_OQ));
            __m256i k64 = _mm256_sub_epi64(_mm256_castpd_si256(first), _mm256_castpd_si256(step));
            _mm256_store_si256((__m256i *)(void *)(segment + m),
                               _mm256_slli_epi64(k64, CURVE_SEGMENT_SHIFT));
            int crowded = _mm256_movemask_pd(first);
            if (crowded)
                for (size_t l = 0; l < 4; l++)
                    if (crowded >> l & 1)
                        segment[m + l] = (int64_t)(tf_curve_table_segment(table, u[k + m + l])
                                                   << CURVE_SEGMENT_SHIFT);
        }
        for (size_t m = 0; m < block; m += 4, k += 4) {
            __m256d v = _mm256_loadu_pd(u + k);
            __m256d below = _mm256_cmp_pd(v, x_first, _CMP_LE_OQ);
            __m256d above = _mm256_cmp_pd(v, x_last, _CMP_GE_OQ);
            curve_lanes c;
            curve_load_lanes(seg, segment + m, &c);
            __m256d t = _mm256_mul_pd(_mm256_sub_pd(v, c.x0), c.inv_width);
            __m256d y = tf_curve_segment_value4(cosine, t, c.c0, c.c1, c.c2, c.c3);
            y = _mm256_blendv_pd(y, y_last, above);
            y = _mm256_blendv_pd(y, y_first, below);
            _mm256_storeu_pd(out + k, y);
        }
    }
    for (; k < n; k++)
        out[k] = tf_curve_table_eval(table, unit ? (in[k] + 1.0) * 0.5 : in[k]);
}

/* The entry points pick the row: in registers for a curve of few
 * segments, else the two passes (kept apart, so the two-pass loop's
 * registers are allocated as if the other did not exist). */
__attribute__((target("avx2"))) void tf_curve_table_eval_row_avx2(const tf_curve_table *table,
                                                                  const double *u, size_t n,
                                                                  double *out)
{
    if (table->count - 1 <= CURVE_REGISTER_SEGMENTS4)
        curve_row_few_avx2(table, u, n, out, 0);
    else
        curve_row_avx2(table, u, n, out, 0);
}

__attribute__((target("avx2"))) void tf_curve_table_eval_unit_row_avx2(const tf_curve_table *table,
                                                                       const double *noise,
                                                                       size_t n, double *out)
{
    if (table->count - 1 <= CURVE_REGISTER_SEGMENTS4)
        curve_row_few_avx2(table, noise, n, out, 1);
    else
        curve_row_avx2(table, noise, n, out, 1);
}

/* Curves on one set of knots (tf_terrain.mask_knots), four lanes: the
 * place row counts the inner knots each u has passed (curve_row_few_avx2's
 * search, for up to TF_CURVE_LANE_SEGMENTS segments) and makes t from
 * the segment's x0 and inv_width, read per lane; the placed row reads
 * each lane's c0 .. c3 (one 32-byte load, then a 4 x 4 transpose), and
 * the interpolant and the ends are curve_row_few_avx2's. The last n mod
 * 4 go as a vector padded with NaN (segment 0, never stored). */
#define CURVE_PLACE_LANES 4

__attribute__((target("avx2"))) static inline __attribute__((always_inline)) void
place4(const tf_curve_table *table, const double *u, int64_t *seg, double *t)
{
    const tf_curve_segment *sg = table->segments;
    __m256d v = _mm256_loadu_pd(u);
    _mm256_storeu_si256((__m256i *)(void *)seg, few_segment4(table, v));
    /* x0 and inv_width side by side in each segment: lanes 0, 2 and 1, 3 */
    __m256d p02 = _mm256_insertf128_pd(_mm256_castpd128_pd256(_mm_loadu_pd(&sg[seg[0]].x0)),
                                       _mm_loadu_pd(&sg[seg[2]].x0), 1);
    __m256d p13 = _mm256_insertf128_pd(_mm256_castpd128_pd256(_mm_loadu_pd(&sg[seg[1]].x0)),
                                       _mm_loadu_pd(&sg[seg[3]].x0), 1);
    __m256d x0 = _mm256_unpacklo_pd(p02, p13), inv_width = _mm256_unpackhi_pd(p02, p13);
    _mm256_storeu_pd(t, _mm256_mul_pd(_mm256_sub_pd(v, x0), inv_width));
}

__attribute__((target("avx2"))) void tf_curve_table_place_row_avx2(const tf_curve_table *table,
                                                                   const double *u, size_t n,
                                                                   int64_t *seg, double *t)
{
    size_t k = 0;
    for (; k + CURVE_PLACE_LANES <= n; k += CURVE_PLACE_LANES)
        place4(table, u + k, seg + k, t + k);
    if (k < n) {
        double in[CURVE_PLACE_LANES] = {NAN, NAN, NAN, NAN}, tl[CURVE_PLACE_LANES];
        int64_t at[CURVE_PLACE_LANES];
        memcpy(in, u + k, (n - k) * sizeof *in);
        place4(table, in, at, tl);
        memcpy(seg + k, at, (n - k) * sizeof *at);
        memcpy(t + k, tl, (n - k) * sizeof *tl);
    }
}

/* the curve's ends and interpolation, broadcast once a row */
typedef struct {
    __m256d x_first, x_last, y_first, y_last;
    int cosine;
} curve_ends_avx2;

__attribute__((target("avx2"))) static inline __attribute__((always_inline)) void
placed4(const tf_curve_table *curve, const curve_ends_avx2 *e, const double *u,
        const int64_t *seg, const double *t, double *out)
{
    const tf_curve_segment *sg = curve->segments;
    /* c0 .. c3 of each lane, one 32-byte load, transposed */
    __m256d c[4];
    tf_transpose4(_mm256_loadu_pd(&sg[seg[0]].c0), _mm256_loadu_pd(&sg[seg[1]].c0),
                  _mm256_loadu_pd(&sg[seg[2]].c0), _mm256_loadu_pd(&sg[seg[3]].c0), c);
    __m256d v = _mm256_loadu_pd(u);
    __m256d y = tf_curve_segment_value4(e->cosine, _mm256_loadu_pd(t), c[0], c[1], c[2], c[3]);
    _mm256_storeu_pd(out, tf_curve_ends4(v, y, e->x_first, e->x_last, e->y_first, e->y_last));
}

__attribute__((target("avx2"))) void tf_curve_table_placed_row_avx2(const tf_curve_table *curve,
                                                                    const double *u,
                                                                    const int64_t *seg,
                                                                    const double *t, size_t n,
                                                                    double *out)
{
    const curve_ends_avx2 e = {_mm256_set1_pd(curve->x[0]),
                               _mm256_set1_pd(curve->x[curve->count - 1]),
                               _mm256_set1_pd(curve->y_first), _mm256_set1_pd(curve->y_last),
                               curve->interp == TF_INTERP_COSINE};
    size_t k = 0;
    for (; k + CURVE_PLACE_LANES <= n; k += CURVE_PLACE_LANES)
        placed4(curve, &e, u + k, seg + k, t + k, out + k);
    if (k < n) {
        double in[CURVE_PLACE_LANES] = {NAN, NAN, NAN, NAN}, tl[CURVE_PLACE_LANES] = {0},
               y[CURVE_PLACE_LANES];
        int64_t at[CURVE_PLACE_LANES] = {0, 0, 0, 0};
        memcpy(in, u + k, (n - k) * sizeof *in);
        memcpy(tl, t + k, (n - k) * sizeof *tl);
        memcpy(at, seg + k, (n - k) * sizeof *at);
        placed4(curve, &e, in, at, tl, y);
        memcpy(out + k, y, (n - k) * sizeof *y);
    }
}
#endif

#if TF_HAVE_AVX512_PATH
/* The AVX-512 row: curve_row_avx2's two passes with eight lanes. Pass 1's
 * bucket records are still 16-byte loads through stored indices (eight
 * gathers of each member were slower), put side by side as lanes 0, 2, 4,
 * 6 and 1, 3, 5, 7 and unpacked. Pass 2 loads each lane's segment as one
 * 64-byte vector and transposes the eight (three rounds of shuffles; the
 * six members of the polynomial kept). The same IEEE operations in the
 * same order as the scalar lookup, so the same bits. */
#define CURVE_AVX512 __attribute__((target("avx512f,avx512dq")))

typedef struct {
    __m512d x0, inv_width, c0, c1, c2, c3;
} curve_lanes8;

CURVE_AVX512 static inline void curve_load_lanes8(const tf_curve_segment *seg, const int64_t *at,
                                                  curve_lanes8 *v)
{
    const char *base = (const char *)seg;
#define CURVE_SEG(l) _mm512_loadu_pd((const double *)(const void *)(base + at[l]))
    __m512d s0 = CURVE_SEG(0), s1 = CURVE_SEG(1), s2 = CURVE_SEG(2), s3 = CURVE_SEG(3);
    __m512d s4 = CURVE_SEG(4), s5 = CURVE_SEG(5), s6 = CURVE_SEG(6), s7 = CURVE_SEG(7);
#undef CURVE_SEG
    /* member m of lane l is a_lm; lo01 = a00 a10 | a02 a12 | a04 a14 | a06 a16 */
    __m512d lo01 = _mm512_unpacklo_pd(s0, s1), hi01 = _mm512_unpackhi_pd(s0, s1);
    __m512d lo23 = _mm512_unpacklo_pd(s2, s3), hi23 = _mm512_unpackhi_pd(s2, s3);
    __m512d lo45 = _mm512_unpacklo_pd(s4, s5), hi45 = _mm512_unpackhi_pd(s4, s5);
    __m512d lo67 = _mm512_unpacklo_pd(s6, s7), hi67 = _mm512_unpackhi_pd(s6, s7);
    /* 128-bit blocks 0 and 2 (0x88) or 1 and 3 (0xdd) of each: members 0
     * and 4 (2 and 6) of lanes 0-3 */
    __m512d u0 = _mm512_shuffle_f64x2(lo01, lo23, 0x88);
    __m512d u1 = _mm512_shuffle_f64x2(lo01, lo23, 0xdd);
    __m512d u2 = _mm512_shuffle_f64x2(lo45, lo67, 0x88);
    __m512d u3 = _mm512_shuffle_f64x2(lo45, lo67, 0xdd);
    __m512d w0 = _mm512_shuffle_f64x2(hi01, hi23, 0x88);
    __m512d w1 = _mm512_shuffle_f64x2(hi01, hi23, 0xdd);
    __m512d w2 = _mm512_shuffle_f64x2(hi45, hi67, 0x88);
    __m512d w3 = _mm512_shuffle_f64x2(hi45, hi67, 0xdd);
    v->x0 = _mm512_shuffle_f64x2(u0, u2, 0x88);
    v->c2 = _mm512_shuffle_f64x2(u0, u2, 0xdd);
    v->c0 = _mm512_shuffle_f64x2(u1, u3, 0x88);
    v->inv_width = _mm512_shuffle_f64x2(w0, w2, 0x88);
    v->c3 = _mm512_shuffle_f64x2(w0, w2, 0xdd);
    v->c1 = _mm512_shuffle_f64x2(w1, w3, 0x88);
}

/* The segment's interpolant at t (tf_curve_table_eval_inline's last
 * lines), eight lanes: the cosine blend by tf_cosine_blend's steps, or
 * the cubic by Horner. */
CURVE_AVX512 static inline __m512d segment_value8(int cosine, __m512d t, __m512d c0, __m512d c1,
                                                  __m512d c2, __m512d c3)
{
    if (cosine) {
        __m512d s = _mm512_mul_pd(t, _mm512_set1_pd(0.5));
        __m512d s2 = _mm512_mul_pd(s, s);
        __m512d p = _mm512_set1_pd(TF_SINPI_COEFFS[10]);
        for (int i = 9; i >= 0; i--)
            p = _mm512_add_pd(_mm512_mul_pd(p, s2), _mm512_set1_pd(TF_SINPI_COEFFS[i]));
        __m512d sine = _mm512_mul_pd(s, p);
        return _mm512_add_pd(c0, _mm512_mul_pd(c1, _mm512_mul_pd(sine, sine)));
    }
    __m512d inner = _mm512_add_pd(c2, _mm512_mul_pd(t, c3));
    inner = _mm512_add_pd(c1, _mm512_mul_pd(t, inner));
    return _mm512_add_pd(c0, _mm512_mul_pd(t, inner));
}

/* Row r of the table's lanes (tf_curve_table.lanes) in two registers. */
CURVE_AVX512 static inline void lane_row8(const tf_curve_table *table, int r, __m512d *lo,
                                          __m512d *hi)
{
    *lo = _mm512_loadu_pd(table->lanes + r * TF_CURVE_LANE_SEGMENTS);
    *hi = _mm512_loadu_pd(table->lanes + r * TF_CURVE_LANE_SEGMENTS + 8);
}

/* The binary search's first step: half the smallest power of two at or
 * above the table's segment count. */
static long long few_first_step(const tf_curve_table *table)
{
    long long span = 1;
    while ((size_t)span < table->count - 1)
        span *= 2;
    return span / 2;
}

/* Each lane's segment by the branch-free binary search over the knot row
 * (knot_lo, knot_hi): the largest k with x_k <= u (knots past the last
 * inner one are NaN, which no comparison passes; NaN passes none and
 * stays at 0), the scalar search's segment. */
CURVE_AVX512 static inline __m512i few_segment8(__m512d knot_lo, __m512d knot_hi,
                                                long long first_step, __m512d v)
{
    __m512i s = _mm512_setzero_si512();
    for (long long step = first_step; step > 0; step >>= 1) {
        __m512i next = _mm512_add_epi64(s, _mm512_set1_epi64(step));
        __mmask8 pass =
            _mm512_cmp_pd_mask(v, _mm512_permutex2var_pd(knot_lo, next, knot_hi), _CMP_GE_OQ);
        s = _mm512_mask_mov_epi64(s, pass, next);
    }
    return s;
}

/* tf_curve_ends4 with eight lanes */
CURVE_AVX512 static inline __m512d curve_ends8(__m512d v, __m512d y, __m512d x_first,
                                               __m512d x_last, __m512d y_first, __m512d y_last)
{
    y = _mm512_mask_blend_pd(_mm512_cmp_pd_mask(v, x_last, _CMP_GE_OQ), y, y_last);
    return _mm512_mask_blend_pd(_mm512_cmp_pd_mask(v, x_first, _CMP_LE_OQ), y, y_first);
}

/* curve_row_few_avx2 with eight lanes and up to sixteen segments (17
 * points: drawn curves, the fit's mask curves): each member row of the
 * table's lanes in two registers, one two-register permute a member. The
 * segment by a branch-free binary search over the knot row, a permute and
 * a comparison a step: the largest k with x_k <= u (the knots beyond the
 * last inner one are NaN, which no comparison passes; NaN passes none and
 * stays at 0), the segment of the scalar search. */
CURVE_AVX512 static __attribute__((noinline)) void
curve_row_few_avx512(const tf_curve_table *table, const double *in, size_t n, double *out,
                     int unit)
{
    __m512d knot_lo, knot_hi, x0_lo, x0_hi, iw_lo, iw_hi, c0_lo, c0_hi, c1_lo, c1_hi, c2_lo,
        c2_hi, c3_lo, c3_hi;
    lane_row8(table, TF_CURVE_LANE_KNOT, &knot_lo, &knot_hi);
    lane_row8(table, TF_CURVE_LANE_X0, &x0_lo, &x0_hi);
    lane_row8(table, TF_CURVE_LANE_INV_WIDTH, &iw_lo, &iw_hi);
    lane_row8(table, TF_CURVE_LANE_C0, &c0_lo, &c0_hi);
    lane_row8(table, TF_CURVE_LANE_C1, &c1_lo, &c1_hi);
    lane_row8(table, TF_CURVE_LANE_C2, &c2_lo, &c2_hi);
    lane_row8(table, TF_CURVE_LANE_C3, &c3_lo, &c3_hi);
#define CURVE_MEMBER(name, s) _mm512_permutex2var_pd(name##_lo, s, name##_hi)
    const long long first_step = few_first_step(table);
    const __m512d x_first = _mm512_set1_pd(table->x[0]);
    const __m512d x_last = _mm512_set1_pd(table->x[table->count - 1]);
    const __m512d y_first = _mm512_set1_pd(table->y_first);
    const __m512d y_last = _mm512_set1_pd(table->y_last);
    const int cosine = table->interp == TF_INTERP_COSINE;
    const __m512d one = _mm512_set1_pd(1.0), half = _mm512_set1_pd(0.5);
#define CURVE_FEW_VECTOR(load, store)                                                              \
    do {                                                                                           \
        __m512d v = load;                                                                          \
        if (unit)                                                                                  \
            v = _mm512_mul_pd(_mm512_add_pd(v, one), half);                                        \
        __m512i s = few_segment8(knot_lo, knot_hi, first_step, v);                                 \
        __m512d t = _mm512_mul_pd(_mm512_sub_pd(v, CURVE_MEMBER(x0, s)), CURVE_MEMBER(iw, s));     \
        __m512d y = segment_value8(cosine, t, CURVE_MEMBER(c0, s), CURVE_MEMBER(c1, s),            \
                                   CURVE_MEMBER(c2, s), CURVE_MEMBER(c3, s));                      \
        y = curve_ends8(v, y, x_first, x_last, y_first, y_last);                                   \
        store;                                                                                     \
    } while (0)
    /* the last n mod 8 as a vector too, its lanes past n loaded as 0 and
     * not stored (a masked load does not touch them); whole vectors
     * without masks */
    size_t k = 0;
    for (; k + 8 <= n; k += 8)
        CURVE_FEW_VECTOR(_mm512_loadu_pd(in + k), _mm512_storeu_pd(out + k, y));
    if (k < n) {
        __mmask8 lanes = (__mmask8)((1u << (n - k)) - 1);
        CURVE_FEW_VECTOR(_mm512_maskz_loadu_pd(lanes, in + k),
                         _mm512_mask_storeu_pd(out + k, lanes, y));
    }
#undef CURVE_FEW_VECTOR
#undef CURVE_MEMBER
}

/* Curves on one set of knots (tf_terrain.mask_knots) share a sample's
 * segment and t: curve_row_few_avx512 cut in two. The place row runs the
 * search and t once, on the knots' table; the placed row then takes only
 * each curve's four coefficients by permutes, its interpolant and its
 * ends. The segment, t and the operations on them are the few row's, so
 * the bits are. */
CURVE_AVX512 void tf_curve_table_place_row_avx512(const tf_curve_table *table, const double *u,
                                                  size_t n, int64_t *seg, double *t)
{
    __m512d knot_lo, knot_hi, x0_lo, x0_hi, iw_lo, iw_hi;
    lane_row8(table, TF_CURVE_LANE_KNOT, &knot_lo, &knot_hi);
    lane_row8(table, TF_CURVE_LANE_X0, &x0_lo, &x0_hi);
    lane_row8(table, TF_CURVE_LANE_INV_WIDTH, &iw_lo, &iw_hi);
    const long long first_step = few_first_step(table);
#define CURVE_PLACE_VECTOR(load, store_seg, store_t)                                               \
    do {                                                                                           \
        __m512d v = load(u + k);                                                                   \
        __m512i sv = few_segment8(knot_lo, knot_hi, first_step, v);                                \
        __m512d tv = _mm512_mul_pd(_mm512_sub_pd(v, _mm512_permutex2var_pd(x0_lo, sv, x0_hi)),     \
                                   _mm512_permutex2var_pd(iw_lo, sv, iw_hi));                      \
        store_seg;                                                                                 \
        store_t;                                                                                   \
    } while (0)
    /* whole vectors unmasked (a masked store does not forward to the
     * placed rows' loads), the last n mod 8 masked */
    size_t k = 0;
    for (; k + 8 <= n; k += 8)
        CURVE_PLACE_VECTOR(_mm512_loadu_pd, _mm512_storeu_si512((void *)(seg + k), sv),
                           _mm512_storeu_pd(t + k, tv));
    if (k < n) {
        __mmask8 m = (__mmask8)((1u << (n - k)) - 1);
#define LOAD_SOME(p) _mm512_maskz_loadu_pd(m, p)
        CURVE_PLACE_VECTOR(LOAD_SOME, _mm512_mask_storeu_epi64(seg + k, m, sv),
                           _mm512_mask_storeu_pd(t + k, m, tv));
#undef LOAD_SOME
    }
#undef CURVE_PLACE_VECTOR
}

CURVE_AVX512 void tf_curve_table_placed_row_avx512(const tf_curve_table *curve, const double *u,
                                                   const int64_t *seg, const double *t, size_t n,
                                                   double *out)
{
    __m512d m_c0_lo, m_c0_hi, m_c1_lo, m_c1_hi, m_c2_lo, m_c2_hi, m_c3_lo, m_c3_hi;
    lane_row8(curve, TF_CURVE_LANE_C0, &m_c0_lo, &m_c0_hi);
    lane_row8(curve, TF_CURVE_LANE_C1, &m_c1_lo, &m_c1_hi);
    lane_row8(curve, TF_CURVE_LANE_C2, &m_c2_lo, &m_c2_hi);
    lane_row8(curve, TF_CURVE_LANE_C3, &m_c3_lo, &m_c3_hi);
#define CURVE_MEMBER(name, s) _mm512_permutex2var_pd(name##_lo, s, name##_hi)
    const __m512d x_first = _mm512_set1_pd(curve->x[0]);
    const __m512d x_last = _mm512_set1_pd(curve->x[curve->count - 1]);
    const __m512d y_first = _mm512_set1_pd(curve->y_first);
    const __m512d y_last = _mm512_set1_pd(curve->y_last);
    const int cosine = curve->interp == TF_INTERP_COSINE;
#define CURVE_PLACED_VECTOR(load, load_seg, store)                                                 \
    do {                                                                                           \
        __m512d v = load(u + k);                                                                   \
        __m512i s = load_seg(seg + k);                                                             \
        __m512d y = segment_value8(cosine, load(t + k), CURVE_MEMBER(m_c0, s),                     \
                                   CURVE_MEMBER(m_c1, s), CURVE_MEMBER(m_c2, s),                   \
                                   CURVE_MEMBER(m_c3, s));                                         \
        y = curve_ends8(v, y, x_first, x_last, y_first, y_last);                                   \
        store;                                                                                     \
    } while (0)
#define LOAD_ALL(p) _mm512_loadu_pd(p)
#define LOAD_SEG_ALL(p) _mm512_loadu_si512((const void *)(p))
#define LOAD_SOME(p) _mm512_maskz_loadu_pd(lanes8, p)
#define LOAD_SEG_SOME(p) _mm512_maskz_loadu_epi64(lanes8, (const void *)(p))
    size_t k = 0;
    for (; k + 8 <= n; k += 8)
        CURVE_PLACED_VECTOR(LOAD_ALL, LOAD_SEG_ALL, _mm512_storeu_pd(out + k, y));
    if (k < n) {
        __mmask8 lanes8 = (__mmask8)((1u << (n - k)) - 1);
        CURVE_PLACED_VECTOR(LOAD_SOME, LOAD_SEG_SOME, _mm512_mask_storeu_pd(out + k, lanes8, y));
    }
#undef LOAD_ALL
#undef LOAD_SEG_ALL
#undef LOAD_SOME
#undef LOAD_SEG_SOME
#undef CURVE_PLACED_VECTOR
#undef CURVE_MEMBER
}

CURVE_AVX512 static inline __attribute__((always_inline)) void
curve_row_avx512(const tf_curve_table *table, const double *in, size_t n, double *out, int unit)
{
    const tf_curve_segment *seg = table->segments;
    const __m512d x_first = _mm512_set1_pd(table->x[0]);
    const __m512d x_last = _mm512_set1_pd(table->x[table->count - 1]);
    const __m512d y_first = _mm512_set1_pd(table->y_first);
    const __m512d y_last = _mm512_set1_pd(table->y_last);
    const int cosine = table->interp == TF_INTERP_COSINE;
    const tf_curve_bucket *buckets = table->buckets;
    const __m512d vscale = _mm512_set1_pd(table->bucket_scale);
    const __m512d vtop = _mm512_set1_pd(table->bucket_top);
    const __m512d one = _mm512_set1_pd(1.0), half = _mm512_set1_pd(0.5);
    const __m512i one64 = _mm512_set1_epi64(1);
    const double *u = unit ? out : in;
    _Alignas(64) int64_t segment[CURVE_ROW_BLOCK];
    _Alignas(32) int32_t bucket[8];
    /* Pass 1 of eight samples from m on: each one's segment into
     * segment[m ..], u into out[] with `unit`; pass 2: the values. LOAD
     * and STORE move eight doubles, masked for the last n mod 8 (lanes
     * past n loaded as 0, given segment 0, searched in no scalar fallback
     * and not stored). */
#define CURVE_PASS1(LOAD, STORE, lanes)                                                            \
    do {                                                                                           \
        __m512d v = LOAD(in + k + m);                                                              \
        if (unit) {                                                                                \
            v = _mm512_mul_pd(_mm512_add_pd(v, one), half);                                        \
            STORE(out + k + m, v);                                                                 \
        }                                                                                          \
        /* tf_curve_bucket_of, NaN to bucket 0 as on the AVX2 path */                             \
        __m512d f = _mm512_mul_pd(_mm512_sub_pd(v, x_first), vscale);                              \
        f = _mm512_min_pd(_mm512_max_pd(f, _mm512_setzero_pd()), vtop);                            \
        _mm256_store_si256((__m256i *)(void *)bucket, _mm512_cvttpd_epi32(f));                     \
        __asm__("" : "+m"(bucket));                                                                \
        __m512d even = CURVE_QUAD(0, 2, 4, 6), odd = CURVE_QUAD(1, 3, 5, 7);                       \
        __m512d knot = _mm512_unpacklo_pd(even, odd);                                              \
        __m512i first = _mm512_castpd_si512(_mm512_unpackhi_pd(even, odd));                        \
        /* one step when u >= the knot and u < x_last */                                          \
        __mmask8 step = _mm512_cmp_pd_mask(v, knot, _CMP_GE_OQ) &                                  \
                        _mm512_cmp_pd_mask(v, x_last, _CMP_LT_OQ);                                 \
        __m512i k64 = _mm512_maskz_mov_epi64(lanes, _mm512_mask_add_epi64(first, step, first,      \
                                                                          one64));                 \
        _mm512_store_si512((void *)(segment + m), _mm512_slli_epi64(k64, CURVE_SEGMENT_SHIFT));    \
        unsigned crowded = _mm512_movepi64_mask(first) & (lanes);                                  \
        if (crowded)                                                                               \
            for (size_t l = 0; l < 8; l++)                                                         \
                if (crowded >> l & 1)                                                              \
                    segment[m + l] = (int64_t)(tf_curve_table_segment(table, u[k + m + l])         \
                                               << CURVE_SEGMENT_SHIFT);                            \
    } while (0)
#define CURVE_PASS2(LOAD, STORE)                                                                   \
    do {                                                                                           \
        __m512d v = LOAD(u + k + m);                                                               \
        curve_lanes8 c;                                                                            \
        curve_load_lanes8(seg, segment + m, &c);                                                   \
        __m512d t = _mm512_mul_pd(_mm512_sub_pd(v, c.x0), c.inv_width);                            \
        __m512d y = segment_value8(cosine, t, c.c0, c.c1, c.c2, c.c3);                             \
        y = curve_ends8(v, y, x_first, x_last, y_first, y_last);                                   \
        STORE(out + k + m, y);                                                                     \
    } while (0)
#define CURVE_BUCKET(lane) _mm_loadu_pd(&buckets[bucket[lane]].next)
#define CURVE_PAIR(a, b)                                                                           \
    _mm256_insertf128_pd(_mm256_castpd128_pd256(CURVE_BUCKET(a)), CURVE_BUCKET(b), 1)
#define CURVE_QUAD(a, b, c, d)                                                                     \
    _mm512_insertf64x4(_mm512_castpd256_pd512(CURVE_PAIR(a, b)), CURVE_PAIR(c, d), 1)
#define LOAD_ALL(p) _mm512_loadu_pd(p)
#define STORE_ALL(p, v) _mm512_storeu_pd(p, v)
#define LOAD_SOME(p) _mm512_maskz_loadu_pd(lanes, p)
#define STORE_SOME(p, v) _mm512_mask_storeu_pd(p, lanes, v)
    size_t k = 0;
    while (k < n) {
        size_t block = n - k < CURVE_ROW_BLOCK ? n - k : CURVE_ROW_BLOCK;
        size_t whole = block & ~(size_t)7, m;
        __mmask8 lanes = (__mmask8)((1u << (block - whole)) - 1);
        for (m = 0; m < whole; m += 8)
            CURVE_PASS1(LOAD_ALL, STORE_ALL, 0xff);
        if (m < block)
            CURVE_PASS1(LOAD_SOME, STORE_SOME, lanes);
        for (m = 0; m < whole; m += 8)
            CURVE_PASS2(LOAD_ALL, STORE_ALL);
        if (m < block)
            CURVE_PASS2(LOAD_SOME, STORE_SOME);
        k += block;
    }
#undef LOAD_ALL
#undef STORE_ALL
#undef LOAD_SOME
#undef STORE_SOME
#undef CURVE_QUAD
#undef CURVE_PAIR
#undef CURVE_BUCKET
#undef CURVE_PASS2
#undef CURVE_PASS1
}

/* in registers where the table has its lanes, as on the AVX2 path */
CURVE_AVX512 void tf_curve_table_eval_row_avx512(const tf_curve_table *table, const double *u,
                                                 size_t n, double *out)
{
    if (table->lanes)
        curve_row_few_avx512(table, u, n, out, 0);
    else
        curve_row_avx512(table, u, n, out, 0);
}

CURVE_AVX512 void tf_curve_table_eval_unit_row_avx512(const tf_curve_table *table,
                                                      const double *noise, size_t n, double *out)
{
    if (table->lanes)
        curve_row_few_avx512(table, noise, n, out, 1);
    else
        curve_row_avx512(table, noise, n, out, 1);
}
#endif
