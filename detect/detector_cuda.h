/* detector_cuda.h - the CUDA detector behind the public detector calls (detector_cuda.c; the
 * refusals of detector_cuda_none.c in builds without CUDA). Arguments are validated by the callers. */
#ifndef SATFEAT_DETECTOR_CUDA_H
#define SATFEAT_DETECTOR_CUDA_H

#include "detect/detector_internal.h"

/** One frame in flight: pinned host image and keypoints, device image and output, a stream. */
typedef struct satfeat_fh_slot satfeat_fh_slot;

/** Allocates the device state of a detector on a CUDA context (everything a frame needs). */
satfeat_status satfeat_fh_cuda_new(satfeat_detector *det);

/** Frees the device state (waits for queued work first). */
void satfeat_fh_cuda_delete(satfeat_detector *det);

/**
 * Detects in a device-resident image: enqueues the frame on `stream` (graph replay when the
 * frame's key repeats; a frame with descriptors and one without have separate graphs), waits for
 * the stream, copies min(count, capacity) keypoints (oriented unless upright) to host memory
 * `keypoints` and, when `descriptors` is non-NULL, their descriptors. Returns
 * SATFEAT_ERR_CAPACITY when count > capacity.
 */
satfeat_status satfeat_fh_cuda_detect_device(satfeat_detector *det, const uint8_t *d_image,
                                             size_t stride, int width, int height,
                                             const uint8_t *d_mask, size_t mask_stride,
                                             satfeat_keypoint *keypoints, float *descriptors,
                                             size_t capacity, size_t *count, void *stream);

/** Creates a slot (own stream, pinned buffers, device image, mask and output, descriptor
 *  buffers when the detector has descriptors) for `det`. */
satfeat_status satfeat_fh_slot_new(satfeat_detector *det, satfeat_fh_slot **out);

/** Destroys a slot (waits for its stream first). NULL is allowed. */
void satfeat_fh_slot_delete(satfeat_fh_slot *slot);

/**
 * Copies a host frame (and mask, may be NULL) into the slot's pinned buffers and enqueues upload
 * and detection (with descriptors when `descriptors` is non-zero) on the slot's stream; returns
 * without waiting for the GPU.
 */
satfeat_status satfeat_fh_slot_submit(satfeat_detector *det, satfeat_fh_slot *slot,
                                      const uint8_t *image, size_t stride, int width, int height,
                                      const uint8_t *mask, size_t mask_stride, int descriptors);

/** Waits for the slot's frame and copies its keypoints and, when `descriptors` is non-NULL (the
 *  frame must have been submitted with descriptors), their descriptors out (CAPACITY when
 *  count > capacity). */
satfeat_status satfeat_fh_slot_collect(satfeat_detector *det, satfeat_fh_slot *slot,
                                       satfeat_keypoint *keypoints, float *descriptors,
                                       size_t capacity, size_t *count);

/** Switches frame timing of a CUDA detector (creates its events the first time it is on). */
satfeat_status satfeat_fh_cuda_set_profiling(satfeat_detector *det, satfeat_profiling mode);

/** The times of the last profiled frame of a CUDA detector (waits for that frame). */
satfeat_status satfeat_fh_cuda_stage_times(satfeat_detector *det, satfeat_stage_times *out);

/** The detector's own slot (used by satfeat_detect_u8 on a CUDA detector). */
satfeat_fh_slot *satfeat_fh_cuda_own_slot(satfeat_detector *det);

#endif
