/* pool_testutil.h - frames and the reference check shared by the pool tests (test_pool.c, the
 * CPU pool; test_pool_cuda.c, the GPU pool). */
#ifndef SATFEAT_POOL_TESTUTIL_H
#define SATFEAT_POOL_TESTUTIL_H

#include "detect_synth.h"

#define N_FRAMES 9
#define W 160
#define H 120

/** N_FRAMES frames of different content and sizes (up to W x H) and their pool descriptions. */
typedef struct frames {
    uint8_t *img[N_FRAMES];
    satfeat_image_view f[N_FRAMES];
} frames;

void make_frames(frames *fr);
void free_frames(frames *fr);

/**
 * Runs `pool` twice over the frames (the second time into the sets of the first) and asserts
 * that every result equals one CPU detector's keypoints and SURF-64 descriptors, in input order
 * (device -1 for CPU pools, >= 0 for CUDA).
 */
void check_pool(satfeat_pool *pool, int cuda);

#endif
