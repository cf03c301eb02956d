/* fh_kernels.cu - the fused octave kernel of the CUDA detector: responses of every layer of a
 * tile in shared memory, then NMS, refinement, ownership and compaction of its middle layers,
 * so the response maps never go to global memory. It runs the very functions of fh_response.h
 * and fh_extremum.h that the CPU stages run (built with --fmad=false) on the same values, so
 * every response and keypoint field has the CPU's bits. */
#include "fh_cuda.h"
#include "fh_extremum.h"
#include "fh_response.h"

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

/**
 * One block of TX x TY threads owns a tile of TX x TY samples of one octave (one thread per
 * sample). It stages the table window under the tile's filters in shared memory (octaves whose
 * window fits SATFEAT_FH_STAGE_BYTES; others read the table through L1), computes the responses
 * of every layer on the tile plus a one-sample apron into shared memory, then each thread tests
 * its sample on every middle layer: threshold, strict 3x3x3 maximum, quadratic refinement,
 * octave ownership. A kept sample appends its keypoint, its response and a zero rank through
 * an atomic counter (counters[0], which must be 0 at launch).
 */
__global__ void __launch_bounds__(TX * TY)
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
                uint32_t v = 0; /* outside the table: never read by a sample with a response */
                if (gy >= 0 && gy <= plan.height && gx >= 0 && gx <= plan.width)
                    v = __ldg(&sat[(size_t)gy * plan.sat_pitch + (size_t)gx]);
                win[r * oc.win_w + c] = v;
            }
        }
        __syncthreads();
    }
    const int mbase = oc.octave * layers;
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
    for (int i = 1; i + 1 < layers; i++) {
        const satfeat_fh_plan_map &mid = plan.maps[mbase + i];
        if (kx < mid.nx0 || kx > mid.nx1 || ky < mid.ny0 || ky > mid.ny1) continue;
        const double *pm = resp + i * SX * SY + (threadIdx.y + 1) * SX + (threadIdx.x + 1);
        if (!(pm[0] > plan.threshold)) continue;
        const double *pl = pm - SX * SY, *ph = pm + SX * SY;
        if (!satfeat_fh_is_max(pl, pm, ph, SX)) continue;
        double off[3];
        if (!satfeat_fh_refine(pl, pm, ph, SX, plan.max_offset, off)) continue;
        satfeat_keypoint kp;
        memset(&kp, 0, sizeof kp);
        satfeat_fh_fields(kx, ky, mid.step, mid.side, mid.side_step, off, &kp.x, &kp.y, &kp.size,
                          &kp.sigma);
        if (plan.unique_scales &&
            !satfeat_fh_owned(kp.x, kp.y, kp.size, mid.octave, plan.octaves, plan.init_step,
                              plan.width, plan.height))
            continue;
        kp.response = pm[0];
        kp.laplacian = satfeat_fh_laplacian(satfeat_fh_filters(
            sat, (size_t)plan.sat_pitch, kx * mid.step, ky * mid.step, mid.lobe));
        kp.octave = mid.octave;
        kp.layer = mid.layer;
        kp.sample_x = kx;
        kp.sample_y = ky;
        const uint32_t slot = atomicAdd(&b.counters[0], 1u);
        if (slot >= b.cap) continue; /* cannot happen: cap is a proven bound */
        b.cand[slot] = kp;
        b.resp[slot] = kp.response;
        b.rank[slot] = 0;
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
