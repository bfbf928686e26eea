/*
 * Shared command-line plumbing: the message shapes every command uses
 * (usage errors, failures, warnings, summaries) and strict number parsing
 * (the whole text consumed, overflow detected, no NaN or infinity).
 */
#define _POSIX_C_SOURCE 200809L /* isatty */

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"

/* ---- messages */

/* "terrafit[ COMMAND]: [kind]<message>" and a newline on stderr. */
static void put_message(const char *command, const char *kind, const char *fmt, va_list ap)
{
    fprintf(stderr, "terrafit%s%s: %s", command ? " " : "", command ? command : "", kind);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
}

int cli_usage_error(const char *command, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    put_message(command, "", fmt, ap);
    va_end(ap);
    fprintf(stderr, "Try 'terrafit%s%s --help'.\n", command ? " " : "", command ? command : "");
    return CLI_EXIT_USAGE;
}

int cli_fail(const char *command, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    put_message(command, "", fmt, ap);
    va_end(ap);
    return CLI_EXIT_FAILURE;
}

int cli_fail_error(const char *command, const tf_error *err)
{
    return cli_fail(command, "%s", err->message[0] ? err->message : "unknown error");
}

void cli_warn(const char *command, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    put_message(command, "warning: ", fmt, ap);
    va_end(ap);
}

void cli_summary(const char *command, bool quiet, const char *fmt, ...)
{
    /* For a person at a terminal only: a script or a log asked for the
     * files, not for chatter (fit, older than this rule, prints its
     * summary unless --quiet). */
    if (quiet || !isatty(STDERR_FILENO))
        return;
    va_list ap;
    va_start(ap, fmt);
    put_message(command, "", fmt, ap);
    va_end(ap);
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
