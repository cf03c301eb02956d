/* detector_cuda_state.h - the CUDA backend's private state (detector_cuda.c: buffers, graphs;
 * detector_cuda_slots.c: frames in and features out; detector_cuda_profile.c: timing). Built
 * with CUDA only. */
#ifndef SATFEAT_DETECTOR_CUDA_STATE_H
#define SATFEAT_DETECTOR_CUDA_STATE_H

#include "detect/backend.h"
#include "detect/kernels_cuda.h"
#include "src/cuda_state.h"

#include <cuda_runtime_api.h>

/* In a function with a `ctx`: returns the recorded failure when a CUDA call (as int) fails. */
#define FH_CK(call, what)                                                 \
    do {                                                                  \
        int e_ = (int)(call);                                             \
        if (e_ != 0) return satfeat_cuda_fail(ctx, e_, "detect", what);   \
    } while (0)

#define GRAPH_CACHE 8
/* Timing events of a profiled frame: [0] start, [1..5] after SAT, octave kernel, sort,
 * selection and description (orientation, descriptors) (stage profiling only), [6] end (after
 * the download kernel). */
#define SATFEAT_FH_PROF_EVENTS 7
/* Stage events satfeat_fh_record_frame records (prof[1..5]). */
#define SATFEAT_FH_STAGE_EVENTS 5
/* Keypoints a landing buffer holds; larger lists take a second copy straight to the caller. */
#define SLOT_STAGE_KEYPOINTS 16384u

/* Mapped pinned host memory the last kernel of a frame writes the count, the first `cap`
 * keypoints and, for a described frame, their descriptors to (host and device views of the same
 * bytes). h_desc / d_desc hold cap x dim floats; NULL (dim 0) on a detector without descriptors. */
typedef struct satfeat_fh_landing {
    uint32_t *h_count, *d_count;
    satfeat_keypoint *h_kp, *d_kp;
    float *h_desc, *d_desc;
    uint32_t cap;
    int dim;
} satfeat_fh_landing;

/* What a captured graph depends on; a frame with another key is captured anew. */
typedef struct satfeat_fh_graph_key {
    const void *image, *mask;
    size_t stride, mask_stride;
    int width, height;
    satfeat_keypoint *out;
    float *desc; /* the frame's descriptor buffer: NULL for a keypoints-only frame (no
                    descriptor kernel, no descriptor download), else descriptors are computed */
    const satfeat_fh_landing *land;
} satfeat_fh_graph_key;

typedef struct satfeat_fh_graph_entry {
    satfeat_fh_graph_key key;
    cudaGraphExec_t exec; /* NULL when unused */
    unsigned long long used;
} satfeat_fh_graph_entry;

/** One frame in flight: pinned host image and mask, device image, mask and output, a stream.
 *  A slot owns its buffers (sized for the state it was made by) and outlives that state. */
typedef struct satfeat_fh_slot {
    satfeat_ctx *ctx;
    cudaStream_t stream;
    cudaEvent_t done;
    uint8_t *h_image, *h_mask, *d_image, *d_mask; /* pitch: round up of max_width to 128 */
    size_t pitch;
    satfeat_keypoint *d_out;
    float *d_desc;  /* out_cap x dim descriptors; NULL on a detector without descriptors */
    int described;  /* the frame last submitted computes descriptors */
    int width, height; /* of the frame last submitted */
    satfeat_fh_landing land;
} satfeat_fh_slot;

/** The CUDA backend's state: everything a frame of up to the maximum size needs. */
typedef struct satfeat_fh_cuda {
    satfeat_fh_config cfg;
    cudaStream_t capture;   /* private non-blocking stream: captures and warm-up */
    cudaEvent_t serial;     /* recorded after each frame; the next frame waits for it */
    uint32_t *sat;
    void *sat_work;         /* the detector's own SAT work memory (sat.h), for any frame size */
    size_t sat_work_bytes;
    satfeat_fh_order_bufs ob;
    satfeat_keypoint *out;  /* selected keypoints of a device view */
    satfeat_fh_landing land; /* count, keypoints, descriptors of a device view */
    uint32_t out_cap;       /* most keypoints selection can output: min(candidates, max_keypoints) */
    satfeat_describe_weights *weights; /* device copy of cfg.weights */
    satfeat_fh_graph_entry graphs[GRAPH_CACHE];
    unsigned long long clock;
    /* the keys of the last GRAPH_CACHE frames that ran without a graph (a ring; `missed_n`
     * of them valid, the next written at `missed_at`): a key is captured when it comes back */
    satfeat_fh_graph_key missed[GRAPH_CACHE];
    int missed_n, missed_at;
    satfeat_fh_slot *own;   /* slot of satfeat_detect with a host view, made by its first
                               frame; its descriptor buffer also serves device views (both
                               finish their frame before returning) */
    satfeat_profiling profiling;          /* SATFEAT_PROFILING_OFF unless turned on */
    cudaEvent_t prof[SATFEAT_FH_PROF_EVENTS]; /* created when profiling is first turned on */
    int prof_mode;          /* mode of the frame the events hold; 0: none recorded yet */
} satfeat_fh_cuda;


/** Rounds a byte count up to a multiple of 128. */
size_t satfeat_fh_round128(size_t v);

/** Floats per descriptor of the state's detector (0: no descriptors). */
int satfeat_fh_cuda_dim(const satfeat_fh_cuda *g);

/** The most keypoints selection can output: the candidate bound, or max_keypoints when that
 *  is smaller. */
uint32_t satfeat_fh_cuda_out_cap(const satfeat_fh_cuda *g);

/**
 * Enqueues one whole frame of key `k` on `s` without a graph; when `stage` is non-NULL, records
 * stage[0] after the SAT, [1] after the octave kernel (responses, NMS, refinement), [2] after
 * ordering, [3] after selection, [4] after orientation and descriptors (before the download
 * kernel).
 */
satfeat_status satfeat_fh_record_frame(satfeat_fh_cuda *g, const satfeat_fh_graph_key *k,
                                      cudaStream_t s, cudaEvent_t stage[SATFEAT_FH_STAGE_EVENTS]);

/**
 * Queues the launches of the frame of key `k` on `s`: its graph `exec`, or, without one or with
 * stage events to record (`stage`, else NULL), its launches one by one
 * (satfeat_fh_record_frame). The caller orders it after the previous frame.
 */
satfeat_status satfeat_fh_launch_frame(satfeat_fh_cuda *g, const satfeat_fh_graph_key *k,
                                      cudaStream_t s, cudaGraphExec_t exec,
                                      cudaEvent_t stage[SATFEAT_FH_STAGE_EVENTS]);

/**
 * Enqueues the frame of key `k` on `s`: through its graph when cached; a key met for the first
 * time runs without a graph, and one that comes back is captured. With stage profiling on,
 * stage by stage without a graph. With profiling on, records the timing events.
 */
satfeat_status satfeat_fh_enqueue(satfeat_fh_cuda *g, satfeat_fh_graph_key *k, cudaStream_t s);

/**
 * Enqueues a profiled frame of key `k` on `s` (events around the graph launch, or the frame's
 * launches when `exec` is NULL, or around every stage); called by satfeat_fh_enqueue when
 * profiling is on.
 */
satfeat_status satfeat_fh_enqueue_profiled(satfeat_fh_cuda *g, satfeat_fh_graph_key *k,
                                           cudaStream_t s, cudaGraphExec_t exec);

/** Creates a slot of state `g` (own stream, pinned buffers, device image, mask and output,
 *  descriptor buffers when the detector has descriptors). */
satfeat_status satfeat_fh_slot_new(satfeat_fh_cuda *g, satfeat_fh_slot **out);

/** Destroys a slot (waits for its stream first). NULL is allowed. */
void satfeat_fh_slot_delete(satfeat_fh_slot *slot);

/** Switches frame timing (creates the events the first time it is on). */
satfeat_status satfeat_fh_cuda_set_profiling(void *state, satfeat_profiling mode);

/** The times of the last profiled frame (waits for that frame). */
satfeat_status satfeat_fh_cuda_stage_times(void *state, satfeat_stage_times *out);

/** Allocates a landing buffer of min(out_cap, SLOT_STAGE_KEYPOINTS) keypoints and, when the
 *  detector has descriptors, as many descriptors (mapped pinned memory) into *l; what was
 *  allocated before a failure is freed by satfeat_fh_landing_free. */
cudaError_t satfeat_fh_landing_new(const satfeat_fh_cuda *g, satfeat_fh_landing *l);

/** Frees a landing buffer (an empty one is fine). */
void satfeat_fh_landing_free(satfeat_fh_landing *l);

/** Makes the buffers of frames up to cfg's maximum (backend.h create). */
satfeat_status satfeat_fh_cuda_create(const satfeat_fh_config *cfg, void **state);

/** Frees a state after all its queued work (backend.h destroy). */
void satfeat_fh_cuda_destroy(void *state);

#endif
