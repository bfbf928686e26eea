/*
 * ESRI ASCII grids (Arc/Info ASCII GRID) as reference layers: heights
 * normalized to [0, 1] over the valid cells (z_min, z_max kept), NODATA
 * cells invisible. Row 0 of the file is the northern row, as in the map.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "io/io_internal.h"
#include "base/error.h"

enum { KEY_NCOLS, KEY_NROWS, KEY_XLLCORNER, KEY_XLLCENTER, KEY_YLLCORNER, KEY_YLLCENTER,
       KEY_CELLSIZE, KEY_NODATA, KEY_COUNT };

static const char *const KEY_NAMES[KEY_COUNT] = {
    "ncols", "nrows", "xllcorner", "xllcenter", "yllcorner", "yllcenter", "cellsize",
    "nodata_value"};

int io_asc_key_index(const io_token *tok)
{
    for (int i = 0; i < KEY_COUNT; i++)
        if (io_token_is(tok, KEY_NAMES[i]))
            return i;
    return -1;
}

/* The header: key-value pairs, one per line, keys in any case and order,
 * until the first token that is not a key. Checked fully (required keys,
 * numbers, sizes) before the grid is allocated. */
typedef struct {
    bool seen[KEY_COUNT];
    uint64_t ncols, nrows;
    double number[KEY_COUNT];
} asc_header;

static int read_header(const char *path, io_cursor *c, asc_header *h, tf_error *err)
{
    io_token key, val;
    char quoted[32];
    size_t stop_line; /* where the header ends: the first value, or the end */
    bool stop_is_word = false;
    for (;;) {
        io_cursor before = *c;
        if (!io_next_token(c, false, &key)) {
            stop_line = c->line;
            break;
        }
        int k = io_asc_key_index(&key);
        if (k < 0) {
            *c = before; /* the first value of the grid */
            stop_line = key.line;
            stop_is_word = (key.text[0] >= 'a' && key.text[0] <= 'z') ||
                           (key.text[0] >= 'A' && key.text[0] <= 'Z');
            break;
        }
        if (h->seen[k]) {
            tf_error_set(err, TF_ERR_PARSE, "%s:%zu: header key %s given twice", path, key.line,
                         KEY_NAMES[k]);
            return -1;
        }
        h->seen[k] = true;
        if (!io_next_token(c, false, &val) || val.line != key.line) {
            tf_error_set(err, TF_ERR_PARSE, "%s:%zu: header key %s has no value", path,
                         key.line, KEY_NAMES[k]);
            return -1;
        }
        if (k == KEY_NCOLS || k == KEY_NROWS) {
            uint64_t *dim = k == KEY_NCOLS ? &h->ncols : &h->nrows;
            if (!io_parse_uint(&val, dim)) {
                tf_error_set(err, TF_ERR_PARSE, "%s:%zu: %s '%s' is not a non-negative integer",
                             path, val.line, KEY_NAMES[k],
                             io_token_quote(&val, quoted, sizeof quoted));
                return -1;
            }
            continue;
        }
        double v;
        if (!io_parse_double(&val, &v)) {
            tf_error_set(err, TF_ERR_PARSE, "%s:%zu: %s '%s' is not a number", path, val.line,
                         KEY_NAMES[k], io_token_quote(&val, quoted, sizeof quoted));
            return -1;
        }
        /* A NaN NODATA_value is how some tools mark no-data; every other
         * header number must be finite. */
        if (!isfinite(v) && !(k == KEY_NODATA && isnan(v))) {
            tf_error_set(err, TF_ERR_PARSE, "%s:%zu: %s '%s' is not finite", path, val.line,
                         KEY_NAMES[k], io_token_quote(&val, quoted, sizeof quoted));
            return -1;
        }
        if (k == KEY_CELLSIZE && !(v > 0.0)) {
            tf_error_set(err, TF_ERR_PARSE, "%s:%zu: cellsize %g must be > 0", path, val.line, v);
            return -1;
        }
        h->number[k] = v;
    }
    static const struct {
        int a, b;
        const char *what;
    } required[] = {{KEY_NCOLS, KEY_NCOLS, "ncols"},
                    {KEY_NROWS, KEY_NROWS, "nrows"},
                    {KEY_XLLCORNER, KEY_XLLCENTER, "xllcorner or xllcenter"},
                    {KEY_YLLCORNER, KEY_YLLCENTER, "yllcorner or yllcenter"},
                    {KEY_CELLSIZE, KEY_CELLSIZE, "cellsize"}};
    for (size_t i = 0; i < sizeof required / sizeof required[0]; i++) {
        if (!h->seen[required[i].a] && !h->seen[required[i].b]) {
            /* A word where the header ended is most likely a misspelled key. */
            tf_error_set(err, TF_ERR_PARSE, "%s:%zu: the header lacks %s%s%s%s", path, stop_line,
                         required[i].what, stop_is_word ? " ('" : "",
                         stop_is_word ? io_token_quote(&key, quoted, sizeof quoted) : "",
                         stop_is_word ? "' is not a header key)" : "");
            return -1;
        }
        if (required[i].a != required[i].b && h->seen[required[i].a] && h->seen[required[i].b]) {
            tf_error_set(err, TF_ERR_PARSE, "%s: the header has both %s and %s", path,
                         KEY_NAMES[required[i].a], KEY_NAMES[required[i].b]);
            return -1;
        }
    }
    return io_check_size(path, h->ncols, h->nrows, err);
}

int io_read_asc(const char *path, const unsigned char *data, size_t size, bool want_zero,
                io_decoded *out, tf_error *err)
{
    io_cursor c = {(const char *)data, (const char *)data + size, 1};
    asc_header h = {{false}, 0, 0, {0}};
    if (read_header(path, &c, &h, err) != 0)
        return -1;
    const size_t nx = (size_t)h.ncols, ny = (size_t)h.nrows, n = nx * ny;
    const bool has_nodata = h.seen[KEY_NODATA];
    const double nodata = h.number[KEY_NODATA];
    if ((size_t)(c.end - c.p) / 2 < n) {
        /* Each value takes a character and the white space before it: a
         * file this short cannot hold the grid. Counted here, with the
         * loop's message, so a tiny file claiming a huge grid costs no
         * allocation. */
        io_cursor count = c;
        io_token tok;
        size_t k = 0;
        while (k < n && io_next_token(&count, false, &tok))
            k++;
        tf_error_set(err, TF_ERR_PARSE, "%s:%zu: too few values: %zu of %zu (nrows %zu x ncols %zu)",
                     path, count.line, k, n, ny, nx);
        return -1;
    }
    if (io_decoded_alloc(path, nx, ny, want_zero, out, err) != 0)
        return -1;
    tf_layer_map *map = out->map;
    io_token tok;
    char quoted[32];
    /* Pass 1 stores z - z0 (z0: the first valid height) as float: the
     * rounding error is then relative to the grid's range, not to its
     * absolute height, so a 2 m relief at 4000 m keeps its detail. */
    double z0 = 0.0, zmin = INFINITY, zmax = -INFINITY;
    size_t valid = 0;
    for (size_t k = 0; k < n; k++) {
        double z;
        if (!io_next_token(&c, false, &tok)) {
            tf_error_set(err, TF_ERR_PARSE,
                         "%s:%zu: too few values: %zu of %zu (nrows %zu x ncols %zu)", path,
                         c.line, k, n, ny, nx);
            goto fail;
        }
        if (!io_parse_double(&tok, &z)) {
            tf_error_set(err, TF_ERR_PARSE,
                         "%s:%zu: value '%s' at row %zu, column %zu is not a number", path,
                         tok.line, io_token_quote(&tok, quoted, sizeof quoted), k / nx, k % nx);
            goto fail;
        }
        bool is_nodata = has_nodata && (isnan(nodata) ? isnan(z) : z == nodata);
        if (!is_nodata && !isfinite(z)) {
            tf_error_set(err, TF_ERR_PARSE,
                         "%s:%zu: value '%s' at row %zu, column %zu is not finite", path,
                         tok.line, io_token_quote(&tok, quoted, sizeof quoted), k / nx, k % nx);
            goto fail;
        }
        if (is_nodata) {
            map->weight[k] = 0.0f;
            if (out->zero)
                out->zero[k] = 1;
            continue;
        }
        if (valid++ == 0)
            z0 = z;
        zmin = z < zmin ? z : zmin;
        zmax = z > zmax ? z : zmax;
        map->value[k] = (float)(z - z0);
        if (out->zero)
            out->zero[k] = z == 0.0;
    }
    if (io_next_token(&c, false, &tok)) {
        tf_error_set(err, TF_ERR_PARSE,
                     "%s:%zu: too many values: more than the %zu (nrows %zu x ncols %zu) of the "
                     "header",
                     path, tok.line, n, ny, nx);
        goto fail;
    }
    if (valid == 0) {
        tf_error_set(err, TF_ERR_INVALID, "%s: every cell is NODATA_value (%g): no data", path,
                     nodata);
        goto fail;
    }
    if (!isfinite(zmax - zmin) || !isfinite(zmax - z0) || !isfinite(zmin - z0)) {
        tf_error_set(err, TF_ERR_INVALID, "%s: the heights span %g to %g, too wide a range",
                     path, zmin, zmax);
        goto fail;
    }
    /* Pass 2: normalize. A constant grid has no range to normalize by: its
     * cells get 0.5 ("no offset", thesis 5.3) and z_min = z_max. */
    const double range = zmax - zmin, base = zmin - z0;
    for (size_t k = 0; k < n; k++)
        if (map->weight[k] > 0.0f)
            map->value[k] = range > 0.0 ? (float)fmin(
                                              1.0, fmax(0.0, ((double)map->value[k] - base) / range))
                                        : 0.5f;
        else
            map->value[k] = 0.5f;
    map->bits = 0;
    map->channels = 1;
    map->z_min = zmin;
    map->z_max = zmax;
    return 0;
fail:
    io_decoded_free(out);
    return -1;
}
