/*
 * "perlin": Ken Perlin's improved noise (2002, "Improving Noise"), 3D, with
 * his reference permutation, quintic fade and a + t*(b - a) blend, equal to
 * his Java ImprovedNoise bit for bit at seed 0; plus analytic derivatives.
 */
#include <math.h>
#include <stddef.h>
#include <stdint.h>

#include "noise_kinds.h"

/* Perlin's reference permutation (ImprovedNoise.permutation), doubled so
 * that p[i + 1] and p[A + Z] never need a mask, exactly as in the Java. */
static const uint8_t perm[512] = {
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

double tf_perlin_improved3(uint32_t seed, double x, double y, double z)
{
    return perlin_eval(seed, x, y, z, NULL, NULL);
}

double tf_perlin_improved3_deriv(uint32_t seed, double x, double y, double z, double *dx,
                                 double *dy)
{
    return perlin_eval(seed, x, y, z, dx, dy);
}
