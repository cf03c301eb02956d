/* select_cpu.c - the deterministic output: sort the candidates in a total order, then drop near
 * duplicates (suppress_duplicates), apply the mask, the per-cell cap and max_keypoints in that
 * order, keeping the selected ones at the front of the list. */
#include "detect/stages_cpu.h"
#include "detect/keypoint_order.h"

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

/* Entries of the x order: ascending x, ties by candidate position (a total order). */
static int by_x(const void *a, const void *b)
{
    const satfeat_fh_xpos *p = a, *q = b;
    if (p->x < q->x) return -1;
    if (p->x > q->x) return 1;
    return (p->k > q->k) - (p->k < q->k);
}

/*
 * flag[k] = 1 when some candidate j < k (stronger: cand is sorted) is a near duplicate of k
 * (satfeat_fh_near_duplicate), whether or not j itself is flagged: every keypoint is judged
 * against all stronger ones, which is what the CUDA kernel computes in parallel. Candidates are
 * visited in x order; a near duplicate has |dx| < 0.5 sigma_k, so the scan to each side stops at
 * the first candidate at least that far in x.
 */
static void flag_duplicates(const satfeat_keypoint *cand, size_t n, satfeat_fh_xpos *order,
                            uint8_t *flag)
{
    for (size_t k = 0; k < n; k++) {
        order[k].x = cand[k].x;
        order[k].k = (uint32_t)k;
        flag[k] = 0;
    }
    qsort(order, n, sizeof *order, by_x);
    for (size_t p = 0; p < n; p++) {
        const uint32_t k = order[p].k;
        const satfeat_keypoint *a = &cand[k];
        const double reach = 0.5 * a->sigma;
        if (!(reach > 0.0)) continue; /* no sigma: nothing is within reach */
        for (size_t q = p; q-- > 0 && !flag[k];) {
            const satfeat_keypoint *b = &cand[order[q].k];
            if (!(a->x - b->x < reach)) break;
            if (order[q].k < k && satfeat_fh_near_duplicate(a, b)) flag[k] = 1;
        }
        for (size_t q = p + 1; q < n && !flag[k]; q++) {
            const satfeat_keypoint *b = &cand[order[q].k];
            if (!(b->x - a->x < reach)) break;
            if (order[q].k < k && satfeat_fh_near_duplicate(a, b)) flag[k] = 1;
        }
    }
}

size_t satfeat_fh_select(const satfeat_detector_params *p, satfeat_keypoint *cand, size_t n,
                         int width, int height, const uint8_t *mask, size_t mask_stride,
                         const satfeat_fh_select_scratch *scratch)
{
    qsort(cand, n, sizeof *cand, order_qsort);
    const int dedup = p->suppress_duplicates && scratch->dup_order && scratch->dup_flag;
    if (dedup) flag_duplicates(cand, n, scratch->dup_order, scratch->dup_flag);
    int *cells = scratch->cell_count;
    if (p->grid > 0) memset(cells, 0, (size_t)p->grid * (size_t)p->grid * sizeof(int));
    size_t kept = 0;
    for (size_t k = 0; k < n; k++) {
        if (p->max_keypoints > 0 && kept >= (size_t)p->max_keypoints) break;
        const satfeat_keypoint *kp = &cand[k];
        if (dedup && scratch->dup_flag[k]) continue;
        if (mask) {
            int mx = satfeat_fh_round_clamp(kp->x, width), my = satfeat_fh_round_clamp(kp->y, height);
            if (!mask[(size_t)my * mask_stride + (size_t)mx]) continue;
        }
        if (p->grid > 0) {
            int *c = &cells[satfeat_fh_cell_of(kp->y, p->grid, height) * p->grid +
                            satfeat_fh_cell_of(kp->x, p->grid, width)];
            if (*c >= p->per_cell) continue;
            (*c)++;
        }
        /* kept <= k: the entries still to be judged (and their flags, by position) are intact */
        if (kept != k) cand[kept] = *kp;
        kept++;
    }
    return kept;
}
