/*
 * Spectral parts of auto-layering (docs/fitting.md, "Auto-layering"): the
 * base noise's radial spectrum (measured once per kind and kept until
 * tf_fit_release_caches), each band's frequency by spectral-centroid
 * matching, and the joint amplitude calibration of the layers against the
 * reference's spectrum.
 */
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/autolayer_internal.h"
#include "base/error.h"
#include "terrafit/terrafit.h"

/* The base noise's spectrum: 2 sheets of 512 x 512 samples, 1/8 lattice
 * unit apart, so lattice frequencies up to 4 cycles per unit in steps of
 * 1/64 are resolved. */
#define NOISE_SPECTRUM_SIDE 512
#define NOISE_SPECTRUM_STEP 0.125
#define NOISE_SPECTRUM_SHEETS 2
/* Spectral centroids start at radial bin 2: bin 1 (one cycle across the
 * map) is mostly the Hann window's main lobe around the mean and the
 * window's own outline, which would pull a low-pass band's centroid (and
 * frequency) to the size of the map itself. */
#define CENTROID_FIRST_BIN 2
/* Joint amplitude calibration (docs/fitting.md): penalty weights and the
 * bound on any amplitude. */
#define CALIBRATION_SMOOTHNESS 0.02
#define CALIBRATION_RIDGE 0.005
#define CALIBRATION_ITERATIONS 40
#define AMPLITUDE_MAX 4.0

/* ------------------------------------------------- the noise's spectrum */

typedef struct {
    size_t bins;
    double g_step;   /* lattice cycles per unit between bins */
    double *density; /* power per unit area of lattice frequency, per bin */
} noise_spectrum;

static pthread_mutex_t spectrum_lock = PTHREAD_MUTEX_INITIALIZER;
static noise_spectrum spectrum_cache[TF_NOISE_TYPE_COUNT];

/* The radially averaged power spectrum of u = (n + 1) / 2 in lattice
 * units: measured on NOISE_SPECTRUM_SHEETS sheets at seeds and places far
 * apart, averaged, and scaled by step^2 so it is a density over lattice
 * frequency (integral = variance of u). Built once per kind and kept until
 * tf_fit_release_caches. */
static const noise_spectrum *noise_spectrum_get(tf_noise_type noise, tf_error *err)
{
    static const uint32_t seeds[NOISE_SPECTRUM_SHEETS] = {0x2545F491u, 0x9E3779B9u};
    static const double origin[NOISE_SPECTRUM_SHEETS][3] = {{-3000.25, 1000.5, 0.3},
                                                           {5000.125, -7000.75, 17.7}};
    pthread_mutex_lock(&spectrum_lock);
    noise_spectrum *ns = &spectrum_cache[noise];
    if (ns->density) {
        pthread_mutex_unlock(&spectrum_lock);
        return ns;
    }
    size_t n = NOISE_SPECTRUM_SIDE, bins = n / 2 + 1;
    float *grid = malloc(n * n * sizeof *grid);
    double *density = calloc(bins, sizeof *density);
    if (!grid || !density) {
        free(grid);
        free(density);
        pthread_mutex_unlock(&spectrum_lock);
        tf_error_set(err, TF_ERR_NOMEM, "auto-layering: out of memory for the noise spectrum");
        return NULL;
    }
    for (size_t s = 0; s < NOISE_SPECTRUM_SHEETS; s++) {
        for (size_t j = 0; j < n; j++)
            for (size_t i = 0; i < n; i++) {
                double x = origin[s][0] + (double)i * NOISE_SPECTRUM_STEP;
                double y = origin[s][1] + (double)j * NOISE_SPECTRUM_STEP;
                grid[j * n + i] =
                    (float)((tf_noise_eval(noise, seeds[s], x, y, origin[s][2]) + 1.0) * 0.5);
            }
        tf_radial_spectrum sp;
        if (tf_radial_spectrum_compute(grid, NULL, n, n, &sp, err) != 0) {
            free(grid);
            free(density);
            pthread_mutex_unlock(&spectrum_lock);
            return NULL;
        }
        for (size_t b = 0; b < bins && b < sp.bin_count; b++)
            density[b] += sp.power[b] * NOISE_SPECTRUM_STEP * NOISE_SPECTRUM_STEP /
                          NOISE_SPECTRUM_SHEETS;
        tf_radial_spectrum_free(&sp);
    }
    free(grid);
    ns->bins = bins;
    ns->g_step = 1.0 / ((double)n * NOISE_SPECTRUM_STEP);
    ns->density = density;
    pthread_mutex_unlock(&spectrum_lock);
    return ns;
}

void autolayer_noise_spectra_release(void)
{
    pthread_mutex_lock(&spectrum_lock);
    for (size_t k = 0; k < TF_NOISE_TYPE_COUNT; k++) {
        free(spectrum_cache[k].density);
        memset(&spectrum_cache[k], 0, sizeof spectrum_cache[k]);
    }
    pthread_mutex_unlock(&spectrum_lock);
}

/* The density at lattice frequency g, linear between bins; the first
 * bin's value below it (bin 0 is the removed mean), 0 beyond the table. */
static double noise_density(const noise_spectrum *ns, double g)
{
    double pos = g / ns->g_step;
    if (!(pos >= 1.0))
        return ns->density[1];
    if (pos >= (double)(ns->bins - 1))
        return 0.0;
    size_t b = (size_t)pos;
    double t = pos - (double)b;
    return ns->density[b] + t * (ns->density[b + 1] - ns->density[b]);
}

int autolayer_noise_spectrum_prepare(tf_noise_type noise, tf_error *err)
{
    return noise_spectrum_get(noise, err) ? 0 : -1;
}

/* ------------------------------------------------- frequency matching */

double tf_band_centroid(const tf_bands *bands, size_t k, const tf_radial_spectrum *spectrum)
{
    if (!bands || k >= bands->count || !spectrum)
        return NAN;
    double num = 0.0, den = 0.0;
    for (size_t b = CENTROID_FIRST_BIN; b < spectrum->bin_count; b++) {
        double f = spectrum->frequency[b], h = tf_band_transfer(bands, k, f);
        double p = spectrum->power[b] * h * h * (double)spectrum->count[b];
        num += f * p;
        den += p;
    }
    return den > 0.0 ? num / den : NAN;
}

/* The centroid of the noise at frequency F through band k on the bins of
 * `spectrum`: the noise's power at f cycles per pixel is density(f / F) / F^2,
 * and F^2 cancels in the ratio. */
static double noise_centroid(const noise_spectrum *ns, const tf_bands *bands, size_t k,
                             const tf_radial_spectrum *spectrum, double freq)
{
    double num = 0.0, den = 0.0;
    for (size_t b = CENTROID_FIRST_BIN; b < spectrum->bin_count; b++) {
        double f = spectrum->frequency[b], h = tf_band_transfer(bands, k, f);
        double p = noise_density(ns, f / freq) * h * h * (double)spectrum->count[b];
        num += f * p;
        den += p;
    }
    return den > 0.0 ? num / den : NAN;
}

double tf_band_match_frequency(const tf_bands *bands, size_t k, tf_noise_type noise,
                               double centroid, const tf_radial_spectrum *spectrum,
                               tf_error *err)
{
    if (!bands || k >= bands->count || !spectrum || spectrum->bin_count < 2 ||
        (unsigned)noise >= TF_NOISE_TYPE_COUNT || !(centroid > 0.0)) {
        tf_error_set(err, TF_ERR_ARGUMENT, "band %zu: nothing to match a frequency to", k);
        return NAN;
    }
    const noise_spectrum *ns = noise_spectrum_get(noise, err);
    if (!ns)
        return NAN;
    /* The noise's centroid grows with its frequency (its spectrum slides
     * up the frequency axis): bisection on ln F. At very low F the noise
     * has no power left in the band (beyond its measured spectrum): that
     * counts as a centroid below the target. */
    double lo = log(1e-5), hi = log(4.0);
    double c_hi = noise_centroid(ns, bands, k, spectrum, exp(hi));
    if (!(c_hi >= centroid)) {
        if (isnan(c_hi)) {
            tf_error_set(err, TF_ERR_INVALID, "band %zu: the noise has no power in the band", k);
            return NAN;
        }
        return exp(hi); /* finer than the noise can be through this band */
    }
    for (int it = 0; it < 60; it++) {
        double mid = 0.5 * (lo + hi);
        double c = noise_centroid(ns, bands, k, spectrum, exp(mid));
        if (c >= centroid)
            hi = mid;
        else
            lo = mid;
    }
    tf_error_clear(err);
    return exp(0.5 * (lo + hi));
}

/* -------------------------------------------- amplitude calibration */

/* Solve the n x n system a x = b in place (Gaussian elimination with
 * partial pivoting). 0 on success. */
static int solve_small(double *a, double *b, size_t n)
{
    for (size_t c = 0; c < n; c++) {
        size_t piv = c;
        for (size_t r = c + 1; r < n; r++)
            if (fabs(a[r * n + c]) > fabs(a[piv * n + c]))
                piv = r;
        if (!(fabs(a[piv * n + c]) > 1e-300))
            return -1;
        if (piv != c) {
            for (size_t j = 0; j < n; j++) {
                double t = a[c * n + j];
                a[c * n + j] = a[piv * n + j];
                a[piv * n + j] = t;
            }
            double t = b[c];
            b[c] = b[piv];
            b[piv] = t;
        }
        for (size_t r = c + 1; r < n; r++) {
            double m = a[r * n + c] / a[c * n + c];
            for (size_t j = c; j < n; j++)
                a[r * n + j] -= m * a[c * n + j];
            b[r] -= m * b[c];
        }
    }
    for (size_t c = n; c-- > 0;) {
        double s = b[c];
        for (size_t j = c + 1; j < n; j++)
            s -= a[c * n + j] * b[j];
        b[c] = s / a[c * n + c];
    }
    return 0;
}

/* The calibration's data: per used bin b, its weight and the layers' model
 * powers M_k(b) (row-major, n per bin). */
typedef struct {
    size_t bins, n;
    const double *weight, *model, *ref_power;
} calibration_data;

/* ln(sum_k e^(x_k) M_k(b)) - ln P_ref(b), and the model power into *p. */
static double log_residual(const calibration_data *cd, const double *x, size_t b, double *p)
{
    double sum = 1e-300;
    for (size_t k = 0; k < cd->n; k++)
        sum += exp(x[k]) * cd->model[b * cd->n + k];
    *p = sum;
    return log(sum) - log(cd->ref_power[b]);
}

/* The data term sum_b w_b r_b^2. */
static double data_misfit(const calibration_data *cd, const double *x)
{
    double sum = 0.0, p;
    for (size_t b = 0; b < cd->bins; b++)
        if (cd->weight[b] != 0.0) {
            double r = log_residual(cd, x, b, &p);
            sum += cd->weight[b] * r * r;
        }
    return sum;
}

/* The whole objective: data term plus the smoothness and ridge penalties. */
static double calibration_objective(const calibration_data *cd, const double *x)
{
    double obj = data_misfit(cd, x);
    for (size_t k = 0; k < cd->n; k++) {
        obj += CALIBRATION_RIDGE * x[k] * x[k];
        if (k + 1 < cd->n)
            obj += CALIBRATION_SMOOTHNESS * (x[k + 1] - x[k]) * (x[k + 1] - x[k]);
    }
    return obj;
}

/* Joint amplitudes (docs/fitting.md, "Amplitudes"): with M_k(f) the radial
 * spectrum of layer k synthesized alone at amplitude 1 (measured on a
 * window of the reference's size, so windowing and leakage are the same as
 * the reference's) and x_k = ln a_k^2, minimize
 *   sum_b w_b (ln sum_k e^(x_k) M_k(f_b) - ln P_ref(f_b))^2
 *     + lambda sum_k (x_(k+1) - x_k)^2 + mu sum_k x_k^2
 * (w_b = 1/b normalized: each octave weighs the same) by damped
 * Gauss-Newton. Returns the amplitudes a_k and the data term's RMS. */
int autolayer_calibrate_amplitudes(const tf_radial_spectrum *layer_spectra,
                                   const tf_radial_spectrum *ref, size_t count, double *amp,
                                   double *rms_out, tf_error *err)
{
    size_t bins = ref->bin_count, n = count;
    double *model = malloc(bins * n * sizeof *model), *wb = malloc(bins * sizeof *wb);
    double *ata = malloc(n * n * sizeof *ata), *atb = malloc(n * sizeof *atb);
    double *x = calloc(n, sizeof *x), *trial = malloc(n * sizeof *trial);
    if (!model || !wb || !ata || !atb || !x || !trial) {
        free(model), free(wb), free(ata), free(atb), free(x), free(trial);
        tf_error_set(err, TF_ERR_NOMEM, "auto-layering: out of memory (calibration)");
        return -1;
    }
    double wsum = 0.0;
    for (size_t b = 0; b < bins; b++) {
        /* Bins 1 .. N/4 (the band of the spectral slope, docs/metrics.md):
         * above it pixel aliasing and quantization flatten real spectra,
         * which no smooth noise layer reproduces. */
        int use = b >= 1 && 2 * b <= bins - 1 && ref->count[b] > 0 && ref->power[b] > 0.0;
        wb[b] = use ? 1.0 / (double)b : 0.0;
        wsum += wb[b];
        for (size_t k = 0; k < n; k++)
            model[b * n + k] = use && b < layer_spectra[k].bin_count ? layer_spectra[k].power[b]
                                                                      : 0.0;
    }
    for (size_t b = 0; b < bins; b++)
        wb[b] /= wsum > 0.0 ? wsum : 1.0;
    calibration_data cd = {bins, n, wb, model, ref->power};
    const double xmax = 2.0 * log(AMPLITUDE_MAX), lambda = CALIBRATION_SMOOTHNESS,
                 mu = CALIBRATION_RIDGE;
    double damping = 1e-3, obj = calibration_objective(&cd, x);
    for (int it = 0; it < CALIBRATION_ITERATIONS; it++) {
        /* Normal equations of the linearized problem: J^T W J + penalties,
         * J_bk = e^(x_k) M_k(b) / P_model(b). */
        memset(ata, 0, n * n * sizeof *ata);
        memset(atb, 0, n * sizeof *atb);
        for (size_t b = 0; b < bins; b++) {
            if (wb[b] == 0.0)
                continue;
            double p, r = log_residual(&cd, x, b, &p);
            for (size_t k = 0; k < n; k++) {
                double jk = exp(x[k]) * model[b * n + k] / p;
                atb[k] += wb[b] * jk * r;
                for (size_t l = 0; l < n; l++)
                    ata[k * n + l] += wb[b] * jk * exp(x[l]) * model[b * n + l] / p;
            }
        }
        for (size_t k = 0; k < n; k++) {
            ata[k * n + k] += mu + damping;
            atb[k] += mu * x[k];
            if (k + 1 < n) {
                ata[k * n + k] += lambda;
                ata[(k + 1) * n + k + 1] += lambda;
                ata[k * n + k + 1] -= lambda;
                ata[(k + 1) * n + k] -= lambda;
                atb[k] -= lambda * (x[k + 1] - x[k]);
                atb[k + 1] += lambda * (x[k + 1] - x[k]);
            }
        }
        if (solve_small(ata, atb, n) != 0)
            break;
        for (size_t k = 0; k < n; k++)
            trial[k] = fmin(fmax(x[k] - atb[k], -xmax), xmax);
        /* Levenberg-Marquardt: keep a step that lowers the objective. */
        double obj_trial = calibration_objective(&cd, trial);
        if (obj_trial < obj) {
            memcpy(x, trial, n * sizeof *x);
            obj = obj_trial;
            damping *= 0.3;
        } else {
            damping *= 10.0;
        }
    }
    *rms_out = sqrt(data_misfit(&cd, x));
    for (size_t k = 0; k < n; k++)
        amp[k] = exp(0.5 * x[k]);
    free(model), free(wb), free(ata), free(atb), free(x), free(trial);
    return 0;
}
