/* descriptor_distance.h - the squared L2 distance of two descriptors in float with one fixed
 * order of operations, shared by the CPU matcher (scalar and AVX paths) and the CUDA kernels.
 *
 * Order: 8 partial sums, lane k (k = 0..7) accumulating dims k, k+8, k+16, ... in increasing
 * order, s_k = (...((0 + t_k*t_k) + t_{k+8}*t_{k+8}) + ...) with t_d = a[d] - b[d] (one rounded
 * subtraction, one rounded product, one rounded addition; never a fused multiply-add), then
 * the fixed tree  ((s0 + s4) + (s2 + s6)) + ((s1 + s5) + (s3 + s7)).
 * An 8-wide vector holds the 8 lanes on the CPU (folding its two halves, then the pairs 0/2
 * and 1/3, is exactly this tree); one GPU thread runs the lanes one after another. dim must be
 * a multiple of 8 (64 or 128 here). */
#ifndef SATFEAT_DESCRIPTOR_DISTANCE_H
#define SATFEAT_DESCRIPTOR_DISTANCE_H

#include "src/hd.h"

#define SATFEAT_DESC_LANES 8

/** Partial sum of lane k: dims k, k+8, ... of a and b, in increasing order. */
static inline SATFEAT_HD float satfeat_desc_lane_sum(const float *a, const float *b, int dim,
                                                     int k)
{
    float s = 0.0f;
    for (int d = k; d < dim; d += SATFEAT_DESC_LANES) {
        const float t = a[d] - b[d];
        s = s + t * t;
    }
    return s;
}

/** The fixed combination tree of the 8 lane sums. */
static inline SATFEAT_HD float satfeat_desc_combine(float s0, float s1, float s2, float s3,
                                                    float s4, float s5, float s6, float s7)
{
    return ((s0 + s4) + (s2 + s6)) + ((s1 + s5) + (s3 + s7));
}

/** Squared L2 distance of two descriptors of `dim` floats in the order above. */
static inline SATFEAT_HD float satfeat_desc_dist_sq(const float *a, const float *b, int dim)
{
    float s[SATFEAT_DESC_LANES];
    for (int k = 0; k < SATFEAT_DESC_LANES; k++) s[k] = satfeat_desc_lane_sum(a, b, dim, k);
    return satfeat_desc_combine(s[0], s[1], s[2], s[3], s[4], s[5], s[6], s[7]);
}

#endif
