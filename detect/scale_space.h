/* scale_space.h - the Fast-Hessian scale space: filter sides, lobes, steps and the sample ranges
 * where a filter (or a 3x3x3 neighbourhood) lies inside the image. Integer only. */
#ifndef SATFEAT_FH_GEOMETRY_H
#define SATFEAT_FH_GEOMETRY_H

#include "src/hd.h"

/* Parameter limits. With layers <= 6 and octaves <= 6 the largest lobe is l = 64*6+1 = 385
 * (L = 1155): every box sum is below 2^31, |100*Dxx*Dyy| + 81*Dxy^2 < 2^62 and
 * 100 * 255^2 * L^4 < 2^64 (see hessian_response.h). */
#define SATFEAT_FH_MAX_OCTAVES 6
#define SATFEAT_FH_MIN_LAYERS 3
#define SATFEAT_FH_MAX_LAYERS 6

/** Lobe l = 2^(o+1) * (i+1) + 1 of layer i in octave o (always odd); a macro so that compile-time
 * geometry (octave_kernel.cu) uses the same formula. */
#define SATFEAT_FH_LOBE(octave, layer) ((2 << (octave)) * ((layer) + 1) + 1)

/** Lobe of layer i in octave o (SATFEAT_FH_LOBE). */
static inline SATFEAT_HD int satfeat_fh_lobe(int octave, int layer)
{
    return SATFEAT_FH_LOBE(octave, layer);
}

/** Filter side L = 3 * lobe. */
static inline SATFEAT_HD int satfeat_fh_side(int octave, int layer)
{
    return 3 * satfeat_fh_lobe(octave, layer);
}

/** Filter side step between adjacent layers of an octave: 6 * 2^o. */
static inline SATFEAT_HD int satfeat_fh_side_step(int octave)
{
    return 6 << octave;
}

/** Sampling step of an octave in pixels: init_step * 2^o. */
static inline SATFEAT_HD int satfeat_fh_step(int init_step, int octave)
{
    return init_step << octave;
}

/** Number of samples on an octave's grid along a side of n pixels (samples at 0, s, 2s, ...). */
static inline SATFEAT_HD int satfeat_fh_grid_len(int n, int step)
{
    return (n - 1) / step + 1;
}

/**
 * First and last sample index k (k*step is the pixel) at which a filter of side L lies inside a
 * side of n pixels, shrunk by `margin` samples on both ends. Returns 0 when none exists.
 */
static inline SATFEAT_HD int satfeat_fh_sample_range(int n, int step, int side, int margin,
                                                     int *first, int *last)
{
    int r = (side - 1) / 2;
    if (n - 1 - r < r) return 0;
    int lo = (r + step - 1) / step + margin;
    int hi = (n - 1 - r) / step - margin;
    *first = lo;
    *last = hi;
    return lo <= hi;
}

/** A rectangle of samples [x0, x1] x [y0, y1] on an octave's grid (empty: x0 > x1). */
typedef struct satfeat_fh_rect {
    int x0, x1, y0, y1;
} satfeat_fh_rect;

/**
 * The samples of a width x height frame at which a filter of side `side` lies inside the image,
 * shrunk by `margin` samples on every side (satfeat_fh_sample_range on both axes). Returns 1, or
 * 0 with *r empty when there is none. Margin 0 with a layer's own side: the samples that have a
 * response; margin 1 with the side of the layer above: the samples of a middle layer tested for
 * maxima (their whole 3x3x3 neighbourhood has responses).
 */
static inline SATFEAT_HD int satfeat_fh_sample_rect(int width, int height, int step, int side,
                                                    int margin, satfeat_fh_rect *r)
{
    satfeat_fh_rect q;
    if (!satfeat_fh_sample_range(width, step, side, margin, &q.x0, &q.x1) ||
        !satfeat_fh_sample_range(height, step, side, margin, &q.y0, &q.y1)) {
        r->x0 = r->y0 = 1;
        r->x1 = r->y1 = 0;
        return 0;
    }
    *r = q;
    return 1;
}

#endif
