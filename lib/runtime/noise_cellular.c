/*
 * "cellular": Worley's cellular texture basis (SIGGRAPH 1996; the survey,
 * seed 003), 2D: one hashed feature point per unit cell, Euclidean distance
 * to the nearest (F1) and second nearest (F2) point, found exactly.
 */
#include <math.h>
#include <stddef.h>
#include <stdint.h>

#include "noise_kinds.h"

typedef struct {
    double d1, d2;   /* squared distances, d1 <= d2 */
    double r1[2];    /* feature point minus sample, nearest */
    double r2[2];    /* the same, second nearest */
} cell_search;

/* Distance from t in [0, 1) to the interval [c, c + 1] (c an integer). */
static inline double gap(int c, double t)
{
    return c > 0 ? c - t : c < 0 ? t - (c + 1) : 0;
}

static inline void visit(cell_search *s, uint32_t hs, uint32_t X, uint32_t Y, int di, int dj,
                         double fx, double fy)
{
    double bx = gap(di, fx), by = gap(dj, fy);
    if (bx * bx + by * by >= s->d2)
        return; /* no point of this cell can be among the two nearest */
    uint32_t h = nk_hash(nk_hash(hs, X + (uint32_t)di), Y + (uint32_t)dj);
    /* Feature point at ((h & 0xffff) + 0.5, (h >> 16) + 0.5) * 2^-16 in its cell. */
    double rx = ((double)di + ((double)(h & 0xffffu) + 0.5) * 0x1p-16) - fx;
    double ry = ((double)dj + ((double)(h >> 16) + 0.5) * 0x1p-16) - fy;
    double d = rx * rx + ry * ry;
    if (d < s->d1) {
        s->d2 = s->d1;
        s->r2[0] = s->r1[0];
        s->r2[1] = s->r1[1];
        s->d1 = d;
        s->r1[0] = rx;
        s->r1[1] = ry;
    } else if (d < s->d2) {
        s->d2 = d;
        s->r2[0] = rx;
        s->r2[1] = ry;
    }
}

/* Visits cells ring by ring (Chebyshev distance r from the sample's cell) and
 * stops once no cell of the next ring can hold a point closer than F2. The
 * result is exact; the order only decides which of two tied points is
 * "nearest", which changes no distance. Returns 0 for a bad coordinate. */
static int search(uint32_t seed, double x, double y, cell_search *s)
{
    if (!nk_coord_ok(x) || !nk_coord_ok(y))
        return 0;
    double fx, fy;
    uint32_t X = nk_split(x, &fx), Y = nk_split(y, &fy);
    uint32_t hs = nk_hash(0, seed);
    s->d1 = s->d2 = INFINITY;
    s->r1[0] = s->r1[1] = s->r2[0] = s->r2[1] = 0;
    for (int r = 0;; r++) {
        if (r == 0) {
            visit(s, hs, X, Y, 0, 0, fx, fy);
        } else {
            for (int k = -r; k <= r; k++) {
                visit(s, hs, X, Y, k, -r, fx, fy);
                visit(s, hs, X, Y, k, r, fx, fy);
            }
            for (int k = -r + 1; k <= r - 1; k++) {
                visit(s, hs, X, Y, -r, k, fx, fy);
                visit(s, hs, X, Y, r, k, fx, fy);
            }
        }
        /* Nearest any cell of ring r + 1 can be. */
        double lb = fmin(fmin(r + 1 - fx, fx + r), fmin(r + 1 - fy, fy + r));
        if (lb * lb >= s->d2)
            return 1;
    }
}

/* d|p - q|/dq = (q - p)/|p - q| = -r/|r|; 0 where |r| = 0 (undefined). */
static void unit_away(const double r[2], double len, double g[2])
{
    g[0] = len > 0 ? -r[0] / len : 0;
    g[1] = len > 0 ? -r[1] / len : 0;
}

enum { CELL_F1, CELL_F2, CELL_F2_F1 };

static double cellular(int which, uint32_t seed, double x, double y, double *dx, double *dy)
{
    cell_search s;
    if (!search(seed, x, y, &s))
        return nk_nan(dx, dy);
    double f1 = sqrt(s.d1), f2 = sqrt(s.d2), g1[2], g2[2];
    unit_away(s.r1, f1, g1);
    unit_away(s.r2, f2, g2);
    const double *g = which == CELL_F1 ? g1 : g2;
    if (dx)
        *dx = which == CELL_F2_F1 ? g2[0] - g1[0] : g[0];
    if (dy)
        *dy = which == CELL_F2_F1 ? g2[1] - g1[1] : g[1];
    return which == CELL_F1 ? f1 : which == CELL_F2 ? f2 : f2 - f1;
}

double tf_cellular_f1(uint32_t seed, double x, double y)
{
    return cellular(CELL_F1, seed, x, y, NULL, NULL);
}

double tf_cellular_f2(uint32_t seed, double x, double y)
{
    return cellular(CELL_F2, seed, x, y, NULL, NULL);
}

double tf_cellular_f2_f1(uint32_t seed, double x, double y)
{
    return cellular(CELL_F2_F1, seed, x, y, NULL, NULL);
}

double tf_cellular_f1_deriv(uint32_t seed, double x, double y, double *dx, double *dy)
{
    return cellular(CELL_F1, seed, x, y, dx, dy);
}

double tf_cellular_f2_deriv(uint32_t seed, double x, double y, double *dx, double *dy)
{
    return cellular(CELL_F2, seed, x, y, dx, dy);
}

double tf_cellular_f2_f1_deriv(uint32_t seed, double x, double y, double *dx, double *dy)
{
    return cellular(CELL_F2_F1, seed, x, y, dx, dy);
}
