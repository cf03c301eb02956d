/* detect_options.h - the detector flags shared by `satfeat detect` and `satfeat eval`, and the
 * helper that loads an image and runs the detector on it. */
#ifndef SATFEAT_CLI_DETECT_OPTIONS_H
#define SATFEAT_CLI_DETECT_OPTIONS_H

#include "satfeat.h"

#include <stdio.h>

typedef struct cli_detect_options {
    satfeat_backend backend;
    int threads;                    /* 0 = OpenMP default */
    int repeat;                     /* timed runs after one warm-up (0 = one untimed run) */
    satfeat_detector_params params;
} cli_detect_options;

/** Sets the defaults: backend auto, default threads, no timing, default detector parameters. */
void cli_detect_options_init(cli_detect_options *o);

/**
 * Consumes argv[*i] (and its value) when it is a detector flag: returns 1 when consumed, 0 when
 * it is not one, -1 after printing an error for a bad or missing value.
 */
int cli_detect_option(int argc, char **argv, int *i, cli_detect_options *o);

/** Prints the help text of the detector flags. */
void cli_detect_options_help(FILE *out);

/** Keypoints of one image, with the image size and the median detection time. */
typedef struct cli_detection {
    satfeat_keypoint *kp; /* malloc'd */
    size_t n;
    int width, height;
    double median_ms;     /* 0 without --repeat */
} cli_detection;

/**
 * Loads `path` as 8-bit gray and detects keypoints with the options; prints the error and returns
 * CLI_EXIT_FAILURE on failure, else CLI_EXIT_OK with `out` filled (free out->kp).
 */
int cli_detect_file(const cli_detect_options *o, const char *path, cli_detection *out);

#endif
