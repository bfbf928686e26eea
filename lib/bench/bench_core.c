/*
 * Timing a compiled terrain for `terrafit bench` and `make bench`
 * (docs/performance.md): median wall time of several runs of each call,
 * over the same size x size grid, plus the generated representative specs.
 */
#define _POSIX_C_SOURCE 200809L /* clock_gettime (the thread CPU clock) */

#include "bench/bench_core.h"

#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "base/error.h"
#include "util/util.h"
#include "runtime/bench.h" /* tf_fractal_sum_row */

#define BENCH_X0 1000.5
#define BENCH_Y0 -2000.25
#define BENCH_STEP 1.0

/* Single-thread figures use the thread's CPU time, which time slices
 * given to other processes on a shared machine do not inflate; the
 * all-threads figure is wall time (it is about using every core), on the
 * tool libraries' one clock. */
static double now_seconds(int wall)
{
    if (wall)
        return tf_clock_seconds();
    struct timespec ts;
    if (clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts) != 0)
        return 0.0;
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* Warm-up runs of a one-thread figure stop at the first that touches at
 * most WARM_PAGES new pages (the allocator's small blocks come and go by
 * tens of pages; a scratch that grows takes thousands), or once they have
 * taken WARM_SECONDS or WARM_RUNS_MAX runs. */
#define WARM_PAGES 64
#define WARM_SECONDS 2.0
#define WARM_RUNS_MAX 16

/* The kinds of work timed, one run each. */
typedef enum {
    WORK_SAMPLE,
    WORK_SAMPLE_RANDOM,
    WORK_POINTS,
    WORK_GRID1,
    WORK_GRID_ALL,
    WORK_NOISE,
    WORK_FRACTAL,
    WORK_CHUNKS
} work_kind;

/* A game's streaming: CHUNK_COUNT windows of CHUNK_SIDE samples a side
 * (64 plus a border sample each side), CHUNK_STRIDE apart along a row. */
#define CHUNK_SIDE 66
#define CHUNK_STRIDE 64
#define CHUNK_COUNT 16

typedef struct {
    const tf_terrain *t;
    size_t size;
    unsigned threads;
    float *grid;
    double *random_x, *random_y; /* size each: points of the random-order figure */
    double *points_x, *points_out; /* size each: a row of them for tf_terrain_sample_points */
    size_t single_rows;          /* rows of the single-sample figures */
    /* A drainage stage keeps the nodes it made on each thread and starts
     * new networks from them (docs/spec.md, "Drainage"): each run of such
     * a spec moves RUN_SHIFT further along x, so no run reuses the last
     * one's and every figure is one first visit. */
    int shift_runs;
    unsigned runs;
    float *chunk; /* CHUNK_SIDE^2 */
} work;

#define RUN_SHIFT 1048576.0

/* Coordinates spread over the grid's square in no order: x = X0 + the
 * square's side times a fraction from a 64-bit LCG (Knuth's MMIX
 * constants), the same numbers on every run and machine. */
static void random_coordinates(double origin, size_t n, uint64_t *state, double *out)
{
    for (size_t k = 0; k < n; k++) {
        *state = *state * 6364136223846793005u + 1442695040888963407u;
        out[k] = origin + (double)(*state >> 11) * 0x1p-53 * (double)n * BENCH_STEP;
    }
}

/* The table's 6-character noise column: docs/noise.md's names, shortened. */
static const char *short_noise_name(const char *name)
{
    static const char *const SHORT[][2] = {
        {"simplex", "splx"},           {"perlin-reference-simplex", "prs"},
        {"perlin", "perlin"},          {"exponential-perlin", "expprl"},
        {"polynomial", "poly"},        {"value", "value"},
        {"cellular-f1", "cf1"},        {"cellular-f2", "cf2"},
        {"cellular-f2-f1", "cf2-f1"},
    };
    for (size_t k = 0; k < sizeof SHORT / sizeof SHORT[0]; k++)
        if (strcmp(name, SHORT[k][0]) == 0)
            return SHORT[k][1];
    return name;
}
/* One run; returns the seconds taken, or -1 on failure. */
static double run_once(work *w, work_kind kind, double *checksum, tf_error *err)
{
    size_t n = w->size;
    const tf_terrain *t = w->t;
    double sum = 0.0;
    int wall = kind == WORK_GRID_ALL;
    double X0 = BENCH_X0 + (w->shift_runs ? RUN_SHIFT * (double)w->runs++ : 0.0);
    double dx = X0 - BENCH_X0;
    if (kind == WORK_POINTS)
        for (size_t i = 0; i < n; i++)
            w->points_x[i] = w->random_x[i] + dx;
    double start = now_seconds(wall);
    switch (kind) {
    case WORK_SAMPLE:
        for (size_t j = 0; j < w->single_rows; j++)
            for (size_t i = 0; i < n; i++)
                sum += tf_terrain_sample(t, X0 + (double)i * BENCH_STEP,
                                         BENCH_Y0 + (double)j * BENCH_STEP);
        break;
    case WORK_SAMPLE_RANDOM:
        /* the pairs (x_i, y_((i + j) mod n)): n * n distinct points, each
         * call far from the last, so nothing the previous call left in
         * the branch predictors or caches lines up with the next */
        for (size_t j = 0; j < w->single_rows; j++)
            for (size_t i = 0, jj = j; i < n; i++, jj = jj + 1 == n ? 0 : jj + 1)
                sum += tf_terrain_sample(t, w->random_x[i] + dx, w->random_y[jj]);
        break;
    case WORK_POINTS:
        /* the same pairs, a row of them a call: y_((i + j) mod n) is
         * random_y from j for the first n - j points, then from 0 */
        for (size_t j = 0; j < w->single_rows; j++) {
            tf_terrain_sample_points(t, w->points_x, w->random_y + j, n - j, w->points_out);
            tf_terrain_sample_points(t, w->points_x + (n - j), w->random_y, j,
                                     w->points_out + (n - j));
            for (size_t i = 0; i < n; i++)
                sum += w->points_out[i];
        }
        break;
    case WORK_GRID1:
        tf_terrain_sample_grid(t, X0, BENCH_Y0, BENCH_STEP, n, n, w->grid);
        break;
    case WORK_GRID_ALL:
        if (tf_render_grid(t, X0, BENCH_Y0, BENCH_STEP, n, n, w->threads, w->grid, NULL,
                           NULL, err) != 0)
            return -1.0;
        break;
    case WORK_NOISE:
    case WORK_FRACTAL: {
        /* The base noise of layer 0 (noise), or a plain fractal sum of the
         * layers' base noises with amplitudes 1, 1/2, 1/4, ... (fractal):
         * the terrain's own chunks and vector steps, without its curves
         * and masks (tf_fractal_sum_row). */
        size_t octaves = kind == WORK_NOISE ? 1 : tf_terrain_layer_count(t);
        for (size_t j = 0; j < n; j++)
            tf_fractal_sum_row(t, octaves, X0, BENCH_STEP, 0,
                               BENCH_Y0 + (double)j * BENCH_STEP, n, w->grid + j * n);
        break;
    }
    case WORK_CHUNKS:
        for (size_t c = 0; c < CHUNK_COUNT; c++) {
            tf_terrain_sample_window(t, X0 + (double)(c * CHUNK_STRIDE) * BENCH_STEP, BENCH_Y0,
                                     BENCH_STEP, 0, 0, CHUNK_SIDE, CHUNK_SIDE, w->chunk);
            for (size_t k = 0; k < CHUNK_SIDE * CHUNK_SIDE; k += 97)
                sum += w->chunk[k];
        }
        break;
    }
    double seconds = now_seconds(wall) - start;
    if (kind != WORK_SAMPLE && kind != WORK_SAMPLE_RANDOM && kind != WORK_POINTS &&
        kind != WORK_CHUNKS)
        for (size_t k = 0; k < n * n; k += 97)
            sum += w->grid[k];
    *checksum += sum;
    return seconds;
}

int bench_run(const tf_terrain *t, const char *name, const bench_options *opts,
              bench_result *r, tf_error *err)
{
    memset(r, 0, sizeof *r);
    const tf_spec *spec = tf_terrain_spec(t);
    size_t n = opts->size;
    int repeat = opts->repeat > 0 ? opts->repeat : 1;
    work w = {.t = t, .size = n, .threads = opts->threads ? opts->threads : tf_cpu_count()};
    /* A drainage stage builds its network around a single sample far
     * from recent ones (docs/spec.md, "Drainage"): milliseconds each, so
     * its single-sample figures time the first rows only, at least 4096
     * points. */
    w.single_rows = n;
    if (spec->drainage.levels > 0 && n > 0 && (4096 + n - 1) / n < n)
        w.single_rows = (4096 + n - 1) / n;
    w.shift_runs = spec->drainage.levels > 0;
    w.grid = malloc(n * n * sizeof *w.grid);
    w.chunk = malloc(CHUNK_SIDE * CHUNK_SIDE * sizeof *w.chunk);
    w.random_x = malloc(n * sizeof *w.random_x);
    w.random_y = malloc(n * sizeof *w.random_y);
    w.points_x = malloc(n * sizeof *w.points_x);
    w.points_out = malloc(n * sizeof *w.points_out);
    double *times = malloc((size_t)repeat * sizeof *times);
    int status = 0;
    if (!w.grid || !w.chunk || !w.random_x || !w.random_y || !w.points_x || !w.points_out ||
        !times) {
        tf_error_set(err, TF_ERR_NOMEM, "bench: out of memory for a %zux%zu grid", n, n);
        status = -1;
    }
    if (status == 0) {
        uint64_t state = 20170901u;
        random_coordinates(BENCH_X0, n, &state, w.random_x);
        random_coordinates(BENCH_Y0, n, &state, w.random_y);
    }
    double *figures[] = {&r->sample_ns,   &r->random_ns, &r->points_ns,  &r->grid1_ns,
                         &r->grid_all_ns, &r->noise_ns,  &r->fractal_ns, &r->chunk_us};
    for (int kind = WORK_SAMPLE; status == 0 && kind <= WORK_CHUNKS; kind++) {
        /* Untimed runs warm the caches and touch the memory the timed
         * ones use: the grid, and a drainage stage's scratch, which grows
         * over a thread's first several tiles or samples (it keeps
         * layouts of its last ones). A first touch of a page costs
         * microseconds on a virtual machine (docs/performance.md), so the
         * figures would otherwise mix that one-off cost into the
         * per-sample one. The all-threads figure starts new threads,
         * each with a new stack and scratch, on every call: one run. */
        int warm = 0;
        double warm_seconds = 0.0;
        for (;;) {
            long before = tf_page_faults();
            double seconds = run_once(&w, (work_kind)kind, &r->checksum, err);
            if (seconds < 0.0) {
                status = -1;
                break;
            }
            warm++;
            warm_seconds += seconds;
            if (kind == WORK_GRID_ALL || before < 0 || tf_page_faults() - before <= WARM_PAGES ||
                warm_seconds >= WARM_SECONDS || warm == WARM_RUNS_MAX)
                break;
        }
        if (status != 0)
            break;
        r->warm_runs[kind] = warm;
        for (int k = 0; k < repeat; k++) {
            times[k] = run_once(&w, (work_kind)kind, &r->checksum, err);
            if (times[k] < 0.0) {
                status = -1;
                break;
            }
        }
        size_t points =
            n * (kind == WORK_SAMPLE || kind == WORK_SAMPLE_RANDOM || kind == WORK_POINTS
                     ? w.single_rows
                     : n);
        if (status == 0 && kind == WORK_CHUNKS)
            *figures[kind] = tf_median(times, (size_t)repeat) * 1e6 / (double)CHUNK_COUNT;
        else if (status == 0)
            *figures[kind] = tf_median(times, (size_t)repeat) * 1e9 / (double)points;
    }
    if (status == 0) {
        snprintf(r->name, sizeof r->name, "%s", name);
        r->layers = spec->layer_count;
        for (size_t i = 0; i < spec->layer_count; i++) {
            if (spec->layers[i].rd_point_count > r->points)
                r->points = spec->layers[i].rd_point_count;
            if (spec->layers[i].mask_layer_index >= 0)
                r->masks++;
        }
        r->output_curve = spec->output_curve_point_count > 0;
        r->noise = spec->layer_count ? tf_noise_type_name(spec->layers[0].noise_type) : "-";
        r->path = tf_terrain_path(t);
        r->threads = w.threads;
    }
    free(w.grid);
    free(w.chunk);
    free(w.random_x);
    free(w.random_y);
    free(w.points_x);
    free(w.points_out);
    free(times);
    return status;
}

static double per_layer(double ns, size_t layers)
{
    return layers ? ns / (double)layers : ns;
}

void bench_print_table(FILE *out, const bench_result *results, size_t count)
{
    fprintf(out,
            "%-28s %2s %4s %2s %2s %-6s %-4s | %7s %6s %7s %7s | %7s %6s | %7s %5s | %6s %7s %5s | "
            "%7s\n",
            "spec", "L", "pts", "mk", "oc", "noise", "path", "sample", "/layer", "random", "points",
            "grid1", "/layer", "gridN", "xN", "noise", "fractal", "t/f", "chunk");
    for (size_t k = 0; k < count; k++) {
        const bench_result *r = &results[k];
        const char *noise = short_noise_name(r->noise);
        /* a long path keeps its end, so the columns stay aligned */
        size_t len = strlen(r->name);
        char name[29];
        if (len > 28)
            snprintf(name, sizeof name, "...%s", r->name + len - 25);
        else
            snprintf(name, sizeof name, "%s", r->name);
        fprintf(
            out,
            "%-28s %2zu %4zu %2zu %2s %-6s %-4s | %7.2f %6.2f %7.2f %7.2f | %7.2f %6.2f | %7.2f "
            "%5.2f | %6.2f %7.2f %5.2f | %7.1f\n",
            name, r->layers, r->points, r->masks, r->output_curve ? "y" : "-", noise, r->path,
            r->sample_ns, per_layer(r->sample_ns, r->layers), r->random_ns, r->points_ns,
            r->grid1_ns, per_layer(r->grid1_ns, r->layers), r->grid_all_ns,
            r->grid1_ns / r->grid_all_ns, r->noise_ns, r->fractal_ns, r->grid1_ns / r->fractal_ns,
            r->chunk_us);
    }
    fprintf(out,
            "ns per sample (median); /layer = per layer-sample; random = sample at points "
            "in no order;\n"
            "points = the same points, a row of them a sample_points call;\n"
            "grid1 = 1 thread, gridN = %u threads, xN = grid1/gridN; noise = layer 0's base "
            "noise alone;\n"
            "fractal = plain sum of the layers' base noises; t/f = grid1/fractal; chunk = us "
            "per 66x66 window, 16 streamed along a row\n",
            count ? results[0].threads : 0u);
}

/* A figure as printed with "%.3f" (the table's precision, not noise
 * digits), or null when a ratio has no value. */
static cJSON *figure(double v)
{
    if (!isfinite(v))
        return cJSON_CreateNull();
    char text[64];
    snprintf(text, sizeof text, "%.3f", v);
    return cJSON_CreateRaw(text);
}

static bool put(cJSON *object, const char *key, cJSON *item)
{
    if (item && cJSON_AddItemToObject(object, key, item))
        return true;
    cJSON_Delete(item);
    return false;
}

/* The untimed runs before each figure's timed ones. */
static cJSON *warm_runs_json(const bench_result *r)
{
    static const char *const NAMES[] = {"sample",  "randomSample", "points",  "grid1",
                                        "gridAll", "noise",        "fractal", "chunk"};
    cJSON *o = cJSON_CreateObject();
    for (size_t k = 0; o && k < sizeof NAMES / sizeof NAMES[0]; k++)
        if (!put(o, NAMES[k], cJSON_CreateNumber(r->warm_runs[k]))) {
            cJSON_Delete(o);
            return NULL;
        }
    return o;
}

static cJSON *result_json(const bench_result *r)
{
    cJSON *o = cJSON_CreateObject();
    if (!o)
        return NULL;
    bool ok =
        put(o, "spec", cJSON_CreateString(r->name)) &&
        put(o, "layers", cJSON_CreateNumber((double)r->layers)) &&
        put(o, "points", cJSON_CreateNumber((double)r->points)) &&
        put(o, "masks", cJSON_CreateNumber((double)r->masks)) &&
        put(o, "outputCurve", cJSON_CreateBool(r->output_curve)) &&
        put(o, "noise", cJSON_CreateString(r->noise)) &&
        put(o, "path", cJSON_CreateString(r->path)) &&
        put(o, "threads", cJSON_CreateNumber(r->threads)) &&
        put(o, "sampleNs", figure(r->sample_ns)) &&
        put(o, "randomSampleNs", figure(r->random_ns)) &&
        put(o, "pointsNs", figure(r->points_ns)) && put(o, "grid1Ns", figure(r->grid1_ns)) &&
        put(o, "gridAllNs", figure(r->grid_all_ns)) && put(o, "noiseNs", figure(r->noise_ns)) &&
        put(o, "fractalNs", figure(r->fractal_ns)) && put(o, "chunkUs", figure(r->chunk_us)) &&
        put(o, "sampleNsPerLayer", figure(per_layer(r->sample_ns, r->layers))) &&
        put(o, "grid1NsPerLayer", figure(per_layer(r->grid1_ns, r->layers))) &&
        put(o, "threadSpeedup", figure(r->grid1_ns / r->grid_all_ns)) &&
        put(o, "terrainOverFractal", figure(r->grid1_ns / r->fractal_ns)) &&
        put(o, "warmRuns", warm_runs_json(r));
    if (!ok) {
        cJSON_Delete(o);
        return NULL;
    }
    return o;
}

cJSON *bench_results_json(const bench_result *results, size_t count, const bench_options *opts)
{
    cJSON *root = cJSON_CreateObject(), *list = NULL;
    if (!root || !put(root, "size", cJSON_CreateNumber((double)opts->size)) ||
        !put(root, "repeat", cJSON_CreateNumber(opts->repeat)) ||
        !(list = cJSON_AddArrayToObject(root, "results"))) {
        cJSON_Delete(root);
        return NULL;
    }
    for (size_t k = 0; k < count; k++) {
        cJSON *item = result_json(&results[k]);
        if (!item || !cJSON_AddItemToArray(list, item)) {
            cJSON_Delete(item);
            cJSON_Delete(root);
            return NULL;
        }
    }
    return root;
}

/* ---- the representative spec set */

typedef struct {
    const char *name;
    size_t layers, points;
    int range_mask;   /* the top layer masked by layer 0's range (a fitted spec) */
    int auto_layered; /* layers 1.. masked by 12-point curves of layer 0, a 64-point output
                         curve: the shape `fit` writes for a DEM */
    tf_noise_type noise;
    tf_interp interp;
    int drainage_levels; /* an auto-layered spec with a drainage stage of these levels */
    tf_fractal_kind kind; /* each layer's kind, of 6 octaves (TF_FRACTAL_NONE: plain) */
    tf_noise_type odd_noise; /* the odd layers' noise: `noise` but in a spec of two */
} suite_entry;

/* A row of one noise (its odd layers' noise is `noise` too). */
#define ROW(name, layers, points, range_mask, auto_layered, noise, interp, drainage, kind)      \
    {name, layers, points, range_mask, auto_layered, noise, interp, drainage, kind, noise}

static const suite_entry SUITE[] = {
    ROW("1 layer", 1, 64, 0, 0, TF_NOISE_SIMPLEX, TF_INTERP_MONOTONE_CUBIC, 0, TF_FRACTAL_NONE),
    ROW("2 layers", 2, 64, 0, 0, TF_NOISE_SIMPLEX, TF_INTERP_MONOTONE_CUBIC, 0, TF_FRACTAL_NONE),
    ROW("4 layers", 4, 64, 0, 0, TF_NOISE_SIMPLEX, TF_INTERP_MONOTONE_CUBIC, 0, TF_FRACTAL_NONE),
    ROW("6 layers", 6, 64, 0, 0, TF_NOISE_SIMPLEX, TF_INTERP_MONOTONE_CUBIC, 0, TF_FRACTAL_NONE),
    ROW("6 layers, 16 pts", 6, 16, 0, 0, TF_NOISE_SIMPLEX, TF_INTERP_MONOTONE_CUBIC, 0,
        TF_FRACTAL_NONE),
    ROW("6 layers, 256 pts", 6, 256, 0, 0, TF_NOISE_SIMPLEX, TF_INTERP_MONOTONE_CUBIC, 0,
        TF_FRACTAL_NONE),
    ROW("6 layers, cosine", 6, 64, 0, 0, TF_NOISE_SIMPLEX, TF_INTERP_COSINE, 0, TF_FRACTAL_NONE),
    ROW("fitted: 6 layers, 1 mask", 6, 64, 1, 0, TF_NOISE_SIMPLEX, TF_INTERP_MONOTONE_CUBIC, 0,
        TF_FRACTAL_NONE),
    ROW("auto-layered (DEM)", 6, 64, 0, 1, TF_NOISE_SIMPLEX, TF_INTERP_MONOTONE_CUBIC, 0,
        TF_FRACTAL_NONE),
    ROW("auto-layered, drainage 1 level", 6, 64, 0, 1, TF_NOISE_SIMPLEX, TF_INTERP_MONOTONE_CUBIC,
        1, TF_FRACTAL_NONE),
    ROW("auto-layered, drainage 4 levels", 6, 64, 0, 1, TF_NOISE_SIMPLEX, TF_INTERP_MONOTONE_CUBIC,
        4, TF_FRACTAL_NONE),
    ROW("6 layers, perlin-ref", 6, 64, 0, 0, TF_NOISE_PERLIN_REFERENCE_SIMPLEX,
        TF_INTERP_MONOTONE_CUBIC, 0, TF_FRACTAL_NONE),
    ROW("6 layers, 1 mask, perlin-ref", 6, 64, 1, 0, TF_NOISE_PERLIN_REFERENCE_SIMPLEX,
        TF_INTERP_MONOTONE_CUBIC, 0, TF_FRACTAL_NONE),
    /* the other base noises (docs/noise.md), each on its AVX2 rows
     * (docs/performance.md, "Layer kinds") */
    ROW("6 layers, perlin", 6, 64, 0, 0, TF_NOISE_PERLIN, TF_INTERP_MONOTONE_CUBIC, 0,
        TF_FRACTAL_NONE),
    ROW("6 layers, exp-perlin", 6, 64, 0, 0, TF_NOISE_EXPONENTIAL_PERLIN, TF_INTERP_MONOTONE_CUBIC,
        0, TF_FRACTAL_NONE),
    ROW("6 layers, polynomial", 6, 64, 0, 0, TF_NOISE_POLYNOMIAL, TF_INTERP_MONOTONE_CUBIC, 0,
        TF_FRACTAL_NONE),
    ROW("6 layers, value", 6, 64, 0, 0, TF_NOISE_VALUE, TF_INTERP_MONOTONE_CUBIC, 0,
        TF_FRACTAL_NONE),
    ROW("6 layers, cellular f2-f1", 6, 64, 0, 0, TF_NOISE_CELLULAR_F2_F1, TF_INTERP_MONOTONE_CUBIC,
        0, TF_FRACTAL_NONE),
    /* the layer kinds (docs/spec.md), one layer of 6 octaves */
    ROW("1 layer, fbm 6 octaves", 1, 64, 0, 0, TF_NOISE_SIMPLEX, TF_INTERP_MONOTONE_CUBIC, 0,
        TF_FRACTAL_FBM),
    ROW("1 layer, ridged 6 octaves", 1, 64, 0, 0, TF_NOISE_SIMPLEX, TF_INTERP_MONOTONE_CUBIC, 0,
        TF_FRACTAL_RIDGED),
    ROW("1 layer, billow 6 octaves", 1, 64, 0, 0, TF_NOISE_SIMPLEX, TF_INTERP_MONOTONE_CUBIC, 0,
        TF_FRACTAL_BILLOW),
    ROW("1 layer, swiss 6 octaves", 1, 64, 0, 0, TF_NOISE_SIMPLEX, TF_INTERP_MONOTONE_CUBIC, 0,
        TF_FRACTAL_SWISS),
    ROW("1 layer, jordan 6 octaves", 1, 64, 0, 0, TF_NOISE_SIMPLEX, TF_INTERP_MONOTONE_CUBIC, 0,
        TF_FRACTAL_JORDAN),
    /* rows added later go last, so the rows above keep their seeds
     * (20170901 + index) and their figures stay comparable; a plain layer
     * with a 2-point (identity) curve, as a drawn spec starts */
    ROW("1 layer, 2 pts", 1, 2, 0, 0, TF_NOISE_SIMPLEX, TF_INTERP_MONOTONE_CUBIC, 0,
        TF_FRACTAL_NONE),
    /* the layer kinds of other base noises, fbm beside each for the ratio
     * (swiss and jordan warp by the noise's gradient at points of their
     * own: docs/performance.md, "Every base noise on the AVX-512 path") */
    ROW("value fbm 6 octaves", 1, 64, 0, 0, TF_NOISE_VALUE, TF_INTERP_MONOTONE_CUBIC, 0,
        TF_FRACTAL_FBM),
    ROW("value swiss 6 octaves", 1, 64, 0, 0, TF_NOISE_VALUE, TF_INTERP_MONOTONE_CUBIC, 0,
        TF_FRACTAL_SWISS),
    ROW("value jordan 6 octaves", 1, 64, 0, 0, TF_NOISE_VALUE, TF_INTERP_MONOTONE_CUBIC, 0,
        TF_FRACTAL_JORDAN),
    ROW("perlin fbm 6 octaves", 1, 64, 0, 0, TF_NOISE_PERLIN, TF_INTERP_MONOTONE_CUBIC, 0,
        TF_FRACTAL_FBM),
    ROW("perlin swiss 6 octaves", 1, 64, 0, 0, TF_NOISE_PERLIN, TF_INTERP_MONOTONE_CUBIC, 0,
        TF_FRACTAL_SWISS),
    ROW("cf2-f1 fbm 6 octaves", 1, 64, 0, 0, TF_NOISE_CELLULAR_F2_F1, TF_INTERP_MONOTONE_CUBIC, 0,
        TF_FRACTAL_FBM),
    ROW("cf2-f1 jordan 6 octaves", 1, 64, 0, 0, TF_NOISE_CELLULAR_F2_F1, TF_INTERP_MONOTONE_CUBIC,
        0, TF_FRACTAL_JORDAN),
    /* two noises in one spec, alternating (a single sample's lanes take
     * a group per noise) */
    {"6 layers, perlin + value", 6, 64, 0, 0, TF_NOISE_PERLIN, TF_INTERP_MONOTONE_CUBIC, 0,
     TF_FRACTAL_NONE, TF_NOISE_VALUE},
};

size_t bench_suite_size(void)
{
    return sizeof SUITE / sizeof SUITE[0];
}

/* A smooth, mostly rising curve through `count` points over [x0, x1]:
 * y = x^1.3-like shapes as fitted rd curves have. */
static void curve_points(tf_point *p, size_t count, double x0, double x1, double bend)
{
    for (size_t k = 0; k < count; k++) {
        double s = (double)k / (double)(count - 1);
        p[k].x = x0 + (x1 - x0) * s;
        p[k].y = s + bend * s * (1.0 - s) * sin(6.0 * s);
    }
}

tf_spec *bench_suite_spec(size_t index, char *name, size_t name_size, tf_error *err)
{
    if (index >= bench_suite_size())
        return NULL;
    const suite_entry *e = &SUITE[index];
    snprintf(name, name_size, "%s", e->name);
    tf_spec *spec = tf_spec_new(e->layers, err);
    if (!spec)
        return NULL;
    tf_spec_reseed(spec, 20170901u + (uint32_t)index);
    tf_point pts[256];
    int status = 0;
    for (size_t i = 0; i < e->layers && status == 0; i++) {
        tf_layer_spec *L = &spec->layers[i];
        L->noise_type = i % 2 ? e->odd_noise : e->noise;
        L->frequency = ldexp(1.0 / 256.0, (int)i); /* octaves */
        L->pre_amp_shift = -0.5;
        L->amp_scale = ldexp(1.0, -(int)i);
        curve_points(pts, e->points, 0.0, 1.0, 0.3 + 0.1 * (double)i);
        status = tf_spec_set_rd_points(spec, i, pts, e->points, err);
        L->rd_interpolation = e->interp;
        if (e->kind != TF_FRACTAL_NONE)
            tf_fractal_set_defaults(L, e->kind); /* 6 octaves */
        if (status == 0 && e->auto_layered && i > 0) {
            curve_points(pts, 12, 0.0, 1.0, 0.5);
            status = tf_spec_set_mask_curve(spec, i, 0, pts, 12, TF_INTERP_MONOTONE_CUBIC, err);
        }
    }
    if (status == 0 && e->range_mask && e->layers > 1) {
        tf_layer_spec *top = &spec->layers[e->layers - 1];
        top->mask_layer_index = 0;
        top->mask_min_value = 0.45;
        top->mask_max_value = 1.0;
        top->mask_falloff = 0.05;
    }
    if (status == 0 && e->auto_layered) {
        curve_points(pts, 64, -2.5, 2.5, 0.4);
        for (size_t k = 0; k < 64; k++)
            pts[k].y = pts[k].y * 5.0 - 2.5;
        status = tf_spec_set_output_curve(spec, pts, 64, TF_INTERP_MONOTONE_CUBIC, err);
    }
    if (status == 0 && e->drainage_levels) {
        /* level 0 a third of the coarsest wavelength (256), valleys a
         * tenth of the sum's range deep with sides five times steeper
         * than a depth per cell; one level carves only the layers at
         * least its spacing long and fades the detail over two depths */
        double spacing = 256.0 / 3.0, depth = 0.15;
        tf_drainage_set_defaults(spec, e->drainage_levels, spacing, depth,
                                 5.0 * 2.0 * depth / spacing);
        if (e->drainage_levels == 1) {
            spec->drainage.reach = 1.0;
            spec->drainage.detail_wavelength = spacing;
            spec->drainage.fade = 2.0;
        }
    }
    spec->min_value = -2.5;
    spec->max_value = 2.5;
    if (status != 0 || tf_spec_validate(spec, err) != 0) {
        tf_spec_free(spec);
        return NULL;
    }
    return spec;
}
