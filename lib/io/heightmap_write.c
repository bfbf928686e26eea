/*
 * Heightmap files: heights quantized over [lo, hi] to 16-bit (or 8-bit)
 * grey and written as PNG (compressed in parallel bands, png_bands.c),
 * binary PGM or raw little-endian R16, or stored as floats in raw f32
 * (+ JSON sidecar), PFM or an ESRI ASCII grid. Every format streams row by
 * row (PNG: band by band) into an atomic file: no whole-image copy.
 */
#define _POSIX_C_SOURCE 200809L /* strcasecmp, unlink */

#include <errno.h>
#include <locale.h>
#include <stdbool.h>
#include <math.h>
#include <stdint.h>
#include <unistd.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "png_bands.h"
#include "base/error.h"
#include "terrafit/terrafit.h"

static const char *const FORMAT_NAMES[TF_HEIGHTMAP_FORMAT_COUNT] = {
    [TF_HEIGHTMAP_PNG16] = "png16",
    [TF_HEIGHTMAP_PNG8] = "png8",
    [TF_HEIGHTMAP_PGM16] = "pgm16",
    [TF_HEIGHTMAP_R16] = "r16",
    [TF_HEIGHTMAP_F32] = "f32",
    [TF_HEIGHTMAP_PFM] = "pfm",
    [TF_HEIGHTMAP_ASC] = "asc",
};

static const char *const FORMAT_EXTENSIONS[TF_HEIGHTMAP_FORMAT_COUNT] = {
    [TF_HEIGHTMAP_PNG16] = "png", [TF_HEIGHTMAP_PNG8] = "png", [TF_HEIGHTMAP_PGM16] = "pgm",
    [TF_HEIGHTMAP_R16] = "r16",   [TF_HEIGHTMAP_F32] = "f32",  [TF_HEIGHTMAP_PFM] = "pfm",
    [TF_HEIGHTMAP_ASC] = "asc",
};

static const char *const NORMALIZE_NAMES[] = {
    [TF_NORMALIZE_SPEC] = "spec",
    [TF_NORMALIZE_MINMAX] = "minmax",
    [TF_NORMALIZE_NONE] = "none",
};
#define NORMALIZE_COUNT (sizeof NORMALIZE_NAMES / sizeof NORMALIZE_NAMES[0])

static const struct {
    const char *extension;
    tf_heightmap_format format;
} EXTENSION_FORMATS[] = {
    {"png", TF_HEIGHTMAP_PNG16},
    {"pgm", TF_HEIGHTMAP_PGM16},
    {"r16", TF_HEIGHTMAP_R16},
    {"raw", TF_HEIGHTMAP_R16},
    {"f32", TF_HEIGHTMAP_F32},
    {"pfm", TF_HEIGHTMAP_PFM},
    {"asc", TF_HEIGHTMAP_ASC},
};

const char *tf_heightmap_format_name(tf_heightmap_format format)
{
    return (unsigned)format < TF_HEIGHTMAP_FORMAT_COUNT ? FORMAT_NAMES[format] : NULL;
}

int tf_heightmap_format_is_float(tf_heightmap_format format)
{
    return format == TF_HEIGHTMAP_F32 || format == TF_HEIGHTMAP_PFM || format == TF_HEIGHTMAP_ASC;
}

const char *tf_heightmap_format_extension(tf_heightmap_format format)
{
    return (unsigned)format < TF_HEIGHTMAP_FORMAT_COUNT ? FORMAT_EXTENSIONS[format] : NULL;
}

const char *tf_normalize_name(tf_normalize mode)
{
    return (unsigned)mode < NORMALIZE_COUNT ? NORMALIZE_NAMES[mode] : NULL;
}

int tf_normalize_from_name(const char *name, tf_normalize *mode)
{
    for (unsigned m = 0; name && m < NORMALIZE_COUNT; m++) {
        if (strcmp(name, NORMALIZE_NAMES[m]) == 0) {
            if (mode)
                *mode = (tf_normalize)m;
            return 0;
        }
    }
    return -1;
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

int tf_heightmap_format_for_path(const char *path, tf_heightmap_format *format, tf_error *err)
{
    if (!path || !*path) {
        tf_error_set(err, TF_ERR_ARGUMENT, "heightmap: no file name given");
        return -1;
    }
    if (tf_heightmap_format_from_path(path, format) == 0)
        return 0;
    const char *slash = strrchr(path, '/');
    const char *dot = strrchr(slash ? slash + 1 : path, '.');
    /* "terrain" or "run.": no extension, no claim; a leading dot names a
     * hidden file, not a format. */
    if (!dot || dot[1] == '\0' || dot == (slash ? slash + 1 : path)) {
        if (format)
            *format = TF_HEIGHTMAP_PNG16;
        return 0;
    }
    /* A file named .jpg (or .json) that holds a PNG would be misread by
     * every program that trusts the name, terrafit's own reader included. */
    tf_error_set(err, TF_ERR_ARGUMENT,
                 "%s: %s is not a heightmap format terrafit writes (.png, .pgm, .r16, .raw, "
                 ".f32, .pfm, .asc); rename the file or name the format",
                 path, dot);
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

/* ---- PNG: rows quantized by encode_row, compressed in parallel bands
 * (png_bands.c) */

typedef struct {
    const float *heights;
    size_t nx;
    double lo, hi;
    int bit_depth;
} png_rows;

static void png_row(void *user, size_t row, unsigned char *out)
{
    const png_rows *r = user;
    encode_row(r->heights + row * r->nx, r->nx, r->lo, r->hi, r->bit_depth, 1, out);
}

static int write_png(FILE *stream, const char *path, const float *heights, size_t nx, size_t ny,
                     double lo, double hi, int bit_depth, tf_error *err)
{
    png_rows rows = {heights, nx, lo, hi, bit_depth};
    return tf_png_write_bands(stream, path, nx, ny, bit_depth, png_row, &rows, tf_cpu_count(),
                              err);
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
            tf_error_set_write(err, path, errno);
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
        tf_error_set_write(err, path, errno);
        return -1;
    }
    return write_raw16(stream, path, heights, nx, ny, lo, hi, 1, err);
}

/* ---- float formats: f32 (+ sidecar), PFM, ESRI ASCII grid */

/* How stored floats are made from heights, in double and rounded once to
 * float: spec/minmax ((h - lo) / (hi - lo)) * scale; none h * scale, so
 * scale 1 stores the heights' own bits. */
typedef struct {
    bool normalized;
    double lo, range, scale;
    float min, max; /* of the values stored so far */
    size_t count;
} float_encoder;

/* One row of stored values; -1 (err filled) at the first one that is not
 * finite: NaN heights, or an overflow of float by the height scale. */
static int encode_float_row(float_encoder *enc, const char *path, const float *heights,
                            size_t nx, size_t row, float *out, tf_error *err)
{
    for (size_t i = 0; i < nx; i++) {
        double h = heights[i];
        float v = (float)((enc->normalized ? (h - enc->lo) / enc->range : h) * enc->scale);
        if (!isfinite(v)) {
            tf_error_set(err, TF_ERR_ARGUMENT,
                         "%s: pixel (%zu, %zu): height %g gives the stored value %g, which is "
                         "not finite",
                         path, i, row, (double)heights[i], (double)v);
            return -1;
        }
        if (enc->count++ == 0 || v < enc->min)
            enc->min = v;
        if (v > enc->max || enc->count == 1)
            enc->max = v;
        out[i] = v;
    }
    return 0;
}

/* IEEE 754 binary32 bytes, little-endian whatever the host's order. */
static void float_to_le(float v, unsigned char *out)
{
    uint32_t bits;
    memcpy(&bits, &v, sizeof bits);
    out[0] = (unsigned char)(bits & 0xFF);
    out[1] = (unsigned char)(bits >> 8 & 0xFF);
    out[2] = (unsigned char)(bits >> 16 & 0xFF);
    out[3] = (unsigned char)(bits >> 24);
}

static int write_error(const char *path, tf_error *err)
{
    tf_error_set_write(err, path, errno);
    return -1;
}

/* f32 rows top to bottom; PFM rows bottom to top (the PFM convention: the
 * first stored row is the image's last). */
static int write_float_rows(FILE *stream, const char *path, const float *heights, size_t nx,
                            size_t ny, int bottom_up, float_encoder *enc, tf_error *err)
{
    float *values = malloc(nx * sizeof *values);
    unsigned char *bytes = malloc(nx * 4);
    int status = -1;
    if (!values || !bytes) {
        tf_error_set(err, TF_ERR_NOMEM, "%s: out of memory", path);
        goto done;
    }
    errno = 0;
    for (size_t k = 0; k < ny; k++) {
        size_t j = bottom_up ? ny - 1 - k : k;
        if (encode_float_row(enc, path, heights + j * nx, nx, j, values, err) != 0)
            goto done;
        for (size_t i = 0; i < nx; i++)
            float_to_le(values[i], bytes + 4 * i);
        if (fwrite(bytes, 4, nx, stream) != nx) {
            write_error(path, err);
            goto done;
        }
    }
    status = 0;
done:
    free(values);
    free(bytes);
    return status;
}

static int write_pfm(FILE *stream, const char *path, const float *heights, size_t nx, size_t ny,
                     float_encoder *enc, tf_error *err)
{
    /* Scale -1: little-endian samples, unit scale (the magnitude is only
     * advisory in PFM; readers use the sign for the byte order). */
    errno = 0;
    if (fprintf(stream, "Pf\n%zu %zu\n-1.0\n", nx, ny) < 0)
        return write_error(path, err);
    return write_float_rows(stream, path, heights, nx, ny, 1, enc, err);
}

/* snprintf's number with '.' as the decimal point whatever LC_NUMERIC says
 * (files must read the same everywhere). */
static void fix_decimal_point(char *text)
{
    const char *point = localeconv()->decimal_point;
    if (!point || (point[0] == '.' && point[1] == '\0'))
        return;
    size_t len = strlen(point);
    char *at = strstr(text, point);
    if (at && len > 0) {
        *at = '.';
        memmove(at + 1, at + len, strlen(at + len) + 1);
    }
}

/* A double that reads back as itself: %.15g when that is exact, else
 * %.17g (as cJSON prints numbers). */
static void format_double(char *buf, size_t size, double v)
{
    snprintf(buf, size, "%.15g", v);
    if (strtod(buf, NULL) != v)
        snprintf(buf, size, "%.17g", v);
    fix_decimal_point(buf);
}

/* A float that reads back as itself: %.7g when exact, else %.9g, which
 * always is for binary32. */
static void format_float(char *buf, size_t size, float v)
{
    snprintf(buf, size, "%.7g", (double)v);
    if ((float)strtod(buf, NULL) != v)
        snprintf(buf, size, "%.9g", (double)v);
    fix_decimal_point(buf);
}

/* ESRI ASCII grid. GIS y (northing) grows up and the grid's first row is
 * the northern one, while render rows go down with world y; so northing is
 * -y: row 0 stays at the top and the picture is not mirrored. Each cell is
 * centred on its sample: docs/formats.md. */
static int write_asc(FILE *stream, const char *path, const float *heights, size_t nx, size_t ny,
                     const tf_heightmap_options *o, float_encoder *enc, tf_error *err)
{
    char xll[40], yll[40], cell[40];
    format_double(xll, sizeof xll, o->origin_x - 0.5 * o->step);
    format_double(yll, sizeof yll, -(o->origin_y + (double)(ny - 1) * o->step) - 0.5 * o->step);
    format_double(cell, sizeof cell, o->step);
    errno = 0;
    if (fprintf(stream, "ncols %zu\nnrows %zu\nxllcorner %s\nyllcorner %s\ncellsize %s\n", nx, ny,
                xll, yll, cell) < 0)
        return write_error(path, err);
    float *values = malloc(nx * sizeof *values);
    if (!values) {
        tf_error_set(err, TF_ERR_NOMEM, "%s: out of memory", path);
        return -1;
    }
    for (size_t j = 0; j < ny; j++) {
        if (encode_float_row(enc, path, heights + j * nx, nx, j, values, err) != 0) {
            free(values);
            return -1;
        }
        for (size_t i = 0; i < nx; i++) {
            char text[32];
            format_float(text, sizeof text, values[i]);
            if (fputs(text, stream) == EOF || putc(i + 1 < nx ? ' ' : '\n', stream) == EOF) {
                free(values);
                return write_error(path, err);
            }
        }
    }
    free(values);
    return 0;
}

int tf_heightmap_sidecar_path(const char *path, char *out, size_t size)
{
    if (!path || !out)
        return -1;
    int n = snprintf(out, size, "%s.json", path);
    return n >= 0 && (size_t)n < size ? 0 : -1;
}

/* The f32 sidecar: what a reader needs to use the raw floats (docs/formats.md). */
static int write_sidecar(FILE *stream, const char *path, size_t nx, size_t ny,
                         const tf_heightmap_options *o, const float_encoder *enc, double lo,
                         double hi, tf_error *err)
{
    char min[40], max[40], ox[40], oy[40], step[40], scale[40], rlo[40], rhi[40];
    format_float(min, sizeof min, enc->min);
    format_float(max, sizeof max, enc->max);
    format_double(ox, sizeof ox, o->origin_x);
    format_double(oy, sizeof oy, o->origin_y);
    format_double(step, sizeof step, o->step);
    format_double(scale, sizeof scale, o->height_scale);
    format_double(rlo, sizeof rlo, lo);
    format_double(rhi, sizeof rhi, hi);
    errno = 0;
    int n = fprintf(stream,
                    "{\n"
                    "  \"format\": \"terrafit-f32\",\n"
                    "  \"version\": 1,\n"
                    "  \"width\": %zu,\n"
                    "  \"height\": %zu,\n"
                    "  \"sampleType\": \"float32\",\n"
                    "  \"byteOrder\": \"little-endian\",\n"
                    "  \"rowOrder\": \"top-to-bottom\",\n"
                    "  \"min\": %s,\n"
                    "  \"max\": %s,\n"
                    "  \"origin\": [%s, %s],\n"
                    "  \"step\": %s,\n"
                    "  \"normalize\": \"%s\",\n",
                    nx, ny, min, max, ox, oy, step, tf_normalize_name(o->normalize));
    if (n >= 0 && o->normalize != TF_NORMALIZE_NONE)
        n = fprintf(stream, "  \"normalizeRange\": [%s, %s],\n", rlo, rhi);
    if (n >= 0)
        n = fprintf(stream, "  \"heightScale\": %s\n}\n", scale);
    return n < 0 ? write_error(path, err) : 0;
}

/* ---- the public writer */

static int check_heightmap_args(const char *path, tf_heightmap_format format,
                                const float *heights, size_t nx, size_t ny,
                                const tf_heightmap_options *o, tf_error *err)
{
    const char *name = path ? path : "heightmap";
    if (!path || !*path || !heights || !o) {
        tf_error_set(err, TF_ERR_ARGUMENT, "%s: no %s given", name,
                     !path ? "file name" : !heights ? "heights" : "options");
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
    if (tf_normalize_name(o->normalize) == NULL) {
        tf_error_set(err, TF_ERR_ARGUMENT, "%s: unknown normalization %d", name,
                     (int)o->normalize);
        return -1;
    }
    if (o->normalize == TF_NORMALIZE_SPEC &&
        (!isfinite(o->lo) || !isfinite(o->hi) || !(o->lo < o->hi) ||
         !isfinite(o->hi - o->lo))) {
        tf_error_set(err, TF_ERR_ARGUMENT,
                  "%s: the height range [%g, %g] must be finite with low < high", name, o->lo,
                  o->hi);
        return -1;
    }
    if (!tf_heightmap_format_is_float(format)) {
        if (o->normalize == TF_NORMALIZE_NONE) {
            tf_error_set(err, TF_ERR_ARGUMENT,
                         "%s: %s stores integers, which need normalized heights: normalize "
                         "'none' is for the float formats f32, pfm and asc",
                         name, tf_heightmap_format_name(format));
            return -1;
        }
        if (o->height_scale != 1.0) {
            tf_error_set(err, TF_ERR_ARGUMENT,
                         "%s: a height scale (%g) applies to the float formats f32, pfm and asc, "
                         "not to %s, which spans its full integer range",
                         name, o->height_scale, tf_heightmap_format_name(format));
            return -1;
        }
    } else if (!isfinite(o->height_scale) || !(o->height_scale > 0.0)) {
        tf_error_set(err, TF_ERR_ARGUMENT, "%s: the height scale %g must be finite and > 0", name,
                     o->height_scale);
        return -1;
    }
    if (!isfinite(o->origin_x) || !isfinite(o->origin_y) || !isfinite(o->step) ||
        !(o->step > 0.0)) {
        tf_error_set(err, TF_ERR_ARGUMENT,
                     "%s: the origin (%g, %g) must be finite and the step %g finite and > 0",
                     name, o->origin_x, o->origin_y, o->step);
        return -1;
    }
    return 0;
}

/* The finite heights' min and max; a constant or empty map gives
 * [lo, lo + 1], so it stores 0 rather than dividing by 0. */
static void height_range(const float *heights, size_t n, double *lo, double *hi)
{
    float mn = INFINITY, mx = -INFINITY;
    for (size_t k = 0; k < n; k++) {
        float h = heights[k];
        if (h < mn)
            mn = h;
        if (h > mx)
            mx = h;
    }
    if (!(mn <= mx)) /* no finite height */
        mn = mx = 0.0f;
    *lo = mn;
    *hi = mx > mn ? (double)mx : (double)mn + 1.0;
}

int tf_heightmap_write_with(const char *path, tf_heightmap_format format, const float *heights,
                            size_t nx, size_t ny, const tf_heightmap_options *options,
                            tf_error *err)
{
    if (check_heightmap_args(path, format, heights, nx, ny, options, err) != 0)
        return -1;
    double lo = options->lo, hi = options->hi;
    if (options->normalize == TF_NORMALIZE_MINMAX)
        height_range(heights, nx * ny, &lo, &hi);

    char *sidecar_path = NULL;
    tf_atomic_file *sidecar = NULL;
    if (format == TF_HEIGHTMAP_F32) {
        size_t size = strlen(path) + sizeof ".json";
        sidecar_path = malloc(size);
        if (!sidecar_path) {
            tf_error_set(err, TF_ERR_NOMEM, "%s: out of memory", path);
            return -1;
        }
        tf_heightmap_sidecar_path(path, sidecar_path, size);
    }
    tf_atomic_file *file = tf_atomic_open(path, err);
    if (!file) {
        free(sidecar_path);
        return -1;
    }
    FILE *stream = tf_atomic_stream(file);
    float_encoder enc = {
        .normalized = options->normalize != TF_NORMALIZE_NONE,
        .lo = lo,
        .range = hi - lo,
        .scale = options->height_scale,
    };
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
    case TF_HEIGHTMAP_F32:
        status = write_float_rows(stream, path, heights, nx, ny, 0, &enc, err);
        if (status == 0) {
            sidecar = tf_atomic_open(sidecar_path, err);
            status = sidecar ? write_sidecar(tf_atomic_stream(sidecar), sidecar_path, nx, ny,
                                             options, &enc, lo, hi, err)
                             : -1;
        }
        break;
    case TF_HEIGHTMAP_PFM:
        status = write_pfm(stream, path, heights, nx, ny, &enc, err);
        break;
    case TF_HEIGHTMAP_ASC:
        status = write_asc(stream, path, heights, nx, ny, options, &enc, err);
        break;
    case TF_HEIGHTMAP_FORMAT_COUNT:
        break; /* refused by check_heightmap_args */
    }
    if (status != 0) {
        tf_atomic_abort(sidecar);
        tf_atomic_abort(file);
        free(sidecar_path);
        return -1;
    }
    /* The sidecar goes last: its presence says the data beside it is whole.
     * If it cannot be committed, the data it describes goes too. */
    tf_atomic_file *outputs[2] = {file, sidecar};
    status = tf_atomic_commit_all(outputs, 2, err);
    free(sidecar_path);
    return status;
}

int tf_heightmap_write(const char *path, tf_heightmap_format format, const float *heights,
                       size_t nx, size_t ny, double lo, double hi, tf_error *err)
{
    tf_heightmap_options options = TF_HEIGHTMAP_OPTIONS_DEFAULT;
    options.lo = lo;
    options.hi = hi;
    return tf_heightmap_write_with(path, format, heights, nx, ny, &options, err);
}
