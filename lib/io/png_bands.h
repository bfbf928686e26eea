/*
 * The parallel PNG encoder of lib/io/png_bands.c, for the heightmap
 * writers: grey 8- or 16-bit rows from a callback, deflated in bands on
 * several threads, the same file bytes for any thread count.
 */
#ifndef TF_PNG_BANDS_H
#define TF_PNG_BANDS_H

#include <stddef.h>
#include <stdio.h>

#include "terrafit/runtime.h"

/* Fill `out` with row `row`'s nx samples: bytes (8-bit) or big-endian
 * pairs (16-bit). Called from several threads at once, each with its own
 * row. */
typedef void (*tf_png_row_fn)(void *user, size_t row, unsigned char *out);

/* Rows per independently deflated band: a function of the row length only. */
size_t tf_png_rows_per_band(size_t nx, int bit_depth);

/* Write an nx x ny grey PNG of `bit_depth` (8 or 16) to `stream`, the rows
 * from row_fn, compressed on `threads` threads (0 or 1: this one). `path`
 * names the file in messages. 0, or -1 with err filled. */
int tf_png_write_bands(FILE *stream, const char *path, size_t nx, size_t ny, int bit_depth,
                       tf_png_row_fn row_fn, void *user, unsigned threads, tf_error *err);

#endif
