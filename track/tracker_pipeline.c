/* tracker_pipeline.c - the tracker with frames in flight: satfeat_tracker_push queues a host
 * frame on the detector's sequence (on CUDA its upload and detection start at once, on their own
 * stream), satfeat_tracker_pop finishes the oldest frame (waits for its keypoints, then matches,
 * estimates and updates the tracks exactly as satfeat_tracker_track does). */
#include "src/context_internal.h"
#include "track/tracker_internal.h"

int satfeat_tracker_pending(const satfeat_tracker *t)
{
    return t ? satfeat_sequence_pending(t->seq) : 0;
}

satfeat_status satfeat_tracker_pop(satfeat_tracker *t, satfeat_frame_motion *motion)
{
    if (!t) return SATFEAT_ERR_ARG;
    if (satfeat_sequence_pending(t->seq) == 0)
        return satfeat_fail(t->ctx, SATFEAT_ERR_ARG, "tracker_pop: no frame pending");
    tracker_timing timing;
    satfeat_tracker_timing_begin(t, &timing);
    const double t_detect = satfeat_tracker_clock(t);
    satfeat_status st = satfeat_tracker_detect_pop(t);
    if (st == SATFEAT_OK) {
        t->times.detect_us = satfeat_tracker_clock(t) - t_detect;
        st = satfeat_tracker_consume(t, 0, NULL, t->width, t->height, motion);
    }
    satfeat_tracker_timing_end(t, &timing, st);
    return st;
}

satfeat_status satfeat_tracker_push(satfeat_tracker *t, const satfeat_image_view *frame,
                                    satfeat_frame_motion *motion, int *popped)
{
    if (!t) return SATFEAT_ERR_ARG;
    if (!popped)
        return satfeat_fail(t->ctx, SATFEAT_ERR_ARG, "tracker_push: popped must not be NULL");
    *popped = 0;
    satfeat_status st = satfeat_tracker_check_frame(t, frame, 0);
    if (st != SATFEAT_OK) return st;
    if (satfeat_sequence_pending(t->seq) == TRACKER_SLOTS) {
        st = satfeat_tracker_pop(t, motion);
        if (st != SATFEAT_OK) return st;
        *popped = 1;
    }
    st = satfeat_tracker_detect_push(t, frame);
    if (st != SATFEAT_OK) return st;
    t->width = frame->width; /* the sequence's size from its first frame on */
    t->height = frame->height;
    return SATFEAT_OK;
}

satfeat_status satfeat_tracker_discard_pending(satfeat_tracker *t)
{
    while (satfeat_sequence_pending(t->seq) > 0) {
        const satfeat_status st = satfeat_tracker_detect_pop(t);
        if (st != SATFEAT_OK) return st;
    }
    return SATFEAT_OK;
}
