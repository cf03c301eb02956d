/* match_testutil.h - random matching problems for the matcher tests: unit descriptors, half of
 * the trains noisy copies of queries (so real matches exist), positions, Laplacian signs. */
#ifndef SATFEAT_MATCH_TESTUTIL_H
#define SATFEAT_MATCH_TESTUTIL_H

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

/** Normalises v (dim floats) to unit length (unchanged when zero). */
void match_normalise(float *v, int dim);

#endif
