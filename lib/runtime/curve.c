/*
 * Control-point curves: the redistribution function of thesis 5.2 / 5.4.1.
 * Binary search for the segment, then one of three interpolants; outside
 * the knots the curve is clamped to its end values (docs/spec.md, step 2).
 * All per-segment constants (reciprocal widths, polynomial coefficients,
 * Fritsch-Carlson tangents) are computed once when the curve is compiled.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"

/* Taylor coefficients of sin(pi*s), (-1)^k pi^(2k+1) / (2k+1)!, k = 0..10,
 * rounded to double. For |s| <= 0.5 the truncation error is below 2e-18,
 * so the result is sin to within rounding, with no libm call: the same
 * bits on every IEEE-754 platform. */
static const double SINPI_COEFFS[11] = {
    3.141592653589793,       -5.16771278004997,       2.5501640398773455,
    -0.5992645293207921,     0.08214588661112823,     -0.0073704309457143504,
    0.00046630280576761255,  -2.1915353447830217e-05, 7.952054001475513e-07,
    -2.2948428997269873e-08, 5.392664662608129e-10,
};

/* (1 - cos(pi*t)) / 2 = sin(pi*t/2)^2, with sin(pi*s) for s = t/2 in
 * [0, 0.5] by Horner in s^2. Exactly 0 at t = 0, so a segment starts at
 * its knot's y exactly. */
double tf_cosine_blend(double t)
{
    double s = t * 0.5;
    double s2 = s * s;
    double p = SINPI_COEFFS[10];
    for (int k = 9; k >= 0; k--)
        p = p * s2 + SINPI_COEFFS[k];
    double sine = s * p;
    return sine * sine;
}

size_t tf_curve_table_bytes(size_t count)
{
    return count * sizeof(double) + (count - 1) * sizeof(tf_curve_segment);
}

/* Fritsch-Carlson (1980) tangents: start from the mean of adjacent secants
 * (zero at a local extremum or flat secant), then scale any pair (a, b) of
 * tangent/secant ratios with a^2 + b^2 > 9 back onto that circle, which
 * makes each cubic piece monotone. Order of operations as in docs/spec.md. */
static void monotone_tangents(const tf_point *p, size_t count, double *secant, double *tangent)
{
    for (size_t k = 0; k + 1 < count; k++)
        secant[k] = (p[k + 1].y - p[k].y) / (p[k + 1].x - p[k].x);
    tangent[0] = secant[0];
    tangent[count - 1] = secant[count - 2];
    for (size_t k = 1; k + 1 < count; k++) {
        double left = secant[k - 1], right = secant[k];
        if (left == 0.0 || right == 0.0 || (left < 0.0) != (right < 0.0))
            tangent[k] = 0.0;
        else
            tangent[k] = (left + right) * 0.5;
    }
    for (size_t k = 0; k + 1 < count; k++) {
        if (secant[k] == 0.0) {
            tangent[k] = 0.0;
            tangent[k + 1] = 0.0;
            continue;
        }
        double a = tangent[k] / secant[k], b = tangent[k + 1] / secant[k];
        double r2 = a * a + b * b;
        if (r2 > 9.0) {
            double tau = 3.0 / sqrt(r2);
            tangent[k] = tau * a * secant[k];
            tangent[k + 1] = tau * b * secant[k];
        }
    }
}

void tf_curve_table_build(tf_curve_table *table, void *storage, const tf_point *points,
                          size_t count, tf_interp interp, double *scratch)
{
    double *x = storage;
    tf_curve_segment *seg = (tf_curve_segment *)(x + count);
    for (size_t k = 0; k < count; k++)
        x[k] = points[k].x;
    for (size_t k = 0; k + 1 < count; k++) {
        double width = points[k + 1].x - points[k].x;
        seg[k].inv_width = 1.0 / width;
        seg[k].c0 = points[k].y;
        seg[k].c1 = points[k + 1].y - points[k].y;
        seg[k].c2 = 0.0;
        seg[k].c3 = 0.0;
    }
    if (interp == TF_INTERP_MONOTONE_CUBIC) {
        /* Each segment becomes y_k + t*(a + t*(3D - 2a - b + t*(a + b - 2D)))
         * with D = y_(k+1) - y_k, a = m_k*h, b = m_(k+1)*h. */
        double *secant = scratch, *tangent = scratch + count;
        monotone_tangents(points, count, secant, tangent);
        for (size_t k = 0; k + 1 < count; k++) {
            double h = points[k + 1].x - points[k].x;
            double d = seg[k].c1;
            double a = tangent[k] * h, b = tangent[k + 1] * h;
            seg[k].c1 = a;
            seg[k].c2 = 3.0 * d - 2.0 * a - b;
            seg[k].c3 = a + b - 2.0 * d;
        }
    }
    table->count = count;
    table->interp = interp;
    table->x = x;
    table->segments = seg;
    table->y_first = points[0].y;
    table->y_last = points[count - 1].y;
}

double tf_curve_table_eval(const tf_curve_table *table, double u)
{
    const double *x = table->x;
    if (u <= x[0])
        return table->y_first;
    if (u >= x[table->count - 1])
        return table->y_last;
    /* Largest k with x_k <= u (NaN falls through to the last segment and
     * stays NaN). */
    size_t lo = 0, hi = table->count - 1;
    while (hi - lo > 1) {
        size_t mid = lo + ((hi - lo) >> 1);
        if (u < x[mid])
            hi = mid;
        else
            lo = mid;
    }
    const tf_curve_segment *s = &table->segments[lo];
    double t = (u - x[lo]) * s->inv_width;
    if (table->interp == TF_INTERP_COSINE)
        return s->c0 + s->c1 * tf_cosine_blend(t);
    return s->c0 + t * (s->c1 + t * (s->c2 + t * s->c3));
}

/* ---- the public curve object */

struct tf_curve {
    tf_curve_table table;
    double storage[]; /* knots then segments */
};

tf_curve *tf_curve_new(const tf_point *points, size_t count, tf_interp interp, tf_error *err)
{
    if (!points || count < 2) {
        tf_error_set(err, TF_ERR_ARGUMENT, "curve: needs at least 2 control points, has %zu",
                     points ? count : (size_t)0);
        return NULL;
    }
    if (count > TF_MAX_POINTS) {
        tf_error_set(err, TF_ERR_LIMIT, "curve: more than %d control points", TF_MAX_POINTS);
        return NULL;
    }
    if ((unsigned)interp >= TF_INTERP_KIND_COUNT) {
        tf_error_set(err, TF_ERR_ARGUMENT, "curve: unknown interpolation %d", (int)interp);
        return NULL;
    }
    for (size_t k = 0; k < count; k++) {
        if (!isfinite(points[k].x) || !isfinite(points[k].y)) {
            tf_error_set(err, TF_ERR_ARGUMENT, "curve: point %zu is not finite", k);
            return NULL;
        }
        if (k > 0 && !(points[k].x > points[k - 1].x)) {
            tf_error_set(err, TF_ERR_ARGUMENT,
                         "curve: point %zu: x must be greater than the previous point's x", k);
            return NULL;
        }
    }
    tf_curve *curve = malloc(sizeof *curve + tf_curve_table_bytes(count));
    double *scratch = malloc(2 * count * sizeof(double));
    if (!curve || !scratch) {
        free(curve);
        free(scratch);
        tf_error_set(err, TF_ERR_NOMEM, "curve: out of memory");
        return NULL;
    }
    tf_curve_table_build(&curve->table, curve->storage, points, count, interp, scratch);
    free(scratch);
    tf_error_clear(err);
    return curve;
}

double tf_curve_eval(const tf_curve *curve, double u)
{
    return tf_curve_table_eval(&curve->table, u);
}

void tf_curve_free(tf_curve *curve)
{
    free(curve);
}
