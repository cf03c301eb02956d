/* test_pool_cuda.c - the CUDA pool over every device (and over device 0 alone) returns, frame
 * for frame and in input order, the keypoints and descriptors of one CPU detector. Skips with
 * "no CUDA device" without one. */
#include "pool_testutil.h"

static void cuda_pool_equals_cpu(void **state)
{
    (void)state;
    satfeat_ctx_delete(test_cuda_ctx_or_skip());
    char err[256];
    satfeat_pool *pool = NULL;
    assert_int_equal(satfeat_pool_new(SATFEAT_BACKEND_CUDA, NULL, 0, NULL, W, H, &pool, err,
                                      sizeof err),
                     SATFEAT_OK);
    assert_int_equal(satfeat_pool_workers(pool), satfeat_cuda_device_count());
    check_pool(pool, 1);
    satfeat_pool_delete(pool);
    int zero = 0;
    assert_int_equal(satfeat_pool_new(SATFEAT_BACKEND_CUDA, &zero, 1, NULL, W, H, &pool, err,
                                      sizeof err),
                     SATFEAT_OK);
    assert_int_equal(satfeat_pool_worker_device(pool, 0), 0);
    check_pool(pool, 1);
    satfeat_pool_delete(pool);
    int twice[2] = {0, 0};
    assert_int_equal(satfeat_pool_new(SATFEAT_BACKEND_CUDA, twice, 2, NULL, W, H, &pool, err,
                                      sizeof err),
                     SATFEAT_ERR_ARG);
}

int main(void)
{
    const struct CMUnitTest tests[] = {cmocka_unit_test(cuda_pool_equals_cpu)};
    return cmocka_run_group_tests(tests, NULL, NULL);
}
