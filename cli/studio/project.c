/*
 * terrafit studio's project folder: the spec (terrain.json), the render
 * settings (render.json), the list of references (project.json) and the
 * reference files (references/). Every path is built here from a fixed
 * name or a checked file name (no '/', no leading '.'), inside the folder
 * resolved once at start; symbolic links and anything but regular files
 * are refused, and every write is atomic (tf_write_file_atomic).
 */
#define _DEFAULT_SOURCE /* realpath, lstat, O_NOFOLLOW, sockets */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "studio_internal.h"

#define PROJECT_FILE "project.json"
#define SPEC_FILE "terrain.json"
#define SETTINGS_FILE "render.json"
#define PROJECT_FORMAT "terrafit-studio"
#define MAX_PROJECT_BYTES (64u << 10)
#define MAX_SETTINGS_BYTES STUDIO_MAX_BODY_BYTES

bool studio_name_ok(const char *name)
{
    size_t n = strlen(name);
    if (n == 0 || n > STUDIO_MAX_NAME || name[0] == '.')
        return false;
    for (size_t k = 0; k < n; k++) {
        char c = name[k];
        if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
              c == '.' || c == '_' || c == '-'))
            return false;
    }
    return true;
}

/* A PNG's size from its IHDR, checked before it is decoded: a few hundred
 * compressed bytes can claim 2^28 pixels. The other formats the library
 * reads store every cell (text or raw), so the upload limit bounds them. */
bool studio_png_too_large(const unsigned char *d, size_t n, unsigned side)
{
    static const unsigned char sig[8] = {0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n'};
    if (n < 8 || memcmp(d, sig, 8) != 0)
        return false;
    if (n < 24 || memcmp(d + 12, "IHDR", 4) != 0)
        return false; /* not a PNG the reader accepts: it says why */
    unsigned long w = (unsigned long)d[16] << 24 | (unsigned long)d[17] << 16 |
                      (unsigned long)d[18] << 8 | d[19];
    unsigned long h = (unsigned long)d[20] << 24 | (unsigned long)d[21] << 16 |
                      (unsigned long)d[22] << 8 | d[23];
    return w > side || h > side;
}

static void fail(tf_error *err, int code, const char *what, const char *why)
{
    err->code = code;
    snprintf(err->message, sizeof err->message, "%s: %s", what, why);
}

/* dir/rel, where rel is a fixed name or "references/" + a checked name. */
static int project_path(const studio *s, const char *rel, char *out, size_t size, tf_error *err)
{
    if ((size_t)snprintf(out, size, "%s/%s", s->dir, rel) >= size) {
        fail(err, TF_ERR_LIMIT, rel, "path too long");
        return -1;
    }
    return 0;
}

/* references/ exists as a real folder (made when missing), not a link. */
static int check_references_dir(const studio *s, tf_error *err)
{
    struct stat st;
    if (lstat(s->refs_dir, &st) != 0) {
        if (errno == ENOENT && mkdir(s->refs_dir, 0777) == 0)
            return 0;
        fail(err, TF_ERR_IO, s->refs_dir, strerror(errno));
        return -1;
    }
    if (!S_ISDIR(st.st_mode)) {
        fail(err, TF_ERR_IO, s->refs_dir, "not a folder (a symbolic link is refused)");
        return -1;
    }
    return 0;
}

int studio_write(studio *s, const char *rel, const void *data, size_t size, tf_error *err)
{
    char path[4096];
    struct stat st;
    if (project_path(s, rel, path, sizeof path, err) != 0)
        return -1;
    if (strncmp(rel, "references/", 11) == 0 && check_references_dir(s, err) != 0)
        return -1;
    /* rename() would replace a link rather than follow it; refusing says why. */
    if (lstat(path, &st) == 0 && !S_ISREG(st.st_mode)) {
        fail(err, TF_ERR_INVALID, rel, "exists and is not a regular file");
        return -1;
    }
    return tf_write_file_atomic(path, data, size, err);
}

char *studio_read(studio *s, const char *rel, size_t max, size_t *len, bool *missing,
                  tf_error *err)
{
    char path[4096];
    *missing = false;
    if (project_path(s, rel, path, sizeof path, err) != 0)
        return NULL;
    int fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK);
    if (fd < 0) {
        *missing = errno == ENOENT;
        fail(err, TF_ERR_IO, rel, errno == ELOOP ? "a symbolic link (refused)"
                                                            : strerror(errno));
        return NULL;
    }
    struct stat st;
    char *data = NULL;
    if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
        fail(err, TF_ERR_IO, rel, "not a regular file");
    } else if ((unsigned long long)st.st_size > max) {
        fail(err, TF_ERR_LIMIT, rel, "too large");
    } else if (!(data = malloc((size_t)st.st_size + 1))) {
        fail(err, TF_ERR_NOMEM, rel, "out of memory");
    } else {
        size_t got = 0;
        while (got < (size_t)st.st_size) {
            ssize_t n = read(fd, data + got, (size_t)st.st_size - got);
            if (n <= 0)
                break;
            got += (size_t)n;
        }
        data[got] = 0;
        *len = got;
    }
    close(fd);
    return data;
}

tf_layer_map *studio_load_reference(studio *s, const char *name, tf_error *err)
{
    char rel[STUDIO_MAX_NAME + 16], path[4096];
    struct stat st;
    if (!studio_name_ok(name)) {
        fail(err, TF_ERR_INVALID, "reference", "bad file name");
        return NULL;
    }
    snprintf(rel, sizeof rel, "references/%s", name);
    if (check_references_dir(s, err) != 0 || project_path(s, rel, path, sizeof path, err) != 0)
        return NULL;
    if (lstat(path, &st) != 0 || !S_ISREG(st.st_mode)) {
        fail(err, TF_ERR_IO, rel, "missing, or not a regular file");
        return NULL;
    }
    if ((unsigned long long)st.st_size > STUDIO_MAX_UPLOAD_BYTES) {
        fail(err, TF_ERR_LIMIT, rel, "larger than a studio reference may be");
        return NULL;
    }
    /* A file put into the folder by hand gets the upload's header check. */
    unsigned char head[24];
    FILE *f = fopen(path, "rb");
    size_t got = f ? fread(head, 1, sizeof head, f) : 0;
    if (f)
        fclose(f);
    if (studio_png_too_large(head, got, s->max_reference_side)) {
        fail(err, TF_ERR_LIMIT, rel, "a PNG larger than a studio reference may be");
        return NULL;
    }
    tf_layer_map *map = tf_layer_map_load(path, err);
    if (map && (map->width > s->max_reference_side || map->height > s->max_reference_side)) {
        tf_layer_map_free(map);
        err->code = TF_ERR_LIMIT;
        snprintf(err->message, sizeof err->message, "%s: a studio reference is at most %ux%u",
                 rel, s->max_reference_side, s->max_reference_side);
        return NULL;
    }
    return map;
}

void studio_save(studio *s, studio_response *resp)
{
    tf_error err;
    cJSON *project = cJSON_CreateObject();
    cJSON_AddStringToObject(project, "format", PROJECT_FORMAT);
    cJSON_AddNumberToObject(project, "version", 1);
    cJSON *refs = cJSON_AddArrayToObject(project, "references");
    for (size_t k = 0; k < s->ref_count; k++)
        cJSON_AddItemToArray(refs, cJSON_CreateString(s->refs[k].name));
    cJSON_AddBoolToObject(project, "autoLayered", s->auto_layered);
    char *project_text = cJSON_Print(project);
    cJSON_Delete(project);
    char *spec_text = NULL;
    cJSON *saved = cJSON_CreateArray();
    int status = 0;
    if (!project_text) {
        studio_error(resp, 500, "out of memory");
        cJSON_Delete(saved);
        return;
    }
    /* The spec exactly as `terrafit fit` writes it: the library's writer. */
    if (s->spec) {
        status = (spec_text = tf_spec_to_json(s->spec, &err)) ? 0 : -1;
        if (status == 0)
            status = studio_write(s, SPEC_FILE, spec_text, strlen(spec_text), &err);
        if (status == 0)
            cJSON_AddItemToArray(saved, cJSON_CreateString(SPEC_FILE));
    }
    if (status == 0 && s->settings) {
        status = studio_write(s, SETTINGS_FILE, s->settings, strlen(s->settings), &err);
        if (status == 0)
            cJSON_AddItemToArray(saved, cJSON_CreateString(SETTINGS_FILE));
    }
    if (status == 0) {
        status = studio_write(s, PROJECT_FILE, project_text, strlen(project_text), &err);
        if (status == 0)
            cJSON_AddItemToArray(saved, cJSON_CreateString(PROJECT_FILE));
    }
    free(project_text);
    free(spec_text);
    if (status != 0) {
        cJSON_Delete(saved);
        studio_error(resp, err.code == TF_ERR_INVALID ? 409 : 500, "%s", err.message);
        return;
    }
    cJSON *body = cJSON_CreateObject();
    cJSON_AddItemToObject(body, "saved", saved);
    studio_json(resp, 200, body);
}

/* Read what the folder holds into fresh state, then swap it in: a project
 * that fails to load leaves the session as it was. */
int studio_load_project(studio *s, tf_error *err)
{
    studio_reference refs[STUDIO_MAX_REFERENCES];
    size_t ref_count = 0;
    bool auto_layered = false, missing;
    size_t len;
    tf_spec *spec = NULL;
    char *settings = NULL;
    char *text = studio_read(s, PROJECT_FILE, MAX_PROJECT_BYTES, &len, &missing, err);
    if (!text && !missing)
        return -1;
    if (text) {
        cJSON *doc = cJSON_ParseWithLength(text, len);
        free(text);
        cJSON *format = cJSON_GetObjectItemCaseSensitive(doc, "format");
        cJSON *list = cJSON_GetObjectItemCaseSensitive(doc, "references");
        if (!cJSON_IsString(format) || strcmp(format->valuestring, PROJECT_FORMAT) != 0 ||
            !cJSON_IsArray(list) || cJSON_GetArraySize(list) > STUDIO_MAX_REFERENCES) {
            cJSON_Delete(doc);
            fail(err, TF_ERR_INVALID, PROJECT_FILE,
                 "not a terrafit studio project (format, references)");
            return -1;
        }
        auto_layered = cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(doc, "autoLayered"));
        cJSON *item;
        cJSON_ArrayForEach(item, list)
        {
            if (!cJSON_IsString(item) ||
                !(refs[ref_count].map = studio_load_reference(s, item->valuestring, err))) {
                if (cJSON_IsString(item) == 0)
                    fail(err, TF_ERR_INVALID, PROJECT_FILE,
                         "a reference is not a file name");
                for (size_t k = 0; k < ref_count; k++)
                    tf_layer_map_free(refs[k].map);
                cJSON_Delete(doc);
                return -1;
            }
            snprintf(refs[ref_count].name, sizeof refs[ref_count].name, "%s", item->valuestring);
            ref_count++;
        }
        cJSON_Delete(doc);
    }
    text = studio_read(s, SPEC_FILE, TF_MAX_SPEC_BYTES, &len, &missing, err);
    if (text) {
        spec = tf_spec_parse(text, len, SPEC_FILE, err);
        free(text);
    }
    if ((!text && !missing) || (text && !spec))
        goto failed;
    text = studio_read(s, SETTINGS_FILE, MAX_SETTINGS_BYTES, &len, &missing, err);
    if (text) {
        cJSON *doc = cJSON_ParseWithLength(text, len);
        bool object = cJSON_IsObject(doc);
        cJSON_Delete(doc);
        if (!object) {
            free(text);
            fail(err, TF_ERR_INVALID, SETTINGS_FILE, "not a JSON object");
            goto failed;
        }
        settings = text;
    } else if (!missing) {
        goto failed;
    }
    tf_terrain *terrain = NULL;
    if (spec && !(terrain = tf_terrain_compile(spec, err)))
        goto failed;
    for (size_t k = 0; k < s->ref_count; k++)
        tf_layer_map_free(s->refs[k].map);
    memcpy(s->refs, refs, ref_count * sizeof refs[0]);
    s->ref_count = ref_count;
    s->auto_layered = auto_layered;
    tf_spec_free(s->spec);
    tf_terrain_free(s->terrain);
    s->spec = spec;
    s->terrain = terrain;
    free(s->settings);
    s->settings = settings;
    studio_clear_history(s);
    return 0;
failed:
    for (size_t k = 0; k < ref_count; k++)
        tf_layer_map_free(refs[k].map);
    tf_spec_free(spec);
    free(settings);
    return -1;
}
