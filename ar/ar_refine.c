/* ar_refine.c - Levenberg-Marquardt refinement of a planar pose on the reprojection error, and
 * the error itself (ar_pose.h). */
#include "ar/ar_linsolve.h"
#include "ar/ar_pose.h"
#include "ar/ar_rotation.h"

#include <math.h>
#include <string.h>

double satfeat_ar_pose_rms(const double *world_xy, const double *norm_xy, size_t n, double fx,
                           double fy, const satfeat_ar_pose *pose)
{
    if (n == 0) return 0.0;
    double sum = 0.0;
    for (size_t i = 0; i < n; i++) {
        const double X[3] = {world_xy[2 * i], world_xy[2 * i + 1], 0.0};
        double P[3];
        satfeat_ar_mat3_apply(pose->R, X, P);
        const double z = P[2] + pose->t[2];
        if (!(z > 0.0)) return INFINITY;
        const double ex = fx * ((P[0] + pose->t[0]) / z - norm_xy[2 * i]);
        const double ey = fy * ((P[1] + pose->t[1]) / z - norm_xy[2 * i + 1]);
        sum += ex * ex + ey * ey;
    }
    return sqrt(sum / (double)n);
}

/* Huber's threshold on a point's reprojection error (px): beyond it an error counts linearly,
 * so a few wrong correspondences among the inliers of a 3 px homography pull the pose less. */
#define AR_HUBER_PX 2.0

/* Normal equations J^T W J and J^T W e of the pixel residuals at `pose`, W the Huber weights
 * of the points' errors; returns the Huber cost (twice rho: the squared error up to
 * AR_HUBER_PX), or -1 when a point is at or behind the camera. */
static double normal_equations(const double *world_xy, const double *norm_xy,
                               const double *weight, size_t n, double fx, double fy,
                               const satfeat_ar_pose *pose, double JtJ[36], double Jte[6])
{
    memset(JtJ, 0, 36 * sizeof(double));
    memset(Jte, 0, 6 * sizeof(double));
    double sum = 0.0;
    for (size_t i = 0; i < n; i++) {
        const double X[3] = {world_xy[2 * i], world_xy[2 * i + 1], 0.0};
        double P[3];
        satfeat_ar_mat3_apply(pose->R, X, P);
        const double x = P[0] + pose->t[0], y = P[1] + pose->t[1], z = P[2] + pose->t[2];
        if (!(z > 0.0)) return -1.0;
        const double iz = 1.0 / z;
        const double eu = fx * (x * iz - norm_xy[2 * i]), ev = fy * (y * iz - norm_xy[2 * i + 1]);
        const double e = sqrt(eu * eu + ev * ev);
        const double wp = weight ? weight[i] : 1.0;
        const double w = wp * (e <= AR_HUBER_PX ? 1.0 : AR_HUBER_PX / e);
        sum += wp * (e <= AR_HUBER_PX ? e * e : AR_HUBER_PX * (2.0 * e - AR_HUBER_PX));
        /* d(camera point)/d(rotation increment d) = -[P]x, d/dt = I */
        const double dx[6] = {0, P[2], -P[1], 1, 0, 0};
        const double dy[6] = {-P[2], 0, P[0], 0, 1, 0};
        const double dz[6] = {P[1], -P[0], 0, 0, 0, 1};
        double ju[6], jv[6];
        for (int k = 0; k < 6; k++) {
            ju[k] = fx * iz * (dx[k] - x * iz * dz[k]);
            jv[k] = fy * iz * (dy[k] - y * iz * dz[k]);
        }
        for (int a = 0; a < 6; a++) {
            for (int b = a; b < 6; b++) JtJ[6 * a + b] += w * (ju[a] * ju[b] + jv[a] * jv[b]);
            Jte[a] += w * (ju[a] * eu + jv[a] * ev);
        }
    }
    for (int a = 0; a < 6; a++)
        for (int b = 0; b < a; b++) JtJ[6 * a + b] = JtJ[6 * b + a];
    return sum;
}

/* pose after the step: R' = exp([d]x) R, t' = t + dt */
static void apply_step(const satfeat_ar_pose *in, const double step[6], satfeat_ar_pose *out)
{
    double dR[9];
    satfeat_ar_rodrigues_to_matrix(step, dR);
    satfeat_ar_mat3_mul(dR, in->R, out->R);
    for (int k = 0; k < 3; k++) out->t[k] = in->t[k] + step[3 + k];
}

/* Levenberg-Marquardt ends once an accepted step lowers the cost by less than this fraction.
 * The Huber weights make the convergence linear (a few accepted steps, each gaining a fraction
 * of the last): the cost still to gain is then a small multiple of the last gain, and the pose
 * within about 1e-4 degrees of the minimum's (tests/test_ar_pose.c), far below the detector's
 * noise; the 1e-12 of a full convergence took ~40% more steps for no change in accuracy. */
#define AR_LM_REL_GAIN 1e-8
/* ... or once a step moves the pose by less than this (radians of rotation; and as a fraction
 * of the distance for the translation): a step that small changes no pixel of the error, and
 * is the one that would otherwise be tried and rejected while lambda grows to its limit. */
#define AR_LM_TINY_STEP 1e-10

/* Whether step (rotation increment, translation increment) is below AR_LM_TINY_STEP of pose. */
static int tiny_step(const double step[6], const satfeat_ar_pose *pose)
{
    const double dr2 = step[0] * step[0] + step[1] * step[1] + step[2] * step[2];
    const double dt2 = step[3] * step[3] + step[4] * step[4] + step[5] * step[5];
    const double t2 = pose->t[0] * pose->t[0] + pose->t[1] * pose->t[1] + pose->t[2] * pose->t[2];
    const double eps2 = AR_LM_TINY_STEP * AR_LM_TINY_STEP;
    return dr2 <= eps2 && dt2 <= eps2 * t2;
}

double satfeat_ar_pose_refine(const double *world_xy, const double *norm_xy,
                              const double *weight, size_t n, double fx, double fy, int max_iter,
                              satfeat_ar_pose *pose)
{
    double JtJ[36], Jte[6];
    double cost = normal_equations(world_xy, norm_xy, weight, n, fx, fy, pose, JtJ, Jte);
    if (cost < 0.0 || n == 0) return n == 0 ? 0.0 : -1.0;
    double lambda = 1e-3;
    for (int it = 0; it < max_iter && lambda < 1e12; it++) {
        double A[36], b[6], step[6];
        memcpy(A, JtJ, sizeof A);
        for (int k = 0; k < 6; k++) {
            A[7 * k] += lambda * (JtJ[7 * k] > 1e-300 ? JtJ[7 * k] : 1.0);
            b[k] = -Jte[k];
        }
        if (!satfeat_ar_solve(A, b, 6, step)) {
            lambda *= 10.0;
            continue;
        }
        if (tiny_step(step, pose)) break;
        satfeat_ar_pose trial;
        apply_step(pose, step, &trial);
        double JtJ2[36], Jte2[6];
        const double c2 = normal_equations(world_xy, norm_xy, weight, n, fx, fy, &trial, JtJ2, Jte2);
        if (c2 >= 0.0 && c2 < cost) {
            const double gain = cost - c2;
            *pose = trial;
            cost = c2;
            memcpy(JtJ, JtJ2, sizeof JtJ);
            memcpy(Jte, Jte2, sizeof Jte);
            lambda = lambda * 0.1 > 1e-12 ? lambda * 0.1 : 1e-12;
            if (gain <= AR_LM_REL_GAIN * (cost + 1e-30)) break;
        } else {
            lambda *= 10.0;
        }
    }
    return satfeat_ar_pose_rms(world_xy, norm_xy, n, fx, fy, pose);
}
