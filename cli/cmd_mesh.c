/*
 * `terrafit mesh`: one tile of a spec as a triangle mesh (OBJ or glTF 2.0
 * binary) with normals from a one-sample border (thesis 5.5), so tiles of
 * one world join without seams in any engine or DCC tool.
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "terrafit/terrafit.h"

#define DEFAULT_SIDE 129

static const cli_command MESH = {
    .name = "mesh",
    .usage = "SPEC -o OUT.obj|OUT.glb [OPTIONS]",
    .about = "Write one tile of SPEC as a triangle grid of N x N vertices ((N-1)^2 cells,\n"
             "two triangles each), y up: vertex (i, j) of tile (TX, TY) is at\n"
             "  x = X + I*S,  y = H * h(x, z),  z = Y + J*S,\n"
             "  I = TX*(N-1) + i,  J = TY*(N-1) + j,\n"
             "so neighbouring tiles share their edge vertices. Normals come from an\n"
             "(N+2) x (N+2) sample window (thesis 5.5) and agree along shared edges.\n",
    .footer = "Triangles wind counter-clockwise seen from above. The file is written\n"
              "atomically. Details: docs/mesh.md.\n",
};

typedef struct {
    cli_common c;
    unsigned long long n;
    int64_t tile_x, tile_y;
    double height_scale;
    tf_mesh_format format;
    const char *format_text; /* --format as given, or NULL */
} mesh_request;

/* --tile TX,TY: two integers, optionally negative, within the library's
 * tile range. */
static int parse_tile(const char *command, const cli_option *opt, const char *arg)
{
    mesh_request *req = opt->value;
    double x, y;
    bool integers = cli_parse_double_pair(arg, ',', &x, &y);
    for (const char *p = arg; *p && integers; p++)
        integers = !strchr(".eExXpP", *p); /* no fractions, exponents or hex */
    if (!integers || x != trunc(x) || y != trunc(y))
        return cli_usage_error(command, "invalid --tile '%s': expected TX,TY (integers)", arg);
    /* Checked before the conversion: a double beyond int64_t's range has
     * no int64_t value (C11 6.3.1.4). */
    if (fabs(x) > (double)TF_MESH_MAX_TILE || fabs(y) > (double)TF_MESH_MAX_TILE)
        return cli_usage_error(command, "invalid --tile '%s': each index must be within +-%lld",
                               arg, (long long)TF_MESH_MAX_TILE);
    req->tile_x = (int64_t)x;
    req->tile_y = (int64_t)y;
    return CLI_EXIT_OK;
}

static int parse_format(const char *command, const cli_option *opt, const char *arg)
{
    if (tf_mesh_format_from_name(arg, opt->value) != 0)
        return cli_usage_error(command, "invalid --format '%s': expected obj or glb", arg);
    return CLI_EXIT_OK;
}

int cmd_mesh(int argc, char **argv)
{
    const char *cmd = MESH.name;
    mesh_request req = {.n = DEFAULT_SIDE, .height_scale = 1.0};
    cli_common *c = &req.c;
    cli_common_init(c, 0, 0);
    const cli_option options[] = {
        CLI_OPT_OUTPUT(c, "OUT", ".obj (Wavefront, v/vn/f) or .glb (glTF 2.0 binary)"),
        CLI_OPT_COUNT('s', "size", &req.n, "N", 2, TF_MESH_MAX_SIDE,
                      cli_textf("vertices per side, 2 to %u (default %d)", TF_MESH_MAX_SIDE,
                                DEFAULT_SIDE)),
        CLI_OPT_ORIGIN(c, "world point of tile (0, 0)'s first vertex (default 0,0); the same "
                          "for every tile of a world"),
        CLI_OPT_STEP(c, "world units between vertices, > 0 (default 1)"),
        CLI_OPT_CALLBACK(0, "tile", &req, "TX,TY", parse_tile,
                         "which tile, integers (default 0,0)"),
        CLI_OPT_NUMBER(0, "height-scale", &req.height_scale, "H", -INFINITY, INFINITY, 0,
                       "y = H * the spec's raw height (default 1; e.g. 100 for a spec of range "
                       "-0.8..0.8 fitted to 1-pixel units)"),
        CLI_OPT_CALLBACK('f', "format", &req.format, "FORMAT", parse_format,
                         "obj or glb (default: from OUT's extension)", .seen = &req.format_text),
        CLI_OPT_QUIET(c, "accepted for symmetry; nothing is drawn"),
        CLI_OPT_END(),
    };
    int operands = cli_parse(&MESH, options, argc, argv);
    if (operands < 0)
        return cli_parse_status(operands);
    int status;
    if ((status = cli_common_operands(cmd, c, operands, argv, "SPEC", "a terrain JSON file", "OUT",
                                      "the .obj or .glb file to write")) != CLI_EXIT_OK ||
        (status = cli_check_files(cmd, &(cli_file){"SPEC", c->spec}, 1,
                                  &(cli_file){"-o", c->output}, 1)) != CLI_EXIT_OK)
        return status;
    if (!req.format_text && tf_mesh_format_from_path(c->output, &req.format) != 0)
        return cli_usage_error(cmd, "cannot tell the format of '%s': name it .obj or .glb, or "
                                    "give --format",
                               c->output);

    tf_error err;
    tf_terrain *terrain = tf_terrain_load(c->spec, &err);
    if (!terrain)
        return cli_fail_error(cmd, &err);
    tf_mesh *mesh = tf_mesh_build(terrain, c->origin_x, c->origin_y, c->step, (size_t)req.n,
                                  req.tile_x, req.tile_y, req.height_scale, &err);
    tf_terrain_free(terrain);
    if (!mesh || tf_mesh_write(c->output, req.format, mesh, &err) != 0)
        status = cli_fail_error(cmd, &err);
    tf_mesh_free(mesh);
    return status;
}
