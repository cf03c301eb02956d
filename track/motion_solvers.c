/* motion_solvers.c - Hartley normalisation and least-squares fits of the homography, affine and
 * similarity models (double precision, no allocation); minimal solvers in motion_minimal.h. */
#include "track/motion_solvers.h"

#include "track/linalg_small.h"

#include <math.h>
#include <string.h>

int satfeat_motion_norm_compute(const double *xy, size_t n, motion_norm *nm)
{
    if (n == 0) return -1;
    double sx = 0.0, sy = 0.0;
    for (size_t i = 0; i < n; i++) {
        sx += xy[2 * i];
        sy += xy[2 * i + 1];
    }
    const double cx = sx / (double)n, cy = sy / (double)n;
    double sd = 0.0;
    for (size_t i = 0; i < n; i++) {
        const double ex = xy[2 * i] - cx, ey = xy[2 * i + 1] - cy;
        sd += sqrt(ex * ex + ey * ey);
    }
    const double mean = sd / (double)n;
    if (!isfinite(cx) || !isfinite(cy) || !isfinite(mean) || !(mean > 0.0)) return -1;
    /* coincident points that differ only by rounding of the centroid are not a spread */
    const double mag = fabs(cx) + fabs(cy);
    if (mean <= 1e-12 * mag) return -1;
    nm->cx = cx;
    nm->cy = cy;
    nm->s = sqrt(2.0) / mean;
    return 0;
}

void satfeat_motion_norm_matrix(const motion_norm *nm, double t[9])
{
    t[0] = nm->s, t[1] = 0.0, t[2] = -nm->s * nm->cx;
    t[3] = 0.0, t[4] = nm->s, t[5] = -nm->s * nm->cy;
    t[6] = 0.0, t[7] = 0.0, t[8] = 1.0;
}

void satfeat_motion_norm_inverse_matrix(const motion_norm *nm, double t[9])
{
    const double r = 1.0 / nm->s;
    t[0] = r, t[1] = 0.0, t[2] = nm->cx;
    t[3] = 0.0, t[4] = r, t[5] = nm->cy;
    t[6] = 0.0, t[7] = 0.0, t[8] = 1.0;
}

double satfeat_motion_spread_ratio(const double *x, const double *y, size_t n)
{
    double mx = 0.0, my = 0.0;
    for (size_t i = 0; i < n; i++) {
        mx += x[i];
        my += y[i];
    }
    mx /= (double)n;
    my /= (double)n;
    double sxx = 0.0, sxy = 0.0, syy = 0.0;
    for (size_t i = 0; i < n; i++) {
        const double ex = x[i] - mx, ey = y[i] - my;
        sxx += ex * ex;
        sxy += ex * ey;
        syy += ey * ey;
    }
    const double half_tr = 0.5 * (sxx + syy);
    const double d = 0.5 * (sxx - syy);
    const double root = sqrt(d * d + sxy * sxy);
    const double big = half_tr + root;
    if (!(big > 0.0)) return 0.0;
    /* smallest eigenvalue as det / largest: no cancellation */
    const double small = (sxx * syy - sxy * sxy) / big;
    return small > 0.0 ? small / big : 0.0;
}

int satfeat_motion_model_sample_size(satfeat_motion_model model)
{
    switch (model) {
    case SATFEAT_MOTION_HOMOGRAPHY: return 4;
    case SATFEAT_MOTION_AFFINE: return 3;
    case SATFEAT_MOTION_SIMILARITY: return 2;
    }
    return 0;
}

/* Normalised DLT over k correspondences: smallest eigenvector of sum(a a^T) over the rows. */
static int fit_homography_dlt(const motion_points *p, const uint32_t *idx, size_t k, double h[9])
{
    if (k < 4) return -1;
    /* rows r1 = [p 0 -u p], r2 = [0 p -v p] with p = (x, y, 1): the normal matrix has the
     * blocks S = sum p p^T (twice on the diagonal), -sum u p p^T, -sum v p p^T and
     * sum (u^2 + v^2) p p^T, each a symmetric 3x3 of six sums */
    double s[6] = {0}, su[6] = {0}, sv[6] = {0}, sr[6] = {0};
    for (size_t c = 0; c < k; c++) {
        const uint32_t i = idx[c];
        const double x = p->sx[i], y = p->sy[i], u = p->dx[i], v = p->dy[i];
        const double pp[6] = {x * x, x * y, x, y * y, y, 1.0};
        const double r2 = u * u + v * v;
        for (int a = 0; a < 6; a++) {
            s[a] += pp[a];
            su[a] += u * pp[a];
            sv[a] += v * pp[a];
            sr[a] += r2 * pp[a];
        }
    }
    static const int sym[3][3] = {{0, 1, 2}, {1, 3, 4}, {2, 4, 5}};
    double m[81];
    memset(m, 0, sizeof m);
    for (int a = 0; a < 3; a++)
        for (int b = 0; b < 3; b++) {
            const int e = sym[a][b];
            m[a * 9 + b] = s[e];
            m[(a + 3) * 9 + (b + 3)] = s[e];
            m[a * 9 + (b + 6)] = m[(b + 6) * 9 + a] = -su[e];
            m[(a + 3) * 9 + (b + 6)] = m[(b + 6) * 9 + (a + 3)] = -sv[e];
            m[(a + 6) * 9 + (b + 6)] = sr[e];
        }
    double w[9], v[81];
    satfeat_lin_sym_eigen(m, 9, w, v);
    if (!(w[1] > 1e-13 * w[8])) return -1; /* a null space of two or more dimensions */
    double hv[9];
    for (int a = 0; a < 9; a++) hv[a] = v[a * 9 + 0];
    /* sign: positive w at the first point of the list */
    const uint32_t i0 = idx[0];
    if (hv[6] * p->sx[i0] + hv[7] * p->sy[i0] + hv[8] < 0.0)
        for (int a = 0; a < 9; a++) hv[a] = -hv[a];
    memcpy(h, hv, sizeof hv);
    return 0;
}

/* 1 when the symmetric n x n normal matrix has a smallest eigenvalue above 1e-12 of its largest. */
static int well_conditioned(const double *m, int n)
{
    double w[LIN_MAX_DIM], v[LIN_MAX_DIM * LIN_MAX_DIM];
    satfeat_lin_sym_eigen(m, n, w, v);
    return w[0] > 1e-12 * w[n - 1];
}

/* Affine least squares: two 3x3 normal systems sharing the matrix sum([x y 1]^T [x y 1]). */
static int fit_affine(const motion_points *p, const uint32_t *idx, size_t k, double h[9])
{
    if (k < 3) return -1;
    double m[9] = {0}, bu[3] = {0}, bv[3] = {0};
    for (size_t c = 0; c < k; c++) {
        const uint32_t i = idx[c];
        const double r[3] = {p->sx[i], p->sy[i], 1.0};
        for (int a = 0; a < 3; a++) {
            for (int b = 0; b < 3; b++) m[a * 3 + b] += r[a] * r[b];
            bu[a] += r[a] * p->dx[i];
            bv[a] += r[a] * p->dy[i];
        }
    }
    if (!well_conditioned(m, 3)) return -1; /* collinear or coincident points */
    if (satfeat_lin_cholesky_solve(m, 3, bu) != 0 || satfeat_lin_cholesky_solve(m, 3, bv) != 0)
        return -1;
    h[0] = bu[0], h[1] = bu[1], h[2] = bu[2];
    h[3] = bv[0], h[4] = bv[1], h[5] = bv[2];
    h[6] = 0.0, h[7] = 0.0, h[8] = 1.0;
    return 0;
}

/* Similarity least squares on (a, b, tx, ty): u = a x - b y + tx, v = b x + a y + ty. */
static int fit_similarity(const motion_points *p, const uint32_t *idx, size_t k, double h[9])
{
    if (k < 2) return -1;
    double m[16] = {0}, r[4] = {0};
    for (size_t c = 0; c < k; c++) {
        const uint32_t i = idx[c];
        const double x = p->sx[i], y = p->sy[i], u = p->dx[i], v = p->dy[i];
        const double ju[4] = {x, -y, 1.0, 0.0}, jv[4] = {y, x, 0.0, 1.0};
        for (int a = 0; a < 4; a++) {
            for (int b = 0; b < 4; b++) m[a * 4 + b] += ju[a] * ju[b] + jv[a] * jv[b];
            r[a] += ju[a] * u + jv[a] * v;
        }
    }
    if (!well_conditioned(m, 4)) return -1; /* all points coincide */
    if (satfeat_lin_cholesky_solve(m, 4, r) != 0) return -1;
    if (!(r[0] * r[0] + r[1] * r[1] > 0.0)) return -1;
    h[0] = r[0], h[1] = -r[1], h[2] = r[2];
    h[3] = r[1], h[4] = r[0], h[5] = r[3];
    h[6] = 0.0, h[7] = 0.0, h[8] = 1.0;
    return 0;
}

int satfeat_motion_fit_linear(satfeat_motion_model model, const motion_points *p,
                              const uint32_t *idx, size_t k, double h[9])
{
    switch (model) {
    case SATFEAT_MOTION_HOMOGRAPHY: return fit_homography_dlt(p, idx, k, h);
    case SATFEAT_MOTION_AFFINE: return fit_affine(p, idx, k, h);
    case SATFEAT_MOTION_SIMILARITY: return fit_similarity(p, idx, k, h);
    }
    return -1;
}

/* Sum of squared forward residuals of a homography with h[8] = 1; +inf when a point maps to a
 * non-positive w. */
static double homography_cost(const motion_points *p, const uint32_t *idx, size_t k,
                              const double *h)
{
    double cost = 0.0;
    for (size_t c = 0; c < k; c++) {
        const uint32_t i = idx[c];
        const double x = p->sx[i], y = p->sy[i];
        const double w = h[6] * x + h[7] * y + h[8];
        if (!(w > 0.0)) return INFINITY;
        const double ru = (h[0] * x + h[1] * y + h[2]) / w - p->dx[i];
        const double rv = (h[3] * x + h[4] * y + h[5]) / w - p->dy[i];
        cost += ru * ru + rv * rv;
    }
    return cost;
}

int satfeat_motion_refine_homography(const motion_points *p, const uint32_t *idx, size_t k,
                                     double h[9], int max_iter)
{
    if (k < 4) return -1;
    double norm = 0.0;
    for (int a = 0; a < 9; a++) norm += h[a] * h[a];
    if (!(fabs(h[8]) > 1e-8 * sqrt(norm))) return -1;
    double cur[9];
    for (int a = 0; a < 9; a++) cur[a] = h[a] / h[8];
    cur[8] = 1.0;
    double cost = homography_cost(p, idx, k, cur);
    if (!isfinite(cost)) return -1;
    double lambda = 1e-3;
    int accepted = 0;
    for (int it = 0; it < max_iter && cost > 0.0; it++) {
        /* J^T J (8x8) and J^T r at cur: per point ju = [a b c 0 0 0 -u a -u b],
         * jv = [0 0 0 a b c -v a -v b] with a = x/w, b = y/w, c = 1/w. */
        /* J^T J (8x8) and J^T r at cur. Per point ju = [g 0 -u a -u b], jv = [0 g -v a -v b]
         * with g = (a, b, c) = (x, y, 1) / w, so J^T J has the blocks sum g g^T (twice),
         * -sum u g (a, b), -sum v g (a, b) and sum (u^2 + v^2) (a, b)^T (a, b). */
        double gg[6] = {0}, ug[6] = {0}, vg[6] = {0}, rab[3] = {0}, gu[3] = {0}, gv[3] = {0};
        double ta = 0.0, tb = 0.0;
        for (size_t c = 0; c < k; c++) {
            const uint32_t i = idx[c];
            const double x = p->sx[i], y = p->sy[i];
            const double ga = x, gb = y; /* g = (x, y, 1) * iw */
            const double iw = 1.0 / (cur[6] * x + cur[7] * y + 1.0);
            const double a = ga * iw, b = gb * iw, cc = iw;
            const double u = (cur[0] * x + cur[1] * y + cur[2]) * iw;
            const double v = (cur[3] * x + cur[4] * y + cur[5]) * iw;
            const double ru = u - p->dx[i], rv = v - p->dy[i];
            const double g6[6] = {a * a, a * b, a * cc, b * b, b * cc, cc * cc};
            for (int e = 0; e < 6; e++) gg[e] += g6[e];
            /* only the (a, b) columns of the cross blocks: entries aa ab ac ba bb bc */
            const double x6[6] = {a * a, a * b, a * cc, b * a, b * b, b * cc};
            for (int e = 0; e < 6; e++) {
                ug[e] += u * x6[e];
                vg[e] += v * x6[e];
            }
            const double r2 = u * u + v * v;
            rab[0] += r2 * a * a;
            rab[1] += r2 * a * b;
            rab[2] += r2 * b * b;
            gu[0] += a * ru, gu[1] += b * ru, gu[2] += cc * ru;
            gv[0] += a * rv, gv[1] += b * rv, gv[2] += cc * rv;
            const double q = u * ru + v * rv;
            ta += a * q;
            tb += b * q;
        }
        static const int sym[3][3] = {{0, 1, 2}, {1, 3, 4}, {2, 4, 5}};
        double jtj[64], jtr[8];
        for (int a = 0; a < 3; a++) {
            for (int b = 0; b < 3; b++) {
                jtj[a * 8 + b] = jtj[(a + 3) * 8 + (b + 3)] = gg[sym[a][b]];
                jtj[a * 8 + (b + 3)] = jtj[(b + 3) * 8 + a] = 0.0;
            }
            /* column 6 pairs g_a with a, column 7 with b: x6 index 0..2 (times a), 3..5 (times b)
             */
            jtj[a * 8 + 6] = jtj[6 * 8 + a] = -ug[a];
            jtj[a * 8 + 7] = jtj[7 * 8 + a] = -ug[3 + a];
            jtj[(a + 3) * 8 + 6] = jtj[6 * 8 + (a + 3)] = -vg[a];
            jtj[(a + 3) * 8 + 7] = jtj[7 * 8 + (a + 3)] = -vg[3 + a];
            jtr[a] = gu[a];
            jtr[a + 3] = gv[a];
        }
        jtj[6 * 8 + 6] = rab[0];
        jtj[6 * 8 + 7] = jtj[7 * 8 + 6] = rab[1];
        jtj[7 * 8 + 7] = rab[2];
        jtr[6] = -ta;
        jtr[7] = -tb;
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
                const double c2 = homography_cost(p, idx, k, cand);
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
        cost = new_cost;
        if (gain <= 1e-8 * cost) break;
    }
    memcpy(h, cur, sizeof cur);
    return accepted;
}
