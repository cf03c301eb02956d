/* fh_kernels.cu - the fused octave kernel of the CUDA detector: responses of every layer of a
 * tile in shared memory, then NMS, refinement, ownership and compaction of its middle layers,
 * so the response maps never go to global memory. It runs the very functions of fh_response.h
 * and fh_extremum.h that the CPU stages run (built with --fmad=false) on the same values, so
 * every response and keypoint field has the CPU's bits. */
#include "fh_cuda.h"
#include "fh_extremum.h"
#include "fh_response.h"

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

/* The value a tile keeps for a sample with filters `d`: the response, or -INFINITY where the
 * exact numerator proves the response <= the threshold (m.skip_num), which skips the division
 * for most samples. Such a value never passes the threshold and never stops a centre above the
 * threshold from being a strict maximum, exactly as the true value; refine_at recomputes it
 * where the refinement needs it. */
__device__ static double tile_value(satfeat_fh_hessian d, const satfeat_fh_norm &n,
                                    double skip_num)
{
    if (!n.fast) return satfeat_fh_response(d, &n);
    const double num = satfeat_fh_numerator_fast(d);
    return num <= skip_num ? -INFINITY : num / n.den_d;
}

/* Filters of the sample (kx, ky) of layer m: from the staged window (origin x0, y0, row stride
 * ws) when `win` is set, else from the global table. Box sums depend only on differences of
 * table entries, so both give the same exact integers. */
__device__ static satfeat_fh_hessian filters_at(const satfeat_fh_plan &plan,
                                                const satfeat_fh_plan_map &m,
                                                const uint32_t *__restrict__ sat,
                                                const uint32_t *win, int ws, int x0, int y0,
                                                int kx, int ky)
{
    return win ? satfeat_fh_filters(win, (size_t)ws, kx * m.step - x0, ky * m.step - y0, m.lobe)
               : satfeat_fh_filters(sat, (size_t)plan.sat_pitch, kx * m.step, ky * m.step,
                                    m.lobe);
}

/* Compile-time geometry of octave O of the default configuration (4 layers, initial step 1):
 * lobes, step and the staged window's row stride (the same formula as fh_plan.c). With them
 * every table read of a filter is a shared load at a constant offset. */
template <int O> struct fh_fixed {
    static constexpr int step = 1 << O;
    __host__ __device__ static constexpr int lobe(int i) { return (2 << O) * (i + 1) + 1; }
    static constexpr int reach = (3 * lobe(3) - 1) / 2;
    static constexpr int width = (TX + 1) * step + 2 * reach + 2;
};

/* Tile value (tile_value) of layer I of octave O (default configuration) at window position
 * (lx, ly). */
template <int O, int I>
__device__ static double fixed_response(const uint32_t *win, int lx, int ly,
                                        const satfeat_fh_norm &n, double skip_num)
{
    const satfeat_fh_hessian d =
        satfeat_fh_filters(win, (size_t)fh_fixed<O>::width, lx, ly, fh_fixed<O>::lobe(I));
    return tile_value(d, n, skip_num);
}

/* The tile values of all 4 layers of octave O from the staged window (default configuration),
 * the same values as the generic loop. The block's threads share the (sample, layer) pairs
 * evenly, so the apron adds no mostly idle second round. */
template <int O>
__device__ static void fixed_tile(const satfeat_fh_plan &plan, const uint32_t *win, int x0,
                                  int y0, int kx_org, int ky_org, int tid, double *resp)
{
    const satfeat_fh_plan_map *m = &plan.maps[O * 4];
    for (int q = tid; q < 4 * SX * SY; q += TX * TY) {
        const int i = q / (SX * SY), e = q - i * (SX * SY);
        const int kx = kx_org - 1 + e % SX, ky = ky_org - 1 + e / SX;
        const int lx = kx * fh_fixed<O>::step - x0, ly = ky * fh_fixed<O>::step - y0;
        double v = 0.0; /* no response here: never read by a tested sample */
        if (kx >= m[i].rx0 && kx <= m[i].rx1 && ky >= m[i].ry0 && ky <= m[i].ry1) {
            switch (i) {
            case 0: v = fixed_response<O, 0>(win, lx, ly, m[0].norm, m[0].skip_num); break;
            case 1: v = fixed_response<O, 1>(win, lx, ly, m[1].norm, m[1].skip_num); break;
            case 2: v = fixed_response<O, 2>(win, lx, ly, m[2].norm, m[2].skip_num); break;
            default: v = fixed_response<O, 3>(win, lx, ly, m[3].norm, m[3].skip_num); break;
            }
        }
        resp[q] = v;
    }
}

/* The exact 3x3x3 neighbourhood of the centre (kx, ky) of middle layer `li` into nb (layer
 * below, same, above; rows of 3): the tile's values, with every skipped one (-INFINITY)
 * recomputed as the true response, so the refinement sees the CPU's values. */
__device__ static void refine_at(const satfeat_fh_plan &plan, int mbase, int li, const double *pm,
                                 const uint32_t *__restrict__ sat, const uint32_t *win, int ws,
                                 int x0, int y0, int kx, int ky, double nb[27])
{
    for (int j = 0; j < 27; j++) {
        const int dl = j / 9 - 1, dy = (j / 3) % 3 - 1, dx = j % 3 - 1;
        double v = pm[dl * SX * SY + dy * SX + dx];
        if (v == -INFINITY) {
            const satfeat_fh_plan_map &m = plan.maps[mbase + li + dl];
            v = satfeat_fh_response(
                filters_at(plan, m, sat, win, ws, x0, y0, kx + dx, ky + dy), &m.norm);
        }
        nb[j] = v;
    }
}

/**
 * One block of TX x TY threads owns a tile of TX x TY samples of one octave (one thread per
 * sample). It stages the table window under the tile's filters in shared memory (octaves whose
 * window fits SATFEAT_FH_STAGE_BYTES, copied asynchronously; others read the table through L1),
 * computes the tile values (tile_value: the response, or -INFINITY where it is provably at most
 * the threshold) of every layer on the tile plus a one-sample apron into shared memory, then
 * each thread tests its sample on every middle layer: threshold, strict 3x3x3 maximum, quadratic
 * refinement on the exact neighbourhood (refine_at), octave ownership. A kept sample appends its keypoint, its response and a zero rank through
 * an atomic counter (counters[0], which must be 0 at launch).
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
        /* asynchronous copies: all of a thread's loads are in flight at once */
        for (int r = (int)threadIdx.y; r < oc.win_h; r += TY) {
            const int gy = y0 + r;
            const uint32_t *src = sat + (size_t)(gy < 0 ? 0 : gy) * plan.sat_pitch;
            for (int c = (int)threadIdx.x; c < oc.win_w; c += TX) {
                const int gx = x0 + c;
                uint32_t *dst = &win[r * oc.win_w + c];
                if (gy >= 0 && gy <= plan.height && gx >= 0 && gx <= plan.width)
                    __pipeline_memcpy_async(dst, src + gx, sizeof(uint32_t));
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
        for (int q = tid; q < layers * SX * SY; q += TX * TY) {
            const int i = q / (SX * SY), e = q - i * (SX * SY);
            const satfeat_fh_plan_map &m = plan.maps[mbase + i];
            const int kx = kx_org - 1 + e % SX, ky = ky_org - 1 + e / SX;
            double v = 0.0; /* no response here: never read by a tested sample */
            if (kx >= m.rx0 && kx <= m.rx1 && ky >= m.ry0 && ky <= m.ry1)
                v = tile_value(filters_at(plan, m, sat, win, oc.win_w, x0, y0, kx, ky), m.norm,
                               m.skip_num);
            resp[q] = v;
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
        double nb[27], off[3];
        refine_at(plan, mbase, i, pm, sat, win, oc.win_w, x0, y0, kx, ky, nb);
        if (!satfeat_fh_refine(nb + 4, nb + 13, nb + 22, 3, plan.max_offset, off)) continue;
        satfeat_keypoint kp;
        memset(&kp, 0, sizeof kp);
        satfeat_fh_fields(kx, ky, mid.step, mid.side, mid.side_step, off, &kp.x, &kp.y, &kp.size,
                          &kp.sigma);
        if (plan.unique_scales &&
            !satfeat_fh_owned(kp.x, kp.y, kp.size, mid.octave, plan.octaves, plan.init_step,
                              plan.width, plan.height))
            continue;
        kp.response = nb[13];
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
