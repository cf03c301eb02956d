/* haar_block.c - satfeat_haar_block: Haar pairs of many corners, 8 at a time with AVX2 gathers
 * (haar_block.h says why the bits are those of satfeat_haar_xy). */
#include "describe/haar_block.h"

#include "describe/haar.h"

#include <limits.h>

#if defined(__GNUC__) && defined(__x86_64__) && !defined(__clang__)
#include <immintrin.h>
#define HAAR_BLOCK_AVX2 1
#endif

static void block_scalar(const uint32_t *t, size_t st, int width, int height, const int32_t *cx,
                         const int32_t *cy, int k, int n, int half, int32_t *dx, int32_t *dy)
{
    for (; k < n; k++) satfeat_haar_xy(t, st, width, height, cx[k], cy[k], half, &dx[k], &dy[k]);
}

#ifdef HAAR_BLOCK_AVX2
/* v clamped to [0, hi] lane-wise, as satfeat_haar_clamp(v, 0, hi). */
__attribute__((target("avx2"))) static inline __m256i clamp8(__m256i v, __m256i hi)
{
    return _mm256_min_epi32(_mm256_max_epi32(v, _mm256_setzero_si256()), hi);
}

/* Whole groups of 8 corners; returns how many corners it did. The indices row * st + column
 * fit an int32 (satfeat_haar_block_vector checked the table). */
__attribute__((target("avx2"))) static int block_avx2(const uint32_t *t, size_t st, int width,
                                                      int height, const int32_t *cx,
                                                      const int32_t *cy, int n, int half,
                                                      int32_t *dx, int32_t *dy)
{
    const int *b = (const int *)t;
    const __m256i vw = _mm256_set1_epi32(width), vh = _mm256_set1_epi32(height);
    const __m256i vhalf = _mm256_set1_epi32(half), vst = _mm256_set1_epi32((int)st);
    int k = 0;
    for (; k + 8 <= n; k += 8) {
        const __m256i x = _mm256_loadu_si256((const __m256i *)(cx + k));
        const __m256i y = _mm256_loadu_si256((const __m256i *)(cy + k));
        const __m256i xs = clamp8(_mm256_sub_epi32(x, vhalf), vw), xm = clamp8(x, vw);
        const __m256i xe = clamp8(_mm256_add_epi32(x, vhalf), vw);
        const __m256i rs = _mm256_mullo_epi32(clamp8(_mm256_sub_epi32(y, vhalf), vh), vst);
        const __m256i rm = _mm256_mullo_epi32(clamp8(y, vh), vst);
        const __m256i re = _mm256_mullo_epi32(clamp8(_mm256_add_epi32(y, vhalf), vh), vst);
        const __m256i ss = _mm256_i32gather_epi32(b, _mm256_add_epi32(rs, xs), 4);
        const __m256i sm = _mm256_i32gather_epi32(b, _mm256_add_epi32(rs, xm), 4);
        const __m256i se = _mm256_i32gather_epi32(b, _mm256_add_epi32(rs, xe), 4);
        const __m256i ms = _mm256_i32gather_epi32(b, _mm256_add_epi32(rm, xs), 4);
        const __m256i me = _mm256_i32gather_epi32(b, _mm256_add_epi32(rm, xe), 4);
        const __m256i es = _mm256_i32gather_epi32(b, _mm256_add_epi32(re, xs), 4);
        const __m256i em = _mm256_i32gather_epi32(b, _mm256_add_epi32(re, xm), 4);
        const __m256i ee = _mm256_i32gather_epi32(b, _mm256_add_epi32(re, xe), 4);
        /* satfeat_haar_pair, modulo 2^32 */
        const __m256i right = _mm256_add_epi32(_mm256_sub_epi32(_mm256_sub_epi32(ee, em), se), sm);
        const __m256i left = _mm256_add_epi32(_mm256_sub_epi32(_mm256_sub_epi32(em, es), sm), ss);
        const __m256i bottom = _mm256_add_epi32(_mm256_sub_epi32(_mm256_sub_epi32(ee, es), me), ms);
        const __m256i top = _mm256_add_epi32(_mm256_sub_epi32(_mm256_sub_epi32(me, ms), se), ss);
        _mm256_storeu_si256((__m256i *)(dx + k), _mm256_sub_epi32(right, left));
        _mm256_storeu_si256((__m256i *)(dy + k), _mm256_sub_epi32(bottom, top));
    }
    return k;
}
#endif

int satfeat_haar_block_vector(size_t st, int width, int height)
{
#ifdef HAAR_BLOCK_AVX2
    if (width < 0 || height < 0 || st < (size_t)width + 1) return 0;
    if ((size_t)height + 1 > (size_t)INT_MAX / st) return 0;
    return __builtin_cpu_supports("avx2") ? 1 : 0;
#else
    (void)st, (void)width, (void)height;
    return 0;
#endif
}

void satfeat_haar_block_isa(const uint32_t *t, size_t st, int width, int height,
                            const int32_t *cx, const int32_t *cy, int n, int half, int32_t *dx,
                            int32_t *dy, satfeat_haar_isa isa)
{
    int k = 0;
#ifdef HAAR_BLOCK_AVX2
    if (isa == SATFEAT_HAAR_ISA_BEST && satfeat_haar_block_vector(st, width, height))
        k = block_avx2(t, st, width, height, cx, cy, n, half, dx, dy);
#else
    (void)isa;
#endif
    block_scalar(t, st, width, height, cx, cy, k, n, half, dx, dy);
}

void satfeat_haar_block(const uint32_t *t, size_t st, int width, int height, const int32_t *cx,
                        const int32_t *cy, int n, int half, int32_t *dx, int32_t *dy)
{
    satfeat_haar_block_isa(t, st, width, height, cx, cy, n, half, dx, dy, SATFEAT_HAAR_ISA_BEST);
}
