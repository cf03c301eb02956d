/* keypoint_format.h - `satfeat detect --format`: one frame's keypoints (and descriptors) as text,
 * CSV, JSON or the Oxford/VLFeat region format. */
#ifndef SATFEAT_CLI_KEYPOINT_FORMAT_H
#define SATFEAT_CLI_KEYPOINT_FORMAT_H

#include "satfeat.h"

#include <stdio.h>

/** The output formats. */
typedef enum cli_format {
    CLI_FORMAT_TEXT = 0, /* '#' headers, then x y size response sigma laplacian octave layer */
    CLI_FORMAT_CSV,      /* a header row, then one row per keypoint with frame and image */
    CLI_FORMAT_JSON,     /* one object per frame and line (JSON Lines) */
    CLI_FORMAT_OXFORD    /* version line, count, then x y a b c per keypoint */
} cli_format;

/** One frame's keypoints as `satfeat detect` prints them. */
typedef struct cli_frame_keypoints {
    int index;                  /* 1-based position in the frame list */
    const char *path;           /* the frame's path as given */
    int width, height;
    const satfeat_keypoint *kp;
    const float *desc;          /* n x dim floats, NULL when dim is 0 */
    int dim;                    /* 0, 64 or 128 */
    size_t n;
} cli_frame_keypoints;

/** Parses text, csv, json or oxford; prints an error and returns 0 on anything else. */
int cli_parse_format(const char *text, cli_format *out);

/** The file extension of a format, without the dot: txt, csv, json, oxford. */
const char *cli_format_extension(cli_format f);

/** Writes what a file of the format starts with once (the CSV header row; nothing for others). */
void cli_format_begin(FILE *f, cli_format fmt, int dim);

/**
 * Writes one frame. Text rounds for reading (x y size to 3 decimals, response to 7 significant
 * digits, sigma to 4 decimals); CSV, JSON and Oxford write every double with 17 significant
 * digits and every descriptor value with 9, so they parse back to the library's numbers exactly.
 * `params` are the detector parameters (JSON reports them).
 */
void cli_format_frame(FILE *f, cli_format fmt, const cli_frame_keypoints *fr,
                      const satfeat_detector_params *params);

#endif
