/*
 * The fast evaluation paths (docs/performance.md) give the bits of the
 * single-sample definition: the batched grid on the portable and the AVX2
 * path, the vector noise and curve lookups, and the single sample itself,
 * across random specs (masks, mask curves, output curves, both noise
 * kinds), huge coordinates and NaN/inf inputs, and the golden vectors.
 */
#define _POSIX_C_SOURCE 200809L /* setenv */

#include <check.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "runtime/bench.h" /* tf_fractal_sum_row */
#include "runtime/curve_lanes.h" /* tf_curve_place_avx2 */
#include "runtime/internal.h"
#include "runtime/noise.h"
#include "terrafit/runtime.h"
#include "testutil.h"

/* splitmix64: a reproducible stream per test iteration */
static uint64_t rng_next(uint64_t *state)
{
    uint64_t z = (*state += 0x9E3779B97F4A7C15u);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9u;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBu;
    return z ^ (z >> 31);
}

static double rng_unit(uint64_t *state)
{
    return (double)(rng_next(state) >> 11) * 0x1.0p-53;
}

static double rng_range(uint64_t *state, double lo, double hi)
{
    return lo + (hi - lo) * rng_unit(state);
}

/* The paths this machine can run. */
static int path_count(void)
{
    return tf_simd_avx512_available() ? 3 : tf_simd_avx2_available() ? 2 : 1;
}

static tf_simd_level path_level(int k)
{
    return k == 0 ? TF_SIMD_NONE : k == 1 ? TF_SIMD_AVX2 : TF_SIMD_AVX512;
}

/* Path k on a compiled terrain, through the public switch, which also
 * picks the lanes a single sample takes on that path. */
static void use_path(tf_terrain *t, int k)
{
    static const char *const names[] = {"none", "avx2", "avx512"};
    tf_error err;
    ck_assert_msg(tf_terrain_set_path(t, names[k], &err) == 0, "path %s: %s", names[k],
                  err.message);
    ck_assert(t->simd == path_level(k));
    /* the lanes chosen again with the path (the terrain was compiled for
     * the best one): the groups taken and the scalar layers hold every
     * layer once, each group only where its noise has lanes on this path
     * and it has that many layers; the portable path takes none */
    unsigned char seen[TF_MAX_LAYERS] = {0};
    size_t laned = 0;
    for (size_t j = 0; j < t->lane_groups_on; j++) {
        size_t g = t->lane_group_on[j];
        ck_assert_uint_lt(g, t->noise_lane_groups);
        int from = tf_noise_lanes_from(t->simd, t->noise_lane_type[g]);
        ck_assert(k > 0 && from > 0 && t->noise_lane_group_size[g] >= (size_t)from);
        ck_assert(t->lane_group_lanes[j] == tf_noise_lanes(t->simd, t->noise_lane_type[g]));
        for (size_t m = 0; m < t->noise_lane_group_size[g]; m++) {
            size_t i = t->noise_lane_layer[t->noise_lane_first[g] + m];
            ck_assert(i < t->layer_count && !seen[i]++);
            ck_assert_int_eq(t->layers[i].noise_type, t->noise_lane_type[g]);
            laned++;
        }
    }
    for (size_t j = 0; j < t->scalar_layer_count; j++)
        ck_assert(t->scalar_layer[j] < t->layer_count && !seen[t->scalar_layer[j]]++);
    ck_assert_uint_eq(laned + t->scalar_layer_count, t->layer_count);
    ck_assert_int_eq(t->lanes_hold_every_layer, t->lane_groups_on == 1 && laned == t->layer_count);
    for (size_t g = 0; g < t->noise_lane_groups; g++) { /* a group not taken does not pay */
        int from = tf_noise_lanes_from(t->simd, t->noise_lane_type[g]), on = 0;
        for (size_t j = 0; j < t->lane_groups_on; j++)
            on |= t->lane_group_on[j] == g;
        ck_assert(on || from == 0 || t->noise_lane_group_size[g] < (size_t)from);
    }
    for (size_t i = 0; i < t->layer_count; i++) { /* the octaves' lanes where they pay */
        const tf_compiled_layer *L = &t->layers[i];
        const tf_fractal_plan *P = L->plan;
        int from = P ? tf_noise_lanes_from(t->simd, P->noise) : 0;
        int has = P &&
                  (P->kind == TF_FRACTAL_FBM || P->kind == TF_FRACTAL_RIDGED ||
                   P->kind == TF_FRACTAL_BILLOW) &&
                  from > 0 && P->octaves >= from;
        ck_assert(L->plan_lanes == (has ? tf_noise_lanes(t->simd, P->noise) : NULL));
    }
    if (k == 0)
        ck_assert_uint_eq(t->lane_groups_on, 0);
}

/* A coordinate: mostly ordinary, sometimes huge, on a lattice point,
 * negative zero, or not finite. */
static double rng_coordinate(uint64_t *state)
{
    switch (rng_next(state) % 10) {
    case 0:
        return ldexp(rng_range(state, -1.0, 1.0), 40 + (int)(rng_next(state) % 14));
    case 1:
        return (double)((int64_t)(rng_next(state) % 2001) - 1000);
    case 2: {
        double special[] = {NAN, INFINITY, -INFINITY, -0.0, 0x1p52, -0x1p52, 0x1p49, -0x1p49,
                            0x1.fffffffffffffp48};
        return special[rng_next(state) % (sizeof special / sizeof special[0])];
    }
    default:
        return rng_range(state, -5000.0, 5000.0);
    }
}

static void random_points(uint64_t *state, tf_point *p, size_t count, double x0, double x1)
{
    double x = x0;
    double span = (x1 - x0) / (double)count;
    for (size_t k = 0; k < count; k++) {
        /* uneven spacing, sometimes clustered, so bucket walks happen */
        x += span * (rng_next(state) % 4 == 0 ? 0.01 : rng_range(state, 0.2, 1.8));
        p[k].x = x;
        /* a repeat of the last value (a flat run); the first point has
         * none to repeat and takes 0.0 (its slot holds whatever the
         * caller's buffer held) */
        p[k].y =
            rng_next(state) % 5 == 0 ? (k > 0 ? p[k - 1].y : 0.0) : rng_range(state, -1.0, 1.5);
    }
}

/* The end of a random spec: an output curve half the time, the range,
 * and the check that it is valid. */
static tf_spec *random_spec_finish(tf_spec *spec, uint64_t *state)
{
    tf_point pts[66];
    if (rng_next(state) % 2) {
        size_t oc = 2 + rng_next(state) % 64;
        random_points(state, pts, oc, -4.0, 4.0);
        ck_assert_int_eq(
            tf_spec_set_output_curve(spec, pts, oc, (tf_interp)(rng_next(state) % 3), NULL), 0);
    }
    spec->min_value = -3.0;
    spec->max_value = 3.0;
    tf_error err;
    ck_assert_msg(tf_spec_validate(spec, &err) == 0, "%s", err.message);
    return spec;
}

/* A random valid spec: 1-8 layers, every base noise, a third of them
 * fractal kinds, 2-300 points, every interpolation, range masks (falloff 0 included), mask curves, an output
 * curve. */
static tf_spec *random_spec(uint64_t *state)
{
    size_t layers = 1 + rng_next(state) % 8;
    tf_spec *spec = tf_spec_new(layers, NULL);
    ck_assert_ptr_nonnull(spec);
    tf_spec_reseed(spec, (uint32_t)rng_next(state));
    static tf_point pts[300];
    for (size_t i = 0; i < layers; i++) {
        tf_layer_spec *L = &spec->layers[i];
        /* half simplex, the rest any base noise (each kind's rows) */
        L->noise_type = rng_next(state) % 2 == 0
                            ? TF_NOISE_SIMPLEX
                            : (tf_noise_type)(rng_next(state) % TF_NOISE_TYPE_COUNT);
        L->frequency = ldexp(rng_range(state, 0.5, 1.0), -(int)(rng_next(state) % 12));
        if (rng_next(state) % 3 == 0) { /* a layer kind: each has a row version */
            static const tf_fractal_kind kinds[] = {TF_FRACTAL_FBM, TF_FRACTAL_RIDGED,
                                                    TF_FRACTAL_BILLOW, TF_FRACTAL_SWISS,
                                                    TF_FRACTAL_JORDAN};
            tf_fractal_set_defaults(L, kinds[rng_next(state) % 5]);
            L->fractal_octaves = 1 + (int)(rng_next(state) % 8);
            L->fractal_lacunarity = rng_range(state, 1.5, 2.5);
            L->fractal_gain = rng_range(state, 0.3, 0.7);
        }
        size_t count = 2 + rng_next(state) % 299;
        random_points(state, pts, count, rng_range(state, -0.2, 0.1), rng_range(state, 0.9, 1.2));
        ck_assert_int_eq(tf_spec_set_rd_points(spec, i, pts, count, NULL), 0);
        L->rd_interpolation = (tf_interp)(rng_next(state) % TF_INTERP_KIND_COUNT);
        L->pre_amp_shift = rng_range(state, -0.5, 0.5);
        L->amp_scale = rng_range(state, 0.1, 2.0);
        if (i > 0 && rng_next(state) % 2) {
            int mask = (int)(rng_next(state) % i);
            if (rng_next(state) % 2) {
                size_t mc = 2 + rng_next(state) % 20;
                random_points(state, pts, mc, -0.3, 1.3);
                ck_assert_int_eq(tf_spec_set_mask_curve(spec, i, mask, pts, mc,
                                                        (tf_interp)(rng_next(state) % 3), NULL),
                                 0);
            } else {
                L->mask_layer_index = mask;
                L->mask_min_value = rng_range(state, -0.5, 0.6);
                L->mask_max_value = L->mask_min_value + rng_range(state, 0.0, 0.8);
                L->mask_falloff = rng_next(state) % 3 == 0 ? 0.0 : rng_range(state, 0.0, 0.3);
            }
        }
    }
    return random_spec_finish(spec, state);
}

/* Bits to compare: a NaN's sign and payload are not specified
 * (docs/spec.md), so every NaN compares as one value. */
static uint32_t float_bits(float f)
{
    if (isnan(f))
        return 0x7FC00000u;
    uint32_t u;
    memcpy(&u, &f, sizeof u);
    return u;
}

static uint64_t double_bits(double d)
{
    if (isnan(d))
        return 0x7FF8000000000000u;
    uint64_t u;
    memcpy(&u, &d, sizeof u);
    return u;
}

/* A random spec whose mask curves all read layer 0, most of them on one
 * set of knots (tf_terrain.mask_knots: found once a sample), the others
 * on their own; 3-8 layers, each interpolation, knots reaching past the
 * ends of layer 0's values and the occasional range mask beside them. */
static tf_spec *random_spec_shared_knots(uint64_t *state)
{
    size_t layers = 3 + rng_next(state) % 6;
    tf_spec *spec = tf_spec_new(layers, NULL);
    ck_assert_ptr_nonnull(spec);
    tf_spec_reseed(spec, (uint32_t)rng_next(state));
    static tf_point pts[300], knots[TF_CURVE_LANE_SEGMENTS + 8];
    size_t knot_count = 2 + rng_next(state) % (TF_CURVE_LANE_SEGMENTS + 4);
    random_points(state, knots, knot_count, -0.3, 1.3);
    tf_interp knot_interp = (tf_interp)(rng_next(state) % 3);
    for (size_t i = 0; i < layers; i++) {
        tf_layer_spec *L = &spec->layers[i];
        L->noise_type = TF_NOISE_SIMPLEX;
        L->frequency = ldexp(rng_range(state, 0.5, 1.0), -(int)(rng_next(state) % 10));
        size_t count = 2 + rng_next(state) % 80;
        random_points(state, pts, count, rng_range(state, -0.2, 0.1), rng_range(state, 0.9, 1.2));
        ck_assert_int_eq(tf_spec_set_rd_points(spec, i, pts, count, NULL), 0);
        L->rd_interpolation = (tf_interp)(rng_next(state) % TF_INTERP_KIND_COUNT);
        L->pre_amp_shift = rng_range(state, -0.5, 0.5);
        L->amp_scale = rng_range(state, 0.1, 2.0);
        if (i == 0)
            continue;
        uint64_t kind = i <= 2 ? 0 : rng_next(state) % 8; /* layers 1 and 2 share */
        if (kind < 5) { /* the shared knots, new values */
            memcpy(pts, knots, knot_count * sizeof *pts);
            for (size_t k = 0; k < knot_count; k++)
                pts[k].y = rng_range(state, -0.5, 1.5);
            ck_assert_int_eq(
                tf_spec_set_mask_curve(spec, i, 0, pts, knot_count, knot_interp, NULL), 0);
        } else if (kind < 7) { /* knots of its own, or the shared ones with another interpolation */
            size_t mc = 2 + rng_next(state) % 20;
            tf_interp interp = (tf_interp)(rng_next(state) % 3);
            if (kind == 6) {
                memcpy(pts, knots, knot_count * sizeof *pts);
                mc = knot_count;
                interp = (tf_interp)((knot_interp + 1) % 3);
            } else {
                random_points(state, pts, mc, -0.3, 1.3);
            }
            ck_assert_int_eq(tf_spec_set_mask_curve(spec, i, 0, pts, mc, interp, NULL), 0);
        } else {
            L->mask_layer_index = 0;
            L->mask_min_value = rng_range(state, -0.5, 0.6);
            L->mask_max_value = L->mask_min_value + rng_range(state, 0.0, 0.8);
            L->mask_falloff = rng_range(state, 0.0, 0.3);
        }
    }
    return random_spec_finish(spec, state);
}

/* Grid == single sample on every path, and the paths agree. */
static void check_grids_equal_samples(tf_spec *spec, uint64_t state, int id);

START_TEST(grids_equal_samples_on_every_path)
{
    uint64_t state = 0x5EED0000u + (uint64_t)_i;
    tf_spec *spec = random_spec(&state);
    check_grids_equal_samples(spec, state, _i);
}
END_TEST

/* The same where mask curves share their knots, which the compiled
 * terrain finds (tf_terrain.mask_knots). */
START_TEST(grids_equal_samples_with_masks_on_shared_knots)
{
    uint64_t state = 0x5EA7ED00u + (uint64_t)_i;
    tf_spec *spec = random_spec_shared_knots(&state);
    tf_terrain *t = tf_terrain_compile(spec, NULL);
    ck_assert_ptr_nonnull(t);
    ck_assert_int_eq(t->mask_knots_source, 0);
    ck_assert_ptr_eq(t->mask_knots, &t->layers[1].mask_curve);
    ck_assert(t->layers[1].mask_shares_knots && t->layers[2].mask_shares_knots);
    tf_terrain_free(t);
    check_grids_equal_samples(spec, state, _i);
}
END_TEST

/* The same where a single sample computes a seeded noise's layers, or a
 * layer's octaves, as lanes (tf_noise_lanes): every layer one noise
 * of those with lanes, plain or fbm, ridged or billow of 2-20 octaves
 * (so more than one block of eight), 2-12 layers, in half of the specs
 * of two noises (two groups of lanes); random_spec's coordinates (huge,
 * not finite) included. */
START_TEST(grids_equal_samples_with_noise_lanes)
{
    static const tf_noise_type lanes[] = {
        TF_NOISE_VALUE,          TF_NOISE_POLYNOMIAL, TF_NOISE_CELLULAR_F1,
        TF_NOISE_CELLULAR_F2,    TF_NOISE_CELLULAR_F2_F1, TF_NOISE_PERLIN,
        TF_NOISE_EXPONENTIAL_PERLIN, TF_NOISE_PERLIN_REFERENCE_SIMPLEX, TF_NOISE_SIMPLEX};
    enum { noises = sizeof lanes / sizeof lanes[0] };
    uint64_t state = 0x1A7E5000u + (uint64_t)_i;
    tf_spec *spec = random_spec(&state);
    /* the second half: odd layers of a second noise, so two groups of
     * lanes */
    tf_noise_type types[2] = {lanes[_i % noises],
                              lanes[_i < 32 ? _i % noises : (_i + 3) % noises]};
    size_t layers = 2 + rng_next(&state) % 11, plain[2] = {0, 0};
    tf_spec *wide = tf_spec_new(layers, NULL);
    ck_assert_ptr_nonnull(wide);
    tf_spec_reseed(wide, (uint32_t)rng_next(&state));
    for (size_t i = 0; i < layers; i++) {
        tf_layer_spec *L = &wide->layers[i];
        int which = (int)(i % 2) & (_i >= 32);
        L->noise_type = types[which];
        L->frequency = ldexp(rng_range(&state, 0.5, 1.0), -(int)(rng_next(&state) % 12));
        /* sometimes a z beyond the vectors' range: a 3D noise's block of
         * lanes takes the scalar code, a 2D noise's ignores it */
        if (rng_next(&state) % 8 == 0)
            L->offset[2] = rng_next(&state) % 2 ? 0x1p52 : -1e300;
        if (i == 1 && _i % 2) /* perlin's seed 0 is Perlin's own lattice, no offset */
            L->seed = 0;
        if (i % 3 == 2) {
            static const tf_fractal_kind kinds[] = {TF_FRACTAL_FBM, TF_FRACTAL_RIDGED,
                                                    TF_FRACTAL_BILLOW};
            tf_fractal_set_defaults(L, kinds[rng_next(&state) % 3]);
            L->fractal_octaves = 2 + (int)(rng_next(&state) % 19);
        } else { /* a group's lane where the noise has lanes on some path */
            plain[which] += tf_noise_has_lanes(L->noise_type);
        }
        const tf_layer_spec *from = &spec->layers[i % spec->layer_count];
        ck_assert_int_eq(
            tf_spec_set_rd_points(wide, i, from->rd_points, from->rd_point_count, NULL), 0);
        L->rd_interpolation = from->rd_interpolation;
        L->amp_scale = rng_range(&state, 0.1, 2.0);
        if (i > 0 && rng_next(&state) % 3 == 0) {
            L->mask_layer_index = (int)(rng_next(&state) % i);
            L->mask_min_value = rng_range(&state, -0.5, 0.6);
            L->mask_max_value = L->mask_min_value + rng_range(&state, 0.0, 0.8);
            L->mask_falloff = rng_range(&state, 0.0, 0.3);
        }
    }
    tf_spec_free(spec);
    wide = random_spec_finish(wide, &state);
    tf_terrain *t = tf_terrain_compile(wide, NULL);
    ck_assert_ptr_nonnull(t);
    ck_assert_uint_eq(t->noise_lane_groups, (plain[0] > 0) + (plain[1] > 0));
    ck_assert_uint_eq(t->noise_lane_count, plain[0] + plain[1]);
    for (int k = 0; k < path_count(); k++)
        use_path(t, k);
    tf_terrain_free(t);
    check_grids_equal_samples(wide, state, _i);
}
END_TEST

static void check_grids_equal_samples(tf_spec *spec, uint64_t state, int id)
{
    int _i = id;
    tf_terrain *t[3];
    for (int p = 0; p < path_count(); p++) {
        t[p] = tf_terrain_compile(spec, NULL);
        ck_assert_ptr_nonnull(t[p]);
        use_path(t[p], p);
    }
    enum { NX = 23, NY = 3 };
    float grid[3][NX * NY];
    for (int round = 0; round < 8; round++) {
        double x0 = rng_coordinate(&state), y0 = rng_coordinate(&state);
        double step = round == 5 ? ldexp(1.0, 1020) : ldexp(rng_range(&state, 0.5, 1.0),
                                                            (int)(rng_next(&state) % 20) - 8);
        int64_t i0 = (int64_t)(rng_next(&state) % 200) - 100, j0 = (int64_t)(rng_next(&state) % 9);
        if (round == 4)
            i0 = ((int64_t)1 << 52) - 7; /* huge lattice indices */
        if (round == 6) /* the row's indices cross 2^53: past it, doubles skip integers */
            i0 = ((int64_t)1 << 53) - 11;
        if (round == 7)
            i0 = -((int64_t)1 << 53) - 5;
        for (int p = 0; p < path_count(); p++) {
            tf_terrain_sample_window(t[p], x0, y0, step, i0, j0, NX, NY, grid[p]);
            for (size_t j = 0; j < NY; j++)
                for (size_t i = 0; i < NX; i++) {
                    double x = x0 + (double)(i0 + (int64_t)i) * step;
                    double y = y0 + (double)(j0 + (int64_t)j) * step;
                    double h = tf_terrain_sample(t[p], x, y);
                    float want = (float)h;
                    ck_assert_msg(float_bits(grid[p][j * NX + i]) == float_bits(want),
                                  "path %s spec %d at (%a, %a): grid %a, sample %a",
                                  tf_terrain_path(t[p]), _i, x, y,
                                  (double)grid[p][j * NX + i], h);
                    if (p > 0) {
                        double h0 = tf_terrain_sample(t[0], x, y);
                        ck_assert_msg(double_bits(h) == double_bits(h0),
                                      "spec %d at (%a, %a): %s %a, portable %a", _i, x, y,
                                      tf_terrain_path(t[p]), h, h0);
                    }
                }
        }
        for (int p = 1; p < path_count(); p++)
            for (size_t k = 0; k < NX * NY; k++) /* NaN as one value */
                ck_assert_msg(float_bits(grid[0][k]) == float_bits(grid[p][k]),
                              "spec %d, sample %zu: portable %a, %s %a", _i, k,
                              (double)grid[0][k], tf_terrain_path(t[p]), (double)grid[p][k]);
        /* Points of their own, in no order (the grid's x, other rows' y,
         * every fifth coordinate random: huge and non-finite ones too),
         * more than one batch of them: each the bits of its single sample,
         * written over its own x the second time. */
        double px[NX * NY], py[NX * NY], ph[NX * NY];
        for (size_t k = 0; k < NX * NY; k++) {
            px[k] = rng_next(&state) % 5 == 0 ? rng_coordinate(&state)
                                              : x0 + (double)(i0 + (int64_t)(k % NX)) * step;
            py[k] = rng_next(&state) % 5 == 0
                        ? rng_coordinate(&state)
                        : y0 + (double)(j0 + (int64_t)(rng_next(&state) % (3 * NY))) * step;
        }
        for (int p = 0; p < path_count(); p++) {
            size_t n = round == 0 ? 0 : NX * NY - (size_t)round;
            tf_terrain_sample_points(t[p], px, py, n, ph);
            for (int alias = 0; alias < 2; alias++) {
                for (size_t k = 0; k < n; k++) {
                    double want = tf_terrain_sample(t[p], px[k], py[k]);
                    ck_assert_msg(double_bits(ph[k]) == double_bits(want),
                                  "path %s spec %d, point %zu of %zu at (%a, %a): points %a, "
                                  "sample %a",
                                  tf_terrain_path(t[p]), _i, k, n, px[k], py[k], ph[k], want);
                }
                if (alias == 0) { /* out over x: the same values */
                    double keep[NX * NY];
                    memcpy(keep, px, sizeof keep);
                    tf_terrain_sample_points(t[p], px, py, n, px);
                    memcpy(ph, px, sizeof ph);
                    memcpy(px, keep, sizeof keep);
                }
            }
        }
    }
    for (int p = 0; p < path_count(); p++)
        tf_terrain_free(t[p]);
    tf_spec_free(spec);
}

/* swiss and jordan rows (on the AVX-512 path a block of sixteen samples
 * runs every octave in registers, each octave keeping a lattice window
 * across the row's blocks) give each sample's single-point bits: long
 * rows at low frequencies, where the windows serve, short and ragged
 * rows, huge warps and coordinates near the vector range, where a block
 * falls back to the scalar code. The layer's base values are compared as
 * doubles (TF_STAGE_NOISE), against single samples and the portable path. */
START_TEST(turbulence_rows_equal_samples_on_every_path)
{
    uint64_t state = 0x7B0B0000u + (uint64_t)_i;
    tf_spec *spec = tf_spec_new(1, NULL);
    ck_assert_ptr_nonnull(spec);
    tf_spec_reseed(spec, (uint32_t)rng_next(&state));
    tf_layer_spec *L = &spec->layers[0];
    L->noise_type = TF_NOISE_SIMPLEX;
    tf_fractal_set_defaults(L, _i % 2 ? TF_FRACTAL_JORDAN : TF_FRACTAL_SWISS);
    L->fractal_octaves = 1 + (int)(rng_next(&state) % 9);
    L->fractal_lacunarity = rng_range(&state, 1.5, 2.5);
    L->fractal_gain = rng_range(&state, 0.3, 0.7);
    if (_i % 5 == 4) { /* warps that throw points far across the lattice */
        L->fractal_warp = ldexp(rng_range(&state, -1.0, 1.0), 30 + (int)(rng_next(&state) % 24));
        if (L->fractal_kind == TF_FRACTAL_JORDAN)
            L->fractal_warp0 = L->fractal_warp;
    }
    L->frequency = ldexp(rng_range(&state, 0.5, 1.0), -(int)(rng_next(&state) % 12));
    const tf_point identity[2] = {{0.0, 0.0}, {1.0, 1.0}};
    ck_assert_int_eq(tf_spec_set_rd_points(spec, 0, identity, 2, NULL), 0);
    tf_error err;
    ck_assert_msg(tf_spec_validate(spec, &err) == 0, "%s", err.message);
    tf_terrain *t[3];
    for (int p = 0; p < path_count(); p++) {
        t[p] = tf_terrain_compile(spec, NULL);
        ck_assert_ptr_nonnull(t[p]);
        use_path(t[p], p);
    }
    static const size_t sizes[] = {1, 7, 16, 17, 31, 32, 33, 64, 66, 200};
    static double row[3][200];
    for (int round = 0; round < 10; round++) {
        size_t n = sizes[round];
        double x0 = rng_coordinate(&state), y0 = rng_coordinate(&state);
        if (round == 8) /* the row crosses the vector range's edge, 2^49 in noise space */
            x0 = ldexp(1.0, 49) / L->frequency - 100.0;
        double step = ldexp(rng_range(&state, 0.5, 1.0), (int)(rng_next(&state) % 12) - 6);
        int64_t i0 = (int64_t)(rng_next(&state) % 200) - 100;
        for (int p = 0; p < path_count(); p++) {
            ck_assert_int_eq(tf_terrain_sample_stage_window(t[p], TF_STAGE_NOISE, 0, x0, y0, step,
                                                            i0, 0, n, 1, row[p], &err),
                             0);
            for (size_t i = 0; i < n; i++) {
                double x = x0 + (double)(i0 + (int64_t)i) * step;
                double want = tf_terrain_sample_stage(t[p], TF_STAGE_NOISE, 0, x, y0);
                ck_assert_msg(double_bits(row[p][i]) == double_bits(want),
                              "%s spec %d, row of %zu at (%a, %a): row %a, sample %a",
                              tf_terrain_path(t[p]), _i, n, x, y0, row[p][i], want);
                ck_assert_msg(double_bits(row[p][i]) == double_bits(row[0][i]),
                              "spec %d, row of %zu at (%a, %a): %s %a, portable %a", _i, n, x,
                              y0, tf_terrain_path(t[p]), row[p][i], row[0][i]);
            }
        }
    }
    for (int p = 0; p < path_count(); p++)
        tf_terrain_free(t[p]);
    tf_spec_free(spec);
}
END_TEST

/* The benchmarks' baseline row is the fractal sum it claims to be: layer
 * i's base noise at amplitude 2^-i, summed in order, on every path. */
START_TEST(fractal_sum_rows_sum_the_base_noises)
{
    uint64_t state = 0xF2AC7A1u + (uint64_t)_i;
    tf_spec *spec = random_spec(&state);
    enum { N = 37 };
    float row[N];
    double x0 = rng_coordinate(&state), y = rng_coordinate(&state);
    double step = ldexp(rng_range(&state, 0.5, 1.0), (int)(rng_next(&state) % 12) - 4);
    int64_t i0 = (int64_t)(rng_next(&state) % 200) - 100;
    for (int p = 0; p < path_count(); p++) {
        tf_terrain *t = tf_terrain_compile(spec, NULL);
        ck_assert_ptr_nonnull(t);
        use_path(t, p);
        for (size_t octaves = 0; octaves <= spec->layer_count; octaves++) {
            tf_fractal_sum_row(t, octaves, x0, step, i0, y, N, row);
            for (size_t k = 0; k < N; k++) {
                double x = x0 + (double)(i0 + (int64_t)k) * step, h = 0.0, amplitude = 1.0;
                for (size_t i = 0; i < octaves; i++, amplitude *= 0.5) {
                    const tf_layer_spec *L = &spec->layers[i];
                    double n = tf_noise_eval(L->noise_type, L->seed,
                                             x * L->frequency + L->offset[0],
                                             y * L->frequency + L->offset[1], L->offset[2]);
                    h += (n + 0.0) * amplitude;
                }
                ck_assert_msg(float_bits(row[k]) == float_bits((float)h),
                              "path %s, %zu octaves, sample %zu: row %a, sum %a",
                              tf_terrain_path(t), octaves, k, (double)row[k], h);
            }
        }
        tf_terrain_free(t);
    }
    tf_spec_free(spec);
}
END_TEST

#if TF_HAVE_AVX512_PATH
#include "runtime/simplex_lanes.h"

/* The AVX-512 swiss and jordan rows' simplex (simplex_halves_avx512) at
 * points of the test's own, sixteen a block (the last block padded with
 * its last point); a block out of the vector range takes the scalar
 * code, as the rows redo such blocks. */
__attribute__((target(SIMPLEX_AVX512_TARGET))) static void
points_deriv_avx512(uint32_t seed, const double *x, const double *y, size_t n, double *v,
                    double *dx, double *dy)
{
    const __m512i seeds = _mm512_set1_epi32((int)seed);
    for (size_t m = 0; m < n; m += 16) {
        size_t count = n - m < 16 ? n - m : 16;
        double bx[16], by[16], bv[16], bgx[16], bgy[16];
        for (size_t k = 0; k < 16; k++) {
            bx[k] = x[m + (k < count ? k : count - 1)];
            by[k] = y[m + (k < count ? k : count - 1)];
        }
        __m512d px[2] = {_mm512_loadu_pd(bx), _mm512_loadu_pd(bx + 8)};
        __m512d py[2] = {_mm512_loadu_pd(by), _mm512_loadu_pd(by + 8)};
        __m512d nv[2], ng[2], nh[2];
        int ok = 1;
        simplex_halves_avx512(seeds, 2, px, py, dx != NULL, nv, ng, nh, &ok);
        for (int h = 0; h < 2; h++) {
            _mm512_storeu_pd(bv + 8 * h, nv[h]);
            if (dx) {
                _mm512_storeu_pd(bgx + 8 * h, ng[h]);
                _mm512_storeu_pd(bgy + 8 * h, nh[h]);
            }
        }
        for (size_t k = 0; k < count; k++) {
            if (!ok) {
                v[m + k] = dx ? tf_simplex2_deriv(seed, x[m + k], y[m + k], &dx[m + k], &dy[m + k])
                              : tf_simplex2(seed, x[m + k], y[m + k]);
                continue;
            }
            v[m + k] = bv[k];
            if (dx) {
                dx[m + k] = bgx[k];
                dy[m + k] = bgy[k];
            }
        }
    }
}
#endif

#if TF_HAVE_AVX2_PATH
/* tf_simplex2_deriv at points of their own on vector path simd (AVX2 or
 * AVX-512); dx and dy NULL: the values alone. */
static void points_deriv(tf_simd_level simd, uint32_t seed, const double *x, const double *y,
                         size_t n, double *v, double *dx, double *dy)
{
#if TF_HAVE_AVX512_PATH
    if (simd == TF_SIMD_AVX512) {
        points_deriv_avx512(seed, x, y, n, v, dx, dy);
        return;
    }
#endif
    (void)simd;
    tf_simplex2_points_deriv_avx2(seed, x, y, n, v, dx, dy);
}
#endif

/* The vector noise rows and lanes give tf_noise_eval's bits. */
START_TEST(noise_rows_match_the_scalar_noise)
{
    uint64_t state = 0xA0153u + (uint64_t)_i;
    enum { N = 67 };
    double x[N], y[N];
    uint32_t seeds[N];
    for (int round = 0; round < 20; round++) {
        /* Every length from 1 to N over the loop (the vector code works in
         * blocks of 4 and 8 with masked tails), in buffers of exactly that
         * length, so the sanitizer build catches a read past the end. */
        size_t len = 1 + (size_t)(round * 10 + _i) % N;
        double *row_x = malloc(len * sizeof *row_x);
        double *row_y_lanes = malloc(len * sizeof *row_y_lanes), *out = malloc(len * sizeof *out);
        uint32_t *row_seeds = malloc(len * sizeof *row_seeds);
        double *row_f = malloc(len * sizeof *row_f);
        ck_assert(row_x && row_y_lanes && out && row_seeds && row_f);
        double row_y = rng_coordinate(&state);
        uint32_t seed = (uint32_t)rng_next(&state);
        double scale = ldexp(1.0, (int)(rng_next(&state) % 60) - 8);
        for (size_t k = 0; k < N; k++) {
            x[k] = rng_next(&state) % 8 == 0 ? rng_coordinate(&state)
                                              : rng_range(&state, -1.0, 1.0) * scale;
            y[k] = rng_next(&state) % 8 == 0 ? rng_coordinate(&state)
                                              : rng_range(&state, -1.0, 1.0) * scale;
            seeds[k] = (uint32_t)rng_next(&state);
        }
        memcpy(row_x, x, len * sizeof *row_x);
        memcpy(row_y_lanes, y, len * sizeof *row_y_lanes);
        memcpy(row_seeds, seeds, len * sizeof *row_seeds);
        for (int p = 0; p < path_count(); p++)
            for (int kind = 0; kind < TF_NOISE_TYPE_COUNT; kind++) {
                tf_noise_row(path_level(p), (tf_noise_type)kind, seed, row_x, row_y, 0.25, len,
                             out);
                for (size_t k = 0; k < len; k++) {
                    double want = tf_noise_eval((tf_noise_type)kind, seed, x[k], row_y, 0.25);
                    ck_assert_msg(double_bits(out[k]) == double_bits(want),
                                  "path %d kind %d, row of %zu, at (%a, %a): row %a, scalar %a",
                                  p, kind, len, x[k], row_y, out[k], want);
                }
            }
#if TF_HAVE_AVX2_PATH
        if (tf_simd_avx2_available()) {
            /* values and gradients at points of their own (swiss, jordan),
             * on each vector path */
            double *gx = malloc(len * sizeof *gx), *gy = malloc(len * sizeof *gy);
            ck_assert(gx && gy);
            for (int p = 1; p < path_count(); p++) {
                points_deriv(path_level(p), seed, row_x, row_y_lanes, len, out, gx, gy);
                for (size_t k = 0; k < len; k++) {
                    double wx, wy, want = tf_simplex2_deriv(seed, x[k], y[k], &wx, &wy);
                    ck_assert_msg(double_bits(out[k]) == double_bits(want) &&
                                      double_bits(gx[k]) == double_bits(wx) &&
                                      double_bits(gy[k]) == double_bits(wy),
                                  "path %d, %zu points, at (%a, %a): (%a, %a, %a), scalar (%a, "
                                  "%a, %a)",
                                  p, len, x[k], y[k], out[k], gx[k], gy[k], want, wx, wy);
                }
            }
            free(gx);
            free(gy);
            for (size_t k = 0; k < len; k++) /* the single-point entry */
                ck_assert_msg(double_bits(tf_simplex2_avx2(seeds[k], x[k], y[k])) ==
                                  double_bits(tf_simplex2(seeds[k], x[k], y[k])),
                              "single point at (%a, %a)", x[k], y[k]);
            /* the single-sample path's lanes: layer k at (px * f[k] + x[k],
             * py * f[k] + y[k]), huge and non-finite offsets included */
            double px = rng_coordinate(&state), py = rng_range(&state, -100.0, 100.0);
            for (size_t k = 0; k < len; k++)
                row_f[k] = rng_range(&state, 0.001, 4.0);
            double *lanes = malloc((len + 7) / 8 * 8 * sizeof *lanes);
            ck_assert(lanes);
            for (int p = 1; p < path_count(); p++) {
                tf_noise_lanes_fn simplex_lanes = tf_noise_lanes(path_level(p), TF_NOISE_SIMPLEX);
                ck_assert(simplex_lanes != NULL);
                /* simplex lanes are two-dimensional: no z */
                simplex_lanes(row_seeds, px, py, row_f, row_x, row_y_lanes, NULL, len, lanes);
                for (size_t k = 0; k < len; k++) {
                    double want =
                        tf_simplex2(seeds[k], px * row_f[k] + x[k], py * row_f[k] + y[k]);
                    ck_assert_msg(double_bits(lanes[k]) == double_bits(want),
                                  "path %d, %zu lanes, at (%a, %a), f %a, offset (%a, %a)", p,
                                  len, px, py, row_f[k], x[k], y[k]);
                }
            }
            free(lanes);
        }
#endif
        free(row_x);
        free(row_y_lanes);
        free(out);
        free(row_seeds);
        free(row_f);
    }
}
END_TEST

/* A coordinate for the noise rows' edge cases: the cell and fraction
 * splits (exact integers, signed zeros, just below an integer), the ranges
 * where the vector cell arithmetic holds or hands over to the scalar code
 * (2^51, 2^52), where Java's int casts saturate (2^31, for
 * perlin-reference-simplex), large ordinary coordinates and non-finite
 * ones; otherwise a random coordinate at a random scale. */
static double rng_edge_coordinate(uint64_t *state)
{
    static const double special[] = {
        0.0, -0.0, 1.0, -1.0, 2.0, -3.0, 255.0, 256.0, -256.0, 0.5, -0.5,
        0x1.fffffffffffffp-1, -0x1.fffffffffffffp-1, 0x1p-1074, -0x1p-1074, 1e6, -1e6,
        1e6 + 0.25, -1e6 - 0.75, 1e9, -1e9, 1e9 + 0.5, -1e9 + 0.125, 2147483647.0,
        -2147483648.0, 2147483647.5, -2147483648.5, 2147483648.0, 3e9, -3e9, 4294967296.0,
        4294967295.75, 0x1p49 - 0.5, -0x1p49 + 0.25, 0x1p49, -0x1p49, 0x1.fffffffffffffp+48,
        0x1p51 - 0.5, -0x1p51 + 0.5, 0x1p51, -0x1p51, 0x1p52 - 1.0, 0x1p52,
        -0x1p52, 1e15, 1e300, -1e300, 0x1.fffffffffffffp+1023, INFINITY, -INFINITY, NAN};
    switch (rng_next(state) % 8) {
    case 0:
        return special[rng_next(state) % (sizeof special / sizeof special[0])];
    case 1: /* an exact integer, up to about 1e9 */
        return (double)((int64_t)(rng_next(state) % 2000000001u) - 1000000000);
    case 2: /* just beside an integer */
        return nextafter((double)((int64_t)(rng_next(state) % 2001u) - 1000),
                         rng_next(state) % 2 ? INFINITY : -INFINITY);
    case 3: { /* around +-1e6 and +-1e9 */
        double big = rng_next(state) % 2 ? 1e6 : 1e9;
        return (rng_next(state) % 2 ? big : -big) + rng_range(state, -100.0, 100.0);
    }
    default:
        return rng_range(state, -1.0, 1.0) * ldexp(1.0, (int)(rng_next(state) % 40) - 4);
    }
}

/* Every base noise's row on every path, against tf_noise_eval at each
 * point: rows (and the row's y and z) of edge coordinates, ordinary
 * groups of four with single odd points among them, all lengths. */
START_TEST(noise_rows_match_the_scalar_noise_at_edges)
{
    uint64_t state = 0x5EED0u + (uint64_t)_i;
    enum { N = 41 };
    for (int round = 0; round < 60; round++) {
        size_t len = 1 + (size_t)(round * 7 + _i) % N;
        double *x = malloc(len * sizeof *x), *out = malloc(len * sizeof *out);
        ck_assert(x && out);
        double y = rng_next(&state) % 3 == 0 ? rng_edge_coordinate(&state)
                                              : rng_range(&state, -300.0, 300.0);
        double z = rng_next(&state) % 3 == 0 ? rng_edge_coordinate(&state)
                                              : rng_range(&state, -300.0, 300.0);
        uint32_t seed = rng_next(&state) % 4 == 0 ? 0u : (uint32_t)rng_next(&state);
        int ordinary = rng_next(&state) % 2; /* mostly ordinary points, a few odd ones */
        double base = rng_edge_coordinate(&state);
        for (size_t k = 0; k < len; k++)
            x[k] = ordinary && rng_next(&state) % 16 != 0
                       ? (isfinite(base) && fabs(base) < 1e12 ? base : 0.0) +
                             rng_range(&state, -40.0, 40.0)
                       : rng_edge_coordinate(&state);
        for (int p = 0; p < path_count(); p++)
            for (int kind = 0; kind < TF_NOISE_TYPE_COUNT; kind++) {
                tf_noise_row(path_level(p), (tf_noise_type)kind, seed, x, y, z, len, out);
                for (size_t k = 0; k < len; k++) {
                    double want = tf_noise_eval((tf_noise_type)kind, seed, x[k], y, z);
                    ck_assert_msg(double_bits(out[k]) == double_bits(want),
                                  "path %d kind %d seed %u, row of %zu, at (%a, %a, %a): row %a, "
                                  "scalar %a",
                                  p, kind, seed, len, x[k], y, z, out[k], want);
                }
            }
        free(x);
        free(out);
    }
}
END_TEST

/* Every base noise's values and gradients at points of their own (the
 * swiss and jordan rows' call) on every path, against
 * tf_noise_eval_gradient at each point: ordinary points with edge
 * coordinates among them (which send their group to the scalar code),
 * every length 1-41, in buffers of exactly that length, with and without
 * the gradient. */
START_TEST(noise_points_deriv_match_the_scalar_gradient)
{
    uint64_t state = 0xD3E1Fu + (uint64_t)_i;
    enum { N = 41 };
    for (int round = 0; round < 40; round++) {
        size_t len = 1 + (size_t)(round * 5 + _i) % N;
        double *x = malloc(len * sizeof *x), *y = malloc(len * sizeof *y);
        double *v = malloc(len * sizeof *v), *gx = malloc(len * sizeof *gx);
        double *gy = malloc(len * sizeof *gy);
        ck_assert(x && y && v && gx && gy);
        double z = rng_next(&state) % 4 == 0 ? rng_edge_coordinate(&state)
                                              : rng_range(&state, -300.0, 300.0);
        uint32_t seed = rng_next(&state) % 4 == 0 ? 0u : (uint32_t)rng_next(&state);
        double scale = ldexp(1.0, (int)(rng_next(&state) % 40) - 4);
        for (size_t k = 0; k < len; k++) {
            x[k] = rng_next(&state) % 24 == 0 ? rng_edge_coordinate(&state)
                                               : rng_range(&state, -1.0, 1.0) * scale;
            y[k] = rng_next(&state) % 24 == 0 ? rng_edge_coordinate(&state)
                                               : rng_range(&state, -1.0, 1.0) * scale;
        }
        for (int p = 0; p < path_count(); p++)
            for (int kind = 0; kind < TF_NOISE_TYPE_COUNT; kind++)
                for (int grad = 0; grad < 2; grad++) {
                    tf_noise_points_deriv(path_level(p), (tf_noise_type)kind, seed, x, y, z, len,
                                          v, grad ? gx : NULL, grad ? gy : NULL);
                    for (size_t k = 0; k < len; k++) {
                        double wx, wy;
                        double want = tf_noise_eval_gradient((tf_noise_type)kind, seed, x[k], y[k],
                                                             z, grad ? &wx : NULL,
                                                             grad ? &wy : NULL);
                        ck_assert_msg(double_bits(v[k]) == double_bits(want) &&
                                          (!grad || (double_bits(gx[k]) == double_bits(wx) &&
                                                     double_bits(gy[k]) == double_bits(wy))),
                                      "path %d kind %d seed %u gradient %d, %zu points, at (%a, "
                                      "%a, %a): (%a, %a, %a), scalar (%a, %a, %a)",
                                      p, kind, seed, grad, len, x[k], y[k], z, v[k],
                                      grad ? gx[k] : 0.0, grad ? gy[k] : 0.0, want,
                                      grad ? wx : 0.0, grad ? wy : 0.0);
                    }
                }
        free(x);
        free(y);
        free(v);
        free(gx);
        free(gy);
    }
}
END_TEST

/* The simplex rows of every vector path against tf_simplex2 at each point,
 * in long rows (sixteen points a block on the AVX-512 path, its two halves
 * sharing the integer work, and close points taking their gradients from
 * a window of the lattice that the row keeps, moves and gives up):
 * ordinary points with a rare odd one (which sends its block to the
 * scalar code or outside the window), points on lattice lines and on the
 * cells' diagonals (x0 == y0: corner 1 by the comparison's tie), rows of
 * close points forwards and backwards, near the vector range's limit 2^49
 * on both sides, where the lattice indices wrap modulo 2^32, and seeds of
 * every kind. */
START_TEST(simplex_rows_match_the_scalar_noise)
{
    uint64_t state = 0x51A9u + (uint64_t)_i;
    enum { N = 150 };
    double x[N], out[N];
    for (int round = 0; round < 40; round++) {
        size_t len = 1 + (size_t)(rng_next(&state) % N);
        uint32_t seed = rng_next(&state) % 4 == 0 ? (uint32_t)(rng_next(&state) % 3) - 1u
                                                  : (uint32_t)rng_next(&state);
        double y, base, step;
        switch (rng_next(&state) % 6) {
        case 0: /* near the limit: |y| and the points' |x| just below or past 2^49 */
            y = (rng_next(&state) % 2 ? 1.0 : -1.0) * (0x1p49 - rng_range(&state, 0.0, 64.0));
            base = (rng_next(&state) % 2 ? 1.0 : -1.0) * (0x1p49 - 40.0);
            step = 0.5;
            break;
        case 1: /* cells whose indices wrap modulo 2^32 */
            y = rng_range(&state, -1.0, 1.0) * 0x1p33;
            base = (rng_next(&state) % 2 ? 1.0 : -1.0) * (4294967296.0 * 3.0 - 30.0);
            step = rng_next(&state) % 2 ? 0.375 : 0.02;
            break;
        case 3: /* a grid row at a low frequency, either way */
            y = rng_range(&state, -1000.0, 1000.0);
            base = rng_range(&state, -1000.0, 1000.0);
            step = (rng_next(&state) % 2 ? 1.0 : -1.0) * rng_range(&state, 0.002, 0.08);
            break;
        case 2: /* on lattice lines: integer steps */
            y = (double)((int64_t)(rng_next(&state) % 2001u) - 1000);
            base = (double)((int64_t)(rng_next(&state) % 2001u) - 1000);
            step = 1.0;
            break;
        default:
            y = rng_range(&state, -1000.0, 1000.0);
            base = rng_range(&state, -1000.0, 1000.0);
            step = ldexp(rng_range(&state, 0.5, 1.0), (int)(rng_next(&state) % 10) - 8);
        }
        for (size_t k = 0; k < len; k++) {
            switch (rng_next(&state) % 80) {
            case 0: x[k] = rng_edge_coordinate(&state); break;
            case 1: x[k] = y + (double)((int64_t)(rng_next(&state) % 41u) - 20); break;
            case 2: x[k] = y + 0.5; break; /* x - y a half: ties in the skewed cell */
            default: x[k] = base + (double)k * step;
            }
        }
        for (int p = 1; p < path_count(); p++) {
            tf_noise_row(path_level(p), TF_NOISE_SIMPLEX, seed, x, y, 0.0, len, out);
            for (size_t k = 0; k < len; k++) {
                double want = tf_simplex2(seed, x[k], y);
                ck_assert_msg(double_bits(out[k]) == double_bits(want),
                              "path %d seed %u, point %zu of %zu at (%a, %a): row %a, scalar %a",
                              p, seed, k, len, x[k], y, out[k], want);
            }
        }
    }
}
END_TEST

#if TF_HAVE_AVX2_PATH
/* The simplex with its gradient (and without: the values alone) at
 * points of their own on every vector path against tf_simplex2_deriv
 * (tf_simplex2): rows of points as swiss and jordan warp them (a grid row plus small offsets in x and y that vary from point to
 * point, so close points take their gradients from lattice windows that a
 * call builds, keeps, moves and gives up), with a rare odd point (sending
 * its block to the scalar code or out of the window), points on lattice
 * lines and cell diagonals, near the vector range's limit 2^49 and where
 * the lattice indices wrap modulo 2^32. */
START_TEST(simplex_points_deriv_match_the_scalar)
{
    uint64_t state = 0xDE21u + (uint64_t)_i;
    enum { N = 150 };
    double x[N], y[N], v[N], gx[N], gy[N];
    for (int round = 0; round < 40; round++) {
        size_t len = 1 + (size_t)(rng_next(&state) % N);
        uint32_t seed = rng_next(&state) % 4 == 0 ? (uint32_t)(rng_next(&state) % 3) - 1u
                                                  : (uint32_t)rng_next(&state);
        double bx, by, step, jitter;
        switch (rng_next(&state) % 5) {
        case 0: /* near the limit */
            bx = (rng_next(&state) % 2 ? 1.0 : -1.0) * (0x1p49 - 40.0);
            by = (rng_next(&state) % 2 ? 1.0 : -1.0) * (0x1p49 - rng_range(&state, 0.0, 64.0));
            step = 0.25;
            jitter = 0.5;
            break;
        case 1: /* cells whose indices wrap modulo 2^32 */
            bx = (rng_next(&state) % 2 ? 1.0 : -1.0) * (4294967296.0 * 3.0 - 2.0);
            by = (rng_next(&state) % 2 ? 1.0 : -1.0) * (4294967296.0 - 1.0);
            step = 0.02;
            jitter = 0.05;
            break;
        case 2: /* on lattice lines and diagonals */
            bx = (double)((int64_t)(rng_next(&state) % 2001u) - 1000);
            by = bx;
            step = rng_next(&state) % 2 ? 1.0 : 0.0;
            jitter = 0.0;
            break;
        default: /* warped grid rows at low to high frequencies, either way */
            bx = rng_range(&state, -1000.0, 1000.0);
            by = rng_range(&state, -1000.0, 1000.0);
            step = (rng_next(&state) % 2 ? 1.0 : -1.0) *
                   ldexp(rng_range(&state, 0.5, 1.0), (int)(rng_next(&state) % 10) - 9);
            jitter = ldexp(rng_range(&state, 0.0, 1.0), (int)(rng_next(&state) % 8) - 8);
        }
        for (size_t k = 0; k < len; k++) {
            x[k] = bx + (double)k * step + rng_range(&state, -1.0, 1.0) * jitter;
            y[k] = by + rng_range(&state, -1.0, 1.0) * jitter;
            switch (rng_next(&state) % 80) {
            case 0: x[k] = rng_edge_coordinate(&state); break;
            case 1: y[k] = rng_edge_coordinate(&state); break;
            case 2: y[k] = x[k] + 0.5; break;
            default: break;
            }
        }
        for (int p = 1; p < path_count(); p++) {
            points_deriv(path_level(p), seed, x, y, len, v, gx, gy);
            for (size_t k = 0; k < len; k++) {
                double wx, wy, want = tf_simplex2_deriv(seed, x[k], y[k], &wx, &wy);
                ck_assert_msg(double_bits(v[k]) == double_bits(want) &&
                                  double_bits(gx[k]) == double_bits(wx) &&
                                  double_bits(gy[k]) == double_bits(wy),
                              "path %d seed %u, point %zu of %zu at (%a, %a): (%a, %a, %a), "
                              "scalar (%a, %a, %a)",
                              p, seed, k, len, x[k], y[k], v[k], gx[k], gy[k], want, wx, wy);
            }
            /* the values alone (dx and dy NULL): tf_simplex2's bits */
            points_deriv(path_level(p), seed, x, y, len, v, NULL, NULL);
            for (size_t k = 0; k < len; k++) {
                double want = tf_simplex2(seed, x[k], y[k]);
                ck_assert_msg(double_bits(v[k]) == double_bits(want),
                              "path %d seed %u, values only, point %zu of %zu at (%a, %a): %a, "
                              "scalar %a",
                              p, seed, k, len, x[k], y[k], v[k], want);
            }
        }
    }
}
END_TEST
#endif

/* perlin-reference-simplex where Java's int cast of floor(c + s) saturates
 * (c = x, y or z, s = (x + y + z) / 3): rows whose x + s, y + s or z + s
 * runs across -2^31 or 2^31 - 1, where the vector row must hand over to
 * the scalar code. On the plane 4c + (the other two) = 3 * edge, c + s is
 * the edge; with c near the edge itself the others are smaller and the
 * int sum i + j + k does not wrap, so the saturated cell stays near the
 * point and the value is not simply 0. */
START_TEST(perlin_reference_rows_at_the_int_edge)
{
    uint64_t state = 0x1D6Eu + (uint64_t)_i;
    enum { N = 32 };
    double x[N], out[N];
    const double edges[] = {2147483647.0, 2147483648.0, -2147483648.0, -2147483649.0};
    for (int round = 0; round < 200; round++) {
        double edge = edges[rng_next(&state) % 4] + rng_range(&state, -2.0, 2.0);
        double c = edge * rng_range(&state, 0.85, 1.15), others = (3.0 * edge - 4.0 * c) / 2.0;
        double x0 = others, y = others, z = others;
        if (round % 3 == 0)
            x0 = c;
        else if (round % 3 == 1)
            y = c;
        else
            z = c;
        for (size_t k = 0; k < N; k++)
            x[k] = x0 + rng_range(&state, -6.0, 6.0);
        for (int p = 0; p < path_count(); p++) {
            tf_noise_row(path_level(p), TF_NOISE_PERLIN_REFERENCE_SIMPLEX, 0, x, y, z, N, out);
            for (size_t k = 0; k < N; k++) {
                double want = tf_perlin_reference_simplex3(x[k], y, z);
                ck_assert_msg(double_bits(out[k]) == double_bits(want),
                              "path %d at (%a, %a, %a): row %a, scalar %a", p, x[k], y, z,
                              out[k], want);
            }
        }
    }
}
END_TEST

/* The segment a binary search finds: the largest k <= count - 2 with
 * x_k <= u (0 below x_1, count - 2 for NaN), the reference for the
 * bucketed search. */
static size_t binary_search_segment(const tf_point *p, size_t count, double u)
{
    size_t lo = 0, hi = count - 1;
    while (hi - lo > 1) {
        size_t mid = lo + ((hi - lo) >> 1);
        if (u < p[mid].x)
            hi = mid;
        else
            lo = mid;
    }
    return lo;
}

/* A compiled curve table over pts in storage the caller frees. */
static double *curve_table_new(tf_curve_table *table, const tf_point *pts, size_t count,
                               tf_interp interp)
{
    double *storage = malloc(tf_curve_table_bytes(pts, count));
    double *scratch = malloc(2 * count * sizeof *scratch);
    ck_assert(storage && scratch);
    tf_curve_table_build(table, storage, pts, count, interp, scratch);
    free(scratch);
    return storage;
}

#if TF_HAVE_AVX2_PATH
/* The vector rows of curve lookups, each path's pair: plain and unit. */
typedef struct {
    const char *name;
    int (*available)(void);
    void (*row)(const tf_curve_table *, const double *, size_t, double *);
    void (*unit_row)(const tf_curve_table *, const double *, size_t, double *);
} curve_row_path;

static const curve_row_path CURVE_ROWS[] = {
    {"avx2", tf_simd_avx2_available, tf_curve_table_eval_row_avx2,
     tf_curve_table_eval_unit_row_avx2},
#if TF_HAVE_AVX512_PATH
    {"avx512", tf_simd_avx512_available, tf_curve_table_eval_row_avx512,
     tf_curve_table_eval_unit_row_avx512},
#endif
};
#define CURVE_ROW_PATHS (sizeof CURVE_ROWS / sizeof CURVE_ROWS[0])
#endif

/* The vector curve lookup finds the binary search's segment and the same
 * bits, for knots, points between and beyond them, NaN and infinities, on
 * curves of a few points and of many. */
START_TEST(curve_rows_match_the_scalar_lookup)
{
    uint64_t state = 0xC0C0u + (uint64_t)_i;
    /* a third of the curves small (2-20 points), where the vector rows
     * find the segment in registers instead of buckets (up to 5 points on
     * the AVX2 path, 17 on the AVX-512 path) */
    size_t count = 2 + rng_next(&state) % (_i % 3 == 0 ? 19 : 400);
    tf_point *pts = malloc(count * sizeof *pts);
    ck_assert_ptr_nonnull(pts);
    random_points(&state, pts, count, rng_range(&state, -2.0, 0.0), rng_range(&state, 0.5, 3.0));
    tf_curve_table table;
    double *storage = curve_table_new(&table, pts, count, (tf_interp)(_i % TF_INTERP_KIND_COUNT));
    enum { N = 203 };
    double u[N], out[N];
    for (size_t k = 0; k < N; k++) {
        switch (rng_next(&state) % 6) {
        case 0:
            u[k] = pts[rng_next(&state) % count].x; /* a knot */
            break;
        case 1:
            u[k] = nextafter(pts[rng_next(&state) % count].x, rng_next(&state) % 2 ? 10 : -10);
            break;
        case 2: {
            double special[] = {NAN, -NAN, INFINITY, -INFINITY, -0.0, 1e300, -1e300};
            u[k] = special[rng_next(&state) % 7];
            break;
        }
        default:
            u[k] = rng_range(&state, pts[0].x - 0.5, pts[count - 1].x + 0.5);
        }
    }
    /* the bucketed search is the binary search, inside the knots and out */
    for (size_t k = 0; k < N; k++)
        ck_assert_uint_eq(tf_curve_table_segment(&table, u[k]),
                          binary_search_segment(pts, count, u[k]));
    tf_curve_table_eval_row(&table, u, N, out);
    for (size_t k = 0; k < N; k++)
        ck_assert(double_bits(out[k]) == double_bits(tf_curve_table_eval(&table, u[k])));
#if TF_HAVE_AVX2_PATH
    /* whole rows and every kind of tail (blocks of 64, groups of 8 and 4) */
    static const size_t lengths[] = {N, 1, 3, 4, 5, 7, 8, 9, 12, 13, 63, 64, 65, 71, 72, 130};
    for (size_t p = 0; p < CURVE_ROW_PATHS; p++) {
        const curve_row_path *path = &CURVE_ROWS[p];
        for (size_t c = 0; path->available() && c < sizeof lengths / sizeof lengths[0]; c++) {
            path->row(&table, u, lengths[c], out);
            for (size_t k = 0; k < lengths[c]; k++)
                ck_assert_msg(double_bits(out[k]) ==
                                  double_bits(tf_curve_table_eval(&table, u[k])),
                              "row of %zu, u = %a: %s %a, scalar %a", lengths[c], u[k],
                              path->name, out[k], tf_curve_table_eval(&table, u[k]));
            /* the terrain's form: u = (n + 1) * 0.5 made in the row, the
             * u above taken as noise values n, into another buffer and in
             * place */
            double in_place[N];
            memcpy(in_place, u, sizeof in_place);
            path->unit_row(&table, u, lengths[c], out);
            path->unit_row(&table, in_place, lengths[c], in_place);
            for (size_t k = 0; k < lengths[c]; k++) {
                double want = tf_curve_table_eval(&table, (u[k] + 1.0) * 0.5);
                ck_assert_msg(double_bits(out[k]) == double_bits(want) &&
                                  double_bits(in_place[k]) == double_bits(want),
                              "unit row of %zu, n = %a: %s %a (in place %a), scalar %a",
                              lengths[c], u[k], path->name, out[k], in_place[k], want);
            }
        }
    }
#endif
    free(pts);
    free(storage);
}
END_TEST

/* Curves on one set of knots (tf_terrain.mask_knots): the place found on
 * the first curve's table and each curve's value at that place, on the
 * AVX2 single-sample path (tf_curve_place_avx2) and the AVX-512 rows, are
 * each curve's own lookup bit for bit: at the knots and the doubles
 * around them, the ends (with a first value of -0.0, where u == x_0 must
 * take y_first, not the polynomial's +0.0), beyond, NaN and the
 * infinities, over rows of every tail length. */
#if TF_HAVE_AVX2_PATH
/* each curve's value at u's place on the first one's knots */
__attribute__((target("avx2"))) static void placed_values_avx2(const tf_curve_table *table,
                                                               size_t curves, double u,
                                                               double *out)
{
    tf_curve_place at = tf_curve_place_avx2(&table[0], u);
    for (size_t c = 0; c < curves; c++)
        out[c] = tf_curve_placed_value(&table[c], at);
}
#endif

START_TEST(placed_lookups_match_the_scalar_lookup)
{
#if TF_HAVE_AVX2_PATH
    if (!tf_simd_avx2_available())
        return;
    uint64_t state = 0x91ACED00u + (uint64_t)_i;
    enum { CURVES = 3, N = 131 };
    size_t count = 2 + rng_next(&state) % TF_CURVE_LANE_SEGMENTS; /* with lanes */
    tf_point pts[TF_CURVE_LANE_SEGMENTS + 1];
    random_points(&state, pts, count, rng_range(&state, -1.0, 0.0), rng_range(&state, 0.5, 2.0));
    tf_interp interp = (tf_interp)(_i % TF_INTERP_KIND_COUNT);
    tf_curve_table table[CURVES];
    double *storage[CURVES];
    for (size_t c = 0; c < CURVES; c++) {
        for (size_t k = 0; k < count; k++)
            pts[k].y = rng_range(&state, -1.0, 1.5);
        if (c == 1) /* a rising first segment from -0.0 */
            pts[0].y = -0.0, pts[1].y = 1.0;
        storage[c] = curve_table_new(&table[c], pts, count, interp);
        ck_assert_ptr_nonnull(table[c].lanes);
    }
    double u[N];
    for (size_t k = 0; k < N; k++) {
        switch (rng_next(&state) % 6) {
        case 0: u[k] = pts[rng_next(&state) % count].x; break; /* a knot, the ends too */
        case 1: u[k] = nextafter(pts[rng_next(&state) % count].x, rng_next(&state) % 2 ? 10 : -10); break;
        case 2: {
            double special[] = {NAN, -NAN, INFINITY, -INFINITY, -0.0, 1e300, -1e300};
            u[k] = special[rng_next(&state) % 7];
            break;
        }
        default: u[k] = rng_range(&state, pts[0].x - 0.5, pts[count - 1].x + 0.5);
        }
    }
    u[0] = pts[0].x;
    u[1] = pts[count - 1].x;
    for (size_t k = 0; k < N; k++) {
        double placed[CURVES];
        placed_values_avx2(table, CURVES, u[k], placed);
        for (size_t c = 0; c < CURVES; c++) {
            double want = tf_curve_table_eval(&table[c], u[k]);
            double got = placed[c];
            ck_assert_msg(double_bits(got) == double_bits(want) && signbit(got) == signbit(want),
                          "curve %zu (%zu points, %d), u = %a: placed %a, scalar %a", c, count,
                          (int)interp, u[k], got, want);
        }
    }
    /* the rows: AVX2, then AVX-512 where the CPU has it */
    for (int p = 0; p < 2; p++) {
        static const size_t lengths[] = {N, 1, 3, 4, 5, 7, 8, 9, 15, 16, 17, 64};
#if TF_HAVE_AVX512_PATH
        if (p == 1 && !tf_simd_avx512_available())
            break;
#else
        if (p == 1)
            break;
#endif
        for (size_t l = 0; l < sizeof lengths / sizeof lengths[0]; l++) {
            int64_t seg[N];
            double t[N], out[N];
            if (p == 0)
                tf_curve_table_place_row_avx2(&table[0], u, lengths[l], seg, t);
#if TF_HAVE_AVX512_PATH
            else
                tf_curve_table_place_row_avx512(&table[0], u, lengths[l], seg, t);
#endif
            for (size_t c = 0; c < CURVES; c++) {
                if (p == 0)
                    tf_curve_table_placed_row_avx2(&table[c], u, seg, t, lengths[l], out);
#if TF_HAVE_AVX512_PATH
                else
                    tf_curve_table_placed_row_avx512(&table[c], u, seg, t, lengths[l], out);
#endif
                for (size_t k = 0; k < lengths[l]; k++) {
                    double want = tf_curve_table_eval(&table[c], u[k]);
                    ck_assert_msg(double_bits(out[k]) == double_bits(want) &&
                                      signbit(out[k]) == signbit(want),
                                  "%s row of %zu, curve %zu, u = %a: placed %a, scalar %a",
                                  p == 0 ? "AVX2" : "AVX-512", lengths[l], c, u[k], out[k],
                                  want);
                }
            }
        }
    }
    for (size_t c = 0; c < CURVES; c++)
        free(storage[c]);
#endif
}
END_TEST

/* The bucketed search against a binary search where a mistake in the
 * buckets would show: at each bucket's start and the doubles around it,
 * at each knot and its neighbours, and past both ends; on curves with
 * even gaps, crowded clusters (tiny gaps, so many knots share a bucket),
 * one cluster of all knots but the last, and only two or three points.
 * The vector rows (AVX2, AVX-512) there too. */
START_TEST(bucket_edges_find_the_binary_search_segment)
{
    uint64_t state = 0x5eed0000u + (uint64_t)_i;
    size_t count = _i % 5 == 0 ? 2 + (size_t)_i % 2 : 2 + rng_next(&state) % 200;
    tf_point *pts = malloc(count * sizeof *pts);
    ck_assert_ptr_nonnull(pts);
    double x = rng_range(&state, -3.0, 3.0), start = x, gap = rng_range(&state, 0.01, 0.2);
    for (size_t k = 0; k < count; k++) {
        switch (_i % 4) {
        case 0: /* even gaps, so knots sit on bucket edges, each moved by
                 * up to two doubles either way */
            x = start + (double)k * gap;
            for (uint64_t move = rng_next(&state) % 5; move > 0 && k > 0; move--)
                x = nextafter(x, move > 2 ? -INFINITY : INFINITY);
            break;
        case 1: x += rng_next(&state) % 3 ? 1e-9 : 1.0; break; /* crowded clusters */
        case 2: x += k + 1 < count ? 1e-9 : 1.0; break; /* one cluster: a bucket of all */
        default: x += rng_range(&state, 1e-6, 1.0);
        }
        pts[k].x = x;
        pts[k].y = rng_range(&state, -1.0, 1.0);
    }
    tf_curve_table table;
    double *storage = curve_table_new(&table, pts, count, (tf_interp)(_i % TF_INTERP_KIND_COUNT));
    size_t n = 0, cap = 7 * (table.bucket_count + count) + 8;
    double *u = malloc(cap * sizeof *u), *out = malloc(cap * sizeof *out);
    ck_assert(u && out);
    for (uint32_t b = 0; b < table.bucket_count; b++) {
        double edge = pts[0].x + (double)b / table.bucket_scale;
        double below = nextafter(edge, -INFINITY), above = nextafter(edge, INFINITY);
        double edges[] = {edge, below, nextafter(below, -INFINITY), above,
                          nextafter(above, INFINITY)};
        for (size_t e = 0; e < 5; e++)
            u[n++] = edges[e];
    }
    for (size_t k = 0; k < count; k++) {
        u[n++] = pts[k].x;
        u[n++] = nextafter(pts[k].x, -INFINITY);
        u[n++] = nextafter(pts[k].x, INFINITY);
    }
    u[n++] = -INFINITY;
    u[n++] = INFINITY;
    u[n++] = pts[count - 1].x + 1.0;
    ck_assert_uint_le(n, cap);
    for (size_t k = 0; k < n; k++) {
        size_t want = binary_search_segment(pts, count, u[k]);
        ck_assert_msg(tf_curve_table_segment(&table, u[k]) == want,
                      "%zu points, u = %a: %zu, not %zu", count, u[k],
                      tf_curve_table_segment(&table, u[k]), want);
    }
#if TF_HAVE_AVX2_PATH
    for (size_t p = 0; p < CURVE_ROW_PATHS; p++) {
        if (!CURVE_ROWS[p].available())
            continue;
        CURVE_ROWS[p].row(&table, u, n, out);
        for (size_t k = 0; k < n; k++)
            ck_assert_msg(double_bits(out[k]) == double_bits(tf_curve_table_eval(&table, u[k])),
                          "u = %a: %s %a, scalar %a", u[k], CURVE_ROWS[p].name, out[k],
                          tf_curve_table_eval(&table, u[k]));
    }
#endif
    free(u);
    free(out);
    free(pts);
    free(storage);
}
END_TEST

/* The single sample's curve lanes (curve_lanes.h): four different curves
 * a quad, each lane the bits of its own scalar lookup, on curves of every
 * interpolation (cosine lanes beside cubic ones), with even, random and
 * crowded gaps (a crowded lane takes the scalar search), in a quad or two
 * over one table block as a terrain has them; at each lane's knots and the
 * doubles around them, bucket edges, the ends and beyond, NaN and the
 * infinities. */
START_TEST(curve_lanes_match_the_scalar_lookup)
{
#if TF_HAVE_AVX2_PATH
    if (!tf_simd_avx2_available())
        return;
    uint64_t state = 0x1a9e0000u + (uint64_t)_i;
    enum { CURVES = 8 };
    size_t count[CURVES], bytes = 0;
    tf_point *pts[CURVES];
    for (size_t c = 0; c < CURVES; c++) {
        count[c] = rng_next(&state) % 6 == 0 ? 2 + rng_next(&state) % 2
                                             : 2 + rng_next(&state) % 120;
        pts[c] = malloc(count[c] * sizeof *pts[c]);
        ck_assert_ptr_nonnull(pts[c]);
        double x = rng_range(&state, -2.0, 1.0), gap = rng_range(&state, 0.01, 0.3);
        uint64_t shape = rng_next(&state) % 4;
        for (size_t k = 0; k < count[c]; k++) {
            if (shape == 0)
                x = k == 0 ? x : pts[c][0].x + (double)k * gap; /* even: knots on bucket edges */
            else if (shape == 1)
                x += rng_next(&state) % 3 ? 1e-9 : 0.5; /* crowded clusters */
            else
                x += rng_range(&state, 1e-6, 0.5);
            pts[c][k].x = x;
            pts[c][k].y = rng_range(&state, -1.0, 1.5);
        }
        bytes += tf_curve_table_bytes(pts[c], count[c]);
    }
    char *block = malloc(bytes);
    double *scratch = malloc(2 * 200 * sizeof *scratch);
    ck_assert(block && scratch);
    tf_curve_table table[CURVES];
    tf_curve_quad quad[CURVES / 4];
    memset(quad, 0, sizeof quad);
    char *at = block;
    for (size_t c = 0; c < CURVES; c++) {
        tf_curve_table_build(&table[c], at, pts[c], count[c],
                             (tf_interp)(rng_next(&state) % TF_INTERP_KIND_COUNT), scratch);
        at += tf_curve_table_bytes(pts[c], count[c]);
        tf_curve_quad_set(&quad[c / 4], c % 4, &table[c], block);
    }
    for (int round = 0; round < 400; round++) {
        double u[CURVES], out[CURVES];
        for (size_t c = 0; c < CURVES; c++) {
            const tf_point *p = pts[c];
            size_t n = count[c];
            switch (rng_next(&state) % 7) {
            case 0: u[c] = p[rng_next(&state) % n].x; break; /* a knot, the ends too */
            case 1:
                u[c] = nextafter(p[rng_next(&state) % n].x, rng_next(&state) % 2 ? 10 : -10);
                break;
            case 2: {
                double special[] = {NAN, -NAN, INFINITY, -INFINITY, -0.0, 1e300, -1e300};
                u[c] = special[rng_next(&state) % 7];
                break;
            }
            case 3: { /* a bucket's edge */
                double edge = p[0].x + (double)(rng_next(&state) % table[c].bucket_count) /
                                           table[c].bucket_scale;
                u[c] = rng_next(&state) % 2 ? edge : nextafter(edge, rng_next(&state) % 2 ? 10 : -10);
                break;
            }
            default: u[c] = rng_range(&state, p[0].x - 0.5, p[n - 1].x + 0.5);
            }
        }
        tf_curve_quads_eval_avx2(quad, CURVES / 4, block, u, out);
        for (size_t c = 0; c < CURVES; c++) {
            double want = tf_curve_table_eval(&table[c], u[c]);
            ck_assert_msg(double_bits(out[c]) == double_bits(want) ||
                              (isnan(out[c]) && isnan(want)),
                          "lane %zu (%zu points, %d), u = %a: lanes %a, scalar %a", c, count[c],
                          (int)table[c].interp, u[c], out[c], want);
        }
    }
    for (size_t c = 0; c < CURVES; c++)
        free(pts[c]);
    free(block);
    free(scratch);
#endif
}
END_TEST

/* The bucket table's size: up to 16 buckets a segment for small curves,
 * at most 4096 in all (or two a segment) for large ones, whatever the
 * gaps; and lookups on such a curve, with a tight cluster, still find the
 * binary search's segment. */
START_TEST(bucket_tables_are_bounded)
{
    static const size_t counts[] = {65, 257, 1000, 65536};
    size_t count = counts[_i];
    tf_point *pts = malloc(count * sizeof *pts);
    ck_assert_ptr_nonnull(pts);
    uint64_t state = 0xB0B0u + (uint64_t)_i;
    for (size_t k = 0; k < count; k++) { /* a cluster of tiny gaps, then even ones */
        pts[k].x = k < count / 2 ? (double)k * 1e-12 : (double)k;
        pts[k].y = rng_range(&state, -1.0, 1.0);
    }
    size_t segments = count - 1, most = segments * 16;
    if (most > 4096)
        most = segments * 2 > 4096 ? segments * 2 : 4096;
    size_t fixed = count * sizeof(double) + segments * sizeof(tf_curve_segment);
    ck_assert_uint_le(tf_curve_table_bytes(pts, count), fixed + most * sizeof(tf_curve_bucket));
    tf_curve_table table;
    double *storage = curve_table_new(&table, pts, count, TF_INTERP_MONOTONE_CUBIC);
    ck_assert_uint_le(table.bucket_count, most);
    for (int n = 0; n < 2000; n++) {
        double u = rng_range(&state, -1.0, (double)count);
        if (n % 2)
            u = pts[rng_next(&state) % count].x;
        ck_assert_uint_eq(tf_curve_table_segment(&table, u), binary_search_segment(pts, count, u));
    }
    free(storage);
    free(pts);
}
END_TEST

/* Which noises may join a single sample's lane groups: simplex wherever
 * the build has a vector path, every noise where it has the AVX-512 one,
 * none on a portable-only build; and a noise has lanes on no single path
 * that tf_noise_has_lanes denies. */
START_TEST(noises_with_lanes_follow_the_build)
{
    for (int type = 0; type < TF_NOISE_TYPE_COUNT; type++) {
        int has = tf_noise_has_lanes((tf_noise_type)type);
        int expected = TF_HAVE_AVX512_PATH || (TF_HAVE_AVX2_PATH && type == TF_NOISE_SIMPLEX);
        ck_assert_msg(has == expected, "noise %d: has lanes %d, expected %d", type, has, expected);
        for (int simd = TF_SIMD_NONE; simd <= TF_SIMD_AVX512; simd++)
            ck_assert(has || !tf_noise_lanes((tf_simd_level)simd, (tf_noise_type)type));
    }
    ck_assert(!tf_noise_lanes(TF_SIMD_NONE, TF_NOISE_SIMPLEX));
}
END_TEST

/* TERRAFIT_SIMD=none forces the portable path and avx2 caps it at AVX2;
 * otherwise the fastest the CPU has. */
START_TEST(environment_selects_the_path)
{
    const char *saved = getenv("TERRAFIT_SIMD");
    char *copy = saved ? strdup(saved) : NULL;
    setenv("TERRAFIT_SIMD", "none", 1);
    ck_assert_int_eq(tf_simd_select(), TF_SIMD_NONE);
    tf_simd_level best = tf_simd_avx512_available() ? TF_SIMD_AVX512
                         : tf_simd_avx2_available() ? TF_SIMD_AVX2
                                                    : TF_SIMD_NONE;
    setenv("TERRAFIT_SIMD", "auto", 1);
    ck_assert_int_eq(tf_simd_select(), best);
    unsetenv("TERRAFIT_SIMD");
    ck_assert_int_eq(tf_simd_select(), best);
    setenv("TERRAFIT_SIMD", "avx512", 1);
    ck_assert_int_eq(tf_simd_select(), best);
    setenv("TERRAFIT_SIMD", "avx2", 1);
    ck_assert_int_eq(tf_simd_select(), tf_simd_avx2_available() ? TF_SIMD_AVX2 : TF_SIMD_NONE);
    if (copy)
        setenv("TERRAFIT_SIMD", copy, 1);
    else
        unsetenv("TERRAFIT_SIMD");
    free(copy);
}
END_TEST

/* The golden vectors hold on every path: single samples (double) and
 * one-sample windows (float). One loop-test iteration per spec of
 * tests/data/terrain/, listed when the suite is built. */
static char **golden_specs;
static size_t golden_count;

START_TEST(golden_specs_are_present)
{
    ck_assert_msg(golden_count >= 8, "tests/data/terrain: %zu specs, expected at least 8",
                  golden_count);
}
END_TEST

START_TEST(golden_vectors_on_every_path)
{
    const char *name = golden_specs[_i];
    size_t len = strlen(name);
    char spec_path[4400], vec_path[4400];
    snprintf(spec_path, sizeof spec_path, "%s/tests/data/terrain/%s", tu_srcdir(), name);
    snprintf(vec_path, sizeof vec_path, "%s/tests/data/terrain/%.*s.vectors", tu_srcdir(),
             (int)(len - 5), name);
    int checked = 0;
    for (int p = 0; p < path_count(); p++) {
        tf_error err;
        tf_terrain *t = tf_terrain_load(spec_path, &err);
        ck_assert_msg(t != NULL, "%s: %s", name, err.message);
        use_path(t, p);
        FILE *f = fopen(vec_path, "r");
        ck_assert_msg(f != NULL, "%s: no vectors", name);
        char a[64], b[64], c[64];
        while (fscanf(f, "%63s %63s %63s", a, b, c) == 3) {
            double x = strtod(a, NULL), y = strtod(b, NULL), want = strtod(c, NULL);
            double h = tf_terrain_sample(t, x, y);
            ck_assert_msg(double_bits(h) == double_bits(want) || (isnan(h) && isnan(want)),
                          "%s path %s at (%s, %s): %a, want %s", name, tf_terrain_path(t), a, b,
                          h, c);
            float cell;
            tf_terrain_sample_window(t, x, y, 1.0, 0, 0, 1, 1, &cell);
            ck_assert_msg(float_bits(cell) == float_bits((float)h),
                          "%s path %s at (%s, %s): window %a, sample %a", name,
                          tf_terrain_path(t), a, b, (double)cell, h);
            checked++;
        }
        fclose(f);
        tf_terrain_free(t);
    }
    ck_assert_msg(checked >= 16, "%s: %d vectors checked, expected at least 16", name, checked);
}
END_TEST

static Suite *fastpath_suite(void)
{
    golden_specs = tu_list_cases(tu_path("%s/tests/data/terrain", tu_srcdir()), ".json", 0,
                                 &golden_count);
    Suite *s = suite_create("fastpath");
    TCase *c = tcase_create("exactness");
    tcase_set_timeout(c, 120);
    tcase_add_loop_test(c, grids_equal_samples_on_every_path, 0, 150);
    tcase_add_loop_test(c, grids_equal_samples_with_noise_lanes, 0, 64);
    tcase_add_loop_test(c, grids_equal_samples_with_masks_on_shared_knots, 0, 60);
    tcase_add_loop_test(c, turbulence_rows_equal_samples_on_every_path, 0, 40);
    tcase_add_loop_test(c, fractal_sum_rows_sum_the_base_noises, 0, 20);
    tcase_add_loop_test(c, noise_rows_match_the_scalar_noise, 0, 10);
    tcase_add_loop_test(c, noise_rows_match_the_scalar_noise_at_edges, 0, 40);
    tcase_add_loop_test(c, noise_points_deriv_match_the_scalar_gradient, 0, 20);
    tcase_add_loop_test(c, simplex_rows_match_the_scalar_noise, 0, 40);
#if TF_HAVE_AVX2_PATH
    tcase_add_loop_test(c, simplex_points_deriv_match_the_scalar, 0, 40);
#endif
    tcase_add_loop_test(c, perlin_reference_rows_at_the_int_edge, 0, 4);
    tcase_add_loop_test(c, curve_rows_match_the_scalar_lookup, 0, 60);
    tcase_add_loop_test(c, placed_lookups_match_the_scalar_lookup, 0, 60);
    tcase_add_loop_test(c, bucket_edges_find_the_binary_search_segment, 0, 90);
    tcase_add_loop_test(c, bucket_tables_are_bounded, 0, 4);
    tcase_add_loop_test(c, curve_lanes_match_the_scalar_lookup, 0, 100);
    tcase_add_test(c, noises_with_lanes_follow_the_build);
    tcase_add_test(c, environment_selects_the_path);
    tcase_add_test(c, golden_specs_are_present);
    tcase_add_loop_test(c, golden_vectors_on_every_path, 0, (int)golden_count);
    suite_add_tcase(s, c);
    return s;
}

int main(void)
{
    int status = tu_run_suite(fastpath_suite());
    tu_free_list(golden_specs, golden_count);
    return status;
}
