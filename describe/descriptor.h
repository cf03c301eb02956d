/* descriptor.h - the SURF-64 / SURF-128 descriptor of one keypoint from the u32 table, in the
 * modified layout of Agrawal et al. 2008 (CenSurE's M-SURF; it matched better than the plain
 * layout of Bay et al. 2008 in bench/descriptor_study.c): a 24s x 24s window rotated by the
 * keypoint angle, 24 x 24 samples one s apart at offsets ((c - 11.5) s, (r - 11.5) s), Haar side
 * 4s (desc_haar in describe_weights.h; 3s in SURF; rounded, describe_geom.h), responses rotated
 * into the keypoint frame; 4 x 4 subregions of 9 x 9 samples starting every 5 samples
 * (neighbours overlap by 4), each sample weighted by the Gaussian of sigma 2.5s centred on its
 * subregion, each subregion's sums weighted by the Gaussian
 * of sigma 1.5 subregions centred on the window (describe_weights.h); unit L2 length (SURF), or
 * the signed square root of the L1-normalised values (root normalisation, unit L2 up to rounding).
 *
 * Layout: subregion q = 4 * qr + qc covers rows 5 qr .. 5 qr + 8 and columns 5 qc .. 5 qc + 8.
 *  dim 64 : values q*4 + {0,1,2,3} = sum dx, sum dy, sum |dx|, sum |dy|.
 *  dim 128: values q*8 + {0..7} = sum dx (dy < 0), sum dx (dy >= 0), sum |dx| (dy < 0),
 *           sum |dx| (dy >= 0), sum dy (dx < 0), sum dy (dx >= 0), sum |dy| (dx < 0),
 *           sum |dy| (dx >= 0)  (the extended SURF of Bay et al.: the dx terms split by the sign
 *           of dy, the dy terms by the sign of dx, both in the keypoint frame).
 * Fixed summation order (the CUDA kernel reproduces it exactly): a sample's term is
 * sub_w[its place in the subregion] * (rotated response); every subregion sum runs over its
 * 81 samples row by row, left to right, from 0.0, and is then multiplied by reg_w[q]; the
 * squared norm sums values 0 .. dim-1 in order from 0.0; each value is divided by sqrt(norm2)
 * in double and rounded to float once. Root normalisation (the default of the detector,
 * SATFEAT_DESCRIPTOR_NORM_ROOT): the L1 norm sums |values| 0 .. dim-1 in order from 0.0, each
 * value becomes sign(v) sqrt(|v| / L1) in double, rounded to float once. A window without any
 * response (flat image) gives the zero vector. */
#ifndef SATFEAT_DESCRIPTOR_H
#define SATFEAT_DESCRIPTOR_H

#include "describe/angle_math.h"
#include "describe/describe_geom.h"
#include "describe/describe_weights.h"
#include "describe/haar.h"

#include <math.h>
#include <stddef.h>
#include <stdint.h>

/** How many samples ahead the CPU path prefetches table rows. */
#ifndef SATFEAT_DESC_PREFETCH
#define SATFEAT_DESC_PREFETCH 6
#endif

/** Per-keypoint constants of the descriptor: position, scale, Haar half side, rotation. */
typedef struct satfeat_desc_setup {
    double x, y, s, c, sn;
    int half;
} satfeat_desc_setup;

/** The descriptor constants of a keypoint (angle ignored and taken as 0 when upright); `haar` is
 *  the Haar side in units of s (satfeat_describe_weights.desc_haar, 2..4: |dx|, |dy| <= 255 *
 *  2 * 2000^2 < 2^31 at the largest scale, 1000). */
static inline SATFEAT_HD satfeat_desc_setup satfeat_desc_prepare(double x, double y, double sigma,
                                                                 double angle, int upright,
                                                                 int haar)
{
    satfeat_desc_setup d;
    d.x = satfeat_dg_coord(x);
    d.y = satfeat_dg_coord(y);
    d.s = satfeat_dg_scale(sigma);
    d.half = satfeat_dg_half((double)haar * d.s);
    satfeat_am_sincos(upright ? 0.0 : angle, &d.sn, &d.c);
    return d;
}

/** The table corner (cx, cy) at which descriptor sample k = row * 24 + col is taken: the offset
 *  ((col - 11.5) s, (row - 11.5) s) rotated by the angle, added to the keypoint, rounded. */
static inline SATFEAT_HD void satfeat_desc_corner(const satfeat_desc_setup *d, int k, int *cx,
                                                  int *cy)
{
    const int row = k / SATFEAT_DESC_GRID, col = k - row * SATFEAT_DESC_GRID;
    const double u = ((double)col - 11.5) * d->s, v = ((double)row - 11.5) * d->s;
    *cx = satfeat_dg_corner(d->x + (d->c * u - d->sn * v));
    *cy = satfeat_dg_corner(d->y + (d->sn * u + d->c * v));
}

/**
 * Descriptor sample k: the Haar response at its corner (satfeat_desc_corner), rotated into the
 * keypoint frame (not weighted: the weight depends on the subregion that reads it):
 * *rx = c dx + sn dy, *ry = c dy - sn dx.
 */
static inline SATFEAT_HD void satfeat_desc_sample(const uint32_t *t, size_t st, int width,
                                                  int height, const satfeat_desc_setup *d, int k,
                                                  double *rx, double *ry)
{
    int cx, cy;
    satfeat_desc_corner(d, k, &cx, &cy);
    int32_t ix, iy;
    satfeat_haar_xy(t, st, width, height, cx, cy, d->half, &ix, &iy);
    const double dx = (double)ix, dy = (double)iy;
    *rx = d->c * dx + d->sn * dy;
    *ry = d->c * dy - d->sn * dx;
}

/**
 * One half of subregion q's sums from the 576 rotated samples rx[], ry[] (index row*24+col):
 * part 0 the dx sums, part 1 the dy sums (2 values for dim 64, 4 for dim 128), each term
 * weighted by sub_w, each sum then by reg_w[q], written to their places in vals[dim] (layout
 * in the file comment). The sign split of dim 128 tests the other component of the sample.
 */
static inline SATFEAT_HD void satfeat_desc_part(const double *rx, const double *ry,
                                                const satfeat_describe_weights *w, int q,
                                                int part, int dim, double *vals)
{
    const double *a = part ? ry : rx, *b = part ? rx : ry;
    const int r0 = (q / 4) * SATFEAT_DESC_STEP, c0 = (q % 4) * SATFEAT_DESC_STEP;
    double s_neg = 0.0, s_pos = 0.0, abs_neg = 0.0, abs_pos = 0.0;
    for (int r = 0; r < SATFEAT_DESC_SUB; r++)
        for (int c = 0; c < SATFEAT_DESC_SUB; c++) {
            const int k = (r0 + r) * SATFEAT_DESC_GRID + (c0 + c);
            const double v = w->sub_w[r * SATFEAT_DESC_SUB + c] * a[k], av = v < 0.0 ? -v : v;
            if (dim == 128 && b[k] < 0.0) {
                s_neg += v;
                abs_neg += av;
            } else {
                s_pos += v;
                abs_pos += av;
            }
        }
    const double g = w->reg_w[q];
    if (dim == 128) {
        double *o = vals + q * 8 + part * 4;
        o[0] = g * s_neg;
        o[1] = g * s_pos;
        o[2] = g * abs_neg;
        o[3] = g * abs_pos;
    } else {
        vals[q * 4 + part] = g * s_pos;
        vals[q * 4 + 2 + part] = g * abs_pos;
    }
}

/** Squared L2 norm of vals[0 .. dim-1], summed in index order from 0.0. */
static inline SATFEAT_HD double satfeat_desc_norm2(const double *vals, int dim)
{
    double n2 = 0.0;
    for (int i = 0; i < dim; i++) n2 += vals[i] * vals[i];
    return n2;
}

/** L1 norm of vals[0 .. dim-1]: the magnitudes summed in index order from 0.0. */
static inline SATFEAT_HD double satfeat_desc_norm1(const double *vals, int dim)
{
    double n1 = 0.0;
    for (int i = 0; i < dim; i++) n1 += vals[i] < 0.0 ? -vals[i] : vals[i];
    return n1;
}

/** The divisor of the normalisation: the L2 norm sqrt(norm2) (root == 0, SURF's unit vector) or
 *  the L1 norm (root != 0). Every lane of the CUDA kernel computes it the same way. */
static inline SATFEAT_HD double satfeat_desc_scale(const double *vals, int dim, int root)
{
    return root ? satfeat_desc_norm1(vals, dim) : sqrt(satfeat_desc_norm2(vals, dim));
}

/** Value i of the normalised descriptor, rounded to float once: vals[i] / scale (root == 0), or
 *  the signed square root sign(v) sqrt(|v| / scale) of the L1-normalised value (root != 0: the
 *  Hellinger kernel of RootSIFT; the result has unit L2 length up to rounding, since the squares
 *  sum to 1). 0 when scale is 0 (a flat window gives the zero vector); division and sqrt are
 *  correctly rounded on both backends. */
static inline SATFEAT_HD float satfeat_desc_value(const double *vals, int i, double scale, int root)
{
    if (!(scale > 0.0)) return 0.0f;
    const double v = vals[i];
    if (!root) return (float)(v / scale);
    const double r = sqrt((v < 0.0 ? -v : v) / scale);
    return (float)(v < 0.0 ? -r : r);
}

/**
 * The whole descriptor of one keypoint, sequentially (the CPU path): rx, ry are caller scratch
 * of SATFEAT_DESC_SAMPLES (576) doubles each, vals of `dim` doubles; writes dim floats to out,
 * normalised by satfeat_desc_value (root: the root normalisation, else unit L2).
 */
static inline void satfeat_descriptor(const uint32_t *t, size_t st, int width, int height,
                                      const satfeat_desc_setup *d,
                                      const satfeat_describe_weights *w, int dim, int root,
                                      double *rx, double *ry, double *vals, float *out)
{
    for (int k = 0; k < SATFEAT_DESC_SAMPLES; k++) {
#if defined(__GNUC__) && !defined(__CUDACC__) && SATFEAT_DESC_PREFETCH > 0
        /* the table reads miss the caches: ask for a later sample's rows early (no effect on
         * the result) */
        if (k + SATFEAT_DESC_PREFETCH < SATFEAT_DESC_SAMPLES) {
            int px, py;
            satfeat_desc_corner(d, k + SATFEAT_DESC_PREFETCH, &px, &py);
            const int h = d->half, x0 = satfeat_haar_clamp(px - h, 0, width);
            const int x1 = satfeat_haar_clamp(px + h, 0, width);
            for (int r = -1; r <= 1; r++) {
                const uint32_t *row = t + (size_t)satfeat_haar_clamp(py + r * h, 0, height) * st;
                __builtin_prefetch(row + x0);
                __builtin_prefetch(row + x1);
            }
        }
#endif
        satfeat_desc_sample(t, st, width, height, d, k, &rx[k], &ry[k]);
    }
    for (int q = 0; q < 16; q++) {
        satfeat_desc_part(rx, ry, w, q, 0, dim, vals);
        satfeat_desc_part(rx, ry, w, q, 1, dim, vals);
    }
    const double scale = satfeat_desc_scale(vals, dim, root);
    for (int i = 0; i < dim; i++) out[i] = satfeat_desc_value(vals, i, scale, root);
}

#endif
