/*
 * Portable Float Map, greyscale ("Pf"): a text header (width, height,
 * scale whose sign gives the byte order) and binary float32 rows stored
 * bottom to top. Read back exactly as stored, for tf_heightmap_read.
 */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "io/heightmap_internal.h"
#include "io/io_internal.h"
#include "base/error.h"

static float float_from_bytes(const unsigned char *p, int little_endian)
{
    uint32_t bits = little_endian ? (uint32_t)p[0] | (uint32_t)p[1] << 8 |
                                        (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24
                                  : (uint32_t)p[3] | (uint32_t)p[2] << 8 |
                                        (uint32_t)p[1] << 16 | (uint32_t)p[0] << 24;
    float v;
    memcpy(&v, &bits, sizeof v);
    return v;
}

tf_heightmap *io_pfm_decode(const char *path, const unsigned char *data, size_t size,
                            tf_error *err)
{
    if (size < 3 || data[0] != 'P' || (data[1] != 'f' && data[1] != 'F') ||
        !(data[2] == ' ' || data[2] == '\t' || data[2] == '\n' || data[2] == '\r')) {
        tf_error_set(err, TF_ERR_PARSE, "%s: not a PFM file (no 'Pf' magic number)", path);
        return NULL;
    }
    if (data[1] == 'F') {
        tf_error_set(err, TF_ERR_PARSE,
                     "%s: a colour PFM ('PF', 3 channels); a heightmap is greyscale ('Pf')",
                     path);
        return NULL;
    }
    io_cursor c = {(const char *)data + 2, (const char *)data + size, 1};
    io_token tok;
    uint64_t dims[2];
    static const char *const what[2] = {"width", "height"};
    char quoted[32];
    for (int k = 0; k < 2; k++) {
        if (!io_next_token(&c, false, &tok)) {
            tf_error_set(err, TF_ERR_PARSE, "%s:%zu: truncated PFM header: no %s", path, c.line,
                         what[k]);
            return NULL;
        }
        if (!io_parse_uint(&tok, &dims[k])) {
            tf_error_set(err, TF_ERR_PARSE, "%s:%zu: PFM %s '%s' is not a non-negative integer",
                         path, tok.line, what[k], io_token_quote(&tok, quoted, sizeof quoted));
            return NULL;
        }
    }
    double scale;
    if (!io_next_token(&c, false, &tok)) {
        tf_error_set(err, TF_ERR_PARSE, "%s:%zu: truncated PFM header: no scale", path, c.line);
        return NULL;
    }
    if (!io_parse_double(&tok, &scale) || !isfinite(scale) || scale == 0.0) {
        tf_error_set(err, TF_ERR_PARSE, "%s:%zu: PFM scale '%s' is not a non-zero number", path,
                     tok.line, io_token_quote(&tok, quoted, sizeof quoted));
        return NULL;
    }
    /* Exactly one white-space byte ends the header. */
    if (c.p >= c.end) {
        tf_error_set(err, TF_ERR_PARSE, "%s: truncated PFM: no samples after the header", path);
        return NULL;
    }
    const unsigned char *raster = (const unsigned char *)c.p + 1;
    size_t available = size - (size_t)(raster - data);
    /* The size, then the byte count, before the map is allocated. */
    if (io_heightmap_check(path, dims[0], dims[1], err) != 0)
        return NULL;
    size_t nx = (size_t)dims[0], ny = (size_t)dims[1];
    if (available != nx * ny * 4) {
        tf_error_set(err, TF_ERR_PARSE,
                     "%s: a %zux%zu PFM holds %zu bytes of samples, but %zu follow the header",
                     path, nx, ny, nx * ny * 4, available);
        return NULL;
    }
    tf_heightmap *map = io_heightmap_alloc(path, nx, ny, err);
    if (!map)
        return NULL;
    const int little_endian = scale < 0.0;
    for (size_t k = 0; k < ny; k++) {
        const unsigned char *row = raster + k * nx * 4;
        float *out = map->values + (ny - 1 - k) * nx; /* stored bottom to top */
        for (size_t i = 0; i < nx; i++)
            out[i] = float_from_bytes(row + 4 * i, little_endian);
    }
    return map;
}
