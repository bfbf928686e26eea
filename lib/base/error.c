/* The caller-owned error struct: every failure in the library fills one
 * with a code and a sentence that names the file, path or value at fault. */
#include "base/error.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

void tf_error_set(tf_error *err, int code, const char *fmt, ...)
{
    if (!err)
        return;
    err->code = code;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err->message, sizeof err->message, fmt, ap);
    va_end(ap);
}

void tf_error_set_write(tf_error *err, const char *name, int errnum)
{
    tf_error_set(err, TF_ERR_IO, "%s: cannot write file: %s", name,
                 errnum ? strerror(errnum) : "a write failed");
}

void tf_error_clear(tf_error *err)
{
    if (!err)
        return;
    err->code = TF_OK;
    err->message[0] = '\0';
}
