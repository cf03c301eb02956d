/* linalg_small.h - small dense linear algebra in double (row-major): symmetric eigen-decomposition
 * (Jacobi), Cholesky solves, 3x3 helpers; the null vector, which the device runs too, is
 * track/linalg_null.h. Sizes are tiny (at most 9); no allocation. */
#ifndef SATFEAT_LINALG_SMALL_H
#define SATFEAT_LINALG_SMALL_H

/** Largest dimension the helpers accept. */
#define LIN_MAX_DIM 9

/**
 * Eigen-decomposition of the symmetric n x n matrix `a` (n <= 9, row-major, only read) by cyclic
 * Jacobi rotations. Writes the eigenvalues ascending into `w` and the matching unit eigenvectors
 * as the columns of `v` (row-major n x n). Returns the number of sweeps used (at most 50).
 */
int satfeat_lin_sym_eigen(const double *a, int n, double *w, double *v);

/**
 * Solves a x = b for the symmetric positive definite n x n matrix `a` (n <= 9, row-major, only
 * read) by Cholesky factorisation; `b` is overwritten with x. Returns 0, or -1 when a pivot is
 * not positive (the matrix is not positive definite to working precision); b is then unchanged.
 */
int satfeat_lin_cholesky_solve(const double *a, int n, double *b);

/** c = a * b for 3x3 row-major matrices (c may not alias a or b). */
void satfeat_lin_mat3_mul(const double *a, const double *b, double *c);

/** Inverse of a 3x3 row-major matrix into `inv`; returns -1 (inv unchanged) when det is 0. */
int satfeat_lin_mat3_inverse(const double *a, double *inv);

#endif
