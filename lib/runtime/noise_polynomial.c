/*
 * "polynomial": the zero-gradient D2M1N3 polynomial noise of Thorimbert &
 * Chopard ("Polynomial methods for fast procedural terrain generation",
 * eq. 19), 2D: hashed corner heights, zero gradient at every corner, cubic.
 */
#include <math.h>
#include <stddef.h>
#include <stdint.h>

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
