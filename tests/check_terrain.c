/*
 * The compiled terrain (docs/spec.md, "Evaluation"): grids equal single
 * samples bit for bit, lattice windows join seamlessly, many threads get the
 * single-thread answers, masks (ranges and curves) weigh layers and the
 * output curve maps the sum exactly as documented, and heights stay inside
 * the derived range.
 */
#define _DEFAULT_SOURCE
#include <check.h>
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "terrafit/runtime.h"
#include "testutil.h"

static uint64_t rng_state;

static double next_unit(void)
{
    rng_state ^= rng_state >> 12;
    rng_state ^= rng_state << 25;
    rng_state ^= rng_state >> 27;
    return (double)((rng_state * 0x2545F4914F6CDD1DULL) >> 11) * 0x1.0p-53;
}

/* `count` random points: x strictly increasing from about x0, y a random
 * walk from y0 with steps up to `dy` (either sign, flats too). */
static tf_point *random_curve(size_t count, double x0, double dx, double y0, double dy)
{
    tf_point *p = malloc(count * sizeof *p);
    double x = x0, y = y0;
    for (size_t k = 0; k < count; k++) {
        x += dx * (0.05 + next_unit());
        y += next_unit() < 0.1 ? 0.0 : (next_unit() - 0.4) * dy;
        p[k].x = x;
        p[k].y = y;
    }
    return p;
}

/* A random valid spec: 1-6 layers, both noises, every interpolation,
 * random curves, some layers masked by lower ones (by a range or by a
 * curve), sometimes an output curve. */
static tf_terrain *random_terrain(uint64_t seed)
{
    rng_state = seed * 0x9E3779B97F4A7C15ULL + 7;
    size_t layers = 1 + (size_t)(next_unit() * 6);
    tf_spec *spec = tf_spec_new(layers, NULL);
    tf_spec_reseed(spec, (uint32_t)(next_unit() * 4294967295.0));
    for (size_t i = 0; i < layers; i++) {
        tf_layer_spec *L = &spec->layers[i];
        L->noise_type = next_unit() < 0.3 ? TF_NOISE_PERLIN_REFERENCE_SIMPLEX : TF_NOISE_SIMPLEX;
        L->frequency = pow(2.0, -1.0 - next_unit() * 8.0);
        L->rd_interpolation = (tf_interp)(int)(next_unit() * 3);
        size_t count = 2 + (size_t)(next_unit() * 70);
        tf_point *p = malloc(count * sizeof *p);
        double x = next_unit() * 0.2, y = next_unit();
        for (size_t k = 0; k < count; k++) {
            x += 0.001 + next_unit() * 0.02;
            y += (next_unit() - 0.3) * 0.1;
            p[k].x = x;
            p[k].y = y;
        }
        tf_spec_set_rd_points(spec, i, p, count, NULL);
        free(p);
        L->pre_amp_shift = -0.5 + next_unit() * 0.2;
        L->amp_scale = (next_unit() - 0.2) * 2.0;
        if (i > 0 && next_unit() < 0.3) {
            L->mask_layer_index = (int)(next_unit() * (double)i);
            double a = next_unit(), b = a + next_unit() * 0.5;
            L->mask_min_value = a;
            L->mask_max_value = b;
            L->mask_falloff = next_unit() < 0.3 ? 0.0 : next_unit() * 0.2;
        } else if (i > 0 && next_unit() < 0.5) {
            /* a partial mask over about the range r takes (y above) */
            size_t n = 2 + (size_t)(next_unit() * 20);
            tf_point *w = random_curve(n, -0.2 + next_unit() * 0.5, 1.5 / (double)n,
                                       next_unit() * 1.5 - 0.3, 0.6);
            ck_assert_int_eq(tf_spec_set_mask_curve(spec, i, (int)(next_unit() * (double)i), w, n,
                                                    (tf_interp)(int)(next_unit() * 3), NULL),
                             0);
            free(w);
        }
    }
    if (next_unit() < 0.4) {
        size_t n = 2 + (size_t)(next_unit() * 40);
        tf_point *oc = random_curve(n, -3.0 + next_unit(), 5.0 / (double)n, next_unit() - 0.5, 0.5);
        ck_assert_int_eq(
            tf_spec_set_output_curve(spec, oc, n, (tf_interp)(int)(next_unit() * 3), NULL), 0);
        free(oc);
    }
    spec->min_value = -5.0;
    spec->max_value = 5.0;
    tf_error err;
    tf_terrain *t = tf_terrain_compile(spec, &err);
    ck_assert_msg(t != NULL, "%s", err.message);
    tf_spec_free(spec);
    return t;
}

/* out[j*nx + i] == (float)tf_terrain_sample(x0 + i*step, y0 + j*step). */
START_TEST(grid_equals_single_samples)
{
    tf_terrain *t = random_terrain((uint64_t)_i);
    double x0 = (next_unit() - 0.5) * pow(10.0, next_unit() * 7.0);
    double y0 = (next_unit() - 0.5) * pow(10.0, next_unit() * 7.0);
    double step = pow(10.0, next_unit() * 4.0 - 2.0) * (next_unit() < 0.5 ? 1.0 : 1.0 / 3.0);
    size_t nx = 1 + (size_t)(next_unit() * 40), ny = 1 + (size_t)(next_unit() * 30);
    float *out = malloc(nx * ny * sizeof *out);
    tf_terrain_sample_grid(t, x0, y0, step, nx, ny, out);
    for (size_t j = 0; j < ny; j++)
        for (size_t i = 0; i < nx; i++) {
            float want = (float)tf_terrain_sample(t, x0 + (double)i * step, y0 + (double)j * step);
            ck_assert_msg(memcmp(&out[j * nx + i], &want, sizeof want) == 0,
                          "spec %d: (%zu, %zu) %a != %a", _i, i, j, out[j * nx + i], want);
        }
    free(out);
    tf_terrain_free(t);
}
END_TEST

/* Chunks cut from one lattice agree wherever they overlap: adjacent N x N
 * chunks with their (N+2)^2 borders share rows and columns exactly. */
START_TEST(windows_join_seamlessly)
{
    tf_terrain *t = random_terrain(1000 + (uint64_t)_i);
    double x0 = (next_unit() - 0.5) * 1e5, y0 = (next_unit() - 0.5) * 1e5;
    double step = 0.1 + next_unit() * 2.7; /* deliberately not a power of two */
    const int64_t N = 16;
    int64_t cx = (int64_t)(next_unit() * 200) - 100, cy = (int64_t)(next_unit() * 200) - 100;
    float a[18 * 18], right[18 * 18], below[18 * 18], whole[34 * 18];
    tf_terrain_sample_window(t, x0, y0, step, cx * N - 1, cy * N - 1, 18, 18, a);
    tf_terrain_sample_window(t, x0, y0, step, (cx + 1) * N - 1, cy * N - 1, 18, 18, right);
    tf_terrain_sample_window(t, x0, y0, step, cx * N - 1, (cy + 1) * N - 1, 18, 18, below);
    tf_terrain_sample_window(t, x0, y0, step, cx * N - 1, cy * N - 1, 34, 18, whole);
    for (int j = 0; j < 18; j++) {
        /* a's columns 16, 17 are right's columns 0, 1 */
        ck_assert(memcmp(&a[j * 18 + 16], &right[j * 18 + 0], 2 * sizeof(float)) == 0);
        /* both are slices of the double-width window */
        ck_assert(memcmp(&a[j * 18], &whole[j * 34], 18 * sizeof(float)) == 0);
        ck_assert(memcmp(&right[j * 18], &whole[j * 34 + 16], 18 * sizeof(float)) == 0);
    }
    /* a's rows 16, 17 are below's rows 0, 1 */
    ck_assert(memcmp(&a[16 * 18], &below[0], 2 * 18 * sizeof(float)) == 0);
    /* window at (0, 0) is the grid */
    float g[5 * 4], w[5 * 4];
    tf_terrain_sample_grid(t, x0, y0, step, 5, 4, g);
    tf_terrain_sample_window(t, x0, y0, step, 0, 0, 5, 4, w);
    ck_assert(memcmp(g, w, sizeof g) == 0);
    tf_terrain_free(t);
}
END_TEST

typedef struct {
    const tf_terrain *terrain;
    double *out;
    int count;
} thread_job;

static void *sample_many(void *arg)
{
    thread_job *job = arg;
    for (int k = 0; k < job->count; k++)
        job->out[k] = tf_terrain_sample(job->terrain, k * 0.731 - 500.0, k * 0.377 + 100.0);
    return NULL;
}

START_TEST(threads_get_single_thread_answers)
{
    tf_terrain *t = random_terrain(77);
    enum { THREADS = 8, COUNT = 20000 };
    double *expected = malloc(COUNT * sizeof *expected);
    thread_job single = {t, expected, COUNT};
    sample_many(&single);
    pthread_t threads[THREADS];
    thread_job jobs[THREADS];
    for (int k = 0; k < THREADS; k++) {
        jobs[k] = (thread_job){t, malloc(COUNT * sizeof(double)), COUNT};
        ck_assert_int_eq(pthread_create(&threads[k], NULL, sample_many, &jobs[k]), 0);
    }
    for (int k = 0; k < THREADS; k++) {
        pthread_join(threads[k], NULL);
        ck_assert(memcmp(jobs[k].out, expected, COUNT * sizeof(double)) == 0);
        free(jobs[k].out);
    }
    free(expected);
    tf_terrain_free(t);
}
END_TEST

/* Layer 0 redistributes with the identity and contributes nothing
 * (ampScale 0), layer 1 is the constant 1 masked by layer 0: so h is the
 * mask weight w(r_0) with r_0 = u_0 = (n_0 + 1) / 2, which the test computes
 * from the documented formula. */
static void check_mask_weights(double lo, double hi, double falloff)
{
    char json[1024];
    snprintf(json, sizeof json,
             "{\"version\":1,\"seed\":3,\"noiseLayers\":["
             "{\"baseNoise\":{\"frequency\":0.05},\"rd\":{\"interpolation\":\"linear\","
             "\"points\":[{\"x\":0,\"y\":0},{\"x\":1,\"y\":1}]},\"ampScale\":0},"
             "{\"baseNoise\":{\"frequency\":0.3},\"rd\":{\"points\":[{\"x\":0,\"y\":1},{\"x\":1,"
             "\"y\":1}]},\"maskLayerIndex\":0,\"maskMinValue\":%.17g,\"maskMaxValue\":%.17g,"
             "\"maskFalloff\":%.17g}],\"minValue\":0,\"maxValue\":1}",
             lo, hi, falloff);
    tf_error err;
    tf_terrain *t = tf_terrain_parse(json, strlen(json), &err);
    ck_assert_msg(t != NULL, "%s", err.message);
    const tf_layer_spec *L0 = &tf_terrain_spec(t)->layers[0];
    int inside = 0, edge = 0, outside = 0;
    for (int k = 0; k < 20000; k++) {
        double x = k * 0.913, y = k * 0.271;
        double n = tf_noise_eval(L0->noise_type, L0->seed, x * 0.05 + L0->offset[0],
                                 y * 0.05 + L0->offset[1], L0->offset[2]);
        double r = (n + 1.0) * 0.5, w;
        double beyond = r < lo ? lo - r : r > hi ? r - hi : 0.0;
        if (r >= lo && r <= hi) {
            w = 1.0;
            inside++;
        } else if (beyond >= falloff) {
            w = 0.0;
            outside++;
        } else {
            double s = 1.0 - beyond * (1.0 / falloff);
            w = s * s * (3.0 - 2.0 * s);
            edge++;
        }
        ck_assert_msg(tf_terrain_sample(t, x, y) == w, "r=%.17g: h=%.17g, w=%.17g", r,
                      tf_terrain_sample(t, x, y), w);
    }
    if (hi > lo)
        ck_assert_int_gt(inside, 100);
    ck_assert_int_gt(outside, 100);
    if (falloff > 0)
        ck_assert_int_gt(edge, 100);
    tf_terrain_free(t);
}

START_TEST(mask_weights_follow_the_formula)
{
    check_mask_weights(0.45, 0.6, 0.05);
    check_mask_weights(0.5, 0.5, 0.1);
    check_mask_weights(0.3, 0.55, 0.0); /* hard edge */
}
END_TEST

/* Layer 0 as above; layer 1 is the constant 1 weighted by a mask curve of
 * r_0 = u_0, so h is exactly MC(r_0), which tf_curve_eval computes on its
 * own. The curve's knots leave part of [0, 1] on both sides (clamping),
 * its weights go negative and above 1, and it is not monotone. */
START_TEST(mask_curve_weights_follow_the_curve)
{
    static const tf_point W[5] = {{0.3, 0.5}, {0.4, -0.25}, {0.5, 1.75}, {0.55, 1.75}, {0.7, 0.0}};
    tf_interp kind = (tf_interp)_i;
    char json[1024];
    snprintf(json, sizeof json,
             "{\"version\":1,\"seed\":8,\"noiseLayers\":["
             "{\"baseNoise\":{\"frequency\":0.05},\"rd\":{\"interpolation\":\"linear\","
             "\"points\":[{\"x\":0,\"y\":0},{\"x\":1,\"y\":1}]},\"ampScale\":0},"
             "{\"baseNoise\":{\"frequency\":0.3},\"rd\":{\"points\":[{\"x\":0,\"y\":1},{\"x\":1,"
             "\"y\":1}]},\"maskLayerIndex\":0,\"maskCurve\":{\"interpolation\":\"%s\","
             "\"points\":[{\"x\":0.3,\"y\":0.5},{\"x\":0.4,\"y\":-0.25},{\"x\":0.5,\"y\":1.75},"
             "{\"x\":0.55,\"y\":1.75},{\"x\":0.7,\"y\":0}]}}]}",
             tf_interp_name(kind));
    tf_error err;
    tf_terrain *t = tf_terrain_parse(json, strlen(json), &err);
    ck_assert_msg(t != NULL, "%s", err.message);
    /* derived range: layer 1 is [1, 1] * [-0.25, 1.75] */
    ck_assert(tf_terrain_min_value(t) == -0.25 && tf_terrain_max_value(t) == 1.75);
    tf_curve *curve = tf_curve_new(W, 5, kind, &err);
    const tf_layer_spec *L0 = &tf_terrain_spec(t)->layers[0];
    int below = 0, inside = 0, above = 0;
    for (int k = 0; k < 20000; k++) {
        double x = k * 0.913, y = k * 0.271;
        double n = tf_noise_eval(L0->noise_type, L0->seed, x * 0.05 + L0->offset[0],
                                 y * 0.05 + L0->offset[1], L0->offset[2]);
        double r = (n + 1.0) * 0.5;
        double w = tf_curve_eval(curve, r);
        double h = tf_terrain_sample(t, x, y);
        ck_assert_msg(memcmp(&h, &w, sizeof h) == 0, "r=%.17g: h=%a, w=%a", r, h, w);
        below += r < W[0].x;
        above += r > W[4].x;
        inside += r > W[0].x && r < W[4].x;
    }
    ck_assert_int_gt(below, 100);
    ck_assert_int_gt(above, 100);
    ck_assert_int_gt(inside, 1000);
    tf_curve_free(curve);
    tf_terrain_free(t);
}
END_TEST

/* h with an output curve is OC(h without it), bit for bit, for random
 * specs whose curves the sums leave on both sides. */
START_TEST(output_curve_maps_the_sum)
{
    /* A spec whose every layer is clamped flat (an rd left of the noise's
     * values) has constant sums: take the next seed then. */
    tf_spec *spec = NULL;
    tf_terrain *plain = NULL;
    double lo = 0.0, hi = 0.0;
    for (uint64_t attempt = 0; !(hi > lo); attempt++) {
        ck_assert_uint_lt(attempt, 20);
        lo = INFINITY;
        hi = -INFINITY;
        tf_terrain_free(plain);
        tf_spec_free(spec);
        plain = random_terrain(3000 + 100 * (uint64_t)_i + attempt);
        spec = tf_spec_copy(tf_terrain_spec(plain), NULL);
        tf_spec_set_output_curve(spec, NULL, 0, TF_INTERP_LINEAR, NULL);
        tf_terrain_free(plain);
        plain = tf_terrain_compile(spec, NULL);
        /* knots around the middle of the sums, so both clamps are reached */
        for (int k = 0; k < 2000; k++) {
            double h = tf_terrain_sample(plain, k * 7.31 - 5e3, k * 3.7 + 1e3);
            lo = h < lo ? h : lo;
            hi = h > hi ? h : hi;
        }
    }
    size_t n = 2 + (size_t)(next_unit() * 30);
    tf_point *p = random_curve(n, lo + (hi - lo) * 0.2, (hi - lo) * 0.6 / (double)n / 1.55, 0.0,
                               1.0);
    tf_interp kind = (tf_interp)(_i % 3);
    tf_error err;
    ck_assert_int_eq(tf_spec_set_output_curve(spec, p, n, kind, &err), 0);
    tf_terrain *mapped = tf_terrain_compile(spec, &err);
    ck_assert_msg(mapped != NULL, "%s", err.message);
    tf_curve *curve = tf_curve_new(p, n, kind, &err);
    int clamped_low = 0, clamped_high = 0;
    for (int k = 0; k < 2000; k++) {
        double x = k * 7.31 - 5e3, y = k * 3.7 + 1e3;
        double sum = tf_terrain_sample(plain, x, y);
        double want = tf_curve_eval(curve, sum), h = tf_terrain_sample(mapped, x, y);
        ck_assert_msg(memcmp(&h, &want, sizeof h) == 0, "sum=%a: h=%a, want %a", sum, h, want);
        clamped_low += sum <= p[0].x;
        clamped_high += sum >= p[n - 1].x;
    }
    ck_assert_int_gt(clamped_low, 0);
    ck_assert_int_gt(clamped_high, 0);
    free(p);
    tf_curve_free(curve);
    tf_terrain_free(plain);
    tf_terrain_free(mapped);
    tf_spec_free(spec);
}
END_TEST

/* The derived range bounds every height (docs/spec.md, "Other defaults"). */
START_TEST(heights_stay_in_the_derived_range)
{
    tf_terrain *t = random_terrain(5000 + (uint64_t)_i);
    tf_spec *spec = tf_spec_copy(tf_terrain_spec(t), NULL);
    tf_terrain_free(t);
    char *json = tf_spec_to_json(spec, NULL);
    /* drop minValue/maxValue so the reader derives them */
    char *p = strstr(json, "  \"minValue\"");
    char *q = strstr(json, "  \"noiseLayers\"");
    memmove(p, q, strlen(q) + 1);
    tf_error err;
    tf_spec *derived = tf_spec_parse(json, strlen(json), "derived", &err);
    ck_assert_msg(derived != NULL, "%s", err.message);
    t = tf_terrain_compile(derived, NULL);
    for (int k = 0; k < 20000; k++) {
        double h = tf_terrain_sample(t, k * 3.17 - 3e4, k * 1.91 + 2e4);
        double v = tf_terrain_normalize(t, h);
        ck_assert_msg(v >= -1e-12 && v <= 1.0 + 1e-12, "h=%g outside [%g, %g]", h,
                      tf_terrain_min_value(t), tf_terrain_max_value(t));
    }
    free(json);
    tf_spec_free(spec);
    tf_spec_free(derived);
    tf_terrain_free(t);
}
END_TEST

START_TEST(accessors_and_non_finite_points)
{
    tf_terrain *t = random_terrain(9);
    ck_assert_uint_ge(tf_terrain_layer_count(t), 1);
    ck_assert(tf_terrain_min_value(t) == -5.0 && tf_terrain_max_value(t) == 5.0);
    ck_assert(tf_terrain_normalize(t, 0.0) == 0.5);
    ck_assert(tf_terrain_normalize(t, 5.0) == 1.0);
    ck_assert(isnan(tf_terrain_sample(t, NAN, 1.0)));
    ck_assert(isnan(tf_terrain_sample(t, 1.0, INFINITY)));
    /* grid with zero size writes nothing */
    float sentinel = 123.0f;
    tf_terrain_sample_grid(t, 0, 0, 1, 0, 5, &sentinel);
    ck_assert(sentinel == 123.0f);
    tf_terrain_free(t);
}
END_TEST

/* Golden vectors: tests/data/terrain/NAME.vectors holds "x y h" (hex
 * doubles) for NAME.json, produced by the independent Python port of
 * docs/spec.md. The C runtime must give the same doubles (NaN as NaN). */
/* tests/data/terrain/'s specs, listed when the suite is built. */
static char **golden_specs;
static size_t golden_count;

START_TEST(golden_specs_are_present)
{
    ck_assert_msg(golden_count >= 8, "tests/data/terrain: %zu specs, expected at least 8",
                  golden_count);
}
END_TEST

START_TEST(golden_terrain_vectors)
{
    const char *name = golden_specs[_i];
    char dir[4096]; /* tu_path's buffers are reused: keep our own copy */
    snprintf(dir, sizeof dir, "%s/tests/data/terrain", tu_srcdir());
    char base[256];
    snprintf(base, sizeof base, "%.*s", (int)(strlen(name) - 5), name);
    tf_error err;
    tf_terrain *t = tf_terrain_load(tu_path("%s/%s.json", dir, base), &err);
    ck_assert_msg(t != NULL, "%s: %s", name, err.message);
    FILE *f = fopen(tu_path("%s/%s.vectors", dir, base), "r");
    ck_assert_msg(f != NULL, "%s: no vectors", base);
    char line[512];
    int count = 0;
    while (fgets(line, sizeof line, f)) {
        if (line[0] == '#' || line[0] == '\n')
            continue;
        char *p = line, *end;
        double v[3];
        for (int k = 0; k < 3; k++) {
            v[k] = strtod(p, &end);
            ck_assert_msg(end != p, "%s: bad line %s", base, line);
            p = end;
        }
        double h = tf_terrain_sample(t, v[0], v[1]);
        ck_assert_msg(h == v[2] || (isnan(h) && isnan(v[2])), "%s: h(%a, %a) = %a, want %a", base,
                      v[0], v[1], h, v[2]);
        count++;
    }
    fclose(f);
    ck_assert_msg(count >= 100, "%s: %d vectors, expected at least 100", base, count);
    tf_terrain_free(t);
}
END_TEST

/* Gradients (docs/spec.md, "Gradients"): the height equals the sample's
 * bits, and (dh/dx, dh/dy) agrees with central differences of
 * tf_terrain_sample on a spec whose every part is C1 (monotone cubic and
 * cosine curves, soft range masks, a mask curve, an output curve, smooth
 * noises and fractals). */
static const char *const SMOOTH_SPEC =
    "{\"format\":\"terrafit-terrain\",\"version\":1,\"seed\":11,"
    "\"outputCurve\":{\"points\":[{\"x\":-1.5,\"y\":-1},{\"x\":0,\"y\":0.2},"
    "{\"x\":1.5,\"y\":1}]},\"noiseLayers\":["
    "{\"baseNoise\":{\"frequency\":0.013},\"rd\":{\"points\":[{\"x\":0.1,\"y\":0},"
    "{\"x\":0.5,\"y\":0.4},{\"x\":0.9,\"y\":1}]},\"preAmpShift\":-0.5},"
    "{\"baseNoise\":{\"type\":\"perlin\",\"frequency\":0.031},\"fractal\":{\"kind\":\"fbm\","
    "\"octaves\":3},\"rd\":{\"interpolation\":\"cosine\",\"points\":[{\"x\":0.2,\"y\":0},"
    "{\"x\":0.8,\"y\":1}]},\"preAmpShift\":-0.5,\"ampScale\":0.4,\"maskLayerIndex\":0,"
    "\"maskMinValue\":0.5,\"maskMaxValue\":0.7,\"maskFalloff\":0.2},"
    "{\"baseNoise\":{\"type\":\"value\",\"frequency\":0.05},\"rd\":{\"points\":"
    "[{\"x\":0,\"y\":0},{\"x\":1,\"y\":1}]},\"preAmpShift\":-0.5,\"ampScale\":0.2,"
    "\"maskLayerIndex\":1,\"maskCurve\":{\"points\":[{\"x\":0,\"y\":0.1},{\"x\":0.5,"
    "\"y\":0.3},{\"x\":1,\"y\":1}]}},"
    "{\"baseNoise\":{\"type\":\"exponential-perlin\",\"frequency\":0.02},\"rd\":{\"points\":"
    "[{\"x\":0.3,\"y\":0},{\"x\":0.7,\"y\":1}]},\"preAmpShift\":-0.5,\"ampScale\":0.3}]}";

START_TEST(gradient_follows_the_chain_rule)
{
    tf_error err;
    tf_terrain *t = tf_terrain_parse(SMOOTH_SPEC, strlen(SMOOTH_SPEC), &err);
    ck_assert_msg(t != NULL, "%s", err.message);
    uint64_t state = 99;
    int compared = 0;
    for (int k = 0; k < 400; k++) {
        state = state * 6364136223846793005ull + 1442695040888963407ull;
        double x = (double)(state >> 40) * 0x1p-24 * 4000.0 - 2000.0;
        state = state * 6364136223846793005ull + 1442695040888963407ull;
        double y = (double)(state >> 40) * 0x1p-24 * 4000.0 - 2000.0;
        double gx, gy;
        double h = tf_terrain_sample_gradient(t, x, y, &gx, &gy);
        ck_assert_msg(h == tf_terrain_sample(t, x, y), "h(%a, %a) differs from the sample", x, y);
        const double e = 1e-4;
        double fx = (tf_terrain_sample(t, x + e, y) - tf_terrain_sample(t, x - e, y)) / (2 * e);
        double fy = (tf_terrain_sample(t, x, y + e) - tf_terrain_sample(t, x, y - e)) / (2 * e);
        double scale = fabs(fx) + fabs(fy) + 1e-3;
        ck_assert_msg(fabs(gx - fx) <= 2e-3 * scale && fabs(gy - fy) <= 2e-3 * scale,
                      "at (%g, %g): gradient (%g, %g), differences (%g, %g)", x, y, gx, gy, fx,
                      fy);
        compared++;
    }
    ck_assert_int_eq(compared, 400);
    /* NULL outputs are allowed; non-finite points give non-finite heights. */
    ck_assert(isnan(tf_terrain_sample_gradient(t, NAN, 0.0, NULL, NULL)));
    tf_terrain_free(t);
}
END_TEST

static Suite *terrain_suite(void)
{
    /* One loop-test iteration per golden spec: a failure names its spec and
     * the other specs still run. */
    golden_specs = tu_list_cases(tu_path("%s/tests/data/terrain", tu_srcdir()), ".json", 0,
                                 &golden_count);
    Suite *s = suite_create("terrain");
    TCase *props = tcase_create("properties");
    tcase_set_timeout(props, 120);
    tcase_add_loop_test(props, grid_equals_single_samples, 0, 200);
    tcase_add_loop_test(props, windows_join_seamlessly, 0, 50);
    tcase_add_loop_test(props, heights_stay_in_the_derived_range, 0, 20);
    tcase_add_test(props, threads_get_single_thread_answers);
    tcase_add_test(props, mask_weights_follow_the_formula);
    tcase_add_loop_test(props, mask_curve_weights_follow_the_curve, 0, TF_INTERP_KIND_COUNT);
    tcase_add_loop_test(props, output_curve_maps_the_sum, 0, 12);
    tcase_add_test(props, accessors_and_non_finite_points);
    tcase_add_test(props, golden_specs_are_present);
    tcase_add_loop_test(props, golden_terrain_vectors, 0, (int)golden_count);
    tcase_add_test(props, gradient_follows_the_chain_rule);
    suite_add_tcase(s, props);
    return s;
}

int main(void)
{
    int status = tu_run_suite(terrain_suite());
    tu_free_list(golden_specs, golden_count);
    return status;
}
