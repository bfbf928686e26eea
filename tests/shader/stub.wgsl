// Hand-written stand-in for `terrafit shader --lang wgsl` output with the
// same interface (NAME = terrain), used as the GPU harness's self-test
// (tests/shader/selftest.sh): h = f(x / 256) * f(y / 384) with the C1
// periodic cubic f(t) = 8 t (1 - t) (1 - 2 t) of t mod 1, so the cell is
// reduced exactly with integer operations and the result is as precise at
// +-1e6 as at the origin (see stub.glsl). The
// factor tf_one[...] (all 1.0, indexed by a hash of the cell) exercises a
// dynamically indexed module-scope var<private> array with an initializer,
// as a noise permutation table would be.

const terrain_MIN_VALUE: f32 = -16.0 / 27.0;
const terrain_MAX_VALUE: f32 = 16.0 / 27.0;

var<private> tf_one: array<f32, 8> = array<f32, 8>(1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0);
const tf_kx: f32 = 1.0 / 256.0;
const tf_ky: f32 = 1.0 / 384.0;

fn tf_pick(cell: vec2i) -> u32 {
    var h = (bitcast<u32>(cell.x) * 0x9E3779B1u) ^ (bitcast<u32>(cell.y) * 0x85EBCA77u);
    h ^= h >> 15u;
    return h >> 29u;
}

// f(t) and f'(t)
fn tf_cubic(t: f32) -> vec2f {
    return vec2f(8.0 * t * (1.0 - t) * (1.0 - 2.0 * t), 8.0 * (1.0 - 6.0 * t + 6.0 * t * t));
}

// The phase in [0, 1) of (cell + frac): cell.x mod 256 by a mask, cell.y mod 384 as a
// u32 after adding a multiple of 384 (cells are within +-2^24).
fn tf_phase(cell: vec2i, frac: vec2f) -> vec2f {
    let x = f32(cell.x & 255) + frac.x;
    let y = f32(u32(cell.y + 25165824) % 384u) + frac.y;
    return vec2f(x * tf_kx, y * tf_ky);
}

fn terrain_at(cell: vec2i, frac: vec2f) -> f32 {
    let a = tf_phase(cell, frac);
    return tf_cubic(a.x).x * tf_cubic(a.y).x * tf_one[tf_pick(cell)];
}

fn terrain_gradient_at(cell: vec2i, frac: vec2f) -> vec3f {
    let a = tf_phase(cell, frac);
    let fx = tf_cubic(a.x);
    let fy = tf_cubic(a.y);
    let one = tf_one[tf_pick(cell)];
    return vec3f(fx.x * fy.x, tf_kx * fx.y * fy.x, tf_ky * fx.x * fy.y) * one;
}

fn terrain(p: vec2f) -> f32 {
    let c = floor(p);
    return terrain_at(vec2i(c), p - c);
}

fn terrain_gradient(p: vec2f) -> vec3f {
    let c = floor(p);
    return terrain_gradient_at(vec2i(c), p - c);
}
