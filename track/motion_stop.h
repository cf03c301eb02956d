/* motion_stop.h - the inlier ratio behind the adaptive stopping rule: RANSAC's ratio on all
 * points and PROSAC's best prefix (non-randomness test, Laplace estimate). One source for the CPU
 * search and the CUDA scoring kernels; the draw count that follows from the ratio
 * (satfeat_motion_iterations_needed, libm's log1p) is always taken on the host. */
#ifndef SATFEAT_MOTION_STOP_H
#define SATFEAT_MOTION_STOP_H

#include "src/hd.h"

#include <math.h>
#include <stdint.h>

/**
 * Smallest count of inliers among the first n positions that is unlikely to come from a wrong
 * model by chance (PROSAC's non-randomness test, normal approximation of the binomial with a
 * 5% chance per point of agreeing by accident and three standard deviations): m + beta n +
 * 3 sqrt(n beta (1 - beta)).
 */
static inline SATFEAT_HD double satfeat_motion_nonrandom_min(uint64_t n, int m)
{
    const double beta = 0.05;
    const double dn = (double)n;
    return (double)m + beta * dn + 3.0 * sqrt(dn * beta * (1.0 - beta));
}

/** Shortest PROSAC prefix that offers its ratio: max(10 m, 20) positions. */
static inline SATFEAT_HD uint64_t satfeat_motion_min_prefix(int m)
{
    return (uint64_t)(10 * m) > 20 ? (uint64_t)(10 * m) : 20;
}

/**
 * Offers the prefix of `len` positions holding `in` inliers: when it passes the non-randomness
 * test and its Laplace estimate (in + 1) / (len + 2) exceeds the fraction *num / *den kept so far
 * (start from 0 / 1), it becomes the kept one. Fractions are compared exactly (len < 2^31), so
 * the largest one kept rounds to the largest of the rounded estimates, whatever the order of
 * the offers.
 */
static inline SATFEAT_HD void satfeat_motion_prefix_offer(uint64_t in, uint64_t len, int m,
                                                          uint64_t *num, uint64_t *den)
{
    if ((in + 1) * *den > *num * (len + 2) &&
        (double)in >= satfeat_motion_nonrandom_min(len, m)) {
        *num = in + 1;
        *den = len + 2;
    }
}

/** Keeps in (*num, *den) the larger of itself and the fraction (num2, den2) (both from
 * satfeat_motion_prefix_offer; 0 / 1 is none). */
static inline SATFEAT_HD void satfeat_motion_prefix_merge(uint64_t *num, uint64_t *den,
                                                          uint64_t num2, uint64_t den2)
{
    if (num2 * *den > *num * den2) {
        *num = num2;
        *den = den2;
    }
}

/** The best prefix seen by one part of a parallel offer: the fraction num / den as
 * satfeat_motion_prefix_offer keeps it (0 / 1: none) and the prefix length that gave it. */
typedef struct satfeat_motion_prefix_best {
    uint64_t num, den, len;
} satfeat_motion_prefix_best;

/** satfeat_motion_prefix_offer on *best, remembering the length of the prefix kept. */
static inline SATFEAT_HD void satfeat_motion_prefix_offer_at(uint64_t in, uint64_t len, int m,
                                                             satfeat_motion_prefix_best *best)
{
    uint64_t num = best->num, den = best->den;
    satfeat_motion_prefix_offer(in, len, m, &num, &den);
    if (num != best->num || den != best->den) {
        best->num = num;
        best->den = den;
        best->len = len;
    }
}

/**
 * Keeps in *a the better of *a and b: the larger fraction, and of equal ones the shorter
 * prefix. Parts that each offered their prefixes in increasing length, merged in any order, so
 * end with the fraction and representation the sequential offer in prefix order keeps (the
 * first of the largest).
 */
static inline SATFEAT_HD void satfeat_motion_prefix_keep(satfeat_motion_prefix_best *a,
                                                         satfeat_motion_prefix_best b)
{
    const uint64_t l = b.num * a->den, r = a->num * b.den;
    if (l > r || (l == r && b.num != 0 && (a->num == 0 || b.len < a->len))) *a = b;
}

/**
 * The ratio the stopping rule uses: inliers / n, or the kept prefix estimate num / den when it
 * is higher (num 0: no prefix qualified).
 */
static inline SATFEAT_HD double satfeat_motion_stop_ratio(uint64_t inliers, uint64_t n,
                                                          uint64_t num, uint64_t den)
{
    const double ratio = (double)inliers / (double)n;
    if (num == 0) return ratio;
    const double r = (double)num / (double)den;
    return r > ratio ? r : ratio;
}

#endif
