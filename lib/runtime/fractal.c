/*
 * Every base noise with its partial derivatives, and the layer kinds: fbm,
 * ridged, billow and de Carpentier's swiss and jordan turbulence (Scape,
 * 2011) over any base noise. docs/spec.md ("Layer kinds") is the prose
 * version; each formula below is evaluated in the order written there, so a
 * port gets the same bits (IEEE double, no libm beyond fabs).
 */
#include <math.h>
#include <string.h>

#include "fractal.h"
#include "internal.h"
#include "noise.h"
#include "noise_kinds.h"

/* swiss and jordan gradients: central differences with a step of 2^-10
 * cells of the finest octave (docs/spec.md, "Layer kinds"). */
#define TURBULENCE_FD_STEP 0x1p-10

static double plain_noise(tf_noise_type type, uint32_t seed, double x, double y, double z)
{
    switch (type) {
    case TF_NOISE_SIMPLEX:
        return tf_simplex2(seed, x, y);
    case TF_NOISE_PERLIN_REFERENCE_SIMPLEX:
        return tf_perlin_reference_simplex3(x, y, z);
    case TF_NOISE_PERLIN:
        return tf_perlin_improved3(seed, x, y, z);
    case TF_NOISE_EXPONENTIAL_PERLIN:
        return tf_exp_perlin3(seed, x, y, z);
    case TF_NOISE_POLYNOMIAL:
        return tf_polynomial2(seed, x, y);
    case TF_NOISE_VALUE:
        return tf_value2(seed, x, y);
    case TF_NOISE_CELLULAR_F1:
        return tf_cellular_f1(seed, x, y);
    case TF_NOISE_CELLULAR_F2:
        return tf_cellular_f2(seed, x, y);
    case TF_NOISE_CELLULAR_F2_F1:
        return tf_cellular_f2_f1(seed, x, y);
    default:
        return NAN;
    }
}

double tf_noise_eval_gradient(tf_noise_type type, uint32_t seed, double x, double y, double z,
                          double *dx, double *dy)
{
    if (!dx && !dy)
        return plain_noise(type, seed, x, y, z);
    switch (type) {
    case TF_NOISE_SIMPLEX:
        return tf_simplex2_deriv(seed, x, y, dx, dy);
    case TF_NOISE_PERLIN_REFERENCE_SIMPLEX:
        return tf_perlin_reference_simplex3_deriv(x, y, z, dx, dy);
    case TF_NOISE_PERLIN:
        return tf_perlin_improved3_deriv(seed, x, y, z, dx, dy);
    case TF_NOISE_EXPONENTIAL_PERLIN:
        return tf_exp_perlin3_deriv(seed, x, y, z, dx, dy);
    case TF_NOISE_POLYNOMIAL:
        return tf_polynomial2_deriv(seed, x, y, dx, dy);
    case TF_NOISE_VALUE:
        return tf_value2_deriv(seed, x, y, dx, dy);
    case TF_NOISE_CELLULAR_F1:
        return tf_cellular_f1_deriv(seed, x, y, dx, dy);
    case TF_NOISE_CELLULAR_F2:
        return tf_cellular_f2_deriv(seed, x, y, dx, dy);
    case TF_NOISE_CELLULAR_F2_F1:
        return tf_cellular_f2_f1_deriv(seed, x, y, dx, dy);
    default:
        if (dx)
            *dx = NAN;
        if (dy)
            *dy = NAN;
        return NAN;
    }
}

/* ---- the plan */

void tf_fractal_octave_offset(uint32_t seed, int octave, double offset[3])
{
    /* The layer-seed rule of docs/spec.md applied to (seed, octave): octaves
     * sample unrelated parts of the lattice, so they decorrelate even for
     * perlin-reference-simplex, which has no seed. */
    tf_default_offset(tf_layer_seed(seed, (size_t)octave), offset);
}

void tf_fractal_plan_init(tf_fractal_plan *plan, const tf_layer_spec *layer)
{
    memset(plan, 0, sizeof *plan);
    plan->noise = layer->noise_type;
    plan->seed = layer->seed;
    plan->kind = layer->fractal_kind;
    if (plan->kind == TF_FRACTAL_NONE)
        return;
    int octaves = layer->fractal_octaves;
    if (octaves < 1)
        octaves = 1;
    if (octaves > TF_MAX_OCTAVES)
        octaves = TF_MAX_OCTAVES;
    plan->octaves = octaves;
    plan->gain = layer->fractal_gain;
    plan->gain1 = layer->fractal_gain1;
    plan->warp0 = layer->fractal_warp0;
    plan->warp = layer->fractal_warp;
    plan->damp0 = layer->fractal_damp0;
    plan->damp = layer->fractal_damp;
    plan->damp_scale = layer->fractal_damp_scale;
    plan->freq[0] = 1.0;
    for (int i = 1; i < octaves; i++) {
        plan->freq[i] = plan->freq[i - 1] * layer->fractal_lacunarity;
        tf_fractal_octave_offset(layer->seed, i, plan->offset[i]);
    }
    /* A: the amplitudes' sum, each octave at its largest weight. */
    double A;
    if (plan->kind == TF_FRACTAL_JORDAN) {
        /* the article's amplitude recurrence with no damping */
        double amp = plan->gain1, damped = amp * plan->gain;
        A = 1.0;
        for (int i = 1; i < octaves; i++) {
            A = A + damped;
            amp = amp * plan->gain;
            damped = amp;
        }
    } else {
        double a = 1.0;
        A = 0.0;
        for (int i = 0; i < octaves; i++) {
            A = A + a;
            a = a * plan->gain;
        }
    }
    plan->amp_sum = A;
    plan->fd_step = TURBULENCE_FD_STEP / plan->freq[octaves - 1];
    for (int i = 0; i < octaves; i++) {
        plan->lane_seed[i] = plan->seed;
        plan->lane_ox[i] = plan->offset[i][0];
        plan->lane_oy[i] = plan->offset[i][1];
        plan->lane_z[i] = layer->offset[2] + plan->offset[i][2];
    }
}

/* An octave's base noise, with its gradient where dx or dy is given. */
static inline double octave_noise(const tf_fractal_plan *P, double x, double y, double z,
                                  double *dx, double *dy)
{
    if (P->point_deriv)
        return P->point_deriv(P->seed, x, y, dx, dy);
    return tf_noise_eval_gradient(P->noise, P->seed, x, y, z, dx, dy);
}

/* fbm, ridged, billow: analytic whenever the base noise's gradient is. */
static double sum_octaves(const tf_fractal_plan *P, double nx, double ny, double nz, double *dx,
                          double *dy)
{
    int want = dx || dy;
    double s = 0.0, sx = 0.0, sy = 0.0, a = 1.0;
    for (int i = 0; i < P->octaves; i++) {
        const double *o = P->offset[i];
        double f = P->freq[i], gx = 0.0, gy = 0.0;
        double v = octave_noise(P, nx * f + o[0], ny * f + o[1], nz + o[2], want ? &gx : NULL,
                                want ? &gy : NULL);
        double r, sign = 1.0;
        switch (P->kind) {
        case TF_FRACTAL_RIDGED:
            r = 1.0 - fabs(v);
            sign = v < 0.0 ? 1.0 : -1.0;
            break;
        case TF_FRACTAL_BILLOW:
            r = fabs(v);
            sign = v < 0.0 ? -1.0 : 1.0;
            break;
        default:
            r = v;
            break;
        }
        s = s + a * r;
        if (want) {
            sx = sx + a * (sign * (f * gx));
            sy = sy + a * (sign * (f * gy));
        }
        a = a * P->gain;
    }
    const double A = P->amp_sum;
    if (P->kind == TF_FRACTAL_FBM) {
        if (dx)
            *dx = sx / A;
        if (dy)
            *dy = sy / A;
        return s / A;
    }
    if (dx)
        *dx = 2.0 * (sx / A);
    if (dy)
        *dy = 2.0 * (sy / A);
    return 2.0 * (s / A) - 1.0;
}

tf_noise_lanes_fn tf_fractal_plan_lanes(const tf_fractal_plan *P, tf_simd_level simd)
{
    if (P->kind != TF_FRACTAL_FBM && P->kind != TF_FRACTAL_RIDGED && P->kind != TF_FRACTAL_BILLOW)
        return NULL;
    /* with fewer octaves one vector's latency costs more than the calls */
    return tf_noise_lanes_for(simd, P->noise, (size_t)P->octaves);
}

/* sum_octaves without the gradient, the noises computed first: octave i
 * at (nx * f_i + o_i[0], ny * f_i + o_i[1], nz + o_i[2]), the expressions
 * of the loop above (the last one made when the plan was), then the same
 * sum in the same order. */
double tf_fractal_plan_eval_lanes(const tf_fractal_plan *P, tf_noise_lanes_fn lanes, double nx,
                                  double ny)
{
    double v[TF_MAX_OCTAVES];
    lanes(P->lane_seed, nx, ny, P->freq, P->lane_ox, P->lane_oy, P->lane_z, (size_t)P->octaves, v);
    double s = 0.0, a = 1.0;
    for (int i = 0; i < P->octaves; i++) {
        s = s + a * tf_fractal_octave_term(P->kind, v[i]);
        a = a * P->gain;
    }
    return tf_fractal_normalize(P, s);
}

static double saturate(double v)
{
    return v < 0.0 ? 0.0 : v > 1.0 ? 1.0 : v;
}

/* Swiss turbulence (de Carpentier 2011): ridged octaves whose amplitude
 * follows the sum so far, each looked up at a point warped along the
 * accumulated gradient of the coarser ones. */
static double swiss(const tf_fractal_plan *P, double nx, double ny, double nz)
{
    double s = 0.0, a = 1.0, wx = 0.0, wy = 0.0;
    for (int i = 0; i < P->octaves; i++) {
        const double *o = P->offset[i];
        double f = P->freq[i], gx, gy;
        int slope = !tf_turbulence_value_only(P, i);
        double v = octave_noise(P, (nx + P->warp * wx) * f + o[0], (ny + P->warp * wy) * f + o[1],
                                nz + o[2], slope ? &gx : NULL, slope ? &gy : NULL);
        s = s + a * (1.0 - fabs(v));
        if (!slope)
            break;
        wx = wx + (a * gx) * -v;
        wy = wy + (a * gy) * -v;
        a = a * (P->gain * saturate(s));
    }
    return 2.0 * (s / P->amp_sum) - 1.0;
}

/* Jordan turbulence (de Carpentier 2011): squared octaves, warped and
 * damped by the accumulated gradients of the squares; the first octave has
 * its own gain1, warp0 and damp0. */
static double jordan(const tf_fractal_plan *P, double nx, double ny, double nz)
{
    double gx, gy;
    double v = octave_noise(P, nx, ny, nz, &gx, &gy);
    double px = gx * v, py = gy * v; /* half the gradient of v^2 */
    double s = v * v;
    double wx = P->warp0 * px, wy = P->warp0 * py;
    double mx = P->damp0 * px, my = P->damp0 * py;
    double amp = P->gain1, damped = amp * P->gain;
    for (int i = 1; i < P->octaves; i++) {
        const double *o = P->offset[i];
        double f = P->freq[i];
        if (tf_turbulence_value_only(P, i)) {
            v = octave_noise(P, nx * f + wx + o[0], ny * f + wy + o[1], nz + o[2], NULL, NULL);
            s = s + damped * (v * v);
            break;
        }
        v = octave_noise(P, nx * f + wx + o[0], ny * f + wy + o[1], nz + o[2], &gx, &gy);
        px = gx * v;
        py = gy * v;
        s = s + damped * (v * v);
        wx = wx + P->warp * px;
        wy = wy + P->warp * py;
        mx = mx + P->damp * px;
        my = my + P->damp * py;
        amp = amp * P->gain;
        damped = amp * (1.0 - P->damp_scale / (1.0 + (mx * mx + my * my)));
    }
    return 2.0 * (s / P->amp_sum) - 1.0;
}

static double turbulence(const tf_fractal_plan *P, double nx, double ny, double nz)
{
    return P->kind == TF_FRACTAL_SWISS ? swiss(P, nx, ny, nz) : jordan(P, nx, ny, nz);
}

double tf_fractal_plan_eval(const tf_fractal_plan *P, double nx, double ny, double nz,
                            double *dx, double *dy)
{
    switch (P->kind) {
    case TF_FRACTAL_NONE:
        return octave_noise(P, nx, ny, nz, dx, dy);
    case TF_FRACTAL_FBM:
    case TF_FRACTAL_RIDGED:
    case TF_FRACTAL_BILLOW:
        return sum_octaves(P, nx, ny, nz, dx, dy);
    case TF_FRACTAL_SWISS:
    case TF_FRACTAL_JORDAN: {
        /* The gradient would need the base noise's second derivatives
         * (the warp follows first derivatives): central differences with a
         * step well inside the finest octave's lattice cell. */
        const double h = P->fd_step;
        if (dx)
            *dx = (turbulence(P, nx + h, ny, nz) - turbulence(P, nx - h, ny, nz)) / (h + h);
        if (dy)
            *dy = (turbulence(P, nx, ny + h, nz) - turbulence(P, nx, ny - h, nz)) / (h + h);
        return turbulence(P, nx, ny, nz);
    }
    default:
        if (dx)
            *dx = NAN;
        if (dy)
            *dy = NAN;
        return NAN;
    }
}

double tf_fractal_eval(const tf_layer_spec *layer, double nx, double ny, double nz, double *dx,
                       double *dy)
{
    tf_fractal_plan plan;
    tf_fractal_plan_init(&plan, layer);
    return tf_fractal_plan_eval(&plan, nx, ny, nz, dx, dy);
}

int tf_fractal_octave(const tf_layer_spec *layer, int octave, double *frequency, double offset[3])
{
    if (!layer || layer->fractal_kind == TF_FRACTAL_NONE || octave < 0 ||
        octave >= layer->fractal_octaves || octave >= TF_MAX_OCTAVES)
        return -1;
    /* the plan's own recurrence, so the frequencies are its bits */
    double f = 1.0;
    for (int i = 1; i <= octave; i++)
        f = f * layer->fractal_lacunarity;
    double o[3] = {0.0, 0.0, 0.0};
    if (octave > 0)
        tf_fractal_octave_offset(layer->seed, octave, o);
    if (frequency)
        *frequency = f;
    if (offset)
        memcpy(offset, o, sizeof o);
    return 0;
}
