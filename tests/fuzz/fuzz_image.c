/*
 * Fuzz target "image": bytes -> a scratch file -> tf_layer_map_load (PNG,
 * PGM, ESRI grid, PFM), under a name with an extension and a mismatched one.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "terrafit/image.h"
#include "fuzz.h"

/* "" is a name without an extension: the content alone decides. */
static const char *const EXTENSIONS[] = {".png", ".pgm", ".asc", ".pfm", ""};
#define NEXT (sizeof EXTENSIONS / sizeof EXTENSIONS[0])

/* What image.h promises of a map it returns. */
static void check_map(const tf_layer_map *map, const char *path)
{
    FUZZ_CHECK(map->width >= 1 && map->height >= 1 && map->width <= TF_MAX_REFERENCE_SIDE &&
                   map->height <= TF_MAX_REFERENCE_SIDE &&
                   map->width * map->height <= TF_MAX_REFERENCE_PIXELS,
               "%s: a %zux%zu map", path, map->width, map->height);
    FUZZ_CHECK(map->channels >= 1 && map->channels <= 4, "%s: %d channels", path, map->channels);
    FUZZ_CHECK(map->bits == 0 || map->bits == 8 || map->bits == 16, "%s: %d bits", path,
               map->bits);
    size_t n = map->width * map->height;
    for (size_t k = 0; k < n; k++) {
        float v = map->value[k], w = map->weight[k];
        FUZZ_CHECK(v >= 0.0f && v <= 1.0f, "%s: value[%zu] = %g, not in [0, 1]", path, k, v);
        FUZZ_CHECK(w >= 0.0f && w <= 1.0f, "%s: weight[%zu] = %g, not in [0, 1]", path, k, w);
        FUZZ_CHECK(w > 0.0f || v == 0.5f, "%s: cell %zu has weight 0 and value %g, not 0.5",
                   path, k, v);
    }
    FUZZ_CHECK(tf_layer_map_visible_count(map) <= n, "%s: more visible cells than cells", path);
}

static void load(const char *path)
{
    tf_error err;
    memset(&err, 0, sizeof err);
    tf_layer_map *map = tf_layer_map_load(path, &err);
    if (!map) {
        FUZZ_CHECK(err.code != TF_OK && memchr(err.message, '\0', sizeof err.message) &&
                       err.message[0],
                   "%s: refused without an error", path);
        return;
    }
    check_map(map, path);
    tf_layer_map_free(map);
}

/* Input: byte 0 picks the extensions (its low 7 bits) and whether a PNG's
 * chunk CRCs are made right (its top bit); the rest is the file. */
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    fuzz_bytes in = {data, size};
    uint8_t first = fuzz_u8(&in);
    unsigned pick = first & 0x7f;
    /* The second name claims another format than the first (or none). */
    unsigned exts[2] = {pick % NEXT, (pick % NEXT + 1 + (pick / NEXT) % (NEXT - 1)) % NEXT};
    uint8_t *file = first & 0x80 ? fuzz_png_with_crcs(in.p, in.n) : NULL;
    char name[16];
    for (unsigned k = 0; k < 2; k++) {
        unsigned ext = exts[k];
        memcpy(name, "in", 3);
        strcat(name, EXTENSIONS[ext]);
        const char *path = fuzz_scratch_path(0, name);
        fuzz_write_file(path, file ? file : in.p, in.n);
        load(path);
    }
    free(file);
    return 0;
}
