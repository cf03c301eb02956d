/* context.c - context creation, backend resolution, threads, host scratch and error text. */
#include "src/context_internal.h"
#include "src/cuda_state.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifdef _OPENMP
#include <omp.h>
#endif

satfeat_status satfeat_fail(satfeat_ctx *ctx, satfeat_status status, const char *fmt, ...)
{
    if (ctx) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(ctx->last_error, sizeof ctx->last_error, fmt, ap);
        va_end(ap);
    }
    return status;
}

int satfeat_mul_overflows(size_t a, size_t b, size_t *out)
{
    if (a != 0 && b > (size_t)-1 / a) return 1;
    *out = a * b;
    return 0;
}

void *satfeat_host_scratch(satfeat_ctx *ctx, size_t bytes)
{
    if (bytes <= ctx->host_scratch_bytes) return ctx->host_scratch;
    void *grown = malloc(bytes);
    if (!grown) {
        satfeat_fail(ctx, SATFEAT_ERR_ALLOC, "cannot allocate %zu bytes of host scratch", bytes);
        return NULL;
    }
    free(ctx->host_scratch);
    ctx->host_scratch = grown;
    ctx->host_scratch_bytes = bytes;
    return grown;
}

static int default_threads(void)
{
#ifdef _OPENMP
    int n = omp_get_max_threads();
    return n > 0 ? n : 1;
#else
    return 1;
#endif
}

satfeat_status satfeat_ctx_new(satfeat_ctx **out, satfeat_backend backend, int device)
{
    if (!out) return SATFEAT_ERR_ARG;
    *out = NULL;
    if (backend != SATFEAT_BACKEND_AUTO && backend != SATFEAT_BACKEND_CPU &&
        backend != SATFEAT_BACKEND_CUDA)
        return SATFEAT_ERR_ARG;
    satfeat_ctx *ctx = calloc(1, sizeof *ctx);
    if (!ctx) return SATFEAT_ERR_ALLOC;
    ctx->backend = SATFEAT_BACKEND_CPU;
    ctx->device = -1;
    ctx->threads = default_threads();
    ctx->memory_limit = satfeat_default_memory_limit();
    if (backend != SATFEAT_BACKEND_CPU) {
        satfeat_status st = satfeat_cuda_state_new(ctx, device < 0 ? 0 : device);
        if (st == SATFEAT_OK) {
            ctx->backend = SATFEAT_BACKEND_CUDA;
            ctx->device = device < 0 ? 0 : device;
        } else if (backend == SATFEAT_BACKEND_CUDA) {
            satfeat_ctx_delete(ctx);
            return st;
        }
        ctx->last_error[0] = '\0'; /* AUTO falling back to the CPU is not an error */
    }
    *out = ctx;
    return SATFEAT_OK;
}

void satfeat_ctx_delete(satfeat_ctx *ctx)
{
    if (!ctx) return;
    satfeat_cuda_state_delete(ctx);
    free(ctx->host_scratch);
    free(ctx);
}

satfeat_backend satfeat_ctx_backend(const satfeat_ctx *ctx)
{
    return ctx ? ctx->backend : SATFEAT_BACKEND_CPU;
}

int satfeat_ctx_device(const satfeat_ctx *ctx)
{
    return ctx ? ctx->device : -1;
}

const char *satfeat_ctx_last_error(const satfeat_ctx *ctx)
{
    return ctx ? ctx->last_error : "no context";
}

satfeat_status satfeat_ctx_set_threads(satfeat_ctx *ctx, int threads)
{
    if (!ctx) return SATFEAT_ERR_ARG;
    if (threads < 0 || threads > SATFEAT_MAX_THREADS)
        return satfeat_fail(ctx, SATFEAT_ERR_ARG, "thread count %d out of range 0..%d", threads,
                            SATFEAT_MAX_THREADS);
    ctx->threads = threads == 0 ? default_threads() : threads;
    return SATFEAT_OK;
}

int satfeat_ctx_threads(const satfeat_ctx *ctx)
{
    return ctx ? ctx->threads : 1;
}

satfeat_status satfeat_ctx_set_stream(satfeat_ctx *ctx, void *stream)
{
    if (!ctx) return SATFEAT_ERR_ARG;
    if (ctx->backend != SATFEAT_BACKEND_CUDA)
        return satfeat_fail(ctx, SATFEAT_ERR_UNSUPPORTED, "a CPU context has no CUDA stream");
    ctx->stream = stream;
    return SATFEAT_OK;
}
