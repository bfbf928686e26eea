/*
 * The one parallel-for of the tool libraries: a range of indices cut into
 * equal parts, one thread each, joined before returning. Also the core
 * count the thread options default to.
 */
#define _POSIX_C_SOURCE 200809L /* sysconf */

#include "util/util.h"

#include <pthread.h>
#include <unistd.h>

#include "terrafit/terrafit.h"

unsigned tf_cpu_count(void)
{
    long online = sysconf(_SC_NPROCESSORS_ONLN);
    return online >= 1 && online <= 65536 ? (unsigned)online : 1u;
}

typedef struct {
    void (*fn)(void *, size_t, size_t);
    void *ctx;
    size_t lo, hi;
} range_task;

static void *range_thread(void *arg)
{
    range_task *t = arg;
    t->fn(t->ctx, t->lo, t->hi);
    return NULL;
}

void tf_parallel_for(size_t n, unsigned threads, void (*fn)(void *, size_t, size_t), void *ctx)
{
    if (threads == 0)
        threads = tf_cpu_count();
    if (threads > TF_PARALLEL_MAX_THREADS)
        threads = TF_PARALLEL_MAX_THREADS;
    if ((size_t)threads > n)
        threads = n ? (unsigned)n : 1;
    if (threads <= 1) {
        fn(ctx, 0, n);
        return;
    }
    pthread_t tid[TF_PARALLEL_MAX_THREADS];
    range_task task[TF_PARALLEL_MAX_THREADS];
    int started[TF_PARALLEL_MAX_THREADS];
    for (unsigned t = 0; t < threads; t++) {
        task[t].fn = fn;
        task[t].ctx = ctx;
        task[t].lo = n * t / threads;
        task[t].hi = n * (t + 1) / threads;
        started[t] = t > 0 && pthread_create(&tid[t], NULL, range_thread, &task[t]) == 0;
    }
    /* The first range runs here; a range whose thread could not start
     * runs here too. Ranges are disjoint, so the order never matters. */
    for (unsigned t = 0; t < threads; t++)
        if (!started[t])
            fn(ctx, task[t].lo, task[t].hi);
    for (unsigned t = 1; t < threads; t++)
        if (started[t])
            pthread_join(tid[t], NULL);
}
