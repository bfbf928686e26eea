/*
 * Redistribution curves (docs/spec.md, "Redistribution curves"): every kind
 * passes through its points, clamps outside them, finds the right segment;
 * monotone cubic is monotone; no kind leaves a segment's y range; cosine
 * is (1 - cos(pi t)) / 2; bad curves are refused.
 */
#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "terrafit/runtime.h"
#include "testutil.h"

static const tf_interp KINDS[] = {TF_INTERP_LINEAR, TF_INTERP_COSINE, TF_INTERP_MONOTONE_CUBIC};

/* Deterministic pseudo-random doubles in [0, 1) (xorshift64*). */
static double next_unit(uint64_t *state)
{
    *state ^= *state >> 12;
    *state ^= *state << 25;
    *state ^= *state >> 27;
    return (double)((*state * 0x2545F4914F6CDD1DULL) >> 11) * 0x1.0p-53;
}

/* K random points, x strictly increasing in about [0.1, 0.9]; y either
 * non-decreasing (monotone data) or arbitrary. */
static void random_points(uint64_t seed, size_t count, int monotone, tf_point *p)
{
    uint64_t state = seed * 0x9E3779B97F4A7C15ULL + 1;
    double x = 0.1, y = next_unit(&state);
    for (size_t k = 0; k < count; k++) {
        x += 0.001 + next_unit(&state) * 0.05;
        double step = next_unit(&state) < 0.2 ? 0.0 : next_unit(&state) * 0.3; /* flats too */
        y = monotone ? y + step : next_unit(&state) * 2.0 - 1.0;
        p[k].x = x;
        p[k].y = y;
    }
}

START_TEST(passes_through_points_and_clamps)
{
    tf_point p[40];
    random_points((uint64_t)_i + 1, 40, _i % 2, p);
    for (size_t kind = 0; kind < 3; kind++) {
        tf_error err;
        tf_curve *c = tf_curve_new(p, 40, KINDS[kind], &err);
        ck_assert_msg(c != NULL, "%s", err.message);
        for (size_t k = 0; k < 40; k++)
            ck_assert_msg(tf_curve_eval(c, p[k].x) == p[k].y, "kind %zu point %zu", kind, k);
        ck_assert(tf_curve_eval(c, p[0].x - 1.0) == p[0].y);
        ck_assert(tf_curve_eval(c, -INFINITY) == p[0].y);
        ck_assert(tf_curve_eval(c, p[39].x + 1e-9) == p[39].y);
        ck_assert(tf_curve_eval(c, INFINITY) == p[39].y);
        ck_assert(isnan(tf_curve_eval(c, NAN)));
        tf_curve_free(c);
    }
}
END_TEST

/* Binary search picks the same segment as a linear scan: checked through
 * the linear kind, whose value is y_k + t * D_k exactly. */
START_TEST(binary_search_finds_the_segment)
{
    tf_point p[257];
    random_points(77 + (uint64_t)_i, 257, 0, p);
    tf_curve *c = tf_curve_new(p, 257, TF_INTERP_LINEAR, NULL);
    ck_assert(c != NULL);
    uint64_t state = 5 + (uint64_t)_i;
    for (int n = 0; n < 20000; n++) {
        double u = p[0].x + next_unit(&state) * (p[256].x - p[0].x);
        size_t k = 0;
        while (k + 2 < 257 && p[k + 1].x <= u)
            k++;
        double t = (u - p[k].x) * (1.0 / (p[k + 1].x - p[k].x));
        double want = p[k].y + t * (p[k + 1].y - p[k].y);
        ck_assert_msg(tf_curve_eval(c, u) == want, "u=%a", u);
    }
    tf_curve_free(c);
}
END_TEST

/* Fritsch-Carlson: monotone data give a monotone curve, flats stay flat,
 * and no value leaves its segment's [y_k, y_(k+1)]. */
START_TEST(monotone_cubic_is_monotone)
{
    tf_point p[64];
    random_points(1000 + (uint64_t)_i, 64, 1, p);
    tf_curve *c = tf_curve_new(p, 64, TF_INTERP_MONOTONE_CUBIC, NULL);
    ck_assert(c != NULL);
    double previous = -INFINITY;
    for (size_t k = 0; k + 1 < 64; k++) {
        for (int s = 0; s < 200; s++) {
            double u = p[k].x + (p[k + 1].x - p[k].x) * (s / 200.0);
            double y = tf_curve_eval(c, u);
            /* Rounding may wobble by an ulp or two near a knot. */
            double slack = 4 * 0x1p-52 * (fabs(y) + 1.0);
            ck_assert_msg(y >= previous - slack, "decreases at u=%a: %a < %a", u, y, previous);
            ck_assert(y >= p[k].y - slack && y <= p[k + 1].y + slack);
            if (p[k].y == p[k + 1].y)
                ck_assert_msg(y == p[k].y, "flat segment %zu moved: %a", k, y);
            previous = y > previous ? y : previous;
        }
    }
    tf_curve_free(c);
}
END_TEST

/* Non-monotone data: monotone cubic still stays inside each segment's
 * y range (no overshoot), unlike an unconstrained spline. */
START_TEST(monotone_cubic_does_not_overshoot)
{
    tf_point p[32];
    random_points(2000 + (uint64_t)_i, 32, 0, p);
    tf_curve *c = tf_curve_new(p, 32, TF_INTERP_MONOTONE_CUBIC, NULL);
    for (size_t k = 0; k + 1 < 32; k++) {
        double lo = fmin(p[k].y, p[k + 1].y), hi = fmax(p[k].y, p[k + 1].y);
        for (int s = 0; s <= 100; s++) {
            double y = tf_curve_eval(c, p[k].x + (p[k + 1].x - p[k].x) * (s / 100.0));
            ck_assert(y >= lo - 1e-15 && y <= hi + 1e-15);
        }
    }
    tf_curve_free(c);
}
END_TEST

/* Every kind stays within each segment's [min(y_k, y_(k+1)), max(...)],
 * for any data (signed, non-monotone, as mask-curve weights and output
 * curves are): the derived value range of a spec relies on it. */
START_TEST(no_kind_leaves_its_segment)
{
    tf_point p[48];
    random_points(3000 + (uint64_t)_i, 48, _i % 2, p);
    for (size_t k = 0; k < 48; k++)
        p[k].y = (p[k].y - 0.3) * 40.0; /* wide, both signs */
    for (size_t kind = 0; kind < 3; kind++) {
        tf_curve *c = tf_curve_new(p, 48, KINDS[kind], NULL);
        ck_assert(c != NULL);
        for (size_t k = 0; k + 1 < 48; k++) {
            double lo = fmin(p[k].y, p[k + 1].y), hi = fmax(p[k].y, p[k + 1].y);
            double slack = 4 * 0x1p-52 * fmax(fabs(lo), fabs(hi));
            for (int s = 0; s <= 64; s++) {
                double y = tf_curve_eval(c, p[k].x + (p[k + 1].x - p[k].x) * (s / 64.0));
                ck_assert_msg(y >= lo - slack && y <= hi + slack, "kind %zu segment %zu: %a", kind,
                              k, y);
            }
        }
        tf_curve_free(c);
    }
}
END_TEST

START_TEST(cosine_is_half_cosine)
{
    tf_point p[2] = {{0.0, 0.0}, {1.0, 1.0}};
    tf_curve *c = tf_curve_new(p, 2, TF_INTERP_COSINE, NULL);
    ck_assert(fabs(tf_curve_eval(c, 0.5) - 0.5) < 4e-16);
    for (int s = 0; s <= 1000; s++) {
        double t = s / 1000.0;
        double want = (1.0 - cos(3.14159265358979323846 * t)) * 0.5;
        /* libm's cos is itself only faithful to about an ulp. */
        ck_assert_msg(fabs(tf_curve_eval(c, t) - want) < 1e-15, "t=%g", t);
    }
    /* Symmetric: c(t) + c(1 - t) = 1. */
    for (int s = 0; s <= 100; s++) {
        double t = s / 128.0;
        ck_assert(fabs(tf_curve_eval(c, t) + tf_curve_eval(c, 1.0 - t) - 1.0) < 1e-15);
    }
    tf_curve_free(c);
}
END_TEST

START_TEST(linear_is_exact)
{
    tf_point p[3] = {{0.25, -1.0}, {0.5, 3.0}, {1.0, 3.5}};
    tf_curve *c = tf_curve_new(p, 3, TF_INTERP_LINEAR, NULL);
    ck_assert(tf_curve_eval(c, 0.375) == 1.0);
    ck_assert(tf_curve_eval(c, 0.75) == 3.25);
    tf_curve_free(c);
}
END_TEST

START_TEST(bad_curves_are_refused)
{
    tf_error err;
    tf_point one[1] = {{0, 0}};
    ck_assert(tf_curve_new(one, 1, TF_INTERP_LINEAR, &err) == NULL);
    ck_assert_int_eq(err.code, TF_ERR_ARGUMENT);
    ck_assert(tf_curve_new(NULL, 5, TF_INTERP_LINEAR, &err) == NULL);
    tf_point flat[2] = {{0.5, 0}, {0.5, 1}};
    ck_assert(tf_curve_new(flat, 2, TF_INTERP_LINEAR, &err) == NULL);
    ck_assert_ptr_nonnull(strstr(err.message, "greater than the previous"));
    tf_point back[3] = {{0.1, 0}, {0.5, 1}, {0.4, 2}};
    ck_assert(tf_curve_new(back, 3, TF_INTERP_MONOTONE_CUBIC, &err) == NULL);
    tf_point nan[2] = {{0.1, NAN}, {0.5, 1}};
    ck_assert(tf_curve_new(nan, 2, TF_INTERP_COSINE, &err) == NULL);
    ck_assert_ptr_nonnull(strstr(err.message, "not finite"));
    tf_point ok[2] = {{0.1, 0}, {0.5, 1}};
    ck_assert(tf_curve_new(ok, 2, (tf_interp)7, &err) == NULL);
}
END_TEST

static Suite *curve_suite(void)
{
    Suite *s = suite_create("curve");
    TCase *tc = tcase_create("interpolation");
    tcase_add_loop_test(tc, passes_through_points_and_clamps, 0, 16);
    tcase_add_loop_test(tc, binary_search_finds_the_segment, 0, 4);
    tcase_add_loop_test(tc, monotone_cubic_is_monotone, 0, 16);
    tcase_add_loop_test(tc, monotone_cubic_does_not_overshoot, 0, 16);
    tcase_add_loop_test(tc, no_kind_leaves_its_segment, 0, 8);
    tcase_add_test(tc, cosine_is_half_cosine);
    tcase_add_test(tc, linear_is_exact);
    tcase_add_test(tc, bad_curves_are_refused);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    SRunner *runner = srunner_create(curve_suite());
    srunner_run_all(runner, CK_ENV);
    int failed = srunner_ntests_failed(runner);
    srunner_free(runner);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
