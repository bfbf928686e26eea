/*
 * Fuzz target "studio": bytes -> a few HTTP requests -> studio_handle, the
 * request handling of `terrafit studio` behind its HTTP parser (docs/
 * fuzzing.md, docs/studio.md). Each input starts from the same saved
 * project (two small references, a fitted spec); the answers must be
 * well-formed and the security checks must hold whatever comes.
 *
 * Input: requests separated by a line "===". Each is a line
 * "METHOD PATH[?QUERY]", header lines "host: H", "origin: O" and
 * "token: T" ("token: $" is the session's token, "host: $" this server's
 * Host) up to an empty line, then the body.
 */
#define _DEFAULT_SOURCE /* mkdir, unlink */

#include <dirent.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cJSON.h>

#include "studio/studio.h"
#include "fuzz.h"

#define TOKEN "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"
#define PORT 4242u
#define MAX_REQUESTS 6
#define MAX_ARGS 16

/* The saved project every input starts from, made once by the first input
 * (a fit through the API itself), kept as file contents. */
typedef struct {
    char *name;
    unsigned char *data;
    size_t size;
} saved_file;
static saved_file saved[8];
static size_t saved_count;

typedef struct {
    char *keys[MAX_ARGS], *values[MAX_ARGS];
    size_t count;
} args;

static const char *lookup(void *user, const char *key)
{
    args *a = user;
    for (size_t k = 0; k < a->count; k++)
        if (strcmp(a->keys[k], key) == 0)
            return a->values[k];
    return NULL;
}

/* "a=1&b=x" into args (no percent-decoding: the server's parser does that
 * before the handler sees a value, and the handler must take any bytes). */
static void split_query(char *query, args *a)
{
    a->count = 0;
    for (char *part = strtok(query, "&"); part && a->count < MAX_ARGS; part = strtok(NULL, "&")) {
        char *eq = strchr(part, '=');
        if (eq)
            *eq++ = 0;
        a->keys[a->count] = part;
        a->values[a->count++] = eq ? eq : (char *)"";
    }
}

static void check_answer(const studio_request *req, const studio_response *r, bool host_ok,
                         bool token_ok)
{
    FUZZ_CHECK(r->status >= 200 && r->status <= 599, "status %u", r->status);
    FUZZ_CHECK(r->content_type && *r->content_type, "no content type");
    FUZZ_CHECK(r->len == 0 || r->body, "a body of %zu bytes at NULL", r->len);
    if (!host_ok)
        FUZZ_CHECK(r->status == 403, "a foreign Host got %u", r->status);
    if (host_ok && !token_ok && strncmp(req->path, "/api/", 5) == 0 &&
        (!req->origin || r->status != 403))
        FUZZ_CHECK(r->status == 401, "%s without the token got %u", req->path, r->status);
    if (strcmp(r->content_type, "application/json") == 0) {
        cJSON *doc = cJSON_ParseWithLength((const char *)r->body, r->len);
        FUZZ_CHECK(doc != NULL, "an answer that is not JSON: %.*s", (int)(r->len < 200 ? r->len : 200),
                   (const char *)r->body);
        if (r->status >= 400)
            FUZZ_CHECK(cJSON_IsString(cJSON_GetObjectItemCaseSensitive(doc, "error")),
                       "an error answer without an error message");
        cJSON_Delete(doc);
    }
    if (strcmp(r->content_type, "image/png") == 0)
        FUZZ_CHECK(r->len > 8 && memcmp(r->body, "\x89PNG", 4) == 0, "an image that is not a PNG");
}

static void run(studio *s, char *text, size_t len)
{
    char *end = text + len;
    size_t requests = 0;
    while (text < end && requests++ < MAX_REQUESTS) {
        char *next = strstr(text, "\n===\n");
        char *stop = next ? next : end;
        *stop = 0;
        char *line_end = strchr(text, '\n');
        char *headers = line_end ? line_end + 1 : stop;
        if (line_end)
            *line_end = 0;
        char *method = text, *path = strchr(text, ' ');
        if (path)
            *path++ = 0;
        else
            path = (char *)"/";
        char *query = strchr(path, '?');
        if (query)
            *query++ = 0;
        args a = {0};
        if (query)
            split_query(query, &a);
        char host[64];
        snprintf(host, sizeof host, "127.0.0.1:%u", PORT);
        studio_request req = {.method = method, .path = path, .host = host, .arg = lookup,
                              .arg_user = &a};
        char *body = headers;
        while (body < stop) {
            char *eol = strchr(body, '\n');
            if (!eol)
                eol = stop;
            *eol = 0;
            if (*body == 0) { /* the empty line: the body follows */
                body = eol < stop ? eol + 1 : stop;
                break;
            }
            if (strncmp(body, "host: ", 6) == 0)
                req.host = strcmp(body + 6, "$") == 0 ? host : body + 6;
            else if (strncmp(body, "origin: ", 8) == 0)
                req.origin = body + 8;
            else if (strncmp(body, "token: ", 7) == 0)
                req.token = strcmp(body + 7, "$") == 0 ? TOKEN : body + 7;
            body = eol < stop ? eol + 1 : stop;
        }
        req.body = (const unsigned char *)body;
        req.body_len = body < stop ? (size_t)(stop - body) : 0;
        bool host_ok = strcmp(req.host, host) == 0 || strcmp(req.host, "localhost:4242") == 0;
        bool token_ok = req.token && strcmp(req.token, TOKEN) == 0;
        studio_response r;
        studio_handle(s, &req, &r);
        check_answer(&req, &r, host_ok, token_ok);
        studio_response_free(&r);
        text = next ? next + 5 : end;
    }
}

static studio *open_studio(const char *dir)
{
    const char *hosts[] = {"127.0.0.1", "localhost"};
    studio_config config = {.project_dir = dir, .hosts = hosts, .host_count = 2, .port = PORT,
                            .token = TOKEN, .three_path = NULL, .max_reference_side = 64,
                            .max_image_side = 96};
    tf_error err;
    studio *s = studio_new(&config, &err);
    FUZZ_CHECK(s != NULL, "the saved project does not open: %s", err.message);
    return s;
}

/* A w x h 8-bit PGM of a smooth pattern. */
static size_t make_pgm(unsigned char *out, int w, int h, int phase)
{
    int n = sprintf((char *)out, "P5\n%d %d\n255\n", w, h);
    for (int y = 0; y < h; y++)
        for (int x = 0; x < w; x++)
            out[n++] = (unsigned char)(127.5 + 120.0 * sin(0.37 * x + phase) * cos(0.29 * y));
    return (size_t)n;
}

static void read_back(const char *dir, const char *name)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *f = fopen(path, "rb");
    if (!f)
        return;
    saved_file *sf = &saved[saved_count++];
    sf->name = strdup(name);
    sf->data = malloc(1 << 20);
    sf->size = fread(sf->data, 1, 1 << 20, f);
    fclose(f);
}

/* Make the project once through the handler: upload, fit, save. */
static void make_project(const char *dir)
{
    static unsigned char pgm[64 * 64 + 64];
    studio *s = open_studio(dir);
    char host[64];
    snprintf(host, sizeof host, "127.0.0.1:%u", PORT);
    for (int k = 0; k < 2; k++) {
        size_t n = make_pgm(pgm, 32, 32, k);
        args a = {.keys = {(char *)"name"}, .values = {k ? (char *)"b.pgm" : (char *)"a.pgm"},
                  .count = 1};
        studio_request req = {.method = "POST", .path = "/api/references", .host = host,
                              .token = TOKEN, .arg = lookup, .arg_user = &a, .body = pgm,
                              .body_len = n};
        studio_response r;
        studio_handle(s, &req, &r);
        FUZZ_CHECK(r.status == 200, "setup upload: %u %.*s", r.status, (int)r.len, r.body);
        studio_response_free(&r);
    }
    args none = {0};
    const char *steps[][2] = {{"POST", "/api/fit"}, {"POST", "/api/save"}};
    for (size_t k = 0; k < 2; k++) {
        studio_request req = {.method = steps[k][0], .path = steps[k][1], .host = host,
                              .token = TOKEN, .arg = lookup, .arg_user = &none};
        studio_response r;
        studio_handle(s, &req, &r);
        FUZZ_CHECK(r.status == 200, "setup %s: %u %.*s", steps[k][1], r.status, (int)r.len,
                   r.body);
        studio_response_free(&r);
    }
    studio_free(s);
    read_back(dir, "project.json");
    read_back(dir, "terrain.json");
    read_back(dir, "references/a.pgm");
    read_back(dir, "references/b.pgm");
}

/* Put the project folder back as it was saved: what an input wrote goes. */
static void restore_project(const char *dir)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/render.json", dir);
    unlink(path);
    snprintf(path, sizeof path, "%s/references", dir);
    DIR *refs = opendir(path);
    for (struct dirent *e; refs && (e = readdir(refs));) {
        if (e->d_name[0] == '.')
            continue;
        char file[1400];
        snprintf(file, sizeof file, "%s/%s", path, e->d_name);
        unlink(file);
    }
    if (refs)
        closedir(refs);
    for (size_t k = 0; k < saved_count; k++) {
        snprintf(path, sizeof path, "%s/%s", dir, saved[k].name);
        fuzz_write_file(path, saved[k].data, saved[k].size);
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static char dir[1024];
    if (!*dir) {
        snprintf(dir, sizeof dir, "%s", fuzz_scratch_path(0, "project"));
        mkdir(dir, 0777);
        make_project(dir);
    }
    restore_project(dir);
    studio *s = open_studio(dir);
    char *text = malloc(size + 1);
    memcpy(text, data, size);
    text[size] = 0;
    run(s, text, size);
    free(text);
    studio_free(s);
    return 0;
}
