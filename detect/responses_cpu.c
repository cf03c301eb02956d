/* responses_cpu.c - the response layers on the CPU: for every octave and layer, the normalised
 * determinant at each sample where the whole filter lies inside the image, threaded with OpenMP
 * over the rows of all layers at once (one parallel region per frame). Samples outside that
 * region are never written and never read. */
#include "detect/stages_cpu.h"

#if defined(__GNUC__)
#define RESPONSE_ALWAYS_INLINE __attribute__((always_inline))
#else
#define RESPONSE_ALWAYS_INLINE
#endif

/*
 * The fast path of one row: satfeat_fh_filters_at + satfeat_fh_response_fast (the same boxes,
 * integers and IEEE operations as every other path, so bit-identical results), with the ten
 * table rows the filters touch taken once per row (satfeat_fh_filter_rows). Inlined into one copy
 * per step so that the step-1 copy (octave 0 at init step 1, most of the work) reads each row
 * contiguously and vectorises.
 */
static inline RESPONSE_ALWAYS_INLINE void fast_row(const satfeat_fh_layer *ly, double *map,
                                                   const uint32_t *sat, size_t st, int gw,
                                                   int ky, int kx0, int kx1, int s)
{
    double *out = map + (size_t)ky * (size_t)gw;
    const int l = ly->lobe;
    const double den = ly->norm.den_d;
    const satfeat_fh_rows rows = satfeat_fh_filter_rows(sat, st, ky * s, l);
    for (int kx = kx0; kx <= kx1; kx++)
        out[kx] = satfeat_fh_response_fast(satfeat_fh_filters_at(&rows, kx * s, l), den);
}

/* fast_row for layers sampled every pixel. (No clones under ThreadSanitizer: their ifunc
 * resolver runs while the program is relocated, before TSan is initialised, and crashes in its
 * instrumentation.) */
#if defined(__GNUC__) && defined(__x86_64__) && !defined(__clang__) && !defined(__SANITIZE_THREAD__)
__attribute__((target_clones("avx2", "default")))
#endif
static void fast_row_step1(const satfeat_fh_layer *ly, double *map, const uint32_t *sat,
                           size_t st, int gw,
                           int ky, int kx0, int kx1)
{
    fast_row(ly, map, sat, st, gw, ky, kx0, kx1, 1);
}

/* fast_row for coarser steps. */
#if defined(__GNUC__) && defined(__x86_64__) && !defined(__clang__) && !defined(__SANITIZE_THREAD__)
__attribute__((target_clones("avx2", "default")))
#endif
static void fast_row_stepped(const satfeat_fh_layer *ly, double *map, const uint32_t *sat,
                             size_t st, int gw,
                             int ky, int kx0, int kx1)
{
    fast_row(ly, map, sat, st, gw, ky, kx0, kx1, ly->step);
}

/* One row of a layer whose numerators may not be exact doubles: the integer-only quotient. */
#if defined(__GNUC__) && defined(__x86_64__) && !defined(__clang__) && !defined(__SANITIZE_THREAD__)
__attribute__((target_clones("avx2", "default")))
#endif
static void response_row(const satfeat_fh_layer *ly, double *map, const uint32_t *sat,
                         size_t st, int gw,
                         int ky, int kx0, int kx1)
{
    double *out = map + (size_t)ky * (size_t)gw;
    const int s = ly->step, y = ky * s, l = ly->lobe;
    for (int kx = kx0; kx <= kx1; kx++)
        out[kx] = satfeat_fh_response(satfeat_fh_filters(sat, st, kx * s, y, l), &ly->norm);
}

void satfeat_fh_responses_cpu(const satfeat_fh_maps_view *maps, const satfeat_fh_table_view *t,
                              int threads)
{
    const int width = t->width, height = t->height;
    const uint32_t *sat = t->sat;
    const size_t st = (size_t)width + 1;
    const int octaves = maps->octaves, layers = maps->layers_per_octave;
#pragma omp parallel num_threads(threads) if (threads > 1)
    for (int o = 0; o < octaves; o++) {
        for (int i = 0; i < layers; i++) {
            const satfeat_fh_layer *ly = &maps->layers[o * layers + i];
            double *map = maps->map[o * layers + i];
            satfeat_fh_rect rr;
            if (!satfeat_fh_sample_rect(width, height, ly->step, ly->side, 0, &rr))
                continue; /* every thread skips the same layers */
            const int kx0 = rr.x0, kx1 = rr.x1, ky0 = rr.y0, ky1 = rr.y1;
            const int gw = satfeat_fh_grid_len(width, ly->step);
#pragma omp for schedule(dynamic, 4) nowait
            for (int ky = ky0; ky <= ky1; ky++) {
                if (!ly->norm.fast)
                    response_row(ly, map, sat, st, gw, ky, kx0, kx1);
                else if (ly->step == 1)
                    fast_row_step1(ly, map, sat, st, gw, ky, kx0, kx1);
                else
                    fast_row_stepped(ly, map, sat, st, gw, ky, kx0, kx1);
            }
        }
    }
}
