/* satfeat/match.h - libsatfeat public API: descriptor matching. Part of satfeat.h, which includes
 * every part; include satfeat.h. */
#ifndef SATFEAT_API_MATCH_H
#define SATFEAT_API_MATCH_H

#include "satfeat/detect.h"

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* ---------------------------------------------------------------------------------------------
 * Descriptor matching
 *
 * Brute force over all pairs (query i of image 1, train j of image 2) with optional gates:
 * the same Laplacian sign (laplacian < 0 on both or on neither) when same_laplacian, and, when
 * radius > 0, |p2_j - predicted_i| <= radius (in double: dx*dx + dy*dy <= radius*radius), where
 * predicted_i is the query's predicted position in image 2 (predicted[2i], predicted[2i+1]) or
 * its own position when `predicted` is NULL. Distances are squared L2 distances in float with
 * one fixed order of operations (8 partial sums, lane k summing dims k, k+8, ..., combined as
 * ((s0+s4)+(s2+s6))+((s1+s5)+(s3+s7)), no fused multiply-add), identical on the CPU and the
 * GPU. A pair whose squared distance is not finite (NaN or infinite descriptor values) is never
 * a candidate.
 *
 * For each query the nearest candidate (smallest squared distance, ties to the smaller train
 * index) is kept when (a) the ratio test passes: best < r2 * second with r2 = (float)(ratio^2)
 * on squared distances, where second is the nearest other candidate (no second candidate:
 * passes; ratio 1 disables the test), and (b) with mutual, the train's nearest query among the
 * queries that pass the gates with it (ties to the smaller query index) is this query.
 * distance = sqrtf(best squared distance). Matches come in ascending query order, at most one
 * per query; both backends return the same matches in the same order, bit for bit, and the
 * result does not depend on the thread count.
 * ------------------------------------------------------------------------------------------- */


/** Matching parameters; get the defaults from satfeat_match_params_default. */
typedef struct satfeat_match_params {
    double ratio;       /**< Lowe's ratio test on distances, in (0, 1]; 1 disables it (default 0.8) */
    int mutual;         /**< 1: keep a match only when query is also the train's nearest (default 1) */
    int same_laplacian; /**< 1: compare only keypoints of the same Laplacian sign (default 1) */
    double radius;      /**< > 0: only train keypoints within radius px of the query's predicted
                             position (default 0: no radius) */
} satfeat_match_params;

/** Returns the defaults: ratio 0.8, mutual 1, same_laplacian 1, radius 0. */
SATFEAT_API satfeat_match_params satfeat_match_params_default(void);

/**
 * Matches the n1 descriptors `desc1` (n1 x dim floats, row-major, aligned with kp1) against the
 * n2 descriptors `desc2` (aligned with kp2), all in host memory. dim is 64 or 128. `predicted`
 * (may be NULL) holds n1 (x, y) pairs for the radius gate. `params` NULL means the defaults.
 * *count receives the number of matches; when it exceeds `capacity` the first `capacity` are
 * written, nothing past them, and SATFEAT_ERR_CAPACITY is returned (`matches` may be NULL when
 * capacity is 0). n1 == 0 or n2 == 0 gives 0 matches. SATFEAT_ERR_ARG for NULL arrays, dim
 * not 64/128, ratio outside (0, 1], a negative or non-finite radius, or n1/n2 above INT_MAX-64.
 * On a CPU context the work runs on the context's threads; on a CUDA context the inputs are
 * uploaded and matched on the GPU on the context's stream (device scratch is allocated and
 * freed stream-ordered per call). The keypoints are read only for the gates.
 */
SATFEAT_API satfeat_status satfeat_match_descriptors(satfeat_ctx *ctx,
                                                     const satfeat_keypoint *kp1,
                                                     const float *desc1, size_t n1,
                                                     const satfeat_keypoint *kp2,
                                                     const float *desc2, size_t n2, int dim,
                                                     const double *predicted,
                                                     const satfeat_match_params *params,
                                                     satfeat_match *matches, size_t capacity,
                                                     size_t *count);

/**
 * satfeat_match_descriptors on a CUDA context (else SATFEAT_ERR_UNSUPPORTED) with kp1, desc1, kp2, desc2
 * and predicted (may be NULL) in device memory; `matches` and `count` are host memory. The work
 * is queued on `stream` (a cudaStream_t, NULL = legacy default stream) after the work already
 * queued there; the call synchronises `stream` and returns when the matches are in `matches`.
 * Results, capacity and errors as for satfeat_match_descriptors.
 */
SATFEAT_API satfeat_status satfeat_match_descriptors_device(
    satfeat_ctx *ctx, const satfeat_keypoint *d_kp1, const float *d_desc1, size_t n1,
    const satfeat_keypoint *d_kp2, const float *d_desc2, size_t n2, int dim,
    const double *d_predicted, const satfeat_match_params *params, satfeat_match *matches,
    size_t capacity, size_t *count, void *stream);

#ifdef __cplusplus
}
#endif

#endif
