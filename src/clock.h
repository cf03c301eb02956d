/* clock.h - the library's one clock: monotonic microseconds (CPU stage times of a profiled detector). */
#ifndef SATFEAT_CLOCK_H
#define SATFEAT_CLOCK_H

/** Microseconds of a monotonic clock since an arbitrary origin. */
double satfeat_clock_us(void);

#endif
