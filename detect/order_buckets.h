/* order_buckets.h - the keys the CUDA detector orders and deduplicates its candidates by without
 * a device-wide sort (order_kernels.cu), written once for the kernels and the CPU test that
 * replays the algorithm against qsort (tests/test_order_buckets.c):
 *  - response buckets: a candidate's bucket is a monotone function of its response (the top bits
 *    of the IEEE pattern of a positive double: 2^SATFEAT_FH_BUCKET_BITS buckets per binade over
 *    SATFEAT_FH_BINADES binades from the threshold's up, larger responses sharing the top
 *    bucket), so the candidates of higher buckets all come first in the
 *    total order of keypoint_order.h and only candidates of one bucket need comparing;
 *  - duplicate cells: squares of SATFEAT_FH_DUP_CELL pixels; every near duplicate of a keypoint
 *    (keypoint_order.h: centres closer than half its sigma) lies in the cells its reach covers.
 * Integer and exact floating-point operations only (floor, division by a power of two). */
#ifndef SATFEAT_FH_ORDER_BUCKETS_H
#define SATFEAT_FH_ORDER_BUCKETS_H

#include "src/hd.h"

#include <math.h>
#include <stdint.h>
#include <string.h>

/** Buckets per binade of the response (2^7) and binades covered from the base up (16: responses
 * from the threshold to 65536 times it; normalised responses stay below about 1, so the default
 * threshold 0.0004 keeps every binade apart). 2048 buckets. */
#define SATFEAT_FH_BUCKET_BITS 7
#define SATFEAT_FH_BINADES 16
#define SATFEAT_FH_BUCKETS (SATFEAT_FH_BINADES << SATFEAT_FH_BUCKET_BITS)
/** Side in pixels of a duplicate-search cell. */
#define SATFEAT_FH_DUP_CELL 32

/** The top 11 + SATFEAT_FH_BUCKET_BITS bits of the IEEE pattern of v (sign included). */
static inline SATFEAT_HD uint32_t satfeat_fh_bucket_key(double v)
{
    uint64_t bits;
    memcpy(&bits, &v, sizeof bits);
    return (uint32_t)(bits >> (52 - SATFEAT_FH_BUCKET_BITS));
}

/**
 * The key of bucket 0 for a detector threshold: that of max(threshold, 2^-40), so that the
 * buckets span the SATFEAT_FH_BINADES binades from the threshold's up (smaller responses, with a
 * threshold below 2^-40, share bucket 0).
 */
static inline SATFEAT_HD uint32_t satfeat_fh_bucket_base(double threshold)
{
    const double floor_v = 0x1p-40;
    return satfeat_fh_bucket_key(threshold > floor_v ? threshold : floor_v);
}

/**
 * Bucket of a response > 0 (every candidate's: responses exceed a threshold >= 0): the key
 * relative to `base`, clamped to [0, SATFEAT_FH_BUCKETS - 1]. Monotone: a larger response never
 * has a smaller bucket (positive doubles order as their bit patterns; clamping keeps the order).
 */
static inline SATFEAT_HD uint32_t satfeat_fh_bucket(double response, uint32_t base)
{
    const uint32_t k = satfeat_fh_bucket_key(response);
    if (k <= base) return 0;
    const uint32_t d = k - base;
    return d < SATFEAT_FH_BUCKETS ? d : SATFEAT_FH_BUCKETS - 1;
}

/**
 * The bucket of a response in descending order (index 0 holds the largest responses): a scan of
 * counts in ascending index gives each bucket the position of its first candidate.
 */
static inline SATFEAT_HD uint32_t satfeat_fh_bucket_desc(double response, uint32_t base)
{
    return SATFEAT_FH_BUCKETS - 1u - satfeat_fh_bucket(response, base);
}

/** Descending buckets come in SATFEAT_FH_BUCKET_GROUPS groups of SATFEAT_FH_BUCKET_GROUP
 * consecutive indices; counts kept per bucket and per group give any bucket's prefix as at most
 * 32 + 64 terms (one load per lane and two per lane of one warp on the GPU), no scan. */
#define SATFEAT_FH_BUCKET_GROUPS 32
#define SATFEAT_FH_BUCKET_GROUP (SATFEAT_FH_BUCKETS / SATFEAT_FH_BUCKET_GROUPS)

/** Terms of a bucket's prefix: one per group, then one per bucket of a group. */
#define SATFEAT_FH_BUCKET_TERMS (SATFEAT_FH_BUCKET_GROUPS + SATFEAT_FH_BUCKET_GROUP)

/**
 * Term t (< SATFEAT_FH_BUCKET_TERMS) of the sum of count[0 .. k) for descending bucket k: for
 * t < SATFEAT_FH_BUCKET_GROUPS the count of group t if it lies before k's group (group_count),
 * else the count of bucket t - SATFEAT_FH_BUCKET_GROUPS of k's group if it lies before k; 0
 * otherwise. Every term depends on k only, so all can be loaded at once (the GPU's lane l takes
 * terms l, l + 32, l + 64). Unsigned sums, exact while the total fits 32 bits: the order in which
 * the terms are added does not matter.
 */
static inline SATFEAT_HD uint32_t satfeat_fh_bucket_prefix_term(const uint32_t *count,
                                                                const uint32_t *group_count,
                                                                uint32_t k, uint32_t t)
{
    const uint32_t g = k / SATFEAT_FH_BUCKET_GROUP;
    if (t < SATFEAT_FH_BUCKET_GROUPS) return t < g ? group_count[t] : 0u;
    const uint32_t b = g * SATFEAT_FH_BUCKET_GROUP + (t - SATFEAT_FH_BUCKET_GROUPS);
    return b < k ? count[b] : 0u;
}

/** The sum of count[0 .. k) for descending bucket k: every satfeat_fh_bucket_prefix_term. */
static inline SATFEAT_HD uint32_t satfeat_fh_bucket_prefix(const uint32_t *count,
                                                           const uint32_t *group_count, uint32_t k)
{
    uint32_t s = 0;
    for (uint32_t t = 0; t < SATFEAT_FH_BUCKET_TERMS; t++)
        s += satfeat_fh_bucket_prefix_term(count, group_count, k, t);
    return s;
}

/** Number of duplicate cells along a side of n pixels. */
static inline SATFEAT_HD int satfeat_fh_dup_cells(int n)
{
    return (n + SATFEAT_FH_DUP_CELL - 1) / SATFEAT_FH_DUP_CELL;
}

/** The duplicate cell of a coordinate: floor(v / SATFEAT_FH_DUP_CELL) clamped to [0, cells-1]
 * (NaN: 0). Monotone in v. */
static inline SATFEAT_HD int satfeat_fh_dup_cell(double v, int cells)
{
    const double c = floor(v / (double)SATFEAT_FH_DUP_CELL);
    if (!(c >= 0)) return 0;
    if (c > cells - 1) return cells - 1;
    return (int)c;
}

/**
 * The cell range [*c0, *c1] along one axis that holds every near duplicate of a keypoint at
 * coordinate v with duplicate reach r = 0.5 * sigma: the cells of v - r - 1 .. v + r + 1 (one
 * pixel of margin over the reach absorbs the rounding of the bounds).
 */
static inline SATFEAT_HD void satfeat_fh_dup_span(double v, double r, int cells, int *c0, int *c1)
{
    *c0 = satfeat_fh_dup_cell(v - r - 1.0, cells);
    *c1 = satfeat_fh_dup_cell(v + r + 1.0, cells);
}

/** The duplicate cell of a keypoint at (x, y) in a frame of cw x ch cells, row-major. */
static inline SATFEAT_HD uint32_t satfeat_fh_dup_cell_index(double x, double y, int cw, int ch)
{
    return (uint32_t)(satfeat_fh_dup_cell(y, ch) * cw + satfeat_fh_dup_cell(x, cw));
}

/**
 * The cells [*x0, *x1] x [*y0, *y1] that hold every near duplicate of a keypoint at (x, y) with
 * Gaussian scale sigma (satfeat_fh_dup_span of both axes, reach 0.5 * sigma). Returns 0, the
 * rectangle untouched, when the keypoint has no reach (sigma not > 0: no near duplicates).
 */
static inline SATFEAT_HD int satfeat_fh_dup_rect(double x, double y, double sigma, int cw, int ch,
                                                 int *x0, int *x1, int *y0, int *y1)
{
    const double reach = 0.5 * sigma;
    if (!(reach > 0.0)) return 0;
    satfeat_fh_dup_span(x, reach, cw, x0, x1);
    satfeat_fh_dup_span(y, reach, ch, y0, y1);
    return 1;
}

#endif
