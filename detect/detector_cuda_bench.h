/* detector_cuda_bench.h - timing hooks of the CUDA detector for `satfeat bench detect`
 * (detector_cuda_bench.c; built with CUDA only). Not part of the public API. */
#ifndef SATFEAT_DETECTOR_CUDA_BENCH_H
#define SATFEAT_DETECTOR_CUDA_BENCH_H

#include "satfeat.h"

#ifdef __cplusplus
extern "C" {
#endif

/**
 * Enqueues the detection of a device-resident frame on `stream` through the graph path (the
 * same work as satfeat_detect_u8_device up to its keypoints in the mapped landing buffer, which
 * the last kernel writes) and returns without waiting.
 */
satfeat_status satfeat_fh_bench_enqueue(satfeat_detector *det, const uint8_t *d_image,
                                        size_t stride, int width, int height, void *stream);

/**
 * Runs `reps` frames stage by stage (no graph) with CUDA events between the stages and writes
 * the median microseconds of: [0] SAT (with the counter reset), [1] the octave kernel
 * (responses, NMS, interpolation, compaction), [2] sort (rank and scatter; selects too when
 * there is neither mask nor grid), [3] selection (mask or grid only), [4] the download kernel
 * (count and keypoints written to mapped pinned host memory).
 */
satfeat_status satfeat_fh_bench_stages(satfeat_detector *det, const uint8_t *d_image,
                                       size_t stride, int width, int height, int reps,
                                       double us[5]);

#ifdef __cplusplus
}
#endif

#endif
