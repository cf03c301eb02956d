/* track_cli.h - helpers of `satfeat track`: the frame list (arguments, a directory in natural
 * name order or a list file) and the drawing of tracks into RGB frames. */
#ifndef SATFEAT_CLI_TRACK_CLI_H
#define SATFEAT_CLI_TRACK_CLI_H

#include "satfeat.h"

#include <stddef.h>
#include <stdint.h>

/** A list of frame paths (each malloc'd). */
typedef struct cli_frame_list {
    char **paths;
    size_t n, cap;
} cli_frame_list;

/**
 * Compares two names in natural order: runs of digits compare by their numeric value (leading
 * zeros ignored, then the shorter run first on equal values), everything else byte by byte, so
 * "frame2" < "frame10". Returns <0, 0 or >0 like strcmp.
 */
int cli_natural_compare(const char *a, const char *b);

/**
 * Fills `list` from the positional arguments: one argument naming a directory gives its image
 * files (.png .pgm .ppm .pnm, any case; hidden files skipped) in natural name order; one argument
 * ending in .txt gives the paths of that list file (one a line; blank lines and lines starting
 * with '#' skipped; relative paths taken relative to the list file's directory); otherwise the
 * arguments are the frames in order. Prints the error and returns 0 on failure.
 */
int cli_frame_list_build(cli_frame_list *list, const char *const *args, int nargs);

/** Frees the paths and the array (safe on a zeroed list). */
void cli_frame_list_free(cli_frame_list *list);

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
