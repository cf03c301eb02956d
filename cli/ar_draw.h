/* ar_draw.h - `satfeat ar --draw`: a frame with each posed target's outline and the camera axes
 * of its pose drawn into an RGB canvas. */
#ifndef SATFEAT_CLI_AR_DRAW_H
#define SATFEAT_CLI_AR_DRAW_H

#include "draw_raster.h"
#include "satfeat.h"

/** What the drawing needs of one target. */
typedef struct cli_ar_drawn_target {
    int ref_width, ref_height; /* reference image size in pixels */
    double width_m;            /* its physical width */
} cli_ar_drawn_target;

/**
 * Copies the gray frame into the canvas (same size) and, for every result that has a pose, draws
 * the target's outline (yellow; its edges subdivided so distortion bends them as it bends the
 * target) and an axis triad at the target's centre, half the target's width long: x red, y green,
 * z blue (z points into the plane, away from a camera that sees the target's front).
 */
void cli_ar_draw(const cli_canvas *canvas, const uint8_t *gray, const satfeat_ar_camera *camera,
                 const cli_ar_drawn_target *targets, const satfeat_ar_result *results, int n);

#endif
