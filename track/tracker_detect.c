/* tracker_detect.c - the tracker's detection: the one place it calls the detector and the
 * detector's sequence (frames in flight). Each call fills the tracker's frame set with the
 * frame's keypoints and descriptors, at most the detector's max_keypoints (the set is reserved
 * for that many at creation, so nothing is allocated). */
#include "src/context_internal.h"
#include "src/features_internal.h"
#include "track/tracker_internal.h"

/* Points the tracker's arrays at the frame set the detection filled (or empties it). */
static satfeat_status detected(satfeat_tracker *t, satfeat_status st)
{
    satfeat_tracker_frame_count(t, st == SATFEAT_OK ? satfeat_features_count(t->frame_set) : 0);
    return st;
}

satfeat_status satfeat_tracker_detect(satfeat_tracker *t, const satfeat_image_view *v)
{
    return detected(t, satfeat_detect(t->det, v, &t->frame_set));
}

satfeat_status satfeat_tracker_detect_push(satfeat_tracker *t, const satfeat_image_view *v)
{
    int popped = 0; /* never: the tracker pops before the sequence is full */
    return satfeat_sequence_push(t->seq, v, &t->frame_set, &popped);
}

satfeat_status satfeat_tracker_detect_pop(satfeat_tracker *t)
{
    return detected(t, satfeat_sequence_pop(t->seq, &t->frame_set));
}
