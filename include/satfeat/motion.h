/* satfeat/motion.h - libsatfeat public API: robust motion estimation (RANSAC / PROSAC, MSAC, least
 * squares). Part of satfeat.h, which includes every part; include satfeat.h. */
#ifndef SATFEAT_API_MOTION_H
#define SATFEAT_API_MOTION_H

#include "satfeat/features.h"

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* ---------------------------------------------------------------------------------------------
 * Robust motion estimation (RANSAC / PROSAC with MSAC scoring and least-squares refinement)
 *
 * Estimates the 2D motion h that maps source points to destination points from correspondences
 * with outliers. Samples are minimal (4 correspondences for a homography, 3 affine, 2
 * similarity), drawn from a seeded generator that lives in the call (no global state), uniformly
 * (RANSAC) or, when a quality per correspondence is given, from growing prefixes of the quality
 * order (PROSAC). Hypotheses are scored by MSAC (sum of min(e^2, threshold^2), e the forward
 * reprojection error in destination pixels); the iteration count adapts to the best inlier
 * ratio found. Samples with coincident or near-collinear points, and samples whose model would
 * mirror the image (or put sample points across the horizon of a homography), are rejected. The
 * best model is then refined on its inliers (linear least squares, plus Levenberg-Marquardt on
 * the forward error for the homography) and the inliers re-selected, a few times.
 *
 * Results are a pure function of the inputs and the seed: same inputs + seed -> same bits, on
 * either backend. On a CUDA context the hypotheses are drawn on the host and solved and scored
 * on the device in batches of up to 1024, on the context's stream, with the CPU's arithmetic
 * and order, so the results are those of a CPU context bit for bit; normalisation, refinement
 * and the output stay on the host. The device memory is kept by the context and grows to the
 * largest call: 32 bytes per correspondence plus 20 bytes per hypothesis of a batch and block of
 * 64 correspondences (at most 80 MB). The call reuses the context's host scratch (about 50 bytes
 * per correspondence, plus 120 KB on CUDA), so it allocates host memory only while that grows.
 * ------------------------------------------------------------------------------------------- */

/** Motion model to estimate. */
typedef enum satfeat_motion_model {
    SATFEAT_MOTION_HOMOGRAPHY = 0, /**< 8 dof, planar scenes (the AR case) */
    SATFEAT_MOTION_AFFINE,         /**< 6 dof */
    SATFEAT_MOTION_SIMILARITY      /**< 4 dof: rotation, uniform scale, translation */
} satfeat_motion_model;

/** Parameters of satfeat_estimate_motion; get the defaults from satfeat_motion_params_default. */
typedef struct satfeat_motion_params {
    satfeat_motion_model model; /**< default HOMOGRAPHY */
    double threshold;           /**< inlier reprojection error in px, finite and > 0 (default 3) */
    int max_iterations;         /**< cap on drawn samples, >= 1 (default 2000) */
    double confidence;          /**< stop when this probability of having drawn an all-inlier
                                     sample is reached, in (0, 1) (default 0.999) */
    uint64_t seed;              /**< PRNG seed (default fixed); same inputs + seed -> same result */
    int refine;                 /**< 1: least-squares refinement on the inliers, iterated;
                                     0: the best minimal-sample model (default 1) */
} satfeat_motion_params;

/** Result of satfeat_estimate_motion. */
typedef struct satfeat_motion {
    double h[9];       /**< row-major 3x3 map src -> dst, h[8] = 1; last row 0 0 1 for affine and
                            similarity */
    size_t inliers;    /**< correspondences with forward error <= threshold under h */
    double rms_error;  /**< root mean square forward error of the inliers, px */
    int iterations;    /**< samples drawn (degenerate ones included) */
} satfeat_motion;

/** Returns the defaults: homography, threshold 3 px, 2000 iterations, confidence 0.999, a fixed
 * seed, refinement on. */
SATFEAT_API satfeat_motion_params satfeat_motion_params_default(void);

/**
 * Estimates the motion from n correspondences src_xy[2i], src_xy[2i+1] -> dst_xy[2i],
 * dst_xy[2i+1] (pixels, all finite). `quality` (may be NULL; finite values) ranks the
 * correspondences, higher is better (for example the inverse descriptor distance); it orders the
 * PROSAC samples, ties broken by index; NULL gives uniform RANSAC samples. `params` NULL means
 * the defaults. On success fills *out and, when `inlier_mask` is not NULL, writes 1 (inlier
 * under out->h) or 0 for each of the n correspondences.
 *
 * A model is accepted only with at least twice the minimal sample of inliers (8 homography,
 * 6 affine, 4 similarity); a homography that maps the pixel origin to infinity (h[8] = 0)
 * cannot be returned normalised and counts as no model.
 *
 * Errors (out and inlier_mask untouched, message in ctx): SATFEAT_ERR_ARG for a NULL ctx (no
 * message), NULL src_xy / dst_xy / out, a bad model, threshold not finite or <= 0,
 * max_iterations < 1, confidence outside (0, 1), refine not 0 or 1, non-finite coordinates or
 * quality, n >= 2^31; SATFEAT_ERR_NO_MODEL when no model is found (see
 * above); SATFEAT_ERR_ALLOC when scratch cannot be allocated (host, or device on a CUDA
 * context); SATFEAT_ERR_CUDA when a CUDA call fails.
 */
SATFEAT_API satfeat_status satfeat_estimate_motion(satfeat_ctx *ctx, const double *src_xy,
                                                   const double *dst_xy, size_t n,
                                                   const float *quality,
                                                   const satfeat_motion_params *params,
                                                   satfeat_motion *out, uint8_t *inlier_mask);

/**
 * Estimates the motion from feature set `from` to feature set `to` through their matches
 * (satfeat_match(ctx, from, to, ...)): match k pairs keypoint matches[k].query of `from` with
 * keypoint matches[k].train of `to`, and its PROSAC quality is 1 / (distance + 0.001), so
 * closer descriptors are sampled first (the tracker's ranking). Otherwise as
 * satfeat_estimate_motion: `params` NULL means the defaults; `inlier_mask` (may be NULL)
 * receives one flag per match, in match order. Allocates the point arrays per call (36 bytes a
 * match) besides the estimator's scratch.
 *
 * Errors (out and inlier_mask untouched, message in ctx): SATFEAT_ERR_ARG for a NULL ctx (no
 * message), NULL from / to / matches / out, a match whose query or train index lies outside its
 * set (matches of other sets), and the parameter errors of satfeat_estimate_motion;
 * SATFEAT_ERR_NO_MODEL when no model is found (fewer matches than the model's inlier minimum
 * included); SATFEAT_ERR_ALLOC when memory runs out; SATFEAT_ERR_CUDA when a CUDA call fails.
 */
SATFEAT_API satfeat_status satfeat_estimate_motion_matches(satfeat_ctx *ctx,
                                                           const satfeat_features *from,
                                                           const satfeat_features *to,
                                                           const satfeat_matches *matches,
                                                           const satfeat_motion_params *params,
                                                           satfeat_motion *out,
                                                           uint8_t *inlier_mask);

#ifdef __cplusplus
}
#endif

#endif
