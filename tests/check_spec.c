/*
 * The spec reader, validator and writer: every case in tests/invalid/
 * (one folder per class of bad spec: input.json + the expected message),
 * every spec in tests/valid/ and samples/, writer round trips (same text,
 * same bits), defaults and limits (docs/spec.md).
 */
#define _DEFAULT_SOURCE
#include <check.h>
#include <locale.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "terrafit/runtime.h"
#include "testutil.h"

static void trim_newline(char *s)
{
    size_t n = strlen(s);
    while (n && (s[n - 1] == '\n' || s[n - 1] == '\r'))
        s[--n] = '\0';
}

/* ---- invalid specs: one folder per class, each its own test iteration */

/* tests/invalid/'s case folders, listed when the suite is built. */
static char **invalid_cases;
static size_t invalid_count;

START_TEST(invalid_cases_are_present)
{
    ck_assert_msg(invalid_count >= 40, "tests/invalid: %zu cases, expected at least 40",
                  invalid_count);
}
END_TEST

START_TEST(invalid_case_is_rejected_with_its_message)
{
    const char *name = invalid_cases[_i];
    char input[4200]; /* tu_path's buffers are reused: keep our own copy */
    snprintf(input, sizeof input, "%s/tests/invalid/%s/input.json", tu_srcdir(), name);
    char *expected = tu_read_file(tu_path("%s/tests/invalid/%s/error", tu_srcdir(), name), NULL);
    ck_assert_msg(expected != NULL, "%s: no error file", name);
    trim_newline(expected);
    ck_assert_msg(expected[0] != '\0', "%s: empty error file", name);

    tf_error err = {0, ""};
    tf_spec *spec = tf_spec_load(input, &err);
    ck_assert_msg(spec == NULL, "%s: accepted", name);
    ck_assert_msg(err.code != TF_OK, "%s: no error code", name);
    ck_assert_msg(strstr(err.message, expected) != NULL, "%s: message \"%s\" lacks \"%s\"", name,
                  err.message, expected);
    /* It starts with the file name, or, where the name is too long for
     * the 256 bytes, with "..." and the name's end. */
    const char *colon = strstr(err.message, ": ");
    size_t shown = colon ? (size_t)(colon - err.message) : 0, input_len = strlen(input);
    int named = strstr(err.message, input) == err.message ||
                (shown > 3 && strncmp(err.message, "...", 3) == 0 && shown - 3 <= input_len &&
                 strncmp(err.message + 3, input + input_len - (shown - 3), shown - 3) == 0);
    ck_assert_msg(named, "%s: message \"%s\" does not start with the file name", name,
                  err.message);
    /* The same text from memory fails the same way, and no terrain is built. */
    size_t len;
    char *text = tu_read_file(input, &len);
    ck_assert_msg(text != NULL, "%s: cannot read %s", name, input);
    tf_error err2;
    ck_assert_msg(tf_terrain_parse(text, len, &err2) == NULL, "%s (memory): accepted", name);
    ck_assert_msg(strstr(err2.message, expected) != NULL, "%s (memory): \"%s\"", name,
                  err2.message);
    ck_assert_msg(tf_terrain_load(input, &err2) == NULL, "%s: tf_terrain_load accepted", name);
    free(text);
    free(expected);
}
END_TEST

START_TEST(oversized_file_is_refused)
{
    char *dir = tu_mkdtemp();
    const char *path = tu_path("%s/huge.json", dir);
    FILE *f = fopen(path, "wb");
    ck_assert(f != NULL);
    /* Valid JSON padded with white space past the limit. */
    fputs("{\"noiseLayers\": []", f);
    for (unsigned k = 0; k < TF_MAX_SPEC_BYTES; k += 4096) {
        static char spaces[4096];
        memset(spaces, ' ', sizeof spaces);
        fwrite(spaces, 1, sizeof spaces, f);
    }
    fputs("}", f);
    fclose(f);
    tf_error err;
    ck_assert(tf_spec_load(path, &err) == NULL);
    ck_assert_int_eq(err.code, TF_ERR_LIMIT);
    ck_assert_ptr_nonnull(strstr(err.message, "16777216-byte limit"));
    tu_rmtree(dir);
    free(dir);
}
END_TEST

START_TEST(missing_file_names_the_path)
{
    tf_error err;
    ck_assert(tf_terrain_load("/nonexistent/dir/terrain.json", &err) == NULL);
    ck_assert_int_eq(err.code, TF_ERR_IO);
    ck_assert_ptr_nonnull(strstr(err.message, "/nonexistent/dir/terrain.json: cannot open"));
    ck_assert(tf_spec_load(NULL, &err) == NULL);
    ck_assert_int_eq(err.code, TF_ERR_ARGUMENT);
}
END_TEST

START_TEST(syntax_errors_give_line_and_column)
{
    const char *text = "{\n  \"noiseLayers\": [\n    {\"baseNoise\": {\"frequency\": 0.1,}}\n]}";
    tf_error err;
    ck_assert(tf_spec_parse(text, strlen(text), "t.json", &err) == NULL);
    ck_assert_int_eq(err.code, TF_ERR_PARSE);
    ck_assert_msg(strncmp(err.message, "t.json:3:", 9) == 0, "%s", err.message);
    /* Not NUL-terminated: the length is honoured. */
    const char *good = "{\"noiseLayers\":[{\"baseNoise\":{\"frequency\":0.1},"
                       "\"rd\":{\"points\":[{\"x\":0,\"y\":0},{\"x\":1,\"y\":1}]}}]}XXXX";
    tf_spec *spec = tf_spec_parse(good, strlen(good) - 4, NULL, &err);
    ck_assert_msg(spec != NULL, "%s", err.message);
    tf_spec_free(spec);
    ck_assert(tf_spec_parse(good, strlen(good), NULL, &err) == NULL);
    ck_assert_ptr_nonnull(strstr(err.message, "<string>:1:"));
    ck_assert_ptr_nonnull(strstr(err.message, "after the value"));
    /* Embedded NUL byte. */
    char nul[] = "{\"noiseLayers\": []}\0{}";
    ck_assert(tf_spec_parse(nul, sizeof nul - 1, NULL, &err) == NULL);
    ck_assert_int_eq(err.code, TF_ERR_PARSE);
    /* Deep nesting fails cleanly (no stack overflow). */
    size_t depth = 100000;
    char *deep = malloc(2 * depth + 1);
    memset(deep, '[', depth);
    memset(deep + depth, ']', depth);
    deep[2 * depth] = '\0';
    ck_assert(tf_spec_parse(deep, 2 * depth, NULL, &err) == NULL);
    free(deep);
}
END_TEST

/* ---- valid specs and the writer */

/* Every spec in tests/valid/ and every terrain.json under samples/, as
 * paths from the source tree's root, listed when the suite is built. */
static char **valid_specs;
static size_t valid_count;

static void list_valid_specs(void)
{
    size_t n, m;
    char **names = tu_list_cases(tu_path("%s/tests/valid", tu_srcdir()), ".json", 0, &n);
    char **samples = tu_list_cases(tu_path("%s/samples", tu_srcdir()), NULL, 1, &m);
    valid_specs = calloc(n + m + 1, sizeof *valid_specs);
    if (!valid_specs)
        abort();
    for (size_t i = 0; i < n; i++)
        valid_specs[valid_count++] = strdup(tu_path("tests/valid/%s", names[i]));
    for (size_t i = 0; i < m; i++) {
        struct stat st;
        if (stat(tu_path("%s/samples/%s/terrain.json", tu_srcdir(), samples[i]), &st) == 0)
            valid_specs[valid_count++] = strdup(tu_path("samples/%s/terrain.json", samples[i]));
    }
    tu_free_list(names, n);
    tu_free_list(samples, m);
}

static void assert_same_heights(const tf_terrain *a, const tf_terrain *b, const char *what)
{
    for (int k = 0; k < 2000; k++) {
        double x = (k * 7919 % 4001) * 1.37 - 2000.0, y = (k * 104729 % 3001) * 2.11 - 3000.0;
        double ha = tf_terrain_sample(a, x, y), hb = tf_terrain_sample(b, x, y);
        ck_assert_msg(memcmp(&ha, &hb, sizeof ha) == 0, "%s: h(%g, %g) %a != %a", what, x, y, ha,
                      hb);
    }
}

START_TEST(valid_specs_are_present)
{
    ck_assert_msg(valid_count >= 8, "tests/valid and samples: %zu specs, expected at least 8",
                  valid_count);
}
END_TEST

START_TEST(valid_spec_loads_and_round_trips)
{
    const char *name = valid_specs[_i];
    char path[4200]; /* tu_path's buffers are reused: keep our own copy */
    snprintf(path, sizeof path, "%s/%s", tu_srcdir(), name);
    tf_error err;
    tf_spec *spec = tf_spec_load(path, &err);
    ck_assert_msg(spec != NULL, "%s: %s", name, err.message);
    ck_assert_msg(tf_spec_validate(spec, &err) == 0, "%s: %s", name, err.message);
    tf_terrain *t = tf_terrain_compile(spec, &err);
    ck_assert_msg(t != NULL, "%s: %s", name, err.message);

    /* load -> write -> load evaluates bit-identically, and writing
     * again gives the same text (the writer is a fixed point). */
    char *json = tf_spec_to_json(spec, &err);
    ck_assert_msg(json != NULL, "%s: %s", name, err.message);
    tf_spec *again = tf_spec_parse(json, strlen(json), "rewritten", &err);
    ck_assert_msg(again != NULL, "%s: rewritten: %s\n%s", name, err.message, json);
    char *json2 = tf_spec_to_json(again, &err);
    ck_assert_msg(json2 != NULL && strcmp(json, json2) == 0,
                  "%s: written again, the text differs:\n%s\n---\n%s", name, json,
                  json2 ? json2 : err.message);
    /* unknown members inside control points are dropped on rewrite */
    ck_assert_msg(again->unknown_key_count <= spec->unknown_key_count,
                  "%s: %zu unknown members after rewriting, %zu before", name,
                  (size_t)again->unknown_key_count, (size_t)spec->unknown_key_count);
    tf_terrain *t2 = tf_terrain_compile(again, &err);
    ck_assert_msg(t2 != NULL, "%s: rewritten: %s", name, err.message);
    assert_same_heights(t, t2, name);
    /* the terrain keeps its own copy of the spec */
    char *json3 = tf_spec_to_json(tf_terrain_spec(t), &err);
    ck_assert_msg(json3 != NULL && strcmp(json, json3) == 0,
                  "%s: the terrain's copy of the spec writes differently", name);

    free(json);
    free(json2);
    free(json3);
    tf_terrain_free(t);
    tf_terrain_free(t2);
    tf_spec_free(again);
    tf_spec_free(spec);
}
END_TEST

static tf_spec *parse_ok(const char *json)
{
    tf_error err;
    tf_spec *spec = tf_spec_parse(json, strlen(json), "test", &err);
    ck_assert_msg(spec != NULL, "%s", err.message);
    return spec;
}

#define ONE_LAYER(extra_root, extra_layer)                                                    \
    "{" extra_root "\"noiseLayers\":[{\"baseNoise\":{\"frequency\":0.1},"                     \
    "\"rd\":{\"points\":[{\"x\":0.2,\"y\":-1},{\"x\":0.8,\"y\":3}]}" extra_layer "}]}"

START_TEST(numbers_read_back_as_the_same_double)
{
    tf_spec *spec = tf_spec_new(1, NULL);
    uint64_t state = 42;
    tf_point p[300];
    double x = -1e-300;
    for (int k = 0; k < 300; k++) {
        state = state * 6364136223846793005ULL + 1442695040888963407ULL;
        double frac = (double)(state >> 11) * 0x1.0p-53;
        x += 1e-310 + frac * (k % 3 == 0 ? 1e-5 : k % 3 == 1 ? 1.0 : 1e5);
        p[k].x = x;
        p[k].y = (frac - 0.5) * pow(10.0, (double)(k % 40) - 20.0);
    }
    ck_assert_int_eq(tf_spec_set_rd_points(spec, 0, p, 300, NULL), 0);
    spec->layers[0].frequency = 1.0 / 3.0;
    spec->min_value = -0.1;
    spec->max_value = 1e300;
    char *json = tf_spec_to_json(spec, NULL);
    tf_spec *back = parse_ok(json);
    for (int k = 0; k < 300; k++) {
        ck_assert(back->layers[0].rd_points[k].x == p[k].x);
        ck_assert(back->layers[0].rd_points[k].y == p[k].y);
    }
    ck_assert(back->layers[0].frequency == 1.0 / 3.0);
    ck_assert(back->min_value == -0.1 && back->max_value == 1e300);
    for (int d = 0; d < 3; d++)
        ck_assert(back->layers[0].offset[d] == spec->layers[0].offset[d]);
    free(json);
    tf_spec_free(back);
    tf_spec_free(spec);
}
END_TEST

START_TEST(writer_ignores_the_locale)
{
    const char *locales[] = {"de_DE.UTF-8", "fr_FR.UTF-8", "de_DE", "C.UTF-8"};
    const char *set = NULL;
    for (size_t k = 0; k < 4 && !set; k++)
        set = setlocale(LC_NUMERIC, locales[k]);
    tf_spec *spec = parse_ok(ONE_LAYER("\"minValue\":-1.5,\"maxValue\":2.25,", ""));
    char *json = tf_spec_to_json(spec, NULL);
    setlocale(LC_NUMERIC, "C");
    ck_assert_ptr_nonnull(strstr(json, "\"minValue\": -1.5,"));
    ck_assert_ptr_nonnull(strstr(json, "\"maxValue\": 2.25,"));
    free(json);
    tf_spec_free(spec);
}
END_TEST

START_TEST(unknown_members_are_reported_and_kept)
{
    tf_spec *spec = parse_ok(
        "{\"format\":\"terrafit-terrain\",\"future\":{\"a\":[1,2]},\"noiseLayers\":[{"
        "\"baseNoise\":{\"frequency\":0.1,\"octaves\":4},\"rd\":{\"points\":[{\"x\":0,\"y\":0,"
        "\"w\":1},{\"x\":1,\"y\":1}],\"note\":\"hi\"},\"tag\":\"cliffs\"}]}");
    ck_assert_uint_eq(spec->unknown_key_count, 5);
    const char *want[] = {"$.future", "$.noiseLayers[0].tag", "$.noiseLayers[0].baseNoise.octaves",
                          "$.noiseLayers[0].rd.points[0].w", "$.noiseLayers[0].rd.note"};
    for (size_t k = 0; k < 5; k++) {
        int found = 0;
        for (size_t j = 0; j < spec->unknown_key_count; j++)
            found |= strcmp(spec->unknown_keys[j], want[k]) == 0;
        ck_assert_msg(found, "%s not reported", want[k]);
    }
    char *json = tf_spec_to_json(spec, NULL);
    ck_assert_ptr_nonnull(strstr(json, "\"future\": {\"a\":[1,2]}"));
    ck_assert_ptr_nonnull(strstr(json, "\"octaves\": 4"));
    ck_assert_ptr_nonnull(strstr(json, "\"note\": \"hi\""));
    ck_assert_ptr_nonnull(strstr(json, "\"tag\": \"cliffs\""));
    ck_assert_ptr_null(strstr(json, "\"w\"")); /* inside points: dropped */
    free(json);
    tf_spec_free(spec);
}
END_TEST

/* docs/spec.md, "Thesis files" and "Seeds and offsets". */
START_TEST(defaults_follow_the_documented_rules)
{
    tf_spec *thesis = parse_ok(ONE_LAYER("", ""));
    ck_assert_int_eq(thesis->layers[0].noise_type, TF_NOISE_PERLIN_REFERENCE_SIMPLEX);
    ck_assert_int_eq(thesis->layers[0].rd_interpolation, TF_INTERP_MONOTONE_CUBIC);
    ck_assert(thesis->layers[0].pre_amp_shift == 0.0 && thesis->layers[0].amp_scale == 1.0);
    ck_assert_int_eq(thesis->layers[0].mask_layer_index, -1);
    /* derived range: y in [-1, 3], no shift, scale 1 */
    ck_assert(thesis->min_value == -1.0 && thesis->max_value == 3.0);
    tf_spec *ours = parse_ok(ONE_LAYER("\"version\":1,", ""));
    ck_assert_int_eq(ours->layers[0].noise_type, TF_NOISE_SIMPLEX);

    /* Seeds: mix32(root + mix32(i + 1)); values from the reference port. */
    ck_assert_uint_eq(thesis->seed, 0);
    ck_assert_uint_eq(thesis->layers[0].seed, 1492470133u);
    ck_assert(thesis->layers[0].offset[0] == -367.40384021258251);
    ck_assert(thesis->layers[0].offset[1] == 112.87423786248337);
    ck_assert(thesis->layers[0].offset[2] == 554.59377955740138);
    /* A given layer seed derives the offset; a given offset wins. */
    tf_spec *seeded = parse_ok("{\"seed\":5,\"noiseLayers\":[{\"baseNoise\":{\"frequency\":1,"
                               "\"seed\":1492470133},\"rd\":{\"points\":[{\"x\":0,\"y\":0},{\"x\":"
                               "1,\"y\":1}]}},{\"baseNoise\":{\"frequency\":1,\"offset\":[1,2,3]},"
                               "\"rd\":{\"points\":[{\"x\":0,\"y\":0},{\"x\":1,\"y\":1}]}}]}");
    ck_assert(seeded->layers[0].offset[0] == -367.40384021258251);
    ck_assert(seeded->layers[1].offset[0] == 1.0 && seeded->layers[1].offset[2] == 3.0);
    ck_assert_uint_ne(seeded->layers[1].seed, thesis->layers[0].seed);
    /* Reseeding re-derives everything. */
    tf_spec_reseed(seeded, 0);
    ck_assert_uint_eq(seeded->layers[0].seed, 1492470133u);
    ck_assert_uint_ne(seeded->layers[1].seed, 1492470133u);
    tf_spec_free(seeded);
    tf_spec_free(thesis);
    tf_spec_free(ours);

    /* Masked: falloff is 5% of the mask layer's y span; range includes 0. */
    tf_spec *masked = parse_ok(
        "{\"version\":1,\"noiseLayers\":[{\"baseNoise\":{\"frequency\":0.1},\"rd\":{\"points\":[{"
        "\"x\":0,\"y\":0.2},{\"x\":1,\"y\":0.6}]}},{\"baseNoise\":{\"frequency\":0.1},\"rd\":{"
        "\"points\":[{\"x\":0,\"y\":1},{\"x\":1,\"y\":2}]},\"maskLayerIndex\":0,\"maskMinValue\":"
        "0.3,\"maskMaxValue\":0.5}]}");
    ck_assert_double_eq_tol(masked->layers[1].mask_falloff, 0.02, 1e-15);
    ck_assert_double_eq_tol(masked->min_value, 0.2, 1e-15);
    ck_assert_double_eq_tol(masked->max_value, 2.6, 1e-15);
    tf_spec_free(masked);
}
END_TEST

/* Specs built through the API get the same checks as files. */
START_TEST(api_built_specs_are_validated)
{
    tf_error err;
    tf_spec *spec = tf_spec_new(2, &err);
    ck_assert(spec != NULL);
    ck_assert_int_ne(tf_spec_validate(spec, &err), 0); /* no points yet */
    ck_assert_ptr_nonnull(strstr(err.message, "$.noiseLayers[0].rd.points: needs at least 2"));
    tf_point p[2] = {{0.0, 0.0}, {1.0, 1.0}};
    tf_spec_set_rd_points(spec, 0, p, 2, NULL);
    tf_spec_set_rd_points(spec, 1, p, 2, NULL);
    ck_assert_int_eq(tf_spec_validate(spec, &err), 0);
    spec->layers[1].frequency = 0.0;
    ck_assert_int_ne(tf_spec_validate(spec, &err), 0);
    ck_assert_ptr_nonnull(strstr(err.message, "$.noiseLayers[1].baseNoise.frequency: must be > 0"));
    ck_assert(tf_terrain_compile(spec, &err) == NULL);
    ck_assert(tf_spec_to_json(spec, &err) == NULL);
    spec->layers[1].frequency = 0.5;
    spec->layers[1].mask_layer_index = 1;
    ck_assert_int_ne(tf_spec_validate(spec, &err), 0);
    ck_assert_ptr_nonnull(strstr(err.message, "index of a lower layer"));
    spec->layers[1].mask_layer_index = 0;
    spec->layers[1].mask_min_value = 0.7;
    spec->layers[1].mask_max_value = 0.2;
    ck_assert_int_ne(tf_spec_validate(spec, &err), 0);
    spec->layers[1].mask_max_value = 0.9;
    spec->layers[1].mask_falloff = NAN;
    ck_assert_int_ne(tf_spec_validate(spec, &err), 0);
    ck_assert_ptr_nonnull(strstr(err.message, "not finite"));
    spec->layers[1].mask_falloff = 0.1;
    spec->min_value = 2.0;
    spec->max_value = 2.0;
    ck_assert_int_ne(tf_spec_validate(spec, &err), 0);
    spec->max_value = 3.0;
    spec->layers[0].noise_type = (tf_noise_type)42;
    ck_assert_int_ne(tf_spec_validate(spec, &err), 0);
    spec->layers[0].noise_type = TF_NOISE_SIMPLEX;
    spec->version = 2;
    ck_assert_int_ne(tf_spec_validate(spec, &err), 0);
    spec->version = 1;
    ck_assert_int_eq(tf_spec_validate(spec, &err), 0);
    tf_spec *copy = tf_spec_copy(spec, &err);
    char *a = tf_spec_to_json(spec, NULL), *b = tf_spec_to_json(copy, NULL);
    ck_assert_str_eq(a, b);
    free(a);
    free(b);
    tf_spec_free(copy);
    tf_spec_free(spec);
    ck_assert(tf_spec_new(TF_MAX_LAYERS + 1, &err) == NULL);
    ck_assert_int_eq(err.code, TF_ERR_LIMIT);
    tf_spec_free(NULL);
    tf_terrain_free(NULL);
}
END_TEST

/* ---- partial masks and the output curve (docs/spec.md, steps 4 and 6) */

static const tf_point MASK_POINTS[3] = {{-1.0, 0.25}, {0.0, 0.5}, {1.0, 2.0}};
static const tf_point OUTPUT_POINTS[3] = {{-2.0, -1.0}, {0.5, 0.0}, {3.0, 1.5}};

/* A two-layer spec built through the API: layer 1 weighted by a curve of
 * layer 0's value. */
static tf_spec *curve_spec(void)
{
    tf_error err;
    tf_spec *spec = tf_spec_new(2, &err);
    ck_assert_msg(spec != NULL, "%s", err.message);
    tf_point rd[3] = {{0.2, -1.0}, {0.5, 0.0}, {0.8, 1.0}};
    ck_assert_int_eq(tf_spec_set_rd_points(spec, 0, rd, 3, &err), 0);
    ck_assert_int_eq(tf_spec_set_rd_points(spec, 1, rd, 2, &err), 0);
    spec->layers[1].frequency = 0.1;
    spec->layers[1].amp_scale = 0.3;
    ck_assert_int_eq(
        tf_spec_set_mask_curve(spec, 1, 0, MASK_POINTS, 3, TF_INTERP_LINEAR, &err), 0);
    return spec;
}

/* load -> write -> load: same text, same heights, for a spec as built. */
static void assert_round_trip(const tf_spec *spec)
{
    tf_error err;
    char *json = tf_spec_to_json(spec, &err);
    ck_assert_msg(json != NULL, "%s", err.message);
    tf_spec *back = tf_spec_parse(json, strlen(json), "written", &err);
    ck_assert_msg(back != NULL, "%s\n%s", err.message, json);
    char *again = tf_spec_to_json(back, &err);
    ck_assert_str_eq(json, again);
    tf_terrain *a = tf_terrain_compile(spec, &err), *b = tf_terrain_compile(back, &err);
    ck_assert(a && b);
    assert_same_heights(a, b, "round trip");
    tf_terrain_free(a);
    tf_terrain_free(b);
    free(again);
    free(json);
    tf_spec_free(back);
}

START_TEST(mask_curves_are_read_and_written)
{
    char path[4096];
    snprintf(path, sizeof path, "%s", tu_path("%s/tests/valid/curves-unknown-members.json",
                                              tu_srcdir()));
    tf_error err;
    tf_spec *spec = tf_spec_load(path, &err);
    ck_assert_msg(spec != NULL, "%s", err.message);
    const tf_layer_spec *L1 = &spec->layers[1], *L2 = &spec->layers[2];
    ck_assert_int_eq(L1->mask_layer_index, 0);
    ck_assert_uint_eq(L1->mask_curve_point_count, 3);
    ck_assert_int_eq(L1->mask_curve_interpolation, TF_INTERP_LINEAR);
    ck_assert(L1->mask_curve_points[2].x == 1.0 && L1->mask_curve_points[2].y == -0.5);
    ck_assert_int_eq(L2->mask_curve_interpolation, TF_INTERP_MONOTONE_CUBIC); /* default */
    /* the range members are unused and zero */
    ck_assert(L1->mask_min_value == 0.0 && L1->mask_max_value == 0.0 && L1->mask_falloff == 0.0);
    ck_assert_int_eq(spec->layers[0].mask_curve_point_count, 0);
    ck_assert_uint_eq(spec->output_curve_point_count, 3);
    ck_assert_int_eq(spec->output_curve_interpolation, TF_INTERP_MONOTONE_CUBIC);
    /* with an output curve the range defaults to its y range */
    ck_assert(spec->min_value == -1.0 && spec->max_value == 2.0);

    /* unknown members of both curve objects are reported and kept; those
     * of their control points are reported and dropped */
    const char *want[] = {"$.noiseLayers[1].maskCurve.learnedFrom",
                          "$.noiseLayers[2].maskCurve.points[1].note", "$.outputCurve.quantiles"};
    ck_assert_uint_eq(spec->unknown_key_count, 3);
    for (size_t k = 0; k < 3; k++) {
        int found = 0;
        for (size_t j = 0; j < spec->unknown_key_count; j++)
            found |= strcmp(spec->unknown_keys[j], want[k]) == 0;
        ck_assert_msg(found, "%s not reported", want[k]);
    }
    char *json = tf_spec_to_json(spec, &err);
    ck_assert_ptr_nonnull(strstr(json, "\"learnedFrom\": {\"bins\":12}"));
    ck_assert_ptr_nonnull(strstr(json, "\"quantiles\": 64"));
    ck_assert_ptr_null(strstr(json, "\"note\""));
    /* a layer with a mask curve has no range members; others keep theirs */
    const char *range = strstr(json, "\"maskMinValue\"");
    ck_assert_ptr_nonnull(range); /* layer 0, unmasked */
    ck_assert_ptr_null(strstr(range + 1, "\"maskMinValue\""));
    ck_assert_ptr_null(strstr(json, "\"maskFalloff\": 0,\n      \"maskCurve\""));
    ck_assert_ptr_nonnull(strstr(json, "\"maskCurve\": {"));
    ck_assert_ptr_nonnull(strstr(json, "\"outputCurve\": {"));
    free(json);
    assert_round_trip(spec);
    tf_spec_free(spec);
}
END_TEST

START_TEST(curve_setters_check_their_arguments)
{
    tf_spec *spec = curve_spec();
    tf_layer_spec *L = &spec->layers[1];
    ck_assert_int_eq(L->mask_layer_index, 0);
    ck_assert_uint_eq(L->mask_curve_point_count, 3);
    tf_error err;
    ck_assert_int_eq(tf_spec_validate(spec, &err), 0);

    /* refused, and the layer is left as it was */
    ck_assert_int_ne(tf_spec_set_mask_curve(spec, 1, 1, MASK_POINTS, 3, TF_INTERP_LINEAR, &err), 0);
    ck_assert_int_eq(err.code, TF_ERR_ARGUMENT);
    ck_assert_int_ne(tf_spec_set_mask_curve(spec, 1, -1, MASK_POINTS, 3, TF_INTERP_LINEAR, &err),
                     0);
    ck_assert_int_ne(tf_spec_set_mask_curve(spec, 0, 0, MASK_POINTS, 3, TF_INTERP_LINEAR, &err), 0);
    ck_assert_int_ne(tf_spec_set_mask_curve(spec, 2, 0, MASK_POINTS, 3, TF_INTERP_LINEAR, &err), 0);
    ck_assert_int_ne(tf_spec_set_mask_curve(spec, 1, 0, MASK_POINTS, 1, TF_INTERP_LINEAR, &err), 0);
    ck_assert_int_ne(tf_spec_set_mask_curve(spec, 1, 0, NULL, 3, TF_INTERP_LINEAR, &err), 0);
    ck_assert_int_ne(tf_spec_set_mask_curve(spec, 1, 0, MASK_POINTS, 3, (tf_interp)9, &err), 0);
    ck_assert_int_ne(tf_spec_set_output_curve(spec, OUTPUT_POINTS, 1, TF_INTERP_LINEAR, &err), 0);
    ck_assert_int_ne(tf_spec_set_output_curve(spec, OUTPUT_POINTS, 3, (tf_interp)-1, &err), 0);
    ck_assert_int_ne(tf_spec_set_output_curve(NULL, OUTPUT_POINTS, 3, TF_INTERP_LINEAR, &err), 0);
    ck_assert_uint_eq(L->mask_curve_point_count, 3);
    ck_assert_int_eq(L->mask_curve_interpolation, TF_INTERP_LINEAR);
    ck_assert_uint_eq(spec->output_curve_point_count, 0);

    /* a mask curve replaces a range mask */
    L->mask_min_value = 0.2;
    L->mask_max_value = 0.4;
    ck_assert_int_eq(
        tf_spec_set_mask_curve(spec, 1, 0, MASK_POINTS, 2, TF_INTERP_COSINE, &err), 0);
    ck_assert(L->mask_min_value == 0.0 && L->mask_max_value == 0.0);
    ck_assert_int_eq(tf_spec_validate(spec, &err), 0);
    assert_round_trip(spec);
    /* count 0 removes it: the layer is unmasked */
    ck_assert_int_eq(tf_spec_set_mask_curve(spec, 1, 0, NULL, 0, TF_INTERP_LINEAR, &err), 0);
    ck_assert_int_eq(L->mask_layer_index, -1);
    ck_assert(L->mask_curve_points == NULL && L->mask_curve_point_count == 0);
    ck_assert_int_eq(tf_spec_validate(spec, &err), 0);

    ck_assert_int_eq(
        tf_spec_set_output_curve(spec, OUTPUT_POINTS, 3, TF_INTERP_MONOTONE_CUBIC, &err), 0);
    ck_assert_int_eq(tf_spec_validate(spec, &err), 0);
    assert_round_trip(spec);
    ck_assert_int_eq(tf_spec_set_output_curve(spec, NULL, 0, TF_INTERP_LINEAR, &err), 0);
    ck_assert(spec->output_curve_points == NULL && spec->output_curve_point_count == 0);
    char *json = tf_spec_to_json(spec, &err);
    ck_assert_ptr_null(strstr(json, "outputCurve"));
    free(json);
    tf_spec_free(spec);
}
END_TEST

/* Curves put in the structure by hand get the same checks as files. */
START_TEST(curves_built_by_hand_are_validated)
{
    tf_error err;
    tf_spec *spec = curve_spec();
    tf_layer_spec *L = &spec->layers[1];
    L->mask_curve_points[1].y = NAN;
    ck_assert_int_ne(tf_spec_validate(spec, &err), 0);
    ck_assert_ptr_nonnull(strstr(err.message, "$.noiseLayers[1].maskCurve.points[1].y: number is "
                                              "not finite"));
    L->mask_curve_points[1].y = 0.5;
    L->mask_curve_points[2].x = -1.0;
    ck_assert_int_ne(tf_spec_validate(spec, &err), 0);
    ck_assert_ptr_nonnull(strstr(err.message, "$.noiseLayers[1].maskCurve.points[2].x: must be "
                                              "greater than the previous point's x"));
    ck_assert(tf_terrain_compile(spec, &err) == NULL);
    ck_assert(tf_spec_to_json(spec, &err) == NULL);
    L->mask_curve_points[2].x = 1.0;
    L->mask_layer_index = -1;
    ck_assert_int_ne(tf_spec_validate(spec, &err), 0);
    ck_assert_ptr_nonnull(strstr(err.message, "$.noiseLayers[1].maskLayerIndex: a layer with "
                                              "maskCurve needs a mask layer"));
    L->mask_layer_index = 0;
    /* the unused range members are not checked */
    L->mask_min_value = 3.0;
    L->mask_max_value = NAN;
    ck_assert_int_eq(tf_spec_validate(spec, &err), 0);
    L->mask_curve_interpolation = (tf_interp)5;
    ck_assert_int_ne(tf_spec_validate(spec, &err), 0);
    ck_assert_ptr_nonnull(strstr(err.message, "$.noiseLayers[1].maskCurve.interpolation"));
    L->mask_curve_interpolation = TF_INTERP_LINEAR;
    L->mask_curve_point_count = 1;
    ck_assert_int_ne(tf_spec_validate(spec, &err), 0);
    ck_assert_ptr_nonnull(strstr(err.message, "maskCurve.points: needs at least 2"));
    L->mask_curve_point_count = 3;
    ck_assert_int_eq(tf_spec_set_output_curve(spec, OUTPUT_POINTS, 3, TF_INTERP_COSINE, &err), 0);
    spec->output_curve_points[0].x = INFINITY;
    ck_assert_int_ne(tf_spec_validate(spec, &err), 0);
    ck_assert_ptr_nonnull(strstr(err.message, "$.outputCurve.points[0].x: number is not finite"));
    spec->output_curve_points[0].x = -2.0;
    ck_assert_int_eq(tf_spec_validate(spec, &err), 0);
    /* a layer-0 mask curve has nothing to be masked by */
    ck_assert_int_eq(tf_spec_set_mask_curve(spec, 0, 0, NULL, 0, TF_INTERP_LINEAR, &err), 0);
    spec->layers[0].mask_curve_points = malloc(2 * sizeof(tf_point));
    spec->layers[0].mask_curve_points[0] = (tf_point){0.0, 1.0};
    spec->layers[0].mask_curve_points[1] = (tf_point){1.0, 1.0};
    spec->layers[0].mask_curve_point_count = 2;
    ck_assert_int_ne(tf_spec_validate(spec, &err), 0);
    ck_assert_ptr_nonnull(strstr(err.message, "$.noiseLayers[0].maskCurve: layer 0 has no lower"));
    tf_spec_free(spec);
}
END_TEST

/* tf_spec_copy is deep: the copy outlives and ignores changes to the
 * original. */
START_TEST(copies_own_their_curves)
{
    tf_spec *spec = curve_spec();
    tf_error err;
    ck_assert_int_eq(tf_spec_set_output_curve(spec, OUTPUT_POINTS, 3, TF_INTERP_LINEAR, &err), 0);
    tf_spec *with_extras = parse_ok(
        "{\"version\":1,\"noiseLayers\":[{\"baseNoise\":{\"frequency\":0.1},\"rd\":{\"points\":"
        "[{\"x\":0,\"y\":0},{\"x\":1,\"y\":1}]}},{\"baseNoise\":{\"frequency\":0.1},\"rd\":{"
        "\"points\":[{\"x\":0,\"y\":0},{\"x\":1,\"y\":1}]},\"maskLayerIndex\":0,\"maskCurve\":{"
        "\"points\":[{\"x\":0,\"y\":0},{\"x\":1,\"y\":1}],\"a\":1}}],\"outputCurve\":{"
        "\"points\":[{\"x\":0,\"y\":0},{\"x\":2,\"y\":1}],\"b\":2}}");
    tf_spec *copies[2] = {tf_spec_copy(spec, &err), tf_spec_copy(with_extras, &err)};
    tf_spec *originals[2] = {spec, with_extras};
    for (int k = 0; k < 2; k++) {
        ck_assert(copies[k] != NULL);
        char *a = tf_spec_to_json(originals[k], NULL);
        char *b = tf_spec_to_json(copies[k], NULL);
        ck_assert_str_eq(a, b);
        ck_assert_ptr_ne(copies[k]->output_curve_points, originals[k]->output_curve_points);
        ck_assert_ptr_ne(copies[k]->layers[1].mask_curve_points,
                         originals[k]->layers[1].mask_curve_points);
        tf_spec_free(originals[k]); /* the copy must not share anything */
        char *c = tf_spec_to_json(copies[k], NULL);
        ck_assert_str_eq(a, c);
        free(a);
        free(b);
        free(c);
        tf_spec_free(copies[k]);
    }
}
END_TEST

/* docs/spec.md, "Other defaults": a mask curve multiplies the layer's
 * interval by its weight range (corner products); an output curve's y
 * range replaces the sum. */
START_TEST(derived_range_covers_curves)
{
    const char *layers =
        "\"noiseLayers\":[{\"baseNoise\":{\"frequency\":0.1},\"rd\":{\"points\":[{\"x\":0,"
        "\"y\":0.2},{\"x\":1,\"y\":0.6}]}},{\"baseNoise\":{\"frequency\":0.1},\"rd\":{"
        "\"points\":[{\"x\":0,\"y\":1},{\"x\":1,\"y\":2}]},\"maskLayerIndex\":0,\"maskCurve\":{"
        "\"points\":[{\"x\":0,\"y\":-0.5},{\"x\":0.4,\"y\":2},{\"x\":1,\"y\":1}]}}]";
    char json[1024];
    snprintf(json, sizeof json, "{\"version\":1,%s}", layers);
    tf_spec *spec = parse_ok(json);
    /* layer 1: [1, 2] * [-0.5, 2] = [-1, 4]; plus layer 0's [0.2, 0.6] */
    ck_assert_double_eq_tol(spec->min_value, -0.8, 1e-15);
    ck_assert_double_eq_tol(spec->max_value, 4.6, 1e-15);
    tf_spec_free(spec);
    snprintf(json, sizeof json,
             "{\"version\":1,%s,\"outputCurve\":{\"points\":[{\"x\":0,\"y\":3},{\"x\":1,"
             "\"y\":-7},{\"x\":2,\"y\":5}]}}",
             layers);
    spec = parse_ok(json);
    ck_assert(spec->min_value == -7.0 && spec->max_value == 5.0);
    tf_spec_free(spec);
    /* a flat output curve has no range, even when the layers have one */
    snprintf(json, sizeof json,
             "{\"version\":1,%s,\"outputCurve\":{\"points\":[{\"x\":0,\"y\":3},{\"x\":1,"
             "\"y\":3}]}}",
             layers);
    tf_error err;
    ck_assert(tf_spec_parse(json, strlen(json), "flat", &err) == NULL);
    ck_assert_ptr_nonnull(
        strstr(err.message, "flat: $.outputCurve: the output curve's value range"));
}
END_TEST

/* A long file name gives way to the JSON path and the problem: tf_error's
 * 256 bytes must still say where and what (found when a build directory's
 * path made a case's expected text fall off the end). */
START_TEST(long_file_names_keep_the_path_and_problem)
{
    char *dir = tu_mkdtemp();
    ck_assert_ptr_nonnull(dir);
    char deep[4096];
    snprintf(deep, sizeof deep, "%s/%s", dir,
             "a-very-long-directory-name-that-goes-on-and-on-and-on-and-on-and-on-and-on-"
             "and-on-and-on-and-on-and-on-and-on-and-on-and-on-and-on-and-on-and-on-and-on");
    ck_assert_int_eq(mkdir(deep, 0700), 0);
    char path[4200];
    snprintf(path, sizeof path, "%s/terrain.json", deep);
    FILE *f = fopen(path, "w");
    ck_assert_ptr_nonnull(f);
    fputs("{\"noiseLayers\":[{\"baseNoise\":{\"type\":\"cellular\",\"frequency\":1},"
          "\"rd\":{\"points\":[{\"x\":0,\"y\":0},{\"x\":1,\"y\":1}]}}]}",
          f);
    fclose(f);
    tf_error err;
    ck_assert_ptr_null(tf_spec_load(path, &err));
    ck_assert_msg(strncmp(err.message, "...", 3) == 0, "%s", err.message);
    ck_assert_msg(strstr(err.message, "terrain.json: $.noiseLayers[0].baseNoise.type: unknown "
                                      "noise type \"cellular\"") != NULL,
                  "%s", err.message);
    ck_assert_msg(strstr(err.message, "cellular-f2-f1)") != NULL, "%s", err.message);
    tu_rmtree(dir);
    free(dir);
}
END_TEST

/* ---- the drainage stage (docs/spec.md, "Drainage") */

/* docs/spec.md, "Seeds and offsets": mix32 and the seed a 65th layer gets,
 * written from the text so the test does not echo the library. */
static uint32_t doc_mix32(uint32_t v)
{
    v ^= v >> 16;
    v *= 0x7FEB352Du;
    v ^= v >> 15;
    v *= 0x846CA68Bu;
    v ^= v >> 16;
    return v;
}

static uint32_t doc_drainage_seed(uint32_t root)
{
    return doc_mix32(root + doc_mix32(64 + 1));
}

/* Every member but extra_json. */
static void assert_same_drainage(const tf_drainage_spec *a, const tf_drainage_spec *b,
                                 const char *what)
{
    ck_assert_msg(a->levels == b->levels && a->seed == b->seed && a->breach == b->breach &&
                      a->fade_by == b->fade_by && a->breach_to == b->breach_to &&
                      a->inflow == b->inflow,
                  "%s", what);
    const double da[] = {a->spacing, a->depth, a->slope, a->reach, a->floor_width,
                         a->jitter, a->bend, a->detail_wavelength, a->fade};
    const double db[] = {b->spacing, b->depth, b->slope, b->reach, b->floor_width,
                         b->jitter, b->bend, b->detail_wavelength, b->fade};
    ck_assert_msg(memcmp(da, db, sizeof da) == 0, "%s: a member differs", what);
}

#define DRAINED(drainage)                                                                     \
    "{\"version\":1,\"seed\":7,\"noiseLayers\":[{\"baseNoise\":{\"frequency\":0.01},"         \
    "\"rd\":{\"points\":[{\"x\":0.2,\"y\":-1},{\"x\":0.8,\"y\":1}]}},"                       \
    "{\"baseNoise\":{\"frequency\":0.2},"                                                     \
    "\"rd\":{\"points\":[{\"x\":0.2,\"y\":-0.1},{\"x\":0.8,\"y\":0.1}]}}],"                  \
    "\"drainage\":" drainage "}"

/* Only the four required members: every other one at its documented
 * default; the rewrite states them all and is a fixed point; unknown
 * members inside "drainage" are reported and kept. */
START_TEST(drainage_defaults_and_round_trip)
{
    tf_spec *spec = parse_ok(DRAINED("{\"levels\":3,\"spacing\":40,\"depth\":0.3,"
                                     "\"slope\":0.02,\"x-note\":{\"by\":\"hand\"}}"));
    const tf_drainage_spec *d = &spec->drainage;
    ck_assert_int_eq(d->levels, 3);
    ck_assert(d->spacing == 40.0 && d->depth == 0.3 && d->slope == 0.02);
    ck_assert_uint_eq(d->seed, doc_drainage_seed(7));
    ck_assert_uint_eq(d->seed, 1856973208u); /* terrafit_ref.py: layer_seed(7, 64) */
    ck_assert(d->reach == 1.5 && d->floor_width == 0.1 && d->jitter == 0.8 && d->bend == 0.2);
    ck_assert_int_eq(d->breach, 3);
    ck_assert(d->fade == 0.5);
    ck_assert_int_eq(d->fade_by, TF_FADE_BED);
    ck_assert_int_eq(d->breach_to, TF_BREACH_LOWEST);
    ck_assert_int_eq(d->inflow, 0);
    /* 2 L_(K-1) = 2 * spacing / 2^(levels - 1) */
    ck_assert(d->detail_wavelength == 2.0 * 40.0 / 4.0);
    ck_assert_uint_eq(spec->unknown_key_count, 1);
    ck_assert_str_eq(spec->unknown_keys[0], "$.drainage.x-note");

    tf_error err;
    char *json = tf_spec_to_json(spec, &err);
    ck_assert_msg(json != NULL, "%s", err.message);
    ck_assert_msg(strstr(json, "\"detailWavelength\": 20") && strstr(json, "\"breach\": 3") &&
                      strstr(json, "\"fadeBy\": \"bed\"") &&
                      strstr(json, "\"breachTo\": \"lowest\"") && strstr(json, "\"inflow\": 0") &&
                      strstr(json, "\"x-note\""),
                  "%s", json);
    tf_spec *again = parse_ok(json);
    assert_same_drainage(&again->drainage, d, "rewritten");
    ck_assert_uint_eq(again->unknown_key_count, 1);
    char *json2 = tf_spec_to_json(again, &err);
    ck_assert_msg(json2 != NULL && strcmp(json, json2) == 0, "not a fixed point:\n%s\n---\n%s",
                  json, json2 ? json2 : err.message);

    /* A copy keeps the stage and its unknown members, in its own memory. */
    tf_spec *copy = tf_spec_copy(spec, &err);
    ck_assert_msg(copy != NULL, "%s", err.message);
    assert_same_drainage(&copy->drainage, d, "copy");
    ck_assert_ptr_nonnull(copy->drainage.extra_json);
    ck_assert_ptr_ne(copy->drainage.extra_json, d->extra_json);
    ck_assert_str_eq(copy->drainage.extra_json, d->extra_json);
    char *json3 = tf_spec_to_json(copy, &err);
    ck_assert_msg(json3 != NULL && strcmp(json, json3) == 0, "the copy writes differently");

    /* Reseeding re-derives the network's seed like the layers'. */
    tf_spec_reseed(copy, 11);
    ck_assert_uint_eq(copy->drainage.seed, doc_drainage_seed(11));
    ck_assert_uint_ne(copy->drainage.seed, d->seed);

    /* levels 0 removes the stage: nothing is written, nothing carved. */
    tf_drainage_set_defaults(copy, 0, 0.0, 0.0, 0.0);
    ck_assert_int_eq(copy->drainage.levels, 0);
    ck_assert_int_eq(tf_spec_validate(copy, &err), 0);
    char *json4 = tf_spec_to_json(copy, &err);
    ck_assert_msg(json4 != NULL && strstr(json4, "\"drainage\"") == NULL, "%s",
                  json4 ? json4 : err.message);

    /* ... and tf_drainage_set_defaults gives one back, with the defaults. */
    tf_drainage_set_defaults(copy, 2, 64.0, 0.1, 0.01);
    ck_assert_int_eq(copy->drainage.levels, 2);
    ck_assert_uint_eq(copy->drainage.seed, doc_drainage_seed(11));
    ck_assert(copy->drainage.detail_wavelength == 64.0);
    ck_assert(copy->drainage.reach == 1.5 && copy->drainage.breach == 3);
    ck_assert_int_eq(tf_spec_validate(copy, &err), 0);

    free(json);
    free(json2);
    free(json3);
    free(json4);
    tf_spec_free(copy);
    tf_spec_free(again);
    tf_spec_free(spec);
}
END_TEST

/* Every member given is kept as given (seed 0 and detailWavelength 0
 * included: a given value is never replaced by a default). */
START_TEST(drainage_members_given_are_kept)
{
    tf_spec *spec = parse_ok(DRAINED("{\"levels\":1,\"spacing\":0.5,\"depth\":2,\"slope\":3,"
                                     "\"seed\":0,\"reach\":0.5,\"floor\":0,\"jitter\":0.9,"
                                     "\"bend\":0.5,\"breach\":1,\"detailWavelength\":0,"
                                     "\"fade\":7,\"fadeBy\":\"cut\",\"breachTo\":\"nearest\","
                                     "\"inflow\":8}"));
    tf_drainage_spec *d = &spec->drainage;
    ck_assert_int_eq(d->levels, 1);
    ck_assert_uint_eq(d->seed, 0);
    ck_assert(d->spacing == 0.5 && d->depth == 2.0 && d->slope == 3.0 && d->reach == 0.5 &&
              d->floor_width == 0.0 && d->jitter == 0.9 && d->bend == 0.5 &&
              d->detail_wavelength == 0.0 && d->fade == 7.0);
    ck_assert_int_eq(d->breach, 1);
    ck_assert_int_eq(d->fade_by, TF_FADE_CUT);
    ck_assert_int_eq(d->breach_to, TF_BREACH_NEAREST);
    ck_assert_int_eq(d->inflow, 8);
    tf_error err;
    char *json = tf_spec_to_json(spec, &err);
    ck_assert_msg(json != NULL && strstr(json, "\"fadeBy\": \"cut\"") &&
                      strstr(json, "\"breachTo\": \"nearest\"") && strstr(json, "\"inflow\": 8"),
                  "%s", json ? json : err.message);
    free(json);
    /* values set through the struct out of the enums' range are refused,
     * naming the member */
    d->fade_by = (tf_fade_by)2;
    ck_assert_int_ne(tf_spec_validate(spec, &err), 0);
    ck_assert_msg(strstr(err.message, "$.drainage.fadeBy: must be \"bed\" or \"cut\", got 2"),
                  "%s", err.message);
    d->fade_by = TF_FADE_CUT;
    d->breach_to = (tf_breach_to)-1;
    ck_assert_int_ne(tf_spec_validate(spec, &err), 0);
    ck_assert_msg(strstr(err.message, "$.drainage.breachTo: must be \"lowest\", \"nearest\" or "
                                      "\"pass\", got -1"),
                  "%s", err.message);
    d->breach_to = TF_BREACH_NEAREST;
    d->inflow = 9;
    ck_assert_int_ne(tf_spec_validate(spec, &err), 0);
    ck_assert_msg(strstr(err.message, "$.drainage.inflow: must be an integer from 0 to 8, got 9"),
                  "%s", err.message);
    d->inflow = 8;
    ck_assert_int_eq(tf_spec_validate(spec, &err), 0);
    /* "pass" is written and read back by name */
    d->breach_to = TF_BREACH_PASS;
    json = tf_spec_to_json(spec, &err);
    ck_assert_msg(json != NULL && strstr(json, "\"breachTo\": \"pass\""), "%s",
                  json ? json : err.message);
    tf_spec *back = tf_spec_parse(json, strlen(json), "pass.json", &err);
    ck_assert_msg(back != NULL, "%s", err.message);
    ck_assert_int_eq(back->drainage.breach_to, TF_BREACH_PASS);
    tf_spec_free(back);
    free(json);
    d->breach_to = TF_BREACH_NEAREST;
    ck_assert_uint_eq(spec->unknown_key_count, 0);
    /* Reseeding derives even a seed that was given (as for layers). */
    tf_spec_reseed(spec, 7);
    ck_assert_uint_eq(d->seed, doc_drainage_seed(7));
    tf_spec_free(spec);
}
END_TEST

static Suite *spec_suite(void)
{
    /* The data-driven cases, one loop-test iteration each: a failure names
     * its case and the other cases still run. */
    invalid_cases = tu_list_cases(tu_path("%s/tests/invalid", tu_srcdir()), NULL, 0,
                                  &invalid_count);
    list_valid_specs();
    Suite *s = suite_create("spec");
    TCase *bad = tcase_create("bad input");
    tcase_set_timeout(bad, 60);
    tcase_add_test(bad, invalid_cases_are_present);
    tcase_add_loop_test(bad, invalid_case_is_rejected_with_its_message, 0, (int)invalid_count);
    tcase_add_test(bad, oversized_file_is_refused);
    tcase_add_test(bad, missing_file_names_the_path);
    tcase_add_test(bad, syntax_errors_give_line_and_column);
    tcase_add_test(bad, api_built_specs_are_validated);
    suite_add_tcase(s, bad);
    TCase *good = tcase_create("round trip");
    tcase_set_timeout(good, 60);
    tcase_add_test(good, valid_specs_are_present);
    tcase_add_loop_test(good, valid_spec_loads_and_round_trips, 0, (int)valid_count);
    tcase_add_test(good, numbers_read_back_as_the_same_double);
    tcase_add_test(good, writer_ignores_the_locale);
    tcase_add_test(good, unknown_members_are_reported_and_kept);
    tcase_add_test(good, defaults_follow_the_documented_rules);
    suite_add_tcase(s, good);
    TCase *curves = tcase_create("mask and output curves");
    tcase_set_timeout(curves, 60);
    tcase_add_test(curves, mask_curves_are_read_and_written);
    tcase_add_test(curves, curve_setters_check_their_arguments);
    tcase_add_test(curves, curves_built_by_hand_are_validated);
    tcase_add_test(curves, copies_own_their_curves);
    tcase_add_test(curves, derived_range_covers_curves);
    tcase_add_test(curves, long_file_names_keep_the_path_and_problem);
    suite_add_tcase(s, curves);
    TCase *drainage = tcase_create("drainage");
    tcase_add_test(drainage, drainage_defaults_and_round_trip);
    tcase_add_test(drainage, drainage_members_given_are_kept);
    suite_add_tcase(s, drainage);
    return s;
}

int main(void)
{
    int status = tu_run_suite(spec_suite());
    tu_free_list(invalid_cases, invalid_count);
    tu_free_list(valid_specs, valid_count);
    return status;
}
