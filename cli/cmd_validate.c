/*
 * The commands that read a spec without sampling it: `terrafit validate`
 * (every rule of the format, optionally no unknown members) and
 * `terrafit info` (a summary of the layers, for people or, with --json, for
 * scripts).
 */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "cli.h"

/* ================================================================ validate */

enum { VALIDATE_HELP, VALIDATE_STRICT };

static const cli_option VALIDATE_OPTIONS[] = {
    {"help", 'h', false, VALIDATE_HELP},
    {"strict", 0, false, VALIDATE_STRICT},
    {NULL, 0, false, 0},
};

static void print_validate_usage(void)
{
    fputs("Usage: terrafit validate SPEC... [--strict]\n"
          "Check each SPEC against every rule of the terrain format (docs/spec.md)\n"
          "and print \"SPEC: valid (N layers)\", or the problem and its JSON path.\n"
          "Members the format does not define are kept and reported as warnings.\n"
          "\n"
          "Options:\n"
          "      --strict  reject a spec that has members the format does not define\n"
          "  -h, --help    print this help and exit\n"
          "\n"
          "Exit status: 0 when every SPEC is valid, 1 otherwise.\n",
          stdout);
}

static int validate_one(const char *path, bool strict)
{
    tf_error err;
    tf_spec *spec = tf_spec_load(path, &err);
    if (!spec)
        return cli_fail_error(&err);
    /* The reader checks as it loads; validating again keeps this command
     * honest should the reader ever grow more lenient. */
    if (tf_spec_validate(spec, &err) != 0) {
        tf_spec_free(spec);
        return cli_fail_error(&err);
    }
    for (size_t k = 0; k < spec->unknown_key_count; k++) {
        if (strict)
            fprintf(stderr, "%s: unknown member %s\n", path, spec->unknown_keys[k]);
        else
            fprintf(stderr, "%s: warning: unknown member %s (kept; --strict rejects)\n", path,
                    spec->unknown_keys[k]);
    }
    int status = CLI_EXIT_OK;
    if (strict && spec->unknown_key_count > 0)
        status = CLI_EXIT_FAILURE;
    else
        printf("%s: valid (%zu layer%s)\n", path, spec->layer_count,
               spec->layer_count == 1 ? "" : "s");
    tf_spec_free(spec);
    return status;
}

int cmd_validate(int argc, char **argv)
{
    bool strict = false;
    cli_args args;
    /* Collect options first so --strict applies to every SPEC wherever it
     * appears; positionals are read in a second pass. */
    cli_args_init(&args, "validate", VALIDATE_OPTIONS, argc, argv);
    int spec_count = 0;
    for (int id; (id = cli_args_next(&args)) != CLI_ARGS_END;) {
        switch (id) {
        case CLI_ARGS_ERROR:
            return CLI_EXIT_USAGE;
        case CLI_ARGS_POSITIONAL:
            spec_count++;
            break;
        case VALIDATE_HELP:
            print_validate_usage();
            return CLI_EXIT_OK;
        case VALIDATE_STRICT:
            strict = true;
            break;
        default:
            return cli_usage_error("validate", "internal error: unhandled option %d", id);
        }
    }
    if (spec_count == 0)
        return cli_usage_error("validate", "missing SPEC (a terrain JSON file)");

    int status = CLI_EXIT_OK;
    cli_args_init(&args, "validate", VALIDATE_OPTIONS, argc, argv);
    for (int id; (id = cli_args_next(&args)) != CLI_ARGS_END;)
        if (id == CLI_ARGS_POSITIONAL && validate_one(args.value, strict) != CLI_EXIT_OK)
            status = CLI_EXIT_FAILURE;
    return status;
}

/* ==================================================================== info */

enum { INFO_HELP, INFO_JSON };

static const cli_option INFO_OPTIONS[] = {
    {"help", 'h', false, INFO_HELP},
    {"json", 0, false, INFO_JSON},
    {NULL, 0, false, 0},
};

static void print_info_usage(void)
{
    fputs("Usage: terrafit info SPEC [--json]\n"
          "Summarize a spec: format version, root seed, value range, output curve,\n"
          "and for each layer its noise, frequency and wavelength (1/frequency, in\n"
          "world units), seed, offset, redistribution curve, amplitude and mask\n"
          "(a range, or a mask curve of a lower layer's value).\n"
          "\n"
          "Options:\n"
          "      --json  print the summary as one JSON object (every number reads\n"
          "              back as the same double)\n"
          "  -h, --help  print this help and exit\n",
          stdout);
}

/* What `info` reports about a curve's control points. */
typedef struct {
    double x_min, x_max, y_min, y_max;
} point_ranges;

static point_ranges curve_point_ranges(const tf_point *points, size_t count)
{
    point_ranges r = {NAN, NAN, NAN, NAN};
    for (size_t k = 0; k < count; k++) {
        const tf_point *p = &points[k];
        if (k == 0 || p->x < r.x_min)
            r.x_min = p->x;
        if (k == 0 || p->x > r.x_max)
            r.x_max = p->x;
        if (k == 0 || p->y < r.y_min)
            r.y_min = p->y;
        if (k == 0 || p->y > r.y_max)
            r.y_max = p->y;
    }
    return r;
}

static const char *name_or_unknown(const char *name)
{
    return name ? name : "unknown";
}

/* "12 points, monotone-cubic (x 0.1 .. 0.9, y -1 .. 1)" */
static void print_curve_text(const tf_point *points, size_t count, tf_interp interp)
{
    point_ranges r = curve_point_ranges(points, count);
    printf("%zu points, %s (x %.6g .. %.6g, y %.6g .. %.6g)\n", count,
           name_or_unknown(tf_interp_name(interp)), r.x_min, r.x_max, r.y_min, r.y_max);
}

static void print_info_text(const char *path, const tf_spec *spec)
{
    printf("%s: %s version %d, %zu layer%s\n", path, TF_FORMAT_NAME, spec->version,
           spec->layer_count, spec->layer_count == 1 ? "" : "s");
    printf("  seed            %" PRIu32 "\n", spec->seed);
    printf("  value range     %.6g .. %.6g\n", spec->min_value, spec->max_value);
    if (spec->output_curve_point_count == 0) {
        printf("  output curve    none\n");
    } else {
        printf("  output curve    ");
        print_curve_text(spec->output_curve_points, spec->output_curve_point_count,
                         spec->output_curve_interpolation);
    }
    for (size_t k = 0; k < spec->unknown_key_count; k++)
        printf("  unknown member  %s\n", spec->unknown_keys[k]);
    for (size_t i = 0; i < spec->layer_count; i++) {
        const tf_layer_spec *L = &spec->layers[i];
        point_ranges r = curve_point_ranges(L->rd_points, L->rd_point_count);
        printf("layer %zu\n", i);
        printf("  noise           %s\n", name_or_unknown(tf_noise_type_name(L->noise_type)));
        if (L->fractal_kind != TF_FRACTAL_NONE) {
            printf("  kind            %s: %d octaves, lacunarity %.6g, gain %.6g",
                   name_or_unknown(tf_fractal_kind_name(L->fractal_kind)), L->fractal_octaves,
                   L->fractal_lacunarity, L->fractal_gain);
            if (L->fractal_kind == TF_FRACTAL_SWISS)
                printf(", warp %.6g", L->fractal_warp);
            if (L->fractal_kind == TF_FRACTAL_JORDAN)
                printf(", gain1 %.6g, warp0 %.6g, warp %.6g, damp0 %.6g, damp %.6g, "
                       "damp_scale %.6g",
                       L->fractal_gain1, L->fractal_warp0, L->fractal_warp, L->fractal_damp0,
                       L->fractal_damp, L->fractal_damp_scale);
            putchar('\n');
        }
        printf("  frequency       %.6g (wavelength %.6g)\n", L->frequency, 1.0 / L->frequency);
        printf("  seed            %" PRIu32 "\n", L->seed);
        printf("  offset          %.6g, %.6g, %.6g\n", L->offset[0], L->offset[1], L->offset[2]);
        printf("  interpolation   %s\n", name_or_unknown(tf_interp_name(L->rd_interpolation)));
        printf("  points          %zu (x %.6g .. %.6g, y %.6g .. %.6g)\n", L->rd_point_count,
               r.x_min, r.x_max, r.y_min, r.y_max);
        printf("  preAmpShift     %.6g\n", L->pre_amp_shift);
        printf("  ampScale        %.6g\n", L->amp_scale);
        if (L->mask_curve_point_count > 0) {
            printf("  mask            curve of layer %d's value: ", L->mask_layer_index);
            print_curve_text(L->mask_curve_points, L->mask_curve_point_count,
                             L->mask_curve_interpolation);
        } else if (L->mask_layer_index < 0) {
            printf("  mask            unmasked\n");
        } else {
            printf("  mask            masked by layer %d: [%.6g, %.6g], falloff %.6g\n",
                   L->mask_layer_index, L->mask_min_value, L->mask_max_value, L->mask_falloff);
        }
    }
}

/* Shortest of %.15g and %.17g that reads back as the same double (as
 * cJSON does): 0.05 rather than 0.050000000000000003. JSON has no NaN or
 * infinity (a frequency too small to invert, say): those become null
 * rather than an unreadable document. */
static void json_number(double v)
{
    if (!isfinite(v)) {
        fputs("null", stdout);
        return;
    }
    char text[32];
    snprintf(text, sizeof text, "%.15g", v);
    if (strtod(text, NULL) != v)
        snprintf(text, sizeof text, "%.17g", v);
    fputs(text, stdout);
}

/* A JSON string: quotes, backslashes and control characters escaped;
 * other bytes (UTF-8 from the spec's own member names) pass through. */
static void json_string(const char *s)
{
    putchar('"');
    for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
        if (*p == '"' || *p == '\\')
            printf("\\%c", *p);
        else if (*p == '\n')
            fputs("\\n", stdout);
        else if (*p == '\t')
            fputs("\\t", stdout);
        else if (*p < 0x20)
            printf("\\u%04x", *p);
        else
            putchar(*p);
    }
    putchar('"');
}

static void json_range(double lo, double hi)
{
    putchar('[');
    json_number(lo);
    fputs(", ", stdout);
    json_number(hi);
    putchar(']');
}

/* A curve's summary: {"points": K, "interpolation": "...", "xRange": [..],
 * "yRange": [..]}, or null when there is none. */
static void print_curve_json(const tf_point *points, size_t count, tf_interp interp)
{
    if (count == 0) {
        fputs("null", stdout);
        return;
    }
    point_ranges r = curve_point_ranges(points, count);
    printf("{\"points\": %zu, \"interpolation\": ", count);
    json_string(name_or_unknown(tf_interp_name(interp)));
    fputs(", \"xRange\": ", stdout);
    json_range(r.x_min, r.x_max);
    fputs(", \"yRange\": ", stdout);
    json_range(r.y_min, r.y_max);
    putchar('}');
}

/* One layer on one line: readable, and easy to pick apart with grep. */
static void print_layer_json(size_t index, const tf_layer_spec *L)
{
    point_ranges r = curve_point_ranges(L->rd_points, L->rd_point_count);
    printf("    {\"index\": %zu, \"noise\": ", index);
    json_string(name_or_unknown(tf_noise_type_name(L->noise_type)));
    if (L->fractal_kind != TF_FRACTAL_NONE) {
        fputs(", \"kind\": ", stdout);
        json_string(name_or_unknown(tf_fractal_kind_name(L->fractal_kind)));
        printf(", \"octaves\": %d", L->fractal_octaves);
    }
    fputs(", \"frequency\": ", stdout);
    json_number(L->frequency);
    fputs(", \"wavelength\": ", stdout);
    json_number(1.0 / L->frequency);
    printf(", \"seed\": %" PRIu32 ", \"offset\": [", L->seed);
    for (int d = 0; d < 3; d++) {
        json_number(L->offset[d]);
        fputs(d < 2 ? ", " : "]", stdout);
    }
    fputs(", \"interpolation\": ", stdout);
    json_string(name_or_unknown(tf_interp_name(L->rd_interpolation)));
    printf(", \"points\": %zu, \"xRange\": ", L->rd_point_count);
    json_range(r.x_min, r.x_max);
    fputs(", \"yRange\": ", stdout);
    json_range(r.y_min, r.y_max);
    fputs(", \"preAmpShift\": ", stdout);
    json_number(L->pre_amp_shift);
    fputs(", \"ampScale\": ", stdout);
    json_number(L->amp_scale);
    printf(", \"maskLayerIndex\": %d, \"maskMinValue\": ", L->mask_layer_index);
    json_number(L->mask_min_value);
    fputs(", \"maskMaxValue\": ", stdout);
    json_number(L->mask_max_value);
    fputs(", \"maskFalloff\": ", stdout);
    json_number(L->mask_falloff);
    fputs(", \"maskCurve\": ", stdout);
    print_curve_json(L->mask_curve_points, L->mask_curve_point_count,
                     L->mask_curve_interpolation);
    putchar('}');
}

static void print_info_json(const tf_spec *spec)
{
    printf("{\n  \"version\": %d,\n  \"seed\": %" PRIu32 ",\n  \"minValue\": ", spec->version,
           spec->seed);
    json_number(spec->min_value);
    fputs(",\n  \"maxValue\": ", stdout);
    json_number(spec->max_value);
    fputs(",\n  \"outputCurve\": ", stdout);
    print_curve_json(spec->output_curve_points, spec->output_curve_point_count,
                     spec->output_curve_interpolation);
    fputs(",\n  \"layers\": [\n", stdout);
    for (size_t i = 0; i < spec->layer_count; i++) {
        print_layer_json(i, &spec->layers[i]);
        fputs(i + 1 < spec->layer_count ? ",\n" : "\n", stdout);
    }
    fputs("  ],\n  \"unknownMembers\": [", stdout);
    for (size_t k = 0; k < spec->unknown_key_count; k++) {
        if (k > 0)
            fputs(", ", stdout);
        json_string(spec->unknown_keys[k]);
    }
    fputs("]\n}\n", stdout);
}

int cmd_info(int argc, char **argv)
{
    const char *spec_path = NULL;
    bool as_json = false;
    cli_args args;
    cli_args_init(&args, "info", INFO_OPTIONS, argc, argv);
    for (int id; (id = cli_args_next(&args)) != CLI_ARGS_END;) {
        switch (id) {
        case CLI_ARGS_ERROR:
            return CLI_EXIT_USAGE;
        case CLI_ARGS_POSITIONAL:
            if (cli_option_spec("info", args.value, &spec_path) != CLI_EXIT_OK)
                return CLI_EXIT_USAGE;
            break;
        case INFO_HELP:
            print_info_usage();
            return CLI_EXIT_OK;
        case INFO_JSON:
            as_json = true;
            break;
        default:
            return cli_usage_error("info", "internal error: unhandled option %d", id);
        }
    }
    if (!spec_path)
        return cli_usage_error("info", "missing SPEC (a terrain JSON file)");

    tf_error err;
    tf_spec *spec = tf_spec_load(spec_path, &err);
    if (!spec)
        return cli_fail_error(&err);
    if (as_json)
        print_info_json(spec);
    else
        print_info_text(spec_path, spec);
    tf_spec_free(spec);
    return CLI_EXIT_OK;
}
