/*
 * `terrafit sample`: the raw height at points read from stdin, one per
 * line, printed so each reads back as the same double. Useful for scripts
 * and for checking a rendered heightmap against the runtime.
 */
#define _POSIX_C_SOURCE 200809L /* getline */

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

static const cli_command SAMPLE = {
    .name = "sample",
    .usage = "SPEC < POINTS",
    .about = "Read points \"x y\" from stdin (two numbers separated by spaces or tabs,\n"
             "one point per line; blank lines and lines starting with '#' are skipped)\n"
             "and print the raw height at each, one per line, with 17 significant\n"
             "digits. A line that is not two finite numbers stops with status 1.\n",
};

static bool is_blank(char c)
{
    return c == ' ' || c == '\t';
}

static const char *skip_blanks(const char *s)
{
    while (is_blank(*s))
        s++;
    return s;
}

/* One input line, without its newline. 1: a point in *x, *y; 0: nothing to
 * sample (blank or comment); -1: malformed. */
static int parse_point_line(const char *line, double *x, double *y)
{
    const char *p = skip_blanks(line);
    if (*p == '\0' || *p == '#')
        return 0;
    if (!cli_parse_double_prefix(p, x, &p) || !is_blank(*p))
        return -1;
    if (!cli_parse_double_prefix(skip_blanks(p), y, &p))
        return -1;
    return *skip_blanks(p) == '\0' ? 1 : -1;
}

static int sample_stdin(const tf_terrain *terrain)
{
    char *line = NULL;
    size_t capacity = 0;
    ssize_t length;
    unsigned long long line_number = 0;
    int status = CLI_EXIT_OK;
    while ((length = getline(&line, &capacity, stdin)) >= 0) {
        line_number++;
        /* Accept CRLF files as well as LF. */
        if (length > 0 && line[length - 1] == '\n')
            line[--length] = '\0';
        if (length > 0 && line[length - 1] == '\r')
            line[--length] = '\0';
        double x, y;
        int parsed = (size_t)length == strlen(line) ? parse_point_line(line, &x, &y) : -1;
        if (parsed < 0) {
            status = cli_fail(SAMPLE.name, "stdin:%llu: expected two numbers \"x y\"", line_number);
            break;
        }
        if (parsed > 0)
            printf("%.17g\n", tf_terrain_sample(terrain, x, y));
    }
    if (status == CLI_EXIT_OK && ferror(stdin))
        status = cli_fail(SAMPLE.name, "error reading stdin");
    free(line);
    return status;
}

int cmd_sample(int argc, char **argv)
{
    const cli_option options[] = {CLI_OPT_END()};
    int operands = cli_parse(&SAMPLE, options, argc, argv);
    if (operands < 0)
        return cli_parse_status(operands);
    cli_common c;
    cli_common_init(&c, 0, 0);
    int status = cli_common_operands(SAMPLE.name, &c, operands, argv, "SPEC",
                                     "a terrain JSON file", NULL, NULL);
    if (status != CLI_EXIT_OK)
        return status;

    tf_error err;
    tf_terrain *terrain = tf_terrain_load(c.spec, &err);
    if (!terrain)
        return cli_fail_error(SAMPLE.name, &err);
    status = sample_stdin(terrain);
    tf_terrain_free(terrain);
    return status;
}
