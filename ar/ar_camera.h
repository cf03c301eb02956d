/* ar_camera.h - the pinhole camera with radial distortion of the AR session (satfeat_ar_camera):
 * pixels to normalised rays and back. */
#ifndef SATFEAT_AR_CAMERA_H
#define SATFEAT_AR_CAMERA_H

#include "src/context_internal.h"

/** 1 when every field is finite and fx, fy > 0, else 0. */
int satfeat_ar_camera_valid(const satfeat_ar_camera *cam);

/** Normalised (x, y) -> pixel (u, v), distortion applied. */
void satfeat_ar_normalized_to_pixel(const satfeat_ar_camera *cam, double x, double y, double *u,
                                    double *v);

/**
 * The undistorted normalised radius *ru whose distorted radius r (1 + k1 r^2 + k2 r^4) is rd >= 0:
 * Newton's method from the series inverse of the distortion, checked to lie where the
 * distortion still increases; should it not converge there, Newton steps kept inside a bracket
 * (bisection where a step leaves it). *steps (may be NULL) receives the Newton steps taken, 0
 * without distortion, -1 when the bracketed fallback ran. Returns 0 when rd lies beyond the
 * monotonic part of the distortion (no unique ray), else 1.
 */
int satfeat_ar_undistort_radius(const satfeat_ar_camera *cam, double rd, double *ru, int *steps);

/**
 * Pixel (u, v) -> normalised undistorted (x, y), the radius inverted by
 * satfeat_ar_undistort_radius. Returns 0 when the pixel has no unique ray, else 1.
 */
int satfeat_ar_pixel_to_normalized(const satfeat_ar_camera *cam, double u, double v, double *x,
                                   double *y);

/**
 * Pixel -> the pixel of the same ray in the undistorted (pinhole) image of the camera: (fx x + cx,
 * fy y + cy). Returns 0 where satfeat_ar_pixel_to_normalized does.
 */
int satfeat_ar_undistort_pixel(const satfeat_ar_camera *cam, double u, double v, double *uu,
                               double *vu);

/**
 * Checks a camera for frames of width x height: valid fields, and a distortion that is
 * monotonic out to the frame's corners (every pixel one ray). SATFEAT_ERR_ARG with the reason.
 */
satfeat_status satfeat_ar_camera_check(satfeat_ctx *ctx, const satfeat_ar_camera *cam, int width,
                                       int height);

#endif
