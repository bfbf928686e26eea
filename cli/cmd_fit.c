/*
 * `terrafit fit`: read reference height layers, fit a terrain spec to them
 * (tf_fit) and write it, with an optional JSON report. Outputs are opened
 * before the work starts and renamed into place at the end, so a failed run
 * leaves no file behind.
 */
#include <limits.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "terrafit/terrafit.h"

#define NOISE_NAMES                                                                        \
    "auto, simplex, perlin-reference-simplex, perlin, exponential-perlin, polynomial, value, " \
    "cellular-f1, cellular-f2 or cellular-f2-f1"
#define KIND_NAMES "none, fbm, ridged, billow, swiss or jordan"

enum {
    OPT_HELP,
    OPT_OUTPUT,
    OPT_POINTS,
    OPT_FREQUENCY,
    OPT_NOISE,
    OPT_SEED,
    OPT_VALID,
    OPT_REPORT,
    OPT_THREADS,
    OPT_QUIET,
    OPT_LAYERS,
    OPT_PREVIEW,
    OPT_LAYER_KIND
};

static const cli_option OPTIONS[] = {
    {"help", 'h', false, OPT_HELP},           {"output", 'o', true, OPT_OUTPUT},
    {"points", 'k', true, OPT_POINTS},        {"frequency", 0, true, OPT_FREQUENCY},
    {"noise", 0, true, OPT_NOISE},            {"seed", 0, true, OPT_SEED},
    {"valid", 0, true, OPT_VALID},            {"report", 'r', true, OPT_REPORT},
    {"threads", 'j', true, OPT_THREADS},      {"quiet", 'q', false, OPT_QUIET},
    {"layers", 'l', true, OPT_LAYERS},        {"preview", 'p', true, OPT_PREVIEW},
    {"layer-kind", 0, true, OPT_LAYER_KIND},  {NULL, 0, false, 0},
};

static void print_usage(void)
{
    printf("Usage: terrafit fit LAYER0 [LAYER1 ...] -o SPEC [OPTIONS]\n"
           "       terrafit fit DEM -o SPEC [--layers auto|N] [OPTIONS]\n"
           "Fit a terrain spec to reference height layers, given bottom to top, all the\n"
           "same size: 8/16-bit PNG (grey, grey+alpha, RGB, RGBA), PGM or ESRI ASCII grid.\n"
           "Each layer becomes one noise layer: an equalized redistribution curve, a base\n"
           "frequency and, when a lower layer explains where it is present, a mask\n"
           "(docs/fitting.md). The spec's layers sum to the sum of (layer - 0.5).\n"
           "\n"
           "A single fully present reference (a DEM: every cell present or no-data) is\n"
           "auto-layered: split into octave bands, one layer each, with frequencies matched\n"
           "band by band, amplitudes calibrated on its power spectrum, mask curves that\n"
           "put roughness where the reference has it, and an output curve that restores\n"
           "its height distribution (docs/fitting.md, \"Auto-layering\").\n"
           "\n"
           "Options:\n"
           "  -o, --output SPEC      terrain JSON file to write (required)\n"
           "  -l, --layers auto|N    layers for a single DEM: auto (default: one per\n"
           "                         octave up to 1/8 of the shorter side), 1 (the\n"
           "                         thesis's single layer) or 2 to %d bands\n"
           "  -k, --points K         control points per curve, 2 to %d (default %d)\n"
           "      --frequency M      peaks, spectrum or auto (default auto)\n"
           "      --noise LIST       base noise: NOISE for every layer, or I=NOISE for\n"
           "                         layer I (for a DEM, band I, 0 = coarsest),\n"
           "                         comma-separated (e.g. perlin,2=value); NOISE is\n"
           "                         %s\n"
           "                         (default simplex); auto tries several per layer\n"
           "                         (per band for a DEM) and keeps the best by slope\n"
           "                         and spectrum\n"
           "      --layer-kind LIST  layer kind, the same way: KIND or I=KIND, KIND one\n"
           "                         of %s (default none)\n"
           "      --seed S           root seed of the layers' noises, 0 to 4294967295\n"
           "                         (default 0)\n"
           "      --valid MASK       image of the layers' size: cells where it is 0 are\n"
           "                         ignored in every layer\n"
           "  -r, --report FILE      also write a JSON report: frequency estimates, mask\n"
           "                         decisions, chi-square of each layer, timings\n"
           "  -p, --preview FILE     also write a picture: the reference (the sum of the\n"
           "                         layers' offsets) beside a synthesis of the same size,\n"
           "                         one colour scale (the spec's range) for both\n"
           "  -j, --threads N        worker threads (default 0: one per core)\n"
           "  -q, --quiet            no summary, no progress bar\n"
           "  -h, --help             print this help and exit\n"
           "\n"
           "The same inputs and options give the same spec, byte for byte. Files are\n"
           "written under a temporary name and renamed, so they appear complete or not\n"
           "at all.\n",
           TF_FIT_MAX_BANDS, TF_FIT_MAX_POINTS, TF_FIT_DEFAULT_POINTS, NOISE_NAMES, KIND_NAMES);
}

typedef struct {
    const char **layers;
    size_t layer_count;
    const char *output_path;
    const char *report_path;
    const char *preview_path;
    const char *valid_path;
    const char *points_text;
    unsigned long long points;
    bool points_too_big;
    tf_fit_options fit;
    bool quiet;
    int max_layer_named; /* highest I in --noise / --layer-kind I=..., or -1 */
} fit_request;

/* A name's code for --noise (noise type + 1, TF_FIT_LAYER_NOISE_AUTO for
 * "auto") or --layer-kind (kind + 1, "none" included); 0 if unknown. */
static unsigned choice_code(const char *name, size_t len, bool kinds)
{
    if (!kinds && len == 4 && strncmp(name, "auto", 4) == 0)
        return TF_FIT_LAYER_NOISE_AUTO;
    int count = kinds ? TF_FRACTAL_KIND_COUNT : TF_NOISE_KIND_COUNT;
    for (int k = 0; k < count; k++) {
        const char *n = kinds ? tf_fractal_kind_name((tf_fractal_kind)k)
                              : tf_noise_type_name((tf_noise_type)k);
        if (strlen(n) == len && strncmp(name, n, len) == 0)
            return (unsigned)k + 1;
    }
    return 0;
}

/* --noise / --layer-kind LIST: comma-separated NAME (every layer) or I=NAME
 * (layer I). 0, or -1 with `why` set to the faulty item. */
static int parse_choices(const char *list, bool kinds, fit_request *req, char *why, size_t size)
{
    const char *p = list;
    if (!*p) {
        snprintf(why, size, "an empty list");
        return -1;
    }
    for (;;) {
        const char *end = strchr(p, ',');
        size_t len = end ? (size_t)(end - p) : strlen(p);
        const char *eq = memchr(p, '=', len);
        long layer = -1;
        const char *name = p;
        size_t name_len = len;
        if (eq) {
            char digits[16];
            size_t dl = (size_t)(eq - p);
            unsigned long long idx;
            bool too_big;
            if (dl == 0 || dl >= sizeof digits) {
                snprintf(why, size, "'%.*s' has no layer index before '='", (int)len, p);
                return -1;
            }
            memcpy(digits, p, dl);
            digits[dl] = '\0';
            if (!cli_parse_count(digits, &idx, &too_big) || too_big || idx >= TF_MAX_LAYERS) {
                snprintf(why, size, "'%s' is not a layer index (0 to %d)", digits,
                         TF_MAX_LAYERS - 1);
                return -1;
            }
            layer = (long)idx;
            name = eq + 1;
            name_len = len - dl - 1;
        }
        unsigned code = choice_code(name, name_len, kinds);
        if (code == 0) {
            snprintf(why, size, "unknown %s '%.*s'", kinds ? "layer kind" : "noise",
                     (int)name_len, name);
            return -1;
        }
        if (layer < 0 && kinds) {
            req->fit.fractal = (tf_fractal_kind)(code - 1);
        } else if (layer < 0) {
            req->fit.noise_auto = code == TF_FIT_LAYER_NOISE_AUTO;
            if (code != TF_FIT_LAYER_NOISE_AUTO)
                req->fit.noise = (tf_noise_type)(code - 1);
        } else {
            (kinds ? req->fit.layer_fractal : req->fit.layer_noise)[layer] = (unsigned char)code;
            if (layer > req->max_layer_named)
                req->max_layer_named = (int)layer;
        }
        if (!end)
            return 0;
        p = end + 1;
    }
}

/* Reads the command line into `req`. CLI_EXIT_OK to go on; anything else is
 * the exit status (help printed, or a usage error reported). */
static int parse_request(int argc, char **argv, fit_request *req, bool *help_printed)
{
    const char *cmd = "fit";
    cli_args args;
    cli_args_init(&args, cmd, OPTIONS, argc, argv);
    *help_printed = false;
    for (int id; (id = cli_args_next(&args)) != CLI_ARGS_END;) {
        const char *v = args.value;
        bool too_big = false;
        unsigned long long count;
        switch (id) {
        case CLI_ARGS_ERROR:
            return CLI_EXIT_USAGE;
        case CLI_ARGS_POSITIONAL:
            if (req->layer_count >= TF_MAX_LAYERS)
                return cli_fail(cmd, "more than %d layers: a spec holds at most %d",
                                TF_MAX_LAYERS, TF_MAX_LAYERS);
            req->layers[req->layer_count++] = v;
            break;
        case OPT_HELP:
            print_usage();
            *help_printed = true;
            return CLI_EXIT_OK;
        case OPT_OUTPUT:
            req->output_path = v;
            break;
        case OPT_POINTS:
            if (!cli_parse_count(v, &req->points, &req->points_too_big))
                return cli_usage_error(cmd, "invalid --points '%s': expected a whole number", v);
            req->points_text = v;
            break;
        case OPT_FREQUENCY:
            if (tf_frequency_method_from_name(v, &req->fit.frequency) != 0)
                return cli_usage_error(cmd,
                                       "invalid --frequency '%s': expected peaks, spectrum or auto",
                                       v);
            break;
        case OPT_NOISE:
        case OPT_LAYER_KIND: {
            char why[128];
            bool kinds = id == OPT_LAYER_KIND;
            if (parse_choices(v, kinds, req, why, sizeof why) != 0)
                return cli_usage_error(cmd, "invalid --%s '%s': %s (expected NAME or I=NAME, "
                                            "comma-separated; NAME: %s)",
                                       kinds ? "layer-kind" : "noise", v, why,
                                       kinds ? KIND_NAMES : NOISE_NAMES);
            break;
        }
        case OPT_SEED:
            if (!cli_parse_count(v, &count, &too_big) || too_big || count > UINT32_MAX)
                return cli_usage_error(cmd, "invalid --seed '%s': expected 0 to 4294967295", v);
            req->fit.seed = (uint32_t)count;
            break;
        case OPT_VALID:
            req->valid_path = v;
            break;
        case OPT_PREVIEW:
            req->preview_path = v;
            break;
        case OPT_REPORT:
            req->report_path = v;
            break;
        case OPT_THREADS:
            if (cli_option_threads(cmd, v, &req->fit.threads) != CLI_EXIT_OK)
                return CLI_EXIT_USAGE;
            break;
        case OPT_QUIET:
            req->quiet = true;
            break;
        case OPT_LAYERS:
            if (strcmp(v, "auto") == 0) {
                req->fit.layers = TF_FIT_LAYERS_AUTO;
                break;
            }
            if (!cli_parse_count(v, &count, &too_big) || count == 0)
                return cli_usage_error(cmd, "invalid --layers '%s': expected auto or 1 to %d", v,
                                       TF_FIT_MAX_BANDS);
            if (too_big || count > TF_FIT_MAX_BANDS)
                return cli_fail(cmd, "--layers %s: must be auto or 1 to %d (TF_FIT_MAX_BANDS)",
                                v, TF_FIT_MAX_BANDS);
            req->fit.layers = (size_t)count;
            break;
        default:
            return cli_usage_error(cmd, "internal error: unhandled option %d", id);
        }
    }
    if (req->layer_count == 0)
        return cli_usage_error(cmd, "missing LAYER0 (a reference height image)");
    if (!req->output_path)
        return cli_usage_error(cmd, "missing -o SPEC (the terrain JSON file to write)");
    /* A single reference may be split into bands (--layers auto or N): the
     * library checks the layer index against the band count then. */
    if (req->max_layer_named >= 0 && (size_t)req->max_layer_named >= req->layer_count &&
        !(req->layer_count == 1 && req->fit.layers != 1))
        return cli_usage_error(cmd,
                               "--noise or --layer-kind names layer %d, but %zu reference%s "
                               "give%s layers 0 to %zu",
                               req->max_layer_named, req->layer_count,
                               req->layer_count == 1 ? "" : "s", req->layer_count == 1 ? "s" : "",
                               req->layer_count - 1);
    if (req->report_path && strcmp(req->report_path, req->output_path) == 0)
        return cli_usage_error(cmd, "--report and -o name the same file '%s'", req->output_path);
    if (req->preview_path && (strcmp(req->preview_path, req->output_path) == 0 ||
                              (req->report_path && strcmp(req->preview_path, req->report_path) == 0)))
        return cli_usage_error(cmd, "--preview names the same file as -o or --report ('%s')",
                               req->preview_path);
    /* Well formed but out of range is a failure (status 1), as for other
     * documented limits. */
    if (req->points_text) {
        if (req->points_too_big || req->points < 2 || req->points > TF_FIT_MAX_POINTS)
            return cli_fail(cmd, "--points %s: must be 2 to %d (TF_FIT_MAX_POINTS)",
                            req->points_text, TF_FIT_MAX_POINTS);
        req->fit.points = (size_t)req->points;
    }
    return CLI_EXIT_OK;
}

static void on_fit_progress(void *user, size_t done, size_t total)
{
    cli_progress_update(user, done, total);
}

/* A layer's --noise auto candidates, one line each, the chosen marked. */
static void print_noise_candidates(const tf_fit_layer_report *l, const char *indent)
{
    for (size_t k = 0; k < l->noise_candidate_count; k++) {
        const tf_fit_noise_candidate *c = &l->noise_candidates[k];
        fprintf(stderr, "%scandidate %-18s slope chi2 %.4g + spectrum rms %.4g = %.4g%s\n", indent,
                tf_noise_type_name(c->noise), c->slope_chi2, c->spectrum_log_rms, c->score,
                c->noise == l->noise && isfinite(c->score) ? "  (chosen)" : "");
    }
}

/* One line per band of an auto-layered fit (and its --noise auto
 * candidates). */
static void print_auto_summary(const fit_request *req, const tf_fit_report *rep)
{
    for (size_t i = 0; i < rep->layer_count; i++) {
        const tf_fit_layer_report *l = &rep->layers[i];
        char band[64];
        if (i == 0)
            snprintf(band, sizeof band, "low-pass at %.3g px", l->band_sigma_fine);
        else if (l->band_sigma_fine == 0.0)
            snprintf(band, sizeof band, "residual below %.3g px", l->band_sigma_coarse);
        else
            snprintf(band, sizeof band, "band %.3g-%.3g px", l->band_sigma_fine,
                     l->band_sigma_coarse);
        fprintf(stderr,
                "  layer %zu: %s, rms %.3g, frequency %.5g (wavelength %.4g px), amplitude %.3g",
                i, band, l->band_rms, l->frequency.chosen, 1.0 / l->frequency.chosen,
                l->amplitude);
        if (l->mask_curve_points)
            fprintf(stderr, ", mask curve %.2f..%.2f", l->mask_curve_min, l->mask_curve_max);
        if (l->gentle_blend < 1.0)
            fprintf(stderr, ", heavy-tailed (kurtosis %.2g, blend %.2f)", l->kurtosis,
                    l->gentle_blend);
        if (l->noise != TF_NOISE_SIMPLEX || l->fractal != TF_FRACTAL_NONE ||
            l->noise_candidate_count)
            fprintf(stderr, ", noise %s, kind %s", tf_noise_type_name(l->noise),
                    tf_fractal_kind_name(l->fractal));
        fprintf(stderr, ", chi-square %.3g\n", l->chi2);
        print_noise_candidates(l, "    ");
    }
    fprintf(stderr, "  output curve: %zu points, chi-square of the layer sum %.3g -> %.3g; "
            "spectral calibration rms %.3g\n",
            rep->output_curve_points, rep->output_chi2_before, rep->output_chi2_after,
            rep->calibration_rms);
    fprintf(stderr, "wrote %s (range %.4g..%.4g)%s%s; fitting took %.2f s\n", req->output_path,
            rep->min_value, rep->max_value, req->report_path ? " and " : "",
            req->report_path ? req->report_path : "", rep->seconds_total);
}

static void print_summary(const fit_request *req, const tf_fit_report *rep, double seconds)
{
    fprintf(stderr, "terrafit fit: %zu layer%s%s, %zux%zu, %zu points, %s noise, seed %lu\n",
            rep->layer_count, rep->layer_count == 1 ? "" : "s",
            rep->auto_layered ? " (auto-layered bands of one reference)" : "", rep->width,
            rep->height, rep->points,
            rep->noise_auto ? "auto" : tf_noise_type_name(rep->noise), (unsigned long)rep->seed);
    if (rep->auto_layered) {
        print_auto_summary(req, rep);
        return;
    }
    for (size_t i = 0; i < rep->layer_count; i++) {
        const tf_fit_layer_report *l = &rep->layers[i];
        fprintf(stderr, "  layer %zu (%s): %zu visible cells, values %.4g..%.4g\n", i,
                req->layers[i], l->visible_cells, l->value_min, l->value_max);
        if (l->noise != TF_NOISE_SIMPLEX || l->fractal != TF_FRACTAL_NONE ||
            l->noise_candidate_count)
            fprintf(stderr, "    noise %s, kind %s\n", tf_noise_type_name(l->noise),
                    tf_fractal_kind_name(l->fractal));
        print_noise_candidates(l, "    ");
        if (l->frequency_estimated)
            fprintf(stderr,
                    "    frequency %.6g (wavelength %.4g px) by %s; peaks %.6g, spectrum %.6g\n",
                    l->frequency.chosen, 1.0 / l->frequency.chosen,
                    tf_frequency_method_name(l->frequency.chosen_method), l->frequency.peaks,
                    l->frequency.spectrum);
        else
            fprintf(stderr, "    flat layer: frequency %.6g (no effect)\n", l->frequency.chosen);
        if (l->mask_layer >= 0)
            fprintf(stderr, "    masked by layer %d: [%.4g, %.4g], falloff %.4g\n", l->mask_layer,
                    l->mask_min, l->mask_max, l->mask_falloff);
        else
            fprintf(stderr, "    %s\n", l->mask_reason);
        fprintf(stderr, "    %zu control points, chi-square %.3g (synthesized vs reference)\n",
                l->points, l->chi2);
    }
    fprintf(stderr, "wrote %s (range %.4g..%.4g)%s%s; fitting took %.2f s\n", req->output_path,
            rep->min_value, rep->max_value, req->report_path ? " and " : "",
            req->report_path ? req->report_path : "", seconds);
}

/* Write `text` to an opened atomic file's stream (committed later). */
static int put_text(tf_atomic_file *file, const char *text)
{
    FILE *stream = tf_atomic_stream(file);
    size_t len = strlen(text);
    return fwrite(text, 1, len, stream) == len ? 0 : -1;
}

/* --preview: the reference in the spec's height units beside the spec
 * rendered on a window of the same size at the origin, shaded over the
 * spec's range. The units: for one layer per reference, the sum of the
 * layers' offsets (value - 0.5; thesis 5.4.2, the sum the spec
 * reproduces); an auto-layered DEM's output curve maps to its values
 * themselves (docs/fitting.md, section 11). Cells no layer covers show as
 * no data. 0 on success. */
static int write_fit_preview(const char *path, const char *spec_path, tf_layer_map *const *maps,
                             size_t count, int auto_layered, const tf_spec *spec,
                             unsigned threads, tf_error *err)
{
    size_t w = maps[0]->width, h = maps[0]->height, cells = w * h;
    float *reference = malloc(cells * sizeof *reference);
    float *synthesis = malloc(cells * sizeof *synthesis);
    tf_terrain *terrain = NULL;
    int status = -1;
    if (!reference || !synthesis) {
        err->code = TF_ERR_NOMEM;
        snprintf(err->message, sizeof err->message, "%s: out of memory for a %zux%zu preview",
                 path, w, h);
        goto done;
    }
    for (size_t k = 0; k < cells; k++) {
        double sum = 0.0;
        int covered = 0;
        for (size_t i = 0; i < count; i++) {
            sum += (double)maps[i]->value[k] - (auto_layered ? 0.0 : 0.5);
            covered |= maps[i]->weight[k] > 0.0f;
        }
        reference[k] = covered ? (float)sum : NAN;
    }
    if (!(terrain = tf_terrain_compile(spec, err)) ||
        tf_render_grid(terrain, 0.0, 0.0, 1.0, w, h, threads, synthesis, NULL, NULL, err) != 0)
        goto done;
    tf_preview_options options = tf_preview_options_default();
    options.lo = spec->min_value;
    options.hi = spec->max_value;
    char reference_caption[96], synthesis_caption[96];
    snprintf(reference_caption, sizeof reference_caption, "reference (%zu layer%s)", count,
             count == 1 ? "" : "s");
    const char *slash = strrchr(spec_path, '/');
    snprintf(synthesis_caption, sizeof synthesis_caption, "synthesis: %.60s",
             slash ? slash + 1 : spec_path);
    tf_preview_panel panels[2] = {{reference, w, h, 0, reference_caption},
                                  {synthesis, w, h, 0, synthesis_caption}};
    status = tf_preview_write_panels(path, panels, 2, &options, err);
done:
    tf_terrain_free(terrain);
    free(reference);
    free(synthesis);
    return status;
}

static int fit(fit_request *req)
{
    tf_error err;
    int status = CLI_EXIT_FAILURE;
    tf_atomic_file *out = NULL, *report_file = NULL;
    tf_layer_map **maps = calloc(req->layer_count, sizeof *maps);
    tf_spec *spec = NULL;
    tf_fit_report report;
    memset(&report, 0, sizeof report);
    char *spec_json = NULL, *report_json = NULL;
    cli_progress progress;
    cli_progress_start(&progress, "fit", req->quiet);
    if (!maps) {
        cli_fail("fit", "out of memory");
        goto done;
    }

    /* Outputs first: an unwritable path fails at once, before any work. */
    if (!(out = tf_atomic_open(req->output_path, &err)) ||
        (req->report_path && !(report_file = tf_atomic_open(req->report_path, &err)))) {
        cli_fail_error(&err);
        goto done;
    }
    for (size_t i = 0; i < req->layer_count; i++) {
        cli_progress_note(&progress, "reading", req->layers[i]);
        if (!(maps[i] = tf_layer_map_load(req->layers[i], &err)) ||
            (req->valid_path && tf_layer_map_apply_valid(maps[i], req->valid_path, &err) != 0)) {
            cli_progress_finish(&progress);
            cli_fail_error(&err);
            goto done;
        }
    }

    req->fit.names = req->layers;
    if (tf_fit((const tf_layer_map *const *)maps, req->layer_count, &req->fit, &spec, &report,
               on_fit_progress, &progress, &err) != 0) {
        cli_progress_finish(&progress);
        cli_fail_error(&err);
        goto done;
    }
    cli_progress_note(&progress, "writing", req->output_path);
    if (!(spec_json = tf_spec_to_json(spec, &err)) ||
        (report_file && !(report_json = tf_fit_report_to_json(&report, 1, &err)))) {
        cli_progress_finish(&progress);
        cli_fail_error(&err);
        goto done;
    }
    const char *unwritten = put_text(out, spec_json) != 0 ? req->output_path
                            : report_file && put_text(report_file, report_json) != 0
                                ? req->report_path
                                : NULL;
    if (unwritten) {
        cli_progress_finish(&progress);
        cli_fail("fit", "%s: cannot write file", unwritten);
        goto done;
    }
    /* The preview, then the report, then the spec: if a later one fails,
     * the earlier ones are removed, so a failed run leaves none. */
    if (req->preview_path) {
        cli_progress_note(&progress, "writing", req->preview_path);
        if (write_fit_preview(req->preview_path, req->output_path, maps, req->layer_count,
                              report.auto_layered, spec, req->fit.threads, &err) != 0) {
            cli_progress_finish(&progress);
            cli_fail_error(&err);
            goto done;
        }
    }
    if (report_file) {
        int failed = tf_atomic_commit(report_file, &err);
        report_file = NULL;
        if (failed) {
            if (req->preview_path)
                unlink(req->preview_path);
            cli_progress_finish(&progress);
            cli_fail_error(&err);
            goto done;
        }
    }
    {
        int failed = tf_atomic_commit(out, &err);
        out = NULL;
        if (failed) {
            if (req->report_path)
                unlink(req->report_path);
            if (req->preview_path)
                unlink(req->preview_path);
            cli_progress_finish(&progress);
            cli_fail_error(&err);
            goto done;
        }
    }
    cli_progress_finish(&progress);
    if (!req->quiet)
        print_summary(req, &report, report.seconds_total);
    status = CLI_EXIT_OK;

done:
    cli_progress_finish(&progress);
    tf_atomic_abort(out);
    tf_atomic_abort(report_file);
    free(spec_json);
    free(report_json);
    tf_fit_report_free(&report);
    tf_spec_free(spec);
    if (maps)
        for (size_t i = 0; i < req->layer_count; i++)
            tf_layer_map_free(maps[i]);
    free(maps);
    return status;
}

int cmd_fit(int argc, char **argv)
{
    fit_request req;
    memset(&req, 0, sizeof req);
    tf_fit_options_init(&req.fit);
    req.max_layer_named = -1;
    /* At most one layer per argument. */
    req.layers = calloc(argc > 0 ? (size_t)argc : 1, sizeof *req.layers);
    if (!req.layers)
        return cli_fail("fit", "out of memory");
    bool help_printed;
    int status = parse_request(argc, argv, &req, &help_printed);
    if (status == CLI_EXIT_OK && !help_printed)
        status = fit(&req);
    free(req.layers);
    return status;
}
