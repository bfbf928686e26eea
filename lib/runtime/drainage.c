/*
 * The drainage stage (docs/spec.md, "Drainage", step 5b): a network of
 * valleys carved into the layers' sum. Each level is a jittered lattice of
 * nodes; a node links to its lowest neighbour, a finer node with none
 * joins the coarser network, and valley beds fall along every link, so
 * water on the carved surface runs down the network. Everything here is a
 * pure function of the point: a sample rebuilds the part of the network
 * that can reach it, a window rebuilds it once per tile, and both give the
 * same bits.
 */
#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "drainage.h"
#include "internal.h"

/* ---- compiling */

#if !defined(__STDC_NO_ATOMICS__)
#include <stdatomic.h>
static atomic_uint_fast64_t drainage_ids;
static uint64_t next_drainage_id(void)
{
    return (uint64_t)atomic_fetch_add(&drainage_ids, 1) + 1;
}
#else
static uint64_t next_drainage_id(void)
{
    return 0;
}
#endif

void tf_drainage_compile(tf_drainage *dr, const tf_spec *spec)
{
    const tf_drainage_spec *d = &spec->drainage;
    memset(dr, 0, sizeof *dr);
    dr->levels = d->levels;
    if (d->levels <= 0)
        return;
    dr->id = next_drainage_id();
    dr->seed = d->seed;
    dr->slope = d->slope;
    dr->jitter = d->jitter;
    dr->bend = d->bend;
    dr->breach = d->breach;
    dr->breach_nearest = d->breach_to == TF_BREACH_NEAREST;
    dr->breach_pass = d->breach_to == TF_BREACH_PASS;
    dr->inflow = d->inflow;
    dr->depth0 = d->depth;
    dr->inv_fade = 1.0 / (d->fade * d->depth);
    dr->fade_cut = d->fade_by == TF_FADE_CUT;
    dr->start_at_low = dr->fade_cut && isfinite(dr->inv_fade);
    dr->inv_slope = d->slope > 0.0 ? 1.0 / d->slope : INFINITY;
    const double sqrt2 = 1.4142135623730951;
    for (int k = 0; k < d->levels; k++) {
        double L = ldexp(d->spacing, -k);
        dr->L[k] = L;
        dr->inv_L[k] = 1.0 / L;
        dr->D[k] = ldexp(d->depth, -k);
        dr->R[k] = d->reach * L;
        dr->R2[k] = dr->R[k] * dr->R[k];
        dr->inv_R2[k] = 1.0 / dr->R2[k];
        dr->w[k] = d->floor_width * L;
        dr->w2[k] = dr->w[k] * dr->w[k];
        /* The farthest a link's polyline gets from its node: a neighbour
         * is at most (1 + J) cells away on each axis, a breach at level 0
         * (B + J), and a finer node joins the coarser network only within
         * that level's reach 2 * R_k; the bent midpoint stays within the
         * link's length of the node. Slightly enlarged: boxes only need to
         * be large enough. */
        double ext = sqrt2 * (1.0 + d->jitter) * L;
        if (k == 0 && d->breach > 1)
            ext = sqrt2 * (d->breach + d->jitter) * L;
        if (k > 0 && 2.0 * dr->R[k] > ext)
            ext = 2.0 * dr->R[k];
        dr->margin[k] = 1.01 * (ext + dr->R[k]);
        /* The layers of the control function: wavelength 1/f >= L_k. */
        uint64_t mask = 0;
        for (size_t i = 0; i < spec->layer_count; i++)
            if (spec->layers[i].frequency * L <= 1.0)
                mask |= (uint64_t)1 << i;
        dr->control[k] = mask;
    }
    uint64_t low = 0;
    for (size_t i = 0; i < spec->layer_count; i++)
        if (spec->layers[i].frequency * d->detail_wavelength <= 1.0)
            low |= (uint64_t)1 << i;
    dr->low = low;
}

/* ---- hashing and nodes */

/* Node (k, i, j)'s hash: the cell indices' low 32 bits, mixed in turn. */
static uint32_t node_hash(uint32_t seed, int k, int64_t i, int64_t j)
{
    uint32_t h = tf_mix32(seed + (uint32_t)k);
    h = tf_mix32(h ^ (uint32_t)(uint64_t)i);
    return tf_mix32(h ^ (uint32_t)(uint64_t)j);
}

static double unit_of(uint32_t h)
{
    return (double)h * 0x1p-32;
}

/* Node (k, i, j)'s jittered position (docs/spec.md, "Drainage", Nodes). */
static void node_position(const tf_drainage *dr, int k, int64_t i, int64_t j, double *x,
                          double *y)
{
    uint32_t h = node_hash(dr->seed, k, i, j);
    double u = unit_of(h), v = unit_of(tf_mix32(h + 1u)), J = dr->jitter, L = dr->L[k];
    *x = ((double)i + (0.5 + J * (u - 0.5))) * L;
    *y = ((double)j + (0.5 + J * (v - 0.5))) * L;
}


/* ---- the workspace: each level's nodes over a box */

typedef struct {
    double ax, ay, bx, by; /* the sub-segment's ends */
    double ba, bb;         /* the bed at each end */
    double x0, y0, x1, y1; /* the box of its reach */
    double lo;             /* below every cone it gives (rows of a tile) */
} dseg;

/* What row_walk needs of a row list's entry that is the same on every
 * row of a tile: its ends' box, the part of its drop's eps that is not
 * the row's y, and the groups of the tile's points its reach box may
 * hold in x. Only the entries whose reach box meets the tile's points in
 * x get one, in the list's order: a row list is made for the columns of
 * the box its layout was laid out for, which a window's layout makes
 * wider than the tile (window_box). */
typedef struct {
    double sx0, sx1, sy0, sy1; /* the box of the sub-segment's ends */
    double size;               /* |xlo| + |xhi| + |sx0| + |sx1| + |sy0| + |sy1| */
    uint32_t g0, g1;           /* the groups from g0 to g1 */
    uint32_t item;             /* the sub-segment (2 slot + s) */
} drow;

/* Node state bits. */
enum { NODE_VALUE = 1, NODE_LINK = 2 };

typedef struct {
    /* value box: cells vi0 .. vi0+vnx-1, vj0 .. vj0+vny-1; a node's slot
     * is (j - vj0) * vnx + (i - vi0) */
    int64_t vi0, vj0;
    size_t vnx, vny;
    /* node box, inside the value box: the nodes whose links may be needed */
    int64_t ni0, nj0;
    size_t nnx, nny;
    unsigned char *state; /* NODE_VALUE, NODE_LINK */
    double *px, *py, *val, *bed; /* per slot */
    double *qx, *qy, *qbed;      /* the coarser network's nearest point (finer levels) */
    unsigned char *qok;
    unsigned char *nseg; /* 0 (a sink) or 2 sub-segments at seg[2 slot] */
    dseg *seg;
    /* windows: bins of one cell over the node box, each listing the
     * sub-segments (2 slot + s) whose reach overlaps it, in slot order. A
     * bin's index is floor((v - bx0) * (1 / L)) for the reach box's ends
     * and for the queries alike: rounding is monotonic, so a point inside
     * a reach box lands in a bin that lists it, however the product
     * rounds, and the extra bin on each side of a need box (cell_range)
     * keeps a query inside the bins (a multiply, not a division: binning
     * divided four times a sub-segment in each of its passes) */
    double bx0, by0;
    size_t bnx, bny;
    uint32_t *bin_start; /* bnx * bny + 1 */
    uint32_t *bin_items;
    /* beside each entry of the bin lists, its sub-segment's reach box and
     * lo, for pick_run8 (read in a row, eight a vector); a bin's are
     * copied from its sub-segments when it is first queried (bin_entries,
     * bin_ready): many bins of a layout never are. NULL: not kept. */
    double *ex0, *ex1, *ey0, *ey1, *elo;
    unsigned char *bin_ready;
    /* and for the rows of a tile, each row of bins (bny + 1 starts) with
     * the sub-segments whose reach overlaps it in y, in slot order */
    uint32_t *row_start;
    uint32_t *row_items;
    /* beside each entry of the row lists, its drow, made by the first of
     * the tile's rows in its row of bins (row_ready) */
    drow *row_pre;
    uint32_t *row_hits; /* bny: how many drow a row of bins has */
    unsigned char *row_ready;
    int binned;
} dlevel;

/* One layout of the levels: their arrays over a box, and the bins. */
typedef struct {
    size_t capacity; /* bytes in block */
    unsigned char *block;
    uint32_t *items[TF_MAX_DRAINAGE_LEVELS]; /* each level's bin lists */
    size_t items_capacity[TF_MAX_DRAINAGE_LEVELS];
    double *entries[TF_MAX_DRAINAGE_LEVELS]; /* ex0 .. elo of the bin lists */
    size_t entries_capacity[TF_MAX_DRAINAGE_LEVELS];
    uint32_t *row_items[TF_MAX_DRAINAGE_LEVELS]; /* and its row lists */
    drow *row_pre[TF_MAX_DRAINAGE_LEVELS];        /* with their drow */
    size_t pre_capacity[TF_MAX_DRAINAGE_LEVELS];
    size_t row_capacity[TF_MAX_DRAINAGE_LEVELS];
    dlevel level[TF_MAX_DRAINAGE_LEVELS];
    /* The id of the stage whose single samples the levels were laid out
     * for (0: none, or laid out for a window): a later single sample of
     * that stage whose boxes lie inside them reuses every node and link
     * made so far. */
    uint64_t kept;
    unsigned hits; /* single samples that found their nodes here */
    /* Points known to be held (holds): the box laid out for, grown by
     * each point found held since. The points a layout holds are a box:
     * plan_levels' x ranges depend on x alone, its y ranges on y, and
     * each end of each range is nondecreasing in the point's coordinate,
     * so a point between two held ones is held. A point inside needs no
     * plan_levels (sixteen divisions); one outside is checked in full. */
    double held_x0, held_y0, held_x1, held_y1;
    /* The id of the stage whose nodes were made here (0: none), single
     * samples' or a window's: a new layout of that stage starts from the
     * node values and links they share (seed_level). */
    uint64_t made;
    /* The id of the stage whose window was laid out here (0: none) and
     * the box its levels were laid out, linked and binned for, with the
     * row lists over its columns: a later window's tile inside that box
     * finds everything made (window_layout). */
    uint64_t window;
    double wx0, wy0, wx1, wy1;
} dlayout;

/* Single samples keep this many layouts besides the current one: queries
 * that come back to a place (the next row of a scan, a player's
 * surroundings) find it still built. */
#define SAMPLE_PARKED 7

struct tf_drainage_work {
    dlayout cur;
    dlayout parked[SAMPLE_PARKED]; /* the most recently left first */
    const tf_terrain *t;
    const tf_drainage *dr;
    double *rows; /* tf_drainage_work_rows */
    size_t rows_capacity;
    struct dpoint *order; /* tf_drainage_points' points by square */
    size_t order_capacity;
};

/* Scratch array *p of *capacity elements of `size` bytes made to hold
 * `need`; its contents need not survive. One that must grow takes a
 * quarter more than asked: the boxes of a thread's tiles and samples
 * differ by a node or two, and an array grown to the exact size again and
 * again would touch new memory each time (a first touch of a page costs
 * microseconds on some virtual machines: docs/performance.md). Grown by
 * realloc, which can move a large block's pages instead of touching new
 * ones. Never NULL on success, even for `need` 0: the callers derive
 * pointers from it (p + 0 on a null pointer is undefined behaviour). -1
 * (the array as it was) when it cannot grow. */
static int grow_scratch(void **p, size_t *capacity, size_t need, size_t size)
{
    if (need <= *capacity && *p)
        return 0;
    size_t want = need <= SIZE_MAX / 5 * 4 ? need + need / 4 : need;
    if (want == 0)
        want = 1;
    if (want > SIZE_MAX / size)
        return -1;
    void *grown = realloc(*p, want * size);
    if (!grown)
        return -1;
    *p = grown;
    *capacity = want;
    return 0;
}

void tf_drainage_work_free(tf_drainage_work *w)
{
    if (!w)
        return;
    for (int m = 0; m <= SAMPLE_PARKED; m++) {
        dlayout *a = m == 0 ? &w->cur : &w->parked[m - 1];
        free(a->block);
        for (int k = 0; k < TF_MAX_DRAINAGE_LEVELS; k++) {
            free(a->items[k]);
            free(a->row_items[k]);
            free(a->row_pre[k]);
            free(a->entries[k]);
        }
    }
    free(w->rows);
    free(w->order);
    free(w);
}

double *tf_drainage_work_rows(tf_drainage_work *w, size_t count)
{
    void *rows = w->rows;
    int grown = grow_scratch(&rows, &w->rows_capacity, count, sizeof *w->rows);
    w->rows = rows;
    return grown == 0 ? w->rows : NULL;
}

tf_drainage_work *tf_drainage_work_new(void)
{
    return calloc(1, sizeof(tf_drainage_work));
}

/* ---- boxes */

typedef struct {
    double x0, y0, x1, y1;
} dbox;

/* floor(v) as an integer, for |v| < 2^62 (the lattice's indices stay
 * below 2^51: out_of_range): the truncation, one less where it rounded
 * up. floor itself is a library call on the baseline x86-64 target, and
 * binning takes four a sub-segment. */
static int64_t cell_floor(double v)
{
    int64_t c = (int64_t)v;
    return (double)c > v ? c - 1 : c;
}

/* The cells whose node may lie within `margin` of [lo, hi], at spacing L.
 * A node of cell i lies in [i L, (i + 1) L]; one more cell each side keeps
 * the bound safe from rounding. */
static void cell_range(double lo, double hi, double margin, double L, int64_t *c0, size_t *n)
{
    int64_t a = cell_floor((lo - margin) / L) - 1;
    int64_t b = cell_floor((hi + margin) / L) + 1;
    *c0 = a;
    *n = (size_t)(b - a + 1);
}

/* Every level's boxes for query box q (finest first: a coarser level must
 * also cover the finer levels' value boxes) into level[]; returns the
 * bytes needed. */
static size_t plan_levels(const tf_drainage *dr, dbox q, dlevel *level)
{
    size_t bytes = 0;
    dbox need = q;
    for (int k = dr->levels - 1; k >= 0; k--) {
        dlevel *lv = &level[k];
        double L = dr->L[k];
        cell_range(need.x0, need.x1, dr->margin[k], L, &lv->ni0, &lv->nnx);
        cell_range(need.y0, need.y1, dr->margin[k], L, &lv->nj0, &lv->nny);
        int64_t ring = (k == 0 && dr->breach > 1) ? dr->breach : 1;
        if (k == 0 && dr->inflow > 0 && ring < 3)
            ring = 3; /* the first links into a neighbour's target: 3 cells */
        lv->vi0 = lv->ni0 - ring;
        lv->vj0 = lv->nj0 - ring;
        lv->vnx = lv->nnx + 2 * (size_t)ring;
        lv->vny = lv->nny + 2 * (size_t)ring;
        size_t nv = lv->vnx * lv->vny;
        /* bins: at most one per node cell (bin_level sets the grid) */
        bytes += nv * (7 * sizeof(double) + 3 + 2 * sizeof(dseg)) +
                 (lv->nnx * lv->nny + 1 + 2 * lv->nny + 1) * sizeof(uint32_t) + lv->nnx * lv->nny +
                 lv->nny + 16 * 8;
        need.x0 = (double)lv->vi0 * L;
        need.y0 = (double)lv->vj0 * L;
        need.x1 = (double)(lv->vi0 + (int64_t)lv->vnx) * L;
        need.y1 = (double)(lv->vj0 + (int64_t)lv->vny) * L;
    }
    return bytes;
}

static void *carve_bytes(unsigned char **p, size_t bytes)
{
    void *r = *p;
    *p += (bytes + 7) & ~(size_t)7;
    return r;
}

/* Level k of the current layout takes the node values and links made in
 * the parked layouts of the same stage wherever their boxes overlap: both
 * are functions of the lattice, not of the box they were made for (a
 * node's value reads the coarser cones over every node that can reach it,
 * in the lattice's tie order), so they are the bits the new layout would
 * make. Windows' tiles overlap their neighbours' by the levels' margins,
 * and a game's chunks each other's coarse levels. */
static void seed_level(tf_drainage_work *w, int k, uint64_t id)
{
    dlevel *d = &w->cur.level[k];
    for (int m = 0; m < SAMPLE_PARKED; m++) {
        if (w->parked[m].made != id)
            continue;
        const dlevel *s = &w->parked[m].level[k];
        int64_t i0 = d->vi0 > s->vi0 ? d->vi0 : s->vi0;
        int64_t j0 = d->vj0 > s->vj0 ? d->vj0 : s->vj0;
        int64_t di1 = d->vi0 + (int64_t)d->vnx, si1 = s->vi0 + (int64_t)s->vnx;
        int64_t dj1 = d->vj0 + (int64_t)d->vny, sj1 = s->vj0 + (int64_t)s->vny;
        int64_t i1 = di1 < si1 ? di1 : si1, j1 = dj1 < sj1 ? dj1 : sj1;
        for (int64_t j = j0; j < j1; j++) {
            size_t ds = (size_t)(j - d->vj0) * d->vnx + (size_t)(i0 - d->vi0);
            size_t ss = (size_t)(j - s->vj0) * s->vnx + (size_t)(i0 - s->vi0);
            for (int64_t i = i0; i < i1; i++, ds++, ss++) {
                unsigned char give = s->state[ss] & (unsigned char)~d->state[ds];
                if (give & NODE_VALUE) {
                    d->px[ds] = s->px[ss];
                    d->py[ds] = s->py[ss];
                    d->val[ds] = s->val[ss];
                    d->bed[ds] = s->bed[ss];
                    d->qok[ds] = s->qok[ss];
                    if (s->qok[ss]) {
                        d->qx[ds] = s->qx[ss];
                        d->qy[ds] = s->qy[ss];
                        d->qbed[ds] = s->qbed[ss];
                    }
                }
                if (give & NODE_LINK) {
                    d->nseg[ds] = s->nseg[ss];
                    for (int g = 0; g < s->nseg[ss]; g++)
                        d->seg[2 * ds + (size_t)g] = s->seg[2 * ss + (size_t)g];
                }
                d->state[ds] |= give;
            }
        }
    }
}

/* The current layout parked (the most recently left first) and the
 * storage of the one left longest ago made current. */
static void rotate(tf_drainage_work *w)
{
    dlayout spare = w->parked[SAMPLE_PARKED - 1];
    for (int m = SAMPLE_PARKED - 1; m > 0; m--)
        w->parked[m] = w->parked[m - 1];
    w->parked[0] = w->cur;
    w->cur = spare;
}

/* Lay out every level's arrays for query box q, all nodes unknown but
 * those the parked layouts of the stage made (seed_level). */
static int prepare(const tf_terrain *t, const tf_drainage *dr, dbox q, tf_drainage_work *w)
{
    w->cur.kept = 0;
    w->cur.made = 0;
    w->cur.window = 0;
    size_t bytes = plan_levels(dr, q, w->cur.level);
    void *block = w->cur.block;
    int grown = grow_scratch(&block, &w->cur.capacity, bytes, 1);
    w->cur.block = block;
    if (grown != 0)
        return -1;
    w->t = t;
    w->dr = dr;
    unsigned char *p = w->cur.block;
    for (int k = 0; k < dr->levels; k++) {
        dlevel *lv = &w->cur.level[k];
        size_t nv = lv->vnx * lv->vny;
        lv->px = carve_bytes(&p, nv * sizeof(double));
        lv->py = carve_bytes(&p, nv * sizeof(double));
        lv->val = carve_bytes(&p, nv * sizeof(double));
        lv->bed = carve_bytes(&p, nv * sizeof(double));
        lv->qx = carve_bytes(&p, nv * sizeof(double));
        lv->qy = carve_bytes(&p, nv * sizeof(double));
        lv->qbed = carve_bytes(&p, nv * sizeof(double));
        lv->seg = carve_bytes(&p, 2 * nv * sizeof(dseg));
        lv->state = carve_bytes(&p, nv);
        lv->qok = carve_bytes(&p, nv);
        lv->nseg = carve_bytes(&p, nv);
        lv->bin_start = carve_bytes(&p, (lv->nnx * lv->nny + 1) * sizeof(uint32_t));
        lv->row_start = carve_bytes(&p, (lv->nny + 1) * sizeof(uint32_t));
        lv->row_hits = carve_bytes(&p, lv->nny * sizeof(uint32_t));
        lv->bin_ready = carve_bytes(&p, lv->nnx * lv->nny);
        lv->row_ready = carve_bytes(&p, lv->nny);
        lv->binned = 0;
        memset(lv->state, 0, nv);
        if (dr->id != 0)
            seed_level(w, k, dr->id);
    }
    w->cur.made = dr->id;
    return 0;
}

/* ---- segments and cones */

/* The cone of one sub-segment at p (docs/spec.md, "Drainage", Cones),
 * +inf beyond the reach; the bed and the point at the nearest point. */
static inline double seg_cone(const tf_drainage *dr, int k, const dseg *s, double px,
                              double py, double *bed_out, double *qx_out, double *qy_out)
{
    /* outside the box of the reach around the segment: beyond it (the
     * exact test below would say so too; this only saves the work) */
    if (px < s->x0 || px > s->x1 || py < s->y0 || py > s->y1)
        return INFINITY;
    double dx = s->bx - s->ax, dy = s->by - s->ay;
    double l2 = dx * dx + dy * dy;
    double t = 0.0;
    if (l2 > 0.0) {
        t = ((px - s->ax) * dx + (py - s->ay) * dy) / l2;
        t = t < 0.0 ? 0.0 : t > 1.0 ? 1.0 : t;
    }
    double qx = s->ax + t * dx, qy = s->ay + t * dy;
    double ex = px - qx, ey = py - qy;
    double d2 = ex * ex + ey * ey;
    if (!(d2 < dr->R2[k]))
        return INFINITY;
    double s_ = 1.0 - d2 / dr->R2[k];
    double bed = s->ba + t * (s->bb - s->ba);
    double profile = sqrt(d2 + dr->w2[k]) - dr->w[k];
    *bed_out = bed;
    *qx_out = qx;
    *qy_out = qy;
    return bed + (dr->slope * profile) / s_;
}

static dseg make_seg(const tf_drainage *dr, int k, double ax, double ay, double bx, double by,
                     double ba, double bb)
{
    double R = dr->R[k];
    dseg g = {ax, ay, bx, by, ba, bb, 0, 0, 0, 0, 0};
    g.x0 = (ax < bx ? ax : bx) - R;
    g.x1 = (ax < bx ? bx : ax) + R;
    g.y0 = (ay < by ? ay : by) - R;
    g.y1 = (ay < by ? by : ay) + R;
    /* A cone is its bed, between ba and bb, plus slope profile / s with
     * profile >= 0 and 0 < s <= 1. In doubles the bed's interpolation can
     * land a few ulps below the lower end, and the profile an ulp of w
     * below 0 (only where d is next to nothing and s is 1); 2^-40 of their
     * sizes covers both with room. */
    g.lo = (ba < bb ? ba : bb) - 0x1p-40 * (fabs(ba) + fabs(bb) + dr->slope * dr->w[k]);
    return g;
}

/* The lowest of three candidates kept across sub-segments. */
typedef struct {
    double cone, bed, qx, qy;
} dbest;

static inline void consider(const tf_drainage *dr, int k, const dseg *s, double px, double py,
                            dbest *b)
{
    double bed = 0.0, qx = 0.0, qy = 0.0;
    double c = seg_cone(dr, k, s, px, py, &bed, &qx, &qy);
    if (c < b->cone)
        *b = (dbest){c, bed, qx, qy};
}

static void ensure_link(tf_drainage_work *w, int k, size_t slot);

/* A bin's list is taken in runs of this many sub-segments (level_cones). */
#define PICK_RUN 64

#if TF_HAVE_AVX2_PATH
#include <immintrin.h>

/* ---- one point's cones in vector lanes
 *
 * A single sample's bin, or a finer node's value, takes the cones at one
 * point of the sub-segments level_cones picked (their reach boxes hold
 * the point). Each lane computes one sub-segment's cone with seg_cone's
 * IEEE operations past its box test (a separate multiply and add, the
 * early returns as masks: +inf beyond the reach), four or eight at a
 * time, and keeps the bed and the nearest point it made on the way; the
 * lowest is then taken in list order, the first on a tie: the choice and
 * the bits of consider over the list. The divisions and the root are most
 * of a cone, and lanes run them side by side. The kernels mirror
 * row_kernel4 and row_kernel8 (one sub-segment at a row's points) with
 * the roles swapped: one point, a lane a sub-segment. */

/* A run's cones, beds and nearest points, lane e for pick[e]. */
typedef struct {
    _Alignas(64) double cone[PICK_RUN + 8];
    _Alignas(64) double bed[PICK_RUN + 8];
    _Alignas(64) double qx[PICK_RUN + 8];
    _Alignas(64) double qy[PICK_RUN + 8];
} dpicked;

__attribute__((target("avx2"))) static void point_cones4(const tf_drainage *dr, int k,
                                                         const dseg *seg,
                                                         const uint32_t *pick, uint32_t n,
                                                         double px, double py, dpicked *o)
{
    const __m256d zero = _mm256_setzero_pd(), one = _mm256_set1_pd(1.0);
    const __m256d inf = _mm256_set1_pd(INFINITY);
    const __m256d vx = _mm256_set1_pd(px), vy = _mm256_set1_pd(py);
    const __m256d R2 = _mm256_set1_pd(dr->R2[k]), w2 = _mm256_set1_pd(dr->w2[k]);
    const __m256d wk = _mm256_set1_pd(dr->w[k]), slope = _mm256_set1_pd(dr->slope);
    for (uint32_t e = 0; e < n; e += 4) {
        /* lanes past n repeat the last sub-segment; their cones are not read */
        const dseg *s0 = &seg[pick[e]];
        const dseg *s1 = &seg[pick[e + 1 < n ? e + 1 : n - 1]];
        const dseg *s2 = &seg[pick[e + 2 < n ? e + 2 : n - 1]];
        const dseg *s3 = &seg[pick[e + 3 < n ? e + 3 : n - 1]];
        __m256d ax = _mm256_set_pd(s3->ax, s2->ax, s1->ax, s0->ax);
        __m256d ay = _mm256_set_pd(s3->ay, s2->ay, s1->ay, s0->ay);
        __m256d bx = _mm256_set_pd(s3->bx, s2->bx, s1->bx, s0->bx);
        __m256d by = _mm256_set_pd(s3->by, s2->by, s1->by, s0->by);
        __m256d ba = _mm256_set_pd(s3->ba, s2->ba, s1->ba, s0->ba);
        __m256d bb = _mm256_set_pd(s3->bb, s2->bb, s1->bb, s0->bb);
        __m256d dx = _mm256_sub_pd(bx, ax), dy = _mm256_sub_pd(by, ay);
        __m256d l2 = _mm256_add_pd(_mm256_mul_pd(dx, dx), _mm256_mul_pd(dy, dy));
        __m256d along = _mm256_add_pd(_mm256_mul_pd(_mm256_sub_pd(vx, ax), dx),
                                      _mm256_mul_pd(_mm256_sub_pd(vy, ay), dy));
        __m256d t = _mm256_div_pd(along, l2);
        t = _mm256_blendv_pd(t, zero, _mm256_cmp_pd(t, zero, _CMP_LT_OQ));
        t = _mm256_blendv_pd(t, one, _mm256_cmp_pd(t, one, _CMP_GT_OQ));
        t = _mm256_and_pd(t, _mm256_cmp_pd(l2, zero, _CMP_GT_OQ)); /* 0 where l2 is not > 0 */
        __m256d qx = _mm256_add_pd(ax, _mm256_mul_pd(t, dx));
        __m256d qy = _mm256_add_pd(ay, _mm256_mul_pd(t, dy));
        __m256d ex = _mm256_sub_pd(vx, qx), ey = _mm256_sub_pd(vy, qy);
        __m256d d2 = _mm256_add_pd(_mm256_mul_pd(ex, ex), _mm256_mul_pd(ey, ey));
        __m256d reach = _mm256_cmp_pd(d2, R2, _CMP_LT_OQ);
        __m256d sc = _mm256_sub_pd(one, _mm256_div_pd(d2, R2));
        __m256d bed = _mm256_add_pd(ba, _mm256_mul_pd(t, _mm256_sub_pd(bb, ba)));
        __m256d profile = _mm256_sub_pd(_mm256_sqrt_pd(_mm256_add_pd(d2, w2)), wk);
        __m256d c = _mm256_add_pd(bed, _mm256_div_pd(_mm256_mul_pd(slope, profile), sc));
        _mm256_store_pd(o->cone + e, _mm256_blendv_pd(inf, c, reach));
        _mm256_store_pd(o->bed + e, bed);
        _mm256_store_pd(o->qx + e, qx);
        _mm256_store_pd(o->qy + e, qy);
    }
}

#if TF_HAVE_AVX512_PATH
/* point_cones4 with eight lanes (AVX-512F): masks in place of blends, the
 * sub-segments' fields gathered by their indices, read as a vector. */
__attribute__((target("avx512f,avx512dq"))) static void point_cones8(const tf_drainage *dr,
                                                                     int k, const dseg *seg,
                                                                     const uint32_t *pick,
                                                                     uint32_t n, double px,
                                                                     double py, dpicked *o)
{
    const __m512d zero = _mm512_setzero_pd(), one = _mm512_set1_pd(1.0);
    const __m512d inf = _mm512_set1_pd(INFINITY);
    const __m512d vx = _mm512_set1_pd(px), vy = _mm512_set1_pd(py);
    const __m512d R2 = _mm512_set1_pd(dr->R2[k]), w2 = _mm512_set1_pd(dr->w2[k]);
    const __m512d wk = _mm512_set1_pd(dr->w[k]), slope = _mm512_set1_pd(dr->slope);
    /* the fields' offsets in a dseg, in doubles, for the gathers */
    const __m512i step = _mm512_set1_epi64((long long)(sizeof(dseg) / sizeof(double)));
    const double *f = (const double *)seg;
    for (uint32_t e = 0; e < n; e += 8) {
        /* lanes past n load nothing; their results are not read */
        __mmask8 valid = (__mmask8)(n - e >= 8 ? 0xFFu : (1u << (n - e)) - 1u);
        __m512i p32 = _mm512_maskz_loadu_epi32((__mmask16)valid, pick + e);
        __m512i base = _mm512_mullo_epi64(_mm512_cvtepu32_epi64(_mm512_castsi512_si256(p32)),
                                          step);
#define GATHER(field)                                                                          \
    _mm512_mask_i64gather_pd(zero, valid, base, f + offsetof(dseg, field) / sizeof(double), 8)
        __m512d ax = GATHER(ax), ay = GATHER(ay), bx = GATHER(bx);
        __m512d by = GATHER(by), ba = GATHER(ba), bb = GATHER(bb);
#undef GATHER
        __m512d dx = _mm512_sub_pd(bx, ax), dy = _mm512_sub_pd(by, ay);
        __m512d l2 = _mm512_add_pd(_mm512_mul_pd(dx, dx), _mm512_mul_pd(dy, dy));
        __m512d along = _mm512_add_pd(_mm512_mul_pd(_mm512_sub_pd(vx, ax), dx),
                                      _mm512_mul_pd(_mm512_sub_pd(vy, ay), dy));
        __m512d t = _mm512_div_pd(along, l2);
        t = _mm512_mask_blend_pd(_mm512_cmp_pd_mask(t, zero, _CMP_LT_OQ), t, zero);
        t = _mm512_mask_blend_pd(_mm512_cmp_pd_mask(t, one, _CMP_GT_OQ), t, one);
        t = _mm512_maskz_mov_pd(_mm512_cmp_pd_mask(l2, zero, _CMP_GT_OQ), t);
        __m512d qx = _mm512_add_pd(ax, _mm512_mul_pd(t, dx));
        __m512d qy = _mm512_add_pd(ay, _mm512_mul_pd(t, dy));
        __m512d ex = _mm512_sub_pd(vx, qx), ey = _mm512_sub_pd(vy, qy);
        __m512d d2 = _mm512_add_pd(_mm512_mul_pd(ex, ex), _mm512_mul_pd(ey, ey));
        __mmask8 reach = _mm512_cmp_pd_mask(d2, R2, _CMP_LT_OQ);
        __m512d sc = _mm512_sub_pd(one, _mm512_div_pd(d2, R2));
        __m512d bed = _mm512_add_pd(ba, _mm512_mul_pd(t, _mm512_sub_pd(bb, ba)));
        __m512d profile = _mm512_sub_pd(_mm512_sqrt_pd(_mm512_add_pd(d2, w2)), wk);
        __m512d c = _mm512_add_pd(bed, _mm512_div_pd(_mm512_mul_pd(slope, profile), sc));
        _mm512_store_pd(o->cone + e, _mm512_mask_blend_pd(reach, inf, c));
        _mm512_store_pd(o->bed + e, bed);
        _mm512_store_pd(o->qx + e, qx);
        _mm512_store_pd(o->qy + e, qy);
    }
}
#endif

#if TF_HAVE_AVX512_PATH
/* level_cones' pick over a bin's entries e0 .. e0 + m, eight a vector:
 * the items whose reach box holds p and whose bound is below best, in
 * list order, into pick; returns how many.
 *
 * The bound is below every cone the sub-segment gives at p (seg_cone's,
 * in doubles). It comes from the box of the sub-segment's ends, taken as
 * the reach box less R, each side moved toward p by 2^-40 of the
 * coordinates' size (far more than the roundings of that box, of the
 * nearest point q and of its distance). So the distance to the box is at
 * most seg_cone's |p - q|, and the same operations on smaller operands
 * round to no more: the root, the profile, the slope's product, which
 * seg_cone's s (0 < s <= 1) only divides into something larger, then the
 * bed, which is at least lo. Where that product is not above 0, the
 * bound is lo. A sub-segment whose bound is not below the lowest cone so
 * far can neither be chosen nor tie it, so the choice is the scalar
 * loop's, which tests lo instead: the root pays for itself eight lanes
 * at a time, not one pick at a time (docs/performance.md). */
__attribute__((target("avx512f,avx512dq"))) static uint32_t
pick_run8(const tf_drainage *dr, int k, const dlevel *lv, uint32_t e0, uint32_t m, double px,
          double py, double best, uint32_t *pick)
{
    const __m512d vx = _mm512_set1_pd(px), vy = _mm512_set1_pd(py);
    const __m512d vbest = _mm512_set1_pd(best), zero = _mm512_setzero_pd();
    const __m512d R = _mm512_set1_pd(dr->R[k]), wk = _mm512_set1_pd(dr->w[k]);
    const __m512d w2 = _mm512_set1_pd(dr->w2[k]), slope = _mm512_set1_pd(dr->slope);
    const __m512d tiny = _mm512_set1_pd(0x1p-40), pabs = _mm512_set1_pd(fabs(px) + fabs(py));
    uint32_t n = 0;
    for (uint32_t e = 0; e < m; e += 8) {
        uint32_t at = e0 + e;
        __mmask8 valid = (__mmask8)(m - e >= 8 ? 0xFFu : (1u << (m - e)) - 1u);
        __m512d x0 = _mm512_maskz_loadu_pd(valid, lv->ex0 + at);
        __m512d x1 = _mm512_maskz_loadu_pd(valid, lv->ex1 + at);
        __m512d y0 = _mm512_maskz_loadu_pd(valid, lv->ey0 + at);
        __m512d y1 = _mm512_maskz_loadu_pd(valid, lv->ey1 + at);
        __m512d lo = _mm512_maskz_loadu_pd(valid, lv->elo + at);
        __mmask8 in = valid;
        in &= _mm512_cmp_pd_mask(vx, x0, _CMP_GE_OQ);
        in &= _mm512_cmp_pd_mask(vx, x1, _CMP_LE_OQ);
        in &= _mm512_cmp_pd_mask(vy, y0, _CMP_GE_OQ);
        in &= _mm512_cmp_pd_mask(vy, y1, _CMP_LE_OQ);
        /* the bound */
        __m512d size =
            _mm512_add_pd(_mm512_add_pd(_mm512_abs_pd(x0), _mm512_abs_pd(x1)),
                          _mm512_add_pd(_mm512_abs_pd(y0), _mm512_abs_pd(y1)));
        __m512d eps = _mm512_mul_pd(_mm512_add_pd(size, pabs), tiny);
        __m512d gx = _mm512_max_pd(_mm512_sub_pd(_mm512_add_pd(x0, R), vx),
                                   _mm512_sub_pd(vx, _mm512_sub_pd(x1, R)));
        __m512d gy = _mm512_max_pd(_mm512_sub_pd(_mm512_add_pd(y0, R), vy),
                                   _mm512_sub_pd(vy, _mm512_sub_pd(y1, R)));
        gx = _mm512_max_pd(_mm512_sub_pd(gx, eps), zero);
        gy = _mm512_max_pd(_mm512_sub_pd(gy, eps), zero);
        __m512d d2 = _mm512_add_pd(_mm512_mul_pd(gx, gx), _mm512_mul_pd(gy, gy));
        __m512d rise = _mm512_mul_pd(
            slope, _mm512_sub_pd(_mm512_sqrt_pd(_mm512_add_pd(d2, w2)), wk));
        __m512d bound = _mm512_mask_add_pd(lo, _mm512_cmp_pd_mask(rise, zero, _CMP_GT_OQ), lo,
                                           rise);
        in &= _mm512_cmp_pd_mask(bound, vbest, _CMP_LT_OQ);
        __m512i items = _mm512_maskz_loadu_epi32((__mmask16)valid, lv->bin_items + at);
        /* compressed in a register, then a masked store of the kept
         * lanes: a compress with a memory destination is microcoded on
         * some cores (Zen 4: docs/performance.md) */
        int kept = __builtin_popcount(in);
        _mm512_mask_storeu_epi32(pick + n, (__mmask16)((1u << kept) - 1u),
                                 _mm512_maskz_compress_epi32((__mmask16)in, items));
        n += (uint32_t)kept;
    }
    return n;
}
#endif

/* consider over pick[0 .. n) (n <= PICK_RUN), the cones in lanes: the
 * first lowest below b's cone, with the bed and nearest point its lane
 * made (seg_cone's). */
static void picked_cones(tf_simd_level simd, const tf_drainage *dr, int k, const dseg *seg,
                         const uint32_t *pick, uint32_t n, double px, double py, dbest *b)
{
    dpicked o;
#if TF_HAVE_AVX512_PATH
    if (simd >= TF_SIMD_AVX512)
        point_cones8(dr, k, seg, pick, n, px, py, &o);
    else
#endif
        point_cones4(dr, k, seg, pick, n, px, py, &o);
    (void)simd;
    uint32_t first = n;
    double low = b->cone;
    for (uint32_t e = 0; e < n; e++)
        if (o.cone[e] < low) {
            low = o.cone[e];
            first = e;
        }
    if (first < n)
        *b = (dbest){o.cone[first], o.bed[first], o.qx[first], o.qy[first]};
}
#endif

/* A run of m entries of a bin's list from e0: the sub-segments whose
 * reach box holds p and whose lo is below best, in list order, into pick
 * (branch-free: the test is no better than a coin); returns how many. A
 * sub-segment left out would give +inf or a cone not below best. Where
 * the layout keeps the bin's entries, pick_run8 does it eight entries a
 * vector, with a tighter bound than lo. */
static uint32_t pick_run(const tf_drainage *dr, int k, const dlevel *lv, uint32_t e0,
                         uint32_t m, double px, double py, double best, uint32_t *pick)
{
#if TF_HAVE_AVX512_PATH
    if (lv->ex0)
        return pick_run8(dr, k, lv, e0, m, px, py, best, pick);
#endif
    (void)dr, (void)k;
    uint32_t n = 0;
    for (uint32_t e = e0; e < e0 + m; e++) {
        uint32_t item = lv->bin_items[e];
        const dseg *s = &lv->seg[item];
        int in = (px >= s->x0) & (px <= s->x1) & (py >= s->y0) & (py <= s->y1) &
                 (s->lo < best);
        pick[n] = item;
        n += (uint32_t)in;
    }
    return n;
}

/* Bin c's entries (dlevel.ex0 ..) copied from its sub-segments, the first
 * time it is queried. */
static void bin_entries(dlevel *lv, size_t c)
{
    if (!lv->ex0 || lv->bin_ready[c])
        return;
    for (uint32_t at = lv->bin_start[c]; at < lv->bin_start[c + 1]; at++) {
        const dseg *g = &lv->seg[lv->bin_items[at]];
        lv->ex0[at] = g->x0;
        lv->ex1[at] = g->x1;
        lv->ey0[at] = g->y0;
        lv->ey1[at] = g->y1;
        lv->elo[at] = g->lo;
    }
    lv->bin_ready[c] = 1;
}

/* Level k's cones at p over the nodes the level was laid out for, in slot
 * order: from the bins when the level is binned (a window), else node by
 * node, making links on demand (a single sample). */
static void level_cones(tf_drainage_work *w, int k, double px, double py, dbest *b)
{
    const tf_drainage *dr = w->dr;
    dlevel *lv = &w->cur.level[k];
    double L = dr->L[k];
    if (lv->binned) {
        double iL = dr->inv_L[k];
        int64_t bi = cell_floor((px - lv->bx0) * iL), bj = cell_floor((py - lv->by0) * iL);
        if (bi < 0 || bj < 0 || (size_t)bi >= lv->bnx || (size_t)bj >= lv->bny)
            return; /* no node of this level's box reaches there */
        size_t c = (size_t)bj * lv->bnx + (size_t)bi;
        /* Two passes over each run of the bin's list: the sub-segments
         * whose reach box holds p and whose lower bed is below the lowest
         * cone at the run's start (pick_run8: whose bound is), picked
         * without branches (about half of them: a branch no better than a
         * coin), then their cones in list order. A sub-segment left out would have given +inf or a cone
         * not below the lowest so far, so the choice is consider's over
         * the whole list. */
        uint32_t pick[PICK_RUN];
        bin_entries(lv, c);
        for (uint32_t e0 = lv->bin_start[c]; e0 < lv->bin_start[c + 1]; e0 += PICK_RUN) {
            uint32_t m = lv->bin_start[c + 1] - e0;
            m = m < PICK_RUN ? m : PICK_RUN;
            uint32_t n = pick_run(dr, k, lv, e0, m, px, py, b->cone, pick);
#if TF_HAVE_AVX2_PATH
            if (w->t->simd >= TF_SIMD_AVX2 && n > 1) {
                picked_cones(w->t->simd, dr, k, lv->seg, pick, n, px, py, b);
                continue;
            }
#endif
            for (uint32_t e = 0; e < n; e++)
                consider(dr, k, &lv->seg[pick[e]], px, py, b);
        }
        return;
    }
    int64_t i0, j0;
    size_t ni, nj;
    cell_range(px, px, dr->margin[k], L, &i0, &ni);
    cell_range(py, py, dr->margin[k], L, &j0, &nj);
    if (i0 < lv->ni0)
        ni -= (size_t)(lv->ni0 - i0), i0 = lv->ni0;
    if (j0 < lv->nj0)
        nj -= (size_t)(lv->nj0 - j0), j0 = lv->nj0;
    if (i0 + (int64_t)ni > lv->ni0 + (int64_t)lv->nnx)
        ni = (size_t)(lv->ni0 + (int64_t)lv->nnx - i0);
    if (j0 + (int64_t)nj > lv->nj0 + (int64_t)lv->nny)
        nj = (size_t)(lv->nj0 + (int64_t)lv->nny - j0);
    double m2 = dr->margin[k] * dr->margin[k];
    for (int64_t j = j0; j < j0 + (int64_t)nj; j++) {
        for (int64_t i = i0; i < i0 + (int64_t)ni; i++) {
            size_t slot = (size_t)(j - lv->vj0) * lv->vnx + (size_t)(i - lv->vi0);
            /* a node farther than its links' reach cannot give a cone
             * here: skip it before making its link */
            double nx, ny;
            node_position(dr, k, i, j, &nx, &ny);
            double ex = nx - px, ey = ny - py;
            if (!(ex * ex + ey * ey < m2))
                continue;
            ensure_link(w, k, slot);
            for (int s = 0; s < lv->nseg[slot]; s++)
                consider(dr, k, &lv->seg[2 * slot + (size_t)s], px, py, b);
        }
    }
}

/* The lowest cone of levels 0 .. k-1 at p below `start`: the first in
 * level, row, column, sub-segment order on a tie; cone `start` (bed
 * -inf) when none is lower, so with start +inf, +inf when none reaches
 * p. */
static dbest cones_below(tf_drainage_work *w, int k, double px, double py, double start)
{
    dbest b = {start, -INFINITY, px, py};
    for (int j = 0; j < k; j++)
        level_cones(w, j, px, py, &b);
    return b;
}

/* ---- nodes, on demand */

static void ensure_value(tf_drainage_work *w, int k, size_t slot)
{
    dlevel *lv = &w->cur.level[k];
    if (lv->state[slot] & NODE_VALUE)
        return;
    const tf_drainage *dr = w->dr;
    int64_t i = lv->vi0 + (int64_t)(slot % lv->vnx), j = lv->vj0 + (int64_t)(slot / lv->vnx);
    double x, y;
    node_position(dr, k, i, j, &x, &y);
    lv->px[slot] = x;
    lv->py[slot] = y;
    double c = tf_terrain_partial_sum(w->t, dr->control[k], x, y);
    double bed;
    lv->qok[slot] = 0;
    if (k > 0) {
        dbest b = cones_below(w, k, x, y, INFINITY);
        if (b.cone < c)
            c = b.cone;
        bed = c - dr->D[k];
        if (b.cone < INFINITY) {
            lv->qok[slot] = 1;
            lv->qx[slot] = b.qx;
            lv->qy[slot] = b.qy;
            lv->qbed[slot] = b.bed;
            if (b.bed > bed)
                bed = b.bed;
        }
    } else {
        bed = c - dr->D[k];
    }
    lv->val[slot] = c;
    lv->bed[slot] = bed;
    lv->state[slot] |= NODE_VALUE;
}

/* Link a -> b (beds ba >= bb) as its two sub-segments through (mx, my),
 * at seg[2 slot], the bed halfway down at (mx, my). */
static void set_link_through(const tf_drainage *dr, int k, dlevel *lv, size_t slot, double mx,
                             double my, double bx, double by, double bb)
{
    double ax = lv->px[slot], ay = lv->py[slot], ba = lv->bed[slot];
    double bm = ba + 0.5 * (bb - ba);
    lv->seg[2 * slot] = make_seg(dr, k, ax, ay, mx, my, ba, bm);
    lv->seg[2 * slot + 1] = make_seg(dr, k, mx, my, bx, by, bm, bb);
    lv->nseg[slot] = 2;
}

/* Link a -> b through the bent midpoint. */
static void set_link(const tf_drainage *dr, int k, dlevel *lv, size_t slot, uint32_t h,
                     double bx, double by, double bb)
{
    double ax = lv->px[slot], ay = lv->py[slot];
    double f = dr->bend * (2.0 * unit_of(tf_mix32(h + 2u)) - 1.0);
    double dx = bx - ax, dy = by - ay;
    double mx = (ax + 0.5 * dx) - f * dy, my = (ay + 0.5 * dy) + f * dx;
    set_link_through(dr, k, lv, slot, mx, my, bx, by, bb);
}

/* Node (cb + dj, ca + di) as a link target: the lowest value so far,
 * strictly lower, wins. Returns the node's slot. */
static size_t consider_target(tf_drainage_work *w, int k, ptrdiff_t ca, ptrdiff_t cb, int di,
                              int dj, double *best, size_t *target)
{
    dlevel *lv = &w->cur.level[k];
    size_t m = (size_t)(cb + dj) * lv->vnx + (size_t)(ca + di);
    ensure_value(w, k, m);
    if (lv->val[m] < *best) {
        *best = lv->val[m];
        *target = m;
    }
    return m;
}

/* The rings r = r0 .. r1 around node (ca, cb) as link targets, each over
 * dj (outer) and di (inner) in -r .. r where max(|di|, |dj|) = r; with
 * `nearest`, no ring after the first that gives a target. */
static void consider_rings(tf_drainage_work *w, int k, ptrdiff_t ca, ptrdiff_t cb, int r0, int r1,
                           int nearest, double *best, size_t *target)
{
    for (int r = r0; r <= r1 && !(nearest && *target != SIZE_MAX); r++)
        for (int dj = -r; dj <= r; dj++)
            for (int di = -r; di <= r; di++) {
                if (abs(di) == r || abs(dj) == r)
                    consider_target(w, k, ca, cb, di, dj, best, target);
            }
}

/* The slot of the first of node (ca, cb)'s lowest neighbours (the order
 * of Links, step 1) with a value below `best`, `skip` left out; SIZE_MAX
 * for none. */
static size_t lowest_neighbour(tf_drainage_work *w, int k, ptrdiff_t ca, ptrdiff_t cb,
                               double best, size_t skip)
{
    const dlevel *lv = &w->cur.level[k];
    size_t target = SIZE_MAX;
    for (int dj = -1; dj <= 1; dj++)
        for (int di = -1; di <= 1; di++)
            if ((di || dj) && (size_t)(cb + dj) * lv->vnx + (size_t)(ca + di) != skip)
                consider_target(w, k, ca, cb, di, dj, &best, &target);
    return target;
}

/* Node (ca, cb)'s first choice (Links, step 1): its lowest neighbour lower
 * than it. */
static size_t first_choice(tf_drainage_work *w, int k, ptrdiff_t ca, ptrdiff_t cb)
{
    dlevel *lv = &w->cur.level[k];
    size_t slot = (size_t)cb * lv->vnx + (size_t)ca;
    ensure_value(w, k, slot);
    return lowest_neighbour(w, k, ca, cb, lv->val[slot], SIZE_MAX);
}

/* Links, step 1 with inflow M: node (ca, cb) of value v0 chose `target`
 * first; whether M of the target's other neighbours that chose it first
 * come before it (lower, or as low and earlier in the order dj outer, di
 * inner around the target). */
static int inflow_full(tf_drainage_work *w, int k, ptrdiff_t ca, ptrdiff_t cb, double v0,
                       size_t target)
{
    dlevel *lv = &w->cur.level[k];
    ptrdiff_t ta = (ptrdiff_t)(target % lv->vnx), tb = (ptrdiff_t)(target / lv->vnx);
    int odi = (int)(ca - ta), odj = (int)(cb - tb), before = 0;
    for (int dj = -1; dj <= 1; dj++)
        for (int di = -1; di <= 1; di++) {
            if (!(di || dj) || (di == odi && dj == odj))
                continue;
            size_t m = (size_t)(tb + dj) * lv->vnx + (size_t)(ta + di);
            ensure_value(w, k, m);
            int earlier = dj < odj || (dj == odj && di < odi);
            if (!(lv->val[m] < v0 || (lv->val[m] == v0 && earlier)))
                continue;
            if (first_choice(w, k, ta + di, tb + dj) == target && ++before >= w->dr->inflow)
                return 1;
        }
    return 0;
}

/* docs/spec.md, "Drainage", Links: node `slot` (inside the node box). */
static void ensure_link(tf_drainage_work *w, int k, size_t slot)
{
    dlevel *lv = &w->cur.level[k];
    if (lv->state[slot] & NODE_LINK)
        return;
    const tf_drainage *dr = w->dr;
    ensure_value(w, k, slot);
    lv->nseg[slot] = 0;
    ptrdiff_t ca = (ptrdiff_t)(slot % lv->vnx), cb = (ptrdiff_t)(slot / lv->vnx);
    double best = lv->val[slot], lowest = INFINITY;
    size_t target = SIZE_MAX, pass = SIZE_MAX; /* pass: the first lowest neighbour */
    for (int dj = -1; dj <= 1; dj++)
        for (int di = -1; di <= 1; di++) {
            if (!(di || dj))
                continue;
            size_t m = consider_target(w, k, ca, cb, di, dj, &best, &target);
            if (lv->val[m] < lowest) {
                lowest = lv->val[m];
                pass = m;
            }
        }
    if (target != SIZE_MAX && k == 0 && dr->inflow > 0 &&
        inflow_full(w, k, ca, cb, lv->val[slot], target)) {
        /* its second choice: the first of its lowest lower neighbours
         * but the full one, if any */
        size_t other = lowest_neighbour(w, k, ca, cb, lv->val[slot], target);
        if (other != SIZE_MAX)
            target = other;
    }
    int64_t i = lv->vi0 + (int64_t)ca, j = lv->vj0 + (int64_t)cb;
    uint32_t h = node_hash(dr->seed, k, i, j);
    int via_pass = 0;
    if (target == SIZE_MAX && k > 0 && lv->qok[slot]) {
        double ex = lv->qx[slot] - lv->px[slot], ey = lv->qy[slot] - lv->py[slot];
        if (ex * ex + ey * ey < 4.0 * dr->R2[k]) {
            double bq = lv->qbed[slot] < lv->bed[slot] ? lv->qbed[slot] : lv->bed[slot];
            set_link(dr, k, lv, slot, h, lv->qx[slot], lv->qy[slot], bq);
        }
    } else if (target == SIZE_MAX && k == 0 && dr->breach > 1 && dr->breach_pass) {
        /* "pass": over the first lowest neighbour (where a lake in the
         * sink's basin would spill) to the lowest node lower than the sink
         * in the nearest ring around it, r = 1 .. B - 1, that holds one */
        if (pass != SIZE_MAX)
            consider_rings(w, k, (ptrdiff_t)(pass % lv->vnx), (ptrdiff_t)(pass / lv->vnx), 1,
                           dr->breach - 1, 1, &best, &target);
        via_pass = 1;
    } else if (target == SIZE_MAX && k == 0 && dr->breach > 1) {
        /* "lowest": every ring; "nearest": up to the first ring that
         * holds a lower node */
        consider_rings(w, k, ca, cb, 2, dr->breach, dr->breach_nearest, &best, &target);
    }
    if (target != SIZE_MAX) {
        double bt = lv->bed[target] < lv->bed[slot] ? lv->bed[target] : lv->bed[slot];
        if (via_pass)
            set_link_through(dr, k, lv, slot, lv->px[pass], lv->py[pass], lv->px[target],
                             lv->py[target], bt);
        else
            set_link(dr, k, lv, slot, h, lv->px[target], lv->py[target], bt);
    }
    lv->state[slot] |= NODE_LINK;
}

/* ---- windows: every link of a level made, then binned */

/* Lists in two passes: counts in start[1 .. n] made starts, and the item
 * array grown to hold them all (-1 when it cannot grow)... */
static int list_starts(uint32_t *start, size_t n, uint32_t **items, size_t *capacity)
{
    for (size_t c = 0; c < n; c++)
        start[c + 1] += start[c];
    void *p = *items;
    int grown = grow_scratch(&p, capacity, start[n], sizeof **items);
    *items = p;
    return grown;
}

/* ... and after the fill, which moved each start to the next list's, the
 * starts shifted back. */
static void list_unshift(uint32_t *start, size_t n)
{
    for (size_t c = n; c > 0; c--)
        start[c] = start[c - 1];
    start[0] = 0;
}

/* The range [*c0, *c0 + *n) clipped to [lo, lo + len). */
static void clip_range(int64_t *c0, size_t *n, int64_t lo, size_t len)
{
    int64_t a = *c0 > lo ? *c0 : lo, b = *c0 + (int64_t)*n, e = lo + (int64_t)len;
    b = b < e ? b : e;
    *c0 = a;
    *n = b > a ? (size_t)(b - a) : 0;
}

/* The nodes of level k's node box within the level's margin of box b:
 * columns [*a0, *a0 + *an), rows [*b0, *b0 + *bn). */
static void margin_nodes(const tf_drainage *dr, const dlevel *lv, int k, dbox b, int64_t *a0,
                         size_t *an, int64_t *b0, size_t *bn)
{
    cell_range(b.x0, b.x1, dr->margin[k], dr->L[k], a0, an);
    cell_range(b.y0, b.y1, dr->margin[k], dr->L[k], b0, bn);
    clip_range(a0, an, lv->ni0, lv->nnx);
    clip_range(b0, bn, lv->nj0, lv->nny);
}

/* One of bin_level's passes over the sub-segments of the value-box slots
 * rows b0 .. b0 + nb, columns a0 .. a0 + na (links made): counting each
 * list's entries (fill 0), then filling the lists (fill 1). Inlined once
 * for each, so neither pass tests which it is. */
__attribute__((always_inline)) static inline void
bin_pass(dlevel *lv, double iL, const dbox *rows, size_t b0, size_t nb, size_t a0, size_t na,
         int fill)
{
    uint32_t *bin_start = lv->bin_start, *row_start = lv->row_start;
    uint32_t *bin_items = lv->bin_items, *row_items = lv->row_items;
    const size_t bnx = lv->bnx, bny = lv->bny, vnx = lv->vnx;
    const double bx0 = lv->bx0, by0 = lv->by0;
    for (size_t b = b0; b < b0 + nb; b++) {
        for (size_t slot = b * vnx + a0; slot < b * vnx + a0 + na; slot++) {
            for (int s = 0; s < lv->nseg[slot]; s++) {
                const dseg *g = &lv->seg[2 * slot + (size_t)s];
                uint32_t item = (uint32_t)(2 * slot + (size_t)s);
                int64_t i0 = cell_floor((g->x0 - bx0) * iL);
                int64_t i1 = cell_floor((g->x1 - bx0) * iL);
                int64_t j0 = cell_floor((g->y0 - by0) * iL);
                int64_t j1 = cell_floor((g->y1 - by0) * iL);
                i0 = i0 < 0 ? 0 : i0;
                j0 = j0 < 0 ? 0 : j0;
                i1 = i1 >= (int64_t)bnx ? (int64_t)bnx - 1 : i1;
                j1 = j1 >= (int64_t)bny ? (int64_t)bny - 1 : j1;
                int in_rows = rows && i0 <= i1 && !(g->x1 < rows->x0 || g->x0 > rows->x1);
                for (int64_t bj = j0; in_rows && bj <= j1; bj++) {
                    if (!fill)
                        row_start[bj + 1]++;
                    else
                        row_items[row_start[bj]++] = item;
                }
                for (int64_t bj = j0; bj <= j1; bj++) {
                    uint32_t *start = bin_start + (size_t)bj * bnx;
                    for (int64_t bi = i0; bi <= i1; bi++) {
                        if (!fill)
                            start[bi + 1]++;
                        else
                            bin_items[start[bi]++] = item;
                    }
                }
            }
        }
    }
}

/* Level k's links made and binned; with `rows` (windows: their tile's
 * points, for row_walk) also the list of each row of bins, of the
 * sub-segments whose reach overlaps those points' columns (the others
 * reach none of them: row_walk would pass over them one row at a time,
 * and a coarse level's bins span its margins, many times a game's
 * chunk). With `need` (need_boxes), only the part
 * of the node box that can reach it: the bins over its cells (one more
 * each side, for rounding) and the nodes within the level's margin of it.
 * Every query of a layout's level falls in its need box (the box's points,
 * and the finer levels' nodes whose values are still to make), so the
 * cones are those of the whole box; a seeded layout then skips the coarse
 * levels' wide margins. With `entries`, room for the bins' entries
 * (dlevel.ex0 ..) for the eight-lane pick of the AVX-512 path: a padded
 * single-sample layout, whose bins the queries of a row come back to. A
 * window's bins serve only its finer nodes' values, and a layout for one
 * point's box one query: too few a bin to pay for the copies (single
 * samples in no order were 5% slower with them). */
static int bin_level(tf_drainage_work *w, int k, const dbox *rows, const dbox *need,
                     int entries)
{
    const tf_drainage *dr = w->dr;
    dlevel *lv = &w->cur.level[k];
    double L = dr->L[k], iL = dr->inv_L[k];
    int64_t ring = lv->ni0 - lv->vi0;
    int64_t na = lv->ni0, nb_ = lv->nj0;
    size_t nna = lv->nnx, nnb = lv->nny;
    if (need) {
        margin_nodes(dr, lv, k, *need, &na, &nna, &nb_, &nnb);
        int64_t bi0, bj0;
        size_t bnx, bny;
        cell_range(need->x0, need->x1, 0.0, L, &bi0, &bnx);
        cell_range(need->y0, need->y1, 0.0, L, &bj0, &bny);
        clip_range(&bi0, &bnx, lv->ni0, lv->nnx);
        clip_range(&bj0, &bny, lv->nj0, lv->nny);
        lv->bx0 = (double)bi0 * L;
        lv->by0 = (double)bj0 * L;
        lv->bnx = bnx;
        lv->bny = bny;
    } else {
        lv->bx0 = (double)lv->ni0 * L;
        lv->by0 = (double)lv->nj0 * L;
        lv->bnx = lv->nnx;
        lv->bny = lv->nny;
    }
    size_t nb = lv->bnx * lv->bny;
    memset(lv->bin_start, 0, (nb + 1) * sizeof *lv->bin_start);
    memset(lv->row_start, 0, (lv->bny + 1) * sizeof *lv->row_start);
    memset(lv->bin_ready, 0, nb);
    memset(lv->row_ready, 0, lv->bny);
    size_t b0 = (size_t)(nb_ - lv->nj0 + ring), a0 = (size_t)(na - lv->ni0 + ring);
    for (size_t b = b0; b < b0 + nnb; b++)
        for (size_t a = a0; a < a0 + nna; a++)
            ensure_link(w, k, b * lv->vnx + a);
    bin_pass(lv, iL, rows, b0, nnb, a0, nna, 0);
    if (list_starts(lv->bin_start, nb, &w->cur.items[k], &w->cur.items_capacity[k]) ||
        list_starts(lv->row_start, lv->bny, &w->cur.row_items[k], &w->cur.row_capacity[k]))
        return -1;
    lv->bin_items = w->cur.items[k];
    lv->row_items = w->cur.row_items[k];
    void *pre = w->cur.row_pre[k];
    if (rows &&
        grow_scratch(&pre, &w->cur.pre_capacity[k], lv->row_start[lv->bny], sizeof(drow)))
        return -1;
    w->cur.row_pre[k] = pre;
    lv->row_pre = pre;
    lv->ex0 = NULL;
    if (entries) {
        size_t total = lv->bin_start[nb];
        void *e = w->cur.entries[k];
        if (total > SIZE_MAX / 5 ||
            grow_scratch(&e, &w->cur.entries_capacity[k], 5 * total, sizeof(double)))
            return -1;
        w->cur.entries[k] = e;
        lv->ex0 = w->cur.entries[k];
        lv->ex1 = lv->ex0 + total;
        lv->ey0 = lv->ex1 + total;
        lv->ey1 = lv->ey0 + total;
        lv->elo = lv->ey1 + total;
    }
    bin_pass(lv, iL, rows, b0, nnb, a0, nna, 1);
    list_unshift(lv->bin_start, nb);
    list_unshift(lv->row_start, lv->bny);
    lv->binned = 1;
    return 0;
}

/* ---- the stage */

/* Step 5b from the lowest cone and its bed. fadeBy "bed" measures the
 * height above the bed of the valley whose cone is lowest, which jumps
 * where that valley changes; "cut" measures how deep the point was cut,
 * a difference of two continuous sums, so the carved sum stays
 * continuous. */
static double carve_from(const tf_drainage *dr, double cone, double bed, double sum, double low)
{
    double carved = cone < low ? cone : low;
    double weight = 1.0;
    if (cone < INFINITY) {
        if (dr->fade_cut)
            weight = 1.0 - (low - carved) * dr->inv_fade;
        else
            weight = (carved - bed) * dr->inv_fade;
        weight = weight < 0.0 ? 0.0 : weight > 1.0 ? 1.0 : weight;
    }
    return carved + weight * (sum - low);
}

/* Where step 5b's search for the lowest cone may start instead of +inf.
 * With fadeBy "cut" a cone at or above low gives what no cone gives:
 * carved = low and weight = clamp(1 - 0 k_f) = 1, as weight = 1 where
 * the cone is +inf (low and k_f finite; the bed is not read). So the
 * search may start at low: a cone must then be below low to be taken,
 * and the drops, whose bound is the lowest cone so far, skip every
 * sub-segment that cannot cut the point at all, from the first level on
 * (docs/performance.md, "The search starts at low"). Else +inf. */
static inline double cone_start(const tf_drainage *dr, double low)
{
    return dr->start_at_low && isfinite(low) ? low : INFINITY;
}

/* Step 5b at one point, the levels laid out for a box holding it. */
static double carve(tf_drainage_work *w, double x, double y, double sum, double low)
{
    dbest b = cones_below(w, w->dr->levels, x, y, cone_start(w->dr, low));
    return carve_from(w->dr, b.cone, b.bed, sum, low);
}

#if TF_HAVE_AVX2_PATH
#include <immintrin.h>

/* ---- rows of a tile, in vector lanes
 *
 * Step 5b along one row of a tile, the levels laid out and linked: px[0 ..
 * lanes ng) the row's points, group g the `lanes` (4 or 8) from lanes g,
 * carved where ok[g]. row_walk takes each sub-segment of the row's list
 * (those whose reach overlaps its row of bins) once, in the tie order
 * (level, node row, node column, sub-segment), finds the groups its box
 * overlaps, drops those it cannot lower, and hands the rest to a kernel
 * that computes its cones there. Per lane the kernels do seg_cone's IEEE
 * operations (a separate multiply and add, the early returns as masks) and
 * consider's choice: the bits of carve. A sub-segment that cannot reach a
 * lane, or that row_walk drops, gives it no lower cone, so taking the
 * row's list instead of each point's bin changes nothing.
 *
 * The drop: a cone is at least lo + slope * profile(d) (its bed is at
 * least lo, and 1/s >= 1), and d is at least the gap between the group's
 * points and the sub-segment's box. When lo + slope * profile(gap) is at
 * least the group's highest cone so far (top), no lane's cone can go
 * lower (a tie keeps the earlier one). The test is made on squares, without a
 * root: gap^2 + w^2 > (G / slope + w)^2 with G = top - lo, the gap shrunk
 * by 2^-40 of the coordinates' size and the right side grown by 2^-30, far
 * beyond the rounding of the lanes' own arithmetic. On the fitted Jacksboro
 * spec it drops about 4 in 5 of the (sub-segment, group) pairs.
 *
 * The kernels drop again, lane by lane, once the projection is made:
 * with the lane's bed b and d^2, its cone is b + slope profile / s with
 * 0 < s <= su = 1 - d^2 / R^2 (by a multiply) + 2^-50, so it cannot go
 * below the lane's cone C when sqrt(d^2 + w^2) >= (C - b) su / slope + w:
 * tested on squares, C - b grown by 2^-40 of |b| + slope w (the bed's and
 * the profile's rounding, as lo is) and the right side by 2^-30. About
 * half the pairs that reach a lane stop there, before the division by s,
 * the root and the cone's division. */

typedef void (*row_kernel)(void *ctx, int k, const dseg *s, const size_t *group, size_t n);

#if TF_HAVE_AVX512_PATH
/* row_walk's drop for groups g0 .. g1 of eight lanes, eight groups a
 * vector (okbits: bit g set where ok[g], made once a row): the groups kept
 * into group[], in order; returns how many. The scalar loop's operations
 * group by group. */
_Static_assert(TF_DRAINAGE_TILE_MAX / 8 <= 64, "a row's groups of eight fit a 64-bit mask");

__attribute__((target("avx512f,avx512dq"))) static size_t
keep_groups8(size_t g0, size_t g1, uint64_t okbits, const double *top,
             const double *gxlo, const double *gxhi, double lo, double islope, double wk,
             double sx0, double sx1, double eps, double gyw, size_t *group)
{
    const __m512d vlo = _mm512_set1_pd(lo), vis = _mm512_set1_pd(islope);
    const __m512d vwk = _mm512_set1_pd(wk), vsx0 = _mm512_set1_pd(sx0);
    const __m512d vsx1 = _mm512_set1_pd(sx1), veps = _mm512_set1_pd(eps);
    const __m512d vgyw = _mm512_set1_pd(gyw), zero = _mm512_setzero_pd();
    const __m512d grow = _mm512_set1_pd(1.0 + 0x1p-30);
    const __m512i iota = _mm512_set_epi64(7, 6, 5, 4, 3, 2, 1, 0);
    size_t n = 0;
    for (size_t g = g0; g <= g1; g += 8) {
        size_t r = g1 + 1 - g < 8 ? g1 + 1 - g : 8;
        __mmask8 valid = (__mmask8)((1u << r) - 1u);
        unsigned okm = (unsigned)(okbits >> g) & 0xFFu;
        __m512d Gg = _mm512_sub_pd(_mm512_maskz_loadu_pd(valid, top + g), vlo);
        __m512d qg = _mm512_add_pd(_mm512_mul_pd(Gg, vis), vwk);
        __m512d a = _mm512_sub_pd(vsx0, _mm512_maskz_loadu_pd(valid, gxhi + g));
        __m512d b = _mm512_sub_pd(_mm512_maskz_loadu_pd(valid, gxlo + g), vsx1);
        __m512d gx = _mm512_max_pd(a, b);
        gx = _mm512_mask_blend_pd(_mm512_cmp_pd_mask(gx, veps, _CMP_GT_OQ), zero,
                                  _mm512_sub_pd(gx, veps));
        __m512d lhs = _mm512_add_pd(_mm512_mul_pd(gx, gx), vgyw);
        __m512d rhs = _mm512_mul_pd(_mm512_mul_pd(qg, qg), grow);
        __mmask8 keep = (__mmask8)(valid & okm & _mm512_cmp_pd_mask(Gg, zero, _CMP_GE_OQ) &
                                   _mm512_cmp_pd_mask(lhs, rhs, _CMP_NGT_UQ));
        __m512i idx = _mm512_add_epi64(_mm512_set1_epi64((long long)g), iota);
        int kept = __builtin_popcount(keep);
        _mm512_mask_storeu_epi64(group + n, (__mmask8)((1u << kept) - 1u),
                                 _mm512_maskz_compress_epi64(keep, idx));
        n += (size_t)kept;
    }
    return n;
}
#endif

static void row_walk(tf_drainage_work *w, const double *px, size_t lanes, size_t ng,
                     const unsigned char *ok, double py, const double *top, row_kernel kernel,
                     void *ctx)
{
    const tf_drainage *dr = w->dr;
    size_t group[TF_DRAINAGE_TILE_MAX / 4];
    double gxlo[TF_DRAINAGE_TILE_MAX / 4], gxhi[TF_DRAINAGE_TILE_MAX / 4];
    double xlo = px[0], xhi = px[lanes * ng - 1], span = ng > 1 ? px[lanes] - px[0] : 1.0;
    double islope = dr->inv_slope;
    uint64_t okbits = 0; /* ok[] as bits, for keep_groups8 (ng <= 64 at 8 lanes) */
    for (size_t g = 0; g < ng; g++) {
        gxlo[g] = px[lanes * g];
        gxhi[g] = px[lanes * g + lanes - 1];
        if (g < 64 && ok[g])
            okbits |= (uint64_t)1 << g;
    }
    for (int k = 0; k < dr->levels; k++) {
        dlevel *lv = &w->cur.level[k];
        double wk = dr->w[k], w2k = dr->w2[k];
        /* the sub-segments whose reach overlaps py's row of bins, in slot
         * order (the y test below is the exact one); none beyond the bins,
         * as for a single sample's bin */
        int64_t bj = cell_floor((py - lv->by0) * dr->inv_L[k]);
        if (bj < 0 || (size_t)bj >= lv->bny)
            continue;
        if (!lv->row_ready[bj]) {
            /* the first row of the tile here: the drow of each entry
             * whose reach meets the tile's points in x (every row of a
             * tile has the same points in x), written over the row's
             * first ones in order */
            drow *r = &lv->row_pre[lv->row_start[bj]];
            for (uint32_t e = lv->row_start[bj]; e < lv->row_start[bj + 1]; e++) {
                const dseg *s = &lv->seg[lv->row_items[e]];
                if (s->x1 < xlo || s->x0 > xhi)
                    continue;
                r->item = lv->row_items[e];
                r->sx0 = s->ax < s->bx ? s->ax : s->bx;
                r->sx1 = s->ax < s->bx ? s->bx : s->ax;
                r->sy0 = s->ay < s->by ? s->ay : s->by;
                r->sy1 = s->ay < s->by ? s->by : s->ay;
                r->size = fabs(xlo) + fabs(xhi) + fabs(r->sx0) + fabs(r->sx1) + fabs(r->sy0) +
                          fabs(r->sy1);
                /* the groups whose points may lie in [x0, x1] */
                double f0 = (s->x0 - xlo) / span, f1 = (s->x1 - xlo) / span;
                size_t g0 = f0 < 1.0 ? 0 : f0 >= (double)ng ? ng - 1 : (size_t)f0 - 1;
                size_t g1 = f1 >= (double)ng ? ng - 1 : f1 < 0.0 ? 0 : (size_t)f1 + 1;
                g1 = g1 >= ng ? ng - 1 : g1;
                while (g0 > 0 && px[lanes * g0] > s->x0)
                    g0--;
                while (g1 + 1 < ng && px[lanes * g1 + lanes - 1] < s->x1)
                    g1++;
                r->g0 = (uint32_t)g0;
                r->g1 = (uint32_t)g1;
                r++;
            }
            lv->row_hits[bj] = (uint32_t)(r - &lv->row_pre[lv->row_start[bj]]);
            lv->row_ready[bj] = 1;
        }
        /* the highest of the groups' tops: they only go down, so this
         * stays above them through the level */
        double rowtop = -INFINITY;
        for (size_t g = 0; g < ng; g++)
            rowtop = ok[g] && !(top[g] <= rowtop) ? top[g] : rowtop;
        const drow *rows = &lv->row_pre[lv->row_start[bj]];
        for (uint32_t e = 0; e < lv->row_hits[bj]; e++) {
            const drow *r = &rows[e];
            const dseg *s = &lv->seg[r->item];
            if (py < s->y0 || py > s->y1)
                continue;
            double sx0 = r->sx0, sx1 = r->sx1, sy0 = r->sy0, sy1 = r->sy1;
            /* 2^-40 of the coordinates' size (as a sum in another order
             * its last bits may differ: far below the margin) */
            double eps = 0x1p-40 * (r->size + fabs(py));
            double gy = py < sy0 ? sy0 - py : py > sy1 ? py - sy1 : 0.0;
            gy = gy > eps ? gy - eps : 0.0;
            double gyw = gy * gy + w2k;
            /* the drop below, for the whole row at once */
            double G = rowtop - s->lo, q = G * islope + wk;
            if (!(G >= 0.0) || gyw > q * q * (1.0 + 0x1p-30))
                continue;
            size_t g0 = r->g0, g1 = r->g1;
            /* each group's drop, without branches: G < 0 (or NaN) when
             * every lane's cone is below lo */
            size_t n = 0, g = g0;
#if TF_HAVE_AVX512_PATH
            if (lanes == 8) {
                n = keep_groups8(g0, g1, okbits, top, gxlo, gxhi, s->lo, islope, wk, sx0, sx1,
                                 eps, gyw, group);
                g = g1 + 1;
            }
#else
            (void)okbits;
#endif
            for (; g <= g1; g++) {
                double Gg = top[g] - s->lo, qg = Gg * islope + wk;
                double gx = sx0 - gxhi[g] > gxlo[g] - sx1 ? sx0 - gxhi[g] : gxlo[g] - sx1;
                gx = gx > eps ? gx - eps : 0.0;
                int keep = ok[g] & (Gg >= 0.0) & !(gx * gx + gyw > qg * qg * (1.0 + 0x1p-30));
                group[n] = g;
                n += (size_t)keep;
            }
            if (n > 0)
                kernel(ctx, k, s, group, n);
        }
    }
}

/* A kernel's state: each group's lowest cone and its bed, lane by lane,
 * and top, the highest of its lanes' cones (row_walk's drop). */
typedef struct {
    const tf_drainage *dr;
    const double *px;
    double py;
    void *cone, *bed; /* __m256d or __m512d, one a group */
    double *top;
} row_state;

__attribute__((target("avx2"))) static void row_kernel4(void *ctx, int k, const dseg *s,
                                                        const size_t *group, size_t n)
{
    row_state *st = ctx;
    const tf_drainage *dr = st->dr;
    __m256d *cone = st->cone, *bed = st->bed;
    const __m256d zero = _mm256_setzero_pd(), one = _mm256_set1_pd(1.0);
    const __m256d inf = _mm256_set1_pd(INFINITY), vy = _mm256_set1_pd(st->py);
    const __m256d R2 = _mm256_set1_pd(dr->R2[k]), w2 = _mm256_set1_pd(dr->w2[k]);
    const __m256d wk = _mm256_set1_pd(dr->w[k]), slope = _mm256_set1_pd(dr->slope);
    double dx = s->bx - s->ax, dy = s->by - s->ay;
    double l2 = dx * dx + dy * dy;
    const __m256d vax = _mm256_set1_pd(s->ax), vdx = _mm256_set1_pd(dx);
    const __m256d vay = _mm256_set1_pd(s->ay), vdy = _mm256_set1_pd(dy);
    const __m256d vx0 = _mm256_set1_pd(s->x0), vx1 = _mm256_set1_pd(s->x1);
    const __m256d cy = _mm256_set1_pd((st->py - s->ay) * dy), vl2 = _mm256_set1_pd(l2);
    const __m256d vba = _mm256_set1_pd(s->ba), vdb = _mm256_set1_pd(s->bb - s->ba);
    const __m256d tiny = _mm256_set1_pd(0x1p-40), swk = _mm256_set1_pd(dr->slope * dr->w[k]);
    const __m256d iR2 = _mm256_set1_pd(dr->inv_R2[k]), ulp1 = _mm256_set1_pd(0x1p-50);
    const __m256d islope = _mm256_set1_pd(dr->inv_slope), sign = _mm256_set1_pd(-0.0);
    const __m256d grow = _mm256_set1_pd(1.0 + 0x1p-30);
    for (size_t e = 0; e < n; e++) {
        size_t g = group[e];
        __m256d x = _mm256_loadu_pd(st->px + 4 * g);
        __m256d outside = _mm256_or_pd(_mm256_cmp_pd(x, vx0, _CMP_LT_OQ),
                                       _mm256_cmp_pd(x, vx1, _CMP_GT_OQ));
        if (_mm256_movemask_pd(outside) == 0xF)
            continue;
        __m256d t = zero;
        if (l2 > 0.0) {
            __m256d along = _mm256_mul_pd(_mm256_sub_pd(x, vax), vdx);
            t = _mm256_div_pd(_mm256_add_pd(along, cy), vl2);
            t = _mm256_blendv_pd(t, zero, _mm256_cmp_pd(t, zero, _CMP_LT_OQ));
            t = _mm256_blendv_pd(t, one, _mm256_cmp_pd(t, one, _CMP_GT_OQ));
        }
        __m256d qx = _mm256_add_pd(vax, _mm256_mul_pd(t, vdx));
        __m256d qy = _mm256_add_pd(vay, _mm256_mul_pd(t, vdy));
        __m256d ex = _mm256_sub_pd(x, qx), ey = _mm256_sub_pd(vy, qy);
        __m256d d2 = _mm256_add_pd(_mm256_mul_pd(ex, ex), _mm256_mul_pd(ey, ey));
        __m256d reach = _mm256_andnot_pd(outside, _mm256_cmp_pd(d2, R2, _CMP_LT_OQ));
        if (_mm256_movemask_pd(reach) == 0)
            continue;
        __m256d b = _mm256_add_pd(vba, _mm256_mul_pd(t, vdb));
        /* the lanes' drop (above) */
        __m256d gap =
            _mm256_add_pd(_mm256_sub_pd(cone[g], b),
                          _mm256_mul_pd(tiny, _mm256_add_pd(_mm256_andnot_pd(sign, b), swk)));
        __m256d su = _mm256_add_pd(_mm256_sub_pd(one, _mm256_mul_pd(d2, iR2)), ulp1);
        __m256d q = _mm256_add_pd(_mm256_mul_pd(_mm256_mul_pd(gap, su), islope), wk);
        __m256d may =
            _mm256_and_pd(_mm256_and_pd(reach, _mm256_cmp_pd(gap, zero, _CMP_GE_OQ)),
                          _mm256_cmp_pd(_mm256_add_pd(d2, w2),
                                        _mm256_mul_pd(_mm256_mul_pd(q, q), grow), _CMP_NGT_UQ));
        if (_mm256_movemask_pd(may) == 0)
            continue;
        __m256d sc = _mm256_sub_pd(one, _mm256_div_pd(d2, R2));
        __m256d profile = _mm256_sub_pd(_mm256_sqrt_pd(_mm256_add_pd(d2, w2)), wk);
        __m256d c = _mm256_add_pd(b, _mm256_div_pd(_mm256_mul_pd(slope, profile), sc));
        c = _mm256_blendv_pd(inf, c, reach);
        __m256d lower = _mm256_cmp_pd(c, cone[g], _CMP_LT_OQ);
        if (_mm256_movemask_pd(lower) == 0)
            continue;
        cone[g] = _mm256_blendv_pd(cone[g], c, lower);
        bed[g] = _mm256_blendv_pd(bed[g], b, lower);
        __m256d m = _mm256_max_pd(cone[g], _mm256_permute_pd(cone[g], 5));
        m = _mm256_max_pd(m, _mm256_permute2f128_pd(m, m, 1));
        st->top[g] = _mm256_cvtsd_f64(m);
    }
}

#if TF_HAVE_AVX512_PATH
/* row_kernel4 with eight lanes (AVX-512F): the same operations lane by
 * lane, masks in place of blends and movemasks. */
__attribute__((target("avx512f,avx512dq"))) static void row_kernel8(void *ctx, int k,
                                                                   const dseg *s,
                                                                   const size_t *group,
                                                                   size_t n)
{
    row_state *st = ctx;
    const tf_drainage *dr = st->dr;
    __m512d *cone = st->cone, *bed = st->bed;
    const __m512d zero = _mm512_setzero_pd(), one = _mm512_set1_pd(1.0);
    const __m512d inf = _mm512_set1_pd(INFINITY), vy = _mm512_set1_pd(st->py);
    const __m512d R2 = _mm512_set1_pd(dr->R2[k]), w2 = _mm512_set1_pd(dr->w2[k]);
    const __m512d wk = _mm512_set1_pd(dr->w[k]), slope = _mm512_set1_pd(dr->slope);
    double dx = s->bx - s->ax, dy = s->by - s->ay;
    double l2 = dx * dx + dy * dy;
    const __m512d vax = _mm512_set1_pd(s->ax), vdx = _mm512_set1_pd(dx);
    const __m512d vay = _mm512_set1_pd(s->ay), vdy = _mm512_set1_pd(dy);
    const __m512d vx0 = _mm512_set1_pd(s->x0), vx1 = _mm512_set1_pd(s->x1);
    const __m512d cy = _mm512_set1_pd((st->py - s->ay) * dy), vl2 = _mm512_set1_pd(l2);
    const __m512d vba = _mm512_set1_pd(s->ba), vdb = _mm512_set1_pd(s->bb - s->ba);
    const __m512d tiny = _mm512_set1_pd(0x1p-40), swk = _mm512_set1_pd(dr->slope * dr->w[k]);
    const __m512d iR2 = _mm512_set1_pd(dr->inv_R2[k]), ulp1 = _mm512_set1_pd(0x1p-50);
    const __m512d islope = _mm512_set1_pd(dr->inv_slope);
    const __m512d grow = _mm512_set1_pd(1.0 + 0x1p-30);
    for (size_t e = 0; e < n; e++) {
        size_t g = group[e];
        __m512d x = _mm512_loadu_pd(st->px + 8 * g);
        __mmask8 outside = (__mmask8)(_mm512_cmp_pd_mask(x, vx0, _CMP_LT_OQ) |
                                      _mm512_cmp_pd_mask(x, vx1, _CMP_GT_OQ));
        if (outside == 0xFF)
            continue;
        __m512d t = zero;
        if (l2 > 0.0) {
            __m512d along = _mm512_mul_pd(_mm512_sub_pd(x, vax), vdx);
            t = _mm512_div_pd(_mm512_add_pd(along, cy), vl2);
            t = _mm512_mask_blend_pd(_mm512_cmp_pd_mask(t, zero, _CMP_LT_OQ), t, zero);
            t = _mm512_mask_blend_pd(_mm512_cmp_pd_mask(t, one, _CMP_GT_OQ), t, one);
        }
        __m512d qx = _mm512_add_pd(vax, _mm512_mul_pd(t, vdx));
        __m512d qy = _mm512_add_pd(vay, _mm512_mul_pd(t, vdy));
        __m512d ex = _mm512_sub_pd(x, qx), ey = _mm512_sub_pd(vy, qy);
        __m512d d2 = _mm512_add_pd(_mm512_mul_pd(ex, ex), _mm512_mul_pd(ey, ey));
        __mmask8 reach = (__mmask8)(~outside & _mm512_cmp_pd_mask(d2, R2, _CMP_LT_OQ));
        if (reach == 0)
            continue;
        __m512d b = _mm512_add_pd(vba, _mm512_mul_pd(t, vdb));
        /* the lanes' drop (above) */
        __m512d gap = _mm512_add_pd(_mm512_sub_pd(cone[g], b),
                                    _mm512_mul_pd(tiny, _mm512_add_pd(_mm512_abs_pd(b), swk)));
        __m512d su = _mm512_add_pd(_mm512_sub_pd(one, _mm512_mul_pd(d2, iR2)), ulp1);
        __m512d q = _mm512_add_pd(_mm512_mul_pd(_mm512_mul_pd(gap, su), islope), wk);
        __mmask8 may =
            (__mmask8)(reach & _mm512_cmp_pd_mask(gap, zero, _CMP_GE_OQ) &
                       _mm512_cmp_pd_mask(_mm512_add_pd(d2, w2),
                                          _mm512_mul_pd(_mm512_mul_pd(q, q), grow), _CMP_NGT_UQ));
        if (may == 0)
            continue;
        __m512d sc = _mm512_sub_pd(one, _mm512_div_pd(d2, R2));
        __m512d profile = _mm512_sub_pd(_mm512_sqrt_pd(_mm512_add_pd(d2, w2)), wk);
        __m512d c = _mm512_add_pd(b, _mm512_div_pd(_mm512_mul_pd(slope, profile), sc));
        c = _mm512_mask_blend_pd(reach, inf, c);
        __mmask8 lower = _mm512_cmp_pd_mask(c, cone[g], _CMP_LT_OQ);
        if (lower == 0)
            continue;
        cone[g] = _mm512_mask_blend_pd(lower, cone[g], c);
        bed[g] = _mm512_mask_blend_pd(lower, bed[g], b);
        st->top[g] = _mm512_reduce_max_pd(cone[g]);
    }
}
#endif

/* Step 5b along the row by row_walk and the kernel of `lanes` lanes; the
 * lanes' cones and beds in vectors of 4 or 8 (as doubles, for the
 * kernel's type), then carve_from lane by lane for the first `count`
 * (the lanes past them pad the last group: their results are not kept). */
static void carve_row(tf_drainage_work *w, size_t lanes, const double *px, size_t ng,
                      size_t count, const unsigned char *ok, double py, const double *sum,
                      const double *low, double *out)
{
    _Alignas(64) double cone[TF_DRAINAGE_TILE_MAX], bed[TF_DRAINAGE_TILE_MAX];
    double top[TF_DRAINAGE_TILE_MAX / 4];
    size_t n = lanes * ng;
    /* each lane's search from cone_start (a padding lane's as its copy's),
     * each group's top the highest of its lanes' */
    for (size_t i = 0; i < n; i++) {
        cone[i] = cone_start(w->dr, low[i < count ? i : count - 1]);
        bed[i] = -INFINITY;
    }
    for (size_t g = 0; g < ng; g++) {
        top[g] = -INFINITY;
        for (size_t m = lanes * g; m < lanes * (g + 1); m++)
            top[g] = cone[m] > top[g] ? cone[m] : top[g];
    }
    row_state st = {w->dr, px, py, cone, bed, top};
    row_kernel kernel = row_kernel4;
#if TF_HAVE_AVX512_PATH
    if (lanes == 8)
        kernel = row_kernel8;
#endif
    row_walk(w, px, lanes, ng, ok, py, top, kernel, &st);
    for (size_t i = 0; i < count; i++)
        if (ok[i / lanes])
            out[i] = carve_from(w->dr, cone[i], bed[i], sum[i], low[i]);
}
#endif


/* Beyond 2^50 finest cells from the origin a lattice index no longer has
 * room for a node's fraction: NaN, as simplex does at 2^52. */
static int out_of_range(const tf_drainage *dr, double x, double y)
{
    double L = dr->L[dr->levels - 1];
    return !(fabs(x / L) < 0x1p50) || !(fabs(y / L) < 0x1p50);
}

#if TF_HAVE_AVX2_PATH
/* The row's `count` samples from `first` in groups of `lanes` (4 or 8),
 * by carve_row; a group with a lane out of range or without a sum goes
 * point by point. The last group, when count leaves it short, is padded
 * with copies of the last sample's point: a lane's cones are its own, and
 * a copy moves neither the group's x span nor the highest of its cones,
 * so row_walk drops what it would drop for the real lanes alone and the
 * kept lanes get their bits. A chunk of 66 samples a row is then nine
 * groups of eight instead of eight groups and two samples that would each
 * search every level's bin (about a third of a chunk's cone searches).
 * sum, low and out are the row's. */
static void carve_groups(tf_drainage_work *w, size_t lanes, double x0, int64_t i0, double step,
                         size_t first, size_t count, double y, const double *sum,
                         const double *low, double *out)
{
    const tf_drainage *dr = w->dr;
    double px[TF_DRAINAGE_TILE_MAX];
    unsigned char ok[TF_DRAINAGE_TILE_MAX / 4];
    if (count == 0)
        return;
    size_t ng = (count + lanes - 1) / lanes, n = lanes * ng;
    for (size_t i = 0; i < count; i++)
        px[i] = x0 + (double)(i0 + (int64_t)(first + i)) * step;
    for (size_t i = count; i < n; i++)
        px[i] = px[count - 1];
    for (size_t g = 0; g < ng; g++) {
        size_t end = lanes * (g + 1) < count ? lanes * (g + 1) : count;
        ok[g] = 1;
        for (size_t m = lanes * g; m < end; m++)
            ok[g] = ok[g] && !out_of_range(dr, px[m], y) && !isnan(sum[first + m]);
    }
    carve_row(w, lanes, px, ng, count, ok, y, sum + first, low + first, out + first);
    for (size_t g = 0; g < ng; g++) {
        if (ok[g])
            continue;
        size_t end = lanes * (g + 1) < count ? lanes * (g + 1) : count;
        for (size_t m = lanes * g; m < end; m++) {
            size_t k = first + m;
            if (out_of_range(dr, px[m], y) || isnan(sum[k]))
                out[k] = NAN;
            else
                out[k] = carve(w, px[m], y, sum[k], low[k]);
        }
    }
}
#endif

/* Single samples lay out a box of 2 SAMPLE_PAD finest cells a side when
 * the queries move through the terrain: on the fitted Jacksboro spec (4
 * levels) such a layout costs twice the point's own box to build, and
 * serves the next few thousand queries of a row (docs/performance.md). */
#define SAMPLE_PAD 8.0

/* Whether the levels laid out now hold every node a query box q needs:
 * at each level its node box and value box inside the ones laid out. The
 * network is a function of the lattice, not of the box it is built for,
 * so a box that holds them gives the bits of q's own box: nearby single
 * samples (a game's queries around a player, a row of them) reuse every
 * node value and link made for the first. */
static int holds(const dlayout *lay, const tf_drainage *dr, dbox q)
{
    dlevel need[TF_MAX_DRAINAGE_LEVELS];
    plan_levels(dr, q, need);
    for (int k = 0; k < dr->levels; k++) {
        const dlevel *a = &lay->level[k], *b = &need[k];
        if (b->ni0 < a->ni0 || b->nj0 < a->nj0 ||
            b->ni0 + (int64_t)b->nnx > a->ni0 + (int64_t)a->nnx ||
            b->nj0 + (int64_t)b->nny > a->nj0 + (int64_t)a->nny || b->vi0 < a->vi0 ||
            b->vj0 < a->vj0 || b->vi0 + (int64_t)b->vnx > a->vi0 + (int64_t)a->vnx ||
            b->vj0 + (int64_t)b->vny > a->vj0 + (int64_t)a->vny)
            return 0;
    }
    return 1;
}

/* holds, first by the layout's held box; a point found held grows it. */
static int holds_point(dlayout *lay, const tf_drainage *dr, double x, double y)
{
    if (x >= lay->held_x0 && x <= lay->held_x1 && y >= lay->held_y0 && y <= lay->held_y1)
        return 1;
    dbox q = {x, y, x, y};
    if (!holds(lay, dr, q))
        return 0;
    lay->held_x0 = x < lay->held_x0 ? x : lay->held_x0;
    lay->held_x1 = x > lay->held_x1 ? x : lay->held_x1;
    lay->held_y0 = y < lay->held_y0 ? y : lay->held_y0;
    lay->held_y1 = y > lay->held_y1 ? y : lay->held_y1;
    return 1;
}

static void need_boxes(tf_drainage_work *w, dbox q, dbox *need);

/* The current layout, laid out for box q, kept for later queries of
 * stage `id` (single samples, batches of points) that it holds. */
static void keep_for_samples(tf_drainage_work *w, uint64_t id, dbox q)
{
    w->cur.kept = id;
    w->cur.hits = 0;
    w->cur.held_x0 = q.x0;
    w->cur.held_y0 = q.y0;
    w->cur.held_x1 = q.x1;
    w->cur.held_y1 = q.y1;
}

double tf_drainage_apply(const tf_terrain *t, const tf_drainage *dr, tf_drainage_work *w,
                         double x, double y, double sum, double low)
{
    if (out_of_range(dr, x, y) || isnan(sum))
        return NAN;
    uint64_t id = dr->id;
    w->t = t;
    w->dr = dr;
    if (id != 0 && w->cur.kept == id && holds_point(&w->cur, dr, x, y)) {
        w->cur.hits++;
        return carve(w, x, y, sum, low);
    }
    for (int m = 0; id != 0 && m < SAMPLE_PARKED; m++) {
        if (w->parked[m].kept == id && holds_point(&w->parked[m], dr, x, y)) {
            dlayout a = w->cur;
            w->cur = w->parked[m];
            w->parked[m] = a;
            w->cur.hits++;
            return carve(w, x, y, sum, low);
        }
    }
    /* A new layout, in the storage of the one left longest ago; the
     * current one is kept. When the current one served later queries,
     * they move through the terrain (a row, a player's surroundings): lay
     * out 2 SAMPLE_PAD finest cells a side, so that the next ones find
     * their nodes made; else (queries in no order) just the point's box,
     * as a wider one costs more to build. */
    double Lf = dr->L[dr->levels - 1];
    double pad = 0.0, sx = 0.0, sy = 0.0;
    if (w->cur.kept == id && w->cur.hits > 0) {
        /* ahead of the motion: the box reaches 2 pads on from the point
         * along the axis it left the last box by, so a row's layouts
         * follow each other without overlap */
        const dlevel *f = &w->cur.level[dr->levels - 1];
        double ox = x - ((double)f->ni0 + 0.5 * (double)f->nnx) * Lf;
        double oy = y - ((double)f->nj0 + 0.5 * (double)f->nny) * Lf;
        pad = SAMPLE_PAD * Lf;
        if (fabs(ox) >= fabs(oy))
            sx = ox < 0.0 ? -pad : pad;
        else
            sy = oy < 0.0 ? -pad : pad;
    }
    rotate(w);
    dbox qp = {x - pad + sx, y - pad + sy, x + pad + sx, y + pad + sy};
    if (prepare(t, dr, qp, w) != 0)
        return NAN;
    /* One level, the point's own box: only the nodes near the point are
     * made (about a third of its box). More levels query the coarser ones
     * at every finer node, where the bins were twice as fast as scanning
     * cells per query; and a padded layout serves many queries, which the
     * bins make cheap (one level: 3.6 us a sample in a row's order without
     * them, 0.3-0.5 us with). Each level is binned where the layout's
     * queries reach, as a window's tile is (need_boxes): a later query the
     * layout holds lies within a finest cell of its box, inside the bins'
     * extra cell and the margins' (cell_range). All give the same bits. */
    if (dr->levels > 1 || pad > 0.0) {
        dbox need[TF_MAX_DRAINAGE_LEVELS];
        need_boxes(w, qp, need);
        for (int k = 0; k < dr->levels; k++)
            if (bin_level(w, k, NULL, &need[k], pad > 0.0 && t->simd >= TF_SIMD_AVX512) != 0)
                return NAN;
    }
    keep_for_samples(w, id, qp);
    return carve(w, x, y, sum, low);
}

/* A batch of points in any order (tf_terrain_sample_points) is cut into
 * squares of POINTS_SQUARE finest cells: each square's points, sorted
 * together, share one layout over their box, as a window's tile shares
 * one over its samples, instead of each building the network around
 * itself (a layout for one point's box is mostly the coarse levels'
 * margins, so random points in a region each paid nearly the cost of a
 * tile). A square of one point is a single sample (tf_drainage_apply),
 * and a square whose box a kept layout holds reuses it, so batches in
 * the same region, and single samples after them, find the network made.
 * Squares of 32 cells: docs/performance.md, "The drainage stage". */
#define POINTS_SQUARE 32.0

struct dpoint {
    int64_t si, sj; /* the square */
    size_t k;       /* the point's index in the batch */
};

static int dpoint_order(const void *pa, const void *pb)
{
    const struct dpoint *a = pa, *b = pb;
    if (a->sj != b->sj)
        return a->sj < b->sj ? -1 : 1;
    if (a->si != b->si)
        return a->si < b->si ? -1 : 1;
    return a->k < b->k ? -1 : a->k > b->k;
}

/* The layout holding box q made current: the current one or a parked one
 * of the stage, else a new one built over q and binned for queries
 * anywhere in it (as a padded single-sample layout is). -1 when the
 * scratch cannot grow. */
static int layout_for_box(const tf_terrain *t, const tf_drainage *dr, tf_drainage_work *w, dbox q)
{
    uint64_t id = dr->id;
    if (id != 0 && w->cur.kept == id && holds(&w->cur, dr, q))
        return 0;
    for (int m = 0; id != 0 && m < SAMPLE_PARKED; m++) {
        if (w->parked[m].kept == id && holds(&w->parked[m], dr, q)) {
            dlayout a = w->cur;
            w->cur = w->parked[m];
            w->parked[m] = a;
            return 0;
        }
    }
    rotate(w);
    if (prepare(t, dr, q, w) != 0)
        return -1;
    dbox need[TF_MAX_DRAINAGE_LEVELS];
    need_boxes(w, q, need);
    for (int k = 0; k < dr->levels; k++)
        if (bin_level(w, k, NULL, &need[k], t->simd >= TF_SIMD_AVX512) != 0)
            return -1;
    keep_for_samples(w, id, q);
    return 0;
}

int tf_drainage_points(const tf_terrain *t, const tf_drainage *dr, tf_drainage_work *w,
                       const double *x, const double *y, size_t n, const double *sum,
                       const double *low, double *out)
{
    w->t = t;
    w->dr = dr;
    void *order = w->order;
    if (grow_scratch(&order, &w->order_capacity, n, sizeof(struct dpoint)) != 0)
        return -1;
    w->order = order;
    double side = POINTS_SQUARE * dr->L[dr->levels - 1];
    size_t m = 0;
    for (size_t k = 0; k < n; k++) {
        if (out_of_range(dr, x[k], y[k]) || isnan(sum[k])) {
            out[k] = NAN;
            continue;
        }
        /* a square's index as a double is whole and below 2^51 */
        struct dpoint p = {(int64_t)floor(x[k] / side), (int64_t)floor(y[k] / side), k};
        w->order[m++] = p;
    }
    qsort(w->order, m, sizeof *w->order, dpoint_order);
    for (size_t a = 0, b; a < m; a = b) {
        const struct dpoint *o = w->order;
        dbox q = {x[o[a].k], y[o[a].k], x[o[a].k], y[o[a].k]};
        for (b = a + 1; b < m && o[b].si == o[a].si && o[b].sj == o[a].sj; b++) {
            double px = x[o[b].k], py = y[o[b].k];
            q.x0 = px < q.x0 ? px : q.x0;
            q.x1 = px > q.x1 ? px : q.x1;
            q.y0 = py < q.y0 ? py : q.y0;
            q.y1 = py > q.y1 ? py : q.y1;
        }
        if (b - a == 1) {
            size_t k = o[a].k;
            out[k] = tf_drainage_apply(t, dr, w, x[k], y[k], sum[k], low[k]);
            continue;
        }
        if (layout_for_box(t, dr, w, q) != 0) {
            for (size_t c = a; c < m; c++) /* as a single sample's */
                out[o[c].k] = NAN;
            return 0;
        }
        for (size_t c = a; c < b; c++) {
            size_t k = o[c].k;
            out[k] = carve(w, x[k], y[k], sum[k], low[k]);
        }
        w->cur.hits += (unsigned)(b - a);
    }
    return 0;
}

/* Tiles of about 64 finest cells a side, at most TF_DRAINAGE_TILE_MAX
 * samples, share one network: a tile builds its nodes over its box plus a
 * margin of a few cells at every level, so small tiles spent most of their
 * time on the margins (the fitted Jacksboro spec, against tiles of at most
 * 512 samples: 1.35x as long at most 64, 1.15x at most 256). */
size_t tf_drainage_tile(const tf_drainage *dr, double step)
{
    double span = 64.0 * dr->L[dr->levels - 1] / step;
    return span >= 1.0 && span <= (double)TF_DRAINAGE_TILE_MAX ? (size_t)span
           : span > (double)TF_DRAINAGE_TILE_MAX              ? TF_DRAINAGE_TILE_MAX
                                                              : 1;
}

/* Each level's need box for a layout's query box q (a window's tile, a
 * single sample's box; bin_level): q, and the cells of the finer levels'
 * nodes whose values are still to make (a node lies in its cell): those
 * its binned nodes link to (within a ring of them, as ensure_link looks)
 * that no kept layout made. Cones are asked for nowhere else. */
static void need_boxes(tf_drainage_work *w, dbox q, dbox *need)
{
    const tf_drainage *dr = w->dr;
    dbox acc = q;
    for (int k = dr->levels - 1; k >= 0; k--) {
        need[k] = acc;
        const dlevel *lv = &w->cur.level[k];
        double L = dr->L[k];
        int64_t ring = lv->ni0 - lv->vi0, a0, b0;
        size_t an, bn;
        margin_nodes(dr, lv, k, acc, &a0, &an, &b0, &bn);
        if (an == 0 || bn == 0)
            continue;
        a0 -= ring;
        b0 -= ring;
        an += 2 * (size_t)ring;
        bn += 2 * (size_t)ring;
        int64_t i0 = INT64_MAX, i1 = INT64_MIN, j0 = INT64_MAX, j1 = INT64_MIN;
        for (int64_t j = b0; j < b0 + (int64_t)bn; j++) {
            const unsigned char *st = lv->state + (size_t)(j - lv->vj0) * lv->vnx;
            for (int64_t i = a0; i < a0 + (int64_t)an; i++) {
                if (st[i - lv->vi0] & NODE_VALUE)
                    continue;
                i0 = i < i0 ? i : i0;
                i1 = i > i1 ? i : i1;
                j0 = j < j0 ? j : j0;
                j1 = j > j1 ? j : j1;
            }
        }
        if (i0 <= i1) {
            double x0 = (double)i0 * L, x1 = (double)(i1 + 1) * L;
            double y0 = (double)j0 * L, y1 = (double)(j1 + 1) * L;
            acc.x0 = x0 < acc.x0 ? x0 : acc.x0;
            acc.y0 = y0 < acc.y0 ? y0 : acc.y0;
            acc.x1 = x1 > acc.x1 ? x1 : acc.x1;
            acc.y1 = y1 > acc.y1 ? y1 : acc.y1;
        }
    }
}

/* Whether a window layout of the stage holds tile box q: made current
 * (from the parked ones when there), with its row lists' drow to make
 * again for q's points (row_walk). */
static int window_layout(tf_drainage_work *w, uint64_t id, dbox q)
{
    for (int m = -1; id != 0 && m < SAMPLE_PARKED; m++) {
        dlayout *lay = m < 0 ? &w->cur : &w->parked[m];
        if (lay->window != id || q.x0 < lay->wx0 || q.x1 > lay->wx1 || q.y0 < lay->wy0 ||
            q.y1 > lay->wy1)
            continue;
        if (m >= 0) {
            dlayout a = w->cur;
            w->cur = *lay;
            *lay = a;
        }
        for (int k = 0; k < w->dr->levels; k++)
            memset(w->cur.level[k].row_ready, 0, w->cur.level[k].bny);
        return 1;
    }
    return 0;
}

/* The box a window of one tile lays out: the tile's own, and when the
 * windows move (this tile starts within its own size of the box the last
 * window's layout was made for) TF_WINDOW_AHEAD times its size more ahead
 * of the motion, along the axis it moved on, so that the next windows of
 * a stream (a game's chunks, a column of them) find their network made.
 * Only tiles of at most WINDOW_AHEAD_MAX samples a side: a larger one's
 * margins are a small part of its layout. A layout costs a fixed part
 * (the coarse levels' margins, the bins) and a part for its area, so a
 * layout five chunks wide costs far less than five one chunk wide
 * (docs/performance.md, "The drainage stage", which times 0, 2 and 4 by
 * building with CPPFLAGS=-DTF_WINDOW_AHEAD=N; 0 lays out the tile's own
 * box). */
#ifndef TF_WINDOW_AHEAD
#define TF_WINDOW_AHEAD 4.0
#endif
#define WINDOW_AHEAD_MAX (TF_DRAINAGE_TILE_MAX / 4)

static dbox window_box(const tf_drainage_work *w, uint64_t id, dbox q)
{
    const dlayout *c = &w->cur;
    if (c->window != id || !(TF_WINDOW_AHEAD > 0.0))
        return q;
    double ex = q.x1 - q.x0, ey = q.y1 - q.y0;
    if (q.x0 > c->wx1 + ex || q.x1 < c->wx0 - ex || q.y0 > c->wy1 + ey || q.y1 < c->wy0 - ey)
        return q;
    double ox = 0.5 * (q.x0 + q.x1) - 0.5 * (c->wx0 + c->wx1);
    double oy = 0.5 * (q.y0 + q.y1) - 0.5 * (c->wy0 + c->wy1);
    if (fabs(ox) >= fabs(oy)) {
        if (ox < 0.0)
            q.x0 -= TF_WINDOW_AHEAD * ex;
        else
            q.x1 += TF_WINDOW_AHEAD * ex;
    } else {
        if (oy < 0.0)
            q.y0 -= TF_WINDOW_AHEAD * ey;
        else
            q.y1 += TF_WINDOW_AHEAD * ey;
    }
    return q;
}

int tf_drainage_window(const tf_terrain *t, const tf_drainage *dr, tf_drainage_work *w,
                       double x0, double y0, double step, int64_t i0, int64_t j0, size_t nx,
                       size_t ny, const double *sum, const double *low, double *out)
{
    size_t tile = tf_drainage_tile(dr, step);
    /* a window of one tile, small enough to lay out ahead (window_box) */
    int one_tile =
        nx <= tile && ny <= tile && nx * ny > 1 && nx <= WINDOW_AHEAD_MAX && ny <= WINDOW_AHEAD_MAX;
    w->t = t;
    w->dr = dr;
    for (size_t tj = 0; tj < ny; tj += tile) {
        size_t th = ny - tj < tile ? ny - tj : tile;
        for (size_t ti = 0; ti < nx; ti += tile) {
            size_t tw = nx - ti < tile ? nx - ti : tile;
            dbox q = {INFINITY, INFINITY, -INFINITY, -INFINITY};
            int any = 0;
            for (size_t j = tj; j < tj + th; j++) {
                double y = y0 + (double)(j0 + (int64_t)j) * step;
                for (size_t i = ti; i < ti + tw; i++) {
                    double x = x0 + (double)(i0 + (int64_t)i) * step;
                    if (out_of_range(dr, x, y))
                        continue;
                    any = 1;
                    q.x0 = x < q.x0 ? x : q.x0;
                    q.x1 = x > q.x1 ? x : q.x1;
                    q.y0 = y < q.y0 ? y : q.y0;
                    q.y1 = y > q.y1 ? y : q.y1;
                }
            }
            /* the layout a window laid out ahead, when it holds the
             * tile; else a new one. A tile of one sample is a single
             * sample: no bins. The layout left is parked, so the next
             * tile (or the next window: a game's next chunk) starts from
             * its nodes. */
            int built;
            if (any && one_tile && window_layout(w, dr->id, q)) {
                built = 1;
            } else {
                dbox qp = any && one_tile ? window_box(w, dr->id, q) : q;
                if (any)
                    rotate(w);
                built = any && prepare(t, dr, qp, w) == 0;
                dbox need[TF_MAX_DRAINAGE_LEVELS];
                if (built && tw * th > 1)
                    need_boxes(w, qp, need);
                for (int k = 0; built && tw * th > 1 && k < dr->levels; k++)
                    built = bin_level(w, k, &qp, &need[k], 0) == 0;
                if (built && one_tile && dr->id != 0) {
                    w->cur.window = dr->id;
                    w->cur.wx0 = qp.x0;
                    w->cur.wy0 = qp.y0;
                    w->cur.wx1 = qp.x1;
                    w->cur.wy1 = qp.y1;
                }
            }
            for (size_t j = tj; j < tj + th; j++) {
                double y = y0 + (double)(j0 + (int64_t)j) * step;
                size_t done = 0; /* samples from ti carved by carve_row */
#if TF_HAVE_AVX2_PATH
                if (t->simd >= TF_SIMD_AVX2 && built && tw * th > 1 && tw >= 2) {
                    /* groups of eight on the AVX-512 path, else of four */
                    size_t lanes = 4;
#if TF_HAVE_AVX512_PATH
                    lanes = t->simd >= TF_SIMD_AVX512 ? 8 : 4;
#endif
                    carve_groups(w, lanes, x0, i0, step, ti, tw, y, sum + j * nx,
                                 low + j * nx, out + j * nx);
                    done = tw;
                }
#endif
                for (size_t i = ti + done; i < ti + tw; i++) {
                    double x = x0 + (double)(i0 + (int64_t)i) * step;
                    size_t k = j * nx + i;
                    if (!built || out_of_range(dr, x, y) || isnan(sum[k]))
                        out[k] = NAN;
                    else
                        out[k] = carve(w, x, y, sum[k], low[k]);
                }
            }
            if (any && !built)
                return -1;
        }
    }
    return 0;
}

int tf_drainage_segments(const tf_terrain *t, const tf_drainage *dr, tf_drainage_work *w,
                         double x0, double y0, double x1, double y1,
                         int (*visit)(void *user, const tf_drainage_segment *s), void *user,
                         int *stopped)
{
    dbox q = {x0, y0, x1, y1};
    *stopped = 0;
    if (prepare(t, dr, q, w) != 0)
        return -1;
    for (int k = 0; k < dr->levels; k++) {
        /* Link and bin the level whole before the next: a finer node's
         * value then finds the coarser cones in its bin instead of going
         * node by node (the window's way; the same links). */
        if (bin_level(w, k, NULL, NULL, 0) != 0)
            return -1;
        dlevel *lv = &w->cur.level[k];
        size_t ring = (size_t)(lv->ni0 - lv->vi0);
        /* node box rows, then columns: the tie order of Cone_(<K) */
        for (size_t b = 0; b < lv->nny; b++) {
            for (size_t a = 0; a < lv->nnx; a++) {
                size_t slot = (b + ring) * lv->vnx + a + ring;
                for (int s = 0; s < lv->nseg[slot]; s++) {
                    const dseg *g = &lv->seg[2 * slot + (size_t)s];
                    if (g->x1 < x0 || g->x0 > x1 || g->y1 < y0 || g->y0 > y1)
                        continue; /* its reach misses the box */
                    tf_drainage_segment o = {k, g->ax, g->ay, g->bx, g->by, g->ba, g->bb};
                    int r = visit(user, &o);
                    if (r != 0) {
                        *stopped = r;
                        return 0;
                    }
                }
            }
        }
    }
    return 0;
}

/* The finest cells a box covers, saturating; for the export's limit. */
size_t tf_drainage_box_cells(const tf_drainage *dr, double x0, double y0, double x1, double y1)
{
    double L = dr->L[dr->levels - 1];
    double c = (floor((x1 - x0) / L) + 1.0) * (floor((y1 - y0) / L) + 1.0);
    return c < 0x1p62 ? (size_t)c : SIZE_MAX;
}

int tf_drainage_box_in_range(const tf_drainage *dr, double x0, double y0, double x1, double y1)
{
    return !out_of_range(dr, x0, y0) && !out_of_range(dr, x1, y1);
}
