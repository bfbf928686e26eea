/*
 * PNG reference layers: the chunk structure is checked here first (CRCs,
 * truncation, IHDR sizes against the limits) so bad files get a precise
 * message before anything is allocated; stb_image then decodes the pixels.
 */
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "io/io_internal.h"
#include "base/error.h"

/* stb_image is compiled here, privately (STB_IMAGE_STATIC: no symbol can
 * clash with libstb or a host program's own copy), for PNG only, from
 * memory only. Its own code is not held to our warning flags. */
#if defined(__GNUC__)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wunused-function"
#pragma GCC diagnostic ignored "-Wshadow"
#pragma GCC diagnostic ignored "-Wsign-compare"
#pragma GCC diagnostic ignored "-Wmissing-prototypes"
#pragma GCC diagnostic ignored "-Wimplicit-fallthrough"
#pragma GCC diagnostic ignored "-Wunused-parameter"
#pragma GCC diagnostic ignored "-Wunused-but-set-variable"
#pragma GCC diagnostic ignored "-Wtype-limits"
#endif
#define STB_IMAGE_STATIC
#define STB_IMAGE_IMPLEMENTATION
#define STBI_ONLY_PNG
#define STBI_NO_STDIO
#define STBI_NO_LINEAR
#define STBI_NO_HDR
#define STBI_MAX_DIMENSIONS ((int)TF_MAX_REFERENCE_SIDE)
#include <stb/stb_image.h>
#if defined(__GNUC__)
#pragma GCC diagnostic pop
/* Unused static stb functions are reported at the end of the file, so this
 * one stays off for the rest of it. */
#pragma GCC diagnostic ignored "-Wunused-function"
#endif

/* What the chunk walk learns. */
typedef struct {
    uint32_t width, height;
    unsigned depth, colour_type;
    bool has_trns; /* a tRNS chunk: stb_image turns it into an alpha channel */
} png_header;

static uint32_t be32(const unsigned char *p)
{
    return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | (uint32_t)p[3];
}

/* CRC-32 as PNG (ISO 3309) defines it; stb_image does not check it. The
 * table is built once, safely when several threads load layers at once. */
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

static int walk_chunks(const char *path, const unsigned char *d, size_t size, png_header *h,
                       tf_error *err)
{
    bool seen_ihdr = false, seen_idat = false, seen_iend = false;
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
        } else if (memcmp(type, "tRNS", 4) == 0) {
            h->has_trns = true;
        } else if (memcmp(type, "IDAT", 4) == 0) {
            seen_idat = true;
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
    return 0;
}

/* Channels as stb_image delivers them: palette images come out as RGB, and
 * a tRNS chunk adds an alpha channel. Asking for exactly this count keeps
 * the buffer layout known whatever stb_image reports. */
static int delivered_channels(const png_header *h)
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

int io_read_png(const char *path, const unsigned char *data, size_t size, bool want_zero,
                io_decoded *out, tf_error *err)
{
    png_header h;
    if (walk_chunks(path, data, size, &h, err) != 0)
        return -1;
    if (size > INT_MAX) { /* stb_image takes an int length */
        tf_error_set(err, TF_ERR_LIMIT, "%s: too large for the PNG decoder", path);
        return -1;
    }
    int w = 0, hh = 0, comp = 0;
    if (!stbi_info_from_memory(data, (int)size, &w, &hh, &comp) || (uint32_t)w != h.width ||
        (uint32_t)hh != h.height) {
        tf_error_set(err, TF_ERR_PARSE, "%s: corrupt PNG data (%s)", path,
                     stbi_failure_reason() ? stbi_failure_reason() : "header");
        return -1;
    }
    const int channels = delivered_channels(&h);
    const bool wide = h.depth == 16;
    void *pixels = wide ? (void *)stbi_load_16_from_memory(data, (int)size, &w, &hh, &comp,
                                                          channels)
                        : (void *)stbi_load_from_memory(data, (int)size, &w, &hh, &comp,
                                                       channels);
    if (!pixels) {
        const char *why = stbi_failure_reason();
        bool nomem = why && strcmp(why, "outofmem") == 0;
        tf_error_set(err, nomem ? TF_ERR_NOMEM : TF_ERR_PARSE, "%s: %s (stb_image: %s)", path,
                     nomem ? "out of memory decoding the PNG" : "corrupt PNG data",
                     why ? why : "unknown");
        return -1;
    }
    if (io_decoded_alloc(path, h.width, h.height, want_zero, out, err) != 0) {
        stbi_image_free(pixels);
        return -1;
    }
    tf_layer_map *map = out->map;
    map->bits = wide ? 16 : 8;
    map->channels = channels;
    const bool alpha = channels == 2 || channels == 4;
    const double scale = 1.0 / (wide ? 65535.0 : 255.0);
    const size_t n = (size_t)h.width * h.height;
    const unsigned char *p8 = pixels;
    const unsigned short *p16 = pixels;
    for (size_t k = 0; k < n; k++) {
        size_t at = k * (size_t)channels;
        unsigned first = wide ? p16[at] : p8[at];
        /* Thesis 5.3: the R (or grey) sample is the height, alpha the
         * distance from 0.5: value = 0.5 + (R - 0.5) * A, weight = A. */
        double r = first * scale;
        double a = alpha ? (wide ? p16[at + channels - 1] : p8[at + channels - 1]) * scale : 1.0;
        if (channels >= 3 && !map->colour_ignored) {
            unsigned g = wide ? p16[at + 1] : p8[at + 1], b = wide ? p16[at + 2] : p8[at + 2];
            map->colour_ignored = g != first || b != first;
        }
        map->value[k] = a > 0.0 ? (float)(0.5 + (r - 0.5) * a) : 0.5f;
        map->weight[k] = (float)a;
        if (out->zero)
            out->zero[k] = first == 0;
    }
    stbi_image_free(pixels);
    return 0;
}
