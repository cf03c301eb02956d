/* fh_plan.h - the per-frame plan of the CUDA detector: for one frame size, which samples of
 * every layer get a response and which samples of every middle layer are tested for maxima,
 * flattened into block ranges so that one kernel launch covers all layers (responses) and one
 * covers all middle layers (extrema). Built on the host (fh_plan.c), passed to the kernels by
 * value, so it is baked into a captured graph. */
#ifndef SATFEAT_FH_PLAN_H
#define SATFEAT_FH_PLAN_H

#include "fh_response.h"
#include "fh_geometry.h"

#include <stddef.h>
#include <stdint.h>

#define SATFEAT_FH_MAX_MAPS (SATFEAT_FH_MAX_OCTAVES * SATFEAT_FH_MAX_LAYERS)
/** Threads per block of the response and extrema kernels. */
#define SATFEAT_FH_PLAN_BLOCK 256

/** One rectangle of samples kx0..kx1 x ky0..ky1 of a layer, covered by blocks from `first`. */
typedef struct satfeat_fh_plan_rect {
    int map;                /* index octave * layers + layer */
    int kx0, ky0, nx, ny;   /* first sample and the rectangle's size in samples */
    int first;              /* first block of this rectangle in the launch */
} satfeat_fh_plan_rect;

/** The geometry of one layer for the current frame. */
typedef struct satfeat_fh_plan_map {
    uint64_t map_off;       /* offset of the layer's map in the maps block, in doubles */
    satfeat_fh_norm norm;
    int lobe, side, side_step, step, gw, octave, layer, pad_;
} satfeat_fh_plan_map;

/** Everything the kernels need to know about one frame. */
typedef struct satfeat_fh_plan {
    satfeat_fh_plan_map maps[SATFEAT_FH_MAX_MAPS];
    satfeat_fh_plan_rect resp[SATFEAT_FH_MAX_MAPS]; /* response rectangles */
    satfeat_fh_plan_rect nms[SATFEAT_FH_MAX_MAPS];  /* middle-layer rectangles (mid map index) */
    int n_resp, resp_blocks;
    int n_nms, nms_blocks;
    int width, height, octaves, layers, init_step, unique_scales;
    double threshold, max_offset;
    uint64_t sat_pitch;     /* table row stride in elements */
} satfeat_fh_plan;

struct satfeat_detector;

/** Fills `plan` for a width x height frame of `det` with a table of row stride `sat_pitch`. */
void satfeat_fh_plan_build(const struct satfeat_detector *det, int width, int height,
                           size_t sat_pitch, satfeat_fh_plan *plan);

#endif
