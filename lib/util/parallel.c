/*
 * The one parallel-for of the tool libraries: a range of indices cut into
 * equal parts, one thread each, or claimed block by block with the calling
 * thread watching (progress, in-order output); joined before returning.
 * Also the core count the thread options default to.
 */
#define _POSIX_C_SOURCE 200809L /* sysconf */

#include "util/util.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <time.h>
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

/* ------------------------------------------------ blocks claimed in turn */

typedef struct {
    void (*fn)(void *, size_t, size_t);
    void *ctx;
    size_t n, block;
    atomic_size_t next; /* first index no thread has claimed */
    int watched;        /* a watcher waits on `changed`: report to it */
    pthread_mutex_t lock;
    pthread_cond_t changed;
    size_t blocks_done; /* blocks the other threads finished (under lock) */
    size_t running;     /* other threads still claiming (under lock) */
} claim_job;

/* Claim the next block and run it; 0 when none is left. A compare-and-swap
 * rather than a blind add, so the counter never passes n (and never wraps
 * for n near SIZE_MAX). */
static int claim_block(claim_job *job)
{
    size_t lo = atomic_load_explicit(&job->next, memory_order_relaxed), hi;
    do {
        if (lo >= job->n)
            return 0;
        hi = job->n - lo < job->block ? job->n : lo + job->block;
    } while (!atomic_compare_exchange_weak_explicit(&job->next, &lo, hi, memory_order_relaxed,
                                                    memory_order_relaxed));
    job->fn(job->ctx, lo, hi);
    return 1;
}

static void *claim_thread(void *arg)
{
    claim_job *job = arg;
    while (claim_block(job)) {
        if (job->watched) {
            pthread_mutex_lock(&job->lock);
            job->blocks_done++;
            pthread_cond_signal(&job->changed);
            pthread_mutex_unlock(&job->lock);
        }
    }
    if (job->watched) {
        pthread_mutex_lock(&job->lock);
        job->running--;
        pthread_cond_signal(&job->changed);
        pthread_mutex_unlock(&job->lock);
    }
    return NULL;
}

/* Wait on job->changed (job->lock held) until signalled or, when `timed`,
 * until `seconds` have passed on the monotonic clock. */
static void wait_changed(claim_job *job, int timed, double seconds)
{
    if (!timed) {
        pthread_cond_wait(&job->changed, &job->lock);
        return;
    }
    double at = tf_clock_seconds() + seconds;
    time_t whole = (time_t)at; /* at > 0: truncation is the floor */
    struct timespec deadline = {whole, (long)((at - (double)whole) * 1e9)};
    if (deadline.tv_nsec >= 1000000000L)
        deadline.tv_nsec = 999999999L;
    pthread_cond_timedwait(&job->changed, &job->lock, &deadline);
}

void tf_parallel_claim(size_t n, size_t block, unsigned threads,
                       void (*fn)(void *, size_t, size_t), void *ctx,
                       const tf_parallel_watch *watch)
{
    if (block == 0)
        block = 1;
    if (threads == 0)
        threads = tf_cpu_count();
    size_t blocks = n / block + (n % block != 0);
    if ((size_t)threads > blocks)
        threads = blocks ? (unsigned)blocks : 1;
    int watch_only = watch && watch->watch_only;
    size_t others = watch_only ? threads : threads - 1;

    claim_job job = {.fn = fn, .ctx = ctx, .n = n, .block = block, .watched = watch != NULL};
    atomic_init(&job.next, 0);
    /* Timed waits count on the monotonic clock (tf_clock_seconds); without
     * it the watcher is woken by finished blocks only. */
    int timed = 0;
    if (watch) {
        pthread_condattr_t attr;
        pthread_condattr_init(&attr);
        timed = watch->seconds > 0.0 && pthread_condattr_setclock(&attr, CLOCK_MONOTONIC) == 0;
        pthread_cond_init(&job.changed, &attr);
        pthread_condattr_destroy(&attr);
        pthread_mutex_init(&job.lock, NULL);
    }

    /* `running` counts a thread before it starts, so that it cannot finish
     * (and count itself out) first. */
    pthread_t *tid = others ? malloc(others * sizeof *tid) : NULL;
    size_t started = 0;
    for (; tid && started < others; started++) {
        if (watch) {
            pthread_mutex_lock(&job.lock);
            job.running++;
            pthread_mutex_unlock(&job.lock);
        }
        if (pthread_create(&tid[started], NULL, claim_thread, &job) != 0) {
            if (watch) {
                pthread_mutex_lock(&job.lock);
                job.running--;
                pthread_mutex_unlock(&job.lock);
            }
            break;
        }
    }

    if (!watch_only || started == 0)
        while (claim_block(&job))
            if (watch)
                watch->fn(watch->user);
    if (watch) {
        size_t seen = 0;
        pthread_mutex_lock(&job.lock);
        while (job.running > 0) {
            if (job.blocks_done == seen)
                wait_changed(&job, timed, watch->seconds);
            seen = job.blocks_done;
            pthread_mutex_unlock(&job.lock);
            watch->fn(watch->user);
            pthread_mutex_lock(&job.lock);
        }
        pthread_mutex_unlock(&job.lock);
    }
    for (size_t t = 0; t < started; t++)
        pthread_join(tid[t], NULL);
    free(tid);
    if (watch) {
        pthread_cond_destroy(&job.changed);
        pthread_mutex_destroy(&job.lock);
        watch->fn(watch->user);
    }
}
