/* motion_score.c - MSAC cost with early exit and inlier selection for motion hypotheses. */
#include "motion_score.h"

#define MOTION_SCORE_BLOCK 64

double motion_msac_cost(const double *h, int projective, const motion_points *p, double t2,
                        double bail)
{
    double e2[MOTION_SCORE_BLOCK];
    double cost = 0.0;
    for (size_t base = 0; base < p->n; base += MOTION_SCORE_BLOCK) {
        const size_t len = p->n - base < MOTION_SCORE_BLOCK ? p->n - base : MOTION_SCORE_BLOCK;
        const double *sx = p->sx + base, *sy = p->sy + base, *dx = p->dx + base,
                     *dy = p->dy + base;
        /* independent per-point errors (vectorisable), then a sum in a fixed order */
        if (projective) {
            for (size_t j = 0; j < len; j++) {
                const double w = h[6] * sx[j] + h[7] * sy[j] + h[8];
                const double ex = (h[0] * sx[j] + h[1] * sy[j] + h[2]) / w - dx[j];
                const double ey = (h[3] * sx[j] + h[4] * sy[j] + h[5]) / w - dy[j];
                const double e = ex * ex + ey * ey;
                e2[j] = (w > 0.0 && e < t2) ? e : t2; /* NaN from w = 0 also lands on t2 */
            }
        } else {
            for (size_t j = 0; j < len; j++) {
                const double ex = h[0] * sx[j] + h[1] * sy[j] + h[2] - dx[j];
                const double ey = h[3] * sx[j] + h[4] * sy[j] + h[5] - dy[j];
                const double e = ex * ex + ey * ey;
                e2[j] = e < t2 ? e : t2;
            }
        }
        double s0 = 0.0, s1 = 0.0, s2 = 0.0, s3 = 0.0;
        size_t j = 0;
        for (; j + 4 <= len; j += 4) {
            s0 += e2[j];
            s1 += e2[j + 1];
            s2 += e2[j + 2];
            s3 += e2[j + 3];
        }
        for (; j < len; j++) s0 += e2[j];
        cost += (s0 + s1) + (s2 + s3);
        if (cost > bail) return cost;
    }
    return cost;
}

size_t motion_select_inliers(const double *h, int projective, const motion_points *p, double t2,
                             uint8_t *mask, uint32_t *idx, double *sum_e2)
{
    size_t count = 0;
    double sum = 0.0;
    for (size_t i = 0; i < p->n; i++) {
        const double e = motion_error2(h, projective, p->sx[i], p->sy[i], p->dx[i], p->dy[i]);
        const int in = e <= t2;
        if (mask) mask[i] = (uint8_t)in;
        if (in) {
            if (idx) idx[count] = (uint32_t)i;
            sum += e;
            count++;
        }
    }
    if (sum_e2) *sum_e2 = sum;
    return count;
}
