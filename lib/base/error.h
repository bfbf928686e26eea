/*
 * The error helper every terrafit library shares: fill a caller-owned
 * tf_error (terrafit/runtime.h) with a code and a printf-style sentence.
 * Internal: compiled into each installed library, exported by none.
 */
#ifndef TF_BASE_ERROR_H
#define TF_BASE_ERROR_H

#include "terrafit/runtime.h"

#if defined(__GNUC__)
#define TF_PRINTF(fmt, args) __attribute__((format(printf, fmt, args)))
#else
#define TF_PRINTF(fmt, args)
#endif

/* Fill `err` (may be NULL) with a code and a printf-style message. */
void tf_error_set(tf_error *err, int code, const char *fmt, ...) TF_PRINTF(3, 4);
/* Fill `err` with TF_ERR_IO and "NAME: cannot write file: REASON", the
 * reason being strerror(errnum), or "a write failed" when errnum is 0: a
 * stream whose error flag an earlier fwrite had set, with no errno left. */
void tf_error_set_write(tf_error *err, const char *name, int errnum);
/* Set `err` (may be NULL) to TF_OK with an empty message. */
void tf_error_clear(tf_error *err);

#endif
