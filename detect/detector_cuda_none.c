/* detector_cuda_none.c - the CUDA detector entry points of a build without CUDA: no context can
 * be a CUDA context there, so these are only reached through misuse and refuse. */
#include "detect/detector_cuda.h"

satfeat_status satfeat_fh_cuda_new(satfeat_detector *det)
{
    return satfeat_fail(det->ctx, SATFEAT_ERR_UNSUPPORTED, "detect: built without CUDA");
}

void satfeat_fh_cuda_delete(satfeat_detector *det)
{
    (void)det;
}

satfeat_status satfeat_fh_cuda_detect_device(satfeat_detector *det, const uint8_t *d_image,
                                             size_t stride, int width, int height,
                                             const uint8_t *d_mask, size_t mask_stride,
                                             satfeat_keypoint *keypoints, float *descriptors,
                                             size_t capacity, size_t *count, void *stream)
{
    (void)d_image, (void)stride, (void)width, (void)height, (void)d_mask, (void)mask_stride;
    (void)keypoints, (void)descriptors, (void)capacity, (void)count, (void)stream;
    return satfeat_fail(det->ctx, SATFEAT_ERR_UNSUPPORTED, "detect: built without CUDA");
}

satfeat_status satfeat_fh_slot_new(satfeat_detector *det, satfeat_fh_slot **out)
{
    *out = NULL;
    return satfeat_fail(det->ctx, SATFEAT_ERR_UNSUPPORTED, "detect: built without CUDA");
}

void satfeat_fh_slot_delete(satfeat_fh_slot *slot)
{
    (void)slot;
}

satfeat_status satfeat_fh_slot_submit(satfeat_detector *det, satfeat_fh_slot *slot,
                                      const uint8_t *image, size_t stride, int width, int height,
                                      const uint8_t *mask, size_t mask_stride, int descriptors)
{
    (void)slot, (void)image, (void)stride, (void)width, (void)height, (void)mask;
    (void)mask_stride, (void)descriptors;
    return satfeat_fail(det->ctx, SATFEAT_ERR_UNSUPPORTED, "detect: built without CUDA");
}

satfeat_status satfeat_fh_slot_collect(satfeat_detector *det, satfeat_fh_slot *slot,
                                       satfeat_keypoint *keypoints, float *descriptors,
                                       size_t capacity, size_t *count)
{
    (void)slot, (void)keypoints, (void)descriptors, (void)capacity, (void)count;
    return satfeat_fail(det->ctx, SATFEAT_ERR_UNSUPPORTED, "detect: built without CUDA");
}

satfeat_fh_slot *satfeat_fh_cuda_own_slot(satfeat_detector *det)
{
    (void)det;
    return NULL;
}

satfeat_status satfeat_fh_cuda_set_profiling(satfeat_detector *det, satfeat_profiling mode)
{
    (void)mode;
    return satfeat_fail(det->ctx, SATFEAT_ERR_UNSUPPORTED, "detect: built without CUDA");
}

satfeat_status satfeat_fh_cuda_stage_times(satfeat_detector *det, satfeat_stage_times *out)
{
    (void)out;
    return satfeat_fail(det->ctx, SATFEAT_ERR_UNSUPPORTED, "detect: built without CUDA");
}
