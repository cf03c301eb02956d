/* hessian_chain.h - the box filters of samples one lobe apart down a column, with the table rows
 * that consecutive samples share read once (the CUDA octave kernel's step-1 octaves).
 *
 * The filters of lobe l centred on row y read Dyy's rows y-r, y-h, y+h+1, y+r+1 (r = l + h,
 * h = (l-1)/2) and Dxy's rows y-l, y, y+1, y+l+1 (hessian_response.h). For the sample l rows
 * down, Dyy's first three rows are the previous sample's last three and Dxy's rows q0 and q2 are
 * the previous q1 and q3. Each box sum splits into per-row differences of table entries (modulo
 * 2^32): Dyy's boxes are H(bottom) - H(top) with H(R) = T[R][x+l] - T[R][x-l+1]; Dxy is
 * P(q1) - P(q0) + P(q2) - P(q3) with P(R) = (T[R][x] - T[R][x-l]) - (T[R][x+l+1] - T[R][x+1])
 * (its left squares minus its right squares on row R). A chain keeps H and P of the rows the next
 * sample shares, so a sample after the first reads 18 table entries instead of 32: Dxx's 8, one
 * new Dyy row (2) and two new Dxy rows (8), and holds 8 row values from one sample to the next.
 *
 * Exactness: Dxx, Dyy and Dxy are computed modulo 2^32 from the same table entries with the same
 * signs as satfeat_fh_filters, only grouped differently, and their true values fit an int32
 * (hessian_response.h: every box sum and both filters' totals are bounded far below 2^31), so
 * the int32 results are identical to satfeat_fh_filters' for every table of an 8-bit image. The
 * table reads are a macro argument READ(row, col), rows and columns relative to the sample, so
 * that the kernel reads shared memory at constant offsets and the CPU test a plain array. */
#ifndef SATFEAT_FH_HESSIAN_CHAIN_H
#define SATFEAT_FH_HESSIAN_CHAIN_H

#include "detect/hessian_response.h"

/** The row values a sample of a chain hands on to the next (and the rows only it uses). */
typedef struct satfeat_fh_chain {
    uint32_t yy0, ym0, ym1, yy1; /* H on Dyy's rows: outer top, middle top, middle bottom, outer bottom */
    uint32_t p0, p1, p2, p3;     /* P on Dxy's rows q0..q3 */
} satfeat_fh_chain;

/** H and P of table row R (relative to the sample), lobe l. */
#define SATFEAT_FH_CHAIN_H(READ, R, l) ((uint32_t)(READ(R, (l)) - READ(R, 1 - (l))))
#define SATFEAT_FH_CHAIN_P(READ, R, l)                                                         \
    ((uint32_t)((READ(R, 0) - READ(R, -(l))) - (READ(R, (l) + 1) - READ(R, 1))))

/** The first sample of a chain: every row value read. */
#define SATFEAT_FH_CHAIN_START(c, READ, l)                                                     \
    do {                                                                                       \
        const satfeat_fh_row_index ci_ = satfeat_fh_filter_row_index(0, (l));                 \
        (c).yy0 = SATFEAT_FH_CHAIN_H(READ, ci_.yy0, l);                                        \
        (c).ym0 = SATFEAT_FH_CHAIN_H(READ, ci_.ym0, l);                                        \
        (c).ym1 = SATFEAT_FH_CHAIN_H(READ, ci_.ym1, l);                                        \
        (c).yy1 = SATFEAT_FH_CHAIN_H(READ, ci_.yy1, l);                                        \
        (c).p0 = SATFEAT_FH_CHAIN_P(READ, ci_.q0, l);                                          \
        (c).p1 = SATFEAT_FH_CHAIN_P(READ, ci_.q1, l);                                          \
        (c).p2 = SATFEAT_FH_CHAIN_P(READ, ci_.q2, l);                                          \
        (c).p3 = SATFEAT_FH_CHAIN_P(READ, ci_.q3, l);                                          \
    } while (0)

/** The next sample, l rows down (READ now relative to it): the shared rows move up, the new
 * outer bottom Dyy row and Dxy rows q1 and q3 are read. */
#define SATFEAT_FH_CHAIN_NEXT(c, READ, l)                                                      \
    do {                                                                                       \
        const satfeat_fh_row_index ci_ = satfeat_fh_filter_row_index(0, (l));                 \
        (c).yy0 = (c).ym0;                                                                     \
        (c).ym0 = (c).ym1;                                                                     \
        (c).ym1 = (c).yy1;                                                                     \
        (c).yy1 = SATFEAT_FH_CHAIN_H(READ, ci_.yy1, l);                                        \
        (c).p0 = (c).p1;                                                                       \
        (c).p2 = (c).p3;                                                                       \
        (c).p1 = SATFEAT_FH_CHAIN_P(READ, ci_.q1, l);                                          \
        (c).p3 = SATFEAT_FH_CHAIN_P(READ, ci_.q3, l);                                          \
    } while (0)

/** Dxx of the sample (no rows shared along a column): the boxes of hessian_response.h's formula,
 * combined modulo 2^32 like Dyy and Dxy below (so that a sample without a response, whose
 * window holds zeros, computes no signed overflow either). */
#define SATFEAT_FH_CHAIN_DXX(READ, l)                                                          \
    ((int32_t)((uint32_t)(READ((l), (3 * (l) - 1) / 2 + 1) - READ((l), -((3 * (l) - 1) / 2)) - \
                          READ(1 - (l), (3 * (l) - 1) / 2 + 1) +                               \
                          READ(1 - (l), -((3 * (l) - 1) / 2))) -                               \
               3u * (uint32_t)(READ((l), ((l) - 1) / 2 + 1) - READ((l), -(((l) - 1) / 2)) -    \
                               READ(1 - (l), ((l) - 1) / 2 + 1) +                              \
                               READ(1 - (l), -(((l) - 1) / 2)))))

/** Dxx, Dyy, Dxy of the chain's current sample, given its Dxx: the same int32 values as
 * satfeat_fh_filters. */
static inline SATFEAT_HD satfeat_fh_hessian satfeat_fh_chain_filters(const satfeat_fh_chain *c,
                                                                     int32_t dxx)
{
    satfeat_fh_hessian d;
    d.dyy = (int32_t)((c->yy1 - c->yy0) - 3u * (c->ym1 - c->ym0));
    d.dxx = dxx;
    d.dxy = (int32_t)((c->p1 - c->p0) + (c->p2 - c->p3));
    return d;
}

#endif
