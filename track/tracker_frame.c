/* tracker_frame.c - one tracker frame: detect, predict, match within the search radius (the
 * whole frame when that fails), estimate the frame-to-frame motion, match again guided by it,
 * estimate the reference motion, update / end / give birth to tracks, and write the live tracks
 * in ascending id order. */
#include "src/context_internal.h"
#include "src/features_internal.h"
#include "track/linalg_small.h"
#include "track/tracker_internal.h"

#include <string.h>

static const double identity9[9] = {1, 0, 0, 0, 1, 0, 0, 0, 1};

/* Checks a frame's view before anything changes; records the reason. */
satfeat_status satfeat_tracker_check_frame(satfeat_tracker *t, const satfeat_image_view *v,
                                           int device_ok)
{
    satfeat_ctx *ctx = t->ctx;
    if (!v || !v->pixels)
        return satfeat_fail(ctx, SATFEAT_ERR_ARG, "tracker: the frame or its pixels are NULL");
    if (v->memory != SATFEAT_MEMORY_HOST && v->memory != SATFEAT_MEMORY_DEVICE)
        return satfeat_fail(ctx, SATFEAT_ERR_ARG, "tracker: frame memory %d is unknown",
                            (int)v->memory);
    if (v->memory == SATFEAT_MEMORY_DEVICE && !device_ok)
        return satfeat_fail(ctx, SATFEAT_ERR_UNSUPPORTED,
                            "tracker: push takes host frames (track a device frame instead)");
    if (v->memory == SATFEAT_MEMORY_DEVICE && satfeat_ctx_backend(ctx) != SATFEAT_BACKEND_CUDA)
        return satfeat_fail(ctx, SATFEAT_ERR_UNSUPPORTED,
                            "tracker: a device frame needs a tracker of a CUDA context");
    if (v->mask)
        return satfeat_fail(ctx, SATFEAT_ERR_ARG,
                            "tracker: frames with a mask are not supported (whole frames only)");
    const int width = v->width, height = v->height;
    if (width < 1 || height < 1 || width > t->max_width || height > t->max_height)
        return satfeat_fail(ctx, SATFEAT_ERR_ARG, "tracker: frame %d x %d outside 1 x 1 .. %d x %d",
                            width, height, t->max_width, t->max_height);
    if (v->stride < (size_t)width)
        return satfeat_fail(ctx, SATFEAT_ERR_ARG, "tracker: stride %zu below width %d", v->stride,
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
    satfeat_spatial_grid_clear(&t->grid);
    size_t kept = 0;
    for (size_t j = 0; j < nk; j++) {
        const satfeat_keypoint *kp = &t->kps[j];
        if (satfeat_spatial_grid_any_within(&t->grid, kp->x, kp->y, d2)) continue;
        satfeat_spatial_grid_insert(&t->grid, kp->x, kp->y);
        if (kept != j) {
            t->kps[kept] = *kp;
            memcpy(t->kp_desc + kept * dim, t->kp_desc + j * dim, dim * sizeof(float));
        }
        kept++;
    }
    return kept;
}

satfeat_status satfeat_tracker_match_tracks(satfeat_tracker *t, double radius, int on_stream,
                                            void *stream, satfeat_matches **out, size_t *nm)
{
    const size_t nt = t->n_tracks;
    satfeat_features_prepare(t->track_set, nt, t->kind, 0, 0, &t->queries, &t->desc);
    for (size_t i = 0; i < nt; i++) {
        const satfeat_track *tr = &t->tracks[i];
        satfeat_keypoint *q = &t->queries[i];
        q->x = tr->x;
        q->y = tr->y;
        q->size = tr->size;
        q->angle = tr->angle;
        q->laplacian = tr->laplacian;
    }
    satfeat_match_params mp = t->params.match;
    mp.radius = radius;
    satfeat_ctx *ctx = t->ctx;
    void *saved = ctx->stream;
    if (on_stream) ctx->stream = stream;
    const double t0 = satfeat_tracker_clock(t);
    satfeat_status st = satfeat_match_guided(ctx, t->track_set, t->frame_set, t->predicted, &mp,
                                             out);
    *nm = satfeat_matches_count(*out);
    t->times.match_us += satfeat_tracker_clock(t) - t0;
    t->times.match_passes++;
    ctx->stream = saved;
    return st;
}

static void swap_match_sets(satfeat_tracker *t)
{
    satfeat_matches *m = t->matches;
    t->matches = t->matches_alt;
    t->matches_alt = m;
}

/* First pass: the tracks within the match radius of their positions mapped by the last motion
 * (the whole frame when there is none); when that finds no model or fewer than half the last
 * frame's inliers, the whole frame is searched too and the set with more inliers kept. Leaves
 * the set in t->matches, *nm, the model in *mo / t->mask; returns 1 (model), 0 (none) or -1
 * (*st holds the error). */
static int first_pass(satfeat_tracker *t, int on_stream, void *stream, size_t *nm,
                      satfeat_motion *mo, satfeat_status *st)
{
    const double radius = t->have_prev ? t->params.match.radius : 0.0;
    satfeat_tracker_predict(t, t->have_prev ? t->h_prev : identity9, NULL);
    *st = satfeat_tracker_match_tracks(t, radius, on_stream, stream, &t->matches, nm);
    if (*st != SATFEAT_OK) return -1;
    int r = satfeat_tracker_estimate_prev(t, *nm, mo, st);
    if (r < 0 || !(radius > 0.0) || (r == 1 && 2 * mo->inliers >= t->last_inliers)) return r;
    size_t nm_wide = 0;
    satfeat_motion mo_wide;
    *st = satfeat_tracker_match_tracks(t, 0.0, on_stream, stream, &t->matches_alt, &nm_wide);
    if (*st != SATFEAT_OK) return -1;
    swap_match_sets(t);
    const int r_wide = satfeat_tracker_estimate_prev(t, nm_wide, &mo_wide, st);
    if (r_wide < 0) return -1;
    if (r_wide == 1 && (r == 0 || mo_wide.inliers > mo->inliers)) {
        *nm = nm_wide;
        *mo = mo_wide;
        return 1;
    }
    swap_match_sets(t); /* the first set stays: estimate it again for its mask */
    return satfeat_tracker_estimate_prev(t, *nm, mo, st);
}

/* Matches the reference keypoints (the first frame's) within the match radius of their
 * positions under h_ref_pred into t->ref_matches; writes *n_refm. */
static satfeat_status match_reference(satfeat_tracker *t, const double h_ref_pred[9],
                                      int on_stream, void *stream, size_t *n_refm)
{
    *n_refm = 0;
    if (t->n_ref == 0) return SATFEAT_OK;
    for (size_t k = 0; k < t->n_ref; k++) {
        double x = t->ref_kps[k].x, y = t->ref_kps[k].y;
        tracker_map_point(h_ref_pred, &x, &y);
        t->ref_predicted[2 * k] = x;
        t->ref_predicted[2 * k + 1] = y;
    }
    satfeat_match_params mp = t->params.match;
    if (!(mp.radius > 0.0)) mp.radius = t->params.guided_radius;
    satfeat_ctx *ctx = t->ctx;
    void *saved = ctx->stream;
    if (on_stream) ctx->stream = stream;
    const double t0 = satfeat_tracker_clock(t);
    satfeat_status st = satfeat_match_guided(ctx, t->ref_set, t->frame_set, t->ref_predicted, &mp,
                                             &t->ref_matches);
    *n_refm = satfeat_matches_count(t->ref_matches);
    t->times.match_us += satfeat_tracker_clock(t) - t0;
    t->times.match_passes++;
    ctx->stream = saved;
    return st;
}

/* Second stage, with the frame-to-frame model *mo of the first pass: the reference motion
 * predicted by chaining (*mo after the last h_ref), the reference keypoints matched around it
 * (t->ref_matches, *n_refm); then (guided_radius > 0) every track matched again within
 * guided_radius of its position under the predicted motion (its first-frame position mapped by
 * the predicted h_ref where known) and the frame-to-frame motion estimated again, kept when it
 * gives a model. Returns as first_pass. (Estimating h_ref from the first-pass matches instead of
 * chaining measured the same on dune, boat and four generated sequences, at two more estimations
 * a frame: docs/TRACKING.md.) */
static int guided_pass(satfeat_tracker *t, int on_stream, void *stream, size_t *nm,
                       satfeat_motion *mo, size_t *n_refm, satfeat_status *st)
{
    double h_ref_pred[9];
    satfeat_lin_mat3_mul(mo->h, t->h_ref, h_ref_pred);
    *st = match_reference(t, h_ref_pred, on_stream, stream, n_refm);
    if (*st != SATFEAT_OK) return -1;
    if (!(t->params.guided_radius > 0.0)) return 1;
    satfeat_tracker_predict(t, mo->h, h_ref_pred);
    size_t nm_g = 0;
    satfeat_motion mo_g;
    *st = satfeat_tracker_match_tracks(t, t->params.guided_radius, on_stream, stream,
                                       &t->matches_alt, &nm_g);
    if (*st != SATFEAT_OK) return -1;
    swap_match_sets(t);
    const int rg = satfeat_tracker_estimate_prev(t, nm_g, &mo_g, st);
    if (rg < 0) return -1;
    if (rg == 1) {
        *nm = nm_g;
        *mo = mo_g;
        return 1;
    }
    swap_match_sets(t); /* the guided set found no model: keep the first one */
    return satfeat_tracker_estimate_prev(t, *nm, mo, st);
}

/* Motion of this frame: h_prev with its inlier flags (t->mask, from the passes), h_ref (first
 * frame -> this frame) from the n_refm reference matches and the nm track matches, with
 * t->ref_mask, and the matches that agree with both (t->mask, combined). Returns SATFEAT_OK or a
 * hard error. */
static satfeat_status estimate_reference(satfeat_tracker *t, size_t nm, size_t n_refm,
                                         int have_model, const satfeat_motion *mo,
                                         satfeat_frame_motion *fm)
{
    memcpy(fm->h_prev, identity9, sizeof identity9);
    memcpy(fm->h_ref, t->h_ref, sizeof fm->h_ref);
    if (have_model) {
        fm->valid = 1;
        memcpy(fm->h_prev, mo->h, sizeof mo->h);
        fm->inliers = mo->inliers;
        fm->rms_error = mo->rms_error;
    }
    satfeat_status st = SATFEAT_OK;
    satfeat_motion mo_ref;
    const int rr = satfeat_tracker_estimate_ref(t, n_refm, nm, &mo_ref, &st);
    if (rr < 0) return st;
    if (rr == 1) {
        fm->ref_valid = 1;
        memcpy(fm->h_ref, mo_ref.h, sizeof mo_ref.h);
    } else if (fm->valid) {
        double c[9];
        satfeat_lin_mat3_mul(fm->h_prev, t->h_ref, c);
        if (c[8] != 0.0)
            for (int i = 0; i < 9; i++) fm->h_ref[i] = c[i] / c[8];
    }
    /* an inlier agrees with h_prev and, where h_ref was estimated, with h_ref */
    for (size_t m = 0; m < nm; m++)
        t->mask[m] = (uint8_t)(t->mask[m] && (rr != 1 || t->ref_mask[m]));
    return SATFEAT_OK;
}

/* Keeps the first frame's keypoints and descriptors as the reference model (the set is reserved
 * for every frame's keypoints: nothing is allocated). */
static void keep_reference(satfeat_tracker *t, size_t nk, int width, int height)
{
    satfeat_features_assign(t->ref_set, t->kps, t->kp_desc, nk, t->kind, width, height);
    t->n_ref = satfeat_features_count(t->ref_set);
    t->ref_kps = satfeat_features_keypoints(t->ref_set);
}

/* 1 when match m continues its track (an inlier, or any match with reject_outliers 0). */
static int match_continues(const satfeat_tracker *t, int m)
{
    return m >= 0 && (t->mask[m] || !t->params.reject_outliers);
}

/* Continues matched tracks, moves and ages the others (to the first-frame position mapped by
 * h_ref where estimated, else by h_prev), ends the lost ones (order kept). */
static void update_tracks(satfeat_tracker *t, size_t nm, const satfeat_frame_motion *fm,
                          int width, int height)
{
    const size_t nt = t->n_tracks, dim = (size_t)t->dim;
    for (size_t i = 0; i < nt; i++) t->match_of[i] = -1;
    const satfeat_match_pair *matches = satfeat_matches_data(t->matches);
    for (size_t m = 0; m < nm; m++) t->match_of[matches[m].query] = (int)m;
    size_t kept = 0;
    for (size_t i = 0; i < nt; i++) {
        satfeat_track tr = t->tracks[i];
        const tracker_state *s = &t->state[i];
        tr.age++;
        const int m = t->match_of[i];
        int j = -1, inlier = 1; /* the keypoint that continues the track */
        if (match_continues(t, m)) {
            j = matches[m].train;
            inlier = t->mask[m];
        } else {
            j = t->weak_of[i];
        }
        if (j >= 0) {
            t->state[i].weak = (size_t)j >= t->n_strong;
            const satfeat_keypoint *kp = &t->kps[j];
            tr.x = kp->x;
            tr.y = kp->y;
            tr.size = kp->size;
            tr.angle = kp->angle;
            tr.laplacian = kp->laplacian;
            tr.missed = 0;
            tr.inlier = inlier ? 1 : 0;
            memcpy(t->desc + kept * dim, t->kp_desc + (size_t)j * dim, dim * sizeof(float));
        } else {
            tr.missed++;
            tr.inlier = 0;
            double rx = s->ref_x, ry = s->ref_y;
            if (fm->ref_valid && s->ref_ok && tracker_map_point(fm->h_ref, &rx, &ry) == 0) {
                tr.x = rx;
                tr.y = ry;
            } else if (fm->valid) {
                tracker_map_point(fm->h_prev, &tr.x, &tr.y);
            }
            const int inside = tr.x >= 0.0 && tr.y >= 0.0 && tr.x <= (double)(width - 1) &&
                               tr.y <= (double)(height - 1);
            if (tr.missed > t->params.max_missed || !inside) continue;
            if (kept != i) memmove(t->desc + kept * dim, t->desc + i * dim, dim * sizeof(float));
        }
        t->state[kept] = *s;
        t->tracks[kept] = tr;
        kept++;
    }
    t->n_tracks = kept;
}

/* Gives birth to tracks from the keypoints no track took, in detector order; returns how many. */
static size_t birth_tracks(satfeat_tracker *t, size_t nk, size_t nm, size_t n_before,
                           const double h_ref[9])
{
    const size_t dim = (size_t)t->dim, cap = (size_t)t->params.max_tracks;
    const double d2 = t->params.min_birth_distance * t->params.min_birth_distance;
    double inv[9];
    const int inv_ok = satfeat_lin_mat3_inverse(h_ref, inv) == 0;
    const satfeat_match_pair *matches = satfeat_matches_data(t->matches);
    memset(t->kp_taken, 0, nk);
    for (size_t m = 0; m < nm; m++)
        if (match_continues(t, (int)m)) t->kp_taken[matches[m].train] = 1;
    for (size_t i = 0; i < n_before; i++) /* weak_of: the tracks before the update */
        if (t->weak_of[i] >= 0 && (size_t)t->weak_of[i] < nk) t->kp_taken[t->weak_of[i]] = 1;
    const int spaced = t->params.min_birth_distance > 0.0;
    if (spaced) {
        satfeat_spatial_grid_clear(&t->grid);
        for (size_t i = 0; i < t->n_tracks; i++)
            satfeat_spatial_grid_insert(&t->grid, t->tracks[i].x, t->tracks[i].y);
    }
    size_t born = 0;
    for (size_t j = 0; j < nk && t->n_tracks < cap; j++) {
        if (t->kp_taken[j]) continue;
        const satfeat_keypoint *kp = &t->kps[j];
        if (t->params.max_birth_size > 0.0 && kp->size > t->params.max_birth_size) continue;
        if (!satfeat_tracker_birth_confirmed(t, kp->x, kp->y)) continue;
        if (spaced && satfeat_spatial_grid_any_within(&t->grid, kp->x, kp->y, d2)) continue;
        if (spaced) satfeat_spatial_grid_insert(&t->grid, kp->x, kp->y);
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
        s->weak = 0;
        s->ref_ok = inv_ok && tracker_map_point(inv, &s->ref_x, &s->ref_y) == 0;
        memcpy(t->desc + n * dim, t->kp_desc + j * dim, dim * sizeof(float));
        t->n_tracks = n + 1;
        born++;
    }
    return born;
}

satfeat_status satfeat_tracker_consume(satfeat_tracker *t, int on_stream, void *stream,
                                       int width, int height, satfeat_frame_motion *motion)
{
    satfeat_status st = SATFEAT_OK;
    const double t_thin = satfeat_tracker_clock(t);
    const size_t nk = thin_keypoints(t, satfeat_features_count(t->frame_set),
                                     t->params.min_birth_distance);
    satfeat_tracker_weak_split(t, nk); /* the passes, the motion and births: above threshold */
    const size_t ns = t->n_strong;
    t->times.detect_us += satfeat_tracker_clock(t) - t_thin;

    size_t nm = 0, n_refm = 0;
    int have_model = 0;
    satfeat_motion mo;
    memset(&mo, 0, sizeof mo);
    if (t->n_tracks > 0 && ns > 0) {
        have_model = first_pass(t, on_stream, stream, &nm, &mo, &st);
        if (have_model == 1)
            have_model = guided_pass(t, on_stream, stream, &nm, &mo, &n_refm, &st);
        if (have_model < 0) return st;
    }
    satfeat_frame_motion fm;
    memset(&fm, 0, sizeof fm);
    fm.frame = t->frame;
    fm.keypoints = nk;
    fm.matches = nm;
    st = estimate_reference(t, nm, n_refm, have_model, &mo, &fm);
    if (st != SATFEAT_OK) return st;
    st = satfeat_tracker_weak_pass(t, nk, nm, &fm, on_stream, stream);
    if (st != SATFEAT_OK) return st;

    /* From here on the frame is consumed. */
    if (t->frame == 0) keep_reference(t, ns, width, height);
    const size_t before = t->n_tracks;
    update_tracks(t, nm, &fm, width, height);
    fm.ended = before - t->n_tracks;
    satfeat_tracker_confirm_prepare(t, &fm);
    fm.born = birth_tracks(t, ns, nm, before, fm.h_ref);
    satfeat_tracker_confirm_keep(t, ns);
    memcpy(t->h_prev, fm.h_prev, sizeof fm.h_prev);
    memcpy(t->h_ref, fm.h_ref, sizeof fm.h_ref);
    t->have_prev = fm.valid;
    t->last_inliers = fm.inliers;
    t->width = width;
    t->height = height;
    t->frame++;
    if (motion) *motion = fm;
    return SATFEAT_OK;
}

satfeat_status satfeat_tracker_track(satfeat_tracker *t, const satfeat_image_view *frame,
                                     satfeat_frame_motion *motion)
{
    if (!t) return SATFEAT_ERR_ARG;
    satfeat_status st = satfeat_tracker_check_frame(t, frame, 1);
    if (st != SATFEAT_OK) return st;
    if (satfeat_sequence_pending(t->seq) > 0)
        return satfeat_fail(t->ctx, SATFEAT_ERR_ARG, "tracker: %d pushed frames are pending "
                            "(pop them first)", satfeat_sequence_pending(t->seq));
    tracker_timing timing;
    satfeat_tracker_timing_begin(t, &timing);
    const double t_detect = satfeat_tracker_clock(t);
    st = satfeat_tracker_detect(t, frame);
    if (st == SATFEAT_OK) {
        t->times.detect_us = satfeat_tracker_clock(t) - t_detect;
        const int on_stream = frame->memory == SATFEAT_MEMORY_DEVICE;
        st = satfeat_tracker_consume(t, on_stream, frame->stream, frame->width, frame->height,
                                     motion);
    }
    satfeat_tracker_timing_end(t, &timing, st);
    return st;
}

void satfeat_tracker_timing_begin(satfeat_tracker *t, tracker_timing *tm)
{
    tm->last = t->times;
    memset(&t->times, 0, sizeof t->times);
    tm->start = satfeat_tracker_clock(t);
}

void satfeat_tracker_timing_end(satfeat_tracker *t, const tracker_timing *tm, satfeat_status st)
{
    if (st != SATFEAT_OK) {
        t->times = tm->last; /* a frame that was not consumed was not timed */
        return;
    }
    if (!t->profiling) return;
    t->times.frame_us = satfeat_tracker_clock(t) - tm->start;
    t->times.update_us =
        t->times.frame_us - t->times.detect_us - t->times.match_us - t->times.motion_us;
    t->timed = 1;
}
