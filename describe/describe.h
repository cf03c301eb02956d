/* describe.h - the seam of the describe module: orientations and SURF descriptors of keypoint
 * lists from the u32 summed area table of their image, on the CPU (describe_cpu.c) and as CUDA
 * launchers (describe_kernels.cu). The detector's frame pipeline is its one client; the per-item
 * arithmetic both sides run lives in orientation.h and descriptor.h, the weights they read in
 * describe_weights.h.
 *
 * CUDA launchers only enqueue work on the caller's stream; the keypoint count is read on the
 * device from d_count (clamped to max_n), and the grid depends on max_n (and the device) only,
 * so the calls can be captured in a CUDA graph and replayed whatever the count. The kernels give
 * each multiprocessor as many blocks as fit at once (orientation two, descriptor one); with a
 * spatial processing order (satfeat_describe_order_cuda, the *_ordered launchers) each block
 * works on one compact part of the image and reads the table mostly from its L1 cache. The
 * weights live in device memory owned by the caller (satfeat_describe_weights_upload). Results
 * are bit-identical to satfeat_orient_cpu / satfeat_describe_cpu. Every launcher returns a
 * cudaError_t as int (0 = cudaSuccess). */
#ifndef SATFEAT_DESCRIBE_H
#define SATFEAT_DESCRIBE_H

#include "describe/describe_weights.h"
#include "satfeat.h"
#include "src/land_dst.h"

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/**
 * Writes kp[i].angle (radians in [0, 2 pi), orientation.h) for i < n. `sat` is the
 * (width+1) x (height+1) table with row stride `sat_stride` elements; `w` from
 * satfeat_describe_weights_init. OpenMP over keypoints with `threads` threads (<= 1: serial);
 * the result does not depend on the thread count. Nothing is validated: the caller checks sizes.
 */
void satfeat_orient_cpu(const uint32_t *sat, size_t sat_stride, int width, int height,
                        satfeat_keypoint *kp, size_t n, const satfeat_describe_weights *w,
                        int threads);

/** Descriptor flags (the `flags` argument below, or-ed): upright (angle taken as 0). */
#define SATFEAT_DESC_UPRIGHT 1
/** Descriptor flag: root normalisation (descriptor.h, satfeat_desc_value) instead of unit L2. */
#define SATFEAT_DESC_ROOT 2

/** The descriptor flags of detector parameters: upright, and the root normalisation unless
 *  descriptor_norm is SATFEAT_DESCRIPTOR_NORM_L2. */
static inline int satfeat_desc_flags(const satfeat_detector_params *p)
{
    return (p->upright ? SATFEAT_DESC_UPRIGHT : 0) |
           (p->descriptor_norm == SATFEAT_DESCRIPTOR_NORM_L2 ? 0 : SATFEAT_DESC_ROOT);
}

/**
 * Writes the descriptors of kp[0 .. n-1] to desc (n * dim floats, descriptor i at desc + i*dim):
 * dim 64 or 128 (any other value is treated as 64), oriented by kp[i].angle, or upright (angle
 * taken as 0) when `flags` has SATFEAT_DESC_UPRIGHT, unit L2 or root-normalised
 * (SATFEAT_DESC_ROOT). Threads and the table as for satfeat_orient_cpu.
 */
void satfeat_describe_cpu(const uint32_t *sat, size_t sat_stride, int width, int height,
                          const satfeat_keypoint *kp, size_t n, int flags, int dim,
                          const satfeat_describe_weights *w, float *desc, int threads);

/** Which CPU implementation computes (all give the same bits; the tests prove it): the fast path
 *  (the default: Haar pairs 8 at a time from satfeat_haar_block where it has vector code), the
 *  fast path with every table read clamped as at the border, the per-sample functions of
 *  orientation.h / descriptor.h in sequence (the reference the CUDA kernels follow), or the fast
 *  path reading the Haar pairs one at a time (what FAST does without AVX2). */
typedef enum satfeat_desc_path {
    SATFEAT_DESC_PATH_FAST = 0,
    SATFEAT_DESC_PATH_CLAMPED = 1,
    SATFEAT_DESC_PATH_REFERENCE = 2,
    SATFEAT_DESC_PATH_FAST_SCALAR = 3
} satfeat_desc_path;

/** satfeat_orient_cpu computed by the given path. */
void satfeat_orient_cpu_path(const uint32_t *sat, size_t sat_stride, int width, int height,
                             satfeat_keypoint *kp, size_t n, const satfeat_describe_weights *w,
                             int threads, satfeat_desc_path path);

/** satfeat_describe_cpu computed by the given path. */
void satfeat_describe_cpu_path(const uint32_t *sat, size_t sat_stride, int width, int height,
                               const satfeat_keypoint *kp, size_t n, int flags, int dim,
                               const satfeat_describe_weights *w, float *desc, int threads,
                               satfeat_desc_path path);

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
                                int filter, satfeat_land_dst land, void *stream);

/** satfeat_describe_cuda taking the keypoints in the order d_order (as in
 *  satfeat_orient_cuda_ordered; NULL: index order). */
int satfeat_describe_cuda_ordered(const uint32_t *d_sat, size_t sat_stride, int width,
                                  int height, const satfeat_keypoint *d_kp,
                                  const uint32_t *d_count, uint32_t max_n,
                                  const uint32_t *d_order, int flags, int dim,
                                  const satfeat_describe_weights *d_w, float *d_desc,
                                  satfeat_land_dst land, void *stream);

/**
 * Queues the orientation kernel: writes d_kp[i].angle for i < min(*d_count, max_n), from the
 * device table d_sat ((width+1) x (height+1), row stride sat_stride elements), and the whole
 * keypoint to land.kp[i] for i < land.cap. `filter` must be the weights' ori_filter (the host's
 * copy; it picks the kernel compiled for that filter). One 2-warp block per keypoint at a time,
 * in index order. max_n == 0 queues nothing.
 */
int satfeat_orient_cuda(const uint32_t *d_sat, size_t sat_stride, int width, int height,
                        satfeat_keypoint *d_kp, const uint32_t *d_count, uint32_t max_n,
                        const satfeat_describe_weights *d_w, int filter, satfeat_land_dst land,
                        void *stream);

/**
 * Queues the descriptor kernel: writes dim (64 or 128; other values act as 64) floats per
 * keypoint to d_desc (descriptor i at d_desc + i*dim) for i < min(*d_count, max_n), oriented by
 * d_kp[i].angle or upright, normalised as `flags` says (satfeat_describe_cpu), and to land.desc
 * for i < land.cap. One warp per keypoint, in index order. max_n == 0 queues nothing.
 */
int satfeat_describe_cuda(const uint32_t *d_sat, size_t sat_stride, int width, int height,
                          const satfeat_keypoint *d_kp, const uint32_t *d_count, uint32_t max_n,
                          int flags, int dim, const satfeat_describe_weights *d_w,
                          float *d_desc, satfeat_land_dst land, void *stream);

#ifdef __cplusplus
}
#endif

#endif
