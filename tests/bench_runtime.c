/*
 * `make bench` (runtime part): the representative spec set of
 * docs/performance.md timed on the default path, then the same set on the
 * portable path for comparison. Timings are printed, never asserted.
 *
 *   tests/bench_runtime [--size N] [--repeat R] [--json]
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench/bench_core.h"

int main(int argc, char **argv)
{
    bench_options opts = {.size = 1024, .repeat = 5, .threads = 0};
    int json = 0;
    for (int k = 1; k < argc; k++) {
        if (strcmp(argv[k], "--size") == 0 && k + 1 < argc)
            opts.size = (size_t)strtoul(argv[++k], NULL, 10);
        else if (strcmp(argv[k], "--repeat") == 0 && k + 1 < argc)
            opts.repeat = atoi(argv[++k]);
        else if (strcmp(argv[k], "--json") == 0)
            json = 1;
        else {
            fprintf(stderr, "usage: bench_runtime [--size N] [--repeat R] [--json]\n");
            return 2;
        }
    }
    if (opts.size < 16 || opts.size > 8192 || opts.repeat < 1) {
        fprintf(stderr, "bench_runtime: --size 16..8192, --repeat >= 1\n");
        return 2;
    }
    size_t n = bench_suite_size();
    /* the default path (AVX2 where available), then the portable one if
     * it differs */
    tf_spec *probe_spec = bench_suite_spec(0, NULL, 0, NULL);
    tf_terrain *probe = probe_spec ? tf_terrain_compile(probe_spec, NULL) : NULL;
    int paths = probe && strcmp(tf_terrain_path(probe), "none") != 0 ? 2 : 1;
    tf_terrain_free(probe);
    tf_spec_free(probe_spec);
    bench_result *results = calloc(n * (size_t)paths, sizeof *results);
    if (!results)
        return 1;
    size_t done = 0;
    for (int p = 0; p < paths; p++)
        for (size_t k = 0; k < n; k++) {
            tf_error err;
            char name[128];
            tf_spec *spec = bench_suite_spec(k, name, sizeof name, &err);
            tf_terrain *t = spec ? tf_terrain_compile(spec, &err) : NULL;
            tf_spec_free(spec);
            if (!t) {
                fprintf(stderr, "bench_runtime: %s\n", err.message);
                free(results);
                return 1;
            }
            if (p == 1)
                tf_terrain_set_path(t, "none", NULL);
            int status = bench_run(t, name, &opts, &results[done], &err);
            tf_terrain_free(t);
            if (status != 0) {
                fprintf(stderr, "bench_runtime: %s\n", err.message);
                free(results);
                return 1;
            }
            done++;
        }
    if (json) {
        cJSON *doc = bench_results_json(results, done, &opts);
        char *text = doc ? cJSON_Print(doc) : NULL;
        cJSON_Delete(doc);
        if (!text) {
            fprintf(stderr, "bench_runtime: out of memory\n");
            free(results);
            return 1;
        }
        puts(text);
        cJSON_free(text);
    } else {
        printf("runtime benchmark: %zux%zu grid, median of %d runs\n", opts.size, opts.size,
               opts.repeat);
        bench_print_table(stdout, results, done);
    }
    free(results);
    return 0;
}
