/*
 * A small bitmap font for captions on previews: printable ASCII as 5x8
 * glyphs (rows 0-6 the body, row 7 descenders) in a 6x10 cell, drawn for
 * terrafit. Internal to lib/render.
 */
#ifndef TF_RENDER_FONT_H
#define TF_RENDER_FONT_H

#include <stddef.h>

#define TF_FONT_GLYPH_WIDTH 5
#define TF_FONT_GLYPH_HEIGHT 8
/* One column and two rows of spacing around each glyph. */
#define TF_FONT_CELL_WIDTH 6
#define TF_FONT_CELL_HEIGHT 10

/* Bit (4 - x) of row y of a glyph: set where the glyph has ink. Characters
 * outside printable ASCII are drawn as '?'. */
unsigned tf_font_row(unsigned char ch, unsigned y);

/* Pixels across `length` characters at `scale` (cells, less the trailing
 * spacing column). */
size_t tf_font_text_width(size_t length, unsigned scale);

/* Draw up to `length` characters of `text` into an RGB image (row stride
 * `row_stride` bytes, `width` x `height` pixels) with the top-left corner
 * of the first cell at (x, y), each font pixel a scale x scale block of
 * `rgb`. Clipped to the image. */
void tf_font_draw(unsigned char *image, size_t row_stride, size_t width, size_t height,
                  size_t x, size_t y, const char *text, size_t length, unsigned scale,
                  const unsigned char rgb[3]);

#endif /* TF_RENDER_FONT_H */
