/* angle_math.h - atan2, sin and cos built from IEEE +, -, *, / only (plus floor), so the CPU
 * and CUDA compute the same bits; absolute error below 1e-12 rad (tests/test_describe_math.c
 * compares them with libm over dense sweeps).
 *
 * atan: reduced to [0, 1] by symmetry, then to [0, tan(pi/12)] by the addition formula with
 * tan(pi/6), then a degree-19 odd Taylor polynomial (truncation below 1e-13). sin/cos: reduced to
 * [-pi/4, pi/4] by the nearest multiple of pi/2 (pi/2 in two parts), Taylor polynomials of
 * degree 15 / 16. Every expression is evaluated in the order written (no fma contraction). */
#ifndef SATFEAT_ANGLE_MATH_H
#define SATFEAT_ANGLE_MATH_H

#include "src/hd.h"

#include <math.h>

#define SATFEAT_AM_PI 3.14159265358979323846
#define SATFEAT_AM_2PI 6.28318530717958647692

/**
 * The odd series of atan on [0, tan 15 deg] in Horner form: with p = -1/19 and z = t*t on entry,
 * leaves p such that atan(t) = t + t*p. Written once for the scalar code below and the 4-lane
 * CPU code (describe_vec.h), whose lanes must run the same operations in the same order.
 */
#define SATFEAT_AM_ATAN_HORNER(p, z)                                                           \
    do {                                                                                       \
        p = p * z + 1.0 / 17.0;                                                                \
        p = p * z - 1.0 / 15.0;                                                                \
        p = p * z + 1.0 / 13.0;                                                                \
        p = p * z - 1.0 / 11.0;                                                                \
        p = p * z + 1.0 / 9.0;                                                                 \
        p = p * z - 1.0 / 7.0;                                                                 \
        p = p * z + 1.0 / 5.0;                                                                 \
        p = p * z - 1.0 / 3.0;                                                                 \
        p = p * z;                                                                             \
    } while (0)

/** atan(t) for t in [0, 1]. */
static inline SATFEAT_HD double satfeat_am_atan01(double t)
{
    const double sqrt3 = 1.7320508075688772935;
    const double tan15 = 0.26794919243112270647; /* tan(pi/12) = 2 - sqrt(3) */
    double base = 0.0;
    if (t > tan15) {
        t = (t * sqrt3 - 1.0) / (t + sqrt3); /* atan(t) = pi/6 + atan(this) */
        base = SATFEAT_AM_PI / 6.0;
    }
    const double z = t * t;
    double p = -1.0 / 19.0;
    SATFEAT_AM_ATAN_HORNER(p, z);
    return base + (t + t * p);
}

/**
 * atan2(y, x) in (-pi, pi]; 0 for (0, 0) and for NaN input. The sign tests are comparisons, so
 * -0.0 counts as non-negative.
 */
static inline SATFEAT_HD double satfeat_am_atan2(double y, double x)
{
    const double ax = x < 0.0 ? -x : x, ay = y < 0.0 ? -y : y;
    if (!(ax > 0.0 || ay > 0.0)) return 0.0; /* zero vector or NaN */
    if (!(ax <= 1.0e300 && ay <= 1.0e300)) return 0.0; /* inf or NaN */
    double a = ay <= ax ? satfeat_am_atan01(ay / ax)
                        : SATFEAT_AM_PI / 2.0 - satfeat_am_atan01(ax / ay);
    if (x < 0.0) a = SATFEAT_AM_PI - a;
    return y < 0.0 ? -a : a;
}

/** atan2(y, x) mapped to [0, 2*pi) (the keypoint angle convention). */
static inline SATFEAT_HD double satfeat_am_angle(double y, double x)
{
    double a = satfeat_am_atan2(y, x);
    if (a < 0.0) a += SATFEAT_AM_2PI;
    if (!(a < SATFEAT_AM_2PI)) a = 0.0; /* -tiny + 2*pi can round up to 2*pi */
    return a;
}

/**
 * sin(a) and cos(a) for |a| <= 1e6 (other values, NaN included, are treated as 0, so the result
 * is always finite); sin(0) = 0 and cos(0) = 1 exactly.
 */
static inline SATFEAT_HD void satfeat_am_sincos(double a, double *s, double *c)
{
    if (!(a >= -1.0e6 && a <= 1.0e6)) a = 0.0;
    const double pio2_hi = 1.5707963267948966192, pio2_lo = 6.123233995736766036e-17;
    const double q = floor(a * (2.0 / SATFEAT_AM_PI) + 0.5);
    const double r = (a - q * pio2_hi) - q * pio2_lo;
    const double z = r * r;
    double ps = 1.0 / 1307674368000.0; /* 1/15! */
    ps = -ps * z + 1.0 / 6227020800.0;
    ps = ps * z - 1.0 / 39916800.0;
    ps = ps * z + 1.0 / 362880.0;
    ps = ps * z - 1.0 / 5040.0;
    ps = ps * z + 1.0 / 120.0;
    ps = ps * z - 1.0 / 6.0;
    const double sr = r + (r * z) * ps;
    double pc = 1.0 / 20922789888000.0; /* 1/16! */
    pc = pc * z - 1.0 / 87178291200.0;
    pc = pc * z + 1.0 / 479001600.0;
    pc = pc * z - 1.0 / 3628800.0;
    pc = pc * z + 1.0 / 40320.0;
    pc = pc * z - 1.0 / 720.0;
    pc = pc * z + 1.0 / 24.0;
    pc = pc * z - 0.5;
    const double cr = 1.0 + z * pc;
    long n = (long)q % 4;
    if (n < 0) n += 4;
    switch (n) {
    case 0: *s = sr; *c = cr; break;
    case 1: *s = cr; *c = -sr; break;
    case 2: *s = -sr; *c = -cr; break;
    default: *s = -cr; *c = sr; break;
    }
}

#endif
