/*
 * Simplex noise's constants and its AVX-512 kernels, shared by
 * noise_simplex.c (the rows of one noise), turbulence_avx512.c
 * (swiss and jordan octaves run block by block in registers) and the
 * tests. Private to lib/runtime; everything here is inlined where it is used, so a block's
 * vectors never leave the registers between the noise and its caller.
 * docs/noise.md ("simplex") lists the constants for a port.
 */
#ifndef TF_RUNTIME_SIMPLEX_LANES_H
#define TF_RUNTIME_SIMPLEX_LANES_H

#include <stddef.h>
#include <stdint.h>

#include "internal.h"

/* Skew and unskew factors: F2 = (sqrt(3) - 1) / 2, G2 = (3 - sqrt(3)) / 6. */
#define SIMPLEX_F2 0.36602540378443865
#define SIMPLEX_G2 0.21132486540518713
/* 2 * G2, exact (doubling is exact). */
#define SIMPLEX_G2_TWICE 0.42264973081037427
/* The kernel's largest possible sum is 0.0100802...; 99 keeps |n| < 1. */
#define SIMPLEX_SCALE 99.0
/* Beyond 2^52 a double has no fractional part left. */
#define SIMPLEX_MAX_COORD 4503599627370496.0

/* Unit gradients at angles 2*pi*(k + 0.5)/32, k = 0..31 (cos, sin), as the
 * shortest decimal strings that read back as the same doubles. */
#define SIMPLEX_GRADIENTS(X)                                                                       \
    X(0.9951847266721969, 0.0980171403295606)                                                      \
    X(0.9569403357322088, 0.29028467725446233)                                                     \
    X(0.881921264348355, 0.47139673682599764)                                                      \
    X(0.773010453362737, 0.6343932841636455)                                                       \
    X(0.6343932841636455, 0.773010453362737)                                                       \
    X(0.4713967368259978, 0.8819212643483549)                                                      \
    X(0.29028467725446233, 0.9569403357322089)                                                     \
    X(0.09801714032956077, 0.9951847266721968)                                                     \
    X(-0.09801714032956065, 0.9951847266721969)                                                    \
    X(-0.29028467725446216, 0.9569403357322089)                                                    \
    X(-0.4713967368259977, 0.881921264348355)                                                      \
    X(-0.6343932841636454, 0.7730104533627371)                                                     \
    X(-0.773010453362737, 0.6343932841636455)                                                      \
    X(-0.8819212643483549, 0.47139673682599786)                                                    \
    X(-0.9569403357322088, 0.2902846772544624)                                                     \
    X(-0.9951847266721968, 0.09801714032956083)                                                    \
    X(-0.9951847266721969, -0.09801714032956059)                                                   \
    X(-0.9569403357322089, -0.2902846772544621)                                                    \
    X(-0.881921264348355, -0.47139673682599764)                                                    \
    X(-0.7730104533627371, -0.6343932841636453)                                                    \
    X(-0.6343932841636459, -0.7730104533627367)                                                    \
    X(-0.47139673682599786, -0.8819212643483549)                                                   \
    X(-0.29028467725446244, -0.9569403357322088)                                                   \
    X(-0.09801714032956045, -0.9951847266721969)                                                   \
    X(0.09801714032956009, -0.9951847266721969)                                                    \
    X(0.29028467725446205, -0.9569403357322089)                                                    \
    X(0.4713967368259976, -0.881921264348355)                                                      \
    X(0.6343932841636456, -0.7730104533627369)                                                     \
    X(0.7730104533627367, -0.6343932841636459)                                                     \
    X(0.8819212643483548, -0.4713967368259979)                                                     \
    X(0.9569403357322088, -0.2902846772544625)                                                     \
    X(0.9951847266721969, -0.0980171403295605)

/* Lattice hash constants: a corner (i, j) hashes
 * seed ^ (i * HASH_I) ^ (j * HASH_J) (mod 2^32). */
#define HASH_I 0x1DDE90C9u
#define HASH_J 0x43C42E4Du

/* The vector paths' range, and the magic number whose addition leaves a
 * cell's low 32 bits in a double's low mantissa bits (noise_simplex.c,
 * "AVX2"). */
#define SIMPLEX_AVX2_LIMIT 562949953421312.0 /* 2^49 */
#define SIMPLEX_INT_MAGIC 6755399441055744.0 /* 1.5 * 2^52 */

#if TF_HAVE_AVX512_PATH
#include <immintrin.h>

/*
 * AVX-512: the row of tf_simplex2_row_avx2 with eight doubles a vector,
 * each lane again running the scalar code's IEEE operations in its order
 * (no FMA), so every lane has the scalar bits; same range rule (|x|, |y|
 * < 2^49, else the block takes the scalar code).
 *
 * On a processor that runs a 512-bit operation as two 256-bit halves
 * (Zen 4) this gains only where it needs fewer operations than AVX2, the
 * arithmetic itself costing the same; so the 32-bit and gradient work is
 * written to take as few as it can:
 *
 * - Sixteen points (blocks A and B of eight) share their integer work:
 *   one vector of 16 32-bit lanes, A's point k in lane 2k and B's in lane
 *   2k + 1, so the 64-bit lane k holds both points k. The hash runs once
 *   for the sixteen, and A's gradient index (bits 27-31 of the low half)
 *   and B's (of the high half) come out with one shift each.
 * - The 32 gradients are picked from x and y columns, 16 entries a
 *   two-table permute, without a blend: the first permute writes the
 *   upper half's entries into the lanes whose index has bit 4 set, the
 *   others keeping their index, and the second, masked to the other
 *   lanes, reads those kept indices.
 * - Masks select: the corner in reach (t > 0) by a zero-masked multiply,
 *   corner 1's offset by a masked subtraction (x0 - 0.0 is x0).
 * - Rows of close points take the gradients from a window of the lattice
 *   hashed once (below), with no hash per point at all.
 */
#define SIMPLEX_AVX512_TARGET "avx512f,avx512dq,bmi2"
#define SIMPLEX_AVX512_INLINE                                                                      \
    static inline __attribute__((target(SIMPLEX_AVX512_TARGET), always_inline))

#define SIMPLEX_X(gx, gy) gx,
#define SIMPLEX_Y(gx, gy) gy,
/* GRADIENTS' x and y columns, for the permutes. */
static _Alignas(64) const double SIMPLEX_COLUMNS[2][32] = {{SIMPLEX_GRADIENTS(SIMPLEX_X)},
                                                           {SIMPLEX_GRADIENTS(SIMPLEX_Y)}};

/* simplex_eval's skew for eight points: the offset (x0, y0) from corner 0,
 * the cell (cell_x, cell_y) and its indices plus 1.5 * 2^52 (their low 32
 * bits are i and j), and which lanes are below the diagonal (corner 1 is
 * (1, 0)). */
typedef struct {
    __m512d x0, y0, cell_x, cell_y, i_bits, j_bits;
    __mmask8 below;
} simplex_skew512;

SIMPLEX_AVX512_INLINE void simplex_skew_avx512(__m512d x, __m512d y, simplex_skew512 *r)
{
    __m512d s = _mm512_mul_pd(_mm512_add_pd(x, y), _mm512_set1_pd(SIMPLEX_F2));
    __m512d xs = _mm512_add_pd(x, s), ys = _mm512_add_pd(y, s);
    r->cell_x = _mm512_roundscale_pd(xs, _MM_FROUND_TO_NEG_INF | _MM_FROUND_NO_EXC);
    r->cell_y = _mm512_roundscale_pd(ys, _MM_FROUND_TO_NEG_INF | _MM_FROUND_NO_EXC);
    __m512d a = _mm512_sub_pd(xs, r->cell_x), b = _mm512_sub_pd(ys, r->cell_y);
    __m512d t = _mm512_mul_pd(_mm512_add_pd(a, b), _mm512_set1_pd(SIMPLEX_G2));
    r->x0 = _mm512_sub_pd(a, t);
    r->y0 = _mm512_sub_pd(b, t);
    r->i_bits = _mm512_add_pd(r->cell_x, _mm512_set1_pd(SIMPLEX_INT_MAGIC));
    r->j_bits = _mm512_add_pd(r->cell_y, _mm512_set1_pd(SIMPLEX_INT_MAGIC));
    r->below = _mm512_cmp_pd_mask(r->x0, r->y0, _CMP_GT_OQ);
}

/* gradient_index's mixer (before the final shift) of 16 32-bit lanes. */
SIMPLEX_AVX512_INLINE __m512i simplex_mix_avx512(__m512i h)
{
    h = _mm512_xor_si512(h, _mm512_srli_epi32(h, 16));
    h = _mm512_mullo_epi32(h, _mm512_set1_epi32((int)0x7FEB352Du));
    h = _mm512_xor_si512(h, _mm512_srli_epi32(h, 15));
    return _mm512_mullo_epi32(h, _mm512_set1_epi32((int)0x846CA68Bu));
}

/* Column col's entries (col: SIMPLEX_COLUMNS[0] or [1]) at the gradient
 * indices whose bits 0-3 are idx's and bit 4 is upper's. */
SIMPLEX_AVX512_INLINE __m512d simplex_pick_avx512(const double *col, __m512i idx, __mmask8 upper)
{
    __m512d r = _mm512_mask2_permutex2var_pd(_mm512_load_pd(col + 16), idx, upper,
                                             _mm512_load_pd(col + 24));
    return _mm512_mask2_permutex2var_pd(_mm512_load_pd(col), _mm512_castpd_si512(r),
                                        (__mmask8)~upper, _mm512_load_pd(col + 8));
}

/* The gradients of eight mixed hashes in the interleaved lanes: the low
 * halves of the 64-bit lanes (half 0) or the high halves (half 1). */
SIMPLEX_AVX512_INLINE void simplex_gradients_avx512(__m512i h, int half, __m512d *gx, __m512d *gy)
{
    __m512i idx;
    __mmask8 upper;
    if (half) {
        idx = _mm512_srli_epi64(h, 59);
        upper = _mm512_test_epi64_mask(h, _mm512_set1_epi64((long long)0x8000000000000000ull));
    } else {
        idx = _mm512_srli_epi64(h, 27); /* bits above 4: the high half's, not read */
        upper = _mm512_test_epi64_mask(h, _mm512_set1_epi64(0x80000000ll));
    }
    *gx = simplex_pick_avx512(SIMPLEX_COLUMNS[0], idx, upper);
    *gy = simplex_pick_avx512(SIMPLEX_COLUMNS[1], idx, upper);
}

/* The three corners' mixed hashes of blocks A and B, in the interleaved
 * lanes described above. */
typedef struct {
    __m512i h0, h1, h2;
} simplex_hash512;

SIMPLEX_AVX512_INLINE void simplex_hash_avx512(__m512i seed, const simplex_skew512 *a,
                                               const simplex_skew512 *b, simplex_hash512 *r)
{
    /* the low 32 bits of each 64-bit lane of a, then of b, interleaved */
    const __m512i pick = _mm512_setr_epi32(0, 16, 2, 18, 4, 20, 6, 22, 8, 24, 10, 26, 12, 28, 14, 30);
    const __m512i step_i = _mm512_set1_epi32((int)HASH_I), step_j = _mm512_set1_epi32((int)HASH_J);
    __m512i i = _mm512_permutex2var_epi32(_mm512_castpd_si512(a->i_bits), pick,
                                          _mm512_castpd_si512(b->i_bits));
    __m512i j = _mm512_permutex2var_epi32(_mm512_castpd_si512(a->j_bits), pick,
                                          _mm512_castpd_si512(b->j_bits));
    /* corner 0's products, and the others' from them: (i + 1) * c = i * c
     * + c (mod 2^32), the bits of the scalar multiplication */
    __m512i hi = _mm512_mullo_epi32(i, step_i), hj = _mm512_mullo_epi32(j, step_j);
    __m512i hi2 = _mm512_add_epi32(hi, step_i), hj2 = _mm512_add_epi32(hj, step_j);
    /* corner 1: (i + 1, j) below the diagonal, else (i, j + 1); A's mask
     * bits to the even lanes, B's to the odd */
    __mmask16 below = (__mmask16)(_pdep_u32(a->below, 0x5555u) | _pdep_u32(b->below, 0xAAAAu));
    __m512i hi1 = _mm512_mask_blend_epi32(below, hi, hi2);
    __m512i hj1 = _mm512_mask_blend_epi32(below, hj2, hj);
    /* seed ^ hi ^ hj as one three-way exclusive or */
    r->h0 = simplex_mix_avx512(_mm512_ternarylogic_epi32(seed, hi, hj, 0x96));
    r->h1 = simplex_mix_avx512(_mm512_ternarylogic_epi32(seed, hi1, hj1, 0x96));
    r->h2 = simplex_mix_avx512(_mm512_ternarylogic_epi32(seed, hi2, hj2, 0x96));
}

/*
 * A window of the lattice: when a row's points are close together (a
 * grid row at a low frequency), the corners of sixteen points are a few
 * lattice points, all within a 4 x 4 window of lattice points (a0 + u,
 * b0 + v), u, v = 0..3, whose centre (a0 + 1, b0 + 1) is within one cell
 * of every point's cell. Their gradients are then computed once, and are
 * the table of one two-table permute per coordinate: the window's entry
 * u + 4 v. A row keeps its window while its blocks' cells stay within one
 * cell of the centre, and builds the next one above the lower of the
 * cells of the block's first and last points (the lowest of a grid row
 * going either way), the block that leaves it. A window pays when it
 * serves two blocks or more, so a row takes them only when its points are
 * on average at most a cell (in skewed x, 1 + F2 times x) apart over a
 * block of sixteen, and gives them up at a block that does not fit even
 * the window made for it. The entries are the same lattice points'
 * gradients, hashed the same way, so the bits are those of the hashes per
 * point; which blocks take a window changes only the speed.
 */
/* The largest average distance between a row's points for windows:
 * 1 / (16 (1 + F2)). */
#define SIMPLEX_WINDOW_SPACING 0.045753
typedef struct {
    __m512d gx0, gx1, gy0, gy1; /* entries 0-7 and 8-15 */
    __m512d centre_x, centre_y; /* the cell (a0 + 1, b0 + 1) */
} simplex_window512;

/* The lattice offsets (u - 1, v - 1) times HASH_I, HASH_J (mod 2^32) of
 * the window's entries, entry k (0-7) in 32-bit lane 2k and entry k + 8 in
 * lane 2k + 1, the interleaved order of the blocks' hashes. */
#define SIMPLEX_WINDOW_U(e) ((uint32_t)((e) & 3) - 1u)
#define SIMPLEX_WINDOW_V(e) ((uint32_t)((e) >> 2) - 1u)
#define SIMPLEX_WINDOW_PAIR(k, f, c) (int)(f(k) * (c)), (int)(f((k) + 8) * (c))
#define SIMPLEX_WINDOW_ROW(f, c)                                                                   \
    {SIMPLEX_WINDOW_PAIR(0, f, c), SIMPLEX_WINDOW_PAIR(1, f, c), SIMPLEX_WINDOW_PAIR(2, f, c),      \
     SIMPLEX_WINDOW_PAIR(3, f, c), SIMPLEX_WINDOW_PAIR(4, f, c), SIMPLEX_WINDOW_PAIR(5, f, c),      \
     SIMPLEX_WINDOW_PAIR(6, f, c), SIMPLEX_WINDOW_PAIR(7, f, c)}
static _Alignas(64) const int SIMPLEX_WINDOW_HI[16] = SIMPLEX_WINDOW_ROW(SIMPLEX_WINDOW_U, HASH_I);
static _Alignas(64) const int SIMPLEX_WINDOW_HJ[16] = SIMPLEX_WINDOW_ROW(SIMPLEX_WINDOW_V, HASH_J);

/* The centre for blocks a and b: one above the lower of the cells of the
 * first point (a's lane 0) and the last (b's lane 7), in x and in y. */
SIMPLEX_AVX512_INLINE void simplex_window_centre(const simplex_skew512 *a,
                                                 const simplex_skew512 *b, simplex_window512 *w)
{
    const __m512i last = _mm512_set1_epi64(7);
    const __m512d one = _mm512_set1_pd(1.0);
    w->centre_x = _mm512_add_pd(_mm512_min_pd(_mm512_broadcastsd_pd(_mm512_castpd512_pd128(a->cell_x)),
                                              _mm512_permutexvar_pd(last, b->cell_x)),
                                one);
    w->centre_y = _mm512_add_pd(_mm512_min_pd(_mm512_broadcastsd_pd(_mm512_castpd512_pd128(a->cell_y)),
                                              _mm512_permutexvar_pd(last, b->cell_y)),
                                one);
}

/* The window's gradients around its centre. */
SIMPLEX_AVX512_INLINE void simplex_window_build(__m512i seed, simplex_window512 *w)
{
    /* the centre's i * HASH_I and j * HASH_J in every lane (the low 32
     * bits of the centre plus 1.5 * 2^52), plus each entry's offsets */
    const __m512d magic = _mm512_set1_pd(SIMPLEX_INT_MAGIC);
    __m512i i = _mm512_shuffle_epi32(_mm512_castpd_si512(_mm512_add_pd(w->centre_x, magic)),
                                     _MM_PERM_AAAA);
    __m512i j = _mm512_shuffle_epi32(_mm512_castpd_si512(_mm512_add_pd(w->centre_y, magic)),
                                     _MM_PERM_AAAA);
    __m512i hi = _mm512_add_epi32(_mm512_mullo_epi32(i, _mm512_set1_epi32((int)HASH_I)),
                                  _mm512_load_si512((const void *)SIMPLEX_WINDOW_HI));
    __m512i hj = _mm512_add_epi32(_mm512_mullo_epi32(j, _mm512_set1_epi32((int)HASH_J)),
                                  _mm512_load_si512((const void *)SIMPLEX_WINDOW_HJ));
    __m512i h = simplex_mix_avx512(_mm512_ternarylogic_epi32(seed, hi, hj, 0x96));
    simplex_gradients_avx512(h, 0, &w->gx0, &w->gy0);
    simplex_gradients_avx512(h, 1, &w->gx1, &w->gy1);
}

/* Whether every cell of blocks a and b is within one cell of the window's
 * centre (an exact difference of integers below 2^52), and then corner
 * 0's window entry of each lane, (du + 1) + 4 (dv + 1), in the low bits
 * of *ea and *eb. */
SIMPLEX_AVX512_INLINE int simplex_window_fits(const simplex_window512 *w,
                                              const simplex_skew512 *a,
                                              const simplex_skew512 *b, __m512i *ea,
                                              __m512i *eb)
{
    __m512d dua = _mm512_sub_pd(a->cell_x, w->centre_x), dva = _mm512_sub_pd(a->cell_y, w->centre_y);
    __m512d dub = _mm512_sub_pd(b->cell_x, w->centre_x), dvb = _mm512_sub_pd(b->cell_y, w->centre_y);
    const __m512d one = _mm512_set1_pd(1.0);
    /* the larger magnitude of each pair of lanes, at most 1 */
    __mmask8 fit = _mm512_cmp_pd_mask(_mm512_range_pd(dua, dub, 0x0B), one, _CMP_LE_OQ);
    fit = _mm512_mask_cmp_pd_mask(fit, _mm512_range_pd(dva, dvb, 0x0B), one, _CMP_LE_OQ);
    if (fit != 0xFF)
        return 0;
    /* 4 dv + (du + 5), exact small integers, plus 1.5 * 2^52: the entry in
     * the low bits */
    const __m512d four = _mm512_set1_pd(4.0);
    const __m512d base = _mm512_set1_pd(SIMPLEX_INT_MAGIC + 5.0);
    *ea = _mm512_castpd_si512(_mm512_add_pd(_mm512_mul_pd(dva, four), _mm512_add_pd(dua, base)));
    *eb = _mm512_castpd_si512(_mm512_add_pd(_mm512_mul_pd(dvb, four), _mm512_add_pd(dub, base)));
    return 1;
}

/* corner()'s value for eight lanes given their gradients; t <= 0 gives
 * exactly 0.0, a select of the same value as the scalar code's. */
SIMPLEX_AVX512_INLINE __m512d simplex_corner_avx512(__m512d gx, __m512d gy, __m512d dx, __m512d dy)
{
    __m512d t = _mm512_sub_pd(_mm512_sub_pd(_mm512_set1_pd(0.5), _mm512_mul_pd(dx, dx)),
                              _mm512_mul_pd(dy, dy));
    __m512d t2 = _mm512_mul_pd(t, t);
    __m512d gd = _mm512_add_pd(_mm512_mul_pd(gx, dx), _mm512_mul_pd(gy, dy));
    __mmask8 reach = _mm512_cmp_pd_mask(t, _mm512_setzero_pd(), _CMP_GT_OQ);
    return _mm512_maskz_mul_pd(reach, _mm512_mul_pd(t2, t2), gd);
}

/* Corner k's gradient (k = 0, 1, 2) of the simplices of block A (half 0)
 * or B (half 1): from the hashes h, or (w not NULL) from the window at
 * corner 0's entries e (corner 1 at e + 1 below the diagonal, else e + 4;
 * corner 2 at e + 5). */
SIMPLEX_AVX512_INLINE void simplex_corner_gradient_avx512(const simplex_skew512 *s,
                                                          const simplex_hash512 *h, int half,
                                                          const simplex_window512 *w, __m512i e,
                                                          int k, __m512d *gx, __m512d *gy)
{
    if (!w) {
        simplex_gradients_avx512(k == 0 ? h->h0 : k == 1 ? h->h1 : h->h2, half, gx, gy);
        return;
    }
    if (k == 1)
        e = _mm512_mask_add_epi64(_mm512_add_epi64(e, _mm512_set1_epi64(4)), s->below, e,
                                  _mm512_set1_epi64(1));
    else if (k == 2)
        e = _mm512_add_epi64(e, _mm512_set1_epi64(5));
    *gx = _mm512_permutex2var_pd(w->gx0, e, w->gx1);
    *gy = _mm512_permutex2var_pd(w->gy0, e, w->gy1);
}

/* The point's offsets from corners 1 and 2, as the scalar code computes
 * them (corner 0's are s->x0, s->y0). */
SIMPLEX_AVX512_INLINE void simplex_offsets_avx512(const simplex_skew512 *s, __m512d *x1,
                                                  __m512d *y1, __m512d *x2, __m512d *y2)
{
    const __m512d one = _mm512_set1_pd(1.0), g2 = _mm512_set1_pd(SIMPLEX_G2);
    const __m512d g2_twice = _mm512_set1_pd(SIMPLEX_G2_TWICE);
    /* corner 1: x0 - i1 and y0 - j1, subtracting 1.0 in the masked lanes */
    *x1 = _mm512_add_pd(_mm512_mask_sub_pd(s->x0, s->below, s->x0, one), g2);
    *y1 = _mm512_add_pd(_mm512_mask_sub_pd(s->y0, (__mmask8)~s->below, s->y0, one), g2);
    /* corner 2: (1, 1) */
    *x2 = _mm512_add_pd(_mm512_sub_pd(s->x0, one), g2_twice);
    *y2 = _mm512_add_pd(_mm512_sub_pd(s->y0, one), g2_twice);
}

/* SIMPLEX_SCALE * ((n0 + n1) + n2) of block A (half 0) or B (half 1)
 * (simplex_corner_gradient_avx512 has the arguments). */
SIMPLEX_AVX512_INLINE __m512d simplex_finish_avx512(const simplex_skew512 *s,
                                                    const simplex_hash512 *h, int half,
                                                    const simplex_window512 *w, __m512i e)
{
    __m512d gx, gy, x1, y1, x2, y2;
    simplex_offsets_avx512(s, &x1, &y1, &x2, &y2);
    simplex_corner_gradient_avx512(s, h, half, w, e, 0, &gx, &gy);
    __m512d n = simplex_corner_avx512(gx, gy, s->x0, s->y0);
    simplex_corner_gradient_avx512(s, h, half, w, e, 1, &gx, &gy);
    n = _mm512_add_pd(n, simplex_corner_avx512(gx, gy, x1, y1));
    simplex_corner_gradient_avx512(s, h, half, w, e, 2, &gx, &gy);
    n = _mm512_add_pd(n, simplex_corner_avx512(gx, gy, x2, y2));
    return _mm512_mul_pd(_mm512_set1_pd(SIMPLEX_SCALE), n);
}

/* Lanes of xa and xb (no NaN) whose magnitudes are all below 2^49, as one
 * test: vrangepd gives the larger magnitude of each pair of lanes, or the
 * other operand where one is NaN, hence the ordered comparison. */
SIMPLEX_AVX512_INLINE int simplex_in_range_avx512(__m512d xa, __m512d xb)
{
    __mmask8 ordered = _mm512_cmp_pd_mask(xa, xb, _CMP_ORD_Q);
    return _mm512_mask_cmp_pd_mask(ordered, _mm512_range_pd(xa, xb, 0x0B),
                                   _mm512_set1_pd(SIMPLEX_AVX2_LIMIT), _CMP_LT_OQ) == 0xFF;
}


/* corner()'s value and gradient for eight lanes given the corner's
 * gradient (gx, gy): t4 g - (8 t^3 gd) d and t4 gd, zero-masked where t
 * <= 0 (+0.0, the scalar select's value). */
SIMPLEX_AVX512_INLINE __m512d simplex_corner_deriv_avx512(__m512d gx, __m512d gy, __m512d dx,
                                                          __m512d dy, __m512d *cgx,
                                                          __m512d *cgy)
{
    __m512d t = _mm512_sub_pd(_mm512_sub_pd(_mm512_set1_pd(0.5), _mm512_mul_pd(dx, dx)),
                              _mm512_mul_pd(dy, dy));
    __m512d t2 = _mm512_mul_pd(t, t), t4 = _mm512_mul_pd(t2, t2);
    __m512d gd = _mm512_add_pd(_mm512_mul_pd(gx, dx), _mm512_mul_pd(gy, dy));
    __m512d k = _mm512_mul_pd(_mm512_mul_pd(_mm512_set1_pd(8.0), _mm512_mul_pd(t2, t)), gd);
    __mmask8 reach = _mm512_cmp_pd_mask(t, _mm512_setzero_pd(), _CMP_GT_OQ);
    *cgx = _mm512_maskz_sub_pd(reach, _mm512_mul_pd(t4, gx), _mm512_mul_pd(k, dx));
    *cgy = _mm512_maskz_sub_pd(reach, _mm512_mul_pd(t4, gy), _mm512_mul_pd(k, dy));
    return _mm512_maskz_mul_pd(reach, t4, gd);
}

/* simplex_eval's sums SIMPLEX_SCALE * ((c0 + c1) + c2) of the values and
 * of each gradient component, for block A (half 0) or B (half 1), the
 * corners' gradients from the hashes h. */
SIMPLEX_AVX512_INLINE __m512d simplex_finish_deriv_avx512(const simplex_skew512 *s,
                                                          const simplex_hash512 *h, int half,
                                                          __m512d *ndx, __m512d *ndy)
{
    const __m512d scale = _mm512_set1_pd(SIMPLEX_SCALE);
    __m512d gx, gy, x1, y1, x2, y2, sx, sy, cx, cy;
    simplex_offsets_avx512(s, &x1, &y1, &x2, &y2);
    simplex_gradients_avx512(h->h0, half, &gx, &gy);
    __m512d n = simplex_corner_deriv_avx512(gx, gy, s->x0, s->y0, &sx, &sy);
    simplex_gradients_avx512(h->h1, half, &gx, &gy);
    n = _mm512_add_pd(n, simplex_corner_deriv_avx512(gx, gy, x1, y1, &cx, &cy));
    sx = _mm512_add_pd(sx, cx);
    sy = _mm512_add_pd(sy, cy);
    simplex_gradients_avx512(h->h2, half, &gx, &gy);
    n = _mm512_add_pd(n, simplex_corner_deriv_avx512(gx, gy, x2, y2, &cx, &cy));
    *ndx = _mm512_mul_pd(scale, _mm512_add_pd(sx, cx));
    *ndy = _mm512_mul_pd(scale, _mm512_add_pd(sy, cy));
    return _mm512_mul_pd(scale, n);
}

/* A mask of the lanes below `count` (any count; 8 and more: all eight) */
static inline __mmask8 simplex_lanes_below(size_t count)
{
    return count >= 8 ? (__mmask8)0xff : (__mmask8)((1u << count) - 1u);
}

/*
 * A run of points in blocks of sixteen (two halves of eight), as the
 * points routines take them: two blocks side by side while more than one
 * is left, then one; a short last block repeats its last point in the
 * lanes past the run, so every lane computes at a real point of the run
 * (no lane reads past it) and the masked stores leave the rest of the
 * output alone.
 */
typedef struct {
    int blocks;       /* 1 or 2 */
    size_t count;     /* the points they hold, 1 to 32 */
    __mmask8 keep[4]; /* each half's lanes that hold points (the first 2 * blocks) */
} simplex_blocks512;

/* The blocks from point m of a run of n > m. */
SIMPLEX_AVX512_INLINE void simplex_blocks_start(size_t m, size_t n, simplex_blocks512 *b)
{
    b->blocks = n - m > 16 ? 2 : 1;
    b->count = n - m < (size_t)(16 * b->blocks) ? n - m : (size_t)(16 * b->blocks);
    for (int h = 0; h < 2 * b->blocks; h++) {
        size_t first = (size_t)(8 * h);
        b->keep[h] = simplex_lanes_below(b->count > first ? b->count - first : 0);
    }
}

/* The halves of src[0 .. count), padded with its last point. */
SIMPLEX_AVX512_INLINE void simplex_blocks_load(const simplex_blocks512 *b, const double *src,
                                               __m512d *v)
{
    const __m512d pad = _mm512_set1_pd(src[b->count - 1]);
    for (int h = 0; h < 2 * b->blocks; h++)
        v[h] = _mm512_mask_loadu_pd(pad, b->keep[h], src + 8 * h);
}

/* How many points block k (0 or 1, below b->blocks) holds. */
SIMPLEX_AVX512_INLINE size_t simplex_block_length(const simplex_blocks512 *b, int k)
{
    size_t rest = b->count - (size_t)(16 * k);
    return rest < 16 ? rest : 16;
}

/* Block k's halves r[2k], r[2k + 1] to dst + 16 k, its points only. */
SIMPLEX_AVX512_INLINE void simplex_block_store(const simplex_blocks512 *b, int k, const __m512d *r,
                                               double *dst)
{
    _mm512_mask_storeu_pd(dst + 16 * k, b->keep[2 * k], r[2 * k]);
    _mm512_mask_storeu_pd(dst + 16 * k + 8, b->keep[2 * k + 1], r[2 * k + 1]);
}

/*
 * tf_simplex2_deriv at points of their own (the warped octaves of swiss
 * and jordan) on the AVX-512 path: `halves` (2 or 4) halves of eight
 * points (px[h], py[h]), each lane with its own y, with (deriv 1) or
 * without the gradient; block k's halves 2k and 2k + 1 share one hash of
 * sixteen points. Straight-line code with a hash per point, no lattice
 * windows: the warped points of an octave are too far apart for most
 * windows, and the blocks' work is one run with no branch between them,
 * so two blocks' chains overlap (docs/performance.md, "swiss and jordan
 * blocks in registers"). ok[k] is cleared when a lane of block k is out
 * of the vector range; its values are then meaningless (the caller redoes
 * them with the scalar code), and computing them anyway keeps the run
 * straight.
 */
SIMPLEX_AVX512_INLINE void simplex_halves_avx512(__m512i seeds, int halves, const __m512d *px,
                                                 const __m512d *py, int deriv, __m512d *v,
                                                 __m512d *gx, __m512d *gy, int *ok)
{
    const __m512i none = _mm512_setzero_si512();
    simplex_skew512 sk[4];
    simplex_hash512 hh[2];
#pragma GCC unroll 2
    for (int k = 0; k < halves / 2; k++)
        ok[k] &= simplex_in_range_avx512(px[2 * k], px[2 * k + 1]) &&
                 simplex_in_range_avx512(py[2 * k], py[2 * k + 1]);
#pragma GCC unroll 4
    for (int h = 0; h < halves; h++)
        simplex_skew_avx512(px[h], py[h], &sk[h]);
#pragma GCC unroll 2
    for (int k = 0; k < halves / 2; k++)
        simplex_hash_avx512(seeds, &sk[2 * k], &sk[2 * k + 1], &hh[k]);
#pragma GCC unroll 4
    for (int h = 0; h < halves; h++)
        v[h] = deriv ? simplex_finish_deriv_avx512(&sk[h], &hh[h / 2], h % 2, &gx[h], &gy[h])
                     : simplex_finish_avx512(&sk[h], &hh[h / 2], h % 2, NULL, none);
}
#endif

#endif
