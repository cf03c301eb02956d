/* motion_error.h - the MSAC term of one correspondence (its truncated squared forward error) and
 * the fixed summation order of a hypothesis' cost: one source for the CPU scorer
 * (motion_score.c) and the CUDA scoring kernel, so both get the same bits (double precision, no
 * contraction: -ffp-contract=off on the host, --fmad=false on the device).
 *
 * The order: the n correspondences form blocks of SATFEAT_MOTION_SCORE_BLOCK (64; the last one
 * shorter); in a block of len terms c[0..len), lane r (0..3) sums c[r], c[r + 4], ... over the
 * first 4 * (len / 4) terms from 0.0 in ascending order, and lane 0 then adds the remaining
 * len % 4 terms in order; the block's sum is (s0 + s1) + (s2 + s3); the cost is the blocks' sums
 * added to 0.0 in block order. Every term lies in [0, t2], so the partial costs never decrease:
 * a scan that stops once the partial cost exceeds a bound decides "cost < bound" as the full
 * sum does. */
#ifndef SATFEAT_MOTION_ERROR_H
#define SATFEAT_MOTION_ERROR_H

#include "src/hd.h"

#include <stdint.h>

/** Correspondences per block of the summation order. */
#define SATFEAT_MOTION_SCORE_BLOCK 64

/** Lanes (interleaved partial sums) per block of the summation order. */
#define SATFEAT_MOTION_SCORE_LANES 4

/**
 * MSAC term of (x, y) -> (u, v) under the homography h (row-major): the squared forward error
 * e^2 = |(h0 x + h1 y + h2, h3 x + h4 y + h5) / w - (u, v)|^2 with w = h6 x + h7 y + h8 when
 * w > 0 and e^2 < t2, else t2 (a point at or behind the horizon, or NaN, costs t2). Written as
 * selects so a loop over it vectorises.
 */
static inline SATFEAT_HD double satfeat_motion_term_projective(const double h[9], double x,
                                                               double y, double u, double v,
                                                               double t2)
{
    const double w = h[6] * x + h[7] * y + h[8];
    const double ex = (h[0] * x + h[1] * y + h[2]) / w - u;
    const double ey = (h[3] * x + h[4] * y + h[5]) / w - v;
    double e = ex * ex + ey * ey;
    e = w > 0.0 ? e : t2; /* also catches the NaN of w = 0 */
    return e < t2 ? e : t2;
}

/** MSAC term of (x, y) -> (u, v) under an affine or similarity h (w taken as 1): min(e^2, t2),
 * t2 for a NaN error. */
static inline SATFEAT_HD double satfeat_motion_term_affine(const double h[9], double x, double y,
                                                           double u, double v, double t2)
{
    const double ex = h[0] * x + h[1] * y + h[2] - u;
    const double ey = h[3] * x + h[4] * y + h[5] - v;
    const double e = ex * ex + ey * ey;
    return e < t2 ? e : t2;
}

/** The MSAC term of the model kind: projective (homography) or not. */
static inline SATFEAT_HD double satfeat_motion_term(const double h[9], int projective, double x,
                                                    double y, double u, double v, double t2)
{
    return projective ? satfeat_motion_term_projective(h, x, y, u, v, t2)
                      : satfeat_motion_term_affine(h, x, y, u, v, t2);
}

/**
 * Lane r's partial sum (see the order above) over one block of `len` (1..64) correspondences
 * sx[0..len) .. dy[0..len) under h. Adds to *count the number of its terms below t2 (inliers)
 * and sets bit j of *bits for each such term c[j].
 */
static inline SATFEAT_HD double satfeat_motion_lane_sum(const double h[9], int projective,
                                                        const double *sx, const double *sy,
                                                        const double *dx, const double *dy,
                                                        int len, int r, double t2,
                                                        unsigned *count, uint64_t *bits)
{
    const int lanes = SATFEAT_MOTION_SCORE_LANES;
    const int full = len / lanes * lanes;
    double s = 0.0;
    for (int j = r; j < full; j += lanes) {
        const double c = satfeat_motion_term(h, projective, sx[j], sy[j], dx[j], dy[j], t2);
        s += c;
        if (c < t2) {
            *count += 1u;
            *bits |= (uint64_t)1 << j;
        }
    }
    if (r == 0)
        for (int j = full; j < len; j++) {
            const double c = satfeat_motion_term(h, projective, sx[j], sy[j], dx[j], dy[j], t2);
            s += c;
            if (c < t2) {
                *count += 1u;
                *bits |= (uint64_t)1 << j;
            }
        }
    return s;
}

#endif
