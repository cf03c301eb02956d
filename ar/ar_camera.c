/* ar_camera.c - pinhole projection with radial distortion k1, k2 and its inverse (ar_camera.h),
 * the public satfeat_ar_camera_from_fov and satfeat_ar_project_points. */
#include "ar/ar_camera.h"
#include "ar/ar_rotation.h"

#include <math.h>

#define AR_PI 3.14159265358979323846

int satfeat_ar_camera_valid(const satfeat_ar_camera *cam)
{
    if (!cam) return 0;
    const double f[6] = {cam->fx, cam->fy, cam->cx, cam->cy, cam->k1, cam->k2};
    for (int k = 0; k < 6; k++)
        if (!isfinite(f[k])) return 0;
    return cam->fx > 0 && cam->fy > 0;
}

/* r (1 + k1 r^2 + k2 r^4) and its derivative in r. */
static double radial(const satfeat_ar_camera *cam, double r, double *deriv)
{
    const double r2 = r * r;
    if (deriv) *deriv = 1.0 + r2 * (3.0 * cam->k1 + 5.0 * cam->k2 * r2);
    return r * (1.0 + r2 * (cam->k1 + cam->k2 * r2));
}

void satfeat_ar_normalized_to_pixel(const satfeat_ar_camera *cam, double x, double y, double *u,
                                    double *v)
{
    const double r2 = x * x + y * y;
    const double g = 1.0 + r2 * (cam->k1 + cam->k2 * r2);
    *u = cam->fx * x * g + cam->cx;
    *v = cam->fy * y * g + cam->cy;
}

/* Where the distortion r (1 + k1 r^2 + k2 r^4) stops increasing: the square of the smallest
 * radius at which its derivative, 1 + 3 k1 q + 5 k2 q^2 in q = r^2 (1 at q = 0), turns 0, or
 * +infinity when it never does. The roots of the quadratic in the cancellation-free form. */
static double fold_radius2(const satfeat_ar_camera *cam)
{
    const double a = 5.0 * cam->k2, b = 3.0 * cam->k1;
    const double disc = b * b - 4.0 * a;
    if (disc < 0.0) return INFINITY;
    const double t = -0.5 * (b + copysign(sqrt(disc), b));
    double q = INFINITY;
    if (t != 0.0 && 1.0 / t > 0.0) q = 1.0 / t;
    if (a != 0.0 && t / a > 0.0 && t / a < q) q = t / a;
    return q;
}

/* The inverse of the radial factor on its increasing branch [0, fold) by Newton steps kept
 * inside a bracket (bisection where a step leaves it), from the bracket's middle: slow, but it
 * needs no starting point; the fallback of satfeat_ar_undistort_radius. */
static int undistort_radius_bracketed(const satfeat_ar_camera *cam, double rd, double fold2,
                                      double *ru)
{
    double lo = 0.0, hi, d;
    if (isfinite(fold2)) {
        hi = sqrt(fold2);
        if (!(radial(cam, hi, NULL) > rd)) return 0; /* beyond the branch's largest radius */
    } else {
        /* increasing everywhere: double until the bracket holds rd */
        hi = rd;
        for (int k = 0; radial(cam, hi, NULL) < rd; k++) {
            if (k > 60) return 0;
            lo = hi;
            hi *= 2.0;
        }
    }
    double r = 0.5 * (lo + hi);
    for (int it = 0; it < 200; it++) {
        const double f = radial(cam, r, &d) - rd;
        if (f > 0) hi = r;
        else lo = r;
        double next = (d > 0.0) ? r - f / d : 0.5 * (lo + hi);
        if (!(next > lo && next < hi)) next = 0.5 * (lo + hi);
        if (fabs(next - r) <= 1e-15 * (1.0 + r) || hi - lo <= 1e-15 * (1.0 + r)) {
            r = next;
            break;
        }
        r = next;
    }
    if (!(r * r < fold2)) return 0;
    *ru = r;
    return 1;
}

/* Newton steps on the radius end once a step is below this fraction of it: the error left
 * after a step delta is about |f''/2f'| delta^2, under 1e-16 of the radius for the
 * distortions a frame can have (a root near the fold, where f' nears 0, takes more steps or the bracketed fallback). */
#define AR_NEWTON_REL_STEP 1e-8
/* More steps than this means a start outside Newton's basin: the bracketed inverse then. */
#define AR_NEWTON_MAX_STEPS 8

/* Newton's start is the series inverse of the radial factor, rd (1 - k1 rd^2 + (3 k1^2 - k2)
 * rd^4), already close for the distortion of a frame (about three steps to full precision
 * instead of the bracket's ~10); a root it reaches counts only when the factor increases all
 * the way up to it (then it is the one root on the first branch). */
int satfeat_ar_undistort_radius(const satfeat_ar_camera *cam, double rd, double *ru, int *steps)
{
    if (steps) *steps = 0;
    if (rd == 0.0 || (cam->k1 == 0.0 && cam->k2 == 0.0)) {
        *ru = rd;
        return 1;
    }
    const double fold2 = fold_radius2(cam);
    const double rd2 = rd * rd;
    double r = rd * (1.0 + rd2 * (-cam->k1 + (3.0 * cam->k1 * cam->k1 - cam->k2) * rd2));
    if (!(r > 0.0 && r < 2.0 * rd)) r = rd;
    for (int it = 1; it <= AR_NEWTON_MAX_STEPS; it++) {
        double d;
        const double f = radial(cam, r, &d) - rd;
        if (!(d > 0.0)) break;
        const double step = f / d;
        r -= step;
        if (!(r > 0.0)) break;
        if (fabs(step) <= AR_NEWTON_REL_STEP * r) {
            if (!(r * r < fold2)) break;
            if (steps) *steps = it;
            *ru = r;
            return 1;
        }
    }
    if (steps) *steps = -1;
    return undistort_radius_bracketed(cam, rd, fold2, ru);
}

int satfeat_ar_pixel_to_normalized(const satfeat_ar_camera *cam, double u, double v, double *x,
                                   double *y)
{
    const double xd = (u - cam->cx) / cam->fx, yd = (v - cam->cy) / cam->fy;
    const double rd = sqrt(xd * xd + yd * yd);
    double ru;
    if (!satfeat_ar_undistort_radius(cam, rd, &ru, NULL)) return 0;
    const double s = rd > 0.0 ? ru / rd : 1.0;
    *x = xd * s;
    *y = yd * s;
    return 1;
}

int satfeat_ar_undistort_pixel(const satfeat_ar_camera *cam, double u, double v, double *uu,
                               double *vu)
{
    double x, y;
    if (!satfeat_ar_pixel_to_normalized(cam, u, v, &x, &y)) return 0;
    *uu = cam->fx * x + cam->cx;
    *vu = cam->fy * y + cam->cy;
    return 1;
}

satfeat_status satfeat_ar_camera_check(satfeat_ctx *ctx, const satfeat_ar_camera *cam, int width,
                                       int height)
{
    if (!satfeat_ar_camera_valid(cam))
        return satfeat_fail(ctx, SATFEAT_ERR_ARG,
                            "camera: fx, fy, cx, cy, k1, k2 must be finite and fx, fy > 0");
    if (width < 1 || height < 1)
        return satfeat_fail(ctx, SATFEAT_ERR_ARG, "camera: frame size %dx%d", width, height);
    /* The largest distorted radius of the frame is at a corner (pixel centres -0.5 .. w-0.5). */
    double rd_max = 0.0;
    for (int c = 0; c < 4; c++) {
        const double u = (c & 1) ? width - 0.5 : -0.5, v = (c & 2) ? height - 0.5 : -0.5;
        const double xd = (u - cam->cx) / cam->fx, yd = (v - cam->cy) / cam->fy;
        const double rd = sqrt(xd * xd + yd * yd);
        if (rd > rd_max) rd_max = rd;
    }
    /* f must increase from 0 up to the radius reaching rd_max: walk it in small steps. */
    double ru;
    if (!satfeat_ar_undistort_radius(cam, rd_max, &ru, NULL))
        return satfeat_fail(ctx, SATFEAT_ERR_ARG,
                            "camera: distortion k1 %g, k2 %g folds over inside the %dx%d frame "
                            "(a pixel would have two rays)", cam->k1, cam->k2, width, height);
    for (int k = 1; k <= 1000; k++) {
        double d;
        radial(cam, ru * k / 1000.0, &d);
        if (!(d > 0.0))
            return satfeat_fail(ctx, SATFEAT_ERR_ARG,
                                "camera: distortion k1 %g, k2 %g folds over inside the %dx%d "
                                "frame (a pixel would have two rays)", cam->k1, cam->k2, width,
                                height);
    }
    return SATFEAT_OK;
}

satfeat_status satfeat_ar_camera_from_fov(int width, int height, double hfov_degrees,
                                          satfeat_ar_camera *out)
{
    if (!out || width < 1 || height < 1 || !(hfov_degrees > 0.0 && hfov_degrees < 180.0))
        return SATFEAT_ERR_ARG;
    const double f = 0.5 * width / tan(0.5 * hfov_degrees * AR_PI / 180.0);
    out->fx = out->fy = f;
    out->cx = 0.5 * (width - 1);
    out->cy = 0.5 * (height - 1);
    out->k1 = out->k2 = 0.0;
    return SATFEAT_OK;
}

satfeat_status satfeat_ar_project_points(const satfeat_ar_camera *camera, const double rvec[3],
                                         const double tvec[3], const double *xyz, size_t n,
                                         double *uv)
{
    if (!satfeat_ar_camera_valid(camera) || !rvec || !tvec || (n > 0 && (!xyz || !uv)))
        return SATFEAT_ERR_ARG;
    double R[9];
    satfeat_ar_rodrigues_to_matrix(rvec, R);
    for (size_t i = 0; i < n; i++) {
        double c[3];
        satfeat_ar_mat3_apply(R, xyz + 3 * i, c);
        c[0] += tvec[0], c[1] += tvec[1], c[2] += tvec[2];
        if (!(c[2] > 0.0)) {
            uv[2 * i] = uv[2 * i + 1] = NAN;
            continue;
        }
        satfeat_ar_normalized_to_pixel(camera, c[0] / c[2], c[1] / c[2], &uv[2 * i],
                                       &uv[2 * i + 1]);
    }
    return SATFEAT_OK;
}
