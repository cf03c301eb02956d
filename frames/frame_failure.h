/* frame_failure.h - the first failed frame of a call over a list of frames (satfeat_pool_*,
 * satfeat_batch_*): each worker or lane records the lowest frame index that failed on it, with
 * the status and the message its context held then; the call reports the lowest of them. Uses
 * the public header only (the pool is a client of the public calls). */
#ifndef SATFEAT_FRAME_FAILURE_H
#define SATFEAT_FRAME_FAILURE_H

#include "satfeat.h"

#include <stdint.h>
#include <stdio.h>

/** The lowest failed frame seen by one recorder (index SIZE_MAX: none). */
typedef struct satfeat_frame_failure {
    size_t index;
    satfeat_status status;
    char msg[256];
} satfeat_frame_failure;

/** Forgets any failure (start of a call). */
static inline void satfeat_frame_failure_reset(satfeat_frame_failure *f)
{
    f->index = SIZE_MAX;
    f->status = SATFEAT_OK;
    f->msg[0] = '\0';
}

/** Notes that frame i ended with `st`; a failure below the recorded one replaces it, with the
 *  last error of `ctx` (the context the frame failed on) as its message. */
static inline void satfeat_frame_failure_note(satfeat_frame_failure *f, size_t i,
                                              satfeat_status st, const satfeat_ctx *ctx)
{
    if (st == SATFEAT_OK || i >= f->index) return;
    f->index = i;
    f->status = st;
    snprintf(f->msg, sizeof f->msg, "%s", satfeat_ctx_last_error(ctx));
}

/** The lower of the failures `first` (may be NULL) and `f`; NULL while neither has one. */
static inline const satfeat_frame_failure *satfeat_frame_failure_lower(
    const satfeat_frame_failure *first, const satfeat_frame_failure *f)
{
    if (f->index == SIZE_MAX) return first;
    return !first || f->index < first->index ? f : first;
}

#endif
