/*
 * `terrafit erode`: read a rendered heightmap, erode it (thermal, inverse
 * thermal or hydraulic; docs/erosion.md) and write it back in the input's
 * value range, atomically. Erosion works on a grid, never on a spec.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "terrafit/terrafit.h"

/* Runs shorter than this many cell-iterations finish before a bar is read. */
#define PROGRESS_MIN_WORK ((double)(1 << 24))
#define MAX_HEIGHT_SCALE 1e9

static const cli_command ERODE = {
    .name = "erode",
    .usage = "IN OUT --method METHOD --iterations N [OPTIONS]",
    .about = "Erode a rendered heightmap IN (PNG, PGM or ESRI ASCII grid) and write OUT\n"
             "with the same value range. Erosion is a grid operation: each cell depends\n"
             "on its neighbours over all iterations, so it breaks the spec's random\n"
             "access. It applies to a rendered tile, not to the spec; eroded tiles do\n"
             "not join their neighbours without seams.\n",
    .footer = "Thermal and inverse-thermal erosion move material between neighbours and\n"
              "keep the sum of heights; hydraulic erosion keeps terrain plus dissolved\n"
              "sediment, which is deposited where it is at the end. The same input and\n"
              "options give the same output bit for bit. OUT is written under a\n"
              "temporary name and renamed, so it appears complete or not at all; IN and\n"
              "OUT may be the same file.\n",
};

typedef struct {
    const char *in_path;
    const char *out_path;
    const char *method_text, *iterations_text; /* as given, or NULL */
    unsigned long long iterations;
    tf_erosion_params params; /* in height-scale units until converted */
    const char *talus_text;
    /* The hydraulic options as given, or NULL: named by a refusal. */
    const char *rain_text, *solubility_text, *evaporation_text, *capacity_text;
    double height_scale;
    const char *format_text;
    tf_heightmap_format format;
    bool stats;
    bool quiet;
} erode_request;

static int parse_method(const char *command, const cli_option *opt, const char *arg)
{
    if (tf_erosion_method_from_name(arg, opt->value) != 0)
        return cli_usage_error(command, "invalid --method '%s': expected thermal, "
                                        "inverse-thermal or hydraulic",
                               arg);
    return CLI_EXIT_OK;
}

/* The request as a whole, once every option is read. */
static int check_request(erode_request *req, int operands, char **argv)
{
    const char *cmd = ERODE.name;
    if (operands > 2)
        return cli_usage_error(cmd, "expected IN and OUT, got a third argument '%s'", argv[2]);
    if (operands < 1)
        return cli_usage_error(cmd, "missing IN (the heightmap to erode)");
    if (operands < 2)
        return cli_usage_error(cmd, "missing OUT (the heightmap file to write)");
    req->in_path = argv[0];
    req->out_path = argv[1];
    if (!req->method_text)
        return cli_usage_error(cmd, "missing --method (thermal, inverse-thermal or hydraulic)");
    if (!req->iterations_text)
        return cli_usage_error(cmd, "missing --iterations N");
    req->params.iterations = (unsigned long)req->iterations;
    const char *hydraulic_option = req->rain_text         ? "rain"
                                   : req->solubility_text ? "solubility"
                                   : req->evaporation_text ? "evaporation"
                                   : req->capacity_text   ? "capacity"
                                                          : NULL;
    bool hydraulic = req->params.method == TF_EROSION_HYDRAULIC;
    if (hydraulic && req->talus_text)
        return cli_usage_error(cmd, "--talus applies to thermal and inverse-thermal, not to "
                                    "hydraulic erosion");
    if (!hydraulic && hydraulic_option)
        return cli_usage_error(cmd, "--%s applies to hydraulic erosion, not to %s",
                               hydraulic_option, tf_erosion_method_name(req->params.method));
    int status = cli_heightmap_output_format(cmd, "OUT", req->out_path, req->format_text != NULL,
                                             &req->format);
    /* No input to compare with: OUT may be IN (rewritten in place). */
    return status != CLI_EXIT_OK
               ? status
               : cli_check_files(cmd, NULL, 0, &(cli_file){"OUT", req->out_path}, 1);
}

static void print_stats(const char *when, const tf_erosion_measures *m, double scale,
                        double flat_slope)
{
    printf("%-6s sum %.9g  max slope %.6g  flat cells (slope <= %.6g) %.4f\n", when, m->sum * scale,
           m->max_slope * scale, flat_slope * scale, m->flat_share);
}

static int erode(erode_request *req)
{
    tf_error err;
    tf_layer_map *map = cli_load_layer_map(ERODE.name, req->in_path, NULL, &err);
    if (!map)
        return cli_fail_error(ERODE.name, &err);
    size_t nx = map->width, ny = map->height, n = nx * ny;
    /* Transparent or no-data cells have no height to move. */
    if (tf_layer_map_visible_count(map) != n || map->channels == 2 || map->channels == 4) {
        tf_layer_map_free(map);
        return cli_fail(ERODE.name, "%s: has transparent or no-data cells; erosion needs a "
                        "heightmap with a height in every cell (no alpha, no NODATA_value)",
                        req->in_path);
    }

    /* Parameters in [0, 1] value units; the default talus follows the size. */
    tf_erosion_params p = req->params;
    double scale = req->height_scale;
    if (!req->talus_text) {
        tf_erosion_params defaults;
        tf_erosion_params_default(&defaults, p.method, nx, ny);
        p.talus = defaults.talus * scale;
    }
    /* Solubility and capacity are ratios of heights, evaporation a share:
     * only the talus and the rain carry height units. */
    p.talus /= scale;
    p.rain /= scale;

    float *heights = map->value; /* eroded in place */
    /* Flat: no neighbour more than a quarter of the talus per cell away. */
    double flat_slope = p.talus / 4.0;
    tf_erosion_measures before, after;
    if (req->stats)
        tf_erosion_measure(heights, nx, ny, flat_slope, &before);

    cli_progress progress;
    cli_progress_start(&progress, "erode",
                       req->quiet || (double)n * (double)p.iterations < PROGRESS_MIN_WORK);
    bool failed = tf_erode(heights, nx, ny, &p, cli_progress_callback, &progress, &err) != 0;

    /* Back to the input's units: [0, 1] maps to z_min..z_max (0..1 for an
     * image), so OUT has IN's value range. */
    size_t clamped = 0;
    if (!failed) {
        if (req->stats)
            tf_erosion_measure(heights, nx, ny, flat_slope, &after);
        double z0 = map->z_min, z1 = map->z_max;
        for (size_t k = 0; k < n; k++) {
            clamped += heights[k] < 0.0f || heights[k] > 1.0f;
            heights[k] = (float)(z0 + (double)heights[k] * (z1 - z0));
        }
        cli_progress_note(&progress, "writing", req->out_path);
        failed =
            tf_heightmap_write(req->out_path, req->format, heights, nx, ny, z0, z1, &err) != 0;
    }
    cli_progress_finish(&progress);
    int status = failed ? cli_fail_error(ERODE.name, &err) : CLI_EXIT_OK;
    if (!failed && clamped > 0)
        fprintf(stderr, "terrafit erode: note: %zu cells left the input's value range and were "
                "clamped in %s\n", clamped, req->out_path);
    if (!failed && req->stats) {
        print_stats("before", &before, scale, flat_slope);
        print_stats("after", &after, scale, flat_slope);
    }
    tf_layer_map_free(map);
    return status;
}

int cmd_erode(int argc, char **argv)
{
    erode_request req = {.height_scale = 1.0, .format = TF_HEIGHTMAP_PNG16};
    tf_erosion_params *p = &req.params;
    tf_erosion_params_default(p, TF_EROSION_THERMAL, 1, 1);
    const cli_option options[] = {
        CLI_OPT_CALLBACK('m', "method", &p->method, "METHOD", parse_method,
                         "thermal: material slides off slopes steeper than T; inverse-thermal: "
                         "only slopes of at most T move (Olsen), so hills flatten into "
                         "plateaus and cliffs stay; hydraulic: rain dissolves soil, water "
                         "carries it downhill, evaporates and deposits it",
                         .seen = &req.method_text),
        CLI_OPT_COUNT('n', "iterations", &req.iterations, "N", 0, TF_EROSION_MAX_ITERATIONS,
                      cli_textf("iterations, 0 to %lu (0 copies IN)",
                                TF_EROSION_MAX_ITERATIONS),
                      .seen = &req.iterations_text),
        CLI_OPT_NUMBER('t', "talus", &p->talus, "T", 0.0, INFINITY, 0,
                       "thermal methods: the talus, a height difference per cell of distance, "
                       "in [0, 1] value units (the input's full range is 1; diagonal neighbours "
                       "are sqrt(2) cells apart); default 4 / (larger side)",
                       .seen = &req.talus_text),
        CLI_OPT_NUMBER(0, "rain", &p->rain, "R", 0.0, INFINITY, 0,
                       "hydraulic: water added per cell and iteration (default 0.01)",
                       .seen = &req.rain_text),
        CLI_OPT_NUMBER(0, "solubility", &p->solubility, "K", 0.0, INFINITY, 0,
                       "hydraulic: soil dissolved per unit of water and iteration (default "
                       "0.01)",
                       .seen = &req.solubility_text),
        CLI_OPT_NUMBER(0, "evaporation", &p->evaporation, "E", 0.0, 1.0, 0,
                       "hydraulic: share of water evaporating per iteration, 0 to 1 (default "
                       "0.5)",
                       .seen = &req.evaporation_text),
        CLI_OPT_NUMBER(0, "capacity", &p->capacity, "C", 0.0, INFINITY, 0,
                       "hydraulic: sediment one unit of water can hold (default 0.01)",
                       .seen = &req.capacity_text),
        CLI_OPT_NUMBER(0, "height-scale", &req.height_scale, "S", 0.0, MAX_HEIGHT_SCALE,
                       CLI_ABOVE_MIN,
                       "heights are S times the [0, 1] values; T and R are then in those units "
                       "(default 1)"),
        CLI_OPT_HEIGHTMAP_FORMAT(&req.format, &req.format_text, "OUT"),
        CLI_OPT_FLAG(0, "stats", &req.stats,
                     "print the sum of heights, the steepest slope and the share of flat cells "
                     "before and after"),
        CLI_OPT_FLAG('q', "quiet", &req.quiet, "no progress bar"),
        CLI_OPT_END(),
    };
    int operands = cli_parse(&ERODE, options, argc, argv);
    if (operands < 0)
        return cli_parse_status(operands);
    int status = check_request(&req, operands, argv);
    return status != CLI_EXIT_OK ? status : erode(&req);
}
