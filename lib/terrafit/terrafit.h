/*
 * terrafit full library: everything beside the runtime that tools need —
 * reference image input (image.h), statistics, frequency estimation,
 * fitting and comparison (stats.h, frequency.h, fit.h, metrics.h),
 * heightmap files, multi-threaded rendering, previews, meshes and erosion.
 * It calls into the runtime, never the reverse.
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
#include <terrafit/shader.h>

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
    TF_HEIGHTMAP_F32 = 4,   /* "f32": raw little-endian float32, row-major, no header,
                             * plus a JSON sidecar PATH.json (tf_heightmap_sidecar_path) */
    TF_HEIGHTMAP_PFM = 5,   /* "pfm": greyscale Portable Float Map ("Pf", scale -1:
                             * little-endian), rows stored bottom to top */
    TF_HEIGHTMAP_ASC = 6,   /* "asc": ESRI ASCII grid, georeferenced (docs/formats.md) */
    TF_HEIGHTMAP_FORMAT_COUNT
} tf_heightmap_format;

/* "png16", "png8", "pgm16", "r16", "f32", "pfm", "asc"; NULL when out of range. */
TF_API const char *tf_heightmap_format_name(tf_heightmap_format format);
/* 0 and *format set when `name` is a format name; -1 otherwise. */
TF_API int tf_heightmap_format_from_name(const char *name, tf_heightmap_format *format);
/* 0 and *format set from a file name's extension (.png -> png16, .pgm ->
 * pgm16, .r16/.raw -> r16, .f32 -> f32, .pfm -> pfm, .asc -> asc); -1 when
 * the extension says nothing. */
TF_API int tf_heightmap_format_from_path(const char *path, tf_heightmap_format *format);
/* The format a heightmap file named `path` is written in when none is
 * named: its extension's (tf_heightmap_format_from_path), png16 when the
 * name has no extension; -1 with `err` naming the file when the extension
 * is another format's or none at all (out.jpg, terrain.json), so no file
 * is written under a name that says it holds something else. */
TF_API int tf_heightmap_format_for_path(const char *path, tf_heightmap_format *format,
                                        tf_error *err);
/* 1 for the formats that store floats (f32, pfm, asc), 0 otherwise. */
TF_API int tf_heightmap_format_is_float(tf_heightmap_format format);
/* The usual file name extension of a format, without the dot ("png"). */
TF_API const char *tf_heightmap_format_extension(tf_heightmap_format format);

/* Quantize one height: v = clamp((h - lo) / (hi - lo), 0, 1) (NaN -> 0),
 * q = floor(v * maxval + 0.5). */
TF_API unsigned tf_quantize(double h, double lo, double hi, unsigned maxval);

/* Write nx * ny heights (row-major, row 0 at the top), quantized with
 * tf_quantize over [lo, hi], atomically: the file appears complete or not
 * at all. 0 on success. Float formats store (h - lo) / (hi - lo), not
 * clamped, with origin 0,0 and step 1 (see tf_heightmap_write_with). */
TF_API int tf_heightmap_write(const char *path, tf_heightmap_format format, const float *heights,
                       size_t nx, size_t ny, double lo, double hi, tf_error *err);

/* How heights become stored values. */
typedef enum {
    TF_NORMALIZE_SPEC = 0,   /* (h - lo) / (hi - lo) over the caller's [lo, hi]
                              * (the CLI passes the spec's minValue..maxValue) */
    TF_NORMALIZE_MINMAX = 1, /* the same over the heights' own min..max (a
                              * constant map stores 0) */
    TF_NORMALIZE_NONE = 2    /* the heights themselves: float formats only */
} tf_normalize;

/* "spec", "minmax", "none"; NULL when out of range. */
TF_API const char *tf_normalize_name(tf_normalize mode);
/* 0 and *mode set when `name` is a mode name; -1 otherwise. */
TF_API int tf_normalize_from_name(const char *name, tf_normalize *mode);

typedef struct {
    tf_normalize normalize;
    double lo, hi;             /* TF_NORMALIZE_SPEC's range: finite, lo < hi */
    double height_scale;       /* float formats: stored value = normalized * scale
                                * (finite, > 0); integer formats: must be 1 */
    double origin_x, origin_y; /* world point of pixel (0, 0): f32 sidecar, asc header */
    double step;               /* world units between pixels, > 0 */
} tf_heightmap_options;

/* Spec normalization over [0, 1], scale 1, origin 0,0, step 1. */
#define TF_HEIGHTMAP_OPTIONS_DEFAULT {TF_NORMALIZE_SPEC, 0.0, 1.0, 1.0, 0.0, 0.0, 1.0}

/* Write nx * ny heights (row-major, row 0 at the top) as `format`, each
 * file atomically. Integer formats quantize the normalized value with
 * tf_quantize (clamped to [0, 1]); float formats store
 * (float)(normalized * height_scale), unclamped, and refuse a value that is
 * not finite. f32 also writes the sidecar tf_heightmap_sidecar_path(path),
 * committed after the data, so a sidecar means the pair is complete. asc
 * and the sidecar carry origin and step (georeferencing in
 * docs/formats.md). 0 on success. */
TF_API int tf_heightmap_write_with(const char *path, tf_heightmap_format format, const float *heights,
                            size_t nx, size_t ny, const tf_heightmap_options *options,
                            tf_error *err);

/* The f32 sidecar's name: `path` + ".json". 0 on success; -1 when `size`
 * is too small. */
TF_API int tf_heightmap_sidecar_path(const char *path, char *out, size_t size);

/* A heightmap file read back as stored (tf_heightmap_read). */
typedef struct {
    size_t width, height;
    float *values; /* row-major, row 0 at the top: the integer samples
                    * (0..255 or 0..65535) for integer formats, the stored
                    * floats for f32, pfm and asc */
    int georeferenced;         /* 1 when origin and step come from the file */
    double origin_x, origin_y; /* world point of pixel (0, 0) (asc: computed */
    double step;               /* from the corner; f32: from the sidecar) */
} tf_heightmap;

/* Read a heightmap of `format`. r16 has no header: give its width and
 * height (0, 0: a square from the file size). Other formats take their size
 * from the file; a nonzero width and height must then match it. f32 needs
 * its sidecar. NULL on failure, with a message naming the file. */
TF_API tf_heightmap *tf_heightmap_read(const char *path, tf_heightmap_format format, size_t width,
                                size_t height, tf_error *err);
TF_API void tf_heightmap_free(tf_heightmap *map);

/* ------------------------------------------------------------ point lists */

/* The most bytes a line of tf_points_read may hold besides its blanks
 * (each run of blanks counts as one) and its end; comments do not count. */
#define TF_POINTS_MAX_LINE 4096

/* Called by tf_points_read for each point; a nonzero return stops the
 * read, which returns that value. */
typedef int (*tf_point_fn)(void *user, double x, double y);

/* Read points from `in`, one a line: two finite numbers (C float literals
 * starting with a sign, digit or '.', read the same in every locale)
 * separated by spaces or tabs, with blanks allowed around them; lines end
 * in LF or CRLF, the last may lack its end; blank lines and lines whose
 * first non-blank character is '#' are skipped. A line that is anything
 * else, holds a NUL byte or more than TF_POINTS_MAX_LINE bytes besides its
 * blanks is an error naming it as "NAME:LINE" (`name` NULL: "input").
 * Calls `fn` in order. 0 at the end of the input; -1 with `err` set
 * (TF_ERR_PARSE, TF_ERR_LIMIT for a long line, TF_ERR_IO); or fn's nonzero
 * value. Uses a fixed buffer on the stack, whatever the input. */
TF_API int tf_points_read(FILE *in, const char *name, tf_point_fn fn, void *user, tf_error *err);

/* ------------------------------------------------------- atomic writing */

/* A file written under a temporary name beside `path` and renamed over it
 * on commit; abort (or a failed commit) removes the temporary. */
typedef struct tf_atomic_file tf_atomic_file;

/* Whether `path` could be written now, without creating anything: a name
 * that is not empty, does not end in '/', is not taken by anything but a
 * regular file, and whose folder exists and takes new names. 0 when it
 * could; -1 with `err` set (the messages tf_atomic_open gives) when not.
 * For asking before a long job; tf_atomic_open checks again. */
TF_API int tf_atomic_check(const char *path, tf_error *err);
/* Checks `path` as tf_atomic_check does, then creates the temporary. */
TF_API tf_atomic_file *tf_atomic_open(const char *path, tf_error *err);
TF_API FILE *tf_atomic_stream(tf_atomic_file *file);
/* Flush, close and rename; frees `file` whatever happens. 0 on success. */
TF_API int tf_atomic_commit(tf_atomic_file *file, tf_error *err);
/* Commit the outputs of one job together, in order (NULL entries are
 * skipped; at least one must be there): every file's data reaches the
 * disk before any is renamed, and if one cannot be committed, none stays
 * (the ones already renamed are removed). Frees every file and sets each
 * pointer to NULL whatever happens. 0 on success. */
TF_API int tf_atomic_commit_all(tf_atomic_file **files, size_t count, tf_error *err);
/* Close and remove the temporary; frees `file`. NULL is allowed. */
TF_API void tf_atomic_abort(tf_atomic_file *file);
/* Write a whole buffer atomically. 0 on success. */
TF_API int tf_write_file_atomic(const char *path, const void *data, size_t size, tf_error *err);

/* Temporaries left by a killed process: the first tf_atomic_open installs a
 * handler for SIGINT, SIGTERM and SIGHUP, each only where the program has
 * left the default action (termination); it removes every live temporary,
 * then the signal ends the process as it would have. A program with its
 * own handler for them calls tf_atomic_remove_temporaries from it: it is
 * async-signal-safe (lock-free, no allocation; only unlink). It is meant
 * for a process about to end: the files being written are gone afterwards
 * (their commits fail). */
TF_API void tf_atomic_remove_temporaries(void);

/* ------------------------------------------------------------- rendering */

/* Progress callbacks are tf_progress_fn (terrafit/fit.h): called from the
 * calling thread, at most a few times a second, and once at the end with
 * done == total. */

/* Number of online processors (at least 1). */
TF_API unsigned tf_cpu_count(void);

/* Fill out[j*nx + i] exactly as tf_terrain_sample_grid would, splitting the
 * rows over `threads` threads (0 = tf_cpu_count()). 0 on success. */
TF_API int tf_render_grid(const tf_terrain *t, double x0, double y0, double step, size_t nx, size_t ny,
                   unsigned threads, float *out, tf_progress_fn progress, void *user,
                   tf_error *err);

/* The same over a window of the endless lattice (`terrafit tiles`): fill
 * out[j*nx + i] exactly as tf_terrain_sample_window(t, x0, y0, step, i0, j0,
 * nx, ny, out) would, so tiles cut from one lattice match a whole render bit
 * for bit. tf_render_grid is the window at i0 = j0 = 0. */
TF_API int tf_render_window(const tf_terrain *t, double x0, double y0, double step, int64_t i0,
                     int64_t j0, size_t nx, size_t ny, unsigned threads, float *out,
                     tf_progress_fn progress, void *user, tf_error *err);

/* A spec's heights as a map for people and metrics, the way `terrafit
 * preview` draws a spec and `terrafit compare` measures one: the terrain
 * sampled at (x0 + i * step, y0 + j * step) and normalized with its
 * minValue..maxValue, v = (h - minValue) / (maxValue - minValue), not
 * clamped (a height outside the range gives v outside [0, 1]; a non-finite
 * one stays non-finite). `border` 0 or 1: a ring of that many samples
 * around the nx * ny interior, at lattice indices -1 and nx (ny), so edge
 * slopes use real neighbours (tf_preview_panel.border). Returns
 * (nx + 2 * border) * (ny + 2 * border) values, row-major, the interior
 * bit for bit as tf_render_grid renders it (threaded as there; `progress`
 * as there); free() it. NULL on failure. */
TF_API float *tf_render_normalized(const tf_terrain *t, double x0, double y0, double step,
                                   size_t nx, size_t ny, size_t border, unsigned threads,
                                   tf_progress_fn progress, void *user, tf_error *err);

/* -------------------------------------------------------------- previews */

/* An 8-bit RGB shaded-relief preview PNG of nx * ny heights: hypsometric
 * tint over [lo, hi] lit from the north-west. `z_scale` converts height
 * units to pixel units for the slope (<= 0 picks a scale from the range:
 * (hi - lo) * nx / 4). Written atomically. 0 on success. */
TF_API int tf_preview_write(const char *path, const float *heights, size_t nx, size_t ny, double lo,
                     double hi, double z_scale, tf_error *err);

/* Two nx * ny height maps side by side (left | right), TF_PREVIEW_PAIR_GAP
 * white pixels apart, shaded with one tint range [lo, hi] and one relief
 * scale (z_scale, or when <= 0 the default picked from the left map), so
 * a reference and its synthesis can be compared by eye. 0 on success. */
#define TF_PREVIEW_PAIR_GAP 8
TF_API int tf_preview_write_pair(const char *path, const float *left, const float *right, size_t nx,
                          size_t ny, double lo, double hi, double z_scale, tf_error *err);

/* Preview styles (docs/preview.md has the colours and thresholds). */
typedef enum {
    TF_PREVIEW_HILLSHADE = 0, /* "hillshade": grey Lambertian shade, as ESRI's hillshade */
    TF_PREVIEW_COLOR = 1,     /* "color": hypsometric tint, water below a level, shaded */
    TF_PREVIEW_SLOPE = 2,     /* "slope": slope angle on a pale-to-dark-red ramp */
    TF_PREVIEW_NORMALS = 3,   /* "normals": tangent-space normal map, RGB = n * 0.5 + 0.5 */
    TF_PREVIEW_RULES = 4,     /* "rules": water, vegetation, rock and snow by height and slope */
    TF_PREVIEW_STYLE_COUNT
} tf_preview_style;

/* "hillshade", "color", ...; NULL when out of range. */
TF_API const char *tf_preview_style_name(tf_preview_style style);
/* 0 and *style set when `name` is a style name; -1 otherwise. */
TF_API int tf_preview_style_from_name(const char *name, tf_preview_style *style);

typedef struct {
    tf_preview_style style;
    /* Heights lo..hi are normalized to 0..1: levels and tints use that scale. */
    double lo, hi;
    /* Rise in pixels per unit of normalized height, for every slope (shade,
     * slope, normals, the rules' talus); <= 0: automatic, from the first
     * panel (the steepest fifth of its slopes reach 30 degrees). */
    double height_scale;
    double sun_azimuth;  /* degrees clockwise from north (image up); default 315 */
    double sun_altitude; /* degrees above the horizon, (0, 90]; default 45 */
    /* color and rules: water below this normalized height; NaN: no water. */
    double water_level;
    double snow_level;       /* rules: flat ground above it is snow (> water_level) */
    double vegetation_talus; /* rules: vegetation where the largest height
                                difference to the 8 neighbours, in pixels, is below it */
    /* normals: 0 = OpenGL (+Y up the image: Blender, Unity, Godot),
     * 1 = DirectX (+Y down the image: Unreal). */
    int normals_y_down;
} tf_preview_options;

/* The defaults: color over [0, 1], automatic height scale, sun at 315 /
 * 45 degrees, water 0.2, snow 0.8, talus 0.8, OpenGL normals. */
TF_API tf_preview_options tf_preview_options_default(void);

/* One image of a preview: width x height pixels from (width + 2 * border)
 * x (height + 2 * border) heights, row-major, row 0 at the top (north).
 * border 1 adds a ring of samples used only for the slopes at the edges
 * (as the (N+2)^2 window of thesis 5.5), so adjacent tiles shade without
 * seams; with border 0 edge slopes are one-sided. Non-finite heights mean
 * "no data" and show as light grey. */
typedef struct {
    const float *heights;
    size_t width, height;
    size_t border;       /* 0 or 1 */
    const char *caption; /* drawn under the panel (printable ASCII), or NULL */
} tf_preview_panel;

/* `count` >= 1 panels of one size, left to right, TF_PREVIEW_PAIR_GAP
 * white pixels apart, with a white strip of captions under them when any
 * panel has one (as the thesis's Figure 23), all shaded with one scale.
 * A new RGB image (malloc'd, *width * *height * 3 bytes; free with free()),
 * or NULL with `err` filled. */
TF_API unsigned char *tf_preview_render(const tf_preview_panel *panels, size_t count,
                                 const tf_preview_options *options, size_t *width,
                                 size_t *height, tf_error *err);

/* tf_preview_render written as an 8-bit RGB PNG, atomically. 0 on success. */
TF_API int tf_preview_write_panels(const char *path, const tf_preview_panel *panels, size_t count,
                            const tf_preview_options *options, tf_error *err);
/* ... or put on an open stream (`name` for messages): for a job that
 * commits the preview with its other outputs (tf_atomic_commit_all). */
TF_API int tf_preview_put_panels(FILE *stream, const char *name, const tf_preview_panel *panels,
                                 size_t count, const tf_preview_options *options, tf_error *err);

/* ---------------------------------------------------------------- meshes */

/* A square triangle grid of a terrain tile (thesis 5.5), Y up:
 * vertex (i, j) of tile (tx, ty) sits on the global lattice index
 * (I, J) = (tx * (n - 1) + i, ty * (n - 1) + j) at
 *     x = x0 + I * step,  y = height_scale * h(x, z),  z = y0 + J * step
 * so world y (image rows, southwards) is +z, and adjacent tiles share
 * their edge vertices. Normals come from the (n+2)^2 window
 * (tf_terrain_sample_window), thesis 5.5:
 *     N = normalize(H (h[i-1] - h[i+1]), 2 step, H (h[j-1] - h[j+1]))
 * so they agree bit for bit along shared edges. Triangles wind counter-
 * clockwise seen from above (+y). */
typedef struct {
    size_t n;            /* vertices per side (>= 2); (n - 1)^2 cells */
    size_t vertex_count; /* n * n */
    size_t index_count;  /* 6 * (n - 1)^2 */
    float *positions;    /* vertex_count * 3: x, y, z, row-major from (0, 0) */
    float *normals;      /* vertex_count * 3, unit length */
    uint32_t *indices;   /* index_count, two triangles per cell */
} tf_mesh;

/* Largest n accepted (keeps a .glb under 4 GiB). */
#define TF_MESH_MAX_SIDE 8193u
/* Largest |tile index|. */
#define TF_MESH_MAX_TILE ((int64_t)1 << 31)

typedef enum {
    TF_MESH_OBJ = 0, /* "obj": Wavefront OBJ text (v, vn, f a//a) */
    TF_MESH_GLB = 1, /* "glb": glTF 2.0 binary, one mesh, uint32 indices */
    TF_MESH_FORMAT_COUNT
} tf_mesh_format;

/* 0 and *format set from a file name's extension (.obj, .glb); -1 otherwise. */
TF_API int tf_mesh_format_from_path(const char *path, tf_mesh_format *format);
/* "obj", "glb"; NULL when out of range. */
TF_API const char *tf_mesh_format_name(tf_mesh_format format);
TF_API int tf_mesh_format_from_name(const char *name, tf_mesh_format *format);

/* Build tile (tile_x, tile_y) of n x n vertices. NULL on failure. */
TF_API tf_mesh *tf_mesh_build(const tf_terrain *t, double x0, double y0, double step, size_t n,
                       int64_t tile_x, int64_t tile_y, double height_scale, tf_error *err);
TF_API void tf_mesh_free(tf_mesh *mesh);

/* Write a mesh atomically. 0 on success. */
TF_API int tf_mesh_write(const char *path, tf_mesh_format format, const tf_mesh *mesh, tf_error *err);

/* --------------------------------------------------------------- erosion */

/* Erosion of a rendered heightmap (survey of Archer, section 3; Olsen
 * 2004). Erosion is a grid operation: every cell's result depends on its
 * neighbours over all earlier iterations, so it breaks the spec's random
 * access. It applies to a rendered tile, never to a spec, and an eroded
 * tile does not join its neighbours without seams.
 *
 *     tf_erosion_params p;
 *     tf_erosion_params_default(&p, TF_EROSION_THERMAL, nx, ny);
 *     p.iterations = 50;
 *     if (tf_erode(heights, nx, ny, &p, NULL, NULL, &err) != 0) ...
 *
 * Heights and the talus are in the same units (terrafit's [0, 1] value
 * units for a heightmap read with tf_layer_map_load). Every iteration reads
 * the whole grid as it was and then applies all moves at once, in a fixed
 * order, so results do not depend on scan direction and are the same on
 * every run. Cells at the border have fewer neighbours; nothing flows out. */

typedef enum {
    TF_EROSION_THERMAL = 0,         /* "thermal": material slides down slopes steeper than T */
    TF_EROSION_INVERSE_THERMAL = 1, /* "inverse-thermal" (Olsen): only gentle slopes (<= T) move */
    TF_EROSION_HYDRAULIC = 2,       /* "hydraulic": rain dissolves, carries, deposits */
    TF_EROSION_METHOD_COUNT
} tf_erosion_method;

typedef struct {
    tf_erosion_method method;
    unsigned long iterations;
    /* Thermal methods: the talus T, a height difference per cell of
     * distance (diagonal neighbours are sqrt(2) cells away). >= 0. */
    double talus;
    /* Hydraulic: water added to every cell per iteration (>= 0), soil
     * dissolved per unit of water per iteration (>= 0), share of the water
     * that evaporates per iteration ([0, 1]), sediment one unit of water
     * can carry (>= 0). */
    double rain, solubility, evaporation, capacity;
} tf_erosion_params;

/* Largest iteration count accepted. */
#define TF_EROSION_MAX_ITERATIONS 1000000ul

/* "thermal", "inverse-thermal", "hydraulic"; NULL when out of range. */
TF_API const char *tf_erosion_method_name(tf_erosion_method method);
/* 0 and *method set when `name` is a method name; -1 otherwise. */
TF_API int tf_erosion_method_from_name(const char *name, tf_erosion_method *method);

/* The defaults for a method on an nx * ny grid: 0 iterations, talus
 * 4 / max(nx, ny) (Olsen 2004), rain 0.01, solubility 0.01, evaporation
 * 0.5, capacity 0.01 (Olsen 2004). */
TF_API void tf_erosion_params_default(tf_erosion_params *params, tf_erosion_method method, size_t nx,
                               size_t ny);
/* 0 when every field is in range; else -1 with `err` naming the field:
 * TF_ERR_ARGUMENT for NULL params, an unknown method or a field out of
 * range, TF_ERR_LIMIT for more than TF_EROSION_MAX_ITERATIONS iterations. */
TF_API int tf_erosion_params_check(const tf_erosion_params *params, tf_error *err);

/* Erosion in steps, for programs that look at the state between them. */
typedef struct tf_erosion tf_erosion;

/* Copy nx * ny heights (finite) into a new erosion state. NULL on failure,
 * with `err`: tf_erosion_params_check's errors, TF_ERR_ARGUMENT for no
 * heights (NULL or an empty grid) or one that is not finite, TF_ERR_LIMIT
 * beyond TF_MAX_IMAGE_SIDE per side or TF_MAX_IMAGE_PIXELS cells,
 * TF_ERR_NOMEM. */
TF_API tf_erosion *tf_erosion_new(const float *heights, size_t nx, size_t ny,
                           const tf_erosion_params *params, tf_error *err);
TF_API void tf_erosion_free(tf_erosion *erosion);
/* Run `iterations` more iterations (params->iterations is not used here),
 * calling `progress` (may be NULL) with iterations done and `iterations`. */
TF_API void tf_erosion_run(tf_erosion *erosion, unsigned long iterations, tf_progress_fn progress,
                    void *user);
/* The state, nx * ny doubles each: terrain height, and for the hydraulic
 * method the water and the sediment dissolved in it (NULL otherwise).
 * Terrain + sediment is what the methods conserve. */
TF_API const double *tf_erosion_terrain(const tf_erosion *erosion);
TF_API const double *tf_erosion_water(const tf_erosion *erosion);
TF_API const double *tf_erosion_sediment(const tf_erosion *erosion);
/* The eroded heights: terrain plus the sediment still dissolved, deposited
 * where it is (the water evaporates), so the sum of heights is conserved. */
TF_API void tf_erosion_result(const tf_erosion *erosion, float *heights);

/* All of the above: erode nx * ny heights in place for params->iterations
 * iterations. 0 on success; -1 with `err` as tf_erosion_new sets it, and
 * the heights unchanged. */
TF_API int tf_erode(float *heights, size_t nx, size_t ny, const tf_erosion_params *params,
             tf_progress_fn progress, void *user, tf_error *err);

/* Measures that say what erosion did, over the 8-neighbourhood: the sum of
 * heights, the steepest slope (largest |h(p) - h(q)| / distance between
 * neighbours p, q, distance 1 or sqrt(2) cells), and the share of flat
 * cells — cells whose every slope to a neighbour is <= flat_slope. */
typedef struct {
    double sum;
    double max_slope;
    double flat_share;
} tf_erosion_measures;

TF_API void tf_erosion_measure(const float *heights, size_t nx, size_t ny, double flat_slope,
                        tf_erosion_measures *out);

#ifdef __cplusplus
}
#endif
#endif /* TERRAFIT_H */
