/*
 * JSON -> tf_spec: the only way text becomes a spec. Reads the thesis's
 * format (5.4.3, Table 4) and terrafit's extensions (docs/spec.md), fills
 * every default, keeps unknown members for rewriting, and rejects anything
 * else with a message naming the source, the JSON path and the problem.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cJSON.h>

#include "internal.h"

#define PATH_MAX_LEN 192

typedef struct {
    const char *source;
    tf_error *err;
    tf_spec *spec;
} reader;

static int fail(reader *r, int code, const char *path, const char *fmt, ...) TF_PRINTF(4, 5);
static int fail(reader *r, int code, const char *path, const char *fmt, ...)
{
    char problem[256];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(problem, sizeof problem, fmt, ap);
    va_end(ap);
    /* The JSON path and the problem are what the reader needs; a long file
     * name gives way first, keeping its end ("...dir/terrain.json"). */
    size_t room = sizeof r->err->message - 1, used = strlen(path) + strlen(problem) + 4;
    size_t source_len = strlen(r->source);
    if (used + source_len > room && room > used + 16) {
        size_t keep = room - used - 3;
        tf_error_set(r->err, code, "...%s: %s: %s", r->source + source_len - keep, path,
                     problem);
        return -1;
    }
    tf_error_set(r->err, code, "%s: %s: %s", r->source, path, problem);
    return -1;
}

static int fail_nomem(reader *r)
{
    tf_error_set(r->err, TF_ERR_NOMEM, "%s: out of memory", r->source);
    return -1;
}

static const char *type_phrase(const cJSON *v)
{
    if (cJSON_IsNumber(v))
        return "a number";
    if (cJSON_IsString(v))
        return "a string";
    if (cJSON_IsArray(v))
        return "an array";
    if (cJSON_IsObject(v))
        return "an object";
    if (cJSON_IsBool(v))
        return "a boolean";
    return "null";
}

/* A path too long for the buffer (hostile member names) ends in "...". */
static void mark_truncated(char *out, int written)
{
    if (written >= PATH_MAX_LEN)
        memcpy(out + PATH_MAX_LEN - 4, "...", 4);
}

static void child_path(char *out, const char *parent, const char *key)
{
    mark_truncated(out, snprintf(out, PATH_MAX_LEN, "%s.%s", parent, key));
}

static void index_path(char *out, const char *parent, size_t index)
{
    mark_truncated(out, snprintf(out, PATH_MAX_LEN, "%s[%zu]", parent, index));
}

/* ---- objects: duplicate and unknown members */

static int compare_keys(const void *a, const void *b)
{
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* Reject duplicate member names (sorting keeps this O(n log n) for
 * hostile inputs), record unknown ones, and collect the unknown members as
 * a JSON object text in *extra (NULL when there are none, or when `extra`
 * is NULL: their values are then dropped, as for control points). */
static int check_members(reader *r, const cJSON *obj, const char *path,
                         const char *const *known, size_t known_count, char **extra)
{
    size_t count = 0;
    for (const cJSON *c = obj->child; c; c = c->next)
        count++;
    if (count > 1) {
        const char **keys = malloc(count * sizeof *keys);
        if (!keys)
            return fail_nomem(r);
        size_t n = 0;
        for (const cJSON *c = obj->child; c; c = c->next)
            keys[n++] = c->string;
        qsort(keys, n, sizeof *keys, compare_keys);
        for (size_t k = 1; k < n; k++) {
            if (strcmp(keys[k], keys[k - 1]) == 0) {
                char name[64];
                snprintf(name, sizeof name, "%s", keys[k]);
                free(keys);
                return fail(r, TF_ERR_INVALID, path, "duplicate member \"%s\"", name);
            }
        }
        free(keys);
    }

    cJSON *unknown = NULL;
    for (const cJSON *c = obj->child; c; c = c->next) {
        int is_known = 0;
        for (size_t k = 0; k < known_count && !is_known; k++)
            is_known = strcmp(c->string, known[k]) == 0;
        if (is_known)
            continue;
        char member_path[PATH_MAX_LEN];
        child_path(member_path, path, c->string);
        if (tf_spec_add_unknown_key(r->spec, member_path) != 0)
            goto nomem;
        if (!extra)
            continue;
        if (!unknown && !(unknown = cJSON_CreateObject()))
            goto nomem;
        cJSON *value = cJSON_Duplicate(c, 1);
        if (!value || !cJSON_AddItemToObject(unknown, c->string, value)) {
            cJSON_Delete(value);
            goto nomem;
        }
    }
    if (unknown) {
        *extra = cJSON_PrintUnformatted(unknown);
        cJSON_Delete(unknown);
        if (!*extra)
            return fail_nomem(r);
    }
    return 0;
nomem:
    cJSON_Delete(unknown);
    return fail_nomem(r);
}

/* ---- typed members */

/* The member `key` of `obj`, or NULL; fails if required and absent. */
static int get_member(reader *r, const cJSON *obj, const char *path, const char *key,
                      int required, const cJSON **out)
{
    *out = cJSON_GetObjectItemCaseSensitive(obj, key);
    if (!*out && required) {
        char p[PATH_MAX_LEN];
        child_path(p, path, key);
        return fail(r, TF_ERR_INVALID, p, "missing required member");
    }
    return 0;
}

static int expect_type(reader *r, const cJSON *v, const char *path, int ok, const char *wanted)
{
    if (ok)
        return 0;
    return fail(r, TF_ERR_INVALID, path, "expected %s, got %s", wanted, type_phrase(v));
}

static int as_number(reader *r, const cJSON *v, const char *path, double *out)
{
    if (expect_type(r, v, path, cJSON_IsNumber(v), "a number") != 0)
        return -1;
    if (!isfinite(v->valuedouble))
        return fail(r, TF_ERR_INVALID, path, "number is not finite");
    *out = v->valuedouble;
    return 0;
}

/* An optional number member: *out keeps its default when absent.
 * *present (may be NULL) says whether it was there. */
static int read_number(reader *r, const cJSON *obj, const char *path, const char *key,
                       int required, double *out, int *present)
{
    const cJSON *v;
    if (get_member(r, obj, path, key, required, &v) != 0)
        return -1;
    if (present)
        *present = v != NULL;
    if (!v)
        return 0;
    char p[PATH_MAX_LEN];
    child_path(p, path, key);
    return as_number(r, v, p, out);
}

/* Seeds: integers 0..2^32-1. */
static int read_seed(reader *r, const cJSON *obj, const char *path, uint32_t *out, int *present)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(obj, "seed");
    *present = v != NULL;
    if (!v)
        return 0;
    char p[PATH_MAX_LEN];
    child_path(p, path, "seed");
    double d = v->valuedouble;
    if (!cJSON_IsNumber(v) || !isfinite(d) || d != floor(d) || d < 0.0 || d > 4294967295.0)
        return fail(r, TF_ERR_INVALID, p, "expected an integer from 0 to 4294967295");
    *out = (uint32_t)d;
    return 0;
}

static int read_enum(reader *r, const cJSON *obj, const char *path, const char *key,
                     const char *what, const char *(*name_of)(int), int count, int *out)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(obj, key);
    if (!v)
        return 0;
    char p[PATH_MAX_LEN];
    child_path(p, path, key);
    if (expect_type(r, v, p, cJSON_IsString(v), "a string") != 0)
        return -1;
    for (int k = 0; k < count; k++) {
        if (strcmp(v->valuestring, name_of(k)) == 0) {
            *out = k;
            return 0;
        }
    }
    char expected[200] = "";
    for (int k = 0; k < count; k++) {
        strncat(expected, k ? ", " : "", sizeof expected - strlen(expected) - 1);
        strncat(expected, name_of(k), sizeof expected - strlen(expected) - 1);
    }
    return fail(r, TF_ERR_INVALID, p, "unknown %s \"%.40s\" (expected one of: %s)", what,
                v->valuestring, expected);
}

static const char *noise_name_of(int k)
{
    return tf_noise_type_name((tf_noise_type)k);
}

static const char *interp_name_of(int k)
{
    return tf_interp_name((tf_interp)k);
}

static const char *fade_by_name_of(int k)
{
    return tf_fade_by_name((tf_fade_by)k);
}

static const char *breach_to_name_of(int k)
{
    return tf_breach_to_name((tf_breach_to)k);
}

/* ---- the format's objects */

static int read_base_noise(reader *r, const cJSON *obj, const char *path, tf_layer_spec *L,
                           int thesis_file)
{
    static const char *const known[] = {"type", "frequency", "seed", "offset"};
    if (expect_type(r, obj, path, cJSON_IsObject(obj), "an object") != 0 ||
        check_members(r, obj, path, known, 4, &L->base_noise_extra_json) != 0)
        return -1;
    /* A thesis file was made with the prototype's noise (docs/spec.md). */
    int type = thesis_file ? TF_NOISE_PERLIN_REFERENCE_SIMPLEX : TF_NOISE_SIMPLEX;
    if (read_enum(r, obj, path, "type", "noise type", noise_name_of, TF_NOISE_TYPE_COUNT,
                  &type) != 0)
        return -1;
    L->noise_type = (tf_noise_type)type;
    if (read_number(r, obj, path, "frequency", 1, &L->frequency, NULL) != 0)
        return -1;
    int seed_given;
    if (read_seed(r, obj, path, &L->seed, &seed_given) != 0)
        return -1;
    if (seed_given) /* offsets follow the layer's own seed */
        tf_default_offset(L->seed, L->offset);
    const cJSON *offset = cJSON_GetObjectItemCaseSensitive(obj, "offset");
    if (offset) {
        char p[PATH_MAX_LEN];
        child_path(p, path, "offset");
        if (!cJSON_IsArray(offset) || cJSON_GetArraySize(offset) != 3)
            return fail(r, TF_ERR_INVALID, p, "expected an array of 3 numbers");
        int d = 0;
        for (const cJSON *c = offset->child; c; c = c->next, d++) {
            char q[PATH_MAX_LEN];
            index_path(q, p, (size_t)d);
            if (!cJSON_IsNumber(c))
                return fail(r, TF_ERR_INVALID, p, "expected an array of 3 numbers");
            if (as_number(r, c, q, &L->offset[d]) != 0)
                return -1;
        }
    }
    return 0;
}

/* "fractal" kind names: index k is kind k + 1 ("none" is no member). */
static const char *fractal_name_of(int k)
{
    return tf_fractal_kind_name((tf_fractal_kind)(k + 1));
}

/* "fractal" (docs/spec.md, "Layer kinds"): a kind, then its parameters over
 * its defaults. A parameter of another kind is an error (it would be
 * silently unused); unknown members are kept. Ranges are checked by the
 * validator, which names the same paths. */
static int read_fractal(reader *r, const cJSON *obj, const char *path, tf_layer_spec *L)
{
    static const char *const known[] = {"kind",  "octaves", "lacunarity", "gain",
                                        "warp",  "gain1",   "warp0",      "damp0",
                                        "damp",  "damp_scale"};
    if (expect_type(r, obj, path, cJSON_IsObject(obj), "an object") != 0 ||
        check_members(r, obj, path, known, 10, &L->fractal_extra_json) != 0)
        return -1;
    const cJSON *v;
    if (get_member(r, obj, path, "kind", 1, &v) != 0)
        return -1;
    int kind = 0;
    if (read_enum(r, obj, path, "kind", "fractal kind", fractal_name_of,
                  TF_FRACTAL_KIND_COUNT - 1, &kind) != 0)
        return -1;
    char *extra = L->fractal_extra_json; /* kept across the defaults */
    L->fractal_extra_json = NULL;
    tf_fractal_set_defaults(L, (tf_fractal_kind)(kind + 1));
    L->fractal_extra_json = extra;

    char p[PATH_MAX_LEN];
    for (size_t k = 4; k < 10; k++) {
        int used = (L->fractal_kind == TF_FRACTAL_JORDAN) ||
                   (L->fractal_kind == TF_FRACTAL_SWISS && strcmp(known[k], "warp") == 0);
        if (!used && cJSON_GetObjectItemCaseSensitive(obj, known[k])) {
            child_path(p, path, known[k]);
            return fail(r, TF_ERR_INVALID, p, "not a parameter of fractal kind \"%s\"",
                        tf_fractal_kind_name(L->fractal_kind));
        }
    }
    if ((v = cJSON_GetObjectItemCaseSensitive(obj, "octaves")) != NULL) {
        child_path(p, path, "octaves");
        if (expect_type(r, v, p, cJSON_IsNumber(v), "an integer") != 0)
            return -1;
        double d = v->valuedouble;
        if (!isfinite(d) || d != floor(d))
            return fail(r, TF_ERR_INVALID, p, "expected an integer, got %.17g", d);
        if (d < 1.0 || d > TF_MAX_OCTAVES)
            return fail(r, TF_ERR_INVALID, p, "must be an integer from 1 to %d, got %.17g",
                        TF_MAX_OCTAVES, d);
        L->fractal_octaves = (int)d;
    }
    double *fields[] = {&L->fractal_lacunarity, &L->fractal_gain,  &L->fractal_warp,
                        &L->fractal_gain1,      &L->fractal_warp0, &L->fractal_damp0,
                        &L->fractal_damp,       &L->fractal_damp_scale};
    for (size_t k = 2; k < 10; k++)
        if (read_number(r, obj, path, known[k], 0, fields[k - 2], NULL) != 0)
            return -1;
    return 0;
}

/* Control points into *points (malloc'd, owned by the spec as soon as it is
 * set, with *count kept to the points read so far). */
static int read_points(reader *r, const cJSON *arr, const char *path, tf_point **points,
                       size_t *point_count)
{
    if (expect_type(r, arr, path, cJSON_IsArray(arr), "an array") != 0)
        return -1;
    size_t count = 0;
    for (const cJSON *c = arr->child; c; c = c->next)
        count++;
    if (count > TF_MAX_POINTS)
        return fail(r, TF_ERR_LIMIT, path, "more than %d control points", TF_MAX_POINTS);
    if (count < 2)
        return fail(r, TF_ERR_INVALID, path, "needs at least 2 control points, has %zu", count);
    *points = malloc(count * sizeof **points);
    if (!*points)
        return fail_nomem(r);
    static const char *const known[] = {"x", "y"};
    size_t k = 0;
    for (const cJSON *c = arr->child; c; c = c->next, k++) {
        char p[PATH_MAX_LEN];
        index_path(p, path, k);
        if (expect_type(r, c, p, cJSON_IsObject(c), "an object") != 0 ||
            check_members(r, c, p, known, 2, NULL) != 0 ||
            read_number(r, c, p, "x", 1, &(*points)[k].x, NULL) != 0 ||
            read_number(r, c, p, "y", 1, &(*points)[k].y, NULL) != 0)
            return -1;
        *point_count = k + 1;
    }
    return 0;
}

/* A curve object: "rd", "maskCurve" and "outputCurve" share one shape,
 * {"points": [...], "interpolation": "..."}, and one set of rules. */
typedef struct {
    tf_point **points;
    size_t *count;
    tf_interp *interp;
    char **extra_json;
} curve_fields;

static int read_curve(reader *r, const cJSON *obj, const char *path, curve_fields f)
{
    static const char *const known[] = {"points", "interpolation"};
    if (expect_type(r, obj, path, cJSON_IsObject(obj), "an object") != 0 ||
        check_members(r, obj, path, known, 2, f.extra_json) != 0)
        return -1;
    int interp = TF_INTERP_MONOTONE_CUBIC;
    if (read_enum(r, obj, path, "interpolation", "interpolation", interp_name_of,
                  TF_INTERP_KIND_COUNT, &interp) != 0)
        return -1;
    *f.interp = (tf_interp)interp;
    const cJSON *points;
    char p[PATH_MAX_LEN];
    child_path(p, path, "points");
    if (get_member(r, obj, path, "points", 1, &points) != 0)
        return -1;
    return read_points(r, points, p, f.points, f.count);
}

/* "maskCurve" (a partial mask): it needs a mask layer, and replaces the
 * range mask, whose members must then be absent. */
static int read_mask_curve(reader *r, const cJSON *obj, const char *path, size_t index,
                           const cJSON *mask_curve, tf_layer_spec *L)
{
    static const char *const range_members[] = {"maskMinValue", "maskMaxValue", "maskFalloff"};
    char p[PATH_MAX_LEN];
    for (size_t k = 0; k < 3; k++) {
        if (cJSON_GetObjectItemCaseSensitive(obj, range_members[k])) {
            child_path(p, path, range_members[k]);
            return fail(r, TF_ERR_INVALID, p,
                        "not allowed with maskCurve (a layer has a range mask or a mask curve, "
                        "not both)");
        }
    }
    child_path(p, path, "maskCurve");
    if (index == 0)
        return fail(r, TF_ERR_INVALID, p, "layer 0 has no lower layer to be masked by");
    if (!cJSON_GetObjectItemCaseSensitive(obj, "maskLayerIndex")) {
        child_path(p, path, "maskLayerIndex");
        return fail(r, TF_ERR_INVALID, p, "missing required member (maskCurve needs a mask layer)");
    }
    if (L->mask_layer_index < 0) {
        child_path(p, path, "maskLayerIndex");
        return fail(r, TF_ERR_INVALID, p,
                    "must be the index of a lower layer (0..%zu) when maskCurve is given, got -1",
                    index - 1);
    }
    curve_fields f = {&L->mask_curve_points, &L->mask_curve_point_count,
                      &L->mask_curve_interpolation, &L->mask_curve_extra_json};
    return read_curve(r, mask_curve, p, f);
}

static int read_mask_index(reader *r, const cJSON *obj, const char *path, size_t index,
                           tf_layer_spec *L)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(obj, "maskLayerIndex");
    if (!v)
        return 0;
    char p[PATH_MAX_LEN];
    child_path(p, path, "maskLayerIndex");
    if (expect_type(r, v, p, cJSON_IsNumber(v), "an integer") != 0)
        return -1;
    double d = v->valuedouble;
    if (!isfinite(d))
        return fail(r, TF_ERR_INVALID, p, "number is not finite");
    if (d != floor(d))
        return fail(r, TF_ERR_INVALID, p, "expected an integer, got %.17g", d);
    if (d < -1.0 || d >= (double)index) {
        if (index == 0)
            return fail(r, TF_ERR_INVALID, p,
                        "must be -1 (unmasked) or the index of a lower layer (layer 0 has "
                        "none), got %.17g",
                        d);
        return fail(r, TF_ERR_INVALID, p,
                    "must be -1 (unmasked) or the index of a lower layer (0..%zu), got %.17g",
                    index - 1, d);
    }
    L->mask_layer_index = (int)d;
    return 0;
}

static int read_layer(reader *r, const cJSON *obj, const char *path, size_t index,
                      int thesis_file)
{
    static const char *const known[] = {"baseNoise",    "rd",           "preAmpShift",
                                        "ampScale",     "maskLayerIndex", "maskMinValue",
                                        "maskMaxValue", "maskFalloff",  "maskCurve",
                                        "fractal"};
    tf_layer_spec *L = &r->spec->layers[index];
    if (expect_type(r, obj, path, cJSON_IsObject(obj), "an object") != 0 ||
        check_members(r, obj, path, known, 10, &L->extra_json) != 0)
        return -1;

    const cJSON *base_noise, *rd;
    char p[PATH_MAX_LEN];
    if (get_member(r, obj, path, "baseNoise", 1, &base_noise) != 0)
        return -1;
    child_path(p, path, "baseNoise");
    if (read_base_noise(r, base_noise, p, L, thesis_file) != 0)
        return -1;
    const cJSON *fractal = cJSON_GetObjectItemCaseSensitive(obj, "fractal");
    if (fractal) {
        child_path(p, path, "fractal");
        if (read_fractal(r, fractal, p, L) != 0)
            return -1;
    }
    if (get_member(r, obj, path, "rd", 1, &rd) != 0)
        return -1;
    child_path(p, path, "rd");
    curve_fields rd_fields = {&L->rd_points, &L->rd_point_count, &L->rd_interpolation,
                              &L->rd_extra_json};
    if (read_curve(r, rd, p, rd_fields) != 0)
        return -1;

    if (read_number(r, obj, path, "preAmpShift", 0, &L->pre_amp_shift, NULL) != 0 ||
        read_number(r, obj, path, "ampScale", 0, &L->amp_scale, NULL) != 0 ||
        read_mask_index(r, obj, path, index, L) != 0)
        return -1;
    const cJSON *mask_curve = cJSON_GetObjectItemCaseSensitive(obj, "maskCurve");
    if (mask_curve)
        return read_mask_curve(r, obj, path, index, mask_curve, L);
    int masked = L->mask_layer_index >= 0;
    int falloff_given;
    if (read_number(r, obj, path, "maskMinValue", masked, &L->mask_min_value, NULL) != 0 ||
        read_number(r, obj, path, "maskMaxValue", masked, &L->mask_max_value, NULL) != 0 ||
        read_number(r, obj, path, "maskFalloff", 0, &L->mask_falloff, &falloff_given) != 0)
        return -1;
    if (masked && !falloff_given)
        L->mask_falloff = tf_default_mask_falloff(&r->spec->layers[L->mask_layer_index]);
    return 0;
}

/* An optional integer member from lo to hi: *out keeps its default when
 * absent. */
static int read_int(reader *r, const cJSON *obj, const char *path, const char *key,
                    int required, int lo, int hi, int *out)
{
    const cJSON *v;
    if (get_member(r, obj, path, key, required, &v) != 0)
        return -1;
    if (!v)
        return 0;
    char p[PATH_MAX_LEN];
    child_path(p, path, key);
    if (expect_type(r, v, p, cJSON_IsNumber(v), "an integer") != 0)
        return -1;
    double d = v->valuedouble;
    if (!isfinite(d) || d != floor(d) || d < lo || d > hi)
        return fail(r, TF_ERR_INVALID, p, "must be an integer from %d to %d, got %.17g", lo, hi,
                    d);
    *out = (int)d;
    return 0;
}

/* "drainage" (docs/spec.md, "Drainage"): levels, spacing, depth and slope
 * are required, the rest default; ranges are checked by the validator,
 * which names the same paths. */
static int read_drainage(reader *r, const cJSON *obj)
{
    const char *path = "$.drainage";
    static const char *const known[] = {"levels", "seed",   "spacing", "depth",
                                        "slope",  "reach",  "floor",   "jitter",
                                        "bend",   "breach", "detailWavelength", "fade",
                                        "fadeBy", "breachTo", "inflow"};
    tf_drainage_spec *d = &r->spec->drainage;
    if (expect_type(r, obj, path, cJSON_IsObject(obj), "an object") != 0 ||
        check_members(r, obj, path, known, 15, &d->extra_json) != 0)
        return -1;
    int levels = 0;
    double spacing = 0.0, depth = 0.0, slope = 0.0;
    if (read_int(r, obj, path, "levels", 1, 1, TF_MAX_DRAINAGE_LEVELS, &levels) != 0 ||
        read_number(r, obj, path, "spacing", 1, &spacing, NULL) != 0 ||
        read_number(r, obj, path, "depth", 1, &depth, NULL) != 0 ||
        read_number(r, obj, path, "slope", 1, &slope, NULL) != 0)
        return -1;
    tf_drainage_set_defaults(r->spec, levels, spacing, depth, slope);
    int seed_given;
    if (read_seed(r, obj, path, &d->seed, &seed_given) != 0 ||
        read_int(r, obj, path, "breach", 0, 1, 4, &d->breach) != 0 ||
        read_int(r, obj, path, "inflow", 0, 0, 8, &d->inflow) != 0 ||
        read_number(r, obj, path, "reach", 0, &d->reach, NULL) != 0 ||
        read_number(r, obj, path, "floor", 0, &d->floor_width, NULL) != 0 ||
        read_number(r, obj, path, "jitter", 0, &d->jitter, NULL) != 0 ||
        read_number(r, obj, path, "bend", 0, &d->bend, NULL) != 0 ||
        read_number(r, obj, path, "detailWavelength", 0, &d->detail_wavelength, NULL) != 0 ||
        read_number(r, obj, path, "fade", 0, &d->fade, NULL) != 0)
        return -1;
    int fade_by = (int)d->fade_by, breach_to = (int)d->breach_to;
    if (read_enum(r, obj, path, "fadeBy", "fade measure", fade_by_name_of, TF_FADE_BY_COUNT,
                  &fade_by) != 0 ||
        read_enum(r, obj, path, "breachTo", "breach target", breach_to_name_of,
                  TF_BREACH_TO_COUNT, &breach_to) != 0)
        return -1;
    d->fade_by = (tf_fade_by)fade_by;
    d->breach_to = (tf_breach_to)breach_to;
    return 0;
}

static int read_root(reader *r, const cJSON *root)
{
    static const char *const known[] = {"format",   "version",     "seed",        "minValue",
                                        "maxValue", "noiseLayers", "outputCurve", "drainage"};
    if (expect_type(r, root, "$", cJSON_IsObject(root), "an object") != 0 ||
        check_members(r, root, "$", known, 8, &r->spec->extra_json) != 0)
        return -1;

    const cJSON *format = cJSON_GetObjectItemCaseSensitive(root, "format");
    const cJSON *version = cJSON_GetObjectItemCaseSensitive(root, "version");
    if (format && (!cJSON_IsString(format) || strcmp(format->valuestring, TF_FORMAT_NAME) != 0))
        return fail(r, TF_ERR_INVALID, "$.format", "expected \"%s\"", TF_FORMAT_NAME);
    if (version) {
        if (!cJSON_IsNumber(version) || version->valuedouble != floor(version->valuedouble) ||
            !isfinite(version->valuedouble))
            return fail(r, TF_ERR_INVALID, "$.version", "expected an integer, got %s",
                        type_phrase(version));
        if (version->valuedouble != TF_FORMAT_VERSION)
            return fail(r, TF_ERR_INVALID, "$.version",
                        "unsupported version %.17g (this library reads version %d)",
                        version->valuedouble, TF_FORMAT_VERSION);
    }
    /* Neither marker: a file in the thesis's own format (docs/spec.md). */
    int thesis_file = !format && !version;

    int seed_given;
    if (read_seed(r, root, "$", &r->spec->seed, &seed_given) != 0)
        return -1;

    const cJSON *layers;
    if (get_member(r, root, "$", "noiseLayers", 1, &layers) != 0 ||
        expect_type(r, layers, "$.noiseLayers", cJSON_IsArray(layers), "an array") != 0)
        return -1;
    size_t count = 0;
    for (const cJSON *c = layers->child; c; c = c->next)
        count++;
    if (count == 0)
        return fail(r, TF_ERR_INVALID, "$.noiseLayers", "must not be empty");
    if (count > TF_MAX_LAYERS)
        return fail(r, TF_ERR_LIMIT, "$.noiseLayers", "more than %d layers", TF_MAX_LAYERS);
    r->spec->layers = calloc(count, sizeof *r->spec->layers);
    if (!r->spec->layers)
        return fail_nomem(r);
    size_t i = 0;
    for (const cJSON *c = layers->child; c; c = c->next, i++) {
        tf_layer_init(&r->spec->layers[i], r->spec->seed, i);
        r->spec->layer_count = i + 1;
        char p[PATH_MAX_LEN];
        index_path(p, "$.noiseLayers", i);
        if (read_layer(r, c, p, i, thesis_file) != 0)
            return -1;
    }

    const cJSON *output_curve = cJSON_GetObjectItemCaseSensitive(root, "outputCurve");
    curve_fields oc = {&r->spec->output_curve_points, &r->spec->output_curve_point_count,
                       &r->spec->output_curve_interpolation, &r->spec->output_curve_extra_json};
    if (output_curve && read_curve(r, output_curve, "$.outputCurve", oc) != 0)
        return -1;
    const cJSON *drainage = cJSON_GetObjectItemCaseSensitive(root, "drainage");
    if (drainage && read_drainage(r, drainage) != 0)
        return -1;

    /* The range defaults to what the layers, or the output curve, can
     * reach (docs/spec.md). */
    double derived_lo, derived_hi;
    tf_spec_derived_range(r->spec, &derived_lo, &derived_hi);
    r->spec->min_value = derived_lo;
    r->spec->max_value = derived_hi;
    int min_given, max_given;
    if (read_number(r, root, "$", "minValue", 0, &r->spec->min_value, &min_given) != 0 ||
        read_number(r, root, "$", "maxValue", 0, &r->spec->max_value, &max_given) != 0)
        return -1;
    if (!min_given && !max_given && !(derived_lo < derived_hi)) {
        if (output_curve)
            return fail(r, TF_ERR_INVALID, "$.outputCurve",
                        "the output curve's value range is empty (every y is the same); give "
                        "minValue and maxValue");
        return fail(r, TF_ERR_INVALID, "$",
                    "the layers' value range is empty (every curve is flat); give minValue and "
                    "maxValue");
    }
    return 0;
}

/* Line and column (1-based) of byte `offset` in `text`. */
static void line_column(const char *text, size_t offset, size_t *line, size_t *column)
{
    *line = 1;
    *column = 1;
    for (size_t k = 0; k < offset; k++) {
        if (text[k] == '\n') {
            (*line)++;
            *column = 1;
        } else {
            (*column)++;
        }
    }
}

static int is_json_space(char c)
{
    return c == ' ' || c == '\t' || c == '\n' || c == '\r';
}

/* The nesting depth of arrays and objects (outside strings) just before
 * byte `offset`; *in_string (may be NULL) says whether that byte is inside
 * a string. */
static long depth_at(const char *text, size_t offset, int *in_string_out)
{
    long depth = 0;
    int in_string = 0;
    for (size_t k = 0; k < offset; k++) {
        char c = text[k];
        if (in_string) {
            if (c == '\\')
                k++;
            else if (c == '"')
                in_string = 0;
        } else if (c == '"') {
            in_string = 1;
        } else if (c == '{' || c == '[') {
            depth++;
        } else if (c == '}' || c == ']') {
            depth--;
        }
    }
    if (in_string_out)
        *in_string_out = in_string;
    return depth;
}

/* 2 if the text stops inside a string, 1 inside an unclosed array/object,
 * else 0: signs of a truncated file. (cJSON reports such errors at the
 * last character, or at the start of the unterminated string.) */
static int ends_inside_value(const char *text, size_t len)
{
    int in_string;
    long depth = depth_at(text, len, &in_string);
    return in_string ? 2 : depth > 0;
}

tf_spec *tf_spec_parse(const char *json, size_t len, const char *source, tf_error *err)
{
    const char *src = source ? source : "<string>";
    if (!json && len) {
        tf_error_set(err, TF_ERR_ARGUMENT, "%s: no text", src);
        return NULL;
    }
    if (len > TF_MAX_SPEC_BYTES) {
        tf_error_set(err, TF_ERR_LIMIT, "%s: larger than the %u-byte limit for a spec", src,
                     TF_MAX_SPEC_BYTES);
        return NULL;
    }
    size_t start = 0;
    while (start < len && is_json_space(json[start]))
        start++;
    if (start == len) {
        tf_error_set(err, TF_ERR_PARSE, "%s: invalid JSON (empty input)", src);
        return NULL;
    }

    const char *end = NULL;
    cJSON *root = cJSON_ParseWithLengthOpts(json, len, &end, 0);
    size_t stop = end ? (size_t)(end - json) : 0;
    if (root) { /* only white space may follow the value */
        while (stop < len && is_json_space(json[stop]))
            stop++;
    }
    if (!root || stop < len) {
        size_t line, column;
        line_column(json, stop < len ? stop : len, &line, &column);
        /* cJSON stops at the array or object that would be nested
         * CJSON_NESTING_LIMIT + 1 deep, without saying why. */
        if (!root && stop < len && (json[stop] == '[' || json[stop] == '{') &&
            depth_at(json, stop, NULL) >= CJSON_NESTING_LIMIT) {
            tf_error_set(err, TF_ERR_PARSE,
                         "%s:%zu:%zu: invalid JSON (nested too deeply: more than %d levels of "
                         "arrays and objects)",
                         src, line, column, (int)CJSON_NESTING_LIMIT);
            return NULL;
        }
        int inside = root ? 0 : ends_inside_value(json, len);
        int truncated = !root && (stop >= len || inside == 2 || (inside && stop + 1 >= len));
        const char *why = truncated ? "unexpected end of input"
                          : root               ? "unexpected text after the value"
                                               : "unexpected text";
        tf_error_set(err, TF_ERR_PARSE, "%s:%zu:%zu: invalid JSON (%s)", src, line, column, why);
        cJSON_Delete(root);
        return NULL;
    }

    tf_spec *spec = calloc(1, sizeof *spec);
    if (!spec) {
        cJSON_Delete(root);
        tf_error_set(err, TF_ERR_NOMEM, "%s: out of memory", src);
        return NULL;
    }
    spec->version = TF_FORMAT_VERSION;
    spec->output_curve_interpolation = TF_INTERP_MONOTONE_CUBIC;
    reader r = {src, err, spec};
    int failed = read_root(&r, root) != 0 || tf_spec_check(spec, src, err) != 0;
    cJSON_Delete(root);
    if (failed) {
        tf_spec_free(spec);
        return NULL;
    }
    tf_error_clear(err);
    return spec;
}

tf_spec *tf_spec_load(const char *path, tf_error *err)
{
    if (!path) {
        tf_error_set(err, TF_ERR_ARGUMENT, "no spec file given");
        return NULL;
    }
    FILE *f = fopen(path, "rb");
    if (!f) {
        tf_error_set(err, TF_ERR_IO, "%s: cannot open: %s", path, strerror(errno));
        return NULL;
    }
    /* Read at most one byte past the limit, so a huge file is refused
     * without reading it all. */
    size_t cap = 65536, len = 0;
    char *buf = malloc(cap);
    int read_error = 0;
    while (buf) {
        size_t got = fread(buf + len, 1, cap - len, f);
        len += got;
        if (len > TF_MAX_SPEC_BYTES)
            break;
        if (got == 0) {
            read_error = ferror(f);
            break;
        }
        if (len == cap) {
            size_t bigger_cap = cap * 2 > (size_t)TF_MAX_SPEC_BYTES + 1 ? (size_t)TF_MAX_SPEC_BYTES + 1
                                                                      : cap * 2;
            char *bigger = bigger_cap > cap ? realloc(buf, bigger_cap) : NULL;
            if (!bigger) {
                if (bigger_cap > cap) {
                    free(buf);
                    buf = NULL;
                }
                break;
            }
            buf = bigger;
            cap = bigger_cap;
        }
    }
    int saved_errno = errno;
    fclose(f);
    if (!buf) {
        tf_error_set(err, TF_ERR_NOMEM, "%s: out of memory", path);
        return NULL;
    }
    if (read_error) {
        free(buf);
        tf_error_set(err, TF_ERR_IO, "%s: read error: %s", path, strerror(saved_errno));
        return NULL;
    }
    tf_spec *spec = tf_spec_parse(buf, len, path, err);
    free(buf);
    return spec;
}
