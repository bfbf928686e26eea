/*
 * `terrafit render`: sample a spec on a regular grid with every core and
 * write it as a heightmap (and optionally a shaded preview), whole or as one
 * tile of a larger world. The library writes each file atomically, so a
 * failed run leaves no partial output.
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
#define FORMAT_NAMES "png16, png8, pgm16, r16, f32, pfm or asc"
/* A tiled world's side may pass TF_MAX_IMAGE_SIDE (only a tile is held in
 * memory); lattice indices must stay exact doubles (below 2^53). */
#define MAX_WORLD_SIDE ((unsigned long long)1 << 40)

enum {
    OPT_HELP,
    OPT_OUTPUT,
    OPT_SIZE,
    OPT_ORIGIN,
    OPT_STEP,
    OPT_FORMAT,
    OPT_THREADS,
    OPT_PREVIEW,
    OPT_QUIET,
    OPT_NORMALIZE,
    OPT_HEIGHT_SCALE,
    OPT_TILE,
    OPT_TILE_SIZE
};

static const cli_option OPTIONS[] = {
    {"help", 'h', false, OPT_HELP},      {"output", 'o', true, OPT_OUTPUT},
    {"size", 's', true, OPT_SIZE},       {"origin", 0, true, OPT_ORIGIN},
    {"step", 0, true, OPT_STEP},         {"format", 'f', true, OPT_FORMAT},
    {"threads", 'j', true, OPT_THREADS}, {"preview", 'p', true, OPT_PREVIEW},
    {"quiet", 'q', false, OPT_QUIET},    {"normalize", 0, true, OPT_NORMALIZE},
    {"height-scale", 0, true, OPT_HEIGHT_SCALE},
    {"tile", 0, true, OPT_TILE},         {"tile-size", 0, true, OPT_TILE_SIZE},
    {NULL, 0, false, 0},
};

static void print_usage(void)
{
    printf("Usage: terrafit render SPEC -o OUT [OPTIONS]\n"
           "       terrafit render SPEC -o OUT --tile X,Y --tile-size N [OPTIONS]\n"
           "Sample SPEC on a grid and write it as a heightmap. Pixel (i, j) is the\n"
           "height at (X + i*S, Y + j*S), row 0 at the top. By default the spec's\n"
           "minValue..maxValue spans the full range of an integer format (clamped)\n"
           "and 0..1 of a float format (not clamped).\n"
           "\n"
           "Options:\n"
           "  -o, --output OUT       heightmap file to write (required)\n"
           "  -s, --size WxH         pixels across and down (default %dx%d;\n"
           "                         each side at most %u, at most %zu pixels);\n"
           "                         with --tile: the whole world's size (optional)\n"
           "      --origin X,Y       world point of pixel (0, 0) (default 0,0)\n"
           "      --step S           world units between pixels, > 0 (default 1)\n"
           "  -f, --format FORMAT    png16, png8, pgm16, r16, f32, pfm or asc; by\n"
           "                         default from OUT's extension (.png, .pgm,\n"
           "                         .r16/.raw, .f32, .pfm, .asc), else png16\n"
           "      --normalize MODE   spec (default): minValue..maxValue -> 0..1;\n"
           "                         minmax: this render's own min..max -> 0..1;\n"
           "                         none: the heights themselves (float formats only)\n"
           "      --height-scale K   float formats: multiply each stored value by K > 0\n"
           "                         (e.g. metres of relief for normalized heights)\n"
           "      --tile X,Y         write only tile (X, Y) of the world: columns\n"
           "                         X*N .. X*N+N-1 and rows Y*N .. Y*N+N-1 of the\n"
           "                         render with the same --origin and --step, bit for\n"
           "                         bit (clipped to --size when given)\n"
           "      --tile-size N      the tiles' side N (required with --tile)\n"
           "  -j, --threads N        render threads (default 0: one per core)\n"
           "  -p, --preview FILE     also write a shaded-relief RGB PNG preview\n"
           "  -q, --quiet            no progress bar\n"
           "  -h, --help             print this help and exit\n"
           "\n"
           "r16 is raw little-endian uint16, row-major, no header; pgm16 is binary\n"
           "PGM with maxval 65535. f32 is raw little-endian float32, row-major, with\n"
           "a JSON sidecar OUT.json (size, min, max, origin, step, normalization);\n"
           "pfm is a greyscale Portable Float Map (rows bottom to top, as PFM has\n"
           "them); asc is an ESRI ASCII grid georeferenced with easting = x and\n"
           "northing = -y, so it opens in GDAL/QGIS the way the PNG looks\n"
           "(docs/formats.md). Each file is written under a temporary name and\n"
           "renamed, so it appears complete or not at all. 'terrafit tiles' plans\n"
           "a world as tile renders (docs/scale.md).\n",
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
    tf_normalize normalize;
    double height_scale;
    bool height_scale_given;
    bool tiled; /* --tile given */
    unsigned long long tile_x, tile_y, tile_size;
    bool size_given;
    unsigned threads;
    bool quiet;
} render_request;

/* A tile's window: its first lattice column and row and its size, clipped
 * to the world (--size) when given. */
typedef struct {
    int64_t i0, j0;
    size_t nx, ny;
} tile_window;

static tile_window tile_window_of(const render_request *req)
{
    tile_window w = {
        .i0 = (int64_t)(req->tile_x * req->tile_size),
        .j0 = (int64_t)(req->tile_y * req->tile_size),
        .nx = (size_t)req->tile_size,
        .ny = (size_t)req->tile_size,
    };
    if (req->size_given) {
        if ((unsigned long long)w.i0 + w.nx > req->width)
            w.nx = (size_t)(req->width - (unsigned long long)w.i0);
        if ((unsigned long long)w.j0 + w.ny > req->height)
            w.ny = (size_t)(req->height - (unsigned long long)w.j0);
    }
    return w;
}

/* The tile must lie in the world and its lattice indices stay exact. */
static int check_tile(render_request *req, const char *size_text)
{
    const char *cmd = "render";
    unsigned long long n = req->tile_size;
    if (n * n > TF_MAX_IMAGE_PIXELS)
        return cli_fail(cmd, "--tile-size %llu: %llu pixels a tile, more than %zu "
                             "(TF_MAX_IMAGE_PIXELS)",
                        n, n * n, TF_MAX_IMAGE_PIXELS);
    if (req->tile_x * n >= MAX_WORLD_SIDE || req->tile_y * n >= MAX_WORLD_SIDE)
        return cli_fail(cmd, "--tile %llu,%llu of size %llu starts beyond 2^40 pixels",
                        req->tile_x, req->tile_y, n);
    if (size_text) {
        if (req->width < 1 || req->height < 1 || req->width > MAX_WORLD_SIDE ||
            req->height > MAX_WORLD_SIDE)
            return cli_fail(cmd, "--size %s: a tiled world's sides must be 1 to 2^40", size_text);
        if (req->tile_x * n >= req->width || req->tile_y * n >= req->height)
            return cli_fail(cmd,
                            "--tile %llu,%llu is outside the %llux%llu world (tiles of %llu: "
                            "X < %llu, Y < %llu)",
                            req->tile_x, req->tile_y, req->width, req->height, n,
                            (req->width + n - 1) / n, (req->height + n - 1) / n);
    }
    return CLI_EXIT_OK;
}

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
        switch (id) {
        case CLI_ARGS_ERROR:
            return CLI_EXIT_USAGE;
        case CLI_ARGS_POSITIONAL:
            if (cli_option_spec(cmd, v, &req->spec_path) != CLI_EXIT_OK)
                return CLI_EXIT_USAGE;
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
            if (cli_option_origin(cmd, v, &req->origin_x, &req->origin_y) != CLI_EXIT_OK)
                return CLI_EXIT_USAGE;
            break;
        case OPT_STEP:
            if (cli_option_step(cmd, v, &req->step) != CLI_EXIT_OK)
                return CLI_EXIT_USAGE;
            break;
        case OPT_FORMAT:
            if (tf_heightmap_format_from_name(v, &req->format) != 0)
                return cli_usage_error(cmd, "invalid --format '%s': expected %s", v, FORMAT_NAMES);
            req->format_given = true;
            break;
        case OPT_THREADS:
            if (cli_option_threads(cmd, v, &req->threads) != CLI_EXIT_OK)
                return CLI_EXIT_USAGE;
            break;
        case OPT_PREVIEW:
            req->preview_path = v;
            break;
        case OPT_QUIET:
            req->quiet = true;
            break;
        case OPT_NORMALIZE:
            if (tf_normalize_from_name(v, &req->normalize) != 0)
                return cli_usage_error(cmd, "invalid --normalize '%s': expected spec, minmax or none",
                                       v);
            break;
        case OPT_HEIGHT_SCALE:
            if (!cli_parse_double(v, &req->height_scale) || !(req->height_scale > 0.0))
                return cli_usage_error(cmd, "invalid --height-scale '%s': expected a number > 0",
                                       v);
            req->height_scale_given = true;
            break;
        case OPT_TILE:
            if (!cli_parse_count_pair(v, ',', &req->tile_x, &req->tile_y, &too_big) || too_big ||
                req->tile_x >= MAX_WORLD_SIDE || req->tile_y >= MAX_WORLD_SIDE)
                return cli_usage_error(cmd,
                                       "invalid --tile '%s': expected X,Y, two tile indices >= 0",
                                       v);
            req->tiled = true;
            break;
        case OPT_TILE_SIZE:
            if (!cli_parse_count(v, &req->tile_size, &too_big) || too_big ||
                req->tile_size < 1 || req->tile_size > TF_MAX_IMAGE_SIDE)
                return cli_usage_error(cmd, "invalid --tile-size '%s': expected 1 to %u", v,
                                       TF_MAX_IMAGE_SIDE);
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
    if (!req->format_given && tf_heightmap_format_from_path(req->output_path, &req->format) != 0)
        req->format = TF_HEIGHTMAP_PNG16;
    const char *format_name = tf_heightmap_format_name(req->format);
    if (!tf_heightmap_format_is_float(req->format)) {
        if (req->normalize == TF_NORMALIZE_NONE)
            return cli_usage_error(cmd,
                                   "--normalize none keeps raw heights, which only the float "
                                   "formats f32, pfm and asc store; %s needs spec or minmax",
                                   format_name);
        if (req->height_scale_given)
            return cli_usage_error(cmd,
                                   "--height-scale applies to the float formats f32, pfm and "
                                   "asc; %s spans its full integer range",
                                   format_name);
    }
    if (req->tiled != (req->tile_size != 0))
        return cli_usage_error(cmd, req->tiled ? "--tile needs --tile-size N"
                                               : "--tile-size needs --tile X,Y");
    if (req->tiled) {
        if (req->normalize == TF_NORMALIZE_MINMAX)
            return cli_usage_error(cmd, "--normalize minmax would give each tile its own scale; "
                                        "tiles take spec or none");
        req->size_given = size_text != NULL;
        return check_tile(req, size_text);
    }
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

    tile_window window = {0, 0, (size_t)req->width, (size_t)req->height};
    if (req->tiled)
        window = tile_window_of(req);
    size_t nx = window.nx, ny = window.ny;
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
    bool failed = tf_render_window(terrain, req->origin_x, req->origin_y, req->step, window.i0,
                                   window.j0, nx, ny, req->threads, heights, on_render_progress,
                                   &progress, &err) != 0;
    if (!failed) {
        /* A tile's files are georeferenced at its own first pixel. */
        tf_heightmap_options options = {
            .normalize = req->normalize,
            .lo = lo,
            .hi = hi,
            .height_scale = req->height_scale,
            .origin_x = req->origin_x + (double)window.i0 * req->step,
            .origin_y = req->origin_y + (double)window.j0 * req->step,
            .step = req->step,
        };
        cli_progress_note(&progress, "writing", req->output_path);
        failed = tf_heightmap_write_with(req->output_path, req->format, heights, nx, ny, &options,
                                         &err) != 0;
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
        .normalize = TF_NORMALIZE_SPEC,
        .height_scale = 1.0,
    };
    bool help_printed;
    int status = parse_request(argc, argv, &req, &help_printed);
    if (status != CLI_EXIT_OK || help_printed)
        return status;
    return render(&req);
}
