/*
 * Previews of heights as 8-bit RGB PNGs made by stb_image_write and written
 * atomically: the shaded-relief tint of render/compare, and the styles of
 * `terrafit preview` (hillshade, color, slope, normals, rules) with panels
 * side by side and captions. For people, except the normal map.
 */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <stb_image_write.h>

#include "render/font.h"
#include "base/error.h"
#include "terrafit/terrafit.h"

/* The sun, in the cartographic convention: azimuth clockwise from north,
 * altitude above the horizon. North-west light reads as relief, not as
 * craters, to most eyes. */
#define SUN_AZIMUTH_DEGREES 315.0
#define SUN_ALTITUDE_DEGREES 45.0
#define PI 3.14159265358979323846
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

static void ramp_at(const tint_stop *ramp, size_t count, double v, double rgb[3])
{
    size_t k = 1;
    while (k + 1 < count && v > ramp[k].v)
        k++;
    const tint_stop *a = &ramp[k - 1], *b = &ramp[k];
    double t = (v - a->v) / (b->v - a->v);
    t = t > 0.0 ? (t < 1.0 ? t : 1.0) : 0.0; /* NaN reads as 0 */
    rgb[0] = a->r + t * (b->r - a->r);
    rgb[1] = a->g + t * (b->g - a->g);
    rgb[2] = a->b + t * (b->b - a->b);
}

static void tint_at(double v, double rgb[3])
{
    ramp_at(TINT, TINT_STOP_COUNT, v, rgb);
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
    const double degrees = PI / 180.0;
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

/* Encode width x height RGB pixels as PNG into `png` (the caller frees
 * png->bytes); `name` for messages. */
static int encode_rgb_png(const char *name, const unsigned char *rgb, size_t width, size_t height,
                          byte_buffer *png, tf_error *err)
{
    *png = (byte_buffer){0};
    int encoded = stbi_write_png_to_func(append_to_buffer, png, (int)width, (int)height, 3, rgb,
                                         (int)(width * 3));
    if (!encoded || png->out_of_memory) {
        free(png->bytes);
        *png = (byte_buffer){0};
        tf_error_set(err, TF_ERR_NOMEM, "%s: out of memory while encoding the preview", name);
        return -1;
    }
    return 0;
}

/* ... put on an open stream ... */
static int put_rgb_png(FILE *stream, const char *name, const unsigned char *rgb, size_t width,
                       size_t height, tf_error *err)
{
    byte_buffer png;
    if (encode_rgb_png(name, rgb, width, height, &png, err) != 0)
        return -1;
    errno = 0;
    int status = fwrite(png.bytes, 1, png.size, stream) == png.size ? 0 : -1;
    if (status != 0)
        tf_error_set_write(err, name, errno);
    free(png.bytes);
    return status;
}

/* ... or written atomically to `path`. */
static int write_rgb_png(const char *path, const unsigned char *rgb, size_t width, size_t height,
                         tf_error *err)
{
    byte_buffer png;
    if (encode_rgb_png(path, rgb, width, height, &png, err) != 0)
        return -1;
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

/* ------------------------------------------------- styles and panels */

static const char *const STYLE_NAMES[TF_PREVIEW_STYLE_COUNT] = {
    "hillshade", "color", "slope", "normals", "rules",
};

const char *tf_preview_style_name(tf_preview_style style)
{
    return (unsigned)style < TF_PREVIEW_STYLE_COUNT ? STYLE_NAMES[style] : NULL;
}

int tf_preview_style_from_name(const char *name, tf_preview_style *style)
{
    for (unsigned k = 0; name && k < TF_PREVIEW_STYLE_COUNT; k++) {
        if (strcmp(name, STYLE_NAMES[k]) == 0) {
            *style = (tf_preview_style)k;
            return 0;
        }
    }
    return -1;
}

tf_preview_options tf_preview_options_default(void)
{
    tf_preview_options o = {
        .style = TF_PREVIEW_COLOR,
        .lo = 0.0,
        .hi = 1.0,
        .height_scale = 0.0,
        .sun_azimuth = SUN_AZIMUTH_DEGREES,
        .sun_altitude = SUN_ALTITUDE_DEGREES,
        .water_level = 0.2,
        .snow_level = 0.8,
        .vegetation_talus = 0.8,
        .normals_y_down = 0,
    };
    return o;
}

/* The automatic height scale of panels: the steepest fifth of the first
 * panel's slopes rise at 30 degrees (tan 30 = 0.577) or more. Gentler
 * than render's 45 degrees, whose shadows go black in a pure hillshade. */
#define AUTO_PANEL_RISE 0.57735026918962576
/* At most this many panels side by side, and caption characters read. */
#define MAX_PANELS 16
#define MAX_CAPTION_CHARS 512
/* Colours outside the tints. */
static const unsigned char NO_DATA_RGB[3] = {208, 208, 214};
static const unsigned char CAPTION_RGB[3] = {24, 24, 24};

/* Water by depth below the level: shallow at the shore, deep at 0. */
static const double WATER_SHALLOW[3] = {104, 164, 206};
static const double WATER_DEEP[3] = {24, 58, 112};
/* The rules' ground covers (seed 003, 4.2). Vegetation darkens from the
 * shore to the snow line, as forest gives way to alpine meadow. */
static const double VEGETATION_LOW[3] = {92, 142, 62};
static const double VEGETATION_HIGH[3] = {58, 98, 54};
static const double ROCK[3] = {136, 124, 112};
static const double SNOW[3] = {244, 246, 250};

/* Slope angle ramp (degrees): pale flats, yellow to red hillsides, dark
 * red cliffs. */
static const tint_stop SLOPE_RAMP[] = {
    {0, 250, 250, 240},  {10, 206, 232, 190}, {20, 250, 222, 130}, {30, 246, 170, 90},
    {40, 232, 104, 62},  {50, 200, 44, 38},   {60, 150, 10, 40},   {90, 60, 0, 30},
};
#define SLOPE_RAMP_COUNT (sizeof SLOPE_RAMP / sizeof SLOPE_RAMP[0])

static void mix(const double a[3], const double b[3], double t, double rgb[3])
{
    t = t > 0.0 ? (t < 1.0 ? t : 1.0) : 0.0; /* NaN reads as 0 */
    for (int c = 0; c < 3; c++)
        rgb[c] = a[c] + t * (b[c] - a[c]);
}

/* What every pixel of a render needs. */
typedef struct {
    tf_preview_options o;
    double rise_per_unit; /* pixels of rise per raw height unit */
    double sun[3];        /* towards the sun, in (east, north, up) */
    int water;            /* o.water_level is a level */
} shade_context;

/* The largest height difference to the 8 neighbours, in pixels: the
 * survey's vegetation test (seed 003, 4.2) compares it with the talus T.
 * Neighbours outside the samples or without data are skipped. */
static double neighbour_talus(const float *h, size_t sx, size_t sy, size_t si, size_t sj)
{
    double centre = h[sj * sx + si], talus = 0.0;
    for (int dj = -1; dj <= 1; dj++) {
        for (int di = -1; di <= 1; di++) {
            if ((di == 0 && dj == 0) || (di < 0 && si == 0) || (dj < 0 && sj == 0) ||
                (di > 0 && si + 1 >= sx) || (dj > 0 && sj + 1 >= sy))
                continue;
            double other = h[(size_t)((ptrdiff_t)sj + dj) * sx + (size_t)((ptrdiff_t)si + di)];
            double difference = fabs(other - centre);
            if (isfinite(difference) && difference > talus)
                talus = difference;
        }
    }
    return talus;
}

/* One pixel from the sample at (si, sj) of an sx x sy sample grid. */
static void shade_pixel(const shade_context *c, const float *h, size_t sx, size_t sy, size_t si,
                        size_t sj, unsigned char out[3])
{
    const tf_preview_options *o = &c->o;
    double raw = h[sj * sx + si];
    if (!isfinite(raw)) {
        if (o->style == TF_PREVIEW_NORMALS) { /* engines want a flat normal there */
            out[0] = out[1] = 128;
            out[2] = 255;
        } else {
            memcpy(out, NO_DATA_RGB, 3);
        }
        return;
    }
    double east, north;
    gradient_at(h, sx, sy, si, sj, &east, &north);
    east *= c->rise_per_unit;
    north *= c->rise_per_unit;
    if (!isfinite(east) || !isfinite(north))
        east = north = 0.0; /* a neighbour without data: read the ground as flat */
    double shade = lambert_shade(east, north, c->sun);
    /* Tinted styles: flat ground keeps its colour, slopes facing the sun
     * brighten it, the others darken towards the ambient light. */
    double light = AMBIENT_LIGHT + (1.0 - AMBIENT_LIGHT) * shade / c->sun[2];
    double v = normalized((float)raw, o->lo, o->hi), rgb[3];
    switch (o->style) {
    case TF_PREVIEW_HILLSHADE:
        /* ESRI's hillshade: 255 * cos(angle to the sun), 0 in shadow. */
        out[0] = out[1] = out[2] = to_byte(255.0 * shade);
        return;
    case TF_PREVIEW_SLOPE:
        ramp_at(SLOPE_RAMP, SLOPE_RAMP_COUNT, atan(hypot(east, north)) * 180.0 / PI, rgb);
        light = 1.0;
        break;
    case TF_PREVIEW_NORMALS: {
        /* Tangent space: +X east (right), +Y north (up the image) for
         * OpenGL, south for DirectX, +Z out of the surface. */
        double length = sqrt(east * east + north * north + 1.0);
        double n[3] = {-east / length, -north / length, 1.0 / length};
        if (o->normals_y_down)
            n[1] = -n[1];
        for (int k = 0; k < 3; k++)
            out[k] = to_byte((n[k] * 0.5 + 0.5) * 255.0);
        return;
    }
    case TF_PREVIEW_COLOR:
    case TF_PREVIEW_RULES:
    default:
        if (c->water && v < o->water_level) {
            /* Water lies flat: coloured by depth, not shaded. */
            mix(WATER_SHALLOW, WATER_DEEP, (o->water_level - v) / o->water_level, rgb);
            light = 1.0;
        } else if (o->style == TF_PREVIEW_COLOR) {
            /* The land's own range, from the shore up (all of it at level 1). */
            double land = !c->water ? v
                          : o->water_level < 1.0 ? (v - o->water_level) / (1.0 - o->water_level)
                                                 : 1.0;
            tint_at(land, rgb);
        } else {
            double talus = neighbour_talus(h, sx, sy, si, sj) * c->rise_per_unit;
            if (!(talus < o->vegetation_talus))
                memcpy(rgb, ROCK, sizeof rgb);
            else if (v >= o->snow_level)
                memcpy(rgb, SNOW, sizeof rgb);
            else {
                double shore = c->water ? o->water_level : 0.0;
                mix(VEGETATION_LOW, VEGETATION_HIGH, (v - shore) / (o->snow_level - shore), rgb);
            }
        }
        break;
    }
    for (int k = 0; k < 3; k++)
        out[k] = to_byte(rgb[k] * light);
}

static void shade_panel(const shade_context *c, const tf_preview_panel *panel,
                        unsigned char *rgb, size_t row_stride)
{
    size_t b = panel->border, sx = panel->width + 2 * b, sy = panel->height + 2 * b;
    for (size_t j = 0; j < panel->height; j++)
        for (size_t i = 0; i < panel->width; i++)
            shade_pixel(c, panel->heights, sx, sy, i + b, j + b, rgb + j * row_stride + 3 * i);
}

static int check_options(const tf_preview_options *o, tf_error *err)
{
    const char *problem = NULL;
    if (!o)
        problem = "no options given";
    else if ((unsigned)o->style >= TF_PREVIEW_STYLE_COUNT)
        problem = "unknown style";
    else if (!isfinite(o->lo) || !isfinite(o->hi) || !(o->lo < o->hi))
        problem = "the height range must be finite with low < high";
    else if (!isfinite(o->height_scale))
        problem = "the height scale is not finite";
    else if (!isfinite(o->sun_azimuth))
        problem = "the sun's azimuth is not finite";
    else if (!(o->sun_altitude > 0.0 && o->sun_altitude <= 90.0))
        problem = "the sun's altitude must be in (0, 90] degrees";
    else if (!isnan(o->water_level) && !(o->water_level >= 0.0 && o->water_level <= 1.0))
        problem = "the water level must be in [0, 1] (or NaN: no water)";
    else if (!(o->snow_level >= 0.0 && o->snow_level <= 1.0))
        problem = "the snow level must be in [0, 1]";
    else if (o->style == TF_PREVIEW_RULES && !isnan(o->water_level) &&
             !(o->snow_level > o->water_level))
        problem = "the snow level must lie above the water level";
    else if (!(o->vegetation_talus > 0.0) || !isfinite(o->vegetation_talus))
        problem = "the vegetation talus must be a finite number > 0";
    if (problem) {
        tf_error_set(err, TF_ERR_ARGUMENT, "preview: %s", problem);
        return -1;
    }
    return 0;
}

static int check_panels(const tf_preview_panel *panels, size_t count, tf_error *err)
{
    if (!panels || count == 0 || count > MAX_PANELS) {
        tf_error_set(err, TF_ERR_ARGUMENT, "preview: %zu panels given, 1 to %d expected",
                     panels ? count : 0, MAX_PANELS);
        return -1;
    }
    for (size_t k = 0; k < count; k++) {
        const tf_preview_panel *p = &panels[k];
        if (!p->heights || p->width == 0 || p->height == 0 || p->border > 1) {
            tf_error_set(err, TF_ERR_ARGUMENT,
                         "preview: panel %zu has no heights, no pixels or a border other than "
                         "0 or 1",
                         k + 1);
            return -1;
        }
        if (p->width > TF_MAX_IMAGE_SIDE || p->height > TF_MAX_IMAGE_SIDE) {
            tf_error_set(err, TF_ERR_LIMIT, "preview: panel %zu is %zux%zu, more than %u a side",
                         k + 1, p->width, p->height, TF_MAX_IMAGE_SIDE);
            return -1;
        }
        if (p->width != panels[0].width || p->height != panels[0].height) {
            tf_error_set(err, TF_ERR_ARGUMENT,
                         "preview: panel %zu is %zux%zu but panel 1 is %zux%zu; side-by-side "
                         "panels must have one size",
                         k + 1, p->width, p->height, panels[0].width, panels[0].height);
            return -1;
        }
    }
    return 0;
}

/* Caption glyphs grow with the panel, so a caption reads at any size. */
static unsigned caption_scale(size_t panel_width)
{
    size_t scale = (panel_width + 128) / 256;
    return scale < 1 ? 1u : scale > 4 ? 4u : (unsigned)scale;
}

static void draw_caption(unsigned char *rgb, size_t row_stride, size_t image_width,
                         size_t image_height, size_t left, size_t top, size_t panel_width,
                         const char *caption, unsigned scale)
{
    char text[MAX_CAPTION_CHARS + 1];
    size_t length = 0;
    while (length < MAX_CAPTION_CHARS && caption[length])
        length++;
    memcpy(text, caption, length);
    text[length] = '\0';
    /* Cut what does not fit, and say so with "..." where there is room. */
    size_t fits = (panel_width + (TF_FONT_CELL_WIDTH - TF_FONT_GLYPH_WIDTH) * scale) /
                  (TF_FONT_CELL_WIDTH * scale);
    if (length > fits) {
        length = fits;
        if (fits >= 4)
            memcpy(text + fits - 3, "...", 3);
    }
    size_t text_width = tf_font_text_width(length, scale);
    size_t x = left + (panel_width > text_width ? (panel_width - text_width) / 2 : 0);
    tf_font_draw(rgb, row_stride, image_width, image_height, x, top, text, length, scale,
                 CAPTION_RGB);
}

unsigned char *tf_preview_render(const tf_preview_panel *panels, size_t count,
                                 const tf_preview_options *options, size_t *width,
                                 size_t *height, tf_error *err)
{
    if (check_options(options, err) != 0 || check_panels(panels, count, err) != 0)
        return NULL;
    size_t nx = panels[0].width, ny = panels[0].height;
    int captioned = 0;
    for (size_t k = 0; k < count; k++)
        captioned |= panels[k].caption != NULL;
    unsigned scale = caption_scale(nx);
    size_t padding = 4 * (size_t)scale;
    size_t strip = captioned ? TF_FONT_CELL_HEIGHT * (size_t)scale + 2 * padding : 0;
    size_t image_width = count * nx + (count - 1) * TF_PREVIEW_PAIR_GAP;
    size_t image_height = ny + strip;
    if (image_width > TF_MAX_IMAGE_SIDE || image_height > TF_MAX_IMAGE_SIDE ||
        (uint64_t)image_width * image_height > TF_MAX_IMAGE_PIXELS) {
        tf_error_set(err, TF_ERR_LIMIT,
                     "preview: a %zux%zu image is too large (at most %u per side and %zu pixels)",
                     image_width, image_height, TF_MAX_IMAGE_SIDE, TF_MAX_IMAGE_PIXELS);
        return NULL;
    }

    shade_context c = {.o = *options};
    double range = options->hi - options->lo;
    double scale_per_unit = options->height_scale / range;
    if (!(options->height_scale > 0.0)) {
        const tf_preview_panel *first = &panels[0];
        if (default_pixels_per_unit(first->heights, nx + 2 * first->border,
                                    ny + 2 * first->border, &scale_per_unit) != 0) {
            tf_error_set(err, TF_ERR_NOMEM, "preview: out of memory");
            return NULL;
        }
        scale_per_unit *= AUTO_PANEL_RISE;
    }
    c.rise_per_unit = scale_per_unit;
    const double degrees = PI / 180.0;
    double azimuth = options->sun_azimuth * degrees, altitude = options->sun_altitude * degrees;
    c.sun[0] = cos(altitude) * sin(azimuth);
    c.sun[1] = cos(altitude) * cos(azimuth);
    c.sun[2] = sin(altitude);
    c.water = !isnan(options->water_level) && options->water_level > 0.0;

    unsigned char *rgb = malloc(image_width * image_height * 3);
    if (!rgb) {
        tf_error_set(err, TF_ERR_NOMEM, "preview: out of memory for a %zux%zu image",
                     image_width, image_height);
        return NULL;
    }
    memset(rgb, 255, image_width * image_height * 3); /* gaps and the caption strip */
    size_t row_stride = image_width * 3;
    for (size_t k = 0; k < count; k++) {
        size_t left = k * (nx + TF_PREVIEW_PAIR_GAP);
        shade_panel(&c, &panels[k], rgb + 3 * left, row_stride);
        if (panels[k].caption)
            draw_caption(rgb, row_stride, image_width, image_height, left, ny + padding, nx,
                         panels[k].caption, scale);
    }
    *width = image_width;
    *height = image_height;
    return rgb;
}

/* tf_preview_render with its messages naming `name`, and an image the
 * PNG encoder can take; NULL with `err` filled. */
static unsigned char *render_named(const char *name, const tf_preview_panel *panels, size_t count,
                                   const tf_preview_options *options, size_t *width, size_t *height,
                                   tf_error *err)
{
    unsigned char *rgb = tf_preview_render(panels, count, options, width, height, err);
    if (!rgb) {
        char message[sizeof err->message];
        snprintf(message, sizeof message, "%s", err->message);
        const char *rest = strncmp(message, "preview: ", 9) == 0 ? message + 9 : message;
        tf_error_set(err, err->code, "%s: %s", name, rest);
        return NULL;
    }
    if ((3 * *width + 1) * *height > STB_MAX_FILTERED_BYTES) {
        free(rgb);
        tf_error_set(err, TF_ERR_LIMIT,
                     "%s: a %zux%zu preview is too large for the PNG encoder (at most about %zu "
                     "pixels)",
                     name, *width, *height, STB_MAX_FILTERED_BYTES / 3);
        return NULL;
    }
    return rgb;
}

int tf_preview_put_panels(FILE *stream, const char *name, const tf_preview_panel *panels,
                          size_t count, const tf_preview_options *options, tf_error *err)
{
    if (!stream || !name || !*name) {
        tf_error_set(err, TF_ERR_ARGUMENT, "preview: no %s given", stream ? "file name" : "stream");
        return -1;
    }
    size_t width, height;
    unsigned char *rgb = render_named(name, panels, count, options, &width, &height, err);
    int status = rgb ? put_rgb_png(stream, name, rgb, width, height, err) : -1;
    free(rgb);
    return status;
}

int tf_preview_write_panels(const char *path, const tf_preview_panel *panels, size_t count,
                            const tf_preview_options *options, tf_error *err)
{
    if (!path || !*path) {
        tf_error_set(err, TF_ERR_ARGUMENT, "preview: no file name given");
        return -1;
    }
    size_t width, height;
    unsigned char *rgb = render_named(path, panels, count, options, &width, &height, err);
    int status = rgb ? write_rgb_png(path, rgb, width, height, err) : -1;
    free(rgb);
    return status;
}
