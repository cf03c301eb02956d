/* image_resize.c - see image_resize.h. */
#include "image_resize.h"

#include <stdlib.h>

uint8_t *cli_resize_gray(const uint8_t *src, int sw, int sh, int dw, int dh)
{
    uint8_t *dst = malloc((size_t)dw * (size_t)dh);
    if (!dst) return NULL;
    for (int y = 0; y < dh; y++) {
        double fy = ((double)y + 0.5) * sh / dh - 0.5;
        if (fy < 0) fy = 0;
        int y0 = (int)fy, y1 = y0 + 1 < sh ? y0 + 1 : sh - 1;
        const double ay = fy - y0;
        for (int x = 0; x < dw; x++) {
            double fx = ((double)x + 0.5) * sw / dw - 0.5;
            if (fx < 0) fx = 0;
            int x0 = (int)fx, x1 = x0 + 1 < sw ? x0 + 1 : sw - 1;
            const double ax = fx - x0;
            const double top = src[(size_t)y0 * sw + x0] * (1 - ax) + src[(size_t)y0 * sw + x1] * ax;
            const double bot = src[(size_t)y1 * sw + x0] * (1 - ax) + src[(size_t)y1 * sw + x1] * ax;
            dst[(size_t)y * dw + x] = (uint8_t)(top * (1 - ay) + bot * ay + 0.5);
        }
    }
    return dst;
}
