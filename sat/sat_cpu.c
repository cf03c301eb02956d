/* sat_cpu.c - the CPU summed area table, threaded over row bands.
 *
 * Two passes over the input, one over the output: each band but the last first sums its
 * columns (reading only the input); every band then prefixes the column sums of the bands above
 * it into the table row where it starts, and writes its rows from there. The table is written
 * once, so the pass runs at memory speed; the input reads are cheap next to the table writes.
 * Both passes are plain parallel loops over bands, so the result does not depend on how many
 * threads OpenMP actually grants. */
#include "sat_cpu.h"

#include <string.h>

/* Bands are never thinner than this many rows: thinner bands cost more in carries than they gain. */
#define SAT_CPU_MIN_BAND_ROWS 64

static int band_count(int height, int threads)
{
    int bands = threads < 1 ? 1 : threads;
    int by_rows = height / SAT_CPU_MIN_BAND_ROWS;
    if (by_rows < 1) by_rows = 1;
    return bands < by_rows ? bands : by_rows;
}

size_t satfeat_sat_cpu_scratch_bytes(int width, int height, int threads, size_t elem_bytes)
{
    /* per band: column sums of the band and the running column totals */
    return (size_t)band_count(height, threads) * 2u * (size_t)width * elem_bytes;
}

static int band_start(int height, int bands, int b)
{
    return (int)((long long)height * b / bands);
}

/* The body shared by both element types: T is the input type, A the accumulator, O the output. */
#define SAT_CPU_BODY(T, A, O)                                                                    \
    const int bands = band_count(height, threads);                                               \
    const size_t w = (size_t)width;                                                              \
    A *colsum = scratch;                                                                         \
    A *total = colsum + (size_t)bands * w;                                                       \
    memset(dst, 0, (w + 1) * sizeof(O));                                                         \
    _Pragma("omp parallel for num_threads(bands) schedule(static) if (bands > 2)")               \
    for (int b = 0; b < bands - 1; b++) {                                                        \
        A *cs = colsum + (size_t)b * w;                                                          \
        memset(cs, 0, w * sizeof *cs);                                                           \
        for (int y = band_start(height, bands, b); y < band_start(height, bands, b + 1); y++) {  \
            const T *in = (const T *)((const uint8_t *)src + (size_t)y * src_stride);            \
            for (size_t x = 0; x < w; x++) cs[x] += in[x];                                       \
        }                                                                                        \
    }                                                                                            \
    _Pragma("omp parallel for num_threads(bands) schedule(static) if (bands > 1)")               \
    for (int b = 0; b < bands; b++) {                                                            \
        A *acc = total + (size_t)b * w;                                                          \
        memset(acc, 0, w * sizeof *acc);                                                         \
        for (int k = 0; k < b; k++) {                                                            \
            const A *ck = colsum + (size_t)k * w;                                                \
            for (size_t x = 0; x < w; x++) acc[x] += ck[x];                                      \
        }                                                                                        \
        for (size_t x = 1; x < w; x++) acc[x] += acc[x - 1]; /* column sums -> table row */       \
        for (int y = band_start(height, bands, b); y < band_start(height, bands, b + 1); y++) {  \
            const T *in = (const T *)((const uint8_t *)src + (size_t)y * src_stride);            \
            O *out = (O *)((uint8_t *)dst + (size_t)(y + 1) * dst_stride);                       \
            A run = 0;                                                                           \
            out[0] = 0;                                                                          \
            for (size_t x = 0; x < w; x++) {                                                     \
                run += in[x];                                                                    \
                acc[x] += run;                                                                   \
                out[x + 1] = (O)acc[x];                                                          \
            }                                                                                    \
        }                                                                                        \
    }

void satfeat_sat_cpu_u8(const uint8_t *src, size_t src_stride, int width, int height,
                        uint32_t *dst, size_t dst_stride, int threads, void *scratch)
{
    SAT_CPU_BODY(uint8_t, uint32_t, uint32_t)
}

void satfeat_sat_cpu_f32(const float *src, size_t src_stride, int width, int height, float *dst,
                         size_t dst_stride, int threads, void *scratch)
{
    SAT_CPU_BODY(float, double, float)
}
