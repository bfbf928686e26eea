/*
 * terrafit command-line tool: the subcommands' entry points and what they
 * share — a small long/short option parser, strict number parsing, the
 * message conventions and the stderr progress bar.
 */
#ifndef TF_CLI_H
#define TF_CLI_H

#include <stdbool.h>
#include <stddef.h>

#include "terrafit/runtime.h"

#if defined(__GNUC__)
#define CLI_PRINTF(fmt, args) __attribute__((format(printf, fmt, args)))
#else
#define CLI_PRINTF(fmt, args)
#endif

/* Exit statuses of every command. */
enum {
    CLI_EXIT_OK = 0,
    CLI_EXIT_FAILURE = 1, /* bad input, I/O, a limit */
    CLI_EXIT_USAGE = 2    /* unknown option, missing argument, malformed number */
};

/* Subcommands. argv[0] is the command's name ("render"), as a main() sees
 * its program name; "--help" anywhere prints the usage and returns 0. */
int cmd_fit(int argc, char **argv);
int cmd_compare(int argc, char **argv);
int cmd_render(int argc, char **argv);
int cmd_preview(int argc, char **argv);
int cmd_mesh(int argc, char **argv);
int cmd_erode(int argc, char **argv);
int cmd_tiles(int argc, char **argv);
int cmd_bench(int argc, char **argv);
int cmd_sample(int argc, char **argv);
int cmd_validate(int argc, char **argv);
int cmd_info(int argc, char **argv);

/* ---- messages */

/* "terrafit COMMAND: <problem>" and "Try 'terrafit COMMAND --help'." on
 * stderr (COMMAND NULL: the tool itself). Returns CLI_EXIT_USAGE. */
int cli_usage_error(const char *command, const char *fmt, ...) CLI_PRINTF(2, 3);
/* "terrafit COMMAND: <problem>" on stderr (COMMAND NULL: "terrafit: ").
 * Returns CLI_EXIT_FAILURE. */
int cli_fail(const char *command, const char *fmt, ...) CLI_PRINTF(2, 3);
/* A library error, as "terrafit: <message>": the message already names
 * the file and JSON path. Returns CLI_EXIT_FAILURE. */
int cli_fail_error(const tf_error *err);

/* ---- options: a getopt_long-like parser without global state.
 * Accepts --name, --name=VALUE, --name VALUE, -x, -xVALUE, -x VALUE,
 * clusters of flags (-qv), and "--" to end options; options may come before
 * or after positional arguments. A lone "-" is a positional argument. */

typedef struct {
    const char *name; /* long name without "--"; NULL ends a table */
    char short_name;  /* or 0 */
    bool has_value;
    int id; /* returned by cli_args_next; must be >= 0 */
} cli_option;

enum {
    CLI_ARGS_END = -1,        /* no arguments left */
    CLI_ARGS_POSITIONAL = -2, /* a positional argument, in ->value */
    CLI_ARGS_ERROR = -3       /* a usage error, already printed */
};

typedef struct {
    const char *command;       /* names the command in usage errors */
    const cli_option *options; /* table ended by a NULL name */
    int argc;
    char **argv;
    int next;            /* index of the next argv element to read */
    const char *cluster; /* the unread rest of a "-abc" cluster, or NULL */
    bool options_ended;  /* after "--" */
    const char *value;   /* the value or positional just returned */
} cli_args;

void cli_args_init(cli_args *args, const char *command, const cli_option *options, int argc,
                   char **argv);
/* The next option's id (with ->value set when it takes one), or one of
 * CLI_ARGS_END, CLI_ARGS_POSITIONAL, CLI_ARGS_ERROR. */
int cli_args_next(cli_args *args);

/* ---- strict numbers: the whole text, no surrounding space, finite. */

/* A finite number at the start of `text` (no leading space); *end is set
 * just past it. */
bool cli_parse_double_prefix(const char *text, double *out, const char **end);
bool cli_parse_double(const char *text, double *out);
/* Decimal digits only (no sign, no space). A value too large for the type
 * is reported as `*too_big` (true) with *out unspecified, so callers can
 * tell "malformed" from "beyond a limit". */
bool cli_parse_count(const char *text, unsigned long long *out, bool *too_big);
/* "A<sep>B", each part parsed as above. */
bool cli_parse_double_pair(const char *text, char sep, double *first, double *second);
bool cli_parse_count_pair(const char *text, char sep, unsigned long long *first,
                          unsigned long long *second, bool *too_big);

/* ---- options several commands share: each parses VALUE for COMMAND and
 * returns CLI_EXIT_OK, or prints the usage error and returns
 * CLI_EXIT_USAGE (the same message in every command). */

#define CLI_MAX_THREADS 1024

/* The one positional SPEC: the first sets *spec, a second is an error. */
int cli_option_spec(const char *command, const char *value, const char **spec);
/* --origin X,Y */
int cli_option_origin(const char *command, const char *value, double *x, double *y);
/* --step S, S > 0 */
int cli_option_step(const char *command, const char *value, double *step);
/* --threads N, 0 (one per core) to CLI_MAX_THREADS */
int cli_option_threads(const char *command, const char *value, unsigned *threads);

/* ---- inputs */

/* A terrain spec rather than a heightmap: a file named *.json, or whose
 * first non-blank byte opens a JSON object (no heightmap format starts with
 * '{'). A file that cannot be opened is not a spec; its reader says why. */
bool cli_looks_like_spec(const char *path);

/* ---- progress bar on stderr: "render  [#####.....]  45%", redrawn in
 * place with \r, at most ten times a second, and erased by finish (call it
 * before printing anything else to stderr). Silent when stderr is not a
 * terminal or `quiet` is set. */

typedef struct {
    const char *label;
    bool enabled;
    int percent_drawn;  /* -1: nothing drawn yet */
    size_t width_drawn; /* characters on the line, for erasing */
    double last_draw_seconds;
} cli_progress;

void cli_progress_start(cli_progress *progress, const char *label, bool quiet);
void cli_progress_update(cli_progress *progress, size_t done, size_t total);
/* Replace the bar with "LABEL  VERB FILE" (the file's last component) for
 * a stage that reports no progress of its own, such as writing a file. */
void cli_progress_note(cli_progress *progress, const char *verb, const char *path);
void cli_progress_finish(cli_progress *progress);

#endif /* TF_CLI_H */
