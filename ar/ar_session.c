/* ar_session.c - the AR session: creation (copies of the targets, the detector, every scratch
 * buffer), the frame loop (detect once, undistort the keypoints, then per target: track around
 * the last homography, else detect by matching the whole target), reset. */
#include "ar/ar_camera.h"
#include "ar/ar_session_internal.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define AR_MAX_TARGETS 64

satfeat_ar_params satfeat_ar_params_default(void)
{
    satfeat_ar_params p;
    p.detector = satfeat_detector_params_default();
    p.detector.threshold = 0.0002;
    p.detector.grid = 8;
    p.detector.per_cell = 32;
    p.detector.max_keypoints = 1200;
    p.ratio = 0.8;
    p.threshold = 3.0;
    p.track_radius = 16.0;
    p.min_inliers_found = 16;
    p.min_inliers_tracked = 12;
    p.max_reproj_px = 2.0;
    return p;
}

static satfeat_ar_target *copy_target(const satfeat_ar_target *t)
{
    satfeat_ar_target *c = satfeat_ar_target_alloc(t->n, t->dim);
    if (!c) return NULL;
    c->width = t->width, c->height = t->height, c->width_m = t->width_m, c->scales = t->scales;
    memcpy(c->kp, t->kp, t->n * sizeof *t->kp);
    memcpy(c->desc, t->desc, t->n * (size_t)t->dim * sizeof(float));
    return c;
}

void satfeat_ar_session_delete(satfeat_ar_session *s)
{
    if (!s) return;
    satfeat_ar_features_delete(s->feat);
    for (int k = 0; s->slots && k < s->n_slots; k++) satfeat_ar_target_delete(s->slots[k].target);
    free(s->slots);
    void *bufs[] = {s->und,  s->norm, s->ok,    s->qkp,          s->qdesc,   s->qidx,
                    s->pred, s->src,  s->dst,   s->world,        s->img,     s->pose_scratch,
                    s->quality, s->mask, s->matches};
    for (size_t i = 0; i < sizeof bufs / sizeof bufs[0]; i++) free(bufs[i]);
    free(s);
}

static satfeat_status check_params(satfeat_ctx *ctx, const satfeat_ar_params *p)
{
    if (!(p->ratio > 0.0 && p->ratio <= 1.0) || !(p->threshold > 0.0) || !isfinite(p->threshold) ||
        !(p->track_radius > 0.0) || !isfinite(p->track_radius) || p->min_inliers_found < 8 ||
        p->min_inliers_tracked < 8 || !(p->max_reproj_px > 0.0) || !isfinite(p->max_reproj_px) ||
        p->detector.max_keypoints < 1 || p->detector.descriptor == SATFEAT_DESCRIPTOR_NONE)
        return satfeat_fail(ctx, SATFEAT_ERR_ARG,
                            "ar session: ratio in (0, 1], threshold, track_radius and "
                            "max_reproj_px finite and > 0, min_inliers_* >= 8, detector "
                            "max_keypoints >= 1 with a descriptor are required");
    return SATFEAT_OK;
}

static satfeat_status alloc_scratch(satfeat_ar_session *s)
{
    const size_t kp = s->max_kp, f = s->max_feat;
    s->und = malloc(2 * kp * sizeof(double));
    s->norm = malloc(2 * kp * sizeof(double));
    s->ok = malloc(kp);
    s->qkp = malloc(f * sizeof *s->qkp);
    s->qdesc = malloc(f * (size_t)s->dim * sizeof(float));
    s->qidx = malloc(f * sizeof(int));
    s->pred = malloc(2 * f * sizeof(double));
    s->src = malloc(2 * f * sizeof(double));
    s->dst = malloc(2 * f * sizeof(double));
    s->world = malloc(2 * f * sizeof(double));
    s->img = malloc(2 * f * sizeof(double));
    s->pose_scratch = malloc(2 * f * sizeof(double));
    s->quality = malloc(f * sizeof(float));
    s->mask = malloc(f);
    s->matches = malloc(f * sizeof *s->matches);
    if (!s->und || !s->norm || !s->ok || !s->qkp || !s->qdesc || !s->qidx || !s->pred ||
        !s->src || !s->dst || !s->world || !s->img || !s->pose_scratch || !s->quality ||
        !s->mask || !s->matches)
        return satfeat_fail(s->ctx, SATFEAT_ERR_ALLOC, "ar session: out of memory");
    return SATFEAT_OK;
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
    }
    if (st == SATFEAT_OK) st = alloc_scratch(s);
    if (st == SATFEAT_OK)
        st = satfeat_ar_features_new(ctx, &p.detector, max_width, max_height, &s->feat);
    if (st != SATFEAT_OK) {
        satfeat_ar_session_delete(s);
        return st;
    }
    *out = s;
    return SATFEAT_OK;
}

satfeat_status satfeat_ar_session_reset(satfeat_ar_session *s)
{
    if (!s) return SATFEAT_ERR_ARG;
    for (int k = 0; k < s->n_slots; k++) s->slots[k].state = SATFEAT_AR_LOST;
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
    const int width = frame->width, height = frame->height;
    satfeat_ar_frame fr;
    st = satfeat_ar_features_detect(s->feat, frame, &fr.kp, &fr.desc, &fr.n);
    if (st != SATFEAT_OK) return st;
    for (size_t i = 0; i < fr.n; i++) {
        double x = 0, y = 0;
        s->ok[i] = (uint8_t)satfeat_ar_pixel_to_normalized(&s->cam, fr.kp[i].x, fr.kp[i].y, &x, &y);
        s->norm[2 * i] = x;
        s->norm[2 * i + 1] = y;
        s->und[2 * i] = s->cam.fx * x + s->cam.cx;
        s->und[2 * i + 1] = s->cam.fy * y + s->cam.cy;
    }
    fr.und = s->und, fr.norm = s->norm, fr.ok = s->ok, fr.width = width, fr.height = height;
    for (int k = 0; k < s->n_slots; k++) {
        satfeat_ar_slot *slot = &s->slots[k];
        satfeat_ar_result *r = &results[k];
        set_lost(r);
        satfeat_status err = SATFEAT_OK;
        int got = 0;
        if (slot->state != SATFEAT_AR_LOST) {
            got = satfeat_ar_locate(s, k, &fr, slot->h, slot->R, s->p.min_inliers_tracked, r,
                                    &err);
            if (got) r->state = SATFEAT_AR_TRACKED;
        }
        /* tracking lost, or kept with less than half of the last frame's inliers (a fast
         * motion past the radius, a prediction gone stale): detect, keep the better answer */
        if (err == SATFEAT_OK && (!got || 2 * r->inliers < slot->inliers)) {
            satfeat_ar_result d;
            set_lost(&d);
            if (satfeat_ar_locate(s, k, &fr, NULL, slot->state != SATFEAT_AR_LOST ? slot->R : NULL,
                                  s->p.min_inliers_found,
                                  &d, &err) &&
                (!got || d.inliers > r->inliers)) {
                *r = d;
                r->state = SATFEAT_AR_FOUND;
                got = 1;
            }
        }
        if (err != SATFEAT_OK) return err;
        if (!got) set_lost(r);
        slot->state = r->state;
        slot->inliers = got ? r->inliers : 0;
        if (got) {
            memcpy(slot->h, r->h, sizeof slot->h);
            memcpy(slot->R, r->R, sizeof slot->R);
        }
    }
    return SATFEAT_OK;
}
