/*
 * What the tool libraries (io, analysis, render, erode) share and the
 * runtime must not have: one parallel-for over index ranges, and one
 * monotonic clock. Internal: exported by no installed library.
 */
#ifndef TF_UTIL_H
#define TF_UTIL_H

#include <stddef.h>

/* Most threads tf_parallel_for starts. */
#define TF_PARALLEL_MAX_THREADS 64

/* fn(ctx, lo, hi) over disjoint ranges that cover [0, n), on up to
 * `threads` threads (0: one per core, tf_cpu_count()), the calling thread
 * included; returns when every range is done. The ranges are equal cuts
 * of [0, n) fixed by n and the thread count, and each index is handled by
 * exactly one call, so a result that depends only on the index does not
 * depend on the threads. A range whose thread cannot start runs on the
 * calling thread. */
void tf_parallel_for(size_t n, unsigned threads, void (*fn)(void *ctx, size_t lo, size_t hi),
                     void *ctx);

/* Seconds on the monotonic clock (CLOCK_MONOTONIC), from an arbitrary
 * origin; 0 if the clock cannot be read. For durations and progress. */
double tf_clock_seconds(void);

#endif
