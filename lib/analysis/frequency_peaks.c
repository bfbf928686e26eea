/*
 * The thesis's peak count (5.4.1): peaks per pixel of a reference layer
 * along rows and columns, and the base noise's peak density as a function
 * of the sampling step, tabulated once per noise kind and inverted.
 */
#include <math.h>
#include <pthread.h>
#include <stdlib.h>

#include "analysis/frequency_internal.h"
#include "base/error.h"
#include "util/util.h"

/* ------------------------------------------------------------ counting */

/* Where a peak can be seen: between a run's first and last non-zero step.
 * Steps are numbered 1 .. n-1 along a run of n visible cells; with first
 * and last the numbers of its first and last non-zero steps, the cells in
 * between number last - first, which is n - 2 when no step is flat. Cells
 * on a plateau at either end of a run cannot show a peak (the trend on the
 * far side is hidden), so they do not count either: this keeps short runs
 * of quantized values (masked 8-bit layers) as dense as whole lines. */
typedef struct {
    size_t cells;       /* cells in the run so far */
    size_t first, last; /* numbers of the first and last non-zero steps; 0: none */
    int direction;      /* last non-zero step: +1 up, -1 down, 0 none yet */
    float previous;     /* the run's last value */
} peak_run;

static void run_reset(peak_run *run)
{
    run->cells = run->first = run->last = 0;
    run->direction = 0;
}

static size_t run_interior(const peak_run *run)
{
    return run->last > run->first ? run->last - run->first : 0;
}

static int cell_visible(const tf_layer_map *layer, size_t k)
{
    return layer->weight[k] > 0.0f && isfinite(layer->value[k]);
}

/* Extend a run by one visible cell; 1 when the step into it ends a peak
 * (the last non-zero step went up, this one goes down). A flat step keeps
 * the last non-zero direction: an 8-bit plateau at a summit is one peak. */
static int run_step(peak_run *run, float value)
{
    int peak = 0;
    if (run->cells > 0) {
        int step = (value > run->previous) - (value < run->previous);
        if (step != 0) {
            peak = run->direction > 0 && step < 0;
            run->direction = step;
            if (run->first == 0)
                run->first = run->cells;
            run->last = run->cells;
        }
    }
    run->cells++;
    run->previous = value;
    return peak;
}

int freq_count_peaks(const tf_layer_map *layer, freq_peak_count *count)
{
    size_t w = layer->width, h = layer->height;
    count->peaks = count->interior = 0;
    /* Columns are walked row by row with one run per column, so the map is
     * read in memory order. */
    peak_run *columns = malloc(w * sizeof *columns);
    if (!columns)
        return -1;
    for (size_t i = 0; i < w; i++)
        run_reset(&columns[i]);
    size_t peaks = 0, interior = 0;
    for (size_t j = 0; j < h; j++) {
        const float *row = layer->value + j * w;
        peak_run run;
        run_reset(&run);
        for (size_t i = 0; i < w; i++) {
            if (!cell_visible(layer, j * w + i)) {
                interior += run_interior(&run) + run_interior(&columns[i]);
                run_reset(&run);
                run_reset(&columns[i]);
                continue;
            }
            peaks += (size_t)run_step(&run, row[i]) + (size_t)run_step(&columns[i], row[i]);
        }
        interior += run_interior(&run);
    }
    for (size_t i = 0; i < w; i++)
        interior += run_interior(&columns[i]);
    free(columns);
    count->peaks = peaks;
    count->interior = interior;
    return 0;
}

int tf_layer_peak_density(const tf_layer_map *layer, double *peaks_per_pixel, tf_error *err)
{
    *peaks_per_pixel = NAN;
    if (!layer || !layer->value || !layer->weight) {
        tf_error_set(err, TF_ERR_ARGUMENT, "peak density: no layer");
        return -1;
    }
    freq_peak_count c;
    if (freq_count_peaks(layer, &c) != 0) {
        tf_error_set(err, TF_ERR_NOMEM, "peak density: out of memory for a %zux%zu layer",
                     layer->width, layer->height);
        return -1;
    }
    if (c.interior == 0) {
        tf_error_set(err, TF_ERR_INVALID,
                     "peak density: no row or column of the %zux%zu layer has 3 visible cells "
                     "in a row",
                     layer->width, layer->height);
        return -1;
    }
    *peaks_per_pixel = (double)c.peaks / (double)c.interior;
    return 0;
}

/* ------------------------------------------------- the noise's table */

/*
 * Sample design (docs/frequency.md): 64 straight lines of 16384 samples at
 * the fine step s0 = 1/256 lattice unit (64 lattice units each, 2^20
 * evaluations), half along x and half along y, far apart so they cross
 * unrelated cells. The density at step m*s0 comes from the same samples
 * decimated by m, over up to PT_PHASES evenly spread starting phases, so
 * every knot is measured on the same 4096 lattice units of line.
 */
#define PT_STEP0 (1.0 / 256.0)
#define PT_LINE_SAMPLES 16384
#define PT_LINES 64
#define PT_PHASES 8
#define PT_SEED 0x7F4A7C15u
/* Lines kept (as u = (n + 1) / 2) for the quantization correction. */
#define PT_KEPT_LINES 16

/* Decimation factors m (step m * s0), dense where the density curves. */
static const unsigned pt_multiples[] = {1,  2,  3,  4,  5,  6,  7,  8,  9,  10, 11, 12,
                                        13, 14, 15, 16, 18, 20, 22, 24, 27, 30, 34, 38,
                                        43, 48, 54, 60, 66, 72, 78, 84, 90, 96, 102, 108,
                                        114, 120, 128};
#define PT_KNOTS (sizeof pt_multiples / sizeof pt_multiples[0])

typedef struct {
    pthread_once_t once;
    int ok;
    size_t knots;                /* (0, 0) plus the increasing measurements */
    double step[PT_KNOTS + 1];
    double density[PT_KNOTS + 1];
    double *kept; /* PT_KEPT_LINES x PT_LINE_SAMPLES unit values, or NULL */
} peak_table;

/* One table and one builder per noise kind (pthread_once takes no argument). */
/* (Extended to the seven further noise types; they are
 * evaluated through tf_noise_eval_gradient, the same values tf_noise_eval
 * gives the first two.) */
_Static_assert(TF_NOISE_TYPE_COUNT == 9, "a new noise kind needs its peak table and builder");
#define PT_INIT {PTHREAD_ONCE_INIT, 0, 0, {0}, {0}, NULL}
static peak_table tables[TF_NOISE_TYPE_COUNT] = {PT_INIT, PT_INIT, PT_INIT, PT_INIT, PT_INIT,
                                                 PT_INIT, PT_INIT, PT_INIT, PT_INIT};

typedef struct {
    tf_noise_type type;
    size_t first_line, line_step;
    unsigned long long peaks[PT_KNOTS], interior[PT_KNOTS];
    double *kept;
    int failed;
} table_job;

/* Peaks of one decimated sequence of `values` (every m-th from `start`). */
static unsigned long long peaks_decimated(const double *values, size_t start, size_t m)
{
    int dir = 0;
    unsigned long long peaks = 0;
    for (size_t i = start + m; i < PT_LINE_SAMPLES; i += m) {
        int s = (values[i] > values[i - m]) - (values[i] < values[i - m]);
        if (s != 0) {
            peaks += dir > 0 && s < 0;
            dir = s;
        }
    }
    return peaks;
}

static void count_line(const double *v, table_job *job)
{
    for (size_t q = 0; q < PT_KNOTS; q++) {
        size_t m = pt_multiples[q];
        size_t phases = m < PT_PHASES ? m : PT_PHASES;
        for (size_t p = 0; p < phases; p++) {
            size_t start = p * m / phases;
            /* The phase holds `samples` samples, of which all but the first
             * and last are interior. */
            size_t samples = (PT_LINE_SAMPLES - 1 - start) / m + 1;
            job->peaks[q] += peaks_decimated(v, start, m);
            job->interior[q] += samples > 2 ? samples - 2 : 0;
        }
    }
}

static void table_lines(table_job *job)
{
    double *v = malloc(PT_LINE_SAMPLES * sizeof *v);
    if (!v) {
        job->failed = 1;
        return;
    }
    for (size_t l = job->first_line; l < PT_LINES; l += job->line_step) {
        /* Origins hundreds of cells apart, non-integer; z (Perlin's 3D
         * reference noise) differs per line so slices differ too. */
        double x0 = 1000.37 + 523.17 * (double)l, y0 = -2000.19 + 311.89 * (double)l;
        double z = 0.41 + 1.618 * (double)l;
        int along_y = (int)(l & 1);
        for (size_t i = 0; i < PT_LINE_SAMPLES; i++) {
            double t = (double)i * PT_STEP0;
            v[i] = along_y ? tf_noise_eval_gradient(job->type, PT_SEED, x0, y0 + t, z, NULL, NULL)
                           : tf_noise_eval_gradient(job->type, PT_SEED, x0 + t, y0, z, NULL, NULL);
        }
        count_line(v, job);
        if (job->kept && l < PT_KEPT_LINES)
            for (size_t i = 0; i < PT_LINE_SAMPLES; i++)
                job->kept[l * PT_LINE_SAMPLES + i] = 0.5 + 0.5 * v[i];
    }
    free(v);
}

static void table_range(void *ctx, size_t lo, size_t hi)
{
    table_job *jobs = ctx;
    for (size_t k = lo; k < hi; k++)
        table_lines(&jobs[k]);
}

static void build_table(tf_noise_type type)
{
    peak_table *t = &tables[type];
    /* Two workers (lines split even/odd); counts are integers, so the sum
     * does not depend on which thread finished first. */
    double *kept = malloc((size_t)PT_KEPT_LINES * PT_LINE_SAMPLES * sizeof *kept);
    table_job jobs[2] = {{type, 0, 2, {0}, {0}, kept, 0}, {type, 1, 2, {0}, {0}, kept, 0}};
    tf_parallel_for(2, 2, table_range, jobs);
    if (jobs[0].failed || jobs[1].failed) {
        free(kept);
        return;
    }
    t->kept = kept; /* kept for the process's lifetime, like the table */
    t->step[0] = 0.0;
    t->density[0] = 0.0;
    size_t knots = 1;
    /* Keep the increasing prefix up to the largest density: beyond it the
     * density saturates near 1/3 (independent samples) and is no longer
     * invertible. */
    size_t last = 0;
    double best = 0.0;
    for (size_t q = 0; q < PT_KNOTS; q++) {
        double d = (double)(jobs[0].peaks[q] + jobs[1].peaks[q]) /
                   (double)(jobs[0].interior[q] + jobs[1].interior[q]);
        if (d > best) {
            best = d;
            last = q;
        }
    }
    for (size_t q = 0; q <= last; q++) {
        double d = (double)(jobs[0].peaks[q] + jobs[1].peaks[q]) /
                   (double)(jobs[0].interior[q] + jobs[1].interior[q]);
        if (d > t->density[knots - 1]) {
            t->step[knots] = pt_multiples[q] * PT_STEP0;
            t->density[knots] = d;
            knots++;
        }
    }
    t->knots = knots;
    t->ok = knots >= 2;
}

static void build_table_0(void) { build_table((tf_noise_type)0); }
static void build_table_1(void) { build_table((tf_noise_type)1); }
static void build_table_2(void) { build_table((tf_noise_type)2); }
static void build_table_3(void) { build_table((tf_noise_type)3); }
static void build_table_4(void) { build_table((tf_noise_type)4); }
static void build_table_5(void) { build_table((tf_noise_type)5); }
static void build_table_6(void) { build_table((tf_noise_type)6); }
static void build_table_7(void) { build_table((tf_noise_type)7); }
static void build_table_8(void) { build_table((tf_noise_type)8); }

static const peak_table *table_get(tf_noise_type type)
{
    static void (*const builders[TF_NOISE_TYPE_COUNT])(void) = {
        build_table_0, build_table_1, build_table_2, build_table_3, build_table_4,
        build_table_5, build_table_6, build_table_7, build_table_8};
    if ((int)type < 0 || type >= TF_NOISE_TYPE_COUNT)
        return NULL;
    pthread_once(&tables[type].once, builders[type]);
    return tables[type].ok ? &tables[type] : NULL;
}

/* Piecewise-linear interpolation at x of the increasing knots (xs, ys),
 * xs[0] <= x <= xs[n - 1]. The table is inverted by swapping the arrays. */
static double interpolate(const double *xs, const double *ys, size_t n, double x)
{
    size_t q = 1;
    while (q < n - 1 && xs[q] < x)
        q++;
    double a = (x - xs[q - 1]) / (xs[q] - xs[q - 1]);
    return ys[q - 1] + a * (ys[q] - ys[q - 1]);
}

double tf_noise_peak_density(tf_noise_type noise, double step)
{
    const peak_table *t = table_get(noise);
    if (!t || !(step > 0.0) || !isfinite(step) || step > t->step[t->knots - 1])
        return NAN;
    /* Through (0, 0): below the first knot the density is proportional to
     * the step. */
    return interpolate(t->step, t->density, t->knots, step);
}

double tf_noise_peak_step_max(tf_noise_type noise)
{
    const peak_table *t = table_get(noise);
    return t ? t->step[t->knots - 1] : NAN;
}

double freq_noise_peak_step(tf_noise_type noise, double density, int *saturated)
{
    *saturated = 0;
    const peak_table *t = table_get(noise);
    if (!t || !(density > 0.0) || !isfinite(density))
        return NAN;
    if (density >= t->density[t->knots - 1]) {
        *saturated = 1;
        return NAN;
    }
    return interpolate(t->density, t->step, t->knots, density);
}

double freq_quantized_peak_ratio(tf_noise_type noise, const tf_curve *rd, double step,
                                 double quantum)
{
    const peak_table *t = table_get(noise);
    if (!t || !t->kept || !(step > 0.0) || !(quantum > 0.0))
        return NAN;
    size_t m = (size_t)floor(step / PT_STEP0 + 0.5);
    if (m < 1)
        m = 1;
    if (m > PT_LINE_SAMPLES / 64)
        m = PT_LINE_SAMPLES / 64;
    double *q = malloc(PT_LINE_SAMPLES * sizeof *q);
    if (!q)
        return NAN;
    unsigned long long plain = 0, quantized = 0;
    size_t phases = m < PT_PHASES ? m : PT_PHASES;
    for (size_t l = 0; l < PT_KEPT_LINES; l++) {
        const double *u = t->kept + l * PT_LINE_SAMPLES;
        /* The layer's value as the reference stores it: the curve, then
         * rounding to the sample depth's grid. */
        for (size_t i = 0; i < PT_LINE_SAMPLES; i++)
            q[i] = floor((rd ? tf_curve_eval(rd, u[i]) : u[i]) / quantum + 0.5);
        for (size_t p = 0; p < phases; p++) {
            size_t start = p * m / phases;
            plain += peaks_decimated(u, start, m);
            quantized += peaks_decimated(q, start, m);
        }
    }
    free(q);
    return plain > 0 ? (double)quantized / (double)plain : NAN;
}
