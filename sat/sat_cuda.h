/* sat_cuda.h - extern "C" entry points of the CUDA SAT behind the public calls, with the context's
 * own work memory (implemented in sat/sat_cuda_host.c; used by sat_dispatch.c, tests and
 * bench/sat_cuda_tune.c). Other modules use sat/sat.h with memory they own. Arguments reaching
 * these are already validated by sat_dispatch.c. */
#ifndef SATFEAT_SAT_CUDA_H
#define SATFEAT_SAT_CUDA_H

#include "satfeat.h"

#ifdef __cplusplus
extern "C" {
#endif

/** Device-memory u8 -> u32 SAT enqueued on `stream`; `algo` is 2R1W, SKSS_LB or AUTO. */
satfeat_status satfeat_sat_cuda_u8(satfeat_ctx *ctx, const uint8_t *d_src, size_t src_stride,
                                   int width, int height, uint32_t *d_dst, size_t dst_stride,
                                   satfeat_sat_algo algo, void *stream);

/** Device-memory f32 -> f32 SAT enqueued on `stream`; `algo` is 2R1W, SKSS_LB or AUTO. */
satfeat_status satfeat_sat_cuda_f32(satfeat_ctx *ctx, const float *d_src, size_t src_stride,
                                    int width, int height, float *d_dst, size_t dst_stride,
                                    satfeat_sat_algo algo, void *stream);

/** Host-memory u8 SAT through the context's device scratch; returns when `dst` is filled. */
satfeat_status satfeat_sat_cuda_host_u8(satfeat_ctx *ctx, const uint8_t *src, size_t src_stride,
                                        int width, int height, uint32_t *dst, size_t dst_stride,
                                        satfeat_sat_algo algo);

/** Host-memory f32 SAT through the context's device scratch; returns when `dst` is filled. */
satfeat_status satfeat_sat_cuda_host_f32(satfeat_ctx *ctx, const float *src, size_t src_stride,
                                         int width, int height, float *dst, size_t dst_stride,
                                         satfeat_sat_algo algo);

/**
 * The device-memory SAT with everything chosen by the caller: `is_f32` selects f32 -> f32 (else
 * u8 -> u32), `algo` is 2R1W or SKSS_LB and `tile` is 32, 64 or 128 (or 256 for SKSS_LB on u8).
 * For tuning tools and tests; the entry points above pick `tile` from sat_tuning.h.
 */
satfeat_status satfeat_sat_cuda_run(satfeat_ctx *ctx, int is_f32, const void *d_src,
                                    size_t src_stride, int width, int height, void *d_dst,
                                    size_t dst_stride, satfeat_sat_algo algo, int tile,
                                    void *stream);

#ifdef __cplusplus
}
#endif

#endif
