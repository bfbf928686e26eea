/*
 * terrafit: one binary, several subcommands. main() only dispatches and
 * makes sure nothing written to stdout was silently lost.
 */
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "terrafit/fit.h" /* tf_fit_release_caches */

typedef struct {
    const char *name;
    int (*run)(int argc, char **argv);
    const char *summary;
} command;

static const command COMMANDS[] = {
    {"fit", cmd_fit, "fit a spec to reference height layers (PNG, PGM, ESRI ASCII)"},
    {"compare", cmd_compare, "measure the fidelity of a heightmap or spec against a reference"},
    {"render", cmd_render, "render a spec, or one tile of it, to a heightmap (PNG, PGM, R16, f32, PFM, ASC)"},
    {"preview", cmd_preview, "draw a spec or heightmap as a picture (hillshade, colour, slope, normals)"},
    {"shader", cmd_shader, "write a spec as a GLSL, WGSL or HLSL function (heights and gradients on the GPU)"},
    {"mesh", cmd_mesh, "write a tile of a spec as a triangle mesh (OBJ, glTF binary)"},
    {"erode", cmd_erode, "erode a rendered heightmap (thermal, inverse-thermal, hydraulic)"},
    {"tiles", cmd_tiles, "plan a large world as independent tile renders (commands, GDAL VRT)"},
    {"bench", cmd_bench, "time a spec's evaluation: ns per sample and per layer-sample"},
    {"sample", cmd_sample, "print the height at each \"x y\" point read from stdin"},
    {"validate", cmd_validate, "check specs against every rule of the format"},
    {"info", cmd_info, "summarize a spec: range, layers, curves, masks"},
    {"studio", cmd_studio, "design a spec in the browser: fit, edit curves, preview, 3D (local web page)"},
    {NULL, NULL, NULL},
};

static void print_usage(void)
{
    fputs("Usage: terrafit COMMAND [ARGS...]\n"
          "       terrafit help COMMAND\n"
          "Fit procedural terrain specs (terrafit-terrain JSON) to example height maps,\n"
          "and evaluate, render and compare them.\n"
          "\n"
          "Commands:\n",
          stdout);
    for (const command *c = COMMANDS; c->name; c++)
        printf("  %-10s %s\n", c->name, c->summary);
    fputs("\n"
          "Options:\n"
          "  -h, --help     print this help and exit\n"
          "  -V, --version  print the version and exit\n"
          "\n"
          "Exit status: 0 success, 1 failure (bad input, I/O), 2 usage error.\n"
          "'terrafit COMMAND --help' describes each command.\n",
          stdout);
}

static const command *find_command(const char *name)
{
    for (const command *c = COMMANDS; c->name; c++)
        if (strcmp(c->name, name) == 0)
            return c;
    return NULL;
}

/* `terrafit help [COMMAND]`: the same text as `terrafit COMMAND --help`. */
static int run_help(int argc, char **argv)
{
    if (argc < 2) {
        print_usage();
        return CLI_EXIT_OK;
    }
    if (argc > 2)
        return cli_usage_error("help", "expected one command name, got %d", argc - 1);
    const command *c = find_command(argv[1]);
    if (!c)
        return cli_usage_error(NULL, "unknown command '%s'", argv[1]);
    char help_option[] = "--help";
    char *help_argv[] = {argv[1], help_option, NULL};
    return c->run(2, help_argv);
}

static int dispatch(int argc, char **argv)
{
    if (argc < 2) {
        /* Every command of the table, so the list cannot fall behind it. */
        char names[256];
        size_t used = 0;
        for (const command *c = COMMANDS; c->name && used < sizeof names; c++) {
            const char *sep = c == COMMANDS ? "" : c[1].name ? ", " : " or ";
            int n = snprintf(names + used, sizeof names - used, "%s%s", sep, c->name);
            used += n > 0 ? (size_t)n : 0;
        }
        return cli_usage_error(NULL, "missing command (%s)", names);
    }
    const char *first = argv[1];
    if (strcmp(first, "--help") == 0 || strcmp(first, "-h") == 0) {
        print_usage();
        return CLI_EXIT_OK;
    }
    if (strcmp(first, "--version") == 0 || strcmp(first, "-V") == 0) {
        printf("terrafit %s (format %s version %d)\n", TF_VERSION_STRING, TF_FORMAT_NAME,
               TF_FORMAT_VERSION);
        return CLI_EXIT_OK;
    }
    if (strcmp(first, "help") == 0)
        return run_help(argc - 1, argv + 1);
    if (first[0] == '-')
        return cli_usage_error(NULL, "unknown option '%s'", first);
    const command *c = find_command(first);
    if (!c)
        return cli_usage_error(NULL, "unknown command '%s'", first);
    return c->run(argc - 1, argv + 1);
}

int main(int argc, char **argv)
{
    int status = dispatch(argc, argv);
    /* Fitting's caches live until released: free them so a leak checker
     * run on the tool sees nothing of ours. */
    tf_fit_release_caches();
    /* A full disk or a closed pipe must not look like success. */
    if (fflush(stdout) != 0 || ferror(stdout)) {
        cli_fail(NULL, "error writing to standard output");
        if (status == CLI_EXIT_OK)
            status = CLI_EXIT_FAILURE;
    }
    return status;
}
