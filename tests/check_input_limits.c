/*
 * Readers and the fitter against hostile sizes: files whose header claims
 * far more than they hold fail with the real cause before anything of that
 * size is allocated (checked under a data-size limit), legal PNG oddities
 * decode, a PNG at the documented pixel limit is read whole, and tf_fit
 * refuses references beyond its pixel limit before fitting.
 */
#define _DEFAULT_SOURCE
#include <check.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <zlib.h>

#include "terrafit/terrafit.h"
#include "testutil.h"

#if defined(__SANITIZE_ADDRESS__)
#define UNDER_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define UNDER_ASAN 1
#endif
#endif

static char *scratch;

static void make_scratch(void)
{
    scratch = tu_mkdtemp();
}

static void remove_scratch(void)
{
    tu_rmtree(scratch);
    free(scratch);
}

static char *write_file(const char *name, const void *data, size_t size)
{
    char *path = strdup(tu_path("%s/%s", scratch, name));
    FILE *f = fopen(path, "wb");
    ck_assert(f != NULL);
    ck_assert_uint_eq(fwrite(data, 1, size, f), size);
    ck_assert_int_eq(fclose(f), 0);
    return path;
}

/* Caps the process's data (heap) at 256 MiB, far below what the claimed
 * sizes would cost (1 to 4 GiB): a reader that allocates for the header
 * before checking the file then fails with "out of memory", not the real
 * cause. Not under ASan, whose shadow memory counts as data. */
static void cap_data(void)
{
#ifndef UNDER_ASAN
    struct rlimit lim = {(rlim_t)256 << 20, (rlim_t)256 << 20};
    struct rlimit old;
    ck_assert_int_eq(getrlimit(RLIMIT_DATA, &old), 0);
    if (old.rlim_max != RLIM_INFINITY && old.rlim_max < lim.rlim_max)
        lim.rlim_cur = lim.rlim_max = old.rlim_max;
    ck_assert_int_eq(setrlimit(RLIMIT_DATA, &lim), 0);
#endif
}

static void expect_layer_failure(const char *path, const char *fragment)
{
    tf_error err = {0, ""};
    ck_assert_msg(tf_layer_map_load(path, &err) == NULL, "%s: accepted", path);
    ck_assert_msg(strstr(err.message, fragment) != NULL, "\"%s\" lacks \"%s\"", err.message,
                  fragment);
    ck_assert_msg(strncmp(err.message, path, strlen(path)) == 0, "\"%s\" does not name %s",
                  err.message, path);
}

static void expect_heightmap_failure(const char *path, tf_heightmap_format format,
                                     const char *fragment)
{
    tf_error err = {0, ""};
    ck_assert_msg(tf_heightmap_read(path, format, 0, 0, &err) == NULL, "%s: accepted", path);
    ck_assert_msg(strstr(err.message, fragment) != NULL, "\"%s\" lacks \"%s\"", err.message,
                  fragment);
}

/* ---- PNG files built here, chunk by chunk */

static void put32(unsigned char *p, uint32_t v)
{
    p[0] = (unsigned char)(v >> 24);
    p[1] = (unsigned char)(v >> 16);
    p[2] = (unsigned char)(v >> 8);
    p[3] = (unsigned char)v;
}

static void chunk(FILE *f, const char *type, const unsigned char *body, uint32_t len)
{
    unsigned char head[8];
    put32(head, len);
    memcpy(head + 4, type, 4);
    uLong crc = crc32(0, (const Bytef *)type, 4);
    crc = crc32(crc, body, len);
    unsigned char tail[4];
    put32(tail, (uint32_t)crc);
    ck_assert_uint_eq(fwrite(head, 1, 8, f), 8);
    ck_assert_uint_eq(fwrite(body, 1, len, f), len);
    ck_assert_uint_eq(fwrite(tail, 1, 4, f), 4);
}

static FILE *png_start(const char *path, uint32_t w, uint32_t h, int depth, int colour_type)
{
    FILE *f = fopen(path, "wb");
    ck_assert(f != NULL);
    static const unsigned char sig[8] = {0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n'};
    ck_assert_uint_eq(fwrite(sig, 1, 8, f), 8);
    unsigned char ihdr[13] = {0};
    put32(ihdr, w);
    put32(ihdr + 4, h);
    ihdr[8] = (unsigned char)depth;
    ihdr[9] = (unsigned char)colour_type;
    chunk(f, "IHDR", ihdr, 13);
    return f;
}

static void png_end(FILE *f)
{
    chunk(f, "IEND", (const unsigned char *)"", 0);
    ck_assert_int_eq(fclose(f), 0);
}

START_TEST(tiny_files_claiming_huge_sizes_allocate_nothing)
{
    cap_data();
    /* Plain PGM: every sample needs two bytes. */
    static const char p2[] = "P2 16384 16384 255 0";
    char *pgm = write_file("huge.pgm", p2, sizeof p2 - 1);
    expect_layer_failure(pgm, ":1: truncated PGM: 1 of 268435456 samples (16384x16384)");

    /* ESRI grid: as a layer and as a heightmap read back. */
    static const char asc[] =
        "ncols 16384\nnrows 16384\nxllcorner 0\nyllcorner 0\ncellsize 1\n1 2 3\n";
    char *grid = write_file("huge.asc", asc, sizeof asc - 1);
    expect_layer_failure(grid, ":7: too few values: 3 of 268435456 (nrows 16384 x ncols 16384)");
    expect_heightmap_failure(grid, TF_HEIGHTMAP_ASC, ":7: too few values: 3 of 268435456");

    /* PFM: the byte count is known from the header. */
    static const char pfm[] = "Pf\n16384 16384\n-1\n\0\0\0\0";
    char *pf = write_file("huge.pfm", pfm, sizeof pfm - 1);
    const char *pfm_message = "a 16384x16384 PFM holds 1073741824 bytes of samples, but 4 follow";
    expect_layer_failure(pf, pfm_message);
    expect_heightmap_failure(pf, TF_HEIGHTMAP_PFM, pfm_message);

    /* Raw f32: the sidecar's size against the data file's bytes. */
    static const char sidecar[] = "{\"width\": 32768, \"height\": 32768}";
    char *raw = write_file("huge.f32", "\0\0\0\0", 4);
    free(write_file("huge.f32.json", sidecar, sizeof sidecar - 1));
    const char *f32_message = "4 bytes, but the sidecar's 32768x32768 floats need 4294967296";
    expect_heightmap_failure(raw, TF_HEIGHTMAP_F32, f32_message);
    expect_layer_failure(raw, f32_message);

    /* PNG: the compressed data cannot hold the image (deflate expands at
     * most 1032 times). */
    char *tiny = strdup(tu_path("%s/huge.png", scratch));
    FILE *f = png_start(tiny, 16384, 16384, 8, 0);
    chunk(f, "IDAT", (const unsigned char *)"", 0);
    png_end(f);
    expect_layer_failure(tiny, "0 compressed bytes cannot hold 16384x16384");
    free(pgm);
    free(grid);
    free(pf);
    free(raw);
    free(tiny);
}
END_TEST

START_TEST(empty_idat_chunks_are_legal)
{
    /* IDAT chunks may be empty: the image data is their concatenation. */
    const unsigned char raw[2 * 4] = {0, 10, 20, 30, 0, 40, 50, 60};
    unsigned char z[64];
    uLongf z_len = sizeof z;
    ck_assert_int_eq(compress(z, &z_len, raw, sizeof raw), Z_OK);
    char *path = strdup(tu_path("%s/empty-idat.png", scratch));
    FILE *f = png_start(path, 3, 2, 8, 0);
    chunk(f, "IDAT", z, 0);
    chunk(f, "IDAT", z, 3);
    chunk(f, "IDAT", z, 0);
    chunk(f, "IDAT", z + 3, (uint32_t)z_len - 3);
    chunk(f, "IDAT", z, 0);
    png_end(f);
    tf_error err;
    tf_layer_map *m = tf_layer_map_load(path, &err);
    ck_assert_msg(m != NULL, "%s", err.message);
    const unsigned char want[6] = {10, 20, 30, 40, 50, 60};
    for (int k = 0; k < 6; k++)
        ck_assert_float_eq(m->value[k], (float)(want[k] * (1.0 / 255.0)));
    tf_layer_map_free(m);

    /* Only empty IDAT chunks: no image data to decode. */
    f = png_start(path, 3, 2, 8, 0);
    chunk(f, "IDAT", z, 0);
    png_end(f);
    expect_layer_failure(path, "0 compressed bytes cannot hold 3x2");
    free(path);
}
END_TEST

START_TEST(palette_uses_every_entry_it_has)
{
    /* Indices up to the last PLTE entry are fine (a 2-bit image may have
     * fewer than 4 entries), the next one is refused with its pixel. */
    const unsigned char plte[9] = {0, 0, 0, 51, 0, 0, 255, 0, 0};
    const unsigned char rows[2][2] = {{0, 0x18}, {0, 0x1c}}; /* 2-bit 0 1 2 0 / 0 1 3 0 */
    char *path = strdup(tu_path("%s/palette.png", scratch));
    for (int bad = 0; bad < 2; bad++) {
        unsigned char z[64];
        uLongf z_len = sizeof z;
        ck_assert_int_eq(compress(z, &z_len, rows[bad], 2), Z_OK);
        FILE *f = png_start(path, 4, 1, 2, 3);
        chunk(f, "PLTE", plte, 9);
        chunk(f, "IDAT", z, (uint32_t)z_len);
        png_end(f);
        if (bad) {
            expect_layer_failure(path,
                                 "pixel (2, 0) has palette index 3, beyond the 3 entries of the "
                                 "PLTE chunk");
            continue;
        }
        tf_error err;
        tf_layer_map *m = tf_layer_map_load(path, &err);
        ck_assert_msg(m != NULL, "%s", err.message);
        ck_assert_int_eq(m->channels, 3);
        ck_assert_float_eq(m->value[0], 0.0f);
        ck_assert_float_eq(m->value[1], (float)(51 * (1.0 / 255.0)));
        ck_assert_float_eq(m->value[2], 1.0f);
        ck_assert_float_eq(m->value[3], 0.0f);
        tf_layer_map_free(m);
    }
    free(path);
}
END_TEST

/* MemAvailable from /proc/meminfo in bytes; 0 when unknown. */
static unsigned long long available_memory(void)
{
    FILE *f = fopen("/proc/meminfo", "r");
    if (!f)
        return 0;
    char line[256];
    unsigned long long kb = 0;
    while (fgets(line, sizeof line, f))
        if (sscanf(line, "MemAvailable: %llu kB", &kb) == 1)
            break;
    fclose(f);
    return kb * 1024;
}

START_TEST(rgba16_png_at_the_pixel_limit_is_read)
{
    /* 16384 x 16384 = TF_MAX_REFERENCE_PIXELS pixels of 8 bytes: 2 GiB of
     * pixel data, whose size overflowed a 32-bit decoder's arithmetic. The
     * layer map itself takes 2 GiB. */
    if (available_memory() < ((unsigned long long)3 << 30)) {
        fprintf(stderr, "rgba16_png_at_the_pixel_limit_is_read: skipped (under 3 GiB free)\n");
        return;
    }
    const uint32_t side = 16384;
    ck_assert_uint_eq((size_t)side * side, TF_MAX_REFERENCE_PIXELS);
    char *path = strdup(tu_path("%s/rgba16.png", scratch));
    FILE *f = png_start(path, side, side, 16, 6);
    /* Every pixel (0x8000, 0, 0, 0xffff) but the last row's, which is
     * (0, 0, 0, 0x8000): filter 0 rows, deflated as they go. */
    size_t row_len = 1 + (size_t)side * 8;
    unsigned char *row = calloc(1, row_len);
    unsigned char *out = malloc(1 << 20);
    ck_assert(row && out);
    z_stream zs;
    memset(&zs, 0, sizeof zs);
    ck_assert_int_eq(deflateInit(&zs, 1), Z_OK);
    for (uint32_t y = 0; y < side; y++) {
        for (uint32_t x = 0; x < side; x++) {
            unsigned char *p = row + 1 + (size_t)x * 8;
            p[0] = y + 1 < side ? 0x80 : 0;
            p[6] = y + 1 < side ? 0xff : 0x80;
            p[7] = y + 1 < side ? 0xff : 0;
        }
        zs.next_in = row;
        zs.avail_in = (uInt)row_len;
        int flush = y + 1 == side ? Z_FINISH : Z_NO_FLUSH;
        int rc;
        do {
            zs.next_out = out;
            zs.avail_out = 1 << 20;
            rc = deflate(&zs, flush);
            ck_assert(rc == Z_OK || rc == Z_STREAM_END || rc == Z_BUF_ERROR);
            uint32_t got = (1u << 20) - zs.avail_out;
            if (got)
                chunk(f, "IDAT", out, got);
        } while (zs.avail_out == 0 || (flush == Z_FINISH && rc != Z_STREAM_END));
    }
    deflateEnd(&zs);
    png_end(f);
    free(row);
    free(out);

    tf_error err;
    tf_layer_map *m = tf_layer_map_load(path, &err);
    ck_assert_msg(m != NULL, "%s", err.message);
    ck_assert_uint_eq(m->width, side);
    ck_assert_uint_eq(m->height, side);
    ck_assert_int_eq(m->bits, 16);
    ck_assert_int_eq(m->channels, 4);
    const size_t n = (size_t)side * side;
    const double r = 0x8000 * (1.0 / 65535.0), a = r;
    const float top = (float)(0.5 + (r - 0.5) * 1.0);
    const float bottom = (float)(0.5 + (0.0 - 0.5) * a);
    for (size_t k = 0; k < n; k += 4099)
        ck_assert_float_eq(m->value[k], k < n - side ? top : bottom);
    ck_assert_float_eq(m->value[n - 1], bottom);
    ck_assert_float_eq(m->weight[n - 1], (float)a);
    ck_assert_float_eq(m->weight[0], 1.0f);
    tf_layer_map_free(m);
    free(path);
}
END_TEST

START_TEST(f32_sidecars_that_are_not_json_say_so)
{
    char *raw = write_file("x.f32", "\0\0\0\0", 4);
    static const struct {
        const char *text, *message;
    } cases[] = {
        {"{\"width\": 1, \"height\": 1", "x.f32.json: the f32 sidecar is not valid JSON (at byte"},
        {"width=1", "x.f32.json: the f32 sidecar is not valid JSON (at byte 0)"},
        {"[1, 1]", "x.f32.json: the f32 sidecar is not a JSON object"},
        {"{\"width\": 1}", "x.f32.json: $.height must be an integer from 1 to 65536"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        free(write_file("x.f32.json", cases[i].text, strlen(cases[i].text)));
        expect_heightmap_failure(raw, TF_HEIGHTMAP_F32, cases[i].message);
    }
    /* Nested past cJSON's depth limit: not valid JSON either. */
    char deep[2 * 1100 + 1];
    memset(deep, '[', 1100);
    memset(deep + 1100, ']', 1100);
    free(write_file("x.f32.json", deep, 2 * 1100));
    expect_heightmap_failure(raw, TF_HEIGHTMAP_F32, "the f32 sidecar is not valid JSON (at byte 1000)");
    free(raw);
}
END_TEST

/* ---- the fitter's pixel limit */

static tf_layer_map *ramp(size_t w, size_t h)
{
    tf_error err;
    tf_layer_map *m = tf_layer_map_new(w, h, &err);
    ck_assert_msg(m != NULL, "%s", err.message);
    for (size_t k = 0; k < w * h; k++)
        m->value[k] = (float)((double)(k % w) / (double)w);
    return m;
}

START_TEST(fit_refuses_references_beyond_its_pixel_limit)
{
    tf_fit_options opt;
    tf_fit_options_init(&opt);
    ck_assert_uint_eq(opt.max_pixels, 0);
    const char *names[2] = {"a.png", "b.png"};
    opt.names = names;
    opt.threads = 1;
    tf_spec *spec;
    tf_error err;

    /* The default: one pixel beyond TF_FIT_DEFAULT_MAX_PIXELS is refused
     * before anything is fitted (the layers are 8 bytes a pixel here). */
    ck_assert_uint_eq(TF_FIT_DEFAULT_MAX_PIXELS, (size_t)1 << 25);
    tf_layer_map *big = tf_layer_map_new(TF_FIT_DEFAULT_MAX_PIXELS / 4096 + 1, 4096, &err);
    ck_assert_msg(big != NULL, "%s", err.message);
    ck_assert_int_eq(tf_fit((const tf_layer_map *const *)&big, 1, &opt, &spec, NULL, NULL, NULL,
                            &err),
                     -1);
    ck_assert_ptr_null(spec);
    ck_assert_int_eq(err.code, TF_ERR_LIMIT);
    ck_assert_msg(strstr(err.message,
                         "a.png: 8193x4096 is 33558528 pixels, beyond the fit's limit of "
                         "33554432 (tf_fit_options.max_pixels; raise it with terrafit fit "
                         "--max-pixels N") != NULL,
                  "%s", err.message);
    tf_layer_map_free(big);

    /* A limit of the caller's: the pixels of every reference count. */
    tf_layer_map *layers[2] = {ramp(40, 30), ramp(40, 30)};
    opt.max_pixels = 2399;
    ck_assert_int_eq(tf_fit((const tf_layer_map *const *)layers, 2, &opt, &spec, NULL, NULL, NULL,
                            &err),
                     -1);
    ck_assert_msg(strstr(err.message, "a.png and the other layers: 2 layers of 40x30 are 2400 "
                                      "pixels, beyond the fit's limit of 2399") != NULL,
                  "%s", err.message);
    opt.max_pixels = 2400;
    ck_assert_int_eq(tf_fit((const tf_layer_map *const *)layers, 2, &opt, &spec, NULL, NULL, NULL,
                            &err),
                     0);
    tf_spec_free(spec);
    opt.max_pixels = 1199;
    ck_assert_int_eq(tf_fit((const tf_layer_map *const *)layers, 1, &opt, &spec, NULL, NULL, NULL,
                            &err),
                     -1);
    ck_assert_msg(strstr(err.message, "a.png: 40x30 is 1200 pixels, beyond the fit's limit of "
                                      "1199") != NULL,
                  "%s", err.message);
    opt.max_pixels = SIZE_MAX; /* no limit */
    ck_assert_int_eq(tf_fit((const tf_layer_map *const *)layers, 1, &opt, &spec, NULL, NULL, NULL,
                            &err),
                     0);
    tf_spec_free(spec);
    tf_layer_map_free(layers[0]);
    tf_layer_map_free(layers[1]);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("input_limits");
    TCase *tc = tcase_create("sizes");
    tcase_add_checked_fixture(tc, make_scratch, remove_scratch);
    tcase_set_timeout(tc, 600);
    tcase_add_test(tc, tiny_files_claiming_huge_sizes_allocate_nothing);
    tcase_add_test(tc, empty_idat_chunks_are_legal);
    tcase_add_test(tc, palette_uses_every_entry_it_has);
    tcase_add_test(tc, rgba16_png_at_the_pixel_limit_is_read);
    tcase_add_test(tc, fit_refuses_references_beyond_its_pixel_limit);
    tcase_add_test(tc, f32_sidecars_that_are_not_json_say_so);
    suite_add_tcase(s, tc);
    return tu_run_suite(s);
}
