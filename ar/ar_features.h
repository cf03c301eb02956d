/* ar_features.h - the AR module's one seam to the layers below it: every call it makes into
 * the detector, the matcher and the motion estimator goes through this adapter, so the rest
 * of ar/ works on plain arrays of keypoints, descriptors and points that it owns. */
#ifndef SATFEAT_AR_FEATURES_H
#define SATFEAT_AR_FEATURES_H

#include "satfeat.h"

/** A detector with its output buffers (keypoints and descriptors of the last frame). */
typedef struct satfeat_ar_features satfeat_ar_features;

/**
 * Creates a detector for frames up to max_width x max_height on ctx (its backend) with
 * `params` (max_keypoints >= 1 and a descriptor required), and buffers for max_keypoints.
 */
satfeat_status satfeat_ar_features_new(satfeat_ctx *ctx, const satfeat_detector_params *params,
                                       int max_width, int max_height, satfeat_ar_features **out);

/** Destroys the adapter (NULL allowed). */
void satfeat_ar_features_delete(satfeat_ar_features *f);

/** Floats per descriptor (64 or 128). */
int satfeat_ar_features_dim(const satfeat_ar_features *f);

/**
 * Detects keypoints with descriptors in a frame view (host or device pixels, the optional
 * mask) and moves them by (dx, dy) (a sub-view's origin in its frame: 0, 0 for a whole frame),
 * in place; *kp and *desc point to the adapter's buffers (valid until the next call), *n their
 * count (at most max_keypoints). The caller has checked the view.
 */
satfeat_status satfeat_ar_features_detect(satfeat_ar_features *f, const satfeat_image_view *v,
                                          int dx, int dy, const satfeat_keypoint **kp,
                                          const float **desc, size_t *n);

/**
 * Makes kt, dt (nt features, the adapter's descriptor size) the train of the next
 * satfeat_ar_match calls: the frame's features, given once a frame. The arrays detect gave
 * are used in place; others are copied (they may change after the call).
 */
satfeat_status satfeat_ar_features_set_train(satfeat_ar_features *f, const satfeat_keypoint *kt,
                                             const float *dt, size_t nt);

/**
 * Makes a fixed query set of nq features (kq, dq of `dim` floats each; copied), such as a
 * whole target, for satfeat_ar_match: made once, it is not copied again at every match.
 */
satfeat_status satfeat_ar_query_new(const satfeat_keypoint *kq, const float *dq, size_t nq,
                                    int dim, satfeat_features **out);

/**
 * Sizes query set q (of satfeat_ar_query_new) to n features of `dim` floats and gives its arrays
 * to be written in place (*kp, *desc): no copy and, within the capacity it had, no allocation.
 * The set takes a new stamp, so a CUDA matcher uploads it again.
 */
satfeat_status satfeat_ar_query_resize(satfeat_features *q, size_t n, int dim,
                                       satfeat_keypoint **kp, float **desc);

/**
 * Marks query set q as matched every frame while the frame's other query sets come and go, so a
 * CUDA matcher keeps its device copy apart from theirs (uploaded again only when q changes).
 */
void satfeat_ar_query_keep(satfeat_features *q);

/** Destroys a query set of satfeat_ar_query_new (NULL allowed). */
void satfeat_ar_query_delete(satfeat_features *q);

/**
 * Matches `query` (a set of satfeat_ar_query_new) against the train of
 * satfeat_ar_features_set_train on the adapter's context's backend. Ratio test, same Laplacian
 * sign, no mutual check (so each query's answer depends on that query alone), and when radius >
 * 0 only trains within `radius` px of predicted[2i], predicted[2i+1] (one pair per query; a NaN
 * pair gates out every train, so that query gets no match). Writes at most `capacity` (>= the
 * query count) matches; the list it uses is the adapter's, reused from call to call.
 */
satfeat_status satfeat_ar_match(satfeat_ar_features *f, const satfeat_features *query,
                                const double *predicted, double ratio, double radius,
                                satfeat_match_pair *matches, size_t capacity, size_t *count);

/**
 * Robust homography src -> dst (PROSAC ordered by `quality`, may be NULL; MSAC with
 * `threshold` px; fixed seed; refinement). The adapter of a CUDA context searches a small
 * problem (up to 160 pairs) on a CPU context of its own, made on first use, whose answer is
 * the device search's bit for bit. SATFEAT_ERR_NO_MODEL (no message kept) when none; `inliers`
 * receives one 0/1 per pair; other failures are recorded in the adapter's context.
 */
satfeat_status satfeat_ar_homography_robust(satfeat_ar_features *f, const double *src_xy,
                                            const double *dst_xy, size_t n, const float *quality,
                                            double threshold, double h[9], uint8_t *inliers,
                                            size_t *n_inliers);

#endif
