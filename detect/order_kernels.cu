/* order_kernels.cu - ordering and selection of the CUDA detector's candidates, with the CPU's
 * semantics (select_cpu.c: total order of keypoint_order.h, near duplicates judged against every
 * stronger candidate, then the mask, the per-cell cap and max_keypoints) and without the host
 * ever reading the candidate count. No device-wide sort: the keys of order_buckets.h make every
 * step a short loop over a few neighbours.
 *  0. the octave kernel counts each candidate in its response bucket and bucket group and (with
 *     dedup) in its duplicate cell as it appends it;
 *  1. dedup only: the cell counts are scanned (by every block of the place kernel in shared
 *     memory, or by a kernel of its own for frames of very many cells) and each candidate placed
 *     in its cell's list at a slot taken from a second count;
 *  2. flag: a candidate is kept unless a stronger candidate of the cells its reach covers is its
 *     near duplicate (dedup: a warp per candidate reads those cells' lists as one) or the mask
 *     rejects it; a kept one is counted per bucket and group and listed in its bucket's region,
 *     which starts after the candidates of the buckets before it (a prefix of at most 32 group
 *     and 64 bucket counts that the warp sums: no scan, no kernel of its own);
 *  3. rank: a kept candidate's position is the number of kept candidates of the buckets before
 *     its own (the same prefix over the kept counts) plus those of its bucket that order before
 *     it; without a grid, positions below max_keypoints are written straight to the output;
 *  4. grid only: a stable radix sort of the positions by grid cell; a position is within its
 *     cell's cap when the entry per_cell places before it lies in another cell; one block scans
 *     the flags in order and writes the first max_keypoints.
 * Counts meet through atomics whose order varies from run to run; no result depends on it (a
 * cell's or bucket's list is only searched or counted in full). Work is about n times the
 * candidates of a bucket or of the cells around a keypoint: tens, not n. */
#include "describe/describe.h"
#include "detect/kernels_cuda.h"
#include "detect/keypoint_order.h"
#include "src/land_dst.h"
#include "detect/order_buckets.h"
#include "src/pdl.cuh"

#include <cub/cub.cuh>
#include <cuda_runtime.h>

#define ORDER_THREADS 256
#define ORDER_MAX_BLOCKS 1024
#define CAND_MAX_BLOCKS 264  /* per-candidate kernels grid-stride over the device-side count */
#define SELECT_THREADS 1024
/* Entries a thread of a place kernel scans per round of its in-block scan. */
#define SCAN_ITEMS 8
/* Most duplicate cells whose counts every block of the cell place kernel scans itself (32 KB of
 * shared memory; a 3840 x 2160 frame has 8160); frames of more cells scan them in a kernel of
 * their own. */
#define FOLD_MAX_CELLS 8192

static int grid_blocks(size_t cap)
{
    size_t b = (cap + ORDER_THREADS - 1) / ORDER_THREADS;
    return b < 1 ? 1 : (b > ORDER_MAX_BLOCKS ? ORDER_MAX_BLOCKS : (int)b);
}

static int cand_blocks(size_t cap)
{
    const int b = grid_blocks(cap);
    return b < CAND_MAX_BLOCKS ? b : CAND_MAX_BLOCKS;
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
 * One block of ORDER_THREADS threads: exclusive prefix sums of in[0..n) into s[0..n] (shared or
 * global memory), s[n] = the total, in rounds of ORDER_THREADS * SCAN_ITEMS entries (each thread
 * sums SCAN_ITEMS consecutive entries, one block-wide scan of those sums per round). Ends with a
 * barrier; returns the total to every thread.
 */
__device__ static uint32_t block_scan(const uint32_t *in, uint32_t n, uint32_t *s)
{
    typedef cub::BlockScan<uint32_t, ORDER_THREADS> scan_t;
    __shared__ typename scan_t::TempStorage tmp;
    uint32_t carry = 0;
    for (uint32_t base = 0; base < n; base += ORDER_THREADS * SCAN_ITEMS) {
        const uint32_t k0 = base + threadIdx.x * SCAN_ITEMS;
        uint32_t v[SCAN_ITEMS], own = 0, off, chunk;
#pragma unroll
        for (int k = 0; k < SCAN_ITEMS; k++) {
            v[k] = k0 + k < n ? in[k0 + k] : 0u;
            own += v[k];
        }
        scan_t(tmp).ExclusiveSum(own, off, chunk);
        off += carry;
#pragma unroll
        for (int k = 0; k < SCAN_ITEMS; k++)
            if (k0 + k < n) {
                s[k0 + k] = off;
                off += v[k];
            }
        carry += chunk;
        __syncthreads(); /* tmp is reused by the next round */
    }
    if (threadIdx.x == 0) s[n] = carry;
    __syncthreads();
    return carry;
}

/* The sum of v over the 32 lanes, on every lane. */
__device__ static uint32_t warp_sum(uint32_t v)
{
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
    return __reduce_add_sync(0xffffffffu, v);
#else
    for (int d = 16; d > 0; d >>= 1) v += __shfl_xor_sync(0xffffffffu, v, d);
    return v;
#endif
}

static_assert(SATFEAT_FH_BUCKET_TERMS % 32 == 0, "whole rounds of prefix terms over a warp");
#define PREFIX_TERMS_PER_LANE (SATFEAT_FH_BUCKET_TERMS / 32)

/* Lane `lane`'s share of the prefix of descending bucket k (terms lane, lane + 32, ...): the
 * loads go out together; warp_sum of the shares is satfeat_fh_bucket_prefix. */
__device__ static uint32_t lane_prefix_share(const uint32_t *count, const uint32_t *groups,
                                             uint32_t k, uint32_t lane)
{
    uint32_t v = 0;
#pragma unroll
    for (uint32_t r = 0; r < PREFIX_TERMS_PER_LANE; r++)
        v += satfeat_fh_bucket_prefix_term(count, groups, k, lane + 32u * r);
    return v;
}

/* Warp-per-candidate kernels: the candidate of warp w, the warp count and the lane. */
#define WARP_LOOP(i, n)                                                                      \
    const uint32_t lane_ = threadIdx.x & 31u;                                                \
    const uint32_t warps_ = gridDim.x * (blockDim.x >> 5);                                   \
    for (uint32_t i = blockIdx.x * (blockDim.x >> 5) + (threadIdx.x >> 5); i < (n); i += warps_)

/** One block: scans the cell counts into cell_start (cells + 1 entries); frames of more than
 * FOLD_MAX_CELLS cells only (others scan them in fh_cell_place_kernel). */
static __global__ void __launch_bounds__(ORDER_THREADS)
fh_cell_scan_kernel(satfeat_fh_order_bufs b, uint32_t cells)
{
    satfeat_pdl_enter();
    block_scan(b.cell_hist, cells, b.cell_start);
}

/**
 * Grid-stride over candidates: writes each candidate's index into its cell's list, at its cell's
 * start plus a slot taken from the cell's fill count (`fill`, zero at launch). FOLDED (cells <=
 * FOLD_MAX_CELLS): every block first scans the cell counts (the octave kernel's) itself in shared
 * memory and block 0 writes them to cell_start for the flag kernel; otherwise
 * fh_cell_scan_kernel wrote cell_start before. With `pos` (the spatial order), pos[i] = the
 * entry of candidate i.
 */
template <bool FOLDED>
static __global__ void __launch_bounds__(ORDER_THREADS)
fh_cell_place_kernel(satfeat_fh_order_bufs b, int cw, int ch, uint32_t *fill, uint32_t *pos)
{
    satfeat_pdl_enter();
    const uint32_t n = count_of(b), cells = (uint32_t)cw * (uint32_t)ch;
    const uint32_t *start = b.cell_start;
    if constexpr (FOLDED) {
        __shared__ uint32_t s_start[FOLD_MAX_CELLS + 1];
        block_scan(b.cell_hist, cells, s_start);
        if (blockIdx.x == 0)
            for (uint32_t c = threadIdx.x; c <= cells; c += ORDER_THREADS) b.cell_start[c] = s_start[c];
        start = s_start;
    }
    for (uint32_t i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) {
        const uint32_t c = satfeat_fh_dup_cell_index(b.cand[i].x, b.cand[i].y, cw, ch);
        const uint32_t at = start[c] + atomicAdd(&fill[c], 1u);
        b.cell_members[at] = i;
        if (pos) pos[i] = at;
    }
}

/* Whether candidate i (keypoint kp) may be kept past the mask. */
__device__ static bool inside_mask(const satfeat_keypoint &kp, int width, int height,
                                   const uint8_t *mask, size_t mask_stride)
{
    if (!mask) return true;
    const int mx = satfeat_fh_round_clamp(kp.x, width);
    const int my = satfeat_fh_round_clamp(kp.y, height);
    return mask[(size_t)my * mask_stride + (size_t)mx] != 0;
}

/* With dedup, by the 32 lanes of a warp: whether a candidate of the cells around `kp`
 * (candidate i, its duplicate rectangle of order_buckets.h) that orders before it is its near
 * duplicate (select_cpu.c's flag_duplicates). The rectangle's rows of cells are consecutive
 * entries of cell_members each; lane r holds row r's range (32 rows at a time) and the lanes
 * take the rows' members together, 32 at a time, in one flat list (so a keypoint whose
 * rectangle spans two or four cells pays the round trips of one). The answer is the same on
 * every lane. */
__device__ static bool has_stronger_duplicate(const satfeat_fh_order_bufs &b,
                                              const satfeat_keypoint &kp, uint32_t i, int cw,
                                              int ch, uint32_t lane)
{
    int x0, x1, y0, y1;
    if (!satfeat_fh_dup_rect(kp.x, kp.y, kp.sigma, cw, ch, &x0, &x1, &y0, &y1)) return false;
    for (int r0 = y0; r0 <= y1; r0 += 32) {
        const int rows = y1 - r0 + 1 < 32 ? y1 - r0 + 1 : 32;
        uint32_t lo = 0, len = 0;
        if ((int)lane < rows) {
            const uint32_t row = (uint32_t)(r0 + (int)lane) * (uint32_t)cw;
            lo = b.cell_start[row + (uint32_t)x0];
            len = b.cell_start[row + (uint32_t)x1 + 1u] - lo;
        }
        uint32_t incl = len; /* inclusive prefix of the rows' lengths */
        for (int d = 1; d < 32; d <<= 1) {
            const uint32_t v = __shfl_up_sync(0xffffffffu, incl, d);
            if ((int)lane >= d) incl += v;
        }
        const uint32_t total = __shfl_sync(0xffffffffu, incl, 31), excl = incl - len;
        for (uint32_t f0 = 0; f0 < total; f0 += 32) {
            const uint32_t f = f0 + lane;
            uint32_t m = 0;
            for (int r = 0; r < rows; r++) { /* the last row that starts at or before f */
                const uint32_t e = __shfl_sync(0xffffffffu, excl, r);
                const uint32_t l = __shfl_sync(0xffffffffu, lo, r);
                if (f >= e) m = l + (f - e);
            }
            bool hit = false;
            if (f < total) {
                /* the member's keypoint at once (no test of its response first, which cost a
                 * round trip: ordering before kp implies a response >= kp's) */
                const uint32_t j = b.cell_members[m];
                if (j != i) {
                    const satfeat_keypoint o = b.cand[j];
                    hit = satfeat_fh_order(&o, &kp) < 0 && satfeat_fh_near_duplicate(&o, &kp);
                }
            }
            if (__any_sync(0xffffffffu, hit)) return true;
        }
    }
    return false;
}

/* Kept candidate i of descending bucket k: counted in its bucket and group (kept_buckets,
 * kept_groups) and listed with its response in its bucket's region of bucket_members, which
 * starts at `region`, at the slot the bucket's count returns. */
__device__ __forceinline__ static void list_kept(const satfeat_fh_order_bufs &b, uint32_t i,
                                                 uint32_t k, uint32_t region, double response)
{
    const uint32_t at = region + atomicAdd(&b.kept_buckets[k], 1u);
    b.bucket_members[at] = i;
    b.bucket_resp[at] = response;
    atomicAdd(&b.kept_groups[k / SATFEAT_FH_BUCKET_GROUP], 1u);
}

/**
 * Duplicate suppression, a warp per candidate: keep[i] = 1 unless a stronger near duplicate
 * exists (has_stronger_duplicate, which reads cell_start / cell_members of fh_cell_place_kernel)
 * or the mask rejects it. A kept candidate is counted in kept_buckets and kept_groups and listed
 * in bucket_members at its bucket's region (the prefix of the candidate counts, whose loads go
 * out before the duplicate search) plus the slot its bucket's kept count returns.
 */
static __global__ void __launch_bounds__(ORDER_THREADS)
fh_dup_flag_kernel(satfeat_fh_order_bufs b, int width, int height, const uint8_t *mask,
                   size_t mask_stride, uint32_t base, int cw, int ch)
{
    satfeat_pdl_enter();
    const uint32_t n = count_of(b);
    WARP_LOOP(i, n)
    {
        const satfeat_keypoint kp = b.cand[i];
        const uint32_t k = satfeat_fh_bucket_desc(kp.response, base);
        const uint32_t region =
            warp_sum(lane_prefix_share(b.cand_buckets, b.cand_groups, k, lane_));
        const bool keep = inside_mask(kp, width, height, mask, mask_stride) &&
                          !has_stronger_duplicate(b, kp, i, cw, ch, lane_);
        if (lane_ == 0) {
            b.keep[i] = keep;
            if (keep) list_kept(b, i, k, region, kp.response);
        }
    }
}

/**
 * Without duplicate suppression: every block first scans the candidate counts per bucket into
 * the regions' starts in shared memory; then, grid-stride over candidates, keep[i] = whether the
 * mask keeps it, and a kept one is counted and listed as in fh_dup_flag_kernel.
 */
static __global__ void __launch_bounds__(ORDER_THREADS)
fh_flag_kernel(satfeat_fh_order_bufs b, int width, int height, const uint8_t *mask,
               size_t mask_stride, uint32_t base)
{
    satfeat_pdl_enter();
    __shared__ uint32_t s_region[SATFEAT_FH_BUCKETS + 1];
    block_scan(b.cand_buckets, SATFEAT_FH_BUCKETS, s_region);
    const uint32_t n = count_of(b);
    for (uint32_t i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) {
        const bool keep = inside_mask(b.cand[i], width, height, mask, mask_stride);
        b.keep[i] = keep;
        if (keep) {
            const double r = b.resp[i];
            const uint32_t k = satfeat_fh_bucket_desc(r, base);
            list_kept(b, i, k, s_region[k], r);
        }
    }
}

/**
 * A warp per kept candidate: its sorted position q is the number of kept candidates of the
 * buckets before its own (the prefix of kept_buckets) plus those of its bucket that order before
 * it (greater response, or an equal one and the full comparator says so), counted by the lanes
 * over its bucket's region of bucket_members. Without a grid, positions below `limit` get the
 * keypoint in `out`; with a grid, key[q] = its grid cell, val[q] = q and val2[q] = the
 * candidate. With `spatial` (no grid, duplicate cells listed with cell_pos), candidate i's entry
 * in cell order, spatial[cell_pos[i]], gets its output position q when it is selected, else
 * SATFEAT_ORDER_HOLE: the descriptor kernel's spatial processing order. The first warp also
 * writes counters[3] = the kept total and counters[1] = min(total, limit).
 */
static __global__ void __launch_bounds__(ORDER_THREADS)
fh_rank_kernel(satfeat_fh_order_bufs b, uint32_t base, int width, int height, int grid,
               uint32_t limit, satfeat_keypoint *out, uint32_t *spatial)
{
    satfeat_pdl_enter();
    if (blockIdx.x == 0 && threadIdx.x < 32) {
        const uint32_t lane = threadIdx.x;
        const uint32_t total = warp_sum(lane < SATFEAT_FH_BUCKET_GROUPS ? b.kept_groups[lane] : 0u);
        if (lane == 0) {
            b.counters[3] = total;
            b.counters[1] = total < limit ? total : limit;
        }
    }
    const uint32_t n = count_of(b);
    WARP_LOOP(i, n)
    {
        /* the candidate's reads together: its verdict, response and (lanes < SATFEAT_KP_U64) the
         * words of its keypoint that go to `out` */
        const bool keep = b.keep[i];
        const double mine = b.resp[i];
        const uint64_t word = grid <= 0 && lane_ < SATFEAT_KP_U64
                                  ? ((const uint64_t *)&b.cand[i])[lane_]
                                  : 0u;
        if (!keep) { /* warp-uniform */
            if (spatial && lane_ == 0) spatial[b.cell_pos[i]] = SATFEAT_ORDER_HOLE;
            continue;
        }
        const uint32_t k = satfeat_fh_bucket_desc(mine, base);
        /* every load of both prefixes and the bucket's kept count at once */
        const uint32_t kept_here = b.kept_buckets[k];
        const uint32_t cand_share = lane_prefix_share(b.cand_buckets, b.cand_groups, k, lane_);
        const uint32_t kept_share = lane_prefix_share(b.kept_buckets, b.kept_groups, k, lane_);
        const uint32_t first = warp_sum(cand_share), end = first + kept_here;
        uint32_t q = warp_sum(kept_share);
        for (uint32_t m0 = first; m0 < end; m0 += 32) {
            const uint32_t m = m0 + lane_;
            bool before = false;
            if (m < end) {
                const uint32_t j = b.bucket_members[m];
                const double v = b.bucket_resp[m]; /* listed with j: no load through j */
                before = v > mine ||
                         (v == mine && j != i && satfeat_fh_order(&b.cand[j], &b.cand[i]) < 0);
            }
            q += (uint32_t)__popc(__ballot_sync(0xffffffffu, before));
        }
        if (grid <= 0) {
            if (q < limit && lane_ < SATFEAT_KP_U64) ((uint64_t *)&out[q])[lane_] = word;
            if (spatial && lane_ == 0) spatial[b.cell_pos[i]] = q < limit ? q : SATFEAT_ORDER_HOLE;
            continue;
        }
        if (lane_ == 0) {
            const satfeat_keypoint *kp = &b.cand[i];
            b.key[q] = (uint32_t)(satfeat_fh_cell_of(kp->y, grid, height) * grid +
                                  satfeat_fh_cell_of(kp->x, grid, width));
            b.val[q] = q;
            b.val2[q] = i;
        }
    }
}

/** Grid only: over the cell-sorted kept positions, marks those within their cell's first per_cell. */
static __global__ void __launch_bounds__(ORDER_THREADS)
fh_cell_cap_kernel(satfeat_fh_order_bufs b, int per_cell)
{
    satfeat_pdl_enter();
    const uint32_t n = b.counters[3];
    for (uint32_t q = blockIdx.x * blockDim.x + threadIdx.x; q < n; q += gridDim.x * blockDim.x) {
        const uint32_t c = b.ck2[q];
        b.keep[b.pos2[q]] = q < (uint32_t)per_cell || b.ck2[q - (uint32_t)per_cell] != c;
    }
}

/**
 * Grid only. One block walks the sorted kept positions in chunks of SELECT_THREADS: a block scan
 * of the cap flags gives each selected keypoint its output slot; the first `limit` are written
 * to `out` and their number to counters[1].
 */
static __global__ void __launch_bounds__(SELECT_THREADS)
fh_select_kernel(satfeat_fh_order_bufs b, uint32_t limit, satfeat_keypoint *out)
{
    satfeat_pdl_enter();
    typedef cub::BlockScan<uint32_t, SELECT_THREADS> scan_t;
    __shared__ typename scan_t::TempStorage tmp;
    const uint32_t n = b.counters[3];
    uint32_t total = 0;
    for (uint32_t base = 0; base < n && total < limit; base += SELECT_THREADS) {
        const uint32_t q = base + threadIdx.x;
        const uint32_t keep = q < n ? b.keep[q] : 0u;
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

/**
 * Grid-stride over words: writes the selected count (counters[1]) to `count` and, when `out` is
 * non-NULL, the first m = min(count, land_cap) keypoints of `out` to `land` (mapped pinned host
 * memory), so the host needs no copy of its own when the list fits the landing buffer. (NULL:
 * the orientation kernel landed them already.)
 */
static __global__ void __launch_bounds__(ORDER_THREADS)
fh_download_kernel(const uint32_t *counters, const satfeat_keypoint *out, uint32_t *count,
                   satfeat_keypoint *land, uint32_t land_cap)
{
    satfeat_pdl_enter();
    const uint32_t n = counters[1];
    if (blockIdx.x == 0 && threadIdx.x == 0) *count = n;
    const size_t m = n < land_cap ? n : land_cap;
    const size_t kp_words = out ? m * KP_WORDS : 0;
    const size_t step = (size_t)gridDim.x * blockDim.x;
    const kp_word *ks = (const kp_word *)out;
    kp_word *kd = (kp_word *)land;
    for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < kp_words; i += step)
        kd[i] = ks[i];
}

extern "C" int satfeat_fh_launch_download(const satfeat_fh_order_bufs *b,
                                          const satfeat_keypoint *out, uint32_t *count,
                                          satfeat_keypoint *land, uint32_t land_cap, void *stream)
{
    const size_t words = out ? (size_t)land_cap * KP_WORDS : 1u;
    return (int)satfeat_pdl_launch(fh_download_kernel, grid_blocks(words), ORDER_THREADS, 0,
                                   (cudaStream_t)stream, b->counters, out, count, land, land_cap);
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

extern "C" size_t satfeat_fh_order_cells(int width, int height)
{
    return (size_t)satfeat_fh_dup_cells(width) * (size_t)satfeat_fh_dup_cells(height);
}

extern "C" size_t satfeat_fh_order_zero_bytes(size_t cells)
{
    return (4u + 2u * (size_t)(SATFEAT_FH_BUCKETS + SATFEAT_FH_BUCKET_GROUPS) + 2u * cells) *
           sizeof(uint32_t);
}

extern "C" int satfeat_fh_launch_sort(satfeat_fh_order_bufs *b, int width, int height,
                                      const uint8_t *mask, size_t mask_stride, int grid,
                                      int dedup, uint32_t base, int max_keypoints,
                                      satfeat_keypoint *out, uint32_t *spatial, void *stream)
{
    cudaStream_t s = (cudaStream_t)stream;
    const int blocks = cand_blocks(b->cap);
    const int warp_blocks = grid_blocks(b->cap * 32u); /* a warp per candidate */
    const int cw = satfeat_fh_dup_cells(width), ch = satfeat_fh_dup_cells(height);
    const uint32_t limit = max_keypoints > 0 && grid <= 0 ? (uint32_t)max_keypoints : 0xFFFFFFFFu;
    cudaError_t e;
    if (dedup) {
        const uint32_t cells = (uint32_t)cw * (uint32_t)ch;
        uint32_t *fill = b->cell_hist + cells; /* zeroed with the frame's cell counts */
        if (grid > 0) spatial = NULL;
        uint32_t *pos = spatial ? b->cell_pos : NULL;
        if (cells <= FOLD_MAX_CELLS) {
            e = satfeat_pdl_launch(fh_cell_place_kernel<true>, blocks, ORDER_THREADS, 0, s, *b, cw,
                                   ch, fill, pos);
        } else {
            e = satfeat_pdl_launch(fh_cell_scan_kernel, 1, ORDER_THREADS, 0, s, *b, cells);
            if (e != cudaSuccess) return (int)e;
            e = satfeat_pdl_launch(fh_cell_place_kernel<false>, blocks, ORDER_THREADS, 0, s, *b,
                                   cw, ch, fill, pos);
        }
        if (e != cudaSuccess) return (int)e;
        e = satfeat_pdl_launch(fh_dup_flag_kernel, warp_blocks, ORDER_THREADS, 0, s, *b, width,
                               height, mask, mask_stride, base, cw, ch);
    } else {
        spatial = NULL; /* no cells, no spatial order */
        e = satfeat_pdl_launch(fh_flag_kernel, blocks, ORDER_THREADS, 0, s, *b, width, height, mask,
                               mask_stride, base);
    }
    if (e != cudaSuccess) return (int)e;
    return (int)satfeat_pdl_launch(fh_rank_kernel, warp_blocks, ORDER_THREADS, 0, s, *b, base,
                                   width, height, grid, limit, out, spatial);
}

extern "C" int satfeat_fh_launch_select(satfeat_fh_order_bufs *b, int grid, int per_cell,
                                        int max_keypoints, satfeat_keypoint *out, void *stream)
{
    cudaStream_t s = (cudaStream_t)stream;
    if (grid <= 0) return 0; /* the rank kernel selected already */
    size_t tb = b->temp_bytes;
    cudaError_t e = cub::DeviceSegmentedRadixSort::SortPairs(
        b->temp, tb, b->key, b->ck2, b->val, b->pos2, (int)b->cap, 1, b->counters + 2,
        b->counters + 3, 0, cell_bits(grid), s);
    if (e != cudaSuccess) return (int)e;
    e = satfeat_pdl_launch(fh_cell_cap_kernel, grid_blocks(b->cap), ORDER_THREADS, 0, s, *b,
                           per_cell);
    if (e != cudaSuccess) return (int)e;
    const uint32_t limit = max_keypoints > 0 ? (uint32_t)max_keypoints : 0xFFFFFFFFu;
    return (int)satfeat_pdl_launch(fh_select_kernel, 1, SELECT_THREADS, 0, s, *b, limit, out);
}
