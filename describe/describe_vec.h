/* describe_vec.h - 4-lane double vectors (GCC/Clang vector extensions, CPU only) and lane-wise
 * copies of the shared per-sample arithmetic of describe_geom.h and angle_math.h for the fast
 * CPU path: each lane performs exactly the IEEE operations of the scalar function in the same
 * order, with selects in place of branches, so every lane equals the scalar result bit for bit
 * (tests/test_describe_fast.c checks it against the scalar functions on dense sweeps). */
#ifndef SATFEAT_DESCRIBE_VEC_H
#define SATFEAT_DESCRIBE_VEC_H

#include "describe/angle_math.h"
#include "describe/describe_weights.h"

#include <stdint.h>

/* The helpers take and return 32-byte vectors by value; they are always inlined into their
 * callers (also into the AVX2 clones), so no call crosses the ABI that GCC's -Wpsabi note is
 * about: files including this header are compiled with -Wno-psabi (detect/sources.cmake). */
#define SF_VINLINE static inline __attribute__((always_inline))

typedef double sf_v4d __attribute__((vector_size(32)));
typedef long sf_v4l __attribute__((vector_size(32)));
typedef int sf_v4i __attribute__((vector_size(16)));

/** Lane-wise m ? a : b for a comparison mask m (all bits set or clear per lane). */
SF_VINLINE sf_v4d sf_sel(sf_v4l m, sf_v4d a, sf_v4d b)
{
    return (sf_v4d)(((sf_v4l)a & m) | ((sf_v4l)b & ~m));
}

/** A vector with all lanes v. */
SF_VINLINE sf_v4d sf_splat(double v)
{
    const sf_v4d r = {v, v, v, v};
    return r;
}

/** Lane-wise satfeat_dg_corner: floor((v + 0.5) + 0.5) clamped to [-2^28, 2^28], NaN gives 0.
 *  floor is taken after the clamp (the bounds are integers, so the result is the same) by
 *  truncation and a correction, exact in that range. */
SF_VINLINE sf_v4i sf_corner4(sf_v4d v)
{
    const sf_v4d lim = sf_splat(268435456.0), zero = sf_splat(0.0);
    sf_v4d t = (v + 0.5) + 0.5;
    t = sf_sel(t >= -lim, t, sf_sel(t != t, zero, -lim));
    t = sf_sel(t > lim, lim, t);
    const sf_v4i i = __builtin_convertvector(t, sf_v4i);
    const sf_v4d f = __builtin_convertvector(i, sf_v4d);
    return i + __builtin_convertvector(f > t, sf_v4i); /* -1 where truncation rounded up */
}

/** Lane-wise |v| as angle_math.h writes it: v < 0 ? -v : v (so -0.0 stays -0.0). */
SF_VINLINE sf_v4d sf_abs(sf_v4d v)
{
    return sf_sel(v < 0.0, -v, v);
}

/** Lane-wise orientation bin of the weighted response (*px, *py) as satfeat_ori_sample computes it:
 *  b = (int)(satfeat_am_angle(y, x) * (72 / (2 pi))) clamped to [0, 71]. Lanes that the scalar
 *  code answers early (zero vector, NaN, inf: angle 0) are computed anyway and then replaced. */
SF_VINLINE sf_v4i sf_ori_bin4(const sf_v4d *py, const sf_v4d *px)
{
    const sf_v4d zero = sf_splat(0.0), y = *py, x = *px;
    const sf_v4d ax = sf_abs(x), ay = sf_abs(y);
    const sf_v4l valid = ((ax > 0.0) | (ay > 0.0)) & ((ax <= 1.0e300) & (ay <= 1.0e300));
    const sf_v4l direct = ay <= ax;
    /* satfeat_am_atan01 of ay / ax (direct) or ax / ay */
    sf_v4d t = sf_sel(direct, ay, ax) / sf_sel(direct, ax, ay);
    const double sqrt3 = 1.7320508075688772935;
    const double tan15 = 0.26794919243112270647;
    const sf_v4l big = t > tan15;
    t = sf_sel(big, (t * sqrt3 - 1.0) / (t + sqrt3), t);
    const sf_v4d base = sf_sel(big, sf_splat(SATFEAT_AM_PI / 6.0), zero);
    const sf_v4d z = t * t;
    sf_v4d p = sf_splat(-1.0 / 19.0);
    SATFEAT_AM_ATAN_HORNER(p, z);
    const sf_v4d r = base + (t + t * p);
    /* the rest of satfeat_am_atan2, then satfeat_am_angle */
    sf_v4d a = sf_sel(direct, r, SATFEAT_AM_PI / 2.0 - r);
    a = sf_sel(x < 0.0, SATFEAT_AM_PI - a, a);
    a = sf_sel(y < 0.0, -a, a);
    a = sf_sel(a < 0.0, a + SATFEAT_AM_2PI, a);
    a = sf_sel(a < SATFEAT_AM_2PI, a, zero);
    a = sf_sel(valid, a, zero);
    sf_v4i b = __builtin_convertvector(a * ((double)SATFEAT_ORI_BINS / SATFEAT_AM_2PI), sf_v4i);
    const sf_v4i lo = {0, 0, 0, 0}, hi = {SATFEAT_ORI_BINS - 1, SATFEAT_ORI_BINS - 1,
                                          SATFEAT_ORI_BINS - 1, SATFEAT_ORI_BINS - 1};
    const sf_v4i under = b < lo;
    b = (lo & under) | (b & ~under);
    const sf_v4i over = b > hi;
    return (hi & over) | (b & ~over);
}

#endif
