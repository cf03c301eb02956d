/* cuda_state_none.c - the CUDA hooks of a build without CUDA: every request says so. */
#include "src/cuda_state.h"

int satfeat_has_cuda_build(void)
{
    return 0;
}

int satfeat_cuda_device_count(void)
{
    return 0;
}

satfeat_status satfeat_cuda_state_new(satfeat_ctx *ctx, int device)
{
    (void)device;
    return satfeat_fail(ctx, SATFEAT_ERR_UNSUPPORTED, "libsatfeat was built without CUDA");
}

void satfeat_cuda_state_delete(satfeat_ctx *ctx)
{
    (void)ctx;
}

satfeat_status satfeat_cuda_scratch(satfeat_ctx *ctx, satfeat_cuda_slot slot, size_t bytes,
                                    void *stream, void **out, int *grown)
{
    (void)slot;
    (void)stream;
    (void)bytes;
    *out = NULL;
    if (grown) *grown = 0;
    return satfeat_fail(ctx, SATFEAT_ERR_UNSUPPORTED, "libsatfeat was built without CUDA");
}

satfeat_status satfeat_cuda_fail(satfeat_ctx *ctx, int err, const char *module, const char *call)
{
    return satfeat_fail(ctx, SATFEAT_ERR_CUDA, "%s: %s failed: error %d", module, call, err);
}

int satfeat_cuda_sm_count(const satfeat_ctx *ctx)
{
    (void)ctx;
    return 0;
}

satfeat_status satfeat_cuda_download_rows(satfeat_ctx *ctx, void *dst, size_t dpitch,
                                          const void *src, size_t spitch, size_t width,
                                          size_t rows, void *stream)
{
    (void)dst, (void)dpitch, (void)src, (void)spitch, (void)width, (void)rows, (void)stream;
    return satfeat_fail(ctx, SATFEAT_ERR_UNSUPPORTED, "libsatfeat was built without CUDA");
}
