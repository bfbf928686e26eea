/*
 * terrafit studio's JSON API: checks every request (Host, Origin, session
 * token, method, limits) before it reaches the session's state, then
 * dispatches it. The library does the work (fitting, the spec's reader and
 * writer, sampling); this file only translates. docs/studio.md lists the
 * endpoints and the security model.
 */
#define _DEFAULT_SOURCE /* realpath, lstat, O_NOFOLLOW, sockets */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "studio_internal.h"
#include "terrafit/shader.h"
#include "terrafit/fit.h"

/* ================================================================ answers */

void studio_bytes(studio_response *resp, const char *content_type, unsigned char *data, size_t len)
{
    resp->status = 200;
    resp->content_type = content_type;
    resp->body = data;
    resp->len = len;
    resp->body_static = false;
}

static void answer_text(studio_response *resp, unsigned status, char *text)
{
    resp->status = status;
    resp->content_type = "application/json";
    resp->body = (unsigned char *)text;
    resp->len = text ? strlen(text) : 0;
    resp->body_static = false;
}

/* A fixed answer for when even building the answer ran out of memory. */
static void answer_no_memory(studio_response *resp)
{
    static const char text[] = "{\"error\":\"out of memory\"}";
    resp->status = 500;
    resp->content_type = "application/json";
    resp->body = (unsigned char *)text;
    resp->len = sizeof text - 1;
    resp->body_static = true;
}

void studio_json(studio_response *resp, unsigned status, cJSON *body)
{
    char *text = body ? cJSON_PrintUnformatted(body) : NULL;
    cJSON_Delete(body);
    if (!text) {
        answer_no_memory(resp);
        return;
    }
    answer_text(resp, status, text);
}

void studio_error(studio_response *resp, unsigned status, const char *fmt, ...)
{
    char message[320];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(message, sizeof message, fmt, ap);
    va_end(ap);
    cJSON *body = cJSON_CreateObject();
    if (!body || !cJSON_AddStringToObject(body, "error", message)) {
        cJSON_Delete(body);
        answer_no_memory(resp);
        return;
    }
    studio_json(resp, status, body);
}

void studio_response_free(studio_response *resp)
{
    if (!resp->body_static)
        free(resp->body);
    resp->body = NULL;
}

/* {"ok": true}: done, nothing more to say. */
static void answer_ok(studio_response *resp)
{
    cJSON *body = cJSON_CreateObject();
    cJSON_AddBoolToObject(body, "ok", 1);
    studio_json(resp, 200, body);
}

/* A library error as an answer: limits and bad input are the client's
 * fault (4xx), running out of memory or disk is ours (5xx). */
static void answer_tf_error(studio_response *resp, const tf_error *err)
{
    unsigned status = err->code == TF_ERR_NOMEM ? 500 : err->code == TF_ERR_LIMIT ? 413
                      : err->code == TF_ERR_IO ? 500 : 400;
    studio_error(resp, status, "%s", err->message);
}

/* ====================================================== query arguments */

static const char *arg(const studio_request *req, const char *key)
{
    return req->arg ? req->arg(req->arg_user, key) : NULL;
}

bool studio_arg_double(const studio_request *req, studio_response *resp, const char *key,
                       double fallback, double lo, double hi, double *out)
{
    const char *text = arg(req, key);
    if (!text) {
        *out = fallback;
        return true;
    }
    char *end;
    errno = 0;
    double v = strtod(text, &end);
    if (end == text || *end || errno || !isfinite(v) || v < lo || v > hi) {
        studio_error(resp, 400, "argument %s: expected a number from %g to %g", key, lo, hi);
        return false;
    }
    *out = v;
    return true;
}

bool studio_arg_size(const studio_request *req, studio_response *resp, const char *key,
                     size_t fallback, size_t lo, size_t hi, size_t *out)
{
    const char *text = arg(req, key);
    if (!text) {
        *out = fallback;
        return true;
    }
    size_t v = 0;
    bool ok = *text != 0 && strlen(text) <= 12;
    for (const char *p = text; ok && *p; p++) {
        if (*p < '0' || *p > '9')
            ok = false;
        else
            v = v * 10 + (size_t)(*p - '0');
    }
    if (!ok || v < lo || v > hi) {
        studio_error(resp, 400, "argument %s: expected a whole number from %zu to %zu", key, lo,
                     hi);
        return false;
    }
    *out = v;
    return true;
}

/* ============================================================== security */

bool studio_secret_equal(const char *a, const char *b)
{
    size_t na = strlen(a), nb = strlen(b);
    /* Every byte of the expected secret (b) is compared whatever `a` is. */
    unsigned char diff = (unsigned char)(na != nb);
    for (size_t k = 0; k < nb; k++)
        diff |= (unsigned char)(b[k] ^ (k < na ? a[k] : 0));
    return diff == 0;
}

/* The Host header must name the server as the URL it printed does, so a
 * page of another site whose name was rebound to 127.0.0.1 (DNS
 * rebinding) gets nothing. */
static bool host_allowed(const studio *s, const char *host)
{
    if (!host)
        return false;
    for (size_t k = 0; k < s->host_count; k++)
        if (strcmp(host, s->hosts[k]) == 0)
            return true;
    return false;
}

/* A browser sends Origin on cross-site and on most same-site requests
 * (every fetch with a body); when present it must be this server. */
static bool origin_allowed(const studio *s, const char *origin)
{
    if (!origin)
        return true;
    if (strncmp(origin, "http://", 7) != 0)
        return false;
    return host_allowed(s, origin + 7);
}

/* ================================================================== spec */

static char *spec_text(const tf_spec *spec, tf_error *err)
{
    if (!spec) {
        char *empty = malloc(1);
        if (!empty) {
            err->code = TF_ERR_NOMEM;
            snprintf(err->message, sizeof err->message, "out of memory");
        } else {
            *empty = 0;
        }
        return empty;
    }
    return tf_spec_to_json(spec, err);
}

static void drop_stack(char **stack, size_t *count)
{
    for (size_t k = 0; k < *count; k++)
        free(stack[k]);
    *count = 0;
}

void studio_clear_history(studio *s)
{
    drop_stack(s->undo, &s->undo_count);
    drop_stack(s->redo, &s->redo_count);
    free(s->live_base);
    s->live_base = NULL;
}

/* Push onto a bounded stack, forgetting the oldest step when full. */
static void push(char **stack, size_t *count, char *text)
{
    if (*count == STUDIO_MAX_HISTORY) {
        free(stack[0]);
        memmove(stack, stack + 1, (STUDIO_MAX_HISTORY - 1) * sizeof *stack);
        (*count)--;
    }
    stack[(*count)++] = text;
}

/* Replace the spec and its compiled terrain (NULL spec: none). */
static int replace_spec(studio *s, tf_spec *spec, tf_error *err)
{
    tf_terrain *terrain = NULL;
    if (spec && !(terrain = tf_terrain_compile(spec, err))) {
        tf_spec_free(spec);
        return -1;
    }
    tf_spec_free(s->spec);
    tf_terrain_free(s->terrain);
    s->spec = spec;
    s->terrain = terrain;
    return 0;
}

int studio_set_spec(studio *s, tf_spec *spec, bool live, tf_error *err)
{
    if (spec && tf_spec_validate(spec, err) != 0) {
        tf_spec_free(spec);
        return -1;
    }
    char *before = spec_text(s->spec, err);
    if (!before) {
        tf_spec_free(spec);
        return -1;
    }
    if (replace_spec(s, spec, err) != 0) {
        free(before);
        return -1;
    }
    if (live) {
        /* The first edit of a drag remembers where it started. */
        if (!s->live_base)
            s->live_base = before;
        else
            free(before);
        return 0;
    }
    if (s->live_base) {
        free(before);
        before = s->live_base;
        s->live_base = NULL;
    }
    push(s->undo, &s->undo_count, before);
    drop_stack(s->redo, &s->redo_count);
    return 0;
}

/* Undo (from = undo, to = redo) or redo (the other way round). */
static void step_history(studio *s, studio_response *resp, char **from, size_t *from_count,
                         char **to, size_t *to_count)
{
    tf_error err;
    if (s->live_base) { /* a drag that never ended is one step */
        push(s->undo, &s->undo_count, s->live_base);
        s->live_base = NULL;
    }
    if (*from_count == 0) {
        studio_error(resp, 409, "nothing to %s", from == s->undo ? "undo" : "redo");
        return;
    }
    char *target = from[*from_count - 1];
    tf_spec *spec = NULL;
    if (*target && !(spec = tf_spec_parse(target, strlen(target), "history", &err))) {
        answer_tf_error(resp, &err);
        return;
    }
    char *now = spec_text(s->spec, &err);
    if (!now || replace_spec(s, spec, &err) != 0) {
        if (!now)
            tf_spec_free(spec);
        free(now);
        answer_tf_error(resp, &err);
        return;
    }
    (*from_count)--;
    free(target);
    push(to, to_count, now);
    answer_ok(resp);
}

static void get_spec(studio *s, studio_response *resp)
{
    tf_error err;
    if (!s->spec) {
        studio_error(resp, 404, "no spec yet: fit the references or put one");
        return;
    }
    char *text = tf_spec_to_json(s->spec, &err);
    if (!text) {
        answer_tf_error(resp, &err);
        return;
    }
    answer_text(resp, 200, text);
}

static void put_spec(studio *s, const studio_request *req, studio_response *resp)
{
    tf_error err;
    const char *live = arg(req, "live");
    tf_spec *spec = tf_spec_parse((const char *)req->body, req->body_len, "request", &err);
    if (!spec || studio_set_spec(s, spec, live && strcmp(live, "1") == 0, &err) != 0) {
        answer_tf_error(resp, &err);
        return;
    }
    cJSON *body = cJSON_CreateObject();
    cJSON_AddBoolToObject(body, "ok", 1);
    cJSON_AddNumberToObject(body, "layers", (double)s->spec->layer_count);
    studio_json(resp, 200, body);
}

/* ============================================================ references */

static void add_reference(studio *s, const studio_request *req, studio_response *resp)
{
    tf_error err;
    const char *name = arg(req, "name");
    if (!name || !studio_name_ok(name)) {
        studio_error(resp, 400,
                     "argument name: a file name of 1 to %u letters, digits, '.', '_' or '-', "
                     "not starting with '.'",
                     STUDIO_MAX_NAME);
        return;
    }
    size_t slot = s->ref_count;
    for (size_t k = 0; k < s->ref_count; k++)
        if (strcmp(s->refs[k].name, name) == 0)
            slot = k;
    if (slot == STUDIO_MAX_REFERENCES) {
        studio_error(resp, 413, "a project holds at most %u references", STUDIO_MAX_REFERENCES);
        return;
    }
    if (req->body_len == 0) {
        studio_error(resp, 400, "empty upload");
        return;
    }
    if (studio_png_too_large(req->body, req->body_len, s->max_reference_side)) {
        studio_error(resp, 413, "a studio reference is at most %ux%u", s->max_reference_side,
                     s->max_reference_side);
        return;
    }
    char rel[STUDIO_MAX_NAME + 16];
    snprintf(rel, sizeof rel, "references/%s", name);
    if (studio_write(s, rel, req->body, req->body_len, &err) != 0) {
        answer_tf_error(resp, &err);
        return;
    }
    tf_layer_map *map = studio_load_reference(s, name, &err);
    if (!map) {
        /* Not kept: a file the studio cannot read is no reference. The
         * name passed studio_name_ok, so the path is inside references/. */
        char path[4096];
        if ((size_t)snprintf(path, sizeof path, "%s/%s", s->refs_dir, name) < sizeof path)
            unlink(path);
        answer_tf_error(resp, &err);
        return;
    }
    if (slot == s->ref_count)
        s->ref_count++;
    else
        tf_layer_map_free(s->refs[slot].map);
    snprintf(s->refs[slot].name, sizeof s->refs[slot].name, "%s", name);
    s->refs[slot].map = map;
    cJSON *body = cJSON_CreateObject();
    cJSON_AddNumberToObject(body, "index", (double)slot);
    cJSON_AddNumberToObject(body, "width", (double)map->width);
    cJSON_AddNumberToObject(body, "height", (double)map->height);
    studio_json(resp, 200, body);
}

static void remove_reference(studio *s, const studio_request *req, studio_response *resp)
{
    size_t index;
    if (s->ref_count == 0) {
        studio_error(resp, 404, "no references");
        return;
    }
    if (!studio_arg_size(req, resp, "index", SIZE_MAX, 0, s->ref_count - 1, &index))
        return;
    if (index == SIZE_MAX) {
        studio_error(resp, 400, "missing argument index");
        return;
    }
    tf_layer_map_free(s->refs[index].map);
    memmove(&s->refs[index], &s->refs[index + 1],
            (s->ref_count - index - 1) * sizeof s->refs[0]);
    s->ref_count--;
    answer_ok(resp);
}

static void move_reference(studio *s, const studio_request *req, studio_response *resp)
{
    size_t from, to;
    if (s->ref_count == 0) {
        studio_error(resp, 404, "no references");
        return;
    }
    if (!studio_arg_size(req, resp, "from", SIZE_MAX, 0, s->ref_count - 1, &from) ||
        !studio_arg_size(req, resp, "to", SIZE_MAX, 0, s->ref_count - 1, &to))
        return;
    if (from == SIZE_MAX || to == SIZE_MAX) {
        studio_error(resp, 400, "missing argument from or to");
        return;
    }
    studio_reference moved = s->refs[from];
    if (from < to)
        memmove(&s->refs[from], &s->refs[from + 1], (to - from) * sizeof moved);
    else
        memmove(&s->refs[to + 1], &s->refs[to], (from - to) * sizeof moved);
    s->refs[to] = moved;
    answer_ok(resp);
}

/* =================================================================== fit */

static bool noise_from_name(const char *name, tf_noise_type *out)
{
    for (int k = 0; k < TF_NOISE_TYPE_COUNT; k++)
        if (strcmp(name, tf_noise_type_name((tf_noise_type)k)) == 0) {
            *out = (tf_noise_type)k;
            return true;
        }
    return false;
}

/* "Find noise": tf_fit over every reference, as `terrafit fit` runs it
 * (same defaults, so the same spec). With ?layer=i and a spec of as many
 * layers, only layer i is replaced: masks and frequencies are fitted
 * jointly, but the artist's edits of the other layers stay. */
static void fit(studio *s, const studio_request *req, studio_response *resp)
{
    tf_error err;
    if (s->ref_count == 0) {
        studio_error(resp, 409, "no references to fit: add some first");
        return;
    }
    tf_fit_options opt;
    tf_fit_options_init(&opt);
    size_t points, layer;
    if (!studio_arg_size(req, resp, "points", TF_FIT_DEFAULT_POINTS, 2, TF_FIT_MAX_POINTS,
                         &points) ||
        !studio_arg_size(req, resp, "layer", SIZE_MAX, 0, TF_MAX_LAYERS - 1, &layer))
        return;
    opt.points = points;
    opt.max_pixels = STUDIO_MAX_FIT_PIXELS;
    const char *noise = arg(req, "noise");
    if (noise && !noise_from_name(noise, &opt.noise)) {
        studio_error(resp, 400, "argument noise: unknown noise");
        return;
    }
    const tf_layer_map *maps[STUDIO_MAX_REFERENCES];
    const char *names[STUDIO_MAX_REFERENCES];
    for (size_t k = 0; k < s->ref_count; k++) {
        maps[k] = s->refs[k].map;
        names[k] = s->refs[k].name;
    }
    opt.names = names;
    tf_spec *spec = NULL;
    tf_fit_report report;
    memset(&report, 0, sizeof report);
    if (tf_fit(maps, s->ref_count, &opt, &spec, &report, NULL, NULL, &err) != 0) {
        answer_tf_error(resp, &err);
        return;
    }
    bool auto_layered = report.auto_layered != 0;
    if (layer != SIZE_MAX) {
        if (!s->spec || s->spec->layer_count != spec->layer_count ||
            layer >= spec->layer_count) {
            tf_spec_free(spec);
            tf_fit_report_free(&report);
            studio_error(resp, 409, "argument layer: the spec has no layer %zu to refit", layer);
            return;
        }
        tf_spec *edited = tf_spec_copy(s->spec, &err);
        if (!edited) {
            tf_spec_free(spec);
            tf_fit_report_free(&report);
            answer_tf_error(resp, &err);
            return;
        }
        /* Swap the layer structs: each spec keeps owning what it holds. */
        tf_layer_spec fitted = spec->layers[layer];
        spec->layers[layer] = edited->layers[layer];
        edited->layers[layer] = fitted;
        tf_spec_free(spec);
        spec = edited;
    }
    cJSON *body = cJSON_CreateObject();
    cJSON *layers = cJSON_AddArrayToObject(body, "layers");
    for (size_t k = 0; k < report.layer_count; k++) {
        cJSON *l = cJSON_CreateObject();
        const tf_frequency_estimate *fe = &report.layers[k].frequency;
        cJSON_AddNumberToObject(l, "frequency", fe->chosen);
        /* both estimators (docs/frequency.md); null where one found none */
        cJSON_AddNumberToObject(l, "peaks", fe->peaks);
        cJSON_AddNumberToObject(l, "spectrum", fe->spectrum);
        cJSON_AddStringToObject(l, "method", tf_frequency_method_name(fe->chosen_method));
        cJSON_AddNumberToObject(l, "chi2", report.layers[k].chi2);
        cJSON_AddStringToObject(l, "mask", report.layers[k].mask_reason);
        cJSON_AddItemToArray(layers, l);
    }
    cJSON_AddBoolToObject(body, "autoLayered", auto_layered);
    cJSON_AddNumberToObject(body, "seconds", report.seconds_total);
    tf_fit_report_free(&report);
    if (studio_set_spec(s, spec, false, &err) != 0) {
        cJSON_Delete(body);
        answer_tf_error(resp, &err);
        return;
    }
    s->auto_layered = auto_layered;
    studio_json(resp, 200, body);
}

/* ================================================================= state */

static void get_state(studio *s, studio_response *resp)
{
    cJSON *body = cJSON_CreateObject();
    cJSON *refs = cJSON_AddArrayToObject(body, "references");
    for (size_t k = 0; k < s->ref_count; k++) {
        const tf_layer_map *m = s->refs[k].map;
        cJSON *r = cJSON_CreateObject();
        cJSON_AddStringToObject(r, "name", s->refs[k].name);
        cJSON_AddNumberToObject(r, "width", (double)m->width);
        cJSON_AddNumberToObject(r, "height", (double)m->height);
        cJSON_AddNumberToObject(r, "visible", (double)tf_layer_map_visible_count(m));
        cJSON_AddItemToArray(refs, r);
    }
    cJSON_AddNumberToObject(body, "layers", s->spec ? (double)s->spec->layer_count : 0.0);
    cJSON_AddBoolToObject(body, "autoLayered", s->auto_layered);
    cJSON_AddBoolToObject(body, "canUndo", s->undo_count > 0 || s->live_base);
    cJSON_AddBoolToObject(body, "canRedo", s->redo_count > 0);
    cJSON_AddBoolToObject(body, "three", s->three_path != NULL);
    cJSON_AddStringToObject(body, "project", s->dir);
    cJSON *limits = cJSON_AddObjectToObject(body, "limits");
    cJSON_AddNumberToObject(limits, "references", STUDIO_MAX_REFERENCES);
    cJSON_AddNumberToObject(limits, "uploadBytes", STUDIO_MAX_UPLOAD_BYTES);
    cJSON_AddNumberToObject(limits, "referenceSide", s->max_reference_side);
    cJSON_AddNumberToObject(limits, "imageSide", s->max_image_side);
    cJSON_AddNumberToObject(limits, "meshSide", STUDIO_MAX_MESH_SIDE);
    studio_json(resp, 200, body);
}

static void get_settings(studio *s, studio_response *resp)
{
    char *text = strdup(s->settings ? s->settings : "{}");
    if (!text) {
        answer_no_memory(resp);
        return;
    }
    answer_text(resp, 200, text);
}

static void put_settings(studio *s, const studio_request *req, studio_response *resp)
{
    cJSON *doc = cJSON_ParseWithLength((const char *)req->body, req->body_len);
    if (!doc || !cJSON_IsObject(doc)) {
        cJSON_Delete(doc);
        studio_error(resp, 400, "render settings: expected a JSON object");
        return;
    }
    char *text = cJSON_Print(doc);
    cJSON_Delete(doc);
    if (!text) {
        answer_no_memory(resp);
        return;
    }
    free(s->settings);
    s->settings = text;
    answer_ok(resp);
}

/* ============================================================== dispatch */

static void serve_asset(const studio *s, const studio_request *req, studio_response *resp)
{
    const char *path = strcmp(req->path, "/") == 0 ? "/index.html" : req->path;
    if (strcmp(req->method, "GET") != 0 && strcmp(req->method, "HEAD") != 0) {
        studio_error(resp, 405, "method not allowed");
        return;
    }
    for (size_t k = 0; k < studio_asset_count; k++) {
        if (strcmp(path, studio_assets[k].path) == 0) {
            resp->status = 200;
            resp->content_type = studio_assets[k].content_type;
            resp->body = (unsigned char *)studio_assets[k].data;
            resp->len = studio_assets[k].size;
            resp->body_static = true;
            return;
        }
    }
    if (strcmp(path, "/vendor/three.min.js") == 0 && s->three_path) {
        /* A fixed file chosen at build time, never a path from a request. */
        FILE *f = fopen(s->three_path, "rb");
        unsigned char *data = NULL;
        size_t len = 0;
        if (f) {
            data = malloc(8u << 20);
            if (data)
                len = fread(data, 1, 8u << 20, f);
            fclose(f);
        }
        if (!data || len == 0 || len == 8u << 20) {
            free(data);
            studio_error(resp, 500, "three.js could not be read");
            return;
        }
        studio_bytes(resp, "text/javascript", data, len);
        return;
    }
    studio_error(resp, 404, "no such page");
}

/* Adapters to the one signature of the endpoint table. */
static void get_state_call(studio *s, const studio_request *req, studio_response *resp)
{
    get_state(s, resp);
}

static void get_spec_call(studio *s, const studio_request *req, studio_response *resp)
{
    get_spec(s, resp);
}

/* The spec as shader source in the language of ?lang= (default glsl;
 * docs/shader.md), or NULL with the answer set. */
static char *shader_source(studio *s, const studio_request *req, studio_response *resp,
                           const char **lang_name)
{
    const char *lang = arg(req, "lang");
    int k = tf_shader_lang_parse(lang ? lang : "glsl");
    if (k < 0) {
        studio_error(resp, 400, "lang: \"%.16s\" is not glsl, wgsl or hlsl", lang);
        return NULL;
    }
    if (!s->spec) {
        studio_error(resp, 404, "no spec yet: fit the references or put one");
        return NULL;
    }
    tf_error err;
    char *src = tf_shader_emit(s->spec, (tf_shader_lang)k, "terrain", &err);
    if (!src)
        answer_tf_error(resp, &err);
    *lang_name = tf_shader_lang_name((tf_shader_lang)k);
    return src;
}

/* GET /api/shader: the source itself. */
static void get_shader(studio *s, const studio_request *req, studio_response *resp)
{
    const char *lang;
    char *src = shader_source(s, req, resp, &lang);
    if (src)
        studio_bytes(resp, "text/plain; charset=utf-8", (unsigned char *)src, strlen(src));
}

/* POST /api/shader: the source written to the project as terrain.LANG. */
static void post_shader(studio *s, const studio_request *req, studio_response *resp)
{
    const char *lang;
    char *src = shader_source(s, req, resp, &lang);
    if (!src)
        return;
    char name[32];
    snprintf(name, sizeof name, "terrain.%s", lang);
    tf_error err;
    int rc = studio_write(s, name, src, strlen(src), &err);
    free(src);
    if (rc != 0) {
        answer_tf_error(resp, &err);
        return;
    }
    cJSON *body = cJSON_CreateObject();
    cJSON_AddStringToObject(body, "saved", name);
    studio_json(resp, 200, body);
}

static void get_settings_call(studio *s, const studio_request *req, studio_response *resp)
{
    get_settings(s, resp);
}

static void undo(studio *s, const studio_request *req, studio_response *resp)
{
    step_history(s, resp, s->undo, &s->undo_count, s->redo, &s->redo_count);
}

static void redo(studio *s, const studio_request *req, studio_response *resp)
{
    step_history(s, resp, s->redo, &s->redo_count, s->undo, &s->undo_count);
}

static void save(studio *s, const studio_request *req, studio_response *resp)
{
    studio_save(s, resp);
}

static void load(studio *s, const studio_request *req, studio_response *resp)
{
    tf_error err;
    if (studio_load_project(s, &err) != 0)
        answer_tf_error(resp, &err);
    else
        get_state(s, resp);
}

/* The API, one row an endpoint (docs/studio.md, "The API"). */
typedef struct {
    const char *method, *path;
    void (*handle)(studio *s, const studio_request *req, studio_response *resp);
} endpoint;

static const endpoint ENDPOINTS[] = {
    {"GET", "/api/state", get_state_call},
    {"GET", "/api/spec", get_spec_call},
    {"PUT", "/api/spec", put_spec},
    {"POST", "/api/references", add_reference},
    {"DELETE", "/api/references", remove_reference},
    {"POST", "/api/references/move", move_reference},
    {"POST", "/api/fit", fit},
    {"GET", "/api/image", studio_get_image},
    {"GET", "/api/stats", studio_get_stats},
    {"GET", "/api/mesh", studio_get_mesh},
    {"GET", "/api/shader", get_shader},
    {"POST", "/api/shader", post_shader},
    {"GET", "/api/settings", get_settings_call},
    {"PUT", "/api/settings", put_settings},
    {"POST", "/api/undo", undo},
    {"POST", "/api/redo", redo},
    {"POST", "/api/save", save},
    {"POST", "/api/load", load},
};

/* The API proper, with the state locked. */
static void dispatch(studio *s, const studio_request *req, studio_response *resp)
{
    for (size_t k = 0; k < sizeof ENDPOINTS / sizeof ENDPOINTS[0]; k++) {
        const endpoint *e = &ENDPOINTS[k];
        if (strcmp(req->method, e->method) == 0 && strcmp(req->path, e->path) == 0) {
            e->handle(s, req, resp);
            return;
        }
    }
    studio_error(resp, 404, "no such endpoint (docs/studio.md lists them)");
}

void studio_handle(studio *s, const studio_request *req, studio_response *resp)
{
    memset(resp, 0, sizeof *resp);
    if (!req->method || !req->path) {
        studio_error(resp, 400, "bad request");
        return;
    }
    if (!host_allowed(s, req->host)) {
        studio_error(resp, 403, "Host header names another server");
        return;
    }
    if (!origin_allowed(s, req->origin)) {
        studio_error(resp, 403, "cross-origin request refused");
        return;
    }
    if (strncmp(req->path, "/api/", 5) != 0) {
        serve_asset(s, req, resp);
        return;
    }
    if (!req->token || !studio_secret_equal(req->token, s->token)) {
        studio_error(resp, 401, "missing or wrong session token (header %s)",
                     STUDIO_TOKEN_HEADER);
        return;
    }
    /* Calls beyond the limit are refused at once rather than queued, so a
     * flood cannot pile up threads waiting on the lock. */
    if (atomic_fetch_add(&s->in_flight, 1) >= STUDIO_MAX_REQUESTS) {
        atomic_fetch_sub(&s->in_flight, 1);
        studio_error(resp, 503, "too many requests at once");
        return;
    }
    pthread_mutex_lock(&s->lock);
    dispatch(s, req, resp);
    pthread_mutex_unlock(&s->lock);
    atomic_fetch_sub(&s->in_flight, 1);
}

/* ============================================================ lifecycle */

static char *join(const char *a, const char *b)
{
    size_t n = strlen(a) + strlen(b) + 2;
    char *out = malloc(n);
    if (out)
        snprintf(out, n, "%s/%s", a, b);
    return out;
}

studio *studio_new(const studio_config *config, tf_error *err)
{
    studio *s = calloc(1, sizeof *s);
    if (!s) {
        err->code = TF_ERR_NOMEM;
        snprintf(err->message, sizeof err->message, "out of memory");
        return NULL;
    }
    studio_images_init();
    pthread_mutex_init(&s->lock, NULL);
    atomic_init(&s->in_flight, 0);
    snprintf(s->token, sizeof s->token, "%s", config->token);
    s->max_reference_side = config->max_reference_side && config->max_reference_side <
                                    STUDIO_MAX_REFERENCE_SIDE
                                ? config->max_reference_side
                                : STUDIO_MAX_REFERENCE_SIDE;
    s->max_image_side = config->max_image_side && config->max_image_side < STUDIO_MAX_IMAGE_SIDE
                            ? config->max_image_side
                            : STUDIO_MAX_IMAGE_SIDE;
    s->dir = realpath(config->project_dir, NULL);
    if (!s->dir) {
        err->code = TF_ERR_IO;
        snprintf(err->message, sizeof err->message, "%s: %s", config->project_dir,
                 strerror(errno));
        studio_free(s);
        return NULL;
    }
    s->refs_dir = join(s->dir, "references");
    s->hosts = calloc(config->host_count + 1, sizeof *s->hosts);
    if (config->three_path)
        s->three_path = strdup(config->three_path);
    bool ok = s->refs_dir && s->hosts && (!config->three_path || s->three_path);
    /* Only "host:port": a browser always sends the port of a URL that has one. */
    for (size_t k = 0; ok && k < config->host_count; k++) {
        size_t n = strlen(config->hosts[k]) + 16;
        char *with_port = malloc(n);
        if (with_port) {
            snprintf(with_port, n, "%s:%u", config->hosts[k], config->port);
            s->hosts[s->host_count++] = with_port;
        }
        ok = with_port != NULL;
    }
    if (!ok) {
        err->code = TF_ERR_NOMEM;
        snprintf(err->message, sizeof err->message, "out of memory");
        studio_free(s);
        return NULL;
    }
    if (studio_load_project(s, err) != 0) {
        studio_free(s);
        return NULL;
    }
    return s;
}

void studio_free(studio *s)
{
    if (!s)
        return;
    for (size_t k = 0; k < s->ref_count; k++)
        tf_layer_map_free(s->refs[k].map);
    tf_spec_free(s->spec);
    tf_terrain_free(s->terrain);
    studio_clear_history(s);
    for (size_t k = 0; k < s->host_count; k++)
        free(s->hosts[k]);
    free(s->hosts);
    free(s->settings);
    free(s->three_path);
    free(s->refs_dir);
    free(s->dir);
    pthread_mutex_destroy(&s->lock);
    free(s);
}
