/*
 * "perlin": Ken Perlin's improved noise (2002, "Improving Noise"), 3D, with
 * his reference permutation, quintic fade and a + t*(b - a) blend, equal to
 * his Java ImprovedNoise bit for bit at seed 0; plus analytic derivatives.
 */
#include <math.h>
#include <stddef.h>
#include <stdint.h>

#include "noise.h"
#include "noise_kinds.h"

/* Perlin's reference permutation (ImprovedNoise.permutation), doubled so
 * that p[i + 1] and p[A + Z] never need a mask, exactly as in the Java;
 * three zero bytes after it let the AVX2 row read p[i] and p[i + 1] as one
 * 32-bit gather at any index below 512 (the scalar code never reads
 * them). */
static const uint8_t perm[512 + 3] = {
#define PERLIN_PERMUTATION                                                                        \
    151, 160, 137, 91, 90, 15, 131, 13, 201, 95, 96, 53, 194, 233, 7, 225, 140, 36, 103, 30, 69,  \
        142, 8, 99, 37, 240, 21, 10, 23, 190, 6, 148, 247, 120, 234, 75, 0, 26, 197, 62, 94, 252, \
        219, 203, 117, 35, 11, 32, 57, 177, 33, 88, 237, 149, 56, 87, 174, 20, 125, 136, 171,     \
        168, 68, 175, 74, 165, 71, 134, 139, 48, 27, 166, 77, 146, 158, 231, 83, 111, 229, 122,   \
        60, 211, 133, 230, 220, 105, 92, 41, 55, 46, 245, 40, 244, 102, 143, 54, 65, 25, 63, 161, \
        1, 216, 80, 73, 209, 76, 132, 187, 208, 89, 18, 169, 200, 196, 135, 130, 116, 188, 159,   \
        86, 164, 100, 109, 198, 173, 186, 3, 64, 52, 217, 226, 250, 124, 123, 5, 202, 38, 147,    \
        118, 126, 255, 82, 85, 212, 207, 206, 59, 227, 47, 16, 58, 17, 182, 189, 28, 42, 223,     \
        183, 170, 213, 119, 248, 152, 2, 44, 154, 163, 70, 221, 153, 101, 155, 167, 43, 172, 9,   \
        129, 22, 39, 253, 19, 98, 108, 110, 79, 113, 224, 232, 178, 185, 112, 104, 218, 246, 97,  \
        228, 251, 34, 242, 193, 238, 210, 144, 12, 191, 179, 162, 241, 81, 51, 145, 235, 249, 14, \
        239, 107, 49, 192, 214, 31, 181, 199, 106, 157, 184, 84, 204, 176, 115, 121, 50, 45, 127, \
        4, 150, 254, 138, 236, 205, 93, 222, 114, 67, 29, 24, 72, 243, 141, 128, 195, 78, 66,     \
        215, 61, 156, 180
    PERLIN_PERMUTATION, PERLIN_PERMUTATION
#undef PERLIN_PERMUTATION
};

/* Seeded lattice offset: 0 for seed 0 (Perlin's own noise); otherwise the
 * low bytes of hash(seed, 1), hash(seed, 2), hash(seed, 3), added to the
 * lattice coordinates before the table lookup. A seed therefore selects one
 * of 2^24 translates of the period-256 reference field. */
static void seed_offsets(uint32_t seed, uint32_t o[3])
{
    if (seed == 0) {
        o[0] = o[1] = o[2] = 0;
        return;
    }
    uint32_t h = nk_hash(0, seed);
    for (uint32_t a = 0; a < 3; a++)
        o[a] = nk_hash(h, a + 1) & 255;
}

/* Value and, when dx/dy are not NULL, derivatives. */
NK_INLINE double perlin_eval(uint32_t seed, double x, double y, double z, double *dx,
                                 double *dy)
{
    if (!nk_coord_ok(x) || !nk_coord_ok(y) || !nk_coord_ok(z))
        return nk_nan(dx, dy);
    uint32_t o[3];
    seed_offsets(seed, o);
    double fx, fy, fz;
    /* (int)Math.floor(x) & 255: the low byte of the two's-complement floor. */
    uint32_t X = (nk_split(x, &fx) + o[0]) & 255;
    uint32_t Y = (nk_split(y, &fy) + o[1]) & 255;
    uint32_t Z = (nk_split(z, &fz) + o[2]) & 255;
    double u = nk_fade5(fx), v = nk_fade5(fy), w = nk_fade5(fz);
    double du = nk_dfade5(fx), dv = nk_dfade5(fy);
    uint32_t A = perm[X] + Y, AA = perm[A] + Z, AB = perm[A + 1] + Z;
    uint32_t B = perm[X + 1] + Y, BA = perm[B] + Z, BB = perm[B + 1] + Z;

    /* Corner terms in Java's argument order: x or x-1, y or y-1, z or z-1. */
    const uint32_t hs[8] = {perm[AA],     perm[BA],     perm[AB],     perm[BB],
                            perm[AA + 1], perm[BA + 1], perm[AB + 1], perm[BB + 1]};
    nk_vd c[8];
    for (int k = 0; k < 8; k++) {
        double cx = (k & 1) ? fx - 1 : fx;
        double cy = (k & 2) ? fy - 1 : fy;
        double cz = (k & 4) ? fz - 1 : fz;
        c[k].v = nk_grad3(hs[k], cx, cy, cz, &c[k].dx, &c[k].dy);
    }
    return nk_blend3(c, u, du, v, dv, w, dx, dy);
}

const unsigned char *tf_perlin_permutation_table(void)
{
    return perm;
}

double tf_perlin_improved3(uint32_t seed, double x, double y, double z)
{
    return perlin_eval(seed, x, y, z, NULL, NULL);
}

double tf_perlin_improved3_deriv(uint32_t seed, double x, double y, double z, double *dx,
                                 double *dy)
{
    return perlin_eval(seed, x, y, z, dx, dy);
}

#if TF_HAVE_AVX2_PATH
/* perm[i] and perm[i + 1] of four lanes: one 32-bit load at perm + i
 * (i < 512, within the padded table) holds them in its low two bytes. */
NK_AVX2_INLINE __m128i perlin_perm_pair_avx2(__m128i i)
{
    return _mm_i32gather_epi32((const int *)(const void *)perm, i, 1);
}

/* perlin_eval (no derivatives) for four points of a row, |x| < 2^51: the
 * scalar lookups and operations lane by lane; the row's y and z cells
 * (Y, Z, with the seed offsets), fractions and fades are shared. */
NK_AVX2_INLINE __m256d perlin4_avx2(__m256d x, uint32_t ox, uint32_t Y, uint32_t Z, double fy,
                                    double fz, double v, double w)
{
    const __m128i byte = _mm_set1_epi32(255);
    __m256d fx;
    __m128i X = _mm_and_si128(_mm_add_epi32(nk_split_avx2(x, &fx), _mm_set1_epi32((int)ox)), byte);
    __m128i pX = perlin_perm_pair_avx2(X); /* perm[X], perm[X + 1] */
    __m128i A = _mm_add_epi32(_mm_and_si128(pX, byte), _mm_set1_epi32((int)Y));
    __m128i B = _mm_add_epi32(_mm_and_si128(_mm_srli_epi32(pX, 8), byte), _mm_set1_epi32((int)Y));
    __m128i pA = perlin_perm_pair_avx2(A), pB = perlin_perm_pair_avx2(B);
    const __m128i vZ = _mm_set1_epi32((int)Z);
    __m128i AA = _mm_add_epi32(_mm_and_si128(pA, byte), vZ);
    __m128i AB = _mm_add_epi32(_mm_and_si128(_mm_srli_epi32(pA, 8), byte), vZ);
    __m128i BA = _mm_add_epi32(_mm_and_si128(pB, byte), vZ);
    __m128i BB = _mm_add_epi32(_mm_and_si128(_mm_srli_epi32(pB, 8), byte), vZ);
    /* corner k's hash in the low byte (grad reads its low four bits):
     * perm[AA], perm[BA], perm[AB], perm[BB], then the same at + 1 */
    __m128i pAA = perlin_perm_pair_avx2(AA), pBA = perlin_perm_pair_avx2(BA);
    __m128i pAB = perlin_perm_pair_avx2(AB), pBB = perlin_perm_pair_avx2(BB);
    const __m128i h[8] = {pAA, pBA, pAB, pBB, _mm_srli_epi32(pAA, 8), _mm_srli_epi32(pBA, 8),
                          _mm_srli_epi32(pAB, 8), _mm_srli_epi32(pBB, 8)};
    const __m256d one = _mm256_set1_pd(1.0);
    const __m256d cx[2] = {fx, _mm256_sub_pd(fx, one)};
    const __m256d cy[2] = {_mm256_set1_pd(fy), _mm256_set1_pd(fy - 1)};
    const __m256d cz[2] = {_mm256_set1_pd(fz), _mm256_set1_pd(fz - 1)};
    __m256d c[8];
    for (int k = 0; k < 8; k++)
        c[k] = nk_grad3_avx2(h[k], cx[k & 1], cy[(k >> 1) & 1], cz[(k >> 2) & 1]);
    return nk_blend3_avx2(c, nk_fade5_avx2(fx), _mm256_set1_pd(v), _mm256_set1_pd(w));
}

TF_AVX2_ROW void tf_perlin_improved3_row_avx2(uint32_t seed, const double *x, double y, double z,
                                              size_t n, double *out)
{
    size_t m = 0;
    if (nk_coord_ok(y) && nk_coord_ok(z)) {
        uint32_t o[3];
        seed_offsets(seed, o);
        double fy, fz;
        uint32_t Y = (nk_split(y, &fy) + o[1]) & 255;
        uint32_t Z = (nk_split(z, &fz) + o[2]) & 255;
        double v = nk_fade5(fy), w = nk_fade5(fz);
        for (; m + 4 <= n; m += 4) {
            __m256d px = _mm256_loadu_pd(x + m);
            if (nk_in_row_range_avx2(px) != 0xF) {
                for (size_t k = m; k < m + 4; k++)
                    out[k] = tf_perlin_improved3(seed, x[k], y, z);
                continue;
            }
            _mm256_storeu_pd(out + m, perlin4_avx2(px, o[0], Y, Z, fy, fz, v, w));
        }
    }
    for (; m < n; m++) /* the last 1-3 points, or a row out of range */
        out[m] = tf_perlin_improved3(seed, x[m], y, z);
}
#endif

#if TF_HAVE_AVX512_PATH
/* perlin_perm_pair_avx2 of eight lanes. */
NK_AVX512_INLINE __m256i perlin_perm_pair_avx512(__m256i i)
{
    return _mm256_i32gather_epi32((const int *)(const void *)perm, i, 1);
}

/* perlin4_avx2 on eight lanes: the same lookups and operations. */
NK_AVX512_INLINE __m512d perlin8_avx512(__m512d x, uint32_t ox, uint32_t Y, uint32_t Z,
                                        double fy, double fz, double v, double w)
{
    const __m256i byte = _mm256_set1_epi32(255);
    __m512d fx;
    __m256i X = _mm256_and_si256(
        _mm256_add_epi32(nk_split_avx512(x, &fx), _mm256_set1_epi32((int)ox)), byte);
    __m256i pX = perlin_perm_pair_avx512(X);
    __m256i A = _mm256_add_epi32(_mm256_and_si256(pX, byte), _mm256_set1_epi32((int)Y));
    __m256i B = _mm256_add_epi32(_mm256_and_si256(_mm256_srli_epi32(pX, 8), byte),
                                 _mm256_set1_epi32((int)Y));
    __m256i pA = perlin_perm_pair_avx512(A), pB = perlin_perm_pair_avx512(B);
    const __m256i vZ = _mm256_set1_epi32((int)Z);
    __m256i AA = _mm256_add_epi32(_mm256_and_si256(pA, byte), vZ);
    __m256i AB = _mm256_add_epi32(_mm256_and_si256(_mm256_srli_epi32(pA, 8), byte), vZ);
    __m256i BA = _mm256_add_epi32(_mm256_and_si256(pB, byte), vZ);
    __m256i BB = _mm256_add_epi32(_mm256_and_si256(_mm256_srli_epi32(pB, 8), byte), vZ);
    __m256i pAA = perlin_perm_pair_avx512(AA), pBA = perlin_perm_pair_avx512(BA);
    __m256i pAB = perlin_perm_pair_avx512(AB), pBB = perlin_perm_pair_avx512(BB);
    const __m256i h[8] = {pAA, pBA, pAB, pBB, _mm256_srli_epi32(pAA, 8),
                          _mm256_srli_epi32(pBA, 8), _mm256_srli_epi32(pAB, 8),
                          _mm256_srli_epi32(pBB, 8)};
    const __m512d cx[2] = {fx, _mm512_sub_pd(fx, _mm512_set1_pd(1.0))};
    const __m512d cy[2] = {_mm512_set1_pd(fy), _mm512_set1_pd(fy - 1)};
    const __m512d cz[2] = {_mm512_set1_pd(fz), _mm512_set1_pd(fz - 1)};
    __m512d c[8];
    for (int k = 0; k < 8; k++)
        c[k] = nk_grad3_avx512(h[k], cx[k & 1], cy[(k >> 1) & 1], cz[(k >> 2) & 1]);
    return nk_blend3_avx512(c, nk_fade5_avx512(fx), _mm512_set1_pd(v), _mm512_set1_pd(w));
}

__attribute__((target(NK_AVX512_TARGET))) void
tf_perlin_improved3_row_avx512(uint32_t seed, const double *x, double y, double z, size_t n,
                               double *out)
{
    size_t m = 0;
    if (nk_coord_ok(y) && nk_coord_ok(z)) {
        uint32_t o[3];
        seed_offsets(seed, o);
        double fy, fz;
        uint32_t Y = (nk_split(y, &fy) + o[1]) & 255;
        uint32_t Z = (nk_split(z, &fz) + o[2]) & 255;
        double v = nk_fade5(fy), w = nk_fade5(fz);
        for (; m + 8 <= n; m += 8) {
            __m512d px = _mm512_loadu_pd(x + m);
            if (nk_in_row_range_avx512(px) != 0xFF) {
                for (size_t k = m; k < m + 8; k++)
                    out[k] = tf_perlin_improved3(seed, x[k], y, z);
                continue;
            }
            _mm512_storeu_pd(out + m, perlin8_avx512(px, o[0], Y, Z, fy, fz, v, w));
        }
    }
    if (m < n) /* the last 1-7 points, or a row out of range */
        tf_perlin_improved3_row_avx2(seed, x + m, y, z, n - m, out + m);
}
#endif

#if TF_HAVE_AVX512_PATH
/* perlin_eval at eight points (x, y, z) of their own, |x|, |y| < 2^51,
 * each lane's seed offsets ox and oy, z's cell with its offset vZ,
 * fraction fz and fade w, with the derivatives when dx is not NULL (then
 * dy too): the scalar lookups and operations lane by lane. */
NK_AVX512_INLINE __m512d perlin8_points_avx512(__m256i ox, __m256i oy, __m256i vZ, __m512d fz,
                                               __m512d w, __m512d x, __m512d y, __m512d *dx,
                                               __m512d *dy)
{
    const __m256i byte = _mm256_set1_epi32(255);
    __m512d fx, fy;
    __m256i X = _mm256_and_si256(_mm256_add_epi32(nk_split_avx512(x, &fx), ox), byte);
    __m256i Y = _mm256_and_si256(_mm256_add_epi32(nk_split_avx512(y, &fy), oy), byte);
    __m256i pX = perlin_perm_pair_avx512(X);
    __m256i A = _mm256_add_epi32(_mm256_and_si256(pX, byte), Y);
    __m256i B = _mm256_add_epi32(_mm256_and_si256(_mm256_srli_epi32(pX, 8), byte), Y);
    __m256i pA = perlin_perm_pair_avx512(A), pB = perlin_perm_pair_avx512(B);
    __m256i AA = _mm256_add_epi32(_mm256_and_si256(pA, byte), vZ);
    __m256i AB = _mm256_add_epi32(_mm256_and_si256(_mm256_srli_epi32(pA, 8), byte), vZ);
    __m256i BA = _mm256_add_epi32(_mm256_and_si256(pB, byte), vZ);
    __m256i BB = _mm256_add_epi32(_mm256_and_si256(_mm256_srli_epi32(pB, 8), byte), vZ);
    __m256i pAA = perlin_perm_pair_avx512(AA), pBA = perlin_perm_pair_avx512(BA);
    __m256i pAB = perlin_perm_pair_avx512(AB), pBB = perlin_perm_pair_avx512(BB);
    const __m256i h[8] = {pAA, pBA, pAB, pBB, _mm256_srli_epi32(pAA, 8),
                          _mm256_srli_epi32(pBA, 8), _mm256_srli_epi32(pAB, 8),
                          _mm256_srli_epi32(pBB, 8)};
    const __m512d one = _mm512_set1_pd(1.0);
    const __m512d cx[2] = {fx, _mm512_sub_pd(fx, one)};
    const __m512d cy[2] = {fy, _mm512_sub_pd(fy, one)};
    const __m512d cz[2] = {fz, _mm512_sub_pd(fz, one)};
    if (!dx) {
        __m512d c[8];
        for (int k = 0; k < 8; k++)
            c[k] = nk_grad3_avx512(h[k], cx[k & 1], cy[(k >> 1) & 1], cz[(k >> 2) & 1]);
        return nk_blend3_avx512(c, nk_fade5_avx512(fx), nk_fade5_avx512(fy), w);
    }
    nk_vd8 c[8];
    for (int k = 0; k < 8; k++) {
        c[k].v = nk_grad3_avx512(h[k], cx[k & 1], cy[(k >> 1) & 1], cz[(k >> 2) & 1]);
        nk_grad3_dir_avx512(h[k], &c[k].dx, &c[k].dy);
    }
    return nk_blend3_vd_avx512(c, nk_fade5_avx512(fx), nk_dfade5_avx512(fx), nk_fade5_avx512(fy),
                               nk_dfade5_avx512(fy), w, dx, dy);
}

/* perlin's plane (nk_plane_fn): the seed's offsets, z's cell with its
 * offset. */
NK_AVX512_INLINE void perlin_plane(uint32_t seed, double z, __m256i *ox, __m256i *oy,
                                   __m256i *vZ, double *fz)
{
    uint32_t o[3];
    seed_offsets(seed, o);
    *ox = _mm256_set1_epi32((int)o[0]);
    *oy = _mm256_set1_epi32((int)o[1]);
    *vZ = _mm256_set1_epi32((int)((nk_split(z, fz) + o[2]) & 255));
}

/* perlin_eval at n points (x[k], y[k], z) of their own, eight a vector,
 * with the derivatives when dx is not NULL (then dy too). */
__attribute__((target(NK_AVX512_TARGET))) void
tf_perlin_improved3_points_deriv_avx512(uint32_t seed, const double *x, const double *y, double z,
                                        size_t n, double *out, double *dx, double *dy)
{
    nk_points3_avx512(perlin_plane, perlin8_points_avx512, tf_perlin_improved3_deriv, seed, x, y,
                      z, n, out, dx, dy);
}

/* tf_perlin_improved3(seed[k], x[k], y[k], z[k]) for eight lanes, |x|,
 * |y|, |z| < 2^51: seed_offsets lane by lane (0 for seed 0). */
__attribute__((target(NK_AVX512_TARGET))) void
tf_perlin_improved3_seeds8_avx512(const uint32_t *seed, const double *x, const double *y,
                                  const double *z, double *out)
{
    const __m256i byte = _mm256_set1_epi32(255);
    __m256i s = _mm256_loadu_si256((const __m256i *)(const void *)seed);
    __m256i h = nk_seeds_avx512(s), unseeded = _mm256_cmpeq_epi32(s, _mm256_setzero_si256());
    __m256i o[3];
    for (int a = 0; a < 3; a++)
        o[a] = _mm256_andnot_si256(
            unseeded, _mm256_and_si256(nk_hash_avx512(h, _mm256_set1_epi32(a + 1)), byte));
    __m512d fz;
    __m256i Z = _mm256_and_si256(_mm256_add_epi32(nk_split_avx512(_mm512_loadu_pd(z), &fz), o[2]),
                                 byte);
    _mm512_storeu_pd(out, perlin8_points_avx512(o[0], o[1], Z, fz, nk_fade5_avx512(fz),
                                                _mm512_loadu_pd(x), _mm512_loadu_pd(y), NULL,
                                                NULL));
}
#endif
