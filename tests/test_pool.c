/* test_pool.c - satfeat_pool: frames spread over several workers come back in input order with
 * exactly the keypoints and descriptors of one detector; failures stay with their frame; the
 * CUDA pool reports clearly where there is no device (and, on a GPU machine, matches the CPU). */
#include "pool_testutil.h"

#include <stdlib.h>
#include <string.h>

static void cpu_pool_equals_one_detector(void **state)
{
    (void)state;
    satfeat_pool *pool = NULL;
    char err[256];
    assert_int_equal(satfeat_pool_new(SATFEAT_BACKEND_CPU, NULL, 3, NULL, W, H, &pool, err,
                                      sizeof err),
                     SATFEAT_OK);
    assert_int_equal(satfeat_pool_workers(pool), 3);
    assert_int_equal(satfeat_pool_worker_device(pool, 0), -1);
    assert_int_equal(satfeat_pool_descriptor_dim(pool), 64);
    check_pool(pool, 0);
    satfeat_pool_delete(pool);
}

static void failures_stay_with_their_frame(void **state)
{
    (void)state;
    frames fr;
    make_frames(&fr);
    uint8_t *big = calloc((size_t)(W + 1) * H, 1);
    assert_non_null(big);
    fr.f[5] = satfeat_image_view_host(big, W + 1, H, 0); /* larger than the pool's maximum */
    fr.f[7].memory = SATFEAT_MEMORY_DEVICE; /* host pixels called device memory: refused */
    satfeat_pool *pool = NULL;
    assert_int_equal(satfeat_pool_new(SATFEAT_BACKEND_CPU, NULL, 2, NULL, W, H, &pool, NULL, 0),
                     SATFEAT_OK);
    satfeat_frame_result r[N_FRAMES];
    memset(r, 0, sizeof r);
    assert_int_equal(satfeat_pool_detect(pool, fr.f, N_FRAMES, r), SATFEAT_ERR_ARG);
    assert_non_null(strstr(satfeat_pool_last_error(pool), "frame 5 "));
    for (int i = 0; i < N_FRAMES; i++) {
        if (i == 5) assert_int_equal(r[i].status, SATFEAT_ERR_ARG);
        else if (i == 7) assert_int_equal(r[i].status, SATFEAT_ERR_UNSUPPORTED);
        else assert_int_equal(r[i].status, SATFEAT_OK);
        /* every result has a set, empty where the frame failed */
        assert_non_null(r[i].features);
        assert_int_equal(satfeat_features_count(r[i].features) > 0, r[i].status == SATFEAT_OK);
    }
    assert_int_equal(satfeat_pool_detect(pool, NULL, 3, r), SATFEAT_ERR_ARG);
    assert_int_equal(satfeat_pool_detect(pool, NULL, 0, NULL), SATFEAT_OK);
    for (int i = 0; i < N_FRAMES; i++) satfeat_features_delete(r[i].features);
    satfeat_pool_delete(pool);
    free(big);
    free_frames(&fr);
}

/* A pool sized by its frames (0 x 0) gives the same features as one created for them. */
static void lazy_pool_equals_one_detector(void **state)
{
    (void)state;
    satfeat_pool *pool = NULL;
    assert_int_equal(satfeat_pool_new(SATFEAT_BACKEND_CPU, NULL, 2, NULL, 0, 0, &pool, NULL, 0),
                     SATFEAT_OK);
    check_pool(pool, 0);
    satfeat_pool_delete(pool);
}

static void bad_arguments(void **state)
{
    (void)state;
    satfeat_pool *pool = NULL;
    char err[256];
    int dev[2] = {0, 1};
    assert_int_equal(satfeat_pool_new(SATFEAT_BACKEND_CPU, dev, 2, NULL, W, H, &pool, err, sizeof err),
                     SATFEAT_ERR_ARG);
    assert_non_null(strstr(err, "worker count"));
    assert_null(pool);
    assert_int_equal(satfeat_pool_new(SATFEAT_BACKEND_CPU, NULL, -1, NULL, W, H, &pool, err, sizeof err),
                     SATFEAT_ERR_ARG);
    assert_int_equal(satfeat_pool_new(SATFEAT_BACKEND_CPU, NULL, 1, NULL, 0, H, &pool, err, sizeof err),
                     SATFEAT_ERR_ARG);
    assert_non_null(strstr(err, "device -1"));
    assert_int_equal(satfeat_pool_new(SATFEAT_BACKEND_CPU, NULL, 1, NULL, W, H, NULL, err, sizeof err),
                     SATFEAT_ERR_ARG);
    assert_int_equal(satfeat_pool_detect(NULL, NULL, 0, NULL), SATFEAT_ERR_ARG);
    assert_int_equal(satfeat_pool_workers(NULL), 0);
    assert_string_equal(satfeat_pool_last_error(NULL), "");
    satfeat_pool_delete(NULL);
}

/* Without a device the CUDA pool says why; AUTO falls back to CPU workers. */
static void cuda_pool_reports_no_device(void **state)
{
    (void)state;
    if (satfeat_cuda_device_count() > 0) skip();
    satfeat_pool *pool = NULL;
    char err[256];
    satfeat_status st = satfeat_pool_new(SATFEAT_BACKEND_CUDA, NULL, 0, NULL, W, H, &pool, err,
                                         sizeof err);
    if (satfeat_has_cuda_build()) {
        assert_int_equal(st, SATFEAT_ERR_NO_DEVICE);
        assert_string_equal(err, "pool: no usable CUDA device");
    } else {
        assert_int_equal(st, SATFEAT_ERR_UNSUPPORTED);
        assert_string_equal(err, "pool: this build has no CUDA backend");
    }
    assert_null(pool);
    assert_int_equal(satfeat_pool_new(SATFEAT_BACKEND_AUTO, NULL, 2, NULL, W, H, &pool, err, sizeof err),
                     SATFEAT_OK);
    assert_int_equal(satfeat_pool_workers(pool), 2);
    assert_int_equal(satfeat_pool_worker_device(pool, 1), -1);
    satfeat_pool_delete(pool);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(cpu_pool_equals_one_detector),
        cmocka_unit_test(failures_stay_with_their_frame),
        cmocka_unit_test(lazy_pool_equals_one_detector),
        cmocka_unit_test(bad_arguments),
        cmocka_unit_test(cuda_pool_reports_no_device),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
