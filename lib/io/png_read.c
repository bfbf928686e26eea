/*
 * PNG reference layers: the chunk structure is checked here first (CRCs,
 * truncation, IHDR sizes against the limits, PLTE and tRNS) so bad files get
 * a precise message before anything is allocated; libpng then inflates and
 * unfilters the rows one at a time, and each pixel is turned into the layer
 * here, palette indices checked against the PLTE entries.
 */
#include <png.h>
#include <pthread.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "io/io_internal.h"
#include "base/error.h"

/* Deflate turns one input byte into at most 1032 output bytes (a 258-byte
 * match coded in two bits), so compressed data shorter than raw / 1032 cannot
 * hold the image: refused before the layer is allocated. */
#define DEFLATE_MAX_RATIO 1032u

/* Adam7: the seven passes' first column and row and their steps. */
static const unsigned ADAM7_X0[7] = {0, 4, 0, 2, 0, 1, 0};
static const unsigned ADAM7_Y0[7] = {0, 0, 4, 0, 2, 0, 1};
static const unsigned ADAM7_DX[7] = {8, 8, 4, 4, 2, 2, 1};
static const unsigned ADAM7_DY[7] = {8, 8, 8, 4, 4, 2, 2};

/* What the chunk walk learns. */
typedef struct {
    uint32_t width, height;
    unsigned depth, colour_type, interlace;
    const unsigned char *plte; /* the PLTE entries (RGB), NULL without one */
    unsigned plte_count;
    bool has_trns;             /* a tRNS chunk: it becomes an alpha channel */
    const unsigned char *trns; /* its body */
    unsigned trns_len;
    uint64_t idat_bytes; /* compressed image data, all IDAT chunks */
} png_header;

static uint32_t be32(const unsigned char *p)
{
    return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | (uint32_t)p[3];
}

static unsigned be16(const unsigned char *p)
{
    return (unsigned)p[0] << 8 | p[1];
}

/* CRC-32 as PNG (ISO 3309) defines it, checked here so a damaged chunk is
 * named with its offset. The table is built once, safely when several
 * threads load layers at once. */
static uint32_t crc_table[256];
static pthread_once_t crc_table_once = PTHREAD_ONCE_INIT;

static void crc_table_build(void)
{
    for (uint32_t i = 0; i < 256; i++) {
        uint32_t c = i;
        for (int k = 0; k < 8; k++)
            c = (c & 1) ? 0xedb88320u ^ (c >> 1) : c >> 1;
        crc_table[i] = c;
    }
}

static uint32_t crc32_png(const unsigned char *p, size_t n)
{
    pthread_once(&crc_table_once, crc_table_build);
    const uint32_t *table = crc_table;
    uint32_t c = 0xffffffffu;
    for (size_t i = 0; i < n; i++)
        c = table[(c ^ p[i]) & 0xff] ^ (c >> 8);
    return c ^ 0xffffffffu;
}

/* A chunk type for a message: four letters, or "????" for garbage. */
static void chunk_name(const unsigned char *p, char out[5])
{
    for (int i = 0; i < 4; i++) {
        unsigned char ch = p[i];
        out[i] = ((ch >= 'A' && ch <= 'Z') || (ch >= 'a' && ch <= 'z')) ? (char)ch : '?';
    }
    out[4] = '\0';
}

static bool depth_allowed(unsigned colour_type, unsigned depth)
{
    switch (colour_type) {
    case 0:
        return depth == 1 || depth == 2 || depth == 4 || depth == 8 || depth == 16;
    case 3:
        return depth == 1 || depth == 2 || depth == 4 || depth == 8;
    case 2:
    case 4:
    case 6:
        return depth == 8 || depth == 16;
    default:
        return false;
    }
}

/* Samples per pixel as stored. */
static unsigned stored_samples(unsigned colour_type)
{
    static const unsigned samples[7] = {1, 0, 3, 1, 2, 0, 4};
    return samples[colour_type];
}

/* Bytes of filtered (inflated) image data a valid file holds: a filter byte
 * and the packed samples per row, per Adam7 pass when interlaced. */
static uint64_t raw_bytes(const png_header *h)
{
    const uint64_t bits = (uint64_t)stored_samples(h->colour_type) * h->depth;
    if (!h->interlace)
        return (uint64_t)h->height * (1 + ((uint64_t)h->width * bits + 7) / 8);
    uint64_t total = 0;
    for (int p = 0; p < 7; p++) {
        uint64_t w = h->width > ADAM7_X0[p] ? (h->width - ADAM7_X0[p] + ADAM7_DX[p] - 1) / ADAM7_DX[p] : 0;
        uint64_t rows = h->height > ADAM7_Y0[p] ? (h->height - ADAM7_Y0[p] + ADAM7_DY[p] - 1) / ADAM7_DY[p] : 0;
        if (w && rows)
            total += rows * (1 + (w * bits + 7) / 8);
    }
    return total;
}

/* The tRNS chunk, checked as the PNG specification states it: before the
 * image data (and after PLTE), never with an alpha channel, of the length
 * the colour type gives, grey and RGB levels within the bit depth. */
static int check_trns(const char *path, const png_header *h, size_t pos, bool seen_plte,
                      tf_error *err)
{
    unsigned len = h->trns_len;
    if (h->colour_type == 4 || h->colour_type == 6) {
        tf_error_set(err, TF_ERR_PARSE,
                     "%s: corrupt PNG: tRNS chunk at byte %zu in an image of colour type %u, "
                     "which has an alpha channel",
                     path, pos, h->colour_type);
        return -1;
    }
    if (h->colour_type == 3) {
        if (!seen_plte) {
            tf_error_set(err, TF_ERR_PARSE,
                         "%s: corrupt PNG: tRNS chunk at byte %zu before the PLTE chunk", path,
                         pos);
            return -1;
        }
        if (len == 0 || len > h->plte_count) {
            tf_error_set(err, TF_ERR_PARSE,
                         "%s: corrupt PNG: tRNS chunk at byte %zu holds %u alpha values for a "
                         "palette of %u entries",
                         path, pos, len, h->plte_count);
            return -1;
        }
        return 0;
    }
    unsigned want = h->colour_type == 0 ? 2 : 6;
    if (len != want) {
        tf_error_set(err, TF_ERR_PARSE,
                     "%s: corrupt PNG: tRNS chunk at byte %zu holds %u bytes; colour type %u "
                     "needs %u",
                     path, pos, len, h->colour_type, want);
        return -1;
    }
    for (unsigned k = 0; k < len; k += 2) {
        unsigned level = be16(h->trns + k);
        if (h->depth < 16 && level >> h->depth) {
            tf_error_set(err, TF_ERR_PARSE,
                         "%s: corrupt PNG: tRNS level %u (chunk at byte %zu) is beyond the "
                         "%u-bit range",
                         path, level, pos, h->depth);
            return -1;
        }
    }
    return 0;
}

static int walk_chunks(const char *path, const unsigned char *d, size_t size, png_header *h,
                       tf_error *err)
{
    bool seen_ihdr = false, seen_idat = false, idat_ended = false, seen_iend = false;
    bool seen_plte = false;
    size_t pos = 8;
    char name[5];
    memset(h, 0, sizeof *h);
    while (pos < size) {
        if (size - pos < 12) {
            tf_error_set(err, TF_ERR_PARSE,
                         "%s: truncated PNG: the file ends inside a chunk header at byte %zu",
                         path, pos);
            return -1;
        }
        uint32_t len = be32(d + pos);
        const unsigned char *type = d + pos + 4;
        chunk_name(type, name);
        if (len > 0x7fffffffu || strchr(name, '?')) {
            tf_error_set(err, TF_ERR_PARSE, "%s: corrupt PNG: invalid chunk header at byte %zu",
                         path, pos);
            return -1;
        }
        if (len > size - pos - 12) {
            tf_error_set(err, TF_ERR_PARSE,
                         "%s: truncated PNG: chunk %s at byte %zu holds %u bytes but the file "
                         "ends %zu bytes later",
                         path, name, pos, len, size - pos - 12);
            return -1;
        }
        if (crc32_png(type, (size_t)len + 4) != be32(type + 4 + len)) {
            tf_error_set(err, TF_ERR_PARSE, "%s: corrupt PNG: CRC mismatch in chunk %s at byte %zu",
                         path, name, pos);
            return -1;
        }
        const unsigned char *body = type + 4;
        const bool is_idat = memcmp(type, "IDAT", 4) == 0;
        if (seen_idat && !is_idat)
            idat_ended = true;
        if (!seen_ihdr) {
            if (memcmp(type, "IHDR", 4) != 0 || len != 13) {
                tf_error_set(err, TF_ERR_PARSE, "%s: corrupt PNG: the first chunk is %s, not IHDR",
                             path, name);
                return -1;
            }
            seen_ihdr = true;
            h->width = be32(body);
            h->height = be32(body + 4);
            h->depth = body[8];
            h->colour_type = body[9];
            h->interlace = body[12];
            if (!depth_allowed(h->colour_type, h->depth) || body[10] != 0 || body[11] != 0 ||
                body[12] > 1) {
                tf_error_set(err, TF_ERR_PARSE,
                             "%s: corrupt PNG: invalid IHDR (bit depth %u, colour type %u, "
                             "compression %u, filter %u, interlace %u)",
                             path, h->depth, h->colour_type, body[10], body[11], body[12]);
                return -1;
            }
            /* Sizes before anything is decoded or allocated. */
            if (io_check_size(path, h->width, h->height, err) != 0)
                return -1;
        } else if (memcmp(type, "PLTE", 4) == 0) {
            if (seen_plte || seen_idat) {
                tf_error_set(err, TF_ERR_PARSE, "%s: corrupt PNG: %s PLTE chunk at byte %zu",
                             path, seen_plte ? "a second" : "image data before the", pos);
                return -1;
            }
            if (len == 0 || len % 3 != 0 || len > 3 * 256) {
                tf_error_set(err, TF_ERR_PARSE,
                             "%s: corrupt PNG: PLTE chunk at byte %zu holds %u bytes (a palette "
                             "is 1 to 256 entries of 3 bytes)",
                             path, pos, len);
                return -1;
            }
            seen_plte = true;
            h->plte = body;
            h->plte_count = len / 3;
        } else if (memcmp(type, "tRNS", 4) == 0) {
            if (h->has_trns || seen_idat) {
                tf_error_set(err, TF_ERR_PARSE, "%s: corrupt PNG: %s tRNS chunk at byte %zu",
                             path, h->has_trns ? "a second" : "image data before the", pos);
                return -1;
            }
            h->has_trns = true;
            h->trns = body;
            h->trns_len = len;
            if (check_trns(path, h, pos, seen_plte, err) != 0)
                return -1;
        } else if (is_idat) {
            if (idat_ended) {
                tf_error_set(err, TF_ERR_PARSE,
                             "%s: corrupt PNG: IDAT chunk at byte %zu after other chunks "
                             "(the image data must be consecutive IDAT chunks)",
                             path, pos);
                return -1;
            }
            if (h->colour_type == 3 && !seen_plte) {
                tf_error_set(err, TF_ERR_PARSE,
                             "%s: corrupt PNG: a palette image (colour type 3) without a PLTE "
                             "chunk before its image data",
                             path);
                return -1;
            }
            seen_idat = true;
            h->idat_bytes += len;
        } else if (memcmp(type, "IEND", 4) == 0) {
            seen_iend = true;
            break; /* whatever follows IEND is not part of the image */
        }
        pos += 12 + (size_t)len;
    }
    if (!seen_iend) {
        tf_error_set(err, TF_ERR_PARSE,
                     "%s: truncated PNG: the file ends at byte %zu before the IEND chunk", path,
                     size);
        return -1;
    }
    if (!seen_idat) {
        tf_error_set(err, TF_ERR_PARSE, "%s: corrupt PNG: no image data (IDAT chunk)", path);
        return -1;
    }
    uint64_t raw = raw_bytes(h);
    if (h->idat_bytes < raw / DEFLATE_MAX_RATIO + (raw % DEFLATE_MAX_RATIO != 0)) {
        tf_error_set(err, TF_ERR_PARSE,
                     "%s: corrupt PNG: %llu compressed bytes cannot hold %ux%u (%llu "
                     "bytes inflated; deflate expands at most %ux)",
                     path, (unsigned long long)h->idat_bytes, h->width, h->height,
                     (unsigned long long)raw, DEFLATE_MAX_RATIO);
        return -1;
    }
    return 0;
}

/* Channels of the layer: the stored ones, palette images as RGB, and a tRNS
 * chunk adds an alpha channel (docs/input.md). */
static int layer_channels(const png_header *h)
{
    switch (h->colour_type) {
    case 0:
        return h->has_trns ? 2 : 1;
    case 2:
    case 3:
        return h->has_trns ? 4 : 3;
    case 4:
        return 2;
    default:
        return 4;
    }
}

/* ---- decoding with libpng */

typedef struct {
    const char *path;
    const png_header *h;
    const unsigned char *data;
    size_t size, pos;
    png_structp png;
    png_infop info;
    unsigned char *row;
    io_decoded *out;
    tf_error *err;
    /* where decoding is, for messages */
    bool in_rows; /* past the header: pass and pass_row say where */
    int pass;
    size_t pass_row;
    char message[128]; /* libpng's reason */
    bool failed_here;  /* err already set by the pixel loop */
} png_decoder;

static void on_png_error(png_structp png, png_const_charp message)
{
    png_decoder *d = png_get_error_ptr(png);
    snprintf(d->message, sizeof d->message, "%s", message ? message : "unknown error");
    png_longjmp(png, 1);
}

/* Warnings are benign problems libpng works around (an ancillary chunk it
 * skips, a wrong Adler-32 at the end); the chunk walk has already refused
 * what would change the pixels. */
static void on_png_warning(png_structp png, png_const_charp message)
{
    (void)png;
    (void)message;
}

static void on_png_read(png_structp png, png_bytep out, size_t n)
{
    png_decoder *d = png_get_io_ptr(png);
    if (n > d->size - d->pos)
        png_error(png, "the file ends inside a chunk"); /* not after the walk */
    memcpy(out, d->data + d->pos, n);
    d->pos += n;
}

/* One decoded row (a whole row, or a pass's row when interlaced) into the
 * layer: `count` pixels starting at column x0 every dx, on row y. With R the
 * height sample scaled to [0, 1] and A the alpha: value = 0.5 + (R - 0.5) * A
 * and weight = A (thesis 5.3). Grey of 1, 2 or 4 bits is scaled to 8 bits
 * as sample * 255 / (2^bits - 1) first. -1 (err set) for a palette index
 * beyond the PLTE entries. */
static int convert_row(png_decoder *d, size_t y, size_t x0, size_t dx, size_t count)
{
    const png_header *h = d->h;
    tf_layer_map *map = d->out->map;
    unsigned char *zero = d->out->zero;
    const bool wide = h->depth == 16;
    const unsigned samples = stored_samples(h->colour_type);
    const bool alpha = map->channels == 2 || map->channels == 4;
    const double scale = 1.0 / (wide ? 65535.0 : 255.0);
    /* 1, 2, 4-bit grey to 8 bits (palette indices stay as they are) */
    const unsigned grey_scale = h->colour_type == 3 ? 1
                                : h->depth == 1     ? 0xff
                                : h->depth == 2     ? 0x55
                                : h->depth == 4     ? 0x11
                                                    : 1;
    const unsigned full = wide ? 65535u : 255u;
    unsigned trns[3] = {0, 0, 0};
    if (h->has_trns && h->colour_type != 3)
        for (unsigned k = 0; k < h->trns_len / 2; k++)
            trns[k] = be16(h->trns + 2 * k);
    const unsigned char *p = d->row;
    /* A colour pixel (green or blue differ from red): only red is read
     * (thesis 5.3), and the caller may say so (tf_layer_map.colour_ignored). */
    bool colour = false;
    for (size_t i = 0; i < count; i++, p += samples * (wide ? 2u : 1u)) {
        unsigned s[4];
        for (unsigned c = 0; c < samples; c++)
            s[c] = wide ? be16(p + 2 * c) : p[c];
        unsigned first, a = full;
        switch (h->colour_type) {
        case 0:
            first = s[0] * grey_scale;
            if (h->has_trns && s[0] == trns[0])
                a = 0;
            break;
        case 2:
            first = s[0];
            if (h->has_trns && s[0] == trns[0] && s[1] == trns[1] && s[2] == trns[2])
                a = 0;
            colour |= s[1] != s[0] || s[2] != s[0];
            break;
        case 3:
            if (s[0] >= h->plte_count) {
                tf_error_set(d->err, TF_ERR_PARSE,
                             "%s: pixel (%zu, %zu) has palette index %u, beyond the %u entries "
                             "of the PLTE chunk",
                             d->path, x0 + i * dx, y, s[0], h->plte_count);
                return -1;
            }
            first = h->plte[3 * s[0]];
            colour |= h->plte[3 * s[0] + 1] != first || h->plte[3 * s[0] + 2] != first;
            if (h->has_trns && s[0] < h->trns_len)
                a = h->trns[s[0]];
            break;
        case 4:
            first = s[0];
            a = s[1];
            break;
        default:
            first = s[0];
            a = s[3];
            colour |= s[1] != s[0] || s[2] != s[0];
            break;
        }
        size_t k = y * map->width + x0 + i * dx;
        double r = first * scale;
        double av = alpha ? a * scale : 1.0;
        map->value[k] = av > 0.0 ? (float)(0.5 + (r - 0.5) * av) : 0.5f;
        map->weight[k] = (float)av;
        if (zero)
            zero[k] = first == 0;
    }
    if (colour)
        map->colour_ignored = 1;
    return 0;
}

/* Everything libpng may leave with a longjmp; only `d`'s fields (not this
 * function's locals) carry state across it. */
static int decode_rows(png_decoder *d)
{
    if (setjmp(png_jmpbuf(d->png)))
        return -1;
    png_set_read_fn(d->png, d, on_png_read);
    /* Only the pixels matter: ancillary chunks (text, ICC profiles, ...)
     * are skipped unread; tRNS, which libpng always reads, is used from the
     * chunk walk. */
    png_set_keep_unknown_chunks(d->png, PNG_HANDLE_CHUNK_NEVER, NULL, -1);
    png_set_user_limits(d->png, TF_MAX_REFERENCE_SIDE, TF_MAX_REFERENCE_SIDE);
    png_read_info(d->png, d->info);
    if (d->h->depth < 8)
        png_set_packing(d->png); /* one byte per sample, not scaled */
    png_read_update_info(d->png, d->info);
    const size_t width = d->h->width, height = d->h->height;
    const size_t bytes = (size_t)stored_samples(d->h->colour_type) * (d->h->depth == 16 ? 2 : 1);
    if (png_get_rowbytes(d->png, d->info) != width * bytes)
        png_error(d->png, "unexpected row size");
    for (int p = 0; p < (d->h->interlace ? 7 : 1); p++) {
        size_t x0 = 0, y0 = 0, dx = 1, dy = 1;
        if (d->h->interlace) {
            x0 = ADAM7_X0[p];
            y0 = ADAM7_Y0[p];
            dx = ADAM7_DX[p];
            dy = ADAM7_DY[p];
            if (x0 >= width || y0 >= height)
                continue; /* an empty pass has no rows in the file */
        }
        d->pass = p;
        d->in_rows = true;
        size_t count = (width - x0 + dx - 1) / dx;
        d->pass_row = 0;
        for (size_t y = y0; y < height; y += dy, d->pass_row++) {
            png_read_row(d->png, d->row, NULL);
            if (convert_row(d, y, x0, dx, count) != 0) {
                d->failed_here = true;
                return -1;
            }
        }
    }
    return 0;
}

int io_read_png(const char *path, const unsigned char *data, size_t size, bool want_zero,
                io_decoded *out, tf_error *err)
{
    png_header h;
    if (walk_chunks(path, data, size, &h, err) != 0)
        return -1;
    png_decoder d;
    memset(&d, 0, sizeof d);
    d.path = path;
    d.h = &h;
    d.data = data;
    d.size = size;
    d.out = out;
    d.err = err;
    const size_t row_bytes =
        (size_t)h.width * stored_samples(h.colour_type) * (h.depth == 16 ? 2 : 1);
    d.row = malloc(row_bytes);
    d.png = png_create_read_struct(PNG_LIBPNG_VER_STRING, &d, on_png_error, on_png_warning);
    d.info = d.png ? png_create_info_struct(d.png) : NULL;
    if (!d.row || !d.info) {
        tf_error_set(err, TF_ERR_NOMEM, "%s: out of memory decoding the PNG", path);
        goto fail;
    }
    if (io_decoded_alloc(path, h.width, h.height, want_zero, out, err) != 0)
        goto fail;
    out->map->bits = h.depth == 16 ? 16 : 8;
    out->map->channels = layer_channels(&h);
    if (decode_rows(&d) != 0) {
        if (!d.failed_here) {
            if (!d.in_rows)
                tf_error_set(err, TF_ERR_PARSE, "%s: corrupt PNG (%s)", path, d.message);
            else if (h.interlace)
                tf_error_set(err, TF_ERR_PARSE,
                             "%s: corrupt PNG data in row %zu of interlace pass %d (%s)", path,
                             d.pass_row, d.pass + 1, d.message);
            else
                tf_error_set(err, TF_ERR_PARSE, "%s: corrupt PNG data in row %zu of %u (%s)",
                             path, d.pass_row, h.height, d.message);
        }
        io_decoded_free(out);
        goto fail;
    }
    png_destroy_read_struct(&d.png, &d.info, NULL);
    free(d.row);
    return 0;
fail:
    if (d.png)
        png_destroy_read_struct(&d.png, d.info ? &d.info : NULL, NULL);
    free(d.row);
    return -1;
}
