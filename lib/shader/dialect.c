/*
 * The neutral shader dialect and its translation to GLSL, WGSL and HLSL.
 * The library (library.sl) and the code the emitter writes for a spec use
 * one C-like form, line by line:
 *   fn TYPE name(TYPE a, TYPE b) {      a function
 *   var TYPE name = expr;               a mutable local
 *   let TYPE name = expr;               an immutable local
 *   for (var TYPE name = e; ...; ...)   a counted loop
 * and otherwise plain statements with explicit conversions (no implicit
 * int/float mixing, no ?:, no one-argument vector constructors, parameters
 * never assigned), which the three languages read alike once the type and
 * builtin names are mapped. Whole-line // comments pass through; //@ lines
 * are the library's section markers and are dropped.
 */
#include <ctype.h>
#include <float.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "shader_internal.h"

/* ---- the text buffer */

void tf_text_put(tf_text *t, const char *s, size_t n)
{
    if (t->failed)
        return;
    if (n > TF_SHADER_TEXT_MAX - t->len) {
        t->failed = 1;
        return;
    }
    if (t->len + n + 1 > t->cap) {
        size_t cap = t->cap ? t->cap : 4096;
        while (cap < t->len + n + 1)
            cap *= 2;
        char *d = realloc(t->data, cap);
        if (!d) {
            t->failed = 1;
            return;
        }
        t->data = d;
        t->cap = cap;
    }
    memcpy(t->data + t->len, s, n);
    t->len += n;
    t->data[t->len] = '\0';
}

void tf_text_puts(tf_text *t, const char *s)
{
    tf_text_put(t, s, strlen(s));
}

void tf_text_printf(tf_text *t, const char *fmt, ...)
{
    char small[512];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(small, sizeof small, fmt, ap);
    va_end(ap);
    if (n < 0) {
        t->failed = 1;
        return;
    }
    if ((size_t)n < sizeof small) {
        tf_text_put(t, small, (size_t)n);
        return;
    }
    char *big = malloc((size_t)n + 1);
    if (!big) {
        t->failed = 1;
        return;
    }
    va_start(ap, fmt);
    vsnprintf(big, (size_t)n + 1, fmt, ap);
    va_end(ap);
    tf_text_put(t, big, (size_t)n);
    free(big);
}

void tf_text_float(tf_text *t, double v)
{
    char s[48];
    if (!(fabs(v) <= (double)FLT_MAX)) {
        if (!t->out_of_range)
            t->bad_value = v;
        t->out_of_range = 1;
        v = 0.0;
    }
    /* 9 significant digits name every float exactly; the value is
     * rounded to float first so the literal is the float itself */
    snprintf(s, sizeof s, "%.9g", (double)(float)v);
    if (!strpbrk(s, ".eEn"))
        strcat(s, ".0");
    tf_text_puts(t, s);
}

void tf_text_format(tf_text *t, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    const char *p = fmt;
    while (*p) {
        const char *pct = strchr(p, '%');
        if (!pct) {
            tf_text_puts(t, p);
            break;
        }
        tf_text_put(t, p, (size_t)(pct - p));
        p = pct + 1;
        if (*p == 'F') {
            tf_text_float(t, va_arg(ap, double));
        } else if (*p == 's') {
            tf_text_puts(t, va_arg(ap, const char *));
        } else if (*p == 'd') {
            tf_text_printf(t, "%d", va_arg(ap, int));
        } else if (*p == 'u') {
            tf_text_printf(t, "%u", va_arg(ap, unsigned));
        } else if (p[0] == 'z' && p[1] == 'u') {
            tf_text_printf(t, "%zu", va_arg(ap, size_t));
            p++;
        } else if (*p == '%') {
            tf_text_puts(t, "%");
        } else {
            t->failed = 1; /* a conversion this function does not know: a bug */
            break;
        }
        p++;
    }
    va_end(ap);
}

void tf_text_free(tf_text *t)
{
    free(t->data);
    memset(t, 0, sizeof *t);
}

/* ---- names */

typedef struct {
    const char *neutral, *glsl, *wgsl, *hlsl;
} name_map;

/* Types and builtins whose names differ; everything else is the same in
 * all three. */
static const name_map NAMES[] = {
    {"float", "float", "f32", "float"},   {"int", "int", "i32", "int"},
    {"uint", "uint", "u32", "uint"},      {"bool", "bool", "bool", "bool"},
    {"vec2", "vec2", "vec2f", "float2"},  {"vec3", "vec3", "vec3f", "float3"},
    {"vec4", "vec4", "vec4f", "float4"},  {"ivec2", "ivec2", "vec2i", "int2"},
    {"ivec3", "ivec3", "vec3i", "int3"},  {"uvec2", "uvec2", "vec2u", "uint2"},
    {"uvec3", "uvec3", "vec3u", "uint3"}, {"fract", "fract", "fract", "frac"},
    {"mix", "mix", "mix", "lerp"},
};

static const char *map_name(const char *id, size_t n, tf_shader_lang lang)
{
    for (size_t k = 0; k < sizeof NAMES / sizeof NAMES[0]; k++) {
        if (strlen(NAMES[k].neutral) == n && memcmp(NAMES[k].neutral, id, n) == 0)
            return lang == TF_SHADER_WGSL ? NAMES[k].wgsl
                   : lang == TF_SHADER_HLSL ? NAMES[k].hlsl
                                            : NAMES[k].glsl;
    }
    return NULL;
}

static int ident_start(char c)
{
    return isalpha((unsigned char)c) || c == '_';
}

static int ident_char(char c)
{
    return isalnum((unsigned char)c) || c == '_';
}

/* An expression (or any statement text) with its names mapped. In HLSL the
 * split-number struct has no constructor, so tf_s(...) calls a maker. */
static void put_expr(tf_text *out, const char *s, size_t n, tf_shader_lang lang)
{
    size_t i = 0;
    while (i < n) {
        if (ident_start(s[i])) {
            size_t j = i;
            while (j < n && ident_char(s[j]))
                j++;
            const char *m = map_name(s + i, j - i, lang);
            if (m)
                tf_text_puts(out, m);
            else if (lang == TF_SHADER_HLSL && j - i == 4 && memcmp(s + i, "tf_s", 4) == 0 &&
                     j < n && s[j] == '(')
                tf_text_puts(out, "tf_s_make");
            else
                tf_text_put(out, s + i, j - i);
            i = j;
        } else if (isdigit((unsigned char)s[i])) {
            /* a number, hex and suffixes included, passes whole */
            size_t j = i;
            while (j < n && (ident_char(s[j]) || s[j] == '.'))
                j++;
            tf_text_put(out, s + i, j - i);
            i = j;
        } else {
            tf_text_put(out, s + i, 1);
            i++;
        }
    }
}

/* Read one name at *p (skipping spaces); its length, 0 if none. */
static size_t read_name(const char **p, const char *end, const char **name)
{
    const char *s = *p;
    while (s < end && *s == ' ')
        s++;
    const char *b = s;
    if (s < end && ident_start(*s)) {
        while (s < end && ident_char(*s))
            s++;
    }
    *name = b;
    *p = s;
    return (size_t)(s - b);
}

/* "TYPE NAME" of a declaration, mapped: GLSL/HLSL "T NAME", WGSL "NAME: T". */
static int put_decl(tf_text *out, const char **p, const char *end, tf_shader_lang lang,
                    const char *wgsl_keyword)
{
    const char *type, *name;
    size_t tn = read_name(p, end, &type);
    size_t nn = read_name(p, end, &name);
    if (!tn || !nn)
        return -1;
    if (lang == TF_SHADER_WGSL) {
        if (wgsl_keyword)
            tf_text_puts(out, wgsl_keyword);
        tf_text_put(out, name, nn);
        tf_text_puts(out, ": ");
        put_expr(out, type, tn, lang);
    } else {
        put_expr(out, type, tn, lang);
        tf_text_puts(out, " ");
        tf_text_put(out, name, nn);
    }
    return 0;
}

static int starts(const char *s, const char *end, const char *word)
{
    size_t n = strlen(word);
    return (size_t)(end - s) >= n && memcmp(s, word, n) == 0;
}

/* fn RET name(T a, T b) { */
static int put_function(tf_text *out, const char *s, const char *end, tf_shader_lang lang)
{
    const char *p = s + 3, *ret, *name;
    size_t rn = read_name(&p, end, &ret);
    size_t nn = read_name(&p, end, &name);
    if (!rn || !nn || p >= end || *p != '(')
        return -1;
    p++;
    if (lang == TF_SHADER_WGSL) {
        tf_text_puts(out, "fn ");
    } else {
        put_expr(out, ret, rn, lang);
        tf_text_puts(out, " ");
    }
    tf_text_put(out, name, nn);
    tf_text_puts(out, "(");
    int first = 1;
    while (p < end && *p != ')') {
        if (!first)
            tf_text_puts(out, ", ");
        if (put_decl(out, &p, end, lang, NULL) != 0)
            return -1;
        while (p < end && *p == ' ')
            p++;
        if (p < end && *p == ',')
            p++;
        first = 0;
    }
    if (p >= end)
        return -1;
    p++; /* ')' */
    tf_text_puts(out, ")");
    if (lang == TF_SHADER_WGSL) {
        tf_text_puts(out, " -> ");
        put_expr(out, ret, rn, lang);
    }
    put_expr(out, p, (size_t)(end - p), lang);
    return 0;
}

int tf_shader_translate(tf_text *out, const char *src, size_t len, tf_shader_lang lang,
                        tf_error *err)
{
    const char *s = src, *stop = src + len;
    size_t line = 0;
    while (s < stop) {
        const char *end = memchr(s, '\n', (size_t)(stop - s));
        if (!end)
            end = stop;
        line++;
        const char *b = s;
        while (b < end && *b == ' ')
            b++;
        int bad = 0;
        if (starts(b, end, "//@")) {
            /* a section marker: not shader text */
        } else {
            tf_text_put(out, s, (size_t)(b - s)); /* the indentation */
            if (starts(b, end, "fn ")) {
                bad = put_function(out, b, end, lang);
            } else if (starts(b, end, "var ") || starts(b, end, "let ") ||
                       starts(b, end, "const ")) {
                int is_const = b[0] == 'c';
                const char *p = b + (is_const ? 6 : 4);
                const char *kw = is_const ? "const " : b[0] == 'v' ? "var " : "let ";
                if (lang != TF_SHADER_WGSL && is_const)
                    tf_text_puts(out, lang == TF_SHADER_HLSL ? "static const " : "const ");
                bad = put_decl(out, &p, end, lang, kw);
                if (!bad)
                    put_expr(out, p, (size_t)(end - p), lang);
            } else if (starts(b, end, "for (var ")) {
                const char *p = b + 9;
                tf_text_puts(out, "for (");
                bad = put_decl(out, &p, end, lang, "var ");
                if (!bad)
                    put_expr(out, p, (size_t)(end - p), lang);
            } else {
                put_expr(out, b, (size_t)(end - b), lang);
            }
            tf_text_puts(out, "\n");
        }
        if (bad) {
            tf_error_set(err, TF_ERR_ARGUMENT, "shader: cannot translate line %zu: %.*s", line,
                         (int)(end - b > 120 ? 120 : end - b), b);
            return -1;
        }
        s = end < stop ? end + 1 : end;
    }
    return 0;
}
