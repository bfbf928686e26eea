/*
 * "cellular": Worley's cellular texture basis (SIGGRAPH 1996; the survey,
 * seed 003), 2D: one hashed feature point per unit cell, Euclidean distance
 * to the nearest (F1) and second nearest (F2) point, found exactly.
 */
#include <math.h>
#include <stddef.h>
#include <stdint.h>

#include "noise.h"
#include "noise_kinds.h"

typedef struct {
    double d1, d2;   /* squared distances, d1 <= d2 */
    double r1[2];    /* feature point minus sample, nearest */
    double r2[2];    /* the same, second nearest */
} cell_search;

/* Distance from t in [0, 1) to the interval [c, c + 1] (c an integer). */
static inline double gap(int c, double t)
{
    return c > 0 ? c - t : c < 0 ? t - (c + 1) : 0;
}

static inline void visit(cell_search *s, uint32_t hs, uint32_t X, uint32_t Y, int di, int dj,
                         double fx, double fy)
{
    double bx = gap(di, fx), by = gap(dj, fy);
    if (bx * bx + by * by >= s->d2)
        return; /* no point of this cell can be among the two nearest */
    uint32_t h = nk_hash(nk_hash(hs, X + (uint32_t)di), Y + (uint32_t)dj);
    /* Feature point at ((h & 0xffff) + 0.5, (h >> 16) + 0.5) * 2^-16 in its cell. */
    double rx = ((double)di + ((double)(h & 0xffffu) + 0.5) * 0x1p-16) - fx;
    double ry = ((double)dj + ((double)(h >> 16) + 0.5) * 0x1p-16) - fy;
    double d = rx * rx + ry * ry;
    if (d < s->d1) {
        s->d2 = s->d1;
        s->r2[0] = s->r1[0];
        s->r2[1] = s->r1[1];
        s->d1 = d;
        s->r1[0] = rx;
        s->r1[1] = ry;
    } else if (d < s->d2) {
        s->d2 = d;
        s->r2[0] = rx;
        s->r2[1] = ry;
    }
}

/* Visits cells ring by ring (Chebyshev distance r from the sample's cell) and
 * stops once no cell of the next ring can hold a point closer than F2. The
 * result is exact; the order only decides which of two tied points is
 * "nearest", which changes no distance. Returns 0 for a bad coordinate. */
NK_INLINE int search(uint32_t seed, double x, double y, cell_search *s)
{
    if (!nk_coord_ok(x) || !nk_coord_ok(y))
        return 0;
    double fx, fy;
    uint32_t X = nk_split(x, &fx), Y = nk_split(y, &fy);
    uint32_t hs = nk_hash(0, seed);
    s->d1 = s->d2 = INFINITY;
    s->r1[0] = s->r1[1] = s->r2[0] = s->r2[1] = 0;
    for (int r = 0;; r++) {
        if (r == 0) {
            visit(s, hs, X, Y, 0, 0, fx, fy);
        } else {
            for (int k = -r; k <= r; k++) {
                visit(s, hs, X, Y, k, -r, fx, fy);
                visit(s, hs, X, Y, k, r, fx, fy);
            }
            for (int k = -r + 1; k <= r - 1; k++) {
                visit(s, hs, X, Y, -r, k, fx, fy);
                visit(s, hs, X, Y, r, k, fx, fy);
            }
        }
        /* Nearest any cell of ring r + 1 can be. */
        double lb = fmin(fmin(r + 1 - fx, fx + r), fmin(r + 1 - fy, fy + r));
        if (lb * lb >= s->d2)
            return 1;
    }
}

/* d|p - q|/dq = (q - p)/|p - q| = -r/|r|; 0 where |r| = 0 (undefined). */
static void unit_away(const double r[2], double len, double g[2])
{
    g[0] = len > 0 ? -r[0] / len : 0;
    g[1] = len > 0 ? -r[1] / len : 0;
}

enum { CELL_F1, CELL_F2, CELL_F2_F1 };

NK_INLINE double cellular(int which, uint32_t seed, double x, double y, double *dx, double *dy)
{
    cell_search s;
    if (!search(seed, x, y, &s))
        return nk_nan(dx, dy);
    double f1 = sqrt(s.d1), f2 = sqrt(s.d2), g1[2], g2[2];
    unit_away(s.r1, f1, g1);
    unit_away(s.r2, f2, g2);
    const double *g = which == CELL_F1 ? g1 : g2;
    if (dx)
        *dx = which == CELL_F2_F1 ? g2[0] - g1[0] : g[0];
    if (dy)
        *dy = which == CELL_F2_F1 ? g2[1] - g1[1] : g[1];
    return which == CELL_F1 ? f1 : which == CELL_F2 ? f2 : f2 - f1;
}

double tf_cellular_f1(uint32_t seed, double x, double y)
{
    return cellular(CELL_F1, seed, x, y, NULL, NULL);
}

double tf_cellular_f2(uint32_t seed, double x, double y)
{
    return cellular(CELL_F2, seed, x, y, NULL, NULL);
}

double tf_cellular_f2_f1(uint32_t seed, double x, double y)
{
    return cellular(CELL_F2_F1, seed, x, y, NULL, NULL);
}

double tf_cellular_f1_deriv(uint32_t seed, double x, double y, double *dx, double *dy)
{
    return cellular(CELL_F1, seed, x, y, dx, dy);
}

double tf_cellular_f2_deriv(uint32_t seed, double x, double y, double *dx, double *dy)
{
    return cellular(CELL_F2, seed, x, y, dx, dy);
}

double tf_cellular_f2_f1_deriv(uint32_t seed, double x, double y, double *dx, double *dy)
{
    return cellular(CELL_F2_F1, seed, x, y, dx, dy);
}

#if TF_HAVE_AVX2_PATH
/* The three with their gradients compiled for AVX2: the same operations
 * (the octaves of a fractal sampled one point at a time). search and
 * cellular are always inlined so that these builds have them. */
__attribute__((target("avx2"))) double tf_cellular_f1_deriv_avx2(uint32_t seed, double x, double y,
                                                                 double *dx, double *dy)
{
    return cellular(CELL_F1, seed, x, y, dx, dy);
}

__attribute__((target("avx2"))) double tf_cellular_f2_deriv_avx2(uint32_t seed, double x, double y,
                                                                 double *dx, double *dy)
{
    return cellular(CELL_F2, seed, x, y, dx, dy);
}

__attribute__((target("avx2"))) double
tf_cellular_f2_f1_deriv_avx2(uint32_t seed, double x, double y, double *dx, double *dy)
{
    return cellular(CELL_F2_F1, seed, x, y, dx, dy);
}

/* search() of four points of a row, |x| < 2^51, rings 0 and 1: the nine
 * cells in visit()'s order with its comparisons, so ties resolve as in
 * the scalar code. Each cell is visited whole: where visit() skips one,
 * its point is no nearer than the bound (rounding is monotonic, and the
 * feature point lies beyond the gap in each coordinate), so d < d2 fails
 * and the visit changes nothing. Into d1, d2 the squared distances;
 * returns the lanes for which the scalar search also stops after ring 1
 * (a 4-bit mask; the others need ring 2 and more). */
NK_AVX2_INLINE int cellular_search4_avx2(uint32_t hs, __m256d x, uint32_t Y, double fy,
                                         __m256d *d1, __m256d *d2)
{
    static const int order[9][2] = {{0, 0},  {-1, -1}, {-1, 1}, {0, -1}, {0, 1},
                                    {1, -1}, {1, 1},   {-1, 0}, {1, 0}};
    __m256d fx;
    __m128i X = nk_split_avx2(x, &fx);
    const __m128i vhs = _mm_set1_epi32((int)hs);
    const __m128i hx[3] = {nk_hash_avx2(vhs, _mm_sub_epi32(X, _mm_set1_epi32(1))),
                           nk_hash_avx2(vhs, X),
                           nk_hash_avx2(vhs, _mm_add_epi32(X, _mm_set1_epi32(1)))};
    const __m256d half = _mm256_set1_pd(0.5), unit = _mm256_set1_pd(0x1p-16);
    const __m256d vfy = _mm256_set1_pd(fy);
    __m256d near = _mm256_set1_pd(INFINITY), second = near;
    for (int c = 0; c < 9; c++) {
        int di = order[c][0], dj = order[c][1];
        __m128i h = nk_hash_avx2(hx[di + 1], _mm_set1_epi32((int)(Y + (uint32_t)dj)));
        __m256d jx = _mm256_cvtepi32_pd(_mm_and_si128(h, _mm_set1_epi32(0xffff)));
        __m256d jy = _mm256_cvtepi32_pd(_mm_srli_epi32(h, 16));
        __m256d rx = _mm256_sub_pd(
            _mm256_add_pd(_mm256_set1_pd((double)di), _mm256_mul_pd(_mm256_add_pd(jx, half), unit)),
            fx);
        __m256d ry = _mm256_sub_pd(
            _mm256_add_pd(_mm256_set1_pd((double)dj), _mm256_mul_pd(_mm256_add_pd(jy, half), unit)),
            vfy);
        __m256d d = _mm256_add_pd(_mm256_mul_pd(rx, rx), _mm256_mul_pd(ry, ry));
        /* d < d1: d2 = d1, d1 = d; else d < d2: d2 = d */
        __m256d nearer = _mm256_cmp_pd(d, near, _CMP_LT_OQ);
        __m256d second_nearer = _mm256_cmp_pd(d, second, _CMP_LT_OQ);
        second = _mm256_blendv_pd(_mm256_blendv_pd(second, d, second_nearer), near, nearer);
        near = _mm256_blendv_pd(near, d, nearer);
    }
    /* the scalar stop after ring 1: lb * lb >= d2, lb the nearest any cell
     * of ring 2 can be */
    const __m256d two = _mm256_set1_pd(2.0), one = _mm256_set1_pd(1.0);
    __m256d lb = _mm256_min_pd(_mm256_min_pd(_mm256_sub_pd(two, fx), _mm256_add_pd(fx, one)),
                               _mm256_set1_pd(fmin(2 - fy, fy + 1)));
    *d1 = near;
    *d2 = second;
    return _mm256_movemask_pd(_mm256_cmp_pd(_mm256_mul_pd(lb, lb), second, _CMP_GE_OQ));
}

/* The row of one cellular kind: search() of four points at a time, then
 * cellular()'s value; lanes whose search goes past ring 1, points out of
 * the vector range and the last 1-3 points take the scalar function. */
NK_AVX2_INLINE void cellular_row_avx2(int which, uint32_t seed, const double *x, double y,
                                      size_t n, double *out,
                                      double (*scalar)(uint32_t, double, double))
{
    size_t m = 0;
    if (nk_coord_ok(y)) {
        double fy;
        uint32_t Y = nk_split(y, &fy);
        uint32_t hs = nk_hash(0, seed);
        for (; m + 4 <= n; m += 4) {
            __m256d px = _mm256_loadu_pd(x + m);
            int done = 0;
            if (nk_in_row_range_avx2(px) == 0xF) {
                __m256d d1, d2;
                done = cellular_search4_avx2(hs, px, Y, fy, &d1, &d2);
                __m256d f1 = _mm256_sqrt_pd(d1), f2 = _mm256_sqrt_pd(d2);
                _mm256_storeu_pd(out + m, which == CELL_F1   ? f1
                                          : which == CELL_F2 ? f2
                                                             : _mm256_sub_pd(f2, f1));
            }
            for (int k = 0; k < 4; k++)
                if (!(done >> k & 1))
                    out[m + (size_t)k] = scalar(seed, x[m + (size_t)k], y);
        }
    }
    for (; m < n; m++)
        out[m] = scalar(seed, x[m], y);
}

TF_AVX2_ROW void tf_cellular_f1_row_avx2(uint32_t seed, const double *x, double y, size_t n,
                                         double *out)
{
    cellular_row_avx2(CELL_F1, seed, x, y, n, out, tf_cellular_f1);
}

TF_AVX2_ROW void tf_cellular_f2_row_avx2(uint32_t seed, const double *x, double y, size_t n,
                                         double *out)
{
    cellular_row_avx2(CELL_F2, seed, x, y, n, out, tf_cellular_f2);
}

TF_AVX2_ROW void tf_cellular_f2_f1_row_avx2(uint32_t seed, const double *x, double y, size_t n,
                                            double *out)
{
    cellular_row_avx2(CELL_F2_F1, seed, x, y, n, out, tf_cellular_f2_f1);
}
#endif

#if TF_HAVE_AVX512_PATH
/* cellular_search4_avx2 on eight lanes: the same cells in the same order,
 * the same comparisons as mask blends; returns an 8-bit mask. */
NK_AVX512_INLINE __mmask8 cellular_search8_avx512(uint32_t hs, __m512d x, uint32_t Y,
                                                  double fy, __m512d *d1, __m512d *d2)
{
    static const int order[9][2] = {{0, 0},  {-1, -1}, {-1, 1}, {0, -1}, {0, 1},
                                    {1, -1}, {1, 1},   {-1, 0}, {1, 0}};
    __m512d fx;
    __m256i X = nk_split_avx512(x, &fx);
    const __m256i vhs = _mm256_set1_epi32((int)hs);
    const __m256i hx[3] = {nk_hash_avx512(vhs, _mm256_sub_epi32(X, _mm256_set1_epi32(1))),
                           nk_hash_avx512(vhs, X),
                           nk_hash_avx512(vhs, _mm256_add_epi32(X, _mm256_set1_epi32(1)))};
    const __m512d half = _mm512_set1_pd(0.5), unit = _mm512_set1_pd(0x1p-16);
    const __m512d vfy = _mm512_set1_pd(fy);
    __m512d near = _mm512_set1_pd(INFINITY), second = near;
    for (int c = 0; c < 9; c++) {
        int di = order[c][0], dj = order[c][1];
        __m256i h = nk_hash_avx512(hx[di + 1], _mm256_set1_epi32((int)(Y + (uint32_t)dj)));
        __m512d jx = _mm512_cvtepi32_pd(_mm256_and_si256(h, _mm256_set1_epi32(0xffff)));
        __m512d jy = _mm512_cvtepi32_pd(_mm256_srli_epi32(h, 16));
        __m512d rx = _mm512_sub_pd(
            _mm512_add_pd(_mm512_set1_pd((double)di), _mm512_mul_pd(_mm512_add_pd(jx, half), unit)),
            fx);
        __m512d ry = _mm512_sub_pd(
            _mm512_add_pd(_mm512_set1_pd((double)dj), _mm512_mul_pd(_mm512_add_pd(jy, half), unit)),
            vfy);
        __m512d d = _mm512_add_pd(_mm512_mul_pd(rx, rx), _mm512_mul_pd(ry, ry));
        __mmask8 nearer = _mm512_cmp_pd_mask(d, near, _CMP_LT_OQ);
        __mmask8 second_nearer = _mm512_cmp_pd_mask(d, second, _CMP_LT_OQ);
        second = _mm512_mask_blend_pd(nearer, _mm512_mask_blend_pd(second_nearer, second, d), near);
        near = _mm512_mask_blend_pd(nearer, near, d);
    }
    const __m512d two = _mm512_set1_pd(2.0), one = _mm512_set1_pd(1.0);
    __m512d lb = _mm512_min_pd(_mm512_min_pd(_mm512_sub_pd(two, fx), _mm512_add_pd(fx, one)),
                               _mm512_set1_pd(fmin(2 - fy, fy + 1)));
    *d1 = near;
    *d2 = second;
    return _mm512_cmp_pd_mask(_mm512_mul_pd(lb, lb), second, _CMP_GE_OQ);
}

/* cellular_row_avx2, eight points at a time; the last 1-7 points take the
 * AVX2 row. */
NK_AVX512_INLINE void cellular_row_avx512(int which, uint32_t seed, const double *x, double y,
                                          size_t n, double *out,
                                          double (*scalar)(uint32_t, double, double),
                                          void (*tail)(uint32_t, const double *, double, size_t,
                                                       double *))
{
    size_t m = 0;
    if (nk_coord_ok(y)) {
        double fy;
        uint32_t Y = nk_split(y, &fy);
        uint32_t hs = nk_hash(0, seed);
        for (; m + 8 <= n; m += 8) {
            __m512d px = _mm512_loadu_pd(x + m);
            unsigned done = 0;
            if (nk_in_row_range_avx512(px) == 0xFF) {
                __m512d d1, d2;
                done = cellular_search8_avx512(hs, px, Y, fy, &d1, &d2);
                __m512d f1 = _mm512_sqrt_pd(d1), f2 = _mm512_sqrt_pd(d2);
                _mm512_storeu_pd(out + m, which == CELL_F1   ? f1
                                          : which == CELL_F2 ? f2
                                                             : _mm512_sub_pd(f2, f1));
            }
            for (int k = 0; k < 8; k++)
                if (!(done >> k & 1))
                    out[m + (size_t)k] = scalar(seed, x[m + (size_t)k], y);
        }
    }
    if (m < n)
        tail(seed, x + m, y, n - m, out + m);
}

__attribute__((target(NK_AVX512_TARGET))) void
tf_cellular_f1_row_avx512(uint32_t seed, const double *x, double y, size_t n, double *out)
{
    cellular_row_avx512(CELL_F1, seed, x, y, n, out, tf_cellular_f1, tf_cellular_f1_row_avx2);
}

__attribute__((target(NK_AVX512_TARGET))) void
tf_cellular_f2_row_avx512(uint32_t seed, const double *x, double y, size_t n, double *out)
{
    cellular_row_avx512(CELL_F2, seed, x, y, n, out, tf_cellular_f2, tf_cellular_f2_row_avx2);
}

__attribute__((target(NK_AVX512_TARGET))) void
tf_cellular_f2_f1_row_avx512(uint32_t seed, const double *x, double y, size_t n, double *out)
{
    cellular_row_avx512(CELL_F2_F1, seed, x, y, n, out, tf_cellular_f2_f1,
                        tf_cellular_f2_f1_row_avx2);
}
#endif

#if TF_HAVE_AVX512_PATH
/* search() of eight points (x[k], y[k]) of their own, |x|, |y| < 2^51,
 * lane k's seed hashed in vhs, rings 0 and 1, as cellular_search8_avx512,
 * keeping the offsets r1, r2 of the nearest and second nearest points as
 * visit() does (it changes them only where it changes d1 or d2). Returns
 * the lanes whose scalar search also stops after ring 1. */
NK_AVX512_INLINE __mmask8 cellular_points8_avx512(__m256i vhs, __m512d x, __m512d y,
                                                  __m512d *d1, __m512d *d2, __m512d r1[2],
                                                  __m512d r2[2])
{
    static const int order[9][2] = {{0, 0},  {-1, -1}, {-1, 1}, {0, -1}, {0, 1},
                                    {1, -1}, {1, 1},   {-1, 0}, {1, 0}};
    __m512d fx, fy;
    __m256i X = nk_split_avx512(x, &fx), Y = nk_split_avx512(y, &fy);
    const __m256i hx[3] = {nk_hash_avx512(vhs, _mm256_sub_epi32(X, _mm256_set1_epi32(1))),
                           nk_hash_avx512(vhs, X),
                           nk_hash_avx512(vhs, _mm256_add_epi32(X, _mm256_set1_epi32(1)))};
    const __m512d half = _mm512_set1_pd(0.5), unit = _mm512_set1_pd(0x1p-16);
    __m512d near = _mm512_set1_pd(INFINITY), second = near;
    __m512d n1x = _mm512_setzero_pd(), n1y = n1x, n2x = n1x, n2y = n1x;
    for (int c = 0; c < 9; c++) {
        int di = order[c][0], dj = order[c][1];
        __m256i h = nk_hash_avx512(hx[di + 1], _mm256_add_epi32(Y, _mm256_set1_epi32(dj)));
        __m512d jx = _mm512_cvtepi32_pd(_mm256_and_si256(h, _mm256_set1_epi32(0xffff)));
        __m512d jy = _mm512_cvtepi32_pd(_mm256_srli_epi32(h, 16));
        __m512d rx = _mm512_sub_pd(
            _mm512_add_pd(_mm512_set1_pd((double)di), _mm512_mul_pd(_mm512_add_pd(jx, half), unit)),
            fx);
        __m512d ry = _mm512_sub_pd(
            _mm512_add_pd(_mm512_set1_pd((double)dj), _mm512_mul_pd(_mm512_add_pd(jy, half), unit)),
            fy);
        __m512d d = _mm512_add_pd(_mm512_mul_pd(rx, rx), _mm512_mul_pd(ry, ry));
        __mmask8 nearer = _mm512_cmp_pd_mask(d, near, _CMP_LT_OQ);
        __mmask8 second_nearer = _mm512_cmp_pd_mask(d, second, _CMP_LT_OQ);
        /* d < d1: the nearest moves to second; else d < d2: d is second */
        second = _mm512_mask_blend_pd(nearer, _mm512_mask_blend_pd(second_nearer, second, d), near);
        n2x = _mm512_mask_blend_pd(nearer, _mm512_mask_blend_pd(second_nearer, n2x, rx), n1x);
        n2y = _mm512_mask_blend_pd(nearer, _mm512_mask_blend_pd(second_nearer, n2y, ry), n1y);
        near = _mm512_mask_blend_pd(nearer, near, d);
        n1x = _mm512_mask_blend_pd(nearer, n1x, rx);
        n1y = _mm512_mask_blend_pd(nearer, n1y, ry);
    }
    const __m512d two = _mm512_set1_pd(2.0), one = _mm512_set1_pd(1.0);
    __m512d lb = _mm512_min_pd(_mm512_min_pd(_mm512_sub_pd(two, fx), _mm512_add_pd(fx, one)),
                               _mm512_min_pd(_mm512_sub_pd(two, fy), _mm512_add_pd(fy, one)));
    *d1 = near;
    *d2 = second;
    r1[0] = n1x;
    r1[1] = n1y;
    r2[0] = n2x;
    r2[1] = n2y;
    return _mm512_cmp_pd_mask(_mm512_mul_pd(lb, lb), second, _CMP_GE_OQ);
}

/* unit_away of eight lanes: -r / len, +0 where len is not above 0. */
NK_AVX512_INLINE __m512d cellular_away_avx512(__m512d r, __m512d len)
{
    __m512d neg = _mm512_xor_pd(r, _mm512_set1_pd(-0.0));
    return _mm512_maskz_div_pd(_mm512_cmp_pd_mask(len, _mm512_setzero_pd(), _CMP_GT_OQ), neg,
                               len);
}

/* cellular() of one kind at eight points (x, y) of their own, |x|, |y| <
 * 2^51, lane k's seed hashed in hs, with the gradient when gx is not NULL
 * (then gy too). Returns the lanes done: the others' search goes past
 * ring 1, and the caller takes the scalar function there. */
NK_AVX512_INLINE __mmask8 cellular8_points_avx512(int which, __m256i hs, __m512d x, __m512d y,
                                                  __m512d *out, __m512d *gx, __m512d *gy)
{
    __m512d d1, d2, r1[2], r2[2];
    __mmask8 done = cellular_points8_avx512(hs, x, y, &d1, &d2, r1, r2);
    __m512d f1 = _mm512_sqrt_pd(d1), f2 = _mm512_sqrt_pd(d2);
    *out = which == CELL_F1 ? f1 : which == CELL_F2 ? f2 : _mm512_sub_pd(f2, f1);
    if (gx) {
        __m512d g1x = cellular_away_avx512(r1[0], f1), g1y = cellular_away_avx512(r1[1], f1);
        __m512d g2x = cellular_away_avx512(r2[0], f2), g2y = cellular_away_avx512(r2[1], f2);
        *gx = which == CELL_F1 ? g1x : which == CELL_F2 ? g2x : _mm512_sub_pd(g2x, g1x);
        *gy = which == CELL_F1 ? g1y : which == CELL_F2 ? g2y : _mm512_sub_pd(g2y, g1y);
    }
    return done;
}

/* cellular() of one kind at n points (x[k], y[k]) of their own, eight a
 * vector, with the gradient when dx is not NULL (then dy too); lanes whose
 * search goes past ring 1, groups with a coordinate out of the vector
 * range and the last 1-7 points take the scalar function. */
NK_AVX512_INLINE void cellular_points_avx512(int which, uint32_t seed, const double *x,
                                             const double *y, size_t n, double *out, double *dx,
                                             double *dy)
{
    const __m256i hs = _mm256_set1_epi32((int)nk_hash(0, seed));
    size_t m = 0;
    for (; m + 8 <= n; m += 8) {
        __m512d px = _mm512_loadu_pd(x + m), py = _mm512_loadu_pd(y + m);
        unsigned done = 0;
        if ((nk_in_row_range_avx512(px) & nk_in_row_range_avx512(py)) == 0xFF) {
            __m512d v, gx, gy;
            if (dx) {
                done = cellular8_points_avx512(which, hs, px, py, &v, &gx, &gy);
                _mm512_storeu_pd(dx + m, gx);
                _mm512_storeu_pd(dy + m, gy);
            } else {
                done = cellular8_points_avx512(which, hs, px, py, &v, NULL, NULL);
            }
            _mm512_storeu_pd(out + m, v);
        }
        for (int k = 0; k < 8; k++) {
            size_t i = m + (size_t)k;
            if (!(done >> k & 1))
                out[i] = cellular(which, seed, x[i], y[i], dx ? dx + i : NULL, dx ? dy + i : NULL);
        }
    }
    for (; m < n; m++)
        out[m] = cellular(which, seed, x[m], y[m], dx ? dx + m : NULL, dx ? dy + m : NULL);
}

__attribute__((target(NK_AVX512_TARGET))) void
tf_cellular_points_deriv_avx512(int which, uint32_t seed, const double *x, const double *y,
                                size_t n, double *out, double *dx, double *dy)
{
    if (which == 0)
        cellular_points_avx512(CELL_F1, seed, x, y, n, out, dx, dy);
    else if (which == 1)
        cellular_points_avx512(CELL_F2, seed, x, y, n, out, dx, dy);
    else
        cellular_points_avx512(CELL_F2_F1, seed, x, y, n, out, dx, dy);
}

/* cellular() of one kind (which: 0 F1, 1 F2, 2 F2 - F1), the value only,
 * at eight points each with its own seed, |x|, |y| < 2^51. */
NK_AVX512_INLINE void cellular_seeds8_avx512(int which, const uint32_t *seed, const double *x,
                                             const double *y, double *out)
{
    __m256i hs = nk_seeds_avx512(_mm256_loadu_si256((const __m256i *)(const void *)seed));
    __m512d v;
    unsigned done =
        cellular8_points_avx512(which, hs, _mm512_loadu_pd(x), _mm512_loadu_pd(y), &v, NULL, NULL);
    _mm512_storeu_pd(out, v);
    for (int k = 0; k < 8; k++)
        if (!(done >> k & 1))
            out[k] = cellular(which, seed[k], x[k], y[k], NULL, NULL);
}

__attribute__((target(NK_AVX512_TARGET))) void
tf_cellular_seeds8_avx512(int which, const uint32_t *seed, const double *x, const double *y,
                          double *out)
{
    if (which == 0)
        cellular_seeds8_avx512(CELL_F1, seed, x, y, out);
    else if (which == 1)
        cellular_seeds8_avx512(CELL_F2, seed, x, y, out);
    else
        cellular_seeds8_avx512(CELL_F2_F1, seed, x, y, out);
}
#endif
