/*
 * terrafit command-line tool: the subcommands' entry points and what they
 * share — option tables that drive parsing and --help alike, the common
 * options (SPEC, -o, --size, --origin, --step, --threads, --quiet), strict
 * number parsing, the message conventions, JSON output and the progress bar.
 */
#ifndef TF_CLI_H
#define TF_CLI_H

#include <math.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include <cJSON.h>

#include "terrafit/terrafit.h"

#if defined(__GNUC__)
#define CLI_PRINTF(fmt, args) __attribute__((format(printf, fmt, args)))
#else
#define CLI_PRINTF(fmt, args)
#endif

/* Exit statuses of every command. */
enum {
    CLI_EXIT_OK = 0,
    CLI_EXIT_FAILURE = 1, /* bad input file, I/O, a limit of the library */
    CLI_EXIT_USAGE = 2    /* unknown option, missing or out-of-range argument */
};

/* Subcommands. argv[0] is the command's name ("render"), as a main() sees
 * its program name; "--help" anywhere prints the usage and returns 0. */
int cmd_fit(int argc, char **argv);
int cmd_compare(int argc, char **argv);
int cmd_render(int argc, char **argv);
int cmd_preview(int argc, char **argv);
int cmd_mesh(int argc, char **argv);
int cmd_shader(int argc, char **argv);
int cmd_erode(int argc, char **argv);
int cmd_tiles(int argc, char **argv);
int cmd_bench(int argc, char **argv);
int cmd_sample(int argc, char **argv);
int cmd_validate(int argc, char **argv);
int cmd_info(int argc, char **argv);
int cmd_studio(int argc, char **argv);

/* ---- messages: every line a command prints on stderr starts with
 * "terrafit COMMAND: " (COMMAND NULL: "terrafit: ", for the tool itself). */

/* The problem and "Try 'terrafit COMMAND --help'.". Returns CLI_EXIT_USAGE. */
int cli_usage_error(const char *command, const char *fmt, ...) CLI_PRINTF(2, 3);
/* The problem. Returns CLI_EXIT_FAILURE. */
int cli_fail(const char *command, const char *fmt, ...) CLI_PRINTF(2, 3);
/* A library error: its message already names the file (and JSON path).
 * Returns CLI_EXIT_FAILURE. */
int cli_fail_error(const char *command, const tf_error *err);
/* "terrafit COMMAND: warning: ..." */
void cli_warn(const char *command, const char *fmt, ...) CLI_PRINTF(2, 3);
/* A one-line summary of what was written, for a person watching: printed
 * only when stderr is a terminal and `quiet` is not set, so scripts and
 * logs see nothing. */
void cli_summary(const char *command, bool quiet, const char *fmt, ...) CLI_PRINTF(3, 4);

/* ---- option tables, after git's parse-options: each command lists its
 * options once, as an array of cli_option ended by CLI_OPT_END(), and the
 * same table parses the command line and writes the --help text (and so
 * the man pages). Tables are usually local arrays of the command's
 * function, pointing into its request struct.
 *
 * Accepted: --name, --name=VALUE, --name VALUE, -x, -xVALUE, -x VALUE,
 * clusters of flags (-qv), and "--" to end options; options may come before
 * or after the operands. A lone "-" is an operand. */

typedef struct cli_option cli_option;

/* A CLI_OPT_CALLBACK's parser: store what `arg` says through opt->value and
 * return CLI_EXIT_OK, or report it with cli_usage_error (which returns
 * CLI_EXIT_USAGE). */
typedef int (*cli_option_fn)(const char *command, const cli_option *opt, const char *arg);

typedef enum {
    CLI_OPTION_END = 0,
    CLI_OPTION_HELP,     /* print the help; parsing stops (status 0); the parser's own */
    CLI_OPTION_FLAG,     /* bool *value = true */
    CLI_OPTION_STRING,   /* const char **value = the argument */
    CLI_OPTION_COUNT,    /* unsigned long long *value: decimal digits, min..max */
    CLI_OPTION_NUMBER,   /* double *value: a finite number within min and max */
    CLI_OPTION_CALLBACK, /* parse(command, option, argument) */
} cli_option_kind;

/* CLI_OPTION_NUMBER: the bounds are exclusive rather than inclusive. */
enum { CLI_ABOVE_MIN = 1, CLI_BELOW_MAX = 2 };

struct cli_option {
    cli_option_kind kind;
    char short_name; /* or 0 */
    const char *long_name;
    void *value;
    const char *arg_name; /* "WxH" in the help; NULL for a flag */
    /* Wrapped to the help's columns. A '\n' ends a line; a line that then
     * starts with a space is kept as written (a table inside the help). */
    const char *help;
    double min, max; /* COUNT and NUMBER (+-INFINITY: no bound) */
    unsigned bounds; /* NUMBER: CLI_ABOVE_MIN, CLI_BELOW_MAX */
    cli_option_fn parse;
    /* When not NULL, set to the argument as given (a flag: its long name),
     * so a command can tell a default from a choice and pass it on. */
    const char **seen;
};

/* (p) as a `type *`, with a compiler warning when it is another pointer:
 * the tables' void *value stays type-checked. */
#define CLI_TYPED(type, p) (1 ? (p) : (type *)0)

/* Each entry takes optional trailing designators, e.g. `.seen = &text`.
 * -h, --help is every table's last option without being listed. */
#define CLI_OPT_END() {.kind = CLI_OPTION_END}
#define CLI_OPT_FLAG(s, l, v, h, ...)                                                       \
    {.kind = CLI_OPTION_FLAG, .short_name = (s), .long_name = (l),                          \
     .value = CLI_TYPED(bool, v), .help = (h), __VA_ARGS__}
#define CLI_OPT_STRING(s, l, v, a, h, ...)                                                  \
    {.kind = CLI_OPTION_STRING, .short_name = (s), .long_name = (l),                        \
     .value = CLI_TYPED(const char *, v), .arg_name = (a), .help = (h), __VA_ARGS__}
#define CLI_OPT_COUNT(s, l, v, a, lo, hi, h, ...)                                           \
    {.kind = CLI_OPTION_COUNT, .short_name = (s), .long_name = (l),                         \
     .value = CLI_TYPED(unsigned long long, v), .arg_name = (a), .help = (h),               \
     .min = (double)(lo), .max = (double)(hi), __VA_ARGS__}
#define CLI_OPT_NUMBER(s, l, v, a, lo, hi, b, h, ...)                                       \
    {.kind = CLI_OPTION_NUMBER, .short_name = (s), .long_name = (l),                        \
     .value = CLI_TYPED(double, v), .arg_name = (a), .help = (h), .min = (lo), .max = (hi), \
     .bounds = (b), __VA_ARGS__}
#define CLI_OPT_CALLBACK(s, l, v, a, fn, h, ...)                                            \
    {.kind = CLI_OPTION_CALLBACK, .short_name = (s), .long_name = (l), .value = (v),        \
     .arg_name = (a), .parse = (fn), .help = (h), __VA_ARGS__}

/* What --help prints around the option table. */
typedef struct {
    const char *name;   /* "render" */
    const char *usage;  /* the synopsis after "terrafit NAME ", one a line */
    const char *about;  /* paragraphs between the synopsis and the options */
    const char *footer; /* paragraphs after them, or NULL */
} cli_command;

enum {
    CLI_PARSE_HELP = -1, /* --help was printed */
    CLI_PARSE_ERROR = -2 /* a usage error was printed */
};

/* Parse argv[1..argc-1] with `options`. Returns the number of operands,
 * which are moved in order to argv[0..n-1], or CLI_PARSE_HELP or
 * CLI_PARSE_ERROR (cli_parse_status gives the exit status of those). */
int cli_parse(const cli_command *command, const cli_option *options, int argc, char **argv);
#define cli_parse_status(n) ((n) == CLI_PARSE_HELP ? CLI_EXIT_OK : CLI_EXIT_USAGE)

/* The help text cli_parse prints for --help. */
void cli_print_help(FILE *out, const cli_command *command, const cli_option *options);

/* A help text with numbers in it, formatted once into storage that lives
 * as long as the program (help texts are small and few). */
const char *cli_textf(const char *fmt, ...) CLI_PRINTF(1, 2);

/* ---- the common options, shared by the commands that sample a spec on a
 * grid and write a file (render, preview, mesh, tiles, ...): one struct,
 * one parser each, one set of checks. Help texts stay per command, since
 * each says what the option means there. */

#define CLI_MAX_THREADS 1024

typedef struct {
    const char *spec;   /* the SPEC operand (cli_common_spec) */
    const char *output; /* -o */
    unsigned long long width, height; /* --size WxH (a value too large: ULLONG_MAX) */
    double origin_x, origin_y;        /* --origin X,Y */
    double step;                      /* --step S, > 0 */
    unsigned long long threads;       /* --threads N, 0 (one per core) to CLI_MAX_THREADS */
    bool quiet;                       /* --quiet */
    /* The arguments as given, NULL when the option was not. */
    const char *size_text, *origin_text, *step_text, *threads_text;
} cli_common;

/* Origin 0,0, step 1, threads 0 (one per core), size width x height. */
void cli_common_init(cli_common *c, unsigned long long width, unsigned long long height);

int cli_parse_size(const char *command, const cli_option *opt, const char *arg);
int cli_parse_origin(const char *command, const cli_option *opt, const char *arg);

#define CLI_OPT_OUTPUT(c, a, h) CLI_OPT_STRING('o', "output", &(c)->output, a, h)
#define CLI_OPT_SIZE(c, h)                                                                 \
    CLI_OPT_CALLBACK('s', "size", CLI_TYPED(cli_common, c), "WxH", cli_parse_size, h,      \
                     .seen = &(c)->size_text)
#define CLI_OPT_ORIGIN(c, h)                                                               \
    CLI_OPT_CALLBACK(0, "origin", CLI_TYPED(cli_common, c), "X,Y", cli_parse_origin, h,    \
                     .seen = &(c)->origin_text)
#define CLI_OPT_STEP(c, h)                                                                 \
    CLI_OPT_NUMBER(0, "step", &(c)->step, "S", 0.0, INFINITY, CLI_ABOVE_MIN, h,            \
                   .seen = &(c)->step_text)
#define CLI_OPT_THREADS(c, h)                                                              \
    CLI_OPT_COUNT('j', "threads", &(c)->threads, "N", 0, CLI_MAX_THREADS, h,               \
                  .seen = &(c)->threads_text)
#define CLI_OPT_QUIET(c, h) CLI_OPT_FLAG('q', "quiet", &(c)->quiet, h)

/* Exactly one operand, the spec (or what spec_name names): "missing SPEC
 * (a terrain JSON file)" or "one SPEC expected, got 'a' and 'b'"; and -o
 * given unless out_name is NULL: "missing -o OUT (the file to write)". */
int cli_common_operands(const char *command, cli_common *c, int count, char **operands,
                        const char *spec_name, const char *spec_what, const char *out_name,
                        const char *out_what);
/* --size within what one image may hold (TF_MAX_IMAGE_SIDE a side,
 * TF_MAX_IMAGE_PIXELS in all); a usage error otherwise. */
int cli_common_image_size(const char *command, const cli_common *c);

/* ---- heightmap and picture outputs */

/* --format FORMAT into a tf_heightmap_format (opt->value). */
int cli_parse_heightmap_format(const char *command, const cli_option *opt, const char *arg);
/* Its help: the names, and how the name of `output` ("OUT") decides. */
const char *cli_heightmap_format_help(const char *output);
#define CLI_OPT_HEIGHTMAP_FORMAT(v, seen_text, output)                                     \
    CLI_OPT_CALLBACK('f', "format", CLI_TYPED(tf_heightmap_format, v), "FORMAT",            \
                     cli_parse_heightmap_format, cli_heightmap_format_help(output),         \
                     .seen = (seen_text))
/* --normalize MODE into a tf_normalize (opt->value). */
int cli_parse_normalize(const char *command, const cli_option *opt, const char *arg);
/* "png16, png8, pgm16, r16, f32, pfm or asc", from the library's table. */
const char *cli_heightmap_format_names(void);
/* The format of the heightmap file `path`: `*format` as is when --format
 * was given, else tf_heightmap_format_for_path's choice; a usage error for
 * a name whose extension is no heightmap format (out.jpg). */
int cli_heightmap_output_format(const char *command, const char *option, const char *path,
                                bool format_given, tf_heightmap_format *format);
/* --normalize none and --height-scale need a float format (f32, pfm, asc). */
int cli_check_float_options(const char *command, tf_heightmap_format format,
                            tf_normalize normalize, bool height_scale_given,
                            const char *integer_modes);
/* A picture (always an RGB PNG) may be named anything but another format:
 * "x.jpg" is a usage error naming `option`, "x.png" or "x" are fine. */
int cli_check_png_name(const char *command, const char *option, const char *path);

/* ---- files a command reads and writes */

/* One file of a command line: what names it ("-o", "--preview", "the
 * reference") and its path. NULL paths are skipped. */
typedef struct {
    const char *role;
    const char *path;
} cli_file;

/* Checks, before any work, that no output is the same file as an input or
 * as another output: a usage error naming both otherwise. "The same file"
 * is the same device and inode, so hard links, symbolic links and other
 * spellings of one name are caught; an output that does not exist yet is
 * compared by its folder's device and inode and its last component. Then
 * that each output can be written (not a folder, device or pipe; its folder
 * exists and is writable): a failure (status 1) with the message the writer
 * would give. */
int cli_check_files(const char *command, const cli_file *inputs, size_t input_count,
                    const cli_file *outputs, size_t output_count);

/* ---- inputs */

/* A terrain spec rather than a heightmap: a file named *.json, or whose
 * first non-blank byte opens a JSON object (no heightmap format starts with
 * '{'). A file that cannot be opened is not a spec; its reader says why. */
bool cli_looks_like_spec(const char *path);
/* tf_layer_map_load, warning when a colour image's channels differ: its
 * heights come from the red channel alone (docs/input.md), which a colour
 * photo does not mean. The warning first erases `progress` (or NULL). */
typedef struct cli_progress cli_progress;
tf_layer_map *cli_load_layer_map(const char *command, const char *path, cli_progress *progress,
                                 tf_error *err);
/* The last component of a path. */
const char *cli_base_name(const char *path);

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

/* ---- JSON output (--json): documents built with cJSON and printed in
 * one layout: two-space indentation, the root's members one a line, and
 * the members of the root members named in `expanded` one a line too; all
 * else on its member's line, so each record can be read with grep. */

/* A finite number as text that reads back as the same double: %.15g when
 * exact, else %.17g, with '.' whatever the locale. Returns `text`. */
#define CLI_NUMBER_SIZE 40
const char *cli_exact_number(double v, char text[CLI_NUMBER_SIZE]);
/* cli_exact_number's text (cJSON's own printer allows itself an epsilon);
 * null when not finite, as JSON has no NaN. */
cJSON *cli_json_number(double v);
/* Add to an object, with these values; false when out of memory. */
bool cli_json_put(cJSON *object, const char *key, cJSON *item);
bool cli_json_put_number(cJSON *object, const char *key, double v);
bool cli_json_put_string(cJSON *object, const char *key, const char *s);
/* Print `root` and a newline on stdout; CLI_EXIT_OK, or a failure for
 * COMMAND when `root` is NULL (building it ran out of memory). Frees root. */
int cli_json_print(const char *command, cJSON *root, const char *const *expanded);

/* ---- progress bar on stderr: "render  [#####.....]  45%", redrawn in
 * place with \r, at most ten times a second, and erased by finish (call it
 * before printing anything else to stderr). Silent when stderr is not a
 * terminal or `quiet` is set. */

struct cli_progress {
    const char *label;
    bool enabled;
    int percent_drawn;  /* -1: nothing drawn yet */
    size_t width_drawn; /* characters on the line, for erasing */
    double last_draw_seconds;
};

void cli_progress_start(cli_progress *progress, const char *label, bool quiet);
void cli_progress_update(cli_progress *progress, size_t done, size_t total);
/* Replace the bar with "LABEL  VERB FILE" (the file's last component) for
 * a stage that reports no progress of its own, such as writing a file. */
void cli_progress_note(cli_progress *progress, const char *verb, const char *path);
void cli_progress_finish(cli_progress *progress);
/* A tf_progress_fn that draws `user`, a cli_progress. */
void cli_progress_callback(void *user, size_t done, size_t total);

#endif /* TF_CLI_H */
