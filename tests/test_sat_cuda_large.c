/* test_sat_cuda_large.c - the CUDA u8 SAT at large and extreme shapes: 16384 x 16384, 32768 x
 * 32768 (a 4 GiB table: 64-bit indexing, wrap-around), a 1 x 1000000 and a 1000000 x 1 strip;
 * both algorithms, bit-identical to the CPU reference. Skipped under SATFEAT_TEST_SMALL. */
#include "test_util.h"

#ifdef SATFEAT_TEST_HAVE_CUDA
#include "sat_cuda_check.h"

#include <stdio.h>

static void check_shape(int w, int h)
{
    satfeat_ctx *gpu = test_cuda_ctx_or_skip();
    if (sat_check_small()) {
        printf("SATFEAT_TEST_SMALL: skipping %dx%d\n", w, h);
        satfeat_ctx_delete(gpu);
        skip();
    }
    satfeat_ctx *cpu = NULL;
    assert_int_equal(satfeat_ctx_new(&cpu, SATFEAT_BACKEND_CPU, 0), SATFEAT_OK);
    sat_check_watchdog(240);
    test_rng rng;
    test_rng_seed(&rng, (uint64_t)w * 31u + (uint64_t)h);
    sat_case_u8 c;
    sat_case_u8_new(&c, cpu, &rng, w, h);
    sat_check_u8_device(gpu, &c, SATFEAT_SAT_2R1W);
    sat_check_u8_device(gpu, &c, SATFEAT_SAT_SKSS_LB);
    sat_case_u8_free(&c);
    satfeat_ctx_delete(cpu);
    satfeat_ctx_delete(gpu);
}

static void test_16384_square(void **state)
{
    (void)state;
    check_shape(16384, 16384);
}

static void test_32768_square(void **state)
{
    (void)state;
    check_shape(32768, 32768);
}

static void test_strip_1x1000000(void **state)
{
    (void)state;
    check_shape(1, 1000000);
}

static void test_strip_1000000x1(void **state)
{
    (void)state;
    check_shape(1000000, 1);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_16384_square),
        cmocka_unit_test(test_32768_square),
        cmocka_unit_test(test_strip_1x1000000),
        cmocka_unit_test(test_strip_1000000x1),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

#else

int main(void)
{
    return test_main_without_cuda();
}
#endif
