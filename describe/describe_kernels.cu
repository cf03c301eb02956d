/* describe_kernels.cu - CUDA orientation and SURF descriptor kernels, equal to the CPU's bit for
 * bit: the orientation's sums are exact integers (orientation.h), so its threads add samples in
 * any order; the descriptor's lanes compute the per-sample terms in parallel and then sum in the
 * fixed order of descriptor.h.
 *
 * Work distribution: as many blocks as fit on the multiprocessors at once (16 orientation
 * blocks of 2 warps, one descriptor block of 16 warps); block b takes the b-th of gridDim.x
 * contiguous ranges of the keypoints: an orientation block works through its range one keypoint
 * at a time with all its threads, a descriptor block's warps pull keypoints from its range one
 * at a time. With a spatial processing order (satfeat_describe_order_cuda) a range is one
 * compact part of the image, so a multiprocessor's warps read the same table rows and its L1
 * cache serves most of the reads. */
#include "describe/describe.h"
#include "describe/descriptor.h"
#include "describe/ori_bin_fast.h"
#include "describe/ori_parts.h"
#include "describe/orientation.h"
#include "describe/scharr.h"
#include "src/pdl.cuh"

#include <cuda_runtime.h>
#include <stddef.h>

#define FULL_MASK 0xffffffffu
/* An orientation block: 2 warps, one keypoint at a time, 16 blocks a multiprocessor: faster at
 * 1080p than 4 warps x 8 blocks and 8 warps x 4 (65.6 against 70.3 and 79.3 us) and about as
 * fast at 640x480 (22.5 against 22.0 and 24.3 us). */
#define ORI_THREADS 64
#define ORI_BLOCKS_PER_SM 16
#define ORI_WARPS (ORI_THREADS / 32)
static_assert(ORI_THREADS >= 64 && ORI_THREADS % 32 == 0, "ori_tables needs two warps");
#define DESC_WARPS 16 /* warps of a descriptor block */
/* Orientation samples a thread takes with the filter F (the Haar filter's 437, the Scharr
 * filter's 109), and the most of them padded to whole blocks. */
#define ORI_PER_THREAD_OF(F)                                                                   \
    ((((F) == SATFEAT_ORI_FILTER_HAAR ? SATFEAT_ORI_SAMPLES : SATFEAT_ORI_SAMPLES_SCHARR) +     \
      ORI_THREADS - 1) /                                                                       \
     ORI_THREADS)
#define ORI_PER_THREAD ORI_PER_THREAD_OF(SATFEAT_ORI_FILTER_HAAR)
#define ORI_PADDED (ORI_PER_THREAD * ORI_THREADS)
#define ORI_NONE SATFEAT_ORI_BINS /* the "bin" of a zero response, which adds nothing */
#define ORDER_THREADS 1024
#define ORDER_CELL_BITS 6 /* 64 x 64 cells of the image, in Morton order */
#define ORDER_CELLS (1u << (2 * ORDER_CELL_BITS))
/* The 8-byte word of a keypoint (SATFEAT_KP_U64 words, its landing copy) that holds its angle. */
#define ANGLE_WORD (offsetof(satfeat_keypoint, angle) / 8)
static_assert(offsetof(satfeat_keypoint, angle) % 8 == 0, "angle not a whole 8-byte word");

/** The table rows of one orientation row offset: the Haar pair's start, middle and end (r[3]
 *  unused), or the Scharr lattice's four rows. */
typedef struct ori_rows {
    const uint32_t *r[4];
} ori_rows;

/** A keypoint's 72 bin sums as the int32 parts of ori_parts.h (units of 2^-14), one array per
 *  part and component: the lanes of an atomic on bins b and b + 8 fall in different banks (as
 *  four words of one bin they fell in the same one). */
typedef struct ori_bins {
    int32_t x_lo[SATFEAT_ORI_BINS], y_lo[SATFEAT_ORI_BINS];
    int32_t x_hi[SATFEAT_ORI_BINS], y_hi[SATFEAT_ORI_BINS];
} ori_bins;

/** A keypoint's sample grid: the clamped columns (Haar: s, m, e, -; Scharr: the lattice's four)
 *  and table rows of its 23 offsets. */
typedef struct ori_grid {
    int4 col[2 * SATFEAT_ORI_RADIUS];
    ori_rows row[2 * SATFEAT_ORI_RADIUS];
} ori_grid;

/** An orientation block's shared memory: the sample weights as integers q = g * 2^14 (0 for the
 *  padding past the last sample) and offsets (i + 12) | (j + 12) << 8 (the padding holds the
 *  centre); two grids, two sets of 72 bin sums (ori_bins) and two sets of the samples' bins
 *  (ORI_NONE for the ones that add nothing), so that one keypoint's window search and
 *  refinement overlap the next one's samples. */
typedef struct ori_shared {
    int32_t q[ORI_PADDED];
    uint16_t ij[ORI_PADDED];
    ori_grid grid[2];
    ori_bins bin[2];
    uint8_t key[2][ORI_PADDED];
    uint16_t edge[ORI_WARPS][ORI_PADDED]; /* each warp's list of edge-bin samples (ori_refine) */
} ori_shared;

/** One descriptor warp's shared memory: the rotated responses and the unnormalised values. */
typedef struct desc_scratch {
    double rx[SATFEAT_DESC_SAMPLES], ry[SATFEAT_DESC_SAMPLES];
    double val[128];
} desc_scratch;

/* The keypoint count read on the device, clamped to the host-known maximum. */
static __device__ uint32_t desc_count(const uint32_t *d_count, uint32_t max_n)
{
    const uint32_t n = *d_count;
    return n < max_n ? n : max_n;
}

/* The next keypoint index of this warp's block, or UINT32_MAX when its range is done: lane 0
 * takes the next position t of [*next, hi) and every lane gets order[t] (t without an order);
 * positions that hold SATFEAT_ORDER_HOLE are passed over. */
static __device__ uint32_t next_keypoint(unsigned *next, uint32_t hi, const uint32_t *order)
{
    for (;;) {
        unsigned t = 0;
        if ((threadIdx.x & 31) == 0) t = atomicAdd(next, 1u);
        t = __shfl_sync(FULL_MASK, t, 0);
        if (t >= hi) return UINT32_MAX;
        const uint32_t i = order ? order[t] : t;
        if (i != SATFEAT_ORDER_HOLE) return i;
    }
}

/* Sets *next to the first position of this block's range of n and returns its end. */
static __device__ uint32_t block_range(uint32_t n, unsigned *next)
{
    const uint64_t b = blockIdx.x, g = gridDim.x;
    if (threadIdx.x == 0) *next = (unsigned)((uint64_t)n * b / g);
    __syncthreads();
    return (uint32_t)((uint64_t)n * (b + 1) / g);
}

/* The exact bin of a response (kept out of line: rarely needed, and large): the CPU's function
 * of the weighted pair, the weight being q * 2^-14 (the products are exact). */
static __device__ __noinline__ int ori_bin_exact(int32_t dx, int32_t dy, int32_t q)
{
    const double g = (double)q * (1.0 / (double)(1 << SATFEAT_ORI_WEIGHT_BITS));
    return satfeat_ori_bin(g * (double)dy, g * (double)dx);
}

/* Threads 0..22 (columns) and 32..54 (rows) of the block round the 23 offsets of keypoint p's
 * sample grid to clamped table corners and table rows (the expressions of satfeat_ori_response):
 * the Haar pair's three columns and rows, or the Scharr lattice's four (filter F). */
template <int F>
static __device__ void ori_tables(const uint32_t *__restrict__ sat, size_t st, int width,
                                  int height, const satfeat_keypoint *p,
                                  const satfeat_describe_weights *__restrict__ w, ori_grid *s,
                                  int t)
{
    const int k = t & 31, offsets = 2 * SATFEAT_ORI_RADIUS - 1;
    if (t >= 64 || k >= offsets) return;
    const satfeat_ori_setup o = satfeat_ori_prepare(p->x, p->y, p->sigma, w);
    const double off = (double)(k - (SATFEAT_ORI_RADIUS - 1)) * o.hs;
    const bool cols = t < 32;
    const int v = satfeat_dg_corner((cols ? o.x : o.y) + off), limit = cols ? width : height;
    int c[4];
    if (F == SATFEAT_ORI_FILTER_HAAR) {
        c[0] = satfeat_haar_clamp(v - o.half, 0, limit);
        c[1] = satfeat_haar_clamp(v, 0, limit);
        c[2] = satfeat_haar_clamp(v + o.half, 0, limit);
        c[3] = c[1];
    } else {
        satfeat_scharr_lattice(v, o.scharr_half, limit, c);
    }
    if (cols) {
        s->col[k] = make_int4(c[0], c[1], c[2], c[3]);
    } else {
        ori_rows r;
        for (int m = 0; m < 4; m++) r.r[m] = sat + (size_t)c[m] * st;
        s->row[k] = r;
    }
}

/* Clears one set of bins (entries first, first + step, ...: the caller's threads share it). */
static __device__ void ori_clear(ori_bins *bins, int first, int step)
{
    for (int b = first; b < SATFEAT_ORI_BINS; b += step) {
        bins->x_lo[b] = 0;
        bins->y_lo[b] = 0;
        bins->x_hi[b] = 0;
        bins->y_hi[b] = 0;
    }
}

/* Adds the weighted response (vx, vy) to bin `key` in parts (ori_parts.h). (Skipping the high
 * parts that are 0, two thirds of them, halved the atomics' wavefronts again but cost as much in
 * instructions.) */
static __device__ __forceinline__ void ori_add(ori_bins *bins, int key, long long vx, long long vy)
{
    const int32_t lx = satfeat_ori_lo(vx), ly = satfeat_ori_lo(vy);
    const int32_t hx = satfeat_ori_hi(vx, lx), hy = satfeat_ori_hi(vy, ly);
    atomicAdd(&bins->x_lo[key], lx);
    atomicAdd(&bins->y_lo[key], ly);
    atomicAdd(&bins->x_hi[key], hx);
    atomicAdd(&bins->y_hi[key], hy);
}

/* The response of one sample from its grid column and rows: the Haar pair (8 reads) or the
 * Scharr derivative (16 reads), as satfeat_ori_response gives it. */
template <int F>
static __device__ __forceinline__ void ori_read(const int4 col, const ori_rows r, int32_t *dx,
                                                int32_t *dy)
{
    if (F == SATFEAT_ORI_FILTER_HAAR) {
        satfeat_haar_pair(__ldg(r.r[0] + col.x), __ldg(r.r[0] + col.y), __ldg(r.r[0] + col.z),
                          __ldg(r.r[1] + col.x), __ldg(r.r[1] + col.z), __ldg(r.r[2] + col.x),
                          __ldg(r.r[2] + col.y), __ldg(r.r[2] + col.z), dx, dy);
    } else {
        uint32_t e[4][4];
#pragma unroll
        for (int j = 0; j < 4; j++) {
            e[j][0] = __ldg(r.r[j] + col.x);
            e[j][1] = __ldg(r.r[j] + col.y);
            e[j][2] = __ldg(r.r[j] + col.z);
            e[j][3] = __ldg(r.r[j] + col.w);
        }
        satfeat_scharr_combine(e, dx, dy);
    }
}

/* Thread t's samples t, t + ORI_THREADS, ... of the current keypoint: their responses from the
 * tables (every table read first, so that all are in flight together), their bins (the
 * branch-free float estimate, the exact function where it cannot decide) and the weighted
 * responses q * dx, q * dy added to their bins with shared-memory atomics (ori_add): exact
 * integers, so the order in which the atomics land does not matter (orientation.h). Zero
 * responses and the padding add nothing and are skipped. */
template <int F>
static __device__ void ori_accumulate(const ori_shared *s, const ori_grid *grid, ori_bins *bins,
                                      uint8_t *keys, int t)
{
    enum { PER = ORI_PER_THREAD_OF(F) };
    int32_t rdx[PER], rdy[PER], q[PER];
    int key[PER];
#pragma unroll
    for (int c = 0; c < PER; c++) {
        const int k = t + c * ORI_THREADS;
        q[c] = s->q[k];
        const uint32_t ij = s->ij[k];
        /* offsets i, j in [-11, 11]: table entries 1 .. 23 of col / row are at index i + 11 */
        int32_t dx, dy;
        ori_read<F>(grid->col[(ij & 0xffu) - 1u], grid->row[(ij >> 8) - 1u], &dx, &dy);
        rdx[c] = dx;
        rdy[c] = dy;
        key[c] = ((dx | dy) == 0 || q[c] == 0) ? ORI_NONE : satfeat_ori_bin_estimate(dx, dy);
    }
#pragma unroll
    for (int c = 0; c < PER; c++) {
        if (key[c] < 0) key[c] = ori_bin_exact(rdx[c], rdy[c], q[c]);
        keys[t + c * ORI_THREADS] = (uint8_t)key[c];
    }
    /* odd lanes add their samples in the reverse order, so that the lanes of one atomic hold
     * samples of two rows of the grid: neighbouring samples often share a bin, and the lanes of
     * one bin serialise */
    const bool reverse = (t & 1) != 0;
#pragma unroll
    for (int c = 0; c < PER; c++) {
        const int r = PER - 1 - c; /* indices known at compile time: selects */
        const int kc = reverse ? key[r] : key[c];
        if (kc == ORI_NONE) continue;
        const long long qc = reverse ? q[r] : q[c];
        ori_add(bins, kc, qc * (reverse ? rdx[r] : rdx[c]), qc * (reverse ? rdy[r] : rdy[c]));
    }
}

/* One warp of the block: the best window of the bin sums and its angle (every lane returns it).
 * Lane l < 24 takes windows 3l, 3l+1, 3l+2 from bins 3l .. 3l+13 (integer sums, exact), turns
 * them into the CPU's doubles (the sum times 2^-14, exact below 2^53) and their norms; a shuffle
 * reduction picks the largest norm, ties to the lowest window, as the CPU's ascending scan does.
 * The bins are left as they are (ori_refine reads them; the caller clears them). */
static __device__ double ori_best(ori_bins *bins, int lane)
{
    const double unit = 1.0 / (double)(1 << SATFEAT_ORI_WEIGHT_BITS);
    double best = -1.0, bsx = 0.0, bsy = 0.0;
    int best_k = 0;
    if (lane < SATFEAT_ORI_BINS / 3) {
        long long bx[SATFEAT_ORI_WINDOW + 2], by[SATFEAT_ORI_WINDOW + 2];
        long long wx = 0, wy = 0;
#pragma unroll
        for (int m = 0; m < SATFEAT_ORI_WINDOW + 2; m++) {
            int b = 3 * lane + m;
            if (b >= SATFEAT_ORI_BINS) b -= SATFEAT_ORI_BINS;
            bx[m] = satfeat_ori_join(bins->x_hi[b], bins->x_lo[b]);
            by[m] = satfeat_ori_join(bins->y_hi[b], bins->y_lo[b]);
            if (m < SATFEAT_ORI_WINDOW) {
                wx += bx[m];
                wy += by[m];
            }
        }
#pragma unroll
        for (int w = 0; w < 3; w++) {
            if (w > 0) { /* slide by one bin */
                wx += bx[w + SATFEAT_ORI_WINDOW - 1] - bx[w - 1];
                wy += by[w + SATFEAT_ORI_WINDOW - 1] - by[w - 1];
            }
            const double sx = (double)wx * unit, sy = (double)wy * unit;
            const double n2 = satfeat_ori_norm2(sx, sy);
            if (n2 > best) { /* ascending windows: ties keep the lower one */
                best = n2;
                best_k = 3 * lane + w;
                bsx = sx;
                bsy = sy;
            }
        }
    }
    /* the best (norm, window) over the lanes; the winner's lane (window / 3) has its sums */
    for (int off = 16; off > 0; off >>= 1) {
        const double ob = __shfl_xor_sync(FULL_MASK, best, off);
        const int ok = __shfl_xor_sync(FULL_MASK, best_k, off);
        if (ob > best || (ob == best && ok < best_k)) {
            best = ob;
            best_k = ok;
        }
    }
    bsx = __shfl_sync(FULL_MASK, bsx, best_k / 3);
    bsy = __shfl_sync(FULL_MASK, bsy, best_k / 3);
    return satfeat_am_angle(bsy, bsx);
}

/* The refinement window (+-30 degrees) in bins, and the margin (in bins) beyond which a bin's
 * samples are certainly in or out of it: the bin of a response and satfeat_ori_in_window agree
 * on its angle to about 1e-12 rad, far inside 1/8 of a 5-degree bin. */
#define ORI_REFINE_HALF (SATFEAT_ORI_BINS * 30.0 / 360.0)
#define ORI_REFINE_MARGIN 0.125

/* Where bin b lies against the refinement window centred on bin coordinate ab (the angle times
 * 72 / 2 pi): 1 every angle of the bin is within it, 0 none is, -1 the bin holds an edge. */
static __device__ int ori_refine_side(int b, double ab)
{
    double lo = (double)b - ab; /* the bin is [lo, lo + 1) relative to the centre */
    if (lo < -0.5 * SATFEAT_ORI_BINS) lo += SATFEAT_ORI_BINS;
    else if (lo >= 0.5 * SATFEAT_ORI_BINS) lo -= SATFEAT_ORI_BINS;
    const double inner = ORI_REFINE_HALF - ORI_REFINE_MARGIN;
    const double outer = ORI_REFINE_HALF + ORI_REFINE_MARGIN;
    if (lo >= -inner && lo + 1.0 <= inner) return 1;
    if (lo + 1.0 <= -outer || lo >= outer) return 0;
    return -1;
}

/* The refined angle of keypoint p (satfeat_ori_refine in orientation.h) from its best window's
 * angle a, by one warp, from the keypoint's bin sums and sample bins (keys): the bins wholly
 * inside the +-30 degree window add their exact sums (lane l takes bins l, l + 32, l + 64); the
 * samples of the few bins that hold a window edge are listed in order in `list` (the warp's
 * ballots), then read again from the table (the header's satfeat_ori_response; lane l takes list
 * entries l, l + 32, ...: the lanes stay busy), tested with satfeat_ori_in_window and add
 * q dx, q dy (q = g 2^14). Every sum is an exact integer, so this is the sum of every sample
 * within the window that the CPU forms; the warp's sums times 2^-14 are the CPU's doubles and
 * every lane returns satfeat_ori_refined. Reading the bins instead of every sample keeps the
 * table reads of the refinement to the edge bins' samples. */
static __device__ double ori_refine(const uint32_t *__restrict__ sat, size_t st, int width,
                                    int height, const satfeat_keypoint *p,
                                    const satfeat_describe_weights *__restrict__ w, double a,
                                    const ori_bins *bins, const uint8_t *keys, int samples,
                                    uint16_t *list, int lane)
{
    static_assert(SATFEAT_ORI_BINS <= 96, "three bins a lane");
    const double ab = a * ((double)SATFEAT_ORI_BINS / SATFEAT_AM_2PI);
    long long sx = 0, sy = 0;
    unsigned edge[3];
#pragma unroll
    for (int r = 0; r < 3; r++) {
        const int b = lane + 32 * r;
        const int side = b < SATFEAT_ORI_BINS ? ori_refine_side(b, ab) : 0;
        if (side == 1) {
            sx += satfeat_ori_join(bins->x_hi[b], bins->x_lo[b]);
            sy += satfeat_ori_join(bins->y_hi[b], bins->y_lo[b]);
        }
        edge[r] = __ballot_sync(FULL_MASK, side < 0);
    }
    unsigned n = 0;
    for (int k0 = 0; k0 < samples; k0 += 32) {
        const int k = k0 + lane, b = k < samples ? keys[k] : ORI_NONE;
        const bool on = b != ORI_NONE && ((edge[b >> 5] >> (b & 31)) & 1u);
        const unsigned m = __ballot_sync(FULL_MASK, on);
        if (on) list[n + __popc(m & ((1u << lane) - 1u))] = (uint16_t)k;
        n += __popc(m);
    }
    __syncwarp(); /* the list is written */
    const satfeat_ori_setup o = satfeat_ori_prepare(p->x, p->y, p->sigma, w);
    double sn, c;
    satfeat_am_sincos(a, &sn, &c);
    for (unsigned e = lane; e < n; e += 32) {
        const int k = list[e];
        int32_t dx, dy;
        satfeat_ori_response(sat, st, width, height, &o, w, k, &dx, &dy);
        const double g = w->ori_w[k];
        if (satfeat_ori_in_window(g * (double)dx, g * (double)dy, c, sn)) {
            const long long q = (long long)(g * (double)(1 << SATFEAT_ORI_WEIGHT_BITS));
            sx += q * (long long)dx;
            sy += q * (long long)dy;
        }
    }
    for (int off = 16; off > 0; off >>= 1) {
        sx += __shfl_xor_sync(FULL_MASK, sx, off);
        sy += __shfl_xor_sync(FULL_MASK, sy, off);
    }
    const double unit = 1.0 / (double)(1 << SATFEAT_ORI_WEIGHT_BITS);
    return satfeat_ori_refined(a, (double)sx * unit, (double)sy * unit);
}

/* The first position from pos on in [pos, hi) that holds a keypoint (not a hole), or hi. */
static __device__ uint32_t ori_next_position(const uint32_t *__restrict__ order, uint32_t pos,
                                             uint32_t hi)
{
    while (pos < hi && order && order[pos] == SATFEAT_ORDER_HOLE) pos++;
    return pos;
}

/**
 * Orientation: writes kp[i].angle (and the landing copy of the keypoint) for the keypoints
 * i < min(*d_count, max_n), taken in the given processing order (NULL: index order). Block b
 * takes the b-th of gridDim.x contiguous ranges of the positions and works through it one
 * keypoint at a time with both warps: every thread adds its samples (7 of the Haar filter's 437,
 * 2 of the Scharr filter's 109; F) to the bins (ori_accumulate) while the two warps build the
 * next keypoint's grid (ori_tables); after the one barrier per keypoint, warp (n mod 2) of the n-th keypoint picks its window (ori_best),
 * refines the angle unless w->ori_refine is 0 (ori_refine), clears the bins and writes the
 * angle, while the other goes on with the next keypoint in the other grid and bins. Reads the
 * table, the keypoints and the weights; static shared memory only (ori_shared, about 10 KB).
 */
template <int F>
static __global__ void __launch_bounds__(ORI_THREADS, ORI_BLOCKS_PER_SM)
orient_kernel(const uint32_t *__restrict__ sat, size_t st, int width, int height,
              satfeat_keypoint *kp, const uint32_t *d_count, uint32_t max_n,
              const uint32_t *__restrict__ order, const satfeat_describe_weights *__restrict__ w,
              satfeat_land_dst land)
{
    __shared__ ori_shared s;
    satfeat_pdl_enter();
    const int t = (int)threadIdx.x, lane = t & 31;
    const int samples = ORI_PER_THREAD_OF(F) * ORI_THREADS, n_used = w->ori_n;
    for (int k = t; k < samples; k += ORI_THREADS) {
        const int in = k < n_used;
        /* ori_w is a multiple of 2^-14 in (0, 1]: the product is an exact integer */
        s.q[k] = in ? (int32_t)(w->ori_w[k] * (double)(1 << SATFEAT_ORI_WEIGHT_BITS)) : 0;
        s.ij[k] = (uint16_t)((uint32_t)((in ? w->ori_i[k] : 0) + SATFEAT_ORI_RADIUS) |
                             ((uint32_t)((in ? w->ori_j[k] : 0) + SATFEAT_ORI_RADIUS) << 8));
    }
    ori_clear(&s.bin[0], t, ORI_THREADS);
    ori_clear(&s.bin[1], t, ORI_THREADS);
    const uint64_t n = desc_count(d_count, max_n), b = blockIdx.x, g = gridDim.x;
    const uint32_t hi = (uint32_t)(n * (b + 1) / g);
    uint32_t pos = ori_next_position(order, (uint32_t)(n * b / g), hi);
    if (pos < hi)
        ori_tables<F>(sat, st, width, height, &kp[order ? order[pos] : pos], w, &s.grid[0], t);
    __syncthreads(); /* weights, the first grid and the bins are ready */
    for (int it = 0; pos < hi; it++) {
        const int cur = it & 1;
        const uint32_t i = order ? order[pos] : pos;
        const uint32_t next = ori_next_position(order, pos + 1, hi);
        ori_accumulate<F>(&s, &s.grid[cur], &s.bin[cur], s.key[cur], t);
        if (next < hi)
            ori_tables<F>(sat, st, width, height, &kp[order ? order[next] : next], w,
                          &s.grid[cur ^ 1], t);
        __syncthreads(); /* keypoint i's samples are in its bins; the next grid is written */
        pos = next;
        if ((t >> 5) != it % ORI_WARPS) continue;
        double a = ori_best(&s.bin[cur], lane);
        if (w->ori_refine)
            a = ori_refine(sat, st, width, height, &kp[i], w, a, &s.bin[cur], s.key[cur],
                           samples, s.edge[t >> 5], lane);
        __syncwarp(); /* every bin is read before it is cleared */
        ori_clear(&s.bin[cur], lane, 32);
        /* the landing copy: the keypoint's 8-byte words, the angle's word replaced */
        const bool landed = land.kp != NULL && i < land.cap && lane < (int)SATFEAT_KP_U64;
        const unsigned long long word =
            landed ? ((const unsigned long long *)&kp[i])[lane] : 0ull;
        __syncwarp(); /* every word is read before the angle is written */
        if (lane == 0) kp[i].angle = a;
        if (landed)
            ((unsigned long long *)&land.kp[i])[lane] =
                lane == (int)ANGLE_WORD ? (unsigned long long)__double_as_longlong(a) : word;
    }
}

/**
 * Descriptor: per keypoint (taken as in orient_kernel) the lanes compute the 576 rotated samples
 * into shared memory; lane l sums part (l & 1) of subregion l / 2 over its 81 weighted samples in
 * the fixed order; every lane then computes the norm (L2, or L1 for the root normalisation) in
 * index order and writes values l, l+32, ... of the normalised vector (satfeat_desc_value). Reads the table, keypoints and weights; writes dim floats per keypoint.
 * Dynamic shared memory: DESC_WARPS desc_scratch.
 */
static __global__ void __launch_bounds__(DESC_WARPS * 32, 1)
describe_kernel(const uint32_t *__restrict__ sat, size_t st, int width, int height,
                const satfeat_keypoint *__restrict__ kp, const uint32_t *d_count, uint32_t max_n,
                const uint32_t *__restrict__ order, int flags, int dim,
                const satfeat_describe_weights *__restrict__ w, float *__restrict__ desc,
                satfeat_land_dst land)
{
    extern __shared__ double s_dyn[];
    __shared__ unsigned s_next;
    satfeat_pdl_enter();
    desc_scratch *sm = (desc_scratch *)s_dyn + (threadIdx.x >> 5);
    const int lane = (int)(threadIdx.x & 31);
    const uint32_t hi = block_range(desc_count(d_count, max_n), &s_next);
    const int upright = (flags & SATFEAT_DESC_UPRIGHT) != 0, root = (flags & SATFEAT_DESC_ROOT) != 0;
    for (;;) {
        const uint32_t i = next_keypoint(&s_next, hi, order);
        if (i == UINT32_MAX) break;
        const satfeat_desc_setup d =
            satfeat_desc_prepare(kp[i].x, kp[i].y, kp[i].sigma, kp[i].angle, upright, w->desc_haar);
#pragma unroll 6
        for (int k = lane; k < SATFEAT_DESC_SAMPLES; k += 32)
            satfeat_desc_sample(sat, st, width, height, &d, k, &sm->rx[k], &sm->ry[k]);
        __syncwarp();
        satfeat_desc_part(sm->rx, sm->ry, w, lane >> 1, lane & 1, dim, sm->val);
        __syncwarp();
        const double scale = satfeat_desc_scale(sm->val, dim, root);
        float *out = desc + i * (size_t)dim;
        float *landed = land.desc != NULL && i < land.cap ? land.desc + i * (size_t)dim : NULL;
        for (int v = lane; v < dim; v += 32) {
            const float u = satfeat_desc_value(sm->val, v, scale, root);
            out[v] = u;
            if (landed) landed[v] = u;
        }
        __syncwarp();
    }
}

/* v's low 6 bits spread to the even bit positions (Morton code). */
static __device__ unsigned spread6(unsigned v)
{
    v &= 63u;
    v = (v | (v << 4)) & 0x0F0Fu;
    v = (v | (v << 2)) & 0x3333u;
    return (v | (v << 1)) & 0x5555u;
}

/* The cell of a coordinate: floor(v / 2^shift) clamped to [0, 63] (NaN gives 0). */
static __device__ unsigned cell_of(double v, int shift)
{
    const double c = floor(v * (1.0 / (double)(1u << shift)));
    if (!(c >= 0.0)) return 0;
    return c >= 63.0 ? 63u : (unsigned)c;
}

/**
 * Spatial processing order (one block): counts the keypoints i < min(*d_count, max_n) per image
 * cell of 2^shift pixels (cells in Morton order), and writes order[] = the keypoint indices
 * grouped by cell (the order within a cell is arbitrary: the kernels' results do not depend on
 * it). cell[] (max_n entries) is scratch.
 */
static __global__ void __launch_bounds__(ORDER_THREADS)
order_kernel(const satfeat_keypoint *__restrict__ kp, const uint32_t *d_count, uint32_t max_n,
             int shift, uint32_t *__restrict__ order, uint32_t *__restrict__ cell)
{
    __shared__ unsigned s_cell[ORDER_CELLS];
    __shared__ unsigned s_warp[ORDER_THREADS / 32];
    const uint32_t n = desc_count(d_count, max_n);
    const unsigned tid = threadIdx.x, lane = tid & 31u, wid = tid >> 5;
    for (unsigned c = tid; c < ORDER_CELLS; c += ORDER_THREADS) s_cell[c] = 0;
    __syncthreads();
    for (uint32_t i = tid; i < n; i += ORDER_THREADS) {
        const unsigned c = spread6(cell_of(kp[i].x, shift)) | (spread6(cell_of(kp[i].y, shift)) << 1);
        cell[i] = c;
        atomicAdd(&s_cell[c], 1u);
    }
    __syncthreads();
    /* exclusive prefix of the counts: thread t holds cells 4t .. 4t+3 */
    const unsigned per = ORDER_CELLS / ORDER_THREADS;
    unsigned v[ORDER_CELLS / ORDER_THREADS], own = 0;
    for (unsigned j = 0; j < per; j++) own += v[j] = s_cell[tid * per + j];
    unsigned incl = own;
    for (unsigned d = 1; d < 32; d <<= 1) {
        const unsigned u = __shfl_up_sync(FULL_MASK, incl, d);
        if (lane >= d) incl += u;
    }
    if (lane == 31) s_warp[wid] = incl;
    __syncthreads();
    if (wid == 0) {
        unsigned t = s_warp[lane], x = t;
        for (unsigned d = 1; d < 32; d <<= 1) {
            const unsigned u = __shfl_up_sync(FULL_MASK, x, d);
            if (lane >= d) x += u;
        }
        s_warp[lane] = x - t; /* exclusive */
    }
    __syncthreads();
    unsigned e = s_warp[wid] + incl - own;
    for (unsigned j = 0; j < per; j++) {
        s_cell[tid * per + j] = e;
        e += v[j];
    }
    __syncthreads();
    for (uint32_t i = tid; i < n; i += ORDER_THREADS) order[atomicAdd(&s_cell[cell[i]], 1u)] = i;
}

/* The number of multiprocessors of the current device (0 on error). */
static int device_sms(void)
{
    int dev = 0, sms = 0;
    if (cudaGetDevice(&dev) != cudaSuccess) return 0;
    if (cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev) != cudaSuccess) return 0;
    return sms;
}

/* Blocks for max_n keypoints at `warps` a block: `per_sm` a multiprocessor, fewer for few
 * keypoints. */
static unsigned grid_for(uint32_t max_n, unsigned warps, unsigned per_sm)
{
    const int sms = device_sms();
    const unsigned need = (unsigned)((max_n + warps - 1) / warps);
    const unsigned cap = sms > 0 ? (unsigned)sms * per_sm : 1u;
    return need < cap ? need : cap;
}

/* Allows the kernels their dynamic shared memory (above the 48 KB default); skipped while
 * `stream` is being captured (the weights upload, which runs first, set it already). */
static cudaError_t allow_shared(cudaStream_t stream)
{
    cudaStreamCaptureStatus cs = cudaStreamCaptureStatusNone;
    cudaError_t e = cudaStreamIsCapturing(stream, &cs);
    if (e != cudaSuccess || cs != cudaStreamCaptureStatusNone) return e;
    return cudaFuncSetAttribute(describe_kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                (int)(DESC_WARPS * sizeof(desc_scratch)));
}

extern "C" size_t satfeat_describe_weights_bytes(void)
{
    return sizeof(satfeat_describe_weights);
}

extern "C" int satfeat_describe_weights_upload(const satfeat_describe_weights *w, void *d_w,
                                               void *stream)
{
    const cudaError_t e = allow_shared((cudaStream_t)stream);
    if (e != cudaSuccess) return (int)e;
    return (int)cudaMemcpyAsync(d_w, w, sizeof *w, cudaMemcpyHostToDevice, (cudaStream_t)stream);
}

extern "C" int satfeat_describe_order_cuda(const satfeat_keypoint *d_kp, const uint32_t *d_count,
                                           uint32_t max_n, int width, int height,
                                           uint32_t *d_order, uint32_t *d_cell, void *stream)
{
    if (max_n == 0) return (int)cudaSuccess;
    const int side = width > height ? width : height;
    int shift = 4; /* cells of at least 16 pixels, at most 64 of them across */
    while (shift < 24 && (side >> shift) >= (1 << ORDER_CELL_BITS)) shift++;
    order_kernel<<<1, ORDER_THREADS, 0, (cudaStream_t)stream>>>(d_kp, d_count, max_n, shift,
                                                                d_order, d_cell);
    return (int)cudaGetLastError();
}

extern "C" int satfeat_orient_cuda_ordered(const uint32_t *d_sat, size_t sat_stride, int width,
                                           int height, satfeat_keypoint *d_kp,
                                           const uint32_t *d_count, uint32_t max_n,
                                           const uint32_t *d_order,
                                           const satfeat_describe_weights *d_w, int filter,
                                           satfeat_land_dst land, void *stream)
{
    if (max_n == 0) return (int)cudaSuccess;
    const unsigned grid = grid_for(max_n, 1, ORI_BLOCKS_PER_SM);
    if (filter == SATFEAT_ORI_FILTER_HAAR)
        return (int)satfeat_pdl_launch(orient_kernel<SATFEAT_ORI_FILTER_HAAR>, grid, ORI_THREADS,
                                       0, (cudaStream_t)stream, d_sat, sat_stride, width, height,
                                       d_kp, d_count, max_n, d_order, d_w, land);
    return (int)satfeat_pdl_launch(orient_kernel<SATFEAT_ORI_FILTER_SCHARR>, grid, ORI_THREADS, 0,
                                   (cudaStream_t)stream, d_sat, sat_stride, width, height, d_kp,
                                   d_count, max_n, d_order, d_w, land);
}

extern "C" int satfeat_orient_cuda(const uint32_t *d_sat, size_t sat_stride, int width,
                                   int height, satfeat_keypoint *d_kp, const uint32_t *d_count,
                                   uint32_t max_n, const satfeat_describe_weights *d_w,
                                   int filter, satfeat_land_dst land, void *stream)
{
    return satfeat_orient_cuda_ordered(d_sat, sat_stride, width, height, d_kp, d_count, max_n,
                                       NULL, d_w, filter, land, stream);
}

extern "C" int satfeat_describe_cuda_ordered(const uint32_t *d_sat, size_t sat_stride, int width,
                                             int height, const satfeat_keypoint *d_kp,
                                             const uint32_t *d_count, uint32_t max_n,
                                             const uint32_t *d_order, int flags, int dim,
                                             const satfeat_describe_weights *d_w, float *d_desc,
                                             satfeat_land_dst land, void *stream)
{
    if (max_n == 0) return (int)cudaSuccess;
    const cudaError_t e = allow_shared((cudaStream_t)stream);
    if (e != cudaSuccess) return (int)e;
    return (int)satfeat_pdl_launch(describe_kernel, grid_for(max_n, DESC_WARPS, 1), DESC_WARPS * 32,
                                   DESC_WARPS * sizeof(desc_scratch), (cudaStream_t)stream, d_sat,
                                   sat_stride, width, height, d_kp, d_count, max_n, d_order,
                                   flags, dim == 128 ? 128 : 64, d_w, d_desc, land);
}

extern "C" int satfeat_describe_cuda(const uint32_t *d_sat, size_t sat_stride, int width,
                                     int height, const satfeat_keypoint *d_kp,
                                     const uint32_t *d_count, uint32_t max_n, int flags,
                                     int dim, const satfeat_describe_weights *d_w, float *d_desc,
                                     satfeat_land_dst land, void *stream)
{
    return satfeat_describe_cuda_ordered(d_sat, sat_stride, width, height, d_kp, d_count, max_n,
                                         NULL, flags, dim, d_w, d_desc, land, stream);
}
