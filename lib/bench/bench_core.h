/*
 * Timing a compiled terrain (`terrafit bench`, tests/bench_runtime): the
 * single-sample call (at the grid's points, and at points in no order),
 * the batch of points in no order,
 * the grid on one and on all threads, the raw base noise and a plain
 * fractal sum of it, each the median of several runs.
 */
#ifndef TF_CLI_BENCH_CORE_H
#define TF_CLI_BENCH_CORE_H

#include <stdio.h>

#include <cJSON.h>

#include "terrafit/terrafit.h"

typedef struct {
    size_t size;      /* the grid is size x size samples */
    int repeat;       /* runs per figure; the median is reported */
    unsigned threads; /* "all threads": 0 = every CPU */
} bench_options;

typedef struct {
    char name[128];
    size_t layers, points; /* most rd points of a layer */
    size_t masks;          /* masked layers */
    int output_curve;
    const char *noise; /* layer 0's base noise */
    const char *path;  /* "avx2" or "none" */
    unsigned threads;
    /* ns per sample (divide by layers for per layer-sample) */
    double sample_ns, random_ns, points_ns, grid1_ns, grid_all_ns, noise_ns, fractal_ns;
    double chunk_us; /* per 66 x 66 window, streamed along a row */
    double checksum; /* of the grid, so no work can be skipped */
    int warm_runs[8]; /* untimed runs before each figure's, in the order above */
} bench_result;

/* Time `t`; 0 on success, else -1 with err filled. */
int bench_run(const tf_terrain *t, const char *name, const bench_options *opts,
              bench_result *result, tf_error *err);

void bench_print_table(FILE *out, const bench_result *results, size_t count);
/* {"size": N, "repeat": R, "results": [{"spec": ..., "sampleNs": ...}, ...]}
 * (docs/performance.md); NULL when out of memory. */
cJSON *bench_results_json(const bench_result *results, size_t count, const bench_options *opts);

/* The representative spec set: `index` < bench_suite_size(); NULL when
 * done or on failure (err filled). The name is written to `name`. */
size_t bench_suite_size(void);
tf_spec *bench_suite_spec(size_t index, char *name, size_t name_size, tf_error *err);

#endif
