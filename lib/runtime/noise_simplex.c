/*
 * "simplex": seeded 2D simplex noise (docs/noise.md, "simplex").
 * The skewed triangular lattice of Perlin's simplex noise with a 32-bit
 * integer hash per lattice point instead of a 256-entry permutation, so the
 * pattern never repeats within |x|, |y| < 2^31 lattice cells, and 32 unit
 * gradients so no direction is favoured. Every constant is listed in the
 * docs so a port reproduces the same doubles.
 */
#include <math.h>

#include "noise.h"

/* Skew and unskew factors: F2 = (sqrt(3) - 1) / 2, G2 = (3 - sqrt(3)) / 6. */
#define SIMPLEX_F2 0.36602540378443865
#define SIMPLEX_G2 0.21132486540518713
/* 2 * G2, exact (doubling is exact). */
#define SIMPLEX_G2_TWICE 0.42264973081037427
/* The kernel's largest possible sum is 0.0100802...; 99 keeps |n| < 1. */
#define SIMPLEX_SCALE 99.0
/* Beyond 2^52 a double has no fractional part left. */
#define SIMPLEX_MAX_COORD 4503599627370496.0

/* floor(v) for |v| < 2^53, without a libm call (baseline x86-64 has no
 * rounding instruction, so floor is a call through the PLT): truncate,
 * step down when that rounded up, and keep v's own zero so that
 * floor(-0.0) is -0.0 as IEEE floor gives. The same double as floor. */
static inline double floor_small(double v)
{
    double r = (double)(int64_t)v;
    r = r > v ? r - 1.0 : r;
    return r == 0.0 ? v * 0.0 : r;
}

/* Unit gradients at angles 2*pi*(k + 0.5)/32, k = 0..31 (cos, sin), as the
 * shortest decimal strings that read back as the same doubles. */
static const double GRADIENTS[32][2] = {
    {0.9951847266721969, 0.0980171403295606},
    {0.9569403357322088, 0.29028467725446233},
    {0.881921264348355, 0.47139673682599764},
    {0.773010453362737, 0.6343932841636455},
    {0.6343932841636455, 0.773010453362737},
    {0.4713967368259978, 0.8819212643483549},
    {0.29028467725446233, 0.9569403357322089},
    {0.09801714032956077, 0.9951847266721968},
    {-0.09801714032956065, 0.9951847266721969},
    {-0.29028467725446216, 0.9569403357322089},
    {-0.4713967368259977, 0.881921264348355},
    {-0.6343932841636454, 0.7730104533627371},
    {-0.773010453362737, 0.6343932841636455},
    {-0.8819212643483549, 0.47139673682599786},
    {-0.9569403357322088, 0.2902846772544624},
    {-0.9951847266721968, 0.09801714032956083},
    {-0.9951847266721969, -0.09801714032956059},
    {-0.9569403357322089, -0.2902846772544621},
    {-0.881921264348355, -0.47139673682599764},
    {-0.7730104533627371, -0.6343932841636453},
    {-0.6343932841636459, -0.7730104533627367},
    {-0.47139673682599786, -0.8819212643483549},
    {-0.29028467725446244, -0.9569403357322088},
    {-0.09801714032956045, -0.9951847266721969},
    {0.09801714032956009, -0.9951847266721969},
    {0.29028467725446205, -0.9569403357322089},
    {0.4713967368259976, -0.881921264348355},
    {0.6343932841636456, -0.7730104533627369},
    {0.7730104533627367, -0.6343932841636459},
    {0.8819212643483548, -0.4713967368259979},
    {0.9569403357322088, -0.2902846772544625},
    {0.9951847266721969, -0.0980171403295605},
};

/* Lattice hash: seed ^ (i * 0x1DDE90C9) ^ (j * 0x43C42E4D) (mod 2^32),
 * finished with the lowbias32 mixer so every input bit (seed included)
 * reaches the top 5 bits, which pick the gradient. */
static inline unsigned gradient_index(uint32_t seed, uint32_t i, uint32_t j)
{
    uint32_t h = seed ^ (i * 0x1DDE90C9u) ^ (j * 0x43C42E4Du);
    h ^= h >> 16;
    h *= 0x7FEB352Du;
    h ^= h >> 15;
    h *= 0x846CA68Bu;
    h ^= h >> 16;
    return h >> 27;
}

/* One corner's contribution (0.5 - dx^2 - dy^2)^4 * (g . d), or 0, and,
 * when gx is not NULL, its gradient with respect to the corner offset
 * (dx, dy), which moves one for one with the sample point (the skew and
 * unskew cancel: F2 - G2 - 2 F2 G2 = 0): with t2 = t^2, t4 = t2^2 and
 * gd = g . d, t4 g - (8 t^3 gd) d. */
static inline double corner(uint32_t seed, uint32_t i, uint32_t j, double dx, double dy,
                            double *gx, double *gy)
{
    /* Computed whether or not the corner is in reach, then selected: no
     * hard-to-predict branch, the same bits. */
    double t = 0.5 - dx * dx - dy * dy;
    const double *g = GRADIENTS[gradient_index(seed, i, j)];
    double t2 = t * t, t4 = t2 * t2;
    double gd = g[0] * dx + g[1] * dy;
    if (gx) {
        double k = (8.0 * (t2 * t)) * gd;
        *gx = t <= 0.0 ? 0.0 : t4 * g[0] - k * dx;
        *gy = t <= 0.0 ? 0.0 : t4 * g[1] - k * dy;
    }
    return t <= 0.0 ? 0.0 : t4 * gd;
}

/* tf_simplex2, and its gradient when dndx is not NULL (inlined into both
 * entry points, so the value-only one carries no derivative arithmetic). */
static inline double simplex_eval(uint32_t seed, double x, double y, double *dndx, double *dndy)
{
    if (!(fabs(x) < SIMPLEX_MAX_COORD && fabs(y) < SIMPLEX_MAX_COORD)) {
        if (dndx)
            *dndx = *dndy = NAN;
        return NAN;
    }

    /* Skew to find the cell, then work in small local coordinates so the
     * precision does not depend on how far from the origin the point is. */
    double s = (x + y) * SIMPLEX_F2;
    double cell_x = floor_small(x + s), cell_y = floor_small(y + s);
    double a = (x + s) - cell_x, b = (y + s) - cell_y; /* skewed, in [0, 1] */
    double t = (a + b) * SIMPLEX_G2;
    double x0 = a - t, y0 = b - t; /* unskewed offset from corner 0 */

    /* Integer lattice coordinates modulo 2^32 (two's complement wrap). */
    uint32_t i = (uint32_t)(int64_t)cell_x, j = (uint32_t)(int64_t)cell_y;

    /* The middle corner is (1, 0) below the diagonal, (0, 1) above it. */
    uint32_t i1 = x0 > y0 ? 1u : 0u, j1 = 1u - i1;
    double x1 = x0 - (double)i1 + SIMPLEX_G2, y1 = y0 - (double)j1 + SIMPLEX_G2;
    double x2 = x0 - 1.0 + SIMPLEX_G2_TWICE, y2 = y0 - 1.0 + SIMPLEX_G2_TWICE;

    double g[3][2];
    int slope = dndx != NULL;
    double n0 = corner(seed, i, j, x0, y0, slope ? &g[0][0] : NULL, &g[0][1]);
    double n1 = corner(seed, i + i1, j + j1, x1, y1, slope ? &g[1][0] : NULL, &g[1][1]);
    double n2 = corner(seed, i + 1u, j + 1u, x2, y2, slope ? &g[2][0] : NULL, &g[2][1]);
    if (slope) {
        *dndx = SIMPLEX_SCALE * (g[0][0] + g[1][0] + g[2][0]);
        *dndy = SIMPLEX_SCALE * (g[0][1] + g[1][1] + g[2][1]);
    }
    return SIMPLEX_SCALE * (n0 + n1 + n2);
}

double tf_simplex2(uint32_t seed, double x, double y)
{
    return simplex_eval(seed, x, y, NULL, NULL);
}

double tf_simplex2_deriv(uint32_t seed, double x, double y, double *dndx, double *dndy)
{
    double gx, gy;
    double n = simplex_eval(seed, x, y, &gx, &gy);
    if (dndx)
        *dndx = gx;
    if (dndy)
        *dndy = gy;
    return n;
}

/* ---- rows: n points (x[k], y) at once */

void tf_simplex2_row(uint32_t seed, const double *x, double y, size_t n, double *out)
{
    for (size_t k = 0; k < n; k++)
        out[k] = tf_simplex2(seed, x[k], y);
}

#if TF_HAVE_AVX2_PATH
#include <immintrin.h>

/* Four lanes of tf_simplex2, each lane running the scalar code's IEEE
 * double operations in the same order (separate mul and add: the runtime
 * is built with -ffp-contract=off and no FMA is written here), so every
 * lane has the scalar bits. Lanes need |x|, |y| < 2^49: then the cell
 * index |floor(x + s)| < 2^51 and adding 1.5 * 2^52 leaves its low 32 bits
 * (two's complement) in the low mantissa bits, the value
 * (uint32_t)(int64_t)cell would have. */
#define SIMPLEX_AVX2_LIMIT 562949953421312.0 /* 2^49 */
#define SIMPLEX_INT_MAGIC 6755399441055744.0 /* 1.5 * 2^52 */

__attribute__((target("avx2"))) static inline __m128i simplex_low32(__m256d cell)
{
    __m256i bits = _mm256_castpd_si256(_mm256_add_pd(cell, _mm256_set1_pd(SIMPLEX_INT_MAGIC)));
    __m256i packed = _mm256_permutevar8x32_epi32(bits, _mm256_setr_epi32(0, 2, 4, 6, 0, 2, 4, 6));
    return _mm256_castsi256_si128(packed);
}

/* One corner; `hi` = i * 0x1DDE90C9 and `hj` = j * 0x43C42E4D (mod 2^32)
 * of its lattice point, so the neighbours' products are sums, not new
 * multiplications ((i + 1) * c = i * c + c mod 2^32: the same bits). */
__attribute__((target("avx2"))) static inline __m256d simplex_corner_avx2(__m128i seed, __m128i hi,
                                                                          __m128i hj, __m256d dx,
                                                                          __m256d dy)
{
    __m256d t = _mm256_sub_pd(_mm256_sub_pd(_mm256_set1_pd(0.5), _mm256_mul_pd(dx, dx)),
                              _mm256_mul_pd(dy, dy));
    __m128i h = _mm_xor_si128(_mm_xor_si128(seed, hi), hj);
    h = _mm_xor_si128(h, _mm_srli_epi32(h, 16));
    h = _mm_mullo_epi32(h, _mm_set1_epi32(0x7FEB352D));
    h = _mm_xor_si128(h, _mm_srli_epi32(h, 15));
    h = _mm_mullo_epi32(h, _mm_set1_epi32((int)0x846CA68Bu));
    h = _mm_xor_si128(h, _mm_srli_epi32(h, 16));
    __m128i index = _mm_srli_epi32(h, 27);
    /* Each lane's (gx, gy) pair is one 16-byte load; two unpacks make the
     * gx and gy vectors (cheaper than two gathers). */
    int lane[4];
    _mm_storeu_si128((__m128i *)(void *)lane, index);
    __m256d g02 = _mm256_insertf128_pd(_mm256_castpd128_pd256(_mm_loadu_pd(GRADIENTS[lane[0]])),
                                       _mm_loadu_pd(GRADIENTS[lane[2]]), 1);
    __m256d g13 = _mm256_insertf128_pd(_mm256_castpd128_pd256(_mm_loadu_pd(GRADIENTS[lane[1]])),
                                       _mm_loadu_pd(GRADIENTS[lane[3]]), 1);
    __m256d gx = _mm256_unpacklo_pd(g02, g13); /* (g0x, g1x, g2x, g3x) */
    __m256d gy = _mm256_unpackhi_pd(g02, g13);
    __m256d t2 = _mm256_mul_pd(t, t);
    __m256d value = _mm256_mul_pd(_mm256_mul_pd(t2, t2),
                                  _mm256_add_pd(_mm256_mul_pd(gx, dx), _mm256_mul_pd(gy, dy)));
    /* t <= 0: exactly 0, as the scalar early return */
    __m256d inside = _mm256_cmp_pd(t, _mm256_setzero_pd(), _CMP_GT_OQ);
    return _mm256_and_pd(value, inside);
}

/* Four points (x, y), lanes with their own seeds; the caller checked
 * |x|, |y| < 2^49 in every lane. */
__attribute__((target("avx2"))) static inline __m256d simplex4_avx2(__m128i seeds, __m256d vx,
                                                                    __m256d vy)
{
    const __m256d one = _mm256_set1_pd(1.0);
    __m256d s = _mm256_mul_pd(_mm256_add_pd(vx, vy), _mm256_set1_pd(SIMPLEX_F2));
    __m256d xs = _mm256_add_pd(vx, s), ys = _mm256_add_pd(vy, s);
    __m256d cell_x = _mm256_floor_pd(xs), cell_y = _mm256_floor_pd(ys);
    __m256d a = _mm256_sub_pd(xs, cell_x), b = _mm256_sub_pd(ys, cell_y);
    __m256d t = _mm256_mul_pd(_mm256_add_pd(a, b), _mm256_set1_pd(SIMPLEX_G2));
    __m256d x0 = _mm256_sub_pd(a, t), y0 = _mm256_sub_pd(b, t);
    __m128i i = simplex_low32(cell_x), j = simplex_low32(cell_y);

    __m256d below = _mm256_cmp_pd(x0, y0, _CMP_GT_OQ); /* i1 = 1, j1 = 0 */
    __m256d i1 = _mm256_and_pd(below, one);
    __m256d j1 = _mm256_sub_pd(one, i1);
    /* i1 as a 0/1 integer: the low mantissa bits of 1.5*2^52 + i1 */
    __m128i i1_int = _mm_and_si128(simplex_low32(i1), _mm_set1_epi32(1));
    __m256d g2 = _mm256_set1_pd(SIMPLEX_G2), g2_twice = _mm256_set1_pd(SIMPLEX_G2_TWICE);
    __m256d x1 = _mm256_add_pd(_mm256_sub_pd(x0, i1), g2);
    __m256d y1 = _mm256_add_pd(_mm256_sub_pd(y0, j1), g2);
    __m256d x2 = _mm256_add_pd(_mm256_sub_pd(x0, one), g2_twice);
    __m256d y2 = _mm256_add_pd(_mm256_sub_pd(y0, one), g2_twice);

    const __m128i ci = _mm_set1_epi32(0x1DDE90C9), cj = _mm_set1_epi32(0x43C42E4D);
    __m128i hi = _mm_mullo_epi32(i, ci), hj = _mm_mullo_epi32(j, cj);
    /* i1, j1 are 0 or 1: i1 * c is c masked */
    __m128i i1_mask = _mm_sub_epi32(_mm_setzero_si128(), i1_int);
    __m128i hi1 = _mm_add_epi32(hi, _mm_and_si128(ci, i1_mask));
    __m128i hj1 = _mm_add_epi32(hj, _mm_andnot_si128(i1_mask, cj));
    __m256d n0 = simplex_corner_avx2(seeds, hi, hj, x0, y0);
    __m256d n1 = simplex_corner_avx2(seeds, hi1, hj1, x1, y1);
    __m256d n2 = simplex_corner_avx2(seeds, _mm_add_epi32(hi, ci), _mm_add_epi32(hj, cj), x2, y2);
    __m256d sum = _mm256_add_pd(_mm256_add_pd(n0, n1), n2);
    return _mm256_mul_pd(_mm256_set1_pd(SIMPLEX_SCALE), sum);
}

/* Lanes whose |v| < 2^49 (false for NaN), as a 4-bit mask. */
__attribute__((target("avx2"))) static inline int simplex_in_range(__m256d v)
{
    const __m256d abs_mask = _mm256_castsi256_pd(_mm256_set1_epi64x(INT64_MAX));
    return _mm256_movemask_pd(
        _mm256_cmp_pd(_mm256_and_pd(v, abs_mask), _mm256_set1_pd(SIMPLEX_AVX2_LIMIT), _CMP_LT_OQ));
}

__attribute__((target("avx2"))) void tf_simplex2_row_avx2(uint32_t seed, const double *x,
                                                          double y, size_t n, double *out)
{
    const __m128i seeds = _mm_set1_epi32((int)seed);
    const __m256d vy = _mm256_set1_pd(y);
    const int y_ok = fabs(y) < SIMPLEX_AVX2_LIMIT;
    size_t k = 0;
    for (; k + 4 <= n; k += 4) {
        __m256d vx = _mm256_loadu_pd(x + k);
        if (y_ok && simplex_in_range(vx) == 0xF) {
            _mm256_storeu_pd(out + k, simplex4_avx2(seeds, vx, vy));
        } else { /* huge or non-finite lanes (rare): the scalar code */
            for (size_t m = k; m < k + 4; m++)
                out[m] = tf_simplex2(seed, x[m], y);
        }
    }
    for (; k < n; k++)
        out[k] = tf_simplex2(seed, x[k], y);
}

__attribute__((target("avx2"))) void tf_simplex2_lanes_avx2(const uint32_t *seed, const double *x,
                                                            const double *y, size_t n,
                                                            double *out)
{
    size_t k = 0;
    for (; k + 4 <= n; k += 4) {
        __m256d vx = _mm256_loadu_pd(x + k), vy = _mm256_loadu_pd(y + k);
        if ((simplex_in_range(vx) & simplex_in_range(vy)) == 0xF) {
            __m128i seeds = _mm_loadu_si128((const __m128i *)(const void *)(seed + k));
            _mm256_storeu_pd(out + k, simplex4_avx2(seeds, vx, vy));
        } else {
            for (size_t m = k; m < k + 4; m++)
                out[m] = tf_simplex2(seed[m], x[m], y[m]);
        }
    }
    if (k < n) { /* the last 1-3 lanes, padded with (0, 0) */
        uint32_t tail_seed[4] = {0, 0, 0, 0};
        double tail_x[4] = {0.0, 0.0, 0.0, 0.0}, tail_y[4] = {0.0, 0.0, 0.0, 0.0}, tail_out[4];
        for (size_t m = k; m < n; m++) {
            tail_seed[m - k] = seed[m];
            tail_x[m - k] = x[m];
            tail_y[m - k] = y[m];
        }
        tf_simplex2_lanes_avx2(tail_seed, tail_x, tail_y, 4, tail_out);
        for (size_t m = k; m < n; m++)
            out[m] = tail_out[m - k];
    }
}
#endif
