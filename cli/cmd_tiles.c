/*
 * `terrafit tiles`: plan a world too large for one process as independent
 * `terrafit render --tile` commands (one a line, for GNU parallel, xargs -P
 * or a batch array job) and a GDAL VRT mosaic of the tile files.
 */
#define _POSIX_C_SOURCE 200809L /* getcwd */

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "terrafit/terrafit.h"

/* As `terrafit render --tile`: lattice indices stay exact doubles. */
#define MAX_WORLD_SIDE ((unsigned long long)1 << 40)

static const cli_command TILES = {
    .name = "tiles",
    .usage = "SPEC --world WxH --tile-size N --list [OPTIONS]\n"
             "SPEC --world WxH --tile-size N --vrt OUT.vrt [OPTIONS]",
    .about = "Split a W x H render of SPEC into tiles of N x N (the last row and column\n"
             "clipped to the world) and print one 'terrafit render --tile' command per\n"
             "tile, row by row, and/or write a GDAL VRT mosaic of the tile files. Each\n"
             "tile holds exactly its pixels of the whole render, so the tiles can be\n"
             "rendered anywhere, in any order, e.g.\n"
             "  terrafit tiles w.json --world 65536x65536 --tile-size 4096 --list | parallel\n",
    .footer = "The VRT places each tile by pixel offset and georeferences the mosaic as\n"
              "the asc format does (easting x, northing -y); its Offset and Scale turn\n"
              "stored samples back into heights. docs/scale.md.\n",
};

typedef struct {
    cli_common c; /* -o is the tile name pattern */
    unsigned long long world_w, world_h, tile_size;
    bool list;
    const char *vrt_path;
    const char *pattern; /* -o, or the default for the format */
    const char *height_scale_text;
    double height_scale;
    const char *format_text; /* --format as given, or NULL */
    tf_heightmap_format format;
    tf_normalize normalize;
    const char *program;
} tiles_request;

/* A '{x}' or '{y}' in the pattern. */
static bool pattern_has(const char *pattern, char axis)
{
    char key[4] = {'{', axis, '}', '\0'};
    return strstr(pattern, key) != NULL;
}

/* --world WxH: each side 1 to 2^40, as `render --tile` takes it. */
static int parse_world(const char *command, const cli_option *opt, const char *arg)
{
    tiles_request *req = opt->value;
    bool too_big;
    if (!cli_parse_count_pair(arg, 'x', &req->world_w, &req->world_h, &too_big) || too_big ||
        req->world_w < 1 || req->world_h < 1 || req->world_w > MAX_WORLD_SIDE ||
        req->world_h > MAX_WORLD_SIDE)
        return cli_usage_error(command, "invalid --world '%s': expected WxH, each side 1 to 2^40",
                               arg);
    return CLI_EXIT_OK;
}

static int parse_program(const char *command, const cli_option *opt, const char *arg)
{
    if (!*arg)
        return cli_usage_error(command, "--terrafit needs a program name");
    *(const char **)opt->value = arg;
    return CLI_EXIT_OK;
}

/* The request as a whole, once every option is read. */
static int check_request(tiles_request *req, int operands, char **argv)
{
    const char *cmd = TILES.name;
    int status = cli_common_operands(cmd, &req->c, operands, argv, "SPEC", "a terrain JSON file",
                                     NULL, NULL);
    if (status != CLI_EXIT_OK)
        return status;
    if (!req->world_w)
        return cli_usage_error(cmd, "missing --world WxH (the whole render's size)");
    if (!req->tile_size)
        return cli_usage_error(cmd, "missing --tile-size N");
    if (req->tile_size * req->tile_size > TF_MAX_IMAGE_PIXELS)
        return cli_usage_error(cmd, "invalid --tile-size '%llu': %llu pixels a tile, more than "
                                    "the %zu an image may have",
                               req->tile_size, req->tile_size * req->tile_size,
                               TF_MAX_IMAGE_PIXELS);
    if (!req->list && !req->vrt_path)
        return cli_usage_error(cmd, "nothing to do: give --list, --vrt OUT.vrt or both");
    /* The tiles themselves are written by the render commands printed,
     * each of which checks its own output. */
    if ((status = cli_check_files(cmd, &(cli_file){"SPEC", req->c.spec}, 1,
                                  &(cli_file){"--vrt", req->vrt_path}, 1)) != CLI_EXIT_OK)
        return status;
    if (req->normalize == TF_NORMALIZE_MINMAX)
        return cli_usage_error(cmd, "--normalize minmax would give each tile its own scale; "
                                    "tiles take spec or none");
    req->pattern = req->c.output;
    if ((req->pattern && (status = cli_heightmap_output_format(
                              cmd, "-o", req->pattern, req->format_text != NULL, &req->format)) !=
                             CLI_EXIT_OK) ||
        (status = cli_check_float_options(cmd, req->format, req->normalize,
                                          req->height_scale_text != NULL, "spec")) !=
            CLI_EXIT_OK)
        return status;
    const char *name = tf_heightmap_format_name(req->format);
    if (req->vrt_path && req->format != TF_HEIGHTMAP_PNG16 && req->format != TF_HEIGHTMAP_PNG8 &&
        req->format != TF_HEIGHTMAP_PGM16 && req->format != TF_HEIGHTMAP_ASC)
        return cli_usage_error(cmd,
                               "--vrt needs tiles GDAL opens by themselves: png16, png8, pgm16 "
                               "or asc, not %s (headerless raw or PFM)",
                               name);
    if (!req->pattern) {
        static char default_pattern[32];
        snprintf(default_pattern, sizeof default_pattern, "tile_{x}_{y}.%s",
                 tf_heightmap_format_extension(req->format));
        req->pattern = default_pattern;
    }
    unsigned long long columns = (req->world_w + req->tile_size - 1) / req->tile_size;
    unsigned long long rows = (req->world_h + req->tile_size - 1) / req->tile_size;
    if ((columns > 1 && !pattern_has(req->pattern, 'x')) ||
        (rows > 1 && !pattern_has(req->pattern, 'y')))
        return cli_usage_error(cmd,
                               "-o '%s' would give several tiles one name: put {x} and {y} in "
                               "it (%llu x %llu tiles)",
                               req->pattern, columns, rows);
    return CLI_EXIT_OK;
}

/* ---- output helpers */

/* The pattern with {x} and {y} replaced; malloc'ed, NULL when out of memory. */
static char *tile_name(const char *pattern, unsigned long long x, unsigned long long y)
{
    size_t size = strlen(pattern) + 1;
    for (const char *p = pattern; (p = strchr(p, '{')) != NULL; p++)
        size += 20; /* a 64-bit number in place of three characters, at most */
    char *out = malloc(size);
    if (!out)
        return NULL;
    char *o = out;
    for (const char *p = pattern; *p;) {
        if (p[0] == '{' && (p[1] == 'x' || p[1] == 'y') && p[2] == '}') {
            o += sprintf(o, "%llu", p[1] == 'x' ? x : y);
            p += 3;
        } else {
            *o++ = *p++;
        }
    }
    *o = '\0';
    return out;
}

/* One shell word: as is when it holds only characters no POSIX shell treats
 * specially, else in single quotes (a quote inside becomes '\''). */
static void put_shell_word(const char *word, FILE *out)
{
    bool plain = *word != '\0';
    for (const char *p = word; *p && plain; p++)
        plain = strchr("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"
                       "_-+=./,:@%",
                       *p) != NULL;
    if (plain) {
        fputs(word, out);
        return;
    }
    putc('\'', out);
    for (const char *p = word; *p; p++) {
        if (*p == '\'')
            fputs("'\\''", out);
        else
            putc(*p, out);
    }
    putc('\'', out);
}

static void put_words(FILE *out, int count, const char *const *words)
{
    for (int k = 0; k < count; k++) {
        putc(' ', out);
        put_shell_word(words[k], out);
    }
}

static int print_commands(const tiles_request *req, unsigned long long columns,
                          unsigned long long rows)
{
    char world[48], tile_size[24], tile[48];
    snprintf(world, sizeof world, "%llux%llu", req->world_w, req->world_h);
    snprintf(tile_size, sizeof tile_size, "%llu", req->tile_size);
    for (unsigned long long y = 0; y < rows; y++) {
        for (unsigned long long x = 0; x < columns; x++) {
            char *name = tile_name(req->pattern, x, y);
            if (!name)
                return cli_fail(TILES.name, "out of memory");
            snprintf(tile, sizeof tile, "%llu,%llu", x, y);
            put_shell_word(req->program, stdout);
            const char *const head[] = {"render", req->c.spec, "-o", name, "--tile", tile,
                                        "--tile-size", tile_size, "--size", world};
            put_words(stdout, 10, head);
            free(name);
            if (req->c.origin_text)
                put_words(stdout, 2, (const char *const[]){"--origin", req->c.origin_text});
            if (req->c.step_text)
                put_words(stdout, 2, (const char *const[]){"--step", req->c.step_text});
            put_words(stdout, 4,
                      (const char *const[]){"--format", tf_heightmap_format_name(req->format),
                                            "--normalize", tf_normalize_name(req->normalize)});
            if (req->height_scale_text)
                put_words(stdout, 2,
                          (const char *const[]){"--height-scale", req->height_scale_text});
            put_words(stdout, 3,
                      (const char *const[]){"--threads",
                                            req->c.threads_text ? req->c.threads_text : "1",
                                            "--quiet"});
            putc('\n', stdout);
        }
    }
    return CLI_EXIT_OK;
}

/* ---- the VRT mosaic */

static void put_xml_text(const char *text, FILE *out)
{
    for (const char *p = text; *p; p++) {
        switch (*p) {
        case '&':
            fputs("&amp;", out);
            break;
        case '<':
            fputs("&lt;", out);
            break;
        case '>':
            fputs("&gt;", out);
            break;
        case '"':
            fputs("&quot;", out);
            break;
        default:
            putc(*p, out);
        }
    }
}

/* The VRT's numbers read back as the doubles the renders use. */
static void put_number(FILE *out, double v)
{
    char text[CLI_NUMBER_SIZE];
    fputs(cli_exact_number(v, text), out);
}

/* Where the VRT finds the tiles: a relative pattern is relative to where the
 * renders run (here), so it stays relative only when the VRT is written
 * here too; otherwise the tiles are named by absolute path. */
static int tile_prefix(const tiles_request *req, char **prefix, bool *relative)
{
    *prefix = NULL;
    *relative = false;
    if (req->pattern[0] == '/')
        return 0;
    if (!strchr(req->vrt_path, '/')) {
        *relative = true;
        return 0;
    }
    size_t size = 256;
    for (;;) {
        char *buf = malloc(size + 1);
        if (!buf)
            return -1;
        if (getcwd(buf, size)) {
            strcat(buf, "/");
            *prefix = buf;
            return 0;
        }
        free(buf);
        if (errno != ERANGE || size > ((size_t)1 << 20))
            return -1;
        size *= 2;
    }
}

/* lo, hi: the spec's minValue and maxValue. */
static int write_vrt(const tiles_request *req, unsigned long long columns,
                     unsigned long long rows, double lo, double hi)
{
    const char *cmd = TILES.name;
    tf_error err;

    /* Stored sample -> height: integer tiles hold q = v * maxval with
     * v = (h - lo) / (hi - lo); asc tiles hold v * K, or h * K for none. */
    const char *type = "Float32";
    double scale = 1.0, offset = 0.0;
    switch (req->format) {
    case TF_HEIGHTMAP_PNG8:
        type = "Byte";
        scale = (hi - lo) / 255.0;
        offset = lo;
        break;
    case TF_HEIGHTMAP_PNG16:
    case TF_HEIGHTMAP_PGM16:
        type = "UInt16";
        scale = (hi - lo) / 65535.0;
        offset = lo;
        break;
    default:
        scale = (req->normalize == TF_NORMALIZE_NONE ? 1.0 : hi - lo) / req->height_scale;
        offset = req->normalize == TF_NORMALIZE_NONE ? 0.0 : lo;
        break;
    }

    char *prefix;
    bool relative;
    if (tile_prefix(req, &prefix, &relative) != 0)
        return cli_fail(cmd, "%s: cannot find the current directory for the tile paths",
                        req->vrt_path);
    tf_atomic_file *file = tf_atomic_open(req->vrt_path, &err);
    if (!file) {
        free(prefix);
        return cli_fail_error(TILES.name, &err);
    }
    FILE *out = tf_atomic_stream(file);
    const unsigned long long n = req->tile_size;
    /* GDAL's geotransform: the top-left corner of pixel (0, 0), which is
     * centred on the world point origin; northing = -y (docs/formats.md). */
    fprintf(out, "<VRTDataset rasterXSize=\"%llu\" rasterYSize=\"%llu\">\n", req->world_w,
            req->world_h);
    fputs("  <GeoTransform>", out);
    put_number(out, req->c.origin_x - 0.5 * req->c.step);
    fputs(", ", out);
    put_number(out, req->c.step);
    fputs(", 0, ", out);
    put_number(out, -req->c.origin_y + 0.5 * req->c.step);
    fputs(", 0, ", out);
    put_number(out, -req->c.step);
    fputs("</GeoTransform>\n", out);
    fprintf(out, "  <VRTRasterBand dataType=\"%s\" band=\"1\">\n", type);
    fputs("    <ColorInterp>Gray</ColorInterp>\n    <Offset>", out);
    put_number(out, offset);
    fputs("</Offset>\n    <Scale>", out);
    put_number(out, scale);
    fputs("</Scale>\n", out);
    int status = CLI_EXIT_OK;
    for (unsigned long long y = 0; y < rows && status == CLI_EXIT_OK; y++) {
        for (unsigned long long x = 0; x < columns; x++) {
            char *name = tile_name(req->pattern, x, y);
            if (!name) {
                status = cli_fail(cmd, "out of memory");
                break;
            }
            unsigned long long w = req->world_w - x * n < n ? req->world_w - x * n : n;
            unsigned long long h = req->world_h - y * n < n ? req->world_h - y * n : n;
            fprintf(out,
                    "    <SimpleSource>\n"
                    "      <SourceFilename relativeToVRT=\"%d\">",
                    relative ? 1 : 0);
            if (prefix)
                put_xml_text(prefix, out);
            put_xml_text(name, out);
            free(name);
            fprintf(out,
                    "</SourceFilename>\n"
                    "      <SourceBand>1</SourceBand>\n"
                    "      <SourceProperties RasterXSize=\"%llu\" RasterYSize=\"%llu\" "
                    "DataType=\"%s\" BlockXSize=\"%llu\" BlockYSize=\"1\"/>\n"
                    "      <SrcRect xOff=\"0\" yOff=\"0\" xSize=\"%llu\" ySize=\"%llu\"/>\n"
                    "      <DstRect xOff=\"%llu\" yOff=\"%llu\" xSize=\"%llu\" ySize=\"%llu\"/>\n"
                    "    </SimpleSource>\n",
                    w, h, type, w, w, h, x * n, y * n, w, h);
        }
    }
    fputs("  </VRTRasterBand>\n</VRTDataset>\n", out);
    free(prefix);
    if (status != CLI_EXIT_OK) {
        tf_atomic_abort(file);
        return status;
    }
    return tf_atomic_commit(file, &err) == 0 ? CLI_EXIT_OK : cli_fail_error(TILES.name, &err);
}

int cmd_tiles(int argc, char **argv)
{
    const char *cmd = TILES.name;
    tiles_request req = {
        .height_scale = 1.0,
        .format = TF_HEIGHTMAP_PNG16,
        .normalize = TF_NORMALIZE_SPEC,
        .program = "terrafit",
    };
    cli_common *c = &req.c;
    cli_common_init(c, 0, 0);
    const cli_option options[] = {
        CLI_OPT_CALLBACK(0, "world", &req, "WxH", parse_world,
                         "the whole render's size in pixels (required)"),
        CLI_OPT_COUNT(0, "tile-size", &req.tile_size, "N", 1, TF_MAX_IMAGE_SIDE,
                      "the tiles' side in pixels (required)"),
        CLI_OPT_FLAG(0, "list", &req.list, "print the render commands on stdout"),
        CLI_OPT_STRING(0, "vrt", &req.vrt_path, "OUT.vrt",
                       "write a GDAL VRT mosaic of the tiles (png16, png8, pgm16 or asc tiles)"),
        CLI_OPT_OUTPUT(c, "PATTERN",
                       "tile file names; {x} and {y} become the tile's column and row (default "
                       "tile_{x}_{y}.EXT)"),
        CLI_OPT_HEIGHTMAP_FORMAT(&req.format, &req.format_text, "PATTERN"),
        CLI_OPT_ORIGIN(c, "passed to each render (world point of pixel 0,0)"),
        CLI_OPT_STEP(c, "passed to each render"),
        CLI_OPT_CALLBACK(0, "normalize", &req.normalize, "MODE", cli_parse_normalize,
                         "spec (default) or none: every tile shares one scale (minmax would "
                         "not, and is refused)"),
        CLI_OPT_NUMBER(0, "height-scale", &req.height_scale, "K", 0.0, INFINITY, CLI_ABOVE_MIN,
                       "passed to each render (float formats)", .seen = &req.height_scale_text),
        CLI_OPT_THREADS(c, "threads per render (default 1: run one render per core instead)"),
        CLI_OPT_CALLBACK(0, "terrafit", &req.program, "PROGRAM", parse_program,
                         "the program the commands run (default terrafit)"),
        CLI_OPT_END(),
    };
    int operands = cli_parse(&TILES, options, argc, argv);
    if (operands < 0)
        return cli_parse_status(operands);
    int status = check_request(&req, operands, argv);
    if (status != CLI_EXIT_OK)
        return status;
    /* The spec is read even for --list, so a bad one fails here, once,
     * rather than in every render. */
    tf_error err;
    tf_terrain *terrain = tf_terrain_load(c->spec, &err);
    if (!terrain)
        return cli_fail_error(cmd, &err);
    const double lo = tf_terrain_min_value(terrain), hi = tf_terrain_max_value(terrain);
    tf_terrain_free(terrain);
    unsigned long long columns = (req.world_w + req.tile_size - 1) / req.tile_size;
    unsigned long long rows = (req.world_h + req.tile_size - 1) / req.tile_size;
    if (req.vrt_path && (status = write_vrt(&req, columns, rows, lo, hi)) != CLI_EXIT_OK)
        return status;
    return req.list ? print_commands(&req, columns, rows) : CLI_EXIT_OK;
}
