/* detect_compat.c - the tracker's caller-owned-array detection calls (detect_compat.h) over the
 * public feature-set calls. */
#include "track/detect_compat.h"

#include <string.h>

/* Copies min(n, capacity) features of `f` into the arrays and sets *count; SATFEAT_ERR_CAPACITY
 * when they do not all fit. `st` is the status of the call that filled `f`. */
static satfeat_status copy_out(satfeat_status st, satfeat_features *f, satfeat_keypoint *keypoints,
                               float *descriptors, size_t capacity, size_t *count)
{
    const size_t n = satfeat_features_count(f);
    const size_t m = n < capacity ? n : capacity;
    const size_t dim = (size_t)satfeat_features_descriptor_kind(f);
    if (st == SATFEAT_OK && m > 0) {
        memcpy(keypoints, satfeat_features_keypoints(f), m * sizeof *keypoints);
        if (descriptors && dim)
            memcpy(descriptors, satfeat_features_descriptors(f), m * dim * sizeof(float));
    }
    if (count) *count = n;
    satfeat_features_delete(f);
    if (st == SATFEAT_OK && n > capacity) return SATFEAT_ERR_CAPACITY;
    return st;
}

/* A view of the old argument list (mask dimensions must match the image). */
static satfeat_image_view view_of(const uint8_t *image, size_t stride, int width, int height,
                                  const uint8_t *mask, size_t mask_stride)
{
    satfeat_image_view v = satfeat_image_view_host(image, width, height, stride);
    v.stride = stride;
    v.mask = mask;
    v.mask_stride = mask_stride;
    return v;
}

satfeat_status satfeat_detect_features_u8(satfeat_detector *det, const uint8_t *image,
                                          size_t stride, int width, int height,
                                          const uint8_t *mask, size_t mask_stride,
                                          int mask_width, int mask_height,
                                          satfeat_keypoint *keypoints, float *descriptors,
                                          size_t capacity, size_t *count)
{
    (void)mask_width, (void)mask_height;
    const satfeat_image_view v = view_of(image, stride, width, height, mask, mask_stride);
    satfeat_features *f = NULL;
    const satfeat_status st = satfeat_detect(det, &v, &f);
    return copy_out(st, f, keypoints, descriptors, capacity, count);
}

satfeat_status satfeat_detect_features_u8_device(
    satfeat_detector *det, const uint8_t *d_image, size_t stride, int width, int height,
    const uint8_t *d_mask, size_t mask_stride, int mask_width, int mask_height,
    satfeat_keypoint *keypoints, float *descriptors, size_t capacity, size_t *count, void *stream)
{
    (void)mask_width, (void)mask_height;
    satfeat_image_view v = view_of(d_image, stride, width, height, d_mask, mask_stride);
    v.memory = SATFEAT_MEMORY_DEVICE;
    v.stream = stream;
    satfeat_features *f = NULL;
    const satfeat_status st = satfeat_detect(det, &v, &f);
    return copy_out(st, f, keypoints, descriptors, capacity, count);
}

satfeat_status satfeat_sequence_push_features(satfeat_sequence *seq, const uint8_t *image,
                                              size_t stride, int width, int height,
                                              satfeat_keypoint *keypoints, float *descriptors,
                                              size_t capacity, size_t *count, int *popped)
{
    const satfeat_image_view v = view_of(image, stride, width, height, NULL, 0);
    satfeat_features *f = NULL;
    const satfeat_status st = satfeat_sequence_push(seq, &v, &f, popped);
    if (!popped || !*popped) {
        satfeat_features_delete(f);
        return st;
    }
    return copy_out(st, f, keypoints, descriptors, capacity, count);
}

satfeat_status satfeat_sequence_pop_features(satfeat_sequence *seq, satfeat_keypoint *keypoints,
                                             float *descriptors, size_t capacity, size_t *count)
{
    satfeat_features *f = NULL;
    const satfeat_status st = satfeat_sequence_pop(seq, &f);
    return copy_out(st, f, keypoints, descriptors, capacity, count);
}
