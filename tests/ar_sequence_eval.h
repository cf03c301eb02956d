/* ar_sequence_eval.h - runs an AR session over a rendered sequence (tools/ar_render.c,
 * tools/ar_paths.c) and measures it against the exact poses: the AR tests' common harness. */
#ifndef SATFEAT_AR_SEQUENCE_EVAL_H
#define SATFEAT_AR_SEQUENCE_EVAL_H

#include "satfeat.h"

/** What one sequence gave. */
typedef struct ar_seq_stats {
    int frames;
    int visible;        /* frames with >= 50% of the target visible */
    int posed_visible;  /* of those, frames with a pose (recall = posed_visible / visible) */
    int absent;         /* frames with none of the target visible */
    int false_poses;    /* poses reported on absent frames */
    int found, tracked, lost;
    double rot_med, rot_p90, rot_max;  /* degrees, over posed frames with >= 50% visible */
    double tr_med, tr_p90, tr_max;     /* translation error / distance */
    int max_recover;    /* most frames from a re-entry (visible >= 50% again) to the next pose */
    double ms_per_frame; /* session time per frame (rendering excluded) */
} ar_seq_stats;

/**
 * Renders `frames` frames of path `path` (640x480, supersample 2) of the reference (8-bit gray,
 * rw x rh, width_m metres) and runs a session with default parameters on ctx over them.
 * Returns 0, or -1 when something failed (message printed).
 */
int ar_seq_run(satfeat_ctx *ctx, const uint8_t *ref, int rw, int rh, double width_m,
               const char *path, int frames, ar_seq_stats *out);

#endif
