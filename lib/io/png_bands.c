/*
 * PNG image data compressed on every core (docs/formats.md, "PNG
 * encoding"). The image's rows are cut into fixed bands; each band's rows
 * get PNG's Sub filter and are deflated on their own (raw deflate, ended by
 * a sync flush so the next band starts on a byte boundary), and the bands
 * are joined in order into one zlib stream, as pigz does: one header, the
 * bands, the Adler-32 of all of them (adler32_combine). libpng writes the
 * signature, IHDR, the IDAT chunks (one per band) and IEND. The band size
 * depends only on the row length, so the file has the same bytes whatever
 * the number of threads. Worker threads claim the bands in order
 * (tf_parallel_claim) and stay at most a few bands ahead of the calling
 * thread, which hands each finished band to libpng in order.
 */
#include <errno.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <png.h>
#include <zlib.h>

#include "png_bands.h"
#include "base/error.h"
#include "util/util.h"

/* Uncompressed bytes per band, at least one row: large enough that the
 * 5 bytes of each sync flush and the 12 of each IDAT header do not matter,
 * small enough that many bands keep every core busy. */
#define BAND_BYTES (1u << 20)
/* Bands encoded ahead of the one being written, per thread: bounds the
 * memory held by finished bands waiting for their turn. */
#define BANDS_AHEAD_PER_THREAD 4
/* zlib settings: after the Sub filter, a smooth 16-bit height's high
 * bytes are runs of small values and its low bytes close to noise, so
 * run-length matching (Z_RLE) at level 1 compresses as well as level 6's
 * full match search in a fifth of the time (docs/performance.md). */
#define PNG_DEFLATE_LEVEL 1
#define PNG_DEFLATE_STRATEGY Z_RLE
/* The zlib header for a 32 KiB window and the "fastest" level:
 * 0x7801 is a multiple of 31, as RFC 1950 asks. */
static const unsigned char ZLIB_HEADER[2] = {0x78, 0x01};

typedef struct {
    unsigned char *data; /* compressed band (band 0 starts with the header) */
    size_t length;
    uLong adler;      /* Adler-32 of the band's filtered bytes */
    size_t raw_bytes; /* their count */
    int state;        /* 0 waiting, 1 being encoded, 2 done, -1 failed */
} band_out;

typedef struct {
    size_t nx, ny, row_bytes, bytes_per_pixel, rows_per_band, band_count;
    int bit_depth;
    tf_png_row_fn row_fn;
    void *user;
    band_out *bands;
    /* The lock guards the band states, the spare buffers, `written` and
     * `stop`; `changed` wakes an encoder waiting for its turn. */
    pthread_mutex_t lock;
    pthread_cond_t changed;
    unsigned char **spare; /* filter buffers not in use (never more than encoders) */
    size_t spare_count, spare_capacity;
    size_t written;      /* bands written so far */
    size_t ahead;        /* how far past `written` a band may be encoded */
    int stop;            /* a failure or the writer's abort: encode nothing more */
    const char *failure; /* what failed in an encoder, for the message */
} band_job;

/* Rows [first, end) of band b, Sub-filtered: each row is its filter type
 * byte (1) and the row's bytes minus those one pixel to the left. */
static void filter_rows(const band_job *job, size_t first, size_t end, unsigned char *raw)
{
    size_t stride = job->row_bytes + 1, bpp = job->bytes_per_pixel;
    for (size_t j = first; j < end; j++) {
        unsigned char *row = raw + (j - first) * stride;
        row[0] = 1; /* PNG filter type 1, Sub */
        job->row_fn(job->user, j, row + 1);
        for (size_t i = job->row_bytes; i-- > bpp;)
            row[1 + i] = (unsigned char)(row[1 + i] - row[1 + i - bpp]);
    }
}

/* Band b: filter, deflate, checksum. 0, or -1 with job->failure set (under
 * the lock by the caller). */
static int encode_band(band_job *job, size_t b, unsigned char *raw)
{
    size_t first = b * job->rows_per_band;
    size_t end = first + job->rows_per_band < job->ny ? first + job->rows_per_band : job->ny;
    size_t raw_bytes = (end - first) * (job->row_bytes + 1);
    int last = b + 1 == job->band_count;
    filter_rows(job, first, end, raw);

    z_stream z;
    memset(&z, 0, sizeof z);
    if (deflateInit2(&z, PNG_DEFLATE_LEVEL, Z_DEFLATED, -15, 8, PNG_DEFLATE_STRATEGY) != Z_OK)
        return -1;
    /* Room for the header, the band, the flush or final block, and the
     * trailer of the last band (filled in by the writer). */
    size_t head = b == 0 ? sizeof ZLIB_HEADER : 0, tail = last ? 4 : 0;
    size_t capacity = head + deflateBound(&z, (uLong)raw_bytes) + 16 + tail;
    unsigned char *out = malloc(capacity);
    if (!out) {
        deflateEnd(&z);
        return -1;
    }
    memcpy(out, ZLIB_HEADER, head);
    z.next_in = raw;
    z.avail_in = (uInt)raw_bytes;
    z.next_out = out + head;
    z.avail_out = (uInt)(capacity - head - tail);
    int status = deflate(&z, last ? Z_FINISH : Z_SYNC_FLUSH);
    int complete = last ? status == Z_STREAM_END : status == Z_OK && z.avail_in == 0 &&
                                                       z.avail_out > 0;
    size_t length = head + z.total_out;
    deflateEnd(&z);
    if (!complete) { /* the bound is zlib's own: this does not happen */
        free(out);
        return -1;
    }
    band_out *o = &job->bands[b];
    o->data = out;
    o->length = length + tail;
    o->adler = adler32(adler32(0L, Z_NULL, 0), raw, (uInt)raw_bytes);
    o->raw_bytes = raw_bytes;
    return 0;
}

/* Bands [lo, hi) (tf_parallel_claim hands out one at a time): wait until
 * the band is within `ahead` of the writer, which bounds the memory held
 * by finished bands; take a filter buffer; encode. Nothing once stopped,
 * so a failure ends the work quickly. */
static void encode_range(void *arg, size_t lo, size_t hi)
{
    band_job *job = arg;
    for (size_t b = lo; b < hi; b++) {
        pthread_mutex_lock(&job->lock);
        while (!job->stop && b >= job->written + job->ahead)
            pthread_cond_wait(&job->changed, &job->lock);
        if (job->stop) {
            pthread_mutex_unlock(&job->lock);
            return;
        }
        unsigned char *raw = job->spare_count ? job->spare[--job->spare_count] : NULL;
        job->bands[b].state = 1;
        pthread_mutex_unlock(&job->lock);
        if (!raw)
            raw = malloc(job->rows_per_band * (job->row_bytes + 1));
        int status = raw ? encode_band(job, b, raw) : -1;
        pthread_mutex_lock(&job->lock);
        job->bands[b].state = status == 0 ? 2 : -1;
        if (status != 0) {
            job->stop = 1;
            job->failure =
                raw ? "zlib could not compress a band (out of memory?)" : "out of memory";
        }
        if (raw && job->spare_count < job->spare_capacity)
            job->spare[job->spare_count++] = raw;
        else
            free(raw);
        pthread_cond_broadcast(&job->changed);
        pthread_mutex_unlock(&job->lock);
    }
}

/* libpng's output and errors, as heightmap_write.c's PNG sink. */
typedef struct {
    FILE *stream;
    int write_errno;
    char libpng_message[96];
} band_sink;

static void sink_write(png_structp png, png_bytep data, size_t length)
{
    band_sink *sink = png_get_io_ptr(png);
    if (fwrite(data, 1, length, sink->stream) != length) {
        sink->write_errno = errno ? errno : EIO;
        png_error(png, "write failed");
    }
}

static void sink_flush(png_structp png)
{
    (void)png;
}

static void on_error(png_structp png, png_const_charp message)
{
    band_sink *sink = png_get_error_ptr(png);
    snprintf(sink->libpng_message, sizeof sink->libpng_message, "%s", message);
    png_longjmp(png, 1);
}

static void on_warning(png_structp png, png_const_charp message)
{
    (void)png;
    (void)message;
}

/* Everything libpng's error path must reach lives here, not in locals a
 * longjmp could roll back. */
typedef struct {
    band_job job;
    band_sink sink;
    png_structp png;
    png_infop info;
    uLong adler;    /* of the bands written so far */
    int png_failed; /* libpng failed: the sink says why */
} band_writer;

/* One libpng step under its own setjmp: an error returns -1 here instead
 * of jumping across tf_parallel_claim's frames (the watch writes bands). */
static int png_guarded(band_writer *w, void (*step)(band_writer *, size_t), size_t arg)
{
    if (setjmp(png_jmpbuf(w->png)))
        return -1;
    step(w, arg);
    return 0;
}

static void write_header(band_writer *w, size_t unused)
{
    (void)unused;
    band_job *job = &w->job;
    png_set_write_fn(w->png, &w->sink, sink_write, sink_flush);
    png_set_IHDR(w->png, w->info, (png_uint_32)job->nx, (png_uint_32)job->ny, job->bit_depth,
                 PNG_COLOR_TYPE_GRAY, PNG_INTERLACE_NONE, PNG_COMPRESSION_TYPE_DEFAULT,
                 PNG_FILTER_TYPE_DEFAULT);
    png_write_info(w->png, w->info);
}

/* Band b (finished) as one IDAT chunk; the last one gets the zlib trailer. */
static void write_idat(band_writer *w, size_t b)
{
    band_job *job = &w->job;
    band_out *o = &job->bands[b];
    w->adler = adler32_combine(w->adler, o->adler, (z_off_t)o->raw_bytes);
    if (b + 1 == job->band_count) { /* the zlib trailer, big-endian */
        unsigned char *t = o->data + o->length - 4;
        t[0] = (unsigned char)(w->adler >> 24);
        t[1] = (unsigned char)(w->adler >> 16);
        t[2] = (unsigned char)(w->adler >> 8);
        t[3] = (unsigned char)w->adler;
    }
    png_write_chunk(w->png, (png_const_bytep) "IDAT", o->data, o->length);
    free(o->data);
    o->data = NULL;
}

static void write_end(band_writer *w, size_t unused)
{
    (void)unused;
    png_write_chunk(w->png, (png_const_bytep) "IEND", NULL, 0);
}

/* The calling thread's watch: every band finished next in order goes to
 * libpng, and encoders waiting for their turn are woken. */
static void write_finished(void *arg)
{
    band_writer *w = arg;
    band_job *job = &w->job;
    for (;;) {
        pthread_mutex_lock(&job->lock);
        size_t b = job->written;
        int ready = !w->png_failed && b < job->band_count && job->bands[b].state == 2;
        pthread_mutex_unlock(&job->lock);
        if (!ready)
            return;
        int ok = png_guarded(w, write_idat, b) == 0;
        pthread_mutex_lock(&job->lock);
        if (ok)
            job->written = b + 1;
        else
            w->png_failed = job->stop = 1;
        pthread_cond_broadcast(&job->changed);
        pthread_mutex_unlock(&job->lock);
    }
}

static void free_writer(band_writer *w)
{
    for (size_t b = 0; b < w->job.band_count; b++)
        free(w->job.bands[b].data);
    free(w->job.bands);
    for (size_t k = 0; k < w->job.spare_count; k++)
        free(w->job.spare[k]);
    free(w->job.spare);
    pthread_cond_destroy(&w->job.changed);
    pthread_mutex_destroy(&w->job.lock);
    free(w);
}

size_t tf_png_rows_per_band(size_t nx, int bit_depth)
{
    size_t stride = nx * (size_t)(bit_depth / 8) + 1;
    return stride >= BAND_BYTES ? 1 : BAND_BYTES / stride;
}

int tf_png_write_bands(FILE *stream, const char *path, size_t nx, size_t ny, int bit_depth,
                       tf_png_row_fn row_fn, void *user, unsigned threads, tf_error *err)
{
    if (nx == 0 || ny == 0 || nx > PNG_UINT_31_MAX || ny > PNG_UINT_31_MAX ||
        (bit_depth != 8 && bit_depth != 16)) {
        tf_error_set(err, TF_ERR_ARGUMENT, "%s: cannot write a %zux%zu PNG of %d bits", path, nx,
                     ny, bit_depth);
        return -1;
    }
    band_writer *w = calloc(1, sizeof *w);
    if (!w) {
        tf_error_set(err, TF_ERR_NOMEM, "%s: out of memory for the PNG encoder", path);
        return -1;
    }
    band_job *job = &w->job;
    pthread_mutex_init(&job->lock, NULL);
    pthread_cond_init(&job->changed, NULL);
    job->nx = nx;
    job->ny = ny;
    job->bit_depth = bit_depth;
    job->bytes_per_pixel = (size_t)(bit_depth / 8);
    job->row_bytes = nx * job->bytes_per_pixel;
    job->rows_per_band = tf_png_rows_per_band(nx, bit_depth);
    job->band_count = (ny + job->rows_per_band - 1) / job->rows_per_band;
    job->row_fn = row_fn;
    job->user = user;
    unsigned thread_count = threads < 1                  ? 1u
                            : threads > job->band_count ? (unsigned)job->band_count
                                                         : threads;
    job->ahead = (size_t)thread_count * BANDS_AHEAD_PER_THREAD;
    job->bands = calloc(job->band_count, sizeof *job->bands);
    job->spare_capacity = thread_count;
    job->spare = calloc(thread_count, sizeof *job->spare);
    w->adler = adler32(0L, Z_NULL, 0);
    w->sink.stream = stream;
    w->png = job->bands && job->spare ? png_create_write_struct(PNG_LIBPNG_VER_STRING, &w->sink,
                                                                on_error, on_warning)
                                      : NULL;
    w->info = w->png ? png_create_info_struct(w->png) : NULL;
    if (!w->info) {
        png_destroy_write_struct(&w->png, NULL);
        free_writer(w);
        tf_error_set(err, TF_ERR_NOMEM, "%s: out of memory for the PNG encoder", path);
        return -1;
    }

    /* More than one thread: that many encoders while this thread writes;
     * one: this thread encodes each band, then writes it. */
    int status = -1;
    if (png_guarded(w, write_header, 0) != 0) {
        w->png_failed = 1;
    } else {
        tf_parallel_watch watch = {write_finished, w, 0.0, thread_count > 1};
        tf_parallel_claim(job->band_count, 1, thread_count, encode_range, job, &watch);
        if (job->written == job->band_count) {
            if (png_guarded(w, write_end, 0) == 0)
                status = 0;
            else
                w->png_failed = 1;
        }
    }
    if (status != 0) {
        if (w->png_failed && w->sink.write_errno)
            tf_error_set_write(err, path, w->sink.write_errno);
        else if (w->png_failed)
            tf_error_set(err, TF_ERR_IO, "%s: cannot encode PNG: %s", path,
                         w->sink.libpng_message);
        else
            tf_error_set(err, TF_ERR_NOMEM, "%s: cannot encode PNG: %s", path,
                         job->failure ? job->failure : "a band failed");
    }
    png_destroy_write_struct(&w->png, &w->info);
    free_writer(w);
    return status;
}
