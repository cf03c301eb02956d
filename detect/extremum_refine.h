/* extremum_refine.h - 3x3x3 non-maximum suppression, the quadratic (Brown-Lowe) refinement and the
 * keypoint built from one candidate, on double response maps (shared by extrema_cpu.c and
 * octave_kernel.cu).
 *
 * All arithmetic is IEEE double +, -, * and / in the order written (no fma: host code is built
 * with -ffp-contract=off, device code with --fmad=false), no libm call, so the CPU and the CUDA
 * detector compute identical bits. */
#ifndef SATFEAT_FH_EXTREMUM_H
#define SATFEAT_FH_EXTREMUM_H

#include "src/hd.h"
#include "detect/hessian_response.h"
#include "satfeat.h"
#include "detect/scale_space.h"

#include <stddef.h>
#include <stdint.h>
#include <string.h>

/**
 * 1 when the centre value mid[0] is strictly greater than its 26 neighbours: the 3x3 blocks
 * around lo[0], mid[0] and hi[0] (the same sample in the layers below and above), rows `st`
 * elements apart. Equal neighbours suppress (plateaus give no keypoint). A row of the three
 * layers is judged at a time with non-short-circuit operators, so its nine reads can all be in
 * flight together (the GPU's shared-memory latency); the first row with a neighbour >= mid[0]
 * decides. (The value is the same in any order of the comparisons.)
 */
static inline SATFEAT_HD int satfeat_fh_is_max(const double *lo, const double *mid,
                                               const double *hi, ptrdiff_t st)
{
    const double v = mid[0];
    for (ptrdiff_t dy = -st; dy <= st; dy += st) {
        const int ok = (v > lo[dy - 1]) & (v > lo[dy]) & (v > lo[dy + 1]) & (v > hi[dy - 1]) &
                       (v > hi[dy]) & (v > hi[dy + 1]) & (v > mid[dy - 1]) &
                       ((dy == 0) | (v > mid[dy])) & (v > mid[dy + 1]);
        if (!ok) return 0;
    }
    return 1;
}

/**
 * The half of satfeat_fh_is_max that reads the sample's own layer and one neighbouring layer
 * `adj` only: mid[0] strictly above its 8 neighbours in its layer and the 9 samples of `adj`.
 * satfeat_fh_is_max(lo, mid, hi) is exactly is_max_two(mid, lo) && is_max_two(mid, hi), so a
 * sample that fails it is no maximum: the CUDA detector tests it before the other layer's
 * responses exist. Rows are judged as in satfeat_fh_is_max.
 */
static inline SATFEAT_HD int satfeat_fh_is_max_two(const double *mid, const double *adj,
                                                   ptrdiff_t st)
{
    const double v = mid[0];
    for (ptrdiff_t dy = -st; dy <= st; dy += st) {
        const int ok = (v > adj[dy - 1]) & (v > adj[dy]) & (v > adj[dy + 1]) &
                       (v > mid[dy - 1]) & ((dy == 0) | (v > mid[dy])) & (v > mid[dy + 1]);
        if (!ok) return 0;
    }
    return 1;
}

/**
 * Fits a quadratic to the 3x3x3 neighbourhood (finite differences in sample units) and solves
 * for the offset of its extremum in (x, y, layer): off = -H^-1 g by cofactors in a fixed order.
 * Returns 1 and writes off[3] when the system is regular and every |offset| <= max_offset.
 */
static inline SATFEAT_HD int satfeat_fh_refine(const double *lo, const double *mid,
                                               const double *hi, ptrdiff_t st, double max_offset,
                                               double off[3])
{
    const double v2 = mid[0] + mid[0];
    const double gx = (mid[1] - mid[-1]) * 0.5;
    const double gy = (mid[st] - mid[-st]) * 0.5;
    const double gs = (hi[0] - lo[0]) * 0.5;
    const double hxx = (mid[1] + mid[-1]) - v2;
    const double hyy = (mid[st] + mid[-st]) - v2;
    const double hss = (hi[0] + lo[0]) - v2;
    const double hxy = ((mid[st + 1] - mid[st - 1]) - (mid[-st + 1] - mid[-st - 1])) * 0.25;
    const double hxs = ((hi[1] - hi[-1]) - (lo[1] - lo[-1])) * 0.25;
    const double hys = ((hi[st] - hi[-st]) - (lo[st] - lo[-st])) * 0.25;
    /* cofactors of the symmetric Hessian */
    const double cxx = hyy * hss - hys * hys;
    const double cxy = hxs * hys - hxy * hss;
    const double cxs = hxy * hys - hyy * hxs;
    const double cyy = hxx * hss - hxs * hxs;
    const double cys = hxy * hxs - hxx * hys;
    const double css = hxx * hyy - hxy * hxy;
    const double det = (hxx * cxx + hxy * cxy) + hxs * cxs;
    if (!(det != 0.0) || det - det != 0.0) return 0; /* singular, or inf/nan */
    const double ox = -((cxx * gx + cxy * gy) + cxs * gs) / det;
    const double oy = -((cxy * gx + cyy * gy) + cys * gs) / det;
    const double os = -((cxs * gx + cys * gy) + css * gs) / det;
    const double m = max_offset;
    if (!(ox <= m && ox >= -m && oy <= m && oy >= -m && os <= m && os >= -m)) return 0;
    off[0] = ox;
    off[1] = oy;
    off[2] = os;
    return 1;
}

/** Keypoint position and scale from the sample (kx, ky), the octave's step and layer sides. */
static inline SATFEAT_HD void satfeat_fh_fields(int kx, int ky, int step, int side, int side_step,
                                                const double off[3], double *x, double *y,
                                                double *size, double *sigma)
{
    *x = ((double)kx + off[0]) * (double)step;
    *y = ((double)ky + off[1]) * (double)step;
    *size = (double)side + off[2] * (double)side_step;
    *sigma = (*size * 1.2) / 9.0;
}

/**
 * Octave ownership: adjacent octaves overlap in scale, so one blob can be found twice. Octave o
 * gives up a keypoint whose interpolated size reaches the lower end of octave o+1's middle-layer
 * range (the side of its layer 1 minus half a layer step) when that octave exists and could
 * detect at this position (the point lies in its NMS region); octave o+1 then reports it. So
 * every scale belongs to exactly one octave, except near borders the coarser octave cannot
 * reach. Returns 1 when octave `octave` keeps the keypoint.
 */
static inline SATFEAT_HD int satfeat_fh_owned(double x, double y, double size, int octave,
                                              int octaves, int init_step, int width, int height)
{
    if (octave + 1 >= octaves) return 1;
    const int next = octave + 1;
    const double start = (double)satfeat_fh_side(next, 1) - (double)(satfeat_fh_side_step(next) / 2);
    if (size < start) return 1;
    const int step = satfeat_fh_step(init_step, next), side = satfeat_fh_side(next, 2);
    satfeat_fh_rect r;
    if (!satfeat_fh_sample_rect(width, height, step, side, 1, &r)) return 1;
    return !(x >= (double)(r.x0 * step) && x <= (double)(r.x1 * step) &&
             y >= (double)(r.y0 * step) && y <= (double)(r.y1 * step));
}

/** The middle layer a keypoint is built on (from the CPU layer record or the GPU plan). */
typedef struct satfeat_fh_kp_layer {
    int octave, layer, lobe, side, side_step, step;
} satfeat_fh_kp_layer;

/** The frame-wide rules of keypoint building. */
typedef struct satfeat_fh_kp_rules {
    double max_offset;
    int unique_scales, octaves, init_step, width, height;
} satfeat_fh_kp_rules;

/**
 * Builds the keypoint of the strict maximum at sample (kx, ky) of layer `ly` (lo, mid, hi point
 * at the sample in the layers below, at and above, rows `st` apart): quadratic refinement,
 * position and scale, octave ownership, response, Laplacian sign from the table (row stride
 * `sat_st` elements). Returns 1 and fills *kp (every byte, padding included), or 0 when the fit
 * is rejected or a coarser octave owns the keypoint.
 */
static inline SATFEAT_HD int satfeat_fh_build_keypoint(const double *lo, const double *mid,
                                                       const double *hi, ptrdiff_t st, int kx,
                                                       int ky, const satfeat_fh_kp_layer *ly,
                                                       const satfeat_fh_kp_rules *rules,
                                                       const uint32_t *sat, size_t sat_st,
                                                       satfeat_keypoint *kp)
{
    double off[3];
    if (!satfeat_fh_refine(lo, mid, hi, st, rules->max_offset, off)) return 0;
    memset(kp, 0, sizeof *kp); /* padding too, so lists compare with memcmp */
    satfeat_fh_fields(kx, ky, ly->step, ly->side, ly->side_step, off, &kp->x, &kp->y, &kp->size,
                      &kp->sigma);
    if (rules->unique_scales &&
        !satfeat_fh_owned(kp->x, kp->y, kp->size, ly->octave, rules->octaves, rules->init_step,
                          rules->width, rules->height))
        return 0;
    kp->response = mid[0];
    kp->laplacian = satfeat_fh_laplacian(
        satfeat_fh_filters(sat, sat_st, kx * ly->step, ky * ly->step, ly->lobe));
    kp->octave = ly->octave;
    kp->layer = ly->layer;
    kp->sample_x = kx;
    kp->sample_y = ky;
    return 1;
}

#endif
