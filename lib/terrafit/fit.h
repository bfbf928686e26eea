/*
 * Example-based fitting (thesis 5.4): reference height layers in, terrain
 * spec out. Per layer an equalized redistribution curve (5.4.1), a base
 * frequency, and an automatic mask (5.4.2); docs/fitting.md has every formula.
 *
 *     tf_error err;
 *     tf_layer_map *layers[2] = {tf_layer_map_load("base.png", &err),
 *                                tf_layer_map_load("detail.png", &err)};
 *     tf_fit_options opt;
 *     tf_fit_options_init(&opt);              // 64 points, auto frequency, simplex
 *     tf_spec *spec;
 *     tf_fit_report report;
 *     if (tf_fit((const tf_layer_map *const *)layers, 2, &opt, &spec, &report,
 *                NULL, NULL, &err) != 0)
 *         fprintf(stderr, "%s\n", err.message);
 *     char *json = tf_spec_to_json(spec, &err);   // the spec's only writer
 *     ...
 *     tf_fit_report_free(&report);
 *     tf_spec_free(spec);
 *
 * Fitting is deterministic: the same layers and options give the same spec,
 * bit for bit, whatever the number of threads.
 */
#ifndef TERRAFIT_FIT_H
#define TERRAFIT_FIT_H

#include <stddef.h>
#include <stdint.h>
#include <terrafit/frequency.h>
#include <terrafit/image.h>
#include <terrafit/runtime.h>
#include <terrafit/stats.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Progress, for fitting here and for rendering and erosion in terrafit.h
 * (declared once, here, as terrafit.h includes this header): called from
 * the calling thread, at most a few times a second (fitting: a few times
 * per layer), and once at the end with done == total. */
typedef void (*tf_progress_fn)(void *user, size_t rows_done, size_t rows_total);

#define TF_FIT_DEFAULT_POINTS 64
/* Most control points per curve: keeps at least 2^20 / 4096 = 256 base-noise
 * sample values per curve segment (docs/fitting.md, "Control points"). */
#define TF_FIT_MAX_POINTS 4096
/* Histogram bins of the chi-square figure (thesis Table 3 uses 32). */
#define TF_FIT_CHI2_BINS 32
/* The synthesized layer is rendered on a window this far from the fitting
 * window (in world units, along x and y), so it shares no sample with it. */
#define TF_FIT_SYNTHESIS_OFFSET 100000.0
/* Values in the base-noise sample used for equalization (docs/fitting.md). */
#define TF_NOISE_SAMPLE_COUNT ((size_t)1 << 20)
/* Auto-layering (docs/fitting.md, "Auto-layering a single DEM"): `layers`
 * 0 picks the band count from the size; at most this many bands. */
#define TF_FIT_LAYERS_AUTO 0
#define TF_FIT_MAX_BANDS 16
/* Equal-count bins of the coarse elevation a learned mask curve uses. */
#define TF_FIT_MASK_CURVE_BINS 12
/* The most reference pixels (width x height x layers) a fit takes on by
 * default, and the measured peak memory a pixel may cost (docs/fitting.md,
 * "Memory and time": about 100-160 bytes a pixel for a DEM in the default
 * mode, up to 300 with 16 bands or --noise auto): 2^25 pixels stay within
 * about 10 GB, which a 24 GB machine honours. */
#define TF_FIT_DEFAULT_MAX_PIXELS ((size_t)1 << 25)
#define TF_FIT_BYTES_PER_PIXEL 300u

/* --noise auto (docs/fitting.md, "Noises and layer kinds"): the noises
 * tried per layer, in this order (ties keep the earlier one). */
#define TF_FIT_AUTO_CANDIDATES 7
extern TF_API const tf_noise_type tf_fit_auto_candidates[TF_FIT_AUTO_CANDIDATES];
/* tf_fit_options.layer_noise[i]: this layer tries the candidates. */
#define TF_FIT_LAYER_NOISE_AUTO 255

/* tf_fit_options.drainage (docs/fitting.md, "The drainage stage"). */
typedef enum {
    TF_FIT_DRAINAGE_AUTO = 0, /* a DEM split into bands gets the stage where it
                               * brings the fit closer to the DEM */
    TF_FIT_DRAINAGE_OFF = 1,  /* never: the spec of a fit without the feature */
    TF_FIT_DRAINAGE_ON = 2    /* always (reference-layer fits too) */
} tf_fit_drainage_mode;

/* Most levels tf_fit_options.drainage_levels may ask for. */
#define TF_FIT_DRAINAGE_MAX_LEVELS TF_MAX_DRAINAGE_LEVELS
/* tf_fit_options.drainage_inflow: no limit on a node's inflow (the
 * spec's drainage.inflow 0). */
#define TF_FIT_DRAINAGE_INFLOW_ANY (-1)

/* Most cells tf_fit_options.drainage_breach may ask for (the spec's
 * drainage.breach is 1..4, docs/spec.md). */
#define TF_FIT_DRAINAGE_MAX_BREACH 4

typedef struct {
    size_t points;                  /* K: control points per curve, 2..TF_FIT_MAX_POINTS */
    tf_frequency_method frequency;  /* peaks, spectrum or auto */
    tf_noise_type noise;            /* base noise of every layer */
    uint32_t seed;                  /* root seed: layer seeds and offsets (tf_spec_reseed) */
    unsigned threads;               /* worker threads; 0 = one per core */
    /* Names of the layers for messages and the report (e.g. file names),
     * `count` strings, or NULL for "layer 0", "layer 1", ... */
    const char *const *names;
    /* A single fully present reference (a DEM) is split into this many
     * octave bands, one layer each: TF_FIT_LAYERS_AUTO (0, the default)
     * picks the count from its size, 1 is the thesis's one layer, at most
     * TF_FIT_MAX_BANDS. Several references keep one layer per reference
     * (then only 0 or their count is accepted). */
    size_t layers;
    /* Layer kinds (docs/fitting.md, "Noises and layer kinds").
     * `fractal`: every layer's kind, with tf_fractal_set_defaults'
     * parameters; TF_FRACTAL_NONE (the default) is plain noise.
     * `noise_auto`: every layer tries tf_fit_auto_candidates and keeps the
     * best (then `noise` is unused). Per-layer overrides by layer index:
     * layer_noise[i] 0 keeps the above, k + 1 is noise type k,
     * TF_FIT_LAYER_NOISE_AUTO tries the candidates; layer_fractal[i] 0 keeps
     * `fractal`, k + 1 is kind k. Zeroed arrays (tf_fit_options_init)
     * change nothing. A single DEM split into bands (auto-layering) takes
     * all of these per band (layer i is band i, 0 the coarsest); there a
     * band's --noise auto scores each candidate by the whole terrain. */
    tf_fractal_kind fractal;
    int noise_auto;
    unsigned char layer_noise[TF_MAX_LAYERS];
    unsigned char layer_fractal[TF_MAX_LAYERS];
    /* The most reference pixels the fit takes on: width x height times the
     * number of references (TF_ERR_LIMIT beyond, before anything is
     * allocated). 0 (tf_fit_options_init) is TF_FIT_DEFAULT_MAX_PIXELS;
     * SIZE_MAX lifts the limit. Peak memory grows with it, up to
     * TF_FIT_BYTES_PER_PIXEL bytes a pixel. */
    size_t max_pixels;
    /* The drainage stage (docs/fitting.md, "The drainage stage"): the
     * mode, and the artist's knobs over the derived parameters: a factor
     * on the valley depth (0 or 1: as derived; > 0), level 0's spacing in
     * pixels (0: derived; > 0), the levels (0: derived; 1 to
     * TF_FIT_DRAINAGE_MAX_LEVELS), the breach (0: derived; 1 to
     * TF_FIT_DRAINAGE_MAX_BREACH) and the inflow (0: chosen by the score;
     * 1 to 8: the spec's drainage.inflow; TF_FIT_DRAINAGE_INFLOW_ANY: no
     * limit). */
    tf_fit_drainage_mode drainage;
    double drainage_depth;
    double drainage_spacing;
    int drainage_levels;
    int drainage_breach;
    int drainage_inflow;
    /* The slope match of an auto-layered fit (docs/fitting.md, "Slope
     * match"): 0 (the default) tilts the finer layers' amplitudes so the
     * terrain's mean slope is the DEM's, where the slope answers the tilt;
     * 1 keeps the calibrated amplitudes (the fit before the match). */
    int slope_match_off;
} tf_fit_options;

/* One candidate of --noise auto for one layer: the layer fitted with that
 * noise (its kind kept), synthesized on the window of `chi2`, and compared
 * with the reference by tf_metrics_compute (both normalized by the
 * reference's range). score = slope_chi2 + spectrum_log_rms; the lowest
 * wins. NaN scores (a failed candidate) never win. For a band of an
 * auto-layered DEM, the whole terrain with that noise on the band (every
 * other band at its current noise) is synthesized on the reference's
 * window and scored the same way; frequency and chi2 are the band's, the
 * other figures the terrain's (docs/fitting.md, "--noise auto on the
 * bands"). */
typedef struct {
    tf_noise_type noise;
    double frequency;        /* the estimate it got */
    double chi2;             /* value histogram, as tf_fit_layer_report.chi2 */
    double slope_chi2;       /* tf_metrics_report.slope_chi2 */
    double spectrum_log_rms; /* tf_metrics_report.spectrum_log_rms */
    double score;
    /* Drainage figures of the synthesized layer (tf_map_metrics; not
     * scored, reported): share of cells in closed depressions, pits per peak. */
    double depression_share, pit_peak_ratio;
} tf_fit_noise_candidate;

/* Defaults: TF_FIT_DEFAULT_POINTS, auto, simplex, seed 0, threads 0,
 * layers auto, max_pixels 0 (TF_FIT_DEFAULT_MAX_PIXELS). */
TF_API void tf_fit_options_init(tf_fit_options *opt);

/* What the mask search found for layer i against one lower layer j
 * (thesis 5.4.2; docs/fitting.md, "Masks"). Values are in j's units. */
typedef struct {
    int layer;              /* j */
    size_t overlap_cells;   /* cells where both i and j are visible */
    int considered;         /* 0: j is absent under most of i, or flat */
    double range_min, range_max; /* j over all its visible cells */
    double span_min, span_max;   /* j where i is visible (weight > 0) */
    double core_min, core_max;   /* j where i is at full strength */
    int cut_below, cut_above;    /* the core stops short of j's range there */
    int masks;                   /* cut_below || cut_above */
    double mask_min, mask_max, falloff; /* the mask j would impose */
    double kept_share;           /* share of j's visible cells inside [mask_min, mask_max] */
    double agreement;            /* weighted Jaccard of predicted and actual presence of i */
} tf_fit_mask_candidate;

typedef struct {
    const char *name;          /* as given in the options (not owned), or NULL */
    size_t visible_cells;
    int opaque;                /* present at full strength on every cell */
    int flat;                  /* every visible value equal */
    double value_min, value_max; /* over visible cells */
    size_t points_requested, points; /* K, and after merging ties */
    tf_frequency_estimate frequency; /* both estimates and the one used */
    int frequency_estimated;   /* 0 for a flat layer (frequency has no effect) */
    /* Mask decision: mask_layer -1 for none; reason is one sentence. */
    int mask_layer;
    double mask_min, mask_max, mask_falloff;
    char mask_reason[160];
    tf_fit_mask_candidate *candidates; /* one per lower layer (count = layer index) */
    size_t candidate_count;
    /* chi-square distance (thesis 5.4.1) between the reference layer's
     * visible values and the layer synthesized alone (its noise through its
     * curve) on the window at (TF_FIT_SYNTHESIS_OFFSET, ...) of the same size,
     * TF_FIT_CHI2_BINS bins over [hist_min, hist_max]. */
    double chi2;
    double hist_min, hist_max;
    /* Wall seconds per stage. */
    double seconds_quantiles, seconds_frequency, seconds_synthesis, seconds_mask;
    /* Auto-layering only (tf_fit_report.auto_layered): the band fitted. */
    double band_sigma_fine;   /* low-pass scale (px) below the band; 0 for the finest */
    double band_sigma_coarse; /* low-pass scale (px) above it; 0 for the coarsest */
    double band_rms;          /* RMS of the band's values (the coarsest: its standard deviation) */
    double band_centroid;     /* spectral centroid of the reference through the band, cycles/px */
    double amplitude;         /* ampScale from the joint spectral calibration */
    double kurtosis;          /* excess kurtosis of the de-modulated band */
    double gentle_blend;      /* 1: equalized curve; < 1: heavy-tailed, blended toward linear */
    size_t mask_curve_points; /* 0: no mask curve; else over layer 0's value */
    double mask_curve_min, mask_curve_max; /* its smallest and largest weight */
    /* The layer's noise and kind, and the --noise auto trials
     * (NULL, 0 when the layer did not try candidates). */
    tf_noise_type noise;
    tf_fractal_kind fractal;
    tf_fit_noise_candidate *noise_candidates;
    size_t noise_candidate_count;
} tf_fit_layer_report;

/* The fidelity figures one terrain gets on the drainage decision's
 * windows (means over them; tf_metrics_compute against the reference, both
 * mapped to [0, 1] over the reference's range). */
typedef struct {
    double score;              /* the decision's score (docs/fitting.md) */
    double hist_chi2, spectrum_log_rms, slope_chi2;
    double spectral_slope_diff;  /* |beta - beta_ref| */
    double slope_rate_log_ratio; /* |ln(rate / rate_ref)| */
    double box_dimension_diff;   /* |D - D_ref|, NaN when undefined */
    double depression_share, pit_peak_ratio;
} tf_fit_drainage_scores;

/* The slope match of an auto-layered fit (tf_fit_report.slope_match;
 * docs/fitting.md, "Slope match"). */
typedef struct {
    double reference_mean_slope; /* compare's mean slope of the reference, per pixel */
    double ratio_before;         /* the terrain's mean slope / the reference's, calibrated */
    double ratio_tilted;         /* the same with the tilt */
    double elasticity;           /* d ln(mean slope) / d ln(tilt), first step; NaN: none */
    double tilt;                 /* f: layer k's amplitude times f^(k / (n - 1)) */
    int kept;                    /* the spec holds the tilt */
    double tilted_score, calibrated_score; /* the drainage decision's final score of
                                            * each (of the spec as it is where the stage
                                            * scored nothing); NaN without a tilt */
} tf_fit_slope_match;

/* What the drainage stage measured and decided (tf_fit_report.drainage). */
typedef struct {
    int considered;        /* 0: mode off, or a reference-layer fit without --drainage on */
    int chosen;            /* the spec has the stage */
    char why[160];         /* one short sentence */
    /* The reference's drainage (priority flood, D8, flow accumulation). */
    double channel_threshold;     /* cells: L0^2 / 4 */
    double valley_spacing;        /* px: counted cells / channel cells at the threshold */
    double height_above_drainage; /* mean, in the layers' sum units (before the output curve) */
    double max_accumulation_share; /* largest accumulation / counted cells */
    double reference_depression_share;
    double depression_share_target; /* max(2 ref, ref + 0.06) */
    /* The parameters (those of the best carving candidate when not chosen). */
    const char *preset;    /* "standard", "mild" or "smooth"; NULL when none was built */
    int levels, breach;
    int inflow;            /* the spec's drainage.inflow (0: no limit) */
    double spacing, depth, slope, gamma, fade, detail_wavelength, floor_width, reach;
    double detail_gain;    /* factor on the detail layers' ampScale (1: none) */
    tf_fade_by fade_by;    /* the candidates' fadeBy and breachTo */
    tf_breach_to breach_to;
    size_t windows;        /* scoring windows */
    tf_fit_drainage_scores without, with;
} tf_fit_drainage_report;

typedef struct {
    size_t width, height;
    size_t layer_count;
    tf_fit_layer_report *layers;
    size_t points;
    tf_frequency_method frequency_method;
    tf_noise_type noise;
    int noise_auto;          /* --noise auto: per-layer noises in layers[i].noise */
    tf_fractal_kind fractal; /* the options' kind (layers[i].fractal per layer) */
    uint32_t seed;
    double min_value, max_value; /* of the spec: the combined reference's range */
    double seconds_noise_sample; /* building the base-noise sample (0 once cached) */
    double seconds_total;
    /* Auto-layering (a single DEM split into bands; docs/fitting.md). */
    int auto_layered;
    size_t output_curve_points;      /* 0: no output curve */
    double output_chi2_before;       /* layer sum vs reference, 32 bins, without the curve */
    double output_chi2_after;        /* the same through the output curve */
    double output_slope_gain;        /* RMS slope of the height / of the layer sum */
    double calibration_rms;          /* RMS of ln P_model - ln P_ref over the fitted bins */
    double seconds_bands, seconds_calibration, seconds_output_curve;
    double seconds_noise_auto; /* the bands' --noise auto trials (0 without) */
    tf_fit_slope_match slope_match;
    double seconds_slope_match;
    tf_fit_drainage_report drainage;
    double seconds_drainage;
} tf_fit_report;

/* Fit one spec to `count` reference layers (bottom to top, all the same
 * size). On success returns 0, *spec_out holds a new valid spec (free with
 * tf_spec_free) and, when report_out is not NULL, *report_out is filled
 * (free its contents with tf_fit_report_free). On failure returns -1,
 * *spec_out is NULL, report_out holds nothing to free, and err names the
 * layer and the problem: layers of different sizes, a layer with no visible
 * cell, points out of range, ... A layer whose visible values are all equal
 * is legal: its curve is flat (docs/fitting.md, "Flat layers"). */
TF_API int tf_fit(const tf_layer_map *const *layers, size_t count, const tf_fit_options *opt,
           tf_spec **spec_out, tf_fit_report *report_out, tf_progress_fn progress, void *user,
           tf_error *err);

/* Free what a report holds (not the struct itself); a zeroed report is fine. */
TF_API void tf_fit_report_free(tf_fit_report *report);

/* The report as JSON text (malloc'd; free with free()). With timings = 0 the
 * "seconds" members are left out, so two fits of the same input give the
 * same text. NULL on failure. */
TF_API char *tf_fit_report_to_json(const tf_fit_report *report, int timings, tf_error *err);

/* Free the tables fitting builds once and keeps for reuse: the base-noise
 * samples (8 MiB per distinct noise and layer kind, behind
 * tf_noise_unit_quantiles and tf_layer_unit_quantiles) and the noise
 * spectra of auto-layering. Call it when the process is done fitting (at
 * exit, so leak checkers see nothing left) or to give the memory back
 * between fits; a later fit builds what it needs again and gives the same
 * spec. Never while tf_fit or the quantile functions run on another
 * thread: they read the tables without holding them. */
TF_API void tf_fit_release_caches(void);

/* ---- the building blocks, for tools and tests */

/* Quantiles of the base noise's unit value u = (n + 1) / 2 at the `count`
 * probabilities p[k] in [0, 1], from a deterministic sample of
 * TF_NOISE_SAMPLE_COUNT values (built once per noise kind and process,
 * thread-safe). 0 on success. */
TF_API int tf_noise_unit_quantiles(tf_noise_type noise, const double *p, size_t count, double *out,
                            tf_error *err);

/* The same for a layer kind: the unit value u = (n + 1) / 2 of the layer's
 * actual output, its noise_type and fractal (the other members are
 * ignored), sampled as tf_fractal_eval evaluates it; one sample per
 * distinct (noise, fractal parameters) and process, thread-safe. */
TF_API int tf_layer_unit_quantiles(const tf_layer_spec *kind, const double *p, size_t count,
                            double *out, tf_error *err);

/* The equalized redistribution curve (thesis 5.4.1) of `n` >= 1 sorted
 * reference values for base noise `noise`: `points` control points
 * x_k = noise quantile, y_k = reference quantile at p_k = k / (points - 1),
 * ties in x merged. Writes at most `points` points into out and their
 * number into *out_count (>= 2). 0 on success. */
TF_API int tf_equalized_points(const float *sorted, size_t n, tf_noise_type noise, size_t points,
                        tf_point *out, size_t *out_count, tf_error *err);
/* The same against a layer kind's output distribution (noise_type and
 * fractal of `kind`, as tf_layer_unit_quantiles). */
TF_API int tf_equalized_points_layer(const float *sorted, size_t n, const tf_layer_spec *kind,
                              size_t points, tf_point *out, size_t *out_count, tf_error *err);

/* ---- auto-layering: the octave bands of one reference (docs/fitting.md) */

typedef struct {
    size_t width, height;
    size_t count;    /* bands: 0 the coarsest low-pass ... count-1 the finest residual */
    double *sigma;   /* count entries: sigma[0 .. count-2] the low-pass scales in px,
                        ascending; sigma[count-1] = 0 */
    double **band;   /* count maps of width * height values; 0 at invisible cells */
} tf_bands;

/* The band count TF_FIT_LAYERS_AUTO gives a width x height reference: one
 * more than the octave scales 1, 2, 4, ... px up to 1/8 of the shorter side
 * (1 below 8 px). */
TF_API size_t tf_bands_auto_count(size_t width, size_t height);

/* Split `map` into `count` bands (0: tf_bands_auto_count) of differences of
 * Gaussian low-passes, by normalized convolution over the visible cells
 * (weight > 0, weighted), on up to `threads` threads (0: one per core). Summed
 * in band order, the bands give each visible value back to one rounding.
 * 0 on success (free with tf_bands_free). Deterministic. */
TF_API int tf_bands_decompose(const tf_layer_map *map, size_t count, unsigned threads, tf_bands *out,
                       tf_error *err);
TF_API void tf_bands_free(tf_bands *bands);

/* The nominal transfer function of band k at f cycles per pixel:
 * G_fine(f) - G_coarse(f) with G_s(f) = exp(-2 pi^2 s^2 f^2) (G = 1 without
 * a finer scale, 0 without a coarser one). NaN for k out of range. */
TF_API double tf_band_transfer(const tf_bands *bands, size_t k, double f);

/* The spectral centroid (cycles per pixel) of a radial power spectrum seen
 * through band k's transfer function H: sum f P H^2 n / sum P H^2 n over the
 * bins b >= 2 (n: frequencies in the bin; bin 1 is mostly the window). NaN when it has no power. */
TF_API double tf_band_centroid(const tf_bands *bands, size_t k, const tf_radial_spectrum *spectrum);

/* Frequency matching of one band (docs/fitting.md): the base-noise
 * frequency f (lattice units per pixel) at which `noise`, seen through band
 * k's transfer function on the bins of `spectrum`, has spectral centroid
 * `centroid` (cycles per pixel). NaN (err filled) when no f in
 * [1e-5, 4] does. The noise's spectrum is measured once per kind. */
TF_API double tf_band_match_frequency(const tf_bands *bands, size_t k, tf_noise_type noise,
                               double centroid, const tf_radial_spectrum *spectrum,
                               tf_error *err);

#ifdef __cplusplus
}
#endif
#endif /* TERRAFIT_FIT_H */
