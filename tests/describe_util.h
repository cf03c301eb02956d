/* describe_util.h - helpers of the descriptor tests: a textured synthetic image (anisotropic
 * Gaussian blobs) rendered under a similarity transform, a bilinear rotation, and detection plus
 * the u32 table of an image in one call. */
#ifndef SATFEAT_DESCRIBE_UTIL_H
#define SATFEAT_DESCRIBE_UTIL_H

#include "describe/describe_weights.h"
#include "test_util.h"

/** One elongated Gaussian blob of the texture. */
typedef struct du_blob {
    double x, y, s_major, s_minor, theta, amplitude;
} du_blob;

/** `n` random blobs covering a w x h image (sigmas 2..10, aspect 0.3..0.8, |amplitude| 30..80). */
du_blob *du_random_blobs(test_rng *rng, int w, int h, int n);

/**
 * Renders the blobs on 128 after mapping them by p' = scale * R(angle) (p - c) + c' with
 * c = (cx, cy), c' = (ox, oy) (pixel-centre coordinates), into a malloc'd w x h image.
 */
uint8_t *du_render(const du_blob *b, int n, int w, int h, double scale, double angle, double cx,
                   double cy, double ox, double oy);

/** img rotated by `angle` about (cx, cy) with bilinear interpolation: out(p) = img(R(-angle)
 *  (p - c) + c); points falling outside get 128. Same size as the input. */
uint8_t *du_rotate_bilinear(const uint8_t *img, int w, int h, double angle, double cx, double cy);

/** The image rotated by exactly 90 degrees: out(h-1-y, x) = img(x, y); the result is h x w. */
uint8_t *du_rotate90(const uint8_t *img, int w, int h);

/** Naive tight (w+1) x (h+1) u32 table of the image (malloc'd). */
uint32_t *du_table(const uint8_t *img, int w, int h);

/** Detects keypoints (default parameters, at most max_kp when > 0) with a CPU detector. */
satfeat_keypoint *du_detect(const uint8_t *img, int w, int h, int max_kp, size_t *n);

/** A describe-test fixture: `blobs` random blobs (seed `seed`) rendered at w x h, its u32 table
 *  its CPU keypoints (at most max_kp when > 0) and the describe weights. */
typedef struct du_scene {
    du_blob *blobs;
    uint8_t *img;
    uint32_t *table;
    satfeat_keypoint *kp;
    size_t n;
    satfeat_describe_weights wt; /* the describe stage's weights */
} du_scene;

/** Makes a du_scene (every allocation checked by the test framework). */
du_scene du_scene_make(int w, int h, uint64_t seed, int blobs, int max_kp);

/** Frees a du_scene. */
void du_scene_free(du_scene *s);

/** Nearest neighbour (L2) of descriptor q among the n descriptors of set (dim floats each). */
size_t du_nearest(const float *q, const float *set, size_t n, int dim);

#endif
