/*
 * The drainage stage's compiled constants and its two entry points, one
 * point and one window (drainage.c; docs/spec.md, "Drainage"). Private to
 * the runtime.
 */
#ifndef TF_RUNTIME_DRAINAGE_H
#define TF_RUNTIME_DRAINAGE_H

#include <stddef.h>
#include <stdint.h>

#include "terrafit/runtime.h"

typedef struct {
    int levels; /* 0: none */
    uint32_t seed;
    double slope, jitter, bend, depth0;
    double inv_fade; /* 1 / (fade * depth) */
    int fade_cut;    /* fadeBy "cut": the fade measures low - carved, not carved - bed */
    int start_at_low; /* fade_cut with a finite 1 / (fade * depth): see cone_start */
    double inv_slope; /* 1 / slope (+inf at 0): only to bound cones below */
    int breach;
    int breach_nearest; /* breachTo "nearest": the first ring holding a lower node ends the search */
    int breach_pass;    /* breachTo "pass": over the lowest neighbour, then the nearest lower node */
    int inflow;         /* M: a level-0 node takes the first links of at most M neighbours (0: any) */
    double L[TF_MAX_DRAINAGE_LEVELS], D[TF_MAX_DRAINAGE_LEVELS];
    double inv_L[TF_MAX_DRAINAGE_LEVELS]; /* 1 / L: only to find bins */
    double R[TF_MAX_DRAINAGE_LEVELS], R2[TF_MAX_DRAINAGE_LEVELS];
    double inv_R2[TF_MAX_DRAINAGE_LEVELS]; /* 1 / R2: only to bound cones below */
    double w[TF_MAX_DRAINAGE_LEVELS], w2[TF_MAX_DRAINAGE_LEVELS];
    double margin[TF_MAX_DRAINAGE_LEVELS]; /* how far a node's valley reaches */
    uint64_t control[TF_MAX_DRAINAGE_LEVELS]; /* layers of C_k: wavelength >= L_k */
    uint64_t low;                             /* layers carved: wavelength >= detailWavelength */
    /* Unique among the stages compiled in this process (0 when C11
     * atomics are missing): a thread's scratch keeps the network it built
     * for one stage's single samples only while it names that stage. */
    uint64_t id;
} tf_drainage;

/* Scratch for rebuilding the network around a point or a tile: grows as
 * needed, reused across calls, owned by one thread at a time. */
typedef struct tf_drainage_work tf_drainage_work;
tf_drainage_work *tf_drainage_work_new(void);
void tf_drainage_work_free(tf_drainage_work *w);
/* `count` doubles of scratch for a window's rows of sums, kept with the
 * rest (a thread's windows touch the same pages again instead of new
 * ones); NULL when it cannot grow. Its contents do not survive a call
 * that grows it. */
double *tf_drainage_work_rows(tf_drainage_work *w, size_t count);

void tf_drainage_compile(tf_drainage *dr, const tf_spec *spec);

/* Step 5b at (x, y) from the layers' sum and the carved layers' sum there;
 * NaN when the scratch cannot grow. */
double tf_drainage_apply(const tf_terrain *t, const tf_drainage *dr, tf_drainage_work *w,
                         double x, double y, double sum, double low);

/* Step 5b at n points in any order, from their sums and carved sums:
 * out[k] is tf_drainage_apply's at (x[k], y[k]), bit for bit, NaN where
 * the scratch cannot grow for a network, as there (out may be x or y).
 * -1, with nothing written, when there is no scratch to order the
 * points in. */
int tf_drainage_points(const tf_terrain *t, const tf_drainage *dr, tf_drainage_work *w,
                       const double *x, const double *y, size_t n, const double *sum,
                       const double *low, double *out);

/* The rows (and columns) of the tiles over which a window at this step
 * builds the network once: about 64 finest cells, 1 to TF_DRAINAGE_TILE_MAX. */
#define TF_DRAINAGE_TILE_MAX 512
size_t tf_drainage_tile(const tf_drainage *dr, double step);

/* Step 5b over a window of the lattice (tf_terrain_sample_window's): sum,
 * low and out are nx * ny row-major; the bits of tf_drainage_apply at
 * every point. -1 when the scratch cannot grow (out then holds NaN where
 * not computed). */
int tf_drainage_window(const tf_terrain *t, const tf_drainage *dr, tf_drainage_work *w,
                       double x0, double y0, double step, int64_t i0, int64_t j0, size_t nx,
                       size_t ny, const double *sum, const double *low, double *out);

/* tf_terrain_drainage_segments' walk (runtime.h): the box laid out in w,
 * every link of every level made, and each sub-segment whose reach meets
 * the box visited in tie order until visit returns nonzero (that value in
 * *stopped, else 0). -1 when the scratch cannot grow, else 0. */
int tf_drainage_segments(const tf_terrain *t, const tf_drainage *dr, tf_drainage_work *w,
                         double x0, double y0, double x1, double y1,
                         int (*visit)(void *user, const tf_drainage_segment *s), void *user,
                         int *stopped);
/* The finest cells a box covers (saturating), and whether both corners lie
 * within the stage's range (2^50 finest cells). */
size_t tf_drainage_box_cells(const tf_drainage *dr, double x0, double y0, double x1, double y1);
int tf_drainage_box_in_range(const tf_drainage *dr, double x0, double y0, double x1, double y1);

/* The contributions (steps 1-4) of the layers in `layers` (bit i: layer
 * i), added in layer order to 0.0 (terrain.c). */
double tf_terrain_partial_sum(const tf_terrain *t, uint64_t layers, double x, double y);

#endif
