/* extrema_cpu.c - candidates on the CPU: strict 3x3x3 maxima above the threshold on the middle
 * layers of every octave, refined by the quadratic fit, turned into keypoints. Threaded over
 * rows; threads append through an atomic counter, so the candidate order depends on timing but
 * the sorted output (select_cpu.c) does not. */
#include "detector_internal.h"
#include "extremum_refine.h"

#include <string.h>

/* Refines the maximum at (kx, ky) of layer `mid` and appends it as a keypoint when kept. */
static void emit(satfeat_detector *det, const satfeat_fh_layer *lo, const satfeat_fh_layer *mid,
                 const satfeat_fh_layer *hi, size_t at, ptrdiff_t gw, int kx, int ky,
                 int width_px, int height_px, size_t *n)
{
    double off[3];
    if (!satfeat_fh_refine(lo->map + at, mid->map + at, hi->map + at, gw,
                           det->params.max_offset, off)) return;
    satfeat_keypoint kp;
    memset(&kp, 0, sizeof kp); /* padding too, so lists compare with memcmp */
    satfeat_fh_fields(kx, ky, mid->step, mid->side, mid->side_step, off, &kp.x, &kp.y, &kp.size,
                      &kp.sigma);
    if (det->params.unique_scales &&
        !satfeat_fh_owned(kp.x, kp.y, kp.size, mid->octave, det->params.octaves,
                          det->params.init_step, width_px, height_px))
        return;
    kp.response = mid->map[at];
    kp.laplacian = satfeat_fh_laplacian(
        satfeat_fh_filters(det->sat, (size_t)width_px + 1, kx * mid->step, ky * mid->step, mid->lobe));
    kp.octave = mid->octave;
    kp.layer = mid->layer;
    kp.sample_x = kx;
    kp.sample_y = ky;
    size_t slot;
#pragma omp atomic capture
    slot = (*n)++;
    if (slot < det->candidate_cap) det->candidates[slot] = kp;
}

size_t satfeat_fh_extrema_cpu(satfeat_detector *det, int width, int height, int threads)
{
    const int octaves = det->params.octaves, layers = det->params.layers;
    const double thr = det->params.threshold;
    size_t n = 0;
#pragma omp parallel num_threads(threads) if (threads > 1)
    for (int o = 0; o < octaves; o++) {
        for (int i = 1; i + 1 < layers; i++) {
            const satfeat_fh_layer *lo = satfeat_fh_layer_at(det, o, i - 1);
            const satfeat_fh_layer *mid = satfeat_fh_layer_at(det, o, i);
            const satfeat_fh_layer *hi = satfeat_fh_layer_at(det, o, i + 1);
            int kx0, kx1, ky0, ky1; /* the largest filter and its neighbours lie inside */
            if (!satfeat_fh_sample_range(width, hi->step, hi->side, 1, &kx0, &kx1) ||
                !satfeat_fh_sample_range(height, hi->step, hi->side, 1, &ky0, &ky1))
                continue;
            const ptrdiff_t gw = satfeat_fh_grid_len(width, mid->step);
#pragma omp for schedule(dynamic, 8) nowait
            for (int ky = ky0; ky <= ky1; ky++) {
                const size_t row = (size_t)ky * (size_t)gw;
                const double *m = mid->map + row;
                for (int kx = kx0; kx <= kx1; kx++) {
                    if (!(m[kx] > thr)) continue;
                    const size_t at = row + (size_t)kx;
                    if (!satfeat_fh_is_max(lo->map + at, mid->map + at, hi->map + at, gw)) continue;
                    emit(det, lo, mid, hi, at, gw, kx, ky, width, height, &n);
                }
            }
        }
    }
    return n;
}
