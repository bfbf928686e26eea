/*
 * Private to lib/io: the raw float heightmap decoders behind
 * tf_heightmap_read (PFM, f32 + sidecar). Values come back exactly as
 * stored, never normalized.
 */
#ifndef TF_IO_HEIGHTMAP_INTERNAL_H
#define TF_IO_HEIGHTMAP_INTERNAL_H

#include <stddef.h>

#include "io/io_internal.h"
#include "terrafit/terrafit.h"

/* 0 when `width` x `height` is a heightmap size tf_heightmap_read accepts
 * (not empty, within TF_MAX_IMAGE_SIDE / TF_MAX_IMAGE_PIXELS); else -1 with
 * err set. Readers check it, and that the file holds that many values,
 * before allocating. */
int io_heightmap_check(const char *path, uint64_t width, uint64_t height, tf_error *err);

/* A tf_heightmap with `width` x `height` values (checked as above), not
 * georeferenced. NULL (err set) on failure. */
tf_heightmap *io_heightmap_alloc(const char *path, uint64_t width, uint64_t height,
                                 tf_error *err);

/* Greyscale PFM ("Pf"): any scale sign (negative: little-endian), rows
 * stored bottom to top and returned top to bottom. */
tf_heightmap *io_pfm_decode(const char *path, const unsigned char *data, size_t size,
                            tf_error *err);

/* Raw little-endian float32 `path` described by its JSON sidecar. */
tf_heightmap *io_f32_read(const char *path, tf_error *err);

/* PFM and f32 as reference layers (tf_layer_map_load), like ESRI grids:
 * heights normalized to [0, 1] over the finite cells (z_min, z_max kept),
 * non-finite cells invisible. Same contract as the io_read_* readers of
 * io_internal.h; io_read_f32 reads `path` and its sidecar itself. */
int io_read_pfm(const char *path, const unsigned char *data, size_t size, bool want_zero,
                io_decoded *out, tf_error *err);
int io_read_f32(const char *path, bool want_zero, io_decoded *out, tf_error *err);

#endif
