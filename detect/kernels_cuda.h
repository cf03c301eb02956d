/* kernels_cuda.h - extern "C" launchers of the CUDA detector's kernels (octave_kernel.cu, order_kernels.cu).
 * Each returns 0 or a cudaError_t. All work goes on `stream`; nothing synchronizes. */
#ifndef SATFEAT_FH_CUDA_H
#define SATFEAT_FH_CUDA_H

#include "frame_plan.h"
#include "satfeat.h"

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/** Device buffers of the ordering and selection stage (all sized for `cap` candidates). */
typedef struct satfeat_fh_order_bufs {
    satfeat_keypoint *cand;   /* unsorted candidates (written by the octave kernel) */
    double *resp;             /* their responses (compact copy for the rank kernel) */
    uint32_t *rank;           /* their positions in the total order */
    uint32_t *key, *val;      /* per sorted position: mask/grid key, position */
    uint32_t *val2;           /* per sorted position: candidate index */
    uint32_t *ck2, *pos2;     /* cell sort output (grid only) */
    uint8_t *keep;            /* per sorted position: selected by mask and grid (grid only);
                                 before that, per candidate: near duplicate (suppress_duplicates) */
    uint32_t *counters;       /* [0] candidates, [1] selected, [2] always 0 (segment begin) */
    void *temp;               /* CUB temporary storage (grid only) */
    size_t temp_bytes;
    size_t cap;
} satfeat_fh_order_bufs;

/** Allows the octave kernel its dynamic shared memory (SATFEAT_FH_SMEM_MAX); once per device. */
int satfeat_fh_kernels_init(void);

/**
 * Responses, NMS, refinement, ownership and compaction of every octave in one launch
 * (plan->blocks blocks); counters[0] must be 0. Appends to b->cand, b->resp, b->rank.
 */
int satfeat_fh_launch_octaves(const satfeat_fh_plan *plan, const uint32_t *sat,
                              satfeat_fh_order_bufs *b, void *stream);

/** CUB temporary storage the grid selection (satfeat_fh_launch_select) needs for `cap` candidates. */
int satfeat_fh_order_temp_bytes(size_t cap, size_t *bytes);

/**
 * Ordering and selection in two stages: sort (rank by counting in the total order, with `dedup`
 * the near-duplicate flags, then scatter; with neither mask, grid nor dedup this also applies
 * max_keypoints) and selection (near duplicates, mask, grid cap and max_keypoints; nothing
 * without mask, grid and dedup). The selected keypoints go to `out`, their number to
 * counters[1].
 */
int satfeat_fh_launch_sort(satfeat_fh_order_bufs *b, int width, int height, const uint8_t *mask,
                           size_t mask_stride, int grid, int dedup, int max_keypoints,
                           satfeat_keypoint *out, void *stream);
int satfeat_fh_launch_select(satfeat_fh_order_bufs *b, const uint8_t *mask, int grid, int dedup,
                             int per_cell, int max_keypoints, satfeat_keypoint *out,
                             void *stream);

/**
 * Writes the selected count (counters[1]) to `count`, the first m = min(count, land_cap)
 * keypoints of `out` to `land` and, when `desc` is non-NULL (dim 64 or 128 floats per keypoint),
 * their descriptors to `land_desc`: device views of mapped pinned host memory, one kernel, no
 * host round trip.
 */
int satfeat_fh_launch_download(const satfeat_fh_order_bufs *b, const satfeat_keypoint *out,
                               const float *desc, int dim, uint32_t *count,
                               satfeat_keypoint *land, float *land_desc, uint32_t land_cap,
                               void *stream);

#ifdef __cplusplus
}
#endif

#endif
