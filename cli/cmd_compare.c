/*
 * `terrafit compare A B`: fidelity metrics (docs/metrics.md) between two
 * heightmaps, or between a spec rendered at a reference's size and that
 * reference, printed as a table or as JSON.
 */
#include <ctype.h>
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "terrafit/terrafit.h"

/* Renders smaller than this finish before a bar would be worth reading. */
#define PROGRESS_MIN_PIXELS ((size_t)1 << 20)
#define MAX_RADIUS 256u
#define MAX_HEIGHT_SCALE 1e6
/* Bumped when a key changes meaning or disappears (docs/metrics.md). */
#define COMPARE_JSON_VERSION 1

enum { OPT_HELP, OPT_VALID, OPT_JSON, OPT_QUIET, OPT_HEIGHT_SCALE, OPT_RADIUS, OPT_PREVIEW };

static const cli_option OPTIONS[] = {
    {"help", 'h', false, OPT_HELP},
    {"valid", 0, true, OPT_VALID},
    {"json", 0, false, OPT_JSON},
    {"quiet", 'q', false, OPT_QUIET},
    {"height-scale", 0, true, OPT_HEIGHT_SCALE},
    {"radius", 0, true, OPT_RADIUS},
    {"preview", 'p', true, OPT_PREVIEW},
    {NULL, 0, false, 0},
};

static void print_usage(void)
{
    printf("Usage: terrafit compare A B [OPTIONS]\n"
           "Measure how alike two height maps are. A and B are heightmaps (PNG, PGM,\n"
           "ESRI ASCII grid) of the same size, or one of them is a terrain spec (JSON),\n"
           "which is rendered at the other's size (origin 0,0, step 1) and normalized\n"
           "to [0, 1] with the spec's minValue..maxValue. A cell counts where both maps\n"
           "are present (alpha > 0, not no-data) and --valid allows it.\n"
           "\n"
           "Options:\n"
           "      --valid MASK       ignore cells where MASK (same size) is 0\n"
           "      --json             print JSON instead of a table\n"
           "      --height-scale S   slopes are S * |gradient| of the [0, 1] values per\n"
           "                         pixel, 0 < S <= 1e6 (default 1; for a DEM with\n"
           "                         relief R on cells of size c, R/c gives rise over run)\n"
           "      --radius R         low-pass box half-width in pixels for roughness and\n"
           "                         elevation, 1 to %u (default %u)\n"
           "  -p, --preview FILE     also write A and B side by side as a shaded-relief\n"
           "                         RGB PNG (one tint and relief scale for both)\n"
           "  -q, --quiet            no progress bar\n"
           "  -h, --help             print this help and exit\n"
           "\n"
           "Metrics (docs/metrics.md): value histogram chi-square (32 bins, the thesis's\n"
           "0.5 sum (a-b)^2/(a+b)); power spectrum shape (RMS of log10 differences) and\n"
           "slope beta; slope histogram chi-square, mean and exponential rate; box\n"
           "dimension of the median contour; peaks per 1000 cells; pits per peak;\n"
           "share of cells in closed depressions; normal-score correlations of\n"
           "roughness and of slope with low-pass elevation. 'n/a' (JSON null) marks a\n"
           "value a map does not define, e.g. the slope rate of a flat map.\n"
           "\n"
           "Exit status: 0 compared, 1 bad input (unreadable file, sizes differ, no\n"
           "common cell), 2 usage error.\n",
           MAX_RADIUS, tf_metrics_options_default().lowpass_radius);
}

typedef struct {
    const char *path;
    bool is_spec;
    tf_layer_map *map;
} operand;

typedef struct {
    operand op[2];
    const char *valid_path;
    const char *preview_path;
    bool json;
    bool quiet;
    tf_metrics_options options;
} compare_request;

static int parse_request(int argc, char **argv, compare_request *req, bool *help_printed)
{
    const char *cmd = "compare";
    size_t positionals = 0;
    cli_args args;
    cli_args_init(&args, cmd, OPTIONS, argc, argv);
    *help_printed = false;
    for (int id; (id = cli_args_next(&args)) != CLI_ARGS_END;) {
        const char *v = args.value;
        unsigned long long count;
        bool too_big = false;
        switch (id) {
        case CLI_ARGS_ERROR:
            return CLI_EXIT_USAGE;
        case CLI_ARGS_POSITIONAL:
            if (positionals == 2)
                return cli_usage_error(cmd, "two maps expected (A and B), got a third: '%s'", v);
            req->op[positionals++].path = v;
            break;
        case OPT_HELP:
            print_usage();
            *help_printed = true;
            return CLI_EXIT_OK;
        case OPT_VALID:
            req->valid_path = v;
            break;
        case OPT_PREVIEW:
            req->preview_path = v;
            break;
        case OPT_JSON:
            req->json = true;
            break;
        case OPT_QUIET:
            req->quiet = true;
            break;
        case OPT_HEIGHT_SCALE:
            if (!cli_parse_double(v, &req->options.height_scale) ||
                !(req->options.height_scale > 0.0) || req->options.height_scale > MAX_HEIGHT_SCALE)
                return cli_usage_error(cmd, "invalid --height-scale '%s': expected a number > 0 "
                                            "and at most %g",
                                       v, MAX_HEIGHT_SCALE);
            break;
        case OPT_RADIUS:
            if (!cli_parse_count(v, &count, &too_big) || too_big || count < 1 ||
                count > MAX_RADIUS)
                return cli_usage_error(cmd, "invalid --radius '%s': expected 1 to %u", v,
                                       MAX_RADIUS);
            req->options.lowpass_radius = (unsigned)count;
            break;
        default:
            return cli_usage_error(cmd, "internal error: unhandled option %d", id);
        }
    }
    if (positionals < 2)
        return cli_usage_error(cmd, positionals ? "missing B (the second map)"
                                                : "missing A and B (the maps to compare)");
    return CLI_EXIT_OK;
}

static void on_render_progress(void *user, size_t rows_done, size_t rows_total)
{
    cli_progress_update(user, rows_done, rows_total);
}

/* Render the spec at `path` over width x height pixels into a new map:
 * value (h - minValue) / (maxValue - minValue), weight 0 where not finite. */
static tf_layer_map *render_spec(const char *path, size_t width, size_t height, bool quiet,
                                 tf_error *err)
{
    tf_terrain *terrain = tf_terrain_load(path, err);
    if (!terrain)
        return NULL;
    tf_layer_map *map = tf_layer_map_new(width, height, err);
    if (!map) {
        tf_terrain_free(terrain);
        return NULL;
    }
    cli_progress progress;
    cli_progress_start(&progress, "render", quiet || width * height < PROGRESS_MIN_PIXELS);
    int status = tf_render_grid(terrain, 0.0, 0.0, 1.0, width, height, 0, map->value,
                                on_render_progress, &progress, err);
    cli_progress_finish(&progress);
    if (status == 0) {
        double lo = tf_terrain_min_value(terrain), hi = tf_terrain_max_value(terrain);
        for (size_t k = 0; k < width * height; k++) {
            double v = ((double)map->value[k] - lo) / (hi - lo);
            bool finite = isfinite(v);
            map->value[k] = finite ? (float)v : 0.5f;
            map->weight[k] = finite ? 1.0f : 0.0f;
        }
    }
    tf_terrain_free(terrain);
    if (status != 0) {
        tf_layer_map_free(map);
        return NULL;
    }
    return map;
}

/* The metrics in the order both outputs list them: distances computed
 * from both maps at once (an offset into tf_metrics_report), and values of
 * each map (an offset into tf_map_metrics) with |A - B| as the distance. */
typedef struct {
    const char *label;    /* table row */
    const char *json_key; /* key under "metrics" (docs/metrics.md) */
    bool per_map;
    size_t offset;
} metric_row;

#define PAIR(label, key, field) {label, key, false, offsetof(tf_metrics_report, field)}
#define EACH(label, key, field) {label, key, true, offsetof(tf_map_metrics, field)}
static const metric_row METRICS[] = {
    PAIR("value histogram chi2", "histogramChi2", histogram_chi2),
    PAIR("spectrum shape (log10 RMS)", "spectrumLogRms", spectrum_log_rms),
    EACH("spectral slope beta", "spectralSlope", spectral_slope),
    PAIR("slope histogram chi2", "slopeChi2", slope_chi2),
    EACH("mean slope", "slopeMean", slope_mean),
    EACH("slope rate lambda", "slopeRate", slope_rate),
    EACH("median contour box dimension", "boxDimension", box_dimension),
    EACH("peaks per 1000 cells", "peakDensity", peak_density),
    EACH("pits per peak", "pitPeakRatio", pit_peak_ratio),
    EACH("depression share", "depressionShare", depression_share),
    EACH("roughness~elevation (normal r)", "roughnessElevation", roughness_elevation),
    EACH("slope~elevation (normal r)", "slopeElevation", slope_elevation),
};
#undef PAIR
#undef EACH
#define METRIC_COUNT (sizeof METRICS / sizeof METRICS[0])

static double double_at(const void *base, size_t offset)
{
    double v;
    memcpy(&v, (const char *)base + offset, sizeof v);
    return v;
}

static const char *or_na(double v, char *buf, size_t size)
{
    if (isnan(v))
        return "n/a";
    snprintf(buf, size, "%.5g", v);
    return buf;
}

static void print_row(const char *label, bool per_map, double a, double b, double distance)
{
    char ba[32], bb[32], bd[32];
    printf("%-34s %12s %12s %12s\n", label, per_map ? or_na(a, ba, sizeof ba) : "",
           per_map ? or_na(b, bb, sizeof bb) : "", or_na(distance, bd, sizeof bd));
}

static const char *operand_kind(const operand *op)
{
    return op->is_spec ? "spec, rendered" : "heightmap";
}

static void print_table(const compare_request *req, const tf_metrics_report *r)
{
    size_t total = r->width * r->height;
    for (int m = 0; m < 2; m++)
        printf("%c: %s (%s, %zux%zu)\n", "AB"[m], req->op[m].path, operand_kind(&req->op[m]),
               r->width, r->height);
    printf("cells compared: %zu of %zu (%.1f%%)\n\n", r->cells, total,
           100.0 * (double)r->cells / (double)total);
    printf("%-34s %12s %12s %12s\n", "metric", "A", "B", "distance");
    for (size_t i = 0; i < METRIC_COUNT; i++) {
        const metric_row *m = &METRICS[i];
        if (!m->per_map) {
            print_row(m->label, false, 0.0, 0.0, double_at(r, m->offset));
            continue;
        }
        double a = double_at(&r->a, m->offset), b = double_at(&r->b, m->offset);
        print_row(m->label, true, a, b, tf_metrics_difference(a, b));
    }
    printf("\nchi2 and spectrum shape: 0 = identical. Slopes: %g x |gradient| of the [0, 1]\n"
           "values per pixel (--height-scale). Low-pass radius %u px (--radius).\n"
           "Definitions: docs/metrics.md.\n",
           r->options.height_scale, r->options.lowpass_radius);
}

/* ---- JSON: numbers read back as the same double (%.15g, else %.17g);
 * non-finite values have no JSON form and are written as null. */

static void json_number(double v)
{
    if (!isfinite(v)) {
        fputs("null", stdout);
        return;
    }
    char buf[40];
    snprintf(buf, sizeof buf, "%.15g", v);
    if (strtod(buf, NULL) != v)
        snprintf(buf, sizeof buf, "%.17g", v);
    fputs(buf, stdout);
}

static void json_string(const char *s)
{
    putchar('"');
    for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
        if (*p == '"' || *p == '\\')
            printf("\\%c", *p);
        else if (*p < 0x20)
            printf("\\u%04x", *p);
        else
            putchar(*p);
    }
    putchar('"');
}

static void print_json(const compare_request *req, const tf_metrics_report *r)
{
    printf("{\n  \"format\": \"terrafit-compare\",\n  \"version\": %d,\n", COMPARE_JSON_VERSION);
    for (int m = 0; m < 2; m++) {
        printf("  \"%c\": {\"path\": ", "ab"[m]);
        json_string(req->op[m].path);
        printf(", \"kind\": \"%s\"},\n", req->op[m].is_spec ? "spec" : "heightmap");
    }
    printf("  \"width\": %zu,\n  \"height\": %zu,\n  \"cells\": %zu,\n", r->width, r->height,
           r->cells);
    fputs("  \"valid\": ", stdout);
    if (req->valid_path)
        json_string(req->valid_path);
    else
        fputs("null", stdout);
    fputs(",\n  \"options\": {\"heightScale\": ", stdout);
    json_number(r->options.height_scale);
    printf(", \"lowpassRadius\": %u, \"histogramBins\": %d},\n", r->options.lowpass_radius,
           TF_METRICS_HISTOGRAM_BINS);
    fputs("  \"metrics\": {\n    \"slopeRange\": ", stdout);
    json_number(r->slope_range);
    for (size_t i = 0; i < METRIC_COUNT; i++) {
        const metric_row *m = &METRICS[i];
        printf(",\n    \"%s\": ", m->json_key);
        if (!m->per_map) {
            json_number(double_at(r, m->offset));
            continue;
        }
        double a = double_at(&r->a, m->offset), b = double_at(&r->b, m->offset);
        fputs("{\"a\": ", stdout);
        json_number(a);
        fputs(", \"b\": ", stdout);
        json_number(b);
        fputs(", \"distance\": ", stdout);
        json_number(tf_metrics_difference(a, b));
        fputs("}", stdout);
    }
    fputs("\n  }\n}\n", stdout);
}

static int compare(compare_request *req)
{
    const char *cmd = "compare";
    operand *op = req->op;
    tf_error err;
    for (int m = 0; m < 2; m++)
        op[m].is_spec = cli_looks_like_spec(op[m].path);
    if (op[0].is_spec && op[1].is_spec)
        return cli_usage_error(cmd, "A and B are both specs ('%s', '%s'); one must be a "
                                    "heightmap, whose size sets the render size",
                               op[0].path, op[1].path);

    int status = CLI_EXIT_FAILURE;
    for (int m = 0; m < 2; m++) {
        if (op[m].is_spec)
            continue;
        op[m].map = tf_layer_map_load(op[m].path, &err);
        if (!op[m].map) {
            cli_fail_error(&err);
            goto done;
        }
    }
    if (!op[0].is_spec && !op[1].is_spec &&
        (op[0].map->width != op[1].map->width || op[0].map->height != op[1].map->height)) {
        cli_fail(cmd, "sizes differ: %s is %zux%zu, %s is %zux%zu", op[0].path,
                 op[0].map->width, op[0].map->height, op[1].path, op[1].map->width,
                 op[1].map->height);
        goto done;
    }
    for (int m = 0; m < 2; m++) {
        if (!op[m].is_spec)
            continue;
        const tf_layer_map *ref = op[1 - m].map;
        op[m].map = render_spec(op[m].path, ref->width, ref->height, req->quiet, &err);
        if (!op[m].map) {
            cli_fail_error(&err);
            goto done;
        }
    }
    if (req->valid_path) {
        for (int m = 0; m < 2; m++) {
            if (tf_layer_map_apply_valid(op[m].map, req->valid_path, &err) != 0) {
                cli_fail_error(&err);
                goto done;
            }
        }
    }

    /* Measuring a million cells takes about a second: say what is going on. */
    cli_progress progress;
    cli_progress_start(&progress, "compare",
                       req->quiet || op[0].map->width * op[0].map->height < PROGRESS_MIN_PIXELS);
    cli_progress_note(&progress, "measuring", op[1].path);
    tf_metrics_report report;
    int measured = tf_metrics_compute(op[0].map, op[1].map, &req->options, &report, &err);
    cli_progress_finish(&progress);
    if (measured != 0) {
        cli_fail(cmd, "%s vs %s: %s", op[0].path, op[1].path, err.message);
        goto done;
    }
    /* Values are in [0, 1] on both sides; absent cells hold 0.5. */
    if (req->preview_path &&
        tf_preview_write_pair(req->preview_path, op[0].map->value, op[1].map->value,
                              op[0].map->width, op[0].map->height, 0.0, 1.0, 0.0, &err) != 0) {
        cli_fail_error(&err);
        goto done;
    }
    if (req->json)
        print_json(req, &report);
    else
        print_table(req, &report);
    status = CLI_EXIT_OK;
done:
    for (int m = 0; m < 2; m++)
        tf_layer_map_free(op[m].map);
    return status;
}

int cmd_compare(int argc, char **argv)
{
    compare_request req;
    memset(&req, 0, sizeof req);
    req.options = tf_metrics_options_default();
    bool help_printed;
    int status = parse_request(argc, argv, &req, &help_printed);
    if (status != CLI_EXIT_OK || help_printed)
        return status;
    return compare(&req);
}
