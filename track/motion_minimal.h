/* motion_minimal.h - the minimal solvers of the motion models (homography from 4
 * correspondences, affine from 3, similarity from 2) with their degeneracy and orientation tests:
 * one source for the CPU search and the CUDA hypothesis kernel, so both get the same bits
 * (double precision, no contraction: -ffp-contract=off on the host, --fmad=false on the device). */
#ifndef SATFEAT_MOTION_MINIMAL_H
#define SATFEAT_MOTION_MINIMAL_H

#include "satfeat.h"
#include "src/hd.h"
#include "track/linalg_null.h"

#include <math.h>

/**
 * Signed doubled area of the triangle (a, b, c), and 0 when it is degenerate: when its magnitude
 * is at most 1e-4 times the mean squared length of the two sides from a (nearly coincident or
 * collinear points).
 */
static inline SATFEAT_HD double satfeat_motion_triangle_orientation(double ax, double ay, double bx,
                                                                   double by, double cx, double cy)
{
    const double ux = bx - ax, uy = by - ay, vx = cx - ax, vy = cy - ay;
    const double cross = ux * vy - uy * vx;
    const double scale = 0.5 * (ux * ux + uy * uy + vx * vx + vy * vy);
    if (!(fabs(cross) > 1e-4 * scale)) return 0.0;
    return cross;
}

/* 1 when the triangle (i, j, k) of the sample is non-degenerate in both images and keeps its
 * orientation, else 0. */
static inline SATFEAT_HD int satfeat_motion_triangle_kept(const double *sx, const double *sy,
                                                         const double *dx, const double *dy, int i,
                                                         int j, int k)
{
    const double os = satfeat_motion_triangle_orientation(sx[i], sy[i], sx[j], sy[j], sx[k], sy[k]);
    const double od = satfeat_motion_triangle_orientation(dx[i], dy[i], dx[j], dy[j], dx[k], dy[k]);
    return (os > 0.0 && od > 0.0) || (os < 0.0 && od < 0.0);
}

/* 1 when the four triangles of a homography sample, (0 1 2), (0 1 3), (0 2 3), (1 2 3) (written
 * out: no static table, which device code could not hold), are non-degenerate and keep their
 * orientation. */
static inline SATFEAT_HD int satfeat_motion_homography4_sample_ok(const double *sx, const double *sy,
                                                                 const double *dx, const double *dy)
{
    return satfeat_motion_triangle_kept(sx, sy, dx, dy, 0, 1, 2) &&
           satfeat_motion_triangle_kept(sx, sy, dx, dy, 0, 1, 3) &&
           satfeat_motion_triangle_kept(sx, sy, dx, dy, 0, 2, 3) &&
           satfeat_motion_triangle_kept(sx, sy, dx, dy, 1, 2, 3);
}

/* Entry (row, col) of the 8x9 DLT system of the four correspondences: rows 2i and 2i + 1 are
 * (x y 1 0 0 0 -ux -uy -u) and (0 0 0 x y 1 -vx -vy -v) of correspondence i. */
static inline SATFEAT_HD double satfeat_motion_dlt_entry(const double *sx, const double *sy,
                                                        const double *dx, const double *dy,
                                                        int row, int col)
{
    const int i = row >> 1, second = row & 1;
    const double x = sx[i], y = sy[i], t = second ? dy[i] : dx[i];
    const int c = second ? col - 3 : col; /* the x y 1 block's position */
    if (col >= 6) return col == 6 ? -t * x : col == 7 ? -t * y : -t;
    if (c < 0 || c > 2) return 0.0;
    return c == 0 ? x : c == 1 ? y : 1.0;
}

/* Makes w positive at the first sample point (negating h), then returns 0 when every sample
 * point maps to a positive w, else -1. */
static inline SATFEAT_HD int satfeat_motion_homography4_sign(const double *sx, const double *sy,
                                                            double h[9])
{
    const double w0 = h[6] * sx[0] + h[7] * sy[0] + h[8];
    if (w0 < 0.0)
        for (int k = 0; k < 9; k++) h[k] = -h[k];
    for (int i = 0; i < 4; i++)
        if (!(h[6] * sx[i] + h[7] * sy[i] + h[8] > 0.0)) return -1;
    return 0;
}

/* Homography through four correspondences: the null vector of the 8x9 DLT system. */
static inline SATFEAT_HD int satfeat_motion_solve_homography4(const double *sx, const double *sy,
                                                             const double *dx, const double *dy,
                                                             double h[9])
{
    if (!satfeat_motion_homography4_sample_ok(sx, sy, dx, dy)) return -1;
    double a[8 * 9];
    for (int r = 0; r < 8; r++)
        for (int c = 0; c < 9; c++) a[r * 9 + c] = satfeat_motion_dlt_entry(sx, sy, dx, dy, r, c);
    if (satfeat_lin_null_vector(a, 8, 9, 1e-12, h) != 0) return -1;
    return satfeat_motion_homography4_sign(sx, sy, h);
}

/* Affine map through three correspondences: A = [du dv] [u v]^-1, t = d0 - A s0. */
static inline SATFEAT_HD int satfeat_motion_solve_affine3(const double *sx, const double *sy,
                                                          const double *dx, const double *dy,
                                                          double h[9])
{
    if (!satfeat_motion_triangle_kept(sx, sy, dx, dy, 0, 1, 2)) return -1;
    const double ux = sx[1] - sx[0], uy = sy[1] - sy[0], vx = sx[2] - sx[0], vy = sy[2] - sy[0];
    const double pux = dx[1] - dx[0], puy = dy[1] - dy[0], pvx = dx[2] - dx[0],
                 pvy = dy[2] - dy[0];
    const double det = ux * vy - uy * vx;
    /* [u v]^-1 = [vy -vx; -uy ux] / det */
    h[0] = (pux * vy - pvx * uy) / det;
    h[1] = (pvx * ux - pux * vx) / det;
    h[3] = (puy * vy - pvy * uy) / det;
    h[4] = (pvy * ux - puy * vx) / det;
    h[2] = dx[0] - (h[0] * sx[0] + h[1] * sy[0]);
    h[5] = dy[0] - (h[3] * sx[0] + h[4] * sy[0]);
    h[6] = 0.0, h[7] = 0.0, h[8] = 1.0;
    return 0;
}

/* Similarity through two correspondences, in complex numbers: d = q s + t with q = a + ib. */
static inline SATFEAT_HD int satfeat_motion_solve_similarity2(const double *sx, const double *sy,
                                                             const double *dx, const double *dy,
                                                             double h[9])
{
    const double ex = sx[1] - sx[0], ey = sy[1] - sy[0];
    const double fx = dx[1] - dx[0], fy = dy[1] - dy[0];
    const double e2 = ex * ex + ey * ey, f2 = fx * fx + fy * fy;
    if (!(e2 > 1e-10) || !(f2 > 1e-10)) return -1; /* normalised units: about 1e-5 of the spread */
    const double a = (fx * ex + fy * ey) / e2, b = (fy * ex - fx * ey) / e2;
    h[0] = a, h[1] = -b, h[3] = b, h[4] = a;
    h[2] = dx[0] - (a * sx[0] - b * sy[0]);
    h[5] = dy[0] - (b * sx[0] + a * sy[0]);
    h[6] = 0.0, h[7] = 0.0, h[8] = 1.0;
    return 0;
}

/**
 * Minimal solver: the model through the sample of satfeat_motion_model_sample_size(model)
 * correspondences (sx[i], sy[i]) -> (dx[i], dy[i]), as a 3x3 matrix `h` (row-major; the last row
 * 0 0 1 for affine and similarity; a homography has unit Frobenius norm and maps every sample
 * point to a positive w). Returns 0, or -1 when the sample is degenerate (coincident or
 * near-collinear points in either image) or would flip orientation (mirror, or points across the
 * horizon of the homography); h is then unspecified.
 */
static inline SATFEAT_HD int satfeat_motion_solve_minimal(satfeat_motion_model model,
                                                         const double *sx, const double *sy,
                                                         const double *dx, const double *dy,
                                                         double h[9])
{
    switch (model) {
    case SATFEAT_MOTION_HOMOGRAPHY: return satfeat_motion_solve_homography4(sx, sy, dx, dy, h);
    case SATFEAT_MOTION_AFFINE: return satfeat_motion_solve_affine3(sx, sy, dx, dy, h);
    case SATFEAT_MOTION_SIMILARITY: return satfeat_motion_solve_similarity2(sx, sy, dx, dy, h);
    }
    return -1;
}


#endif
