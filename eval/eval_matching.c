/* eval_matching.c - the matching score of two feature sets with descriptors under a
 * homography: mutual nearest neighbours passing the ratio test 0.8 (satfeat_match), correct
 * within 3 px, divided by the smaller number of keypoints seen by both images. */
#include "src/context_internal.h"

#include <math.h>

#define EVAL_MATCH_RATIO 0.8
#define EVAL_MATCH_PIXELS 3.0

/* Inverse of a 3x3 row-major matrix through the adjugate; 0 when singular or not finite. */
static int inverse3(const double m[9], double out[9])
{
    const double c0 = m[4] * m[8] - m[5] * m[7];
    const double c1 = m[5] * m[6] - m[3] * m[8];
    const double c2 = m[3] * m[7] - m[4] * m[6];
    const double det = m[0] * c0 + m[1] * c1 + m[2] * c2;
    if (!(fabs(det) > 0.0) || !isfinite(det)) return 0;
    const double r = 1.0 / det;
    out[0] = c0 * r;
    out[1] = (m[2] * m[7] - m[1] * m[8]) * r;
    out[2] = (m[1] * m[5] - m[2] * m[4]) * r;
    out[3] = c1 * r;
    out[4] = (m[0] * m[8] - m[2] * m[6]) * r;
    out[5] = (m[2] * m[3] - m[0] * m[5]) * r;
    out[6] = c2 * r;
    out[7] = (m[1] * m[6] - m[0] * m[7]) * r;
    out[8] = (m[0] * m[4] - m[1] * m[3]) * r;
    for (int k = 0; k < 9; k++)
        if (!isfinite(out[k])) return 0;
    return 1;
}

/* Maps (x, y) through h; 0 when the point goes to or behind infinity (w <= 0). */
static int map_point(const double h[9], double x, double y, double *ox, double *oy)
{
    const double w = h[6] * x + h[7] * y + h[8];
    if (!(w > 0.0)) return 0;
    *ox = (h[0] * x + h[1] * y + h[2]) / w;
    *oy = (h[3] * x + h[4] * y + h[5]) / w;
    return 1;
}

/* Number of keypoints whose image under h lies inside a width x height image. */
static size_t count_visible(const satfeat_keypoint *kp, size_t n, const double h[9], int width,
                            int height)
{
    size_t c = 0;
    for (size_t k = 0; k < n; k++) {
        double x, y;
        if (map_point(h, kp[k].x, kp[k].y, &x, &y) && x >= 0.0 && y >= 0.0 &&
            x <= (double)(width - 1) && y <= (double)(height - 1))
            c++;
    }
    return c;
}

satfeat_status satfeat_eval_matching(satfeat_ctx *ctx, const satfeat_features *f1,
                                     const satfeat_features *f2, const double h1to2[9],
                                     satfeat_matching_eval *result)
{
    if (!ctx) return SATFEAT_ERR_ARG;
    if (!f1 || !f2 || !result || !h1to2)
        return satfeat_fail(ctx, SATFEAT_ERR_ARG,
                            "eval matching: NULL feature set, result or homography");
    int width1, height1, width2, height2;
    satfeat_features_image_size(f1, &width1, &height1);
    satfeat_features_image_size(f2, &width2, &height2);
    if (width1 < 1 || height1 < 1 || width2 < 1 || height2 < 1)
        return satfeat_fail(ctx, SATFEAT_ERR_ARG, "eval matching: a feature set has no image size");
    double h2to1[9];
    for (int k = 0; k < 9; k++)
        if (!isfinite(h1to2[k]))
            return satfeat_fail(ctx, SATFEAT_ERR_ARG, "eval matching: H is not finite");
    if (!inverse3(h1to2, h2to1))
        return satfeat_fail(ctx, SATFEAT_ERR_ARG, "eval matching: the homography is singular");
    satfeat_match_params mp = satfeat_match_params_default();
    mp.ratio = EVAL_MATCH_RATIO;
    mp.mutual = 1;
    mp.same_laplacian = 1;
    mp.radius = 0.0;
    satfeat_matches *list = NULL;
    satfeat_status st = satfeat_match(ctx, f1, f2, &mp, &list);
    if (st != SATFEAT_OK) {
        satfeat_matches_delete(list);
        return st;
    }
    const satfeat_keypoint *kp1 = satfeat_features_keypoints(f1);
    const satfeat_keypoint *kp2 = satfeat_features_keypoints(f2);
    const size_t n1 = satfeat_features_count(f1), n2 = satfeat_features_count(f2);
    const satfeat_match_pair *m = satfeat_matches_data(list);
    const size_t nm = satfeat_matches_count(list);
    size_t correct = 0;
    for (size_t k = 0; k < nm; k++) {
        const satfeat_keypoint *a = &kp1[m[k].query], *b = &kp2[m[k].train];
        double x, y;
        if (!map_point(h1to2, a->x, a->y, &x, &y)) continue;
        const double dx = x - b->x, dy = y - b->y;
        if (dx * dx + dy * dy <= EVAL_MATCH_PIXELS * EVAL_MATCH_PIXELS) correct++;
    }
    satfeat_matches_delete(list);
    result->n1 = count_visible(kp1, n1, h1to2, width2, height2);
    result->n2 = count_visible(kp2, n2, h2to1, width1, height1);
    result->correct = correct;
    result->matches = nm;
    const size_t lo = result->n1 < result->n2 ? result->n1 : result->n2;
    result->matching_score = lo ? (double)correct / (double)lo : 0.0;
    result->precision = nm ? (double)correct / (double)nm : 0.0;
    return SATFEAT_OK;
}
