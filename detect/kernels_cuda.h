/* kernels_cuda.h - extern "C" launchers of the CUDA detector's kernels (octave_kernel.cu, order_kernels.cu).
 * Each returns 0 or a cudaError_t. All work goes on `stream`; nothing synchronizes. */
#ifndef SATFEAT_FH_CUDA_H
#define SATFEAT_FH_CUDA_H

#include "detect/frame_plan.h"
#include "satfeat.h"

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/** Device buffers of the ordering and selection stage (all sized for `cap` candidates). */
typedef struct satfeat_fh_order_bufs {
    satfeat_keypoint *cand;   /* unsorted candidates (written by the octave kernel) */
    double *resp;             /* their responses (compact copy for the ordering loops) */
    uint32_t *counters;       /* [0] candidates, [1] selected, [2] always 0 (segment begin),
                                 [3] kept (after duplicates and mask); the same allocation
                                 continues with the four bucket count arrays below, cell_hist
                                 and (right after the frame's cells) the cells' fill counts,
                                 zeroed per frame */
    uint32_t *cand_buckets;   /* SATFEAT_FH_BUCKETS: candidates per descending response bucket
                                 (order_buckets.h), counted by the octave kernel */
    uint32_t *cand_groups;    /* SATFEAT_FH_BUCKET_GROUPS: the same per group of buckets */
    uint32_t *kept_buckets;   /* SATFEAT_FH_BUCKETS: kept candidates per bucket (flag kernel) */
    uint32_t *kept_groups;    /* SATFEAT_FH_BUCKET_GROUPS: the same per group of buckets */
    uint32_t *cell_hist;      /* cells_cap candidates per duplicate cell */
    uint32_t *cell_start;     /* per cell: first entry in cell_members; [cells] = total */
    uint32_t *bucket_members; /* kept candidates by bucket: bucket k's region starts at the
                                 prefix of cand_buckets before k (room for all its candidates),
                                 its first kept_buckets[k] entries are filled */
    double *bucket_resp;      /* the response of each bucket_members entry (the rank kernel's
                                 comparisons read it with the entry, not through the index) */
    uint32_t *cell_members;   /* all candidates, grouped by duplicate cell (cell_start) */
    uint32_t *cell_pos;       /* per candidate: its entry in cell_members (spatial order only) */
    uint32_t *key, *val;      /* grid only, per sorted position: grid cell, position; without a
                                 grid, key holds the spatial processing order (launch_sort) */
    uint32_t *val2;           /* grid only, per sorted position: candidate index */
    uint32_t *ck2, *pos2;     /* cell sort output (grid only) */
    uint8_t *keep;            /* per candidate: kept (not a near duplicate, inside the mask);
                                 grid only, afterwards per sorted position: within the cap */
    void *temp;               /* CUB temporary storage (grid only) */
    size_t temp_bytes;
    size_t cap;
    size_t cells_cap;         /* duplicate cells of the largest frame */
} satfeat_fh_order_bufs;

/** Allows the octave kernel its dynamic shared memory (SATFEAT_FH_SMEM_MAX); once per device. */
int satfeat_fh_kernels_init(void);

/**
 * Responses, NMS, refinement, ownership and compaction of every octave in one launch
 * (plan->blocks blocks); counters[0] must be 0. Appends to b->cand and b->resp, counts each
 * candidate in its response bucket and group (cand_buckets, cand_groups) and, when the plan has
 * duplicate cells (plan->dup_cw > 0), in its cell (cell_hist); all zero at launch.
 */
int satfeat_fh_launch_octaves(const satfeat_fh_plan *plan, const uint32_t *sat,
                              satfeat_fh_order_bufs *b, void *stream);

/** CUB temporary storage the grid selection (satfeat_fh_launch_select) needs for `cap` candidates. */
int satfeat_fh_order_temp_bytes(size_t cap, size_t *bytes);

/** Duplicate cells (order_buckets.h) of a width x height frame. */
size_t satfeat_fh_order_cells(int width, int height);

/** Bytes of the per-frame zeroed region that starts at b->counters for `cells` cells (counters,
 * bucket and group counts of candidates and of kept ones, cell counts, cell fill counts). */
size_t satfeat_fh_order_zero_bytes(size_t cells);

/**
 * Ordering without a device-wide sort (order_kernels.cu): near duplicates found through the
 * duplicate cells (with `dedup`), the mask applied, the kept candidates counted per response
 * bucket (`bucket_base`: the frame plan's, whose buckets the octave kernel counted), each kept
 * candidate's position found by counting the candidates of its bucket that order before it;
 * without a grid the first max_keypoints positions are written to `out` and their number to
 * counters[1]. With `dedup`, no grid and `spatial` non-NULL (cap entries), spatial[0 ..
 * min(counters[0], cap)) receives the selected output positions in duplicate-cell order,
 * SATFEAT_ORDER_HOLE where a candidate was not selected: a processing order for the descriptor
 * kernel whose blocks then read nearby table rows. The zeroed region (satfeat_fh_order_zero_bytes) must be zero at the octave kernel's
 * launch.
 */
int satfeat_fh_launch_sort(satfeat_fh_order_bufs *b, int width, int height, const uint8_t *mask,
                           size_t mask_stride, int grid, int dedup, uint32_t bucket_base,
                           int max_keypoints, satfeat_keypoint *out, uint32_t *spatial,
                           void *stream);
/**
 * Grid only (nothing without a grid): the per-cell cap over the sorted kept candidates, then
 * max_keypoints; the selected keypoints go to `out`, their number to counters[1].
 */
int satfeat_fh_launch_select(satfeat_fh_order_bufs *b, int grid, int per_cell, int max_keypoints,
                             satfeat_keypoint *out, void *stream);

/**
 * Writes the selected count (counters[1]) to `count` and, when `out` is non-NULL, the first
 * m = min(count, land_cap) keypoints of `out` to `land`: device views of mapped pinned host
 * memory, one kernel, no host round trip. NULL `out`: the orientation kernel landed them
 * already (descriptors are always landed by the descriptor kernel).
 */
int satfeat_fh_launch_download(const satfeat_fh_order_bufs *b, const satfeat_keypoint *out,
                               uint32_t *count, satfeat_keypoint *land, uint32_t land_cap,
                               void *stream);

#ifdef __cplusplus
}
#endif

#endif
