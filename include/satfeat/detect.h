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
 * any of the three; near duplicates are then suppressed (suppress_duplicates). Orientations and,
 * unless the descriptor kind is SATFEAT_DESCRIPTOR_NONE, descriptors are computed for the
 * selected keypoints.
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
 * allocated by satfeat_detector_new (for a detector sized by its frames: by the first frame, and
 * again by a larger one), except the host-frame slot, which its first frame makes; the per-frame
 * work is captured in a CUDA graph on the first frame of a given size and buffers and replayed
 * after that. Frames of one detector execute one
 * after another on the GPU whatever streams they are queued on. A detector owns all of its
 * device memory (the SAT's work memory included), so other CUDA work, of the same context or
 * not, may run concurrently with its frames.
 * ------------------------------------------------------------------------------------------- */

/** How descriptors are normalised (satfeat_detector_params.descriptor_norm). */
typedef enum satfeat_descriptor_norm {
    SATFEAT_DESCRIPTOR_NORM_L2 = 0,  /**< SURF's unit L2 vector (the descriptors of SURF) */
    SATFEAT_DESCRIPTOR_NORM_ROOT = 1 /**< the signed square root of the L1-normalised values
                                          (RootSIFT's Hellinger mapping; unit L2 up to rounding,
                                          compared with the same L2 distance); the default */
} satfeat_descriptor_norm;

/** The derivative the orientation samples (satfeat_detector_params.orientation_filter). */
typedef enum satfeat_orientation_filter {
    SATFEAT_ORIENTATION_SCHARR = 0, /**< Scharr's 3, 10, 3 weights on a 3 x 3 grid of box sums
                                         of side 3 s, 109 samples on a grid of step s: the
                                         default (higher matching score on the tuning and the
                                         held-out sets of docs/EVALUATION.md) */
    SATFEAT_ORIENTATION_HAAR = 1    /**< SURF's Haar pairs of side orientation_haar x s, 437
                                         samples on a grid of step s / 2 (AR and the tracker) */
} satfeat_orientation_filter;

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
    int upright;       /**< 0: each keypoint gets its dominant orientation (derivatives of box
                            sums within 6 sigma, orientation_filter; the largest sum in a pi/3
                            window) and oriented descriptors (default); 1: angle 0 and upright
                            descriptors */
    satfeat_descriptor_kind descriptor; /**< descriptors every frame gets (default SURF64);
                                             SATFEAT_DESCRIPTOR_NONE: keypoints only */
    int suppress_duplicates; /**< 1: a keypoint is dropped when a stronger one (earlier in the
                                  output order, mask or not) has the same Laplacian sign, a size
                                  within 1.3x and its centre within half the smaller sigma: the
                                  same blob found by two overlapping octaves, whose near-identical
                                  descriptors defeat the ratio test (default 1); 0: keep both */
    satfeat_descriptor_norm descriptor_norm; /**< SATFEAT_DESCRIPTOR_NORM_ROOT (default: higher
                                                  matching score and precision on the sets of
                                                  docs/EVALUATION.md) or _L2 (SURF's) */
    int orientation_refine; /**< 1: the best window's angle is refined once by the responses
                                 within 30 degrees of it (default: higher matching score and
                                 precision on the sets of docs/EVALUATION.md); 0: the best
                                 window's angle, as before */
    int descriptor_haar; /**< side of the descriptor's Haar filters in units of the keypoint
                              scale s = 1.2 size / 9, 2..4: 4 (default: higher matching score on
                              the tuning sets of docs/EVALUATION.md), 3 (SURF's, the default
                              before) */
    int orientation_haar; /**< side of the orientation's Haar filters in units of s, 2..4: 4
                               (default: higher matching score on the tuning sets of
                               docs/EVALUATION.md), 3 (the default before); used only by
                               SATFEAT_ORIENTATION_HAAR */
    satfeat_orientation_filter orientation_filter; /**< the orientation's derivative:
                                                        SATFEAT_ORIENTATION_SCHARR (default) or
                                                        SATFEAT_ORIENTATION_HAAR */
} satfeat_detector_params;

/** Opaque detector: sized for a maximum frame (or by its frames), reused for every frame. */
typedef struct satfeat_detector satfeat_detector;

/**
 * Returns the default parameters: 4 octaves x 6 layers, step 1, threshold 0.0004, no caps,
 * max_offset 1, unique_scales 0, oriented, SURF-64 descriptors, near duplicates suppressed,
 * root-normalised descriptors, refined orientations from the Scharr filter, descriptor (and
 * orientation, when it uses the Haar filter) Haar side 4s.
 * docs/QUALITY.md and docs/DESCRIPTORS.md have the measurements these defaults were chosen on.
 */
SATFEAT_API satfeat_detector_params satfeat_detector_params_default(void);

/**
 * Creates a detector for frames of up to max_width x max_height pixels on `ctx` (which must
 * outlive it) with `params` (NULL: satfeat_detector_params_default()); every buffer a frame
 * needs is allocated here. max_width = max_height = 0 makes a
 * detector sized by its frames: the first frame allocates the buffers for its size, and a frame
 * wider or taller than any before re-creates them for the larger of each side (after the
 * detector's queued work; CUDA graphs are captured anew), so a steady stream of frames of one
 * size allocates only once. Errors: SATFEAT_ERR_ARG (bad parameters, a NULL argument, a size
 * below 1 other than 0 x 0), SATFEAT_ERR_OVERFLOW (a size above SATFEAT_IMAGE_MAX_SIDE or
 * SATFEAT_IMAGE_MAX_PIXELS), SATFEAT_ERR_LIMIT (host buffers above the context's memory
 * limit), SATFEAT_ERR_ALLOC (host or device memory runs out), SATFEAT_ERR_CUDA; the reason is
 * in the context. On a CUDA context the device buffers (table, SAT work memory, maps,
 * candidates, sort storage, outputs) and mapped host staging are allocated here.
 */
SATFEAT_API satfeat_status satfeat_detector_new(satfeat_ctx *ctx,
                                                const satfeat_detector_params *params,
                                                int max_width, int max_height,
                                                satfeat_detector **out);

/** Destroys a detector. NULL is allowed. */
SATFEAT_API void satfeat_detector_delete(satfeat_detector *det);

/**
 * Detects the keypoints of `image` and, unless the detector's descriptor kind is
 * SATFEAT_DESCRIPTOR_NONE, their descriptors (normalised as descriptor_norm says: unit L2
 * length, up to rounding for the root normalisation; all zero on a patch without any gradient), into *features (the `satfeat_features **` convention: NULL creates a set, else it
 * is emptied and refilled; it is sized to the exact count, so no capacity is guessed).
 * Orientations (keypoint angle) are computed unless the detector is upright. Selection runs on
 * the sorted list: near duplicates (suppress_duplicates), the view's mask, the per-cell cap
 * (cell of x*G/width, y*G/height), then max_keypoints. A host view is read during the call; a
 * device view (image->memory SATFEAT_MEMORY_DEVICE, pixels and mask in device memory of the
 * detector's device) is queued on image->stream after the work already queued there, and the
 * call synchronizes that stream. Uses the context's thread count.
 * Errors (the reason in the context; the set is then empty but usable, the detector too):
 * SATFEAT_ERR_ARG for a NULL det (no message), NULL image, pixels or features, a size below 1,
 * a stride or mask_stride below the width, an unknown memory, or a frame above a fixed maximum;
 * SATFEAT_ERR_OVERFLOW for a stride whose rows span more than PTRDIFF_MAX bytes (naming the
 * image or the mask) or a frame too large for any detector; SATFEAT_ERR_UNSUPPORTED for a
 * device view on a detector that is not on a CUDA context; SATFEAT_ERR_ALLOC / _LIMIT / _CUDA
 * when memory (the set's, or a growing detector's) runs out or the device fails. The output is
 * bit-identical on the CPU and the CUDA backend.
 */
SATFEAT_API satfeat_status satfeat_detect(satfeat_detector *det, const satfeat_image_view *image,
                                          satfeat_features **features);

/**
 * Orientations and descriptors of n keypoints the caller gives (another detector's, a file's, or
 * converted from another library's keypoint type), with `det`'s parameters, in the 8-bit gray
 * host image `image`, into *features (the `satfeat_features **` convention): n features in the
 * order of `kp`, copies of the given keypoints whose angle is the dominant orientation (0 when
 * the detector is upright), with descriptors of the detector's kind (none for
 * SATFEAT_DESCRIPTOR_NONE: orientations only), for an image of the view's size. Each keypoint is
 * read at (x, y) with Gaussian scale sigma (1.2 * size / 9 for this detector's keypoints; size
 * and the other fields are copied, not read), so for keypoints satfeat_detect returned on the
 * same image the angles and descriptors are those satfeat_detect computed, bit for bit. A
 * keypoint near or beyond the border is described from the clamped table as satfeat_detect does.
 * Runs on the CPU with the context's threads whatever the backend (the table of the image lives
 * in the context's host scratch, so a steady stream of calls allocates nothing); the CPU and
 * CUDA detectors compute the same numbers, so the result does not depend on the backend.
 * Errors (the reason in the context; the set is then empty but usable): SATFEAT_ERR_ARG for a
 * NULL det (no message), features, image, pixels or kp (with n > 0), a view satfeat_detect
 * refuses (sizes, strides, a frame above a fixed maximum), a view with a mask, or a keypoint
 * whose x or y is not finite or whose sigma is not finite and > 0 (the message names its
 * index); SATFEAT_ERR_UNSUPPORTED for a device view; SATFEAT_ERR_LIMIT when the table exceeds
 * the context's memory limit; SATFEAT_ERR_ALLOC / _OVERFLOW when memory runs out.
 */
SATFEAT_API satfeat_status satfeat_describe_keypoints(satfeat_detector *det,
                                                      const satfeat_image_view *image,
                                                      const satfeat_keypoint *kp, size_t n,
                                                      satfeat_features **features);

/** Number of floats per keypoint in `det`'s descriptors: 0, 64 or 128 (0 for NULL). */
SATFEAT_API int satfeat_detector_descriptor_dim(const satfeat_detector *det);

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
 * satfeat_detect call, or the last frame pushed to a sequence's lane 0, which is this detector;
 * on CUDA the call waits for that frame to finish). SATFEAT_ERR_ARG when no frame was measured
 * since profiling was turned on (a detector sized by its frames forgets its times when it grows).
 */
SATFEAT_API satfeat_status satfeat_detector_stage_times(satfeat_detector *det,
                                                        satfeat_stage_times *out);

#ifdef __cplusplus
}
#endif

#endif
