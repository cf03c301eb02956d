/* ar_pose.h - the camera pose of a planar target from correspondences: a homography fit, IPPE
 * (both candidate poses in closed form), Levenberg-Marquardt on the reprojection error. */
#ifndef SATFEAT_AR_POSE_H
#define SATFEAT_AR_POSE_H

#include <stddef.h>

/** A camera pose: X_cam = R X_world + t (R row-major). */
typedef struct satfeat_ar_pose {
    double R[9];
    double t[3];
} satfeat_ar_pose;

/**
 * Least-squares homography (h[8] = 1) mapping src_xy to dst_xy (n >= 4 pairs), both sets
 * normalised (centroid 0, mean distance sqrt 2) for conditioning. Returns 0 when the points
 * are degenerate or the origin-centred fit would need h[8] = 0, else 1.
 */
int satfeat_ar_homography_fit(const double *src_xy, const double *dst_xy, size_t n, double h[9]);

/**
 * IPPE: the two poses of a plane consistent with the homography `h` (plane points centred on
 * the origin, in metres -> normalised image points, h[8] = 1), from the homography's value and
 * Jacobian at the origin. R1 and R2 receive the rotations (one per sign of the plane's tilt).
 * Returns 0 for a degenerate homography, else 1.
 */
int satfeat_ar_ippe_rotations(const double h[9], double R1[9], double R2[9]);

/**
 * Least-squares translation t for a rotation R: minimises the algebraic error of the n plane
 * points world_xy (z = 0) against the normalised image points norm_xy. Returns 0 when singular.
 */
int satfeat_ar_translation_fit(const double R[9], const double *world_xy, const double *norm_xy,
                               size_t n, double t[3]);

/**
 * The normal equations of satfeat_ar_pose_refine at `pose`: J^T W J (6 x 6, row-major) and
 * J^T W e of the pixel residuals e (normalised residuals times fx, fy) of the n points, J their
 * derivatives in (rotation increment on the left, t), W a point's weight (weight[i], NULL: 1)
 * times its Huber weight (1 up to 2 px of error, 2 px / error beyond). Entry (a, b) is the sum
 * over the points, in their order, of w (ju_a ju_b + jv_a jv_b); J^T W e's of w (ju_a eu +
 * jv_a ev). Returns the Huber cost (the weighted squared error, linear beyond 2 px), or -1
 * when a point is at or behind the camera (JtJ and Jte are then unspecified).
 */
double satfeat_ar_pose_normal_equations(const double *world_xy, const double *norm_xy,
                                        const double *weight, size_t n, double fx, double fy,
                                        const satfeat_ar_pose *pose, double JtJ[36],
                                        double Jte[6]);

/**
 * Refines `pose` by Levenberg-Marquardt on the reprojection error in pixels (normalised
 * residuals times fx, fy) of the n plane points world_xy (z = 0) against the normalised image
 * points norm_xy, each point's squared error weighted by weight[i] (NULL: all 1) and counted
 * linearly beyond 2 px (Huber): 6 parameters (a rotation increment composed on the left, and
 * t), at most max_iter steps, ending once a step lowers the cost by less than 1e-8 of it or
 * moves the pose by less than 1e-10 (radians; fraction of |t|). Returns the plain (unweighted) rms error in pixels, or a
 * negative value when a point is at or behind the camera at the start (the pose is then left
 * unchanged).
 */
double satfeat_ar_pose_refine(const double *world_xy, const double *norm_xy,
                              const double *weight, size_t n, double fx, double fy, int max_iter,
                              satfeat_ar_pose *pose);

/** The k-th smallest of a[0 .. n-1] (n >= 1, k < n), by selection; reorders a. */
double satfeat_ar_kth_smallest(double *a, size_t n, size_t k);

/**
 * Median reprojection error in pixels of the n >= 1 plane points under `pose` (+infinity for a
 * point at or behind the camera); scratch: n doubles.
 */
double satfeat_ar_pose_median_error(const double *world_xy, const double *norm_xy, size_t n,
                                    double fx, double fy, const satfeat_ar_pose *pose,
                                    double *scratch);

/**
 * Root mean square reprojection error in pixels of the plane points under `pose`; a point at or
 * behind the camera makes it +infinity.
 */
double satfeat_ar_pose_rms(const double *world_xy, const double *norm_xy, size_t n, double fx,
                           double fy, const satfeat_ar_pose *pose);

/**
 * How far n image points (normalised, as satfeat_ar_pose_planar's norm_xy) spread in their
 * narrowest direction, in pixels (focal lengths fx, fy): the standard deviation along the
 * minor axis of their covariance; 0 for n = 0 or points on a line. A plane's tilt about an axis
 * shows in the points' foreshortening across it, so points this close to a line leave it open.
 */
double satfeat_ar_points_min_spread(const double *norm_xy, size_t n, double fx, double fy);

/**
 * Whether two pose candidates explain n correspondences about equally well (the planar
 * two-fold ambiguity): the other's rms error `other` (px) is within 1.5x of the chosen one's
 * `rms`, and the evidence n (other^2 - rms^2) / rms^2 (the drop of the squared error sum in
 * units of the chosen one's variance) is below 25, so many correspondences settle a small
 * difference that few cannot. A negative `other` (no distinct candidate) is never ambiguous.
 */
int satfeat_ar_pose_ambiguous(double rms, double other, size_t n);

/**
 * The pose of a plane from n >= 4 correspondences: plane points world_xy (metres, z = 0) and
 * their normalised image points norm_xy (undistorted), weights as satfeat_ar_pose_refine's
 * (NULL: all 1). Centres the plane points, fits the homography, takes both IPPE poses with
 * their least-squares translations, refines each by Levenberg-Marquardt and keeps the one with
 * the smaller reprojection error, or, when the two are ambiguous (satfeat_ar_pose_ambiguous)
 * and `prefer_R` (the last frame's rotation, may be NULL) is given, the one nearer prefer_R,
 * and a candidate more than 20 degrees from it gives way to one within 20 degrees. When they
 * are not ambiguous the better one stands; if that one lies more than 20 degrees from prefer_R
 * and the other within, *switched (may be NULL; else 0) is set to 1: the data left the
 * preferred branch. *other_rms (may be NULL) receives the error of the candidate not taken, or
 * a negative value when it failed or refined to within 2 degrees of the one taken; *other_pose
 * (may be NULL) receives that candidate's pose when *other_rms would be set. `scratch`
 * holds 2n doubles. With `threads` >= 2 the two candidates are refined at once on two threads;
 * each one's arithmetic is the same, so the answer is the same bits whatever `threads`.
 * Returns the rms error in pixels, or a negative value when no pose puts every point in front
 * of the camera.
 */
double satfeat_ar_pose_planar(const double *world_xy, const double *norm_xy,
                              const double *weight, size_t n, double fx, double fy,
                              double *scratch, int threads, const double *prefer_R,
                              double *other_rms, satfeat_ar_pose *other_pose, int *switched,
                              satfeat_ar_pose *pose);

#endif
