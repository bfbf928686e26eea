/*
 * Private to the fidelity metrics (metrics.c, metrics_relief.c): the grid
 * every per-map metric reads, and the per-map measurements that need more
 * than one pass over it. Definitions are in docs/metrics.md.
 */
#ifndef TF_METRICS_INTERNAL_H
#define TF_METRICS_INTERNAL_H

#include <stddef.h>
#include <stdint.h>

#include "terrafit/metrics.h"
#include "terrafit/stats.h"

/* One map restricted to the counted cells. Cells that do not count hold a
 * finite placeholder value and weight 0. */
typedef struct {
    size_t w, h;
    const float *v;             /* values, finite everywhere */
    const float *weight;        /* 1 where the cell counts, else 0 */
    const unsigned char *ok;    /* the same as bytes */
} metrics_grid;

/* compare's spectrum distance (docs/metrics.md): RMS of the difference of
 * log10 powers over the bins both spectra have, each normalized to unit
 * total power there; NaN when they share no bin. Also scores the --noise
 * auto trials of auto-layering (autolayer.c). */
double metrics_spectrum_log_rms(const tf_radial_spectrum *a, const tf_radial_spectrum *b);

/* Gradient magnitude by central differences, times height_scale, where the
 * cell and its four neighbours count; slope_weight marks those cells (1,
 * else 0 with slope 0). Also the --noise auto trials' slopes. */
void metrics_slope_map(const metrics_grid *g, double height_scale, float *slope,
                       float *slope_weight);

/* Box-counting dimension of the median contour; NaN when undefined. */
int metrics_box_dimension(const metrics_grid *g, double *out, tf_error *err);

/* Strict 8-neighbour extrema: maxima per 1000 eligible cells, and minima
 * per maximum. */
void metrics_extrema(const metrics_grid *g, double *peak_density, double *pit_peak_ratio);

/* Share of counted cells that a priority-flood fill raises (the flood
 * alone, for the --noise auto trials). */
int metrics_depression_share(const metrics_grid *g, double *out, tf_error *err);

/* The per-map values of one priority flood and the drainage tree it
 * routes; NaN when no cell counts. */
typedef struct {
    double depression_share; /* as metrics_depression_share */
    double channel_share;    /* share of cells draining >= 64 cells */
    double flow_path_length; /* mean path to an outlet / sqrt(counted cells) */
} metrics_drainage_values;

int metrics_drainage(const metrics_grid *g, metrics_drainage_values *out, tf_error *err);

/* The drainage tree itself (also the fitter's drainage stage,
 * autolayer_drainage.c): the priority flood of metrics_drainage, each
 * counted cell's D8 receiver on the filled surface and its flow
 * accumulation (cells draining through it, itself included). Arrays of
 * w * h entries, meaningful at counted cells; `order` lists the counted
 * cells with every receiver before the cells that drain into it. */
#define METRICS_NO_CELL UINT32_MAX /* an outlet's receiver */
typedef struct {
    float *level;          /* filled level */
    uint32_t *receiver;    /* METRICS_NO_CELL for an outlet */
    uint32_t *accumulation;
    uint32_t *order;       /* `counted` entries */
    size_t counted, raised;
} metrics_flow;

int metrics_flow_route(const metrics_grid *g, metrics_flow *out, tf_error *err);
void metrics_flow_free(metrics_flow *f);

/* One reference compared with many maps of its size, as the fitter's
 * drainage decision scores its candidates: the reference is measured once,
 * and each map only by what the decision reads. metrics_scorer_compare
 * fills the report as tf_metrics_compute(reference, b) does, bit for bit,
 * except b's channel_share, flow_path_length, roughness_elevation and
 * slope_elevation, which are NaN (not measured). A map with a cell that
 * does not count where the reference's does (weight 0 or not finite) is
 * compared by tf_metrics_compute itself. */
typedef struct metrics_scorer metrics_scorer;

metrics_scorer *metrics_scorer_new(const tf_layer_map *reference,
                                   const tf_metrics_options *options, tf_error *err);
int metrics_scorer_compare(metrics_scorer *s, const tf_layer_map *b, tf_metrics_report *out,
                           tf_error *err);
void metrics_scorer_free(metrics_scorer *s);

/* Normal-score correlations of roughness and of slope (NaN where
 * undefined) with the low-pass elevation. */
int metrics_relief_correlations(const metrics_grid *g, const float *slope,
                                const float *slope_weight, unsigned radius,
                                double *roughness_elevation, double *slope_elevation,
                                tf_error *err);

#endif /* TF_METRICS_INTERNAL_H */
