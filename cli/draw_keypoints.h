/* draw_keypoints.h - `satfeat draw`: keypoints and matches drawn on RGB canvases. */
#ifndef SATFEAT_CLI_DRAW_KEYPOINTS_H
#define SATFEAT_CLI_DRAW_KEYPOINTS_H

#include "draw_raster.h"
#include "satfeat.h"

#include <stddef.h>

/**
 * Draws keypoints whose image lies at (x0, y0) of the canvas: each as the circle of radius
 * size / 2 (the region 'satfeat eval' and the oxford format use), with its orientation as a radius
 * when `oriented`; orange for bright blobs (laplacian -1), cyan for dark ones (+1).
 */
void cli_draw_keypoints(const cli_canvas *c, int x0, int y0, const satfeat_keypoint *kp, size_t n,
                        int oriented);

/**
 * Draws matches between image 1 at (0, 0) and image 2 at (x2, 0) of the canvas: a line and an end
 * circle of radius 3 each. Without `h` (NULL) every match is yellow; with the ground-truth
 * homography h (image 1 -> image 2, row-major) a match is correct (green) when h maps its image-1
 * point within 3 px of its image-2 point, as satfeat_eval_matching counts it, else red.
 * Returns the number of correct matches (0 without h).
 */
size_t cli_draw_matches(const cli_canvas *c, int x2, const satfeat_keypoint *kp1,
                        const satfeat_keypoint *kp2, const satfeat_match_pair *m, size_t n,
                        const double *h);

#endif
