/* extrema_cpu.c - candidates on the CPU: strict 3x3x3 maxima above the threshold on the middle
 * layers of every octave, refined by the quadratic fit, turned into keypoints. Threaded over
 * rows; threads append through an atomic counter, so the candidate order depends on timing but
 * the sorted output (select_cpu.c) does not. */
#include "detect/detector_internal.h"
#include "detect/extremum_refine.h"


/* Builds the keypoint of the maximum at (kx, ky) of layer `mid` and appends it when kept. */
static void emit(satfeat_detector *det, const satfeat_fh_layer *lo, const satfeat_fh_layer *mid,
                 const satfeat_fh_layer *hi, size_t at, ptrdiff_t gw, int kx, int ky,
                 const satfeat_fh_kp_rules *rules, size_t *n)
{
    const satfeat_fh_kp_layer ly = {mid->octave, mid->layer, mid->lobe,
                                    mid->side,   mid->side_step, mid->step};
    satfeat_keypoint kp;
    if (!satfeat_fh_build_keypoint(lo->map + at, mid->map + at, hi->map + at, gw, kx, ky, &ly,
                                   rules, det->sat, (size_t)rules->width + 1, &kp))
        return;
    size_t slot;
#pragma omp atomic capture
    slot = (*n)++;
    if (slot < det->candidate_cap) det->candidates[slot] = kp;
}

size_t satfeat_fh_extrema_cpu(satfeat_detector *det, int width, int height, int threads)
{
    const int octaves = det->params.octaves, layers = det->params.layers;
    const double thr = det->params.threshold;
    const satfeat_fh_kp_rules rules = {det->params.max_offset, det->params.unique_scales, octaves,
                                       det->params.init_step, width, height};
    size_t n = 0;
#pragma omp parallel num_threads(threads) if (threads > 1)
    for (int o = 0; o < octaves; o++) {
        for (int i = 1; i + 1 < layers; i++) {
            const satfeat_fh_layer *lo = satfeat_fh_layer_at(det, o, i - 1);
            const satfeat_fh_layer *mid = satfeat_fh_layer_at(det, o, i);
            const satfeat_fh_layer *hi = satfeat_fh_layer_at(det, o, i + 1);
            satfeat_fh_rect nr; /* the largest filter and its neighbours lie inside */
            if (!satfeat_fh_sample_rect(width, height, hi->step, hi->side, 1, &nr)) continue;
            const int kx0 = nr.x0, kx1 = nr.x1, ky0 = nr.y0, ky1 = nr.y1;
            const ptrdiff_t gw = satfeat_fh_grid_len(width, mid->step);
#pragma omp for schedule(dynamic, 8) nowait
            for (int ky = ky0; ky <= ky1; ky++) {
                const size_t row = (size_t)ky * (size_t)gw;
                const double *m = mid->map + row;
                for (int kx = kx0; kx <= kx1; kx++) {
                    if (!(m[kx] > thr)) continue;
                    const size_t at = row + (size_t)kx;
                    if (!satfeat_fh_is_max(lo->map + at, mid->map + at, hi->map + at, gw)) continue;
                    emit(det, lo, mid, hi, at, gw, kx, ky, &rules, &n);
                }
            }
        }
    }
    return n;
}
