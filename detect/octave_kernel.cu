/* octave_kernel.cu - the fused octave kernel of the CUDA detector: responses of every layer of a
 * tile in shared memory, then NMS, refinement, ownership and compaction of its middle layers,
 * so the response maps never go to global memory. It runs the very functions of hessian_response.h
 * and extremum_refine.h that the CPU stages run (built with --fmad=false) on the same values, so
 * every response and keypoint field has the CPU's bits. The response tiles: octave_tiles.cuh. */
#include "detect/extremum_refine.h"
#include "detect/kernels_cuda.h"
#include "detect/octave_tiles.cuh"
#include "src/pdl.cuh"

#include <cuda_pipeline_primitives.h>
#include <cuda_runtime.h>
#include <string.h>

/* Words of a bit per element of a (tall) tile's response tile (SX x (TT + 2)): which samples of
 * an outer layer the sparse NMS has computed. */
#define FH_MARK_WORDS ((SX * (TT + 2) + 31) / 32)
/* Most maxima of a tile that wait for an outer layer: strict maxima of their own layer are never
 * 8-neighbours, so a layer of TX x TT samples (a tall tile, the largest) has at most
 * ceil(TX/2) ceil(TT/2) of them, and only the two middle layers next to the outer ones wait
 * (layers 1 and L-2). */
#define FH_PEND_MAX (2 * ((TX + 1) / 2) * ((TT + 1) / 2))
/* Most maxima of a tile (the block's list): by the same argument, ceil(TX/2) ceil(TT/2) a middle
 * layer. 2 KB instead of a slot per sample and layer (8 KB), which lets two blocks of the largest
 * dynamic shared memory (octave 1's split window) fit the SM's 196 KB configuration and leave
 * the L1 more room for the coarse octaves' table reads. */
#define FH_MAXIMA_MAX (MAX_MIDDLE * ((TX + 1) / 2) * ((TT + 1) / 2))

/* The response-tile entry of a listed code (sample c * MAX_MIDDLE + layer i - 1: tile column
 * c % TX, row c / TX, one-sample apron) in response tiles of TH + 2 rows. */
template <int TH>
__device__ __forceinline__ double *code_entry(double *resp, int code)
{
    const int i = code % MAX_MIDDLE + 1, c = code / MAX_MIDDLE;
    return resp + i * SX * (TH + 2) + (c / TX + 1) * SX + (c % TX + 1);
}

/* Appends a code to a shared list of CAP entries with counter `count` (the bounds above make
 * the test always true; it keeps every write inside the list). */
template <uint32_t CAP>
__device__ __forceinline__ void code_list_add(uint16_t *list, uint32_t &count, int code)
{
    const uint32_t slot = atomicAdd(&count, 1u);
    if (slot < CAP) list[slot] = (uint16_t)code;
}

/* The sparse NMS's own state of a tile (shared memory): the maxima that wait for an outer layer
 * and the outer samples computed. */
struct fh_sparse_state {
    uint32_t npend;                       /* pending maxima */
    uint16_t pend[FH_PEND_MAX];           /* their codes: sample * MAX_MIDDLE + layer - 1 */
    uint32_t mark[2 * FH_MARK_WORDS];     /* layer 0, then layer L-1: samples computed */
};

/* The outer-layer samples the pending maxima of a tile of TH rows need (the 3 x 3 next to each,
 * in layer 0 for a layer-1 maximum, in layer L-1 for a layer L-2 one), and the rest of their
 * test: a warp takes three pending maxima a round, nine lanes each; a lane computes its sample,
 * stores it unless a lane claimed it before (the mark) and compares it with the maximum, which
 * is one (appended to the block's list of maxima) when it is above all nine. FIXED (octave O with
 * L layers, the fixed geometry): fixed_value, the same values as its dense layers; otherwise (any
 * octave, four layers or more; O and L unused) the generic filters and response function of the
 * dense loop, from the staged window `win` (origin x0, y0) or, without one, the table. */
template <bool FIXED, int O, int L, int TH>
__device__ static void outer_samples(const satfeat_fh_plan &plan, const uint32_t *__restrict__ sat,
                                     const satfeat_fh_plan_octave &oc, const uint32_t *win,
                                     int x0, int y0, int kx_org, int ky_org, int sh,
                                     fh_sparse_state &sp, double *resp, uint16_t *s_maxima,
                                     uint32_t &s_count)
{
    constexpr int SYT = TH + 2;
    const int lane = (int)threadIdx.x, warp = (int)threadIdx.y, npend = (int)sp.npend;
    const int layers = FIXED ? L : plan.layers, mbase = FIXED ? O * L : oc.octave * layers;
    const satfeat_fh_plan_map &m0 = plan.maps[mbase], &m1 = plan.maps[mbase + layers - 1];
    const bool in0 = FIXED && tile_all_in(0);
    const bool in1 = FIXED && tile_all_in(layers - 1);
    for (int base = warp * 3; base < npend; base += 3 * FH_WARPS) { /* warp-uniform rounds */
        const int p = base + lane / 9;
        const bool active = lane < 27 && p < npend;
        bool below = true; /* the sample is below its maximum (or the lane has none) */
        int code = 0;
        if (active) {
            code = sp.pend[p];
            const int i = code % MAX_MIDDLE + 1, c = code / MAX_MIDDLE;
            const int k = lane % 9, v = c / TX + k / 3, u = c % TX + k % 3, e = v * SX + u;
            const int outer = i == 1 ? 0 : 1;
            double val;
            if constexpr (FIXED) {
                val = outer == 0 ? fixed_value<O, L, TH, 0>(m0, in0, kx_org, ky_org, sh, v, u)
                                 : fixed_value<O, L, TH, L - 1>(m1, in1, kx_org, ky_org, sh, v, u);
            } else {
                const satfeat_fh_plan_map &m = outer ? m1 : m0;
                const int kx = kx_org - 1 + u, ky = ky_org - 1 + v;
                val = 0.0; /* no response here: never read by a tested sample */
                if (has_response(m, kx, ky))
                    val = tile_value(filters_at(plan, m, sat, win, oc.win_w, x0, y0, kx, ky), m);
            }
            const uint32_t bit = 1u << (e & 31);
            if (!(atomicOr(&sp.mark[outer * FH_MARK_WORDS + (e >> 5)], bit) & bit))
                resp[(outer ? layers - 1 : 0) * SX * SYT + e] = val;
            below = *code_entry<TH>(resp, code) > val;
        }
        const unsigned fail = __ballot_sync(0xffffffffu, !below);
        if (active && lane % 9 == 0 && ((fail >> lane) & 0x1FFu) == 0)
            code_list_add<FH_MAXIMA_MAX>(s_maxima, s_count, code);
    }
}

/* Warp threadIdx.y lists, in `wlist`, its samples (rows threadIdx.y, + TY, ... of a tile of TH
 * rows) that lie in a middle layer's NMS rectangle and exceed the threshold, as codes sample *
 * MAX_MIDDLE + layer - 1; returns their number. FIXED (octave O with L layers): the layers and
 * their plan entries are compile-time constants (an unrolled loop, constant-bank operands);
 * otherwise the plan's `layers` of the octave whose first map is mbase. */
template <bool FIXED, int O, int L, int TH>
__device__ __forceinline__ int list_above(const satfeat_fh_plan &plan, int mbase, int kx_org,
                                          int ky_org, const double *resp, uint16_t *wlist)
{
    constexpr int SYT = TH + 2;
    const int lane = (int)threadIdx.x, kx = kx_org + lane;
    const int layers = FIXED ? L : plan.layers;
    int listed = 0;
#pragma unroll
    for (int i = 1; i + 1 < (FIXED ? L : SATFEAT_FH_MAX_LAYERS); i++) {
        if (!FIXED && i + 1 >= layers) break;
        const satfeat_fh_plan_map &mid = plan.maps[FIXED ? O * L + i : mbase + i];
        const bool col_in = kx >= mid.nx0 && kx <= mid.nx1;
#pragma unroll
        for (int t = 0; t < TH / TY; t++) {
            const int ty = (int)threadIdx.y + t * TY, ky = ky_org + ty;
            const double *pm = resp + i * SX * SYT + (ty + 1) * SX + (lane + 1);
            const bool above =
                col_in && ky >= mid.ny0 && ky <= mid.ny1 && pm[0] > plan.threshold;
            const unsigned who = __ballot_sync(0xffffffffu, above);
            if (above)
                wlist[listed + __popc(who & ((1u << lane) - 1u))] =
                    (uint16_t)((ty * TX + lane) * MAX_MIDDLE + (i - 1));
            listed += __popc(who);
        }
    }
    return listed;
}

/* The block's tile of TH rows (TY or TT) from its first centre (kx_org, ky_org): responses,
 * maxima, refinement and compaction, as fh_octave_kernel describes. Each thread owns the
 * samples of its column in rows threadIdx.y, threadIdx.y + TY, ... of the tile. */
template <int TH>
__device__ __forceinline__ void octave_tile(const satfeat_fh_plan &plan,
                                            const uint32_t *__restrict__ sat,
                                            satfeat_fh_order_bufs &b,
                                            const satfeat_fh_plan_octave &oc, int kx_org,
                                            int ky_org, uint32_t &s_count, uint16_t *s_maxima,
                                            fh_sparse_state &sp)
{
    constexpr int SYT = TH + 2;
    const int tid = (int)(threadIdx.y * TX + threadIdx.x);
    const int layers = plan.layers;
    double *resp = (double *)fh_words;
    uint32_t *win = NULL;
    int x0 = 0, y0 = 0;
    if (oc.win_w > 0) {
        win = fh_words + (size_t)layers * SX * SYT * 2;
        x0 = (kx_org - 1) * oc.step - oc.reach;
        y0 = (ky_org - 1) * oc.step - oc.reach;
    }
    const int sh = x0 & 3; /* a fixed window starts sh entries before x0 */
    const int mbase = oc.octave * layers;
    /* the middle layers are computed here and the outer ones where maxima need them (sparse,
     * block-uniform), by the fixed geometry's code or the generic one */
    bool sparse = true, generic = false;
    if constexpr (TH == TT) { /* tall tiles: the fixed step-1 octaves only (frame_plan.c) */
        if (layers == 4) {
            fixed_stage<0, 4, TT>(plan, sat, x0, y0);
            fixed_tile<0, 4, TT, true>(plan, kx_org, ky_org, sh, tid, resp);
        } else {
            fixed_stage<0, 6, TT>(plan, sat, x0, y0);
            fixed_tile<0, 6, TT, true>(plan, kx_org, ky_org, sh, tid, resp);
        }
    } else if (oc.fixed && fixed_fits<1, 4, TY>(oc, layers)) {
        fixed_stage<1, 4, TY>(plan, sat, x0, y0);
        fixed_tile<1, 4, TY, true>(plan, kx_org, ky_org, sh, tid, resp);
    } else if (oc.fixed && fixed_fits<1, 6, TY>(oc, layers)) {
        fixed_stage<1, 6, TY>(plan, sat, x0, y0);
        fixed_tile<1, 6, TY, true>(plan, kx_org, ky_org, sh, tid, resp);
    } else {
        /* the generic path: sparse outer layers too when there are two middle layers at least
         * (with one, both of its neighbours would be outer layers) */
        generic = true;
        sparse = layers >= 4;
        if (win) stage_window(plan, sat, oc, win, x0, y0);
        for (int i = sparse ? 1 : 0; i < (sparse ? layers - 1 : layers); i++) {
            const satfeat_fh_plan_map &m = plan.maps[mbase + i];
            for (int e = tid; e < SX * SYT; e += TX * TY) {
                const int kx = kx_org - 1 + e % SX, ky = ky_org - 1 + e / SX;
                double v = 0.0; /* no response here: never read by a tested sample */
                if (has_response(m, kx, ky))
                    v = tile_value(filters_at(plan, m, sat, win, oc.win_w, x0, y0, kx, ky), m);
                resp[i * SX * SYT + e] = v;
            }
        }
    }
    __syncthreads();
    /* maxima: each warp lists its samples (rows threadIdx.y, + TY, ...) that exceed the threshold
     * on a middle layer, in the window's place (no longer read; with sparse outer layers, whose
     * window is still needed, in layer 0's tile, not computed yet), then its lanes take the
     * listed samples one each for the strict 3x3x3 test, so the test runs with full warps
     * instead of with the few lanes of each row above the threshold; maxima go to the block's
     * list. A sparse tile has only its middle layers so far: a sample of layer 1 or L-2 passing
     * the half of the test its layers allow (satfeat_fh_is_max_two) waits in sp.pend for its
     * outer layer's samples (outer_samples), then takes the whole test. */
    const int lane = (int)threadIdx.x;
    uint16_t *wlist = (sparse ? (uint16_t *)fh_words
                              : (uint16_t *)(fh_words + (size_t)layers * SX * SYT * 2)) +
                      threadIdx.y * FH_NMS_LIST<TH>;
    int listed;
    if constexpr (TH == TT)
        listed = layers == 4 ? list_above<true, 0, 4, TT>(plan, mbase, kx_org, ky_org, resp, wlist)
                             : list_above<true, 0, 6, TT>(plan, mbase, kx_org, ky_org, resp, wlist);
    else if (generic)
        listed = list_above<false, 0, 0, TY>(plan, mbase, kx_org, ky_org, resp, wlist);
    else
        listed = layers == 4 ? list_above<true, 1, 4, TY>(plan, mbase, kx_org, ky_org, resp, wlist)
                             : list_above<true, 1, 6, TY>(plan, mbase, kx_org, ky_org, resp, wlist);
    __syncwarp();
    for (int q = lane; q < listed; q += 32) {
        const int code = wlist[q], i = code % MAX_MIDDLE + 1;
        const double *pm = code_entry<TH>(resp, code);
        if (sparse && (i == 1 || i == layers - 2)) {
            if (satfeat_fh_is_max_two(pm, i == 1 ? pm + SX * SYT : pm - SX * SYT, SX))
                code_list_add<FH_PEND_MAX>(sp.pend, sp.npend, code);
        } else if (satfeat_fh_is_max(pm - SX * SYT, pm, pm + SX * SYT, SX)) {
            code_list_add<FH_MAXIMA_MAX>(s_maxima, s_count, code);
        }
    }
    __syncthreads();
    if (sparse) { /* block-uniform */
#define FH_OUTER(FIXED, O, L, H)                                                                   \
    outer_samples<FIXED, O, L, H>(plan, sat, oc, win, x0, y0, kx_org, ky_org, sh, sp, resp,      \
                                  s_maxima, s_count)
        if constexpr (TH == TT) {
            if (layers == 4)
                FH_OUTER(true, 0, 4, TT);
            else
                FH_OUTER(true, 0, 6, TT);
        } else {
            if (generic)
                FH_OUTER(false, 0, 0, TY);
            else if (layers == 4)
                FH_OUTER(true, 1, 4, TY);
            else
                FH_OUTER(true, 1, 6, TY);
        }
#undef FH_OUTER
        __syncthreads();
    }
    /* candidates: the block's maxima, one per thread, refined and appended */
    const satfeat_fh_kp_rules rules = {plan.max_offset, plan.unique_scales, plan.octaves,
                                       plan.init_step, plan.width, plan.height};
    const uint32_t listed_maxima = s_count < FH_MAXIMA_MAX ? s_count : FH_MAXIMA_MAX;
    for (uint32_t q = (uint32_t)tid; q < listed_maxima; q += TX * TY) {
        const int code = s_maxima[q], i = code % MAX_MIDDLE + 1, c = code / MAX_MIDDLE;
        const int cx = c % TX, cy = c / TX;
        const satfeat_fh_plan_map &mid = plan.maps[mbase + i];
        const double *pm = code_entry<TH>(resp, code);
        const satfeat_fh_kp_layer ly = {mid.octave, mid.layer, mid.lobe,
                                        mid.side,   mid.side_step, mid.step};
        satfeat_keypoint kp;
        if (!satfeat_fh_build_keypoint(pm - SX * SYT, pm, pm + SX * SYT, SX, kx_org + cx,
                                       ky_org + cy, &ly, &rules, sat, (size_t)plan.sat_pitch,
                                       &kp))
            continue;
        const uint32_t slot = atomicAdd(&b.counters[0], 1u);
        if (slot >= b.cap) continue; /* cannot happen: cap is a proven bound */
        b.cand[slot] = kp;
        b.resp[slot] = kp.response;
        /* the ordering's counts per response bucket and group (nothing waits for them either) */
        const uint32_t bk = satfeat_fh_bucket_desc(kp.response, plan.bucket_base);
        atomicAdd(&b.cand_buckets[bk], 1u);
        atomicAdd(&b.cand_groups[bk / SATFEAT_FH_BUCKET_GROUP], 1u);
        if (plan.dup_cw > 0) /* the ordering's count per duplicate cell: the result is not used,
                                so nothing waits for the atomic (taking a slot here measured
                                slower: 1080p +6 us, the block's last warp waited for it) */
            atomicAdd(&b.cell_hist[satfeat_fh_dup_cell_index(kp.x, kp.y, plan.dup_cw, plan.dup_ch)],
                      1u);
    }
}

/**
 * One block of TX x TY threads owns a tile of TX x oc.tile_h samples of one octave (TY rows, or
 * TT for the fixed step-1 octave, whose small window and apron then serve twice the samples);
 * launch position blockIdx.x takes the tile satfeat_fh_block_slot names.
 * It stages the table window under the tile's filters in shared memory (octaves whose window
 * fits SATFEAT_FH_STAGE_BYTES; others read the table through L1), computes the responses of
 * every layer on the tile plus a one-sample apron into shared memory, then each thread tests
 * its samples on every middle layer (threshold, strict 3x3x3 maximum) and lists the maxima in
 * shared memory; the block's threads then take the listed maxima one each (so the long
 * refinement runs with full warps instead of one lane of many warps): quadratic refinement,
 * octave ownership. With four layers or more a tile computes its outer layers (0 and L-1) only
 * where a maximum of the middle layer next to them needs them (the 3 x 3 beside it: the sparse
 * NMS of octave_tile). A kept maximum appends its keypoint and its response through an atomic
 * counter (counters[0], which must be 0 at launch), is counted in its response bucket and group
 * and, with duplicate cells, in its cell (cand_buckets, cand_groups, cell_hist: zero at
 * launch). Launch bounds ask for two blocks per SM (at most 64 registers a thread): the kernel is
 * latency bound, and at one block per SM (74 registers once keypoint building moved into
 * satfeat_fh_build_keypoint) it ran 47% slower on an H200. Static shared memory: the list of
 * maxima (2 KB), the sparse NMS's state and the tile's set-up (fh_tile_setup: the tile by warp 0
 * before the block's first barrier, its all-in layers by warp 0 before the staged window's
 * barrier).
 */
static __global__ void __launch_bounds__(TX * TY, 2)
fh_octave_kernel(const satfeat_fh_plan plan, const uint32_t *__restrict__ sat,
                 satfeat_fh_order_bufs b)
{
    __shared__ uint32_t s_count;                          /* maxima listed */
    __shared__ uint16_t s_maxima[FH_MAXIMA_MAX];          /* sample * MAX_MIDDLE + layer - 1 */
    __shared__ fh_sparse_state s_sparse;                  /* the sparse NMS */
    satfeat_pdl_enter();
    const int tid = (int)(threadIdx.y * TX + threadIdx.x);
    if (tid == 0) s_count = 0, s_sparse.npend = 0; /* used after the responses' barrier */
    for (int w = tid; w < 2 * FH_MARK_WORDS; w += TX * TY) s_sparse.mark[w] = 0;
    if (tid < 32) { /* warp 0: the tile (fh_tile_setup) */
        const int v = satfeat_fh_block_slot(&plan, (int)blockIdx.x), k = octave_of(plan, v);
        const satfeat_fh_plan_octave &o = plan.oct[k];
        const int t = v - o.first;
        const int kx = o.kx0 + (t % o.tiles_x) * TX, ky = o.ky0 + (t / o.tiles_x) * o.tile_h;
        /* all_in follows while the window is staged (tile_all_in_setup) */
        if (tid == 0) fh_setup = fh_tile_setup{k, kx, ky, 0u};
    }
    __syncthreads();
    const satfeat_fh_plan_octave &oc = plan.oct[fh_setup.oct];
    const int kx_org = fh_setup.kx_org, ky_org = fh_setup.ky_org; /* first centre of the tile */
    if (oc.tile_h == TT)
        octave_tile<TT>(plan, sat, b, oc, kx_org, ky_org, s_count, s_maxima, s_sparse);
    else
        octave_tile<TY>(plan, sat, b, oc, kx_org, ky_org, s_count, s_maxima, s_sparse);
}


extern "C" int satfeat_fh_kernels_init(void)
{
    return (int)cudaFuncSetAttribute(fh_octave_kernel,
                                     cudaFuncAttributeMaxDynamicSharedMemorySize,
                                     (int)SATFEAT_FH_SMEM_MAX);
}

extern "C" int satfeat_fh_launch_octaves(const satfeat_fh_plan *plan, const uint32_t *sat,
                                         satfeat_fh_order_bufs *b, void *stream)
{
    if (plan->blocks == 0) return 0;
    return (int)satfeat_pdl_launch(fh_octave_kernel, plan->blocks, dim3(TX, TY), plan->smem_bytes,
                                   (cudaStream_t)stream, *plan, sat, *b);
}
