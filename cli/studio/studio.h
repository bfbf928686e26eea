/*
 * terrafit studio: the local web designer's request handling, apart from
 * the HTTP server that feeds it (server.c, libmicrohttpd), so that tests
 * and the fuzz target can call it with any request without a socket.
 * Every request is treated as hostile: studio_handle checks it and answers
 * with a status and a body, never by crashing.
 */
#ifndef TF_STUDIO_H
#define TF_STUDIO_H

#include <stdbool.h>
#include <stddef.h>

#include "terrafit/terrafit.h"

/* Limits (docs/studio.md, "Limits"). */
#define STUDIO_MAX_REFERENCES 16             /* reference layers in a project */
#define STUDIO_MAX_UPLOAD_BYTES (40u << 20)  /* one reference file (a 4096^2 16-bit PGM) */
#define STUDIO_MAX_BODY_BYTES (1u << 20)     /* any other request body (a spec, settings) */
#define STUDIO_MAX_REFERENCE_SIDE 4096u      /* a reference's width or height */
#define STUDIO_MAX_IMAGE_SIDE 1024u          /* an image the API renders */
#define STUDIO_MAX_MESH_SIDE 257u            /* vertices per side of a 3D mesh */
#define STUDIO_MAX_NAME 100u                 /* a reference's file name */
#define STUDIO_MAX_HISTORY 100u              /* undo steps kept */
#define STUDIO_MAX_REQUESTS 8u               /* API calls in progress at once */
/* Reference pixels a fit takes on (tf_fit_options.max_pixels): a fit's
 * peak memory is up to TF_FIT_BYTES_PER_PIXEL a pixel, so about 1.2 GB. */
#define STUDIO_MAX_FIT_PIXELS ((size_t)1 << 22)
#define STUDIO_TOKEN_BYTES 32u               /* random bytes of the session token */
#define STUDIO_TOKEN_HEADER "X-Studio-Token"

typedef struct studio studio;

typedef struct {
    const char *project_dir;
    /* Hosts a request's Host header may name (each also with ":port"). */
    const char *const *hosts;
    size_t host_count;
    unsigned port;
    const char *token;      /* hex, 2 * STUDIO_TOKEN_BYTES characters */
    const char *three_path; /* three.min.js to serve, or NULL: no 3D view */
    /* Lower limits than the defaults (0: STUDIO_MAX_REFERENCE_SIDE and
     * STUDIO_MAX_IMAGE_SIDE), for the fuzz target: inputs stay fast. */
    unsigned max_reference_side, max_image_side;
} studio_config;

/* A request: the method and path as received (no query), what the server
 * read of its headers (NULL when absent), its query arguments through
 * `arg`, and its body. */
typedef struct {
    const char *method;
    const char *path;
    const char *host, *origin, *token;
    const char *(*arg)(void *user, const char *key);
    void *arg_user;
    const unsigned char *body;
    size_t body_len;
} studio_request;

typedef struct {
    unsigned status;
    const char *content_type;
    unsigned char *body; /* malloc'd, unless body_static */
    size_t len;
    bool body_static;
} studio_response;

/* Open PROJECT_DIR (it must exist; its references/ folder is made when
 * missing) and load the project saved there, if any. NULL with err filled. */
studio *studio_new(const studio_config *config, tf_error *err);
void studio_free(studio *s);

/* Answer one request (thread-safe). The caller frees a non-static body. */
void studio_handle(studio *s, const studio_request *req, studio_response *resp);
void studio_response_free(studio_response *resp);

/* Whether `a` and `b` are equal, in a time that depends only on their lengths. */
bool studio_secret_equal(const char *a, const char *b);

/* The page's files, embedded at build time (assets.c, generated). */
typedef struct {
    const char *path;
    const char *content_type;
    const unsigned char *data;
    size_t size;
} studio_asset;
extern const studio_asset studio_assets[];
extern const size_t studio_asset_count;

#endif /* TF_STUDIO_H */
