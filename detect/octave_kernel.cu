/* octave_kernel.cu - the fused octave kernel of the CUDA detector: responses of every layer of a
 * tile in shared memory, then NMS, refinement, ownership and compaction of its middle layers,
 * so the response maps never go to global memory. It runs the very functions of hessian_response.h
 * and extremum_refine.h that the CPU stages run (built with --fmad=false) on the same values, so
 * every response and keypoint field has the CPU's bits. */
#include "kernels_cuda.h"
#include "extremum_refine.h"
#include "hessian_response.h"

#include <cuda_pipeline_primitives.h>
#include <cuda_runtime.h>
#include <string.h>

#define TX SATFEAT_FH_TILE_X
#define TY SATFEAT_FH_TILE_Y
#define SX (TX + 2) /* response tile with a one-sample apron */
#define SY (TY + 2)

/* The octave of block `b` (octaves are in increasing `first`). */
__device__ static int octave_of(const satfeat_fh_plan &plan, int b)
{
    int k = 0;
    while (k + 1 < plan.n_oct && plan.oct[k + 1].first <= b) k++;
    return k;
}

/* Response of the sample (kx, ky) of layer m: from the staged window (origin x0, y0, row
 * stride ws) when `win` is set, else from the global table. Box sums depend only on
 * differences of table entries, so both give the same exact integers. */
__device__ static double response_at(const satfeat_fh_plan &plan, const satfeat_fh_plan_map &m,
                                     const uint32_t *__restrict__ sat, const uint32_t *win,
                                     int ws, int x0, int y0, int kx, int ky)
{
    const satfeat_fh_hessian d =
        win ? satfeat_fh_filters(win, (size_t)ws, kx * m.step - x0, ky * m.step - y0, m.lobe)
            : satfeat_fh_filters(sat, (size_t)plan.sat_pitch, kx * m.step, ky * m.step, m.lobe);
    return m.norm.fast ? satfeat_fh_response_fast(d, m.norm.den_d) : satfeat_fh_response(d, &m.norm);
}

/* Compile-time geometry of octave O of the default configuration (4 layers, initial step 1):
 * lobes, step and the staged window's row stride, from the formulas the plan uses
 * (SATFEAT_FH_LOBE, SATFEAT_FH_REACH, SATFEAT_FH_WINDOW). With them every table read of a filter
 * is a shared load at a constant offset. */
template <int O> struct fh_fixed {
    static constexpr int step = 1 << O;
    __host__ __device__ static constexpr int lobe(int i) { return SATFEAT_FH_LOBE(O, i); }
    static constexpr int reach = SATFEAT_FH_REACH(lobe(3));
    static constexpr int width = SATFEAT_FH_WINDOW(TX, step, reach);
};

/* Response of layer I of octave O (default configuration) at window position (lx, ly). */
template <int O, int I>
__device__ static double fixed_response(const uint32_t *win, int lx, int ly,
                                        const satfeat_fh_norm &n)
{
    const satfeat_fh_hessian d =
        satfeat_fh_filters(win, (size_t)fh_fixed<O>::width, lx, ly, fh_fixed<O>::lobe(I));
    return n.fast ? satfeat_fh_response_fast(d, n.den_d) : satfeat_fh_response(d, &n);
}

/* The tile's responses of all 4 layers of octave O from the staged window (default
 * configuration), same values as the generic loop. */
template <int O>
__device__ static void fixed_tile(const satfeat_fh_plan &plan, const uint32_t *win, int x0,
                                  int y0, int kx_org, int ky_org, int tid, double *resp)
{
    const satfeat_fh_plan_map *m = &plan.maps[O * 4];
    for (int e = tid; e < SX * SY; e += TX * TY) {
        const int kx = kx_org - 1 + e % SX, ky = ky_org - 1 + e / SX;
        const int lx = kx * fh_fixed<O>::step - x0, ly = ky * fh_fixed<O>::step - y0;
#define FH_FIXED_LAYER(I)                                                                     \
    resp[I * SX * SY + e] =                                                                   \
        (kx >= m[I].rx0 && kx <= m[I].rx1 && ky >= m[I].ry0 && ky <= m[I].ry1)                \
            ? fixed_response<O, I>(win, lx, ly, m[I].norm)                                    \
            : 0.0;
        FH_FIXED_LAYER(0)
        FH_FIXED_LAYER(1)
        FH_FIXED_LAYER(2)
        FH_FIXED_LAYER(3)
#undef FH_FIXED_LAYER
    }
}

/**
 * One block of TX x TY threads owns a tile of TX x TY samples of one octave (one thread per
 * sample). It stages the table window under the tile's filters in shared memory with
 * asynchronous copies, so all of a thread's loads are in flight at once (octaves whose window
 * fits SATFEAT_FH_STAGE_BYTES; others read the table through L1), computes the responses
 * of every layer on the tile plus a one-sample apron into shared memory, then each thread tests
 * its sample on every middle layer: threshold, strict 3x3x3 maximum, quadratic refinement,
 * octave ownership. A kept sample appends its keypoint and its response through
 * an atomic counter (counters[0], which must be 0 at launch). Launch bounds ask for two blocks
 * per SM (at most 64 registers a thread): the kernel is latency bound, and at one block per SM
 * (74 registers once keypoint building moved into satfeat_fh_build_keypoint) it ran 47% slower
 * on an H200. The few spilled values live on the rare candidate path.
 */
__global__ void __launch_bounds__(TX * TY, 2)
fh_octave_kernel(const satfeat_fh_plan plan, const uint32_t *__restrict__ sat,
                 satfeat_fh_order_bufs b)
{
    extern __shared__ double smem[];
    const satfeat_fh_plan_octave &oc = plan.oct[octave_of(plan, (int)blockIdx.x)];
    const int t = (int)(blockIdx.x) - oc.first;
    const int kx_org = oc.kx0 + (t % oc.tiles_x) * TX; /* first centre of the tile */
    const int ky_org = oc.ky0 + (t / oc.tiles_x) * TY;
    const int tid = (int)(threadIdx.y * TX + threadIdx.x);
    const int layers = plan.layers;
    double *resp = smem;
    uint32_t *win = NULL;
    int x0 = 0, y0 = 0;
    if (oc.win_w > 0) {
        win = (uint32_t *)(smem + (size_t)layers * SX * SY);
        x0 = (kx_org - 1) * oc.step - oc.reach;
        y0 = (ky_org - 1) * oc.step - oc.reach;
        for (int r = (int)threadIdx.y; r < oc.win_h; r += TY) {
            const int gy = y0 + r;
            for (int c = (int)threadIdx.x; c < oc.win_w; c += TX) {
                const int gx = x0 + c;
                uint32_t *dst = &win[r * oc.win_w + c];
                if (gy >= 0 && gy <= plan.height && gx >= 0 && gx <= plan.width)
                    __pipeline_memcpy_async(dst, &sat[(size_t)gy * plan.sat_pitch + (size_t)gx],
                                            sizeof(uint32_t));
                else
                    *dst = 0; /* outside the table: never read by a sample with a response */
            }
        }
        __pipeline_commit();
        __pipeline_wait_prior(0);
        __syncthreads();
    }
    const int mbase = oc.octave * layers;
    if (oc.fixed == 1 && oc.win_w == fh_fixed<0>::width)
        fixed_tile<0>(plan, win, x0, y0, kx_org, ky_org, tid, resp);
    else if (oc.fixed == 2 && oc.win_w == fh_fixed<1>::width)
        fixed_tile<1>(plan, win, x0, y0, kx_org, ky_org, tid, resp);
    else
    for (int i = 0; i < layers; i++) {
        const satfeat_fh_plan_map &m = plan.maps[mbase + i];
        for (int e = tid; e < SX * SY; e += TX * TY) {
            const int kx = kx_org - 1 + e % SX, ky = ky_org - 1 + e / SX;
            double v = 0.0; /* no response here: never read by a tested sample */
            if (kx >= m.rx0 && kx <= m.rx1 && ky >= m.ry0 && ky <= m.ry1)
                v = response_at(plan, m, sat, win, oc.win_w, x0, y0, kx, ky);
            resp[i * SX * SY + e] = v;
        }
    }
    __syncthreads();
    const int kx = kx_org + (int)threadIdx.x, ky = ky_org + (int)threadIdx.y;
    const satfeat_fh_kp_rules rules = {plan.max_offset, plan.unique_scales, plan.octaves,
                                       plan.init_step, plan.width, plan.height};
    for (int i = 1; i + 1 < layers; i++) {
        const satfeat_fh_plan_map &mid = plan.maps[mbase + i];
        if (kx < mid.nx0 || kx > mid.nx1 || ky < mid.ny0 || ky > mid.ny1) continue;
        const double *pm = resp + i * SX * SY + (threadIdx.y + 1) * SX + (threadIdx.x + 1);
        if (!(pm[0] > plan.threshold)) continue;
        const double *pl = pm - SX * SY, *ph = pm + SX * SY;
        if (!satfeat_fh_is_max(pl, pm, ph, SX)) continue;
        const satfeat_fh_kp_layer ly = {mid.octave, mid.layer, mid.lobe,
                                        mid.side,   mid.side_step, mid.step};
        satfeat_keypoint kp;
        if (!satfeat_fh_build_keypoint(pl, pm, ph, SX, kx, ky, &ly, &rules, sat,
                                       (size_t)plan.sat_pitch, &kp))
            continue;
        const uint32_t slot = atomicAdd(&b.counters[0], 1u);
        if (slot >= b.cap) continue; /* cannot happen: cap is a proven bound */
        b.cand[slot] = kp;
        b.resp[slot] = kp.response;
    }
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
    fh_octave_kernel<<<plan->blocks, dim3(TX, TY), plan->smem_bytes, (cudaStream_t)stream>>>(
        *plan, sat, *b);
    return (int)cudaGetLastError();
}
