/*
 * "value": lattice value noise (the survey's Value Noise, seed 003 §2.3),
 * 2D: hashed corner values in [-1, 1) blended bilinearly with Perlin's
 * quintic fade, so the surface is C2 and its derivatives are analytic.
 */
#include <math.h>
#include <stddef.h>
#include <stdint.h>

#include "noise.h"
#include "noise_kinds.h"

NK_INLINE double value_eval(uint32_t seed, double x, double y, double *dx, double *dy)
{
    if (!nk_coord_ok(x) || !nk_coord_ok(y))
        return nk_nan(dx, dy);
    double fx, fy, c[4];
    uint32_t X = nk_split(x, &fx), Y = nk_split(y, &fy);
    nk_corners2(seed, X, Y, c);
    double v00 = c[0], v10 = c[1], v01 = c[2], v11 = c[3];
    double u = nk_fade5(fx), v = nk_fade5(fy);
    double e0 = v10 - v00, e1 = v11 - v01;
    double a = v00 + u * e0, b = v01 + u * e1;
    if (dx)
        *dx = nk_dfade5(fx) * (e0 + v * (e1 - e0));
    if (dy)
        *dy = nk_dfade5(fy) * (b - a);
    return a + v * (b - a);
}

double tf_value2(uint32_t seed, double x, double y)
{
    return value_eval(seed, x, y, NULL, NULL);
}

double tf_value2_deriv(uint32_t seed, double x, double y, double *dx, double *dy)
{
    return value_eval(seed, x, y, dx, dy);
}

#if TF_HAVE_AVX2_PATH
/* tf_value2_deriv compiled for AVX2: the same operations, floor as one
 * rounding instruction (the octaves of a fractal sampled one point at a
 * time). */
__attribute__((target("avx2"))) double tf_value2_deriv_avx2(uint32_t seed, double x, double y,
                                                            double *dx, double *dy)
{
    return value_eval(seed, x, y, dx, dy);
}

/* value_eval (no derivatives) for four points of a row, |x| < 2^51: the
 * scalar operations lane by lane; y's fraction and fade are the row's. */
NK_AVX2_INLINE __m256d value4_avx2(uint32_t seed, __m256d x, uint32_t Y, double v)
{
    __m256d fx, c[4];
    nk_corners2_avx2(seed, x, Y, &fx, c);
    __m256d u = nk_fade5_avx2(fx);
    __m256d e0 = _mm256_sub_pd(c[1], c[0]), e1 = _mm256_sub_pd(c[3], c[2]);
    __m256d a = _mm256_add_pd(c[0], _mm256_mul_pd(u, e0));
    __m256d b = _mm256_add_pd(c[2], _mm256_mul_pd(u, e1));
    return _mm256_add_pd(a, _mm256_mul_pd(_mm256_set1_pd(v), _mm256_sub_pd(b, a)));
}

TF_AVX2_ROW void tf_value2_row_avx2(uint32_t seed, const double *x, double y, size_t n, double *out)
{
    size_t m = 0;
    if (y > -2251799813685248.0 && y < 2251799813685248.0) {
        double fy;
        uint32_t Y = nk_split(y, &fy);
        double v = nk_fade5(fy);
        for (; m + 4 <= n; m += 4) {
            __m256d px = _mm256_loadu_pd(x + m);
            if (nk_in_row_range_avx2(px) != 0xF) {
                for (size_t k = m; k < m + 4; k++)
                    out[k] = tf_value2(seed, x[k], y);
                continue;
            }
            _mm256_storeu_pd(out + m, value4_avx2(seed, px, Y, v));
        }
    }
    for (; m < n; m++) /* the last 1-3 points, or a row out of range */
        out[m] = tf_value2(seed, x[m], y);
}

/* value_eval at four points (x, y) of their own, |x|, |y| < 2^51, lane
 * k's seed hashed in hs, with the derivatives when dx is not NULL (then
 * dy too): the scalar operations lane by lane. */
NK_AVX2_INLINE __m256d value4_points_avx2(__m128i hs, __m256d x, __m256d y, __m256d *dx,
                                          __m256d *dy)
{
    __m256d fx, fy, c[4];
    nk_corners2_points_avx2(hs, x, y, &fx, &fy, c);
    __m256d u = nk_fade5_avx2(fx), v = nk_fade5_avx2(fy);
    __m256d e0 = _mm256_sub_pd(c[1], c[0]), e1 = _mm256_sub_pd(c[3], c[2]);
    __m256d a = _mm256_add_pd(c[0], _mm256_mul_pd(u, e0));
    __m256d b = _mm256_add_pd(c[2], _mm256_mul_pd(u, e1));
    __m256d ba = _mm256_sub_pd(b, a);
    if (dx) {
        __m256d de = _mm256_add_pd(e0, _mm256_mul_pd(v, _mm256_sub_pd(e1, e0)));
        *dx = _mm256_mul_pd(nk_dfade5_avx2(fx), de);
        *dy = _mm256_mul_pd(nk_dfade5_avx2(fy), ba);
    }
    return _mm256_add_pd(a, _mm256_mul_pd(v, ba));
}

/* value_eval at n points of their own (nk_points2_avx2). */
__attribute__((target("avx2"))) void tf_value2_points_deriv_avx2(uint32_t seed, const double *x,
                                                                 const double *y, size_t n,
                                                                 double *out, double *dx,
                                                                 double *dy)
{
    nk_points2_avx2(value4_points_avx2, tf_value2_deriv, seed, x, y, n, out, dx, dy);
}
#endif

#if TF_HAVE_AVX512_PATH
/* value4_avx2 on eight lanes: the same operations in the same order. */
NK_AVX512_INLINE __m512d value8_avx512(uint32_t seed, __m512d x, uint32_t Y, double v)
{
    __m512d fx, c[4];
    nk_corners2_avx512(seed, x, Y, &fx, c);
    __m512d u = nk_fade5_avx512(fx);
    __m512d e0 = _mm512_sub_pd(c[1], c[0]), e1 = _mm512_sub_pd(c[3], c[2]);
    __m512d a = _mm512_add_pd(c[0], _mm512_mul_pd(u, e0));
    __m512d b = _mm512_add_pd(c[2], _mm512_mul_pd(u, e1));
    return _mm512_add_pd(a, _mm512_mul_pd(_mm512_set1_pd(v), _mm512_sub_pd(b, a)));
}

__attribute__((target(NK_AVX512_TARGET))) void
tf_value2_row_avx512(uint32_t seed, const double *x, double y, size_t n, double *out)
{
    size_t m = 0;
    if (y > -2251799813685248.0 && y < 2251799813685248.0) {
        double fy;
        uint32_t Y = nk_split(y, &fy);
        double v = nk_fade5(fy);
        for (; m + 8 <= n; m += 8) {
            __m512d px = _mm512_loadu_pd(x + m);
            if (nk_in_row_range_avx512(px) != 0xFF) {
                for (size_t k = m; k < m + 8; k++)
                    out[k] = tf_value2(seed, x[k], y);
                continue;
            }
            _mm512_storeu_pd(out + m, value8_avx512(seed, px, Y, v));
        }
    }
    if (m < n) /* the last 1-7 points, or a row out of range */
        tf_value2_row_avx2(seed, x + m, y, n - m, out + m);
}
#endif

#if TF_HAVE_AVX512_PATH
/* value_eval at eight points (x, y) of their own, |x|, |y| < 2^51, lane
 * k's seed hashed in hs, with the derivatives when dx is not NULL (then
 * dy too): the scalar operations lane by lane. */
NK_AVX512_INLINE __m512d value8_points_avx512(__m256i hs, __m512d x, __m512d y, __m512d *dx,
                                              __m512d *dy)
{
    __m512d fx, fy, c[4];
    nk_corners2_points_avx512(hs, x, y, &fx, &fy, c);
    __m512d u = nk_fade5_avx512(fx), v = nk_fade5_avx512(fy);
    __m512d e0 = _mm512_sub_pd(c[1], c[0]), e1 = _mm512_sub_pd(c[3], c[2]);
    __m512d a = _mm512_add_pd(c[0], _mm512_mul_pd(u, e0));
    __m512d b = _mm512_add_pd(c[2], _mm512_mul_pd(u, e1));
    __m512d ba = _mm512_sub_pd(b, a);
    if (dx) {
        __m512d de = _mm512_add_pd(e0, _mm512_mul_pd(v, _mm512_sub_pd(e1, e0)));
        *dx = _mm512_mul_pd(nk_dfade5_avx512(fx), de);
        *dy = _mm512_mul_pd(nk_dfade5_avx512(fy), ba);
    }
    return _mm512_add_pd(a, _mm512_mul_pd(v, ba));
}

/* value_eval at n points of their own (nk_points2_avx512). */
__attribute__((target(NK_AVX512_TARGET))) void
tf_value2_points_deriv_avx512(uint32_t seed, const double *x, const double *y, size_t n,
                              double *out, double *dx, double *dy)
{
    nk_points2_avx512(value8_points_avx512, tf_value2_deriv, seed, x, y, n, out, dx, dy);
}

/* tf_value2(seed[k], x[k], y[k]) for eight lanes, |x|, |y| < 2^51. */
__attribute__((target(NK_AVX512_TARGET))) void
tf_value2_seeds8_avx512(const uint32_t *seed, const double *x, const double *y, double *out)
{
    nk_seeds8_2d_avx512(value8_points_avx512, seed, x, y, out);
}
#endif
