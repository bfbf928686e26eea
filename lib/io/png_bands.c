/*
 * PNG image data compressed on every core (docs/formats.md, "PNG
 * encoding"). The image's rows are cut into fixed bands; each band's rows
 * get PNG's Sub filter and are deflated on their own (raw deflate, ended by
 * a sync flush so the next band starts on a byte boundary), and the bands
 * are joined in order into one zlib stream, as pigz does: one header, the
 * bands, the Adler-32 of all of them (adler32_combine). libpng writes the
 * signature, IHDR, the IDAT chunks (one per band) and IEND. The band size
 * depends only on the row length, so the file has the same bytes whatever
 * the number of threads.
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
    pthread_mutex_t lock;
    pthread_cond_t changed;
    size_t next_band;    /* first band no thread has claimed */
    size_t written;      /* bands written so far */
    size_t ahead;        /* how far past `written` a band may be claimed */
    int stop;            /* a failure or the writer's abort: claim nothing */
    const char *failure; /* what failed in a worker, for the message */
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

static void *band_worker(void *arg)
{
    band_job *job = arg;
    unsigned char *raw = malloc(job->rows_per_band * (job->row_bytes + 1));
    pthread_mutex_lock(&job->lock);
    if (!raw) {
        job->stop = 1;
        job->failure = "out of memory";
        pthread_cond_broadcast(&job->changed);
    }
    for (;;) {
        while (!job->stop && job->next_band < job->band_count &&
               job->next_band >= job->written + job->ahead)
            pthread_cond_wait(&job->changed, &job->lock);
        if (job->stop || job->next_band >= job->band_count)
            break;
        size_t b = job->next_band++;
        job->bands[b].state = 1;
        pthread_mutex_unlock(&job->lock);
        int status = encode_band(job, b, raw);
        pthread_mutex_lock(&job->lock);
        job->bands[b].state = status == 0 ? 2 : -1;
        if (status != 0) {
            job->stop = 1;
            job->failure = "zlib could not compress a band (out of memory?)";
        }
        pthread_cond_broadcast(&job->changed);
    }
    pthread_mutex_unlock(&job->lock);
    free(raw);
    return NULL;
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

/* Wait for band b, then hand it to libpng as one IDAT chunk. -1 when a
 * worker failed (job->failure says why). */
static int write_band(band_job *job, png_structp png, size_t b, uLong *adler)
{
    pthread_mutex_lock(&job->lock);
    while (job->bands[b].state != 2 && !job->stop)
        pthread_cond_wait(&job->changed, &job->lock);
    int ready = job->bands[b].state == 2;
    pthread_mutex_unlock(&job->lock);
    if (!ready)
        return -1;
    band_out *o = &job->bands[b];
    *adler = adler32_combine(*adler, o->adler, (z_off_t)o->raw_bytes);
    if (b + 1 == job->band_count) { /* the zlib trailer, big-endian */
        unsigned char *t = o->data + o->length - 4;
        t[0] = (unsigned char)(*adler >> 24);
        t[1] = (unsigned char)(*adler >> 16);
        t[2] = (unsigned char)(*adler >> 8);
        t[3] = (unsigned char)*adler;
    }
    png_write_chunk(png, (png_const_bytep) "IDAT", o->data, o->length);
    free(o->data);
    o->data = NULL;
    pthread_mutex_lock(&job->lock);
    job->written = b + 1;
    pthread_cond_broadcast(&job->changed);
    pthread_mutex_unlock(&job->lock);
    return 0;
}

/* Everything the error path must reach after a longjmp lives here, not in
 * locals the jump could roll back. */
typedef struct {
    band_job job;
    band_sink sink;
    pthread_t *threads;
    unsigned thread_count; /* encoding threads asked for (1: this one) */
    unsigned started;
    unsigned char *raw; /* the single-thread path's band buffer */
} band_writer;

static void stop_workers(band_writer *w)
{
    pthread_mutex_lock(&w->job.lock);
    w->job.stop = 1;
    pthread_cond_broadcast(&w->job.changed);
    pthread_mutex_unlock(&w->job.lock);
    for (unsigned k = 0; k < w->started; k++)
        pthread_join(w->threads[k], NULL);
    w->started = 0;
}

static void free_writer(band_writer *w)
{
    for (size_t b = 0; b < w->job.band_count; b++)
        free(w->job.bands[b].data);
    free(w->job.bands);
    free(w->threads);
    free(w->raw);
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
    w->thread_count = threads < 1 ? 1u
                      : threads > job->band_count ? (unsigned)job->band_count
                                                  : threads;
    job->ahead = (size_t)w->thread_count * BANDS_AHEAD_PER_THREAD;
    job->bands = calloc(job->band_count, sizeof *job->bands);
    w->sink.stream = stream;
    png_structp png = job->bands ? png_create_write_struct(PNG_LIBPNG_VER_STRING, &w->sink,
                                                           on_error, on_warning)
                                 : NULL;
    png_infop info = png ? png_create_info_struct(png) : NULL;
    if (w->thread_count > 1)
        w->threads = calloc(w->thread_count, sizeof *w->threads);
    else
        w->raw = malloc(job->rows_per_band * (job->row_bytes + 1));
    if (!info || (w->thread_count > 1 ? !w->threads : !w->raw)) {
        png_destroy_write_struct(&png, NULL);
        free_writer(w);
        tf_error_set(err, TF_ERR_NOMEM, "%s: out of memory for the PNG encoder", path);
        return -1;
    }
    if (setjmp(png_jmpbuf(png))) {
        stop_workers(w);
        if (w->sink.write_errno)
            tf_error_set(err, TF_ERR_IO, "%s: cannot write file: %s", path,
                         strerror(w->sink.write_errno));
        else
            tf_error_set(err, TF_ERR_IO, "%s: cannot encode PNG: %s", path,
                         w->sink.libpng_message);
        png_destroy_write_struct(&png, &info);
        free_writer(w);
        return -1;
    }
    png_set_write_fn(png, &w->sink, sink_write, sink_flush);
    png_set_IHDR(png, info, (png_uint_32)nx, (png_uint_32)ny, bit_depth, PNG_COLOR_TYPE_GRAY,
                 PNG_INTERLACE_NONE, PNG_COMPRESSION_TYPE_DEFAULT, PNG_FILTER_TYPE_DEFAULT);
    png_write_info(png, info);

    for (unsigned k = 0; w->thread_count > 1 && k < w->thread_count; k++) {
        if (pthread_create(&w->threads[k], NULL, band_worker, job) != 0)
            break; /* fewer threads: the rest still get done */
        w->started++;
    }
    if (w->thread_count > 1 && w->started == 0) { /* no thread at all: encode here */
        w->raw = malloc(job->rows_per_band * (job->row_bytes + 1));
        if (!w->raw)
            job->failure = "out of memory";
    }
    uLong adler = adler32(0L, Z_NULL, 0);
    int status = job->failure ? -1 : 0;
    for (size_t b = 0; status == 0 && b < job->band_count; b++) {
        if (w->started == 0) { /* the single-thread path, band by band */
            if (encode_band(job, b, w->raw) != 0) {
                job->failure = "zlib could not compress a band (out of memory?)";
                status = -1;
                break;
            }
            job->bands[b].state = 2;
        }
        status = write_band(job, png, b, &adler);
    }
    stop_workers(w);
    if (status != 0) {
        tf_error_set(err, TF_ERR_NOMEM, "%s: cannot encode PNG: %s", path,
                     job->failure ? job->failure : "a band failed");
        png_destroy_write_struct(&png, &info);
        free_writer(w);
        return -1;
    }
    png_write_chunk(png, (png_const_bytep) "IEND", NULL, 0);
    png_destroy_write_struct(&png, &info);
    free_writer(w);
    return 0;
}
