/* tracker_frame.c - one tracker frame: detect, predict, match within the search radius, estimate
 * the frame-to-frame and reference-to-frame motion, update / end / give birth to tracks, and
 * write the live tracks in ascending id order. */
#include "context_internal.h"
#include "linalg_small.h"
#include "tracker_internal.h"

#include <string.h>

/* PROSAC quality of a match: closer descriptors first. */
#define TRACKER_QUALITY_EPS 1e-3f

static const double identity9[9] = {1, 0, 0, 0, 1, 0, 0, 0, 1};

/* Checks a frame's arguments before anything changes; records the reason. */
static satfeat_status check_frame(satfeat_tracker *t, size_t stride, int width, int height,
                                  const satfeat_track *tracks, size_t capacity,
                                  const size_t *count)
{
    satfeat_ctx *ctx = t->ctx;
    if (!count) return satfeat_fail(ctx, SATFEAT_ERR_ARG, "tracker: count must not be NULL");
    if (!tracks && capacity > 0)
        return satfeat_fail(ctx, SATFEAT_ERR_ARG,
                            "tracker: tracks is NULL with capacity %zu > 0", capacity);
    if (width < 1 || height < 1 || width > t->max_width || height > t->max_height)
        return satfeat_fail(ctx, SATFEAT_ERR_ARG, "tracker: frame %d x %d outside 1 x 1 .. %d x %d",
                            width, height, t->max_width, t->max_height);
    if (stride < (size_t)width)
        return satfeat_fail(ctx, SATFEAT_ERR_ARG, "tracker: stride %zu below width %d", stride,
                            width);
    if (t->width && (width != t->width || height != t->height))
        return satfeat_fail(ctx, SATFEAT_ERR_ARG,
                            "tracker: frame %d x %d differs from the sequence's %d x %d (reset "
                            "the tracker to change size)", width, height, t->width, t->height);
    return SATFEAT_OK;
}

/* Drops keypoints closer than `dist` px to a stronger keypoint of the frame (the detector's
 * order is response descending), so one structure found at two scales is one train for the
 * matcher and does not fail its ratio test against itself. Returns the new count. */
static size_t thin_keypoints(satfeat_tracker *t, size_t nk, double dist)
{
    if (!(dist > 0.0)) return nk;
    const double d2 = dist * dist;
    const size_t dim = (size_t)t->dim;
    size_t kept = 0;
    for (size_t j = 0; j < nk; j++) {
        const satfeat_keypoint *kp = &t->kps[j];
        int near = 0;
        for (size_t i = 0; i < kept && !near; i++) {
            const double dx = t->kps[i].x - kp->x, dy = t->kps[i].y - kp->y;
            near = dx * dx + dy * dy < d2;
        }
        if (near) continue;
        if (kept != j) {
            t->kps[kept] = *kp;
            memcpy(t->kp_desc + kept * dim, t->kp_desc + j * dim, dim * sizeof(float));
        }
        kept++;
    }
    return kept;
}

/* Matches the live tracks (queries, at their predicted positions) against the frame's nk
 * keypoints; writes t->matches and *nm. On a device frame the matcher runs on `stream`. */
static satfeat_status match_tracks(satfeat_tracker *t, size_t nk, int on_stream, void *stream,
                                   size_t *nm)
{
    const size_t nt = t->n_tracks;
    const double *hp = t->have_prev ? t->h_prev : identity9;
    for (size_t i = 0; i < nt; i++) {
        const satfeat_track *tr = &t->tracks[i];
        satfeat_keypoint *q = &t->queries[i];
        q->x = tr->x;
        q->y = tr->y;
        q->size = tr->size;
        q->angle = tr->angle;
        q->laplacian = tr->laplacian;
        double px = tr->x, py = tr->y;
        tracker_map_point(hp, &px, &py); /* behind the horizon: predicted where it was */
        t->predicted[2 * i] = px;
        t->predicted[2 * i + 1] = py;
    }
    /* without a motion estimate (the second frame, or after a frame without a model) the
     * prediction is only the old position: search the whole frame instead of the radius */
    satfeat_match_params mp = t->params.match;
    if (!t->have_prev) mp.radius = 0.0;
    satfeat_ctx *ctx = t->ctx;
    void *saved = ctx->stream;
    if (on_stream) ctx->stream = stream;
    satfeat_status st = satfeat_match_descriptors(ctx, t->queries, t->desc, nt, t->kps, t->kp_desc,
                                                  nk, t->dim, t->predicted, &mp, t->matches, nt,
                                                  nm);
    ctx->stream = saved;
    return st;
}

/* Motion of this frame from the nm matches: h_prev (frame-to-frame, inlier flags in t->mask) and
 * h_ref (first frame -> this frame). Returns SATFEAT_OK or a hard error (not NO_MODEL). */
static satfeat_status estimate(satfeat_tracker *t, size_t nm, satfeat_frame_motion *fm)
{
    satfeat_ctx *ctx = t->ctx;
    memcpy(fm->h_prev, identity9, sizeof identity9);
    memcpy(fm->h_ref, t->h_ref, sizeof fm->h_ref);
    memset(t->mask, 0, nm);
    for (size_t m = 0; m < nm; m++) {
        const satfeat_match *mt = &t->matches[m];
        t->src_xy[2 * m] = t->tracks[mt->query].x;
        t->src_xy[2 * m + 1] = t->tracks[mt->query].y;
        t->dst_xy[2 * m] = t->kps[mt->train].x;
        t->dst_xy[2 * m + 1] = t->kps[mt->train].y;
        t->quality[m] = 1.0f / (mt->distance + TRACKER_QUALITY_EPS);
    }
    satfeat_motion mo;
    satfeat_status st = satfeat_estimate_motion(ctx, t->src_xy, t->dst_xy, nm, t->quality,
                                                &t->params.motion, &mo, t->mask);
    if (st == SATFEAT_OK) {
        fm->valid = 1;
        memcpy(fm->h_prev, mo.h, sizeof mo.h);
        fm->inliers = mo.inliers;
        fm->rms_error = mo.rms_error;
    } else if (st != SATFEAT_ERR_NO_MODEL) {
        return st;
    } else {
        memset(t->mask, 0, nm);
        ctx->last_error[0] = '\0'; /* no model is a result of the frame, not an error */
    }
    /* Reference motion: the matched tracks' first-frame positions -> this frame's (compacted in
     * place: entry r is written from entry m >= r). */
    size_t nr = 0;
    for (size_t m = 0; m < nm; m++) {
        const tracker_state *s = &t->state[t->matches[m].query];
        if (!s->ref_ok) continue;
        t->src_xy[2 * nr] = s->ref_x;
        t->src_xy[2 * nr + 1] = s->ref_y;
        t->dst_xy[2 * nr] = t->dst_xy[2 * m];
        t->dst_xy[2 * nr + 1] = t->dst_xy[2 * m + 1];
        t->quality[nr] = t->quality[m];
        nr++;
    }
    st = satfeat_estimate_motion(ctx, t->src_xy, t->dst_xy, nr, t->quality, &t->params.motion,
                                 &mo, NULL);
    if (st == SATFEAT_OK) {
        fm->ref_valid = 1;
        memcpy(fm->h_ref, mo.h, sizeof mo.h);
    } else if (st != SATFEAT_ERR_NO_MODEL) {
        return st;
    } else {
        ctx->last_error[0] = '\0';
    }
    if (!fm->ref_valid && fm->valid) {
        double c[9];
        lin_mat3_mul(fm->h_prev, t->h_ref, c);
        if (c[8] != 0.0)
            for (int i = 0; i < 9; i++) fm->h_ref[i] = c[i] / c[8];
    }
    return SATFEAT_OK;
}

/* Continues matched tracks, moves and ages the others, ends the lost ones (order kept). */
static void update_tracks(satfeat_tracker *t, size_t nm, const satfeat_frame_motion *fm,
                          int width, int height)
{
    const size_t nt = t->n_tracks, dim = (size_t)t->dim;
    for (size_t i = 0; i < nt; i++) t->match_of[i] = -1;
    for (size_t m = 0; m < nm; m++) t->match_of[t->matches[m].query] = (int)m;
    size_t kept = 0;
    for (size_t i = 0; i < nt; i++) {
        satfeat_track tr = t->tracks[i];
        tr.age++;
        const int m = t->match_of[i];
        if (m >= 0) {
            const int j = t->matches[m].train;
            const satfeat_keypoint *kp = &t->kps[j];
            tr.x = kp->x;
            tr.y = kp->y;
            tr.size = kp->size;
            tr.angle = kp->angle;
            tr.laplacian = kp->laplacian;
            tr.missed = 0;
            tr.inlier = t->mask[m] ? 1 : 0;
            memcpy(t->desc + kept * dim, t->kp_desc + (size_t)j * dim, dim * sizeof(float));
        } else {
            tr.missed++;
            tr.inlier = 0;
            if (fm->valid) tracker_map_point(fm->h_prev, &tr.x, &tr.y);
            const int inside = tr.x >= 0.0 && tr.y >= 0.0 && tr.x <= (double)(width - 1) &&
                               tr.y <= (double)(height - 1);
            if (tr.missed > t->params.max_missed || !inside) continue;
            if (kept != i) memmove(t->desc + kept * dim, t->desc + i * dim, dim * sizeof(float));
        }
        t->state[kept] = t->state[i];
        t->tracks[kept] = tr;
        kept++;
    }
    t->n_tracks = kept;
}

/* Gives birth to tracks from the keypoints no track took, in detector order; returns how many. */
static size_t birth_tracks(satfeat_tracker *t, size_t nk, size_t nm, const double h_ref[9])
{
    const size_t dim = (size_t)t->dim, cap = (size_t)t->params.max_tracks;
    const double d2 = t->params.min_birth_distance * t->params.min_birth_distance;
    double inv[9];
    const int inv_ok = lin_mat3_inverse(h_ref, inv) == 0;
    memset(t->kp_taken, 0, nk);
    for (size_t m = 0; m < nm; m++) t->kp_taken[t->matches[m].train] = 1;
    size_t born = 0;
    for (size_t j = 0; j < nk && t->n_tracks < cap; j++) {
        if (t->kp_taken[j]) continue;
        const satfeat_keypoint *kp = &t->kps[j];
        int near = 0;
        for (size_t i = 0; i < t->n_tracks && !near; i++) {
            const double dx = t->tracks[i].x - kp->x, dy = t->tracks[i].y - kp->y;
            near = dx * dx + dy * dy < d2;
        }
        if (near) continue;
        const size_t n = t->n_tracks;
        satfeat_track *tr = &t->tracks[n];
        memset(tr, 0, sizeof *tr);
        tr->id = t->next_id++;
        tr->x = kp->x;
        tr->y = kp->y;
        tr->size = kp->size;
        tr->angle = kp->angle;
        tr->laplacian = kp->laplacian;
        tracker_state *s = &t->state[n];
        s->ref_x = kp->x;
        s->ref_y = kp->y;
        s->ref_ok = inv_ok && tracker_map_point(inv, &s->ref_x, &s->ref_y) == 0;
        memcpy(t->desc + n * dim, t->kp_desc + j * dim, dim * sizeof(float));
        t->n_tracks = n + 1;
        born++;
    }
    return born;
}

satfeat_status satfeat_tracker_frame(satfeat_tracker *t, const uint8_t *image,
                                     const uint8_t *d_image, size_t stride, int width, int height,
                                     satfeat_track *tracks, float *descriptors, size_t capacity,
                                     size_t *count, satfeat_frame_motion *motion, void *stream)
{
    satfeat_status st = check_frame(t, stride, width, height, tracks, capacity, count);
    if (st != SATFEAT_OK) return st;
    size_t nk = 0;
    if (d_image)
        st = satfeat_detect_features_u8_device(t->det, d_image, stride, width, height, NULL, 0, 0, 0,
                                               t->kps, t->kp_desc, t->kp_cap, &nk, stream);
    else
        st = satfeat_detect_features_u8(t->det, image, stride, width, height, NULL, 0, 0, 0, t->kps,
                                        t->kp_desc, t->kp_cap, &nk);
    if (st != SATFEAT_OK && st != SATFEAT_ERR_CAPACITY) return st;
    if (nk > t->kp_cap) nk = t->kp_cap;
    nk = thin_keypoints(t, nk, t->params.min_birth_distance);

    size_t nm = 0;
    if (t->n_tracks > 0 && nk > 0) {
        st = match_tracks(t, nk, d_image != NULL, stream, &nm);
        if (st != SATFEAT_OK) return st;
    }
    satfeat_frame_motion fm;
    memset(&fm, 0, sizeof fm);
    fm.frame = t->frame;
    fm.keypoints = nk;
    fm.matches = nm;
    st = estimate(t, nm, &fm);
    if (st != SATFEAT_OK) return st;

    /* From here on the frame is consumed. */
    const size_t before = t->n_tracks;
    update_tracks(t, nm, &fm, width, height);
    fm.ended = before - t->n_tracks;
    fm.born = birth_tracks(t, nk, nm, fm.h_ref);
    memcpy(t->h_prev, fm.h_prev, sizeof fm.h_prev);
    memcpy(t->h_ref, fm.h_ref, sizeof fm.h_ref);
    t->have_prev = fm.valid;
    t->width = width;
    t->height = height;
    t->frame++;

    const size_t n = t->n_tracks, out_n = n < capacity ? n : capacity;
    if (out_n > 0) memcpy(tracks, t->tracks, out_n * sizeof *tracks);
    if (descriptors && out_n > 0)
        memcpy(descriptors, t->desc, out_n * (size_t)t->dim * sizeof(float));
    *count = n;
    if (motion) *motion = fm;
    if (n > capacity)
        return satfeat_fail(t->ctx, SATFEAT_ERR_CAPACITY,
                            "tracker: %zu live tracks, capacity %zu (the frame was consumed)", n,
                            capacity);
    return SATFEAT_OK;
}
