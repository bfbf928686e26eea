/*
 * `terrafit render`: sample a spec on a regular grid with every core and
 * write it as a heightmap (and optionally a shaded preview). The library
 * writes each file atomically, so a failed run leaves no partial output.
 */
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "terrafit/terrafit.h"

#define DEFAULT_SIDE 512
/* Renders smaller than this finish before a bar would be worth reading. */
#define PROGRESS_MIN_PIXELS ((unsigned long long)1 << 20)
/* More threads than this only adds start-up cost. */
#define MAX_THREADS 1024
#define FORMAT_NAMES "png16, png8, pgm16 or r16"

enum {
    OPT_HELP,
    OPT_OUTPUT,
    OPT_SIZE,
    OPT_ORIGIN,
    OPT_STEP,
    OPT_FORMAT,
    OPT_THREADS,
    OPT_PREVIEW,
    OPT_QUIET
};

static const cli_option OPTIONS[] = {
    {"help", 'h', false, OPT_HELP},      {"output", 'o', true, OPT_OUTPUT},
    {"size", 's', true, OPT_SIZE},       {"origin", 0, true, OPT_ORIGIN},
    {"step", 0, true, OPT_STEP},         {"format", 'f', true, OPT_FORMAT},
    {"threads", 'j', true, OPT_THREADS}, {"preview", 'p', true, OPT_PREVIEW},
    {"quiet", 'q', false, OPT_QUIET},    {NULL, 0, false, 0},
};

static void print_usage(void)
{
    printf("Usage: terrafit render SPEC -o OUT [OPTIONS]\n"
           "Sample SPEC on a grid and write it as a heightmap. Pixel (i, j) is the\n"
           "height at (X + i*S, Y + j*S), row 0 at the top, scaled so the spec's\n"
           "minValue..maxValue spans the full range of the format (clamped).\n"
           "\n"
           "Options:\n"
           "  -o, --output OUT       heightmap file to write (required)\n"
           "  -s, --size WxH         pixels across and down (default %dx%d;\n"
           "                         each side at most %u, at most %zu pixels)\n"
           "      --origin X,Y       world point of pixel (0, 0) (default 0,0)\n"
           "      --step S           world units between pixels, > 0 (default 1)\n"
           "  -f, --format FORMAT    png16, png8, pgm16 or r16; by default from OUT's\n"
           "                         extension (.png, .pgm, .r16/.raw), else png16\n"
           "  -j, --threads N        render threads (default 0: one per core)\n"
           "  -p, --preview FILE     also write a shaded-relief RGB PNG preview\n"
           "  -q, --quiet            no progress bar\n"
           "  -h, --help             print this help and exit\n"
           "\n"
           "r16 is raw little-endian uint16, row-major, no header; pgm16 is binary\n"
           "PGM with maxval 65535. Each file is written under a temporary name and\n"
           "renamed, so it appears complete or not at all.\n",
           DEFAULT_SIDE, DEFAULT_SIDE, TF_MAX_IMAGE_SIDE, TF_MAX_IMAGE_PIXELS);
}

typedef struct {
    const char *spec_path;
    const char *output_path;
    const char *preview_path;
    unsigned long long width, height;
    double origin_x, origin_y;
    double step;
    bool format_given;
    tf_heightmap_format format;
    unsigned threads;
    bool quiet;
} render_request;

/* Reads the command line into `req`. CLI_EXIT_OK to go on; anything else is
 * the exit status (help printed, or a usage error reported). */
static int parse_request(int argc, char **argv, render_request *req, bool *help_printed)
{
    const char *cmd = "render";
    const char *size_text = NULL;
    cli_args args;
    cli_args_init(&args, cmd, OPTIONS, argc, argv);
    *help_printed = false;
    for (int id; (id = cli_args_next(&args)) != CLI_ARGS_END;) {
        const char *v = args.value;
        bool too_big = false;
        unsigned long long count;
        switch (id) {
        case CLI_ARGS_ERROR:
            return CLI_EXIT_USAGE;
        case CLI_ARGS_POSITIONAL:
            if (req->spec_path)
                return cli_usage_error(cmd, "one SPEC expected, got '%s' and '%s'", req->spec_path,
                                       v);
            req->spec_path = v;
            break;
        case OPT_HELP:
            print_usage();
            *help_printed = true;
            return CLI_EXIT_OK;
        case OPT_OUTPUT:
            req->output_path = v;
            break;
        case OPT_SIZE:
            if (!cli_parse_count_pair(v, 'x', &req->width, &req->height, &too_big))
                return cli_usage_error(cmd, "invalid --size '%s': expected WxH, e.g. 512x512", v);
            if (too_big)
                req->width = req->height = ULLONG_MAX; /* caught by the limit check */
            size_text = v;
            break;
        case OPT_ORIGIN:
            if (!cli_parse_double_pair(v, ',', &req->origin_x, &req->origin_y))
                return cli_usage_error(cmd, "invalid --origin '%s': expected X,Y, e.g. -256,128.5",
                                       v);
            break;
        case OPT_STEP:
            if (!cli_parse_double(v, &req->step) || !(req->step > 0.0))
                return cli_usage_error(cmd, "invalid --step '%s': expected a number > 0", v);
            break;
        case OPT_FORMAT:
            if (tf_heightmap_format_from_name(v, &req->format) != 0)
                return cli_usage_error(cmd, "invalid --format '%s': expected %s", v, FORMAT_NAMES);
            req->format_given = true;
            break;
        case OPT_THREADS:
            if (!cli_parse_count(v, &count, &too_big) || too_big || count > MAX_THREADS)
                return cli_usage_error(cmd, "invalid --threads '%s': expected 0 to %d", v,
                                       MAX_THREADS);
            req->threads = (unsigned)count;
            break;
        case OPT_PREVIEW:
            req->preview_path = v;
            break;
        case OPT_QUIET:
            req->quiet = true;
            break;
        default:
            return cli_usage_error(cmd, "internal error: unhandled option %d", id);
        }
    }
    if (!req->spec_path)
        return cli_usage_error(cmd, "missing SPEC (a terrain JSON file)");
    if (!req->output_path)
        return cli_usage_error(cmd, "missing -o OUT (the heightmap file to write)");
    if (req->preview_path && strcmp(req->preview_path, req->output_path) == 0)
        return cli_usage_error(cmd, "--preview and -o name the same file '%s'", req->output_path);
    /* Sizes are well formed here; beyond the library's limits is a
     * failure (status 1), as the limits are the library's, not syntax. */
    if (size_text) {
        if (req->width < 1 || req->width > TF_MAX_IMAGE_SIDE || req->height < 1 ||
            req->height > TF_MAX_IMAGE_SIDE)
            return cli_fail(cmd, "--size %s: each side must be 1 to %u (TF_MAX_IMAGE_SIDE)",
                            size_text, TF_MAX_IMAGE_SIDE);
        if (req->width * req->height > TF_MAX_IMAGE_PIXELS)
            return cli_fail(cmd, "--size %s: %llu pixels, more than %zu (TF_MAX_IMAGE_PIXELS)",
                            size_text, req->width * req->height, TF_MAX_IMAGE_PIXELS);
    }
    if (!req->format_given && tf_heightmap_format_from_path(req->output_path, &req->format) != 0)
        req->format = TF_HEIGHTMAP_PNG16;
    return CLI_EXIT_OK;
}

static void on_render_progress(void *user, size_t rows_done, size_t rows_total)
{
    cli_progress_update(user, rows_done, rows_total);
}

static int render(const render_request *req)
{
    tf_error err;
    tf_terrain *terrain = tf_terrain_load(req->spec_path, &err);
    if (!terrain)
        return cli_fail_error(&err);

    size_t nx = (size_t)req->width, ny = (size_t)req->height;
    /* The limits above keep nx * ny * sizeof(float) within 4 GiB, which
     * still overflows a 32-bit size_t. */
    if ((uint64_t)nx * ny > SIZE_MAX / sizeof(float)) {
        tf_terrain_free(terrain);
        return cli_fail("render", "%zux%zu is too large for this system's address space", nx, ny);
    }
    float *heights = malloc(nx * ny * sizeof *heights);
    if (!heights) {
        tf_terrain_free(terrain);
        return cli_fail("render", "out of memory for a %zux%zu render (%.1f MiB)", nx, ny,
                        (double)(nx * ny * sizeof *heights) / (1024.0 * 1024.0));
    }

    /* Errors are printed after the bar is erased, never onto it. */
    cli_progress progress;
    cli_progress_start(&progress, "render",
                       req->quiet || (unsigned long long)nx * ny < PROGRESS_MIN_PIXELS);
    double lo = tf_terrain_min_value(terrain), hi = tf_terrain_max_value(terrain);
    bool failed = tf_render_grid(terrain, req->origin_x, req->origin_y, req->step, nx, ny,
                                 req->threads, heights, on_render_progress, &progress, &err) != 0;
    if (!failed) {
        cli_progress_note(&progress, "writing", req->output_path);
        failed =
            tf_heightmap_write(req->output_path, req->format, heights, nx, ny, lo, hi, &err) != 0;
    }
    /* z_scale 0: the library's default relief scale for the value range. */
    if (!failed && req->preview_path) {
        cli_progress_note(&progress, "writing", req->preview_path);
        failed = tf_preview_write(req->preview_path, heights, nx, ny, lo, hi, 0.0, &err) != 0;
    }
    cli_progress_finish(&progress);
    int status = failed ? cli_fail_error(&err) : CLI_EXIT_OK;

    free(heights);
    tf_terrain_free(terrain);
    return status;
}

int cmd_render(int argc, char **argv)
{
    render_request req = {
        .width = DEFAULT_SIDE,
        .height = DEFAULT_SIDE,
        .step = 1.0,
        .format = TF_HEIGHTMAP_PNG16,
    };
    bool help_printed;
    int status = parse_request(argc, argv, &req, &help_printed);
    if (status != CLI_EXIT_OK || help_printed)
        return status;
    return render(&req);
}
