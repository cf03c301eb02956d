/* motion_score.c - MSAC cost with early exit and inlier selection for motion hypotheses (the terms
 * and the summation order of motion_error.h). */
#include "track/motion_score.h"

#include "track/motion_lanes.h"

#define MOTION_SCORE_BLOCK SATFEAT_MOTION_SCORE_BLOCK

/* Terms c[j] of the points base .. base+len-1 (motion_error.h); a local copy of h lets the
 * compiler keep it in registers and vectorise the loop. */
static void block_errors(const double *h, int projective, const motion_points *p, size_t base,
                         size_t len, double t2, double *c)
{
    const double *sx = p->sx + base, *sy = p->sy + base, *dx = p->dx + base, *dy = p->dy + base;
    double hl[9];
    for (int a = 0; a < 9; a++) hl[a] = h[a];
    if (projective) {
        for (size_t j = 0; j < len; j++)
            c[j] = satfeat_motion_term_projective(hl, sx[j], sy[j], dx[j], dy[j], t2);
    } else {
        for (size_t j = 0; j < len; j++)
            c[j] = satfeat_motion_term_affine(hl, sx[j], sy[j], dx[j], dy[j], t2);
    }
}

/* One block's sum of its terms c[0..len) in motion_error.h's order (four interleaved partial
 * sums from 0.0, the remainder on lane 0, then a fixed tree: motion_lanes.h's order on one
 * block). */
static inline double block_sum(const double *c, size_t len)
{
    double lane[SATFEAT_MOTION_LANES] = {0.0, 0.0, 0.0, 0.0};
    satfeat_motion_lanes_add(lane, c, len);
    return satfeat_motion_lanes_total(lane);
}

/* The cost of h over p in the summation order, stopping once it exceeds `bail`; when it runs to
 * the end, the inlier count into *inliers. With `g` (the four destination arrays of
 * satfeat_motion_score_gather) it also writes mask and gathers the inliers. */
static inline double scan(const double *h, int projective, const motion_points *p, double t2,
                          double bail, uint8_t *mask, double *const g[4], size_t *inliers)
{
    double c[MOTION_SCORE_BLOCK];
    double cost = 0.0;
    size_t count = 0;
    for (size_t base = 0; base < p->n; base += MOTION_SCORE_BLOCK) {
        const size_t len = p->n - base < MOTION_SCORE_BLOCK ? p->n - base : MOTION_SCORE_BLOCK;
        block_errors(h, projective, p, base, len, t2, c);
        cost += block_sum(c, len);
        if (!g) {
            for (size_t j = 0; j < len; j++) count += c[j] < t2;
            if (cost > bail) return cost;
            continue;
        }
        /* branch-free: every point is written at the next free position, which only an
         * inlier advances (the arrays have room for all n) */
        double *gx = g[0], *gy = g[1], *gu = g[2], *gv = g[3];
        const double *sx = p->sx + base, *sy = p->sy + base;
        const double *dx = p->dx + base, *dy = p->dy + base;
        for (size_t j = 0; j < len; j++) {
            const size_t in = c[j] < t2;
            mask[base + j] = (uint8_t)in;
            gx[count] = sx[j];
            gy[count] = sy[j];
            gu[count] = dx[j];
            gv[count] = dy[j];
            count += in;
        }
    }
    if (inliers) *inliers = count;
    return cost;
}

double satfeat_motion_msac_cost(const double *h, int projective, const motion_points *p, double t2,
                        double bail, size_t *inliers)
{
    return scan(h, projective, p, t2, bail, NULL, NULL, inliers);
}

size_t satfeat_motion_select_inliers(const double *h, int projective, const motion_points *p,
                                     double t2, uint8_t *mask, uint32_t *idx, double *sum_e2)
{
    double c[MOTION_SCORE_BLOCK];
    size_t count = 0;
    double sum = 0.0;
    for (size_t base = 0; base < p->n; base += MOTION_SCORE_BLOCK) {
        const size_t len = p->n - base < MOTION_SCORE_BLOCK ? p->n - base : MOTION_SCORE_BLOCK;
        block_errors(h, projective, p, base, len, t2, c);
        for (size_t j = 0; j < len; j++) {
            const int in = c[j] < t2;
            if (mask) mask[base + j] = (uint8_t)in;
            if (in) {
                if (idx) idx[count] = (uint32_t)(base + j);
                sum += c[j];
                count++;
            }
        }
    }
    if (sum_e2) *sum_e2 = sum;
    return count;
}

double satfeat_motion_score_gather(const double *h, int projective, const motion_points *p,
                                   double t2, uint8_t *mask, double *gx, double *gy, double *gu,
                                   double *gv, size_t *inliers)
{
    double *const g[4] = {gx, gy, gu, gv};
    return scan(h, projective, p, t2, INFINITY, mask, g, inliers);
}
