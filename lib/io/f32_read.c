/*
 * Raw float32 heightmaps: the data file holds width * height little-endian
 * IEEE floats, row 0 first; its JSON sidecar (PATH.json, docs/formats.md)
 * gives the size and the georeferencing. Read back exactly as stored.
 */
#include <cjson/cJSON.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "io/heightmap_internal.h"
#include "base/error.h"

/* The sidecar is a few hundred bytes; anything much larger is not one. */
#define MAX_SIDECAR_BYTES ((size_t)1 << 20)

/* A member that must be a whole number in [1, TF_MAX_IMAGE_SIDE]. */
static int sidecar_size(const char *sidecar, const cJSON *root, const char *key, uint64_t *out,
                        tf_error *err)
{
    const cJSON *item = cJSON_GetObjectItemCaseSensitive(root, key);
    if (!cJSON_IsNumber(item) || !(item->valuedouble >= 1.0) ||
        item->valuedouble > (double)TF_MAX_IMAGE_SIDE ||
        item->valuedouble != floor(item->valuedouble)) {
        tf_error_set(err, TF_ERR_INVALID, "%s: $.%s must be an integer from 1 to %u", sidecar, key,
                     TF_MAX_IMAGE_SIDE);
        return -1;
    }
    *out = (uint64_t)item->valuedouble;
    return 0;
}

/* An optional string member that, when present, must say `expected`. */
static int sidecar_says(const char *sidecar, const cJSON *root, const char *key,
                        const char *expected, tf_error *err)
{
    const cJSON *item = cJSON_GetObjectItemCaseSensitive(root, key);
    if (item && !(cJSON_IsString(item) && strcmp(item->valuestring, expected) == 0)) {
        tf_error_set(err, TF_ERR_INVALID, "%s: $.%s must be \"%s\" (the only one terrafit reads)",
                     sidecar, key, expected);
        return -1;
    }
    return 0;
}

static float float_from_le(const unsigned char *p)
{
    uint32_t bits = (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
                    (uint32_t)p[3] << 24;
    float v;
    memcpy(&v, &bits, sizeof v);
    return v;
}

tf_heightmap *io_f32_read(const char *path, tf_error *err)
{
    size_t name_size = strlen(path) + sizeof ".json";
    char *sidecar = malloc(name_size);
    if (!sidecar) {
        tf_error_set(err, TF_ERR_NOMEM, "%s: out of memory", path);
        return NULL;
    }
    tf_heightmap_sidecar_path(path, sidecar, name_size);
    tf_heightmap *map = NULL;
    unsigned char *data = NULL;
    cJSON *root = NULL;
    size_t size;
    unsigned char *text =
        io_read_file(sidecar, MAX_SIDECAR_BYTES, "a sidecar", &size, err);
    if (!text)
        goto done;
    const char *stop = NULL;
    root = cJSON_ParseWithLengthOpts((const char *)text, size, &stop, 0);
    size_t stop_at = stop ? (size_t)(stop - (const char *)text) : 0;
    free(text);
    if (!root) {
        /* Not "not an object": the text is not JSON at all (or nested past
         * cJSON's limit), and the byte says where it stops being JSON. */
        tf_error_set(err, TF_ERR_PARSE, "%s: the f32 sidecar is not valid JSON (at byte %zu)",
                     sidecar, stop_at);
        goto done;
    }
    if (!cJSON_IsObject(root)) {
        tf_error_set(err, TF_ERR_PARSE, "%s: the f32 sidecar is not a JSON object", sidecar);
        goto done;
    }
    uint64_t width, height;
    if (sidecar_size(sidecar, root, "width", &width, err) != 0 ||
        sidecar_size(sidecar, root, "height", &height, err) != 0 ||
        sidecar_says(sidecar, root, "sampleType", "float32", err) != 0 ||
        sidecar_says(sidecar, root, "byteOrder", "little-endian", err) != 0 ||
        sidecar_says(sidecar, root, "rowOrder", "top-to-bottom", err) != 0)
        goto done;
    /* The data's byte count is compared before the map is allocated: a
     * sidecar claiming a huge size costs nothing until the file holds it. */
    if (io_heightmap_check(path, width, height, err) != 0)
        goto done;
    size_t n = (size_t)(width * height);
    data = io_read_file(path, n * 4, "the size its sidecar gives", &size, err);
    if (!data)
        goto done;
    if (size != n * 4) {
        tf_error_set(err, TF_ERR_PARSE, "%s: %zu bytes, but the sidecar's %zux%zu floats need %zu",
                     path, size, (size_t)width, (size_t)height, n * 4);
        goto done;
    }
    map = io_heightmap_alloc(path, width, height, err);
    if (!map)
        goto done;
    for (size_t k = 0; k < n; k++)
        map->values[k] = float_from_le(data + 4 * k);
    /* Georeferencing is optional: both origin and step, finite, step > 0. */
    const cJSON *origin = cJSON_GetObjectItemCaseSensitive(root, "origin");
    const cJSON *step = cJSON_GetObjectItemCaseSensitive(root, "step");
    if (cJSON_IsArray(origin) && cJSON_GetArraySize(origin) == 2 && cJSON_IsNumber(step) &&
        cJSON_IsNumber(cJSON_GetArrayItem(origin, 0)) &&
        cJSON_IsNumber(cJSON_GetArrayItem(origin, 1)) && isfinite(step->valuedouble) &&
        step->valuedouble > 0.0) {
        map->georeferenced = 1;
        map->origin_x = cJSON_GetArrayItem(origin, 0)->valuedouble;
        map->origin_y = cJSON_GetArrayItem(origin, 1)->valuedouble;
        map->step = step->valuedouble;
    }
done:
    cJSON_Delete(root);
    free(data);
    free(sidecar);
    return map;
}
