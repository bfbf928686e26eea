/*
 * The one clock of the tool libraries: monotonic seconds, for the fit
 * report's timings and progress intervals; and what the benchmarks read
 * beside it: the median of their runs, the pages touched for the first
 * time.
 */
#define _POSIX_C_SOURCE 200809L /* clock_gettime */

#include "util/util.h"

#include <stdlib.h>
#include <sys/resource.h>
#include <time.h>

double tf_clock_seconds(void)
{
    struct timespec t;
    if (clock_gettime(CLOCK_MONOTONIC, &t) != 0)
        return 0.0;
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

static int compare_doubles(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

double tf_median(double *v, size_t n)
{
    if (n == 0)
        return 0.0;
    qsort(v, n, sizeof *v, compare_doubles);
    return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

long tf_page_faults(void)
{
    struct rusage u;
    return getrusage(RUSAGE_SELF, &u) == 0 ? (long)u.ru_minflt : -1;
}
