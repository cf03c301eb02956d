/* responses_cpu.c - the response layers on the CPU: for every octave and layer, the normalised
 * determinant at each sample where the whole filter lies inside the image, threaded with OpenMP
 * over the rows of all layers at once (one parallel region per frame). Samples outside that
 * region are never written and never read. */
#include "detector_internal.h"

#if defined(__GNUC__)
#define RESPONSE_ALWAYS_INLINE __attribute__((always_inline))
#else
#define RESPONSE_ALWAYS_INLINE
#endif

/* Sum of [x0, x1) between two table rows (the rows' pointers given), as satfeat_fh_box. */
static inline int32_t box_rows(const uint32_t *r0, const uint32_t *r1, int x0, int x1)
{
    return (int32_t)(r1[x1] - r1[x0] - r0[x1] + r0[x0]);
}

/*
 * The fast path of one row: the same boxes, integers and IEEE operations as satfeat_fh_filters +
 * satfeat_fh_response_fast, in the same order (bit-identical results), with the ten table rows
 * the filters touch hoisted out of the loop. Inlined into one copy per step so that the step-1
 * copy (octave 0 at init step 1, most of the work) reads each row contiguously and vectorises.
 */
static inline RESPONSE_ALWAYS_INLINE void fast_row(const satfeat_fh_layer *ly,
                                                           const uint32_t *sat, size_t st, int gw,
                                                           int ky, int kx0, int kx1, int s)
{
    double *out = ly->map + (size_t)ky * (size_t)gw;
    const int y = ky * s, l = ly->lobe, r = (3 * l - 1) / 2, h = (l - 1) / 2;
    const double den = ly->norm.den_d;
#define ROW(dy) (sat + (size_t)(y + (dy)) * st)
    const uint32_t *yy0 = ROW(-r), *yy1 = ROW(r + 1), *ym0 = ROW(-h), *ym1 = ROW(h + 1);
    const uint32_t *xx0 = ROW(-l + 1), *xx1 = ROW(l);
    const uint32_t *q0 = ROW(-l), *q1 = ROW(0), *q2 = ROW(1), *q3 = ROW(l + 1);
#undef ROW
    for (int kx = kx0; kx <= kx1; kx++) {
        const int x = kx * s;
        const int32_t dyy = box_rows(yy0, yy1, x - l + 1, x + l) - 3 * box_rows(ym0, ym1, x - l + 1, x + l);
        const int32_t dxx = box_rows(xx0, xx1, x - r, x + r + 1) - 3 * box_rows(xx0, xx1, x - h, x + h + 1);
        const int32_t dxy = (box_rows(q0, q1, x - l, x) + box_rows(q2, q3, x + 1, x + l + 1)) -
                            (box_rows(q0, q1, x + 1, x + l + 1) + box_rows(q2, q3, x - l, x));
        const double num = (100.0 * (double)dxx) * (double)dyy - (81.0 * (double)dxy) * (double)dxy;
        out[kx] = num / den;
    }
}

/* fast_row for layers sampled every pixel. */
#if defined(__GNUC__) && defined(__x86_64__) && !defined(__clang__)
__attribute__((target_clones("avx2", "default")))
#endif
static void fast_row_step1(const satfeat_fh_layer *ly, const uint32_t *sat, size_t st, int gw,
                           int ky, int kx0, int kx1)
{
    fast_row(ly, sat, st, gw, ky, kx0, kx1, 1);
}

/* fast_row for coarser steps. */
#if defined(__GNUC__) && defined(__x86_64__) && !defined(__clang__)
__attribute__((target_clones("avx2", "default")))
#endif
static void fast_row_stepped(const satfeat_fh_layer *ly, const uint32_t *sat, size_t st, int gw,
                             int ky, int kx0, int kx1)
{
    fast_row(ly, sat, st, gw, ky, kx0, kx1, ly->step);
}

/* One row of a layer whose numerators may not be exact doubles: the integer-only quotient. */
#if defined(__GNUC__) && defined(__x86_64__) && !defined(__clang__)
__attribute__((target_clones("avx2", "default")))
#endif
static void response_row(const satfeat_fh_layer *ly, const uint32_t *sat, size_t st, int gw,
                         int ky, int kx0, int kx1)
{
    double *out = ly->map + (size_t)ky * (size_t)gw;
    const int s = ly->step, y = ky * s, l = ly->lobe;
    for (int kx = kx0; kx <= kx1; kx++)
        out[kx] = satfeat_fh_response(satfeat_fh_filters(sat, st, kx * s, y, l), &ly->norm);
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
            for (int ky = ky0; ky <= ky1; ky++) {
                if (!ly->norm.fast)
                    response_row(ly, det->sat, st, gw, ky, kx0, kx1);
                else if (ly->step == 1)
                    fast_row_step1(ly, det->sat, st, gw, ky, kx0, kx1);
                else
                    fast_row_stepped(ly, det->sat, st, gw, ky, kx0, kx1);
            }
        }
    }
}
