/*
 * Private to lib/io: the pieces the per-format readers (PNG, PGM, ESRI ASCII
 * grid) share — the decoded-layer result, size checks, a line-counting text
 * cursor and strict number parsing. Not exported (no tf_ prefix).
 */
#ifndef TF_IO_INTERNAL_H
#define TF_IO_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "terrafit/image.h"

/* What a reader produces: the layer map and, when asked for (the --valid
 * mask), one byte per cell that is 1 where the first channel's raw sample
 * is 0 (ESRI grids: the height is 0 or the cell is NODATA). */
typedef struct {
    tf_layer_map *map;
    unsigned char *zero; /* NULL unless want_zero */
} io_decoded;

/* The readers. `data` holds the whole file (size > 0, NUL after the last
 * byte). 0 on success with out->map (and out->zero if want_zero) set; -1
 * with `err` filled and nothing allocated on failure. */
int io_read_png(const char *path, const unsigned char *data, size_t size, bool want_zero,
                io_decoded *out, tf_error *err);
int io_read_pgm(const char *path, const unsigned char *data, size_t size, bool want_zero,
                io_decoded *out, tf_error *err);
int io_read_asc(const char *path, const unsigned char *data, size_t size, bool want_zero,
                io_decoded *out, tf_error *err);

/* 0 when width x height is a readable reference size; else -1 with a
 * message naming `path` (zero-sized, or beyond TF_MAX_REFERENCE_SIDE /
 * TF_MAX_REFERENCE_PIXELS). Checked before anything is allocated. */
int io_check_size(const char *path, uint64_t width, uint64_t height, tf_error *err);

/* The whole file plus a NUL (so text readers may look one past the end),
 * refused beyond `max_bytes` ("beyond the limit ... for LIMIT_NAME"),
 * checked before reading when the file system knows the size and while
 * reading otherwise (pipes). NULL (err set) on failure, an empty file and
 * a directory included. */
unsigned char *io_read_file(const char *path, size_t max_bytes, const char *limit_name,
                            size_t *size, tf_error *err);

/* A map of a checked size, value 0.5, weight 1, bits 0, channels 1, z range
 * [0, 1], plus the zero flags (all 0) when want_zero. -1 on failure. */
int io_decoded_alloc(const char *path, size_t width, size_t height, bool want_zero,
                     io_decoded *out, tf_error *err);
void io_decoded_free(io_decoded *d);

/* ---- text: PGM headers and P2 rasters, ESRI ASCII grids */

typedef struct {
    const char *p, *end;
    size_t line; /* 1-based line of *p */
} io_cursor;

typedef struct {
    const char *text;
    size_t len;
    size_t line; /* line the token starts on */
} io_token;

/* Skip white space (and '#' comments to the end of the line when
 * `comments`), then take the next run of non-space characters. false at the
 * end of the text. */
bool io_next_token(io_cursor *c, bool comments, io_token *tok);

/* Case-insensitive (ASCII) comparison of a token with a word. */
bool io_token_is(const io_token *tok, const char *word);

/* Decimal digits only; values past UINT64_MAX / 10 saturate (so a huge
 * size still fails the limit check rather than wrapping). */
bool io_parse_uint(const io_token *tok, uint64_t *value);

/* A whole token read as a double, independent of the C locale; accepts
 * what strtod accepts (including "nan" and "inf": callers check). */
bool io_parse_double(const io_token *tok, double *value);

/* Which ESRI ASCII grid header key a token is (any case), or -1. */
int io_asc_key_index(const io_token *tok);

/* The token for a message: at most 24 characters, control characters
 * replaced, written into buf (>= 32 bytes). */
const char *io_token_quote(const io_token *tok, char *buf, size_t size);

#endif
