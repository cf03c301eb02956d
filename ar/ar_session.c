/* ar_session.c - the AR session: creation (copies of the targets, the detector, every scratch
 * buffer), the frame loop (detect once, undistort the keypoints, then per target: track around
 * the last homography, else detect by matching the whole target), reset. */
#include "ar/ar_camera.h"
#include "ar/ar_session_internal.h"
#include "src/cuda_state.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define AR_MAX_TARGETS 64 /* the joint set's slot mask is 64 bits */
/* The tracked region (tracked_region): margin as a fraction of its larger side, padding (px),
 * smallest side (px) and the largest fraction of the frame worth a region of its own. */
#define AR_REGION_MARGIN 0.15
#define AR_REGION_PAD 24.0
#define AR_REGION_MIN_SIDE 48.0
#define AR_REGION_MAX_AREA 0.7
/* The width of a half of the frame searched for lost targets, as a fraction of the frame's
 * (the two halves overlap by 2 AR_SEARCH_HALF - 1). */
#define AR_SEARCH_HALF 0.6
/* While some targets are tracked and others lost, the lost ones are searched for (the whole
 * frame detected for them) every AR_SEARCH_EVERY-th frame. */
#define AR_SEARCH_EVERY 2

satfeat_ar_params satfeat_ar_params_default(void)
{
    satfeat_ar_params p;
    p.detector = satfeat_detector_params_default();
    p.detector.threshold = 0.0001;
    p.detector.grid = 8;
    p.detector.per_cell = 32;
    p.detector.max_keypoints = 2400;
    /* the descriptors AR's bounds and docs/AR.md were measured with (SURF's unit L2, the
     * unrefined orientation, Haar sides 3s): the detector's newer defaults are not measured on
     * AR's sequences */
    p.detector.descriptor_norm = SATFEAT_DESCRIPTOR_NORM_L2;
    p.detector.orientation_refine = 0;
    p.detector.descriptor_haar = 3;
    p.detector.orientation_haar = 3;
    p.detector.orientation_filter = SATFEAT_ORIENTATION_HAAR;
    p.ratio = 0.8;
    p.threshold = 3.0;
    p.track_radius = 16.0;
    p.min_inliers_found = 16;
    p.min_inliers_tracked = 12;
    p.max_reproj_px = 2.0;
    p.photometric = 1;
    return p;
}

static satfeat_ar_target *copy_target(const satfeat_ar_target *t)
{
    satfeat_ar_target *c = satfeat_ar_target_alloc(t->n, t->dim);
    if (!c) return NULL;
    c->width = t->width, c->height = t->height, c->width_m = t->width_m, c->scales = t->scales;
    memcpy(c->kp, t->kp, t->n * sizeof *t->kp);
    memcpy(c->desc, t->desc, t->n * (size_t)t->dim * sizeof(float));
    if (!satfeat_ar_photo_copy(&t->photo, &c->photo)) {
        satfeat_ar_target_delete(c);
        return NULL;
    }
    return c;
}

void satfeat_ar_session_delete(satfeat_ar_session *s)
{
    if (!s) return;
    satfeat_ar_features_delete(s->feat);
    for (int k = 0; s->slots && k < s->n_slots; k++) {
        satfeat_ar_target_delete(s->slots[k].target);
        satfeat_ar_query_delete(s->slots[k].all);
    }
    satfeat_ar_query_delete(s->joint);
    free(s->joint_matches);
    free(s->slots);
    void *bufs[] = {s->und,  s->norm, s->ray,
                    s->pred, s->src,  s->dst,   s->world,        s->img,     s->pose_scratch,
                    s->quality, s->mask, s->matches, s->wt, s->photo_scratch,
                    s->frame_copy, s->mask_copy};
    for (size_t i = 0; i < sizeof bufs / sizeof bufs[0]; i++) free(bufs[i]);
    free(s);
}

static satfeat_status check_params(satfeat_ctx *ctx, const satfeat_ar_params *p)
{
    if (!(p->ratio > 0.0 && p->ratio <= 1.0) || !(p->threshold > 0.0) || !isfinite(p->threshold) ||
        !(p->track_radius > 0.0) || !isfinite(p->track_radius) || p->min_inliers_found < 8 ||
        p->min_inliers_tracked < 8 || !(p->max_reproj_px > 0.0) || !isfinite(p->max_reproj_px) ||
        p->detector.max_keypoints < 1 || p->detector.descriptor == SATFEAT_DESCRIPTOR_NONE ||
        (p->photometric != 0 && p->photometric != 1))
        return satfeat_fail(ctx, SATFEAT_ERR_ARG,
                            "ar session: ratio in (0, 1], threshold, track_radius and "
                            "max_reproj_px finite and > 0, min_inliers_* >= 8, detector "
                            "max_keypoints >= 1 with a descriptor, photometric 0 or 1 are "
                            "required");
    return SATFEAT_OK;
}

static satfeat_status alloc_scratch(satfeat_ar_session *s)
{
    const size_t kp = s->max_kp, f = s->max_feat;
    s->und = malloc(2 * kp * sizeof(double));
    s->norm = malloc(2 * kp * sizeof(double));
    s->ray = malloc(kp);
    s->pred = malloc(2 * f * sizeof(double));
    s->src = malloc(2 * f * sizeof(double));
    s->dst = malloc(2 * f * sizeof(double));
    s->world = malloc(2 * f * sizeof(double));
    s->img = malloc(2 * f * sizeof(double));
    s->pose_scratch = malloc(2 * f * sizeof(double));
    s->quality = malloc(f * sizeof(float));
    s->wt = malloc(f * sizeof(double));
    s->mask = malloc(f);
    s->matches = malloc(f * sizeof *s->matches);
    /* two candidates' alignments at once (ar_locate.c's settle_by_pixels) */
    s->photo_scratch = malloc(2 * SATFEAT_AR_PHOTO_SCRATCH * sizeof(double));
    if (!s->und || !s->norm || !s->ray || !s->pred ||
        !s->src || !s->dst || !s->world || !s->img || !s->pose_scratch || !s->quality || !s->wt ||
        !s->mask || !s->matches || !s->photo_scratch)
        return satfeat_fail(s->ctx, SATFEAT_ERR_ALLOC, "ar session: out of memory");
    return SATFEAT_OK;
}

/* Makes the joint query set hold the features of the slots in `want` (slot order), setting
 * their `first`; nothing is written when it holds them already. */
static satfeat_status hold_joint(satfeat_ar_session *s, uint64_t want)
{
    if (s->joint_held == want) return SATFEAT_OK;
    size_t total = 0;
    for (int k = 0; k < s->n_slots; k++)
        if (want >> k & 1) total += s->slots[k].target->n;
    satfeat_keypoint *kp;
    float *desc;
    s->joint_held = 0;
    const satfeat_status st = satfeat_ar_query_resize(s->joint, total, s->dim, &kp, &desc);
    if (st != SATFEAT_OK) return satfeat_fail(s->ctx, st, "ar session: out of memory");
    size_t at = 0;
    for (int k = 0; k < s->n_slots; k++) {
        if (!(want >> k & 1)) continue;
        const satfeat_ar_target *t = s->slots[k].target;
        s->slots[k].first = at;
        memcpy(kp + at, t->kp, t->n * sizeof *kp);
        memcpy(desc + at * (size_t)s->dim, t->desc, t->n * (size_t)s->dim * sizeof(float));
        at += t->n;
    }
    s->joint_held = want;
    return SATFEAT_OK;
}

/* The joint query set of a session of several targets and its match list: made holding every
 * target's features, so that its arrays have room for any later contents. */
static satfeat_status make_joint(satfeat_ar_session *s)
{
    size_t total = 0;
    for (int k = 0; k < s->n_slots; k++) {
        s->slots[k].joint_n = -1;
        total += s->slots[k].target->n;
    }
    if (s->n_slots < 2) return SATFEAT_OK;
    s->joint_matches = malloc(total * sizeof *s->joint_matches);
    s->joint_cap = total;
    const satfeat_status st = s->joint_matches
                                  ? satfeat_ar_query_new(NULL, NULL, 0, s->dim, &s->joint)
                                  : SATFEAT_ERR_ALLOC;
    if (st != SATFEAT_OK) return satfeat_fail(s->ctx, st, "ar session: out of memory");
    satfeat_ar_query_keep(s->joint);
    s->joint_held = 0;
    return hold_joint(s, s->n_slots >= 64 ? ~(uint64_t)0 : ((uint64_t)1 << s->n_slots) - 1);
}

satfeat_status satfeat_ar_session_new(satfeat_ctx *ctx, const satfeat_ar_target *const *targets,
                                      int n_targets, const satfeat_ar_camera *camera,
                                      const satfeat_ar_params *params, int max_width,
                                      int max_height, satfeat_ar_session **out)
{
    if (!ctx || !out) return ctx ? satfeat_fail(ctx, SATFEAT_ERR_ARG, "ar session: NULL out")
                                 : SATFEAT_ERR_ARG;
    *out = NULL;
    const satfeat_ar_params p = params ? *params : satfeat_ar_params_default();
    satfeat_status st = check_params(ctx, &p);
    if (st != SATFEAT_OK) return st;
    if (!targets || n_targets < 1 || n_targets > AR_MAX_TARGETS)
        return satfeat_fail(ctx, SATFEAT_ERR_ARG, "ar session: 1 .. %d targets (got %d)",
                            AR_MAX_TARGETS, n_targets);
    st = satfeat_ar_camera_check(ctx, camera, max_width, max_height);
    if (st != SATFEAT_OK) return st;
    size_t max_feat = 1;
    for (int k = 0; k < n_targets; k++) {
        if (!targets[k] || targets[k]->dim != (int)p.detector.descriptor)
            return satfeat_fail(ctx, SATFEAT_ERR_ARG,
                                "ar session: target %d is NULL or its descriptors (%d floats) "
                                "differ from the detector's (%d)", k,
                                targets[k] ? targets[k]->dim : 0, (int)p.detector.descriptor);
        if (targets[k]->n > max_feat) max_feat = targets[k]->n;
    }
    satfeat_ar_session *s = calloc(1, sizeof *s);
    if (!s) return satfeat_fail(ctx, SATFEAT_ERR_ALLOC, "ar session: out of memory");
    s->ctx = ctx, s->p = p, s->cam = *camera;
    s->max_width = max_width, s->max_height = max_height, s->dim = (int)p.detector.descriptor;
    s->max_feat = max_feat;
    s->max_kp = (size_t)p.detector.max_keypoints;
    s->n_slots = n_targets;
    s->slots = calloc((size_t)n_targets, sizeof *s->slots);
    st = s->slots ? SATFEAT_OK : satfeat_fail(ctx, SATFEAT_ERR_ALLOC, "ar session: out of memory");
    for (int k = 0; k < n_targets && st == SATFEAT_OK; k++) {
        s->slots[k].target = copy_target(targets[k]);
        if (!s->slots[k].target) st = satfeat_fail(ctx, SATFEAT_ERR_ALLOC, "ar session: out of memory");
        else s->slots[k].s = targets[k]->width_m / targets[k]->width;
        s->slots[k].lost_frames = SATFEAT_AR_RECENT_FRAMES;
        if (st == SATFEAT_OK &&
            satfeat_ar_query_new(targets[k]->kp, targets[k]->desc, targets[k]->n,
                                 targets[k]->dim, &s->slots[k].all) != SATFEAT_OK)
            st = satfeat_fail(ctx, SATFEAT_ERR_ALLOC, "ar session: out of memory");
    }
    if (st == SATFEAT_OK) st = alloc_scratch(s);
    if (st == SATFEAT_OK) st = make_joint(s);
    if (st == SATFEAT_OK)
        st = satfeat_ar_features_new(ctx, &p.detector, max_width, max_height, &s->feat);
    if (st != SATFEAT_OK) {
        satfeat_ar_session_delete(s);
        return st;
    }
    *out = s;
    return SATFEAT_OK;
}

satfeat_status satfeat_ar_session_set_profiling(satfeat_ar_session *s, int on)
{
    if (!s) return SATFEAT_ERR_ARG;
    s->profiling = on != 0;
    s->measured = 0;
    return SATFEAT_OK;
}

satfeat_status satfeat_ar_session_stage_times(const satfeat_ar_session *s,
                                              satfeat_ar_stage_times *out)
{
    if (!s || !out) return SATFEAT_ERR_ARG;
    if (!s->profiling || !s->measured)
        return satfeat_fail(s->ctx, SATFEAT_ERR_ARG,
                            "ar session: no frame measured since profiling was turned on");
    *out = s->times;
    return SATFEAT_OK;
}

satfeat_status satfeat_ar_session_reset(satfeat_ar_session *s)
{
    if (!s) return SATFEAT_ERR_ARG;
    for (int k = 0; k < s->n_slots; k++) {
        s->slots[k].state = SATFEAT_AR_LOST;
        s->slots[k].lost_frames = SATFEAT_AR_RECENT_FRAMES;
    }
    s->search_frames = 0;
    s->mixed_frames = 0;
    return SATFEAT_OK;
}

static void set_lost(satfeat_ar_result *r)
{
    r->state = SATFEAT_AR_LOST;
    r->inliers = 0;
    for (int k = 0; k < 3; k++) r->rvec[k] = r->tvec[k] = NAN;
    for (int k = 0; k < 9; k++) r->R[k] = r->h[k] = NAN;
    r->reproj_px = NAN;
}

/* The checks of a frame view before any work (the message names what is wrong). */
static satfeat_status check_view(satfeat_ar_session *s, const satfeat_image_view *v)
{
    if (!v || !v->pixels || v->width < 1 || v->height < 1 || v->stride < (size_t)v->width ||
        v->width > s->max_width || v->height > s->max_height)
        return satfeat_fail(s->ctx, SATFEAT_ERR_ARG,
                            "ar session: need a frame view of 1x1 .. %dx%d with pixels and "
                            "stride >= width (got %dx%d)", s->max_width, s->max_height,
                            v ? v->width : 0, v ? v->height : 0);
    if (v->memory != SATFEAT_MEMORY_HOST && v->memory != SATFEAT_MEMORY_DEVICE)
        return satfeat_fail(s->ctx, SATFEAT_ERR_ARG, "ar session: unknown view memory %d",
                            (int)v->memory);
    if (v->mask && v->mask_stride < (size_t)v->width)
        return satfeat_fail(s->ctx, SATFEAT_ERR_ARG,
                            "ar session: a mask needs mask_stride >= width");
    if (v->memory == SATFEAT_MEMORY_DEVICE && satfeat_ctx_backend(s->ctx) != SATFEAT_BACKEND_CUDA)
        return satfeat_fail(s->ctx, SATFEAT_ERR_UNSUPPORTED,
                            "ar session: a device view needs a session on a CUDA context");
    return SATFEAT_OK;
}

/* Grows box (x0, y0, x1, y1) to hold frame pixel (u, v). */
static void box_add(double box[4], double u, double v)
{
    box[0] = fmin(box[0], u), box[1] = fmin(box[1], v);
    box[2] = fmax(box[2], u), box[3] = fmax(box[3], v);
}

/* The region to detect the targets that had a pose in the last frame in (x0, y0, x1, y1): the
 * box of their outlines predicted by the last homographies (corners and edge midpoints, through
 * the distortion), grown by AR_REGION_MARGIN of its larger side plus AR_REGION_PAD px (a frame's
 * motion, and room for the detector's filters around the target's keypoints). Returns 0 (detect
 * the whole frame) when no target is tracked or the region would cover more than
 * AR_REGION_MAX_AREA of the frame. */
static int tracked_region(const satfeat_ar_session *s, int width, int height, int region[4])
{
    double box[4] = {INFINITY, INFINITY, -INFINITY, -INFINITY};
    int tracked = 0;
    for (int k = 0; k < s->n_slots; k++) {
        const satfeat_ar_slot *slot = &s->slots[k];
        if (slot->state == SATFEAT_AR_LOST) continue;
        tracked++;
        double tb[4] = {INFINITY, INFINITY, -INFINITY, -INFINITY};
        const double w = slot->target->width - 0.5, h = slot->target->height - 0.5;
        const double X[8] = {-0.5, 0.5 * w, w, w, w, 0.5 * w, -0.5, -0.5};
        const double Y[8] = {-0.5, -0.5, -0.5, 0.5 * h, h, h, h, 0.5 * h};
        for (int i = 0; i < 8; i++) {
            const double *H = slot->h;
            const double z = H[6] * X[i] + H[7] * Y[i] + H[8];
            if (!(z > 1e-9)) return 0;
            const double u = (H[0] * X[i] + H[1] * Y[i] + H[2]) / z;
            const double v = (H[3] * X[i] + H[4] * Y[i] + H[5]) / z;
            double px, py;
            satfeat_ar_normalized_to_pixel(&s->cam, (u - s->cam.cx) / s->cam.fx,
                                           (v - s->cam.cy) / s->cam.fy, &px, &py);
            if (!isfinite(px) || !isfinite(py)) return 0;
            box_add(tb, px, py);
        }
        const double grow = AR_REGION_MARGIN * fmax(tb[2] - tb[0], tb[3] - tb[1]) + AR_REGION_PAD;
        box_add(box, tb[0] - grow, tb[1] - grow);
        box_add(box, tb[2] + grow, tb[3] + grow);
    }
    if (!tracked) return 0;
    const double x0 = fmax(0.0, floor(box[0])), y0 = fmax(0.0, floor(box[1]));
    const double x1 = fmin((double)width, ceil(box[2])), y1 = fmin((double)height, ceil(box[3]));
    if (!(x1 - x0 >= AR_REGION_MIN_SIDE && y1 - y0 >= AR_REGION_MIN_SIDE)) return 0;
    if ((x1 - x0) * (y1 - y0) > AR_REGION_MAX_AREA * width * height) return 0;
    region[0] = (int)x0, region[1] = (int)y0, region[2] = (int)x1, region[3] = (int)y1;
    return 1;
}

/* Detects the frame's keypoints in `region` (NULL: the whole frame; keypoints of a region are
 * moved back to frame coordinates) and undistorts them into fr. */
static satfeat_status detect_frame(satfeat_ar_session *s, const satfeat_image_view *frame,
                                   const int *region, satfeat_ar_frame *fr)
{
    const double t_detect = satfeat_ar_tic(s);
    satfeat_status st;
    if (!region) {
        st = satfeat_ar_features_detect(s->feat, frame, 0, 0, &fr->kp, &fr->desc, &fr->n);
    } else {
        satfeat_image_view sub = *frame;
        sub.pixels = frame->pixels + (size_t)region[1] * frame->stride + (size_t)region[0];
        if (frame->mask)
            sub.mask = frame->mask + (size_t)region[1] * frame->mask_stride + (size_t)region[0];
        sub.width = region[2] - region[0];
        sub.height = region[3] - region[1];
        st = satfeat_ar_features_detect(s->feat, &sub, region[0], region[1], &fr->kp, &fr->desc,
                                        &fr->n);
    }
    satfeat_ar_toc(s, t_detect, &s->times.detect_us);
    if (st != SATFEAT_OK) return st;
    /* the train of every match of this frame (the detector's own set, a region's moved in place) */
    if (satfeat_ar_features_set_train(s->feat, fr->kp, fr->desc, fr->n) != SATFEAT_OK)
        return satfeat_fail(s->ctx, SATFEAT_ERR_ALLOC, "ar session: out of memory");
    /* undistorted on first use: most keypoints are never matched */
    memset(s->ray, SATFEAT_AR_RAY_UNKNOWN, fr->n);
    fr->cam = &s->cam;
    fr->und = s->und, fr->norm = s->norm, fr->ray = s->ray;
    fr->width = frame->width, fr->height = frame->height;
    return SATFEAT_OK;
}

int satfeat_ar_frame_ray(const satfeat_ar_frame *fr, size_t i)
{
    if (fr->ray[i] != SATFEAT_AR_RAY_UNKNOWN) return fr->ray[i];
    const satfeat_ar_camera *cam = fr->cam;
    double x = 0, y = 0;
    fr->ray[i] = (uint8_t)satfeat_ar_pixel_to_normalized(cam, fr->kp[i].x, fr->kp[i].y, &x, &y);
    fr->norm[2 * i] = x;
    fr->norm[2 * i + 1] = y;
    fr->und[2 * i] = cam->fx * x + cam->cx;
    fr->und[2 * i + 1] = cam->fy * y + cam->cy;
    return fr->ray[i];
}

/* Matches the whole feature lists of the lost targets against this train in one matcher call
 * when at least two of them need theirs (on either backend: one device round trip instead of
 * one a target on CUDA, one parallel region on the CPU; the joint set holds the lost targets
 * alone, so no tracked target's features are matched in vain). No mutual check: each query is
 * matched alone, so a target's share of the joint matches is, pair for pair and in the same
 * (ascending query) order, what its own call gives. Only the lost targets among `slots` (a
 * bit a slot) are matched. Each slot's joint_n says whether it was made. */
static satfeat_status joint_match(satfeat_ar_session *s, uint64_t slots)
{
    int lost = 0;
    uint64_t want = 0;
    for (int k = 0; k < s->n_slots; k++) {
        s->slots[k].joint_n = -1;
        if (s->slots[k].state != SATFEAT_AR_LOST || !(slots >> k & 1)) continue;
        lost++;
        want |= (uint64_t)1 << k;
    }
    if (!s->joint || lost < 2) return SATFEAT_OK;
    const double t_match = satfeat_ar_tic(s);
    satfeat_status st = hold_joint(s, want);
    size_t count = 0;
    if (st == SATFEAT_OK)
        st = satfeat_ar_match(s->feat, s->joint, NULL, s->p.ratio, 0.0, s->joint_matches,
                              s->joint_cap, &count);
    satfeat_ar_toc(s, t_match, &s->times.match_us);
    if (st != SATFEAT_OK) return st;
    s->joint_calls++;
    size_t i = 0;
    for (int k = 0; k < s->n_slots; k++) {
        satfeat_ar_slot *slot = &s->slots[k];
        if (!(want >> k & 1)) continue;
        const size_t end = slot->first + slot->target->n;
        slot->joint_at = i;
        for (; i < count && (size_t)s->joint_matches[i].query < end; i++)
            s->joint_matches[i].query -= (int)slot->first;
        slot->joint_n = (long)(i - slot->joint_at);
    }
    return SATFEAT_OK;
}

/* Locates the targets of `slots` (a bit a slot) in fr and updates their slots; counts in
 * *n_lost those left lost. */
static satfeat_status locate_all(satfeat_ar_session *s, const satfeat_ar_frame *fr,
                                 satfeat_ar_result *results, uint64_t slots, int *n_lost)
{
    *n_lost = 0;
    const satfeat_status jst = joint_match(s, slots);
    if (jst != SATFEAT_OK) return jst;
    for (int k = 0; k < s->n_slots; k++) {
        satfeat_ar_slot *slot = &s->slots[k];
        satfeat_ar_result *r = &results[k];
        if (!(slots >> k & 1)) continue;
        set_lost(r);
        satfeat_status err = SATFEAT_OK;
        int got = 0, loose = 0, d_loose = 0;
        if (slot->state != SATFEAT_AR_LOST) {
            got = satfeat_ar_locate(s, k, fr, slot->h, slot->R, s->p.min_inliers_tracked, r,
                                    &loose, &err);
            if (got) r->state = SATFEAT_AR_TRACKED;
        }
        /* tracking lost, kept with less than half of the last frame's inliers (a fast motion
         * past the radius, a prediction gone stale) or kept loosely (ar_locate.c's loose band):
         * detect, keep the better answer: a tight pose over a loose one, else more inliers */
        if (err == SATFEAT_OK && (!got || loose || 2 * r->inliers < slot->inliers)) {
            satfeat_ar_result d;
            set_lost(&d);
            if (satfeat_ar_locate(s, k, fr, NULL, slot->state != SATFEAT_AR_LOST ? slot->R : NULL,
                                  s->p.min_inliers_found, &d, &d_loose, &err) &&
                (!got || (loose && !d_loose) ||
                 (loose == d_loose && d.inliers > r->inliers))) {
                *r = d;
                r->state = SATFEAT_AR_FOUND;
                got = 1;
            }
        }
        if (err != SATFEAT_OK) return err;
        if (!got) set_lost(r);
        *n_lost += !got;
        slot->state = r->state;
        slot->inliers = got ? r->inliers : 0;
        if (got) {
            memcpy(slot->h, r->h, sizeof slot->h);
            memcpy(slot->R, r->R, sizeof slot->R);
        }
    }
    return SATFEAT_OK;
}

/* The slots in `state` (LOST or not, by `lost`) as bits. */
static uint64_t slots_where(const satfeat_ar_session *s, int lost)
{
    uint64_t m = 0;
    for (int k = 0; k < s->n_slots; k++)
        if ((s->slots[k].state == SATFEAT_AR_LOST) == (lost != 0)) m |= (uint64_t)1 << k;
    return m;
}

/* One checked frame. The targets tracked in the last frame are located in the region around
 * them (when it is small enough to be worth it; else in the whole frame). The targets lost at
 * the frame's start are searched for in the whole frame: every frame while no target is
 * tracked, and every AR_SEARCH_EVERY-th frame while some are (the first such frame included),
 * whether the tracked ones take a region or the whole frame, so a session of many targets, most
 * of them absent, does not pay for their search every frame and its tracked targets keep the
 * keypoints of their region. A target still lost after the whole frame is searched for again in
 * one of two overlapping halves of the frame (alternating, so each half every other such frame):
 * on a half the detector's keypoint budget is denser, which is what a small target needs to get
 * enough keypoints among the background's stronger ones; a target up to 0.2 of the frame wide
 * lies wholly in either half. With several targets lost, one of them is searched for in the half
 * per frame (each for two frames in turn). */
/* The frame's pixels in host memory for the photometric refinement (none when it is off): a
 * host view's own, a device view's (and its mask's) copied once a frame. */
static satfeat_status frame_pixels(satfeat_ar_session *s, const satfeat_image_view *v,
                                   satfeat_ar_pixels *px)
{
    memset(px, 0, sizeof *px);
    if (!s->p.photometric) return SATFEAT_OK;
    px->width = v->width, px->height = v->height;
    if (v->memory == SATFEAT_MEMORY_HOST) {
        px->pix = v->pixels, px->stride = v->stride;
        px->mask = v->mask, px->mask_stride = v->mask_stride;
        return SATFEAT_OK;
    }
    const size_t bytes = (size_t)s->max_width * (size_t)s->max_height;
    if (!s->frame_copy) s->frame_copy = malloc(bytes);
    if (v->mask && !s->mask_copy) s->mask_copy = malloc(bytes);
    if (!s->frame_copy || (v->mask && !s->mask_copy))
        return satfeat_fail(s->ctx, SATFEAT_ERR_ALLOC, "ar session: out of memory");
    satfeat_status st = satfeat_cuda_download_rows(s->ctx, s->frame_copy, (size_t)v->width,
                                                   v->pixels, v->stride, (size_t)v->width,
                                                   (size_t)v->height, v->stream);
    if (st == SATFEAT_OK && v->mask)
        st = satfeat_cuda_download_rows(s->ctx, s->mask_copy, (size_t)v->width, v->mask,
                                        v->mask_stride, (size_t)v->width, (size_t)v->height,
                                        v->stream);
    if (st != SATFEAT_OK) return st;
    px->pix = s->frame_copy, px->stride = (size_t)v->width;
    px->mask = v->mask ? s->mask_copy : NULL, px->mask_stride = (size_t)v->width;
    return SATFEAT_OK;
}

static satfeat_status process_frame(satfeat_ar_session *s, const satfeat_image_view *frame,
                                    satfeat_ar_result *results)
{
    for (int k = 0; k < s->n_slots; k++) set_lost(&results[k]);
    const uint64_t was_lost = slots_where(s, 1), was_tracked = slots_where(s, 0);
    int region[4], lost = 0;
    const int in_region = tracked_region(s, frame->width, frame->height, region);
    /* mixed_frames: frames since the lost targets' last search while others were tracked; 0
     * while every target is tracked (so a target lost in one frame is searched for in the
     * next), 1 after a frame that tracked none (it searched every target) */
    int search_due = 1;
    if (!was_tracked) s->mixed_frames = 1;
    else if (!was_lost) s->mixed_frames = 0;
    else search_due = s->mixed_frames++ % AR_SEARCH_EVERY == 0;
    satfeat_ar_frame fr;
    satfeat_status st = frame_pixels(s, frame, &fr.pixels);
    if (st != SATFEAT_OK) return st;
    uint64_t search = was_lost | was_tracked; /* the whole frame's targets */
    if (in_region) {
        st = detect_frame(s, frame, region, &fr);
        if (st == SATFEAT_OK) st = locate_all(s, &fr, results, was_tracked, &lost);
        if (st != SATFEAT_OK || !was_lost || !search_due) return st;
        search = was_lost;
    } else if (!search_due) {
        search = was_tracked; /* the whole frame for the tracked targets alone */
    }
    st = detect_frame(s, frame, NULL, &fr);
    if (st == SATFEAT_OK) st = locate_all(s, &fr, results, search, &lost);
    if (st != SATFEAT_OK || !lost || !search_due) return st;
    /* one lost target per frame, each for two frames (both halves), so the cost of the half
     * does not grow with the number of lost targets; those posed within the last
     * SATFEAT_AR_RECENT_FRAMES frames first (a target that just slipped is the likeliest in
     * view, and with many absent targets its turn would come only every few frames) */
    uint64_t cand = 0, recent = 0;
    for (int k = 0; k < s->n_slots; k++)
        if ((search >> k & 1) && results[k].state == SATFEAT_AR_LOST) {
            cand |= (uint64_t)1 << k;
            if (s->slots[k].lost_frames < SATFEAT_AR_RECENT_FRAMES) recent |= (uint64_t)1 << k;
        }
    if (recent) cand = recent;
    int n_cand = 0;
    for (int k = 0; k < s->n_slots; k++) n_cand += (int)(cand >> k & 1);
    const unsigned f = s->search_frames++;
    int pick = (int)((f / 2) % (unsigned)n_cand), only = -1;
    for (int k = 0; k < s->n_slots && only < 0; k++)
        if ((cand >> k & 1) && pick-- == 0) only = k;
    const double x0 = (f % 2) ? (1.0 - AR_SEARCH_HALF) * frame->width : 0.0;
    region[0] = (int)x0, region[1] = 0;
    region[2] = (int)(x0 + AR_SEARCH_HALF * frame->width), region[3] = frame->height;
    st = detect_frame(s, frame, region, &fr);
    return st == SATFEAT_OK ? locate_all(s, &fr, results, (uint64_t)1 << only, &lost) : st;
}

satfeat_status satfeat_ar_session_process(satfeat_ar_session *s, const satfeat_image_view *frame,
                                          satfeat_ar_result *results, int capacity)
{
    if (!s) return SATFEAT_ERR_ARG;
    satfeat_status st = check_view(s, frame);
    if (st != SATFEAT_OK) return st;
    if (!results) return satfeat_fail(s->ctx, SATFEAT_ERR_ARG, "ar session: NULL results");
    if (capacity < s->n_slots)
        return satfeat_fail(s->ctx, SATFEAT_ERR_CAPACITY,
                            "ar session: room for %d results, %d targets", capacity, s->n_slots);
    const double t0 = satfeat_ar_tic(s);
    memset(&s->times, 0, sizeof s->times);
    st = process_frame(s, frame, results);
    for (int k = 0; k < s->n_slots; k++) {
        unsigned *lf = &s->slots[k].lost_frames;
        if (s->slots[k].state != SATFEAT_AR_LOST) *lf = 0;
        else if (*lf < SATFEAT_AR_RECENT_FRAMES) (*lf)++;
    }
    if (s->profiling) {
        satfeat_ar_stage_times *t = &s->times;
        t->frame_us = satfeat_clock_us() - t0;
        t->other_us = t->frame_us - t->detect_us - t->match_us - t->homography_us - t->pose_us;
        s->measured = st == SATFEAT_OK;
    }
    return st;
}
