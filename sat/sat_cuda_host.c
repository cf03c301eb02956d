/* sat_cuda_host.c - the CUDA SAT entry points: algorithm and tile choice, work memory (the
 * caller's, through sat.h, or the context's for the public calls), and the host-memory path
 * (upload, compute, download). Built only with CUDA. */
#include "src/context_internal.h"
#include "src/cuda_state.h"
#include "sat/sat.h"
#include "sat/sat_cuda.h"
#include "sat/sat_kernels.h"
#include "sat/sat_layout.h"
#include "sat/sat_tuning.h"

#include <cuda_runtime_api.h>
#include <string.h>

#define SAT_FAIL(e, call) satfeat_cuda_fail(ctx, (int)(e), "sat", call)

/* Tile count of a w x h table cut into 128 columns x `tile` rows (both algorithms). */
static uint64_t tile_count(int width, int height, int tile)
{
    return (uint64_t)satfeat_sat_tiles_x(width, 128) * (uint64_t)satfeat_sat_tiles_y(height, tile);
}

/* Work bytes one launch of `algo` with `tile` needs for a w x h table. */
static uint64_t work_request(satfeat_sat_algo algo, int width, int height, int tile)
{
    return satfeat_sat_work_request(
        algo == SATFEAT_SAT_2R1W ? satfeat_sat_2r1w_data_bytes(width, height, tile)
                                 : satfeat_sat_skss_pair_bytes(tile_count(width, height, tile), tile));
}

satfeat_status satfeat_sat_cuda_work_bytes(satfeat_ctx *ctx, int max_width, int max_height,
                                           size_t *bytes)
{
    /* every request grows with the size at a fixed algorithm and tile, so the largest request
     * over algorithms and tiles at the maximum size covers every smaller table */
    uint64_t most = 0;
    for (int tile = 32; tile <= 256; tile *= 2) {
        if (tile_count(max_width, max_height, tile) >= (1ull << 31))
            return satfeat_fail(ctx, SATFEAT_ERR_OVERFLOW, "sat: %dx%d needs too many tiles",
                                max_width, max_height);
        const uint64_t a = satfeat_sat_rows_supported(0, 0, tile)
                               ? work_request(SATFEAT_SAT_2R1W, max_width, max_height, tile)
                               : 0;
        const uint64_t b = work_request(SATFEAT_SAT_SKSS_LB, max_width, max_height, tile);
        if (a > most) most = a;
        if (b > most) most = b;
    }
    if (most > (uint64_t)(size_t)-1)
        return satfeat_fail(ctx, SATFEAT_ERR_OVERFLOW, "sat: work buffer of %llu bytes too large",
                            (unsigned long long)most);
    *bytes = (size_t)most;
    return SATFEAT_OK;
}

satfeat_status satfeat_sat_cuda_work_init(satfeat_ctx *ctx, void *d_work, size_t bytes,
                                          void *stream)
{
    cudaStream_t s = (cudaStream_t)stream;
    satfeat_sat_work_header h;
    memset(&h, 0, sizeof h);
    h.data_off = satfeat_sat_work_data_off(bytes);
    h.pair_bytes = satfeat_sat_work_pair_bytes(bytes);
    cudaError_t e = cudaMemsetAsync(d_work, 0, bytes, s);
    if (e != cudaSuccess) return SAT_FAIL(e, "cudaMemsetAsync (new SAT work buffer)");
    /* from pageable memory: returns once `h` has been staged, so a local is fine */
    e = cudaMemcpyAsync(d_work, &h, sizeof h, cudaMemcpyHostToDevice, s);
    if (e != cudaSuccess) return SAT_FAIL(e, "cudaMemcpyAsync (SAT work header)");
    return SATFEAT_OK;
}

/* The context's work buffer, grown for `bytes` and prepared when new (the only extra work; a
 * warmed-up call does neither). */
static satfeat_status context_work(satfeat_ctx *ctx, uint64_t bytes, cudaStream_t s, void **work)
{
    if (bytes > (uint64_t)(size_t)-1)
        return satfeat_fail(ctx, SATFEAT_ERR_OVERFLOW, "sat: work buffer of %llu bytes too large",
                            (unsigned long long)bytes);
    int grown = 0;
    satfeat_status st = satfeat_cuda_scratch(ctx, SATFEAT_SLOT_SAT_WORK, (size_t)bytes, s, work,
                                             &grown);
    if (st == SATFEAT_OK && grown) st = satfeat_sat_cuda_work_init(ctx, *work, (size_t)bytes, s);
    return st;
}

/* Checks algorithm and tile of a launch (satfeat_sat_rows_supported). */
static satfeat_status check_launch(satfeat_ctx *ctx, int is_f32, int width, int height,
                                   satfeat_sat_algo algo, int tile)
{
    if (algo != SATFEAT_SAT_2R1W && algo != SATFEAT_SAT_SKSS_LB)
        return satfeat_fail(ctx, SATFEAT_ERR_ARG, "sat: algorithm %d is not a GPU algorithm",
                            (int)algo);
    if (!satfeat_sat_rows_supported(algo == SATFEAT_SAT_SKSS_LB, is_f32, tile))
        return satfeat_fail(ctx, SATFEAT_ERR_ARG,
                            "sat: tile height %d is not 32, 64 or 128 (or 256 for SKSS-LB on u8)",
                            tile);
    if (tile_count(width, height, tile) >= (1ull << 31))
        return satfeat_fail(ctx, SATFEAT_ERR_OVERFLOW, "sat: %dx%d needs too many tiles", width,
                            height);
    return SATFEAT_OK;
}

/* Enqueues the kernels of one table with prepared work memory of at least the request. */
static satfeat_status launch(satfeat_ctx *ctx, int is_f32, const void *d_src, size_t src_stride,
                             int width, int height, void *d_dst, size_t dst_stride,
                             satfeat_sat_algo algo, int tile, void *work, void *stream)
{
    satfeat_sat_launch l = {d_src, src_stride, d_dst, dst_stride, width, height, work, tile, stream};
    const char *failed = "SAT kernel launch";
    int err;
    if (algo == SATFEAT_SAT_2R1W)
        err = is_f32 ? satfeat_sat_2r1w_f32_launch(&l, &failed) : satfeat_sat_2r1w_u8_launch(&l, &failed);
    else
        err = is_f32 ? satfeat_sat_skss_lb_f32_launch(&l, &failed)
                     : satfeat_sat_skss_lb_u8_launch(&l, &failed);
    if (err != 0) return SAT_FAIL(err, failed);
    return SATFEAT_OK;
}

satfeat_status satfeat_sat_cuda_run(satfeat_ctx *ctx, int is_f32, const void *d_src,
                                    size_t src_stride, int width, int height, void *d_dst,
                                    size_t dst_stride, satfeat_sat_algo algo, int tile,
                                    void *stream)
{
    satfeat_status st = check_launch(ctx, is_f32, width, height, algo, tile);
    if (st != SATFEAT_OK) return st;
    cudaError_t e = cudaSetDevice(ctx->device);
    if (e != cudaSuccess) return SAT_FAIL(e, "cudaSetDevice");
    void *work = NULL;
    st = context_work(ctx, work_request(algo, width, height, tile), (cudaStream_t)stream, &work);
    if (st != SATFEAT_OK) return st;
    return launch(ctx, is_f32, d_src, src_stride, width, height, d_dst, dst_stride, algo, tile,
                  work, stream);
}

/* Resolves AUTO for a GPU call. */
static satfeat_sat_algo pick_algo(satfeat_sat_algo algo, int is_f32, int width, int height)
{
    return algo == SATFEAT_SAT_AUTO ? satfeat_sat_tune_auto(is_f32, width, height) : algo;
}

/* A table into caller-owned work memory (sat.h): checks that the memory is large enough. */
static satfeat_status run_work(satfeat_ctx *ctx, int is_f32, const void *d_src, size_t src_stride,
                               int width, int height, void *d_dst, size_t dst_stride,
                               satfeat_sat_algo algo, void *d_work, size_t work_bytes, void *stream)
{
    algo = pick_algo(algo, is_f32, width, height);
    const int tile = satfeat_sat_tune_tile(algo, is_f32, width, height);
    satfeat_status st = check_launch(ctx, is_f32, width, height, algo, tile);
    if (st != SATFEAT_OK) return st;
    const uint64_t need = work_request(algo, width, height, tile);
    if (!d_work || (uint64_t)work_bytes < need)
        return satfeat_fail(ctx, SATFEAT_ERR_ARG, "sat: work memory of %zu bytes, %llu needed",
                            work_bytes, (unsigned long long)need);
    cudaError_t e = cudaSetDevice(ctx->device);
    if (e != cudaSuccess) return SAT_FAIL(e, "cudaSetDevice");
    return launch(ctx, is_f32, d_src, src_stride, width, height, d_dst, dst_stride, algo, tile,
                  d_work, stream);
}

satfeat_status satfeat_sat_cuda_u8_work(satfeat_ctx *ctx, const uint8_t *d_src, size_t src_stride,
                                        int width, int height, uint32_t *d_dst, size_t dst_stride,
                                        satfeat_sat_algo algo, void *d_work, size_t work_bytes,
                                        void *stream)
{
    return run_work(ctx, 0, d_src, src_stride, width, height, d_dst, dst_stride, algo, d_work,
                    work_bytes, stream);
}

satfeat_status satfeat_sat_cuda_f32_work(satfeat_ctx *ctx, const float *d_src, size_t src_stride,
                                         int width, int height, float *d_dst, size_t dst_stride,
                                         satfeat_sat_algo algo, void *d_work, size_t work_bytes,
                                         void *stream)
{
    return run_work(ctx, 1, d_src, src_stride, width, height, d_dst, dst_stride, algo, d_work,
                    work_bytes, stream);
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
    if (e != cudaSuccess) return SAT_FAIL(e, "cudaSetDevice");
    void *d_src = NULL, *d_dst = NULL;
    cudaStream_t s = (cudaStream_t)ctx->stream;
    satfeat_status st = satfeat_cuda_scratch(ctx, SATFEAT_SLOT_SAT_SRC, src_total, s, &d_src, NULL);
    if (st == SATFEAT_OK)
        st = satfeat_cuda_scratch(ctx, SATFEAT_SLOT_SAT_DST, dst_total, s, &d_dst, NULL);
    if (st != SATFEAT_OK) return st;
    e = cudaMemcpy2DAsync(d_src, d_src_pitch, src, src_stride, (size_t)width * in_bytes,
                          (size_t)height, cudaMemcpyHostToDevice, s);
    if (e != cudaSuccess) return SAT_FAIL(e, "cudaMemcpy2DAsync (upload)");
    algo = pick_algo(algo, is_f32, width, height);
    st = satfeat_sat_cuda_run(ctx, is_f32, d_src, d_src_pitch, width, height, d_dst, d_dst_pitch,
                              algo, satfeat_sat_tune_tile(algo, is_f32, width, height), s);
    if (st != SATFEAT_OK) return st;
    e = cudaMemcpy2DAsync(dst, dst_stride, d_dst, d_dst_pitch, ((size_t)width + 1u) * 4u,
                          (size_t)height + 1u, cudaMemcpyDeviceToHost, s);
    if (e != cudaSuccess) return SAT_FAIL(e, "cudaMemcpy2DAsync (download)");
    e = cudaStreamSynchronize(s);
    if (e != cudaSuccess) return SAT_FAIL(e, "cudaStreamSynchronize");
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
