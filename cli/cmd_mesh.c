/*
 * `terrafit mesh`: one tile of a spec as a triangle mesh (OBJ or glTF 2.0
 * binary) with normals from a one-sample border (thesis 5.5), so tiles of
 * one world join without seams in any engine or DCC tool.
 */
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "terrafit/terrafit.h"

#define DEFAULT_SIDE 129

enum {
    OPT_HELP,
    OPT_OUTPUT,
    OPT_SIZE,
    OPT_ORIGIN,
    OPT_STEP,
    OPT_TILE,
    OPT_HEIGHT_SCALE,
    OPT_FORMAT,
    OPT_QUIET
};

static const cli_option OPTIONS[] = {
    {"help", 'h', false, OPT_HELP},
    {"output", 'o', true, OPT_OUTPUT},
    {"size", 's', true, OPT_SIZE},
    {"origin", 0, true, OPT_ORIGIN},
    {"step", 0, true, OPT_STEP},
    {"tile", 0, true, OPT_TILE},
    {"height-scale", 0, true, OPT_HEIGHT_SCALE},
    {"format", 'f', true, OPT_FORMAT},
    {"quiet", 'q', false, OPT_QUIET},
    {NULL, 0, false, 0},
};

static void print_usage(void)
{
    printf("Usage: terrafit mesh SPEC -o OUT.obj|OUT.glb [OPTIONS]\n"
           "Write one tile of SPEC as a triangle grid of N x N vertices ((N-1)^2 cells,\n"
           "two triangles each), y up: vertex (i, j) of tile (TX, TY) is at\n"
           "  x = X + I*S,  y = H * h(x, z),  z = Y + J*S,\n"
           "  I = TX*(N-1) + i,  J = TY*(N-1) + j,\n"
           "so neighbouring tiles share their edge vertices. Normals come from an\n"
           "(N+2) x (N+2) sample window (thesis 5.5) and agree along shared edges.\n"
           "\n"
           "Options:\n"
           "  -o, --output OUT       .obj (Wavefront, v/vn/f) or .glb (glTF 2.0 binary)\n"
           "  -s, --size N           vertices per side, 2 to %u (default %d)\n"
           "      --origin X,Y       world point of tile (0, 0)'s first vertex\n"
           "                         (default 0,0); the same for every tile of a world\n"
           "      --step S           world units between vertices, > 0 (default 1)\n"
           "      --tile TX,TY       which tile, integers (default 0,0)\n"
           "      --height-scale H   y = H * the spec's raw height (default 1; e.g. 100\n"
           "                         for a spec of range -0.8..0.8 fitted to 1-pixel units)\n"
           "  -f, --format FORMAT    obj or glb (default: from OUT's extension)\n"
           "  -q, --quiet            accepted for symmetry; nothing is drawn\n"
           "  -h, --help             print this help and exit\n"
           "\n"
           "Triangles wind counter-clockwise seen from above. The file is written\n"
           "atomically. Details: docs/mesh.md.\n",
           TF_MESH_MAX_SIDE, DEFAULT_SIDE);
}

typedef struct {
    const char *spec_path;
    const char *output_path;
    unsigned long long n;
    const char *size_text;
    double origin_x, origin_y, step;
    int64_t tile_x, tile_y;
    double height_scale;
    bool format_given;
    tf_mesh_format format;
} mesh_request;

/* "TX,TY": two integers, optionally negative. */
static bool parse_tile(const char *text, int64_t *tx, int64_t *ty)
{
    double x, y;
    if (!cli_parse_double_pair(text, ',', &x, &y))
        return false;
    for (const char *p = text; *p; p++)
        if (*p == '.' || *p == 'e' || *p == 'E' || *p == 'x' || *p == 'X' || *p == 'p' ||
            *p == 'P')
            return false; /* integers only: no fractions, exponents or hex */
    if (x != (double)(int64_t)x || y != (double)(int64_t)y)
        return false;
    *tx = (int64_t)x;
    *ty = (int64_t)y;
    return true;
}

static int parse_request(int argc, char **argv, mesh_request *req, bool *help_printed)
{
    const char *cmd = "mesh";
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
            if (!cli_parse_count(v, &req->n, &too_big))
                return cli_usage_error(cmd, "invalid --size '%s': expected N, e.g. 129", v);
            if (too_big)
                req->n = ULLONG_MAX;
            req->size_text = v;
            break;
        case OPT_ORIGIN:
            if (cli_option_origin(cmd, v, &req->origin_x, &req->origin_y) != CLI_EXIT_OK)
                return CLI_EXIT_USAGE;
            break;
        case OPT_STEP:
            if (cli_option_step(cmd, v, &req->step) != CLI_EXIT_OK)
                return CLI_EXIT_USAGE;
            break;
        case OPT_TILE:
            if (!parse_tile(v, &req->tile_x, &req->tile_y))
                return cli_usage_error(cmd, "invalid --tile '%s': expected TX,TY (integers)", v);
            break;
        case OPT_HEIGHT_SCALE:
            if (!cli_parse_double(v, &req->height_scale))
                return cli_usage_error(cmd, "invalid --height-scale '%s': expected a number", v);
            break;
        case OPT_FORMAT:
            if (tf_mesh_format_from_name(v, &req->format) != 0)
                return cli_usage_error(cmd, "invalid --format '%s': expected obj or glb", v);
            req->format_given = true;
            break;
        case OPT_QUIET:
            break;
        default:
            return cli_usage_error(cmd, "internal error: unhandled option %d", id);
        }
    }
    if (!req->spec_path)
        return cli_usage_error(cmd, "missing SPEC (a terrain JSON file)");
    if (!req->output_path)
        return cli_usage_error(cmd, "missing -o OUT (the .obj or .glb file to write)");
    if (!req->format_given && tf_mesh_format_from_path(req->output_path, &req->format) != 0)
        return cli_usage_error(cmd, "cannot tell the format of '%s': name it .obj or .glb, or "
                                    "give --format",
                               req->output_path);
    if (req->n < 2 || req->n > TF_MESH_MAX_SIDE)
        return cli_fail(cmd, "--size %s: N must be 2 to %u (TF_MESH_MAX_SIDE)",
                        req->size_text ? req->size_text : "?", TF_MESH_MAX_SIDE);
    if (req->tile_x > TF_MESH_MAX_TILE || req->tile_x < -TF_MESH_MAX_TILE ||
        req->tile_y > TF_MESH_MAX_TILE || req->tile_y < -TF_MESH_MAX_TILE)
        return cli_fail(cmd, "--tile: each index must be within +-%lld (TF_MESH_MAX_TILE)",
                        (long long)TF_MESH_MAX_TILE);
    return CLI_EXIT_OK;
}

int cmd_mesh(int argc, char **argv)
{
    mesh_request req;
    memset(&req, 0, sizeof req);
    req.n = DEFAULT_SIDE;
    req.step = 1.0;
    req.height_scale = 1.0;
    bool help_printed;
    int status = parse_request(argc, argv, &req, &help_printed);
    if (status != CLI_EXIT_OK || help_printed)
        return status;

    tf_error err;
    tf_terrain *terrain = tf_terrain_load(req.spec_path, &err);
    if (!terrain)
        return cli_fail_error(&err);
    tf_mesh *mesh = tf_mesh_build(terrain, req.origin_x, req.origin_y, req.step, (size_t)req.n,
                                  req.tile_x, req.tile_y, req.height_scale, &err);
    tf_terrain_free(terrain);
    if (!mesh || tf_mesh_write(req.output_path, req.format, mesh, &err) != 0)
        status = cli_fail_error(&err);
    tf_mesh_free(mesh);
    return status;
}
