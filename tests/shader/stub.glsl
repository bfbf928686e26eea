// Hand-written stand-in for `terrafit shader --lang glsl` output with the
// same interface (NAME = terrain), used as the GPU harness's self-test
// (tests/shader/selftest.sh): h = sin(2 pi x / 256) * cos(2 pi y / 384),
// periodic in whole cells, so the cell is reduced exactly with integer
// operations and the result is as precise at +-1e6 as at the origin. The
// factor tf_one[...] (all 1.0, indexed by a hash of the cell) exercises
// dynamically indexed const arrays and uint bit operations, as a noise
// permutation table does.
#ifdef GL_ES
precision highp float;
precision highp int;
#endif

const float terrain_MIN_VALUE = -1.0;
const float terrain_MAX_VALUE = 1.0;

const float tf_one[8] = float[8](1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0);
const float tf_kx = 6.283185307179586 / 256.0;
const float tf_ky = 6.283185307179586 / 384.0;

int tf_pick(ivec2 cell) {
    uint h = (uint(cell.x) * 0x9E3779B1u) ^ (uint(cell.y) * 0x85EBCA77u);
    h ^= h >> 15u;
    return int(h >> 29u);
}

// The phase of (cell + frac): cell.x mod 256 by a mask, cell.y mod 384 as a
// uint after adding a multiple of 384 (cells are within +-2^24).
vec2 tf_phase(ivec2 cell, vec2 frac) {
    float x = float(cell.x & 255) + frac.x;
    float y = float(uint(cell.y + 25165824) % 384u) + frac.y;
    return vec2(x * tf_kx, y * tf_ky);
}

float terrain_at(ivec2 cell, vec2 frac) {
    vec2 a = tf_phase(cell, frac);
    return sin(a.x) * cos(a.y) * tf_one[tf_pick(cell)];
}

vec3 terrain_gradient_at(ivec2 cell, vec2 frac) {
    vec2 a = tf_phase(cell, frac);
    float one = tf_one[tf_pick(cell)];
    return vec3(sin(a.x) * cos(a.y), tf_kx * cos(a.x) * cos(a.y), -tf_ky * sin(a.x) * sin(a.y)) * one;
}

float terrain(vec2 p) {
    vec2 c = floor(p);
    return terrain_at(ivec2(c), p - c);
}

vec3 terrain_gradient(vec2 p) {
    vec2 c = floor(p);
    return terrain_gradient_at(ivec2(c), p - c);
}
