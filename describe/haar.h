/* haar.h - Haar wavelet responses from a u32 summed area table: box sums clipped to the image
 * and the dx / dy pair of one square Haar filter, exact integers on the CPU and on CUDA.
 *
 * The table has (width+1) x (height+1) entries, row stride `st` elements, entry (x, y) = sum of
 * the pixels x' < x, y' < y. Corner coordinates: corner c lies between pixels c-1 and c. A box
 * [x0, x1) x [y0, y1) is clipped to the image by clamping each corner coordinate to [0, width]
 * resp. [0, height], which gives exactly the sum of its pixels inside the image (0 when none).
 * Four u32 reads are combined modulo 2^32; the true value is exact whenever it fits an int32
 * (any box of up to 8.4 M pixels of 255), which the callers guarantee by bounding the side. */
#ifndef SATFEAT_HAAR_H
#define SATFEAT_HAAR_H

#include "src/hd.h"

#include <stddef.h>
#include <stdint.h>

/** v clamped to [lo, hi]. */
static inline SATFEAT_HD int satfeat_haar_clamp(int v, int lo, int hi)
{
    return v < lo ? lo : (v > hi ? hi : v);
}

/**
 * Sum of the pixels of the box [x0, x1) x [y0, y1) (corner coordinates) that lie inside the
 * width x height image; 0 when the clipped box is empty. Requires x0 <= x1 and y0 <= y1.
 */
static inline SATFEAT_HD int32_t satfeat_haar_box(const uint32_t *t, size_t st, int width,
                                                  int height, int x0, int y0, int x1, int y1)
{
    x0 = satfeat_haar_clamp(x0, 0, width);
    x1 = satfeat_haar_clamp(x1, 0, width);
    y0 = satfeat_haar_clamp(y0, 0, height);
    y1 = satfeat_haar_clamp(y1, 0, height);
    const uint32_t *r0 = t + (size_t)y0 * st, *r1 = t + (size_t)y1 * st;
    return (int32_t)(r1[x1] - r1[x0] - r0[x1] + r0[x0]);
}

/**
 * The Haar pair from the eight table entries it reads: rows s, m, e (ys <= ym <= ye) and columns
 * s, m, e (xs <= xm <= xe) of satfeat_haar_xy, named row-then-column (ms = row m, column s);
 * the arithmetic is modulo 2^32.
 */
static inline SATFEAT_HD void satfeat_haar_pair(uint32_t ss, uint32_t sm, uint32_t se, uint32_t ms,
                                                uint32_t me, uint32_t es, uint32_t em, uint32_t ee,
                                                int32_t *dx, int32_t *dy)
{
    const uint32_t right = ee - em - se + sm, left = em - es - sm + ss;
    const uint32_t bottom = ee - es - me + ms, top = me - ms - se + ss;
    *dx = (int32_t)(right - left);
    *dy = (int32_t)(bottom - top);
}

/**
 * The Haar pair from the already clamped corner coordinates of satfeat_haar_xy: columns
 * xs <= xm <= xe, rows ys <= ym <= ye (each clamped to the image). Eight table reads.
 */
static inline SATFEAT_HD void satfeat_haar_xy_clamped(const uint32_t *t, size_t st, int xs, int xm,
                                                      int xe, int ys, int ym, int ye,
                                                      int32_t *dx, int32_t *dy)
{
    const uint32_t *rs = t + (size_t)ys * st, *rm = t + (size_t)ym * st, *re = t + (size_t)ye * st;
    satfeat_haar_pair(rs[xs], rs[xm], rs[xe], rm[xs], rm[xe], re[xs], re[xm], re[xe], dx, dy);
}

/**
 * The Haar pair of side 2*half centred on corner (cx, cy), clipped to the image:
 * dx = box[cx, cx+half) x [cy-half, cy+half) - box[cx-half, cx) x [cy-half, cy+half) (right minus
 * left), dy = box[cx-half, cx+half) x [cy, cy+half) - box[cx-half, cx+half) x [cy-half, cy)
 * (bottom minus top). Eight table reads. Callers keep |cx|, |cy| <= 2^28 and 1 <= half <= 2^12.
 */
static inline SATFEAT_HD void satfeat_haar_xy(const uint32_t *t, size_t st, int width, int height,
                                              int cx, int cy, int half, int32_t *dx, int32_t *dy)
{
    satfeat_haar_xy_clamped(t, st, satfeat_haar_clamp(cx - half, 0, width),
                            satfeat_haar_clamp(cx, 0, width),
                            satfeat_haar_clamp(cx + half, 0, width),
                            satfeat_haar_clamp(cy - half, 0, height),
                            satfeat_haar_clamp(cy, 0, height),
                            satfeat_haar_clamp(cy + half, 0, height), dx, dy);
}

#endif
