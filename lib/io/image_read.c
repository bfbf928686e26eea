/*
 * Reading reference layers (thesis 5.3): the whole file under a size cap,
 * the format recognized from the content (and checked against a .png/.pgm/
 * .asc name), the per-format readers, and the --valid mask. docs/input.md.
 */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <locale.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "io/heightmap_internal.h" /* PFM and f32 */
#include "io/io_internal.h"
#include "base/error.h"

/* ------------------------------------------------------------ layer maps */

int io_check_size(const char *path, uint64_t width, uint64_t height, tf_error *err)
{
    if (width == 0 || height == 0) {
        tf_error_set(err, TF_ERR_INVALID, "%s: zero-sized image (%llux%llu)", path,
                     (unsigned long long)width, (unsigned long long)height);
        return -1;
    }
    if (width > TF_MAX_REFERENCE_SIDE || height > TF_MAX_REFERENCE_SIDE) {
        tf_error_set(err, TF_ERR_LIMIT,
                     "%s: %llux%llu is beyond the limit of %u pixels per side "
                     "(TF_MAX_REFERENCE_SIDE)",
                     path, (unsigned long long)width, (unsigned long long)height,
                     TF_MAX_REFERENCE_SIDE);
        return -1;
    }
    /* Both sides are <= 2^15 here, so the product cannot overflow. */
    if (width * height > TF_MAX_REFERENCE_PIXELS) {
        tf_error_set(err, TF_ERR_LIMIT,
                     "%s: %llux%llu is %llu pixels, beyond the limit of %zu "
                     "(TF_MAX_REFERENCE_PIXELS)",
                     path, (unsigned long long)width, (unsigned long long)height,
                     (unsigned long long)(width * height), TF_MAX_REFERENCE_PIXELS);
        return -1;
    }
    return 0;
}

static tf_layer_map *map_alloc(size_t width, size_t height)
{
    tf_layer_map *map = calloc(1, sizeof *map);
    if (!map)
        return NULL;
    size_t n = width * height;
    map->value = malloc(n * sizeof *map->value);
    map->weight = malloc(n * sizeof *map->weight);
    if (!map->value || !map->weight) {
        tf_layer_map_free(map);
        return NULL;
    }
    map->width = width;
    map->height = height;
    map->bits = 0;
    map->channels = 1;
    map->z_min = 0.0;
    map->z_max = 1.0;
    for (size_t k = 0; k < n; k++) {
        map->value[k] = 0.5f;
        map->weight[k] = 1.0f;
    }
    return map;
}

int io_decoded_alloc(const char *path, size_t width, size_t height, bool want_zero,
                     io_decoded *out, tf_error *err)
{
    out->map = map_alloc(width, height);
    out->zero = (out->map && want_zero) ? calloc(width * height, 1) : NULL;
    if (!out->map || (want_zero && !out->zero)) {
        io_decoded_free(out);
        tf_error_set(err, TF_ERR_NOMEM, "%s: out of memory for a %zux%zu layer", path, width,
                     height);
        return -1;
    }
    return 0;
}

void io_decoded_free(io_decoded *d)
{
    tf_layer_map_free(d->map);
    free(d->zero);
    d->map = NULL;
    d->zero = NULL;
}

tf_layer_map *tf_layer_map_new(size_t width, size_t height, tf_error *err)
{
    if (io_check_size("tf_layer_map_new", width, height, err) != 0) {
        if (err && err->code == TF_ERR_INVALID)
            err->code = TF_ERR_ARGUMENT;
        return NULL;
    }
    tf_layer_map *map = map_alloc(width, height);
    if (!map)
        tf_error_set(err, TF_ERR_NOMEM, "tf_layer_map_new: out of memory for a %zux%zu layer",
                     width, height);
    return map;
}

void tf_layer_map_free(tf_layer_map *map)
{
    if (!map)
        return;
    free(map->value);
    free(map->weight);
    free(map);
}

size_t tf_layer_map_visible_count(const tf_layer_map *map)
{
    if (!map || !map->weight)
        return 0;
    size_t n = map->width * map->height, visible = 0;
    for (size_t k = 0; k < n; k++)
        visible += map->weight[k] > 0.0f;
    return visible;
}

/* ---------------------------------------------------------- whole files */

unsigned char *io_read_file(const char *path, size_t max_bytes, const char *limit_name,
                            size_t *size, tf_error *err)
{
    FILE *f = fopen(path, "rb");
    if (!f) {
        tf_error_set(err, TF_ERR_IO, "%s: cannot open: %s", path, strerror(errno));
        return NULL;
    }
    struct stat st;
    size_t cap = 1 << 16;
    if (fstat(fileno(f), &st) == 0) {
        if (S_ISDIR(st.st_mode)) {
            fclose(f);
            tf_error_set(err, TF_ERR_IO, "%s: is a directory, not an image", path);
            return NULL;
        }
        if (S_ISREG(st.st_mode)) {
            if ((uintmax_t)st.st_size > max_bytes) {
                fclose(f);
                tf_error_set(err, TF_ERR_LIMIT, "%s: %jd bytes, beyond the limit of %zu bytes for %s",
                             path, (intmax_t)st.st_size, max_bytes, limit_name);
                return NULL;
            }
            cap = (size_t)st.st_size + 1; /* +1: reaching it proves the end */
        }
    }
    unsigned char *buf = malloc(cap + 1);
    size_t n = 0;
    while (buf) {
        size_t got = fread(buf + n, 1, cap - n, f);
        n += got;
        if (n > max_bytes) {
            free(buf);
            fclose(f);
            tf_error_set(err, TF_ERR_LIMIT, "%s: more than %zu bytes, the limit for %s", path,
                         max_bytes, limit_name);
            return NULL;
        }
        if (n < cap)
            break; /* end of file or an error, told apart below */
        size_t bigger = cap * 2 > max_bytes + 1 ? max_bytes + 1 : cap * 2;
        unsigned char *grown = realloc(buf, bigger + 1);
        if (!grown) {
            free(buf);
            buf = NULL;
            break;
        }
        buf = grown;
        cap = bigger;
    }
    if (!buf) {
        fclose(f);
        tf_error_set(err, TF_ERR_NOMEM, "%s: out of memory reading the file", path);
        return NULL;
    }
    if (ferror(f)) {
        int e = errno;
        free(buf);
        fclose(f);
        tf_error_set(err, TF_ERR_IO, "%s: cannot read: %s", path, strerror(e));
        return NULL;
    }
    fclose(f);
    if (n == 0) {
        free(buf);
        tf_error_set(err, TF_ERR_PARSE, "%s: empty file (0 bytes)", path);
        return NULL;
    }
    buf[n] = '\0';
    *size = n;
    return buf;
}

/* ------------------------------------------------------ format detection */

typedef enum {
    KIND_UNKNOWN = 0,
    KIND_PNG,
    KIND_PGM,
    KIND_ASC,
    KIND_PFM, /* greyscale Portable Float Map ("Pf") */
    KIND_F32, /* raw float32 + JSON sidecar: by the .f32 name only */
    /* recognized only to say what the file is */
    KIND_JPEG,
    KIND_GIF,
    KIND_BMP,
    KIND_TIFF,
    KIND_WEBP,
    KIND_NETPBM_OTHER, /* P1, P3, P4, P6, P7, PF, Pf */
} content_kind;

static bool is_space(unsigned char c)
{
    return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f';
}

static content_kind detect_kind(const unsigned char *d, size_t n)
{
    static const unsigned char png_sig[8] = {0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n'};
    if (n >= 8 && memcmp(d, png_sig, 8) == 0)
        return KIND_PNG;
    if (n >= 3 && d[0] == 'P' && is_space(d[2]) && (d[1] == '2' || d[1] == '5'))
        return KIND_PGM;
    if (n >= 3 && d[0] == 'P' && d[1] == 'f' && is_space(d[2]))
        return KIND_PFM;
    if (n >= 3 && d[0] == 'P' && (is_space(d[2]) || d[2] == '#') &&
        strchr("13467Ff", d[1]) && d[1] != '\0')
        return KIND_NETPBM_OTHER;
    if (n >= 3 && d[0] == 0xff && d[1] == 0xd8 && d[2] == 0xff)
        return KIND_JPEG;
    if (n >= 6 && (memcmp(d, "GIF87a", 6) == 0 || memcmp(d, "GIF89a", 6) == 0))
        return KIND_GIF;
    if (n >= 2 && d[0] == 'B' && d[1] == 'M')
        return KIND_BMP;
    if (n >= 4 && (memcmp(d, "II*\0", 4) == 0 || memcmp(d, "MM\0*", 4) == 0))
        return KIND_TIFF;
    if (n >= 12 && memcmp(d, "RIFF", 4) == 0 && memcmp(d + 8, "WEBP", 4) == 0)
        return KIND_WEBP;
    /* An ESRI ASCII grid starts with one of its header keys. */
    io_cursor c = {(const char *)d, (const char *)d + n, 1};
    io_token tok;
    if (io_next_token(&c, false, &tok) && io_asc_key_index(&tok) >= 0)
        return KIND_ASC;
    return KIND_UNKNOWN;
}

static const char *kind_name(content_kind kind, const unsigned char *d, char *buf, size_t size)
{
    switch (kind) {
    case KIND_PNG:
        return "a PNG image";
    case KIND_PGM:
        snprintf(buf, size, "a PGM image (P%c)", d[1]);
        return buf;
    case KIND_ASC:
        return "an ESRI ASCII grid";
    case KIND_PFM:
        return "a PFM float image";
    case KIND_F32:
        return "raw float32 data";
    case KIND_JPEG:
        return "a JPEG image";
    case KIND_GIF:
        return "a GIF image";
    case KIND_BMP:
        return "a BMP image";
    case KIND_TIFF:
        return "a TIFF image";
    case KIND_WEBP:
        return "a WebP image";
    case KIND_NETPBM_OTHER:
        snprintf(buf, size, "a Netpbm P%c image (not greyscale PGM)", d[1]);
        return buf;
    case KIND_UNKNOWN:
        break;
    }
    return "data of an unknown format";
}

/* The format a file name claims: .png, .pgm or .asc (any case); anything
 * else claims nothing and the content decides alone. */
static content_kind kind_from_name(const char *path)
{
    const char *slash = strrchr(path, '/');
    const char *dot = strrchr(slash ? slash + 1 : path, '.');
    if (!dot)
        return KIND_UNKNOWN;
    char ext[5] = {0};
    size_t len = strlen(dot + 1);
    if (len != 3)
        return KIND_UNKNOWN;
    for (size_t i = 0; i < 3; i++) {
        char ch = dot[1 + i];
        ext[i] = (char)((ch >= 'A' && ch <= 'Z') ? ch - 'A' + 'a' : ch);
    }
    if (strcmp(ext, "png") == 0)
        return KIND_PNG;
    if (strcmp(ext, "pgm") == 0)
        return KIND_PGM;
    if (strcmp(ext, "asc") == 0)
        return KIND_ASC;
    if (strcmp(ext, "pfm") == 0)
        return KIND_PFM;
    if (strcmp(ext, "f32") == 0)
        return KIND_F32;
    return KIND_UNKNOWN;
}

static int load_decoded(const char *path, bool want_zero, io_decoded *out, tf_error *err)
{
    out->map = NULL;
    out->zero = NULL;
    if (!path || !*path) {
        tf_error_set(err, TF_ERR_ARGUMENT, "no reference file given");
        return -1;
    }
    size_t size = 0;
    unsigned char *data = io_read_file(path, TF_MAX_REFERENCE_BYTES,
                                       "a reference file (TF_MAX_REFERENCE_BYTES)", &size, err);
    if (!data)
        return -1;
    content_kind kind = detect_kind(data, size);
    content_kind named = kind_from_name(path);
    char what[64];
    int rc = -1;
    if (named == KIND_F32) {
        /* Raw floats have no signature: the name and the sidecar decide. */
        rc = io_read_f32(path, want_zero, out, err);
    } else if (named != KIND_UNKNOWN && kind != named) {
        const char *ext = strrchr(path, '.');
        if (kind != KIND_UNKNOWN)
            tf_error_set(err, TF_ERR_PARSE, "%s: named %s but holds %s", path, ext,
                         kind_name(kind, data, what, sizeof what));
        else if (named == KIND_PNG)
            tf_error_set(err, TF_ERR_PARSE,
                         "%s: named %s but is not a PNG image (no PNG signature) nor any "
                         "other format terrafit reads",
                         path, ext);
        else if (named == KIND_PFM)
            tf_error_set(err, TF_ERR_PARSE,
                         "%s: named %s but is not a PFM image (no Pf magic number) nor any "
                         "other format terrafit reads",
                         path, ext);
        else if (named == KIND_PGM)
            tf_error_set(err, TF_ERR_PARSE,
                         "%s: named %s but is not a PGM image (no P2/P5 magic number) nor "
                         "any other format terrafit reads",
                         path, ext);
        else
            tf_error_set(err, TF_ERR_PARSE,
                         "%s: named %s but is not an ESRI ASCII grid (no ncols/nrows header) "
                         "nor any other format terrafit reads",
                         path, ext);
    } else {
        switch (kind) {
        case KIND_PNG:
            rc = io_read_png(path, data, size, want_zero, out, err);
            break;
        case KIND_PGM:
            rc = io_read_pgm(path, data, size, want_zero, out, err);
            break;
        case KIND_ASC:
            rc = io_read_asc(path, data, size, want_zero, out, err);
            break;
        case KIND_PFM:
            rc = io_read_pfm(path, data, size, want_zero, out, err);
            break;
        case KIND_UNKNOWN:
            tf_error_set(err, TF_ERR_PARSE,
                         "%s: unknown format: not a PNG image, a PGM (P2/P5) image or an ESRI "
                         "ASCII grid",
                         path);
            break;
        default:
            tf_error_set(err, TF_ERR_PARSE,
                         "%s: holds %s, which terrafit does not read (use PNG, PGM or an ESRI "
                         "ASCII grid)",
                         path, kind_name(kind, data, what, sizeof what));
            break;
        }
    }
    free(data);
    return rc;
}

tf_layer_map *tf_layer_map_load(const char *path, tf_error *err)
{
    io_decoded d;
    if (load_decoded(path, false, &d, err) != 0)
        return NULL;
    return d.map;
}

int tf_layer_map_apply_valid(tf_layer_map *map, const char *mask_path, tf_error *err)
{
    if (!map || !map->value || !map->weight) {
        tf_error_set(err, TF_ERR_ARGUMENT, "%s: no layer to mask",
                     mask_path ? mask_path : "tf_layer_map_apply_valid");
        return -1;
    }
    io_decoded mask;
    if (load_decoded(mask_path, true, &mask, err) != 0)
        return -1;
    if (mask.map->width != map->width || mask.map->height != map->height) {
        tf_error_set(err, TF_ERR_INVALID, "%s: the mask is %zux%zu but the layer is %zux%zu",
                     mask_path, mask.map->width, mask.map->height, map->width, map->height);
        io_decoded_free(&mask);
        return -1;
    }
    size_t n = map->width * map->height;
    for (size_t k = 0; k < n; k++)
        if (mask.zero[k]) {
            map->weight[k] = 0.0f;
            map->value[k] = 0.5f; /* invisible cells always hold 0.5 */
        }
    io_decoded_free(&mask);
    return 0;
}

/* ------------------------------------------------------------ text cursor */

bool io_next_token(io_cursor *c, bool comments, io_token *tok)
{
    for (;;) {
        while (c->p < c->end && is_space((unsigned char)*c->p)) {
            if (*c->p == '\n')
                c->line++;
            c->p++;
        }
        if (comments && c->p < c->end && *c->p == '#') {
            while (c->p < c->end && *c->p != '\n')
                c->p++;
            continue;
        }
        break;
    }
    if (c->p >= c->end)
        return false;
    tok->text = c->p;
    tok->line = c->line;
    while (c->p < c->end && !is_space((unsigned char)*c->p) && !(comments && *c->p == '#'))
        c->p++;
    tok->len = (size_t)(c->p - tok->text);
    return true;
}

bool io_token_is(const io_token *tok, const char *word)
{
    size_t n = strlen(word);
    if (tok->len != n)
        return false;
    for (size_t i = 0; i < n; i++) {
        char ch = tok->text[i];
        if (ch >= 'A' && ch <= 'Z')
            ch = (char)(ch - 'A' + 'a');
        if (ch != word[i])
            return false;
    }
    return true;
}

bool io_parse_uint(const io_token *tok, uint64_t *value)
{
    if (tok->len == 0)
        return false;
    uint64_t v = 0;
    for (size_t i = 0; i < tok->len; i++) {
        char ch = tok->text[i];
        if (ch < '0' || ch > '9')
            return false;
        v = v > UINT64_MAX / 10 - 10 ? UINT64_MAX / 10 : v * 10 + (uint64_t)(ch - '0');
    }
    *value = v;
    return true;
}

bool io_parse_double(const io_token *tok, double *value)
{
    char buf[64];
    if (tok->len == 0 || tok->len >= sizeof buf)
        return false;
    /* strtod follows the C locale's decimal point; the files always use
     * '.', so swap it in (and refuse the locale's own, which is not ours). */
    const char *point = localeconv()->decimal_point;
    char dp = (point && point[0] && !point[1]) ? point[0] : '.';
    for (size_t i = 0; i < tok->len; i++) {
        char ch = tok->text[i];
        if (dp != '.' && ch == dp)
            return false;
        buf[i] = ch == '.' ? dp : ch;
    }
    buf[tok->len] = '\0';
    char *stop;
    errno = 0;
    double v = strtod(buf, &stop);
    if (stop != buf + tok->len)
        return false;
    /* Overflow gives +-HUGE_VAL (= inf, refused by callers as non-finite);
     * underflow to a denormal or 0 is harmless. */
    *value = v;
    return true;
}

const char *io_token_quote(const io_token *tok, char *buf, size_t size)
{
    size_t n = tok->len < 24 ? tok->len : 24;
    if (n + 4 > size)
        n = size > 4 ? size - 4 : 0;
    size_t j = 0;
    for (size_t i = 0; i < n; i++) {
        unsigned char ch = (unsigned char)tok->text[i];
        buf[j++] = (ch < 0x20 || ch >= 0x7f) ? '?' : (char)ch;
    }
    if (tok->len > n) {
        buf[j++] = '.';
        buf[j++] = '.';
        buf[j++] = '.';
    }
    buf[j] = '\0';
    return buf;
}
