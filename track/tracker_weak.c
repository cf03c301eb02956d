/* tracker_weak.c - the last-chance pass: keypoints between continue_threshold and the detector
 * threshold, and a final match of the tracks that the frame left unseen. Half the frames in
 * which a live track went unseen had no keypoint within 6 px of its predicted position: the
 * structure was there, its response had dropped under the threshold (docs/TRACKING.md, "Track
 * life"). Such weak keypoints may continue a track, under the frame's motion with the inlier
 * gate; they never start one nor move the motion, so the strong keypoints' tracks, motion and
 * births stay what they were without them. Everything here runs on the host. */
#include "track/tracker_internal.h"

#include <string.h>

void satfeat_tracker_weak_split(satfeat_tracker *t, size_t nk)
{
    size_t n = nk;
    if (satfeat_tracker_continues_weak(&t->params)) {
        const double thr = t->params.detector.threshold;
        n = 0;
        while (n < nk && t->kps[n].response > thr) n++; /* the detector's test, its order */
    }
    t->n_strong = n;
    satfeat_tracker_frame_count(t, n);
}

/* 1 when (x, y) mapped by h lies within sqrt(r2) of (u, v). */
static int maps_within(const double h[9], double x, double y, double u, double v, double r2)
{
    if (tracker_map_point(h, &x, &y) != 0) return 0;
    const double dx = x - u, dy = y - v;
    return dx * dx + dy * dy <= r2;
}

satfeat_status satfeat_tracker_weak_pass(satfeat_tracker *t, size_t nk, size_t nm,
                                         const satfeat_frame_motion *fm, int on_stream,
                                         void *stream)
{
    const size_t nt = t->n_tracks;
    for (size_t i = 0; i < nt; i++) t->weak_of[i] = -1;
    if (!satfeat_tracker_continues_weak(&t->params) || !fm->valid || nt == 0 || nk == 0 ||
        !(t->params.guided_radius > 0.0))
        return SATFEAT_OK;
    /* -2 marks the tracks the frame's matches continue; their keypoints are taken */
    const satfeat_match_pair *matches = satfeat_matches_data(t->matches);
    memset(t->kp_taken, 0, nk);
    size_t continued = 0;
    for (size_t m = 0; m < nm; m++) {
        if (!t->mask[m] && t->params.reject_outliers) continue;
        t->weak_of[matches[m].query] = -2;
        t->kp_taken[matches[m].train] = 1;
        continued++;
    }
    satfeat_status st = SATFEAT_OK;
    if (continued < nt) {
        satfeat_tracker_frame_count(t, nk);
        satfeat_tracker_predict(t, fm->h_prev, fm->h_ref);
        size_t nw = 0;
        st = satfeat_tracker_match_tracks(t, t->params.guided_radius, on_stream, stream,
                                          &t->matches_alt, &nw);
        const satfeat_match_pair *w = satfeat_matches_data(t->matches_alt);
        const double r2 = t->params.motion.threshold * t->params.motion.threshold;
        for (size_t k = 0; st == SATFEAT_OK && k < nw; k++) {
            const size_t i = (size_t)w[k].query, j = (size_t)w[k].train;
            if (t->weak_of[i] != -1 || t->kp_taken[j]) continue;
            const satfeat_keypoint *kp = &t->kps[j];
            const satfeat_track *tr = &t->tracks[i];
            const tracker_state *s = &t->state[i];
            if (!maps_within(fm->h_prev, tr->x, tr->y, kp->x, kp->y, r2)) continue;
            if (fm->ref_valid && s->ref_ok &&
                !maps_within(fm->h_ref, s->ref_x, s->ref_y, kp->x, kp->y, r2))
                continue;
            t->weak_of[i] = (int)j;
            t->kp_taken[j] = 1;
        }
    }
    for (size_t i = 0; i < nt; i++)
        if (t->weak_of[i] == -2 || st != SATFEAT_OK) t->weak_of[i] = -1;
    return st;
}
