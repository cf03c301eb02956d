/* ar_rotation.h - 3x3 rotations for the AR pose: Rodrigues vectors both ways, products and
 * the small vector helpers the pose solvers share. Matrices are row-major double[9]. */
#ifndef SATFEAT_AR_ROTATION_H
#define SATFEAT_AR_ROTATION_H

/** R = exp([r]x): the rotation of angle |r| about r / |r| (the identity for r = 0). */
void satfeat_ar_rodrigues_to_matrix(const double r[3], double R[9]);

/**
 * r = log(R) for a rotation matrix R: |r| in [0, pi], through the unit quaternion of R
 * (Shepperd's branch choice), so it is accurate near 0 and near pi alike.
 */
void satfeat_ar_matrix_to_rodrigues(const double R[9], double r[3]);

/** c = a b for 3x3 matrices (c may not alias a or b). */
void satfeat_ar_mat3_mul(const double a[9], const double b[9], double c[9]);

/** y = A x for a 3x3 matrix (y may not alias x). */
void satfeat_ar_mat3_apply(const double A[9], const double x[3], double y[3]);

/** c = a x b. */
void satfeat_ar_cross3(const double a[3], const double b[3], double c[3]);

/** Angle in radians of the rotation R_a^T R_b (the rotation error between two poses). */
double satfeat_ar_rotation_angle_between(const double Ra[9], const double Rb[9]);

#endif
