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
 * mask); *kp and *desc point to the adapter's buffers (valid until the next call), *n their
 * count (at most max_keypoints). The caller has checked the view.
 */
satfeat_status satfeat_ar_features_detect(satfeat_ar_features *f, const satfeat_image_view *v,
                                          const satfeat_keypoint **kp, const float **desc,
                                          size_t *n);

/**
 * Matches queries (kq, dq, nq) against trains (kt, dt, nt) on ctx's backend: ratio test,
 * same Laplacian sign, no mutual check (so each query's answer depends on that query alone),
 * and when radius > 0 only trains within `radius` px of predicted[2i], predicted[2i+1].
 * Writes at most `capacity` (>= nq) matches.
 */
satfeat_status satfeat_ar_match(satfeat_ctx *ctx, const satfeat_keypoint *kq, const float *dq,
                                size_t nq, const satfeat_keypoint *kt, const float *dt,
                                size_t nt, int dim, const double *predicted, double ratio,
                                double radius, satfeat_match_pair *matches, size_t capacity,
                                size_t *count);

/**
 * Robust homography src -> dst (PROSAC ordered by `quality`, may be NULL; MSAC with
 * `threshold` px; fixed seed; refinement). SATFEAT_ERR_NO_MODEL (no message kept) when none;
 * `inliers` receives one 0/1 per pair.
 */
satfeat_status satfeat_ar_homography_robust(satfeat_ctx *ctx, const double *src_xy,
                                            const double *dst_xy, size_t n, const float *quality,
                                            double threshold, double h[9], uint8_t *inliers,
                                            size_t *n_inliers);

#endif
