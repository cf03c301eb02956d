/* hessian_response.h - the Fast-Hessian response of one sample: box sums from a u32 summed area
 * table, the Dxx / Dyy / Dxy box filters, and the normalised determinant with one rounding.
 *
 * Exactness argument (shared by the CPU and the CUDA detector):
 *  - A box sum is four u32 reads combined modulo 2^32; the true sum is below 2^31 for every
 *    filter allowed by scale_space.h, so the result is exact and fits an int32.
 *  - With lobe l, |Dxx|, |Dyy| <= 510*l*(2l-1) and |Dxy| <= 510*l^2, so the numerator
 *    N = 100*Dxx*Dyy - 81*Dxy^2 is an exact int64 (|N| < 2^62 for l <= 385).
 *  - The normalised response is N / (100 * 255^2 * L^4), rounded ONCE to the nearest double
 *    (ties to even). satfeat_fh_quotient computes that with integer operations only; where the
 *    layer's bound proves N and the denominator exact in double (4 octaves: every layer), the
 *    same value is one IEEE division of exact operands (satfeat_fh_response_fast), which is
 *    correctly rounded by definition. Both paths therefore return identical bits.
 * Host code is compiled with -ffp-contract=off and device code with --fmad=false, so no
 * multiply-add is fused anywhere here. */
#ifndef SATFEAT_FH_RESPONSE_H
#define SATFEAT_FH_RESPONSE_H

#include "src/hd.h"

#include <math.h>
#include <stddef.h>
#include <stdint.h>

/** The three box-filter responses of one sample (exact integers, intensities 0..255). */
typedef struct satfeat_fh_hessian {
    int32_t dxx, dyy, dxy;
} satfeat_fh_hessian;

/** Per-layer normalisation: the denominator 100 * 255^2 * L^4 and whether the fast path is exact. */
typedef struct satfeat_fh_norm {
    uint64_t den;  /* 6502500 * L^4 (< 2^64 for L <= 1155) */
    double den_d;  /* den as a double (exact when fast != 0) */
    double rcp_d;  /* 1 / den_d rounded to nearest (satfeat_fh_div_rcp) */
    int fast;      /* 1: every numerator of this layer and den are exact doubles */
} satfeat_fh_norm;

/** Sum of the pixels in [x0, x1) x [y0, y1) from a u32 table with row stride `st` elements. */
static inline SATFEAT_HD int32_t satfeat_fh_box(const uint32_t *t, size_t st, int x0, int y0,
                                                int x1, int y1)
{
    const uint32_t *r0 = t + (size_t)y0 * st, *r1 = t + (size_t)y1 * st;
    return (int32_t)(r1[x1] - r1[x0] - r0[x1] + r0[x0]);
}

/** Sum of the pixels in columns [x0, x1) between two table rows r0 (top) and r1 (bottom). */
static inline SATFEAT_HD int32_t satfeat_fh_box_rows(const uint32_t *r0, const uint32_t *r1,
                                                     int x0, int x1)
{
    return (int32_t)(r1[x1] - r1[x0] - r0[x1] + r0[x0]);
}

/**
 * The table rows the filters of lobe l centred on row y read, as row indices: they depend on the
 * row only. Dyy reads its whole filter (rows yy0, yy1) and its middle lobe (ym0, ym1); Dxx rows
 * xx0, xx1; Dxy its upper squares (q0, q1) and lower squares (q2, q3).
 */
typedef struct satfeat_fh_row_index {
    int yy0, yy1, ym0, ym1, xx0, xx1, q0, q1, q2, q3;
} satfeat_fh_row_index;

/** The row indices of the filters with lobe l centred on row y. */
static inline SATFEAT_HD satfeat_fh_row_index satfeat_fh_filter_row_index(int y, int l)
{
    const int r = (3 * l - 1) / 2; /* half side */
    const int h = (l - 1) / 2;     /* half lobe */
    satfeat_fh_row_index i;
    i.yy0 = y - r;
    i.yy1 = y + r + 1;
    i.ym0 = y - h;
    i.ym1 = y + h + 1;
    i.xx0 = y - l + 1;
    i.xx1 = y + l;
    i.q0 = y - l;
    i.q1 = y;
    i.q2 = y + 1;
    i.q3 = y + l + 1;
    return i;
}

/**
 * The filter formula, written once for both forms below. Dyy: a box 2l-1 wide and 3l high minus
 * 3 times its middle l rows (weights +1, -2, +1); Dxx is its transpose; Dxy: four l x l squares
 * around the centre with a one-pixel gap on the centre row and column, +1 top-left and
 * bottom-right, -1 top-right and bottom-left. BOX(A, B, X0, X1) is the sum of the pixels in
 * columns [X0, X1) between the rows named A (top) and B (bottom) of satfeat_fh_row_index; r and
 * h are the half side and the half lobe.
 */
#define SATFEAT_FH_FILTER_FORMULA(d, BOX, x, l, r, h)                                          \
    do {                                                                                       \
        (d).dyy = BOX(yy0, yy1, (x) - (l) + 1, (x) + (l)) -                                    \
                  3 * BOX(ym0, ym1, (x) - (l) + 1, (x) + (l));                                 \
        (d).dxx = BOX(xx0, xx1, (x) - (r), (x) + (r) + 1) -                                    \
                  3 * BOX(xx0, xx1, (x) - (h), (x) + (h) + 1);                                 \
        (d).dxy = (BOX(q0, q1, (x) - (l), (x)) + BOX(q2, q3, (x) + 1, (x) + (l) + 1)) -         \
                  (BOX(q0, q1, (x) + 1, (x) + (l) + 1) + BOX(q2, q3, (x) - (l), (x)));         \
    } while (0)

/** The row pointers of satfeat_fh_row_index: a row of samples computes them once. */
typedef struct satfeat_fh_rows {
    const uint32_t *yy0, *yy1, *ym0, *ym1, *xx0, *xx1, *q0, *q1, *q2, *q3;
} satfeat_fh_rows;

/** The rows of the filters with lobe l centred on row y of a table with row stride `st`. */
static inline SATFEAT_HD satfeat_fh_rows satfeat_fh_filter_rows(const uint32_t *t, size_t st,
                                                                int y, int l)
{
    const satfeat_fh_row_index i = satfeat_fh_filter_row_index(y, l);
    satfeat_fh_rows w;
    w.yy0 = t + (size_t)i.yy0 * st;
    w.yy1 = t + (size_t)i.yy1 * st;
    w.ym0 = t + (size_t)i.ym0 * st;
    w.ym1 = t + (size_t)i.ym1 * st;
    w.xx0 = t + (size_t)i.xx0 * st;
    w.xx1 = t + (size_t)i.xx1 * st;
    w.q0 = t + (size_t)i.q0 * st;
    w.q1 = t + (size_t)i.q1 * st;
    w.q2 = t + (size_t)i.q2 * st;
    w.q3 = t + (size_t)i.q3 * st;
    return w;
}

/**
 * Dxx, Dyy, Dxy of the filter with lobe l (side 3l) centred on column x of the rows `w` (the CPU
 * row loop); the filter must lie inside the image.
 */
static inline SATFEAT_HD satfeat_fh_hessian satfeat_fh_filters_at(const satfeat_fh_rows *w, int x,
                                                                  int l)
{
    const int r = (3 * l - 1) / 2, h = (l - 1) / 2;
    satfeat_fh_hessian d;
#define SATFEAT_FH_ROW_BOX(A, B, X0, X1) satfeat_fh_box_rows(w->A, w->B, X0, X1)
    SATFEAT_FH_FILTER_FORMULA(d, SATFEAT_FH_ROW_BOX, x, l, r, h);
#undef SATFEAT_FH_ROW_BOX
    return d;
}

/**
 * Dxx, Dyy, Dxy of the filter with lobe l centred on pixel (x, y), each box read by its row and
 * column indices (the GPU kernels: constant offsets into a shared-memory window stay shared
 * loads); the same formula and box sums as satfeat_fh_filters_at.
 */
static inline SATFEAT_HD satfeat_fh_hessian satfeat_fh_filters(const uint32_t *t, size_t st,
                                                               int x, int y, int l)
{
    const int r = (3 * l - 1) / 2, h = (l - 1) / 2;
    const satfeat_fh_row_index i = satfeat_fh_filter_row_index(y, l);
    satfeat_fh_hessian d;
#define SATFEAT_FH_INDEX_BOX(A, B, X0, X1) satfeat_fh_box(t, st, X0, i.A, X1, i.B)
    SATFEAT_FH_FILTER_FORMULA(d, SATFEAT_FH_INDEX_BOX, x, l, r, h);
#undef SATFEAT_FH_INDEX_BOX
    return d;
}

/** The exact numerator 100*Dxx*Dyy - 81*Dxy^2. */
static inline SATFEAT_HD int64_t satfeat_fh_numerator(satfeat_fh_hessian d)
{
    return 100 * (int64_t)d.dxx * (int64_t)d.dyy - 81 * (int64_t)d.dxy * (int64_t)d.dxy;
}

/** Sign of the Laplacian Dxx + Dyy: +1, -1, or 0 when it is zero. */
static inline SATFEAT_HD int satfeat_fh_laplacian(satfeat_fh_hessian d)
{
    int64_t tr = (int64_t)d.dxx + (int64_t)d.dyy;
    return tr > 0 ? 1 : (tr < 0 ? -1 : 0);
}

/**
 * num / den rounded once to the nearest double (ties to even), with integer operations only.
 * den > 0. Long division produces 54 significant quotient bits and a sticky bit; the scaling by
 * a power of two at the end is exact.
 */
static inline SATFEAT_HD double satfeat_fh_quotient(int64_t num, uint64_t den)
{
    if (num == 0) return 0.0;
    const int neg = num < 0;
    const uint64_t a = neg ? (uint64_t)0 - (uint64_t)num : (uint64_t)num;
    uint64_t m = a / den, rem = a % den; /* m < 2^54 because den >= 2^29 > 2^63 / 2^54 */
    int e = 0;
    while (m < ((uint64_t)1 << 53)) { /* append fraction bits until m has 54 bits */
        const uint64_t gap = den - rem;
        const uint64_t bit = rem >= gap; /* 2*rem >= den, without overflow */
        rem = bit ? rem - gap : rem + rem;
        m = (m << 1) | bit;
        e--;
    }
    while (m >= ((uint64_t)1 << 54)) { /* only for den < 2^9 (tests); keep the lost bit sticky */
        rem |= m & 1u;
        m >>= 1;
        e++;
    }
    const uint64_t round_bit = m & 1u;
    m >>= 1;
    e++;
    if (round_bit && (rem != 0 || (m & 1u))) m++;
    /* m <= 2^53 is exact in double; scale by 2^e exactly */
    double v = (double)m;
    while (e < -60) {
        v *= 0x1p-60;
        e += 60;
    }
    if (e < 0) v /= (double)((uint64_t)1 << -e);
    while (e > 0) {
        v *= 2.0;
        e--;
    }
    return neg ? -v : v;
}

/** Normalisation constants of a layer with lobe l: den = 100 * 255^2 * (3l)^4 and the fast flag. */
static inline SATFEAT_HD satfeat_fh_norm satfeat_fh_layer_norm(int l)
{
    const uint64_t L = (uint64_t)(3 * l);
    satfeat_fh_norm n;
    n.den = (uint64_t)6502500 * L * L * L * L;
    n.den_d = (double)n.den;
    n.rcp_d = 1.0 / n.den_d;
    /* odd part of den below 2^53 -> den is an exact double */
    uint64_t odd = n.den;
    while (!(odd & 1u)) odd >>= 1;
    const double lim = 9007199254740992.0; /* 2^53 */
    const double mxx = 510.0 * l * (2.0 * l - 1.0), mxy = 510.0 * l * (double)l;
    n.fast = odd < ((uint64_t)1 << 53) && 100.0 * mxx * mxx + 81.0 * mxy * mxy <= lim;
    return n;
}

/**
 * The fast path's numerator, valid when norm->fast: every product below is an exact integer in
 * double, so the numerator is exact.
 */
static inline SATFEAT_HD double satfeat_fh_numerator_fast(satfeat_fh_hessian d)
{
    return (100.0 * (double)d.dxx) * (double)d.dyy - (81.0 * (double)d.dxy) * (double)d.dxy;
}

/** The fast path's response: the exact numerator divided once (correctly rounded). */
static inline SATFEAT_HD double satfeat_fh_response_fast(satfeat_fh_hessian d, double den_d)
{
    return satfeat_fh_numerator_fast(d) / den_d;
}

/**
 * num / den rounded once to the nearest double, from rcp = 1 / den rounded to nearest, for an
 * integer |num| <= 2^53 and an integer den > 0, both exact doubles: the same bits as num / den
 * (the sign of a zero included) with two multiply-adds instead of a division. q = RN(num * rcp)
 * is within one ulp of num / den; by Markstein's theorem (rcp within half an ulp of 1/den, q
 * within one ulp of the quotient) the residual num - q * den is exact in a fused multiply-add and
 * RN(q + residual * rcp) is the correctly rounded quotient. No underflow or overflow can occur
 * at these magnitudes, and num / den never lies on a midpoint (a midpoint needs 54 significant
 * bits in num's odd part). A zero residual means q is the exact quotient and is returned as it
 * is, so that -0 stays -0. The GPU's fast layers divide this way with rcp computed once per
 * layer; the test compares it with the division on the CPU.
 */
static inline SATFEAT_HD double satfeat_fh_div_rcp(double num, double den, double rcp)
{
    const double q = num * rcp;
    const double r = fma(-q, den, num);
    return r == 0.0 ? q : fma(r, rcp, q);
}

/** satfeat_fh_response_fast through the layer's reciprocal (satfeat_fh_div_rcp): the same bits. */
static inline SATFEAT_HD double satfeat_fh_response_rcp(satfeat_fh_hessian d, double den_d,
                                                        double rcp_d)
{
    return satfeat_fh_div_rcp(satfeat_fh_numerator_fast(d), den_d, rcp_d);
}

/** The normalised response of one sample (either path; identical results). */
static inline SATFEAT_HD double satfeat_fh_response(satfeat_fh_hessian d, const satfeat_fh_norm *n)
{
    return n->fast ? satfeat_fh_response_fast(d, n->den_d)
                   : satfeat_fh_quotient(satfeat_fh_numerator(d), n->den);
}

#endif
