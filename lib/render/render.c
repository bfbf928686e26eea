/*
 * Multi-threaded rendering: the rows of a sample grid are claimed in small
 * blocks by worker threads and the calling thread (tf_parallel_claim),
 * which also reports progress. The result has the bits
 * tf_terrain_sample_grid would give.
 */
#include <math.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/error.h"
#include "util/util.h"
#include "terrafit/terrafit.h"

/* Samples in one claim of rows: large enough that the shared counter is
 * touched rarely, small enough that threads finish close together. */
#define SAMPLES_PER_CLAIM 8192
/* Claims per thread at the least, so small grids still spread out. */
#define MIN_CLAIMS_PER_THREAD 4
#define PROGRESS_INTERVAL_SECONDS 0.25

typedef struct {
    const tf_terrain *terrain;
    double x0, y0, step;
    int64_t i0, j0; /* the window's first lattice column and row */
    size_t nx, ny;
    float *out;
    atomic_size_t rows_done; /* rows finished, for progress */
} render_job;

typedef struct {
    tf_progress_fn fn;
    void *user;
    const render_job *job;
    double next_report_seconds;
} progress_reporter;

/* The calling thread's watch (tf_parallel_claim): a report now and then
 * while rows remain; the final one (done == total) is left to
 * tf_render_window so that it comes exactly once. */
static void report_progress(void *arg)
{
    progress_reporter *reporter = arg;
    size_t done = atomic_load_explicit(&reporter->job->rows_done, memory_order_relaxed);
    double now = tf_clock_seconds();
    if (done < reporter->job->ny && now >= reporter->next_report_seconds) {
        reporter->fn(reporter->user, done, reporter->job->ny);
        reporter->next_report_seconds = now + PROGRESS_INTERVAL_SECONDS;
    }
}

/* Rows [first, end): the lattice window of those rows. The runtime
 * computes each y as y0 + (double)(j0 + j) * step in the same code
 * tf_terrain_sample_window and tf_terrain_sample_grid run, so the bits
 * match without depending on how this file is compiled (e.g. whether
 * y0 + j * step would be contracted into a fused multiply-add here). */
static void render_rows(void *arg, size_t first, size_t end)
{
    render_job *job = arg;
    /* One window for the whole block: a spec with a drainage stage builds
     * its valley network once per window tile, not once per row. */
    tf_terrain_sample_window(job->terrain, job->x0, job->y0, job->step, job->i0,
                             job->j0 + (int64_t)first, job->nx, end - first,
                             job->out + first * job->nx);
    atomic_fetch_add_explicit(&job->rows_done, end - first, memory_order_relaxed);
}

static int check_render_args(const tf_terrain *t, double x0, double y0, double step, size_t nx,
                             size_t ny, const float *out, tf_error *err)
{
    if (!t || !out) {
        tf_error_set(err, TF_ERR_ARGUMENT, "render: no %s given", t ? "output buffer" : "terrain");
        return -1;
    }
    if (nx == 0 || ny == 0) {
        tf_error_set(err, TF_ERR_ARGUMENT, "render: a %zux%zu grid has no samples", nx, ny);
        return -1;
    }
    if (nx > TF_MAX_IMAGE_SIDE || ny > TF_MAX_IMAGE_SIDE || nx * ny > TF_MAX_IMAGE_PIXELS) {
        tf_error_set(err, TF_ERR_LIMIT,
                  "render: a %zux%zu grid is too large (at most %u per side and %zu samples)", nx,
                  ny, TF_MAX_IMAGE_SIDE, TF_MAX_IMAGE_PIXELS);
        return -1;
    }
    if (!isfinite(x0) || !isfinite(y0)) {
        tf_error_set(err, TF_ERR_ARGUMENT, "render: the origin (%g, %g) is not finite", x0, y0);
        return -1;
    }
    if (!isfinite(step) || !(step > 0.0)) {
        tf_error_set(err, TF_ERR_ARGUMENT, "render: the step %g must be finite and greater than 0",
                  step);
        return -1;
    }
    return 0;
}

int tf_render_grid(const tf_terrain *t, double x0, double y0, double step, size_t nx, size_t ny,
                   unsigned threads, float *out, tf_progress_fn progress, void *user,
                   tf_error *err)
{
    return tf_render_window(t, x0, y0, step, 0, 0, nx, ny, threads, out, progress, user, err);
}

/* Lattice indices must stay below 2^53 (runtime.h), where doubles still
 * count every integer. */
#define MAX_LATTICE_INDEX ((int64_t)1 << 53)

int tf_render_window(const tf_terrain *t, double x0, double y0, double step, int64_t i0,
                     int64_t j0, size_t nx, size_t ny, unsigned threads, float *out,
                     tf_progress_fn progress, void *user, tf_error *err)
{
    if (check_render_args(t, x0, y0, step, nx, ny, out, err) != 0)
        return -1;
    if (i0 <= -MAX_LATTICE_INDEX || i0 >= MAX_LATTICE_INDEX - (int64_t)nx ||
        j0 <= -MAX_LATTICE_INDEX || j0 >= MAX_LATTICE_INDEX - (int64_t)ny) {
        tf_error_set(err, TF_ERR_ARGUMENT,
                     "render: the window at lattice (%lld, %lld) reaches 2^53, beyond exact "
                     "lattice indices",
                     (long long)i0, (long long)j0);
        return -1;
    }
    size_t thread_count = threads ? threads : tf_cpu_count();
    if (thread_count > ny)
        thread_count = ny;

    render_job job = {
        .terrain = t,
        .x0 = x0,
        .y0 = y0,
        .step = step,
        .i0 = i0,
        .j0 = j0,
        .nx = nx,
        .ny = ny,
        .out = out,
    };
    size_t rows_per_claim = (SAMPLES_PER_CLAIM + nx - 1) / nx;
    size_t rows_for_balance = ny / (thread_count * MIN_CLAIMS_PER_THREAD);
    size_t window_rows = tf_terrain_window_rows(t, step);
    if (window_rows > 1) {
        /* A window builds the valley network once per tile of that many
         * rows, and each tile's network reaches past it: claims of a few
         * rows rebuilt it for every few rows (a 512 x 512 grid of the
         * fitted Jacksboro spec took 2.4x as long with claims of 16 rows
         * of its 256-row tiles). Two claims per thread still balance. */
        rows_per_claim = window_rows;
        rows_for_balance = ny / (thread_count * 2);
    }
    if (rows_per_claim > rows_for_balance)
        rows_per_claim = rows_for_balance;
    atomic_init(&job.rows_done, 0);

    /* The calling thread renders rows too, and between its blocks (and as
     * the others finish theirs) reports progress. */
    progress_reporter reporter = {
        .fn = progress,
        .user = user,
        .job = &job,
        .next_report_seconds = tf_clock_seconds() + PROGRESS_INTERVAL_SECONDS,
    };
    tf_parallel_watch watch = {report_progress, &reporter, PROGRESS_INTERVAL_SECONDS, 0};
    tf_parallel_claim(ny, rows_per_claim > 0 ? rows_per_claim : 1, (unsigned)thread_count,
                      render_rows, &job, progress ? &watch : NULL);

    if (progress)
        progress(user, ny, ny);
    if (err) {
        err->code = TF_OK;
        err->message[0] = '\0';
    }
    return 0;
}

float *tf_render_normalized(const tf_terrain *t, double x0, double y0, double step, size_t nx,
                            size_t ny, size_t border, unsigned threads, tf_progress_fn progress,
                            void *user, tf_error *err)
{
    if (border > 1) {
        tf_error_set(err, TF_ERR_ARGUMENT, "render: a border of %zu samples (0 or 1)", border);
        return NULL;
    }
    size_t sx = nx + 2 * border, sy = ny + 2 * border;
    /* The size is checked by tf_render_window below, before any use of
     * sx * sy; an nx or ny of 0 just allocates a little. */
    float *heights = nx && ny && nx <= TF_MAX_IMAGE_SIDE && ny <= TF_MAX_IMAGE_SIDE
                         ? malloc(sx * sy * sizeof *heights)
                         : malloc(sizeof *heights);
    if (!heights) {
        tf_error_set(err, TF_ERR_NOMEM, "render: out of memory for a %zux%zu grid", sx, sy);
        return NULL;
    }
    /* The interior with every thread, then its rows moved (last first, as
     * they only move forward) to make room for the ring. */
    if (tf_render_window(t, x0, y0, step, 0, 0, nx, ny, threads, heights, progress, user,
                         err) != 0) {
        free(heights);
        return NULL;
    }
    if (border) {
        for (size_t j = ny; j-- > 0;)
            memmove(heights + (j + 1) * sx + 1, heights + j * nx, nx * sizeof *heights);
        /* The ring at lattice indices -1 and nx (ny), where
         * tf_terrain_sample_window puts them: neighbouring tiles' rings hold
         * each other's edges. */
        tf_terrain_sample_window(t, x0, y0, step, -1, -1, sx, 1, heights);
        tf_terrain_sample_window(t, x0, y0, step, -1, (int64_t)ny, sx, 1, heights + (sy - 1) * sx);
        for (size_t j = 0; j < ny; j++) {
            float *row = heights + (j + 1) * sx;
            tf_terrain_sample_window(t, x0, y0, step, -1, (int64_t)j, 1, 1, row);
            tf_terrain_sample_window(t, x0, y0, step, (int64_t)nx, (int64_t)j, 1, 1, row + sx - 1);
        }
    }
    for (size_t k = 0; k < sx * sy; k++)
        heights[k] = (float)tf_terrain_normalize(t, heights[k]);
    return heights;
}
