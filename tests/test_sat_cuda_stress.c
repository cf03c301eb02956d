/* test_sat_cuda_stress.c - SKSS-LB under concurrency and repetition: two contexts on two streams
 * running at once on different images, and 1000 back-to-back launches of random sizes on one
 * context (no synchronisation between them), every table exact. A watchdog fails the test
 * instead of letting a deadlock hang it. */
#include "test_util.h"

#ifdef SATFEAT_TEST_HAVE_CUDA
#include "sat_cuda_check.h"

#include <stdio.h>

static void test_two_contexts_two_streams(void **state)
{
    (void)state;
    satfeat_ctx *a = test_cuda_ctx_or_skip();
    satfeat_ctx *b = NULL, *cpu = NULL;
    assert_int_equal(satfeat_ctx_new(&b, SATFEAT_BACKEND_CUDA, 0), SATFEAT_OK);
    assert_int_equal(satfeat_ctx_new(&cpu, SATFEAT_BACKEND_CPU, 0), SATFEAT_OK);
    sat_check_watchdog(120);
    test_rng rng;
    test_rng_seed(&rng, 99);
    const int small = sat_check_small();
    sat_case_u8 ca, cb;
    sat_case_u8_new(&ca, cpu, &rng, small ? 300 : 4096, small ? 200 : 4096);
    sat_case_u8_new(&cb, cpu, &rng, small ? 250 : 3001, small ? 310 : 5003);
    cudaStream_t sa, sb;
    CUDA_OK(cudaStreamCreateWithFlags(&sa, cudaStreamNonBlocking));
    CUDA_OK(cudaStreamCreateWithFlags(&sb, cudaStreamNonBlocking));
    for (int it = 0; it < (small ? 2 : 20); it++) {
        sat_case_u8_poison(&ca, sa);
        sat_case_u8_poison(&cb, sb);
        assert_int_equal(satfeat_sat_u8_device(a, ca.d_src, ca.src_stride, ca.w, ca.h, ca.d_dst,
                                               ca.dst_stride, SATFEAT_SAT_SKSS_LB, sa),
                         SATFEAT_OK);
        assert_int_equal(satfeat_sat_u8_device(b, cb.d_src, cb.src_stride, cb.w, cb.h, cb.d_dst,
                                               cb.dst_stride, SATFEAT_SAT_SKSS_LB, sb),
                         SATFEAT_OK);
        CUDA_OK(cudaStreamSynchronize(sa));
        CUDA_OK(cudaStreamSynchronize(sb));
        sat_case_u8_expect(&ca, "context A");
        sat_case_u8_expect(&cb, "context B");
    }
    cudaStreamDestroy(sa);
    cudaStreamDestroy(sb);
    sat_case_u8_free(&ca);
    sat_case_u8_free(&cb);
    satfeat_ctx_delete(cpu);
    satfeat_ctx_delete(b);
    satfeat_ctx_delete(a);
}

#define POOL 50

static void test_1000_back_to_back(void **state)
{
    (void)state;
    satfeat_ctx *gpu = test_cuda_ctx_or_skip();
    satfeat_ctx *cpu = NULL;
    assert_int_equal(satfeat_ctx_new(&cpu, SATFEAT_BACKEND_CPU, 0), SATFEAT_OK);
    sat_check_watchdog(120);
    test_rng rng;
    test_rng_seed(&rng, 1000);
    const int small = sat_check_small();
    const int maxside = small ? 100 : 700;
    const int batches = small ? 2 : 1000 / POOL;
    static sat_case_u8 pool[POOL];
    for (int i = 0; i < POOL; i++)
        sat_case_u8_new(&pool[i], cpu, &rng, test_rng_range(&rng, 1, maxside),
                        test_rng_range(&rng, 1, maxside));
    cudaStream_t s;
    CUDA_OK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
    int launches = 0;
    for (int bt = 0; bt < batches; bt++) {
        for (int i = 0; i < POOL; i++) {
            sat_case_u8 *c = &pool[i];
            sat_case_u8_poison(c, s);
            /* mostly SKSS-LB, whose tickets and flags carry over between launches */
            satfeat_sat_algo algo = test_rng_range(&rng, 0, 9) == 0 ? SATFEAT_SAT_2R1W : SATFEAT_SAT_SKSS_LB;
            satfeat_status st = satfeat_sat_u8_device(gpu, c->d_src, c->src_stride, c->w, c->h,
                                                      c->d_dst, c->dst_stride, algo, s);
            if (st != SATFEAT_OK) print_error("%s\n", satfeat_ctx_last_error(gpu));
            assert_int_equal(st, SATFEAT_OK);
            launches++;
        }
        CUDA_OK(cudaStreamSynchronize(s));
        for (int i = 0; i < POOL; i++) sat_case_u8_expect(&pool[i], "back-to-back");
    }
    printf("%d back-to-back launches exact\n", launches);
    cudaStreamDestroy(s);
    for (int i = 0; i < POOL; i++) sat_case_u8_free(&pool[i]);
    satfeat_ctx_delete(cpu);
    satfeat_ctx_delete(gpu);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_two_contexts_two_streams),
        cmocka_unit_test(test_1000_back_to_back),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

#else

int main(void)
{
    return test_main_without_cuda();
}
#endif
