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

static const cli_command COMPARE = {
    .name = "compare",
    .usage = "A B [OPTIONS]",
    .about = "Measure how alike two height maps are. A and B are heightmaps (PNG, PGM,\n"
             "ESRI ASCII grid) of the same size, or one of them is a terrain spec (JSON),\n"
             "which is rendered at the other's size (origin 0,0, step 1) and normalized\n"
             "to [0, 1] with the spec's minValue..maxValue; a spec whose range is the\n"
             "heightmap's (one fitted to it) is compared in the heightmap's units. A cell\n"
             "counts where both maps are present (alpha > 0, not no-data) and --valid\n"
             "allows it.\n",
    .footer = "Metrics (docs/metrics.md): value histogram chi-square (32 bins, the thesis's\n"
              "0.5 sum (a-b)^2/(a+b)); power spectrum shape (RMS of log10 differences) and\n"
              "slope beta; slope histogram chi-square, mean, exponential rate and evenness\n"
              "(mean / RMS); box dimension of the median contour; peaks per 1000 cells; pits\n"
              "per peak; share of cells in closed depressions; after routing flow on the\n"
              "filled surface, share of cells draining 64 or more cells and mean flow path\n"
              "length to an outlet over sqrt(cells); normal-score correlations of roughness\n"
              "and of slope with low-pass elevation. 'n/a' (JSON null) marks a value a map\n"
              "does not define, e.g. the slope rate of a flat map.\n"
              "\n"
              "Exit status: 0 compared, 1 bad input (unreadable file, sizes differ, no\n"
              "common cell), 2 usage error.\n",
};

typedef struct {
    const char *path;
    bool is_spec;
    tf_layer_map *map;
    double lo, hi;         /* a spec's minValue and maxValue */
    bool mapped;           /* its render is compared in the heightmap's units, */
    double map_lo, map_hi; /* its 0 .. 1 mapped onto these */
} operand;

typedef struct {
    operand op[2];
    const char *valid_path;
    const char *preview_path;
    bool json;
    bool quiet;
    double height_scale;
    unsigned long long radius;
    tf_metrics_options options;
} compare_request;

/* A spec rendered at the other map's size as a layer map: its normalized
 * heights, weight 0 where a height is not finite. */
static tf_layer_map *render_spec(operand *op, size_t width, size_t height, bool quiet,
                                 tf_error *err)
{
    tf_terrain *terrain = tf_terrain_load(op->path, err);
    if (terrain) {
        op->lo = tf_terrain_min_value(terrain);
        op->hi = tf_terrain_max_value(terrain);
    }
    tf_layer_map *map = terrain ? tf_layer_map_new(width, height, err) : NULL;
    float *heights = NULL;
    if (map) {
        cli_progress progress;
        cli_progress_start(&progress, "render", quiet || width * height < PROGRESS_MIN_PIXELS);
        heights = tf_render_normalized(terrain, 0.0, 0.0, 1.0, width, height, 0, 0,
                                       cli_progress_callback, &progress, err);
        cli_progress_finish(&progress);
    }
    tf_terrain_free(terrain);
    if (!heights) {
        tf_layer_map_free(map);
        return NULL;
    }
    for (size_t k = 0; k < width * height; k++) {
        bool finite = isfinite(heights[k]);
        map->value[k] = finite ? heights[k] : 0.5f;
        map->weight[k] = finite ? 1.0f : 0.0f;
    }
    free(heights);
    return map;
}

/* A spec fitted to the heightmap is compared in the heightmap's units.
 * `terrafit fit` states a fitted spec's range from the reference's lowest
 * and highest counted values, in the reference's units (its format's range
 * is 0 .. 1; a fit of reference layers shifts them by -0.5 a layer), while
 * the render is normalized over that range to 0 .. 1. A DEM that fills its
 * format's range is unchanged by that; one that does not (heights at 0.2
 * .. 0.9 of a PNG's range) would be compared with a copy of its fit
 * stretched over 0 .. 1. So when maxValue - minValue is the heightmap's
 * extent (its highest less its lowest counted value, weight > 0 and
 * finite), within 2^-20 of it, the render's 0 .. 1 is mapped back onto
 * those two values. Any other spec keeps 0 .. 1, as a render of it
 * written by `terrafit render` has. */
static void map_fitted_range(operand *spec, const tf_layer_map *ref)
{
    double lo = INFINITY, hi = -INFINITY;
    for (size_t k = 0; k < ref->width * ref->height; k++) {
        double v = ref->value[k];
        if (ref->weight[k] > 0.0f && isfinite(v)) {
            lo = v < lo ? v : lo;
            hi = v > hi ? v : hi;
        }
    }
    double extent = hi - lo, stated = spec->hi - spec->lo;
    bool fitted = extent > 0.0 && fabs(stated - extent) <= 0x1p-20 * extent;
    spec->mapped = fitted;
    spec->map_lo = lo;
    spec->map_hi = hi;
    if (!fitted || (lo == 0.0 && hi == 1.0))
        return; /* 0 .. 1 are already the heightmap's values */
    tf_layer_map *map = spec->map;
    for (size_t k = 0; k < map->width * map->height; k++)
        map->value[k] = (float)(lo + (double)map->value[k] * (hi - lo));
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
    EACH("slope evenness (mean / RMS)", "slopeEvenness", slope_evenness),
    EACH("median contour box dimension", "boxDimension", box_dimension),
    EACH("peaks per 1000 cells", "peakDensity", peak_density),
    EACH("pits per peak", "pitPeakRatio", pit_peak_ratio),
    EACH("depression share", "depressionShare", depression_share),
    EACH("channel share (>= 64 cells)", "channelShare", channel_share),
    EACH("flow path length / sqrt(cells)", "flowPathLength", flow_path_length),
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

static void print_operand(char name, const operand *op, const tf_metrics_report *r)
{
    printf("%c: %s (%s, %zux%zu", name, op->path, operand_kind(op), r->width, r->height);
    if (op->mapped && !(op->map_lo == 0.0 && op->map_hi == 1.0))
        printf(", in the heightmap's units: mapped onto %.6g .. %.6g", op->map_lo, op->map_hi);
    printf(")\n");
}

static void print_table(const compare_request *req, const tf_metrics_report *r)
{
    size_t total = r->width * r->height;
    print_operand('A', &req->op[0], r);
    print_operand('B', &req->op[1], r);
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

/* ---- JSON (docs/metrics.md): one record a line */

static cJSON *operand_json(const operand *op)
{
    cJSON *o = cJSON_CreateObject();
    if (!cli_json_put_string(o, "path", op->path) ||
        !cli_json_put_string(o, "kind", op->is_spec ? "spec" : "heightmap")) {
        cJSON_Delete(o);
        return NULL;
    }
    /* whether the render was mapped onto the heightmap's range */
    if (op->is_spec && !cli_json_put(o, "inHeightmapUnits", cJSON_CreateBool(op->mapped))) {
        cJSON_Delete(o);
        return NULL;
    }
    return o;
}

static cJSON *metric_json(double a, double b)
{
    cJSON *o = cJSON_CreateObject();
    if (!cli_json_put_number(o, "a", a) || !cli_json_put_number(o, "b", b) ||
        !cli_json_put_number(o, "distance", tf_metrics_difference(a, b))) {
        cJSON_Delete(o);
        return NULL;
    }
    return o;
}

/* The document, or NULL when out of memory. */
static cJSON *compare_json(const compare_request *req, const tf_metrics_report *r)
{
    cJSON *root = cJSON_CreateObject(), *options = NULL, *metrics = NULL;
    bool ok = cli_json_put_string(root, "format", "terrafit-compare") &&
              cli_json_put_number(root, "version", COMPARE_JSON_VERSION) &&
              cli_json_put(root, "a", operand_json(&req->op[0])) &&
              cli_json_put(root, "b", operand_json(&req->op[1])) &&
              cli_json_put_number(root, "width", (double)r->width) &&
              cli_json_put_number(root, "height", (double)r->height) &&
              cli_json_put_number(root, "cells", (double)r->cells) &&
              cli_json_put_string(root, "valid", req->valid_path) &&
              (options = cJSON_AddObjectToObject(root, "options")) &&
              cli_json_put_number(options, "heightScale", r->options.height_scale) &&
              cli_json_put_number(options, "lowpassRadius", r->options.lowpass_radius) &&
              cli_json_put_number(options, "histogramBins", TF_METRICS_HISTOGRAM_BINS) &&
              (metrics = cJSON_AddObjectToObject(root, "metrics")) &&
              cli_json_put_number(metrics, "slopeRange", r->slope_range);
    for (size_t i = 0; ok && i < METRIC_COUNT; i++) {
        const metric_row *m = &METRICS[i];
        ok = m->per_map ? cli_json_put(metrics, m->json_key,
                                       metric_json(double_at(&r->a, m->offset),
                                                   double_at(&r->b, m->offset)))
                        : cli_json_put_number(metrics, m->json_key, double_at(r, m->offset));
    }
    if (!ok) {
        cJSON_Delete(root);
        return NULL;
    }
    return root;
}

/* --preview: A beside B, shaded on one scale as `fit --preview` shades,
 * each captioned with its file; absent cells show as no data. */
static int write_preview(const compare_request *req, tf_error *err)
{
    const tf_layer_map *a = req->op[0].map, *b = req->op[1].map;
    size_t cells = a->width * a->height;
    float *heights = malloc(2 * cells * sizeof *heights);
    if (!heights) {
        err->code = TF_ERR_NOMEM;
        snprintf(err->message, sizeof err->message, "%s: out of memory for a %zux%zu preview",
                 req->preview_path, a->width, a->height);
        return -1;
    }
    char captions[2][300];
    tf_preview_panel panels[2];
    for (int m = 0; m < 2; m++) {
        const tf_layer_map *map = m ? b : a;
        float *h = heights + (size_t)m * cells;
        for (size_t k = 0; k < cells; k++)
            h[k] = map->weight[k] > 0.0f ? map->value[k] : NAN;
        snprintf(captions[m], sizeof captions[m], "%c: %s", "AB"[m],
                 cli_base_name(req->op[m].path));
        panels[m] = (tf_preview_panel){h, a->width, a->height, 0, captions[m]};
    }
    tf_preview_options options = tf_preview_options_default();
    options.lo = 0.0; /* both maps hold values in [0, 1] */
    options.hi = 1.0;
    int status = tf_preview_write_panels(req->preview_path, panels, 2, &options, err);
    free(heights);
    return status;
}

static int compare(compare_request *req)
{
    const char *cmd = COMPARE.name;
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
        op[m].map = cli_load_layer_map(cmd, op[m].path, NULL, &err);
        if (!op[m].map) {
            cli_fail_error(cmd, &err);
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
        op[m].map = render_spec(&op[m], ref->width, ref->height, req->quiet, &err);
        if (!op[m].map) {
            cli_fail_error(cmd, &err);
            goto done;
        }
    }
    if (req->valid_path) {
        for (int m = 0; m < 2; m++) {
            if (tf_layer_map_apply_valid(op[m].map, req->valid_path, &err) != 0) {
                cli_fail_error(cmd, &err);
                goto done;
            }
        }
    }
    for (int m = 0; m < 2; m++)
        if (op[m].is_spec)
            map_fitted_range(&op[m], op[1 - m].map);

    /* Measuring a million cells takes about a second: say what is going on. */
    cli_progress progress;
    cli_progress_start(&progress, cmd,
                       req->quiet || op[0].map->width * op[0].map->height < PROGRESS_MIN_PIXELS);
    cli_progress_note(&progress, "measuring", op[1].path);
    tf_metrics_report report;
    int measured = tf_metrics_compute(op[0].map, op[1].map, &req->options, &report, &err);
    cli_progress_finish(&progress);
    if (measured != 0) {
        cli_fail(cmd, "%s vs %s: %s", op[0].path, op[1].path, err.message);
        goto done;
    }
    if (req->preview_path && write_preview(req, &err) != 0) {
        cli_fail_error(cmd, &err);
        goto done;
    }
    if (req->json) {
        static const char *const expanded[] = {"metrics", NULL};
        status = cli_json_print(cmd, compare_json(req, &report), expanded);
        goto done;
    }
    print_table(req, &report);
    status = CLI_EXIT_OK;
done:
    for (int m = 0; m < 2; m++)
        tf_layer_map_free(op[m].map);
    return status;
}

int cmd_compare(int argc, char **argv)
{
    const char *cmd = COMPARE.name;
    compare_request req = {.options = tf_metrics_options_default()};
    req.height_scale = req.options.height_scale;
    req.radius = req.options.lowpass_radius;
    const cli_option options[] = {
        CLI_OPT_STRING(0, "valid", &req.valid_path, "MASK",
                       "ignore cells where MASK (same size) is 0"),
        CLI_OPT_FLAG(0, "json", &req.json, "print JSON instead of a table"),
        CLI_OPT_NUMBER(0, "height-scale", &req.height_scale, "S", 0.0, MAX_HEIGHT_SCALE,
                       CLI_ABOVE_MIN,
                       "slopes are S * |gradient| of the [0, 1] values per pixel, 0 < S <= 1e6 "
                       "(default 1; for a DEM with relief R on cells of size c, R/c gives rise "
                       "over run)"),
        CLI_OPT_COUNT(0, "radius", &req.radius, "R", 1, MAX_RADIUS,
                      cli_textf("low-pass box half-width in pixels for roughness and "
                                "elevation, 1 to %u (default %u)",
                                MAX_RADIUS, tf_metrics_options_default().lowpass_radius)),
        CLI_OPT_STRING('p', "preview", &req.preview_path, "FILE",
                       "also write A and B side by side as a shaded-relief RGB PNG (one tint "
                       "and relief scale for both), captioned with their file names"),
        CLI_OPT_FLAG('q', "quiet", &req.quiet, "no progress bar"),
        CLI_OPT_END(),
    };
    int operands = cli_parse(&COMPARE, options, argc, argv);
    if (operands < 0)
        return cli_parse_status(operands);
    if (operands < 2)
        return cli_usage_error(cmd, operands ? "missing B (the second map)"
                                             : "missing A and B (the maps to compare)");
    if (operands > 2)
        return cli_usage_error(cmd, "two maps expected (A and B), got a third: '%s'", argv[2]);
    const cli_file inputs[] = {{"A", argv[0]}, {"B", argv[1]}, {"--valid", req.valid_path}};
    const cli_file outputs[] = {{"--preview", req.preview_path}};
    int status = cli_check_files(cmd, inputs, 3, outputs, 1);
    if (status == CLI_EXIT_OK && req.preview_path)
        status = cli_check_png_name(cmd, "--preview", req.preview_path);
    if (status != CLI_EXIT_OK)
        return status;
    req.op[0].path = argv[0];
    req.op[1].path = argv[1];
    req.options.height_scale = req.height_scale;
    req.options.lowpass_radius = (unsigned)req.radius;
    return compare(&req);
}
