/*
 * Erosion of rendered heightmaps: thermal, inverse thermal (Olsen 2004) and
 * hydraulic erosion as surveyed by Archer (section 3), on a grid of doubles,
 * with every iteration computed from the previous state (Jacobi order).
 */
#include <float.h>
#include <stdbool.h>
#include <stddef.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "base/error.h"
#include "terrafit/terrafit.h"

/* The Moore neighbourhood (the survey's best-looking choice, 3.1), in a
 * fixed order so sums are formed the same way on every run. */
#define NEIGHBOURS 8
static const int NB_DX[NEIGHBOURS] = {-1, 0, 1, -1, 1, -1, 0, 1};
static const int NB_DY[NEIGHBOURS] = {-1, -1, -1, 0, 0, 1, 1, 1};
#define SQRT2 1.4142135623730951
static const double NB_DIST[NEIGHBOURS] = {SQRT2, 1.0, SQRT2, 1.0, 1.0, SQRT2, 1.0, SQRT2};

/* Share of its excess a cell sheds per iteration. Olsen moves half of it,
 * one cell after another; here all cells move at once, and a pit with
 * eight higher neighbours receives from all of them in the same iteration:
 * 1/9 brings such a pit level with its neighbours instead of overshooting
 * into a spike (8/9 of the excess in, 1/9 out of each neighbour). */
#define SHED_RATE (1.0 / 9.0)

/* Olsen's hydraulic defaults (2004, section 4.2). */
#define DEFAULT_RAIN 0.01
#define DEFAULT_SOLUBILITY 0.01
#define DEFAULT_EVAPORATION 0.5
#define DEFAULT_CAPACITY 0.01
/* Olsen's talus, T = 4 / N on an N x N grid: a slope of a full height
 * range over a quarter of the map. */
#define DEFAULT_TALUS_CELLS 4.0

struct tf_erosion {
    tf_erosion_params params;
    size_t nx, ny;
    double *terrain;
    double *delta;    /* change of terrain in one iteration */
    double *water;    /* hydraulic only */
    double *sediment; /* hydraulic only */
    double *water_delta;
    double *sediment_delta;
};

static const char *const METHOD_NAMES[TF_EROSION_METHOD_COUNT] = {"thermal", "inverse-thermal",
                                                                  "hydraulic"};

const char *tf_erosion_method_name(tf_erosion_method method)
{
    if ((unsigned)method >= TF_EROSION_METHOD_COUNT)
        return NULL;
    return METHOD_NAMES[method];
}

int tf_erosion_method_from_name(const char *name, tf_erosion_method *method)
{
    if (!name)
        return -1;
    for (unsigned k = 0; k < TF_EROSION_METHOD_COUNT; k++)
        if (strcmp(name, METHOD_NAMES[k]) == 0) {
            *method = (tf_erosion_method)k;
            return 0;
        }
    return -1;
}

void tf_erosion_params_default(tf_erosion_params *params, tf_erosion_method method, size_t nx,
                               size_t ny)
{
    size_t side = nx > ny ? nx : ny;
    memset(params, 0, sizeof *params);
    params->method = method;
    params->iterations = 0;
    params->talus = DEFAULT_TALUS_CELLS / (double)(side > 0 ? side : 1);
    params->rain = DEFAULT_RAIN;
    params->solubility = DEFAULT_SOLUBILITY;
    params->evaporation = DEFAULT_EVAPORATION;
    params->capacity = DEFAULT_CAPACITY;
}

/* A finite value >= 0 (and <= `max` when max is not NAN). */
static int check_field(const char *name, double value, double max, tf_error *err)
{
    if (!isfinite(value) || value < 0.0 || (!isnan(max) && value > max)) {
        if (isnan(max))
            tf_error_set(err, TF_ERR_ARGUMENT, "erosion %s %g: expected a finite number >= 0",
                         name, value);
        else
            tf_error_set(err, TF_ERR_ARGUMENT, "erosion %s %g: expected a number from 0 to %g",
                         name, value, max);
        return -1;
    }
    return 0;
}

int tf_erosion_params_check(const tf_erosion_params *params, tf_error *err)
{
    if (!params) {
        tf_error_set(err, TF_ERR_ARGUMENT, "erosion parameters missing (NULL)");
        return -1;
    }
    if (!tf_erosion_method_name(params->method)) {
        tf_error_set(err, TF_ERR_ARGUMENT, "unknown erosion method %d", (int)params->method);
        return -1;
    }
    if (params->iterations > TF_EROSION_MAX_ITERATIONS) {
        tf_error_set(err, TF_ERR_LIMIT, "erosion iterations %lu: at most %lu",
                     params->iterations, TF_EROSION_MAX_ITERATIONS);
        return -1;
    }
    if (check_field("talus", params->talus, NAN, err) != 0 ||
        check_field("rain", params->rain, NAN, err) != 0 ||
        check_field("solubility", params->solubility, NAN, err) != 0 ||
        check_field("evaporation", params->evaporation, 1.0, err) != 0 ||
        check_field("capacity", params->capacity, NAN, err) != 0)
        return -1;
    return 0;
}

void tf_erosion_free(tf_erosion *erosion)
{
    if (!erosion)
        return;
    free(erosion->terrain);
    free(erosion->delta);
    free(erosion->water);
    free(erosion->sediment);
    free(erosion->water_delta);
    free(erosion->sediment_delta);
    free(erosion);
}

tf_erosion *tf_erosion_new(const float *heights, size_t nx, size_t ny,
                           const tf_erosion_params *params, tf_error *err)
{
    if (!heights || nx == 0 || ny == 0) {
        tf_error_set(err, TF_ERR_ARGUMENT, "erosion: no heights (%zux%zu grid)", nx, ny);
        return NULL;
    }
    if (nx > TF_MAX_IMAGE_SIDE || ny > TF_MAX_IMAGE_SIDE || nx * ny > TF_MAX_IMAGE_PIXELS) {
        tf_error_set(err, TF_ERR_LIMIT, "erosion: %zux%zu grid is larger than %u per side or "
                     "%zu cells", nx, ny, TF_MAX_IMAGE_SIDE, TF_MAX_IMAGE_PIXELS);
        return NULL;
    }
    if (tf_erosion_params_check(params, err) != 0)
        return NULL;
    size_t n = nx * ny;
    if (n > SIZE_MAX / sizeof(double)) {
        tf_error_set(err, TF_ERR_LIMIT, "erosion: %zux%zu grid does not fit in memory", nx, ny);
        return NULL;
    }
    for (size_t k = 0; k < n; k++)
        if (!isfinite(heights[k])) {
            tf_error_set(err, TF_ERR_ARGUMENT, "erosion: height at column %zu, row %zu is not "
                         "a finite number", k % nx, k / nx);
            return NULL;
        }
    tf_erosion *e = calloc(1, sizeof *e);
    if (!e) {
        tf_error_set(err, TF_ERR_NOMEM, "out of memory for the erosion state");
        return NULL;
    }
    e->params = *params;
    e->nx = nx;
    e->ny = ny;
    e->terrain = malloc(n * sizeof(double));
    e->delta = calloc(n, sizeof(double));
    bool ok = e->terrain && e->delta;
    if (ok && params->method == TF_EROSION_HYDRAULIC) {
        e->water = calloc(n, sizeof(double));
        e->sediment = calloc(n, sizeof(double));
        e->water_delta = calloc(n, sizeof(double));
        e->sediment_delta = calloc(n, sizeof(double));
        ok = e->water && e->sediment && e->water_delta && e->sediment_delta;
    }
    if (!ok) {
        tf_error_set(err, TF_ERR_NOMEM, "out of memory for erosion of a %zux%zu grid "
                     "(%.1f MiB)", nx, ny,
                     (double)n * sizeof(double) *
                         (params->method == TF_EROSION_HYDRAULIC ? 6.0 : 2.0) /
                         (1024.0 * 1024.0));
        tf_erosion_free(e);
        return NULL;
    }
    for (size_t k = 0; k < n; k++)
        e->terrain[k] = heights[k];
    return e;
}

/* Whether neighbour `k` of (i, j) lies on the grid. */
static inline bool on_grid(const tf_erosion *e, size_t i, size_t j, int k)
{
    return !((NB_DX[k] < 0 && i == 0) || (NB_DX[k] > 0 && i + 1 == e->nx) ||
             (NB_DY[k] < 0 && j == 0) || (NB_DY[k] > 0 && j + 1 == e->ny));
}

static inline size_t neighbour(const tf_erosion *e, size_t p, int k)
{
    return (size_t)((ptrdiff_t)p + NB_DY[k] * (ptrdiff_t)e->nx + NB_DX[k]);
}

/* Adds `delta` into `values` and clears it. */
static void apply_delta(double *values, double *delta, size_t n)
{
    for (size_t k = 0; k < n; k++) {
        values[k] += delta[k];
        delta[k] = 0.0;
    }
}

/* Thermal erosion (survey 3.1; Olsen 2004 eq. for thermal weathering):
 * a cell whose drop d_k to neighbour k exceeds the talus T * dist_k sheds
 * SHED_RATE * (largest excess), split over the neighbours in proportion to
 * their excess d_k - T * dist_k. */
static void thermal_iteration(tf_erosion *e)
{
    const double *h = e->terrain;
    double *delta = e->delta;
    double talus = e->params.talus;
    for (size_t j = 0, p = 0; j < e->ny; j++)
        for (size_t i = 0; i < e->nx; i++, p++) {
            double excess[NEIGHBOURS];
            double largest = 0.0, total = 0.0;
            for (int k = 0; k < NEIGHBOURS; k++) {
                excess[k] = 0.0;
                if (!on_grid(e, i, j, k))
                    continue;
                double x = h[p] - h[neighbour(e, p, k)] - talus * NB_DIST[k];
                if (x > 0.0) {
                    excess[k] = x;
                    total += x;
                    if (x > largest)
                        largest = x;
                }
            }
            if (!(largest > 0.0))
                continue;
            double shed = SHED_RATE * largest;
            for (int k = 0; k < NEIGHBOURS; k++)
                if (excess[k] > 0.0) {
                    double moved = shed * (excess[k] / total);
                    delta[neighbour(e, p, k)] += moved;
                    delta[p] -= moved;
                }
        }
    apply_delta(e->terrain, e->delta, e->nx * e->ny);
}

/* Inverse thermal erosion (survey 3.3; Olsen 2004, section 4.3): the
 * condition flipped — a cell moves material only to its steepest-descent
 * neighbour, and only when that slope is at most T, so gentle slopes level
 * out into plateaus while cliffs (steeper than T) stay. It moves
 * SHED_RATE of the drop (Olsen: half, sequentially). */
static void inverse_thermal_iteration(tf_erosion *e)
{
    const double *h = e->terrain;
    double *delta = e->delta;
    double talus = e->params.talus;
    for (size_t j = 0, p = 0; j < e->ny; j++)
        for (size_t i = 0; i < e->nx; i++, p++) {
            int steepest = -1;
            double steepest_slope = 0.0, steepest_drop = 0.0;
            for (int k = 0; k < NEIGHBOURS; k++) {
                if (!on_grid(e, i, j, k))
                    continue;
                double drop = h[p] - h[neighbour(e, p, k)];
                double slope = drop / NB_DIST[k];
                if (slope > steepest_slope) {
                    steepest = k;
                    steepest_slope = slope;
                    steepest_drop = drop;
                }
            }
            if (steepest < 0 || steepest_slope > talus)
                continue;
            double moved = SHED_RATE * steepest_drop;
            delta[neighbour(e, p, steepest)] += moved;
            delta[p] -= moved;
        }
    apply_delta(e->terrain, e->delta, e->nx * e->ny);
}

/* Hydraulic erosion (survey 3.2; Olsen 2004, section 4.2, after Musgrave):
 * 1. rain on every cell; 2. the water dissolves solubility * water of soil
 * into sediment; 3. water (with its sediment, in proportion) flows to lower
 * neighbours by water-surface altitude a = h + w, as much as levels the
 * cell with the mean of itself and those neighbours, split in proportion
 * to the drops; 4. evaporation, and sediment above capacity * water is
 * deposited. */
static void hydraulic_iteration(tf_erosion *e)
{
    size_t n = e->nx * e->ny;
    double *h = e->terrain, *w = e->water, *s = e->sediment;
    const tf_erosion_params *prm = &e->params;

    for (size_t k = 0; k < n; k++) {
        w[k] += prm->rain;
        double dissolved = prm->solubility * w[k];
        h[k] -= dissolved;
        s[k] += dissolved;
    }

    double *dw = e->water_delta, *ds = e->sediment_delta;
    for (size_t j = 0, p = 0; j < e->ny; j++)
        for (size_t i = 0; i < e->nx; i++, p++) {
            if (!(w[p] > 0.0))
                continue;
            double a = h[p] + w[p];
            double drop[NEIGHBOURS];
            double total = 0.0, altitude_sum = a;
            int lower = 0;
            for (int k = 0; k < NEIGHBOURS; k++) {
                drop[k] = 0.0;
                if (!on_grid(e, i, j, k))
                    continue;
                size_t q = neighbour(e, p, k);
                double d = a - (h[q] + w[q]);
                if (d > 0.0) {
                    drop[k] = d;
                    total += d;
                    altitude_sum += h[q] + w[q];
                    lower++;
                }
            }
            if (lower == 0)
                continue;
            double level = a - altitude_sum / (double)(lower + 1);
            double flow = w[p] < level ? w[p] : level;
            if (!(flow > 0.0))
                continue;
            /* flow <= w, so carried <= s: taken out whole, neither water
             * nor sediment can go below zero by rounding. */
            double carried = s[p] * (flow / w[p]);
            dw[p] -= flow;
            ds[p] -= carried;
            for (int k = 0; k < NEIGHBOURS; k++)
                if (drop[k] > 0.0) {
                    size_t q = neighbour(e, p, k);
                    double share = drop[k] / total;
                    dw[q] += flow * share;
                    ds[q] += carried * share;
                }
        }
    apply_delta(w, dw, n);
    apply_delta(s, ds, n);

    for (size_t k = 0; k < n; k++) {
        /* Never negative, even should rounding leave -1e-18. */
        if (w[k] < 0.0)
            w[k] = 0.0;
        if (s[k] < 0.0)
            s[k] = 0.0;
        w[k] *= 1.0 - prm->evaporation;
        double holdable = prm->capacity * w[k];
        if (s[k] > holdable) {
            h[k] += s[k] - holdable;
            s[k] = holdable;
        }
    }
}

void tf_erosion_run(tf_erosion *erosion, unsigned long iterations, tf_progress_fn progress,
                    void *user)
{
    if (!erosion)
        return;
    for (unsigned long it = 0; it < iterations; it++) {
        switch (erosion->params.method) {
        case TF_EROSION_THERMAL:
            thermal_iteration(erosion);
            break;
        case TF_EROSION_INVERSE_THERMAL:
            inverse_thermal_iteration(erosion);
            break;
        case TF_EROSION_HYDRAULIC:
        default:
            hydraulic_iteration(erosion);
            break;
        }
        if (progress)
            progress(user, (size_t)it + 1, (size_t)iterations);
    }
    if (progress && iterations == 0)
        progress(user, 0, 0);
}

const double *tf_erosion_terrain(const tf_erosion *erosion)
{
    return erosion ? erosion->terrain : NULL;
}

const double *tf_erosion_water(const tf_erosion *erosion)
{
    return erosion ? erosion->water : NULL;
}

const double *tf_erosion_sediment(const tf_erosion *erosion)
{
    return erosion ? erosion->sediment : NULL;
}

void tf_erosion_result(const tf_erosion *erosion, float *heights)
{
    if (!erosion || !heights)
        return;
    size_t n = erosion->nx * erosion->ny;
    for (size_t k = 0; k < n; k++) {
        double v = erosion->terrain[k];
        if (erosion->sediment)
            v += erosion->sediment[k];
        heights[k] = (float)v;
    }
}

int tf_erode(float *heights, size_t nx, size_t ny, const tf_erosion_params *params,
             tf_progress_fn progress, void *user, tf_error *err)
{
    tf_erosion *e = tf_erosion_new(heights, nx, ny, params, err);
    if (!e)
        return -1;
    /* Zero iterations is the identity, bit for bit (no float round trip
     * through the sum with a zero sediment). */
    if (params->iterations > 0) {
        tf_erosion_run(e, params->iterations, progress, user);
        tf_erosion_result(e, heights);
    } else if (progress) {
        progress(user, 0, 0);
    }
    tf_erosion_free(e);
    return 0;
}

void tf_erosion_measure(const float *heights, size_t nx, size_t ny, double flat_slope,
                        tf_erosion_measures *out)
{
    if (!out)
        return;
    memset(out, 0, sizeof *out);
    if (!heights)
        return;
    double sum = 0.0, max_slope = 0.0;
    size_t flat = 0;
    for (size_t j = 0, p = 0; j < ny; j++)
        for (size_t i = 0; i < nx; i++, p++) {
            sum += heights[p];
            double steepest = 0.0;
            for (int k = 0; k < NEIGHBOURS; k++) {
                if ((NB_DX[k] < 0 && i == 0) || (NB_DX[k] > 0 && i + 1 == nx) ||
                    (NB_DY[k] < 0 && j == 0) || (NB_DY[k] > 0 && j + 1 == ny))
                    continue;
                size_t q = (size_t)((ptrdiff_t)p + NB_DY[k] * (ptrdiff_t)nx + NB_DX[k]);
                double slope = fabs((double)heights[p] - (double)heights[q]) / NB_DIST[k];
                if (slope > steepest)
                    steepest = slope;
            }
            if (steepest > max_slope)
                max_slope = steepest;
            if (steepest <= flat_slope)
                flat++;
        }
    out->sum = sum;
    out->max_slope = max_slope;
    out->flat_share = nx * ny > 0 ? (double)flat / (double)(nx * ny) : 0.0;
}
