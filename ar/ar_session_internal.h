/* ar_session_internal.h - the state of an AR session and the per-target locate steps shared by
 * ar_session.c (creation, the frame loop) and ar_locate.c (matching, homography, pose, trust). */
#ifndef SATFEAT_AR_SESSION_INTERNAL_H
#define SATFEAT_AR_SESSION_INTERNAL_H

#include "ar/ar_features.h"
#include "ar/ar_pose.h"
#include "ar/ar_target_internal.h"
#include "src/clock.h"

/** One target of a session: its features and what the last frame said about it. */
typedef struct satfeat_ar_slot {
    satfeat_ar_target *target; /* the session's own copy */
    satfeat_features *all;     /* its features as the matcher's query set (whole-target match) */
    size_t first;              /* index of its first feature in the joint set (while it holds it) */
    /* its whole-target matches in this frame's train, from the joint match: `joint_n` pairs
     * from joint_matches[joint_at], query indices its own; joint_n < 0 when not made */
    size_t joint_at;
    long joint_n;
    double s;                  /* metres per reference pixel */
    satfeat_ar_state state;    /* in the last frame */
    double h[9];               /* last trusted homography (reference px -> undistorted px) */
    int inliers;               /* its inliers (0 when lost) */
    double R[9];               /* its rotation */
    unsigned lost_frames;      /* frames since its last pose (SATFEAT_AR_RECENT_FRAMES and more:
                                  long ago or never) */
} satfeat_ar_slot;

/** A target posed within this many frames is searched for in the halves of the frame before
 *  the targets lost longer (ar_session.c). */
#define SATFEAT_AR_RECENT_FRAMES 8

/** ray[i] of a keypoint not undistorted yet (satfeat_ar_frame_ray computes it). */
#define SATFEAT_AR_RAY_UNKNOWN 2

/** The frame's keypoints as the locate steps read them. Their undistorted positions are
 * computed on first use (satfeat_ar_frame_ray): only matched keypoints need them, a fraction of
 * the frame's, and the Newton inverse of the distortion is the costly part of a keypoint. */
typedef struct satfeat_ar_frame {
    const satfeat_keypoint *kp;
    const float *desc;
    size_t n;
    const satfeat_ar_camera *cam;
    double *und;   /* 2n: undistorted pixel positions (where ray[i] is 1) */
    double *norm;  /* 2n: normalised undistorted positions (where ray[i] is 1) */
    uint8_t *ray;  /* n: 1 where the keypoint has a ray (always, for a valid camera), 0 where
                      not, SATFEAT_AR_RAY_UNKNOWN before its first satfeat_ar_frame_ray */
    int width, height;
    satfeat_ar_pixels pixels; /* the whole frame in host memory (pix NULL: no refinement) */
} satfeat_ar_frame;

/**
 * Whether keypoint i of fr has a ray (satfeat_ar_pixel_to_normalized succeeds on it); on its
 * first call for i it undistorts the keypoint into fr->norm and fr->und (the pixel of the
 * undistorted frame), kept for the frame's later calls.
 */
int satfeat_ar_frame_ray(const satfeat_ar_frame *fr, size_t i);

struct satfeat_ar_session {
    satfeat_ctx *ctx;
    satfeat_ar_params p;
    satfeat_ar_camera cam;
    int max_width, max_height, dim;
    satfeat_ar_features *feat;
    /* the lost targets' features in slot order, one query set, so that the whole-target
     * matches of several lost targets take one matcher call (one device round trip on CUDA);
     * NULL with one target. `joint_held` has bit k set when it holds slot k's features (every
     * slot's at creation); it is rewritten when the lost targets change. joint_matches has room
     * for all the targets' features (one match a query at most). */
    satfeat_features *joint;
    uint64_t joint_held;
    satfeat_match_pair *joint_matches;
    size_t joint_cap;
    unsigned long joint_calls; /* joint matches made (what the tests observe) */
    int n_slots;
    satfeat_ar_slot *slots;
    size_t max_feat;           /* most features of one target */
    size_t max_kp;             /* frame keypoint capacity */
    unsigned search_frames;    /* frames searched in a half for lost targets (alternates halves) */
    unsigned mixed_frames;     /* frames since the lost targets' last search while others were
                                  tracked (process_frame) */
    /* frame scratch (max_kp entries) */
    double *und, *norm;
    uint8_t *ray;
    /* per-target scratch (max_feat entries) */
    double *pred, *src, *dst, *world, *img, *pose_scratch, *wt;
    double *photo_scratch;     /* SATFEAT_AR_PHOTO_SCRATCH doubles */
    /* a device frame's pixels (and mask) in host memory for the photometric refinement,
     * allocated on the first device frame */
    uint8_t *frame_copy, *mask_copy;
    float *quality;
    uint8_t *mask;
    satfeat_match_pair *matches;
    /* profiling: the stages of the frame in progress, and of the last one measured */
    int profiling, measured;
    satfeat_ar_stage_times times;
};

/** Start of a timed stage: the clock when the session is profiled, else 0 (no clock read). */
static inline double satfeat_ar_tic(const satfeat_ar_session *s)
{
    return s->profiling ? satfeat_clock_us() : 0.0;
}

/** End of a timed stage begun at t0: adds its microseconds to *stage when profiled. */
static inline void satfeat_ar_toc(const satfeat_ar_session *s, double t0, double *stage)
{
    if (s->profiling) *stage += satfeat_clock_us() - t0;
}

/**
 * Locates slot `k` in the frame; *loose (may be NULL) is set to 1 when the pose it trusted was
 * in the loose band (its features' rms above max_reproj_px, trusted by the frame's pixels),
 * else 0. With `predicted` (a homography, reference px -> undistorted px) only features
 * predicted inside the frame are matched, within track_radius of their predictions, and at
 * least `min_inliers` are needed; without, the whole target is matched
 * first, and the homography found seeds that guided pass. Fills *res with a trusted pose (state
 * left to the caller) and returns 1, or returns 0 (res untouched) when nothing is trusted.
 * `prefer_R` (the last frame's rotation, may be NULL) settles the planar two-fold ambiguity;
 * without it an ambiguous pose is not trusted.
 */
int satfeat_ar_locate(satfeat_ar_session *s, int k, const satfeat_ar_frame *fr,
                      const double *predicted, const double *prefer_R, int min_inliers,
                      satfeat_ar_result *res, int *loose, satfeat_status *error);

#endif
