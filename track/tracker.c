/* tracker.c - the tracker object: default parameters, validation, creation (every buffer
 * allocated once), reset, deletion, the per-frame entry point and the tracks' accessors. */
#include "src/clock.h"
#include "src/context_internal.h"
#include "src/features_internal.h"
#include "track/tracker_internal.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define TRACKER_MAX_TRACKS (1 << 24)
#define TRACKER_MAX_KEYPOINTS (1 << 24)

satfeat_tracker_params satfeat_tracker_params_default(void)
{
    satfeat_tracker_params p;
    memset(&p, 0, sizeof p);
    p.detector = satfeat_detector_params_default();
    p.detector.grid = 8;
    p.detector.per_cell = 32;
    p.detector.max_keypoints = 1500;
    p.detector.threshold = 0.0002; /* docs/TRACKING.md: more keypoints in soft or dim frames */
    /* the descriptors and orientation whose tracks docs/TRACKING.md and docs/QUALITY.md
     * measured: SURF's unit L2 vectors, the unrefined Haar orientation, Haar sides 3s. The
     * detector's later defaults were chosen on matching between views; on tracks the root
     * normalisation with the refined orientation drifted more (docs/QUALITY.md, "Tracking
     * against OpenCV"), so the tracker keeps these. */
    p.detector.descriptor_norm = SATFEAT_DESCRIPTOR_NORM_L2;
    p.detector.orientation_refine = 0;
    p.detector.descriptor_haar = 3;
    p.detector.orientation_haar = 3;
    p.detector.orientation_filter = SATFEAT_ORIENTATION_HAAR;
    p.match = satfeat_match_params_default();
    p.match.radius = 30.0;
    p.motion = satfeat_motion_params_default();
    p.motion.threshold = 2.0; /* docs/TRACKING.md: a sharper outlier flag on dune */
    p.max_missed = 30;
    p.max_tracks = 2000;
    p.min_birth_distance = 4.0;
    p.guided_radius = 6.0;
    p.reject_outliers = 1;
    p.birth_confirm_radius = 2.0;
    p.continue_threshold = 0.0; /* off: docs/TRACKING.md, "Track life" */
    return p;
}

/* Checks what the detector, matcher and estimator would only check later; records the reason. */
static satfeat_status check_params(satfeat_ctx *ctx, const satfeat_tracker_params *p)
{
    const satfeat_detector_params *d = &p->detector;
    if (d->max_keypoints < 1 || d->max_keypoints > TRACKER_MAX_KEYPOINTS)
        return satfeat_fail(ctx, SATFEAT_ERR_ARG, "tracker: detector.max_keypoints %d must lie in "
                            "[1, 2^24] (it sizes the keypoint buffers)", d->max_keypoints);
    if (d->descriptor != SATFEAT_DESCRIPTOR_SURF64 && d->descriptor != SATFEAT_DESCRIPTOR_SURF128)
        return satfeat_fail(ctx, SATFEAT_ERR_ARG,
                            "tracker: detector.descriptor %d must be SURF64 or SURF128",
                            (int)d->descriptor);
    const satfeat_match_params *m = &p->match;
    if (!(m->ratio > 0.0 && m->ratio <= 1.0))
        return satfeat_fail(ctx, SATFEAT_ERR_ARG, "tracker: match.ratio %g must lie in (0, 1]",
                            m->ratio);
    if (!(m->radius >= 0.0) || !isfinite(m->radius))
        return satfeat_fail(ctx, SATFEAT_ERR_ARG,
                            "tracker: match.radius %g must be finite and >= 0", m->radius);
    if ((m->mutual != 0 && m->mutual != 1) || (m->same_laplacian != 0 && m->same_laplacian != 1))
        return satfeat_fail(ctx, SATFEAT_ERR_ARG,
                            "tracker: match.mutual and match.same_laplacian must be 0 or 1");
    if (p->max_missed < 0)
        return satfeat_fail(ctx, SATFEAT_ERR_ARG, "tracker: max_missed %d is negative",
                            p->max_missed);
    if (p->max_tracks < 1 || p->max_tracks > TRACKER_MAX_TRACKS)
        return satfeat_fail(ctx, SATFEAT_ERR_ARG, "tracker: max_tracks %d must lie in [1, 2^24]",
                            p->max_tracks);
    if (!(p->min_birth_distance >= 0.0) || !isfinite(p->min_birth_distance))
        return satfeat_fail(ctx, SATFEAT_ERR_ARG,
                            "tracker: min_birth_distance %g must be finite and >= 0",
                            p->min_birth_distance);
    if (!(p->guided_radius >= 0.0) || !isfinite(p->guided_radius))
        return satfeat_fail(ctx, SATFEAT_ERR_ARG,
                            "tracker: guided_radius %g must be finite and >= 0", p->guided_radius);
    if (p->reject_outliers != 0 && p->reject_outliers != 1)
        return satfeat_fail(ctx, SATFEAT_ERR_ARG, "tracker: reject_outliers %d must be 0 or 1",
                            p->reject_outliers);
    if (!(p->max_birth_size >= 0.0) || !isfinite(p->max_birth_size))
        return satfeat_fail(ctx, SATFEAT_ERR_ARG,
                            "tracker: max_birth_size %g must be finite and >= 0",
                            p->max_birth_size);
    if (!(p->birth_confirm_radius >= 0.0) || !isfinite(p->birth_confirm_radius))
        return satfeat_fail(ctx, SATFEAT_ERR_ARG,
                            "tracker: birth_confirm_radius %g must be finite and >= 0",
                            p->birth_confirm_radius);
    if (!(p->continue_threshold >= 0.0) || !isfinite(p->continue_threshold))
        return satfeat_fail(ctx, SATFEAT_ERR_ARG,
                            "tracker: continue_threshold %g must be finite and >= 0",
                            p->continue_threshold);
    /* The estimator checks its parameters before it counts correspondences: with none it
     * answers NO_MODEL for good parameters and ERR_ARG (with the reason) for bad ones. */
    double dummy[2] = {0.0, 0.0};
    satfeat_motion mo;
    satfeat_status st = satfeat_estimate_motion(ctx, dummy, dummy, 0, NULL, &p->motion, &mo, NULL);
    if (st == SATFEAT_ERR_ARG) return st;
    ctx->last_error[0] = '\0'; /* the expected NO_MODEL is no error of tracker_new */
    return SATFEAT_OK;
}

/* The host bytes of the tracker's own buffers (satfeat_tracker_new allocates exactly these; the
 * detector and its sequence check their own). nt, nk <= 2^24 and dim <= 128 keep every product
 * far below SIZE_MAX on 64-bit hosts; on 32-bit ones the sum is computed in double and clamped,
 * so an impossible size still fails the budget check instead of wrapping. */
static size_t tracker_buffer_bytes(size_t nt, size_t nk, size_t dim, int spaced, int confirm)
{
    const double t = (double)nt, k = (double)nk, d = (double)dim, np = t + k;
    double b = k * (sizeof(satfeat_keypoint) + d * sizeof(float) + 1.0); /* kps, kp_desc, taken */
    b += k * (sizeof(satfeat_keypoint) + d * sizeof(float) + 2.0 * sizeof(double) +
              sizeof(satfeat_match_pair));                                    /* the reference model */
    b += t * (sizeof(satfeat_track) + sizeof(tracker_state) + d * sizeof(float)); /* tracks */
    b += t * (sizeof(satfeat_keypoint) + 2.0 * sizeof(double) + 2.0 * sizeof(satfeat_match_pair) +
              2.0 * sizeof(int) + 2.0 + sizeof(int));                    /* per-frame work */
    b += np * (4.0 * sizeof(double) + sizeof(float) + 1.0);              /* the pairs */
    if (spaced) b += (t > k ? t : k) * (sizeof(int) + 2.0 * sizeof(double)); /* grid points */
    if (confirm) b += k * (sizeof(int) + 4.0 * sizeof(double)); /* prev_xy, confirm_grid */
    return b >= (double)SIZE_MAX ? SIZE_MAX : (size_t)b;
}

static void set_identity(double h[9])
{
    for (int i = 0; i < 9; i++) h[i] = (i % 4 == 0) ? 1.0 : 0.0;
}

/* Creates a match list and grows it to n matches once, so filling it never allocates. */
static satfeat_status reserved_matches(satfeat_matches **m, size_t n)
{
    satfeat_status st = satfeat_matches_new(m);
    if (st == SATFEAT_OK) st = satfeat_matches_prepare(*m, n, NULL);
    if (st == SATFEAT_OK) st = satfeat_matches_prepare(*m, 0, NULL);
    return st;
}

/* Creates the feature sets and match lists at their largest sizes (nt tracks, nk keypoints);
 * the tracks' query keypoints start zeroed (the fields the tracker does not set stay 0). */
static satfeat_status reserve_sets(satfeat_tracker *t, size_t nt, size_t nk)
{
    satfeat_status st;
    if ((st = satfeat_features_new(&t->frame_set)) != SATFEAT_OK ||
        (st = satfeat_features_reserve(t->frame_set, nk, t->kind)) != SATFEAT_OK ||
        (st = satfeat_features_new(&t->ref_set)) != SATFEAT_OK ||
        (st = satfeat_features_reserve(t->ref_set, nk, t->kind)) != SATFEAT_OK ||
        (st = satfeat_features_new(&t->track_set)) != SATFEAT_OK ||
        (st = satfeat_features_prepare(t->track_set, nt, t->kind, 0, 0, &t->queries,
                                       &t->desc)) != SATFEAT_OK ||
        (st = reserved_matches(&t->matches, nt)) != SATFEAT_OK ||
        (st = reserved_matches(&t->matches_alt, nt)) != SATFEAT_OK ||
        (st = reserved_matches(&t->ref_matches, nk)) != SATFEAT_OK)
        return st;
    memset(t->queries, 0, nt * sizeof *t->queries);
    satfeat_features_clear(t->track_set);
    satfeat_tracker_frame_count(t, 0);
    return SATFEAT_OK;
}

void satfeat_tracker_frame_count(satfeat_tracker *t, size_t nk)
{
    int w = 0, h = 0;
    satfeat_features_image_size(t->frame_set, &w, &h);
    satfeat_features_prepare(t->frame_set, nk, t->kind, w, h, &t->kps, &t->kp_desc);
}

void satfeat_tracker_delete(satfeat_tracker *t)
{
    if (!t) return;
    satfeat_sequence_delete(t->seq);
    satfeat_detector_delete(t->det);
    satfeat_features_delete(t->frame_set);
    free(t->kp_taken);
    free(t->tracks);
    free(t->state);
    satfeat_features_delete(t->track_set);
    free(t->predicted);
    satfeat_matches_delete(t->matches);
    satfeat_matches_delete(t->matches_alt);
    free(t->ref_mask);
    free(t->mask_scratch);
    free(t->ref_index);
    satfeat_features_delete(t->ref_set);
    free(t->ref_predicted);
    satfeat_matches_delete(t->ref_matches);
    satfeat_spatial_grid_free(&t->grid);
    satfeat_spatial_grid_free(&t->confirm_grid);
    free(t->prev_xy);
    free(t->match_of);
    free(t->weak_of);
    free(t->src_xy);
    free(t->dst_xy);
    free(t->quality);
    free(t->mask);
    free(t);
}

satfeat_status satfeat_tracker_new(satfeat_ctx *ctx, const satfeat_tracker_params *params,
                                   int max_width, int max_height, satfeat_tracker **out)
{
    if (!ctx) return SATFEAT_ERR_ARG;
    if (!out) return satfeat_fail(ctx, SATFEAT_ERR_ARG, "tracker_new: out must not be NULL");
    *out = NULL;
    if (max_width < 1 || max_height < 1)
        return satfeat_fail(ctx, SATFEAT_ERR_ARG, "tracker_new: maximum size %d x %d is invalid",
                            max_width, max_height);
    const satfeat_tracker_params p = params ? *params : satfeat_tracker_params_default();
    satfeat_status st = check_params(ctx, &p);
    if (st != SATFEAT_OK) return st;

    /* max_tracks and max_keypoints size buffers up to gigabytes (2^24 tracks of SURF128 need
     * about 10 GB): ask the context's memory budget before anything is allocated. */
    const size_t nk = (size_t)p.detector.max_keypoints, nt = (size_t)p.max_tracks;
    const size_t dim = (size_t)p.detector.descriptor;
    char what[96];
    snprintf(what, sizeof what, "tracker_new: %zu tracks and %zu keypoints of %zu floats", nt, nk,
             dim);
    const int confirm = p.birth_confirm_radius > 0.0;
    st = satfeat_check_budget(ctx, what, tracker_buffer_bytes(nt, nk, dim,
                                                               p.min_birth_distance > 0.0,
                                                               confirm));
    if (st != SATFEAT_OK) return st;

    satfeat_tracker *t = calloc(1, sizeof *t);
    if (!t) return satfeat_fail(ctx, SATFEAT_ERR_ALLOC, "tracker_new: out of host memory");
    t->ctx = ctx;
    t->params = p;
    t->max_width = max_width;
    t->max_height = max_height;
    t->dim = (int)p.detector.descriptor;
    satfeat_detector_params dp = p.detector;
    if (satfeat_tracker_continues_weak(&p)) dp.threshold = p.continue_threshold;
    st = satfeat_detector_new(ctx, &dp, max_width, max_height, &t->det);
    if (st != SATFEAT_OK) {
        free(t);
        return st; /* the detector recorded the reason */
    }
    st = satfeat_sequence_new(t->det, TRACKER_SLOTS, &t->seq);
    if (st != SATFEAT_OK) {
        satfeat_detector_delete(t->det);
        free(t);
        return st; /* the sequence recorded the reason */
    }
    t->kp_cap = nk;
    t->kind = p.detector.descriptor;
    t->kp_taken = malloc(nk);
    t->tracks = malloc(nt * sizeof *t->tracks);
    t->state = malloc(nt * sizeof *t->state);
    t->predicted = malloc(2 * nt * sizeof *t->predicted);
    t->match_of = malloc(nt * sizeof *t->match_of);
    t->weak_of = malloc(nt * sizeof *t->weak_of);
    const size_t np = nt + nk; /* pairs: every track and every reference keypoint */
    t->src_xy = malloc(2 * np * sizeof *t->src_xy);
    t->dst_xy = malloc(2 * np * sizeof *t->dst_xy);
    t->quality = malloc(np * sizeof *t->quality);
    t->mask = malloc(nt);
    t->ref_mask = malloc(nt);
    t->mask_scratch = malloc(np);
    t->ref_index = malloc(nt * sizeof *t->ref_index);
    t->ref_predicted = malloc(2 * nk * sizeof *t->ref_predicted);
    if (confirm) t->prev_xy = malloc(2 * nk * sizeof *t->prev_xy);
    if (!t->kp_taken || !t->tracks || !t->state || !t->predicted || !t->match_of || !t->weak_of ||
        !t->src_xy || !t->dst_xy || !t->quality || !t->mask || !t->ref_mask ||
        !t->mask_scratch || !t->ref_index || !t->ref_predicted || (confirm && !t->prev_xy) ||
        (confirm && satfeat_spatial_grid_init(&t->confirm_grid, max_width, max_height,
                                              p.birth_confirm_radius, nk) != 0) ||
        reserve_sets(t, nt, nk) != SATFEAT_OK ||
        (p.min_birth_distance > 0.0 &&
         satfeat_spatial_grid_init(&t->grid, max_width, max_height, p.min_birth_distance,
                           nt > nk ? nt : nk) != 0)) {
        satfeat_tracker_delete(t);
        return satfeat_fail(ctx, SATFEAT_ERR_ALLOC, "tracker_new: out of host memory for %zu "
                            "tracks and %zu keypoints", nt, nk);
    }
    t->next_id = 1;
    satfeat_tracker_reset(t);
    *out = t;
    return SATFEAT_OK;
}

satfeat_status satfeat_tracker_reset(satfeat_tracker *t)
{
    if (!t) return SATFEAT_ERR_ARG;
    const satfeat_status st = satfeat_tracker_discard_pending(t);
    if (st != SATFEAT_OK) return st;
    t->n_tracks = 0;
    t->n_ref = 0;
    t->n_prev = 0;
    t->confirm_ready = 0;
    t->frame = 0;
    t->width = 0;
    t->height = 0;
    t->have_prev = 0;
    t->last_inliers = 0;
    set_identity(t->h_prev);
    set_identity(t->h_ref);
    return SATFEAT_OK;
}

const satfeat_track *satfeat_tracker_tracks(const satfeat_tracker *t, size_t *count)
{
    const size_t n = t ? t->n_tracks : 0;
    if (count) *count = n;
    return n ? t->tracks : NULL;
}

const float *satfeat_tracker_track_descriptors(const satfeat_tracker *t)
{
    return t && t->n_tracks ? t->desc : NULL;
}

double satfeat_tracker_clock(const satfeat_tracker *t)
{
    return t->profiling ? satfeat_clock_us() : 0.0;
}

satfeat_status satfeat_tracker_set_profiling(satfeat_tracker *t, int on)
{
    if (!t) return SATFEAT_ERR_ARG;
    if (on != 0 && on != 1)
        return satfeat_fail(t->ctx, SATFEAT_ERR_ARG, "tracker_set_profiling: on %d must be 0 or 1",
                            on);
    if (on && !t->profiling) t->timed = 0;
    t->profiling = on;
    return SATFEAT_OK;
}

satfeat_status satfeat_tracker_stage_times(const satfeat_tracker *t, satfeat_tracker_times *out)
{
    if (!t) return SATFEAT_ERR_ARG;
    if (!out)
        return satfeat_fail(t->ctx, SATFEAT_ERR_ARG, "tracker_stage_times: out must not be NULL");
    if (!t->timed)
        return satfeat_fail(
            t->ctx, SATFEAT_ERR_ARG,
            "tracker_stage_times: no frame was timed since profiling was turned on");
    *out = t->times;
    return SATFEAT_OK;
}
