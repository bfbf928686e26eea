/*
 * Check suite for the heightmap formats and tiles: every format
 * written and read back (floats bit for bit, integers quantization-exact),
 * the normalization modes and height scale, PFM's bottom-up rows, the asc
 * and f32 georeferencing, refusals that leave no file, and tiles cut with
 * tf_render_window matching one whole render bit for bit; PFM and f32 read
 * as reference layers.
 */
#define _DEFAULT_SOURCE
#include <check.h>
#include <dirent.h>
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "io/png_bands.h"
#include "terrafit/terrafit.h"
#include "testutil.h"

#define NX 13
#define NY 7

static char *scratch;
static float heights[NX * NY];

/* Heights with negatives, fractions and a wide range, including values
 * outside [-1, 1] that integer formats clamp and float formats keep. */
static void setup(void)
{
    scratch = tu_mkdtemp();
    ck_assert_ptr_nonnull(scratch);
    for (int j = 0; j < NY; j++)
        for (int i = 0; i < NX; i++)
            heights[j * NX + i] = (float)(sin(0.7 * i + 1.3 * j) * 1.25 + 0.01 * (i - j));
}

static void teardown(void)
{
    tu_rmtree(scratch);
    free(scratch);
    scratch = NULL;
}

static const char *scratch_file(const char *name)
{
    return tu_path("%s/%s", scratch, name);
}

static size_t entries_in_scratch(void)
{
    DIR *dir = opendir(scratch);
    ck_assert_ptr_nonnull(dir);
    size_t n = 0;
    for (struct dirent *e; (e = readdir(dir)) != NULL;)
        n += strcmp(e->d_name, ".") != 0 && strcmp(e->d_name, "..") != 0;
    closedir(dir);
    return n;
}

static tf_heightmap_options options_spec(double lo, double hi)
{
    tf_heightmap_options o = TF_HEIGHTMAP_OPTIONS_DEFAULT;
    o.lo = lo;
    o.hi = hi;
    return o;
}

static bool same_bits(float a, float b)
{
    return memcmp(&a, &b, sizeof a) == 0;
}

/* ---- names */

START_TEST(test_format_names)
{
    static const char *const names[] = {"png16", "png8", "pgm16", "r16", "f32", "pfm", "asc"};
    ck_assert_int_eq(TF_HEIGHTMAP_FORMAT_COUNT, 7);
    for (int k = 0; k < TF_HEIGHTMAP_FORMAT_COUNT; k++) {
        tf_heightmap_format f;
        ck_assert_str_eq(tf_heightmap_format_name(k), names[k]);
        ck_assert_int_eq(tf_heightmap_format_from_name(names[k], &f), 0);
        ck_assert_int_eq(f, k);
        ck_assert_int_eq(tf_heightmap_format_is_float(k), k >= TF_HEIGHTMAP_F32);
    }
    tf_heightmap_format f;
    ck_assert_int_eq(tf_heightmap_format_from_path("w/tile_3_4.F32", &f), 0);
    ck_assert_int_eq(f, TF_HEIGHTMAP_F32);
    ck_assert_int_eq(tf_heightmap_format_from_path("a.pfm", &f), 0);
    ck_assert_int_eq(f, TF_HEIGHTMAP_PFM);
    ck_assert_int_eq(tf_heightmap_format_from_path("a.asc", &f), 0);
    ck_assert_int_eq(f, TF_HEIGHTMAP_ASC);
    ck_assert_str_eq(tf_heightmap_format_extension(TF_HEIGHTMAP_PNG8), "png");
    ck_assert_str_eq(tf_heightmap_format_extension(TF_HEIGHTMAP_ASC), "asc");
    ck_assert_ptr_null(tf_heightmap_format_extension(TF_HEIGHTMAP_FORMAT_COUNT));

    tf_normalize m;
    ck_assert_int_eq(tf_normalize_from_name("minmax", &m), 0);
    ck_assert_int_eq(m, TF_NORMALIZE_MINMAX);
    ck_assert_int_eq(tf_normalize_from_name("none", &m), 0);
    ck_assert_int_eq(m, TF_NORMALIZE_NONE);
    ck_assert_int_eq(tf_normalize_from_name("Spec", &m), -1);
    ck_assert_str_eq(tf_normalize_name(TF_NORMALIZE_SPEC), "spec");
    ck_assert_ptr_null(tf_normalize_name((tf_normalize)3));

    char buf[16];
    ck_assert_int_eq(tf_heightmap_sidecar_path("a/b.f32", buf, sizeof buf), 0);
    ck_assert_str_eq(buf, "a/b.f32.json");
    ck_assert_int_eq(tf_heightmap_sidecar_path("a/b.f32", buf, 12), -1);
}
END_TEST

/* ---- float formats: every mode, read back bit for bit */

typedef struct {
    tf_normalize mode;
    double scale;
} float_case;

static const float_case FLOAT_CASES[] = {
    {TF_NORMALIZE_NONE, 1.0},   {TF_NORMALIZE_NONE, 300.0}, {TF_NORMALIZE_SPEC, 1.0},
    {TF_NORMALIZE_SPEC, 0.1},   {TF_NORMALIZE_MINMAX, 1.0}, {TF_NORMALIZE_MINMAX, 2500.0},
};
#define FLOAT_CASE_COUNT (int)(sizeof FLOAT_CASES / sizeof FLOAT_CASES[0])
static const tf_heightmap_format FLOAT_FORMATS[] = {TF_HEIGHTMAP_F32, TF_HEIGHTMAP_PFM,
                                                    TF_HEIGHTMAP_ASC};

/* The documented formula, computed here on its own. */
static float expected_value(float h, const float_case *c, double lo, double hi)
{
    double v = c->mode == TF_NORMALIZE_NONE ? (double)h : ((double)h - lo) / (hi - lo);
    return (float)(v * c->scale);
}

START_TEST(test_float_round_trip)
{
    const float_case *c = &FLOAT_CASES[_i % FLOAT_CASE_COUNT];
    const tf_heightmap_format format = FLOAT_FORMATS[_i / FLOAT_CASE_COUNT];
    tf_heightmap_options o = options_spec(-1.0, 1.0);
    o.normalize = c->mode;
    o.height_scale = c->scale;
    o.origin_x = -256.5;
    o.origin_y = 1024.0;
    o.step = 0.25;
    double lo = o.lo, hi = o.hi;
    if (c->mode == TF_NORMALIZE_MINMAX) {
        lo = INFINITY;
        hi = -INFINITY;
        for (int k = 0; k < NX * NY; k++) {
            lo = fmin(lo, heights[k]);
            hi = fmax(hi, heights[k]);
        }
    }
    const char *path = scratch_file(format == TF_HEIGHTMAP_F32   ? "h.f32"
                                    : format == TF_HEIGHTMAP_PFM ? "h.pfm"
                                                                 : "h.asc");
    char file[512];
    snprintf(file, sizeof file, "%s", path);
    tf_error err;
    ck_assert_msg(tf_heightmap_write_with(file, format, heights, NX, NY, &o, &err) == 0, "%s",
                  err.message);
    tf_heightmap *back = tf_heightmap_read(file, format, 0, 0, &err);
    ck_assert_msg(back != NULL, "%s", err.message);
    ck_assert_uint_eq(back->width, NX);
    ck_assert_uint_eq(back->height, NY);
    float stored_min = INFINITY, stored_max = -INFINITY;
    for (int k = 0; k < NX * NY; k++) {
        float want = expected_value(heights[k], c, lo, hi);
        ck_assert_msg(same_bits(back->values[k], want), "pixel %d: read %.9g, wrote %.9g", k,
                      (double)back->values[k], (double)want);
        stored_min = fminf(stored_min, want);
        stored_max = fmaxf(stored_max, want);
    }
    if (c->mode == TF_NORMALIZE_NONE && c->scale == 1.0)
        ck_assert(same_bits(back->values[5], heights[5])); /* the heights' own bits */
    if (c->mode == TF_NORMALIZE_MINMAX) {
        ck_assert(same_bits(stored_min, 0.0f));
        ck_assert(same_bits(stored_max, (float)c->scale));
    }
    if (format != TF_HEIGHTMAP_PFM) {
        /* Georeferencing: these values are exact in binary, so they come
         * back exactly through the asc corner arithmetic too. */
        ck_assert_int_eq(back->georeferenced, 1);
        ck_assert_double_eq(back->origin_x, -256.5);
        ck_assert_double_eq(back->origin_y, 1024.0);
        ck_assert_double_eq(back->step, 0.25);
    } else {
        ck_assert_int_eq(back->georeferenced, 0);
    }
    if (format == TF_HEIGHTMAP_F32) {
        char sidecar[600];
        snprintf(sidecar, sizeof sidecar, "%s.json", file);
        char *text = tu_read_file(sidecar, NULL);
        ck_assert_ptr_nonnull(text);
        ck_assert_ptr_nonnull(strstr(text, "\"width\": 13,"));
        ck_assert_ptr_nonnull(strstr(text, "\"height\": 7,"));
        ck_assert_ptr_nonnull(strstr(text, "\"byteOrder\": \"little-endian\""));
        ck_assert_ptr_nonnull(strstr(text, "\"origin\": [-256.5, 1024]"));
        ck_assert_ptr_nonnull(strstr(text, "\"step\": 0.25,"));
        ck_assert_ptr_nonnull(strstr(text, tf_normalize_name(c->mode)));
        ck_assert_int_eq(strstr(text, "normalizeRange") != NULL, c->mode != TF_NORMALIZE_NONE);
        /* The sidecar prints the shortest exact form; compare as numbers. */
        const char *m = strstr(text, "\"min\": ");
        ck_assert_ptr_nonnull(m);
        ck_assert(same_bits((float)strtod(m + 7, NULL), stored_min));
        const char *x = strstr(text, "\"max\": ");
        ck_assert_ptr_nonnull(x);
        ck_assert(same_bits((float)strtod(x + 7, NULL), stored_max));
        free(text);
    }
    tf_heightmap_free(back);
}
END_TEST

/* ---- integer formats: the samples are exactly tf_quantize's */

START_TEST(test_integer_round_trip)
{
    static const struct {
        tf_heightmap_format format;
        const char *name;
        unsigned maxval;
    } cases[] = {
        {TF_HEIGHTMAP_PNG16, "h.png", 65535},
        {TF_HEIGHTMAP_PNG8, "h8.png", 255},
        {TF_HEIGHTMAP_PGM16, "h.pgm", 65535},
        {TF_HEIGHTMAP_R16, "h.r16", 65535},
    };
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        for (int minmax = 0; minmax < 2; minmax++) {
            tf_heightmap_options o = options_spec(-1.0, 1.0);
            double lo = -1.0, hi = 1.0;
            if (minmax) {
                o.normalize = TF_NORMALIZE_MINMAX;
                lo = INFINITY;
                hi = -INFINITY;
                for (int k = 0; k < NX * NY; k++) {
                    lo = fmin(lo, heights[k]);
                    hi = fmax(hi, heights[k]);
                }
            }
            char file[512];
            snprintf(file, sizeof file, "%s", scratch_file(cases[c].name));
            tf_error err;
            ck_assert_msg(tf_heightmap_write_with(file, cases[c].format, heights, NX, NY, &o,
                                                  &err) == 0,
                          "%s", err.message);
            tf_heightmap *back = cases[c].format == TF_HEIGHTMAP_R16
                                     ? tf_heightmap_read(file, cases[c].format, NX, NY, &err)
                                     : tf_heightmap_read(file, cases[c].format, 0, 0, &err);
            ck_assert_msg(back != NULL, "%s", err.message);
            ck_assert_uint_eq(back->width, NX);
            ck_assert_uint_eq(back->height, NY);
            unsigned seen_max = 0, seen_min = cases[c].maxval;
            for (int k = 0; k < NX * NY; k++) {
                unsigned q = tf_quantize(heights[k], lo, hi, cases[c].maxval);
                ck_assert_msg(back->values[k] == (float)q, "%s pixel %d: %g, expected %u",
                              cases[c].name, k, (double)back->values[k], q);
                seen_max = q > seen_max ? q : seen_max;
                seen_min = q < seen_min ? q : seen_min;
            }
            if (minmax) { /* the map's own range spans the full scale */
                ck_assert_uint_eq(seen_min, 0);
                ck_assert_uint_eq(seen_max, cases[c].maxval);
            }
            tf_heightmap_free(back);
        }
    }
}
END_TEST

/* ---- PNG in parallel bands (lib/io/png_bands.c) */

/* Rows of a wide image: 16-bit big-endian pairs or bytes of a pattern with
 * runs and noise, so bands compress differently. */
typedef struct {
    size_t nx;
    int bit_depth;
} band_rows;

static unsigned band_pixel(size_t i, size_t j)
{
    uint32_t h = (uint32_t)(i * 2654435761u) ^ (uint32_t)(j * 40503u);
    return (unsigned)((i / 7 + j * 31) * 97 + (h >> 28)) & 0xFFFF;
}

static void band_row(void *user, size_t row, unsigned char *out)
{
    const band_rows *r = user;
    for (size_t i = 0; i < r->nx; i++) {
        unsigned v = band_pixel(i, row);
        if (r->bit_depth == 8) {
            out[i] = (unsigned char)v;
        } else {
            out[2 * i] = (unsigned char)(v >> 8);
            out[2 * i + 1] = (unsigned char)v;
        }
    }
}

static char *write_bands(const char *name, size_t nx, size_t ny, int bit_depth,
                         unsigned threads, size_t *length)
{
    char file[512];
    snprintf(file, sizeof file, "%s", scratch_file(name));
    FILE *f = fopen(file, "wb");
    ck_assert_ptr_nonnull(f);
    band_rows rows = {nx, bit_depth};
    tf_error err;
    ck_assert_msg(tf_png_write_bands(f, file, nx, ny, bit_depth, band_row, &rows, threads, &err) ==
                      0,
                  "%s", err.message);
    ck_assert_int_eq(fclose(f), 0);
    char *bytes = tu_read_file(file, length);
    ck_assert_ptr_nonnull(bytes);
    /* decodes (libpng, through the reader) to the rows given */
    tf_heightmap *back = tf_heightmap_read(file, bit_depth == 8 ? TF_HEIGHTMAP_PNG8
                                                                : TF_HEIGHTMAP_PNG16,
                                           0, 0, &err);
    ck_assert_msg(back != NULL, "%s", err.message);
    ck_assert_uint_eq(back->width, nx);
    ck_assert_uint_eq(back->height, ny);
    unsigned mask = bit_depth == 8 ? 0xFFu : 0xFFFFu;
    size_t wrong = 0, first_wrong = 0;
    for (size_t k = 0; k < nx * ny; k++) /* one assertion: Check's are slow */
        if (back->values[k] != (float)(band_pixel(k % nx, k / nx) & mask) && wrong++ == 0)
            first_wrong = k;
    ck_assert_msg(wrong == 0, "%s: %zu pixels differ, the first at (%zu, %zu)", name, wrong,
                  first_wrong % nx, first_wrong / nx);
    tf_heightmap_free(back);
    return bytes;
}

START_TEST(test_png_bands_any_thread_count)
{
    /* 20000 16-bit pixels a row: 26 rows a band, so 60 rows are three
     * bands, the last one short. */
    const size_t nx = 20000, ny = 60;
    ck_assert_uint_eq(tf_png_rows_per_band(nx, 16), 26);
    ck_assert_uint_eq(tf_png_rows_per_band(nx, 8), 52);
    ck_assert_uint_eq(tf_png_rows_per_band(1 << 20, 16), 1);
    for (int depth = 8; depth <= 16; depth += 8) {
        size_t n1, n3, n8;
        char *one = write_bands("one.png", nx, ny, depth, 1, &n1);
        char *three = write_bands("three.png", nx, ny, depth, 3, &n3);
        char *eight = write_bands("eight.png", nx, ny, depth, 8, &n8);
        /* the same bytes whatever the thread count */
        ck_assert_uint_eq(n1, n3);
        ck_assert_uint_eq(n1, n8);
        ck_assert(memcmp(one, three, n1) == 0);
        ck_assert(memcmp(one, eight, n1) == 0);
        /* and compressed: the pattern's runs are worth something */
        ck_assert_uint_lt(n1, nx * ny * (size_t)(depth / 8));
        free(one);
        free(three);
        free(eight);
    }
    /* one row, one band */
    size_t n;
    free(write_bands("row.png", 5, 1, 16, 2, &n));
}
END_TEST

START_TEST(test_png_bands_write_failure)
{
    /* A full device fails mid-stream: every thread stops, the error names
     * the file and the reason, and nothing leaks (ASan). */
    FILE *f = fopen("/dev/full", "wb");
    if (!f)
        return; /* no /dev/full here: nothing to test */
    setvbuf(f, NULL, _IONBF, 0);
    band_rows rows = {20000, 16};
    tf_error err;
    ck_assert_int_eq(
        tf_png_write_bands(f, "full.png", 20000, 200, 16, band_row, &rows, 2, &err), -1);
    fclose(f);
    ck_assert_msg(strstr(err.message, "full.png: cannot write file") != NULL, "%s", err.message);
    /* no rows, no columns, or a depth PNG grey has not here: refused */
    FILE *null_file = fopen("/dev/null", "wb");
    ck_assert_ptr_nonnull(null_file);
    ck_assert_int_eq(tf_png_write_bands(null_file, "e.png", 0, 5, 16, band_row, &rows, 1, &err),
                     -1);
    ck_assert_int_eq(tf_png_write_bands(null_file, "e.png", 5, 0, 16, band_row, &rows, 1, &err),
                     -1);
    ck_assert_int_eq(tf_png_write_bands(null_file, "e.png", 5, 5, 4, band_row, &rows, 1, &err),
                     -1);
    ck_assert_msg(strstr(err.message, "e.png: cannot write a 5x5 PNG of 4 bits") != NULL, "%s",
                  err.message);
    fclose(null_file);
}
END_TEST

/* ---- layouts on disk */

static uint32_t le32(const unsigned char *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static float float_bits(uint32_t bits)
{
    float v;
    memcpy(&v, &bits, sizeof v);
    return v;
}

START_TEST(test_pfm_layout)
{
    tf_heightmap_options o = options_spec(-1.0, 1.0);
    o.normalize = TF_NORMALIZE_NONE;
    char file[512];
    snprintf(file, sizeof file, "%s", scratch_file("h.pfm"));
    ck_assert_int_eq(tf_heightmap_write_with(file, TF_HEIGHTMAP_PFM, heights, NX, NY, &o, NULL),
                     0);
    size_t len;
    unsigned char *data = (unsigned char *)tu_read_file(file, &len);
    ck_assert_ptr_nonnull(data);
    const char header[] = "Pf\n13 7\n-1.0\n";
    const size_t hlen = sizeof header - 1;
    ck_assert_uint_eq(len, hlen + 4 * NX * NY);
    ck_assert_int_eq(memcmp(data, header, hlen), 0);
    /* The first stored row is the bottom one (row NY-1), little-endian. */
    for (int i = 0; i < NX; i++) {
        ck_assert(same_bits(float_bits(le32(data + hlen + 4 * i)), heights[(NY - 1) * NX + i]));
        ck_assert(same_bits(float_bits(le32(data + len - 4 * NX + 4 * i)), heights[i]));
    }
    free(data);

    /* A big-endian PFM (positive scale) from elsewhere reads too. */
    char be[512];
    snprintf(be, sizeof be, "%s", scratch_file("be.pfm"));
    FILE *f = fopen(be, "wb");
    ck_assert_ptr_nonnull(f);
    fputs("Pf 2 1 1.0\n", f);
    const unsigned char samples[] = {0x3f, 0x80, 0, 0, 0xc0, 0x20, 0, 0}; /* 1.0, -2.5 */
    fwrite(samples, 1, sizeof samples, f);
    fclose(f);
    tf_error err;
    tf_heightmap *map = tf_heightmap_read(be, TF_HEIGHTMAP_PFM, 0, 0, &err);
    ck_assert_msg(map != NULL, "%s", err.message);
    ck_assert_float_eq(map->values[0], 1.0f);
    ck_assert_float_eq(map->values[1], -2.5f);
    tf_heightmap_free(map);
}
END_TEST

START_TEST(test_asc_layout)
{
    tf_heightmap_options o = options_spec(-1.0, 1.0);
    o.normalize = TF_NORMALIZE_NONE;
    o.origin_x = 10.0;
    o.origin_y = -3.0;
    o.step = 2.0;
    char file[512];
    snprintf(file, sizeof file, "%s", scratch_file("h.asc"));
    ck_assert_int_eq(tf_heightmap_write_with(file, TF_HEIGHTMAP_ASC, heights, NX, NY, &o, NULL),
                     0);
    char *text = tu_read_file(file, NULL);
    ck_assert_ptr_nonnull(text);
    /* Cells centred on samples; northing = -y, so the bottom row (y = -3 +
     * 6*2 = 9) has its centre at northing -9 and its lower edge at -10. */
    ck_assert_ptr_nonnull(strstr(text, "ncols 13\nnrows 7\nxllcorner 9\nyllcorner -10\n"
                                       "cellsize 2\n"));
    free(text);

    /* xllcenter / yllcenter and NODATA from other tools read too. */
    char other[512];
    snprintf(other, sizeof other, "%s", scratch_file("other.asc"));
    FILE *f = fopen(other, "w");
    ck_assert_ptr_nonnull(f);
    fputs("NCOLS 2\nNROWS 2\nXLLCENTER 100\nYLLCENTER 50\nCELLSIZE 10\nNODATA_VALUE -9999\n"
          "1.5 -9999\n3 4e2\n",
          f);
    fclose(f);
    tf_error err;
    tf_heightmap *map = tf_heightmap_read(other, TF_HEIGHTMAP_ASC, 0, 0, &err);
    ck_assert_msg(map != NULL, "%s", err.message);
    ck_assert_float_eq(map->values[0], 1.5f);
    ck_assert(isnan(map->values[1]));
    ck_assert_float_eq(map->values[3], 400.0f);
    ck_assert_double_eq(map->origin_x, 100.0);
    ck_assert_double_eq(map->origin_y, -60.0); /* top row's centre: northing 60 */
    ck_assert_double_eq(map->step, 10.0);
    tf_heightmap_free(map);
}
END_TEST

/* ---- refusals: a clear message, and no file (nor temporary) left */

START_TEST(test_refusals)
{
    char file[512];
    snprintf(file, sizeof file, "%s", scratch_file("x.png"));
    tf_error err;
    tf_heightmap_options o = options_spec(-1.0, 1.0);
    o.normalize = TF_NORMALIZE_NONE;
    ck_assert_int_eq(tf_heightmap_write_with(file, TF_HEIGHTMAP_PNG16, heights, NX, NY, &o, &err),
                     -1);
    ck_assert_int_eq(err.code, TF_ERR_ARGUMENT);
    ck_assert_ptr_nonnull(strstr(err.message, "float formats"));

    o = options_spec(-1.0, 1.0);
    o.height_scale = 2.0;
    ck_assert_int_eq(tf_heightmap_write_with(file, TF_HEIGHTMAP_R16, heights, NX, NY, &o, &err),
                     -1);
    ck_assert_ptr_nonnull(strstr(err.message, "height scale"));
    o.height_scale = 0.0;
    ck_assert_int_eq(tf_heightmap_write_with(file, TF_HEIGHTMAP_F32, heights, NX, NY, &o, &err),
                     -1);
    o = options_spec(-1.0, 1.0);
    o.step = 0.0;
    ck_assert_int_eq(tf_heightmap_write_with(file, TF_HEIGHTMAP_ASC, heights, NX, NY, &o, &err),
                     -1);
    ck_assert_int_eq(tf_heightmap_write_with(file, TF_HEIGHTMAP_ASC, heights, NX, NY, NULL, &err),
                     -1);

    /* A stored value that is not finite: NaN, or float overflow. */
    float bad[NX * NY];
    memcpy(bad, heights, sizeof bad);
    bad[NX + 3] = NAN;
    o = options_spec(-1.0, 1.0);
    snprintf(file, sizeof file, "%s", scratch_file("x.f32"));
    ck_assert_int_eq(tf_heightmap_write_with(file, TF_HEIGHTMAP_F32, bad, NX, NY, &o, &err), -1);
    ck_assert_ptr_nonnull(strstr(err.message, "pixel (3, 1)"));
    o.normalize = TF_NORMALIZE_NONE;
    o.height_scale = 1e39; /* > FLT_MAX once multiplied */
    snprintf(file, sizeof file, "%s", scratch_file("x.pfm"));
    ck_assert_int_eq(tf_heightmap_write_with(file, TF_HEIGHTMAP_PFM, heights, NX, NY, &o, &err),
                     -1);
    ck_assert_ptr_nonnull(strstr(err.message, "not finite"));
    ck_assert_uint_eq(entries_in_scratch(), 0);
}
END_TEST

START_TEST(test_read_errors)
{
    char file[512], sidecar[600];
    snprintf(file, sizeof file, "%s", scratch_file("h.f32"));
    snprintf(sidecar, sizeof sidecar, "%s.json", file);
    tf_heightmap_options o = options_spec(-1.0, 1.0);
    ck_assert_int_eq(tf_heightmap_write_with(file, TF_HEIGHTMAP_F32, heights, NX, NY, &o, NULL),
                     0);
    tf_error err;
    /* Wrong expected size. */
    ck_assert_ptr_null(tf_heightmap_read(file, TF_HEIGHTMAP_F32, NX + 1, NY, &err));
    ck_assert_ptr_nonnull(strstr(err.message, "13x7"));
    /* A sidecar that disagrees with the data. */
    FILE *f = fopen(sidecar, "w");
    fputs("{\"width\": 13, \"height\": 8}", f);
    fclose(f);
    ck_assert_ptr_null(tf_heightmap_read(file, TF_HEIGHTMAP_F32, 0, 0, &err));
    ck_assert_ptr_nonnull(strstr(err.message, "bytes"));
    f = fopen(sidecar, "w");
    fputs("{\"width\": 13, \"height\": 7, \"byteOrder\": \"big-endian\"}", f);
    fclose(f);
    ck_assert_ptr_null(tf_heightmap_read(file, TF_HEIGHTMAP_F32, 0, 0, &err));
    ck_assert_ptr_nonnull(strstr(err.message, "$.byteOrder"));
    f = fopen(sidecar, "w");
    fputs("{\"width\": 13.5, \"height\": 7}", f);
    fclose(f);
    ck_assert_ptr_null(tf_heightmap_read(file, TF_HEIGHTMAP_F32, 0, 0, &err));
    ck_assert_ptr_nonnull(strstr(err.message, "$.width"));
    remove(sidecar);
    ck_assert_ptr_null(tf_heightmap_read(file, TF_HEIGHTMAP_F32, 0, 0, &err));
    ck_assert_ptr_nonnull(strstr(err.message, ".f32.json"));

    /* Truncated and malformed PFMs. */
    static const char *const bad_pfms[] = {"Pf\n2 2\n-1.0\n\1\2\3", "PF\n1 1\n-1\n\0\0\0\0\0\0",
                                           "Pf\n2\n", "Pf\n2 2\n0\n", "Pf\n0 5\n-1\n"};
    for (size_t k = 0; k < sizeof bad_pfms / sizeof bad_pfms[0]; k++) {
        snprintf(file, sizeof file, "%s", scratch_file("bad.pfm"));
        f = fopen(file, "wb");
        fwrite(bad_pfms[k], 1, strlen(bad_pfms[k]), f);
        fclose(f);
        ck_assert_ptr_null(tf_heightmap_read(file, TF_HEIGHTMAP_PFM, 0, 0, &err));
        ck_assert_ptr_nonnull(strstr(err.message, "bad.pfm"));
    }
    /* r16 whose size is not the one given, nor a square. */
    snprintf(file, sizeof file, "%s", scratch_file("bad.r16"));
    f = fopen(file, "wb");
    fwrite("\1\2\3\4\5\6", 1, 6, f);
    fclose(f);
    ck_assert_ptr_null(tf_heightmap_read(file, TF_HEIGHTMAP_R16, 2, 2, &err));
    ck_assert_ptr_null(tf_heightmap_read(file, TF_HEIGHTMAP_R16, 0, 0, &err));
    tf_heightmap *ok = tf_heightmap_read(file, TF_HEIGHTMAP_R16, 3, 1, &err);
    ck_assert_ptr_nonnull(ok);
    ck_assert_float_eq(ok->values[0], (float)(1 + 2 * 256));
    tf_heightmap_free(ok);
    /* An asc missing a header key, and one short of values. */
    snprintf(file, sizeof file, "%s", scratch_file("bad.asc"));
    f = fopen(file, "w");
    fputs("ncols 2\nnrows 2\nxllcorner 0\ncellsize 1\n1 2 3 4\n", f);
    fclose(f);
    ck_assert_ptr_null(tf_heightmap_read(file, TF_HEIGHTMAP_ASC, 0, 0, &err));
    ck_assert_ptr_nonnull(strstr(err.message, "yllcorner"));
    f = fopen(file, "w");
    fputs("ncols 2\nnrows 2\nxllcorner 0\nyllcorner 0\ncellsize 1\n1 2 3\n", f);
    fclose(f);
    ck_assert_ptr_null(tf_heightmap_read(file, TF_HEIGHTMAP_ASC, 0, 0, &err));
    ck_assert_ptr_nonnull(strstr(err.message, "too few values"));
}
END_TEST

/* ---- PFM and f32 as reference layers (tf_layer_map_load) */

START_TEST(test_float_reference_layers)
{
    tf_heightmap_options o = options_spec(-1.0, 1.0);
    o.normalize = TF_NORMALIZE_NONE;
    float lo = INFINITY, hi = -INFINITY;
    for (int k = 0; k < NX * NY; k++) {
        lo = fminf(lo, heights[k]);
        hi = fmaxf(hi, heights[k]);
    }
    static const char *const names[] = {"ref.pfm", "ref.f32"};
    for (int f = 0; f < 2; f++) {
        char file[512];
        snprintf(file, sizeof file, "%s", scratch_file(names[f]));
        ck_assert_int_eq(tf_heightmap_write_with(file, f ? TF_HEIGHTMAP_F32 : TF_HEIGHTMAP_PFM,
                                                 heights, NX, NY, &o, NULL),
                         0);
        tf_error err;
        tf_layer_map *layer = tf_layer_map_load(file, &err);
        ck_assert_msg(layer != NULL, "%s", err.message);
        ck_assert_uint_eq(layer->width, NX);
        ck_assert_uint_eq(layer->height, NY);
        ck_assert_double_eq(layer->z_min, lo);
        ck_assert_double_eq(layer->z_max, hi);
        for (int k = 0; k < NX * NY; k++) {
            ck_assert_float_eq(layer->weight[k], 1.0f);
            ck_assert_float_eq_tol(layer->value[k], (heights[k] - lo) / (hi - lo), 1e-6f);
        }
        tf_layer_map_free(layer);
    }
    /* A .pfm name on other content is refused, naming what it holds. */
    char file[512];
    snprintf(file, sizeof file, "%s", scratch_file("fake.pfm"));
    FILE *fp = fopen(file, "w");
    fputs("P2\n1 1\n255\n7\n", fp);
    fclose(fp);
    tf_error err;
    ck_assert_ptr_null(tf_layer_map_load(file, &err));
    ck_assert_ptr_nonnull(strstr(err.message, "named .pfm but holds a PGM image"));
}
END_TEST

/* ---- tiles: windows of one lattice equal the whole render bit for bit */

static const char SPEC[] =
    "{\"format\": \"terrafit-terrain\", \"version\": 1, \"seed\": 11,"
    " \"minValue\": -1, \"maxValue\": 1, \"noiseLayers\": ["
    "  {\"baseNoise\": {\"frequency\": 0.031}, \"rd\": {\"points\": ["
    "    {\"x\": 0, \"y\": 0}, {\"x\": 0.4, \"y\": 0.3}, {\"x\": 1, \"y\": 1}]},"
    "   \"preAmpShift\": -0.5, \"ampScale\": 1},"
    "  {\"baseNoise\": {\"frequency\": 0.17}, \"rd\": {\"points\": ["
    "    {\"x\": 0, \"y\": 0}, {\"x\": 1, \"y\": 1}]},"
    "   \"preAmpShift\": -0.5, \"ampScale\": 0.2}]}";

START_TEST(test_tiles_match_whole_render)
{
    enum { N = 16, TILES = 4, W = N * TILES };
    tf_error err;
    tf_terrain *t = tf_terrain_parse(SPEC, sizeof SPEC - 1, &err);
    ck_assert_msg(t != NULL, "%s", err.message);
    /* A fractional origin and step, where x0 + (i0 + i) * step and
     * (x0 + i0 * step) + i * step differ for about a third of the pixels. */
    const double x0 = -37.3, y0 = 11.7, step = 0.37;
    float *whole = malloc(sizeof(float) * W * W);
    float *tile = malloc(sizeof(float) * N * N);
    ck_assert_int_eq(tf_render_grid(t, x0, y0, step, W, W, 3, whole, NULL, NULL, &err), 0);
    for (int ty = 0; ty < TILES; ty++) {
        for (int tx = 0; tx < TILES; tx++) {
            ck_assert_int_eq(tf_render_window(t, x0, y0, step, tx * N, ty * N, N, N,
                                              (unsigned)(1 + tx), tile, NULL, NULL, &err),
                             0);
            for (int j = 0; j < N; j++)
                ck_assert_int_eq(
                    memcmp(tile + j * N, whole + (size_t)(ty * N + j) * W + tx * N, N * 4), 0);
        }
    }
    /* And the threaded window is the runtime's window. */
    float *direct = malloc(sizeof(float) * N * N);
    tf_terrain_sample_window(t, x0, y0, step, -5000000, 123456789, N, N, direct);
    ck_assert_int_eq(tf_render_window(t, x0, y0, step, -5000000, 123456789, N, N, 2, tile, NULL,
                                      NULL, &err),
                     0);
    ck_assert_int_eq(memcmp(direct, tile, sizeof(float) * N * N), 0);
    /* Lattice indices at 2^53 are refused. */
    ck_assert_int_eq(tf_render_window(t, x0, y0, step, (int64_t)1 << 53, 0, N, N, 1, tile, NULL,
                                      NULL, &err),
                     -1);
    ck_assert_int_eq(err.code, TF_ERR_ARGUMENT);
    free(direct);
    free(tile);
    free(whole);
    tf_terrain_free(t);
}
END_TEST

static Suite *formats_suite(void)
{
    Suite *s = suite_create("formats");
    TCase *tc = tcase_create("formats");
    /* Megapixel PNGs under the sanitizers on a busy machine: not a timing */
    tcase_set_timeout(tc, 120);
    tcase_add_checked_fixture(tc, setup, teardown);
    tcase_add_test(tc, test_format_names);
    tcase_add_loop_test(tc, test_float_round_trip, 0, 3 * FLOAT_CASE_COUNT);
    tcase_add_test(tc, test_integer_round_trip);
    tcase_add_test(tc, test_png_bands_any_thread_count);
    tcase_add_test(tc, test_png_bands_write_failure);
    tcase_add_test(tc, test_pfm_layout);
    tcase_add_test(tc, test_asc_layout);
    tcase_add_test(tc, test_refusals);
    tcase_add_test(tc, test_read_errors);
    tcase_add_test(tc, test_float_reference_layers);
    tcase_add_test(tc, test_tiles_match_whole_render);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    return tu_run_suite(formats_suite());
}
