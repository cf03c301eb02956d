/* draw_raster.c - see draw_raster.h. */
#include "draw_raster.h"

#include <math.h>
#include <string.h>

/* Sets one pixel when it lies inside the canvas. */
static void put(const cli_canvas *c, long x, long y, const uint8_t rgb[3])
{
    if (x < 0 || y < 0 || x >= c->width || y >= c->height) return;
    memcpy(c->rgb + ((size_t)y * (size_t)c->width + (size_t)x) * 3, rgb, 3);
}

void cli_canvas_paste_gray(const cli_canvas *c, int x0, int y0, const uint8_t *gray, int w, int h)
{
    for (int y = 0; y < h; y++) {
        if (y0 + y < 0 || y0 + y >= c->height) continue;
        for (int x = 0; x < w; x++) {
            if (x0 + x < 0 || x0 + x >= c->width) continue;
            const uint8_t v = gray[(size_t)y * (size_t)w + (size_t)x];
            const uint8_t g[3] = {v, v, v};
            put(c, x0 + x, y0 + y, g);
        }
    }
}

void cli_draw_line(const cli_canvas *c, double x0, double y0, double x1, double y1,
                   const uint8_t rgb[3])
{
    if (!isfinite(x0) || !isfinite(y0) || !isfinite(x1) || !isfinite(y1)) return;
    const double dx = x1 - x0, dy = y1 - y0;
    const double len = fmax(fabs(dx), fabs(dy));
    if (len > 4.0 * ((double)c->width + c->height)) return;
    const int steps = (int)ceil(len);
    for (int s = 0; s <= steps; s++) {
        const double t = steps ? (double)s / steps : 0.0;
        put(c, lround(x0 + t * dx), lround(y0 + t * dy), rgb);
    }
}

void cli_draw_circle(const cli_canvas *c, double cx, double cy, double r, const uint8_t rgb[3])
{
    if (!isfinite(cx) || !isfinite(cy) || !isfinite(r) || r < 0.5) return;
    if (r > 4.0 * ((double)c->width + c->height)) return;
    /* one point per pixel of circumference (and a few more), each rounded to its pixel */
    const double two_pi = 6.283185307179586;
    const int n = (int)ceil(two_pi * r) + 8;
    for (int i = 0; i < n; i++) {
        const double a = two_pi * i / n;
        put(c, lround(cx + r * cos(a)), lround(cy + r * sin(a)), rgb);
    }
}
