/*
 * `make bench-threads`: how much of two cores a grid render gets, against
 * what the machine gives any work of the same length cut the same way
 * (docs/performance.md, "Two cores"). For each size, the spec's grid on
 * one thread and on two (tf_render_grid, which claims blocks of rows on
 * threads started for the call), then an ideal job of the same length:
 * the same claims of rows, each row a chain of arithmetic that touches no
 * memory, sized so that one thread takes as long as the grid did; and
 * the pages a two-thread grid call touches for the first time (minor
 * faults, a mean over the runs). Last, the cost of a call that starts
 * and joins a thread for almost no work.
 * Not a test: nothing is asserted.
 *
 *   tests/bench_threads SPEC [--runs R] [SIZE...]   (default: 5 runs; 1024 2048 4096)
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "terrafit/terrafit.h"
#include "util/util.h"

/* The ideal job: `steps` dependent multiply-adds a row, in registers. */
typedef struct {
    long steps;
    volatile double sink;
} ideal_job;

static void ideal_rows(void *arg, size_t lo, size_t hi)
{
    ideal_job *job = arg;
    double x = (double)lo;
    for (size_t r = lo; r < hi; r++)
        for (long k = 0; k < job->steps; k++)
            x = x * 0.999999 + 1e-6;
    job->sink = x;
}

/* Seconds of the ideal job over `rows` rows on `threads` threads, in
 * claims of `block` rows (as tf_render_grid claims them). */
static double time_ideal(size_t rows, size_t block, unsigned threads, long steps)
{
    ideal_job job = {steps, 0.0};
    double t0 = tf_clock_seconds();
    tf_parallel_claim(rows, block, threads, ideal_rows, &job, NULL);
    return tf_clock_seconds() - t0;
}

static double time_grid(const tf_terrain *t, size_t n, unsigned threads, float *out)
{
    tf_error err;
    double t0 = tf_clock_seconds();
    if (tf_render_grid(t, 1000.5, -2000.25, 1.0, n, n, threads, out, NULL, NULL, &err) != 0) {
        fprintf(stderr, "bench_threads: %s\n", err.message);
        exit(1);
    }
    return tf_clock_seconds() - t0;
}

static void nothing(void *arg, size_t lo, size_t hi)
{
    (void)arg;
    (void)lo;
    (void)hi;
}

int main(int argc, char **argv)
{
    const char *path = NULL;
    int runs = 5;
    size_t sizes[16], nsizes = 0;
    for (int a = 1; a < argc; a++) {
        if (strcmp(argv[a], "--runs") == 0 && a + 1 < argc) {
            runs = atoi(argv[++a]);
        } else if (!path) {
            path = argv[a];
        } else if (nsizes < sizeof sizes / sizeof sizes[0]) {
            long v = atol(argv[a]);
            if (v < 64 || v > 8192) {
                fprintf(stderr, "bench_threads: a size is 64 to 8192, got '%s'\n", argv[a]);
                return 2;
            }
            sizes[nsizes++] = (size_t)v;
        }
    }
    if (!path || runs < 1 || runs > 99) {
        fprintf(stderr, "usage: bench_threads SPEC [--runs R (1-99)] [SIZE...]\n");
        return 2;
    }
    if (nsizes == 0) {
        sizes[0] = 1024;
        sizes[1] = 2048;
        sizes[2] = 4096;
        nsizes = 3;
    }
    tf_error err;
    tf_terrain *t = tf_terrain_load(path, &err);
    if (!t) {
        fprintf(stderr, "bench_threads: %s\n", err.message);
        return 1;
    }
    size_t most = sizes[0];
    for (size_t k = 1; k < nsizes; k++)
        most = sizes[k] > most ? sizes[k] : most;
    float *out = malloc(most * most * sizeof *out);
    double *a = malloc((size_t)runs * sizeof *a), *b = malloc((size_t)runs * sizeof *b);
    if (!out || !a || !b) {
        fprintf(stderr, "bench_threads: out of memory\n");
        return 1;
    }
    memset(out, 0, most * most * sizeof *out); /* touched once, before any timing */

    /* the steps a second, to size the ideal job */
    long probe = 1L << 24;
    double probe_s = time_ideal(1, 1, 1, probe);
    double steps_per_s = probe_s > 0.0 ? (double)probe / probe_s : 1e9;

    printf("%s, medians of %d runs, wall time\n", path, runs);
    printf("%6s | %10s %10s %6s %8s | %10s %10s %6s\n", "size", "grid 1 t", "grid 2 t", "x",
           "faults", "ideal 1 t", "ideal 2 t", "x");
    for (size_t k = 0; k < nsizes; k++) {
        size_t n = sizes[k];
        time_grid(t, n, 2, out); /* warm */
        long faults = 0;
        for (int r = 0; r < runs; r++) {
            a[r] = time_grid(t, n, 1, out);
            long f0 = tf_page_faults();
            b[r] = time_grid(t, n, 2, out);
            faults += tf_page_faults() - f0;
        }
        double g1 = tf_median(a, (size_t)runs), g2 = tf_median(b, (size_t)runs);
        /* tf_render_grid's claims of rows: 8192 samples, at most a
         * quarter of a thread's share (lib/render/render.c) */
        size_t block = (8192 + n - 1) / n, balance = n / 8;
        block = block > balance ? balance : block;
        block = block ? block : 1;
        long steps = (long)(g1 * steps_per_s / (double)n);
        steps = steps > 0 ? steps : 1;
        time_ideal(n, block, 2, steps); /* warm */
        for (int r = 0; r < runs; r++) {
            a[r] = time_ideal(n, block, 1, steps);
            b[r] = time_ideal(n, block, 2, steps);
        }
        double i1 = tf_median(a, (size_t)runs), i2 = tf_median(b, (size_t)runs);
        printf("%6zu | %8.2f ms %8.2f ms %5.2fx %8.1f | %8.2f ms %8.2f ms %5.2fx\n", n, g1 * 1e3,
               g2 * 1e3, g1 / g2, (double)faults / runs, i1 * 1e3, i2 * 1e3, i1 / i2);
    }
    int calls = 200 * runs;
    double *c = realloc(a, (size_t)calls * sizeof *c);
    if (!c) {
        fprintf(stderr, "bench_threads: out of memory\n");
        return 1;
    }
    a = c;
    for (int r = 0; r < calls; r++) {
        double t0 = tf_clock_seconds();
        tf_parallel_claim(2, 1, 2, nothing, NULL, NULL);
        a[r] = tf_clock_seconds() - t0;
    }
    printf("a call that starts and joins one thread for no work: %.1f us (median of %d)\n",
           tf_median(a, (size_t)calls) * 1e6, calls);
    free(out);
    free(a);
    free(b);
    tf_terrain_free(t);
    return 0;
}
