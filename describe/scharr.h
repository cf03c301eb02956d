/* scharr.h - a near-isotropic derivative from a u32 summed area table: Scharr's weights 3, 10, 3
 * applied to a 3 x 3 grid of equal square box sums, exact integers on the CPU and on CUDA.
 *
 * Why: a Haar pair compares two half squares, and the direction of its answer to a straight edge
 * depends on the edge's angle to the image axes, which biases a histogram of directions. The
 * 3 x 3 grid smooths across the derivative with 3, 10, 3 (Scharr's weights, chosen for the least
 * angular error of a 3 x 3 derivative), at 16 table reads (the corners of the grid's 4 x 4
 * lattice) against the Haar pair's 8; docs/EVALUATION.md has the matching scores it gave.
 *
 * Geometry: boxes of side 2h centred on table corners, box (i, j) (i, j in 0..2) covering
 * columns [c_i, c_i+1) and rows [r_j, r_j+1) of the lattice c_i = cx + (2i - 3) h,
 * r_j = cy + (2j - 3) h: the grid is centred on corner (cx, cy), so it turns with the image
 * under rotations by 90 degrees and flips exactly as a Haar pair does (an odd side would put
 * the grid half a pixel off the corner). dx = sum over rows j of w_j (box(2, j) - box(0, j)),
 * dy = sum over columns i of w_i (box(i, 2) - box(i, 0)), w = 3, 10, 3. Clamping every lattice
 * coordinate to the image clips each box to the image exactly as satfeat_haar_box does. Box
 * sums are formed modulo 2^32 and the derivative too; the true value is exact whenever it fits
 * an int32, which holds for h <= SATFEAT_SCHARR_MAX_HALF: |dx| <= 16 * 255 * (2h)^2 <= 1.07e9. */
#ifndef SATFEAT_SCHARR_H
#define SATFEAT_SCHARR_H

#include "describe/haar.h"
#include "src/hd.h"

#include <stddef.h>
#include <stdint.h>

/** The largest half side: 16 * 255 * 512^2 < 2^31 (and below the bound orientation.h assumes). */
#define SATFEAT_SCHARR_MAX_HALF 256

/** The four lattice coordinates c[m] = v + (2m - 3) h of corner coordinate v, clamped to
 *  [0, limit] (limit: the image's width or height). */
static inline SATFEAT_HD void satfeat_scharr_lattice(int v, int h, int limit, int *c)
{
    for (int m = 0; m < 4; m++) c[m] = satfeat_haar_clamp(v + (2 * m - 3) * h, 0, limit);
}

/** The derivative from the 16 table entries e[row][column] of the lattice (rows and columns in
 *  ascending order), modulo 2^32. */
static inline SATFEAT_HD void satfeat_scharr_combine(const uint32_t e[4][4], int32_t *dx,
                                                     int32_t *dy)
{
    uint32_t b[3][3];
    for (int j = 0; j < 3; j++)
        for (int i = 0; i < 3; i++)
            b[j][i] = e[j + 1][i + 1] - e[j + 1][i] - e[j][i + 1] + e[j][i];
    const uint32_t x = 3u * (b[0][2] - b[0][0]) + 10u * (b[1][2] - b[1][0]) +
                       3u * (b[2][2] - b[2][0]);
    const uint32_t y = 3u * (b[2][0] - b[0][0]) + 10u * (b[2][1] - b[0][1]) +
                       3u * (b[2][2] - b[0][2]);
    *dx = (int32_t)x;
    *dy = (int32_t)y;
}

/** The derivative of half side h (1 <= h <= SATFEAT_SCHARR_MAX_HALF) at corner (cx, cy), clipped
 *  to the width x height image. Sixteen table reads. Callers keep |cx|, |cy| <= 2^28. */
static inline SATFEAT_HD void satfeat_scharr_xy(const uint32_t *t, size_t st, int width,
                                                int height, int cx, int cy, int h, int32_t *dx,
                                                int32_t *dy)
{
    int c[4], r[4];
    satfeat_scharr_lattice(cx, h, width, c);
    satfeat_scharr_lattice(cy, h, height, r);
    uint32_t e[4][4];
    for (int j = 0; j < 4; j++) {
        const uint32_t *row = t + (size_t)r[j] * st;
        for (int i = 0; i < 4; i++) e[j][i] = row[c[i]];
    }
    satfeat_scharr_combine(e, dx, dy);
}

#endif
