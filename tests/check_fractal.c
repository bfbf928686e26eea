/*
 * Layer kinds (lib/runtime/fractal.c, docs/spec.md "Layer kinds"): every
 * kind against a straightforward reimplementation of the documented
 * formulas (own octave-offset code), derivatives against finite
 * differences, determinism, parameter edge cases, and the "fractal" member
 * of the spec (defaults, round trip, errors).
 */
#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "runtime/noise.h"
#include "runtime/noise_kinds.h"
#include "terrafit/runtime.h"
#include "testutil.h"

/* ---- the documented rules, written again from docs/spec.md */

static uint32_t ref_mix32(uint32_t x)
{
    x ^= x >> 16;
    x *= 0x7FEB352Du;
    x ^= x >> 15;
    x *= 0x846CA68Bu;
    x ^= x >> 16;
    return x;
}

/* o_i: the default offset of "layer" i of root seed `seed`. */
static void ref_offset(uint32_t seed, int i, double o[3])
{
    uint64_t state = ref_mix32(seed + ref_mix32((uint32_t)i + 1u));
    for (int d = 0; d < 3; d++) {
        uint64_t z = (state += 0x9E3779B97F4A7C15u);
        z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9u;
        z = (z ^ (z >> 27)) * 0x94D049BB133111EBu;
        z ^= z >> 31;
        o[d] = (double)(z >> 11) * 0x1.0p-53 * 2048.0 - 1024.0;
    }
}

/* N with gradient: each noise's own derivative function. */
static double ref_noise(tf_noise_type t, uint32_t seed, double x, double y, double z, double *gx,
                        double *gy)
{
    switch (t) {
    case TF_NOISE_PERLIN:
        return tf_perlin_improved3_deriv(seed, x, y, z, gx, gy);
    case TF_NOISE_EXPONENTIAL_PERLIN:
        return tf_exp_perlin3_deriv(seed, x, y, z, gx, gy);
    case TF_NOISE_VALUE:
        return tf_value2_deriv(seed, x, y, gx, gy);
    case TF_NOISE_POLYNOMIAL:
        return tf_polynomial2_deriv(seed, x, y, gx, gy);
    case TF_NOISE_CELLULAR_F1:
        return tf_cellular_f1_deriv(seed, x, y, gx, gy);
    case TF_NOISE_SIMPLEX:
        return tf_simplex2_deriv(seed, x, y, gx, gy);
    case TF_NOISE_PERLIN_REFERENCE_SIMPLEX:
        return tf_perlin_reference_simplex3_deriv(x, y, z, gx, gy);
    default:
        ck_abort_msg("noise %d not in the test", (int)t);
        return 0;
    }
}

static double ref_kind(const tf_layer_spec *L, double x, double y, double z)
{
    int O = L->fractal_octaves;
    double f[TF_MAX_OCTAVES], o[TF_MAX_OCTAVES][3] = {{0, 0, 0}};
    f[0] = 1.0;
    for (int i = 1; i < O; i++) {
        f[i] = f[i - 1] * L->fractal_lacunarity;
        ref_offset(L->seed, i, o[i]);
    }
    double G = L->fractal_gain, gx, gy, s = 0, A = 0;
    switch (L->fractal_kind) {
    case TF_FRACTAL_FBM:
    case TF_FRACTAL_RIDGED:
    case TF_FRACTAL_BILLOW: {
        double a = 1;
        for (int i = 0; i < O; i++) {
            double v = ref_noise(L->noise_type, L->seed, x * f[i] + o[i][0], y * f[i] + o[i][1],
                                 z + o[i][2], &gx, &gy);
            double r = L->fractal_kind == TF_FRACTAL_FBM      ? v
                       : L->fractal_kind == TF_FRACTAL_RIDGED ? 1 - fabs(v)
                                                              : fabs(v);
            s += a * r;
            A += a;
            a *= G;
        }
        return L->fractal_kind == TF_FRACTAL_FBM ? s / A : 2 * (s / A) - 1;
    }
    case TF_FRACTAL_SWISS: {
        double a = 1, w[2] = {0, 0}, g = 1;
        for (int i = 0; i < O; i++) {
            double v = ref_noise(L->noise_type, L->seed, (x + L->fractal_warp * w[0]) * f[i] + o[i][0],
                                 (y + L->fractal_warp * w[1]) * f[i] + o[i][1], z + o[i][2], &gx,
                                 &gy);
            s += a * (1 - fabs(v));
            w[0] += a * gx * -v;
            w[1] += a * gy * -v;
            a *= G * (s < 0 ? 0 : s > 1 ? 1 : s);
            A += g;
            g *= G;
        }
        return 2 * (s / A) - 1;
    }
    case TF_FRACTAL_JORDAN: {
        double v = ref_noise(L->noise_type, L->seed, x, y, z, &gx, &gy);
        s = v * v;
        double wx = L->fractal_warp0 * (gx * v), wy = L->fractal_warp0 * (gy * v);
        double mx = L->fractal_damp0 * (gx * v), my = L->fractal_damp0 * (gy * v);
        double amp = L->fractal_gain1, da = amp * G;
        double Aamp = amp, Ada = da;
        A = 1;
        for (int i = 1; i < O; i++) {
            v = ref_noise(L->noise_type, L->seed, x * f[i] + wx + o[i][0], y * f[i] + wy + o[i][1],
                          z + o[i][2], &gx, &gy);
            s += da * (v * v);
            wx += L->fractal_warp * (gx * v);
            wy += L->fractal_warp * (gy * v);
            mx += L->fractal_damp * (gx * v);
            my += L->fractal_damp * (gy * v);
            amp *= G;
            da = amp * (1 - L->fractal_damp_scale / (1 + (mx * mx + my * my)));
            A += Ada;
            Aamp *= G;
            Ada = Aamp;
        }
        return 2 * (s / A) - 1;
    }
    default:
        return NAN;
    }
}

static tf_layer_spec make_layer(tf_noise_type noise, tf_fractal_kind kind, uint32_t seed)
{
    tf_layer_spec L;
    memset(&L, 0, sizeof L);
    L.noise_type = noise;
    L.seed = seed;
    L.frequency = 1;
    tf_fractal_set_defaults(&L, kind);
    return L;
}

static const tf_noise_type NOISES[] = {
    TF_NOISE_SIMPLEX, TF_NOISE_PERLIN_REFERENCE_SIMPLEX, TF_NOISE_PERLIN,
    TF_NOISE_EXPONENTIAL_PERLIN, TF_NOISE_VALUE, TF_NOISE_POLYNOMIAL, TF_NOISE_CELLULAR_F1};
#define NNOISES (int)(sizeof NOISES / sizeof NOISES[0])

/* Each kind over each noise, bit for bit. Loop index: kind * NNOISES + noise. */
START_TEST(kinds_match_reference)
{
    tf_fractal_kind kind = (tf_fractal_kind)(1 + _i / NNOISES);
    tf_noise_type noise = NOISES[_i % NNOISES];
    tf_layer_spec L = make_layer(noise, kind, 12345u + (uint32_t)_i);
    L.fractal_octaves = 5;
    L.fractal_lacunarity = 2.0 + 0.0625 * (_i % 3);
    for (int k = 0; k < 300; k++) {
        double x = (k * 7919 % 1009) * 0.731 - 300.0, y = (k * 104729 % 997) * 0.593 - 250.0;
        double z = 3.25;
        double a = tf_fractal_eval(&L, x, y, z, NULL, NULL), b = ref_kind(&L, x, y, z);
        ck_assert_msg(memcmp(&a, &b, sizeof a) == 0, "%s/%s at (%g, %g): %a != %a",
                      tf_fractal_kind_name(kind), tf_noise_type_name(noise), x, y, a, b);
        double dx, dy;
        double c = tf_fractal_eval(&L, x, y, z, &dx, &dy);
        ck_assert_msg(memcmp(&a, &c, sizeof a) == 0, "value changes when derivatives are asked");
        ck_assert(isfinite(dx) && isfinite(dy));
    }
}
END_TEST

/* Analytic derivatives of fbm, ridged and billow over smooth noises against
 * central differences of the value (away from the |n| creases). */
START_TEST(derivatives_match_finite_differences)
{
    static const tf_noise_type smooth[] = {TF_NOISE_PERLIN, TF_NOISE_EXPONENTIAL_PERLIN,
                                           TF_NOISE_VALUE, TF_NOISE_SIMPLEX,
                                           TF_NOISE_PERLIN_REFERENCE_SIMPLEX};
    for (int kind = TF_FRACTAL_FBM; kind <= TF_FRACTAL_JORDAN; kind++) {
        for (size_t n = 0; n < sizeof smooth / sizeof smooth[0]; n++) {
            tf_layer_spec L = make_layer(smooth[n], (tf_fractal_kind)kind, 777u);
            L.fractal_octaves = 4;
            int checked = 0, agree = 0;
            for (int k = 0; k < 200; k++) {
                double x = (k * 7919 % 1009) * 0.0731 + 5.0, y = (k * 104729 % 997) * 0.0593 - 9.0;
                double dx, dy, h = 1e-6;
                tf_fractal_eval(&L, x, y, 0.5, &dx, &dy);
                double fx = (tf_fractal_eval(&L, x + h, y, 0.5, NULL, NULL) -
                             tf_fractal_eval(&L, x - h, y, 0.5, NULL, NULL)) /
                            (2 * h);
                double fy = (tf_fractal_eval(&L, x, y + h, 0.5, NULL, NULL) -
                             tf_fractal_eval(&L, x, y - h, 0.5, NULL, NULL)) /
                            (2 * h);
                checked++;
                /* the turbulences use a 2^-10-scale difference: looser;
                 * creases make a few points disagree. */
                double tol = kind >= TF_FRACTAL_SWISS
                                 ? 0.05 * (1 + fabs(fx) + fabs(fy))
                                 : 1e-4 * (1 + fabs(fx) + fabs(fy));
                if (fabs(dx - fx) <= tol && fabs(dy - fy) <= tol)
                    agree++;
            }
            ck_assert_msg(agree >= checked * 9 / 10, "%s/%s: %d of %d derivatives agree",
                          tf_fractal_kind_name((tf_fractal_kind)kind),
                          tf_noise_type_name(smooth[n]), agree, checked);
        }
    }
}
END_TEST

/* tf_noise_eval_gradient: the same value as each kind's own function, and for
 * perlin-reference-simplex the analytic gradient of
 * tf_perlin_reference_simplex3_deriv (docs/spec.md, "Layer kinds"). */
START_TEST(noise_eval_gradient_covers_every_type)
{
    for (int t = 0; t < TF_NOISE_TYPE_COUNT; t++) {
        for (int k = 0; k < 50; k++) {
            double x = k * 1.37 - 30, y = k * 0.71 + 2, z = 0.5;
            double a = tf_noise_eval_gradient((tf_noise_type)t, 99, x, y, z, NULL, NULL);
            double b = tf_noise_eval((tf_noise_type)t, 99, x, y, z);
            double dx, dy, c = tf_noise_eval_gradient((tf_noise_type)t, 99, x, y, z, &dx, &dy);
            if (t <= TF_NOISE_PERLIN_REFERENCE_SIMPLEX) /* the runtime's own kinds */
                ck_assert_msg(memcmp(&a, &b, sizeof a) == 0, "%s", tf_noise_type_name(t));
            ck_assert_msg(memcmp(&a, &c, sizeof a) == 0, "%s", tf_noise_type_name(t));
            ck_assert(isfinite(a) && isfinite(dx) && isfinite(dy));
        }
    }
    double dx, dy;
    for (int k = 0; k < 50; k++) {
        double x = k * 1.37 - 30, y = k * 0.71 + 2, z = k * 0.13, wx, wy;
        double n = tf_noise_eval_gradient(TF_NOISE_PERLIN_REFERENCE_SIMPLEX, 7, x, y, z, &dx, &dy);
        double m = tf_perlin_reference_simplex3_deriv(x, y, z, &wx, &wy);
        ck_assert(memcmp(&n, &m, sizeof n) == 0 && memcmp(&dx, &wx, sizeof dx) == 0 &&
                  memcmp(&dy, &wy, sizeof dy) == 0);
    }
    ck_assert(isnan(tf_noise_eval_gradient(TF_NOISE_TYPE_COUNT, 0, 1, 1, 1, &dx, &dy)) && isnan(dx) &&
              isnan(dy));
    double v = tf_noise_eval_gradient(TF_NOISE_CELLULAR_F2_F1, 5, 0.3, 0.4, 0, NULL, NULL);
    ck_assert(v == tf_cellular_f2_f1(5, 0.3, 0.4));
}
END_TEST

START_TEST(edge_cases)
{
    /* no fractal: the base noise itself */
    tf_layer_spec L = make_layer(TF_NOISE_SIMPLEX, TF_FRACTAL_NONE, 3);
    ck_assert(tf_fractal_eval(&L, 1.5, 2.5, 0, NULL, NULL) == tf_simplex2(3, 1.5, 2.5));
    /* one octave of fbm, or gain 0: the base noise, bit for bit */
    L = make_layer(TF_NOISE_PERLIN, TF_FRACTAL_FBM, 3);
    L.fractal_octaves = 1;
    ck_assert(tf_fractal_eval(&L, 1.5, 2.5, 0.25, NULL, NULL) ==
              tf_perlin_improved3(3, 1.5, 2.5, 0.25));
    L.fractal_octaves = 8;
    L.fractal_gain = 0;
    ck_assert(tf_fractal_eval(&L, 1.5, 2.5, 0.25, NULL, NULL) ==
              tf_perlin_improved3(3, 1.5, 2.5, 0.25));
    /* 24 octaves, lacunarity just above 1 and at the 2^40 limit: finite */
    for (int kind = TF_FRACTAL_FBM; kind <= TF_FRACTAL_JORDAN; kind++) {
        L = make_layer(TF_NOISE_VALUE, (tf_fractal_kind)kind, 9);
        L.fractal_octaves = 24;
        L.fractal_lacunarity = 1.0000001;
        double dx, dy;
        ck_assert(isfinite(tf_fractal_eval(&L, 10.5, -3.25, 0, &dx, &dy)));
        ck_assert(isfinite(dx) && isfinite(dy));
        L.fractal_lacunarity = 3.3;
        L.fractal_octaves = 24; /* 3.3^23 > 2^40: the validator refuses it */
        L.fractal_lacunarity = 2.0;
        L.fractal_octaves = 24;
        L.fractal_gain = 1.5; /* growing amplitudes are allowed */
        ck_assert(isfinite(tf_fractal_eval(&L, 10.5, -3.25, 0, &dx, &dy)));
    }
    /* ridged and billow of the same noise mirror each other: r = 1 - b */
    tf_layer_spec R = make_layer(TF_NOISE_PERLIN, TF_FRACTAL_RIDGED, 4);
    tf_layer_spec B = make_layer(TF_NOISE_PERLIN, TF_FRACTAL_BILLOW, 4);
    R.fractal_gain = B.fractal_gain = 0.5; /* amplitudes 1, 1/2, ...: exact sums */
    for (int k = 0; k < 100; k++) {
        double x = k * 0.37, y = k * 0.21 - 4;
        double r = tf_fractal_eval(&R, x, y, 0, NULL, NULL), b = tf_fractal_eval(&B, x, y, 0, NULL, NULL);
        ck_assert_msg(fabs(r + b) < 1e-12, "ridged %g billow %g", r, b);
    }
    /* swiss with warp 0 and gain 0: one ridged octave */
    tf_layer_spec S = make_layer(TF_NOISE_VALUE, TF_FRACTAL_SWISS, 4);
    S.fractal_warp = 0;
    S.fractal_gain = 0;
    ck_assert(tf_fractal_eval(&S, 0.3, 0.9, 0, NULL, NULL) ==
              2 * (1 - fabs(tf_value2(4, 0.3, 0.9))) - 1);
    /* jordan with every warp and damp 0: a sum of squares */
    tf_layer_spec J = make_layer(TF_NOISE_VALUE, TF_FRACTAL_JORDAN, 4);
    J.fractal_warp0 = J.fractal_warp = J.fractal_damp0 = J.fractal_damp = 0;
    J.fractal_damp_scale = 0;
    J.fractal_octaves = 1;
    double v = tf_value2(4, 0.3, 0.9);
    ck_assert(tf_fractal_eval(&J, 0.3, 0.9, 0, NULL, NULL) == 2 * (v * v) - 1);
}
END_TEST

/* Seeds change the result; the same call twice gives the same bits. */
START_TEST(deterministic_and_seeded)
{
    for (int kind = TF_FRACTAL_FBM; kind <= TF_FRACTAL_JORDAN; kind++) {
        tf_layer_spec a = make_layer(TF_NOISE_PERLIN, (tf_fractal_kind)kind, 1);
        tf_layer_spec b = make_layer(TF_NOISE_PERLIN, (tf_fractal_kind)kind, 2);
        int differ = 0;
        for (int k = 0; k < 50; k++) {
            double x = k * 0.913 + 0.1, y = k * 0.377 - 2;
            double v1 = tf_fractal_eval(&a, x, y, 0, NULL, NULL);
            double v2 = tf_fractal_eval(&a, x, y, 0, NULL, NULL);
            ck_assert(memcmp(&v1, &v2, sizeof v1) == 0);
            differ += v1 != tf_fractal_eval(&b, x, y, 0, NULL, NULL);
        }
        ck_assert_int_ge(differ, 45);
    }
}
END_TEST

/* The independent Python port (tests/oracle/terrafit_ref.py, written
 * from docs/spec.md and docs/noise.md) gives the same bits for every kind
 * over every noise, at scales up to 1e6. Skipped without /usr/bin/python3. */
START_TEST(python_port_agrees)
{
    if (access("/usr/bin/python3", X_OK) != 0) {
        fprintf(stderr, "# python_port_agrees: skipped, no /usr/bin/python3\n");
        return;
    }
    char *dir = tu_mkdtemp(), in_path[4200], cmd[8800];
    ck_assert_ptr_nonnull(dir);
    snprintf(in_path, sizeof in_path, "%s/points.txt", dir);
    FILE *in = fopen(in_path, "w");
    ck_assert_ptr_nonnull(in);
    enum { POINTS = 540 };
    static tf_layer_spec layers[POINTS];
    static double px[POINTS], py[POINTS], pz[POINTS];
    uint64_t state = 99;
    for (int k = 0; k < POINTS; k++) {
        tf_layer_spec *L = &layers[k];
        memset(L, 0, sizeof *L);
        L->noise_type = (tf_noise_type)(k % TF_NOISE_TYPE_COUNT);
        tf_fractal_set_defaults(L, (tf_fractal_kind)(k / TF_NOISE_TYPE_COUNT % TF_FRACTAL_KIND_COUNT));
        state = state * 6364136223846793005u + 1442695040888963407u;
        L->seed = (uint32_t)(state >> 32);
        if (L->fractal_kind != TF_FRACTAL_NONE) {
            L->fractal_octaves = 1 + (int)((state >> 20) % 7);
            L->fractal_lacunarity = (state >> 8 & 1) ? 2.0 : 1.875;
            L->fractal_gain = (state >> 9 & 1) ? 0.5 : 0.6;
        }
        double scale = pow(10.0, (double)(k % 7));
        px[k] = ((double)(state >> 11 & 0xFFFFF) / 1048576.0 - 0.5) * scale;
        py[k] = ((double)(state >> 31 & 0xFFFFF) / 1048576.0 - 0.5) * scale;
        pz[k] = (double)(k % 13) * 0.37;
        fprintf(in, "%s %s %u %d %a %a %a %a %a\n", tf_noise_type_name(L->noise_type),
                tf_fractal_kind_name(L->fractal_kind), L->seed, L->fractal_octaves,
                L->fractal_lacunarity, L->fractal_gain, px[k], py[k], pz[k]);
    }
    fclose(in);
    snprintf(cmd, sizeof cmd, "/usr/bin/python3 %s/tests/oracle/terrafit_ref.py fractal < %s",
             tu_srcdir(), in_path);
    FILE *out = popen(cmd, "r");
    ck_assert_ptr_nonnull(out);
    char line[128];
    int k = 0;
    while (k < POINTS && fgets(line, sizeof line, out)) {
        double want = strtod(line, NULL);
        double got = tf_fractal_eval(&layers[k], px[k], py[k], pz[k], NULL, NULL);
        ck_assert_msg(memcmp(&want, &got, sizeof got) == 0 || (isnan(want) && isnan(got)),
                      "%s/%s at (%a, %a): python %a, C %a",
                      tf_noise_type_name(layers[k].noise_type),
                      tf_fractal_kind_name(layers[k].fractal_kind), px[k], py[k], want, got);
        k++;
    }
    ck_assert_int_eq(pclose(out), 0);
    ck_assert_int_eq(k, POINTS);
    tu_rmtree(dir);
    free(dir);
}
END_TEST

/* ---- the "fractal" member */

static tf_spec *parse(const char *fractal, tf_error *err)
{
    char json[1024];
    snprintf(json, sizeof json,
             "{\"version\":1,\"noiseLayers\":[{\"baseNoise\":{\"type\":\"perlin\","
             "\"frequency\":0.01},\"fractal\":%s,\"rd\":{\"points\":[{\"x\":0,\"y\":0},"
             "{\"x\":1,\"y\":1}]}}]}",
             fractal);
    return tf_spec_parse(json, strlen(json), "t", err);
}

START_TEST(spec_defaults_and_round_trip)
{
    tf_error err;
    tf_spec *s = parse("{\"kind\":\"jordan\"}", &err);
    ck_assert_msg(s != NULL, "%s", err.message);
    const tf_layer_spec *L = &s->layers[0];
    ck_assert_int_eq(L->fractal_kind, TF_FRACTAL_JORDAN);
    ck_assert_int_eq(L->fractal_octaves, 6);
    ck_assert(L->fractal_lacunarity == 2 && L->fractal_gain == 0.5 && L->fractal_gain1 == 0.8 &&
              L->fractal_warp0 == 0.4 && L->fractal_warp == 0.35 && L->fractal_damp0 == 1 &&
              L->fractal_damp == 0.8 && L->fractal_damp_scale == 1);
    char *json = tf_spec_to_json(s, &err);
    ck_assert(strstr(json, "\"damp_scale\": 1") != NULL);
    tf_spec *again = tf_spec_parse(json, strlen(json), "again", &err);
    ck_assert_msg(again != NULL, "%s", err.message);
    ck_assert(memcmp(&again->layers[0].fractal_kind, &L->fractal_kind,
                     offsetof(tf_layer_spec, fractal_extra_json) -
                         offsetof(tf_layer_spec, fractal_kind)) == 0);
    tf_spec *copy = tf_spec_copy(again, &err);
    ck_assert_int_eq(copy->layers[0].fractal_octaves, 6);
    free(json);
    tf_spec_free(copy);
    tf_spec_free(again);
    tf_spec_free(s);

    s = parse("{\"kind\":\"swiss\",\"octaves\":9,\"warp\":0.3,\"note\":\"kept\"}", &err);
    ck_assert_msg(s != NULL, "%s", err.message);
    ck_assert(s->layers[0].fractal_warp == 0.3 && s->layers[0].fractal_octaves == 9);
    json = tf_spec_to_json(s, &err);
    ck_assert(strstr(json, "\"note\"") != NULL && strstr(json, "\"gain1\"") == NULL);
    free(json);
    tf_spec_free(s);
}
END_TEST

/* Every noise and kind name parses, writes back and evaluates. */
START_TEST(names_round_trip)
{
    ck_assert_ptr_null(tf_noise_type_name(TF_NOISE_TYPE_COUNT));
    ck_assert_ptr_null(tf_fractal_kind_name(TF_FRACTAL_KIND_COUNT));
    ck_assert_str_eq(tf_noise_type_name(TF_NOISE_CELLULAR_F2_F1), "cellular-f2-f1");
    for (int t = 0; t < TF_NOISE_TYPE_COUNT; t++) {
        for (int k = TF_FRACTAL_NONE; k < TF_FRACTAL_KIND_COUNT; k++) {
            char json[512], fractal[64] = "";
            if (k != TF_FRACTAL_NONE)
                snprintf(fractal, sizeof fractal, "\"fractal\":{\"kind\":\"%s\"},",
                         tf_fractal_kind_name((tf_fractal_kind)k));
            snprintf(json, sizeof json,
                     "{\"version\":1,\"noiseLayers\":[{\"baseNoise\":{\"type\":\"%s\","
                     "\"frequency\":0.5},%s\"rd\":{\"points\":[{\"x\":0,\"y\":0},{\"x\":1,"
                     "\"y\":1}]}}]}",
                     tf_noise_type_name((tf_noise_type)t), fractal);
            tf_error err;
            tf_spec *s = tf_spec_parse(json, strlen(json), "t", &err);
            ck_assert_msg(s != NULL, "%s", err.message);
            ck_assert_int_eq(s->layers[0].noise_type, t);
            ck_assert_int_eq(s->layers[0].fractal_kind, k);
            char *text = tf_spec_to_json(s, &err);
            tf_spec *again = tf_spec_parse(text, strlen(text), "again", &err);
            ck_assert_msg(again != NULL, "%s", err.message);
            const tf_layer_spec *L = &again->layers[0];
            ck_assert_int_eq(L->noise_type, t);
            ck_assert_int_eq(L->fractal_kind, k);
            double a = tf_fractal_eval(&s->layers[0], 1.25, -3.5, L->offset[2], NULL, NULL);
            double b = tf_fractal_eval(L, 1.25, -3.5, L->offset[2], NULL, NULL);
            ck_assert(isfinite(a) && memcmp(&a, &b, sizeof a) == 0);
            free(text);
            tf_spec_free(again);
            tf_spec_free(s);
        }
    }
}
END_TEST

START_TEST(spec_errors)
{
    static const struct {
        const char *fractal, *error;
    } cases[] = {
        {"{\"kind\":\"fbm\",\"octaves\":0}", "$.noiseLayers[0].fractal.octaves: must be an integer from 1 to 24"},
        {"{\"kind\":\"fbm\",\"octaves\":25}", "$.noiseLayers[0].fractal.octaves: must be"},
        {"{\"kind\":\"fbm\",\"octaves\":2.5}", "fractal.octaves: expected an integer"},
        {"{\"kind\":\"fbm\",\"lacunarity\":1}", "fractal.lacunarity: must be > 1"},
        {"{\"kind\":\"fbm\",\"gain\":-0.1}", "fractal.gain: must be >= 0"},
        {"{\"kind\":\"cloudy\"}", "fractal.kind: unknown fractal kind \"cloudy\""},
        {"{\"octaves\":3}", "fractal.kind: missing required member"},
        {"{\"kind\":\"fbm\",\"warp\":0.1}", "fractal.warp: not a parameter of fractal kind \"fbm\""},
        {"{\"kind\":\"swiss\",\"damp\":0.1}", "fractal.damp: not a parameter"},
        {"{\"kind\":\"jordan\",\"gain1\":-1}", "fractal.gain1: must be >= 0"},
        {"{\"kind\":\"fbm\",\"lacunarity\":\"2\"}", "fractal.lacunarity: expected a number"},
        {"[1]", "$.noiseLayers[0].fractal: expected an object"},
        {"{\"kind\":\"fbm\",\"octaves\":24,\"lacunarity\":4}", "must not exceed 2^40"},
    };
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        tf_error err;
        tf_spec *s = parse(cases[k].fractal, &err);
        ck_assert_msg(s == NULL, "%s accepted", cases[k].fractal);
        ck_assert_msg(strstr(err.message, cases[k].error) != NULL, "%s: got \"%s\"",
                      cases[k].fractal, err.message);
    }
    /* the validator checks a spec built in code the same way */
    tf_spec *s = tf_spec_new(1, NULL);
    tf_point pts[2] = {{0, 0}, {1, 1}};
    tf_spec_set_rd_points(s, 0, pts, 2, NULL);
    tf_fractal_set_defaults(&s->layers[0], TF_FRACTAL_RIDGED);
    tf_error err;
    ck_assert_int_eq(tf_spec_validate(s, &err), 0);
    s->layers[0].fractal_lacunarity = NAN;
    ck_assert_int_ne(tf_spec_validate(s, &err), 0);
    ck_assert(strstr(err.message, "fractal.lacunarity: number is not finite") != NULL);
    s->layers[0].fractal_kind = (tf_fractal_kind)99;
    ck_assert_int_ne(tf_spec_validate(s, &err), 0);
    tf_spec_free(s);
}
END_TEST

static Suite *fractal_suite(void)
{
    Suite *s = suite_create("fractal");
    TCase *tc = tcase_create("kinds");
    tcase_set_timeout(tc, 120);
    tcase_add_loop_test(tc, kinds_match_reference, 0, 5 * NNOISES);
    tcase_add_test(tc, derivatives_match_finite_differences);
    tcase_add_test(tc, noise_eval_gradient_covers_every_type);
    tcase_add_test(tc, edge_cases);
    tcase_add_test(tc, deterministic_and_seeded);
    tcase_add_test(tc, python_port_agrees);
    suite_add_tcase(s, tc);
    TCase *spec = tcase_create("spec");
    tcase_add_test(spec, spec_defaults_and_round_trip);
    tcase_add_test(spec, spec_errors);
    tcase_add_test(spec, names_round_trip);
    suite_add_tcase(s, spec);
    return s;
}

int main(void)
{
    return tu_run_suite(fractal_suite());
}
