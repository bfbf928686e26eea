/*
 * Reference height layers (thesis 5.3) read from images and elevation grids:
 * a value map and a visibility (alpha) map of the same size. Part of the
 * full library (libpng); the runtime never sees images.
 */
#ifndef TERRAFIT_IMAGE_H
#define TERRAFIT_IMAGE_H

#include <stddef.h>
#include <terrafit/runtime.h>

#ifdef __cplusplus
extern "C" {
#endif

/* A reference layer. Row-major, row 0 at the top (north), column 0 at the
 * left (west). value[k] is in [0, 1]: for an RGBA/grey+alpha image
 * 0.5 + (R - 0.5) * A (thesis 5.3: alpha is the distance from 0.5, 0.5 = no
 * offset); for a greyscale image or elevation grid the height normalized to
 * [0, 1]. weight[k] is the alpha A in [0, 1]: 0 = the layer is not present
 * there (transparent, no-data, or masked out by --valid); such cells hold
 * value 0.5 and are ignored by every statistic. */
typedef struct {
    size_t width, height;
    float *value;
    float *weight;
    int bits;      /* sample depth of the source: 8 or 16; 0 for text grids */
    int channels;  /* 1 grey, 2 grey+alpha, 3 RGB, 4 RGBA (as stored) */
    double z_min;  /* physical heights that map to value 0 and 1 (ESRI */
    double z_max;  /* ASCII grids); 0 and 1 for images */
    /* 1 when a colour image (RGB, RGBA, a palette with colours) has a pixel
     * whose green or blue differs from its red: the values came from the
     * red channel alone (thesis 5.3), which a colour photo does not mean.
     * Grey stored as RGB gives 0. The library only records it; a program
     * decides whether to warn. */
    int colour_ignored;
} tf_layer_map;

/* Largest side and pixel count a reference may have. */
#define TF_MAX_REFERENCE_SIDE 32768u
#define TF_MAX_REFERENCE_PIXELS ((size_t)1 << 28)
/* Largest reference file read (bytes): checked before reading it. */
#define TF_MAX_REFERENCE_BYTES ((size_t)1 << 30)

/* A zeroed map (value 0.5, weight 1) of the given size; NULL on failure. */
TF_API tf_layer_map *tf_layer_map_new(size_t width, size_t height, tf_error *err);
TF_API void tf_layer_map_free(tf_layer_map *map);

/* Read a reference layer: PNG (8/16-bit grey, grey+alpha, RGB, RGBA),
 * PGM (P2/P5, 8/16-bit) or ESRI ASCII grid (.asc; NODATA_value cells get
 * weight 0). The format is recognized from the content, not the name.
 * NULL on failure, with a message naming the file (and the line or pixel). */
TF_API tf_layer_map *tf_layer_map_load(const char *path, tf_error *err);

/* Apply a validity mask image of the same size: cells whose mask sample is 0
 * get weight 0 (the data set's convention: 255 valid, 0 no-data). 0 on
 * success. */
TF_API int tf_layer_map_apply_valid(tf_layer_map *map, const char *mask_path, tf_error *err);

/* Number of cells with weight > 0. */
TF_API size_t tf_layer_map_visible_count(const tf_layer_map *map);

#ifdef __cplusplus
}
#endif
#endif /* TERRAFIT_IMAGE_H */
