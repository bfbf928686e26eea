/*
 * `make bench-png`: why PNGs are deflated at level 1 with Z_RLE
 * (docs/formats.md, "PNG encoding"). Renders a spec to 16-bit heights
 * (N x N from the origin, step 1, over the spec's range), then deflates
 * the PNG image data on one thread with several zlib settings and prints
 * seconds and megabytes of each, then times the project's own encoder
 * (tf_heightmap_write, every core). Not a test: nothing is asserted.
 *
 *   tests/bench_png SPEC [--size N]     (N: 16 to 16384, default 4096)
 */
#define _POSIX_C_SOURCE 200809L /* mkstemp */

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <zlib.h>

#include "terrafit/terrafit.h"
#include "util/util.h"

/* The PNG rows of heights quantized over [lo, hi]: a filter type byte
 * (0 none, 1 Sub), then big-endian samples, filtered. */
static unsigned char *png_rows(const float *h, size_t n, double lo, double hi, int sub)
{
    size_t stride = 2 * n + 1;
    unsigned char *rows = malloc(stride * n);
    if (!rows)
        return NULL;
    for (size_t j = 0; j < n; j++) {
        unsigned char *r = rows + j * stride;
        r[0] = (unsigned char)sub;
        for (size_t i = 0; i < n; i++) {
            unsigned q = tf_quantize(h[j * n + i], lo, hi, 65535);
            r[1 + 2 * i] = (unsigned char)(q >> 8);
            r[2 + 2 * i] = (unsigned char)q;
        }
        for (size_t i = 2 * n; sub && i-- > 2;)
            r[1 + i] = (unsigned char)(r[1 + i] - r[1 + i - 2]);
    }
    return rows;
}

int main(int argc, char **argv)
{
    const char *spec_path = NULL;
    size_t n = 4096;
    for (int a = 1; a < argc; a++) {
        if (strcmp(argv[a], "--size") == 0 && a + 1 < argc)
            n = (size_t)strtoul(argv[++a], NULL, 10);
        else
            spec_path = argv[a];
    }
    if (n < 16 || n > 16384) {
        fprintf(stderr, "bench_png: --size must be 16 to 16384\n");
        return 2;
    }
    if (!spec_path) {
        fprintf(stderr, "usage: bench_png SPEC [--size N]\n");
        return 2;
    }
    tf_error err;
    tf_terrain *t = tf_terrain_load(spec_path, &err);
    if (!t) {
        fprintf(stderr, "bench_png: %s\n", err.message);
        return 1;
    }
    float *h = malloc(n * n * sizeof *h);
    if (!h || tf_render_grid(t, 0.0, 0.0, 1.0, n, n, 0, h, NULL, NULL, &err) != 0) {
        fprintf(stderr, "bench_png: %s\n", h ? err.message : "out of memory");
        return 1;
    }
    double lo = tf_terrain_min_value(t), hi = tf_terrain_max_value(t);
    static const struct {
        const char *name;
        int sub, level, strategy;
    } cases[] = {
        {"level 6 (zlib default), Sub", 1, 6, Z_DEFAULT_STRATEGY},
        {"level 1, Sub", 1, 1, Z_DEFAULT_STRATEGY},
        {"level 1, Z_RLE, Sub (terrafit)", 1, 1, Z_RLE},
        {"level 1, Z_HUFFMAN_ONLY, Sub", 1, 1, Z_HUFFMAN_ONLY},
        {"level 1, Z_RLE, no filter", 0, 1, Z_RLE},
        {"level 0 (stored), no filter", 0, 0, Z_DEFAULT_STRATEGY},
    };
    printf("deflate of the image data of a %zux%zu 16-bit PNG, one thread:\n", n, n);
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        unsigned char *rows = png_rows(h, n, lo, hi, cases[c].sub);
        size_t raw = (2 * n + 1) * n;
        uLongf size = compressBound((uLong)raw);
        unsigned char *out = rows ? malloc(size) : NULL;
        if (!out) {
            fprintf(stderr, "bench_png: out of memory\n");
            return 1;
        }
        z_stream z;
        memset(&z, 0, sizeof z);
        double start = tf_clock_seconds();
        deflateInit2(&z, cases[c].level, Z_DEFLATED, 15, 8, cases[c].strategy);
        z.next_in = rows;
        z.avail_in = (uInt)raw;
        z.next_out = out;
        z.avail_out = (uInt)size;
        int status = deflate(&z, Z_FINISH);
        double seconds = tf_clock_seconds() - start;
        printf("  %-34s %6.2f s %8.1f MB%s\n", cases[c].name, seconds, (double)z.total_out / 1e6,
               status == Z_STREAM_END ? "" : " (failed)");
        deflateEnd(&z);
        free(rows);
        free(out);
    }
    char path[] = "/tmp/bench_png_XXXXXX";
    int fd = mkstemp(path);
    if (fd < 0) {
        perror("bench_png: mkstemp");
        return 1;
    }
    double start = tf_clock_seconds();
    int status = tf_heightmap_write(path, TF_HEIGHTMAP_PNG16, h, n, n, lo, hi, &err);
    double seconds = tf_clock_seconds() - start;
    FILE *f = fopen(path, "rb");
    long bytes = -1;
    if (f && fseek(f, 0, SEEK_END) == 0)
        bytes = ftell(f);
    if (f)
        fclose(f);
    remove(path);
    if (status != 0) {
        fprintf(stderr, "bench_png: %s\n", err.message);
        return 1;
    }
    printf("terrafit's png16 writer (bands on %u threads, quantizing included): %.2f s, %.1f MB\n",
           tf_cpu_count(), seconds, (double)bytes / 1e6);
    free(h);
    tf_terrain_free(t);
    return 0;
}
