/*
 * Check suite for the output side (lib/io, lib/render): quantization, every
 * heightmap format written and decoded back (stb_image for PNG, by hand for
 * PGM and R16), atomic files that leave nothing behind on failure, and the
 * threaded renderer against the runtime's grid call.
 */
#define _DEFAULT_SOURCE
#include <check.h>
#include <dirent.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

/* Debian's stb_image has a non-static function without a prototype. */
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmissing-prototypes"
#define STB_IMAGE_IMPLEMENTATION
#define STBI_ONLY_PNG
#include <stb_image.h>
#pragma GCC diagnostic pop

#include "terrafit/terrafit.h"
#include "testutil.h"

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

static size_t entries_in(const char *dir)
{
    DIR *d = opendir(dir);
    ck_assert_ptr_nonnull(d);
    size_t n = 0;
    struct dirent *e;
    while ((e = readdir(d)))
        if (strcmp(e->d_name, ".") != 0 && strcmp(e->d_name, "..") != 0)
            n++;
    closedir(d);
    return n;
}

/* A small height field over [-1, 1] with both range ends, a NaN and values
 * outside the range, so clamping and NaN handling are exercised. */
enum { NX = 37, NY = 23 };
static float heights[NX * NY];

static void fill_heights(void)
{
    for (size_t j = 0; j < NY; j++)
        for (size_t i = 0; i < NX; i++)
            heights[j * NX + i] = (float)sin(0.37 * (double)i + 0.11 * (double)(j * j));
    heights[0] = -1.0f;
    heights[1] = 1.0f;
    heights[2] = NAN;
    heights[3] = -7.0f;
    heights[4] = 9.0f;
}

START_TEST(quantize_rounds_clamps_and_maps_nan_to_zero)
{
    ck_assert_uint_eq(tf_quantize(-1.0, -1.0, 1.0, 65535), 0);
    ck_assert_uint_eq(tf_quantize(1.0, -1.0, 1.0, 65535), 65535);
    ck_assert_uint_eq(tf_quantize(0.0, -1.0, 1.0, 65535), 32768); /* 32767.5 rounds up */
    ck_assert_uint_eq(tf_quantize(0.0, -1.0, 1.0, 255), 128);
    ck_assert_uint_eq(tf_quantize(-3.0, -1.0, 1.0, 255), 0);
    ck_assert_uint_eq(tf_quantize(3.0, -1.0, 1.0, 255), 255);
    ck_assert_uint_eq(tf_quantize(NAN, -1.0, 1.0, 65535), 0);
    ck_assert_uint_eq(tf_quantize(INFINITY, -1.0, 1.0, 65535), 65535);
}
END_TEST

static void expect_quantized(const uint16_t *decoded, unsigned maxval)
{
    for (size_t k = 0; k < NX * NY; k++)
        ck_assert_msg(decoded[k] == tf_quantize(heights[k], -1.0, 1.0, maxval),
                      "pixel %zu: %u, want %u", k, decoded[k],
                      tf_quantize(heights[k], -1.0, 1.0, maxval));
}

START_TEST(png16_decodes_to_the_quantized_heights)
{
    const char *path = tu_path("%s/h.png", scratch);
    tf_error err;
    ck_assert_int_eq(tf_heightmap_write(path, TF_HEIGHTMAP_PNG16, heights, NX, NY, -1, 1, &err), 0);
    int w, h, channels;
    ck_assert(stbi_is_16_bit(path));
    stbi_us *pixels = stbi_load_16(path, &w, &h, &channels, 1);
    ck_assert_ptr_nonnull(pixels);
    ck_assert_int_eq(w, NX);
    ck_assert_int_eq(h, NY);
    ck_assert_int_eq(channels, 1);
    expect_quantized(pixels, 65535);
    stbi_image_free(pixels);
}
END_TEST

START_TEST(png8_decodes_to_the_quantized_heights)
{
    const char *path = tu_path("%s/h8.png", scratch);
    ck_assert_int_eq(tf_heightmap_write(path, TF_HEIGHTMAP_PNG8, heights, NX, NY, -1, 1, NULL), 0);
    int w, h, channels;
    ck_assert(!stbi_is_16_bit(path));
    stbi_uc *pixels = stbi_load(path, &w, &h, &channels, 1);
    ck_assert_ptr_nonnull(pixels);
    ck_assert_int_eq(w * 1000 + h, NX * 1000 + NY);
    uint16_t wide[NX * NY];
    for (size_t k = 0; k < NX * NY; k++)
        wide[k] = pixels[k];
    expect_quantized(wide, 255);
    stbi_image_free(pixels);
}
END_TEST

START_TEST(pgm16_and_r16_hold_the_same_samples)
{
    const char *pgm = tu_path("%s/h.pgm", scratch), *r16 = tu_path("%s/h.r16", scratch);
    ck_assert_int_eq(tf_heightmap_write(pgm, TF_HEIGHTMAP_PGM16, heights, NX, NY, -1, 1, NULL), 0);
    ck_assert_int_eq(tf_heightmap_write(r16, TF_HEIGHTMAP_R16, heights, NX, NY, -1, 1, NULL), 0);
    size_t pgm_len, raw_len;
    unsigned char *pgm_bytes = (unsigned char *)tu_read_file(pgm, &pgm_len);
    unsigned char *raw_bytes = (unsigned char *)tu_read_file(r16, &raw_len);
    ck_assert_uint_eq(raw_len, 2 * NX * NY); /* no header */
    char header[64];
    int header_len = snprintf(header, sizeof header, "P5\n%d %d\n65535\n", NX, NY);
    ck_assert_uint_eq(pgm_len, (size_t)header_len + 2 * NX * NY);
    ck_assert_mem_eq(pgm_bytes, header, (size_t)header_len);
    uint16_t from_pgm[NX * NY], from_raw[NX * NY];
    for (size_t k = 0; k < NX * NY; k++) {
        const unsigned char *big = pgm_bytes + header_len + 2 * k, *little = raw_bytes + 2 * k;
        from_pgm[k] = (uint16_t)(big[0] << 8 | big[1]);
        from_raw[k] = (uint16_t)(little[1] << 8 | little[0]);
    }
    expect_quantized(from_pgm, 65535);
    expect_quantized(from_raw, 65535);
    free(pgm_bytes);
    free(raw_bytes);
}
END_TEST

START_TEST(format_names_and_extensions)
{
    tf_heightmap_format f;
    for (int k = 0; k < TF_HEIGHTMAP_FORMAT_COUNT; k++) {
        ck_assert_int_eq(tf_heightmap_format_from_name(tf_heightmap_format_name(k), &f), 0);
        ck_assert_int_eq(f, k);
    }
    ck_assert_int_eq(tf_heightmap_format_from_name("tiff", &f), -1);
    ck_assert_ptr_null(tf_heightmap_format_name(TF_HEIGHTMAP_FORMAT_COUNT));
    ck_assert_int_eq(tf_heightmap_format_from_path("a/b.PNG", &f), 0);
    ck_assert_int_eq(f, TF_HEIGHTMAP_PNG16);
    ck_assert_int_eq(tf_heightmap_format_from_path("x.raw", &f), 0);
    ck_assert_int_eq(f, TF_HEIGHTMAP_R16);
    ck_assert_int_eq(tf_heightmap_format_from_path("x.pgm", &f), 0);
    ck_assert_int_eq(f, TF_HEIGHTMAP_PGM16);
    ck_assert_int_eq(tf_heightmap_format_from_path("x.dat", &f), -1);
    ck_assert_int_eq(tf_heightmap_format_from_path("dir.png/x", &f), -1);
}
END_TEST

START_TEST(bad_arguments_write_nothing)
{
    tf_error err;
    const char *path = tu_path("%s/never.png", scratch);
    ck_assert_int_eq(tf_heightmap_write(path, TF_HEIGHTMAP_PNG16, heights, 0, NY, -1, 1, &err), -1);
    ck_assert_ptr_nonnull(strstr(err.message, "no pixels"));
    ck_assert_int_eq(tf_heightmap_write(path, TF_HEIGHTMAP_PNG16, heights, NX, NY, 1, 1, &err), -1);
    ck_assert_ptr_nonnull(strstr(err.message, "low < high"));
    ck_assert_int_eq(tf_heightmap_write(path, TF_HEIGHTMAP_PNG16, heights, NX, NY, -1, NAN, &err),
                     -1);
    ck_assert_int_eq(
        tf_heightmap_write(path, TF_HEIGHTMAP_PNG16, heights, 70000, 1, -1, 1, &err), -1);
    ck_assert_int_eq(err.code, TF_ERR_LIMIT);
    ck_assert_int_eq(tf_heightmap_write(path, (tf_heightmap_format)9, heights, NX, NY, -1, 1, &err),
                     -1);
    const char *missing_dir = tu_path("%s/no/such/dir/x.png", scratch);
    ck_assert_int_eq(
        tf_heightmap_write(missing_dir, TF_HEIGHTMAP_PNG16, heights, NX, NY, -1, 1, &err), -1);
    ck_assert_int_eq(err.code, TF_ERR_IO);
    ck_assert_ptr_nonnull(strstr(err.message, "no/such/dir/x.png"));
    ck_assert_uint_eq(entries_in(scratch), 0);
}
END_TEST

START_TEST(atomic_files_appear_whole_or_not_at_all)
{
    const char *path = tu_path("%s/a.txt", scratch);
    tf_error err;
    tf_atomic_file *file = tf_atomic_open(path, &err);
    ck_assert_ptr_nonnull(file);
    fputs("partial", tf_atomic_stream(file));
    fflush(tf_atomic_stream(file));
    struct stat st;
    ck_assert_int_ne(stat(path, &st), 0); /* not visible before commit */
    ck_assert_uint_eq(entries_in(scratch), 1); /* only the temporary */
    tf_atomic_abort(file);
    ck_assert_uint_eq(entries_in(scratch), 0);

    ck_assert_int_eq(tf_write_file_atomic(path, "old", 3, &err), 0);
    ck_assert_int_eq(tf_write_file_atomic(path, "newer", 5, &err), 0);
    size_t len;
    char *text = tu_read_file(path, &len);
    ck_assert_str_eq(text, "newer");
    free(text);
    ck_assert_uint_eq(entries_in(scratch), 1);

    ck_assert_ptr_null(tf_atomic_open(tu_path("%s/", scratch), &err));
    ck_assert_ptr_nonnull(strstr(err.message, "directory"));
    /* Never rename over something that is not a regular file. */
    ck_assert_ptr_null(tf_atomic_open(scratch, &err));
    ck_assert_ptr_nonnull(strstr(err.message, "not a regular file"));
    ck_assert_ptr_null(tf_atomic_open("/dev/null", &err));
    ck_assert_ptr_nonnull(strstr(err.message, "/dev/null: exists and is not a regular file"));
    struct stat null_device;
    ck_assert_int_eq(stat("/dev/null", &null_device), 0);
    ck_assert(S_ISCHR(null_device.st_mode));
    ck_assert_ptr_null(tf_atomic_open(tu_path("%s/", scratch), &err));
    ck_assert_ptr_nonnull(strstr(err.message, "directory"));
    ck_assert_ptr_null(tf_atomic_open("", &err));
}
END_TEST

/* tf_atomic_check answers what tf_atomic_open would, with its messages,
 * and creates nothing. */
START_TEST(atomic_check_asks_without_creating)
{
    tf_error err;
    ck_assert_int_eq(tf_atomic_check(tu_path("%s/new.txt", scratch), &err), 0);
    ck_assert_uint_eq(entries_in(scratch), 0);
    const char *existing = tu_path("%s/old.txt", scratch);
    ck_assert_int_eq(tf_write_file_atomic(existing, "old", 3, &err), 0);
    ck_assert_int_eq(tf_atomic_check(existing, &err), 0); /* a regular file may be replaced */

    ck_assert_int_eq(tf_atomic_check("", &err), -1);
    ck_assert_int_eq(err.code, TF_ERR_ARGUMENT);
    ck_assert_int_eq(tf_atomic_check(NULL, &err), -1);
    ck_assert_int_eq(tf_atomic_check(tu_path("%s/", scratch), &err), -1);
    ck_assert_ptr_nonnull(strstr(err.message, "names a directory, not a file"));
    ck_assert_int_eq(tf_atomic_check(scratch, &err), -1);
    ck_assert_ptr_nonnull(strstr(err.message, "exists and is not a regular file"));
    ck_assert_int_eq(tf_atomic_check("/dev/null", &err), -1);
    ck_assert_int_eq(err.code, TF_ERR_ARGUMENT);

    const char *missing = tu_path("%s/no/such/dir/x.png", scratch);
    ck_assert_int_eq(tf_atomic_check(missing, &err), -1);
    ck_assert_int_eq(err.code, TF_ERR_IO);
    ck_assert_ptr_nonnull(strstr(err.message, "no/such/dir/x.png: cannot create file"));
    ck_assert_ptr_null(tf_atomic_open(missing, &err)); /* the writer agrees */
    ck_assert_ptr_nonnull(strstr(err.message, "no/such/dir/x.png: cannot create file"));
    ck_assert_int_eq(tf_atomic_check(tu_path("%s/old.txt/x", scratch), &err), -1);
    ck_assert_ptr_nonnull(strstr(err.message, "cannot create file"));

    /* A folder that takes no new names (root may write anywhere). */
    const char *locked = tu_path("%s/locked", scratch);
    ck_assert_int_eq(mkdir(locked, 0500), 0);
    const char *inside = tu_path("%s/locked/x.txt", scratch);
    if (geteuid() != 0) {
        ck_assert_int_eq(tf_atomic_check(inside, &err), -1);
        ck_assert_ptr_nonnull(strstr(err.message, "cannot create file"));
    }
    ck_assert_int_eq(rmdir(locked), 0);
    ck_assert_int_eq(unlink(existing), 0);
    ck_assert_uint_eq(entries_in(scratch), 0);
}
END_TEST

/* An atomic file holding `text`, opened in the scratch folder as `name`. */
static tf_atomic_file *open_with(const char *name, const char *text)
{
    tf_error err;
    tf_atomic_file *file = tf_atomic_open(tu_path("%s/%s", scratch, name), &err);
    ck_assert_msg(file != NULL, "%s", err.message);
    ck_assert_int_ge(fputs(text, tf_atomic_stream(file)), 0);
    return file;
}

/* The outputs of one job appear together or not at all: a write that
 * fails (the stream's error flag) or a rename that fails (a directory
 * took the name) leaves no output and no temporary, whichever file it
 * was; NULL entries are outputs not asked for. */
START_TEST(atomic_outputs_are_committed_together)
{
    tf_error err;
    tf_atomic_file *files[3] = {open_with("a.txt", "A"), NULL, open_with("b.txt", "B")};
    ck_assert_int_eq(tf_atomic_commit_all(files, 3, &err), 0);
    ck_assert(!files[0] && !files[2]);
    ck_assert_uint_eq(entries_in(scratch), 2);
    size_t len;
    char *text = tu_read_file(tu_path("%s/b.txt", scratch), &len);
    ck_assert_str_eq(text, "B");
    free(text);

    /* the second file's data cannot be written: nothing is renamed, and
     * the first target keeps its old contents */
    for (int bad = 0; bad < 2; bad++) {
        files[0] = open_with("a.txt", "new A");
        files[1] = open_with("c.txt", "C");
        files[2] = NULL;
        (void)fgetc(tf_atomic_stream(files[bad])); /* a read on a write-only stream */
        ck_assert(ferror(tf_atomic_stream(files[bad])));
        ck_assert_int_eq(tf_atomic_commit_all(files, 3, &err), -1);
        /* the flag was set before the commit, which has no errno to give */
        ck_assert_ptr_nonnull(
            strstr(err.message, bad ? "c.txt: cannot write file: a write failed"
                                    : "a.txt: cannot write file: a write failed"));
        ck_assert(!files[0] && !files[1]);
        ck_assert_uint_eq(entries_in(scratch), 2);
        text = tu_read_file(tu_path("%s/a.txt", scratch), &len);
        ck_assert_str_eq(text, "A");
        free(text);
    }

    /* the last rename fails: the first, already in place, is removed */
    files[0] = open_with("c.txt", "C");
    files[1] = open_with("d.txt", "D");
    ck_assert_int_eq(mkdir(tu_path("%s/d.txt", scratch), 0700), 0);
    ck_assert_int_eq(tf_atomic_commit_all(files, 2, &err), -1);
    ck_assert_ptr_nonnull(strstr(err.message, "d.txt: cannot replace file"));
    ck_assert_int_eq(access(tu_path("%s/c.txt", scratch), F_OK), -1);
    ck_assert_uint_eq(entries_in(scratch), 3); /* a.txt, b.txt and the directory */
    ck_assert_int_eq(rmdir(tu_path("%s/d.txt", scratch)), 0);

    /* nothing to commit */
    files[0] = files[1] = NULL;
    ck_assert_int_eq(tf_atomic_commit_all(files, 2, &err), -1);
    ck_assert_int_eq(tf_atomic_commit_all(NULL, 0, &err), -1);
    ck_assert_int_eq(tf_atomic_commit(NULL, &err), -1);
}
END_TEST

/* ---- temporaries and fatal signals: each case in a child process, which
 * opens an atomic file and signals itself */

static void handler_removing_temporaries(int sig)
{
    (void)sig;
    tf_atomic_remove_temporaries();
    _exit(3);
}

/* In a child: open an atomic file in the scratch folder, write to it, raise
 * SIGTERM with the disposition `before` (SIG_DFL, SIG_IGN or a handler) set
 * first, then commit. The child's wait status. */
static int child_raising_sigterm(void (*before)(int))
{
    fflush(NULL);
    pid_t pid = fork();
    ck_assert_int_ge(pid, 0);
    if (pid == 0) {
        signal(SIGTERM, before);
        tf_error err;
        tf_atomic_file *file = tf_atomic_open(tu_path("%s/out.txt", scratch), &err);
        if (!file || fputs("partial", tf_atomic_stream(file)) < 0 ||
            fflush(tf_atomic_stream(file)) != 0 || entries_in(scratch) != 1)
            _exit(2);
        raise(SIGTERM);
        _exit(tf_atomic_commit(file, &err) == 0 ? 0 : 4);
    }
    int status;
    ck_assert_int_eq(waitpid(pid, &status, 0), pid);
    return status;
}

START_TEST(fatal_signals_remove_live_temporaries)
{
    /* The default action: the library's handler removes the temporary and
     * the process still dies of the signal. */
    int status = child_raising_sigterm(SIG_DFL);
    ck_assert_msg(WIFSIGNALED(status) && WTERMSIG(status) == SIGTERM, "status %#x", status);
    ck_assert_uint_eq(entries_in(scratch), 0);

    /* A program's own handler is kept, and can remove the temporaries. */
    status = child_raising_sigterm(handler_removing_temporaries);
    ck_assert_msg(WIFEXITED(status) && WEXITSTATUS(status) == 3, "status %#x", status);
    ck_assert_uint_eq(entries_in(scratch), 0);

    /* An ignored signal stays ignored: the write goes on and commits. */
    status = child_raising_sigterm(SIG_IGN);
    ck_assert_msg(WIFEXITED(status) && WEXITSTATUS(status) == 0, "status %#x", status);
    size_t len;
    char *text = tu_read_file(tu_path("%s/out.txt", scratch), &len);
    ck_assert_ptr_nonnull(text);
    ck_assert_str_eq(text, "partial");
    free(text);
    ck_assert_uint_eq(entries_in(scratch), 1);
}
END_TEST

static const char *const THREE_LAYERS =
    "{\"format\":\"terrafit-terrain\",\"version\":1,\"seed\":3,\"noiseLayers\":["
    "{\"baseNoise\":{\"frequency\":0.02},\"rd\":{\"points\":[{\"x\":0.2,\"y\":0},{\"x\":0.5,"
    "\"y\":0.3},{\"x\":0.8,\"y\":1}]},\"preAmpShift\":-0.5},"
    "{\"baseNoise\":{\"frequency\":0.11},\"rd\":{\"points\":[{\"x\":0.3,\"y\":0},{\"x\":0.7,"
    "\"y\":1}]},\"preAmpShift\":-0.5,\"ampScale\":0.2,\"maskLayerIndex\":0,"
    "\"maskMinValue\":0.5,\"maskMaxValue\":1}]}";

static size_t progress_calls, progress_last_done, progress_last_total;
static void count_progress(void *user, size_t done, size_t total)
{
    (void)user;
    ck_assert_uint_le(done, total);
    ck_assert_uint_ge(done, progress_last_done);
    progress_calls++;
    progress_last_done = done;
    progress_last_total = total;
}

START_TEST(threaded_render_equals_the_grid_call)
{
    tf_error err;
    tf_terrain *t = tf_terrain_parse(THREE_LAYERS, strlen(THREE_LAYERS), &err);
    ck_assert_msg(t != NULL, "%s", err.message);
    size_t nx = 131, ny = 77;
    float *want = malloc(nx * ny * sizeof *want), *got = malloc(nx * ny * sizeof *got);
    tf_terrain_sample_grid(t, -50.25, 1e5, 0.75, nx, ny, want);
    for (unsigned threads = 0; threads <= 5; threads++) {
        memset(got, 0xFF, nx * ny * sizeof *got);
        progress_calls = progress_last_done = progress_last_total = 0;
        ck_assert_int_eq(tf_render_grid(t, -50.25, 1e5, 0.75, nx, ny, threads, got,
                                        count_progress, NULL, &err),
                         0);
        ck_assert_mem_eq(got, want, nx * ny * sizeof *got);
        ck_assert_uint_ge(progress_calls, 1);
        ck_assert_uint_eq(progress_last_done, ny);
        ck_assert_uint_eq(progress_last_total, ny);
    }
    ck_assert_uint_ge(tf_cpu_count(), 1);
    free(want);
    free(got);
    tf_terrain_free(t);
}
END_TEST

START_TEST(preview_is_an_rgb_png_of_the_same_size)
{
    const char *path = tu_path("%s/p.png", scratch);
    tf_error err;
    ck_assert_int_eq(tf_preview_write(path, heights, NX, NY, -1, 1, 0.0, &err), 0);
    int w, h, channels;
    stbi_uc *pixels = stbi_load(path, &w, &h, &channels, 0);
    ck_assert_ptr_nonnull(pixels);
    ck_assert_int_eq(w, NX);
    ck_assert_int_eq(h, NY);
    ck_assert_int_eq(channels, 3);
    /* Shaded relief is not flat: the pixels differ. */
    int differ = 0;
    for (int k = 1; k < w * h; k++)
        differ |= memcmp(pixels, pixels + 3 * k, 3) != 0;
    ck_assert(differ);
    stbi_image_free(pixels);
}
END_TEST

START_TEST(pair_preview_puts_two_maps_side_by_side)
{
    const char *single = tu_path("%s/one.png", scratch), *pair = tu_path("%s/two.png", scratch);
    float flipped[NX * NY];
    for (size_t k = 0; k < NX * NY; k++)
        flipped[k] = -heights[k];
    tf_error err;
    ck_assert_int_eq(tf_preview_write(single, heights, NX, NY, -1, 1, 3.0, &err), 0);
    ck_assert_int_eq(tf_preview_write_pair(pair, heights, flipped, NX, NY, -1, 1, 3.0, &err), 0);
    int w1, h1, c1, w2, h2, c2;
    stbi_uc *one = stbi_load(single, &w1, &h1, &c1, 3);
    stbi_uc *two = stbi_load(pair, &w2, &h2, &c2, 3);
    ck_assert_ptr_nonnull(one);
    ck_assert_ptr_nonnull(two);
    ck_assert_int_eq(w2, 2 * NX + TF_PREVIEW_PAIR_GAP);
    ck_assert_int_eq(h2, NY);
    for (int j = 0; j < NY; j++) {
        /* The left half is the single preview; the gap is white. */
        ck_assert_mem_eq(two + 3 * j * w2, one + 3 * j * w1, 3 * NX);
        for (int i = NX; i < NX + TF_PREVIEW_PAIR_GAP; i++)
            ck_assert_uint_eq(two[3 * (j * w2 + i)], 255);
    }
    /* The right half shows the other map. */
    ck_assert(memcmp(two + 3 * (NX + TF_PREVIEW_PAIR_GAP), one, 3 * NX) != 0);
    ck_assert_int_eq(tf_preview_write_pair(pair, heights, NULL, NX, NY, -1, 1, 3.0, &err), -1);
    stbi_image_free(one);
    stbi_image_free(two);
}
END_TEST

int main(void)
{
    fill_heights();
    Suite *s = suite_create("io");
    TCase *files = tcase_create("heightmap files");
    tcase_add_checked_fixture(files, make_scratch, remove_scratch);
    tcase_add_test(files, quantize_rounds_clamps_and_maps_nan_to_zero);
    tcase_add_test(files, png16_decodes_to_the_quantized_heights);
    tcase_add_test(files, png8_decodes_to_the_quantized_heights);
    tcase_add_test(files, pgm16_and_r16_hold_the_same_samples);
    tcase_add_test(files, format_names_and_extensions);
    tcase_add_test(files, bad_arguments_write_nothing);
    tcase_add_test(files, atomic_files_appear_whole_or_not_at_all);
    tcase_add_test(files, atomic_check_asks_without_creating);
    tcase_add_test(files, atomic_outputs_are_committed_together);
    tcase_add_test(files, fatal_signals_remove_live_temporaries);
    tcase_add_test(files, preview_is_an_rgb_png_of_the_same_size);
    tcase_add_test(files, pair_preview_puts_two_maps_side_by_side);
    suite_add_tcase(s, files);
    TCase *render = tcase_create("render");
    tcase_add_test(render, threaded_render_equals_the_grid_call);
    suite_add_tcase(s, render);
    /* The signal test needs a process that has not opened an atomic file
     * yet (the library installs its handlers once a process). */
    return tu_run_suite_forked(s);
}
