/* orientation.h - the dominant orientation of a keypoint from derivative samples on the u32 table
 * (after Bay et al. 2008, 4.1, with a finer grid, a smaller or an isotropic filter, which
 * measured better in bench/descriptor_study.c and docs/EVALUATION.md). Two filters
 * (w->ori_filter):
 *  - Scharr (the default): 109 samples on the grid of step s within radius 6s, each Scharr's
 *    3, 10, 3 on a 3 x 3 grid of box sums of side 3s (scharr.h; an even side, the half side
 *    rounded, at most 2 SATFEAT_SCHARR_MAX_HALF). Its directions lean less to the image axes
 *    than a Haar pair's; on the grid of step s/2 it scored only slightly more, at four times
 *    the samples (docs/EVALUATION.md);
 *  - Haar (SURF's; AR and the tracker): 437 samples on the grid of step s/2 within radius 6s,
 *    Haar side w->ori_haar x s (2..4; 3s in SURF; rounded, describe_geom.h).
 * Each response is weighted by the Gaussian of sigma 2.5s (describe_weights.h) and goes into one
 * of 72 bins of 5 degrees by its angle; the window of pi/3 (12 consecutive bins, 72 start
 * positions) with the largest vector sum gives the angle atan2(sum dy, sum dx) in [0, 2 pi);
 * unless w->ori_refine is 0, that angle is refined once: the responses strictly within 30
 * degrees of it summed (a window centred on the angle rather than on bin edges), their angle
 * (satfeat_ori_refine).
 *
 * Exact sums, so any summation order gives the same bits (the CUDA kernel adds integers in the
 * order its atomics land): a weight g is a multiple of 2^-14 with g <= 1 (describe_weights.h), and
 * a response satisfies |dx|, |dy| <= 2.04e9 < 2^31 (Haar: 255 * 2 * half^2 with half <= 2000,
 * side at most 4s and the scale clamped to 1000; Scharr: 16 * 255 * (2h)^2 <= 1.07e9, h <= 256), so
 * g * dx is an exact double (15 by 31 significant bits) and a multiple of 2^-14, and any sum of
 * them has magnitude below (sum of the 437 weights, 147.38) * 2.04e9 < 3.01e11 < 2^39 and is a
 * multiple of 2^-14: an integer count of 2^-14 below 2^53, exact. Hence bin b (its samples summed
 * from 0.0), window k (bins k .. k+11 mod 72 from 0.0) and their integer images (sum of q * dx
 * with q = g * 2^14, then times 2^-14) are the same doubles whatever the order. The best window
 * is the first k (ascending) with the strictly largest sx*sx + sy*sy (rounded, computed the same
 * way on both backends). tests/test_describe_math.c checks the CPU's double sums against a plain
 * integer-sum reference on a full-contrast image at scales up to 240, for both filters. */
#ifndef SATFEAT_ORIENTATION_H
#define SATFEAT_ORIENTATION_H

#include "describe/angle_math.h"
#include "describe/describe_geom.h"
#include "describe/describe_weights.h"
#include "describe/haar.h"
#include "describe/scharr.h"

#include <stddef.h>
#include <stdint.h>

/** The side of the Scharr filter's boxes (their spacing) in units of s: 3 scored the highest
 *  tuning mean of 2, 2.5, 2.75, 3 and 3.5 (docs/EVALUATION.md). */
#define SATFEAT_ORI_SCHARR_SIDE 3.0

/** Per-keypoint constants of the orientation: position, scale, grid step s/2, the filter, the
 *  Haar half side and the Scharr half side. */
typedef struct satfeat_ori_setup {
    double x, y, s, hs;
    int filter, half, scharr_half;
} satfeat_ori_setup;

/** The orientation constants of a keypoint at (x, y) with Gaussian scale sigma, for the filter
 *  and Haar side of `w`. The Scharr half side is floor(1.5 s + 0.5) (satfeat_dg_half of 3 s),
 *  at least 1 and at most SATFEAT_SCHARR_MAX_HALF. */
static inline SATFEAT_HD satfeat_ori_setup satfeat_ori_prepare(double x, double y, double sigma,
                                                               const satfeat_describe_weights *w)
{
    satfeat_ori_setup o;
    o.x = satfeat_dg_coord(x);
    o.y = satfeat_dg_coord(y);
    o.s = satfeat_dg_scale(sigma);
    o.hs = 0.5 * o.s;
    o.filter = w->ori_filter == SATFEAT_ORI_FILTER_HAAR ? SATFEAT_ORI_FILTER_HAAR
                                                         : SATFEAT_ORI_FILTER_SCHARR;
    o.half = satfeat_dg_half((double)w->ori_haar * o.s);
    const int sh = satfeat_dg_half(SATFEAT_ORI_SCHARR_SIDE * o.s);
    o.scharr_half = sh > SATFEAT_SCHARR_MAX_HALF ? SATFEAT_SCHARR_MAX_HALF : sh;
    return o;
}

/** The response (not weighted) of orientation sample k, at the table corner nearest to
 *  (x + i s/2, y + j s/2): the Haar pair of satfeat_haar_xy or the derivative of
 *  satfeat_scharr_xy, as the setup's filter says. */
static inline SATFEAT_HD void satfeat_ori_response(const uint32_t *t, size_t st, int width,
                                                   int height, const satfeat_ori_setup *o,
                                                   const satfeat_describe_weights *w, int k,
                                                   int32_t *dx, int32_t *dy)
{
    const int cx = satfeat_dg_corner(o->x + (double)w->ori_i[k] * o->hs);
    const int cy = satfeat_dg_corner(o->y + (double)w->ori_j[k] * o->hs);
    if (o->filter == SATFEAT_ORI_FILTER_HAAR)
        satfeat_haar_xy(t, st, width, height, cx, cy, o->half, dx, dy);
    else
        satfeat_scharr_xy(t, st, width, height, cx, cy, o->scharr_half, dx, dy);
}

/** The bin of a weighted response: floor(angle * 72 / (2 pi)) of satfeat_am_angle(wdy, wdx)
 *  (angle in [0, 2 pi)), clamped to [0, 71]. */
static inline SATFEAT_HD int satfeat_ori_bin(double wdy, double wdx)
{
    const int b = (int)(satfeat_am_angle(wdy, wdx) * ((double)SATFEAT_ORI_BINS / SATFEAT_AM_2PI));
    return b < 0 ? 0 : (b >= SATFEAT_ORI_BINS ? SATFEAT_ORI_BINS - 1 : b);
}

/**
 * Orientation sample k: the response at position (x + i s/2, y + j s/2), weighted:
 * *wdx = g * dx, *wdy = g * dy, and its bin floor(angle * 72 / (2 pi)) (angle in [0, 2 pi)).
 */
static inline SATFEAT_HD void satfeat_ori_sample(const uint32_t *t, size_t st, int width,
                                                 int height, const satfeat_ori_setup *o,
                                                 const satfeat_describe_weights *w, int k,
                                                 double *wdx, double *wdy, int *bin)
{
    int32_t dx, dy;
    satfeat_ori_response(t, st, width, height, o, w, k, &dx, &dy);
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
    const satfeat_ori_setup o = satfeat_ori_prepare(x, y, sigma, w);
    const int n = w->ori_n;
    double bx[SATFEAT_ORI_BINS], by[SATFEAT_ORI_BINS];
    double wx[SATFEAT_ORI_SAMPLES], wy[SATFEAT_ORI_SAMPLES];
    for (int b = 0; b < SATFEAT_ORI_BINS; b++) bx[b] = by[b] = 0.0;
    for (int k = 0; k < n; k++) {
#if defined(__GNUC__) && !defined(__CUDACC__)
        /* the table reads miss the caches: ask for a later sample's rows early (no effect on
         * the result) */
        if (o.filter == SATFEAT_ORI_FILTER_HAAR && k + 6 < n) {
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
    return w->ori_refine ? satfeat_ori_refine(wx, wy, n, a) : a;
}

#endif
