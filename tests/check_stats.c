/*
 * Check suite for the shared statistics (lib/analysis/stats.c, spectrum.c):
 * the radix sort against qsort, type-7 quantiles, histograms, the thesis's
 * chi-square distance and the radially averaged power spectrum.
 */
#include <check.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>

#include "terrafit/stats.h"
#include "testutil.h"

static uint64_t lcg_state;
static double uniform01(void)
{
    lcg_state = lcg_state * 6364136223846793005ull + 1442695040888963407ull;
    return (double)(lcg_state >> 11) * 0x1p-53;
}

static int compare_floats(const void *a, const void *b)
{
    float x = *(const float *)a, y = *(const float *)b;
    return (x > y) - (x < y);
}

START_TEST(sorted_values_match_qsort)
{
    size_t n = 10007;
    float *values = malloc(n * sizeof *values), *weight = malloc(n * sizeof *weight);
    float *expected = malloc(n * sizeof *expected);
    lcg_state = 42;
    size_t visible = 0;
    for (size_t k = 0; k < n; k++) {
        /* Both signs, zeros of both signs, repeats, and some hidden cells. */
        values[k] = (float)((uniform01() - 0.5) * 1000.0);
        if (k % 97 == 0)
            values[k] = (k % 2) ? -0.0f : 0.0f;
        if (k % 13 == 0)
            values[k] = 3.25f;
        weight[k] = (k % 7 == 3) ? 0.0f : 0.5f;
        if (weight[k] > 0.0f)
            expected[visible++] = values[k];
    }
    qsort(expected, visible, sizeof *expected, compare_floats);
    float *sorted;
    size_t count = tf_sorted_values(values, weight, n, &sorted, NULL);
    ck_assert_uint_eq(count, visible);
    for (size_t k = 0; k < count; k++)
        ck_assert_msg(sorted[k] == expected[k], "k=%zu: %g != %g", k, sorted[k], expected[k]);
    free(sorted);
    count = tf_sorted_values(values, NULL, n, &sorted, NULL);
    ck_assert_uint_eq(count, n);
    for (size_t k = 1; k < count; k++)
        ck_assert(sorted[k - 1] <= sorted[k]);
    free(sorted);
    for (size_t k = 0; k < n; k++)
        weight[k] = 0.0f;
    ck_assert_uint_eq(tf_sorted_values(values, weight, n, &sorted, NULL), 0);
    ck_assert_ptr_null(sorted);
    free(values);
    free(weight);
    free(expected);
}
END_TEST

START_TEST(quantiles_interpolate_order_statistics)
{
    const float sorted[5] = {1.0f, 2.0f, 4.0f, 8.0f, 16.0f};
    ck_assert_double_eq(tf_quantile_sorted(sorted, 5, 0.0), 1.0);
    ck_assert_double_eq(tf_quantile_sorted(sorted, 5, 1.0), 16.0);
    ck_assert_double_eq(tf_quantile_sorted(sorted, 5, 0.5), 4.0);
    ck_assert_double_eq(tf_quantile_sorted(sorted, 5, 0.125), 1.5);  /* position 0.5 */
    ck_assert_double_eq(tf_quantile_sorted(sorted, 5, 0.875), 12.0); /* position 3.5 */
    ck_assert_double_eq(tf_quantile_sorted(sorted, 1, 0.3), 1.0);
    ck_assert(isnan(tf_quantile_sorted(sorted, 0, 0.3)));
}
END_TEST

START_TEST(histogram_is_normalized_and_clamped)
{
    const float values[6] = {-1.0f, 0.0f, 0.3f, 0.5f, 0.99f, 7.0f};
    const float weight[6] = {1, 1, 1, 0, 1, 1};
    double h[4];
    tf_histogram(values, weight, 6, 0.0, 1.0, 4, h);
    ck_assert_double_eq_tol(h[0], 2.0 / 5.0, 1e-15); /* -1 (clamped) and 0 */
    ck_assert_double_eq_tol(h[1], 1.0 / 5.0, 1e-15); /* 0.3 */
    ck_assert_double_eq_tol(h[2], 0.0, 1e-15);       /* 0.5 is hidden */
    ck_assert_double_eq_tol(h[3], 2.0 / 5.0, 1e-15); /* 0.99 and 7 (clamped) */
    tf_histogram(values, NULL, 6, 0.0, 1.0, 4, h);
    ck_assert_double_eq_tol(h[0] + h[1] + h[2] + h[3], 1.0, 1e-15);
}
END_TEST

START_TEST(chi2_is_zero_for_equal_and_one_for_disjoint)
{
    const double a[4] = {0.25, 0.25, 0.5, 0.0}, b[4] = {0.0, 0.0, 0.0, 1.0};
    const double c[4] = {0.5, 0.0, 0.5, 0.0};
    ck_assert_double_eq(tf_chi2_distance(a, a, 4), 0.0);
    ck_assert_double_eq_tol(tf_chi2_distance(a, b, 4), 1.0, 1e-15);
    /* 0.5 * (0.0625/0.75 + 0.0625/0.25 + 0 + 0) */
    ck_assert_double_eq_tol(tf_chi2_distance(a, c, 4), 0.5 * (0.0625 / 0.75 + 0.25), 1e-15);
    ck_assert_double_eq(tf_chi2_distance(a, c, 4), tf_chi2_distance(c, a, 4));
}
END_TEST

START_TEST(spectrum_of_a_wave_peaks_at_its_frequency)
{
    size_t w = 128, h = 96;
    float *map = malloc(w * h * sizeof *map);
    /* 8 cycles across the width: 8/128 = 1/16 cycles per pixel = bin 8. */
    for (size_t j = 0; j < h; j++)
        for (size_t i = 0; i < w; i++)
            map[j * w + i] = (float)(10.0 + sin(6.283185307179586 * 8.0 * (double)i / (double)w));
    tf_radial_spectrum s;
    ck_assert_int_eq(tf_radial_spectrum_compute(map, NULL, w, h, &s, NULL), 0);
    ck_assert_uint_eq(s.bin_count, 65);
    size_t best = 0;
    for (size_t b = 1; b < s.bin_count; b++)
        if (s.power[b] > s.power[best])
            best = b;
    ck_assert_uint_eq(best, 8);
    ck_assert_double_eq(s.frequency[8], 8.0 / 128.0);
    ck_assert(s.power[0] < 1e-20 * s.power[8]); /* the mean was removed */
    tf_radial_spectrum_free(&s);
    free(map);
}
END_TEST

START_TEST(spectrum_of_white_noise_is_flat_at_its_variance)
{
    size_t w = 256, h = 256;
    float *map = malloc(w * h * sizeof *map);
    lcg_state = 7;
    for (size_t k = 0; k < w * h; k++)
        map[k] = (float)(uniform01() - 0.5); /* variance 1/12 */
    tf_radial_spectrum s;
    ck_assert_int_eq(tf_radial_spectrum_compute(map, NULL, w, h, &s, NULL), 0);
    double total = 0.0;
    size_t bins = 0;
    for (size_t b = 4; b < s.bin_count; b++) {
        total += s.power[b];
        bins++;
    }
    ck_assert_double_eq_tol(total / (double)bins, 1.0 / 12.0, 0.05 / 12.0);
    tf_radial_spectrum_free(&s);
    free(map);
}
END_TEST

START_TEST(spectrum_ignores_hidden_cells_and_rejects_tiny_maps)
{
    size_t w = 64, h = 64;
    float *map = malloc(w * h * sizeof *map), *weight = malloc(w * h * sizeof *weight);
    for (size_t k = 0; k < w * h; k++) {
        map[k] = (k % w) < 32 ? 0.25f : 1e30f; /* hidden garbage on the right */
        weight[k] = (k % w) < 32 ? 1.0f : 0.0f;
    }
    tf_radial_spectrum s;
    ck_assert_int_eq(tf_radial_spectrum_compute(map, weight, w, h, &s, NULL), 0);
    for (size_t b = 0; b < s.bin_count; b++)
        ck_assert(s.power[b] < 1e-20); /* constant where visible: no power */
    tf_radial_spectrum_free(&s);
    tf_error err;
    ck_assert_int_eq(tf_radial_spectrum_compute(map, NULL, 3, 64, &s, &err), -1);
    ck_assert_ptr_null(s.power);
    free(map);
    free(weight);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("stats");
    TCase *order = tcase_create("order statistics");
    tcase_add_test(order, sorted_values_match_qsort);
    tcase_add_test(order, quantiles_interpolate_order_statistics);
    tcase_add_test(order, histogram_is_normalized_and_clamped);
    tcase_add_test(order, chi2_is_zero_for_equal_and_one_for_disjoint);
    suite_add_tcase(s, order);
    TCase *spectrum = tcase_create("spectrum");
    tcase_add_test(spectrum, spectrum_of_a_wave_peaks_at_its_frequency);
    tcase_add_test(spectrum, spectrum_of_white_noise_is_flat_at_its_variance);
    tcase_add_test(spectrum, spectrum_ignores_hidden_cells_and_rejects_tiny_maps);
    suite_add_tcase(s, spectrum);
    return tu_run_suite(s);
}
