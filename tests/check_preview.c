/*
 * Check suite for preview styles and panels: exact colours of known slopes
 * (hillshade, slope, normals in both Y conventions), the survey's rules
 * (water, vegetation, rock, snow), no-data cells, seamless tiles through the
 * one-sample border, side-by-side layout with captions, the caption font,
 * bad options, and the PNG written atomically.
 */
#define _DEFAULT_SOURCE
#include <check.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* Debian's stb_image has a non-static function without a prototype. */
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmissing-prototypes"
#define STB_IMAGE_IMPLEMENTATION
#define STBI_ONLY_PNG
#include <stb_image.h>
#pragma GCC diagnostic pop

#include "render/font.h"
#include "terrafit/terrafit.h"
#include "testutil.h"

#define NX 24
#define NY 20

static char *scratch;

static void make_scratch(void)
{
    scratch = tu_mkdtemp();
    ck_assert_ptr_nonnull(scratch);
}

static void remove_scratch(void)
{
    tu_rmtree(scratch);
    free(scratch);
    scratch = NULL;
}

/* A plane of normalized heights rising `east` per pixel eastwards and
 * `north` per pixel northwards (up the image). */
static void fill_plane(float *h, size_t nx, size_t ny, double base, double east, double north)
{
    for (size_t j = 0; j < ny; j++)
        for (size_t i = 0; i < nx; i++)
            h[j * nx + i] = (float)(base + east * (double)i - north * (double)j);
}

static unsigned char *render_one(const float *h, size_t nx, size_t ny,
                                 const tf_preview_options *o, size_t *w, size_t *ht)
{
    tf_preview_panel panel = {.heights = h, .width = nx, .height = ny};
    tf_error err;
    unsigned char *rgb = tf_preview_render(&panel, 1, o, w, ht, &err);
    ck_assert_msg(rgb != NULL, "%s", err.message);
    return rgb;
}

/* Every pixel of an image equals (r, g, b). */
static void assert_all(const unsigned char *rgb, size_t count, int r, int g, int b)
{
    for (size_t k = 0; k < count; k++) {
        ck_assert_msg(rgb[3 * k] == r && rgb[3 * k + 1] == g && rgb[3 * k + 2] == b,
                      "pixel %zu is (%d, %d, %d), expected (%d, %d, %d)", k, rgb[3 * k],
                      rgb[3 * k + 1], rgb[3 * k + 2], r, g, b);
    }
}

START_TEST(style_names_round_trip)
{
    for (int s = 0; s < TF_PREVIEW_STYLE_COUNT; s++) {
        tf_preview_style back;
        const char *name = tf_preview_style_name((tf_preview_style)s);
        ck_assert_ptr_nonnull(name);
        ck_assert_int_eq(tf_preview_style_from_name(name, &back), 0);
        ck_assert_int_eq(back, s);
    }
    tf_preview_style style;
    ck_assert_int_eq(tf_preview_style_from_name("colour", &style), -1);
    ck_assert_int_eq(tf_preview_style_from_name(NULL, &style), -1);
    ck_assert_ptr_null(tf_preview_style_name(TF_PREVIEW_STYLE_COUNT));
    ck_assert_str_eq(tf_preview_style_name(TF_PREVIEW_NORMALS), "normals");
}
END_TEST

START_TEST(hillshade_is_the_cosine_of_the_angle_to_the_sun)
{
    float h[NX * NY];
    tf_preview_options o = tf_preview_options_default();
    o.style = TF_PREVIEW_HILLSHADE;
    o.height_scale = 1.0;
    size_t w, ht;
    /* Flat ground: 255 sin(altitude) = 220.8 at 60 degrees. */
    fill_plane(h, NX, NY, 0.5, 0, 0);
    o.sun_altitude = 60.0;
    unsigned char *rgb = render_one(h, NX, NY, &o, &w, &ht);
    ck_assert_uint_eq(w, NX);
    ck_assert_uint_eq(ht, NY);
    assert_all(rgb, NX * NY, 221, 221, 221);
    free(rgb);
    /* A 45-degree slope rising eastwards faces west-up: a sun in the west
     * at 45 degrees strikes it square (255); one in the east grazes it (0). */
    fill_plane(h, NX, NY, 0.0, 0.01, 0);
    o.height_scale = 100.0;
    o.sun_altitude = 45.0;
    o.sun_azimuth = 270.0;
    rgb = render_one(h, NX, NY, &o, &w, &ht);
    assert_all(rgb, NX * NY, 255, 255, 255);
    free(rgb);
    o.sun_azimuth = 90.0;
    rgb = render_one(h, NX, NY, &o, &w, &ht);
    assert_all(rgb, NX * NY, 0, 0, 0);
    free(rgb);
    /* Sun from the north at 60 degrees on that slope: the normal
     * (-1, 0, 1) / sqrt 2 and the sun (0, 0.5, 0.866) meet at cos = 0.612. */
    o.sun_azimuth = 0.0;
    o.sun_altitude = 60.0;
    rgb = render_one(h, NX, NY, &o, &w, &ht);
    assert_all(rgb, NX * NY, 156, 156, 156);
    free(rgb);
}
END_TEST

START_TEST(slope_style_follows_the_angle)
{
    float h[NX * NY];
    tf_preview_options o = tf_preview_options_default();
    o.style = TF_PREVIEW_SLOPE;
    o.height_scale = 100.0;
    size_t w, ht;
    fill_plane(h, NX, NY, 0.5, 0, 0);
    unsigned char *rgb = render_one(h, NX, NY, &o, &w, &ht);
    assert_all(rgb, NX * NY, 250, 250, 240); /* 0 degrees */
    free(rgb);
    /* 45 degrees, halfway from 40 (232, 104, 62) to 50 (200, 44, 38). */
    fill_plane(h, NX, NY, 0.5, 0, 0.01);
    rgb = render_one(h, NX, NY, &o, &w, &ht);
    assert_all(rgb, NX * NY, 216, 74, 50);
    free(rgb);
}
END_TEST

START_TEST(normal_map_encodes_n_half_plus_half_in_both_conventions)
{
    float h[NX * NY];
    tf_preview_options o = tf_preview_options_default();
    o.style = TF_PREVIEW_NORMALS;
    o.height_scale = 100.0;
    size_t w, ht;
    fill_plane(h, NX, NY, 0.5, 0, 0);
    unsigned char *rgb = render_one(h, NX, NY, &o, &w, &ht);
    assert_all(rgb, NX * NY, 128, 128, 255); /* (0, 0, 1) */
    free(rgb);
    /* Rising northwards at 45 degrees: n = (0, -0.7071, 0.7071), so green
     * is (1 - 0.7071) / 2 * 255 = 37 in OpenGL's +Y up, 218 in DirectX's. */
    fill_plane(h, NX, NY, 0.5, 0, 0.01);
    rgb = render_one(h, NX, NY, &o, &w, &ht);
    assert_all(rgb, NX * NY, 128, 37, 218);
    free(rgb);
    o.normals_y_down = 1;
    rgb = render_one(h, NX, NY, &o, &w, &ht);
    assert_all(rgb, NX * NY, 128, 218, 218);
    free(rgb);
    /* Rising eastwards: n_x < 0, red below 128. */
    fill_plane(h, NX, NY, 0.5, 0.01, 0);
    rgb = render_one(h, NX, NY, &o, &w, &ht);
    assert_all(rgb, NX * NY, 37, 128, 218);
    free(rgb);
    /* Decoded normals are unit length, to the quantization. */
    for (size_t k = 0; k < NX * NY; k++)
        h[k] = (float)(0.3 * sin(0.4 * (double)(k % NX)) * cos(0.3 * (double)(k / NX)));
    o.height_scale = 0.0;
    rgb = render_one(h, NX, NY, &o, &w, &ht);
    for (size_t k = 0; k < NX * NY; k++) {
        double n[3], length = 0.0;
        for (int c = 0; c < 3; c++) {
            n[c] = rgb[3 * k + c] / 255.0 * 2.0 - 1.0;
            length += n[c] * n[c];
        }
        ck_assert_double_eq_tol(sqrt(length), 1.0, 0.012);
        ck_assert_uint_ge(rgb[3 * k + 2], 128); /* facing up */
    }
    free(rgb);
}
END_TEST

/* The survey's rules (seed 003, 4.2) on a made-up map: a lake, a meadow
 * plateau, a cliff, and a snowy summit plateau. */
START_TEST(rules_colour_water_vegetation_rock_and_snow)
{
    float h[NX * NY];
    for (size_t j = 0; j < NY; j++) {
        for (size_t i = 0; i < NX; i++) {
            double v = i < 6 ? 0.05 : i < 12 ? 0.4 : 0.9; /* lake, meadow, summit */
            h[j * NX + i] = (float)v;
        }
    }
    tf_preview_options o = tf_preview_options_default();
    o.style = TF_PREVIEW_RULES;
    o.height_scale = 10.0; /* a step of 0.5 is 5 pixels: a cliff */
    o.water_level = 0.2;
    o.snow_level = 0.8;
    o.vegetation_talus = 1.0;
    size_t w, ht;
    unsigned char *rgb = render_one(h, NX, NY, &o, &w, &ht);
    for (size_t j = 1; j + 1 < NY; j++) {
        const unsigned char *row = rgb + 3 * j * NX;
        /* Water: blue, unshaded, darker than the shore. */
        for (size_t i = 0; i < 6; i++)
            ck_assert(row[3 * i + 2] > row[3 * i] && row[3 * i + 2] > row[3 * i + 1]);
        /* Meadow away from the cliff: green. */
        for (size_t i = 7; i < 11; i++)
            ck_assert_msg(row[3 * i + 1] > row[3 * i] && row[3 * i + 1] > row[3 * i + 2],
                          "(%zu, %zu) is not green", i, j);
        /* Both sides of the cliff: rock (a neighbour is 5 pixels away in height),
         * grey-brown: red >= green >= blue, all within 40 of each other. */
        for (size_t i = 11; i < 13; i++) {
            const unsigned char *p = row + 3 * i;
            ck_assert_msg(p[0] >= p[1] && p[1] >= p[2] && p[0] - p[2] < 40,
                          "(%zu, %zu) is not rock: %d %d %d", i, j, p[0], p[1], p[2]);
        }
        /* The flat summit above the snow level: white. */
        for (size_t i = 14; i < NX; i++)
            ck_assert(row[3 * i] > 230 && row[3 * i + 1] > 230 && row[3 * i + 2] > 230);
    }
    /* The meadow's next-to-cliff column is rock only because of its
     * neighbour: with a larger talus it is vegetation. */
    o.vegetation_talus = 6.0;
    unsigned char *lenient = render_one(h, NX, NY, &o, &w, &ht);
    const unsigned char *p = lenient + 3 * (5 * NX + 11);
    ck_assert(p[1] > p[0] && p[1] > p[2]);
    /* No water level: the lake is vegetation. */
    o.water_level = NAN;
    unsigned char *dry = render_one(h, NX, NY, &o, &w, &ht);
    p = dry + 3 * (5 * NX + 2);
    ck_assert(p[1] > p[0] && p[1] > p[2]);
    free(rgb);
    free(lenient);
    free(dry);
}
END_TEST

START_TEST(color_style_has_flat_water_below_the_level)
{
    float h[NX * NY];
    for (size_t j = 0; j < NY; j++)
        for (size_t i = 0; i < NX; i++)
            h[j * NX + i] = (float)(0.1 + 0.02 * (double)i + 0.013 * (double)((i * j) % 5));
    tf_preview_options o = tf_preview_options_default();
    o.style = TF_PREVIEW_COLOR;
    o.water_level = 0.3;
    size_t w, ht;
    unsigned char *rgb = render_one(h, NX, NY, &o, &w, &ht);
    for (size_t k = 0; k < NX * NY; k++) {
        const unsigned char *p = rgb + 3 * k;
        if (h[k] < 0.3) {
            ck_assert(p[2] > p[0] && p[2] > p[1]);
            /* Same depth, same colour, whatever the slope. */
            for (size_t m = 0; m < NX * NY; m++)
                if (h[m] == h[k])
                    ck_assert_mem_eq(p, rgb + 3 * m, 3);
        } else {
            ck_assert(!(p[2] > p[0] && p[2] > p[1])); /* land is never blue */
        }
    }
    free(rgb);
}
END_TEST

START_TEST(no_data_is_light_grey_or_a_flat_normal)
{
    float h[NX * NY];
    fill_plane(h, NX, NY, 0.5, 0.001, 0.002);
    h[7 * NX + 9] = NAN;
    tf_preview_options o = tf_preview_options_default();
    size_t w, ht;
    for (int s = 0; s < TF_PREVIEW_STYLE_COUNT; s++) {
        o.style = (tf_preview_style)s;
        unsigned char *rgb = render_one(h, NX, NY, &o, &w, &ht);
        const unsigned char *p = rgb + 3 * (7 * NX + 9);
        if (s == TF_PREVIEW_NORMALS) {
            ck_assert_uint_eq(p[0], 128);
            ck_assert_uint_eq(p[1], 128);
            ck_assert_uint_eq(p[2], 255);
        } else {
            ck_assert_uint_eq(p[0], 208);
            ck_assert_uint_eq(p[1], 208);
            ck_assert_uint_eq(p[2], 214);
        }
        /* Cells beside its neighbours still have colours of their own. */
        ck_assert(memcmp(p, p + 6, 3) != 0);
        free(rgb);
    }
}
END_TEST

/* A smooth function of the global sample index: not linear, so one-sided
 * and central differences disagree. */
static float terrain_at(long i, long j)
{
    return (float)(0.5 + 0.2 * sin(0.21 * (double)i) * cos(0.17 * (double)j) +
                   0.05 * sin(0.9 * (double)(i + 2 * j)));
}

/* Samples of a panel with border b covering global pixels [i0, i0 + w) x
 * [j0, j0 + h). */
static float *window(long i0, long j0, size_t w, size_t h, size_t b)
{
    size_t sx = w + 2 * b, sy = h + 2 * b;
    float *s = malloc(sizeof *s * sx * sy);
    ck_assert_ptr_nonnull(s);
    for (size_t j = 0; j < sy; j++)
        for (size_t i = 0; i < sx; i++)
            s[j * sx + i] = terrain_at(i0 + (long)i - (long)b, j0 + (long)j - (long)b);
    return s;
}

START_TEST(bordered_tiles_join_without_seams)
{
    const size_t W = 32, H = 16;
    tf_preview_options o = tf_preview_options_default();
    o.height_scale = 40.0;
    tf_error err;
    for (int s = 0; s < TF_PREVIEW_STYLE_COUNT; s++) {
        o.style = (tf_preview_style)s;
        float *whole = window(0, 0, 2 * W, H, 1), *left = window(0, 0, W, H, 1),
              *right = window((long)W, 0, W, H, 1), *plain = window((long)W, 0, W, H, 0);
        tf_preview_panel pw = {whole, 2 * W, H, 1, NULL}, pl = {left, W, H, 1, NULL},
                         pr = {right, W, H, 1, NULL}, pp = {plain, W, H, 0, NULL};
        size_t w1, h1, w2, h2, w3, h3, w4, h4;
        unsigned char *a = tf_preview_render(&pw, 1, &o, &w1, &h1, &err);
        unsigned char *b = tf_preview_render(&pl, 1, &o, &w2, &h2, &err);
        unsigned char *c = tf_preview_render(&pr, 1, &o, &w3, &h3, &err);
        unsigned char *d = tf_preview_render(&pp, 1, &o, &w4, &h4, &err);
        ck_assert(a && b && c && d);
        int plain_differs = 0;
        for (size_t j = 0; j < H; j++) {
            ck_assert_mem_eq(a + 3 * j * 2 * W, b + 3 * j * W, 3 * W);
            ck_assert_mem_eq(a + 3 * (j * 2 * W + W), c + 3 * j * W, 3 * W);
            plain_differs |= memcmp(a + 3 * (j * 2 * W + W), d + 3 * j * W, 3 * W) != 0;
        }
        /* Without the border the tile's edges are one-sided: a seam. */
        ck_assert_msg(plain_differs, "style %d", s);
        free(a), free(b), free(c), free(d);
        free(whole), free(left), free(right), free(plain);
    }
}
END_TEST

static size_t dark_pixels(const unsigned char *rgb, size_t stride_px, size_t x0, size_t x1,
                          size_t y0, size_t y1)
{
    size_t dark = 0;
    for (size_t y = y0; y < y1; y++)
        for (size_t x = x0; x < x1; x++)
            dark += rgb[3 * (y * stride_px + x)] < 100;
    return dark;
}

START_TEST(side_by_side_panels_with_captions)
{
    float a[NX * NY], b[NX * NY];
    for (size_t k = 0; k < NX * NY; k++) {
        a[k] = terrain_at((long)(k % NX), (long)(k / NX));
        b[k] = terrain_at((long)(k % NX) + 100, (long)(k / NX));
    }
    tf_preview_options o = tf_preview_options_default();
    tf_error err;
    size_t w, h, w1, h1;
    tf_preview_panel panels[2] = {{a, NX, NY, 0, "reference"}, {b, NX, NY, 0, NULL}};
    unsigned char *one = tf_preview_render(panels, 1, &o, &w1, &h1, &err);
    panels[0].caption = NULL;
    unsigned char *bare = tf_preview_render(panels, 1, &o, &w1, &h1, &err);
    ck_assert_uint_eq(w1, NX);
    ck_assert_uint_eq(h1, NY);
    panels[0].caption = "A";
    panels[1].caption = "b";
    unsigned char *two = tf_preview_render(panels, 2, &o, &w, &h, &err);
    ck_assert(one && two && bare);
    ck_assert_uint_eq(w, 2 * NX + TF_PREVIEW_PAIR_GAP);
    /* Captions: a strip of the cell height plus padding (scale 1 below 128 px). */
    ck_assert_uint_eq(h, NY + TF_FONT_CELL_HEIGHT + 8);
    for (size_t j = 0; j < NY; j++) {
        /* The left panel is the single render, shaded on its own scale. */
        ck_assert_mem_eq(two + 3 * j * w, bare + 3 * j * NX, 3 * NX);
        for (size_t i = NX; i < NX + TF_PREVIEW_PAIR_GAP; i++)
            ck_assert_uint_eq(two[3 * (j * w + i)], 255);
    }
    ck_assert(memcmp(two + 3 * (NX + TF_PREVIEW_PAIR_GAP), two, 3 * NX) != 0);
    /* Ink under each panel, none in the gap. */
    ck_assert_uint_gt(dark_pixels(two, w, 0, NX, NY, h), 5);
    ck_assert_uint_gt(dark_pixels(two, w, NX + TF_PREVIEW_PAIR_GAP, w, NY, h), 5);
    ck_assert_uint_eq(dark_pixels(two, w, NX, NX + TF_PREVIEW_PAIR_GAP, NY, h), 0);
    /* A caption wider than its panel is cut, never drawn past it. */
    panels[0].caption = "a caption far too long for twenty-four pixels";
    panels[1].caption = NULL;
    unsigned char *cut = tf_preview_render(panels, 2, &o, &w, &h, &err);
    ck_assert_ptr_nonnull(cut);
    ck_assert_uint_eq(dark_pixels(cut, w, NX, w, NY, h), 0);
    ck_assert_uint_gt(dark_pixels(cut, w, 0, NX, NY, h), 5);
    free(one), free(bare), free(two), free(cut);
}
END_TEST

START_TEST(font_has_a_distinct_glyph_for_each_printable_character)
{
    for (unsigned c = 0x20; c <= 0x7e; c++) {
        unsigned ink = 0;
        for (unsigned y = 0; y < TF_FONT_GLYPH_HEIGHT; y++) {
            ck_assert_uint_eq(tf_font_row((unsigned char)c, y) & ~0x1fu, 0);
            ink |= tf_font_row((unsigned char)c, y);
        }
        ck_assert_msg((ink != 0) == (c != ' '), "glyph 0x%02x", c);
        for (unsigned d = 0x20; d < c; d++) {
            int same = 1;
            for (unsigned y = 0; y < TF_FONT_GLYPH_HEIGHT; y++)
                same &= tf_font_row((unsigned char)c, y) == tf_font_row((unsigned char)d, y);
            ck_assert_msg(!same, "'%c' and '%c' look the same", c, d);
        }
    }
    /* Descenders only where letters have them. */
    const char *descending = "gjpqy,;";
    for (unsigned c = 0x20; c <= 0x7e; c++)
        ck_assert_msg((tf_font_row((unsigned char)c, 7) != 0) == (strchr(descending, (int)c) != NULL),
                      "'%c'", c);
    /* Anything else is drawn as '?'. */
    for (unsigned y = 0; y < TF_FONT_GLYPH_HEIGHT; y++) {
        ck_assert_uint_eq(tf_font_row(0x07, y), tf_font_row('?', y));
        ck_assert_uint_eq(tf_font_row(0xe9, y), tf_font_row('?', y));
    }
    ck_assert_uint_eq(tf_font_text_width(0, 2), 0);
    ck_assert_uint_eq(tf_font_text_width(3, 2), 2 * (3 * TF_FONT_CELL_WIDTH - 1));
}
END_TEST

START_TEST(bad_options_and_panels_are_refused)
{
    float h[NX * NY], small[4 * 4];
    fill_plane(h, NX, NY, 0.5, 0.001, 0);
    fill_plane(small, 4, 4, 0.5, 0.001, 0);
    size_t w, ht;
    tf_error err;
    tf_preview_panel p = {h, NX, NY, 0, NULL};
    tf_preview_options bad[9];
    for (int k = 0; k < 9; k++)
        bad[k] = tf_preview_options_default();
    bad[0].style = TF_PREVIEW_STYLE_COUNT;
    bad[1].sun_altitude = 0.0;
    bad[2].sun_altitude = 91.0;
    bad[3].lo = 1.0;
    bad[4].hi = NAN;
    bad[5].water_level = 1.5;
    bad[6].style = TF_PREVIEW_RULES;
    bad[6].snow_level = 0.1; /* below the water */
    bad[7].vegetation_talus = 0.0;
    bad[8].height_scale = INFINITY;
    for (int k = 0; k < 9; k++) {
        err.code = 0;
        ck_assert_msg(tf_preview_render(&p, 1, &bad[k], &w, &ht, &err) == NULL, "case %d", k);
        ck_assert_int_eq(err.code, TF_ERR_ARGUMENT);
    }
    tf_preview_options o = tf_preview_options_default();
    /* The snow level binds the rules only: color takes any water level,
     * 1 included (all land at the top of the tint). */
    o.style = TF_PREVIEW_COLOR;
    o.snow_level = 0.1;
    o.water_level = 1.0;
    unsigned char *flooded = tf_preview_render(&p, 1, &o, &w, &ht, &err);
    ck_assert_ptr_nonnull(flooded);
    free(flooded);
    o = tf_preview_options_default();
    ck_assert_ptr_null(tf_preview_render(&p, 1, NULL, &w, &ht, &err));
    ck_assert_ptr_null(tf_preview_render(&p, 0, &o, &w, &ht, &err));
    ck_assert_ptr_null(tf_preview_render(NULL, 1, &o, &w, &ht, &err));
    tf_preview_panel two[2] = {p, {small, 4, 4, 0, NULL}};
    ck_assert_ptr_null(tf_preview_render(two, 2, &o, &w, &ht, &err));
    ck_assert_ptr_nonnull(strstr(err.message, "one size"));
    two[1] = p;
    two[1].border = 2;
    ck_assert_ptr_null(tf_preview_render(two, 2, &o, &w, &ht, &err));
    two[1].border = 0;
    two[1].heights = NULL;
    ck_assert_ptr_null(tf_preview_render(two, 2, &o, &w, &ht, &err));
    tf_preview_panel huge = {h, TF_MAX_IMAGE_SIDE + 1u, 1, 0, NULL};
    ck_assert_ptr_null(tf_preview_render(&huge, 1, &o, &w, &ht, &err));
    ck_assert_int_eq(err.code, TF_ERR_LIMIT);
}
END_TEST

START_TEST(panels_are_written_as_png_atomically)
{
    float h[NX * NY];
    for (size_t k = 0; k < NX * NY; k++)
        h[k] = terrain_at((long)(k % NX), (long)(k / NX));
    tf_preview_options o = tf_preview_options_default();
    o.style = TF_PREVIEW_RULES;
    tf_preview_panel p = {h, NX, NY, 0, "x"};
    const char *path = tu_path("%s/rules.png", scratch);
    tf_error err;
    ck_assert_int_eq(tf_preview_write_panels(path, &p, 1, &o, &err), 0);
    size_t w, ht;
    unsigned char *want = tf_preview_render(&p, 1, &o, &w, &ht, &err);
    int pw, ph, channels;
    stbi_uc *got = stbi_load(path, &pw, &ph, &channels, 0);
    ck_assert_ptr_nonnull(got);
    ck_assert_int_eq(pw, (int)w);
    ck_assert_int_eq(ph, (int)ht);
    ck_assert_int_eq(channels, 3);
    ck_assert_mem_eq(got, want, w * ht * 3);
    stbi_image_free(got);
    free(want);
    /* A failure leaves the earlier file as it was, and no temporary. */
    size_t before_len, after_len;
    char *before = tu_read_file(path, &before_len);
    o.sun_altitude = -1.0;
    ck_assert_int_eq(tf_preview_write_panels(path, &p, 1, &o, &err), -1);
    ck_assert_ptr_nonnull(strstr(err.message, path));
    char *after = tu_read_file(path, &after_len);
    ck_assert_uint_eq(before_len, after_len);
    ck_assert_mem_eq(before, after, before_len);
    free(before), free(after);
    o = tf_preview_options_default();
    ck_assert_int_eq(
        tf_preview_write_panels(tu_path("%s/no/such/dir.png", scratch), &p, 1, &o, &err), -1);
    ck_assert_int_eq(tf_preview_write_panels("", &p, 1, &o, &err), -1);

    /* Put on an open stream, the same bytes as the file; a failure names
     * the name given. */
    o.style = TF_PREVIEW_RULES;
    before = tu_read_file(path, &before_len);
    FILE *stream = tmpfile();
    ck_assert_ptr_nonnull(stream);
    ck_assert_int_eq(tf_preview_put_panels(stream, "on-stream.png", &p, 1, &o, &err), 0);
    ck_assert_int_eq((long)ftell(stream), (long)before_len);
    rewind(stream);
    after = malloc(before_len);
    ck_assert_uint_eq(fread(after, 1, before_len, stream), before_len);
    ck_assert_mem_eq(before, after, before_len);
    free(before), free(after);
    o.sun_altitude = -1.0;
    ck_assert_int_eq(tf_preview_put_panels(stream, "on-stream.png", &p, 1, &o, &err), -1);
    ck_assert_ptr_nonnull(strstr(err.message, "on-stream.png: "));
    fclose(stream);
    ck_assert_int_eq(tf_preview_put_panels(NULL, "x.png", &p, 1, &o, &err), -1);
    ck_assert_int_eq(tf_preview_put_panels(stdout, "", &p, 1, &o, &err), -1);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("preview");
    TCase *styles = tcase_create("styles");
    tcase_add_test(styles, style_names_round_trip);
    tcase_add_test(styles, hillshade_is_the_cosine_of_the_angle_to_the_sun);
    tcase_add_test(styles, slope_style_follows_the_angle);
    tcase_add_test(styles, normal_map_encodes_n_half_plus_half_in_both_conventions);
    tcase_add_test(styles, rules_colour_water_vegetation_rock_and_snow);
    tcase_add_test(styles, color_style_has_flat_water_below_the_level);
    tcase_add_test(styles, no_data_is_light_grey_or_a_flat_normal);
    tcase_add_test(styles, bordered_tiles_join_without_seams);
    suite_add_tcase(s, styles);
    TCase *layout = tcase_create("layout");
    tcase_add_checked_fixture(layout, make_scratch, remove_scratch);
    tcase_add_test(layout, side_by_side_panels_with_captions);
    tcase_add_test(layout, font_has_a_distinct_glyph_for_each_printable_character);
    tcase_add_test(layout, bad_options_and_panels_are_refused);
    tcase_add_test(layout, panels_are_written_as_png_atomically);
    suite_add_tcase(s, layout);
    return tu_run_suite(s);
}
