/* track_cli.h - helpers of `satfeat track`: the frame list (frame_list.h, shared with
 * `satfeat detect`) and the drawing of tracks into RGB frames. */
#ifndef SATFEAT_CLI_TRACK_CLI_H
#define SATFEAT_CLI_TRACK_CLI_H

#include "frame_list.h"
#include "satfeat.h"

#include <stddef.h>
#include <stdint.h>

/** A track's recent positions, for drawing tails. */
typedef struct cli_tail {
    uint64_t id;
    int n;             /* positions stored, <= CLI_TAIL_LEN */
    double xy[2 * 10]; /* oldest first */
} cli_tail;

#define CLI_TAIL_LEN 10

/** The tails of the live tracks, in ascending id order. */
typedef struct cli_tails {
    cli_tail *items, *spare; /* spare: the buffer the next update merges into */
    size_t n, cap;
} cli_tails;

/**
 * Advances the tails to a frame's live tracks (ascending id order, as the tracker returns them):
 * a continuing track appends its position (dropping the oldest past CLI_TAIL_LEN), a new one
 * starts a tail, an ended one is dropped. Returns 0 when memory runs out.
 */
int cli_tails_update(cli_tails *t, const satfeat_track *tracks, size_t n);

/** Frees the tails (safe on a zeroed struct). */
void cli_tails_free(cli_tails *t);

/**
 * Renders a gray frame as RGB into `rgb` (width * 3 bytes a row) with every track's tail as a
 * polyline and its current position as a circle of radius 3: green for the frame's inliers, red
 * for every other track (outliers, missed, born in this frame). `tails` must be updated to
 * `tracks` first.
 */
void cli_draw_tracks(uint8_t *rgb, const uint8_t *gray, int width, int height,
                     const satfeat_track *tracks, size_t n, const cli_tails *tails);

#endif
