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

enum {
    OPT_HELP,
    OPT_METHOD,
    OPT_ITERATIONS,
    OPT_TALUS,
    OPT_RAIN,
    OPT_SOLUBILITY,
    OPT_EVAPORATION,
    OPT_CAPACITY,
    OPT_HEIGHT_SCALE,
    OPT_FORMAT,
    OPT_STATS,
    OPT_QUIET
};

static const cli_option OPTIONS[] = {
    {"help", 'h', false, OPT_HELP},
    {"method", 'm', true, OPT_METHOD},
    {"iterations", 'n', true, OPT_ITERATIONS},
    {"talus", 't', true, OPT_TALUS},
    {"rain", 0, true, OPT_RAIN},
    {"solubility", 0, true, OPT_SOLUBILITY},
    {"evaporation", 0, true, OPT_EVAPORATION},
    {"capacity", 0, true, OPT_CAPACITY},
    {"height-scale", 0, true, OPT_HEIGHT_SCALE},
    {"format", 'f', true, OPT_FORMAT},
    {"stats", 0, false, OPT_STATS},
    {"quiet", 'q', false, OPT_QUIET},
    {NULL, 0, false, 0},
};

/* "png16, png8, ..." from the library's own table, so new formats show. */
static void format_names(char *out, size_t size)
{
    out[0] = '\0';
    size_t used = 0;
    for (int k = 0; k < TF_HEIGHTMAP_FORMAT_COUNT; k++) {
        const char *name = tf_heightmap_format_name((tf_heightmap_format)k);
        if (!name)
            continue;
        int w = snprintf(out + used, size - used, "%s%s", used ? ", " : "", name);
        if (w < 0 || (size_t)w >= size - used)
            break;
        used += (size_t)w;
    }
}

static void print_usage(void)
{
    char formats[256];
    format_names(formats, sizeof formats);
    printf("Usage: terrafit erode IN OUT --method METHOD --iterations N [OPTIONS]\n"
           "Erode a rendered heightmap IN (PNG, PGM or ESRI ASCII grid) and write OUT\n"
           "with the same value range. Erosion is a grid operation: each cell depends\n"
           "on its neighbours over all iterations, so it breaks the spec's random\n"
           "access. It applies to a rendered tile, not to the spec; eroded tiles do\n"
           "not join their neighbours without seams.\n"
           "\n"
           "Options:\n"
           "  -m, --method METHOD    thermal: material slides off slopes steeper than T;\n"
           "                         inverse-thermal: only slopes of at most T move\n"
           "                         (Olsen), so hills flatten into plateaus and cliffs\n"
           "                         stay; hydraulic: rain dissolves soil, water\n"
           "                         carries it downhill, evaporates and deposits it\n"
           "  -n, --iterations N     iterations, 0 to %lu (0 copies IN)\n"
           "  -t, --talus T          thermal methods: the talus, a height difference\n"
           "                         per cell of distance, in [0, 1] value units (the\n"
           "                         input's full range is 1; diagonal neighbours are\n"
           "                         sqrt(2) cells apart); default 4 / (larger side)\n"
           "      --rain R           hydraulic: water added per cell and iteration\n"
           "                         (default 0.01)\n"
           "      --solubility K     hydraulic: soil dissolved per unit of water and\n"
           "                         iteration (default 0.01)\n"
           "      --evaporation E    hydraulic: share of water evaporating per\n"
           "                         iteration, 0 to 1 (default 0.5)\n"
           "      --capacity C       hydraulic: sediment one unit of water can hold\n"
           "                         (default 0.01)\n"
           "      --height-scale S   heights are S times the [0, 1] values; T and R\n"
           "                         are then in those units (default 1)\n"
           "  -f, --format FORMAT    %s; by default from\n"
           "                         OUT's extension, else png16\n"
           "      --stats            print the sum of heights, the steepest slope and\n"
           "                         the share of flat cells before and after\n"
           "  -q, --quiet            no progress bar\n"
           "  -h, --help             print this help and exit\n"
           "\n"
           "Thermal and inverse-thermal erosion move material between neighbours and\n"
           "keep the sum of heights; hydraulic erosion keeps terrain plus dissolved\n"
           "sediment, which is deposited where it is at the end. The same input and\n"
           "options give the same output bit for bit. OUT is written under a\n"
           "temporary name and renamed, so it appears complete or not at all; IN and\n"
           "OUT may be the same file.\n",
           TF_EROSION_MAX_ITERATIONS, formats);
}

typedef struct {
    const char *in_path;
    const char *out_path;
    bool method_given, iterations_given;
    tf_erosion_params params; /* in height-scale units until converted */
    bool talus_given;
    const char *hydraulic_option; /* the first hydraulic option given */
    double height_scale;
    bool format_given;
    tf_heightmap_format format;
    bool stats;
    bool quiet;
} erode_request;

/* A finite number >= 0 (and <= max when max > 0) or a usage error. */
static int parse_amount(const char *option, const char *text, double max, double *out)
{
    double v;
    if (!cli_parse_double(text, &v) || v < 0.0 || (max > 0.0 && v > max)) {
        if (max > 0.0)
            return cli_usage_error("erode", "invalid --%s '%s': expected a number from 0 to %g",
                                   option, text, max);
        return cli_usage_error("erode", "invalid --%s '%s': expected a number >= 0", option,
                               text);
    }
    *out = v;
    return CLI_EXIT_OK;
}

static int parse_request(int argc, char **argv, erode_request *req, bool *help_printed)
{
    const char *cmd = "erode";
    cli_args args;
    cli_args_init(&args, cmd, OPTIONS, argc, argv);
    *help_printed = false;
    int status = CLI_EXIT_OK;
    for (int id; (id = cli_args_next(&args)) != CLI_ARGS_END;) {
        const char *v = args.value;
        bool too_big = false;
        unsigned long long count;
        switch (id) {
        case CLI_ARGS_ERROR:
            return CLI_EXIT_USAGE;
        case CLI_ARGS_POSITIONAL:
            if (!req->in_path)
                req->in_path = v;
            else if (!req->out_path)
                req->out_path = v;
            else
                return cli_usage_error(cmd, "expected IN and OUT, got a third argument '%s'", v);
            break;
        case OPT_HELP:
            print_usage();
            *help_printed = true;
            return CLI_EXIT_OK;
        case OPT_METHOD:
            if (tf_erosion_method_from_name(v, &req->params.method) != 0)
                return cli_usage_error(cmd, "invalid --method '%s': expected thermal, "
                                       "inverse-thermal or hydraulic", v);
            req->method_given = true;
            break;
        case OPT_ITERATIONS:
            if (!cli_parse_count(v, &count, &too_big))
                return cli_usage_error(cmd, "invalid --iterations '%s': expected a whole "
                                       "number >= 0", v);
            if (too_big || count > TF_EROSION_MAX_ITERATIONS)
                return cli_fail(cmd, "--iterations %s: at most %lu (TF_EROSION_MAX_ITERATIONS)",
                                v, TF_EROSION_MAX_ITERATIONS);
            req->params.iterations = (unsigned long)count;
            req->iterations_given = true;
            break;
        case OPT_TALUS:
            status = parse_amount("talus", v, 0.0, &req->params.talus);
            req->talus_given = true;
            break;
        case OPT_RAIN:
            status = parse_amount("rain", v, 0.0, &req->params.rain);
            req->hydraulic_option = req->hydraulic_option ? req->hydraulic_option : "rain";
            break;
        case OPT_SOLUBILITY:
            status = parse_amount("solubility", v, 0.0, &req->params.solubility);
            req->hydraulic_option = req->hydraulic_option ? req->hydraulic_option : "solubility";
            break;
        case OPT_EVAPORATION:
            status = parse_amount("evaporation", v, 1.0, &req->params.evaporation);
            req->hydraulic_option = req->hydraulic_option ? req->hydraulic_option : "evaporation";
            break;
        case OPT_CAPACITY:
            status = parse_amount("capacity", v, 0.0, &req->params.capacity);
            req->hydraulic_option = req->hydraulic_option ? req->hydraulic_option : "capacity";
            break;
        case OPT_HEIGHT_SCALE:
            if (!cli_parse_double(v, &req->height_scale) || !(req->height_scale > 0.0) ||
                req->height_scale > MAX_HEIGHT_SCALE)
                return cli_usage_error(cmd, "invalid --height-scale '%s': expected a number > 0 "
                                       "and at most %g", v, MAX_HEIGHT_SCALE);
            break;
        case OPT_FORMAT:
            if (tf_heightmap_format_from_name(v, &req->format) != 0) {
                char formats[256];
                format_names(formats, sizeof formats);
                return cli_usage_error(cmd, "invalid --format '%s': expected %s", v, formats);
            }
            req->format_given = true;
            break;
        case OPT_STATS:
            req->stats = true;
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
    if (!req->in_path)
        return cli_usage_error(cmd, "missing IN (the heightmap to erode)");
    if (!req->out_path)
        return cli_usage_error(cmd, "missing OUT (the heightmap file to write)");
    if (!req->method_given)
        return cli_usage_error(cmd, "missing --method (thermal, inverse-thermal or hydraulic)");
    if (!req->iterations_given)
        return cli_usage_error(cmd, "missing --iterations N");
    bool hydraulic = req->params.method == TF_EROSION_HYDRAULIC;
    if (hydraulic && req->talus_given)
        return cli_usage_error(cmd, "--talus applies to thermal and inverse-thermal, not to "
                               "hydraulic erosion");
    if (!hydraulic && req->hydraulic_option)
        return cli_usage_error(cmd, "--%s applies to hydraulic erosion, not to %s",
                               req->hydraulic_option,
                               tf_erosion_method_name(req->params.method));
    if (!req->format_given && tf_heightmap_format_from_path(req->out_path, &req->format) != 0)
        req->format = TF_HEIGHTMAP_PNG16;
    return CLI_EXIT_OK;
}

static void on_progress(void *user, size_t done, size_t total)
{
    cli_progress_update(user, done, total);
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
    tf_layer_map *map = tf_layer_map_load(req->in_path, &err);
    if (!map)
        return cli_fail_error(&err);
    size_t nx = map->width, ny = map->height, n = nx * ny;
    /* Transparent or no-data cells have no height to move. */
    if (tf_layer_map_visible_count(map) != n || map->channels == 2 || map->channels == 4) {
        tf_layer_map_free(map);
        return cli_fail("erode", "%s: has transparent or no-data cells; erosion needs a "
                        "heightmap with a height in every cell (no alpha, no NODATA_value)",
                        req->in_path);
    }

    /* Parameters in [0, 1] value units; the default talus follows the size. */
    tf_erosion_params p = req->params;
    double scale = req->height_scale;
    if (!req->talus_given) {
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
    bool failed = tf_erode(heights, nx, ny, &p, on_progress, &progress, &err) != 0;

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
    int status = failed ? cli_fail_error(&err) : CLI_EXIT_OK;
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
    tf_erosion_params_default(&req.params, TF_EROSION_THERMAL, 1, 1);
    bool help_printed;
    int status = parse_request(argc, argv, &req, &help_printed);
    if (status != CLI_EXIT_OK || help_printed)
        return status;
    return erode(&req);
}
