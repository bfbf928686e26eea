/*
 * What the tool libraries (io, analysis, render, erode) share and the
 * runtime must not have: one parallel-for over index ranges (equal cuts,
 * or blocks claimed in turn with a watcher on the calling thread), and one
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

/* How the calling thread of tf_parallel_claim looks after the work:
 * fn(user) runs on the calling thread only, never on two threads at once,
 * after each block the calling thread runs itself, whenever another
 * thread finishes a block, at least every `seconds` while it waits (0: no
 * timed calls), and once more when every block is done. For progress
 * reports, or for consuming blocks in order as they finish. */
typedef struct {
    void (*fn)(void *user);
    void *user;
    double seconds;
    /* 1: the calling thread runs no block while another thread can (its
     * blocks are long and it must keep watching); it runs them itself
     * only if no thread can start. 0: it claims blocks like the others. */
    int watch_only;
} tf_parallel_watch;

/* fn(ctx, lo, hi) over [0, n) in blocks of `block` indices (the last one
 * shorter) claimed in order, each by whichever thread is free, on up to
 * `threads` threads (0: one per core) that run blocks: the calling thread
 * and threads - 1 others, or `threads` others when watch->watch_only.
 * Returns when every block is done. For work whose cost varies, or with a
 * watcher (progress); the blocks are fixed by n and `block`, and each
 * index is handled by exactly one call, so a result that depends only on
 * the index does not depend on the threads. `watch` may be NULL. Threads
 * that cannot start only mean fewer hands. */
void tf_parallel_claim(size_t n, size_t block, unsigned threads,
                       void (*fn)(void *ctx, size_t lo, size_t hi), void *ctx,
                       const tf_parallel_watch *watch);

/* Seconds on the monotonic clock (CLOCK_MONOTONIC), from an arbitrary
 * origin; 0 if the clock cannot be read. For durations and progress. */
double tf_clock_seconds(void);

/* The median of v[0 .. n) (the mean of the middle two for even n; 0 for
 * none), sorting v in place. */
double tf_median(double *v, size_t n);

/* Pages the process has touched for the first time so far (its minor
 * page faults), or -1 when unknown. */
long tf_page_faults(void);

#endif
