/* tracker_many.c - satfeat_trackers_track: n independent trackers advanced one frame each in one
 * call. Every host frame is queued first (satfeat_tracker_push: on CUDA the uploads and
 * detections of all n frames start at once, each on its tracker's own stream, so they overlap
 * on the GPU), then the frames are finished (satfeat_tracker_pop: matching, motion, tracks) by a
 * few host threads. A context serves one thread at a time, so the trackers that share a context
 * form one group, finished in index order by one thread; distinct contexts run in parallel.
 * Frames that cannot be queued (device views, masks) are tracked in their group by
 * satfeat_tracker_track, which gives the same result or the same refusal as a single call. */
#define _POSIX_C_SOURCE 200809L /* sysconf */
#include "src/context_internal.h"
#include "src/thread_team.h"
#include "track/tracker_internal.h"

#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* Most host threads one call starts (beyond, the groups wait for a free thread). */
#define MANY_MAX_THREADS 256

/* The shared state of one call: the trackers in group order and where each group starts. */
typedef struct many_call {
    satfeat_tracker *const *trackers;
    const satfeat_image_view *views;
    satfeat_frame_motion *motions;
    satfeat_status *statuses;
    const uint8_t *queued;    /* per tracker: 1 when its frame was pushed */
    const size_t *order;      /* tracker indices, grouped by context, ascending within a group */
    const size_t *group_from; /* groups + 1 offsets into order */
    size_t groups;
    atomic_size_t next;       /* the next group to finish */
} many_call;

static void finish_one(many_call *c, size_t i)
{
    satfeat_frame_motion *m = c->motions ? &c->motions[i] : NULL;
    if (c->queued[i]) c->statuses[i] = satfeat_tracker_pop(c->trackers[i], m);
    else if (c->statuses[i] == SATFEAT_OK)
        c->statuses[i] = satfeat_tracker_track(c->trackers[i], &c->views[i], m);
}

static void finish_groups(void *arg, size_t member)
{
    (void)member; /* every member takes groups from the shared counter */
    many_call *c = arg;
    for (;;) {
        const size_t g = atomic_fetch_add(&c->next, 1);
        if (g >= c->groups) break;
        for (size_t k = c->group_from[g]; k < c->group_from[g + 1]; k++) finish_one(c, c->order[k]);
    }
}

/* A tracker's place in the group order: its context, then its index. */
typedef struct many_key {
    uintptr_t ctx;
    size_t index;
} many_key;

static int by_context(const void *a, const void *b)
{
    const many_key *x = a, *y = b;
    if (x->ctx != y->ctx) return x->ctx < y->ctx ? -1 : 1;
    return x->index < y->index ? -1 : x->index > y->index;
}

static int by_pointer(const void *a, const void *b)
{
    const uintptr_t x = (uintptr_t)*(satfeat_tracker *const *)a;
    const uintptr_t y = (uintptr_t)*(satfeat_tracker *const *)b;
    return x < y ? -1 : x > y;
}

/* SATFEAT_OK when every tracker is non-NULL, listed once and has no pushed frame pending. The
 * message goes to the first offending tracker's context (none exists for a NULL tracker). */
static satfeat_status check_trackers(satfeat_tracker *const *t, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        if (!t[i]) return SATFEAT_ERR_ARG;
        if (satfeat_sequence_pending(t[i]->seq) > 0)
            return satfeat_fail(t[i]->ctx, SATFEAT_ERR_ARG,
                                "trackers_track: tracker %zu has pushed frames pending", i);
    }
    satfeat_tracker **copy = malloc(n * sizeof *copy);
    if (!copy) return satfeat_fail(t[0]->ctx, SATFEAT_ERR_ALLOC, "trackers_track: out of memory");
    memcpy(copy, t, n * sizeof *copy);
    qsort(copy, n, sizeof *copy, by_pointer);
    satfeat_status st = SATFEAT_OK;
    for (size_t i = 1; i < n && st == SATFEAT_OK; i++)
        if (copy[i] == copy[i - 1])
            st = satfeat_fail(copy[i]->ctx, SATFEAT_ERR_ARG,
                              "trackers_track: a tracker is listed twice");
    free(copy);
    return st;
}

static size_t host_threads(int threads, size_t groups)
{
    long n = threads > 0 ? threads : sysconf(_SC_NPROCESSORS_ONLN);
    if (n < 1) n = 1;
    if (n > MANY_MAX_THREADS) n = MANY_MAX_THREADS;
    return (size_t)n < groups ? (size_t)n : groups;
}

satfeat_status satfeat_trackers_track(satfeat_tracker *const *trackers,
                                      const satfeat_image_view *views, size_t n, int threads,
                                      satfeat_frame_motion *motions, satfeat_status *statuses)
{
    if (n == 0) return SATFEAT_OK;
    if (!trackers || !views || !statuses || threads < 0) return SATFEAT_ERR_ARG;
    satfeat_status st = check_trackers(trackers, n);
    if (st != SATFEAT_OK) return st;
    many_key *keys = malloc(n * sizeof *keys);
    size_t *order = malloc(n * sizeof *order);
    size_t *group_from = malloc((n + 1) * sizeof *group_from);
    uint8_t *queued = calloc(n, 1);
    if (!keys || !order || !group_from || !queued) {
        free(keys);
        free(order);
        free(group_from);
        free(queued);
        return satfeat_fail(trackers[0]->ctx, SATFEAT_ERR_ALLOC, "trackers_track: out of memory");
    }
    for (size_t i = 0; i < n; i++) keys[i] = (many_key){(uintptr_t)trackers[i]->ctx, i};
    qsort(keys, n, sizeof *keys, by_context);
    size_t groups = 0;
    for (size_t k = 0; k < n; k++) {
        order[k] = keys[k].index;
        if (k == 0 || keys[k].ctx != keys[k - 1].ctx) group_from[groups++] = k;
    }
    group_from[groups] = n;
    free(keys);
    /* queue every host frame first, so the GPU works on all of them while the host finishes */
    for (size_t i = 0; i < n; i++) {
        statuses[i] = SATFEAT_OK;
        if (views[i].memory != SATFEAT_MEMORY_HOST || views[i].mask) continue;
        int popped = 0;
        statuses[i] = satfeat_tracker_push(trackers[i], &views[i], NULL, &popped);
        queued[i] = statuses[i] == SATFEAT_OK;
    }
    many_call c = {trackers, views, motions, statuses, queued, order, group_from, groups, 0};
    satfeat_thread_team_run(host_threads(threads, groups), finish_groups, &c);
    free(order);
    free(group_from);
    free(queued);
    for (size_t i = 0; i < n; i++)
        if (statuses[i] != SATFEAT_OK) return statuses[i];
    return SATFEAT_OK;
}
