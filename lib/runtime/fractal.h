/*
 * Layer kinds (docs/spec.md, "Layer kinds"): a layer's fractal compiled to a
 * plan (octave frequencies, offsets, amplitude sum) once, then evaluated per
 * point. Private to the runtime; tf_fractal_eval is the public one-call form.
 */
#ifndef TF_RUNTIME_FRACTAL_H
#define TF_RUNTIME_FRACTAL_H

#include <math.h>
#include <stddef.h>

#include "terrafit/runtime.h"

/* A 2D base noise with its optional partial derivatives (either pointer
 * may be NULL), as tf_simplex2_deriv (noise.h). */
typedef double (*tf_noise2_deriv_fn)(uint32_t seed, double x, double y, double *dx, double *dy);

typedef struct {
    tf_noise_type noise;
    uint32_t seed;
    tf_fractal_kind kind; /* TF_FRACTAL_NONE: the base noise alone */
    int octaves;
    double gain, gain1, warp0, warp, damp0, damp, damp_scale;
    double freq[TF_MAX_OCTAVES];      /* f_i = f_(i-1) * lacunarity, f_0 = 1 */
    double offset[TF_MAX_OCTAVES][3]; /* o_i, o_0 = (0, 0, 0) */
    double amp_sum;                   /* A, the normalizer */
    double fd_step;                   /* h of the kinds without analytic derivatives */
    /* set by a terrain on a vector path (NULL from tf_fractal_plan_init):
     * the octaves evaluated one point at a time call this AVX2 build of
     * the base noise's scalar code (tf_simplex2_deriv_avx2 and its kin:
     * the same bits) in place of tf_noise_eval_gradient */
    tf_noise2_deriv_fn point_deriv;
    /* the octaves as the lanes of tf_noise_lanes: the seed and f_i,
     * o_i's x and y, each in an array of its own */
    uint32_t lane_seed[TF_MAX_OCTAVES];
    double lane_ox[TF_MAX_OCTAVES], lane_oy[TF_MAX_OCTAVES];
    double lane_z[TF_MAX_OCTAVES]; /* nz + o_i's z, nz the layer's offset[2] */
} tf_fractal_plan;

/* fbm, ridged and billow: octave value v's term r, and the sum s of the
 * terms a_i r_i normalized (docs/spec.md, "Layer kinds"). The one
 * definition for the per-point, lane and row evaluations. */
static inline double tf_fractal_octave_term(tf_fractal_kind kind, double v)
{
    return kind == TF_FRACTAL_RIDGED ? 1.0 - fabs(v) : kind == TF_FRACTAL_BILLOW ? fabs(v) : v;
}

static inline double tf_fractal_normalize(const tf_fractal_plan *plan, double s)
{
    if (plan->kind == TF_FRACTAL_FBM)
        return s / plan->amp_sum;
    return 2.0 * (s / plan->amp_sum) - 1.0;
}

/* swiss and jordan: whether octave i's noise is made without its
 * gradient. The last octave's gradient warps nothing after it, and for
 * simplex the value is the same operations with or without one (the
 * other base noises' value-only functions are other code, so they keep
 * the gradient call). The one rule for the per-point and row evaluations. */
static inline int tf_turbulence_value_only(const tf_fractal_plan *plan, int i)
{
    return i == plan->octaves - 1 && plan->noise == TF_NOISE_SIMPLEX;
}

/* Fill a plan from a valid layer (never fails; the layer is not kept). */
void tf_fractal_plan_init(tf_fractal_plan *plan, const tf_layer_spec *layer);

/* tf_fractal_eval through a plan: the same bits. */
double tf_fractal_plan_eval(const tf_fractal_plan *plan, double nx, double ny, double nz,
                            double *dx, double *dy);

/* swiss or jordan of simplex noise over n samples at (nx[k], ny, nz) on
 * the AVX-512 path, blocks of sixteen samples (two side by side) running
 * every octave in registers (turbulence_avx512.c): tf_fractal_plan_eval's
 * values, the same bits. Only in builds with the AVX-512 path, on CPUs
 * that have it. */
void tf_turbulence_simplex_row_avx512(const tf_fractal_plan *plan, const double *nx, double ny,
                                      double nz, size_t n, double *out);

/* The same at points of their own, (nx[k], ny[k], nz). */
void tf_turbulence_simplex_points_avx512(const tf_fractal_plan *plan, const double *nx,
                                         const double *ny, double nz, size_t n, double *out);

/* Octave i's offset o_i (i >= 1) of a layer with noise seed `seed`. */
void tf_fractal_octave_offset(uint32_t seed, int octave, double offset[3]);

#endif
