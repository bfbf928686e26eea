/*
 * Reading heightmaps back as stored (tf_heightmap_read): the integer
 * formats through the reference readers (exact sample values), r16 raw,
 * ESRI ASCII grids with their georeferencing, and the float formats in
 * f32_read.c and pfm_read.c. For round trips, tools and tests.
 */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "io/heightmap_internal.h"
#include "io/io_internal.h"
#include "base/error.h"

/* An ESRI grid value takes at least two bytes ("0 "); allow headers and
 * long numbers: 32 bytes a cell. */
#define ASC_BYTES_PER_CELL 32

int io_heightmap_check(const char *path, uint64_t width, uint64_t height, tf_error *err)
{
    if (width == 0 || height == 0 || width > TF_MAX_IMAGE_SIDE || height > TF_MAX_IMAGE_SIDE ||
        width * height > TF_MAX_IMAGE_PIXELS) {
        tf_error_set(err, width == 0 || height == 0 ? TF_ERR_PARSE : TF_ERR_LIMIT,
                     "%s: a %llux%llu heightmap is %s (at most %u per side and %zu pixels)",
                     path, (unsigned long long)width, (unsigned long long)height,
                     width == 0 || height == 0 ? "empty" : "too large", TF_MAX_IMAGE_SIDE,
                     TF_MAX_IMAGE_PIXELS);
        return -1;
    }
    return 0;
}

tf_heightmap *io_heightmap_alloc(const char *path, uint64_t width, uint64_t height,
                                 tf_error *err)
{
    if (io_heightmap_check(path, width, height, err) != 0)
        return NULL;
    tf_heightmap *map = calloc(1, sizeof *map);
    float *values = map ? malloc((size_t)(width * height) * sizeof *values) : NULL;
    if (!values) {
        free(map);
        tf_error_set(err, TF_ERR_NOMEM, "%s: out of memory for a %llux%llu heightmap", path,
                     (unsigned long long)width, (unsigned long long)height);
        return NULL;
    }
    map->width = (size_t)width;
    map->height = (size_t)height;
    map->values = values;
    map->step = 1.0;
    return map;
}

void tf_heightmap_free(tf_heightmap *map)
{
    if (!map)
        return;
    free(map->values);
    free(map);
}

/* ---- integer formats */

/* png16, png8, pgm16: the reference reader gives value = q / maxval for a
 * single grey channel; rounding recovers q exactly. */
static tf_heightmap *read_quantized(const char *path, tf_heightmap_format format,
                                    tf_error *err)
{
    tf_layer_map *layer = tf_layer_map_load(path, err);
    if (!layer)
        return NULL;
    const int bits = format == TF_HEIGHTMAP_PNG8 ? 8 : 16;
    if (layer->channels != 1 || layer->bits != bits) {
        tf_error_set(err, TF_ERR_INVALID, "%s: a %d-channel %d-bit image, not %s (%d-bit grey)",
                     path, layer->channels, layer->bits, tf_heightmap_format_name(format), bits);
        tf_layer_map_free(layer);
        return NULL;
    }
    tf_heightmap *map = io_heightmap_alloc(path, layer->width, layer->height, err);
    if (map) {
        const double maxval = bits == 8 ? 255.0 : 65535.0;
        size_t n = map->width * map->height;
        for (size_t k = 0; k < n; k++)
            map->values[k] = (float)floor((double)layer->value[k] * maxval + 0.5);
    }
    tf_layer_map_free(layer);
    return map;
}

static tf_heightmap *read_r16(const char *path, size_t width, size_t height, tf_error *err)
{
    size_t size;
    unsigned char *data =
        io_read_file(path, (size_t)2 * TF_MAX_IMAGE_PIXELS, "this kind of file", &size, err);
    if (!data)
        return NULL;
    if (width == 0 && height == 0) {
        /* A square, as engines assume for headerless R16. */
        size_t side = (size_t)sqrt((double)(size / 2));
        while (side * side < size / 2)
            side++;
        while (side * side > size / 2)
            side--;
        width = height = side;
    }
    /* The byte count is compared before the map is allocated. */
    tf_heightmap *map = NULL;
    if (io_heightmap_check(path, width, height, err) != 0) {
    } else if (size != width * height * 2) {
        tf_error_set(err, TF_ERR_PARSE, "%s: %zu bytes, but a %zux%zu r16 heightmap has %zu",
                     path, size, width, height, width * height * 2);
    } else {
        map = io_heightmap_alloc(path, width, height, err);
    }
    if (map) {
        size_t n = map->width * map->height;
        for (size_t k = 0; k < n; k++)
            map->values[k] = (float)(data[2 * k] | data[2 * k + 1] << 8);
    }
    free(data);
    return map;
}

/* ---- ESRI ASCII grid, values as stored */

typedef struct {
    uint64_t ncols, nrows;
    double x, y, cellsize, nodata;
    bool has_ncols, has_nrows, has_x, has_y, has_cellsize, has_nodata;
    bool x_is_center, y_is_center;
} asc_header;

static int asc_header_value(const char *path, io_cursor *c, const io_token *key, asc_header *h,
                            tf_error *err)
{
    io_token val;
    char quoted[32];
    if (!io_next_token(c, false, &val) || val.line != key->line) {
        tf_error_set(err, TF_ERR_PARSE, "%s:%zu: header key '%s' has no value", path, key->line,
                     io_token_quote(key, quoted, sizeof quoted));
        return -1;
    }
    bool ok;
    if (io_token_is(key, "ncols")) {
        ok = h->has_ncols = io_parse_uint(&val, &h->ncols);
    } else if (io_token_is(key, "nrows")) {
        ok = h->has_nrows = io_parse_uint(&val, &h->nrows);
    } else if (io_token_is(key, "xllcorner") || io_token_is(key, "xllcenter")) {
        ok = h->has_x = io_parse_double(&val, &h->x) && isfinite(h->x);
        h->x_is_center = io_token_is(key, "xllcenter");
    } else if (io_token_is(key, "yllcorner") || io_token_is(key, "yllcenter")) {
        ok = h->has_y = io_parse_double(&val, &h->y) && isfinite(h->y);
        h->y_is_center = io_token_is(key, "yllcenter");
    } else if (io_token_is(key, "cellsize")) {
        ok = h->has_cellsize =
            io_parse_double(&val, &h->cellsize) && isfinite(h->cellsize) && h->cellsize > 0.0;
    } else {
        ok = h->has_nodata = io_parse_double(&val, &h->nodata);
    }
    if (!ok)
        tf_error_set(err, TF_ERR_PARSE, "%s:%zu: bad value '%s' for header key %.*s", path,
                     val.line, io_token_quote(&val, quoted, sizeof quoted), (int)key->len,
                     key->text);
    return ok ? 0 : -1;
}

static tf_heightmap *read_asc(const char *path, tf_error *err)
{
    size_t size;
    unsigned char *data = io_read_file(
        path, (size_t)ASC_BYTES_PER_CELL * TF_MAX_IMAGE_PIXELS, "this kind of file", &size, err);
    if (!data)
        return NULL;
    io_cursor c = {(const char *)data, (const char *)data + size, 1};
    asc_header h = {0};
    io_token tok;
    char quoted[32];
    tf_heightmap *map = NULL;
    for (;;) {
        io_cursor before = c;
        if (!io_next_token(&c, false, &tok))
            break;
        if (io_asc_key_index(&tok) < 0) {
            c = before;
            break;
        }
        if (asc_header_value(path, &c, &tok, &h, err) != 0)
            goto done;
    }
    if (!h.has_ncols || !h.has_nrows || !h.has_x || !h.has_y || !h.has_cellsize) {
        tf_error_set(err, TF_ERR_PARSE,
                     "%s: the ESRI grid header lacks %s (ncols, nrows, xllcorner, yllcorner and "
                     "cellsize are required)",
                     path,
                     !h.has_ncols   ? "ncols"
                     : !h.has_nrows ? "nrows"
                     : !h.has_x     ? "xllcorner"
                     : !h.has_y     ? "yllcorner"
                                    : "cellsize");
        goto done;
    }
    if (io_heightmap_check(path, h.ncols, h.nrows, err) != 0)
        goto done;
    if ((size_t)(c.end - c.p) / 2 < h.ncols * h.nrows) {
        /* Each value takes a character and the white space before it: a
         * file this short cannot hold the grid, whatever its header says.
         * Counted without allocating the map. */
        io_cursor count = c;
        size_t k = 0;
        while (k < h.ncols * h.nrows && io_next_token(&count, false, &tok))
            k++;
        tf_error_set(err, TF_ERR_PARSE, "%s:%zu: too few values: %zu of %llu", path, count.line,
                     k, (unsigned long long)(h.ncols * h.nrows));
        goto done;
    }
    map = io_heightmap_alloc(path, h.ncols, h.nrows, err);
    if (!map)
        goto done;
    size_t n = map->width * map->height;
    for (size_t k = 0; k < n; k++) {
        double z;
        if (!io_next_token(&c, false, &tok)) {
            tf_error_set(err, TF_ERR_PARSE, "%s:%zu: too few values: %zu of %zu", path, c.line, k,
                         n);
            goto fail;
        }
        if (!io_parse_double(&tok, &z)) {
            tf_error_set(err, TF_ERR_PARSE, "%s:%zu: value '%s' at row %zu, column %zu is not a "
                         "number",
                         path, tok.line, io_token_quote(&tok, quoted, sizeof quoted),
                         k / map->width, k % map->width);
            goto fail;
        }
        map->values[k] = h.has_nodata && z == h.nodata ? NAN : (float)z;
    }
    if (io_next_token(&c, false, &tok)) {
        tf_error_set(err, TF_ERR_PARSE, "%s:%zu: too many values: more than the %zu of the header",
                     path, tok.line, n);
        goto fail;
    }
    /* Pixel (0, 0) is the centre of the top-left cell, with northing = -y
     * (docs/formats.md): the inverse of what tf_heightmap_write stores. */
    const double s = h.cellsize, last_row = (double)(map->height - 1) * s;
    map->georeferenced = 1;
    map->step = s;
    map->origin_x = h.x_is_center ? h.x : h.x + 0.5 * s;
    map->origin_y = -((h.y_is_center ? h.y : h.y + 0.5 * s) + last_row);
    goto done;
fail:
    tf_heightmap_free(map);
    map = NULL;
done:
    free(data);
    return map;
}

tf_heightmap *tf_heightmap_read(const char *path, tf_heightmap_format format, size_t width,
                                size_t height, tf_error *err)
{
    if (!path || !*path) {
        tf_error_set(err, TF_ERR_ARGUMENT, "tf_heightmap_read: no file name given");
        return NULL;
    }
    if ((width == 0) != (height == 0)) {
        tf_error_set(err, TF_ERR_ARGUMENT, "%s: give both width and height, or neither", path);
        return NULL;
    }
    tf_heightmap *map = NULL;
    switch (format) {
    case TF_HEIGHTMAP_PNG16:
    case TF_HEIGHTMAP_PNG8:
    case TF_HEIGHTMAP_PGM16:
        map = read_quantized(path, format, err);
        break;
    case TF_HEIGHTMAP_R16:
        return read_r16(path, width, height, err);
    case TF_HEIGHTMAP_F32:
        map = io_f32_read(path, err);
        break;
    case TF_HEIGHTMAP_PFM: {
        size_t size;
        unsigned char *data = io_read_file(
            path, (size_t)4 * TF_MAX_IMAGE_PIXELS + 4096, "this kind of file", &size, err);
        if (data)
            map = io_pfm_decode(path, data, size, err);
        free(data);
        break;
    }
    case TF_HEIGHTMAP_ASC:
        map = read_asc(path, err);
        break;
    default:
        tf_error_set(err, TF_ERR_ARGUMENT, "%s: unknown heightmap format %d", path, (int)format);
        return NULL;
    }
    if (map && width != 0 && (map->width != width || map->height != height)) {
        tf_error_set(err, TF_ERR_INVALID, "%s: %zux%zu, not the %zux%zu expected", path,
                     map->width, map->height, width, height);
        tf_heightmap_free(map);
        return NULL;
    }
    return map;
}

/* ---- float heightmaps as reference layers */

/* Move a float heightmap into a layer map: normalized over its finite
 * values, as asc_read.c does for ESRI grids (a constant map holds 0.5).
 * Frees `map` whatever happens. */
static int float_layer(const char *path, tf_heightmap *map, bool want_zero, io_decoded *out,
                       tf_error *err)
{
    out->map = NULL;
    out->zero = NULL;
    if (!map)
        return -1;
    if (io_check_size(path, map->width, map->height, err) != 0 ||
        io_decoded_alloc(path, map->width, map->height, want_zero, out, err) != 0) {
        tf_heightmap_free(map);
        return -1;
    }
    size_t n = map->width * map->height;
    double zmin = INFINITY, zmax = -INFINITY;
    for (size_t k = 0; k < n; k++) {
        double z = map->values[k];
        if (isfinite(z)) {
            zmin = z < zmin ? z : zmin;
            zmax = z > zmax ? z : zmax;
        }
    }
    if (!(zmin <= zmax)) {
        tf_error_set(err, TF_ERR_INVALID, "%s: no finite height in the file", path);
        tf_heightmap_free(map);
        io_decoded_free(out);
        return -1;
    }
    const double range = zmax - zmin;
    for (size_t k = 0; k < n; k++) {
        double z = map->values[k];
        if (!isfinite(z)) {
            out->map->weight[k] = 0.0f;
            if (out->zero)
                out->zero[k] = 1;
            continue;
        }
        out->map->value[k] = range > 0.0 ? (float)((z - zmin) / range) : 0.5f;
        if (out->zero)
            out->zero[k] = z == 0.0;
    }
    out->map->z_min = zmin;
    out->map->z_max = zmax;
    tf_heightmap_free(map);
    return 0;
}

int io_read_pfm(const char *path, const unsigned char *data, size_t size, bool want_zero,
                io_decoded *out, tf_error *err)
{
    return float_layer(path, io_pfm_decode(path, data, size, err), want_zero, out, err);
}

int io_read_f32(const char *path, bool want_zero, io_decoded *out, tf_error *err)
{
    return float_layer(path, io_f32_read(path, err), want_zero, out, err);
}
