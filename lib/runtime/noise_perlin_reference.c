/*
 * "perlin-reference-simplex": Ken Perlin's reference simplex noise from the
 * SIGGRAPH 2001 course notes "Noise Hardware" (class Noise3), the base noise
 * of the thesis prototype (thesis Code fragment 2). A line-by-line port that
 * gives the Java code's exact doubles for every input: Java evaluates
 * left to right, so each K() call (which mutates A[]) is sequenced
 * explicitly; int arithmetic wraps as in Java; (int) casts saturate as in Java.
 * The Java class keeps its state in statics; here it lives on the stack, so
 * the function is thread-safe. tf_perlin_reference_simplex3_deriv adds the
 * analytic gradient (docs/noise.md) without touching the value's arithmetic.
 */
#include <math.h>
#include <stdint.h>

#include "noise.h"

typedef struct {
    int32_t i, j, k; /* skewed cell */
    int32_t A[3];    /* corner walk, mutated by each K() */
    double u, v, w;  /* offset from the cell origin */
} noise3_state;

static const int32_t T[8] = {0x15, 0x38, 0x32, 0x2c, 0x0d, 0x13, 0x07, 0x2a};

/* Java's (int) of a double: NaN -> 0, saturating at the int range. */
static int32_t java_double_to_int(double d)
{
    if (d != d)
        return 0;
    if (d >= 2147483647.0)
        return INT32_MAX;
    if (d <= -2147483648.0)
        return INT32_MIN;
    return (int32_t)d;
}

/* Java int addition: wraps modulo 2^32. */
static int32_t java_add(int32_t a, int32_t b)
{
    uint32_t sum = (uint32_t)a + (uint32_t)b;
    return sum <= (uint32_t)INT32_MAX ? (int32_t)sum : (int32_t)(sum - 2147483648u) + INT32_MIN;
}

/* b(N, B) = N >> B & 1: bit B of N (the same for >> and >>> when B < 31). */
static int32_t bit(int32_t n, int b)
{
    return (int32_t)(((uint32_t)n >> b) & 1u);
}

static int32_t b4(int32_t i, int32_t j, int32_t k, int b)
{
    return T[bit(i, b) << 2 | bit(j, b) << 1 | bit(k, b)];
}

static int32_t shuffle(int32_t i, int32_t j, int32_t k)
{
    return b4(i, j, k, 0) + b4(j, k, i, 1) + b4(k, i, j, 2) + b4(i, j, k, 3) + b4(j, k, i, 4) +
           b4(k, i, j, 5) + b4(i, j, k, 6) + b4(j, k, i, 7);
}

/* One corner: Noise3.K(a), which returns 8 t^4 L (t = .6 - |d|^2, L the
 * hash's signed sum of some of the offset's components) and advances A[a];
 * when gx is not NULL also the contribution's gradient. The corner offset
 * d = (u - A0 + s, ...) moves one for one with the sample point (u = x - i
 * + (i+j+k)/6 with i, j, k fixed inside a cell), so with c = dL/dd (each
 * component -1, 0 or +1), t1 = t, t2 = t1*t1, w = (8*t2)*t2 (the value's
 * factor) and k = (64*(t2*t1))*L: grad = w*c - k*d (d/dd of 8 t^4 L, with
 * dt/dd = -2d). */
static inline double K(noise3_state *st, int a, double *gx, double *gy)
{
    double s = (double)(st->A[0] + st->A[1] + st->A[2]) / 6.;
    double x = st->u - st->A[0] + s, y = st->v - st->A[1] + s, z = st->w - st->A[2] + s;
    double t = .6 - x * x - y * y - z * z;
    int32_t h = shuffle(java_add(st->i, st->A[0]), java_add(st->j, st->A[1]),
                        java_add(st->k, st->A[2]));
    st->A[a]++;
    if (t < 0) {
        if (gx)
            *gx = *gy = 0.0;
        return 0;
    }
    int32_t b5 = h >> 5 & 1, b4_ = h >> 4 & 1, b3 = h >> 3 & 1, b2 = h >> 2 & 1, b = h & 3;
    double p = b == 1 ? x : b == 2 ? y : z;
    double q = b == 1 ? y : b == 2 ? z : x;
    double r = b == 1 ? z : b == 2 ? x : y;
    p = (b5 == b3 ? -p : p);
    q = (b5 == b4_ ? -q : q);
    r = (b5 != (b4_ ^ b3) ? -r : r);
    double L = p + (b == 0 ? q + r : b2 == 0 ? q : r);
    double t1 = t;
    t *= t; /* t2 from here on */
    if (gx) {
        /* c: the signs above, on the axes p, q, r were taken from; q and r
         * count only where the value adds them. */
        double c[3] = {0.0, 0.0, 0.0};
        int ap = b == 1 ? 0 : b == 2 ? 1 : 2;
        int aq = b == 1 ? 1 : b == 2 ? 2 : 0;
        int ar = b == 1 ? 2 : b == 2 ? 0 : 1;
        c[ap] = b5 == b3 ? -1.0 : 1.0;
        if (b == 0 || b2 == 0)
            c[aq] = b5 == b4_ ? -1.0 : 1.0;
        if (b == 0 || b2 != 0)
            c[ar] = b5 != (b4_ ^ b3) ? -1.0 : 1.0;
        double w = 8 * t * t, k = (64 * (t * t1)) * L;
        *gx = w * c[0] - k * x;
        *gy = w * c[1] - k * y;
    }
    return 8 * t * t * L;
}

/* tf_perlin_reference_simplex3, and its gradient when dndx is not NULL
 * (inlined into both entry points, so the value-only one carries no
 * derivative arithmetic). */
static inline double noise3_eval(double x, double y, double z, double *dndx, double *dndy)
{
    /* Not in the Java code: a NaN offset fails every comparison below, which
     * would pick the same corner for hi and lo and walk A[-1]; an infinite
     * one puts every corner out of reach and gives 0. Both break the
     * promise that non-finite coordinates give a non-finite value. Finite
     * inputs never take this branch, so their bits are the Java code's. */
    if (!(isfinite(x) && isfinite(y) && isfinite(z))) {
        if (dndx) {
            *dndx = NAN;
            *dndy = NAN;
        }
        return NAN;
    }
    noise3_state st;
    double s = (x + y + z) / 3;
    st.i = java_double_to_int(floor(x + s));
    st.j = java_double_to_int(floor(y + s));
    st.k = java_double_to_int(floor(z + s));
    s = (double)java_add(java_add(st.i, st.j), st.k) / 6.;
    st.u = x - st.i + s;
    st.v = y - st.j + s;
    st.w = z - st.k + s;
    st.A[0] = st.A[1] = st.A[2] = 0;
    int hi = st.u >= st.w ? st.u >= st.v ? 0 : 1 : st.v >= st.w ? 1 : 2;
    int lo = st.u < st.w ? st.u < st.v ? 0 : 1 : st.v < st.w ? 1 : 2;
    /* Java: K(hi) + K(3-hi-lo) + K(lo) + K(0), operands left to right; the
     * gradients are summed in the same order. */
    double g[4][2];
    int slope = dndx != NULL;
    double sum = K(&st, hi, slope ? &g[0][0] : NULL, &g[0][1]);
    sum += K(&st, 3 - hi - lo, slope ? &g[1][0] : NULL, &g[1][1]);
    sum += K(&st, lo, slope ? &g[2][0] : NULL, &g[2][1]);
    sum += K(&st, 0, slope ? &g[3][0] : NULL, &g[3][1]);
    if (slope) {
        *dndx = ((g[0][0] + g[1][0]) + g[2][0]) + g[3][0];
        *dndy = ((g[0][1] + g[1][1]) + g[2][1]) + g[3][1];
    }
    return sum;
}

double tf_perlin_reference_simplex3(double x, double y, double z)
{
    return noise3_eval(x, y, z, NULL, NULL);
}

double tf_perlin_reference_simplex3_deriv(double x, double y, double z, double *dndx,
                                          double *dndy)
{
    double gx, gy;
    double n = noise3_eval(x, y, z, &gx, &gy);
    if (dndx)
        *dndx = gx;
    if (dndy)
        *dndy = gy;
    return n;
}
