/*
 * Fidelity metrics (docs/metrics.md) on maps whose answers are known:
 * planes, bowls and domes, egg crates, synthesized power-law spectra,
 * straight and random-walk contours, and the normal-score machinery.
 */
#include <check.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/metrics_internal.h"
#include "terrafit/terrafit.h"
#include "testutil.h"

#define PI 3.14159265358979323846

/* A caller-built map (value 0.5, weight 1): the struct is public, so the
 * tests need no file. */
static tf_layer_map *map_new(size_t w, size_t h)
{
    tf_layer_map *m = calloc(1, sizeof *m);
    ck_assert_ptr_nonnull(m);
    m->width = w;
    m->height = h;
    m->value = malloc(w * h * sizeof *m->value);
    m->weight = malloc(w * h * sizeof *m->weight);
    ck_assert_ptr_nonnull(m->value);
    ck_assert_ptr_nonnull(m->weight);
    for (size_t k = 0; k < w * h; k++) {
        m->value[k] = 0.5f;
        m->weight[k] = 1.0f;
    }
    return m;
}

static void map_free(tf_layer_map *m)
{
    if (!m)
        return;
    free(m->value);
    free(m->weight);
    free(m);
}

static uint64_t rng_state;

static double next_unit(void)
{
    rng_state ^= rng_state >> 12;
    rng_state ^= rng_state << 25;
    rng_state ^= rng_state >> 27;
    return (double)((rng_state * 0x2545F4914F6CDD1DULL) >> 11) * 0x1.0p-53;
}

static double next_gaussian(void)
{
    double u = next_unit(), v = next_unit();
    return sqrt(-2.0 * log(u > 0.0 ? u : 1e-300)) * cos(2.0 * PI * v);
}

/* Rescale a map's values linearly to [lo, hi]. */
static void stretch(tf_layer_map *m, const double *raw, double lo, double hi)
{
    size_t n = m->width * m->height;
    double mn = raw[0], mx = raw[0];
    for (size_t k = 1; k < n; k++) {
        mn = fmin(mn, raw[k]);
        mx = fmax(mx, raw[k]);
    }
    for (size_t k = 0; k < n; k++)
        m->value[k] = (float)(lo + (hi - lo) * (raw[k] - mn) / (mx - mn));
}

/* Simplex fBm-free base noise at the given frequency, in [0.05, 0.95]. */
static tf_layer_map *noise_map(size_t w, size_t h, uint32_t seed, double frequency)
{
    tf_layer_map *m = map_new(w, h);
    double *raw = malloc(w * h * sizeof *raw);
    for (size_t y = 0; y < h; y++)
        for (size_t x = 0; x < w; x++)
            raw[y * w + x] = tf_noise_eval(TF_NOISE_SIMPLEX, seed, (double)x * frequency,
                                           (double)y * frequency, 0.0);
    stretch(m, raw, 0.05, 0.95);
    free(raw);
    return m;
}

/* A periodic N x N field whose power at integer wave vector k is
 * |k|^-beta (random phases), by a separable inverse DFT: the radially
 * averaged spectrum is k^-beta by construction. */
static tf_layer_map *power_law_map(size_t n, double beta, uint64_t seed)
{
    rng_state = seed * 0x9E3779B97F4A7C15ULL + 1;
    double *re = calloc(n * n, sizeof *re), *im = calloc(n * n, sizeof *im);
    double *gre = calloc(n * n, sizeof *gre), *gim = calloc(n * n, sizeof *gim);
    double *cs = malloc(n * sizeof *cs), *sn = malloc(n * sizeof *sn);
    for (size_t k = 0; k < n; k++) {
        cs[k] = cos(2.0 * PI * (double)k / (double)n);
        sn[k] = sin(2.0 * PI * (double)k / (double)n);
    }
    for (size_t j = 0; j < n; j++) {
        for (size_t i = 0; i < n; i++) {
            double kx = (double)(i < n / 2 ? (long)i : (long)i - (long)n);
            double ky = (double)(j < n / 2 ? (long)j : (long)j - (long)n);
            double r = sqrt(kx * kx + ky * ky), phase = 2.0 * PI * next_unit();
            double amplitude = r > 0.0 ? pow(r, -0.5 * beta) : 0.0;
            re[j * n + i] = amplitude * cos(phase);
            im[j * n + i] = amplitude * sin(phase);
        }
    }
    /* Along x: G[ky][x] = sum_kx F[ky][kx] e^(2 pi i kx x / n). */
    for (size_t j = 0; j < n; j++)
        for (size_t x = 0; x < n; x++) {
            double sr = 0.0, si = 0.0;
            for (size_t i = 0; i < n; i++) {
                size_t t = (i * x) % n;
                sr += re[j * n + i] * cs[t] - im[j * n + i] * sn[t];
                si += re[j * n + i] * sn[t] + im[j * n + i] * cs[t];
            }
            gre[j * n + x] = sr;
            gim[j * n + x] = si;
        }
    /* Along y, keeping the real part. */
    double *raw = malloc(n * n * sizeof *raw);
    for (size_t y = 0; y < n; y++)
        for (size_t x = 0; x < n; x++) {
            double sr = 0.0;
            for (size_t j = 0; j < n; j++) {
                size_t t = (j * y) % n;
                sr += gre[j * n + x] * cs[t] - gim[j * n + x] * sn[t];
            }
            raw[y * n + x] = sr;
        }
    tf_layer_map *m = map_new(n, n);
    stretch(m, raw, 0.1, 0.9);
    free(re);
    free(im);
    free(gre);
    free(gim);
    free(cs);
    free(sn);
    free(raw);
    return m;
}

static tf_metrics_report compare_ok(const tf_layer_map *a, const tf_layer_map *b,
                                    const tf_metrics_options *o)
{
    tf_metrics_report r;
    tf_error err = {0};
    int status = tf_metrics_compute(a, b, o, &r, &err);
    ck_assert_msg(status == 0, "tf_metrics_compute failed: %s", err.message);
    return r;
}

static const double *map_fields(const tf_map_metrics *m, size_t *count)
{
    *count = sizeof *m / sizeof(double);
    return (const double *)(const void *)m;
}

/* ------------------------------------------------------------ identity */

START_TEST(identical_maps_are_at_distance_zero)
{
    tf_layer_map *a = noise_map(96, 80, 7, 1.0 / 16.0);
    tf_metrics_report r = compare_ok(a, a, NULL);
    ck_assert_uint_eq(r.cells, 96 * 80);
    ck_assert_double_eq(r.histogram_chi2, 0.0);
    ck_assert_double_eq(r.spectrum_log_rms, 0.0);
    ck_assert_double_eq(r.slope_chi2, 0.0);
    size_t count;
    const double *fa = map_fields(&r.a, &count), *fb = map_fields(&r.b, &count);
    for (size_t i = 0; i < count; i++) {
        ck_assert_msg(isfinite(fa[i]), "field %zu of a noise map is not finite", i);
        ck_assert_double_eq(tf_metrics_difference(fa[i], fb[i]), 0.0);
    }
    /* A second run gives the same bits. */
    tf_metrics_report again = compare_ok(a, a, NULL);
    ck_assert_int_eq(memcmp(&r, &again, sizeof r), 0);
    map_free(a);
}
END_TEST

/* ---------------------------------------------------- value histograms */

START_TEST(histogram_chi2_has_the_thesis_values)
{
    /* A: half 0.1, half 0.9; B: all 0.1. Histograms (0.5, .., 0.5) and
     * (1, .., 0): 0.5 * (0.5^2 / 1.5 + 0.5^2 / 0.5) = 1/3. */
    tf_layer_map *a = map_new(16, 16), *b = map_new(16, 16), *c = map_new(16, 16);
    for (size_t k = 0; k < 256; k++) {
        a->value[k] = k < 128 ? 0.1f : 0.9f;
        b->value[k] = 0.1f;
        c->value[k] = 0.6f;
    }
    ck_assert_double_eq_tol(compare_ok(a, b, NULL).histogram_chi2, 1.0 / 3.0, 1e-12);
    /* Disjoint histograms are at distance 1. */
    ck_assert_double_eq_tol(compare_ok(b, c, NULL).histogram_chi2, 1.0, 1e-12);
    map_free(a);
    map_free(b);
    map_free(c);
}
END_TEST

START_TEST(only_cells_present_in_both_count)
{
    /* B equals A except for garbage where B's weight is 0: with A given the
     * same zero weights, every distance is 0. */
    tf_layer_map *a = noise_map(64, 64, 3, 1.0 / 12.0), *b = noise_map(64, 64, 3, 1.0 / 12.0);
    for (size_t y = 20; y < 40; y++)
        for (size_t x = 10; x < 30; x++) {
            b->value[y * 64 + x] = y & 1 ? 1.0f : 0.0f;
            b->weight[y * 64 + x] = 0.0f;
        }
    tf_metrics_report r = compare_ok(a, b, NULL);
    ck_assert_uint_eq(r.cells, 64 * 64 - 400);
    ck_assert_double_eq(r.histogram_chi2, 0.0);
    ck_assert_double_eq(r.spectrum_log_rms, 0.0);
    ck_assert_double_eq(r.slope_chi2, 0.0);
    size_t count;
    const double *fa = map_fields(&r.a, &count), *fb = map_fields(&r.b, &count);
    for (size_t i = 0; i < count; i++)
        ck_assert_double_eq(tf_metrics_difference(fa[i], fb[i]), 0.0);
    /* Without the mask the garbage shows. */
    for (size_t k = 0; k < 64 * 64; k++)
        b->weight[k] = 1.0f;
    ck_assert_double_gt(compare_ok(a, b, NULL).histogram_chi2, 0.01);
    map_free(a);
    map_free(b);
}
END_TEST

/* ------------------------------------------------------------ spectrum */

static const double BETAS[] = {2.0, 3.0, 4.0};

START_TEST(power_law_spectrum_gives_its_beta)
{
    double beta = BETAS[_i];
    tf_layer_map *m = power_law_map(128, beta, 11 + (uint64_t)_i);
    tf_metrics_report r = compare_ok(m, m, NULL);
    ck_assert_msg(fabs(r.a.spectral_slope - beta) < 0.15, "beta %g measured as %g", beta,
                  r.a.spectral_slope);
    map_free(m);
}
END_TEST

START_TEST(spectrum_distance_sees_shape_not_amplitude)
{
    tf_layer_map *a = power_law_map(128, 2.0, 5), *b = power_law_map(128, 3.0, 6);
    tf_layer_map *quiet = map_new(128, 128);
    for (size_t k = 0; k < 128 * 128; k++)
        quiet->value[k] = 0.5f + 0.25f * (a->value[k] - 0.5f);
    /* Unit total power: a quarter of the amplitude is the same shape. */
    ck_assert_double_lt(compare_ok(a, quiet, NULL).spectrum_log_rms, 1e-3);
    /* One decade per decade of frequency apart over 1.5 decades: far. */
    tf_metrics_report r = compare_ok(a, b, NULL);
    ck_assert_double_gt(r.spectrum_log_rms, 0.2);
    ck_assert_double_eq_tol(tf_metrics_difference(r.a.spectral_slope, r.b.spectral_slope), 1.0,
                            0.25);
    map_free(a);
    map_free(b);
    map_free(quiet);
}
END_TEST

/* ------------------------------------------------ slopes and planes */

/* v = (x + 2y) / 256: exact in float, gradient (1, 2) / 256 everywhere. */
static tf_layer_map *plane_map(size_t n, double per_x, double per_y)
{
    tf_layer_map *m = map_new(n, n);
    for (size_t y = 0; y < n; y++)
        for (size_t x = 0; x < n; x++)
            m->value[y * n + x] = (float)(per_x * (double)x + per_y * (double)y);
    return m;
}

START_TEST(plane_has_constant_slope_and_no_relief)
{
    tf_layer_map *m = plane_map(64, 1.0 / 256.0, 2.0 / 256.0);
    tf_metrics_report r = compare_ok(m, m, NULL);
    double slope = sqrt(5.0) / 256.0;
    ck_assert_double_eq_tol(r.a.slope_mean, slope, 1e-7);
    ck_assert_double_eq_tol(r.a.slope_rate, 1.0 / slope, 1e-3);
    ck_assert_double_eq_tol(r.a.slope_evenness, 1.0, 1e-6); /* every cell as steep */
    ck_assert_double_eq(r.a.depression_share, 0.0);
    ck_assert_double_eq(r.a.peak_density, 0.0);
    ck_assert(isnan(r.a.pit_peak_ratio)); /* no peak to divide by */
    ck_assert(isnan(r.a.slope_elevation)); /* a constant slope has no rank order */
    /* The median contour is a straight line. */
    ck_assert_double_eq_tol(r.a.box_dimension, 1.0, 0.05);

    tf_metrics_options o = tf_metrics_options_default();
    o.height_scale = 10.0;
    ck_assert_double_eq_tol(compare_ok(m, m, &o).a.slope_mean, 10.0 * slope, 1e-6);
    map_free(m);
}
END_TEST

START_TEST(slope_histograms_of_different_planes_are_disjoint)
{
    tf_layer_map *a = plane_map(32, 1.0 / 128.0, 0.0), *b = plane_map(32, 2.0 / 128.0, 0.0);
    tf_metrics_report r = compare_ok(a, b, NULL);
    ck_assert_double_eq_tol(r.slope_range, 2.0 / 128.0, 1e-9);
    ck_assert_double_eq_tol(r.slope_chi2, 1.0, 1e-12);
    ck_assert_double_eq_tol(r.a.slope_rate, 128.0, 1e-6);
    ck_assert_double_eq_tol(r.b.slope_rate, 64.0, 1e-6);
    map_free(a);
    map_free(b);
}
END_TEST

/* Evenness is mean / RMS slope: a map steep on one half and flat on the
 * other has mean s/2 and RMS s/sqrt(2), so 1/sqrt(2); a Gaussian random
 * field's gradient magnitude is Rayleigh distributed, so sqrt(pi)/2. */
START_TEST(slope_evenness_has_its_known_values)
{
    size_t n = 64;
    tf_layer_map *half = map_new(n, n);
    for (size_t y = 0; y < n; y++)
        for (size_t x = 0; x < n; x++)
            half->value[y * n + x] = x < n / 2 ? 0.0f : (float)((double)(x - n / 2) / 64.0);
    tf_metrics_report r = compare_ok(half, half, NULL);
    /* the 62 interior columns: 1-31 flat, 32 (the kink) at s/2, 33-62 at s */
    double mean = (30.0 + 0.5) / 62.0, rms = sqrt((30.0 + 0.25) / 62.0);
    ck_assert_double_eq_tol(r.a.slope_evenness, mean / rms, 1e-6);
    ck_assert(fabs(r.a.slope_evenness - sqrt(0.5)) < 0.02);
    map_free(half);
    for (uint64_t seed = 1; seed <= 3; seed++) {
        tf_layer_map *g = power_law_map(n, 2.0, seed);
        double e = compare_ok(g, g, NULL).a.slope_evenness;
        ck_assert_msg(fabs(e - 0.5 * sqrt(PI)) < 0.015, "seed %d: evenness %g", (int)seed, e);
        map_free(g);
    }
}
END_TEST

START_TEST(flat_map_leaves_undefined_values_undefined)
{
    tf_layer_map *m = map_new(32, 32);
    tf_metrics_report r = compare_ok(m, m, NULL);
    ck_assert_double_eq(r.a.slope_mean, 0.0);
    ck_assert(isnan(r.a.slope_rate));
    ck_assert(isnan(r.a.slope_evenness));
    ck_assert(isnan(r.a.spectral_slope));
    ck_assert(isnan(r.a.box_dimension));
    ck_assert(isnan(r.spectrum_log_rms));
    ck_assert_double_eq(r.slope_chi2, 0.0);
    ck_assert_double_eq(r.a.depression_share, 0.0);
    /* Flow crosses the flat breadth first from the border, straight steps
     * first: each cell goes straight to its nearest side, and no cell
     * drains more than half a row. */
    ck_assert_double_eq(r.a.channel_share, 0.0);
    double sum = 0.0;
    for (int y = 0; y < 32; y++)
        for (int x = 0; x < 32; x++) /* steps to the nearest side */
            sum += fmin(fmin(x, y), fmin(31 - x, 31 - y));
    ck_assert_double_eq_tol(r.a.flow_path_length, sum / 1024.0 / 32.0, 1e-12);
    map_free(m);
}
END_TEST

/* ------------------------------------------------- bowls, domes, crates */

static tf_layer_map *bowl_map(size_t n, double sign)
{
    tf_layer_map *m = map_new(n, n);
    double c = (double)(n - 1) / 2.0;
    for (size_t y = 0; y < n; y++)
        for (size_t x = 0; x < n; x++) {
            double d2 = ((double)x - c) * ((double)x - c) + ((double)y - c) * ((double)y - c);
            m->value[y * n + x] = (float)(0.5 + sign * (d2 / (4.0 * c * c) - 0.25));
        }
    return m;
}

START_TEST(bowl_is_one_closed_depression)
{
    size_t n = 65;
    tf_layer_map *m = bowl_map(n, 1.0);
    /* Everything below the lowest rim cell is inside the depression. */
    float rim = m->value[0];
    for (size_t i = 0; i < n; i++) {
        rim = fminf(rim, fminf(m->value[i], m->value[(n - 1) * n + i]));
        rim = fminf(rim, fminf(m->value[i * n], m->value[i * n + n - 1]));
    }
    size_t below = 0;
    for (size_t k = 0; k < n * n; k++)
        below += m->value[k] < rim;
    tf_metrics_report r = compare_ok(m, m, NULL);
    ck_assert_double_eq_tol(r.a.depression_share, (double)below / (double)(n * n), 1e-12);
    ck_assert_double_eq_tol(r.a.depression_share, PI / 4.0, 0.03);
    ck_assert_double_eq(r.a.peak_density, 0.0); /* one pit, no peak */
    ck_assert(isnan(r.a.pit_peak_ratio));

    /* A cell that does not count is an outlet: a hole at the bottom drains
     * the bowl. */
    m->weight[(n / 2) * n + n / 2] = 0.0f;
    ck_assert_double_eq(compare_ok(m, m, NULL).a.depression_share, 0.0);
    map_free(m);

    tf_layer_map *dome = bowl_map(n, -1.0);
    r = compare_ok(dome, dome, NULL);
    ck_assert_double_eq(r.a.depression_share, 0.0);
    ck_assert_double_eq_tol(r.a.peak_density, 1000.0 / (double)((n - 2) * (n - 2)), 1e-9);
    ck_assert_double_eq(r.a.pit_peak_ratio, 0.0);
    map_free(dome);
}
END_TEST

START_TEST(egg_crate_has_known_extrema)
{
    /* 0.5 + 0.25 sin(2 pi x / 16) sin(2 pi y / 16) on 64 x 64: maxima at
     * (4, 4) and (12, 12) mod 16, minima at (4, 12) and (12, 4) mod 16:
     * 32 of each among the 62 x 62 cells with eight neighbours. */
    tf_layer_map *m = map_new(64, 64);
    for (size_t y = 0; y < 64; y++)
        for (size_t x = 0; x < 64; x++)
            m->value[y * 64 + x] =
                (float)(0.5 + 0.25 * sin(2.0 * PI * (double)x / 16.0) *
                                  sin(2.0 * PI * (double)y / 16.0));
    tf_metrics_report r = compare_ok(m, m, NULL);
    ck_assert_double_eq_tol(r.a.peak_density, 1000.0 * 32.0 / (62.0 * 62.0), 1e-9);
    ck_assert_double_eq_tol(r.a.pit_peak_ratio, 1.0, 1e-12);
    /* Each pit is a closed depression. */
    ck_assert_double_gt(r.a.depression_share, 0.05);
    map_free(m);
}
END_TEST

/* ------------------------------------------------------- drainage */

/* The plane v = y / 256 on n x n (n = 100): every cell that is no outlet
 * drains straight down (a diagonal step drops as much over sqrt 2), so the
 * interior cell (x, y) has a path of y steps and drains n - 1 - y cells;
 * the outlet under column x drains n - 1. Cells draining >= 64: 35 interior
 * cells and the outlet of each of the n - 2 interior columns. */
#define DRAIN_N 100
static const double PLANE_CHANNEL_SHARE = 98.0 * 36.0 / 10000.0;
static const double PLANE_PATH_SUM = 98.0 * (98.0 * 99.0 / 2.0); /* sum of y per column */

static tf_layer_map *y_plane(void)
{
    return plane_map(DRAIN_N, 0.0, 1.0 / 256.0);
}

START_TEST(tilted_plane_drains_straight_to_the_low_border)
{
    tf_layer_map *m = y_plane();
    tf_metrics_report r = compare_ok(m, m, NULL);
    ck_assert_double_eq(r.a.depression_share, 0.0);
    ck_assert_double_eq_tol(r.a.channel_share, PLANE_CHANNEL_SHARE, 1e-12);
    ck_assert_double_eq_tol(r.a.flow_path_length, PLANE_PATH_SUM / 10000.0 / 100.0, 1e-12);
    map_free(m);

    /* v = (x + y) / 256: the diagonal drops sqrt 2 times more per length,
     * so (x, y) takes min(x, y) diagonal steps to the low corner's sides;
     * (x, y) drains 1 + min(98 - x, 98 - y) cells, >= 64 in the 35 x 35
     * block at the low corner, and the outlets (0, y) and (x, 0) drain
     * 99 - y and 99 - x: 36 x 36 channel cells in all. */
    m = plane_map(DRAIN_N, 1.0 / 256.0, 1.0 / 256.0);
    r = compare_ok(m, m, NULL);
    double sum_min = 98.0 * 99.0 * 197.0 / 6.0; /* sum of min(x, y) over 1..98 */
    ck_assert_double_eq_tol(r.a.channel_share, 36.0 * 36.0 / 10000.0, 1e-12);
    ck_assert_double_eq_tol(r.a.flow_path_length, sqrt(2.0) * sum_min / 10000.0 / 100.0,
                            1e-12);
    map_free(m);
}
END_TEST

/* A V-shaped valley on 65 x 65 draining to y = 0: v = (4 |x - 32| + y) /
 * 1024. Sideways drops 4 per step, down 1, the diagonal 5 / sqrt 2: the
 * slopes drain sideways to the floor, the floor straight down. */
static tf_layer_map *valley_map(void)
{
    tf_layer_map *m = map_new(65, 65);
    for (size_t y = 0; y < 65; y++)
        for (size_t x = 0; x < 65; x++)
            m->value[y * 65 + x] =
                (float)((4.0 * fabs((double)x - 32.0) + (double)y) / 1024.0);
    return m;
}

START_TEST(v_valley_has_one_channel_along_its_floor)
{
    tf_layer_map *m = valley_map();
    tf_metrics_report r = compare_ok(m, m, NULL);
    ck_assert_double_eq(r.a.depression_share, 0.0);
    /* The floor cell (32, y) drains the 63 interior cells of each row from
     * y to 63: 63 (64 - y) >= 64 for y <= 62, and the outlet (32, 0): 63
     * channel cells. A slope drains at most 31 cells. */
    ck_assert_double_eq_tol(r.a.channel_share, 63.0 / 4225.0, 1e-12);
    /* (x, y) goes |x - 32| steps sideways, then y down. */
    double sum = 0.0;
    for (int y = 1; y <= 63; y++)
        for (int x = 1; x <= 63; x++)
            sum += abs(x - 32) + y;
    ck_assert_double_eq_tol(r.a.flow_path_length, sum / 4225.0 / 65.0, 1e-12);

    /* A cell of the floor that does not count is an outlet: its eight
     * neighbours become outlets and the channel breaks there. Above it the
     * floor (32, y), y = 34..62, drains 63 (64 - y) cells and the outlet
     * (32, 33) 1 + 63 * 30; below, (32, y), y = 1..29, drains 63 (31 - y)
     * and the outlet (32, 0) 1 + 63 * 30. */
    m->weight[32 * 65 + 32] = 0.0f;
    r = compare_ok(m, m, NULL);
    ck_assert_uint_eq(r.cells, 4224);
    ck_assert_double_eq(r.a.depression_share, 0.0);
    ck_assert_double_eq_tol(r.a.channel_share, 60.0 / 4224.0, 1e-12);
    map_free(m);
}
END_TEST

START_TEST(filled_depression_drains_like_the_plane_it_was_cut_into)
{
    /* A trough across the plane v = y / 256 (rows 40..59, every interior
     * column) is filled to the level of row 39. Flow on the fill goes
     * breadth first, straight ones first, to row 39, and row 60 drops
     * straight into the fill: the network is the plane's. */
    tf_layer_map *m = y_plane();
    for (size_t y = 40; y < 60; y++)
        for (size_t x = 1; x + 1 < DRAIN_N; x++)
            m->value[y * DRAIN_N + x] = 0.0f;
    tf_metrics_report r = compare_ok(m, m, NULL);
    ck_assert_double_eq_tol(r.a.depression_share, 98.0 * 20.0 / 10000.0, 1e-12);
    ck_assert_double_eq_tol(r.a.channel_share, PLANE_CHANNEL_SHARE, 1e-12);
    ck_assert_double_eq_tol(r.a.flow_path_length, PLANE_PATH_SUM / 10000.0 / 100.0, 1e-12);
    map_free(m);
}
END_TEST

/* The priority flood by its definition, on a small map: each step takes,
 * of the cells queued and not yet taken, the lowest level, the first
 * queued on a tie (a linear scan, no queue structure), and queues its
 * counted neighbours (metrics_relief.c's order) at max(its level, their
 * value). Fills order[] and level[]; returns the cells raised. */
static size_t reference_flood(const metrics_grid *g, uint32_t *order, float *level)
{
    static const int dx[8] = {-1, 0, 1, -1, 1, -1, 0, 1}, dy[8] = {-1, -1, -1, 0, 0, 1, 1, 1};
    size_t w = g->w, h = g->h, n = w * h, raised = 0, queued_count = 0, taken_count = 0;
    uint32_t *queue = malloc(n * sizeof *queue);
    unsigned char *state = calloc(n, 1); /* 1 queued, 2 taken */
    ck_assert_ptr_nonnull(queue);
    ck_assert_ptr_nonnull(state);
    for (size_t y = 0; y < h; y++)
        for (size_t x = 0; x < w; x++) {
            size_t k = y * w + x;
            int outlet = 0;
            for (int d = 0; d < 8; d++) {
                long nx = (long)x + dx[d], ny = (long)y + dy[d];
                outlet |= nx < 0 || ny < 0 || nx >= (long)w || ny >= (long)h ||
                          !g->ok[(size_t)ny * w + (size_t)nx];
            }
            if (g->ok[k] && outlet) {
                state[k] = 1;
                level[k] = g->v[k];
                queue[queued_count++] = (uint32_t)k;
            }
        }
    while (taken_count < queued_count) {
        size_t best = SIZE_MAX;
        for (size_t i = 0; i < queued_count; i++)
            if (state[queue[i]] == 1 && (best == SIZE_MAX || level[queue[i]] < level[queue[best]]))
                best = i;
        uint32_t c = queue[best];
        state[c] = 2;
        order[taken_count++] = c;
        size_t x = c % w, y = c / w;
        for (int d = 0; d < 8; d++) {
            long nx = (long)x + dx[d], ny = (long)y + dy[d];
            if (nx < 0 || ny < 0 || nx >= (long)w || ny >= (long)h)
                continue;
            size_t q = (size_t)ny * w + (size_t)nx;
            if (!g->ok[q] || state[q])
                continue;
            state[q] = 1;
            level[q] = g->v[q];
            if (level[c] > g->v[q]) {
                level[q] = level[c];
                raised++;
            }
            queue[queued_count++] = (uint32_t)q;
        }
    }
    free(queue);
    free(state);
    return raised;
}

START_TEST(flood_visits_cells_in_level_then_queue_order)
{
    /* Maps of few distinct levels (long flats and ties; both zeros, which
     * are equal levels; negative values) with cells that do not count:
     * the flood of metrics_flow_route visits the same cells in the same
     * order at the same levels as the flood by its definition. */
    static const float LEVELS[] = {-0.5f, -0.0f, 0.0f, 0.25f, 0.5f, 1.0f};
    uint64_t state = 0x9E3779B97F4A7C15u;
    for (int trial = 0; trial < 40; trial++) {
        size_t w = 3 + (size_t)(trial * 7 % 41), h = 2 + (size_t)(trial * 5 % 29), n = w * h;
        float *v = malloc(n * sizeof *v), *weight = malloc(n * sizeof *weight);
        unsigned char *ok = malloc(n);
        ck_assert(v && weight && ok);
        size_t kinds = 2 + (size_t)trial % 4; /* with the offset below, at most 6 */
        for (size_t k = 0; k < n; k++) {
            state = state * 6364136223846793005u + 1442695040888963407u;
            v[k] = LEVELS[(state >> 33) % kinds + (trial % 2)];
            ok[k] = (state >> 20) % 10 != 0 || trial % 3 == 0;
            weight[k] = ok[k] ? 1.0f : 0.0f;
        }
        metrics_grid g = {.w = w, .h = h, .v = v, .weight = weight, .ok = ok};
        metrics_flow f;
        tf_error err;
        ck_assert_int_eq(metrics_flow_route(&g, &f, &err), 0);
        uint32_t *order = malloc(n * sizeof *order);
        float *level = malloc(n * sizeof *level);
        ck_assert(order && level);
        size_t raised = reference_flood(&g, order, level);
        size_t counted = 0;
        for (size_t k = 0; k < n; k++)
            counted += ok[k];
        ck_assert_uint_eq(f.counted, counted);
        ck_assert_uint_eq(f.raised, raised);
        for (size_t i = 0; i < counted; i++) {
            ck_assert_uint_eq(f.order[i], order[i]);
            uint32_t k = order[i];
            ck_assert_msg(memcmp(&f.level[k], &level[k], sizeof level[k]) == 0,
                          "trial %d: cell %u filled to %g, not %g", trial, k,
                          (double)f.level[k], (double)level[k]);
        }
        double share;
        ck_assert_int_eq(metrics_depression_share(&g, &share, &err), 0);
        ck_assert_uint_gt(counted, 0);
        ck_assert_double_eq(share, (double)raised / (double)counted);
        metrics_flow_free(&f);
        free(order);
        free(level);
        free(v);
        free(weight);
        free(ok);
    }
}
END_TEST

START_TEST(no_data_row_cuts_the_network)
{
    /* Row 50 of the plane v = y / 256 does not count: rows 49 and 51 are
     * outlets. Above, (x, y) drains y - 51 steps down to row 51; below, y
     * steps to row 0; no cell drains more than 49. */
    tf_layer_map *m = y_plane();
    for (size_t x = 0; x < DRAIN_N; x++)
        m->weight[50 * DRAIN_N + x] = 0.0f;
    tf_metrics_report r = compare_ok(m, m, NULL);
    ck_assert_uint_eq(r.cells, 9900);
    ck_assert_double_eq(r.a.channel_share, 0.0);
    double sum = 98.0 * (47.0 * 48.0 / 2.0 + 48.0 * 49.0 / 2.0);
    ck_assert_double_eq_tol(r.a.flow_path_length, sum / 9900.0 / sqrt(9900.0), 1e-12);
    map_free(m);
}
END_TEST

/* ------------------------------------------------------ box counting */

START_TEST(random_walk_contour_is_rougher_than_a_line)
{
    size_t n = 256;
    tf_layer_map *line = plane_map(n, 0.3 / 256.0, 1.0 / 256.0);
    double straight = compare_ok(line, line, NULL).a.box_dimension;
    ck_assert_double_eq_tol(straight, 1.0, 0.05);
    map_free(line);

    /* The graph of a random walk (Gaussian steps of 8 px, reflected into
     * the middle half) as the contour of v = (y - f(x)) / 2n + 0.5. */
    rng_state = 99;
    tf_layer_map *walk = map_new(n, n);
    double f = (double)n / 2.0;
    for (size_t x = 0; x < n; x++) {
        f += 8.0 * next_gaussian();
        if (f < (double)n / 4.0)
            f = (double)n / 2.0 - f;
        if (f > 3.0 * (double)n / 4.0)
            f = 1.5 * (double)n - f;
        for (size_t y = 0; y < n; y++)
            walk->value[y * n + x] = (float)(((double)y - f) / (2.0 * (double)n) + 0.5);
    }
    double rough = compare_ok(walk, walk, NULL).a.box_dimension;
    /* The graph of Brownian motion has dimension 1.5; over box sizes 2..32
     * with 8 px steps the estimate sits between that and 1. */
    ck_assert_msg(rough > 1.15 && rough < 1.6, "random-walk contour dimension %g", rough);
    map_free(walk);
}
END_TEST

/* ------------------------------------------------ normal scores */

START_TEST(normal_quantile_matches_erfc)
{
    ck_assert_double_eq(tf_normal_quantile(0.5), 0.0);
    ck_assert_double_eq_tol(tf_normal_quantile(0.975), 1.959963984540054, 1e-14);
    ck_assert_double_eq_tol(tf_normal_quantile(0.025), -1.959963984540054, 1e-14);
    ck_assert(isinf(tf_normal_quantile(0.0)) && tf_normal_quantile(0.0) < 0.0);
    ck_assert(isinf(tf_normal_quantile(1.0)) && tf_normal_quantile(1.0) > 0.0);
    ck_assert(isnan(tf_normal_quantile(-0.1)) && isnan(tf_normal_quantile(1.5)));
    ck_assert(isnan(tf_normal_quantile(NAN)));
    /* Phi(z) = erfc(-z / sqrt 2) / 2, in all three ranges of AS241. */
    static const double P[] = {1e-300, 1e-20, 1e-9, 0.001, 0.07, 0.3, 0.5001, 0.8, 0.95, 0.9999};
    for (size_t i = 0; i < sizeof P / sizeof P[0]; i++) {
        double z = tf_normal_quantile(P[i]);
        ck_assert_double_eq_tol(0.5 * erfc(-z / sqrt(2.0)) / P[i], 1.0, 1e-12);
    }
}
END_TEST

START_TEST(normal_score_correlation_is_rank_based)
{
    double x[200], y[200], z[200];
    rng_state = 5;
    for (size_t i = 0; i < 200; i++) {
        x[i] = next_gaussian();
        y[i] = exp(3.0 * x[i]); /* monotone: same ranks */
        z[i] = -x[i] * x[i] * x[i];
    }
    ck_assert_double_eq_tol(tf_normal_score_correlation(x, y, 200, NULL), 1.0, 1e-12);
    ck_assert_double_eq_tol(tf_normal_score_correlation(x, z, 200, NULL), -1.0, 1e-12);
    double c[200];
    for (size_t i = 0; i < 200; i++)
        c[i] = 0.25;
    ck_assert(isnan(tf_normal_score_correlation(x, c, 200, NULL)));
    ck_assert(isnan(tf_normal_score_correlation(x, y, 2, NULL)));

    /* Ranks 1..5 against 1, 2, 3, 5, 4: scores s_r = Phi^-1((r - 0.5) / 5). */
    double a[5] = {1, 2, 3, 4, 5}, b[5] = {1, 2, 3, 5, 4};
    double s1 = tf_normal_quantile(0.9), s2 = tf_normal_quantile(0.7);
    double expected = (s1 * s1 + s2 * s2 + 2.0 * s1 * s2) / (2.0 * (s1 * s1 + s2 * s2));
    ck_assert_double_eq_tol(tf_normal_score_correlation(a, b, 5, NULL), expected, 1e-12);
    /* Ties share their mean rank: (1, 1, 2) has scores (-s, -s, ...). */
    double t[4] = {1, 1, 2, 3}, u[4] = {1, 2, 3, 4};
    double r = tf_normal_score_correlation(t, u, 4, NULL);
    ck_assert(r > 0.9 && r < 1.0);
}
END_TEST

/* Detail whose amplitude grows (sign > 0) or shrinks with the low-pass
 * elevation, a ramp along x. */
static tf_layer_map *graded_roughness_map(size_t n, double sign)
{
    rng_state = 17;
    tf_layer_map *m = map_new(n, n);
    for (size_t y = 0; y < n; y++)
        for (size_t x = 0; x < n; x++) {
            double t = (double)x / (double)(n - 1);
            double amplitude = 0.002 + 0.1 * (sign > 0 ? t : 1.0 - t);
            m->value[y * n + x] = (float)(0.2 + 0.5 * t + amplitude * (next_unit() - 0.5));
        }
    return m;
}

START_TEST(roughness_and_slope_follow_elevation)
{
    tf_layer_map *up = graded_roughness_map(96, 1.0), *down = graded_roughness_map(96, -1.0);
    tf_metrics_report r = compare_ok(up, down, NULL);
    ck_assert_double_gt(r.a.roughness_elevation, 0.8);
    ck_assert_double_lt(r.b.roughness_elevation, -0.8);
    ck_assert_double_gt(r.a.slope_elevation, 0.5);
    ck_assert_double_lt(r.b.slope_elevation, -0.5);
    map_free(up);
    map_free(down);
}
END_TEST

/* ------------------------------------------------------------ errors */

START_TEST(bad_inputs_are_refused)
{
    tf_layer_map *a = map_new(32, 32), *b = map_new(32, 24), *tiny = map_new(4, 4);
    tf_metrics_report r;
    memset(&r, 0x5A, sizeof r);
    tf_metrics_report before = r;
    tf_error err = {0};
    ck_assert_int_eq(tf_metrics_compute(a, b, NULL, &r, &err), -1);
    ck_assert_ptr_nonnull(strstr(err.message, "32x32"));
    ck_assert_ptr_nonnull(strstr(err.message, "32x24"));
    ck_assert_int_eq(memcmp(&r, &before, sizeof r), 0);

    ck_assert_int_eq(tf_metrics_compute(tiny, tiny, NULL, &r, &err), -1);
    ck_assert_ptr_nonnull(strstr(err.message, "4x4"));

    tf_metrics_options o = tf_metrics_options_default();
    o.height_scale = 0.0;
    ck_assert_int_eq(tf_metrics_compute(a, a, &o, &r, &err), -1);
    o.height_scale = NAN;
    ck_assert_int_eq(tf_metrics_compute(a, a, &o, &r, &err), -1);
    o.height_scale = 1e7; /* slopes would overflow single precision */
    ck_assert_int_eq(tf_metrics_compute(a, a, &o, &r, &err), -1);
    o = tf_metrics_options_default();
    o.lowpass_radius = 0;
    ck_assert_int_eq(tf_metrics_compute(a, a, &o, &r, &err), -1);

    for (size_t k = 0; k < 32 * 32; k++)
        a->weight[k] = k % 2 ? 0.0f : 1.0f;
    tf_layer_map *c = map_new(32, 32);
    for (size_t k = 0; k < 32 * 32; k++)
        c->weight[k] = k % 2 ? 1.0f : 0.0f;
    ck_assert_int_eq(tf_metrics_compute(a, c, NULL, &r, &err), -1);
    ck_assert_ptr_nonnull(strstr(err.message, "no cell"));
    ck_assert_int_eq(memcmp(&r, &before, sizeof r), 0);

    /* Non-finite values do not count and never reach a statistic. */
    c->value[0] = NAN;
    c->weight[0] = 1.0f;
    a->weight[0] = 1.0f;
    c->weight[2] = 1.0f;
    ck_assert_int_eq(tf_metrics_compute(a, c, NULL, &r, &err), 0);
    ck_assert_uint_eq(r.cells, 1);
    ck_assert_int_eq(tf_metrics_compute(NULL, c, NULL, &r, &err), -1);
    map_free(a);
    map_free(b);
    map_free(c);
    map_free(tiny);
}
END_TEST

/* Bitwise equality of two doubles, NaN equal to NaN. */
static int same_bits(double x, double y)
{
    return memcmp(&x, &y, sizeof x) == 0;
}

#define SAME(field) ck_assert_msg(same_bits(got.field, want.field), "%s: %.17g != %.17g", #field, \
                                  got.field, want.field)

/* The fitter's scorer (one reference measured once, many maps) reports what
 * tf_metrics_compute reports, bit for bit, on every figure it measures;
 * the per-map drainage figures it skips are NaN; a map with a cell that
 * does not count where the reference's does falls back to
 * tf_metrics_compute whole. */
START_TEST(scorer_matches_compute)
{
    const size_t w = 96, h = 80;
    tf_layer_map *ref = noise_map(w, h, 11, 0.045);
    for (size_t k = 0; k < w * h; k++)
        if ((k / w) % 17 == 3 && k % w > 20) /* rows of no data */
            ref->weight[k] = 0.0f;
    tf_error err = {0};
    metrics_scorer *sc = metrics_scorer_new(ref, NULL, &err);
    ck_assert_msg(sc != NULL, "%s", err.message);
    for (uint32_t seed = 1; seed <= 4; seed++) {
        tf_layer_map *b = noise_map(w, h, seed, 0.02 * seed);
        tf_metrics_report got, want;
        ck_assert_int_eq(metrics_scorer_compare(sc, b, &got, &err), 0);
        ck_assert_int_eq(tf_metrics_compute(ref, b, NULL, &want, &err), 0);
        ck_assert_uint_eq(got.cells, want.cells);
        SAME(histogram_chi2);
        SAME(spectrum_log_rms);
        SAME(slope_chi2);
        SAME(slope_range);
        SAME(a.spectral_slope);
        SAME(a.depression_share);
        SAME(a.channel_share);
        SAME(a.roughness_elevation);
        SAME(b.spectral_slope);
        SAME(b.slope_mean);
        SAME(b.slope_rate);
        SAME(b.slope_evenness);
        SAME(b.box_dimension);
        SAME(b.peak_density);
        SAME(b.pit_peak_ratio);
        SAME(b.depression_share);
        ck_assert(isnan(got.b.channel_share) && isnan(got.b.flow_path_length));
        ck_assert(isnan(got.b.roughness_elevation) && isnan(got.b.slope_elevation));
        size_t counted = got.cells;
        /* a NaN where the reference counts: the whole comparison */
        b->value[5 * w + 7] = NAN;
        ck_assert_int_eq(metrics_scorer_compare(sc, b, &got, &err), 0);
        ck_assert_int_eq(tf_metrics_compute(ref, b, NULL, &want, &err), 0);
        ck_assert_uint_eq(got.cells, want.cells);
        ck_assert_uint_eq(got.cells, counted - 1);
        SAME(histogram_chi2);
        SAME(b.channel_share);
        SAME(b.flow_path_length);
        map_free(b);
    }
    tf_layer_map *other = map_new(w, h - 1);
    tf_metrics_report r;
    ck_assert_int_eq(metrics_scorer_compare(sc, other, &r, &err), -1);
    ck_assert_ptr_nonnull(strstr(err.message, "96x79"));
    map_free(other);
    metrics_scorer_free(sc);
    map_free(ref);
}
END_TEST

static Suite *metrics_suite(void)
{
    Suite *s = suite_create("metrics");
    TCase *known = tcase_create("known answers");
    tcase_set_timeout(known, 120);
    tcase_add_test(known, identical_maps_are_at_distance_zero);
    tcase_add_test(known, histogram_chi2_has_the_thesis_values);
    tcase_add_test(known, only_cells_present_in_both_count);
    tcase_add_loop_test(known, power_law_spectrum_gives_its_beta, 0,
                        (int)(sizeof BETAS / sizeof BETAS[0]));
    tcase_add_test(known, spectrum_distance_sees_shape_not_amplitude);
    tcase_add_test(known, plane_has_constant_slope_and_no_relief);
    tcase_add_test(known, slope_histograms_of_different_planes_are_disjoint);
    tcase_add_test(known, slope_evenness_has_its_known_values);
    tcase_add_test(known, flat_map_leaves_undefined_values_undefined);
    tcase_add_test(known, bowl_is_one_closed_depression);
    tcase_add_test(known, egg_crate_has_known_extrema);
    tcase_add_test(known, tilted_plane_drains_straight_to_the_low_border);
    tcase_add_test(known, v_valley_has_one_channel_along_its_floor);
    tcase_add_test(known, filled_depression_drains_like_the_plane_it_was_cut_into);
    tcase_add_test(known, no_data_row_cuts_the_network);
    tcase_add_test(known, flood_visits_cells_in_level_then_queue_order);
    tcase_add_test(known, random_walk_contour_is_rougher_than_a_line);
    tcase_add_test(known, normal_quantile_matches_erfc);
    tcase_add_test(known, normal_score_correlation_is_rank_based);
    tcase_add_test(known, roughness_and_slope_follow_elevation);
    tcase_add_test(known, bad_inputs_are_refused);
    tcase_add_test(known, scorer_matches_compute);
    suite_add_tcase(s, known);
    return s;
}

int main(void)
{
    SRunner *runner = srunner_create(metrics_suite());
    srunner_run_all(runner, CK_ENV);
    int failed = srunner_ntests_failed(runner);
    srunner_free(runner);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
