/* thread_team.h - a team of plain POSIX threads for one call: index 0 runs in the calling
 * thread, 1..n-1 in threads of their own, all joined before the call returns. The team's members
 * are meant to take their work from a shared counter, so a thread that cannot be started only
 * leaves its share to the others. Plain threads, not an OpenMP team: a member's own parallel
 * regions are then outermost and reuse the runtime's thread pool (frames/pool.c says why). */
#ifndef SATFEAT_THREAD_TEAM_H
#define SATFEAT_THREAD_TEAM_H

#include <stddef.h>

/** Runs fn(arg, i) for i in 0..n-1 at once (i = 0 in the caller) and waits for every member.
 * Members whose thread cannot be created (or n - 1 threads' bookkeeping that cannot be
 * allocated) do not run; member 0 always does. n < 1 runs nothing. */
void satfeat_thread_team_run(size_t n, void (*fn)(void *arg, size_t index), void *arg);

#endif
