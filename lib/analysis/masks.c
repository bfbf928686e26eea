/*
 * Automatic layer masking (thesis 5.4.2): a lower layer j masks layer i when
 * i appears only where j's values keep to a part of their range. Finds each
 * candidate's range, its smooth edge from i's fading alpha, and picks the
 * candidate that best predicts where i is present (docs/fitting.md, "Masks").
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "analysis/fit_internal.h"
#include "base/error.h"

/* A side of j's range counts as cut when the core stops more than this
 * share of j's value range short of it ... */
#define CUT_VALUE_SHARE 0.01
/* ... and at least this share of j's visible cells lie beyond it. */
#define CUT_CELL_SHARE 0.01
/* j must be visible under at least this share of i's visible cells. */
#define MIN_OVERLAP_SHARE 0.5

/* Index of the first sorted value >= v (lower bound). */
static size_t count_below(const float *sorted, size_t n, double v)
{
    size_t lo = 0, hi = n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if ((double)sorted[mid] < v)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

/* Number of sorted values <= v (upper bound). */
static size_t count_at_most(const float *sorted, size_t n, double v)
{
    size_t lo = 0, hi = n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if ((double)sorted[mid] <= v)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

/* The runtime's mask weight (docs/spec.md step 4) of a mask-layer value. */
static double mask_weight(double r, double lo, double hi, double falloff)
{
    if (r >= lo && r <= hi)
        return 1.0;
    double d = r < lo ? lo - r : r - hi;
    if (d >= falloff)
        return 0.0;
    double s = 1.0 - d * (1.0 / falloff);
    return (s * s) * (3.0 - (2.0 * s));
}

/* s in [0, 1] with smoothstep(s) = s^2 (3 - 2 s) = a, by bisection
 * (smoothstep is increasing there; plain arithmetic, the same bits on any
 * IEEE-754 machine). */
static double inverse_smoothstep(double a)
{
    double lo = 0.0, hi = 1.0;
    for (int k = 0; k < 52; k++) {
        double mid = 0.5 * (lo + hi);
        if ((mid * mid) * (3.0 - (2.0 * mid)) < a)
            lo = mid;
        else
            hi = mid;
    }
    return 0.5 * (lo + hi);
}

static void swap_double(double *a, double *b)
{
    double t = *a;
    *a = *b;
    *b = t;
}

/* The k-th smallest of v[0 .. n-1] (Hoare's selection, median-of-three
 * pivot); reorders v. Deterministic: the result is the order statistic. */
static double select_kth(double *v, size_t n, size_t k)
{
    size_t lo = 0, hi = n - 1;
    while (hi > lo) {
        size_t mid = lo + (hi - lo) / 2;
        if (v[mid] < v[lo])
            swap_double(&v[mid], &v[lo]);
        if (v[hi] < v[lo])
            swap_double(&v[hi], &v[lo]);
        if (v[hi] < v[mid])
            swap_double(&v[hi], &v[mid]);
        double pivot = v[mid];
        size_t i = lo, j = hi;
        while (i <= j) {
            while (v[i] < pivot)
                i++;
            while (v[j] > pivot)
                j--;
            if (i <= j) {
                swap_double(&v[i], &v[j]);
                i++;
                if (j == 0)
                    break;
                j--;
            }
        }
        if (k <= j)
            hi = j;
        else if (k >= i)
            lo = i;
        else
            return v[k];
    }
    return v[k];
}

/* One candidate: layer j against layer i. 0, or -1 when out of memory. */
static int evaluate_candidate(const fit_layer_data *li, const fit_layer_data *lj, int j,
                              tf_fit_mask_candidate *c)
{
    const tf_layer_map *mi = li->map, *mj = lj->map;
    size_t cells = mi->width * mi->height;
    double core_threshold = (double)li->weight_max - FIT_CORE_WEIGHT_MARGIN;

    c->layer = j;
    c->range_min = lj->sorted[0];
    c->range_max = lj->sorted[lj->visible - 1];
    c->span_min = c->core_min = HUGE_VAL;
    c->span_max = c->core_max = -HUGE_VAL;
    size_t overlap = 0, core = 0;
    for (size_t k = 0; k < cells; k++) {
        float wi = mi->weight[k];
        if (!(wi > 0.0f) || !(mj->weight[k] > 0.0f))
            continue;
        double v = mj->value[k];
        overlap++;
        if (v < c->span_min)
            c->span_min = v;
        if (v > c->span_max)
            c->span_max = v;
        if ((double)wi >= core_threshold) {
            core++;
            if (v < c->core_min)
                c->core_min = v;
            if (v > c->core_max)
                c->core_max = v;
        }
    }
    c->overlap_cells = overlap;
    double range = c->range_max - c->range_min;
    if (lj->flat || core == 0 || (double)overlap < MIN_OVERLAP_SHARE * (double)li->visible) {
        c->considered = 0;
        if (!overlap)
            c->span_min = c->span_max = c->core_min = c->core_max = NAN;
        else if (!core)
            c->core_min = c->core_max = NAN;
        c->mask_min = c->mask_max = c->falloff = c->kept_share = c->agreement = NAN;
        return 0;
    }
    c->considered = 1;

    /* A side is cut when the core stops short of j's range by more than
     * 1% of the range and at least 1% of j's cells lie beyond it: a few
     * extreme cells that i happens not to cover do not make a mask. */
    double below = (double)count_below(lj->sorted, lj->visible, c->core_min) / (double)lj->visible;
    double above = 1.0 - (double)count_at_most(lj->sorted, lj->visible, c->core_max) /
                             (double)lj->visible;
    c->cut_below = c->core_min - c->range_min > CUT_VALUE_SHARE * range && below >= CUT_CELL_SHARE;
    c->cut_above = c->range_max - c->core_max > CUT_VALUE_SHARE * range && above >= CUT_CELL_SHARE;
    c->masks = c->cut_below || c->cut_above;
    /* An uncut side keeps j's whole range: the curve never leaves it. */
    c->mask_min = c->cut_below ? c->core_min : c->range_min;
    c->mask_max = c->cut_above ? c->core_max : c->range_max;
    c->kept_share = (double)(count_at_most(lj->sorted, lj->visible, c->mask_max) -
                             count_below(lj->sorted, lj->visible, c->mask_min)) /
                    (double)lj->visible;

    /* The falloff that explains i's fading edge: a cell where i is partly
     * present (relative strength a = w_i / w_max) at distance d outside the
     * range fits the runtime's smoothstep edge when smoothstep(1 - d/F) = a,
     * i.e. F = d / (1 - s) with smoothstep(s) = a. The median over such
     * cells is robust to stray pixels; 0 (a hard edge) when there are none. */
    c->falloff = 0.0;
    if (c->masks) {
        size_t edge = 0;
        for (size_t k = 0; k < cells; k++) {
            float wi = mi->weight[k];
            if (wi > 0.0f && (double)wi < core_threshold && mj->weight[k] > 0.0f) {
                double v = mj->value[k];
                if (v < c->mask_min || v > c->mask_max)
                    edge++;
            }
        }
        if (edge) {
            double *estimate = malloc(edge * sizeof *estimate);
            if (!estimate)
                return -1;
            size_t m = 0;
            for (size_t k = 0; k < cells; k++) {
                float wi = mi->weight[k];
                if (!(wi > 0.0f && (double)wi < core_threshold && mj->weight[k] > 0.0f))
                    continue;
                double v = mj->value[k];
                double d = v < c->mask_min ? c->mask_min - v
                                           : (v > c->mask_max ? v - c->mask_max : 0.0);
                if (!(d > 0.0))
                    continue;
                double s = inverse_smoothstep((double)wi / (double)li->weight_max);
                estimate[m++] = d / (1.0 - s);
            }
            double falloff = select_kth(estimate, m, (m - 1) / 2);
            free(estimate);
            /* Beyond j's whole range a wider edge changes nothing. */
            c->falloff = falloff < range ? falloff : range;
        }
    }

    /* Agreement: the weighted Jaccard index sum(min) / sum(max) of the
     * presence the mask predicts (its weight at j's value) and i's actual
     * relative presence, over the cells where j is visible. 1 = the mask
     * explains exactly where i appears. */
    double sum_min = 0.0, sum_max = 0.0;
    double falloff = c->falloff;
    for (size_t k = 0; k < cells; k++) {
        if (!(mj->weight[k] > 0.0f))
            continue;
        double predicted = mask_weight(mj->value[k], c->mask_min, c->mask_max, falloff);
        double actual = mi->weight[k] > 0.0f ? (double)mi->weight[k] / (double)li->weight_max : 0.0;
        sum_min += predicted < actual ? predicted : actual;
        sum_max += predicted > actual ? predicted : actual;
    }
    c->agreement = sum_max > 0.0 ? sum_min / sum_max : 1.0;
    return 0;
}

int fit_mask_search(const fit_layer_data *layers, size_t i, tf_fit_layer_report *rep,
                    tf_error *err)
{
    rep->mask_layer = -1;
    rep->mask_min = rep->mask_max = rep->mask_falloff = 0.0;
    rep->candidates = NULL;
    rep->candidate_count = 0;
    if (i == 0) {
        snprintf(rep->mask_reason, sizeof rep->mask_reason,
                 "unmasked: the bottom layer has no layer below it");
        return 0;
    }
    if (layers[i].opaque) {
        snprintf(rep->mask_reason, sizeof rep->mask_reason,
                 "unmasked: the layer is present at full strength on every cell");
        return 0;
    }
    rep->candidates = calloc(i, sizeof *rep->candidates);
    if (!rep->candidates) {
        tf_error_set(err, TF_ERR_NOMEM, "fit: out of memory for the mask search");
        return -1;
    }
    rep->candidate_count = i;
    int best = -1;
    for (size_t j = 0; j < i; j++) {
        tf_fit_mask_candidate *c = &rep->candidates[j];
        if (evaluate_candidate(&layers[i], &layers[j], (int)j, c) != 0) {
            tf_error_set(err, TF_ERR_NOMEM, "fit: out of memory for the mask search");
            return -1;
        }
        /* The tightest mask is the one that best predicts where i is
         * present; ties go to the lower layer. */
        if (c->considered && c->masks &&
            (best < 0 || c->agreement > rep->candidates[best].agreement))
            best = (int)j;
    }
    if (best < 0) {
        snprintf(rep->mask_reason, sizeof rep->mask_reason,
                 "unmasked: every lower layer takes its whole range where this layer is present");
        return 0;
    }
    const tf_fit_mask_candidate *c = &rep->candidates[best];
    rep->mask_layer = best;
    rep->mask_min = c->mask_min;
    rep->mask_max = c->mask_max;
    rep->mask_falloff = c->falloff;
    snprintf(rep->mask_reason, sizeof rep->mask_reason,
             "masked by layer %d: present only where it is in [%.4g, %.4g] of [%.4g, %.4g] "
             "(agreement %.3f)",
             best, c->mask_min, c->mask_max, c->range_min, c->range_max, c->agreement);
    return 0;
}
