/* motion_lanes.h - the fixed summation order of the refinement's least-squares sums (host only):
 * lane r (0..3) adds the terms of points r, r + 4, r + 8, ... below 4 * floor(k / 4) in ascending
 * order from 0.0, lane 0 then adds the last k % 4 terms in order, and the sum is
 * (s0 + s1) + (s2 + s3). The order is written out in the source, so every build (any compiler,
 * vectorised or not; -ffp-contract=off) gets the same bits, and the four independent chains let
 * the compiler vectorise the per-point work. Terms come in blocks of SATFEAT_MOTION_LANE_BLOCK
 * points (a multiple of 4), only the last one shorter. */
#ifndef SATFEAT_MOTION_LANES_H
#define SATFEAT_MOTION_LANES_H

#include <stddef.h>

/** Lanes of the order above. */
#define SATFEAT_MOTION_LANES 4

/** Points per block of per-point terms (a multiple of SATFEAT_MOTION_LANES). */
#define SATFEAT_MOTION_LANE_BLOCK 64

/** Adds the terms t[0..len) of one block to the lanes: t[j] to lane j % 4, the last len % 4
 * (the end of all terms) to lane 0. */
static inline void satfeat_motion_lanes_add(double lane[SATFEAT_MOTION_LANES], const double *t,
                                            size_t len)
{
    const size_t full = len / SATFEAT_MOTION_LANES * SATFEAT_MOTION_LANES;
    double s0 = lane[0], s1 = lane[1], s2 = lane[2], s3 = lane[3];
    for (size_t j = 0; j < full; j += SATFEAT_MOTION_LANES) {
        s0 += t[j];
        s1 += t[j + 1];
        s2 += t[j + 2];
        s3 += t[j + 3];
    }
    for (size_t j = full; j < len; j++) s0 += t[j];
    lane[0] = s0, lane[1] = s1, lane[2] = s2, lane[3] = s3;
}

/** The lanes' total in the fixed tree. */
static inline double satfeat_motion_lanes_total(const double lane[SATFEAT_MOTION_LANES])
{
    return (lane[0] + lane[1]) + (lane[2] + lane[3]);
}

#endif
