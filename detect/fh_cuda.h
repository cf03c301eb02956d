/* fh_cuda.h - extern "C" launchers of the CUDA detector's kernels (fh_kernels.cu, fh_order.cu).
 * Each returns 0 or a cudaError_t. All work goes on `stream`; nothing synchronizes. */
#ifndef SATFEAT_FH_CUDA_H
#define SATFEAT_FH_CUDA_H

#include "fh_plan.h"
#include "satfeat.h"

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/** Device buffers of the ordering and selection stage (all sized for `cap` candidates). */
typedef struct satfeat_fh_order_bufs {
    satfeat_keypoint *cand;   /* unsorted candidates (written by the extrema kernel) */
    uint32_t *key, *val;      /* sort input: float-rounded response bits, candidate index */
    uint32_t *key2, *val2;    /* response sort output; val2 is the final order after tie fix */
    uint32_t *ck2, *pos2;     /* cell sort output (grid only) */
    uint8_t *keep;            /* per sorted position: selected by mask and grid (grid only) */
    uint32_t *counters;       /* [0] candidates, [1] selected, [2] always 0 (segment begin) */
    void *temp;               /* CUB temporary storage */
    size_t temp_bytes;
    size_t cap;
} satfeat_fh_order_bufs;

/** Responses of every layer of every octave in one launch (plan->resp_blocks blocks). */
int satfeat_fh_launch_responses(const satfeat_fh_plan *plan, const uint32_t *sat, double *maps,
                                void *stream);

/** NMS, refinement and compaction of all middle layers in one launch; counters[0] must be 0. */
int satfeat_fh_launch_extrema(const satfeat_fh_plan *plan, const uint32_t *sat,
                              const double *maps, satfeat_fh_order_bufs *b, void *stream);

/** CUB temporary storage needed by satfeat_fh_launch_order for `cap` candidates. */
int satfeat_fh_order_temp_bytes(size_t cap, size_t *bytes);

/**
 * Sorts the candidates in the total order (radix sort on the float-rounded response, then a
 * tie fix with the full comparator), applies mask, grid cap and max_keypoints, and writes the
 * selected keypoints to `out` and their number to counters[1].
 */
int satfeat_fh_launch_order(satfeat_fh_order_bufs *b, int width, int height,
                            const uint8_t *mask, size_t mask_stride, int grid, int per_cell,
                            int max_keypoints, satfeat_keypoint *out, void *stream);

/** The same split in stages for the benchmark: sort (with tie fix) and selection. */
int satfeat_fh_launch_sort(satfeat_fh_order_bufs *b, int width, int height, const uint8_t *mask,
                           size_t mask_stride, int grid, void *stream);
int satfeat_fh_launch_select(satfeat_fh_order_bufs *b, int grid, int per_cell, int max_keypoints,
                             satfeat_keypoint *out, void *stream);

#ifdef __cplusplus
}
#endif

#endif
