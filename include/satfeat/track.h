/* satfeat/track.h - libsatfeat public API: the frame-to-frame feature tracker. Part of satfeat.h,
 * which includes every part; include satfeat.h. */
#ifndef SATFEAT_API_TRACK_H
#define SATFEAT_API_TRACK_H

#include "satfeat/detect.h"
#include "satfeat/match.h"
#include "satfeat/motion.h"

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* ---------------------------------------------------------------------------------------------
 * Feature tracking over a frame sequence
 *
 * A tracker is created on a context for a maximum frame size and fed one frame at a time. Each
 * frame: detect keypoints with descriptors (the tracker's own detector on the context's
 * backend) and drop those closer than min_birth_distance to a stronger one (one structure found
 * at two scales is one keypoint, so it does not fail the ratio test against itself). Match the
 * live tracks' last descriptors (queries) against the keypoints (trains) within match.radius of
 * each track's position mapped by the last frame-to-frame motion (satfeat_match_guided; the
 * whole frame when there is no motion yet, or when the radius pass finds no model or fewer than
 * half the last frame's inliers, keeping the pass with more inliers) and estimate the
 * frame-to-frame motion h_prev (satfeat_estimate_motion: PROSAC ordered by 1 / (distance +
 * 0.001), MSAC scoring, fixed seed, least-squares refinement). Predict the reference motion by
 * chaining (h_prev after the last h_ref), match the first frame's keypoints (the reference model,
 * kept from the first frame after creation or reset) around their predicted positions, and, with
 * guided_radius > 0, match every track again within guided_radius of its predicted position (its
 * first-frame position mapped by the predicted h_ref) and estimate h_prev again from those
 * matches. The reference motion h_ref (first frame -> this frame) is estimated from the
 * reference keypoints' and the tracks' first-frame positions together, so it does not accumulate
 * frame-to-frame errors (chained when that fails). With reject_outliers (the default) a match
 * continues its track only when it agrees with h_prev and with h_ref; other tracks are moved to
 * their first-frame position under h_ref (or by h_prev) and count a missed frame; a track ends
 * after more than max_missed missed frames or when it leaves the frame. Unmatched keypoints at
 * least min_birth_distance px from every live track are born as new tracks, in the detector's
 * order (response descending, grid capped), up to max_tracks, when the previous frame had a
 * keypoint within birth_confirm_radius of them under h_prev (a keypoint seen in one frame starts
 * no track) and, with max_birth_size, when they are no larger. Ids come from a 64-bit counter of
 * the tracker and are never reused, not even after satfeat_tracker_reset.
 *
 * Determinism: the output is a pure function of the frames and the parameters: the same frames
 * give the same tracks, bit for bit, on every run, at every thread count and on both backends
 * (detection and matching are bit-identical on CPU and CUDA; everything else runs on the host).
 * Everything is allocated by satfeat_tracker_new; a frame allocates nothing in the tracker (the
 * matcher on a CUDA context allocates its device scratch stream-ordered per call, and
 * satfeat_estimate_motion grows the context's host scratch while the match count grows).
 * ------------------------------------------------------------------------------------------- */

/** Tracker parameters; get the defaults from satfeat_tracker_params_default. */
typedef struct satfeat_tracker_params {
    satfeat_detector_params detector; /**< detector of every frame; max_keypoints must be >= 1
                                           (it sizes the keypoint buffers) and descriptor must be
                                           SURF64 or SURF128 (default: the detector defaults with
                                           grid 8, per_cell 32, max_keypoints 1500, threshold
                                           0.0002, descriptor_norm L2, orientation_refine 0,
                                           descriptor_haar and orientation_haar 3, the Haar
                                           orientation_filter: the settings docs/TRACKING.md
                                           measured the tracks with) */
    satfeat_match_params match;       /**< track-to-keypoint matching; radius is the search radius
                                           in px around each track's predicted position, 0 = the
                                           whole frame; a frame with no motion estimate before it
                                           (the second, or one after a frame without a model) is
                                           searched whole (default ratio 0.8, mutual 1,
                                           same_laplacian 1, radius 30) */
    satfeat_motion_params motion;     /**< frame-to-frame and reference-to-frame motion (default
                                           satfeat_motion_params_default with threshold 2 px:
                                           homography, PROSAC, fixed seed, refinement) */
    int max_missed;                   /**< a track ends when it has gone unseen for more than this
                                           many consecutive frames, >= 0; meanwhile it is
                                           predicted from its first-frame position by h_ref and
                                           matched again within guided_radius (default 30) */
    int max_tracks;                   /**< cap on live tracks, 1 .. 2^24 (default 2000) */
    double min_birth_distance;        /**< an unmatched keypoint becomes a new track only when it is
                                           at least this far (px) from every live track; keypoints
                                           closer than this to a stronger keypoint of the same frame
                                           are dropped before matching; finite and >= 0, 0
                                           disables both (default 4) */
    double guided_radius;             /**< once the frame's motion is estimated, every live track is
                                           matched again within this radius (px) of its position
                                           predicted by that motion (its first-frame position
                                           mapped by h_ref where known) and the motion estimated
                                           again from those matches; finite and >= 0, 0 = no
                                           guided pass (default 6) */
    int reject_outliers;              /**< 1: a match that disagrees with the frame's motion (its
                                           keypoint farther than motion.threshold from the track
                                           mapped by h_prev, or from the track's first-frame
                                           position mapped by h_ref when h_ref was estimated) does
                                           not continue its track, which counts a missed frame;
                                           without a frame motion no match does; 0: every match
                                           continues its track and outliers are only flagged
                                           (default 1) */
    double birth_confirm_radius;      /**< in a frame after the first with a motion estimate, an
                                           unmatched keypoint starts a track only when the
                                           previous frame had a keypoint within this distance
                                           (px) of it under the frame's motion (h_prev), so
                                           keypoints seen in one frame only start no track;
                                           the first frame and frames without a motion start a
                                           track from every unmatched keypoint; finite and
                                           >= 0, 0 = off (default 2) */
    double max_birth_size;            /**< keypoints larger than this (size, the filter side in
                                           px) start no track; they are still matched as
                                           reference keypoints; finite and >= 0, 0 = no cap
                                           (default 0) */
    double continue_threshold;        /**< > 0 and below detector.threshold: the detector also
                                           reports keypoints with a response down to this value;
                                           they start no track, take no part in the motion and
                                           are not reference keypoints, but a track that the
                                           passes above leave unseen is matched once more, within
                                           guided_radius of its position under the frame's
                                           motion, against all the frame's keypoints, and the
                                           match continues it when its keypoint lies within
                                           motion.threshold of the track mapped by h_prev and of
                                           its first-frame position mapped by h_ref (when h_ref
                                           was estimated); only in frames with a motion; finite
                                           and >= 0, 0 (or >= detector.threshold) = off
                                           (default 0; docs/TRACKING.md, "Track life") */
} satfeat_tracker_params;

/** One live track as returned for a frame. */
typedef struct satfeat_track {
    uint64_t id;   /**< stable id, 1, 2, ... in birth order, never reused by this tracker */
    double x, y;   /**< position in this frame: the matched keypoint's when seen (missed 0), else
                        the last position moved by this frame's motion (kept when it has none) */
    double size;   /**< keypoint size (filter side L) of the last observation */
    double angle;  /**< keypoint orientation of the last observation, radians in [0, 2*pi) */
    int laplacian; /**< Laplacian sign of the last observation (-1 bright, +1 dark blob) */
    int age;       /**< frames since birth: 0 in the frame that created the track */
    int missed;    /**< consecutive frames unseen: 0 when seen (or born) in this frame */
    int inlier;    /**< 1: matched in this frame and consistent with this frame's motion; 0 for
                        outliers (matched but off the motion, or matched in a frame without a
                        motion), missed tracks and tracks born in this frame */
} satfeat_track;

/** Motion of one frame, returned by satfeat_tracker_track, _push and _pop. */
typedef struct satfeat_frame_motion {
    int frame;         /**< 0-based frame index since creation or the last reset */
    int valid;         /**< 1: h_prev was estimated from this frame's matches; 0 on the first frame
                            and when no model was found (h_prev is then the identity) */
    int ref_valid;     /**< 1: h_ref was estimated directly from this frame's matches to the first
                            frame's coordinates; 0: it was chained (h_prev * the last h_ref) or,
                            on the first frame, is the identity */
    int reserved;      /**< always 0 */
    double h_prev[9];  /**< row-major, previous frame -> this frame, h[8] = 1 */
    double h_ref[9];   /**< row-major, first frame -> this frame, h[8] = 1 */
    size_t keypoints;  /**< keypoints of this frame kept for matching (after the thinning) */
    size_t matches;    /**< tracks matched in this frame */
    size_t inliers;    /**< matched tracks consistent with h_prev (0 when not valid) */
    double rms_error;  /**< rms forward error of the h_prev inliers, px (0 when not valid) */
    size_t born;       /**< tracks born in this frame */
    size_t ended;      /**< tracks that ended in this frame (not returned any more) */
} satfeat_frame_motion;

/** Opaque tracker: sized once for a maximum frame, fed one frame at a time. */
typedef struct satfeat_tracker satfeat_tracker;

/** Returns the default tracker parameters (see the fields of satfeat_tracker_params). */
SATFEAT_API satfeat_tracker_params satfeat_tracker_params_default(void);

/**
 * Creates a tracker for frames of up to max_width x max_height pixels on `ctx` (which must
 * outlive it); `params` NULL means the defaults. Allocates its detector (device memory on a CUDA
 * context) and every host buffer a frame needs. SATFEAT_ERR_ARG for a NULL ctx or out, bad
 * sizes or parameters (message in ctx); SATFEAT_ERR_LIMIT, before anything is allocated, when
 * the host buffers that max_tracks and detector.max_keypoints size (2^24 tracks of SURF64 need
 * about 8.8 GB) exceed the context's memory limit (the message names both byte counts);
 * SATFEAT_ERR_ALLOC when memory runs out.
 */
SATFEAT_API satfeat_status satfeat_tracker_new(satfeat_ctx *ctx,
                                               const satfeat_tracker_params *params,
                                               int max_width, int max_height,
                                               satfeat_tracker **out);

/** Destroys a tracker. NULL is allowed. */
SATFEAT_API void satfeat_tracker_delete(satfeat_tracker *tracker);

/**
 * Feeds one frame, an 8-bit gray view in host memory or, on a tracker of a CUDA context, in
 * device memory (frame->memory SATFEAT_MEMORY_DEVICE: detection and matching are queued on
 * frame->stream after the work already queued there, so the frame may come from a kernel on
 * that stream; the call synchronises that stream). The live tracks after the frame are read
 * with satfeat_tracker_tracks and satfeat_tracker_track_descriptors; `motion` (may be NULL)
 * receives the frame's motion. Every frame must have the size of the first frame after creation
 * or reset, at most the maximum. A device view gives the same tracks and motions as the same
 * frame in host memory, bit for bit.
 *
 * Errors, before anything changes (the tracker unchanged and usable, message in ctx):
 * SATFEAT_ERR_ARG for a NULL tracker (no message), a NULL frame or pixels, another size than
 * the sequence's, a stride below the width, a view with a mask (the tracker detects whole
 * frames), or pushed frames still pending; SATFEAT_ERR_UNSUPPORTED for a device view on a
 * tracker of a CPU context. A detection or matching failure (SATFEAT_ERR_ALLOC,
 * SATFEAT_ERR_CUDA) also leaves the tracks unchanged. A frame without a motion model is no
 * error (motion->valid 0).
 */
SATFEAT_API satfeat_status satfeat_tracker_track(satfeat_tracker *tracker,
                                                 const satfeat_image_view *frame,
                                                 satfeat_frame_motion *motion);

/**
 * The live tracks after the last frame consumed (satfeat_tracker_track, or a
 * satfeat_tracker_push that popped, or satfeat_tracker_pop), in ascending id order; *count
 * (may be NULL) receives their number. The array belongs to the tracker and stays valid until
 * the next frame is consumed, the tracker is reset or deleted; NULL when there is no track (or
 * for a NULL tracker, count 0).
 */
SATFEAT_API const satfeat_track *satfeat_tracker_tracks(const satfeat_tracker *tracker,
                                                        size_t *count);

/**
 * The descriptors of the last observations of the tracks of satfeat_tracker_tracks, in the
 * same order, params.detector.descriptor floats each; valid as long as the tracks are. NULL
 * when there is no track.
 */
SATFEAT_API const float *satfeat_tracker_track_descriptors(const satfeat_tracker *tracker);

/**
 * Frames in flight: queues a host frame (a view in host memory, without a mask; copied before
 * the call returns) on the tracker's detector sequence (3 slots). On a CUDA context its upload
 * and detection start at once on the sequence's own stream, so they overlap the host work of the
 * frames before it. When 3 frames are pending, the oldest is finished first as by
 * satfeat_tracker_pop (its tracks then readable through satfeat_tracker_tracks, its motion in
 * `motion`, may be NULL) and *popped is set to 1 (else 0). Frames are consumed in push order
 * with exactly the tracks and motions that satfeat_tracker_track gives for the same frames. The
 * frame is checked as by satfeat_tracker_track (its size against the first frame pushed or
 * tracked since creation or reset) before anything changes: a refused frame is not queued and
 * nothing is popped. SATFEAT_ERR_ARG also for a NULL popped; SATFEAT_ERR_UNSUPPORTED for a
 * device view. Returns the popped frame's error, if any (the new frame is then not queued), or
 * the error that kept the new frame from being queued. satfeat_tracker_track refuses a frame
 * (SATFEAT_ERR_ARG) while pushed frames are pending; satfeat_tracker_reset finishes and drops
 * them.
 */
SATFEAT_API satfeat_status satfeat_tracker_push(satfeat_tracker *tracker,
                                                const satfeat_image_view *frame,
                                                satfeat_frame_motion *motion, int *popped);

/**
 * Finishes the oldest pushed frame: waits for its keypoints, then tracks it as
 * satfeat_tracker_track does (tracks through satfeat_tracker_tracks, motion in `motion`, may be
 * NULL). SATFEAT_ERR_ARG when no frame is pending.
 */
SATFEAT_API satfeat_status satfeat_tracker_pop(satfeat_tracker *tracker,
                                               satfeat_frame_motion *motion);

/**
 * Many streams: advances n independent trackers one frame each, tracker i consuming views[i]
 * with exactly the tracks, motion and status that satfeat_tracker_track(trackers[i], &views[i],
 * &motions[i]) gives (motions may be NULL; statuses, n entries, receives each frame's status).
 * Every host frame without a mask is queued first (on CUDA each tracker's upload and detection
 * start at once on its own stream, so the n detections overlap on the GPU), then the frames are
 * finished by up to `threads` host threads (0: one per core; the calling thread is one of them).
 * A context is used by one thread at a time, so trackers sharing a context are finished one
 * after another: give each tracker its own context to finish them in parallel. Returns
 * SATFEAT_OK when every frame was tracked, else the status of the lowest failed index (the
 * message in that tracker's context). SATFEAT_ERR_ARG, before anything changes, for NULL
 * trackers, views or statuses with n > 0, negative threads, a NULL or repeated tracker, or a
 * tracker with pushed frames pending.
 */
SATFEAT_API satfeat_status satfeat_trackers_track(satfeat_tracker *const *trackers,
                                                  const satfeat_image_view *views, size_t n,
                                                  int threads, satfeat_frame_motion *motions,
                                                  satfeat_status *statuses);

/** Number of frames pushed and not yet popped (0 for NULL). */
SATFEAT_API int satfeat_tracker_pending(const satfeat_tracker *tracker);

/** Host wall-clock microseconds of the last frame a tracker consumed, by stage
 * (satfeat_tracker_stage_times). */
typedef struct satfeat_tracker_times {
    double frame_us;  /**< the whole call */
    double detect_us; /**< detection with orientations and descriptors (on CUDA with its upload
                           and download) and the same-frame thinning */
    double match_us;  /**< every matching pass of the frame (tracks and reference keypoints) */
    double motion_us; /**< every motion estimation of the frame (frame-to-frame and reference) */
    double update_us; /**< the rest: prediction, track update, ends, births, output copy */
    int match_passes; /**< matching calls of the frame */
    int reserved;     /**< always 0 */
} satfeat_tracker_times;

/**
 * Turns the stage timing of frames on (1) or off (0, the default: a frame does no timing work).
 * SATFEAT_ERR_ARG for a NULL tracker or another value.
 */
SATFEAT_API satfeat_status satfeat_tracker_set_profiling(satfeat_tracker *tracker, int on);

/**
 * Writes the stage times of the last frame consumed with profiling on. SATFEAT_ERR_ARG for NULL
 * arguments or when no frame was timed since profiling was turned on.
 */
SATFEAT_API satfeat_status satfeat_tracker_stage_times(const satfeat_tracker *tracker,
                                                       satfeat_tracker_times *out);

/**
 * Forgets every track and the motion history, finishing and dropping pushed frames that are
 * still pending: the next frame is a first frame again (and may have any size up to the
 * maximum). The id counter continues, so ids are never reused.
 */
SATFEAT_API satfeat_status satfeat_tracker_reset(satfeat_tracker *tracker);

#ifdef __cplusplus
}
#endif

#endif
