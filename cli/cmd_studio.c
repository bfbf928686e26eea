/*
 * `terrafit studio`: the local web designer (docs/studio.md). Parses the
 * options, makes the session token, opens the socket and serves until
 * SIGINT or SIGTERM; the work is in cli/studio/.
 */
#define _DEFAULT_SOURCE /* getrandom, posix_spawnp, sigwait */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cli.h"
#include "studio/server.h"
#include "studio/studio.h"

extern char **environ;

static const cli_command STUDIO = {
    .name = "studio",
    .usage = "[PROJECT_DIR] [--port N] [--listen ADDR] [--open]",
    .about = "Start the designer, a web page served on this machine, and print its URL:\n"
             "load reference layers, fit them (\"Find noise\"), edit each layer's\n"
             "redistribution curve, frequency, amplitude and mask with live previews,\n"
             "compare the reference and the synthesis, pan and zoom the endless\n"
             "terrain, look at it in 3D, undo and redo, and save the spec (terrain.json,\n"
             "as `terrafit fit` writes it), the references (references/), the render\n"
             "settings (render.json) and the project list (project.json) in\n"
             "PROJECT_DIR (default: the current folder).\n"
             "\n"
             "The URL holds a random session token that every API call needs; the\n"
             "server answers only requests that name it by its address (no other site\n"
             "can reach it through the browser) and touches files only inside\n"
             "PROJECT_DIR.\n",
    .footer = "Runs until interrupted (Ctrl-C, SIGTERM). Details: docs/studio.md.\n",
};

/* 2 * STUDIO_TOKEN_BYTES hex digits from the kernel's random source. */
static int make_token(char *out)
{
    unsigned char bytes[STUDIO_TOKEN_BYTES];
    size_t got = 0;
    while (got < sizeof bytes) {
        ssize_t n = getrandom(bytes + got, sizeof bytes - got, 0);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            break;
        got += (size_t)n;
    }
    if (got < sizeof bytes) {
        int fd = open("/dev/urandom", O_RDONLY | O_CLOEXEC);
        got = 0;
        while (fd >= 0 && got < sizeof bytes) {
            ssize_t n = read(fd, bytes + got, sizeof bytes - got);
            if (n <= 0)
                break;
            got += (size_t)n;
        }
        if (fd >= 0)
            close(fd);
        if (got < sizeof bytes)
            return -1;
    }
    for (size_t k = 0; k < sizeof bytes; k++)
        snprintf(out + 2 * k, 3, "%02x", bytes[k]);
    return 0;
}

/* --open: the desktop's browser, without a shell. */
static void open_browser(const char *url)
{
    pid_t pid;
    char *argv[] = {(char *)"xdg-open", (char *)url, NULL};
    if (posix_spawnp(&pid, "xdg-open", NULL, NULL, argv, environ) != 0)
        cli_warn(STUDIO.name, "--open: could not run xdg-open; open the URL yourself");
}

int cmd_studio(int argc, char **argv)
{
    unsigned long long port = 0;
    const char *listen_address = NULL;
    bool open = false;
    const cli_option options[] = {
        CLI_OPT_COUNT('p', "port", &port, "N", 0, 65535,
                      "the TCP port (default 0: a free one the system picks)"),
        CLI_OPT_STRING(0, "listen", &listen_address, "ADDR",
                       "listen on this IPv4 or IPv6 address instead of 127.0.0.1\n"
                       "(warns: other machines can then reach the server)"),
        CLI_OPT_FLAG(0, "open", &open, "open the URL in the desktop's browser (xdg-open)"),
        CLI_OPT_END(),
    };
    int operands = cli_parse(&STUDIO, options, argc, argv);
    if (operands < 0)
        return cli_parse_status(operands);
    if (operands > 1)
        return cli_usage_error(STUDIO.name, "one PROJECT_DIR expected, got %d", operands);
    const char *dir = operands == 1 ? argv[0] : ".";
    struct stat st;
    if (stat(dir, &st) != 0 || !S_ISDIR(st.st_mode))
        return cli_fail(STUDIO.name, "%s: not a folder", dir);
    const char *address = listen_address ? listen_address : "127.0.0.1";
    if (listen_address && strcmp(listen_address, "127.0.0.1") != 0 &&
        strcmp(listen_address, "::1") != 0)
        cli_warn(STUDIO.name,
                 "listening on %s: other machines may reach the server (the token is "
                 "all that keeps them out, and HTTP is not encrypted)",
                 listen_address);

    char token[2 * STUDIO_TOKEN_BYTES + 1];
    if (make_token(token) != 0)
        return cli_fail(STUDIO.name, "no random source for the session token");
    char error[256];
    unsigned bound;
    int fd = studio_listen(address, (unsigned)port, &bound, error, sizeof error);
    if (fd < 0)
        return cli_fail(STUDIO.name, "%s", error);

    /* The names a browser may use for this server in its Host header. */
    char bracketed[64];
    const char *hosts[4] = {"127.0.0.1", "localhost", "[::1]", NULL};
    size_t host_count = 3;
    if (listen_address) {
        bool v6 = strchr(listen_address, ':') != NULL;
        snprintf(bracketed, sizeof bracketed, v6 ? "[%s]" : "%s", listen_address);
        hosts[host_count++] = bracketed;
    }
    const char *three = TF_THREE_JS;
    studio_config config = {
        .project_dir = dir,
        .hosts = hosts,
        .host_count = host_count,
        .port = bound,
        .token = token,
        .three_path = *three && access(three, R_OK) == 0 ? three : NULL,
    };
    tf_error err;
    studio *s = studio_new(&config, &err);
    if (!s) {
        close(fd);
        return cli_fail_error(STUDIO.name, &err);
    }
    /* Signals are taken by sigwait below: blocked here, before the
     * server's threads exist, so that they inherit the mask. An ignored
     * signal would never arrive (a shell starts background jobs with
     * SIGINT ignored), so INT and TERM get their default back; an ignored
     * HUP (nohup) stays ignored. */
    signal(SIGINT, SIG_DFL);
    signal(SIGTERM, SIG_DFL);
    sigset_t stop;
    sigemptyset(&stop);
    sigaddset(&stop, SIGINT);
    sigaddset(&stop, SIGTERM);
    sigaddset(&stop, SIGHUP);
    pthread_sigmask(SIG_BLOCK, &stop, NULL);
    studio_server *server = studio_server_start(s, fd, error, sizeof error);
    if (!server) {
        close(fd);
        studio_free(s);
        return cli_fail(STUDIO.name, "%s", error);
    }
    char url[256];
    char host[80];
    snprintf(host, sizeof host, "%s",
             listen_address ? bracketed : "127.0.0.1");
    snprintf(url, sizeof url, "http://%s:%u/?token=%s", host, bound, token);
    printf("%s\n", url);
    fflush(stdout);
    if (isatty(STDERR_FILENO))
        fprintf(stderr, "terrafit studio: serving %s; Ctrl-C stops\n", dir);
    if (config.three_path == NULL && isatty(STDERR_FILENO))
        cli_warn(STUDIO.name, "three.js not found (%s): no 3D view",
                 *three ? three : "not configured");
    if (open)
        open_browser(url);
    int sig = 0;
    sigwait(&stop, &sig);
    studio_server_stop(server);
    studio_free(s);
    return CLI_EXIT_OK;
}
