/* ar_locate.c - finding one target in one frame: matching (whole target, or guided around a
 * predicted homography), the robust homography, the planar pose refined on the reprojection
 * error, and the checks that decide whether the pose is trusted. */
#include "ar/ar_camera.h"
#include "ar/ar_rotation.h"
#include "ar/ar_session_internal.h"

#include <math.h>
#include <string.h>

/* Radius (px) of the second guided pass, around the homography of the first. */
#define AR_TIGHT_RADIUS 5.0
/* The largest turn of the camera between two frames (radians, 30 degrees) a pose after a
 * pose may show. */
#define AR_MAX_TURN_RAD 0.524
/* How far (px) the photometric refinement may raise the median reprojection error of the
 * features' inliers: on the occlusion path of the AR tests the refinements that helped moved it
 * by -0.06 .. +0.05 px, those that followed the occluder's edge by +0.2 .. +1 px (docs/AR.md). */
#define AR_PHOTO_MEDIAN_PX 0.3
/* The loose band of a trusted pose: with the photometric checks on, a pose whose features fit
 * it with an rms error between max_reproj_px and AR_LOOSE_FACTOR x the homography's threshold
 * is trusted when the frame's pixels agree with the target where it puts it (at least
 * AR_PHOTO_MIN_AGREEMENT, a correlation: satfeat_ar_photo_agreement). Strongly foreshortened
 * and motion-blurred frames fit many inliers at 2 - 4 px. On the nine tuning sequences of
 * docs/AR.md recall rose with the band up to 1.5 x and not beyond (measured 1, 1.5, 2 and 3
 * x); there every pose within a degree of the truth agreed at 0.60 or more but those under an
 * occluder (0.40 - 0.65), and poses 13 - 37 degrees off at 0.42 - 0.57; the tracked passes that
 * followed a blurred background after the target left the view (the tests' FOV path) at -0.08
 * and -0.03. A pose under max_reproj_px needs no agreement: an occluder over most of the
 * target brings a well-posed frame's down to 0.02. */
#define AR_LOOSE_FACTOR 1.5
#define AR_PHOTO_MIN_AGREEMENT 0.6
/* The least spread (px, the standard deviation across the narrowest direction:
 * satfeat_ar_points_min_spread) of a trusted pose's inliers in the frame. Inliers closer to a
 * line leave the target's tilt about it to the keypoints' position noise: on the fourteen
 * tuning sequences of docs/AR.md 16 of the 17 poses whose inliers spread less than 8 px were
 * 13 - 98 degrees off (a target first found far away, the tracked frames of a target whose only
 * matches lay on a rocket), and of those between 8 and 10 px 5 were right and 4 wrong. */
#define AR_MIN_SPREAD_PX 8.0
/* A tracked pose whose features turned it more than AR_PRIOR_TURN_RAD (3 degrees) from the
 * last frame's is weighed against the photometric refinement started from the last frame's
 * rotation, which replaces it when it agrees with the frame at least AR_PRIOR_MARGIN better
 * (satfeat_ar_photo_agreement). On the fourteen tuning sequences of docs/AR.md this took the
 * worst rotation median from 13.6 to 0.22 degrees (`rocket-approach`, whose features on the
 * rocket alone turned poses 14 - 21 degrees off) and the mean correct recall from 0.785 to
 * 0.810. Measured before the alternative's rms error counted for the loose band: turns of 1
 * and 3 degrees gave the same poses, 6 and 10 fewer correct ones (0.805, 0.793 against
 * 0.809); margins of 0.02 and 0.1 no more (0.809, 0.805). */
#define AR_PRIOR_TURN_RAD (3.0 * 0.017453292519943295)
#define AR_PRIOR_MARGIN 0.05
/* A pose the features leave open (its inliers spread less than AR_MIN_SPREAD_PX; found without
 * a last pose, the other IPPE candidate explains them about as well) is settled by the frame's
 * pixels, and where the features chose between two distinct candidates (a first pose, a change
 * of the last pose's branch) the pixels may overrule them: each candidate is aligned
 * photometrically with the far reach (satfeat_ar_photo_far), and the one the frame agrees with
 * best stands when it agrees at least AR_SETTLE_MIN_AGREEMENT and, against a distinct other
 * candidate, AR_SETTLE_MARGIN better. On the fourteen tuning sequences of docs/AR.md (a
 * development build that printed every candidate) the aligned candidates within a degree of the
 * truth agreed at 0.904 - 0.997, the others at 0.925 and 0.909 (7.1 and 5.9 degrees off, on
 * `rocket-approach`), 0.80 (31), 0.76 (35) and 0.62 (44) or less; of two candidates on a target
 * 70 px wide the true one agreed 0.011 - 0.33 better than the other's local optimum 31 - 55
 * degrees off. A margin of 0.005 and a least agreement of 0.85 gave the same poses; a margin of
 * 0.02 lost five correct ones, 0.95 five (`wood-blur`'s blurred frames agree at 0.90 - 0.95).
 * The truth itself agrees at 0.98 - 0.99 on those first frames, though the features' inliers
 * fit it worse than either IPPE candidate (1.4 - 2.3 px against 1.2 - 1.6): the keypoints of a
 * small target are off by a pixel or two, its pixels are not. */
#define AR_SETTLE_MIN_AGREEMENT 0.9
#define AR_SETTLE_MARGIN 0.01
/* The smallest guided radius (px): the detector's keypoint position noise on a blurred frame. */
#define AR_MIN_RADIUS 2.5

/* The loose band's upper bound on a pose's rms error (px), for a pose the frame's pixels can
 * confirm. */
static double loose_bound(const satfeat_ar_session *s)
{
    return fmax(s->p.max_reproj_px, AR_LOOSE_FACTOR * s->p.threshold);
}

/* Applies h to (x, y); 0 when the point maps to or beyond infinity (w <= 0). *w_out (may be
 * NULL) receives w. */
static int map_point(const double h[9], double x, double y, double *u, double *v, double *w_out)
{
    const double w = h[6] * x + h[7] * y + h[8];
    if (!(w > 1e-12)) return 0;
    *u = (h[0] * x + h[1] * y + h[2]) / w;
    *v = (h[3] * x + h[4] * y + h[5]) / w;
    if (w_out) *w_out = w;
    return 1;
}

/* Local scale of h at a point that maps to (u, v) with w: sqrt |det J|, J the Jacobian of the
 * mapped point. */
static double local_scale(const double h[9], double u, double v, double w)
{
    const double a = (h[0] - h[6] * u) / w, b = (h[1] - h[7] * u) / w;
    const double c = (h[3] - h[6] * v) / w, d = (h[4] - h[7] * v) / w;
    return sqrt(fabs(a * d - b * c));
}

/* sqrt of the area of the quad the reference's corners map to under h (its size in pixels); 0
 * when a corner maps to infinity. */
static double quad_size(const satfeat_ar_target *t, const double h[9])
{
    const double X[4] = {-0.5, t->width - 0.5, t->width - 0.5, -0.5};
    const double Y[4] = {-0.5, -0.5, t->height - 0.5, t->height - 0.5};
    double u[4], v[4], area = 0.0;
    for (int k = 0; k < 4; k++)
        if (!map_point(h, X[k], Y[k], &u[k], &v[k], NULL)) return 0.0;
    for (int k = 0; k < 4; k++) area += u[k] * v[(k + 1) % 4] - u[(k + 1) % 4] * v[k];
    return sqrt(fabs(0.5 * area));
}

/* Predicts where the homography h puts each target feature in the frame, in s->pred (distorted
 * pixel positions): NaN for a feature it puts outside the frame (beyond `margin`), behind the
 * camera or at a size the frame's detector has no filter for, which the matcher's radius gate
 * then never passes. Returns the count of features predicted inside. */
static size_t predict_features(satfeat_ar_session *s, const satfeat_ar_target *t,
                               const double h[9], const satfeat_ar_frame *fr, double margin)
{
    size_t m = 0;
    for (size_t i = 0; i < t->n; i++) {
        const satfeat_keypoint *k = &t->kp[i];
        s->pred[2 * i] = s->pred[2 * i + 1] = NAN;
        double u, v, w;
        if (!map_point(h, k->x, k->y, &u, &v, &w)) continue;
        const double size = k->size * local_scale(h, u, v, w);
        if (size < 7.0 || size > 500.0) continue; /* beyond the frame detector's filter sizes */
        double px, py;
        satfeat_ar_normalized_to_pixel(&s->cam, (u - s->cam.cx) / s->cam.fx,
                                       (v - s->cam.cy) / s->cam.fy, &px, &py);
        if (!(px > -margin && py > -margin && px < fr->width + margin &&
              py < fr->height + margin))
            continue;
        s->pred[2 * i] = px;
        s->pred[2 * i + 1] = py;
        m++;
    }
    return m;
}

/* Matches the target's features against the frame, the whole set (radius 0; its matches are
 * taken from the frame's joint match when it was made) or those s->pred places in the frame,
 * each within `radius` px of its prediction; then robustly fits the homography. Returns the
 * inlier count (0 when none, or when fewer than min_inliers matches could not give min_inliers
 * inliers), the matches' correspondences in src / dst and the inlier mask. The target's feature
 * set is the same in every pass, so the CUDA matcher uploads it once and, for a guided pass,
 * only the predictions. */
static size_t match_and_fit(satfeat_ar_session *s, const satfeat_ar_slot *slot,
                            const satfeat_ar_frame *fr, double radius, int min_inliers,
                            double h[9], size_t *n_pairs, satfeat_status *error)
{
    const satfeat_ar_target *t = slot->target;
    const int guided = radius > 0.0;
    const satfeat_keypoint *kq = t->kp;
    const satfeat_match_pair *found = s->matches;
    size_t count = 0;
    *n_pairs = 0;
    if (!guided && slot->joint_n >= 0) {
        found = s->joint_matches + slot->joint_at;
        count = (size_t)slot->joint_n;
    } else {
        const double t_match = satfeat_ar_tic(s);
        const satfeat_status st = satfeat_ar_match(s->feat, slot->all, guided ? s->pred : NULL,
                                                   s->p.ratio, radius, s->matches, s->max_feat,
                                                   &count);
        satfeat_ar_toc(s, t_match, &s->times.match_us);
        if (st != SATFEAT_OK) {
            *error = st;
            return 0;
        }
    }
    size_t n = 0;
    for (size_t i = 0; i < count; i++) {
        const satfeat_match_pair *m = &found[i];
        if (!satfeat_ar_frame_ray(fr, (size_t)m->train)) continue;
        const satfeat_keypoint *k = &kq[m->query];
        s->src[2 * n] = k->x;
        s->src[2 * n + 1] = k->y;
        s->dst[2 * n] = fr->und[2 * m->train];
        s->dst[2 * n + 1] = fr->und[2 * m->train + 1];
        s->world[2 * n] = fr->norm[2 * m->train]; /* kept beside dst for the pose */
        s->world[2 * n + 1] = fr->norm[2 * m->train + 1];
        s->quality[n] = 1.0f / (m->distance + 0.001f);
        /* a keypoint's position error grows with its scale: weight 1 / sigma^2 in the pose */
        const double sigma = fr->kp[m->train].sigma;
        s->wt[n] = sigma > 0.0 ? 1.0 / (sigma * sigma) : 1.0;
        n++;
    }
    *n_pairs = n;
    if (n < (size_t)min_inliers) return 0; /* the fit could not be trusted: not tried */
    size_t inl = 0;
    const double t_fit = satfeat_ar_tic(s);
    const satfeat_status hs = satfeat_ar_homography_robust(s->feat, s->src, s->dst, n, s->quality,
                                                           s->p.threshold, h, s->mask, &inl);
    satfeat_ar_toc(s, t_fit, &s->times.homography_us);
    if (hs == SATFEAT_ERR_NO_MODEL) return 0;
    if (hs != SATFEAT_OK) {
        *error = hs;
        return 0;
    }
    return inl;
}

/* The homography of a pose: K [r1 r2 t] diag(s, s, 1), normalised to h[8] = 1. */
static int pose_homography(const satfeat_ar_camera *c, const satfeat_ar_pose *p, double s,
                           double h[9])
{
    const double M[9] = {p->R[0] * s, p->R[1] * s, p->t[0], p->R[3] * s, p->R[4] * s, p->t[1],
                         p->R[6] * s, p->R[7] * s, p->t[2]};
    const double K[9] = {c->fx, 0, c->cx, 0, c->fy, c->cy, 0, 0, 1};
    double H[9];
    satfeat_ar_mat3_mul(K, M, H);
    if (!(fabs(H[8]) > 1e-300)) return 0;
    for (int k = 0; k < 9; k++) h[k] = H[k] / H[8];
    return 1;
}

/* Trust checks of a pose: its homography exists (into h, pose_homography), the camera is on
 * the target's front side, the reference's four corners are in front of the camera and map to
 * a convex, counter-clockwise-free (as the reference) quad of at least 16 px^2 in the
 * undistorted frame. */
static int pose_plausible(const satfeat_ar_camera *c, const satfeat_ar_target *t, double s,
                          const satfeat_ar_pose *p, double h[9])
{
    if (!pose_homography(c, p, s, h)) return 0;
    /* camera centre C = -R^T t has world z < 0 (the side the reference is seen from) */
    const double cz = -(p->R[2] * p->t[0] + p->R[5] * p->t[1] + p->R[8] * p->t[2]);
    if (!(cz < 0.0)) return 0;
    const double X[4] = {-0.5, t->width - 0.5, t->width - 0.5, -0.5};
    const double Y[4] = {-0.5, -0.5, t->height - 0.5, t->height - 0.5};
    double u[4], v[4];
    for (int k = 0; k < 4; k++) {
        const double z = p->R[6] * X[k] * s + p->R[7] * Y[k] * s + p->t[2];
        if (!(z > 0.0)) return 0;
        if (!map_point(h, X[k], Y[k], &u[k], &v[k], NULL)) return 0;
    }
    double area = 0.0;
    for (int k = 0; k < 4; k++) {
        const int a = (k + 1) % 4, b = (k + 2) % 4;
        const double cross = (u[a] - u[k]) * (v[b] - v[a]) - (v[a] - v[k]) * (u[b] - u[a]);
        if (!(cross > 0.0)) return 0; /* the reference's corners turn clockwise in x-right,
                                         y-down pixels: a positive cross product each */
        area += u[k] * v[a] - u[a] * v[k];
    }
    return 0.5 * area >= 16.0;
}

/* The pose of the inlier correspondences the frame's pixels settle (AR_SETTLE_MIN_AGREEMENT):
 * of *pose and, when given, *other (the other IPPE candidate), each aligned with the far reach;
 * a candidate more than AR_MAX_TURN_RAD from prefer_R (when given) is not considered. Returns
 * the settled pose's rms error over the n inliers with it in *pose and its homography in hp, or
 * -1 (*pose and hp unchanged) when the pixels do not settle it or the settled pose fails the
 * loose band's bound or pose_plausible. */
static double settle_by_pixels(satfeat_ar_session *s, const satfeat_ar_target *t, double scale,
                               const satfeat_ar_frame *fr, size_t n, const double *prefer_R,
                               const satfeat_ar_pose *other, double bound, satfeat_ar_pose *pose,
                               double hp[9])
{
    if (!s->p.photometric || t->photo.levels == 0 || !fr->pixels.pix) return -1.0;
    satfeat_ar_pose cand[2] = {*pose, other ? *other : *pose};
    double agree[2] = {-INFINITY, -INFINITY};
    const int n_cand = 1 + (other != NULL);
    /* independent alignments (up to a millisecond each on a 640x480 frame), each with its own
     * scratch: on two threads the same bits in about half the time */
#pragma omp parallel for num_threads(2) schedule(static, 1) \
    if (n_cand == 2 && satfeat_ctx_threads(s->ctx) >= 2)
    for (int c = 0; c < n_cand; c++) {
        if (prefer_R && satfeat_ar_rotation_angle_between(prefer_R, cand[c].R) > AR_MAX_TURN_RAD)
            continue;
        double *scratch = s->photo_scratch + (size_t)c * SATFEAT_AR_PHOTO_SCRATCH;
        /* a candidate the alignment cannot improve is measured where it stands */
        satfeat_ar_photo_refine(&t->photo, t->width, t->height, scale, &s->cam, &fr->pixels,
                                &satfeat_ar_photo_far, scratch, &cand[c]);
        const double a = satfeat_ar_photo_agreement(&t->photo, t->width, t->height, scale,
                                                    &s->cam, &fr->pixels, scratch, &cand[c]);
        if (!isnan(a)) agree[c] = a; /* NaN: too few samples in the frame */
    }
    const int best = agree[1] > agree[0] ? 1 : 0;
    if (!(agree[best] >= AR_SETTLE_MIN_AGREEMENT) ||
        !(agree[best] - agree[1 - best] >= AR_SETTLE_MARGIN || !other))
        return -1.0;
    double h[9];
    const double rms = satfeat_ar_pose_rms(s->src, s->img, n, s->cam.fx, s->cam.fy, &cand[best]);
    if (!(rms <= bound) || !pose_plausible(&s->cam, t, scale, &cand[best], h)) return -1.0;
    *pose = cand[best];
    memcpy(hp, h, sizeof h);
    return rms;
}

/* The pose of the n correspondences in src (plane, metres) / img (normalised) and the checks
 * that decide whether it is trusted: its rms error (px) with *pose and its homography hp, or
 * -1 when it is not trusted. *prefer_out becomes NULL when the data left prefer_R's branch, so
 * that what follows does not hold the pose to the last frame's either. */
static double trusted_pose(satfeat_ar_session *s, const satfeat_ar_target *t, double scale,
                           const satfeat_ar_frame *fr, size_t n, const double *prefer_R,
                           const double **prefer_out, satfeat_ar_pose *pose, double hp[9])
{
    double other;
    satfeat_ar_pose other_pose;
    int switched;
    const double rms = satfeat_ar_pose_planar(
        s->src, s->img, s->wt, n, s->cam.fx, s->cam.fy, s->pose_scratch,
        satfeat_ctx_threads(s->ctx), prefer_R, &other, &other_pose, &switched, pose);
    /* the data settled on the other branch than the last frame's pose: a turn, not a camera's,
     * that the checks below and the photometric refinement must not refuse */
    if (switched) *prefer_out = NULL;
    /* looser when the frame's pixels can confirm the pose */
    const double bound =
        s->p.photometric && t->photo.levels > 0 ? loose_bound(s) : s->p.max_reproj_px;
    if (rms < 0.0 || !(rms <= bound)) return -1.0;
    /* inliers close to a line leave the tilt about it open, and without a previous pose to
     * choose by, so does a pose the other IPPE candidate explains about as well (a flip of the
     * tilt): the frame's pixels may still settle it */
    const int narrow =
        !(satfeat_ar_points_min_spread(s->img, n, s->cam.fx, s->cam.fy) >= AR_MIN_SPREAD_PX);
    const satfeat_ar_pose *distinct = other >= 0.0 ? &other_pose : NULL;
    if (narrow || (!prefer_R && satfeat_ar_pose_ambiguous(rms, other, n)))
        return settle_by_pixels(s, t, scale, fr, n, prefer_R, distinct, bound, pose, hp);
    /* of two distinct candidates the features chose one decisively: on a first pose (no last
     * pose to hold it to) or against the last pose's branch. Where they cover little of the
     * target or the keypoints are off by a pixel or two, that choice can be wrong: the pixels
     * decide when they can, else the features' choice stands */
    if (switched || (!prefer_R && distinct)) {
        const double settled =
            settle_by_pixels(s, t, scale, fr, n, NULL, distinct, bound, pose, hp);
        if (settled >= 0.0) return settled;
    }
    /* nor is a pose that turned further from the last frame's than a camera turns between two
     * frames (a wrong branch or a homography of a blurred, weakly matched frame) */
    if (prefer_R && !switched &&
        satfeat_ar_rotation_angle_between(prefer_R, pose->R) > AR_MAX_TURN_RAD)
        return -1.0;
    if (!pose_plausible(&s->cam, t, scale, pose, hp)) return -1.0;
    return rms;
}

/* The photometric refinement of a trusted pose (ar_photo.h): when it refines, and the refined
 * pose passes the same geometric checks, it replaces *pose, its homography hp and its rms
 * error over the n inlier correspondences. */
static void refine_photometric(satfeat_ar_session *s, const satfeat_ar_slot *slot,
                               const satfeat_ar_frame *fr, size_t n, const double *prefer_R,
                               satfeat_ar_pose *pose, double hp[9], double *rms)
{
    const satfeat_ar_target *t = slot->target;
    satfeat_ar_pose refined = *pose;
    double h[9];
    if (!s->p.photometric || !fr->pixels.pix ||
        !satfeat_ar_photo_refine(&t->photo, t->width, t->height, slot->s, &s->cam, &fr->pixels,
                                 &satfeat_ar_photo_near, s->photo_scratch, &refined))
        return;
    if ((prefer_R && satfeat_ar_rotation_angle_between(prefer_R, refined.R) > AR_MAX_TURN_RAD) ||
        !pose_plausible(&s->cam, t, slot->s, &refined, h))
        return;
    /* the features still agree: a refinement that moves the inliers' median reprojection
     * error by more than AR_PHOTO_MEDIAN_PX aligned something else (an occluder's edge, a
     * repeated texture) */
    const double m0 = satfeat_ar_pose_median_error(s->src, s->img, n, s->cam.fx, s->cam.fy, pose,
                                                   s->pose_scratch);
    const double m1 = satfeat_ar_pose_median_error(s->src, s->img, n, s->cam.fx, s->cam.fy,
                                                   &refined, s->pose_scratch);
    if (!(m1 <= m0 + AR_PHOTO_MEDIAN_PX)) return;
    *pose = refined;
    memcpy(hp, h, 9 * sizeof *h);
    *rms = satfeat_ar_pose_rms(s->src, s->img, n, s->cam.fx, s->cam.fy, &refined);
}

/* The photometric refinement of the last frame's rotation (with the translation that fits the
 * n inliers under it) against the trusted pose *pose of this frame (ar_locate.c's
 * AR_PRIOR_TURN_RAD): when the frame's pixels agree with it at least AR_PRIOR_MARGIN better
 * than with *pose, and the inliers fit it within the loose band's bound, it replaces *pose,
 * its homography hp and its rms error. The features of a part of the target (a rocket without
 * its towers) can fit a pose 20 degrees off better than the true one; the whole target's
 * pixels do not. Returns 1 when it replaced *pose. *agreement receives the agreement of the
 * pose it leaves in *pose when it measured it, else is left as it was. */
static int weigh_prior(satfeat_ar_session *s, const satfeat_ar_slot *slot,
                       const satfeat_ar_frame *fr, size_t n, const double *prior_R,
                       satfeat_ar_pose *pose, double hp[9], double *rms, double *agreement)
{
    const satfeat_ar_target *t = slot->target;
    if (!s->p.photometric || !fr->pixels.pix || !prior_R ||
        !(satfeat_ar_rotation_angle_between(prior_R, pose->R) > AR_PRIOR_TURN_RAD))
        return 0;
    const double agree = satfeat_ar_photo_agreement(&t->photo, t->width, t->height, slot->s,
                                                    &s->cam, &fr->pixels, s->photo_scratch, pose);
    *agreement = agree;
    /* a correlation is at most 1 (up to rounding): no alternative can beat this one by the
     * margin, so the refinement is not run (most tracked frames of a well-seen target) */
    if (!(agree + AR_PRIOR_MARGIN <= 1.0 + 1e-9)) return 0;
    satfeat_ar_pose alt;
    double h[9];
    memcpy(alt.R, prior_R, sizeof alt.R);
    if (!satfeat_ar_translation_fit(alt.R, s->src, s->img, n, alt.t) ||
        !satfeat_ar_photo_refine(&t->photo, t->width, t->height, slot->s, &s->cam, &fr->pixels,
                                 &satfeat_ar_photo_near, s->photo_scratch, &alt) ||
        !pose_plausible(&s->cam, t, slot->s, &alt, h))
        return 0;
    const double agree_alt = satfeat_ar_photo_agreement(
        &t->photo, t->width, t->height, slot->s, &s->cam, &fr->pixels, s->photo_scratch, &alt);
    const double rms_alt = satfeat_ar_pose_rms(s->src, s->img, n, s->cam.fx, s->cam.fy, &alt);
    if (!(agree_alt >= agree + AR_PRIOR_MARGIN) || !(rms_alt <= loose_bound(s))) return 0;
    *pose = alt;
    memcpy(hp, h, 9 * sizeof *h);
    *rms = rms_alt;
    *agreement = agree_alt;
    return 1;
}

int satfeat_ar_locate(satfeat_ar_session *s, int k, const satfeat_ar_frame *fr,
                      const double *predicted, const double *prefer_R, int min_inliers,
                      satfeat_ar_result *res, int *loose, satfeat_status *error)
{
    if (loose) *loose = 0;
    const satfeat_ar_slot *slot = &s->slots[k];
    const satfeat_ar_target *t = slot->target;
    double h[9];
    size_t pairs;
    if (!predicted) {
        const size_t inl = match_and_fit(s, slot, fr, 0.0, min_inliers, h, &pairs, error);
        if (inl < (size_t)min_inliers) return 0;
        predicted = h;
    }
    /* guided passes: around the prediction, then again tightly around the homography that
     * gave, which recovers matches the wide radius's ratio test lost */
    /* on a small target a wide radius admits more wrong matches than the target has right
     * ones: the radii shrink with the target's size in the frame */
    const double size = quad_size(t, predicted);
    const double radii[2] = {fmin(s->p.track_radius, fmax(AR_MIN_RADIUS, 0.06 * size)),
                             fmin(AR_TIGHT_RADIUS, fmax(AR_MIN_RADIUS, 0.02 * size))};
    double hp_pass[9];
    memcpy(hp_pass, predicted, sizeof hp_pass);
    for (int pass = 0; pass < 2; pass++) {
        if (predict_features(s, t, hp_pass, fr, radii[pass]) < (size_t)min_inliers) return 0;
        const size_t inl = match_and_fit(s, slot, fr, radii[pass], min_inliers, h, &pairs, error);
        if (inl < (size_t)min_inliers) return 0;
        memcpy(hp_pass, h, sizeof hp_pass);
    }
    /* pose from the homography's inliers: plane points in metres, normalised image points */
    size_t n = 0;
    for (size_t i = 0; i < pairs; i++) {
        if (!s->mask[i]) continue;
        s->img[2 * n] = s->world[2 * i];
        s->img[2 * n + 1] = s->world[2 * i + 1];
        s->src[2 * n] = s->src[2 * i] * slot->s;
        s->src[2 * n + 1] = s->src[2 * i + 1] * slot->s;
        s->wt[n] = s->wt[i];
        n++;
    }
    const double t_pose = satfeat_ar_tic(s);
    satfeat_ar_pose pose;
    double hp[9];
    const double *prefer_after = prefer_R;
    double rms = trusted_pose(s, t, slot->s, fr, n, prefer_R, &prefer_after, &pose, hp);
    int in_band = rms > s->p.max_reproj_px;
    /* the agreement of the pose as it stands; INFINITY (no correlation's value) until measured */
    double agree = INFINITY;
    if (rms >= 0.0) {
        refine_photometric(s, slot, fr, n, prefer_after, &pose, hp, &rms);
        /* the last frame's rotation, refined, in the loose band when the inliers fit it so */
        if (weigh_prior(s, slot, fr, n, prefer_after, &pose, hp, &rms, &agree))
            in_band = in_band || rms > s->p.max_reproj_px;
    }
    /* a loosely fitting pose stands only where the frame looks like the target: matches that
     * followed a blurred background (a tracked pass after the target left the view) agree
     * geometrically but not photometrically */
    if (rms >= 0.0 && in_band) {
        if (agree == INFINITY)
            agree = satfeat_ar_photo_agreement(&t->photo, t->width, t->height, slot->s, &s->cam,
                                               &fr->pixels, s->photo_scratch, &pose);
        if (!(agree >= AR_PHOTO_MIN_AGREEMENT)) rms = -1.0;
    }
    satfeat_ar_toc(s, t_pose, &s->times.pose_us);
    if (rms < 0.0) return 0;
    if (loose) *loose = in_band;
    res->inliers = (int)n;
    res->reproj_px = rms;
    memcpy(res->R, pose.R, sizeof res->R);
    memcpy(res->tvec, pose.t, sizeof res->tvec);
    satfeat_ar_matrix_to_rodrigues(pose.R, res->rvec);
    memcpy(res->h, hp, sizeof res->h);
    return 1;
}
