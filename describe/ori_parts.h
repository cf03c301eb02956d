/* ori_parts.h - a weighted orientation response split into two int32 parts, so that a bin's
 * exact sum can be formed with 32-bit shared-memory atomics, which are native where a 64-bit add
 * is a compare-and-swap loop (the CUDA orientation kernel; tested on the CPU in
 * tests/test_describe_math.c).
 *
 * A weighted response is v = q * d with q = g * 2^14 <= 2^14 and |d| <= 2.04e9 (orientation.h),
 * so |v| < 2^45. Its low part lo is the low SATFEAT_ORI_LO_BITS = 23 bits of v read as a signed
 * number, lo in [-2^22, 2^22), and its high part hi = (v - lo) / 2^23, an exact integer with
 * |hi| < 2^22. Over at most SATFEAT_ORI_SAMPLES = 437 samples the low parts sum to less than
 * 437 * 2^22 < 2^31 in magnitude and the high parts to less than 437 * 3.99e6 < 2^31, so both
 * sums are exact in an int32 (no wrap) whatever the order of the additions, and the bin's sum is
 * hi_sum * 2^23 + lo_sum.
 * (hi is 0 exactly when -2^22 <= v < 2^22.) */
#ifndef SATFEAT_ORI_PARTS_H
#define SATFEAT_ORI_PARTS_H

#include "src/hd.h"

#include <stdint.h>

#define SATFEAT_ORI_LO_BITS 23

/** The signed low part of v: its low 23 bits as a number in [-2^22, 2^22). */
static inline SATFEAT_HD int32_t satfeat_ori_lo(int64_t v)
{
    const uint32_t low = (uint32_t)((uint64_t)v & ((1u << SATFEAT_ORI_LO_BITS) - 1u));
    const uint32_t half = 1u << (SATFEAT_ORI_LO_BITS - 1);
    return (int32_t)(low ^ half) - (int32_t)half;
}

/** The high part (v - lo) / 2^23 (exact: v - lo is a multiple of 2^23). */
static inline SATFEAT_HD int32_t satfeat_ori_hi(int64_t v, int32_t lo)
{
    return (int32_t)((v - (int64_t)lo) / ((int64_t)1 << SATFEAT_ORI_LO_BITS));
}

/** A sum from its parts' sums: hi_sum * 2^23 + lo_sum. */
static inline SATFEAT_HD int64_t satfeat_ori_join(int32_t hi_sum, int32_t lo_sum)
{
    return (int64_t)hi_sum * ((int64_t)1 << SATFEAT_ORI_LO_BITS) + (int64_t)lo_sum;
}

#endif
