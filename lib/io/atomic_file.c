/*
 * Atomic file writing: bytes go to a temporary file beside the target, which
 * is synced and renamed over the target only when complete, so a reader (or
 * a crash) sees the old file or the whole new one, never a torn one. Live
 * temporaries are also removed when SIGINT, SIGTERM or SIGHUP ends the
 * process (an async-signal-safe registry, below).
 */
#define _POSIX_C_SOURCE 200809L /* fsync, fdopen, faccessat, clock_gettime, sigaction */

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "base/error.h"
#include "terrafit/terrafit.h"

/* Tries at a fresh temporary name before giving up; collisions need a
 * leftover file with the same random suffix, so one retry is already rare. */
#define TEMP_NAME_ATTEMPTS 100

struct tf_atomic_file {
    char *path;      /* the target, as the caller named it (for messages) */
    char *temp_path; /* beside the target; removed unless committed */
    int slot;        /* its place in the live registry, -1 for none */
    FILE *stream;
};

/* ---- live temporaries, removed on fatal signals
 *
 * A fixed table of the temporaries' names, so a signal handler can walk it
 * without locks or allocation: a slot is claimed and released with atomic
 * exchanges. Whoever takes a name out of its slot owns it: the writer then
 * frees it, the handler unlinks it (and the writer, finding its slot
 * already empty, leaves the string alone: the process is ending). Beyond
 * LIVE_SLOTS temporaries at once the extra ones are written unprotected. */
#define LIVE_SLOTS 64

#if ATOMIC_POINTER_LOCK_FREE != 2
#error "the temporary registry needs lock-free atomic pointers to be async-signal-safe"
#endif

static _Atomic(char *) live[LIVE_SLOTS];

static int live_add(char *name)
{
    for (int i = 0; i < LIVE_SLOTS; i++) {
        char *expected = NULL;
        if (atomic_compare_exchange_strong(&live[i], &expected, name))
            return i;
    }
    return -1;
}

/* 1 when `name` was still in its slot (the caller owns it again), 0 when a
 * signal handler took it. */
static int live_remove(int slot, char *name)
{
    if (slot < 0)
        return 1;
    char *expected = name;
    return atomic_compare_exchange_strong(&live[slot], &expected, NULL);
}

void tf_atomic_remove_temporaries(void)
{
    for (int i = 0; i < LIVE_SLOTS; i++) {
        char *name = atomic_exchange(&live[i], NULL);
        if (name)
            unlink(name); /* async-signal-safe; a name already renamed is ENOENT */
    }
}

/* The handler installed for a signal whose action was the default
 * (termination): remove the temporaries, then end the process as the
 * default action would (SA_RESETHAND has restored it; raise delivers it once
 * the handler returns). Only async-signal-safe calls. */
static void on_fatal_signal(int sig)
{
    int saved = errno;
    tf_atomic_remove_temporaries();
    raise(sig);
    errno = saved;
}

static pthread_once_t handlers_once = PTHREAD_ONCE_INIT;

/* Once per process, at the first temporary: SIGINT, SIGTERM and SIGHUP
 * get on_fatal_signal where they still have their default action. A
 * program's own handler (installed before) is left alone and can call
 * tf_atomic_remove_temporaries; one installed later replaces ours. */
static void install_handlers(void)
{
    static const int signals[] = {SIGINT, SIGTERM, SIGHUP};
    for (size_t i = 0; i < sizeof signals / sizeof signals[0]; i++) {
        struct sigaction old;
        if (sigaction(signals[i], NULL, &old) != 0 || (old.sa_flags & SA_SIGINFO) ||
            old.sa_handler != SIG_DFL)
            continue;
        struct sigaction action;
        memset(&action, 0, sizeof action);
        action.sa_handler = on_fatal_signal;
        sigfillset(&action.sa_mask); /* one handler at a time */
        action.sa_flags = SA_RESETHAND | SA_RESTART;
        sigaction(signals[i], &action, NULL);
    }
}

/* A well-mixed 64-bit value (splitmix64 finalizer). */
static uint64_t mix64(uint64_t x)
{
    x ^= x >> 30;
    x *= UINT64_C(0xBF58476D1CE4E5B9);
    x ^= x >> 27;
    x *= UINT64_C(0x94D049BB133111EB);
    return x ^ (x >> 31);
}

/* A suffix no other writer is likely to pick at the same moment: the
 * process, a per-process counter (threads) and the clock (restarts). */
static uint64_t temp_name_suffix(void)
{
    static atomic_uint_fast64_t counter;
    struct timespec now = {0, 0};
    clock_gettime(CLOCK_REALTIME, &now);
    uint64_t seed = (uint64_t)getpid() * UINT64_C(0x9E3779B97F4A7C15);
    seed ^= mix64(atomic_fetch_add(&counter, 1) + 1);
    seed ^= mix64((uint64_t)now.tv_sec * UINT64_C(1000000000) + (uint64_t)now.tv_nsec);
    return mix64(seed);
}

/* Length of path's folder part, keeping its final '/'; 0 for a bare name. */
static size_t folder_length(const char *path)
{
    const char *slash = strrchr(path, '/');
    return slash ? (size_t)(slash - path) + 1 : 0;
}

/* Create "<dir>/.<base>.tmp-<suffix>" exclusively. It is opened with mode
 * 0666 rather than made by mkstemp (0600) then chmod'ed: the kernel then
 * applies the umask and any default ACL itself, with no need to read the
 * umask, which is not thread-safe. The name is in the live registry
 * (*slot_out, -1 when full) before the file exists, so a signal at any
 * moment after finds it; the handler unlinking a name not yet created does
 * no harm (another process's file of the same random name would have made
 * the open fail with EEXIST: a 2^-64 chance). -1 with errno set on
 * failure. */
static int create_temp_beside(const char *path, char **temp_path_out, int *slot_out)
{
    size_t dir_len = folder_length(path);
    const char *base = path + dir_len;
    size_t size = dir_len + 1 + strlen(base) + sizeof ".tmp-" + 16;
    char *temp_path = malloc(size);
    if (!temp_path) {
        errno = ENOMEM;
        return -1;
    }
    pthread_once(&handlers_once, install_handlers);
    for (int attempt = 0; attempt < TEMP_NAME_ATTEMPTS; attempt++) {
        snprintf(temp_path, size, "%.*s.%s.tmp-%016llx", (int)dir_len, path, base,
                 (unsigned long long)temp_name_suffix());
        int slot = live_add(temp_path);
        int fd = open(temp_path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
        if (fd >= 0) {
            *temp_path_out = temp_path;
            *slot_out = slot;
            return fd;
        }
        int saved = errno;
        if (!live_remove(slot, temp_path)) {
            /* A signal handler has the name and the process is ending. */
            errno = EINTR;
            return -1;
        }
        errno = saved;
        if (errno != EEXIST)
            break;
    }
    int saved = errno;
    free(temp_path);
    errno = saved;
    return -1;
}

static void atomic_file_free(tf_atomic_file *file)
{
    free(file->path);
    if (live_remove(file->slot, file->temp_path))
        free(file->temp_path);
    free(file);
}

int tf_atomic_check(const char *path, tf_error *err)
{
    if (!path || !*path) {
        tf_error_set(err, TF_ERR_ARGUMENT, "no output file name given");
        return -1;
    }
    size_t len = strlen(path);
    if (path[len - 1] == '/') {
        tf_error_set(err, TF_ERR_ARGUMENT, "%s: names a directory, not a file", path);
        return -1;
    }
    /* Renaming over a device, a pipe or a directory would replace it with a
     * regular file (as root, /dev/null included): only regular files, or
     * names not yet taken, may be replaced. */
    struct stat existing;
    if (stat(path, &existing) == 0 && !S_ISREG(existing.st_mode)) {
        tf_error_set(err, TF_ERR_ARGUMENT, "%s: exists and is not a regular file; not replacing it",
                     path);
        return -1;
    }
    /* The temporary is created in the target's folder: that folder must
     * exist and take new names (effective ids, as open() would use). */
    size_t dir_len = folder_length(path);
    char *dir = malloc(dir_len + 2);
    if (!dir) {
        tf_error_set(err, TF_ERR_NOMEM, "%s: out of memory", path);
        return -1;
    }
    memcpy(dir, dir_len ? path : ".", dir_len ? dir_len : 1);
    dir[dir_len ? dir_len : 1] = '\0';
    int status = faccessat(AT_FDCWD, dir, W_OK | X_OK, AT_EACCESS);
    int saved = errno;
    free(dir);
    if (status != 0) {
        tf_error_set(err, saved == ENOMEM ? TF_ERR_NOMEM : TF_ERR_IO, "%s: cannot create file: %s",
                     path, strerror(saved));
        return -1;
    }
    tf_error_clear(err);
    return 0;
}

tf_atomic_file *tf_atomic_open(const char *path, tf_error *err)
{
    if (tf_atomic_check(path, err) != 0)
        return NULL;
    size_t len = strlen(path);
    tf_atomic_file *file = calloc(1, sizeof *file);
    if (!file || !(file->path = malloc(len + 1))) {
        free(file);
        tf_error_set(err, TF_ERR_NOMEM, "%s: out of memory", path);
        return NULL;
    }
    memcpy(file->path, path, len + 1);

    file->slot = -1;
    int fd = create_temp_beside(path, &file->temp_path, &file->slot);
    if (fd < 0) {
        tf_error_set(err, errno == ENOMEM ? TF_ERR_NOMEM : TF_ERR_IO, "%s: cannot create file: %s",
                  path, strerror(errno));
        atomic_file_free(file);
        return NULL;
    }
    file->stream = fdopen(fd, "wb");
    if (!file->stream) {
        int saved = errno;
        close(fd);
        unlink(file->temp_path);
        tf_error_set(err, TF_ERR_IO, "%s: cannot open a stream: %s", path, strerror(saved));
        atomic_file_free(file);
        return NULL;
    }
    tf_error_clear(err);
    return file;
}

FILE *tf_atomic_stream(tf_atomic_file *file)
{
    return file ? file->stream : NULL;
}

void tf_atomic_abort(tf_atomic_file *file)
{
    if (!file)
        return;
    if (file->stream)
        fclose(file->stream);
    unlink(file->temp_path);
    atomic_file_free(file);
}

/* The data of `file` on the disk, its stream closed; not yet renamed.
 * Each step can be the first to report a full disk or an I/O error:
 * buffered data reaches the kernel at fflush, the disk at fsync. */
static int atomic_finish(tf_atomic_file *file, tf_error *err)
{
    errno = 0;
    if (fflush(file->stream) != 0 || ferror(file->stream)) {
        tf_error_set_write(err, file->path, errno);
        return -1;
    }
    /* EINVAL: the file system cannot sync (some FUSE and pseudo file
     * systems); the data is written, which is all we can do there. */
    if (fsync(fileno(file->stream)) != 0 && errno != EINVAL) {
        tf_error_set_write(err, file->path, errno);
        return -1;
    }
    FILE *stream = file->stream;
    file->stream = NULL;
    if (fclose(stream) != 0) {
        tf_error_set_write(err, file->path, errno);
        return -1;
    }
    return 0;
}

static int atomic_replace(tf_atomic_file *file, tf_error *err)
{
    if (rename(file->temp_path, file->path) != 0) {
        tf_error_set(err, TF_ERR_IO, "%s: cannot replace file: %s", file->path, strerror(errno));
        return -1;
    }
    return 0;
}

int tf_atomic_commit(tf_atomic_file *file, tf_error *err)
{
    return tf_atomic_commit_all(&file, 1, err);
}

/* NULL entries are skipped (an output not asked for). Every file's data
 * reaches the disk before any is renamed, so a full disk or an I/O error
 * leaves every target as it was. Only a failed rename, after the data is
 * safe, can leave some renamed: those are removed again, so the outputs
 * of one job appear all together or not at all. */
int tf_atomic_commit_all(tf_atomic_file **files, size_t count, tf_error *err)
{
    size_t present = 0;
    for (size_t i = 0; files && i < count; i++)
        present += files[i] != NULL;
    if (present == 0) {
        tf_error_set(err, TF_ERR_ARGUMENT, "tf_atomic_commit: no file");
        return -1;
    }
    int status = 0;
    for (size_t i = 0; i < count && status == 0; i++)
        if (files[i])
            status = atomic_finish(files[i], err);
    size_t renamed = 0; /* files[0 .. renamed) are in place */
    for (; renamed < count && status == 0; renamed++)
        if (files[renamed] && (status = atomic_replace(files[renamed], err)) != 0)
            break;
    for (size_t i = 0; i < count; i++) {
        if (!files[i])
            continue;
        if (status != 0 && i < renamed)
            unlink(files[i]->path);
        if (status != 0 && i >= renamed)
            tf_atomic_abort(files[i]);
        else
            atomic_file_free(files[i]);
        files[i] = NULL;
    }
    if (status == 0)
        tf_error_clear(err);
    return status;
}

int tf_write_file_atomic(const char *path, const void *data, size_t size, tf_error *err)
{
    if (!data && size > 0) {
        tf_error_set(err, TF_ERR_ARGUMENT, "%s: no data to write", path ? path : "(null)");
        return -1;
    }
    tf_atomic_file *file = tf_atomic_open(path, err);
    if (!file)
        return -1;
    errno = 0;
    if (size > 0 && fwrite(data, 1, size, file->stream) != size) {
        tf_error_set_write(err, path, errno);
        tf_atomic_abort(file);
        return -1;
    }
    return tf_atomic_commit(file, err);
}
