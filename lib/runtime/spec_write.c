/*
 * tf_spec -> JSON: the only way a spec becomes text. Every field is written
 * explicitly (defaults resolved; a layer with a mask curve has no range-mask
 * members, which the format forbids beside it), numbers use the shortest of %.15g/%.17g
 * that reads back as the same double (as cJSON does), control points sit one
 * per line, and members the reader did not know are written back unchanged.
 */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cJSON.h>

#include "internal.h"

typedef struct {
    char *data;
    size_t len, cap;
    int failed;
} text;

static void put(text *t, const char *s, size_t n)
{
    if (t->failed)
        return;
    if (t->len + n + 1 > t->cap) {
        size_t cap = t->cap ? t->cap : 4096;
        while (t->len + n + 1 > cap)
            cap *= 2;
        char *grown = realloc(t->data, cap);
        if (!grown) {
            t->failed = 1;
            return;
        }
        t->data = grown;
        t->cap = cap;
    }
    memcpy(t->data + t->len, s, n);
    t->len += n;
    t->data[t->len] = '\0';
}

static void puts_(text *t, const char *s)
{
    put(t, s, strlen(s));
}

static void putf(text *t, const char *fmt, ...) TF_PRINTF(2, 3);
static void putf(text *t, const char *fmt, ...)
{
    char buf[512];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    if (n < 0 || (size_t)n >= sizeof buf)
        t->failed = 1;
    else
        put(t, buf, (size_t)n);
}

/* %.15g when it reads back exactly, else %.17g (which always does). A host
 * program may have set a locale whose decimal point is not '.': printf and
 * strtod agree with each other, and JSON gets a '.' either way. */
static void put_number(text *t, double v)
{
    char buf[40];
    snprintf(buf, sizeof buf, "%.15g", v);
    if (strtod(buf, NULL) != v)
        snprintf(buf, sizeof buf, "%.17g", v);
    for (char *c = buf; *c; c++)
        if (!((*c >= '0' && *c <= '9') || *c == '-' || *c == '+' || *c == 'e' || *c == 'E'))
            *c = '.';
    puts_(t, buf);
}

static void put_member_number(text *t, const char *indent, const char *key, double v, int last)
{
    putf(t, "%s\"%s\": ", indent, key);
    put_number(t, v);
    puts_(t, last ? "\n" : ",\n");
}

/* Unknown members kept by the reader: `extra` is a JSON object text; each
 * member is written as `, "key": value` (compact) after the known ones. */
static void put_extra_members(text *t, const char *extra, const char *indent, int newline)
{
    if (!extra)
        return;
    cJSON *obj = cJSON_Parse(extra);
    if (!obj) {
        t->failed = 1;
        return;
    }
    for (cJSON *c = obj->child; c; c = c->next) {
        cJSON *key = cJSON_CreateString(c->string);
        char *key_text = key ? cJSON_PrintUnformatted(key) : NULL;
        char *value_text = cJSON_PrintUnformatted(c);
        if (!key_text || !value_text) {
            t->failed = 1;
        } else {
            puts_(t, newline ? ",\n" : ", ");
            puts_(t, newline ? indent : "");
            puts_(t, key_text);
            puts_(t, ": ");
        }
        if (value_text)
            puts_(t, value_text);
        cJSON_free(key_text);
        cJSON_free(value_text);
        cJSON_Delete(key);
    }
    cJSON_Delete(obj);
}

/* A curve object ("rd", "maskCurve", "outputCurve") as the member `key` at
 * `indent`, one control point per line; no trailing comma or newline. */
static void put_curve(text *t, const char *indent, const char *key, const tf_point *points,
                      size_t count, tf_interp interp, const char *extra)
{
    putf(t, "%s\"%s\": {\n%s  \"interpolation\": \"%s\",\n%s  \"points\": [\n", indent, key,
         indent, tf_interp_name(interp), indent);
    for (size_t k = 0; k < count; k++) {
        putf(t, "%s    {\"x\": ", indent);
        put_number(t, points[k].x);
        puts_(t, ", \"y\": ");
        put_number(t, points[k].y);
        puts_(t, k + 1 < count ? "},\n" : "}\n");
    }
    putf(t, "%s  ]", indent);
    char member_indent[32];
    snprintf(member_indent, sizeof member_indent, "%s  ", indent);
    put_extra_members(t, extra, member_indent, 1);
    putf(t, "\n%s}", indent);
}

static void put_layer(text *t, const tf_layer_spec *L, int last)
{
    const char *in2 = "      ";
    puts_(t, "    {\n");

    putf(t, "%s\"baseNoise\": {\"type\": \"%s\", \"frequency\": ", in2,
         tf_noise_type_name(L->noise_type));
    put_number(t, L->frequency);
    putf(t, ", \"seed\": %lu, \"offset\": [", (unsigned long)L->seed);
    for (int d = 0; d < 3; d++) {
        put_number(t, L->offset[d]);
        puts_(t, d < 2 ? ", " : "]");
    }
    put_extra_members(t, L->base_noise_extra_json, "", 0);
    puts_(t, "},\n");

    if (L->fractal_kind != TF_FRACTAL_NONE) {
        /* every parameter the kind uses, defaults included, on one line */
        putf(t, "%s\"fractal\": {\"kind\": \"%s\", \"octaves\": %d", in2,
             tf_fractal_kind_name(L->fractal_kind), L->fractal_octaves);
        const struct {
            const char *name;
            double v;
            int used;
        } m[] = {{"lacunarity", L->fractal_lacunarity, 1},
                 {"gain", L->fractal_gain, 1},
                 {"gain1", L->fractal_gain1, L->fractal_kind == TF_FRACTAL_JORDAN},
                 {"warp0", L->fractal_warp0, L->fractal_kind == TF_FRACTAL_JORDAN},
                 {"warp", L->fractal_warp,
                  L->fractal_kind == TF_FRACTAL_JORDAN || L->fractal_kind == TF_FRACTAL_SWISS},
                 {"damp0", L->fractal_damp0, L->fractal_kind == TF_FRACTAL_JORDAN},
                 {"damp", L->fractal_damp, L->fractal_kind == TF_FRACTAL_JORDAN},
                 {"damp_scale", L->fractal_damp_scale, L->fractal_kind == TF_FRACTAL_JORDAN}};
        for (size_t k = 0; k < sizeof m / sizeof m[0]; k++) {
            if (!m[k].used)
                continue;
            putf(t, ", \"%s\": ", m[k].name);
            put_number(t, m[k].v);
        }
        put_extra_members(t, L->fractal_extra_json, "", 0);
        puts_(t, "},\n");
    }

    put_curve(t, in2, "rd", L->rd_points, L->rd_point_count, L->rd_interpolation,
              L->rd_extra_json);
    puts_(t, ",\n");

    put_member_number(t, in2, "preAmpShift", L->pre_amp_shift, 0);
    put_member_number(t, in2, "ampScale", L->amp_scale, 0);
    putf(t, "%s\"maskLayerIndex\": %d,\n", in2, L->mask_layer_index);
    if (L->mask_curve_point_count > 0) {
        /* A partial mask: the range members are not written (a layer has
         * one mask or the other). */
        put_curve(t, in2, "maskCurve", L->mask_curve_points, L->mask_curve_point_count,
                  L->mask_curve_interpolation, L->mask_curve_extra_json);
    } else {
        put_member_number(t, in2, "maskMinValue", L->mask_min_value, 0);
        put_member_number(t, in2, "maskMaxValue", L->mask_max_value, 0);
        putf(t, "%s\"maskFalloff\": ", in2);
        put_number(t, L->mask_falloff);
    }
    put_extra_members(t, L->extra_json, in2, 1);
    puts_(t, last ? "\n    }\n" : "\n    },\n");
}

/* "drainage": every member written, so a reader with other defaults
 * evaluates the same network. */
static void put_drainage(text *t, const tf_drainage_spec *d)
{
    const char *in2 = "    ";
    putf(t, ",\n  \"drainage\": {\n%s\"levels\": %d,\n%s\"seed\": %lu,\n", in2, d->levels,
         in2, (unsigned long)d->seed);
    put_member_number(t, in2, "spacing", d->spacing, 0);
    put_member_number(t, in2, "depth", d->depth, 0);
    put_member_number(t, in2, "slope", d->slope, 0);
    put_member_number(t, in2, "reach", d->reach, 0);
    put_member_number(t, in2, "floor", d->floor_width, 0);
    put_member_number(t, in2, "jitter", d->jitter, 0);
    put_member_number(t, in2, "bend", d->bend, 0);
    putf(t, "%s\"breach\": %d,\n", in2, d->breach);
    putf(t, "%s\"breachTo\": \"%s\",\n", in2, tf_breach_to_name(d->breach_to));
    putf(t, "%s\"inflow\": %d,\n", in2, d->inflow);
    put_member_number(t, in2, "detailWavelength", d->detail_wavelength, 0);
    put_member_number(t, in2, "fade", d->fade, 0);
    putf(t, "%s\"fadeBy\": \"%s\"", in2, tf_fade_by_name(d->fade_by));
    put_extra_members(t, d->extra_json, in2, 1);
    puts_(t, "\n  }");
}

char *tf_spec_to_json(const tf_spec *spec, tf_error *err)
{
    if (tf_spec_check(spec, "spec", err) != 0)
        return NULL;
    text t = {0};
    putf(&t, "{\n  \"format\": \"%s\",\n  \"version\": %d,\n  \"seed\": %lu,\n", TF_FORMAT_NAME,
         spec->version, (unsigned long)spec->seed);
    put_member_number(&t, "  ", "minValue", spec->min_value, 0);
    put_member_number(&t, "  ", "maxValue", spec->max_value, 0);
    puts_(&t, "  \"noiseLayers\": [\n");
    for (size_t i = 0; i < spec->layer_count; i++)
        put_layer(&t, &spec->layers[i], i + 1 == spec->layer_count);
    puts_(&t, "  ]");
    if (spec->output_curve_point_count > 0) {
        puts_(&t, ",\n");
        put_curve(&t, "  ", "outputCurve", spec->output_curve_points,
                  spec->output_curve_point_count, spec->output_curve_interpolation,
                  spec->output_curve_extra_json);
    }
    if (spec->drainage.levels > 0)
        put_drainage(&t, &spec->drainage);
    put_extra_members(&t, spec->extra_json, "  ", 1);
    puts_(&t, "\n}\n");
    if (t.failed) {
        free(t.data);
        tf_error_set(err, TF_ERR_NOMEM, "spec: out of memory while writing JSON");
        return NULL;
    }
    tf_error_clear(err);
    return t.data;
}
