/* Small helpers shared by the Check suites: locating test data in the
 * source tree, reading whole files, and scratch directories. */
#ifndef TF_TESTUTIL_H
#define TF_TESTUTIL_H

#include <stddef.h>

/* The source tree's root (TF_SRCDIR from the environment, else the
 * compile-time path). */
const char *tu_srcdir(void);

/* snprintf into a static rotating buffer: "%s/tests/data/x" style paths.
 * Holds 8 results at once. */
const char *tu_path(const char *fmt, ...);

/* Whole file, NUL-terminated (len excludes the NUL); NULL on failure. */
char *tu_read_file(const char *path, size_t *len);

/* The data-driven cases of a folder, sorted by name (strcmp), dot entries
 * skipped: with `suffix` non-NULL only names ending in it, with `dirs_only`
 * only sub-directories. Built when the suite is, so each case can be its
 * own loop-test iteration (one failing case does not hide the others).
 * NULL and *count = 0 when `dir` cannot be read; free with tu_free_list. */
char **tu_list_cases(const char *dir, const char *suffix, int dirs_only, size_t *count);
void tu_free_list(char **names, size_t count);

/* A fresh scratch directory under $TMPDIR (removed by tu_rmdir). */
char *tu_mkdtemp(void);
void tu_rmtree(const char *dir);

/* Run a Check suite (CK_VERBOSITY from the environment) and free it:
 * EXIT_SUCCESS when every test passed, EXIT_FAILURE otherwise. Fitting's
 * caches are released at exit (tf_fit_release_caches). */
struct Suite;
int tu_run_suite(struct Suite *suite);
/* The same, each test in its own process whatever CK_FORK says (the
 * sanitizer build sets CK_FORK=no), for suites whose tests need a fresh
 * process. */
int tu_run_suite_forked(struct Suite *suite);

#endif
