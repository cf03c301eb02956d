/* eval_ellipse.h - elliptic regions for the repeatability protocol: a keypoint's circle, its
 * image under a homography (local affine approximation), bounding boxes, and the overlap error
 * of two ellipses counted on a unit grid. */
#ifndef SATFEAT_EVAL_ELLIPSE_H
#define SATFEAT_EVAL_ELLIPSE_H

/** The region {p : (p - c)^T [a b; b c] (p - c) <= 1}. */
typedef struct satfeat_ellipse {
    double cx, cy;
    double a, b, c;
} satfeat_ellipse;

/** The disc of radius r centred on (x, y). */
satfeat_ellipse satfeat_ellipse_circle(double x, double y, double r);

/**
 * Maps an ellipse through the row-major homography h: the centre exactly, the shape through
 * the Jacobian J of h at the centre (M' = (J M^-1 J^T)^-1). Returns 0 when the centre maps to
 * infinity or behind the camera (h's third row <= 0 there) or the result is degenerate.
 */
int satfeat_ellipse_map(const satfeat_ellipse *e, const double h[9], satfeat_ellipse *out);

/** Half extents of the axis-aligned bounding box. */
void satfeat_ellipse_half_box(const satfeat_ellipse *e, double *hx, double *hy);

/** Geometric-mean radius sqrt(semi-axis product) = det(M)^(-1/4). */
double satfeat_ellipse_radius(const satfeat_ellipse *e);

/** 1 when the bounding box lies inside [0, width-1] x [0, height-1]. */
int satfeat_ellipse_inside(const satfeat_ellipse *e, int width, int height);

/**
 * Overlap error 1 - |A n B| / |A u B| of the protocol: both shapes are scaled about their own
 * centres by 30 / radius(A) (centres stay put), then the points A.centre + (i, j), i, j integers,
 * are counted inside A, B and both. Returns 1 when the shapes cannot overlap.
 */
double satfeat_ellipse_overlap_error(const satfeat_ellipse *a, const satfeat_ellipse *b);

/** Inverts a row-major 3x3 matrix; returns 0 when it is singular. */
int satfeat_mat3_inverse(const double m[9], double out[9]);

#endif
