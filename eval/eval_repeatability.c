/* eval_repeatability.c - the repeatability of two feature sets under a homography
 * (Mikolajczyk et al. 2005): regions in the common part, overlap errors on a grid, greedy
 * one-to-one matching below 0.4. */
#include "src/context_internal.h"
#include "eval/eval_ellipse.h"

#include <math.h>
#include <stdlib.h>

#define EVAL_MAX_ERROR 0.4
/* IoU <= min(area)/max(area): pairs far below 0.6 are skipped before counting (grid areas of
 * the radius-30 regions differ from the exact ones by far less than this margin). */
#define EVAL_MIN_AREA_RATIO 0.5

typedef struct eval_pair {
    double error;
    size_t i, j;
} eval_pair;

static int pair_order(const void *pa, const void *pb)
{
    const eval_pair *a = pa, *b = pb;
    if (a->error != b->error) return a->error < b->error ? -1 : 1;
    if (a->i != b->i) return a->i < b->i ? -1 : 1;
    if (a->j != b->j) return a->j < b->j ? -1 : 1;
    return 0;
}

/* Keeps the regions of `kp` inside their own image whose image under `h` lies inside the other
 * image; writes them, in the other image's frame when `mapped`, to `out`. Returns the count. */
static size_t common_regions(const satfeat_keypoint *kp, size_t n, int w, int h,
                             const double hm[9], int ow, int oh, int mapped,
                             satfeat_ellipse *out)
{
    size_t m = 0;
    for (size_t k = 0; k < n; k++) {
        satfeat_ellipse e = satfeat_ellipse_circle(kp[k].x, kp[k].y, kp[k].size * 0.5), t;
        if (!(kp[k].size > 0) || !satfeat_ellipse_inside(&e, w, h)) continue;
        if (!satfeat_ellipse_map(&e, hm, &t) || !satfeat_ellipse_inside(&t, ow, oh)) continue;
        out[m++] = mapped ? t : e;
    }
    return m;
}

static int check_keypoints(const satfeat_keypoint *kp, size_t n)
{
    for (size_t k = 0; k < n; k++)
        if (!isfinite(kp[k].x) || !isfinite(kp[k].y) || !isfinite(kp[k].size)) return 0;
    return 1;
}

/* satfeat_eval_repeatability on the sets' keypoints and image sizes (arguments checked). */
static satfeat_status repeatability(satfeat_ctx *ctx, const satfeat_keypoint *kp1, size_t n1,
                                    int width1, int height1, const satfeat_keypoint *kp2,
                                    size_t n2, int width2, int height2, const double h1to2[9],
                                    satfeat_repeatability *result)
{
    if (!check_keypoints(kp1, n1) || !check_keypoints(kp2, n2))
        return satfeat_fail(ctx, SATFEAT_ERR_ARG, "eval: a keypoint is not finite");
    double h2to1[9];
    for (int k = 0; k < 9; k++)
        if (!isfinite(h1to2[k])) return satfeat_fail(ctx, SATFEAT_ERR_ARG, "eval: H not finite");
    if (!satfeat_mat3_inverse(h1to2, h2to1))
        return satfeat_fail(ctx, SATFEAT_ERR_ARG, "eval: the homography is singular");
    size_t bytes1, bytes2;
    if (satfeat_mul_overflows(n1 + 1, sizeof(satfeat_ellipse), &bytes1) ||
        satfeat_mul_overflows(n2 + 1, sizeof(satfeat_ellipse), &bytes2))
        return satfeat_fail(ctx, SATFEAT_ERR_OVERFLOW, "eval: too many keypoints");
    satfeat_ellipse *e1 = malloc(bytes1), *e2 = malloc(bytes2);
    size_t *used2 = NULL;
    eval_pair *pairs = NULL;
    size_t npairs = 0, cap = 0;
    satfeat_status st = SATFEAT_OK;
    if (!e1 || !e2) {
        st = satfeat_fail(ctx, SATFEAT_ERR_ALLOC, "eval: out of memory");
        goto done;
    }
    /* image-1 regions in image 1; image-2 regions mapped into image 1 */
    const size_t m1 = common_regions(kp1, n1, width1, height1, h1to2, width2, height2, 0, e1);
    const size_t m2 = common_regions(kp2, n2, width2, height2, h2to1, width1, height1, 1, e2);
    for (size_t i = 0; i < m1; i++) {
        const double r1 = satfeat_ellipse_radius(&e1[i]);
        double hx1, hy1;
        satfeat_ellipse_half_box(&e1[i], &hx1, &hy1);
        for (size_t j = 0; j < m2; j++) {
            double hx2, hy2;
            satfeat_ellipse_half_box(&e2[j], &hx2, &hy2);
            /* scaling both about their centres never makes disjoint boxes meet when the factor
             * is <= 1; with a larger factor, test the scaled boxes (the overlap does it again) */
            const double f = fmax(1.0, 30.0 / r1);
            if (fabs(e1[i].cx - e2[j].cx) > f * (hx1 + hx2) ||
                fabs(e1[i].cy - e2[j].cy) > f * (hy1 + hy2))
                continue;
            const double r2 = satfeat_ellipse_radius(&e2[j]);
            const double ratio = r1 < r2 ? (r1 * r1) / (r2 * r2) : (r2 * r2) / (r1 * r1);
            if (ratio < EVAL_MIN_AREA_RATIO) continue;
            const double err = satfeat_ellipse_overlap_error(&e1[i], &e2[j]);
            if (!(err < EVAL_MAX_ERROR)) continue;
            if (npairs == cap) {
                size_t ncap = cap ? 2 * cap : 1024;
                eval_pair *grown = realloc(pairs, ncap * sizeof *pairs);
                if (!grown) {
                    st = satfeat_fail(ctx, SATFEAT_ERR_ALLOC, "eval: out of memory");
                    goto done;
                }
                pairs = grown;
                cap = ncap;
            }
            pairs[npairs].error = err;
            pairs[npairs].i = i;
            pairs[npairs].j = j;
            npairs++;
        }
    }
    if (npairs) qsort(pairs, npairs, sizeof *pairs, pair_order);
    /* greedy one-to-one: smallest error first; a region takes part in one match at most */
    used2 = calloc(m1 + m2 + 1, sizeof *used2);
    if (!used2) {
        st = satfeat_fail(ctx, SATFEAT_ERR_ALLOC, "eval: out of memory");
        goto done;
    }
    size_t *used1 = used2 + m2;
    size_t matches = 0;
    for (size_t k = 0; k < npairs; k++) {
        if (used1[pairs[k].i] || used2[pairs[k].j]) continue;
        used1[pairs[k].i] = used2[pairs[k].j] = 1;
        matches++;
    }
    result->correspondences = matches;
    result->n1 = m1;
    result->n2 = m2;
    const size_t lo = m1 < m2 ? m1 : m2;
    result->repeatability = lo ? (double)matches / (double)lo : 0.0;
done:
    free(e1);
    free(e2);
    free(used2);
    free(pairs);
    return st;
}

satfeat_status satfeat_eval_repeatability(satfeat_ctx *ctx, const satfeat_features *f1,
                                          const satfeat_features *f2, const double h1to2[9],
                                          satfeat_repeatability *result)
{
    if (!f1 || !f2 || !result || !h1to2)
        return satfeat_fail(ctx, SATFEAT_ERR_ARG, "eval: NULL argument");
    int w1, h1, w2, h2;
    satfeat_features_image_size(f1, &w1, &h1);
    satfeat_features_image_size(f2, &w2, &h2);
    if (w1 < 1 || h1 < 1 || w2 < 1 || h2 < 1)
        return satfeat_fail(ctx, SATFEAT_ERR_ARG, "eval: a feature set has no image size");
    return repeatability(ctx, satfeat_features_keypoints(f1), satfeat_features_count(f1), w1, h1,
                         satfeat_features_keypoints(f2), satfeat_features_count(f2), w2, h2,
                         h1to2, result);
}
