/*
 * Radially averaged power spectrum of a height map (FFTW3), shared by the
 * spectrum frequency estimator and `terrafit compare`: mean removal, a
 * separable Hann window, |F|^2 averaged over rings of integer radius.
 */
#include <fftw3.h>
#include <math.h>
#include <pthread.h>
#include <stdlib.h>

#include "base/error.h"
#include "terrafit/stats.h"

/* FFTW's planner is not thread-safe; executing a plan is. */
static pthread_mutex_t planner_lock = PTHREAD_MUTEX_INITIALIZER;

static double hann(size_t k, size_t n)
{
    /* Periodic Hann: 0.5 - 0.5 cos(2 pi k / n); its mean square is 3/8. */
    return 0.5 - 0.5 * cos(6.283185307179586 * (double)k / (double)n);
}

void tf_radial_spectrum_free(tf_radial_spectrum *spectrum)
{
    if (!spectrum)
        return;
    free(spectrum->frequency);
    free(spectrum->power);
    free(spectrum->count);
    spectrum->frequency = spectrum->power = NULL;
    spectrum->count = NULL;
    spectrum->bin_count = 0;
}

int tf_radial_spectrum_compute(const float *values, const float *weight, size_t w, size_t h,
                               tf_radial_spectrum *out, tf_error *err)
{
    out->bin_count = 0;
    out->frequency = out->power = NULL;
    out->count = NULL;
    if (!values || w < 4 || h < 4 || w > (1u << 20) || h > (1u << 20)) {
        tf_error_set(err, TF_ERR_ARGUMENT, "power spectrum: a %zux%zu map is too small (4x4 at least)",
                     w, h);
        return -1;
    }
    size_t cells = w * h, half_w = w / 2 + 1;
    double mean = 0.0;
    size_t valid = 0;
    for (size_t k = 0; k < cells; k++)
        if ((!weight || weight[k] > 0.0f) && isfinite(values[k])) {
            mean += values[k];
            valid++;
        }
    mean = valid ? mean / (double)valid : 0.0;

    size_t n_max = w > h ? w : h;
    size_t bins = n_max / 2 + 1;
    double *input = fftw_alloc_real(cells);
    fftw_complex *spectrum = fftw_alloc_complex(h * half_w);
    double *window_x = malloc(w * sizeof *window_x);
    double *window_y = malloc(h * sizeof *window_y);
    out->frequency = calloc(bins, sizeof *out->frequency);
    out->power = calloc(bins, sizeof *out->power);
    out->count = calloc(bins, sizeof *out->count);
    if (!input || !spectrum || !window_x || !window_y || !out->frequency || !out->power ||
        !out->count) {
        fftw_free(input);
        fftw_free(spectrum);
        free(window_x);
        free(window_y);
        tf_radial_spectrum_free(out);
        tf_error_set(err, TF_ERR_NOMEM, "power spectrum: out of memory for %zux%zu", w, h);
        return -1;
    }
    for (size_t i = 0; i < w; i++)
        window_x[i] = hann(i, w);
    for (size_t j = 0; j < h; j++)
        window_y[j] = hann(j, h);
    double window_energy = 0.0;
    for (size_t j = 0; j < h; j++)
        for (size_t i = 0; i < w; i++) {
            size_t k = j * w + i;
            double window = window_y[j] * window_x[i];
            int counts = (!weight || weight[k] > 0.0f) && isfinite(values[k]);
            input[k] = counts ? ((double)values[k] - mean) * window : 0.0;
            window_energy += window * window;
        }

    pthread_mutex_lock(&planner_lock);
    fftw_plan plan = fftw_plan_dft_r2c_2d((int)h, (int)w, input, spectrum, FFTW_ESTIMATE);
    pthread_mutex_unlock(&planner_lock);
    if (!plan) {
        fftw_free(input);
        fftw_free(spectrum);
        free(window_x);
        free(window_y);
        tf_radial_spectrum_free(out);
        tf_error_set(err, TF_ERR_NOMEM, "power spectrum: FFTW could not plan %zux%zu", w, h);
        return -1;
    }
    fftw_execute(plan);

    /* r2c keeps kx = 0 .. w/2; the other half mirrors it (Hermitian), so
     * columns 1 .. ceil(w/2)-1 stand for two frequencies each. */
    for (size_t j = 0; j < h; j++) {
        double fy = (double)(j <= h / 2 ? (long)j : (long)j - (long)h) / (double)h;
        for (size_t i = 0; i < half_w; i++) {
            double fx = (double)i / (double)w;
            double radius = sqrt(fx * fx + fy * fy) * (double)n_max;
            size_t b = (size_t)floor(radius + 0.5);
            if (b >= bins)
                continue;
            const double *c = spectrum[j * half_w + i];
            double power = (c[0] * c[0] + c[1] * c[1]) / window_energy;
            size_t multiplicity = (i == 0 || (w % 2 == 0 && i == w / 2)) ? 1 : 2;
            out->power[b] += power * (double)multiplicity;
            out->count[b] += multiplicity;
        }
    }
    for (size_t b = 0; b < bins; b++) {
        out->frequency[b] = (double)b / (double)n_max;
        if (out->count[b])
            out->power[b] /= (double)out->count[b];
    }
    out->bin_count = bins;

    pthread_mutex_lock(&planner_lock);
    fftw_destroy_plan(plan);
    pthread_mutex_unlock(&planner_lock);
    fftw_free(input);
    fftw_free(spectrum);
    free(window_x);
    free(window_y);
    return 0;
}
