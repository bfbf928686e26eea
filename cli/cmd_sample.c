/*
 * `terrafit sample`: the raw height at points read from stdin, one per
 * line, printed so each reads back as the same double. Useful for scripts
 * and for checking a rendered heightmap against the runtime.
 */
#include <stdio.h>

#include "cli.h"

static const cli_command SAMPLE = {
    .name = "sample",
    .usage = "SPEC < POINTS",
    .about = "Read points \"x y\" from stdin (two numbers separated by spaces or tabs,\n"
             "one point per line; blank lines and lines starting with '#' are skipped)\n"
             "and print the raw height at each, one per line, with 17 significant\n"
             "digits. A line that is not two finite numbers, or holds more than 4096\n"
             "bytes besides blanks, stops with status 1.\n",
};

/* Each point's height, printed so it reads back as the same double. */
static int print_sample(void *user, double x, double y)
{
    printf("%.17g\n", tf_terrain_sample(user, x, y));
    return 0;
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
    if (tf_points_read(stdin, "stdin", print_sample, terrain, &err) != 0)
        status = cli_fail_error(SAMPLE.name, &err);
    tf_terrain_free(terrain);
    return status;
}
