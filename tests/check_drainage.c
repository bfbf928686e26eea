/*
 * The drainage stage (docs/spec.md, "Drainage"): windows equal single
 * samples bit for bit on every path, at any origin, step and lattice
 * offset; chunks cut from one lattice join; threads agree; the drained
 * stage composes with the output curve; the gradient is the documented
 * central difference; non-finite and out-of-range points give NaN; and the
 * carved terrain drains: far fewer cells in closed depressions than the
 * same layers without the stage.
 */
#define _DEFAULT_SOURCE
#include <check.h>
#include <math.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "terrafit/image.h"
#include "terrafit/metrics.h"
#include "terrafit/runtime.h"
#include "testutil.h"

/* Three bands (wavelengths 200, 50 and 12.5), a mask curve and an output
 * curve, with and without a three-level network. */
static const char *const LAYERS =
    "{\"format\": \"terrafit-terrain\", \"version\": 1, \"seed\": 11,"
    " \"noiseLayers\": ["
    "  {\"baseNoise\": {\"frequency\": 0.005},"
    "   \"rd\": {\"points\": [{\"x\": 0.1, \"y\": -1.0}, {\"x\": 0.5, \"y\": -0.1},"
    "                        {\"x\": 0.9, \"y\": 1.0}]}},"
    "  {\"baseNoise\": {\"frequency\": 0.02},"
    "   \"rd\": {\"points\": [{\"x\": 0.1, \"y\": -0.3}, {\"x\": 0.9, \"y\": 0.3}]},"
    "   \"maskLayerIndex\": 0,"
    "   \"maskCurve\": {\"points\": [{\"x\": -1.0, \"y\": 0.5}, {\"x\": 1.0, \"y\": 1.5}]}},"
    "  {\"baseNoise\": {\"frequency\": 0.08},"
    "   \"rd\": {\"points\": [{\"x\": 0.0, \"y\": -0.08}, {\"x\": 1.0, \"y\": 0.08}]}}"
    " ],"
    " \"outputCurve\": {\"interpolation\": \"linear\", \"points\": [{\"x\": -2.0, \"y\": -1.0},"
    "   {\"x\": 0.0, \"y\": -0.1}, {\"x\": 2.0, \"y\": 1.0}]}";
static const char *const DRAINAGE =
    ", \"drainage\": {\"levels\": 3, \"spacing\": 48, \"depth\": 0.3, \"slope\": 0.03}";

/* A path this CPU or build lacks (avx2 on another processor) runs as
 * "auto": the test then repeats that path's figures. */
static void set_path(tf_terrain *t, const char *path)
{
    tf_error err;
    if (tf_terrain_set_path(t, path, &err) != 0)
        ck_assert_int_eq(tf_terrain_set_path(t, "auto", &err), 0);
}

static tf_terrain *make_terrain(int with_drainage, const char *path)
{
    char json[2048];
    snprintf(json, sizeof json, "%s%s}", LAYERS, with_drainage ? DRAINAGE : "");
    tf_error err;
    tf_terrain *t = tf_terrain_parse(json, strlen(json), &err);
    ck_assert_msg(t != NULL, "%s", err.message);
    set_path(t, path);
    return t;
}

static int same_float(float a, float b)
{
    return (isnan(a) && isnan(b)) || memcmp(&a, &b, sizeof a) == 0;
}

static int same_double(double a, double b)
{
    return (isnan(a) && isnan(b)) || memcmp(&a, &b, sizeof a) == 0;
}

/* Every evaluation path: windows carve groups of eight points on the
 * AVX-512 path and of four on AVX2 ("auto" is the best the CPU has). */
static const char *const PATHS[] = {"none", "auto", "avx2"};
#define PATH_COUNT 3

/* Origins near zero, negative, far away; steps below, at and above one
 * finest cell (12 world units); lattice offsets of both signs. */
static const struct {
    double x0, y0, step;
    int64_t i0, j0;
} WINDOWS[] = {
    {0.0, 0.0, 1.0, 0, 0},          {-300.25, 77.5, 0.73, 0, 0},
    {123456.0, -98765.5, 3.5, -5, 9}, {-1e6, 2e6, 17.0, 40, -3},
    {5000.0, 5000.0, 0.125, 2, 2},
};
#define WINDOW_COUNT (sizeof WINDOWS / sizeof WINDOWS[0])
#define NX 29
#define NY 23

START_TEST(window_equals_samples)
{
    tf_terrain *t = make_terrain(1, PATHS[_i % PATH_COUNT]);
    const __typeof__(WINDOWS[0]) *w = &WINDOWS[_i / PATH_COUNT];
    float *grid = malloc(NX * NY * sizeof *grid);
    tf_terrain_sample_window(t, w->x0, w->y0, w->step, w->i0, w->j0, NX, NY, grid);
    for (size_t j = 0; j < NY; j++)
        for (size_t i = 0; i < NX; i++) {
            double x = w->x0 + (double)(w->i0 + (int64_t)i) * w->step;
            double y = w->y0 + (double)(w->j0 + (int64_t)j) * w->step;
            float single = (float)tf_terrain_sample(t, x, y);
            ck_assert_msg(same_float(grid[j * NX + i], single),
                          "window %d (%s) at (%zu, %zu): %.9g != %.9g", _i / PATH_COUNT, PATHS[_i % PATH_COUNT], i,
                          j, grid[j * NX + i], single);
            ck_assert_msg(isfinite(single), "(%g, %g) is not finite", x, y);
        }
    /* a batch of points in no order (the diagonal, backwards): each the
     * bits of its single sample */
    double px[NY], py[NY], ph[NY];
    for (size_t k = 0; k < NY; k++) {
        px[k] = w->x0 + (double)(w->i0 + (int64_t)(NY - 1 - k)) * w->step;
        py[k] = w->y0 + (double)(w->j0 + (int64_t)(NY - 1 - k)) * w->step;
    }
    tf_terrain_sample_points(t, px, py, NY, ph);
    for (size_t k = 0; k < NY; k++) {
        double single = tf_terrain_sample(t, px[k], py[k]);
        ck_assert_msg(same_double(ph[k], single), "window %d (%s), point %zu: %.17g != %.17g",
                      _i / PATH_COUNT, PATHS[_i % PATH_COUNT], k, ph[k], single);
    }
    free(grid);
    tf_terrain_free(t);
}
END_TEST

/* A thread keeps the network it built for one stage's single samples and
 * windows, reuses it for the next nearby ones and starts new layouts from
 * the nodes it already made: whatever the order of the queries, and
 * across stages compiled, freed and compiled again (perhaps at the same
 * address), with windows in between, every sample is the bits of one made
 * from nothing. A sample on a new thread (whose scratch holds nothing) is
 * the reference. */
typedef struct {
    const tf_terrain *t;
    tf_stage stage;
    const double *x, *y;
    double *h;
    int n;
} fresh_job;

static void *fresh_run(void *arg)
{
    fresh_job *job = arg;
    for (int k = 0; k < job->n; k++)
        job->h[k] = tf_terrain_sample_stage(job->t, job->stage, 0, job->x[k], job->y[k]);
    return NULL;
}

/* A stage at n points, in order, on a new thread. */
static void fresh_samples(const tf_terrain *t, tf_stage stage, const double *x, const double *y,
                          double *h, int n)
{
    fresh_job job = {t, stage, x, y, h, n};
    pthread_t th;
    ck_assert_int_eq(pthread_create(&th, NULL, fresh_run, &job), 0);
    pthread_join(th, NULL);
}

static double cold_sample(const tf_terrain *t, double x, double y)
{
    double h;
    fresh_samples(t, TF_STAGE_HEIGHT, &x, &y, &h, 1);
    return h;
}

START_TEST(single_samples_reuse_the_network_exactly)
{
    static const char *const OTHER =
        ", \"drainage\": {\"levels\": 1, \"spacing\": 40, \"depth\": 0.2, \"slope\": 0.05,"
        " \"breach\": 4}";
    enum { N = 400 };
    double *px = malloc(N * sizeof *px), *py = malloc(N * sizeof *py);
    double *ref_a = malloc(N * sizeof *ref_a), *ref_b = malloc(N * sizeof *ref_b);
    double *ref_c = malloc(N * sizeof *ref_c);
    char json[2048], json_c[2048];
    snprintf(json, sizeof json, "%s%s}", LAYERS, OTHER);
    /* c: a's lattice (levels and spacing), another depth: the same boxes,
     * other beds */
    snprintf(json_c, sizeof json_c, "%s%s}", LAYERS,
             ", \"drainage\": {\"levels\": 3, \"spacing\": 48, \"depth\": 0.2, \"slope\": 0.03}");
    tf_error err;
    tf_terrain *a = make_terrain(1, PATHS[_i]);
    tf_terrain *b = tf_terrain_parse(json, strlen(json), &err);
    ck_assert_msg(b != NULL, "%s", err.message);
    tf_spec *spec_c = tf_spec_parse(json_c, strlen(json_c), "c", &err);
    ck_assert_msg(spec_c != NULL, "%s", err.message);
    tf_terrain *c = tf_terrain_compile(spec_c, &err);
    ck_assert_msg(c != NULL, "%s", err.message);
    /* a row, a walk that wanders off and back, and jumps */
    uint32_t h = 12345u;
    double x = -700.0, y = 250.0;
    for (int k = 0; k < N; k++) {
        h = h * 1664525u + 1013904223u;
        if (k < 120) {
            x += 0.75;
        } else if (k % 50 == 49) {
            x += (double)(h >> 20) - 2048.0;
            y -= (double)(h >> 21);
        } else {
            x += (double)(h >> 24) / 16.0 - 8.0;
            y += (double)((h >> 16) & 255u) / 16.0 - 8.0;
        }
        px[k] = x;
        py[k] = y;
        ref_a[k] = cold_sample(a, x, y);
        ref_b[k] = cold_sample(b, x, y);
        ref_c[k] = cold_sample(c, x, y);
    }
    tf_terrain_free(c);
    float window[9];
    for (int k = 0; k < N; k++) {
        ck_assert_msg(same_double(tf_terrain_sample(a, px[k], py[k]), ref_a[k]),
                      "stage a, query %d at (%.17g, %.17g)", k, px[k], py[k]);
        if (k % 3 == 0) /* the other stage in between */
            ck_assert_msg(same_double(tf_terrain_sample(b, px[k], py[k]), ref_b[k]),
                          "stage b, query %d", k);
        if (k % 40 == 7) /* a window in between */
            tf_terrain_sample_window(a, px[k], py[k], 1.0, 0, 0, 3, 3, window);
    }
    /* in reverse order, then a stage compiled again in place of the first */
    for (int k = N - 1; k >= 0; k--)
        ck_assert_msg(same_double(tf_terrain_sample(b, px[k], py[k]), ref_b[k]),
                      "stage b, query %d in reverse", k);
    /* the first stage's network kept, then the stage freed and c
     * compiled, at the same address when the allocator gives it again
     * (a few tries keep the misses alive until then) */
    (void)tf_terrain_sample(a, px[N - 1], py[N - 1]);
    uintptr_t old = (uintptr_t)a;
    tf_terrain_free(a);
    tf_terrain *tries[8] = {NULL};
    int used = 0;
    for (; used < 8; used++) {
        tries[used] = tf_terrain_compile(spec_c, &err);
        ck_assert_msg(tries[used] != NULL, "%s", err.message);
        if ((uintptr_t)tries[used] == old)
            break;
    }
    tf_spec_free(spec_c);
    a = tries[used < 8 ? used : 0];
    for (int k = N - 1; k >= 0; k--)
        ck_assert_msg(same_double(tf_terrain_sample(a, px[k], py[k]), ref_c[k]),
                      "stage c compiled again%s, query %d",
                      (uintptr_t)a == old ? " at the same address" : "", k);
    for (int k = 0; k < (used < 8 ? used + 1 : 8); k++)
        tf_terrain_free(tries[k]);
    tf_terrain_free(b);
    free(px);
    free(py);
    free(ref_a);
    free(ref_b);
    free(ref_c);
}
END_TEST

/* tf_terrain_window_rows: the window tiles' height (64 finest cells of 12
 * world units, at most 512 rows) for a drainage spec, 1 otherwise and for
 * bad steps; and a window cut into bands of it, or of any other height,
 * gives the bits of the whole window. */
START_TEST(window_rows)
{
    tf_terrain *t = make_terrain(1, "auto"), *plain = make_terrain(0, "auto");
    ck_assert_uint_eq(tf_terrain_window_rows(t, 1.0), 512);
    ck_assert_uint_eq(tf_terrain_window_rows(t, 2.0), 384);
    ck_assert_uint_eq(tf_terrain_window_rows(t, 6.0), 128);
    ck_assert_uint_eq(tf_terrain_window_rows(t, 100.0), 7);
    ck_assert_uint_eq(tf_terrain_window_rows(t, 1000.0), 1);
    const double bad[] = {0.0, -1.0, NAN, INFINITY};
    for (size_t k = 0; k < sizeof bad / sizeof bad[0]; k++)
        ck_assert_uint_eq(tf_terrain_window_rows(t, bad[k]), 1);
    ck_assert_uint_eq(tf_terrain_window_rows(plain, 1.0), 1);
    ck_assert_uint_eq(tf_terrain_window_rows(NULL, 1.0), 1);

    enum { W = 37, H = 61 };
    const double step = 30.0;
    size_t rows = tf_terrain_window_rows(t, step);
    ck_assert_uint_eq(rows, 25);
    float *whole = malloc(W * H * sizeof *whole), *cut = malloc(W * H * sizeof *cut);
    tf_terrain_sample_window(t, -1234.5, 567.25, step, 3, -8, W, H, whole);
    const size_t bands[] = {rows, 7, 1};
    for (size_t b = 0; b < sizeof bands / sizeof bands[0]; b++) {
        for (size_t j = 0; j < H; j += bands[b]) {
            size_t n = H - j < bands[b] ? H - j : bands[b];
            tf_terrain_sample_window(t, -1234.5, 567.25, step, 3, -8 + (int64_t)j, W, n,
                                     cut + j * W);
        }
        for (size_t k = 0; k < W * H; k++)
            ck_assert_msg(same_float(whole[k], cut[k]), "bands of %zu rows, sample %zu",
                          bands[b], k);
    }
    free(whole);
    free(cut);
    tf_terrain_free(t);
    tf_terrain_free(plain);
}
END_TEST

/* The drained stage's window (doubles) equals its single samples at every
 * window above and on every path, for this file's network and the golden
 * specs (one with breaches): the windows carve runs of points together
 * where the path has vectors, and every bit must still be the sample's. */
static const char *const DRAINAGE_SPECS[] = {NULL, "drainage.json", "drainage-breach.json",
                                              "drainage-bands.json", "drainage-cut.json",
                                              "drainage-breach-nearest.json",
                                              "drainage-breach-pass.json",
                                              "drainage-inflow.json"};

START_TEST(drained_windows_equal_samples_in_doubles)
{
    size_t spec = (size_t)_i / (PATH_COUNT * WINDOW_COUNT);
    const char *path = PATHS[_i % PATH_COUNT];
    const __typeof__(WINDOWS[0]) *w = &WINDOWS[(_i / PATH_COUNT) % WINDOW_COUNT];
    tf_terrain *t;
    tf_error err;
    if (!DRAINAGE_SPECS[spec]) {
        t = make_terrain(1, path);
    } else {
        char file[4400];
        snprintf(file, sizeof file, "%s/tests/data/terrain/%s", tu_srcdir(), DRAINAGE_SPECS[spec]);
        t = tf_terrain_load(file, &err);
        ck_assert_msg(t != NULL, "%s: %s", file, err.message);
        set_path(t, path);
    }
    /* the golden specs' finest cells are a few units: steps of 0.125 to
     * 17 cross their bins every few points */
    double *win = malloc(NX * NY * sizeof *win);
    ck_assert_int_eq(tf_terrain_sample_stage_window(t, TF_STAGE_DRAINED, 0, w->x0, w->y0,
                                                    w->step, w->i0, w->j0, NX, NY, win, &err),
                     0);
    for (size_t j = 0; j < NY; j++)
        for (size_t i = 0; i < NX; i++) {
            double x = w->x0 + (double)(w->i0 + (int64_t)i) * w->step;
            double y = w->y0 + (double)(w->j0 + (int64_t)j) * w->step;
            double single = tf_terrain_sample_stage(t, TF_STAGE_DRAINED, 0, x, y);
            ck_assert_msg(same_double(win[j * NX + i], single),
                          "%s, window %d (%s) at (%zu, %zu): %a != %a",
                          DRAINAGE_SPECS[spec] ? DRAINAGE_SPECS[spec] : "3 levels",
                          (_i / PATH_COUNT) % (int)WINDOW_COUNT, path, i, j, win[j * NX + i], single);
        }
    free(win);
    tf_terrain_free(t);
}
END_TEST

/* The exported network: carving from tf_terrain_drainage_segments with
 * docs/spec.md's formulas (written here anew, as a port would) gives the
 * drained stage bit for bit at every point of the box, so a port that has
 * the segments needs nothing else of the network. */
typedef struct {
    tf_drainage_segment *s;
    size_t n, cap;
} seg_list;

static int collect(void *user, const tf_drainage_segment *s)
{
    seg_list *l = user;
    if (l->n == l->cap) {
        l->cap = l->cap ? 2 * l->cap : 256;
        l->s = realloc(l->s, l->cap * sizeof *l->s);
        ck_assert_ptr_nonnull(l->s);
    }
    l->s[l->n++] = *s;
    return 0;
}

static int stop_at_third(void *user, const tf_drainage_segment *s)
{
    (void)s;
    return ++*(int *)user == 3 ? 42 : 0;
}

static double port_drained(const tf_terrain *t, const seg_list *l, double x, double y)
{
    const tf_spec *spec = tf_terrain_spec(t);
    const tf_drainage_spec *d = &spec->drainage;
    double cone = INFINITY, bed = 0.0;
    for (size_t e = 0; e < l->n; e++) {
        const tf_drainage_segment *g = &l->s[e];
        double L = ldexp(d->spacing, -g->level), R = d->reach * L, w = d->floor_width * L;
        double dx = g->bx - g->ax, dy = g->by - g->ay, l2 = dx * dx + dy * dy, u = 0.0;
        if (l2 > 0.0) {
            u = ((x - g->ax) * dx + (y - g->ay) * dy) / l2;
            u = u < 0.0 ? 0.0 : u > 1.0 ? 1.0 : u;
        }
        double ex = x - (g->ax + u * dx), ey = y - (g->ay + u * dy), d2 = ex * ex + ey * ey;
        if (!(d2 < R * R))
            continue;
        double b = g->bed_a + u * (g->bed_b - g->bed_a);
        double c = b + (d->slope * (sqrt(d2 + w * w) - w)) / (1.0 - d2 / (R * R));
        if (c < cone)
            cone = c, bed = b;
    }
    double sum = tf_terrain_sample_stage(t, TF_STAGE_SUM, 0, x, y), low = 0.0;
    for (size_t i = 0; i < spec->layer_count; i++)
        if (spec->layers[i].frequency * d->detail_wavelength <= 1.0)
            low = low + tf_terrain_sample_stage(t, TF_STAGE_CONTRIBUTION, (int)i, x, y);
    double carved = cone < low ? cone : low, weight = 1.0;
    if (cone < INFINITY) {
        weight = (carved - bed) * (1.0 / (d->fade * d->depth));
        weight = weight < 0.0 ? 0.0 : weight > 1.0 ? 1.0 : weight;
    }
    return carved + weight * (sum - low);
}

/* Case i of the export's tests: one of the three networks (DRAINAGE_SPECS,
 * i / 3) and a 150 x 90 box at one of three origins (i % 3), its exported
 * network in *l. */
static tf_terrain *exported_case(int i, double *x0, double *y0, double *x1, double *y1,
                                 seg_list *l)
{
    size_t spec = (size_t)i / 3;
    static const double ORIGIN[][2] = {{-40.5, 13.25}, {123456.0, -98765.5}, {-1e6, 2e6}};
    tf_terrain *t;
    tf_error err;
    if (!DRAINAGE_SPECS[spec]) {
        t = make_terrain(1, "auto");
    } else {
        char file[4400];
        snprintf(file, sizeof file, "%s/tests/data/terrain/%s", tu_srcdir(), DRAINAGE_SPECS[spec]);
        t = tf_terrain_load(file, &err);
        ck_assert_msg(t != NULL, "%s: %s", file, err.message);
    }
    *x0 = ORIGIN[i % 3][0];
    *y0 = ORIGIN[i % 3][1];
    *x1 = *x0 + 150.0;
    *y1 = *y0 + 90.0;
    *l = (seg_list){0};
    ck_assert_int_eq(tf_terrain_drainage_segments(t, *x0, *y0, *x1, *y1, collect, l, &err), 0);
    ck_assert_uint_gt(l->n, 0);
    return t;
}

static const char *exported_name(int i)
{
    return DRAINAGE_SPECS[i / 3] ? DRAINAGE_SPECS[i / 3] : "3 levels";
}

START_TEST(exported_segments_carve_the_stage)
{
    double x0, y0, x1, y1;
    seg_list l;
    tf_terrain *t = exported_case(_i, &x0, &y0, &x1, &y1, &l);
    tf_error err;
    for (size_t e = 1; e < l.n; e++)
        ck_assert_int_le(l.s[e - 1].level, l.s[e].level); /* level first */
    uint32_t r = 12345u;
    for (int p = 0; p < 400; p++) {
        double x, y;
        if (p < 4) { /* the corners: the box is closed */
            x = p & 1 ? x1 : x0;
            y = p & 2 ? y1 : y0;
        } else {
            r = r * 1664525u + 1013904223u;
            x = x0 + (x1 - x0) * (r >> 8) * 0x1p-24;
            r = r * 1664525u + 1013904223u;
            y = y0 + (y1 - y0) * (r >> 8) * 0x1p-24;
        }
        double want = tf_terrain_sample_stage(t, TF_STAGE_DRAINED, 0, x, y);
        double got = port_drained(t, &l, x, y);
        ck_assert_msg(same_double(want, got), "%s, origin %d, (%.17g, %.17g): %a != %a",
                      exported_name(_i), _i % 3, x, y, want, got);
    }
    /* a visit that stops the walk: its value comes back */
    int seen = 0;
    ck_assert_int_eq(tf_terrain_drainage_segments(t, x0, y0, x1, y1, stop_at_third, &seen, &err),
                     42);
    ck_assert_int_eq(seen, 3);
    free(l.s);
    tf_terrain_free(t);
}
END_TEST

/* The same port against single samples made on a new thread, whose
 * scratch holds nothing: a row walked through the box (the layouts padded
 * ahead of the motion), then points in no order (each its own box). Each
 * layout links and bins only what its queries reach (need_boxes), while
 * the export makes the whole network of the box. */
START_TEST(fresh_single_samples_carve_the_exported_network)
{
    double x0, y0, x1, y1;
    seg_list l;
    tf_terrain *t = exported_case(_i, &x0, &y0, &x1, &y1, &l);
    enum { ROW = 200, N = ROW + 100 };
    double x[N], y[N], h[N];
    uint32_t r = 777u;
    for (int k = 0; k < N; k++) {
        if (k < ROW) {
            x[k] = x0 + 0.75 * k;
            y[k] = y0 + 45.0 + 0.125 * (k % 7);
        } else {
            r = r * 1664525u + 1013904223u;
            x[k] = x0 + (x1 - x0) * (r >> 8) * 0x1p-24;
            r = r * 1664525u + 1013904223u;
            y[k] = y0 + (y1 - y0) * (r >> 8) * 0x1p-24;
        }
    }
    fresh_samples(t, TF_STAGE_DRAINED, x, y, h, N);
    for (int k = 0; k < N; k++) {
        double want = port_drained(t, &l, x[k], y[k]);
        ck_assert_msg(same_double(h[k], want), "%s, origin %d, %s %d at (%.17g, %.17g): %a != %a",
                      exported_name(_i), _i % 3, k < ROW ? "row point" : "point in no order", k,
                      x[k], y[k], h[k], want);
    }
    free(l.s);
    tf_terrain_free(t);
}
END_TEST

START_TEST(exported_segments_refuse_bad_boxes)
{
    tf_terrain *plain = make_terrain(0, "auto"), *t = make_terrain(1, "auto");
    tf_error err;
    seg_list l = {0};
    ck_assert_int_eq(tf_terrain_drainage_segments(plain, 0, 0, 10, 10, collect, &l, &err), -1);
    ck_assert_int_eq(err.code, TF_ERR_ARGUMENT);
    ck_assert_ptr_nonnull(strstr(err.message, "no drainage stage"));
    ck_assert_int_eq(tf_terrain_drainage_segments(t, 0, 0, NAN, 10, collect, &l, &err), -1);
    ck_assert_int_eq(err.code, TF_ERR_ARGUMENT);
    ck_assert_int_eq(tf_terrain_drainage_segments(t, 10, 0, 0, 10, collect, &l, &err), -1);
    ck_assert_int_eq(err.code, TF_ERR_ARGUMENT);
    ck_assert_int_eq(tf_terrain_drainage_segments(t, 0, 0, 10, 10, NULL, &l, &err), -1);
    ck_assert_int_eq(err.code, TF_ERR_ARGUMENT);
    ck_assert_int_eq(tf_terrain_drainage_segments(NULL, 0, 0, 10, 10, collect, &l, &err), -1);
    /* finest cells of 12 units: 2^11 cells a side is 2^22, one more row is over */
    ck_assert_int_eq(tf_terrain_drainage_segments(t, 0, 0, 12.0 * 2048 + 6, 12.0 * 2048 + 6,
                                                  collect, &l, &err),
                     -1);
    ck_assert_int_eq(err.code, TF_ERR_LIMIT);
    ck_assert_int_eq(tf_terrain_drainage_segments(t, 0x1p60, 0, 0x1p60 + 10, 10, collect, &l,
                                                  &err),
                     -1);
    ck_assert_int_eq(err.code, TF_ERR_LIMIT);
    ck_assert_uint_eq(l.n, 0);
    tf_terrain_free(plain);
    tf_terrain_free(t);
}
END_TEST

/* A 96 x 80 window equals the four windows of its quadrants, each taken
 * with its own lattice offset: tiles of any size join without a seam. */
START_TEST(chunks_join)
{
    tf_terrain *t = make_terrain(1, "auto");
    enum { W = 96, H = 80 };
    float *whole = malloc(W * H * sizeof *whole), *part = malloc(W * H * sizeof *part);
    double x0 = -777.5, y0 = 1234.25, step = 1.5;
    tf_terrain_sample_window(t, x0, y0, step, 0, 0, W, H, whole);
    const size_t cuts[][4] = {{0, 0, 37, 41}, {37, 0, W - 37, 41}, {0, 41, 37, H - 41},
                              {37, 41, W - 37, H - 41}};
    for (size_t c = 0; c < 4; c++) {
        size_t ci = cuts[c][0], cj = cuts[c][1], cw = cuts[c][2], ch = cuts[c][3];
        tf_terrain_sample_window(t, x0, y0, step, (int64_t)ci, (int64_t)cj, cw, ch, part);
        for (size_t j = 0; j < ch; j++)
            for (size_t i = 0; i < cw; i++)
                ck_assert_msg(same_float(part[j * cw + i], whole[(cj + j) * W + ci + i]),
                              "chunk %zu at (%zu, %zu)", c, i, j);
    }
    free(whole);
    free(part);
    tf_terrain_free(t);
}
END_TEST

typedef struct {
    const tf_terrain *t;
    double x0, y0;
    float *out;
} fresh_window_job;

enum { CHUNK = 34, CHUNK_STEP = 32 };

static void *fresh_window_run(void *arg)
{
    fresh_window_job *job = arg;
    tf_terrain_sample_window(job->t, job->x0, job->y0, 1.5, 0, 0, CHUNK, CHUNK, job->out);
    return NULL;
}

/* A game's chunks streamed on one thread (a row, back along it, then a
 * column, with its borders overlapping), each starting from the nodes the
 * ones before made or finding its tile inside a layout one of them laid
 * out ahead of the motion, are the bits of each chunk made on a new
 * thread. */
START_TEST(streamed_chunks_reuse_the_network_exactly)
{
    tf_terrain *t = make_terrain(1, PATHS[_i]);
    float *got = malloc(CHUNK * CHUNK * sizeof *got), *ref = malloc(CHUNK * CHUNK * sizeof *ref);
    int path[][2] = {{0, 0}, {1, 0}, {2, 0}, {3, 0}, {2, 0}, {1, 0}, {1, 1},
                     {1, 2}, {1, 3}, {0, 3}, {0, 0}, {-1, -1}};
    for (size_t c = 0; c < sizeof path / sizeof path[0]; c++) {
        double x0 = -2000.25 + 1.5 * CHUNK_STEP * path[c][0];
        double y0 = 911.5 + 1.5 * CHUNK_STEP * path[c][1];
        tf_terrain_sample_window(t, x0, y0, 1.5, 0, 0, CHUNK, CHUNK, got);
        fresh_window_job job = {t, x0, y0, ref};
        pthread_t th;
        ck_assert_int_eq(pthread_create(&th, NULL, fresh_window_run, &job), 0);
        pthread_join(th, NULL);
        for (size_t k = 0; k < CHUNK * CHUNK; k++)
            ck_assert_msg(same_float(got[k], ref[k]), "chunk %zu (%d, %d), sample %zu", c,
                          path[c][0], path[c][1], k);
    }
    free(got);
    free(ref);
    tf_terrain_free(t);
}
END_TEST

/* A batch of points in no order (tf_terrain_sample_points) is carved
 * square by square, each square's points on one network: every point gets
 * the bits of its single sample, whatever the batch holds (a window's
 * lattice points shuffled, points off it, squares of one point far apart,
 * repeated points, NaN and points past the range) and however long it is
 * (more than one block of points), with out in place of x; and single
 * samples after a batch, which find its networks kept, get them too. The
 * references: the window's doubles (equal to single samples: above) and,
 * for the other points, samples made from nothing on a new thread. */
START_TEST(batches_of_points_equal_cold_samples)
{
    tf_terrain *t = make_terrain(1, PATHS[_i]);
    enum { WX = 150, WY = 120, GRID = WX * WY, OFF = 300, FAR = 40, N = GRID + OFF + FAR };
    const double x0 = -1500.0, y0 = 800.0, step = 7.3;
    double *px = malloc(N * sizeof *px), *py = malloc(N * sizeof *py);
    double *ref = malloc(N * sizeof *ref), *got = malloc(N * sizeof *got);
    double *window = malloc(GRID * sizeof *window);
    size_t *order = malloc(GRID * sizeof *order);
    tf_error err;
    ck_assert_int_eq(tf_terrain_sample_stage_window(t, TF_STAGE_HEIGHT, 0, x0, y0, step, 0, 0, WX,
                                                    WY, window, &err),
                     0);
    uint32_t h = 987654321u;
    for (size_t k = 0; k < GRID; k++)
        order[k] = k;
    for (size_t k = GRID - 1; k > 0; k--) { /* shuffled */
        h = h * 1664525u + 1013904223u;
        size_t r = (size_t)(h >> 8) % (k + 1), o = order[k];
        order[k] = order[r];
        order[r] = o;
    }
    for (size_t k = 0; k < GRID; k++) {
        px[k] = x0 + (double)(order[k] % WX) * step;
        py[k] = y0 + (double)(order[k] / WX) * step;
        ref[k] = window[order[k]];
    }
    for (size_t k = GRID; k < N; k++) {
        h = h * 1664525u + 1013904223u;
        double u = (double)(h >> 8) / 16777216.0;
        h = h * 1664525u + 1013904223u;
        double v = (double)(h >> 8) / 16777216.0;
        int far = k >= GRID + OFF;
        px[k] = far ? (u - 0.5) * 2e6 : x0 + (double)WX * step * u;
        py[k] = far ? (v - 0.5) * 2e6 : y0 + (double)WY * step * v;
    }
    px[GRID + 1] = px[N - 1];
    py[GRID + 1] = py[N - 1]; /* a far point again, among the crowd */
    px[GRID + 2] = px[GRID + 3];
    py[GRID + 2] = py[GRID + 3]; /* one point twice */
    px[GRID + 4] = NAN;
    px[GRID + 5] = 12.0 * 0x1p51;
    py[GRID + 6] = INFINITY;
    fresh_samples(t, TF_STAGE_HEIGHT, px + GRID, py + GRID, ref + GRID, OFF + FAR);
    tf_terrain_sample_points(t, px, py, N, got);
    for (size_t k = 0; k < N; k++)
        ck_assert_msg(same_double(got[k], ref[k]),
                      "%s, point %zu at (%.17g, %.17g): %.17g != %.17g", PATHS[_i], k, px[k], py[k],
                      got[k], ref[k]);
    ck_assert(isnan(got[GRID + 4]) && isnan(got[GRID + 5]) && isnan(got[GRID + 6]));
    ck_assert(isfinite(got[0]) && isfinite(got[GRID + 7]) && isfinite(got[N - 1]));
    /* single samples after the batch, in another order */
    for (size_t k = N - 1; k >= N - 3000; k -= 3)
        ck_assert_msg(same_double(tf_terrain_sample(t, px[k], py[k]), ref[k]),
                      "%s, single sample %zu after the batch", PATHS[_i], k);
    /* out in place of x, a short batch */
    memcpy(got, px + GRID, (OFF + FAR) * sizeof *got);
    tf_terrain_sample_points(t, got, py + GRID, OFF + FAR, got);
    for (size_t k = 0; k < OFF + FAR; k++)
        ck_assert_msg(same_double(got[k], ref[GRID + k]), "%s, point %zu with out = x", PATHS[_i],
                      GRID + k);
    free(px);
    free(py);
    free(ref);
    free(got);
    free(window);
    free(order);
    tf_terrain_free(t);
}
END_TEST

typedef struct {
    const tf_terrain *t;
    size_t first, count;
    double *out;
} thread_job;

static void *sample_points(void *arg)
{
    thread_job *job = arg;
    for (size_t k = 0; k < job->count; k++) {
        double p = (double)(job->first + k);
        job->out[k] = tf_terrain_sample(job->t, p * 37.31 - 5000.0, p * -11.07 + 300.0);
    }
    return NULL;
}

/* Four threads sampling at once (each rebuilding networks in its own
 * scratch) get the bits one thread gets. */
START_TEST(threads_agree)
{
    tf_terrain *t = make_terrain(1, "auto");
    enum { N = 400, THREADS = 4 };
    double *one = malloc(N * sizeof *one), *many = malloc(N * sizeof *many);
    thread_job all = {t, 0, N, one};
    sample_points(&all);
    pthread_t th[THREADS];
    thread_job jobs[THREADS];
    for (int k = 0; k < THREADS; k++) {
        jobs[k] = (thread_job){t, (size_t)k * N / THREADS, N / THREADS, many + k * N / THREADS};
        ck_assert_int_eq(pthread_create(&th[k], NULL, sample_points, &jobs[k]), 0);
    }
    for (int k = 0; k < THREADS; k++)
        pthread_join(th[k], NULL);
    for (size_t k = 0; k < N; k++)
        ck_assert_msg(same_double(one[k], many[k]), "point %zu", k);
    free(one);
    free(many);
    tf_terrain_free(t);
}
END_TEST

/* The drained stage: its window equals its samples, the height is the
 * output curve of it, the sum before it is the sum without the stage, and
 * tf_terrain_combine refuses what needs the points. */
START_TEST(drained_stage)
{
    tf_terrain *t = make_terrain(1, "auto"), *plain = make_terrain(0, "auto");
    const tf_spec *spec = tf_terrain_spec(t);
    tf_error err;
    enum { N = 31 };
    double win[N], sum[N];
    ck_assert_int_eq(
        tf_terrain_sample_stage_window(t, TF_STAGE_DRAINED, 0, 10.0, -20.0, 2.0, 0, 0, N, 1,
                                       win, &err),
        0);
    ck_assert_int_eq(tf_terrain_sample_stage_window(t, TF_STAGE_SUM, 0, 10.0, -20.0, 2.0, 0, 0, N,
                                                    1, sum, &err),
                     0);
    int carved = 0;
    for (size_t k = 0; k < N; k++) {
        double x = 10.0 + (double)k * 2.0;
        ck_assert(same_double(win[k], tf_terrain_sample_stage(t, TF_STAGE_DRAINED, 0, x, -20.0)));
        ck_assert(same_double(sum[k], tf_terrain_sample_stage(plain, TF_STAGE_SUM, 0, x, -20.0)));
        ck_assert(same_double(sum[k], tf_terrain_sample_stage(plain, TF_STAGE_DRAINED, 0, x, -20.0)));
        double h = tf_terrain_sample(t, x, -20.0);
        ck_assert_double_eq(h, tf_terrain_sample_stage(t, TF_STAGE_HEIGHT, 0, x, -20.0));
        (void)spec;
        carved += win[k] != sum[k];
    }
    ck_assert_msg(carved > 0, "the stage changed nothing along the row");
    const double *r[3] = {sum, sum, sum};
    ck_assert_int_eq(tf_terrain_combine(t, TF_STAGE_HEIGHT, 0, r, N, win, &err), -1);
    ck_assert_int_eq(err.code, TF_ERR_ARGUMENT);
    ck_assert_int_eq(tf_terrain_combine(t, TF_STAGE_DRAINED, 0, r, N, win, &err), -1);
    ck_assert_int_eq(tf_terrain_combine(t, TF_STAGE_SUM, 0, r, N, win, &err), 0);
    tf_terrain_free(t);
    tf_terrain_free(plain);
}
END_TEST

/* docs/spec.md, "Gradients": central differences across the finest
 * spacing / 256. */
START_TEST(gradient_is_central_difference)
{
    tf_terrain *t = make_terrain(1, "auto");
    double e = 12.0 / 256.0;
    for (int k = 0; k < 50; k++) {
        double x = -400.0 + k * 17.3, y = 250.0 - k * 9.1, gx, gy;
        double h = tf_terrain_sample_gradient(t, x, y, &gx, &gy);
        ck_assert(same_double(h, tf_terrain_sample(t, x, y)));
        ck_assert(same_double(gx, (tf_terrain_sample(t, x + e, y) - tf_terrain_sample(t, x - e, y)) /
                                      (2.0 * e)));
        ck_assert(same_double(gy, (tf_terrain_sample(t, x, y + e) - tf_terrain_sample(t, x, y - e)) /
                                      (2.0 * e)));
    }
    tf_terrain_free(t);
}
END_TEST

/* Non-finite points, and points past 2^50 finest cells, give NaN; a
 * window mixing them with ordinary points still matches its samples. */
START_TEST(nonfinite_and_far)
{
    tf_terrain *t = make_terrain(1, "auto");
    ck_assert(isnan(tf_terrain_sample(t, NAN, 0.0)));
    ck_assert(isnan(tf_terrain_sample(t, 0.0, INFINITY)));
    ck_assert(isnan(tf_terrain_sample(t, 12.0 * 0x1p50, 0.0)));
    ck_assert(isfinite(tf_terrain_sample(t, 12.0 * 0x1p40, -12.0 * 0x1p40)));
    float row[4];
    double x0 = 12.0 * 0x1p50 - 24.0;
    tf_terrain_sample_window(t, x0, 0.0, 12.0, 0, 0, 4, 1, row);
    for (int k = 0; k < 4; k++)
        ck_assert(same_float(row[k], (float)tf_terrain_sample(t, x0 + (double)k * 12.0, 0.0)));
    ck_assert(isnan(row[2]));
    /* a wider window across the edge: groups of four carved together
     * before it, one by one where a lane passes it */
    float wide[2 * 19];
    double x1 = 12.0 * 0x1p50 - 12.0 * 10.5;
    tf_terrain_sample_window(t, x1, 0.0, 12.0, 0, 0, 19, 2, wide);
    for (int j = 0; j < 2; j++)
        for (int k = 0; k < 19; k++)
            ck_assert_msg(same_float(wide[19 * j + k],
                                     (float)tf_terrain_sample(t, x1 + (double)k * 12.0,
                                                              (double)j * 12.0)),
                          "(%d, %d)", k, j);
    ck_assert(isfinite(wide[0]) && isnan(wide[18]));
    tf_terrain_free(t);
}
END_TEST

/* Share of cells in closed depressions of a 256 x 256 render, by the
 * metrics of docs/metrics.md. */
static double depression_share(const tf_terrain *t, double x0, double y0)
{
    enum { S = 256 };
    tf_error err;
    tf_layer_map *a = tf_layer_map_new(S, S, &err), *b = tf_layer_map_new(S, S, &err);
    ck_assert(a && b);
    tf_terrain_sample_window(t, x0, y0, 1.0, 0, 0, S, S, a->value);
    float lo = INFINITY, hi = -INFINITY;
    for (size_t k = 0; k < S * S; k++) {
        lo = a->value[k] < lo ? a->value[k] : lo;
        hi = a->value[k] > hi ? a->value[k] : hi;
    }
    for (size_t k = 0; k < S * S; k++) {
        a->value[k] = (a->value[k] - lo) / (hi - lo);
        b->value[k] = a->value[k];
        a->weight[k] = b->weight[k] = 1.0f;
    }
    tf_metrics_report rep;
    ck_assert_int_eq(tf_metrics_compute(a, b, NULL, &rep, &err), 0);
    tf_layer_map_free(a);
    tf_layer_map_free(b);
    return rep.a.depression_share;
}

START_TEST(carved_terrain_drains)
{
    tf_terrain *t = make_terrain(1, "auto"), *plain = make_terrain(0, "auto");
    double with = 0.0, without = 0.0;
    const double origins[][2] = {{0.0, 0.0}, {5000.0, -3000.0}, {-20000.0, 7000.0}};
    for (int k = 0; k < 3; k++) {
        with += depression_share(t, origins[k][0], origins[k][1]) / 3.0;
        without += depression_share(plain, origins[k][0], origins[k][1]) / 3.0;
    }
    ck_assert_msg(with < 0.5 * without && with < 0.1,
                  "depression share %.3f with the stage, %.3f without", with, without);
    tf_terrain_free(t);
    tf_terrain_free(plain);
}
END_TEST

/* The largest difference between neighbours along eight rows of the
 * carved sum (TF_STAGE_DRAINED), 480 world units (ten level-0 cells)
 * long, sampled `step` apart. */
static double largest_step(const tf_terrain *t, double step)
{
    size_t n = (size_t)(480.0 / step) + 1;
    double *row = malloc(n * sizeof *row), largest = 0.0;
    ck_assert_ptr_nonnull(row);
    for (int r = 0; r < 8; r++) {
        tf_error err;
        ck_assert_int_eq(tf_terrain_sample_stage_window(t, TF_STAGE_DRAINED, 0, -100.0,
                                                        -250.0 + 61.25 * r, step, 0, 0, n, 1,
                                                        row, &err),
                         0);
        for (size_t k = 1; k < n; k++)
            largest = fmax(largest, fabs(row[k] - row[k - 1]));
    }
    free(row);
    return largest;
}

/* docs/spec.md, "The carved sum": with fadeBy "cut" the carved sum is
 * continuous, so the largest neighbour difference shrinks with the step
 * (by about the steps' ratio, 16); with "bed" it steps where the lowest
 * cone passes to a valley with another bed, and the largest difference
 * stays the step's height however fine the samples (which also shows the
 * rows cross such places). */
START_TEST(cut_fade_is_continuous)
{
    const char *const by[] = {"cut", "bed"};
    for (int k = 0; k < 2; k++) {
        char json[2048];
        snprintf(json, sizeof json,
                 "%s, \"drainage\": {\"levels\": 3, \"spacing\": 48, \"depth\": 0.3, "
                 "\"slope\": 0.03, \"fade\": 1, \"fadeBy\": \"%s\"}}",
                 LAYERS, by[k]);
        tf_error err;
        tf_terrain *t = tf_terrain_parse(json, strlen(json), &err);
        ck_assert_msg(t != NULL, "%s", err.message);
        double coarse = largest_step(t, 1.0 / 16.0), fine = largest_step(t, 1.0 / 256.0);
        if (k == 0)
            ck_assert_msg(fine < coarse / 4.0, "cut: largest step %g at 1/16, %g at 1/256",
                          coarse, fine);
        else
            ck_assert_msg(fine > coarse / 2.0, "bed: largest step %g at 1/16, %g at 1/256",
                          coarse, fine);
        tf_terrain_free(t);
    }
}
END_TEST

static Suite *drainage_suite(void)
{
    Suite *s = suite_create("drainage");
    TCase *tc = tcase_create("core");
    tcase_set_timeout(tc, 120);
    tcase_add_loop_test(tc, window_equals_samples, 0, PATH_COUNT * WINDOW_COUNT);
    tcase_add_loop_test(tc, drained_windows_equal_samples_in_doubles, 0,
                        (int)(PATH_COUNT * WINDOW_COUNT *
                              (sizeof DRAINAGE_SPECS / sizeof DRAINAGE_SPECS[0])));
    tcase_add_loop_test(tc, single_samples_reuse_the_network_exactly, 0, 2);
    tcase_add_test(tc, window_rows);
    tcase_add_loop_test(tc, exported_segments_carve_the_stage, 0, 9);
    tcase_add_loop_test(tc, fresh_single_samples_carve_the_exported_network, 0, 9);
    tcase_add_test(tc, exported_segments_refuse_bad_boxes);
    tcase_add_test(tc, chunks_join);
    tcase_add_loop_test(tc, streamed_chunks_reuse_the_network_exactly, 0, PATH_COUNT);
    tcase_add_loop_test(tc, batches_of_points_equal_cold_samples, 0, PATH_COUNT);
    tcase_add_test(tc, threads_agree);
    tcase_add_test(tc, drained_stage);
    tcase_add_test(tc, gradient_is_central_difference);
    tcase_add_test(tc, nonfinite_and_far);
    tcase_add_test(tc, carved_terrain_drains);
    tcase_add_test(tc, cut_fade_is_continuous);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    return tu_run_suite(drainage_suite());
}
