/*
 * `terrafit render`: sample a spec on a regular grid with every core and
 * write it as a heightmap (and optionally a shaded preview), whole or as one
 * tile of a larger world. The library writes each file atomically, so a
 * failed run leaves no partial output.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "util/util.h" /* tf_clock_seconds */
#include "terrafit/terrafit.h"

#define DEFAULT_SIDE 512
/* Renders smaller than this finish before a bar would be worth reading. */
#define PROGRESS_MIN_PIXELS ((unsigned long long)1 << 20)
/* A tiled world's side may pass TF_MAX_IMAGE_SIDE (only a tile is held in
 * memory); lattice indices must stay exact doubles (below 2^53). */
#define MAX_WORLD_SIDE ((unsigned long long)1 << 40)

static const cli_command RENDER = {
    .name = "render",
    .usage = "SPEC -o OUT [OPTIONS]\n"
             "SPEC -o OUT --tile X,Y --tile-size N [OPTIONS]",
    .about = "Sample SPEC on a grid and write it as a heightmap. Pixel (i, j) is the\n"
             "height at (X + i*S, Y + j*S), row 0 at the top. By default the spec's\n"
             "minValue..maxValue spans the full range of an integer format (clamped)\n"
             "and 0..1 of a float format (not clamped).\n",
    .footer = "r16 is raw little-endian uint16, row-major, no header; pgm16 is binary\n"
              "PGM with maxval 65535. f32 is raw little-endian float32, row-major, with\n"
              "a JSON sidecar OUT.json (size, min, max, origin, step, normalization);\n"
              "pfm is a greyscale Portable Float Map (rows bottom to top, as PFM has\n"
              "them); asc is an ESRI ASCII grid georeferenced with easting = x and\n"
              "northing = -y, so it opens in GDAL/QGIS the way the PNG looks\n"
              "(docs/formats.md). Each file is written under a temporary name and\n"
              "renamed, so it appears complete or not at all. 'terrafit tiles' plans\n"
              "a world as tile renders (docs/scale.md).\n",
};

typedef struct {
    cli_common c;
    const char *preview_path;
    tf_heightmap_format format;
    const char *format_text; /* --format as given, or NULL */
    tf_normalize normalize;
    double height_scale;
    const char *height_scale_text;
    const char *tile_text; /* --tile as given: a tiled render */
    unsigned long long tile_x, tile_y, tile_size;
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
    if (req->c.size_text) {
        if ((unsigned long long)w.i0 + w.nx > req->c.width)
            w.nx = (size_t)(req->c.width - (unsigned long long)w.i0);
        if ((unsigned long long)w.j0 + w.ny > req->c.height)
            w.ny = (size_t)(req->c.height - (unsigned long long)w.j0);
    }
    return w;
}

/* --tile X,Y: two tile indices whose pixels stay exact lattice indices. */
static int parse_tile(const char *command, const cli_option *opt, const char *arg)
{
    render_request *req = opt->value;
    bool too_big;
    if (!cli_parse_count_pair(arg, ',', &req->tile_x, &req->tile_y, &too_big) || too_big ||
        req->tile_x >= MAX_WORLD_SIDE || req->tile_y >= MAX_WORLD_SIDE)
        return cli_usage_error(command, "invalid --tile '%s': expected X,Y, two tile indices >= 0",
                               arg);
    return CLI_EXIT_OK;
}

/* The tile must lie in the world and its lattice indices stay exact. */
static int check_tile(const render_request *req)
{
    const char *cmd = RENDER.name;
    unsigned long long n = req->tile_size;
    if (n * n > TF_MAX_IMAGE_PIXELS)
        return cli_usage_error(cmd, "invalid --tile-size %llu: %llu pixels a tile, more than the "
                                    "%zu an image may have",
                               n, n * n, TF_MAX_IMAGE_PIXELS);
    if (req->tile_x * n >= MAX_WORLD_SIDE || req->tile_y * n >= MAX_WORLD_SIDE)
        return cli_usage_error(cmd, "--tile %llu,%llu of size %llu starts beyond 2^40 pixels",
                               req->tile_x, req->tile_y, n);
    if (req->c.size_text) {
        if (req->c.width < 1 || req->c.height < 1 || req->c.width > MAX_WORLD_SIDE ||
            req->c.height > MAX_WORLD_SIDE)
            return cli_usage_error(cmd, "invalid --size '%s': a tiled world's sides must be 1 "
                                        "to 2^40",
                                   req->c.size_text);
        if (req->tile_x * n >= req->c.width || req->tile_y * n >= req->c.height)
            return cli_usage_error(cmd,
                                   "--tile %llu,%llu is outside the %llux%llu world (tiles of "
                                   "%llu: X < %llu, Y < %llu)",
                                   req->tile_x, req->tile_y, req->c.width, req->c.height, n,
                                   (req->c.width + n - 1) / n, (req->c.height + n - 1) / n);
    }
    return CLI_EXIT_OK;
}

/* The request as a whole, once every option is read. */
static int check_request(render_request *req, int operands, char **argv)
{
    const char *cmd = RENDER.name;
    int status;
    if ((status = cli_common_operands(cmd, &req->c, operands, argv, "SPEC", "a terrain JSON file",
                                      "OUT", "the heightmap file to write")) != CLI_EXIT_OK)
        return status;
    const cli_file outputs[] = {{"-o", req->c.output}, {"--preview", req->preview_path}};
    if ((status = cli_check_files(cmd, &(cli_file){"SPEC", req->c.spec}, 1, outputs, 2)) !=
        CLI_EXIT_OK)
        return status;
    if ((req->preview_path &&
         (status = cli_check_png_name(cmd, "--preview", req->preview_path)) != CLI_EXIT_OK) ||
        (status = cli_heightmap_output_format(cmd, "-o", req->c.output, req->format_text != NULL,
                                              &req->format)) != CLI_EXIT_OK ||
        (status = cli_check_float_options(cmd, req->format, req->normalize,
                                          req->height_scale_text != NULL, "spec or minmax")) !=
            CLI_EXIT_OK)
        return status;
    bool tiled = req->tile_text != NULL;
    if (tiled != (req->tile_size != 0))
        return cli_usage_error(cmd, tiled ? "--tile needs --tile-size N"
                                          : "--tile-size needs --tile X,Y");
    if (tiled) {
        if (req->normalize == TF_NORMALIZE_MINMAX)
            return cli_usage_error(cmd, "--normalize minmax would give each tile its own scale; "
                                        "tiles take spec or none");
        return check_tile(req);
    }
    return req->c.size_text ? cli_common_image_size(cmd, &req->c) : CLI_EXIT_OK;
}

static int render(const render_request *req)
{
    const char *cmd = RENDER.name;
    double started = tf_clock_seconds();
    tf_error err;
    tf_terrain *terrain = tf_terrain_load(req->c.spec, &err);
    if (!terrain)
        return cli_fail_error(cmd, &err);

    tile_window window = {0, 0, (size_t)req->c.width, (size_t)req->c.height};
    if (req->tile_text)
        window = tile_window_of(req);
    size_t nx = window.nx, ny = window.ny;
    /* The limits above keep nx * ny * sizeof(float) within 4 GiB, which
     * still overflows a 32-bit size_t. */
    if ((uint64_t)nx * ny > SIZE_MAX / sizeof(float)) {
        tf_terrain_free(terrain);
        return cli_fail(cmd, "%zux%zu is too large for this system's address space", nx, ny);
    }
    float *heights = malloc(nx * ny * sizeof *heights);
    if (!heights) {
        tf_terrain_free(terrain);
        return cli_fail(cmd, "out of memory for a %zux%zu render (%.1f MiB)", nx, ny,
                        (double)(nx * ny * sizeof *heights) / (1024.0 * 1024.0));
    }

    /* Errors are printed after the bar is erased, never onto it. */
    cli_progress progress;
    cli_progress_start(&progress, cmd,
                       req->c.quiet || (unsigned long long)nx * ny < PROGRESS_MIN_PIXELS);
    double lo = tf_terrain_min_value(terrain), hi = tf_terrain_max_value(terrain);
    bool failed = tf_render_window(terrain, req->c.origin_x, req->c.origin_y, req->c.step,
                                   window.i0, window.j0, nx, ny, (unsigned)req->c.threads, heights,
                                   cli_progress_callback, &progress, &err) != 0;
    if (!failed) {
        /* A tile's files are georeferenced at its own first pixel. */
        tf_heightmap_options options = {
            .normalize = req->normalize,
            .lo = lo,
            .hi = hi,
            .height_scale = req->height_scale,
            .origin_x = req->c.origin_x + (double)window.i0 * req->c.step,
            .origin_y = req->c.origin_y + (double)window.j0 * req->c.step,
            .step = req->c.step,
        };
        cli_progress_note(&progress, "writing", req->c.output);
        failed = tf_heightmap_write_with(req->c.output, req->format, heights, nx, ny, &options,
                                         &err) != 0;
    }
    /* z_scale 0: the library's default relief scale for the value range. */
    if (!failed && req->preview_path) {
        cli_progress_note(&progress, "writing", req->preview_path);
        failed = tf_preview_write(req->preview_path, heights, nx, ny, lo, hi, 0.0, &err) != 0;
    }
    cli_progress_finish(&progress);
    int status = failed ? cli_fail_error(cmd, &err) : CLI_EXIT_OK;
    if (!failed) {
        char tile[64] = "";
        if (req->tile_text)
            snprintf(tile, sizeof tile, ", tile %llu,%llu", req->tile_x, req->tile_y);
        cli_summary(cmd, req->c.quiet, "wrote %s (%s, %zux%zu%s)%s%s in %.2f s", req->c.output,
                    tf_heightmap_format_name(req->format), nx, ny, tile,
                    req->preview_path ? " and " : "", req->preview_path ? req->preview_path : "",
                    tf_clock_seconds() - started);
    }

    free(heights);
    tf_terrain_free(terrain);
    return status;
}

int cmd_render(int argc, char **argv)
{
    render_request req = {
        .format = TF_HEIGHTMAP_PNG16,
        .normalize = TF_NORMALIZE_SPEC,
        .height_scale = 1.0,
    };
    cli_common *c = &req.c;
    cli_common_init(c, DEFAULT_SIDE, DEFAULT_SIDE);
    const cli_option options[] = {
        CLI_OPT_OUTPUT(c, "OUT", "heightmap file to write (required)"),
        CLI_OPT_SIZE(c, cli_textf("pixels across and down (default %dx%d;\neach side at most %u, "
                                  "at most %zu pixels);\nwith --tile: the whole world's size "
                                  "(optional)",
                                  DEFAULT_SIDE, DEFAULT_SIDE, TF_MAX_IMAGE_SIDE,
                                  TF_MAX_IMAGE_PIXELS)),
        CLI_OPT_ORIGIN(c, "world point of pixel (0, 0) (default 0,0)"),
        CLI_OPT_STEP(c, "world units between pixels, > 0 (default 1)"),
        CLI_OPT_HEIGHTMAP_FORMAT(&req.format, &req.format_text, "OUT"),
        CLI_OPT_CALLBACK(0, "normalize", &req.normalize, "MODE", cli_parse_normalize,
                         "spec (default): minValue..maxValue -> 0..1;\n"
                         "minmax: this render's own min..max -> 0..1;\n"
                         "none: the heights themselves (float formats only)"),
        CLI_OPT_NUMBER(0, "height-scale", &req.height_scale, "K", 0.0, INFINITY, CLI_ABOVE_MIN,
                       "float formats: multiply each stored value by K > 0 (e.g. metres of "
                       "relief for normalized heights)",
                       .seen = &req.height_scale_text),
        CLI_OPT_CALLBACK(0, "tile", &req, "X,Y", parse_tile,
                         "write only tile (X, Y) of the world: columns X*N .. X*N+N-1 and rows "
                         "Y*N .. Y*N+N-1 of the render with the same --origin and --step, bit "
                         "for bit (clipped to --size when given)",
                         .seen = &req.tile_text),
        CLI_OPT_COUNT(0, "tile-size", &req.tile_size, "N", 1, TF_MAX_IMAGE_SIDE,
                      "the tiles' side N (required with --tile)"),
        CLI_OPT_THREADS(c, "render threads (default 0: one per core)"),
        CLI_OPT_STRING('p', "preview", &req.preview_path, "FILE",
                       "also write a shaded-relief RGB PNG preview"),
        CLI_OPT_QUIET(c, "no progress bar, no summary"),
        CLI_OPT_END(),
    };
    int operands = cli_parse(&RENDER, options, argc, argv);
    if (operands < 0)
        return cli_parse_status(operands);
    int status = check_request(&req, operands, argv);
    return status != CLI_EXIT_OK ? status : render(&req);
}
