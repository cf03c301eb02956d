/* detect_cuda_util.h - helpers of the CUDA detector tests: detection into a fresh list and the
 * CPU-versus-GPU comparison (same count, memcmp-identical keypoints in the same order). */
#ifndef SATFEAT_DETECT_CUDA_UTIL_H
#define SATFEAT_DETECT_CUDA_UTIL_H

#include "test_util.h"

/** Detects with satfeat_detect; returns a malloc'd copy of the list, *n its size. */
satfeat_keypoint *dcu_detect(satfeat_detector *det, const uint8_t *img, size_t stride, int w,
                             int h, const uint8_t *mask, size_t mask_stride, size_t *n);

/** Asserts that `cpu` and `gpu` detectors return identical lists for the frame; returns n. */
size_t dcu_assert_same(satfeat_detector *cpu, satfeat_detector *gpu, const uint8_t *img,
                       size_t stride, int w, int h, const uint8_t *mask, size_t mask_stride);

/** A CPU and a GPU detector with the same parameters and maximum size. */
typedef struct dcu_pair {
    satfeat_ctx *cpu_ctx, *gpu_ctx;
    satfeat_detector *cpu, *gpu;
} dcu_pair;

/** Creates the pair (the GPU context through test_cuda_ctx_or_skip; CPU with 2 threads). */
dcu_pair dcu_pair_new(const satfeat_detector_params *p, int max_w, int max_h);

/** Destroys both detectors and contexts. */
void dcu_pair_delete(dcu_pair *q);

/** 1 when SATFEAT_TEST_SMALL is set (sanitizer runs): tests use smaller inputs. */
int dcu_small(void);

#endif
