/* select_cpu.c - the deterministic output: sort the candidates in a total order, then apply the
 * mask, the per-cell cap and max_keypoints in that order, copying at most `capacity`. */
#include "detector_internal.h"
#include "keypoint_order.h"

#include <stdlib.h>
#include <string.h>

int satfeat_keypoint_order(const satfeat_keypoint *a, const satfeat_keypoint *b)
{
    return satfeat_fh_order(a, b);
}

static int order_qsort(const void *a, const void *b)
{
    return satfeat_keypoint_order(a, b);
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
            int mx = satfeat_fh_round_clamp(kp->x, width), my = satfeat_fh_round_clamp(kp->y, height);
            if (!mask[(size_t)my * mask_stride + (size_t)mx]) continue;
        }
        if (p->grid > 0) {
            int *c = &det->cell_count[satfeat_fh_cell_of(kp->y, p->grid, height) * p->grid +
                                      satfeat_fh_cell_of(kp->x, p->grid, width)];
            if (*c >= p->per_cell) continue;
            (*c)++;
        }
        if (kept < capacity) out[kept] = *kp;
        kept++;
    }
    return kept;
}
