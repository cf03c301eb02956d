/* satfeat/match.h - libsatfeat public API: descriptor matching. Part of satfeat.h, which includes
 * every part; include satfeat.h. */
#ifndef SATFEAT_API_MATCH_H
#define SATFEAT_API_MATCH_H

#include "satfeat/features.h"

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
 * Matches the features of `query` against those of `train` (query i of image 1, train j of
 * image 2) as described above and fills *matches (the `satfeat_matches **` convention of
 * satfeat/features.h: NULL creates a list, an existing one is emptied and refilled; exactly the
 * matches found, in ascending query order). The Laplacian gate reads the sets' keypoints.
 * `params` NULL means the defaults; its radius, without predicted positions, gates around each
 * query's own position. Either set may be empty (0 matches). On a CPU context the work runs on
 * the context's threads; on a CUDA context the sets are uploaded and matched on the GPU on the
 * context's stream (device scratch taken and freed stream-ordered per call).
 *
 * Errors (the list left empty, message in ctx): SATFEAT_ERR_ARG for a NULL ctx (no message),
 * NULL matches, a NULL set, a set without descriptors (kind SATFEAT_DESCRIPTOR_NONE), sets of
 * different descriptor kinds, ratio outside (0, 1], a negative or non-finite radius, or more
 * than INT_MAX-64 features in a set; SATFEAT_ERR_ALLOC when memory runs out; SATFEAT_ERR_CUDA
 * (CUDA context) when the device fails.
 */
SATFEAT_API satfeat_status satfeat_match(satfeat_ctx *ctx, const satfeat_features *query,
                                         const satfeat_features *train,
                                         const satfeat_match_params *params,
                                         satfeat_matches **matches);

/**
 * satfeat_match with a predicted position in image 2 for every query: `predicted` holds
 * 2 * satfeat_features_count(query) doubles (x, y per query, host memory), the centres of the
 * radius gate (params->radius > 0; with radius 0 they are not read). A query whose predicted
 * x or y is NaN passes the gate with no train, so it gets no match (a way to leave queries out
 * without making another set). Same results and errors as satfeat_match, plus
 * SATFEAT_ERR_ARG for a NULL predicted.
 */
SATFEAT_API satfeat_status satfeat_match_guided(satfeat_ctx *ctx, const satfeat_features *query,
                                                const satfeat_features *train,
                                                const double *predicted,
                                                const satfeat_match_params *params,
                                                satfeat_matches **matches);

/**
 * The matcher on arrays already in device memory, on a CUDA context (else
 * SATFEAT_ERR_UNSUPPORTED): n1 keypoints d_kp1 with descriptors d_desc1 (n1 x dim floats,
 * row-major) against n2 keypoints d_kp2 with d_desc2, dim 64 or 128, and d_predicted (NULL or
 * n1 (x, y) pairs) as in satfeat_match_guided. It stays beside the feature-set calls because
 * device-resident data (keypoints a kernel of the application produced) has no feature set:
 * uploading them from host copies is what it saves. The work is queued on `stream` (a
 * cudaStream_t, NULL = legacy default stream) after the work already queued there; the call
 * synchronises `stream` and returns when the matches are in the host list *matches (the
 * `satfeat_matches **` convention). Results as for satfeat_match, bit for bit; errors as for
 * satfeat_match, plus SATFEAT_ERR_ARG for dim not 64 / 128 or NULL arrays with n > 0.
 */
SATFEAT_API satfeat_status satfeat_match_descriptors_device(
    satfeat_ctx *ctx, const satfeat_keypoint *d_kp1, const float *d_desc1, size_t n1,
    const satfeat_keypoint *d_kp2, const float *d_desc2, size_t n2, int dim,
    const double *d_predicted, const satfeat_match_params *params, satfeat_matches **matches,
    void *stream);

#ifdef __cplusplus
}
#endif

#endif
