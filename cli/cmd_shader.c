/*
 * `terrafit shader`: a spec as one GLSL, WGSL or HLSL source file that
 * evaluates its heights and gradients on the GPU (tf_shader_emit,
 * docs/shader.md); with --network, a drainage spec's network table over a
 * box, in the file format docs/shader.md gives, for the shader to read.
 */
#include <errno.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "terrafit/shader.h"

static const cli_command SHADER = {
    .name = "shader",
    .usage = "SPEC --lang glsl|wgsl|hlsl [-o FILE] [--name NAME]\n"
             "SPEC --network X,Y,W,H -o FILE",
    .about = "Write SPEC as one self-contained shader source: NAME(p) and\n"
             "NAME_at(cell, frac) give the height, NAME_gradient(p) and\n"
             "NAME_gradient_at(cell, frac) the height and its gradient, NAME_MIN_VALUE\n"
             "and NAME_MAX_VALUE the spec's range; every constant is baked in.\n"
             "GLSL is GLSL ES 3.00 (WebGL2; desktop GLSL 3.30 and later read it too),\n"
             "WGSL is WebGPU's, HLSL is Shader Model 5. The _at forms take an integer\n"
             "cell and a fraction and stay precise at +-1e6 world units; docs/shader.md\n"
             "has the measured difference from the C runtime.\n"
             "A spec with a drainage stage also reads a table of its valley network\n"
             "over the region drawn; --network writes that table for the box from\n"
             "(X, Y) of W x H world units (integers) to FILE (docs/shader.md,\n"
             "\"Drainage\"); a program builds it with tf_shader_network_build.\n",
    .footer = "Exit status: 0 on success, 1 on a bad spec or name, 2 on bad usage.\n",
};

/* "X,Y,W,H": integers, X and Y int32, W and H 1..TF_SHADER_NETWORK_MAX_SIDE. */
static int parse_box(const char *text, long v[4])
{
    const char *p = text;
    for (int k = 0; k < 4; k++) {
        char *end;
        errno = 0;
        v[k] = strtol(p, &end, 10);
        if (end == p || errno != 0 || *end != (k < 3 ? ',' : '\0'))
            return -1;
        p = end + 1;
    }
    if (v[0] < INT32_MIN || v[0] > INT32_MAX || v[1] < INT32_MIN || v[1] > INT32_MAX)
        return -1;
    return v[2] >= 1 && v[2] <= (long)TF_SHADER_NETWORK_MAX_SIDE && v[3] >= 1 &&
                   v[3] <= (long)TF_SHADER_NETWORK_MAX_SIDE
               ? 0
               : -1;
}

static void put_u32(unsigned char *p, uint32_t v)
{
    p[0] = (unsigned char)v;
    p[1] = (unsigned char)(v >> 8);
    p[2] = (unsigned char)(v >> 16);
    p[3] = (unsigned char)(v >> 24);
}

/* The network file (docs/shader.md, "Drainage"): "TFNETWK1", the word and
 * segment counts, the words, the segments' floats; all little-endian. */
static int write_network(const char *spec_path, const tf_spec *spec, const long box[4],
                         const char *output)
{
    tf_error err;
    tf_terrain *t = tf_terrain_compile(spec, &err);
    if (!t)
        return cli_fail(SHADER.name, "%s: %s", spec_path, err.message);
    tf_shader_network net;
    int status = CLI_EXIT_OK;
    if (tf_shader_network_build(t, (int32_t)box[0], (int32_t)box[1], (uint32_t)box[2],
                                (uint32_t)box[3], &net, &err) != 0) {
        tf_terrain_free(t);
        return cli_fail(SHADER.name, "%s: %s", spec_path, err.message);
    }
    tf_terrain_free(t);
    size_t floats = 8 * net.segment_count, bytes = 16 + 4 * (net.word_count + floats);
    unsigned char *file = malloc(bytes);
    if (!file) {
        tf_shader_network_free(&net);
        return cli_fail(SHADER.name, "out of memory for a network of %zu bytes", bytes);
    }
    memcpy(file, "TFNETWK1", 8);
    put_u32(file + 8, (uint32_t)net.word_count);
    put_u32(file + 12, (uint32_t)net.segment_count);
    unsigned char *p = file + 16;
    for (size_t k = 0; k < net.word_count; k++, p += 4)
        put_u32(p, net.words[k]);
    for (size_t k = 0; k < floats; k++, p += 4) {
        uint32_t bits;
        memcpy(&bits, &net.segments[k], 4);
        put_u32(p, bits);
    }
    tf_shader_network_free(&net);
    if (tf_write_file_atomic(output, file, bytes, &err) != 0)
        status = cli_fail_error(SHADER.name, &err);
    free(file);
    return status;
}

int cmd_shader(int argc, char **argv)
{
    const char *lang_name = NULL, *output = NULL, *name = "terrain", *network = NULL;
    const cli_option options[] = {
        CLI_OPT_STRING(0, "lang", &lang_name, "LANG", "glsl, wgsl or hlsl (required)"),
        CLI_OPT_STRING('o', "output", &output, "FILE",
                       "write here (written whole or not at all); default: standard output"),
        CLI_OPT_STRING(0, "name", &name, "NAME",
                       "the functions' name (default terrain): a letter, then letters, digits, '_'"),
        CLI_OPT_STRING(0, "network", &network, "X,Y,W,H",
                       "write a drainage spec's network table over this box instead (needs -o)"),
        CLI_OPT_END(),
    };
    int operands = cli_parse(&SHADER, options, argc, argv);
    if (operands < 0)
        return cli_parse_status(operands);
    if (operands == 0)
        return cli_usage_error(SHADER.name, "missing SPEC (a terrain JSON file)");
    if (operands > 1)
        return cli_usage_error(SHADER.name, "one SPEC at a time (got %d)", operands);
    long box[4];
    if (network) {
        if (lang_name)
            return cli_usage_error(SHADER.name, "--network writes a table, not a source: no --lang");
        if (!output)
            return cli_usage_error(SHADER.name, "--network needs -o FILE (the table is binary)");
        if (parse_box(network, box) != 0)
            return cli_usage_error(SHADER.name,
                                   "--network \"%s\": X,Y,W,H with X and Y 32-bit integers and "
                                   "W and H integers 1 to %u",
                                   network, TF_SHADER_NETWORK_MAX_SIDE);
        tf_error err;
        tf_spec *spec = tf_spec_load(argv[0], &err);
        if (!spec)
            return cli_fail_error(SHADER.name, &err);
        int status = write_network(argv[0], spec, box, output);
        tf_spec_free(spec);
        return status;
    }
    if (!lang_name)
        return cli_usage_error(SHADER.name, "missing --lang (glsl, wgsl or hlsl)");
    int lang = tf_shader_lang_parse(lang_name);
    if (lang < 0)
        return cli_usage_error(SHADER.name, "--lang: \"%s\" is not glsl, wgsl or hlsl",
                               lang_name);
    tf_error err;
    tf_spec *spec = tf_spec_load(argv[0], &err);
    if (!spec)
        return cli_fail_error(SHADER.name, &err);
    char *src = tf_shader_emit(spec, (tf_shader_lang)lang, name, &err);
    tf_spec_free(spec);
    if (!src) {
        /* name the file: the emitter knows only the spec */
        return cli_fail(SHADER.name, "%s: %s", argv[0], err.message);
    }
    int status = CLI_EXIT_OK;
    if (output) {
        if (tf_write_file_atomic(output, src, strlen(src), &err) != 0)
            status = cli_fail_error(SHADER.name, &err);
    } else if (fputs(src, stdout) == EOF || fflush(stdout) != 0) {
        fprintf(stderr, "terrafit shader: cannot write to standard output\n");
        status = CLI_EXIT_FAILURE;
    }
    free(src);
    return status;
}
