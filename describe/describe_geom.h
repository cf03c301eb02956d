/* describe_geom.h - the integer geometry shared by the orientation and the descriptor: the
 * scale s of a keypoint, Haar half-sides rounded to integers, and sample positions rounded to
 * table corners (CPU and CUDA, identical results). */
#ifndef SATFEAT_DESCRIBE_GEOM_H
#define SATFEAT_DESCRIBE_GEOM_H

#include "src/hd.h"

#include <math.h>

/** The keypoint's scale s = sigma, clamped to [0.5, 1000] (NaN gives 1) so that every side and
 *  position stays in range for garbage input. */
static inline SATFEAT_HD double satfeat_dg_scale(double sigma)
{
    if (!(sigma >= 0.5)) return sigma != sigma ? 1.0 : 0.5;
    return sigma > 1000.0 ? 1000.0 : sigma;
}

/** Half side of a Haar filter of side `side` (= 4s or 2s) rounded to an even integer >= 2:
 *  floor(side / 2 + 0.5), at least 1. */
static inline SATFEAT_HD int satfeat_dg_half(double side)
{
    const double h = floor(side * 0.5 + 0.5);
    return h < 1.0 ? 1 : (int)h;
}

/**
 * The table corner nearest to a position v in pixel-centre coordinates: v + 0.5 is the position
 * in corner coordinates, rounded as floor(. + 0.5). Clamped to [-2^28, 2^28] (NaN gives 0).
 */
static inline SATFEAT_HD int satfeat_dg_corner(double v)
{
    double c = floor((v + 0.5) + 0.5);
    if (!(c >= -268435456.0)) c = c != c ? 0.0 : -268435456.0;
    if (c > 268435456.0) c = 268435456.0;
    return (int)c;
}

/** A keypoint coordinate made safe for the sums: NaN gives 0, magnitudes are capped at 2^27. */
static inline SATFEAT_HD double satfeat_dg_coord(double v)
{
    if (!(v >= -134217728.0)) return v != v ? 0.0 : -134217728.0;
    return v > 134217728.0 ? 134217728.0 : v;
}

#endif
