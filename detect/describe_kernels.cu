/* describe_kernels.cu - CUDA orientation and SURF descriptor kernels: one warp per keypoint,
 * lanes compute the per-sample terms in parallel into shared memory, then every sum is done in
 * the fixed order of orientation.h / descriptor.h, so the results equal the CPU's bit for bit. */
#include "describe_cuda.h"
#include "descriptor.h"
#include "orientation.h"

#include <cuda_runtime.h>

#define DESC_WARPS 4 /* warps (keypoints in flight) per block */
#define DESC_THREADS (DESC_WARPS * 32)
#define DESC_MAX_BLOCKS 4096u

/* Blocks for max_n keypoints at DESC_WARPS per block, capped (the kernels grid-stride). */
static unsigned desc_blocks(uint32_t max_n)
{
    const unsigned b = (unsigned)((max_n + DESC_WARPS - 1) / DESC_WARPS);
    return b < DESC_MAX_BLOCKS ? b : DESC_MAX_BLOCKS;
}

/* The keypoint count read on the device, clamped to the host-known maximum. */
static __device__ uint32_t desc_count(const uint32_t *d_count, uint32_t max_n)
{
    const uint32_t n = *d_count;
    return n < max_n ? n : max_n;
}

/**
 * Orientation: each warp takes keypoints warp_id, warp_id + total_warps, ... Per keypoint the
 * lanes compute the 437 weighted samples and their bins into shared memory; lane b sums bins b,
 * b+32, b+64 over the samples in ascending order; lane k ranks windows k, k+32, k+64; a shuffle
 * reduction picks the largest norm (ties: lowest window), and lane 0 writes the angle. Reads the
 * table, the keypoints and the weights; writes kp[i].angle.
 */
__global__ void __launch_bounds__(DESC_THREADS)
orient_kernel(const uint32_t *sat, size_t st, int width, int height, satfeat_keypoint *kp,
              const uint32_t *d_count, uint32_t max_n, const satfeat_describe_weights *w)
{
    __shared__ double s_dx[DESC_WARPS][SATFEAT_ORI_SAMPLES], s_dy[DESC_WARPS][SATFEAT_ORI_SAMPLES];
    __shared__ int s_bin[DESC_WARPS][SATFEAT_ORI_SAMPLES];
    __shared__ double s_bx[DESC_WARPS][SATFEAT_ORI_BINS], s_by[DESC_WARPS][SATFEAT_ORI_BINS];
    const uint32_t n = desc_count(d_count, max_n);
    const int wid = (int)(threadIdx.x >> 5), lane = (int)(threadIdx.x & 31);
    double *dx = s_dx[wid], *dy = s_dy[wid], *bx = s_bx[wid], *by = s_by[wid];
    int *bin = s_bin[wid];
    const size_t warps = (size_t)gridDim.x * DESC_WARPS;
    for (size_t i = (size_t)blockIdx.x * DESC_WARPS + wid; i < n; i += warps) {
        const satfeat_ori_setup o = satfeat_ori_prepare(kp[i].x, kp[i].y, kp[i].sigma);
        for (int k = lane; k < SATFEAT_ORI_SAMPLES; k += 32)
            satfeat_ori_sample(sat, st, width, height, &o, w, k, &dx[k], &dy[k], &bin[k]);
        __syncwarp();
        for (int b = lane; b < SATFEAT_ORI_BINS; b += 32) {
            double sx = 0.0, sy = 0.0;
            for (int k = 0; k < SATFEAT_ORI_SAMPLES; k++)
                if (bin[k] == b) {
                    sx += dx[k];
                    sy += dy[k];
                }
            bx[b] = sx;
            by[b] = sy;
        }
        __syncwarp();
        double best = -1.0;
        int best_k = 0;
        for (int k = lane; k < SATFEAT_ORI_BINS; k += 32) {
            double sx, sy;
            satfeat_ori_window(bx, by, k, &sx, &sy);
            const double n2 = satfeat_ori_norm2(sx, sy);
            if (n2 > best) { /* k ascends: ties keep the lower window */
                best = n2;
                best_k = k;
            }
        }
        for (int off = 16; off > 0; off >>= 1) {
            const double ob = __shfl_xor_sync(0xffffffffu, best, off);
            const int ok = __shfl_xor_sync(0xffffffffu, best_k, off);
            if (ob > best || (ob == best && ok < best_k)) {
                best = ob;
                best_k = ok;
            }
        }
        if (lane == 0) {
            double sx, sy;
            satfeat_ori_window(bx, by, best_k, &sx, &sy);
            kp[i].angle = satfeat_am_angle(sy, sx);
        }
        __syncwarp(); /* shared arrays are reused by the next keypoint */
    }
}

/**
 * Descriptor: each warp takes keypoints as in orient_kernel. Per keypoint the lanes compute the
 * 576 rotated samples into shared memory; lane l sums part (l & 1) of subregion l / 2 over its
 * 81 weighted samples in the fixed order; every lane then computes the norm in index order and
 * writes values l, l+32, ... of the unit vector. Reads the table, keypoints and weights; writes
 * dim floats per keypoint.
 */
__global__ void __launch_bounds__(DESC_THREADS)
describe_kernel(const uint32_t *sat, size_t st, int width, int height, const satfeat_keypoint *kp,
                const uint32_t *d_count, uint32_t max_n, int upright, int dim,
                const satfeat_describe_weights *w, float *desc)
{
    __shared__ double s_rx[DESC_WARPS][SATFEAT_DESC_SAMPLES], s_ry[DESC_WARPS][SATFEAT_DESC_SAMPLES];
    __shared__ double s_val[DESC_WARPS][128];
    const uint32_t n = desc_count(d_count, max_n);
    const int wid = (int)(threadIdx.x >> 5), lane = (int)(threadIdx.x & 31);
    double *rx = s_rx[wid], *ry = s_ry[wid], *vals = s_val[wid];
    const size_t warps = (size_t)gridDim.x * DESC_WARPS;
    for (size_t i = (size_t)blockIdx.x * DESC_WARPS + wid; i < n; i += warps) {
        const satfeat_desc_setup d =
            satfeat_desc_prepare(kp[i].x, kp[i].y, kp[i].sigma, kp[i].angle, upright);
        for (int k = lane; k < SATFEAT_DESC_SAMPLES; k += 32)
            satfeat_desc_sample(sat, st, width, height, &d, k, &rx[k], &ry[k]);
        __syncwarp();
        satfeat_desc_part(rx, ry, w, lane >> 1, lane & 1, dim, vals);
        __syncwarp();
        const double norm = sqrt(satfeat_desc_norm2(vals, dim));
        float *out = desc + i * (size_t)dim;
        for (int v = lane; v < dim; v += 32) out[v] = satfeat_desc_unit(vals, v, norm);
        __syncwarp();
    }
}

extern "C" size_t satfeat_describe_weights_bytes(void)
{
    return sizeof(satfeat_describe_weights);
}

extern "C" int satfeat_describe_weights_upload(const satfeat_describe_weights *w, void *d_w,
                                               void *stream)
{
    return (int)cudaMemcpyAsync(d_w, w, sizeof *w, cudaMemcpyHostToDevice, (cudaStream_t)stream);
}

extern "C" int satfeat_orient_cuda(const uint32_t *d_sat, size_t sat_stride, int width,
                                   int height, satfeat_keypoint *d_kp, const uint32_t *d_count,
                                   uint32_t max_n, const satfeat_describe_weights *d_w,
                                   void *stream)
{
    if (max_n == 0) return (int)cudaSuccess;
    orient_kernel<<<desc_blocks(max_n), DESC_THREADS, 0, (cudaStream_t)stream>>>(
        d_sat, sat_stride, width, height, d_kp, d_count, max_n, d_w);
    return (int)cudaGetLastError();
}

extern "C" int satfeat_describe_cuda(const uint32_t *d_sat, size_t sat_stride, int width,
                                     int height, const satfeat_keypoint *d_kp,
                                     const uint32_t *d_count, uint32_t max_n, int upright,
                                     int dim, const satfeat_describe_weights *d_w, float *d_desc,
                                     void *stream)
{
    if (max_n == 0) return (int)cudaSuccess;
    describe_kernel<<<desc_blocks(max_n), DESC_THREADS, 0, (cudaStream_t)stream>>>(
        d_sat, sat_stride, width, height, d_kp, d_count, max_n, upright, dim == 128 ? 128 : 64,
        d_w, d_desc);
    return (int)cudaGetLastError();
}
