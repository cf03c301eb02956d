/* order_kernels.cu - ordering and selection of the CUDA detector's candidates, with the CPU's
 * semantics (select_cpu.c) and without the host ever reading the candidate count:
 *  1. rank: the position of each candidate in the total order (keypoint_order.h) is the number of
 *     candidates that order before it, counted by blocks over (candidate tile, comparison tile)
 *     pairs with the responses of the comparison tile in shared memory; the full comparator
 *     runs only on exactly equal responses. Partial counts meet through atomicAdd;
 *  1b. suppress_duplicates only: a candidate is flagged (keep[i] = 1, by candidate index) when
 *     a candidate of lower rank is its near duplicate (keypoint_order.h), tiles as in 1;
 *  2. scatter: each candidate goes to its rank; with neither mask, grid nor duplicate
 *     suppression the first max_keypoints are written straight to the output; else each
 *     position gets its key (flagged duplicates and masked ones are rejected);
 *  3. grid only: a stable radix sort of positions by cell; a position is within its cell's cap
 *     when the entry per_cell places before it lies in another cell;
 *  4. mask or grid: one block scans the keep flags in order and writes the first max_keypoints.
 * The rank stage does n^2 comparisons for n candidates: about 64 M for the 8 k of a 1080p frame
 * (a few microseconds on an H200), growing quadratically for very low thresholds. */
#include "kernels_cuda.h"
#include "keypoint_order.h"

#include <cub/cub.cuh>
#include <cuda_runtime.h>

#define ORDER_THREADS 256
#define ORDER_MAX_BLOCKS 1024
#define RANK_TILE 256   /* candidates per tile of the rank kernel (= its block size) */
#define RANK_BLOCKS 1024 /* fixed grid of the rank kernel (it strides over tile pairs) */
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

__device__ static uint32_t count_of(const satfeat_fh_order_bufs &b)
{
    return b.counters[0] < b.cap ? b.counters[0] : (uint32_t)b.cap;
}

/**
 * Each block takes (candidate tile, comparison tile) pairs of RANK_TILE candidates in turn:
 * it loads the comparison tile's responses into shared memory, each thread counts the
 * comparison candidates that order before its own candidate (greater response, or an equal
 * response and the full comparator says so) and adds the count to rank[i].
 */
__global__ void __launch_bounds__(RANK_TILE)
fh_rank_kernel(satfeat_fh_order_bufs b)
{
    __shared__ double tile[RANK_TILE];
    const uint32_t n = count_of(b);
    const uint32_t tiles = (n + RANK_TILE - 1) / RANK_TILE;
    const uint64_t pairs = (uint64_t)tiles * tiles;
    for (uint64_t p = blockIdx.x; p < pairs; p += gridDim.x) {
        const uint32_t i = (uint32_t)(p / tiles) * RANK_TILE + threadIdx.x;
        const uint32_t j0 = (uint32_t)(p % tiles) * RANK_TILE;
        const uint32_t m = n - j0 < RANK_TILE ? n - j0 : RANK_TILE;
        __syncthreads(); /* the previous pair's readers are done */
        if (threadIdx.x < m) tile[threadIdx.x] = b.resp[j0 + threadIdx.x];
        __syncthreads();
        if (i >= n) continue;
        const double mine = b.resp[i];
        uint32_t before = 0, equal = 0;
#pragma unroll 8
        for (uint32_t t = 0; t < m; t++) { /* responses alone decide all but exact ties */
            const double v = tile[t];
            before += v > mine;
            equal += v == mine;
        }
        if (equal > (i >= j0 && i < j0 + m)) /* ties other than itself: full comparator */
            for (uint32_t t = 0; t < m; t++)
                if (tile[t] == mine && j0 + t != i &&
                    satfeat_fh_order(&b.cand[j0 + t], &b.cand[i]) < 0)
                    before++;
        if (before) atomicAdd(&b.rank[i], before);
    }
}

/**
 * Near duplicates, after the rank kernel: each block takes (candidate tile, comparison tile)
 * pairs as fh_rank_kernel does, loads the comparison tile's keypoints and ranks into shared
 * memory, and each thread sets keep[i] = 1 (keep must be zeroed before) when a comparison
 * candidate of lower rank is a near duplicate of its candidate i: the CPU's flag_duplicates
 * (select_cpu.c), judged against every stronger candidate whether flagged or not.
 */
__global__ void __launch_bounds__(RANK_TILE)
fh_dedup_kernel(satfeat_fh_order_bufs b)
{
    __shared__ satfeat_keypoint tile[RANK_TILE];
    __shared__ uint32_t tile_rank[RANK_TILE];
    const uint32_t n = count_of(b);
    const uint32_t tiles = (n + RANK_TILE - 1) / RANK_TILE;
    const uint64_t pairs = (uint64_t)tiles * tiles;
    for (uint64_t p = blockIdx.x; p < pairs; p += gridDim.x) {
        const uint32_t i = (uint32_t)(p / tiles) * RANK_TILE + threadIdx.x;
        const uint32_t j0 = (uint32_t)(p % tiles) * RANK_TILE;
        const uint32_t m = n - j0 < RANK_TILE ? n - j0 : RANK_TILE;
        __syncthreads(); /* the previous pair's readers are done */
        if (threadIdx.x < m) {
            tile[threadIdx.x] = b.cand[j0 + threadIdx.x];
            tile_rank[threadIdx.x] = b.rank[j0 + threadIdx.x];
        }
        __syncthreads();
        if (i >= n) continue;
        const satfeat_keypoint mine = b.cand[i];
        const uint32_t my_rank = b.rank[i];
        int dup = 0;
        for (uint32_t t = 0; t < m && !dup; t++)
            dup = tile_rank[t] < my_rank && satfeat_fh_near_duplicate(&tile[t], &mine);
        if (dup) b.keep[i] = 1; /* every writer writes 1 */
    }
}

/**
 * Grid-stride over candidates: candidate i goes to sorted position rank[i] (val2). With
 * `direct` (no mask, no grid, no duplicate suppression) the first `limit` positions are written
 * to `out` and the count to counters[1]; otherwise each position gets key = its grid cell (or
 * G*G when the mask rejects it or, with `dedup`, keep[i] flags it a near duplicate; without a
 * grid 0 / 1 for kept / rejected) and val = the position.
 */
__global__ void __launch_bounds__(ORDER_THREADS)
fh_scatter_kernel(satfeat_fh_order_bufs b, int width, int height, const uint8_t *mask,
                  size_t mask_stride, int grid, int dedup, int direct, uint32_t limit,
                  satfeat_keypoint *out)
{
    const uint32_t n = count_of(b);
    if (direct && blockIdx.x == 0 && threadIdx.x == 0) b.counters[1] = n < limit ? n : limit;
    const uint32_t rejected = grid > 0 ? (uint32_t)grid * (uint32_t)grid : 1u;
    for (uint32_t i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) {
        const uint32_t q = b.rank[i];
        const satfeat_keypoint *kp = &b.cand[i];
        b.val2[q] = i;
        if (direct) {
            if (q < limit) out[q] = *kp;
            continue;
        }
        uint32_t ck = dedup && b.keep[i] ? rejected : 0u;
        if (mask && ck == 0) {
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

/** Grid only: over the cell-sorted positions, marks those within their cell's first per_cell. */
__global__ void __launch_bounds__(ORDER_THREADS)
fh_cell_cap_kernel(satfeat_fh_order_bufs b, int grid, int per_cell)
{
    const uint32_t n = count_of(b);
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
    const uint32_t n = count_of(b);
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

/* Keypoints move to the host landing buffer in 16-byte words when their size allows, else in
 * 8-byte words (a keypoint holds doubles, so its size is always a multiple of 8). */
template <bool Wide> struct kp_word_of { typedef uint2 type; };
template <> struct kp_word_of<true> { typedef uint4 type; };
typedef kp_word_of<sizeof(satfeat_keypoint) % sizeof(uint4) == 0>::type kp_word;
static_assert(sizeof(satfeat_keypoint) % sizeof(kp_word) == 0, "keypoint not a whole number of words");
#define KP_WORDS (sizeof(satfeat_keypoint) / sizeof(kp_word))
/* Descriptors (dim 64 or 128 floats) move in 16-byte words: dim / 4 per keypoint. */
#define DESC_WORD_FLOATS 4

/**
 * Grid-stride over words: writes the selected count (counters[1]) to `count`, the first
 * m = min(count, land_cap) keypoints of `out` to `land` and, when `desc` is non-NULL, their
 * descriptors (m x desc_words 16-byte words from `desc`) to `land_desc`; all destinations are
 * mapped pinned host memory, so the host needs no copy of its own when the list fits the
 * landing buffer.
 */
__global__ void __launch_bounds__(ORDER_THREADS)
fh_download_kernel(const uint32_t *counters, const satfeat_keypoint *out, const float *desc,
                   uint32_t desc_words, uint32_t *count, satfeat_keypoint *land, float *land_desc,
                   uint32_t land_cap)
{
    const uint32_t n = counters[1];
    if (blockIdx.x == 0 && threadIdx.x == 0) *count = n;
    const size_t m = n < land_cap ? n : land_cap;
    const size_t kp_words = m * KP_WORDS;
    const size_t d_words = desc ? m * desc_words : 0;
    const size_t first = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    const size_t step = (size_t)gridDim.x * blockDim.x;
    const kp_word *ks = (const kp_word *)out;
    kp_word *kd = (kp_word *)land;
    for (size_t i = first; i < kp_words; i += step) kd[i] = ks[i];
    const uint4 *ds = (const uint4 *)desc;
    uint4 *dd = (uint4 *)land_desc;
    for (size_t i = first; i < d_words; i += step) dd[i] = ds[i];
}

extern "C" int satfeat_fh_launch_download(const satfeat_fh_order_bufs *b,
                                          const satfeat_keypoint *out, const float *desc,
                                          int dim, uint32_t *count, satfeat_keypoint *land,
                                          float *land_desc, uint32_t land_cap, void *stream)
{
    const int described = desc != NULL && land_desc != NULL && dim > 0;
    const uint32_t desc_words = described ? (uint32_t)dim / DESC_WORD_FLOATS : 0u;
    const size_t words = (size_t)land_cap * (KP_WORDS > desc_words ? KP_WORDS : desc_words);
    fh_download_kernel<<<grid_blocks(words), ORDER_THREADS, 0, (cudaStream_t)stream>>>(
        b->counters, out, described ? desc : NULL, desc_words, count, land,
        described ? land_desc : NULL, land_cap);
    return (int)cudaGetLastError();
}

extern "C" int satfeat_fh_order_temp_bytes(size_t cap, size_t *bytes)
{
    const int items = (int)cap, one = 0;
    const uint32_t *k = NULL;
    uint32_t *ko = NULL;
    *bytes = 0;
    return (int)cub::DeviceSegmentedRadixSort::SortPairs(NULL, *bytes, k, ko, k, ko, items, 1,
                                                         &one, &one + 1, 0, 32);
}

extern "C" int satfeat_fh_launch_sort(satfeat_fh_order_bufs *b, int width, int height,
                                      const uint8_t *mask, size_t mask_stride, int grid,
                                      int dedup, int max_keypoints, satfeat_keypoint *out,
                                      void *stream)
{
    cudaStream_t s = (cudaStream_t)stream;
    fh_rank_kernel<<<RANK_BLOCKS, RANK_TILE, 0, s>>>(*b);
    cudaError_t e = cudaGetLastError();
    if (e != cudaSuccess) return (int)e;
    if (dedup) {
        if ((e = cudaMemsetAsync(b->keep, 0, b->cap, s)) != cudaSuccess) return (int)e;
        fh_dedup_kernel<<<RANK_BLOCKS, RANK_TILE, 0, s>>>(*b);
        if ((e = cudaGetLastError()) != cudaSuccess) return (int)e;
    }
    const uint32_t limit = max_keypoints > 0 ? (uint32_t)max_keypoints : 0xFFFFFFFFu;
    const int direct = mask == NULL && grid <= 0 && !dedup;
    fh_scatter_kernel<<<grid_blocks(b->cap), ORDER_THREADS, 0, s>>>(
        *b, width, height, mask, mask_stride, grid, dedup, direct, limit, out);
    return (int)cudaGetLastError();
}

extern "C" int satfeat_fh_launch_select(satfeat_fh_order_bufs *b, const uint8_t *mask, int grid,
                                        int dedup, int per_cell, int max_keypoints,
                                        satfeat_keypoint *out, void *stream)
{
    cudaStream_t s = (cudaStream_t)stream;
    if (mask == NULL && grid <= 0 && !dedup) return 0; /* the scatter kernel selected already */
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
