/*
 * terrafit shader emission: a spec compiled to one self-contained GLSL,
 * WGSL or HLSL source that evaluates its terrain on the GPU, with every
 * constant baked in (docs/shader.md has the functions it defines, how
 * coordinates keep their precision far from the origin, and the measured
 * difference from the C runtime).
 *
 *     tf_error err;
 *     char *src = tf_shader_emit(spec, TF_SHADER_GLSL, "terrain", &err);
 *     if (!src) fprintf(stderr, "%s\n", err.message);
 *     ... compile src into a shader ...
 *     free(src);
 */
#ifndef TERRAFIT_SHADER_H
#define TERRAFIT_SHADER_H

#include <terrafit/runtime.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef enum {
    TF_SHADER_GLSL = 0, /* GLSL ES 3.00 (WebGL2), also desktop GLSL 3.30 and later */
    TF_SHADER_WGSL = 1, /* WebGPU */
    TF_SHADER_HLSL = 2, /* HLSL (Shader Model 5 and later) */
    TF_SHADER_LANG_COUNT
} tf_shader_lang;

/* "glsl", "wgsl", "hlsl"; NULL for an unknown value. */
TF_API const char *tf_shader_lang_name(tf_shader_lang lang);
/* The language of a name above; -1 for an unknown name. */
TF_API int tf_shader_lang_parse(const char *name);

/* The longest function name accepted (without the suffixes it gets). */
#define TF_SHADER_NAME_MAX 48

/* The most control points a curve may have: its knots and segments become
 * constant tables, which shader compilers hold in registers or constant
 * memory (fitted specs use 64). */
#define TF_SHADER_MAX_CURVE_POINTS 4096

/* The source of `spec` in `lang`, defining NAME (a height), NAME_at (a
 * height at an integer cell plus a fraction), NAME_gradient and
 * NAME_gradient_at (height and gradient), NAME_MIN_VALUE and
 * NAME_MAX_VALUE. `name` (NULL: "terrain") must be a letter followed by
 * letters, digits or '_', at most TF_SHADER_NAME_MAX characters, and not
 * start with "tf_" or "gl_". A NUL-terminated string (release it with free()),
 * or NULL with err set (an invalid spec, a bad name, a curve of more than
 * TF_SHADER_MAX_CURVE_POINTS points, a frequency of 2^31 or more, or a
 * spec with a drainage stage, which shaders do not evaluate). */
TF_API char *tf_shader_emit(const tf_spec *spec, tf_shader_lang lang, const char *name,
                            tf_error *err);

#ifdef __cplusplus
}
#endif
#endif /* TERRAFIT_SHADER_H */
