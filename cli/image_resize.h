/* image_resize.h - the bilinear resize the benchmark subcommands make their frame sizes with. */
#ifndef SATFEAT_CLI_IMAGE_RESIZE_H
#define SATFEAT_CLI_IMAGE_RESIZE_H

#include <stdint.h>

/**
 * Bilinear resize (pixel centres aligned, edges clamped) of a tight sw x sh gray image to a new
 * malloc'd tight dw x dh image; NULL when out of memory.
 */
uint8_t *cli_resize_gray(const uint8_t *src, int sw, int sh, int dw, int dh);

#endif
