/* ar_pose.c - homography fit, IPPE rotations, translation fit and the planar pose pipeline
 * (ar_pose.h). Reference for IPPE: Collins and Bartoli, "Infinitesimal Plane-based Pose
 * Estimation", IJCV 2014: the pose is read from the homography's first-order behaviour at one
 * point of the plane, which gives exactly two candidates in closed form. */
#include "ar/ar_pose.h"
#include "ar/ar_linsolve.h"
#include "ar/ar_rotation.h"

#include <math.h>
#include <string.h>

/* Two IPPE poses whose errors are within this factor of each other both explain the data. */
#define AR_AMBIGUOUS_RATIO 1.5
/* Evidence (drop of the squared error sum in units of the variance) that settles it. */
#define AR_AMBIGUOUS_EVIDENCE 25.0
/* The largest turn of the camera between two frames a tracked pose may make (20 degrees). */
#define AR_MAX_TURN_RAD 0.349
/* Candidates whose rotations differ by less than this (radians, 2 degrees) are one solution. */
#define AR_DISTINCT_RAD 0.035

/* Centroid and scale that map a point set to centroid 0, mean distance sqrt 2. */
static int normaliser(const double *xy, size_t n, double *mx, double *my, double *s)
{
    double sx = 0, sy = 0;
    for (size_t i = 0; i < n; i++) sx += xy[2 * i], sy += xy[2 * i + 1];
    *mx = sx / (double)n;
    *my = sy / (double)n;
    double d = 0;
    for (size_t i = 0; i < n; i++) d += hypot(xy[2 * i] - *mx, xy[2 * i + 1] - *my);
    d /= (double)n;
    if (!(d > 0.0) || !isfinite(d)) return 0;
    *s = sqrt(2.0) / d;
    return 1;
}

int satfeat_ar_homography_fit(const double *src_xy, const double *dst_xy, size_t n, double h[9])
{
    if (n < 4) return 0;
    double ax, ay, as, bx, by, bs;
    if (!normaliser(src_xy, n, &ax, &ay, &as) || !normaliser(dst_xy, n, &bx, &by, &bs)) return 0;
    double N[64] = {0}, r[8] = {0}, g[8];
    for (size_t i = 0; i < n; i++) {
        const double x = (src_xy[2 * i] - ax) * as, y = (src_xy[2 * i + 1] - ay) * as;
        const double u = (dst_xy[2 * i] - bx) * bs, v = (dst_xy[2 * i + 1] - by) * bs;
        const double ru[8] = {x, y, 1, 0, 0, 0, -x * u, -y * u};
        const double rv[8] = {0, 0, 0, x, y, 1, -x * v, -y * v};
        for (int a = 0; a < 8; a++) {
            for (int b = 0; b < 8; b++) N[8 * a + b] += ru[a] * ru[b] + rv[a] * rv[b];
            r[a] += ru[a] * u + rv[a] * v;
        }
    }
    if (!satfeat_ar_solve(N, r, 8, g)) return 0;
    /* h = T_dst^-1 G T_src with T(p) = s (p - m) */
    const double G[9] = {g[0], g[1], g[2], g[3], g[4], g[5], g[6], g[7], 1.0};
    const double Ts[9] = {as, 0, -as * ax, 0, as, -as * ay, 0, 0, 1};
    const double Tdi[9] = {1.0 / bs, 0, bx, 0, 1.0 / bs, by, 0, 0, 1};
    double tmp[9], out[9];
    satfeat_ar_mat3_mul(G, Ts, tmp);
    satfeat_ar_mat3_mul(Tdi, tmp, out);
    if (!(fabs(out[8]) > 1e-300)) return 0;
    for (int k = 0; k < 9; k++) h[k] = out[k] / out[8];
    for (int k = 0; k < 9; k++)
        if (!isfinite(h[k])) return 0;
    return 1;
}

int satfeat_ar_ippe_rotations(const double h[9], double R1[9], double R2[9])
{
    const double vx = h[2], vy = h[5];
    const double J00 = h[0] - h[6] * vx, J01 = h[1] - h[7] * vx;
    const double J10 = h[3] - h[6] * vy, J11 = h[4] - h[7] * vy;
    /* Rv turns the optical axis onto the ray through v, the image of the plane's origin. */
    double Rv[9] = {1, 0, 0, 0, 1, 0, 0, 0, 1};
    const double tn = hypot(vx, vy);
    if (tn > 1e-15) {
        const double s = sqrt(tn * tn + 1.0), c = 1.0 / s, sn = tn / s;
        const double kx = -vy / tn, ky = vx / tn; /* axis z x v, unit, kz = 0 */
        Rv[0] = c + (1 - c) * kx * kx;
        Rv[1] = (1 - c) * kx * ky;
        Rv[2] = sn * ky;
        Rv[3] = (1 - c) * kx * ky;
        Rv[4] = c + (1 - c) * ky * ky;
        Rv[5] = -sn * kx;
        Rv[6] = -sn * ky;
        Rv[7] = sn * kx;
        Rv[8] = c;
    }
    /* B: the first-order projection at v in Rv's frame; A = B^-1 J */
    const double B00 = Rv[0] - vx * Rv[6], B01 = Rv[1] - vx * Rv[7];
    const double B10 = Rv[3] - vy * Rv[6], B11 = Rv[4] - vy * Rv[7];
    const double det = B00 * B11 - B01 * B10;
    if (!(fabs(det) > 1e-300)) return 0;
    const double Bi00 = B11 / det, Bi01 = -B01 / det, Bi10 = -B10 / det, Bi11 = B00 / det;
    const double A00 = Bi00 * J00 + Bi01 * J10, A01 = Bi00 * J01 + Bi01 * J11;
    const double A10 = Bi10 * J00 + Bi11 * J10, A11 = Bi10 * J01 + Bi11 * J11;
    /* largest singular value of A */
    const double fro = A00 * A00 + A01 * A01 + A10 * A10 + A11 * A11;
    const double dA = A00 * A11 - A01 * A10;
    const double disc = fro * fro - 4.0 * dA * dA;
    const double gamma = sqrt(0.5 * (fro + sqrt(disc > 0.0 ? disc : 0.0)));
    if (!(gamma > 1e-300) || !isfinite(gamma)) return 0;
    const double r00 = A00 / gamma, r01 = A01 / gamma, r10 = A10 / gamma, r11 = A11 / gamma;
    const double b00 = 1.0 - r00 * r00 - r10 * r10, b11 = 1.0 - r01 * r01 - r11 * r11;
    const double b01 = -(r00 * r01 + r10 * r11);
    double b0 = sqrt(b00 > 0.0 ? b00 : 0.0), b1 = sqrt(b11 > 0.0 ? b11 : 0.0);
    if (b01 < 0) b1 = -b1;
    for (int sol = 0; sol < 2; sol++) {
        const double sg = sol ? -1.0 : 1.0;
        const double c0[3] = {r00, r10, sg * b0}, c1[3] = {r01, r11, sg * b1};
        double c2[3];
        satfeat_ar_cross3(c0, c1, c2);
        const double M[9] = {c0[0], c1[0], c2[0], c0[1], c1[1], c2[1], c0[2], c1[2], c2[2]};
        satfeat_ar_mat3_mul(Rv, M, sol ? R2 : R1);
    }
    return 1;
}

int satfeat_ar_translation_fit(const double R[9], const double *world_xy, const double *norm_xy,
                               size_t n, double t[3])
{
    double N[9] = {0}, r[3] = {0};
    for (size_t i = 0; i < n; i++) {
        const double X[3] = {world_xy[2 * i], world_xy[2 * i + 1], 0.0};
        double P[3];
        satfeat_ar_mat3_apply(R, X, P);
        const double x = norm_xy[2 * i], y = norm_xy[2 * i + 1];
        /* t_x - x t_z = x P_z - P_x and t_y - y t_z = y P_z - P_y */
        const double ex[3] = {1, 0, -x}, ey[3] = {0, 1, -y};
        const double fxr = x * P[2] - P[0], fyr = y * P[2] - P[1];
        for (int a = 0; a < 3; a++) {
            for (int b = 0; b < 3; b++) N[3 * a + b] += ex[a] * ex[b] + ey[a] * ey[b];
            r[a] += ex[a] * fxr + ey[a] * fyr;
        }
    }
    return satfeat_ar_solve(N, r, 3, t);
}

double satfeat_ar_points_min_spread(const double *norm_xy, size_t n, double fx, double fy)
{
    if (n == 0) return 0.0;
    double mu = 0.0, mv = 0.0;
    for (size_t i = 0; i < n; i++) mu += norm_xy[2 * i] * fx, mv += norm_xy[2 * i + 1] * fy;
    mu /= (double)n;
    mv /= (double)n;
    double suu = 0.0, svv = 0.0, suv = 0.0;
    for (size_t i = 0; i < n; i++) {
        const double du = norm_xy[2 * i] * fx - mu, dv = norm_xy[2 * i + 1] * fy - mv;
        suu += du * du, svv += dv * dv, suv += du * dv;
    }
    suu /= (double)n, svv /= (double)n, suv /= (double)n;
    /* the smaller eigenvalue of the 2 x 2 covariance */
    const double half_tr = 0.5 * (suu + svv), d = 0.5 * (suu - svv);
    const double lmin = half_tr - sqrt(d * d + suv * suv);
    return lmin > 0.0 ? sqrt(lmin) : 0.0;
}

int satfeat_ar_pose_ambiguous(double rms, double other, size_t n)
{
    if (!(other >= 0.0) || !(rms > 0.0)) return 0;
    if (!(other < AR_AMBIGUOUS_RATIO * rms)) return 0;
    return (double)n * (other * other - rms * rms) / (rms * rms) < AR_AMBIGUOUS_EVIDENCE;
}

/* A pose of the centred plane (X - c) as a pose of the plane: R (X - c) + t = R X + (t - R c). */
static satfeat_ar_pose uncentred(const satfeat_ar_pose *p, double cx, double cy)
{
    satfeat_ar_pose q = *p;
    const double c3[3] = {cx, cy, 0.0};
    double Rc[3];
    satfeat_ar_mat3_apply(p->R, c3, Rc);
    for (int k = 0; k < 3; k++) q.t[k] -= Rc[k];
    return q;
}

double satfeat_ar_pose_planar(const double *world_xy, const double *norm_xy,
                              const double *weight, size_t n, double fx, double fy,
                              double *scratch, int threads, const double *prefer_R,
                              double *other_rms, satfeat_ar_pose *other_pose, int *switched,
                              satfeat_ar_pose *pose)
{
    if (other_rms) *other_rms = -1.0;
    if (switched) *switched = 0;
    if (n < 4) return -1.0;
    double cx = 0, cy = 0;
    for (size_t i = 0; i < n; i++) cx += world_xy[2 * i], cy += world_xy[2 * i + 1];
    cx /= (double)n;
    cy /= (double)n;
    double *wc = scratch;
    for (size_t i = 0; i < n; i++) {
        wc[2 * i] = world_xy[2 * i] - cx;
        wc[2 * i + 1] = world_xy[2 * i + 1] - cy;
    }
    double h[9], Rs[2][9];
    if (!satfeat_ar_homography_fit(wc, norm_xy, n, h)) return -1.0;
    if (!satfeat_ar_ippe_rotations(h, Rs[0], Rs[1])) return -1.0;
    satfeat_ar_pose cand[2];
    double err[2] = {-1.0, -1.0};
    /* the candidates are independent: on two threads the pose takes one refinement's time
     * (most of the pose stage of a CUDA frame, which is host work); a few points are not
     * worth waking a thread for */
#pragma omp parallel for num_threads(2) schedule(static, 1) if (threads >= 2 && n >= 32)
    for (int s = 0; s < 2; s++) {
        memcpy(cand[s].R, Rs[s], sizeof cand[s].R);
        if (!satfeat_ar_translation_fit(cand[s].R, wc, norm_xy, n, cand[s].t)) continue;
        const double e = satfeat_ar_pose_refine(wc, norm_xy, weight, n, fx, fy, 50, &cand[s]);
        if (e >= 0.0 && isfinite(e)) err[s] = e;
    }
    int pick = err[0] >= 0.0 && (err[1] < 0.0 || err[0] <= err[1]) ? 0 : 1;
    if (err[pick] < 0.0) return -1.0;
    const int other = 1 - pick;
    /* both candidates fit about as well (the planar ambiguity of a small or distant target):
     * the one nearer the preferred rotation, when one is given; nor does a camera turn by
     * AR_MAX_TURN between two frames, so of two such candidates one that would gives way.
     * When the data settle it, the better candidate stands even if the preferred rotation lies
     * on the other branch: the last frame's pose is then the wrong one, and keeping to it
     * would carry a first pose on the wrong branch through every tracked frame (an approaching
     * target first found far away, its tilt 40 - 60 degrees off for 20 frames while the
     * other candidate fit better from the eighth on). */
    if (err[other] >= 0.0 && prefer_R) {
        const double turn_pick = satfeat_ar_rotation_angle_between(prefer_R, cand[pick].R);
        const double turn_other = satfeat_ar_rotation_angle_between(prefer_R, cand[other].R);
        const int far_pick = turn_pick > AR_MAX_TURN_RAD && turn_other <= AR_MAX_TURN_RAD;
        if (satfeat_ar_pose_ambiguous(err[pick], err[other], n)) {
            if (turn_other < turn_pick || far_pick) pick = other;
        } else if (far_pick && switched) {
            *switched = 1;
        }
    }
    const double best = err[pick];
    if (best < 0.0) return -1.0;
    *pose = uncentred(&cand[pick], cx, cy);
    /* the other candidate counts only as a distinct solution (both may refine to one pose) */
    const int left = 1 - pick; /* pick may have changed since `other` was set */
    if (err[left] >= 0.0 &&
        satfeat_ar_rotation_angle_between(cand[0].R, cand[1].R) > AR_DISTINCT_RAD) {
        if (other_rms) *other_rms = err[left];
        if (other_pose) *other_pose = uncentred(&cand[left], cx, cy);
    }
    return best;
}
