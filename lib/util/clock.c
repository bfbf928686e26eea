/*
 * The one clock of the tool libraries: monotonic seconds, for the fit
 * report's timings and progress intervals.
 */
#define _POSIX_C_SOURCE 200809L /* clock_gettime */

#include "util/util.h"

#include <time.h>

double tf_clock_seconds(void)
{
    struct timespec t;
    if (clock_gettime(CLOCK_MONOTONIC, &t) != 0)
        return 0.0;
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}
