/*
 * Shaded-relief previews: a hypsometric tint over [lo, hi] multiplied by a
 * Lambertian hillshade lit from the north-west, as an 8-bit RGB PNG made by
 * stb_image_write and written atomically. For people, not for data.
 */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <stb_image_write.h>

#include "runtime/internal.h" /* tf_error_set */
#include "terrafit/terrafit.h"

/* The sun, in the cartographic convention: azimuth clockwise from north,
 * altitude above the horizon. North-west light reads as relief, not as
 * craters, to most eyes. */
#define SUN_AZIMUTH_DEGREES 315.0
#define SUN_ALTITUDE_DEGREES 45.0
/* Light that reaches every slope, so shadowed sides keep their tint. */
#define AMBIENT_LIGHT 0.35
/* The default relief scale (default_pixels_per_unit) makes this quantile
 * of the non-flat slopes, sampled at about this many points, rise one
 * pixel per pixel (45 degrees). */
#define DEFAULT_SCALE_PERCENTILE 0.8
#define DEFAULT_SCALE_SAMPLES 65536

/* stb_image_write sizes its buffers with int arithmetic: the filtered
 * image ((3 * nx + 1) * ny bytes) and the compressed output, whose
 * capacity it doubles, must stay far from INT_MAX. */
#define STB_MAX_FILTERED_BYTES ((size_t)1 << 29)

/* Hypsometric tint: colours at normalized heights, linearly blended. */
typedef struct {
    double v;
    double r, g, b;
} tint_stop;

static const tint_stop TINT[] = {
    {0.00, 40, 86, 48},    /* deep green lowland */
    {0.22, 84, 130, 66},   /* meadow green */
    {0.42, 170, 168, 104}, /* dry grass */
    {0.58, 198, 168, 118}, /* tan */
    {0.74, 146, 108, 76},  /* brown */
    {0.88, 150, 136, 126}, /* bare rock */
    {1.00, 248, 248, 250}, /* snow */
};
#define TINT_STOP_COUNT (sizeof TINT / sizeof TINT[0])

static void tint_at(double v, double rgb[3])
{
    size_t k = 1;
    while (k + 1 < TINT_STOP_COUNT && v > TINT[k].v)
        k++;
    const tint_stop *a = &TINT[k - 1], *b = &TINT[k];
    double t = (v - a->v) / (b->v - a->v);
    t = t < 0.0 ? 0.0 : t > 1.0 ? 1.0 : t;
    rgb[0] = a->r + t * (b->r - a->r);
    rgb[1] = a->g + t * (b->g - a->g);
    rgb[2] = a->b + t * (b->b - a->b);
}

/* Normalized height, clamped to [0, 1]; NaN reads as the lowest. */
static double normalized(float h, double lo, double hi)
{
    double v = ((double)h - lo) / (hi - lo);
    return v > 0.0 ? (v < 1.0 ? v : 1.0) : 0.0;
}

/* Height change per pixel towards the east and the north (rows run
 * south): central differences, one-sided at the image's edges. Not finite
 * where a neighbour is not. */
static void gradient_at(const float *heights, size_t nx, size_t ny, size_t i, size_t j,
                        double *per_east, double *per_north)
{
    size_t west = i > 0 ? i - 1 : i, east = i + 1 < nx ? i + 1 : i;
    size_t north = j > 0 ? j - 1 : j, south = j + 1 < ny ? j + 1 : j;
    *per_east = 0.0;
    *per_north = 0.0;
    if (east > west)
        *per_east = ((double)heights[j * nx + east] - (double)heights[j * nx + west]) /
                    (double)(east - west);
    if (south > north)
        *per_north = ((double)heights[north * nx + i] - (double)heights[south * nx + i]) /
                     (double)(south - north);
}

/* Lambertian shade, cos(angle between normal and sun) clamped at 0, for a
 * slope in pixel units. The normal is (-dz/dx, -dz/dy, 1), normalized.
 * Where the slope is unknown (non-finite heights) the ground reads flat. */
static double lambert_shade(double rise_east, double rise_north, const double sun[3])
{
    if (!isfinite(rise_east) || !isfinite(rise_north))
        return sun[2];
    double length = sqrt(rise_east * rise_east + rise_north * rise_north + 1.0);
    double lambert = (-rise_east * sun[0] - rise_north * sun[1] + sun[2]) / length;
    return lambert > 0.0 ? lambert : 0.0;
}

static int compare_doubles(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* The default relief scale, from the heights themselves: the steepest
 * fifth of the (non-flat) slopes shade at 45 degrees or more. A fixed
 * scale cannot suit every render, since slope per pixel grows with the
 * world step and with the spec's frequencies, not with the value range;
 * this one reads the same at any zoom. 0 on success. */
static int default_pixels_per_unit(const float *heights, size_t nx, size_t ny,
                                   double *pixels_per_unit)
{
    size_t stride = 1;
    while ((nx / stride) * (ny / stride) > DEFAULT_SCALE_SAMPLES)
        stride++;
    double *slopes = malloc(sizeof *slopes * ((nx / stride + 1) * (ny / stride + 1)));
    if (!slopes)
        return -1;
    size_t count = 0;
    for (size_t j = 0; j < ny; j += stride) {
        for (size_t i = 0; i < nx; i += stride) {
            double per_east, per_north;
            gradient_at(heights, nx, ny, i, j, &per_east, &per_north);
            double slope = sqrt(per_east * per_east + per_north * per_north);
            if (slope > 0.0 && isfinite(slope))
                slopes[count++] = slope;
        }
    }
    *pixels_per_unit = 1.0; /* flat (or all NaN): any scale shades it the same */
    if (count > 0) {
        qsort(slopes, count, sizeof *slopes, compare_doubles);
        double typical_steep = slopes[(size_t)(DEFAULT_SCALE_PERCENTILE * (double)(count - 1))];
        *pixels_per_unit = 1.0 / typical_steep;
    }
    free(slopes);
    return 0;
}

static unsigned char to_byte(double c)
{
    return (unsigned char)(c <= 0.0 ? 0 : c >= 255.0 ? 255 : (int)(c + 0.5));
}

/* stb hands over the encoded PNG in one or more pieces; keep them. */
typedef struct {
    unsigned char *bytes;
    size_t size, capacity;
    int out_of_memory;
} byte_buffer;

static void append_to_buffer(void *context, void *data, int size)
{
    byte_buffer *buffer = context;
    if (buffer->out_of_memory || size <= 0)
        return;
    if (buffer->size + (size_t)size > buffer->capacity) {
        size_t capacity = buffer->capacity ? buffer->capacity : 4096;
        while (capacity < buffer->size + (size_t)size)
            capacity *= 2;
        unsigned char *bigger = realloc(buffer->bytes, capacity);
        if (!bigger) {
            buffer->out_of_memory = 1;
            return;
        }
        buffer->bytes = bigger;
        buffer->capacity = capacity;
    }
    memcpy(buffer->bytes + buffer->size, data, (size_t)size);
    buffer->size += (size_t)size;
}

static int check_preview_args(const char *path, const float *heights, size_t nx, size_t ny,
                              double lo, double hi, double z_scale, tf_error *err)
{
    const char *name = path ? path : "preview";
    if (!path || !*path || !heights) {
        tf_error_set(err, TF_ERR_ARGUMENT, "%s: no %s given", name, path ? "heights" : "file name");
        return -1;
    }
    if (nx == 0 || ny == 0) {
        tf_error_set(err, TF_ERR_ARGUMENT, "%s: a %zux%zu preview has no pixels", name, nx, ny);
        return -1;
    }
    if (nx > TF_MAX_IMAGE_SIDE || ny > TF_MAX_IMAGE_SIDE || nx * ny > TF_MAX_IMAGE_PIXELS) {
        tf_error_set(err, TF_ERR_LIMIT,
                  "%s: a %zux%zu preview is too large (at most %u per side and %zu pixels)",
                  name, nx, ny, TF_MAX_IMAGE_SIDE, TF_MAX_IMAGE_PIXELS);
        return -1;
    }
    if ((3 * nx + 1) * ny > STB_MAX_FILTERED_BYTES) {
        tf_error_set(err, TF_ERR_LIMIT,
                  "%s: a %zux%zu preview is too large for the PNG encoder (at most about %zu "
                  "pixels)",
                  name, nx, ny, STB_MAX_FILTERED_BYTES / 3);
        return -1;
    }
    if (!isfinite(lo) || !isfinite(hi) || !(lo < hi)) {
        tf_error_set(err, TF_ERR_ARGUMENT,
                  "%s: the height range [%g, %g] must be finite with low < high", name, lo, hi);
        return -1;
    }
    if (isnan(z_scale) || isinf(z_scale)) {
        tf_error_set(err, TF_ERR_ARGUMENT, "%s: the relief scale %g is not finite", name, z_scale);
        return -1;
    }
    return 0;
}

/* Shade nx * ny heights into RGB pixels whose rows are `row_stride` bytes
 * apart. */
static void shade_relief(unsigned char *rgb, size_t row_stride, const float *heights, size_t nx,
                         size_t ny, double lo, double hi, double pixels_per_unit)
{
    const double degrees = 3.14159265358979323846 / 180.0;
    double azimuth = SUN_AZIMUTH_DEGREES * degrees, altitude = SUN_ALTITUDE_DEGREES * degrees;
    /* Towards the sun, in (east, north, up). */
    const double sun[3] = {cos(altitude) * sin(azimuth), cos(altitude) * cos(azimuth),
                           sin(altitude)};
    for (size_t j = 0; j < ny; j++) {
        for (size_t i = 0; i < nx; i++) {
            double tint[3];
            tint_at(normalized(heights[j * nx + i], lo, hi), tint);
            double per_east, per_north;
            gradient_at(heights, nx, ny, i, j, &per_east, &per_north);
            double shade =
                lambert_shade(per_east * pixels_per_unit, per_north * pixels_per_unit, sun);
            /* Flat ground keeps its tint; slopes facing the sun brighten it. */
            double light = AMBIENT_LIGHT + (1.0 - AMBIENT_LIGHT) * shade / sun[2];
            unsigned char *pixel = rgb + j * row_stride + 3 * i;
            for (int c = 0; c < 3; c++)
                pixel[c] = to_byte(tint[c] * light);
        }
    }
}

/* Encode width x height RGB pixels as PNG and write them atomically. */
static int write_rgb_png(const char *path, const unsigned char *rgb, size_t width, size_t height,
                         tf_error *err)
{
    byte_buffer png = {0};
    int encoded = stbi_write_png_to_func(append_to_buffer, &png, (int)width, (int)height, 3, rgb,
                                         (int)(width * 3));
    if (!encoded || png.out_of_memory) {
        free(png.bytes);
        tf_error_set(err, TF_ERR_NOMEM, "%s: out of memory while encoding the preview", path);
        return -1;
    }
    int status = tf_write_file_atomic(path, png.bytes, png.size, err);
    free(png.bytes);
    return status;
}

static int relief_scale(const char *path, const float *heights, size_t nx, size_t ny,
                        double z_scale, double *pixels_per_unit, tf_error *err)
{
    *pixels_per_unit = z_scale;
    if (!(z_scale > 0.0) && default_pixels_per_unit(heights, nx, ny, pixels_per_unit) != 0) {
        tf_error_set(err, TF_ERR_NOMEM, "%s: out of memory", path);
        return -1;
    }
    return 0;
}

int tf_preview_write(const char *path, const float *heights, size_t nx, size_t ny, double lo,
                     double hi, double z_scale, tf_error *err)
{
    double pixels_per_unit;
    if (check_preview_args(path, heights, nx, ny, lo, hi, z_scale, err) != 0 ||
        relief_scale(path, heights, nx, ny, z_scale, &pixels_per_unit, err) != 0)
        return -1;
    unsigned char *rgb = malloc(nx * ny * 3);
    if (!rgb) {
        tf_error_set(err, TF_ERR_NOMEM, "%s: out of memory for a %zux%zu preview", path, nx, ny);
        return -1;
    }
    shade_relief(rgb, nx * 3, heights, nx, ny, lo, hi, pixels_per_unit);
    int status = write_rgb_png(path, rgb, nx, ny, err);
    free(rgb);
    return status;
}

int tf_preview_write_pair(const char *path, const float *left, const float *right, size_t nx,
                          size_t ny, double lo, double hi, double z_scale, tf_error *err)
{
    size_t width = 2 * nx + TF_PREVIEW_PAIR_GAP;
    double pixels_per_unit;
    if (!right) {
        tf_error_set(err, TF_ERR_ARGUMENT, "%s: no right-hand heights given",
                     path ? path : "preview");
        return -1;
    }
    if (check_preview_args(path, left, width, ny, lo, hi, z_scale, err) != 0 ||
        relief_scale(path, left, nx, ny, z_scale, &pixels_per_unit, err) != 0)
        return -1;
    unsigned char *rgb = malloc(width * ny * 3);
    if (!rgb) {
        tf_error_set(err, TF_ERR_NOMEM, "%s: out of memory for a %zux%zu preview", path, width,
                     ny);
        return -1;
    }
    memset(rgb, 255, width * ny * 3); /* the gap stays white */
    shade_relief(rgb, width * 3, left, nx, ny, lo, hi, pixels_per_unit);
    shade_relief(rgb + 3 * (nx + TF_PREVIEW_PAIR_GAP), width * 3, right, nx, ny, lo, hi,
                 pixels_per_unit);
    int status = write_rgb_png(path, rgb, width, ny, err);
    free(rgb);
    return status;
}
