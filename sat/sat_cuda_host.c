/* sat_cuda_host.c - the CUDA SAT entry points: algorithm and tile choice, the context-owned work
 * buffer, and the host-memory path (upload, compute, download). Built only with CUDA. */
#include "context_internal.h"
#include "cuda_state.h"
#include "sat_cuda.h"
#include "sat_kernels.h"
#include "sat_layout.h"
#include "sat_tuning.h"

#include <cuda_runtime_api.h>
#include <string.h>

/* Records a failed CUDA call; out of memory becomes SATFEAT_ERR_ALLOC. */
static satfeat_status cuda_fail(satfeat_ctx *ctx, cudaError_t e, const char *call)
{
    (void)cudaGetLastError(); /* clear a non-sticky error so later calls can run */
    return satfeat_fail(ctx, e == cudaErrorMemoryAllocation ? SATFEAT_ERR_ALLOC : SATFEAT_ERR_CUDA,
                        "sat: %s failed: %s", call, cudaGetErrorString(e));
}

/* Status of a failed satfeat_cuda_scratch call, from the message it recorded. */
static satfeat_status scratch_fail_status(const satfeat_ctx *ctx)
{
    return strstr(ctx->last_error, cudaGetErrorString(cudaErrorMemoryAllocation))
               ? SATFEAT_ERR_ALLOC
               : SATFEAT_ERR_CUDA;
}

/*
 * Returns the work buffer for `tiles` tiles and `data` carry bytes. A fresh buffer is zeroed and
 * its header written once (the only extra work; a warmed-up call does neither).
 */
static satfeat_status get_work(satfeat_ctx *ctx, uint64_t tiles, uint64_t data, cudaStream_t s,
                               void **work)
{
    const uint64_t bytes = satfeat_sat_work_request(tiles, data);
    if (bytes > (uint64_t)(size_t)-1)
        return satfeat_fail(ctx, SATFEAT_ERR_OVERFLOW, "sat: work buffer of %llu bytes too large",
                            (unsigned long long)bytes);
    int grown = 0;
    void *p = satfeat_cuda_scratch(ctx, SATFEAT_SLOT_SAT_WORK, (size_t)bytes, &grown);
    if (!p) return scratch_fail_status(ctx);
    if (grown) {
        satfeat_sat_work_header h;
        memset(&h, 0, sizeof h);
        h.data_off = satfeat_sat_work_data_off(bytes);
        h.flag_tiles = satfeat_sat_work_flag_tiles(bytes);
        cudaError_t e = cudaMemsetAsync(p, 0, (size_t)bytes, s);
        if (e != cudaSuccess) return cuda_fail(ctx, e, "cudaMemsetAsync (new SAT work buffer)");
        /* from pageable memory: returns once `h` has been staged, so a local is fine */
        e = cudaMemcpyAsync(p, &h, sizeof h, cudaMemcpyHostToDevice, s);
        if (e != cudaSuccess) return cuda_fail(ctx, e, "cudaMemcpyAsync (SAT work header)");
    }
    *work = p;
    return SATFEAT_OK;
}

satfeat_status satfeat_sat_cuda_run(satfeat_ctx *ctx, int is_f32, const void *d_src,
                                    size_t src_stride, int width, int height, void *d_dst,
                                    size_t dst_stride, satfeat_sat_algo algo, int tile,
                                    void *stream)
{
    if (algo != SATFEAT_SAT_2R1W && algo != SATFEAT_SAT_SKSS_LB)
        return satfeat_fail(ctx, SATFEAT_ERR_ARG, "sat: algorithm %d is not a GPU algorithm",
                            (int)algo);
    if (tile != 32 && tile != 64 && tile != 128)
        return satfeat_fail(ctx, SATFEAT_ERR_ARG, "sat: tile height %d is not 32, 64 or 128", tile);
    /* both algorithms cut the table into 128 columns x `tile` rows (strips x bands, or tiles) */
    const uint64_t tiles =
        (uint64_t)satfeat_sat_tiles_x(width, 128) * (uint64_t)satfeat_sat_tiles_y(height, tile);
    if (tiles >= (1ull << 31))
        return satfeat_fail(ctx, SATFEAT_ERR_OVERFLOW, "sat: %dx%d needs too many tiles", width,
                            height);
    cudaError_t e = cudaSetDevice(ctx->device);
    if (e != cudaSuccess) return cuda_fail(ctx, e, "cudaSetDevice");
    cudaStream_t s = (cudaStream_t)stream;
    const uint64_t data = algo == SATFEAT_SAT_2R1W ? satfeat_sat_2r1w_data_bytes(width, height, tile)
                                                   : satfeat_sat_skss_data_bytes(tiles, tile);
    void *work = NULL;
    satfeat_status st = get_work(ctx, tiles, data, s, &work);
    if (st != SATFEAT_OK) return st;
    satfeat_sat_launch l = {d_src, src_stride, d_dst, dst_stride, width, height, work, tile, stream};
    const char *failed = "SAT kernel launch";
    int err;
    if (algo == SATFEAT_SAT_2R1W)
        err = is_f32 ? satfeat_sat_2r1w_f32_launch(&l, &failed) : satfeat_sat_2r1w_u8_launch(&l, &failed);
    else
        err = is_f32 ? satfeat_sat_skss_lb_f32_launch(&l, &failed)
                     : satfeat_sat_skss_lb_u8_launch(&l, &failed);
    if (err != 0) return cuda_fail(ctx, (cudaError_t)err, failed);
    return SATFEAT_OK;
}

/* Resolves AUTO for a GPU call. */
static satfeat_sat_algo pick_algo(satfeat_sat_algo algo, int is_f32, int width, int height)
{
    return algo == SATFEAT_SAT_AUTO ? satfeat_sat_tune_auto(is_f32, width, height) : algo;
}

satfeat_status satfeat_sat_cuda_u8(satfeat_ctx *ctx, const uint8_t *d_src, size_t src_stride,
                                   int width, int height, uint32_t *d_dst, size_t dst_stride,
                                   satfeat_sat_algo algo, void *stream)
{
    algo = pick_algo(algo, 0, width, height);
    return satfeat_sat_cuda_run(ctx, 0, d_src, src_stride, width, height, d_dst, dst_stride, algo,
                                satfeat_sat_tune_tile(algo, 0, width, height), stream);
}

satfeat_status satfeat_sat_cuda_f32(satfeat_ctx *ctx, const float *d_src, size_t src_stride,
                                    int width, int height, float *d_dst, size_t dst_stride,
                                    satfeat_sat_algo algo, void *stream)
{
    algo = pick_algo(algo, 1, width, height);
    return satfeat_sat_cuda_run(ctx, 1, d_src, src_stride, width, height, d_dst, dst_stride, algo,
                                satfeat_sat_tune_tile(algo, 1, width, height), stream);
}

/* Rounds a row pitch up to a 128-byte line: vector paths apply and no tile row straddles a
 * partly written line. */
static size_t pitch_lines(size_t bytes)
{
    return (bytes + 127u) & ~(size_t)127u;
}

/*
 * Host-memory SAT: uploads the image into slot SAT_SRC (rows padded to 16 bytes), computes into
 * slot SAT_DST on the context's stream, downloads into `dst` and waits for the stream.
 */
static satfeat_status host_sat(satfeat_ctx *ctx, int is_f32, const void *src, size_t src_stride,
                               int width, int height, void *dst, size_t dst_stride,
                               satfeat_sat_algo algo)
{
    const size_t in_bytes = is_f32 ? 4u : 1u;
    const size_t d_src_pitch = pitch_lines((size_t)width * in_bytes);
    const size_t d_dst_pitch = pitch_lines(((size_t)width + 1u) * 4u);
    size_t src_total, dst_total;
    if (satfeat_mul_overflows(d_src_pitch, (size_t)height, &src_total) ||
        satfeat_mul_overflows(d_dst_pitch, (size_t)height + 1u, &dst_total))
        return satfeat_fail(ctx, SATFEAT_ERR_OVERFLOW, "sat: %dx%d image too large", width, height);
    cudaError_t e = cudaSetDevice(ctx->device);
    if (e != cudaSuccess) return cuda_fail(ctx, e, "cudaSetDevice");
    void *d_src = satfeat_cuda_scratch(ctx, SATFEAT_SLOT_SAT_SRC, src_total, NULL);
    if (!d_src) return scratch_fail_status(ctx);
    void *d_dst = satfeat_cuda_scratch(ctx, SATFEAT_SLOT_SAT_DST, dst_total, NULL);
    if (!d_dst) return scratch_fail_status(ctx);
    cudaStream_t s = (cudaStream_t)ctx->stream;
    e = cudaMemcpy2DAsync(d_src, d_src_pitch, src, src_stride, (size_t)width * in_bytes,
                          (size_t)height, cudaMemcpyHostToDevice, s);
    if (e != cudaSuccess) return cuda_fail(ctx, e, "cudaMemcpy2DAsync (upload)");
    algo = pick_algo(algo, is_f32, width, height);
    satfeat_status st = satfeat_sat_cuda_run(ctx, is_f32, d_src, d_src_pitch, width, height, d_dst,
                                             d_dst_pitch, algo,
                                             satfeat_sat_tune_tile(algo, is_f32, width, height), s);
    if (st != SATFEAT_OK) return st;
    e = cudaMemcpy2DAsync(dst, dst_stride, d_dst, d_dst_pitch, ((size_t)width + 1u) * 4u,
                          (size_t)height + 1u, cudaMemcpyDeviceToHost, s);
    if (e != cudaSuccess) return cuda_fail(ctx, e, "cudaMemcpy2DAsync (download)");
    e = cudaStreamSynchronize(s);
    if (e != cudaSuccess) return cuda_fail(ctx, e, "cudaStreamSynchronize");
    return SATFEAT_OK;
}

satfeat_status satfeat_sat_cuda_host_u8(satfeat_ctx *ctx, const uint8_t *src, size_t src_stride,
                                        int width, int height, uint32_t *dst, size_t dst_stride,
                                        satfeat_sat_algo algo)
{
    return host_sat(ctx, 0, src, src_stride, width, height, dst, dst_stride, algo);
}

satfeat_status satfeat_sat_cuda_host_f32(satfeat_ctx *ctx, const float *src, size_t src_stride,
                                         int width, int height, float *dst, size_t dst_stride,
                                         satfeat_sat_algo algo)
{
    return host_sat(ctx, 1, src, src_stride, width, height, dst, dst_stride, algo);
}
