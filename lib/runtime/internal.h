/*
 * Private declarations shared by the runtime's sources: error helpers,
 * the compiled curve tables (used by terrain.c and curve.c), the derived
 * default rules (seeds, offsets, falloff) and the spec's allocation helpers.
 */
#ifndef TF_RUNTIME_INTERNAL_H
#define TF_RUNTIME_INTERNAL_H

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include "terrafit/runtime.h"

#if defined(__GNUC__)
#define TF_PRINTF(fmt, args) __attribute__((format(printf, fmt, args)))
#else
#define TF_PRINTF(fmt, args)
#endif

/* Fill `err` (may be NULL) with a code and a printf-style message. */
void tf_error_set(tf_error *err, int code, const char *fmt, ...) TF_PRINTF(3, 4);
void tf_error_clear(tf_error *err);

/* ---- compiled control-point curves (docs/spec.md, step 2) */

/* One segment [x_k, x_(k+1)): y = c0 + t*(c1 + t*(c2 + t*c3)) with
 * t = (u - x_k) * inv_width for linear and monotone cubic, and
 * y = c0 + c1 * cosine_blend(t) for cosine. */
typedef struct {
    double inv_width;
    double c0, c1, c2, c3;
} tf_curve_segment;

typedef struct {
    size_t count;        /* control points, >= 2 */
    tf_interp interp;
    const double *x;     /* count knots */
    const tf_curve_segment *segments; /* count - 1 */
    double y_first, y_last;
} tf_curve_table;

/* Bytes needed for a table of `count` points (knots + segments). */
size_t tf_curve_table_bytes(size_t count);
/* Build the table into `storage` (tf_curve_table_bytes(count) bytes,
 * aligned for double), using `scratch` (2 * count doubles) for the
 * tangents. Points must be valid (checked by the caller). */
void tf_curve_table_build(tf_curve_table *table, void *storage, const tf_point *points,
                          size_t count, tf_interp interp, double *scratch);
double tf_curve_table_eval(const tf_curve_table *table, double u);

/* 0.5 - 0.5*cos(pi*t), evaluated with the documented polynomial. */
double tf_cosine_blend(double t);

/* ---- derived defaults (docs/spec.md, "Seeds and offsets") */
uint32_t tf_mix32(uint32_t x);
uint32_t tf_layer_seed(uint32_t root_seed, size_t layer_index);
void tf_default_offset(uint32_t layer_seed, double offset[3]);
/* 5% of the mask layer's control-point y span. */
double tf_default_mask_falloff(const tf_layer_spec *mask_layer);
/* The value range implied by the layers' curves, shifts, scales and masks. */
void tf_spec_derived_range(const tf_spec *spec, double *lo, double *hi);

/* ---- spec internals */
/* tf_spec_validate with a source name (e.g. the file) to start messages. */
int tf_spec_check(const tf_spec *spec, const char *source, tf_error *err);
char *tf_strdup(const char *s);
/* Append a path to spec->unknown_keys. 0 on success. */
int tf_spec_add_unknown_key(tf_spec *spec, const char *path);
/* Default-initialize one layer (no points). */
void tf_layer_init(tf_layer_spec *layer, uint32_t root_seed, size_t index);

#endif
