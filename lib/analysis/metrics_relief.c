/*
 * Relief measures of one map for `terrafit compare` (docs/metrics.md): the
 * box-counting dimension of the median contour, strict extrema, closed
 * depressions and the drainage network by one priority flood, and
 * normal-score correlations of roughness and slope with low-pass elevation.
 */
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/metrics_internal.h"
#include "base/error.h"
#include "terrafit/stats.h"

/* Box sizes 2, 4, 8, ... up to the largest power of two that still puts
 * BOX_MIN_ACROSS boxes across the shorter side, as Thorimbert & Chopard
 * (2..64 px on 512 px maps). Size 1 is left out: the contour points (below)
 * lie on segments between cell centres, too sparse to mark every unit box
 * a tilted contour passes through (a 256 px line of slope 0.3 marks 256
 * unit boxes, not about 330), which would bend the fit. Boxes larger than
 * 1/8 of the map mostly count the map's own outline. */
#define BOX_FIRST_SIZE 2
#define BOX_MIN_ACROSS 8
#define BOX_MIN_SIZES 3

static const int NEIGHBOUR_DX[8] = {-1, 0, 1, -1, 1, -1, 0, 1};
static const int NEIGHBOUR_DY[8] = {-1, -1, -1, 0, 0, 1, 1, 1};

/* ------------------------------------------------ box-counting dimension */

int metrics_box_dimension(const metrics_grid *g, double *out, tf_error *err)
{
    size_t w = g->w, h = g->h, n = w * h;
    *out = NAN;
    size_t shorter = w < h ? w : h, size_count = 0;
    for (size_t s = BOX_FIRST_SIZE; s * BOX_MIN_ACROSS <= shorter; s *= 2)
        size_count++;
    if (size_count < BOX_MIN_SIZES)
        return 0;

    float *sorted = NULL;
    size_t count = tf_sorted_values(g->v, g->weight, n, &sorted, err);
    if (count == (size_t)-1)
        return -1;
    if (count == 0)
        return 0;
    double median = tf_quantile_sorted(sorted, count, 0.5);
    free(sorted);

    unsigned char *occupied = malloc(n);
    if (!occupied) {
        tf_error_set(err, TF_ERR_NOMEM, "out of memory for the contour of %zux%zu", w,
                     h);
        return -1;
    }
    /* The contour, as the points where it crosses the segments joining the
     * centres of 4-neighbouring counted cells (cell (x, y) has its centre
     * at (x + 0.5, y + 0.5)), placed by linear interpolation as in
     * marching squares. Marking the unit box under each point gives the
     * occupancy at size 1 with sub-pixel positions, so a tilted straight
     * contour counts as a line at every box size. */
    memset(occupied, 0, n);
    size_t boundary = 0;
    for (size_t y = 0; y < h; y++) {
        for (size_t x = 0; x < w; x++) {
            size_t k = y * w + x;
            if (!g->ok[k])
                continue;
            double v0 = g->v[k];
            bool up = v0 > median;
            for (int axis = 0; axis < 2; axis++) {
                size_t q = axis == 0 ? k + 1 : k + w;
                if ((axis == 0 && x + 1 >= w) || (axis == 1 && y + 1 >= h) || !g->ok[q] ||
                    (g->v[q] > median) == up)
                    continue;
                double t = (median - v0) / ((double)g->v[q] - v0); /* in [0, 1] */
                double px = (double)x + 0.5 + (axis == 0 ? t : 0.0);
                double py = (double)y + 0.5 + (axis == 1 ? t : 0.0);
                size_t bx = (size_t)px < w ? (size_t)px : w - 1;
                size_t by = (size_t)py < h ? (size_t)py : h - 1;
                occupied[by * w + bx] = 1;
                boundary++;
            }
        }
    }
    if (boundary == 0) {
        free(occupied);
        return 0;
    }

    /* Occupancy at box size 2s is the OR of 2x2 blocks at size s, computed
     * in place (each write lands at or before every index still to read).
     * Level l holds boxes of size 2^l; the fit uses the levels from
     * BOX_FIRST_SIZE on: x = log(1 / size), y = log N(size). */
    double sx = 0.0, sy = 0.0, sxx = 0.0, sxy = 0.0;
    size_t cw = w, ch = h, fitted = 0;
    for (size_t level = 0, size = 1; fitted < size_count; level++, size *= 2) {
        if (level > 0) {
            size_t nw = (cw + 1) / 2, nh = (ch + 1) / 2;
            for (size_t j = 0; j < nh; j++) {
                for (size_t i = 0; i < nw; i++) {
                    unsigned char any = 0;
                    for (size_t dy = 0; dy < 2 && 2 * j + dy < ch; dy++)
                        for (size_t dx = 0; dx < 2 && 2 * i + dx < cw; dx++)
                            any |= occupied[(2 * j + dy) * cw + 2 * i + dx];
                    occupied[j * nw + i] = any;
                }
            }
            cw = nw;
            ch = nh;
        }
        if (size < BOX_FIRST_SIZE)
            continue;
        size_t boxes = 0;
        for (size_t k = 0; k < cw * ch; k++)
            boxes += occupied[k];
        double x = -log((double)size), y = log((double)boxes);
        sx += x;
        sy += y;
        sxx += x * x;
        sxy += x * y;
        fitted++;
    }
    free(occupied);
    double k = (double)size_count;
    *out = (k * sxy - sx * sy) / (k * sxx - sx * sx);
    return 0;
}

/* ------------------------------------------------------- strict extrema */

void metrics_extrema(const metrics_grid *g, double *peak_density, double *pit_peak_ratio)
{
    size_t w = g->w, h = g->h, eligible = 0, peaks = 0, pits = 0;
    for (size_t y = 1; y + 1 < h; y++) {
        for (size_t x = 1; x + 1 < w; x++) {
            size_t k = y * w + x;
            if (!g->ok[k])
                continue;
            bool all_counted = true, above_all = true, below_all = true;
            for (int d = 0; d < 8; d++) {
                size_t q = (y + (size_t)(ptrdiff_t)NEIGHBOUR_DY[d]) * w + x +
                           (size_t)(ptrdiff_t)NEIGHBOUR_DX[d];
                if (!g->ok[q]) {
                    all_counted = false;
                    break;
                }
                above_all = above_all && g->v[k] > g->v[q];
                below_all = below_all && g->v[k] < g->v[q];
            }
            if (!all_counted)
                continue;
            eligible++;
            peaks += above_all;
            pits += below_all;
        }
    }
    *peak_density = eligible ? 1000.0 * (double)peaks / (double)eligible : NAN;
    *pit_peak_ratio = peaks ? (double)pits / (double)peaks : NAN;
}

/* ------------------------------------------------------ ranking values */

/* A value to rank: its bits mapped so that unsigned order is numeric order
 * (sign folded; -0 taken as +0), and its position. */
typedef struct {
    uint64_t key;
    size_t index;
} ranked_value;

static uint64_t order_key(double v)
{
    v += 0.0; /* -0 -> +0, so equal values have equal keys */
    uint64_t bits;
    memcpy(&bits, &v, sizeof bits);
    return (bits >> 63) ? ~bits : bits | ((uint64_t)1 << 63);
}

/* Stable LSD radix sort by key, 8 bits a pass, skipping passes where every
 * key shares the byte: linear, and ties keep index order. `tmp` holds n. */
static void radix_sort_ranked(ranked_value *items, ranked_value *tmp, size_t n)
{
    ranked_value *from = items, *to = tmp;
    for (int shift = 0; shift < 64; shift += 8) {
        size_t counts[257] = {0};
        for (size_t i = 0; i < n; i++)
            counts[((from[i].key >> shift) & 0xFFu) + 1]++;
        if (counts[((from[0].key >> shift) & 0xFFu) + 1] == n)
            continue;
        for (int d = 0; d < 256; d++)
            counts[d + 1] += counts[d];
        for (size_t i = 0; i < n; i++)
            to[counts[(from[i].key >> shift) & 0xFFu]++] = from[i];
        ranked_value *swap = from;
        from = to;
        to = swap;
    }
    if (from != items)
        memcpy(items, from, n * sizeof *items);
}

/* ------------------------------------ closed depressions and drainage */

#define NO_CELL METRICS_NO_CELL
/* A cell is on a channel when at least this many cells (itself included)
 * drain through it (docs/metrics.md, "Drainage network"). */
#define CHANNEL_MIN_CELLS 64u

/* The flood's queue. Levels only rise as the flood goes on (a cell is
 * queued at its own value or at the level of the cell it was queued from,
 * whichever is higher), and cells of one level leave it in the order they
 * were queued, so each level is visited breadth first from all its entry
 * cells at once, which the routing across flats relies on. A binary heap
 * keyed by (level, order queued) does this in O(n log n); here every level
 * the flood can reach is a value of the map, so the values are ranked once
 * (a radix sort) and each rank keeps a first-in, first-out list of its
 * cells: the same cells leave in the same order, in linear time. */
typedef struct {
    uint32_t *rank;  /* per cell: its value's rank among the distinct values */
    uint32_t *head;  /* per rank: the first queued cell, NO_CELL for none */
    uint32_t *tail;  /* per rank: the last queued cell */
    uint32_t *next;  /* per cell: the cell queued after it at its level */
    float *level;    /* per queued cell: its fill level */
    size_t ranks;
} flood_queue;

/* rank[k] for the counted cells: their values sorted (with their cells)
 * by order_key, so that equal levels, both zeros included, share a rank,
 * then ranks counted along the sorted keys. */
static int rank_levels(const metrics_grid *g, flood_queue *fq)
{
    size_t n = g->w * g->h, m = 0;
    for (size_t k = 0; k < n; k++)
        m += g->ok[k];
    fq->ranks = 0;
    if (m == 0)
        return 0;
    ranked_value *items = m <= SIZE_MAX / (2 * sizeof *items) ? malloc(2 * m * sizeof *items)
                                                               : NULL;
    if (!items)
        return -1;
    m = 0;
    for (size_t k = 0; k < n; k++)
        if (g->ok[k])
            items[m++] = (ranked_value){order_key((double)g->v[k]), k};
    radix_sort_ranked(items, items + m, m);
    size_t rank = 0;
    for (size_t i = 0; i < m; i++) {
        if (i > 0 && items[i].key != items[i - 1].key)
            rank++;
        fq->rank[items[i].index] = (uint32_t)rank;
    }
    fq->ranks = rank + 1;
    free(items);
    return 0;
}

static void queue_push(flood_queue *fq, uint32_t cell, uint32_t rank, float level)
{
    fq->level[cell] = level;
    fq->next[cell] = NO_CELL;
    if (fq->head[rank] == NO_CELL)
        fq->head[rank] = cell;
    else
        fq->next[fq->tail[rank]] = cell;
    fq->tail[rank] = cell;
}

/* The queue's arrays; the levels too unless they are a trace's. */
static void flood_queue_free(flood_queue *fq, bool own_level)
{
    free(fq->rank);
    free(fq->head);
    free(fq->tail);
    free(fq->next);
    if (own_level)
        free(fq->level);
}

/* The index of neighbour d of (x, y), false when it lies off the map. */
static bool neighbour_of(const metrics_grid *g, size_t x, size_t y, int d, size_t *q)
{
    if ((x == 0 && NEIGHBOUR_DX[d] < 0) || (x + 1 == g->w && NEIGHBOUR_DX[d] > 0) ||
        (y == 0 && NEIGHBOUR_DY[d] < 0) || (y + 1 == g->h && NEIGHBOUR_DY[d] > 0))
        return false;
    *q = (y + (size_t)(ptrdiff_t)NEIGHBOUR_DY[d]) * g->w + x + (size_t)(ptrdiff_t)NEIGHBOUR_DX[d];
    return true;
}

/* What a flood records for the routing, per cell (counted cells only). */
typedef struct {
    float *level;     /* filled level */
    uint32_t *parent; /* the cell it was queued from; NO_CELL for an outlet */
    uint32_t *depth;  /* 0 for a cell queued above its parent's level (or an
                       * outlet), else the parent's depth + 1: breadth-first
                       * steps across the flat of the filled surface */
    uint32_t *order;  /* the cells in the order they left the queue */
} flood_trace;

/* Priority flood (Barnes, Lehman & Mulla 2014), 8-connected: the outlets
 * are the counted cells on the map's border or next to a cell that does
 * not count (water leaves the known terrain there); from them, each cell
 * is raised to the lowest level at which it can drain out. Counts the
 * counted cells and those raised (in a closed depression); fills `trace`
 * unless it is NULL. */
static int priority_flood(const metrics_grid *g, flood_trace *trace, size_t *counted,
                          size_t *raised, tf_error *err)
{
    size_t w = g->w, h = g->h, n = w * h;
    /* the ranks first: the sort's buffers are gone before the lists come */
    flood_queue fq = {malloc(n * sizeof *fq.rank), NULL, NULL, NULL, NULL, 0};
    unsigned char *queued = NULL;
    if (fq.rank && rank_levels(g, &fq) == 0) {
        fq.head = malloc((fq.ranks ? fq.ranks : 1) * sizeof *fq.head);
        fq.tail = malloc((fq.ranks ? fq.ranks : 1) * sizeof *fq.tail);
        fq.next = malloc(n * sizeof *fq.next);
        fq.level = trace ? trace->level : malloc(n * sizeof *fq.level);
        queued = malloc(n);
    }
    if (!fq.head || !fq.tail || !fq.next || !fq.level || !queued) {
        flood_queue_free(&fq, !trace);
        free(queued);
        tf_error_set(err, TF_ERR_NOMEM, "out of memory for the depressions of %zux%zu",
                     w, h);
        return -1;
    }
    for (size_t r = 0; r < fq.ranks; r++)
        fq.head[r] = NO_CELL;
    *counted = *raised = 0;
    size_t popped = 0;
    /* a cell that does not count is marked as queued, so one load tells
     * whether a neighbour is still to queue; the neighbours of a cell not
     * on the map's border are at fixed offsets */
    ptrdiff_t offset[8];
    for (int d = 0; d < 8; d++)
        offset[d] = (ptrdiff_t)NEIGHBOUR_DY[d] * (ptrdiff_t)w + NEIGHBOUR_DX[d];
    for (size_t k = 0; k < n; k++)
        queued[k] = !g->ok[k];
    for (size_t y = 0; y < h; y++) {
        for (size_t x = 0; x < w; x++) {
            size_t k = y * w + x;
            if (!g->ok[k])
                continue;
            (*counted)++;
            /* a cell on the border is an outlet: a neighbour is off the map */
            bool outlet = !(x > 0 && y > 0 && x + 1 < w && y + 1 < h);
            for (int d = 0; d < 8 && !outlet; d++)
                outlet = !g->ok[k + (size_t)offset[d]];
            if (outlet) {
                queued[k] = 1;
                queue_push(&fq, (uint32_t)k, fq.rank[k], g->v[k]);
                if (trace) {
                    trace->parent[k] = NO_CELL;
                    trace->depth[k] = 0;
                }
            }
        }
    }
    /* the levels in rising order, each until its list is empty (cells
     * queued at the current level join its list's end) */
    for (size_t r = 0; r < fq.ranks; r++) {
        for (uint32_t c = fq.head[r]; c != NO_CELL; c = fq.next[c]) {
            float c_level = fq.level[c];
            if (trace)
                trace->order[popped] = c;
            popped++;
            size_t x = c % w, y = c / w;
            bool inside = x > 0 && y > 0 && x + 1 < w && y + 1 < h;
            for (int d = 0; d < 8; d++) {
                size_t q = c + (size_t)offset[d];
                if (!inside && !neighbour_of(g, x, y, d, &q))
                    continue;
                if (queued[q]) /* queued, or not counted */
                    continue;
                queued[q] = 1;
                float level = g->v[q];
                uint32_t rank = fq.rank[q];
                bool flat = c_level >= level;
                if (c_level > level) {
                    level = c_level;
                    rank = (uint32_t)r;
                    (*raised)++;
                }
                queue_push(&fq, (uint32_t)q, rank, level);
                if (trace) {
                    trace->parent[q] = c;
                    trace->depth[q] = flat ? trace->depth[c] + 1 : 0;
                }
            }
        }
    }
    flood_queue_free(&fq, !trace);
    free(queued);
    return 0;
}

int metrics_depression_share(const metrics_grid *g, double *out, tf_error *err)
{
    size_t counted, raised;
    if (priority_flood(g, NULL, &counted, &raised, err) != 0)
        return -1;
    *out = counted ? (double)raised / (double)counted : NAN;
    return 0;
}

/* The receiver of a cell that is no outlet, on the filled surface: the
 * neighbour of steepest descent, drop over distance (the D8 rule of
 * O'Callaghan & Mark 1984; the first in neighbour order on a tie); on a
 * flat (no lower neighbour), a neighbour of the same level one breadth-
 * first step nearer the flat's edge, a straight one before a diagonal one,
 * so a filled depression drains along the shortest path to its spill. */
static uint32_t receiver_of(const metrics_grid *g, const flood_trace *t, size_t k)
{
    static const double STEP[2] = {1.0, 1.4142135623730951};
    size_t w = g->w, x = k % w, y = k / w;
    bool inside = x > 0 && y > 0 && x + 1 < w && y + 1 < g->h;
    double best = 0.0;
    uint32_t steepest = NO_CELL, straight = NO_CELL, diagonal = NO_CELL;
    for (int d = 0; d < 8; d++) {
        size_t q = (y + (size_t)(ptrdiff_t)NEIGHBOUR_DY[d]) * w + x +
                   (size_t)(ptrdiff_t)NEIGHBOUR_DX[d];
        if ((!inside && !neighbour_of(g, x, y, d, &q)) || !g->ok[q])
            continue;
        bool is_diagonal = NEIGHBOUR_DX[d] != 0 && NEIGHBOUR_DY[d] != 0;
        double drop = (double)t->level[k] - (double)t->level[q];
        if (drop > 0.0) {
            double slope = drop / STEP[is_diagonal];
            if (slope > best) {
                best = slope;
                steepest = (uint32_t)q;
            }
        } else if (drop == 0.0 && t->depth[q] + 1 == t->depth[k]) {
            if (!is_diagonal && straight == NO_CELL)
                straight = (uint32_t)q;
            if (is_diagonal && diagonal == NO_CELL)
                diagonal = (uint32_t)q;
        }
    }
    if (steepest != NO_CELL)
        return steepest;
    if (straight != NO_CELL)
        return straight;
    /* The cell it was queued from is always one of these; kept as the
     * last resort all the same. */
    return diagonal != NO_CELL ? diagonal : t->parent[k];
}

/* One flood for the depressions and the drainage tree; then flow
 * accumulation (every cell 1, passed on to its receiver) over the cells in
 * reverse flood order, where every receiver comes before the cells that
 * drain into it: a steepest-descent receiver has a lower level, a flat's
 * one the same level and a smaller breadth-first depth. */
int metrics_flow_route(const metrics_grid *g, metrics_flow *f, tf_error *err)
{
    size_t w = g->w, h = g->h, n = w * h;
    memset(f, 0, sizeof *f);
    flood_trace t = {malloc(n * sizeof *t.level), malloc(n * sizeof *t.parent),
                     malloc(n * sizeof *t.depth), malloc(n * sizeof *t.order)};
    if (!t.level || !t.parent || !t.depth || !t.order) {
        free(t.level);
        free(t.parent);
        free(t.depth);
        free(t.order);
        tf_error_set(err, TF_ERR_NOMEM, "out of memory for the drainage of %zux%zu", w, h);
        return -1;
    }
    f->level = t.level;
    f->receiver = t.parent;
    f->accumulation = t.depth;
    f->order = t.order;
    if (priority_flood(g, &t, &f->counted, &f->raised, err) != 0) {
        metrics_flow_free(f);
        return -1;
    }
    /* Receivers replace the parents; a receiver only reads levels and
     * depths (and its own cell's parent), so the order of this pass does
     * not matter: row by row, where the neighbours' levels are near in
     * memory, not in the flood's order, where they are not. */
    for (size_t k = 0; k < n; k++)
        if (g->ok[k] && t.parent[k] != NO_CELL)
            t.parent[k] = receiver_of(g, &t, k);
    /* The depths are done with: they become the accumulations. */
    for (size_t i = 0; i < f->counted; i++)
        f->accumulation[t.order[i]] = 1;
    for (size_t i = f->counted; i-- > 0;) {
        size_t k = t.order[i];
        uint32_t r = f->receiver[k];
        if (r != NO_CELL)
            f->accumulation[r] += f->accumulation[k];
    }
    return 0;
}

void metrics_flow_free(metrics_flow *f)
{
    free(f->level);
    free(f->receiver);
    free(f->accumulation);
    free(f->order);
    memset(f, 0, sizeof *f);
}

/* The total flow path length is the sum over cells of the step to the
 * receiver times the cells whose paths take that step (the accumulation). */
int metrics_drainage(const metrics_grid *g, metrics_drainage_values *out, tf_error *err)
{
    size_t w = g->w;
    out->depression_share = out->channel_share = out->flow_path_length = NAN;
    metrics_flow f;
    if (metrics_flow_route(g, &f, err) != 0)
        return -1;
    size_t counted = f.counted;
    if (counted == 0) {
        metrics_flow_free(&f);
        return 0;
    }
    out->depression_share = (double)f.raised / (double)counted;
    uint64_t straight_steps = 0, diagonal_steps = 0;
    size_t channel = 0;
    for (size_t i = counted; i-- > 0;) {
        size_t k = f.order[i];
        uint32_t a = f.accumulation[k], r = f.receiver[k];
        channel += a >= CHANNEL_MIN_CELLS;
        if (r == NO_CELL)
            continue;
        if (r % w != k % w && r / w != k / w)
            diagonal_steps += a;
        else
            straight_steps += a;
    }
    double total = (double)straight_steps + 1.4142135623730951 * (double)diagonal_steps;
    out->channel_share = (double)channel / (double)counted;
    out->flow_path_length = total / (double)counted / sqrt((double)counted);
    metrics_flow_free(&f);
    return 0;
}

/* -------------------------------------------- normal-score correlations */

/* Wichura's AS241 (Applied Statistics 37(3), 1988), PPND16: rational
 * approximations in three ranges of p. */
static double poly7(const double c[8], double x)
{
    double v = c[7];
    for (int i = 6; i >= 0; i--)
        v = v * x + c[i];
    return v;
}

double tf_normal_quantile(double p)
{
    static const double a[8] = {3.3871328727963666080e0, 1.3314166789178437745e+2,
                                1.9715909503065514427e+3, 1.3731693765509461125e+4,
                                4.5921953931549871457e+4, 6.7265770927008700853e+4,
                                3.3430575583588128105e+4, 2.5090809287301226727e+3};
    static const double b[8] = {1.0,
                                4.2313330701600911252e+1, 6.8718700749205790830e+2,
                                5.3941960214247511077e+3, 2.1213794301586595867e+4,
                                3.9307895800092710610e+4, 2.8729085735721942674e+4,
                                5.2264952788528545610e+3};
    static const double c[8] = {1.42343711074968357734e0, 4.63033784615654529590e0,
                                5.76949722146069140550e0, 3.64784832476320460504e0,
                                1.27045825245236838258e0, 2.41780725177450611770e-1,
                                2.27238449892691845833e-2, 7.74545014278341407640e-4};
    static const double d[8] = {1.0,
                                2.05319162663775882187e0, 1.67638483018380384940e0,
                                6.89767334985100004550e-1, 1.48103976427480074590e-1,
                                1.51986665636164571966e-2, 5.47593808499534494600e-4,
                                1.05075007164441684324e-9};
    static const double e[8] = {6.65790464350110377720e0, 5.46378491116411436990e0,
                                1.78482653991729133580e0, 2.96560571828504891230e-1,
                                2.65321895265761230930e-2, 1.24266094738807843860e-3,
                                2.71155556874348757815e-5, 2.01033439929228813265e-7};
    static const double f[8] = {1.0,
                                5.99832206555887937690e-1, 1.36929880922735805310e-1,
                                1.48753612908506148525e-2, 7.86869131145613259100e-4,
                                1.84631831751005468180e-5, 1.42151175831644588870e-7,
                                2.04426310338993978564e-15};
    if (isnan(p) || p < 0.0 || p > 1.0)
        return NAN;
    if (p == 0.0)
        return -INFINITY;
    if (p == 1.0)
        return INFINITY;
    double q = p - 0.5;
    if (fabs(q) <= 0.425) {
        double r = 0.180625 - q * q;
        return q * poly7(a, r) / poly7(b, r);
    }
    double r = sqrt(-log(q < 0.0 ? p : 1.0 - p)), value;
    if (r <= 5.0)
        value = poly7(c, r - 1.6) / poly7(d, r - 1.6);
    else
        value = poly7(e, r - 5.0) / poly7(f, r - 5.0);
    return q < 0.0 ? -value : value;
}

/* score[i] = Phi^-1((rank_i - 0.5) / n), tied values sharing their mean
 * rank. `scratch` holds 2n ranked_value. Values must be finite. */
static void normal_scores(const double *x, size_t n, double *score, ranked_value *scratch)
{
    ranked_value *items = scratch;
    for (size_t i = 0; i < n; i++)
        items[i] = (ranked_value){order_key(x[i]), i};
    radix_sort_ranked(items, scratch + n, n);
    for (size_t i = 0; i < n;) {
        size_t j = i;
        while (j + 1 < n && items[j + 1].key == items[i].key)
            j++;
        /* 1-based ranks i+1 .. j+1; their mean is (i + j) / 2 + 1. */
        double rank = 0.5 * (double)(i + j) + 1.0;
        double z = tf_normal_quantile((rank - 0.5) / (double)n);
        for (size_t k = i; k <= j; k++)
            score[items[k].index] = z;
        i = j + 1;
    }
}

static double pearson(const double *x, const double *y, size_t n)
{
    double mx = 0.0, my = 0.0;
    for (size_t i = 0; i < n; i++) {
        mx += x[i];
        my += y[i];
    }
    mx /= (double)n;
    my /= (double)n;
    double sxx = 0.0, syy = 0.0, sxy = 0.0;
    for (size_t i = 0; i < n; i++) {
        sxx += (x[i] - mx) * (x[i] - mx);
        syy += (y[i] - my) * (y[i] - my);
        sxy += (x[i] - mx) * (y[i] - my);
    }
    if (!(sxx > 0.0) || !(syy > 0.0))
        return NAN;
    double r = sxy / sqrt(sxx * syy);
    return r > 1.0 ? 1.0 : r < -1.0 ? -1.0 : r;
}

double tf_normal_score_correlation(const double *x, const double *y, size_t n, tf_error *err)
{
    if (n < 3 || !x || !y)
        return NAN;
    for (size_t i = 0; i < n; i++)
        if (!isfinite(x[i]) || !isfinite(y[i]))
            return NAN;
    bool fits = n <= SIZE_MAX / (2 * sizeof(ranked_value));
    double *sx = fits ? malloc(n * sizeof *sx) : NULL, *sy = fits ? malloc(n * sizeof *sy) : NULL;
    ranked_value *scratch = fits ? malloc(2 * n * sizeof *scratch) : NULL;
    if (!sx || !sy || !scratch) {
        free(sx);
        free(sy);
        free(scratch);
        tf_error_set(err, TF_ERR_NOMEM, "out of memory ranking %zu values", n);
        return -2.0;
    }
    normal_scores(x, n, sx, scratch);
    normal_scores(y, n, sy, scratch);
    double r = pearson(sx, sy, n);
    free(sx);
    free(sy);
    free(scratch);
    return r;
}

/* out[k] = sum of f * ok over the (2r+1)^2 window at k, clipped to the map
 * (f NULL: the count of counted cells). Separable direct sums, not a
 * summed-area table: a table's differences of large totals would leave
 * rounding residue where the window is flat, and the sums of at most
 * (2r+1)^2 quantized values here are exact in double. */
static void box_sums(const metrics_grid *g, const float *f, size_t r, double *row_sums,
                     double *out)
{
    size_t w = g->w, h = g->h;
    for (size_t y = 0; y < h; y++) {
        for (size_t x = 0; x < w; x++) {
            size_t x0 = x > r ? x - r : 0, x1 = x + r < w ? x + r : w - 1;
            double sum = 0.0;
            for (size_t i = x0; i <= x1; i++) {
                size_t k = y * w + i;
                if (g->ok[k])
                    sum += f ? (double)f[k] : 1.0;
            }
            row_sums[y * w + x] = sum;
        }
    }
    for (size_t y = 0; y < h; y++) {
        size_t y0 = y > r ? y - r : 0, y1 = y + r < h ? y + r : h - 1;
        for (size_t x = 0; x < w; x++) {
            double sum = 0.0;
            for (size_t j = y0; j <= y1; j++)
                sum += row_sums[j * w + x];
            out[y * w + x] = sum;
        }
    }
}

/* Low-pass L = mean of the counted values in the (2r+1)^2 box; residual
 * e = v - L; roughness R = sqrt(mean of e^2 over the same box). Cells used:
 * counted, with a slope, at least r from the map's border (a full window).
 * The correlations are Pearson's of the normal scores. */
int metrics_relief_correlations(const metrics_grid *g, const float *slope,
                                const float *slope_weight, unsigned radius,
                                double *roughness_elevation, double *slope_elevation,
                                tf_error *err)
{
    size_t w = g->w, h = g->h, n = w * h, r = radius;
    *roughness_elevation = *slope_elevation = NAN;
    if (2 * r + 1 > w || 2 * r + 1 > h)
        return 0;
    size_t used = 0;
    for (size_t y = r; y < h - r; y++)
        for (size_t x = r; x < w - r; x++)
            used += slope_weight[y * w + x] > 0.0f;
    if (used < 3)
        return 0;

    double *count = malloc(n * sizeof *count), *sums = malloc(n * sizeof *sums);
    double *row_sums = malloc(n * sizeof *row_sums);
    float *residual2 = malloc(n * sizeof *residual2);
    double *low = malloc(used * sizeof *low), *rough = malloc(used * sizeof *rough),
           *steep = malloc(used * sizeof *steep);
    double *score_low = malloc(used * sizeof *score_low),
           *score_other = malloc(used * sizeof *score_other);
    ranked_value *scratch = malloc(2 * used * sizeof *scratch);
    int status = -1;
    if (!count || !sums || !row_sums || !residual2 || !low || !rough || !steep || !score_low ||
        !score_other || !scratch) {
        tf_error_set(err, TF_ERR_NOMEM, "out of memory for the roughness of %zux%zu",
                     w, h);
        goto done;
    }

    box_sums(g, NULL, r, row_sums, count);
    box_sums(g, g->v, r, row_sums, sums);
    size_t i = 0;
    for (size_t k = 0; k < n; k++) {
        residual2[k] = 0.0f;
        if (g->ok[k]) {
            double e = (double)g->v[k] - sums[k] / count[k];
            residual2[k] = (float)(e * e);
        }
    }
    for (size_t y = r; y < h - r; y++) {
        for (size_t x = r; x < w - r; x++) {
            size_t k = y * w + x;
            if (slope_weight[k] > 0.0f) {
                low[i] = sums[k] / count[k];
                steep[i] = slope[k];
                i++;
            }
        }
    }
    /* The value sums are no longer needed: reuse them for the residuals. */
    box_sums(g, residual2, r, row_sums, sums);
    i = 0;
    for (size_t y = r; y < h - r; y++)
        for (size_t x = r; x < w - r; x++)
            if (slope_weight[y * w + x] > 0.0f) {
                size_t k = y * w + x;
                rough[i++] = sqrt(sums[k] / count[k]);
            }

    normal_scores(low, used, score_low, scratch);
    normal_scores(rough, used, score_other, scratch);
    *roughness_elevation = pearson(score_low, score_other, used);
    normal_scores(steep, used, score_other, scratch);
    *slope_elevation = pearson(score_low, score_other, used);
    status = 0;
done:
    free(count);
    free(sums);
    free(row_sums);
    free(residual2);
    free(low);
    free(rough);
    free(steep);
    free(score_low);
    free(score_other);
    free(scratch);
    return status;
}
