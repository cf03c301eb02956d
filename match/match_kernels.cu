/* match_kernels.cu - the CUDA matcher: tiled brute force with the shared distance order and
 * rules (descriptor_distance.h, match_rules.h), the same matches as the CPU, bit for bit.
 *  1. distance kernel: a block owns MT queries and walks train tiles y, y+G, ... (MT trains
 *     each); both tiles sit in shared memory (row-major, dims permuted lane-major so one float4
 *     read gives four consecutive dims of one lane). Each thread computes a 4 x 4 block of
 *     pairs (queries tq + 16r, trains tt + 16c) one lane after another, so only 4 partial
 *     sums per pair are live. Per-query best/second states are merged across the block's
 *     threads by warp shuffles and written per train group; per-train nearest queries meet in
 *     a 64-bit key (distance bits, query index) through shared then global atomicMin;
 *     With the Laplacian gate a partition kernel first groups queries and trains by sign
 *     (stable), the tiles read through those permutations, and tile pairs of opposite signs
 *     are skipped (half the work for random signs);
 *  2. decide kernel: one warp per query merges its G <= MAX_GROUPS (<= 32) group states, applies the ratio
 *     test and the mutual check, and writes a keep flag and the match;
 *  3. compact kernel: one block scans the keep flags in query order and writes the matches
 *     and their count. */
#include "match/descriptor_distance.h"
#include "match/match_cuda.h"
#include "match/match_rules.h"

#include <cub/cub.cuh>
#include <cuda_runtime.h>
#include <stdint.h>

#define MT 64                 /* queries and trains per tile */
#define MSUB 16               /* threads per tile side: 16 x 16 threads, 4 x 4 pairs each */
#define MTHREADS (MSUB * MSUB)
#define MAX_GROUPS 8          /* train groups (grid.y): per-query states written per group */
#define DECIDE_THREADS 256
#define COMPACT_THREADS 1024

/* Scratch layout: offsets of each part (256-byte aligned). */
struct match_scratch {
    unsigned long long *colkey; /* [n2] nearest query per train: (float bits << 32) | query */
    float *gb1;                 /* [G][n1] best per group */
    int *gj1;                   /* [G][n1] its train */
    float *gb2;                 /* [G][n1] second per group */
    int *keep;                  /* [n1] 1 when query i keeps its match */
    satfeat_match_pair *rec;         /* [n1] the match of query i */
    int *qperm;                 /* [n1] Laplacian gate: query index at each position */
    int *tperm;                 /* [n2] Laplacian gate: train index at each position */
    int *negs;                  /* [2] number of negative-sign queries, trains */
};

static size_t up256(size_t v) { return (v + 255u) & ~(size_t)255u; }

static int groups_of(size_t n2)
{
    const size_t tiles = (n2 + MT - 1) / MT;
    return tiles < MAX_GROUPS ? (int)(tiles ? tiles : 1) : MAX_GROUPS;
}

/* Byte offsets of the parts for n1, n2 (returns the total). */
static size_t scratch_layout(size_t n1, size_t n2, size_t off[9])
{
    const size_t g = (size_t)groups_of(n2);
    size_t o = 0;
    off[0] = o; o = up256(o + n2 * sizeof(unsigned long long));
    off[1] = o; o = up256(o + g * n1 * sizeof(float));
    off[2] = o; o = up256(o + g * n1 * sizeof(int));
    off[3] = o; o = up256(o + g * n1 * sizeof(float));
    off[4] = o; o = up256(o + n1 * sizeof(int));
    off[5] = o; o = up256(o + n1 * sizeof(satfeat_match_pair));
    off[6] = o; o = up256(o + n1 * sizeof(int));
    off[7] = o; o = up256(o + n2 * sizeof(int));
    off[8] = o; o = up256(o + 2 * sizeof(int));
    return o;
}

extern "C" size_t satfeat_match_cuda_scratch_bytes(size_t n1, size_t n2)
{
    size_t off[9];
    return scratch_layout(n1, n2, off);
}

/* Merges the state (b, j, s) of another lane into (*b1, *j1, *b2). */
__device__ static void merge3(float *b1, int *j1, float *b2, float b, int j, float s)
{
    satfeat_match_top2 t = {*b1, *j1, *b2};
    const satfeat_match_top2 o = {b, j, s};
    satfeat_match_top2_merge(&t, &o);
    *b1 = t.best;
    *j1 = t.best_j;
    *b2 = t.second;
}

/* Key of a candidate query for a train: distance bits (finite, >= +0, so monotone) and index. */
__device__ static unsigned long long col_key(float d, int i)
{
    return ((unsigned long long)__float_as_uint(d) << 32) | (unsigned int)i;
}

/* Loads rows idx[0..MT) of `desc` into s[row][slot] with slot = k*(DIM/8) + m for dim
 * d = k + 8m; rows with idx < 0 are zero. Consecutive threads write consecutive slots. */
template <int DIM>
__device__ static void load_tile(float *s, const float *desc, const int *idx)
{
    constexpr int S = DIM + 4, M = DIM / 8, PER = MT * DIM / MTHREADS, BATCH = 8;
#pragma unroll 1
    for (int b0 = 0; b0 < PER; b0 += BATCH) {
        float v[BATCH];
#pragma unroll
        for (int it = 0; it < BATCH; it++) { /* a batch of loads in flight at once */
            const int f = (b0 + it) * MTHREADS + (int)threadIdx.x;
            const int row = f / DIM, slot = f % DIM;
            const int d = (slot % M) * 8 + slot / M;
            const int g = idx[row];
            v[it] = g >= 0 ? __ldg(desc + (size_t)g * DIM + d) : 0.0f;
        }
#pragma unroll
        for (int it = 0; it < BATCH; it++) {
            const int f = (b0 + it) * MTHREADS + (int)threadIdx.x;
            s[(f / DIM) * S + f % DIM] = v[it];
        }
    }
}

/* Index of the element at position p of a list of n (through perm when grouped), -1 past n. */
__device__ static int index_at(const int *perm, int n, int p)
{
    return p < n ? (perm ? perm[p] : p) : -1;
}

/* Sign class of the positions [p0, p0+MT) of a list grouped with `neg` negatives first:
 * -1 all negative, 1 none negative, 0 mixed. */
__device__ static int tile_sign(int neg, int n, int p0)
{
    const int last = (p0 + MT < n ? p0 + MT : n) - 1;
    return last < neg ? -1 : (p0 >= neg ? 1 : 0);
}

/* Position of query i for the radius gate. */
__device__ static void query_pos(const satfeat_match_cuda_args &a, int i, double *x, double *y)
{
    if (a.predicted) {
        *x = a.predicted[2 * (size_t)i];
        *y = a.predicted[2 * (size_t)i + 1];
    } else {
        *x = a.kp1[i].x;
        *y = a.kp1[i].y;
    }
}

/* Adds lane k's sums s into the fixed tree ((s0+s4)+(s2+s6))+((s1+s5)+(s3+s7)) evaluated
 * in the lane order 0,4,2,6,1,5,3,7 with three live partials a0, a1, a2. */
#define LANE_ORDER(idx) ((idx) == 0 ? 0 : (idx) == 1 ? 4 : (idx) == 2 ? 2 : (idx) == 3 ? 6 : \
                         (idx) == 4 ? 1 : (idx) == 5 ? 5 : (idx) == 6 ? 3 : 7)

/* Lane idx's sums s (the idx-th lane of LANE_ORDER) folded into the three live partials of the
 * fixed tree; idx is a compile-time constant after unrolling, so the switch disappears. */
__device__ __forceinline__ static void fold_lane(int idx, const float (&s)[4][4],
                                                 float (&acc0)[4][4], float (&acc1)[4][4],
                                                 float (&acc2)[4][4])
{
#pragma unroll
    for (int r = 0; r < 4; r++)
#pragma unroll
        for (int c = 0; c < 4; c++) {
            switch (idx) {
            case 0: acc0[r][c] = s[r][c]; break;
            case 1: acc0[r][c] = acc0[r][c] + s[r][c]; break;
            case 2: acc1[r][c] = s[r][c]; break;
            case 3: acc1[r][c] = acc1[r][c] + s[r][c]; acc0[r][c] = acc0[r][c] + acc1[r][c]; break;
            case 4: acc1[r][c] = s[r][c]; break;
            case 5: acc1[r][c] = acc1[r][c] + s[r][c]; break;
            case 6: acc2[r][c] = s[r][c]; break;
            default:
                acc2[r][c] = acc2[r][c] + s[r][c];
                acc1[r][c] = acc1[r][c] + acc2[r][c];
                acc0[r][c] = acc0[r][c] + acc1[r][c];
                break;
            }
        }
}

/* The block's per-query states merged across the 16 threads of a half warp (same tq) and
 * written to gb1/gj1/gb2[blockIdx.y] by the thread with tt 0. */
__device__ __forceinline__ static void store_query_states(const satfeat_match_cuda_args &a,
                                                          const match_scratch &sc,
                                                          const int *qi_s, int tq, int tt,
                                                          float (&b1)[4], int (&j1)[4],
                                                          float (&b2)[4])
{
#pragma unroll
    for (int r = 0; r < 4; r++) {
#pragma unroll
        for (int off = 8; off >= 1; off >>= 1) {
            const float ob1 = __shfl_xor_sync(0xffffffffu, b1[r], off);
            const int oj1 = __shfl_xor_sync(0xffffffffu, j1[r], off);
            const float ob2 = __shfl_xor_sync(0xffffffffu, b2[r], off);
            merge3(&b1[r], &j1[r], &b2[r], ob1, oj1, ob2);
        }
        const int i = qi_s[tq + MSUB * r];
        if (tt == 0 && i >= 0) {
            const size_t o = (size_t)blockIdx.y * (size_t)a.n1 + (size_t)i;
            sc.gb1[o] = b1[r];
            sc.gj1[o] = j1[r];
            sc.gb2[o] = b2[r];
        }
    }
}

/**
 * Distance kernel. Block (x, y): query positions [x*MT, x*MT+MT), train tiles y, y+G, ...
 * (with the Laplacian gate both lists are read through their sign-grouped permutations and a
 * tile pair of opposite signs is skipped whole); thread
 * (tq, tt) = (tid / 16, tid % 16) computes pairs (tq + 16r, tt + 16c), r, c in 0..3. Reads the
 * descriptors and keypoints; writes the block's per-query states to gb1/gj1/gb2[y] and lowers
 * colkey of every train it sees (atomicMin).
 */
template <int DIM>
static __global__ void __launch_bounds__(MTHREADS, DIM == 64 ? 2 : 1)
match_distance_kernel(satfeat_match_cuda_args a, match_scratch sc, int groups)
{
    constexpr int S = DIM + 4, M = DIM / 8;
    extern __shared__ float4 smem4[];
    float *sq = reinterpret_cast<float *>(smem4);
    float *st = sq + MT * S;
    __shared__ double qx[MT], qy[MT], tx[MT], ty[MT];
    __shared__ int ql[MT], tl[MT], qi_s[MT], tj_s[MT];
    __shared__ unsigned long long ckey[MT];

    const int tid = threadIdx.x, tq = tid / MSUB, tt = tid % MSUB;
    const int q0 = blockIdx.x * MT;
    const int *qperm = a.same_laplacian ? sc.qperm : NULL;
    const int *tperm = a.same_laplacian ? sc.tperm : NULL;
    const int qsign = a.same_laplacian ? tile_sign(sc.negs[0], a.n1, q0) : 0;
    if (tid < MT) qi_s[tid] = index_at(qperm, a.n1, q0 + tid);
    __syncthreads();
    load_tile<DIM>(sq, a.desc1, qi_s);
    if (tid < MT) {
        const int i = qi_s[tid];
        double x = 0.0, y = 0.0;
        int l = 0;
        if (i >= 0) {
            query_pos(a, i, &x, &y);
            l = a.kp1[i].laplacian;
        }
        qx[tid] = x;
        qy[tid] = y;
        ql[tid] = l;
    }
    float b1[4], b2[4];
    int j1[4];
    for (int r = 0; r < 4; r++) {
        b1[r] = INFINITY;
        b2[r] = INFINITY;
        j1[r] = INT_MAX;
    }
    const int tiles = (a.n2 + MT - 1) / MT;
    for (int tile = blockIdx.y; tile < tiles; tile += groups) {
        const int t0 = tile * MT;
        if (qsign != 0 && qsign == -tile_sign(sc.negs[1], a.n2, t0)) continue; /* block-uniform */
        __syncthreads(); /* the previous tile is no longer read */
        if (tid < MT) tj_s[tid] = index_at(tperm, a.n2, t0 + tid);
        __syncthreads();
        load_tile<DIM>(st, a.desc2, tj_s);
        if (tid < MT) {
            const int j = tj_s[tid];
            const int ok = j >= 0;
            tx[tid] = ok ? a.kp2[j].x : 0.0;
            ty[tid] = ok ? a.kp2[j].y : 0.0;
            tl[tid] = ok ? a.kp2[j].laplacian : 0;
            ckey[tid] = ~0ull;
        }
        __syncthreads();

        float acc0[4][4], acc1[4][4], acc2[4][4];
#pragma unroll
        for (int idx = 0; idx < 8; idx++) {
            const int k = LANE_ORDER(idx);
            /* s starts at +0; the first step adds t*t (>= +0 or NaN) to +0, which is t*t
             * exactly, so it is written as a plain assignment (g == 0) */
            float s[4][4];
#pragma unroll
            for (int g = 0; g < M / 4; g++) {
                float4 qv[4], tv[4];
#pragma unroll
                for (int r = 0; r < 4; r++)
                    qv[r] = *reinterpret_cast<const float4 *>(sq + (tq + MSUB * r) * S + k * M + 4 * g);
#pragma unroll
                for (int c = 0; c < 4; c++)
                    tv[c] = *reinterpret_cast<const float4 *>(st + (tt + MSUB * c) * S + k * M + 4 * g);
#pragma unroll
                for (int r = 0; r < 4; r++)
#pragma unroll
                    for (int c = 0; c < 4; c++) {
                        float t = qv[r].x - tv[c].x;
                        s[r][c] = g == 0 ? t * t : s[r][c] + t * t;
                        t = qv[r].y - tv[c].y;
                        s[r][c] = s[r][c] + t * t;
                        t = qv[r].z - tv[c].z;
                        s[r][c] = s[r][c] + t * t;
                        t = qv[r].w - tv[c].w;
                        s[r][c] = s[r][c] + t * t;
                    }
            }
            fold_lane(idx, s, acc0, acc1, acc2);
        }
        /* gates, then the per-query and per-train states */
        float cb[4];
        int ci[4];
#pragma unroll
        for (int c = 0; c < 4; c++) {
            cb[c] = INFINITY;
            ci[c] = INT_MAX;
        }
#pragma unroll
        for (int r = 0; r < 4; r++) {
            const int lq = tq + MSUB * r, i = qi_s[lq];
#pragma unroll
            for (int c = 0; c < 4; c++) {
                const int lt = tt + MSUB * c, j = tj_s[lt];
                const float d = acc0[r][c];
                if (i < 0 || j < 0 || !satfeat_match_dist_ok(d) ||
                    !satfeat_match_gate(a.same_laplacian, ql[lq], tl[lt], a.radius2, qx[lq],
                                        qy[lq], tx[lt], ty[lt]))
                    continue;
                satfeat_match_top2 t = {b1[r], j1[r], b2[r]};
                satfeat_match_top2_add(&t, d, j);
                b1[r] = t.best;
                j1[r] = t.best_j;
                b2[r] = t.second;
                if (satfeat_match_before(d, i, cb[c], ci[c])) {
                    cb[c] = d;
                    ci[c] = i;
                }
            }
        }
        if (a.mutual) {
            /* the two query halves of a warp (lanes l and l^16 share tt), then the block */
#pragma unroll
            for (int c = 0; c < 4; c++) {
                const float ob = __shfl_xor_sync(0xffffffffu, cb[c], 16);
                const int oi = __shfl_xor_sync(0xffffffffu, ci[c], 16);
                if (satfeat_match_before(ob, oi, cb[c], ci[c])) {
                    cb[c] = ob;
                    ci[c] = oi;
                }
                if ((tid & 16) == 0 && ci[c] != INT_MAX)
                    atomicMin(&ckey[tt + MSUB * c], col_key(cb[c], ci[c]));
            }
            __syncthreads();
            if (tid < MT && tj_s[tid] >= 0 && ckey[tid] != ~0ull)
                atomicMin(&sc.colkey[tj_s[tid]], ckey[tid]);
        }
    }
    store_query_states(a, sc, qi_s, tq, tt, b1, j1, b2);
}

/** Decide kernel: one warp per query; lane g loads the state of train group g, the warp merges
 * them (the merge is order independent), and lane 0 applies the ratio test and the mutual
 * check and writes keep[i] and rec[i]. */
static __global__ void __launch_bounds__(DECIDE_THREADS)
match_decide_kernel(satfeat_match_cuda_args a, match_scratch sc, int groups)
{
    const int lane = threadIdx.x & 31;
    const int i = (int)((blockIdx.x * (unsigned)DECIDE_THREADS + threadIdx.x) >> 5);
    if (i >= a.n1) return; /* the whole warp */
    satfeat_match_top2 t = satfeat_match_top2_empty();
    if (lane < groups) {
        const size_t o = (size_t)lane * (size_t)a.n1 + (size_t)i;
        t.best = sc.gb1[o];
        t.best_j = sc.gj1[o];
        t.second = sc.gb2[o];
    }
#pragma unroll
    for (int off = 16; off >= 1; off >>= 1) {
        satfeat_match_top2 o;
        o.best = __shfl_xor_sync(0xffffffffu, t.best, off);
        o.best_j = __shfl_xor_sync(0xffffffffu, t.best_j, off);
        o.second = __shfl_xor_sync(0xffffffffu, t.second, off);
        satfeat_match_top2_merge(&t, &o);
    }
    if (lane != 0) return;
    int keep = t.best_j != INT_MAX && satfeat_match_ratio_ok(&t, a.ratio2);
    if (keep && a.mutual) keep = (int)(unsigned int)(sc.colkey[t.best_j] & 0xffffffffull) == i;
    sc.keep[i] = keep;
    satfeat_match_pair m;
    m.query = i;
    m.train = keep ? t.best_j : -1;
    m.distance = keep ? sqrtf(t.best) : 0.0f;
    sc.rec[i] = m;
}

/** Partition kernel (Laplacian gate only): block 0 groups the queries, block 1 the trains,
 * negative signs first, each group in index order (a stable partition by two block scans);
 * writes the permutation and the number of negatives. */
static __global__ void __launch_bounds__(COMPACT_THREADS)
match_partition_kernel(satfeat_match_cuda_args a, match_scratch sc)
{
    typedef cub::BlockReduce<int, COMPACT_THREADS> reduce_t;
    typedef cub::BlockScan<int, COMPACT_THREADS> scan_t;
    __shared__ union {
        typename reduce_t::TempStorage r;
        typename scan_t::TempStorage s;
    } tmp;
    __shared__ int neg_total;
    const satfeat_keypoint *kp = blockIdx.x == 0 ? a.kp1 : a.kp2;
    const int n = blockIdx.x == 0 ? a.n1 : a.n2;
    int *perm = blockIdx.x == 0 ? sc.qperm : sc.tperm;
    int count = 0;
    for (int p = threadIdx.x; p < n; p += COMPACT_THREADS) count += kp[p].laplacian < 0;
    const int total = reduce_t(tmp.r).Sum(count);
    if (threadIdx.x == 0) {
        neg_total = total;
        sc.negs[blockIdx.x] = total;
    }
    __syncthreads();
    const int negs = neg_total;
    int base_neg = 0, base_pos = 0;
    for (int c0 = 0; c0 < n; c0 += COMPACT_THREADS) {
        const int p = c0 + (int)threadIdx.x;
        const int neg = p < n && kp[p].laplacian < 0;
        const int pos = p < n && !neg;
        /* both flags in one int: a chunk counts at most 1024 of each, so no carry crosses */
        int at, sum;
        scan_t(tmp.s).ExclusiveSum(neg | (pos << 16), at, sum);
        if (neg) perm[base_neg + (at & 0xffff)] = p;
        if (pos) perm[negs + base_pos + (at >> 16)] = p;
        base_neg += sum & 0xffff;
        base_pos += sum >> 16;
        __syncthreads(); /* tmp is reused */
    }
}

/** Compact kernel: one block walks the queries in chunks of COMPACT_THREADS, scans the keep
 * flags and writes the kept matches in query order, then the count. */
static __global__ void __launch_bounds__(COMPACT_THREADS)
match_compact_kernel(satfeat_match_cuda_args a, match_scratch sc)
{
    typedef cub::BlockScan<int, COMPACT_THREADS> scan_t;
    __shared__ typename scan_t::TempStorage tmp;
    int base = 0;
    for (int c0 = 0; c0 < a.n1; c0 += COMPACT_THREADS) {
        const int i = c0 + (int)threadIdx.x;
        const int k = i < a.n1 ? sc.keep[i] : 0;
        int pos, total;
        scan_t(tmp).ExclusiveSum(k, pos, total);
        if (k) a.matches[base + pos] = sc.rec[i];
        base += total;
        __syncthreads(); /* tmp is reused */
    }
    if (threadIdx.x == 0) *a.count = (unsigned int)base;
}

template <int DIM>
static cudaError_t launch_distance(const satfeat_match_cuda_args &a, const match_scratch &sc,
                                   int groups, cudaStream_t s)
{
    const size_t smem = 2u * MT * (DIM + 4) * sizeof(float);
    cudaError_t e = cudaFuncSetAttribute(match_distance_kernel<DIM>,
                                         cudaFuncAttributeMaxDynamicSharedMemorySize, (int)smem);
    if (e != cudaSuccess) return e;
    const dim3 grid((unsigned)((a.n1 + MT - 1) / MT), (unsigned)groups);
    match_distance_kernel<DIM><<<grid, MTHREADS, smem, s>>>(a, sc, groups);
    return cudaPeekAtLastError();
}

extern "C" int satfeat_match_cuda_launch(const satfeat_match_cuda_args *a, void *scratch,
                                         void *stream, const char **failed)
{
    cudaStream_t s = (cudaStream_t)stream;
    size_t off[9];
    scratch_layout((size_t)a->n1, (size_t)a->n2, off);
    unsigned char *base = (unsigned char *)scratch;
    match_scratch sc;
    sc.colkey = (unsigned long long *)(base + off[0]);
    sc.gb1 = (float *)(base + off[1]);
    sc.gj1 = (int *)(base + off[2]);
    sc.gb2 = (float *)(base + off[3]);
    sc.keep = (int *)(base + off[4]);
    sc.rec = (satfeat_match_pair *)(base + off[5]);
    sc.qperm = (int *)(base + off[6]);
    sc.tperm = (int *)(base + off[7]);
    sc.negs = (int *)(base + off[8]);
    const int groups = groups_of((size_t)a->n2);
    cudaError_t e = cudaSuccess;
    if (a->same_laplacian) {
        *failed = "match partition kernel";
        match_partition_kernel<<<2, COMPACT_THREADS, 0, s>>>(*a, sc);
        e = cudaPeekAtLastError();
        if (e != cudaSuccess) return (int)e;
    }
    if (a->mutual) {
        *failed = "cudaMemsetAsync (match column keys)";
        e = cudaMemsetAsync(sc.colkey, 0xff, (size_t)a->n2 * sizeof(unsigned long long), s);
        if (e != cudaSuccess) return (int)e;
    }
    *failed = "match distance kernel";
    e = a->dim == 128 ? launch_distance<128>(*a, sc, groups, s) : launch_distance<64>(*a, sc, groups, s);
    if (e != cudaSuccess) return (int)e;
    *failed = "match decide kernel";
    const size_t warps_per_block = DECIDE_THREADS / 32;
    match_decide_kernel<<<(unsigned)(((size_t)a->n1 + warps_per_block - 1) / warps_per_block),
                          DECIDE_THREADS, 0, s>>>(*a, sc, groups);
    e = cudaPeekAtLastError();
    if (e != cudaSuccess) return (int)e;
    *failed = "match compact kernel";
    match_compact_kernel<<<1, COMPACT_THREADS, 0, s>>>(*a, sc);
    return (int)cudaPeekAtLastError();
}
