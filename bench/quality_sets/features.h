/* features.h - keypoints with descriptors of one image, from libsatfeat or from a file that
 * another detector (bench/quality_sets/opencv_features.py) wrote, and the matching protocol of
 * satfeat_eval_matching for any descriptor (float L2 or binary Hamming). */
#ifndef SATFEAT_EVAL_FEATURES_H
#define SATFEAT_EVAL_FEATURES_H

#include "satfeat.h"

#include <stddef.h>
#include <stdint.h>

/* One image's features. Float descriptors: dim floats per keypoint in desc; binary: dim bytes
 * per keypoint in bits (Hamming distance). */
typedef struct satfeat_ev_features {
    size_t n;
    int dim;
    int binary;
    int width, height;
    satfeat_keypoint *kp;
    float *desc;
    uint8_t *bits;
} satfeat_ev_features;

/* Descriptor post-processing measured by the harness (levers that need no library change). */
typedef enum satfeat_ev_norm {
    SATFEAT_EV_NORM_NONE = 0, /* the library's unit L2 vectors */
    SATFEAT_EV_NORM_ROOT,     /* L1-normalise, signed square root (unit L2 again) */
} satfeat_ev_norm;

/* Reads a feature file (format in opencv_features.py); returns 0 on success. */
int satfeat_ev_features_read(const char *path, int width, int height, satfeat_ev_features *f);

/* Applies `norm` to float descriptors in place. */
void satfeat_ev_features_normalise(satfeat_ev_features *f, satfeat_ev_norm norm);

/* Frees the arrays of f (not f itself). */
void satfeat_ev_features_free(satfeat_ev_features *f);

/* One match of the harness's own matcher. */
typedef struct satfeat_ev_match {
    int query, train;
    float dist2; /* squared L2 (float) or Hamming distance */
} satfeat_ev_match;

/* Mutual nearest neighbours passing the ratio test (on distances) with an optional same-
 * Laplacian gate, as satfeat_match_descriptors defines them (float distances summed in its
 * order, so libsatfeat descriptors give its matches exactly). m must hold a->n entries;
 * returns the number of matches, or -1 when out of memory. */
long satfeat_ev_match_all(const satfeat_ev_features *a, const satfeat_ev_features *b,
                          double ratio, int same_laplacian, satfeat_ev_match *m);

/* Squared distance of descriptor i of a and j of b (Hamming for binary). */
float satfeat_ev_dist(const satfeat_ev_features *a, size_t i, const satfeat_ev_features *b, size_t j);

/* Scores of one pair under h (image 1 -> 2), the definitions of satfeat_eval_matching. */
typedef struct satfeat_ev_score {
    size_t n1, n2, matches, correct;
    double matching_score, precision;
} satfeat_ev_score;

/* Scores matches m[0..nm) of a -> b under h1to2. Returns 0 on success. */
int satfeat_ev_score_matches(const satfeat_ev_features *a, const satfeat_ev_features *b,
                             const double h1to2[9], const satfeat_ev_match *m, size_t nm,
                             satfeat_ev_score *s);

/* Maps (x, y) through h; 0 when the point goes to or behind infinity. */
int satfeat_ev_map(const double h[9], double x, double y, double *ox, double *oy);

#endif
