/* tracker_internal.h - the definition of satfeat_tracker (its buffers and state) and the helpers
 * tracker.c and tracker_frame.c share. */
#ifndef SATFEAT_TRACKER_INTERNAL_H
#define SATFEAT_TRACKER_INTERNAL_H

#include "satfeat.h"
#include "track/spatial_grid.h"

/* Frames in flight of satfeat_tracker_push (the detector sequence's slots). */
#define TRACKER_SLOTS 3

/* One live track's private part beside its public record. */
typedef struct tracker_state {
    double ref_x, ref_y; /* position in first-frame coordinates (for the reference motion) */
    int ref_ok;          /* 1 when ref_x, ref_y are known */
    int weak;            /* 1: last seen at a keypoint under detector.threshold (the last-chance
                            pass); its matches take no part in the motion */
} tracker_state;

struct satfeat_tracker {
    satfeat_ctx *ctx;
    satfeat_tracker_params params;
    int max_width, max_height;
    int dim;                      /* floats per descriptor */
    satfeat_descriptor_kind kind; /* the detector's descriptor */
    satfeat_detector *det;
    satfeat_sequence *seq;        /* the detector's frames in flight (satfeat_tracker_push) */
    /* The feature sets and match lists are reserved for their largest size at creation, so a
     * frame allocates nothing; the raw pointers below point into them (filling a set with at
     * most the count it was reserved for keeps its arrays where they are). */
    size_t kp_cap;                /* the detector's max_keypoints */
    satfeat_features *frame_set;  /* this frame's keypoints and descriptors (the trains) */
    satfeat_keypoint *kps;        /* frame_set's arrays */
    float *kp_desc;
    uint8_t *kp_taken;            /* 1: keypoint continued a track this frame */
    /* the reference model: the first frame's keypoints and descriptors */
    size_t n_ref;
    satfeat_features *ref_set;
    const satfeat_keypoint *ref_kps; /* ref_set's keypoints */
    double *ref_predicted;        /* 2 per reference keypoint */
    satfeat_matches *ref_matches; /* reference keypoint (query) -> frame keypoint (train) */
    /* live tracks, ascending id, max_tracks entries each */
    size_t n_tracks;
    satfeat_track *tracks;
    tracker_state *state;
    satfeat_features *track_set;  /* the tracks as matcher queries (position, Laplacian) and
                                     their last descriptors */
    satfeat_keypoint *queries;    /* track_set's arrays */
    float *desc;                  /* max_tracks * dim */
    /* per-frame work, max_tracks entries */
    double *predicted;            /* 2 per track */
    satfeat_matches *matches;     /* track (query) -> frame keypoint (train) */
    satfeat_matches *matches_alt; /* the other candidate match set (whole-frame retry, guided) */
    int *match_of;                /* track -> match index or -1 */
    int *weak_of;                 /* track -> keypoint of the last-chance pass or -1 */
    size_t n_strong;              /* this frame's keypoints above detector.threshold (a prefix:
                                     the detector orders by response) */
    double *src_xy, *dst_xy;      /* 2 per pair: max_tracks + kp_cap pairs */
    float *quality;               /* per pair */
    uint8_t *mask;                /* per match: inlier of h_prev */
    uint8_t *ref_mask;            /* per match: inlier of h_ref (1 when it cannot be checked) */
    uint8_t *mask_scratch;        /* the estimator's mask of the pairs */
    int *ref_index;               /* track pair -> match index (scratch of both estimations) */
    /* sequence state */
    int frame;                    /* frames consumed since creation / reset */
    int width, height;            /* size of the first frame (0 before it) */
    int have_prev;                /* 1: h_prev holds the last frame's estimated motion */
    double h_prev[9];             /* last frame-to-frame motion (prediction) */
    double h_ref[9];              /* first frame -> last frame */
    size_t last_inliers;          /* h_prev inliers of the last frame (0 without a model) */
    uint64_t next_id;
    spatial_grid grid;            /* min_birth_distance queries (thinning, births) */
    /* birth confirmation (params.birth_confirm_radius > 0) */
    double *prev_xy;              /* the last frame's kept keypoints, 2 per keypoint */
    size_t n_prev;
    spatial_grid confirm_grid;    /* prev_xy mapped by this frame's h_prev */
    int confirm_ready;            /* 1: confirm_grid holds them for this frame */
    /* stage timing (satfeat_tracker_set_profiling) */
    int profiling;                /* 1: time the stages of each frame */
    int timed;                    /* 1: `times` holds a frame timed since profiling was on */
    satfeat_tracker_times times;  /* the frame being timed, then the last one timed */
};

/** Microseconds now when the tracker is profiling, else 0 (no clock read). */
double satfeat_tracker_clock(const satfeat_tracker *t);

/** 1 when the tracker detects below its threshold for the last-chance pass (continue_threshold
 * in (0, detector.threshold)). */
static inline int satfeat_tracker_continues_weak(const satfeat_tracker_params *p)
{
    return p->continue_threshold > 0.0 && p->continue_threshold < p->detector.threshold;
}

/** Maps (x, y) through the row-major homography h; returns 0, or -1 (x, y unchanged) when the
 * point maps to or behind the line at infinity (w <= 0). */
static inline int tracker_map_point(const double h[9], double *x, double *y)
{
    const double w = h[6] * *x + h[7] * *y + h[8];
    if (!(w > 0.0)) return -1;
    const double u = (h[0] * *x + h[1] * *y + h[2]) / w;
    const double v = (h[3] * *x + h[4] * *y + h[5]) / w;
    *x = u;
    *y = v;
    return 0;
}

/** Frame-to-frame motion of the nm matches in t->matches (track position -> keypoint); writes
 * t->mask. Returns 1 with *mo, 0 for no model (mask zero), -1 with *st on a hard error. */
int satfeat_tracker_estimate_prev(satfeat_tracker *t, size_t nm, satfeat_motion *mo,
                                  satfeat_status *st);

/** Reference motion from the n_refm reference matches in t->ref_matches (first-frame keypoint
 * -> keypoint) and the nm track matches (track's first-frame position -> keypoint); writes
 * t->ref_mask for the track matches when a model is found (1 for tracks without a first-frame
 * position). Returns as satfeat_tracker_estimate_prev. */
int satfeat_tracker_estimate_ref(satfeat_tracker *t, size_t n_refm, size_t nm, satfeat_motion *mo,
                         satfeat_status *st);

/** Writes every live track's predicted position to t->predicted: its first-frame position mapped
 * by h_ref when h_ref is not NULL and the track has one, else its position mapped by h_prev. */
void satfeat_tracker_predict(satfeat_tracker *t, const double h_prev[9], const double *h_ref);

/** Checks a frame's view against the tracker (before anything changes); records the reason.
 * `device_ok`: device views are accepted (on a CUDA context). */
satfeat_status satfeat_tracker_check_frame(satfeat_tracker *t, const satfeat_image_view *frame,
                                           int device_ok);

/** Sets the frame set to its first nk features (nk <= what it holds; the contents stay) and
 * refreshes t->kps / t->kp_desc. */
void satfeat_tracker_frame_count(satfeat_tracker *t, size_t nk);

/** The part of a frame after detection: the frame set's keypoints with descriptors; matching on
 * `stream` when on_stream (device frames). Consumes the frame unless it returns an error. */
satfeat_status satfeat_tracker_consume(satfeat_tracker *t, int on_stream, void *stream,
                                       int width, int height, satfeat_frame_motion *motion);

/** Matches the live tracks (queries, at t->predicted) against the frame set's keypoints within
 * `radius` (0 = the whole frame) into *out; writes *nm. On a device frame the matcher runs on
 * `stream`. */
satfeat_status satfeat_tracker_match_tracks(satfeat_tracker *t, double radius, int on_stream,
                                            void *stream, satfeat_matches **out, size_t *nm);

/* The last-chance pass (tracker_weak.c). */

/** Counts this frame's keypoints above detector.threshold (t->n_strong) among the nk kept ones
 * and sets the frame set to them: the passes, the motion, the reference and births see only
 * those. */
void satfeat_tracker_weak_split(satfeat_tracker *t, size_t nk);

/** After the frame's motion *fm and its nm matches (t->matches, t->mask final): every track the
 * matches do not continue is matched once more against all nk keypoints (the frame set is set
 * to them) and t->weak_of written; -1 everywhere when the pass is off or the frame has no
 * motion. Returns SATFEAT_OK or the matcher's error. */
satfeat_status satfeat_tracker_weak_pass(satfeat_tracker *t, size_t nk, size_t nm,
                                         const satfeat_frame_motion *fm, int on_stream,
                                         void *stream);

/* Birth confirmation (tracker_confirm.c). */

/** Maps the last frame's keypoints by this frame's h_prev into the confirmation grid (nothing
 * without a motion, on the first frame or with birth_confirm_radius 0). */
void satfeat_tracker_confirm_prepare(satfeat_tracker *t, const satfeat_frame_motion *fm);

/** 1 when an unmatched keypoint at (x, y) may start a track: confirmation is off, this is the
 * first frame, the frame has no motion, or the last frame had a keypoint within
 * birth_confirm_radius of (x, y) under this frame's motion. */
int satfeat_tracker_birth_confirmed(const satfeat_tracker *t, double x, double y);

/** Keeps this frame's nk kept keypoints' positions for the next frame's confirmation. */
void satfeat_tracker_confirm_keep(satfeat_tracker *t, size_t nk);

/* The tracker's detection: the only calls of the detector and its sequence (tracker_detect.c). */

/** Detects a checked frame (host, or device on its stream) into the frame set. */
satfeat_status satfeat_tracker_detect(satfeat_tracker *t, const satfeat_image_view *frame);

/** Queues a checked host frame on the detector's sequence. */
satfeat_status satfeat_tracker_detect_push(satfeat_tracker *t, const satfeat_image_view *frame);

/** Waits for the oldest queued frame's features, into the frame set. */
satfeat_status satfeat_tracker_detect_pop(satfeat_tracker *t);

/** Stage timing around one consumed frame (satfeat_tracker_stage_times). */
typedef struct tracker_timing {
    satfeat_tracker_times last; /* restored when the frame is not consumed */
    double start;
} tracker_timing;
void satfeat_tracker_timing_begin(satfeat_tracker *t, tracker_timing *tm);
void satfeat_tracker_timing_end(satfeat_tracker *t, const tracker_timing *tm, satfeat_status st);

/** Finishes and drops the frames pushed and not popped (satfeat_tracker_reset). */
satfeat_status satfeat_tracker_discard_pending(satfeat_tracker *t);

#endif
