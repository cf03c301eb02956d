/* describe_cuda.h - extern "C" launchers of the CUDA orientation and descriptor kernels
 * (detect/describe_kernels.cu) for keypoints already in device memory (internal interface).
 *
 * The launchers only enqueue work on the caller's stream; the keypoint count is read on the
 * device from d_count (clamped to max_n), and the grid depends on max_n (and the device) only,
 * so the calls can be captured in a CUDA graph and replayed whatever the count. The kernels give
 * each multiprocessor as many blocks as fit at once (orientation two, descriptor one); with a
 * spatial processing order (satfeat_describe_order_cuda, the *_ordered launchers) each block
 * works on one compact part of the image and reads the table mostly from its L1 cache. The
 * weights live in device memory owned by the caller (satfeat_describe_weights_upload). Results
 * are bit-identical to satfeat_orient_cpu / satfeat_describe_cpu. Every function returns a
 * cudaError_t as int (0 = cudaSuccess). */
#ifndef SATFEAT_DESCRIBE_CUDA_H
#define SATFEAT_DESCRIBE_CUDA_H

#include "describe_weights.h"
#include "land_dst.h"
#include "satfeat.h"

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/** Bytes of device memory the weights need (sizeof(satfeat_describe_weights)). */
size_t satfeat_describe_weights_bytes(void);

/** Queues the copy of host weights `w` (must stay valid until the copy ran; pinned memory
 *  makes it asynchronous) to device memory `d_w` of satfeat_describe_weights_bytes() bytes, and
 *  allows the kernels their shared memory on the current device (call it once outside a stream
 *  capture before capturing the launchers). */
int satfeat_describe_weights_upload(const satfeat_describe_weights *w, void *d_w, void *stream);

/**
 * Queues the spatial processing order of the keypoints i < min(*d_count, max_n) of a width x
 * height image: d_order[0 .. n-1] = the indices grouped by image cell (64 x 64 cells in Morton
 * order; arbitrary order within a cell). d_order and d_cell (scratch) hold max_n entries each.
 * One block; max_n == 0 queues nothing.
 */
int satfeat_describe_order_cuda(const satfeat_keypoint *d_kp, const uint32_t *d_count,
                                uint32_t max_n, int width, int height, uint32_t *d_order,
                                uint32_t *d_cell, void *stream);

/** An entry of a processing order (d_order below) that names no keypoint: passed over. */
#define SATFEAT_ORDER_HOLE 0xFFFFFFFEu

/** satfeat_orient_cuda taking the keypoints in the order d_order (NULL: index order): entry t <
 *  min(*d_count, max_n) is a keypoint index or SATFEAT_ORDER_HOLE, every keypoint named at most
 *  once (satfeat_describe_order_cuda's permutation on the same keypoints and count, or the
 *  detector's spatial order, whose count is its number of entries). Same results whatever the
 *  order. */
int satfeat_orient_cuda_ordered(const uint32_t *d_sat, size_t sat_stride, int width, int height,
                                satfeat_keypoint *d_kp, const uint32_t *d_count, uint32_t max_n,
                                const uint32_t *d_order, const satfeat_describe_weights *d_w,
                                satfeat_land_dst land, void *stream);

/** satfeat_describe_cuda taking the keypoints in the order d_order (as in
 *  satfeat_orient_cuda_ordered; NULL: index order). */
int satfeat_describe_cuda_ordered(const uint32_t *d_sat, size_t sat_stride, int width,
                                  int height, const satfeat_keypoint *d_kp,
                                  const uint32_t *d_count, uint32_t max_n,
                                  const uint32_t *d_order, int upright, int dim,
                                  const satfeat_describe_weights *d_w, float *d_desc,
                                  satfeat_land_dst land, void *stream);

/**
 * Queues the orientation kernel: writes d_kp[i].angle for i < min(*d_count, max_n), from the
 * device table d_sat ((width+1) x (height+1), row stride sat_stride elements), and the whole
 * keypoint to land.kp[i] for i < land.cap. One 2-warp block per keypoint at a time, in index
 * order. max_n == 0 queues nothing.
 */
int satfeat_orient_cuda(const uint32_t *d_sat, size_t sat_stride, int width, int height,
                        satfeat_keypoint *d_kp, const uint32_t *d_count, uint32_t max_n,
                        const satfeat_describe_weights *d_w, satfeat_land_dst land,
                        void *stream);

/**
 * Queues the descriptor kernel: writes dim (64 or 128; other values act as 64) floats per
 * keypoint to d_desc (descriptor i at d_desc + i*dim) for i < min(*d_count, max_n), oriented by
 * d_kp[i].angle or upright, and to land.desc for i < land.cap. One warp per keypoint, in index
 * order. max_n == 0 queues nothing.
 */
int satfeat_describe_cuda(const uint32_t *d_sat, size_t sat_stride, int width, int height,
                          const satfeat_keypoint *d_kp, const uint32_t *d_count, uint32_t max_n,
                          int upright, int dim, const satfeat_describe_weights *d_w,
                          float *d_desc, satfeat_land_dst land, void *stream);

#ifdef __cplusplus
}
#endif

#endif
