/*
 * `terrafit sample`: the raw height at points read from stdin, one per
 * line, printed so each reads back as the same double. Useful for scripts
 * and for checking a rendered heightmap against the runtime. With
 * --batch, up to N points are read before any is printed and evaluated
 * together (tf_terrain_sample_points): the same bits, and for a drainage
 * stage points near each other, in any order, share one network.
 */
#include <stdio.h>
#include <stdlib.h>

#include "cli.h"

#define MAX_BATCH (1u << 20)

static const cli_command SAMPLE = {
    .name = "sample",
    .usage = "SPEC [--batch N] < POINTS",
    .about = "Read points \"x y\" from stdin (two numbers separated by spaces or tabs,\n"
             "one point per line; blank lines and lines starting with '#' are skipped)\n"
             "and print the raw height at each, one per line, with 17 significant\n"
             "digits. A line that is not two finite numbers, or holds more than 4096\n"
             "bytes besides blanks, stops with status 1 (the heights of the points\n"
             "before it are printed).\n",
};

typedef struct {
    const tf_terrain *terrain;
    size_t batch, n;
    double *x, *y, *h;
} sampler;

/* The points held so far, evaluated together and printed in their order. */
static void flush(sampler *s)
{
    tf_terrain_sample_points(s->terrain, s->x, s->y, s->n, s->h);
    for (size_t k = 0; k < s->n; k++)
        printf("%.17g\n", s->h[k]);
    s->n = 0;
}

/* Each point's height, printed so it reads back as the same double: at
 * once, or when the batch is full. */
static int take_point(void *user, double x, double y)
{
    sampler *s = user;
    if (s->batch <= 1) {
        printf("%.17g\n", tf_terrain_sample(s->terrain, x, y));
        return 0;
    }
    s->x[s->n] = x;
    s->y[s->n] = y;
    if (++s->n == s->batch)
        flush(s);
    return 0;
}

int cmd_sample(int argc, char **argv)
{
    unsigned long long batch = 1;
    const cli_option options[] = {
        CLI_OPT_COUNT(0, "batch", &batch, "N", 1, MAX_BATCH,
                      cli_textf("read up to N points (1 to %u) before printing their "
                                "heights, and evaluate them together: the same heights, "
                                "faster for many points (with a drainage stage, points "
                                "near each other in any order share one valley network "
                                "instead of each building the network around itself); "
                                "default 1, each height printed as its line is read",
                                MAX_BATCH)),
        CLI_OPT_END()};
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
    sampler s = {terrain, (size_t)batch, 0, NULL, NULL, NULL};
    if (s.batch > 1) {
        s.x = malloc(s.batch * sizeof *s.x);
        s.y = malloc(s.batch * sizeof *s.y);
        s.h = malloc(s.batch * sizeof *s.h);
        if (!s.x || !s.y || !s.h)
            status = cli_fail(SAMPLE.name, "out of memory for a batch of %zu points", s.batch);
    }
    if (status == CLI_EXIT_OK) {
        int r = tf_points_read(stdin, "stdin", take_point, &s, &err);
        if (s.n > 0)
            flush(&s);
        if (r != 0)
            status = cli_fail_error(SAMPLE.name, &err);
    }
    free(s.x);
    free(s.y);
    free(s.h);
    tf_terrain_free(terrain);
    return status;
}
