// The shader library: docs/noise.md's base noises and the helpers an emitted
// terrain calls, written once in the neutral dialect of lib/shader/dialect.c
// (C-like statements; `fn TYPE name(TYPE a)`, `var`/`let TYPE name = e;`)
// and translated to GLSL, WGSL and HLSL. Every noise takes split
// coordinates (an integer lattice part and a float fraction, tf_s) and
// returns (n, dn/dx, dn/dy) in noise space, so a point a million cells out
// keeps the fraction's full precision (docs/shader.md, "Coordinates").
// Sections start with `//@section NAME: NEEDS...`; the emitter includes the
// ones a spec uses and, for each, the arrays named in `//@arrays`.

//@section core:
// i + f as a split number with f in [0, 1); i wraps modulo 2^32 like the
// runtime's lattice index.
fn tf_s tf_norm(int i, float f) {
    let float fl = floor(f);
    var float r = f - fl;
    var uint n = uint(i) + uint(int(fl));
    if (r >= 1.0) {
        r = 0.0;
        n = n + 1u;
    }
    return tf_s(int(n), r);
}

// The 64-bit product of two 32-bit words as (high, low), from 16-bit halves
// (GLSL ES 3.00 has no umulExtended).
fn uvec2 tf_umul(uint a, uint b) {
    let uint a0 = a & 0xffffu;
    let uint a1 = a >> 16u;
    let uint b0 = b & 0xffffu;
    let uint b1 = b >> 16u;
    let uint p00 = a0 * b0;
    let uint p01 = a0 * b1;
    let uint p10 = a1 * b0;
    let uint mid = ((p00 >> 16u) + (p01 & 0xffffu)) + (p10 & 0xffffu);
    let uint hw = ((a1 * b1 + (p01 >> 16u)) + (p10 >> 16u)) + (mid >> 16u);
    return uvec2(hw, (p00 & 0xffffu) | (mid << 16u));
}

// a times the constant k = k.x + k.y * 2^-32 + k.z * 2^-64 (k >= 0; kf is k
// as a float): the integer part times k in exact fixed point, the fraction
// times kf in float.
fn tf_s tf_mul(tf_s a, uvec3 k, float kf) {
    var uint m = uint(a.i);
    if (a.i < 0) {
        m = 0u - m;
    }
    let uvec2 p = tf_umul(m, k.y);
    let uint c = tf_umul(m, k.z).x;
    var uint lw = p.y + c;
    var uint ip = m * k.x + p.x;
    if (lw < c) {
        ip = ip + 1u;
    }
    if (a.i < 0) {
        if (lw != 0u) {
            ip = ~ip;
            lw = 0u - lw;
        } else {
            ip = 0u - ip;
        }
    }
    return tf_norm(int(ip), float(lw >> 8u) * 5.9604644775390625e-8 + a.f * kf);
}

// a plus the constant ci + cf.
fn tf_s tf_add(tf_s a, int ci, float cf) {
    return tf_norm(int(uint(a.i) + uint(ci)), a.f + cf);
}

// a plus a float.
fn tf_s tf_addf(tf_s a, float d) {
    return tf_norm(a.i, a.f + d);
}

// docs/spec.md "Seeds and offsets": lowbias32.
fn uint tf_mix32(uint v0) {
    var uint v = v0;
    v = v ^ (v >> 16u);
    v = v * 0x7feb352du;
    v = v ^ (v >> 15u);
    v = v * 0x846ca68bu;
    v = v ^ (v >> 16u);
    return v;
}

//@section hash: core
// docs/noise.md "The further base noises: common rules": the hash, corner
// values and fades.
fn uint tf_nkmix(uint h0) {
    var uint h = h0;
    h = h ^ (h >> 16u);
    h = h * 0x21f0aaadu;
    h = h ^ (h >> 15u);
    h = h * 0x735a2d97u;
    h = h ^ (h >> 15u);
    return h;
}

fn uint tf_hash(uint h, uint c) {
    return tf_nkmix((h ^ c) + 0x9e3779b9u);
}

fn float tf_cval(uint h) {
    return float(h >> 8u) * 1.1920928955078125e-7 - 1.0;
}

fn float tf_fade(float t) {
    return t * t * t * (t * (t * 6.0 - 15.0) + 10.0);
}

fn float tf_dfade(float t) {
    return 30.0 * t * t * (t * (t - 2.0) + 1.0);
}

//@section grad3: hash
// Perlin's grad() with the direction's x and y components: (value, gx, gy).
fn vec3 tf_grad3(uint h0, float x, float y, float z) {
    let uint h = h0 & 15u;
    var float sa = 1.0;
    if ((h & 1u) != 0u) {
        sa = -1.0;
    }
    var float sb = 1.0;
    if ((h & 2u) != 0u) {
        sb = -1.0;
    }
    var vec3 r = vec3(sa * y, 0.0, sa);
    if (h < 8u) {
        r = vec3(sa * x, sa, 0.0);
    }
    if (h < 4u) {
        r = r + vec3(sb * y, 0.0, sb);
    } else if (h == 12u || h == 14u) {
        r = r + vec3(sb * x, sb, 0.0);
    } else {
        r = r + vec3(sb * z, 0.0, 0.0);
    }
    return r;
}

// lerp(t, a, b) = a + t * (b - a) with its product-rule derivative.
fn vec3 tf_lerpd(float t, float tdx, float tdy, vec3 a, vec3 b) {
    let float d = b.x - a.x;
    return vec3(a.x + t * d, (a.y + t * (b.y - a.y)) + tdx * d, (a.z + t * (b.z - a.z)) + tdy * d);
}

// The trilinear blend of Perlin's noise over the corners (i + 2j + 4k).
fn vec3 tf_blend3(vec3 c0, vec3 c1, vec3 c2, vec3 c3, vec3 c4, vec3 c5, vec3 c6, vec3 c7, float fx, float fy, float fz) {
    let float u = tf_fade(fx);
    let float v = tf_fade(fy);
    let float w = tf_fade(fz);
    let float du = tf_dfade(fx);
    let float dv = tf_dfade(fy);
    let vec3 a = tf_lerpd(v, 0.0, dv, tf_lerpd(u, du, 0.0, c0, c1), tf_lerpd(u, du, 0.0, c2, c3));
    let vec3 b = tf_lerpd(v, 0.0, dv, tf_lerpd(u, du, 0.0, c4, c5), tf_lerpd(u, du, 0.0, c6, c7));
    return tf_lerpd(w, 0.0, 0.0, a, b);
}

//@section simplex: core
//@arrays simplex_gradients
// docs/noise.md "simplex".
fn vec3 tf_simplex_corner(uint seed, uint i, uint j, float dx, float dy) {
    let float t0 = (0.5 - dx * dx) - dy * dy;
    if (t0 <= 0.0) {
        return vec3(0.0, 0.0, 0.0);
    }
    let uint h = tf_mix32((seed ^ (i * 0x1dde90c9u)) ^ (j * 0x43c42e4du)) >> 27u;
    let vec2 g = TF_SIMPLEX_GRAD[h];
    let float t2 = t0 * t0;
    let float t4 = t2 * t2;
    let float gd = g.x * dx + g.y * dy;
    let float k = 8.0 * (t2 * t0) * gd;
    return vec3(t4 * gd, t4 * g.x - k * dx, t4 * g.y - k * dy);
}

fn vec3 tf_simplex(uint seed, tf_s x, tf_s y) {
    // s = (x + y) * F2: the integer parts' share in fixed point
    let tf_s m = tf_mul(tf_s(int(uint(x.i) + uint(y.i)), 0.0), uvec3(0u, 0x5db3d742u, 0xc2655400u), 0.0);
    let float sf = m.f + (x.f + y.f) * 0.36602540378443865;
    let tf_s cx = tf_norm(int(uint(x.i) + uint(m.i)), x.f + sf);
    let tf_s cy = tf_norm(int(uint(y.i) + uint(m.i)), y.f + sf);
    let float t = (cx.f + cy.f) * 0.21132486540518713;
    let float x0 = cx.f - t;
    let float y0 = cy.f - t;
    let uint i = uint(cx.i);
    let uint j = uint(cy.i);
    var uint i1 = 0u;
    var uint j1 = 1u;
    if (x0 > y0) {
        i1 = 1u;
        j1 = 0u;
    }
    let float x1 = (x0 - float(i1)) + 0.21132486540518713;
    let float y1 = (y0 - float(j1)) + 0.21132486540518713;
    let float x2 = (x0 - 1.0) + 0.42264973081037427;
    let float y2 = (y0 - 1.0) + 0.42264973081037427;
    let vec3 n0 = tf_simplex_corner(seed, i, j, x0, y0);
    let vec3 n1 = tf_simplex_corner(seed, i + i1, j + j1, x1, y1);
    let vec3 n2 = tf_simplex_corner(seed, i + 1u, j + 1u, x2, y2);
    return 99.0 * ((n0 + n1) + n2);
}

//@section prsimplex: core
//@arrays prsimplex_table
// docs/noise.md "perlin-reference-simplex": Perlin's Noise3 (2001), its
// int arithmetic in wrapping 32-bit words.
fn uint tf_pr_b(uint i, uint j, uint k, uint bb) {
    return TF_PR_T[(((i >> bb) & 1u) << 2u) | (((j >> bb) & 1u) << 1u) | ((k >> bb) & 1u)];
}

fn uint tf_pr_shuffle(uint i, uint j, uint k) {
    return ((((((tf_pr_b(i, j, k, 0u) + tf_pr_b(j, k, i, 1u)) + tf_pr_b(k, i, j, 2u)) + tf_pr_b(i, j, k, 3u)) + tf_pr_b(j, k, i, 4u)) + tf_pr_b(k, i, j, 5u)) + tf_pr_b(i, j, k, 6u)) + tf_pr_b(j, k, i, 7u);
}

// One corner of Noise3.K: ijk the cell, off the corner's offset A, uvw the
// point in the cell.
fn vec3 tf_pr_corner(ivec3 ijk, ivec3 off, vec3 uvw) {
    let float s2 = float((off.x + off.y) + off.z) / 6.0;
    let vec3 d = vec3((uvw.x - float(off.x)) + s2, (uvw.y - float(off.y)) + s2, (uvw.z - float(off.z)) + s2);
    let float t = ((0.6 - d.x * d.x) - d.y * d.y) - d.z * d.z;
    if (t < 0.0) {
        return vec3(0.0, 0.0, 0.0);
    }
    let uint h = tf_pr_shuffle(uint(ijk.x) + uint(off.x), uint(ijk.y) + uint(off.y), uint(ijk.z) + uint(off.z));
    let uint b5 = (h >> 5u) & 1u;
    let uint b4 = (h >> 4u) & 1u;
    let uint b3 = (h >> 3u) & 1u;
    let uint b2 = (h >> 2u) & 1u;
    let uint bl = h & 3u;
    var int ap = 2;
    var int aq = 0;
    var int ar = 1;
    if (bl == 1u) {
        ap = 0;
        aq = 1;
        ar = 2;
    } else if (bl == 2u) {
        ap = 1;
        aq = 2;
        ar = 0;
    }
    var float sp = 1.0;
    if (b5 == b3) {
        sp = -1.0;
    }
    var float sq = 1.0;
    if (b5 == b4) {
        sq = -1.0;
    }
    var float sr = 1.0;
    if (b5 != (b4 ^ b3)) {
        sr = -1.0;
    }
    var vec3 c = vec3(0.0, 0.0, 0.0);
    c[ap] = sp;
    var float tail = sr * d[ar];
    if (bl == 0u) {
        tail = sq * d[aq] + sr * d[ar];
        c[aq] = sq;
        c[ar] = sr;
    } else if (b2 == 0u) {
        tail = sq * d[aq];
        c[aq] = sq;
    } else {
        c[ar] = sr;
    }
    let float lin = sp * d[ap] + tail;
    let float tt = t * t;
    let float wt = (8.0 * tt) * tt;
    let float kk = (64.0 * (tt * t)) * lin;
    return vec3(wt * lin, wt * c.x - kk * d.x, wt * c.y - kk * d.y);
}

fn vec3 tf_prsimplex(tf_s x, tf_s y, tf_s z) {
    // s = (x + y + z) / 3, (i, j, k) = floor((x, y, z) + s)
    let tf_s m = tf_mul(tf_s(int((uint(x.i) + uint(y.i)) + uint(z.i)), 0.0), uvec3(0u, 0x55555555u, 0x55555555u), 0.0);
    let float sf = m.f + ((x.f + y.f) + z.f) / 3.0;
    let tf_s ci = tf_norm(int(uint(x.i) + uint(m.i)), x.f + sf);
    let tf_s cj = tf_norm(int(uint(y.i) + uint(m.i)), y.f + sf);
    let tf_s ck = tf_norm(int(uint(z.i) + uint(m.i)), z.f + sf);
    // (i + j + k) / 6 as q + r / 6 with floor division
    let int n = int((uint(ci.i) + uint(cj.i)) + uint(ck.i));
    var int q = 0;
    if (n >= 0) {
        q = n / 6;
    } else {
        q = -((-(n + 1)) / 6) - 1;
    }
    let float rs = float(int(uint(n) - uint(6 * q))) / 6.0;
    let vec3 uvw = vec3(float(int((uint(x.i) - uint(ci.i)) + uint(q))) + (x.f + rs), float(int((uint(y.i) - uint(cj.i)) + uint(q))) + (y.f + rs), float(int((uint(z.i) - uint(ck.i)) + uint(q))) + (z.f + rs));
    var int hi = 0;
    if (uvw.x >= uvw.z) {
        if (uvw.x < uvw.y) {
            hi = 1;
        }
    } else {
        hi = 2;
        if (uvw.y >= uvw.z) {
            hi = 1;
        }
    }
    var int lo = 0;
    if (uvw.x < uvw.z) {
        if (uvw.x >= uvw.y) {
            lo = 1;
        }
    } else {
        lo = 2;
        if (uvw.y < uvw.z) {
            lo = 1;
        }
    }
    let ivec3 ijk = ivec3(ci.i, cj.i, ck.i);
    var ivec3 off = ivec3(0, 0, 0);
    let vec3 r0 = tf_pr_corner(ijk, off, uvw);
    off[hi] = off[hi] + 1;
    let vec3 r1 = tf_pr_corner(ijk, off, uvw);
    off[(3 - hi) - lo] = off[(3 - hi) - lo] + 1;
    let vec3 r2 = tf_pr_corner(ijk, off, uvw);
    off[lo] = off[lo] + 1;
    let vec3 r3 = tf_pr_corner(ijk, off, uvw);
    return ((r0 + r1) + r2) + r3;
}

//@section perlin: grad3
//@arrays perlin_permutation
// docs/noise.md "perlin": Perlin's improved noise (2002), the seed a whole-
// cell translation.
fn uint tf_perm(uint i) {
    return TF_PERM[i & 255u];
}

fn vec3 tf_perlin(uint seed, tf_s x, tf_s y, tf_s z) {
    var uint ox = 0u;
    var uint oy = 0u;
    var uint oz = 0u;
    if (seed != 0u) {
        let uint hs = tf_hash(0u, seed);
        ox = tf_hash(hs, 1u) & 255u;
        oy = tf_hash(hs, 2u) & 255u;
        oz = tf_hash(hs, 3u) & 255u;
    }
    let uint cx = (uint(x.i) + ox) & 255u;
    let uint cy = (uint(y.i) + oy) & 255u;
    let uint cz = (uint(z.i) + oz) & 255u;
    let uint pa = tf_perm(cx) + cy;
    let uint paa = tf_perm(pa) + cz;
    let uint pab = tf_perm(pa + 1u) + cz;
    let uint pb = tf_perm(cx + 1u) + cy;
    let uint pba = tf_perm(pb) + cz;
    let uint pbb = tf_perm(pb + 1u) + cz;
    let float fx = x.f;
    let float fy = y.f;
    let float fz = z.f;
    let float gx = fx - 1.0;
    let float gy = fy - 1.0;
    let float gz = fz - 1.0;
    return tf_blend3(tf_grad3(tf_perm(paa), fx, fy, fz), tf_grad3(tf_perm(pba), gx, fy, fz), tf_grad3(tf_perm(pab), fx, gy, fz), tf_grad3(tf_perm(pbb), gx, gy, fz), tf_grad3(tf_perm(paa + 1u), fx, fy, gz), tf_grad3(tf_perm(pba + 1u), gx, fy, gz), tf_grad3(tf_perm(pab + 1u), fx, gy, gz), tf_grad3(tf_perm(pbb + 1u), gx, gy, gz), fx, fy, fz);
}

//@section expperlin: grad3
//@arrays exp_magnitudes
// docs/noise.md "exponential-perlin" (Parberry 2015).
fn vec3 tf_expc(uint h, float x, float y, float z) {
    return TF_EXPMAG[h >> 24u] * tf_grad3(h, x, y, z);
}

fn vec3 tf_expperlin(uint seed, tf_s x, tf_s y, tf_s z) {
    let uint hs = tf_hash(0u, seed);
    let uint cx = uint(x.i);
    let uint cy = uint(y.i);
    let uint cz = uint(z.i);
    let uint h0 = tf_hash(hs, cx);
    let uint h1 = tf_hash(hs, cx + 1u);
    let uint h00 = tf_hash(h0, cy);
    let uint h10 = tf_hash(h1, cy);
    let uint h01 = tf_hash(h0, cy + 1u);
    let uint h11 = tf_hash(h1, cy + 1u);
    let float fx = x.f;
    let float fy = y.f;
    let float fz = z.f;
    let float gx = fx - 1.0;
    let float gy = fy - 1.0;
    let float gz = fz - 1.0;
    return tf_blend3(tf_expc(tf_hash(h00, cz), fx, fy, fz), tf_expc(tf_hash(h10, cz), gx, fy, fz), tf_expc(tf_hash(h01, cz), fx, gy, fz), tf_expc(tf_hash(h11, cz), gx, gy, fz), tf_expc(tf_hash(h00, cz + 1u), fx, fy, gz), tf_expc(tf_hash(h10, cz + 1u), gx, fy, gz), tf_expc(tf_hash(h01, cz + 1u), fx, gy, gz), tf_expc(tf_hash(h11, cz + 1u), gx, gy, gz), fx, fy, fz);
}

//@section corners2: hash
// The four corner values of a 2D cell: (v00, v10, v01, v11).
fn vec4 tf_corners2(uint seed, uint cx, uint cy) {
    let uint hs = tf_hash(0u, seed);
    let uint h0 = tf_hash(hs, cx);
    let uint h1 = tf_hash(hs, cx + 1u);
    return vec4(tf_cval(tf_hash(h0, cy)), tf_cval(tf_hash(h1, cy)), tf_cval(tf_hash(h0, cy + 1u)), tf_cval(tf_hash(h1, cy + 1u)));
}

//@section polynomial: corners2
// docs/noise.md "polynomial" (Thorimbert and Chopard, D2M1N3).
fn vec3 tf_polynomial(uint seed, tf_s x, tf_s y) {
    let vec4 h = tf_corners2(seed, uint(x.i), uint(y.i));
    let float fx = x.f;
    let float fy = y.f;
    let float ex = h.y - h.x;
    let float ey = h.z - h.x;
    let float ea = ((h.w + h.x) - h.y) - h.z;
    let float sx = fx * fx * (3.0 - 2.0 * fx);
    let float sy = fy * fy * (3.0 - 2.0 * fy);
    let float n = ((h.x + sx * ex) + sy * ey) + ea * ((sx * fy + sy * fx) - fx * fy);
    let float ddx = 6.0 * fx * (1.0 - fx) * ex + ea * ((6.0 * fx * (1.0 - fx) * fy + sy) - fy);
    let float ddy = 6.0 * fy * (1.0 - fy) * ey + ea * ((sx + 6.0 * fy * (1.0 - fy) * fx) - fx);
    return vec3(n, ddx, ddy);
}

//@section value: corners2
// docs/noise.md "value".
fn vec3 tf_value(uint seed, tf_s x, tf_s y) {
    let vec4 h = tf_corners2(seed, uint(x.i), uint(y.i));
    let float e0 = h.y - h.x;
    let float e1 = h.w - h.z;
    let float u = tf_fade(x.f);
    let float v = tf_fade(y.f);
    let float a = h.x + u * e0;
    let float b = h.z + u * e1;
    return vec3(a + v * (b - a), tf_dfade(x.f) * (e0 + v * (e1 - e0)), tf_dfade(y.f) * (b - a));
}

//@section cellular: hash
// docs/noise.md "cellular" (Worley 1996): F1, F2 or F2 - F1 (which = 0, 1,
// 2). Rings 0 and 1 always; ring 2 only where it can hold a point nearer
// than the second nearest so far. Ties change no value.
fn vec3 tf_cellular(uint seed, tf_s x, tf_s y, int which) {
    let uint hs = tf_hash(0u, seed);
    let float fx = x.f;
    let float fy = y.f;
    var vec3 b1 = vec3(1.0e30, 0.0, 0.0);
    var vec3 b2 = vec3(1.0e30, 0.0, 0.0);
    for (var int dj = -2; dj <= 2; dj++) {
        for (var int di = -2; di <= 2; di++) {
            let float bx = max(max(float(di) - fx, fx - float(di + 1)), 0.0);
            let float by = max(max(float(dj) - fy, fy - float(dj + 1)), 0.0);
            if (bx * bx + by * by < b2.x) {
                let uint h = tf_hash(tf_hash(hs, uint(x.i) + uint(di)), uint(y.i) + uint(dj));
                let float rx = (float(di) + (float(h & 0xffffu) + 0.5) * 1.52587890625e-5) - fx;
                let float ry = (float(dj) + (float(h >> 16u) + 0.5) * 1.52587890625e-5) - fy;
                let float d2 = rx * rx + ry * ry;
                if (d2 < b1.x) {
                    b2 = b1;
                    b1 = vec3(d2, rx, ry);
                } else if (d2 < b2.x) {
                    b2 = vec3(d2, rx, ry);
                }
            }
        }
    }
    let float f1 = sqrt(b1.x);
    let float f2 = sqrt(b2.x);
    var vec2 g1 = vec2(0.0, 0.0);
    if (f1 > 0.0) {
        g1 = vec2(-b1.y / f1, -b1.z / f1);
    }
    let vec2 g2 = vec2(-b2.y / f2, -b2.z / f2);
    if (which == 0) {
        return vec3(f1, g1.x, g1.y);
    }
    if (which == 1) {
        return vec3(f2, g2.x, g2.y);
    }
    return vec3(f2 - f1, g2.x - g1.x, g2.y - g1.y);
}

//@section fractal: core
// docs/spec.md "Layer kinds": an octave's term (value, d/dx, d/dy) for
// fbm, ridged and billow, v the octave's noise, fi its frequency.
fn vec3 tf_fbm_term(vec3 v, float fi) {
    return vec3(v.x, fi * v.y, fi * v.z);
}

fn vec3 tf_ridged_term(vec3 v, float fi) {
    var float sg = -1.0;
    if (v.x < 0.0) {
        sg = 1.0;
    }
    return vec3(1.0 - abs(v.x), sg * (fi * v.y), sg * (fi * v.z));
}

fn vec3 tf_billow_term(vec3 v, float fi) {
    var float sg = 1.0;
    if (v.x < 0.0) {
        sg = -1.0;
    }
    return vec3(abs(v.x), sg * (fi * v.y), sg * (fi * v.z));
}

//@section curves: core
// docs/spec.md "Redistribution curves": the cosine blend c(t) = q * q with
// q = s P(s^2) = sin(pi t / 2), s = t / 2, P the runtime's polynomial (a
// GPU's sin may be as coarse as 2^-11), and c'(t) = q (P(z) + 2 z P'(z)).
fn float tf_cosp(float z) {
    return (((((((((5.392664662608129e-10 * z - 2.2948428997269873e-08) * z + 7.952054001475513e-07) * z - 2.1915353447830217e-05) * z + 0.00046630280576761255) * z - 0.0073704309457143504) * z + 0.08214588661112823) * z - 0.5992645293207921) * z + 2.5501640398773455) * z - 5.16771278004997) * z + 3.141592653589793;
}

fn float tf_dcosp(float z) {
    return ((((((((10.0 * 5.392664662608129e-10 * z - 9.0 * 2.2948428997269873e-08) * z + 8.0 * 7.952054001475513e-07) * z - 7.0 * 2.1915353447830217e-05) * z + 6.0 * 0.00046630280576761255) * z - 5.0 * 0.0073704309457143504) * z + 4.0 * 0.08214588661112823) * z - 3.0 * 0.5992645293207921) * z + 2.0 * 2.5501640398773455) * z - 5.16771278004997;
}

fn float tf_cosblend(float t) {
    let float s = t * 0.5;
    let float q = s * tf_cosp(s * s);
    return q * q;
}

fn float tf_dcosblend(float t) {
    let float s = t * 0.5;
    let float z = s * s;
    return (s * tf_cosp(z)) * (tf_cosp(z) + 2.0 * z * tf_dcosp(z));
}

// docs/spec.md step 4: a range mask's weight and its derivative in r_m.
fn vec2 tf_range_mask(float rm, float lo, float hi, float falloff, float inv) {
    if (rm >= lo && rm <= hi) {
        return vec2(1.0, 0.0);
    }
    var float d = rm - hi;
    var float ds = -inv;
    if (rm < lo) {
        d = lo - rm;
        ds = inv;
    }
    if (d >= falloff) {
        return vec2(0.0, 0.0);
    }
    let float s = 1.0 - d * inv;
    return vec2((s * s) * (3.0 - 2.0 * s), 6.0 * s * (1.0 - s) * ds);
}
