/*
 * terrafit studio's HTTP side: libmicrohttpd parses HTTP; this file bounds
 * what it may buffer (bodies, connections), hands each complete request to
 * studio_handle and sends its answer with the headers that keep other
 * sites out (no caching, no framing, no sniffing, a strict CSP).
 */
#define _DEFAULT_SOURCE /* realpath, lstat, O_NOFOLLOW, sockets */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include <microhttpd.h>

#include "server.h"

#define MAX_CONNECTIONS 32u
#define IDLE_TIMEOUT_SECONDS 60u

/* One request's body as it arrives. Past its limit it is read and dropped
 * (memory stays bounded) and the request gets 413. */
typedef struct {
    unsigned char *data;
    size_t len, capacity, limit;
    bool too_big;
} upload;

static size_t body_limit(const char *method, const char *url)
{
    if (strcmp(method, "POST") == 0 && strcmp(url, "/api/references") == 0)
        return STUDIO_MAX_UPLOAD_BYTES;
    if (strcmp(method, "PUT") == 0 && strcmp(url, "/api/spec") == 0)
        return TF_MAX_SPEC_BYTES;
    return STUDIO_MAX_BODY_BYTES;
}

static const char *lookup_arg(void *user, const char *key)
{
    return MHD_lookup_connection_value(user, MHD_GET_ARGUMENT_KIND, key);
}

static enum MHD_Result send_answer(struct MHD_Connection *c, studio_response *answer)
{
    struct MHD_Response *r = MHD_create_response_from_buffer(
        answer->len, answer->body, answer->body_static ? MHD_RESPMEM_PERSISTENT
                                                       : MHD_RESPMEM_MUST_FREE);
    if (!r) {
        studio_response_free(answer);
        return MHD_NO;
    }
    MHD_add_response_header(r, "Content-Type", answer->content_type);
    MHD_add_response_header(r, "Cache-Control", "no-store");
    MHD_add_response_header(r, "X-Content-Type-Options", "nosniff");
    MHD_add_response_header(r, "X-Frame-Options", "DENY");
    MHD_add_response_header(r, "Referrer-Policy", "no-referrer");
    MHD_add_response_header(r, "Cross-Origin-Resource-Policy", "same-origin");
    MHD_add_response_header(r, "Content-Security-Policy",
                            "default-src 'self'; img-src 'self' blob: data:; "
                            "frame-ancestors 'none'; base-uri 'none'; form-action 'none'");
    enum MHD_Result ok = MHD_queue_response(c, answer->status, r);
    MHD_destroy_response(r);
    return ok;
}

static enum MHD_Result send_too_big(struct MHD_Connection *c)
{
    static const char text[] = "{\"error\":\"request body too large\"}";
    studio_response answer = {413, "application/json", (unsigned char *)text, sizeof text - 1,
                              true};
    return send_answer(c, &answer);
}

static enum MHD_Result on_request(void *cls, struct MHD_Connection *c, const char *url,
                                  const char *method, const char *version,
                                  const char *upload_data, size_t *upload_data_size,
                                  void **con_cls)
{
    studio *s = cls;
    upload *u = *con_cls;
    if (!u) {
        if (!(u = calloc(1, sizeof *u)))
            return MHD_NO;
        u->limit = body_limit(method, url);
        const char *length = MHD_lookup_connection_value(c, MHD_HEADER_KIND,
                                                         MHD_HTTP_HEADER_CONTENT_LENGTH);
        *con_cls = u;
        /* Refused before the body is read: the client learns at once and
         * the connection is closed after the answer. */
        if (length && strtoull(length, NULL, 10) > u->limit) {
            u->too_big = true;
            return send_too_big(c);
        }
        return MHD_YES;
    }
    if (*upload_data_size > 0) {
        size_t n = *upload_data_size;
        *upload_data_size = 0;
        if (u->too_big || n > u->limit - u->len) {
            u->too_big = true;
            return MHD_YES;
        }
        if (u->len + n > u->capacity) {
            size_t cap = u->capacity ? u->capacity : 64u << 10;
            while (cap < u->len + n)
                cap *= 2;
            if (cap > u->limit)
                cap = u->limit;
            unsigned char *grown = realloc(u->data, cap);
            if (!grown) {
                u->too_big = true;
                return MHD_YES;
            }
            u->data = grown;
            u->capacity = cap;
        }
        memcpy(u->data + u->len, upload_data, n);
        u->len += n;
        return MHD_YES;
    }
    if (u->too_big)
        return send_too_big(c);
    studio_request req = {
        .method = method,
        .path = url,
        .host = MHD_lookup_connection_value(c, MHD_HEADER_KIND, MHD_HTTP_HEADER_HOST),
        .origin = MHD_lookup_connection_value(c, MHD_HEADER_KIND, "Origin"),
        .token = MHD_lookup_connection_value(c, MHD_HEADER_KIND, STUDIO_TOKEN_HEADER),
        .arg = lookup_arg,
        .arg_user = c,
        .body = u->data ? u->data : (const unsigned char *)"", /* never NULL */
        .body_len = u->len,
    };
    studio_response answer;
    studio_handle(s, &req, &answer);
    return send_answer(c, &answer);
}

static void on_completed(void *cls, struct MHD_Connection *c, void **con_cls,
                         enum MHD_RequestTerminationCode toe)
{
    upload *u = *con_cls;
    if (u) {
        free(u->data);
        free(u);
    }
    *con_cls = NULL;
}

int studio_listen(const char *address, unsigned port, unsigned *bound_port, char *error,
                  size_t error_size)
{
    struct sockaddr_storage addr;
    memset(&addr, 0, sizeof addr);
    struct sockaddr_in *v4 = (struct sockaddr_in *)&addr;
    struct sockaddr_in6 *v6 = (struct sockaddr_in6 *)&addr;
    socklen_t len;
    if (inet_pton(AF_INET, address, &v4->sin_addr) == 1) {
        v4->sin_family = AF_INET;
        v4->sin_port = htons((uint16_t)port);
        len = sizeof *v4;
    } else if (inet_pton(AF_INET6, address, &v6->sin6_addr) == 1) {
        v6->sin6_family = AF_INET6;
        v6->sin6_port = htons((uint16_t)port);
        len = sizeof *v6;
    } else {
        snprintf(error, error_size, "'%s' is not an IPv4 or IPv6 address", address);
        return -1;
    }
    int fd = socket(addr.ss_family, SOCK_STREAM | SOCK_CLOEXEC, 0);
    int one = 1;
    if (fd < 0 || setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one) != 0 ||
        bind(fd, (struct sockaddr *)&addr, len) != 0 || listen(fd, 64) != 0 ||
        getsockname(fd, (struct sockaddr *)&addr, &len) != 0) {
        snprintf(error, error_size, "cannot listen on %s port %u: %s", address, port,
                 strerror(errno));
        if (fd >= 0)
            close(fd);
        return -1;
    }
    *bound_port = ntohs(addr.ss_family == AF_INET ? v4->sin_port : v6->sin6_port);
    return fd;
}

struct studio_server {
    struct MHD_Daemon *daemon;
};

studio_server *studio_server_start(studio *s, int listen_fd, char *error, size_t error_size)
{
    studio_server *server = calloc(1, sizeof *server);
    if (!server) {
        snprintf(error, error_size, "out of memory");
        return NULL;
    }
    /* A thread per connection: a long fit holds up only its own caller. */
    server->daemon = MHD_start_daemon(
        MHD_USE_THREAD_PER_CONNECTION | MHD_USE_INTERNAL_POLLING_THREAD, 0, NULL, NULL,
        on_request, s, MHD_OPTION_LISTEN_SOCKET, listen_fd, MHD_OPTION_NOTIFY_COMPLETED,
        on_completed, NULL, MHD_OPTION_CONNECTION_LIMIT, MAX_CONNECTIONS,
        MHD_OPTION_CONNECTION_TIMEOUT, IDLE_TIMEOUT_SECONDS, MHD_OPTION_END);
    if (!server->daemon) {
        snprintf(error, error_size, "the HTTP server did not start");
        free(server);
        return NULL;
    }
    return server;
}

void studio_server_stop(studio_server *server)
{
    if (!server)
        return;
    MHD_stop_daemon(server->daemon);
    free(server);
}
