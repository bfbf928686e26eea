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
#include "simplex_lanes.h"

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

#define SIMPLEX_PAIR(gx, gy) {gx, gy},
static const double GRADIENTS[32][2] = {SIMPLEX_GRADIENTS(SIMPLEX_PAIR)};

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

/* The public derivative entry, either floor: either output may be NULL,
 * and with both NULL it is the value alone. */
static inline __attribute__((always_inline)) double
simplex_deriv_entry(uint32_t seed, double x, double y, double *dndx, double *dndy, int libm_floor)
{
    if (!dndx && !dndy)
        return simplex_eval_floor(seed, x, y, NULL, NULL, libm_floor);
    double gx, gy;
    double n = simplex_eval_floor(seed, x, y, &gx, &gy, libm_floor);
    if (dndx)
        *dndx = gx;
    if (dndy)
        *dndy = gy;
    return n;
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
    return simplex_deriv_entry(seed, x, y, dndx, dndy, 0);
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

__attribute__((target("avx2"))) double tf_simplex2_deriv_avx2(uint32_t seed, double x, double y,
                                                              double *dndx, double *dndy)
{
    return simplex_deriv_entry(seed, x, y, dndx, dndy, 1);
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
 * with a lane outside (huge, infinite, NaN) take the scalar code. (The
 * two constants, SIMPLEX_AVX2_LIMIT and SIMPLEX_INT_MAGIC, are in
 * simplex_lanes.h with the AVX-512 kernels that share them.)
 */

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

TF_AVX2_ROW void tf_simplex2_row_avx2(uint32_t seed, const double *x, double y, size_t n,
                                      double *out)
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
                                                               const double *z, size_t n,
                                                               double *out)
{
    (void)z;
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

/* tf_simplex2_lanes_at_avx2's lanes, eight a vector: block A's half of
 * the hash (simplex_hash_avx512 is sixteen 32-bit lanes wide; block B is
 * A again, its half unused), each lane's seed widened to the even 32-bit
 * lane that half reads. The last vector is stored whole, past the n-th
 * lane: the caller's reads of a masked store's lanes wait for it to
 * retire (whole stores: 4-6% faster single samples of four layers and of
 * an fbm, docs/performance.md). */
__attribute__((target(SIMPLEX_AVX512_TARGET))) void
tf_simplex2_lanes_at_avx512(const uint32_t *seed, double x, double y, const double *f,
                            const double *ox, const double *oy, const double *z, size_t n,
                            double *out)
{
    (void)z;
    const __m512i none = _mm512_setzero_si512();
    for (size_t m = 0; m < n; m += 8) {
        size_t count = n - m < 8 ? n - m : 8;
        __mmask8 present = (__mmask8)((1u << count) - 1u);
        __m512d px, py;
        tf_lane_points8(present, x, y, f + m, ox + m, oy + m, &px, &py);
        /* lanes past the n-th hold 0 * x + 0: in range unless x or y is
         * not finite, and then the whole block takes the scalar code */
        if (!simplex_in_range_avx512(px, py)) {
            simplex_lanes_at_scalar(seed + m, x, y, f + m, ox + m, oy + m, count, out + m);
            continue;
        }
        __m512i seeds = _mm512_cvtepu32_epi64(
            _mm512_castsi512_si256(_mm512_maskz_loadu_epi32((__mmask16)present, seed + m)));
        simplex_skew512 a;
        simplex_hash512 h;
        simplex_skew_avx512(px, py, &a);
        simplex_hash_avx512(seeds, &a, &a, &h);
        __m512d v = simplex_finish_avx512(&a, &h, 0, NULL, none);
        _mm512_storeu_pd(out + m, v);
    }
}

/* simplex_points_avx2 on the AVX-512 path: blocks of sixteen points, two
 * side by side while more than one is left (simplex_halves_avx512, the
 * swiss and jordan blocks' simplex), a short last block padded with its
 * last point; a block with a point out of the vector range takes the
 * scalar code. */
SIMPLEX_AVX512_INLINE void simplex_points_avx512(uint32_t seed, const double *x, const double *y,
                                                 size_t n, double *v, double *dx, double *dy,
                                                 int deriv)
{
    const __m512i seeds = _mm512_set1_epi32((int)seed);
    simplex_blocks512 b;
    for (size_t m = 0; m < n; m += b.count) {
        __m512d px[4], py[4], r[4], gx[4], gy[4];
        int ok[2] = {1, 1};
        simplex_blocks_start(m, n, &b);
        simplex_blocks_load(&b, x + m, px);
        simplex_blocks_load(&b, y + m, py);
        if (b.blocks == 2)
            simplex_halves_avx512(seeds, 4, px, py, deriv, r, gx, gy, ok);
        else
            simplex_halves_avx512(seeds, 2, px, py, deriv, r, gx, gy, ok);
        for (int k = 0; k < b.blocks; k++) {
            size_t first = m + (size_t)(16 * k);
            if (!ok[k]) {
                simplex_points_deriv_scalar(seed, x + first, y + first, simplex_block_length(&b, k),
                                            v + first, deriv ? dx + first : NULL,
                                            deriv ? dy + first : NULL);
                continue;
            }
            simplex_block_store(&b, k, r, v + m);
            if (deriv) {
                simplex_block_store(&b, k, gx, dx + m);
                simplex_block_store(&b, k, gy, dy + m);
            }
        }
    }
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
