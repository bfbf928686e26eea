/*
 * Erosion (lib/erode/erode.c, docs/erosion.md): mass is conserved, thermal
 * erosion lowers the steepest slope, inverse thermal erosion raises the
 * share of flat cells, zero iterations is the identity, runs repeat bit for
 * bit, and bad parameters and inputs are refused.
 */
#include <check.h>
#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "terrafit/terrafit.h"
#include "testutil.h"

/* A rendered tile of the sample spec: the input erosion is made for. */
#define SIDE 96

/* Flat, as docs/erosion.md defines it: no slope to any of the 8
 * neighbours larger than a quarter of the talus. */
#define FLAT_FRACTION_OF_TALUS 0.25

static float *render_sample(size_t nx, size_t ny)
{
    tf_error err;
    tf_terrain *t =
        tf_terrain_load(tu_path("%s/samples/thesis-three-layers/terrain.json", tu_srcdir()), &err);
    ck_assert_msg(t != NULL, "%s", err.message);
    float *h = malloc(nx * ny * sizeof *h);
    ck_assert_ptr_nonnull(h);
    ck_assert_int_eq(tf_render_grid(t, 0.0, 0.0, 2.0, nx, ny, 1, h, NULL, NULL, &err), 0);
    /* To [0, 1] value units, as a heightmap read back from a file. */
    double lo = tf_terrain_min_value(t), hi = tf_terrain_max_value(t);
    for (size_t k = 0; k < nx * ny; k++)
        h[k] = (float)((h[k] - lo) / (hi - lo));
    tf_terrain_free(t);
    return h;
}

/* Computed here, independently of tf_erosion_measure. */
static double sum_of(const float *h, size_t n)
{
    double s = 0.0;
    for (size_t k = 0; k < n; k++)
        s += h[k];
    return s;
}

static double steepest_slope_at(const float *h, size_t nx, size_t ny, size_t i, size_t j)
{
    double steepest = 0.0;
    for (int dy = -1; dy <= 1; dy++)
        for (int dx = -1; dx <= 1; dx++) {
            if ((dx == 0 && dy == 0) || (i == 0 && dx < 0) || (j == 0 && dy < 0) ||
                (i + 1 == nx && dx > 0) || (j + 1 == ny && dy > 0))
                continue;
            double d = fabs((double)h[j * nx + i] - h[(j + dy) * nx + (i + dx)]);
            double slope = d / ((dx != 0 && dy != 0) ? sqrt(2.0) : 1.0);
            if (slope > steepest)
                steepest = slope;
        }
    return steepest;
}

static double max_slope(const float *h, size_t nx, size_t ny)
{
    double m = 0.0;
    for (size_t j = 0; j < ny; j++)
        for (size_t i = 0; i < nx; i++) {
            double s = steepest_slope_at(h, nx, ny, i, j);
            if (s > m)
                m = s;
        }
    return m;
}

static double flat_share(const float *h, size_t nx, size_t ny, double flat_slope)
{
    size_t flat = 0;
    for (size_t j = 0; j < ny; j++)
        for (size_t i = 0; i < nx; i++)
            flat += steepest_slope_at(h, nx, ny, i, j) <= flat_slope;
    return (double)flat / (double)(nx * ny);
}

static tf_erosion_params params_for(tf_erosion_method method, unsigned long iterations)
{
    tf_erosion_params p;
    tf_erosion_params_default(&p, method, SIDE, SIDE);
    p.iterations = iterations;
    return p;
}

/* ------------------------------------------------------------ parameters */

START_TEST(test_method_names)
{
    tf_erosion_method m;
    for (int k = 0; k < TF_EROSION_METHOD_COUNT; k++) {
        const char *name = tf_erosion_method_name((tf_erosion_method)k);
        ck_assert_ptr_nonnull(name);
        ck_assert_int_eq(tf_erosion_method_from_name(name, &m), 0);
        ck_assert_int_eq(m, k);
    }
    ck_assert_str_eq(tf_erosion_method_name(TF_EROSION_INVERSE_THERMAL), "inverse-thermal");
    ck_assert_ptr_null(tf_erosion_method_name(TF_EROSION_METHOD_COUNT));
    ck_assert_int_eq(tf_erosion_method_from_name("Thermal", &m), -1);
    ck_assert_int_eq(tf_erosion_method_from_name("", &m), -1);
    ck_assert_int_eq(tf_erosion_method_from_name(NULL, &m), -1);
}
END_TEST

START_TEST(test_defaults)
{
    tf_erosion_params p;
    tf_erosion_params_default(&p, TF_EROSION_HYDRAULIC, 512, 256);
    ck_assert_int_eq(p.method, TF_EROSION_HYDRAULIC);
    ck_assert_uint_eq(p.iterations, 0);
    ck_assert_double_eq(p.talus, 4.0 / 512.0); /* Olsen: T = 4 / N */
    ck_assert_double_eq(p.rain, 0.01);
    ck_assert_double_eq(p.solubility, 0.01);
    ck_assert_double_eq(p.evaporation, 0.5);
    ck_assert_double_eq(p.capacity, 0.01);
    tf_error err;
    ck_assert_int_eq(tf_erosion_params_check(&p, &err), 0);
}
END_TEST

/* Each bad field is refused with a message naming it. */
START_TEST(test_bad_params)
{
    static const struct {
        int field; /* 0 talus, 1 rain, 2 solubility, 3 evaporation, 4 capacity */
        double value;
        const char *name;
    } cases[] = {
        {0, -0.1, "talus"},       {0, NAN, "talus"},          {0, INFINITY, "talus"},
        {1, -1.0, "rain"},        {2, -1e-9, "solubility"},   {3, 1.5, "evaporation"},
        {3, -0.5, "evaporation"}, {4, -HUGE_VAL, "capacity"},
    };
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        tf_erosion_params p = params_for(TF_EROSION_HYDRAULIC, 1);
        double *fields[] = {&p.talus, &p.rain, &p.solubility, &p.evaporation, &p.capacity};
        *fields[cases[c].field] = cases[c].value;
        tf_error err;
        ck_assert_int_eq(tf_erosion_params_check(&p, &err), -1);
        ck_assert_int_eq(err.code, TF_ERR_ARGUMENT);
        ck_assert_msg(strstr(err.message, cases[c].name) != NULL, "case %zu: '%s'", c,
                      err.message);
        float h[4] = {0.0f, 0.5f, 1.0f, 0.25f};
        ck_assert_int_eq(tf_erode(h, 2, 2, &p, NULL, NULL, &err), -1);
        ck_assert(h[0] == 0.0f && h[1] == 0.5f && h[2] == 1.0f && h[3] == 0.25f);
    }
    tf_erosion_params p = params_for(TF_EROSION_THERMAL, TF_EROSION_MAX_ITERATIONS + 1);
    tf_error err;
    ck_assert_int_eq(tf_erosion_params_check(&p, &err), -1);
    ck_assert_int_eq(err.code, TF_ERR_LIMIT);
    p = params_for(TF_EROSION_THERMAL, 1);
    p.method = (tf_erosion_method)7;
    ck_assert_int_eq(tf_erosion_params_check(&p, &err), -1);
    ck_assert_ptr_nonnull(strstr(err.message, "method"));
    ck_assert_int_eq(tf_erosion_params_check(NULL, &err), -1);
}
END_TEST

START_TEST(test_bad_heights)
{
    tf_erosion_params p = params_for(TF_EROSION_THERMAL, 3);
    tf_error err;
    float h[6] = {0.0f, 0.1f, 0.2f, 0.3f, NAN, 0.5f};
    ck_assert_int_eq(tf_erode(h, 3, 2, &p, NULL, NULL, &err), -1);
    ck_assert_msg(strstr(err.message, "column 1, row 1") != NULL, "%s", err.message);
    h[4] = INFINITY;
    ck_assert_int_eq(tf_erode(h, 3, 2, &p, NULL, NULL, &err), -1);
    ck_assert_int_eq(tf_erode(h, 0, 2, &p, NULL, NULL, &err), -1);
    ck_assert_int_eq(tf_erode(NULL, 3, 2, &p, NULL, NULL, &err), -1);
    ck_assert_ptr_null(tf_erosion_new(h, TF_MAX_IMAGE_SIDE + 1, 1, &p, &err));
    ck_assert_int_eq(err.code, TF_ERR_LIMIT);
}
END_TEST

/* Every failure is -1 (NULL from tf_erosion_new) with the error code the
 * header documents for it: a caller tells a bad argument from a limit by
 * err.code, never by the return value. */
START_TEST(test_error_codes_follow_the_header)
{
    tf_error err;
    tf_erosion_params p = params_for(TF_EROSION_THERMAL, 1);
    float h[4] = {0.0f, 0.5f, 1.0f, 0.25f};

    /* tf_erosion_params_check: TF_ERR_ARGUMENT, or TF_ERR_LIMIT for the
     * iteration count. */
    err.code = TF_OK;
    ck_assert_int_eq(tf_erosion_params_check(NULL, &err), -1);
    ck_assert_int_eq(err.code, TF_ERR_ARGUMENT);
    p.method = TF_EROSION_METHOD_COUNT;
    err.code = TF_OK;
    ck_assert_int_eq(tf_erosion_params_check(&p, &err), -1);
    ck_assert_int_eq(err.code, TF_ERR_ARGUMENT);
    p = params_for(TF_EROSION_THERMAL, 1);
    p.talus = -1.0;
    err.code = TF_OK;
    ck_assert_int_eq(tf_erosion_params_check(&p, &err), -1);
    ck_assert_int_eq(err.code, TF_ERR_ARGUMENT);
    p = params_for(TF_EROSION_THERMAL, TF_EROSION_MAX_ITERATIONS + 1);
    err.code = TF_OK;
    ck_assert_int_eq(tf_erosion_params_check(&p, &err), -1);
    ck_assert_int_eq(err.code, TF_ERR_LIMIT);

    /* tf_erosion_new and tf_erode: the same codes, plus the grid's. */
    p = params_for(TF_EROSION_THERMAL, 1);
    err.code = TF_OK;
    ck_assert_ptr_null(tf_erosion_new(h, 2, 2, NULL, &err));
    ck_assert_int_eq(err.code, TF_ERR_ARGUMENT);
    err.code = TF_OK;
    ck_assert_int_eq(tf_erode(h, 2, 2, NULL, NULL, NULL, &err), -1);
    ck_assert_int_eq(err.code, TF_ERR_ARGUMENT);
    err.code = TF_OK;
    ck_assert_int_eq(tf_erode(NULL, 2, 2, &p, NULL, NULL, &err), -1);
    ck_assert_int_eq(err.code, TF_ERR_ARGUMENT);
    err.code = TF_OK;
    ck_assert_int_eq(tf_erode(h, 0, 2, &p, NULL, NULL, &err), -1);
    ck_assert_int_eq(err.code, TF_ERR_ARGUMENT);
    h[3] = NAN;
    err.code = TF_OK;
    ck_assert_int_eq(tf_erode(h, 2, 2, &p, NULL, NULL, &err), -1);
    ck_assert_int_eq(err.code, TF_ERR_ARGUMENT);
    h[3] = 0.25f;
    err.code = TF_OK;
    ck_assert_int_eq(tf_erode(h, TF_MAX_IMAGE_SIDE + 1, 1, &p, NULL, NULL, &err), -1);
    ck_assert_int_eq(err.code, TF_ERR_LIMIT);
    p.iterations = TF_EROSION_MAX_ITERATIONS + 1;
    err.code = TF_OK;
    ck_assert_int_eq(tf_erode(h, 2, 2, &p, NULL, NULL, &err), -1);
    ck_assert_int_eq(err.code, TF_ERR_LIMIT);
    ck_assert(h[0] == 0.0f && h[1] == 0.5f && h[2] == 1.0f && h[3] == 0.25f);
}
END_TEST

/* ------------------------------------------------------------- behaviour */

/* Zero iterations returns the input bit for bit, for every method. */
START_TEST(test_zero_iterations_identity)
{
    float *h = render_sample(SIDE, SIDE);
    float *copy = malloc(SIDE * SIDE * sizeof *copy);
    ck_assert_ptr_nonnull(copy);
    memcpy(copy, h, SIDE * SIDE * sizeof *h);
    tf_erosion_params p = params_for((tf_erosion_method)_i, 0);
    tf_error err;
    ck_assert_int_eq(tf_erode(h, SIDE, SIDE, &p, NULL, NULL, &err), 0);
    ck_assert_mem_eq(h, copy, SIDE * SIDE * sizeof *h);
    free(copy);
    free(h);
}
END_TEST

/* The same input and parameters give the same bits; and erosion changes
 * the input at all (so the other tests are not vacuous). */
START_TEST(test_deterministic)
{
    float *a = render_sample(SIDE, SIDE);
    float *b = render_sample(SIDE, SIDE);
    float *orig = render_sample(SIDE, SIDE);
    tf_erosion_params p = params_for((tf_erosion_method)_i, 20);
    tf_error err;
    ck_assert_int_eq(tf_erode(a, SIDE, SIDE, &p, NULL, NULL, &err), 0);
    ck_assert_int_eq(tf_erode(b, SIDE, SIDE, &p, NULL, NULL, &err), 0);
    ck_assert_mem_eq(a, b, SIDE * SIDE * sizeof *a);
    ck_assert(memcmp(a, orig, SIDE * SIDE * sizeof *a) != 0);
    free(a);
    free(b);
    free(orig);
}
END_TEST

/* Thermal and inverse thermal move material between cells: the sum of
 * heights is conserved to rounding (double state, float result). */
START_TEST(test_thermal_mass_conserved)
{
    float *h = render_sample(SIDE, SIDE);
    double before = sum_of(h, SIDE * SIDE);
    tf_erosion_params p = params_for((tf_erosion_method)_i, 200);
    tf_error err;
    ck_assert_int_eq(tf_erode(h, SIDE, SIDE, &p, NULL, NULL, &err), 0);
    double after = sum_of(h, SIDE * SIDE);
    /* float rounding of each result: at most half an ulp of 1 per cell */
    ck_assert_double_eq_tol(after, before, SIDE * SIDE * 6e-8);
    free(h);
}
END_TEST

/* Thermal erosion lowers the steepest slope, and with enough iterations
 * brings it near the talus; heights stay within the input's range. */
START_TEST(test_thermal_lowers_max_slope)
{
    float *h = render_sample(SIDE, SIDE);
    double before = max_slope(h, SIDE, SIDE);
    float lo = h[0], hi = h[0];
    for (size_t k = 0; k < SIDE * SIDE; k++) {
        lo = fminf(lo, h[k]);
        hi = fmaxf(hi, h[k]);
    }
    tf_erosion_params p = params_for(TF_EROSION_THERMAL, 1);
    p.talus = before / 4.0;
    ck_assert(before > p.talus);
    tf_error err;
    tf_erosion *e = tf_erosion_new(h, SIDE, SIDE, &p, &err);
    ck_assert_ptr_nonnull(e);
    double previous = before;
    /* Never steeper after an iteration than before it. */
    for (int it = 0; it < 100; it++) {
        tf_erosion_run(e, 1, NULL, NULL);
        tf_erosion_result(e, h);
        double now = max_slope(h, SIDE, SIDE);
        ck_assert_msg(now <= previous + 1e-7, "iteration %d: %g > %g", it + 1, now, previous);
        previous = now;
    }
    tf_erosion_run(e, 400, NULL, NULL);
    tf_erosion_result(e, h);
    double after = max_slope(h, SIDE, SIDE);
    ck_assert_msg(after < before * 0.5, "max slope %g -> %g", before, after);
    ck_assert_msg(after < p.talus * 1.5, "max slope %g, talus %g", after, p.talus);
    for (size_t k = 0; k < SIDE * SIDE; k++)
        ck_assert(h[k] >= lo - 1e-6f && h[k] <= hi + 1e-6f);
    tf_erosion_free(e);
    free(h);
}
END_TEST

/* Where no slope exceeds the talus, thermal erosion moves nothing; a pair
 * of cells moves 1/9 of its excess per iteration (docs/erosion.md). */
START_TEST(test_thermal_exact)
{
    float ramp[4 * 3];
    for (int j = 0; j < 3; j++)
        for (int i = 0; i < 4; i++)
            ramp[j * 4 + i] = 0.125f * (float)i; /* slope 0.125, diagonal 0.088 */
    float copy[12];
    memcpy(copy, ramp, sizeof ramp);
    tf_erosion_params p = params_for(TF_EROSION_THERMAL, 10);
    p.talus = 0.125;
    tf_error err;
    ck_assert_int_eq(tf_erode(ramp, 4, 3, &p, NULL, NULL, &err), 0);
    ck_assert_mem_eq(ramp, copy, sizeof ramp);

    float pair[2] = {1.0f, 0.0f};
    p.talus = 0.1;
    p.iterations = 1;
    ck_assert_int_eq(tf_erode(pair, 2, 1, &p, NULL, NULL, &err), 0);
    ck_assert_float_eq_tol(pair[0], 1.0f - 0.9f / 9.0f, 1e-7f);
    ck_assert_float_eq_tol(pair[1], 0.9f / 9.0f, 1e-7f);

    /* A pit with eight higher neighbours fills level, not into a spike. */
    float pit[9] = {1, 1, 1, 1, 0, 1, 1, 1, 1};
    p.talus = 0.0;
    ck_assert_int_eq(tf_erode(pit, 3, 3, &p, NULL, NULL, &err), 0);
    ck_assert_float_eq_tol(pit[4], 8.0f / 9.0f, 1e-6f);
    ck_assert_float_eq_tol(pit[0], 8.0f / 9.0f, 1e-6f);
}
END_TEST

/* Inverse thermal erosion raises the share of flat cells (docs: slope to
 * every neighbour at most T/4) and leaves slopes steeper than T alone. */
START_TEST(test_inverse_thermal_flattens)
{
    float *h = render_sample(SIDE, SIDE);
    tf_erosion_params p = params_for(TF_EROSION_INVERSE_THERMAL, 50);
    double flat = p.talus * FLAT_FRACTION_OF_TALUS;
    double before = flat_share(h, SIDE, SIDE, flat);
    tf_error err;
    ck_assert_int_eq(tf_erode(h, SIDE, SIDE, &p, NULL, NULL, &err), 0);
    double after = flat_share(h, SIDE, SIDE, flat);
    ck_assert_msg(after > before + 0.1, "flat share %g -> %g", before, after);
    tf_erosion_measures m;
    tf_erosion_measure(h, SIDE, SIDE, flat, &m);
    ck_assert_double_eq_tol(m.flat_share, after, 1e-12);
    free(h);

    /* A cliff of 0.5 between two level halves, talus 0.1: nothing moves. */
    float cliff[6 * 4];
    for (int k = 0; k < 24; k++)
        cliff[k] = (k % 6) < 3 ? 0.75f : 0.25f;
    float copy[24];
    memcpy(copy, cliff, sizeof cliff);
    p.talus = 0.1;
    ck_assert_int_eq(tf_erode(cliff, 6, 4, &p, NULL, NULL, &err), 0);
    ck_assert_mem_eq(cliff, copy, sizeof cliff);
}
END_TEST

/* Hydraulic erosion: terrain + dissolved sediment is conserved after every
 * iteration, the water is rain less evaporation, and the result (sediment
 * deposited) keeps the sum of heights. */
START_TEST(test_hydraulic_mass_conserved)
{
    float *h = render_sample(SIDE, SIDE);
    double before = sum_of(h, SIDE * SIDE);
    tf_erosion_params p = params_for(TF_EROSION_HYDRAULIC, 0);
    p.evaporation = 0.25;
    tf_error err;
    tf_erosion *e = tf_erosion_new(h, SIDE, SIDE, &p, &err);
    ck_assert_ptr_nonnull(e);
    double water_expected = 0.0;
    bool dissolved_any = false;
    for (int it = 0; it < 60; it++) {
        tf_erosion_run(e, 1, NULL, NULL);
        const double *t = tf_erosion_terrain(e), *s = tf_erosion_sediment(e),
                     *w = tf_erosion_water(e);
        double mass = 0.0, water = 0.0, sediment = 0.0;
        for (size_t k = 0; k < SIDE * SIDE; k++) {
            mass += t[k] + s[k];
            water += w[k];
            sediment += s[k];
            ck_assert(w[k] >= 0.0 && s[k] >= 0.0);
        }
        water_expected = (water_expected + p.rain * SIDE * SIDE) * (1.0 - p.evaporation);
        ck_assert_double_eq_tol(mass, before, 1e-9 * before);
        ck_assert_double_eq_tol(water, water_expected, 1e-9 * water_expected);
        dissolved_any = dissolved_any || sediment > 0.0;
    }
    ck_assert(dissolved_any);
    tf_erosion_result(e, h);
    ck_assert_double_eq_tol(sum_of(h, SIDE * SIDE), before, SIDE * SIDE * 6e-8);
    tf_erosion_free(e);
    free(h);

    /* Thermal state has no water or sediment. */
    float flat[4] = {0.5f, 0.5f, 0.5f, 0.5f};
    p.method = TF_EROSION_THERMAL;
    e = tf_erosion_new(flat, 2, 2, &p, &err);
    ck_assert_ptr_nonnull(e);
    ck_assert_ptr_null(tf_erosion_water(e));
    ck_assert_ptr_null(tf_erosion_sediment(e));
    tf_erosion_free(e);
}
END_TEST

/* On level ground water does not flow: every cell dissolves and deposits
 * alike, so the ground stays level and keeps its height. */
START_TEST(test_hydraulic_level_ground)
{
    float h[5 * 4];
    for (int k = 0; k < 20; k++)
        h[k] = 0.5f;
    tf_erosion_params p = params_for(TF_EROSION_HYDRAULIC, 30);
    tf_error err;
    ck_assert_int_eq(tf_erode(h, 5, 4, &p, NULL, NULL, &err), 0);
    for (int k = 0; k < 20; k++)
        ck_assert_float_eq_tol(h[k], 0.5f, 1e-7f);
}
END_TEST

/* Water runs downhill: a valley floor gains height (deposits), and the
 * slopes above it lose height. */
START_TEST(test_hydraulic_moves_downhill)
{
    enum { W = 9, H = 5 };
    float h[W * H];
    for (int j = 0; j < H; j++)
        for (int i = 0; i < W; i++)
            h[j * W + i] = 0.1f * (float)abs(i - W / 2); /* a V valley along column 4 */
    float orig[W * H];
    memcpy(orig, h, sizeof h);
    tf_erosion_params p = params_for(TF_EROSION_HYDRAULIC, 50);
    p.evaporation = 0.1;
    tf_error err;
    ck_assert_int_eq(tf_erode(h, W, H, &p, NULL, NULL, &err), 0);
    ck_assert_msg(h[2 * W + W / 2] > orig[2 * W + W / 2], "valley floor %g -> %g",
                  orig[2 * W + W / 2], h[2 * W + W / 2]);
    ck_assert(h[2 * W + 2] < orig[2 * W + 2]);
}
END_TEST

START_TEST(test_measure)
{
    float h[3 * 2] = {0.0f, 0.0f, 0.5f, 0.0f, 0.0f, 0.0f};
    tf_erosion_measures m;
    tf_erosion_measure(h, 3, 2, 0.01, &m);
    ck_assert_double_eq_tol(m.sum, 0.5, 1e-12);
    ck_assert_double_eq_tol(m.max_slope, 0.5, 1e-12);
    /* cells (1,0), (2,0), (1,1), (2,1) touch the 0.5; (0,0) and (0,1) are flat */
    ck_assert_double_eq_tol(m.flat_share, 2.0 / 6.0, 1e-12);
}
END_TEST

static Suite *erode_suite(void)
{
    Suite *s = suite_create("erode");
    TCase *api = tcase_create("parameters");
    tcase_add_test(api, test_method_names);
    tcase_add_test(api, test_defaults);
    tcase_add_test(api, test_bad_params);
    tcase_add_test(api, test_bad_heights);
    tcase_add_test(api, test_error_codes_follow_the_header);
    tcase_add_test(api, test_measure);
    suite_add_tcase(s, api);
    TCase *run = tcase_create("behaviour");
    tcase_set_timeout(run, 120);
    tcase_add_loop_test(run, test_zero_iterations_identity, 0, TF_EROSION_METHOD_COUNT);
    tcase_add_loop_test(run, test_deterministic, 0, TF_EROSION_METHOD_COUNT);
    tcase_add_loop_test(run, test_thermal_mass_conserved, TF_EROSION_THERMAL,
                        TF_EROSION_INVERSE_THERMAL + 1);
    tcase_add_test(run, test_thermal_lowers_max_slope);
    tcase_add_test(run, test_thermal_exact);
    tcase_add_test(run, test_inverse_thermal_flattens);
    tcase_add_test(run, test_hydraulic_mass_conserved);
    tcase_add_test(run, test_hydraulic_level_ground);
    tcase_add_test(run, test_hydraulic_moves_downhill);
    suite_add_tcase(s, run);
    return s;
}

int main(void)
{
    return tu_run_suite(erode_suite());
}
