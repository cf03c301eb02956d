/* detector_internal.h - the public detector object (detector.c): parameters, the size its
 * buffers hold, and the backend that runs its frames (backend.h). */
#ifndef SATFEAT_DETECTOR_INTERNAL_H
#define SATFEAT_DETECTOR_INTERNAL_H

#include "detect/backend.h"

struct satfeat_detector {
    satfeat_ctx *ctx;
    satfeat_detector_params params;
    int lazy;                  /* created with a maximum of 0 x 0: sized by its frames */
    int max_width, max_height; /* the largest frame the backend state holds (0 x 0: no state) */
    size_t candidate_cap;      /* satfeat_fh_candidate_bound of that frame */
    unsigned generation;       /* counts the states made; a slot of an older one is remade */
    satfeat_fh_layer layers[SATFEAT_FH_MAX_LAYER_RECORDS];
    satfeat_describe_weights weights;
    satfeat_profiling profiling; /* SATFEAT_PROFILING_OFF unless turned on */
    const satfeat_fh_backend *be;
    void *state; /* the backend's buffers; NULL until a lazy detector's first frame */
};

#endif
