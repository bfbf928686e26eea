/* Helpers shared by the Check suites (see testutil.h). */
#define _POSIX_C_SOURCE 200809L
#include "testutil.h"

#include <check.h>

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
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

int tu_run_suite(Suite *suite)
{
    /* Fitting keeps its noise samples and spectra until released: free
     * them as the process ends, in Check's forked children (which exit
     * through exit()) as well as here, so valgrind and LeakSanitizer find
     * nothing left behind by the suites that fit. */
    atexit(tf_fit_release_caches);
    SRunner *runner = srunner_create(suite);
    srunner_run_all(runner, CK_ENV);
    int failed = srunner_ntests_failed(runner);
    srunner_free(runner);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
