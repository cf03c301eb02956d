/* sat_cpu.c - the CPU summed area table, threaded over row bands.
 *
 * Two passes over the input, one over the output: the column sums of every band but the last
 * are computed first (reading only the input, split over threads by band and column range);
 * every band then prefixes the column sums of the bands above it into the table row where it
 * starts, and writes its rows from there. The table is written once, with streaming stores on
 * x86-64 so no cache line is read before it is written, so the pass runs near memory-copy
 * speed. Both passes are plain parallel loops, so the result does not depend on how many
 * threads OpenMP actually grants. */
#include "sat/sat.h"

#include <string.h>

#if defined(__SSE2__)
#include <emmintrin.h>
#define SAT_CPU_SSE2 1
#endif
#if defined(__GNUC__) && defined(__x86_64__) && !defined(__clang__)
#include <immintrin.h>
#define SAT_CPU_AVX2 1
#endif

/* Bands are never thinner than this many rows: thinner bands cost more in carries than they gain. */
#define SAT_CPU_MIN_BAND_ROWS 64
/* Column ranges of the column-sum pass are multiples of this many columns (one cache line of u8
 * input per row at least, so two threads never share a line of column sums either). */
#define SAT_CPU_COLUMN_CHUNK 64

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

/* Splits the columns into `parts` ranges that are multiples of SAT_CPU_COLUMN_CHUNK. */
static void column_range(size_t w, int parts, int p, size_t *x0, size_t *x1)
{
    size_t chunks = (w + SAT_CPU_COLUMN_CHUNK - 1) / SAT_CPU_COLUMN_CHUNK;
    size_t c0 = chunks * (size_t)p / (size_t)parts, c1 = chunks * (size_t)(p + 1) / (size_t)parts;
    *x0 = c0 * SAT_CPU_COLUMN_CHUNK;
    *x1 = c1 * SAT_CPU_COLUMN_CHUNK < w ? c1 * SAT_CPU_COLUMN_CHUNK : w;
}

static const uint8_t *row_at(const void *base, size_t stride, int y)
{
    return (const uint8_t *)base + (size_t)y * stride;
}

/* Writes one table row of a u8 image: acc (the table row above, without its zero column) is
 * advanced by the row's running prefix and stored to out[1..w]. */
static void write_row_u8(const uint8_t *in, uint32_t *acc, uint32_t *out, size_t w)
{
    size_t x = 0;
    uint32_t run = 0;
    out[0] = 0;
#ifdef SAT_CPU_SSE2
    /* scalar until out[x + 1] is 16-byte aligned, then sixteen entries per step, in streaming stores */
    while (x < w && ((uintptr_t)(out + x + 1) & 15u)) {
        run += in[x];
        acc[x] += run;
        out[x + 1] = acc[x];
        x++;
    }
    const __m128i zero = _mm_setzero_si128();
    __m128i carry = _mm_set1_epi32((int)run);
    for (; x + 16 <= w; x += 16) {
        /* 16 pixels: widen to four vectors of u32, prefix each, chain the carries */
        __m128i px = _mm_loadu_si128((const __m128i *)(in + x));
        __m128i lo = _mm_unpacklo_epi8(px, zero), hi = _mm_unpackhi_epi8(px, zero);
        __m128i q[4] = {_mm_unpacklo_epi16(lo, zero), _mm_unpackhi_epi16(lo, zero),
                        _mm_unpacklo_epi16(hi, zero), _mm_unpackhi_epi16(hi, zero)};
        for (int k = 0; k < 4; k++) {
            __m128i v = q[k];
            v = _mm_add_epi32(v, _mm_slli_si128(v, 4));
            v = _mm_add_epi32(v, _mm_slli_si128(v, 8));
            v = _mm_add_epi32(v, carry);
            carry = _mm_shuffle_epi32(v, _MM_SHUFFLE(3, 3, 3, 3));
            __m128i a = _mm_add_epi32(_mm_loadu_si128((const __m128i *)(acc + x + 4 * k)), v);
            _mm_storeu_si128((__m128i *)(acc + x + 4 * k), a);
            _mm_stream_si128((__m128i *)(out + x + 4 * k + 1), a);
        }
    }
    run = (uint32_t)_mm_cvtsi128_si32(carry);
#endif
    for (; x < w; x++) {
        run += in[x];
        acc[x] += run;
        out[x + 1] = acc[x];
    }
}

#ifdef SAT_CPU_AVX2
/* write_row_u8 with 8 entries per vector, for CPUs with AVX2 (picked at run time). */
__attribute__((target("avx2"))) static void write_row_u8_avx2(const uint8_t *in, uint32_t *acc,
                                                              uint32_t *out, size_t w)
{
    size_t x = 0;
    uint32_t run = 0;
    out[0] = 0;
    /* scalar until out[x + 1] is 32-byte aligned, then 32 entries per step, streaming stores */
    while (x < w && ((uintptr_t)(out + x + 1) & 31u)) {
        run += in[x];
        acc[x] += run;
        out[x + 1] = acc[x];
        x++;
    }
    __m256i carry = _mm256_set1_epi32((int)run);
    const __m256i last = _mm256_set1_epi32(7);
    for (; x + 32 <= w; x += 32) {
        __m128i px[2] = {_mm_loadu_si128((const __m128i *)(in + x)),
                         _mm_loadu_si128((const __m128i *)(in + x + 16))};
        for (int k = 0; k < 4; k++) {
            /* 8 pixels widened to u32, prefixed inside each 128-bit half, then across halves */
            __m128i eight = k & 1 ? _mm_unpackhi_epi64(px[k >> 1], px[k >> 1]) : px[k >> 1];
            __m256i v = _mm256_cvtepu8_epi32(eight);
            v = _mm256_add_epi32(v, _mm256_slli_si256(v, 4));
            v = _mm256_add_epi32(v, _mm256_slli_si256(v, 8));
            __m256i low_total = _mm256_permute2x128_si256(v, v, 0x08); /* low half -> high */
            v = _mm256_add_epi32(v, _mm256_shuffle_epi32(low_total, _MM_SHUFFLE(3, 3, 3, 3)));
            v = _mm256_add_epi32(v, carry);
            carry = _mm256_permutevar8x32_epi32(v, last);
            __m256i a = _mm256_add_epi32(_mm256_loadu_si256((const __m256i *)(acc + x + 8 * k)), v);
            _mm256_storeu_si256((__m256i *)(acc + x + 8 * k), a);
            _mm256_stream_si256((__m256i *)(out + x + 8 * k + 1), a);
        }
    }
    run = (uint32_t)_mm256_cvtsi256_si32(carry);
    for (; x < w; x++) {
        run += in[x];
        acc[x] += run;
        out[x + 1] = acc[x];
    }
}
#endif

/* The row writer for this CPU: AVX2 where the processor has it, else the baseline one. */
typedef void (*write_row_u8_fn)(const uint8_t *, uint32_t *, uint32_t *, size_t);
static write_row_u8_fn pick_write_row_u8(satfeat_sat_cpu_isa isa)
{
#ifdef SAT_CPU_AVX2
    if (isa == SATFEAT_SAT_CPU_ISA_BEST && __builtin_cpu_supports("avx2")) return write_row_u8_avx2;
#else
    (void)isa;
#endif
    return write_row_u8;
}

void satfeat_sat_cpu_u8(const uint8_t *src, size_t src_stride, int width, int height,
                        uint32_t *dst, size_t dst_stride, int threads, void *scratch,
                        satfeat_sat_cpu_isa isa)
{
    const int bands = band_count(height, threads);
    const int parts = threads < 1 ? 1 : threads;
    const size_t w = (size_t)width;
    uint32_t *colsum = scratch;                    /* bands x w */
    uint32_t *total = colsum + (size_t)bands * w;  /* bands x w */
    const write_row_u8_fn write_row = pick_write_row_u8(isa);
    memset(dst, 0, (w + 1) * sizeof *dst);

    /* pass 1: column sums of bands 0..bands-2, split by band and column range */
#pragma omp parallel for num_threads(parts) schedule(static) if (bands > 1)
    for (int job = 0; job < (bands - 1) * parts; job++) {
        int b = job / parts;
        size_t x0, x1;
        column_range(w, parts, job % parts, &x0, &x1);
        uint32_t *cs = colsum + (size_t)b * w;
        memset(cs + x0, 0, (x1 - x0) * sizeof *cs);
        for (int y = band_start(height, bands, b); y < band_start(height, bands, b + 1); y++) {
            const uint8_t *in = row_at(src, src_stride, y);
            for (size_t x = x0; x < x1; x++) cs[x] += in[x];
        }
    }
    /* pass 2: each band starts from the table row above it and writes its rows */
#pragma omp parallel for num_threads(bands) schedule(static) if (bands > 1)
    for (int b = 0; b < bands; b++) {
        uint32_t *acc = total + (size_t)b * w;
        memset(acc, 0, w * sizeof *acc);
        for (int k = 0; k < b; k++) {
            const uint32_t *ck = colsum + (size_t)k * w;
            for (size_t x = 0; x < w; x++) acc[x] += ck[x];
        }
        for (size_t x = 1; x < w; x++) acc[x] += acc[x - 1];
        for (int y = band_start(height, bands, b); y < band_start(height, bands, b + 1); y++)
            write_row(row_at(src, src_stride, y), acc,
                         (uint32_t *)((uint8_t *)dst + (size_t)(y + 1) * dst_stride), w);
#ifdef SAT_CPU_SSE2
        _mm_sfence(); /* streaming stores are visible before the loop's barrier */
#endif
    }
}

void satfeat_sat_cpu_f32(const float *src, size_t src_stride, int width, int height, float *dst,
                         size_t dst_stride, int threads, void *scratch)
{
    const int bands = band_count(height, threads);
    const size_t w = (size_t)width;
    double *colsum = scratch;
    double *total = colsum + (size_t)bands * w;
    memset(dst, 0, (w + 1) * sizeof *dst);

#pragma omp parallel for num_threads(bands) schedule(static) if (bands > 2)
    for (int b = 0; b < bands - 1; b++) {
        double *cs = colsum + (size_t)b * w;
        memset(cs, 0, w * sizeof *cs);
        for (int y = band_start(height, bands, b); y < band_start(height, bands, b + 1); y++) {
            const float *in = (const float *)row_at(src, src_stride, y);
            for (size_t x = 0; x < w; x++) cs[x] += in[x];
        }
    }
#pragma omp parallel for num_threads(bands) schedule(static) if (bands > 1)
    for (int b = 0; b < bands; b++) {
        double *acc = total + (size_t)b * w;
        memset(acc, 0, w * sizeof *acc);
        for (int k = 0; k < b; k++) {
            const double *ck = colsum + (size_t)k * w;
            for (size_t x = 0; x < w; x++) acc[x] += ck[x];
        }
        for (size_t x = 1; x < w; x++) acc[x] += acc[x - 1];
        for (int y = band_start(height, bands, b); y < band_start(height, bands, b + 1); y++) {
            const float *in = (const float *)row_at(src, src_stride, y);
            float *out = (float *)((uint8_t *)dst + (size_t)(y + 1) * dst_stride);
            double run = 0.0;
            out[0] = 0.0f;
            for (size_t x = 0; x < w; x++) {
                run += in[x];
                acc[x] += run;
                out[x + 1] = (float)acc[x];
            }
        }
    }
}
