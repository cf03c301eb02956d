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

double satfeat_ar_kth_smallest(double *a, size_t n, size_t k)
{
    /* Wirth's selection: partition around a[k] until k's place is fixed */
    long l = 0, h = (long)n - 1;
    const long kk = (long)k;
    while (l < h) {
        const double x = a[kk];
        long i = l, j = h;
        do {
            while (a[i] < x) i++;
            while (x < a[j]) j--;
            if (i <= j) {
                const double t = a[i];
                a[i] = a[j], a[j] = t;
                i++, j--;
            }
        } while (i <= j);
        if (j < kk) l = i;
        if (kk < i) h = j;
    }
    return a[kk];
}

double satfeat_ar_pose_median_error(const double *world_xy, const double *norm_xy, size_t n,
                                    double fx, double fy, const satfeat_ar_pose *pose,
                                    double *scratch)
{
    for (size_t i = 0; i < n; i++) {
        const double X[3] = {world_xy[2 * i], world_xy[2 * i + 1], 0.0};
        double P[3];
        satfeat_ar_mat3_apply(pose->R, X, P);
        const double z = P[2] + pose->t[2];
        if (!(z > 0.0)) {
            scratch[i] = INFINITY;
            continue;
        }
        const double ex = fx * ((P[0] + pose->t[0]) / z - norm_xy[2 * i]);
        const double ey = fy * ((P[1] + pose->t[1]) / z - norm_xy[2 * i + 1]);
        scratch[i] = ex * ex + ey * ey;
    }
    return sqrt(satfeat_ar_kth_smallest(scratch, n, n / 2));
}

/* Huber's threshold on a point's reprojection error (px): beyond it an error counts linearly,
 * so a few wrong correspondences among the inliers of a 3 px homography pull the pose less. */
#define AR_HUBER_PX 2.0

/* Two doubles that add and multiply lane by lane (SSE2 on x86-64, NEON on arm64, else pairs of
 * scalars): each lane's IEEE operations are those of the scalar code, in the same order. */
typedef double ar_v2 __attribute__((vector_size(16)));

/* The sums of satfeat_ar_pose_normal_equations are kept two neighbouring entries of a row to
 * a vector (so row a's pairs start at the even column at or below a; the entry left of the
 * diagonal that this adds to rows 1, 3 and 5 is not read), which changes no operation of any
 * entry. */
#if defined(__GNUC__) && defined(__x86_64__) && !defined(__clang__) && !defined(__SANITIZE_THREAD__)
__attribute__((target_clones("avx2", "default")))
#endif
double satfeat_ar_pose_normal_equations(const double *world_xy, const double *norm_xy,
                               const double *weight, size_t n, double fx, double fy,
                               const satfeat_ar_pose *pose, double JtJ[36], double Jte[6])
{
    ar_v2 acc[12], g[3];
    for (int k = 0; k < 12; k++) acc[k] = (ar_v2){0.0, 0.0};
    for (int k = 0; k < 3; k++) g[k] = (ar_v2){0.0, 0.0};
    const double *R = pose->R, *t = pose->t;
    double sum = 0.0;
    for (size_t i = 0; i < n; i++) {
        const double X = world_xy[2 * i], Y = world_xy[2 * i + 1];
        /* R (X, Y, 0): the terms and order of satfeat_ar_mat3_apply, its z term included */
        const double P0 = R[0] * X + R[1] * Y + R[2] * 0.0;
        const double P1 = R[3] * X + R[4] * Y + R[5] * 0.0;
        const double P2 = R[6] * X + R[7] * Y + R[8] * 0.0;
        const double x = P0 + t[0], y = P1 + t[1], z = P2 + t[2];
        if (!(z > 0.0)) return -1.0;
        const double iz = 1.0 / z;
        const double eu = fx * (x * iz - norm_xy[2 * i]), ev = fy * (y * iz - norm_xy[2 * i + 1]);
        const double e = sqrt(eu * eu + ev * ev);
        const double wp = weight ? weight[i] : 1.0;
        const double w = wp * (e <= AR_HUBER_PX ? 1.0 : AR_HUBER_PX / e);
        sum += wp * (e <= AR_HUBER_PX ? e * e : AR_HUBER_PX * (2.0 * e - AR_HUBER_PX));
        /* d(camera point)/d(rotation increment d) = -[P]x, d/dt = I; ju = fx iz (dx - x iz dz),
         * jv = fy iz (dy - y iz dz), two components a vector */
        const ar_v2 dx[3] = {{0, P2}, {-P1, 1}, {0, 0}};
        const ar_v2 dy[3] = {{-P2, 0}, {P0, 0}, {1, 0}};
        const ar_v2 dz[3] = {{P1, -P0}, {0, 0}, {0, 1}};
        const double fxiz = fx * iz, fyiz = fy * iz, xiz = x * iz, yiz = y * iz;
        const ar_v2 FX = {fxiz, fxiz}, FY = {fyiz, fyiz}, XI = {xiz, xiz}, YI = {yiz, yiz};
        ar_v2 ju[3], jv[3];
        for (int k = 0; k < 3; k++) {
            ju[k] = FX * (dx[k] - XI * dz[k]);
            jv[k] = FY * (dy[k] - YI * dz[k]);
        }
        const ar_v2 W = {w, w}, EU = {eu, eu}, EV = {ev, ev};
        int at = 0;
        for (int a = 0; a < 6; a++) {
            const ar_v2 UA = {ju[a / 2][a % 2], ju[a / 2][a % 2]};
            const ar_v2 VA = {jv[a / 2][a % 2], jv[a / 2][a % 2]};
            for (int p = a / 2; p < 3; p++, at++) acc[at] += W * (UA * ju[p] + VA * jv[p]);
        }
        for (int p = 0; p < 3; p++) g[p] += W * (ju[p] * EU + jv[p] * EV);
    }
    int at = 0;
    for (int a = 0; a < 6; a++)
        for (int p = a / 2; p < 3; p++, at++)
            for (int l = 0; l < 2; l++)
                if (2 * p + l >= a) JtJ[6 * a + 2 * p + l] = JtJ[6 * (2 * p + l) + a] = acc[at][l];
    for (int p = 0; p < 3; p++) Jte[2 * p] = g[p][0], Jte[2 * p + 1] = g[p][1];
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
    double cost = satfeat_ar_pose_normal_equations(world_xy, norm_xy, weight, n, fx, fy, pose, JtJ,
                                                   Jte);
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
        const double c2 = satfeat_ar_pose_normal_equations(world_xy, norm_xy, weight, n, fx, fy,
                                                           &trial, JtJ2, Jte2);
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
