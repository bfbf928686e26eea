/*
 * `terrafit bench`: time a spec's evaluation (docs/performance.md): ns per
 * sample and per layer-sample for the single-sample call (in grid order and
 * in no order), the grid on one and on all threads, the base noise alone,
 * a plain fractal sum of it, and microseconds per 66 x 66 chunk streamed
 * along a row.
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

static const cli_command BENCH = {
    .name = "bench",
    .usage = "SPEC... [OPTIONS]\n"
             "--suite [OPTIONS]",
    .about = "Time the evaluation of each SPEC (or of the built-in representative\n"
             "specs) on a grid of N x N samples at (1000.5, -2000.25), step 1, and\n"
             "print ns per sample and per layer-sample (the median of R runs) for:\n"
             "the single-sample call (at the grid's points, and at N x N points in\n"
             "no order), the grid call on 1 thread and on all threads,\n"
             "layer 0's base noise alone, a plain fractal sum of the layers'\n"
             "base noises (one octave per layer), and the microseconds per 66 x 66\n"
             "window of 16 streamed 64 apart along a row (a game's chunks). Each\n"
             "run of a spec with a drainage stage moves 2^20 along x, so no run\n"
             "reuses the networks the last one built. Untimed runs before each\n"
             "figure's warm the caches and touch the memory its runs use, until one\n"
             "touches at most 64 new pages (or 2 s or 16 runs; the all-threads\n"
             "figure, whose threads are new each run: one); --json lists them.\n",
    .footer = "Exit status: 0 success, 1 failure, 2 usage error.\n",
};

/* --simd PATH: checked by name here; a path this CPU cannot run fails at
 * the first spec, with tf_terrain_set_path's message. */
static int parse_simd(const char *command, const cli_option *opt, const char *arg)
{
    if (strcmp(arg, "auto") != 0 && strcmp(arg, "none") != 0 && strcmp(arg, "avx2") != 0 &&
        strcmp(arg, "avx512") != 0)
        return cli_usage_error(command, "invalid --simd '%s': expected auto, avx512, avx2 or none",
                               arg);
    *(const char **)opt->value = arg;
    return CLI_EXIT_OK;
}

/* --save-suite DIR: each built-in spec as DIR/NN.json (NN its row, from
 * 00), written whole or not at all, and a line "DIR/NN.json  NAME" each,
 * so a row can be timed alone or against another build. */
static int save_suite(const char *dir)
{
    for (size_t k = 0; k < bench_suite_size(); k++) {
        tf_error err;
        char name[128], path[4200];
        if (snprintf(path, sizeof path, "%s/%02zu.json", dir, k) >= (int)sizeof path)
            return cli_fail(BENCH.name, "%s: directory name too long", dir);
        tf_spec *spec = bench_suite_spec(k, name, sizeof name, &err);
        char *json = spec ? tf_spec_to_json(spec, &err) : NULL;
        tf_spec_free(spec);
        if (!json)
            return cli_fail_error(BENCH.name, &err);
        int bad = tf_write_file_atomic(path, json, strlen(json), &err) != 0;
        free(json);
        if (bad)
            return cli_fail_error(BENCH.name, &err);
        printf("%s  %s\n", path, name);
    }
    return fflush(stdout) == 0 ? 0 : cli_fail(BENCH.name, "cannot write to standard output");
}

/* Compile, pick the path, time; NULL name means the spec's path. */
static int bench_one(tf_spec *spec, const char *name, const char *path,
                     const bench_options *opts, bench_result *result)
{
    tf_error err;
    tf_terrain *t = tf_terrain_compile(spec, &err);
    if (!t)
        return cli_fail_error(BENCH.name, &err);
    if (path && tf_terrain_set_path(t, path, &err) != 0) {
        tf_terrain_free(t);
        return cli_fail_error(BENCH.name, &err);
    }
    int status = bench_run(t, name, opts, result, &err);
    tf_terrain_free(t);
    return status == 0 ? 0 : cli_fail_error(BENCH.name, &err);
}

int cmd_bench(int argc, char **argv)
{
    const char *cmd = BENCH.name;
    unsigned long long size = DEFAULT_SIZE, repeat = DEFAULT_REPEAT, threads = 0;
    bool json = false, suite = false;
    const char *path = NULL; /* NULL: as tf_terrain_compile chose */
    const char *save_dir = NULL;
    const cli_option options[] = {
        CLI_OPT_COUNT('s', "size", &size, "N", 16, MAX_SIZE,
                      cli_textf("grid side (default %d, at most %d)", DEFAULT_SIZE, MAX_SIZE)),
        CLI_OPT_COUNT('r', "repeat", &repeat, "R", 1, MAX_REPEAT,
                      cli_textf("runs per figure (default %d)", DEFAULT_REPEAT)),
        CLI_OPT_COUNT('j', "threads", &threads, "N", 0, CLI_MAX_THREADS,
                      "threads of the \"all threads\" figure (default: every CPU)"),
        CLI_OPT_CALLBACK(0, "simd", &path, "PATH", parse_simd,
                         "auto (default), avx512, avx2 or none: the evaluation path (the same "
                         "bits on each; see also TERRAFIT_SIMD)"),
        CLI_OPT_FLAG(0, "suite", &suite,
                     "time the built-in spec set (1-6 layers, 16-256 points, masks, mask and "
                     "output curves, each noise)"),
        CLI_OPT_FLAG(0, "json", &json, "print JSON instead of a table"),
        CLI_OPT_STRING(0, "save-suite", &save_dir, "DIR",
                       "write the built-in specs as DIR/00.json, 01.json, ... (the --suite "
                       "table's rows, in order), print each file's name and row, and time "
                       "nothing"),
        CLI_OPT_END(),
    };
    int spec_count = cli_parse(&BENCH, options, argc, argv);
    if (spec_count < 0)
        return cli_parse_status(spec_count);
    if (save_dir) {
        if (spec_count > 0 || suite)
            return cli_usage_error(cmd, "--save-suite times nothing: give no SPEC and no --suite");
        return save_suite(save_dir);
    }
    if (spec_count == 0 && !suite)
        return cli_usage_error(cmd, "no SPEC given (or --suite or --save-suite)");
    const char *const *specs = (const char *const *)argv;
    bench_options opts = {.size = (size_t)size, .repeat = (int)repeat, .threads = (unsigned)threads};
    int status = 0;
    size_t count = (size_t)spec_count, total = count + (suite ? bench_suite_size() : 0);
    bench_result *results = calloc(total, sizeof *results);
    if (!results)
        return cli_fail(cmd, "out of memory");
    size_t done = 0;
    for (size_t k = 0; status == 0 && k < count; k++) {
        tf_error err;
        tf_spec *spec = tf_spec_load(specs[k], &err);
        if (!spec) {
            status = cli_fail_error(cmd, &err);
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
            status = cli_fail_error(cmd, &err);
            break;
        }
        status = bench_one(spec, name, path, &opts, &results[done]);
        tf_spec_free(spec);
        done += status == 0;
    }
    if (status == 0) {
        if (json) {
            static const char *const expanded[] = {"results", NULL};
            status = cli_json_print(cmd, bench_results_json(results, done, &opts), expanded);
        } else {
            bench_print_table(stdout, results, done);
        }
    }
    free(results);
    return status;
}
