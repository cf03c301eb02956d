/* tracker_pipeline.c - the tracker with frames in flight: satfeat_tracker_push_u8 queues a host
 * frame on the detector's sequence (on CUDA its upload and detection start at once, on their own
 * stream), satfeat_tracker_pop finishes the oldest frame (waits for its keypoints, then matches,
 * estimates and updates the tracks exactly as satfeat_tracker_track_u8 does). */
#include "src/context_internal.h"
#include "track/detect_compat.h"
#include "track/tracker_internal.h"

#include <string.h>

int satfeat_tracker_pending(const satfeat_tracker *t)
{
    return t ? satfeat_sequence_pending(t->seq) : 0;
}

satfeat_status satfeat_tracker_pop(satfeat_tracker *t, satfeat_track *tracks, float *descriptors,
                                   size_t capacity, size_t *count, satfeat_frame_motion *motion)
{
    if (!t) return SATFEAT_ERR_ARG;
    if (!count) return satfeat_fail(t->ctx, SATFEAT_ERR_ARG, "tracker_pop: count must not be NULL");
    if (!tracks && capacity > 0)
        return satfeat_fail(t->ctx, SATFEAT_ERR_ARG,
                            "tracker_pop: tracks is NULL with capacity %zu > 0", capacity);
    if (satfeat_sequence_pending(t->seq) == 0)
        return satfeat_fail(t->ctx, SATFEAT_ERR_ARG, "tracker_pop: no frame pending");
    tracker_timing timing;
    satfeat_tracker_timing_begin(t, &timing);
    const double t_detect = satfeat_tracker_clock(t);
    size_t nk = 0;
    satfeat_status st =
        satfeat_sequence_pop_features(t->seq, t->kps, t->kp_desc, t->kp_cap, &nk);
    if (st == SATFEAT_OK || st == SATFEAT_ERR_CAPACITY) {
        t->times.detect_us = satfeat_tracker_clock(t) - t_detect;
        st = satfeat_tracker_consume(t, nk, 0, NULL, t->width, t->height, tracks, descriptors,
                                     capacity, count, motion);
    }
    satfeat_tracker_timing_end(t, &timing, st);
    return st;
}

satfeat_status satfeat_tracker_push_u8(satfeat_tracker *t, const uint8_t *image, size_t stride,
                                       int width, int height, satfeat_track *tracks,
                                       float *descriptors, size_t capacity, size_t *count,
                                       satfeat_frame_motion *motion, int *popped)
{
    if (!t) return SATFEAT_ERR_ARG;
    if (!popped)
        return satfeat_fail(t->ctx, SATFEAT_ERR_ARG, "tracker_push_u8: popped must not be NULL");
    *popped = 0;
    if (!image)
        return satfeat_fail(t->ctx, SATFEAT_ERR_ARG, "tracker_push_u8: image must not be NULL");
    satfeat_status st =
        satfeat_tracker_check_frame(t, stride, width, height, tracks, capacity, count);
    if (st != SATFEAT_OK) return st;
    satfeat_status popped_st = SATFEAT_OK;
    if (satfeat_sequence_pending(t->seq) == TRACKER_SLOTS) {
        popped_st = satfeat_tracker_pop(t, tracks, descriptors, capacity, count, motion);
        *popped = popped_st == SATFEAT_OK || popped_st == SATFEAT_ERR_CAPACITY;
        if (!*popped) return popped_st;
    }
    size_t none = 0;
    int inner = 0;
    st = satfeat_sequence_push_features(t->seq, image, stride, width, height, NULL, NULL, 0, &none,
                                        &inner);
    if (st != SATFEAT_OK) return st;
    t->width = width; /* the sequence's size from its first frame on */
    t->height = height;
    return popped_st;
}

satfeat_status satfeat_tracker_discard_pending(satfeat_tracker *t)
{
    while (satfeat_sequence_pending(t->seq) > 0) {
        size_t nk = 0;
        const satfeat_status st =
            satfeat_sequence_pop_features(t->seq, t->kps, t->kp_desc, t->kp_cap, &nk);
        if (st != SATFEAT_OK && st != SATFEAT_ERR_CAPACITY) return st;
    }
    return SATFEAT_OK;
}
