/*
 * `terrafit shader`: a spec as one GLSL, WGSL or HLSL source file that
 * evaluates its heights and gradients on the GPU (tf_shader_emit,
 * docs/shader.md).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "terrafit/shader.h"

static const cli_command SHADER = {
    .name = "shader",
    .usage = "SPEC --lang glsl|wgsl|hlsl [-o FILE] [--name NAME]",
    .about = "Write SPEC as one self-contained shader source: NAME(p) and\n"
             "NAME_at(cell, frac) give the height, NAME_gradient(p) and\n"
             "NAME_gradient_at(cell, frac) the height and its gradient, NAME_MIN_VALUE\n"
             "and NAME_MAX_VALUE the spec's range; every constant is baked in.\n"
             "GLSL is GLSL ES 3.00 (WebGL2; desktop GLSL 3.30 and later read it too),\n"
             "WGSL is WebGPU's, HLSL is Shader Model 5. The _at forms take an integer\n"
             "cell and a fraction and stay precise at +-1e6 world units; docs/shader.md\n"
             "has the measured difference from the C runtime. A spec with a drainage\n"
             "stage is refused (shaders do not evaluate it).\n",
    .footer = "Exit status: 0 on success, 1 on a bad spec or name, 2 on bad usage.\n",
};

int cmd_shader(int argc, char **argv)
{
    const char *lang_name = NULL, *output = NULL, *name = "terrain";
    const cli_option options[] = {
        CLI_OPT_STRING(0, "lang", &lang_name, "LANG", "glsl, wgsl or hlsl (required)"),
        CLI_OPT_STRING('o', "output", &output, "FILE",
                       "write here (written whole or not at all); default: standard output"),
        CLI_OPT_STRING(0, "name", &name, "NAME",
                       "the functions' name (default terrain): a letter, then letters, digits, '_'"),
        CLI_OPT_END(),
    };
    int operands = cli_parse(&SHADER, options, argc, argv);
    if (operands < 0)
        return cli_parse_status(operands);
    if (operands == 0)
        return cli_usage_error(SHADER.name, "missing SPEC (a terrain JSON file)");
    if (operands > 1)
        return cli_usage_error(SHADER.name, "one SPEC at a time (got %d)", operands);
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
