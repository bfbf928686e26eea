/*
 * The base noises, one function per kind (docs/noise.md). Each maps a point
 * in noise space (after frequency and offset) to n in [-1, 1]. Adding a kind:
 * a new tf_noise_type, a function here, and a case in tf_noise_eval and the
 * terrain's layer evaluation.
 */
#ifndef TF_RUNTIME_NOISE_H
#define TF_RUNTIME_NOISE_H

#include <stddef.h>
#include <stdint.h>

#include "internal.h" /* TF_HAVE_AVX2_PATH */

/* Seeded 2D simplex noise; NaN when |x| or |y| >= 2^52 or not finite. */
double tf_simplex2(uint32_t seed, double x, double y);
/* tf_simplex2 (the same bits) and its analytic partial derivatives
 * (docs/noise.md, "simplex": gradient); either pointer may be NULL. */
double tf_simplex2_deriv(uint32_t seed, double x, double y, double *dndx, double *dndy);

/* Ken Perlin's reference simplex noise (2001, "Noise Hardware", class
 * Noise3), bit-identical to the Java original. */
double tf_perlin_reference_simplex3(double x, double y, double z);
/* tf_perlin_reference_simplex3 (the same bits) and its analytic partial
 * derivatives (docs/noise.md, "perlin-reference-simplex": gradient); either
 * pointer may be NULL. */
double tf_perlin_reference_simplex3_deriv(double x, double y, double z, double *dndx,
                                          double *dndy);

/* tf_simplex2 at (x[k], y), k < n. */
void tf_simplex2_row(uint32_t seed, const double *x, double y, size_t n, double *out);
#if TF_HAVE_AVX2_PATH
/* The same bits, eight points a block (two vectors of four doubles); only
 * on a CPU with AVX2. */
void tf_simplex2_row_avx2(uint32_t seed, const double *x, double y, size_t n, double *out);
/* tf_simplex2 of one point, for the single-sample path. */
double tf_simplex2_avx2(uint32_t seed, double x, double y);
/* tf_simplex2_deriv of one point, the same way (the octaves of a fractal
 * sampled one point at a time); with dndx and dndy both NULL the value
 * alone, with no gradient arithmetic. */
double tf_simplex2_deriv_avx2(uint32_t seed, double x, double y, double *dndx, double *dndy);
/* tf_simplex2(seed[k], x * f[k] + ox[k], y * f[k] + oy[k]), k < n, the
 * same way (the single-sample path's simplex layers). z is unused: the
 * lanes of every noise take one (tf_noise_lanes_fn), simplex is 2D. */
void tf_simplex2_lanes_at_avx2(const uint32_t *seed, double x, double y, const double *f,
                               const double *ox, const double *oy, const double *z, size_t n,
                               double *out);
/* tf_simplex2_deriv at the n points (x[k], y[k]): values into v, the
 * partial derivatives into dx and dy; the same bits, eight points a block
 * (the warped octaves of swiss and jordan). With dx and dy NULL, the
 * values alone (the same bits: tf_simplex2's). */
void tf_simplex2_points_deriv_avx2(uint32_t seed, const double *x, const double *y, size_t n,
                                   double *v, double *dx, double *dy);
/* Rows of value and polynomial noise (docs/noise.md) at (x[k], y), k < n:
 * four points a vector, the bits of tf_value2 and tf_polynomial2. */
void tf_value2_row_avx2(uint32_t seed, const double *x, double y, size_t n, double *out);
void tf_polynomial2_row_avx2(uint32_t seed, const double *x, double y, size_t n, double *out);
/* tf_value2_deriv and tf_polynomial2_deriv at points (x[k], y[k]), k < n,
 * four a vector (dx NULL: the values only, and dy is not read): the same
 * bits. */
void tf_value2_points_deriv_avx2(uint32_t seed, const double *x, const double *y, size_t n,
                                 double *out, double *dx, double *dy);
void tf_polynomial2_points_deriv_avx2(uint32_t seed, const double *x, const double *y, size_t n,
                                      double *out, double *dx, double *dy);
/* tf_value2_deriv and tf_polynomial2_deriv of one point, compiled for
 * AVX2 as tf_simplex2_deriv_avx2 is: the same bits. */
double tf_value2_deriv_avx2(uint32_t seed, double x, double y, double *dx, double *dy);
double tf_polynomial2_deriv_avx2(uint32_t seed, double x, double y, double *dx, double *dy);
/* tf_cellular_f1_deriv, tf_cellular_f2_deriv and tf_cellular_f2_f1_deriv
 * the same way. */
double tf_cellular_f1_deriv_avx2(uint32_t seed, double x, double y, double *dx, double *dy);
double tf_cellular_f2_deriv_avx2(uint32_t seed, double x, double y, double *dx, double *dy);
double tf_cellular_f2_f1_deriv_avx2(uint32_t seed, double x, double y, double *dx, double *dy);
/* Rows of perlin and exponential-perlin (docs/noise.md) at (x[k], y, z),
 * four points a vector: the bits of tf_perlin_improved3 and
 * tf_exp_perlin3. */
void tf_perlin_improved3_row_avx2(uint32_t seed, const double *x, double y, double z, size_t n,
                                  double *out);
void tf_exp_perlin3_row_avx2(uint32_t seed, const double *x, double y, double z, size_t n,
                             double *out);
/* Rows of the cellular noises at (x[k], y), four points a vector: the bits
 * of tf_cellular_f1, tf_cellular_f2 and tf_cellular_f2_f1. */
void tf_cellular_f1_row_avx2(uint32_t seed, const double *x, double y, size_t n, double *out);
void tf_cellular_f2_row_avx2(uint32_t seed, const double *x, double y, size_t n, double *out);
void tf_cellular_f2_f1_row_avx2(uint32_t seed, const double *x, double y, size_t n, double *out);
/* tf_perlin_reference_simplex3 at (x[k], y, z), k < n, four points a
 * vector, the same bits. */
void tf_perlin_reference_simplex3_row_avx2(const double *x, double y, double z, size_t n,
                                           double *out);
#endif
#if TF_HAVE_AVX512_PATH
/* tf_simplex2_row's bits, eight points a vector, sixteen a block; only on
 * a CPU with AVX-512F, AVX-512DQ and BMI2. */
void tf_simplex2_row_avx512(uint32_t seed, const double *x, double y, size_t n, double *out);
/* tf_simplex2_lanes_at_avx2's bits, eight lanes a vector; out has room
 * for n rounded up to a multiple of 8 (the values past n are not
 * meaningful). */
void tf_simplex2_lanes_at_avx512(const uint32_t *seed, double x, double y, const double *f,
                                 const double *ox, const double *oy, const double *z, size_t n,
                                 double *out);
/* tf_value2_row_avx2 and tf_polynomial2_row_avx2, eight points a vector:
 * the same bits. */
void tf_value2_row_avx512(uint32_t seed, const double *x, double y, size_t n, double *out);
void tf_polynomial2_row_avx512(uint32_t seed, const double *x, double y, size_t n, double *out);
/* tf_perlin_improved3_row_avx2 and tf_exp_perlin3_row_avx2, eight points a
 * vector: the same bits. */
void tf_perlin_improved3_row_avx512(uint32_t seed, const double *x, double y, double z, size_t n,
                                    double *out);
void tf_exp_perlin3_row_avx512(uint32_t seed, const double *x, double y, double z, size_t n,
                               double *out);
/* The cellular rows, eight points a vector: the same bits. */
void tf_cellular_f1_row_avx512(uint32_t seed, const double *x, double y, size_t n, double *out);
void tf_cellular_f2_row_avx512(uint32_t seed, const double *x, double y, size_t n, double *out);
void tf_cellular_f2_f1_row_avx512(uint32_t seed, const double *x, double y, size_t n, double *out);
/* tf_perlin_reference_simplex3_row_avx2, eight points a vector: the same
 * bits. */
void tf_perlin_reference_simplex3_row_avx512(const double *x, double y, double z, size_t n,
                                             double *out);
/* tf_simplex2_points_deriv_avx2 on the AVX-512 path: sixteen points a
 * block, two blocks side by side; the same bits. */
void tf_simplex2_points_deriv_avx512(uint32_t seed, const double *x, const double *y, size_t n,
                                     double *v, double *dx, double *dy);
/* tf_value2_points_deriv_avx2 and tf_polynomial2_points_deriv_avx2,
 * eight points a vector: the same bits. */
void tf_value2_points_deriv_avx512(uint32_t seed, const double *x, const double *y, size_t n,
                                   double *out, double *dx, double *dy);
void tf_polynomial2_points_deriv_avx512(uint32_t seed, const double *x, const double *y, size_t n,
                                        double *out, double *dx, double *dy);
/* tf_perlin_improved3_deriv and tf_exp_perlin3_deriv at points (x[k],
 * y[k], z), the same way. */
void tf_perlin_improved3_points_deriv_avx512(uint32_t seed, const double *x, const double *y,
                                             double z, size_t n, double *out, double *dx,
                                             double *dy);
void tf_exp_perlin3_points_deriv_avx512(uint32_t seed, const double *x, const double *y, double z,
                                        size_t n, double *out, double *dx, double *dy);
/* The cellular kinds' values and gradients (which: 0 F1, 1 F2, 2 F2 - F1)
 * at points (x[k], y[k]), the same way. */
void tf_cellular_points_deriv_avx512(int which, uint32_t seed, const double *x, const double *y,
                                     size_t n, double *out, double *dx, double *dy);
/* tf_perlin_reference_simplex3_deriv at points (x[k], y[k], z), the same
 * way. */
void tf_perlin_reference_simplex3_points_deriv_avx512(const double *x, const double *y, double z,
                                                      size_t n, double *out, double *dx,
                                                      double *dy);
/* The 2D noises' values at eight points (x[k], y[k]), |x|, |y| < 2^51,
 * each with its own seed[k] (a single sample's layers, or a layer's
 * octaves, as lanes): the bits of tf_value2, tf_polynomial2 and the
 * cellular kinds (which as above). Arrays of eight. */
void tf_value2_seeds8_avx512(const uint32_t *seed, const double *x, const double *y, double *out);
void tf_polynomial2_seeds8_avx512(const uint32_t *seed, const double *x, const double *y,
                                  double *out);
void tf_cellular_seeds8_avx512(int which, const uint32_t *seed, const double *x, const double *y,
                               double *out);
/* The same for the 3D noises with a seed, at (x[k], y[k], z[k]), |z| <
 * 2^51 too: the bits of tf_perlin_improved3 and tf_exp_perlin3. */
void tf_perlin_improved3_seeds8_avx512(const uint32_t *seed, const double *x, const double *y,
                                       const double *z, double *out);
void tf_exp_perlin3_seeds8_avx512(const uint32_t *seed, const double *x, const double *y,
                                  const double *z, double *out);
/* And tf_perlin_reference_simplex3, which has no seed (seed not read). */
void tf_perlin_reference_simplex3_seeds8_avx512(const uint32_t *seed, const double *x,
                                                const double *y, const double *z, double *out);
#endif

#endif
