/*
 * The batched evaluation of a lattice row (docs/performance.md): each layer
 * runs over a chunk of samples at once (coordinates, base noise, the rd
 * lookup, the mask, the sum), then the output curve, instead of all layers
 * per sample. The inner loops are branch-light: on the AVX2 path the
 * noise runs eight points a block and the curve lookups and element-wise
 * steps four lanes at a time, on the AVX-512 path sixteen points a block
 * and eight lanes. Every step does the IEEE operations of terrain.c's evaluate() in
 * the same order, so a sample has the same bits whichever way it is
 * computed.
 */
#include <math.h>

#include "bench.h"
#include "fractal.h"
#include "internal.h"
#include "noise.h"
#include "noise_kinds.h"

/* Samples per chunk: the per-layer buffers (and the saved rd values of
 * mask layers, up to TF_MAX_LAYERS of them) stay in L1. */
#define ROW_CHUNK 64

/* Run `call` and return when the terrain is on the AVX2 path (or a level
 * above, which runs the AVX2 routines it has none of its own for); else go
 * on to the portable loop that follows. */
#if TF_HAVE_AVX2_PATH
#define ON_AVX2(simd, call)                                                                  \
    do {                                                                                     \
        if ((simd) >= TF_SIMD_AVX2) {                                                        \
            call;                                                                            \
            return;                                                                          \
        }                                                                                    \
    } while (0)
#else
#define ON_AVX2(simd, call) (void)(simd)
#endif

/* The same for the AVX-512 path, tried first where a step has its own. */
#if TF_HAVE_AVX512_PATH
#define ON_AVX512(simd, call)                                                                \
    do {                                                                                     \
        if ((simd) == TF_SIMD_AVX512) {                                                      \
            call;                                                                            \
            return;                                                                          \
        }                                                                                    \
    } while (0)
#else
#define ON_AVX512(simd, call) (void)(simd)
#endif

static inline void fast_simplex_row(tf_simd_level simd, uint32_t seed, const double *x, double y,
                                    size_t n, double *out)
{
#if TF_HAVE_AVX512_PATH
    if (simd == TF_SIMD_AVX512) {
        tf_simplex2_row_avx512(seed, x, y, n, out);
        return;
    }
#endif
    ON_AVX2(simd, tf_simplex2_row_avx2(seed, x, y, n, out));
    tf_simplex2_row(seed, x, y, n, out);
}

static inline void fast_curve_row(tf_simd_level simd, const tf_curve_table *table,
                                  const double *u, size_t n, double *out)
{
    ON_AVX512(simd, tf_curve_table_eval_row_avx512(table, u, n, out));
    ON_AVX2(simd, tf_curve_table_eval_row_avx2(table, u, n, out));
    tf_curve_table_eval_row(table, u, n, out);
}

/* out[k] = rd(u) at u = (noise[k] + 1) * 0.5 (step 2) */
static inline void fast_unit_curve_row(tf_simd_level simd, const tf_curve_table *table,
                                       const double *noise, size_t n, double *out)
{
    ON_AVX512(simd, tf_curve_table_eval_unit_row_avx512(table, noise, n, out));
    ON_AVX2(simd, tf_curve_table_eval_unit_row_avx2(table, noise, n, out));
    for (size_t k = 0; k < n; k++)
        out[k] = (noise[k] + 1.0) * 0.5;
    tf_curve_table_eval_row(table, out, n, out);
}

void tf_noise_row(tf_simd_level simd, tf_noise_type type, uint32_t seed, const double *x,
                  double y, double z, size_t n, double *out)
{
    if (type == TF_NOISE_SIMPLEX) {
        fast_simplex_row(simd, seed, x, y, n, out);
        return;
    }
#if TF_HAVE_AVX512_PATH
    if (simd == TF_SIMD_AVX512) {
        switch (type) {
        case TF_NOISE_VALUE:
            tf_value2_row_avx512(seed, x, y, n, out);
            return;
        case TF_NOISE_POLYNOMIAL:
            tf_polynomial2_row_avx512(seed, x, y, n, out);
            return;
        case TF_NOISE_PERLIN:
            tf_perlin_improved3_row_avx512(seed, x, y, z, n, out);
            return;
        case TF_NOISE_EXPONENTIAL_PERLIN:
            tf_exp_perlin3_row_avx512(seed, x, y, z, n, out);
            return;
        case TF_NOISE_CELLULAR_F1:
            tf_cellular_f1_row_avx512(seed, x, y, n, out);
            return;
        case TF_NOISE_CELLULAR_F2:
            tf_cellular_f2_row_avx512(seed, x, y, n, out);
            return;
        case TF_NOISE_CELLULAR_F2_F1:
            tf_cellular_f2_f1_row_avx512(seed, x, y, n, out);
            return;
        case TF_NOISE_PERLIN_REFERENCE_SIMPLEX:
            tf_perlin_reference_simplex3_row_avx512(x, y, z, n, out);
            return;
        default: /* simplex (above); a kind added later: the AVX2 rows */
            break;
        }
    }
#endif
#if TF_HAVE_AVX2_PATH
    if (simd >= TF_SIMD_AVX2) {
        switch (type) {
        case TF_NOISE_VALUE:
            tf_value2_row_avx2(seed, x, y, n, out);
            return;
        case TF_NOISE_POLYNOMIAL:
            tf_polynomial2_row_avx2(seed, x, y, n, out);
            return;
        case TF_NOISE_PERLIN_REFERENCE_SIMPLEX:
            tf_perlin_reference_simplex3_row_avx2(x, y, z, n, out);
            return;
        case TF_NOISE_PERLIN:
            tf_perlin_improved3_row_avx2(seed, x, y, z, n, out);
            return;
        case TF_NOISE_EXPONENTIAL_PERLIN:
            tf_exp_perlin3_row_avx2(seed, x, y, z, n, out);
            return;
        case TF_NOISE_CELLULAR_F1:
            tf_cellular_f1_row_avx2(seed, x, y, n, out);
            return;
        case TF_NOISE_CELLULAR_F2:
            tf_cellular_f2_row_avx2(seed, x, y, n, out);
            return;
        case TF_NOISE_CELLULAR_F2_F1:
            tf_cellular_f2_f1_row_avx2(seed, x, y, n, out);
            return;
        default:
            break;
        }
    }
#endif
    for (size_t k = 0; k < n; k++) /* the portable path (and a kind without a row) */
        out[k] = tf_noise_eval(type, seed, x[k], y, z);
}

/* ---- the chunk's element-wise steps. Each has a plain loop and, on the
 * AVX2 path, four lanes at a time doing the same IEEE operations in the
 * same order (a separate multiply and add: no FMA); the plain loops stay
 * scalar in the default -O2 build, and these steps were a sixth of a
 * chunk's time. */

#if TF_HAVE_AVX2_PATH
#include <immintrin.h>

/* out[k] = x[k] * a + b */
__attribute__((target("avx2"))) static void affine_avx2(const double *x, double a, double b,
                                                        size_t n, double *out)
{
    const __m256d va = _mm256_set1_pd(a), vb = _mm256_set1_pd(b);
    size_t k = 0;
    for (; k + 4 <= n; k += 4)
        _mm256_storeu_pd(out + k, _mm256_add_pd(_mm256_mul_pd(_mm256_loadu_pd(x + k), va), vb));
    for (; k < n; k++)
        out[k] = x[k] * a + b;
}

/* h[k] += ((r[k] + shift) * scale) * w[k], or without the weight (w NULL);
 * for the first layer (first != 0) h[k] = 0.0 + ..., the sum evaluate()
 * starts from, without reading h */
__attribute__((target("avx2"))) static void accumulate_avx2(double *h, const double *r,
                                                            double shift, double scale,
                                                            const double *w, int first,
                                                            size_t n)
{
    const __m256d vs = _mm256_set1_pd(shift), vc = _mm256_set1_pd(scale);
    size_t k = 0;
    for (; k + 4 <= n; k += 4) {
        __m256d c = _mm256_mul_pd(_mm256_add_pd(_mm256_loadu_pd(r + k), vs), vc);
        if (w)
            c = _mm256_mul_pd(c, _mm256_loadu_pd(w + k));
        __m256d sum = first ? _mm256_setzero_pd() : _mm256_loadu_pd(h + k);
        _mm256_storeu_pd(h + k, _mm256_add_pd(sum, c));
    }
    for (; k < n; k++)
        h[k] = (first ? 0.0 : h[k]) + (w ? (r[k] + shift) * scale * w[k] : (r[k] + shift) * scale);
}

/* x[k] = x0 + index * step for index = first + k (as double, exact: the
 * caller checks every index is within 2^53), four lanes at a time */
__attribute__((target("avx2"))) static void lattice_x_avx2(double x0, double step, double first,
                                                           size_t n, double *x)
{
    const __m256d vx0 = _mm256_set1_pd(x0), vstep = _mm256_set1_pd(step);
    const __m256d four = _mm256_set1_pd(4.0);
    __m256d index = _mm256_add_pd(_mm256_set1_pd(first), _mm256_setr_pd(0.0, 1.0, 2.0, 3.0));
    size_t k = 0;
    for (; k + 4 <= n; k += 4) {
        _mm256_storeu_pd(x + k, _mm256_add_pd(vx0, _mm256_mul_pd(index, vstep)));
        index = _mm256_add_pd(index, four);
    }
    for (; k < n; k++)
        x[k] = x0 + (first + (double)k) * step;
}

/* w[k] = tf_mask_weight(L, rm[k]): 1 inside [min, max] (and for NaN),
 * else the smoothstep of s = 1 - d / falloff while d < falloff, else 0 */
__attribute__((target("avx2"))) static void mask_weight_avx2(const tf_compiled_layer *L,
                                                             const double *rm, size_t n,
                                                             double *w)
{
    const __m256d lo = _mm256_set1_pd(L->mask_min), hi = _mm256_set1_pd(L->mask_max);
    const __m256d falloff = _mm256_set1_pd(L->mask_falloff);
    const __m256d inv = _mm256_set1_pd(L->mask_inv_falloff);
    const __m256d one = _mm256_set1_pd(1.0), two = _mm256_set1_pd(2.0);
    const __m256d three = _mm256_set1_pd(3.0);
    size_t k = 0;
    for (; k + 4 <= n; k += 4) {
        __m256d r = _mm256_loadu_pd(rm + k);
        __m256d below = _mm256_cmp_pd(r, lo, _CMP_LT_OQ);
        __m256d above = _mm256_andnot_pd(below, _mm256_cmp_pd(r, hi, _CMP_GT_OQ));
        __m256d beyond = _mm256_blendv_pd(_mm256_sub_pd(r, hi), _mm256_sub_pd(lo, r), below);
        __m256d s = _mm256_sub_pd(one, _mm256_mul_pd(beyond, inv));
        __m256d smooth =
            _mm256_mul_pd(_mm256_mul_pd(s, s), _mm256_sub_pd(three, _mm256_mul_pd(two, s)));
        /* !(beyond < falloff): 0 (an and with the ordered compare) */
        smooth = _mm256_and_pd(smooth, _mm256_cmp_pd(beyond, falloff, _CMP_LT_OQ));
        _mm256_storeu_pd(w + k, _mm256_blendv_pd(one, smooth, _mm256_or_pd(below, above)));
    }
    for (; k < n; k++)
        w[k] = tf_mask_weight(L, rm[k]);
}

/* out[k] = (float)h[k] (round to nearest, as the C conversion) */
__attribute__((target("avx2"))) static void to_float_avx2(const double *h, size_t n, float *out)
{
    size_t k = 0;
    for (; k + 4 <= n; k += 4)
        _mm_storeu_ps(out + k, _mm256_cvtpd_ps(_mm256_loadu_pd(h + k)));
    for (; k < n; k++)
        out[k] = (float)h[k];
}
#endif

#if TF_HAVE_AVX512_PATH
/* The steps above with eight lanes: full vectors, then the tail (n not a
 * multiple of eight) as the masked lanes of one more. The tail only: a
 * masked store does not forward to the next step's loads, and masking
 * every vector made a one-layer grid an eighth slower. */
#define ROW_AVX512 __attribute__((target("avx512f,avx512dq")))

/* for (k = 0; k < n; k += 8) with m the lanes in use: all eight but in
 * the tail */
#define FOR_LANES8(k, m, n)                                                                  \
    for (size_t k = 0, k##_end = (n); k < k##_end; k += 8)                                   \
        for (__mmask8 m = k##_end - k >= 8 ? (__mmask8)0xff                                  \
                                           : (__mmask8)((1u << (k##_end - k)) - 1u),         \
                      m##_once = 1;                                                          \
             m##_once; m##_once = 0)

ROW_AVX512 static inline __m512d load8(__mmask8 m, const double *p)
{
    return m == 0xff ? _mm512_loadu_pd(p) : _mm512_maskz_loadu_pd(m, p);
}

ROW_AVX512 static inline void store8(__mmask8 m, double *p, __m512d v)
{
    if (m == 0xff)
        _mm512_storeu_pd(p, v);
    else
        _mm512_mask_storeu_pd(p, m, v);
}

ROW_AVX512 static void affine_avx512(const double *x, double a, double b, size_t n, double *out)
{
    const __m512d va = _mm512_set1_pd(a), vb = _mm512_set1_pd(b);
    FOR_LANES8(k, m, n)
    store8(m, out + k, _mm512_add_pd(_mm512_mul_pd(load8(m, x + k), va), vb));
}

ROW_AVX512 static void accumulate_avx512(double *h, const double *r, double shift, double scale,
                                         const double *w, int first, size_t n)
{
    const __m512d vs = _mm512_set1_pd(shift), vc = _mm512_set1_pd(scale);
    FOR_LANES8(k, m, n)
    {
        __m512d c = _mm512_mul_pd(_mm512_add_pd(load8(m, r + k), vs), vc);
        if (w)
            c = _mm512_mul_pd(c, load8(m, w + k));
        __m512d sum = first ? _mm512_setzero_pd() : load8(m, h + k);
        store8(m, h + k, _mm512_add_pd(sum, c));
    }
}

ROW_AVX512 static void lattice_x_avx512(double x0, double step, double first, size_t n,
                                        double *x)
{
    const __m512d vx0 = _mm512_set1_pd(x0), vstep = _mm512_set1_pd(step);
    const __m512d eight = _mm512_set1_pd(8.0);
    __m512d index = _mm512_add_pd(_mm512_set1_pd(first),
                                  _mm512_setr_pd(0.0, 1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0));
    FOR_LANES8(k, m, n)
    {
        store8(m, x + k, _mm512_add_pd(vx0, _mm512_mul_pd(index, vstep)));
        index = _mm512_add_pd(index, eight);
    }
}

ROW_AVX512 static void mask_weight_avx512(const tf_compiled_layer *L, const double *rm, size_t n,
                                          double *w)
{
    const __m512d lo = _mm512_set1_pd(L->mask_min), hi = _mm512_set1_pd(L->mask_max);
    const __m512d falloff = _mm512_set1_pd(L->mask_falloff);
    const __m512d inv = _mm512_set1_pd(L->mask_inv_falloff);
    const __m512d one = _mm512_set1_pd(1.0), two = _mm512_set1_pd(2.0);
    const __m512d three = _mm512_set1_pd(3.0);
    FOR_LANES8(k, m, n)
    {
        __m512d r = load8(m, rm + k);
        __mmask8 below = _mm512_cmp_pd_mask(r, lo, _CMP_LT_OQ);
        __mmask8 above = (__mmask8)(~below & _mm512_cmp_pd_mask(r, hi, _CMP_GT_OQ));
        __m512d beyond =
            _mm512_mask_blend_pd(below, _mm512_sub_pd(r, hi), _mm512_sub_pd(lo, r));
        __m512d s = _mm512_sub_pd(one, _mm512_mul_pd(beyond, inv));
        __m512d smooth =
            _mm512_mul_pd(_mm512_mul_pd(s, s), _mm512_sub_pd(three, _mm512_mul_pd(two, s)));
        /* !(beyond < falloff): 0 */
        smooth = _mm512_maskz_mov_pd(_mm512_cmp_pd_mask(beyond, falloff, _CMP_LT_OQ), smooth);
        store8(m, w + k, _mm512_mask_blend_pd((__mmask8)(below | above), one, smooth));
    }
}

ROW_AVX512 static void to_float_avx512(const double *h, size_t n, float *out)
{
    FOR_LANES8(k, m, n)
    {
        __m256 f = _mm512_cvtpd_ps(load8(m, h + k));
        if (m == 0xff)
            _mm256_storeu_ps(out + k, f);
        else /* a 16-lane store masked to the low lanes: AVX-512F, no VL */
            _mm512_mask_storeu_ps(out + k, (__mmask16)m, _mm512_castps256_ps512(f));
    }
}
#endif

static inline void affine_row(tf_simd_level simd, const double *x, double a, double b, size_t n,
                              double *out)
{
    ON_AVX512(simd, affine_avx512(x, a, b, n, out));
    ON_AVX2(simd, affine_avx2(x, a, b, n, out));
    for (size_t k = 0; k < n; k++)
        out[k] = x[k] * a + b;
}

static inline void mask_weight_row(tf_simd_level simd, const tf_compiled_layer *L,
                                   const double *rm, size_t n, double *w)
{
    ON_AVX512(simd, mask_weight_avx512(L, rm, n, w));
    ON_AVX2(simd, mask_weight_avx2(L, rm, n, w));
    for (size_t k = 0; k < n; k++)
        w[k] = tf_mask_weight(L, rm[k]);
}

static inline void accumulate_row(tf_simd_level simd, double *h, const double *r, double shift,
                                  double scale, const double *w, int first, size_t n)
{
    ON_AVX512(simd, accumulate_avx512(h, r, shift, scale, w, first, n));
    ON_AVX2(simd, accumulate_avx2(h, r, shift, scale, w, first, n));
    if (first)
        for (size_t k = 0; k < n; k++)
            h[k] = 0.0;
    if (w)
        for (size_t k = 0; k < n; k++)
            h[k] += (r[k] + shift) * scale * w[k];
    else
        for (size_t k = 0; k < n; k++)
            h[k] += (r[k] + shift) * scale;
}

/* The 2^53 below which every integer is a double: indices within it
 * convert exactly, and sums of them are exact. */
#define EXACT_INDEX_LIMIT 9007199254740992.0

/* x[k] = x0 + (double)(first + k) * step, k < n: the sample x coordinates
 * of tf_terrain_eval_row. While the indices are within 2^53, (double)(first
 * + k) is (double)first + k exactly, so the lanes count up in doubles (a
 * conversion per sample was a loop-carried chain through cvtsi2sd's merge,
 * an eighth of a one-layer row); beyond, each index converts as an
 * integer. */
static inline void lattice_x_row(tf_simd_level simd, double x0, double step, int64_t first,
                                 size_t n, double *x)
{
    double from = (double)first;
    if (!(from > -EXACT_INDEX_LIMIT && from + (double)n < EXACT_INDEX_LIMIT)) {
        for (size_t k = 0; k < n; k++)
            x[k] = x0 + (double)(first + (int64_t)k) * step;
        return;
    }
    ON_AVX512(simd, lattice_x_avx512(x0, step, from, n, x));
    ON_AVX2(simd, lattice_x_avx2(x0, step, from, n, x));
    double index = from;
    for (size_t k = 0; k < n; k++, index += 1.0)
        x[k] = x0 + index * step;
}

static inline void to_float_row(tf_simd_level simd, const double *h, size_t n, float *out)
{
    ON_AVX512(simd, to_float_avx512(h, n, out));
    ON_AVX2(simd, to_float_avx2(h, n, out));
    for (size_t k = 0; k < n; k++)
        out[k] = (float)h[k];
}

#if TF_HAVE_AVX2_PATH
/* tf_fractal_octave_term of four (eight) lanes: v, 1 - |v| or |v| (the
 * sign bit cleared, as fabs) */
#define OCTAVE_TERM(kind, v, one, sign, andnot, sub)                                         \
    ((kind) == TF_FRACTAL_RIDGED  ? sub(one, andnot(sign, v))                                \
     : (kind) == TF_FRACTAL_BILLOW ? andnot(sign, v)                                          \
                                   : (v))

/* out[k] = (first ? 0.0 : out[k]) + a * term(v[k]): one octave added */
__attribute__((target("avx2"))) static void octave_add_avx2(tf_fractal_kind kind, double a,
                                                            const double *v, int first,
                                                            size_t n, double *out)
{
    const __m256d va = _mm256_set1_pd(a), one = _mm256_set1_pd(1.0);
    const __m256d sign = _mm256_set1_pd(-0.0);
    size_t k = 0;
    for (; k + 4 <= n; k += 4) {
        __m256d x = _mm256_loadu_pd(v + k);
        __m256d term = OCTAVE_TERM(kind, x, one, sign, _mm256_andnot_pd, _mm256_sub_pd);
        __m256d sum = first ? _mm256_setzero_pd() : _mm256_loadu_pd(out + k);
        _mm256_storeu_pd(out + k, _mm256_add_pd(sum, _mm256_mul_pd(va, term)));
    }
    for (; k < n; k++)
        out[k] = (first ? 0.0 : out[k]) + a * tf_fractal_octave_term(kind, v[k]);
}

/* out[k] = tf_fractal_normalize(P, out[k]) */
__attribute__((target("avx2"))) static void fractal_normalize_avx2(const tf_fractal_plan *P,
                                                                   size_t n, double *out)
{
    const __m256d sum = _mm256_set1_pd(P->amp_sum), two = _mm256_set1_pd(2.0);
    const __m256d one = _mm256_set1_pd(1.0);
    size_t k = 0;
    for (; k + 4 <= n; k += 4) {
        __m256d q = _mm256_div_pd(_mm256_loadu_pd(out + k), sum);
        if (P->kind != TF_FRACTAL_FBM)
            q = _mm256_sub_pd(_mm256_mul_pd(two, q), one);
        _mm256_storeu_pd(out + k, q);
    }
    for (; k < n; k++)
        out[k] = tf_fractal_normalize(P, out[k]);
}
#endif

#if TF_HAVE_AVX512_PATH
ROW_AVX512 static void octave_add_avx512(tf_fractal_kind kind, double a, const double *v,
                                         int first, size_t n, double *out)
{
    const __m512d va = _mm512_set1_pd(a), one = _mm512_set1_pd(1.0);
    const __m512d sign = _mm512_set1_pd(-0.0);
    FOR_LANES8(k, m, n)
    {
        __m512d x = load8(m, v + k);
        __m512d term = OCTAVE_TERM(kind, x, one, sign, _mm512_andnot_pd, _mm512_sub_pd);
        __m512d sum = first ? _mm512_setzero_pd() : load8(m, out + k);
        store8(m, out + k, _mm512_add_pd(sum, _mm512_mul_pd(va, term)));
    }
}

ROW_AVX512 static void fractal_normalize_avx512(const tf_fractal_plan *P, size_t n, double *out)
{
    const __m512d sum = _mm512_set1_pd(P->amp_sum), two = _mm512_set1_pd(2.0);
    const __m512d one = _mm512_set1_pd(1.0);
    FOR_LANES8(k, m, n)
    {
        __m512d q = _mm512_div_pd(load8(m, out + k), sum);
        if (P->kind != TF_FRACTAL_FBM)
            q = _mm512_sub_pd(_mm512_mul_pd(two, q), one);
        store8(m, out + k, q);
    }
}
#endif

static void octave_add_row(tf_simd_level simd, tf_fractal_kind kind, double a, const double *v,
                           int first, size_t n, double *out)
{
    ON_AVX512(simd, octave_add_avx512(kind, a, v, first, n, out));
    ON_AVX2(simd, octave_add_avx2(kind, a, v, first, n, out));
    for (size_t k = 0; k < n; k++)
        out[k] = (first ? 0.0 : out[k]) + a * tf_fractal_octave_term(kind, v[k]);
}

static void fractal_normalize_row(tf_simd_level simd, const tf_fractal_plan *P, size_t n,
                                  double *out)
{
    ON_AVX512(simd, fractal_normalize_avx512(P, n, out));
    ON_AVX2(simd, fractal_normalize_avx2(P, n, out));
    for (size_t k = 0; k < n; k++)
        out[k] = tf_fractal_normalize(P, out[k]);
}

/* fbm, ridged and billow (fractal.c's sum_octaves without the gradient)
 * over n <= ROW_CHUNK samples at noise-space (nx[k], ny, nz), or at
 * points of their own (nx[k], nys[k], nz): each octave's base noises as
 * one row, then the per-sample operations of the scalar code in its
 * order, so every sample has its bits. */
static void fractal_row(tf_simd_level simd, const tf_fractal_plan *P, const double *nx, double ny,
                        const double *nys, double nz, size_t n, double *out)
{
    double ox[ROW_CHUNK], oy[ROW_CHUNK], v[ROW_CHUNK];
    double a = 1.0;
    for (int i = 0; i < P->octaves; i++) {
        const double *o = P->offset[i];
        double f = P->freq[i];
        affine_row(simd, nx, f, o[0], n, ox);
        if (nys) {
            affine_row(simd, nys, f, o[1], n, oy);
            tf_noise_points_deriv(simd, P->noise, P->seed, ox, oy, nz + o[2], n, v, NULL, NULL);
        } else {
            tf_noise_row(simd, P->noise, P->seed, ox, ny * f + o[1], nz + o[2], n, v);
        }
        /* the sum starts from 0.0 (the first octave's add) */
        octave_add_row(simd, P->kind, a, v, i == 0, n, out);
        a = a * P->gain;
    }
    fractal_normalize_row(simd, P, n, out);
}

/* The base noise and its gradient at n points (x[k], y[k]): the bits of
 * tf_noise_eval_gradient at each; with dx and dy NULL the values only
 * (tf_noise_eval_gradient's, which for simplex are the bits of the values
 * with the gradient). */
void tf_noise_points_deriv(tf_simd_level simd, tf_noise_type type, uint32_t seed,
                           const double *x, const double *y, double z, size_t n, double *v,
                           double *dx, double *dy)
{
    /* (simplex swiss and jordan on the AVX-512 path do not come here:
     * their rows and points are turbulence_avx512.c's blocks) */
#if TF_HAVE_AVX512_PATH
    if (simd == TF_SIMD_AVX512) {
        switch (type) {
        case TF_NOISE_VALUE:
            tf_value2_points_deriv_avx512(seed, x, y, n, v, dx, dy);
            return;
        case TF_NOISE_POLYNOMIAL:
            tf_polynomial2_points_deriv_avx512(seed, x, y, n, v, dx, dy);
            return;
        case TF_NOISE_PERLIN:
            tf_perlin_improved3_points_deriv_avx512(seed, x, y, z, n, v, dx, dy);
            return;
        case TF_NOISE_EXPONENTIAL_PERLIN:
            tf_exp_perlin3_points_deriv_avx512(seed, x, y, z, n, v, dx, dy);
            return;
        case TF_NOISE_CELLULAR_F1:
        case TF_NOISE_CELLULAR_F2:
        case TF_NOISE_CELLULAR_F2_F1:
            tf_cellular_points_deriv_avx512((int)(type - TF_NOISE_CELLULAR_F1), seed, x, y, n, v,
                                            dx, dy);
            return;
        case TF_NOISE_PERLIN_REFERENCE_SIMPLEX:
            tf_perlin_reference_simplex3_points_deriv_avx512(x, y, z, n, v, dx, dy);
            return;
        case TF_NOISE_SIMPLEX:
            tf_simplex2_points_deriv_avx512(seed, x, y, n, v, dx, dy);
            return;
        default:
            break;
        }
    }
#endif
#if TF_HAVE_AVX2_PATH
    if (simd >= TF_SIMD_AVX2) {
        switch (type) {
        case TF_NOISE_SIMPLEX:
            tf_simplex2_points_deriv_avx2(seed, x, y, n, v, dx, dy);
            return;
        case TF_NOISE_VALUE:
            tf_value2_points_deriv_avx2(seed, x, y, n, v, dx, dy);
            return;
        case TF_NOISE_POLYNOMIAL:
            tf_polynomial2_points_deriv_avx2(seed, x, y, n, v, dx, dy);
            return;
        default: /* the 3D and cellular noises: one point at a time */
            break;
        }
    }
#else
    (void)simd;
#endif
    for (size_t k = 0; k < n; k++)
        v[k] = tf_noise_eval_gradient(type, seed, x[k], y[k], z, dx ? &dx[k] : NULL,
                                      dy ? &dy[k] : NULL);
}

/* Lanes of a single sample: a layer's octaves or a terrain's layers of
 * one noise, each lane its own seed, frequency and offset. The fewest
 * lanes that pay: a vector's latency against that many scalar calls
 * (bench-ab, single samples at points in no order: two perlin layers as
 * lanes were 12% slower, two value layers 19% faster). Simplex has lanes
 * on the AVX2 path too (four a vector), from three layers or octaves, as
 * the AVX2 path has had since its lanes came. */
static int lanes_threshold(tf_noise_type type)
{
    switch (type) {
    case TF_NOISE_PERLIN_REFERENCE_SIMPLEX:
    case TF_NOISE_VALUE:
    case TF_NOISE_POLYNOMIAL:
    case TF_NOISE_CELLULAR_F1:
    case TF_NOISE_CELLULAR_F2:
    case TF_NOISE_CELLULAR_F2_F1:
        return 2;
    default: /* simplex, perlin, exponential perlin */
        return 3;
    }
}

int tf_noise_has_lanes(tf_noise_type type)
{
    return tf_noise_lanes(TF_SIMD_AVX2, type) || tf_noise_lanes(TF_SIMD_AVX512, type);
}

int tf_noise_lanes_from(tf_simd_level simd, tf_noise_type type)
{
    return tf_noise_lanes(simd, type) ? lanes_threshold(type) : 0;
}

tf_noise_lanes_fn tf_noise_lanes_for(tf_simd_level simd, tf_noise_type type, size_t count)
{
    tf_noise_lanes_fn lanes = tf_noise_lanes(simd, type);
    return lanes && count >= (size_t)lanes_threshold(type) ? lanes : NULL;
}

#if TF_HAVE_AVX512_PATH
/* A block of lanes with a point out of the vectors' range, one at a time:
 * out of line and cold, so the lanes' functions save no registers for
 * it before every vector call. */
static __attribute__((noinline, cold)) void
lanes_one_at_a_time(tf_noise_type type, const uint32_t *seed, double x, double y, const double *f,
                    const double *ox, const double *oy, const double *z, size_t n, double *out)
{
    for (size_t k = 0; k < n; k++)
        out[k] = tf_noise_eval_gradient(type, seed[k], x * f[k] + ox[k], y * f[k] + oy[k], z[k],
                                        NULL, NULL);
}

/* Block m of eight lanes: the points as a multiply then an add (the
 * scalar expression's operations), stored with their seeds for one
 * seeds8 call, which stores its eight lanes straight into out + m; lanes
 * past the n-th hold the point (0, 0, 0) and seed 0, and their values are
 * not meaningful (a masked store instead made the caller's reads of the
 * lanes wait: whole stores were 3-11% faster single samples,
 * docs/performance.md). A block with a point out of the vectors' range
 * takes the scalar code here and gives 0: no seeds8 call. Only a 3D
 * noise (dims 3) reads z, so only its z is checked and stored (dims is a
 * constant in each inlined copy). */
ROW_AVX512 TF_ALWAYS_INLINE int
lanes_block_avx512(tf_noise_type type, int dims, const uint32_t *seed, double x, double y,
                   const double *f, const double *ox, const double *oy, const double *z, size_t n,
                   size_t m, double *lx, double *ly, double *lz, uint32_t *ls, double *out)
{
    int with_z = dims == 3;
    size_t count = n - m < 8 ? n - m : 8;
    __mmask8 present = (__mmask8)((1u << count) - 1u);
    __m512d px, py, pz = with_z ? load8(present, z + m) : _mm512_setzero_pd();
    tf_lane_points8(present, x, y, f + m, ox + m, oy + m, &px, &py);
    __mmask8 ok = nk_in_row_range_avx512(px) & nk_in_row_range_avx512(py);
    if (with_z)
        ok &= nk_in_row_range_avx512(pz);
    if ((ok & present) != present) {
        lanes_one_at_a_time(type, seed + m, x, y, f + m, ox + m, oy + m, z + m, count, out + m);
        return 0;
    }
    _mm512_store_pd(lx, px);
    _mm512_store_pd(ly, py);
    if (with_z)
        _mm512_store_pd(lz, pz);
    _mm256_store_si256((__m256i *)(void *)ls,
                       _mm512_castsi512_si256(_mm512_maskz_loadu_epi32(present, seed + m)));
    return 1;
}

/* A noise's lanes, named once with its dimensions (2, or 3 when its
 * seeds8 call reads lz) and its seeds8 call (over ls, lx, ly, lz into v):
 * the block loop inlined with the noise fixed, so no sample tests the
 * noise. */
#define NOISE_LANES_AVX512(name, type, dims, seeds8_call)                                          \
    ROW_AVX512 static void name(const uint32_t *seed, double x, double y, const double *f,         \
                                const double *ox, const double *oy, const double *z, size_t n,     \
                                double *out)                                                       \
    {                                                                                              \
        for (size_t m = 0; m < n; m += 8) {                                                        \
            _Alignas(64) double lx[8], ly[8], lz[8];                                               \
            _Alignas(32) uint32_t ls[8];                                                           \
            double *v = out + m; /* eight whole lanes: see tf_noise_lanes */                       \
            if (lanes_block_avx512(type, dims, seed, x, y, f, ox, oy, z, n, m, lx, ly, lz, ls,     \
                                   out))                                                           \
                seeds8_call;                                                                       \
        }                                                                                          \
    }
NOISE_LANES_AVX512(perlin_lanes_avx512, TF_NOISE_PERLIN, 3,
                   tf_perlin_improved3_seeds8_avx512(ls, lx, ly, lz, v))
NOISE_LANES_AVX512(exp_perlin_lanes_avx512, TF_NOISE_EXPONENTIAL_PERLIN, 3,
                   tf_exp_perlin3_seeds8_avx512(ls, lx, ly, lz, v))
NOISE_LANES_AVX512(perlin_reference_simplex_lanes_avx512, TF_NOISE_PERLIN_REFERENCE_SIMPLEX, 3,
                   tf_perlin_reference_simplex3_seeds8_avx512(ls, lx, ly, lz, v))
NOISE_LANES_AVX512(value_lanes_avx512, TF_NOISE_VALUE, 2, tf_value2_seeds8_avx512(ls, lx, ly, v))
NOISE_LANES_AVX512(polynomial_lanes_avx512, TF_NOISE_POLYNOMIAL, 2,
                   tf_polynomial2_seeds8_avx512(ls, lx, ly, v))
NOISE_LANES_AVX512(cellular_f1_lanes_avx512, TF_NOISE_CELLULAR_F1, 2,
                   tf_cellular_seeds8_avx512(0, ls, lx, ly, v))
NOISE_LANES_AVX512(cellular_f2_lanes_avx512, TF_NOISE_CELLULAR_F2, 2,
                   tf_cellular_seeds8_avx512(1, ls, lx, ly, v))
NOISE_LANES_AVX512(cellular_f2_f1_lanes_avx512, TF_NOISE_CELLULAR_F2_F1, 2,
                   tf_cellular_seeds8_avx512(2, ls, lx, ly, v))
#undef NOISE_LANES_AVX512
#endif

/* The path's lanes of a noise: simplex on the AVX2 and AVX-512 paths,
 * the other noises on the AVX-512 path (their lanes are built on the
 * eight-lane points kernels: "Single samples of the other noises as
 * lanes", docs/performance.md); none on the portable path. */
tf_noise_lanes_fn tf_noise_lanes(tf_simd_level simd, tf_noise_type type)
{
#if TF_HAVE_AVX512_PATH
    if (simd == TF_SIMD_AVX512) {
        switch (type) {
        case TF_NOISE_SIMPLEX:
            return tf_simplex2_lanes_at_avx512;
        case TF_NOISE_PERLIN:
            return perlin_lanes_avx512;
        case TF_NOISE_EXPONENTIAL_PERLIN:
            return exp_perlin_lanes_avx512;
        case TF_NOISE_PERLIN_REFERENCE_SIMPLEX:
            return perlin_reference_simplex_lanes_avx512;
        case TF_NOISE_VALUE:
            return value_lanes_avx512;
        case TF_NOISE_POLYNOMIAL:
            return polynomial_lanes_avx512;
        case TF_NOISE_CELLULAR_F1:
            return cellular_f1_lanes_avx512;
        case TF_NOISE_CELLULAR_F2:
            return cellular_f2_lanes_avx512;
        case TF_NOISE_CELLULAR_F2_F1:
            return cellular_f2_f1_lanes_avx512;
        default:
            return NULL;
        }
    }
#endif
#if TF_HAVE_AVX2_PATH
    if (simd == TF_SIMD_AVX2 && type == TF_NOISE_SIMPLEX)
        return tf_simplex2_lanes_at_avx2;
#endif
    (void)simd;
    (void)type;
    return NULL;
}

/* swiss and jordan (fractal.c's swiss and jordan, the value only) over n
 * <= ROW_CHUNK samples at noise-space (nx[k], ny, nz), or at points of
 * their own (nx[k], nys[k], nz) when nys is not NULL: each octave's warped
 * points, their noises and gradients as one call, then the scalar code's
 * per-sample steps in its order. Every sample carries its own amplitude
 * and warp. */
static double unit_clamp(double v)
{
    return v < 0.0 ? 0.0 : v > 1.0 ? 1.0 : v;
}

#if TF_HAVE_AVX2_PATH
/* swiss_row's and jordan_row's per-sample steps, four samples a vector,
 * each lane the scalar loop's operations in its order (the same bits:
 * |v| and -v flip the sign bit, the clamp keeps NaN as the ternaries do).
 * Each returns how many samples it did; the scalar loop does the rest. */
__attribute__((target("avx2"))) static size_t swiss_points_avx2(const double *nx, double ny,
                                                                const double *nys, const double *wx,
                                                                const double *wy, double warp,
                                                                double f, const double *o, size_t n,
                                                                double *px, double *py)
{
    const __m256d vw = _mm256_set1_pd(warp), vf = _mm256_set1_pd(f), vny = _mm256_set1_pd(ny);
    const __m256d ox = _mm256_set1_pd(o[0]), oy = _mm256_set1_pd(o[1]);
    size_t k = 0;
    for (; k + 4 <= n; k += 4) {
        __m256d x = _mm256_add_pd(_mm256_loadu_pd(nx + k), _mm256_mul_pd(vw, _mm256_loadu_pd(wx + k)));
        __m256d y = _mm256_add_pd(nys ? _mm256_loadu_pd(nys + k) : vny,
                                  _mm256_mul_pd(vw, _mm256_loadu_pd(wy + k)));
        _mm256_storeu_pd(px + k, _mm256_add_pd(_mm256_mul_pd(x, vf), ox));
        _mm256_storeu_pd(py + k, _mm256_add_pd(_mm256_mul_pd(y, vf), oy));
    }
    return k;
}

/* Octave i's steps, then, unless i is the last, octave i + 1's points
 * (one pass between two noise calls). */
__attribute__((target("avx2"))) static size_t
swiss_steps_avx2(const tf_fractal_plan *P, int i, const double *nx, double ny, const double *nys,
                 const double *v, const double *gx, const double *gy, size_t n, double *out,
                 double *a, double *wx, double *wy, double *px, double *py)
{
    const __m256d sign = _mm256_set1_pd(-0.0), one = _mm256_set1_pd(1.0);
    const __m256d zero = _mm256_setzero_pd(), vg = _mm256_set1_pd(P->gain);
    int next = i + 1 < P->octaves;
    const int j = next ? i + 1 : i;
    const __m256d vw = _mm256_set1_pd(P->warp), vf = _mm256_set1_pd(P->freq[j]);
    const __m256d vny = _mm256_set1_pd(ny);
    const __m256d ox = _mm256_set1_pd(P->offset[j][0]), oy = _mm256_set1_pd(P->offset[j][1]);
    size_t k = 0;
    for (; k + 4 <= n; k += 4) {
        __m256d vv = _mm256_loadu_pd(v + k), va = _mm256_loadu_pd(a + k);
        __m256d s = _mm256_add_pd(_mm256_loadu_pd(out + k),
                                  _mm256_mul_pd(va, _mm256_sub_pd(one, _mm256_andnot_pd(sign, vv))));
        __m256d neg = _mm256_xor_pd(vv, sign);
        __m256d x = _mm256_add_pd(_mm256_loadu_pd(wx + k),
                                  _mm256_mul_pd(_mm256_mul_pd(va, _mm256_loadu_pd(gx + k)), neg));
        __m256d y = _mm256_add_pd(_mm256_loadu_pd(wy + k),
                                  _mm256_mul_pd(_mm256_mul_pd(va, _mm256_loadu_pd(gy + k)), neg));
        _mm256_storeu_pd(out + k, s);
        _mm256_storeu_pd(wx + k, x);
        _mm256_storeu_pd(wy + k, y);
        __m256d sat = _mm256_blendv_pd(s, zero, _mm256_cmp_pd(s, zero, _CMP_LT_OQ));
        sat = _mm256_blendv_pd(sat, one, _mm256_cmp_pd(s, one, _CMP_GT_OQ));
        _mm256_storeu_pd(a + k, _mm256_mul_pd(va, _mm256_mul_pd(vg, sat)));
        if (next) {
            __m256d qx = _mm256_add_pd(_mm256_loadu_pd(nx + k), _mm256_mul_pd(vw, x));
            __m256d qy = _mm256_add_pd(nys ? _mm256_loadu_pd(nys + k) : vny, _mm256_mul_pd(vw, y));
            _mm256_storeu_pd(px + k, _mm256_add_pd(_mm256_mul_pd(qx, vf), ox));
            _mm256_storeu_pd(py + k, _mm256_add_pd(_mm256_mul_pd(qy, vf), oy));
        }
    }
    return k;
}

/* The last octave's add from its value alone, then the normalization
 * 2 * (s / A) - 1 (also the end of jordan's, with d its damped amplitude:
 * square 1 adds d * (v * v), else a * (1 - |v|)). */
__attribute__((target("avx2"))) static size_t turbulence_last_avx2(const tf_fractal_plan *P,
                                                                   int square, const double *v,
                                                                   const double *d, size_t n,
                                                                   double *out)
{
    const __m256d sign = _mm256_set1_pd(-0.0), one = _mm256_set1_pd(1.0);
    const __m256d two = _mm256_set1_pd(2.0), amp_sum = _mm256_set1_pd(P->amp_sum);
    size_t k = 0;
    for (; k + 4 <= n; k += 4) {
        __m256d vv = _mm256_loadu_pd(v + k);
        __m256d term = square ? _mm256_mul_pd(vv, vv) : _mm256_sub_pd(one, _mm256_andnot_pd(sign, vv));
        __m256d s = _mm256_add_pd(_mm256_loadu_pd(out + k), _mm256_mul_pd(_mm256_loadu_pd(d + k), term));
        _mm256_storeu_pd(out + k, _mm256_sub_pd(_mm256_mul_pd(two, _mm256_div_pd(s, amp_sum)), one));
    }
    return k;
}

/* An octave's constants in every lane, read before a loop (its stores
 * might alias the plan, as far as the compiler knows): f, o[0], o[1] and
 * ny * f. */
typedef struct {
    __m256d f, ox, oy, fy;
} octave4;

__attribute__((target("avx2"))) static inline octave4 octave4_of(const tf_fractal_plan *P, int j,
                                                                 double ny)
{
    octave4 o = {_mm256_set1_pd(P->freq[j]), _mm256_set1_pd(P->offset[j][0]),
                 _mm256_set1_pd(P->offset[j][1]), _mm256_set1_pd(ny * P->freq[j])};
    return o;
}

/* jordan's points of an octave after the first (px = nx * f + wx + o[0],
 * py = ny * f + wy + o[1]) for four samples, from their warps x, y; ny
 * is nys[0 .. 3] when nys is not NULL */
__attribute__((target("avx2"))) static inline void jordan_points4(const octave4 *o,
                                                                  const double *nx,
                                                                  const double *nys, __m256d x,
                                                                  __m256d y, double *px, double *py)
{
    __m256d qx = _mm256_add_pd(_mm256_mul_pd(_mm256_loadu_pd(nx), o->f), x);
    __m256d fy = nys ? _mm256_mul_pd(_mm256_loadu_pd(nys), o->f) : o->fy;
    _mm256_storeu_pd(px, _mm256_add_pd(qx, o->ox));
    _mm256_storeu_pd(py, _mm256_add_pd(_mm256_add_pd(fy, y), o->oy));
}

/* Octave i >= 1's steps at amplitude amp, then octave i + 1's points
 * unless i is the last. */
__attribute__((target("avx2"))) static size_t
jordan_steps_avx2(const tf_fractal_plan *P, int i, const double *nx, double ny, const double *nys,
                  const double *v, const double *gx, const double *gy, double amp, size_t n,
                  double *out, double *damped, double *wx, double *wy, double *mx, double *my,
                  double *px, double *py)
{
    const __m256d warp = _mm256_set1_pd(P->warp), damp = _mm256_set1_pd(P->damp);
    const __m256d scale = _mm256_set1_pd(P->damp_scale), vamp = _mm256_set1_pd(amp);
    const __m256d one = _mm256_set1_pd(1.0);
    int next = i + 1 < P->octaves;
    const octave4 o = octave4_of(P, next ? i + 1 : i, ny);
    size_t k = 0;
    for (; k + 4 <= n; k += 4) {
        __m256d vv = _mm256_loadu_pd(v + k);
        __m256d hx = _mm256_mul_pd(_mm256_loadu_pd(gx + k), vv);
        __m256d hy = _mm256_mul_pd(_mm256_loadu_pd(gy + k), vv);
        _mm256_storeu_pd(out + k, _mm256_add_pd(_mm256_loadu_pd(out + k),
                                                _mm256_mul_pd(_mm256_loadu_pd(damped + k),
                                                              _mm256_mul_pd(vv, vv))));
        __m256d wxn = _mm256_add_pd(_mm256_loadu_pd(wx + k), _mm256_mul_pd(warp, hx));
        __m256d wyn = _mm256_add_pd(_mm256_loadu_pd(wy + k), _mm256_mul_pd(warp, hy));
        _mm256_storeu_pd(wx + k, wxn);
        _mm256_storeu_pd(wy + k, wyn);
        __m256d x = _mm256_add_pd(_mm256_loadu_pd(mx + k), _mm256_mul_pd(damp, hx));
        __m256d y = _mm256_add_pd(_mm256_loadu_pd(my + k), _mm256_mul_pd(damp, hy));
        _mm256_storeu_pd(mx + k, x);
        _mm256_storeu_pd(my + k, y);
        __m256d r2 = _mm256_add_pd(_mm256_mul_pd(x, x), _mm256_mul_pd(y, y));
        __m256d d = _mm256_sub_pd(one, _mm256_div_pd(scale, _mm256_add_pd(one, r2)));
        _mm256_storeu_pd(damped + k, _mm256_mul_pd(vamp, d));
        if (next)
            jordan_points4(&o, nx + k, nys ? nys + k : NULL, wxn, wyn, px + k, py + k);
    }
    return k;
}
#endif

#if TF_HAVE_AVX2_PATH
/* jordan's first octave: s = v * v, the warps and the damping from half
 * the gradient of v^2, every sample at the first damped amplitude */
__attribute__((target("avx2"))) static size_t
jordan_first_avx2(const tf_fractal_plan *P, const double *nx, double ny, const double *nys,
                  const double *v, const double *gx, const double *gy, double damped0, size_t n,
                  double *out, double *damped, double *wx, double *wy, double *mx, double *my,
                  double *px, double *py)
{
    const __m256d warp0 = _mm256_set1_pd(P->warp0), damp0 = _mm256_set1_pd(P->damp0);
    const __m256d d0 = _mm256_set1_pd(damped0);
    int next = P->octaves > 1;
    const octave4 o = octave4_of(P, next ? 1 : 0, ny);
    size_t k = 0;
    for (; k + 4 <= n; k += 4) {
        __m256d vv = _mm256_loadu_pd(v + k);
        __m256d hx = _mm256_mul_pd(_mm256_loadu_pd(gx + k), vv);
        __m256d hy = _mm256_mul_pd(_mm256_loadu_pd(gy + k), vv);
        __m256d wxn = _mm256_mul_pd(warp0, hx), wyn = _mm256_mul_pd(warp0, hy);
        _mm256_storeu_pd(out + k, _mm256_mul_pd(vv, vv));
        _mm256_storeu_pd(wx + k, wxn);
        _mm256_storeu_pd(wy + k, wyn);
        if (next)
            jordan_points4(&o, nx + k, nys ? nys + k : NULL, wxn, wyn, px + k, py + k);
        _mm256_storeu_pd(mx + k, _mm256_mul_pd(damp0, hx));
        _mm256_storeu_pd(my + k, _mm256_mul_pd(damp0, hy));
        _mm256_storeu_pd(damped + k, d0);
    }
    return k;
}

/* out[k] = 2 * (out[k] / A) - 1: swiss's and jordan's normalization */
__attribute__((target("avx2"))) static size_t turbulence_normalize_avx2(double A, size_t n,
                                                                        double *out)
{
    const __m256d va = _mm256_set1_pd(A), two = _mm256_set1_pd(2.0), one = _mm256_set1_pd(1.0);
    size_t k = 0;
    for (; k + 4 <= n; k += 4)
        _mm256_storeu_pd(out + k, _mm256_sub_pd(_mm256_mul_pd(two, _mm256_div_pd(_mm256_loadu_pd(out + k), va)), one));
    return k;
}
#endif

/* swiss's and jordan's last step, over the chunk */
static void turbulence_normalize(tf_simd_level simd, const tf_fractal_plan *P, size_t n,
                                 double *out)
{
    size_t k = 0;
#if TF_HAVE_AVX2_PATH
    if (simd >= TF_SIMD_AVX2)
        k = turbulence_normalize_avx2(P->amp_sum, n, out);
#else
    (void)simd;
#endif
    for (; k < n; k++)
        out[k] = 2.0 * (out[k] / P->amp_sum) - 1.0;
}

/* The last octave from its value alone at (px, py, z) into v, its add
 * (swiss, square 0: d[k] * (1 - |v|) with d the amplitude; jordan, square
 * 1: d[k] * (v * v) with d the damped amplitude) and the normalization. */
static void turbulence_last(tf_simd_level simd, const tf_fractal_plan *P, int square,
                            const double *px, const double *py, double z, size_t n, double *v,
                            const double *d, double *out)
{
    tf_noise_points_deriv(simd, P->noise, P->seed, px, py, z, n, v, NULL, NULL);
    size_t k = 0;
#if TF_HAVE_AVX2_PATH
    if (simd >= TF_SIMD_AVX2)
        k = turbulence_last_avx2(P, square, v, d, n, out);
#endif
    for (; k < n; k++) {
        double term = square ? v[k] * v[k] : 1.0 - fabs(v[k]);
        out[k] = 2.0 * ((out[k] + d[k] * term) / P->amp_sum) - 1.0;
    }
}

/* A sample's y in noise space: nys[k], or the row's ny when nys is NULL. */
static inline double y_at(const double *nys, double ny, size_t k) { return nys ? nys[k] : ny; }

static void swiss_row(tf_simd_level simd, const tf_fractal_plan *P, const double *nx, double ny,
                      const double *nys, double nz, size_t n, double *out)
{
    double a[ROW_CHUNK], wx[ROW_CHUNK], wy[ROW_CHUNK], px[ROW_CHUNK], py[ROW_CHUNK];
    double v[ROW_CHUNK], gx[ROW_CHUNK], gy[ROW_CHUNK];
#if TF_HAVE_AVX512_PATH
    if (simd == TF_SIMD_AVX512 && P->noise == TF_NOISE_SIMPLEX) {
        if (nys)
            tf_turbulence_simplex_points_avx512(P, nx, nys, nz, n, out);
        else
            tf_turbulence_simplex_row_avx512(P, nx, ny, nz, n, out);
        return;
    }
#endif
    for (size_t k = 0; k < n; k++) {
        out[k] = 0.0;
        a[k] = 1.0;
        wx[k] = wy[k] = 0.0;
    }
    /* the first octave's points; each octave's steps then make the next's */
    size_t k = 0;
#if TF_HAVE_AVX2_PATH
    if (simd >= TF_SIMD_AVX2)
        k = swiss_points_avx2(nx, ny, nys, wx, wy, P->warp, P->freq[0], P->offset[0], n, px, py);
#endif
    for (; k < n; k++) {
        px[k] = (nx[k] + P->warp * wx[k]) * P->freq[0] + P->offset[0][0];
        py[k] = (y_at(nys, ny, k) + P->warp * wy[k]) * P->freq[0] + P->offset[0][1];
    }
    for (int i = 0; i < P->octaves; i++) {
        double z = nz + P->offset[i][2];
        if (tf_turbulence_value_only(P, i)) {
            turbulence_last(simd, P, 0, px, py, z, n, v, a, out);
            return;
        }
        tf_noise_points_deriv(simd, P->noise, P->seed, px, py, z, n, v, gx, gy);
        k = 0;
#if TF_HAVE_AVX2_PATH
        if (simd >= TF_SIMD_AVX2)
            k = swiss_steps_avx2(P, i, nx, ny, nys, v, gx, gy, n, out, a, wx, wy, px, py);
#endif
        int next = i + 1 < P->octaves;
        double f = P->freq[next ? i + 1 : i];
        const double *o = P->offset[next ? i + 1 : i];
        for (; k < n; k++) {
            out[k] = out[k] + a[k] * (1.0 - fabs(v[k]));
            wx[k] = wx[k] + (a[k] * gx[k]) * -v[k];
            wy[k] = wy[k] + (a[k] * gy[k]) * -v[k];
            a[k] = a[k] * (P->gain * unit_clamp(out[k]));
            if (next) {
                px[k] = (nx[k] + P->warp * wx[k]) * f + o[0];
                py[k] = (y_at(nys, ny, k) + P->warp * wy[k]) * f + o[1];
            }
        }
    }
    turbulence_normalize(simd, P, n, out);
}

static void jordan_row(tf_simd_level simd, const tf_fractal_plan *P, const double *nx, double ny,
                       const double *nys, double nz, size_t n, double *out)
{
    double wx[ROW_CHUNK], wy[ROW_CHUNK], mx[ROW_CHUNK], my[ROW_CHUNK], damped[ROW_CHUNK];
    double px[ROW_CHUNK], py[ROW_CHUNK], v[ROW_CHUNK], gx[ROW_CHUNK], gy[ROW_CHUNK];
#if TF_HAVE_AVX512_PATH
    if (simd == TF_SIMD_AVX512 && P->noise == TF_NOISE_SIMPLEX) {
        if (nys)
            tf_turbulence_simplex_points_avx512(P, nx, nys, nz, n, out);
        else
            tf_turbulence_simplex_row_avx512(P, nx, ny, nz, n, out);
        return;
    }
#endif
    /* the first octave at the point itself (the whole array set: GCC cannot
     * see that only n values are read) */
    if (!nys) {
        for (size_t k = 0; k < ROW_CHUNK; k++)
            py[k] = ny;
    }
    tf_noise_points_deriv(simd, P->noise, P->seed, nx, nys ? nys : py, nz, n, v, gx, gy);
    double amp = P->gain1;
    size_t k = 0;
#if TF_HAVE_AVX2_PATH
    if (simd >= TF_SIMD_AVX2)
        k = jordan_first_avx2(P, nx, ny, nys, v, gx, gy, amp * P->gain, n, out, damped, wx, wy, mx,
                              my, px, py);
#endif
    /* each octave's steps make the next one's points */
    for (; k < n; k++) {
        double hx = gx[k] * v[k], hy = gy[k] * v[k];
        out[k] = v[k] * v[k];
        wx[k] = P->warp0 * hx;
        wy[k] = P->warp0 * hy;
        mx[k] = P->damp0 * hx;
        my[k] = P->damp0 * hy;
        damped[k] = amp * P->gain;
        if (P->octaves > 1) {
            px[k] = nx[k] * P->freq[1] + wx[k] + P->offset[1][0];
            py[k] = y_at(nys, ny, k) * P->freq[1] + wy[k] + P->offset[1][1];
        }
    }
    for (int i = 1; i < P->octaves; i++) {
        double z = nz + P->offset[i][2];
        if (tf_turbulence_value_only(P, i)) {
            turbulence_last(simd, P, 1, px, py, z, n, v, damped, out);
            return;
        }
        tf_noise_points_deriv(simd, P->noise, P->seed, px, py, z, n, v, gx, gy);
        amp = amp * P->gain;
        k = 0;
#if TF_HAVE_AVX2_PATH
        if (simd >= TF_SIMD_AVX2)
            k = jordan_steps_avx2(P, i, nx, ny, nys, v, gx, gy, amp, n, out, damped, wx, wy, mx, my,
                                  px, py);
#endif
        int next = i + 1 < P->octaves;
        double f = P->freq[next ? i + 1 : i];
        const double *o = P->offset[next ? i + 1 : i];
        for (; k < n; k++) {
            double hx = gx[k] * v[k], hy = gy[k] * v[k];
            out[k] = out[k] + damped[k] * (v[k] * v[k]);
            wx[k] = wx[k] + P->warp * hx;
            wy[k] = wy[k] + P->warp * hy;
            mx[k] = mx[k] + P->damp * hx;
            my[k] = my[k] + P->damp * hy;
            damped[k] = amp * (1.0 - P->damp_scale / (1.0 + (mx[k] * mx[k] + my[k] * my[k])));
            if (next) {
                px[k] = nx[k] * f + wx[k] + o[0];
                py[k] = y_at(nys, ny, k) * f + wy[k] + o[1];
            }
        }
    }
    turbulence_normalize(simd, P, n, out);
}

/* A fractal layer's row code, by kind: at noise-space (nx[k], ny, nz),
 * or at points of their own (nx[k], nys[k], nz) when nys is given. */
TF_ALWAYS_INLINE void fractal_layer_row(tf_simd_level simd, const tf_fractal_plan *P,
                                        const double *nx, double ny, const double *nys, double nz,
                                        size_t n, double *out)
{
    switch (P->kind) {
    case TF_FRACTAL_SWISS:
        swiss_row(simd, P, nx, ny, nys, nz, n, out);
        break;
    case TF_FRACTAL_JORDAN:
        jordan_row(simd, P, nx, ny, nys, nz, n, out);
        break;
    default: /* fbm, ridged, billow (for none, callers take the noise's row) */
        fractal_row(simd, P, nx, ny, nys, nz, n, out);
        break;
    }
}

/* Step 1 for layer L at the chunk's samples x[k], y: the base noise in
 * noise space into value[] (nx[] is scratch). */
TF_ALWAYS_INLINE void layer_noise_chunk(tf_simd_level simd, const tf_compiled_layer *L,
                                        const double *x, double y, size_t n, double *nx,
                                        double *value)
{
    affine_row(simd, x, L->frequency, L->offset_x, n, nx);
    double ny = y * L->frequency + L->offset_y;
    if (tf_layer_is_plain_simplex(L)) {
        fast_simplex_row(simd, L->seed, nx, ny, n, value);
    } else if (!L->plan || L->plan->kind == TF_FRACTAL_NONE) {
        /* the other base noises (perlin-reference-simplex has no plan) */
        tf_noise_row(simd, L->noise_type, L->seed, nx, ny, L->offset_z, n, value);
    } else {
        fractal_layer_row(simd, L->plan, nx, ny, NULL, L->offset_z, n, value);
    }
}

/* Step 1 for layer L at points of their own (x[k], y[k]): the base noise
 * in noise space into value[] (nx[], ny[] are scratch). On the vector
 * paths the plain base noises take their vector points routine
 * (tf_noise_points_deriv: the bits of tf_noise_eval at each point, edge
 * and non-finite coordinates included), and every fractal kind its row
 * code (swiss and jordan of simplex on the AVX-512 path their register
 * blocks, the others an octave at a time); the portable path goes one
 * point at a time, as single samples do. */
TF_ALWAYS_INLINE void layer_noise_points(const tf_terrain *t, tf_simd_level simd,
                                         const tf_compiled_layer *L, const double *x,
                                         const double *y, size_t n, double *nx, double *ny,
                                         double *value)
{
    if (simd >= TF_SIMD_AVX2) {
        affine_row(simd, x, L->frequency, L->offset_x, n, nx);
        affine_row(simd, y, L->frequency, L->offset_y, n, ny);
        if (!L->plan || L->plan->kind == TF_FRACTAL_NONE)
            tf_noise_points_deriv(simd, L->noise_type, L->seed, nx, ny, L->offset_z, n, value, NULL,
                                  NULL);
        else
            fractal_layer_row(simd, L->plan, nx, 0.0, ny, L->offset_z, n, value);
    } else {
        for (size_t k = 0; k < n; k++)
            value[k] = tf_layer_noise(t, L, x[k], y[k]);
    }
}

/* Whether a chunk on path simd finds its mask curves' segments once
 * (tf_terrain.mask_knots): on the vector paths, for curves with lanes. */
static inline int placed_masks(tf_simd_level simd, const tf_terrain *t)
{
#if TF_HAVE_AVX2_PATH
    return simd >= TF_SIMD_AVX2 && t->mask_knots && t->mask_knots->lanes;
#else
    (void)simd;
    (void)t;
    return 0;
#endif
}

/* The vector place and placed rows where placed_masks holds (never
 * called otherwise). */
static inline void place_row(tf_simd_level simd, const tf_curve_table *knots, const double *u,
                             size_t n, int64_t *seg, double *tv)
{
    ON_AVX512(simd, tf_curve_table_place_row_avx512(knots, u, n, seg, tv));
    ON_AVX2(simd, tf_curve_table_place_row_avx2(knots, u, n, seg, tv));
    (void)knots, (void)u, (void)n, (void)seg, (void)tv;
}

static inline void placed_row(tf_simd_level simd, const tf_curve_table *curve, const double *u,
                              const int64_t *seg, const double *tv, size_t n, double *out)
{
    ON_AVX512(simd, tf_curve_table_placed_row_avx512(curve, u, seg, tv, n, out));
    ON_AVX2(simd, tf_curve_table_placed_row_avx2(curve, u, seg, tv, n, out));
    (void)curve, (void)u, (void)seg, (void)tv, (void)n, (void)out;
}

/* Step 4's weight of layer L from its mask layer's redistributed values
 * rm[] into w[]; NULL when the layer is unmasked. */
TF_ALWAYS_INLINE const double *mask_chunk(tf_simd_level simd, const tf_compiled_layer *L,
                                          const double *rm, size_t n, double *w)
{
    if (L->mask == TF_MASK_RANGE) {
        mask_weight_row(simd, L, rm, n, w);
        return w;
    }
    if (L->mask == TF_MASK_CURVE) {
        fast_curve_row(simd, &L->mask_curve, rm, n, w);
        return w;
    }
    return NULL;
}

/* The mask curves' places on tf_terrain.mask_knots for a chunk: found
 * once from the source's r row (place_masks), then each weight on them
 * where the layer's curve shares those knots (mask_weight_chunk). */
typedef struct {
    int on; /* placed_masks */
    int64_t seg[ROW_CHUNK];
    double t[ROW_CHUNK];
} mask_places;

TF_ALWAYS_INLINE void place_masks(tf_simd_level simd, const tf_terrain *t, mask_places *mp,
                                  const double *source_r, size_t n)
{
    if (mp->on)
        place_row(simd, t->mask_knots, source_r, n, mp->seg, mp->t);
}

TF_ALWAYS_INLINE const double *mask_weight_chunk(tf_simd_level simd, const tf_compiled_layer *L,
                                                 const mask_places *mp, const double *rm,
                                                 size_t n, double *w)
{
    if (mp->on && L->mask_shares_knots) {
        placed_row(simd, &L->mask_curve, rm, mp->seg, mp->t, n, w);
        return w;
    }
    return mask_chunk(simd, L, rm, n, w);
}

/* n <= ROW_CHUNK samples at x[k], y (or, with ys, at points of their own
 * (x[k], ys[k])): steps 1-5 of docs/spec.md, layer by layer, the sum into
 * h[]. Inlined with ys a constant NULL, the row callers keep no test. */
TF_ALWAYS_INLINE void sum_chunk_on(const tf_terrain *t, tf_simd_level simd, const double *x,
                                   double y, const double *ys, size_t n, double *h)
{
    double saved[TF_MAX_LAYERS][ROW_CHUNK]; /* rd values of mask layers */
    double nx[ROW_CHUNK], ny[ROW_CHUNK], value[ROW_CHUNK], r[ROW_CHUNK];
    mask_places mp; /* the places of mask curves on one set of knots */
    mp.on = placed_masks(simd, t);
    /* h is set by the first layer's accumulate (a spec has one or more) */
    for (size_t i = 0; i < t->layer_count; i++) {
        const tf_compiled_layer *L = &t->layers[i];
        /* 1. base noise in noise space */
        if (ys)
            layer_noise_points(t, simd, L, x, ys, n, nx, ny, value);
        else
            layer_noise_chunk(simd, L, x, y, n, nx, value);
        /* 2. redistribution of u = (n + 1) / 2: (n + 1) * 0.5 */
        double *ri = L->is_mask_source ? saved[i] : r;
        fast_unit_curve_row(simd, &L->rd, value, n, ri);
        if ((int)i == t->mask_knots_source)
            place_masks(simd, t, &mp, ri, n);
        /* 3.-5. shift, scale, mask, sum */
        const double *weight = L->mask == TF_MASK_NONE
                                   ? NULL
                                   : mask_weight_chunk(simd, L, &mp, saved[L->mask_layer_index], n,
                                                       value);
        accumulate_row(simd, h, ri, L->pre_amp_shift, L->amp_scale, weight, i == 0, n);
    }
}

/* sum_chunk_on on the terrain's path */
static void sum_chunk(const tf_terrain *t, const double *x, double y, size_t n, double *h)
{
    sum_chunk_on(t, t->simd, x, y, NULL, n, h);
}

/* n <= ROW_CHUNK samples at x[k], y: steps 1-6 of docs/spec.md, on path
 * simd (a constant where it is inlined below). */
TF_ALWAYS_INLINE void eval_chunk_on(const tf_terrain *t, tf_simd_level simd, const double *x,
                                    double y, size_t n, float *out)
{
    double h[ROW_CHUNK];
    sum_chunk_on(t, simd, x, y, NULL, n, h);
    /* 6. output curve */
    if (t->has_output_curve)
        fast_curve_row(simd, &t->output_curve, h, n, h);
    to_float_row(simd, h, n, out);
}

/* The grid's chunk, one copy per path: the path is chosen once a chunk,
 * and each copy's steps are called without testing it again (testing it
 * at every step made the AVX2 path's 6-layer grid 4% slower once the
 * steps had AVX-512 versions). */
static void eval_chunk(const tf_terrain *t, const double *x, double y, size_t n, float *out)
{
    switch (t->simd) {
#if TF_HAVE_AVX512_PATH
    case TF_SIMD_AVX512:
        eval_chunk_on(t, TF_SIMD_AVX512, x, y, n, out);
        return;
#endif
#if TF_HAVE_AVX2_PATH
    case TF_SIMD_AVX2:
        eval_chunk_on(t, TF_SIMD_AVX2, x, y, n, out);
        return;
#endif
    default:
        eval_chunk_on(t, TF_SIMD_NONE, x, y, n, out);
    }
}

/* n <= ROW_CHUNK points (x[k], y[k]): steps 1-6 into out[], in doubles,
 * on path simd (a constant where it is inlined below). */
TF_ALWAYS_INLINE void points_chunk_on(const tf_terrain *t, tf_simd_level simd, const double *x,
                                      const double *y, size_t n, double *out)
{
    /* The sum goes to h[], not out[]: out may be x or y, which every
     * layer after the first reads again. */
    double h[ROW_CHUNK];
    sum_chunk_on(t, simd, x, 0.0, y, n, h);
    /* 6. output curve */
    if (t->has_output_curve)
        fast_curve_row(simd, &t->output_curve, h, n, h);
    for (size_t k = 0; k < n; k++)
        out[k] = h[k];
}

void tf_terrain_eval_points(const tf_terrain *t, const double *x, const double *y, size_t n,
                            double *out)
{
    for (size_t start = 0; start < n; start += ROW_CHUNK) {
        size_t count = n - start < ROW_CHUNK ? n - start : ROW_CHUNK;
        const double *xs = x + start, *ys = y + start;
        switch (t->simd) { /* one copy per path, as eval_chunk */
#if TF_HAVE_AVX512_PATH
        case TF_SIMD_AVX512:
            points_chunk_on(t, TF_SIMD_AVX512, xs, ys, count, out + start);
            break;
#endif
#if TF_HAVE_AVX2_PATH
        case TF_SIMD_AVX2:
            points_chunk_on(t, TF_SIMD_AVX2, xs, ys, count, out + start);
            break;
#endif
        default:
            points_chunk_on(t, TF_SIMD_NONE, xs, ys, count, out + start);
        }
    }
}

/* Layer `layer`'s redistributed value r (step 2) at the chunk's samples. */
static void layer_redistributed_chunk(const tf_terrain *t, size_t layer, const double *x,
                                      double y, size_t n, double *r)
{
    double nx[ROW_CHUNK], value[ROW_CHUNK];
    const tf_compiled_layer *L = &t->layers[layer];
    layer_noise_chunk(t->simd, L, x, y, n, nx, value);
    fast_unit_curve_row(t->simd, &L->rd, value, n, r);
}

/* Steps 3-6 from the layers' redistributed values r[i][k], k < n <=
 * ROW_CHUNK: layer `layer`'s contribution as summed, the sum, or the
 * height, as sum_chunk and eval_chunk compute them (the same row
 * functions in the same order). */
static void combine_chunk(const tf_terrain *t, tf_stage stage, size_t layer,
                          const double *const *r, size_t n, double *out)
{
    double w[ROW_CHUNK];
    tf_simd_level simd = t->simd;
    if (stage == TF_STAGE_CONTRIBUTION) {
        const tf_compiled_layer *L = &t->layers[layer];
        const double *weight =
            L->mask == TF_MASK_NONE ? NULL : mask_chunk(simd, L, r[L->mask_layer_index], n, w);
        accumulate_row(simd, out, r[layer], L->pre_amp_shift, L->amp_scale, weight, 1, n);
        return;
    }
    mask_places mp;
    mp.on = placed_masks(simd, t);
    if (t->mask_knots_source >= 0)
        place_masks(simd, t, &mp, r[t->mask_knots_source], n);
    for (size_t i = 0; i < t->layer_count; i++) {
        const tf_compiled_layer *L = &t->layers[i];
        const double *weight =
            L->mask == TF_MASK_NONE ? NULL
                                    : mask_weight_chunk(simd, L, &mp, r[L->mask_layer_index], n, w);
        accumulate_row(simd, out, r[i], L->pre_amp_shift, L->amp_scale, weight, i == 0, n);
    }
    if (stage == TF_STAGE_HEIGHT && t->has_output_curve)
        fast_curve_row(simd, &t->output_curve, out, n, out);
}

/* The stage of docs/spec.md's evaluation at the chunk's samples, in
 * doubles: what tf_terrain_sample_stage gives at each. */
static void stage_chunk(const tf_terrain *t, tf_stage stage, size_t layer, const double *x,
                        double y, size_t n, double *out)
{
    if (stage == TF_STAGE_SUM || stage == TF_STAGE_HEIGHT) {
        sum_chunk(t, x, y, n, out);
        if (stage == TF_STAGE_HEIGHT && t->has_output_curve)
            fast_curve_row(t->simd, &t->output_curve, out, n, out);
        return;
    }
    const tf_compiled_layer *L = &t->layers[layer];
    if (stage == TF_STAGE_NOISE) {
        double nx[ROW_CHUNK];
        layer_noise_chunk(t->simd, L, x, y, n, nx, out);
        return;
    }
    /* only the layers the stage reads: this one and its mask layer */
    double r[ROW_CHUNK], rm[ROW_CHUNK];
    layer_redistributed_chunk(t, layer, x, y, n, stage == TF_STAGE_REDISTRIBUTED ? out : r);
    if (stage == TF_STAGE_REDISTRIBUTED)
        return;
    const double *rows[TF_MAX_LAYERS] = {NULL};
    rows[layer] = r;
    if (L->mask != TF_MASK_NONE) {
        layer_redistributed_chunk(t, (size_t)L->mask_layer_index, x, y, n, rm);
        rows[L->mask_layer_index] = rm;
    }
    combine_chunk(t, TF_STAGE_CONTRIBUTION, layer, rows, n, out);
}

/* The baseline chunk: what eval_chunk does for a layer's noise (the same
 * steps, the same vector path), summed with amplitudes 1, 1/2, 1/4, ...
 * and nothing else. */
static void fractal_chunk(const tf_terrain *t, size_t octaves, const double *x, double y,
                          size_t n, float *out)
{
    double nx[ROW_CHUNK], value[ROW_CHUNK], h[ROW_CHUNK];
    double amplitude = 1.0;
    for (size_t k = 0; octaves == 0 && k < n; k++) /* no octave: a sum of nothing */
        h[k] = 0.0;
    for (size_t i = 0; i < octaves; i++, amplitude *= 0.5) {
        const tf_compiled_layer *L = &t->layers[i];
        affine_row(t->simd, x, L->frequency, L->offset_x, n, nx);
        tf_noise_row(t->simd, L->noise_type, L->seed, nx, y * L->frequency + L->offset_y,
                     L->offset_z, n, value);
        accumulate_row(t->simd, h, value, 0.0, amplitude, NULL, i == 0, n);
    }
    to_float_row(t->simd, h, n, out);
}

/* The chunk loop of tf_terrain_eval_row below, kept as its own copy: one
 * loop shared through a chunk-function pointer (inlined, so each caller
 * called its chunk directly) made the terrain's grid 2-5% slower in an A/B
 * of the two builds, and still 2-3% with eval_chunk forced inline. */
void tf_fractal_sum_row(const tf_terrain *t, size_t octaves, double x0, double step, int64_t i0,
                        double y, size_t n, float *out)
{
    double x[ROW_CHUNK];
    octaves = octaves < t->layer_count ? octaves : t->layer_count;
    for (size_t start = 0; start < n; start += ROW_CHUNK) {
        size_t count = n - start < ROW_CHUNK ? n - start : ROW_CHUNK;
        lattice_x_row(t->simd, x0, step, i0 + (int64_t)start, count, x);
        fractal_chunk(t, octaves, x, y, count, out + start);
    }
}

void tf_terrain_eval_row(const tf_terrain *t, double x0, double step, int64_t i0, double y,
                         size_t n, float *out)
{
    double x[ROW_CHUNK];
    for (size_t start = 0; start < n; start += ROW_CHUNK) {
        size_t count = n - start < ROW_CHUNK ? n - start : ROW_CHUNK;
        lattice_x_row(t->simd, x0, step, i0 + (int64_t)start, count, x);
        eval_chunk(t, x, y, count, out + start);
    }
}

/* The third copy of the chunk loop (see tf_fractal_sum_row): the stages
 * are for tools, and keep the hot loops above as they are. */
void tf_terrain_stage_row(const tf_terrain *t, tf_stage stage, size_t layer, double x0,
                          double step, int64_t i0, double y, size_t n, double *out)
{
    double x[ROW_CHUNK];
    for (size_t start = 0; start < n; start += ROW_CHUNK) {
        size_t count = n - start < ROW_CHUNK ? n - start : ROW_CHUNK;
        lattice_x_row(t->simd, x0, step, i0 + (int64_t)start, count, x);
        stage_chunk(t, stage, layer, x, y, count, out + start);
    }
}

void tf_terrain_combine_row(const tf_terrain *t, tf_stage stage, size_t layer,
                            const double *const *r, size_t n, double *out)
{
    const double *rows[TF_MAX_LAYERS];
    for (size_t start = 0; start < n; start += ROW_CHUNK) {
        size_t count = n - start < ROW_CHUNK ? n - start : ROW_CHUNK;
        for (size_t i = 0; i < t->layer_count; i++)
            rows[i] = r[i] ? r[i] + start : NULL;
        combine_chunk(t, stage, layer, rows, count, out + start);
    }
}
