/* satfeat/frames.h - libsatfeat public API: many frames: sequences in flight, batches, pools over
 * devices. Part of satfeat.h, which includes every part; include satfeat.h. */
#ifndef SATFEAT_API_FRAMES_H
#define SATFEAT_API_FRAMES_H

#include "satfeat/detect.h"

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* ---------------------------------------------------------------------------------------------
 * Image sequences: several frames in flight
 *
 * A sequence feeds host frames to a detector through `slots` frame slots. On a CUDA detector
 * each slot has its own stream and pinned buffers: while frame k is detected, frame k+1 is
 * copied to the GPU and the features of earlier frames are copied back, so throughput is
 * bounded by the slowest of upload, detection and download rather than by their sum. On a CPU
 * detector the frames are detected one by one at pop time (same results, nothing overlaps).
 * Frames come back in push order with exactly the features satfeat_detect returns for the same
 * view (mask included; descriptors when the detector has a descriptor kind: a detector made
 * with SATFEAT_DESCRIPTOR_NONE gives keypoints only, and skips the descriptor work). Typical
 * loop: push every frame (using the popped one whenever *popped_flag is set), then pop while
 * satfeat_sequence_pending() > 0.
 * ------------------------------------------------------------------------------------------- */

/** Opaque sequence of frames in flight on one detector. */
typedef struct satfeat_sequence satfeat_sequence;

/** Most slots of a sequence. */
#define SATFEAT_SEQUENCE_MAX_SLOTS 64

/**
 * Creates a sequence with `slots` (1..SATFEAT_SEQUENCE_MAX_SLOTS) frames in flight on `det`
 * (which must outlive it); allocates every slot's buffers (pinned host and device memory on a
 * CUDA detector) for the detector's maximum frame (on a detector sized by its frames, and on a
 * CPU detector, the frames make them). 2 or 3 slots are enough to overlap copies and
 * detection. Its frames share det's device state, so the GPU detects them one after the other:
 * the same as satfeat_sequence_new_lanes with one lane.
 */
SATFEAT_API satfeat_status satfeat_sequence_new(satfeat_detector *det, int slots,
                                                satfeat_sequence **out);

/**
 * Creates a sequence whose `slots` are spread over `lanes` (1..slots, else SATFEAT_ERR_ARG)
 * detectors: lane 0 is `det`, every further lane a detector of its own with det's parameters and
 * maximum frame on a context of its own on det's device (its own device memory, about as much as
 * det's, and its own graphs; when the device cannot hold them the call returns SATFEAT_ERR_ALLOC
 * with a message and makes nothing). Slot i belongs to lane i % lanes, and frames of different
 * lanes run on the GPU at the same time, which raises the frame rate where one frame does not
 * fill the GPU (docs/BENCHMARKS.md has measured rates). Results and their order are those of
 * satfeat_sequence_new. Profiling (satfeat_detector_stage_times) sees lane 0's frames only. On a
 * CPU detector `lanes` is checked and otherwise ignored (frames are detected at pop time).
 */
SATFEAT_API satfeat_status satfeat_sequence_new_lanes(satfeat_detector *det, int slots, int lanes,
                                                      satfeat_sequence **out);

/** Destroys a sequence, discarding frames still pending. NULL is allowed. */
SATFEAT_API void satfeat_sequence_delete(satfeat_sequence *seq);

/**
 * Queues a frame (a host view, checked as satfeat_detect checks it; a device view gives
 * SATFEAT_ERR_UNSUPPORTED). When every slot is taken, the oldest frame is finished first into
 * *popped (the `satfeat_features **` convention) as by satfeat_sequence_pop and *popped_flag is
 * set to 1 (else 0). The frame (and mask) is copied before the call returns, so the
 * view's memory may be reused at once. Returns the popped frame's status or the error that kept
 * the new frame from being queued (a frame above a fixed maximum gives SATFEAT_ERR_ARG; nothing
 * is popped then). A detector sized by its frames grows for a larger frame.
 */
SATFEAT_API satfeat_status satfeat_sequence_push(satfeat_sequence *seq,
                                                 const satfeat_image_view *image,
                                                 satfeat_features **popped, int *popped_flag);

/**
 * Waits for the oldest pending frame and writes its features into *features (the
 * `satfeat_features **` convention), exactly as satfeat_detect would. The frame is finished
 * either way. SATFEAT_ERR_ARG when no frame is pending or for NULL arguments.
 */
SATFEAT_API satfeat_status satfeat_sequence_pop(satfeat_sequence *seq, satfeat_features **features);

/** Number of frames pushed and not yet popped (0 for NULL). */
SATFEAT_API int satfeat_sequence_pending(const satfeat_sequence *seq);

/* ---------------------------------------------------------------------------------------------
 * Many devices: a list of frames spread over several detectors
 *
 * A device pool holds one context and one detector per worker, and on CUDA one sequence per
 * device (its own streams and pinned buffers, so each device overlaps uploads, detection and
 * downloads). satfeat_pool_detect hands the frames of a list out dynamically: each worker (one
 * host thread per device) takes the next frame not yet taken, so fast devices take more frames;
 * results land at the index of their frame, so the output is in input order whatever device
 * detected a frame. Every frame's features are exactly those satfeat_detect gives for its view
 * on a detector with the same parameters, on any device.
 * ------------------------------------------------------------------------------------------- */

/** Opaque pool of detectors, one per device (or per CPU worker). */
typedef struct satfeat_pool satfeat_pool;

/** One frame's output and outcome (satfeat_pool_detect, satfeat_batch_detect). */
typedef struct satfeat_frame_result {
    satfeat_features *features; /**< in/out: NULL creates a set (the caller deletes it), else the
                                     set is emptied and refilled; empty when the frame failed */
    satfeat_status status;      /**< out: this frame's status, as satfeat_detect's */
    int device;                 /**< out: the CUDA device that detected it, -1 on the CPU */
} satfeat_frame_result;

/**
 * Creates a pool for frames of up to max_width x max_height (0 x 0: its detectors are sized by
 * their frames, see satfeat_detector_new) with detector parameters `params` (NULL: the
 * defaults). backend CUDA: one worker per device in `devices` (n_devices ordinals,
 * each at most once; NULL means devices 0 .. n_devices-1, and n_devices 0 every usable device;
 * an ordinal that is not a usable device gives SATFEAT_ERR_ARG): SATFEAT_ERR_NO_DEVICE when
 * there is none, SATFEAT_ERR_UNSUPPORTED in a build without CUDA. backend CPU: `n_devices` workers of one
 * CPU thread each (0 means one per OpenMP thread); `devices` must be NULL. backend AUTO: CUDA
 * when a device is usable, else the CPU. The error message goes to `error` (may be NULL; at most
 * error_size bytes including the terminating zero), since there is no context yet.
 */
SATFEAT_API satfeat_status satfeat_pool_new(satfeat_backend backend, const int *devices,
                                            int n_devices, const satfeat_detector_params *params,
                                            int max_width, int max_height, satfeat_pool **out,
                                            char *error, size_t error_size);

/** Destroys a pool and everything it owns. NULL is allowed. */
SATFEAT_API void satfeat_pool_delete(satfeat_pool *pool);

/** Number of workers (devices, or CPU workers) of a pool (0 for NULL). */
SATFEAT_API int satfeat_pool_workers(const satfeat_pool *pool);

/** CUDA device of worker `worker` of a pool (-1 for a CPU worker or a bad index). */
SATFEAT_API int satfeat_pool_worker_device(const satfeat_pool *pool, int worker);

/** Floats per descriptor of the pool's detectors: 0, 64 or 128. */
SATFEAT_API int satfeat_pool_descriptor_dim(const satfeat_pool *pool);

/**
 * Detects the features of the n host views `frames` (masks included), spread over the pool's
 * workers, into results[i] for frames[i]. A frame that fails (too large, a device error, a
 * device view: SATFEAT_ERR_UNSUPPORTED) sets its own status and the others go on. Returns
 * SATFEAT_OK when every frame succeeded, else the status of the first failed frame (by index),
 * whose message satfeat_pool_last_error returns. SATFEAT_ERR_ARG (nothing detected) for a NULL
 * pool, frames or results with n > 0.
 */
SATFEAT_API satfeat_status satfeat_pool_detect(satfeat_pool *pool, const satfeat_image_view *frames,
                                               size_t n, satfeat_frame_result *results);

/** Message of the pool's last failure ("" when none). Valid until the next call on the pool. */
SATFEAT_API const char *satfeat_pool_last_error(const satfeat_pool *pool);

/* ---------------------------------------------------------------------------------------------
 * Batches: many small frames of one detector in one call
 *
 * A small frame (640x480) keeps a GPU busy for only part of its frame time: most of it goes to
 * short, latency-bound kernels, and frames of one detector run one after another on the GPU. A
 * batch gives a CUDA detector `lanes` detector states of its own (each with its own device
 * buffers, CUDA graphs, two frame slots with their streams and pinned buffers, and its own
 * context for error text), hands the frames of a call to the lanes round-robin and queues them
 * all before collecting any, so the frames of different lanes run on the GPU at the same time.
 * The host work of a call (copies into pinned memory, launches, copies out) is spread over
 * min(lanes, the context's thread count) OpenMP threads. The frames are not batched into one
 * kernel launch: each runs the single-frame graph of satfeat_detect. On a CPU detector the
 * frames are detected one after another on the detector itself (with the context's threads
 * inside each frame). Either way every frame's features are exactly those of satfeat_detect for
 * its view on the detector, and results come back in input order.
 * Measured rates: docs/BENCHMARKS.md, "Batches and the pool".
 * ------------------------------------------------------------------------------------------- */

/** Opaque batch of frame lanes on one detector. */
typedef struct satfeat_batch satfeat_batch;

/** The most lanes a batch may have. */
#define SATFEAT_BATCH_MAX_LANES 64

/** The lane count `lanes` = 0 asks for (chosen on measurements, docs/BENCHMARKS.md). */
#define SATFEAT_BATCH_DEFAULT_LANES 8

/**
 * Creates a batch on `det` (which must outlive it) with `lanes` (1..SATFEAT_BATCH_MAX_LANES, 0:
 * SATFEAT_BATCH_DEFAULT_LANES) lanes. On a CUDA detector every lane's device memory (that of
 * one more detector of det's parameters and maximum size, plus one frame slot) and pinned host
 * buffers are allocated here (for a detector sized by its frames: by the first frames), so
 * satfeat_batch_detect allocates only feature sets (SATFEAT_ERR_ALLOC or
 * SATFEAT_ERR_CUDA with the reason in det's context, nothing created, when that fails). On a CPU
 * detector nothing is allocated beyond the batch record and the lane count has no effect.
 * SATFEAT_ERR_ARG for a NULL det or out or a lane count out of range (*out is then NULL).
 */
SATFEAT_API satfeat_status satfeat_batch_new(satfeat_detector *det, int lanes,
                                             satfeat_batch **out);

/** Destroys a batch (waiting for nothing: no frame is in flight between calls). NULL is allowed. */
SATFEAT_API void satfeat_batch_delete(satfeat_batch *batch);

/** Number of lanes of a batch (0 for NULL). */
SATFEAT_API int satfeat_batch_lanes(const satfeat_batch *batch);

/**
 * Detects the features of the n host views `frames` into results[i] for frames[i];
 * results[i].device is the detector's CUDA device, or -1 on the CPU. A frame that fails (NULL
 * pixels, larger than a fixed maximum, a device view: SATFEAT_ERR_UNSUPPORTED, a device error)
 * sets its own status and the others go on. Returns SATFEAT_OK when every frame succeeded, else
 * the status of the first failed frame (by index), with "batch: frame I: reason" in det's
 * context. n = 0 returns SATFEAT_OK and touches nothing; a NULL batch, or NULL frames or
 * results with n > 0, give SATFEAT_ERR_ARG, and an n no array can hold SATFEAT_ERR_OVERFLOW,
 * without touching any result. Returns when every frame's output is in host memory; `frames`
 * may be reused at once.
 */
SATFEAT_API satfeat_status satfeat_batch_detect(satfeat_batch *batch,
                                                const satfeat_image_view *frames, size_t n,
                                                satfeat_frame_result *results);

#ifdef __cplusplus
}
#endif

#endif
