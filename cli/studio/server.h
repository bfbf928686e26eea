/*
 * terrafit studio's HTTP server (libmicrohttpd): a listening socket opened
 * first, so the port is known before the session that checks Host headers
 * against it is made, then the server over it.
 */
#ifndef TF_STUDIO_SERVER_H
#define TF_STUDIO_SERVER_H

#include "studio.h"

typedef struct studio_server studio_server;

/* A socket listening on address:port (port 0: one the system picks, set in
 * *bound_port). The descriptor, or -1 with `error` filled. */
int studio_listen(const char *address, unsigned port, unsigned *bound_port, char *error,
                  size_t error_size);
/* Serve `s` on the socket (the server then owns it). NULL with `error` filled. */
studio_server *studio_server_start(studio *s, int listen_fd, char *error, size_t error_size);
/* Stop serving; in-flight requests finish first. NULL is allowed. */
void studio_server_stop(studio_server *server);

#endif /* TF_STUDIO_SERVER_H */
