/* motion_solvers.c - Hartley normalisation and least-squares fits of the homography, affine and
 * similarity models (double precision, no allocation); minimal solvers in motion_minimal.h. */
#include "track/motion_solvers.h"

#include "track/linalg_small.h"
#include "track/motion_lanes.h"

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

/* The 24 sums of the DLT's normal matrix over idx[0..k) (idx NULL: the first k), in the lane
 * order of motion_lanes.h: sum p p^T, sum u p p^T, sum v p p^T, sum (u^2 + v^2) p p^T, each as
 * the six entries xx xy x yy y 1 of p p^T with p = (x, y, 1). */
static void dlt_sums(const motion_points *p, const uint32_t *idx, size_t k, double out[24])
{
    double lane[24][SATFEAT_MOTION_LANES];
    memset(lane, 0, sizeof lane);
    double t[24][SATFEAT_MOTION_LANE_BLOCK];
    for (size_t base = 0; base < k; base += SATFEAT_MOTION_LANE_BLOCK) {
        const size_t len =
            k - base < SATFEAT_MOTION_LANE_BLOCK ? k - base : SATFEAT_MOTION_LANE_BLOCK;
        /* the block's points side by side first, so the loop below vectorises */
        double bx[SATFEAT_MOTION_LANE_BLOCK], by[SATFEAT_MOTION_LANE_BLOCK];
        double bu[SATFEAT_MOTION_LANE_BLOCK], bv[SATFEAT_MOTION_LANE_BLOCK];
        for (size_t j = 0; j < len; j++) {
            const size_t i = idx ? idx[base + j] : base + j;
            bx[j] = p->sx[i], by[j] = p->sy[i], bu[j] = p->dx[i], bv[j] = p->dy[i];
        }
        for (size_t j = 0; j < len; j++) {
            const double x = bx[j], y = by[j], u = bu[j], v = bv[j];
            const double pp[6] = {x * x, x * y, x, y * y, y, 1.0};
            const double r2 = u * u + v * v;
            for (int a = 0; a < 6; a++) {
                t[a][j] = pp[a];
                t[6 + a][j] = u * pp[a];
                t[12 + a][j] = v * pp[a];
                t[18 + a][j] = r2 * pp[a];
            }
        }
        for (int e = 0; e < 24; e++) satfeat_motion_lanes_add(lane[e], t[e], len);
    }
    for (int e = 0; e < 24; e++) out[e] = satfeat_motion_lanes_total(lane[e]);
}

/* Normalised DLT over k correspondences: smallest eigenvector of sum(a a^T) over the rows. */
static int fit_homography_dlt(const motion_points *p, const uint32_t *idx, size_t k, double h[9])
{
    if (k < 4) return -1;
    /* rows r1 = [p 0 -u p], r2 = [0 p -v p] with p = (x, y, 1): the normal matrix has the
     * blocks S = sum p p^T (twice on the diagonal), -sum u p p^T, -sum v p p^T and
     * sum (u^2 + v^2) p p^T, each a symmetric 3x3 of six sums */
    double sums[24];
    dlt_sums(p, idx, k, sums);
    const double *s = sums, *su = sums + 6, *sv = sums + 12, *sr = sums + 18;
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
    const size_t i0 = idx ? idx[0] : 0;
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
        const size_t i = idx ? idx[c] : c;
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
        const size_t i = idx ? idx[c] : c;
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
