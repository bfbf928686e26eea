/*
 * The measuring half of the shader tests (tests/shader_gpu.sh): makes point
 * sets for the GPU harness (tests/shader/gpu.mjs) and compares what a GPU
 * computed with the C runtime (docs/shader.md, "Tolerance").
 *   shader_compare points N CX CY SPREAD SEED [GRID_STEP]
 *       N points "cx cy fx fy": cells uniform within SPREAD of (CX, CY) and
 *       float fractions (multiples of 2^-24); with GRID_STEP a square grid
 *       of N points at that step from (CX, CY) instead.
 *   shader_compare check SPEC POINTS RESULTS LABEL [MAX P999]
 *       RESULTS: "h dhdx dhdy" a point. Prints one line of figures: height
 *       differences in units of the spec's range (max - min value),
 *       gradient differences in units of the largest runtime gradient over
 *       the points; with MAX and P999, exits 1 when the height's maximum or
 *       99.9th percentile passes them. With TF_SHADER_COMPARE_WITHOUT_DRAINAGE
 *       set, against the spec with its drainage stage removed.
 *   shader_compare network SPEC X0 Y0 W H WORDS SEGMENTS
 *       A drainage spec's network table over [X0, X0+W] x [Y0, Y0+H]
 *       (tf_shader_network_build), words as little-endian uint32 and
 *       segments as float32, for gpu.mjs --network.
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "terrafit/runtime.h"
#include "terrafit/shader.h"

static uint64_t rng_state;

static uint64_t rng(void)
{
    /* SplitMix64: the same points on every machine */
    uint64_t z = (rng_state += 0x9E3779B97F4A7C15u);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9u;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBu;
    return z ^ (z >> 31);
}

static int make_points(int argc, char **argv)
{
    if (argc < 7)
        return 2;
    long n = atol(argv[2]);
    long cx = atol(argv[3]), cy = atol(argv[4]), spread = atol(argv[5]);
    rng_state = strtoull(argv[6], NULL, 10);
    double step = argc > 7 ? atof(argv[7]) : 0.0;
    if (n <= 0 || n > 8000000 || spread < 0)
        return 2;
    if (step > 0.0) {
        long side = (long)ceil(sqrt((double)n));
        for (long j = 0; j < side; j++) {
            for (long i = 0; i < side; i++) {
                double x = (double)i * step, y = (double)j * step;
                double fx = floor(x), fy = floor(y);
                printf("%ld %ld %.17g %.17g\n", cx + (long)fx, cy + (long)fy, (double)(float)(x - fx),
                       (double)(float)(y - fy));
            }
        }
        return 0;
    }
    for (long k = 0; k < n; k++) {
        long dx = spread ? (long)(rng() % (uint64_t)(2 * spread + 1)) - spread : 0;
        long dy = spread ? (long)(rng() % (uint64_t)(2 * spread + 1)) - spread : 0;
        float fx = (float)ldexp((double)(rng() >> 40), -24);
        float fy = (float)ldexp((double)(rng() >> 40), -24);
        printf("%ld %ld %.17g %.17g\n", cx + dx, cy + dy, (double)fx, (double)fy);
    }
    return 0;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static double percentile(double *v, size_t n, double p)
{
    qsort(v, n, sizeof *v, cmp_double);
    size_t k = (size_t)ceil(p * (double)n);
    return v[k == 0 ? 0 : k - 1];
}

static int check(int argc, char **argv)
{
    if (argc < 6)
        return 2;
    tf_error err;
    tf_terrain *t = NULL;
    if (getenv("TF_SHADER_COMPARE_WITHOUT_DRAINAGE")) {
        /* outside a network table's box the shader leaves the stage out */
        tf_spec *spec = tf_spec_load(argv[2], &err);
        if (spec) {
            spec->drainage.levels = 0;
            t = tf_terrain_compile(spec, &err);
            tf_spec_free(spec);
        }
    } else {
        t = tf_terrain_load(argv[2], &err);
    }
    if (!t) {
        fprintf(stderr, "shader_compare: %s\n", err.message);
        return 2;
    }
    FILE *pf = fopen(argv[3], "r"), *rf = fopen(argv[4], "r");
    if (!pf || !rf) {
        fprintf(stderr, "shader_compare: cannot open %s or %s\n", argv[3], argv[4]);
        return 2;
    }
    const char *label = argv[5];
    double bound_max = argc > 7 ? atof(argv[6]) : INFINITY;
    double bound_p999 = argc > 7 ? atof(argv[7]) : INFINITY;
    double range = tf_terrain_max_value(t) - tf_terrain_min_value(t);
    size_t cap = 1 << 16, n = 0;
    double *dh = malloc(sizeof *dh * cap), *dg = malloc(sizeof *dg * cap);
    double gmax = 0.0;
    char line[256];
    long worst_cx = 0, worst_cy = 0;
    double worst = -1.0, worst_x = 0.0, worst_y = 0.0;
    while (fgets(line, sizeof line, pf)) {
        if (line[0] == '#' || line[0] == '\n')
            continue;
        long cx, cy;
        float fx, fy;
        double h, gx, gy;
        if (sscanf(line, "%ld %ld %f %f", &cx, &cy, &fx, &fy) != 4 ||
            fscanf(rf, "%lf %lf %lf", &h, &gx, &gy) != 3) {
            fprintf(stderr, "shader_compare: %s: short or bad line %zu\n", argv[4], n + 1);
            return 2;
        }
        if (n == cap) {
            cap *= 2;
            dh = realloc(dh, sizeof *dh * cap);
            dg = realloc(dg, sizeof *dg * cap);
        }
        double x = (double)cx + (double)fx, y = (double)cy + (double)fy;
        double rx, ry;
        double rh = tf_terrain_sample_gradient(t, x, y, &rx, &ry);
        dh[n] = fabs(h - rh) / range;
        if (!(dh[n] <= INFINITY))
            dh[n] = INFINITY; /* NaN on either side counts as the worst */
        dg[n] = hypot(gx - rx, gy - ry);
        if (!(dg[n] <= INFINITY))
            dg[n] = INFINITY;
        double gm = hypot(rx, ry);
        if (gm > gmax)
            gmax = gm;
        if (dh[n] > worst) {
            worst = dh[n];
            worst_cx = cx;
            worst_cy = cy;
            worst_x = fx;
            worst_y = fy;
        }
        n++;
    }
    if (n == 0) {
        fprintf(stderr, "shader_compare: no points\n");
        return 2;
    }
    for (size_t k = 0; k < n; k++)
        dg[k] = gmax > 0.0 ? dg[k] / gmax : dg[k];
    double hp = percentile(dh, n, 0.999), hm = dh[n - 1];
    double gp = percentile(dg, n, 0.999), gm = dg[n - 1];
    printf("%s: %zu points, height |diff|/range: max %.3g, p99.9 %.3g; gradient |diff|/max|grad|: "
           "max %.3g, p99.9 %.3g (worst height at %ld%+.6f, %ld%+.6f)\n",
           label, n, hm, hp, gm, gp, worst_cx, worst_x, worst_cy, worst_y);
    free(dh);
    free(dg);
    fclose(pf);
    fclose(rf);
    tf_terrain_free(t);
    if (hm > bound_max || hp > bound_p999) {
        printf("%s: FAIL: bounds max %.3g, p99.9 %.3g\n", label, bound_max, bound_p999);
        return 1;
    }
    return 0;
}

static int write_all(const char *path, const void *data, size_t size, size_t n)
{
    FILE *f = fopen(path, "wb");
    int ok = f && fwrite(data, size, n, f) == n;
    if (f && fclose(f) != 0)
        ok = 0;
    if (!ok)
        fprintf(stderr, "shader_compare: cannot write %s\n", path);
    return ok ? 0 : 2;
}

static int network(int argc, char **argv)
{
    if (argc < 9)
        return 2;
    tf_error err;
    tf_terrain *t = tf_terrain_load(argv[2], &err);
    if (!t) {
        fprintf(stderr, "shader_compare: %s\n", err.message);
        return 2;
    }
    tf_shader_network net;
    if (tf_shader_network_build(t, (int32_t)atol(argv[3]), (int32_t)atol(argv[4]),
                                (uint32_t)atol(argv[5]), (uint32_t)atol(argv[6]), &net,
                                &err) != 0) {
        fprintf(stderr, "shader_compare: %s\n", err.message);
        tf_terrain_free(t);
        return 2;
    }
    /* the words and floats go out in this machine's order: the test runs
     * where it is built, and every machine it runs on is little-endian */
    int status = write_all(argv[7], net.words, sizeof *net.words, net.word_count);
    if (status == 0)
        status = write_all(argv[8], net.segments, sizeof *net.segments, 8 * net.segment_count);
    fprintf(stderr, "shader_compare: network of %zu words, %zu segments\n", net.word_count,
            net.segment_count);
    tf_shader_network_free(&net);
    tf_terrain_free(t);
    return status;
}

int main(int argc, char **argv)
{
    int status = 2;
    if (argc > 1 && strcmp(argv[1], "points") == 0)
        status = make_points(argc, argv);
    else if (argc > 1 && strcmp(argv[1], "check") == 0)
        status = check(argc, argv);
    else if (argc > 1 && strcmp(argv[1], "network") == 0)
        status = network(argc, argv);
    if (status == 2)
        fprintf(stderr, "usage: shader_compare points N CX CY SPREAD SEED [GRID_STEP]\n"
                        "       shader_compare check SPEC POINTS RESULTS LABEL [MAX P999]\n"
                        "       shader_compare network SPEC X0 Y0 W H WORDS SEGMENTS\n");
    return status;
}
