/*
 * `terrafit preview`: a picture of a spec or a heightmap for people (or a
 * normal map for engines): hillshade, hypsometric colour, slope, normals or
 * the survey's terrain-mandated colouring, alone or beside a reference.
 */
#include <ctype.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "util/util.h" /* tf_clock_seconds */
#include "terrafit/terrafit.h"

#define DEFAULT_SIDE 512
#define PROGRESS_MIN_PIXELS ((unsigned long long)1 << 20)
#define STYLE_NAMES "hillshade, color, slope, normals or rules"
#define MAX_CAPTIONS 2

static const cli_command PREVIEW = {
    .name = "preview",
    .usage = "SPEC|HEIGHTMAP -o OUT.png [OPTIONS]",
    .about = "Draw a spec (rendered and normalized with its minValue..maxValue) or a\n"
             "heightmap (PNG, PGM or ESRI ASCII grid; values 0..1) as an RGB PNG.\n",
    .footer = "A rendered spec carries a one-sample border, so its edge slopes use real\n"
              "neighbours and adjacent tiles join. Cells without data (alpha 0, NODATA)\n"
              "are light grey. The file is written atomically. Colours and thresholds:\n"
              "docs/preview.md.\n",
};

typedef struct {
    const char *path;
    bool is_spec;
    float *heights; /* (width + 2 border) x (height + 2 border) */
    size_t width, height, border;
} operand;

typedef struct {
    cli_common c; /* SPEC is the input, a spec or a heightmap */
    const char *reference_path;
    const char *captions[MAX_CAPTIONS];
    int caption_count;
    tf_preview_options options;
} preview_request;

static int parse_style(const char *command, const cli_option *opt, const char *arg)
{
    if (tf_preview_style_from_name(arg, opt->value) != 0)
        return cli_usage_error(command, "invalid --style '%s': expected %s", arg, STYLE_NAMES);
    return CLI_EXIT_OK;
}

/* --water-level L in 0..1, or "none" (NaN: no water). */
static int parse_water(const char *command, const cli_option *opt, const char *arg)
{
    double *level = opt->value;
    if (strcmp(arg, "none") == 0) {
        *level = NAN;
        return CLI_EXIT_OK;
    }
    if (!cli_parse_double(arg, level) || !(*level >= 0.0 && *level <= 1.0))
        return cli_usage_error(command, "invalid --water-level '%s': expected a number from 0 "
                                        "to 1, or none",
                               arg);
    return CLI_EXIT_OK;
}

static int parse_normals(const char *command, const cli_option *opt, const char *arg)
{
    int *y_down = opt->value;
    if (strcmp(arg, "opengl") == 0)
        *y_down = 0;
    else if (strcmp(arg, "directx") == 0)
        *y_down = 1;
    else
        return cli_usage_error(command, "invalid --normals '%s': expected opengl or directx", arg);
    return CLI_EXIT_OK;
}

static int parse_caption(const char *command, const cli_option *opt, const char *arg)
{
    preview_request *req = opt->value;
    if (req->caption_count == MAX_CAPTIONS)
        return cli_usage_error(command, "at most %d --caption (one per image)", MAX_CAPTIONS);
    req->captions[req->caption_count++] = arg;
    return CLI_EXIT_OK;
}

/* The request as a whole, once every option is read. */
static int check_request(preview_request *req, int operands, char **argv)
{
    const char *cmd = PREVIEW.name;
    int status;
    if ((status = cli_common_operands(cmd, &req->c, operands, argv, "SPEC or HEIGHTMAP",
                                      "what to draw", "OUT.png", "the image to write")) !=
            CLI_EXIT_OK ||
        (status = cli_check_png_name(cmd, "-o", req->c.output)) != CLI_EXIT_OK)
        return status;
    const cli_file inputs[] = {{"the input", req->c.spec}, {"--side-by-side", req->reference_path}};
    const cli_file outputs[] = {{"-o", req->c.output}};
    if ((status = cli_check_files(cmd, inputs, 2, outputs, 1)) != CLI_EXIT_OK)
        return status;
    if (req->caption_count > (req->reference_path ? 2 : 1))
        return cli_usage_error(cmd, "%d captions for %d image%s", req->caption_count,
                               req->reference_path ? 2 : 1, req->reference_path ? "s" : "");
    const tf_preview_options *o = &req->options;
    if (o->style == TF_PREVIEW_RULES && !isnan(o->water_level) &&
        !(o->snow_level > o->water_level))
        return cli_usage_error(cmd, "--snow-level %g must lie above --water-level %g",
                               o->snow_level, o->water_level);
    return req->c.size_text ? cli_common_image_size(cmd, &req->c) : CLI_EXIT_OK;
}

/* A heightmap's values; cells without data (weight 0) become NaN. */
static int load_heightmap(operand *op, tf_error *err)
{
    tf_layer_map *map = cli_load_layer_map(PREVIEW.name, op->path, NULL, err);
    if (!map)
        return -1;
    size_t count = map->width * map->height;
    op->heights = malloc(sizeof *op->heights * count);
    if (!op->heights) {
        err->code = TF_ERR_NOMEM;
        snprintf(err->message, sizeof err->message, "%s: out of memory for %zux%zu heights",
                 op->path, map->width, map->height);
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

/* A spec over width x height pixels with a one-sample border, the
 * interior exactly as `terrafit render` samples it. */
static int render_spec(operand *op, const preview_request *req, size_t width, size_t height,
                       tf_error *err)
{
    tf_terrain *terrain = tf_terrain_load(op->path, err);
    if (!terrain)
        return -1;
    cli_progress progress;
    cli_progress_start(&progress, "render",
                       req->c.quiet || (unsigned long long)width * height < PROGRESS_MIN_PIXELS);
    op->heights = tf_render_normalized(terrain, req->c.origin_x, req->c.origin_y, req->c.step,
                                       width, height, 1, 0, cli_progress_callback, &progress, err);
    cli_progress_finish(&progress);
    tf_terrain_free(terrain);
    if (!op->heights)
        return -1;
    op->width = width;
    op->height = height;
    op->border = 1;
    return 0;
}

static int preview(const preview_request *req)
{
    const char *cmd = PREVIEW.name;
    double started = tf_clock_seconds();
    /* Left to right: the reference, then the input. */
    operand op[2] = {{.path = req->reference_path}, {.path = req->c.spec}};
    size_t first = req->reference_path ? 0 : 1;
    tf_error err;
    int status = CLI_EXIT_FAILURE;
    char captions[2][300];

    for (size_t m = first; m < 2; m++)
        op[m].is_spec = cli_looks_like_spec(op[m].path);
    bool any_spec = op[first].is_spec || op[1].is_spec;
    if ((req->c.origin_text || req->c.step_text) && !any_spec)
        return cli_usage_error(cmd, "--origin and --step place a rendered spec; no input is a "
                                    "spec");
    if (req->c.size_text && !any_spec)
        return cli_usage_error(cmd, "--size sets a rendered spec's size; no input is a spec");
    for (size_t m = first; m < 2; m++) {
        if (!op[m].is_spec && load_heightmap(&op[m], &err) != 0) {
            cli_fail_error(cmd, &err);
            goto done;
        }
    }
    /* The render size: --size, else a heightmap's size, else the default. */
    size_t width = DEFAULT_SIDE, height = DEFAULT_SIDE;
    const operand *sized = NULL;
    for (size_t m = first; m < 2 && !sized; m++)
        if (!op[m].is_spec)
            sized = &op[m];
    if (req->c.size_text) {
        width = (size_t)req->c.width;
        height = (size_t)req->c.height;
    } else if (sized) {
        width = sized->width;
        height = sized->height;
    }
    for (size_t m = first; m < 2; m++) {
        if (!op[m].is_spec && (op[m].width != width || op[m].height != height)) {
            if (req->c.size_text)
                cli_fail(cmd, "%s is %zux%zu but --size is %zux%zu", op[m].path, op[m].width,
                         op[m].height, width, height);
            else
                cli_fail(cmd, "sizes differ: %s is %zux%zu, %s is %zux%zu", op[0].path,
                         op[0].width, op[0].height, op[1].path, op[1].width, op[1].height);
            goto done;
        }
    }
    for (size_t m = first; m < 2; m++) {
        if (op[m].is_spec && render_spec(&op[m], req, width, height, &err) != 0) {
            cli_fail_error(cmd, &err);
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
                     m == 0 ? "reference" : "synthesis", cli_base_name(op[m].path));
            panels[count].caption = captions[count];
        }
    }
    if (tf_preview_write_panels(req->c.output, panels, count, &req->options, &err) != 0) {
        cli_fail_error(cmd, &err);
        goto done;
    }
    cli_summary(cmd, req->c.quiet, "wrote %s (%s, %zux%zu%s) in %.2f s", req->c.output,
                tf_preview_style_name(req->options.style), width, height,
                count > 1 ? ", side by side" : "", tf_clock_seconds() - started);
    status = CLI_EXIT_OK;
done:
    free(op[0].heights);
    free(op[1].heights);
    return status;
}

int cmd_preview(int argc, char **argv)
{
    preview_request req = {.options = tf_preview_options_default()};
    tf_preview_options *o = &req.options;
    tf_preview_options d = *o;
    cli_common *c = &req.c;
    cli_common_init(c, DEFAULT_SIDE, DEFAULT_SIDE);
    const cli_option options[] = {
        CLI_OPT_OUTPUT(c, "OUT.png", "image to write (required)"),
        CLI_OPT_CALLBACK(0, "style", &o->style, "STYLE", parse_style,
                         cli_textf("one of (default %s):\n"
                                   "  hillshade  grey Lambertian shade (ESRI-style)\n"
                                   "  color      hypsometric tint, water below a level\n"
                                   "  slope      slope angle, pale flat to dark-red cliff\n"
                                   "  normals    tangent-space normal map, RGB = n*0.5+0.5\n"
                                   "  rules      water, vegetation, rock and snow by\n"
                                   "             height and slope (survey rules)",
                                   tf_preview_style_name(d.style))),
        CLI_OPT_NUMBER(0, "azimuth", &o->sun_azimuth, "A", 0.0, 360.0, 0,
                       cli_textf("sun azimuth, degrees clockwise from north (up), 0 to 360 "
                                 "(default %g)",
                                 d.sun_azimuth)),
        CLI_OPT_NUMBER(0, "altitude", &o->sun_altitude, "B", 0.0, 90.0, CLI_ABOVE_MIN,
                       cli_textf("sun altitude above the horizon, degrees, > 0 and <= 90 "
                                 "(default %g)",
                                 d.sun_altitude)),
        CLI_OPT_CALLBACK(0, "water-level", &o->water_level, "L", parse_water,
                         cli_textf("water below normalized height L in 0..1, or 'none' (color, "
                                   "rules; default %g)",
                                   d.water_level)),
        CLI_OPT_NUMBER(0, "snow-level", &o->snow_level, "H", 0.0, 1.0, 0,
                       cli_textf("rules: flat ground above H in 0..1 is snow, H above the water "
                                 "level (default %g)",
                                 d.snow_level)),
        CLI_OPT_NUMBER(0, "talus", &o->vegetation_talus, "T", 0.0, INFINITY, CLI_ABOVE_MIN,
                       cli_textf("rules: vegetation where the largest height step to a "
                                 "neighbour is below T pixels, > 0 (default %g)",
                                 d.vegetation_talus)),
        CLI_OPT_NUMBER(0, "height-scale", &o->height_scale, "S", 0.0, INFINITY, CLI_ABOVE_MIN,
                       "slopes are S * |gradient| of the 0..1 heights per pixel, > 0 (default: "
                       "automatic, from the first image: its steepest fifth of slopes reach 30 "
                       "degrees)"),
        CLI_OPT_CALLBACK(0, "normals", &o->normals_y_down, "Y", parse_normals,
                         "normals: opengl (+Y up the image; Blender, Unity, Godot) or directx "
                         "(+Y down; Unreal) (default opengl)"),
        CLI_OPT_SIZE(c, cli_textf("pixels of a rendered spec (default %dx%d, or the reference "
                                  "heightmap's size)",
                                  DEFAULT_SIDE, DEFAULT_SIDE)),
        CLI_OPT_ORIGIN(c, "world point of a spec's pixel (0, 0) (default 0,0)"),
        CLI_OPT_STEP(c, "world units between a spec's pixels, > 0 (default 1)"),
        CLI_OPT_STRING(0, "side-by-side", &req.reference_path, "REF",
                       "put REF (spec or heightmap) on the left and the input on the right, one "
                       "shading scale, captions under both"),
        CLI_OPT_CALLBACK(0, "caption", &req, "TEXT", parse_caption,
                         "caption of the next image, left to right (twice for side by side; "
                         "default: the file names)"),
        CLI_OPT_QUIET(c, "no progress bar, no summary"),
        CLI_OPT_END(),
    };
    int operands = cli_parse(&PREVIEW, options, argc, argv);
    if (operands < 0)
        return cli_parse_status(operands);
    int status = check_request(&req, operands, argv);
    return status != CLI_EXIT_OK ? status : preview(&req);
}
