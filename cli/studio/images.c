/*
 * terrafit studio's pictures and figures: a window of a reference, of one
 * synthesized layer (with its mask), of the combined reference or of the
 * whole synthesis, drawn in a `terrafit preview` style as a PNG; a layer's
 * histograms and chi-square; a mesh tile for the 3D view. The library
 * samples and shades; this file picks the window and the value range.
 */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <stb_image_write.h>

#include "studio_internal.h"
#include "terrafit/fit.h"

#define HIST_BINS TF_FIT_CHI2_BINS
/* Side of the window a layer's synthesis histogram is measured on, and
 * where: far from the fitting window, as the fit measures it. */
#define STATS_SIDE 256u

typedef struct {
    double x, y, step;
    size_t w, h;
} window;

/* ?x=&y=&step=&w=&h=: bounded so that every lattice index stays far below
 * 2^53 and every image within the image limit. */
static bool parse_window(const studio *s, const studio_request *req, studio_response *resp,
                         size_t side, window *win)
{
    if (side > s->max_image_side)
        side = s->max_image_side;
    return studio_arg_double(req, resp, "x", 0.0, -1e12, 1e12, &win->x) &&
           studio_arg_double(req, resp, "y", 0.0, -1e12, 1e12, &win->y) &&
           studio_arg_double(req, resp, "step", 1.0, 1e-4, 1e4, &win->step) &&
           studio_arg_size(req, resp, "w", side, 1, s->max_image_side, &win->w) &&
           studio_arg_size(req, resp, "h", side, 1, s->max_image_side, &win->h);
}

static void no_memory(studio_response *resp)
{
    studio_error(resp, 500, "out of memory");
}

/* The range of a curve's y values: a redistributed layer's values. */
static void curve_range(const tf_point *points, size_t count, double *lo, double *hi)
{
    *lo = HUGE_VAL;
    *hi = -HUGE_VAL;
    for (size_t k = 0; k < count; k++) {
        *lo = fmin(*lo, points[k].y);
        *hi = fmax(*hi, points[k].y);
    }
    if (!(*hi > *lo)) {
        *lo -= 0.5;
        *hi += 0.5;
    }
}

/* Reference i's value at the window's pixels (nearest cell); NaN outside
 * it or where the layer is absent. */
static void sample_reference(const tf_layer_map *m, const window *win, float *out)
{
    for (size_t j = 0; j < win->h; j++) {
        double y = floor(win->y + (double)j * win->step);
        for (size_t i = 0; i < win->w; i++) {
            double x = floor(win->x + (double)i * win->step);
            float v = NAN;
            if (x >= 0 && y >= 0 && x < (double)m->width && y < (double)m->height) {
                size_t k = (size_t)y * m->width + (size_t)x;
                if (m->weight[k] > 0.0f)
                    v = m->value[k];
            }
            out[j * win->w + i] = v;
        }
    }
}

/* The combined reference: what the spec's layers sum to, sum_i (value_i -
 * 0.5) over the layers present (the DEM's value itself when it was split
 * into bands), as `terrafit fit --preview` draws it. */
static void sample_combined(const studio *s, const window *win, float *out)
{
    const tf_layer_map *m0 = s->refs[0].map;
    for (size_t j = 0; j < win->h; j++) {
        double y = floor(win->y + (double)j * win->step);
        for (size_t i = 0; i < win->w; i++) {
            double x = floor(win->x + (double)i * win->step);
            float v = NAN;
            if (x >= 0 && y >= 0 && x < (double)m0->width && y < (double)m0->height) {
                double sum = 0.0;
                bool covered = false;
                for (size_t r = 0; r < s->ref_count; r++) {
                    const tf_layer_map *m = s->refs[r].map;
                    if (m->width != m0->width || m->height != m0->height)
                        continue;
                    size_t k = (size_t)y * m->width + (size_t)x;
                    if (m->weight[k] > 0.0f) {
                        sum += (double)m->value[k] - (s->auto_layered ? 0.0 : 0.5);
                        covered = true;
                    }
                }
                if (covered)
                    v = (float)sum;
            }
            out[j * win->w + i] = v;
        }
    }
}

/* Layer i's mask weight w_i(r_m) at the window (docs/spec.md, step 4). */
static int mask_weights(const studio *s, size_t layer, const window *win, double *weights,
                        tf_error *err)
{
    const tf_layer_spec *l = &s->spec->layers[layer];
    size_t n = win->w * win->h;
    if (l->mask_layer_index < 0) {
        for (size_t k = 0; k < n; k++)
            weights[k] = 1.0;
        return 0;
    }
    if (tf_terrain_sample_stage_window(s->terrain, TF_STAGE_REDISTRIBUTED,
                                       (size_t)l->mask_layer_index, win->x, win->y, win->step, 0,
                                       0, win->w, win->h, weights, err) != 0)
        return -1;
    if (l->mask_curve_point_count > 0) {
        tf_curve *curve = tf_curve_new(l->mask_curve_points, l->mask_curve_point_count,
                                       l->mask_curve_interpolation, err);
        if (!curve)
            return -1;
        for (size_t k = 0; k < n; k++)
            weights[k] = tf_curve_eval(curve, weights[k]);
        tf_curve_free(curve);
        return 0;
    }
    for (size_t k = 0; k < n; k++) {
        double r = weights[k], d = 0.0;
        if (r < l->mask_min_value)
            d = l->mask_min_value - r;
        else if (r > l->mask_max_value)
            d = r - l->mask_max_value;
        double w = 1.0;
        if (d > 0.0) {
            if (d >= l->mask_falloff) {
                w = 0.0;
            } else {
                double t = 1.0 - d / l->mask_falloff;
                w = t * t * (3.0 - 2.0 * t);
            }
        }
        weights[k] = w;
    }
    return 0;
}

typedef struct {
    unsigned char *bytes;
    size_t size, capacity;
    bool failed;
} byte_buffer;

static void append(void *context, void *data, int size)
{
    byte_buffer *b = context;
    if (b->failed || size <= 0)
        return;
    if (b->size + (size_t)size > b->capacity) {
        size_t cap = (b->size + (size_t)size) * 2;
        unsigned char *grown = realloc(b->bytes, cap);
        if (!grown) {
            b->failed = true;
            return;
        }
        b->bytes = grown;
        b->capacity = cap;
    }
    memcpy(b->bytes + b->size, data, (size_t)size);
    b->size += (size_t)size;
}

void studio_images_init(void)
{
    /* Previews are redrawn while a control is dragged: speed over size.
     * Set once, before any thread encodes. */
    stbi_write_png_compression_level = 1;
}

static void answer_png(studio_response *resp, const unsigned char *rgb, size_t w, size_t h)
{
    byte_buffer png = {0};
    if (!stbi_write_png_to_func(append, &png, (int)w, (int)h, 3, rgb, (int)(w * 3)) ||
        png.failed) {
        free(png.bytes);
        no_memory(resp);
        return;
    }
    studio_bytes(resp, "image/png", png.bytes, png.size);
}

/* `heights` drawn in `style` over [lo, hi]: "height" is a grey ramp, the
 * others are the preview styles of the library. NaN is "no data". */
static unsigned char *draw(const float *heights, const window *win, const char *style, double lo,
                           double hi, double relief, tf_error *err)
{
    size_t n = win->w * win->h;
    if (strcmp(style, "height") == 0) {
        unsigned char *rgb = malloc(n * 3);
        if (!rgb) {
            err->code = TF_ERR_NOMEM;
            snprintf(err->message, sizeof err->message, "out of memory");
            return NULL;
        }
        for (size_t k = 0; k < n; k++) {
            double v = (heights[k] - lo) / (hi - lo);
            unsigned char g = isfinite(v) ? (unsigned char)lrint(fmin(fmax(v, 0.0), 1.0) * 255.0)
                                          : 0;
            rgb[3 * k] = isfinite(v) ? g : 230;
            rgb[3 * k + 1] = isfinite(v) ? g : 230;
            rgb[3 * k + 2] = isfinite(v) ? g : 236;
        }
        return rgb;
    }
    tf_preview_options options = tf_preview_options_default();
    if (tf_preview_style_from_name(style, &options.style) != 0) {
        err->code = TF_ERR_ARGUMENT;
        snprintf(err->message, sizeof err->message,
                 "argument style: height, hillshade, color, slope, normals or rules");
        return NULL;
    }
    options.lo = lo;
    options.hi = hi;
    /* One relief for every panel at one zoom, so hillshades compare. */
    options.height_scale = relief / win->step;
    tf_preview_panel panel = {heights, win->w, win->h, 0, NULL};
    size_t w, h;
    return tf_preview_render(&panel, 1, &options, &w, &h, err);
}

void studio_get_image(studio *s, const studio_request *req, studio_response *resp)
{
    tf_error err;
    const char *kind = req->arg ? req->arg(req->arg_user, "kind") : NULL;
    const char *style = req->arg ? req->arg(req->arg_user, "style") : NULL;
    const char *mask = req->arg ? req->arg(req->arg_user, "mask") : NULL;
    window win;
    size_t layer;
    double relief;
    if (!kind) {
        studio_error(resp, 400, "missing argument kind (reference, layer, combined, synthesis)");
        return;
    }
    if (!parse_window(s, req, resp, 256, &win) ||
        !studio_arg_size(req, resp, "layer", 0, 0, TF_MAX_LAYERS - 1, &layer) ||
        !studio_arg_double(req, resp, "relief", 40.0, 0.0, 1e6, &relief))
        return;
    if (!style)
        style = "height";
    bool reference = strcmp(kind, "reference") == 0, combined = strcmp(kind, "combined") == 0;
    bool synthesis = strcmp(kind, "synthesis") == 0, is_layer = strcmp(kind, "layer") == 0;
    if (!reference && !combined && !synthesis && !is_layer) {
        studio_error(resp, 400, "argument kind: reference, layer, combined or synthesis");
        return;
    }
    if ((reference || combined) && layer >= s->ref_count) {
        studio_error(resp, 404, "no reference %zu", layer);
        return;
    }
    if ((synthesis || is_layer) && !s->spec) {
        studio_error(resp, 404, "no spec yet");
        return;
    }
    if (is_layer && layer >= s->spec->layer_count) {
        studio_error(resp, 404, "no layer %zu", layer);
        return;
    }
    size_t n = win.w * win.h;
    float *heights = malloc(n * sizeof *heights);
    double *values = (is_layer) ? malloc(2 * n * sizeof *values) : NULL;
    if (!heights || (is_layer && !values)) {
        free(heights);
        free(values);
        no_memory(resp);
        return;
    }
    double lo = 0.0, hi = 1.0;
    int status = 0;
    if (reference) {
        sample_reference(s->refs[layer].map, &win, heights);
        /* The layer's curve range when the spec has this layer: the
         * reference and its synthesis then share one scale. */
        if (s->spec && s->spec->layer_count == s->ref_count)
            curve_range(s->spec->layers[layer].rd_points, s->spec->layers[layer].rd_point_count,
                        &lo, &hi);
    } else if (combined) {
        sample_combined(s, &win, heights);
        if (s->spec) {
            lo = s->spec->min_value;
            hi = s->spec->max_value;
        } else {
            lo = s->auto_layered ? 0.0 : -0.5 * (double)s->ref_count;
            hi = s->auto_layered ? 1.0 : 0.5 * (double)s->ref_count;
        }
    } else if (synthesis) {
        lo = s->spec->min_value;
        hi = s->spec->max_value;
        status = tf_render_window(s->terrain, win.x, win.y, win.step, 0, 0, win.w, win.h, 0,
                                  heights, NULL, NULL, &err);
    } else {
        const tf_layer_spec *l = &s->spec->layers[layer];
        curve_range(l->rd_points, l->rd_point_count, &lo, &hi);
        status = tf_terrain_sample_stage_window(s->terrain, TF_STAGE_REDISTRIBUTED, layer, win.x,
                                                win.y, win.step, 0, 0, win.w, win.h, values,
                                                &err);
        for (size_t k = 0; status == 0 && k < n; k++)
            heights[k] = (float)values[k];
        if (status == 0 && mask && strcmp(mask, "1") == 0)
            status = mask_weights(s, layer, &win, values + n, &err);
    }
    unsigned char *rgb = status == 0 ? draw(heights, &win, style, lo, hi, relief, &err) : NULL;
    free(heights);
    if (!rgb) {
        free(values);
        studio_error(resp, err.code == TF_ERR_NOMEM ? 500 : 400, "%s", err.message);
        return;
    }
    if (is_layer && mask && strcmp(mask, "1") == 0) {
        /* Where the mask takes the layer away, tint it: the layer is drawn
         * with its mask on it. */
        for (size_t k = 0; k < n; k++) {
            double w = fmin(fmax(values[n + k], 0.0), 1.0), a = 0.65 * (1.0 - w);
            rgb[3 * k] = (unsigned char)lrint(rgb[3 * k] * (1.0 - a) + 40.0 * a);
            rgb[3 * k + 1] = (unsigned char)lrint(rgb[3 * k + 1] * (1.0 - a) + 60.0 * a);
            rgb[3 * k + 2] = (unsigned char)lrint(rgb[3 * k + 2] * (1.0 - a) + 150.0 * a);
        }
    }
    free(values);
    answer_png(resp, rgb, win.w, win.h);
    free(rgb);
}

static cJSON *histogram_json(const double *hist)
{
    cJSON *a = cJSON_CreateArray();
    for (size_t b = 0; b < HIST_BINS; b++)
        cJSON_AddItemToArray(a, cJSON_CreateNumber(hist[b]));
    return a;
}

/* Mean and standard deviation of the values with weight > 0. */
static void moments(const float *v, const float *weight, size_t n, double *mean, double *sd)
{
    double sum = 0.0, sum2 = 0.0, count = 0.0;
    for (size_t k = 0; k < n; k++) {
        if (weight && !(weight[k] > 0.0f))
            continue;
        if (!isfinite(v[k]))
            continue;
        sum += v[k];
        sum2 += (double)v[k] * v[k];
        count += 1.0;
    }
    *mean = count > 0 ? sum / count : NAN;
    *sd = count > 1 ? sqrt(fmax(sum2 / count - *mean * *mean, 0.0)) : 0.0;
}

static void add_moments(cJSON *o, const float *v, const float *weight, size_t n)
{
    double mean, sd;
    moments(v, weight, n, &mean, &sd);
    if (isfinite(mean))
        cJSON_AddNumberToObject(o, "mean", mean);
    cJSON_AddNumberToObject(o, "sd", sd);
}

/* A layer's figures: its reference's and its synthesis's histograms over
 * one range, and their chi-square distance (thesis 5.4.1), as the fit
 * reports them; the synthesis sampled far from the fitting window. */
void studio_get_stats(studio *s, const studio_request *req, studio_response *resp)
{
    tf_error err;
    size_t layer;
    if (!s->spec || s->spec->layer_count == 0) {
        studio_error(resp, 404, "no spec yet");
        return;
    }
    if (!studio_arg_size(req, resp, "layer", 0, 0, s->spec->layer_count - 1, &layer))
        return;
    const tf_layer_spec *l = &s->spec->layers[layer];
    bool has_reference = s->ref_count == s->spec->layer_count && !s->auto_layered;
    const tf_layer_map *m = has_reference ? s->refs[layer].map : NULL;
    double lo, hi;
    curve_range(l->rd_points, l->rd_point_count, &lo, &hi);
    size_t n = (size_t)STATS_SIDE * STATS_SIDE;
    double *values = malloc(n * sizeof *values);
    float *synth = malloc(n * sizeof *synth);
    if (!values || !synth) {
        free(values);
        free(synth);
        no_memory(resp);
        return;
    }
    if (tf_terrain_sample_stage_window(s->terrain, TF_STAGE_REDISTRIBUTED, layer,
                                       TF_FIT_SYNTHESIS_OFFSET, TF_FIT_SYNTHESIS_OFFSET, 1.0, 0, 0,
                                       STATS_SIDE, STATS_SIDE, values, &err) != 0) {
        free(values);
        free(synth);
        studio_error(resp, 500, "%s", err.message);
        return;
    }
    for (size_t k = 0; k < n; k++)
        synth[k] = (float)values[k];
    free(values);
    double hist_ref[HIST_BINS], hist_syn[HIST_BINS];
    tf_histogram(synth, NULL, n, lo, hi, HIST_BINS, hist_syn);
    cJSON *body = cJSON_CreateObject();
    cJSON_AddNumberToObject(body, "layer", (double)layer);
    cJSON_AddNumberToObject(body, "lo", lo);
    cJSON_AddNumberToObject(body, "hi", hi);
    cJSON *syn = cJSON_AddObjectToObject(body, "synthesis");
    cJSON_AddItemToObject(syn, "histogram", histogram_json(hist_syn));
    add_moments(syn, synth, NULL, n);
    if (m) {
        size_t cells = m->width * m->height;
        tf_histogram(m->value, m->weight, cells, lo, hi, HIST_BINS, hist_ref);
        cJSON *ref = cJSON_AddObjectToObject(body, "reference");
        cJSON_AddItemToObject(ref, "histogram", histogram_json(hist_ref));
        add_moments(ref, m->value, m->weight, cells);
        cJSON_AddNumberToObject(ref, "visible", (double)tf_layer_map_visible_count(m));
        cJSON_AddNumberToObject(body, "chi2", tf_chi2_distance(hist_ref, hist_syn, HIST_BINS));
    }
    free(synth);
    studio_json(resp, 200, body);
}

/* A square mesh tile for the 3D view, as `terrafit mesh` builds it (normals
 * from the spec's (n+2)^2 window): little-endian float32, the n*n vertex
 * heights (normalized: 0 at minValue, 1 at maxValue), then n*n*3 normals
 * for heights scaled by ?vscale world units per normalized unit. */
void studio_get_mesh(studio *s, const studio_request *req, studio_response *resp)
{
    tf_error err;
    window win;
    size_t n;
    double vscale;
    if (!s->spec) {
        studio_error(resp, 404, "no spec yet");
        return;
    }
    if (!parse_window(s, req, resp, 1, &win) ||
        !studio_arg_size(req, resp, "n", 129, 2, STUDIO_MAX_MESH_SIDE, &n) ||
        !studio_arg_double(req, resp, "vscale", 64.0, 1e-3, 1e5, &vscale))
        return;
    double range = s->spec->max_value - s->spec->min_value;
    tf_mesh *mesh = tf_mesh_build(s->terrain, win.x, win.y, win.step, n, 0, 0, vscale / range,
                                  &err);
    if (!mesh) {
        studio_error(resp, err.code == TF_ERR_NOMEM ? 500 : 400, "%s", err.message);
        return;
    }
    size_t count = n * n;
    float *out = malloc(count * 4 * sizeof *out);
    if (!out) {
        tf_mesh_free(mesh);
        no_memory(resp);
        return;
    }
    for (size_t k = 0; k < count; k++) {
        /* positions hold height_scale * h */
        double h = mesh->positions[3 * k + 1] / (vscale / range);
        out[k] = (float)((h - s->spec->min_value) / range);
    }
    memcpy(out + count, mesh->normals, count * 3 * sizeof *out);
    tf_mesh_free(mesh);
    studio_bytes(resp, "application/octet-stream", (unsigned char *)out, count * 4 * sizeof *out);
}
