/*
 * swiss and jordan turbulence of simplex noise over a row of samples, or
 * over points of their own, on the AVX-512 path. Each octave's points
 * depend on the octaves before (the warp follows their gradients), so a
 * row cannot take an octave at a time without keeping every sample's
 * running values in memory between the noise and the steps. Here blocks
 * of sixteen samples run all their octaves in registers instead: the
 * octave's points, simplex with its gradient (simplex_lanes.h), the
 * steps, the next octave's points. A block's octaves are one chain of
 * dependent steps, so two blocks run side by side, as straight-line code
 * with a hash per point (no lattice windows, whose branches would cut
 * the two chains apart). Every lane does fractal.c's scalar operations in
 * their order, so the bits are those of tf_fractal_plan_eval at each
 * sample.
 */
#include <math.h>

#include "fractal.h"
#include "internal.h"
#include "simplex_lanes.h"

#if TF_HAVE_AVX512_PATH

#define TURBULENCE_INLINE                                                                          \
    static inline __attribute__((target(SIMPLEX_AVX512_TARGET), always_inline))

TURBULENCE_INLINE __m512d splat(double v)
{
    return _mm512_set1_pd(v);
}

/* 2 * (s / A) - 1, both kinds' normalization */
TURBULENCE_INLINE __m512d turbulence_normalize8(const tf_fractal_plan *P, __m512d s)
{
    return _mm512_sub_pd(_mm512_mul_pd(splat(2.0), _mm512_div_pd(s, splat(P->amp_sum))),
                         splat(1.0));
}

/* ---- swiss: s = s + a (1 - |v|), w = w + (a g) (-v), a = a (G sat(s)) */

typedef struct {
    __m512d s, a, wx, wy;
} swiss8;

/* octave i's points: ((nx + warp wx) f + o_x, (ny + warp wy) f + o_y),
 * ny every lane's *y, or row_y in every lane when y is NULL (a row's
 * calls pass a constant NULL, so their y stays one splatted constant) */
TURBULENCE_INLINE void swiss_points8(const tf_fractal_plan *P, int i, const swiss8 *t, __m512d x,
                                     double row_y, const __m512d *y, __m512d *px, __m512d *py)
{
    const __m512d warp = splat(P->warp), f = splat(P->freq[i]);
    const __m512d ny = y ? *y : splat(row_y);
    *px = _mm512_add_pd(_mm512_mul_pd(_mm512_add_pd(x, _mm512_mul_pd(warp, t->wx)), f),
                        splat(P->offset[i][0]));
    *py = _mm512_add_pd(_mm512_mul_pd(_mm512_add_pd(ny, _mm512_mul_pd(warp, t->wy)), f),
                        splat(P->offset[i][1]));
}

/* s + a (1 - |v|): |v| clears the sign bit, as fabs */
TURBULENCE_INLINE __m512d swiss_add8(const swiss8 *t, __m512d v)
{
    return _mm512_add_pd(t->s, _mm512_mul_pd(t->a, _mm512_sub_pd(splat(1.0),
                                                                 _mm512_andnot_pd(splat(-0.0), v))));
}

TURBULENCE_INLINE void swiss_step8(const tf_fractal_plan *P, swiss8 *t, __m512d v, __m512d gx,
                                   __m512d gy)
{
    const __m512d zero = _mm512_setzero_pd(), one = splat(1.0);
    __m512d neg = _mm512_xor_pd(v, splat(-0.0));
    t->s = swiss_add8(t, v);
    t->wx = _mm512_add_pd(t->wx, _mm512_mul_pd(_mm512_mul_pd(t->a, gx), neg));
    t->wy = _mm512_add_pd(t->wy, _mm512_mul_pd(_mm512_mul_pd(t->a, gy), neg));
    /* saturate(s): below 0 to 0, above 1 to 1, NaN kept (both tests false) */
    __m512d c = _mm512_mask_blend_pd(_mm512_cmp_pd_mask(t->s, zero, _CMP_LT_OQ), t->s, zero);
    c = _mm512_mask_blend_pd(_mm512_cmp_pd_mask(c, one, _CMP_GT_OQ), c, one);
    t->a = _mm512_mul_pd(t->a, _mm512_mul_pd(splat(P->gain), c));
}

/* `nb` (1 or 2) blocks of sixteen samples of swiss, block k's halves at
 * x[2k], x[2k + 1] and y[2k], y[2k + 1] (or row_y when y is NULL), into
 * r[2k], r[2k + 1]; ok[k] 0 when an octave's points of block k were out
 * of the vector range (r meaningless then). */
TURBULENCE_INLINE void swiss_blocks(const tf_fractal_plan *P, __m512i seeds, int nb,
                                    const __m512d *x, double row_y, const __m512d *y, __m512d *r,
                                    int *ok)
{
    const __m512d zero = _mm512_setzero_pd();
    swiss8 S[4];
    __m512d px[4], py[4], v[4], gx[4], gy[4];
#pragma GCC unroll 4
    for (int h = 0; h < 2 * nb; h++)
        S[h] = (swiss8){zero, splat(1.0), zero, zero};
    ok[0] = ok[1] = 1;
    int last = P->octaves - 1; /* simplex: the last octave is value-only */
    for (int i = 0; i <= last; i++) {
        int deriv = i < last;
#pragma GCC unroll 4
        for (int h = 0; h < 2 * nb; h++)
            swiss_points8(P, i, &S[h], x[h], row_y, y ? &y[h] : NULL, &px[h], &py[h]);
        simplex_halves_avx512(seeds, 2 * nb, px, py, deriv, v, gx, gy, ok);
#pragma GCC unroll 4
        for (int h = 0; h < 2 * nb; h++) {
            if (deriv)
                swiss_step8(P, &S[h], v[h], gx[h], gy[h]);
            else
                r[h] = turbulence_normalize8(P, swiss_add8(&S[h], v[h]));
        }
    }
}

/* ---- jordan: squares, warped and damped by the gradients of the squares */

typedef struct {
    __m512d s, wx, wy, mx, my, damped;
} jordan8;

/* octave i >= 1's points: (nx f + wx + o_x, ny f + wy + o_y), ny as in
 * swiss_points8 */
TURBULENCE_INLINE void jordan_points8(const tf_fractal_plan *P, int i, const jordan8 *t, __m512d x,
                                      double row_y, const __m512d *y, __m512d *px, __m512d *py)
{
    const __m512d f = splat(P->freq[i]);
    const __m512d fy = y ? _mm512_mul_pd(*y, f) : splat(row_y * P->freq[i]);
    *px = _mm512_add_pd(_mm512_add_pd(_mm512_mul_pd(x, f), t->wx), splat(P->offset[i][0]));
    *py = _mm512_add_pd(_mm512_add_pd(fy, t->wy), splat(P->offset[i][1]));
}

/* the first octave at the point itself: s = v^2, warps and dampings from
 * half the gradient of v^2, every lane at the first damped amplitude */
TURBULENCE_INLINE void jordan_first8(const tf_fractal_plan *P, jordan8 *t, __m512d v, __m512d gx,
                                     __m512d gy, double damped)
{
    __m512d hx = _mm512_mul_pd(gx, v), hy = _mm512_mul_pd(gy, v);
    t->s = _mm512_mul_pd(v, v);
    t->wx = _mm512_mul_pd(splat(P->warp0), hx);
    t->wy = _mm512_mul_pd(splat(P->warp0), hy);
    t->mx = _mm512_mul_pd(splat(P->damp0), hx);
    t->my = _mm512_mul_pd(splat(P->damp0), hy);
    t->damped = splat(damped);
}

/* s + damped v^2 */
TURBULENCE_INLINE __m512d jordan_add8(const jordan8 *t, __m512d v)
{
    return _mm512_add_pd(t->s, _mm512_mul_pd(t->damped, _mm512_mul_pd(v, v)));
}

/* an octave after the first, at amplitude amp */
TURBULENCE_INLINE void jordan_step8(const tf_fractal_plan *P, jordan8 *t, __m512d v, __m512d gx,
                                    __m512d gy, double amp)
{
    const __m512d one = splat(1.0);
    __m512d hx = _mm512_mul_pd(gx, v), hy = _mm512_mul_pd(gy, v);
    t->s = jordan_add8(t, v);
    t->wx = _mm512_add_pd(t->wx, _mm512_mul_pd(splat(P->warp), hx));
    t->wy = _mm512_add_pd(t->wy, _mm512_mul_pd(splat(P->warp), hy));
    t->mx = _mm512_add_pd(t->mx, _mm512_mul_pd(splat(P->damp), hx));
    t->my = _mm512_add_pd(t->my, _mm512_mul_pd(splat(P->damp), hy));
    __m512d r2 = _mm512_add_pd(_mm512_mul_pd(t->mx, t->mx), _mm512_mul_pd(t->my, t->my));
    t->damped = _mm512_mul_pd(
        splat(amp), _mm512_sub_pd(one, _mm512_div_pd(splat(P->damp_scale), _mm512_add_pd(one, r2))));
}

/* swiss_blocks for jordan */
TURBULENCE_INLINE void jordan_blocks(const tf_fractal_plan *P, __m512i seeds, int nb,
                                     const __m512d *x, double row_y, const __m512d *y, __m512d *r,
                                     int *ok)
{
    jordan8 S[4];
    __m512d px[4], py[4], v[4], gx[4], gy[4];
    ok[0] = ok[1] = 1;
    /* octave 0 at the point itself, with its gradient even when it is the
     * only one (its value has the same bits either way) */
#pragma GCC unroll 4
    for (int h = 0; h < 2 * nb; h++)
        py[h] = y ? y[h] : splat(row_y);
    simplex_halves_avx512(seeds, 2 * nb, x, py, 1, v, gx, gy, ok);
    double amp = P->gain1;
#pragma GCC unroll 4
    for (int h = 0; h < 2 * nb; h++)
        jordan_first8(P, &S[h], v[h], gx[h], gy[h], amp * P->gain);
    int last = P->octaves - 1;
    for (int i = 1; i <= last; i++) {
        int deriv = i < last;
#pragma GCC unroll 4
        for (int h = 0; h < 2 * nb; h++)
            jordan_points8(P, i, &S[h], x[h], row_y, y ? &y[h] : NULL, &px[h], &py[h]);
        simplex_halves_avx512(seeds, 2 * nb, px, py, deriv, v, gx, gy, ok);
        if (deriv)
            amp = amp * P->gain;
#pragma GCC unroll 4
        for (int h = 0; h < 2 * nb; h++) {
            if (deriv)
                jordan_step8(P, &S[h], v[h], gx[h], gy[h], amp);
            else
                S[h].s = jordan_add8(&S[h], v[h]);
        }
    }
#pragma GCC unroll 4
    for (int h = 0; h < 2 * nb; h++)
        r[h] = turbulence_normalize8(P, S[h].s);
}

/* The row (nys NULL: every sample at ny) or the points (nx[k], nys[k]) */
TURBULENCE_INLINE void turbulence_samples(const tf_fractal_plan *P, const double *nx, double ny,
                                          const double *nys, double nz, size_t n, double *out)
{
    if (n == 0)
        return;
    const __m512i seeds = _mm512_set1_epi32((int)P->seed);
    int swiss = P->kind == TF_FRACTAL_SWISS;
    simplex_blocks512 b;
    for (size_t m = 0; m < n; m += b.count) {
        __m512d x[4], y[4], r[4];
        int ok[2];
        simplex_blocks_start(m, n, &b);
        simplex_blocks_load(&b, nx + m, x);
        if (nys)
            simplex_blocks_load(&b, nys + m, y);
        const __m512d *ys = nys ? y : NULL;
        if (b.blocks == 2) {
            if (swiss)
                swiss_blocks(P, seeds, 2, x, ny, ys, r, ok);
            else
                jordan_blocks(P, seeds, 2, x, ny, ys, r, ok);
        } else {
            if (swiss)
                swiss_blocks(P, seeds, 1, x, ny, ys, r, ok);
            else
                jordan_blocks(P, seeds, 1, x, ny, ys, r, ok);
        }
        for (int k = 0; k < b.blocks; k++) {
            size_t first = m + (size_t)(16 * k), end = first + simplex_block_length(&b, k);
            if (!ok[k]) { /* a point out of the vector range: the scalar code */
                for (size_t j = first; j < end; j++)
                    out[j] = tf_fractal_plan_eval(P, nx[j], nys ? nys[j] : ny, nz, NULL, NULL);
                continue;
            }
            simplex_block_store(&b, k, r, out + m);
        }
    }
}

__attribute__((target(SIMPLEX_AVX512_TARGET))) void
tf_turbulence_simplex_row_avx512(const tf_fractal_plan *P, const double *nx, double ny, double nz,
                                 size_t n, double *out)
{
    turbulence_samples(P, nx, ny, NULL, nz, n, out);
}

__attribute__((target(SIMPLEX_AVX512_TARGET))) void
tf_turbulence_simplex_points_avx512(const tf_fractal_plan *P, const double *nx, const double *ny,
                                    double nz, size_t n, double *out)
{
    turbulence_samples(P, nx, 0.0, ny, nz, n, out);
}
#endif
