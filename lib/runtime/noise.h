/*
 * The base noises, one function per kind (docs/noise.md). Each maps a point
 * in noise space (after frequency and offset) to n in [-1, 1]. Adding a kind:
 * a new tf_noise_type, a function here, and a case in tf_noise_eval and the
 * terrain's layer evaluation.
 */
#ifndef TF_RUNTIME_NOISE_H
#define TF_RUNTIME_NOISE_H

#include <stdint.h>

/* Seeded 2D simplex noise; NaN when |x| or |y| >= 2^52 or not finite. */
double tf_simplex2(uint32_t seed, double x, double y);

/* Ken Perlin's reference simplex noise (2001, "Noise Hardware", class
 * Noise3), bit-identical to the Java original. */
double tf_perlin_reference_simplex3(double x, double y, double z);

#endif
