/* cuda_state.c - device selection and device scratch of a context (built with CUDA only). */
#include "src/cuda_state.h"

#include <cuda_runtime_api.h>
#include <stdint.h>
#include <stdlib.h>

struct satfeat_cuda_state {
    int sm_count;
    void *slot_ptr[SATFEAT_SLOT_COUNT];
    size_t slot_bytes[SATFEAT_SLOT_COUNT];
    uint64_t slot_label[SATFEAT_SLOT_COUNT];
    void *host_ptr[SATFEAT_HOST_SLOT_COUNT];
    size_t host_bytes[SATFEAT_HOST_SLOT_COUNT];
};

int satfeat_has_cuda_build(void)
{
    return 1;
}

int satfeat_cuda_device_count(void)
{
    int n = 0;
    if (cudaGetDeviceCount(&n) != cudaSuccess) {
        (void)cudaGetLastError();
        return 0;
    }
    return n;
}

satfeat_status satfeat_cuda_state_new(satfeat_ctx *ctx, int device)
{
    int n = 0;
    cudaError_t e = cudaGetDeviceCount(&n);
    if (e != cudaSuccess || n == 0) {
        (void)cudaGetLastError();
        return satfeat_fail(ctx, SATFEAT_ERR_NO_DEVICE, "no CUDA device (%s)",
                            e != cudaSuccess ? cudaGetErrorString(e) : "device count is 0");
    }
    if (device >= n)
        return satfeat_fail(ctx, SATFEAT_ERR_NO_DEVICE, "no CUDA device %d (have %d)", device, n);
    int sms = 0;
    e = cudaSetDevice(device);
    if (e == cudaSuccess) e = cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device);
    if (e != cudaSuccess)
        return satfeat_fail(ctx, SATFEAT_ERR_CUDA, "cannot use CUDA device %d: %s", device,
                            cudaGetErrorString(e));
    struct satfeat_cuda_state *st = calloc(1, sizeof *st);
    if (!st) return satfeat_fail(ctx, SATFEAT_ERR_ALLOC, "cannot allocate the CUDA state");
    st->sm_count = sms;
    ctx->cuda = st;
    return SATFEAT_OK;
}

void satfeat_cuda_state_delete(satfeat_ctx *ctx)
{
    struct satfeat_cuda_state *st = ctx->cuda;
    if (!st) return;
    cudaSetDevice(ctx->device);
    for (int i = 0; i < SATFEAT_SLOT_COUNT; i++)
        if (st->slot_ptr[i]) cudaFree(st->slot_ptr[i]); /* waits for the work that used it */
    for (int i = 0; i < SATFEAT_HOST_SLOT_COUNT; i++)
        if (st->host_ptr[i]) cudaFreeHost(st->host_ptr[i]);
    free(st);
    ctx->cuda = NULL;
}

satfeat_status satfeat_cuda_fail(satfeat_ctx *ctx, int err, const char *module, const char *call)
{
    const cudaError_t e = (cudaError_t)err;
    (void)cudaGetLastError(); /* clear a non-sticky error so later calls can run */
    return satfeat_fail(ctx, e == cudaErrorMemoryAllocation ? SATFEAT_ERR_ALLOC : SATFEAT_ERR_CUDA,
                        "%s: %s failed: %s", module, call, cudaGetErrorString(e));
}

satfeat_status satfeat_cuda_scratch(satfeat_ctx *ctx, satfeat_cuda_slot slot, size_t bytes,
                                    void *stream, void **out, int *grown)
{
    struct satfeat_cuda_state *st = ctx->cuda;
    *out = NULL;
    if (grown) *grown = 0;
    if (!st || (int)slot < 0 || slot >= SATFEAT_SLOT_COUNT)
        return satfeat_fail(ctx, SATFEAT_ERR_UNSUPPORTED, "device scratch on a context without CUDA");
    const cudaStream_t s = (cudaStream_t)stream;
    if (bytes == 0) bytes = 1;
    if (bytes <= st->slot_bytes[slot]) {
        *out = st->slot_ptr[slot];
        return SATFEAT_OK;
    }
    /* Growth, stream-ordered: the old buffer is freed on `s`, after the work queued there so
     * far. The calls that used it before ran on `s` or, on another stream, were ordered before
     * this call by the caller (the rule of satfeat_sat_u8_device: calls of one context never
     * overlap). No device-wide synchronisation: it would wait for the caller's unrelated
     * kernels, and never return beside a persistent one. */
    cudaError_t e = cudaSetDevice(ctx->device);
    if (e == cudaSuccess && st->slot_ptr[slot]) {
        e = cudaFreeAsync(st->slot_ptr[slot], s);
        if (e != cudaSuccess)
            return satfeat_cuda_fail(ctx, (int)e, "context", "cudaFreeAsync (device scratch)");
        st->slot_ptr[slot] = NULL;
        st->slot_bytes[slot] = 0;
    }
    st->slot_label[slot] = 0;
    void *p = NULL;
    if (e == cudaSuccess) e = cudaMallocAsync(&p, bytes, s);
    if (e != cudaSuccess)
        return satfeat_cuda_fail(ctx, (int)e, "context", "cudaMallocAsync (device scratch)");
    st->slot_ptr[slot] = p;
    st->slot_bytes[slot] = bytes;
    if (grown) *grown = 1;
    *out = p;
    return SATFEAT_OK;
}

uint64_t satfeat_cuda_scratch_label(const satfeat_ctx *ctx, satfeat_cuda_slot slot)
{
    const struct satfeat_cuda_state *st = ctx->cuda;
    return st && (int)slot >= 0 && slot < SATFEAT_SLOT_COUNT ? st->slot_label[slot] : 0;
}

void satfeat_cuda_set_scratch_label(satfeat_ctx *ctx, satfeat_cuda_slot slot, uint64_t label)
{
    struct satfeat_cuda_state *st = ctx->cuda;
    if (st && (int)slot >= 0 && slot < SATFEAT_SLOT_COUNT) st->slot_label[slot] = label;
}

satfeat_status satfeat_cuda_host_staging(satfeat_ctx *ctx, satfeat_cuda_host_slot slot,
                                         size_t bytes, void **out)
{
    struct satfeat_cuda_state *st = ctx->cuda;
    *out = NULL;
    if (!st || (int)slot < 0 || slot >= SATFEAT_HOST_SLOT_COUNT)
        return satfeat_fail(ctx, SATFEAT_ERR_UNSUPPORTED, "host staging on a context without CUDA");
    if (bytes <= st->host_bytes[slot] && st->host_ptr[slot]) {
        *out = st->host_ptr[slot];
        return SATFEAT_OK;
    }
    size_t want = bytes < 4096 ? 4096 : bytes;
    if (want <= SIZE_MAX / 3 * 2 && st->host_bytes[slot] > 0) {
        const size_t grown = st->host_bytes[slot] + st->host_bytes[slot] / 2;
        if (grown > want) want = grown;
    }
    cudaError_t e = cudaSetDevice(ctx->device);
    if (e == cudaSuccess && st->host_ptr[slot]) {
        e = cudaFreeHost(st->host_ptr[slot]);
        st->host_ptr[slot] = NULL;
        st->host_bytes[slot] = 0;
    }
    void *p = NULL;
    if (e == cudaSuccess) e = cudaHostAlloc(&p, want, cudaHostAllocDefault);
    if (e != cudaSuccess)
        return satfeat_cuda_fail(ctx, (int)e, "context", "cudaHostAlloc (host staging)");
    st->host_ptr[slot] = p;
    st->host_bytes[slot] = want;
    *out = p;
    return SATFEAT_OK;
}

int satfeat_cuda_sm_count(const satfeat_ctx *ctx)
{
    return ctx->cuda ? ctx->cuda->sm_count : 0;
}

satfeat_status satfeat_cuda_download_rows(satfeat_ctx *ctx, void *dst, size_t dpitch,
                                          const void *src, size_t spitch, size_t width,
                                          size_t rows, void *stream)
{
    cudaError_t e = cudaSetDevice(ctx->device);
    if (e == cudaSuccess)
        e = cudaMemcpy2DAsync(dst, dpitch, src, spitch, width, rows, cudaMemcpyDeviceToHost,
                              (cudaStream_t)stream);
    if (e == cudaSuccess) e = cudaStreamSynchronize((cudaStream_t)stream);
    if (e != cudaSuccess)
        return satfeat_cuda_fail(ctx, (int)e, "context", "cudaMemcpy2DAsync (download)");
    return SATFEAT_OK;
}
