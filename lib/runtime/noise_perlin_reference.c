/*
 * "perlin-reference-simplex": Ken Perlin's reference simplex noise from the
 * SIGGRAPH 2001 course notes "Noise Hardware" (class Noise3), the base noise
 * of the thesis prototype (thesis Code fragment 2). A line-by-line port that
 * gives the Java code's exact doubles for every input: Java evaluates
 * left to right, so each K() call (which mutates A[]) is sequenced
 * explicitly; int arithmetic wraps as in Java; (int) casts saturate as in Java.
 * The Java class keeps its state in statics; here it lives on the stack, so
 * the function is thread-safe.
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

static double K(noise3_state *st, int a)
{
    double s = (double)(st->A[0] + st->A[1] + st->A[2]) / 6.;
    double x = st->u - st->A[0] + s, y = st->v - st->A[1] + s, z = st->w - st->A[2] + s;
    double t = .6 - x * x - y * y - z * z;
    int32_t h = shuffle(java_add(st->i, st->A[0]), java_add(st->j, st->A[1]),
                        java_add(st->k, st->A[2]));
    st->A[a]++;
    if (t < 0)
        return 0;
    int32_t b5 = h >> 5 & 1, b4_ = h >> 4 & 1, b3 = h >> 3 & 1, b2 = h >> 2 & 1, b = h & 3;
    double p = b == 1 ? x : b == 2 ? y : z;
    double q = b == 1 ? y : b == 2 ? z : x;
    double r = b == 1 ? z : b == 2 ? x : y;
    p = (b5 == b3 ? -p : p);
    q = (b5 == b4_ ? -q : q);
    r = (b5 != (b4_ ^ b3) ? -r : r);
    t *= t;
    return 8 * t * t * (p + (b == 0 ? q + r : b2 == 0 ? q : r));
}

double tf_perlin_reference_simplex3(double x, double y, double z)
{
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
    /* Java: K(hi) + K(3-hi-lo) + K(lo) + K(0), operands left to right. */
    double sum = K(&st, hi);
    sum += K(&st, 3 - hi - lo);
    sum += K(&st, lo);
    sum += K(&st, 0);
    return sum;
}
