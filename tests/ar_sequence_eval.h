/* ar_sequence_eval.h - runs an AR session over a sequence with exact poses, rendered
 * (tools/ar_render.c, tools/ar_paths.c) or read from a folder written by
 * tools/gen_ar_sequence.c, and measures it against the truth: the harness of the AR tests
 * (tests/test_ar_session.c) and of the evaluation program (bench/ar_eval.c). The measures are
 * defined here once; bench/ar_opencv_anchor.py computes the same ones for the OpenCV anchors. */
#ifndef SATFEAT_AR_SEQUENCE_EVAL_H
#define SATFEAT_AR_SEQUENCE_EVAL_H

#include "satfeat.h"

#include <stdint.h>
#include <stdio.h>

/** A pose counts as correct within these of the truth: rotation (degrees) and translation
 *  (fraction of the distance). Beyond them it is a wrong pose (a flipped tilt, a pose from
 *  inliers on a small part of the target), not noise: plain SIFT's medians on docs/AR.md's
 *  sequences are 0.08 - 0.88 degrees and 0.04 - 0.53%. */
#define AR_SEQ_CORRECT_DEG 5.0
#define AR_SEQ_CORRECT_REL 0.05

/** What one sequence gave. */
typedef struct ar_seq_stats {
    int frames;
    int visible;        /* frames with >= 50% of the target visible */
    int posed_visible;  /* of those, frames with a pose (recall = posed_visible / visible) */
    int posed_correct;  /* of those, poses within AR_SEQ_CORRECT_DEG degrees and
                           AR_SEQ_CORRECT_REL of the distance of the truth */
    int absent;         /* frames with none of the target visible */
    int false_poses;    /* poses reported on absent frames */
    int other_poses;    /* poses of the extra targets (never in the frames), all frames */
    int found, tracked, lost;
    double rot_med, rot_p90, rot_max;  /* degrees, over posed frames with >= 50% visible */
    double tr_med, tr_p90, tr_max;     /* translation error / distance */
    int reentries;      /* times the target became >= 50% visible after being less */
    int max_recover;    /* most visible frames from a re-entry to the next pose */
    double ms_per_frame; /* session time per frame (rendering and reading excluded) */
    satfeat_ar_stage_times stage_mean; /* mean stage times per frame (opt.profile only) */
    uint64_t digest;    /* FNV-1a 64 of the pose lines (ar_seq_options.poses_out's text) */
} ar_seq_stats;

/** How ar_seq_eval gets its frames and what it reports beyond the stats. */
typedef struct ar_seq_options {
    int width, height;      /* rendered frame size (ignored with dir) */
    int supersample;        /* renderer samples per pixel side */
    uint64_t texture_seed;  /* the plane's texture */
    const char *dir;        /* non-NULL: read frameNNN.png, camera.txt and poses.txt from here
                               (tools/gen_ar_sequence.c) instead of rendering `path` */
    const satfeat_ar_target *const *extra; /* more targets in the session, never in the frames */
    int n_extra;
    FILE *poses_out;        /* non-NULL: one line per frame and target, as `satfeat ar` */
    int verbose;            /* one line per frame with the truth and the errors on stdout */
    int profile;            /* measure the session's stages (satfeat_ar_session_set_profiling)
                               and report their means in ar_seq_stats.stage_mean */
    int photometric;        /* satfeat_ar_params.photometric (1, the default) */
    double threshold;       /* satfeat_ar_params.threshold (0: the default) */
    double max_reproj_px;   /* satfeat_ar_params.max_reproj_px (0: the default) */
} ar_seq_options;

/** The options of the AR tests: 640x480, supersample 2, texture seed 77, rendered, the
 *  photometric refinement on. */
ar_seq_options ar_seq_options_default(void);

/**
 * Runs a session with default parameters (but opt->photometric, threshold and max_reproj_px)
 * on ctx over `frames` frames of path `path` (or of opt->dir, then `path` only names it and
 * `frames` 0 means all of them) of the reference
 * (8-bit gray, rw x rh, width_m metres; target 0 of the session, then opt->extra). Returns 0,
 * or -1 when something failed (message printed).
 */
int ar_seq_eval(satfeat_ctx *ctx, const uint8_t *ref, int rw, int rh, double width_m,
                const char *path, int frames, const ar_seq_options *opt, ar_seq_stats *out);

/** ar_seq_eval with ar_seq_options_default() (and AR_SEQ_VERBOSE in the environment turning
 *  on the per-frame lines). */
int ar_seq_run(satfeat_ctx *ctx, const uint8_t *ref, int rw, int rh, double width_m,
               const char *path, int frames, ar_seq_stats *out);

#endif
