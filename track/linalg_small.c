/* linalg_small.c - small dense linear algebra in double: Jacobi eigen-decomposition of symmetric
 * matrices, Cholesky solves, 3x3 helpers (the null vector is track/linalg_null.h). */
#include "track/linalg_small.h"

#include <math.h>
#include <string.h>

/* Applies the Jacobi rotation (p, q, c, s) to the symmetric matrix m and accumulates it in vv. */
static void jacobi_rotate(double m[LIN_MAX_DIM][LIN_MAX_DIM], double vv[LIN_MAX_DIM][LIN_MAX_DIM],
                          int n, int p, int q, double c, double s)
{
    for (int k = 0; k < n; k++) { /* columns: m P */
        const double kp = m[k][p], kq = m[k][q];
        m[k][p] = c * kp - s * kq;
        m[k][q] = s * kp + c * kq;
    }
    for (int k = 0; k < n; k++) { /* rows: P^T (m P) */
        const double pk = m[p][k], qk = m[q][k];
        m[p][k] = c * pk - s * qk;
        m[q][k] = s * pk + c * qk;
    }
    m[p][q] = m[q][p] = 0.0;
    for (int k = 0; k < n; k++) {
        const double kp = vv[k][p], kq = vv[k][q];
        vv[k][p] = c * kp - s * kq;
        vv[k][q] = s * kp + c * kq;
    }
}

int satfeat_lin_sym_eigen(const double *a, int n, double *w, double *v)
{
    double m[LIN_MAX_DIM][LIN_MAX_DIM], vv[LIN_MAX_DIM][LIN_MAX_DIM];
    double frob2 = 0.0;
    for (int i = 0; i < n; i++)
        for (int j = 0; j < n; j++) {
            /* symmetrise so the rotations see an exactly symmetric matrix */
            m[i][j] = 0.5 * (a[i * n + j] + a[j * n + i]);
            vv[i][j] = i == j ? 1.0 : 0.0;
            frob2 += m[i][j] * m[i][j];
        }
    int sweep = 0;
    for (; sweep < 50; sweep++) {
        double off2 = 0.0;
        for (int p = 0; p < n; p++)
            for (int q = p + 1; q < n; q++) off2 += m[p][q] * m[p][q];
        if (off2 <= 1e-34 * frob2 || off2 == 0.0) break;
        for (int p = 0; p < n; p++)
            for (int q = p + 1; q < n; q++) {
                const double apq = m[p][q];
                if (apq == 0.0) continue;
                const double theta = (m[q][q] - m[p][p]) / (2.0 * apq);
                double t;
                if (fabs(theta) > 1e150) {
                    t = 0.5 / theta;
                } else {
                    t = 1.0 / (fabs(theta) + sqrt(theta * theta + 1.0));
                    if (theta < 0.0) t = -t;
                }
                const double c = 1.0 / sqrt(t * t + 1.0);
                jacobi_rotate(m, vv, n, p, q, c, t * c);
            }
    }
    /* sort ascending (selection sort; ties keep the earlier index first) */
    int order[LIN_MAX_DIM];
    for (int i = 0; i < n; i++) order[i] = i;
    for (int i = 0; i < n; i++) {
        int best = i;
        for (int j = i + 1; j < n; j++)
            if (m[order[j]][order[j]] < m[order[best]][order[best]]) best = j;
        int t = order[i];
        order[i] = order[best];
        order[best] = t;
    }
    for (int i = 0; i < n; i++) {
        w[i] = m[order[i]][order[i]];
        for (int k = 0; k < n; k++) v[k * n + i] = vv[k][order[i]];
    }
    return sweep;
}

int satfeat_lin_cholesky_solve(const double *a, int n, double *b)
{
    double l[LIN_MAX_DIM][LIN_MAX_DIM], y[LIN_MAX_DIM];
    if (n < 1 || n > LIN_MAX_DIM) return -1;
    for (int i = 0; i < n; i++) {
        for (int j = 0; j <= i; j++) {
            double s = a[i * n + j];
            for (int k = 0; k < j; k++) s -= l[i][k] * l[j][k];
            if (i == j) {
                if (!(s > 0.0)) return -1;
                l[i][i] = sqrt(s);
            } else {
                l[i][j] = s / l[j][j];
            }
        }
    }
    for (int i = 0; i < n; i++) {
        double s = b[i];
        for (int k = 0; k < i; k++) s -= l[i][k] * y[k];
        y[i] = s / l[i][i];
    }
    for (int i = n - 1; i >= 0; i--) {
        double s = y[i];
        for (int k = i + 1; k < n; k++) s -= l[k][i] * b[k];
        b[i] = s / l[i][i];
    }
    return 0;
}

void satfeat_lin_mat3_mul(const double *a, const double *b, double *c)
{
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++)
            c[i * 3 + j] = a[i * 3 + 0] * b[0 * 3 + j] + a[i * 3 + 1] * b[1 * 3 + j] +
                           a[i * 3 + 2] * b[2 * 3 + j];
}

int satfeat_lin_mat3_inverse(const double *a, double *inv)
{
    const double c00 = a[4] * a[8] - a[5] * a[7];
    const double c01 = a[5] * a[6] - a[3] * a[8];
    const double c02 = a[3] * a[7] - a[4] * a[6];
    const double det = a[0] * c00 + a[1] * c01 + a[2] * c02;
    if (det == 0.0 || !isfinite(det)) return -1;
    const double r = 1.0 / det;
    inv[0] = c00 * r;
    inv[1] = (a[2] * a[7] - a[1] * a[8]) * r;
    inv[2] = (a[1] * a[5] - a[2] * a[4]) * r;
    inv[3] = c01 * r;
    inv[4] = (a[0] * a[8] - a[2] * a[6]) * r;
    inv[5] = (a[2] * a[3] - a[0] * a[5]) * r;
    inv[6] = c02 * r;
    inv[7] = (a[1] * a[6] - a[0] * a[7]) * r;
    inv[8] = (a[0] * a[4] - a[1] * a[3]) * r;
    return 0;
}
