/* match_testutil.h - random matching problems for the matcher tests: unit descriptors, half of
 * the trains noisy copies of queries (so real matches exist), positions, Laplacian signs. */
#ifndef SATFEAT_MATCH_TESTUTIL_H
#define SATFEAT_MATCH_TESTUTIL_H

#include "features_testutil.h"
#include "test_util.h"

typedef struct match_set {
    satfeat_keypoint *kp1, *kp2;
    float *desc1, *desc2;
    double *predicted; /* n1 (x, y): the query position shifted by (5, -3) */
    size_t n1, n2;
    int dim;
} match_set;

/** A random set in a 640 x 480 frame; `noise` is the perturbation of the copied trains. */
match_set match_set_random(test_rng *r, size_t n1, size_t n2, int dim, float noise);

/** Frees a set. */
void match_set_free(match_set *s);

/**
 * The public matcher on arrays: copies them into two feature sets (640 x 480 images) and runs
 * satfeat_match, or satfeat_match_guided when pred is not NULL, into *out (the
 * `satfeat_matches **` convention). Returns the call's status.
 */
satfeat_status match_arrays(satfeat_ctx *ctx, const satfeat_keypoint *kp1, const float *desc1,
                            size_t n1, const satfeat_keypoint *kp2, const float *desc2, size_t n2,
                            int dim, const double *pred, const satfeat_match_params *p,
                            satfeat_matches **out);

/** Matching parameters with every field given. */
satfeat_match_params match_params_of(double ratio, int mutual, int lap, double radius);

/** match_arrays on the set `s`, asserting SATFEAT_OK: returns the count and a malloc'd copy
 *  of the matches in *out. */
size_t match_run(satfeat_ctx *ctx, const match_set *s, const double *pred,
                 const satfeat_match_params *p, satfeat_match_pair **out);

/** Normalises v (dim floats) to unit length (unchanged when zero). */
void match_normalise(float *v, int dim);

#endif
