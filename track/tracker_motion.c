/* tracker_motion.c - the tracker's motion of one frame from its matches: the frame-to-frame
 * motion (previous positions -> matched keypoints), the reference motion (first-frame positions
 * -> matched keypoints) and which matches agree with both. */
#include "src/context_internal.h"
#include "track/linalg_small.h"
#include "track/match_quality.h"
#include "track/tracker_internal.h"

#include <string.h>

/* Runs the estimator on the first n entries of t->src_xy / t->dst_xy / t->quality. Returns 1 with
 * *mo and `mask` (may be NULL) filled, 0 when there is no model (no error recorded), or -1 with
 * *st set to the hard error. */
static int estimate_pairs(satfeat_tracker *t, size_t n, satfeat_motion *mo, uint8_t *mask,
                          satfeat_status *st)
{
    satfeat_ctx *ctx = t->ctx;
    const double t0 = satfeat_tracker_clock(t);
    *st = satfeat_estimate_motion(ctx, t->src_xy, t->dst_xy, n, t->quality, &t->params.motion, mo,
                                  mask);
    t->times.motion_us += satfeat_tracker_clock(t) - t0;
    if (*st == SATFEAT_OK) return 1;
    if (*st != SATFEAT_ERR_NO_MODEL) return -1;
    *st = SATFEAT_OK;
    ctx->last_error[0] = '\0'; /* no model is a result of the frame, not an error */
    return 0;
}

int satfeat_tracker_estimate_prev(satfeat_tracker *t, size_t nm, satfeat_motion *mo,
                                  satfeat_status *st)
{
    const satfeat_match_pair *matches = satfeat_matches_data(t->matches);
    size_t n = 0; /* the pairs: matches of tracks not last seen weak; ref_index maps back */
    for (size_t m = 0; m < nm; m++) {
        const satfeat_match_pair *mt = &matches[m];
        if (t->state[mt->query].weak) continue;
        t->src_xy[2 * n] = t->tracks[mt->query].x;
        t->src_xy[2 * n + 1] = t->tracks[mt->query].y;
        t->dst_xy[2 * n] = t->kps[mt->train].x;
        t->dst_xy[2 * n + 1] = t->kps[mt->train].y;
        t->quality[n] = satfeat_match_quality(mt->distance);
        t->ref_index[n] = (int)m;
        n++;
    }
    memset(t->mask, 0, nm);
    const int r = estimate_pairs(t, n, mo, t->mask_scratch, st);
    if (r == 1)
        for (size_t k = 0; k < n; k++) t->mask[t->ref_index[k]] = t->mask_scratch[k];
    return r;
}

int satfeat_tracker_estimate_ref(satfeat_tracker *t, size_t n_refm, size_t nm, satfeat_motion *mo,
                         satfeat_status *st)
{
    const satfeat_match_pair *ref_matches = satfeat_matches_data(t->ref_matches);
    const satfeat_match_pair *matches = satfeat_matches_data(t->matches);
    size_t n = 0;
    for (size_t k = 0; k < n_refm; k++, n++) {
        const satfeat_match_pair *mt = &ref_matches[k];
        t->src_xy[2 * n] = t->ref_kps[mt->query].x;
        t->src_xy[2 * n + 1] = t->ref_kps[mt->query].y;
        t->dst_xy[2 * n] = t->kps[mt->train].x;
        t->dst_xy[2 * n + 1] = t->kps[mt->train].y;
        t->quality[n] = satfeat_match_quality(mt->distance);
    }
    /* the matched tracks with a known first-frame position; ref_index maps back */
    for (size_t m = 0; m < nm; m++) {
        const satfeat_match_pair *mt = &matches[m];
        const tracker_state *s = &t->state[mt->query];
        t->ref_mask[m] = 1; /* a track without a first-frame position cannot be checked */
        if (!s->ref_ok || s->weak) continue; /* a weak track's match is no inlier anyway */
        t->src_xy[2 * n] = s->ref_x;
        t->src_xy[2 * n + 1] = s->ref_y;
        t->dst_xy[2 * n] = t->kps[mt->train].x;
        t->dst_xy[2 * n + 1] = t->kps[mt->train].y;
        t->quality[n] = satfeat_match_quality(mt->distance);
        t->ref_index[n - n_refm] = (int)m;
        n++;
    }
    uint8_t *mask = t->mask_scratch;
    const int r = estimate_pairs(t, n, mo, mask, st);
    if (r == 1)
        for (size_t k = n_refm; k < n; k++) t->ref_mask[t->ref_index[k - n_refm]] = mask[k];
    return r;
}

void satfeat_tracker_predict(satfeat_tracker *t, const double h_prev[9], const double *h_ref)
{
    for (size_t i = 0; i < t->n_tracks; i++) {
        const satfeat_track *tr = &t->tracks[i];
        const tracker_state *s = &t->state[i];
        double px = tr->x, py = tr->y;
        int done = 0;
        if (h_ref && s->ref_ok) {
            double rx = s->ref_x, ry = s->ref_y;
            if (tracker_map_point(h_ref, &rx, &ry) == 0) {
                px = rx;
                py = ry;
                done = 1;
            }
        }
        if (!done) tracker_map_point(h_prev, &px, &py); /* behind the horizon: where it was */
        t->predicted[2 * i] = px;
        t->predicted[2 * i + 1] = py;
    }
}
