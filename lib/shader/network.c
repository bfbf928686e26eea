/*
 * A drainage network packed for a shader (docs/shader.md, "Drainage"): the
 * runtime builds the network over a box in doubles and hands over its
 * sub-segments in tie order (tf_terrain_drainage_segments); this packs
 * them as floats relative to the box's corner with a bin index per level,
 * so a shader visits only the few dozen sub-segments that can reach a
 * point, in the runtime's order, and carves as the runtime does.
 */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "shader_internal.h"

#define HEADER_WORDS (4 + 4 * TF_MAX_DRAINAGE_LEVELS)

typedef struct {
    tf_drainage_segment *s;
    size_t n, cap;
    int failed;
} seg_list;

static int collect(void *user, const tf_drainage_segment *s)
{
    seg_list *l = user;
    if (l->n == l->cap) {
        size_t cap = l->cap ? 2 * l->cap : 1024;
        tf_drainage_segment *grown = cap <= SIZE_MAX / sizeof *grown
                                         ? realloc(l->s, cap * sizeof *grown)
                                         : NULL;
        if (!grown) {
            l->failed = 1;
            return 1;
        }
        l->s = grown;
        l->cap = cap;
    }
    l->s[l->n++] = *s;
    return 0;
}

/* Level k's bins: cells of L_k from the box's corner, enough to hold its
 * far edge. */
typedef struct {
    double L, R;
    size_t nx, ny;
} level_bins;

/* The bins a segment's reach covers, clamped to the grid. The reach is
 * widened by `slack` so that a point whose float position lands in a
 * neighbouring bin still finds every segment that reaches it: a shader
 * computes the point relative to the corner with a float fraction (off by
 * up to 2^-8 at 65536 units) and divides by L_k in floats. */
static void bin_span(const level_bins *lb, double lo, double hi, size_t n, size_t *a, size_t *b)
{
    double slack = 0x1p-6 + lb->L * 0x1p-10;
    double i0 = floor((lo - lb->R - slack) / lb->L), i1 = floor((hi + lb->R + slack) / lb->L);
    *a = i0 < 0.0 ? 0 : i0 >= (double)n ? n - 1 : (size_t)i0;
    *b = i1 < 0.0 ? 0 : i1 >= (double)n ? n - 1 : (size_t)i1;
}

/* Segment g's ends relative to the box's corner, and the bins of its
 * level that its reach covers: columns i0 .. i1, rows j0 .. j1. */
typedef struct {
    double ax, ay, bx, by;
    size_t i0, i1, j0, j1;
} seg_place;

static seg_place place_segment(const tf_drainage_segment *g, const level_bins *b, int32_t x0,
                               int32_t y0)
{
    seg_place p;
    p.ax = g->ax - (double)x0;
    p.ay = g->ay - (double)y0;
    p.bx = g->bx - (double)x0;
    p.by = g->by - (double)y0;
    bin_span(b, fmin(p.ax, p.bx), fmax(p.ax, p.bx), b->nx, &p.i0, &p.i1);
    bin_span(b, fmin(p.ay, p.by), fmax(p.ay, p.by), b->ny, &p.j0, &p.j1);
    return p;
}

int tf_shader_network_build(const tf_terrain *t, int32_t x0, int32_t y0, uint32_t width,
                            uint32_t height, tf_shader_network *net, tf_error *err)
{
    if (!net) {
        tf_error_set(err, TF_ERR_ARGUMENT, "shader network: no output");
        return -1;
    }
    memset(net, 0, sizeof *net);
    const tf_spec *spec = t ? tf_terrain_spec(t) : NULL;
    if (!spec || spec->drainage.levels <= 0) {
        tf_error_set(err, TF_ERR_ARGUMENT, "shader network: %s",
                     t ? "the spec has no drainage stage" : "no terrain");
        return -1;
    }
    if (width == 0 || height == 0 || width > TF_SHADER_NETWORK_MAX_SIDE ||
        height > TF_SHADER_NETWORK_MAX_SIDE) {
        tf_error_set(err, TF_ERR_LIMIT,
                     "shader network: a box of %u x %u; each side must be 1 to %u world units",
                     width, height, TF_SHADER_NETWORK_MAX_SIDE);
        return -1;
    }
    const tf_drainage_spec *d = &spec->drainage;
    /* Refuse before building: a network costs the runtime about 220 bytes
     * and the table about 300 bytes a finest cell. */
    double fine = ldexp(d->spacing, -(d->levels - 1));
    double cells = (floor((double)width / fine) + 1.0) * (floor((double)height / fine) + 1.0);
    if (cells > (double)TF_SHADER_NETWORK_MAX_CELLS) {
        tf_error_set(err, TF_ERR_LIMIT,
                     "shader network: a box of %u x %u covers %.0f finest cells (of %g), more "
                     "than %zu; draw a smaller region",
                     width, height, cells, fine, TF_SHADER_NETWORK_MAX_CELLS);
        return -1;
    }
    seg_list l = {0};
    int r = tf_terrain_drainage_segments(t, (double)x0, (double)y0, (double)x0 + width,
                                         (double)y0 + height, collect, &l, err);
    if (r != 0) {
        if (l.failed)
            tf_error_set(err, TF_ERR_NOMEM, "shader network: out of memory");
        free(l.s);
        return -1;
    }

    /* Pass 1: the bins' sizes and every level's item count. */
    level_bins lb[TF_MAX_DRAINAGE_LEVELS];
    size_t words = HEADER_WORDS, items = 0;
    for (int k = 0; k < d->levels; k++) {
        lb[k].L = ldexp(d->spacing, -k);
        lb[k].R = d->reach * lb[k].L;
        /* the runtime refused boxes of more than 2^22 finest cells, so these fit */
        lb[k].nx = (size_t)floor((double)width / lb[k].L) + 1;
        lb[k].ny = (size_t)floor((double)height / lb[k].L) + 1;
        words += lb[k].nx * lb[k].ny + 1;
    }
    for (size_t e = 0; e < l.n && words + items <= TF_SHADER_NETWORK_MAX_WORDS; e++) {
        seg_place q = place_segment(&l.s[e], &lb[l.s[e].level], x0, y0);
        items += (q.i1 - q.i0 + 1) * (q.j1 - q.j0 + 1);
    }
    if (words + items > TF_SHADER_NETWORK_MAX_WORDS || l.n > TF_SHADER_NETWORK_MAX_WORDS) {
        tf_error_set(err, TF_ERR_LIMIT,
                     "shader network: a box of %u x %u needs more than %zu words; draw a "
                     "smaller region",
                     width, height, TF_SHADER_NETWORK_MAX_WORDS);
        free(l.s);
        return -1;
    }
    size_t total = words + items;
    uint32_t *w = calloc(total, sizeof *w);
    float *seg = l.n ? malloc(l.n * 8 * sizeof *seg) : calloc(8, sizeof *seg);
    if (!w || !seg) {
        free(w);
        free(seg);
        free(l.s);
        tf_error_set(err, TF_ERR_NOMEM, "shader network: out of memory");
        return -1;
    }
    w[0] = (uint32_t)x0;
    w[1] = (uint32_t)y0;
    w[2] = width;
    w[3] = height;
    /* Pass 2: count per bin, then starts (word indices into the items),
     * then fill in segment order: each bin lists its segments in the
     * runtime's tie order. */
    size_t base = HEADER_WORDS;
    for (int k = 0; k < d->levels; k++) {
        w[4 + 4 * k] = (uint32_t)lb[k].nx;
        w[5 + 4 * k] = (uint32_t)lb[k].ny;
        w[6 + 4 * k] = (uint32_t)base;
        base += lb[k].nx * lb[k].ny + 1;
    }
    for (size_t e = 0; e < l.n; e++) {
        const tf_drainage_segment *g = &l.s[e];
        const level_bins *b = &lb[g->level];
        size_t first = w[6 + 4 * g->level];
        seg_place q = place_segment(g, b, x0, y0);
        for (size_t j = q.j0; j <= q.j1; j++)
            for (size_t i = q.i0; i <= q.i1; i++)
                w[first + 1 + j * b->nx + i]++;
        float *o = &seg[8 * e];
        o[0] = (float)q.ax;
        o[1] = (float)q.ay;
        o[2] = (float)q.bx;
        o[3] = (float)q.by;
        o[4] = (float)g->bed_a;
        o[5] = (float)g->bed_b;
        o[6] = 0.0f;
        o[7] = 0.0f;
    }
    size_t next = words; /* items start after every level's bins */
    for (int k = 0; k < d->levels; k++) {
        size_t first = w[6 + 4 * k], nb = lb[k].nx * lb[k].ny;
        w[first] = (uint32_t)next;
        for (size_t c = 1; c <= nb; c++) {
            next += w[first + c];
            w[first + c] = (uint32_t)next;
        }
    }
    /* fill: a cursor per bin, kept in the start word and restored after */
    for (size_t e = 0; e < l.n; e++) {
        const level_bins *b = &lb[l.s[e].level];
        size_t first = w[6 + 4 * l.s[e].level];
        seg_place q = place_segment(&l.s[e], b, x0, y0);
        for (size_t j = q.j0; j <= q.j1; j++)
            for (size_t i = q.i0; i <= q.i1; i++)
                w[w[first + j * b->nx + i]++] = (uint32_t)e;
    }
    for (int k = 0; k < d->levels; k++) {
        size_t first = w[6 + 4 * k], nb = lb[k].nx * lb[k].ny;
        /* each start now holds the next bin's start: shift back */
        for (size_t c = nb; c > 0; c--)
            w[first + c] = w[first + c - 1];
        w[first] = k == 0 ? (uint32_t)words : w[w[6 + 4 * (k - 1)] + lb[k - 1].nx * lb[k - 1].ny];
    }
    free(l.s);
    for (size_t e = 0; e < 8 * l.n; e++)
        if (!isfinite(seg[e])) {
            free(w);
            free(seg);
            tf_error_set(err, TF_ERR_LIMIT,
                         "shader network: a bed or position beyond a float's range");
            return -1;
        }
    net->words = w;
    net->word_count = total;
    net->segments = seg;
    net->segment_count = l.n;
    return 0;
}

void tf_shader_network_free(tf_shader_network *net)
{
    if (!net)
        return;
    free(net->words);
    free(net->segments);
    memset(net, 0, sizeof *net);
}
