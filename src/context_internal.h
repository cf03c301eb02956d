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
    size_t memory_limit;               /* host bytes one file or detector may need, > 0 */
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

/** The memory budget of `ctx` (satfeat_ctx_memory_limit), or the default when ctx is NULL. */
size_t satfeat_memory_budget(const satfeat_ctx *ctx);

/**
 * Checks `bytes` (what `what` needs, e.g. "detector: 4096x4096 frames") against the memory
 * budget of `ctx`: SATFEAT_OK, or SATFEAT_ERR_LIMIT with both sizes in the message.
 */
satfeat_status satfeat_check_budget(satfeat_ctx *ctx, const char *what, size_t bytes);

/** Returns 1 when a * b overflows size_t, else 0 and the product in *out. */
int satfeat_mul_overflows(size_t a, size_t b, size_t *out);

#endif
