/*
 * terrafit shader: a spec compiled to one GLSL, WGSL or HLSL source.
 * The emitter writes the spec's evaluation (docs/spec.md, steps 1-6, and
 * its gradient) in the neutral dialect of dialect.c with every constant
 * baked in, adds the sections of the shader library (library.sl) its
 * noises need and the tables they read, and translates the whole to the
 * asked language. It reads the spec through the runtime's public API only
 * (compiled curves' segments, fractal octaves, the noises' tables), so the
 * shader's constants are the runtime's. docs/shader.md is the reference.
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "shader_internal.h"

/* ---- languages */

static const char *const LANG_NAMES[TF_SHADER_LANG_COUNT] = {"glsl", "wgsl", "hlsl"};

const char *tf_shader_lang_name(tf_shader_lang lang)
{
    return (unsigned)lang < TF_SHADER_LANG_COUNT ? LANG_NAMES[lang] : NULL;
}

int tf_shader_lang_parse(const char *name)
{
    for (int k = 0; name && k < TF_SHADER_LANG_COUNT; k++) {
        if (strcmp(name, LANG_NAMES[k]) == 0)
            return k;
    }
    return -1;
}

/* ---- split constants (docs/shader.md, "Coordinates") */

/* A constant k >= 0 as the words tf_mul reads: k.x the integer part (below
 * 2^31, checked by the caller), k.y and k.z the fraction's first 64 bits.
 * Every step is exact: a double's fraction has at most 52 bits below its
 * integer part's, and scaling by 2^32 is exact. */
static void put_k(tf_text *t, double k)
{
    double ip = floor(k), fr = k - ip;
    double h = floor(ldexp(fr, 32));
    double l = floor(ldexp(ldexp(fr, 32) - h, 32));
    tf_text_printf(t, "uvec3(%uu, %uu, %uu), ", (unsigned)ip, (unsigned)h, (unsigned)l);
    tf_text_float(t, k);
}

/* A constant c as tf_add's (int, float) pair: floor(c) modulo 2^32 (as the
 * runtime's lattice index is) and the fraction. */
static void put_c(tf_text *t, double c)
{
    double ip = floor(c);
    double fr = c - ip;
    uint32_t w = (uint32_t)(int64_t)fmod(ip, 4294967296.0);
    tf_text_printf(t, "int(%uu), ", (unsigned)w);
    tf_text_float(t, fr);
}

/* ---- the library's sections */

typedef struct {
    const char *name;
    size_t name_len;
    const char *text; /* from the marker line */
    size_t len;
    const char *deps; /* after "NAME:" on the marker line */
    size_t deps_len;
    int wanted;
} section;

#define MAX_SECTIONS 32

static size_t read_sections(section *sec)
{
    const char *s = tf_shader_library_text;
    size_t n = 0;
    while ((s = strstr(s, "//@section ")) != NULL && n < MAX_SECTIONS) {
        section *c = &sec[n++];
        memset(c, 0, sizeof *c);
        c->text = s;
        const char *p = s + strlen("//@section ");
        c->name = p;
        while (*p && *p != ':' && *p != '\n')
            p++;
        c->name_len = (size_t)(p - c->name);
        if (*p == ':')
            p++;
        c->deps = p;
        while (*p && *p != '\n')
            p++;
        c->deps_len = (size_t)(p - c->deps);
        const char *next = strstr(p, "//@section ");
        c->len = next ? (size_t)(next - s) : strlen(s);
        s = p;
    }
    return n;
}

static void want(section *sec, size_t n, const char *name, size_t len)
{
    for (size_t k = 0; k < n; k++) {
        if (sec[k].name_len == len && memcmp(sec[k].name, name, len) == 0) {
            if (sec[k].wanted)
                return;
            sec[k].wanted = 1;
            const char *d = sec[k].deps, *e = d + sec[k].deps_len;
            while (d < e) {
                while (d < e && *d == ' ')
                    d++;
                const char *b = d;
                while (d < e && *d != ' ')
                    d++;
                if (d > b)
                    want(sec, n, b, (size_t)(d - b));
            }
            return;
        }
    }
}

static void want_name(section *sec, size_t n, const char *name)
{
    want(sec, n, name, strlen(name));
}

/* ---- arrays, written in each language's own syntax */

typedef enum { ARR_FLOAT, ARR_UINT, ARR_VEC2, ARR_VEC4 } arr_type;

static void put_array(tf_text *t, tf_shader_lang lang, arr_type type, const char *name,
                      size_t count, const double *v)
{
    static const char *const glsl[] = {"float", "uint", "vec2", "vec4"};
    static const char *const wgsl[] = {"f32", "u32", "vec2f", "vec4f"};
    static const char *const hlsl[] = {"float", "uint", "float2", "float4"};
    const size_t width[] = {1, 1, 2, 4};
    const char *ty = lang == TF_SHADER_WGSL ? wgsl[type] : lang == TF_SHADER_HLSL ? hlsl[type]
                                                                               : glsl[type];
    if (lang == TF_SHADER_GLSL)
        tf_text_printf(t, "const %s %s[%zu] = %s[%zu](", ty, name, count, ty, count);
    else if (lang == TF_SHADER_WGSL)
        tf_text_printf(t, "const %s = array<%s, %zu>(", name, ty, count);
    else
        tf_text_printf(t, "static const %s %s[%zu] = {", ty, name, count);
    for (size_t k = 0; k < count; k++) {
        tf_text_puts(t, k ? (k % 8 == 0 ? ",\n    " : ", ") : "\n    ");
        const double *e = v + k * width[type];
        if (type == ARR_UINT) {
            tf_text_printf(t, "%uu", (unsigned)e[0]);
        } else if (type == ARR_FLOAT) {
            tf_text_float(t, e[0]);
        } else {
            tf_text_printf(t, "%s(", ty);
            for (size_t c = 0; c < width[type]; c++) {
                if (c)
                    tf_text_puts(t, ", ");
                tf_text_float(t, e[c]);
            }
            tf_text_puts(t, ")");
        }
    }
    tf_text_puts(t, lang == TF_SHADER_HLSL ? "\n};\n" : "\n);\n");
}

/* The tables a library section names in its "//@arrays" line. */
static int put_library_arrays(tf_text *t, tf_shader_lang lang, const section *s)
{
    const char *a = strstr(s->text, "//@arrays ");
    if (!a || a >= s->text + s->len)
        return 0;
    a += strlen("//@arrays ");
    double *v = malloc(sizeof *v * 256);
    if (!v)
        return -1;
    if (strncmp(a, "simplex_gradients", 17) == 0) {
        memcpy(v, tf_simplex_gradient_table(), sizeof *v * 64);
        put_array(t, lang, ARR_VEC2, "TF_SIMPLEX_GRAD", 32, v);
    } else if (strncmp(a, "perlin_permutation", 18) == 0) {
        const unsigned char *p = tf_perlin_permutation_table();
        for (int k = 0; k < 256; k++)
            v[k] = p[k];
        put_array(t, lang, ARR_UINT, "TF_PERM", 256, v);
    } else if (strncmp(a, "exp_magnitudes", 14) == 0) {
        memcpy(v, tf_exp_perlin_magnitude_table(), sizeof *v * 256);
        put_array(t, lang, ARR_FLOAT, "TF_EXPMAG", 256, v);
    } else if (strncmp(a, "prsimplex_table", 15) == 0) {
        /* Noise3's T[] (docs/noise.md, the Java is the definition) */
        static const double T[8] = {0x15, 0x38, 0x32, 0x2c, 0x0d, 0x13, 0x07, 0x2a};
        put_array(t, lang, ARR_UINT, "TF_PR_T", 8, T);
    }
    free(v);
    return 0;
}

/* ---- the spec's code, in the neutral dialect */

typedef struct {
    tf_text *src;  /* neutral code */
    tf_text *arr;  /* arrays, already in the target language */
    tf_shader_lang lang;
    const char *name;
    int curves;    /* curves written so far */
    tf_error *err;
} emitter;

/* A curve as NAME_cJ(u) -> (value, derivative); returns J, or -1. `path`
 * names it in messages. */
static int put_curve(emitter *e, const tf_point *pts, size_t count, tf_interp interp,
                     const char *path)
{
    if (count > TF_SHADER_MAX_CURVE_POINTS) {
        tf_error_set(e->err, TF_ERR_LIMIT,
                     "shader: %s: %zu points, more than a shader's tables hold (%d)", path, count,
                     TF_SHADER_MAX_CURVE_POINTS);
        return -1;
    }
    tf_curve *c = tf_curve_new(pts, count, interp, e->err);
    if (!c)
        return -1;
    int id = e->curves++;
    size_t segs = count - 1;
    double *x = malloc(sizeof *x * count), *inv = malloc(sizeof *inv * segs),
           *co = malloc(sizeof *co * 4 * segs);
    if (!x || !inv || !co) {
        free(x);
        free(inv);
        free(co);
        tf_curve_free(c);
        tf_error_set(e->err, TF_ERR_NOMEM, "shader: out of memory");
        return -1;
    }
    for (size_t k = 0; k < count; k++)
        x[k] = pts[k].x;
    for (size_t k = 0; k < segs; k++)
        tf_curve_get_segment(c, k, NULL, &inv[k], &co[4 * k]);
    tf_curve_free(c);
    char nm[TF_SHADER_NAME_MAX + 32];
    snprintf(nm, sizeof nm, "%s_c%d_x", e->name, id);
    put_array(e->arr, e->lang, ARR_FLOAT, nm, count, x);
    snprintf(nm, sizeof nm, "%s_c%d_inv", e->name, id);
    put_array(e->arr, e->lang, ARR_FLOAT, nm, segs, inv);
    snprintf(nm, sizeof nm, "%s_c%d_c", e->name, id);
    put_array(e->arr, e->lang, ARR_VEC4, nm, segs, co);
    free(x);
    free(inv);
    free(co);

    int iters = 0;
    while (((size_t)1 << iters) < segs)
        iters++;
    tf_text *s = e->src;
    const char *n = e->name;
    tf_text_format(s,
                   "// curve %d: %zu points, %s (docs/spec.md, \"Redistribution curves\"):\n"
                   "// the value at u and its derivative in u\n"
                   "fn vec2 %s_c%d(float u) {\n"
                   "    if (u <= %F) {\n        return vec2(%F, 0.0);\n    }\n"
                   "    if (u >= %F) {\n        return vec2(%F, 0.0);\n    }\n",
                   id, count, tf_interp_name(interp), n, id, pts[0].x, pts[0].y,
                   pts[count - 1].x, pts[count - 1].y);
    tf_text_printf(s, "    var int lo = 0;\n    var int hi = %zu;\n", segs);
    tf_text_printf(s,
                   "    for (var int it = 0; it < %d; it++) {\n"
                   "        if (hi - lo > 1) {\n"
                   "            let int mid = lo + (hi - lo) / 2;\n"
                   "            if (u < %s_c%d_x[mid]) {\n"
                   "                hi = mid;\n"
                   "            } else {\n"
                   "                lo = mid;\n"
                   "            }\n"
                   "        }\n"
                   "    }\n",
                   iters, n, id);
    tf_text_printf(s, "    let vec4 c = %s_c%d_c[lo];\n", n, id);
    tf_text_printf(s, "    let float inv = %s_c%d_inv[lo];\n", n, id);
    tf_text_printf(s, "    let float t = (u - %s_c%d_x[lo]) * inv;\n", n, id);
    if (interp == TF_INTERP_COSINE)
        tf_text_puts(s, "    return vec2(c.x + c.y * tf_cosblend(t), c.y * tf_dcosblend(t) * inv);\n");
    else
        tf_text_puts(s, "    return vec2(c.x + t * (c.y + t * (c.z + t * c.w)), "
                        "(c.y + t * (2.0 * c.z + 3.0 * t * c.w)) * inv);\n");
    tf_text_puts(s, "}\n\n");
    return id;
}

/* Each base noise's library function and section: whether it takes the
 * seed (perlin-reference-simplex has none), whether it is 3D (sampled at
 * the layer's z), and for the cellular kinds which distance it returns. */
static const struct {
    const char *fn, *section;
    int seeded, is_3d, cellular;
} BASE[TF_NOISE_TYPE_COUNT] = {
    [TF_NOISE_SIMPLEX] = {"tf_simplex", "simplex", 1, 0, -1},
    [TF_NOISE_PERLIN_REFERENCE_SIMPLEX] = {"tf_prsimplex", "prsimplex", 0, 1, -1},
    [TF_NOISE_PERLIN] = {"tf_perlin", "perlin", 1, 1, -1},
    [TF_NOISE_EXPONENTIAL_PERLIN] = {"tf_expperlin", "expperlin", 1, 1, -1},
    [TF_NOISE_POLYNOMIAL] = {"tf_polynomial", "polynomial", 1, 0, -1},
    [TF_NOISE_VALUE] = {"tf_value", "value", 1, 0, -1},
    [TF_NOISE_CELLULAR_F1] = {"tf_cellular", "cellular", 1, 0, 0},
    [TF_NOISE_CELLULAR_F2] = {"tf_cellular", "cellular", 1, 0, 1},
    [TF_NOISE_CELLULAR_F2_F1] = {"tf_cellular", "cellular", 1, 0, 2},
};

/* The base noise at (X, Y, z): a call returning (n, dn/dx, dn/dy). */
static void put_base(tf_text *s, const tf_layer_spec *L, const char *xe, const char *ye, double z)
{
    const int t = (int)L->noise_type;
    tf_text_printf(s, "%s(", BASE[t].fn);
    if (BASE[t].seeded)
        tf_text_printf(s, "%uu, ", (unsigned)L->seed);
    tf_text_printf(s, "%s, %s", xe, ye);
    if (BASE[t].is_3d) {
        tf_text_puts(s, ", tf_s("); /* z, split like x and y */
        put_c(s, z);
        tf_text_puts(s, ")");
    }
    if (BASE[t].cellular >= 0)
        tf_text_printf(s, ", %d", BASE[t].cellular);
    tf_text_puts(s, ")");
}

typedef enum { WARP_NONE, WARP_BEFORE, WARP_AFTER } warp_place;

/* Into b, one axis of an octave's (or the layer's) point: p * k + o, as
 * "tf_add(tf_mul(p, k), o)" (just "p" for k = 1, o = 0); the swiss warp
 * "warp * w" is added before the multiply, jordan's "w" after it
 * (docs/spec.md, "Layer kinds"). */
static void octave_point(tf_text *b, const char *p, double k, double o, warp_place place,
                         double warp, const char *w)
{
    b->len = 0;
    if (b->data)
        b->data[0] = '\0';
    if (place == WARP_NONE && k == 1.0 && o == 0.0) {
        tf_text_puts(b, p);
        return;
    }
    tf_text_puts(b, place == WARP_AFTER ? "tf_add(tf_addf(tf_mul(" : "tf_add(tf_mul(");
    if (place == WARP_BEFORE) {
        tf_text_printf(b, "tf_addf(%s, ", p);
        tf_text_float(b, warp);
        tf_text_printf(b, " * %s), ", w);
    } else {
        tf_text_printf(b, "%s, ", p);
    }
    put_k(b, k);
    if (place == WARP_AFTER)
        tf_text_printf(b, "), %s), ", w);
    else
        tf_text_puts(b, "), ");
    put_c(b, o);
    tf_text_puts(b, ")");
}

/* Layer i's n and its gradient in noise space: NAME_lI(px, py). */
static int put_layer_noise(emitter *e, size_t i, const tf_layer_spec *L)
{
    tf_text *s = e->src;
    const char *n = e->name;
    tf_text bx = {0}, by = {0};
    int O = L->fractal_kind == TF_FRACTAL_NONE ? 1 : L->fractal_octaves;
    double f[TF_MAX_OCTAVES], o[TF_MAX_OCTAVES][3];
    f[0] = 1.0;
    memset(o, 0, sizeof o);
    for (int k = 0; L->fractal_kind != TF_FRACTAL_NONE && k < O; k++) {
        if (tf_fractal_octave(L, k, &f[k], o[k]) != 0) {
            tf_error_set(e->err, TF_ERR_ARGUMENT, "shader: layer %zu: no octave %d", i, k);
            return -1;
        }
        if (!(f[k] < 2147483648.0)) {
            tf_error_set(e->err, TF_ERR_LIMIT,
                         "shader: $.noiseLayers[%zu].fractal: octave %d's frequency %g "
                         "passes 2^31, beyond the shader's split coordinates",
                         i, k, f[k]);
            return -1;
        }
    }
    const double pz = L->offset[2];
    tf_text_printf(s, "// layer %zu: %s%s%s\n", i, tf_noise_type_name(L->noise_type),
                   L->fractal_kind == TF_FRACTAL_NONE ? "" : ", ",
                   L->fractal_kind == TF_FRACTAL_NONE ? "" : tf_fractal_kind_name(L->fractal_kind));
    switch (L->fractal_kind) {
    case TF_FRACTAL_NONE:
        tf_text_printf(s, "fn vec3 %s_l%zu(tf_s px, tf_s py) {\n    return ", n, i);
        put_base(s, L, "px", "py", pz);
        tf_text_puts(s, ";\n}\n\n");
        break;
    case TF_FRACTAL_FBM:
    case TF_FRACTAL_RIDGED:
    case TF_FRACTAL_BILLOW: {
        const char *term = L->fractal_kind == TF_FRACTAL_FBM      ? "tf_fbm_term"
                           : L->fractal_kind == TF_FRACTAL_RIDGED ? "tf_ridged_term"
                                                                  : "tf_billow_term";
        tf_text_printf(s, "fn vec3 %s_l%zu(tf_s px, tf_s py) {\n", n, i);
        tf_text_puts(s, "    var vec3 s = vec3(0.0, 0.0, 0.0);\n");
        double a = 1.0, A = 0.0;
        for (int k = 0; k < O; k++) {
            octave_point(&bx, "px", f[k], o[k][0], WARP_NONE, 0.0, NULL);
            octave_point(&by, "py", f[k], o[k][1], WARP_NONE, 0.0, NULL);
            tf_text_format(s, "    s = s + %F * %s(", a, term);
            put_base(s, L, bx.data, by.data, pz + o[k][2]);
            tf_text_format(s, ", %F);\n", f[k]);
            A = A + a;
            a = a * L->fractal_gain;
        }
        if (L->fractal_kind == TF_FRACTAL_FBM)
            tf_text_format(s, "    return s / %F;\n}\n\n", A);
        else
            tf_text_format(s, "    let vec3 k = s / %F;\n"
                              "    return vec3(2.0 * k.x - 1.0, 2.0 * k.y, 2.0 * k.z);\n}\n\n",
                           A);
        break;
    }
    case TF_FRACTAL_SWISS:
    case TF_FRACTAL_JORDAN: {
        /* the value alone; the gradient by the runtime's central
         * differences (docs/spec.md, "Layer kinds", Gradients) */
        tf_text_printf(s, "fn float %s_l%zuk(tf_s px, tf_s py) {\n", n, i);
        double A;
        if (L->fractal_kind == TF_FRACTAL_SWISS) {
            tf_text_puts(s, "    var float s = 0.0;\n    var float a = 1.0;\n"
                            "    var float wx = 0.0;\n    var float wy = 0.0;\n"
                            "    var vec3 v = vec3(0.0, 0.0, 0.0);\n");
            double a = 1.0;
            A = 0.0;
            for (int k = 0; k < O; k++) {
                octave_point(&bx, "px", f[k], o[k][0], WARP_BEFORE, L->fractal_warp, "wx");
                octave_point(&by, "py", f[k], o[k][1], WARP_BEFORE, L->fractal_warp, "wy");
                tf_text_puts(s, "    v = ");
                put_base(s, L, bx.data, by.data, pz + o[k][2]);
                tf_text_format(s,
                               ";\n"
                               "    s = s + a * (1.0 - abs(v.x));\n"
                               "    wx = wx + (a * v.y) * -v.x;\n"
                               "    wy = wy + (a * v.z) * -v.x;\n"
                               "    a = a * (%F * clamp(s, 0.0, 1.0));\n",
                               L->fractal_gain);
                A = A + a;
                a = a * L->fractal_gain;
            }
        } else {
            tf_text_puts(s, "    var vec3 v = ");
            put_base(s, L, "px", "py", pz);
            tf_text_format(s,
                           ";\n    var float s = v.x * v.x;\n"
                           "    var float wx = %F * (v.y * v.x);\n"
                           "    var float wy = %F * (v.z * v.x);\n"
                           "    var float mx = %F * (v.y * v.x);\n"
                           "    var float my = %F * (v.z * v.x);\n"
                           "    var float amp = %F;\n"
                           "    var float d = amp * %F;\n",
                           L->fractal_warp0, L->fractal_warp0, L->fractal_damp0, L->fractal_damp0,
                           L->fractal_gain1, L->fractal_gain);
            double amp = L->fractal_gain1, dd = amp * L->fractal_gain;
            A = 1.0;
            for (int k = 1; k < O; k++) {
                octave_point(&bx, "px", f[k], o[k][0], WARP_AFTER, 0.0, "wx");
                octave_point(&by, "py", f[k], o[k][1], WARP_AFTER, 0.0, "wy");
                tf_text_puts(s, "    v = ");
                put_base(s, L, bx.data, by.data, pz + o[k][2]);
                tf_text_format(s,
                               ";\n    s = s + d * (v.x * v.x);\n"
                               "    wx = wx + %F * (v.y * v.x);\n"
                               "    wy = wy + %F * (v.z * v.x);\n"
                               "    mx = mx + %F * (v.y * v.x);\n"
                               "    my = my + %F * (v.z * v.x);\n"
                               "    amp = amp * %F;\n"
                               "    d = amp * (1.0 - %F / (1.0 + (mx * mx + my * my)));\n",
                               L->fractal_warp, L->fractal_warp, L->fractal_damp, L->fractal_damp,
                               L->fractal_gain, L->fractal_damp_scale);
                A = A + dd;
                amp = amp * L->fractal_gain;
                dd = amp;
            }
        }
        tf_text_format(s, "    return 2.0 * (s / %F) - 1.0;\n}\n\n", A);
        const double h = ldexp(1.0, -10) / f[O - 1];
        tf_text_format(s,
                       "fn vec3 %s_l%zu(tf_s px, tf_s py) {\n"
                       "    let float k = %s_l%zuk(px, py);\n"
                       "    let float gx = %s_l%zuk(tf_addf(px, %F), py) - %s_l%zuk(tf_addf(px, %F), py);\n"
                       "    let float gy = %s_l%zuk(px, tf_addf(py, %F)) - %s_l%zuk(px, tf_addf(py, %F));\n"
                       "    return vec3(k, gx / %F, gy / %F);\n}\n\n",
                       n, i, n, i, n, i, h, n, i, -h, n, i, h, n, i, -h, h + h, h + h);
        break;
    }
    default:
        break;
    }
    tf_text_free(&bx);
    tf_text_free(&by);
    return 0;
}

static int check_name(const char *name, tf_error *err)
{
    size_t n = strlen(name);
    int ok = n >= 1 && n <= TF_SHADER_NAME_MAX &&
             ((name[0] >= 'a' && name[0] <= 'z') || (name[0] >= 'A' && name[0] <= 'Z'));
    for (size_t k = 0; ok && k < n; k++) {
        char c = name[k];
        ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
             c == '_';
    }
    if (ok && (strncmp(name, "tf_", 3) == 0 || strncmp(name, "gl_", 3) == 0 ||
               strstr(name, "__") != NULL))
        ok = 0;
    if (!ok)
        tf_error_set(err, TF_ERR_ARGUMENT,
                     "shader: bad name \"%.64s\": a letter, then letters, digits or '_' "
                     "(at most %d, no \"__\"), not starting with \"tf_\" or \"gl_\"",
                     name, TF_SHADER_NAME_MAX);
    return ok ? 0 : -1;
}

/* NAME_gradient(p) and NAME(p): the _at forms at floor(p) and p - floor(p). */
static void put_point_forms(tf_text *s, const char *n)
{
    tf_text_printf(s,
                   "// Height and gradient at p, for points within a few thousand units of\n"
                   "// the origin (a float's fraction shrinks beyond; use the _at forms).\n"
                   "fn vec3 %s_gradient(vec2 p) {\n"
                   "    let vec2 fl = floor(p);\n"
                   "    return %s_gradient_at(ivec2(fl), p - fl);\n}\n\n"
                   "// The height at p (see %s_gradient).\n"
                   "fn float %s(vec2 p) {\n"
                   "    let vec2 fl = floor(p);\n"
                   "    return %s_at(ivec2(fl), p - fl);\n}\n",
                   n, n, n, n, n);
}

/* Step 5's addition of layer i's contribution x_i, and with a drainage
 * stage the carved layers' own sum (added in layer order to 0.0). */
static void put_add(tf_text *s, const tf_spec *spec, size_t i)
{
    tf_text_format(s, "    sum = sum + x%zu;\n", i);
    if (spec->drainage.levels > 0 &&
        spec->layers[i].frequency * spec->drainage.detail_wavelength <= 1.0)
        tf_text_format(s, "    low = low + x%zu.x;\n", i);
}

/* Step 5b and the functions of a spec with a drainage stage: the carve
 * from the host's network table (tf_shader_network_build; docs/shader.md,
 * "Drainage"), the output curve after it, and the gradient as the
 * runtime's central differences across e = L_(K-1) / 256. */
static void put_drainage(tf_text *s, const char *n, const tf_drainage_spec *d, int oc)
{
    tf_text_format(s,
                   "// Step 5b (docs/spec.md, \"Drainage\"): the first lowest cone of the\n"
                   "// sub-segments that reach the point, in the runtime's order, from the\n"
                   "// host's table (docs/shader.md); outside its box, the sum uncarved.\n"
                   "fn float %s_drain(ivec2 cell, vec2 frac, float sum, float low) {\n"
                   "    let vec2 rel = vec2(float(int(uint(cell.x) - %s_net_word(0))), "
                   "float(int(uint(cell.y) - %s_net_word(1)))) + frac;\n"
                   "    if (!(rel.x >= 0.0 && rel.x <= float(%s_net_word(2)) && rel.y >= 0.0 && "
                   "rel.y <= float(%s_net_word(3)))) {\n"
                   "        return sum;\n    }\n"
                   "    var float cone = 0.0;\n    var float bed = 0.0;\n"
                   "    var bool hit = false;\n",
                   n, n, n, n, n);
    for (int k = 0; k < d->levels; k++) {
        double L = ldexp(d->spacing, -k), R = d->reach * L, w = d->floor_width * L;
        tf_text_format(s,
                       "    let int nx%d = int(%s_net_word(%d));\n"
                       "    let int bi%d = clamp(int(floor(rel.x / %F)), 0, nx%d - 1);\n"
                       "    let int bj%d = clamp(int(floor(rel.y / %F)), 0, int(%s_net_word(%d)) - 1);\n"
                       "    let int c%d = int(%s_net_word(%d)) + bj%d * nx%d + bi%d;\n"
                       "    let int end%d = int(%s_net_word(c%d + 1));\n"
                       "    for (var int e%d = int(%s_net_word(c%d)); e%d < end%d; e%d = e%d + 1) {\n"
                       "        let int g = int(%s_net_word(e%d));\n"
                       "        let vec4 sa = %s_net_segment(2 * g);\n"
                       "        let vec4 sb = %s_net_segment(2 * g + 1);\n"
                       "        let float dx = sa.z - sa.x;\n        let float dy = sa.w - sa.y;\n"
                       "        let float l2 = dx * dx + dy * dy;\n"
                       "        var float t = 0.0;\n"
                       "        if (l2 > 0.0) {\n"
                       "            t = clamp(((rel.x - sa.x) * dx + (rel.y - sa.y) * dy) / l2, 0.0, 1.0);\n"
                       "        }\n"
                       "        let float ex = rel.x - (sa.x + t * dx);\n"
                       "        let float ey = rel.y - (sa.y + t * dy);\n"
                       "        let float d2 = ex * ex + ey * ey;\n"
                       "        if (d2 < %F) {\n"
                       "            let float b = sb.x + t * (sb.y - sb.x);\n"
                       "            let float c = b + (%F * (sqrt(d2 + %F) - %F)) / (1.0 - d2 / %F);\n"
                       "            if (!hit || c < cone) {\n"
                       "                cone = c;\n                bed = b;\n                hit = true;\n"
                       "            }\n        }\n    }\n",
                       k, n, 4 + 4 * k, k, L, k, k, L, n, 5 + 4 * k, k, n, 6 + 4 * k, k, k, k,
                       k, n, k, k, n, k, k, k, k, k, n, k, n, n, R * R, d->slope, w * w, w, R * R);
    }
    tf_text_format(s,
                   "    if (!hit) {\n        return low + (sum - low);\n    }\n"
                   "    var float carved = low;\n"
                   "    if (cone < low) {\n        carved = cone;\n    }\n");
    /* the fade's measure (docs/spec.md, "The carved sum") */
    if (d->fade_by == TF_FADE_CUT)
        tf_text_format(s, "    let float weight = clamp(1.0 - (low - carved) * %F, 0.0, 1.0);\n",
                       1.0 / (d->fade * d->depth));
    else
        tf_text_format(s, "    let float weight = clamp((carved - bed) * %F, 0.0, 1.0);\n",
                       1.0 / (d->fade * d->depth));
    tf_text_format(s, "    return carved + weight * (sum - low);\n}\n\n");
    tf_text_printf(s,
                   "// The height at world point cell + frac: precise however far out.\n"
                   "fn float %s_at(ivec2 cell, vec2 frac) {\n"
                   "    let vec2 s = %s_sums_at(cell, frac);\n",
                   n, n);
    if (oc >= 0)
        tf_text_printf(s, "    return %s_c%d(%s_drain(cell, frac, s.x, s.y)).x;\n}\n\n", n, oc, n);
    else
        tf_text_printf(s, "    return %s_drain(cell, frac, s.x, s.y);\n}\n\n", n);
    double e = ldexp(d->spacing, -(d->levels - 1)) * 0x1p-8;
    tf_text_format(s,
                   "// Height and gradient: central differences across the finest spacing /\n"
                   "// 256, as the runtime's (docs/spec.md, \"Gradients\").\n"
                   "fn vec3 %s_gradient_at(ivec2 cell, vec2 frac) {\n"
                   "    let float gx = (%s_at(cell, frac + vec2(%F, 0.0)) - %s_at(cell, frac - vec2(%F, 0.0))) / %F;\n"
                   "    let float gy = (%s_at(cell, frac + vec2(0.0, %F)) - %s_at(cell, frac - vec2(0.0, %F))) / %F;\n"
                   "    return vec3(%s_at(cell, frac), gx, gy);\n}\n\n",
                   n, n, e, n, e, 2.0 * e, n, e, n, e, 2.0 * e, n);
    put_point_forms(s, n);
}

/* GLSL finds a texel as (i & 1023, i >> 10). */
_Static_assert(TF_SHADER_NETWORK_TEXTURE_WIDTH == 1024, "the GLSL readers shift by 10");

/* The network table's bindings and readers, in each language's own
 * syntax (docs/shader.md, "Drainage"). */
static void put_network_bindings(tf_text *t, tf_shader_lang lang, const char *n)
{
    if (lang == TF_SHADER_GLSL)
        tf_text_printf(t,
                       "// The drainage network (tf_shader_network_build): %d-texel-wide textures.\n"
                       "uniform highp usampler2D %s_network_words;\n"
                       "uniform highp sampler2D %s_network_segments;\n"
                       "uint %s_net_word(int i) {\n"
                       "    return texelFetch(%s_network_words, ivec2(i & %d, i >> %d), 0).x;\n}\n"
                       "vec4 %s_net_segment(int i) {\n"
                       "    return texelFetch(%s_network_segments, ivec2(i & %d, i >> %d), 0);\n}\n",
                       TF_SHADER_NETWORK_TEXTURE_WIDTH, n, n, n, n,
                       TF_SHADER_NETWORK_TEXTURE_WIDTH - 1, 10, n, n,
                       TF_SHADER_NETWORK_TEXTURE_WIDTH - 1, 10);
    else if (lang == TF_SHADER_WGSL)
        tf_text_printf(t,
                       "// The drainage network (tf_shader_network_build): storage buffers.\n"
                       "@group(1) @binding(0) var<storage, read> %s_network_words: array<u32>;\n"
                       "@group(1) @binding(1) var<storage, read> %s_network_segments: array<vec4f>;\n"
                       "fn %s_net_word(i: i32) -> u32 {\n    return %s_network_words[i];\n}\n"
                       "fn %s_net_segment(i: i32) -> vec4f {\n    return %s_network_segments[i];\n}\n",
                       n, n, n, n, n, n);
    else
        tf_text_printf(t,
                       "// The drainage network (tf_shader_network_build): structured buffers.\n"
                       "StructuredBuffer<uint> %s_network_words;\n"
                       "StructuredBuffer<float4> %s_network_segments;\n"
                       "uint %s_net_word(int i) {\n    return %s_network_words[i];\n}\n"
                       "float4 %s_net_segment(int i) {\n    return %s_network_segments[i];\n}\n",
                       n, n, n, n, n, n);
}

/* The spec's functions, in the neutral dialect. */
static int put_spec(emitter *e, const tf_spec *spec, double min_value, double max_value)
{
    tf_text *s = e->src;
    const char *n = e->name;
    tf_text_printf(s, "const float %s_MIN_VALUE = ", n);
    tf_text_float(s, min_value);
    tf_text_printf(s, ";\nconst float %s_MAX_VALUE = ", n);
    tf_text_float(s, max_value);
    tf_text_puts(s, ";\n\n");

    int rd[TF_MAX_LAYERS], mc[TF_MAX_LAYERS], oc = -1;
    for (size_t i = 0; i < spec->layer_count; i++) {
        const tf_layer_spec *L = &spec->layers[i];
        if (put_layer_noise(e, i, L) != 0)
            return -1;
        char path[64];
        snprintf(path, sizeof path, "$.noiseLayers[%zu].rd.points", i);
        rd[i] = put_curve(e, L->rd_points, L->rd_point_count, L->rd_interpolation, path);
        if (rd[i] < 0)
            return -1;
        mc[i] = -1;
        if (L->mask_layer_index >= 0 && L->mask_curve_point_count > 0) {
            snprintf(path, sizeof path, "$.noiseLayers[%zu].maskCurve.points", i);
            mc[i] = put_curve(e, L->mask_curve_points, L->mask_curve_point_count,
                              L->mask_curve_interpolation, path);
            if (mc[i] < 0)
                return -1;
        }
    }
    if (spec->output_curve_point_count > 0) {
        oc = put_curve(e, spec->output_curve_points, spec->output_curve_point_count,
                       spec->output_curve_interpolation, "$.outputCurve.points");
        if (oc < 0)
            return -1;
    }

    const tf_drainage_spec *dra = &spec->drainage;
    if (dra->levels > 0) {
        tf_text_puts(s, "// The layers' sum at world point cell + frac and the carved layers' sum\n"
                        "// (docs/spec.md \"Evaluation\", steps 1-5; \"Drainage\", layer sets).\n");
        tf_text_printf(s, "fn vec2 %s_sums_at(ivec2 cell, vec2 frac) {\n", n);
    } else {
        tf_text_puts(s, "// The height at world point cell + frac and its gradient (dh/dx, dh/dy):\n"
                        "// docs/spec.md \"Evaluation\", steps 1-6, and \"Gradients\".\n");
        tf_text_printf(s, "fn vec3 %s_gradient_at(ivec2 cell, vec2 frac) {\n", n);
    }
    tf_text_puts(s, "    let tf_s wx = tf_norm(cell.x, frac.x);\n"
                    "    let tf_s wy = tf_norm(cell.y, frac.y);\n"
                    "    var vec3 sum = vec3(0.0, 0.0, 0.0);\n");
    if (dra->levels > 0)
        tf_text_puts(s, "    var float low = 0.0;\n");
    tf_text bx = {0}, by = {0};
    for (size_t i = 0; i < spec->layer_count; i++) {
        const tf_layer_spec *L = &spec->layers[i];
        if (!(L->frequency < 2147483648.0)) {
            tf_error_set(e->err, TF_ERR_LIMIT,
                         "shader: $.noiseLayers[%zu].baseNoise.frequency %g passes 2^31, "
                         "beyond the shader's split coordinates",
                         i, L->frequency);
            tf_text_free(&bx);
            tf_text_free(&by);
            return -1;
        }
        octave_point(&bx, "wx", L->frequency, L->offset[0], WARP_NONE, 0.0, NULL);
        octave_point(&by, "wy", L->frequency, L->offset[1], WARP_NONE, 0.0, NULL);
        const double half_f = L->frequency * 0.5, amp = L->amp_scale, shift = L->pre_amp_shift;
        tf_text_format(s,
                       "    let vec3 n%zu = %s_l%zu(%s, %s);\n"
                       "    let vec2 c%zu = %s_c%d((n%zu.x + 1.0) * 0.5);\n"
                       "    let vec3 r%zu = vec3(c%zu.x, c%zu.y * (n%zu.y * %F), c%zu.y * (n%zu.z * %F));\n",
                       i, n, i, bx.data, by.data, i, n, rd[i], i, i, i, i, i, half_f, i, i, half_f);
        if (L->mask_layer_index < 0) {
            tf_text_format(s, "    let vec3 x%zu = %F * vec3(r%zu.x + %F, r%zu.y, r%zu.z);\n", i, amp,
                           i, shift, i, i);
            put_add(s, spec, i);
            continue;
        }
        int m = L->mask_layer_index;
        if (mc[i] >= 0) {
            tf_text_format(s, "    let vec2 w%zu = %s_c%d(r%d.x);\n", i, n, mc[i], m);
        } else {
            double fall = L->mask_falloff;
            tf_text_format(s, "    let vec2 w%zu = tf_range_mask(r%d.x, %F, %F, %F, %F);\n", i, m,
                           L->mask_min_value, L->mask_max_value, fall,
                           fall > 0.0 ? 1.0 / fall : 0.0);
        }
        /* X = ((r + shift) * amp) * w, X' = amp * (r' w + (r + shift) w' r_m') */
        tf_text_format(s,
                       "    let float v%zu = r%zu.x + %F;\n"
                       "    let vec3 x%zu = vec3((v%zu * %F) * w%zu.x, "
                       "%F * (r%zu.y * w%zu.x + v%zu * (w%zu.y * r%d.y)), "
                       "%F * (r%zu.z * w%zu.x + v%zu * (w%zu.y * r%d.z)));\n",
                       i, i, shift, i, i, amp, i, amp, i, i, i, i, m, amp, i, i, i, i, m);
        put_add(s, spec, i);
    }
    tf_text_free(&bx);
    tf_text_free(&by);
    if (dra->levels > 0) {
        tf_text_puts(s, "    return vec2(sum.x, low);\n}\n\n");
        put_drainage(s, n, dra, oc);
        return 0;
    }
    if (oc >= 0) {
        tf_text_printf(s, "    let vec2 oc = %s_c%d(sum.x);\n", n, oc);
        tf_text_puts(s, "    return vec3(oc.x, oc.y * sum.y, oc.y * sum.z);\n}\n\n");
    } else {
        tf_text_puts(s, "    return sum;\n}\n\n");
    }
    tf_text_printf(s,
                   "// The height at world point cell + frac: precise however far out.\n"
                   "fn float %s_at(ivec2 cell, vec2 frac) {\n"
                   "    return %s_gradient_at(cell, frac).x;\n}\n\n",
                   n, n);
    put_point_forms(s, n);
    return 0;
}

static void put_prelude(tf_text *t, tf_shader_lang lang, const char *name)
{
    tf_text_printf(t,
                   "// %s: a terrafit terrain as %s, generated by terrafit %s.\n"
                   "// Defines %s(p), %s_at(cell, frac), %s_gradient(p), %s_gradient_at(cell, frac),\n"
                   "// %s_MIN_VALUE and %s_MAX_VALUE; helpers are named tf_*. The\n"
                   "// functions, their precision and the measured difference from the C\n"
                   "// runtime are in terrafit's docs/shader.md.\n",
                   name, lang == TF_SHADER_GLSL ? "GLSL" : lang == TF_SHADER_WGSL ? "WGSL" : "HLSL",
                   TF_VERSION_STRING, name, name, name, name, name, name);
    if (lang == TF_SHADER_GLSL)
        tf_text_puts(t, "#ifdef GL_ES\nprecision highp float;\nprecision highp int;\n#endif\n"
                        "struct tf_s {\n    int i;\n    float f;\n};\n");
    else if (lang == TF_SHADER_WGSL)
        tf_text_puts(t, "struct tf_s {\n    i: i32,\n    f: f32,\n}\n");
    else
        tf_text_puts(t, "struct tf_s {\n    int i;\n    float f;\n};\n"
                        "tf_s tf_s_make(int i, float f) {\n    tf_s r;\n    r.i = i;\n"
                        "    r.f = f;\n    return r;\n}\n");
}

char *tf_shader_emit(const tf_spec *spec, tf_shader_lang lang, const char *name, tf_error *err)
{
    if (!spec || (unsigned)lang >= TF_SHADER_LANG_COUNT) {
        tf_error_set(err, TF_ERR_ARGUMENT, "shader: %s", spec ? "unknown language" : "no spec");
        return NULL;
    }
    if (!name)
        name = "terrain";
    if (check_name(name, err) != 0 || tf_spec_validate(spec, err) != 0)
        return NULL;
    tf_terrain *t = tf_terrain_compile(spec, err);
    if (!t)
        return NULL;
    double min_value = tf_terrain_min_value(t), max_value = tf_terrain_max_value(t);
    tf_terrain_free(t);

    section sec[MAX_SECTIONS];
    size_t ns = read_sections(sec);
    want_name(sec, ns, "core");
    want_name(sec, ns, "curves");
    for (size_t i = 0; i < spec->layer_count; i++) {
        want_name(sec, ns, BASE[spec->layers[i].noise_type].section);
        if (spec->layers[i].fractal_kind != TF_FRACTAL_NONE)
            want_name(sec, ns, "fractal");
    }

    tf_text out = {0}, neutral = {0}, arrays = {0};
    emitter e = {&neutral, &arrays, lang, name, 0, err};
    char *result = NULL;
    put_prelude(&out, lang, name);
    for (size_t k = 0; k < ns; k++) {
        if (sec[k].wanted) {
            if (put_library_arrays(&out, lang, &sec[k]) != 0)
                out.failed = 1;
            tf_text_put(&neutral, sec[k].text, sec[k].len);
        }
    }
    if (spec->drainage.levels > 0)
        put_network_bindings(&arrays, lang, name);
    if (put_spec(&e, spec, min_value, max_value) != 0)
        goto done;
    if (neutral.out_of_range || arrays.out_of_range) {
        tf_error_set(err, TF_ERR_LIMIT,
                     "shader: the spec has a constant (%g) beyond a 32-bit float's range",
                     neutral.out_of_range ? neutral.bad_value : arrays.bad_value);
        goto done;
    }
    if (neutral.failed || arrays.failed || out.failed) {
        tf_error_set(err, TF_ERR_NOMEM, "shader: out of memory");
        goto done;
    }
    tf_text_put(&out, arrays.data ? arrays.data : "", arrays.len);
    if (tf_shader_translate(&out, neutral.data, neutral.len, lang, err) != 0)
        goto done;
    if (out.failed) {
        tf_error_set(err, TF_ERR_NOMEM, "shader: out of memory");
        goto done;
    }
    result = out.data;
    out.data = NULL;
done:
    tf_text_free(&out);
    tf_text_free(&neutral);
    tf_text_free(&arrays);
    return result;
}
