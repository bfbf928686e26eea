/*
 * Check suite for fitting (lib/analysis/fit.c, equalize.c, masks.c,
 * noise_sample.c) on references whose truth is known: specs rendered with a
 * known frequency, curve and mask are fitted back and compared.
 */
#include <check.h>
#include <cjson/cJSON.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "terrafit/terrafit.h"
#include "testutil.h"

/* The known redistribution of the rendered references: skewed, with a
 * steep middle and flat ends, so a poor fit shows in the histogram. */
static const tf_point TRUE_CURVE[] = {
    {0.2, 0.0}, {0.4, 0.15}, {0.48, 0.3}, {0.55, 0.7}, {0.65, 0.85}, {0.8, 1.0},
};
#define TRUE_CURVE_COUNT (sizeof TRUE_CURVE / sizeof TRUE_CURVE[0])

/* A one-layer spec's heights RD(u) in [0, 1] on a side x side grid at the
 * origin: a fully visible reference layer. */
static tf_layer_map *render_reference(size_t side, double frequency, uint32_t seed)
{
    tf_error err;
    tf_spec *spec = tf_spec_new(1, &err);
    ck_assert_msg(spec != NULL, "%s", err.message);
    tf_spec_reseed(spec, seed);
    spec->layers[0].frequency = frequency;
    spec->min_value = 0.0;
    spec->max_value = 1.0;
    ck_assert_int_eq(tf_spec_set_rd_points(spec, 0, TRUE_CURVE, TRUE_CURVE_COUNT, &err), 0);
    tf_terrain *t = tf_terrain_compile(spec, &err);
    ck_assert_msg(t != NULL, "%s", err.message);
    tf_layer_map *map = tf_layer_map_new(side, side, &err);
    ck_assert_msg(map != NULL, "%s", err.message);
    ck_assert_int_eq(
        tf_render_grid(t, 0.0, 0.0, 1.0, side, side, 0, map->value, NULL, NULL, &err), 0);
    for (size_t k = 0; k < side * side; k++)
        map->weight[k] = 1.0f;
    tf_terrain_free(t);
    tf_spec_free(spec);
    return map;
}

static double smoothstep(double s)
{
    return (s * s) * (3.0 - (2.0 * s));
}

/* Make `upper` present only where `lower` is present and lies in [lo, hi],
 * fading to 0 over `falloff` outside it (the runtime's smoothstep edge;
 * 0: hard). */
static void mask_by(tf_layer_map *upper, const tf_layer_map *lower, double lo, double hi,
                    double falloff)
{
    size_t n = upper->width * upper->height;
    for (size_t k = 0; k < n; k++) {
        double v = lower->value[k];
        double w;
        if (!(lower->weight[k] > 0.0f))
            w = 0.0;
        else if (v >= lo && v <= hi)
            w = 1.0;
        else {
            double d = v < lo ? lo - v : v - hi;
            w = d >= falloff ? 0.0 : smoothstep(1.0 - d / falloff);
        }
        double r = upper->value[k];
        upper->weight[k] = (float)w;
        upper->value[k] = (float)(0.5 + (r - 0.5) * w); /* thesis 5.3: alpha as distance */
    }
}

static tf_spec *fit_ok(tf_layer_map **layers, size_t count, const tf_fit_options *opt,
                       tf_fit_report *report)
{
    tf_error err;
    tf_spec *spec = NULL;
    int rc = tf_fit((const tf_layer_map *const *)layers, count, opt, &spec, report, NULL, NULL,
                    &err);
    ck_assert_msg(rc == 0, "tf_fit failed: %s", err.message);
    ck_assert_ptr_nonnull(spec);
    ck_assert_int_eq(tf_spec_validate(spec, &err), 0);
    return spec;
}

/* ------------------------------------------------------- the noise sample */

static uint64_t lcg_state;
static double uniform01(void)
{
    lcg_state = lcg_state * 6364136223846793005ull + 1442695040888963407ull;
    return (double)(lcg_state >> 11) * 0x1p-53;
}

static int compare_doubles(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* The sample's quantiles agree with an independent sample taken at random
 * points, other seeds and other places: the grid design is unbiased. */
START_TEST(noise_sample_is_unbiased)
{
    tf_noise_type noise = (tf_noise_type)_i;
    int in_unit = noise == TF_NOISE_SIMPLEX || noise == TF_NOISE_PERLIN_REFERENCE_SIMPLEX ||
                  noise == TF_NOISE_VALUE || noise == TF_NOISE_EXPONENTIAL_PERLIN;
    enum { N = 1 << 16, P = 99 };
    double *independent = malloc(N * sizeof *independent);
    lcg_state = 1234 + (uint64_t)_i;
    for (size_t k = 0; k < N; k++) {
        double x = (uniform01() - 0.5) * 2e6, y = (uniform01() - 0.5) * 2e6;
        uint32_t seed = (uint32_t)(uniform01() * 4294967295.0);
        double z = uniform01() * 1000.0;
        independent[k] = (tf_noise_eval_gradient(noise, seed, x, y, z, NULL, NULL) + 1.0) * 0.5;
    }
    qsort(independent, N, sizeof *independent, compare_doubles);
    double p[P], q[P];
    for (int k = 0; k < P; k++)
        p[k] = (k + 1) / 100.0;
    tf_error err;
    ck_assert_int_eq(tf_noise_unit_quantiles(noise, p, P, q, &err), 0);
    /* Compare in probability: where does each sample quantile fall in the
     * independent sample's CDF? Its standard error at N = 2^16 is at most
     * 0.002 (for independent draws), so 0.006 is three sigma. */
    double worst = 0.0;
    for (int k = 0; k < P; k++) {
        size_t lo = 0, hi = N;
        while (lo < hi) {
            size_t mid = lo + (hi - lo) / 2;
            if (independent[mid] < q[k])
                lo = mid + 1;
            else
                hi = mid;
        }
        double cdf = (double)lo / N;
        if (fabs(cdf - p[k]) > worst)
            worst = fabs(cdf - p[k]);
        if (k > 0)
            ck_assert(q[k] >= q[k - 1]);
        /* u is in [0, 1] for the noises in [-1, 1] (docs/noise.md gives
         * the others' ranges: perlin's and polynomial's reach a little
         * past 1 in theory, the cellular ones are distances) */
        if (in_unit)
            ck_assert(q[k] >= 0.0 && q[k] <= 1.0);
    }
    ck_assert_msg(worst < 0.006, "%s: quantiles off by %g in probability",
                  tf_noise_type_name(noise), worst);
    /* The ends are the sample's extremes, inside the noise's [0, 1]. */
    double ends[2] = {0.0, 1.0}, qe[2];
    ck_assert_int_eq(tf_noise_unit_quantiles(noise, ends, 2, qe, &err), 0);
    ck_assert(qe[0] < q[0] && qe[1] > q[P - 1]);
    if (in_unit)
        ck_assert(qe[0] > 0.0 && qe[1] < 1.0);
    free(independent);
}
END_TEST

START_TEST(noise_quantiles_reject_bad_probability)
{
    tf_error err;
    double p = 1.5, q;
    ck_assert_int_eq(tf_noise_unit_quantiles(TF_NOISE_SIMPLEX, &p, 1, &q, &err), -1);
    ck_assert_int_eq(err.code, TF_ERR_ARGUMENT);
    p = NAN;
    ck_assert_int_eq(tf_noise_unit_quantiles(TF_NOISE_SIMPLEX, &p, 1, &q, &err), -1);
    ck_assert_int_eq(tf_noise_unit_quantiles((tf_noise_type)7, &p, 1, &q, &err), -1);
}
END_TEST

/* -------------------------------------------------------- equalization */

START_TEST(equalized_points_pair_quantiles)
{
    enum { N = 1000 };
    float sorted[N];
    for (int k = 0; k < N; k++)
        sorted[k] = (float)(k / 999.0) * (float)(k / 999.0); /* skewed to 0 */
    tf_point pts[16];
    size_t count = 0;
    tf_error err;
    ck_assert_int_eq(tf_equalized_points(sorted, N, TF_NOISE_SIMPLEX, 16, pts, &count, &err), 0);
    ck_assert_uint_eq(count, 16);
    ck_assert_double_eq(pts[0].y, 0.0);
    ck_assert_double_eq(pts[15].y, 1.0);
    double p[16], q[16];
    for (int k = 0; k < 16; k++)
        p[k] = k / 15.0;
    ck_assert_int_eq(tf_noise_unit_quantiles(TF_NOISE_SIMPLEX, p, 16, q, &err), 0);
    for (int k = 0; k < 16; k++) {
        ck_assert_double_eq(pts[k].x, q[k]);
        ck_assert_double_eq(pts[k].y, tf_quantile_sorted(sorted, N, p[k]));
        if (k > 0) {
            ck_assert(pts[k].x > pts[k - 1].x);
            ck_assert(pts[k].y >= pts[k - 1].y);
        }
    }
    /* The curve these points make is a valid one. */
    tf_curve *c = tf_curve_new(pts, count, TF_INTERP_MONOTONE_CUBIC, &err);
    ck_assert_msg(c != NULL, "%s", err.message);
    tf_curve_free(c);
}
END_TEST

START_TEST(equalized_points_limits)
{
    float v[3] = {0.1f, 0.2f, 0.3f};
    tf_point pts[TF_FIT_MAX_POINTS + 1];
    size_t count;
    tf_error err;
    ck_assert_int_eq(tf_equalized_points(v, 3, TF_NOISE_SIMPLEX, 1, pts, &count, &err), -1);
    ck_assert_int_eq(err.code, TF_ERR_LIMIT);
    ck_assert_int_eq(
        tf_equalized_points(v, 3, TF_NOISE_SIMPLEX, TF_FIT_MAX_POINTS + 1, pts, &count, &err), -1);
    ck_assert_int_eq(err.code, TF_ERR_LIMIT);
    ck_assert_int_eq(tf_equalized_points(v, 0, TF_NOISE_SIMPLEX, 4, pts, &count, &err), -1);
    /* The largest K still gives strictly increasing x. */
    ck_assert_int_eq(
        tf_equalized_points(v, 3, TF_NOISE_SIMPLEX, TF_FIT_MAX_POINTS, pts, &count, &err), 0);
    ck_assert_uint_eq(count, TF_FIT_MAX_POINTS);
    for (size_t k = 1; k < count; k++)
        ck_assert(pts[k].x > pts[k - 1].x && pts[k].y >= pts[k - 1].y);
}
END_TEST

/* ------------------------------------------- fidelity on known references */

/* Thesis Table 3: chi-square of reference vs synthesized histograms (32
 * bins), here on a synthesis window 10^5 units away from the fitting one.
 * The bounds, the fitting's targets: 0.01 at K = 64, 0.02 at K = 16. */
static const struct {
    size_t points;
    double max_chi2;
    tf_noise_type noise; /* of the fit; the reference is simplex */
} CHI2_CASES[] = {
    {64, 0.01, TF_NOISE_SIMPLEX},
    {16, 0.02, TF_NOISE_SIMPLEX},
    /* The reference noise spans only u in [0.33, 0.66]: the curve must be
     * equalized on its own distribution, not on simplex's. */
    {64, 0.01, TF_NOISE_PERLIN_REFERENCE_SIMPLEX},
};

START_TEST(chi2_of_synthesized_layer)
{
    tf_layer_map *ref = render_reference(1024, 1.0 / 24.0, 7);
    tf_fit_options opt;
    tf_fit_options_init(&opt);
    opt.layers = 1; /* the thesis's one layer per reference */
    opt.points = CHI2_CASES[_i].points;
    opt.noise = CHI2_CASES[_i].noise;
    tf_fit_report report;
    tf_spec *spec = fit_ok(&ref, 1, &opt, &report);
    double chi2 = report.layers[0].chi2;
    fprintf(stderr, "# %s, K = %zu: chi2 %.5f (bound %.2f), frequency %.5f (rendered %.5f)\n",
            tf_noise_type_name(opt.noise), opt.points, chi2, CHI2_CASES[_i].max_chi2,
            spec->layers[0].frequency, 1.0 / 24.0);
    ck_assert_msg(chi2 <= CHI2_CASES[_i].max_chi2, "K = %zu: chi2 %g > %g", opt.points, chi2,
                  CHI2_CASES[_i].max_chi2);
    ck_assert_uint_eq(spec->layers[0].rd_point_count, opt.points);
    ck_assert_int_eq(spec->layers[0].rd_interpolation, TF_INTERP_MONOTONE_CUBIC);
    ck_assert_int_eq(spec->layers[0].noise_type, opt.noise);
    /* The fitted curve's ends are the reference's extremes. */
    ck_assert_double_eq(spec->layers[0].rd_points[0].y, report.layers[0].value_min);
    ck_assert_double_eq(spec->layers[0].rd_points[opt.points - 1].y, report.layers[0].value_max);
    /* The base frequency is the rendered one (the estimators' own accuracy
     * is tested in check_frequency; here: the fit uses it). */
    double f = spec->layers[0].frequency;
    if (opt.noise == TF_NOISE_SIMPLEX) /* another noise has other feature sizes */
        ck_assert_msg(fabs(f * 24.0 - 1.0) < 0.05, "frequency %g, rendered 1/24", f);
    ck_assert_double_eq(f, report.layers[0].frequency.chosen);
    tf_fit_report_free(&report);
    tf_spec_free(spec);
    tf_layer_map_free(ref);
}
END_TEST

/* The equalization is what matters: an identity curve (K = 2 over the
 * noise's extremes) is far off the skewed reference; K = 64 is close. */
START_TEST(more_points_fit_better)
{
    tf_layer_map *ref = render_reference(256, 1.0 / 8.0, 3);
    tf_fit_options opt;
    tf_fit_options_init(&opt);
    opt.layers = 1; /* the thesis's one layer per reference */
    double chi2[3];
    size_t ks[3] = {2, 8, 64};
    for (int k = 0; k < 3; k++) {
        opt.points = ks[k];
        tf_fit_report report;
        tf_spec *spec = fit_ok(&ref, 1, &opt, &report);
        chi2[k] = report.layers[0].chi2;
        tf_fit_report_free(&report);
        tf_spec_free(spec);
    }
    ck_assert_msg(chi2[0] > chi2[1] && chi2[1] > chi2[2], "chi2 %g, %g, %g", chi2[0], chi2[1],
                  chi2[2]);
    ck_assert_msg(chi2[0] > 0.05, "K = 2: chi2 %g", chi2[0]);
    tf_layer_map_free(ref);
}
END_TEST

/* -------------------------------------------------------------- masks */

/* Thesis 5.4.2 / Figures 21-22: layer 1 present only where layer 0 is in
 * [0.6, 0.9]; with a hard edge (falloff 0) and with a smooth one; and a
 * layer whose edge is so wide that it is faintly present everywhere. */
static const struct {
    double lo, hi, falloff;
} MASK_CASES[] = {{0.6, 0.9, 0.0}, {0.6, 0.9, 0.08}, {0.4, 0.6, 0.5}};

START_TEST(mask_is_found)
{
    double lo = MASK_CASES[_i].lo, hi = MASK_CASES[_i].hi, falloff = MASK_CASES[_i].falloff;
    tf_layer_map *layers[2] = {render_reference(512, 1.0 / 32.0, 1),
                               render_reference(512, 1.0 / 8.0, 2)};
    mask_by(layers[1], layers[0], lo, hi, falloff);
    tf_fit_options opt;
    tf_fit_options_init(&opt);
    opt.layers = 1; /* the thesis's one layer per reference */
    tf_fit_report report;
    tf_spec *spec = fit_ok(layers, 2, &opt, &report);
    const tf_layer_spec *l1 = &spec->layers[1];
    fprintf(stderr, "# falloff %.2f: mask %d [%.4f, %.4f] falloff %.4f\n", falloff,
            l1->mask_layer_index, l1->mask_min_value, l1->mask_max_value, l1->mask_falloff);
    ck_assert_int_eq(spec->layers[0].mask_layer_index, -1);
    ck_assert_int_eq(l1->mask_layer_index, 0);
    ck_assert_msg(fabs(l1->mask_min_value - lo) <= 0.02, "min %g", l1->mask_min_value);
    ck_assert_msg(fabs(l1->mask_max_value - hi) <= 0.02, "max %g", l1->mask_max_value);
    ck_assert_msg(fabs(l1->mask_falloff - falloff) <= 0.01 + 0.05 * falloff,
                  "falloff %g, made with %g", l1->mask_falloff, falloff);
    /* The report agrees with the spec and explains the choice. */
    ck_assert_uint_eq(report.layers[1].candidate_count, 1);
    const tf_fit_mask_candidate *c = &report.layers[1].candidates[0];
    ck_assert(c->considered && c->masks && c->cut_below && c->cut_above);
    ck_assert_double_eq(c->mask_min, l1->mask_min_value);
    ck_assert_msg(c->agreement > 0.95, "agreement %g", c->agreement);
    ck_assert_ptr_nonnull(strstr(report.layers[1].mask_reason, "masked by layer 0"));
    ck_assert_ptr_nonnull(strstr(report.layers[0].mask_reason, "bottom layer"));
    tf_fit_report_free(&report);
    tf_spec_free(spec);
    tf_layer_map_free(layers[0]);
    tf_layer_map_free(layers[1]);
}
END_TEST

/* Of two lower layers that both bound the top one, the one that explains
 * where it is present wins; a layer cut on one side only keeps the other
 * end of the range; a fully opaque layer is never masked. */
START_TEST(mask_picks_the_explaining_layer)
{
    tf_layer_map *layers[4] = {render_reference(256, 1.0 / 16.0, 4),
                               render_reference(256, 1.0 / 12.0, 5),
                               render_reference(256, 1.0 / 6.0, 6),
                               render_reference(256, 1.0 / 5.0, 8)};
    mask_by(layers[1], layers[0], 0.0, 0.5, 0.0); /* layer 1: where layer 0 <= 0.5 */
    mask_by(layers[2], layers[1], 0.3, 1.0, 0.0); /* layer 2: where layer 1 >= 0.3 */
    /* layer 3 stays fully opaque */
    tf_fit_options opt;
    tf_fit_options_init(&opt);
    opt.layers = 1; /* the thesis's one layer per reference */
    tf_fit_report report;
    tf_spec *spec = fit_ok(layers, 4, &opt, &report);
    ck_assert_int_eq(spec->layers[1].mask_layer_index, 0);
    ck_assert_double_eq(spec->layers[1].mask_min_value, report.layers[0].value_min);
    ck_assert(fabs(spec->layers[1].mask_max_value - 0.5) <= 0.02);
    /* Layer 2 lies where layer 1 >= 0.3 and, through layer 1, where layer 0
     * <= 0.5: both bound it, but layer 1 explains it. */
    ck_assert_int_eq(spec->layers[2].mask_layer_index, 1);
    ck_assert(fabs(spec->layers[2].mask_min_value - 0.3) <= 0.02);
    ck_assert_double_eq(spec->layers[2].mask_max_value, report.layers[1].value_max);
    ck_assert(report.layers[2].candidates[0].masks);
    ck_assert(report.layers[2].candidates[0].agreement < report.layers[2].candidates[1].agreement);
    ck_assert_int_eq(spec->layers[3].mask_layer_index, -1);
    ck_assert(report.layers[3].opaque);
    ck_assert_ptr_nonnull(strstr(report.layers[3].mask_reason, "every cell"));
    tf_fit_report_free(&report);
    tf_spec_free(spec);
    for (int i = 0; i < 4; i++)
        tf_layer_map_free(layers[i]);
}
END_TEST

/* A partial layer whose presence has nothing to do with the layer below
 * (a disc) is left unmasked. */
START_TEST(unrelated_presence_is_not_a_mask)
{
    tf_layer_map *layers[2] = {render_reference(256, 1.0 / 6.0, 9),
                               render_reference(256, 1.0 / 10.0, 10)};
    for (size_t y = 0; y < 256; y++)
        for (size_t x = 0; x < 256; x++) {
            double dx = (double)x - 128, dy = (double)y - 128;
            if (dx * dx + dy * dy > 100.0 * 100.0) {
                layers[1]->weight[y * 256 + x] = 0.0f;
                layers[1]->value[y * 256 + x] = 0.5f;
            }
        }
    tf_fit_options opt;
    tf_fit_options_init(&opt);
    opt.layers = 1; /* the thesis's one layer per reference */
    tf_fit_report report;
    tf_spec *spec = fit_ok(layers, 2, &opt, &report);
    ck_assert_msg(spec->layers[1].mask_layer_index == -1, "%s", report.layers[1].mask_reason);
    ck_assert(report.layers[1].candidates[0].considered);
    ck_assert(!report.layers[1].candidates[0].masks);
    tf_fit_report_free(&report);
    tf_spec_free(spec);
    tf_layer_map_free(layers[0]);
    tf_layer_map_free(layers[1]);
}
END_TEST

/* --------------------------------------------------- the spec as a whole */

START_TEST(fit_is_deterministic)
{
    tf_layer_map *layers[2] = {render_reference(256, 1.0 / 16.0, 11),
                               render_reference(256, 1.0 / 7.0, 12)};
    mask_by(layers[1], layers[0], 0.2, 0.7, 0.05);
    tf_fit_options opt;
    tf_fit_options_init(&opt);
    opt.layers = 1; /* the thesis's one layer per reference */
    tf_error err;
    char *spec_json[3], *report_json[3];
    for (int run = 0; run < 3; run++) {
        opt.threads = run == 2 ? 1 : 0; /* the schedule must not matter */
        tf_fit_report report;
        tf_spec *spec = fit_ok(layers, 2, &opt, &report);
        spec_json[run] = tf_spec_to_json(spec, &err);
        report_json[run] = tf_fit_report_to_json(&report, 0, &err);
        ck_assert(spec_json[run] && report_json[run]);
        tf_fit_report_free(&report);
        tf_spec_free(spec);
    }
    for (int run = 1; run < 3; run++) {
        ck_assert_str_eq(spec_json[run], spec_json[0]);
        ck_assert_str_eq(report_json[run], report_json[0]);
    }
    ck_assert_ptr_null(strstr(report_json[0], "seconds"));
    for (int run = 0; run < 3; run++) {
        free(spec_json[run]);
        free(report_json[run]);
    }
    tf_layer_map_free(layers[0]);
    tf_layer_map_free(layers[1]);
}
END_TEST

typedef struct {
    size_t calls, last_done, last_total;
    int backwards;
} progress_log;

static void record_progress(void *user, size_t done, size_t total)
{
    progress_log *log = user;
    if (log->calls && (done < log->last_done || total != log->last_total))
        log->backwards = 1;
    log->calls++;
    log->last_done = done;
    log->last_total = total;
}

/* Progress goes forward and ends with done == total. */
START_TEST(progress_reaches_the_end)
{
    tf_layer_map *layers[3] = {render_reference(64, 1.0 / 8.0, 21),
                               render_reference(64, 1.0 / 5.0, 22),
                               render_reference(64, 1.0 / 4.0, 23)};
    tf_fit_options opt;
    tf_fit_options_init(&opt);
    opt.layers = 1; /* the thesis's one layer per reference */
    progress_log log = {0, 0, 0, 0};
    tf_spec *spec = NULL;
    tf_error err;
    ck_assert_int_eq(tf_fit((const tf_layer_map *const *)layers, 3, &opt, &spec, NULL,
                            record_progress, &log, &err),
                     0);
    ck_assert_uint_ge(log.calls, 2);
    ck_assert(!log.backwards);
    ck_assert_uint_gt(log.last_total, 0);
    ck_assert_uint_eq(log.last_done, log.last_total);
    tf_spec_free(spec);
    for (int i = 0; i < 3; i++)
        tf_layer_map_free(layers[i]);
}
END_TEST

/* The written spec reads back, renders, and its layers sum to the combined
 * reference's offsets: shift -0.5, scale 1, range of sum(value - 0.5). */
START_TEST(fitted_spec_renders)
{
    tf_layer_map *layers[2] = {render_reference(128, 1.0 / 10.0, 13),
                               render_reference(128, 1.0 / 5.0, 14)};
    mask_by(layers[1], layers[0], 0.5, 1.0, 0.0);
    tf_fit_options opt;
    tf_fit_options_init(&opt);
    opt.layers = 1; /* the thesis's one layer per reference */
    opt.seed = 99;
    opt.points = 16;
    tf_fit_report report;
    tf_spec *spec = fit_ok(layers, 2, &opt, &report);
    double lo = HUGE_VAL, hi = -HUGE_VAL;
    for (size_t k = 0; k < 128 * 128; k++) {
        double sum = 0.0;
        for (int i = 0; i < 2; i++)
            if (layers[i]->weight[k] > 0.0f)
                sum += (double)layers[i]->value[k] - 0.5;
        lo = sum < lo ? sum : lo;
        hi = sum > hi ? sum : hi;
    }
    ck_assert_double_eq(spec->min_value, lo);
    ck_assert_double_eq(spec->max_value, hi);
    ck_assert_uint_eq(spec->seed, 99);
    tf_spec *reseeded = tf_spec_new(2, NULL);
    tf_spec_reseed(reseeded, 99);
    for (int i = 0; i < 2; i++) {
        ck_assert_double_eq(spec->layers[i].pre_amp_shift, -0.5);
        ck_assert_double_eq(spec->layers[i].amp_scale, 1.0);
        ck_assert_int_eq(spec->layers[i].noise_type, TF_NOISE_SIMPLEX);
        ck_assert_uint_eq(spec->layers[i].seed, reseeded->layers[i].seed);
        ck_assert_double_eq(spec->layers[i].offset[0], reseeded->layers[i].offset[0]);
    }
    ck_assert_uint_ne(spec->layers[0].seed, spec->layers[1].seed);
    tf_spec_free(reseeded);

    tf_error err;
    char *json = tf_spec_to_json(spec, &err);
    ck_assert_msg(json != NULL, "%s", err.message);
    tf_terrain *t = tf_terrain_parse(json, strlen(json), &err);
    ck_assert_msg(t != NULL, "%s", err.message);
    float h[64 * 64];
    tf_terrain_sample_grid(t, 0.0, 0.0, 1.0, 64, 64, h);
    double hmin = HUGE_VAL, hmax = -HUGE_VAL;
    for (int k = 0; k < 64 * 64; k++) {
        ck_assert(isfinite(h[k]));
        hmin = h[k] < hmin ? h[k] : hmin;
        hmax = h[k] > hmax ? h[k] : hmax;
    }
    ck_assert_msg(hmax > hmin, "a flat render");
    /* Each layer stays within its curve's y range (a masked one may also
     * be 0), so the sum stays within the range those bounds give. */
    const tf_layer_spec *l0 = &spec->layers[0], *l1 = &spec->layers[1];
    double lo0 = l0->rd_points[0].y - 0.5, hi0 = l0->rd_points[l0->rd_point_count - 1].y - 0.5;
    double lo1 = l1->rd_points[0].y - 0.5, hi1 = l1->rd_points[l1->rd_point_count - 1].y - 0.5;
    ck_assert_int_eq(l1->mask_layer_index, 0);
    ck_assert(hmin >= lo0 + (lo1 < 0.0 ? lo1 : 0.0) - 1e-6);
    ck_assert(hmax <= hi0 + (hi1 > 0.0 ? hi1 : 0.0) + 1e-6);
    tf_terrain_free(t);
    free(json);
    tf_fit_report_free(&report);
    tf_spec_free(spec);
    tf_layer_map_free(layers[0]);
    tf_layer_map_free(layers[1]);
}
END_TEST

/* The report is JSON with the members docs/fitting.md lists. */
START_TEST(report_json_has_the_decisions)
{
    tf_layer_map *layers[2] = {render_reference(128, 1.0 / 10.0, 15),
                               render_reference(128, 1.0 / 5.0, 16)};
    mask_by(layers[1], layers[0], 0.0, 0.4, 0.0);
    const char *names[2] = {"base.png", "detail.png"};
    tf_fit_options opt;
    tf_fit_options_init(&opt);
    opt.layers = 1; /* the thesis's one layer per reference */
    opt.names = names;
    tf_fit_report report;
    tf_spec *spec = fit_ok(layers, 2, &opt, &report);
    tf_error err;
    char *text = tf_fit_report_to_json(&report, 1, &err);
    ck_assert_msg(text != NULL, "%s", err.message);
    cJSON *root = cJSON_Parse(text);
    ck_assert_ptr_nonnull(root);
    ck_assert_str_eq(cJSON_GetObjectItem(root, "format")->valuestring, "terrafit-fit-report");
    ck_assert_double_eq(cJSON_GetObjectItem(root, "minValue")->valuedouble, spec->min_value);
    cJSON *l1 = cJSON_GetArrayItem(cJSON_GetObjectItem(root, "layers"), 1);
    ck_assert_str_eq(cJSON_GetObjectItem(l1, "source")->valuestring, "detail.png");
    cJSON *freq = cJSON_GetObjectItem(l1, "frequency");
    ck_assert(cJSON_IsNumber(cJSON_GetObjectItem(freq, "peaks")));
    ck_assert(cJSON_IsNumber(cJSON_GetObjectItem(freq, "spectrum")));
    /* The report's numbers read back exactly, as the spec's do. */
    ck_assert_double_eq(cJSON_GetObjectItem(freq, "chosen")->valuedouble,
                        spec->layers[1].frequency);
    ck_assert(cJSON_IsString(cJSON_GetObjectItem(freq, "reason")));
    cJSON *mask = cJSON_GetObjectItem(l1, "mask");
    ck_assert_int_eq(cJSON_GetObjectItem(mask, "maskLayerIndex")->valueint, 0);
    ck_assert_double_eq(cJSON_GetObjectItem(mask, "maskMaxValue")->valuedouble,
                        spec->layers[1].mask_max_value);
    ck_assert_int_eq(cJSON_GetArraySize(cJSON_GetObjectItem(mask, "candidates")), 1);
    ck_assert(cJSON_IsNumber(cJSON_GetObjectItem(l1, "chi2")));
    ck_assert(cJSON_IsNumber(cJSON_GetObjectItem(cJSON_GetObjectItem(l1, "seconds"), "frequency")));
    ck_assert(cJSON_IsNumber(cJSON_GetObjectItem(cJSON_GetObjectItem(root, "seconds"), "total")));
    cJSON_Delete(root);
    free(text);
    tf_fit_report_free(&report);
    tf_spec_free(spec);
    tf_layer_map_free(layers[0]);
    tf_layer_map_free(layers[1]);
}
END_TEST

/* ------------------------------------------------------ layer kinds */

/* A reference drawn from a layer kind: TRUE_CURVE of tf_fractal_eval (the
 * runtime's function) on a side x side grid at the origin. */
static tf_layer_map *render_kind(size_t side, double frequency, uint32_t seed, tf_noise_type noise,
                                 tf_fractal_kind kind)
{
    tf_error err;
    tf_layer_spec L;
    memset(&L, 0, sizeof L);
    L.noise_type = noise;
    L.seed = seed;
    tf_fractal_set_defaults(&L, kind);
    tf_curve *curve = tf_curve_new(TRUE_CURVE, TRUE_CURVE_COUNT, TF_INTERP_MONOTONE_CUBIC, &err);
    tf_layer_map *map = tf_layer_map_new(side, side, &err);
    ck_assert(curve && map);
    for (size_t j = 0; j < side; j++)
        for (size_t i = 0; i < side; i++) {
            double n = tf_fractal_eval(&L, (double)i * frequency + 3.5, (double)j * frequency - 7.25,
                                       0.5, NULL, NULL);
            map->value[j * side + i] = (float)tf_curve_eval(curve, (n + 1.0) * 0.5);
            map->weight[j * side + i] = 1.0f;
        }
    tf_curve_free(curve);
    return map;
}

/* The sample follows the layer's actual output: one per (noise, kind,
 * parameters), the same values when asked again. */
START_TEST(layer_sample_follows_the_kind)
{
    tf_error err;
    const double p[3] = {0.25, 0.5, 0.75};
    double base[3], fbm[3], again[3], swiss1[3], swiss2[3];
    tf_layer_spec L;
    memset(&L, 0, sizeof L);
    L.noise_type = TF_NOISE_VALUE;
    ck_assert_int_eq(tf_layer_unit_quantiles(&L, p, 3, base, &err), 0);
    tf_fractal_set_defaults(&L, TF_FRACTAL_FBM);
    ck_assert_int_eq(tf_layer_unit_quantiles(&L, p, 3, fbm, &err), 0);
    ck_assert_int_eq(tf_layer_unit_quantiles(&L, p, 3, again, &err), 0);
    ck_assert(memcmp(fbm, again, sizeof fbm) == 0);
    /* octaves average out: the fbm sum is narrower than one octave */
    ck_assert_msg(fbm[2] - fbm[0] < 0.9 * (base[2] - base[0]), "fbm IQR %g, value IQR %g",
                  fbm[2] - fbm[0], base[2] - base[0]);
    /* the plain kind is the noise's own sample */
    double plain[3];
    ck_assert_int_eq(tf_noise_unit_quantiles(TF_NOISE_VALUE, p, 3, plain, &err), 0);
    ck_assert(memcmp(plain, base, sizeof base) == 0);
    /* a parameter of the kind is part of the key */
    tf_fractal_set_defaults(&L, TF_FRACTAL_SWISS);
    L.fractal_octaves = 3;
    ck_assert_int_eq(tf_layer_unit_quantiles(&L, p, 3, swiss1, &err), 0);
    L.fractal_warp = 0.6;
    ck_assert_int_eq(tf_layer_unit_quantiles(&L, p, 3, swiss2, &err), 0);
    ck_assert(memcmp(swiss1, swiss2, sizeof swiss1) != 0);
    L.fractal_kind = (tf_fractal_kind)77;
    ck_assert_int_eq(tf_layer_unit_quantiles(&L, p, 3, swiss2, &err), -1);
    ck_assert_ptr_nonnull(strstr(err.message, "unknown fractal kind"));
}
END_TEST

/* Per-layer noise and kind go into the spec, and the curve pairs the
 * reference with the kind's own distribution. */
START_TEST(layer_kinds_are_fitted)
{
    tf_layer_map *layers[2] = {render_kind(96, 1.0 / 12.0, 3, TF_NOISE_PERLIN, TF_FRACTAL_RIDGED),
                               render_kind(96, 1.0 / 6.0, 4, TF_NOISE_SIMPLEX, TF_FRACTAL_NONE)};
    tf_fit_options opt;
    tf_fit_options_init(&opt);
    opt.points = 16;
    opt.layer_noise[0] = TF_NOISE_PERLIN + 1;
    opt.layer_fractal[0] = TF_FRACTAL_RIDGED + 1;
    tf_fit_report report;
    tf_spec *spec = fit_ok(layers, 2, &opt, &report);
    const tf_layer_spec *L0 = &spec->layers[0], *L1 = &spec->layers[1];
    ck_assert_int_eq(L0->noise_type, TF_NOISE_PERLIN);
    ck_assert_int_eq(L0->fractal_kind, TF_FRACTAL_RIDGED);
    ck_assert_int_eq(L0->fractal_octaves, 6);
    ck_assert_int_eq(L1->noise_type, TF_NOISE_SIMPLEX);
    ck_assert_int_eq(L1->fractal_kind, TF_FRACTAL_NONE);
    ck_assert_int_eq(report.layers[0].noise, TF_NOISE_PERLIN);
    ck_assert_int_eq(report.layers[0].fractal, TF_FRACTAL_RIDGED);
    /* x_k are the ridged-perlin sample's quantiles at k / (K - 1) */
    ck_assert_uint_eq(L0->rd_point_count, 16);
    double p[16], q[16];
    for (int k = 0; k < 16; k++)
        p[k] = k / 15.0;
    tf_error err;
    ck_assert_int_eq(tf_layer_unit_quantiles(L0, p, 16, q, &err), 0);
    for (int k = 0; k < 16; k++)
        ck_assert(L0->rd_points[k].x == q[k]);
    /* the synthesized layer (through tf_fractal_eval) has the reference's
     * histogram */
    ck_assert_msg(report.layers[0].chi2 < 0.02, "chi2 %g", report.layers[0].chi2);
    /* the whole-spec kind, overridden per layer */
    tf_fit_report_free(&report);
    tf_spec_free(spec);
    opt.layer_noise[0] = opt.layer_fractal[0] = 0;
    opt.fractal = TF_FRACTAL_BILLOW;
    opt.noise = TF_NOISE_VALUE;
    opt.layer_fractal[1] = TF_FRACTAL_NONE + 1;
    spec = fit_ok(layers, 2, &opt, NULL);
    ck_assert_int_eq(spec->layers[0].fractal_kind, TF_FRACTAL_BILLOW);
    ck_assert_int_eq(spec->layers[0].noise_type, TF_NOISE_VALUE);
    ck_assert_int_eq(spec->layers[1].fractal_kind, TF_FRACTAL_NONE);
    ck_assert_int_eq(spec->layers[1].noise_type, TF_NOISE_VALUE);
    tf_spec_free(spec);
    tf_layer_map_free(layers[0]);
    tf_layer_map_free(layers[1]);
}
END_TEST

/* --noise auto: every candidate scored and listed, the lowest kept. */
START_TEST(noise_auto_keeps_the_best)
{
    tf_layer_map *layers[1] = {render_kind(96, 1.0 / 8.0, 5, TF_NOISE_CELLULAR_F1, TF_FRACTAL_NONE)};
    tf_fit_options opt;
    tf_fit_options_init(&opt);
    opt.layers = 1;
    opt.points = 32;
    opt.noise_auto = 1;
    tf_fit_report report;
    tf_spec *spec = fit_ok(layers, 1, &opt, &report);
    const tf_fit_layer_report *r = &report.layers[0];
    ck_assert_uint_eq(r->noise_candidate_count, TF_FIT_AUTO_CANDIDATES);
    size_t best = 0;
    for (size_t c = 0; c < r->noise_candidate_count; c++) {
        ck_assert_int_eq(r->noise_candidates[c].noise, tf_fit_auto_candidates[c]);
        ck_assert(isfinite(r->noise_candidates[c].score));
        if (r->noise_candidates[c].score < r->noise_candidates[best].score)
            best = c;
    }
    ck_assert_int_eq(r->noise, r->noise_candidates[best].noise);
    ck_assert_int_eq(spec->layers[0].noise_type, r->noise);
    /* the reference is cellular F1: a smooth noise cannot beat it */
    ck_assert_msg(r->noise == TF_NOISE_CELLULAR_F1, "auto chose %s", tf_noise_type_name(r->noise));
    tf_error err;
    char *text = tf_fit_report_to_json(&report, 0, &err);
    cJSON *root = cJSON_Parse(text);
    ck_assert_str_eq(cJSON_GetObjectItem(root, "noise")->valuestring, "auto");
    cJSON *cands = cJSON_GetObjectItem(cJSON_GetArrayItem(cJSON_GetObjectItem(root, "layers"), 0),
                                       "noiseCandidates");
    ck_assert_int_eq(cJSON_GetArraySize(cands), TF_FIT_AUTO_CANDIDATES);
    int chosen = 0;
    for (int c = 0; c < TF_FIT_AUTO_CANDIDATES; c++)
        chosen += cJSON_IsTrue(cJSON_GetObjectItem(cJSON_GetArrayItem(cands, c), "chosen"));
    ck_assert_int_eq(chosen, 1);
    cJSON_Delete(root);
    free(text);
    tf_fit_report_free(&report);
    tf_spec_free(spec);
    tf_layer_map_free(layers[0]);
}
END_TEST

/* ----------------------------------------------------------- bad input */

START_TEST(flat_layer_is_legal)
{
    tf_layer_map *layers[2] = {render_reference(64, 1.0 / 8.0, 17), NULL};
    tf_error err;
    layers[1] = tf_layer_map_new(64, 64, &err);
    for (size_t k = 0; k < 64 * 64; k++) {
        layers[1]->value[k] = 0.75f;
        layers[1]->weight[k] = 1.0f;
    }
    tf_fit_options opt;
    tf_fit_options_init(&opt);
    opt.layers = 1; /* the thesis's one layer per reference */
    opt.points = 8;
    tf_fit_report report;
    tf_spec *spec = fit_ok(layers, 2, &opt, &report);
    const tf_layer_spec *l = &spec->layers[1];
    ck_assert_uint_eq(l->rd_point_count, 8);
    for (size_t k = 0; k < l->rd_point_count; k++) {
        ck_assert_double_eq(l->rd_points[k].y, 0.75);
        if (k)
            ck_assert(l->rd_points[k].x > l->rd_points[k - 1].x);
    }
    ck_assert(report.layers[1].flat);
    ck_assert(!report.layers[1].frequency_estimated);
    ck_assert_double_eq(l->frequency, 1.0 / 64.0);
    ck_assert_double_eq(report.layers[1].chi2, 0.0);
    tf_fit_report_free(&report);
    tf_spec_free(spec);

    /* Alone, a flat layer still gets a range (min < max). */
    spec = fit_ok(&layers[1], 1, &opt, NULL);
    ck_assert(spec->min_value < 0.25 && spec->max_value > 0.25);
    tf_spec_free(spec);
    tf_layer_map_free(layers[0]);
    tf_layer_map_free(layers[1]);
}
END_TEST

static void expect_fit_error(tf_layer_map **layers, size_t count, const tf_fit_options *opt,
                             int code, const char *fragment)
{
    tf_error err;
    tf_spec *spec = (tf_spec *)&err; /* must come back NULL */
    tf_fit_report report;
    report.layer_count = 99;
    int rc = tf_fit((const tf_layer_map *const *)layers, count, opt, &spec, &report, NULL, NULL,
                    &err);
    ck_assert_int_eq(rc, -1);
    ck_assert_ptr_null(spec);
    ck_assert_uint_eq(report.layer_count, 0);
    ck_assert_int_eq(err.code, code);
    ck_assert_msg(strstr(err.message, fragment) != NULL, "'%s' lacks '%s'", err.message,
                  fragment);
}

START_TEST(bad_inputs_are_rejected)
{
    tf_error err;
    tf_layer_map *layers[2] = {tf_layer_map_new(32, 32, &err), tf_layer_map_new(32, 16, &err)};
    for (size_t k = 0; k < 32 * 32; k++)
        layers[0]->value[k] = (float)(k % 7) / 7.0f;
    const char *names[2] = {"a.png", "b.png"};
    tf_fit_options opt;
    tf_fit_options_init(&opt);
    opt.layers = 1; /* the thesis's one layer per reference */
    opt.names = names;
    expect_fit_error(layers, 2, &opt, TF_ERR_INVALID, "b.png: 32x16, but a.png is 32x32");

    for (size_t k = 0; k < 32 * 16; k++)
        layers[1]->weight[k] = 0.0f;
    expect_fit_error(&layers[1], 1, &opt, TF_ERR_INVALID, "no visible cell");
    opt.names = NULL;
    expect_fit_error(&layers[1], 1, &opt, TF_ERR_INVALID, "layer 0: no visible cell");

    opt.points = 1;
    expect_fit_error(layers, 1, &opt, TF_ERR_LIMIT, "2 to 4096");
    opt.points = TF_FIT_MAX_POINTS + 1;
    expect_fit_error(layers, 1, &opt, TF_ERR_LIMIT, "2 to 4096");
    opt.points = 64;
    expect_fit_error(layers, 0, &opt, TF_ERR_ARGUMENT, "no reference layer");
    opt.noise = (tf_noise_type)9;
    expect_fit_error(layers, 1, &opt, TF_ERR_ARGUMENT, "noise");
    opt.noise = TF_NOISE_SIMPLEX;
    opt.layer_noise[3] = TF_NOISE_VALUE + 1;
    expect_fit_error(layers, 1, &opt, TF_ERR_ARGUMENT, "is given for layer 3, but there is only 1");
    opt.layer_noise[3] = 0;
    opt.layer_fractal[0] = 200;
    expect_fit_error(layers, 1, &opt, TF_ERR_ARGUMENT, "unknown noise or kind code");
    opt.layer_fractal[0] = 0;
    opt.fractal = (tf_fractal_kind)42;
    expect_fit_error(layers, 1, &opt, TF_ERR_ARGUMENT, "unknown fractal kind 42");
    opt.fractal = TF_FRACTAL_NONE;
    opt.drainage_breach = TF_FIT_DRAINAGE_MAX_BREACH + 1;
    expect_fit_error(layers, 1, &opt, TF_ERR_ARGUMENT, "a drainage breach of 5 asked for");
    opt.drainage_breach = -1;
    expect_fit_error(layers, 1, &opt, TF_ERR_ARGUMENT, "a drainage breach of -1 asked for");
    opt.drainage_breach = 0;
    opt.drainage_inflow = 9;
    expect_fit_error(layers, 1, &opt, TF_ERR_ARGUMENT, "a drainage inflow of 9 asked for");
    opt.drainage_inflow = TF_FIT_DRAINAGE_INFLOW_ANY - 1;
    expect_fit_error(layers, 1, &opt, TF_ERR_ARGUMENT, "a drainage inflow of -2 asked for");
    opt.drainage_inflow = 0;
    opt.drainage_levels = TF_FIT_DRAINAGE_MAX_LEVELS + 1;
    expect_fit_error(layers, 1, &opt, TF_ERR_ARGUMENT, "5 drainage levels asked for");
    opt.drainage_levels = 0;
    /* auto-layering a DEM takes every noise and kind, --noise auto too, but
     * not for a band beyond the split (tests/check_autolayer.c covers the
     * kinds and --noise auto on bands) */
    tf_fit_options bands = opt;
    bands.layers = 2;
    bands.layer_noise[2] = TF_FIT_LAYER_NOISE_AUTO;
    for (size_t k = 0; k < 32 * 32; k++)
        layers[0]->weight[k] = 1.0f;
    expect_fit_error(layers, 1, &bands, TF_ERR_ARGUMENT, "beyond the 2 bands");
    layers[0]->value[5] = NAN;
    expect_fit_error(layers, 1, &opt, TF_ERR_INVALID, "pixel (5, 0)");
    tf_layer_map_free(layers[0]);
    tf_layer_map_free(layers[1]);
}
END_TEST

/* The caches have an owner: released between two fits, the second builds
 * the base-noise sample and the noise spectra again (an auto-layered fit
 * uses both) and gives the same spec and report. */
START_TEST(release_caches_keeps_the_fit)
{
    tf_layer_map *ref = render_reference(128, 1.0 / 12.0, 31);
    tf_fit_options opt;
    tf_fit_options_init(&opt);
    opt.layers = 3;
    tf_error err;
    char *spec_json[2], *report_json[2];
    for (int run = 0; run < 2; run++) {
        tf_fit_release_caches(); /* run 0: nothing an earlier test built */
        tf_fit_report report;
        tf_spec *spec = fit_ok(&ref, 1, &opt, &report);
        ck_assert(report.auto_layered);
        spec_json[run] = tf_spec_to_json(spec, &err);
        report_json[run] = tf_fit_report_to_json(&report, 0, &err);
        ck_assert(spec_json[run] && report_json[run]);
        tf_fit_report_free(&report);
        tf_spec_free(spec);
    }
    tf_fit_release_caches();
    tf_fit_release_caches(); /* nothing left: a second release is harmless */
    ck_assert_str_eq(spec_json[1], spec_json[0]);
    ck_assert_str_eq(report_json[1], report_json[0]);
    for (int run = 0; run < 2; run++) {
        free(spec_json[run]);
        free(report_json[run]);
    }
    tf_layer_map_free(ref);
}
END_TEST

static Suite *fit_suite(void)
{
    Suite *s = suite_create("fit");
    TCase *tc = tcase_create("noise sample");
    tcase_set_timeout(tc, 600);
    tcase_add_loop_test(tc, noise_sample_is_unbiased, 0, TF_NOISE_TYPE_COUNT);
    tcase_add_test(tc, noise_quantiles_reject_bad_probability);
    suite_add_tcase(s, tc);

    tc = tcase_create("equalize");
    tcase_set_timeout(tc, 600);
    tcase_add_test(tc, equalized_points_pair_quantiles);
    tcase_add_test(tc, equalized_points_limits);
    suite_add_tcase(s, tc);

    tc = tcase_create("fidelity");
    tcase_set_timeout(tc, 600);
    tcase_add_loop_test(tc, chi2_of_synthesized_layer, 0,
                        (int)(sizeof CHI2_CASES / sizeof CHI2_CASES[0]));
    tcase_add_test(tc, more_points_fit_better);
    suite_add_tcase(s, tc);

    tc = tcase_create("masks");
    tcase_set_timeout(tc, 600);
    tcase_add_loop_test(tc, mask_is_found, 0, (int)(sizeof MASK_CASES / sizeof MASK_CASES[0]));
    tcase_add_test(tc, mask_picks_the_explaining_layer);
    tcase_add_test(tc, unrelated_presence_is_not_a_mask);
    suite_add_tcase(s, tc);

    tc = tcase_create("spec");
    tcase_set_timeout(tc, 600);
    tcase_add_test(tc, fit_is_deterministic);
    tcase_add_test(tc, progress_reaches_the_end);
    tcase_add_test(tc, fitted_spec_renders);
    tcase_add_test(tc, report_json_has_the_decisions);
    suite_add_tcase(s, tc);

    tc = tcase_create("layer kinds");
    tcase_set_timeout(tc, 600);
    tcase_add_test(tc, layer_sample_follows_the_kind);
    tcase_add_test(tc, layer_kinds_are_fitted);
    tcase_add_test(tc, noise_auto_keeps_the_best);
    suite_add_tcase(s, tc);

    tc = tcase_create("bad input");
    tcase_set_timeout(tc, 600);
    tcase_add_test(tc, flat_layer_is_legal);
    tcase_add_test(tc, bad_inputs_are_rejected);
    suite_add_tcase(s, tc);

    tc = tcase_create("caches");
    tcase_set_timeout(tc, 600);
    tcase_add_test(tc, release_caches_keeps_the_fit);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    return tu_run_suite(fit_suite());
}
