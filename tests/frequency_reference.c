/* References of known base frequency (frequency_reference.h). */
#include "frequency_reference.h"

#include <math.h>
#include <stdio.h>

const tf_point fr_curve_points[FR_CURVE_POINT_COUNT] = {
    {0.0, 0.0}, {0.3, 0.1}, {0.5, 0.35}, {0.7, 0.8}, {1.0, 1.0}};

/* splitmix64: deterministic on every platform */
static double uniform(uint64_t *state)
{
    uint64_t z = (*state += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    z ^= z >> 31;
    return ((double)(z >> 11) + 0.5) * 0x1p-53;
}

static double gauss(uint64_t *state)
{
    double u1 = uniform(state), u2 = uniform(state);
    return sqrt(-2.0 * log(u1)) * cos(6.283185307179586 * u2);
}

tf_layer_map *fr_render_reference(tf_noise_type noise, double f, uint32_t seed, size_t side,
                                  double sigma, int byte, tf_error *err)
{
    tf_spec *spec = tf_spec_new(1, err);
    if (!spec)
        return NULL;
    tf_spec_reseed(spec, seed);
    spec->layers[0].noise_type = noise;
    spec->layers[0].frequency = f;
    spec->layers[0].pre_amp_shift = 0.0;
    spec->layers[0].amp_scale = 1.0;
    spec->min_value = 0.0;
    spec->max_value = 1.0;
    tf_terrain *t = NULL;
    tf_layer_map *map = NULL;
    if (tf_spec_set_rd_points(spec, 0, fr_curve_points, FR_CURVE_POINT_COUNT, err) != 0 ||
        !(t = tf_terrain_compile(spec, err)) || !(map = tf_layer_map_new(side, side, err)) ||
        tf_render_grid(t, 0.0, 0.0, 1.0, side, side, 0, map->value, NULL, NULL, err) != 0) {
        tf_layer_map_free(map);
        map = NULL;
    }
    tf_terrain_free(t);
    tf_spec_free(spec);
    if (!map)
        return NULL;
    size_t n = side * side;
    float lo = map->value[0], hi = map->value[0];
    for (size_t k = 0; k < n; k++) {
        lo = fminf(lo, map->value[k]);
        hi = fmaxf(hi, map->value[k]);
    }
    if (!(hi > lo)) {
        snprintf(err->message, sizeof err->message, "reference at f = %g is flat", f);
        err->code = TF_ERR_INVALID;
        tf_layer_map_free(map);
        return NULL;
    }
    uint64_t state = seed * 0x2545F4914F6CDD1Dull + 7;
    for (size_t k = 0; k < n; k++) {
        double v = (map->value[k] - lo) / (hi - lo);
        if (sigma > 0.0)
            v += sigma * gauss(&state);
        if (byte)
            v = floor(v * 255.0 + 0.5) / 255.0;
        map->value[k] = (float)v;
        map->weight[k] = 1.0f;
    }
    map->bits = byte ? 8 : 0; /* 0: float samples, no rounding */
    return map;
}
