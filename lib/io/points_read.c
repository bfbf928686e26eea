/*
 * Points as text, "x y" a line: what `terrafit sample` reads from stdin,
 * parsed here so that a program or a fuzz target reads exactly what the
 * tool reads. Memory is one fixed line buffer, whatever the input.
 */
#define _POSIX_C_SOURCE 200809L /* getc_unlocked, flockfile */

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "base/error.h"
#include "io/io_internal.h"
#include "terrafit/terrafit.h"

static bool is_blank(char c)
{
    return c == ' ' || c == '\t';
}

/* A strict coordinate: a finite number, written as a C float literal that
 * starts with a sign, a digit or a point ("nan", "inf" and overflowing
 * literals are not coordinates). */
static bool parse_coordinate(const io_token *tok, double *v)
{
    char c = tok->text[0];
    return (c == '-' || c == '+' || c == '.' || (c >= '0' && c <= '9')) &&
           io_parse_double(tok, v) && isfinite(*v);
}

/* The next run of non-blank characters of a line, or false at its end. */
static bool next_field(const char **p, const char *end, io_token *tok)
{
    const char *s = *p;
    while (s < end && is_blank(*s))
        s++;
    if (s == end)
        return false;
    tok->text = s;
    while (s < end && !is_blank(*s))
        s++;
    tok->len = (size_t)(s - tok->text);
    *p = s;
    return true;
}

/* One line without its end or comment: 1 a point, 0 nothing (blank), -1
 * malformed. */
static int parse_line(const char *line, size_t length, double *x, double *y)
{
    const char *p = line, *end = line + length;
    io_token a, b, extra;
    if (!next_field(&p, end, &a))
        return 0;
    if (!next_field(&p, end, &b) || next_field(&p, end, &extra))
        return -1;
    return parse_coordinate(&a, x) && parse_coordinate(&b, y) ? 1 : -1;
}

int tf_points_read(FILE *in, const char *name, tf_point_fn fn, void *user, tf_error *err)
{
    tf_error_clear(err);
    if (!in || !fn) {
        tf_error_set(err, TF_ERR_ARGUMENT, "tf_points_read: %s is NULL", in ? "fn" : "in");
        return -1;
    }
    if (!name)
        name = "input";
    char line[TF_POINTS_MAX_LINE + 1];
    unsigned long long number = 0;
    int status = 0;
    bool at_end = false;
    flockfile(in);
    while (!at_end && status == 0) {
        /* The line as its fields and one blank between them: padding of
         * any length costs nothing, and a comment is skipped unstored. */
        size_t length = 0;
        bool has_nul = false, too_long = false, comment = false, any = false;
        int c;
        while ((c = getc_unlocked(in)) != EOF && c != '\n') {
            any = true;
            if (comment)
                continue;
            if (is_blank((char)c)) {
                if (length > 0 && line[length - 1] != ' ')
                    c = ' ';
                else
                    continue;
            } else if (c == '#' && length == 0) {
                comment = true;
                continue;
            }
            if (c == '\0')
                has_nul = true;
            if (length < sizeof line)
                line[length++] = (char)c;
            else
                too_long = true;
        }
        if (c == EOF) {
            at_end = true;
            if (!any)
                break; /* no line after the last newline */
        }
        number++;
        /* CRLF files as well as LF. */
        if (!too_long && length > 0 && line[length - 1] == '\r')
            length--;
        if (too_long || length > TF_POINTS_MAX_LINE) {
            tf_error_set(err, TF_ERR_LIMIT, "%s:%llu: more than %d bytes besides blanks", name,
                         number, TF_POINTS_MAX_LINE);
            status = -1;
            break;
        }
        double x, y;
        int parsed = has_nul ? -1 : parse_line(line, length, &x, &y);
        if (parsed < 0) {
            tf_error_set(err, TF_ERR_PARSE, "%s:%llu: expected two numbers \"x y\"", name,
                         number);
            status = -1;
        } else if (parsed > 0) {
            status = fn(user, x, y);
        }
    }
    if (status == 0 && ferror(in)) {
        tf_error_set(err, TF_ERR_IO, "%s: read error", name);
        status = -1;
    }
    funlockfile(in);
    return status;
}
