/* ori_bin_fast.h - the orientation bin of a Haar response (dx, dy) from a few float operations
 * instead of the double atan2 of orientation.h, with the same result whenever it answers: the
 * CUDA orientation kernel calls satfeat_ori_bin (orientation.h) only where this says -1.
 *
 * Method: by symmetry the bin follows from the octant and from phi = atan(mn / mx) in [0, 45]
 * degrees (mn = min(|dx|, |dy|), mx = max): j = the number of k in 1..8 with mn > mx tan(5k deg)
 * is the bin of phi, and the bin of the angle is j, 17 - j, 35 - j, ... by the octant. The ten
 * tests v_k = mn - mx T_k (T_0 = 0, T_1..8 = tan 5k deg, T_9 = 1) run in float (a fused
 * multiply-add each, the same on the CPU, where only the tests call it).
 *
 * Why the answer is the exact bin: mn, mx, T_k and each product / difference carry a relative
 * rounding of at most u = 2^-24, so |v_k - (mn - mx tan 5k)| <= 6u mx (mn <= mx, T_k <= 1; the
 * fused multiply-add rounds once, which only lowers it). The estimate answers only when every
 * |v_k| > 2^-16 mx (= 256u mx): then each sign is right and |mn / mx - tan 5k| > 250u, and since
 * d tan / d phi is in [1, 2] on [0, 45] degrees, phi is more than 125u = 7.4e-6 rad from every
 * bin boundary. The exact path (satfeat_ori_bin of the weighted pair g dx, g dy, g > 0) sees the
 * same direction up to 2^-52 rad, its atan2 errs by less than 1e-12 rad (angle_math.h) and the
 * scaling to bins adds below 1e-13 bin: far less than the margin, so both floors agree. The
 * boundaries at 0, 90, 180 and 270 degrees (mn near 0, also the 0 / 2 pi wrap and the clamp to
 * bin 71) and at 45 + 90k degrees (mn near mx) always go to the exact path, except exact axes
 * (mn == 0), whose bins are the exact function's bins of the unit vectors, and exact diagonals
 * (mn == mx, see below; nine in ten of the undecided responses of the boat images).
 * tests/test_describe_math.c compares it with the exact bin over dense sweeps and near every
 * boundary. */
#ifndef SATFEAT_ORI_BIN_FAST_H
#define SATFEAT_ORI_BIN_FAST_H

#include "describe/orientation.h"

#include <math.h>
#include <stdint.h>
#include <string.h>

/* The sign bit of v (1 for negative values and -0). */
static inline SATFEAT_HD int satfeat_ori_signbit(float v)
{
#ifdef __CUDA_ARCH__
    return (int)(__float_as_uint(v) >> 31);
#else
    uint32_t u;
    memcpy(&u, &v, sizeof u);
    return (int)(u >> 31);
#endif
}

/* One boundary test of satfeat_ori_bin_estimate: v_k = mn - mx T_k (one rounding), counted when
 * negative, and its magnitude joins the smallest margin seen (branch-free). */
#define SATFEAT_ORI_BIN_STEP(T)                                                                \
    do {                                                                                       \
        const float v_ = fmaf(-mxf, (T), mnf);                                                 \
        below += satfeat_ori_signbit(v_);                                                      \
        margin = fminf(margin, fabsf(v_));                                                     \
    } while (0)

/**
 * The bin satfeat_ori_bin(g * dy, g * dx) gives for any weight g > 0, or -1 where the estimate
 * is too close to a bin boundary to decide (then the caller uses satfeat_ori_bin). (0, 0) gives
 * -1 too (the exact function answers bin 0).
 *
 * Written without branches (the CUDA kernel evaluates it for 32 responses at once): every test
 * v_k runs and the answer is kept only when the smallest |v_k| (k = 0..8, v_0 = mn) exceeds the
 * margin (so no v_k is zero, and j = 8 - the count of negative v_k) and the response is not
 * within the margin of a diagonal. v_k does not increase with k (T_k increases and rounding is
 * monotone), so j is the count of boundaries below phi. Exact diagonals (|dx| == |dy| != 0) are
 * decided: the exact path sees |g dx| == |g dy| (rounding is symmetric in the sign), so its ratio
 * is exactly 1 and its bin is that of (sign dx, sign dy), which is the octant formula's bin with
 * j = 8. Exact axes get the exact bins of the unit vectors, 0, 18, 36 and 54. Both facts are
 * checked against satfeat_ori_bin by tests/test_describe_math.c.
 */
static inline SATFEAT_HD int satfeat_ori_bin_estimate(int32_t dx, int32_t dy)
{
    const uint32_t ax = dx < 0 ? 0u - (uint32_t)dx : (uint32_t)dx;
    const uint32_t ay = dy < 0 ? 0u - (uint32_t)dy : (uint32_t)dy;
    const int direct = ay <= ax; /* phi measured from the x axis */
    const uint32_t mn = direct ? ay : ax, mx = direct ? ax : ay;
    const float mnf = (float)mn, mxf = (float)mx, eps = mxf * 0x1p-16f;
    float margin = mnf; /* |v_0|: the distance from the axis */
    int below = 0;
    SATFEAT_ORI_BIN_STEP(0.08748866352592401f);
    SATFEAT_ORI_BIN_STEP(0.17632698070846498f);
    SATFEAT_ORI_BIN_STEP(0.2679491924311227f);
    SATFEAT_ORI_BIN_STEP(0.36397023426620234f);
    SATFEAT_ORI_BIN_STEP(0.4663076581549986f);
    SATFEAT_ORI_BIN_STEP(0.5773502691896257f);
    SATFEAT_ORI_BIN_STEP(0.7002075382097097f);
    SATFEAT_ORI_BIN_STEP(0.8390996311772799f);
    const int j = 8 - below;
    const int a = direct ? j : 17 - j;     /* bin of atan2(|dy|, |dx|) in [0, 90) degrees */
    const int t = dx < 0 ? 35 - a : a;     /* bin of atan2(|dy|, dx) in [0, 180) */
    const int bin = dy < 0 ? 71 - t : t;   /* bin of the angle in [0, 360) */
    const int axis = direct ? (dx > 0 ? 0 : 36) : (dy > 0 ? 18 : 54);
    const int decided = margin > eps && (mn == mx || mxf - mnf > eps);
    return mx == 0 ? -1 : (mn == 0 ? axis : (decided ? bin : -1));
}

#undef SATFEAT_ORI_BIN_STEP

#endif
