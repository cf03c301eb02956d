/* keypoint_order.h - the output order and the selection helpers (mask pixel, grid cell) of the
 * Fast-Hessian detector, shared by the CPU (select_cpu.c) and the CUDA detector so that both sort
 * and select identically. Only comparisons, floor and IEEE * and / in a fixed order. */
#ifndef SATFEAT_FH_SELECT_H
#define SATFEAT_FH_SELECT_H

#include "src/hd.h"
#include "satfeat.h"

#include <math.h>

/** The total output order: response descending, then y, x, size, octave, layer, sample_y,
 * sample_x ascending. Returns <0, 0 or >0 like strcmp (0 only for the same sample). */
static inline SATFEAT_HD int satfeat_fh_order(const satfeat_keypoint *a, const satfeat_keypoint *b)
{
#define SATFEAT_FH_CMP_ASC(u, v) \
    do {                         \
        if ((u) < (v)) return -1; \
        if ((u) > (v)) return 1;  \
    } while (0)
    SATFEAT_FH_CMP_ASC(b->response, a->response); /* descending */
    SATFEAT_FH_CMP_ASC(a->y, b->y);
    SATFEAT_FH_CMP_ASC(a->x, b->x);
    SATFEAT_FH_CMP_ASC(a->size, b->size);
    SATFEAT_FH_CMP_ASC(a->octave, b->octave);
    SATFEAT_FH_CMP_ASC(a->layer, b->layer);
    SATFEAT_FH_CMP_ASC(a->sample_y, b->sample_y);
    SATFEAT_FH_CMP_ASC(a->sample_x, b->sample_x);
#undef SATFEAT_FH_CMP_ASC
    return 0;
}

/**
 * Near duplicates (suppress_duplicates): the same Laplacian sign (both < 0 or both >= 0), sizes
 * within 1.3x (larger < 1.3 * smaller) and centres closer than half the smaller sigma
 * (dx*dx + dy*dy < r*r, r = 0.5 * min(sigma)). Symmetric; IEEE * and - only. Implies
 * |dx| < 0.5 * sigma of either keypoint (the CPU's scan window relies on it).
 */
static inline SATFEAT_HD int satfeat_fh_near_duplicate(const satfeat_keypoint *a,
                                                       const satfeat_keypoint *b)
{
    if ((a->laplacian < 0) != (b->laplacian < 0)) return 0;
    const double lo = a->size < b->size ? a->size : b->size;
    const double hi = a->size < b->size ? b->size : a->size;
    if (!(hi < 1.3 * lo)) return 0;
    const double r = 0.5 * (a->sigma < b->sigma ? a->sigma : b->sigma);
    const double dx = a->x - b->x, dy = a->y - b->y;
    return dx * dx + dy * dy < r * r;
}

/** floor(v + 0.5) clamped to [0, n-1]: the mask pixel of a coordinate. */
static inline SATFEAT_HD int satfeat_fh_round_clamp(double v, int n)
{
    double r = floor(v + 0.5);
    if (!(r >= 0)) return 0;
    if (r > n - 1) return n - 1;
    return (int)r;
}

/** The grid cell of a coordinate: floor(v * g / n) clamped to [0, g-1]. */
static inline SATFEAT_HD int satfeat_fh_cell_of(double v, int g, int n)
{
    double c = floor(v * (double)g / (double)n);
    if (!(c >= 0)) return 0;
    if (c > g - 1) return g - 1;
    return (int)c;
}

#endif
