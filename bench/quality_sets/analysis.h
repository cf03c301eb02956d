/* analysis.h - where matches are lost: per pair, the image-1 keypoints that have a partner
 * within 3 px in image 2, their orientation and scale errors against the homography, the
 * descriptor distances of true and nearest false pairs, and which rule lost each of them. */
#ifndef SATFEAT_EVAL_ANALYSIS_H
#define SATFEAT_EVAL_ANALYSIS_H

#include "features.h"

#include <stdio.h>

/* Writes the TSV header of satfeat_ev_analyse's rows. */
void satfeat_ev_analyse_header(FILE *out);

/* Analyses pair 1->k (matches m[0..nm) of the harness's matcher) and writes one row. */
void satfeat_ev_analyse(FILE *out, const char *set, const char *role, int k,
                        const satfeat_ev_features *a, const satfeat_ev_features *b,
                        const double h[9], const satfeat_ev_match *m, size_t nm, int same_lap);

#endif
