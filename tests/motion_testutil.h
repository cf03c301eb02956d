/* motion_testutil.h - correspondence sets for the motion tests: a known model of each kind plus
 * noise, outliers and hard cases (degenerate samples, extreme coordinates, clustered points,
 * tied qualities), from a seed. */
#ifndef SATFEAT_MOTION_TESTUTIL_H
#define SATFEAT_MOTION_TESTUTIL_H

#include "test_util.h"

/** How a problem's correspondences are laid out. */
typedef enum motion_flavour {
    MOTION_PLAIN = 0,   /* 1920 x 1080 frame, inliers with 0.5 px noise, outliers uniform */
    MOTION_DEGENERATE,  /* half the points on a few lines or repeated: many degenerate samples */
    MOTION_EXTREME,     /* coordinates around 1e7 px, outliers up to 1e12 px away (finite) */
    MOTION_CLUSTERED,   /* every point within 0.01 px of one of 5 centres */
    MOTION_TIED,        /* plain, with qualities of three values only (ties in the order) */
    MOTION_FLAVOURS
} motion_flavour;

/** n correspondences src[2i], src[2i+1] -> dst[2i], dst[2i+1] with a quality each. */
typedef struct motion_problem {
    size_t n;
    double *src, *dst;
    float *quality;
} motion_problem;

/**
 * Makes a problem of n correspondences (n may be 0): a fraction `inliers` of them follow a
 * plausible model of the kind, the rest are outliers; qualities favour the inliers with overlap.
 */
void motion_problem_make(motion_problem *p, satfeat_motion_model model, size_t n, double inliers,
                         motion_flavour flavour, uint64_t seed);

/** Uniform double in [lo, hi). */
double motion_urand(test_rng *r, double lo, double hi);

/** Frees the arrays of a problem. */
void motion_problem_free(motion_problem *p);

#endif
