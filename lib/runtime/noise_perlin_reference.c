/*
 * "perlin-reference-simplex": Ken Perlin's reference simplex noise from the
 * SIGGRAPH 2001 course notes "Noise Hardware" (class Noise3), the base noise
 * of the thesis prototype (thesis Code fragment 2). A line-by-line port that
 * gives the Java code's exact doubles for every input: Java evaluates
 * left to right, so each K() call (which mutates A[]) is sequenced
 * explicitly; int arithmetic wraps as in Java; (int) casts saturate as in Java.
 * The Java class keeps its state in statics; here it lives on the stack, so
 * the function is thread-safe. tf_perlin_reference_simplex3_deriv adds the
 * analytic gradient (docs/noise.md) without touching the value's arithmetic.
 */
#include <math.h>
#include <stdint.h>

#include "noise.h"
#include "noise_kinds.h" /* the AVX2 helpers */

typedef struct {
    int32_t i, j, k; /* skewed cell */
    int32_t A[3];    /* corner walk, mutated by each K() */
    double u, v, w;  /* offset from the cell origin */
} noise3_state;

static const int32_t T[8] = {0x15, 0x38, 0x32, 0x2c, 0x0d, 0x13, 0x07, 0x2a};

/* Java's (int) of a double: NaN -> 0, saturating at the int range. */
static int32_t java_double_to_int(double d)
{
    if (d != d)
        return 0;
    if (d >= 2147483647.0)
        return INT32_MAX;
    if (d <= -2147483648.0)
        return INT32_MIN;
    return (int32_t)d;
}

/* Java int addition: wraps modulo 2^32. */
static int32_t java_add(int32_t a, int32_t b)
{
    uint32_t sum = (uint32_t)a + (uint32_t)b;
    return sum <= (uint32_t)INT32_MAX ? (int32_t)sum : (int32_t)(sum - 2147483648u) + INT32_MIN;
}

/* b(N, B) = N >> B & 1: bit B of N (the same for >> and >>> when B < 31). */
static int32_t bit(int32_t n, int b)
{
    return (int32_t)(((uint32_t)n >> b) & 1u);
}

static int32_t b4(int32_t i, int32_t j, int32_t k, int b)
{
    return T[bit(i, b) << 2 | bit(j, b) << 1 | bit(k, b)];
}

static int32_t shuffle(int32_t i, int32_t j, int32_t k)
{
    return b4(i, j, k, 0) + b4(j, k, i, 1) + b4(k, i, j, 2) + b4(i, j, k, 3) + b4(j, k, i, 4) +
           b4(k, i, j, 5) + b4(i, j, k, 6) + b4(j, k, i, 7);
}

/* One corner: Noise3.K(a), which returns 8 t^4 L (t = .6 - |d|^2, L the
 * hash's signed sum of some of the offset's components) and advances A[a];
 * when gx is not NULL also the contribution's gradient. The corner offset
 * d = (u - A0 + s, ...) moves one for one with the sample point (u = x - i
 * + (i+j+k)/6 with i, j, k fixed inside a cell), so with c = dL/dd (each
 * component -1, 0 or +1), t1 = t, t2 = t1*t1, w = (8*t2)*t2 (the value's
 * factor) and k = (64*(t2*t1))*L: grad = w*c - k*d (d/dd of 8 t^4 L, with
 * dt/dd = -2d). */
static inline double K(noise3_state *st, int a, double *gx, double *gy)
{
    double s = (double)(st->A[0] + st->A[1] + st->A[2]) / 6.;
    double x = st->u - st->A[0] + s, y = st->v - st->A[1] + s, z = st->w - st->A[2] + s;
    double t = .6 - x * x - y * y - z * z;
    int32_t h = shuffle(java_add(st->i, st->A[0]), java_add(st->j, st->A[1]),
                        java_add(st->k, st->A[2]));
    st->A[a]++;
    if (t < 0) {
        if (gx)
            *gx = *gy = 0.0;
        return 0;
    }
    int32_t b5 = h >> 5 & 1, b4_ = h >> 4 & 1, b3 = h >> 3 & 1, b2 = h >> 2 & 1, b = h & 3;
    double p = b == 1 ? x : b == 2 ? y : z;
    double q = b == 1 ? y : b == 2 ? z : x;
    double r = b == 1 ? z : b == 2 ? x : y;
    p = (b5 == b3 ? -p : p);
    q = (b5 == b4_ ? -q : q);
    r = (b5 != (b4_ ^ b3) ? -r : r);
    double L = p + (b == 0 ? q + r : b2 == 0 ? q : r);
    double t1 = t;
    t *= t; /* t2 from here on */
    if (gx) {
        /* c: the signs above, on the axes p, q, r were taken from; q and r
         * count only where the value adds them. */
        double c[3] = {0.0, 0.0, 0.0};
        int ap = b == 1 ? 0 : b == 2 ? 1 : 2;
        int aq = b == 1 ? 1 : b == 2 ? 2 : 0;
        int ar = b == 1 ? 2 : b == 2 ? 0 : 1;
        c[ap] = b5 == b3 ? -1.0 : 1.0;
        if (b == 0 || b2 == 0)
            c[aq] = b5 == b4_ ? -1.0 : 1.0;
        if (b == 0 || b2 != 0)
            c[ar] = b5 != (b4_ ^ b3) ? -1.0 : 1.0;
        double w = 8 * t * t, k = (64 * (t * t1)) * L;
        *gx = w * c[0] - k * x;
        *gy = w * c[1] - k * y;
    }
    return 8 * t * t * L;
}

/* tf_perlin_reference_simplex3, and its gradient when dndx is not NULL
 * (inlined into both entry points, so the value-only one carries no
 * derivative arithmetic). */
static inline double noise3_eval(double x, double y, double z, double *dndx, double *dndy)
{
    /* Not in the Java code: a NaN offset fails every comparison below, which
     * would pick the same corner for hi and lo and walk A[-1]; an infinite
     * one puts every corner out of reach and gives 0. Both break the
     * promise that non-finite coordinates give a non-finite value. Finite
     * inputs never take this branch, so their bits are the Java code's. */
    if (!(isfinite(x) && isfinite(y) && isfinite(z))) {
        if (dndx) {
            *dndx = NAN;
            *dndy = NAN;
        }
        return NAN;
    }
    noise3_state st;
    double s = (x + y + z) / 3;
    st.i = java_double_to_int(floor(x + s));
    st.j = java_double_to_int(floor(y + s));
    st.k = java_double_to_int(floor(z + s));
    s = (double)java_add(java_add(st.i, st.j), st.k) / 6.;
    st.u = x - st.i + s;
    st.v = y - st.j + s;
    st.w = z - st.k + s;
    st.A[0] = st.A[1] = st.A[2] = 0;
    int hi = st.u >= st.w ? st.u >= st.v ? 0 : 1 : st.v >= st.w ? 1 : 2;
    int lo = st.u < st.w ? st.u < st.v ? 0 : 1 : st.v < st.w ? 1 : 2;
    /* Java: K(hi) + K(3-hi-lo) + K(lo) + K(0), operands left to right; the
     * gradients are summed in the same order. */
    double g[4][2];
    int slope = dndx != NULL;
    double sum = K(&st, hi, slope ? &g[0][0] : NULL, &g[0][1]);
    sum += K(&st, 3 - hi - lo, slope ? &g[1][0] : NULL, &g[1][1]);
    sum += K(&st, lo, slope ? &g[2][0] : NULL, &g[2][1]);
    sum += K(&st, 0, slope ? &g[3][0] : NULL, &g[3][1]);
    if (slope) {
        *dndx = ((g[0][0] + g[1][0]) + g[2][0]) + g[3][0];
        *dndy = ((g[0][1] + g[1][1]) + g[2][1]) + g[3][1];
    }
    return sum;
}

double tf_perlin_reference_simplex3(double x, double y, double z)
{
    return noise3_eval(x, y, z, NULL, NULL);
}

double tf_perlin_reference_simplex3_deriv(double x, double y, double z, double *dndx,
                                          double *dndy)
{
    double gx, gy;
    double n = noise3_eval(x, y, z, &gx, &gy);
    if (dndx)
        *dndx = gx;
    if (dndy)
        *dndy = gy;
    return n;
}

#if TF_HAVE_AVX2_PATH
/* shuffle() of four lanes: bit B of the rotated (i, j, k) as an index into
 * T, the eight terms summed (int addition, so the order is free). */
NK_AVX2_INLINE __m128i refsimplex_shuffle_avx2(__m128i i, __m128i j, __m128i k)
{
    const __m256i table = _mm256_setr_epi32(T[0], T[1], T[2], T[3], T[4], T[5], T[6], T[7]);
    const __m128i one = _mm_set1_epi32(1);
    __m128i sum = _mm_setzero_si128();
    for (int b = 0; b < 8; b++) {
        /* b4(i, j, k, b), b4(j, k, i, b), b4(k, i, j, b) by b % 3 */
        __m128i p = b % 3 == 0 ? i : b % 3 == 1 ? j : k;
        __m128i q = b % 3 == 0 ? j : b % 3 == 1 ? k : i;
        __m128i r = b % 3 == 0 ? k : b % 3 == 1 ? i : j;
        __m128i index = _mm_or_si128(
            _mm_or_si128(_mm_slli_epi32(_mm_and_si128(p, one), 2),
                         _mm_slli_epi32(_mm_and_si128(q, one), 1)),
            _mm_and_si128(r, one));
        sum = _mm_add_epi32(sum, _mm256_castsi256_si128(_mm256_permutevar8x32_epi32(
                                     table, _mm256_castsi128_si256(index))));
        i = _mm_srli_epi32(i, 1); /* bit b + 1 next */
        j = _mm_srli_epi32(j, 1);
        k = _mm_srli_epi32(k, 1);
    }
    return sum;
}

/* K() of four lanes at the corner walk's offset (a0, a1, a2) (each 0.0 or
 * 1.0 by lane) with s = (a0 + a1 + a2) / 6, without the walk: the value
 * 8 t^4 L, or 0 where t < 0. The hash's bit tests become lane masks, the
 * negations sign flips (exact). */
NK_AVX2_INLINE __m256d refsimplex_corner_avx2(__m256d u, __m256d v, __m256d w, __m128i i,
                                              __m128i j, __m128i k, __m256d a0, __m256d a1,
                                              __m256d a2, double s)
{
    const __m256d vs = _mm256_set1_pd(s);
    __m256d x = _mm256_add_pd(_mm256_sub_pd(u, a0), vs);
    __m256d y = _mm256_add_pd(_mm256_sub_pd(v, a1), vs);
    __m256d z = _mm256_add_pd(_mm256_sub_pd(w, a2), vs);
    __m256d t = _mm256_sub_pd(
        _mm256_sub_pd(_mm256_sub_pd(_mm256_set1_pd(.6), _mm256_mul_pd(x, x)), _mm256_mul_pd(y, y)),
        _mm256_mul_pd(z, z));
    __m128i h32 = refsimplex_shuffle_avx2(_mm_add_epi32(i, _mm256_cvttpd_epi32(a0)),
                                          _mm_add_epi32(j, _mm256_cvttpd_epi32(a1)),
                                          _mm_add_epi32(k, _mm256_cvttpd_epi32(a2)));
    __m256i h = _mm256_cvtepu32_epi64(h32); /* a sum of T's entries: small, positive */
    const __m256i one = _mm256_set1_epi64x(1), three = _mm256_set1_epi64x(3);
    __m256i b = _mm256_and_si256(h, three);
    __m256d b_is_1 = _mm256_castsi256_pd(_mm256_cmpeq_epi64(b, one));
    __m256d b_is_2 = _mm256_castsi256_pd(_mm256_cmpeq_epi64(b, _mm256_set1_epi64x(2)));
    __m256d b_is_0 = _mm256_castsi256_pd(_mm256_cmpeq_epi64(b, _mm256_setzero_si256()));
    __m256d b2_is_0 = _mm256_castsi256_pd(
        _mm256_cmpeq_epi64(_mm256_and_si256(h, _mm256_set1_epi64x(4)), _mm256_setzero_si256()));
    __m256d p = _mm256_blendv_pd(_mm256_blendv_pd(z, y, b_is_2), x, b_is_1);
    __m256d q = _mm256_blendv_pd(_mm256_blendv_pd(x, z, b_is_2), y, b_is_1);
    __m256d r = _mm256_blendv_pd(_mm256_blendv_pd(y, x, b_is_2), z, b_is_1);
    /* -p where b5 == b3, -q where b5 == b4, -r where b5 != (b4 ^ b3):
     * the sign bit is bit 0 of b5 ^ b3 ^ 1, b5 ^ b4 ^ 1, b5 ^ b4 ^ b3 */
    __m256i b5 = _mm256_srli_epi64(h, 5), b4 = _mm256_srli_epi64(h, 4);
    __m256i b3 = _mm256_srli_epi64(h, 3);
    __m256i flip_p = _mm256_xor_si256(_mm256_xor_si256(b5, b3), one);
    __m256i flip_q = _mm256_xor_si256(_mm256_xor_si256(b5, b4), one);
    __m256i flip_r = _mm256_xor_si256(_mm256_xor_si256(b5, b4), b3);
    p = _mm256_xor_pd(p, _mm256_castsi256_pd(_mm256_slli_epi64(flip_p, 63)));
    q = _mm256_xor_pd(q, _mm256_castsi256_pd(_mm256_slli_epi64(flip_q, 63)));
    r = _mm256_xor_pd(r, _mm256_castsi256_pd(_mm256_slli_epi64(flip_r, 63)));
    /* L = p + (b == 0 ? q + r : b2 == 0 ? q : r) */
    __m256d L = _mm256_add_pd(
        p, _mm256_blendv_pd(_mm256_blendv_pd(r, q, b2_is_0), _mm256_add_pd(q, r), b_is_0));
    __m256d t2 = _mm256_mul_pd(t, t);
    __m256d value = _mm256_mul_pd(_mm256_mul_pd(_mm256_mul_pd(_mm256_set1_pd(8.0), t2), t2), L);
    /* t < 0: 0 (the int 0 as a double: +0.0) */
    return _mm256_andnot_pd(_mm256_cmp_pd(t, _mm256_setzero_pd(), _CMP_LT_OQ), value);
}

/* noise3_eval (no gradient) for four points (x[k], y, z) of a row with
 * y and z finite; 0 (and nothing in *out) when a lane's floor(x + s),
 * floor(y + s) or floor(z + s) is not within the int range (where Java's
 * cast saturates, or x is not finite), for the scalar code to do. Within
 * it the cast is exact and Java's wrapping int additions are the lanes'
 * own. The corner walk: K(hi) at (0, 0, 0), K(mid) at e_hi, K(lo) at
 * e_hi + e_mid = (1, 1, 1) - e_lo (hi, mid and lo differ unless u, v or w
 * is NaN, which finite input rules out), K(0) at (1, 1, 1). */
NK_AVX2_INLINE int refsimplex4_avx2(__m256d x, double y, double z, __m256d *out)
{
    const __m256d vy = _mm256_set1_pd(y), vz = _mm256_set1_pd(z);
    __m256d s = _mm256_div_pd(_mm256_add_pd(_mm256_add_pd(x, vy), vz), _mm256_set1_pd(3.0));
    __m256d fi = _mm256_floor_pd(_mm256_add_pd(x, s));
    __m256d fj = _mm256_floor_pd(_mm256_add_pd(vy, s));
    __m256d fk = _mm256_floor_pd(_mm256_add_pd(vz, s));
    const __m256d lowest = _mm256_set1_pd(-2147483648.0), highest = _mm256_set1_pd(2147483647.0);
    __m256d ok = _mm256_set1_pd(-0.0); /* sign bits set */
    const __m256d f[3] = {fi, fj, fk};
    for (int a = 0; a < 3; a++)
        ok = _mm256_and_pd(ok, _mm256_and_pd(_mm256_cmp_pd(f[a], lowest, _CMP_GE_OQ),
                                             _mm256_cmp_pd(f[a], highest, _CMP_LE_OQ)));
    if (_mm256_movemask_pd(ok) != 0xF)
        return 0;
    __m128i i = _mm256_cvtpd_epi32(fi), j = _mm256_cvtpd_epi32(fj), k = _mm256_cvtpd_epi32(fk);
    __m256d s6 = _mm256_div_pd(_mm256_cvtepi32_pd(_mm_add_epi32(_mm_add_epi32(i, j), k)),
                               _mm256_set1_pd(6.));
    /* x - i + s: i as the int's double (+0.0 where floor gave -0.0) */
    __m256d u = _mm256_add_pd(_mm256_sub_pd(x, _mm256_cvtepi32_pd(i)), s6);
    __m256d v = _mm256_add_pd(_mm256_sub_pd(vy, _mm256_cvtepi32_pd(j)), s6);
    __m256d w = _mm256_add_pd(_mm256_sub_pd(vz, _mm256_cvtepi32_pd(k)), s6);
    __m256d ge_uw = _mm256_cmp_pd(u, w, _CMP_GE_OQ), ge_uv = _mm256_cmp_pd(u, v, _CMP_GE_OQ);
    __m256d ge_vw = _mm256_cmp_pd(v, w, _CMP_GE_OQ);
    __m256d lt_uw = _mm256_cmp_pd(u, w, _CMP_LT_OQ), lt_uv = _mm256_cmp_pd(u, v, _CMP_LT_OQ);
    __m256d lt_vw = _mm256_cmp_pd(v, w, _CMP_LT_OQ);
    const __m256d one = _mm256_set1_pd(1.0), zero = _mm256_setzero_pd();
    const __m256d all = _mm256_castsi256_pd(_mm256_set1_epi64x(-1));
    /* hi = u >= w ? (u >= v ? 0 : 1) : (v >= w ? 1 : 2), as e_hi */
    __m256d hi0 = _mm256_and_pd(ge_uw, ge_uv);
    __m256d hi1 = _mm256_blendv_pd(ge_vw, _mm256_andnot_pd(ge_uv, ge_uw), ge_uw);
    __m256d hi2 = _mm256_andnot_pd(ge_uw, _mm256_andnot_pd(ge_vw, all));
    /* lo = u < w ? (u < v ? 0 : 1) : (v < w ? 1 : 2), as (1, 1, 1) - e_lo */
    __m256d lo0 = _mm256_and_pd(lt_uw, lt_uv);
    __m256d lo1 = _mm256_blendv_pd(lt_vw, _mm256_andnot_pd(lt_uv, lt_uw), lt_uw);
    __m256d lo2 = _mm256_andnot_pd(lt_uw, _mm256_andnot_pd(lt_vw, all));
    __m256d sum = refsimplex_corner_avx2(u, v, w, i, j, k, zero, zero, zero, (double)0 / 6.);
    sum = _mm256_add_pd(sum, refsimplex_corner_avx2(u, v, w, i, j, k, _mm256_and_pd(hi0, one),
                                                    _mm256_and_pd(hi1, one),
                                                    _mm256_and_pd(hi2, one), (double)1 / 6.));
    sum = _mm256_add_pd(sum, refsimplex_corner_avx2(u, v, w, i, j, k, _mm256_andnot_pd(lo0, one),
                                                    _mm256_andnot_pd(lo1, one),
                                                    _mm256_andnot_pd(lo2, one), (double)2 / 6.));
    sum = _mm256_add_pd(sum,
                        refsimplex_corner_avx2(u, v, w, i, j, k, one, one, one, (double)3 / 6.));
    *out = sum;
    return 1;
}

TF_AVX2_ROW void tf_perlin_reference_simplex3_row_avx2(const double *x, double y, double z,
                                                       size_t n, double *out)
{
    size_t m = 0;
    if (isfinite(y) && isfinite(z)) {
        for (; m + 4 <= n; m += 4) {
            __m256d value;
            if (refsimplex4_avx2(_mm256_loadu_pd(x + m), y, z, &value)) {
                _mm256_storeu_pd(out + m, value);
                continue;
            }
            for (size_t k = m; k < m + 4; k++)
                out[k] = tf_perlin_reference_simplex3(x[k], y, z);
        }
    }
    for (; m < n; m++) /* the last 1-3 points, or a row out of range */
        out[m] = tf_perlin_reference_simplex3(x[m], y, z);
}
#endif

#if TF_HAVE_AVX512_PATH
/* refsimplex_shuffle_avx2 of eight lanes. */
NK_AVX512_INLINE __m256i refsimplex_shuffle_avx512(__m256i i, __m256i j, __m256i k)
{
    const __m256i table = _mm256_setr_epi32(T[0], T[1], T[2], T[3], T[4], T[5], T[6], T[7]);
    const __m256i one = _mm256_set1_epi32(1);
    __m256i sum = _mm256_setzero_si256();
    for (int b = 0; b < 8; b++) {
        __m256i p = b % 3 == 0 ? i : b % 3 == 1 ? j : k;
        __m256i q = b % 3 == 0 ? j : b % 3 == 1 ? k : i;
        __m256i r = b % 3 == 0 ? k : b % 3 == 1 ? i : j;
        __m256i index = _mm256_or_si256(
            _mm256_or_si256(_mm256_slli_epi32(_mm256_and_si256(p, one), 2),
                            _mm256_slli_epi32(_mm256_and_si256(q, one), 1)),
            _mm256_and_si256(r, one));
        sum = _mm256_add_epi32(sum, _mm256_permutevar8x32_epi32(table, index));
        i = _mm256_srli_epi32(i, 1);
        j = _mm256_srli_epi32(j, 1);
        k = _mm256_srli_epi32(k, 1);
    }
    return sum;
}

/* refsimplex_corner_avx2 of eight lanes: the lane masks as mask
 * registers, the same operations in the same order. */
NK_AVX512_INLINE __m512d refsimplex_corner_avx512(__m512d u, __m512d v, __m512d w, __m256i i,
                                                  __m256i j, __m256i k, __m512d a0, __m512d a1,
                                                  __m512d a2, double s, __m512d *gx, __m512d *gy)
{
    const __m512d vs = _mm512_set1_pd(s);
    __m512d x = _mm512_add_pd(_mm512_sub_pd(u, a0), vs);
    __m512d y = _mm512_add_pd(_mm512_sub_pd(v, a1), vs);
    __m512d z = _mm512_add_pd(_mm512_sub_pd(w, a2), vs);
    __m512d t = _mm512_sub_pd(
        _mm512_sub_pd(_mm512_sub_pd(_mm512_set1_pd(.6), _mm512_mul_pd(x, x)), _mm512_mul_pd(y, y)),
        _mm512_mul_pd(z, z));
    __m256i h32 = refsimplex_shuffle_avx512(_mm256_add_epi32(i, _mm512_cvttpd_epi32(a0)),
                                            _mm256_add_epi32(j, _mm512_cvttpd_epi32(a1)),
                                            _mm256_add_epi32(k, _mm512_cvttpd_epi32(a2)));
    __m512i h = _mm512_cvtepu32_epi64(h32);
    const __m512i one = _mm512_set1_epi64(1), three = _mm512_set1_epi64(3);
    __m512i b = _mm512_and_si512(h, three);
    __mmask8 b_is_1 = _mm512_cmpeq_epi64_mask(b, one);
    __mmask8 b_is_2 = _mm512_cmpeq_epi64_mask(b, _mm512_set1_epi64(2));
    __mmask8 b_is_0 = _mm512_cmpeq_epi64_mask(b, _mm512_setzero_si512());
    __mmask8 b2_is_0 = _mm512_testn_epi64_mask(h, _mm512_set1_epi64(4));
    __m512d p = _mm512_mask_blend_pd(b_is_1, _mm512_mask_blend_pd(b_is_2, z, y), x);
    __m512d q = _mm512_mask_blend_pd(b_is_1, _mm512_mask_blend_pd(b_is_2, x, z), y);
    __m512d r = _mm512_mask_blend_pd(b_is_1, _mm512_mask_blend_pd(b_is_2, y, x), z);
    __m512i b5 = _mm512_srli_epi64(h, 5), b4 = _mm512_srli_epi64(h, 4);
    __m512i b3 = _mm512_srli_epi64(h, 3);
    __m512i flip_p = _mm512_xor_si512(_mm512_xor_si512(b5, b3), one);
    __m512i flip_q = _mm512_xor_si512(_mm512_xor_si512(b5, b4), one);
    __m512i flip_r = _mm512_xor_si512(_mm512_xor_si512(b5, b4), b3);
    p = _mm512_xor_pd(p, _mm512_castsi512_pd(_mm512_slli_epi64(flip_p, 63)));
    q = _mm512_xor_pd(q, _mm512_castsi512_pd(_mm512_slli_epi64(flip_q, 63)));
    r = _mm512_xor_pd(r, _mm512_castsi512_pd(_mm512_slli_epi64(flip_r, 63)));
    __m512d L = _mm512_add_pd(
        p, _mm512_mask_blend_pd(b_is_0, _mm512_mask_blend_pd(b2_is_0, r, q), _mm512_add_pd(q, r)));
    __m512d t2 = _mm512_mul_pd(t, t);
    __m512d w8 = _mm512_mul_pd(_mm512_mul_pd(_mm512_set1_pd(8.0), t2), t2);
    __m512d value = _mm512_mul_pd(w8, L);
    __mmask8 reach = (__mmask8)~_mm512_cmp_pd_mask(t, _mm512_setzero_pd(), _CMP_LT_OQ);
    if (gx) {
        /* K()'s gradient w c - k d: c's x and y components are the signs
         * of p, q or r where the value took that axis (+0 elsewhere), by
         * the axis each of p, q, r came from (b) and whether q or r
         * counts (b == 0, b2) */
        const __m512d unit = _mm512_set1_pd(1.0), none = _mm512_setzero_pd();
        __m512d sp = _mm512_xor_pd(unit, _mm512_castsi512_pd(_mm512_slli_epi64(flip_p, 63)));
        __m512d sq = _mm512_xor_pd(unit, _mm512_castsi512_pd(_mm512_slli_epi64(flip_q, 63)));
        __m512d sr = _mm512_xor_pd(unit, _mm512_castsi512_pd(_mm512_slli_epi64(flip_r, 63)));
        __mmask8 q_counts = b_is_0 | b2_is_0, r_counts = (__mmask8)(b_is_0 | ~b2_is_0);
        __m512d c0 = _mm512_mask_blend_pd(
            b_is_1,
            _mm512_mask_blend_pd(b_is_2, _mm512_mask_blend_pd(q_counts, none, sq),
                                 _mm512_mask_blend_pd(r_counts, none, sr)),
            sp);
        __m512d c1 = _mm512_mask_blend_pd(
            b_is_1,
            _mm512_mask_blend_pd(b_is_2, _mm512_mask_blend_pd(r_counts, none, sr), sp),
            _mm512_mask_blend_pd(q_counts, none, sq));
        __m512d kk = _mm512_mul_pd(_mm512_mul_pd(_mm512_set1_pd(64.0), _mm512_mul_pd(t2, t)), L);
        *gx = _mm512_maskz_mov_pd(reach,
                                  _mm512_sub_pd(_mm512_mul_pd(w8, c0), _mm512_mul_pd(kk, x)));
        *gy = _mm512_maskz_mov_pd(reach,
                                  _mm512_sub_pd(_mm512_mul_pd(w8, c1), _mm512_mul_pd(kk, y)));
    }
    /* t < 0: +0.0 */
    return _mm512_maskz_mov_pd(reach, value);
}

/* refsimplex4_avx2 of eight lanes, at points (x[k], y[k], z[k]); with gx
 * not NULL also the gradient (noise3_eval's, summed in its order). 0 when
 * a lane is out of the int range (or not finite): nothing is stored. */
NK_AVX512_INLINE int refsimplex8_avx512(__m512d x, __m512d vy, __m512d vz, __m512d *out,
                                        __m512d *gx, __m512d *gy)
{
    __m512d s = _mm512_div_pd(_mm512_add_pd(_mm512_add_pd(x, vy), vz), _mm512_set1_pd(3.0));
    /* (the rounding mode a literal: -O0 passes no variable as an immediate) */
    __m512d fi = _mm512_roundscale_pd(_mm512_add_pd(x, s), _MM_FROUND_TO_NEG_INF | _MM_FROUND_NO_EXC);
    __m512d fj = _mm512_roundscale_pd(_mm512_add_pd(vy, s), _MM_FROUND_TO_NEG_INF | _MM_FROUND_NO_EXC);
    __m512d fk = _mm512_roundscale_pd(_mm512_add_pd(vz, s), _MM_FROUND_TO_NEG_INF | _MM_FROUND_NO_EXC);
    const __m512d lowest = _mm512_set1_pd(-2147483648.0), highest = _mm512_set1_pd(2147483647.0);
    __mmask8 ok = 0xFF;
    const __m512d f[3] = {fi, fj, fk};
    for (int a = 0; a < 3; a++)
        ok &= (__mmask8)(_mm512_cmp_pd_mask(f[a], lowest, _CMP_GE_OQ) &
                         _mm512_cmp_pd_mask(f[a], highest, _CMP_LE_OQ));
    if (ok != 0xFF)
        return 0;
    __m256i i = _mm512_cvtpd_epi32(fi), j = _mm512_cvtpd_epi32(fj), k = _mm512_cvtpd_epi32(fk);
    __m512d s6 = _mm512_div_pd(_mm512_cvtepi32_pd(_mm256_add_epi32(_mm256_add_epi32(i, j), k)),
                               _mm512_set1_pd(6.));
    __m512d u = _mm512_add_pd(_mm512_sub_pd(x, _mm512_cvtepi32_pd(i)), s6);
    __m512d v = _mm512_add_pd(_mm512_sub_pd(vy, _mm512_cvtepi32_pd(j)), s6);
    __m512d w = _mm512_add_pd(_mm512_sub_pd(vz, _mm512_cvtepi32_pd(k)), s6);
    __mmask8 ge_uw = _mm512_cmp_pd_mask(u, w, _CMP_GE_OQ), ge_uv = _mm512_cmp_pd_mask(u, v, _CMP_GE_OQ);
    __mmask8 ge_vw = _mm512_cmp_pd_mask(v, w, _CMP_GE_OQ);
    __mmask8 lt_uw = _mm512_cmp_pd_mask(u, w, _CMP_LT_OQ), lt_uv = _mm512_cmp_pd_mask(u, v, _CMP_LT_OQ);
    __mmask8 lt_vw = _mm512_cmp_pd_mask(v, w, _CMP_LT_OQ);
    const __m512d one = _mm512_set1_pd(1.0), zero = _mm512_setzero_pd();
    /* e_hi and (1, 1, 1) - e_lo, as refsimplex4_avx2 */
    __mmask8 hi0 = ge_uw & ge_uv;
    __mmask8 hi1 = (__mmask8)((ge_uw & ~ge_uv) | (~ge_uw & ge_vw));
    __mmask8 hi2 = (__mmask8)(~ge_uw & ~ge_vw);
    __mmask8 lo0 = lt_uw & lt_uv;
    __mmask8 lo1 = (__mmask8)((lt_uw & ~lt_uv) | (~lt_uw & lt_vw));
    __mmask8 lo2 = (__mmask8)(~lt_uw & ~lt_vw);
    __m512d g[4][2];
    int deriv = gx != NULL;
    __m512d sum = refsimplex_corner_avx512(u, v, w, i, j, k, zero, zero, zero, (double)0 / 6.,
                                           deriv ? &g[0][0] : NULL, &g[0][1]);
    sum = _mm512_add_pd(sum, refsimplex_corner_avx512(u, v, w, i, j, k,
                                                      _mm512_maskz_mov_pd(hi0, one),
                                                      _mm512_maskz_mov_pd(hi1, one),
                                                      _mm512_maskz_mov_pd(hi2, one),
                                                      (double)1 / 6., deriv ? &g[1][0] : NULL,
                                                      &g[1][1]));
    sum = _mm512_add_pd(sum, refsimplex_corner_avx512(u, v, w, i, j, k,
                                                      _mm512_maskz_mov_pd((__mmask8)~lo0, one),
                                                      _mm512_maskz_mov_pd((__mmask8)~lo1, one),
                                                      _mm512_maskz_mov_pd((__mmask8)~lo2, one),
                                                      (double)2 / 6., deriv ? &g[2][0] : NULL,
                                                      &g[2][1]));
    sum = _mm512_add_pd(sum, refsimplex_corner_avx512(u, v, w, i, j, k, one, one, one,
                                                      (double)3 / 6., deriv ? &g[3][0] : NULL,
                                                      &g[3][1]));
    if (deriv) {
        *gx = _mm512_add_pd(_mm512_add_pd(_mm512_add_pd(g[0][0], g[1][0]), g[2][0]), g[3][0]);
        *gy = _mm512_add_pd(_mm512_add_pd(_mm512_add_pd(g[0][1], g[1][1]), g[2][1]), g[3][1]);
    }
    *out = sum;
    return 1;
}

__attribute__((target(NK_AVX512_TARGET))) void
tf_perlin_reference_simplex3_row_avx512(const double *x, double y, double z, size_t n,
                                        double *out)
{
    size_t m = 0;
    if (isfinite(y) && isfinite(z)) {
        for (; m + 8 <= n; m += 8) {
            __m512d value;
            if (refsimplex8_avx512(_mm512_loadu_pd(x + m), _mm512_set1_pd(y), _mm512_set1_pd(z),
                                   &value, NULL, NULL)) {
                _mm512_storeu_pd(out + m, value);
                continue;
            }
            for (size_t k = m; k < m + 8; k++)
                out[k] = tf_perlin_reference_simplex3(x[k], y, z);
        }
    }
    if (m < n) /* the last 1-7 points, or a row out of range */
        tf_perlin_reference_simplex3_row_avx2(x + m, y, z, n - m, out + m);
}
#endif

#if TF_HAVE_AVX512_PATH
/* noise3_eval at n points (x[k], y[k], z) of their own, eight a vector,
 * with the gradient when dx is not NULL (then dy too); a group with a
 * lane out of the int range (or not finite) and the last 1-7 points take
 * the scalar function. */
__attribute__((target(NK_AVX512_TARGET))) void
tf_perlin_reference_simplex3_points_deriv_avx512(const double *x, const double *y, double z,
                                                 size_t n, double *out, double *dx, double *dy)
{
    size_t m = 0;
    if (isfinite(z)) {
        const __m512d vz = _mm512_set1_pd(z);
        for (; m + 8 <= n; m += 8) {
            __m512d value, gx, gy;
            __m512d px = _mm512_loadu_pd(x + m), py = _mm512_loadu_pd(y + m);
            int ok = dx ? refsimplex8_avx512(px, py, vz, &value, &gx, &gy)
                        : refsimplex8_avx512(px, py, vz, &value, NULL, NULL);
            if (ok) {
                _mm512_storeu_pd(out + m, value);
                if (dx) {
                    _mm512_storeu_pd(dx + m, gx);
                    _mm512_storeu_pd(dy + m, gy);
                }
                continue;
            }
            for (size_t k = m; k < m + 8; k++)
                out[k] = dx ? tf_perlin_reference_simplex3_deriv(x[k], y[k], z, dx + k, dy + k)
                            : tf_perlin_reference_simplex3(x[k], y[k], z);
        }
    }
    for (; m < n; m++)
        out[m] = dx ? tf_perlin_reference_simplex3_deriv(x[m], y[m], z, dx + m, dy + m)
                    : tf_perlin_reference_simplex3(x[m], y[m], z);
}

/* tf_perlin_reference_simplex3(x[k], y[k], z[k]) for eight lanes (it has
 * no seed: seed is not read); a block with a lane out of the int range
 * takes the scalar function. */
__attribute__((target(NK_AVX512_TARGET))) void
tf_perlin_reference_simplex3_seeds8_avx512(const uint32_t *seed, const double *x, const double *y,
                                           const double *z, double *out)
{
    (void)seed;
    __m512d value;
    if (refsimplex8_avx512(_mm512_loadu_pd(x), _mm512_loadu_pd(y), _mm512_loadu_pd(z), &value,
                           NULL, NULL)) {
        _mm512_storeu_pd(out, value);
        return;
    }
    for (int k = 0; k < 8; k++)
        out[k] = tf_perlin_reference_simplex3(x[k], y[k], z[k]);
}
#endif
