/*
 * Fuzz target "heightmap": bytes -> a scratch file -> tf_heightmap_read in
 * every format; what reads back must write and read back unchanged.
 */

/* Input: byte 0 and 1 the width and height given to the reader (0-64;
 * r16 needs them, 0x0 is a square from the file size), byte 2 flags, the
 * rest the file. Flags: 1 = give the size to every format (it must then
 * match); 2 = the f32 sidecar is the file's text up to its first NUL (the
 * data follows the NUL), else one is written for the given size; 4 = that
 * written sidecar carries georeferencing; 8 = a PNG's chunk CRCs are made
 * right.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "terrafit/terrafit.h"
#include "fuzz.h"

#define FLAG_SIZE_ALL 1
#define FLAG_OWN_SIDECAR 2
#define FLAG_GEOREFERENCED 4
#define FLAG_PNG_CRCS 8

/* Only small maps are written back: the round trip is about the formats,
 * not about speed. */
#define MAX_ROUND_TRIP_PIXELS (64 * 64)

static int same_float(float a, float b)
{
    return memcmp(&a, &b, sizeof a) == 0;
}

/* Write `map` as `format` and read it back: the same size and the same
 * stored values. Integer formats store the samples over [0, maxval]. */
static void round_trip(const tf_heightmap *map, tf_heightmap_format format)
{
    size_t n = map->width * map->height;
    int is_float = tf_heightmap_format_is_float(format);
    if (n > MAX_ROUND_TRIP_PIXELS)
        return;
    for (size_t k = 0; k < n && is_float; k++)
        if (!isfinite(map->values[k]))
            return; /* float writers refuse what is not finite */
    tf_heightmap_options o = TF_HEIGHTMAP_OPTIONS_DEFAULT;
    if (is_float) {
        o.normalize = TF_NORMALIZE_NONE;
    } else {
        o.hi = format == TF_HEIGHTMAP_PNG8 ? 255.0 : 65535.0;
    }
    if (map->georeferenced) {
        o.origin_x = map->origin_x;
        o.origin_y = map->origin_y;
        o.step = map->step;
    }
    char name[16];
    snprintf(name, sizeof name, "back.%s", tf_heightmap_format_extension(format));
    const char *path = fuzz_scratch_path(2, name);
    tf_error err;
    if (tf_heightmap_write_with(path, format, map->values, map->width, map->height, &o, &err) !=
        0) {
        /* Georeferencing read from an ESRI grid may be beyond what a
         * writer takes (a step of 1e-320); anything else must write. */
        FUZZ_CHECK(map->georeferenced, "%s: what was read does not write: %s",
                   tf_heightmap_format_name(format), err.message);
        return;
    }
    tf_heightmap *back = tf_heightmap_read(path, format, format == TF_HEIGHTMAP_R16 ? map->width : 0,
                                           format == TF_HEIGHTMAP_R16 ? map->height : 0, &err);
    FUZZ_CHECK(back, "%s: what was written does not read back: %s",
               tf_heightmap_format_name(format), err.message);
    FUZZ_CHECK(back->width == map->width && back->height == map->height,
               "%s: %zux%zu written, %zux%zu read back", tf_heightmap_format_name(format),
               map->width, map->height, back->width, back->height);
    for (size_t k = 0; k < n; k++)
        FUZZ_CHECK(same_float(back->values[k], map->values[k]),
                   "%s: value %zu was %.9g, reads back as %.9g", tf_heightmap_format_name(format),
                   k, map->values[k], back->values[k]);
    tf_heightmap_free(back);
}

static void read_as(const char *path, tf_heightmap_format format, size_t w, size_t h)
{
    tf_error err;
    memset(&err, 0, sizeof err);
    tf_heightmap *map = tf_heightmap_read(path, format, w, h, &err);
    if (!map) {
        FUZZ_CHECK(err.code != TF_OK && err.message[0], "%s: refused as %s without an error",
                   path, tf_heightmap_format_name(format));
        return;
    }
    FUZZ_CHECK(map->width >= 1 && map->height >= 1 && map->width <= TF_MAX_IMAGE_SIDE &&
                   map->height <= TF_MAX_IMAGE_SIDE && (w == 0 || (map->width == w && map->height == h)),
               "%s: a %zux%zu heightmap (%zux%zu asked for)", tf_heightmap_format_name(format),
               map->width, map->height, w, h);
    if (!tf_heightmap_format_is_float(format)) {
        float maxval = format == TF_HEIGHTMAP_PNG8 ? 255.0f : 65535.0f;
        for (size_t k = 0; k < map->width * map->height; k++)
            FUZZ_CHECK(map->values[k] >= 0.0f && map->values[k] <= maxval &&
                           map->values[k] == floorf(map->values[k]),
                       "%s: sample %zu is %g", tf_heightmap_format_name(format), k,
                       map->values[k]);
    }
    round_trip(map, format);
    tf_heightmap_free(map);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    fuzz_bytes in = {data, size};
    size_t w = fuzz_u8(&in) % 65, h = fuzz_u8(&in) % 65;
    uint8_t flags = fuzz_u8(&in);
    uint8_t *fixed = NULL;
    if (flags & FLAG_PNG_CRCS) {
        fixed = fuzz_png_with_crcs(in.p, in.n);
        in.p = fixed;
    }
    size_t all_w = flags & FLAG_SIZE_ALL ? w : 0, all_h = flags & FLAG_SIZE_ALL ? h : 0;

    static const tf_heightmap_format named[] = {TF_HEIGHTMAP_PNG16, TF_HEIGHTMAP_PNG8,
                                                TF_HEIGHTMAP_PGM16, TF_HEIGHTMAP_PFM,
                                                TF_HEIGHTMAP_ASC};
    for (size_t k = 0; k < sizeof named / sizeof named[0]; k++) {
        char name[16];
        snprintf(name, sizeof name, "in.%s", tf_heightmap_format_extension(named[k]));
        const char *path = fuzz_scratch_path(0, name);
        fuzz_write_file(path, in.p, in.n);
        read_as(path, named[k], all_w, all_h);
    }
    const char *r16 = fuzz_scratch_path(0, "in.r16");
    fuzz_write_file(r16, in.p, in.n);
    read_as(r16, TF_HEIGHTMAP_R16, w, h);

    /* f32: raw floats beside a JSON sidecar. */
    const char *f32 = fuzz_scratch_path(0, "in.f32");
    const char *sidecar = fuzz_scratch_path(1, "in.f32.json");
    const uint8_t *floats = in.p;
    size_t floats_size = in.n;
    if (flags & FLAG_OWN_SIDECAR) {
        const uint8_t *nul = memchr(in.p, '\0', in.n);
        size_t len = nul ? (size_t)(nul - in.p) : in.n;
        fuzz_write_file(sidecar, in.p, len);
        floats = nul ? nul + 1 : in.p + in.n;
        floats_size = nul ? in.n - len - 1 : 0;
    } else {
        char text[256];
        int len = snprintf(text, sizeof text,
                           "{\"width\": %zu, \"height\": %zu, \"sampleType\": \"float32\", "
                           "\"byteOrder\": \"little-endian\", \"rowOrder\": \"top-to-bottom\"%s}",
                           w, h,
                           flags & FLAG_GEOREFERENCED ? ", \"origin\": [-12.5, 3], \"step\": 0.25"
                                                      : "");
        fuzz_write_file(sidecar, text, (size_t)len);
    }
    fuzz_write_file(f32, floats, floats_size);
    read_as(f32, TF_HEIGHTMAP_F32, all_w, all_h);
    free(fixed);
    return 0;
}
