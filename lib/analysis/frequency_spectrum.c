/*
 * The spectrum estimator: the reference layer's radially averaged power
 * spectrum against the base noise's, as synthesized (noise through the
 * layer's curve), scaled to each candidate frequency, with a fitted
 * amplitude and white-noise floor; the misfit is measured in log power.
 */
#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/frequency_internal.h"
#include "base/error.h"
#include "terrafit/stats.h"

/*
 * The model rendering (docs/frequency.md): the base noise's unit value on a
 * SM_SIDE x SM_SIDE grid at SM_STEP lattice units per sample (51.2 lattice
 * units across), computed once per noise kind; each call maps it through the
 * layer's curve and takes its spectrum. A noise rendered at frequency f0 has
 * the spectrum S0(k f0 / f) at frequency f, so this one rendering serves
 * every candidate: in lattice units, model(nu) with nu = k / f cycles per
 * lattice unit. Nyquist is nu = 0.5 / SM_STEP = 5.
 */
#define SM_SIDE 512
#define SM_STEP 0.1
#define SM_SEED 0x2545F491u
/* Band: up to the frequency where the model's power has fallen BAND_DROP
 * below its peak, widened by BAND_MARGIN around the current candidate. */
#define BAND_DROP 1e-5
#define BAND_MARGIN 1.15
#define BAND_MIN_BINS 6
#define GRID_POINTS 31
#define MAX_ROUNDS 12

/* (Extended to the seven further noise types, evaluated through
 * tf_noise_eval_gradient, the same values tf_noise_eval gives the first two.) */
_Static_assert(TF_NOISE_TYPE_COUNT == 9, "a new noise kind needs its model builder");

typedef struct {
    pthread_once_t once;
    float *unit; /* SM_SIDE^2 values u = (n + 1) / 2, or NULL when out of memory */
} model_cache;

#define SM_INIT {PTHREAD_ONCE_INIT, NULL}
static model_cache models[TF_NOISE_TYPE_COUNT] = {SM_INIT, SM_INIT, SM_INIT, SM_INIT, SM_INIT,
                                                  SM_INIT, SM_INIT, SM_INIT, SM_INIT};

static void build_model(tf_noise_type type)
{
    float *u = malloc((size_t)SM_SIDE * SM_SIDE * sizeof *u);
    if (!u)
        return;
    /* Far from the origin and from the peak table's lines; z for the 3D
     * reference noise is arbitrary. */
    for (size_t j = 0; j < SM_SIDE; j++)
        for (size_t i = 0; i < SM_SIDE; i++)
            u[j * SM_SIDE + i] = (float)(0.5 + 0.5 * tf_noise_eval_gradient(type, SM_SEED,
                                                                     7301.13 + (double)i * SM_STEP,
                                                                     -5207.71 + (double)j * SM_STEP,
                                                                     3.37, NULL, NULL));
    models[type].unit = u;
}

static void build_model_0(void) { build_model((tf_noise_type)0); }
static void build_model_1(void) { build_model((tf_noise_type)1); }
static void build_model_2(void) { build_model((tf_noise_type)2); }
static void build_model_3(void) { build_model((tf_noise_type)3); }
static void build_model_4(void) { build_model((tf_noise_type)4); }
static void build_model_5(void) { build_model((tf_noise_type)5); }
static void build_model_6(void) { build_model((tf_noise_type)6); }
static void build_model_7(void) { build_model((tf_noise_type)7); }
static void build_model_8(void) { build_model((tf_noise_type)8); }

static const float *model_unit(tf_noise_type type)
{
    static void (*const builders[TF_NOISE_TYPE_COUNT])(void) = {
        build_model_0, build_model_1, build_model_2, build_model_3, build_model_4,
        build_model_5, build_model_6, build_model_7, build_model_8};
    pthread_once(&models[type].once, builders[type]);
    return models[type].unit;
}

/* The model's radial spectrum in lattice units: power at nu = b * dnu. */
typedef struct {
    size_t bins;
    double dnu;
    double *log_power; /* ln power; -inf where the model has none */
    double nu_peak;    /* where the (smoothed) power is largest */
    double nu_median;  /* half the power lies below (median_power_bin) */
    double nu_cut;     /* last nu with power >= BAND_DROP * peak, capped */
} model_spectrum;

static double model_at(const model_spectrum *m, double nu)
{
    double x = nu / m->dnu;
    if (x < 1.0) /* gradient noise: power ~ nu^2 near 0; only the first bins need it */
        return exp(m->log_power[1]) * x * x;
    size_t i = (size_t)x;
    if (i >= m->bins - 1)
        return exp(m->log_power[m->bins - 1]);
    double t = x - (double)i;
    double a = m->log_power[i], b = m->log_power[i + 1];
    if (!isfinite(a) || !isfinite(b))
        return 0.0;
    return exp(a + t * (b - a));
}

/* Bin of the largest smoothed ln power among bins >= 1: a running mean over
 * +-max(1, b/10) bins, so one lucky bin of a single realization cannot win. */
static size_t smoothed_peak_bin(const double *power, const size_t *count, size_t bins)
{
    double best = -INFINITY;
    size_t best_bin = 1;
    for (size_t b = 1; b < bins; b++) {
        size_t half = b / 10 > 1 ? b / 10 : 1;
        size_t lo = b > half ? b - half : 1, hi = b + half < bins ? b + half : bins - 1;
        double sum = 0.0;
        size_t n = 0;
        for (size_t q = lo; q <= hi; q++)
            if ((!count || count[q] > 0) && power[q] > 0.0) {
                sum += log(power[q]);
                n++;
            }
        if (n > 0 && sum / (double)n > best) {
            best = sum / (double)n;
            best_bin = b;
        }
    }
    return best_bin;
}

/* Frequency (in bins, interpolated) below which half of the power above
 * `floor` lies, over bins >= 1, each bin weighted by its frequency count
 * (the power in an annulus). Scale-free and robust for spectra without a
 * clear peak (a 2D slice of 3D noise is flat at low frequencies). */
static double median_power_bin(const double *power, const size_t *count, size_t bins,
                               double floor_power)
{
    double total = 0.0;
    for (size_t b = 1; b < bins; b++)
        if (power[b] > floor_power)
            total += (power[b] - floor_power) * (double)count[b];
    double run = 0.0;
    for (size_t b = 1; b < bins; b++) {
        if (!(power[b] > floor_power))
            continue;
        double add = (power[b] - floor_power) * (double)count[b];
        if (run + add >= 0.5 * total)
            return (double)b - 0.5 + (0.5 * total - run) / add;
        run += add;
    }
    return (double)(bins - 1);
}

static int model_build(tf_noise_type noise, const tf_curve *rd, model_spectrum *m, tf_error *err)
{
    const float *unit = model_unit(noise);
    size_t cells = (size_t)SM_SIDE * SM_SIDE;
    float *values = unit ? malloc(cells * sizeof *values) : NULL;
    if (!values) {
        tf_error_set(err, TF_ERR_NOMEM, "frequency: out of memory for the noise model");
        return -1;
    }
    for (size_t k = 0; k < cells; k++)
        values[k] = rd ? (float)tf_curve_eval(rd, unit[k]) : unit[k];
    tf_radial_spectrum s;
    int rc = tf_radial_spectrum_compute(values, NULL, SM_SIDE, SM_SIDE, &s, err);
    free(values);
    if (rc != 0)
        return -1;
    m->bins = s.bin_count;
    m->dnu = 1.0 / (SM_SIDE * SM_STEP);
    m->log_power = malloc(m->bins * sizeof *m->log_power);
    if (!m->log_power) {
        tf_radial_spectrum_free(&s);
        tf_error_set(err, TF_ERR_NOMEM, "frequency: out of memory for the noise model");
        return -1;
    }
    double peak = 0.0;
    for (size_t b = 0; b < m->bins; b++) {
        m->log_power[b] = s.power[b] > 0.0 ? log(s.power[b]) : -INFINITY;
        if (b > 0 && s.power[b] > peak)
            peak = s.power[b];
    }
    if (!(peak > 0.0) || !isfinite(m->log_power[1])) {
        tf_radial_spectrum_free(&s);
        free(m->log_power);
        m->log_power = NULL;
        tf_error_set(err, TF_ERR_INVALID,
                     "frequency: the redistribution curve maps the base noise to a constant, "
                     "so its spectrum has no power to match");
        return -1;
    }
    m->nu_peak = (double)smoothed_peak_bin(s.power, s.count, m->bins) * m->dnu;
    m->nu_median = median_power_bin(s.power, s.count, m->bins, 0.0) * m->dnu;
    /* Candidates reach BAND_MARGIN^2 beyond the cut; keep that below Nyquist. */
    double cap = (double)(m->bins - 1) * m->dnu / (BAND_MARGIN * BAND_MARGIN * 1.02);
    size_t last = 1;
    for (size_t b = 1; b < m->bins; b++)
        if (s.power[b] >= BAND_DROP * peak)
            last = b;
    m->nu_cut = fmin((double)last * m->dnu, cap);
    tf_radial_spectrum_free(&s);
    return 0;
}

/* The reference side of the fit. */
typedef struct {
    const model_spectrum *model;
    const double *k;      /* cycles per pixel per bin */
    const double *log_p;  /* ln reference power (NaN where unusable) */
    const double *weight; /* frequencies averaged per bin */
    size_t first, last;   /* band [first, last] */
    double *scratch;      /* model values per bin */
} fit_problem;

/* For candidate f: min over A, W >= 0 of
 *     sum_b c_b (ln P_b - ln(A * model(k_b / f) + W))^2
 * by damped Gauss-Newton in (ln A, ln W). Returns the minimum (weighted
 * mean square), with A and W. */
static double misfit_at(const fit_problem *p, double f, double *amplitude, double *floor_out)
{
    double *m = p->scratch;
    double ln_min = INFINITY, best_model = 0.0;
    size_t best_bin = p->first;
    for (size_t b = p->first; b <= p->last; b++) {
        m[b] = model_at(p->model, p->k[b] / f);
        if (!isnan(p->log_p[b])) {
            if (m[b] > best_model) {
                best_model = m[b];
                best_bin = b;
            }
            if (p->log_p[b] < ln_min)
                ln_min = p->log_p[b];
        }
    }
    if (!(best_model > 0.0) || !isfinite(ln_min))
        return INFINITY;
    /* Start: the model's strongest bin matched, the floor well below the
     * weakest reference bin. */
    double a = p->log_p[best_bin] - log(best_model), w = ln_min - 2.0;
    double cost = INFINITY, total = 0.0;
    for (int it = 0; it < 200; it++) {
        double ea = exp(a), ew = exp(w);
        double h00 = 0, h01 = 0, h11 = 0, g0 = 0, g1 = 0;
        cost = total = 0.0;
        for (size_t b = p->first; b <= p->last; b++) {
            if (isnan(p->log_p[b]))
                continue;
            double c = p->weight[b];
            double model = ea * m[b] + ew;
            double r = p->log_p[b] - log(model);
            double ja = ea * m[b] / model, jw = ew / model;
            cost += c * r * r;
            total += c;
            g0 += c * r * ja;
            g1 += c * r * jw;
            h00 += c * ja * ja;
            h01 += c * ja * jw;
            h11 += c * jw * jw;
        }
        double damp = 1e-9 * (h00 + h11) + 1e-300;
        h00 += damp;
        h11 += damp;
        double det = h00 * h11 - h01 * h01;
        if (!(det > 0.0))
            break;
        double da = (h11 * g0 - h01 * g1) / det, dw = (h00 * g1 - h01 * g0) / det;
        da = fmax(-3.0, fmin(3.0, da));
        dw = fmax(-3.0, fmin(3.0, dw));
        a += da;
        /* A floor 20 decades below the amplitude is no floor: stop there
         * rather than walking it down forever. */
        double w_next = fmax(w + dw, a - 46.0);
        dw = w_next - w;
        w = w_next;
        if (fabs(da) < 1e-10 && fabs(dw) < 1e-10)
            break;
    }
    *amplitude = exp(a);
    *floor_out = exp(w);
    return total > 0.0 ? cost / total : INFINITY;
}

/* Grid of GRID_POINTS candidates over [lo, hi] (log spaced), then golden
 * section between the best point's neighbours. */
static double search_window(const fit_problem *p, double lo, double hi, int *edge_low,
                            int *edge_high)
{
    double llo = log(lo), lhi = log(hi), step = (lhi - llo) / (GRID_POINTS - 1);
    double best = INFINITY, a, w;
    int best_i = 0;
    for (int i = 0; i < GRID_POINTS; i++) {
        double c = misfit_at(p, exp(llo + step * i), &a, &w);
        if (c < best) {
            best = c;
            best_i = i;
        }
    }
    *edge_low = best_i == 0;
    *edge_high = best_i == GRID_POINTS - 1;
    double x0 = llo + step * (best_i > 0 ? best_i - 1 : 0);
    double x3 = llo + step * (best_i < GRID_POINTS - 1 ? best_i + 1 : GRID_POINTS - 1);
    const double g = 0.3819660112501051;
    double x1 = x0 + g * (x3 - x0), x2 = x3 - g * (x3 - x0);
    double c1 = misfit_at(p, exp(x1), &a, &w), c2 = misfit_at(p, exp(x2), &a, &w);
    for (int it = 0; it < 40; it++) {
        if (c1 <= c2) {
            x3 = x2;
            x2 = x1;
            c2 = c1;
            x1 = x0 + g * (x3 - x0);
            c1 = misfit_at(p, exp(x1), &a, &w);
        } else {
            x0 = x1;
            x1 = x2;
            c1 = c2;
            x2 = x3 - g * (x3 - x0);
            c2 = misfit_at(p, exp(x2), &a, &w);
        }
    }
    double x = c1 <= c2 ? x1 : x2;
    if (best < fmin(c1, c2)) /* the grid point beat the refinement (flat or noisy cost) */
        x = llo + step * best_i;
    return exp(x);
}

static int compare_doubles(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

int freq_spectrum_estimate(const tf_layer_map *layer, tf_noise_type noise, const tf_curve *rd,
                           freq_spectrum_fit *fit, tf_error *err)
{
    memset(fit, 0, sizeof *fit);
    fit->frequency = NAN;
    size_t w = layer->width, h = layer->height;
    if (w < 16 || h < 16) {
        tf_error_set(err, TF_ERR_INVALID,
                     "spectrum: a %zux%zu layer is too small for a power spectrum (16x16 at "
                     "least)",
                     w, h);
        return -1;
    }
    model_spectrum model = {0};
    if (model_build(noise, rd, &model, err) != 0)
        return -1;
    tf_radial_spectrum ref;
    if (tf_radial_spectrum_compute(layer->value, layer->weight, w, h, &ref, err) != 0) {
        free(model.log_power);
        return -1;
    }
    size_t bins = ref.bin_count, n_max = w > h ? w : h;
    double *log_p = malloc(bins * sizeof *log_p), *weight = malloc(bins * sizeof *weight);
    double *scratch = malloc(bins * sizeof *scratch), *sorted = malloc(bins * sizeof *sorted);
    int rc = -1;
    if (!log_p || !weight || !scratch || !sorted) {
        tf_error_set(err, TF_ERR_NOMEM, "spectrum: out of memory");
        goto done;
    }
    size_t powered = 0;
    for (size_t b = 0; b < bins; b++) {
        int usable = b > 0 && ref.count[b] > 0 && ref.power[b] > 0.0 && isfinite(ref.power[b]);
        log_p[b] = usable ? log(ref.power[b]) : NAN;
        weight[b] = (double)ref.count[b];
        powered += usable;
    }
    if (powered < BAND_MIN_BINS) {
        tf_error_set(err, TF_ERR_INVALID,
                     "spectrum: the visible values of the %zux%zu layer have no variation to "
                     "match (constant layer)",
                     w, h);
        goto done;
    }

    /* Searchable range: the band must hold BAND_MIN_BINS bins, and the
     * model's peak must lie below the reference's Nyquist frequency. */
    double f_min = BAND_MIN_BINS / (BAND_MARGIN * model.nu_cut * (double)n_max);
    double f_max = 0.5 / model.nu_peak;
    if (!(f_min < f_max)) {
        tf_error_set(err, TF_ERR_INVALID, "spectrum: a %zux%zu layer is too small to match", w,
                     h);
        goto done;
    }
    /* Start: align the frequency below which half the reference's power
     * lies with the model's; a first floor estimate (the median power of
     * the top quarter of frequencies) is taken off so white noise does not
     * drag it up. The search below walks from there. */
    size_t top = 0;
    for (size_t b = bins - bins / 4; b < bins; b++)
        if (!isnan(log_p[b]))
            sorted[top++] = ref.power[b];
    double floor0 = 0.0;
    if (top > 0) {
        qsort(sorted, top, sizeof *sorted, compare_doubles);
        floor0 = sorted[top / 2];
    }
    double fc = median_power_bin(ref.power, ref.count, bins, floor0) / (double)n_max /
                model.nu_median;
    fc = fmin(fmax(fc, f_min), f_max);
    fit_problem p = {&model, ref.frequency, log_p, weight, 1, 1, scratch};
    double best = fc;
    for (int round = 0; round < MAX_ROUNDS; round++) {
        /* The band is fixed while one window is searched, so every candidate
         * is scored on the same bins. */
        double kmax = model.nu_cut * BAND_MARGIN * fc;
        size_t last = (size_t)floor(kmax * (double)n_max);
        p.last = last < bins - 1 ? last : bins - 1;
        double lo = fmax(fc / BAND_MARGIN, f_min), hi = fmin(fc * BAND_MARGIN, f_max);
        int edge_low, edge_high;
        best = search_window(&p, lo, hi, &edge_low, &edge_high);
        int moved = fabs(log(best / fc)) > 0.01;
        int at_window_edge = (edge_low && lo > f_min) || (edge_high && hi < f_max);
        fc = best;
        if (!moved && !at_window_edge)
            break;
    }
    fit->frequency = best;
    fit->misfit = sqrt(misfit_at(&p, best, &fit->amplitude, &fit->floor));
    fit->band_bins = p.last - p.first + 1;
    /* Within 10% of a limit the band holds too few bins to trust. */
    fit->at_limit = best <= f_min * 1.1 || best >= f_max / 1.1;
    /* The white-noise figure: the median power of the bins beyond the band
     * when there are enough (there the noise model has no power left), else
     * the fitted floor. */
    size_t beyond = 0;
    for (size_t b = p.last + 1; b < bins; b++)
        if (!isnan(log_p[b]))
            sorted[beyond++] = ref.power[b];
    if (beyond >= 16) {
        qsort(sorted, beyond, sizeof *sorted, compare_doubles);
        fit->white = sorted[beyond / 2];
    } else {
        fit->white = fit->floor;
    }
    rc = 0;
done:
    free(log_p);
    free(weight);
    free(scratch);
    free(sorted);
    free(model.log_power);
    tf_radial_spectrum_free(&ref);
    return rc;
}
