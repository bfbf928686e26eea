/*
 * `terrafit preview`: a picture of a spec or a heightmap for people (or a
 * normal map for engines): hillshade, hypsometric colour, slope, normals or
 * the survey's terrain-mandated colouring, alone or beside a reference.
 */
#include <ctype.h>
#include <limits.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "terrafit/terrafit.h"

#define DEFAULT_SIDE 512
#define PROGRESS_MIN_PIXELS ((unsigned long long)1 << 20)
#define STYLE_NAMES "hillshade, color, slope, normals or rules"
#define MAX_CAPTIONS 2

enum {
    OPT_HELP,
    OPT_OUTPUT,
    OPT_STYLE,
    OPT_AZIMUTH,
    OPT_ALTITUDE,
    OPT_WATER,
    OPT_SNOW,
    OPT_TALUS,
    OPT_HEIGHT_SCALE,
    OPT_NORMALS,
    OPT_SIZE,
    OPT_ORIGIN,
    OPT_STEP,
    OPT_SIDE_BY_SIDE,
    OPT_CAPTION,
    OPT_QUIET
};

static const cli_option OPTIONS[] = {
    {"help", 'h', false, OPT_HELP},
    {"output", 'o', true, OPT_OUTPUT},
    {"style", 0, true, OPT_STYLE},
    {"azimuth", 0, true, OPT_AZIMUTH},
    {"altitude", 0, true, OPT_ALTITUDE},
    {"water-level", 0, true, OPT_WATER},
    {"snow-level", 0, true, OPT_SNOW},
    {"talus", 0, true, OPT_TALUS},
    {"height-scale", 0, true, OPT_HEIGHT_SCALE},
    {"normals", 0, true, OPT_NORMALS},
    {"size", 's', true, OPT_SIZE},
    {"origin", 0, true, OPT_ORIGIN},
    {"step", 0, true, OPT_STEP},
    {"side-by-side", 0, true, OPT_SIDE_BY_SIDE},
    {"caption", 0, true, OPT_CAPTION},
    {"quiet", 'q', false, OPT_QUIET},
    {NULL, 0, false, 0},
};

static void print_usage(void)
{
    tf_preview_options d = tf_preview_options_default();
    printf("Usage: terrafit preview SPEC|HEIGHTMAP -o OUT.png [OPTIONS]\n"
           "Draw a spec (rendered and normalized with its minValue..maxValue) or a\n"
           "heightmap (PNG, PGM or ESRI ASCII grid; values 0..1) as an RGB PNG.\n"
           "\n"
           "Options:\n"
           "  -o, --output OUT.png   image to write (required)\n"
           "      --style STYLE      one of (default %s):\n"
           "                           hillshade  grey Lambertian shade (ESRI-style)\n"
           "                           color      hypsometric tint, water below a level\n"
           "                           slope      slope angle, pale flat to dark-red cliff\n"
           "                           normals    tangent-space normal map, RGB = n*0.5+0.5\n"
           "                           rules      water, vegetation, rock and snow by\n"
           "                                      height and slope (survey rules)\n"
           "      --azimuth A        sun azimuth, degrees clockwise from north (up),\n"
           "                         0 to 360 (default %g)\n"
           "      --altitude B       sun altitude above the horizon, degrees, > 0 and\n"
           "                         <= 90 (default %g)\n"
           "      --water-level L    water below normalized height L in 0..1, or 'none'\n"
           "                         (color, rules; default %g)\n"
           "      --snow-level H     rules: flat ground above H in 0..1 is snow, H above\n"
           "                         the water level (default %g)\n"
           "      --talus T          rules: vegetation where the largest height step to\n"
           "                         a neighbour is below T pixels, > 0 (default %g)\n"
           "      --height-scale S   slopes are S * |gradient| of the 0..1 heights per\n"
           "                         pixel, > 0 (default: automatic, from the first\n"
           "                         image: its steepest fifth of slopes reach 30 degrees)\n"
           "      --normals Y        normals: opengl (+Y up the image; Blender, Unity,\n"
           "                         Godot) or directx (+Y down; Unreal) (default opengl)\n"
           "  -s, --size WxH         pixels of a rendered spec (default %dx%d, or the\n"
           "                         reference heightmap's size)\n"
           "      --origin X,Y       world point of a spec's pixel (0, 0) (default 0,0)\n"
           "      --step S           world units between a spec's pixels, > 0 (default 1)\n"
           "      --side-by-side REF put REF (spec or heightmap) on the left and the input\n"
           "                         on the right, one shading scale, captions under both\n"
           "      --caption TEXT     caption of the next image, left to right (twice for\n"
           "                         side by side; default: the file names)\n"
           "  -q, --quiet            no progress bar\n"
           "  -h, --help             print this help and exit\n"
           "\n"
           "A rendered spec carries a one-sample border, so its edge slopes use real\n"
           "neighbours and adjacent tiles join. Cells without data (alpha 0, NODATA)\n"
           "are light grey. The file is written atomically. Colours and thresholds:\n"
           "docs/preview.md.\n",
           tf_preview_style_name(d.style), d.sun_azimuth, d.sun_altitude,
           d.water_level, d.snow_level, d.vegetation_talus, DEFAULT_SIDE, DEFAULT_SIDE);
}

typedef struct {
    const char *path;
    bool is_spec;
    float *heights; /* (width + 2 border) x (height + 2 border) */
    size_t width, height, border;
} operand;

typedef struct {
    const char *input_path;
    const char *reference_path;
    const char *output_path;
    const char *captions[MAX_CAPTIONS];
    int caption_count;
    tf_preview_options options;
    bool size_given, spec_placement_given;
    unsigned long long width, height;
    const char *size_text;
    double origin_x, origin_y, step;
    bool quiet;
} preview_request;

static int parse_angle(const char *cmd, const char *option, const char *v, double lo, bool lo_open,
                       double hi, double *out)
{
    if (!cli_parse_double(v, out) || (lo_open ? !(*out > lo) : !(*out >= lo)) || !(*out <= hi))
        return cli_usage_error(cmd, "invalid --%s '%s': expected a number %s %g and <= %g",
                               option, v, lo_open ? ">" : ">=", lo, hi);
    return CLI_EXIT_OK;
}

static int parse_unit(const char *cmd, const char *option, const char *v, double *out)
{
    if (!cli_parse_double(v, out) || !(*out >= 0.0 && *out <= 1.0))
        return cli_usage_error(cmd, "invalid --%s '%s': expected a number from 0 to 1", option,
                               v);
    return CLI_EXIT_OK;
}

static int parse_request(int argc, char **argv, preview_request *req, bool *help_printed)
{
    const char *cmd = "preview";
    cli_args args;
    cli_args_init(&args, cmd, OPTIONS, argc, argv);
    *help_printed = false;
    for (int id; (id = cli_args_next(&args)) != CLI_ARGS_END;) {
        const char *v = args.value;
        tf_preview_options *o = &req->options;
        bool too_big = false;
        int status = CLI_EXIT_OK;
        switch (id) {
        case CLI_ARGS_ERROR:
            return CLI_EXIT_USAGE;
        case CLI_ARGS_POSITIONAL:
            if (req->input_path)
                return cli_usage_error(cmd, "one SPEC or HEIGHTMAP expected, got '%s' and '%s'",
                                       req->input_path, v);
            req->input_path = v;
            break;
        case OPT_HELP:
            print_usage();
            *help_printed = true;
            return CLI_EXIT_OK;
        case OPT_OUTPUT:
            req->output_path = v;
            break;
        case OPT_STYLE:
            if (tf_preview_style_from_name(v, &o->style) != 0)
                return cli_usage_error(cmd, "invalid --style '%s': expected %s", v, STYLE_NAMES);
            break;
        case OPT_AZIMUTH:
            status = parse_angle(cmd, "azimuth", v, 0.0, false, 360.0, &o->sun_azimuth);
            break;
        case OPT_ALTITUDE:
            status = parse_angle(cmd, "altitude", v, 0.0, true, 90.0, &o->sun_altitude);
            break;
        case OPT_WATER:
            if (strcmp(v, "none") == 0)
                o->water_level = NAN;
            else
                status = parse_unit(cmd, "water-level", v, &o->water_level);
            break;
        case OPT_SNOW:
            status = parse_unit(cmd, "snow-level", v, &o->snow_level);
            break;
        case OPT_TALUS:
            if (!cli_parse_double(v, &o->vegetation_talus) || !(o->vegetation_talus > 0.0))
                return cli_usage_error(cmd, "invalid --talus '%s': expected a number > 0", v);
            break;
        case OPT_HEIGHT_SCALE:
            if (!cli_parse_double(v, &o->height_scale) || !(o->height_scale > 0.0))
                return cli_usage_error(cmd, "invalid --height-scale '%s': expected a number > 0",
                                       v);
            break;
        case OPT_NORMALS:
            if (strcmp(v, "opengl") == 0)
                o->normals_y_down = 0;
            else if (strcmp(v, "directx") == 0)
                o->normals_y_down = 1;
            else
                return cli_usage_error(cmd, "invalid --normals '%s': expected opengl or directx",
                                       v);
            break;
        case OPT_SIZE:
            if (!cli_parse_count_pair(v, 'x', &req->width, &req->height, &too_big))
                return cli_usage_error(cmd, "invalid --size '%s': expected WxH, e.g. 512x512", v);
            if (too_big)
                req->width = req->height = ULLONG_MAX; /* caught by the limit check */
            req->size_given = true;
            req->size_text = v;
            break;
        case OPT_ORIGIN:
            if (cli_option_origin(cmd, v, &req->origin_x, &req->origin_y) != CLI_EXIT_OK)
                return CLI_EXIT_USAGE;
            req->spec_placement_given = true;
            break;
        case OPT_STEP:
            if (cli_option_step(cmd, v, &req->step) != CLI_EXIT_OK)
                return CLI_EXIT_USAGE;
            req->spec_placement_given = true;
            break;
        case OPT_SIDE_BY_SIDE:
            req->reference_path = v;
            break;
        case OPT_CAPTION:
            if (req->caption_count == MAX_CAPTIONS)
                return cli_usage_error(cmd, "at most %d --caption (one per image)", MAX_CAPTIONS);
            req->captions[req->caption_count++] = v;
            break;
        case OPT_QUIET:
            req->quiet = true;
            break;
        default:
            return cli_usage_error(cmd, "internal error: unhandled option %d", id);
        }
        if (status != CLI_EXIT_OK)
            return status;
    }
    if (!req->input_path)
        return cli_usage_error(cmd, "missing SPEC or HEIGHTMAP (what to draw)");
    if (!req->output_path)
        return cli_usage_error(cmd, "missing -o OUT.png (the image to write)");
    if (req->caption_count > (req->reference_path ? 2 : 1))
        return cli_usage_error(cmd, "%d captions for %d image%s", req->caption_count,
                               req->reference_path ? 2 : 1, req->reference_path ? "s" : "");
    const tf_preview_options *o = &req->options;
    if (o->style == TF_PREVIEW_RULES && !isnan(o->water_level) &&
        !(o->snow_level > o->water_level))
        return cli_usage_error(cmd, "--snow-level %g must lie above --water-level %g",
                               o->snow_level, o->water_level);
    if (req->size_given) {
        if (req->width < 1 || req->width > TF_MAX_IMAGE_SIDE || req->height < 1 ||
            req->height > TF_MAX_IMAGE_SIDE)
            return cli_fail(cmd, "--size %s: each side must be 1 to %u (TF_MAX_IMAGE_SIDE)",
                            req->size_text, TF_MAX_IMAGE_SIDE);
        if (req->width * req->height > TF_MAX_IMAGE_PIXELS)
            return cli_fail(cmd, "--size %s: %llu pixels, more than %zu (TF_MAX_IMAGE_PIXELS)",
                            req->size_text, req->width * req->height, TF_MAX_IMAGE_PIXELS);
    }
    return CLI_EXIT_OK;
}

static int out_of_memory(tf_error *err, const char *path, size_t width, size_t height)
{
    err->code = TF_ERR_NOMEM;
    snprintf(err->message, sizeof err->message, "%s: out of memory for %zux%zu heights", path,
             width, height);
    return -1;
}

/* A heightmap's values; cells without data (weight 0) become NaN. */
static int load_heightmap(operand *op, tf_error *err)
{
    tf_layer_map *map = tf_layer_map_load(op->path, err);
    if (!map)
        return -1;
    size_t count = map->width * map->height;
    op->heights = malloc(sizeof *op->heights * count);
    if (!op->heights) {
        out_of_memory(err, op->path, map->width, map->height);
        tf_layer_map_free(map);
        return -1;
    }
    for (size_t k = 0; k < count; k++)
        op->heights[k] = map->weight[k] > 0.0f ? map->value[k] : NAN;
    op->width = map->width;
    op->height = map->height;
    op->border = 0;
    tf_layer_map_free(map);
    return 0;
}

static void on_render_progress(void *user, size_t rows_done, size_t rows_total)
{
    cli_progress_update(user, rows_done, rows_total);
}

/* Render a spec over width x height pixels with a one-sample border:
 * the interior exactly as `terrafit render` samples it (threaded), the ring
 * at the lattice indices -1 and width (or height), as
 * tf_terrain_sample_window places them. Normalized with minValue..maxValue. */
static int render_spec(operand *op, const preview_request *req, size_t width, size_t height,
                       tf_error *err)
{
    tf_terrain *terrain = tf_terrain_load(op->path, err);
    if (!terrain)
        return -1;
    size_t sx = width + 2, sy = height + 2;
    float *interior = malloc(sizeof *interior * width * height);
    op->heights = malloc(sizeof *op->heights * sx * sy);
    if (!interior || !op->heights) {
        free(interior);
        tf_terrain_free(terrain);
        return out_of_memory(err, op->path, width, height);
    }
    cli_progress progress;
    cli_progress_start(&progress, "render",
                       req->quiet || (unsigned long long)width * height < PROGRESS_MIN_PIXELS);
    int status = tf_render_grid(terrain, req->origin_x, req->origin_y, req->step, width, height,
                                0, interior, on_render_progress, &progress, err);
    cli_progress_finish(&progress);
    if (status == 0) {
        double x0 = req->origin_x, y0 = req->origin_y, s = req->step;
        for (size_t j = 0; j < sy; j++) {
            for (size_t i = 0; i < sx; i++) {
                float h;
                if (i > 0 && i <= width && j > 0 && j <= height)
                    h = interior[(j - 1) * width + (i - 1)];
                else
                    h = (float)tf_terrain_sample(terrain, x0 + (double)((int64_t)i - 1) * s,
                                                 y0 + (double)((int64_t)j - 1) * s);
                op->heights[j * sx + i] = (float)tf_terrain_normalize(terrain, h);
            }
        }
        op->width = width;
        op->height = height;
        op->border = 1;
    }
    free(interior);
    tf_terrain_free(terrain);
    return status;
}

static const char *base_name(const char *path)
{
    const char *slash = strrchr(path, '/');
    return slash ? slash + 1 : path;
}

static int preview(const preview_request *req)
{
    const char *cmd = "preview";
    /* Left to right: the reference, then the input. */
    operand op[2] = {{.path = req->reference_path}, {.path = req->input_path}};
    size_t first = req->reference_path ? 0 : 1;
    tf_error err;
    int status = CLI_EXIT_FAILURE;
    char captions[2][300];

    for (size_t m = first; m < 2; m++)
        op[m].is_spec = cli_looks_like_spec(op[m].path);
    if (req->spec_placement_given && !op[first].is_spec && !op[1].is_spec)
        return cli_usage_error(cmd, "--origin and --step place a rendered spec; no input is a "
                                    "spec");
    if (req->size_given && !op[first].is_spec && !op[1].is_spec)
        return cli_usage_error(cmd, "--size sets a rendered spec's size; no input is a spec");
    for (size_t m = first; m < 2; m++) {
        if (!op[m].is_spec && load_heightmap(&op[m], &err) != 0) {
            cli_fail_error(&err);
            goto done;
        }
    }
    /* The render size: --size, else a heightmap's size, else the default. */
    size_t width = DEFAULT_SIDE, height = DEFAULT_SIDE;
    const operand *sized = NULL;
    for (size_t m = first; m < 2 && !sized; m++)
        if (!op[m].is_spec)
            sized = &op[m];
    if (req->size_given) {
        width = (size_t)req->width;
        height = (size_t)req->height;
    } else if (sized) {
        width = sized->width;
        height = sized->height;
    }
    for (size_t m = first; m < 2; m++) {
        if (!op[m].is_spec && (op[m].width != width || op[m].height != height)) {
            if (req->size_given)
                cli_fail(cmd, "%s is %zux%zu but --size is %zux%zu", op[m].path, op[m].width,
                         op[m].height, width, height);
            else
                cli_fail(cmd, "sizes differ: %s is %zux%zu, %s is %zux%zu", op[0].path,
                         op[0].width, op[0].height, op[1].path, op[1].width, op[1].height);
            goto done;
        }
    }
    for (size_t m = first; m < 2; m++) {
        if (!op[m].is_spec)
            continue;
        if (render_spec(&op[m], req, width, height, &err) != 0) {
            cli_fail_error(&err);
            goto done;
        }
    }

    tf_preview_panel panels[2];
    size_t count = 0;
    for (size_t m = first; m < 2; m++, count++) {
        panels[count] = (tf_preview_panel){.heights = op[m].heights,
                                           .width = op[m].width,
                                           .height = op[m].height,
                                           .border = op[m].border};
        if ((int)count < req->caption_count)
            panels[count].caption = req->captions[count];
        else if (req->reference_path) {
            snprintf(captions[count], sizeof captions[count], "%s: %s",
                     m == 0 ? "reference" : "synthesis", base_name(op[m].path));
            panels[count].caption = captions[count];
        }
    }
    if (tf_preview_write_panels(req->output_path, panels, count, &req->options, &err) != 0) {
        cli_fail_error(&err);
        goto done;
    }
    status = CLI_EXIT_OK;
done:
    free(op[0].heights);
    free(op[1].heights);
    return status;
}

int cmd_preview(int argc, char **argv)
{
    preview_request req;
    memset(&req, 0, sizeof req);
    req.options = tf_preview_options_default();
    req.step = 1.0;
    bool help_printed;
    int status = parse_request(argc, argv, &req, &help_printed);
    if (status != CLI_EXIT_OK || help_printed)
        return status;
    return preview(&req);
}
