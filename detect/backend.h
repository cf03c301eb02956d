/* backend.h - the interface between the public detector (detector.c, the façade: argument
 * checks, sizing, the public calls) and a backend that runs its frames: the CPU
 * (detector_cpu.c) or CUDA (detector_cuda.c; refusals in detector_cuda_none.c without CUDA). A
 * backend owns every buffer of its frames in a state of its own, made for frames up to a
 * maximum size; the façade re-creates the state when a detector sized by its frames grows. The
 * façade picks the backend once, at creation (the one place that knows there are two), and
 * calls it only with checked arguments. */
#ifndef SATFEAT_FH_BACKEND_H
#define SATFEAT_FH_BACKEND_H

#include "describe/describe_weights.h"
#include "detect/layers.h"
#include "src/context_internal.h"

/** What a backend state is made for. The pointers belong to the detector and outlive the state. */
typedef struct satfeat_fh_config {
    satfeat_ctx *ctx;
    const satfeat_detector_params *params;
    const satfeat_fh_layer *layers;          /* octaves x layers records */
    const satfeat_describe_weights *weights; /* orientation and descriptor sampling weights */
    int max_width, max_height;               /* the largest frame the buffers hold */
    size_t candidate_cap;                    /* satfeat_fh_candidate_bound of that frame */
} satfeat_fh_config;

/**
 * A backend's calls. `state` is what create made; a slot holds one frame between submit and
 * collect (its own buffers, independent of the state: a slot made for an older state may still
 * be collected after the state was re-created). Views are checked by the façade (sizes within
 * the state's maximum; device views only on a backend with `device_views`). `describe`: compute
 * descriptors (the detector has a descriptor kind). Frames fill a feature set through
 * satfeat_features_prepare with the exact count; on failure the set is left empty.
 */
typedef struct satfeat_fh_backend {
    int device_views; /**< 1: views of device memory are accepted */
    int overlaps;     /**< 1: frames of different slots and twins run at the same time, so
                           frame scheduling may keep several in flight and use twins */
    /** Makes the buffers of frames up to cfg's maximum (the reason of a failure in cfg->ctx). */
    satfeat_status (*create)(const satfeat_fh_config *cfg, void **state);
    /** Frees a state (after its queued work). */
    void (*destroy)(void *state);
    /** One frame, finished before returning. */
    satfeat_status (*detect)(void *state, const satfeat_image_view *view, int describe,
                             satfeat_features *out);
    /** A frame slot for frames up to the state's maximum. */
    satfeat_status (*slot_new)(void *state, void **slot);
    /** Frees a slot (after its frame); NULL is allowed. */
    void (*slot_delete)(void *slot);
    /** Queues a host frame on a free slot (copied before returning); may return before the
     *  frame is detected. */
    satfeat_status (*submit)(void *state, void *slot, const satfeat_image_view *view,
                             int describe);
    /** Finishes the slot's frame into `out`; the slot is free again after it. */
    satfeat_status (*collect)(void *state, void *slot, satfeat_features *out);
    /** Switches the measurement of frames. */
    satfeat_status (*set_profiling)(void *state, satfeat_profiling mode);
    /** The times of the last measured frame (SATFEAT_ERR_ARG with a message when none). */
    satfeat_status (*stage_times)(void *state, satfeat_stage_times *out);
} satfeat_fh_backend;

/** The CPU backend (detector_cpu.c). */
extern const satfeat_fh_backend satfeat_fh_backend_cpu;

/** The CUDA backend (detector_cuda.c, or detector_cuda_none.c whose create refuses). */
extern const satfeat_fh_backend satfeat_fh_backend_cuda;

#endif
