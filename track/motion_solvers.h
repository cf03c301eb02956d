/* motion_solvers.h - motion models between point sets: Hartley normalisation and least-squares
 * fits over index lists; the minimal solvers (homography 4 points, affine 3, similarity 2), which
 * the device runs too, are track/motion_minimal.h (included here). */
#ifndef SATFEAT_MOTION_SOLVERS_H
#define SATFEAT_MOTION_SOLVERS_H

#include "satfeat.h"
#include "track/motion_minimal.h"

#include <stddef.h>
#include <stdint.h>

/** Correspondences as structure of arrays: (sx, sy) in the source maps to (dx, dy). */
typedef struct motion_points {
    const double *sx, *sy, *dx, *dy;
    size_t n;
} motion_points;

/** Isotropic normalisation p' = s * (p - c): centroid c at the origin, mean distance sqrt(2). */
typedef struct motion_norm {
    double cx, cy, s;
} motion_norm;

/**
 * Hartley normalisation of n points (interleaved x, y). Returns 0, or -1 when all points coincide
 * (no scale) or a sum is not finite; `nm` is then unchanged.
 */
int satfeat_motion_norm_compute(const double *xy, size_t n, motion_norm *nm);

/** The 3x3 matrix of a normalisation (row-major). */
void satfeat_motion_norm_matrix(const motion_norm *nm, double t[9]);

/** The 3x3 matrix of the inverse of a normalisation (row-major). */
void satfeat_motion_norm_inverse_matrix(const motion_norm *nm, double t[9]);

/**
 * Ratio of the smallest to the largest eigenvalue of the 2x2 scatter matrix of the points
 * (SoA, n >= 1): 0 for collinear or coincident points, 1 for an isotropic cloud.
 */
double satfeat_motion_spread_ratio(const double *x, const double *y, size_t n);

/** Number of correspondences in a minimal sample of the model: 4, 3 or 2. */
int satfeat_motion_model_sample_size(satfeat_motion_model model);

/**
 * Linear least-squares fit of the model over the correspondences idx[0..k-1] of `p` (idx NULL:
 * the first k): the
 * normalised DLT (smallest eigenvector of the 9x9 normal matrix) for the homography, the exact
 * linear least-squares solution of the forward error for affine and similarity. Returns 0, or -1
 * when the points do not determine the model (h unchanged).
 */
int satfeat_motion_fit_linear(satfeat_motion_model model, const motion_points *p,
                              const uint32_t *idx, size_t k, double h[9]);

/**
 * Levenberg-Marquardt refinement (track/motion_lm.c) of a homography on the forward
 * reprojection error over all p->n (>= 4) correspondences of p, parametrised with h[8] = 1, at
 * most `max_iter` iterations; it also stops after a step that lowers the RMS error by less than
 * `min_rms_gain` (0: only when a step gains nothing, relatively 1e-8). Its sums have a fixed
 * order, the same on every build. `h` is updated only when the error decreased; it comes back
 * scaled to h[8] = 1. Returns the number of accepted steps, or -1 when h[8] is too close to 0 or
 * there are fewer than 4 points (h unchanged).
 */
int satfeat_motion_refine_homography(const motion_points *p, double h[9], int max_iter,
                                     double min_rms_gain);

#endif
