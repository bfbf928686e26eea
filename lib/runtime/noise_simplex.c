/*
 * "simplex": seeded 2D simplex noise (docs/noise.md, "simplex").
 * The skewed triangular lattice of Perlin's simplex noise with a 32-bit
 * integer hash per lattice point instead of a 256-entry permutation, so the
 * pattern never repeats within |x|, |y| < 2^31 lattice cells, and 32 unit
 * gradients so no direction is favoured. Every constant is listed in the
 * docs so a port reproduces the same doubles.
 */
#include <math.h>
#include <string.h>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif

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
#define SIMPLEX_PAIR(gx, gy) {gx, gy},
static const double GRADIENTS[32][2] = {SIMPLEX_GRADIENTS(SIMPLEX_PAIR)};

/* Lattice hash constants: a corner (i, j) hashes
 * seed ^ (i * HASH_I) ^ (j * HASH_J) (mod 2^32). */
#define HASH_I 0x1DDE90C9u
#define HASH_J 0x43C42E4Du

/* The lattice hash of corner (i, j), given h = seed ^ (i * HASH_I) ^
 * (j * HASH_J), finished with the lowbias32 mixer so every input bit (seed
 * included) reaches the top 5 bits, which pick the gradient. The mixer's
 * last step, h ^= h >> 16, leaves those bits as they are, so it is left
 * out. */
static inline unsigned gradient_index(uint32_t h)
{
    h ^= h >> 16;
    h *= 0x7FEB352Du;
    h ^= h >> 15;
    h *= 0x846CA68Bu;
    return h >> 27;
}

/* v where the corner is in reach (t > 0), else +0.0 (t <= 0 or NaN), as
 * bit operations: compilers turn the plain `t <= 0.0 ? 0.0 : v` into a
 * branch around the whole corner, which mispredicts at points that come in
 * no order. */
static inline double select_in_reach(double t, double v)
{
#if defined(__SSE2__)
    /* x86-64: a compare and an and, in the vector registers */
    __m128d reach = _mm_cmpgt_sd(_mm_set_sd(t), _mm_setzero_pd());
    return _mm_cvtsd_f64(_mm_and_pd(_mm_set_sd(v), reach));
#else
    uint64_t bits;
    memcpy(&bits, &v, sizeof bits);
    bits &= 0u - (uint64_t)(t > 0.0);
    memcpy(&v, &bits, sizeof v);
    return v;
#endif
}

/* One corner's contribution (0.5 - dx^2 - dy^2)^4 * (g . d), or 0, and,
 * when gx is not NULL, its gradient with respect to the corner offset
 * (dx, dy), which moves one for one with the sample point (the skew and
 * unskew cancel: F2 - G2 - 2 F2 G2 = 0): with t2 = t^2, t4 = t2^2 and
 * gd = g . d, t4 g - (8 t^3 gd) d. hash is gradient_index's input. */
static inline double corner(uint32_t hash, double dx, double dy, double *gx, double *gy)
{
    /* Computed whether or not the corner is in reach, then selected: no
     * hard-to-predict branch, the same bits. */
    double t = 0.5 - dx * dx - dy * dy;
    const double *g = GRADIENTS[gradient_index(hash)];
    double t2 = t * t, t4 = t2 * t2;
    double gd = g[0] * dx + g[1] * dy;
    if (gx) {
        double k = (8.0 * (t2 * t)) * gd;
        *gx = select_in_reach(t, t4 * g[0] - k * dx);
        *gy = select_in_reach(t, t4 * g[1] - k * dy);
    }
    return select_in_reach(t, t4 * gd);
}

/* tf_simplex2, and its gradient when dndx is not NULL (then dndy must be
 * too), inlined into every entry point, so the value-only ones carry no
 * derivative arithmetic. libm_floor: floor() itself, for code compiled
 * where it is one instruction (the AVX2 single-point entry); else
 * floor_small. Both give the same double. */
static inline __attribute__((always_inline)) double
simplex_eval_floor(uint32_t seed, double x, double y, double *dndx, double *dndy, int libm_floor)
{
    if (!(fabs(x) < SIMPLEX_MAX_COORD && fabs(y) < SIMPLEX_MAX_COORD)) {
        if (dndx)
            *dndx = *dndy = NAN;
        return NAN;
    }

    /* Skew to find the cell, then work in small local coordinates so the
     * precision does not depend on how far from the origin the point is. */
    double s = (x + y) * SIMPLEX_F2;
    double cell_x = libm_floor ? floor(x + s) : floor_small(x + s);
    double cell_y = libm_floor ? floor(y + s) : floor_small(y + s);
    double a = (x + s) - cell_x, b = (y + s) - cell_y; /* skewed, in [0, 1] */
    double t = (a + b) * SIMPLEX_G2;
    double x0 = a - t, y0 = b - t; /* unskewed offset from corner 0 */

    /* Integer lattice coordinates modulo 2^32 (two's complement wrap). */
    uint32_t i = (uint32_t)(int64_t)cell_x, j = (uint32_t)(int64_t)cell_y;

    /* The middle corner is (1, 0) below the diagonal, (0, 1) above it. */
    uint32_t i1 = x0 > y0 ? 1u : 0u, j1 = 1u - i1;
    double x1 = x0 - (double)i1 + SIMPLEX_G2, y1 = y0 - (double)j1 + SIMPLEX_G2;
    double x2 = x0 - 1.0 + SIMPLEX_G2_TWICE, y2 = y0 - 1.0 + SIMPLEX_G2_TWICE;

    /* The corners' hash products from corner 0's: (i + 1) * c = i * c + c
     * (mod 2^32), the same bits as the products themselves. */
    uint32_t hi = i * HASH_I, hj = j * HASH_J;
    double g[3][2];
    int slope = dndx != NULL;
    double n0 = corner(seed ^ hi ^ hj, x0, y0, slope ? &g[0][0] : NULL, &g[0][1]);
    uint32_t below = 0u - i1; /* all ones when corner 1 is (1, 0) */
    double n1 = corner(seed ^ (hi + (HASH_I & below)) ^ (hj + (HASH_J & ~below)), x1, y1,
                       slope ? &g[1][0] : NULL, &g[1][1]);
    double n2 = corner(seed ^ (hi + HASH_I) ^ (hj + HASH_J), x2, y2, slope ? &g[2][0] : NULL,
                       &g[2][1]);
    if (slope) {
        *dndx = SIMPLEX_SCALE * (g[0][0] + g[1][0] + g[2][0]);
        *dndy = SIMPLEX_SCALE * (g[0][1] + g[1][1] + g[2][1]);
    }
    return SIMPLEX_SCALE * (n0 + n1 + n2);
}

static inline double simplex_eval(uint32_t seed, double x, double y, double *dndx, double *dndy)
{
    return simplex_eval_floor(seed, x, y, dndx, dndy, 0);
}

const double *tf_simplex_gradient_table(void)
{
    return &GRADIENTS[0][0];
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

/* tf_simplex2 for one point on an AVX2 machine: the same code, with floor
 * as one rounding instruction (exact, as floor_small is). */
__attribute__((target("avx2"))) double tf_simplex2_avx2(uint32_t seed, double x, double y)
{
    return simplex_eval_floor(seed, x, y, NULL, NULL, 1);
}

/*
 * AVX2: eight points at a time, each lane running the scalar code's IEEE
 * double operations in the same order (separate mul and add: the runtime
 * is built with -ffp-contract=off and no FMA is written here), so every
 * lane has the scalar bits.
 *
 * The doubles of the eight points are two vectors of four, halves A and B.
 * Their 32-bit integer work (lattice products, hash) runs once for all
 * eight, in one 256-bit vector whose lanes hold, in this order (what
 * _mm256_shuffle_ps gives when it takes the low 32 bits of each 64-bit
 * lane of A and of B):
 *
 *     int lane   0   1   2   3   4   5   6   7
 *     point     A0  A1  B0  B1  A2  A3  B2  B3
 *
 * Lanes need |x|, |y| < 2^49: then the cell index |floor(x + s)| < 2^51
 * and adding 1.5 * 2^52 leaves its low 32 bits (two's complement) in the
 * low mantissa bits, the value (uint32_t)(int64_t)cell would have. Blocks
 * with a lane outside (huge, infinite, NaN) take the scalar code.
 */
#define SIMPLEX_AVX2_LIMIT 562949953421312.0 /* 2^49 */
#define SIMPLEX_INT_MAGIC 6755399441055744.0 /* 1.5 * 2^52 */

/* Inlined into the entry points, so the whole computation stays in
 * registers (a call boundary would spill the vectors). */
#define SIMPLEX_AVX2_INLINE static inline __attribute__((target("avx2"), always_inline))

/* The constants as vectors, in read-only memory, built once at compile
 * time (not per call: the single-sample path makes a call per sample).
 * There are more of them than the 16 vector registers hold next to the
 * working values, so most are read as instruction operands. The entry
 * points reach them through a pointer hidden from the optimizer (an empty
 * asm that might change it); otherwise GCC rebuilds the integer ones
 * inside the loop, three instructions each, and spills them anyway. */
typedef struct {
    __m256d f2, g2, g2_twice, magic, half, one, scale, limit;
    __m256i abs_mask, hash_i, hash_j, mix1, mix2;
} simplex_avx2_consts;

#define SIMPLEX_SPLAT_PD(v) {(v), (v), (v), (v)}
/* Four 64-bit lanes, each two copies of the 32-bit v. */
#define SIMPLEX_SPLAT_EPI32(v)                                                                     \
    {(long long)(((unsigned long long)(v) << 32) | (v)),                                           \
     (long long)(((unsigned long long)(v) << 32) | (v)),                                           \
     (long long)(((unsigned long long)(v) << 32) | (v)),                                           \
     (long long)(((unsigned long long)(v) << 32) | (v))}

static const simplex_avx2_consts SIMPLEX_AVX2_CONSTS = {
    .f2 = SIMPLEX_SPLAT_PD(SIMPLEX_F2),
    .g2 = SIMPLEX_SPLAT_PD(SIMPLEX_G2),
    .g2_twice = SIMPLEX_SPLAT_PD(SIMPLEX_G2_TWICE),
    .magic = SIMPLEX_SPLAT_PD(SIMPLEX_INT_MAGIC),
    .half = SIMPLEX_SPLAT_PD(0.5),
    .one = SIMPLEX_SPLAT_PD(1.0),
    .scale = SIMPLEX_SPLAT_PD(SIMPLEX_SCALE),
    .limit = SIMPLEX_SPLAT_PD(SIMPLEX_AVX2_LIMIT),
    .abs_mask = {INT64_MAX, INT64_MAX, INT64_MAX, INT64_MAX},
    .hash_i = SIMPLEX_SPLAT_EPI32(HASH_I),
    .hash_j = SIMPLEX_SPLAT_EPI32(HASH_J),
    .mix1 = SIMPLEX_SPLAT_EPI32(0x7FEB352Du),
    .mix2 = SIMPLEX_SPLAT_EPI32(0x846CA68Bu),
};

SIMPLEX_AVX2_INLINE const simplex_avx2_consts *simplex_consts(void)
{
    const simplex_avx2_consts *c = &SIMPLEX_AVX2_CONSTS;
    __asm__("" : "+r"(c));
    return c;
}

/* The low 32 bits of each 64-bit lane of a, then of b, in the order above. */
SIMPLEX_AVX2_INLINE __m256i simplex_pack_low32(__m256d a, __m256d b)
{
    return _mm256_castps_si256(
        _mm256_shuffle_ps(_mm256_castpd_ps(a), _mm256_castpd_ps(b), _MM_SHUFFLE(2, 0, 2, 0)));
}

/* simplex_eval's skew for four points: the offset (x0, y0) from corner 0,
 * and the cell indices plus 1.5 * 2^52 (their low 32 bits are i and j). */
SIMPLEX_AVX2_INLINE void simplex_skew_avx2(const simplex_avx2_consts *c, __m256d x, __m256d y,
                                           __m256d *x0, __m256d *y0, __m256d *i_bits,
                                           __m256d *j_bits)
{
    __m256d s = _mm256_mul_pd(_mm256_add_pd(x, y), c->f2);
    __m256d xs = _mm256_add_pd(x, s), ys = _mm256_add_pd(y, s);
    __m256d cell_x = _mm256_floor_pd(xs), cell_y = _mm256_floor_pd(ys); /* IEEE floor */
    __m256d a = _mm256_sub_pd(xs, cell_x), b = _mm256_sub_pd(ys, cell_y);
    __m256d t = _mm256_mul_pd(_mm256_add_pd(a, b), c->g2);
    *x0 = _mm256_sub_pd(a, t);
    *y0 = _mm256_sub_pd(b, t);
    *i_bits = _mm256_add_pd(cell_x, c->magic);
    *j_bits = _mm256_add_pd(cell_y, c->magic);
}

/* gradient_index of eight lanes, stored as byte offsets into GRADIENTS
 * (16 bytes an entry); hi = i * HASH_I, hj = j * HASH_J (mod 2^32),
 * without the mixer's last step, as gradient_index. The lanes are read
 * back from memory as 32-bit loads, cheaper than extracting them from the
 * register (vpextrd is two operations); the empty asm keeps GCC from
 * turning the loads back into extractions. */
SIMPLEX_AVX2_INLINE void simplex_offsets_avx2(const simplex_avx2_consts *c, __m256i seed,
                                              __m256i hi, __m256i hj, uint32_t off[8])
{
    __m256i h = _mm256_xor_si256(_mm256_xor_si256(seed, hi), hj);
    h = _mm256_xor_si256(h, _mm256_srli_epi32(h, 16));
    h = _mm256_mullo_epi32(h, c->mix1);
    h = _mm256_xor_si256(h, _mm256_srli_epi32(h, 15));
    h = _mm256_mullo_epi32(h, c->mix2);
    h = _mm256_slli_epi32(_mm256_srli_epi32(h, 27), 4);
    _mm256_store_si256((__m256i *)(void *)off, h);
    __asm__("" : "+m"(*(uint32_t(*)[8])off));
}

/* The gradients of four lanes whose byte offsets are off[0], off[1],
 * off[4], off[5] (half A at off, half B at off + 2): each (gx, gy) pair is
 * one 16-byte load, and two unpacks make the gx and gy vectors (cheaper
 * than gathers on this hardware). */
SIMPLEX_AVX2_INLINE void simplex_gradients_avx2(const uint32_t *off, __m256d *gx, __m256d *gy)
{
    const char *table = (const char *)GRADIENTS;
#define SIMPLEX_G(lane) _mm_loadu_pd((const double *)(const void *)(table + off[lane]))
    __m256d g02 = _mm256_insertf128_pd(_mm256_castpd128_pd256(SIMPLEX_G(0)), SIMPLEX_G(4), 1);
    __m256d g13 = _mm256_insertf128_pd(_mm256_castpd128_pd256(SIMPLEX_G(1)), SIMPLEX_G(5), 1);
#undef SIMPLEX_G
    *gx = _mm256_unpacklo_pd(g02, g13); /* (g0x, g1x, g2x, g3x) */
    *gy = _mm256_unpackhi_pd(g02, g13);
}

/* corner()'s value for four lanes; t <= 0 gives exactly 0.0, a select of
 * the same value as the scalar code's. */
SIMPLEX_AVX2_INLINE __m256d simplex_corner_avx2(const simplex_avx2_consts *c, const uint32_t *off,
                                                __m256d dx, __m256d dy)
{
    __m256d gx, gy;
    simplex_gradients_avx2(off, &gx, &gy);
    __m256d t =
        _mm256_sub_pd(_mm256_sub_pd(c->half, _mm256_mul_pd(dx, dx)), _mm256_mul_pd(dy, dy));
    __m256d t2 = _mm256_mul_pd(t, t);
    __m256d value = _mm256_mul_pd(_mm256_mul_pd(t2, t2),
                                  _mm256_add_pd(_mm256_mul_pd(gx, dx), _mm256_mul_pd(gy, dy)));
    return _mm256_and_pd(value, _mm256_cmp_pd(t, _mm256_setzero_pd(), _CMP_GT_OQ));
}

/* A block of eight points in two steps: the skew and the three corners'
 * hashes (simplex8_prepare), then the gradients and the corner values
 * (simplex8_finish). The hash, the store and reload of its offsets and
 * the gradient loads that depend on them are a long chain of latency, and
 * one block's work is about as much as the processor looks ahead; so a row
 * prepares several blocks before it finishes them, and their chains run
 * at the same time. */
typedef struct {
    __m256d x0[2], y0[2];            /* halves A and B */
    _Alignas(32) uint32_t off[3][8]; /* per corner, in the lane order above */
} simplex8_state;

/* Prepare the points (xa, ya), (xb, yb), the seeds in the lane order
 * above; with both == 0 only half A (B's inputs must then be A's). */
SIMPLEX_AVX2_INLINE void simplex8_prepare(const simplex_avx2_consts *c, __m256i seed, __m256d xa,
                                          __m256d ya, __m256d xb, __m256d yb, simplex8_state *st,
                                          int both)
{
    __m256d ia, ja, ib, jb;
    simplex_skew_avx2(c, xa, ya, &st->x0[0], &st->y0[0], &ia, &ja);
    if (both)
        simplex_skew_avx2(c, xb, yb, &st->x0[1], &st->y0[1], &ib, &jb);
    else
        ib = ia, jb = ja;
    /* corner 1 is (i1, j1) = (1, 0) below the diagonal (x0 > y0), else (0, 1) */
    __m256d below_a = _mm256_cmp_pd(st->x0[0], st->y0[0], _CMP_GT_OQ);
    __m256d below_b = both ? _mm256_cmp_pd(st->x0[1], st->y0[1], _CMP_GT_OQ) : below_a;
    __m256i below = simplex_pack_low32(below_a, below_b);
    /* The other corners' hash products from corner 0's: (i + 1) * c =
     * i * c + c (mod 2^32), the bits of the scalar multiplication; corner
     * 1 adds the constant or 0. */
    __m256i hi = _mm256_mullo_epi32(simplex_pack_low32(ia, ib), c->hash_i);
    __m256i hj = _mm256_mullo_epi32(simplex_pack_low32(ja, jb), c->hash_j);
    simplex_offsets_avx2(c, seed, hi, hj, st->off[0]);
    simplex_offsets_avx2(c, seed, _mm256_add_epi32(hi, _mm256_and_si256(below, c->hash_i)),
                         _mm256_add_epi32(hj, _mm256_andnot_si256(below, c->hash_j)), st->off[1]);
    simplex_offsets_avx2(c, seed, _mm256_add_epi32(hi, c->hash_i), _mm256_add_epi32(hj, c->hash_j),
                         st->off[2]);
}

/* Half h (0: A, 1: B) of a prepared block: SIMPLEX_SCALE * ((n0 + n1) +
 * n2), the scalar sum. */
SIMPLEX_AVX2_INLINE __m256d simplex8_finish(const simplex_avx2_consts *c, const simplex8_state *st,
                                            int h)
{
    __m256d x0 = st->x0[h], y0 = st->y0[h];
    __m256d n = simplex_corner_avx2(c, st->off[0] + 2 * h, x0, y0);
    /* corner 1: x0 - i1 and y0 - j1 with 1.0 or 0.0 selected by the mask
     * (x0 - 0.0 is x0) */
    __m256d below = _mm256_cmp_pd(x0, y0, _CMP_GT_OQ);
    n = _mm256_add_pd(
        n, simplex_corner_avx2(
               c, st->off[1] + 2 * h,
               _mm256_add_pd(_mm256_sub_pd(x0, _mm256_and_pd(below, c->one)), c->g2),
               _mm256_add_pd(_mm256_sub_pd(y0, _mm256_andnot_pd(below, c->one)), c->g2)));
    /* corner 2: (1, 1) */
    n = _mm256_add_pd(n,
                      simplex_corner_avx2(c, st->off[2] + 2 * h,
                                          _mm256_add_pd(_mm256_sub_pd(x0, c->one), c->g2_twice),
                                          _mm256_add_pd(_mm256_sub_pd(y0, c->one), c->g2_twice)));
    return _mm256_mul_pd(c->scale, n);
}

/* Lanes whose |v| < 2^49 (false for NaN), as all-ones lanes. */
SIMPLEX_AVX2_INLINE __m256d simplex_in_range(const simplex_avx2_consts *c, __m256d v)
{
    __m256d magnitude = _mm256_and_pd(v, _mm256_castsi256_pd(c->abs_mask));
    return _mm256_cmp_pd(magnitude, c->limit, _CMP_LT_OQ);
}

/* The scalar code for a block with a lane out of the vector range (rare);
 * out of line, so the vector loops keep their registers. */
__attribute__((noinline, cold)) static void simplex_row_scalar(uint32_t seed, const double *x,
                                                               double y, size_t n, double *out)
{
    for (size_t k = 0; k < n; k++)
        out[k] = tf_simplex2(seed, x[k], y);
}

/* p[0 .. 3] and p[4 .. 7] of n (1-8) values, 0.0 past the n-th. The
 * partial vectors are masked loads: they read nothing past p[n - 1] and,
 * unlike a tail copied into a padded array, do not stall on forwarding
 * small stores to a wide load. */
SIMPLEX_AVX2_INLINE void simplex_load8(const double *p, size_t n, __m256d *a, __m256d *b)
{
    const __m256i lane = _mm256_setr_epi64x(0, 1, 2, 3);
    if (n >= 4) {
        *a = _mm256_loadu_pd(p);
        *b = n == 8 ? _mm256_loadu_pd(p + 4)
                    : _mm256_maskload_pd(p + 4, _mm256_cmpgt_epi64(
                                                    _mm256_set1_epi64x((long long)n - 4), lane));
    } else {
        *a = _mm256_maskload_pd(p, _mm256_cmpgt_epi64(_mm256_set1_epi64x((long long)n), lane));
        *b = _mm256_setzero_pd();
    }
}

/* out[0 .. n - 1] of the eight lanes a, b. */
SIMPLEX_AVX2_INLINE void simplex_store8(double *out, size_t n, __m256d a, __m256d b)
{
    if (n == 8) {
        _mm256_storeu_pd(out, a);
        _mm256_storeu_pd(out + 4, b);
    } else if (n == 4) {
        _mm256_storeu_pd(out, a);
    } else {
        double lanes[8];
        _mm256_storeu_pd(lanes, a);
        _mm256_storeu_pd(lanes + 4, b);
        for (size_t m = 0; m < n; m++)
            out[m] = lanes[m];
    }
}

/* n (1-8) points (x[m], y) in one block, |y| < 2^49; with n <= 4 only
 * half A is computed. */
SIMPLEX_AVX2_INLINE void simplex_row_block(const simplex_avx2_consts *c, uint32_t seed,
                                           __m256i seeds, const double *x, double y, __m256d vy,
                                           size_t n, double *out)
{
    simplex8_state st;
    __m256d xa, xb, na, nb;
    simplex_load8(x, n, &xa, &xb);
    if (_mm256_movemask_pd(_mm256_and_pd(simplex_in_range(c, xa), simplex_in_range(c, xb))) !=
        0xF) {
        simplex_row_scalar(seed, x, y, n, out);
        return;
    }
    simplex8_prepare(c, seeds, xa, vy, n > 4 ? xb : xa, vy, &st, n > 4);
    na = simplex8_finish(c, &st, 0);
    nb = n > 4 ? simplex8_finish(c, &st, 1) : na;
    simplex_store8(out, n, na, nb);
}

/* Blocks of eight a row prepares before it finishes them (four measured
 * best: 2 and 3 are slower, 8 no faster). */
#define SIMPLEX_ROW_BLOCKS 4

__attribute__((target("avx2"))) void tf_simplex2_row_avx2(uint32_t seed, const double *x, double y,
                                                          size_t n, double *out)
{
    if (!(fabs(y) < SIMPLEX_AVX2_LIMIT)) {
        simplex_row_scalar(seed, x, y, n, out);
        return;
    }
    const simplex_avx2_consts *c = simplex_consts();
    /* row constants: the seed in every lane, and y */
    const __m256i seeds = _mm256_set1_epi32((int)seed);
    const __m256d vy = _mm256_set1_pd(y);
    simplex8_state st[SIMPLEX_ROW_BLOCKS];
    size_t m = 0;
    while (n - m >= 8) {
        size_t blocks = (n - m) / 8 < SIMPLEX_ROW_BLOCKS ? (n - m) / 8 : SIMPLEX_ROW_BLOCKS;
        unsigned scalar = 0; /* blocks with a lane out of range */
        for (size_t b = 0; b < blocks; b++) {
            __m256d xa = _mm256_loadu_pd(x + m + 8 * b), xb = _mm256_loadu_pd(x + m + 8 * b + 4);
            if (_mm256_movemask_pd(
                    _mm256_and_pd(simplex_in_range(c, xa), simplex_in_range(c, xb))) == 0xF)
                simplex8_prepare(c, seeds, xa, vy, xb, vy, &st[b], 1);
            else
                scalar |= 1u << b;
        }
        for (size_t b = 0; b < blocks; b++, m += 8) {
            if (scalar & (1u << b)) {
                simplex_row_scalar(seed, x + m, y, 8, out + m);
                continue;
            }
            _mm256_storeu_pd(out + m, simplex8_finish(c, &st[b], 0));
            _mm256_storeu_pd(out + m + 4, simplex8_finish(c, &st[b], 1));
        }
    }
    if (m < n) /* the last 1-7 points */
        simplex_row_block(c, seed, seeds, x + m, y, vy, n - m, out + m);
}

/* n (1-8) lanes with their own seeds at points (xa|xb, ya|yb), every
 * lane in range. */
SIMPLEX_AVX2_INLINE void simplex_lanes_finish(const simplex_avx2_consts *c, const uint32_t *seed,
                                              size_t n, __m256d xa, __m256d xb, __m256d ya,
                                              __m256d yb, double *out)
{
    simplex8_state st;
    __m256d na, nb;
    /* The seeds (s0 .. s7) to the lane order (s0 s1 s4 s5 s2 s3 s6 s7):
     * 64-bit pieces 0 2 1 3; with one half, 0 0 1 1 (only lanes 0, 1, 4, 5
     * are used). Past the n-th, a masked load reads 0. */
    const __m256i lane = _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7);
    const __m256i present = _mm256_cmpgt_epi32(_mm256_set1_epi32((int)n), lane);
    __m256i seeds = n == 8 ? _mm256_loadu_si256((const __m256i *)(const void *)seed)
                           : _mm256_maskload_epi32((const int *)(const void *)seed, present);
    if (n > 4) {
        seeds = _mm256_permute4x64_epi64(seeds, _MM_SHUFFLE(3, 1, 2, 0));
        simplex8_prepare(c, seeds, xa, ya, xb, yb, &st, 1);
    } else {
        seeds = _mm256_permute4x64_epi64(seeds, _MM_SHUFFLE(1, 1, 0, 0));
        simplex8_prepare(c, seeds, xa, ya, xa, ya, &st, 0);
    }
    na = simplex8_finish(c, &st, 0);
    nb = n > 4 ? simplex8_finish(c, &st, 1) : na;
    simplex_store8(out, n, na, nb);
}

/* The scalar code for lanes at (x * f + ox, y * f + oy). */
__attribute__((noinline, cold)) static void
simplex_lanes_at_scalar(const uint32_t *seed, double x, double y, const double *f, const double *ox,
                        const double *oy, size_t n, double *out)
{
    for (size_t k = 0; k < n; k++)
        out[k] = tf_simplex2(seed[k], x * f[k] + ox[k], y * f[k] + oy[k]);
}

/* tf_simplex2(seed[k], x * f[k] + ox[k], y * f[k] + oy[k]) for k < n,
 * eight lanes a block; the lane points computed here, a multiply then an
 * add (the scalar expression's operations): the single-sample path's
 * layers. Their frequencies and offsets were written
 * when the terrain was compiled, so loading them as vectors does not wait
 * on the small stores of a freshly filled array (that wait made two
 * layers in lanes slower than two scalar calls). */
__attribute__((target("avx2"))) void tf_simplex2_lanes_at_avx2(const uint32_t *seed, double x,
                                                               double y, const double *f,
                                                               const double *ox, const double *oy,
                                                               size_t n, double *out)
{
    const simplex_avx2_consts *c = simplex_consts();
    const __m256d vx = _mm256_set1_pd(x), vy = _mm256_set1_pd(y);
    for (size_t m = 0; m < n; m += 8) {
        size_t count = n - m < 8 ? n - m : 8;
        __m256d fa, fb, oxa, oxb, oya, oyb;
        simplex_load8(f + m, count, &fa, &fb);
        simplex_load8(ox + m, count, &oxa, &oxb);
        simplex_load8(oy + m, count, &oya, &oyb);
        __m256d xa = _mm256_add_pd(_mm256_mul_pd(vx, fa), oxa);
        __m256d xb = _mm256_add_pd(_mm256_mul_pd(vx, fb), oxb);
        __m256d ya = _mm256_add_pd(_mm256_mul_pd(vy, fa), oya);
        __m256d yb = _mm256_add_pd(_mm256_mul_pd(vy, fb), oyb);
        /* lanes past the n-th hold 0 * x + 0: in range unless x or y is
         * not finite, and then the whole block takes the scalar code */
        __m256d ok_a = _mm256_and_pd(simplex_in_range(c, xa), simplex_in_range(c, ya));
        __m256d ok_b = _mm256_and_pd(simplex_in_range(c, xb), simplex_in_range(c, yb));
        if (_mm256_movemask_pd(_mm256_and_pd(ok_a, ok_b)) != 0xF)
            simplex_lanes_at_scalar(seed + m, x, y, f + m, ox + m, oy + m, count, out + m);
        else
            simplex_lanes_finish(c, seed + m, count, xa, xb, ya, yb, out + m);
    }
}
#endif

#if TF_HAVE_AVX2_PATH
/* corner()'s value and gradient for four lanes: t4 g - (8 t^3 gd) d, each
 * selected like the value (0.0 where t <= 0). */
SIMPLEX_AVX2_INLINE __m256d simplex_corner_deriv_avx2(const simplex_avx2_consts *c,
                                                      const uint32_t *off, __m256d dx,
                                                      __m256d dy, __m256d *cgx, __m256d *cgy)
{
    __m256d gx, gy;
    simplex_gradients_avx2(off, &gx, &gy);
    __m256d t =
        _mm256_sub_pd(_mm256_sub_pd(c->half, _mm256_mul_pd(dx, dx)), _mm256_mul_pd(dy, dy));
    __m256d t2 = _mm256_mul_pd(t, t), t4 = _mm256_mul_pd(t2, t2);
    __m256d gd = _mm256_add_pd(_mm256_mul_pd(gx, dx), _mm256_mul_pd(gy, dy));
    __m256d k = _mm256_mul_pd(_mm256_mul_pd(_mm256_set1_pd(8.0), _mm256_mul_pd(t2, t)), gd);
    __m256d reach = _mm256_cmp_pd(t, _mm256_setzero_pd(), _CMP_GT_OQ);
    *cgx = _mm256_and_pd(_mm256_sub_pd(_mm256_mul_pd(t4, gx), _mm256_mul_pd(k, dx)), reach);
    *cgy = _mm256_and_pd(_mm256_sub_pd(_mm256_mul_pd(t4, gy), _mm256_mul_pd(k, dy)), reach);
    return _mm256_and_pd(_mm256_mul_pd(t4, gd), reach);
}

/* Half h of a prepared block with the gradient: simplex_eval's sums
 * SIMPLEX_SCALE * ((c0 + c1) + c2) of the values and of each component. */
SIMPLEX_AVX2_INLINE __m256d simplex8_finish_deriv(const simplex_avx2_consts *c,
                                                  const simplex8_state *st, int h, __m256d *ndx,
                                                  __m256d *ndy)
{
    __m256d x0 = st->x0[h], y0 = st->y0[h], gx, gy, sx, sy;
    __m256d n = simplex_corner_deriv_avx2(c, st->off[0] + 2 * h, x0, y0, &sx, &sy);
    __m256d below = _mm256_cmp_pd(x0, y0, _CMP_GT_OQ);
    n = _mm256_add_pd(
        n, simplex_corner_deriv_avx2(
               c, st->off[1] + 2 * h,
               _mm256_add_pd(_mm256_sub_pd(x0, _mm256_and_pd(below, c->one)), c->g2),
               _mm256_add_pd(_mm256_sub_pd(y0, _mm256_andnot_pd(below, c->one)), c->g2), &gx,
               &gy));
    sx = _mm256_add_pd(sx, gx);
    sy = _mm256_add_pd(sy, gy);
    n = _mm256_add_pd(n, simplex_corner_deriv_avx2(
                             c, st->off[2] + 2 * h,
                             _mm256_add_pd(_mm256_sub_pd(x0, c->one), c->g2_twice),
                             _mm256_add_pd(_mm256_sub_pd(y0, c->one), c->g2_twice), &gx, &gy));
    *ndx = _mm256_mul_pd(c->scale, _mm256_add_pd(sx, gx));
    *ndy = _mm256_mul_pd(c->scale, _mm256_add_pd(sy, gy));
    return _mm256_mul_pd(c->scale, n);
}

/* The scalar code for a block with a lane out of the vector range (dx
 * NULL: the values only). */
__attribute__((noinline, cold)) static void simplex_points_deriv_scalar(
    uint32_t seed, const double *x, const double *y, size_t n, double *v, double *dx, double *dy)
{
    for (size_t k = 0; k < n; k++)
        v[k] = dx ? tf_simplex2_deriv(seed, x[k], y[k], &dx[k], &dy[k])
                  : tf_simplex2(seed, x[k], y[k]);
}

/* The points call with (deriv 1) or without (deriv 0, dx and dy unused)
 * the gradient, a constant in each entry's inlined copy. The values are
 * the same bits either way: the value's operations do not depend on
 * whether the gradient is made (simplex_eval_floor). */
SIMPLEX_AVX2_INLINE void simplex_points_avx2(uint32_t seed, const double *x, const double *y,
                                             size_t n, double *v, double *dx, double *dy,
                                             int deriv)
{
    const simplex_avx2_consts *c = simplex_consts();
    const __m256i seeds = _mm256_set1_epi32((int)seed);
    for (size_t m = 0; m < n; m += 8) {
        size_t count = n - m < 8 ? n - m : 8;
        __m256d xa, xb, ya, yb;
        simplex_load8(x + m, count, &xa, &xb);
        simplex_load8(y + m, count, &ya, &yb);
        __m256d ok = _mm256_and_pd(_mm256_and_pd(simplex_in_range(c, xa), simplex_in_range(c, xb)),
                                   _mm256_and_pd(simplex_in_range(c, ya), simplex_in_range(c, yb)));
        if (_mm256_movemask_pd(ok) != 0xF) {
            simplex_points_deriv_scalar(seed, x + m, y + m, count, v + m, deriv ? dx + m : NULL,
                                        deriv ? dy + m : NULL);
            continue;
        }
        simplex8_state st;
        simplex8_prepare(c, seeds, xa, ya, xb, yb, &st, 1);
        if (!deriv) {
            simplex_store8(v + m, count, simplex8_finish(c, &st, 0), simplex8_finish(c, &st, 1));
            continue;
        }
        __m256d ga, gb, ha, hb;
        __m256d na = simplex8_finish_deriv(c, &st, 0, &ga, &ha);
        __m256d nb = simplex8_finish_deriv(c, &st, 1, &gb, &hb);
        simplex_store8(v + m, count, na, nb);
        simplex_store8(dx + m, count, ga, gb);
        simplex_store8(dy + m, count, ha, hb);
    }
}

__attribute__((target("avx2"))) void tf_simplex2_points_deriv_avx2(uint32_t seed, const double *x,
                                                                   const double *y, size_t n,
                                                                   double *v, double *dx,
                                                                   double *dy)
{
    if (dx)
        simplex_points_avx2(seed, x, y, n, v, dx, dy, 1);
    else
        simplex_points_avx2(seed, x, y, n, v, NULL, NULL, 0);
}
#endif

#if TF_HAVE_AVX512_PATH
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

/* The blocks of sixteen of a row from m on, with windows while they fit;
 * returns where it stopped: n - m < 16, or at the block that did not fit
 * the window made for it. */
SIMPLEX_AVX512_INLINE size_t simplex_row_windows(__m512i seeds, uint32_t seed, const double *x,
                                                 double y, __m512d vy, size_t n, double *out)
{
    simplex_window512 w;
    int built = 0;
    size_t m = 0;
    for (; n - m >= 16; m += 16) {
        __m512d xa = _mm512_loadu_pd(x + m), xb = _mm512_loadu_pd(x + m + 8);
        if (!simplex_in_range_avx512(xa, xb)) {
            simplex_row_scalar(seed, x + m, y, 16, out + m);
            continue;
        }
        simplex_skew512 a, b;
        __m512i ea, eb;
        simplex_skew_avx512(xa, vy, &a);
        simplex_skew_avx512(xb, vy, &b);
        if (!built || !simplex_window_fits(&w, &a, &b, &ea, &eb)) {
            simplex_window_centre(&a, &b, &w); /* a window for this block */
            if (!simplex_window_fits(&w, &a, &b, &ea, &eb))
                break;
            simplex_window_build(seeds, &w);
            built = 1;
        }
        _mm512_storeu_pd(out + m, simplex_finish_avx512(&a, NULL, 0, &w, ea));
        _mm512_storeu_pd(out + m + 8, simplex_finish_avx512(&b, NULL, 1, &w, eb));
    }
    return m;
}

__attribute__((target(SIMPLEX_AVX512_TARGET))) void
tf_simplex2_row_avx512(uint32_t seed, const double *x, double y, size_t n, double *out)
{
    if (!(fabs(y) < SIMPLEX_AVX2_LIMIT)) {
        simplex_row_scalar(seed, x, y, n, out);
        return;
    }
    const __m512i seeds = _mm512_set1_epi32((int)seed);
    const __m512d vy = _mm512_set1_pd(y);
    size_t m = 0;
    /* points close enough for windows (NaN: not) */
    if (n >= 32 && fabs(x[n - 1] - x[0]) <= SIMPLEX_WINDOW_SPACING * (double)(n - 1))
        m = simplex_row_windows(seeds, seed, x, y, vy, n, out);
    for (; n - m >= 16; m += 16) {
        __m512d xa = _mm512_loadu_pd(x + m), xb = _mm512_loadu_pd(x + m + 8);
        if (!simplex_in_range_avx512(xa, xb)) {
            simplex_row_scalar(seed, x + m, y, 16, out + m);
            continue;
        }
        simplex_skew512 a, b;
        simplex_hash512 h;
        simplex_skew_avx512(xa, vy, &a);
        simplex_skew_avx512(xb, vy, &b);
        simplex_hash_avx512(seeds, &a, &b, &h);
        const __m512i none = _mm512_setzero_si512();
        _mm512_storeu_pd(out + m, simplex_finish_avx512(&a, &h, 0, NULL, none));
        _mm512_storeu_pd(out + m + 8, simplex_finish_avx512(&b, &h, 1, NULL, none));
    }
    if (m < n) /* the last 1-15 points, with their masked loads */
        tf_simplex2_row_avx2(seed, x + m, y, n - m, out + m);
}
#endif

#if TF_HAVE_AVX512_PATH
/*
 * tf_simplex2_deriv at points of their own (the warped octaves of swiss
 * and jordan) on the AVX-512 path: blocks of sixteen as the row above,
 * each lane with its own y, and the gradient sums of
 * tf_simplex2_points_deriv_avx2. The warped points of neighbouring
 * samples stay close at the low octaves, so a block whose cells all lie
 * within a 2 x 2 range takes its gradients from a window too, in a call
 * whose points are close on average along x (the row's test): the call
 * keeps its window while blocks fit it, builds one around the next block
 * that does not (its lowest cell plus one, in x and in y), and hashes per
 * point from the first block that does not fit even its own window, or
 * that follows a window which served only one block, on. The windows
 * gain less than the row's (the gradient's arithmetic, not the hash, is
 * most of the work); the bits are the same either way.
 */

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
 * corners' gradients from the hashes h or (w not NULL) from the window at
 * corner 0's entries e. */
SIMPLEX_AVX512_INLINE __m512d simplex_finish_deriv_avx512(const simplex_skew512 *s,
                                                          const simplex_hash512 *h, int half,
                                                          const simplex_window512 *w, __m512i e,
                                                          __m512d *ndx, __m512d *ndy)
{
    const __m512d scale = _mm512_set1_pd(SIMPLEX_SCALE);
    __m512d gx, gy, x1, y1, x2, y2, sx, sy, cx, cy;
    simplex_offsets_avx512(s, &x1, &y1, &x2, &y2);
    simplex_corner_gradient_avx512(s, h, half, w, e, 0, &gx, &gy);
    __m512d n = simplex_corner_deriv_avx512(gx, gy, s->x0, s->y0, &sx, &sy);
    simplex_corner_gradient_avx512(s, h, half, w, e, 1, &gx, &gy);
    n = _mm512_add_pd(n, simplex_corner_deriv_avx512(gx, gy, x1, y1, &cx, &cy));
    sx = _mm512_add_pd(sx, cx);
    sy = _mm512_add_pd(sy, cy);
    simplex_corner_gradient_avx512(s, h, half, w, e, 2, &gx, &gy);
    n = _mm512_add_pd(n, simplex_corner_deriv_avx512(gx, gy, x2, y2, &cx, &cy));
    *ndx = _mm512_mul_pd(scale, _mm512_add_pd(sx, cx));
    *ndy = _mm512_mul_pd(scale, _mm512_add_pd(sy, cy));
    return _mm512_mul_pd(scale, n);
}

/* A window centred one above the lowest cell of blocks a and b, in x and
 * in y (for points in no order along either). */
SIMPLEX_AVX512_INLINE void simplex_window_centre_points(const simplex_skew512 *a,
                                                        const simplex_skew512 *b,
                                                        simplex_window512 *w)
{
    const __m512d one = _mm512_set1_pd(1.0);
    __m512d lx = _mm512_min_pd(a->cell_x, b->cell_x), ly = _mm512_min_pd(a->cell_y, b->cell_y);
    /* the lowest lane into every lane: minima of 4-lane, 2-lane, 1-lane swaps */
    lx = _mm512_min_pd(lx, _mm512_shuffle_f64x2(lx, lx, _MM_SHUFFLE(1, 0, 3, 2)));
    ly = _mm512_min_pd(ly, _mm512_shuffle_f64x2(ly, ly, _MM_SHUFFLE(1, 0, 3, 2)));
    lx = _mm512_min_pd(lx, _mm512_shuffle_f64x2(lx, lx, _MM_SHUFFLE(2, 3, 0, 1)));
    ly = _mm512_min_pd(ly, _mm512_shuffle_f64x2(ly, ly, _MM_SHUFFLE(2, 3, 0, 1)));
    lx = _mm512_min_pd(lx, _mm512_permute_pd(lx, 0x55));
    ly = _mm512_min_pd(ly, _mm512_permute_pd(ly, 0x55));
    w->centre_x = _mm512_add_pd(lx, one);
    w->centre_y = _mm512_add_pd(ly, one);
}

/* tf_simplex2_points_deriv_avx512 with (deriv 1) or without (deriv 0) the
 * gradient, as simplex_points_avx2. */
SIMPLEX_AVX512_INLINE void simplex_points_avx512(uint32_t seed, const double *x, const double *y,
                                                 size_t n, double *v, double *dx, double *dy,
                                                 int deriv)
{
    const __m512i seeds = _mm512_set1_epi32((int)seed);
    /* set before use (served), zeroed for the compiler's flow analysis */
    simplex_window512 w;
    w.gx0 = w.gx1 = w.gy0 = w.gy1 = w.centre_x = w.centre_y = _mm512_setzero_pd();
    /* blocks may take windows: points close enough on average along x,
     * the row's test (NaN: not) */
    int windows = n >= 32 && fabs(x[n - 1] - x[0]) <= SIMPLEX_WINDOW_SPACING * (double)(n - 1);
    unsigned served = 0; /* blocks the window served, 0: none built */
    size_t m = 0;
    for (; n - m >= 16; m += 16) {
        __m512d xa = _mm512_loadu_pd(x + m), xb = _mm512_loadu_pd(x + m + 8);
        __m512d ya = _mm512_loadu_pd(y + m), yb = _mm512_loadu_pd(y + m + 8);
        if (!(simplex_in_range_avx512(xa, xb) && simplex_in_range_avx512(ya, yb))) {
            simplex_points_deriv_scalar(seed, x + m, y + m, 16, v + m, deriv ? dx + m : NULL,
                                        deriv ? dy + m : NULL);
            continue;
        }
        simplex_skew512 a, b;
        __m512d na, nb, ga, gb, ha, hb;
        simplex_skew_avx512(xa, ya, &a);
        simplex_skew_avx512(xb, yb, &b);
        __m512i ea = _mm512_setzero_si512(), eb = ea;
        if (windows && !(served && simplex_window_fits(&w, &a, &b, &ea, &eb))) {
            /* a window for this block, unless the last one served only
             * one block (then windows do not pay at these points), or
             * the block does not fit even its own */
            if (served == 1) {
                windows = 0;
            } else {
                simplex_window_centre_points(&a, &b, &w);
                if (simplex_window_fits(&w, &a, &b, &ea, &eb)) {
                    simplex_window_build(seeds, &w);
                    served = 0;
                } else {
                    windows = 0;
                }
            }
        }
        served += (unsigned)windows;
        if (windows && !deriv) {
            _mm512_storeu_pd(v + m, simplex_finish_avx512(&a, NULL, 0, &w, ea));
            _mm512_storeu_pd(v + m + 8, simplex_finish_avx512(&b, NULL, 1, &w, eb));
            continue;
        }
        if (windows) {
            na = simplex_finish_deriv_avx512(&a, NULL, 0, &w, ea, &ga, &ha);
            nb = simplex_finish_deriv_avx512(&b, NULL, 1, &w, eb, &gb, &hb);
        } else {
            simplex_hash512 h;
            const __m512i none = _mm512_setzero_si512();
            simplex_hash_avx512(seeds, &a, &b, &h);
            if (!deriv) {
                _mm512_storeu_pd(v + m, simplex_finish_avx512(&a, &h, 0, NULL, none));
                _mm512_storeu_pd(v + m + 8, simplex_finish_avx512(&b, &h, 1, NULL, none));
                continue;
            }
            na = simplex_finish_deriv_avx512(&a, &h, 0, NULL, none, &ga, &ha);
            nb = simplex_finish_deriv_avx512(&b, &h, 1, NULL, none, &gb, &hb);
        }
        _mm512_storeu_pd(v + m, na);
        _mm512_storeu_pd(v + m + 8, nb);
        _mm512_storeu_pd(dx + m, ga);
        _mm512_storeu_pd(dx + m + 8, gb);
        _mm512_storeu_pd(dy + m, ha);
        _mm512_storeu_pd(dy + m + 8, hb);
    }
    if (m < n) /* the last 1-15 points, with their masked loads */
        tf_simplex2_points_deriv_avx2(seed, x + m, y + m, n - m, v + m, deriv ? dx + m : NULL,
                                      deriv ? dy + m : NULL);
}

__attribute__((target(SIMPLEX_AVX512_TARGET))) void
tf_simplex2_points_deriv_avx512(uint32_t seed, const double *x, const double *y, size_t n,
                                double *v, double *dx, double *dy)
{
    if (dx)
        simplex_points_avx512(seed, x, y, n, v, dx, dy, 1);
    else
        simplex_points_avx512(seed, x, y, n, v, NULL, NULL, 0);
}
#endif
