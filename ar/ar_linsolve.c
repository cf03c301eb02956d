/* ar_linsolve.c - Gaussian elimination with partial pivoting for n <= 9 (ar_linsolve.h). */
#include "ar/ar_linsolve.h"

#include <math.h>

int satfeat_ar_solve(double *A, double *b, int n, double *x)
{
    double scale = 0.0;
    for (int k = 0; k < n * n; k++)
        if (fabs(A[k]) > scale) scale = fabs(A[k]);
    if (!(scale > 0.0) || !isfinite(scale)) return 0;
    for (int c = 0; c < n; c++) {
        int p = c;
        for (int r = c + 1; r < n; r++)
            if (fabs(A[r * n + c]) > fabs(A[p * n + c])) p = r;
        if (!(fabs(A[p * n + c]) > 1e-14 * scale)) return 0;
        if (p != c) {
            for (int k = 0; k < n; k++) {
                const double tmp = A[c * n + k];
                A[c * n + k] = A[p * n + k];
                A[p * n + k] = tmp;
            }
            const double tb = b[c];
            b[c] = b[p];
            b[p] = tb;
        }
        for (int r = c + 1; r < n; r++) {
            const double f = A[r * n + c] / A[c * n + c];
            for (int k = c; k < n; k++) A[r * n + k] -= f * A[c * n + k];
            b[r] -= f * b[c];
        }
    }
    for (int r = n - 1; r >= 0; r--) {
        double s = b[r];
        for (int k = r + 1; k < n; k++) s -= A[r * n + k] * x[k];
        x[r] = s / A[r * n + r];
    }
    return 1;
}
