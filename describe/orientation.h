/* orientation.h - the dominant orientation of a keypoint from Haar responses on the u32 table
 * (after Bay et al. 2008, 4.1, with a finer grid and a smaller filter, which measured better in
 * bench/descriptor_study.c): 437 samples on the grid of step s/2 within radius 6s, Haar side 4s
 * (w->ori_haar x s, 2..4; 3s in SURF; rounded, describe_geom.h), weighted by the
 * Gaussian of sigma 2.5s (describe_weights.h); each weighted response (dx, dy) goes into one of 72
 * bins of 5 degrees by its angle; the window of pi/3 (12 consecutive bins, 72 start positions)
 * with the largest vector sum gives the angle atan2(sum dy, sum dx) in [0, 2 pi); unless
 * w->ori_refine is 0, that angle is refined once: the responses strictly within 30 degrees of it
 * summed (a window centred on the angle rather than on bin edges), their angle
 * (satfeat_ori_refine).
 *
 * Exact sums, so any summation order gives the same bits (the CUDA kernel adds integers in the
 * order its atomics land): a weight g is a multiple of 2^-14 with g <= 1 (describe_weights.h), and
 * a Haar response satisfies |dx|, |dy| <= 255 * 2 * half^2 <= 2.04e9 < 2^31 (half <= 2000: side at
 * most 4s, the scale clamped to 1000), so g * dx is an exact double (15 by 31 significant bits)
 * and a multiple of 2^-14, and any sum of them has magnitude below (sum of the 437 weights,
 * 147.38) * 2.04e9 < 3.01e11 < 2^39 and is a multiple of 2^-14: an integer count of 2^-14 below
 * 2^53, exact. Hence bin b (its samples summed from 0.0), window k (bins k .. k+11 mod 72 from
 * 0.0) and their integer images (sum of q * dx with q = g * 2^14, then times 2^-14) are the same
 * doubles whatever the order. The best window is the first k (ascending) with the strictly largest
 * sx*sx + sy*sy (rounded, computed the same way on both backends). tests/test_describe_math.c
 * checks the CPU's double sums against a plain integer-sum reference on a full-contrast image at
 * scales up to 240. */
#ifndef SATFEAT_ORIENTATION_H
#define SATFEAT_ORIENTATION_H

#include "describe/angle_math.h"
#include "describe/describe_geom.h"
#include "describe/describe_weights.h"
#include "describe/haar.h"

#include <stddef.h>
#include <stdint.h>

/** Per-keypoint constants of the orientation: position, scale, grid step s/2, Haar half side. */
typedef struct satfeat_ori_setup {
    double x, y, s, hs;
    int half;
} satfeat_ori_setup;

/** The orientation constants of a keypoint at (x, y) with Gaussian scale sigma; `haar` is the
 *  Haar side in units of s (satfeat_describe_weights.ori_haar, 2..4). */
static inline SATFEAT_HD satfeat_ori_setup satfeat_ori_prepare(double x, double y, double sigma,
                                                               int haar)
{
    satfeat_ori_setup o;
    o.x = satfeat_dg_coord(x);
    o.y = satfeat_dg_coord(y);
    o.s = satfeat_dg_scale(sigma);
    o.hs = 0.5 * o.s;
    o.half = satfeat_dg_half((double)haar * o.s);
    return o;
}

/** The Haar response (not weighted) of orientation sample k, at the table corner nearest to
 *  (x + i s/2, y + j s/2): *dx, *dy as satfeat_haar_xy gives them. */
static inline SATFEAT_HD void satfeat_ori_haar(const uint32_t *t, size_t st, int width,
                                               int height, const satfeat_ori_setup *o,
                                               const satfeat_describe_weights *w, int k,
                                               int32_t *dx, int32_t *dy)
{
    const int cx = satfeat_dg_corner(o->x + (double)w->ori_i[k] * o->hs);
    const int cy = satfeat_dg_corner(o->y + (double)w->ori_j[k] * o->hs);
    satfeat_haar_xy(t, st, width, height, cx, cy, o->half, dx, dy);
}

/** The bin of a weighted response: floor(angle * 72 / (2 pi)) of satfeat_am_angle(wdy, wdx)
 *  (angle in [0, 2 pi)), clamped to [0, 71]. */
static inline SATFEAT_HD int satfeat_ori_bin(double wdy, double wdx)
{
    const int b = (int)(satfeat_am_angle(wdy, wdx) * ((double)SATFEAT_ORI_BINS / SATFEAT_AM_2PI));
    return b < 0 ? 0 : (b >= SATFEAT_ORI_BINS ? SATFEAT_ORI_BINS - 1 : b);
}

/**
 * Orientation sample k: the Haar response at position (x + i s/2, y + j s/2), weighted:
 * *wdx = g * dx, *wdy = g * dy, and its bin floor(angle * 72 / (2 pi)) (angle in [0, 2 pi)).
 */
static inline SATFEAT_HD void satfeat_ori_sample(const uint32_t *t, size_t st, int width,
                                                 int height, const satfeat_ori_setup *o,
                                                 const satfeat_describe_weights *w, int k,
                                                 double *wdx, double *wdy, int *bin)
{
    int32_t dx, dy;
    satfeat_ori_haar(t, st, width, height, o, w, k, &dx, &dy);
    const double g = w->ori_w[k];
    *wdx = g * (double)dx;
    *wdy = g * (double)dy;
    *bin = satfeat_ori_bin(*wdy, *wdx);
}

/** Vector sum of window k: bins k .. k+11 (mod 72), from 0.0 (exact: see the header). */
static inline SATFEAT_HD void satfeat_ori_window(const double *bx, const double *by, int k,
                                                 double *sx, double *sy)
{
    double x = 0.0, y = 0.0;
    for (int m = 0; m < SATFEAT_ORI_WINDOW; m++) {
        int b = k + m;
        if (b >= SATFEAT_ORI_BINS) b -= SATFEAT_ORI_BINS;
        x += bx[b];
        y += by[b];
    }
    *sx = x;
    *sy = y;
}

/** Squared length of a window sum, the quantity the windows are ranked by. */
static inline SATFEAT_HD double satfeat_ori_norm2(double sx, double sy)
{
    return sx * sx + sy * sy;
}

/** tan(30 degrees): the half width of the refinement window. */
#define SATFEAT_ORI_REFINE_TAN 0.57735026918962576451

/** 1 when the weighted response (wx, wy) lies strictly within 30 degrees of the direction
 *  (c, sn) = (cos a, sin a): dot > 0 and |cross| < tan(30 deg) dot (no atan2, so the CUDA
 *  kernel evaluates it cheaply; the same operations on both backends). A zero response is out. */
static inline SATFEAT_HD int satfeat_ori_in_window(double wx, double wy, double c, double sn)
{
    const double dot = c * wx + sn * wy, cross = c * wy - sn * wx;
    return dot > 0.0 && (cross < 0.0 ? -cross : cross) < SATFEAT_ORI_REFINE_TAN * dot;
}

/** The refined angle from the sums (sx, sy) of the responses within 30 degrees of `angle`
 *  (satfeat_ori_in_window): their angle, or `angle` when the sums are zero. The sums are exact
 *  (multiples of 2^-14 below 2^53, as the window sums), so any summation order gives them. */
static inline SATFEAT_HD double satfeat_ori_refined(double angle, double sx, double sy)
{
    return (sx != 0.0 || sy != 0.0) ? satfeat_am_angle(sy, sx) : angle;
}

/** The refinement on the CPU: the n weighted responses wx[], wy[] summed over the window of
 *  +-30 degrees centred on `angle` (the best window's angle), then satfeat_ori_refined. The
 *  best window of fixed bins has its edges on bin boundaries; centring it on the angle raised
 *  the matching score and precision on the tuning sets (docs/EVALUATION.md, "Levers measured"). */
static inline double satfeat_ori_refine(const double *wx, const double *wy, int n, double angle)
{
    double sn, c, sx = 0.0, sy = 0.0;
    satfeat_am_sincos(angle, &sn, &c);
    for (int k = 0; k < n; k++)
        if (satfeat_ori_in_window(wx[k], wy[k], c, sn)) {
            sx += wx[k];
            sy += wy[k];
        }
    return satfeat_ori_refined(angle, sx, sy);
}

/** The whole orientation of one keypoint, sequentially (the CPU path; the order of the header). */
static inline double satfeat_orientation(const uint32_t *t, size_t st, int width, int height,
                                         double x, double y, double sigma,
                                         const satfeat_describe_weights *w)
{
    const satfeat_ori_setup o = satfeat_ori_prepare(x, y, sigma, w->ori_haar);
    double bx[SATFEAT_ORI_BINS], by[SATFEAT_ORI_BINS];
    double wx[SATFEAT_ORI_SAMPLES], wy[SATFEAT_ORI_SAMPLES];
    for (int b = 0; b < SATFEAT_ORI_BINS; b++) bx[b] = by[b] = 0.0;
    for (int k = 0; k < SATFEAT_ORI_SAMPLES; k++) {
#if defined(__GNUC__) && !defined(__CUDACC__)
        /* the table reads miss the caches: ask for a later sample's rows early (no effect on
         * the result) */
        if (k + 6 < SATFEAT_ORI_SAMPLES) {
            const int px = satfeat_dg_corner(o.x + (double)w->ori_i[k + 6] * o.hs);
            const int py = satfeat_dg_corner(o.y + (double)w->ori_j[k + 6] * o.hs);
            const int x0 = satfeat_haar_clamp(px - o.half, 0, width);
            const int x1 = satfeat_haar_clamp(px + o.half, 0, width);
            for (int r = -1; r <= 1; r++) {
                const uint32_t *row = t + (size_t)satfeat_haar_clamp(py + r * o.half, 0, height) * st;
                __builtin_prefetch(row + x0);
                __builtin_prefetch(row + x1);
            }
        }
#endif
        double dx, dy;
        int bin;
        satfeat_ori_sample(t, st, width, height, &o, w, k, &dx, &dy, &bin);
        bx[bin] += dx;
        by[bin] += dy;
        wx[k] = dx;
        wy[k] = dy;
    }
    double best = -1.0, bsx = 0.0, bsy = 0.0;
    for (int k = 0; k < SATFEAT_ORI_BINS; k++) {
        double sx, sy;
        satfeat_ori_window(bx, by, k, &sx, &sy);
        const double n2 = satfeat_ori_norm2(sx, sy);
        if (n2 > best) {
            best = n2;
            bsx = sx;
            bsy = sy;
        }
    }
    const double a = satfeat_am_angle(bsy, bsx);
    return w->ori_refine ? satfeat_ori_refine(wx, wy, SATFEAT_ORI_SAMPLES, a) : a;
}

#endif
