/*
 * Terrain tiles as triangle meshes (thesis 5.5): an n x n vertex grid
 * sampled from the (n+2)^2 window of one global lattice, with normals from
 * the border samples so neighbouring tiles meet without seams, written as
 * Wavefront OBJ or glTF 2.0 binary (.glb).
 */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/error.h"
#include "render/mesh_internal.h"
#include "terrafit/terrafit.h"

/* glTF 2.0 binary container (glTF spec, "GLB File Format Specification"). */
#define GLB_MAGIC 0x46546C67u      /* "glTF" */
#define GLB_VERSION 2u
#define GLB_CHUNK_JSON 0x4E4F534Au /* "JSON" */
#define GLB_CHUNK_BIN 0x004E4942u  /* "BIN\0" */
/* glTF enums: component types, buffer targets, primitive mode. */
#define GL_FLOAT 5126
#define GL_UNSIGNED_INT 5125
#define GL_ARRAY_BUFFER 34962
#define GL_ELEMENT_ARRAY_BUFFER 34963
#define GL_TRIANGLES 4

static const char *const FORMAT_NAMES[TF_MESH_FORMAT_COUNT] = {"obj", "glb"};

const char *tf_mesh_format_name(tf_mesh_format format)
{
    return (unsigned)format < TF_MESH_FORMAT_COUNT ? FORMAT_NAMES[format] : NULL;
}

int tf_mesh_format_from_name(const char *name, tf_mesh_format *format)
{
    for (unsigned k = 0; name && k < TF_MESH_FORMAT_COUNT; k++) {
        if (strcmp(name, FORMAT_NAMES[k]) == 0) {
            *format = (tf_mesh_format)k;
            return 0;
        }
    }
    return -1;
}

int tf_mesh_format_from_path(const char *path, tf_mesh_format *format)
{
    const char *dot = path ? strrchr(path, '.') : NULL;
    if (!dot || strchr(dot, '/'))
        return -1;
    char ext[5] = {0};
    for (size_t k = 0; k < 4 && dot[1 + k]; k++)
        ext[k] = (char)(dot[1 + k] >= 'A' && dot[1 + k] <= 'Z' ? dot[1 + k] - 'A' + 'a'
                                                               : dot[1 + k]);
    if (strlen(dot + 1) != 3)
        return -1;
    return tf_mesh_format_from_name(ext, format);
}

void tf_mesh_free(tf_mesh *mesh)
{
    if (!mesh)
        return;
    free(mesh->positions);
    free(mesh->normals);
    free(mesh->indices);
    free(mesh);
}

static int check_build_args(const tf_terrain *t, double x0, double y0, double step, size_t n,
                            int64_t tile_x, int64_t tile_y, double height_scale, tf_error *err)
{
    const char *problem = NULL;
    if (!t)
        problem = "no terrain given";
    else if (n < 2 || n > TF_MESH_MAX_SIDE)
        problem = "the side must be 2 to TF_MESH_MAX_SIDE vertices";
    else if (!isfinite(x0) || !isfinite(y0))
        problem = "the origin is not finite";
    else if (!(step > 0.0) || !isfinite(step))
        problem = "the step must be a finite number > 0";
    else if (!isfinite(height_scale))
        problem = "the height scale is not finite";
    else if (tile_x > TF_MESH_MAX_TILE || tile_x < -TF_MESH_MAX_TILE ||
             tile_y > TF_MESH_MAX_TILE || tile_y < -TF_MESH_MAX_TILE)
        problem = "a tile index is beyond TF_MESH_MAX_TILE";
    if (problem) {
        tf_error_set(err, TF_ERR_ARGUMENT, "mesh: %s (n = %zu)", problem, n);
        return -1;
    }
    return 0;
}

tf_mesh *tf_mesh_build(const tf_terrain *t, double x0, double y0, double step, size_t n,
                       int64_t tile_x, int64_t tile_y, double height_scale, tf_error *err)
{
    if (check_build_args(t, x0, y0, step, n, tile_x, tile_y, height_scale, err) != 0)
        return NULL;
    size_t side = n + 2, cells = n - 1;
    tf_mesh *mesh = calloc(1, sizeof *mesh);
    float *window = malloc(sizeof *window * side * side);
    if (mesh) {
        mesh->n = n;
        mesh->vertex_count = n * n;
        mesh->index_count = 6 * cells * cells;
        mesh->positions = malloc(sizeof *mesh->positions * 3 * mesh->vertex_count);
        mesh->normals = malloc(sizeof *mesh->normals * 3 * mesh->vertex_count);
        mesh->indices = malloc(sizeof *mesh->indices * mesh->index_count);
    }
    if (!mesh || !window || !mesh->positions || !mesh->normals || !mesh->indices) {
        tf_mesh_free(mesh);
        free(window);
        tf_error_set(err, TF_ERR_NOMEM, "mesh: out of memory for %zux%zu vertices", n, n);
        return NULL;
    }
    /* The tile's first vertex is lattice index tile * (n - 1): tiles share
     * their edge rows and columns. One sample more on each side gives the
     * neighbours of the edge vertices (thesis 5.5). */
    int64_t i0 = tile_x * (int64_t)cells, j0 = tile_y * (int64_t)cells;
    tf_terrain_sample_window(t, x0, y0, step, i0 - 1, j0 - 1, side, side, window);

    for (size_t j = 0; j < n; j++) {
        for (size_t i = 0; i < n; i++) {
            const float *w = window + (j + 1) * side + (i + 1);
            if (!isfinite(w[0]) || !isfinite(w[-1]) || !isfinite(w[1]) || !isfinite(w[-(ptrdiff_t)side]) ||
                !isfinite(w[side])) {
                tf_mesh_free(mesh);
                free(window);
                tf_error_set(err, TF_ERR_INVALID,
                             "mesh: the terrain is not finite near vertex (%zu, %zu) of tile "
                             "(%" PRId64 ", %" PRId64 ")",
                             i, j, tile_x, tile_y);
                return NULL;
            }
            size_t v = 3 * (j * n + i);
            /* The same expressions as tf_terrain_sample_window's, so a
             * shared edge vertex has one position in both tiles. */
            mesh->positions[v + 0] = (float)(x0 + (double)(i0 + (int64_t)i) * step);
            mesh->positions[v + 1] = (float)(height_scale * (double)w[0]);
            mesh->positions[v + 2] = (float)(y0 + (double)(j0 + (int64_t)j) * step);
            /* N = normalize(H (h[i-1] - h[i+1]), 2 step, H (h[j-1] - h[j+1])):
             * central differences of y = H h over x and z. */
            double nx = height_scale * ((double)w[-1] - (double)w[1]);
            double ny = 2.0 * step;
            double nz = height_scale * ((double)w[-(ptrdiff_t)side] - (double)w[side]);
            double length = sqrt(nx * nx + ny * ny + nz * nz);
            mesh->normals[v + 0] = (float)(nx / length);
            mesh->normals[v + 1] = (float)(ny / length);
            mesh->normals[v + 2] = (float)(nz / length);
        }
    }
    free(window);

    /* Two triangles per cell, counter-clockwise seen from +y: with x east
     * and z south, (i, j) -> (i, j+1) -> (i+1, j) turns left. */
    uint32_t *out = mesh->indices;
    for (size_t j = 0; j < cells; j++) {
        for (size_t i = 0; i < cells; i++) {
            uint32_t a = (uint32_t)(j * n + i), b = a + 1, c = a + (uint32_t)n, d = c + 1;
            *out++ = a;
            *out++ = c;
            *out++ = b;
            *out++ = b;
            *out++ = c;
            *out++ = d;
        }
    }
    return mesh;
}

/* ---------------------------------------------------------------- OBJ */

static int write_obj(FILE *f, const tf_mesh *m)
{
    fprintf(f, "# terrafit %s terrain tile: %zux%zu vertices, y up, normals from the "
               "(n+2)^2 border\n",
            TF_VERSION_STRING, m->n, m->n);
    fprintf(f, "o terrain\n");
    /* %.9g reads back as the same float. */
    for (size_t v = 0; v < m->vertex_count; v++)
        fprintf(f, "v %.9g %.9g %.9g\n", (double)m->positions[3 * v],
                (double)m->positions[3 * v + 1], (double)m->positions[3 * v + 2]);
    for (size_t v = 0; v < m->vertex_count; v++)
        fprintf(f, "vn %.9g %.9g %.9g\n", (double)m->normals[3 * v],
                (double)m->normals[3 * v + 1], (double)m->normals[3 * v + 2]);
    for (size_t k = 0; k < m->index_count; k += 3) {
        /* OBJ indices count from 1. */
        unsigned long a = (unsigned long)m->indices[k] + 1, b = (unsigned long)m->indices[k + 1] + 1,
                      c = (unsigned long)m->indices[k + 2] + 1;
        fprintf(f, "f %lu//%lu %lu//%lu %lu//%lu\n", a, a, b, b, c, c);
    }
    return ferror(f) ? -1 : 0;
}

/* ---------------------------------------------------------------- GLB */

/* A growing text buffer for the JSON chunk. */
typedef struct {
    char *text;
    size_t length, capacity;
    int failed;
} text_buffer;

#if defined(__GNUC__)
static void append(text_buffer *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
#endif

static void append(text_buffer *b, const char *fmt, ...)
{
    if (b->failed)
        return;
    for (;;) {
        va_list args;
        va_start(args, fmt);
        int wrote = vsnprintf(b->text + b->length, b->capacity - b->length, fmt, args);
        va_end(args);
        if (wrote < 0) {
            b->failed = 1;
            return;
        }
        if ((size_t)wrote < b->capacity - b->length) {
            b->length += (size_t)wrote;
            return;
        }
        size_t capacity = 2 * b->capacity + (size_t)wrote + 1;
        char *bigger = realloc(b->text, capacity);
        if (!bigger) {
            b->failed = 1;
            return;
        }
        b->text = bigger;
        b->capacity = capacity;
    }
}

static void put_u32(unsigned char *p, uint32_t v)
{
    p[0] = (unsigned char)v;
    p[1] = (unsigned char)(v >> 8);
    p[2] = (unsigned char)(v >> 16);
    p[3] = (unsigned char)(v >> 24);
}

/* Little-endian words, whatever the host's order (glTF is little-endian). */
static int write_u32s(FILE *f, const uint32_t *words, size_t count)
{
    unsigned char block[4096];
    size_t filled = 0;
    for (size_t k = 0; k < count; k++) {
        put_u32(block + filled, words[k]);
        filled += 4;
        if (filled == sizeof block || k + 1 == count) {
            if (fwrite(block, 1, filled, f) != filled)
                return -1;
            filled = 0;
        }
    }
    return 0;
}

static int write_floats(FILE *f, const float *values, size_t count)
{
    uint32_t words[1024];
    for (size_t start = 0; start < count; start += 1024) {
        size_t chunk = count - start < 1024 ? count - start : 1024;
        memcpy(words, values + start, chunk * sizeof *words);
        if (write_u32s(f, words, chunk) != 0)
            return -1;
    }
    return 0;
}

/* Per-component bounds of vec3 data: glTF requires them on POSITION. */
static void bounds3(const float *values, size_t count, float lo[3], float hi[3])
{
    for (int c = 0; c < 3; c++)
        lo[c] = hi[c] = values[c];
    for (size_t v = 0; v < count; v++) {
        for (int c = 0; c < 3; c++) {
            float x = values[3 * v + c];
            lo[c] = x < lo[c] ? x : lo[c];
            hi[c] = x > hi[c] ? x : hi[c];
        }
    }
}

static int write_glb(FILE *f, const tf_mesh *m, const char *path, tf_error *err)
{
    uint64_t vec3_bytes = (uint64_t)m->vertex_count * 12u;
    uint64_t index_bytes = (uint64_t)m->index_count * 4u;
    uint64_t bin_bytes = 2 * vec3_bytes + index_bytes; /* multiples of 4: no padding */
    float pmin[3], pmax[3], nmin[3], nmax[3];
    bounds3(m->positions, m->vertex_count, pmin, pmax);
    bounds3(m->normals, m->vertex_count, nmin, nmax);
    uint32_t imax = (uint32_t)(m->vertex_count - 1);

    text_buffer json = {0};
    append(&json,
           "{\"asset\":{\"version\":\"2.0\",\"generator\":\"terrafit %s\"},"
           "\"scene\":0,\"scenes\":[{\"nodes\":[0]}],"
           "\"nodes\":[{\"mesh\":0,\"name\":\"terrain\"}],"
           "\"meshes\":[{\"name\":\"terrain\",\"primitives\":[{\"attributes\":"
           "{\"POSITION\":0,\"NORMAL\":1},\"indices\":2,\"mode\":%d}]}],",
           TF_VERSION_STRING, GL_TRIANGLES);
    append(&json, "\"buffers\":[{\"byteLength\":%" PRIu64 "}],", bin_bytes);
    append(&json,
           "\"bufferViews\":["
           "{\"buffer\":0,\"byteOffset\":0,\"byteLength\":%" PRIu64 ",\"target\":%d},"
           "{\"buffer\":0,\"byteOffset\":%" PRIu64 ",\"byteLength\":%" PRIu64 ",\"target\":%d},"
           "{\"buffer\":0,\"byteOffset\":%" PRIu64 ",\"byteLength\":%" PRIu64 ",\"target\":%d}],",
           vec3_bytes, GL_ARRAY_BUFFER, vec3_bytes, vec3_bytes, GL_ARRAY_BUFFER, 2 * vec3_bytes,
           index_bytes, GL_ELEMENT_ARRAY_BUFFER);
    /* %.9g: the bounds read back as the very floats of the data. */
    for (int a = 0; a < 2; a++) {
        const float *lo = a == 0 ? pmin : nmin, *hi = a == 0 ? pmax : nmax;
        append(&json,
               "%s{\"bufferView\":%d,\"componentType\":%d,\"count\":%zu,\"type\":\"VEC3\","
               "\"min\":[%.9g,%.9g,%.9g],\"max\":[%.9g,%.9g,%.9g]}",
               a == 0 ? "\"accessors\":[" : ",", a, GL_FLOAT, m->vertex_count, (double)lo[0],
               (double)lo[1], (double)lo[2], (double)hi[0], (double)hi[1], (double)hi[2]);
    }
    append(&json,
           ",{\"bufferView\":2,\"componentType\":%d,\"count\":%zu,\"type\":\"SCALAR\","
           "\"min\":[0],\"max\":[%" PRIu32 "]}]}",
           GL_UNSIGNED_INT, m->index_count, imax);
    /* The JSON chunk is padded with spaces to a multiple of 4 bytes. */
    while (!json.failed && json.length % 4 != 0)
        append(&json, " ");
    if (json.failed) {
        free(json.text);
        tf_error_set(err, TF_ERR_NOMEM, "%s: out of memory for the glTF JSON", path);
        return -2;
    }
    uint64_t total = 12u + 8u + json.length + 8u + bin_bytes;
    if (total > UINT32_MAX) {
        free(json.text);
        tf_error_set(err, TF_ERR_LIMIT, "%s: %" PRIu64 " bytes, more than a .glb can hold (4 GiB)",
                     path, total);
        return -2;
    }
    uint32_t header[5] = {GLB_MAGIC, GLB_VERSION, (uint32_t)total, (uint32_t)json.length,
                          GLB_CHUNK_JSON};
    uint32_t bin_header[2] = {(uint32_t)bin_bytes, GLB_CHUNK_BIN};
    int failed = write_u32s(f, header, 5) != 0 ||
                 fwrite(json.text, 1, json.length, f) != json.length ||
                 write_u32s(f, bin_header, 2) != 0 ||
                 write_floats(f, m->positions, 3 * m->vertex_count) != 0 ||
                 write_floats(f, m->normals, 3 * m->vertex_count) != 0 ||
                 write_u32s(f, m->indices, m->index_count) != 0;
    int saved = errno; /* the failed write's reason, whatever free does */
    free(json.text);
    errno = saved;
    return failed ? -1 : 0;
}

int mesh_write_stream(FILE *f, const char *name, tf_mesh_format format, const tf_mesh *mesh,
                      tf_error *err)
{
    errno = 0;
    int status = format == TF_MESH_OBJ ? write_obj(f, mesh) : write_glb(f, mesh, name, err);
    if (status == -1) {
        /* errno is the failed write's (ENOSPC on a full disk); 0 only when
         * the stream's error flag was set before this call. */
        tf_error_set_write(err, name, errno);
    }
    return status == 0 ? 0 : -1;
}

int tf_mesh_write(const char *path, tf_mesh_format format, const tf_mesh *mesh, tf_error *err)
{
    if (!path || !*path || !mesh || (unsigned)format >= TF_MESH_FORMAT_COUNT ||
        mesh->n < 2 || mesh->vertex_count != mesh->n * mesh->n) {
        tf_error_set(err, TF_ERR_ARGUMENT, "%s: no file name, no mesh or an unknown format",
                     path && *path ? path : "mesh");
        return -1;
    }
    tf_atomic_file *file = tf_atomic_open(path, err);
    if (!file)
        return -1;
    if (mesh_write_stream(tf_atomic_stream(file), path, format, mesh, err) != 0) {
        tf_atomic_abort(file);
        return -1;
    }
    return tf_atomic_commit(file, err);
}
