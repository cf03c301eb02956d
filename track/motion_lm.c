/* motion_lm.c - Levenberg-Marquardt refinement of a homography on the forward reprojection error
 * over contiguous correspondences, every sum in the lane order of motion_lanes.h. */
#include "track/motion_lanes.h"
#include "track/motion_solvers.h"

#include "track/linalg_small.h"

#include <math.h>
#include <string.h>

#define LM_BLOCK SATFEAT_MOTION_LANE_BLOCK

/* The normal-equation sums: sum g g^T (6), -sum u g (a, b) and -sum v g (a, b) (5 each: the
 * products a b and b a are the same double), sum (u^2 + v^2) (a, b)^T (a, b) (3), J^T r (8);
 * and the cost, the sum of squared residuals. */
enum {
    S_GG = 0,   /* aa ab ac bb bc cc */
    S_UG = 6,   /* u aa, u ab, u ac, u bb, u bc */
    S_VG = 11,  /* v aa, v ab, v ac, v bb, v bc */
    S_RAB = 16, /* r2 aa, r2 ab, r2 bb */
    S_GU = 19,  /* a ru, b ru, c ru */
    S_GV = 22,  /* a rv, b rv, c rv */
    S_T = 25,   /* a q, b q */
    S_COST = 27,
    S_COUNT = 28
};

/* Row r (0: u, 1: v, 2: w) of h (h[8] = 1) applied to (x, y, 1). The cost and the normal sums
 * both project as row(0 or 1) * (1 / row(2)), so the cost they give for one model is the same
 * double. */
static inline double lm_row(const double *h, int r, double x, double y)
{
    return h[3 * r] * x + h[3 * r + 1] * y + h[3 * r + 2];
}

/* Sum of squared forward residuals of the homography h (h[8] = 1) over the n points of p, in the
 * lane order; +inf when a point maps to a non-positive w. */
static double lm_cost(const motion_points *p, const double *h)
{
    double hl[9], lane[SATFEAT_MOTION_LANES] = {0.0, 0.0, 0.0, 0.0}, e[LM_BLOCK];
    memcpy(hl, h, sizeof hl);
    for (size_t base = 0; base < p->n; base += LM_BLOCK) {
        const size_t len = p->n - base < LM_BLOCK ? p->n - base : LM_BLOCK;
        const double *x = p->sx + base, *y = p->sy + base;
        const double *du = p->dx + base, *dv = p->dy + base;
        double behind = 0.0; /* a double flag keeps the loop vectorisable */
        for (size_t j = 0; j < len; j++) {
            const double w = lm_row(hl, 2, x[j], y[j]), iw = 1.0 / w;
            const double ru = lm_row(hl, 0, x[j], y[j]) * iw - du[j];
            const double rv = lm_row(hl, 1, x[j], y[j]) * iw - dv[j];
            behind += w > 0.0 ? 0.0 : 1.0;
            e[j] = ru * ru + rv * rv;
        }
        if (behind != 0.0) return INFINITY;
        satfeat_motion_lanes_add(lane, e, len);
    }
    return satfeat_motion_lanes_total(lane);
}

/* The S_COUNT sums at `cur` (h[8] = 1) over the points of p, in the lane order; out[S_COST] is
 * lm_cost(p, cur) (+inf when a point maps to a non-positive w, the other sums then unset).
 * Per point ju = [g 0 -u a -u b], jv = [0 g -v a -v b] with g = (a, b, c) = (x, y, 1) / w and
 * (u, v) the projection, residual (ru, rv) = (u, v) - (dx, dy). */
static void lm_normal_sums(const motion_points *p, const double *cur, double out[S_COUNT])
{
    double hl[9];
    memcpy(hl, cur, sizeof hl);
    double lane[S_COUNT][SATFEAT_MOTION_LANES];
    memset(lane, 0, sizeof lane);
    double t[S_COUNT][LM_BLOCK];
    for (size_t base = 0; base < p->n; base += LM_BLOCK) {
        const size_t len = p->n - base < LM_BLOCK ? p->n - base : LM_BLOCK;
        const double *xs = p->sx + base, *ys = p->sy + base;
        const double *us = p->dx + base, *vs = p->dy + base;
        double behind = 0.0;
        for (size_t j = 0; j < len; j++) {
            const double x = xs[j], y = ys[j];
            const double w = lm_row(hl, 2, x, y), c = 1.0 / w;
            const double u = lm_row(hl, 0, x, y) * c, v = lm_row(hl, 1, x, y) * c;
            behind += w > 0.0 ? 0.0 : 1.0;
            const double a = x * c, b = y * c;
            const double ru = u - us[j], rv = v - vs[j];
            const double aa = a * a, ab = a * b, ac = a * c, bb = b * b, bc = b * c;
            const double r2 = u * u + v * v, q = u * ru + v * rv;
            t[S_GG + 0][j] = aa, t[S_GG + 1][j] = ab, t[S_GG + 2][j] = ac;
            t[S_GG + 3][j] = bb, t[S_GG + 4][j] = bc, t[S_GG + 5][j] = c * c;
            t[S_UG + 0][j] = u * aa, t[S_UG + 1][j] = u * ab, t[S_UG + 2][j] = u * ac;
            t[S_UG + 3][j] = u * bb, t[S_UG + 4][j] = u * bc;
            t[S_VG + 0][j] = v * aa, t[S_VG + 1][j] = v * ab, t[S_VG + 2][j] = v * ac;
            t[S_VG + 3][j] = v * bb, t[S_VG + 4][j] = v * bc;
            t[S_RAB + 0][j] = r2 * aa, t[S_RAB + 1][j] = r2 * ab, t[S_RAB + 2][j] = r2 * bb;
            t[S_GU + 0][j] = a * ru, t[S_GU + 1][j] = b * ru, t[S_GU + 2][j] = c * ru;
            t[S_GV + 0][j] = a * rv, t[S_GV + 1][j] = b * rv, t[S_GV + 2][j] = c * rv;
            t[S_T + 0][j] = a * q, t[S_T + 1][j] = b * q;
            t[S_COST][j] = ru * ru + rv * rv;
        }
        if (behind != 0.0) {
            out[S_COST] = INFINITY;
            return;
        }
        for (int s = 0; s < S_COUNT; s++) satfeat_motion_lanes_add(lane[s], t[s], len);
    }
    for (int s = 0; s < S_COUNT; s++) out[s] = satfeat_motion_lanes_total(lane[s]);
}

/* J^T J (8x8, row-major) and J^T r from the sums. */
static void lm_assemble(const double s[S_COUNT], double jtj[64], double jtr[8])
{
    static const int sym[3][3] = {{0, 1, 2}, {1, 3, 4}, {2, 4, 5}};
    /* cross blocks: column 6 pairs g_a with a, column 7 with b; u (a, b) and b a share sums */
    static const int col6[3] = {0, 1, 2}, col7[3] = {1, 3, 4};
    for (int a = 0; a < 3; a++) {
        for (int b = 0; b < 3; b++) {
            jtj[a * 8 + b] = jtj[(a + 3) * 8 + (b + 3)] = s[S_GG + sym[a][b]];
            jtj[a * 8 + (b + 3)] = jtj[(b + 3) * 8 + a] = 0.0;
        }
        jtj[a * 8 + 6] = jtj[6 * 8 + a] = -s[S_UG + col6[a]];
        jtj[a * 8 + 7] = jtj[7 * 8 + a] = -s[S_UG + col7[a]];
        jtj[(a + 3) * 8 + 6] = jtj[6 * 8 + (a + 3)] = -s[S_VG + col6[a]];
        jtj[(a + 3) * 8 + 7] = jtj[7 * 8 + (a + 3)] = -s[S_VG + col7[a]];
        jtr[a] = s[S_GU + a];
        jtr[a + 3] = s[S_GV + a];
    }
    jtj[6 * 8 + 6] = s[S_RAB + 0];
    jtj[6 * 8 + 7] = jtj[7 * 8 + 6] = s[S_RAB + 1];
    jtj[7 * 8 + 7] = s[S_RAB + 2];
    jtr[6] = -s[S_T + 0];
    jtr[7] = -s[S_T + 1];
}

/* The drop of the RMS error sqrt(cost / k) from cost `from` to cost `to` (rk = 1 / k). */
static double rms_drop(double from, double to, double rk)
{
    return sqrt(from * rk) - sqrt(to * rk);
}

int satfeat_motion_refine_homography(const motion_points *p, double h[9], int max_iter,
                                     double min_rms_gain)
{
    const size_t k = p->n;
    if (k < 4) return -1;
    double norm = 0.0;
    for (int a = 0; a < 9; a++) norm += h[a] * h[a];
    if (!(fabs(h[8]) > 1e-8 * sqrt(norm))) return -1;
    double cur[9];
    for (int a = 0; a < 9; a++) cur[a] = h[a] / h[8];
    cur[8] = 1.0;
    /* a step that lowers the RMS error by less than min_rms_gain ends the iteration (the error
     * is quadratic near the optimum, so what is left to gain is smaller still) */
    const double rk = 1.0 / (double)k;
    double lambda = 1e-3;
    int accepted = 0;
    double sums[S_COUNT];
    lm_normal_sums(p, cur, sums);
    double cost = sums[S_COST];
    if (!isfinite(cost)) return -1;
    for (int it = 0; it < max_iter && cost > 0.0; it++) {
        /* the sums at cur: from the call's start, or recomputed after the accepted step (their
         * cost is lm_cost's, the value that step was accepted with) */
        if (it > 0) lm_normal_sums(p, cur, sums);
        double jtj[64], jtr[8];
        lm_assemble(sums, jtj, jtr);
        int stepped = 0;
        double new_cost = cost;
        for (int tries = 0; tries < 8 && !stepped; tries++) {
            double aug[64], delta[8], cand[9];
            memcpy(aug, jtj, sizeof aug);
            for (int a = 0; a < 8; a++) {
                aug[a * 8 + a] += lambda * jtj[a * 8 + a];
                delta[a] = -jtr[a];
            }
            if (satfeat_lin_cholesky_solve(aug, 8, delta) == 0) {
                for (int a = 0; a < 8; a++) cand[a] = cur[a] + delta[a];
                cand[8] = 1.0;
                const double c2 = lm_cost(p, cand);
                if (c2 < cost) {
                    memcpy(cur, cand, sizeof cur);
                    new_cost = c2;
                    stepped = 1;
                    lambda = lambda * 0.1 > 1e-12 ? lambda * 0.1 : 1e-12;
                    break;
                }
            }
            lambda *= 10.0;
        }
        if (!stepped) break;
        accepted++;
        const double gain = cost - new_cost;
        const double rms_gain = rms_drop(cost, new_cost, rk);
        cost = new_cost;
        if (gain <= 1e-8 * cost || rms_gain < min_rms_gain) break;
    }
    memcpy(h, cur, sizeof cur);
    return accepted;
}
