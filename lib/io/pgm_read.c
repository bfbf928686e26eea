/*
 * PGM reference layers (Netpbm greyscale): P5 (binary, big-endian when
 * maxval > 255) and P2 (plain text), maxval 1..65535; value = sample /
 * maxval, weight 1. Sizes are checked from the header before allocating.
 */
#include <stdio.h>
#include <stdlib.h>

#include "io/io_internal.h"
#include "base/error.h"

/* The next header number ("the width", ...): a decimal integer. */
static int header_number(const char *path, io_cursor *c, const char *what, uint64_t *value,
                         tf_error *err)
{
    io_token tok;
    char quoted[32];
    if (!io_next_token(c, true, &tok)) {
        tf_error_set(err, TF_ERR_PARSE, "%s:%zu: truncated PGM header: no %s", path, c->line,
                     what);
        return -1;
    }
    if (!io_parse_uint(&tok, value)) {
        tf_error_set(err, TF_ERR_PARSE, "%s:%zu: PGM %s '%s' is not a non-negative integer",
                     path, tok.line, what, io_token_quote(&tok, quoted, sizeof quoted));
        return -1;
    }
    return 0;
}

int io_read_pgm(const char *path, const unsigned char *data, size_t size, bool want_zero,
                io_decoded *out, tf_error *err)
{
    const bool plain = data[1] == '2';
    io_cursor c = {(const char *)data + 2, (const char *)data + size, 1};
    uint64_t width, height, maxval;
    if (header_number(path, &c, "width", &width, err) != 0 ||
        header_number(path, &c, "height", &height, err) != 0 ||
        header_number(path, &c, "maxval", &maxval, err) != 0)
        return -1;
    if (maxval == 0 || maxval > 65535) {
        tf_error_set(err, TF_ERR_PARSE, "%s:%zu: PGM maxval %llu is out of range (1 to 65535)",
                     path, c.line, (unsigned long long)maxval);
        return -1;
    }
    if (io_check_size(path, width, height, err) != 0)
        return -1;
    const size_t nx = (size_t)width, ny = (size_t)height, n = nx * ny;
    const unsigned bytes = maxval > 255 ? 2 : 1;
    const unsigned char *raster = NULL;
    if (!plain) {
        /* Exactly one white-space byte separates maxval from the raster
         * (the token ended at it, or at the end of the file). */
        if (c.p >= c.end) {
            tf_error_set(err, TF_ERR_PARSE, "%s: truncated PGM: no pixel data after the header",
                         path);
            return -1;
        }
        if (*c.p == '#') {
            tf_error_set(err, TF_ERR_PARSE,
                         "%s:%zu: PGM header: no white space between maxval and the pixels",
                         path, c.line);
            return -1;
        }
        raster = (const unsigned char *)c.p + 1;
        size_t have = (size_t)((const unsigned char *)c.end - raster), need = n * bytes;
        if (have < need) {
            size_t row = have / (nx * bytes);
            tf_error_set(err, TF_ERR_PARSE,
                         "%s: truncated PGM: %zu of %zu bytes of pixel data (the file ends in "
                         "row %zu of %zu)",
                         path, have, need, row, ny);
            return -1;
        }
        for (size_t k = need; k < have; k++)
            if (raster[k] != ' ' && raster[k] != '\n' && raster[k] != '\r' && raster[k] != '\t') {
                tf_error_set(err, TF_ERR_PARSE,
                             "%s: %zu bytes of unexpected data after the %zu bytes of pixels "
                             "(only one image per file)",
                             path, have - need, need);
                return -1;
            }
    }
    if (plain && (size_t)(c.end - c.p) / 2 < n) {
        /* Each sample takes a digit and the white space before it: fewer
         * than 2 bytes a sample cannot hold the raster. Counted here, with
         * the loop's message, so a tiny file claiming a huge size costs no
         * allocation. */
        io_cursor count = c;
        io_token tok;
        size_t k = 0;
        while (k < n && io_next_token(&count, true, &tok))
            k++;
        tf_error_set(err, TF_ERR_PARSE, "%s:%zu: truncated PGM: %zu of %zu samples (%zux%zu)",
                     path, count.line, k, n, nx, ny);
        return -1;
    }
    if (io_decoded_alloc(path, nx, ny, want_zero, out, err) != 0)
        return -1;
    tf_layer_map *map = out->map;
    map->bits = bytes == 2 ? 16 : 8;
    map->channels = 1;
    const double scale = 1.0 / (double)maxval;
    io_token tok;
    char quoted[32];
    for (size_t k = 0; k < n; k++) {
        uint64_t s;
        if (plain) {
            if (!io_next_token(&c, true, &tok)) {
                tf_error_set(err, TF_ERR_PARSE,
                             "%s:%zu: truncated PGM: %zu of %zu samples (%zux%zu)", path, c.line,
                             k, n, nx, ny);
                goto fail;
            }
            if (!io_parse_uint(&tok, &s)) {
                tf_error_set(err, TF_ERR_PARSE,
                             "%s:%zu: sample '%s' at pixel (%zu, %zu) is not a non-negative "
                             "integer",
                             path, tok.line, io_token_quote(&tok, quoted, sizeof quoted), k % nx,
                             k / nx);
                goto fail;
            }
        } else {
            s = bytes == 2 ? (uint64_t)raster[2 * k] << 8 | raster[2 * k + 1] : raster[k];
        }
        if (s > maxval) {
            if (plain)
                tf_error_set(err, TF_ERR_PARSE,
                             "%s:%zu: sample %llu at pixel (%zu, %zu) is above maxval %llu",
                             path, tok.line, (unsigned long long)s, k % nx, k / nx,
                             (unsigned long long)maxval);
            else
                tf_error_set(err, TF_ERR_PARSE,
                             "%s: sample %llu at pixel (%zu, %zu) is above maxval %llu", path,
                             (unsigned long long)s, k % nx, k / nx, (unsigned long long)maxval);
            goto fail;
        }
        map->value[k] = (float)((double)s * scale);
        if (out->zero)
            out->zero[k] = s == 0;
    }
    if (plain && io_next_token(&c, true, &tok)) {
        tf_error_set(err, TF_ERR_PARSE,
                     "%s:%zu: more samples than the %zu (%zux%zu) of the header (only one "
                     "image per file)",
                     path, tok.line, n, nx, ny);
        goto fail;
    }
    return 0;
fail:
    io_decoded_free(out);
    return -1;
}
