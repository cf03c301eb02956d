/* motion_matches.c - satfeat_estimate_motion_matches: the motion between two feature sets from
 * their matches (the matched keypoints' positions, PROSAC ordered by the match quality). */
#include "src/context_internal.h"
#include "track/match_quality.h"

#include <stdlib.h>

satfeat_status satfeat_estimate_motion_matches(satfeat_ctx *ctx, const satfeat_features *from,
                                               const satfeat_features *to,
                                               const satfeat_matches *matches,
                                               const satfeat_motion_params *params,
                                               satfeat_motion *out, uint8_t *inlier_mask)
{
    if (!ctx) return SATFEAT_ERR_ARG;
    if (!from || !to || !matches || !out)
        return satfeat_fail(ctx, SATFEAT_ERR_ARG,
                            "estimate_motion_matches: from, to, matches and out must not be NULL");
    const size_t n = satfeat_matches_count(matches);
    const size_t n1 = satfeat_features_count(from), n2 = satfeat_features_count(to);
    const satfeat_match_pair *m = satfeat_matches_data(matches);
    for (size_t k = 0; k < n; k++)
        if (m[k].query < 0 || (size_t)m[k].query >= n1 || m[k].train < 0 ||
            (size_t)m[k].train >= n2)
            return satfeat_fail(ctx, SATFEAT_ERR_ARG,
                                "estimate_motion_matches: match %zu (%d -> %d) is outside the "
                                "sets (%zu and %zu features): matches of other sets?",
                                k, m[k].query, m[k].train, n1, n2);
    const size_t cells = n ? n : 1;
    if (cells > ((size_t)-1) / (4 * sizeof(double) + sizeof(float)))
        return satfeat_fail(ctx, SATFEAT_ERR_OVERFLOW, "estimate_motion_matches: %zu matches", n);
    double *src = malloc(cells * 4 * sizeof *src);
    float *quality = malloc(cells * sizeof *quality);
    if (!src || !quality) {
        free(src);
        free(quality);
        return satfeat_fail(ctx, SATFEAT_ERR_ALLOC, "estimate_motion_matches: out of memory");
    }
    double *dst = src + 2 * cells;
    const satfeat_keypoint *kp1 = satfeat_features_keypoints(from);
    const satfeat_keypoint *kp2 = satfeat_features_keypoints(to);
    for (size_t k = 0; k < n; k++) {
        src[2 * k] = kp1[m[k].query].x;
        src[2 * k + 1] = kp1[m[k].query].y;
        dst[2 * k] = kp2[m[k].train].x;
        dst[2 * k + 1] = kp2[m[k].train].y;
        quality[k] = satfeat_match_quality(m[k].distance);
    }
    const satfeat_status st =
        satfeat_estimate_motion(ctx, src, dst, n, quality, params, out, inlier_mask);
    free(src);
    free(quality);
    return st;
}
