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

static const cli_command VALIDATE = {
    .name = "validate",
    .usage = "SPEC... [--strict]",
    .about = "Check each SPEC against every rule of the terrain format (docs/spec.md)\n"
             "and print \"SPEC: valid (N layers)\" (\"N layers, drainage of K levels\" with a\n"
             "drainage stage), or the problem and its JSON path.\n"
             "Members the format does not define are kept and reported as warnings.\n",
    .footer = "Exit status: 0 when every SPEC is valid, 1 otherwise.\n",
};

static int validate_one(const char *path, bool strict)
{
    tf_error err;
    tf_spec *spec = tf_spec_load(path, &err);
    if (!spec)
        return cli_fail_error(VALIDATE.name, &err);
    /* The reader checks as it loads; validating again keeps this command
     * honest should the reader ever grow more lenient. */
    if (tf_spec_validate(spec, &err) != 0) {
        tf_spec_free(spec);
        return cli_fail_error(VALIDATE.name, &err);
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
    else if (spec->drainage.levels > 0)
        printf("%s: valid (%zu layer%s, drainage of %d level%s)\n", path, spec->layer_count,
               spec->layer_count == 1 ? "" : "s", spec->drainage.levels,
               spec->drainage.levels == 1 ? "" : "s");
    else
        printf("%s: valid (%zu layer%s)\n", path, spec->layer_count,
               spec->layer_count == 1 ? "" : "s");
    tf_spec_free(spec);
    return status;
}

int cmd_validate(int argc, char **argv)
{
    bool strict = false;
    const cli_option options[] = {
        CLI_OPT_FLAG(0, "strict", &strict,
                     "reject a spec that has members the format does not define"),
        CLI_OPT_END(),
    };
    /* Every option is read before any SPEC, so --strict applies to all
     * wherever it stands. */
    int operands = cli_parse(&VALIDATE, options, argc, argv);
    if (operands < 0)
        return cli_parse_status(operands);
    if (operands == 0)
        return cli_usage_error(VALIDATE.name, "missing SPEC (a terrain JSON file)");
    int status = CLI_EXIT_OK;
    for (int k = 0; k < operands; k++)
        if (validate_one(argv[k], strict) != CLI_EXIT_OK)
            status = CLI_EXIT_FAILURE;
    return status;
}

/* ==================================================================== info */

static const cli_command INFO = {
    .name = "info",
    .usage = "SPEC [--json]",
    .about = "Summarize a spec: format version, root seed, value range, output curve,\n"
             "drainage stage (its levels, spacing down to the finest level's, depth,\n"
             "slope, reach, floor, jitter, bend, breach and its target, inflow, detail\n"
             "wavelength, fade and what it measures, seed, and which layers it carves\n"
             "and which it adds as detail), and for each layer its noise, frequency\n"
             "and wavelength (1/frequency, in world units), seed, offset,\n"
             "redistribution curve, amplitude and mask (a range, or a mask curve of a\n"
             "lower layer's value).\n",
};

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

/* docs/spec.md, "Drainage": a layer is carved when f * detailWavelength <= 1
 * (its wavelength is at least the detail wavelength), else it is detail,
 * added after carving. */
static bool layer_is_carved(const tf_spec *spec, size_t i)
{
    return spec->layers[i].frequency * spec->drainage.detail_wavelength <= 1.0;
}

/* "0, 2" or "none": the layers that are (carved = true) or are not carved. */
static void print_layer_set(const tf_spec *spec, bool carved)
{
    bool any = false;
    for (size_t i = 0; i < spec->layer_count; i++)
        if (layer_is_carved(spec, i) == carved) {
            printf("%s%zu", any ? ", " : "", i);
            any = true;
        }
    if (!any)
        printf("none");
}

static void print_drainage_text(const tf_spec *spec)
{
    const tf_drainage_spec *d = &spec->drainage;
    if (d->levels == 0) {
        printf("  drainage        none\n");
        return;
    }
    printf("  drainage        %d level%s, seed %" PRIu32 "\n", d->levels,
           d->levels == 1 ? "" : "s", d->seed);
    printf("    spacing       %.6g (finest %.6g)\n", d->spacing, ldexp(d->spacing, 1 - d->levels));
    printf("    depth         %.6g\n", d->depth);
    printf("    slope         %.6g\n", d->slope);
    printf("    reach         %.6g\n", d->reach);
    printf("    floor         %.6g\n", d->floor_width);
    printf("    jitter        %.6g\n", d->jitter);
    printf("    bend          %.6g\n", d->bend);
    printf("    breach        %d\n", d->breach);
    printf("    breachTo      %s\n", tf_breach_to_name(d->breach_to));
    printf("    inflow        %d\n", d->inflow);
    printf("    detailWavelength %.6g\n", d->detail_wavelength);
    printf("    fade          %.6g\n", d->fade);
    printf("    fadeBy        %s\n", tf_fade_by_name(d->fade_by));
    printf("    carved layers ");
    print_layer_set(spec, true);
    printf("\n    detail layers ");
    print_layer_set(spec, false);
    putchar('\n');
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
    print_drainage_text(spec);
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

/* [lo, hi] */
static cJSON *range_json(double lo, double hi)
{
    cJSON *a = cJSON_CreateArray(), *l = cli_json_number(lo), *h = cli_json_number(hi);
    if (a && l && h && cJSON_AddItemToArray(a, l) && cJSON_AddItemToArray(a, h))
        return a;
    cJSON_Delete(l);
    cJSON_Delete(h);
    cJSON_Delete(a);
    return NULL;
}

/* A curve's summary: {"points": K, "interpolation": "...", "xRange": [..],
 * "yRange": [..]}, or null when there is none. */
static cJSON *curve_json(const tf_point *points, size_t count, tf_interp interp)
{
    if (count == 0)
        return cJSON_CreateNull();
    point_ranges r = curve_point_ranges(points, count);
    cJSON *o = cJSON_CreateObject();
    if (cli_json_put_number(o, "points", (double)count) &&
        cli_json_put_string(o, "interpolation", name_or_unknown(tf_interp_name(interp))) &&
        cli_json_put(o, "xRange", range_json(r.x_min, r.x_max)) &&
        cli_json_put(o, "yRange", range_json(r.y_min, r.y_max)))
        return o;
    cJSON_Delete(o);
    return NULL;
}

static cJSON *layer_json(size_t index, const tf_layer_spec *L)
{
    point_ranges r = curve_point_ranges(L->rd_points, L->rd_point_count);
    cJSON *o = cJSON_CreateObject(), *offset = NULL;
    bool ok = cli_json_put_number(o, "index", (double)index) &&
              cli_json_put_string(o, "noise", name_or_unknown(tf_noise_type_name(L->noise_type)));
    if (ok && L->fractal_kind != TF_FRACTAL_NONE)
        ok = cli_json_put_string(o, "kind",
                                 name_or_unknown(tf_fractal_kind_name(L->fractal_kind))) &&
             cli_json_put_number(o, "octaves", L->fractal_octaves);
    ok = ok && cli_json_put_number(o, "frequency", L->frequency) &&
         cli_json_put_number(o, "wavelength", 1.0 / L->frequency) &&
         cli_json_put_number(o, "seed", L->seed) &&
         (offset = cJSON_AddArrayToObject(o, "offset"));
    for (int d = 0; ok && d < 3; d++) {
        cJSON *v = cli_json_number(L->offset[d]);
        ok = v && cJSON_AddItemToArray(offset, v);
        if (!ok)
            cJSON_Delete(v);
    }
    ok = ok &&
         cli_json_put_string(o, "interpolation",
                             name_or_unknown(tf_interp_name(L->rd_interpolation))) &&
         cli_json_put_number(o, "points", (double)L->rd_point_count) &&
         cli_json_put(o, "xRange", range_json(r.x_min, r.x_max)) &&
         cli_json_put(o, "yRange", range_json(r.y_min, r.y_max)) &&
         cli_json_put_number(o, "preAmpShift", L->pre_amp_shift) &&
         cli_json_put_number(o, "ampScale", L->amp_scale) &&
         cli_json_put_number(o, "maskLayerIndex", L->mask_layer_index) &&
         cli_json_put_number(o, "maskMinValue", L->mask_min_value) &&
         cli_json_put_number(o, "maskMaxValue", L->mask_max_value) &&
         cli_json_put_number(o, "maskFalloff", L->mask_falloff) &&
         cli_json_put(o, "maskCurve",
                      curve_json(L->mask_curve_points, L->mask_curve_point_count,
                                 L->mask_curve_interpolation));
    if (!ok) {
        cJSON_Delete(o);
        return NULL;
    }
    return o;
}

/* The indices of the layers that are (carved = true) or are not carved. */
static cJSON *layer_set_json(const tf_spec *spec, bool carved)
{
    cJSON *a = cJSON_CreateArray();
    for (size_t i = 0; a && i < spec->layer_count; i++)
        if (layer_is_carved(spec, i) == carved) {
            cJSON *v = cli_json_number((double)i);
            if (!v || !cJSON_AddItemToArray(a, v)) {
                cJSON_Delete(v);
                cJSON_Delete(a);
                return NULL;
            }
        }
    return a;
}

/* The drainage stage's members (docs/spec.md's names), the finest level's
 * spacing and the carved and detail layers; null when there is none. */
static cJSON *drainage_json(const tf_spec *spec)
{
    const tf_drainage_spec *d = &spec->drainage;
    if (d->levels == 0)
        return cJSON_CreateNull();
    cJSON *o = cJSON_CreateObject();
    if (cli_json_put_number(o, "levels", d->levels) &&
        cli_json_put_number(o, "seed", d->seed) &&
        cli_json_put_number(o, "spacing", d->spacing) &&
        cli_json_put_number(o, "finestSpacing", ldexp(d->spacing, 1 - d->levels)) &&
        cli_json_put_number(o, "depth", d->depth) && cli_json_put_number(o, "slope", d->slope) &&
        cli_json_put_number(o, "reach", d->reach) &&
        cli_json_put_number(o, "floor", d->floor_width) &&
        cli_json_put_number(o, "jitter", d->jitter) && cli_json_put_number(o, "bend", d->bend) &&
        cli_json_put_number(o, "breach", d->breach) &&
        cli_json_put(o, "breachTo", cJSON_CreateString(tf_breach_to_name(d->breach_to))) &&
        cli_json_put_number(o, "inflow", d->inflow) &&
        cli_json_put_number(o, "detailWavelength", d->detail_wavelength) &&
        cli_json_put_number(o, "fade", d->fade) &&
        cli_json_put(o, "fadeBy", cJSON_CreateString(tf_fade_by_name(d->fade_by))) &&
        cli_json_put(o, "carvedLayers", layer_set_json(spec, true)) &&
        cli_json_put(o, "detailLayers", layer_set_json(spec, false)))
        return o;
    cJSON_Delete(o);
    return NULL;
}

/* The document, or NULL when out of memory. */
static cJSON *info_json(const tf_spec *spec)
{
    cJSON *root = cJSON_CreateObject(), *layers = NULL, *unknown = NULL;
    bool ok = cli_json_put_number(root, "version", spec->version) &&
              cli_json_put_number(root, "seed", spec->seed) &&
              cli_json_put_number(root, "minValue", spec->min_value) &&
              cli_json_put_number(root, "maxValue", spec->max_value) &&
              cli_json_put(root, "outputCurve",
                           curve_json(spec->output_curve_points, spec->output_curve_point_count,
                                      spec->output_curve_interpolation)) &&
              cli_json_put(root, "drainage", drainage_json(spec)) &&
              (layers = cJSON_AddArrayToObject(root, "layers"));
    for (size_t i = 0; ok && i < spec->layer_count; i++) {
        cJSON *layer = layer_json(i, &spec->layers[i]);
        ok = layer && cJSON_AddItemToArray(layers, layer);
        if (!ok)
            cJSON_Delete(layer);
    }
    ok = ok && (unknown = cJSON_AddArrayToObject(root, "unknownMembers"));
    for (size_t k = 0; ok && k < spec->unknown_key_count; k++) {
        cJSON *name = cJSON_CreateString(spec->unknown_keys[k]);
        ok = name && cJSON_AddItemToArray(unknown, name);
        if (!ok)
            cJSON_Delete(name);
    }
    if (!ok) {
        cJSON_Delete(root);
        return NULL;
    }
    return root;
}

int cmd_info(int argc, char **argv)
{
    bool as_json = false;
    const cli_option options[] = {
        CLI_OPT_FLAG(0, "json", &as_json,
                     "print the summary as one JSON object (every number reads back as the "
                     "same double)"),
        CLI_OPT_END(),
    };
    int operands = cli_parse(&INFO, options, argc, argv);
    if (operands < 0)
        return cli_parse_status(operands);
    cli_common c;
    cli_common_init(&c, 0, 0);
    int status = cli_common_operands(INFO.name, &c, operands, argv, "SPEC", "a terrain JSON file",
                                     NULL, NULL);
    if (status != CLI_EXIT_OK)
        return status;

    tf_error err;
    tf_spec *spec = tf_spec_load(c.spec, &err);
    if (!spec)
        return cli_fail_error(INFO.name, &err);
    if (as_json) {
        static const char *const expanded[] = {"layers", NULL};
        status = cli_json_print(INFO.name, info_json(spec), expanded);
    } else {
        print_info_text(c.spec, spec);
    }
    tf_spec_free(spec);
    return status;
}
