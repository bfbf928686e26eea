/*
 * What the studio's request handlers share: the session's state (the
 * references, the spec being designed and its undo history, the render
 * settings) and the helpers that answer with JSON. One mutex guards it all:
 * requests are short, and a fit must not see the references change.
 */
#ifndef TF_STUDIO_INTERNAL_H
#define TF_STUDIO_INTERNAL_H

#include <pthread.h>
#include <stdatomic.h>

#include <cJSON.h>

#include "studio.h"

typedef struct {
    char name[STUDIO_MAX_NAME + 1];
    tf_layer_map *map;
} studio_reference;

struct studio {
    pthread_mutex_t lock;
    atomic_uint in_flight;
    char *dir;      /* the project folder, resolved (realpath) */
    char *refs_dir; /* dir + "/references" */
    char token[2 * STUDIO_TOKEN_BYTES + 1];
    char **hosts; /* "host:port" the Host header may be */
    size_t host_count;
    char *three_path;
    unsigned max_reference_side, max_image_side;

    studio_reference refs[STUDIO_MAX_REFERENCES];
    size_t ref_count;
    bool auto_layered; /* the spec was fitted to one DEM split into bands */
    tf_spec *spec;     /* NULL before a fit or a load */
    tf_terrain *terrain;
    char *settings; /* the render settings, a JSON object text, or NULL */
    /* Spec JSON texts ("" for no spec): the states undo and redo go back to. */
    char *undo[STUDIO_MAX_HISTORY], *redo[STUDIO_MAX_HISTORY];
    size_t undo_count, redo_count;
    /* The state before a run of live edits (a drag), pushed as one undo
     * step when the run ends; NULL outside such a run. */
    char *live_base;
};

/* ---- answers */
void studio_json(studio_response *resp, unsigned status, cJSON *body);
void studio_error(studio_response *resp, unsigned status, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
void studio_bytes(studio_response *resp, const char *content_type, unsigned char *data, size_t len);

/* ---- query arguments: false (and an error answer) when present but bad */
bool studio_arg_double(const studio_request *req, studio_response *resp, const char *key,
                       double fallback, double lo, double hi, double *out);
bool studio_arg_size(const studio_request *req, studio_response *resp, const char *key,
                     size_t fallback, size_t lo, size_t hi, size_t *out);

/* ---- images.c: GET /api/image, ... The PNG encoder's settings, once. */
void studio_images_init(void);
/* ---- images.c: GET /api/image, /api/stats, /api/mesh (lock held) */
void studio_get_image(studio *s, const studio_request *req, studio_response *resp);
void studio_get_stats(studio *s, const studio_request *req, studio_response *resp);
void studio_get_mesh(studio *s, const studio_request *req, studio_response *resp);

/* ---- project.c: files inside the project folder (lock held) */
/* A reference file name the studio accepts: 1..STUDIO_MAX_NAME of
 * [A-Za-z0-9._-], not starting with '.'. */
bool studio_name_ok(const char *name);
/* Write `data` to dir/name (name: studio_name_ok, or "references/" + one)
 * atomically; refuses to replace anything but a regular file. */
int studio_write(studio *s, const char *rel, const void *data, size_t size, tf_error *err);
/* Read dir/rel, a regular file (no symbolic link) of at most `max` bytes,
 * NUL-terminated. NULL with err filled; err->code TF_ERR_IO and *missing
 * set when it does not exist. */
char *studio_read(studio *s, const char *rel, size_t max, size_t *len, bool *missing,
                  tf_error *err);
/* Whether `d` (n bytes) starts a PNG whose header claims more than side x
 * side pixels (checked before decoding: a few hundred bytes can claim
 * 2^28). Not a PNG, or a short one: false (the reader says what is wrong). */
bool studio_png_too_large(const unsigned char *d, size_t n, unsigned side);
/* Load references/<name> as a layer map, a regular file only. */
tf_layer_map *studio_load_reference(studio *s, const char *name, tf_error *err);
/* POST /api/save and /api/load. */
void studio_save(studio *s, studio_response *resp);
int studio_load_project(studio *s, tf_error *err);

/* ---- api.c: replace the spec (takes `spec`; compiles it). */
int studio_set_spec(studio *s, tf_spec *spec, bool live, tf_error *err);
void studio_clear_history(studio *s);

#endif /* TF_STUDIO_INTERNAL_H */
