/*
 * Heightmap files: heights quantized over [lo, hi] to 16-bit (or 8-bit)
 * grey and written as PNG (libpng), binary PGM or raw little-endian R16.
 * Every format streams row by row into an atomic file: no whole-image copy.
 */
#define _POSIX_C_SOURCE 200809L /* strcasecmp */

#include <errno.h>
#include <math.h>
#include <png.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "runtime/internal.h" /* tf_error_set */
#include "terrafit/terrafit.h"

/* zlib level for PNGs. After PNG's row filters, the low byte of a smooth
 * 16-bit height is close to noise that no level compresses: on a 4096^2
 * render, level 2 came within 2% of level 6's size (zlib's default) in
 * half the time, and writing is a large part of a large render's time. */
#define PNG_ZLIB_LEVEL 2

static const char *const FORMAT_NAMES[TF_HEIGHTMAP_FORMAT_COUNT] = {
    [TF_HEIGHTMAP_PNG16] = "png16",
    [TF_HEIGHTMAP_PNG8] = "png8",
    [TF_HEIGHTMAP_PGM16] = "pgm16",
    [TF_HEIGHTMAP_R16] = "r16",
};

static const struct {
    const char *extension;
    tf_heightmap_format format;
} EXTENSION_FORMATS[] = {
    {"png", TF_HEIGHTMAP_PNG16},
    {"pgm", TF_HEIGHTMAP_PGM16},
    {"r16", TF_HEIGHTMAP_R16},
    {"raw", TF_HEIGHTMAP_R16},
};

const char *tf_heightmap_format_name(tf_heightmap_format format)
{
    return (unsigned)format < TF_HEIGHTMAP_FORMAT_COUNT ? FORMAT_NAMES[format] : NULL;
}

int tf_heightmap_format_from_name(const char *name, tf_heightmap_format *format)
{
    if (!name)
        return -1;
    for (unsigned f = 0; f < TF_HEIGHTMAP_FORMAT_COUNT; f++) {
        if (strcmp(name, FORMAT_NAMES[f]) == 0) {
            if (format)
                *format = (tf_heightmap_format)f;
            return 0;
        }
    }
    return -1;
}

int tf_heightmap_format_from_path(const char *path, tf_heightmap_format *format)
{
    if (!path)
        return -1;
    const char *slash = strrchr(path, '/');
    const char *base = slash ? slash + 1 : path;
    const char *dot = strrchr(base, '.');
    if (!dot)
        return -1;
    for (size_t k = 0; k < sizeof EXTENSION_FORMATS / sizeof EXTENSION_FORMATS[0]; k++) {
        if (strcasecmp(dot + 1, EXTENSION_FORMATS[k].extension) == 0) {
            if (format)
                *format = EXTENSION_FORMATS[k].format;
            return 0;
        }
    }
    return -1;
}

/* The documented formula, inlined into the row loops below so that files
 * hold exactly what tf_quantize returns. `!(v > 0)` also catches NaN. */
static inline unsigned quantize(double h, double lo, double hi, unsigned maxval)
{
    double v = (h - lo) / (hi - lo);
    if (!(v > 0.0))
        v = 0.0;
    else if (v > 1.0)
        v = 1.0;
    return (unsigned)floor(v * (double)maxval + 0.5);
}

unsigned tf_quantize(double h, double lo, double hi, unsigned maxval)
{
    return quantize(h, lo, hi, maxval);
}

/* One row as bytes: 8-bit, or 16-bit in the byte order the format needs
 * (PNG and PGM: big-endian; R16: little-endian, whatever the host's). */
static void encode_row(const float *heights, size_t nx, double lo, double hi, int bit_depth,
                       int big_endian, unsigned char *out)
{
    if (bit_depth == 8) {
        for (size_t i = 0; i < nx; i++)
            out[i] = (unsigned char)quantize(heights[i], lo, hi, 255);
        return;
    }
    size_t high = big_endian ? 0 : 1;
    for (size_t i = 0; i < nx; i++) {
        unsigned q = quantize(heights[i], lo, hi, 65535);
        out[2 * i + high] = (unsigned char)(q >> 8);
        out[2 * i + (1 - high)] = (unsigned char)(q & 0xFF);
    }
}

/* ---- PNG through libpng */

/* Where libpng's output goes, and what went wrong if it failed. */
typedef struct {
    FILE *stream;
    int write_errno;         /* errno of a failed fwrite; 0 if none */
    char libpng_message[96]; /* libpng's reason for its last error */
} png_sink;

static void png_sink_write(png_structp png, png_bytep data, size_t length)
{
    png_sink *sink = png_get_io_ptr(png);
    errno = 0;
    if (fwrite(data, 1, length, sink->stream) != length) {
        sink->write_errno = errno ? errno : EIO;
        png_error(png, "write failed");
    }
}

static void png_sink_flush(png_structp png)
{
    (void)png; /* tf_atomic_commit flushes and syncs once, at the end */
}

/* libpng reports errors by calling this, which must not return: keep the
 * reason and jump back to write_png's setjmp. */
static void on_png_error(png_structp png, png_const_charp message)
{
    png_sink *sink = png_get_error_ptr(png);
    snprintf(sink->libpng_message, sizeof sink->libpng_message, "%s", message);
    png_longjmp(png, 1);
}

/* A library does not print: libpng's warnings concern nothing we write. */
static void on_png_warning(png_structp png, png_const_charp message)
{
    (void)png;
    (void)message;
}

static int write_png(FILE *stream, const char *path, const float *heights, size_t nx, size_t ny,
                     double lo, double hi, int bit_depth, tf_error *err)
{
    png_sink sink = {.stream = stream};
    unsigned char *row = malloc(nx * (size_t)(bit_depth / 8));
    png_structp png =
        row ? png_create_write_struct(PNG_LIBPNG_VER_STRING, &sink, on_png_error, on_png_warning)
            : NULL;
    png_infop info = png ? png_create_info_struct(png) : NULL;
    if (!info) {
        png_destroy_write_struct(&png, NULL);
        free(row);
        tf_error_set(err, TF_ERR_NOMEM, "%s: out of memory for the PNG encoder", path);
        return -1;
    }
    /* Only `sink` changes after setjmp, and it is not a local the jump can
     * roll back (libpng writes it through a pointer). */
    if (setjmp(png_jmpbuf(png))) {
        png_destroy_write_struct(&png, &info);
        free(row);
        if (sink.write_errno)
            tf_error_set(err, TF_ERR_IO, "%s: cannot write file: %s", path,
                      strerror(sink.write_errno));
        else
            tf_error_set(err, TF_ERR_IO, "%s: cannot encode PNG: %s", path, sink.libpng_message);
        return -1;
    }
    png_set_write_fn(png, &sink, png_sink_write, png_sink_flush);
    png_set_compression_level(png, PNG_ZLIB_LEVEL);
    png_set_IHDR(png, info, (png_uint_32)nx, (png_uint_32)ny, bit_depth, PNG_COLOR_TYPE_GRAY,
                 PNG_INTERLACE_NONE, PNG_COMPRESSION_TYPE_DEFAULT, PNG_FILTER_TYPE_DEFAULT);
    png_write_info(png, info);
    for (size_t j = 0; j < ny; j++) {
        encode_row(heights + j * nx, nx, lo, hi, bit_depth, 1, row);
        png_write_row(png, row);
    }
    png_write_end(png, info);
    png_destroy_write_struct(&png, &info);
    free(row);
    return 0;
}

/* ---- PGM (P5) and raw R16 */

static int write_raw16(FILE *stream, const char *path, const float *heights, size_t nx,
                       size_t ny, double lo, double hi, int big_endian, tf_error *err)
{
    unsigned char *row = malloc(nx * 2);
    if (!row) {
        tf_error_set(err, TF_ERR_NOMEM, "%s: out of memory", path);
        return -1;
    }
    errno = 0;
    for (size_t j = 0; j < ny; j++) {
        encode_row(heights + j * nx, nx, lo, hi, 16, big_endian, row);
        if (fwrite(row, 2, nx, stream) != nx) {
            tf_error_set(err, TF_ERR_IO, "%s: cannot write file: %s", path,
                      strerror(errno ? errno : EIO));
            free(row);
            return -1;
        }
    }
    free(row);
    return 0;
}

static int write_pgm16(FILE *stream, const char *path, const float *heights, size_t nx,
                       size_t ny, double lo, double hi, tf_error *err)
{
    errno = 0;
    if (fprintf(stream, "P5\n%zu %zu\n65535\n", nx, ny) < 0) {
        tf_error_set(err, TF_ERR_IO, "%s: cannot write file: %s", path,
                  strerror(errno ? errno : EIO));
        return -1;
    }
    return write_raw16(stream, path, heights, nx, ny, lo, hi, 1, err);
}

/* ---- the public writer */

static int check_heightmap_args(const char *path, tf_heightmap_format format,
                                const float *heights, size_t nx, size_t ny, double lo, double hi,
                                tf_error *err)
{
    const char *name = path ? path : "heightmap";
    if (!path || !*path || !heights) {
        tf_error_set(err, TF_ERR_ARGUMENT, "%s: no %s given", name, path ? "heights" : "file name");
        return -1;
    }
    if ((unsigned)format >= TF_HEIGHTMAP_FORMAT_COUNT) {
        tf_error_set(err, TF_ERR_ARGUMENT, "%s: unknown heightmap format %d", name, (int)format);
        return -1;
    }
    if (nx == 0 || ny == 0) {
        tf_error_set(err, TF_ERR_ARGUMENT, "%s: a %zux%zu heightmap has no pixels", name, nx, ny);
        return -1;
    }
    if (nx > TF_MAX_IMAGE_SIDE || ny > TF_MAX_IMAGE_SIDE || nx * ny > TF_MAX_IMAGE_PIXELS) {
        tf_error_set(err, TF_ERR_LIMIT,
                  "%s: a %zux%zu heightmap is too large (at most %u per side and %zu pixels)",
                  name, nx, ny, TF_MAX_IMAGE_SIDE, TF_MAX_IMAGE_PIXELS);
        return -1;
    }
    if (!isfinite(lo) || !isfinite(hi) || !(lo < hi)) {
        tf_error_set(err, TF_ERR_ARGUMENT,
                  "%s: the height range [%g, %g] must be finite with low < high", name, lo, hi);
        return -1;
    }
    return 0;
}

int tf_heightmap_write(const char *path, tf_heightmap_format format, const float *heights,
                       size_t nx, size_t ny, double lo, double hi, tf_error *err)
{
    if (check_heightmap_args(path, format, heights, nx, ny, lo, hi, err) != 0)
        return -1;
    tf_atomic_file *file = tf_atomic_open(path, err);
    if (!file)
        return -1;
    FILE *stream = tf_atomic_stream(file);
    int status = -1;
    switch (format) {
    case TF_HEIGHTMAP_PNG16:
        status = write_png(stream, path, heights, nx, ny, lo, hi, 16, err);
        break;
    case TF_HEIGHTMAP_PNG8:
        status = write_png(stream, path, heights, nx, ny, lo, hi, 8, err);
        break;
    case TF_HEIGHTMAP_PGM16:
        status = write_pgm16(stream, path, heights, nx, ny, lo, hi, err);
        break;
    case TF_HEIGHTMAP_R16:
        status = write_raw16(stream, path, heights, nx, ny, lo, hi, 0, err);
        break;
    case TF_HEIGHTMAP_FORMAT_COUNT:
        break; /* refused by check_heightmap_args */
    }
    if (status != 0) {
        tf_atomic_abort(file);
        return -1;
    }
    return tf_atomic_commit(file, err);
}
