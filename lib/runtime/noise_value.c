/*
 * "value": lattice value noise (the survey's Value Noise, seed 003 §2.3),
 * 2D: hashed corner values in [-1, 1) blended bilinearly with Perlin's
 * quintic fade, so the surface is C2 and its derivatives are analytic.
 */
#include <math.h>
#include <stddef.h>
#include <stdint.h>

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
