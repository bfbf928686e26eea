/* Helpers shared by the Check suites (see testutil.h). */
#define _POSIX_C_SOURCE 200809L
#include "testutil.h"

#include <check.h>

#include <dirent.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "terrafit/fit.h"

const char *tu_srcdir(void)
{
    const char *env = getenv("TF_SRCDIR");
    return (env && *env) ? env : TF_SRCDIR;
}

const char *tu_path(const char *fmt, ...)
{
    static char bufs[8][4096];
    static int next;
    char *buf = bufs[next];
    next = (next + 1) % 8;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, sizeof bufs[0], fmt, ap);
    va_end(ap);
    return buf;
}

char *tu_read_file(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    size_t cap = 4096, n = 0;
    char *buf = malloc(cap + 1);
    size_t got;
    while (buf && (got = fread(buf + n, 1, cap - n, f)) > 0) {
        n += got;
        if (n == cap) {
            char *bigger = realloc(buf, 2 * cap + 1);
            if (!bigger) {
                free(buf);
                buf = NULL;
                break;
            }
            buf = bigger;
            cap *= 2;
        }
    }
    fclose(f);
    if (!buf)
        return NULL;
    buf[n] = '\0';
    if (len)
        *len = n;
    return buf;
}

static int by_name(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

char **tu_list_cases(const char *dir, const char *suffix, int dirs_only, size_t *count)
{
    *count = 0;
    DIR *d = opendir(dir);
    if (!d)
        return NULL;
    char **names = NULL;
    size_t n = 0, suffix_len = suffix ? strlen(suffix) : 0;
    for (struct dirent *e; (e = readdir(d)) != NULL;) {
        size_t len = strlen(e->d_name);
        if (e->d_name[0] == '.' ||
            (suffix && (len <= suffix_len || strcmp(e->d_name + len - suffix_len, suffix) != 0)))
            continue;
        if (dirs_only) { /* not tu_path: `dir` may be one of its buffers */
            char path[8192];
            struct stat st;
            snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
            if (stat(path, &st) != 0 || !S_ISDIR(st.st_mode))
                continue;
        }
        char **grown = realloc(names, (n + 1) * sizeof *names);
        char *name = strdup(e->d_name);
        if (!grown || !name) {
            free(name);
            tu_free_list(grown ? grown : names, n);
            closedir(d);
            return NULL;
        }
        names = grown;
        names[n++] = name;
    }
    closedir(d);
    if (n > 1)
        qsort(names, n, sizeof *names, by_name);
    *count = n;
    return names;
}

void tu_free_list(char **names, size_t count)
{
    for (size_t i = 0; i < count; i++)
        free(names[i]);
    free(names);
}

char *tu_mkdtemp(void)
{
    const char *tmp = getenv("TMPDIR");
    char templ[4096];
    snprintf(templ, sizeof templ, "%s/terrafit-test-XXXXXX", (tmp && *tmp) ? tmp : "/tmp");
    char *dir = mkdtemp(templ);
    return dir ? strdup(dir) : NULL;
}

void tu_rmtree(const char *dir)
{
    if (!dir || !*dir)
        return;
    char cmd[4200];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    if (system(cmd) != 0)
        fprintf(stderr, "warning: could not remove %s\n", dir);
}

static int run_suite(Suite *suite, enum fork_status mode)
{
    /* Fitting keeps its noise samples and spectra until released: free
     * them as the process ends, in Check's forked children (which exit
     * through exit()) as well as here, so valgrind and LeakSanitizer find
     * nothing left behind by the suites that fit. */
    atexit(tf_fit_release_caches);
    SRunner *runner = srunner_create(suite);
    srunner_set_fork_status(runner, mode);
    srunner_run_all(runner, CK_ENV);
    int failed = srunner_ntests_failed(runner);
    srunner_free(runner);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}

int tu_run_suite(Suite *suite)
{
    return run_suite(suite, CK_FORK_GETENV);
}

int tu_run_suite_forked(Suite *suite)
{
    return run_suite(suite, CK_FORK);
}
