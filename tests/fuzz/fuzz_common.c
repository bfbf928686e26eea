/*
 * The harness helpers of fuzz.h: input bytes, PNG CRCs, the per-process
 * scratch directory (fuzzers run side by side) and failure reports.
 */
#define _POSIX_C_SOURCE 200809L
#include <dirent.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <zlib.h>

#include "fuzz.h"

uint8_t fuzz_u8(fuzz_bytes *b)
{
    if (b->n == 0)
        return 0;
    b->n--;
    return *b->p++;
}

uint16_t fuzz_u16(fuzz_bytes *b)
{
    uint16_t lo = fuzz_u8(b);
    return (uint16_t)(lo | (uint16_t)fuzz_u8(b) << 8);
}

void fuzz_fail(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fputs("fuzz property broken: ", stderr);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
    abort();
}

static char scratch[512];

static void remove_scratch(void)
{
    DIR *dir = opendir(scratch);
    if (dir) {
        char path[1024];
        for (struct dirent *e; (e = readdir(dir)) != NULL;) {
            if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
                continue;
            snprintf(path, sizeof path, "%s/%s", scratch, e->d_name);
            unlink(path);
        }
        closedir(dir);
    }
    rmdir(scratch);
}

const char *fuzz_scratch_dir(void)
{
    if (scratch[0])
        return scratch;
    /* Memory-backed when possible: every input is written and read back. */
    const char *base = getenv("TF_FUZZ_TMPDIR");
    struct stat st;
    if (!base || !*base)
        base = stat("/dev/shm", &st) == 0 && S_ISDIR(st.st_mode) ? "/dev/shm" : getenv("TMPDIR");
    if (!base || !*base)
        base = "/tmp";
    snprintf(scratch, sizeof scratch, "%s/terrafit-fuzz.XXXXXX", base);
    if (!mkdtemp(scratch))
        fuzz_fail("cannot create a scratch directory under %s", base);
    atexit(remove_scratch);
    return scratch;
}

const char *fuzz_scratch_path(int slot, const char *name)
{
    static char paths[4][600];
    snprintf(paths[slot & 3], sizeof paths[0], "%s/%s", fuzz_scratch_dir(), name);
    return paths[slot & 3];
}

uint8_t *fuzz_png_with_crcs(const uint8_t *data, size_t size)
{
    static const uint8_t signature[8] = {0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n'};
    uint8_t *copy = malloc(size ? size : 1);
    if (!copy)
        fuzz_fail("out of memory copying %zu bytes", size);
    if (size)
        memcpy(copy, data, size);
    if (size < 8 || memcmp(copy, signature, 8) != 0)
        return copy;
    /* Chunks: length (4, big-endian), type (4), data, CRC of type + data. */
    for (size_t at = 8; size - at >= 12;) {
        uint32_t len = (uint32_t)copy[at] << 24 | (uint32_t)copy[at + 1] << 16 |
                       (uint32_t)copy[at + 2] << 8 | copy[at + 3];
        if (len > size - at - 12)
            break;
        uLong crc = crc32(0L, copy + at + 4, (uInt)len + 4);
        uint8_t *c = copy + at + 8 + len;
        c[0] = (uint8_t)(crc >> 24);
        c[1] = (uint8_t)(crc >> 16);
        c[2] = (uint8_t)(crc >> 8);
        c[3] = (uint8_t)crc;
        at += 12 + (size_t)len;
    }
    return copy;
}

void fuzz_write_file(const char *path, const void *data, size_t size)
{
    FILE *f = fopen(path, "wb");
    if (!f || (size > 0 && fwrite(data, 1, size, f) != size) || fclose(f) != 0)
        fuzz_fail("cannot write the scratch file %s", path);
}
