/*
 * Shared command-line plumbing: the option parser, strict number parsing
 * (the whole text consumed, overflow detected, no NaN or infinity) and the
 * two message shapes every command uses for usage errors and failures.
 */
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

/* ---- messages */

int cli_usage_error(const char *command, const char *fmt, ...)
{
    const char *space = command ? " " : "";
    const char *name = command ? command : "";
    va_list ap;
    fprintf(stderr, "terrafit%s%s: ", space, name);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fprintf(stderr, "\nTry 'terrafit%s%s --help'.\n", space, name);
    return CLI_EXIT_USAGE;
}

int cli_fail(const char *command, const char *fmt, ...)
{
    va_list ap;
    fprintf(stderr, "terrafit%s%s: ", command ? " " : "", command ? command : "");
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputc('\n', stderr);
    return CLI_EXIT_FAILURE;
}

int cli_fail_error(const tf_error *err)
{
    return cli_fail(NULL, "%s", err->message[0] ? err->message : "unknown error");
}

/* ---- options */

void cli_args_init(cli_args *args, const char *command, const cli_option *options, int argc,
                   char **argv)
{
    memset(args, 0, sizeof *args);
    args->command = command;
    args->options = options;
    args->argc = argc;
    args->argv = argv;
    args->next = 1; /* argv[0] is the command's own name */
}

static const cli_option *find_long(const cli_option *options, const char *name, size_t len)
{
    for (const cli_option *o = options; o->name; o++)
        if (strlen(o->name) == len && memcmp(o->name, name, len) == 0)
            return o;
    return NULL;
}

static const cli_option *find_short(const cli_option *options, char c)
{
    for (const cli_option *o = options; o->name; o++)
        if (o->short_name && o->short_name == c)
            return o;
    return NULL;
}

/* "--name", "--name=VALUE" or "--name VALUE". */
static int next_long(cli_args *args, const char *arg)
{
    const char *name = arg + 2;
    const char *equals = strchr(name, '=');
    size_t len = equals ? (size_t)(equals - name) : strlen(name);
    const cli_option *o = find_long(args->options, name, len);
    if (!o) {
        cli_usage_error(args->command, "unknown option '--%.*s'", (int)len, name);
        return CLI_ARGS_ERROR;
    }
    if (equals) {
        if (!o->has_value) {
            cli_usage_error(args->command, "option '--%s' takes no value", o->name);
            return CLI_ARGS_ERROR;
        }
        args->value = equals + 1;
        return o->id;
    }
    if (o->has_value) {
        if (args->next >= args->argc) {
            cli_usage_error(args->command, "option '--%s' needs a value", o->name);
            return CLI_ARGS_ERROR;
        }
        args->value = args->argv[args->next++];
    }
    return o->id;
}

/* One character of a "-abc" cluster: a flag, or an option whose value is
 * the rest of the cluster or else the next argument. */
static int next_short(cli_args *args)
{
    char c = *args->cluster++;
    const cli_option *o = find_short(args->options, c);
    if (!*args->cluster)
        args->cluster = NULL;
    if (!o) {
        cli_usage_error(args->command, "unknown option '-%c'", c);
        return CLI_ARGS_ERROR;
    }
    if (o->has_value) {
        if (args->cluster) {
            args->value = args->cluster;
            args->cluster = NULL;
        } else if (args->next < args->argc) {
            args->value = args->argv[args->next++];
        } else {
            cli_usage_error(args->command, "option '-%c' needs a value", c);
            return CLI_ARGS_ERROR;
        }
    }
    return o->id;
}

int cli_args_next(cli_args *args)
{
    args->value = NULL;
    if (args->cluster)
        return next_short(args);
    if (args->next >= args->argc)
        return CLI_ARGS_END;
    const char *arg = args->argv[args->next++];
    if (args->options_ended || arg[0] != '-' || arg[1] == '\0') {
        args->value = arg;
        return CLI_ARGS_POSITIONAL;
    }
    if (arg[1] == '-') {
        if (arg[2] == '\0') {
            args->options_ended = true;
            return cli_args_next(args);
        }
        return next_long(args, arg);
    }
    args->cluster = arg + 1;
    return next_short(args);
}

/* ---- numbers */

bool cli_parse_double_prefix(const char *text, double *out, const char **end)
{
    /* strtod would skip leading space and accept "nan", "inf" and
     * overflowing literals; none of them is a coordinate or a step. An
     * underflow to a tiny or zero value is harmless and accepted. */
    if (!text ||
        !(text[0] == '-' || text[0] == '+' || text[0] == '.' || (text[0] >= '0' && text[0] <= '9')))
        return false;
    char *stop;
    double v = strtod(text, &stop);
    if (stop == text || !isfinite(v))
        return false;
    *out = v;
    *end = stop;
    return true;
}

bool cli_parse_double(const char *text, double *out)
{
    const char *end;
    return cli_parse_double_prefix(text, out, &end) && *end == '\0';
}

/* Decimal digits at the start of `text`; *end just past them. */
static bool parse_count_prefix(const char *text, unsigned long long *out, const char **end,
                               bool *too_big)
{
    if (!text || !(text[0] >= '0' && text[0] <= '9'))
        return false;
    char *stop;
    errno = 0;
    unsigned long long v = strtoull(text, &stop, 10);
    if (errno == ERANGE)
        *too_big = true;
    *out = v;
    *end = stop;
    return true;
}

bool cli_parse_count(const char *text, unsigned long long *out, bool *too_big)
{
    const char *end;
    *too_big = false;
    return parse_count_prefix(text, out, &end, too_big) && *end == '\0';
}

bool cli_parse_double_pair(const char *text, char sep, double *first, double *second)
{
    const char *end;
    return cli_parse_double_prefix(text, first, &end) && *end == sep &&
           cli_parse_double(end + 1, second);
}

bool cli_parse_count_pair(const char *text, char sep, unsigned long long *first,
                          unsigned long long *second, bool *too_big)
{
    const char *end;
    *too_big = false;
    return parse_count_prefix(text, first, &end, too_big) && *end == sep &&
           parse_count_prefix(end + 1, second, &end, too_big) && *end == '\0';
}

/* ---- options several commands share */

int cli_option_spec(const char *command, const char *value, const char **spec)
{
    if (*spec)
        return cli_usage_error(command, "one SPEC expected, got '%s' and '%s'", *spec, value);
    *spec = value;
    return CLI_EXIT_OK;
}

int cli_option_origin(const char *command, const char *value, double *x, double *y)
{
    if (!cli_parse_double_pair(value, ',', x, y))
        return cli_usage_error(command, "invalid --origin '%s': expected X,Y, e.g. -256,128.5",
                               value);
    return CLI_EXIT_OK;
}

int cli_option_step(const char *command, const char *value, double *step)
{
    if (!cli_parse_double(value, step) || !(*step > 0.0))
        return cli_usage_error(command, "invalid --step '%s': expected a number > 0", value);
    return CLI_EXIT_OK;
}

int cli_option_threads(const char *command, const char *value, unsigned *threads)
{
    unsigned long long count;
    bool too_big;
    if (!cli_parse_count(value, &count, &too_big) || too_big || count > CLI_MAX_THREADS)
        return cli_usage_error(command, "invalid --threads '%s': expected 0 to %d", value,
                               CLI_MAX_THREADS);
    *threads = (unsigned)count;
    return CLI_EXIT_OK;
}

/* ---- inputs */

bool cli_looks_like_spec(const char *path)
{
    size_t len = strlen(path);
    if (len >= 5 && path[len - 5] == '.' && tolower((unsigned char)path[len - 4]) == 'j' &&
        tolower((unsigned char)path[len - 3]) == 's' &&
        tolower((unsigned char)path[len - 2]) == 'o' && tolower((unsigned char)path[len - 1]) == 'n')
        return true;
    FILE *f = fopen(path, "rb");
    if (!f)
        return false; /* the heightmap reader reports why */
    int c;
    size_t read = 0;
    do {
        c = getc(f);
        read++;
    } while (c != EOF && read < 4096 && (c == ' ' || c == '\t' || c == '\r' || c == '\n'));
    fclose(f);
    return c == '{';
}
