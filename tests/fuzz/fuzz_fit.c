/*
 * Fuzz target "fit": bytes -> up to three small reference layers, some
 * degenerate on purpose -> tf_fit on one thread; a fit must give a valid spec.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "terrafit/fit.h"
#include "fuzz.h"

/* How a layer is filled (the low 3 bits of its mode byte). */
enum {
    FILL_BYTES,     /* one input byte per cell */
    FILL_CONSTANT,  /* one byte for every cell */
    FILL_ONE_CELL,  /* one visible cell, the rest absent */
    FILL_HOLES,     /* input bytes, absent where a byte is below a threshold */
    FILL_SPIKES,    /* 0 everywhere, 1 at the cells the bytes name */
    FILL_RAMP,      /* a slope along x or y */
    FILL_CHECKER,   /* alternating 0 and 1 */
    FILL_PARTIAL    /* input bytes, weights from further bytes (partial presence) */
};

static void fill_layer(tf_layer_map *map, fuzz_bytes *in)
{
    uint8_t mode = fuzz_u8(in);
    size_t n = map->width * map->height;
    switch (mode & 7) {
    case FILL_BYTES:
        for (size_t k = 0; k < n; k++)
            map->value[k] = fuzz_u8(in) / 255.0f;
        break;
    case FILL_CONSTANT: {
        float v = fuzz_u8(in) / 255.0f;
        for (size_t k = 0; k < n; k++)
            map->value[k] = v;
        break;
    }
    case FILL_ONE_CELL: {
        size_t at = fuzz_u16(in) % n;
        for (size_t k = 0; k < n; k++) {
            map->weight[k] = k == at ? 1.0f : 0.0f;
            map->value[k] = k == at ? fuzz_u8(in) / 255.0f : 0.5f;
        }
        break;
    }
    case FILL_HOLES: {
        uint8_t threshold = fuzz_u8(in);
        for (size_t k = 0; k < n; k++) {
            uint8_t b = fuzz_u8(in);
            map->weight[k] = b < threshold ? 0.0f : 1.0f;
            map->value[k] = b < threshold ? 0.5f : b / 255.0f;
        }
        break;
    }
    case FILL_SPIKES: {
        for (size_t k = 0; k < n; k++)
            map->value[k] = 0.0f;
        unsigned spikes = 1 + fuzz_u8(in) % 8;
        for (unsigned s = 0; s < spikes; s++)
            map->value[fuzz_u16(in) % n] = 1.0f;
        break;
    }
    case FILL_RAMP: {
        int along_y = mode & 8;
        for (size_t j = 0; j < map->height; j++)
            for (size_t i = 0; i < map->width; i++) {
                size_t t = along_y ? j : i, len = along_y ? map->height : map->width;
                map->value[j * map->width + i] = len > 1 ? (float)t / (float)(len - 1) : 0.5f;
            }
        break;
    }
    case FILL_CHECKER:
        for (size_t j = 0; j < map->height; j++)
            for (size_t i = 0; i < map->width; i++)
                map->value[j * map->width + i] = (float)((i + j) & 1);
        break;
    case FILL_PARTIAL:
        for (size_t k = 0; k < n; k++) {
            float v = fuzz_u8(in) / 255.0f, w = fuzz_u8(in) / 255.0f;
            /* As the reader stores a partial alpha: the distance from 0.5. */
            map->weight[k] = w;
            map->value[k] = w > 0.0f ? 0.5f + (v - 0.5f) * w : 0.5f;
        }
        break;
    }
}

/* Input: a header (layer count, width, height, points, noise, kind,
 * bands, frequency method, seed), then each layer's mode byte and fill. */
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    fuzz_bytes in = {data, size};
    size_t count = 1 + fuzz_u8(&in) % 3;
    size_t width = 1 + fuzz_u8(&in) % 64, height = 1 + fuzz_u8(&in) % 64;
    tf_fit_options opt;
    tf_fit_options_init(&opt);
    opt.threads = 1;
    opt.points = 2 + fuzz_u8(&in) % 15;
    uint8_t noise = fuzz_u8(&in), kind = fuzz_u8(&in);
    opt.noise = (tf_noise_type)(noise % TF_NOISE_TYPE_COUNT);
    /* --noise auto fits every layer seven times: one input in eight. */
    opt.noise_auto = (noise & 0xe0) == 0xe0;
    opt.fractal = (tf_fractal_kind)(kind % TF_FRACTAL_KIND_COUNT);
    opt.layers = fuzz_u8(&in) % 5;
    opt.frequency = (tf_frequency_method)(fuzz_u8(&in) % 3);
    opt.seed = fuzz_u16(&in);

    tf_layer_map *layers[3] = {NULL, NULL, NULL};
    tf_error err;
    for (size_t i = 0; i < count; i++) {
        layers[i] = tf_layer_map_new(width, height, &err);
        FUZZ_CHECK(layers[i], "tf_layer_map_new(%zu, %zu): %s", width, height, err.message);
        fill_layer(layers[i], &in);
    }

    tf_spec *spec = NULL;
    tf_fit_report report;
    memset(&report, 0, sizeof report);
    memset(&err, 0, sizeof err);
    int rc = tf_fit((const tf_layer_map *const *)layers, count, &opt, &spec, &report, NULL, NULL,
                    &err);
    if (rc != 0) {
        FUZZ_CHECK(rc == -1 && !spec && err.code != TF_OK && err.message[0],
                   "tf_fit failed without an error (rc %d)", rc);
        if (getenv("TF_FUZZ_VERBOSE"))
            fprintf(stderr, "refused: %s\n", err.message);
    } else {
        for (size_t i = 0; i < count; i++)
            FUZZ_CHECK(tf_layer_map_visible_count(layers[i]) > 0,
                       "layer %zu has no visible cell, yet it was fitted", i);
        FUZZ_CHECK(spec, "tf_fit succeeded without a spec");
        FUZZ_CHECK(tf_spec_validate(spec, &err) == 0, "tf_fit gave an invalid spec: %s",
                   err.message);
        char *json = tf_spec_to_json(spec, &err);
        FUZZ_CHECK(json, "the fitted spec does not write: %s", err.message);
        free(json);
        char *text = tf_fit_report_to_json(&report, 0, &err);
        FUZZ_CHECK(text, "the report does not write: %s", err.message);
        free(text);
        tf_terrain *t = tf_terrain_compile(spec, &err);
        FUZZ_CHECK(t, "the fitted spec does not compile: %s", err.message);
        double h = tf_terrain_sample(t, 0.5 * (double)width, 0.5 * (double)height);
        FUZZ_CHECK(isfinite(h), "the fitted terrain is %g at the reference's centre", h);
        tf_terrain_free(t);
        tf_spec_free(spec);
        tf_fit_report_free(&report);
    }
    for (size_t i = 0; i < count; i++)
        tf_layer_map_free(layers[i]);
    return 0;
}
