/* satfeat/detect.h - libsatfeat public API: the Fast-Hessian detector: keypoints, orientations and
 * SURF descriptors. Part of satfeat.h, which includes every part; include satfeat.h. */
#ifndef SATFEAT_API_DETECT_H
#define SATFEAT_API_DETECT_H

#include "satfeat/features.h"

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* ---------------------------------------------------------------------------------------------
 * Fast-Hessian detector (SURF-style keypoints on a u32 summed area table)
 *
 * Geometry (Bay et al.): octave o = 0.., layer i = 0..layers-1 has box filters of side
 * L = 3 * (2^(o+1) * (i+1) + 1) (9, 15, 21, 27 / 15, 27, 39, 51 / ...), sampled every
 * init_step * 2^o pixels where the whole filter lies inside the image. The response is the
 * determinant Dxx*Dyy - (0.9*Dxy)^2 of box-filter responses normalised by L^2 with intensities
 * in [0, 1]: it is computed as the exact integer 100*Dxx*Dyy - 81*Dxy^2 divided by
 * 100 * 255^2 * L^4 with one correctly rounded (round-to-nearest-even) step to double, so it does
 * not depend on image size or bit depth. Keypoints are strict maxima over 3x3x3 neighbourhoods on
 * the middle layers of each octave, above the threshold, refined by a quadratic fit in
 * (x, y, scale) and dropped when the fitted offset exceeds max_offset (default one sample) in
 * any of the three; near duplicates are then suppressed (suppress_duplicates). Orientations (and,
 * through the *_features calls, descriptors) are computed for the selected keypoints.
 *
 * Determinism: the output is a pure function of the image and the parameters (not of the thread
 * count) and is sorted in a total order: response descending, then y, x, size ascending, then
 * octave, layer, sample_y, sample_x ascending (the last four identify a sample uniquely). The
 * per-pixel arithmetic is shared by the CPU and the CUDA backend, so for the same image and
 * parameters both return bit-identical lists, element for element (docs/DETECTOR.md).
 *
 * A detector on a CUDA context runs every stage on the GPU (SAT, responses, maxima, sort,
 * selection, orientation, descriptors) and copies only the count, the selected keypoints and
 * their descriptors back. Its device memory is
 * allocated by satfeat_detector_new; the per-frame work is captured in a CUDA graph on the first
 * frame of a given size and buffers and replayed after that. Frames of one detector execute one
 * after another on the GPU whatever streams they are queued on. A detector owns all of its
 * device memory (the SAT's work memory included), so other CUDA work, of the same context or
 * not, may run concurrently with its frames.
 * ------------------------------------------------------------------------------------------- */

/** Detector parameters; get the defaults from satfeat_detector_params_default. */
typedef struct satfeat_detector_params {
    int octaves;       /**< 1..6 (default 4) */
    int layers;        /**< layers per octave, 3..6 (default 6; NMS runs on layers 1..layers-2) */
    int init_step;     /**< sampling step of octave 0 in pixels: 1 or 2 (default 1) */
    double threshold;  /**< minimum normalised response, finite and >= 0 (default 0.0004) */
    int max_keypoints; /**< keep at most this many strongest keypoints, 0 = no limit (default 0) */
    int grid;          /**< G: cap keypoints per cell of a G x G grid, 0 = no grid (default 0) */
    int per_cell;      /**< K: at most K keypoints per cell, >= 1 when grid > 0 (default 0) */
    double max_offset; /**< largest |offset| of the quadratic fit kept, in samples, in (0, 1]
                            (default 1, as OpenCV's SURF) */
    int unique_scales; /**< 1: a scale found by two overlapping octaves is reported by the
                            coarser one only; 0: both report it, as in OpenCV (default 0) */
    int upright;       /**< 0: each keypoint gets its dominant orientation (Haar responses of side
                            4 sigma within 6 sigma, the largest sum in a pi/3 window) and oriented
                            descriptors (default); 1: angle 0 and upright descriptors */
    satfeat_descriptor_kind descriptor; /**< what the *_features calls compute (default SURF64) */
    int suppress_duplicates; /**< 1: a keypoint is dropped when a stronger one (earlier in the
                                  output order, mask or not) has the same Laplacian sign, a size
                                  within 1.3x and its centre within half the smaller sigma: the
                                  same blob found by two overlapping octaves, whose near-identical
                                  descriptors defeat the ratio test (default 1); 0: keep both */
} satfeat_detector_params;

/** Opaque detector: sized once for a maximum frame, reused for every frame. */
typedef struct satfeat_detector satfeat_detector;

/**
 * Returns the default parameters: 4 octaves x 6 layers, step 1, threshold 0.0004, no caps,
 * max_offset 1, unique_scales 0, oriented, SURF-64 descriptors, near duplicates suppressed.
 * docs/QUALITY.md and docs/DESCRIPTORS.md have the measurements these defaults were chosen on.
 */
SATFEAT_API satfeat_detector_params satfeat_detector_params_default(void);

/**
 * Creates a detector for frames of up to max_width x max_height pixels on `ctx` (which must
 * outlive it). Everything a frame needs is allocated here, so satfeat_detect_u8 never
 * allocates. Bad parameters give SATFEAT_ERR_ARG with the reason in the context. On a CUDA
 * context the device buffers (table, SAT work memory, maps, candidates, sort storage, outputs)
 * and pinned host staging are allocated here (SATFEAT_ERR_ALLOC when the device is out of memory).
 */
SATFEAT_API satfeat_status satfeat_detector_new(satfeat_ctx *ctx,
                                                const satfeat_detector_params *params,
                                                int max_width, int max_height,
                                                satfeat_detector **out);

/** Destroys a detector. NULL is allowed. */
SATFEAT_API void satfeat_detector_delete(satfeat_detector *det);

/**
 * Detects keypoints in an 8-bit gray image (host memory, byte stride >= width) of at most the
 * detector's maximum size. `mask` may be NULL (then mask_stride, mask_width and mask_height are
 * ignored); otherwise it is an 8-bit buffer of mask_width x mask_height pixels with byte stride
 * `mask_stride` >= mask_width, and both dimensions must equal the image's (else SATFEAT_ERR_ARG,
 * so a short mask buffer is never read past its end); a keypoint is kept only where
 * mask(round(x), round(y)) != 0 (round = floor(v + 0.5)). A stride whose rows would span more
 * than PTRDIFF_MAX bytes gives SATFEAT_ERR_OVERFLOW naming the image or the mask. Selection
 * runs on the sorted list: near duplicates (suppress_duplicates), the mask, then the per-cell cap
 * (cell of x*G/width, y*G/height), then max_keypoints. *count receives the number of selected keypoints; when it exceeds `capacity`
 * the first `capacity` are written, nothing past them, and SATFEAT_ERR_CAPACITY is returned.
 * `keypoints` may be NULL when capacity is 0. A frame larger than the detector's maximum gives
 * SATFEAT_ERR_ARG and leaves the detector usable. Uses the context's thread count. On a CUDA
 * detector the frame (and mask) is copied into pinned memory, uploaded and detected on the
 * detector's own stream; the call returns when the keypoints are in `keypoints`.
 */
SATFEAT_API satfeat_status satfeat_detect_u8(satfeat_detector *det, const uint8_t *image,
                                             size_t stride, int width, int height,
                                             const uint8_t *mask, size_t mask_stride,
                                             int mask_width, int mask_height,
                                             satfeat_keypoint *keypoints, size_t capacity,
                                             size_t *count);

/**
 * satfeat_detect_u8 for an image (and mask, may be NULL) in device memory, on a detector of a
 * CUDA context (else SATFEAT_ERR_UNSUPPORTED). The frame is queued on `stream` (a cudaStream_t,
 * NULL = legacy default stream) after the work already queued there, so the image may come
 * from a kernel or copy queued on that stream. The call synchronizes `stream`: it returns when
 * the keypoints are in host memory `keypoints`; the image may be overwritten after that.
 * Selection, capacity and errors as for satfeat_detect_u8.
 */
SATFEAT_API satfeat_status satfeat_detect_u8_device(satfeat_detector *det, const uint8_t *d_image,
                                                    size_t stride, int width, int height,
                                                    const uint8_t *d_mask, size_t mask_stride,
                                                    int mask_width, int mask_height,
                                                    satfeat_keypoint *keypoints,
                                                    size_t capacity, size_t *count,
                                                    void *stream);

/** Number of floats per keypoint in `det`'s descriptors: 0, 64 or 128 (0 for NULL). */
SATFEAT_API int satfeat_detector_descriptor_dim(const satfeat_detector *det);

/**
 * satfeat_detect_u8 that also returns descriptors: `descriptors` (may be NULL: keypoints only)
 * receives satfeat_detector_descriptor_dim(det) floats per keypoint, aligned with `keypoints`,
 * for the first min(count, capacity) keypoints; it must hold capacity * dim floats. Each
 * descriptor has unit L2 length (all zero on a patch without any gradient). A detector whose
 * params say SATFEAT_DESCRIPTOR_NONE gives SATFEAT_ERR_ARG for a non-NULL `descriptors`.
 * Orientations (keypoint angle) are computed by every detect call unless the detector is
 * upright. Descriptors and angles are bit-identical on the CPU and the CUDA backend.
 */
SATFEAT_API satfeat_status satfeat_detect_features_u8(satfeat_detector *det, const uint8_t *image,
                                                      size_t stride, int width, int height,
                                                      const uint8_t *mask, size_t mask_stride,
                                                      int mask_width, int mask_height,
                                                      satfeat_keypoint *keypoints,
                                                      float *descriptors, size_t capacity,
                                                      size_t *count);

/** satfeat_detect_u8_device with descriptors, as satfeat_detect_features_u8 describes them. */
SATFEAT_API satfeat_status satfeat_detect_features_u8_device(
    satfeat_detector *det, const uint8_t *d_image, size_t stride, int width, int height,
    const uint8_t *d_mask, size_t mask_stride, int mask_width, int mask_height,
    satfeat_keypoint *keypoints, float *descriptors, size_t capacity, size_t *count, void *stream);

/** How a detector measures its frames (satfeat_detector_set_profiling). */
typedef enum satfeat_profiling {
    SATFEAT_PROFILING_OFF = 0, /**< nothing is measured (the default) */
    SATFEAT_PROFILING_FRAME,   /**< the whole frame as it normally runs (CUDA: the replayed graph
                                    between two events); on the CPU the stages too, by the clock */
    SATFEAT_PROFILING_STAGES   /**< every stage: on CUDA the frame then runs stage by stage without
                                    a graph, with events between the stages (slower frames) */
} satfeat_profiling;

/** Measured microseconds of the last frame a detector finished (satfeat_detector_stage_times). */
typedef struct satfeat_stage_times {
    double frame_us;    /**< the whole frame: table through the selected keypoints (and, on
                             CUDA, their download); excludes the upload of a host frame */
    double sat_us;      /**< summed area table */
    double detect_us;   /**< responses, 3x3x3 maxima, refinement (CUDA: one fused kernel) */
    double order_us;    /**< sort in the total order (CPU: sort and selection together) */
    double select_us;   /**< mask, grid cap, max_keypoints (CUDA only; 0 on the CPU) */
    double describe_us; /**< orientation and, when asked for, descriptors of the selected
                             keypoints */
    double download_us; /**< CUDA: count, keypoints (and descriptors) to mapped host memory;
                             0 on the CPU */
    int stages;         /**< 1 when the stage fields were measured; 0 when only frame_us was */
} satfeat_stage_times;

/**
 * Turns the measurement of frames on or off (satfeat_profiling). With SATFEAT_PROFILING_OFF, the
 * default, a frame does no timing work at all. On a CUDA detector the first call that turns it
 * on creates the timing events (SATFEAT_ERR_CUDA / SATFEAT_ERR_ALLOC when that fails).
 */
SATFEAT_API satfeat_status satfeat_detector_set_profiling(satfeat_detector *det,
                                                          satfeat_profiling mode);

/**
 * Writes the measured times of the last frame queued on this detector with profiling on (a
 * satfeat_detect_u8 / satfeat_detect_u8_device call, or the last frame pushed to a sequence's
 * lane 0, which is this detector; on CUDA the call waits for that frame to finish).
 * SATFEAT_ERR_ARG when no frame was measured since profiling was turned on.
 */
SATFEAT_API satfeat_status satfeat_detector_stage_times(satfeat_detector *det,
                                                        satfeat_stage_times *out);

#ifdef __cplusplus
}
#endif

#endif
