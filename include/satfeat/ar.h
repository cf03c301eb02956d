/* satfeat/ar.h - libsatfeat public API: augmented reality: planar targets, the camera model and
 * the camera's pose per frame. Part of satfeat.h, which includes every part; include satfeat.h. */
#ifndef SATFEAT_API_AR_H
#define SATFEAT_API_AR_H

#include "satfeat/detect.h"
#include "satfeat/features.h"

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* ---------------------------------------------------------------------------------------------
 * Augmented reality: known planar targets, their homography and the camera's pose (docs/AR.md)
 *
 * Pose convention (that of OpenCV's solvePnP, so cv2.projectPoints draws with it): a world point
 * X maps to the camera as X_cam = R X + t; camera axes x right, y down, z forward; a pose is
 * reported as the Rodrigues vector r of R (radians) and t (metres). World: the target plane
 * z = 0, reference pixel (u, v) (0-based pixel centres) at (u s, v s, 0) with s = the target's
 * width in metres / its reference width in pixels.
 * ------------------------------------------------------------------------------------------- */

/**
 * A pinhole camera with radial distortion: the normalised point (x, y) = (X/Z, Y/Z) of a camera
 * point is distorted to (x, y) * (1 + k1 r^2 + k2 r^4), r^2 = x^2 + y^2, and lands on pixel
 * (fx x_d + cx, fy y_d + cy), pixel centres at integer coordinates (those of the keypoints).
 * The radial factor must grow monotonically over the frame (r + k1 r^3 + k2 r^5 increasing out
 * to the frame's corners) so every pixel has one ray; k1 = k2 = 0 is a pure pinhole.
 */
typedef struct satfeat_ar_camera {
    double fx, fy; /**< focal lengths in pixels, finite and > 0 */
    double cx, cy; /**< principal point in pixels (finite) */
    double k1, k2; /**< radial distortion (finite; 0 = none) */
} satfeat_ar_camera;

/**
 * Intrinsics of a camera whose horizontal field of view (degrees, in (0, 180)) is known but not
 * its calibration: fx = fy = (width / 2) / tan(hfov / 2), the principal point at the image
 * centre ((width - 1) / 2, (height - 1) / 2), no distortion. SATFEAT_ERR_ARG for a NULL out,
 * sizes < 1 or a field of view outside (0, 180).
 */
SATFEAT_API satfeat_status satfeat_ar_camera_from_fov(int width, int height, double hfov_degrees,
                                                      satfeat_ar_camera *out);

/**
 * Projects n world points (xyz, 3 doubles each) through the pose (rvec, tvec) and `camera`
 * (with its distortion) to pixels (uv, 2 doubles each). A point at or behind the camera plane
 * (Z <= 0) gives NaN for both coordinates. SATFEAT_ERR_ARG for NULL arrays (n > 0) or a camera
 * with a non-finite or non-positive focal length.
 */
SATFEAT_API satfeat_status satfeat_ar_project_points(const satfeat_ar_camera *camera,
                                                     const double rvec[3], const double tvec[3],
                                                     const double *xyz, size_t n, double *uv);

/** Opaque target: a reference image's features at several scales with their plane positions. */
typedef struct satfeat_ar_target satfeat_ar_target;

/** How a target is built; get the defaults from satfeat_ar_target_params_default. */
typedef struct satfeat_ar_target_params {
    satfeat_detector_params detector; /**< detector of every scale of the reference (default:
                                           the detector defaults with threshold 0.0002, grid 8,
                                           per_cell 24, descriptor_norm L2, orientation_refine
                                           0, descriptor_haar and orientation_haar 3, the Haar
                                           orientation_filter: as the session's); its
                                           max_keypoints is set per
                                           scale */
    double scale_step;                /**< each scale is this factor of the one before, in
                                           [0.3, 0.9] (default 0.7071: half octaves) */
    int min_width;                    /**< no scale narrower than this many pixels, >= 32
                                           (default 80: found down to about that width) */
    int max_features;                 /**< keypoints kept at full scale, >= 16 (default 500);
                                           scale k keeps max(100, max_features * step^k) */
} satfeat_ar_target_params;

/** Facts about a target (satfeat_ar_target_get_info). */
typedef struct satfeat_ar_target_info {
    int width, height;  /**< reference image size in pixels */
    double width_m;     /**< physical width in metres */
    size_t features;    /**< keypoints over all scales */
    int scales;         /**< scales of the reference that were detected */
    int descriptor_dim; /**< 64 or 128 */
} satfeat_ar_target_info;

/** Returns the default target parameters (see satfeat_ar_target_params). */
SATFEAT_API satfeat_ar_target_params satfeat_ar_target_params_default(void);

/**
 * Builds a target from an 8-bit gray reference image (host memory, byte stride >= width, at
 * least 32 x 32) whose printed width is `width_m` metres (finite, > 0): the reference is
 * resampled by area averaging to scales 1, step, step^2, ... down to min_width pixels and each
 * scale detected with descriptors on ctx's backend; keypoints are kept in reference pixel
 * coordinates (pixel centres at integers). `params` NULL means the defaults. SATFEAT_ERR_ARG
 * (message in ctx) for bad arguments, SATFEAT_ERR_NO_MODEL when the reference has fewer than
 * 16 keypoints (a blank or featureless image cannot be found), SATFEAT_ERR_ALLOC.
 */
SATFEAT_API satfeat_status satfeat_ar_target_new(satfeat_ctx *ctx, const uint8_t *image,
                                                 size_t stride, int width, int height,
                                                 double width_m,
                                                 const satfeat_ar_target_params *params,
                                                 satfeat_ar_target **out);

/** Destroys a target. NULL is allowed. */
SATFEAT_API void satfeat_ar_target_delete(satfeat_ar_target *target);

/** Writes a target's facts (SATFEAT_ERR_ARG for NULL arguments). */
SATFEAT_API satfeat_status satfeat_ar_target_get_info(const satfeat_ar_target *target,
                                                      satfeat_ar_target_info *info);

/**
 * Saves a target to a file (the versioned binary format of docs/AR.md: magic, version, sizes,
 * the features, a checksum), with the failure rules of satfeat_image_write_png (a failed write
 * leaves an existing file as it was). `ctx` may be NULL.
 */
SATFEAT_API satfeat_status satfeat_ar_target_save(satfeat_ctx *ctx,
                                                  const satfeat_ar_target *target,
                                                  const char *path);

/**
 * Loads a target saved by satfeat_ar_target_save. The file is checked like any input before
 * anything is allocated from it: wrong magic, an unknown version, a truncated file, counts
 * the file size cannot hold, sizes beyond SATFEAT_IMAGE_MAX_SIDE, non-finite numbers,
 * positions off the reference, a bad Laplacian sign or checksum give SATFEAT_ERR_FORMAT with
 * the reason; SATFEAT_ERR_IO when it cannot be opened (a FIFO or a device is refused, never
 * waited on); SATFEAT_ERR_LIMIT beyond the context's memory limit. On error *out is NULL.
 */
SATFEAT_API satfeat_status satfeat_ar_target_load(satfeat_ctx *ctx, const char *path,
                                                  satfeat_ar_target **out);

/** What a session knows about a target in a frame. */
typedef enum satfeat_ar_state {
    SATFEAT_AR_LOST = 0, /**< not seen: no pose */
    SATFEAT_AR_FOUND,    /**< detected in this frame by matching against the whole target */
    SATFEAT_AR_TRACKED   /**< followed from the previous frame (guided matching) */
} satfeat_ar_state;

/** One target's answer for a frame. Lost: every double is NaN and inliers 0. */
typedef struct satfeat_ar_result {
    satfeat_ar_state state;
    int inliers;      /**< correspondences consistent with the pose */
    double rvec[3];   /**< Rodrigues vector of R, radians */
    double tvec[3];   /**< translation, metres */
    double R[9];      /**< row-major rotation: X_cam = R X + t */
    double h[9];      /**< homography reference pixel -> pixel of the undistorted frame (the
                           frame itself when k1 = k2 = 0), row-major, h[8] = 1, from the pose */
    double reproj_px; /**< rms reprojection error of the inliers, pixels */
} satfeat_ar_result;

/** Session parameters; get the defaults from satfeat_ar_params_default. */
typedef struct satfeat_ar_params {
    satfeat_detector_params detector; /**< detector of every frame, or of its region (default:
                                           the detector defaults with threshold 0.0001, grid 8,
                                           per_cell 32, max_keypoints 2400: a small target
                                           needs keypoints weaker than the background's;
                                           descriptor_norm L2, orientation_refine 0,
                                           descriptor_haar and orientation_haar 3, the Haar
                                           orientation_filter, the settings docs/AR.md was
                                           measured with; a target's parameters must use the
                                           same five) */
    double ratio;          /**< ratio test of every matching pass, in (0, 1] (default 0.8) */
    double threshold;      /**< robust homography inlier threshold, px (default 3) */
    double track_radius;   /**< guided matching radius around the predicted position, px
                                (default 16) */
    int min_inliers_found; /**< inliers a detection needs to be trusted, >= 8 (default 16) */
    int min_inliers_tracked; /**< inliers tracking needs to continue, >= 8 (default 12) */
    double max_reproj_px;  /**< largest rms reprojection error of a trusted pose (default 2);
                                with `photometric` 1 a pose up to 1.5 x `threshold` is trusted
                                too when the frame's pixels agree with the target's there */
    int photometric;       /**< 1 (default): refine each trusted pose by aligning the frame's
                                pixels to the target's photometric samples, and let the pixels
                                settle a pose the features leave open (a small target's tilt;
                                docs/AR.md; the result's reproj_px is then the inliers' error
                                under the refined pose, which may exceed max_reproj_px: that
                                bound judges the features' pose); 0: the features' pose alone */
} satfeat_ar_params;

/** Opaque AR session: targets, a camera, a detector and the per-target state. */
typedef struct satfeat_ar_session satfeat_ar_session;

/** Returns the default session parameters (see satfeat_ar_params). */
SATFEAT_API satfeat_ar_params satfeat_ar_params_default(void);

/**
 * Creates a session for frames of up to max_width x max_height on ctx (detection and matching
 * run on its backend; everything else on the host, so both backends give the same poses) with
 * n_targets targets (1 .. 64; copied, so they may be deleted afterwards) seen through
 * `camera`. SATFEAT_ERR_ARG (message in ctx) for bad arguments, a camera whose distortion folds
 * over inside the frame, or targets of different descriptor sizes than params.detector.
 */
SATFEAT_API satfeat_status satfeat_ar_session_new(satfeat_ctx *ctx,
                                                  const satfeat_ar_target *const *targets,
                                                  int n_targets,
                                                  const satfeat_ar_camera *camera,
                                                  const satfeat_ar_params *params, int max_width,
                                                  int max_height, satfeat_ar_session **out);

/** Destroys a session. NULL is allowed. */
SATFEAT_API void satfeat_ar_session_delete(satfeat_ar_session *session);

/**
 * Processes one 8-bit gray frame, given as a view (satfeat_image_view, features.h: host or
 * device pixels, an optional mask; a device view needs a session on a CUDA context, else
 * SATFEAT_ERR_UNSUPPORTED), of at most the session's maximum size, and writes one result per
 * target into results[0 .. n_targets-1] (`capacity` >= n_targets, else SATFEAT_ERR_CAPACITY).
 * A target tracked in the previous frame is matched around its predicted position in the
 * region around the tracked targets' predicted outlines; when that gives too few inliers or too
 * large an error, the whole target is matched against that region. A lost target's whole
 * feature list is matched against the whole frame: every frame while no target is tracked,
 * every other frame while some are (so a target's answers do not depend on the absent targets
 * a session holds); a target the whole frame does not give is searched for again in one of two
 * overlapping halves of the frame (alternating), where small targets get more keypoints. A
 * pose is reported only when it is trusted (enough inliers, small reprojection error, the
 * target's outline convex and in front of the camera); otherwise the target is lost in this
 * frame. With a mask, keypoints where it is 0 are not used.
 */
SATFEAT_API satfeat_status satfeat_ar_session_process(satfeat_ar_session *session,
                                                      const satfeat_image_view *frame,
                                                      satfeat_ar_result *results, int capacity);

/** Measured microseconds of the last frame a profiled session processed, by stage. */
typedef struct satfeat_ar_stage_times {
    double frame_us;      /**< the whole satfeat_ar_session_process call */
    double detect_us;     /**< keypoints and descriptors of the frame (or of its regions) */
    double match_us;      /**< descriptor matching, whole-target and guided, all targets */
    double homography_us; /**< robust homography fits, all targets */
    double pose_us;       /**< IPPE, Levenberg-Marquardt, the trust checks and the photometric
                               refinement, all targets */
    double other_us;      /**< the rest: undistortion, predictions, bookkeeping */
} satfeat_ar_stage_times;
/**
 * Turns the per-stage measurement of frames on (nonzero) or off (0, the default: no timing
 * work at all). SATFEAT_ERR_ARG for a NULL session.
 */
SATFEAT_API satfeat_status satfeat_ar_session_set_profiling(satfeat_ar_session *session, int on);
/**
 * Writes the stage times of the last frame processed with profiling on (host clock; on a CUDA
 * context detection and matching include their waits for the device). SATFEAT_ERR_ARG for NULL
 * arguments or when no frame was measured since profiling was turned on.
 */
SATFEAT_API satfeat_status satfeat_ar_session_stage_times(const satfeat_ar_session *session,
                                                          satfeat_ar_stage_times *out);
/** Forgets every target's state: the next frame looks for all of them from scratch. */
SATFEAT_API satfeat_status satfeat_ar_session_reset(satfeat_ar_session *session);

#ifdef __cplusplus
}
#endif

#endif
