/* features_testutil.h - feature sets for the tests: arrays turned into a set, and the one helper
 * that detects a frame into a set. */
#ifndef SATFEAT_FEATURES_TESTUTIL_H
#define SATFEAT_FEATURES_TESTUTIL_H

#include "satfeat.h"

#include <stddef.h>
#include <stdint.h>

/** A new set holding copies of n keypoints and their descriptors (dim floats each, 0: none)
 *  found in a width x height image; fails the test when it cannot be made. */
satfeat_features *test_features_of(const satfeat_keypoint *kp, const float *desc, size_t n,
                                   int dim, int width, int height);

/** Detects the host frame (width x height, `stride` bytes a row) with `det`, whose descriptor
 *  is `kind`, into *features (created when NULL, else refilled) with its descriptors unless kind
 *  is NONE; returns the detector's status (SATFEAT_OK, or its error with the set left empty).
 *  Uses no cmocka assertion, so threads may call it. */
satfeat_status test_detect_set(satfeat_detector *det, satfeat_descriptor_kind kind,
                               const uint8_t *img, int width, int height, size_t stride,
                               satfeat_features **features);

#endif
