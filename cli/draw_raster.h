/* draw_raster.h - the CLI's tiny rasteriser: an RGB canvas, gray images pasted into it, lines
 * and circle outlines clipped to it (`satfeat draw`, `satfeat track --draw`). */
#ifndef SATFEAT_CLI_DRAW_RASTER_H
#define SATFEAT_CLI_DRAW_RASTER_H

#include <stdint.h>

/** An 8-bit RGB image, interleaved, width * 3 bytes a row. */
typedef struct cli_canvas {
    uint8_t *rgb;
    int width, height;
} cli_canvas;

/** Copies a tightly packed w x h gray image into the canvas at (x0, y0) as gray RGB (clipped). */
void cli_canvas_paste_gray(const cli_canvas *c, int x0, int y0, const uint8_t *gray, int w, int h);

/** A line from (x0, y0) to (x1, y1), one pixel per step of the longer axis; skipped when an end
 * is not finite or it is far longer than the canvas (not a drawable segment). */
void cli_draw_line(const cli_canvas *c, double x0, double y0, double x1, double y1,
                   const uint8_t rgb[3]);

/** The outline of the circle of radius r (>= 0.5) around (cx, cy); skipped when not finite or far
 * larger than the canvas. */
void cli_draw_circle(const cli_canvas *c, double cx, double cy, double r, const uint8_t rgb[3]);

#endif
