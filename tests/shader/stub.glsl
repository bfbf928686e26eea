// Hand-written stand-in for `terrafit shader --lang glsl` output with the
// same interface (NAME = terrain), used as the GPU harness's self-test
// (tests/shader/selftest.sh): h = f(x / 256) * f(y / 384) with the C1
// periodic cubic f(t) = 8 t (1 - t) (1 - 2 t) of t mod 1, so the cell is
// reduced exactly with integer operations and the result is as precise at
// +-1e6 as at the origin. A polynomial, not sin/cos: SwiftShader's sin is
// only good to ~2e-4, which would blur the check (stub-check.mjs). The
// factor tf_one[...] (all 1.0, indexed by a hash of the cell) exercises
// dynamically indexed const arrays and uint bit operations, as a noise
// permutation table does.
#ifdef GL_ES
precision highp float;
precision highp int;
#endif

const float terrain_MIN_VALUE = -16.0 / 27.0;
const float terrain_MAX_VALUE = 16.0 / 27.0;

const float tf_one[8] = float[8](1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0);
const float tf_kx = 1.0 / 256.0;
const float tf_ky = 1.0 / 384.0;

int tf_pick(ivec2 cell) {
    uint h = (uint(cell.x) * 0x9E3779B1u) ^ (uint(cell.y) * 0x85EBCA77u);
    h ^= h >> 15u;
    return int(h >> 29u);
}

// f(t) and f'(t)
vec2 tf_cubic(float t) {
    return vec2(8.0 * t * (1.0 - t) * (1.0 - 2.0 * t), 8.0 * (1.0 - 6.0 * t + 6.0 * t * t));
}

// The phase in [0, 1) of (cell + frac): cell.x mod 256 by a mask, cell.y mod 384 as a
// uint after adding a multiple of 384 (cells are within +-2^24).
vec2 tf_phase(ivec2 cell, vec2 frac) {
    float x = float(cell.x & 255) + frac.x;
    float y = float(uint(cell.y + 25165824) % 384u) + frac.y;
    return vec2(x * tf_kx, y * tf_ky);
}

float terrain_at(ivec2 cell, vec2 frac) {
    vec2 a = tf_phase(cell, frac);
    return tf_cubic(a.x).x * tf_cubic(a.y).x * tf_one[tf_pick(cell)];
}

vec3 terrain_gradient_at(ivec2 cell, vec2 frac) {
    vec2 a = tf_phase(cell, frac);
    vec2 fx = tf_cubic(a.x), fy = tf_cubic(a.y);
    float one = tf_one[tf_pick(cell)];
    return vec3(fx.x * fy.x, tf_kx * fx.y * fy.x, tf_ky * fx.x * fy.y) * one;
}

float terrain(vec2 p) {
    vec2 c = floor(p);
    return terrain_at(ivec2(c), p - c);
}

vec3 terrain_gradient(vec2 p) {
    vec2 c = floor(p);
    return terrain_gradient_at(ivec2(c), p - c);
}
