/* detect_compat.h - the tracker's detection calls in their caller-owned-array form: the
 * keypoints and descriptors of a frame copied into arrays of `capacity` entries (count set to
 * the number found; SATFEAT_ERR_CAPACITY when it exceeds the capacity, the first `capacity`
 * written). Built on the public feature-set calls; internal to track/, which uses them until it
 * takes feature sets itself. */
#ifndef SATFEAT_TRACK_DETECT_COMPAT_H
#define SATFEAT_TRACK_DETECT_COMPAT_H

#include "satfeat.h"

/** satfeat_detect on a host frame without a mask, into the caller's arrays (descriptors may be
 *  NULL: not copied). */
satfeat_status satfeat_detect_features_u8(satfeat_detector *det, const uint8_t *image,
                                          size_t stride, int width, int height,
                                          const uint8_t *mask, size_t mask_stride,
                                          int mask_width, int mask_height,
                                          satfeat_keypoint *keypoints, float *descriptors,
                                          size_t capacity, size_t *count);

/** satfeat_detect on a device frame (queued on `stream`), into the caller's host arrays. */
satfeat_status satfeat_detect_features_u8_device(
    satfeat_detector *det, const uint8_t *d_image, size_t stride, int width, int height,
    const uint8_t *d_mask, size_t mask_stride, int mask_width, int mask_height,
    satfeat_keypoint *keypoints, float *descriptors, size_t capacity, size_t *count, void *stream);

/** satfeat_sequence_push of a host frame; a popped frame goes to the caller's arrays. */
satfeat_status satfeat_sequence_push_features(satfeat_sequence *seq, const uint8_t *image,
                                              size_t stride, int width, int height,
                                              satfeat_keypoint *keypoints, float *descriptors,
                                              size_t capacity, size_t *count, int *popped);

/** satfeat_sequence_pop into the caller's arrays. */
satfeat_status satfeat_sequence_pop_features(satfeat_sequence *seq, satfeat_keypoint *keypoints,
                                             float *descriptors, size_t capacity, size_t *count);

#endif
