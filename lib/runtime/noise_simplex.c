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

/* One corner's contribution: (0.5 - dx^2 - dy^2)^4 * (g . d), or 0. */
static inline double corner(uint32_t seed, uint32_t i, uint32_t j, double dx, double dy)
{
    double t = 0.5 - dx * dx - dy * dy;
    if (t <= 0.0)
        return 0.0;
    const double *g = GRADIENTS[gradient_index(seed, i, j)];
    t *= t;
    return t * t * (g[0] * dx + g[1] * dy);
}

double tf_simplex2(uint32_t seed, double x, double y)
{
    if (!(fabs(x) < SIMPLEX_MAX_COORD && fabs(y) < SIMPLEX_MAX_COORD))
        return NAN;

    /* Skew to find the cell, then work in small local coordinates so the
     * precision does not depend on how far from the origin the point is. */
    double s = (x + y) * SIMPLEX_F2;
    double cell_x = floor(x + s), cell_y = floor(y + s);
    double a = (x + s) - cell_x, b = (y + s) - cell_y; /* skewed, in [0, 1] */
    double t = (a + b) * SIMPLEX_G2;
    double x0 = a - t, y0 = b - t; /* unskewed offset from corner 0 */

    /* Integer lattice coordinates modulo 2^32 (two's complement wrap). */
    uint32_t i = (uint32_t)(int64_t)cell_x, j = (uint32_t)(int64_t)cell_y;

    /* The middle corner is (1, 0) below the diagonal, (0, 1) above it. */
    uint32_t i1 = x0 > y0 ? 1u : 0u, j1 = 1u - i1;
    double x1 = x0 - (double)i1 + SIMPLEX_G2, y1 = y0 - (double)j1 + SIMPLEX_G2;
    double x2 = x0 - 1.0 + SIMPLEX_G2_TWICE, y2 = y0 - 1.0 + SIMPLEX_G2_TWICE;

    double n0 = corner(seed, i, j, x0, y0);
    double n1 = corner(seed, i + i1, j + j1, x1, y1);
    double n2 = corner(seed, i + 1u, j + 1u, x2, y2);
    return SIMPLEX_SCALE * (n0 + n1 + n2);
}
