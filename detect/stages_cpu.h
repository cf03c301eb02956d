/* stages_cpu.h - the CPU detector's stages, each on explicit views of what it reads and
 * writes: response layers (responses_cpu.c), extrema and refinement (extrema_cpu.c), sorting
 * and selection (select_cpu.c). The CPU backend (detector_cpu.c) owns the memory. */
#ifndef SATFEAT_FH_STAGES_CPU_H
#define SATFEAT_FH_STAGES_CPU_H

#include "detect/layers.h"

#include <stddef.h>
#include <stdint.h>

/** The response maps of a frame: the layer records and, per record, its map (row stride: the
 *  layer's grid width on the frame). */
typedef struct satfeat_fh_maps_view {
    const satfeat_fh_layer *layers; /* octaves x layers_per_octave records */
    double *const *map;             /* map[k] belongs to layers[k] */
    int octaves, layers_per_octave;
} satfeat_fh_maps_view;

/** A frame's u32 summed area table, (width + 1) x (height + 1), row stride width + 1. */
typedef struct satfeat_fh_table_view {
    const uint32_t *sat;
    int width, height;
} satfeat_fh_table_view;

/** An entry of the x order the near-duplicate scan uses: x and candidate position. */
typedef struct satfeat_fh_xpos {
    double x;
    uint32_t k;
} satfeat_fh_xpos;

/** Scratch memory of selection, sized for the candidate bound (NULL where a rule is off). */
typedef struct satfeat_fh_select_scratch {
    int *cell_count;            /* grid x grid counters (grid > 0) */
    satfeat_fh_xpos *dup_order; /* suppress_duplicates: candidates sorted by x */
    uint8_t *dup_flag;          /* suppress_duplicates: 1 = near duplicate of a stronger one */
} satfeat_fh_select_scratch;

/** The entries of the split table satfeat_fh_responses_cpu takes for a width x height frame
 *  (the table's columns regrouped for the layers at steps 2 and 4). */
size_t satfeat_fh_split_elems(int width, int height);

/** 1 when satfeat_fh_responses_cpu computes layer ly from the split table (the fast layers at
 *  steps 2 and 4). */
static inline int satfeat_fh_layer_uses_split(const satfeat_fh_layer *ly)
{
    return ly->norm.fast && (ly->step == 2 || ly->step == 4);
}

/** Fills every layer's response map from the table. `split` (satfeat_fh_split_elems entries, or
 *  NULL) is scratch: with it the fast layers at steps 2 and 4 read the table's columns regrouped
 *  by step, contiguously; the maps are the same bits either way. */
void satfeat_fh_responses_cpu(const satfeat_fh_maps_view *maps, const satfeat_fh_table_view *t,
                              uint32_t *split, int threads);

/**
 * Finds the strict 3x3x3 maxima above p->threshold on the middle layers, refines them and
 * writes keypoints to cand (unsorted, at most cap of them). Returns how many were found.
 */
size_t satfeat_fh_extrema_cpu(const satfeat_fh_maps_view *maps, const satfeat_fh_table_view *t,
                              const satfeat_detector_params *p, satfeat_keypoint *cand,
                              size_t cap, int threads);

/** The total order of the output: response descending, then y, x, size, octave, layer,
 * sample_y, sample_x ascending. Returns <0, 0 or >0 like strcmp. */
int satfeat_keypoint_order(const satfeat_keypoint *a, const satfeat_keypoint *b);

/**
 * Sorts n candidates in the total order and moves the selected ones (near duplicates, mask,
 * per-cell cap, max_keypoints, in that order) to the front of `cand`, in order. `mask` (may be
 * NULL) is width x height bytes, `mask_stride` apart. Returns the number selected.
 */
size_t satfeat_fh_select(const satfeat_detector_params *p, satfeat_keypoint *cand, size_t n,
                         int width, int height, const uint8_t *mask, size_t mask_stride,
                         const satfeat_fh_select_scratch *scratch);

#endif
