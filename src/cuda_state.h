/* cuda_state.h - the CUDA part of a context: device choice and reusable device scratch.
 * Plain C: host code reaches CUDA only through this header and the extern "C" launchers. */
#ifndef SATFEAT_CUDA_STATE_H
#define SATFEAT_CUDA_STATE_H

#include "src/context_internal.h"

#include <stdint.h>

/**
 * Device scratch a context keeps for the public SAT calls (sat_dispatch.c, sat_cuda_host.c), for
 * satfeat_estimate_motion (track/motion_cuda_host.c) and host-memory matching
 * (match/match_cuda_host.c); each grows on demand and is reused
 * (memory freed per call would go back to the driver at every synchronisation, the default pool
 * keeping none). Other modules own their device memory (sat/sat.h).
 */
typedef enum satfeat_cuda_slot {
    SATFEAT_SLOT_SAT_SRC = 0, /* host-memory SAT calls: the uploaded image */
    SATFEAT_SLOT_SAT_DST,     /* host-memory SAT calls: the table before download */
    SATFEAT_SLOT_SAT_WORK,    /* SAT calls of the context: carries, flags, tickets */
    SATFEAT_SLOT_MOTION,      /* motion estimation: points, a batch's samples, records, scratch */
    SATFEAT_SLOT_MATCH,       /* host-memory matching: inputs, outputs, scratch */
    SATFEAT_SLOT_MATCH_QUERY, /* host-memory matching: the device copy of the last query set */
    SATFEAT_SLOT_MATCH_KEPT,  /* host-memory matching: the last kept query set's copy
                                 (satfeat_features_set_kept) */
    SATFEAT_SLOT_MATCH_TRAIN, /* host-memory matching: the device copy of the last train set */
    SATFEAT_SLOT_COUNT
} satfeat_cuda_slot;

/**
 * Pinned host staging a context keeps for the copies of host-memory calls. A copy from or to
 * pageable memory goes through the driver's own staging, one copy at a time for the whole
 * process, so many contexts copying at once (satfeat_trackers_track) wait for each other; from
 * pinned memory each context's copies run on its own stream.
 */
typedef enum satfeat_cuda_host_slot {
    SATFEAT_HOST_SLOT_MATCH = 0, /* matching: the inputs up, the count and matches down */
    SATFEAT_HOST_SLOT_MOTION,    /* motion: the points up, each batch's samples up, records down */
    SATFEAT_HOST_SLOT_COUNT
} satfeat_cuda_host_slot;

/** Picks and checks `device`; stores the state in ctx->cuda. NO_DEVICE / UNSUPPORTED / CUDA. */
satfeat_status satfeat_cuda_state_new(satfeat_ctx *ctx, int device);

/** Frees every device buffer of the context and its state (no-op on CPU contexts). */
void satfeat_cuda_state_delete(satfeat_ctx *ctx);

/**
 * Sets *out to the device buffer of `slot`, at least `bytes` long, for work queued on `stream`
 * (a cudaStream_t). Grown when needed (contents then lost), stream-ordered: the old buffer is
 * freed on `stream` (cudaFreeAsync; earlier users on other streams are ordered before this call
 * by the caller, as satfeat_sat_u8_device requires) and the new one allocated there
 * (cudaMallocAsync), with no device-wide synchronisation. On failure
 * *out is NULL and the error is recorded and returned (SATFEAT_ERR_ALLOC when the device is out
 * of memory). When `grown` is non-NULL it is set to 1 when the buffer was (re)allocated.
 */
satfeat_status satfeat_cuda_scratch(satfeat_ctx *ctx, satfeat_cuda_slot slot, size_t bytes,
                                    void *stream, void **out, int *grown);

/**
 * What the device buffer of `slot` holds, as its user labelled it (0: nothing known; a growth
 * of the buffer resets it to 0, its contents being lost). The matcher labels a set's device
 * copy with the set's stamp (satfeat_features_stamp) and skips the upload when it sees it again.
 */
uint64_t satfeat_cuda_scratch_label(const satfeat_ctx *ctx, satfeat_cuda_slot slot);

/** Labels the device buffer of `slot` (see satfeat_cuda_scratch_label). */
void satfeat_cuda_set_scratch_label(satfeat_ctx *ctx, satfeat_cuda_slot slot, uint64_t label);

/**
 * Sets *out to the pinned host buffer of `slot`, at least `bytes` long, grown when needed
 * (contents then lost; by half again, so a slowly growing need reallocates rarely). A context
 * serves one call at a time and every user waits for its copies before returning, so the old
 * buffer is idle when it is freed. On failure *out is NULL and the error is recorded and
 * returned (SATFEAT_ERR_ALLOC when no pinned memory is left).
 */
satfeat_status satfeat_cuda_host_staging(satfeat_ctx *ctx, satfeat_cuda_host_slot slot,
                                         size_t bytes, void **out);

/**
 * The one failure path of a CUDA call (`err`, a cudaError_t as int): clears a non-sticky error
 * so later calls can run, records "MODULE: CALL failed: reason" and returns SATFEAT_ERR_ALLOC for
 * out-of-memory, else SATFEAT_ERR_CUDA.
 */
satfeat_status satfeat_cuda_fail(satfeat_ctx *ctx, int err, const char *module, const char *call);

/**
 * Copies `rows` rows of `width` bytes of device memory (row pitch spitch) into host memory
 * (pitch dpitch) on `stream` (a cudaStream_t; NULL: the legacy default stream) and waits for the
 * copy. SATFEAT_ERR_UNSUPPORTED in a build without CUDA; a failed copy through satfeat_cuda_fail.
 */
satfeat_status satfeat_cuda_download_rows(satfeat_ctx *ctx, void *dst, size_t dpitch,
                                          const void *src, size_t spitch, size_t width,
                                          size_t rows, void *stream);

/** Number of streaming multiprocessors of the context's device (0 on CPU contexts). */
int satfeat_cuda_sm_count(const satfeat_ctx *ctx);

#endif
