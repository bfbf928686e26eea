/*
 * More base noises (docs/noise.md): Perlin's improved noise,
 * exponential-gradient Perlin, zero-gradient D2M1N3 polynomial, value and
 * cellular noise, each with analytic partial derivatives. Private to the
 * runtime; every function is exactly reproducible (plain IEEE double
 * arithmetic in the documented order; the only libm calls, floor, sqrt and
 * fmin, are exact).
 *
 * Common contract: a coordinate that is not finite or has |c| >= 2^52 gives
 * NaN (and NaN derivatives). The `_deriv` variants return the same value as
 * the plain function, bit for bit, and store d/dx and d/dy (either pointer
 * may be NULL).
 */
#ifndef TF_RUNTIME_NOISE_KINDS_H
#define TF_RUNTIME_NOISE_KINDS_H

#include <math.h>
#include <stddef.h>
#include <stdint.h>

#include "internal.h" /* TF_HAVE_AVX2_PATH */

/* "perlin": Perlin 2002 improved noise, 3D. Seed 0 is Perlin's reference
 * (his permutation, equal to the Java ImprovedNoise bit for bit for
 * |c| < 2^31); another seed translates the lattice by a hashed offset before
 * the table lookup. Range: docs/noise.md. */
double tf_perlin_improved3(uint32_t seed, double x, double y, double z);
double tf_perlin_improved3_deriv(uint32_t seed, double x, double y, double z, double *dx,
                                 double *dy);

/* "exponential-perlin": Parberry 2015, Perlin gradient noise whose gradient
 * magnitudes are mu^-i, i a uniform hashed byte, mu = 1.02; 3D. */
double tf_exp_perlin3(uint32_t seed, double x, double y, double z);
double tf_exp_perlin3_deriv(uint32_t seed, double x, double y, double z, double *dx, double *dy);

/* "polynomial": Thorimbert & Chopard zero-gradient D2M1N3 (eq. 19), 2D. */
double tf_polynomial2(uint32_t seed, double x, double y);
double tf_polynomial2_deriv(uint32_t seed, double x, double y, double *dx, double *dy);

/* "value": bilinear interpolation of hashed lattice values with Perlin's
 * quintic fade, 2D, in [-1, 1). */
double tf_value2(uint32_t seed, double x, double y);
double tf_value2_deriv(uint32_t seed, double x, double y, double *dx, double *dy);

/* "cellular": Worley 1996, one feature point per unit cell, Euclidean
 * distance to the nearest (F1) and second nearest (F2) point, 2D. The
 * derivative of F1 (F2) is the unit vector from that feature point to (x, y);
 * it is undefined on the cell edges of the Voronoi diagram (where two points
 * tie) and at the feature points, where the value is only C0 (see docs). */
double tf_cellular_f1(uint32_t seed, double x, double y);
double tf_cellular_f2(uint32_t seed, double x, double y);
double tf_cellular_f2_f1(uint32_t seed, double x, double y);
double tf_cellular_f1_deriv(uint32_t seed, double x, double y, double *dx, double *dy);
double tf_cellular_f2_deriv(uint32_t seed, double x, double y, double *dx, double *dy);
double tf_cellular_f2_f1_deriv(uint32_t seed, double x, double y, double *dx, double *dy);

/* Gradient magnitudes of exponential-perlin, mu^-i (i < 256), as a literal
 * table (exposed for the tests). */
extern const double tf_exp_perlin_magnitude[256];

/* ---- shared helpers (internal, inlined) ---- */

/* Each kind's evaluator is written once with optional derivative outputs and
 * must be inlined into both entry points, so that the plain one carries no
 * derivative arithmetic (GCC would otherwise share an outlined copy). */
#if defined(__GNUC__)
#define NK_INLINE static inline __attribute__((always_inline))
#else
#define NK_INLINE static inline
#endif

/* |c| < 2^52 and finite: floor and c - floor(c) are then exact. */
static inline int nk_coord_ok(double c)
{
    return c > -4503599627370496.0 && c < 4503599627370496.0;
}

/* Splits c into its lattice cell (floor, two's complement modulo 2^32) and the
 * exact fraction in [0, 1). */
static inline uint32_t nk_split(double c, double *frac)
{
    double f = floor(c);
    *frac = c - f;
    return (uint32_t)(uint64_t)(int64_t)f;
}

/* The lattice hash of docs/noise.md ("Hash"): a lowbias32-style finalizer.
 * hash(seed, i, j[, k]) = H(H(H(H(0, seed), i), j), k) with
 * H(h, c) = mix((h ^ c) + 0x9e3779b9) (all uint32 arithmetic mod 2^32). */
static inline uint32_t nk_mix(uint32_t h)
{
    h ^= h >> 16;
    h *= 0x21f0aaadu;
    h ^= h >> 15;
    h *= 0x735a2d97u;
    h ^= h >> 15;
    return h;
}

static inline uint32_t nk_hash(uint32_t h, uint32_t c)
{
    return nk_mix((h ^ c) + 0x9e3779b9u);
}

/* NaN value and derivatives, for a coordinate outside the domain. */
static inline double nk_nan(double *dx, double *dy)
{
    if (dx)
        *dx = NAN;
    if (dy)
        *dy = NAN;
    return NAN;
}

/* The hashed corner values of cell (X, Y), in [-1, 1): v[0] = (X, Y),
 * v[1] = (X+1, Y), v[2] = (X, Y+1), v[3] = (X+1, Y+1); each is
 * (hash(seed, i, j) >> 8) * 2^-23 - 1. */
static inline void nk_corners2(uint32_t seed, uint32_t X, uint32_t Y, double v[4])
{
    uint32_t hs = nk_hash(0, seed), h0 = nk_hash(hs, X), h1 = nk_hash(hs, X + 1);
    const uint32_t h[4] = {nk_hash(h0, Y), nk_hash(h1, Y), nk_hash(h0, Y + 1), nk_hash(h1, Y + 1)};
    for (int k = 0; k < 4; k++)
        v[k] = (double)(h[k] >> 8) * 0x1p-23 - 1.0;
}

/* Perlin 2002 grad() for h = hash & 15 as a table row: his u is
 * coordinate `u` (0 x, 1 y, 2 z), his v coordinate `v`, their signs su and
 * sv, and the direction's x and y components gx, gy (for the analytic
 * derivative). */
typedef struct {
    uint8_t u, v;
    double su, sv, gx, gy;
} nk_grad3_row;

static const nk_grad3_row NK_GRAD3[16] = {
    {0, 1, 1.0, 1.0, 1.0, 1.0},    {0, 1, -1.0, 1.0, -1.0, 1.0},  {0, 1, 1.0, -1.0, 1.0, -1.0},
    {0, 1, -1.0, -1.0, -1.0, -1.0}, {0, 2, 1.0, 1.0, 1.0, 0.0},    {0, 2, -1.0, 1.0, -1.0, 0.0},
    {0, 2, 1.0, -1.0, 1.0, 0.0},    {0, 2, -1.0, -1.0, -1.0, 0.0}, {1, 2, 1.0, 1.0, 0.0, 1.0},
    {1, 2, -1.0, 1.0, 0.0, -1.0},   {1, 2, 1.0, -1.0, 0.0, 1.0},   {1, 2, -1.0, -1.0, 0.0, -1.0},
    {1, 0, 1.0, 1.0, 1.0, 1.0},     {1, 2, -1.0, 1.0, 0.0, -1.0},  {1, 0, 1.0, -1.0, -1.0, 1.0},
    {1, 2, -1.0, -1.0, 0.0, -1.0},
};

#if TF_HAVE_AVX2_PATH
#include <immintrin.h>

#define NK_AVX2_INLINE static inline __attribute__((target("avx2"), always_inline))

/* nk_mix and nk_hash on four 32-bit lanes. */
NK_AVX2_INLINE __m128i nk_hash_avx2(__m128i h, __m128i c)
{
    h = _mm_add_epi32(_mm_xor_si128(h, c), _mm_set1_epi32((int)0x9e3779b9u));
    h = _mm_xor_si128(h, _mm_srli_epi32(h, 16));
    h = _mm_mullo_epi32(h, _mm_set1_epi32((int)0x21f0aaadu));
    h = _mm_xor_si128(h, _mm_srli_epi32(h, 15));
    h = _mm_mullo_epi32(h, _mm_set1_epi32((int)0x735a2d97u));
    return _mm_xor_si128(h, _mm_srli_epi32(h, 15));
}

/* (double)(h >> 8) * 2^-23 - 1.0 of four lanes (h >> 8 < 2^24: exact). */
NK_AVX2_INLINE __m256d nk_corner_value_avx2(__m128i h)
{
    __m256d v = _mm256_cvtepi32_pd(_mm_srli_epi32(h, 8));
    return _mm256_sub_pd(_mm256_mul_pd(v, _mm256_set1_pd(0x1p-23)), _mm256_set1_pd(1.0));
}

/* nk_split of four lanes, |x| < 2^51 (then floor(x) + 1.5 * 2^52 holds
 * the cell's low 32 bits, two's complement, in its low mantissa bits): the
 * exact fractions into *frac, the cells as four 32-bit lanes in lane
 * order. */
NK_AVX2_INLINE __m128i nk_split_avx2(__m256d x, __m256d *frac)
{
    __m256d f = _mm256_floor_pd(x);
    *frac = _mm256_sub_pd(x, f);
    __m256i bits = _mm256_castpd_si256(_mm256_add_pd(f, _mm256_set1_pd(6755399441055744.0)));
    /* the low 32 bits of each 64-bit lane, in lane order */
    return _mm256_castsi256_si128(
        _mm256_permutevar8x32_epi32(bits, _mm256_setr_epi32(0, 2, 4, 6, 0, 2, 4, 6)));
}

/* nk_split and nk_corners2 for four points (x[k], y) of a row, |x| < 2^51:
 * the fractions and the corner values v[0..3] as nk_corners2 orders them;
 * Y is y's cell. */
NK_AVX2_INLINE void nk_corners2_avx2(uint32_t seed, __m256d x, uint32_t Y, __m256d *fx,
                                     __m256d v[4])
{
    __m128i X = nk_split_avx2(x, fx);
    __m128i hs = _mm_set1_epi32((int)nk_hash(0, seed));
    __m128i h0 = nk_hash_avx2(hs, X);
    __m128i h1 = nk_hash_avx2(hs, _mm_add_epi32(X, _mm_set1_epi32(1)));
    __m128i y0 = _mm_set1_epi32((int)Y), y1 = _mm_set1_epi32((int)(Y + 1u));
    v[0] = nk_corner_value_avx2(nk_hash_avx2(h0, y0));
    v[1] = nk_corner_value_avx2(nk_hash_avx2(h1, y0));
    v[2] = nk_corner_value_avx2(nk_hash_avx2(h0, y1));
    v[3] = nk_corner_value_avx2(nk_hash_avx2(h1, y1));
}

/* Lanes with |v| < 2^51, as a 4-bit mask (NaN: not). */
NK_AVX2_INLINE int nk_in_row_range_avx2(__m256d v)
{
    __m256d magnitude = _mm256_andnot_pd(_mm256_set1_pd(-0.0), v);
    return _mm256_movemask_pd(
        _mm256_cmp_pd(magnitude, _mm256_set1_pd(2251799813685248.0), _CMP_LT_OQ));
}

/* nk_fade5 of four lanes, in its order: t * t * t * (t * (t * 6 - 15) + 10). */
NK_AVX2_INLINE __m256d nk_fade5_avx2(__m256d t)
{
    __m256d inner = _mm256_sub_pd(_mm256_mul_pd(t, _mm256_set1_pd(6.0)), _mm256_set1_pd(15.0));
    inner = _mm256_add_pd(_mm256_mul_pd(t, inner), _mm256_set1_pd(10.0));
    return _mm256_mul_pd(_mm256_mul_pd(_mm256_mul_pd(t, t), t), inner);
}

/* The value of nk_grad3 of four lanes (the low four bits of each 32-bit
 * hash lane pick the direction): Perlin's u is x for h < 8, else y; his v
 * is y for h < 4, x for 12 and 14, else z (the NK_GRAD3 table); su is -1
 * for odd h and sv for bit 1 set. +-1 * c is c with its sign bit kept or
 * flipped, exactly, so a sign flip stands for the table's multiply. */
NK_AVX2_INLINE __m256d nk_grad3_avx2(__m128i hash, __m256d x, __m256d y, __m256d z)
{
    __m256i h = _mm256_cvtepu32_epi64(_mm_and_si128(hash, _mm_set1_epi32(15)));
    __m256d u = _mm256_blendv_pd(x, y, _mm256_castsi256_pd(_mm256_slli_epi64(h, 60)));
    __m256i v_is_y = _mm256_cmpeq_epi64(_mm256_and_si256(h, _mm256_set1_epi64x(12)),
                                        _mm256_setzero_si256());
    __m256i v_is_x = _mm256_cmpeq_epi64(_mm256_and_si256(h, _mm256_set1_epi64x(13)),
                                        _mm256_set1_epi64x(12));
    __m256d v = _mm256_blendv_pd(_mm256_blendv_pd(z, x, _mm256_castsi256_pd(v_is_x)), y,
                                 _mm256_castsi256_pd(v_is_y));
    __m256d su = _mm256_castsi256_pd(_mm256_slli_epi64(h, 63));
    __m256d sv = _mm256_castsi256_pd(_mm256_slli_epi64(_mm256_srli_epi64(h, 1), 63));
    return _mm256_add_pd(_mm256_xor_pd(u, su), _mm256_xor_pd(v, sv));
}

/* nk_corners2 of four points (x[k], y[k]) of their own, |x|, |y| < 2^51,
 * lane k's seed hashed in hs (nk_hash(0, seed)): the fractions and the
 * corner values in nk_corners2's order. */
NK_AVX2_INLINE void nk_corners2_points_avx2(__m128i hs, __m256d x, __m256d y, __m256d *fx,
                                            __m256d *fy, __m256d v[4])
{
    __m128i X = nk_split_avx2(x, fx), Y = nk_split_avx2(y, fy);
    __m128i h0 = nk_hash_avx2(hs, X);
    __m128i h1 = nk_hash_avx2(hs, _mm_add_epi32(X, _mm_set1_epi32(1)));
    __m128i y1 = _mm_add_epi32(Y, _mm_set1_epi32(1));
    v[0] = nk_corner_value_avx2(nk_hash_avx2(h0, Y));
    v[1] = nk_corner_value_avx2(nk_hash_avx2(h1, Y));
    v[2] = nk_corner_value_avx2(nk_hash_avx2(h0, y1));
    v[3] = nk_corner_value_avx2(nk_hash_avx2(h1, y1));
}

/* nk_dfade5 of four lanes, in its order: 30 * t * t * (t * (t - 2) + 1). */
NK_AVX2_INLINE __m256d nk_dfade5_avx2(__m256d t)
{
    __m256d inner =
        _mm256_add_pd(_mm256_mul_pd(t, _mm256_sub_pd(t, _mm256_set1_pd(2.0))), _mm256_set1_pd(1.0));
    return _mm256_mul_pd(_mm256_mul_pd(_mm256_mul_pd(_mm256_set1_pd(30.0), t), t), inner);
}

/* A 2D lattice noise's four-lane points kernel (value4_points_avx2,
 * polynomial4_points_avx2): the value at four points of their own, |x|,
 * |y| < 2^51, lane k's seed hashed in hs, with the gradient when gx is
 * not NULL (then gy too). */
typedef __m256d (*nk_points4_fn)(__m128i hs, __m256d x, __m256d y, __m256d *gx, __m256d *gy);

/* The noise's points call on the AVX2 path (swiss and jordan's warped
 * points): kernel at n points (x[k], y[k]), four a vector, with the
 * gradient when dx is not NULL (then dy too); a vector with a coordinate
 * of 2^51 or more (or not finite) and the last 1-3 points take the scalar
 * function. kernel and scalar are constants where this is inlined. */
NK_AVX2_INLINE void nk_points2_avx2(nk_points4_fn kernel, tf_noise2_deriv_fn scalar, uint32_t seed,
                                    const double *x, const double *y, size_t n, double *out,
                                    double *dx, double *dy)
{
    const __m128i hs = _mm_set1_epi32((int)nk_hash(0, seed));
    size_t m = 0;
    for (; m + 4 <= n; m += 4) {
        __m256d px = _mm256_loadu_pd(x + m), py = _mm256_loadu_pd(y + m);
        if ((nk_in_row_range_avx2(px) & nk_in_row_range_avx2(py)) != 0xF) {
            for (size_t k = m; k < m + 4; k++)
                out[k] = scalar(seed, x[k], y[k], dx ? dx + k : NULL, dx ? dy + k : NULL);
            continue;
        }
        if (dx) {
            __m256d gx, gy;
            _mm256_storeu_pd(out + m, kernel(hs, px, py, &gx, &gy));
            _mm256_storeu_pd(dx + m, gx);
            _mm256_storeu_pd(dy + m, gy);
        } else {
            _mm256_storeu_pd(out + m, kernel(hs, px, py, NULL, NULL));
        }
    }
    for (; m < n; m++)
        out[m] = scalar(seed, x[m], y[m], dx ? dx + m : NULL, dx ? dy + m : NULL);
}

/* Perlin's lerp a + t * (b - a) of four lanes. */
NK_AVX2_INLINE __m256d nk_lerp_avx2(__m256d t, __m256d a, __m256d b)
{
    return _mm256_add_pd(a, _mm256_mul_pd(t, _mm256_sub_pd(b, a)));
}

/* nk_blend3's value of four lanes, in its nesting. */
NK_AVX2_INLINE __m256d nk_blend3_avx2(const __m256d c[8], __m256d u, __m256d v, __m256d w)
{
    return nk_lerp_avx2(
        w, nk_lerp_avx2(v, nk_lerp_avx2(u, c[0], c[1]), nk_lerp_avx2(u, c[2], c[3])),
        nk_lerp_avx2(v, nk_lerp_avx2(u, c[4], c[5]), nk_lerp_avx2(u, c[6], c[7])));
}
#endif

#if TF_HAVE_AVX512_PATH
/* The same helpers on eight lanes (the AVX-512 path's features: AVX-512F
 * and DQ, on a CPU that also has AVX2): the hashes on eight 32-bit lanes
 * of a 256-bit vector, the doubles in a 512-bit one. */
#define NK_AVX512_TARGET "avx512f,avx512dq,avx2"
#define NK_AVX512_INLINE static inline __attribute__((target(NK_AVX512_TARGET), always_inline))

NK_AVX512_INLINE __m256i nk_hash_avx512(__m256i h, __m256i c)
{
    h = _mm256_add_epi32(_mm256_xor_si256(h, c), _mm256_set1_epi32((int)0x9e3779b9u));
    h = _mm256_xor_si256(h, _mm256_srli_epi32(h, 16));
    h = _mm256_mullo_epi32(h, _mm256_set1_epi32((int)0x21f0aaadu));
    h = _mm256_xor_si256(h, _mm256_srli_epi32(h, 15));
    h = _mm256_mullo_epi32(h, _mm256_set1_epi32((int)0x735a2d97u));
    return _mm256_xor_si256(h, _mm256_srli_epi32(h, 15));
}

/* nk_hash(0, seed) of eight lanes: the first step of every lattice hash. */
NK_AVX512_INLINE __m256i nk_seeds_avx512(__m256i seed)
{
    return nk_hash_avx512(_mm256_setzero_si256(), seed);
}

NK_AVX512_INLINE __m512d nk_corner_value_avx512(__m256i h)
{
    __m512d v = _mm512_cvtepi32_pd(_mm256_srli_epi32(h, 8));
    return _mm512_sub_pd(_mm512_mul_pd(v, _mm512_set1_pd(0x1p-23)), _mm512_set1_pd(1.0));
}

/* nk_split_avx2 of eight lanes, |x| < 2^51: floor by rounding toward
 * minus infinity (exact), the cell's low 32 bits by truncating each 64-bit
 * lane of floor(x) + 1.5 * 2^52 (vpmovqd keeps the low half). */
NK_AVX512_INLINE __m256i nk_split_avx512(__m512d x, __m512d *frac)
{
    __m512d f = _mm512_roundscale_pd(x, _MM_FROUND_TO_NEG_INF | _MM_FROUND_NO_EXC);
    *frac = _mm512_sub_pd(x, f);
    __m512i bits = _mm512_castpd_si512(_mm512_add_pd(f, _mm512_set1_pd(6755399441055744.0)));
    return _mm512_cvtepi64_epi32(bits);
}

/* nk_corners2_avx2 of eight points (x[k], y) of a row. */
NK_AVX512_INLINE void nk_corners2_avx512(uint32_t seed, __m512d x, uint32_t Y, __m512d *fx,
                                         __m512d v[4])
{
    __m256i X = nk_split_avx512(x, fx);
    __m256i hs = _mm256_set1_epi32((int)nk_hash(0, seed));
    __m256i h0 = nk_hash_avx512(hs, X);
    __m256i h1 = nk_hash_avx512(hs, _mm256_add_epi32(X, _mm256_set1_epi32(1)));
    __m256i y0 = _mm256_set1_epi32((int)Y), y1 = _mm256_set1_epi32((int)(Y + 1u));
    v[0] = nk_corner_value_avx512(nk_hash_avx512(h0, y0));
    v[1] = nk_corner_value_avx512(nk_hash_avx512(h1, y0));
    v[2] = nk_corner_value_avx512(nk_hash_avx512(h0, y1));
    v[3] = nk_corner_value_avx512(nk_hash_avx512(h1, y1));
}

/* nk_corners2 of eight points (x[k], y[k]) of their own, |x|, |y| < 2^51,
 * lane k's seed hashed in hs (nk_hash(0, seed), nk_seeds_avx512): the
 * fractions and the corner values in nk_corners2's order. */
NK_AVX512_INLINE void nk_corners2_points_avx512(__m256i hs, __m512d x, __m512d y, __m512d *fx,
                                                __m512d *fy, __m512d v[4])
{
    __m256i X = nk_split_avx512(x, fx), Y = nk_split_avx512(y, fy);
    __m256i h0 = nk_hash_avx512(hs, X);
    __m256i h1 = nk_hash_avx512(hs, _mm256_add_epi32(X, _mm256_set1_epi32(1)));
    __m256i y1 = _mm256_add_epi32(Y, _mm256_set1_epi32(1));
    v[0] = nk_corner_value_avx512(nk_hash_avx512(h0, Y));
    v[1] = nk_corner_value_avx512(nk_hash_avx512(h1, Y));
    v[2] = nk_corner_value_avx512(nk_hash_avx512(h0, y1));
    v[3] = nk_corner_value_avx512(nk_hash_avx512(h1, y1));
}

/* nk_dfade5 of eight lanes, in its order: 30 * t * t * (t * (t - 2) + 1). */
NK_AVX512_INLINE __m512d nk_dfade5_avx512(__m512d t)
{
    __m512d inner = _mm512_add_pd(_mm512_mul_pd(t, _mm512_sub_pd(t, _mm512_set1_pd(2.0))),
                                  _mm512_set1_pd(1.0));
    return _mm512_mul_pd(_mm512_mul_pd(_mm512_mul_pd(_mm512_set1_pd(30.0), t), t), inner);
}

/* Lanes with |v| < 2^51, as an 8-bit mask (NaN: not). */
NK_AVX512_INLINE __mmask8 nk_in_row_range_avx512(__m512d v)
{
    return _mm512_cmp_pd_mask(_mm512_abs_pd(v), _mm512_set1_pd(2251799813685248.0), _CMP_LT_OQ);
}

/* A 2D lattice noise's eight-lane points kernel (value8_points_avx512,
 * polynomial8_points_avx512): the value at eight points of their own,
 * |x|, |y| < 2^51, lane k's seed hashed in hs, with the gradient when gx
 * is not NULL (then gy too); and the noise's scalar function with its
 * gradient (which takes NULL for none, the same value's bits). */
typedef __m512d (*nk_points8_fn)(__m256i hs, __m512d x, __m512d y, __m512d *gx, __m512d *gy);

/* The noise's points call (swiss and jordan's warped points): kernel at
 * n points (x[k], y[k]), eight a vector, with the gradient when dx is not
 * NULL (then dy too); a vector with a coordinate of 2^51 or more (or not
 * finite) and the last 1-7 points take the scalar function. kernel and
 * scalar are constants where this is inlined, so both inline in turn. */
NK_AVX512_INLINE void nk_points2_avx512(nk_points8_fn kernel, tf_noise2_deriv_fn scalar,
                                        uint32_t seed, const double *x, const double *y, size_t n,
                                        double *out, double *dx, double *dy)
{
    const __m256i hs = _mm256_set1_epi32((int)nk_hash(0, seed));
    size_t m = 0;
    for (; m + 8 <= n; m += 8) {
        __m512d px = _mm512_loadu_pd(x + m), py = _mm512_loadu_pd(y + m);
        if ((nk_in_row_range_avx512(px) & nk_in_row_range_avx512(py)) != 0xFF) {
            for (size_t k = m; k < m + 8; k++)
                out[k] = scalar(seed, x[k], y[k], dx ? dx + k : NULL, dx ? dy + k : NULL);
            continue;
        }
        if (dx) {
            __m512d gx, gy;
            _mm512_storeu_pd(out + m, kernel(hs, px, py, &gx, &gy));
            _mm512_storeu_pd(dx + m, gx);
            _mm512_storeu_pd(dy + m, gy);
        } else {
            _mm512_storeu_pd(out + m, kernel(hs, px, py, NULL, NULL));
        }
    }
    for (; m < n; m++)
        out[m] = scalar(seed, x[m], y[m], dx ? dx + m : NULL, dx ? dy + m : NULL);
}

/* The noise at eight points (x[k], y[k]) with seeds seed[k], |x|, |y| <
 * 2^51: a single sample's lanes (tf_noise_lanes). */
NK_AVX512_INLINE void nk_seeds8_2d_avx512(nk_points8_fn kernel, const uint32_t *seed,
                                          const double *x, const double *y, double *out)
{
    __m256i hs = nk_seeds_avx512(_mm256_loadu_si256((const __m256i *)(const void *)seed));
    _mm512_storeu_pd(out, kernel(hs, _mm512_loadu_pd(x), _mm512_loadu_pd(y), NULL, NULL));
}

NK_AVX512_INLINE __m512d nk_fade5_avx512(__m512d t)
{
    __m512d inner = _mm512_sub_pd(_mm512_mul_pd(t, _mm512_set1_pd(6.0)), _mm512_set1_pd(15.0));
    inner = _mm512_add_pd(_mm512_mul_pd(t, inner), _mm512_set1_pd(10.0));
    return _mm512_mul_pd(_mm512_mul_pd(_mm512_mul_pd(t, t), t), inner);
}

/* A 3D lattice noise's eight-lane points kernel at the plane z
 * (perlin8_points_avx512, exp_perlin8_points_avx512): lane k's lattice
 * constants a and b (each noise's own: seed offsets, or a seed's hash and
 * nothing), z's cell Z (with any offset), fraction fz and fade w; its
 * plane: those constants of one seed at z, a finite z of |z| < 2^51; and
 * the noise's scalar function with its gradient. */
typedef __m512d (*nk_points8z_fn)(__m256i a, __m256i b, __m256i Z, __m512d fz, __m512d w,
                                  __m512d x, __m512d y, __m512d *gx, __m512d *gy);
typedef void (*nk_plane_fn)(uint32_t seed, double z, __m256i *a, __m256i *b, __m256i *Z,
                            double *fz);
typedef double (*nk_deriv3_fn)(uint32_t seed, double x, double y, double z, double *dx,
                               double *dy);

/* nk_points2_avx512 of a 3D noise at the plane z: a z out of range, a
 * vector with a coordinate out of range and the last 1-7 points take the
 * scalar function. */
NK_AVX512_INLINE void nk_points3_avx512(nk_plane_fn plane, nk_points8z_fn kernel,
                                        nk_deriv3_fn scalar, uint32_t seed, const double *x,
                                        const double *y, double z, size_t n, double *out,
                                        double *dx, double *dy)
{
    size_t m = 0;
    if (nk_coord_ok(z)) {
        __m256i a, b, vZ;
        double fz;
        plane(seed, z, &a, &b, &vZ, &fz);
        const __m512d vfz = _mm512_set1_pd(fz), w = nk_fade5_avx512(vfz);
        for (; m + 8 <= n; m += 8) {
            __m512d px = _mm512_loadu_pd(x + m), py = _mm512_loadu_pd(y + m);
            if ((nk_in_row_range_avx512(px) & nk_in_row_range_avx512(py)) != 0xFF) {
                for (size_t k = m; k < m + 8; k++)
                    out[k] = scalar(seed, x[k], y[k], z, dx ? dx + k : NULL, dx ? dy + k : NULL);
                continue;
            }
            if (dx) {
                __m512d gx, gy;
                _mm512_storeu_pd(out + m, kernel(a, b, vZ, vfz, w, px, py, &gx, &gy));
                _mm512_storeu_pd(dx + m, gx);
                _mm512_storeu_pd(dy + m, gy);
            } else {
                _mm512_storeu_pd(out + m, kernel(a, b, vZ, vfz, w, px, py, NULL, NULL));
            }
        }
    }
    for (; m < n; m++)
        out[m] = scalar(seed, x[m], y[m], z, dx ? dx + m : NULL, dx ? dy + m : NULL);
}

/* nk_grad3_avx2 of eight lanes: the table's picks as mask blends, its
 * multiplies by +-1 as sign flips. */
NK_AVX512_INLINE __m512d nk_grad3_avx512(__m256i hash, __m512d x, __m512d y, __m512d z)
{
    __m512i h = _mm512_cvtepu32_epi64(_mm256_and_si256(hash, _mm256_set1_epi32(15)));
    __m512d u = _mm512_mask_blend_pd(_mm512_test_epi64_mask(h, _mm512_set1_epi64(8)), x, y);
    __mmask8 v_is_y = _mm512_testn_epi64_mask(h, _mm512_set1_epi64(12));
    __mmask8 v_is_x = _mm512_cmpeq_epi64_mask(_mm512_and_si512(h, _mm512_set1_epi64(13)),
                                              _mm512_set1_epi64(12));
    __m512d v = _mm512_mask_blend_pd(v_is_y, _mm512_mask_blend_pd(v_is_x, z, x), y);
    __m512d su = _mm512_castsi512_pd(_mm512_slli_epi64(h, 63));
    __m512d sv = _mm512_castsi512_pd(_mm512_slli_epi64(_mm512_srli_epi64(h, 1), 63));
    return _mm512_add_pd(_mm512_xor_pd(u, su), _mm512_xor_pd(v, sv));
}

NK_AVX512_INLINE __m512d nk_lerp_avx512(__m512d t, __m512d a, __m512d b)
{
    return _mm512_add_pd(a, _mm512_mul_pd(t, _mm512_sub_pd(b, a)));
}

NK_AVX512_INLINE __m512d nk_blend3_avx512(const __m512d c[8], __m512d u, __m512d v, __m512d w)
{
    return nk_lerp_avx512(
        w, nk_lerp_avx512(v, nk_lerp_avx512(u, c[0], c[1]), nk_lerp_avx512(u, c[2], c[3])),
        nk_lerp_avx512(v, nk_lerp_avx512(u, c[4], c[5]), nk_lerp_avx512(u, c[6], c[7])));
}

/* Rows first .. first + 7 of NK_GRAD3's gx (y 0) or gy (y 1) column
 * (constants once compiled: the table is static const). */
NK_AVX512_INLINE __m512d nk_grad3_column_avx512(int first, int y)
{
    const nk_grad3_row *r = NK_GRAD3 + first;
#define NK_G(k) (y ? r[k].gy : r[k].gx)
    return _mm512_setr_pd(NK_G(0), NK_G(1), NK_G(2), NK_G(3), NK_G(4), NK_G(5), NK_G(6), NK_G(7));
#undef NK_G
}

/* The x and y components of nk_grad3's direction for eight hashes (the
 * table's gx and gy columns, picked by h & 15 from two vectors of eight). */
NK_AVX512_INLINE void nk_grad3_dir_avx512(__m256i hash, __m512d *gx, __m512d *gy)
{
    __m512i h = _mm512_cvtepu32_epi64(_mm256_and_si256(hash, _mm256_set1_epi32(15)));
    *gx = _mm512_permutex2var_pd(nk_grad3_column_avx512(0, 0), h, nk_grad3_column_avx512(8, 0));
    *gy = _mm512_permutex2var_pd(nk_grad3_column_avx512(0, 1), h, nk_grad3_column_avx512(8, 1));
}

/* nk_vd and nk_lerp_vd of eight lanes, every operation kept (a product
 * with a zero derivative too: it decides the sign of a zero). */
typedef struct {
    __m512d v, dx, dy;
} nk_vd8;

NK_AVX512_INLINE nk_vd8 nk_lerp_vd_avx512(__m512d t, __m512d tdx, __m512d tdy, nk_vd8 a, nk_vd8 b)
{
    nk_vd8 r;
    __m512d d = _mm512_sub_pd(b.v, a.v);
    r.v = _mm512_add_pd(a.v, _mm512_mul_pd(t, d));
    r.dx = _mm512_add_pd(_mm512_add_pd(a.dx, _mm512_mul_pd(t, _mm512_sub_pd(b.dx, a.dx))),
                         _mm512_mul_pd(tdx, d));
    r.dy = _mm512_add_pd(_mm512_add_pd(a.dy, _mm512_mul_pd(t, _mm512_sub_pd(b.dy, a.dy))),
                         _mm512_mul_pd(tdy, d));
    return r;
}

/* nk_blend3 of eight lanes, in its nesting. */
NK_AVX512_INLINE __m512d nk_blend3_vd_avx512(const nk_vd8 c[8], __m512d u, __m512d du, __m512d v,
                                             __m512d dv, __m512d w, __m512d *dx, __m512d *dy)
{
    const __m512d zero = _mm512_setzero_pd();
    nk_vd8 r = nk_lerp_vd_avx512(
        w, zero, zero,
        nk_lerp_vd_avx512(v, zero, dv, nk_lerp_vd_avx512(u, du, zero, c[0], c[1]),
                          nk_lerp_vd_avx512(u, du, zero, c[2], c[3])),
        nk_lerp_vd_avx512(v, zero, dv, nk_lerp_vd_avx512(u, du, zero, c[4], c[5]),
                          nk_lerp_vd_avx512(u, du, zero, c[6], c[7])));
    *dx = r.dx;
    *dy = r.dy;
    return r.v;
}
#endif

/* Perlin's quintic fade 6t^5 - 15t^4 + 10t^3 in his evaluation order, and
 * its derivative 30t^2(t - 1)^2 written as 30*t*t*(t*(t - 2) + 1). */
static inline double nk_fade5(double t)
{
    return t * t * t * (t * (t * 6 - 15) + 10);
}

static inline double nk_dfade5(double t)
{
    return 30 * t * t * (t * (t - 2) + 1);
}


/* Perlin 2002 grad(): the dot product of one of 12 edge directions, chosen
 * by h & 15, with (x, y, z), in his order ((+-u) + (+-v)); gx and gy get
 * the direction's x and y components. Read from the table above rather
 * than his chain of conditions, which compiles to branches that mispredict
 * when points come in no order (2x slower than in grid order); +-1 * u is
 * exactly +-u, so the bits are his. */
NK_INLINE double nk_grad3(uint32_t hash, double x, double y, double z, double *gx, double *gy)
{
    const nk_grad3_row *row = &NK_GRAD3[hash & 15];
    const double c[3] = {x, y, z};
    *gx = row->gx;
    *gy = row->gy;
    return row->su * c[row->u] + row->sv * c[row->v];
}

/* A value with its partial derivatives, carried through the trilinear
 * blend: lerp(t, a, b) = a + t*(b - a) (Perlin's form) and its product-rule
 * derivative a' + t*(b' - a') + t'*(b - a). */
typedef struct {
    double v, dx, dy;
} nk_vd;

NK_INLINE nk_vd nk_lerp_vd(double t, double tdx, double tdy, nk_vd a, nk_vd b)
{
    nk_vd r;
    r.v = a.v + t * (b.v - a.v);
    r.dx = a.dx + t * (b.dx - a.dx) + tdx * (b.v - a.v);
    r.dy = a.dy + t * (b.dy - a.dy) + tdy * (b.v - a.v);
    return r;
}

/* Perlin's trilinear blend of the eight corner terms c[k] (corner
 * (k & 1, k >> 1 & 1, k >> 2 & 1)) in his nesting:
 * lerp(w, lerp(v, lerp(u, c0, c1), lerp(u, c2, c3)),
 *         lerp(v, lerp(u, c4, c5), lerp(u, c6, c7))),
 * u, v, w the fades of fx, fy, fz and du, dv the first two's derivatives. */
NK_INLINE double nk_blend3(const nk_vd c[8], double u, double du, double v, double dv, double w,
                           double *dx, double *dy)
{
    nk_vd r = nk_lerp_vd(w, 0, 0,
                         nk_lerp_vd(v, 0, dv, nk_lerp_vd(u, du, 0, c[0], c[1]),
                                    nk_lerp_vd(u, du, 0, c[2], c[3])),
                         nk_lerp_vd(v, 0, dv, nk_lerp_vd(u, du, 0, c[4], c[5]),
                                    nk_lerp_vd(u, du, 0, c[6], c[7])));
    if (dx)
        *dx = r.dx;
    if (dy)
        *dy = r.dy;
    return r.v;
}

#endif
