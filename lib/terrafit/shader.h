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
 * TF_SHADER_MAX_CURVE_POINTS points, a frequency of 2^31 or more).
 *
 * A spec with a drainage stage also declares two read-only buffers,
 * NAME_network_words and NAME_network_segments, which the host fills with
 * a tf_shader_network of the region it draws (below). */
TF_API char *tf_shader_emit(const tf_spec *spec, tf_shader_lang lang, const char *name,
                            tf_error *err);

/* A drainage network for a shader: every sub-segment that can reach a
 * point of the box [x0, x0 + width] x [y0, y0 + height], built by the
 * runtime in doubles (tf_terrain_drainage_segments), with a bin index per
 * level. The shader carves from it, so its valleys are the runtime's; at
 * points outside the box it gives the height without the stage. Layout
 * (docs/shader.md, "Drainage"):
 *   words[0..3]   x0, y0 (two's complement), width, height
 *   words[4 + 4k] level k's bins across and down, the word index of its
 *                 first bin start, 0 (k < TF_MAX_DRAINAGE_LEVELS)
 *   bin starts    per level, across * down + 1 word indices into the items
 *   items         segment indices, in each bin in the runtime's tie order
 *   segments      two 4-float records per segment: (ax, ay, bx, by) - (x0, y0)
 *                 and (bed_a, bed_b, 0, 0)
 * GLSL reads both as textures TF_SHADER_NETWORK_TEXTURE_WIDTH texels wide
 * (R32UI and RGBA32F, row-major, the last row padded); WGSL and HLSL as
 * storage / structured buffers. */
typedef struct {
    uint32_t *words;
    size_t word_count;
    float *segments; /* 8 floats a segment */
    size_t segment_count;
} tf_shader_network;

#define TF_SHADER_NETWORK_TEXTURE_WIDTH 1024
/* The most words a network may have (items dominate: a few dozen per
 * finest cell), so every index fits a shader's int. */
#define TF_SHADER_NETWORK_MAX_WORDS ((size_t)1 << 26)
/* The largest width or height of a network's box, in world units: the
 * segments are floats relative to its corner. */
#define TF_SHADER_NETWORK_MAX_SIDE 65536u

/* The most finest-level cells (L_(K-1) squares) a network's box may
 * cover: building it takes the runtime about 220 bytes a cell. */
#define TF_SHADER_NETWORK_MAX_CELLS ((size_t)1 << 20)

/* Build the network of `t` (compiled from the spec the shader was emitted
 * for) over the box. 0, or -1 with err set (no drainage stage, a side of 0
 * or over TF_SHADER_NETWORK_MAX_SIDE, over TF_SHADER_NETWORK_MAX_CELLS
 * cells, beyond the stage's range, over TF_SHADER_NETWORK_MAX_WORDS words,
 * out of memory). Release with
 * tf_shader_network_free. */
TF_API int tf_shader_network_build(const tf_terrain *t, int32_t x0, int32_t y0, uint32_t width,
                                   uint32_t height, tf_shader_network *net, tf_error *err);
TF_API void tf_shader_network_free(tf_shader_network *net);

#ifdef __cplusplus
}
#endif
#endif /* TERRAFIT_SHADER_H */
