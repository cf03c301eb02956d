/* layers.h - the response layers of a detector's scale space (geometry and normalisation of
 * every octave x layer, from the parameters alone) and the bound on a frame's candidates, which
 * both backends size their buffers by. */
#ifndef SATFEAT_FH_LAYERS_H
#define SATFEAT_FH_LAYERS_H

#include "detect/hessian_response.h"
#include "detect/scale_space.h"
#include "satfeat.h"

#include <stddef.h>

/** Most layer records of a detector (octaves x layers). */
#define SATFEAT_FH_MAX_LAYER_RECORDS (SATFEAT_FH_MAX_OCTAVES * SATFEAT_FH_MAX_LAYERS)

/** One response layer: where it sits in the scale space and how its response is normalised. */
typedef struct satfeat_fh_layer {
    int octave, layer;
    int lobe, side, side_step, step;
    satfeat_fh_norm norm;
} satfeat_fh_layer;

/** Fills layers[o * p->layers + i] for every octave o and layer i of `p`. */
void satfeat_fh_layers_init(const satfeat_detector_params *p, satfeat_fh_layer *layers);

/** Doubles of the map of a layer sampled every `step` pixels on a width x height frame. */
size_t satfeat_fh_map_doubles(int width, int height, int step);

/**
 * The most candidates (strict 3x3x3 maxima) a width x height frame can have under `p`: maxima
 * are never 8-adjacent within a layer nor across adjacent layers, so an octave holds at most
 * ceil(middle layers / 2) * ceil(gw / 2) * ceil(gh / 2) of them.
 */
size_t satfeat_fh_candidate_bound(const satfeat_detector_params *p, int width, int height);

#endif
