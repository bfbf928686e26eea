/*
 * Check suite for terrain meshes (thesis 5.5): counts, heights from the
 * sample window, normals (unit, upward, the thesis's formula against the
 * mesh's own neighbours), counter-clockwise winding, tiles that share edge
 * vertices and normals bit for bit, OBJ read back, and the .glb container
 * and its glTF JSON checked field by field.
 */
#define _DEFAULT_SOURCE
#include <check.h>
#include <cjson/cJSON.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <dirent.h>
#include <signal.h>
#include <sys/resource.h>

#include "render/mesh_internal.h"
#include "terrafit/terrafit.h"
#include "testutil.h"

/* Two layers with relief at a few samples: normals vary from vertex to vertex. */
static const char SPEC[] =
    "{\"format\": \"terrafit-terrain\", \"version\": 1, \"seed\": 7,"
    " \"noiseLayers\": ["
    "  {\"baseNoise\": {\"frequency\": 0.05},"
    "   \"rd\": {\"points\": [{\"x\": 0, \"y\": 0}, {\"x\": 1, \"y\": 1}]}, \"preAmpShift\": -0.5},"
    "  {\"baseNoise\": {\"frequency\": 0.3},"
    "   \"rd\": {\"points\": [{\"x\": 0, \"y\": 0}, {\"x\": 1, \"y\": 1}]}, \"preAmpShift\": -0.5,"
    "   \"ampScale\": 0.2}]}";

static tf_terrain *terrain;
static char *scratch;

static void setup(void)
{
    tf_error err;
    terrain = tf_terrain_parse(SPEC, sizeof SPEC - 1, &err);
    ck_assert_msg(terrain != NULL, "%s", err.message);
    scratch = tu_mkdtemp();
    ck_assert_ptr_nonnull(scratch);
}

static void teardown(void)
{
    tf_terrain_free(terrain);
    tu_rmtree(scratch);
    free(scratch);
}

/* An origin and a step that are not binary fractions. */
#define X0 (-3.3)
#define Y0 7.1
#define STEP 0.37
#define HSCALE 25.0

static tf_mesh *build(size_t n, int64_t tx, int64_t ty)
{
    tf_error err;
    tf_mesh *m = tf_mesh_build(terrain, X0, Y0, STEP, n, tx, ty, HSCALE, &err);
    ck_assert_msg(m != NULL, "%s", err.message);
    return m;
}

START_TEST(counts_positions_and_heights)
{
    const size_t n = 7;
    tf_mesh *m = build(n, 2, -3);
    ck_assert_uint_eq(m->n, n);
    ck_assert_uint_eq(m->vertex_count, n * n);
    ck_assert_uint_eq(m->index_count, 6 * (n - 1) * (n - 1));
    /* Heights are the window's samples at the tile's lattice indices. */
    float window[7 * 7];
    tf_terrain_sample_window(terrain, X0, Y0, STEP, 2 * 6, -3 * 6, n, n, window);
    for (size_t j = 0; j < n; j++) {
        for (size_t i = 0; i < n; i++) {
            const float *p = m->positions + 3 * (j * n + i);
            ck_assert_float_eq(p[0], (float)(X0 + (double)(12 + (int64_t)i) * STEP));
            ck_assert_float_eq(p[1], (float)(HSCALE * (double)window[j * n + i]));
            ck_assert_float_eq(p[2], (float)(Y0 + (double)(-18 + (int64_t)j) * STEP));
        }
    }
    for (size_t k = 0; k < m->index_count; k++)
        ck_assert_uint_lt(m->indices[k], m->vertex_count);
    tf_mesh_free(m);
}
END_TEST

START_TEST(normals_are_unit_upward_and_match_the_surface)
{
    const size_t n = 17;
    tf_mesh *m = build(n, 0, 0);
    double steepest = 0.0;
    for (size_t v = 0; v < m->vertex_count; v++) {
        const float *q = m->normals + 3 * v;
        double length = sqrt((double)q[0] * q[0] + (double)q[1] * q[1] + (double)q[2] * q[2]);
        ck_assert_double_eq_tol(length, 1.0, 1e-6);
        ck_assert_float_gt(q[1], 0.0f);
        steepest = fmax(steepest, acos((double)q[1]));
    }
    ck_assert_double_gt(steepest, 0.2); /* the test terrain is not flat */
    /* Inside the tile, the normal is the cross product of the mesh's own
     * central differences along z and x, normalized. */
    for (size_t j = 1; j + 1 < n; j++) {
        for (size_t i = 1; i + 1 < n; i++) {
            const float *p = m->positions;
            double tx[3], tz[3], c[3];
            for (int k = 0; k < 3; k++) {
                tx[k] = (double)p[3 * (j * n + i + 1) + k] - (double)p[3 * (j * n + i - 1) + k];
                tz[k] = (double)p[3 * ((j + 1) * n + i) + k] - (double)p[3 * ((j - 1) * n + i) + k];
            }
            c[0] = tz[1] * tx[2] - tz[2] * tx[1];
            c[1] = tz[2] * tx[0] - tz[0] * tx[2];
            c[2] = tz[0] * tx[1] - tz[1] * tx[0];
            double length = sqrt(c[0] * c[0] + c[1] * c[1] + c[2] * c[2]);
            for (int k = 0; k < 3; k++)
                ck_assert_double_eq_tol(m->normals[3 * (j * n + i) + k], c[k] / length, 2e-5);
        }
    }
    tf_mesh_free(m);
    /* Height scale 0: a flat plane, straight-up normals. */
    tf_error err;
    m = tf_mesh_build(terrain, X0, Y0, STEP, 4, 0, 0, 0.0, &err);
    ck_assert_ptr_nonnull(m);
    for (size_t v = 0; v < m->vertex_count; v++) {
        ck_assert_float_eq(m->positions[3 * v + 1], 0.0f);
        ck_assert_float_eq(m->normals[3 * v + 0], 0.0f);
        ck_assert_float_eq(m->normals[3 * v + 1], 1.0f);
        ck_assert_float_eq(m->normals[3 * v + 2], 0.0f);
    }
    tf_mesh_free(m);
}
END_TEST

START_TEST(triangles_wind_counter_clockwise_from_above)
{
    tf_mesh *m = build(9, -1, 4);
    for (size_t k = 0; k < m->index_count; k += 3) {
        const float *a = m->positions + 3 * m->indices[k], *b = m->positions + 3 * m->indices[k + 1],
                    *c = m->positions + 3 * m->indices[k + 2];
        double e1[3], e2[3];
        for (int d = 0; d < 3; d++) {
            e1[d] = (double)b[d] - (double)a[d];
            e2[d] = (double)c[d] - (double)a[d];
        }
        /* The y of e1 x e2: positive when the triangle faces up. */
        ck_assert_double_gt(e1[2] * e2[0] - e1[0] * e2[2], 0.0);
    }
    /* Each cell is split along its (i+1, j)-(i, j+1) diagonal, so the
     * corners (0, 0) and (n-1, n-1) touch one triangle, the other two
     * corners two, and inner vertices six. */
    int *used = calloc(m->vertex_count, sizeof *used);
    for (size_t k = 0; k < m->index_count; k++)
        used[m->indices[k]]++;
    ck_assert_int_eq(used[0], 1);
    ck_assert_int_eq(used[8], 2);
    ck_assert_int_eq(used[72], 2);
    ck_assert_int_eq(used[80], 1);
    ck_assert_int_eq(used[10], 6);
    free(used);
    tf_mesh_free(m);
}
END_TEST

/* Tiles of n vertices are windows of one big tile of 2n - 1: every vertex,
 * edges included, bit for bit, positions and normals. */
START_TEST(adjacent_tiles_share_edge_vertices_and_normals)
{
    const size_t n = 9, big_n = 2 * n - 1;
    const int64_t bx = 3, by = -2; /* the big tile's first vertex index is (48, -32) */
    tf_mesh *big = build(big_n, bx, by);
    for (int64_t ty = 0; ty < 2; ty++) {
        for (int64_t tx = 0; tx < 2; tx++) {
            /* Small tile (2 bx + tx, 2 by + ty) starts at index (16 bx + 8 tx, ...). */
            tf_mesh *m = build(n, 2 * bx + tx, 2 * by + ty);
            for (size_t j = 0; j < n; j++) {
                for (size_t i = 0; i < n; i++) {
                    size_t v = j * n + i;
                    size_t w = (j + (size_t)ty * (n - 1)) * big_n + i + (size_t)tx * (n - 1);
                    ck_assert_mem_eq(m->positions + 3 * v, big->positions + 3 * w,
                                     3 * sizeof(float));
                    ck_assert_mem_eq(m->normals + 3 * v, big->normals + 3 * w, 3 * sizeof(float));
                }
            }
            tf_mesh_free(m);
        }
    }
    /* Hence neighbours agree on their shared edge. */
    tf_mesh *left = build(n, 0, 0), *right = build(n, 1, 0), *below = build(n, 0, 1);
    for (size_t k = 0; k < n; k++) {
        size_t edge_r = k * n + (n - 1), edge_l = k * n;
        ck_assert_mem_eq(left->positions + 3 * edge_r, right->positions + 3 * edge_l, 12);
        ck_assert_mem_eq(left->normals + 3 * edge_r, right->normals + 3 * edge_l, 12);
        size_t edge_b = (n - 1) * n + k, edge_t = k;
        ck_assert_mem_eq(left->positions + 3 * edge_b, below->positions + 3 * edge_t, 12);
        ck_assert_mem_eq(left->normals + 3 * edge_b, below->normals + 3 * edge_t, 12);
    }
    tf_mesh_free(left), tf_mesh_free(right), tf_mesh_free(below), tf_mesh_free(big);
}
END_TEST

START_TEST(obj_reads_back_as_the_mesh)
{
    const size_t n = 5;
    tf_mesh *m = build(n, 1, 1);
    const char *path = tu_path("%s/tile.obj", scratch);
    tf_error err;
    ck_assert_int_eq(tf_mesh_write(path, TF_MESH_OBJ, m, &err), 0);
    FILE *f = fopen(path, "r");
    ck_assert_ptr_nonnull(f);
    char line[256];
    size_t v = 0, vn = 0, faces = 0;
    while (fgets(line, sizeof line, f)) {
        float a, b, c;
        unsigned long i[6];
        if (sscanf(line, "v %f %f %f", &a, &b, &c) == 3 && line[1] == ' ') {
            ck_assert_uint_lt(v, m->vertex_count);
            ck_assert_float_eq(a, m->positions[3 * v]);
            ck_assert_float_eq(b, m->positions[3 * v + 1]);
            ck_assert_float_eq(c, m->positions[3 * v + 2]);
            v++;
        } else if (sscanf(line, "vn %f %f %f", &a, &b, &c) == 3) {
            ck_assert_uint_lt(vn, m->vertex_count);
            ck_assert_float_eq(a, m->normals[3 * vn]);
            ck_assert_float_eq(b, m->normals[3 * vn + 1]);
            ck_assert_float_eq(c, m->normals[3 * vn + 2]);
            vn++;
        } else if (sscanf(line, "f %lu//%lu %lu//%lu %lu//%lu", &i[0], &i[1], &i[2], &i[3], &i[4],
                          &i[5]) == 6) {
            for (int k = 0; k < 3; k++) {
                ck_assert_uint_eq(i[2 * k], i[2 * k + 1]);
                ck_assert_uint_eq(i[2 * k], (unsigned long)m->indices[3 * faces + k] + 1);
            }
            faces++;
        } else {
            ck_assert_msg(line[0] == '#' || line[0] == 'o', "unexpected line: %s", line);
        }
    }
    fclose(f);
    ck_assert_uint_eq(v, n * n);
    ck_assert_uint_eq(vn, n * n);
    ck_assert_uint_eq(faces, 2 * (n - 1) * (n - 1));
    tf_mesh_free(m);
}
END_TEST

static uint32_t u32_at(const unsigned char *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static const cJSON *member(const cJSON *object, const char *key)
{
    const cJSON *item = cJSON_GetObjectItemCaseSensitive(object, key);
    ck_assert_msg(item != NULL, "no \"%s\"", key);
    return item;
}

static double number(const cJSON *object, const char *key)
{
    const cJSON *item = member(object, key);
    ck_assert_msg(cJSON_IsNumber(item), "\"%s\" is not a number", key);
    return item->valuedouble;
}

/* An accessor's min and max equal the bounds of its data, per component. */
static void check_bounds(const cJSON *accessor, const unsigned char *data, size_t count,
                         int components, int is_float)
{
    const cJSON *min = member(accessor, "min"), *max = member(accessor, "max");
    ck_assert_int_eq(cJSON_GetArraySize(min), components);
    ck_assert_int_eq(cJSON_GetArraySize(max), components);
    for (int c = 0; c < components; c++) {
        double lo = INFINITY, hi = -INFINITY;
        for (size_t k = 0; k < count; k++) {
            uint32_t word = u32_at(data + 4 * (k * (size_t)components + (size_t)c));
            double x;
            if (is_float) {
                float f;
                memcpy(&f, &word, 4);
                x = f;
            } else {
                x = word;
            }
            lo = fmin(lo, x);
            hi = fmax(hi, x);
        }
        /* Written with %.9g: the same float when read back. */
        ck_assert_float_eq((float)cJSON_GetArrayItem(min, c)->valuedouble, (float)lo);
        ck_assert_float_eq((float)cJSON_GetArrayItem(max, c)->valuedouble, (float)hi);
    }
}

START_TEST(glb_container_and_gltf_json_are_valid)
{
    const size_t n = 6;
    tf_mesh *m = build(n, -1, 2);
    const char *path = tu_path("%s/tile.glb", scratch);
    tf_error err;
    ck_assert_int_eq(tf_mesh_write(path, TF_MESH_GLB, m, &err), 0);
    size_t size;
    unsigned char *glb = (unsigned char *)tu_read_file(path, &size);
    ck_assert_ptr_nonnull(glb);
    /* Header: magic, version 2, total length. */
    ck_assert_uint_ge(size, 28);
    ck_assert_mem_eq(glb, "glTF", 4);
    ck_assert_uint_eq(u32_at(glb + 4), 2);
    ck_assert_uint_eq(u32_at(glb + 8), size);
    ck_assert_uint_eq(size % 4, 0);
    /* Chunk 0: JSON, padded with spaces to 4 bytes. */
    uint32_t json_length = u32_at(glb + 12);
    ck_assert_mem_eq(glb + 16, "JSON", 4);
    ck_assert_uint_eq(json_length % 4, 0);
    ck_assert_uint_le(20 + (size_t)json_length + 8, size);
    /* Chunk 1: BIN, the rest of the file. */
    const unsigned char *bin_header = glb + 20 + json_length;
    uint32_t bin_length = u32_at(bin_header);
    ck_assert_mem_eq(bin_header + 4, "BIN\0", 4);
    ck_assert_uint_eq(28 + (size_t)json_length + bin_length, size);
    const unsigned char *bin = bin_header + 8;

    cJSON *root = cJSON_ParseWithLength((const char *)glb + 20, json_length);
    ck_assert_msg(root != NULL, "the JSON chunk does not parse");
    ck_assert_str_eq(member(member(root, "asset"), "version")->valuestring, "2.0");
    const cJSON *primitive =
        cJSON_GetArrayItem(member(cJSON_GetArrayItem(member(root, "meshes"), 0), "primitives"), 0);
    ck_assert_ptr_nonnull(primitive);
    ck_assert_double_eq(number(primitive, "mode"), 4); /* triangles */
    const cJSON *attributes = member(primitive, "attributes");
    int position = (int)number(attributes, "POSITION"), normal = (int)number(attributes, "NORMAL"),
        indices = (int)number(primitive, "indices");
    const cJSON *buffers = member(root, "buffers");
    ck_assert_int_eq(cJSON_GetArraySize(buffers), 1);
    ck_assert_double_eq(number(cJSON_GetArrayItem(buffers, 0), "byteLength"), bin_length);
    const cJSON *views = member(root, "bufferViews"), *accessors = member(root, "accessors");
    struct {
        int accessor;
        int component_type;
        const char *type;
        size_t count;
        const void *want;
        size_t want_bytes;
    } expected[3] = {
        {position, 5126, "VEC3", m->vertex_count, m->positions, 12 * m->vertex_count},
        {normal, 5126, "VEC3", m->vertex_count, m->normals, 12 * m->vertex_count},
        {indices, 5125, "SCALAR", m->index_count, m->indices, 4 * m->index_count},
    };
    for (int e = 0; e < 3; e++) {
        const cJSON *a = cJSON_GetArrayItem(accessors, expected[e].accessor);
        ck_assert_ptr_nonnull(a);
        ck_assert_double_eq(number(a, "componentType"), expected[e].component_type);
        ck_assert_str_eq(member(a, "type")->valuestring, expected[e].type);
        ck_assert_double_eq(number(a, "count"), (double)expected[e].count);
        const cJSON *view = cJSON_GetArrayItem(views, (int)number(a, "bufferView"));
        ck_assert_ptr_nonnull(view);
        ck_assert_double_eq(number(view, "buffer"), 0);
        double offset = number(view, "byteOffset"), length = number(view, "byteLength");
        ck_assert_double_eq(fmod(offset, 4.0), 0.0); /* 4-byte alignment */
        ck_assert_double_eq(length, (double)expected[e].want_bytes);
        ck_assert_double_le(offset + length, bin_length);
        const unsigned char *data = bin + (size_t)offset;
        /* Little-endian data equal to the mesh (this host order or not). */
        for (size_t k = 0; k < expected[e].want_bytes / 4; k++) {
            uint32_t want;
            memcpy(&want, (const unsigned char *)expected[e].want + 4 * k, 4);
            ck_assert_uint_eq(u32_at(data + 4 * k), want);
        }
        check_bounds(a, data, expected[e].count, e < 2 ? 3 : 1, e < 2);
    }
    cJSON_Delete(root);
    free(glb);
    tf_mesh_free(m);
}
END_TEST

START_TEST(formats_and_bad_arguments)
{
    tf_mesh_format format;
    ck_assert_int_eq(tf_mesh_format_from_path("a/b.obj", &format), 0);
    ck_assert_int_eq(format, TF_MESH_OBJ);
    ck_assert_int_eq(tf_mesh_format_from_path("B.GLB", &format), 0);
    ck_assert_int_eq(format, TF_MESH_GLB);
    ck_assert_int_eq(tf_mesh_format_from_path("b.gltf", &format), -1);
    ck_assert_int_eq(tf_mesh_format_from_path("obj", &format), -1);
    ck_assert_int_eq(tf_mesh_format_from_path("dir.obj/file", &format), -1);
    ck_assert_int_eq(tf_mesh_format_from_path(NULL, &format), -1);
    ck_assert_str_eq(tf_mesh_format_name(TF_MESH_GLB), "glb");
    ck_assert_ptr_null(tf_mesh_format_name(TF_MESH_FORMAT_COUNT));
    ck_assert_int_eq(tf_mesh_format_from_name("stl", &format), -1);

    tf_error err;
    ck_assert_ptr_null(tf_mesh_build(NULL, 0, 0, 1, 4, 0, 0, 1, &err));
    ck_assert_ptr_null(tf_mesh_build(terrain, 0, 0, 1, 1, 0, 0, 1, &err));
    ck_assert_int_eq(err.code, TF_ERR_ARGUMENT);
    ck_assert_ptr_null(tf_mesh_build(terrain, 0, 0, 1, TF_MESH_MAX_SIDE + 1, 0, 0, 1, &err));
    ck_assert_ptr_null(tf_mesh_build(terrain, 0, 0, 0.0, 4, 0, 0, 1, &err));
    ck_assert_ptr_null(tf_mesh_build(terrain, 0, 0, -1.0, 4, 0, 0, 1, &err));
    ck_assert_ptr_null(tf_mesh_build(terrain, NAN, 0, 1, 4, 0, 0, 1, &err));
    ck_assert_ptr_null(tf_mesh_build(terrain, 0, INFINITY, 1, 4, 0, 0, 1, &err));
    ck_assert_ptr_null(tf_mesh_build(terrain, 0, 0, 1, 4, 0, 0, NAN, &err));
    ck_assert_ptr_null(tf_mesh_build(terrain, 0, 0, 1, 4, TF_MESH_MAX_TILE + 1, 0, 1, &err));
    ck_assert_ptr_null(tf_mesh_build(terrain, 0, 0, 1, 4, 0, -TF_MESH_MAX_TILE - 1, 1, &err));

    /* Nothing is left behind by a failed write. */
    tf_mesh *m = build(3, 0, 0);
    ck_assert_int_eq(tf_mesh_write(tu_path("%s/none/x.obj", scratch), TF_MESH_OBJ, m, &err), -1);
    ck_assert_int_eq(tf_mesh_write(tu_path("%s/x.obj", scratch), TF_MESH_FORMAT_COUNT, m, &err),
                     -1);
    ck_assert_int_eq(tf_mesh_write("", TF_MESH_OBJ, m, &err), -1);
    ck_assert_int_eq(tf_mesh_write(tu_path("%s/x.obj", scratch), TF_MESH_OBJ, NULL, &err), -1);
    size_t len;
    char *gone = tu_read_file(tu_path("%s/x.obj", scratch), &len);
    ck_assert_ptr_null(gone);
    tf_mesh_free(m);
    tf_mesh_free(NULL);
}
END_TEST

START_TEST(write_failures_give_the_reason)
{
    /* A full device fails mid-stream: the message names the file and the
     * system's reason, for both formats. */
    tf_mesh *m = build(40, 0, 0);
    tf_error err;
    FILE *f = fopen("/dev/full", "wb");
    if (f) {
        setvbuf(f, NULL, _IONBF, 0);
        for (int format = 0; format < TF_MESH_FORMAT_COUNT; format++) {
            clearerr(f);
            const char *name = format == TF_MESH_OBJ ? "full.obj" : "full.glb";
            ck_assert_int_eq(mesh_write_stream(f, name, (tf_mesh_format)format, m, &err), -1);
            ck_assert_int_eq(err.code, TF_ERR_IO);
            ck_assert_msg(strstr(err.message, name) == err.message &&
                              strstr(err.message, ": cannot write file: No space left on device"),
                          "%s", err.message);
        }
        fclose(f);
    }
    /* Through tf_mesh_write, a file size limit (EFBIG, as ENOSPC would be)
     * is reported with its reason and leaves no file, temporary or not. */
    signal(SIGXFSZ, SIG_IGN);
    struct rlimit lim = {1000, 1000};
    ck_assert_int_eq(setrlimit(RLIMIT_FSIZE, &lim), 0);
    for (int format = 0; format < TF_MESH_FORMAT_COUNT; format++) {
        const char *path = tu_path("%s/big.%s", scratch, format == TF_MESH_OBJ ? "obj" : "glb");
        ck_assert_int_eq(tf_mesh_write(path, (tf_mesh_format)format, m, &err), -1);
        ck_assert_msg(strstr(err.message, ": cannot write file: File too large"), "%s",
                      err.message);
    }
    DIR *d = opendir(scratch);
    ck_assert_ptr_nonnull(d);
    struct dirent *e;
    while ((e = readdir(d)))
        ck_assert_msg(strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0,
                      "left behind: %s", e->d_name);
    closedir(d);
    tf_mesh_free(m);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("mesh");
    TCase *tc = tcase_create("mesh");
    tcase_add_checked_fixture(tc, setup, teardown);
    tcase_add_test(tc, counts_positions_and_heights);
    tcase_add_test(tc, normals_are_unit_upward_and_match_the_surface);
    tcase_add_test(tc, triangles_wind_counter_clockwise_from_above);
    tcase_add_test(tc, adjacent_tiles_share_edge_vertices_and_normals);
    tcase_add_test(tc, obj_reads_back_as_the_mesh);
    tcase_add_test(tc, glb_container_and_gltf_json_are_valid);
    tcase_add_test(tc, formats_and_bad_arguments);
    tcase_add_test(tc, write_failures_give_the_reason);
    suite_add_tcase(s, tc);
    return tu_run_suite(s);
}
