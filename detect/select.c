/* select.c - the deterministic output: sort the candidates in a total order, then apply the
 * mask, the per-cell cap and max_keypoints in that order, copying at most `capacity`. */
#include "detector_internal.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define CMP_ASC(a, b) \
    do {              \
        if ((a) < (b)) return -1; \
        if ((a) > (b)) return 1;  \
    } while (0)

int satfeat_keypoint_order(const satfeat_keypoint *a, const satfeat_keypoint *b)
{
    CMP_ASC(b->response, a->response); /* descending */
    CMP_ASC(a->y, b->y);
    CMP_ASC(a->x, b->x);
    CMP_ASC(a->size, b->size);
    CMP_ASC(a->octave, b->octave);
    CMP_ASC(a->layer, b->layer);
    CMP_ASC(a->sample_y, b->sample_y);
    CMP_ASC(a->sample_x, b->sample_x);
    return 0; /* only for the same sample, which is never listed twice */
}

static int order_qsort(const void *a, const void *b)
{
    return satfeat_keypoint_order(a, b);
}

/* floor(v + 0.5) clamped to [0, n-1]. */
static int round_clamp(double v, int n)
{
    double r = floor(v + 0.5);
    if (!(r >= 0)) return 0;
    if (r > n - 1) return n - 1;
    return (int)r;
}

/* The grid cell of a coordinate: floor(v * g / n) clamped to [0, g-1]. */
static int cell_of(double v, int g, int n)
{
    double c = floor(v * (double)g / (double)n);
    if (!(c >= 0)) return 0;
    if (c > g - 1) return g - 1;
    return (int)c;
}

size_t satfeat_fh_select(satfeat_detector *det, satfeat_keypoint *cand, size_t n, int width,
                         int height, const uint8_t *mask, size_t mask_stride,
                         satfeat_keypoint *out, size_t capacity)
{
    const satfeat_detector_params *p = &det->params;
    qsort(cand, n, sizeof *cand, order_qsort);
    if (p->grid > 0) memset(det->cell_count, 0, (size_t)p->grid * (size_t)p->grid * sizeof(int));
    size_t kept = 0;
    for (size_t k = 0; k < n; k++) {
        if (p->max_keypoints > 0 && kept >= (size_t)p->max_keypoints) break;
        const satfeat_keypoint *kp = &cand[k];
        if (mask) {
            int mx = round_clamp(kp->x, width), my = round_clamp(kp->y, height);
            if (!mask[(size_t)my * mask_stride + (size_t)mx]) continue;
        }
        if (p->grid > 0) {
            int *c = &det->cell_count[cell_of(kp->y, p->grid, height) * p->grid +
                                      cell_of(kp->x, p->grid, width)];
            if (*c >= p->per_cell) continue;
            (*c)++;
        }
        if (kept < capacity) out[kept] = *kp;
        kept++;
    }
    return kept;
}
