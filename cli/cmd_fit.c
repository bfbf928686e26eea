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

#include "cli.h"
#include "terrafit/terrafit.h"

#define NOISE_NAMES                                                                        \
    "auto, simplex, perlin-reference-simplex, perlin, exponential-perlin, polynomial, value, " \
    "cellular-f1, cellular-f2 or cellular-f2-f1"
#define KIND_NAMES "none, fbm, ridged, billow, swiss or jordan"

static const cli_command FIT = {
    .name = "fit",
    .usage = "LAYER0 [LAYER1 ...] -o SPEC [OPTIONS]\n"
             "DEM -o SPEC [--layers auto|N] [OPTIONS]",
    .about = "Fit a terrain spec to reference height layers, given bottom to top, all the\n"
             "same size: 8/16-bit PNG (grey, grey+alpha, RGB, RGBA), PGM or ESRI ASCII grid.\n"
             "Each layer becomes one noise layer: an equalized redistribution curve, a base\n"
             "frequency and, when a lower layer explains where it is present, a mask\n"
             "(docs/fitting.md). The spec's layers sum to the sum of (layer - 0.5).\n"
             "\n"
             "A single fully present reference (a DEM: every cell present or no-data) is\n"
             "auto-layered: split into octave bands, one layer each, with frequencies matched\n"
             "band by band, amplitudes calibrated on its power spectrum, mask curves that\n"
             "put roughness where the reference has it, and an output curve that restores\n"
             "its height distribution (docs/fitting.md, \"Auto-layering\").\n",
    .footer = "The same inputs and options give the same spec, byte for byte. Files are\n"
              "written under a temporary name and renamed, so they appear complete or not\n"
              "at all.\n",
};

typedef struct {
    const char **layers;
    size_t layer_count;
    const char *output_path;
    const char *report_path;
    const char *preview_path;
    const char *valid_path;
    unsigned long long points, seed, threads, max_pixels, drainage_levels, drainage_breach;
    unsigned long long drainage_inflow; /* ULLONG_MAX: not given */
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
    int count = kinds ? TF_FRACTAL_KIND_COUNT : TF_NOISE_TYPE_COUNT;
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

static int parse_frequency(const char *command, const cli_option *opt, const char *arg)
{
    if (tf_frequency_method_from_name(arg, opt->value) != 0)
        return cli_usage_error(command, "invalid --frequency '%s': expected peaks, spectrum or "
                                        "auto",
                               arg);
    return CLI_EXIT_OK;
}

/* --noise or --layer-kind (opt->long_name says which): NAME or I=NAME. */
static int parse_choice_list(const char *command, const cli_option *opt, const char *arg)
{
    char why[128];
    bool kinds = strcmp(opt->long_name, "layer-kind") == 0;
    if (parse_choices(arg, kinds, opt->value, why, sizeof why) != 0)
        return cli_usage_error(command, "invalid --%s '%s': %s (expected NAME or I=NAME, "
                                        "comma-separated; NAME: %s)",
                               opt->long_name, arg, why, kinds ? KIND_NAMES : NOISE_NAMES);
    return CLI_EXIT_OK;
}

/* --layers auto|N */
static int parse_layers(const char *command, const cli_option *opt, const char *arg)
{
    size_t *layers = opt->value;
    unsigned long long count;
    bool too_big;
    if (strcmp(arg, "auto") == 0) {
        *layers = TF_FIT_LAYERS_AUTO;
        return CLI_EXIT_OK;
    }
    if (!cli_parse_count(arg, &count, &too_big) || too_big || count == 0 ||
        count > TF_FIT_MAX_BANDS)
        return cli_usage_error(command, "invalid --layers '%s': expected auto or 1 to %d", arg,
                               TF_FIT_MAX_BANDS);
    *layers = (size_t)count;
    return CLI_EXIT_OK;
}

/* --drainage auto|off|on */
static int parse_drainage(const char *command, const cli_option *opt, const char *arg)
{
    tf_fit_drainage_mode *mode = opt->value;
    if (strcmp(arg, "auto") == 0)
        *mode = TF_FIT_DRAINAGE_AUTO;
    else if (strcmp(arg, "off") == 0)
        *mode = TF_FIT_DRAINAGE_OFF;
    else if (strcmp(arg, "on") == 0)
        *mode = TF_FIT_DRAINAGE_ON;
    else
        return cli_usage_error(command, "invalid --drainage '%s': expected auto, off or on",
                               arg);
    return CLI_EXIT_OK;
}

static int parse_slope_match(const char *command, const cli_option *opt, const char *arg)
{
    int *off = opt->value;
    if (strcmp(arg, "auto") == 0)
        *off = 0;
    else if (strcmp(arg, "off") == 0)
        *off = 1;
    else
        return cli_usage_error(command, "invalid --slope-match '%s': expected auto or off", arg);
    return CLI_EXIT_OK;
}

/* The summary's line on the drainage stage: what was chosen, or why none. */
static void print_drainage_summary(const tf_fit_drainage_report *d)
{
    if (d->chosen)
        fprintf(stderr,
                "  drainage: %d levels, spacing %.4g, depth %.4g, slope %.4g, breach %d, "
                "inflow %d, detail gain %.4g (%s): %s\n",
                d->levels, d->spacing, d->depth, d->slope, d->breach, d->inflow, d->detail_gain,
                d->preset ? d->preset : "", d->why);
    else if (d->considered)
        fprintf(stderr, "  drainage: none: %s\n", d->why);
}

/* The request as a whole, once every option is read. */
static int check_request(fit_request *req, int operands, char **argv)
{
    const char *cmd = FIT.name;
    if (operands == 0)
        return cli_usage_error(cmd, "missing LAYER0 (a reference height image)");
    if (operands > TF_MAX_LAYERS)
        return cli_usage_error(cmd, "%d layers: a spec holds at most %d", operands,
                               TF_MAX_LAYERS);
    req->layers = (const char **)argv;
    req->layer_count = (size_t)operands;
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
    cli_file inputs[TF_MAX_LAYERS + 1];
    for (size_t i = 0; i < req->layer_count; i++)
        inputs[i] = (cli_file){"the reference", req->layers[i]};
    inputs[req->layer_count] = (cli_file){"--valid", req->valid_path};
    const cli_file outputs[] = {{"-o", req->output_path},
                                {"--report", req->report_path},
                                {"--preview", req->preview_path}};
    int status = cli_check_files(cmd, inputs, req->layer_count + 1, outputs, 3);
    if (status != CLI_EXIT_OK)
        return status;
    if (req->preview_path)
        return cli_check_png_name(cmd, "--preview", req->preview_path);
    return CLI_EXIT_OK;
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
    const tf_fit_slope_match *sm = &rep->slope_match;
    if (isfinite(sm->ratio_before))
        fprintf(stderr, "  slope match: mean slope %.3g x the DEM's; tilt %.3g gives %.3g x (%s)\n",
                sm->ratio_before, sm->tilt, sm->ratio_tilted,
                sm->kept          ? "kept"
                : sm->tilt == 1.0 ? "the slope hardly answers a tilt: not tilted"
                                  : "the calibrated spec scored closer: not kept");
    print_drainage_summary(&rep->drainage);
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
    print_drainage_summary(&rep->drainage);
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
static int put_fit_preview(tf_atomic_file *file, const char *path, const char *spec_path,
                           const char *const *names, tf_layer_map *const *maps, size_t count,
                           int auto_layered, const tf_spec *spec, unsigned threads, tf_error *err)
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
    /* Each side says what it is: the reference's file (or how many layer
     * files were summed), the spec's file and how many layers it has (an
     * auto-layered DEM's one file became several bands). */
    char reference_caption[96], synthesis_caption[96];
    if (count == 1)
        snprintf(reference_caption, sizeof reference_caption, "reference: %.60s",
                 cli_base_name(names[0]));
    else
        snprintf(reference_caption, sizeof reference_caption, "reference: %zu layers", count);
    /* the layer count first: a narrow panel cuts the caption's end */
    snprintf(synthesis_caption, sizeof synthesis_caption, "synthesis, %zu layer%s: %.60s",
             spec->layer_count, spec->layer_count == 1 ? "" : "s", cli_base_name(spec_path));
    tf_preview_panel panels[2] = {{reference, w, h, 0, reference_caption},
                                  {synthesis, w, h, 0, synthesis_caption}};
    status = tf_preview_put_panels(tf_atomic_stream(file), path, panels, 2, &options, err);
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
    /* The outputs, opened first, so an unwritable path fails before any
     * work, and committed together at the end; in this order, so the spec
     * (the file the others describe) is the last to appear. */
    enum { PREVIEW_OUT, REPORT_OUT, SPEC_OUT, OUTPUTS };
    tf_atomic_file *outputs[OUTPUTS] = {NULL, NULL, NULL};
    tf_layer_map **maps = calloc(req->layer_count, sizeof *maps);
    tf_spec *spec = NULL;
    tf_fit_report report;
    memset(&report, 0, sizeof report);
    char *spec_json = NULL, *report_json = NULL;
    cli_progress progress;
    cli_progress_start(&progress, "fit", req->quiet);
    if (!maps) {
        cli_fail(FIT.name, "out of memory");
        goto done;
    }

    if (!(outputs[SPEC_OUT] = tf_atomic_open(req->output_path, &err)) ||
        (req->report_path && !(outputs[REPORT_OUT] = tf_atomic_open(req->report_path, &err))) ||
        (req->preview_path && !(outputs[PREVIEW_OUT] = tf_atomic_open(req->preview_path, &err)))) {
        cli_fail_error(FIT.name, &err);
        goto done;
    }
    for (size_t i = 0; i < req->layer_count; i++) {
        cli_progress_note(&progress, "reading", req->layers[i]);
        if (!(maps[i] = cli_load_layer_map(FIT.name, req->layers[i], &progress, &err)) ||
            (req->valid_path && tf_layer_map_apply_valid(maps[i], req->valid_path, &err) != 0)) {
            cli_progress_finish(&progress);
            cli_fail_error(FIT.name, &err);
            goto done;
        }
    }

    req->fit.names = req->layers;
    if (tf_fit((const tf_layer_map *const *)maps, req->layer_count, &req->fit, &spec, &report,
               cli_progress_callback, &progress, &err) != 0) {
        cli_progress_finish(&progress);
        cli_fail_error(FIT.name, &err);
        goto done;
    }
    cli_progress_note(&progress, "writing", req->output_path);
    if (!(spec_json = tf_spec_to_json(spec, &err)) ||
        (outputs[REPORT_OUT] && !(report_json = tf_fit_report_to_json(&report, 1, &err)))) {
        cli_progress_finish(&progress);
        cli_fail_error(FIT.name, &err);
        goto done;
    }
    const char *unwritten = put_text(outputs[SPEC_OUT], spec_json) != 0 ? req->output_path
                            : outputs[REPORT_OUT] && put_text(outputs[REPORT_OUT], report_json) != 0
                                ? req->report_path
                                : NULL;
    if (unwritten) {
        cli_progress_finish(&progress);
        cli_fail(FIT.name, "%s: cannot write file", unwritten);
        goto done;
    }
    if (outputs[PREVIEW_OUT]) {
        cli_progress_note(&progress, "writing", req->preview_path);
        if (put_fit_preview(outputs[PREVIEW_OUT], req->preview_path, req->output_path, req->layers,
                            maps, req->layer_count, report.auto_layered, spec, req->fit.threads,
                            &err) != 0) {
            cli_progress_finish(&progress);
            cli_fail_error(FIT.name, &err);
            goto done;
        }
    }
    if (tf_atomic_commit_all(outputs, OUTPUTS, &err) != 0) {
        cli_progress_finish(&progress);
        cli_fail_error(FIT.name, &err);
        goto done;
    }
    cli_progress_finish(&progress);
    if (!req->quiet)
        print_summary(req, &report, report.seconds_total);
    status = CLI_EXIT_OK;

done:
    cli_progress_finish(&progress);
    for (int k = 0; k < OUTPUTS; k++)
        tf_atomic_abort(outputs[k]);
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
    fit_request req = {.max_layer_named = -1};
    tf_fit_options_init(&req.fit);
    req.points = req.fit.points;
    req.seed = req.fit.seed;
    req.threads = req.fit.threads;
    req.max_pixels = TF_FIT_DEFAULT_MAX_PIXELS;
    req.fit.drainage_depth = 1.0;
    req.drainage_inflow = ULLONG_MAX;
    const cli_option options[] = {
        CLI_OPT_STRING('o', "output", &req.output_path, "SPEC",
                       "terrain JSON file to write (required)"),
        CLI_OPT_CALLBACK('l', "layers", &req.fit.layers, "auto|N", parse_layers,
                         cli_textf("layers for a single DEM: auto (default: one per octave up "
                                   "to 1/8 of the shorter side), 1 (the thesis's single layer) "
                                   "or 2 to %d bands",
                                   TF_FIT_MAX_BANDS)),
        CLI_OPT_COUNT('k', "points", &req.points, "K", 2, TF_FIT_MAX_POINTS,
                      cli_textf("control points per curve, 2 to %d (default %d)", TF_FIT_MAX_POINTS,
                                TF_FIT_DEFAULT_POINTS)),
        CLI_OPT_CALLBACK(0, "frequency", &req.fit.frequency, "M", parse_frequency,
                         "peaks, spectrum or auto (default auto)"),
        CLI_OPT_CALLBACK(0, "noise", &req, "LIST", parse_choice_list,
                         "base noise: NOISE for every layer, or I=NOISE for layer I (for a "
                         "DEM, band I, 0 = coarsest), comma-separated (e.g. perlin,2=value); "
                         "NOISE is " NOISE_NAMES " (default simplex); auto tries several per "
                         "layer (per band for a DEM) and keeps the best by slope and spectrum"),
        CLI_OPT_CALLBACK(0, "layer-kind", &req, "LIST", parse_choice_list,
                         "layer kind, the same way: KIND or I=KIND, KIND one of " KIND_NAMES
                         " (default none)"),
        CLI_OPT_CALLBACK(0, "drainage", &req.fit.drainage, "auto|off|on", parse_drainage,
                         "a valley network carved before the output curve (docs/fitting.md, "
                         "\"The drainage stage\"): auto (default) for a DEM where it brings "
                         "the fit closer to it, off never, on always (reference layers too)"),
        CLI_OPT_NUMBER(0, "drainage-depth", &req.fit.drainage_depth, "X", 0.0, 100.0, CLI_ABOVE_MIN,
                       "factor on the valleys' depth derived from the DEM, above 0 to 100 "
                       "(default 1)"),
        CLI_OPT_NUMBER(0, "drainage-spacing", &req.fit.drainage_spacing, "PX", 0.0, 1e6,
                       CLI_ABOVE_MIN,
                       "the coarsest valleys' spacing in pixels, above 0 to 1000000 (default: "
                       "derived from the layers' wavelengths)"),
        CLI_OPT_COUNT(0, "drainage-levels", &req.drainage_levels, "K", 1,
                      TF_FIT_DRAINAGE_MAX_LEVELS,
                      cli_textf("the valley network's levels, each twice as fine, 1 to %d "
                                "(default: down to half the finest layer's wavelength)",
                                TF_FIT_DRAINAGE_MAX_LEVELS)),
        CLI_OPT_COUNT(0, "drainage-breach", &req.drainage_breach, "B", 1,
                      TF_FIT_DRAINAGE_MAX_BREACH,
                      cli_textf("how far, in coarsest cells, a basin's lowest node cuts through "
                                "to a lower one, 1 (never) to %d (default: enough to span the "
                                "coarsest layer's basins)",
                                TF_FIT_DRAINAGE_MAX_BREACH)),
        CLI_OPT_COUNT(0, "drainage-inflow", &req.drainage_inflow, "M", 0, 8,
                      "the most valleys a coarsest node takes from its neighbours, 1 to 8, or "
                      "0 for any number (default: 2, or any number where that scores "
                      "closer to the DEM)"),
        CLI_OPT_CALLBACK(0, "slope-match", &req.fit.slope_match_off, "auto|off", parse_slope_match,
                         "auto (default): a DEM's finer bands are tilted so the fit's mean "
                         "slope is the DEM's, kept where that scores closer to the DEM "
                         "(docs/fitting.md, \"Slope match\"); off keeps the amplitudes "
                         "calibrated on the spectrum"),
        CLI_OPT_COUNT(0, "seed", &req.seed, "S", 0, UINT32_MAX,
                      "root seed of the layers' noises, 0 to 4294967295 (default 0)"),
        CLI_OPT_STRING(0, "valid", &req.valid_path, "MASK",
                       "image of the layers' size: cells where it is 0 are ignored in every "
                       "layer"),
        CLI_OPT_STRING('r', "report", &req.report_path, "FILE",
                       "also write a JSON report: frequency estimates, mask decisions, "
                       "chi-square of each layer, timings"),
        CLI_OPT_STRING('p', "preview", &req.preview_path, "FILE",
                       "also write a picture: the reference (the sum of the layers' offsets) "
                       "beside a synthesis of the same size, one colour scale (the spec's "
                       "range) for both, each captioned"),
        CLI_OPT_COUNT(0, "max-pixels", &req.max_pixels, "N", 1, (unsigned long long)1 << 50,
                      "the most reference pixels (width x height x references) to fit: a "
                      "fit's memory grows with them (default 33554432; docs/fitting.md)"),
        CLI_OPT_COUNT('j', "threads", &req.threads, "N", 0, CLI_MAX_THREADS,
                      "worker threads (default 0: one per core)"),
        CLI_OPT_FLAG('q', "quiet", &req.quiet, "no summary, no progress bar"),
        CLI_OPT_END(),
    };
    int operands = cli_parse(&FIT, options, argc, argv);
    if (operands < 0)
        return cli_parse_status(operands);
    int status = check_request(&req, operands, argv);
    if (status != CLI_EXIT_OK)
        return status;
    req.fit.points = (size_t)req.points;
    req.fit.seed = (uint32_t)req.seed;
    req.fit.threads = (unsigned)req.threads;
    req.fit.max_pixels = (size_t)req.max_pixels;
    req.fit.drainage_levels = (int)req.drainage_levels;
    req.fit.drainage_breach = (int)req.drainage_breach;
    req.fit.drainage_inflow = req.drainage_inflow == ULLONG_MAX ? 0
                              : req.drainage_inflow == 0      ? TF_FIT_DRAINAGE_INFLOW_ANY
                                                              : (int)req.drainage_inflow;
    return fit(&req);
}
