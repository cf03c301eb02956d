/* sequence.c - image sequences with several frames in flight. Each slot is a frame slot of the
 * detector's backend (detect/detect.h): on CUDA its own stream and pinned buffers, so pushing
 * frame k uploads it and queues its detection while earlier frames are still on the GPU, and
 * popping copies the oldest frame's features out; on the CPU a copy of the frame, detected when
 * it is popped (the same results in the same order, only nothing overlaps). Where frames
 * overlap, the slots are spread over `lanes` detectors: lane 0 is the sequence's detector,
 * lanes 1.. are its twins (twin.h), so frames of different lanes have their own device state
 * and run side by side on the GPU instead of one after the other; slot i belongs to lane
 * i % lanes. */
#include "frames/twin.h"
#include "src/context_internal.h"
#include "src/features_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct seq_slot {
    satfeat_detect_slot *slot;
    const satfeat_fh_twin *twin; /* the slot's lane's twin, NULL for lane 0 */
} seq_slot;

struct satfeat_sequence {
    satfeat_detector *det;
    int slots, oldest, pending;
    seq_slot *s;
    int twins;             /* lanes - 1 where frames overlap, else 0 */
    satfeat_fh_twin *twin; /* lanes 1.. */
};

/* A status of a call on slot s's lane as a status of the sequence's context. */
static satfeat_status lane_status(const satfeat_sequence *q, const seq_slot *s, satfeat_status st)
{
    return s->twin ? satfeat_fh_twin_status(satfeat_detector_ctx(q->det), s->twin,
                                            "sequence: lane", st)
                   : st;
}

/* The slots (and the twins of lanes 1..); the reason of a failure is on det's context. */
static satfeat_status slots_new(satfeat_sequence *q, int lanes)
{
    satfeat_detector *det = q->det;
    satfeat_ctx *ctx = satfeat_detector_ctx(det);
    if (!satfeat_detector_overlaps(det)) lanes = 1; /* nothing would run beside lane 0 */
    if (lanes > 1) {
        q->twin = calloc((size_t)(lanes - 1), sizeof *q->twin);
        if (!q->twin) return satfeat_fail(ctx, SATFEAT_ERR_ALLOC, "sequence: out of memory");
        for (; q->twins < lanes - 1; q->twins++) {
            satfeat_status st = satfeat_fh_twin_new(det, satfeat_ctx_threads(ctx),
                                                    "sequence: lane", &q->twin[q->twins]);
            if (st != SATFEAT_OK) return st;
        }
    }
    for (int i = 0; i < q->slots; i++) {
        seq_slot *s = &q->s[i];
        const int lane = i % lanes;
        s->twin = lane ? &q->twin[lane - 1] : NULL;
        satfeat_status st =
            lane_status(q, s, satfeat_detect_slot_new(lane ? s->twin->det : det, &s->slot));
        if (st != SATFEAT_OK) return st;
    }
    return SATFEAT_OK;
}

satfeat_status satfeat_sequence_new_lanes(satfeat_detector *det, int slots, int lanes,
                                          satfeat_sequence **out)
{
    if (!det) return SATFEAT_ERR_ARG;
    satfeat_ctx *ctx = satfeat_detector_ctx(det);
    if (!out) return satfeat_fail(ctx, SATFEAT_ERR_ARG, "sequence: NULL argument");
    *out = NULL;
    if (slots < 1 || slots > SATFEAT_SEQUENCE_MAX_SLOTS)
        return satfeat_fail(ctx, SATFEAT_ERR_ARG, "sequence: slots %d not in 1..%d", slots,
                            SATFEAT_SEQUENCE_MAX_SLOTS);
    if (lanes < 1 || lanes > slots)
        return satfeat_fail(ctx, SATFEAT_ERR_ARG, "sequence: lanes %d not in 1..%d (the slots)",
                            lanes, slots);
    satfeat_sequence *q = calloc(1, sizeof *q);
    if (q) q->s = calloc((size_t)slots, sizeof *q->s);
    if (!q || !q->s) {
        free(q);
        return satfeat_fail(ctx, SATFEAT_ERR_ALLOC, "sequence: out of memory");
    }
    q->det = det;
    q->slots = slots;
    const satfeat_status st = slots_new(q, lanes);
    if (st != SATFEAT_OK) {
        satfeat_sequence_delete(q);
        return st;
    }
    *out = q;
    return SATFEAT_OK;
}

satfeat_status satfeat_sequence_new(satfeat_detector *det, int slots, satfeat_sequence **out)
{
    return satfeat_sequence_new_lanes(det, slots, 1, out);
}

void satfeat_sequence_delete(satfeat_sequence *q)
{
    if (!q) return;
    for (int i = 0; i < q->slots; i++) satfeat_detect_slot_delete(q->s[i].slot);
    for (int l = 0; l < q->twins; l++) satfeat_fh_twin_free(&q->twin[l]);
    free(q->twin);
    free(q->s);
    free(q);
}

int satfeat_sequence_pending(const satfeat_sequence *q)
{
    return q ? q->pending : 0;
}

satfeat_status satfeat_sequence_pop(satfeat_sequence *q, satfeat_features **features)
{
    if (!q) return SATFEAT_ERR_ARG;
    satfeat_ctx *ctx = satfeat_detector_ctx(q->det);
    if (q->pending == 0) return satfeat_fail(ctx, SATFEAT_ERR_ARG, "sequence: no frame pending");
    satfeat_status st = satfeat_features_out(features);
    if (st != SATFEAT_OK)
        return satfeat_fail(ctx, st, "sequence: %s", features ? "out of memory" : "NULL features");
    seq_slot *s = &q->s[q->oldest];
    q->oldest = (q->oldest + 1) % q->slots;
    q->pending--;
    return lane_status(q, s, satfeat_detect_slot_collect(s->slot, *features));
}

satfeat_status satfeat_sequence_push(satfeat_sequence *q, const satfeat_image_view *image,
                                     satfeat_features **popped, int *popped_flag)
{
    if (!q) return SATFEAT_ERR_ARG;
    satfeat_ctx *ctx = satfeat_detector_ctx(q->det);
    if (!popped_flag || !popped)
        return satfeat_fail(ctx, SATFEAT_ERR_ARG, "sequence: NULL popped or popped_flag");
    *popped_flag = 0;
    satfeat_status st = satfeat_detect_check_view(q->det, image);
    if (st == SATFEAT_OK && image->memory != SATFEAT_MEMORY_HOST)
        st = satfeat_fail(ctx, SATFEAT_ERR_UNSUPPORTED,
                          "sequence: frames are host views (this one is device memory)");
    if (st != SATFEAT_OK) return st;
    if (q->pending == q->slots) {
        st = satfeat_sequence_pop(q, popped);
        if (q->pending == q->slots) return st; /* no set for the popped frame: nothing popped */
        *popped_flag = 1;
    }
    seq_slot *s = &q->s[(q->oldest + q->pending) % q->slots];
    const satfeat_status sub = lane_status(q, s, satfeat_detect_slot_submit(s->slot, image, 1));
    if (sub != SATFEAT_OK) return sub; /* the popped frame, if any, is still delivered */
    q->pending++;
    return st;
}
