#!/usr/bin/python3
"""terrafit_ref.py -- independent pure-Python reference of the terrafit runtime.

Written from docs/spec.md and docs/noise.md only (plus
tests/generators/perlin-reference-simplex/Noise3.java, which docs/noise.md
names as the definition of `perlin-reference-simplex`, and the permutation
table of tests/generators/noise-kinds/ImprovedNoise.java, which it names for
`perlin`), without looking at the C sources, so that `make check`
(tests/reference.sh, tests/check_fractal) can compare two independent
readings of the documentation bit for bit. It also writes the golden vectors
of tests/data/ (scripts/regenerate-vectors.sh).

Python floats are IEEE-754 doubles and CPython evaluates every operation
separately (no fused multiply-add, no reassociation), so writing each formula
with the parenthesization the docs give reproduces the C runtime's doubles.
Unsigned 32/64-bit integer arithmetic is emulated with masks.

Standard library only; runs under /usr/bin/python3 (3.11).

Usage:
  terrafit_ref.py sample SPEC                 "x y" lines on stdin -> h (%.17g)
  terrafit_ref.py noise simplex SEED          "x y" lines on stdin -> n (%.17g)
  terrafit_ref.py noise perlin-reference-simplex
                                              "x y z" lines on stdin -> n
  terrafit_ref.py noise KIND SEED            any other baseNoise.type:
                                              "x y z" lines -> "n dn/dx dn/dy"
  terrafit_ref.py fractal                     "NOISE KIND SEED OCTAVES LACUNARITY GAIN X Y Z"
                                              lines -> n (hex; docs/spec.md "Layer kinds")
  terrafit_ref.py vectors SPEC [--count N] [--seed S]
                                              "x y h" golden lines (hex floats)
  terrafit_ref.py simplex-vectors             tests/data/noise/simplex.txt
"""

import json
import math
import sys

MASK32 = 0xFFFFFFFF
MASK64 = 0xFFFFFFFFFFFFFFFF
TWO52 = 4503599627370496.0  # 2^52


# ---------------------------------------------------------------------------
# Output formatting
# ---------------------------------------------------------------------------

def fmt_g17(v):
    """Format like C's printf("%.17g", v) with glibc.

    Python's '%' operator formats finite doubles exactly like C. glibc prints
    "inf"/"-inf" for infinities and "nan"/"-nan" for NaN depending on the sign
    bit, which Python does not do by itself.
    """
    if v != v:
        return "-nan" if math.copysign(1.0, v) < 0 else "nan"
    if v == math.inf:
        return "inf"
    if v == -math.inf:
        return "-inf"
    return "%.17g" % v


def parse_number(tok):
    """Parse a coordinate like C's strtod: decimal (correctly rounded, as
    Python's float() is), inf/nan, or a C99 hex float."""
    try:
        return float(tok)
    except ValueError:
        return float.fromhex(tok)


# ---------------------------------------------------------------------------
# docs/noise.md, "simplex (default)"
# ---------------------------------------------------------------------------

F2 = 0.36602540378443865
G2 = 0.21132486540518713
G2X2 = 0.42264973081037427
SCALE = 99.0

# docs/noise.md, GRADIENTS table (copied literally, not recomputed).
GRADIENTS = (
    (0.9951847266721969, 0.0980171403295606),
    (0.9569403357322088, 0.29028467725446233),
    (0.881921264348355, 0.47139673682599764),
    (0.773010453362737, 0.6343932841636455),
    (0.6343932841636455, 0.773010453362737),
    (0.4713967368259978, 0.8819212643483549),
    (0.29028467725446233, 0.9569403357322089),
    (0.09801714032956077, 0.9951847266721968),
    (-0.09801714032956065, 0.9951847266721969),
    (-0.29028467725446216, 0.9569403357322089),
    (-0.4713967368259977, 0.881921264348355),
    (-0.6343932841636454, 0.7730104533627371),
    (-0.773010453362737, 0.6343932841636455),
    (-0.8819212643483549, 0.47139673682599786),
    (-0.9569403357322088, 0.2902846772544624),
    (-0.9951847266721968, 0.09801714032956083),
    (-0.9951847266721969, -0.09801714032956059),
    (-0.9569403357322089, -0.2902846772544621),
    (-0.881921264348355, -0.47139673682599764),
    (-0.7730104533627371, -0.6343932841636453),
    (-0.6343932841636459, -0.7730104533627367),
    (-0.47139673682599786, -0.8819212643483549),
    (-0.29028467725446244, -0.9569403357322088),
    (-0.09801714032956045, -0.9951847266721969),
    (0.09801714032956009, -0.9951847266721969),
    (0.29028467725446205, -0.9569403357322089),
    (0.4713967368259976, -0.881921264348355),
    (0.6343932841636456, -0.7730104533627369),
    (0.7730104533627367, -0.6343932841636459),
    (0.8819212643483548, -0.4713967368259979),
    (0.9569403357322088, -0.2902846772544625),
    (0.9951847266721969, -0.0980171403295605),
)


def simplex_index(seed, i, j):
    """docs/noise.md, index(seed, i, j): 32-bit hash -> 0..31 (uses mix32,
    docs/spec.md "Seeds and offsets", defined below)."""
    h = seed ^ ((i * 0x1DDE90C9) & MASK32) ^ ((j * 0x43C42E4D) & MASK32)
    h = mix32(h)
    return h >> 27


def simplex(seed, x, y):
    """docs/noise.md, simplex(seed, x, y); seed is a uint32."""
    return simplex_with_gradient(seed, x, y)[0]


def simplex_with_gradient(seed, x, y):
    """docs/noise.md, "simplex" and its gradient: (n, dn/dx, dn/dy). Each
    corner is corner(seed, i, j, dx, dy) of the docs: one radial kernel."""
    if not (abs(x) < TWO52 and abs(y) < TWO52):
        return (math.nan, math.nan, math.nan)
    s = (x + y) * F2
    xs = x + s                      # "x + s is rounded once, reused"
    ys = y + s
    cx = math.floor(xs)
    cy = math.floor(ys)
    a = xs - cx
    b = ys - cy
    t = (a + b) * G2
    x0 = a - t
    y0 = b - t
    i = int(cx) & MASK32
    j = int(cy) & MASK32
    if x0 > y0:
        i1, j1 = 1, 0
    else:
        i1, j1 = 0, 1
    corners = ((i, j, x0, y0),
               ((i + i1) & MASK32, (j + j1) & MASK32, (x0 - float(i1)) + G2, (y0 - float(j1)) + G2),
               ((i + 1) & MASK32, (j + 1) & MASK32, (x0 - 1.0) + G2X2, (y0 - 1.0) + G2X2))
    n, gxs, gys = [], [], []
    for (ci, cj, dx, dy) in corners:
        tc = (0.5 - dx * dx) - dy * dy
        if tc <= 0:
            n.append(0.0)
            gxs.append(0.0)
            gys.append(0.0)
            continue
        gx, gy = GRADIENTS[simplex_index(seed, ci, cj)]
        t2 = tc * tc
        t4 = t2 * t2
        gd = (gx * dx) + (gy * dy)
        k = (8.0 * (t2 * tc)) * gd
        n.append(t4 * gd)
        gxs.append((t4 * gx) - (k * dx))
        gys.append((t4 * gy) - (k * dy))
    return (SCALE * ((n[0] + n[1]) + n[2]), SCALE * ((gxs[0] + gxs[1]) + gxs[2]),
            SCALE * ((gys[0] + gys[1]) + gys[2]))


# ---------------------------------------------------------------------------
# docs/noise.md, "perlin-reference-simplex": a port of Noise3.java with Java
# int semantics (wrap modulo 2^32, saturating (int) casts, left-to-right
# evaluation of the four mutating K() calls).
# ---------------------------------------------------------------------------

def _jint(v):
    """Wrap a Python int to a Java int (32-bit two's complement)."""
    v &= MASK32
    return v - 0x100000000 if v & 0x80000000 else v


def _java_floor_to_int(v):
    """(int)Math.floor(v): NaN -> 0, saturating at the int range."""
    if v != v:
        return 0
    if v >= 2147483647.0:
        return 2147483647
    if v <= -2147483648.0:
        return -2147483648
    return int(math.floor(v))


_T = (0x15, 0x38, 0x32, 0x2c, 0x0d, 0x13, 0x07, 0x2a)


def _bit(n, b):
    """Noise3.b(int N, int B): N >> B & 1 (bit B of the two's complement)."""
    return (n >> b) & 1  # Python >> on negative ints is arithmetic, like Java


def _b4(i, j, k, b):
    """Noise3.b(int i, int j, int k, int B)."""
    return _T[_bit(i, b) << 2 | _bit(j, b) << 1 | _bit(k, b)]


def _shuffle(i, j, k):
    """Noise3.shuffle: sum of eight small table entries (never overflows)."""
    return (_b4(i, j, k, 0) + _b4(j, k, i, 1) + _b4(k, i, j, 2) + _b4(i, j, k, 3)
            + _b4(j, k, i, 4) + _b4(k, i, j, 5) + _b4(i, j, k, 6) + _b4(j, k, i, 7))


def perlin_reference_simplex(x, y, z):
    """Noise3.noise(x, y, z), with the statics held in locals (docs/noise.md)."""
    return _perlin_reference_simplex(x, y, z, False)[0]


def perlin_reference_simplex_with_gradient(x, y, z):
    """docs/noise.md, "perlin-reference-simplex" and its gradient:
    (n, dn/dx, dn/dy), n with the bits of perlin_reference_simplex."""
    return _perlin_reference_simplex(x, y, z, True)


def _perlin_reference_simplex(x, y, z, grad):
    s = ((x + y) + z) / 3.0
    i = _java_floor_to_int(x + s)
    j = _java_floor_to_int(y + s)
    k = _java_floor_to_int(z + s)
    s = float(_jint(_jint(i + j) + k)) / 6.0
    u = (x - float(i)) + s
    v = (y - float(j)) + s
    w = (z - float(k)) + s
    A = [0, 0, 0]

    def K(a):
        """(value, d/dx, d/dy) of one corner; the gradient is (0.0, 0.0)
        when not asked for."""
        s2 = float(_jint(_jint(A[0] + A[1]) + A[2])) / 6.0
        px = (u - float(A[0])) + s2
        py = (v - float(A[1])) + s2
        pz = (w - float(A[2])) + s2
        t = ((0.6 - px * px) - py * py) - pz * pz
        h = _shuffle(_jint(i + A[0]), _jint(j + A[1]), _jint(k + A[2]))
        A[a] += 1
        if t < 0:
            return 0.0, 0.0, 0.0
        b5 = h >> 5 & 1
        b4 = h >> 4 & 1
        b3 = h >> 3 & 1
        b2 = h >> 2 & 1
        b = h & 3
        # which offset component p, q and r are (0 = x, 1 = y, 2 = z)
        if b == 1:
            ap, aq, ar = 0, 1, 2
        elif b == 2:
            ap, aq, ar = 1, 2, 0
        else:
            ap, aq, ar = 2, 0, 1
        d = (px, py, pz)
        p, q, r = d[ap], d[aq], d[ar]
        sp = -1.0 if b5 == b3 else 1.0
        sq = -1.0 if b5 == b4 else 1.0
        sr = -1.0 if b5 != (b4 ^ b3) else 1.0
        p = -p if b5 == b3 else p
        q = -q if b5 == b4 else q
        r = -r if b5 != (b4 ^ b3) else r
        c = [0.0, 0.0, 0.0]     # dL/d(px, py, pz)
        c[ap] = sp
        if b == 0:
            tail = q + r
            c[aq] = sq
            c[ar] = sr
        elif b2 == 0:
            tail = q
            c[aq] = sq
        else:
            tail = r
            c[ar] = sr
        L = p + tail
        t1 = t
        t = t * t                 # t2
        wt = (8.0 * t) * t
        n = wt * L
        if not grad:
            return n, 0.0, 0.0
        kk = (64.0 * (t * t1)) * L
        return n, (wt * c[0]) - (kk * px), (wt * c[1]) - (kk * py)

    if u >= w:
        hi = 0 if u >= v else 1
    else:
        hi = 1 if v >= w else 2
    if u < w:
        lo = 0 if u < v else 1
    else:
        lo = 1 if v < w else 2
    # Four calls in this order, summed left to right (the gradients too).
    r0 = K(hi)
    r1 = K(3 - hi - lo)
    r2 = K(lo)
    r3 = K(0)
    return (((r0[0] + r1[0]) + r2[0]) + r3[0], ((r0[1] + r1[1]) + r2[1]) + r3[1],
            ((r0[2] + r1[2]) + r2[2]) + r3[2])


# ---------------------------------------------------------------------------
# docs/spec.md, "Redistribution curves"
# ---------------------------------------------------------------------------

# a_j = (-1)^j pi^(2j+1) / (2j+1)!, docs/spec.md cosine table.
COS_COEFFS = (
    3.141592653589793,
    -5.16771278004997,
    2.5501640398773455,
    -0.5992645293207921,
    0.08214588661112823,
    -0.0073704309457143504,
    0.00046630280576761255,
    -2.1915353447830217e-05,
    7.952054001475513e-07,
    -2.2948428997269873e-08,
    5.392664662608129e-10,
)


def _cosine_c(t):
    """c(t) = q * q, q = s * P(s*s), s = t * 0.5; P by Horner from a10
    (docs/spec.md, "Redistribution curves", cosine). q is sin(pi t / 2)."""
    s = t * 0.5
    z = s * s
    p = COS_COEFFS[10]
    for j in range(9, -1, -1):
        p = p * z + COS_COEFFS[j]
    q = s * p
    return q * q


class Curve:
    """A control-point curve (docs/spec.md, "Redistribution curves"): a
    layer's RD, a mask curve MC or the output curve OC."""

    def __init__(self, points, interpolation):
        self.xs = [float(p["x"]) for p in points]
        self.ys = [float(p["y"]) for p in points]
        self.kind = interpolation
        K = len(self.xs)
        xs, ys = self.xs, self.ys
        # Per segment, computed once: inv_k, D_k.
        self.inv = [1.0 / (xs[k + 1] - xs[k]) for k in range(K - 1)]
        self.D = [ys[k + 1] - ys[k] for k in range(K - 1)]
        if interpolation == "monotone-cubic":
            m = self._tangents()
            self.A = []
            self.B = []
            self.C2 = []
            self.C3 = []
            for k in range(K - 1):
                hk = xs[k + 1] - xs[k]
                A = m[k] * hk
                B = m[k + 1] * hk
                Dk = self.D[k]
                self.A.append(A)
                self.C2.append(((3.0 * Dk) - (2.0 * A)) - B)
                self.C3.append((A + B) - (2.0 * Dk))

    def _tangents(self):
        """Fritsch-Carlson tangents, steps 1-3 of docs/spec.md, in order."""
        xs, ys = self.xs, self.ys
        K = len(xs)
        # 1. secants
        d = [(ys[k + 1] - ys[k]) / (xs[k + 1] - xs[k]) for k in range(K - 1)]
        # 2. initial tangents
        m = [0.0] * K
        m[0] = d[0]
        m[K - 1] = d[K - 2]
        for k in range(1, K - 1):
            if d[k - 1] == 0 or d[k] == 0 or ((d[k - 1] < 0) != (d[k] < 0)):
                m[k] = 0.0
            else:
                m[k] = (d[k - 1] + d[k]) * 0.5
        # 3. limit, in increasing k, updating m in place
        for k in range(K - 1):
            if d[k] == 0:
                m[k] = 0.0
                m[k + 1] = 0.0
            else:
                a = m[k] / d[k]
                b = m[k + 1] / d[k]
                r2 = a * a + b * b
                if r2 > 9:
                    tau = 3.0 / math.sqrt(r2)
                    m[k] = (tau * a) * d[k]
                    m[k + 1] = (tau * b) * d[k]
        return m

    def __call__(self, u):
        xs, ys = self.xs, self.ys
        K = len(xs)
        if u <= xs[0]:
            return ys[0]
        if u >= xs[K - 1]:
            return ys[K - 1]
        # Binary search for the largest k with x_k <= u.
        lo = 0
        hi = K - 1
        while hi - lo > 1:
            mid = lo + (hi - lo) // 2
            if u < xs[mid]:
                hi = mid
            else:
                lo = mid
        k = lo
        t = (u - xs[k]) * self.inv[k]
        if self.kind == "linear":
            return ys[k] + t * (self.D[k] + t * (0.0 + t * 0.0))
        if self.kind == "cosine":
            return ys[k] + self.D[k] * _cosine_c(t)
        # monotone-cubic
        return ys[k] + t * (self.A[k] + t * (self.C2[k] + t * self.C3[k]))


# ---------------------------------------------------------------------------
# docs/spec.md, "Seeds and offsets"
# ---------------------------------------------------------------------------

def mix32(v):
    """lowbias32, modulo 2^32."""
    v &= MASK32
    v ^= v >> 16
    v = (v * 0x7FEB352D) & MASK32
    v ^= v >> 15
    v = (v * 0x846CA68B) & MASK32
    v ^= v >> 16
    return v


def layer_seed(root_seed, i):
    """seed_i = mix32(rootSeed + mix32(i + 1)) (modulo 2^32)."""
    return mix32((root_seed + mix32(i + 1)) & MASK32)


def derived_offset(seed):
    """SplitMix64 from z = seed; three outputs mapped to [-1024, 1024)."""
    z = seed & MASK64
    out = []
    for _ in range(3):
        z = (z + 0x9E3779B97F4A7C15) & MASK64
        v = z
        v = ((v ^ (v >> 30)) * 0xBF58476D1CE4E5B9) & MASK64
        v = ((v ^ (v >> 27)) * 0x94D049BB133111EB) & MASK64
        v = v ^ (v >> 31)
        # (v >> 11) < 2^53 converts exactly; every step below is exact.
        out.append((float(v >> 11) * 2.0 ** -53) * 2048.0 - 1024.0)
    return out


# ---------------------------------------------------------------------------
# docs/noise.md, "The further base noises": perlin, exponential-perlin,
# polynomial, value, cellular; each returns (n, dn/dx, dn/dy).
# ---------------------------------------------------------------------------

def _nk_mix(h):
    h &= MASK32
    h ^= h >> 16
    h = (h * 0x21F0AAAD) & MASK32
    h ^= h >> 15
    h = (h * 0x735A2D97) & MASK32
    h ^= h >> 15
    return h


def _nk_H(h, c):
    return _nk_mix(((h ^ (c & MASK32)) + 0x9E3779B9) & MASK32)


def _nk_ok(c):
    return -TWO52 < c < TWO52


def _nk_split(c):
    """Lattice index (floor, modulo 2^32) and the exact fraction."""
    f = math.floor(c)
    return int(f) & MASK32, c - f


def _corner_value(h):
    return float(h >> 8) * 2.0 ** -23 - 1.0


def _fade(t):
    return t * t * t * (t * (t * 6 - 15) + 10)


def _dfade(t):
    return 30 * t * t * (t * (t - 2) + 1)


def _grad3(h, x, y, z):
    """Perlin 2002 grad(), with the direction's x and y components."""
    h &= 15
    a = x if h < 8 else y
    b = y if h < 4 else (x if h in (12, 14) else z)
    sa = 1.0 if (h & 1) == 0 else -1.0
    sb = 1.0 if (h & 2) == 0 else -1.0
    gx = (sa if h < 8 else 0.0) + (sb if (h >= 4 and h in (12, 14)) else 0.0)
    gy = (0.0 if h < 8 else sa) + (sb if h < 4 else 0.0)
    return ((a if (h & 1) == 0 else -a) + (b if (h & 2) == 0 else -b)), gx, gy


def _lerp_vd(t, tdx, tdy, a, b):
    """lerp(t, a, b) = a + t*(b - a) with its product-rule derivative."""
    return (a[0] + t * (b[0] - a[0]),
            a[1] + t * (b[1] - a[1]) + tdx * (b[0] - a[0]),
            a[2] + t * (b[2] - a[2]) + tdy * (b[0] - a[0]))


def _blend3(c, fx, fy, fz):
    u, v, w = _fade(fx), _fade(fy), _fade(fz)
    du, dv = _dfade(fx), _dfade(fy)
    return _lerp_vd(w, 0.0, 0.0,
                    _lerp_vd(v, 0.0, dv, _lerp_vd(u, du, 0.0, c[0], c[1]),
                             _lerp_vd(u, du, 0.0, c[2], c[3])),
                    _lerp_vd(v, 0.0, dv, _lerp_vd(u, du, 0.0, c[4], c[5]),
                             _lerp_vd(u, du, 0.0, c[6], c[7])))


def _read_perlin_permutation():
    """Perlin's reference permutation, as docs/noise.md names it
    (tests/generators/noise-kinds/ImprovedNoise.java)."""
    import os
    import re
    here = os.path.dirname(os.path.abspath(__file__))
    with open(os.path.join(here, "..", "generators", "noise-kinds", "ImprovedNoise.java")) as fh:
        text = fh.read()
    body = re.search(r"permutation\s*=\s*\{([^}]*)\}", text).group(1)
    perm = [int(v) for v in body.replace("\n", " ").split(",")]
    assert len(perm) == 256
    return perm + perm


_PERM = None

NAN3 = (math.nan, math.nan, math.nan)


def perlin_improved(seed, x, y, z):
    global _PERM
    if not (_nk_ok(x) and _nk_ok(y) and _nk_ok(z)):
        return NAN3
    if _PERM is None:
        _PERM = _read_perlin_permutation()
    p = _PERM
    if seed == 0:
        ox = oy = oz = 0
    else:
        h = _nk_H(0, seed)
        ox, oy, oz = _nk_H(h, 1) & 255, _nk_H(h, 2) & 255, _nk_H(h, 3) & 255
    X, fx = _nk_split(x)
    Y, fy = _nk_split(y)
    Z, fz = _nk_split(z)
    X, Y, Z = (X + ox) & 255, (Y + oy) & 255, (Z + oz) & 255
    A = p[X] + Y
    AA, AB = p[A] + Z, p[A + 1] + Z
    B = p[X + 1] + Y
    BA, BB = p[B] + Z, p[B + 1] + Z
    hs = (p[AA], p[BA], p[AB], p[BB], p[AA + 1], p[BA + 1], p[AB + 1], p[BB + 1])
    c = []
    for k in range(8):
        i, j, l = k & 1, (k >> 1) & 1, (k >> 2) & 1
        c.append(_grad3(hs[k], fx - i if i else fx, fy - j if j else fy, fz - l if l else fz))
    return _blend3(c, fx, fy, fz)


EXP_MAGNITUDE = [1.0]
for _i in range(1, 256):
    EXP_MAGNITUDE.append(EXP_MAGNITUDE[-1] / 1.02)


def exp_perlin(seed, x, y, z):
    if not (_nk_ok(x) and _nk_ok(y) and _nk_ok(z)):
        return NAN3
    X, fx = _nk_split(x)
    Y, fy = _nk_split(y)
    Z, fz = _nk_split(z)
    hseed = _nk_H(0, seed)
    c = []
    for k in range(8):
        i, j, l = k & 1, (k >> 1) & 1, (k >> 2) & 1
        h = _nk_H(_nk_H(_nk_H(hseed, X + i), Y + j), Z + l)
        m = EXP_MAGNITUDE[h >> 24]
        g, gx, gy = _grad3(h, fx - i if i else fx, fy - j if j else fy, fz - l if l else fz)
        c.append((m * g, m * gx, m * gy))
    return _blend3(c, fx, fy, fz)


def _corners2(seed, X, Y):
    hs = _nk_H(0, seed)
    h0, h1 = _nk_H(hs, X), _nk_H(hs, X + 1)
    return (_corner_value(_nk_H(h0, Y)), _corner_value(_nk_H(h1, Y)),
            _corner_value(_nk_H(h0, Y + 1)), _corner_value(_nk_H(h1, Y + 1)))


def polynomial_noise(seed, x, y):
    if not (_nk_ok(x) and _nk_ok(y)):
        return NAN3
    X, fx = _nk_split(x)
    Y, fy = _nk_split(y)
    h00, h10, h01, h11 = _corners2(seed, X, Y)
    dX = h10 - h00
    dY = h01 - h00
    A = ((h11 + h00) - h10) - h01
    sx = fx * fx * (3 - 2 * fx)
    sy = fy * fy * (3 - 2 * fy)
    n = ((h00 + sx * dX) + sy * dY) + A * ((sx * fy + sy * fx) - fx * fy)
    ddx = 6 * fx * (1 - fx) * dX + A * ((6 * fx * (1 - fx) * fy + sy) - fy)
    ddy = 6 * fy * (1 - fy) * dY + A * ((sx + 6 * fy * (1 - fy) * fx) - fx)
    return n, ddx, ddy


def value_noise(seed, x, y):
    if not (_nk_ok(x) and _nk_ok(y)):
        return NAN3
    X, fx = _nk_split(x)
    Y, fy = _nk_split(y)
    v00, v10, v01, v11 = _corners2(seed, X, Y)
    e0 = v10 - v00
    e1 = v11 - v01
    u, v = _fade(fx), _fade(fy)
    a = v00 + u * e0
    b = v01 + u * e1
    n = a + v * (b - a)
    return n, _dfade(fx) * (e0 + v * (e1 - e0)), _dfade(fy) * (b - a)


def cellular(seed, x, y, which):
    """which: "f1", "f2" or "f2-f1"; by brute force over the 5 x 5 cells
    (docs/noise.md: the two nearest points always lie there)."""
    if not (_nk_ok(x) and _nk_ok(y)):
        return NAN3
    X, fx = _nk_split(x)
    Y, fy = _nk_split(y)
    hs = _nk_H(0, seed)
    best = []   # (d2, rx, ry), sorted by d2
    for dj in range(-2, 3):
        for di in range(-2, 3):
            h = _nk_H(_nk_H(hs, X + di), Y + dj)
            px = (float(h & 0xFFFF) + 0.5) * 2.0 ** -16
            py = (float(h >> 16) + 0.5) * 2.0 ** -16
            rx = (di + px) - fx
            ry = (dj + py) - fy
            best.append((rx * rx + ry * ry, rx, ry))
    best.sort(key=lambda t: t[0])

    def dist(t):
        d = math.sqrt(t[0])
        if d == 0.0:
            return d, 0.0, 0.0
        return d, -t[1] / d, -t[2] / d
    f1, f2 = dist(best[0]), dist(best[1])
    if which == "f1":
        return f1
    if which == "f2":
        return f2
    return f2[0] - f1[0], f2[1] - f1[1], f2[2] - f1[2]


def noise_kind(kind, seed, x, y, z):
    """docs/spec.md, "Layer kinds": N with its gradient, for every kind."""
    if kind == "perlin":
        return perlin_improved(seed, x, y, z)
    if kind == "exponential-perlin":
        return exp_perlin(seed, x, y, z)
    if kind == "polynomial":
        return polynomial_noise(seed, x, y)
    if kind == "value":
        return value_noise(seed, x, y)
    if kind.startswith("cellular-"):
        return cellular(seed, x, y, kind[len("cellular-"):])
    if kind == "simplex":
        return simplex_with_gradient(seed, x, y)
    if kind == "perlin-reference-simplex":
        return perlin_reference_simplex_with_gradient(x, y, z)
    return NAN3


# ---------------------------------------------------------------------------
# docs/spec.md, "Layer kinds": the fractal of a layer
# ---------------------------------------------------------------------------

FRACTAL_DEFAULTS = {
    "octaves": 6, "lacunarity": 2.0, "gain": 0.5,
}
SWISS_DEFAULTS = {"warp": 0.15}
JORDAN_DEFAULTS = {"gain1": 0.8, "warp0": 0.4, "warp": 0.35, "damp0": 1.0, "damp": 0.8,
                   "damp_scale": 1.0}


class Fractal:
    def __init__(self, fj, noise, seed):
        self.kind = fj["kind"]
        params = dict(FRACTAL_DEFAULTS)
        if self.kind == "swiss":
            params.update(SWISS_DEFAULTS)
        if self.kind == "jordan":
            params.update(JORDAN_DEFAULTS)
        for k in params:
            if k in fj:
                params[k] = float(fj[k]) if k != "octaves" else int(fj[k])
        self.p = params
        self.noise = noise
        self.seed = seed
        O = params["octaves"]
        self.f = [1.0]
        self.o = [(0.0, 0.0, 0.0)]
        for i in range(1, O):
            self.f.append(self.f[-1] * params["lacunarity"])
            self.o.append(tuple(derived_offset(layer_seed(seed, i))))
        G = params["gain"]
        if self.kind == "jordan":
            A = 1.0
            amp = params["gain1"]
            d = amp * G
            for i in range(1, O):
                A = A + d
                amp = amp * G
                d = amp
        else:
            A = 0.0
            a = 1.0
            for i in range(O):
                A = A + a
                a = a * G
        self.A = A

    def N(self, x, y, z):
        return noise_kind(self.noise, self.seed, x, y, z)

    def __call__(self, px, py, pz):
        P, f, o, A = self.p, self.f, self.o, self.A
        O, G = P["octaves"], P["gain"]
        if self.kind in ("fbm", "ridged", "billow"):
            s = 0.0
            a = 1.0
            for i in range(O):
                v = self.N(px * f[i] + o[i][0], py * f[i] + o[i][1], pz + o[i][2])[0]
                r = v if self.kind == "fbm" else (1.0 - abs(v) if self.kind == "ridged" else abs(v))
                s = s + a * r
                a = a * G
            return s / A if self.kind == "fbm" else 2.0 * (s / A) - 1.0
        if self.kind == "swiss":
            s, a, wx, wy, warp = 0.0, 1.0, 0.0, 0.0, P["warp"]
            for i in range(O):
                v, gx, gy = self.N((px + warp * wx) * f[i] + o[i][0],
                                   (py + warp * wy) * f[i] + o[i][1], pz + o[i][2])
                s = s + a * (1.0 - abs(v))
                wx = wx + (a * gx) * -v
                wy = wy + (a * gy) * -v
                a = a * (G * (0.0 if s < 0 else 1.0 if s > 1 else s))
            return 2.0 * (s / A) - 1.0
        # jordan
        v, gx, gy = self.N(px, py, pz)
        s = v * v
        wx, wy = P["warp0"] * (gx * v), P["warp0"] * (gy * v)
        mx, my = P["damp0"] * (gx * v), P["damp0"] * (gy * v)
        amp = P["gain1"]
        d = amp * G
        for i in range(1, O):
            v, gx, gy = self.N(px * f[i] + wx + o[i][0], py * f[i] + wy + o[i][1], pz + o[i][2])
            s = s + d * (v * v)
            wx = wx + P["warp"] * (gx * v)
            wy = wy + P["warp"] * (gy * v)
            mx = mx + P["damp"] * (gx * v)
            my = my + P["damp"] * (gy * v)
            amp = amp * G
            d = amp * (1.0 - P["damp_scale"] / (1.0 + (mx * mx + my * my)))
        return 2.0 * (s / A) - 1.0


# ---------------------------------------------------------------------------
# docs/spec.md, "Members", "Other defaults", "Thesis files": reading a spec
# ---------------------------------------------------------------------------

class Layer:
    pass


class Terrain:
    """A resolved spec: every default applied (validation is minimal)."""

    def __init__(self, doc):
        # "Thesis files": neither format nor version -> the prototype's noise.
        thesis = "format" not in doc and "version" not in doc
        default_type = "perlin-reference-simplex" if thesis else "simplex"
        root_seed = int(doc.get("seed", 0))
        self.layers = []
        for i, lj in enumerate(doc["noiseLayers"]):
            L = Layer()
            bn = lj["baseNoise"]
            L.type = bn.get("type", default_type)
            L.frequency = float(bn["frequency"])
            L.seed = int(bn["seed"]) if "seed" in bn else layer_seed(root_seed, i)
            if "offset" in bn:
                L.offset = [float(v) for v in bn["offset"]]
            else:
                L.offset = derived_offset(L.seed)
            L.fractal = (Fractal(lj["fractal"], L.type, L.seed)
                         if "fractal" in lj else None)
            rd = lj["rd"]
            L.curve = Curve(rd["points"], rd.get("interpolation", "monotone-cubic"))
            L.pre_amp_shift = float(lj.get("preAmpShift", 0))
            L.amp_scale = float(lj.get("ampScale", 1))
            L.mask = int(lj.get("maskLayerIndex", -1))
            # "Curve objects": a maskCurve replaces the range mask.
            mc = lj.get("maskCurve")
            L.mask_curve = (Curve(mc["points"], mc.get("interpolation", "monotone-cubic"))
                            if mc is not None else None)
            L.mask_min = float(lj.get("maskMinValue", 0))
            L.mask_max = float(lj.get("maskMaxValue", 0))
            if "maskFalloff" in lj:
                L.mask_falloff = float(lj["maskFalloff"])
            elif L.mask >= 0 and L.mask_curve is None:
                ys = self.layers[L.mask].curve.ys
                L.mask_falloff = 0.05 * (max(ys) - min(ys))
            else:
                L.mask_falloff = 0.0
            # inv = 1.0 / maskFalloff, computed once (only used when > 0).
            L.mask_inv = 1.0 / L.mask_falloff if L.mask_falloff > 0 else math.inf
            self.layers.append(L)
        dj = doc.get("drainage")
        self.drainage = Drainage(self, dj, root_seed) if dj is not None else None
        oc = doc.get("outputCurve")
        self.output_curve = (Curve(oc["points"], oc.get("interpolation", "monotone-cubic"))
                             if oc is not None else None)
        # Derived minValue / maxValue (used only for normalization),
        # docs/spec.md "Other defaults".
        lo_sum = 0.0
        hi_sum = 0.0
        for L in self.layers:
            ys = L.curve.ys
            lo = (min(ys) + L.pre_amp_shift) * L.amp_scale
            hi = (max(ys) + L.pre_amp_shift) * L.amp_scale
            if lo > hi:
                lo, hi = hi, lo
            if L.mask_curve is not None:
                wlo = min(L.mask_curve.ys)
                whi = max(L.mask_curve.ys)
                corners = (lo * wlo, lo * whi, hi * wlo, hi * whi)
                lo = min(corners)
                hi = max(corners)
            elif L.mask >= 0:
                lo = min(lo, 0.0)
                hi = max(hi, 0.0)
            lo_sum = lo_sum + lo
            hi_sum = hi_sum + hi
        if self.output_curve is not None:
            lo_sum = min(self.output_curve.ys)
            hi_sum = max(self.output_curve.ys)
        self.min_value = float(doc["minValue"]) if "minValue" in doc else lo_sum
        self.max_value = float(doc["maxValue"]) if "maxValue" in doc else hi_sum

    # docs/spec.md, "Evaluation", steps 1-4 for one layer.
    def layer_r(self, L, x, y):
        """Steps 1-2: the layer's redistributed value r at (x, y)."""
        f = L.frequency
        ox, oy, oz = L.offset
        # 1. base noise: (x * f) + ox, (y * f) + oy
        nx = x * f + ox
        ny = y * f + oy
        if L.fractal is not None:
            n = L.fractal(nx, ny, oz)
        elif L.type == "simplex":
            n = simplex(L.seed, nx, ny)
        elif L.type == "perlin-reference-simplex":
            n = perlin_reference_simplex(nx, ny, oz)
        else:
            n = noise_kind(L.type, L.seed, nx, ny, oz)[0]
        # 2. redistribution
        u = (n + 1.0) * 0.5
        return L.curve(u)

    def contributions(self, x, y, wanted=None):
        """Steps 1-4: {i: X_i} for the layers in `wanted` (all when None),
        each masked one weighted by its mask layer's r_m (evaluated whether
        or not that layer is wanted)."""
        r = {}
        X = {}
        for i in (range(len(self.layers)) if wanted is None else sorted(wanted)):
            L = self.layers[i]
            if i not in r:
                r[i] = self.layer_r(L, x, y)
            ri = r[i]
            # 3. shift and scale
            Xi = (ri + L.pre_amp_shift) * L.amp_scale
            # 4. mask: ((r + shift) * scale) * w, w from the curve or the range
            if L.mask >= 0:
                if L.mask not in r:
                    r[L.mask] = self.layer_r(self.layers[L.mask], x, y)
                if L.mask_curve is not None:
                    Xi = Xi * L.mask_curve(r[L.mask])
                else:
                    Xi = Xi * mask_weight(L, r[L.mask])
            X[i] = Xi
        return X

    # docs/spec.md, "Evaluation", steps 1-6.
    def sample(self, x, y):
        X = self.contributions(x, y)
        h = 0.0         # "sum" of step 5
        for i in range(len(self.layers)):
            h = h + X[i]
        # 5b. drainage
        if self.drainage is not None:
            h = self.drainage.carve(x, y, h, X)
        # 6. output curve
        if self.output_curve is not None:
            h = self.output_curve(h)
        return h

    def normalize(self, h):
        return (h - self.min_value) / (self.max_value - self.min_value)


# ---------------------------------------------------------------------------
# docs/spec.md, "Drainage" (Evaluation step 5b)
# ---------------------------------------------------------------------------

TWO50 = 1125899906842624.0  # 2^50
INV32 = 2.0 ** -32


def dmin(a, b):
    """min(a, b) of docs/spec.md "Drainage": b < a ? b : a."""
    return b if b < a else a


def clamp01(v):
    """clamp(v, 0, 1): v < 0 ? 0 : v > 1 ? 1 : v."""
    return 0.0 if v < 0 else (1.0 if v > 1 else v)


class Drainage:
    """The valley network of docs/spec.md "Drainage", rebuilt around each
    point from the lattice (nothing depends on the order of the samples).
    Node values, beds and links are pure functions of (level, i, j), so they
    are memoized in dictionaries that are dropped when they grow large."""

    MEMO_LIMIT = 400000

    def __init__(self, terrain, dj, root_seed):
        self.t = terrain
        self.K = int(dj["levels"])
        self.L0 = float(dj["spacing"])
        self.D0 = float(dj["depth"])
        self.g = float(dj["slope"])
        self.seed = (int(dj["seed"]) if "seed" in dj else layer_seed(root_seed, 64)) & MASK32
        self.rho = float(dj.get("reach", 1.5))
        self.phi = float(dj.get("floor", 0.1))
        self.J = float(dj.get("jitter", 0.8))
        self.bend = float(dj.get("bend", 0.2))
        self.B = int(dj.get("breach", 3))
        # breachTo: "lowest" (every ring), "nearest" (up to the first
        # ring that holds a lower node) or "pass" (over the lowest
        # neighbour, then its nearest ring that holds a lower node)
        self.breach_nearest = dj.get("breachTo", "lowest") == "nearest"
        self.breach_pass = dj.get("breachTo", "lowest") == "pass"
        # inflow M: a level-0 node takes the first-choice links of at most
        # M of its neighbours (0: any number)
        self.M = int(dj.get("inflow", 0))
        # L_k = L0 * 2^-k, D_k = D0 * 2^-k (exact); R_k = rho * L_k,
        # w_k = phi * L_k; R_k * R_k and w_k * w_k computed once.
        self.L = [self.L0 * 2.0 ** -k for k in range(self.K)]
        self.D = [self.D0 * 2.0 ** -k for k in range(self.K)]
        self.R = [self.rho * Lk for Lk in self.L]
        self.RR = [Rk * Rk for Rk in self.R]
        self.w = [self.phi * Lk for Lk in self.L]
        self.ww = [wk * wk for wk in self.w]
        self.finest = self.L[self.K - 1]
        self.detail = (float(dj["detailWavelength"]) if "detailWavelength" in dj
                       else 2.0 * self.finest)
        self.fade = float(dj.get("fade", 0.5))
        self.kf = 1.0 / (self.fade * self.D0)
        # fadeBy: "bed" (height above the lowest cone's bed) or "cut" (how
        # deep the point was cut, low - carved)
        self.fade_cut = dj.get("fadeBy", "bed") == "cut"
        layers = terrain.layers
        # Layer sets: control of level k (f * L_k <= 1.0), carved
        # (f * detailWavelength <= 1.0).
        self.control = [[i for i, Ly in enumerate(layers) if Ly.frequency * Lk <= 1.0]
                        for Lk in self.L]
        self.carved = [i for i, Ly in enumerate(layers) if Ly.frequency * self.detail <= 1.0]
        # How far (in world units) a level's node can be from a point its
        # link's cones reach: the longest link plus the reach (the search
        # adds a cell of margin each side; an extra node only adds +inf
        # cones, so a loose bound is harmless).
        self.rad = []
        for k in range(self.K):
            Lk = self.L[k]
            longest = math.sqrt(2.0) * (1.0 + self.J) * Lk          # a neighbour
            if k == 0 and self.B >= 2:
                longest = max(longest, math.sqrt(2.0) * (self.B + self.J) * Lk)
            if k >= 1:
                longest = max(longest, 2.0 * self.R[k])
            self.rad.append(longest + self.R[k])
        self.reset()

    def reset(self):
        self.nodes = {}
        self.links = {}
        self.reaches = {}

    # P_M: steps 1-4 of the layers in M, added in layer order to 0.0.
    def partial(self, M, x, y):
        X = self.t.contributions(x, y, M)
        s = 0.0
        for i in M:
            s = s + X[i]
        return s

    def node(self, k, i, j):
        """(h, P, val, bed, cone, qbed, q) of level k's node (i, j)."""
        key = (k, i, j)
        n = self.nodes.get(key)
        if n is not None:
            return n
        h = mix32(mix32(mix32((self.seed + k) & MASK32) ^ (i & MASK32)) ^ (j & MASK32))
        u = h * INV32
        v = mix32((h + 1) & MASK32) * INV32
        Lk = self.L[k]
        J = self.J
        P = ((float(i) + (0.5 + J * (u - 0.5))) * Lk,
             (float(j) + (0.5 + J * (v - 0.5))) * Lk)
        c = self.partial(self.control[k], P[0], P[1])
        if k == 0:
            val = c
            bed = val - self.D[0]
            cone, qbed, q = math.inf, None, None
        else:
            cone, qbed, q = self.cone_below(k, P[0], P[1])
            val = dmin(c, cone)
            bed = val - self.D[k]
            if cone != math.inf and qbed > bed:
                bed = qbed
        n = (h, P, val, bed, cone, qbed, q)
        self.nodes[key] = n
        return n

    def rings(self, k, ci, cj, r0, r1, nearest, best, target, skip=None):
        """Link targets on rings r = r0 .. r1 around cell (ci, cj), dj outer,
        di inner, cells with max(|di|, |dj|) = r, `skip` left out: a value
        < best becomes the target; with nearest, no ring after the first
        that gives one."""
        for r in range(r0, r1 + 1):
            if nearest and target is not None:
                break
            for dj in range(-r, r + 1):
                for di in range(-r, r + 1):
                    if max(abs(di), abs(dj)) != r or (ci + di, cj + dj) == skip:
                        continue
                    tv = self.node(k, ci + di, cj + dj)[2]
                    if tv < best:
                        best = tv
                        target = (ci + di, cj + dj)
        return best, target

    def lowest_below(self, k, i, j, best, skip=None):
        """The first of the lowest of node (i, j)'s 8 neighbours, dj outer,
        di inner, with a value < best (strictly lower than the best so
        far), `skip` left out: (best, target), target None for none: ring
        1 of rings()."""
        return self.rings(k, i, j, 1, 1, False, best, None, skip)

    def first(self, k, i, j):
        """Step 1's target of node (i, j), its first choice, or None."""
        return self.lowest_below(k, i, j, self.node(k, i, j)[2])[1]

    def inflow_full(self, k, i, j, v0, target):
        """Whether M of the target's other neighbours that chose it first
        come before node (i, j): lower, or as low and earlier in the order
        dj outer, di inner around the target."""
        ti, tj = target
        odi, odj = i - ti, j - tj
        before = 0
        for dj in (-1, 0, 1):
            for di in (-1, 0, 1):
                if (di == 0 and dj == 0) or (di == odi and dj == odj):
                    continue
                mv = self.node(k, ti + di, tj + dj)[2]
                earlier = dj < odj or (dj == odj and di < odi)
                if not (mv < v0 or (mv == v0 and earlier)):
                    continue
                if self.first(k, ti + di, tj + dj) == target:
                    before += 1
                    if before >= self.M:
                        return True
        return False

    def link(self, k, i, j):
        """The node's link as its two sub-segments (ax, ay, bx, by, ba, bb)
        in order, or () for a sink."""
        key = (k, i, j)
        ln = self.links.get(key)
        if ln is not None:
            return ln
        h, P, v0, bedn, cone, qbed, q = self.node(k, i, j)
        # 1. the 8 neighbours, dj outer, di inner
        best, target = self.lowest_below(k, i, j, v0)
        # the first lowest neighbour, lower or not (the "pass")
        e = self.lowest_below(k, i, j, math.inf)[1]
        if target is not None and k == 0 and self.M > 0 and \
                self.inflow_full(k, i, j, v0, target):
            # 1b. the target is full: the first of the lowest lower
            # neighbours but the target, if any
            second, other = self.lowest_below(k, i, j, v0, skip=target)
            if other is not None:
                best, target = second, other
        b = None
        via = None
        if target is None and k >= 1 and cone != math.inf:
            # 2. into the coarser network at q
            ex = q[0] - P[0]
            ey = q[1] - P[1]
            R2 = 2.0 * self.R[k]
            if ex * ex + ey * ey < R2 * R2:
                b = q
                ba, bb = bedn, dmin(qbed, bedn)
        if target is None and b is None and k == 0 and self.B >= 2:
            if self.breach_pass:
                # 3, "pass": rings r = 1 .. B - 1 around e, the nearest
                # that holds a lower node; drawn n -> e -> T, no bend
                if e is not None:
                    best, target = self.rings(k, e[0], e[1], 1, self.B - 1, True, best, target)
                    via = self.node(k, e[0], e[1])[1]
            else:
                # 3. breach: rings r = 2 .. B
                best, target = self.rings(k, i, j, 2, self.B, self.breach_nearest, best, target)
        if b is None:
            if target is None:
                ln = ()          # 4. a sink
                self.links[key] = ln
                return ln
            # 5. to the target's node T
            T = self.node(k, target[0], target[1])
            b = T[1]
            ba, bb = bedn, dmin(T[3], bedn)
        if via is not None:
            bm = ba + 0.5 * (bb - ba)
            ln = ((P[0], P[1], via[0], via[1], ba, bm), (via[0], via[1], b[0], b[1], bm, bb))
            self.links[key] = ln
            return ln
        a = P
        # The bent midpoint.
        f = self.bend * ((2.0 * mix32((h + 2) & MASK32)) * INV32 - 1.0)
        dx = b[0] - a[0]
        dy = b[1] - a[1]
        m = (a[0] + 0.5 * dx - f * dy, a[1] + 0.5 * dy + f * dx)
        bm = ba + 0.5 * (bb - ba)
        subs = [(a[0], a[1], m[0], m[1], ba, bm), (m[0], m[1], b[0], b[1], bm, bb)]
        ln = tuple(subs)
        self.links[key] = ln
        return ln

    def reach(self, k, i, j):
        """(Px, Py, r2, sub-segments) of the node's link, with r2 the square
        of a radius around P beyond which none of its cones reaches (every
        point of the two straight sub-segments lies within the farther of
        their far ends' distances from P; +1% for rounding);
        r2 = -1 for a sink. A lookup aid only: it skips nodes that give +inf."""
        key = (k, i, j)
        e = self.reaches.get(key)
        if e is not None:
            return e
        subs = self.link(k, i, j)
        P = self.node(k, i, j)[1]
        if subs:
            # the farther of the two sub-segments' far ends (a bent
            # midpoint is nearer than the link's end; a pass may not be)
            d = max(math.hypot(sb[2] - P[0], sb[3] - P[1]) for sb in subs)
            r = (d + self.R[k]) * 1.01
            e = (P[0], P[1], r * r, subs)
        else:
            e = (P[0], P[1], -1.0, subs)
        self.reaches[key] = e
        return e

    def cone_below(self, k, px, py):
        """Cone_(<k)(p): (cone, bed, q) of the lowest cone of the
        sub-segments of levels 0 .. k-1; (+inf, None, None) where none
        reaches. Ties: the first in (level, j, i, sub-segment) order."""
        best = math.inf
        bbed = None
        bq = None
        g = self.g
        J = self.J
        reaches = self.reaches
        for lv in range(k):
            Lk = self.L[lv]
            RR = self.RR[lv]
            w = self.w[lv]
            ww = self.ww[lv]
            rad = self.rad[lv]
            i0 = int(math.floor((px - rad) / Lk - 0.5 - 0.5 * J)) - 1
            i1 = int(math.floor((px + rad) / Lk - 0.5 + 0.5 * J)) + 1
            j0 = int(math.floor((py - rad) / Lk - 0.5 - 0.5 * J)) - 1
            j1 = int(math.floor((py + rad) / Lk - 0.5 + 0.5 * J)) + 1
            for j in range(j0, j1 + 1):
                for i in range(i0, i1 + 1):
                    e = reaches.get((lv, i, j))
                    if e is None:
                        e = self.reach(lv, i, j)
                    ex = px - e[0]
                    ey = py - e[1]
                    if ex * ex + ey * ey >= e[2]:
                        continue
                    for (ax, ay, bx, by, ba, bb) in e[3]:
                        dx = bx - ax
                        dy = by - ay
                        l2 = dx * dx + dy * dy
                        t = clamp01(((px - ax) * dx + (py - ay) * dy) / l2) if l2 > 0 else 0.0
                        qx = ax + t * dx
                        qy = ay + t * dy
                        ex = px - qx
                        ey = py - qy
                        d2 = ex * ex + ey * ey
                        if not d2 < RR:
                            continue
                        s = 1.0 - d2 / RR
                        bed = ba + t * (bb - ba)
                        profile = math.sqrt(d2 + ww) - w
                        cone = bed + (g * profile) / s
                        if cone < best:
                            best = cone
                            bbed = bed
                            bq = (qx, qy)
        return best, bbed, bq

    def carve(self, x, y, total, X):
        """Step 5b: the carved sum at (x, y); `total` is step 5's sum and
        X the layers' contributions of steps 1-4."""
        Lf = self.finest
        if not (abs(x / Lf) < TWO50 and abs(y / Lf) < TWO50) or total != total:
            return math.nan
        if len(self.nodes) > self.MEMO_LIMIT:
            self.reset()
        low = 0.0
        for i in self.carved:
            low = low + X[i]
        cone, bed, _ = self.cone_below(self.K, x, y)
        carved = dmin(low, cone)
        if cone == math.inf:
            weight = 1.0
        elif self.fade_cut:
            weight = clamp01(1.0 - (low - carved) * self.kf)
        else:
            weight = clamp01((carved - bed) * self.kf)
        return carved + weight * (total - low)


def mask_weight(L, rm):
    """docs/spec.md, Evaluation step 4: w(r_m)."""
    if L.mask_min <= rm <= L.mask_max:
        return 1.0
    if rm < L.mask_min:
        d = L.mask_min - rm
    else:
        d = rm - L.mask_max   # above (or NaN)
    if d >= L.mask_falloff:
        return 0.0
    s = 1.0 - d * L.mask_inv
    return s * s * (3.0 - 2.0 * s)


def load_spec(path):
    with open(path, "rb") as fh:
        return Terrain(json.loads(fh.read().decode("utf-8")))


# ---------------------------------------------------------------------------
# Command line
# ---------------------------------------------------------------------------

def read_points(stream, dims):
    """Yield tuples of `dims` numbers from lines, skipping blank/'#' lines."""
    for line in stream:
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        fields = line.split()
        yield tuple(parse_number(t) for t in fields[:dims])


class Lcg:
    """Park-Miller minimal standard generator: deterministic point sets."""

    def __init__(self, seed):
        self.state = (seed % 2147483646) + 1

    def next(self):
        self.state = (self.state * 16807) % 2147483647
        return self.state

    def uniform(self):
        """A double in (-1, 1), from two draws (exact arithmetic)."""
        v = (self.next() - 1) * 2147483646 + (self.next() - 1)  # < 2^62
        return (v >> 9) * 2.0 ** -52 - 1.0


def vector_points(count, seed):
    """Deterministic golden point set: fixed points, then scales 1..1e6."""
    fixed = [
        (0.0, 0.0), (1.0, 1.0), (-1.0, -1.0), (0.5, -0.5), (100.0, 0.0),
        (0.0, -100.0), (1e6, 1e6), (-1e6, 1e6), (1e6, -1e6), (-1e6, -1e6),
        (999999.5, -999999.25), (123456.789, -654321.125),
    ]
    pts = list(fixed)
    rng = Lcg(seed)
    scales = [1.0, 10.0, 100.0, 1e3, 1e4, 1e5, 1e6]
    i = 0
    while len(pts) < count:
        sc = scales[i % len(scales)]
        pts.append((rng.uniform() * sc, rng.uniform() * sc))
        i += 1
    return pts[:count]


def simplex_vector_points():
    """Points for tests/data/noise/simplex.txt (docs/noise.md, simplex)."""
    seeds = [0, 1, 12345, 4294967295]
    pts = []
    rng = Lcg(20240601)
    for seed in seeds:
        # Lattice points (integral x, y) and half-integers, both signs.
        for a in (-2, -1, 0, 1, 2):
            for b in (-1, 0, 2):
                pts.append((seed, float(a), float(b)))
        # Points exactly on the simplex diagonal x0 == y0: x == y gives
        # a == b, hence x0 == y0 (the (0, 1) branch).
        for v in (0.25, 0.5, -0.75, 3.3, -17.125, 1000.1, -123456.5, 2.5e6):
            pts.append((seed, v, v))
        # Random points at several scales, both signs.
        for sc in (1.0, 10.0, 1e3, 1e6, 1e7):
            for _ in range(24):
                pts.append((seed, rng.uniform() * sc, rng.uniform() * sc))
    # Edge of the domain: |coordinate| at and just below 2^52 (NaN at 2^52).
    big = TWO52
    below = math.nextafter(big, 0.0)
    for seed in (0, 12345):
        pts.append((seed, below, 0.5))
        pts.append((seed, -below, -below))
        pts.append((seed, big, 0.0))
        pts.append((seed, 0.0, -big))
        pts.append((seed, 2147483648.5, -2147483649.25))   # beyond 2^31
        pts.append((seed, 4294967296.75, 4294967295.5))    # beyond 2^32 (hash wraps)
    return pts


def main(argv):
    if len(argv) < 2:
        sys.stderr.write(__doc__)
        return 2
    cmd = argv[1]
    out = sys.stdout
    if cmd == "sample" and len(argv) == 3:
        t = load_spec(argv[2])
        for x, y in read_points(sys.stdin, 2):
            out.write(fmt_g17(t.sample(x, y)) + "\n")
        return 0
    if cmd == "noise" and len(argv) >= 3:
        kind = argv[2]
        if kind == "simplex" and len(argv) == 4:
            seed = int(argv[3]) & MASK32
            for x, y in read_points(sys.stdin, 2):
                out.write(fmt_g17(simplex(seed, x, y)) + "\n")
            return 0
        if kind == "perlin-reference-simplex" and len(argv) == 3:
            for x, y, z in read_points(sys.stdin, 3):
                out.write(fmt_g17(perlin_reference_simplex(x, y, z)) + "\n")
            return 0
        if len(argv) == 4:   # the further kinds: "x y z" -> "n dn/dx dn/dy"
            seed = int(argv[3]) & MASK32
            for x, y, z in read_points(sys.stdin, 3):
                out.write(" ".join(fmt_g17(v) for v in noise_kind(kind, seed, x, y, z)) + "\n")
            return 0
    if cmd == "fractal" and len(argv) == 2:
        # "NOISE KIND SEED OCTAVES LACUNARITY GAIN X Y Z" -> n (hex), KIND none
        # for the base noise; swiss/jordan parameters at their defaults.
        for line in sys.stdin:
            t = line.split()
            if not t or t[0].startswith("#"):
                continue
            noise, kind, seed = t[0], t[1], int(t[2]) & MASK32
            x, y, z = (parse_number(v) for v in t[6:9])
            if kind == "none":
                if noise == "simplex":
                    n = simplex(seed, x, y)
                elif noise == "perlin-reference-simplex":
                    n = perlin_reference_simplex(x, y, z)
                else:
                    n = noise_kind(noise, seed, x, y, z)[0]
            else:
                fj = {"kind": kind, "octaves": int(t[3]), "lacunarity": parse_number(t[4]),
                      "gain": parse_number(t[5])}
                n = Fractal(fj, noise, seed)(x, y, z)
            out.write(n.hex() + "\n")
        return 0
    if cmd == "vectors" and len(argv) >= 3:
        count, seed = 200, 1
        args = argv[3:]
        while args:
            if args[0] == "--count" and len(args) > 1:
                count = int(args[1])
            elif args[0] == "--seed" and len(args) > 1:
                seed = int(args[1])
            else:
                sys.stderr.write("terrafit_ref.py: bad option %s\n" % args[0])
                return 2
            args = args[2:]
        t = load_spec(argv[2])
        for x, y in vector_points(count, seed):
            out.write("%s %s %s\n" % (x.hex(), y.hex(), t.sample(x, y).hex()))
        return 0
    if cmd == "simplex-vectors" and len(argv) == 2:
        out.write("# simplex golden vectors: seed x y n (x, y, n as C99 hex doubles), from\n")
        out.write("# /usr/bin/python3 tests/oracle/terrafit_ref.py simplex-vectors\n")
        for seed, x, y in simplex_vector_points():
            out.write("%d %s %s %s\n" % (seed, x.hex(), y.hex(), simplex(seed, x, y).hex()))
        return 0
    sys.stderr.write(__doc__)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv))
