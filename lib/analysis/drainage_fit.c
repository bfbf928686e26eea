/*
 * The drainage stage of a fit (docs/fitting.md, "The drainage stage"):
 * the reference's own drainage measured by the priority flood, D8 routing
 * and flow accumulation of the metrics (metrics_relief.c), the stage's
 * parameters derived from it and from the fitted layers, the output curve
 * re-fitted on the carved sum by the auto-layered fit's quantile matching,
 * and the stage kept only where the terrain it gives is closer to the
 * reference on the fit's own windows.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/autolayer_internal.h"
#include "analysis/fit_internal.h"
#include "analysis/metrics_internal.h"
#include "base/error.h"
#include "util/util.h"
#include "terrafit/terrafit.h"

/* The scoring windows, in widths and heights from the synthesis origin:
 * away from the curve's windows (x, y >= 0) and from each other. A
 * reference of fewer than SCORE_CELLS cells is scored on as many of them
 * as hold that many cells together (at least SCORE_WINDOWS_MIN): a small
 * window's figures vary from window to window, and the decisions taken on
 * their mean should not rest on a few (docs/fitting.md, "Windows enough
 * for a small DEM"). */
static const double SCORE_WINDOW[][2] = {{-3, 2}, {2, -3},  {-2, -4}, {-5, -1}, {-1, -6}, {-7, 3},
                                         {4, -7}, {-6, -6}, {-9, 0},  {0, -9},  {-4, 8},  {8, -4}};
#define SCORE_WINDOWS_MAX (sizeof SCORE_WINDOW / sizeof SCORE_WINDOW[0])
#define SCORE_WINDOWS_MIN 3
#define SCORE_CELLS ((size_t)1 << 18)
/* The output curve's sample: CURVE_TILES x CURVE_TILES windows of
 * CURVE_TILE_SIDE px from the synthesis origin, toward +x and +y. */
#define CURVE_TILES 16
#define CURVE_TILE_SIDE 32
/* Windows are the reference's size: the figures a fit is judged by
 * (docs/fitting.md) compare renders of that size with the whole reference,
 * and a crop's histogram, relief and basins are not the whole's (against
 * a central 512 x 512 crop of a 1201 x 1201 DEM, the fit without the
 * stage scored a histogram chi-square of 0.06-0.11; against the whole,
 * 0.009-0.015). Only a
 * reference of more cells than this is scored on a central crop of its
 * proportions, which bounds the decision's cost (its renders and metrics
 * grow with the cells: about 6 s for 1201 x 1201). */
#define WINDOW_CELLS_MAX ((size_t)1 << 21)

/* The targets the score measures each figure against (docs/fitting.md). */
#define TARGET_HIST_CHI2 0.03
#define TARGET_SPECTRUM_RMS 0.9
#define TARGET_BETA 0.3
#define TARGET_SLOPE_CHI2 0.10
#define TARGET_RATE_RATIO 1.5
#define TARGET_BOX 0.15
/* The share of the figures' ratios to their targets added to the excess
 * over them, so that of two terrains within every target the closer wins. */
#define SCORE_CLOSENESS 0.05
/* The detail layers' gain is tried in these steps, up to the maximum. */
#define DETAIL_GAIN_STEP 0.25
#define DETAIL_GAIN_MAX 2.0
/* The side slope's search: a factor per step, and the most steps either way. */
#define SLOPE_STEP 0.7
#define SLOPE_STEPS 3
/* The candidates' inflow: valleys join two at a time (docs/fitting.md). */
#define INFLOW 2
/* Carving must lower the score by this much to be kept (auto). */
#define KEEP_MARGIN 0.05
/* A reference whose largest catchment holds less than this share of its
 * cells drains radially (a cone): nothing converges, nothing to carve. */
#define MIN_CONVERGENCE 0.15

typedef struct {
    const char *name;
    double gamma;  /* slope g = gamma * 2 D0 / L0 */
    double fade;   /* the detail fades within fade * depth of the floor */
    double depth;  /* factor on D0 */
    int one_level; /* one broad level (unless the levels are asked for) */
    double floor_width, reach;
} drainage_preset;

/* standard: the network of the rules; mild: steeper, narrower valleys
 * that keep more of the fine texture; smooth: one broad level with wide
 * floors, for smooth (interpolated) DEMs. */
static const drainage_preset PRESETS[] = {
    {"standard", 5.0, 0.5, 1.0, 0, 0.1, 1.5},
    {"mild", 8.0, 0.25, 1.0, 0, 0.1, 1.5},
    {"smooth", 2.0, 0.5, 1.0, 1, 0.5, 2.0},
};
#define PRESET_COUNT (sizeof PRESETS / sizeof PRESETS[0])

typedef struct {
    const tf_layer_map *ref;
    const tf_fit_options *opt;
    const char *label;
    tf_error *err;
    size_t w, h, n;
    size_t sw, sh, sn; /* the windows: the reference's size, or a central crop (WINDOW_CELLS_MAX) */
    double lo, hi;
    tf_layer_map *ref_unit, *out_unit;
    metrics_scorer *scorer; /* ref_unit measured once */
    double *values;
    float *ref_sorted;
    size_t nref;
    tf_metrics_options mopt;
    int inflow;     /* the candidates' drainage.inflow */
    size_t windows; /* the scoring windows: the first of SCORE_WINDOW */
} drainage_ctx;

static int fail_nomem(drainage_ctx *c)
{
    tf_error_set(c->err, TF_ERR_NOMEM, "%s: out of memory for the drainage stage", c->label);
    return -1;
}

/* The pre-curve value of height y: the output curve's inverse, linear
 * between its points, clamped to its ends; y itself without a curve. */
static double curve_inverse(const tf_spec *spec, double y)
{
    const tf_point *p = spec->output_curve_points;
    size_t m = spec->output_curve_point_count;
    if (m < 2)
        return y;
    if (y <= p[0].y)
        return p[0].x;
    for (size_t i = 1; i < m; i++) {
        if (y <= p[i].y) {
            double dy = p[i].y - p[i - 1].y;
            return dy > 0.0 ? p[i - 1].x + (y - p[i - 1].y) / dy * (p[i].x - p[i - 1].x)
                            : p[i].x;
        }
    }
    return p[m - 1].x;
}

/* The reference's drainage at the channel threshold of spacing L0: channel
 * cells drain at least L0^2 / 4 cells; each cell's height above the
 * channel its flow path reaches first (an outlet counts as one), in the
 * layers' sum units. */
static int measure_drainage(drainage_ctx *c, const tf_spec *spec, double L0,
                            tf_fit_drainage_report *rep)
{
    size_t n = c->n;
    float *v = malloc(n * sizeof *v), *wt = malloc(n * sizeof *wt);
    unsigned char *ok = malloc(n);
    double *pre = malloc(n * sizeof *pre), *base = malloc(n * sizeof *base);
    int rc = -1;
    metrics_flow f;
    memset(&f, 0, sizeof f);
    if (!v || !wt || !ok || !pre || !base) {
        fail_nomem(c);
        goto done;
    }
    for (size_t k = 0; k < n; k++) {
        int in = c->ref->weight[k] > 0.0f;
        v[k] = in ? c->ref->value[k] : 0.0f;
        wt[k] = in ? 1.0f : 0.0f;
        ok[k] = (unsigned char)in;
        pre[k] = in ? curve_inverse(spec, c->ref->value[k]) : 0.0;
    }
    metrics_grid g = {c->w, c->h, v, wt, ok};
    if (metrics_flow_route(&g, &f, c->err) != 0)
        goto done;
    double threshold = L0 * L0 / 4.0, sum = 0.0;
    uint32_t amax = 0;
    size_t channels = 0;
    for (size_t i = 0; i < f.counted; i++) {
        size_t k = f.order[i];
        uint32_t r = f.receiver[k];
        int channel = (double)f.accumulation[k] >= threshold;
        channels += channel;
        if (f.accumulation[k] > amax)
            amax = f.accumulation[k];
        base[k] = channel || r == METRICS_NO_CELL ? pre[k] : base[r];
        sum += pre[k] > base[k] ? pre[k] - base[k] : 0.0;
    }
    rep->channel_threshold = threshold;
    rep->valley_spacing = channels ? (double)f.counted / (double)channels : NAN;
    rep->height_above_drainage = f.counted ? sum / (double)f.counted : NAN;
    rep->max_accumulation_share = f.counted ? (double)amax / (double)f.counted : NAN;
    rc = 0;
done:
    metrics_flow_free(&f);
    free(v);
    free(wt);
    free(ok);
    free(pre);
    free(base);
    return rc;
}

/* A figure over its target, 0 .. (1 at the target). */
static void add_score(double *excess, double *closeness, double ratio)
{
    if (!isfinite(ratio))
        return;
    *excess += ratio > 1.0 ? ratio - 1.0 : 0.0;
    *closeness += ratio;
}

/* The terrain of `spec` on the scoring windows against the reference. */
static int score_spec(drainage_ctx *c, const tf_spec *spec, tf_fit_drainage_report *rep,
                      tf_fit_drainage_scores *s)
{
    tf_terrain *t = tf_terrain_compile(spec, c->err);
    if (!t)
        return -1;
    memset(s, 0, sizeof *s);
    double box_sum = 0.0, score = 0.0, ref_ds = 0.0;
    size_t box_n = 0;
    int rc = 0;
    double scale = c->hi > c->lo ? 1.0 / (c->hi - c->lo) : 1.0;
    for (size_t wi = 0; wi < c->windows && rc == 0; wi++) {
        double x0 = TF_FIT_SYNTHESIS_OFFSET + SCORE_WINDOW[wi][0] * (double)c->sw;
        double y0 = TF_FIT_SYNTHESIS_OFFSET + SCORE_WINDOW[wi][1] * (double)c->sh;
        if (fit_render_stage_at(t, TF_STAGE_HEIGHT, 0, x0, y0, 1.0, c->sw, c->sh,
                                c->opt->threads, c->values, c->err) != 0) {
            rc = -1;
            break;
        }
        for (size_t k = 0; k < c->sn; k++) {
            double u = (c->values[k] - c->lo) * scale;
            c->out_unit->value[k] = (float)(u < 0.0 ? 0.0 : u > 1.0 ? 1.0 : u);
        }
        tf_metrics_report r;
        if (metrics_scorer_compare(c->scorer, c->out_unit, &r, c->err) != 0) {
            rc = -1;
            break;
        }
        double ds_target = fmax(2.0 * r.a.depression_share, r.a.depression_share + 0.06);
        double beta = tf_metrics_difference(r.a.spectral_slope, r.b.spectral_slope);
        double rate = fabs(log(r.b.slope_rate / r.a.slope_rate));
        double box = tf_metrics_difference(r.a.box_dimension, r.b.box_dimension);
        double excess = 0.0, closeness = 0.0;
        add_score(&excess, &closeness, r.histogram_chi2 / TARGET_HIST_CHI2);
        add_score(&excess, &closeness, r.spectrum_log_rms / TARGET_SPECTRUM_RMS);
        add_score(&excess, &closeness, beta / TARGET_BETA);
        add_score(&excess, &closeness, r.slope_chi2 / TARGET_SLOPE_CHI2);
        add_score(&excess, &closeness, rate / log(TARGET_RATE_RATIO));
        add_score(&excess, &closeness, box / TARGET_BOX);
        add_score(&excess, &closeness, r.b.depression_share / ds_target);
        score += excess + SCORE_CLOSENESS * closeness;
        s->hist_chi2 += r.histogram_chi2;
        s->spectrum_log_rms += r.spectrum_log_rms;
        s->slope_chi2 += r.slope_chi2;
        s->spectral_slope_diff += beta;
        s->slope_rate_log_ratio += rate;
        if (isfinite(box)) {
            box_sum += box;
            box_n++;
        }
        s->depression_share += r.b.depression_share;
        s->pit_peak_ratio += r.b.pit_peak_ratio;
        ref_ds += r.a.depression_share;
    }
    tf_terrain_free(t);
    if (rc != 0)
        return -1;
    double k = (double)c->windows;
    s->score = score / k;
    s->hist_chi2 /= k;
    s->spectrum_log_rms /= k;
    s->slope_chi2 /= k;
    s->spectral_slope_diff /= k;
    s->slope_rate_log_ratio /= k;
    s->box_dimension_diff = box_n ? box_sum / (double)box_n : NAN;
    s->depression_share /= k;
    s->pit_peak_ratio /= k;
    rep->reference_depression_share = ref_ds / k;
    rep->depression_share_target =
        fmax(2.0 * rep->reference_depression_share, rep->reference_depression_share + 0.06);
    rep->windows = c->windows;
    return 0;
}

/* The output curve's sample: tiles side x side at step 1, `tiles` a row,
 * `gap` apart from the synthesis origin toward +x and +y. */
typedef struct {
    const tf_terrain *t;
    size_t tiles, side;
    double gap;
    double *out; /* tile after tile, rows of each */
} curve_tiles;

static void render_curve_tiles(void *ctx, size_t lo, size_t hi)
{
    const curve_tiles *r = ctx;
    for (size_t wi = lo; wi < hi; wi++) {
        double x0 = TF_FIT_SYNTHESIS_OFFSET + (double)(wi % r->tiles) * r->gap;
        double y0 = TF_FIT_SYNTHESIS_OFFSET + (double)(wi / r->tiles) * r->gap;
        /* the stage was checked before the threads: no error here */
        tf_terrain_sample_stage_window(r->t, TF_STAGE_DRAINED, 0, x0, y0, 1.0, 0, 0, r->side,
                                       r->side, r->out + wi * r->side * r->side, NULL);
    }
}

/* `base` with the stage of these parameters, its detail layers' (those
 * added after carving) amplitudes times `gain`, and an output curve re-fitted
 * on the carved sum (TF_STAGE_DRAINED on the curve windows, quantile
 * matched to the reference as the auto-layered fit's curve is); minValue
 * and maxValue the reference's range. NULL with err filled on failure. */
static tf_spec *carved_spec(drainage_ctx *c, const tf_spec *base, int levels, double spacing,
                            double depth, double slope, int breach, const drainage_preset *pr,
                            double gain)
{
    tf_spec *s = tf_spec_copy(base, c->err);
    if (!s)
        return NULL;
    tf_drainage_set_defaults(s, levels, spacing, depth, slope);
    s->drainage.breach = breach;
    s->drainage.fade = pr->fade;
    /* the fade by the depth cut: a continuous carved sum (with "bed" it
     * jumps where the lowest cone's valley changes; docs/fitting.md) */
    s->drainage.fade_by = TF_FADE_CUT;
    /* a sink breaches over its lowest neighbour, where its basin would
     * spill, to the nearest lower node beyond: a trench straight to a
     * lower node cuts through the ridge between (docs/fitting.md) */
    s->drainage.breach_to = TF_BREACH_PASS;
    s->drainage.inflow = c->inflow;
    s->drainage.floor_width = pr->floor_width;
    s->drainage.reach = pr->reach;
    for (size_t i = 0; i < s->layer_count; i++)
        if (!(s->layers[i].frequency * s->drainage.detail_wavelength <= 1.0))
            s->layers[i].amp_scale *= gain;
    /* As many samples as the auto-layered fit's curve (section 11; 512 x
     * 512), in CURVE_TILES^2 small windows at step 1 spread over a grid
     * two coarse wavelengths apart: a couple of DEM-sized windows hold a
     * handful of coarse features, which leaves the curve to chance, and
     * one sparse window spread as wide costs the stage its whole network
     * over the spread. A window holds about one value of the coarsest
     * layers, so their count is what the curve's quantiles rest on: with
     * 64 windows of 64 x 64 px a whole number of cells apart instead of
     * these, trinidad east's renders missed the DEM's histogram by a
     * chi-square of 0.036, not 0.023 (docs/fitting.md). The gap is a
     * whole number of level-0 cells plus the golden ratio's fraction of
     * one, so the windows fall at offsets spread evenly over the
     * network's cells, at every level: a gap of whole cells (the spacing
     * rule makes two coarse wavelengths six level-0 cells) puts every
     * window at the same place in its cell and samples the valleys' share
     * of the cells wrongly. */
    const size_t NT = CURVE_TILES, side = CURVE_TILE_SIDE, cells = side * side;
    size_t nm = NT * NT * cells, kpts = c->opt->points;
    double gap = 2.0 / base->layers[0].frequency, L0 = s->drainage.spacing;
    if (!(gap > (double)side))
        gap = (double)side;
    gap = (ceil(gap / L0) + (FIT_GOLDEN_RATIO - 1.0)) * L0;
    float *sums = malloc(nm * sizeof *sums), *sum_sorted = NULL;
    double *values = malloc(nm * sizeof *values);
    tf_point *pts = malloc(kpts * sizeof *pts);
    tf_terrain *t = NULL;
    int rc = -1;
    if (!sums || !values || !pts) {
        fail_nomem(c);
        goto done;
    }
    if (tf_spec_validate(s, c->err) != 0 || !(t = tf_terrain_compile(s, c->err)))
        goto done;
    /* a window of no rows checks the stage before the threads */
    if (tf_terrain_sample_stage_window(t, TF_STAGE_DRAINED, 0, 0.0, 0.0, 1.0, 0, 0, side, 0,
                                       values, c->err) != 0)
        goto done;
    /* a tile a task: the rows of one small window split between threads
     * would each build its network */
    curve_tiles ct = {t, NT, side, gap, values};
    tf_parallel_for(NT * NT, c->opt->threads, render_curve_tiles, &ct);
    for (size_t k = 0; k < nm; k++)
        sums[k] = (float)values[k];
    tf_error e;
    size_t nsum = tf_sorted_values(sums, NULL, nm, &sum_sorted, &e);
    if (nsum == (size_t)-1 || nsum < 2) {
        fail_nomem(c);
        goto done;
    }
    size_t mo = autolayer_output_curve_points(sum_sorted, nsum, c->ref_sorted, c->nref, kpts, pts);
    if (mo >= 2 && tf_spec_set_output_curve(s, pts, mo, TF_INTERP_MONOTONE_CUBIC, c->err) != 0)
        goto done;
    s->min_value = c->lo;
    s->max_value = c->hi;
    if (tf_spec_validate(s, c->err) != 0)
        goto done;
    rc = 0;
done:
    tf_terrain_free(t);
    free(values);
    free(sums);
    free(sum_sorted);
    free(pts);
    if (rc != 0) {
        tf_spec_free(s);
        return NULL;
    }
    return s;
}

/* Level 0's spacing: the layer wavelength nearest (in log) to a sixth of
 * the reference's shorter side, within [12, 128] px, and at least a third
 * of the coarsest wavelength, so that a breach of at most 4 cells spans
 * the coarsest basins. */
static double derive_spacing(const tf_spec *spec, size_t w, size_t h)
{
    double target = (double)(w < h ? w : h) / 6.0, best = NAN, lmax = 0.0;
    for (size_t i = 0; i < spec->layer_count; i++) {
        double l = 1.0 / spec->layers[i].frequency;
        if (!isfinite(l))
            continue;
        lmax = fmax(lmax, l);
        if (!isfinite(best) || fabs(log(l / target)) < fabs(log(best / target)))
            best = l;
    }
    if (!isfinite(best))
        best = target;
    best = best < 12.0 ? 12.0 : best > 128.0 ? 128.0 : best;
    return fmax(best, lmax / 3.0);
}

static void wavelength_range(const tf_spec *spec, double *lmin, double *lmax)
{
    *lmin = HUGE_VAL;
    *lmax = 0.0;
    for (size_t i = 0; i < spec->layer_count; i++) {
        double l = 1.0 / spec->layers[i].frequency;
        if (!isfinite(l))
            continue;
        *lmin = fmin(*lmin, l);
        *lmax = fmax(*lmax, l);
    }
}

/* A candidate: `base` carved with these parameters (carved_spec) and
 * scored (score_spec) into *sc. The caller owns it; NULL with the error
 * filled on failure. */
static tf_spec *scored_candidate(drainage_ctx *c, const tf_spec *base, int levels,
                                 double spacing, double depth, double slope, int breach,
                                 const drainage_preset *pr, double gain,
                                 tf_fit_drainage_report *rep, tf_fit_drainage_scores *sc)
{
    tf_spec *s = carved_spec(c, base, levels, spacing, depth, slope, breach, pr, gain);
    if (s && score_spec(c, s, rep, sc) != 0) {
        tf_spec_free(s);
        s = NULL;
    }
    return s;
}

/* The chosen preset's candidate rebuilt with `slope` and detail `gain`:
 * when it scores lower than rep->with by more than `margin` it replaces
 * *best and rep->with (1), else it is dropped (0); -1 on failure, with
 * *best freed. */
static int try_better(drainage_ctx *c, const tf_spec *spec, tf_fit_drainage_report *rep,
                      double L0, int B, const drainage_preset *chosen, double slope,
                      double gain, double margin, tf_spec **best)
{
    tf_fit_drainage_scores sc;
    tf_spec *s = scored_candidate(c, spec, rep->levels, L0, rep->depth, slope, B, chosen, gain,
                                  rep, &sc);
    if (!s) {
        tf_spec_free(*best);
        *best = NULL;
        return -1;
    }
    if (!(sc.score + margin < rep->with.score)) {
        tf_spec_free(s);
        return 0;
    }
    tf_spec_free(*best);
    *best = s;
    rep->with = sc;
    return 1;
}

static void ctx_free(drainage_ctx *c)
{
    metrics_scorer_free(c->scorer);
    tf_layer_map_free(c->ref_unit);
    tf_layer_map_free(c->out_unit);
    free(c->values);
    free(c->ref_sorted);
}

/* The context for `spec` fitted to `ref`: heights map to [0, 1] over the
 * spec's range. */
static void ctx_init(drainage_ctx *c, const tf_layer_map *ref, const tf_fit_options *opt,
                     const char *label, const tf_spec *spec, tf_error *err)
{
    memset(c, 0, sizeof *c);
    c->ref = ref;
    c->opt = opt;
    c->label = label;
    c->err = err;
    c->w = ref->width;
    c->h = ref->height;
    c->n = c->w * c->h;
    c->mopt = tf_metrics_options_default();
    c->lo = spec->min_value;
    c->hi = spec->max_value;
}

/* The scoring windows' size (the reference's, or a central crop of
 * WINDOW_CELLS_MAX cells), the reference on them in unit heights, and its
 * measurements (the scorer). */
static int score_setup(drainage_ctx *c)
{
    c->sw = c->w;
    c->sh = c->h;
    if (c->n > WINDOW_CELLS_MAX) {
        double shrink = sqrt((double)WINDOW_CELLS_MAX / (double)c->n);
        c->sw = (size_t)((double)c->w * shrink);
        c->sh = (size_t)((double)c->h * shrink);
        c->sw = c->sw < TF_METRICS_MIN_SIDE ? TF_METRICS_MIN_SIDE : c->sw;
        c->sh = c->sh < TF_METRICS_MIN_SIDE ? TF_METRICS_MIN_SIDE : c->sh;
    }
    c->sn = c->sw * c->sh;
    c->windows = (SCORE_CELLS + c->sn - 1) / c->sn;
    c->windows = c->windows < SCORE_WINDOWS_MIN   ? SCORE_WINDOWS_MIN
                 : c->windows > SCORE_WINDOWS_MAX ? SCORE_WINDOWS_MAX
                                                  : c->windows;
    c->ref_unit = tf_layer_map_new(c->sw, c->sh, c->err);
    c->out_unit = tf_layer_map_new(c->sw, c->sh, c->err);
    c->values = malloc(c->sn * sizeof *c->values);
    if (!c->ref_unit || !c->out_unit || !c->values)
        return fail_nomem(c);
    double scale = c->hi > c->lo ? 1.0 / (c->hi - c->lo) : 1.0;
    size_t cx = (c->w - c->sw) / 2, cy = (c->h - c->sh) / 2;
    for (size_t j = 0; j < c->sh; j++) {
        for (size_t i = 0; i < c->sw; i++) {
            size_t k = j * c->sw + i, r = (cy + j) * c->w + cx + i;
            int in = c->ref->weight[r] > 0.0f;
            double u = in ? ((double)c->ref->value[r] - c->lo) * scale : 0.5;
            c->ref_unit->value[k] = (float)(u < 0.0 ? 0.0 : u > 1.0 ? 1.0 : u);
            c->ref_unit->weight[k] = c->out_unit->weight[k] = in ? 1.0f : 0.0f;
        }
    }
    c->scorer = metrics_scorer_new(c->ref_unit, &c->mopt, c->err);
    return c->scorer ? 0 : -1;
}

int fit_drainage_score(const tf_layer_map *ref, const tf_fit_options *opt, const char *label,
                       const tf_spec *spec, double *score, tf_error *err)
{
    drainage_ctx c;
    ctx_init(&c, ref, opt, label, spec, err);
    tf_fit_drainage_report rep;
    tf_fit_drainage_scores s;
    memset(&rep, 0, sizeof rep);
    int rc = score_setup(&c) == 0 && score_spec(&c, spec, &rep, &s) == 0 ? 0 : -1;
    if (rc == 0)
        *score = s.score;
    ctx_free(&c);
    return rc;
}

int fit_drainage(const tf_layer_map *ref, const tf_fit_options *opt, const char *label,
                 tf_spec **specp, tf_fit_drainage_report *rep, tf_error *err)
{
    memset(rep, 0, sizeof *rep);
    rep->valley_spacing = rep->height_above_drainage = rep->max_accumulation_share = NAN;
    rep->reference_depression_share = rep->depression_share_target = NAN;
    if (opt->drainage == TF_FIT_DRAINAGE_OFF) {
        snprintf(rep->why, sizeof rep->why, "off");
        return 0;
    }
    rep->considered = 1;
    const tf_spec *spec = *specp;
    drainage_ctx c;
    ctx_init(&c, ref, opt, label, spec, err);
    int rc = -1;

    /* The parameters. */
    double lmin, lmax;
    wavelength_range(spec, &lmin, &lmax);
    double L0 = opt->drainage_spacing > 0.0 ? opt->drainage_spacing : derive_spacing(spec, c.w, c.h);
    int K = opt->drainage_levels;
    if (K <= 0) {
        double finest = fmax(6.0, lmin / 2.0);
        K = 1 + (int)floor(log2(L0 / finest));
        K = K < 1 ? 1 : K > TF_MAX_DRAINAGE_LEVELS ? TF_MAX_DRAINAGE_LEVELS : K;
    }
    /* the breach: cells enough to span the coarsest band's basins (a
     * straight trench a link: each lowers the windows it crosses, see
     * docs/fitting.md, "Open") */
    int B = (int)lround(lmax / L0) + 1;
    B = B < 2 ? 2 : B > TF_FIT_DRAINAGE_MAX_BREACH ? TF_FIT_DRAINAGE_MAX_BREACH : B;
    if (opt->drainage_breach > 0)
        B = opt->drainage_breach;
    if (measure_drainage(&c, spec, L0, rep) != 0)
        goto done;
    double factor = opt->drainage_depth > 0.0 ? opt->drainage_depth : 1.0;
    double D0 = 1.5 * rep->height_above_drainage * factor;
    rep->levels = K;
    rep->spacing = L0;
    rep->breach = B;
    rep->depth = D0;
    if (!(D0 > 0.0) || !isfinite(D0)) {
        snprintf(rep->why, sizeof rep->why, "the reference has no height above its drainage");
        rc = 0;
        goto done;
    }
    if (opt->drainage == TF_FIT_DRAINAGE_AUTO &&
        rep->max_accumulation_share < MIN_CONVERGENCE) {
        snprintf(rep->why, sizeof rep->why,
                 "radial drainage: the largest catchment holds %.3f of the cells (< %.2f)",
                 rep->max_accumulation_share, MIN_CONVERGENCE);
        rc = 0;
        goto done;
    }

    if (score_setup(&c) != 0)
        goto done;
    tf_error e;
    c.nref = tf_sorted_values(ref->value, ref->weight, c.n, &c.ref_sorted, &e);
    if (c.nref == (size_t)-1 || c.nref == 0) {
        fail_nomem(&c);
        goto done;
    }

    if (score_spec(&c, spec, rep, &rep->without) != 0)
        goto done;
    tf_spec *best = NULL;
    const drainage_preset *chosen = NULL;
    c.inflow = opt->drainage_inflow == TF_FIT_DRAINAGE_INFLOW_ANY ? 0
               : opt->drainage_inflow > 0                        ? opt->drainage_inflow
                                                                 : INFLOW;
    for (size_t p = 0; p < PRESET_COUNT; p++) {
        const drainage_preset *pr = &PRESETS[p];
        double depth = D0 * pr->depth, slope = pr->gamma * 2.0 * depth / L0;
        int levels = pr->one_level && opt->drainage_levels <= 0 ? 1 : K;
        tf_fit_drainage_scores sc;
        tf_spec *s = scored_candidate(&c, spec, levels, L0, depth, slope, B, pr, 1.0, rep, &sc);
        if (!s) {
            tf_spec_free(best);
            goto done;
        }
        if (!best || sc.score < rep->with.score) {
            tf_spec_free(best);
            best = s;
            chosen = pr;
            rep->with = sc;
            rep->preset = pr->name;
            rep->gamma = pr->gamma;
            rep->fade = pr->fade;
            rep->depth = depth;
            rep->slope = slope;
            rep->detail_wavelength = s->drainage.detail_wavelength;
            rep->levels = levels;
            rep->floor_width = pr->floor_width;
            rep->reach = pr->reach;
            rep->fade_by = s->drainage.fade_by;
            rep->breach_to = s->drainage.breach_to;
            rep->inflow = s->drainage.inflow;
        } else {
            tf_spec_free(s);
        }
    }
    /* The inflow: with a limit of two, valleys join two at a time; the
     * best candidate is rebuilt without the limit (a level-0 node takes
     * every neighbour that chose it, a star of valleys where it is the
     * lowest of many), kept only where that scores lower by more than the
     * margin a stage must win by: a closer look is worth a score within
     * the windows' noise (docs/fitting.md). */
    if (best && opt->drainage_inflow == 0) {
        c.inflow = 0;
        int r = try_better(&c, spec, rep, L0, B, chosen, rep->slope, 1.0, KEEP_MARGIN, &best);
        if (r < 0)
            goto done;
        c.inflow = r == 1 ? 0 : INFLOW;
        rep->inflow = c.inflow;
    }
    /* The side slope: the presets' gamma is a guess at the DEM's valley
     * sides; the best candidate's slope is scaled by SLOPE_STEP at a time,
     * gentler first and, when the first gentler step does not lower the
     * score, steeper (1 / SLOPE_STEP), while the score falls, at most
     * SLOPE_STEPS times (trinidad east, a flat DEM: gamma 5 -> 2.45-3.5;
     * castilla: 8 -> 11.4-23.3; docs/fitting.md). */
    for (int dir = 0; best && dir < 2; dir++) {
        double f = dir == 0 ? SLOPE_STEP : 1.0 / SLOPE_STEP;
        int moved = 0;
        for (int step = 0; step < SLOPE_STEPS; step++) {
            int r = try_better(&c, spec, rep, L0, B, chosen, rep->slope * f, 1.0, 0.0, &best);
            if (r < 0)
                goto done;
            if (r == 0)
                break;
            moved = 1;
            rep->slope = rep->slope * f;
            rep->gamma *= f;
        }
        if (moved)
            break;
    }
    /* The detail gain: carving replaces the carved layers near the network
     * with smooth valley sides and floors, which takes power from the
     * finer scales and steepens the spectrum (castilla's beta: +0.35). The
     * best candidate's detail layers are raised by DETAIL_GAIN_STEP at a
     * time while the score falls, up to DETAIL_GAIN_MAX. */
    rep->detail_gain = 1.0;
    int has_detail = 0;
    for (size_t i = 0; best && i < best->layer_count; i++)
        has_detail |= !(best->layers[i].frequency * best->drainage.detail_wavelength <= 1.0);
    for (double g = 1.0 + DETAIL_GAIN_STEP; has_detail && g <= DETAIL_GAIN_MAX;
         g += DETAIL_GAIN_STEP) {
        int r = try_better(&c, spec, rep, L0, B, chosen, rep->slope, g, 0.0, &best);
        if (r < 0)
            goto done;
        if (r == 0)
            break;
        rep->detail_gain = g;
    }
    if (opt->drainage == TF_FIT_DRAINAGE_ON) {
        rep->chosen = 1;
        snprintf(rep->why, sizeof rep->why, "asked for (score %.3f without, %.3f with)",
                 rep->without.score, rep->with.score);
    } else if (rep->with.score + KEEP_MARGIN < rep->without.score) {
        rep->chosen = 1;
        snprintf(rep->why, sizeof rep->why,
                 "carving brings the fit closer (score %.3f without, %.3f with)",
                 rep->without.score, rep->with.score);
    } else {
        snprintf(rep->why, sizeof rep->why,
                 "carving does not bring the fit closer (score %.3f without, %.3f with)",
                 rep->without.score, rep->with.score);
    }
    if (rep->chosen) {
        tf_spec_free(*specp);
        *specp = best;
    } else {
        tf_spec_free(best);
    }
    rc = 0;
done:
    ctx_free(&c);
    return rc;
}
