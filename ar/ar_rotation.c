/* ar_rotation.c - Rodrigues vectors and 3x3 rotation helpers of the AR pose (ar_rotation.h). */
#include "ar/ar_rotation.h"

#include <math.h>

void satfeat_ar_mat3_mul(const double a[9], const double b[9], double c[9])
{
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++)
            c[3 * i + j] = a[3 * i] * b[j] + a[3 * i + 1] * b[3 + j] + a[3 * i + 2] * b[6 + j];
}

void satfeat_ar_mat3_apply(const double A[9], const double x[3], double y[3])
{
    for (int i = 0; i < 3; i++) y[i] = A[3 * i] * x[0] + A[3 * i + 1] * x[1] + A[3 * i + 2] * x[2];
}

void satfeat_ar_cross3(const double a[3], const double b[3], double c[3])
{
    c[0] = a[1] * b[2] - a[2] * b[1];
    c[1] = a[2] * b[0] - a[0] * b[2];
    c[2] = a[0] * b[1] - a[1] * b[0];
}

void satfeat_ar_rodrigues_to_matrix(const double r[3], double R[9])
{
    const double th2 = r[0] * r[0] + r[1] * r[1] + r[2] * r[2];
    const double th = sqrt(th2);
    /* R = I + a [r]x + b [r]x^2 with a = sin(th)/th, b = (1 - cos(th))/th^2; below 1e-4 rad the
     * series keeps full precision where the closed forms would cancel. */
    double a, b;
    if (th < 1e-4) {
        a = 1.0 - th2 / 6.0;
        b = 0.5 - th2 / 24.0;
    } else {
        a = sin(th) / th;
        b = (1.0 - cos(th)) / th2;
    }
    const double x = r[0], y = r[1], z = r[2];
    R[0] = 1.0 - b * (y * y + z * z);
    R[1] = -a * z + b * x * y;
    R[2] = a * y + b * x * z;
    R[3] = a * z + b * x * y;
    R[4] = 1.0 - b * (x * x + z * z);
    R[5] = -a * x + b * y * z;
    R[6] = -a * y + b * x * z;
    R[7] = a * x + b * y * z;
    R[8] = 1.0 - b * (x * x + y * y);
}

void satfeat_ar_matrix_to_rodrigues(const double R[9], double r[3])
{
    /* Quaternion (w, v) of R: take the largest of 4w^2, 4x^2, 4y^2, 4z^2 as the pivot so no
     * square root of a small, cancelled number decides the result. */
    const double tr = R[0] + R[4] + R[8];
    double w, v[3];
    if (tr >= R[0] && tr >= R[4] && tr >= R[8]) {
        const double s = 2.0 * sqrt(1.0 + tr);
        w = 0.25 * s;
        v[0] = (R[7] - R[5]) / s;
        v[1] = (R[2] - R[6]) / s;
        v[2] = (R[3] - R[1]) / s;
    } else if (R[0] >= R[4] && R[0] >= R[8]) {
        const double s = 2.0 * sqrt(1.0 + R[0] - R[4] - R[8]);
        w = (R[7] - R[5]) / s;
        v[0] = 0.25 * s;
        v[1] = (R[1] + R[3]) / s;
        v[2] = (R[2] + R[6]) / s;
    } else if (R[4] >= R[8]) {
        const double s = 2.0 * sqrt(1.0 + R[4] - R[0] - R[8]);
        w = (R[2] - R[6]) / s;
        v[0] = (R[1] + R[3]) / s;
        v[1] = 0.25 * s;
        v[2] = (R[5] + R[7]) / s;
    } else {
        const double s = 2.0 * sqrt(1.0 + R[8] - R[0] - R[4]);
        w = (R[3] - R[1]) / s;
        v[0] = (R[2] + R[6]) / s;
        v[1] = (R[5] + R[7]) / s;
        v[2] = 0.25 * s;
    }
    if (w < 0) { /* q and -q are one rotation: the one with w >= 0 has angle <= pi */
        w = -w;
        v[0] = -v[0], v[1] = -v[1], v[2] = -v[2];
    }
    const double vn = sqrt(v[0] * v[0] + v[1] * v[1] + v[2] * v[2]);
    if (vn < 1e-300) {
        r[0] = r[1] = r[2] = 0.0;
        return;
    }
    const double angle = 2.0 * atan2(vn, w);
    for (int k = 0; k < 3; k++) r[k] = v[k] / vn * angle;
}

double satfeat_ar_rotation_angle_between(const double Ra[9], const double Rb[9])
{
    /* the angle of the rotation vector of Ra^T Rb: accurate near 0, where acos of the trace
     * would lose half the digits */
    double RtR[9], Rat[9], r[3];
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++) Rat[3 * i + j] = Ra[3 * j + i];
    satfeat_ar_mat3_mul(Rat, Rb, RtR);
    satfeat_ar_matrix_to_rodrigues(RtR, r);
    return sqrt(r[0] * r[0] + r[1] * r[1] + r[2] * r[2]);
}
