/*
 * What the libFuzzer targets of tests/fuzz share (docs/fuzzing.md): input
 * bytes, scratch files, PNG CRCs, and reports of broken properties.
 */
#ifndef TF_FUZZ_H
#define TF_FUZZ_H

#include <stddef.h>
#include <stdint.h>

/* libFuzzer's entry point: one input, 0 always (a failure aborts). */
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* The input read from the front; past its end every byte reads as 0, so a
 * short input is a valid input with default choices. */
typedef struct {
    const uint8_t *p;
    size_t n;
} fuzz_bytes;

uint8_t fuzz_u8(fuzz_bytes *b);
uint16_t fuzz_u16(fuzz_bytes *b);

/* A directory of this process's own (under $TF_FUZZ_TMPDIR, else /dev/shm
 * when it exists, else $TMPDIR or /tmp), created on first use, emptied and
 * removed at a normal exit. */
const char *fuzz_scratch_dir(void);

/* `name` inside the scratch directory, in a static buffer per slot (0-3). */
const char *fuzz_scratch_path(int slot, const char *name);

/* Write `size` bytes to `path` (replacing it); a failure to write aborts:
 * it is the harness that broke, not the library. */
void fuzz_write_file(const char *path, const void *data, size_t size);

/* A copy of `size` bytes (malloc'd, never NULL) in which, when they start
 * with the PNG signature, every whole chunk's CRC is recomputed: the
 * reader refuses a chunk whose CRC is wrong before anything else looks at
 * it, so without this nearly every mutation inside a chunk is wasted. */
uint8_t *fuzz_png_with_crcs(const uint8_t *data, size_t size);

/* Report a broken property and abort, so libFuzzer saves the input. */
_Noreturn void fuzz_fail(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

#define FUZZ_CHECK(cond, ...)                                                                \
    do {                                                                                     \
        if (!(cond))                                                                         \
            fuzz_fail(__VA_ARGS__);                                                          \
    } while (0)

#endif /* TF_FUZZ_H */
