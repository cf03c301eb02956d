/* context_internal.h - the definition of satfeat_ctx and the error helpers every module uses. */
#ifndef SATFEAT_CONTEXT_INTERNAL_H
#define SATFEAT_CONTEXT_INTERNAL_H

#include "satfeat.h"

#include <stdarg.h>

#define SATFEAT_ERROR_TEXT_MAX 512

struct satfeat_cuda_state; /* defined by the CUDA side (src/cuda_state.h), NULL on CPU contexts */

struct satfeat_ctx {
    satfeat_backend backend;           /* resolved: CPU or CUDA */
    int device;                        /* CUDA device ordinal, -1 on CPU */
    int threads;                       /* CPU threads, >= 1 */
    void *stream;                      /* cudaStream_t for host-memory calls, NULL = default */
    void *host_scratch;                /* grown on demand, reused across calls */
    size_t host_scratch_bytes;
    struct satfeat_cuda_state *cuda;   /* device scratch, owned */
    char last_error[SATFEAT_ERROR_TEXT_MAX];
};

/** Records a printf-style message in `ctx` (when non-NULL) and returns `status`. */
satfeat_status satfeat_fail(satfeat_ctx *ctx, satfeat_status status, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;

/**
 * Returns host scratch of at least `bytes` bytes owned by the context (grown when needed, kept
 * for later calls), or NULL after recording SATFEAT_ERR_ALLOC in the context.
 */
void *satfeat_host_scratch(satfeat_ctx *ctx, size_t bytes);

/** Returns 1 when a * b overflows size_t, else 0 and the product in *out. */
int satfeat_mul_overflows(size_t a, size_t b, size_t *out);

#endif
