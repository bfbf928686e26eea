/*
 * terrafit full library: everything beside the runtime that tools need —
 * heightmap files, multi-threaded rendering, previews (and, later, image
 * input and analysis). It calls into the runtime, never the reverse.
 *
 *     tf_error err;
 *     tf_terrain *t = tf_terrain_load("terrain.json", &err);
 *     float *h = malloc(sizeof *h * 1024 * 1024);
 *     if (tf_render_grid(t, 0, 0, 1, 1024, 1024, 0, h, NULL, NULL, &err) != 0 ||
 *         tf_heightmap_write("out.png", TF_HEIGHTMAP_PNG16, h, 1024, 1024,
 *                            tf_terrain_min_value(t), tf_terrain_max_value(t), &err) != 0)
 *         fprintf(stderr, "%s\n", err.message);
 *
 * Build with pkg-config: `pkg-config --cflags --libs terrafit`.
 */
#ifndef TERRAFIT_H
#define TERRAFIT_H

#include <stdio.h>
#include <terrafit/runtime.h>
#include <terrafit/image.h>
#include <terrafit/stats.h>
#include <terrafit/frequency.h>
#include <terrafit/fit.h>
#include <terrafit/metrics.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Largest render or heightmap side, and largest pixel count, accepted. */
#define TF_MAX_IMAGE_SIDE 65536u
#define TF_MAX_IMAGE_PIXELS ((size_t)1 << 30)

/* ------------------------------------------------------- heightmap files */

typedef enum {
    TF_HEIGHTMAP_PNG16 = 0, /* "png16": 16-bit greyscale PNG (libpng) */
    TF_HEIGHTMAP_PNG8 = 1,  /* "png8": 8-bit greyscale PNG */
    TF_HEIGHTMAP_PGM16 = 2, /* "pgm16": binary PGM (P5), maxval 65535, big-endian */
    TF_HEIGHTMAP_R16 = 3,   /* "r16": raw little-endian uint16, row-major, no header */
    TF_HEIGHTMAP_FORMAT_COUNT
} tf_heightmap_format;

/* "png16", "png8", "pgm16", "r16"; NULL when out of range. */
const char *tf_heightmap_format_name(tf_heightmap_format format);
/* 0 and *format set when `name` is a format name; -1 otherwise. */
int tf_heightmap_format_from_name(const char *name, tf_heightmap_format *format);
/* 0 and *format set from a file name's extension (.png -> png16, .pgm ->
 * pgm16, .r16/.raw -> r16); -1 when the extension says nothing. */
int tf_heightmap_format_from_path(const char *path, tf_heightmap_format *format);

/* Quantize one height: v = clamp((h - lo) / (hi - lo), 0, 1) (NaN -> 0),
 * q = floor(v * maxval + 0.5). */
unsigned tf_quantize(double h, double lo, double hi, unsigned maxval);

/* Write nx * ny heights (row-major, row 0 at the top), quantized with
 * tf_quantize over [lo, hi], atomically: the file appears complete or not
 * at all. 0 on success. */
int tf_heightmap_write(const char *path, tf_heightmap_format format, const float *heights,
                       size_t nx, size_t ny, double lo, double hi, tf_error *err);

/* ------------------------------------------------------- atomic writing */

/* A file written under a temporary name beside `path` and renamed over it
 * on commit; abort (or a failed commit) removes the temporary. */
typedef struct tf_atomic_file tf_atomic_file;

tf_atomic_file *tf_atomic_open(const char *path, tf_error *err);
FILE *tf_atomic_stream(tf_atomic_file *file);
/* Flush, close and rename; frees `file` whatever happens. 0 on success. */
int tf_atomic_commit(tf_atomic_file *file, tf_error *err);
/* Close and remove the temporary; frees `file`. NULL is allowed. */
void tf_atomic_abort(tf_atomic_file *file);
/* Write a whole buffer atomically. 0 on success. */
int tf_write_file_atomic(const char *path, const void *data, size_t size, tf_error *err);

/* ------------------------------------------------------------- rendering */

/* Called from the calling thread, at most a few times a second, and once at
 * the end with done == total. */
typedef void (*tf_progress_fn)(void *user, size_t rows_done, size_t rows_total);

/* Number of online processors (at least 1). */
unsigned tf_cpu_count(void);

/* Fill out[j*nx + i] exactly as tf_terrain_sample_grid would, splitting the
 * rows over `threads` threads (0 = tf_cpu_count()). 0 on success. */
int tf_render_grid(const tf_terrain *t, double x0, double y0, double step, size_t nx, size_t ny,
                   unsigned threads, float *out, tf_progress_fn progress, void *user,
                   tf_error *err);

/* -------------------------------------------------------------- previews */

/* An 8-bit RGB shaded-relief preview PNG of nx * ny heights: hypsometric
 * tint over [lo, hi] lit from the north-west. `z_scale` converts height
 * units to pixel units for the slope (<= 0 picks a scale from the range:
 * (hi - lo) * nx / 4). Written atomically. 0 on success. */
int tf_preview_write(const char *path, const float *heights, size_t nx, size_t ny, double lo,
                     double hi, double z_scale, tf_error *err);

/* Two nx * ny height maps side by side (left | right), TF_PREVIEW_PAIR_GAP
 * white pixels apart, shaded with one tint range [lo, hi] and one relief
 * scale (z_scale, or when <= 0 the default picked from the left map), so
 * a reference and its synthesis can be compared by eye. 0 on success. */
#define TF_PREVIEW_PAIR_GAP 8
int tf_preview_write_pair(const char *path, const float *left, const float *right, size_t nx,
                          size_t ny, double lo, double hi, double z_scale, tf_error *err);

#ifdef __cplusplus
}
#endif
#endif /* TERRAFIT_H */
