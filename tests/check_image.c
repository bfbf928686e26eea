/*
 * Reading reference layers (lib/io, docs/input.md): every format decodes to
 * the right values and weights (thesis 5.3 formula with alpha), the --valid
 * mask, the real DEMs, and every bad-input class in tests/bad-references/.
 */
#define _DEFAULT_SOURCE
#include <check.h>
#include <dirent.h>
#include <locale.h>
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "terrafit/terrafit.h"
#include "testutil.h"

/* stb_image_write for the 8-bit test images, private to this test. */
#if defined(__GNUC__)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wshadow"
#pragma GCC diagnostic ignored "-Wsign-compare"
#pragma GCC diagnostic ignored "-Wmissing-prototypes"
#pragma GCC diagnostic ignored "-Wimplicit-fallthrough"
#endif
#define STB_IMAGE_WRITE_STATIC
#define STB_IMAGE_WRITE_IMPLEMENTATION
#include <stb/stb_image_write.h>
#if defined(__GNUC__)
#pragma GCC diagnostic pop
#pragma GCC diagnostic ignored "-Wunused-function" /* reported at the end of the file */
#endif

#define TOL 1e-6

static char *scratch; /* per-test temporary directory */

static void make_scratch(void)
{
    scratch = tu_mkdtemp();
    ck_assert(scratch != NULL);
}

static void remove_scratch(void)
{
    tu_rmtree(scratch);
    free(scratch);
    scratch = NULL;
}

/* A path in the scratch directory, copied out of tu_path's ring. */
static char *scratch_path(const char *name)
{
    char *p = strdup(tu_path("%s/%s", scratch, name));
    ck_assert(p != NULL);
    return p;
}

static void write_bytes(const char *path, const void *data, size_t n)
{
    FILE *f = fopen(path, "wb");
    ck_assert_msg(f != NULL, "cannot create %s", path);
    ck_assert_uint_eq(fwrite(data, 1, n, f), n);
    ck_assert_int_eq(fclose(f), 0);
}

static void write_text(const char *path, const char *text)
{
    write_bytes(path, text, strlen(text));
}

static tf_layer_map *load_ok(const char *path)
{
    tf_error err = {0, ""};
    tf_layer_map *map = tf_layer_map_load(path, &err);
    ck_assert_msg(map != NULL, "%s: %s", path, err.message);
    return map;
}

static void expect_failure(const char *path, const char *fragment)
{
    tf_error err = {0, ""};
    tf_layer_map *map = tf_layer_map_load(path, &err);
    ck_assert_msg(map == NULL, "%s: accepted", path);
    ck_assert_int_ne(err.code, TF_OK);
    ck_assert_msg(strstr(err.message, fragment) != NULL, "\"%s\" lacks \"%s\"", err.message,
                  fragment);
    ck_assert_msg(strncmp(err.message, path, strlen(path)) == 0,
                  "\"%s\" does not start with the file name", err.message);
}

/* ---- PNGs written by hand: stored (uncompressed) deflate blocks, so any
 * bit depth and colour type can be made without a PNG library. */

static uint32_t crc_update(uint32_t c, const unsigned char *p, size_t n)
{
    c ^= 0xffffffffu;
    for (size_t i = 0; i < n; i++) {
        c ^= p[i];
        for (int k = 0; k < 8; k++)
            c = (c & 1) ? 0xedb88320u ^ (c >> 1) : c >> 1;
    }
    return c ^ 0xffffffffu;
}

static void put32(unsigned char *p, uint32_t v)
{
    p[0] = (unsigned char)(v >> 24);
    p[1] = (unsigned char)(v >> 16);
    p[2] = (unsigned char)(v >> 8);
    p[3] = (unsigned char)v;
}

static void put_chunk(FILE *f, const char *type, const unsigned char *body, size_t n)
{
    unsigned char head[8];
    put32(head, (uint32_t)n);
    memcpy(head + 4, type, 4);
    /* The CRC covers the type and the body: checksum them as one buffer. */
    unsigned char *both = malloc(n + 4);
    ck_assert(both != NULL);
    memcpy(both, type, 4);
    if (n)
        memcpy(both + 4, body, n);
    uint32_t crc = crc_update(0, both, n + 4);
    free(both);
    unsigned char tail[4];
    put32(tail, crc);
    ck_assert_uint_eq(fwrite(head, 1, 8, f), 8);
    if (n)
        ck_assert_uint_eq(fwrite(body, 1, n, f), n);
    ck_assert_uint_eq(fwrite(tail, 1, 4, f), 4);
}

/* `pixels`: h rows of row_bytes raw (unfiltered) bytes, 16-bit samples
 * big-endian as PNG stores them. */
static void write_png_raw(const char *path, unsigned w, unsigned h, unsigned depth,
                          unsigned colour_type, const unsigned char *pixels, size_t row_bytes,
                          const unsigned char *plte, size_t plte_len, const unsigned char *trns,
                          size_t trns_len)
{
    size_t raw_len = h * (row_bytes + 1);
    unsigned char *raw = malloc(raw_len);
    ck_assert(raw != NULL);
    for (unsigned y = 0; y < h; y++) {
        raw[y * (row_bytes + 1)] = 0; /* filter: none */
        memcpy(raw + y * (row_bytes + 1) + 1, pixels + y * row_bytes, row_bytes);
    }
    ck_assert_uint_le(raw_len, 65535); /* one stored block */
    size_t z_len = 2 + 5 + raw_len + 4;
    unsigned char *z = malloc(z_len);
    ck_assert(z != NULL);
    z[0] = 0x78;
    z[1] = 0x01;
    z[2] = 1; /* final stored block */
    z[3] = (unsigned char)(raw_len & 0xff);
    z[4] = (unsigned char)(raw_len >> 8);
    z[5] = (unsigned char)(~raw_len & 0xff);
    z[6] = (unsigned char)((~raw_len >> 8) & 0xff);
    memcpy(z + 7, raw, raw_len);
    uint32_t a = 1, b = 0; /* Adler-32 of the raw data */
    for (size_t i = 0; i < raw_len; i++) {
        a = (a + raw[i]) % 65521;
        b = (b + a) % 65521;
    }
    put32(z + 7 + raw_len, b << 16 | a);

    FILE *f = fopen(path, "wb");
    ck_assert(f != NULL);
    static const unsigned char sig[8] = {0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n'};
    ck_assert_uint_eq(fwrite(sig, 1, 8, f), 8);
    unsigned char ihdr[13];
    put32(ihdr, w);
    put32(ihdr + 4, h);
    ihdr[8] = (unsigned char)depth;
    ihdr[9] = (unsigned char)colour_type;
    ihdr[10] = ihdr[11] = ihdr[12] = 0;
    put_chunk(f, "IHDR", ihdr, 13);
    if (plte)
        put_chunk(f, "PLTE", plte, plte_len);
    if (trns)
        put_chunk(f, "tRNS", trns, trns_len);
    put_chunk(f, "IDAT", z, z_len);
    put_chunk(f, "IEND", NULL, 0);
    ck_assert_int_eq(fclose(f), 0);
    free(z);
    free(raw);
}

/* The thesis 5.3 meaning of a sample pair. */
static double thesis_value(double r, double a)
{
    return 0.5 + (r - 0.5) * a;
}

/* ---- 8-bit PNGs (stb_image_write) */

START_TEST(png8_grey_is_sample_over_255)
{
    const unsigned char px[6] = {0, 51, 102, 153, 204, 255};
    char *path = scratch_path("grey.png");
    ck_assert(stbi_write_png(path, 3, 2, 1, px, 3));
    tf_layer_map *m = load_ok(path);
    ck_assert_uint_eq(m->width, 3);
    ck_assert_uint_eq(m->height, 2);
    ck_assert_int_eq(m->bits, 8);
    ck_assert_int_eq(m->channels, 1);
    for (int k = 0; k < 6; k++) {
        ck_assert_double_eq_tol(m->value[k], px[k] / 255.0, TOL);
        ck_assert_float_eq(m->weight[k], 1.0f);
    }
    ck_assert_double_eq(m->z_min, 0.0);
    ck_assert_double_eq(m->z_max, 1.0);
    ck_assert_uint_eq(tf_layer_map_visible_count(m), 6);
    tf_layer_map_free(m);
    free(path);
}
END_TEST

START_TEST(png8_grey_alpha_follows_the_thesis_formula)
{
    /* (grey, alpha) pairs; alpha 0 cells are absent and hold 0.5. */
    const unsigned char px[8] = {255, 255, 0, 128, 200, 0, 30, 64};
    char *path = scratch_path("ga.png");
    ck_assert(stbi_write_png(path, 2, 2, 2, px, 4));
    tf_layer_map *m = load_ok(path);
    ck_assert_int_eq(m->channels, 2);
    ck_assert_int_eq(m->bits, 8);
    for (int k = 0; k < 4; k++) {
        double r = px[2 * k] / 255.0, a = px[2 * k + 1] / 255.0;
        ck_assert_double_eq_tol(m->value[k], thesis_value(r, a), TOL);
        ck_assert_double_eq_tol(m->weight[k], a, TOL);
    }
    ck_assert_float_eq(m->value[2], 0.5f); /* alpha 0: exactly 0.5 */
    ck_assert_float_eq(m->weight[2], 0.0f);
    ck_assert_double_eq_tol(m->value[1], 0.5 - 0.5 * 128 / 255.0, TOL); /* black, half alpha */
    ck_assert_uint_eq(tf_layer_map_visible_count(m), 3);
    tf_layer_map_free(m);
    free(path);
}
END_TEST

START_TEST(png8_rgb_uses_the_red_channel)
{
    const unsigned char px[6] = {10, 200, 30, 250, 0, 0};
    char *path = scratch_path("rgb.png");
    ck_assert(stbi_write_png(path, 2, 1, 3, px, 6));
    tf_layer_map *m = load_ok(path);
    ck_assert_int_eq(m->channels, 3);
    ck_assert_double_eq_tol(m->value[0], 10 / 255.0, TOL);
    ck_assert_double_eq_tol(m->value[1], 250 / 255.0, TOL);
    ck_assert_float_eq(m->weight[0], 1.0f);
    ck_assert_float_eq(m->weight[1], 1.0f);
    tf_layer_map_free(m);
    free(path);
}
END_TEST

START_TEST(png8_rgba_follows_the_thesis_formula)
{
    /* Row 0: opaque white, half-transparent black, transparent red;
     * row 1: an alpha ramp over a mid-high red. */
    const unsigned char px[24] = {255, 255, 255, 255, 0, 0, 0, 128, 255, 0, 0, 0,
                                  180, 0, 9, 1,     180, 0, 9, 100, 180, 0, 9, 254};
    char *path = scratch_path("rgba.png");
    ck_assert(stbi_write_png(path, 3, 2, 4, px, 12));
    tf_layer_map *m = load_ok(path);
    ck_assert_int_eq(m->channels, 4);
    for (int k = 0; k < 6; k++) {
        double r = px[4 * k] / 255.0, a = px[4 * k + 3] / 255.0;
        ck_assert_double_eq_tol(m->value[k], thesis_value(r, a), TOL);
        ck_assert_double_eq_tol(m->weight[k], a, TOL);
    }
    ck_assert_float_eq(m->value[0], 1.0f);
    ck_assert_float_eq(m->value[2], 0.5f);
    ck_assert_float_eq(m->weight[2], 0.0f);
    tf_layer_map_free(m);
    free(path);
}
END_TEST

/* ---- 16-bit PNGs */

START_TEST(png16_grey_from_the_heightmap_writer)
{
    /* tf_quantize(k / 65535) == k, so the file holds exactly these samples. */
    const unsigned samples[6] = {0, 1, 257, 32768, 65534, 65535};
    float h[6];
    for (int k = 0; k < 6; k++)
        h[k] = (float)(samples[k] / 65535.0);
    char *path = scratch_path("grey16.png");
    tf_error err;
    ck_assert_msg(tf_heightmap_write(path, TF_HEIGHTMAP_PNG16, h, 2, 3, 0.0, 1.0, &err) == 0,
                  "%s", err.message);
    tf_layer_map *m = load_ok(path);
    ck_assert_uint_eq(m->width, 2);
    ck_assert_uint_eq(m->height, 3);
    ck_assert_int_eq(m->bits, 16);
    ck_assert_int_eq(m->channels, 1);
    for (int k = 0; k < 6; k++) {
        ck_assert_double_eq_tol(m->value[k], samples[k] / 65535.0, 1e-7);
        ck_assert_float_eq(m->weight[k], 1.0f);
    }
    /* 1/65535 is not 0: 16 bits are kept, not cut to 8. */
    ck_assert_float_gt(m->value[1], 0.0f);
    ck_assert_float_lt(m->value[1], (float)(1.0 / 255.0));
    tf_layer_map_free(m);
    free(path);
}
END_TEST

START_TEST(png16_grey_alpha_and_rgba)
{
    /* grey+alpha 16-bit, 3x1: (grey, alpha) = (65535, 65535), (0, 32768),
     * (40000, 0). */
    const unsigned ga[6] = {65535, 65535, 0, 32768, 40000, 0};
    unsigned char raw[12];
    for (int i = 0; i < 6; i++) {
        raw[2 * i] = (unsigned char)(ga[i] >> 8);
        raw[2 * i + 1] = (unsigned char)(ga[i] & 0xff);
    }
    char *path = scratch_path("ga16.png");
    write_png_raw(path, 3, 1, 16, 4, raw, 12, NULL, 0, NULL, 0);
    tf_layer_map *m = load_ok(path);
    ck_assert_int_eq(m->bits, 16);
    ck_assert_int_eq(m->channels, 2);
    for (int k = 0; k < 3; k++) {
        double r = ga[2 * k] / 65535.0, a = ga[2 * k + 1] / 65535.0;
        ck_assert_double_eq_tol(m->value[k], thesis_value(r, a), TOL);
        ck_assert_double_eq_tol(m->weight[k], a, TOL);
    }
    ck_assert_float_eq(m->value[2], 0.5f);
    tf_layer_map_free(m);
    free(path);

    /* RGBA 16-bit, 2x1: red carries the height, green/blue do not. */
    const unsigned rgba[8] = {60000, 1, 2, 50000, 300, 65535, 65535, 65535};
    unsigned char raw2[16];
    for (int i = 0; i < 8; i++) {
        raw2[2 * i] = (unsigned char)(rgba[i] >> 8);
        raw2[2 * i + 1] = (unsigned char)(rgba[i] & 0xff);
    }
    path = scratch_path("rgba16.png");
    write_png_raw(path, 2, 1, 16, 6, raw2, 16, NULL, 0, NULL, 0);
    m = load_ok(path);
    ck_assert_int_eq(m->bits, 16);
    ck_assert_int_eq(m->channels, 4);
    ck_assert_double_eq_tol(m->value[0], thesis_value(60000 / 65535.0, 50000 / 65535.0), TOL);
    ck_assert_double_eq_tol(m->weight[0], 50000 / 65535.0, TOL);
    ck_assert_double_eq_tol(m->value[1], 300 / 65535.0, TOL);
    tf_layer_map_free(m);
    free(path);
}
END_TEST

START_TEST(png_transparency_chunk_and_palette)
{
    /* 8-bit grey with tRNS: grey level 7 is transparent. */
    const unsigned char grey[4] = {7, 100, 7, 255};
    const unsigned char trns_grey[2] = {0, 7};
    char *path = scratch_path("trns.png");
    write_png_raw(path, 4, 1, 8, 0, grey, 4, NULL, 0, trns_grey, 2);
    tf_layer_map *m = load_ok(path);
    ck_assert_int_eq(m->channels, 2);
    ck_assert_float_eq(m->weight[0], 0.0f);
    ck_assert_float_eq(m->value[0], 0.5f);
    ck_assert_double_eq_tol(m->value[1], 100 / 255.0, TOL);
    ck_assert_float_eq(m->weight[1], 1.0f);
    ck_assert_float_eq(m->weight[2], 0.0f);
    ck_assert_float_eq(m->value[3], 1.0f);
    tf_layer_map_free(m);
    free(path);

    /* A palette image: red channel of the palette entry, palette alpha. */
    const unsigned char index[3] = {0, 1, 2};
    const unsigned char plte[9] = {20, 0, 0, 240, 9, 9, 128, 128, 128};
    const unsigned char trns_pal[2] = {255, 51}; /* entry 2 stays opaque */
    path = scratch_path("palette.png");
    write_png_raw(path, 3, 1, 8, 3, index, 3, plte, 9, trns_pal, 2);
    m = load_ok(path);
    ck_assert_int_eq(m->channels, 4);
    ck_assert_double_eq_tol(m->value[0], 20 / 255.0, TOL);
    ck_assert_double_eq_tol(m->value[1], thesis_value(240 / 255.0, 51 / 255.0), TOL);
    ck_assert_double_eq_tol(m->weight[1], 51 / 255.0, TOL);
    ck_assert_double_eq_tol(m->value[2], 128 / 255.0, TOL);
    ck_assert_float_eq(m->weight[2], 1.0f);
    tf_layer_map_free(m);
    free(path);
}
END_TEST

/* ---- PGM */

START_TEST(pgm_binary_8_and_16_bit)
{
    const unsigned char p8[] = "P5\n# comment line\n3 1 200\n\x00\x64\xc8";
    char *path = scratch_path("a.pgm");
    write_bytes(path, p8, sizeof p8 - 1);
    tf_layer_map *m = load_ok(path);
    ck_assert_uint_eq(m->width, 3);
    ck_assert_uint_eq(m->height, 1);
    ck_assert_int_eq(m->bits, 8);
    ck_assert_double_eq_tol(m->value[0], 0.0, TOL);
    ck_assert_double_eq_tol(m->value[1], 0.5, TOL);
    ck_assert_double_eq_tol(m->value[2], 1.0, TOL);
    tf_layer_map_free(m);
    free(path);

    /* 16-bit samples are big-endian: 0x0102 = 258, 0xfffe = 65534. */
    const unsigned char p16[] = "P5 2 2 65535\n\x01\x02\xff\xfe\x00\x00\xff\xff";
    path = scratch_path("b.pgm");
    write_bytes(path, p16, sizeof p16 - 1);
    m = load_ok(path);
    ck_assert_int_eq(m->bits, 16);
    ck_assert_double_eq_tol(m->value[0], 258 / 65535.0, 1e-7);
    ck_assert_double_eq_tol(m->value[1], 65534 / 65535.0, 1e-7);
    ck_assert_float_eq(m->value[2], 0.0f);
    ck_assert_float_eq(m->value[3], 1.0f);
    tf_layer_map_free(m);
    free(path);

    /* The library's own pgm16 writer reads back. */
    const float h[4] = {0.0f, 0.25f, 0.75f, 1.0f};
    path = scratch_path("c.pgm");
    tf_error err;
    ck_assert(tf_heightmap_write(path, TF_HEIGHTMAP_PGM16, h, 4, 1, 0.0, 1.0, &err) == 0);
    m = load_ok(path);
    for (int k = 0; k < 4; k++)
        ck_assert_double_eq_tol(m->value[k], h[k], 1.0 / 65535);
    tf_layer_map_free(m);
    free(path);
}
END_TEST

START_TEST(pgm_plain_text)
{
    char *path = scratch_path("plain.pgm");
    write_text(path, "P2\n# made by hand\n3 2\n1000\n0 250 500 # comment\n  750\n1000\n0\n");
    tf_layer_map *m = load_ok(path);
    ck_assert_uint_eq(m->width, 3);
    ck_assert_uint_eq(m->height, 2);
    ck_assert_int_eq(m->bits, 16); /* maxval > 255 */
    const double want[6] = {0.0, 0.25, 0.5, 0.75, 1.0, 0.0};
    for (int k = 0; k < 6; k++) {
        ck_assert_double_eq_tol(m->value[k], want[k], TOL);
        ck_assert_float_eq(m->weight[k], 1.0f);
    }
    tf_layer_map_free(m);
    free(path);
}
END_TEST

/* ---- ESRI ASCII grids */

START_TEST(asc_nodata_and_normalization)
{
    char *path = scratch_path("grid.asc");
    /* Keys in mixed case, xllcenter/yllcenter, values not one row per line. */
    write_text(path, "NCOLS 3\nnrows 2\nXllCenter 100.5\nyllcenter -20\nCellSize 30\n"
                     "NODATA_value -9999\n"
                     "100 150\n-9999\n200 125.5 -9999.0\n");
    tf_layer_map *m = load_ok(path);
    ck_assert_uint_eq(m->width, 3);
    ck_assert_uint_eq(m->height, 2);
    ck_assert_int_eq(m->bits, 0);
    ck_assert_int_eq(m->channels, 1);
    ck_assert_double_eq(m->z_min, 100.0);
    ck_assert_double_eq(m->z_max, 200.0);
    /* Row 0 of the file is the northern (top) row. */
    const double value[6] = {0.0, 0.5, 0.5, 1.0, 0.255, 0.5};
    const float weight[6] = {1, 1, 0, 1, 1, 0};
    for (int k = 0; k < 6; k++) {
        ck_assert_double_eq_tol(m->value[k], value[k], TOL);
        ck_assert_float_eq(m->weight[k], weight[k]);
    }
    ck_assert_uint_eq(tf_layer_map_visible_count(m), 4);
    tf_layer_map_free(m);
    free(path);
}
END_TEST

START_TEST(asc_constant_grid_is_flat_at_one_half)
{
    char *path = scratch_path("flat.asc");
    write_text(path, "ncols 2\nnrows 2\nxllcorner 0\nyllcorner 0\ncellsize 1\n"
                     "nodata_value -1\n7.25 7.25\n-1 7.25\n");
    tf_layer_map *m = load_ok(path);
    ck_assert_double_eq(m->z_min, 7.25);
    ck_assert_double_eq(m->z_max, 7.25);
    for (int k = 0; k < 4; k++)
        ck_assert_float_eq(m->value[k], 0.5f);
    ck_assert_float_eq(m->weight[2], 0.0f);
    ck_assert_uint_eq(tf_layer_map_visible_count(m), 3);
    tf_layer_map_free(m);
    free(path);
}
END_TEST

START_TEST(asc_small_relief_at_high_altitude_keeps_its_detail)
{
    /* 2 mm steps at 4000 m: a float holding the raw height would round
     * them away (its step there is 0.24 mm, but normalizing from raw floats
     * loses ~1e-4 of the range); the reader keeps them to ~1e-6. */
    char *path = scratch_path("high.asc");
    write_text(path, "ncols 5\nnrows 1\nxllcorner 0\nyllcorner 0\ncellsize 1\n"
                     "4000.000 4000.002 4000.004 4000.006 4000.008\n");
    tf_layer_map *m = load_ok(path);
    for (int k = 0; k < 5; k++)
        ck_assert_double_eq_tol(m->value[k], k / 4.0, 1e-5);
    tf_layer_map_free(m);
    free(path);
}
END_TEST

START_TEST(asc_numbers_ignore_the_locale)
{
    const char *old = setlocale(LC_NUMERIC, NULL);
    char *saved = strdup(old ? old : "C");
    const char *candidates[] = {"de_DE.UTF-8", "de_DE.utf8", "fr_FR.UTF-8", "fr_FR.utf8"};
    bool comma = false;
    for (size_t i = 0; i < 4 && !comma; i++)
        comma = setlocale(LC_NUMERIC, candidates[i]) != NULL &&
                strcmp(localeconv()->decimal_point, ",") == 0;
    char *path = scratch_path("locale.asc");
    write_text(path, "ncols 3\nnrows 1\nxllcorner 0.5\nyllcorner 0\ncellsize 0.5\n"
                     "1.5 2.5 3.5\n");
    tf_layer_map *m = load_ok(path);
    ck_assert_double_eq(m->z_min, 1.5);
    ck_assert_double_eq(m->z_max, 3.5);
    ck_assert_double_eq_tol(m->value[1], 0.5, TOL);
    tf_layer_map_free(m);
    setlocale(LC_NUMERIC, saved);
    free(saved);
    free(path);
    if (!comma)
        fprintf(stderr, "note: no comma-decimal locale installed; checked in the C locale\n");
}
END_TEST

/* ---- names: content decides; .png/.pgm/.asc must not lie */

START_TEST(content_decides_and_names_are_checked)
{
    const unsigned char p5[] = "P5\n2 1\n255\n\x00\xff";
    char *plain = scratch_path("heights.img");
    char *noext = scratch_path("heights");
    char *upper = scratch_path("Heights.PGM");
    char *liar = scratch_path("heights.PNG");
    write_bytes(plain, p5, sizeof p5 - 1);
    write_bytes(noext, p5, sizeof p5 - 1);
    write_bytes(upper, p5, sizeof p5 - 1);
    write_bytes(liar, p5, sizeof p5 - 1);
    const char *ok[3] = {plain, noext, upper};
    for (int i = 0; i < 3; i++) {
        tf_layer_map *m = load_ok(ok[i]);
        ck_assert_float_eq(m->value[1], 1.0f);
        tf_layer_map_free(m);
    }
    expect_failure(liar, "named .PNG but holds a PGM image (P5)");
    free(plain);
    free(noext);
    free(upper);
    free(liar);
}
END_TEST

/* ---- the --valid mask */

START_TEST(valid_mask_hides_zero_cells)
{
    const unsigned char px[4] = {10, 20, 30, 40};
    const unsigned char mask_px[4] = {255, 0, 1, 0};
    char *layer = scratch_path("layer.png");
    char *mask = scratch_path("mask.png");
    ck_assert(stbi_write_png(layer, 2, 2, 1, px, 2));
    ck_assert(stbi_write_png(mask, 2, 2, 1, mask_px, 2));
    tf_layer_map *m = load_ok(layer);
    tf_error err;
    ck_assert_msg(tf_layer_map_apply_valid(m, mask, &err) == 0, "%s", err.message);
    ck_assert_float_eq(m->weight[0], 1.0f);
    ck_assert_double_eq_tol(m->value[0], 10 / 255.0, TOL);
    ck_assert_float_eq(m->weight[1], 0.0f);
    ck_assert_float_eq(m->value[1], 0.5f);
    ck_assert_float_eq(m->weight[2], 1.0f); /* any non-zero sample is valid */
    ck_assert_double_eq_tol(m->value[2], 30 / 255.0, TOL);
    ck_assert_float_eq(m->weight[3], 0.0f);
    ck_assert_uint_eq(tf_layer_map_visible_count(m), 2);

    /* A mask in another format (P2 PGM, first channel). */
    char *pgm = scratch_path("mask.pgm");
    write_text(pgm, "P2 2 2 1\n0 1\n1 1\n");
    ck_assert_msg(tf_layer_map_apply_valid(m, pgm, &err) == 0, "%s", err.message);
    ck_assert_float_eq(m->weight[0], 0.0f);
    ck_assert_uint_eq(tf_layer_map_visible_count(m), 1);

    /* A grey+alpha mask reads its first (grey) channel, not its alpha. */
    const unsigned char ga[8] = {0, 255, 9, 0, 9, 255, 9, 255};
    char *ga_mask = scratch_path("mask-ga.png");
    ck_assert(stbi_write_png(ga_mask, 2, 2, 2, ga, 4));
    tf_layer_map *fresh = load_ok(layer);
    ck_assert(tf_layer_map_apply_valid(fresh, ga_mask, &err) == 0);
    ck_assert_float_eq(fresh->weight[0], 0.0f);
    ck_assert_float_eq(fresh->weight[1], 1.0f);
    tf_layer_map_free(fresh);

    /* Size mismatch: both sizes named, the layer left untouched. */
    const unsigned char small[2] = {0, 0};
    char *wrong = scratch_path("small.png");
    ck_assert(stbi_write_png(wrong, 2, 1, 1, small, 2));
    err.code = TF_OK;
    ck_assert(tf_layer_map_apply_valid(m, wrong, &err) != 0);
    ck_assert_int_ne(err.code, TF_OK);
    ck_assert_msg(strstr(err.message, "the mask is 2x1 but the layer is 2x2") != NULL, "%s",
                  err.message);
    ck_assert_msg(strstr(err.message, wrong) == err.message, "%s", err.message);
    ck_assert_uint_eq(tf_layer_map_visible_count(m), 1);

    /* A mask that cannot be read says which file. */
    char *missing = scratch_path("nope.png");
    ck_assert(tf_layer_map_apply_valid(m, missing, &err) != 0);
    ck_assert_msg(strstr(err.message, missing) == err.message, "%s", err.message);
    ck_assert(tf_layer_map_apply_valid(NULL, mask, &err) != 0);
    ck_assert_int_eq(err.code, TF_ERR_ARGUMENT);

    tf_layer_map_free(m);
    free(layer);
    free(mask);
    free(pgm);
    free(ga_mask);
    free(wrong);
    free(missing);
}
END_TEST

START_TEST(new_maps_and_visible_count)
{
    tf_error err;
    tf_layer_map *m = tf_layer_map_new(4, 3, &err);
    ck_assert(m != NULL);
    ck_assert_uint_eq(m->width, 4);
    ck_assert_uint_eq(m->height, 3);
    for (int k = 0; k < 12; k++) {
        ck_assert_float_eq(m->value[k], 0.5f);
        ck_assert_float_eq(m->weight[k], 1.0f);
    }
    ck_assert_uint_eq(tf_layer_map_visible_count(m), 12);
    m->weight[5] = 0.0f;
    ck_assert_uint_eq(tf_layer_map_visible_count(m), 11);
    tf_layer_map_free(m);
    tf_layer_map_free(NULL);
    ck_assert_uint_eq(tf_layer_map_visible_count(NULL), 0);
    ck_assert(tf_layer_map_new(0, 3, &err) == NULL);
    ck_assert_int_eq(err.code, TF_ERR_ARGUMENT);
    ck_assert(tf_layer_map_new(TF_MAX_REFERENCE_SIDE + 1, 1, &err) == NULL);
    ck_assert_int_eq(err.code, TF_ERR_LIMIT);
    ck_assert(tf_layer_map_new(TF_MAX_REFERENCE_SIDE, TF_MAX_REFERENCE_SIDE, &err) == NULL);
    ck_assert_int_eq(err.code, TF_ERR_LIMIT);
}
END_TEST

/* ---- bad input: the data-driven corpus */

/* The one file named input.* in a case folder (malloc'd). */
static char *find_input(const char *dir)
{
    DIR *d = opendir(dir);
    ck_assert_msg(d != NULL, "cannot open %s", dir);
    char *found = NULL;
    struct dirent *e;
    while ((e = readdir(d)))
        if (strncmp(e->d_name, "input.", 6) == 0) {
            ck_assert_msg(found == NULL, "%s: more than one input file", dir);
            found = strdup(tu_path("%s/%s", dir, e->d_name));
        }
    closedir(d);
    ck_assert_msg(found != NULL, "%s: no input.* file", dir);
    return found;
}

/* tests/bad-references/'s case folders, listed when the suite is built. */
static char **bad_cases;
static size_t bad_count;

START_TEST(bad_references_are_present)
{
    ck_assert_msg(bad_count >= 50, "tests/bad-references: %zu cases, expected at least 50",
                  bad_count);
}
END_TEST

static tf_error err_size_probe;

START_TEST(bad_reference_fails_with_its_message)
{
    const char *name = bad_cases[_i];
    char *dir = strdup(tu_path("%s/tests/bad-references/%s", tu_srcdir(), name));
    ck_assert_msg(dir != NULL, "%s: out of memory", name);
    char *input = find_input(dir);
    char *expected = tu_read_file(tu_path("%s/error", dir), NULL);
    ck_assert_msg(expected != NULL, "%s: no error file", name);
    size_t n = strlen(expected);
    while (n && (expected[n - 1] == '\n' || expected[n - 1] == '\r'))
        expected[--n] = '\0';
    ck_assert_msg(n > 0, "%s: empty error file", name);
    /* A message leaves room in tf_error.message for a path of 128 bytes:
     * a long checkout path must not cut a message short. */
    ck_assert_msg(n <= sizeof err_size_probe.message - 1 - 128 - 2,
                  "%s: the message is %zu bytes, too long to follow a long path", name, n);

    tf_error err = {0, ""};
    tf_layer_map *m = tf_layer_map_load(input, &err);
    ck_assert_msg(m == NULL, "%s: accepted", name);
    ck_assert_msg(err.code != TF_OK, "%s: no error code", name);
    ck_assert_msg(strstr(err.message, expected) != NULL, "%s: message \"%s\" lacks \"%s\"", name,
                  err.message, expected);
    ck_assert_msg(strncmp(err.message, input, strlen(input)) == 0,
                  "%s: message \"%s\" does not start with the file name", name, err.message);
    /* As a --valid mask the same file fails the same way. */
    tf_layer_map *host = tf_layer_map_new(4, 4, &err);
    ck_assert_msg(host != NULL, "%s: %s", name, err.message);
    tf_error err2 = {0, ""};
    ck_assert_msg(tf_layer_map_apply_valid(host, input, &err2) != 0, "%s: mask accepted", name);
    ck_assert_msg(strstr(err2.message, expected) != NULL, "%s (mask): \"%s\"", name,
                  err2.message);
    ck_assert_msg(tf_layer_map_visible_count(host) == 16, "%s (mask): the host map changed",
                  name);
    tf_layer_map_free(host);
    free(expected);
    free(input);
    free(dir);
}
END_TEST

START_TEST(unreadable_and_oversized_files)
{
    char *missing = scratch_path("does-not-exist.png");
    expect_failure(missing, "cannot open: No such file or directory");
    expect_failure(scratch, "is a directory");

    /* A sparse file one byte over the cap: refused from its size, before
     * anything is read or allocated. */
    char *huge = scratch_path("huge.asc");
    FILE *f = fopen(huge, "wb");
    ck_assert(f != NULL);
    ck_assert_int_eq(ftruncate(fileno(f), (off_t)TF_MAX_REFERENCE_BYTES + 1), 0);
    ck_assert_int_eq(fclose(f), 0);
    tf_error err;
    ck_assert(tf_layer_map_load(huge, &err) == NULL);
    ck_assert_int_eq(err.code, TF_ERR_LIMIT);
    ck_assert_msg(strstr(err.message, "beyond the limit of 1073741824 bytes") != NULL, "%s",
                  err.message);

    /* Without read permission (root reads anyway: skipped then). */
    char *locked = scratch_path("locked.pgm");
    write_text(locked, "P2 1 1 1\n1\n");
    ck_assert_int_eq(chmod(locked, 0), 0);
    if (geteuid() != 0)
        expect_failure(locked, "cannot open: Permission denied");
    ck_assert(tf_layer_map_load(NULL, &err) == NULL);
    ck_assert_int_eq(err.code, TF_ERR_ARGUMENT);
    free(missing);
    free(huge);
    free(locked);
}
END_TEST

/* ---- the real DEMs of the shared data set (16-bit grey PNG) */

START_TEST(real_dems_load)
{
    char dir[4096];
    snprintf(dir, sizeof dir, "%s/../shared/data/dem", tu_srcdir());
    struct stat st;
    if (stat(dir, &st) != 0 || !S_ISDIR(st.st_mode)) {
        fprintf(stderr, "note: %s not found; real DEM check skipped\n", dir);
        return;
    }
    static const struct {
        const char *name;
        size_t w, h;
    } dems[] = {{"volcano.png", 61, 87}, {"jacksboro_fault.png", 403, 344}};
    for (size_t i = 0; i < 2; i++) {
        tf_layer_map *m = load_ok(tu_path("%s/%s", dir, dems[i].name));
        ck_assert_uint_eq(m->width, dems[i].w);
        ck_assert_uint_eq(m->height, dems[i].h);
        ck_assert_int_eq(m->bits, 16);
        ck_assert_int_eq(m->channels, 1);
        /* The set's encoding spans 0..65535 exactly (its README). */
        float lo = 1, hi = 0;
        for (size_t k = 0; k < m->width * m->height; k++) {
            lo = m->value[k] < lo ? m->value[k] : lo;
            hi = m->value[k] > hi ? m->value[k] : hi;
            ck_assert_float_eq(m->weight[k], 1.0f);
        }
        ck_assert_float_eq(lo, 0.0f);
        ck_assert_float_eq(hi, 1.0f);
        ck_assert_uint_eq(tf_layer_map_visible_count(m), dems[i].w * dems[i].h);
        tf_layer_map_free(m);
    }
}
END_TEST

static Suite *image_suite(void)
{
    /* One loop-test iteration per bad-input case: a failure names its case
     * and the other cases still run. */
    bad_cases = tu_list_cases(tu_path("%s/tests/bad-references", tu_srcdir()), NULL, 1, &bad_count);
    Suite *s = suite_create("image");
    TCase *formats = tcase_create("formats");
    tcase_add_checked_fixture(formats, make_scratch, remove_scratch);
    tcase_set_timeout(formats, 60);
    tcase_add_test(formats, png8_grey_is_sample_over_255);
    tcase_add_test(formats, png8_grey_alpha_follows_the_thesis_formula);
    tcase_add_test(formats, png8_rgb_uses_the_red_channel);
    tcase_add_test(formats, png8_rgba_follows_the_thesis_formula);
    tcase_add_test(formats, png16_grey_from_the_heightmap_writer);
    tcase_add_test(formats, png16_grey_alpha_and_rgba);
    tcase_add_test(formats, png_transparency_chunk_and_palette);
    tcase_add_test(formats, pgm_binary_8_and_16_bit);
    tcase_add_test(formats, pgm_plain_text);
    tcase_add_test(formats, asc_nodata_and_normalization);
    tcase_add_test(formats, asc_constant_grid_is_flat_at_one_half);
    tcase_add_test(formats, asc_small_relief_at_high_altitude_keeps_its_detail);
    tcase_add_test(formats, asc_numbers_ignore_the_locale);
    tcase_add_test(formats, content_decides_and_names_are_checked);
    tcase_add_test(formats, valid_mask_hides_zero_cells);
    tcase_add_test(formats, new_maps_and_visible_count);
    tcase_add_test(formats, real_dems_load);
    suite_add_tcase(s, formats);
    TCase *bad = tcase_create("bad input");
    tcase_add_checked_fixture(bad, make_scratch, remove_scratch);
    tcase_set_timeout(bad, 60);
    tcase_add_test(bad, bad_references_are_present);
    tcase_add_loop_test(bad, bad_reference_fails_with_its_message, 0, (int)bad_count);
    tcase_add_test(bad, unreadable_and_oversized_files);
    suite_add_tcase(s, bad);
    return s;
}

int main(void)
{
    int status = tu_run_suite(image_suite());
    tu_free_list(bad_cases, bad_count);
    return status;
}
