/*
 * `terrafit bench`: time a spec's evaluation (docs/performance.md): ns per
 * sample and per layer-sample for the single-sample call (in grid order and
 * in no order), the grid on one and on all threads, the base noise alone
 * and a plain fractal sum of it.
 * Timings are medians of several runs; nothing is asserted about them.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench/bench_core.h"
#include "cli.h"

#define DEFAULT_SIZE 1024
#define DEFAULT_REPEAT 5
#define MAX_SIZE 8192
#define MAX_REPEAT 1000

enum { OPT_HELP, OPT_SIZE, OPT_REPEAT, OPT_THREADS, OPT_JSON, OPT_SUITE, OPT_SIMD };

static const cli_option OPTIONS[] = {
    {"help", 'h', false, OPT_HELP},      {"size", 's', true, OPT_SIZE},
    {"repeat", 'r', true, OPT_REPEAT},   {"threads", 'j', true, OPT_THREADS},
    {"json", 0, false, OPT_JSON},        {"suite", 0, false, OPT_SUITE},
    {"simd", 0, true, OPT_SIMD},         {NULL, 0, false, 0},
};

static void print_usage(void)
{
    printf("Usage: terrafit bench SPEC... [OPTIONS]\n"
           "       terrafit bench --suite [OPTIONS]\n"
           "Time the evaluation of each SPEC (or of the built-in representative\n"
           "specs) on a grid of N x N samples at (1000.5, -2000.25), step 1, and\n"
           "print ns per sample and per layer-sample (the median of R runs) for:\n"
           "the single-sample call (at the grid's points, and at N x N points in\n"
           "no order), the grid call on 1 thread and on all threads,\n"
           "layer 0's base noise alone, and a plain fractal sum of the layers'\n"
           "base noises (one octave per layer).\n"
           "\n"
           "Options:\n"
           "  -s, --size N        grid side (default %d, at most %d)\n"
           "  -r, --repeat R      runs per figure (default %d)\n"
           "  -j, --threads N     threads of the \"all threads\" figure (default:\n"
           "                      every CPU)\n"
           "      --simd PATH     auto (default), avx2 or none: the evaluation path\n"
           "                      (the same bits on each; see also TERRAFIT_SIMD)\n"
           "      --suite         time the built-in spec set (1-6 layers, 16-256\n"
           "                      points, masks, mask and output curves, each noise)\n"
           "      --json          print JSON instead of a table\n"
           "  -h, --help          show this help\n"
           "\n"
           "Exit status: 0 success, 1 failure, 2 usage error.\n",
           DEFAULT_SIZE, MAX_SIZE, DEFAULT_REPEAT);
}

static int parse_bounded(const char *cmd, const char *name, const char *v, unsigned long long lo,
                         unsigned long long hi, unsigned long long *out)
{
    bool too_big = false;
    if (!cli_parse_count(v, out, &too_big) || too_big || *out < lo || *out > hi)
        return cli_usage_error(cmd, "invalid --%s '%s': expected %llu to %llu", name, v, lo, hi);
    return 0;
}

/* Compile, pick the path, time; NULL name means the spec's path. */
static int bench_one(tf_spec *spec, const char *name, const char *path,
                     const bench_options *opts, bench_result *result)
{
    tf_error err;
    tf_terrain *t = tf_terrain_compile(spec, &err);
    if (!t)
        return cli_fail_error(&err);
    if (path && tf_terrain_set_path(t, path, &err) != 0) {
        tf_terrain_free(t);
        return cli_fail_error(&err);
    }
    int status = bench_run(t, name, opts, result, &err);
    tf_terrain_free(t);
    return status == 0 ? 0 : cli_fail_error(&err);
}

int cmd_bench(int argc, char **argv)
{
    const char *cmd = "bench";
    bench_options opts = {.size = DEFAULT_SIZE, .repeat = DEFAULT_REPEAT, .threads = 0};
    bool json = false, suite = false;
    const char *path = NULL; /* NULL: as tf_terrain_compile chose */
    const char **specs = calloc((size_t)(argc > 0 ? argc : 1), sizeof *specs);
    size_t spec_count = 0;
    if (!specs)
        return cli_fail(cmd, "out of memory");
    cli_args args;
    cli_args_init(&args, cmd, OPTIONS, argc, argv);
    int status = 0;
    for (int id; status == 0 && (id = cli_args_next(&args)) != CLI_ARGS_END;) {
        const char *v = args.value;
        unsigned long long count;
        switch (id) {
        case OPT_HELP:
            print_usage();
            free(specs);
            return 0;
        case OPT_SIZE:
            status = parse_bounded(cmd, "size", v, 16, MAX_SIZE, &count);
            opts.size = (size_t)count;
            break;
        case OPT_REPEAT:
            status = parse_bounded(cmd, "repeat", v, 1, MAX_REPEAT, &count);
            opts.repeat = (int)count;
            break;
        case OPT_THREADS:
            status = parse_bounded(cmd, "threads", v, 0, CLI_MAX_THREADS, &count);
            opts.threads = (unsigned)count;
            break;
        case OPT_JSON:
            json = true;
            break;
        case OPT_SUITE:
            suite = true;
            break;
        case OPT_SIMD:
            /* A path this CPU cannot run fails at the first spec, with
             * tf_terrain_set_path's message. */
            if (strcmp(v, "auto") == 0 || strcmp(v, "none") == 0 || strcmp(v, "avx2") == 0) {
                path = v;
            } else {
                status = cli_usage_error(cmd, "invalid --simd '%s': expected auto, avx2 or none",
                                         v);
            }
            break;
        case CLI_ARGS_POSITIONAL:
            specs[spec_count++] = v;
            break;
        default:
            status = 2; /* already reported */
            break;
        }
    }
    if (status == 0 && spec_count == 0 && !suite)
        status = cli_usage_error(cmd, "no SPEC given (or --suite)");
    size_t total = spec_count + (suite ? bench_suite_size() : 0);
    bench_result *results = status == 0 ? calloc(total, sizeof *results) : NULL;
    if (status == 0 && !results)
        status = cli_fail(cmd, "out of memory");
    size_t done = 0;
    for (size_t k = 0; status == 0 && k < spec_count; k++) {
        tf_error err;
        tf_spec *spec = tf_spec_load(specs[k], &err);
        if (!spec) {
            status = cli_fail_error(&err);
            break;
        }
        status = bench_one(spec, specs[k], path, &opts, &results[done]);
        tf_spec_free(spec);
        done += status == 0;
    }
    for (size_t k = 0; status == 0 && suite && k < bench_suite_size(); k++) {
        tf_error err;
        char name[128];
        tf_spec *spec = bench_suite_spec(k, name, sizeof name, &err);
        if (!spec) {
            status = cli_fail_error(&err);
            break;
        }
        status = bench_one(spec, name, path, &opts, &results[done]);
        tf_spec_free(spec);
        done += status == 0;
    }
    if (status == 0) {
        if (json)
            bench_print_json(stdout, results, done, &opts);
        else
            bench_print_table(stdout, results, done);
    }
    free(results);
    free(specs);
    return status;
}
