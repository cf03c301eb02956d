/* describe_cpu.h - orientation and SURF descriptors of a keypoint list on the CPU, from the u32
 * summed area table of the image the keypoints were detected in (internal interface). */
#ifndef SATFEAT_DESCRIBE_CPU_H
#define SATFEAT_DESCRIBE_CPU_H

#include "describe_weights.h"
#include "satfeat.h"

#include <stddef.h>
#include <stdint.h>

/**
 * Writes kp[i].angle (radians in [0, 2 pi), orientation.h) for i < n. `sat` is the
 * (width+1) x (height+1) table with row stride `sat_stride` elements; `w` from
 * satfeat_describe_weights_init. OpenMP over keypoints with `threads` threads (<= 1: serial);
 * the result does not depend on the thread count. Nothing is validated: the caller checks sizes.
 */
void satfeat_orient_cpu(const uint32_t *sat, size_t sat_stride, int width, int height,
                        satfeat_keypoint *kp, size_t n, const satfeat_describe_weights *w,
                        int threads);

/**
 * Writes the descriptors of kp[0 .. n-1] to desc (n * dim floats, descriptor i at desc + i*dim):
 * dim 64 or 128 (any other value is treated as 64), oriented by kp[i].angle, or upright (angle
 * taken as 0) when `upright` is non-zero. Threads and the table as for satfeat_orient_cpu.
 */
void satfeat_describe_cpu(const uint32_t *sat, size_t sat_stride, int width, int height,
                          const satfeat_keypoint *kp, size_t n, int upright, int dim,
                          const satfeat_describe_weights *w, float *desc, int threads);

/** Which CPU implementation computes (all give the same bits; the tests prove it): the fast path
 *  (the default), the fast path with every table read clamped as at the border, or the
 *  per-sample functions of orientation.h / descriptor.h in sequence (the reference the CUDA
 *  kernels follow). */
typedef enum satfeat_desc_path {
    SATFEAT_DESC_PATH_FAST = 0,
    SATFEAT_DESC_PATH_CLAMPED = 1,
    SATFEAT_DESC_PATH_REFERENCE = 2
} satfeat_desc_path;

/** satfeat_orient_cpu computed by the given path. */
void satfeat_orient_cpu_path(const uint32_t *sat, size_t sat_stride, int width, int height,
                             satfeat_keypoint *kp, size_t n, const satfeat_describe_weights *w,
                             int threads, satfeat_desc_path path);

/** satfeat_describe_cpu computed by the given path. */
void satfeat_describe_cpu_path(const uint32_t *sat, size_t sat_stride, int width, int height,
                               const satfeat_keypoint *kp, size_t n, int upright, int dim,
                               const satfeat_describe_weights *w, float *desc, int threads,
                               satfeat_desc_path path);

#endif
