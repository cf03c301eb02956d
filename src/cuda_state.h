/* cuda_state.h - the CUDA part of a context: device choice and reusable device scratch.
 * Plain C: host code reaches CUDA only through this header and the extern "C" launchers. */
#ifndef SATFEAT_CUDA_STATE_H
#define SATFEAT_CUDA_STATE_H

#include "context_internal.h"

/** Named scratch buffers a context keeps on its device; each grows on demand and is reused. */
typedef enum satfeat_cuda_slot {
    SATFEAT_SLOT_SAT_SRC = 0, /* host-memory SAT calls: the uploaded image */
    SATFEAT_SLOT_SAT_DST,     /* host-memory SAT calls: the table before download */
    SATFEAT_SLOT_SAT_WORK,    /* SAT kernels: carries, flags, tickets */
    SATFEAT_SLOT_DETECT_FIRST, /* slots from here up to SATFEAT_SLOT_COUNT belong to detect/ */
    SATFEAT_SLOT_COUNT = 16
} satfeat_cuda_slot;

/** Picks and checks `device`; stores the state in ctx->cuda. NO_DEVICE / UNSUPPORTED / CUDA. */
satfeat_status satfeat_cuda_state_new(satfeat_ctx *ctx, int device);

/** Frees every device buffer of the context and its state (no-op on CPU contexts). */
void satfeat_cuda_state_delete(satfeat_ctx *ctx);

/**
 * Returns the device buffer of `slot`, at least `bytes` long (grown when needed, contents then
 * lost), or NULL after recording the error (ALLOC when the device is out of memory).
 * When `grown` is non-NULL it is set to 1 when the buffer was (re)allocated by this call.
 */
void *satfeat_cuda_scratch(satfeat_ctx *ctx, satfeat_cuda_slot slot, size_t bytes, int *grown);

/** Number of streaming multiprocessors of the context's device (0 on CPU contexts). */
int satfeat_cuda_sm_count(const satfeat_ctx *ctx);

#endif
