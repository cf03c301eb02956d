/* detector_internal.h - the Fast-Hessian detector object and the CPU stages that fill it:
 * response layers (responses_cpu.c), extrema and refinement (extrema_cpu.c), sorting and
 * selection (select_cpu.c). */
#ifndef SATFEAT_DETECTOR_INTERNAL_H
#define SATFEAT_DETECTOR_INTERNAL_H

#include "src/context_internal.h"
#include "describe/describe_weights.h"
#include "detect/scale_space.h"
#include "detect/hessian_response.h"

/** One response layer: its geometry, normalisation and map (sized for the maximum frame). */
typedef struct satfeat_fh_layer {
    int octave, layer;
    int lobe, side, side_step, step;
    satfeat_fh_norm norm;
    double *map; /* row stride: the grid width of the current frame for this octave */
    size_t map_off; /* offset of `map` in the maps block, in doubles */
} satfeat_fh_layer;

/** An entry of the x order the CPU's near-duplicate scan uses: x and candidate position. */
typedef struct satfeat_fh_xpos {
    double x;
    uint32_t k;
} satfeat_fh_xpos;

struct satfeat_detector {
    satfeat_ctx *ctx;
    satfeat_detector_params params;
    int max_width, max_height;
    uint32_t *sat;        /* (max_width+1) x (max_height+1); row stride width+1 of the frame */
    void *sat_scratch;    /* CPU SAT scratch (sat.h), owned by the detector */
    size_t sat_scratch_bytes;
    double *maps;         /* one block holding every layer's map */
    satfeat_fh_layer layers[SATFEAT_FH_MAX_OCTAVES * SATFEAT_FH_MAX_LAYERS];
    satfeat_keypoint *candidates; /* refined extrema of one frame, before selection */
    size_t candidate_cap;         /* proven bound on the number of strict maxima */
    int *cell_count;              /* grid x grid counters (NULL without a grid) */
    satfeat_fh_xpos *dup_order;   /* CPU suppress_duplicates: candidates sorted by x */
    uint8_t *dup_flag;            /* CPU suppress_duplicates: 1 = near duplicate of a stronger one */
    struct satfeat_fh_cuda *gpu;  /* device state of a detector on a CUDA context, else NULL */
    satfeat_describe_weights weights; /* orientation and descriptor sampling weights */
    satfeat_profiling profiling;  /* SATFEAT_PROFILING_OFF unless turned on */
    satfeat_stage_times times;    /* CPU: the last measured frame */
    int times_valid;              /* CPU: `times` holds a frame measured in this mode */
};

/** The layer record of (octave, layer). */
static inline satfeat_fh_layer *satfeat_fh_layer_at(satfeat_detector *det, int octave, int layer)
{
    return &det->layers[octave * det->params.layers + layer];
}

/** Fills every layer's response map for a width x height frame whose table is in det->sat. */
void satfeat_fh_responses_cpu(satfeat_detector *det, int width, int height, int threads);

/**
 * Finds the strict 3x3x3 maxima above the threshold on the middle layers, refines them and
 * writes keypoints to det->candidates (unsorted). Returns their number (<= det->candidate_cap).
 */
size_t satfeat_fh_extrema_cpu(satfeat_detector *det, int width, int height, int threads);

/** The total order of the output: response descending, then y, x, size, octave, layer,
 * sample_y, sample_x ascending. Returns <0, 0 or >0 like strcmp. */
int satfeat_keypoint_order(const satfeat_keypoint *a, const satfeat_keypoint *b);

/**
 * Sorts `n` candidates in the total order and copies the selected ones (near duplicates, mask,
 * per-cell cap, max_keypoints) to `out`, never past `capacity`. Returns the number selected.
 */
size_t satfeat_fh_select(satfeat_detector *det, satfeat_keypoint *cand, size_t n, int width,
                         int height, const uint8_t *mask, size_t mask_stride,
                         satfeat_keypoint *out, size_t capacity);

/** SATFEAT_ERR_CAPACITY (with the message) when `count` keypoints do not fit `capacity`, else OK. */
satfeat_status satfeat_fh_count_status(satfeat_ctx *ctx, size_t count, size_t capacity);

/** Checks a descriptor output of `capacity` keypoints (NULL is fine: keypoints only). */
satfeat_status satfeat_fh_check_descriptors(satfeat_detector *det, const float *descriptors,
                                            size_t capacity);

/**
 * The frame checks shared by every detect entry point: NULL pointers, sizes, strides, the mask's
 * dimensions (equal to the image's), and strides whose rows would overflow the address space
 * (SATFEAT_ERR_OVERFLOW naming the image or the mask).
 */
satfeat_status satfeat_fh_check_frame(satfeat_detector *det, const void *image, size_t stride,
                                      int width, int height, const void *mask, size_t mask_stride,
                                      int mask_width, int mask_height,
                                      const satfeat_keypoint *keypoints, size_t capacity,
                                      const size_t *count);

#endif
