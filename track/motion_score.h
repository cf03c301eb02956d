/* motion_score.h - scoring a motion hypothesis on all correspondences: forward reprojection
 * errors, the MSAC cost (truncated squared error) with early exit, inlier selection. */
#ifndef SATFEAT_MOTION_SCORE_H
#define SATFEAT_MOTION_SCORE_H

#include "track/motion_error.h"
#include "track/motion_solvers.h"

#include <math.h>
#include <stddef.h>
#include <stdint.h>

/**
 * Squared forward reprojection error of (x, y) -> (u, v) under the 3x3 model h (row-major). For
 * a homography (`projective` 1) a point mapped to w <= 0 (behind the camera, or across the
 * horizon) gets +inf; for affine and similarity (`projective` 0) w is taken as 1.
 */
static inline double motion_error2(const double *h, int projective, double x, double y, double u,
                                   double v)
{
    const double nx = h[0] * x + h[1] * y + h[2];
    const double ny = h[3] * x + h[4] * y + h[5];
    double ex, ey;
    if (projective) {
        const double w = h[6] * x + h[7] * y + h[8];
        if (!(w > 0.0)) return INFINITY;
        ex = nx / w - u;
        ey = ny / w - v;
    } else {
        ex = nx - u;
        ey = ny - v;
    }
    return ex * ex + ey * ey;
}

/**
 * MSAC cost sum(min(e^2, t2)) of h over all points of p (a point with w <= 0 costs t2), summed
 * in the order of motion_error.h; stops and returns a value above `bail` as soon as the partial sum
 * exceeds it (pass INFINITY to get the full cost). When it runs to the end and `inliers` is not
 * NULL, *inliers receives the count of points with e^2 < t2.
 */
double satfeat_motion_msac_cost(const double *h, int projective, const motion_points *p, double t2,
                        double bail, size_t *inliers);

/**
 * Marks the inliers (e^2 < t2, w > 0 for a homography) of h: mask[i] = 1 or 0 for every point (mask
 * may be NULL), their positions into idx (may be NULL) in ascending order, and the sum of their e^2
 * into *sum_e2 (may be NULL). Returns the inlier count.
 */
size_t satfeat_motion_select_inliers(const double *h, int projective, const motion_points *p,
                                     double t2, uint8_t *mask, uint32_t *idx, double *sum_e2);

/**
 * The full MSAC cost of h over p (the value and bits of satfeat_motion_msac_cost without a bail)
 * and its inliers in one scan: mask[i] = 1 or 0 for every point, the inliers' coordinates copied
 * in ascending order to the front of gx, gy (source) and gu, gv (destination), each of room for
 * p->n, their count into *inliers.
 */
double satfeat_motion_score_gather(const double *h, int projective, const motion_points *p,
                                   double t2, uint8_t *mask, double *gx, double *gy, double *gu,
                                   double *gv, size_t *inliers);

#endif
