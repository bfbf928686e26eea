/*
 * Private declarations of lib/shader: a growing text buffer, the neutral
 * shader dialect's translator (dialect.c) and the embedded library text
 * (library.sl, made into library.c at build time).
 */
#ifndef TF_SHADER_INTERNAL_H
#define TF_SHADER_INTERNAL_H

#include <stddef.h>

#include "base/error.h"
#include "terrafit/shader.h"

#if defined(__GNUC__)
#define TF_SHADER_PRINTF(fmt, args) __attribute__((format(printf, fmt, args)))
#else
#define TF_SHADER_PRINTF(fmt, args)
#endif

/* A NUL-terminated text that grows; `failed` is set (and the text kept as
 * it was) when memory runs out or the text would pass TF_SHADER_TEXT_MAX. */
typedef struct {
    char *data;
    size_t len, cap;
    int failed;
    /* set by tf_text_float for a value no float holds (|v| > FLT_MAX) */
    int out_of_range;
    double bad_value;
} tf_text;

/* No emitted source is near this: a spec of 64 layers with curves of 65536
 * points each is the largest, and it is checked against this bound. */
#define TF_SHADER_TEXT_MAX ((size_t)256 << 20)

void tf_text_put(tf_text *t, const char *s, size_t n);
void tf_text_puts(tf_text *t, const char *s);
void tf_text_printf(tf_text *t, const char *fmt, ...) TF_SHADER_PRINTF(2, 3);
/* A float literal every language reads as the float nearest `v` (9
 * significant digits, always with a '.' or an exponent); a value beyond a
 * float's range sets out_of_range and writes 0.0. */
void tf_text_float(tf_text *t, double v);
/* printf-like, with only %s, %d, %u, %zu, %% and %F: a double written as
 * tf_text_float writes it. */
void tf_text_format(tf_text *t, const char *fmt, ...);
void tf_text_free(tf_text *t);

/* Translate neutral-dialect source (library.sl's conventions) to `lang`,
 * appending to `out`. Returns 0, or -1 with err set on a line it cannot
 * read (a bug in the emitter or the library, never the user's input). */
int tf_shader_translate(tf_text *out, const char *src, size_t len, tf_shader_lang lang,
                        tf_error *err);

/* The shader library, library.sl as it is in the source tree. */
extern const char tf_shader_library_text[];

#endif
