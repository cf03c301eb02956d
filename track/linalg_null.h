/* linalg_null.h - the unit null vector of a small matrix by full-pivot Gauss-Jordan elimination:
 * one source for the host and the device (the homography's minimal solver runs on both). */
#ifndef SATFEAT_LINALG_NULL_H
#define SATFEAT_LINALG_NULL_H

#include "src/hd.h"
#include "track/linalg_small.h"

#include <math.h>

/**
 * The last step of satfeat_lin_null_vector, shared with the device's warp version
 * (linalg_null_warp.cuh): from the eliminated system's pivots mkk[k] = m[k][k] and last-column
 * entries mkf[k] = m[k][cols - 1] (k < cols - 1) and the column permutation `perm`, the null
 * vector x (x[cols - 1] = 1) scaled to unit length with its largest entry positive, written to
 * v in the original column order.
 */
static inline SATFEAT_HD void satfeat_lin_null_finish(const double *mkk, const double *mkf,
                                                      const int *perm, int cols, double *v)
{
    double x[LIN_MAX_DIM];
    x[cols - 1] = 1.0;
    for (int k = 0; k < cols - 1; k++) x[k] = -mkf[k] / mkk[k];
    double norm2 = 0.0, big = 0.0;
    int ibig = 0;
    for (int k = 0; k < cols; k++) {
        norm2 += x[k] * x[k];
        if (fabs(x[k]) > big) {
            big = fabs(x[k]);
            ibig = k;
        }
    }
    const double scale = (x[ibig] < 0.0 ? -1.0 : 1.0) / sqrt(norm2);
    for (int k = 0; k < cols; k++) v[perm[k]] = x[k] * scale;
}

/**
 * Unit null vector of the rows x cols matrix `a` (row-major, rows >= cols - 1, cols <= 9) whose
 * rank is cols - 1, found by Gaussian elimination with full pivoting on a copy. Pivots smaller
 * than rel_tol times the largest entry count as zero. Writes `v` (cols entries, unit length,
 * largest entry positive) and returns 0, or returns -1 when the rank is below cols - 1.
 */
static inline SATFEAT_HD int satfeat_lin_null_vector(const double *a, int rows, int cols,
                                                   double rel_tol, double *v)
{
    double m[LIN_MAX_DIM][LIN_MAX_DIM];
    int perm[LIN_MAX_DIM];
    if (cols < 2 || cols > LIN_MAX_DIM || rows < cols - 1 || rows > LIN_MAX_DIM) return -1;
    double biggest = 0.0;
    for (int i = 0; i < rows; i++)
        for (int j = 0; j < cols; j++) {
            m[i][j] = a[i * cols + j];
            if (fabs(m[i][j]) > biggest) biggest = fabs(m[i][j]);
        }
    for (int j = 0; j < cols; j++) perm[j] = j;
    if (!(biggest > 0.0)) return -1;
    const double tol = rel_tol * biggest;
    for (int k = 0; k < cols - 1; k++) {
        /* full pivot: the largest remaining entry, first in row-major order on ties */
        int pr = k, pc = k;
        double best = -1.0;
        for (int i = k; i < rows; i++)
            for (int j = k; j < cols; j++)
                if (fabs(m[i][j]) > best) {
                    best = fabs(m[i][j]);
                    pr = i;
                    pc = j;
                }
        if (!(best > tol)) return -1;
        if (pr != k)
            for (int j = 0; j < cols; j++) {
                double t = m[k][j];
                m[k][j] = m[pr][j];
                m[pr][j] = t;
            }
        if (pc != k) {
            for (int i = 0; i < rows; i++) {
                double t = m[i][k];
                m[i][k] = m[i][pc];
                m[i][pc] = t;
            }
            int t = perm[k];
            perm[k] = perm[pc];
            perm[pc] = t;
        }
        /* Gauss-Jordan: clear column k in every other row */
        for (int i = 0; i < rows; i++) {
            if (i == k || m[i][k] == 0.0) continue;
            const double f = m[i][k] / m[k][k];
            for (int j = k; j < cols; j++) m[i][j] -= f * m[k][j];
            m[i][k] = 0.0;
        }
    }
    double mkk[LIN_MAX_DIM], mkf[LIN_MAX_DIM];
    for (int k = 0; k < cols - 1; k++) {
        mkk[k] = m[k][k];
        mkf[k] = m[k][cols - 1];
    }
    satfeat_lin_null_finish(mkk, mkf, perm, cols, v);
    return 0;
}

#endif
