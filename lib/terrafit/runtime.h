/*
 * terrafit runtime: load a JSON terrain spec once, then sample its height at
 * any point, in any order, with the same bits on every platform.
 * Depends on cJSON and libm only. This is the part a game embeds.
 *
 * The common case:
 *
 *     #include <terrafit/runtime.h>
 *
 *     tf_error err;
 *     tf_terrain *t = tf_terrain_load("terrain.json", &err);
 *     if (!t) { fprintf(stderr, "%s\n", err.message); return 1; }
 *
 *     double h = tf_terrain_sample(t, 1234.5, -87.25);   // raw height
 *     double v = tf_terrain_normalize(t, h);              // 0..1 for the spec's range
 *
 *     // Chunk (cx, cy) of 64x64 samples, one per world unit, with the
 *     // one-sample border used for normals (thesis 5.5): 66x66 values.
 *     float chunk[66 * 66];
 *     tf_terrain_sample_window(t, 0.0, 0.0, 1.0, cx * 64 - 1, cy * 64 - 1, 66, 66, chunk);
 *
 *     tf_terrain_free(t);
 *
 * Threads: a loaded terrain is read-only; any number of threads may sample it
 * at once. Sampling never allocates. Evaluation order and every formula are in
 * docs/spec.md; the base noises in docs/noise.md.
 *
 * Build with pkg-config: `pkg-config --cflags --libs terrafit-runtime`.
 */
#ifndef TERRAFIT_RUNTIME_H
#define TERRAFIT_RUNTIME_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define TF_VERSION_STRING "0.1.0"

/* ---------------------------------------------------------------- errors */

/* Error codes in tf_error.code. */
enum {
    TF_OK = 0,
    TF_ERR_IO = 1,      /* a file could not be read or written */
    TF_ERR_PARSE = 2,   /* not well-formed JSON (message has line:column) */
    TF_ERR_INVALID = 3, /* well-formed, but not a valid spec (message has the JSON path) */
    TF_ERR_LIMIT = 4,   /* beyond a documented size limit */
    TF_ERR_NOMEM = 5,   /* out of memory */
    TF_ERR_ARGUMENT = 6 /* a bad argument to a library call */
};

/* Caller-owned error: on failure, `code` is one of the above and `message`
 * is a printable, NUL-terminated sentence naming the file, the JSON path
 * (e.g. "$.noiseLayers[1].rd.points[3].x") or the position, and the problem. */
typedef struct {
    int code;
    char message[256];
} tf_error;

/* ---------------------------------------------------------------- limits */

#define TF_FORMAT_NAME "terrafit-terrain" /* root "format" */
#define TF_FORMAT_VERSION 1               /* root "version" this library writes and reads */
#define TF_MAX_SPEC_BYTES (16u << 20)     /* largest spec file or string accepted */
#define TF_MAX_LAYERS 64                  /* noise layers per spec */
#define TF_MAX_POINTS 65536               /* control points per curve */

/* --------------------------------------------------------------- terrain */

/* A compiled terrain: flat, read-only tables ready to sample. Opaque. */
typedef struct tf_terrain tf_terrain;

/* Load and compile a spec file. NULL on failure, with `err` filled. */
tf_terrain *tf_terrain_load(const char *path, tf_error *err);

/* Parse and compile a spec held in memory (`len` bytes, need not be
 * NUL-terminated). NULL on failure, with `err` filled. */
tf_terrain *tf_terrain_parse(const char *json, size_t len, tf_error *err);

/* Raw height h at world point (x, y): the sum of the layers, through the
 * output curve when the spec has one (docs/spec.md, steps 1-6). 1 world
 * unit = 1 reference pixel. Non-finite coordinates give a non-finite
 * result. Never allocates; safe from many threads. */
double tf_terrain_sample(const tf_terrain *t, double x, double y);

/* nx * ny samples on a regular grid, row-major:
 *     out[j*nx + i] == (float)tf_terrain_sample(t, x0 + i*step, y0 + j*step)
 * bit for bit. For chunks of an endless world use tf_terrain_sample_window,
 * whose coordinates come from global lattice indices so seams are exact. */
void tf_terrain_sample_grid(const tf_terrain *t, double x0, double y0, double step,
                            size_t nx, size_t ny, float *out);

/* The window of an endless sample lattice: nx * ny samples, row-major,
 *     out[j*nx + i] == (float)tf_terrain_sample(t, x0 + (double)(i0 + i) * step,
 *                                                   y0 + (double)(j0 + j) * step)
 * Every sample's coordinate depends only on its global lattice index, so
 * chunks cut from one lattice (any step, any chunk size) share bit-identical
 * values wherever they overlap. Chunk (cx, cy) of size N with the
 * (N+2) x (N+2) border for normals: i0 = cx*N - 1, j0 = cy*N - 1, nx = ny = N+2.
 * tf_terrain_sample_grid(t, x0, y0, step, nx, ny, out) is the window at
 * i0 = j0 = 0. |i0 + i| and |j0 + j| must stay below 2^53. */
void tf_terrain_sample_window(const tf_terrain *t, double x0, double y0, double step,
                              int64_t i0, int64_t j0, size_t nx, size_t ny, float *out);

/* The raw height h at (x, y), as tf_terrain_sample gives it up to the
 * rounding of a different evaluation order, and its gradient dh/dx,
 * dh/dy in height units per world unit (either pointer may be NULL): the
 * chain rule through the redistribution curves, masks, mask curves and the
 * output curve (docs/spec.md, "Gradients"), with the base noises'
 * derivatives analytic where docs/noise.md gives them and central
 * differences otherwise. Normals without extra samples: (-dh/dx, -dh/dy, 1)
 * normalized. Never allocates; safe from many threads. */
double tf_terrain_sample_gradient(const tf_terrain *t, double x, double y, double *dhdx,
                                  double *dhdy);

/* (h - minValue) / (maxValue - minValue): 0..1 over the spec's stated range
 * (not clamped: a terrain may step outside the range it states). */
double tf_terrain_normalize(const tf_terrain *t, double h);

/* Free a terrain; NULL is allowed. */
void tf_terrain_free(tf_terrain *t);

/* The spec's stated range and layer count. */
double tf_terrain_min_value(const tf_terrain *t);
double tf_terrain_max_value(const tf_terrain *t);
size_t tf_terrain_layer_count(const tf_terrain *t);

/* ------------------------------------------------------------------ spec */
/*
 * The spec is the plain structure shared by the fitter (producer) and the
 * runtime (consumer). The JSON reader and writer below are its only
 * translators. A parsed spec has every default resolved, so each field holds
 * the value the runtime will use. Tools build one with tf_spec_new(), fill
 * it, check it with tf_spec_validate() and compile it with tf_terrain_compile().
 */

typedef enum {
    TF_NOISE_SIMPLEX = 0,                  /* "simplex": seeded 2D simplex (docs/noise.md) */
    TF_NOISE_PERLIN_REFERENCE_SIMPLEX = 1, /* "perlin-reference-simplex": Perlin 2001, 3D, z = oz */
    TF_NOISE_PERLIN = 2,                   /* "perlin": Perlin 2002 improved noise, 3D, z = oz */
    TF_NOISE_EXPONENTIAL_PERLIN = 3,       /* "exponential-perlin": Parberry 2015, 3D, z = oz */
    TF_NOISE_POLYNOMIAL = 4,               /* "polynomial": Thorimbert-Chopard D2M1N3, 2D */
    TF_NOISE_VALUE = 5,                    /* "value": value noise, quintic fade, 2D */
    TF_NOISE_CELLULAR_F1 = 6,              /* "cellular-f1": Worley F1, 2D */
    TF_NOISE_CELLULAR_F2 = 7,              /* "cellular-f2": Worley F2, 2D */
    TF_NOISE_CELLULAR_F2_F1 = 8,           /* "cellular-f2-f1": Worley F2 - F1, 2D */
    TF_NOISE_KIND_COUNT
} tf_noise_type;

/* A layer's fractal wrapper around its base noise ("fractal", docs/spec.md
 * "Layer kinds"): octaves of the base noise combined as the kind says. */
typedef enum {
    TF_FRACTAL_NONE = 0,   /* no "fractal" member: the base noise itself */
    TF_FRACTAL_FBM = 1,    /* "fbm": sum of octaves */
    TF_FRACTAL_RIDGED = 2, /* "ridged": sum of 1 - |n| */
    TF_FRACTAL_BILLOW = 3, /* "billow": sum of |n| */
    TF_FRACTAL_SWISS = 4,  /* "swiss": de Carpentier's swiss turbulence */
    TF_FRACTAL_JORDAN = 5, /* "jordan": de Carpentier's jordan turbulence */
    TF_FRACTAL_KIND_COUNT
} tf_fractal_kind;

#define TF_MAX_OCTAVES 24 /* fractal.octaves, 1..24 */

typedef enum {
    TF_INTERP_LINEAR = 0,         /* "linear" */
    TF_INTERP_COSINE = 1,         /* "cosine" */
    TF_INTERP_MONOTONE_CUBIC = 2, /* "monotone-cubic" (Fritsch-Carlson), the default */
    TF_INTERP_KIND_COUNT
} tf_interp;

typedef struct {
    double x, y;
} tf_point;

typedef struct {
    /* baseNoise */
    tf_noise_type noise_type;
    double frequency;  /* lattice units per world unit, > 0 */
    uint32_t seed;     /* the layer's noise seed */
    double offset[3];  /* added after frequency scaling: (x*f + ox, y*f + oy, oz) */
    /* rd: redistribution of the base noise's unit value u = (n + 1) / 2 */
    tf_point *rd_points; /* strictly increasing x, owned by the spec */
    size_t rd_point_count;
    tf_interp rd_interpolation;
    /* X = (RD(u) + pre_amp_shift) * amp_scale, times the mask weight */
    double pre_amp_shift;
    double amp_scale;
    int mask_layer_index; /* -1: unmasked; else a lower layer's index */
    double mask_min_value, mask_max_value;
    double mask_falloff; /* smoothstep width outside [min, max], >= 0 */
    /* "maskCurve": a partial mask (thesis 5.4.2, future work): the weight
     * is a curve of the mask layer's redistributed value, w = MC(r_m),
     * evaluated like rd (docs/spec.md, step 4). When mask_curve_point_count
     * > 0 it replaces the range mask: mask_layer_index must then name a
     * lower layer, and min/max/falloff are unused (neither checked nor
     * written). Weights may be any finite numbers. */
    tf_point *mask_curve_points; /* strictly increasing x, owned by the spec */
    size_t mask_curve_point_count;
    tf_interp mask_curve_interpolation;
    /* Members the format does not know, kept so a rewrite preserves them:
     * a JSON object text, or NULL. Owned by the spec. */
    char *extra_json;            /* of the layer object */
    char *base_noise_extra_json; /* of "baseNoise" */
    char *rd_extra_json;         /* of "rd" */
    char *mask_curve_extra_json; /* of "maskCurve" */
    /* "fractal" (docs/spec.md, "Layer kinds"); TF_FRACTAL_NONE: none, and
     * the other fractal fields are unused. tf_fractal_set_defaults() fills
     * a kind's defaults. Fields a kind does not use are neither checked
     * nor written (swiss uses warp; jordan gain1, warp0, warp, damp0, damp,
     * damp_scale). */
    tf_fractal_kind fractal_kind;
    int fractal_octaves;       /* 1..TF_MAX_OCTAVES */
    double fractal_lacunarity; /* > 1 */
    double fractal_gain;       /* >= 0 */
    double fractal_gain1;      /* jordan, >= 0 */
    double fractal_warp0, fractal_warp;
    double fractal_damp0, fractal_damp, fractal_damp_scale;
    char *fractal_extra_json; /* unknown members of "fractal", or NULL */
} tf_layer_spec;

typedef struct {
    int version;        /* TF_FORMAT_VERSION */
    uint32_t seed;      /* root seed, from which layer seeds and offsets default */
    double min_value;   /* expected range of h, for normalization */
    double max_value;
    tf_layer_spec *layers; /* bottom to top, owned by the spec */
    size_t layer_count;
    /* "outputCurve": h = OC(sum of the layers), the raw height that
     * min_value/max_value normalize (docs/spec.md, step 6); none when
     * output_curve_point_count is 0. */
    tf_point *output_curve_points; /* strictly increasing x, owned by the spec */
    size_t output_curve_point_count;
    tf_interp output_curve_interpolation;
    char *output_curve_extra_json; /* unknown members of "outputCurve", or NULL */
    char *extra_json; /* unknown root members, a JSON object text, or NULL */
    /* JSON paths of the members the reader did not know (for validate --strict). */
    char **unknown_keys;
    size_t unknown_key_count;
} tf_spec;

/* A new spec with `layer_count` layers set to the documented defaults
 * (simplex, frequency 1/64, seeds and offsets derived from seed 0, no
 * control points, unmasked, no output curve). NULL on failure. */
tf_spec *tf_spec_new(size_t layer_count, tf_error *err);

/* Give layer `layer` a mask curve over the redistributed value of lower
 * layer `mask_layer` (0 <= mask_layer < layer): `count` >= 2 points are
 * copied, replacing any range mask (its min/max/falloff become 0). count 0
 * removes the curve and leaves the layer unmasked (`mask_layer` is then
 * ignored). The points themselves are checked by tf_spec_validate.
 * 0 on success; on failure the layer is unchanged. */
int tf_spec_set_mask_curve(tf_spec *spec, size_t layer, int mask_layer, const tf_point *points,
                           size_t count, tf_interp interp, tf_error *err);

/* Set the root output curve (count >= 2 points, copied; count 0 removes
 * it). min_value/max_value are left as they are: a tool that wants the
 * documented default sets them to the curve's y range. 0 on success; on
 * failure the spec is unchanged. */
int tf_spec_set_output_curve(tf_spec *spec, const tf_point *points, size_t count,
                             tf_interp interp, tf_error *err);

/* Copy `count` points into layer `layer` (replacing any it had). 0 on success. */
int tf_spec_set_rd_points(tf_spec *spec, size_t layer, const tf_point *points, size_t count,
                          tf_error *err);

/* Set the root seed and re-derive every layer's seed and offset from it
 * (docs/spec.md, "Seeds and offsets"). */
void tf_spec_reseed(tf_spec *spec, uint32_t seed);

/* Read a spec: file, or memory. `source` names the text in messages
 * (e.g. the file name); NULL means "<string>". NULL on failure. */
tf_spec *tf_spec_load(const char *path, tf_error *err);
tf_spec *tf_spec_parse(const char *json, size_t len, const char *source, tf_error *err);

/* Check every rule of the format (docs/spec.md). 0 if valid. */
int tf_spec_validate(const tf_spec *spec, tf_error *err);

/* Write a spec as JSON text (malloc'd, NUL-terminated; free with free()).
 * Every number reads back as the same double. NULL on failure. */
char *tf_spec_to_json(const tf_spec *spec, tf_error *err);

/* Deep copy. NULL on failure. */
tf_spec *tf_spec_copy(const tf_spec *spec, tf_error *err);

/* Free a spec; NULL is allowed. */
void tf_spec_free(tf_spec *spec);

/* Compile a valid spec into a terrain (the spec is not kept or modified). */
tf_terrain *tf_terrain_compile(const tf_spec *spec, tf_error *err);

/* The spec a terrain was compiled from (owned by the terrain). */
const tf_spec *tf_terrain_spec(const tf_terrain *t);

/* Names used in the JSON format; NULL for an out-of-range value. */
const char *tf_noise_type_name(tf_noise_type type);
const char *tf_interp_name(tf_interp interp);
const char *tf_fractal_kind_name(tf_fractal_kind kind);

/* Set a layer's fractal kind with that kind's documented defaults
 * (octaves 6, lacunarity 2, gain 0.5; swiss warp 0.15; jordan gain1 0.8,
 * warp0 0.4, warp 0.35, damp0 1, damp 0.8, damp_scale 1; de Carpentier's).
 * TF_FRACTAL_NONE removes the fractal. */
void tf_fractal_set_defaults(tf_layer_spec *layer, tf_fractal_kind kind);

/* ----------------------------------------------------------- base noises */

/* The raw base noise n of a layer's kind at a point in noise space
 * (after frequency and offset), as docs/noise.md defines it.
 * Simplex ignores z; perlin-reference-simplex ignores seed. */
double tf_noise_eval(tf_noise_type type, uint32_t seed, double x, double y, double z);

/* The same n for every kind, with its partial derivatives dn/dx and dn/dy
 * in noise space (either pointer may be NULL): analytic for every base
 * noise of docs/noise.md (perlin-reference-simplex included), the value
 * with the bits tf_noise_eval gives. NaN for an unknown type. */
double tf_noise_kind_eval(tf_noise_type type, uint32_t seed, double x, double y, double z,
                          double *dx, double *dy);

/* A layer's base value n at noise-space point (nx, ny, nz) = (x*f + ox,
 * y*f + oy, oz): the base noise, or its fractal when the layer has one
 * (docs/spec.md, "Layer kinds"). The layer's unit value is u = (n + 1) / 2
 * as for a plain noise. dx, dy (may be NULL) get dn/dnx and dn/dny:
 * analytic where the kind and noise allow, else the documented central
 * differences. The layer must be valid (tf_spec_validate). It sets up the
 * octaves (frequencies, offsets, amplitude sum) on every call: to sample
 * many points, compile a terrain and use tf_terrain_sample. */
double tf_fractal_eval(const tf_layer_spec *layer, double nx, double ny, double nz, double *dx,
                       double *dy);

/* ---------------------------------------------------------------- curves */

/* A compiled control-point curve, evaluated exactly as the runtime evaluates
 * a layer's rd, maskCurve and the outputCurve (docs/spec.md, "Redistribution
 * curves"), on its own, for tools and tests. Opaque. */
typedef struct tf_curve tf_curve;

/* Compile `count` >= 2 points with strictly increasing, finite x. */
tf_curve *tf_curve_new(const tf_point *points, size_t count, tf_interp interp, tf_error *err);

/* The curve at u: binary search for the segment, interpolate; clamped to the
 * first/last y outside [x_0, x_(K-1)]. Never allocates. */
double tf_curve_eval(const tf_curve *curve, double u);

void tf_curve_free(tf_curve *curve);

#ifdef __cplusplus
}
#endif
#endif /* TERRAFIT_RUNTIME_H */
