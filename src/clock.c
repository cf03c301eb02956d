/* clock.c - the monotonic clock of clock.h (POSIX clock_gettime). */
#define _POSIX_C_SOURCE 200809L /* clock_gettime */
#include "src/clock.h"

#include <time.h>

double satfeat_clock_us(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return 1e6 * (double)ts.tv_sec + 1e-3 * (double)ts.tv_nsec;
}
