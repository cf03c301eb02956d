/* sat_dispatch.c - the public SAT entry points: argument checks, then the CPU or CUDA path. */
#include "src/context_internal.h"
#include "sat/sat.h"
#ifdef SATFEAT_HAVE_CUDA
#include "sat/sat_cuda.h"
#endif

#include <limits.h>

/* Checks pointers, sizes and strides shared by every SAT entry point. */
static satfeat_status check_sat_args(satfeat_ctx *ctx, const void *src, size_t src_stride,
                                     int width, int height, const void *dst, size_t dst_stride,
                                     size_t in_bytes, satfeat_sat_algo algo)
{
    if (!ctx) return SATFEAT_ERR_ARG;
    if (!src || !dst) return satfeat_fail(ctx, SATFEAT_ERR_ARG, "sat: NULL image or table");
    if (width <= 0 || height <= 0)
        return satfeat_fail(ctx, SATFEAT_ERR_ARG, "sat: size %dx%d is not positive", width, height);
    if (width == INT_MAX || height == INT_MAX)
        return satfeat_fail(ctx, SATFEAT_ERR_OVERFLOW, "sat: size %dx%d too large", width, height);
    if (algo < SATFEAT_SAT_AUTO || algo > SATFEAT_SAT_SKSS_LB)
        return satfeat_fail(ctx, SATFEAT_ERR_ARG, "sat: unknown algorithm %d", (int)algo);
    size_t row_in, row_out, total;
    if (satfeat_mul_overflows((size_t)width, in_bytes, &row_in) ||
        satfeat_mul_overflows((size_t)width + 1u, 4u, &row_out) ||
        satfeat_mul_overflows(dst_stride, (size_t)height + 1u, &total) ||
        satfeat_mul_overflows(src_stride, (size_t)height, &total))
        return satfeat_fail(ctx, SATFEAT_ERR_OVERFLOW, "sat: %dx%d image too large", width, height);
    if (src_stride < row_in || src_stride % in_bytes != 0)
        return satfeat_fail(ctx, SATFEAT_ERR_ARG,
                            "sat: source stride %zu is below %zu bytes or not a multiple of %zu",
                            src_stride, row_in, in_bytes);
    if (dst_stride < row_out || dst_stride % 4u != 0)
        return satfeat_fail(ctx, SATFEAT_ERR_ARG,
                            "sat: table stride %zu is below %zu bytes or not a multiple of 4",
                            dst_stride, row_out);
    return SATFEAT_OK;
}

/* Resolves AUTO for a host-memory call: the CPU on CPU contexts, the GPU otherwise. */
static satfeat_status resolve_host_algo(satfeat_ctx *ctx, satfeat_sat_algo *algo)
{
    if (*algo == SATFEAT_SAT_AUTO)
        *algo = ctx->backend == SATFEAT_BACKEND_CUDA ? SATFEAT_SAT_AUTO : SATFEAT_SAT_CPU;
    if (*algo != SATFEAT_SAT_CPU && ctx->backend != SATFEAT_BACKEND_CUDA)
        return satfeat_fail(ctx, SATFEAT_ERR_UNSUPPORTED,
                            "sat: the GPU algorithms need a CUDA context");
    return SATFEAT_OK;
}

satfeat_status satfeat_sat_u8(satfeat_ctx *ctx, const uint8_t *src, size_t src_stride,
                              int width, int height, uint32_t *dst, size_t dst_stride,
                              satfeat_sat_algo algo)
{
    satfeat_status st = check_sat_args(ctx, src, src_stride, width, height, dst, dst_stride, 1,
                                       algo);
    if (st == SATFEAT_OK) st = resolve_host_algo(ctx, &algo);
    if (st != SATFEAT_OK) return st;
    if (algo == SATFEAT_SAT_CPU) {
        void *scratch = satfeat_host_scratch(
            ctx, satfeat_sat_cpu_scratch_bytes(width, height, ctx->threads, sizeof(uint32_t)));
        if (!scratch) return SATFEAT_ERR_ALLOC;
        satfeat_sat_cpu_u8(src, src_stride, width, height, dst, dst_stride, ctx->threads, scratch,
                           SATFEAT_SAT_CPU_ISA_BEST);
        return SATFEAT_OK;
    }
#ifdef SATFEAT_HAVE_CUDA
    return satfeat_sat_cuda_host_u8(ctx, src, src_stride, width, height, dst, dst_stride, algo);
#else
    return satfeat_fail(ctx, SATFEAT_ERR_UNSUPPORTED, "sat: built without CUDA");
#endif
}

satfeat_status satfeat_sat_f32(satfeat_ctx *ctx, const float *src, size_t src_stride, int width,
                               int height, float *dst, size_t dst_stride, satfeat_sat_algo algo)
{
    satfeat_status st = check_sat_args(ctx, src, src_stride, width, height, dst, dst_stride, 4,
                                       algo);
    if (st == SATFEAT_OK) st = resolve_host_algo(ctx, &algo);
    if (st != SATFEAT_OK) return st;
    if (algo == SATFEAT_SAT_CPU) {
        void *scratch = satfeat_host_scratch(
            ctx, satfeat_sat_cpu_scratch_bytes(width, height, ctx->threads, sizeof(double)));
        if (!scratch) return SATFEAT_ERR_ALLOC;
        satfeat_sat_cpu_f32(src, src_stride, width, height, dst, dst_stride, ctx->threads, scratch);
        return SATFEAT_OK;
    }
#ifdef SATFEAT_HAVE_CUDA
    return satfeat_sat_cuda_host_f32(ctx, src, src_stride, width, height, dst, dst_stride, algo);
#else
    return satfeat_fail(ctx, SATFEAT_ERR_UNSUPPORTED, "sat: built without CUDA");
#endif
}

/* Checks a device-memory call: a CUDA context and a GPU algorithm. */
static satfeat_status check_device_call(satfeat_ctx *ctx, satfeat_sat_algo algo)
{
    if (ctx->backend != SATFEAT_BACKEND_CUDA)
        return satfeat_fail(ctx, SATFEAT_ERR_UNSUPPORTED,
                            "sat: device-memory calls need a CUDA context");
    if (algo == SATFEAT_SAT_CPU)
        return satfeat_fail(ctx, SATFEAT_ERR_ARG, "sat: the CPU algorithm cannot read device memory");
    return SATFEAT_OK;
}

satfeat_status satfeat_sat_u8_device(satfeat_ctx *ctx, const uint8_t *d_src, size_t src_stride,
                                     int width, int height, uint32_t *d_dst, size_t dst_stride,
                                     satfeat_sat_algo algo, void *stream)
{
    satfeat_status st = check_sat_args(ctx, d_src, src_stride, width, height, d_dst, dst_stride,
                                       1, algo);
    if (st == SATFEAT_OK) st = check_device_call(ctx, algo);
    if (st != SATFEAT_OK) return st;
#ifdef SATFEAT_HAVE_CUDA
    return satfeat_sat_cuda_u8(ctx, d_src, src_stride, width, height, d_dst, dst_stride, algo,
                               stream);
#else
    (void)stream;
    return satfeat_fail(ctx, SATFEAT_ERR_UNSUPPORTED, "sat: built without CUDA");
#endif
}

satfeat_status satfeat_sat_f32_device(satfeat_ctx *ctx, const float *d_src, size_t src_stride,
                                      int width, int height, float *d_dst, size_t dst_stride,
                                      satfeat_sat_algo algo, void *stream)
{
    satfeat_status st = check_sat_args(ctx, d_src, src_stride, width, height, d_dst, dst_stride,
                                       4, algo);
    if (st == SATFEAT_OK) st = check_device_call(ctx, algo);
    if (st != SATFEAT_OK) return st;
#ifdef SATFEAT_HAVE_CUDA
    return satfeat_sat_cuda_f32(ctx, d_src, src_stride, width, height, d_dst, dst_stride, algo,
                                stream);
#else
    (void)stream;
    return satfeat_fail(ctx, SATFEAT_ERR_UNSUPPORTED, "sat: built without CUDA");
#endif
}
