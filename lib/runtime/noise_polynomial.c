/*
 * "polynomial": the zero-gradient D2M1N3 polynomial noise of Thorimbert &
 * Chopard ("Polynomial methods for fast procedural terrain generation",
 * eq. 19), 2D: hashed corner heights, zero gradient at every corner, cubic.
 */
#include <math.h>
#include <stddef.h>
#include <stdint.h>

#include "noise.h"
#include "noise_kinds.h"

/* h(x, y) = h00 + S3(x) dX + S3(y) dY + A [S3(x) y + S3(y) x - x y]
 * with dX = h10 - h00, dY = h01 - h00, A = h11 + h00 - h10 - h01 and
 * S3(t) = 3t^2 - 2t^3. The sign of the xy term is minus: eqs. 8-15 with
 * f = g = 0 give c11 = -A (the extracted text of eq. 19 lost the sign;
 * only -xy meets h(1,1) = h11 and zero corner gradients). */
NK_INLINE double polynomial_eval(uint32_t seed, double x, double y, double *dx, double *dy)
{
    if (!nk_coord_ok(x) || !nk_coord_ok(y))
        return nk_nan(dx, dy);
    double fx, fy, c[4];
    uint32_t X = nk_split(x, &fx), Y = nk_split(y, &fy);
    nk_corners2(seed, X, Y, c); /* the same corner values as "value" */
    double h00 = c[0], h10 = c[1], h01 = c[2], h11 = c[3];
    double dX = h10 - h00, dY = h01 - h00, A = ((h11 + h00) - h10) - h01;
    double sx = fx * fx * (3 - 2 * fx), sy = fy * fy * (3 - 2 * fy);
    if (dx)
        *dx = 6 * fx * (1 - fx) * dX + A * ((6 * fx * (1 - fx) * fy + sy) - fy);
    if (dy)
        *dy = 6 * fy * (1 - fy) * dY + A * ((sx + 6 * fy * (1 - fy) * fx) - fx);
    return ((h00 + sx * dX) + sy * dY) + A * ((sx * fy + sy * fx) - fx * fy);
}

double tf_polynomial2(uint32_t seed, double x, double y)
{
    return polynomial_eval(seed, x, y, NULL, NULL);
}

double tf_polynomial2_deriv(uint32_t seed, double x, double y, double *dx, double *dy)
{
    return polynomial_eval(seed, x, y, dx, dy);
}

#if TF_HAVE_AVX2_PATH
/* tf_polynomial2_deriv compiled for AVX2 (as tf_value2_deriv_avx2). */
__attribute__((target("avx2"))) double tf_polynomial2_deriv_avx2(uint32_t seed, double x, double y,
                                                                 double *dx, double *dy)
{
    return polynomial_eval(seed, x, y, dx, dy);
}

/* polynomial_eval (no derivatives) for four points of a row, |x| < 2^51:
 * the scalar operations lane by lane; fy and S3(fy) are the row's. */
NK_AVX2_INLINE __m256d polynomial4_avx2(uint32_t seed, __m256d x, uint32_t Y, double fy,
                                        double sy)
{
    __m256d fx, c[4];
    nk_corners2_avx2(seed, x, Y, &fx, c);
    __m256d dX = _mm256_sub_pd(c[1], c[0]), dY = _mm256_sub_pd(c[2], c[0]);
    __m256d A = _mm256_sub_pd(_mm256_sub_pd(_mm256_add_pd(c[3], c[0]), c[1]), c[2]);
    /* fx * fx * (3 - 2 * fx) */
    __m256d sx = _mm256_mul_pd(_mm256_mul_pd(fx, fx),
                               _mm256_sub_pd(_mm256_set1_pd(3.0),
                                             _mm256_mul_pd(_mm256_set1_pd(2.0), fx)));
    __m256d vfy = _mm256_set1_pd(fy), vsy = _mm256_set1_pd(sy);
    __m256d base = _mm256_add_pd(_mm256_add_pd(c[0], _mm256_mul_pd(sx, dX)),
                                 _mm256_mul_pd(vsy, dY));
    __m256d cross = _mm256_sub_pd(_mm256_add_pd(_mm256_mul_pd(sx, vfy), _mm256_mul_pd(vsy, fx)),
                                  _mm256_mul_pd(fx, vfy));
    return _mm256_add_pd(base, _mm256_mul_pd(A, cross));
}

TF_AVX2_ROW void tf_polynomial2_row_avx2(uint32_t seed, const double *x, double y, size_t n,
                                         double *out)
{
    size_t m = 0;
    if (y > -2251799813685248.0 && y < 2251799813685248.0) {
        double fy;
        uint32_t Y = nk_split(y, &fy);
        double sy = fy * fy * (3 - 2 * fy);
        for (; m + 4 <= n; m += 4) {
            __m256d px = _mm256_loadu_pd(x + m);
            if (nk_in_row_range_avx2(px) != 0xF) {
                for (size_t k = m; k < m + 4; k++)
                    out[k] = tf_polynomial2(seed, x[k], y);
                continue;
            }
            _mm256_storeu_pd(out + m, polynomial4_avx2(seed, px, Y, fy, sy));
        }
    }
    for (; m < n; m++) /* the last 1-3 points, or a row out of range */
        out[m] = tf_polynomial2(seed, x[m], y);
}

/* polynomial_eval at four points (x, y) of their own, |x|, |y| < 2^51,
 * lane k's seed hashed in hs, with the derivatives when dx is not NULL
 * (then dy too): the scalar operations lane by lane. */
NK_AVX2_INLINE __m256d polynomial4_points_avx2(__m128i hs, __m256d x, __m256d y, __m256d *dx,
                                               __m256d *dy)
{
    const __m256d two = _mm256_set1_pd(2.0), three = _mm256_set1_pd(3.0);
    __m256d fx, fy, c[4];
    nk_corners2_points_avx2(hs, x, y, &fx, &fy, c);
    __m256d dX = _mm256_sub_pd(c[1], c[0]), dY = _mm256_sub_pd(c[2], c[0]);
    __m256d A = _mm256_sub_pd(_mm256_sub_pd(_mm256_add_pd(c[3], c[0]), c[1]), c[2]);
    __m256d sx = _mm256_mul_pd(_mm256_mul_pd(fx, fx), _mm256_sub_pd(three, _mm256_mul_pd(two, fx)));
    __m256d sy = _mm256_mul_pd(_mm256_mul_pd(fy, fy), _mm256_sub_pd(three, _mm256_mul_pd(two, fy)));
    if (dx) {
        /* 6 * f * (1 - f), left to right */
        const __m256d six = _mm256_set1_pd(6.0), one = _mm256_set1_pd(1.0);
        __m256d qx = _mm256_mul_pd(_mm256_mul_pd(six, fx), _mm256_sub_pd(one, fx));
        __m256d qy = _mm256_mul_pd(_mm256_mul_pd(six, fy), _mm256_sub_pd(one, fy));
        *dx = _mm256_add_pd(
            _mm256_mul_pd(qx, dX),
            _mm256_mul_pd(A, _mm256_sub_pd(_mm256_add_pd(_mm256_mul_pd(qx, fy), sy), fy)));
        *dy = _mm256_add_pd(
            _mm256_mul_pd(qy, dY),
            _mm256_mul_pd(A, _mm256_sub_pd(_mm256_add_pd(sx, _mm256_mul_pd(qy, fx)), fx)));
    }
    __m256d base = _mm256_add_pd(_mm256_add_pd(c[0], _mm256_mul_pd(sx, dX)), _mm256_mul_pd(sy, dY));
    __m256d cross = _mm256_sub_pd(_mm256_add_pd(_mm256_mul_pd(sx, fy), _mm256_mul_pd(sy, fx)),
                                  _mm256_mul_pd(fx, fy));
    return _mm256_add_pd(base, _mm256_mul_pd(A, cross));
}

/* polynomial_eval at n points of their own (nk_points2_avx2). */
__attribute__((target("avx2"))) void
tf_polynomial2_points_deriv_avx2(uint32_t seed, const double *x, const double *y, size_t n,
                                 double *out, double *dx, double *dy)
{
    nk_points2_avx2(polynomial4_points_avx2, tf_polynomial2_deriv, seed, x, y, n, out, dx, dy);
}
#endif

#if TF_HAVE_AVX512_PATH
/* polynomial4_avx2 on eight lanes: the same operations in the same order. */
NK_AVX512_INLINE __m512d polynomial8_avx512(uint32_t seed, __m512d x, uint32_t Y, double fy,
                                            double sy)
{
    __m512d fx, c[4];
    nk_corners2_avx512(seed, x, Y, &fx, c);
    __m512d dX = _mm512_sub_pd(c[1], c[0]), dY = _mm512_sub_pd(c[2], c[0]);
    __m512d A = _mm512_sub_pd(_mm512_sub_pd(_mm512_add_pd(c[3], c[0]), c[1]), c[2]);
    __m512d sx = _mm512_mul_pd(_mm512_mul_pd(fx, fx),
                               _mm512_sub_pd(_mm512_set1_pd(3.0),
                                             _mm512_mul_pd(_mm512_set1_pd(2.0), fx)));
    __m512d vfy = _mm512_set1_pd(fy), vsy = _mm512_set1_pd(sy);
    __m512d base = _mm512_add_pd(_mm512_add_pd(c[0], _mm512_mul_pd(sx, dX)),
                                 _mm512_mul_pd(vsy, dY));
    __m512d cross = _mm512_sub_pd(_mm512_add_pd(_mm512_mul_pd(sx, vfy), _mm512_mul_pd(vsy, fx)),
                                  _mm512_mul_pd(fx, vfy));
    return _mm512_add_pd(base, _mm512_mul_pd(A, cross));
}

__attribute__((target(NK_AVX512_TARGET))) void
tf_polynomial2_row_avx512(uint32_t seed, const double *x, double y, size_t n, double *out)
{
    size_t m = 0;
    if (y > -2251799813685248.0 && y < 2251799813685248.0) {
        double fy;
        uint32_t Y = nk_split(y, &fy);
        double sy = fy * fy * (3 - 2 * fy);
        for (; m + 8 <= n; m += 8) {
            __m512d px = _mm512_loadu_pd(x + m);
            if (nk_in_row_range_avx512(px) != 0xFF) {
                for (size_t k = m; k < m + 8; k++)
                    out[k] = tf_polynomial2(seed, x[k], y);
                continue;
            }
            _mm512_storeu_pd(out + m, polynomial8_avx512(seed, px, Y, fy, sy));
        }
    }
    if (m < n) /* the last 1-7 points, or a row out of range */
        tf_polynomial2_row_avx2(seed, x + m, y, n - m, out + m);
}

#endif

#if TF_HAVE_AVX512_PATH
/* polynomial_eval at eight points (x, y) of their own, |x|, |y| < 2^51,
 * lane k's seed hashed in hs, with the derivatives when dx is not NULL
 * (then dy too): the scalar operations lane by lane. */
NK_AVX512_INLINE __m512d polynomial8_points_avx512(__m256i hs, __m512d x, __m512d y,
                                                   __m512d *dx, __m512d *dy)
{
    const __m512d two = _mm512_set1_pd(2.0), three = _mm512_set1_pd(3.0);
    __m512d fx, fy, c[4];
    nk_corners2_points_avx512(hs, x, y, &fx, &fy, c);
    __m512d dX = _mm512_sub_pd(c[1], c[0]), dY = _mm512_sub_pd(c[2], c[0]);
    __m512d A = _mm512_sub_pd(_mm512_sub_pd(_mm512_add_pd(c[3], c[0]), c[1]), c[2]);
    __m512d sx = _mm512_mul_pd(_mm512_mul_pd(fx, fx), _mm512_sub_pd(three, _mm512_mul_pd(two, fx)));
    __m512d sy = _mm512_mul_pd(_mm512_mul_pd(fy, fy), _mm512_sub_pd(three, _mm512_mul_pd(two, fy)));
    if (dx) {
        /* 6 * f * (1 - f), left to right */
        const __m512d six = _mm512_set1_pd(6.0), one = _mm512_set1_pd(1.0);
        __m512d qx = _mm512_mul_pd(_mm512_mul_pd(six, fx), _mm512_sub_pd(one, fx));
        __m512d qy = _mm512_mul_pd(_mm512_mul_pd(six, fy), _mm512_sub_pd(one, fy));
        *dx = _mm512_add_pd(
            _mm512_mul_pd(qx, dX),
            _mm512_mul_pd(A, _mm512_sub_pd(_mm512_add_pd(_mm512_mul_pd(qx, fy), sy), fy)));
        *dy = _mm512_add_pd(
            _mm512_mul_pd(qy, dY),
            _mm512_mul_pd(A, _mm512_sub_pd(_mm512_add_pd(sx, _mm512_mul_pd(qy, fx)), fx)));
    }
    __m512d base = _mm512_add_pd(_mm512_add_pd(c[0], _mm512_mul_pd(sx, dX)), _mm512_mul_pd(sy, dY));
    __m512d cross = _mm512_sub_pd(_mm512_add_pd(_mm512_mul_pd(sx, fy), _mm512_mul_pd(sy, fx)),
                                  _mm512_mul_pd(fx, fy));
    return _mm512_add_pd(base, _mm512_mul_pd(A, cross));
}

/* polynomial_eval at n points of their own (nk_points2_avx512). */
__attribute__((target(NK_AVX512_TARGET))) void
tf_polynomial2_points_deriv_avx512(uint32_t seed, const double *x, const double *y, size_t n,
                                   double *out, double *dx, double *dy)
{
    nk_points2_avx512(polynomial8_points_avx512, tf_polynomial2_deriv, seed, x, y, n, out, dx, dy);
}

/* tf_polynomial2(seed[k], x[k], y[k]) for eight lanes, |x|, |y| < 2^51. */
__attribute__((target(NK_AVX512_TARGET))) void
tf_polynomial2_seeds8_avx512(const uint32_t *seed, const double *x, const double *y, double *out)
{
    nk_seeds8_2d_avx512(polynomial8_points_avx512, seed, x, y, out);
}
#endif
