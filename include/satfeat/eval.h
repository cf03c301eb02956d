/* satfeat/eval.h - libsatfeat public API: repeatability and matching-score evaluation. Part of
 * satfeat.h, which includes every part; include satfeat.h. */
#ifndef SATFEAT_API_EVAL_H
#define SATFEAT_API_EVAL_H

#include "satfeat/features.h"

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* ---------------------------------------------------------------------------------------------
 * Repeatability evaluation (Mikolajczyk et al. 2005 protocol)
 * ------------------------------------------------------------------------------------------- */

/** Result of satfeat_eval_repeatability. */
typedef struct satfeat_repeatability {
    double repeatability;   /**< correspondences / min(n1, n2); 0 when min(n1, n2) is 0 */
    size_t correspondences; /**< one-to-one matches with overlap error below 0.4 */
    size_t n1;              /**< image-1 keypoints whose region lies in the common part */
    size_t n2;              /**< image-2 keypoints whose region lies in the common part */
} satfeat_repeatability;

/**
 * Repeatability of the keypoints of two feature sets under the homography `h1to2` (row-major
 * 3x3, image-1 pixels to image-2 pixels); the image sizes are the sets' own
 * (satfeat_features_image_size), descriptors are not read. Each region is the circle of
 * diameter `size`; regions of image 2 are mapped into image 1 as ellipses through the local
 * affine approximation of the inverse homography. A region counts when its bounding box lies
 * inside its own image and the bounding box of its mapped ellipse lies inside the other image
 * (x in [0, width-1], y in [0, height-1]). Overlap error = 1 - intersection/union, computed on
 * a unit grid after scaling both ellipses about their centres so that the image-1 region has
 * radius 30; pairs with error < 0.4 are matched greedily (smallest error first, ties by index)
 * one-to-one. Allocates its working memory per call. `ctx` may be NULL (no message then).
 * SATFEAT_ERR_ARG for a NULL set, result or h1to2, a set without an image size (a new set never
 * filled), a keypoint whose x, y or size is not finite, or a homography that is not finite or
 * singular; SATFEAT_ERR_ALLOC / SATFEAT_ERR_OVERFLOW when memory runs out.
 */
SATFEAT_API satfeat_status satfeat_eval_repeatability(satfeat_ctx *ctx,
                                                      const satfeat_features *f1,
                                                      const satfeat_features *f2,
                                                      const double h1to2[9],
                                                      satfeat_repeatability *result);

/**
 * Reads a 3x3 homography from a text file of nine numbers (row-major, whitespace separated, the
 * format of the Oxford affine data set). `ctx` may be NULL.
 */
SATFEAT_API satfeat_status satfeat_homography_read(satfeat_ctx *ctx, const char *path,
                                                   double h[9]);

/* ---------------------------------------------------------------------------------------------
 * Matching evaluation
 * ------------------------------------------------------------------------------------------- */

/** Result of satfeat_eval_matching. */
typedef struct satfeat_matching_eval {
    double matching_score; /**< correct / min(n1, n2); 0 when min(n1, n2) is 0 */
    double precision;      /**< correct / matches; 0 when there is no match */
    size_t correct;        /**< kept matches whose image-1 point H maps within 3 px of the image-2 point */
    size_t matches;        /**< kept matches */
    size_t n1;             /**< image-1 keypoints whose H-image lies inside image 2 */
    size_t n2;             /**< image-2 keypoints whose H^-1-image lies inside image 1 */
} satfeat_matching_eval;

/**
 * Matching score of two feature sets with descriptors under the homography `h1to2` (row-major
 * 3x3, image-1 pixels to image-2 pixels); the image sizes are the sets' own. Matches are those
 * of satfeat_match(ctx, f1, f2) with ratio 0.8, mutual 1, same_laplacian 1 and no radius (so on
 * the context's backend). A match is correct when H maps the image-1 keypoint within 3 px
 * (Euclidean, <= 3) of the image-2 keypoint. "Inside" means x in [0, width-1] and y in
 * [0, height-1]. SATFEAT_ERR_ARG for a NULL ctx (no message), set, result or h1to2, a set
 * without an image size, a homography that is not finite or singular, and satfeat_match's
 * errors (a set without descriptors, different descriptor kinds).
 */
SATFEAT_API satfeat_status satfeat_eval_matching(satfeat_ctx *ctx, const satfeat_features *f1,
                                                 const satfeat_features *f2,
                                                 const double h1to2[9],
                                                 satfeat_matching_eval *result);

#ifdef __cplusplus
}
#endif

#endif
