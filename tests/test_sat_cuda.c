/* test_sat_cuda.c - the CUDA u8 SAT (2R1W and SKSS-LB) against the CPU reference: bit-identical
 * tables at 300+ random sizes with padded strides and poisoned outputs, the host-memory entry
 * points, and argument errors on CUDA contexts. */
#include "test_util.h"

#ifdef SATFEAT_TEST_HAVE_CUDA
#include "sat_cuda_check.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const satfeat_sat_algo kAlgos[] = {SATFEAT_SAT_2R1W, SATFEAT_SAT_SKSS_LB};

/* Both algorithms on one random case of w x h. */
static void check_both(satfeat_ctx *gpu, satfeat_ctx *cpu, test_rng *rng, int w, int h)
{
    sat_case_u8 c;
    sat_case_u8_new(&c, cpu, rng, w, h);
    for (int a = 0; a < 2; a++) sat_check_u8_device(gpu, &c, kAlgos[a]);
    sat_case_u8_free(&c);
}

static void test_u8_random_sizes(void **state)
{
    (void)state;
    satfeat_ctx *gpu = test_cuda_ctx_or_skip();
    satfeat_ctx *cpu = NULL;
    assert_int_equal(satfeat_ctx_new(&cpu, SATFEAT_BACKEND_CPU, 0), SATFEAT_OK);
    sat_check_watchdog(300);
    test_rng rng;
    test_rng_seed(&rng, 2026);
    static const int fixed[][2] = {{1, 1},    {1, 2},     {2, 1},     {3, 5},    {31, 31},
                                   {31, 33},  {32, 32},   {33, 31},   {63, 63},  {64, 64},
                                   {65, 65},  {127, 127}, {128, 128}, {129, 129}, {255, 1},
                                   {1, 255},  {4, 1000},  {1000, 4},  {1920, 1080}, {8193, 4099}};
    const int small = sat_check_small();
    int count = 0;
    for (size_t i = 0; i < sizeof fixed / sizeof fixed[0]; i++) {
        if (small && (fixed[i][0] > 300 || fixed[i][1] > 300)) continue;
        check_both(gpu, cpu, &rng, fixed[i][0], fixed[i][1]);
        count++;
    }
    /* random sizes: mostly small, some up to 8193 x 4099, log-uniform so every scale occurs */
    const int n_random = small ? 20 : 300;
    for (int i = 0; i < n_random; i++) {
        int wmax = small ? 200 : (i % 10 == 0 ? 8193 : 1200);
        int hmax = small ? 200 : (i % 10 == 0 ? 4099 : 900);
        double fw = test_rng_unit(&rng), fh = test_rng_unit(&rng);
        int w = 1 + (int)(exp(fw * log((double)wmax)) - 1.0);
        int h = 1 + (int)(exp(fh * log((double)hmax)) - 1.0);
        check_both(gpu, cpu, &rng, w > wmax ? wmax : w, h > hmax ? hmax : h);
        count++;
    }
    printf("checked %d sizes x 2 algorithms bit for bit\n", count);
    satfeat_ctx_delete(cpu);
    satfeat_ctx_delete(gpu);
}

/* The host-memory entry point (AUTO, 2R1W, SKSS-LB) with padded strides; dst poisoned. */
static void test_u8_host_entry(void **state)
{
    (void)state;
    satfeat_ctx *gpu = test_cuda_ctx_or_skip();
    sat_check_watchdog(120);
    test_rng rng;
    test_rng_seed(&rng, 77);
    static const int sizes[][2] = {{1, 1}, {17, 3}, {640, 480}, {1000, 999}, {64, 1}};
    static const satfeat_sat_algo algos[] = {SATFEAT_SAT_AUTO, SATFEAT_SAT_2R1W, SATFEAT_SAT_SKSS_LB};
    for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++) {
        const int w = sizes[i][0], h = sizes[i][1];
        const size_t ss = (size_t)w + 5, ds = ((size_t)w + 3) * 4;
        uint8_t *src = malloc(ss * (size_t)h);
        uint32_t *dst = malloc(ds * ((size_t)h + 1));
        uint32_t *ref = malloc(((size_t)w + 1) * ((size_t)h + 1) * 4);
        assert_non_null(src);
        assert_non_null(dst);
        assert_non_null(ref);
        test_fill_u8(&rng, src, ss * (size_t)h);
        test_reference_sat_u8(src, ss, w, h, ref);
        for (size_t a = 0; a < 3; a++) {
            memset(dst, 0xcd, ds * ((size_t)h + 1));
            assert_int_equal(satfeat_sat_u8(gpu, src, ss, w, h, dst, ds, algos[a]), SATFEAT_OK);
            for (int y = 0; y <= h; y++) {
                const uint32_t *row = dst + (size_t)y * (ds / 4);
                assert_memory_equal(row, ref + (size_t)y * ((size_t)w + 1), ((size_t)w + 1) * 4);
                assert_int_equal(row[w + 1], 0xcdcdcdcdu); /* padding untouched */
            }
        }
        free(src);
        free(dst);
        free(ref);
    }
    satfeat_ctx_delete(gpu);
}

/* Argument errors on a CUDA context, and GPU algorithms on a CPU context. */
static void test_argument_errors(void **state)
{
    (void)state;
    satfeat_ctx *gpu = test_cuda_ctx_or_skip();
    satfeat_ctx *cpu = NULL;
    assert_int_equal(satfeat_ctx_new(&cpu, SATFEAT_BACKEND_CPU, 0), SATFEAT_OK);
    uint8_t *d_src = NULL;
    uint32_t *d_dst = NULL;
    CUDA_OK(cudaMalloc((void **)&d_src, 64 * 64));
    CUDA_OK(cudaMalloc((void **)&d_dst, 65 * 65 * 4));
    const satfeat_sat_algo gpu_algo = SATFEAT_SAT_SKSS_LB;
    assert_int_equal(satfeat_sat_u8_device(gpu, NULL, 64, 64, 64, d_dst, 65 * 4, gpu_algo, NULL), SATFEAT_ERR_ARG);
    assert_true(strlen(satfeat_ctx_last_error(gpu)) > 0);
    assert_int_equal(satfeat_sat_u8_device(gpu, d_src, 64, 64, 64, NULL, 65 * 4, gpu_algo, NULL), SATFEAT_ERR_ARG);
    assert_int_equal(satfeat_sat_u8_device(gpu, d_src, 64, 0, 64, d_dst, 65 * 4, gpu_algo, NULL), SATFEAT_ERR_ARG);
    assert_int_equal(satfeat_sat_u8_device(gpu, d_src, 64, 64, -1, d_dst, 65 * 4, gpu_algo, NULL), SATFEAT_ERR_ARG);
    assert_int_equal(satfeat_sat_u8_device(gpu, d_src, 63, 64, 64, d_dst, 65 * 4, gpu_algo, NULL), SATFEAT_ERR_ARG);
    assert_int_equal(satfeat_sat_u8_device(gpu, d_src, 64, 64, 64, d_dst, 64 * 4, gpu_algo, NULL), SATFEAT_ERR_ARG);
    assert_int_equal(satfeat_sat_u8_device(gpu, d_src, 64, 64, 64, d_dst, 65 * 4 + 2, gpu_algo, NULL), SATFEAT_ERR_ARG);
    assert_int_equal(satfeat_sat_u8_device(gpu, d_src, 64, 64, 64, d_dst, 65 * 4, SATFEAT_SAT_CPU, NULL), SATFEAT_ERR_ARG);
    assert_int_equal(satfeat_sat_u8_device(gpu, d_src, 64, 64, 64, d_dst, 65 * 4, (satfeat_sat_algo)42, NULL), SATFEAT_ERR_ARG);
    assert_int_equal(satfeat_sat_f32_device(gpu, (const float *)(const void *)d_src, 62, 16, 16,
                                            (float *)(void *)d_dst, 17 * 4, gpu_algo, NULL),
                     SATFEAT_ERR_ARG); /* stride not a multiple of 4 */
    assert_int_equal(satfeat_sat_u8_device(cpu, d_src, 64, 64, 64, d_dst, 65 * 4, gpu_algo, NULL), SATFEAT_ERR_UNSUPPORTED);
    uint8_t img[4] = {1, 2, 3, 4};
    uint32_t tab[9];
    assert_int_equal(satfeat_sat_u8(cpu, img, 2, 2, 2, tab, 12, SATFEAT_SAT_2R1W), SATFEAT_ERR_UNSUPPORTED);
    assert_int_equal(satfeat_sat_u8(gpu, img, 2, 2, 2, tab, 12, SATFEAT_SAT_CPU), SATFEAT_OK);
    assert_int_equal(tab[8], 10u);
    assert_int_equal(satfeat_sat_u8(gpu, img, 2, 2, 2, tab, 12, SATFEAT_SAT_SKSS_LB), SATFEAT_OK);
    assert_int_equal(tab[8], 10u);
    cudaFree(d_src);
    cudaFree(d_dst);
    satfeat_ctx_delete(cpu);
    satfeat_ctx_delete(gpu);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_u8_random_sizes),
        cmocka_unit_test(test_u8_host_entry),
        cmocka_unit_test(test_argument_errors),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

#else /* built without CUDA: the test skips */

int main(void)
{
    return test_main_without_cuda();
}
#endif
