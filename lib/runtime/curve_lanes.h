/*
 * Four different curves looked up at once, one per AVX2 lane: a single
 * sample's redistribution curves (one per layer) and mask curves
 * (docs/performance.md, "How the fast paths work"). Private to
 * lib/runtime and its tests; included where the lookups are inlined.
 */
#ifndef TF_RUNTIME_CURVE_LANES_H
#define TF_RUNTIME_CURVE_LANES_H

#include "internal.h"

#if TF_HAVE_AVX2_PATH
#include <immintrin.h>

#define TF_CURVE_LANES_INLINE static inline __attribute__((target("avx2"), always_inline))

/* The 4 x 4 transpose: rows a0 .. a3 (four members of one lane each) to
 * m[0] .. m[3] (one member of the four lanes each). The segment loads of
 * the curve rows and the lanes below read four members a lane this way. */
TF_CURVE_LANES_INLINE void tf_transpose4(__m256d a0, __m256d a1, __m256d a2, __m256d a3,
                                         __m256d m[4])
{
    __m256d lo01 = _mm256_unpacklo_pd(a0, a1), hi01 = _mm256_unpackhi_pd(a0, a1);
    __m256d lo23 = _mm256_unpacklo_pd(a2, a3), hi23 = _mm256_unpackhi_pd(a2, a3);
    m[0] = _mm256_permute2f128_pd(lo01, lo23, 0x20);
    m[1] = _mm256_permute2f128_pd(hi01, hi23, 0x20);
    m[2] = _mm256_permute2f128_pd(lo01, lo23, 0x31);
    m[3] = _mm256_permute2f128_pd(hi01, hi23, 0x31);
}

/* The ends, tf_curve_table_eval_inline's first tests, four lanes: y_last
 * at or above x_last, then y_first at or below x_0 (NaN passes neither). */
TF_CURVE_LANES_INLINE __m256d tf_curve_ends4(__m256d v, __m256d y, __m256d x_first,
                                             __m256d x_last, __m256d y_first, __m256d y_last)
{
    y = _mm256_blendv_pd(y, y_last, _mm256_cmp_pd(v, x_last, _CMP_GE_OQ));
    return _mm256_blendv_pd(y, y_first, _mm256_cmp_pd(v, x_first, _CMP_LE_OQ));
}

/* A segment's interpolant at t, four lanes (tf_curve_table_eval_inline's
 * last lines): with `cosine`, c0 + c1 * tf_cosine_blend(t) by its steps,
 * else the cubic by Horner. Shared by the curve rows (curve.c) and the
 * lanes of different curves below. */
TF_CURVE_LANES_INLINE __m256d tf_curve_segment_value4(int cosine, __m256d t, __m256d c0,
                                                      __m256d c1, __m256d c2, __m256d c3)
{
    if (cosine) {
        __m256d s = _mm256_mul_pd(t, _mm256_set1_pd(0.5));
        __m256d s2 = _mm256_mul_pd(s, s);
        __m256d p = _mm256_set1_pd(TF_SINPI_COEFFS[10]);
        for (int i = 9; i >= 0; i--)
            p = _mm256_add_pd(_mm256_mul_pd(p, s2), _mm256_set1_pd(TF_SINPI_COEFFS[i]));
        __m256d sine = _mm256_mul_pd(s, p);
        return _mm256_add_pd(c0, _mm256_mul_pd(c1, _mm256_mul_pd(sine, sine)));
    }
    __m256d inner = _mm256_add_pd(c2, _mm256_mul_pd(t, c3));
    inner = _mm256_add_pd(c1, _mm256_mul_pd(t, inner));
    return _mm256_add_pd(c0, _mm256_mul_pd(t, inner));
}

/* The four lanes' curves of `q` at v (step 2's clamping, bucket search
 * and interpolant, docs/spec.md, "Redistribution curves"), the bits of
 * tf_curve_table_eval_inline in every lane: the bucket is the same IEEE
 * operations (max with 0 picks 0 for NaN, as the scalar's f > 0 does),
 * the step the same comparison, so the segment is the scalar's; the
 * interpolant is the same Horner steps, and the clamped ends are selects
 * in the scalar's order (below wins). `base` is the terrain's table block,
 * which the quad's offsets point into. No branch depends on v except the
 * rare crowded bucket, whose lanes take the scalar search. */
TF_CURVE_LANES_INLINE __m256d tf_curve_quad_eval(const tf_curve_quad *q, const void *base,
                                                __m256d v)
{
    const char *b = base;
    const __m256d x_first = _mm256_loadu_pd(q->x_first), x_last = _mm256_loadu_pd(q->x_last);
    __m256d f = _mm256_mul_pd(_mm256_sub_pd(v, x_first), _mm256_loadu_pd(q->scale));
    f = _mm256_min_pd(_mm256_max_pd(f, _mm256_setzero_pd()), _mm256_loadu_pd(q->top));
    /* each lane's bucket record (knot | first) one 16-byte load through
     * indices stored and reloaded, lanes 0 and 2 in one register, 1 and 3
     * in the other (gathers took 1.4x the time of the whole sample here) */
    _Alignas(16) int32_t index[4];
    _mm_store_si128((__m128i *)(void *)index, _mm256_cvttpd_epi32(f));
#define TF_CURVE_LANES_BUCKET(l)                                                                   \
    _mm_loadu_pd((const double *)(const void *)(b + q->buckets[l] +                                \
                                                 (int64_t)index[l] * (int64_t)sizeof(tf_curve_bucket)))
    __m256d b02 = _mm256_insertf128_pd(_mm256_castpd128_pd256(TF_CURVE_LANES_BUCKET(0)),
                                       TF_CURVE_LANES_BUCKET(2), 1);
    __m256d b13 = _mm256_insertf128_pd(_mm256_castpd128_pd256(TF_CURVE_LANES_BUCKET(1)),
                                       TF_CURVE_LANES_BUCKET(3), 1);
#undef TF_CURVE_LANES_BUCKET
    __m256d next = _mm256_unpacklo_pd(b02, b13);
    __m256i first = _mm256_castpd_si256(_mm256_unpackhi_pd(b02, b13));
    /* one step when v >= the bucket's knot and v < x_last (beyond x_last
     * the value is y_last anyway, and the segment stays in the table):
     * -1 per stepping lane, subtracted */
    __m256d step = _mm256_and_pd(_mm256_cmp_pd(v, next, _CMP_GE_OQ),
                                 _mm256_cmp_pd(v, x_last, _CMP_LT_OQ));
    __m256i k = _mm256_sub_epi64(first, _mm256_castpd_si256(step));
    _Alignas(32) int64_t at[4];
    _mm256_store_si256((__m256i *)(void *)at,
                       _mm256_add_epi64(_mm256_loadu_si256((const __m256i *)(const void *)q->segments),
                                        _mm256_slli_epi64(k, 6)));
    int crowded = _mm256_movemask_pd(_mm256_castsi256_pd(first));
    if (__builtin_expect(crowded != 0, 0)) {
        _Alignas(32) double u[4];
        _mm256_store_pd(u, v);
        for (int l = 0; l < 4; l++)
            if (crowded >> l & 1)
                at[l] = q->segments[l] + (int64_t)(tf_curve_table_segment_inline(q->table[l], u[l]) *
                                                   sizeof(tf_curve_segment));
    }
    /* the segments: the first four members a 32-byte load per lane and a
     * 4x4 transpose, c2 and c3 a 16-byte load per lane and an unpack */
    const tf_curve_segment *s0 = (const tf_curve_segment *)(const void *)(b + at[0]),
                           *s1 = (const tf_curve_segment *)(const void *)(b + at[1]),
                           *s2 = (const tf_curve_segment *)(const void *)(b + at[2]),
                           *s3 = (const tf_curve_segment *)(const void *)(b + at[3]);
    __m256d m[4];
    tf_transpose4(_mm256_loadu_pd(&s0->x0), _mm256_loadu_pd(&s1->x0), _mm256_loadu_pd(&s2->x0),
                  _mm256_loadu_pd(&s3->x0), m);
    __m256d x0 = m[0], inv_width = m[1], c0 = m[2], c1 = m[3];
    __m256d e02 = _mm256_insertf128_pd(_mm256_castpd128_pd256(_mm_loadu_pd(&s0->c2)),
                                       _mm_loadu_pd(&s2->c2), 1);
    __m256d e13 = _mm256_insertf128_pd(_mm256_castpd128_pd256(_mm_loadu_pd(&s1->c2)),
                                       _mm_loadu_pd(&s3->c2), 1);
    __m256d c2 = _mm256_unpacklo_pd(e02, e13), c3 = _mm256_unpackhi_pd(e02, e13);
    __m256d t = _mm256_mul_pd(_mm256_sub_pd(v, x0), inv_width);
    __m256d y = tf_curve_segment_value4(0, t, c0, c1, c2, c3);
    if (q->any_cosine) {
        /* the cosine interpolant in the lanes whose curve is cosine */
        __m256d yc = tf_curve_segment_value4(1, t, c0, c1, c2, c3);
        y = _mm256_blendv_pd(y, yc, _mm256_loadu_pd(q->cosine));
    }
    return tf_curve_ends4(v, y, x_first, x_last, _mm256_loadu_pd(q->y_first),
                          _mm256_loadu_pd(q->y_last));
}
/* A scalar lookup on the AVX2 path. A curve of at most
 * TF_CURVE_LANE_SEGMENTS segments (table->lanes set) finds the segment
 * of a u strictly inside its knots by comparing u
 * with every inner knot at once: knot k (1 .. K - 2) sits in lane k of
 * the knot row, NaN elsewhere, so the lanes with u >= knot are lanes 1 ..
 * k of u's segment k (none when u < x_1), and the segment is the count of
 * those lanes. The lookup then waits for four comparisons, not for a
 * bucket's record. Any other curve, and the ends and NaN, take the bucket
 * lookup; the segment and its arithmetic are the same, so the bits are. */
TF_CURVE_LANES_INLINE size_t tf_curve_lanes_segment_avx2(const tf_curve_table *table, double u)
{
    const double *knot = table->lanes + TF_CURVE_LANE_KNOT * TF_CURVE_LANE_SEGMENTS;
    const __m256d vu = _mm256_set1_pd(u);
    unsigned passed =
        (unsigned)_mm256_movemask_pd(_mm256_cmp_pd(vu, _mm256_loadu_pd(knot), _CMP_GE_OQ)) |
        (unsigned)_mm256_movemask_pd(_mm256_cmp_pd(vu, _mm256_loadu_pd(knot + 4), _CMP_GE_OQ)) << 4 |
        (unsigned)_mm256_movemask_pd(_mm256_cmp_pd(vu, _mm256_loadu_pd(knot + 8), _CMP_GE_OQ)) << 8 |
        (unsigned)_mm256_movemask_pd(_mm256_cmp_pd(vu, _mm256_loadu_pd(knot + 12), _CMP_GE_OQ))
            << 12;
    /* lanes 1 .. k passed (knots rise): k is the count of ones above bit 0 */
    return (size_t)__builtin_ctz(~(passed >> 1));
}

/* tf_curve_table_eval_inline's value by that search where it applies */
TF_CURVE_LANES_INLINE double tf_curve_table_eval_avx2(const tf_curve_table *table, double u)
{
    if (!(table->lanes && u > table->x[0] && u < table->x[table->count - 1]))
        return tf_curve_table_eval_inline(table, u);
    return tf_curve_segment_at(table, tf_curve_lanes_segment_avx2(table, u), u);
}

/* Where u falls on a table's knots, for every curve on the same knots
 * (tf_terrain.mask_knots): at or below x_0 (where < 0), at or above
 * x_last (where > 0), else segment k at t = (u - x_k) * inv_width_k, or
 * its cosine blend for cosine curves. tf_curve_placed_value then gives
 * tf_curve_table_eval_inline's value of any curve on those knots: the
 * same tests, segment and operations in the same order. */
typedef struct {
    int where;
    size_t k;
    double t;
} tf_curve_place;

TF_CURVE_LANES_INLINE tf_curve_place tf_curve_place_avx2(const tf_curve_table *table, double u)
{
    tf_curve_place p = {0, 0, 0.0};
    if (u <= table->x[0]) {
        p.where = -1;
        return p;
    }
    if (u >= table->x[table->count - 1]) {
        p.where = 1;
        return p;
    }
    /* x_0 < u < x_last, or NaN (the bucket lookup's segment) */
    p.k = table->lanes && u > table->x[0] ? tf_curve_lanes_segment_avx2(table, u)
                                          : tf_curve_table_segment_below_last(table, u);
    const tf_curve_segment *s = &table->segments[p.k];
    p.t = (u - s->x0) * s->inv_width;
    if (table->interp == TF_INTERP_COSINE)
        p.t = tf_cosine_blend(p.t);
    return p;
}

TF_ALWAYS_INLINE double tf_curve_placed_value(const tf_curve_table *curve, tf_curve_place p)
{
    if (p.where < 0)
        return curve->y_first;
    if (p.where > 0)
        return curve->y_last;
    const tf_curve_segment *s = &curve->segments[p.k];
    if (curve->interp == TF_INTERP_COSINE)
        return s->c0 + s->c1 * p.t;
    return s->c0 + p.t * (s->c1 + p.t * (s->c2 + p.t * s->c3));
}
#endif

#endif
