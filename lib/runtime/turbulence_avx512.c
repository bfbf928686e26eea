/*
 * swiss and jordan turbulence of simplex noise over a row of samples on
 * the AVX-512 path. Each octave's points depend on the octaves before
 * (the warp follows their gradients), so a row cannot take an octave at a
 * time without keeping every sample's running values in memory between
 * the noise and the steps. Here a block of sixteen samples runs all its
 * octaves in registers instead: the octave's points, simplex with its
 * gradient (simplex_lanes.h), the steps, the next octave's points. Each
 * octave keeps its own lattice window across the row's blocks. Every
 * lane does fractal.c's scalar operations in their order, so the bits are
 * those of tf_fractal_plan_eval at each sample.
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

/* octave i's points: ((nx + warp wx) f + o_x, (ny + warp wy) f + o_y) */
TURBULENCE_INLINE void swiss_points8(const tf_fractal_plan *P, int i, const swiss8 *t, __m512d x,
                                     double ny, __m512d *px, __m512d *py)
{
    const __m512d warp = splat(P->warp), f = splat(P->freq[i]);
    *px = _mm512_add_pd(_mm512_mul_pd(_mm512_add_pd(x, _mm512_mul_pd(warp, t->wx)), f),
                        splat(P->offset[i][0]));
    *py = _mm512_add_pd(_mm512_mul_pd(_mm512_add_pd(splat(ny), _mm512_mul_pd(warp, t->wy)), f),
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

/* Blocks A (xa) and B (xb) of swiss, into *ra and *rb; 0 when an octave's
 * points were out of the vector range (nothing is kept then). */
TURBULENCE_INLINE int swiss_block(const tf_fractal_plan *P, simplex_points512 *st, __m512i seeds,
                                  __m512d xa, __m512d xb, double ny, __m512d *ra, __m512d *rb)
{
    const __m512d zero = _mm512_setzero_pd();
    swiss8 A = {zero, splat(1.0), zero, zero}, B = A;
    __m512d pxa, pya, pxb, pyb, na, nb, ga, gb, ha, hb;
    int last = P->octaves - 1; /* simplex: the last octave is value-only */
    for (int i = 0; i < last; i++) {
        swiss_points8(P, i, &A, xa, ny, &pxa, &pya);
        swiss_points8(P, i, &B, xb, ny, &pxb, &pyb);
        if (!simplex_points512_block(&st[i], seeds, pxa, pxb, pya, pyb, 1, &na, &nb, &ga, &gb,
                                     &ha, &hb))
            return 0;
        swiss_step8(P, &A, na, ga, ha);
        swiss_step8(P, &B, nb, gb, hb);
    }
    swiss_points8(P, last, &A, xa, ny, &pxa, &pya);
    swiss_points8(P, last, &B, xb, ny, &pxb, &pyb);
    if (!simplex_points512_block(&st[last], seeds, pxa, pxb, pya, pyb, 0, &na, &nb, NULL, NULL,
                                 NULL, NULL))
        return 0;
    *ra = turbulence_normalize8(P, swiss_add8(&A, na));
    *rb = turbulence_normalize8(P, swiss_add8(&B, nb));
    return 1;
}

/* ---- jordan: squares, warped and damped by the gradients of the squares */

typedef struct {
    __m512d s, wx, wy, mx, my, damped;
} jordan8;

/* octave i >= 1's points: (nx f + wx + o_x, ny f + wy + o_y) */
TURBULENCE_INLINE void jordan_points8(const tf_fractal_plan *P, int i, const jordan8 *t,
                                      __m512d x, double ny, __m512d *px, __m512d *py)
{
    *px = _mm512_add_pd(_mm512_add_pd(_mm512_mul_pd(x, splat(P->freq[i])), t->wx),
                        splat(P->offset[i][0]));
    *py = _mm512_add_pd(_mm512_add_pd(splat(ny * P->freq[i]), t->wy), splat(P->offset[i][1]));
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

TURBULENCE_INLINE int jordan_block(const tf_fractal_plan *P, simplex_points512 *st, __m512i seeds,
                                   __m512d xa, __m512d xb, double ny, __m512d *ra, __m512d *rb)
{
    jordan8 A, B;
    __m512d pxa, pya, pxb, pyb, na, nb, ga, gb, ha, hb;
    const __m512d vny = splat(ny);
    /* octave 0 with its gradient even when it is the only one (its value
     * has the same bits either way) */
    if (!simplex_points512_block(&st[0], seeds, xa, xb, vny, vny, 1, &na, &nb, &ga, &gb, &ha, &hb))
        return 0;
    double amp = P->gain1;
    jordan_first8(P, &A, na, ga, ha, amp * P->gain);
    jordan_first8(P, &B, nb, gb, hb, amp * P->gain);
    int last = P->octaves - 1;
    for (int i = 1; i < last; i++) {
        jordan_points8(P, i, &A, xa, ny, &pxa, &pya);
        jordan_points8(P, i, &B, xb, ny, &pxb, &pyb);
        if (!simplex_points512_block(&st[i], seeds, pxa, pxb, pya, pyb, 1, &na, &nb, &ga, &gb,
                                     &ha, &hb))
            return 0;
        amp = amp * P->gain;
        jordan_step8(P, &A, na, ga, ha, amp);
        jordan_step8(P, &B, nb, gb, hb, amp);
    }
    if (last >= 1) {
        jordan_points8(P, last, &A, xa, ny, &pxa, &pya);
        jordan_points8(P, last, &B, xb, ny, &pxb, &pyb);
        if (!simplex_points512_block(&st[last], seeds, pxa, pxb, pya, pyb, 0, &na, &nb, NULL,
                                     NULL, NULL, NULL))
            return 0;
        A.s = jordan_add8(&A, na);
        B.s = jordan_add8(&B, nb);
    }
    *ra = turbulence_normalize8(P, A.s);
    *rb = turbulence_normalize8(P, B.s);
    return 1;
}

/* Lanes below `count` (0..8) */
static inline __mmask8 lanes_below(size_t count)
{
    return count >= 8 ? (__mmask8)0xff : (__mmask8)((1u << count) - 1u);
}

__attribute__((target(SIMPLEX_AVX512_TARGET))) void
tf_turbulence_simplex_row_avx512(const tf_fractal_plan *P, const double *nx, double ny, double nz,
                                 size_t n, double *out)
{
    if (n == 0)
        return;
    const __m512i seeds = _mm512_set1_epi32((int)P->seed);
    /* Each octave's blocks may take windows when its points are close on
     * average along x, the points call's test with the unwarped points
     * (NaN: not); the window only changes the speed. */
    simplex_points512 st[TF_MAX_OCTAVES];
    double spread = fabs(nx[n - 1] - nx[0]);
    for (int i = 0; i < P->octaves; i++)
        simplex_points512_start(&st[i], n >= 32 && spread * P->freq[i] <=
                                                       SIMPLEX_WINDOW_SPACING * (double)(n - 1));
    int swiss = P->kind == TF_FRACTAL_SWISS;
    for (size_t m = 0; m < n; m += 16) {
        size_t count = n - m < 16 ? n - m : 16;
        __mmask8 ka = lanes_below(count), kb = lanes_below(count > 8 ? count - 8 : 0);
        /* a short last block repeats its last point in the lanes past n */
        const __m512d pad = splat(nx[m + count - 1]);
        __m512d xa = _mm512_mask_loadu_pd(pad, ka, nx + m);
        __m512d xb = _mm512_mask_loadu_pd(pad, kb, nx + m + 8);
        __m512d ra, rb;
        int done = swiss ? swiss_block(P, st, seeds, xa, xb, ny, &ra, &rb)
                         : jordan_block(P, st, seeds, xa, xb, ny, &ra, &rb);
        if (!done) { /* a point out of the vector range: the scalar code */
            for (size_t k = 0; k < count; k++)
                out[m + k] = tf_fractal_plan_eval(P, nx[m + k], ny, nz, NULL, NULL);
            continue;
        }
        _mm512_mask_storeu_pd(out + m, ka, ra);
        _mm512_mask_storeu_pd(out + m + 8, kb, rb);
    }
}
#endif
