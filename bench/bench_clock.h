/* bench_clock.h - the monotonic clock and the ascending sort of timings that the benchmark and
 * stress programs of tools/ share (the CLI has its own in cli/cli_time.c). A file that includes
 * it needs clock_gettime: _POSIX_C_SOURCE 200809L (or a GNU dialect) before its first include. */
#ifndef SATFEAT_TOOLS_BENCH_CLOCK_H
#define SATFEAT_TOOLS_BENCH_CLOCK_H

#include <stdlib.h>
#include <time.h>

/** Milliseconds of the monotonic clock since an arbitrary origin. */
static inline double bench_now_ms(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec * 1e3 + (double)t.tv_nsec * 1e-6;
}

/* Ascending order of doubles for qsort. */
static inline int bench_cmp_double(const void *a, const void *b)
{
    const double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/** Sorts n timings in place, ascending (the median is then v[n / 2]). */
static inline void bench_sort(double *v, size_t n)
{
    qsort(v, n, sizeof *v, bench_cmp_double);
}

#endif
