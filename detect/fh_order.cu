/* fh_order.cu - ordering and selection of the CUDA detector's candidates, with the CPU's
 * semantics (select.c) and without the host ever reading the candidate count:
 *  1. CUB segmented radix sort (one segment whose end is the device-side count) on the response
 *     rounded to float, descending: rounding is monotone, so only runs of equal keys can be out
 *     of the total order;
 *  2. tie fix: one thread per run of equal keys insertion-sorts it with the full comparator
 *     (fh_select.h) and writes each position's mask/grid key;
 *  3. grid only: a stable radix sort of positions by cell; a position is within its cell's cap
 *     when the entry per_cell places before it lies in another cell;
 *  4. one block scans the keep flags in order and writes the first max_keypoints selected. */
#include "fh_cuda.h"
#include "fh_select.h"

#include <cub/cub.cuh>
#include <cuda_runtime.h>

#define ORDER_THREADS 256
#define ORDER_MAX_BLOCKS 1024
#define SELECT_THREADS 1024

static int grid_blocks(size_t cap)
{
    size_t b = (cap + ORDER_THREADS - 1) / ORDER_THREADS;
    return b < 1 ? 1 : (b > ORDER_MAX_BLOCKS ? ORDER_MAX_BLOCKS : (int)b);
}

/* Number of bits of the cell key (cells 0..G*G-1, and G*G for "not selected"). */
static int cell_bits(int grid)
{
    const uint64_t top = (uint64_t)grid * (uint64_t)grid;
    int bits = 1;
    while ((top >> bits) != 0) bits++;
    return bits;
}

/**
 * Grid-stride over sorted positions: the thread at the start of each run of equal keys sorts
 * the run's candidate indices (val2) with the full comparator, then writes, for each position of
 * the run, key = its grid cell (or G*G when the mask rejects it; without a grid 0 / 1 for
 * kept / rejected) and val = the position.
 */
__global__ void __launch_bounds__(ORDER_THREADS)
fh_tie_fix_kernel(satfeat_fh_order_bufs b, int width, int height, const uint8_t *mask,
                  size_t mask_stride, int grid)
{
    const uint32_t n = b.counters[0] < b.cap ? b.counters[0] : (uint32_t)b.cap;
    for (uint32_t p = blockIdx.x * blockDim.x + threadIdx.x; p < n; p += gridDim.x * blockDim.x) {
        const uint32_t k = b.key2[p];
        if (p > 0 && b.key2[p - 1] == k) continue;
        uint32_t e = p + 1;
        while (e < n && b.key2[e] == k) e++;
        for (uint32_t i = p + 1; i < e; i++) { /* insertion sort of a (nearly always tiny) run */
            const uint32_t v = b.val2[i];
            uint32_t j = i;
            while (j > p && satfeat_fh_order(&b.cand[v], &b.cand[b.val2[j - 1]]) < 0) {
                b.val2[j] = b.val2[j - 1];
                j--;
            }
            b.val2[j] = v;
        }
        const uint32_t rejected = grid > 0 ? (uint32_t)grid * (uint32_t)grid : 1u;
        for (uint32_t q = p; q < e; q++) {
            const satfeat_keypoint *kp = &b.cand[b.val2[q]];
            uint32_t ck = 0;
            if (mask) {
                const int mx = satfeat_fh_round_clamp(kp->x, width);
                const int my = satfeat_fh_round_clamp(kp->y, height);
                if (!mask[(size_t)my * mask_stride + (size_t)mx]) ck = rejected;
            }
            if (grid > 0 && ck == 0)
                ck = (uint32_t)(satfeat_fh_cell_of(kp->y, grid, height) * grid +
                                satfeat_fh_cell_of(kp->x, grid, width));
            b.key[q] = ck;
            b.val[q] = q;
        }
    }
}

/** Grid only: over the cell-sorted positions, marks those within their cell's first per_cell. */
__global__ void __launch_bounds__(ORDER_THREADS)
fh_cell_cap_kernel(satfeat_fh_order_bufs b, int grid, int per_cell)
{
    const uint32_t n = b.counters[0] < b.cap ? b.counters[0] : (uint32_t)b.cap;
    const uint32_t rejected = (uint32_t)grid * (uint32_t)grid;
    for (uint32_t q = blockIdx.x * blockDim.x + threadIdx.x; q < n; q += gridDim.x * blockDim.x) {
        const uint32_t c = b.ck2[q];
        b.keep[b.pos2[q]] =
            c != rejected && (q < (uint32_t)per_cell || b.ck2[q - (uint32_t)per_cell] != c);
    }
}

/**
 * One block walks the sorted positions in chunks of SELECT_THREADS: a block scan of the keep
 * flags gives each selected keypoint its output slot; the first `limit` are written to `out`
 * and their number to counters[1].
 */
__global__ void __launch_bounds__(SELECT_THREADS)
fh_select_kernel(satfeat_fh_order_bufs b, int grid, uint32_t limit, satfeat_keypoint *out)
{
    typedef cub::BlockScan<uint32_t, SELECT_THREADS> scan_t;
    __shared__ typename scan_t::TempStorage tmp;
    const uint32_t n = b.counters[0] < b.cap ? b.counters[0] : (uint32_t)b.cap;
    uint32_t total = 0;
    for (uint32_t base = 0; base < n && total < limit; base += SELECT_THREADS) {
        const uint32_t q = base + threadIdx.x;
        uint32_t keep = 0;
        if (q < n) keep = grid > 0 ? b.keep[q] : (b.key[q] == 0);
        uint32_t rank, chunk;
        scan_t(tmp).ExclusiveSum(keep, rank, chunk);
        if (keep && total + rank < limit) out[total + rank] = b.cand[b.val2[q]];
        total += chunk;
        __syncthreads(); /* tmp is reused by the next chunk */
    }
    if (threadIdx.x == 0) b.counters[1] = total < limit ? total : limit;
}

extern "C" int satfeat_fh_order_temp_bytes(size_t cap, size_t *bytes)
{
    size_t a = 0, c = 0;
    const int items = (int)cap, one = 0;
    const uint32_t *k = NULL;
    uint32_t *ko = NULL;
    cudaError_t e = cub::DeviceSegmentedRadixSort::SortPairsDescending(
        NULL, a, k, ko, k, ko, items, 1, &one, &one + 1, 0, 31);
    if (e == cudaSuccess)
        e = cub::DeviceSegmentedRadixSort::SortPairs(NULL, c, k, ko, k, ko, items, 1, &one,
                                                      &one + 1, 0, 32);
    *bytes = a > c ? a : c;
    return (int)e;
}

extern "C" int satfeat_fh_launch_sort(satfeat_fh_order_bufs *b, int width, int height,
                                      const uint8_t *mask, size_t mask_stride, int grid,
                                      void *stream)
{
    cudaStream_t s = (cudaStream_t)stream;
    size_t tb = b->temp_bytes;
    cudaError_t e = cub::DeviceSegmentedRadixSort::SortPairsDescending(
        b->temp, tb, b->key, b->key2, b->val, b->val2, (int)b->cap, 1, b->counters + 2,
        b->counters, 0, 31, s);
    if (e != cudaSuccess) return (int)e;
    fh_tie_fix_kernel<<<grid_blocks(b->cap), ORDER_THREADS, 0, s>>>(*b, width, height, mask,
                                                                    mask_stride, grid);
    return (int)cudaGetLastError();
}

extern "C" int satfeat_fh_launch_select(satfeat_fh_order_bufs *b, int grid, int per_cell,
                                        int max_keypoints, satfeat_keypoint *out, void *stream)
{
    cudaStream_t s = (cudaStream_t)stream;
    if (grid > 0) {
        size_t tb = b->temp_bytes;
        cudaError_t e = cub::DeviceSegmentedRadixSort::SortPairs(
            b->temp, tb, b->key, b->ck2, b->val, b->pos2, (int)b->cap, 1, b->counters + 2,
            b->counters, 0, cell_bits(grid), s);
        if (e != cudaSuccess) return (int)e;
        fh_cell_cap_kernel<<<grid_blocks(b->cap), ORDER_THREADS, 0, s>>>(*b, grid, per_cell);
        if ((e = cudaGetLastError()) != cudaSuccess) return (int)e;
    }
    const uint32_t limit = max_keypoints > 0 ? (uint32_t)max_keypoints : 0xFFFFFFFFu;
    fh_select_kernel<<<1, SELECT_THREADS, 0, s>>>(*b, grid, limit, out);
    return (int)cudaGetLastError();
}

extern "C" int satfeat_fh_launch_order(satfeat_fh_order_bufs *b, int width, int height,
                                       const uint8_t *mask, size_t mask_stride, int grid,
                                       int per_cell, int max_keypoints, satfeat_keypoint *out,
                                       void *stream)
{
    int e = satfeat_fh_launch_sort(b, width, height, mask, mask_stride, grid, stream);
    if (e != 0) return e;
    return satfeat_fh_launch_select(b, grid, per_cell, max_keypoints, out, stream);
}
