/* ar_linsolve.h - dense solve of a small square system, for the AR pose's least squares. */
#ifndef SATFEAT_AR_LINSOLVE_H
#define SATFEAT_AR_LINSOLVE_H

/**
 * Solves A x = b for an n x n row-major A (n <= 9) by Gaussian elimination with partial
 * pivoting; A and b are overwritten, x receives the solution. Returns 0 when a pivot is below
 * 1e-14 of the largest entry of A (singular to working precision), else 1.
 */
int satfeat_ar_solve(double *A, double *b, int n, double *x);

#endif
