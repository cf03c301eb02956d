/* motion_kernels.cu - the CUDA hypothesis scorer: a batch of drawn samples solved and scored over
 * every correspondence with the CPU's arithmetic and summation order (motion_minimal.h,
 * motion_error.h, motion_stop.h), so each hypothesis gets the CPU's model, MSAC cost, inlier
 * count and PROSAC prefix ratio bit for bit. The costs are complete sums (no early exit): the
 * CPU's early exit only ever rejects hypotheses the complete sum rejects too.
 *  1. solve kernel: one warp per hypothesis gathers its sample and runs the minimal solver (a
 *     homography's elimination spread over the warp's lanes);
 *  2. score kernel: one warp per hypothesis and 8 blocks of 64 correspondences; lane 4 c + r
 *     computes lane r's partial sum of block c (satfeat_motion_lane_sum) and two shuffles give
 *     the block's sum (s0 + s1) + (s2 + s3), inlier count and inlier bits;
 *  3. finish kernel: one thread block per hypothesis scans the block counts, offers every
 *     PROSAC prefix (spread over its threads, merged by satfeat_motion_prefix_keep into the
 *     sequential offer's choice), and one thread adds the block sums in block order (the order
 *     is sequential). */
#include "src/pdl.cuh"
#include "track/motion_cuda.h"
#include "track/motion_error.h"
#include "track/motion_minimal.h"
#include "track/motion_stop.h"
#include "track/linalg_null_warp.cuh"

#include <cub/cub.cuh>
#include <cuda_runtime.h>
#include <stdint.h>

#define SOLVE_WARPS 4 /* hypotheses per thread block of the solve kernel */
#define SCORE_BLOCKS_PER_WARP 8 /* blocks of 64 correspondences per warp of the score kernel */
#define SCORE_WARPS 8           /* hypotheses per thread block of the score kernel */
#define FINISH_THREADS 128
#define FULL_MASK 0xffffffffu

static size_t up256(size_t v) { return (v + 255u) & ~(size_t)255u; }

/* Blocks of the summation order over n correspondences. */
__host__ __device__ static uint32_t blocks_of(uint32_t n)
{
    return (n + SATFEAT_MOTION_SCORE_BLOCK - 1) / SATFEAT_MOTION_SCORE_BLOCK;
}

/* Per (hypothesis, block) results of the score kernel, hypothesis-major. */
struct motion_scratch {
    double *bsum;
    uint32_t *bcnt;
    unsigned long long *bbits;
};

/* Byte offsets of the scratch parts (returns the total). */
static size_t scratch_layout(uint32_t n, uint32_t batch, size_t off[3])
{
    const size_t cells = (size_t)blocks_of(n) * batch;
    size_t o = 0;
    off[0] = o;
    o = up256(o + cells * sizeof(double));
    off[1] = o;
    o = up256(o + cells * sizeof(uint32_t));
    off[2] = o;
    o = up256(o + cells * sizeof(unsigned long long));
    return o;
}

extern "C" size_t satfeat_motion_cuda_scratch_bytes(uint32_t n, uint32_t batch)
{
    size_t off[3];
    return scratch_layout(n, batch, off);
}

/* Entry (row, col) of the DLT system of the gathered sample, for the warp solver. */
struct motion_dlt {
    const double *sx, *sy, *dx, *dy;
    __device__ double operator()(int row, int col) const
    {
        return satfeat_motion_dlt_entry(sx, sy, dx, dy, row, col);
    }
};

/** Solve kernel: warp w of the block solves hypothesis b = blockIdx.x * SOLVE_WARPS + w: every
 * lane gathers the m correspondences of sample b (a.samples); a homography's null vector is
 * found by the whole warp (linalg_null_warp.cuh), the other models' closed forms by every lane;
 * lane 0 writes the model (zeros when degenerate), the degenerate flag and empty scores to
 * a.rec[b]. */
static __global__ void __launch_bounds__(SOLVE_WARPS * 32)
motion_solve_kernel(satfeat_motion_cuda_args a)
{
    const uint32_t b = blockIdx.x * SOLVE_WARPS + (threadIdx.x >> 5);
    if (b >= a.batch) return; /* the whole warp */
    double sx[4], sy[4], dx[4], dy[4], h[9];
    for (int k = 0; k < a.m; k++) {
        const uint32_t i = a.samples[4 * (size_t)b + (size_t)k];
        sx[k] = a.sx[i];
        sy[k] = a.sy[i];
        dx[k] = a.dx[i];
        dy[k] = a.dy[i];
    }
    int bad;
    if (a.model == (int)SATFEAT_MOTION_HOMOGRAPHY) {
        /* the same steps as satfeat_motion_solve_homography4, the elimination across the warp */
        bad = !satfeat_motion_homography4_sample_ok(sx, sy, dx, dy);
        if (!bad) {
            const motion_dlt dlt = {sx, sy, dx, dy};
            bad = satfeat_lin_null_vector_8x9_warp(dlt, 1e-12, h) != 0 ||
                  satfeat_motion_homography4_sign(sx, sy, h) != 0;
        }
    } else {
        bad = satfeat_motion_solve_minimal((satfeat_motion_model)a.model, sx, sy, dx, dy, h) != 0;
    }
    if ((threadIdx.x & 31u) != 0) return;
    satfeat_motion_cuda_record *r = a.rec + b;
    for (int k = 0; k < 9; k++) r->h[k] = bad ? 0.0 : h[k];
    r->cost = 0.0;
    r->num = 0;
    r->den = 1;
    r->count = 0;
    r->degenerate = (uint32_t)bad;
}

/** Score kernel. Warp w of block (x, y) scores hypothesis y * SCORE_WARPS + w (skipped when
 * degenerate) on blocks x * 8 .. x * 8 + 7 of 64 correspondences: lane 4 c + r reads the
 * correspondences of lane r of block x * 8 + c and the model from a.rec, and lane 4 c writes the
 * block's sum, inlier count and inlier bits to the scratch row of the hypothesis. */
static __global__ void __launch_bounds__(SCORE_WARPS * 32)
motion_score_kernel(satfeat_motion_cuda_args a, motion_scratch sc)
{
    satfeat_pdl_enter();
    const uint32_t warp = threadIdx.x >> 5, lane = threadIdx.x & 31u;
    const uint32_t b = blockIdx.y * SCORE_WARPS + warp;
    if (b >= a.batch || a.rec[b].degenerate) return; /* the whole warp */
    double h[9];
    for (int k = 0; k < 9; k++) h[k] = a.rec[b].h[k];
    const uint32_t nb = blocks_of(a.n);
    const uint32_t blk = blockIdx.x * SCORE_BLOCKS_PER_WARP + (lane >> 2);
    const int r = (int)(lane & 3u);
    double s = 0.0;
    unsigned cnt = 0;
    uint64_t bits = 0;
    if (blk < nb) {
        const size_t base = (size_t)blk * SATFEAT_MOTION_SCORE_BLOCK;
        const uint32_t rest = a.n - (uint32_t)base;
        const int len = rest < SATFEAT_MOTION_SCORE_BLOCK ? (int)rest : SATFEAT_MOTION_SCORE_BLOCK;
        const int projective = a.model == (int)SATFEAT_MOTION_HOMOGRAPHY;
        s = satfeat_motion_lane_sum(h, projective, a.sx + base, a.sy + base, a.dx + base,
                                    a.dy + base, len, r, a.t2, &cnt, &bits);
    }
    /* lanes 4c and 4c + 2 hold s0 + s1 and s2 + s3, then lane 4c their sum */
    const double s01 = s + __shfl_down_sync(FULL_MASK, s, 1);
    const double sum = s01 + __shfl_down_sync(FULL_MASK, s01, 2);
    cnt += __shfl_down_sync(FULL_MASK, cnt, 1);
    cnt += __shfl_down_sync(FULL_MASK, cnt, 2);
    unsigned long long ub = (unsigned long long)bits;
    ub |= __shfl_down_sync(FULL_MASK, ub, 1);
    ub |= __shfl_down_sync(FULL_MASK, ub, 2);
    if (r == 0 && blk < nb) {
        const size_t o = (size_t)b * nb + blk;
        sc.bsum[o] = sum;
        sc.bcnt[o] = cnt;
        sc.bbits[o] = ub;
    }
}

/** Finish kernel. Block b finishes hypothesis b (skipped when degenerate): per chunk of
 * FINISH_THREADS correspondence blocks, the threads scan the block inlier counts of its scratch
 * row; with PROSAC, the chunk's prefixes are then spread over the threads (position q of the
 * chunk to thread q mod FINISH_THREADS, its inliers from the scan and a popcount of the block's
 * bits), each keeping its best; the warps merge them by shuffles and thread 0 merges the
 * warps', adds the block sums in block order and writes cost, count and fraction to a.rec[b]. */
static __global__ void __launch_bounds__(FINISH_THREADS)
motion_finish_kernel(satfeat_motion_cuda_args a, motion_scratch sc)
{
    satfeat_pdl_enter();
    typedef cub::BlockScan<uint32_t, FINISH_THREADS> scan_t;
    __shared__ typename scan_t::TempStorage tmp;
    __shared__ unsigned long long s_before[FINISH_THREADS], s_bits[FINISH_THREADS];
    __shared__ satfeat_motion_prefix_best s_best[FINISH_THREADS / 32];
    const uint32_t b = blockIdx.x, tid = threadIdx.x;
    satfeat_motion_cuda_record *rec = a.rec + b;
    if (rec->degenerate) return; /* the whole block */
    const uint32_t nb = blocks_of(a.n);
    const size_t row = (size_t)b * nb;
    const uint64_t min_prefix = satfeat_motion_min_prefix(a.m);
    uint32_t carry = 0;
    satfeat_motion_prefix_best best = {0, 1, 0};
    for (uint32_t c0 = 0; c0 < nb; c0 += FINISH_THREADS) {
        const uint32_t blk = c0 + tid;
        const uint32_t cnt = blk < nb ? sc.bcnt[row + blk] : 0u;
        uint32_t before, total;
        scan_t(tmp).ExclusiveSum(cnt, before, total);
        if (a.prosac) {
            s_before[tid] = (unsigned long long)carry + before;
            s_bits[tid] = blk < nb ? sc.bbits[row + blk] : 0ull;
            __syncthreads();
            const uint32_t blocks = nb - c0 < FINISH_THREADS ? nb - c0 : FINISH_THREADS;
            const uint64_t first = (uint64_t)c0 * SATFEAT_MOTION_SCORE_BLOCK;
            for (uint32_t q = tid; q < blocks * SATFEAT_MOTION_SCORE_BLOCK; q += FINISH_THREADS) {
                const uint64_t len = first + q + 1;
                if (len >= a.n) break; /* prefixes of n - 1 positions at most */
                if (len < min_prefix) continue;
                const uint32_t t = q % SATFEAT_MOTION_SCORE_BLOCK;
                const unsigned long long upto = t == 63 ? ~0ull : (2ull << t) - 1ull;
                const uint64_t in = s_before[q / SATFEAT_MOTION_SCORE_BLOCK] +
                                    (uint64_t)__popcll(s_bits[q / SATFEAT_MOTION_SCORE_BLOCK] & upto);
                satfeat_motion_prefix_offer_at(in, len, a.m, &best);
            }
        }
        carry += total;
        __syncthreads(); /* tmp, s_before and s_bits are reused */
    }
    for (int o = 16; o > 0; o >>= 1) {
        const satfeat_motion_prefix_best other = {__shfl_down_sync(FULL_MASK, best.num, o),
                                                  __shfl_down_sync(FULL_MASK, best.den, o),
                                                  __shfl_down_sync(FULL_MASK, best.len, o)};
        satfeat_motion_prefix_keep(&best, other);
    }
    if ((tid & 31u) == 0) s_best[tid >> 5] = best;
    __syncthreads();
    if (tid != 0) return;
    for (int w = 1; w < FINISH_THREADS / 32; w++) satfeat_motion_prefix_keep(&best, s_best[w]);
    const uint64_t num = best.num, den = best.den;
    const double *bs = sc.bsum + row;
    double cost = 0.0;
    uint32_t k = 0;
    for (; k + 8 <= nb; k += 8) { /* the loads of 8 block sums in flight, the adds in order */
        double v[8];
        for (int j = 0; j < 8; j++) v[j] = bs[k + j];
        for (int j = 0; j < 8; j++) cost += v[j];
    }
    for (; k < nb; k++) cost += bs[k];
    rec->cost = cost;
    rec->count = carry;
    rec->num = num;
    rec->den = den;
}

extern "C" int satfeat_motion_cuda_launch(const satfeat_motion_cuda_args *a, void *stream,
                                          const char **failed)
{
    cudaStream_t s = (cudaStream_t)stream;
    size_t off[3];
    scratch_layout(a->n, a->batch, off);
    unsigned char *base = (unsigned char *)a->scratch;
    motion_scratch sc;
    sc.bsum = (double *)(base + off[0]);
    sc.bcnt = (uint32_t *)(base + off[1]);
    sc.bbits = (unsigned long long *)(base + off[2]);
    *failed = "motion solve kernel";
    const unsigned solve_blocks = (a->batch + SOLVE_WARPS - 1) / SOLVE_WARPS;
    motion_solve_kernel<<<solve_blocks, SOLVE_WARPS * 32, 0, s>>>(*a);
    cudaError_t e = cudaPeekAtLastError();
    if (e != cudaSuccess) return (int)e;
    *failed = "motion score kernel";
    const dim3 grid((blocks_of(a->n) + SCORE_BLOCKS_PER_WARP - 1) / SCORE_BLOCKS_PER_WARP,
                    (a->batch + SCORE_WARPS - 1) / SCORE_WARPS);
    e = satfeat_pdl_launch(motion_score_kernel, grid, dim3(SCORE_WARPS * 32), 0, s, *a, sc);
    if (e != cudaSuccess) return (int)e;
    *failed = "motion finish kernel";
    e = satfeat_pdl_launch(motion_finish_kernel, dim3(a->batch), dim3(FINISH_THREADS), 0, s, *a,
                           sc);
    return (int)e;
}
