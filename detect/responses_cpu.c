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

/* Columns of table row y at step S (2 or 4) split into S planes of the planes buffer, plane p
 * holding columns p, p + S, p + 2S, ...: the S-th columns a stepped row of samples reads are then
 * contiguous. `pw` is a plane's length, ceil((width + 1) / S); a table row takes S * pw entries. */
static void split_row(const uint32_t *row, uint32_t *dst, int width, int s, size_t pw)
{
    for (int p = 0; p < s; p++) {
        uint32_t *d = dst + (size_t)p * pw;
        for (int x = p, m = 0; x <= width; x += s, m++) d[m] = row[x];
    }
}

/*
 * The fast path of one row of a layer at step S (2 or 4, with SH = log2 S) from the split table
 * rows (split_row; `prow` entries a table row): the box sums of satfeat_fh_filters_at, each from
 * the same four table entries (entry (row, c) of a filter at sample kx lies in plane c mod S at
 * kx + floor(c / S)), and the same satfeat_fh_response_fast, so the same bits; the reads of a
 * row of samples are contiguous, so the loop vectorises as the step-1 row does.
 */
static inline RESPONSE_ALWAYS_INLINE void split_fast_row(const satfeat_fh_layer *ly, double *map,
                                                         const uint32_t *planes, size_t prow,
                                                         size_t pw, int gw, int ky, int kx0,
                                                         int kx1, int S, int SH)
{
    double *out = map + (size_t)ky * (size_t)gw;
    const int l = ly->lobe, r = (3 * l - 1) / 2, h = (l - 1) / 2;
    const double den = ly->norm.den_d;
    const satfeat_fh_row_index ri = satfeat_fh_filter_row_index(ky * S, l);
    /* where entry (row A, column kx * S + C) is, less kx: loop-invariant */
#define SPLIT_AT(A, C)                                                                          \
    ((ptrdiff_t)((size_t)ri.A * prow + (size_t)((C) & (S - 1)) * pw) + (ptrdiff_t)((C) >> SH))
#define SPLIT_BOX(A, B, X0, X1)                                                                 \
    ((int32_t)(planes[SPLIT_AT(B, X1) + kx] - planes[SPLIT_AT(B, X0) + kx] -                  \
               planes[SPLIT_AT(A, X1) + kx] + planes[SPLIT_AT(A, X0) + kx]))
    for (int kx = kx0; kx <= kx1; kx++) {
        satfeat_fh_hessian d; /* the filter at column 0 + kx * S: X0, X1 are the offsets */
        SATFEAT_FH_FILTER_FORMULA(d, SPLIT_BOX, 0, l, r, h);
        out[kx] = satfeat_fh_response_fast(d, den);
    }
#undef SPLIT_BOX
#undef SPLIT_AT
}

/* split_fast_row at step s = 2 or 4, each step its own inlined copy (constant plane arithmetic). */
#if defined(__GNUC__) && defined(__x86_64__) && !defined(__clang__) && !defined(__SANITIZE_THREAD__)
__attribute__((target_clones("avx2", "default")))
#endif
static void split_row_step(const satfeat_fh_layer *ly, double *map, const uint32_t *planes,
                           size_t pw, int gw, int ky, int kx0, int kx1, int s)
{
    if (s == 2)
        split_fast_row(ly, map, planes, 2 * pw, pw, gw, ky, kx0, kx1, 2, 1);
    else
        split_fast_row(ly, map, planes, 4 * pw, pw, gw, ky, kx0, kx1, 4, 2);
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

/* Plane length at step s for a table of width + 1 columns. */
static size_t split_len(int width, int s)
{
    return ((size_t)width + (size_t)s) / (size_t)s;
}

size_t satfeat_fh_split_elems(int width, int height)
{
    return ((size_t)height + 1) * (2 * split_len(width, 2) + 4 * split_len(width, 4));
}

void satfeat_fh_responses_cpu(const satfeat_fh_maps_view *maps, const satfeat_fh_table_view *t,
                              uint32_t *split, int threads)
{
    const int width = t->width, height = t->height;
    const uint32_t *sat = t->sat;
    const size_t st = (size_t)width + 1;
    const int octaves = maps->octaves, layers = maps->layers_per_octave;
    /* the split tables of steps 2 and 4, where a layer reads them */
    int need[5] = {0, 0, 0, 0, 0};
    if (split)
        for (int k = 0; k < octaves * layers; k++)
            if (satfeat_fh_layer_uses_split(&maps->layers[k])) need[maps->layers[k].step] = 1;
    const size_t pw2 = split_len(width, 2), pw4 = split_len(width, 4);
    uint32_t *split2 = split, *split4 = split ? split + ((size_t)height + 1) * 2 * pw2 : NULL;
#pragma omp parallel num_threads(threads) if (threads > 1)
    {
        if (need[2] || need[4]) {
#pragma omp for schedule(static)
            for (int y = 0; y <= height; y++) {
                const uint32_t *row = sat + (size_t)y * st;
                if (need[2]) split_row(row, split2 + (size_t)y * 2 * pw2, width, 2, pw2);
                if (need[4]) split_row(row, split4 + (size_t)y * 4 * pw4, width, 4, pw4);
            }
        }
        for (int o = 0; o < octaves; o++) {
            for (int i = 0; i < layers; i++) {
                const satfeat_fh_layer *ly = &maps->layers[o * layers + i];
                double *map = maps->map[o * layers + i];
                satfeat_fh_rect rr;
                if (!satfeat_fh_sample_rect(width, height, ly->step, ly->side, 0, &rr))
                    continue; /* every thread skips the same layers */
                const int kx0 = rr.x0, kx1 = rr.x1, ky0 = rr.y0, ky1 = rr.y1;
                const int gw = satfeat_fh_grid_len(width, ly->step);
                const int from_split = split && satfeat_fh_layer_uses_split(ly);
#pragma omp for schedule(dynamic, 4) nowait
                for (int ky = ky0; ky <= ky1; ky++) {
                    if (!ly->norm.fast)
                        response_row(ly, map, sat, st, gw, ky, kx0, kx1);
                    else if (ly->step == 1)
                        fast_row_step1(ly, map, sat, st, gw, ky, kx0, kx1);
                    else if (from_split && ly->step == 2)
                        split_row_step(ly, map, split2, pw2, gw, ky, kx0, kx1, 2);
                    else if (from_split)
                        split_row_step(ly, map, split4, pw4, gw, ky, kx0, kx1, 4);
                    else
                        fast_row_stepped(ly, map, sat, st, gw, ky, kx0, kx1);
                }
            }
        }
    }
}
