/*
 * Private to lib/render and its tests: a mesh written to an open stream, so
 * the failure of a full device (/dev/full, which tf_mesh_write's atomic
 * temporary cannot sit beside) can be tested with its reason.
 */
#ifndef TF_RENDER_MESH_INTERNAL_H
#define TF_RENDER_MESH_INTERNAL_H

#include <stdio.h>

#include "terrafit/terrafit.h"

/* Write `mesh` as `format` to `f`, with `name` in messages. 0 on success;
 * -1 with err set ("NAME: cannot write file: REASON", the system's reason
 * for the failed write) otherwise. */
int mesh_write_stream(FILE *f, const char *name, tf_mesh_format format, const tf_mesh *mesh,
                      tf_error *err);

#endif
