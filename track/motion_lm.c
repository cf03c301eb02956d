/* motion_lm.c - Levenberg-Marquardt refinement of a homography on the forward reprojection error
 * over contiguous correspondences, with its sums in a fixed lane order (see LM_LANES).
 *
 * Summation order of every sum here: lane r (0..3) adds the terms of points r, r + 4, r + 8, ...
 * below 4 * floor(k / 4) in ascending order from 0.0, lane 0 then adds the last k % 4 terms in
 * order, and the sum is (s0 + s1) + (s2 + s3). The order is written out in the source, so every
 * build (any compiler, vectorised or not; -ffp-contract=off) gets the same bits, and the four
 * independent chains let the compiler vectorise the per-point work. */
#include "track/motion_solvers.h"

#include "track/linalg_small.h"

#include <math.h>
#include <string.h>

#define LM_LANES 4
#define LM_BLOCK 64 /* points per block of per-point values (a multiple of LM_LANES) */

/* The normal-equation sums: sum g g^T (6), -sum u g (a, b) and -sum v g (a, b) (5 each: the
 * products a b and b a are the same double), sum (u^2 + v^2) (a, b)^T (a, b) (3), J^T r (8). */
enum {
    S_GG = 0,    /* aa ab ac bb bc cc */
    S_UG = 6,    /* u aa, u ab, u ac, u bb, u bc */
    S_VG = 11,   /* v aa, v ab, v ac, v bb, v bc */
    S_RAB = 16,  /* r2 aa, r2 ab, r2 bb */
    S_GU = 19,   /* a ru, b ru, c ru */
    S_GV = 22,   /* a rv, b rv, c rv */
    S_T = 25,    /* a q, b q */
    S_COUNT = 27
};

/* Adds the terms t[0..len) of one block to the lanes: t[j] to lane j % 4, the last len % 4 to
 * lane 0. Blocks hold LM_BLOCK points (a multiple of 4) but the last, so this is the order of
 * the file's comment. */
static void lanes_add(double lane[LM_LANES], const double *t, size_t len)
{
    const size_t full = len / LM_LANES * LM_LANES;
    double s0 = lane[0], s1 = lane[1], s2 = lane[2], s3 = lane[3];
    for (size_t j = 0; j < full; j += LM_LANES) {
        s0 += t[j];
        s1 += t[j + 1];
        s2 += t[j + 2];
        s3 += t[j + 3];
    }
    for (size_t j = full; j < len; j++) s0 += t[j];
    lane[0] = s0, lane[1] = s1, lane[2] = s2, lane[3] = s3;
}

/* The lanes' total in the fixed tree. */
static double lanes_total(const double lane[LM_LANES])
{
    return (lane[0] + lane[1]) + (lane[2] + lane[3]);
}

/* Sum of squared forward residuals of the homography h (h[8] = 1) over the n points of p, in the
 * lane order; +inf when a point maps to a non-positive w. */
static double lm_cost(const motion_points *p, const double *h)
{
    double hl[9], lane[LM_LANES] = {0.0, 0.0, 0.0, 0.0}, e[LM_BLOCK];
    memcpy(hl, h, sizeof hl);
    for (size_t base = 0; base < p->n; base += LM_BLOCK) {
        const size_t len = p->n - base < LM_BLOCK ? p->n - base : LM_BLOCK;
        const double *x = p->sx + base, *y = p->sy + base;
        const double *u = p->dx + base, *v = p->dy + base;
        int behind = 0;
        for (size_t j = 0; j < len; j++) {
            const double w = hl[6] * x[j] + hl[7] * y[j] + hl[8];
            const double ru = (hl[0] * x[j] + hl[1] * y[j] + hl[2]) / w - u[j];
            const double rv = (hl[3] * x[j] + hl[4] * y[j] + hl[5]) / w - v[j];
            behind |= !(w > 0.0);
            e[j] = ru * ru + rv * rv;
        }
        if (behind) return INFINITY;
        lanes_add(lane, e, len);
    }
    return lanes_total(lane);
}

/* The S_COUNT normal-equation sums at `cur` (h[8] = 1) over the points of p, in the lane order.
 * Per point ju = [g 0 -u a -u b], jv = [0 g -v a -v b] with g = (a, b, c) = (x, y, 1) / w and
 * (u, v) the projection, residual (ru, rv) = (u, v) - (dx, dy). */
static void lm_normal_sums(const motion_points *p, const double *cur, double out[S_COUNT])
{
    double hl[9];
    memcpy(hl, cur, sizeof hl);
    double lane[S_COUNT][LM_LANES];
    memset(lane, 0, sizeof lane);
    double t[S_COUNT][LM_BLOCK];
    for (size_t base = 0; base < p->n; base += LM_BLOCK) {
        const size_t len = p->n - base < LM_BLOCK ? p->n - base : LM_BLOCK;
        const double *xs = p->sx + base, *ys = p->sy + base;
        const double *us = p->dx + base, *vs = p->dy + base;
        for (size_t j = 0; j < len; j++) {
            const double x = xs[j], y = ys[j];
            const double iw = 1.0 / (hl[6] * x + hl[7] * y + 1.0);
            const double a = x * iw, b = y * iw, c = iw;
            const double u = (hl[0] * x + hl[1] * y + hl[2]) * iw;
            const double v = (hl[3] * x + hl[4] * y + hl[5]) * iw;
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
        }
        for (int s = 0; s < S_COUNT; s++) lanes_add(lane[s], t[s], len);
    }
    for (int s = 0; s < S_COUNT; s++) out[s] = lanes_total(lane[s]);
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
    double cost = lm_cost(p, cur);
    if (!isfinite(cost)) return -1;
    /* a step that lowers the RMS error by less than min_rms_gain ends the iteration: the
     * error is quadratic near the optimum, so what is left to gain is smaller still */
    const double rk = 1.0 / (double)k;
    double lambda = 1e-3;
    int accepted = 0;
    for (int it = 0; it < max_iter && cost > 0.0; it++) {
        double sums[S_COUNT], jtj[64], jtr[8];
        lm_normal_sums(p, cur, sums);
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
        const double rms_gain = sqrt(cost * rk) - sqrt(new_cost * rk);
        cost = new_cost;
        if (gain <= 1e-8 * cost || rms_gain < min_rms_gain) break;
    }
    memcpy(h, cur, sizeof cur);
    return accepted;
}
