/* detect_synth.h - synthetic images and a one-call detection helper for the detector tests. */
#ifndef SATFEAT_DETECT_SYNTH_H
#define SATFEAT_DETECT_SYNTH_H

#include "test_util.h"

/** A w x h image (stride w) of `background` plus Gaussian blobs, rounded and clamped to 0..255. */
typedef struct synth_blob {
    double x, y, sigma, amplitude; /* amplitude > 0 bright, < 0 dark */
} synth_blob;

uint8_t *synth_blobs(int w, int h, double background, const synth_blob *blobs, int n);

/** `n` random blobs (sigma 2.5..12, |amplitude| 40..100, random sign) inside a margin. */
uint8_t *synth_random_blobs(test_rng *rng, int w, int h, int n);

/**
 * Detects with `params` on a fresh CPU context with `threads` threads; returns a malloc'd list
 * (never NULL) and its length in *n. Fails the test on any error.
 */
satfeat_keypoint *synth_detect(const satfeat_detector_params *params, int threads,
                               const uint8_t *img, int w, int h, const uint8_t *mask, size_t *n);

/** Asserts that two keypoint lists are identical field by field (doubles compared bitwise). */
void synth_assert_same(const satfeat_keypoint *a, const satfeat_keypoint *b, size_t n);

#endif
