/* fh_kernels.cu - the response and extrema kernels of the CUDA detector. Both run the very
 * functions of fh_response.h and fh_extremum.h that the CPU stages run (built with
 * --fmad=false), so every map value and keypoint field has the CPU's bits. */
#include "fh_cuda.h"
#include "fh_extremum.h"
#include "fh_response.h"

#include <cuda_runtime.h>
#include <string.h>

/* The rectangle of block `b` among `n` rectangles (rects are in increasing `first`). */
__device__ static int rect_of(const satfeat_fh_plan_rect *rects, int n, int b)
{
    int k = 0;
    while (k + 1 < n && rects[k + 1].first <= b) k++;
    return k;
}

/**
 * One block computes SATFEAT_FH_PLAN_BLOCK consecutive samples (row-major) of one layer's
 * response rectangle: reads the u32 table, writes the layer's double map.
 */
__global__ void __launch_bounds__(SATFEAT_FH_PLAN_BLOCK)
fh_responses_kernel(const satfeat_fh_plan plan, const uint32_t *__restrict__ sat,
                    double *__restrict__ maps)
{
    const int b = (int)blockIdx.x;
    const satfeat_fh_plan_rect r = plan.resp[rect_of(plan.resp, plan.n_resp, b)];
    const long long i = (long long)(b - r.first) * SATFEAT_FH_PLAN_BLOCK + threadIdx.x;
    if (i >= (long long)r.nx * r.ny) return;
    const int ky = r.ky0 + (int)(i / r.nx), kx = r.kx0 + (int)(i % r.nx);
    const satfeat_fh_plan_map &m = plan.maps[r.map];
    const satfeat_fh_hessian d =
        satfeat_fh_filters(sat, (size_t)plan.sat_pitch, kx * m.step, ky * m.step, m.lobe);
    maps[m.map_off + (size_t)ky * (size_t)m.gw + (size_t)kx] =
        m.norm.fast ? satfeat_fh_response_fast(d, m.norm.den_d) : satfeat_fh_response(d, &m.norm);
}

/**
 * One block tests SATFEAT_FH_PLAN_BLOCK samples of one middle layer: threshold, strict 3x3x3
 * maximum, quadratic refinement, octave ownership; each kept sample appends its keypoint, its
 * sort key (response rounded to float, bits) and its index through an atomic counter.
 */
__global__ void __launch_bounds__(SATFEAT_FH_PLAN_BLOCK)
fh_extrema_kernel(const satfeat_fh_plan plan, const uint32_t *__restrict__ sat,
                  const double *__restrict__ maps, satfeat_fh_order_bufs b)
{
    const int blk = (int)blockIdx.x;
    const satfeat_fh_plan_rect r = plan.nms[rect_of(plan.nms, plan.n_nms, blk)];
    const long long i = (long long)(blk - r.first) * SATFEAT_FH_PLAN_BLOCK + threadIdx.x;
    if (i >= (long long)r.nx * r.ny) return;
    const int ky = r.ky0 + (int)(i / r.nx), kx = r.kx0 + (int)(i % r.nx);
    const satfeat_fh_plan_map &mid = plan.maps[r.map];
    const ptrdiff_t gw = mid.gw;
    const size_t at = (size_t)ky * (size_t)gw + (size_t)kx;
    const double *pm = maps + mid.map_off + at;
    if (!(pm[0] > plan.threshold)) return;
    const double *pl = maps + plan.maps[r.map - 1].map_off + at;
    const double *ph = maps + plan.maps[r.map + 1].map_off + at;
    if (!satfeat_fh_is_max(pl, pm, ph, gw)) return;
    double off[3];
    if (!satfeat_fh_refine(pl, pm, ph, gw, plan.max_offset, off)) return;
    satfeat_keypoint kp;
    memset(&kp, 0, sizeof kp);
    satfeat_fh_fields(kx, ky, mid.step, mid.side, mid.side_step, off, &kp.x, &kp.y, &kp.size,
                      &kp.sigma);
    if (plan.unique_scales &&
        !satfeat_fh_owned(kp.x, kp.y, kp.size, mid.octave, plan.octaves, plan.init_step,
                          plan.width, plan.height))
        return;
    kp.response = pm[0];
    kp.laplacian = satfeat_fh_laplacian(satfeat_fh_filters(
        sat, (size_t)plan.sat_pitch, kx * mid.step, ky * mid.step, mid.lobe));
    kp.octave = mid.octave;
    kp.layer = mid.layer;
    kp.sample_x = kx;
    kp.sample_y = ky;
    const uint32_t slot = atomicAdd(&b.counters[0], 1u);
    if (slot >= b.cap) return; /* cannot happen: cap is a proven bound */
    b.cand[slot] = kp;
    b.key[slot] = __float_as_uint((float)kp.response); /* response > 0: bits order as values */
    b.val[slot] = slot;
}

extern "C" int satfeat_fh_launch_responses(const satfeat_fh_plan *plan, const uint32_t *sat,
                                           double *maps, void *stream)
{
    if (plan->resp_blocks == 0) return 0;
    fh_responses_kernel<<<plan->resp_blocks, SATFEAT_FH_PLAN_BLOCK, 0, (cudaStream_t)stream>>>(
        *plan, sat, maps);
    return (int)cudaGetLastError();
}

extern "C" int satfeat_fh_launch_extrema(const satfeat_fh_plan *plan, const uint32_t *sat,
                                         const double *maps, satfeat_fh_order_bufs *b,
                                         void *stream)
{
    if (plan->nms_blocks == 0) return 0;
    fh_extrema_kernel<<<plan->nms_blocks, SATFEAT_FH_PLAN_BLOCK, 0, (cudaStream_t)stream>>>(
        *plan, sat, maps, *b);
    return (int)cudaGetLastError();
}
