/*
 * Fuzz target "spec": bytes -> tf_spec_parse -> validate -> compile, then the
 * runtime's promises on whatever got through (docs/fuzzing.md lists them).
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "terrafit/runtime.h"
#include "terrafit/shader.h"
#include "fuzz.h"

/* Coordinates a game or a tool may pass: ordinary ones, far ones, ones at
 * which a float or an int32 lattice index gives out, and non-finite ones. */
static const double COORDS[] = {
    0.0,      0.5,     -1.25,  37.75,   -1000.125, 65536.0, 2147483648.5, -2147483649.0,
    1e15,     -1e15,   1e300,  -1e300,  4.9e-324,  -0.0,    INFINITY,     -INFINITY,
    NAN,
};
#define NCOORDS (sizeof COORDS / sizeof COORDS[0])

/* Windows: origin, step and first lattice index. */
typedef struct {
    double x0, y0, step;
    int64_t i0, j0;
} window;

static const window WINDOWS[] = {
    {0.0, 0.0, 1.0, 0, 0},
    {-3.5, 12.25, 0.75, -1, 5},
    {1e15, -1e15, 1e3, 7, -9},
    {0.0, 0.0, 1e300, -2, 3},
    {1e300, -1e300, 1e-300, 0, 1},
    {NAN, 0.0, 1.0, 0, 0},
    {0.0, 0.0, INFINITY, 1, 1},
    {0.0, 0.0, 1.0, ((int64_t)1 << 52) - 3, -((int64_t)1 << 40)},
    {-17.0, 4.0, 1.0 / 3.0, -64, 64},
};
#define NWINDOWS (sizeof WINDOWS / sizeof WINDOWS[0])

#define NX 3
#define NY 2

/* Whether a layer uses perlin-reference-simplex (named in a failure: its
 * lattice is the one that once mishandled NaN). */
static int has_prs(const tf_terrain *t)
{
    const tf_spec *spec = tf_terrain_spec(t);
    for (size_t i = 0; i < spec->layer_count; i++)
        if (spec->layers[i].noise_type == TF_NOISE_PERLIN_REFERENCE_SIMPLEX)
            return 1;
    return 0;
}

/* Bit-identical, with every NaN equal to every NaN (the sampling functions
 * promise bits, and a NaN's payload is not part of that promise). */
static int same_double(double a, double b)
{
    if (isnan(a) || isnan(b))
        return isnan(a) && isnan(b);
    return memcmp(&a, &b, sizeof a) == 0;
}

static int same_float(float a, float b)
{
    if (isnan(a) || isnan(b))
        return isnan(a) && isnan(b);
    return memcmp(&a, &b, sizeof a) == 0;
}

static void check_round_trip(const tf_spec *spec)
{
    tf_error err;
    char *first = tf_spec_to_json(spec, &err);
    FUZZ_CHECK(first, "a valid spec does not write: %s", err.message);
    tf_spec *again = tf_spec_parse(first, strlen(first), "written", &err);
    FUZZ_CHECK(again, "the writer's text does not read back: %s\n%s", err.message, first);
    FUZZ_CHECK(tf_spec_validate(again, &err) == 0,
               "the writer's text reads back invalid: %s\n%s", err.message, first);
    char *second = tf_spec_to_json(again, &err);
    FUZZ_CHECK(second, "a read-back spec does not write: %s", err.message);
    FUZZ_CHECK(strcmp(first, second) == 0, "to_json -> parse -> to_json changed the text:\n%s\n%s",
               first, second);
    tf_spec *copy = tf_spec_copy(spec, &err);
    FUZZ_CHECK(copy, "tf_spec_copy failed: %s", err.message);
    char *third = tf_spec_to_json(copy, &err);
    FUZZ_CHECK(third && strcmp(first, third) == 0, "a copy writes different text");
    free(third);
    tf_spec_free(copy);
    free(second);
    tf_spec_free(again);
    free(first);
}

/* Single samples, their stage HEIGHT, stages of a missing layer, and
 * gradients (which only must not misbehave: their h may differ by a
 * rounding). */
static void check_points(const tf_terrain *t, size_t layers, uint8_t pick)
{
    for (size_t k = 0; k < NCOORDS; k++) {
        double pts[2][2] = {{COORDS[k], COORDS[(k * 7 + pick) % NCOORDS]},
                            {COORDS[(k * 5 + 1) % NCOORDS], COORDS[k]}};
        for (int p = 0; p < 2; p++) {
            double x = pts[p][0], y = pts[p][1];
            double h = tf_terrain_sample(t, x, y);
            if (!isfinite(x) || !isfinite(y))
                FUZZ_CHECK(!isfinite(h), "sample(%g, %g) = %g: a non-finite point must give a "
                           "non-finite height%s", x, y, h,
                           has_prs(t) ? " [a perlin-reference-simplex layer]" : "");
            double hs = tf_terrain_sample_stage(t, TF_STAGE_HEIGHT, 0, x, y);
            FUZZ_CHECK(same_double(h, hs), "stage HEIGHT %.17g != sample %.17g at (%g, %g)", hs,
                       h, x, y);
            double none = tf_terrain_sample_stage(t, TF_STAGE_NOISE, layers, x, y);
            FUZZ_CHECK(isnan(none), "a missing layer's stage is %g, not NaN", none);
            double dx = 0.0, dy = 0.0;
            (void)tf_terrain_sample_gradient(t, x, y, &dx, &dy);
            (void)tf_terrain_normalize(t, h);
        }
    }
}

static void check_window(const tf_terrain *t, const window *w, size_t layer)
{
    float grid[NX * NY], win[NX * NY];
    tf_terrain_sample_grid(t, w->x0, w->y0, w->step, NX, NY, grid);
    tf_terrain_sample_window(t, w->x0, w->y0, w->step, w->i0, w->j0, NX, NY, win);
    for (size_t j = 0; j < NY; j++)
        for (size_t i = 0; i < NX; i++) {
            double gx = w->x0 + (double)i * w->step, gy = w->y0 + (double)j * w->step;
            float g = (float)tf_terrain_sample(t, gx, gy);
            FUZZ_CHECK(same_float(grid[j * NX + i], g), "grid[%zu,%zu] = %.9g, sample(%.17g, "
                       "%.17g) = %.9g", i, j, grid[j * NX + i], gx, gy, g);
            double wx = w->x0 + (double)(w->i0 + (int64_t)i) * w->step;
            double wy = w->y0 + (double)(w->j0 + (int64_t)j) * w->step;
            float s = (float)tf_terrain_sample(t, wx, wy);
            FUZZ_CHECK(same_float(win[j * NX + i], s), "window[%zu,%zu] = %.9g, sample(%.17g, "
                       "%.17g) = %.9g", i, j, win[j * NX + i], wx, wy, s);
        }

    /* Each stage's window against its single samples; the layers'
     * redistributed windows then combine into the other stages' windows. */
    double stage[6][NX * NY];
    double redistributed[TF_MAX_LAYERS][NX * NY];
    const double *rows[TF_MAX_LAYERS];
    tf_error err;
    size_t layers = tf_terrain_layer_count(t);
    for (int s = TF_STAGE_NOISE; s <= TF_STAGE_DRAINED; s++) {
        FUZZ_CHECK(tf_terrain_sample_stage_window(t, (tf_stage)s, layer, w->x0, w->y0, w->step,
                                                  w->i0, w->j0, NX, NY, stage[s], &err) == 0,
                   "stage %d window of layer %zu: %s", s, layer, err.message);
        for (size_t j = 0; j < NY; j++)
            for (size_t i = 0; i < NX; i++) {
                double x = w->x0 + (double)(w->i0 + (int64_t)i) * w->step;
                double y = w->y0 + (double)(w->j0 + (int64_t)j) * w->step;
                double v = tf_terrain_sample_stage(t, (tf_stage)s, layer, x, y);
                FUZZ_CHECK(same_double(stage[s][j * NX + i], v),
                           "stage %d of layer %zu: window %.17g, sample %.17g at (%.17g, %.17g)",
                           s, layer, stage[s][j * NX + i], v, x, y);
            }
    }
    for (size_t k = 0; k < layers; k++) {
        FUZZ_CHECK(tf_terrain_sample_stage_window(t, TF_STAGE_REDISTRIBUTED, k, w->x0, w->y0,
                                                  w->step, w->i0, w->j0, NX, NY,
                                                  redistributed[k], &err) == 0,
                   "redistributed window of layer %zu: %s", k, err.message);
        rows[k] = redistributed[k];
    }
    int drainage = tf_terrain_spec(t)->drainage.levels > 0;
    for (int s = TF_STAGE_CONTRIBUTION; s <= TF_STAGE_DRAINED; s++) {
        double combined[NX * NY];
        if (drainage && (s == TF_STAGE_HEIGHT || s == TF_STAGE_DRAINED)) {
            /* the drainage stage needs the points: combine refuses */
            FUZZ_CHECK(tf_terrain_combine(t, (tf_stage)s, layer, rows, NX * NY, combined,
                                          &err) != 0 &&
                           err.code == TF_ERR_ARGUMENT,
                       "combine of stage %d of a drainage spec did not refuse", s);
            continue;
        }
        FUZZ_CHECK(tf_terrain_combine(t, (tf_stage)s, layer, rows, NX * NY, combined, &err) == 0,
                   "combine stage %d: %s", s, err.message);
        for (size_t k = 0; k < NX * NY; k++)
            FUZZ_CHECK(same_double(combined[k], stage[s][k]),
                       "combine stage %d [%zu] = %.17g, window %.17g", s, k, combined[k],
                       stage[s][k]);
    }
    FUZZ_CHECK(tf_terrain_sample_stage_window(t, TF_STAGE_NOISE, layers, 0.0, 0.0, 1.0, 0, 0, NX,
                                              NY, stage[0], &err) != 0,
               "a stage window of a missing layer succeeded");
}

/* Every evaluation path this CPU runs gives the window the same bits. */
static void check_paths(tf_terrain *t, const window *w)
{
    static const char *const paths[] = {"none", "avx2", "avx512"};
    float first[NX * NY], other[NX * NY];
    tf_error err;
    FUZZ_CHECK(tf_terrain_set_path(t, "none", &err) == 0, "the portable path: %s", err.message);
    tf_terrain_sample_window(t, w->x0, w->y0, w->step, w->i0, w->j0, NX, NY, first);
    for (size_t p = 1; p < sizeof paths / sizeof paths[0]; p++) {
        if (tf_terrain_set_path(t, paths[p], &err) != 0)
            continue; /* not on this CPU */
        tf_terrain_sample_window(t, w->x0, w->y0, w->step, w->i0, w->j0, NX, NY, other);
        for (size_t k = 0; k < NX * NY; k++)
            FUZZ_CHECK(same_float(first[k], other[k]), "path %s gives %.9g, none %.9g at %zu",
                       paths[p], other[k], first[k], k);
    }
    FUZZ_CHECK(tf_terrain_set_path(t, "auto", &err) == 0, "the auto path: %s", err.message);
}

/* Whether `word` stands alone in `text` (not part of a longer name). */
static int has_word(const char *text, const char *word)
{
    size_t n = strlen(word);
    for (const char *p = strstr(text, word); p; p = strstr(p + 1, word)) {
        int before = p > text && (p[-1] == '_' || (p[-1] >= 'a' && p[-1] <= 'z') ||
                                  (p[-1] >= 'A' && p[-1] <= 'Z') || (p[-1] >= '0' && p[-1] <= '9'));
        char c = p[n];
        int after = c == '_' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
                    (c >= '0' && c <= '9');
        if (!before && !after)
            return 1;
    }
    return 0;
}

/* tf_shader_emit of a valid spec: the source, with its entry point and no
 * literal a shader compiler cannot read, or a refusal with a reason (a
 * constant or curve past a shader's limits); a drainage spec's network
 * table over a small box: built with consistent counts, or refused with a
 * limit (a finest lattice too fine for the box). */
static void check_shader(const tf_spec *spec, uint8_t pick)
{
    tf_error err;
    memset(&err, 0, sizeof err);
    tf_shader_lang lang = (tf_shader_lang)(pick % TF_SHADER_LANG_COUNT);
    char *src = tf_shader_emit(spec, lang, "t", &err);
    if (!src) {
        FUZZ_CHECK(err.code == TF_ERR_ARGUMENT || err.code == TF_ERR_LIMIT ||
                       err.code == TF_ERR_NOMEM,
                   "a valid spec's shader refused with code %d: %s", err.code, err.message);
        FUZZ_CHECK(err.code != TF_ERR_ARGUMENT, "a valid spec refused: %s", err.message);
        return;
    }
    if (spec->drainage.levels > 0) {
        FUZZ_CHECK(strstr(src, "t_network_words") != NULL, "a drainage spec without its table");
        tf_terrain *t = tf_terrain_compile(spec, &err);
        tf_shader_network net;
        if (t && tf_shader_network_build(t, -3, 5, 24, 17, &net, &err) == 0) {
            FUZZ_CHECK(net.word_count >= 4 + 4 * TF_MAX_DRAINAGE_LEVELS && net.words[2] == 24,
                       "a network table of %zu words", net.word_count);
            tf_shader_network_free(&net);
        } else if (t) {
            FUZZ_CHECK(err.code == TF_ERR_LIMIT || err.code == TF_ERR_NOMEM,
                       "a network table refused with code %d: %s", err.code, err.message);
        }
        tf_terrain_free(t);
    }
    FUZZ_CHECK(strstr(src, "t_gradient_at(") != NULL, "no t_gradient_at in the %s",
               tf_shader_lang_name(lang));
    FUZZ_CHECK(!has_word(src, "inf") && !has_word(src, "nan") && !has_word(src, "-nan"),
               "a non-finite literal in the %s", tf_shader_lang_name(lang));
    free(src);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    tf_error err;
    memset(&err, 0, sizeof err);
    tf_spec *spec = tf_spec_parse((const char *)data, size, NULL, &err);
    if (!spec) {
        FUZZ_CHECK(err.code != TF_OK && memchr(err.message, '\0', sizeof err.message),
                   "a refused spec without an error");
        return 0;
    }
    if (tf_spec_validate(spec, &err) != 0) {
        FUZZ_CHECK(err.code != TF_OK, "an invalid spec without an error");
        tf_spec_free(spec);
        return 0;
    }
    check_round_trip(spec);
    tf_terrain *t = tf_terrain_compile(spec, &err);
    FUZZ_CHECK(t || err.code == TF_ERR_NOMEM, "a valid spec does not compile: %s", err.message);
    if (t) {
        size_t layers = tf_terrain_layer_count(t);
        FUZZ_CHECK(layers == spec->layer_count, "%zu layers compiled of %zu", layers,
                   spec->layer_count);
        /* The last bytes pick the point pairs, the windows and the layer,
         * so mutations of the tail vary them without changing the spec. */
        uint8_t pick = size > 0 ? data[size - 1] : 0;
        uint8_t pick2 = size > 1 ? data[size - 2] : 0;
        check_points(t, layers, pick);
        const window *w = &WINDOWS[pick % NWINDOWS];
        const window *w2 = &WINDOWS[(pick2 + 3u) % NWINDOWS];
        check_window(t, w, layers ? pick2 % layers : 0);
        check_window(t, w2, layers ? pick % layers : 0);
        check_paths(t, w);
        check_shader(spec, pick2);
        tf_terrain_free(t);
    }
    tf_spec_free(spec);
    return 0;
}
