/* extrema_cpu.c - candidates on the CPU: strict 3x3x3 maxima above the threshold on the middle
 * layers of every octave, refined by the quadratic fit, turned into keypoints. Threaded over
 * rows; threads append through an atomic counter, so the candidate order depends on timing but
 * the sorted output (select_cpu.c) does not. */
#include "detect/extremum_refine.h"
#include "detect/stages_cpu.h"

#include <string.h>

/* Builds the keypoint of the maximum at (kx, ky) of layer `mid` and appends it when kept. */
static void emit(const satfeat_fh_table_view *t, const satfeat_fh_layer *mid, const double *lo,
                 const double *mm, const double *hi, ptrdiff_t gw, int kx, int ky,
                 const satfeat_fh_kp_rules *rules, satfeat_keypoint *cand, size_t cap, size_t *n)
{
    const satfeat_fh_kp_layer ly = {mid->octave, mid->layer, mid->lobe,
                                    mid->side,   mid->side_step, mid->step};
    satfeat_keypoint kp;
    if (!satfeat_fh_build_keypoint(lo, mm, hi, gw, kx, ky, &ly, rules, t->sat,
                                   (size_t)t->width + 1, &kp))
        return;
    size_t slot;
#pragma omp atomic capture
    slot = (*n)++;
    if (slot < cap) cand[slot] = kp;
}

/* Four doubles / four lane masks (GCC and Clang vector extensions; plain SSE2 without AVX2). */
typedef double ex_v4d __attribute__((vector_size(32)));
typedef long ex_v4l __attribute__((vector_size(32)));

/*
 * The maxima of one row of samples kx0..kx1 of layer `mid` (m: its row, at = the row's first
 * entry in the maps). Four samples at a time, a sample goes on to the full 3x3x3 test only when it
 * is above the threshold and above its left and right neighbours: two of the test's own
 * comparisons, so the same samples pass. The neighbours kx0 - 1 and kx1 + 1 exist (the caller's
 * rectangle leaves a sample of margin).
 */
#if defined(__GNUC__) && defined(__x86_64__) && !defined(__clang__) && !defined(__SANITIZE_THREAD__)
__attribute__((target_clones("avx2", "default")))
#endif
static void scan_row(const satfeat_fh_table_view *t, const satfeat_fh_layer *mid,
                     const double *lo_map, const double *mid_map, const double *hi_map,
                     ptrdiff_t gw, size_t row, int ky, int kx0, int kx1, double thr,
                     const satfeat_fh_kp_rules *rules, satfeat_keypoint *cand, size_t cap,
                     size_t *n)
{
    const double *m = mid_map + row;
    const ex_v4d vt = {thr, thr, thr, thr};
    int kx = kx0;
    for (; kx + 3 <= kx1; kx += 4) {
        ex_v4d c, l, r;
        memcpy(&c, m + kx, sizeof c);
        memcpy(&l, m + kx - 1, sizeof l);
        memcpy(&r, m + kx + 1, sizeof r);
        const ex_v4l hit = (c > vt) & (c > l) & (c > r);
        if (!((hit[0] | hit[1]) | (hit[2] | hit[3]))) continue;
        for (int j = 0; j < 4; j++) {
            if (!hit[j]) continue;
            const size_t at = row + (size_t)(kx + j);
            if (!satfeat_fh_is_max(lo_map + at, mid_map + at, hi_map + at, gw)) continue;
            emit(t, mid, lo_map + at, mid_map + at, hi_map + at, gw, kx + j, ky, rules, cand,
                 cap, n);
        }
    }
    for (; kx <= kx1; kx++) {
        if (!(m[kx] > thr)) continue;
        const size_t at = row + (size_t)kx;
        if (!satfeat_fh_is_max(lo_map + at, mid_map + at, hi_map + at, gw)) continue;
        emit(t, mid, lo_map + at, mid_map + at, hi_map + at, gw, kx, ky, rules, cand, cap, n);
    }
}

size_t satfeat_fh_extrema_cpu(const satfeat_fh_maps_view *maps, const satfeat_fh_table_view *t,
                              const satfeat_detector_params *p, satfeat_keypoint *cand,
                              size_t cap, int threads)
{
    const int width = t->width, height = t->height;
    const int octaves = p->octaves, layers = p->layers;
    const double thr = p->threshold;
    const satfeat_fh_kp_rules rules = {p->max_offset, p->unique_scales, octaves, p->init_step,
                                       width, height};
    size_t n = 0;
#pragma omp parallel num_threads(threads) if (threads > 1)
    for (int o = 0; o < octaves; o++) {
        for (int i = 1; i + 1 < layers; i++) {
            const int k = o * layers + i;
            const satfeat_fh_layer *mid = &maps->layers[k], *hi = &maps->layers[k + 1];
            const double *lo_map = maps->map[k - 1], *mid_map = maps->map[k],
                         *hi_map = maps->map[k + 1];
            satfeat_fh_rect nr; /* the largest filter and its neighbours lie inside */
            if (!satfeat_fh_sample_rect(width, height, hi->step, hi->side, 1, &nr)) continue;
            const int kx0 = nr.x0, kx1 = nr.x1, ky0 = nr.y0, ky1 = nr.y1;
            const ptrdiff_t gw = satfeat_fh_grid_len(width, mid->step);
#pragma omp for schedule(dynamic, 8) nowait
            for (int ky = ky0; ky <= ky1; ky++)
                scan_row(t, mid, lo_map, mid_map, hi_map, gw, (size_t)ky * (size_t)gw, ky, kx0,
                         kx1, thr, &rules, cand, cap, &n);
        }
    }
    return n;
}
