/*
 * Check suite for auto-layering: the band decomposition (sums
 * back, masked cells), frequency matching on known noise, mask curves
 * learned on a synthetic "rough where high" reference, the output curve,
 * --layers rules and determinism, and noises and layer kinds on the bands,
 * --noise auto included; the drainage stage (chosen on valleys, not on a
 * cone, off byte-identical, deterministic).
 */
#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "terrafit/terrafit.h"
#include "testutil.h"

/* u = (n + 1) / 2 of simplex noise at frequency f on a w x h map. */
static tf_layer_map *noise_map(size_t w, size_t h, double f, uint32_t seed)
{
    tf_error err;
    tf_layer_map *m = tf_layer_map_new(w, h, &err);
    ck_assert_ptr_nonnull(m);
    for (size_t j = 0; j < h; j++)
        for (size_t i = 0; i < w; i++)
            m->value[j * w + i] =
                (float)((tf_noise_eval(TF_NOISE_SIMPLEX, seed, (double)i * f + 0.37,
                                       (double)j * f + 0.71, 0.0) +
                         1.0) *
                        0.5);
    return m;
}

START_TEST(bands_sum_back)
{
    tf_layer_map *m = noise_map(64, 48, 1.0 / 9.0, 7);
    tf_bands b;
    tf_error err;
    ck_assert_int_eq(tf_bands_decompose(m, 0, 2, &b, &err), 0);
    ck_assert_uint_eq(b.count, tf_bands_auto_count(64, 48));
    ck_assert_uint_eq(b.count, 4); /* scales 1, 2, 4 px (48 / 8 = 6) */
    ck_assert_double_eq(b.sigma[0], 1.0);
    ck_assert_double_eq(b.sigma[2], 4.0);
    double worst = 0.0, fine_rms = 0.0;
    for (size_t c = 0; c < 64 * 48; c++) {
        double s = 0.0;
        for (size_t k = 0; k < b.count; k++)
            s += b.band[k][c];
        double d = fabs(s - (double)m->value[c]);
        worst = d > worst ? d : worst;
        fine_rms += b.band[b.count - 1][c] * b.band[b.count - 1][c];
    }
    ck_assert_double_le(worst, 1e-15);
    ck_assert_double_gt(fine_rms, 0.0); /* a real decomposition, not all in band 0 */
    tf_bands_free(&b);
    tf_layer_map_free(m);
}
END_TEST

/* Masked cells: a constant map with a hole low-passes to the constant
 * (normalized convolution ignores the hole), detail bands are zero, and
 * the hole holds 0 in every band. */
START_TEST(bands_masked_cells)
{
    tf_error err;
    tf_layer_map *m = tf_layer_map_new(40, 40, &err);
    for (size_t c = 0; c < 1600; c++) {
        size_t x = c % 40, y = c / 40;
        int hole = x >= 10 && x < 22 && y >= 5 && y < 30;
        m->value[c] = hole ? 0.0f : 0.7f;
        m->weight[c] = hole ? 0.0f : 1.0f;
    }
    tf_bands b;
    ck_assert_int_eq(tf_bands_decompose(m, 3, 1, &b, &err), 0);
    for (size_t c = 0; c < 1600; c++) {
        if (m->weight[c] > 0.0f) {
            ck_assert_double_eq_tol(b.band[0][c], (double)0.7f, 1e-9);
            ck_assert_double_eq_tol(b.band[1][c], 0.0, 1e-9);
            ck_assert_double_eq_tol(b.band[2][c], 0.0, 1e-9);
        } else {
            for (size_t k = 0; k < 3; k++)
                ck_assert_double_eq(b.band[k][c], 0.0);
        }
    }
    tf_bands_free(&b);
    tf_layer_map_free(m);
}
END_TEST

/* A reference that is the base noise itself at frequency F: every band
 * sees the noise's spectrum through its filter, so the centroid match
 * must give F back for the bands that hold its power. */
START_TEST(frequency_matching_recovers_noise)
{
    const double truth = 1.0 / 12.0;
    tf_layer_map *m = noise_map(256, 256, truth, 11);
    tf_bands b;
    tf_error err;
    ck_assert_int_eq(tf_bands_decompose(m, 0, 2, &b, &err), 0);
    tf_radial_spectrum sp;
    ck_assert_int_eq(tf_radial_spectrum_compute(m->value, NULL, 256, 256, &sp, &err), 0);
    int checked = 0;
    for (size_t k = 0; k < b.count; k++) {
        /* The bands around the noise's own scale (wavelength 12 px). */
        if (!(b.sigma[b.count - 1 - k] >= 1.0 && b.sigma[b.count - 1 - k] <= 4.0))
            continue;
        double c = tf_band_centroid(&b, k, &sp);
        double f = tf_band_match_frequency(&b, k, TF_NOISE_SIMPLEX, c, &sp, &err);
        ck_assert_msg(fabs(f / truth - 1.0) < 0.15, "band %zu: matched %g, truth %g", k, f,
                      truth);
        checked++;
    }
    ck_assert_int_ge(checked, 2);
    tf_radial_spectrum_free(&sp);
    tf_bands_free(&b);
    tf_layer_map_free(m);
}
END_TEST

/* Smooth relief plus fine roughness scaled by an increasing function of
 * the relief, normalized to [0, 1]. */
static tf_layer_map *rough_where_high(size_t n)
{
    tf_error err;
    tf_layer_map *m = tf_layer_map_new(n, n, &err);
    double lo = HUGE_VAL, hi = -HUGE_VAL;
    for (size_t j = 0; j < n; j++)
        for (size_t i = 0; i < n; i++) {
            double s = (tf_noise_eval(TF_NOISE_SIMPLEX, 5, i / 128.0, j / 128.0, 0) + 1) * 0.5;
            double r = tf_noise_eval(TF_NOISE_SIMPLEX, 9, i / 3.0, j / 3.0, 0);
            double v = s + r * (0.005 + 0.12 * s * s);
            m->value[j * n + i] = (float)v;
            lo = v < lo ? v : lo;
            hi = v > hi ? v : hi;
        }
    for (size_t c = 0; c < n * n; c++)
        m->value[c] = (float)((m->value[c] - lo) / (hi - lo));
    return m;
}

/* The fit of m with the options `base` on `threads` threads (it must
 * succeed). */
static tf_spec *fit_kinds(const tf_layer_map *m, const tf_fit_options *base, unsigned threads,
                          tf_fit_report *rep)
{
    tf_fit_options opt = *base;
    opt.threads = threads;
    tf_spec *spec = NULL;
    tf_error err;
    int rc = tf_fit(&m, 1, &opt, &spec, rep, NULL, NULL, &err);
    ck_assert_msg(rc == 0, "fit failed: %s", err.message);
    return spec;
}

/* The same with the default options and `layers` bands. */
static tf_spec *fit_one(const tf_layer_map *m, size_t layers, unsigned threads,
                        tf_fit_report *rep)
{
    tf_fit_options opt;
    tf_fit_options_init(&opt);
    opt.layers = layers;
    return fit_kinds(m, &opt, threads, rep);
}

/* The synthesized map (rendered far from the fitting window) as a layer
 * map in [0, 1]. */
static tf_layer_map *render_far(const tf_spec *spec, size_t n)
{
    tf_error err;
    tf_terrain *t = tf_terrain_compile(spec, &err);
    ck_assert_msg(t != NULL, "compile: %s", err.message);
    tf_layer_map *m = tf_layer_map_new(n, n, &err);
    tf_terrain_sample_grid(t, 5000.0, 5000.0, 1.0, n, n, m->value);
    for (size_t c = 0; c < n * n; c++)
        m->value[c] = (float)tf_terrain_normalize(t, m->value[c]);
    tf_terrain_free(t);
    return m;
}

START_TEST(mask_curves_rough_where_high)
{
    const size_t n = 192;
    tf_layer_map *ref = rough_where_high(n);
    tf_fit_report rep;
    tf_spec *spec = fit_one(ref, 0, 2, &rep);
    ck_assert(rep.auto_layered);
    ck_assert_uint_ge(spec->layer_count, 4);
    /* The finest band's weight grows with the coarse elevation. */
    const tf_layer_spec *fine = &spec->layers[spec->layer_count - 1];
    ck_assert_uint_ge(fine->mask_curve_point_count, 8);
    ck_assert_int_eq(fine->mask_layer_index, 0);
    double first = fine->mask_curve_points[0].y,
           last = fine->mask_curve_points[fine->mask_curve_point_count - 1].y;
    ck_assert_msg(last > 3.0 * first, "mask curve %g .. %g", first, last);
    /* The synthesis is rough where high, as the reference is. */
    tf_layer_map *syn = render_far(spec, n);
    tf_metrics_report mr;
    tf_error err;
    ck_assert_int_eq(tf_metrics_compute(ref, syn, NULL, &mr, &err), 0);
    ck_assert_double_gt(mr.a.roughness_elevation, 0.3);
    ck_assert_msg(mr.b.roughness_elevation > 0.3 &&
                      fabs(mr.b.roughness_elevation - mr.a.roughness_elevation) < 0.3,
                  "roughness~elevation: reference %g, synthesis %g", mr.a.roughness_elevation,
                  mr.b.roughness_elevation);
    ck_assert_msg((mr.b.slope_elevation > 0) == (mr.a.slope_elevation > 0),
                  "slope~elevation: reference %g, synthesis %g", mr.a.slope_elevation,
                  mr.b.slope_elevation);
    /* Without mask curves (the thesis's one layer) there is no such link. */
    tf_fit_report rep1;
    tf_spec *one = fit_one(ref, 1, 2, &rep1);
    ck_assert(!rep1.auto_layered);
    ck_assert_uint_eq(one->layer_count, 1);
    tf_layer_map *syn1 = render_far(one, n);
    tf_metrics_report mr1;
    ck_assert_int_eq(tf_metrics_compute(ref, syn1, NULL, &mr1, &err), 0);
    ck_assert_msg(fabs(mr.b.roughness_elevation - mr.a.roughness_elevation) <
                      fabs(mr1.b.roughness_elevation - mr1.a.roughness_elevation),
                  "auto %g, one layer %g, reference %g", mr.b.roughness_elevation,
                  mr1.b.roughness_elevation, mr.a.roughness_elevation);
    tf_layer_map_free(syn1);
    tf_spec_free(one);
    tf_fit_report_free(&rep1);
    tf_layer_map_free(syn);
    tf_spec_free(spec);
    tf_fit_report_free(&rep);
    tf_layer_map_free(ref);
}
END_TEST

START_TEST(output_curve_improves_chi2)
{
    tf_layer_map *ref = rough_where_high(128);
    tf_fit_report rep;
    tf_spec *spec = fit_one(ref, 0, 2, &rep);
    ck_assert_uint_ge(rep.output_curve_points, 2);
    ck_assert_uint_eq(spec->output_curve_point_count, rep.output_curve_points);
    ck_assert_msg(rep.output_chi2_after < rep.output_chi2_before &&
                      rep.output_chi2_after <= 0.01,
                  "chi2 %g -> %g", rep.output_chi2_before, rep.output_chi2_after);
    ck_assert_double_eq_tol(spec->min_value, 0.0, 1e-6);
    ck_assert_double_eq_tol(spec->max_value, 1.0, 1e-6);
    tf_spec_free(spec);
    tf_fit_report_free(&rep);
    tf_layer_map_free(ref);
}
END_TEST

/* The height's (TF_STAGE_HEIGHT) or layer sum's (TF_STAGE_SUM) squared
 * forward differences and mean slope (central differences, compare's)
 * over the fit's measuring windows of an n x n reference (2^20 cells, at
 * most 8, diagonally apart from the synthesis offset), point by point. */
static void window_slopes(const tf_terrain *t, tf_stage stage, size_t n, double *squares,
                          double *mean)
{
    size_t windows = (((size_t)1 << 20) + n * n - 1) / (n * n);
    windows = windows > 8 ? 8 : windows;
    *squares = *mean = 0.0;
    for (size_t wi = 0; wi < windows; wi++) {
        double x0 = TF_FIT_SYNTHESIS_OFFSET + 2.0 * (double)(wi * n);
        double y0 = TF_FIT_SYNTHESIS_OFFSET + 2.0 * (double)(wi * n);
        double sum = 0.0;
        for (size_t j = 0; j < n; j++)
            for (size_t i = 0; i < n; i++) {
                double x = x0 + (double)i, y = y0 + (double)j;
                double v = tf_terrain_sample_stage(t, stage, 0, x, y);
                double e = tf_terrain_sample_stage(t, stage, 0, x + 1.0, y);
                double s = tf_terrain_sample_stage(t, stage, 0, x, y + 1.0);
                if (i + 1 < n && j + 1 < n)
                    *squares += (e - v) * (e - v) + (s - v) * (s - v);
                if (i > 0 && j > 0 && i + 1 < n && j + 1 < n) {
                    double gx = 0.5 * (e - tf_terrain_sample_stage(t, stage, 0, x - 1.0, y));
                    double gy = 0.5 * (s - tf_terrain_sample_stage(t, stage, 0, x, y - 1.0));
                    sum += sqrt(gx * gx + gy * gy);
                }
            }
        *mean += sum / (double)((n - 2) * (n - 2)) / (double)windows;
    }
}

/* The report's slope figures, computed again here from the spec as kept
 * (no drainage stage): outputCurve.slopeGain is the RMS of the height's
 * forward differences over the layer sum's, slopeMatch.referenceMeanSlope
 * compare's mean slope of the reference, and the kept spec's ratio over
 * it ratioTilted, or ratioBefore when the calibrated spec scored closer
 * (kept 0). The tilt brings the mean slope within e^0.01 of the
 * reference's unless it stopped at a bound. */
static int check_slopes(tf_layer_map *ref, size_t n)
{
    tf_fit_options opt;
    tf_fit_options_init(&opt);
    opt.drainage = TF_FIT_DRAINAGE_OFF;
    tf_fit_report rep;
    tf_spec *spec = fit_kinds(ref, &opt, 2, &rep);
    const tf_fit_slope_match *sm = &rep.slope_match;
    tf_error err;
    tf_terrain *t = tf_terrain_compile(spec, &err);
    ck_assert_ptr_nonnull(t);
    double sum_squares, height_squares, sum_mean, height_mean;
    window_slopes(t, TF_STAGE_SUM, n, &sum_squares, &sum_mean);
    window_slopes(t, TF_STAGE_HEIGHT, n, &height_squares, &height_mean);
    double gain = sqrt(height_squares / sum_squares);
    ck_assert_msg(fabs(rep.output_slope_gain - gain) <= 1e-9 * gain,
                  "gain: report %.12g, here %.12g", rep.output_slope_gain, gain);

    double ref_sum = 0.0;
    for (size_t j = 1; j + 1 < n; j++)
        for (size_t i = 1; i + 1 < n; i++) {
            double gx =
                0.5 * ((double)ref->value[j * n + i + 1] - (double)ref->value[j * n + i - 1]);
            double gy =
                0.5 * ((double)ref->value[(j + 1) * n + i] - (double)ref->value[(j - 1) * n + i]);
            ref_sum += sqrt(gx * gx + gy * gy);
        }
    double ref_mean = ref_sum / (double)((n - 2) * (n - 2));
    ck_assert_msg(fabs(sm->reference_mean_slope - ref_mean) <= 1e-12 * ref_mean,
                  "reference mean slope: report %.15g, here %.15g", sm->reference_mean_slope,
                  ref_mean);
    /* the kept spec's ratio: the tilted one's, or the calibrated one's when
     * that scored closer (the two scored without the stage) */
    double ratio = height_mean / ref_mean,
           kept_ratio = sm->kept ? sm->ratio_tilted : sm->ratio_before;
    ck_assert_msg(fabs(kept_ratio - ratio) <= 1e-9 * ratio, "ratio: report %.12g, here %.12g",
                  kept_ratio, ratio);
    ck_assert(!sm->kept || sm->tilt != 1.0);
    if (sm->tilt != 1.0) {
        ck_assert_msg(fabs(log(sm->ratio_tilted)) <= 0.01 || sm->tilt <= 0.125 * (1.0 + 1e-9) ||
                          sm->tilt >= 2.0 * (1.0 - 1e-9),
                      "tilt %g leaves the mean slope at %g times the reference's", sm->tilt,
                      sm->ratio_tilted);
        ck_assert_int_eq(sm->kept, sm->tilted_score <= sm->calibrated_score);
    } else {
        ck_assert_double_eq(sm->ratio_tilted, sm->ratio_before);
    }
    tf_terrain_free(t);
    tf_spec_free(spec);
    int kept = sm->kept;
    tf_fit_report_free(&rep);
    tf_layer_map_free(ref);
    return kept;
}

static tf_layer_map *valley_map(size_t n);

/* both outcomes: on the rough map the calibrated spec scores closer, on
 * the valley map the tilted one */
START_TEST(slope_match_and_gain)
{
    ck_assert(!check_slopes(rough_where_high(96), 96));
    ck_assert(check_slopes(valley_map(160), 160));
}
END_TEST

START_TEST(deterministic_across_threads)
{
    tf_layer_map *ref = rough_where_high(96);
    tf_fit_report r1, r2;
    tf_spec *a = fit_one(ref, 0, 1, &r1), *b = fit_one(ref, 0, 3, &r2);
    tf_error err;
    char *ja = tf_spec_to_json(a, &err), *jb = tf_spec_to_json(b, &err);
    ck_assert_ptr_nonnull(ja);
    ck_assert_str_eq(ja, jb);
    char *ra = tf_fit_report_to_json(&r1, 0, &err), *rb = tf_fit_report_to_json(&r2, 0, &err);
    ck_assert_str_eq(ra, rb);
    ck_assert_ptr_nonnull(strstr(ra, "\"outputCurve\""));
    free(ja), free(jb), free(ra), free(rb);
    tf_spec_free(a), tf_spec_free(b);
    tf_fit_report_free(&r1), tf_fit_report_free(&r2);
    tf_layer_map_free(ref);
}
END_TEST

/* Heavy tails: smooth relief with rare isolated spikes (about 1% of the
 * cells). The finest band is heavy-tailed, so its curve is blended toward
 * linear, and its extremes are gentler than the band's. */
START_TEST(heavy_tailed_band_gets_a_gentler_curve)
{
    const size_t n = 128;
    tf_error err;
    tf_layer_map *m = tf_layer_map_new(n, n, &err);
    uint32_t state = 12345u;
    for (size_t j = 0; j < n; j++)
        for (size_t i = 0; i < n; i++) {
            double s = (tf_noise_eval(TF_NOISE_SIMPLEX, 3, i / 70.0, j / 70.0, 0) + 1) * 0.4;
            state = state * 1664525u + 1013904223u; /* Numerical Recipes LCG */
            int spike = (state >> 16) % 100 == 0;
            m->value[j * n + i] = (float)(s + (spike ? 0.15 : 0.0));
        }
    tf_fit_report rep;
    tf_spec *spec = fit_one(m, 0, 2, &rep);
    const tf_fit_layer_report *fine = &rep.layers[rep.layer_count - 1];
    ck_assert_msg(fine->kurtosis > 3.0 && fine->gentle_blend < 1.0,
                  "kurtosis %g, blend %g", fine->kurtosis, fine->gentle_blend);
    ck_assert_double_eq_tol(fine->gentle_blend, 3.0 / fine->kurtosis, 1e-12);
    const tf_layer_spec *ls = &spec->layers[spec->layer_count - 1];
    double top = ls->rd_points[ls->rd_point_count - 1].y;
    ck_assert_msg(top < fine->value_max, "curve top %g, band max %g", top, fine->value_max);
    /* A band without heavy tails keeps its equalized curve. */
    ck_assert_double_eq(rep.layers[0].gentle_blend, 1.0);
    tf_spec_free(spec);
    tf_fit_report_free(&rep);
    tf_layer_map_free(m);
}
END_TEST

/* tf_fit on the maps refuses opt: -1, no spec, and a message naming
 * `fragment`. */
static void expect_fit_refused(const tf_layer_map *const *maps, size_t count,
                               const tf_fit_options *opt, const char *fragment)
{
    tf_spec *spec = NULL;
    tf_error err;
    ck_assert_int_eq(tf_fit(maps, count, opt, &spec, NULL, NULL, NULL, &err), -1);
    ck_assert_msg(strstr(err.message, fragment) != NULL, "message '%s' lacks '%s'", err.message,
                  fragment);
    ck_assert_ptr_null(spec);
}

START_TEST(layers_option_rules)
{
    tf_layer_map *ref = rough_where_high(64);
    tf_fit_report rep;
    tf_spec *spec = fit_one(ref, 3, 0, &rep);
    ck_assert_uint_eq(spec->layer_count, 3);
    tf_spec_free(spec);
    tf_fit_report_free(&rep);

    tf_fit_options opt;
    tf_fit_options_init(&opt);
    tf_error err;
    const tf_layer_map *const *one = (const tf_layer_map *const *)&ref;
    opt.layers = TF_FIT_MAX_BANDS + 1;
    expect_fit_refused(one, 1, &opt, "1 to 16");
    /* A partly transparent layer cannot be split into bands on request,
     * and keeps the thesis's one layer by default. */
    ref->weight[5] = 0.5f;
    opt.layers = 3;
    expect_fit_refused(one, 1, &opt, "fully present");
    opt.layers = TF_FIT_LAYERS_AUTO;
    ck_assert_int_eq(tf_fit((const tf_layer_map *const *)&ref, 1, &opt, &spec, &rep, NULL, NULL,
                            &err),
                     0);
    ck_assert(!rep.auto_layered);
    ck_assert_uint_eq(spec->layer_count, 1);
    tf_spec_free(spec);
    tf_fit_report_free(&rep);
    /* Several references: one layer each; a band count is refused. */
    const tf_layer_map *two[2] = {ref, ref};
    opt.layers = 4;
    expect_fit_refused(two, 2, &opt, "single reference");
    tf_layer_map_free(ref);
}
END_TEST

/* Noises and layer kinds on the bands: per band or for all; each
 * band's spec layer carries its kind, its curve is equalized against that
 * kind's output distribution, the fit stays deterministic across thread
 * counts, and the output curve still brings the histogram home. */
START_TEST(layer_kinds_on_bands)
{
    tf_layer_map *ref = rough_where_high(96);
    tf_fit_options opt;
    tf_fit_options_init(&opt);
    opt.layers = 3;
    opt.noise = TF_NOISE_PERLIN;                        /* every band ... */
    opt.layer_noise[1] = TF_NOISE_CELLULAR_F2_F1 + 1;   /* ... but band 1 */
    opt.layer_fractal[2] = TF_FRACTAL_RIDGED + 1;       /* band 2 ridged */
    tf_fit_report r1, r2;
    tf_spec *a = fit_kinds(ref, &opt, 1, &r1), *b = fit_kinds(ref, &opt, 3, &r2);
    ck_assert(r1.auto_layered);
    ck_assert_uint_eq(a->layer_count, 3);
    const tf_noise_type want_noise[3] = {TF_NOISE_PERLIN, TF_NOISE_CELLULAR_F2_F1,
                                         TF_NOISE_PERLIN};
    const tf_fractal_kind want_kind[3] = {TF_FRACTAL_NONE, TF_FRACTAL_NONE, TF_FRACTAL_RIDGED};
    for (size_t k = 0; k < 3; k++) {
        const tf_layer_spec *ls = &a->layers[k];
        ck_assert_int_eq(ls->noise_type, want_noise[k]);
        ck_assert_int_eq(ls->fractal_kind, want_kind[k]);
        ck_assert_int_eq(r1.layers[k].noise, want_noise[k]);
        ck_assert_int_eq(r1.layers[k].fractal, want_kind[k]);
        /* Equalized against the layer's own output: the curve's first and
         * last x are that kind's extreme unit-value quantiles. */
        tf_layer_spec kind;
        memset(&kind, 0, sizeof kind);
        kind.noise_type = want_noise[k];
        tf_fractal_set_defaults(&kind, want_kind[k]);
        const double p[2] = {0.0, 1.0};
        double q[2];
        tf_error err;
        ck_assert_int_eq(tf_layer_unit_quantiles(&kind, p, 2, q, &err), 0);
        ck_assert_double_eq(ls->rd_points[0].x, q[0]);
        ck_assert_double_eq(ls->rd_points[ls->rd_point_count - 1].x, q[1]);
    }
    /* The ridged band's curve is not a plain noise's: its x range differs
     * from perlin's (ridged output is skewed toward its crests). */
    ck_assert(a->layers[2].rd_points[0].x != a->layers[0].rd_points[0].x);
    ck_assert_msg(r1.output_chi2_after <= 0.02, "output chi2 %g", r1.output_chi2_after);
    tf_error err;
    char *ja = tf_spec_to_json(a, &err), *jb = tf_spec_to_json(b, &err);
    ck_assert_ptr_nonnull(ja);
    ck_assert_str_eq(ja, jb);
    ck_assert_ptr_nonnull(strstr(ja, "\"ridged\""));
    ck_assert_ptr_nonnull(strstr(ja, "\"cellular-f2-f1\""));
    /* The written spec is valid and renders. */
    tf_spec *back = tf_spec_parse(ja, strlen(ja), "fitted", &err);
    ck_assert_msg(back != NULL, "reparse: %s", err.message);
    tf_layer_map *syn = render_far(back, 64);
    double lo = HUGE_VAL, hi = -HUGE_VAL;
    for (size_t c = 0; c < 64 * 64; c++) {
        lo = syn->value[c] < lo ? syn->value[c] : lo;
        hi = syn->value[c] > hi ? syn->value[c] : hi;
    }
    ck_assert_msg(hi > lo, "flat render");
    tf_layer_map_free(syn);
    tf_spec_free(back);
    free(ja), free(jb);
    tf_spec_free(a), tf_spec_free(b);
    tf_fit_report_free(&r1), tf_fit_report_free(&r2);

    /* A kind or --noise auto named for a band beyond the split is refused
     * with a clear message. */
    const tf_layer_map *const *one = (const tf_layer_map *const *)&ref;
    tf_fit_options_init(&opt);
    opt.layers = 3;
    opt.layer_fractal[5] = TF_FRACTAL_BILLOW + 1;
    expect_fit_refused(one, 1, &opt, "beyond the 3 bands");
    tf_fit_options_init(&opt);
    opt.layers = 3;
    opt.layer_noise[3] = TF_FIT_LAYER_NOISE_AUTO;
    expect_fit_refused(one, 1, &opt, "beyond the 3 bands");
    /* With one layer, a kind for layer 1 is still refused. */
    tf_fit_options_init(&opt);
    opt.layers = 1;
    opt.layer_fractal[1] = TF_FRACTAL_FBM + 1;
    expect_fit_refused(one, 1, &opt, "layer 1");
    tf_layer_map_free(ref);
}
END_TEST

/* --noise auto on the bands: each band that asks tries every
 * candidate, scored by the whole fitted terrain, and keeps the lowest
 * finite score; the written spec is the fit with those noises given. */

/* Occurrences of "KEY": true in a JSON text, whatever the spacing. */
static int count_true(const char *text, const char *key)
{
    char quoted[64];
    snprintf(quoted, sizeof quoted, "\"%s\":", key);
    int n = 0;
    for (const char *p = strstr(text, quoted); p; p = strstr(p + 1, quoted)) {
        const char *v = p + strlen(quoted);
        while (*v == ' ' || *v == '\t' || *v == '\n')
            v++;
        n += strncmp(v, "true", 4) == 0;
    }
    return n;
}

static int count_text(const char *text, const char *needle)
{
    int n = 0;
    for (const char *p = strstr(text, needle); p; p = strstr(p + 1, needle))
        n++;
    return n;
}

/* The index of the lowest finite score (ties: the earlier), or -1. */
static int argmin_score(const tf_fit_layer_report *l)
{
    int best = -1;
    for (size_t c = 0; c < l->noise_candidate_count; c++)
        if (isfinite(l->noise_candidates[c].score) &&
            (best < 0 || l->noise_candidates[c].score < l->noise_candidates[best].score))
            best = (int)c;
    return best;
}

typedef struct {
    size_t calls, last_done, last_total;
    int backwards;
} progress_log;

static void log_progress(void *user, size_t done, size_t total)
{
    progress_log *p = user;
    if (p->calls && (done < p->last_done || total != p->last_total))
        p->backwards = 1;
    p->calls++;
    p->last_done = done;
    p->last_total = total;
}

START_TEST(noise_auto_on_bands)
{
    const size_t n = 96;
    tf_layer_map *ref = rough_where_high(n);
    tf_fit_options opt;
    tf_fit_options_init(&opt);
    opt.noise_auto = 1;
    opt.threads = 2;
    /* the trials score the terrain before any drainage stage and before
     * the slope match: compare it */
    opt.drainage = TF_FIT_DRAINAGE_OFF;
    opt.slope_match_off = 1;
    tf_fit_report rep;
    tf_spec *spec = NULL;
    tf_error err;
    progress_log pl = {0, 0, 0, 0};
    ck_assert_msg(tf_fit((const tf_layer_map *const *)&ref, 1, &opt, &spec, &rep, log_progress,
                         &pl, &err) == 0,
                  "fit: %s", err.message);
    ck_assert(rep.auto_layered);
    ck_assert(rep.noise_auto);
    size_t count = rep.layer_count;
    ck_assert_uint_ge(count, 3);
    /* Progress advances through every trial and ends at its total. */
    ck_assert(!pl.backwards);
    ck_assert_uint_ge(pl.calls, count * TF_FIT_AUTO_CANDIDATES);
    ck_assert_uint_eq(pl.last_done, pl.last_total);
    ck_assert_uint_eq(pl.last_total, 1 + count * TF_FIT_AUTO_CANDIDATES + count + 2);

    for (size_t k = 0; k < count; k++) {
        const tf_fit_layer_report *l = &rep.layers[k];
        ck_assert_uint_eq(l->noise_candidate_count, TF_FIT_AUTO_CANDIDATES);
        for (size_t c = 0; c < l->noise_candidate_count; c++)
            ck_assert_int_eq(l->noise_candidates[c].noise, tf_fit_auto_candidates[c]);
        int best = argmin_score(l);
        ck_assert_int_ge(best, 0);
        ck_assert_msg(l->noise == l->noise_candidates[best].noise, "band %zu: chose %s, argmin %s",
                      k, tf_noise_type_name(l->noise),
                      tf_noise_type_name(l->noise_candidates[best].noise));
        ck_assert_int_eq(spec->layers[k].noise_type, l->noise);
        ck_assert_double_eq(l->noise_candidates[best].frequency, spec->layers[k].frequency);
        /* Coordinate descent, the finest band first: the next coarser
         * band's trial of its current noise is the terrain this band
         * chose, so it scores the same. */
        if (k > 0) {
            const tf_fit_layer_report *lc = &rep.layers[k - 1];
            size_t current = 0;
            while (tf_fit_auto_candidates[current] != TF_NOISE_SIMPLEX)
                current++;
            ck_assert_double_eq(lc->noise_candidates[current].score,
                                l->noise_candidates[best].score);
        }
    }

    /* The score is compare's: the written spec rendered at the synthesis
     * origin against the reference, both over the reference's range (the
     * runtime's evaluation may differ from the fit's in the last bits). */
    tf_terrain *t = tf_terrain_compile(spec, &err);
    ck_assert_msg(t != NULL, "compile: %s", err.message);
    tf_layer_map *syn = tf_layer_map_new(n, n, &err);
    tf_terrain_sample_grid(t, TF_FIT_SYNTHESIS_OFFSET, TF_FIT_SYNTHESIS_OFFSET, 1.0, n, n,
                           syn->value);
    for (size_t c = 0; c < n * n; c++)
        syn->value[c] = (float)tf_terrain_normalize(t, syn->value[c]);
    tf_terrain_free(t);
    tf_metrics_report mr;
    ck_assert_int_eq(tf_metrics_compute(ref, syn, NULL, &mr, &err), 0);
    const tf_fit_layer_report *l0 = &rep.layers[0];
    const tf_fit_noise_candidate *won = &l0->noise_candidates[argmin_score(l0)];
    ck_assert_double_eq_tol(won->slope_chi2, mr.slope_chi2, 1e-3);
    ck_assert_double_eq_tol(won->spectrum_log_rms, mr.spectrum_log_rms, 1e-3);
    ck_assert_double_eq_tol(won->pit_peak_ratio, mr.b.pit_peak_ratio, 0.05);
    ck_assert_double_eq_tol(won->depression_share, mr.b.depression_share, 0.02);
    tf_layer_map_free(syn);

    /* The report lists every band's candidates, one chosen each. */
    char *text = tf_fit_report_to_json(&rep, 0, &err);
    ck_assert_ptr_nonnull(text);
    ck_assert_int_eq(count_text(text, "\"noiseCandidates\""), (int)count);
    ck_assert_int_eq(count_text(text, "\"spectrumLogRms\""),
                     (int)(count * TF_FIT_AUTO_CANDIDATES));
    ck_assert_int_eq(count_true(text, "chosen"), (int)count);

    /* The spec is valid, and it is the fit with the chosen noises given. */
    char *json = tf_spec_to_json(spec, &err);
    ck_assert_ptr_nonnull(json);
    tf_spec *back = tf_spec_parse(json, strlen(json), "fitted", &err);
    ck_assert_msg(back != NULL, "reparse: %s", err.message);
    tf_spec_free(back);
    tf_fit_options fixed;
    tf_fit_options_init(&fixed);
    fixed.drainage = TF_FIT_DRAINAGE_OFF;
    fixed.slope_match_off = 1;
    for (size_t k = 0; k < count; k++)
        fixed.layer_noise[k] = (unsigned char)(rep.layers[k].noise + 1);
    tf_fit_report rep_fixed;
    tf_spec *spec_fixed = fit_kinds(ref, &fixed, 2, &rep_fixed);
    char *json_fixed = tf_spec_to_json(spec_fixed, &err);
    ck_assert_str_eq(json, json_fixed);
    ck_assert_uint_eq(rep_fixed.layers[0].noise_candidate_count, 0);

    /* Deterministic across thread counts. */
    tf_fit_report rep1;
    tf_spec *spec1 = fit_kinds(ref, &opt, 1, &rep1);
    char *json1 = tf_spec_to_json(spec1, &err), *text1 = tf_fit_report_to_json(&rep1, 0, &err);
    ck_assert_str_eq(json, json1);
    ck_assert_str_eq(text, text1);

    free(text), free(text1), free(json), free(json1), free(json_fixed);
    tf_spec_free(spec), tf_spec_free(spec1), tf_spec_free(spec_fixed);
    tf_fit_report_free(&rep), tf_fit_report_free(&rep1), tf_fit_report_free(&rep_fixed);
    tf_layer_map_free(ref);
}
END_TEST

/* --noise 1=auto: only band 1 tries, the others keep the options' noise. */
START_TEST(noise_auto_on_one_band)
{
    tf_layer_map *ref = rough_where_high(96);
    tf_fit_options opt;
    tf_fit_options_init(&opt);
    opt.noise = TF_NOISE_PERLIN;
    opt.layer_noise[1] = TF_FIT_LAYER_NOISE_AUTO;
    /* no drainage stage: its report has a "chosen" of its own */
    opt.drainage = TF_FIT_DRAINAGE_OFF;
    tf_fit_report rep;
    tf_spec *spec = fit_kinds(ref, &opt, 2, &rep);
    ck_assert(!rep.noise_auto);
    ck_assert_uint_ge(rep.layer_count, 3);
    for (size_t k = 0; k < rep.layer_count; k++) {
        const tf_fit_layer_report *l = &rep.layers[k];
        if (k != 1) {
            ck_assert_uint_eq(l->noise_candidate_count, 0);
            ck_assert_int_eq(l->noise, TF_NOISE_PERLIN);
            ck_assert_int_eq(spec->layers[k].noise_type, TF_NOISE_PERLIN);
            continue;
        }
        ck_assert_uint_eq(l->noise_candidate_count, TF_FIT_AUTO_CANDIDATES);
        int best = argmin_score(l);
        ck_assert_int_ge(best, 0);
        ck_assert_int_eq(l->noise, l->noise_candidates[best].noise);
        ck_assert_int_eq(spec->layers[1].noise_type, l->noise);
    }
    tf_error err;
    char *text = tf_fit_report_to_json(&rep, 0, &err);
    ck_assert_int_eq(count_text(text, "\"noiseCandidates\""), 1);
    ck_assert_int_eq(count_true(text, "chosen"), 1);
    free(text);
    tf_spec_free(spec);
    tf_fit_report_free(&rep);
    tf_layer_map_free(ref);
}
END_TEST

/* ---- the drainage stage */

/* A DEM-like map with clear valleys: a slope falling toward y = 0 cut by
 * valleys along y every 24 px, whose sides carry noise (n x n, in [0, 1]). */
static tf_layer_map *valley_map(size_t n)
{
    tf_error err;
    tf_layer_map *m = tf_layer_map_new(n, n, &err);
    ck_assert_ptr_nonnull(m);
    for (size_t j = 0; j < n; j++) {
        for (size_t i = 0; i < n; i++) {
            double x = (double)i, y = (double)j;
            double valley = fabs(sin(3.141592653589793 * x / 24.0));
            double rough = tf_noise_eval(TF_NOISE_SIMPLEX, 3, x / 7.0, y / 7.0, 0.0);
            m->value[j * n + i] = (float)(0.45 * y / (double)n + 0.35 * valley * (0.3 + y / (double)n) +
                                          0.02 * rough);
        }
    }
    double lo = HUGE_VAL, hi = -HUGE_VAL;
    for (size_t c = 0; c < n * n; c++) {
        lo = fmin(lo, m->value[c]);
        hi = fmax(hi, m->value[c]);
    }
    for (size_t c = 0; c < n * n; c++)
        m->value[c] = (float)((m->value[c] - lo) / (hi - lo));
    return m;
}

/* A cone (a volcano's radial drainage): nothing converges. */
static tf_layer_map *cone_map(size_t n)
{
    tf_error err;
    tf_layer_map *m = tf_layer_map_new(n, n, &err);
    ck_assert_ptr_nonnull(m);
    double c = 0.5 * (double)(n - 1);
    for (size_t j = 0; j < n; j++)
        for (size_t i = 0; i < n; i++) {
            double r = hypot((double)i - c, (double)j - c) / c;
            m->value[j * n + i] = (float)(r < 1.0 ? 1.0 - r : 0.0);
        }
    return m;
}

static char *spec_text(const tf_spec *spec)
{
    tf_error err;
    char *text = tf_spec_to_json(spec, &err);
    ck_assert_ptr_nonnull(text);
    return text;
}

/* The choice between the tilted and the calibrated spec, with the stage
 * (auto: fitted on both, the lower final score kept) and without it (off:
 * the two specs scored as they are): kept means the tilted one scored no
 * higher, and when the calibrated one won the spec is byte for byte the
 * fit without the slope match. */
static void check_slope_choice(tf_layer_map *ref, tf_fit_drainage_mode mode, tf_fit_report *rep)
{
    tf_fit_options opt;
    tf_fit_options_init(&opt);
    opt.drainage = mode;
    tf_fit_report rep_off;
    tf_spec *spec = fit_kinds(ref, &opt, 2, rep);
    opt.slope_match_off = 1;
    tf_spec *calibrated = fit_kinds(ref, &opt, 2, &rep_off);
    const tf_fit_slope_match *sm = &rep->slope_match;
    ck_assert_int_eq(rep->drainage.considered, mode != TF_FIT_DRAINAGE_OFF);
    ck_assert(!rep_off.slope_match.kept);
    ck_assert_double_eq(rep_off.slope_match.tilt, 1.0);
    ck_assert(isnan(rep_off.slope_match.tilted_score));
    ck_assert_double_eq(rep_off.slope_match.reference_mean_slope, sm->reference_mean_slope);
    char *a = spec_text(spec), *b = spec_text(calibrated);
    if (sm->tilt != 1.0) {
        ck_assert(isfinite(sm->tilted_score) && isfinite(sm->calibrated_score));
        ck_assert_int_eq(sm->kept, sm->tilted_score <= sm->calibrated_score);
    } else {
        ck_assert(!sm->kept);
        ck_assert(isnan(sm->tilted_score) && isnan(sm->calibrated_score));
    }
    if (sm->kept)
        ck_assert_str_ne(a, b);
    else
        ck_assert_str_eq(a, b);
    free(a);
    free(b);
    tf_spec_free(spec);
    tf_spec_free(calibrated);
    tf_fit_report_free(&rep_off);
}

START_TEST(slope_match_with_drainage)
{
    tf_layer_map *ref = valley_map(160);
    tf_fit_report with, off;
    check_slope_choice(ref, TF_FIT_DRAINAGE_AUTO, &with);
    check_slope_choice(ref, TF_FIT_DRAINAGE_OFF, &off);
    /* the same tilt either way; without the stage the specs are scored by
     * the decision's own score: the uncarved spec the stage was fitted on
     * scored there what it scores here */
    ck_assert_double_eq(with.slope_match.tilt, off.slope_match.tilt);
    /* a small reference is scored on windows enough for 2^18 cells:
     * ceil(2^18 / 160^2) = 11 */
    ck_assert_uint_eq(with.drainage.windows, 11);
    if (off.slope_match.tilt != 1.0)
        ck_assert_double_eq(with.drainage.without.score, with.slope_match.kept
                                                             ? off.slope_match.tilted_score
                                                             : off.slope_match.calibrated_score);
    tf_fit_report_free(&with);
    tf_fit_report_free(&off);
    tf_layer_map_free(ref);
}
END_TEST

START_TEST(drainage_carves_valleys)
{
    tf_layer_map *ref = valley_map(160);
    tf_fit_options opt;
    tf_fit_options_init(&opt);
    /* the stage on the calibrated amplitudes, with and without it (the
     * slope match's choice between them: slope_match_with_drainage) */
    opt.slope_match_off = 1;
    tf_fit_report rep;
    tf_spec *spec = fit_kinds(ref, &opt, 2, &rep);
    const tf_fit_drainage_report *d = &rep.drainage;
    ck_assert(d->considered);
    ck_assert_msg(d->chosen, "not chosen: %s", d->why);
    ck_assert_int_ge(spec->drainage.levels, 1);
    ck_assert_double_eq(spec->drainage.spacing, d->spacing);
    ck_assert_double_eq(spec->drainage.depth, d->depth);
    ck_assert_double_lt(d->with.depression_share, d->without.depression_share);
    ck_assert_double_lt(d->with.score, d->without.score);
    ck_assert_double_gt(d->max_accumulation_share, 0.15);
    ck_assert_double_gt(d->height_above_drainage, 0.0);
    /* the range is the reference's, as the fit without the stage sets it */
    ck_assert_double_eq(spec->min_value, 0.0);
    ck_assert_double_eq(spec->max_value, 1.0);
    tf_error err;
    ck_assert_int_eq(tf_spec_validate(spec, &err), 0);
    char *text = tf_fit_report_to_json(&rep, 0, &err);
    ck_assert_ptr_nonnull(text);
    ck_assert_int_eq(count_text(text, "\"drainage\""), 1);
    ck_assert_int_eq(count_text(text, "\"heightAboveDrainage\""), 1);
    free(text);

    /* deterministic: 1 thread against 2 */
    tf_fit_report rep1;
    tf_spec *again = fit_kinds(ref, &opt, 1, &rep1);
    char *a = spec_text(spec), *b = spec_text(again);
    ck_assert_str_eq(a, b);
    free(a);
    free(b);

    /* off: the spec of a fit without the stage; on the same DEM, with the
     * knobs, the stage has what was asked for */
    opt.drainage = TF_FIT_DRAINAGE_OFF;
    tf_fit_report rep_off;
    tf_spec *off = fit_kinds(ref, &opt, 2, &rep_off);
    ck_assert_int_eq(off->drainage.levels, 0);
    ck_assert(!rep_off.drainage.considered);
    a = spec_text(off);
    ck_assert_ptr_null(strstr(a, "\"drainage\""));
    free(a);
    /* the detail gain: a step of the search, on the detail layers only
     * (those added after carving); the carved layers keep the amplitudes
     * of the fit without the stage */
    ck_assert_double_ge(d->detail_gain, 1.0);
    ck_assert_double_le(d->detail_gain, 2.0);
    ck_assert_double_eq(4.0 * d->detail_gain, floor(4.0 * d->detail_gain));
    ck_assert_uint_eq(spec->layer_count, off->layer_count);
    for (size_t i = 0; i < spec->layer_count; i++) {
        int detail = !(spec->layers[i].frequency * spec->drainage.detail_wavelength <= 1.0);
        ck_assert_double_eq(spec->layers[i].amp_scale,
                            off->layers[i].amp_scale * (detail ? d->detail_gain : 1.0));
    }
    /* the side slope: the preset's gamma times 0.7^k or 0.7^-k, k <= 3,
     * and the spec's slope is the report's */
    ck_assert(d->preset != NULL);
    double g0 = strcmp(d->preset, "mild") == 0 ? 8.0 : strcmp(d->preset, "smooth") == 0 ? 2.0 : 5.0;
    int on_a_step = 0;
    for (int k = -3; k <= 3; k++)
        on_a_step |= fabs(d->gamma / (g0 * pow(0.7, k)) - 1.0) < 1e-9;
    ck_assert_msg(on_a_step, "gamma %.17g is no step from %g", d->gamma, g0);
    ck_assert_double_eq(spec->drainage.slope, d->slope);
    ck_assert_double_eq_tol(d->slope, d->gamma * 2.0 * d->depth / d->spacing, 1e-12 * d->slope);
    /* the fade by the depth cut and the breach over the pass, in the spec
     * and the report */
    ck_assert_int_eq(spec->drainage.fade_by, TF_FADE_CUT);
    ck_assert_int_eq(spec->drainage.breach_to, TF_BREACH_PASS);
    ck_assert_int_eq(d->fade_by, TF_FADE_CUT);
    ck_assert_int_eq(d->breach_to, TF_BREACH_PASS);
    /* the inflow: two, or no limit where that scored lower; the spec's is
     * the report's */
    ck_assert_msg(d->inflow == 2 || d->inflow == 0, "inflow %d", d->inflow);
    ck_assert_int_eq(spec->drainage.inflow, d->inflow);
    text = tf_fit_report_to_json(&rep, 0, &err);
    ck_assert_int_eq(count_text(text, "\"detailGain\""), 1);
    ck_assert_int_eq(count_text(text, "\"cut\""), 1);
    ck_assert_int_eq(count_text(text, "\"pass\""), 1);
    ck_assert_int_eq(count_text(text, "\"inflow\""), 1);
    free(text);
    opt.drainage = TF_FIT_DRAINAGE_ON;
    opt.drainage_levels = 2;
    opt.drainage_spacing = 32.0;
    opt.drainage_depth = 0.5;
    opt.drainage_inflow = TF_FIT_DRAINAGE_INFLOW_ANY;
    tf_fit_report rep_on;
    tf_spec *on = fit_kinds(ref, &opt, 2, &rep_on);
    ck_assert_int_eq(on->drainage.levels, 2);
    ck_assert_int_eq(on->drainage.inflow, 0); /* asked for: no limit */
    ck_assert_int_eq(rep_on.drainage.inflow, 0);
    ck_assert_double_eq(on->drainage.spacing, 32.0);
    ck_assert(rep_on.drainage.chosen);
    ck_assert_double_eq_tol(on->drainage.depth, 0.5 * 1.5 * rep_on.drainage.height_above_drainage,
                            1e-12);
    tf_spec_free(on);
    tf_spec_free(off);
    tf_spec_free(again);
    tf_spec_free(spec);
    tf_fit_report_free(&rep);
    tf_fit_report_free(&rep1);
    tf_fit_report_free(&rep_off);
    tf_fit_report_free(&rep_on);
    tf_layer_map_free(ref);
}
END_TEST

START_TEST(drainage_not_on_a_cone)
{
    tf_layer_map *ref = cone_map(128);
    tf_fit_options opt;
    tf_fit_options_init(&opt);
    tf_fit_report rep, rep_off;
    tf_spec *spec = fit_kinds(ref, &opt, 2, &rep);
    ck_assert(rep.drainage.considered);
    ck_assert_msg(!rep.drainage.chosen, "chosen: %s", rep.drainage.why);
    ck_assert_int_eq(spec->drainage.levels, 0);
    ck_assert_double_lt(rep.drainage.max_accumulation_share, 0.15);
    /* declined: byte for byte the spec of a fit without the stage */
    opt.drainage = TF_FIT_DRAINAGE_OFF;
    tf_spec *off = fit_kinds(ref, &opt, 2, &rep_off);
    char *a = spec_text(spec), *b = spec_text(off);
    ck_assert_str_eq(a, b);
    free(a);
    free(b);
    tf_spec_free(off);
    tf_spec_free(spec);
    tf_fit_report_free(&rep);
    tf_fit_report_free(&rep_off);
    tf_layer_map_free(ref);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("autolayer");
    TCase *tc = tcase_create("core");
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, bands_sum_back);
    tcase_add_test(tc, bands_masked_cells);
    tcase_add_test(tc, frequency_matching_recovers_noise);
    tcase_add_test(tc, mask_curves_rough_where_high);
    tcase_add_test(tc, output_curve_improves_chi2);
    tcase_add_test(tc, slope_match_and_gain);
    tcase_add_test(tc, slope_match_with_drainage);
    tcase_add_test(tc, deterministic_across_threads);
    tcase_add_test(tc, heavy_tailed_band_gets_a_gentler_curve);
    tcase_add_test(tc, layers_option_rules);
    tcase_add_test(tc, layer_kinds_on_bands);
    tcase_add_test(tc, noise_auto_on_bands);
    tcase_add_test(tc, noise_auto_on_one_band);
    tcase_add_test(tc, drainage_carves_valleys);
    tcase_add_test(tc, drainage_not_on_a_cone);
    suite_add_tcase(s, tc);
    return tu_run_suite(s);
}
