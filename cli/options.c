/*
 * The option tables' engine: one walk of the command line that parses each
 * option as its table entry says, and the --help text written from the
 * same entries, so an option cannot be parsed one way and documented another.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

/* Help lines stay within this many columns. Descriptions start two
 * columns after the longest term, up to MAX_TERM; a longer term puts its
 * description on the next line (which scripts/make-man.sh would misread:
 * today's longest is 22). */
#define HELP_WIDTH 79
#define MAX_TERM 24

/* ---- help texts with numbers */

const char *cli_textf(const char *fmt, ...)
{
    /* Help texts live as long as the program; a fixed arena spares every
     * command the bookkeeping of freeing them. */
    static char arena[16384];
    static size_t used;
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(arena + used, sizeof arena - used, fmt, ap);
    va_end(ap);
    if (n < 0 || (size_t)n >= sizeof arena - used)
        return fmt; /* unreachable with today's texts; never a crash */
    const char *text = arena + used;
    used += (size_t)n + 1;
    return text;
}

/* Every command's last option, added by the parser: no table can forget
 * it or spell it differently. */
static const cli_option HELP_OPTION = {.kind = CLI_OPTION_HELP,
                                       .short_name = 'h',
                                       .long_name = "help",
                                       .help = "print this help and exit"};

/* ---- --help */

/* "-o, --output OUT" or "    --origin X,Y" */
static size_t option_term(const cli_option *o, char *buf, size_t size)
{
    char flag[8] = "    ";
    if (o->short_name)
        snprintf(flag, sizeof flag, "-%c, ", o->short_name);
    int n = snprintf(buf, size, "%s--%s%s%s", flag, o->long_name, o->arg_name ? " " : "",
                     o->arg_name ? o->arg_name : "");
    return n < 0 ? 0 : (size_t)n;
}

/* The description from column `column`, the first line already indented to
 * it: words wrapped at HELP_WIDTH, '\n' ending a line, and a line that then
 * starts with a space kept as written. */
static void put_description(FILE *out, const char *text, size_t column)
{
    size_t at = column;
    bool line_empty = true;
    for (const char *p = text; *p;) {
        if (*p == '\n') {
            p++;
            fprintf(out, "\n%*s", (int)column, "");
            at = column;
            line_empty = true;
            if (*p == ' ') {
                size_t len = strcspn(p, "\n");
                fprintf(out, "%.*s", (int)len, p);
                p += len;
                line_empty = false;
                at += len;
            }
            continue;
        }
        if (*p == ' ') {
            p++;
            continue;
        }
        size_t len = strcspn(p, " \n");
        if (!line_empty && at + 1 + len > HELP_WIDTH) {
            fprintf(out, "\n%*s", (int)column, "");
            at = column;
            line_empty = true;
        }
        if (!line_empty) {
            fputc(' ', out);
            at++;
        }
        fprintf(out, "%.*s", (int)len, p);
        at += len;
        line_empty = false;
        p += len;
    }
    fputc('\n', out);
}

void cli_print_help(FILE *out, const cli_command *command, const cli_option *options)
{
    char term[96];
    const char *usage = command->usage;
    for (int line = 0; *usage; line++) {
        size_t len = strcspn(usage, "\n");
        fprintf(out, "%s terrafit %s %.*s\n", line ? "      " : "Usage:", command->name,
                (int)len, usage);
        usage += len + (usage[len] == '\n');
    }
    if (command->about)
        fputs(command->about, out);

    size_t width = option_term(&HELP_OPTION, term, sizeof term);
    for (const cli_option *o = options; o->kind != CLI_OPTION_END; o++) {
        size_t len = option_term(o, term, sizeof term);
        if (len <= MAX_TERM && len > width)
            width = len;
    }
    size_t column = 2 + width + 2;
    fputs("\nOptions:\n", out);
    for (const cli_option *o = options;; o++) {
        if (o->kind == CLI_OPTION_END)
            o = &HELP_OPTION;
        size_t len = option_term(o, term, sizeof term);
        fprintf(out, "  %s", term);
        if (2 + len + 2 > column)
            fprintf(out, "\n%*s", (int)column, "");
        else
            fprintf(out, "%*s", (int)(column - 2 - len), "");
        put_description(out, o->help ? o->help : "", column);
        if (o == &HELP_OPTION)
            break;
    }
    if (command->footer) {
        fputc('\n', out);
        fputs(command->footer, out);
    }
}

/* ---- parsing */

typedef struct {
    const cli_command *command;
    const cli_option *options;
    int argc;
    char **argv;
    int next;            /* the next argv element to read */
    const char *cluster; /* the unread rest of a "-abc" cluster, or NULL */
    bool options_ended;  /* after "--" */
} parser;

static const cli_option *find_long(const cli_option *o, const char *name, size_t len)
{
    for (;; o++) {
        if (o->kind == CLI_OPTION_END)
            o = &HELP_OPTION;
        if (strlen(o->long_name) == len && memcmp(o->long_name, name, len) == 0)
            return o;
        if (o == &HELP_OPTION)
            return NULL;
    }
}

static const cli_option *find_short(const cli_option *o, char c)
{
    for (;; o++) {
        if (o->kind == CLI_OPTION_END)
            o = &HELP_OPTION;
        if (o->short_name && o->short_name == c)
            return o;
        if (o == &HELP_OPTION)
            return NULL;
    }
}

/* "a number > 0", "a number from 0 to 1", "a number > 0 and <= 90" */
static void describe_range(const cli_option *o, char *buf, size_t size)
{
    bool has_min = o->min > -INFINITY, has_max = o->max < INFINITY;
    const char *above = o->bounds & CLI_ABOVE_MIN ? ">" : ">=";
    const char *below = o->bounds & CLI_BELOW_MAX ? "<" : "<=";
    if (has_min && has_max && !o->bounds)
        snprintf(buf, size, "a number from %g to %g", o->min, o->max);
    else if (has_min && has_max)
        snprintf(buf, size, "a number %s %g and %s %g", above, o->min, below, o->max);
    else if (has_min)
        snprintf(buf, size, "a number %s %g", above, o->min);
    else if (has_max)
        snprintf(buf, size, "a number %s %g", below, o->max);
    else
        snprintf(buf, size, "a number");
}

static bool in_range(const cli_option *o, double v)
{
    bool above = o->bounds & CLI_ABOVE_MIN ? v > o->min : v >= o->min;
    bool below = o->bounds & CLI_BELOW_MAX ? v < o->max : v <= o->max;
    return above && below;
}

/* Store `arg` (NULL for a flag) as option `o` says. CLI_EXIT_OK, or
 * CLI_PARSE_HELP / CLI_PARSE_ERROR. */
static int apply(const parser *p, const cli_option *o, const char *arg)
{
    const char *cmd = p->command->name;
    switch (o->kind) {
    case CLI_OPTION_HELP:
        cli_print_help(stdout, p->command, p->options);
        return CLI_PARSE_HELP;
    case CLI_OPTION_FLAG:
        *(bool *)o->value = true;
        break;
    case CLI_OPTION_STRING:
        *(const char **)o->value = arg;
        break;
    case CLI_OPTION_COUNT: {
        unsigned long long v;
        bool too_big;
        /* Out of range is a usage error like a malformed number: both are
         * a wrong argument, and the message says what is right. */
        if (!cli_parse_count(arg, &v, &too_big) || too_big || (double)v < o->min ||
            (double)v > o->max) {
            if (o->max < INFINITY)
                cli_usage_error(cmd, "invalid --%s '%s': expected %.0f to %.0f", o->long_name,
                                arg, o->min, o->max);
            else
                cli_usage_error(cmd, "invalid --%s '%s': expected a whole number >= %.0f",
                                o->long_name, arg, o->min);
            return CLI_PARSE_ERROR;
        }
        *(unsigned long long *)o->value = v;
        break;
    }
    case CLI_OPTION_NUMBER: {
        double v;
        if (!cli_parse_double(arg, &v) || !in_range(o, v)) {
            char expected[96];
            describe_range(o, expected, sizeof expected);
            cli_usage_error(cmd, "invalid --%s '%s': expected %s", o->long_name, arg, expected);
            return CLI_PARSE_ERROR;
        }
        *(double *)o->value = v;
        break;
    }
    case CLI_OPTION_CALLBACK:
        if (o->parse(cmd, o, arg) != CLI_EXIT_OK)
            return CLI_PARSE_ERROR;
        break;
    case CLI_OPTION_END:
        break;
    }
    if (o->seen)
        *o->seen = arg ? arg : o->long_name;
    return CLI_EXIT_OK;
}

/* "--name", "--name=VALUE" or "--name VALUE". */
static int next_long(parser *p, const char *arg)
{
    const char *cmd = p->command->name;
    const char *name = arg + 2;
    const char *equals = strchr(name, '=');
    size_t len = equals ? (size_t)(equals - name) : strlen(name);
    const cli_option *o = find_long(p->options, name, len);
    if (!o) {
        cli_usage_error(cmd, "unknown option '--%.*s'", (int)len, name);
        return CLI_PARSE_ERROR;
    }
    const char *value = NULL;
    if (equals) {
        if (!o->arg_name) {
            cli_usage_error(cmd, "option '--%s' takes no value", o->long_name);
            return CLI_PARSE_ERROR;
        }
        value = equals + 1;
    } else if (o->arg_name) {
        if (p->next >= p->argc) {
            cli_usage_error(cmd, "option '--%s' needs a value", o->long_name);
            return CLI_PARSE_ERROR;
        }
        value = p->argv[p->next++];
    }
    return apply(p, o, value);
}

/* One character of a "-abc" cluster: a flag, or an option whose value is
 * the rest of the cluster or else the next argument. */
static int next_short(parser *p)
{
    char c = *p->cluster++;
    const cli_option *o = find_short(p->options, c);
    if (!*p->cluster)
        p->cluster = NULL;
    if (!o) {
        cli_usage_error(p->command->name, "unknown option '-%c'", c);
        return CLI_PARSE_ERROR;
    }
    const char *value = NULL;
    if (o->arg_name) {
        if (p->cluster) {
            value = p->cluster;
            p->cluster = NULL;
        } else if (p->next < p->argc) {
            value = p->argv[p->next++];
        } else {
            cli_usage_error(p->command->name, "option '-%c' needs a value", c);
            return CLI_PARSE_ERROR;
        }
    }
    return apply(p, o, value);
}

int cli_parse(const cli_command *command, const cli_option *options, int argc, char **argv)
{
    parser p = {.command = command, .options = options, .argc = argc, .argv = argv, .next = 1};
    int operands = 0;
    for (;;) {
        int status;
        if (p.cluster) {
            status = next_short(&p);
        } else if (p.next >= argc) {
            return operands;
        } else {
            char *arg = argv[p.next++];
            if (p.options_ended || arg[0] != '-' || arg[1] == '\0') {
                /* Operands move down over what was read: never over what
                 * is still to read. */
                argv[operands++] = arg;
                continue;
            }
            if (arg[1] == '-' && arg[2] == '\0') {
                p.options_ended = true;
                continue;
            }
            if (arg[1] == '-') {
                status = next_long(&p, arg);
            } else {
                p.cluster = arg + 1;
                status = next_short(&p);
            }
        }
        if (status != CLI_EXIT_OK)
            return status;
    }
}
