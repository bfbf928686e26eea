/*
 * The spec: lifetime (new, copy, free), the documented default rules
 * (layer seeds, offsets, mask falloff, value range) and validation of every
 * rule of the format, with messages that name the JSON path at fault.
 * docs/spec.md is the prose version of this file.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"

static const char *const NOISE_NAMES[TF_NOISE_TYPE_COUNT] = {
    "simplex", "perlin-reference-simplex", "perlin", "exponential-perlin", "polynomial",
    "value", "cellular-f1", "cellular-f2", "cellular-f2-f1"};
static const char *const FRACTAL_NAMES[TF_FRACTAL_KIND_COUNT] = {"none", "fbm", "ridged",
                                                                 "billow", "swiss", "jordan"};
static const char *const INTERP_NAMES[TF_INTERP_KIND_COUNT] = {"linear", "cosine",
                                                               "monotone-cubic"};

const char *tf_noise_type_name(tf_noise_type type)
{
    return (unsigned)type < TF_NOISE_TYPE_COUNT ? NOISE_NAMES[type] : NULL;
}

const char *tf_fractal_kind_name(tf_fractal_kind kind)
{
    return (unsigned)kind < TF_FRACTAL_KIND_COUNT ? FRACTAL_NAMES[kind] : NULL;
}

/* de Carpentier's defaults (Scape, 2011) for swiss and jordan; octaves 6,
 * lacunarity 2 and gain 0.5 for every kind. */
void tf_fractal_set_defaults(tf_layer_spec *layer, tf_fractal_kind kind)
{
    layer->fractal_kind = kind;
    layer->fractal_octaves = kind == TF_FRACTAL_NONE ? 0 : 6;
    layer->fractal_lacunarity = kind == TF_FRACTAL_NONE ? 0.0 : 2.0;
    layer->fractal_gain = kind == TF_FRACTAL_NONE ? 0.0 : 0.5;
    layer->fractal_gain1 = kind == TF_FRACTAL_JORDAN ? 0.8 : 0.0;
    layer->fractal_warp0 = kind == TF_FRACTAL_JORDAN ? 0.4 : 0.0;
    layer->fractal_warp = kind == TF_FRACTAL_JORDAN ? 0.35 : kind == TF_FRACTAL_SWISS ? 0.15 : 0.0;
    layer->fractal_damp0 = kind == TF_FRACTAL_JORDAN ? 1.0 : 0.0;
    layer->fractal_damp = kind == TF_FRACTAL_JORDAN ? 0.8 : 0.0;
    layer->fractal_damp_scale = kind == TF_FRACTAL_JORDAN ? 1.0 : 0.0;
    if (kind == TF_FRACTAL_NONE) {
        free(layer->fractal_extra_json);
        layer->fractal_extra_json = NULL;
    }
}

const char *tf_interp_name(tf_interp interp)
{
    return (unsigned)interp < TF_INTERP_KIND_COUNT ? INTERP_NAMES[interp] : NULL;
}

const char *tf_fade_by_name(tf_fade_by fade_by)
{
    static const char *const names[TF_FADE_BY_COUNT] = {"bed", "cut"};
    return (unsigned)fade_by < TF_FADE_BY_COUNT ? names[fade_by] : NULL;
}

const char *tf_breach_to_name(tf_breach_to breach_to)
{
    static const char *const names[TF_BREACH_TO_COUNT] = {"lowest", "nearest", "pass"};
    return (unsigned)breach_to < TF_BREACH_TO_COUNT ? names[breach_to] : NULL;
}

char *tf_strdup(const char *s)
{
    if (!s)
        return NULL;
    size_t n = strlen(s) + 1;
    char *copy = malloc(n);
    if (copy)
        memcpy(copy, s, n);
    return copy;
}

/* ---- derived defaults */

/* A 32-bit integer finalizer ("lowbias32", C. Wellons): good avalanche,
 * a handful of operations, and trivial to port. */
uint32_t tf_mix32(uint32_t x)
{
    x ^= x >> 16;
    x *= 0x7FEB352Du;
    x ^= x >> 15;
    x *= 0x846CA68Bu;
    x ^= x >> 16;
    return x;
}

uint32_t tf_layer_seed(uint32_t root_seed, size_t layer_index)
{
    return tf_mix32(root_seed + tf_mix32((uint32_t)layer_index + 1u));
}

/* SplitMix64 (Steele, Lea, Flood 2014) step. */
static uint64_t splitmix64_next(uint64_t *state)
{
    uint64_t z = (*state += 0x9E3779B97F4A7C15u);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9u;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBu;
    return z ^ (z >> 31);
}

/* Three offsets in [-1024, 1024) lattice units from the layer seed: far
 * enough apart that layers sharing a noise do not line up, small enough to
 * keep every bit of precision. Each value is exact: (z >> 11) * 2^-53 is a
 * 53-bit fraction, and the scaling by 2048 and shift by 1024 are exact. */
void tf_default_offset(uint32_t layer_seed, double offset[3])
{
    uint64_t state = layer_seed;
    for (int d = 0; d < 3; d++) {
        double unit = (double)(splitmix64_next(&state) >> 11) * 0x1.0p-53;
        offset[d] = unit * 2048.0 - 1024.0;
    }
}

/* The smallest and largest y of a curve's control points (0, 0 for none). */
static void point_y_range(const tf_point *points, size_t count, double *lo, double *hi)
{
    *lo = *hi = count ? points[0].y : 0.0;
    for (size_t k = 1; k < count; k++) {
        if (points[k].y < *lo)
            *lo = points[k].y;
        if (points[k].y > *hi)
            *hi = points[k].y;
    }
}

double tf_default_mask_falloff(const tf_layer_spec *mask_layer)
{
    double lo, hi;
    point_y_range(mask_layer->rd_points, mask_layer->rd_point_count, &lo, &hi);
    return 0.05 * (hi - lo);
}

/* Every interpolant stays within the y range of its segment's two points
 * (monotone cubic by construction), and the curves clamp to their end
 * points, so each layer's X lies in [(ymin + shift) * scale,
 * (ymax + shift) * scale] (ordered), widened to include 0 when a range mask
 * can switch it off. A mask curve multiplies that by a weight in [wmin,
 * wmax]: the product's extremes are among the four corner products, and
 * rounding each product is monotone, so the rounded corners bound the
 * rounded X. An output curve's value lies in its own y range, whatever the
 * sum was. */
void tf_spec_derived_range(const tf_spec *spec, double *lo, double *hi)
{
    if (spec->output_curve_point_count > 0) {
        point_y_range(spec->output_curve_points, spec->output_curve_point_count, lo, hi);
        return;
    }
    double sum_lo = 0.0, sum_hi = 0.0;
    for (size_t i = 0; i < spec->layer_count; i++) {
        const tf_layer_spec *layer = &spec->layers[i];
        double ylo, yhi;
        point_y_range(layer->rd_points, layer->rd_point_count, &ylo, &yhi);
        double a = (ylo + layer->pre_amp_shift) * layer->amp_scale;
        double b = (yhi + layer->pre_amp_shift) * layer->amp_scale;
        if (a > b) {
            double swap = a;
            a = b;
            b = swap;
        }
        if (layer->mask_curve_point_count > 0) {
            double wlo, whi;
            point_y_range(layer->mask_curve_points, layer->mask_curve_point_count, &wlo, &whi);
            double corner[4] = {a * wlo, a * whi, b * wlo, b * whi};
            a = b = corner[0];
            for (int c = 1; c < 4; c++) {
                a = corner[c] < a ? corner[c] : a;
                b = corner[c] > b ? corner[c] : b;
            }
        } else if (layer->mask_layer_index >= 0) {
            a = a < 0.0 ? a : 0.0;
            b = b > 0.0 ? b : 0.0;
        }
        sum_lo += a;
        sum_hi += b;
    }
    *lo = sum_lo;
    *hi = sum_hi;
}

/* ---- lifetime */

void tf_layer_init(tf_layer_spec *layer, uint32_t root_seed, size_t index)
{
    memset(layer, 0, sizeof *layer);
    layer->noise_type = TF_NOISE_SIMPLEX;
    layer->frequency = 1.0 / 64.0;
    layer->seed = tf_layer_seed(root_seed, index);
    tf_default_offset(layer->seed, layer->offset);
    layer->rd_interpolation = TF_INTERP_MONOTONE_CUBIC;
    layer->pre_amp_shift = 0.0;
    layer->amp_scale = 1.0;
    layer->mask_layer_index = -1;
    layer->mask_curve_interpolation = TF_INTERP_MONOTONE_CUBIC;
}

tf_spec *tf_spec_new(size_t layer_count, tf_error *err)
{
    if (layer_count > TF_MAX_LAYERS) {
        tf_error_set(err, TF_ERR_LIMIT, "spec: more than %d layers", TF_MAX_LAYERS);
        return NULL;
    }
    tf_spec *spec = calloc(1, sizeof *spec);
    if (spec && layer_count)
        spec->layers = calloc(layer_count, sizeof *spec->layers);
    if (!spec || (layer_count && !spec->layers)) {
        free(spec);
        tf_error_set(err, TF_ERR_NOMEM, "spec: out of memory");
        return NULL;
    }
    spec->version = TF_FORMAT_VERSION;
    spec->seed = 0;
    spec->min_value = -1.0;
    spec->max_value = 1.0;
    spec->layer_count = layer_count;
    spec->output_curve_interpolation = TF_INTERP_MONOTONE_CUBIC;
    for (size_t i = 0; i < layer_count; i++)
        tf_layer_init(&spec->layers[i], spec->seed, i);
    tf_error_clear(err);
    return spec;
}

/* A malloc'd copy of `count` points in *out (NULL for none); 0 on success. */
static int copy_points(const tf_point *points, size_t count, tf_point **out, tf_error *err)
{
    *out = NULL;
    if (count && !points) {
        tf_error_set(err, TF_ERR_ARGUMENT, "spec: %zu control points given as NULL", count);
        return -1;
    }
    if (count > TF_MAX_POINTS) {
        tf_error_set(err, TF_ERR_LIMIT, "spec: more than %d control points", TF_MAX_POINTS);
        return -1;
    }
    if (count) {
        if (!(*out = malloc(count * sizeof **out))) {
            tf_error_set(err, TF_ERR_NOMEM, "spec: out of memory");
            return -1;
        }
        memcpy(*out, points, count * sizeof **out);
    }
    return 0;
}

int tf_spec_set_rd_points(tf_spec *spec, size_t layer, const tf_point *points, size_t count,
                          tf_error *err)
{
    if (!spec || layer >= spec->layer_count || (count && !points)) {
        tf_error_set(err, TF_ERR_ARGUMENT, "spec: no layer %zu", layer);
        return -1;
    }
    tf_point *copy;
    if (copy_points(points, count, &copy, err) != 0)
        return -1;
    free(spec->layers[layer].rd_points);
    spec->layers[layer].rd_points = copy;
    spec->layers[layer].rd_point_count = count;
    tf_error_clear(err);
    return 0;
}

int tf_spec_set_mask_curve(tf_spec *spec, size_t layer, int mask_layer, const tf_point *points,
                           size_t count, tf_interp interp, tf_error *err)
{
    if (!spec || layer >= spec->layer_count || (count && !points)) {
        tf_error_set(err, TF_ERR_ARGUMENT, "spec: no layer %zu", layer);
        return -1;
    }
    if (count == 1) {
        tf_error_set(err, TF_ERR_ARGUMENT,
                     "spec: layer %zu: a mask curve needs at least 2 control points", layer);
        return -1;
    }
    if (count && (mask_layer < 0 || (size_t)mask_layer >= layer)) {
        tf_error_set(err, TF_ERR_ARGUMENT,
                     "spec: layer %zu: a mask curve's mask layer must be a lower layer, got %d",
                     layer, mask_layer);
        return -1;
    }
    if (count && (unsigned)interp >= TF_INTERP_KIND_COUNT) {
        tf_error_set(err, TF_ERR_ARGUMENT, "spec: unknown interpolation %d", (int)interp);
        return -1;
    }
    tf_point *copy;
    if (copy_points(points, count, &copy, err) != 0)
        return -1;
    tf_layer_spec *L = &spec->layers[layer];
    free(L->mask_curve_points);
    L->mask_curve_points = copy;
    L->mask_curve_point_count = count;
    /* One mask or the other: the range members go either way. */
    L->mask_layer_index = count ? mask_layer : -1;
    L->mask_curve_interpolation = count ? interp : TF_INTERP_MONOTONE_CUBIC;
    L->mask_min_value = L->mask_max_value = L->mask_falloff = 0.0;
    if (!count) {
        free(L->mask_curve_extra_json);
        L->mask_curve_extra_json = NULL;
    }
    tf_error_clear(err);
    return 0;
}

int tf_spec_set_output_curve(tf_spec *spec, const tf_point *points, size_t count,
                             tf_interp interp, tf_error *err)
{
    if (!spec || (count && !points)) {
        tf_error_set(err, TF_ERR_ARGUMENT, "spec: no spec or no points");
        return -1;
    }
    if (count == 1) {
        tf_error_set(err, TF_ERR_ARGUMENT, "spec: an output curve needs at least 2 control points");
        return -1;
    }
    if (count && (unsigned)interp >= TF_INTERP_KIND_COUNT) {
        tf_error_set(err, TF_ERR_ARGUMENT, "spec: unknown interpolation %d", (int)interp);
        return -1;
    }
    tf_point *copy;
    if (copy_points(points, count, &copy, err) != 0)
        return -1;
    free(spec->output_curve_points);
    spec->output_curve_points = copy;
    spec->output_curve_point_count = count;
    spec->output_curve_interpolation = count ? interp : TF_INTERP_MONOTONE_CUBIC;
    if (!count) {
        free(spec->output_curve_extra_json);
        spec->output_curve_extra_json = NULL;
    }
    tf_error_clear(err);
    return 0;
}

void tf_spec_reseed(tf_spec *spec, uint32_t seed)
{
    spec->seed = seed;
    for (size_t i = 0; i < spec->layer_count; i++) {
        spec->layers[i].seed = tf_layer_seed(seed, i);
        tf_default_offset(spec->layers[i].seed, spec->layers[i].offset);
    }
    spec->drainage.seed = tf_drainage_seed(seed);
}

/* The seed a 65th layer would get: never a layer's, since a spec has at
 * most 64 (docs/spec.md, "Drainage"). */
uint32_t tf_drainage_seed(uint32_t root_seed)
{
    return tf_layer_seed(root_seed, TF_MAX_LAYERS);
}

void tf_drainage_set_defaults(tf_spec *spec, int levels, double spacing, double depth,
                              double slope)
{
    tf_drainage_spec *d = &spec->drainage;
    char *extra = d->extra_json;
    memset(d, 0, sizeof *d);
    d->extra_json = extra;
    if (levels <= 0)
        return;
    d->levels = levels;
    d->seed = tf_drainage_seed(spec->seed);
    d->spacing = spacing;
    d->depth = depth;
    d->slope = slope;
    d->reach = 1.5;
    d->floor_width = 0.1;
    d->jitter = 0.8;
    d->bend = 0.2;
    d->breach = 3;
    d->detail_wavelength = levels <= TF_MAX_DRAINAGE_LEVELS ? ldexp(2.0 * spacing, 1 - levels) : 0.0;
    d->fade = 0.5;
    d->fade_by = TF_FADE_BED;
    d->breach_to = TF_BREACH_LOWEST;
    d->inflow = 0;
}

int tf_spec_add_unknown_key(tf_spec *spec, const char *path)
{
    char **grown = realloc(spec->unknown_keys, (spec->unknown_key_count + 1) * sizeof *grown);
    if (!grown)
        return -1;
    spec->unknown_keys = grown;
    if (!(grown[spec->unknown_key_count] = tf_strdup(path)))
        return -1;
    spec->unknown_key_count++;
    return 0;
}

static void layer_free(tf_layer_spec *layer)
{
    free(layer->rd_points);
    free(layer->mask_curve_points);
    free(layer->extra_json);
    free(layer->base_noise_extra_json);
    free(layer->rd_extra_json);
    free(layer->mask_curve_extra_json);
    free(layer->fractal_extra_json);
}

void tf_spec_free(tf_spec *spec)
{
    if (!spec)
        return;
    for (size_t i = 0; i < spec->layer_count; i++)
        layer_free(&spec->layers[i]);
    free(spec->layers);
    free(spec->output_curve_points);
    free(spec->output_curve_extra_json);
    free(spec->drainage.extra_json);
    free(spec->extra_json);
    for (size_t k = 0; k < spec->unknown_key_count; k++)
        free(spec->unknown_keys[k]);
    free(spec->unknown_keys);
    free(spec);
}

/* Duplicate an optional string; 0 on success (NULL in, NULL out). */
static int dup_optional(char **dst, const char *src)
{
    *dst = NULL;
    return (src && !(*dst = tf_strdup(src))) ? -1 : 0;
}

tf_spec *tf_spec_copy(const tf_spec *spec, tf_error *err)
{
    tf_spec *copy = tf_spec_new(spec->layer_count, err);
    if (!copy)
        return NULL;
    copy->version = spec->version;
    copy->seed = spec->seed;
    copy->min_value = spec->min_value;
    copy->max_value = spec->max_value;
    copy->output_curve_interpolation = spec->output_curve_interpolation;
    copy->output_curve_point_count = spec->output_curve_point_count;
    copy->drainage = spec->drainage;
    copy->drainage.extra_json = NULL;
    int failed = dup_optional(&copy->extra_json, spec->extra_json) ||
                 dup_optional(&copy->drainage.extra_json, spec->drainage.extra_json) ||
                 dup_optional(&copy->output_curve_extra_json, spec->output_curve_extra_json) ||
                 copy_points(spec->output_curve_points, spec->output_curve_point_count,
                             &copy->output_curve_points, err);
    if (!copy->output_curve_points)
        copy->output_curve_point_count = 0;
    for (size_t k = 0; k < spec->unknown_key_count && !failed; k++)
        failed = tf_spec_add_unknown_key(copy, spec->unknown_keys[k]);
    for (size_t i = 0; i < spec->layer_count && !failed; i++) {
        const tf_layer_spec *src = &spec->layers[i];
        tf_layer_spec *dst = &copy->layers[i];
        *dst = *src;
        /* Nothing of src's may stay in dst: a failure part-way frees dst. */
        dst->rd_points = dst->mask_curve_points = NULL;
        dst->extra_json = dst->base_noise_extra_json = NULL;
        dst->rd_extra_json = dst->mask_curve_extra_json = dst->fractal_extra_json = NULL;
        failed = dup_optional(&dst->extra_json, src->extra_json) ||
                 dup_optional(&dst->fractal_extra_json, src->fractal_extra_json) ||
                 dup_optional(&dst->base_noise_extra_json, src->base_noise_extra_json) ||
                 dup_optional(&dst->rd_extra_json, src->rd_extra_json) ||
                 dup_optional(&dst->mask_curve_extra_json, src->mask_curve_extra_json) ||
                 copy_points(src->rd_points, src->rd_point_count, &dst->rd_points, err) ||
                 copy_points(src->mask_curve_points, src->mask_curve_point_count,
                             &dst->mask_curve_points, err);
        if (!dst->rd_points)
            dst->rd_point_count = 0;
        if (!dst->mask_curve_points)
            dst->mask_curve_point_count = 0;
    }
    if (failed) {
        tf_spec_free(copy);
        tf_error_set(err, TF_ERR_NOMEM, "spec: out of memory");
        return NULL;
    }
    tf_error_clear(err);
    return copy;
}

/* ---- validation */

#define INVALID(...) (tf_error_set(err, TF_ERR_INVALID, __VA_ARGS__), -1)

/* A control-point curve at JSON path `path` ("$.noiseLayers[2].rd"):
 * a known interpolation, 2..TF_MAX_POINTS finite points, x strictly
 * increasing. */
static int check_curve(const char *src, const char *path, const tf_point *points, size_t count,
                       tf_interp interp, tf_error *err)
{
    if ((unsigned)interp >= TF_INTERP_KIND_COUNT)
        return INVALID("%s: %s.interpolation: unknown interpolation %d", src, path, (int)interp);
    if (count < 2 || !points)
        return INVALID("%s: %s.points: needs at least 2 control points, has %zu", src, path,
                       points ? count : (size_t)0);
    if (count > TF_MAX_POINTS) {
        tf_error_set(err, TF_ERR_LIMIT, "%s: %s.points: more than %d control points", src, path,
                     TF_MAX_POINTS);
        return -1;
    }
    for (size_t k = 0; k < count; k++) {
        const tf_point *pt = &points[k];
        if (!isfinite(pt->x))
            return INVALID("%s: %s.points[%zu].x: number is not finite", src, path, k);
        if (!isfinite(pt->y))
            return INVALID("%s: %s.points[%zu].y: number is not finite", src, path, k);
        if (k > 0 && !(pt->x > pt[-1].x))
            return INVALID("%s: %s.points[%zu].x: must be greater than the previous "
                           "point's x (%.17g <= %.17g)",
                           src, path, k, pt->x, pt[-1].x);
    }
    return 0;
}

/* "fractal": the parameters its kind uses (docs/spec.md, "Layer kinds"). */
static int check_fractal(const tf_layer_spec *L, size_t i, const char *src, tf_error *err)
{
    const char *p = "$.noiseLayers";
    tf_fractal_kind kind = L->fractal_kind;
    if (kind == TF_FRACTAL_NONE)
        return 0;
    if ((unsigned)kind >= TF_FRACTAL_KIND_COUNT)
        return INVALID("%s: %s[%zu].fractal.kind: unknown fractal kind %d", src, p, i, (int)kind);
    if (L->fractal_octaves < 1 || L->fractal_octaves > TF_MAX_OCTAVES)
        return INVALID("%s: %s[%zu].fractal.octaves: must be an integer from 1 to %d, got %d",
                       src, p, i, TF_MAX_OCTAVES, L->fractal_octaves);
    if (!isfinite(L->fractal_lacunarity))
        return INVALID("%s: %s[%zu].fractal.lacunarity: number is not finite", src, p, i);
    if (!(L->fractal_lacunarity > 1.0))
        return INVALID("%s: %s[%zu].fractal.lacunarity: must be > 1, got %.17g", src, p, i,
                       L->fractal_lacunarity);
    if (!isfinite(L->fractal_gain))
        return INVALID("%s: %s[%zu].fractal.gain: number is not finite", src, p, i);
    if (!(L->fractal_gain >= 0.0))
        return INVALID("%s: %s[%zu].fractal.gain: must be >= 0, got %.17g", src, p, i,
                       L->fractal_gain);
    /* The finest octave's frequency must stay finite and its lattice step
     * representable: lacunarity^(octaves-1) <= 2^40. */
    double f = 1.0;
    for (int k = 1; k < L->fractal_octaves; k++)
        f *= L->fractal_lacunarity;
    if (!(f <= 0x1p40))
        return INVALID("%s: %s[%zu].fractal.lacunarity: lacunarity^(octaves - 1) must not "
                       "exceed 2^40, got %.17g",
                       src, p, i, f);
    if (kind == TF_FRACTAL_SWISS && !isfinite(L->fractal_warp))
        return INVALID("%s: %s[%zu].fractal.warp: number is not finite", src, p, i);
    if (kind == TF_FRACTAL_JORDAN) {
        const struct {
            const char *name;
            double v;
        } m[] = {{"gain1", L->fractal_gain1}, {"warp0", L->fractal_warp0},
                 {"warp", L->fractal_warp},   {"damp0", L->fractal_damp0},
                 {"damp", L->fractal_damp},   {"damp_scale", L->fractal_damp_scale}};
        for (size_t k = 0; k < sizeof m / sizeof m[0]; k++)
            if (!isfinite(m[k].v))
                return INVALID("%s: %s[%zu].fractal.%s: number is not finite", src, p, i,
                               m[k].name);
        if (!(L->fractal_gain1 >= 0.0))
            return INVALID("%s: %s[%zu].fractal.gain1: must be >= 0, got %.17g", src, p, i,
                           L->fractal_gain1);
    }
    return 0;
}

static int check_layer(const tf_spec *spec, size_t i, const char *src, tf_error *err)
{
    const tf_layer_spec *L = &spec->layers[i];
    const char *p = "$.noiseLayers";
    if ((unsigned)L->noise_type >= TF_NOISE_TYPE_COUNT)
        return INVALID("%s: %s[%zu].baseNoise.type: unknown noise type %d", src, p, i,
                       (int)L->noise_type);
    if (!isfinite(L->frequency))
        return INVALID("%s: %s[%zu].baseNoise.frequency: number is not finite", src, p, i);
    if (!(L->frequency > 0.0))
        return INVALID("%s: %s[%zu].baseNoise.frequency: must be > 0, got %.17g", src, p, i,
                       L->frequency);
    for (int d = 0; d < 3; d++)
        if (!isfinite(L->offset[d]))
            return INVALID("%s: %s[%zu].baseNoise.offset[%d]: number is not finite", src, p, i,
                           d);
    if (check_fractal(L, i, src, err) != 0)
        return -1;
    char path[64];
    snprintf(path, sizeof path, "%s[%zu].rd", p, i);
    if (check_curve(src, path, L->rd_points, L->rd_point_count, L->rd_interpolation, err) != 0)
        return -1;
    if (!isfinite(L->pre_amp_shift))
        return INVALID("%s: %s[%zu].preAmpShift: number is not finite", src, p, i);
    if (!isfinite(L->amp_scale))
        return INVALID("%s: %s[%zu].ampScale: number is not finite", src, p, i);
    if (L->mask_layer_index != -1 && (L->mask_layer_index < 0 || (size_t)L->mask_layer_index >= i)) {
        if (i == 0)
            return INVALID("%s: %s[0].maskLayerIndex: must be -1 (unmasked) or the index of a "
                           "lower layer (layer 0 has none), got %d",
                           src, p, L->mask_layer_index);
        return INVALID("%s: %s[%zu].maskLayerIndex: must be -1 (unmasked) or the index of a "
                       "lower layer (0..%zu), got %d",
                       src, p, i, i - 1, L->mask_layer_index);
    }
    if (L->mask_curve_point_count > 0 || L->mask_curve_points) {
        /* A partial mask: the range members are unused. */
        if (L->mask_layer_index < 0 && i == 0)
            return INVALID("%s: %s[0].maskCurve: layer 0 has no lower layer to be masked by",
                           src, p);
        if (L->mask_layer_index < 0)
            return INVALID("%s: %s[%zu].maskLayerIndex: a layer with maskCurve needs a mask "
                           "layer (0..%zu), got -1",
                           src, p, i, i - 1);
        snprintf(path, sizeof path, "%s[%zu].maskCurve", p, i);
        return check_curve(src, path, L->mask_curve_points, L->mask_curve_point_count,
                           L->mask_curve_interpolation, err);
    }
    if (!isfinite(L->mask_min_value))
        return INVALID("%s: %s[%zu].maskMinValue: number is not finite", src, p, i);
    if (!isfinite(L->mask_max_value))
        return INVALID("%s: %s[%zu].maskMaxValue: number is not finite", src, p, i);
    if (L->mask_min_value > L->mask_max_value)
        return INVALID("%s: %s[%zu].maskMinValue: must not exceed maskMaxValue (%.17g > %.17g)",
                       src, p, i, L->mask_min_value, L->mask_max_value);
    if (!isfinite(L->mask_falloff))
        return INVALID("%s: %s[%zu].maskFalloff: number is not finite", src, p, i);
    if (L->mask_falloff < 0.0)
        return INVALID("%s: %s[%zu].maskFalloff: must be >= 0, got %.17g", src, p, i,
                       L->mask_falloff);
    return 0;
}

/* "drainage" (docs/spec.md, "Drainage"): each member in its range. The
 * ranges bound the network a sample must rebuild around itself. */
static int check_drainage(const tf_drainage_spec *d, const char *src, tf_error *err)
{
    const char *p = "$.drainage";
    if (d->levels < 1 || d->levels > TF_MAX_DRAINAGE_LEVELS)
        return INVALID("%s: %s.levels: must be an integer from 1 to %d, got %d", src, p,
                       TF_MAX_DRAINAGE_LEVELS, d->levels);
    if (d->breach < 1 || d->breach > 4)
        return INVALID("%s: %s.breach: must be an integer from 1 to 4, got %d", src, p,
                       d->breach);
    if (d->inflow < 0 || d->inflow > 8)
        return INVALID("%s: %s.inflow: must be an integer from 0 to 8, got %d", src, p,
                       d->inflow);
    if (!tf_fade_by_name(d->fade_by))
        return INVALID("%s: %s.fadeBy: must be \"bed\" or \"cut\", got %d", src, p,
                       (int)d->fade_by);
    if (!tf_breach_to_name(d->breach_to))
        return INVALID("%s: %s.breachTo: must be \"lowest\", \"nearest\" or \"pass\", got %d",
                       src, p, (int)d->breach_to);
    const struct {
        const char *name;
        double v, lo, hi;
        int lo_open; /* the range excludes lo */
    } m[] = {
        {"spacing", d->spacing, 0.0, 1e12, 1},    {"depth", d->depth, 0.0, 1e12, 1},
        {"slope", d->slope, 0.0, 1e12, 1},        {"reach", d->reach, 0.5, 2.0, 0},
        {"floor", d->floor_width, 0.0, 1.0, 0},   {"jitter", d->jitter, 0.0, 0.9, 0},
        {"bend", d->bend, 0.0, 0.5, 0},           {"detailWavelength", d->detail_wavelength, 0.0, 1e12, 0},
        {"fade", d->fade, 0.0, 1e12, 1},
    };
    for (size_t k = 0; k < sizeof m / sizeof m[0]; k++) {
        if (!isfinite(m[k].v))
            return INVALID("%s: %s.%s: number is not finite", src, p, m[k].name);
        if ((m[k].lo_open ? !(m[k].v > m[k].lo) : !(m[k].v >= m[k].lo)) || !(m[k].v <= m[k].hi))
            return INVALID("%s: %s.%s: must be %s %.17g and <= %.17g, got %.17g", src, p,
                           m[k].name, m[k].lo_open ? ">" : ">=", m[k].lo, m[k].hi, m[k].v);
    }
    /* The finest lattice must stay far above a double's resolution at the
     * coordinates a game uses: L_(K-1) >= 2^-20 world units. */
    if (!(ldexp(d->spacing, 1 - d->levels) >= 0x1p-20))
        return INVALID("%s: %s.spacing: the finest level's spacing (spacing / 2^(levels - 1)) "
                       "must be >= 2^-20, got %.17g",
                       src, p, ldexp(d->spacing, 1 - d->levels));
    return 0;
}

int tf_spec_check(const tf_spec *spec, const char *source, tf_error *err)
{
    const char *src = source ? source : "spec";
    if (!spec)
        return (tf_error_set(err, TF_ERR_ARGUMENT, "%s: no spec", src), -1);
    if (spec->version != TF_FORMAT_VERSION)
        return INVALID("%s: $.version: unsupported version %d (this library reads version %d)",
                       src, spec->version, TF_FORMAT_VERSION);
    if (spec->layer_count == 0 || !spec->layers)
        return INVALID("%s: $.noiseLayers: must not be empty", src);
    if (spec->layer_count > TF_MAX_LAYERS) {
        tf_error_set(err, TF_ERR_LIMIT, "%s: $.noiseLayers: more than %d layers", src,
                     TF_MAX_LAYERS);
        return -1;
    }
    if (!isfinite(spec->min_value))
        return INVALID("%s: $.minValue: number is not finite", src);
    if (!isfinite(spec->max_value))
        return INVALID("%s: $.maxValue: number is not finite", src);
    for (size_t i = 0; i < spec->layer_count; i++)
        if (check_layer(spec, i, src, err) != 0)
            return -1;
    if ((spec->output_curve_point_count > 0 || spec->output_curve_points) &&
        check_curve(src, "$.outputCurve", spec->output_curve_points,
                    spec->output_curve_point_count, spec->output_curve_interpolation, err) != 0)
        return -1;
    if (spec->drainage.levels != 0 && check_drainage(&spec->drainage, src, err) != 0)
        return -1;
    if (!(spec->min_value < spec->max_value))
        return INVALID("%s: $.minValue: must be less than maxValue (%.17g >= %.17g)", src,
                       spec->min_value, spec->max_value);
    tf_error_clear(err);
    return 0;
}

int tf_spec_validate(const tf_spec *spec, tf_error *err)
{
    return tf_spec_check(spec, NULL, err);
}
