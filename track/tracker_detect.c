/* tracker_detect.c - the tracker's detection: the one place it calls the detector and the
 * detector's sequence (frames in flight). Each call fills the tracker's frame set with the
 * frame's keypoints and descriptors, at most the detector's max_keypoints (the set is reserved
 * for that many, so nothing is allocated). */
#include "src/context_internal.h"
#include "src/features_internal.h"
#include "track/tracker_internal.h"

/* The frame set's arrays, sized for the detector's largest output. */
static void whole_frame_set(satfeat_tracker *t, int width, int height)
{
    satfeat_features_prepare(t->frame_set, t->kp_cap, t->kind, width, height, &t->kps,
                             &t->kp_desc);
}

/* The frame set cut to the nk features a detection returned. */
static satfeat_status detected(satfeat_tracker *t, satfeat_status st, size_t nk)
{
    if (st != SATFEAT_OK && st != SATFEAT_ERR_CAPACITY) {
        satfeat_tracker_frame_count(t, 0);
        return st;
    }
    satfeat_tracker_frame_count(t, nk < t->kp_cap ? nk : t->kp_cap);
    return SATFEAT_OK;
}

satfeat_status satfeat_tracker_detect(satfeat_tracker *t, const satfeat_image_view *v)
{
    size_t nk = 0;
    satfeat_status st;
    whole_frame_set(t, v->width, v->height);
    if (v->memory == SATFEAT_MEMORY_DEVICE)
        st = satfeat_detect_features_u8_device(t->det, v->pixels, v->stride, v->width, v->height,
                                               NULL, 0, 0, 0, t->kps, t->kp_desc, t->kp_cap, &nk,
                                               v->stream);
    else
        st = satfeat_detect_features_u8(t->det, v->pixels, v->stride, v->width, v->height, NULL,
                                        0, 0, 0, t->kps, t->kp_desc, t->kp_cap, &nk);
    return detected(t, st, nk);
}

satfeat_status satfeat_tracker_detect_push(satfeat_tracker *t, const satfeat_image_view *v)
{
    size_t none = 0;
    int popped = 0; /* never: the tracker pops before the sequence is full */
    return satfeat_sequence_push_features(t->seq, v->pixels, v->stride, v->width, v->height,
                                          NULL, NULL, 0, &none, &popped);
}

satfeat_status satfeat_tracker_detect_pop(satfeat_tracker *t)
{
    size_t nk = 0;
    whole_frame_set(t, t->width, t->height);
    const satfeat_status st =
        satfeat_sequence_pop_features(t->seq, t->kps, t->kp_desc, t->kp_cap, &nk);
    return detected(t, st, nk);
}
