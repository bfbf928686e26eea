/*
 * Shader emission (lib/shader, docs/shader.md) without a GPU: the neutral
 * dialect's translation of each construct to GLSL, WGSL and HLSL, the
 * emitted entry points and tables, the same text every run, refusals (bad
 * names, languages, invalid specs), the runtime accessors the emitter
 * reads (curve segments, fractal octaves), and drainage specs' network
 * tables (their layout, and that every sub-segment reaching a point is in
 * the bin a shader finds for it). The GPU runs are tests/shader_gpu.sh.
 */
#include <check.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "shader/shader_internal.h"
#include "terrafit/shader.h"
#include "testutil.h"

static char *translate(const char *src, tf_shader_lang lang)
{
    tf_text out = {0};
    tf_error err;
    ck_assert_msg(tf_shader_translate(&out, src, strlen(src), lang, &err) == 0, "%s", err.message);
    ck_assert(!out.failed);
    return out.data;
}

START_TEST(translates_each_construct)
{
    const char *src = "//@section x: core\n"
                      "// a comment\n"
                      "fn vec3 f(tf_s a, uint s, ivec2 c) {\n"
                      "    var float t = float(s >> 8u) * 0.5;\n"
                      "    let uvec2 p = uvec2(1u, 2u);\n"
                      "    for (var int i = 0; i < 3; i++) {\n"
                      "        t = mix(t, fract(t), 0.5);\n"
                      "    }\n"
                      "    return vec3(t, float(a.i), tf_s(1, 0.5).f);\n"
                      "}\n"
                      "const float K = 1.0;\n";
    char *g = translate(src, TF_SHADER_GLSL);
    ck_assert_ptr_null(strstr(g, "//@"));
    ck_assert_ptr_nonnull(strstr(g, "// a comment\n"));
    ck_assert_ptr_nonnull(strstr(g, "vec3 f(tf_s a, uint s, ivec2 c) {\n"));
    ck_assert_ptr_nonnull(strstr(g, "    float t = float(s >> 8u) * 0.5;\n"));
    ck_assert_ptr_nonnull(strstr(g, "    uvec2 p = uvec2(1u, 2u);\n"));
    ck_assert_ptr_nonnull(strstr(g, "    for (int i = 0; i < 3; i++) {\n"));
    ck_assert_ptr_nonnull(strstr(g, "t = mix(t, fract(t), 0.5);"));
    ck_assert_ptr_nonnull(strstr(g, "tf_s(1, 0.5).f"));
    ck_assert_ptr_nonnull(strstr(g, "const float K = 1.0;"));
    char *w = translate(src, TF_SHADER_WGSL);
    ck_assert_ptr_nonnull(strstr(w, "fn f(a: tf_s, s: u32, c: vec2i) -> vec3f {\n"));
    ck_assert_ptr_nonnull(strstr(w, "    var t: f32 = f32(s >> 8u) * 0.5;\n"));
    ck_assert_ptr_nonnull(strstr(w, "    let p: vec2u = vec2u(1u, 2u);\n"));
    ck_assert_ptr_nonnull(strstr(w, "    for (var i: i32 = 0; i < 3; i++) {\n"));
    ck_assert_ptr_nonnull(strstr(w, "return vec3f(t, f32(a.i), tf_s(1, 0.5).f);"));
    ck_assert_ptr_nonnull(strstr(w, "const K: f32 = 1.0;"));
    char *h = translate(src, TF_SHADER_HLSL);
    ck_assert_ptr_nonnull(strstr(h, "float3 f(tf_s a, uint s, int2 c) {\n"));
    ck_assert_ptr_nonnull(strstr(h, "    uint2 p = uint2(1u, 2u);\n"));
    ck_assert_ptr_nonnull(strstr(h, "t = lerp(t, frac(t), 0.5);"));
    ck_assert_ptr_nonnull(strstr(h, "tf_s_make(1, 0.5).f"));
    ck_assert_ptr_nonnull(strstr(h, "static const float K = 1.0;"));
    free(g);
    free(w);
    free(h);
}
END_TEST

START_TEST(refuses_an_unreadable_line)
{
    tf_text out = {0};
    tf_error err;
    const char *src = "fn vec3 (float a) {\n";
    ck_assert_int_eq(tf_shader_translate(&out, src, strlen(src), TF_SHADER_WGSL, &err), -1);
    ck_assert_ptr_nonnull(strstr(err.message, "line 1"));
    tf_text_free(&out);
}
END_TEST

START_TEST(floats_are_exact_literals)
{
    const double v[] = {0.0, 1.0, -2.5, 0.1, 1e-30, 3.4e38, 123456789.0, 0.36602540378443865,
                        1e-45};
    for (size_t k = 0; k < sizeof v / sizeof v[0]; k++) {
        tf_text t = {0};
        tf_text_float(&t, v[k]);
        ck_assert_msg(strpbrk(t.data, ".e") != NULL, "%s", t.data);
        ck_assert_msg(strtof(t.data, NULL) == (float)v[k], "%s for %.17g", t.data, v[k]);
        ck_assert(!t.out_of_range);
        tf_text_free(&t);
    }
    tf_text t = {0};
    tf_text_float(&t, 1e39);
    ck_assert(t.out_of_range && t.bad_value == 1e39);
    tf_text_free(&t);
}
END_TEST

static tf_spec *load_sample(const char *rel)
{
    tf_error err;
    tf_spec *s = tf_spec_load(tu_path("%s/%s", tu_srcdir(), rel), &err);
    ck_assert_msg(s != NULL, "%s", err.message);
    return s;
}

START_TEST(emits_the_entry_points_the_same_every_run)
{
    tf_spec *s = load_sample("samples/jacksboro-fault/terrain.json");
    static const char *const want[TF_SHADER_LANG_COUNT][3] = {
        {"vec3 hills_gradient_at(ivec2 cell, vec2 frac) {", "float hills(vec2 p) {",
         "const float hills_MIN_VALUE = "},
        {"fn hills_gradient_at(cell: vec2i, frac: vec2f) -> vec3f {", "fn hills(p: vec2f) -> f32 {",
         "const hills_MIN_VALUE: f32 = "},
        {"float3 hills_gradient_at(int2 cell, float2 frac) {", "float hills(float2 p) {",
         "static const float hills_MIN_VALUE = "},
    };
    for (int lang = 0; lang < TF_SHADER_LANG_COUNT; lang++) {
        tf_error err;
        char *a = tf_shader_emit(s, (tf_shader_lang)lang, "hills", &err);
        ck_assert_msg(a != NULL, "%s", err.message);
        char *b = tf_shader_emit(s, (tf_shader_lang)lang, "hills", &err);
        ck_assert_str_eq(a, b);
        for (int k = 0; k < 3; k++)
            ck_assert_msg(strstr(a, want[lang][k]) != NULL, "%s: no \"%s\"",
                          tf_shader_lang_name((tf_shader_lang)lang), want[lang][k]);
        /* only the noises the spec uses: simplex, no permutation table */
        ck_assert_ptr_nonnull(strstr(a, "TF_SIMPLEX_GRAD"));
        ck_assert_ptr_null(strstr(a, "TF_PERM"));
        ck_assert_ptr_null(strstr(a, "//@"));
        ck_assert_int_eq(tf_shader_lang_parse(tf_shader_lang_name((tf_shader_lang)lang)), lang);
        free(a);
        free(b);
    }
    ck_assert_int_eq(tf_shader_lang_parse("msl"), -1);
    ck_assert_ptr_null(tf_shader_lang_name(TF_SHADER_LANG_COUNT));
    tf_spec_free(s);
}
END_TEST

START_TEST(refuses_bad_names_and_specs)
{
    tf_spec *s = load_sample("samples/kinds/fbm.json");
    tf_error err;
    const char *bad[] = {"", "1a", "tf_x", "gl_x", "a__b", "a-b", "a b",
                         "a123456789012345678901234567890123456789012345678"};
    for (size_t k = 0; k < sizeof bad / sizeof bad[0]; k++) {
        ck_assert_ptr_null(tf_shader_emit(s, TF_SHADER_GLSL, bad[k], &err));
        ck_assert_int_eq(err.code, TF_ERR_ARGUMENT);
        ck_assert_ptr_nonnull(strstr(err.message, "bad name"));
    }
    char *ok = tf_shader_emit(s, TF_SHADER_GLSL, NULL, &err);
    ck_assert_ptr_nonnull(ok);
    ck_assert_ptr_nonnull(strstr(ok, "float terrain(vec2 p)"));
    free(ok);
    ck_assert_ptr_null(tf_shader_emit(s, TF_SHADER_LANG_COUNT, "x", &err));
    ck_assert_ptr_null(tf_shader_emit(NULL, TF_SHADER_GLSL, "x", &err));
    s->layers[0].frequency = -1.0;
    ck_assert_ptr_null(tf_shader_emit(s, TF_SHADER_WGSL, "x", &err));
    ck_assert_int_eq(err.code, TF_ERR_INVALID);
    s->layers[0].frequency = 0.01;
    /* a constant no float holds */
    s->layers[0].amp_scale = 1e300;
    ck_assert_ptr_null(tf_shader_emit(s, TF_SHADER_GLSL, "x", &err));
    ck_assert_int_eq(err.code, TF_ERR_LIMIT);
    ck_assert_ptr_nonnull(strstr(err.message, "1e+300"));
    s->layers[0].amp_scale = 1.0;
    /* a curve past the shader's tables: refused with its path */
    size_t big = TF_SHADER_MAX_CURVE_POINTS + 1;
    tf_point *pts = malloc(sizeof *pts * big);
    for (size_t k = 0; k < big; k++)
        pts[k] = (tf_point){(double)k / (double)big, (double)(k % 7) / 7.0};
    ck_assert_int_eq(tf_spec_set_rd_points(s, 0, pts, big, &err), 0);
    ck_assert_ptr_null(tf_shader_emit(s, TF_SHADER_GLSL, "x", &err));
    ck_assert_int_eq(err.code, TF_ERR_LIMIT);
    ck_assert_ptr_nonnull(strstr(err.message, "$.noiseLayers[0].rd.points"));
    ck_assert_int_eq(tf_spec_set_rd_points(s, 0, pts, TF_SHADER_MAX_CURVE_POINTS, &err), 0);
    char *at_limit = tf_shader_emit(s, TF_SHADER_WGSL, "x", &err);
    ck_assert_msg(at_limit != NULL, "%s", err.message);
    free(at_limit);
    free(pts);
    tf_drainage_set_defaults(s, 1, 64.0, 0.2, 0.01);
    char *drained = tf_shader_emit(s, TF_SHADER_HLSL, "x", &err);
    ck_assert_msg(drained != NULL, "%s", err.message);
    ck_assert_ptr_nonnull(strstr(drained, "StructuredBuffer<uint> x_network_words;"));
    ck_assert_ptr_nonnull(strstr(drained, "float x_drain(int2 cell, float2 frac, float sum, float low)"));
    free(drained);
    tf_spec_free(s);
}
END_TEST

START_TEST(accessors_give_the_runtimes_values)
{
    tf_point p[4] = {{0.0, 0.0}, {0.3, 0.5}, {0.6, 0.4}, {1.0, 1.0}};
    for (int interp = 0; interp < TF_INTERP_KIND_COUNT; interp++) {
        tf_error err;
        tf_curve *c = tf_curve_new(p, 4, (tf_interp)interp, &err);
        ck_assert_ptr_nonnull(c);
        for (size_t k = 0; k < 3; k++) {
            double x0, inv, co[4];
            ck_assert_int_eq(tf_curve_get_segment(c, k, &x0, &inv, co), 0);
            ck_assert(x0 == p[k].x);
            ck_assert(co[0] == p[k].y);
            /* the segment's formula at its middle is the curve's value */
            double u = p[k].x + 0.5 * (p[k + 1].x - p[k].x), t = (u - x0) * inv;
            double y = interp == TF_INTERP_COSINE
                           ? co[0] + co[1] * (0.5 - 0.5 * cos(3.141592653589793 * t))
                           : co[0] + t * (co[1] + t * (co[2] + t * co[3]));
            ck_assert_msg(fabs(y - tf_curve_eval(c, u)) < 1e-12, "interp %d seg %zu", interp, k);
        }
        ck_assert_int_eq(tf_curve_get_segment(c, 3, NULL, NULL, NULL), -1);
        tf_curve_free(c);
    }
    tf_spec *s = load_sample("samples/kinds/fbm.json");
    const tf_layer_spec *L = &s->layers[0];
    double f, o[3], f_prev = 0.0;
    ck_assert_int_eq(tf_fractal_octave(L, 0, &f, o), 0);
    ck_assert(f == 1.0 && o[0] == 0.0 && o[1] == 0.0 && o[2] == 0.0);
    for (int k = 1; k < L->fractal_octaves; k++) {
        ck_assert_int_eq(tf_fractal_octave(L, k, &f, o), 0);
        ck_assert(k == 1 || f == f_prev * L->fractal_lacunarity);
        ck_assert(fabs(o[0]) <= 1024.0 && o[0] != 0.0);
        f_prev = f;
    }
    ck_assert_int_eq(tf_fractal_octave(L, L->fractal_octaves, &f, o), -1);
    ck_assert_int_eq(tf_fractal_octave(L, -1, &f, o), -1);
    tf_spec_free(s);
    ck_assert(tf_simplex_gradient_table()[0] == 0.9951847266721969);
    ck_assert_int_eq(tf_perlin_permutation_table()[0], 151);
    ck_assert(tf_exp_perlin_magnitude_table()[0] == 1.0);
    ck_assert(tf_exp_perlin_magnitude_table()[1] == 1.0 / 1.02);
}
END_TEST

/* A network's table: the header, each level's bins in order, items that
 * name segments in increasing order within a bin, and, at points spread
 * over the box, every sub-segment whose reach holds the point (measured
 * from its float ends in doubles) listed in the bin the shader computes
 * for the point in floats. */
START_TEST(network_tables_hold_every_reaching_segment)
{
    static const char *const SPECS[] = {"tests/data/terrain/drainage.json",
                                        "tests/data/terrain/drainage-breach.json"};
    static const int32_t BOX[][4] = {{-123, 77, 301, 157}, {999000, -1000300, 600, 500},
                                     {-2147483000, 2147482000, 347, 1000}};
    tf_spec *spec = load_sample(SPECS[_i / 3]);
    const int32_t *b = BOX[_i % 3];
    tf_error err;
    tf_terrain *t = tf_terrain_compile(spec, &err);
    ck_assert_msg(t != NULL, "%s", err.message);
    tf_shader_network net;
    ck_assert_msg(tf_shader_network_build(t, b[0], b[1], (uint32_t)b[2], (uint32_t)b[3], &net,
                                          &err) == 0,
                  "%s", err.message);
    const uint32_t *w = net.words;
    ck_assert_int_eq((int32_t)w[0], b[0]);
    ck_assert_int_eq((int32_t)w[1], b[1]);
    ck_assert_uint_eq(w[2], (uint32_t)b[2]);
    ck_assert_uint_eq(w[3], (uint32_t)b[3]);
    const tf_drainage_spec *d = &spec->drainage;
    size_t base = 4 + 4 * TF_MAX_DRAINAGE_LEVELS, items = base;
    for (int k = 0; k < d->levels; k++)
        items += (size_t)w[4 + 4 * k] * w[5 + 4 * k] + 1;
    for (int k = 0; k < d->levels; k++) {
        ck_assert_uint_eq(w[6 + 4 * k], base);
        size_t nb = (size_t)w[4 + 4 * k] * w[5 + 4 * k];
        ck_assert_uint_eq(w[base], k == 0 ? items : w[w[6 + 4 * (k - 1)] + w[4 * k] * w[4 * k + 1]]);
        /* plain tests in the loops: a passing ck_assert costs a write */
        size_t bad = 0;
        for (size_t c = 0; c < nb; c++) {
            bad += w[base + c] > w[base + c + 1];
            for (uint32_t e = w[base + c]; e < w[base + c + 1]; e++)
                bad += w[e] >= net.segment_count || (e > w[base + c] && w[e - 1] >= w[e]);
        }
        ck_assert_msg(bad == 0, "level %d: %zu bins or items out of order", k, bad);
        base += nb + 1;
    }
    ck_assert_uint_eq(w[w[6 + 4 * (d->levels - 1)] + w[4 * d->levels] * w[4 * d->levels + 1]],
                      net.word_count);
    /* each segment's level: the one whose bins list it */
    int *level = malloc(net.segment_count * sizeof *level);
    ck_assert_ptr_nonnull(level);
    for (size_t g = 0; g < net.segment_count; g++)
        level[g] = -1;
    for (int m = 0; m < d->levels; m++) {
        size_t nb = (size_t)w[4 + 4 * m] * w[5 + 4 * m], f = w[6 + 4 * m];
        for (uint32_t e = w[f]; e < w[f + nb]; e++)
            level[w[e]] = m;
    }
    uint32_t r = 777u + (uint32_t)_i;
    for (int p = 0; p < 1000; p++) {
        r = r * 1664525u + 1013904223u;
        float rx = (float)((double)b[2] * (r >> 8) * 0x1p-24);
        r = r * 1664525u + 1013904223u;
        float ry = (float)((double)b[3] * (r >> 8) * 0x1p-24);
        for (size_t g = 0; g < net.segment_count; g++) {
            int k = level[g];
            if (k < 0)
                ck_abort_msg("segment %zu is in no bin", g);
            double R = d->reach * ldexp(d->spacing, -k);
            const float *q = &net.segments[8 * g];
            double dx = (double)q[2] - q[0], dy = (double)q[3] - q[1], l2 = dx * dx + dy * dy;
            double u = l2 > 0.0 ? ((rx - q[0]) * dx + (ry - q[1]) * dy) / l2 : 0.0;
            u = u < 0.0 ? 0.0 : u > 1.0 ? 1.0 : u;
            double ex = rx - (q[0] + u * dx), ey = ry - (q[1] + u * dy);
            if (!(ex * ex + ey * ey < R * R))
                continue;
            /* the bin the shader computes in floats lists it */
            float L = (float)ldexp(d->spacing, -k);
            int nx = (int)w[4 + 4 * k], ny = (int)w[5 + 4 * k];
            int bi = (int)floorf(rx / L), bj = (int)floorf(ry / L);
            bi = bi < 0 ? 0 : bi > nx - 1 ? nx - 1 : bi;
            bj = bj < 0 ? 0 : bj > ny - 1 ? ny - 1 : bj;
            size_t c = w[6 + 4 * k] + (size_t)bj * (size_t)nx + (size_t)bi;
            int found = 0;
            for (uint32_t e = w[c]; e < w[c + 1] && !found; e++)
                found = w[e] == g;
            if (!found)
                ck_abort_msg("box %d: segment %zu reaches (%g, %g) but is not in its level-%d bin",
                             _i % 3, g, (double)rx, (double)ry, k);
        }
    }
    free(level);
    tf_shader_network_free(&net);
    ck_assert_ptr_null(net.words);
    tf_terrain_free(t);
    tf_spec_free(spec);
}
END_TEST

START_TEST(network_refusals)
{
    tf_spec *plain = load_sample("samples/kinds/fbm.json");
    tf_spec *spec = load_sample("tests/data/terrain/drainage.json");
    tf_error err;
    tf_terrain *p = tf_terrain_compile(plain, &err), *t = tf_terrain_compile(spec, &err);
    tf_shader_network net;
    ck_assert_int_eq(tf_shader_network_build(p, 0, 0, 10, 10, &net, &err), -1);
    ck_assert_ptr_nonnull(strstr(err.message, "no drainage stage"));
    ck_assert_ptr_null(net.words);
    ck_assert_int_eq(tf_shader_network_build(NULL, 0, 0, 10, 10, &net, &err), -1);
    ck_assert_int_eq(tf_shader_network_build(t, 0, 0, 10, 10, NULL, &err), -1);
    ck_assert_int_eq(tf_shader_network_build(t, 0, 0, 0, 10, &net, &err), -1);
    ck_assert_int_eq(err.code, TF_ERR_LIMIT);
    ck_assert_int_eq(tf_shader_network_build(t, 0, 0, 10, TF_SHADER_NETWORK_MAX_SIDE + 1, &net,
                                             &err),
                     -1);
    ck_assert_int_eq(err.code, TF_ERR_LIMIT);
    /* finest cells of 20: 65536 units a side is 3277^2 cells */
    ck_assert_int_eq(tf_shader_network_build(t, 0, 0, 65536, 65536, &net, &err), -1);
    ck_assert_int_eq(err.code, TF_ERR_LIMIT);
    ck_assert_ptr_nonnull(strstr(err.message, "finest cells"));
    ck_assert_ptr_null(net.words);
    tf_shader_network_free(NULL);
    tf_terrain_free(p);
    tf_terrain_free(t);
    tf_spec_free(plain);
    tf_spec_free(spec);
}
END_TEST

static Suite *shader_suite(void)
{
    Suite *s = suite_create("shader");
    TCase *tc = tcase_create("emit");
    tcase_add_test(tc, translates_each_construct);
    tcase_add_test(tc, refuses_an_unreadable_line);
    tcase_add_test(tc, floats_are_exact_literals);
    tcase_add_test(tc, emits_the_entry_points_the_same_every_run);
    tcase_add_test(tc, refuses_bad_names_and_specs);
    tcase_add_loop_test(tc, network_tables_hold_every_reaching_segment, 0, 6);
    tcase_add_test(tc, network_refusals);
    tcase_add_test(tc, accessors_give_the_runtimes_values);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    return tu_run_suite(shader_suite());
}
