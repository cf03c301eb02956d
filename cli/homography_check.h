/* homography_check.h - a homography given on the command line (match -H, draw -H, eval H) is
 * checked before any work: finite, far from singular, and mapping image 1 in front of the
 * camera. */
#ifndef SATFEAT_CLI_HOMOGRAPHY_CHECK_H
#define SATFEAT_CLI_HOMOGRAPHY_CHECK_H

#include "satfeat.h"

/**
 * Smallest accepted |det H| / (|h1| |h2| |h3|), h1..h3 H's columns: Hadamard's inequality
 * bounds the ratio by 1 (orthogonal columns), it is 0 for a singular H, and it is invariant to
 * scaling H or any one column (so to the units of the pixel coordinates).
 */
#define CLI_HOMOGRAPHY_MIN_HADAMARD 1e-10

/**
 * Smallest accepted w / (|h31 x| + |h32 y| + |h33|) at the corners (0,0), (W,0), (0,H), (W,H)
 * of image 1, with w = h31 x + h32 y + h33 the denominator of the mapping: positive means in
 * front of the camera; the margin keeps the image away from the horizon line.
 */
#define CLI_HOMOGRAPHY_MIN_DEPTH 1e-3

/** The help paragraph on the checks (match, eval and draw print it). */
#define CLI_HOMOGRAPHY_HELP                                                                    \
    "A homography is refused before any work (exit status 1) unless its nine numbers are\n"   \
    "finite, it is far from singular (|det H| / (|h1| |h2| |h3|) >= 1e-10, h1..h3 its\n"      \
    "columns) and it maps the four corners (0,0), (W,0), (0,H), (W,H) of IMG1 in front of\n"  \
    "the camera: h31 x + h32 y + h33 >= 1e-3 (|h31 x| + |h32 y| + |h33|).\n"

/**
 * Checks h (row-major) for an image of width x height pixels: every entry finite, the Hadamard
 * ratio at least CLI_HOMOGRAPHY_MIN_HADAMARD, every corner's depth ratio at least
 * CLI_HOMOGRAPHY_MIN_DEPTH. Returns 1, or 0 with *why set to a constant reason.
 */
int cli_homography_check(const double h[9], int width, int height, const char **why);

/**
 * Reads the homography file `path` (satfeat_homography_read on ctx) and checks it against the
 * size of `image1` (satfeat_image_read_info, no pixels decoded). Prints
 * "satfeat: homography PATH: why" and returns 0 on failure.
 */
int cli_homography_load(satfeat_ctx *ctx, const char *path, const char *image1, double h[9]);

#endif
