/* response_cpu.c - the response layers on the CPU: for every octave and layer, the normalised
 * determinant at each sample where the whole filter lies inside the image, threaded with OpenMP
 * over the rows of all layers at once (one parallel region per frame). Samples outside that
 * region are never written and never read. */
#include "detector_internal.h"

/* One row of one layer: samples kx0..kx1 of grid row ky. */
#if defined(__GNUC__) && defined(__x86_64__) && !defined(__clang__)
__attribute__((target_clones("avx2", "default")))
#endif
static void response_row(const satfeat_fh_layer *ly, const uint32_t *sat, size_t st, int gw,
                         int ky, int kx0, int kx1)
{
    double *out = ly->map + (size_t)ky * (size_t)gw;
    const int s = ly->step, y = ky * s, l = ly->lobe;
    if (ly->norm.fast) {
        const double den = ly->norm.den_d;
        for (int kx = kx0; kx <= kx1; kx++)
            out[kx] = satfeat_fh_response_fast(satfeat_fh_filters(sat, st, kx * s, y, l), den);
    } else {
        for (int kx = kx0; kx <= kx1; kx++)
            out[kx] = satfeat_fh_response(satfeat_fh_filters(sat, st, kx * s, y, l), &ly->norm);
    }
}

void satfeat_fh_responses_cpu(satfeat_detector *det, int width, int height, int threads)
{
    const size_t st = (size_t)width + 1;
    const int octaves = det->params.octaves, layers = det->params.layers;
#pragma omp parallel num_threads(threads) if (threads > 1)
    for (int o = 0; o < octaves; o++) {
        for (int i = 0; i < layers; i++) {
            const satfeat_fh_layer *ly = satfeat_fh_layer_at(det, o, i);
            int kx0, kx1, ky0, ky1;
            if (!satfeat_fh_sample_range(width, ly->step, ly->side, 0, &kx0, &kx1) ||
                !satfeat_fh_sample_range(height, ly->step, ly->side, 0, &ky0, &ky1))
                continue; /* every thread skips the same layers */
            const int gw = satfeat_fh_grid_len(width, ly->step);
#pragma omp for schedule(dynamic, 4) nowait
            for (int ky = ky0; ky <= ky1; ky++) response_row(ly, det->sat, st, gw, ky, kx0, kx1);
        }
    }
}
