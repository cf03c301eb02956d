/* test_sat_cpu.c - the CPU SAT against a naive reference: random sizes, strides, wrap-around,
 * float precision, thread counts and API misuse. */
#include "test_util.h"
#include "sat/sat.h"

#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#define POISON_U32 0xdeadbeefu

/* Runs the CPU SAT of a random w x h image with padded strides and compares every entry. */
static void check_u8_size(satfeat_ctx *ctx, test_rng *rng, int w, int h)
{
    size_t src_stride = (size_t)w + (size_t)test_rng_range(rng, 0, 7);
    size_t tw = (size_t)w + 1 + (size_t)test_rng_range(rng, 0, 3);
    uint8_t *src = malloc(src_stride * (size_t)h);
    uint32_t *dst = malloc(tw * 4 * ((size_t)h + 1));
    uint32_t *ref = malloc(((size_t)w + 1) * ((size_t)h + 1) * 4);
    assert_non_null(src);
    assert_non_null(dst);
    assert_non_null(ref);
    test_fill_u8(rng, src, src_stride * (size_t)h);
    for (size_t i = 0; i < tw * ((size_t)h + 1); i++) dst[i] = POISON_U32;
    assert_int_equal(satfeat_sat_u8(ctx, src, src_stride, w, h, dst, tw * 4, SATFEAT_SAT_CPU),
                     SATFEAT_OK);
    test_reference_sat_u8(src, src_stride, w, h, ref);
    for (int y = 0; y <= h; y++) {
        if (memcmp(dst + (size_t)y * tw, ref + (size_t)y * ((size_t)w + 1), ((size_t)w + 1) * 4)) {
            print_error("mismatch at %dx%d row %d\n", w, h, y);
            fail();
        }
        for (size_t x = (size_t)w + 1; x < tw; x++) assert_int_equal(dst[(size_t)y * tw + x], POISON_U32);
    }
    free(src);
    free(dst);
    free(ref);
}

static void test_u8_random_sizes(void **state)
{
    (void)state;
    static const int fixed[][2] = {{1, 1},     {1, 2},     {2, 1},    {1, 977},  {977, 1},
                                   {31, 33},   {32, 32},   {63, 65},  {64, 64},  {127, 129},
                                   {128, 128}, {257, 255}, {509, 521}, {1031, 7}, {7, 1031},
                                   {1000, 130}, {4099, 67}};
    satfeat_ctx *ctx = NULL;
    test_rng rng;
    test_rng_seed(&rng, 12345);
    assert_int_equal(satfeat_ctx_new(&ctx, SATFEAT_BACKEND_CPU, 0), SATFEAT_OK);
    for (int t = 1; t <= 4; t++) {
        assert_int_equal(satfeat_ctx_set_threads(ctx, t), SATFEAT_OK);
        for (size_t i = 0; i < sizeof fixed / sizeof fixed[0]; i++)
            check_u8_size(ctx, &rng, fixed[i][0], fixed[i][1]);
    }
    /* 200 random sizes with mixed thread counts, many not multiples of 32/64/128 */
    for (int i = 0; i < 200; i++) {
        assert_int_equal(satfeat_ctx_set_threads(ctx, test_rng_range(&rng, 1, 5)), SATFEAT_OK);
        int w = test_rng_range(&rng, 1, i < 100 ? 300 : 1500);
        int h = test_rng_range(&rng, 1, i < 100 ? 300 : 700);
        check_u8_size(ctx, &rng, w, h);
    }
    satfeat_ctx_delete(ctx);
}

/* A 5000x5000 all-255 image: entries wrap modulo 2^32, box sums stay exact. */
static void test_u8_wraparound_exact(void **state)
{
    (void)state;
    const int n = 5000;
    uint8_t *src = malloc((size_t)n * n);
    uint32_t *dst = malloc((size_t)(n + 1) * (n + 1) * 4);
    assert_non_null(src);
    assert_non_null(dst);
    memset(src, 255, (size_t)n * n);
    satfeat_ctx *ctx = NULL;
    assert_int_equal(satfeat_ctx_new(&ctx, SATFEAT_BACKEND_CPU, 0), SATFEAT_OK);
    assert_int_equal(satfeat_ctx_set_threads(ctx, 2), SATFEAT_OK);
    assert_int_equal(satfeat_sat_u8(ctx, src, n, n, n, dst, (size_t)(n + 1) * 4, SATFEAT_SAT_CPU),
                     SATFEAT_OK);
    /* the last entry is 255 * 25e6 mod 2^32, so the table really wrapped */
    uint64_t full = 255ull * n * n;
    assert_true(full > UINT32_MAX);
    assert_int_equal(dst[(size_t)(n + 1) * (n + 1) - 1], (uint32_t)full);
    satfeat_table_u32 t = {dst, (size_t)(n + 1) * 4, n, n};
    test_rng rng;
    test_rng_seed(&rng, 77);
    for (int i = 0; i < 2000; i++) {
        /* boxes up to 4096x4096: 255*4096*4096 < 2^32 */
        int bw = test_rng_range(&rng, 1, 4096), bh = test_rng_range(&rng, 1, 4096);
        int x = test_rng_range(&rng, 0, n - bw), y = test_rng_range(&rng, 0, n - bh);
        uint32_t s = 0;
        assert_int_equal(satfeat_box_sum_u32(&t, x, y, bw, bh, &s), SATFEAT_OK);
        assert_int_equal(s, 255u * (uint32_t)bw * (uint32_t)bh);
    }
    satfeat_ctx_delete(ctx);
    free(src);
    free(dst);
}

/* f32: each entry within 4 ulps of the float64 reference (the CPU path rounds once from a double
 * sum; the documented bound in docs/PRECISION.md is 1 ulp plus double rounding noise). */
static void test_f32_precision(void **state)
{
    (void)state;
    satfeat_ctx *ctx = NULL;
    test_rng rng;
    test_rng_seed(&rng, 999);
    assert_int_equal(satfeat_ctx_new(&ctx, SATFEAT_BACKEND_CPU, 0), SATFEAT_OK);
    for (int i = 0; i < 60; i++) {
        int w = test_rng_range(&rng, 1, 700), h = test_rng_range(&rng, 1, 500);
        size_t ss = ((size_t)w + (size_t)test_rng_range(&rng, 0, 3)) * 4;
        float *src = malloc(ss * (size_t)h);
        float *dst = malloc(((size_t)w + 1) * ((size_t)h + 1) * 4);
        double *ref = malloc(((size_t)w + 1) * ((size_t)h + 1) * 8);
        assert_non_null(src);
        assert_non_null(dst);
        assert_non_null(ref);
        for (size_t k = 0; k < ss / 4 * (size_t)h; k++) src[k] = test_rng_unit(&rng) * 2.0f - 0.5f;
        assert_int_equal(satfeat_ctx_set_threads(ctx, test_rng_range(&rng, 1, 4)), SATFEAT_OK);
        assert_int_equal(satfeat_sat_f32(ctx, src, ss, w, h, dst, ((size_t)w + 1) * 4,
                                         SATFEAT_SAT_CPU),
                         SATFEAT_OK);
        test_reference_sat_f64(src, ss, w, h, ref);
        for (size_t k = 0; k < ((size_t)w + 1) * ((size_t)h + 1); k++) {
            double err = fabs((double)dst[k] - ref[k]);
            double ulp = fabs(ref[k]) * FLT_EPSILON;
            if (err > 4.0 * ulp + 1e-30) {
                print_error("f32 %dx%d entry %zu: %.9g vs %.9g\n", w, h, k, dst[k], ref[k]);
                fail();
            }
        }
        free(src);
        free(dst);
        free(ref);
    }
    satfeat_ctx_delete(ctx);
}

static void test_misuse(void **state)
{
    (void)state;
    satfeat_ctx *ctx = NULL;
    uint8_t img[16] = {0};
    uint32_t tab[25];
    float fimg[16] = {0}, ftab[25];
    assert_int_equal(satfeat_ctx_new(&ctx, SATFEAT_BACKEND_CPU, 0), SATFEAT_OK);
    assert_int_equal(satfeat_sat_u8(NULL, img, 4, 4, 4, tab, 20, SATFEAT_SAT_CPU), SATFEAT_ERR_ARG);
    assert_int_equal(satfeat_sat_u8(ctx, NULL, 4, 4, 4, tab, 20, SATFEAT_SAT_CPU), SATFEAT_ERR_ARG);
    assert_int_equal(satfeat_sat_u8(ctx, img, 4, 4, 4, NULL, 20, SATFEAT_SAT_CPU), SATFEAT_ERR_ARG);
    assert_int_equal(satfeat_sat_u8(ctx, img, 4, 0, 4, tab, 20, SATFEAT_SAT_CPU), SATFEAT_ERR_ARG);
    assert_int_equal(satfeat_sat_u8(ctx, img, 4, 4, -1, tab, 20, SATFEAT_SAT_CPU), SATFEAT_ERR_ARG);
    assert_int_equal(satfeat_sat_u8(ctx, img, 3, 4, 4, tab, 20, SATFEAT_SAT_CPU), SATFEAT_ERR_ARG);
    assert_true(strstr(satfeat_ctx_last_error(ctx), "stride") != NULL);
    assert_int_equal(satfeat_sat_u8(ctx, img, 4, 4, 4, tab, 16, SATFEAT_SAT_CPU), SATFEAT_ERR_ARG);
    assert_int_equal(satfeat_sat_u8(ctx, img, 4, 4, 4, tab, 22, SATFEAT_SAT_CPU), SATFEAT_ERR_ARG);
    assert_int_equal(satfeat_sat_u8(ctx, img, 4, 4, 4, tab, 20, (satfeat_sat_algo)9), SATFEAT_ERR_ARG);
    assert_int_equal(satfeat_sat_u8(ctx, img, (size_t)-1, 4, 1 << 30, tab, 20, SATFEAT_SAT_CPU),
                     SATFEAT_ERR_OVERFLOW);
    /* GPU algorithms on a CPU context, device calls on a CPU context */
    assert_int_equal(satfeat_sat_u8(ctx, img, 4, 4, 4, tab, 20, SATFEAT_SAT_SKSS_LB),
                     SATFEAT_ERR_UNSUPPORTED);
    assert_int_equal(satfeat_sat_u8_device(ctx, img, 4, 4, 4, tab, 20, SATFEAT_SAT_AUTO, NULL),
                     SATFEAT_ERR_UNSUPPORTED);
    assert_int_equal(satfeat_sat_f32(ctx, fimg, 15, 4, 4, ftab, 20, SATFEAT_SAT_CPU), SATFEAT_ERR_ARG);
    assert_int_equal(satfeat_sat_f32(ctx, fimg, 12, 4, 4, ftab, 20, SATFEAT_SAT_CPU), SATFEAT_ERR_ARG);
    assert_int_equal(satfeat_sat_f32_device(ctx, fimg, 16, 4, 4, ftab, 20, SATFEAT_SAT_2R1W, NULL),
                     SATFEAT_ERR_UNSUPPORTED);
    /* a failed call leaves the output untouched */
    for (int i = 0; i < 25; i++) tab[i] = POISON_U32;
    assert_int_equal(satfeat_sat_u8(ctx, img, 4, 4, 4, tab, 19, SATFEAT_SAT_CPU), SATFEAT_ERR_ARG);
    for (int i = 0; i < 25; i++) assert_int_equal(tab[i], POISON_U32);
    /* and the context still works */
    assert_int_equal(satfeat_sat_f32(ctx, fimg, 16, 4, 4, ftab, 20, SATFEAT_SAT_AUTO), SATFEAT_OK);
    assert_int_equal(satfeat_sat_u8(ctx, img, 4, 4, 4, tab, 20, SATFEAT_SAT_AUTO), SATFEAT_OK);
    satfeat_ctx_delete(ctx);
}

/* The baseline row writer, which the dispatcher skips on CPUs with AVX2, against the reference. */
static void test_u8_baseline_row_writer(void **state)
{
    (void)state;
    test_rng rng;
    test_rng_seed(&rng, 4242);
    for (int i = 0; i < 60; i++) {
        int w = test_rng_range(&rng, 1, 700), h = test_rng_range(&rng, 1, 300);
        int threads = test_rng_range(&rng, 1, 3);
        size_t ss = (size_t)w + (size_t)test_rng_range(&rng, 0, 5), ts = ((size_t)w + 1) * 4;
        uint8_t *src = malloc(ss * (size_t)h);
        uint32_t *dst = malloc(ts * ((size_t)h + 1)), *ref = malloc(ts * ((size_t)h + 1));
        void *scratch = malloc(satfeat_sat_cpu_scratch_bytes(w, h, threads, 4));
        assert_non_null(src);
        assert_non_null(dst);
        assert_non_null(ref);
        assert_non_null(scratch);
        test_fill_u8(&rng, src, ss * (size_t)h);
        satfeat_sat_cpu_u8(src, ss, w, h, dst, ts, threads, scratch, SATFEAT_SAT_CPU_ISA_BASELINE);
        test_reference_sat_u8(src, ss, w, h, ref);
        assert_memory_equal(dst, ref, ts * ((size_t)h + 1));
        free(src);
        free(dst);
        free(ref);
        free(scratch);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_u8_random_sizes),
        cmocka_unit_test(test_u8_baseline_row_writer),
        cmocka_unit_test(test_u8_wraparound_exact),
        cmocka_unit_test(test_f32_precision),
        cmocka_unit_test(test_misuse),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
