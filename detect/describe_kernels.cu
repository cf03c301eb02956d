/* describe_kernels.cu - CUDA orientation and SURF descriptor kernels: one warp per keypoint, the
 * lanes compute the per-sample terms in parallel, then every sum is done in the fixed order of
 * orientation.h / descriptor.h, so the results equal the CPU's bit for bit.
 *
 * Work distribution: as many blocks as fit on the multiprocessors at once (two orientation blocks
 * of 11 warps, one descriptor block of 16 warps); block b takes the b-th of gridDim.x contiguous
 * ranges of the keypoints, and its warps pull keypoints from that range one at a time. With a
 * spatial processing order (satfeat_describe_order_cuda) a range is one compact part of the
 * image, so a multiprocessor's warps read the same table rows and its L1 cache serves most of the
 * reads. */
#include "describe_cuda.h"
#include "descriptor.h"
#include "ori_bin_fast.h"
#include "orientation.h"

#include <cuda_runtime.h>
#include <stddef.h>

#define FULL_MASK 0xffffffffu
#define ORI_WARPS 11 /* warps of an orientation block: two blocks fill a Hopper multiprocessor */
#define ORI_BLOCKS_PER_SM 2
#define DESC_WARPS 16 /* warps of a descriptor block */
#define ORI_CHUNKS ((SATFEAT_ORI_SAMPLES + 31) / 32) /* 32-sample chunks of the orientation */
#define ORI_PADDED (ORI_CHUNKS * 32)
#define ORI_NONE SATFEAT_ORI_BINS /* the "bin" of a zero response, which adds nothing */
#define ORDER_THREADS 1024
#define ORDER_CELL_BITS 6 /* 64 x 64 cells of the image, in Morton order */
#define ORDER_CELLS (1u << (2 * ORDER_CELL_BITS))
/* The 8-byte word of a keypoint (SATFEAT_KP_U64 words, its landing copy) that holds its angle. */
#define ANGLE_WORD (offsetof(satfeat_keypoint, angle) / 8)
static_assert(offsetof(satfeat_keypoint, angle) % 8 == 0, "angle not a whole 8-byte word");

/** The three table rows (start, middle, end) of one orientation row offset. */
typedef struct ori_rows {
    const uint32_t *s, *m, *e;
} ori_rows;

/** One orientation warp's shared memory: the clamped columns (s, m, e, -) and the table rows of
 *  the 23 sample offsets, the weighted responses (x, y) grouped by bin (ascending sample index
 *  within a bin) with their bins, the bin starts and the bin sums. */
typedef struct ori_scratch {
    int4 col[2 * SATFEAT_ORI_RADIUS];
    ori_rows row[2 * SATFEAT_ORI_RADIUS];
    double2 xy[ORI_PADDED];
    double2 bin[SATFEAT_ORI_BINS];
    int start[SATFEAT_ORI_BINS + 4];
    uint8_t bin_of[ORI_PADDED];
} ori_scratch;

/** An orientation block's copy of the sample weights and offsets (i + 12) | (j + 12) << 8; the
 *  padding entries past the last sample hold the centre offset (0, 0) and weight 0. */
typedef struct ori_block {
    double g[ORI_PADDED];
    uint16_t ij[ORI_PADDED];
} ori_block;

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

/* The exact bin of a response (kept out of line: rarely needed, and large). */
static __device__ __noinline__ int ori_bin_exact(int32_t dx, int32_t dy, double g)
{
    return satfeat_ori_bin(g * (double)dy, g * (double)dx);
}

/**
 * The orientation of one keypoint by one warp (every lane returns it), in the order of
 * orientation.h:
 *  - lanes 0..22 round the 23 column and row offsets of the grid to clamped table corners and
 *    table rows (the expressions of satfeat_ori_haar);
 *  - lane l computes the Haar pairs of samples l, l+32, ... and their bins: the branch-free float
 *    estimate for all of them first (so the table reads of every chunk are in flight together),
 *    then the exact function for the few it leaves open;
 *  - a stable counting sort (a match per 32-sample chunk, chunks in order) places the weighted
 *    responses grouped by bin, ascending sample index within a bin;
 *  - the bins are split over the lanes in contiguous runs of about equal member counts, and each
 *    lane walks its members once, summing each bin from 0.0 in order (branch-free);
 *  - lane l < 24 computes windows 3l, 3l+1, 3l+2 from bins 3l .. 3l+13 read once, and a shuffle
 *    reduction picks the largest norm (ties: lowest window).
 * Zero responses are left out: adding +0.0 to a sum that starts at +0.0 never changes it.
 */
static __device__ double ori_angle(const uint32_t *__restrict__ sat, size_t st, int width,
                                   int height, const satfeat_keypoint *p,
                                   const ori_block *blk, ori_scratch *sm, int lane)
{
    const satfeat_ori_setup o = satfeat_ori_prepare(p->x, p->y, p->sigma);
    if (lane < 2 * SATFEAT_ORI_RADIUS - 1) {
        const double off = (double)(lane - (SATFEAT_ORI_RADIUS - 1)) * o.hs;
        const int cx = satfeat_dg_corner(o.x + off), cy = satfeat_dg_corner(o.y + off);
        sm->col[lane] = make_int4(satfeat_haar_clamp(cx - o.half, 0, width),
                                  satfeat_haar_clamp(cx, 0, width),
                                  satfeat_haar_clamp(cx + o.half, 0, width), 0);
        ori_rows r;
        r.s = sat + (size_t)satfeat_haar_clamp(cy - o.half, 0, height) * st;
        r.m = sat + (size_t)satfeat_haar_clamp(cy, 0, height) * st;
        r.e = sat + (size_t)satfeat_haar_clamp(cy + o.half, 0, height) * st;
        sm->row[lane] = r;
    }
    for (int b = lane; b < SATFEAT_ORI_BINS + 4; b += 32) sm->start[b] = 0;
    for (int b = lane; b < SATFEAT_ORI_BINS; b += 32) sm->bin[b] = make_double2(0.0, 0.0);
    __syncwarp();
    int key[ORI_CHUNKS]; /* bin (-1: undecided), then bin | (rank within the bin) << 8 */
    int32_t rdx[ORI_CHUNKS], rdy[ORI_CHUNKS];
#pragma unroll
    for (int m = 0; m < ORI_CHUNKS; m++) {
        const uint32_t ij = blk->ij[m * 32 + lane];
        /* offsets i, j in [-11, 11]: table entries 1 .. 23 of col / row are at index i + 11 */
        const int4 c = sm->col[(ij & 0xffu) - 1u];
        const ori_rows r = sm->row[(ij >> 8) - 1u];
        int32_t dx, dy;
        satfeat_haar_pair(__ldg(r.s + c.x), __ldg(r.s + c.y), __ldg(r.s + c.z), __ldg(r.m + c.x),
                          __ldg(r.m + c.z), __ldg(r.e + c.x), __ldg(r.e + c.y), __ldg(r.e + c.z),
                          &dx, &dy);
        rdx[m] = dx;
        rdy[m] = dy;
        const int b = satfeat_ori_bin_estimate(dx, dy);
        key[m] = ((dx | dy) == 0 || m * 32 + lane >= SATFEAT_ORI_SAMPLES) ? ORI_NONE : b;
    }
#pragma unroll
    for (int m = 0; m < ORI_CHUNKS; m++)
        if (key[m] < 0) key[m] = ori_bin_exact(rdx[m], rdy[m], blk->g[m * 32 + lane]);
    /* each sample's rank within its bin: the lanes of a chunk with the same bin (one match per
     * chunk, all issued together); the first lane of each group takes the running count of its
     * bin, chunk by chunk (ORI_NONE counts into start[72], which the prefix below overwrites),
     * then hands it to its group */
    const unsigned below = (1u << lane) - 1u;
    unsigned peers[ORI_CHUNKS];
#pragma unroll
    for (int m = 0; m < ORI_CHUNKS; m++) peers[m] = __match_any_sync(FULL_MASK, key[m]);
#pragma unroll
    for (int m = 0; m < ORI_CHUNKS; m++) {
        if ((peers[m] & below) == 0) {
            const int base = sm->start[key[m]];
            sm->start[key[m]] = base + __popc(peers[m]);
            key[m] |= base << 8;
        }
        __syncwarp();
    }
#pragma unroll
    for (int m = 0; m < ORI_CHUNKS; m++)
        key[m] = __shfl_sync(FULL_MASK, key[m], __ffs(peers[m]) - 1) +
                 (__popc(peers[m] & below) << 8);
    /* exclusive prefix of the 72 counts: lane l < 24 holds bins 3l .. 3l+2 */
    int c0 = 0, c1 = 0, c2 = 0;
    if (lane < SATFEAT_ORI_BINS / 3) {
        c0 = sm->start[3 * lane];
        c1 = sm->start[3 * lane + 1];
        c2 = sm->start[3 * lane + 2];
    }
    const int own = c0 + c1 + c2;
    int incl = own;
    for (int d = 1; d < 32; d <<= 1) {
        const int v = __shfl_up_sync(FULL_MASK, incl, d);
        if (lane >= d) incl += v;
    }
    const int total = __shfl_sync(FULL_MASK, incl, 31);
    __syncwarp();
    if (lane < SATFEAT_ORI_BINS / 3) {
        const int e = incl - own;
        sm->start[3 * lane] = e;
        sm->start[3 * lane + 1] = e + c0;
        sm->start[3 * lane + 2] = e + c0 + c1;
    }
    if (lane == 0) sm->start[SATFEAT_ORI_BINS] = total;
    __syncwarp();
#pragma unroll
    for (int m = 0; m < ORI_CHUNKS; m++) {
        const int b = key[m] & 0xff;
        if (b < ORI_NONE) {
            const int q = sm->start[b] + (key[m] >> 8);
            const double g = blk->g[m * 32 + lane];
            sm->xy[q] = make_double2(g * (double)rdx[m], g * (double)rdy[m]);
            sm->bin_of[q] = (uint8_t)b;
        }
    }
    /* lane l takes bins [b0, b1): the bins whose first member falls in its 32nd of the members */
    int lo = 0, hi = SATFEAT_ORI_BINS;
    const int lim = lane * total;
    while (lo < hi) {
        const int mid = (lo + hi) >> 1;
        if (sm->start[mid] * 32 >= lim) hi = mid;
        else lo = mid + 1;
    }
    int b1 = __shfl_down_sync(FULL_MASK, lo, 1);
    if (lane == 31) b1 = SATFEAT_ORI_BINS;
    __syncwarp();
    { /* members start[b0] .. start[b1] - 1 in one walk, without branches: each member's partial
       * sum is stored, so the last store of a bin holds its sum (empty bins keep their 0) */
        const int q1 = sm->start[b1];
        double sx = 0.0, sy = 0.0;
        int prev = -1;
        for (int q = sm->start[lo]; q < q1; q++) {
            const double2 v = sm->xy[q];
            const int b = sm->bin_of[q];
            sx = b == prev ? sx : 0.0;
            sy = b == prev ? sy : 0.0;
            sx += v.x;
            sy += v.y;
            sm->bin[b] = make_double2(sx, sy);
            prev = b;
        }
    }
    __syncwarp(); /* the bin sums of every lane are written */
    /* windows 3l, 3l+1, 3l+2: bins 3l + m, m = 0 .. 13, each added to the windows holding it, in
     * order (window k sums bins k .. k+11 from 0.0) */
    double best = -1.0, bsx = 0.0, bsy = 0.0;
    int best_k = 0;
    if (lane < SATFEAT_ORI_BINS / 3) {
        double wx[3] = {0.0, 0.0, 0.0}, wy[3] = {0.0, 0.0, 0.0};
#pragma unroll
        for (int m = 0; m < SATFEAT_ORI_WINDOW + 2; m++) {
            int b = 3 * lane + m;
            if (b >= SATFEAT_ORI_BINS) b -= SATFEAT_ORI_BINS;
            const double2 v = sm->bin[b];
#pragma unroll
            for (int w = 0; w < 3; w++)
                if (m >= w && m < w + SATFEAT_ORI_WINDOW) {
                    wx[w] += v.x;
                    wy[w] += v.y;
                }
        }
#pragma unroll
        for (int w = 0; w < 3; w++) {
            const double n2 = satfeat_ori_norm2(wx[w], wy[w]);
            if (n2 > best) { /* ascending windows: ties keep the lower one */
                best = n2;
                best_k = 3 * lane + w;
                bsx = wx[w];
                bsy = wy[w];
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
    __syncwarp(); /* the shared arrays are reused by the next keypoint */
    return satfeat_am_angle(bsy, bsx);
}

/**
 * Orientation: writes kp[i].angle for the keypoints i < min(*d_count, max_n), taken in the
 * given processing order (NULL: index order), one warp per keypoint (ori_angle). Reads the table,
 * the keypoints and the weights. Dynamic shared memory: an ori_block, then ORI_WARPS ori_scratch.
 */
__global__ void __launch_bounds__(ORI_WARPS * 32, ORI_BLOCKS_PER_SM)
orient_kernel(const uint32_t *__restrict__ sat, size_t st, int width, int height,
              satfeat_keypoint *kp, const uint32_t *d_count, uint32_t max_n,
              const uint32_t *__restrict__ order, const satfeat_describe_weights *__restrict__ w,
              satfeat_land_dst land)
{
    extern __shared__ double s_dyn[];
    __shared__ unsigned s_next;
    ori_block *blk = (ori_block *)s_dyn;
    ori_scratch *sm = (ori_scratch *)(blk + 1) + (threadIdx.x >> 5);
    const int lane = (int)(threadIdx.x & 31);
    for (int k = (int)threadIdx.x; k < ORI_PADDED; k += (int)blockDim.x) {
        const int in = k < SATFEAT_ORI_SAMPLES;
        blk->g[k] = in ? w->ori_w[k] : 0.0;
        blk->ij[k] = (uint16_t)((uint32_t)((in ? w->ori_i[k] : 0) + SATFEAT_ORI_RADIUS) |
                                ((uint32_t)((in ? w->ori_j[k] : 0) + SATFEAT_ORI_RADIUS) << 8));
    }
    const uint32_t hi = block_range(desc_count(d_count, max_n), &s_next); /* syncs the block */
    for (;;) {
        const uint32_t i = next_keypoint(&s_next, hi, order);
        if (i == UINT32_MAX) break;
        const double a = ori_angle(sat, st, width, height, &kp[i], blk, sm, lane);
        /* the landing copy: the keypoint's 8-byte words, the angle's word replaced */
        const bool landed = land.kp != NULL && i < land.cap && lane < (int)SATFEAT_KP_U64;
        const unsigned long long word = landed ? ((const unsigned long long *)&kp[i])[lane] : 0ull;
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
 * the fixed order; every lane then computes the norm in index order and writes values l, l+32, ...
 * of the unit vector. Reads the table, keypoints and weights; writes dim floats per keypoint.
 * Dynamic shared memory: DESC_WARPS desc_scratch.
 */
__global__ void __launch_bounds__(DESC_WARPS * 32, 1)
describe_kernel(const uint32_t *__restrict__ sat, size_t st, int width, int height,
                const satfeat_keypoint *__restrict__ kp, const uint32_t *d_count, uint32_t max_n,
                const uint32_t *__restrict__ order, int upright, int dim,
                const satfeat_describe_weights *__restrict__ w, float *__restrict__ desc,
                satfeat_land_dst land)
{
    extern __shared__ double s_dyn[];
    __shared__ unsigned s_next;
    desc_scratch *sm = (desc_scratch *)s_dyn + (threadIdx.x >> 5);
    const int lane = (int)(threadIdx.x & 31);
    const uint32_t hi = block_range(desc_count(d_count, max_n), &s_next);
    for (;;) {
        const uint32_t i = next_keypoint(&s_next, hi, order);
        if (i == UINT32_MAX) break;
        const satfeat_desc_setup d =
            satfeat_desc_prepare(kp[i].x, kp[i].y, kp[i].sigma, kp[i].angle, upright);
#pragma unroll 6
        for (int k = lane; k < SATFEAT_DESC_SAMPLES; k += 32)
            satfeat_desc_sample(sat, st, width, height, &d, k, &sm->rx[k], &sm->ry[k]);
        __syncwarp();
        satfeat_desc_part(sm->rx, sm->ry, w, lane >> 1, lane & 1, dim, sm->val);
        __syncwarp();
        const double norm = sqrt(satfeat_desc_norm2(sm->val, dim));
        float *out = desc + i * (size_t)dim;
        float *landed = land.desc != NULL && i < land.cap ? land.desc + i * (size_t)dim : NULL;
        for (int v = lane; v < dim; v += 32) {
            const float u = satfeat_desc_unit(sm->val, v, norm);
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
__global__ void __launch_bounds__(ORDER_THREADS)
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

/* Dynamic shared memory of an orientation block. */
#define ORI_SHARED (sizeof(ori_block) + ORI_WARPS * sizeof(ori_scratch))

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
    e = cudaFuncSetAttribute(orient_kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                         (int)ORI_SHARED);
    if (e == cudaSuccess)
        e = cudaFuncSetAttribute(describe_kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                 (int)(DESC_WARPS * sizeof(desc_scratch)));
    return e;
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
                                           const satfeat_describe_weights *d_w,
                                           satfeat_land_dst land, void *stream)
{
    if (max_n == 0) return (int)cudaSuccess;
    const cudaError_t e = allow_shared((cudaStream_t)stream);
    if (e != cudaSuccess) return (int)e;
    orient_kernel<<<grid_for(max_n, ORI_WARPS, ORI_BLOCKS_PER_SM), ORI_WARPS * 32, ORI_SHARED,
                    (cudaStream_t)stream>>>(d_sat, sat_stride, width, height, d_kp, d_count,
                                            max_n, d_order, d_w, land);
    return (int)cudaGetLastError();
}

extern "C" int satfeat_orient_cuda(const uint32_t *d_sat, size_t sat_stride, int width,
                                   int height, satfeat_keypoint *d_kp, const uint32_t *d_count,
                                   uint32_t max_n, const satfeat_describe_weights *d_w,
                                   satfeat_land_dst land, void *stream)
{
    return satfeat_orient_cuda_ordered(d_sat, sat_stride, width, height, d_kp, d_count, max_n,
                                       NULL, d_w, land, stream);
}

extern "C" int satfeat_describe_cuda_ordered(const uint32_t *d_sat, size_t sat_stride, int width,
                                             int height, const satfeat_keypoint *d_kp,
                                             const uint32_t *d_count, uint32_t max_n,
                                             const uint32_t *d_order, int upright, int dim,
                                             const satfeat_describe_weights *d_w, float *d_desc,
                                             satfeat_land_dst land, void *stream)
{
    if (max_n == 0) return (int)cudaSuccess;
    const cudaError_t e = allow_shared((cudaStream_t)stream);
    if (e != cudaSuccess) return (int)e;
    describe_kernel<<<grid_for(max_n, DESC_WARPS, 1), DESC_WARPS * 32,
                      DESC_WARPS * sizeof(desc_scratch), (cudaStream_t)stream>>>(
        d_sat, sat_stride, width, height, d_kp, d_count, max_n, d_order, upright,
        dim == 128 ? 128 : 64, d_w, d_desc, land);
    return (int)cudaGetLastError();
}

extern "C" int satfeat_describe_cuda(const uint32_t *d_sat, size_t sat_stride, int width,
                                     int height, const satfeat_keypoint *d_kp,
                                     const uint32_t *d_count, uint32_t max_n, int upright,
                                     int dim, const satfeat_describe_weights *d_w, float *d_desc,
                                     satfeat_land_dst land, void *stream)
{
    return satfeat_describe_cuda_ordered(d_sat, sat_stride, width, height, d_kp, d_count, max_n,
                                         NULL, upright, dim, d_w, d_desc, land, stream);
}
