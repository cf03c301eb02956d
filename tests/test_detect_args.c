/* test_detect_args.c - detector misuse: bad parameters, NULL pointers, sizes, frames larger
 * than the detector's maximum; each gives the documented status and a message. */
#include "test_util.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static void expect_bad_params(satfeat_ctx *ctx, satfeat_detector_params p)
{
    satfeat_detector *det = (satfeat_detector *)&p; /* must come back NULL */
    assert_int_equal(satfeat_detector_new(ctx, &p, 64, 64, &det), SATFEAT_ERR_ARG);
    assert_null(det);
    assert_true(strlen(satfeat_ctx_last_error(ctx)) > 0);
}

static void test_bad_params(void **state)
{
    (void)state;
    satfeat_ctx *ctx;
    assert_int_equal(satfeat_ctx_new(&ctx, SATFEAT_BACKEND_CPU, 0), SATFEAT_OK);
    const satfeat_detector_params d = satfeat_detector_params_default();
    satfeat_detector_params p;
    p = d; p.octaves = 0; expect_bad_params(ctx, p);
    p = d; p.octaves = 7; expect_bad_params(ctx, p);
    p = d; p.layers = 2; expect_bad_params(ctx, p);
    p = d; p.layers = 7; expect_bad_params(ctx, p);
    p = d; p.init_step = 0; expect_bad_params(ctx, p);
    p = d; p.init_step = 3; expect_bad_params(ctx, p);
    p = d; p.threshold = -1e-9; expect_bad_params(ctx, p);
    p = d; p.threshold = NAN; expect_bad_params(ctx, p);
    p = d; p.threshold = INFINITY; expect_bad_params(ctx, p);
    p = d; p.max_keypoints = -1; expect_bad_params(ctx, p);
    p = d; p.grid = -1; expect_bad_params(ctx, p);
    p = d; p.grid = 4; p.per_cell = 0; expect_bad_params(ctx, p);
    p = d; p.per_cell = -2; expect_bad_params(ctx, p);
    p = d; p.max_offset = 0; expect_bad_params(ctx, p);
    p = d; p.max_offset = 1.5; expect_bad_params(ctx, p);
    p = d; p.unique_scales = 2; expect_bad_params(ctx, p);
    /* the defaults and the edges of every range are accepted */
    satfeat_detector *det = NULL;
    p = d; p.octaves = 6; p.layers = 6; p.init_step = 2; p.threshold = 0; p.grid = 1;
    p.per_cell = 1; p.max_offset = 1; p.unique_scales = 0;
    assert_int_equal(satfeat_detector_new(ctx, &p, 64, 64, &det), SATFEAT_OK);
    satfeat_detector_delete(det);
    p = d; p.layers = 3; p.octaves = 1;
    assert_int_equal(satfeat_detector_new(ctx, &p, 1, 1, &det), SATFEAT_OK);
    satfeat_detector_delete(det);
    satfeat_detector_delete(NULL);
    satfeat_ctx_delete(ctx);
}

static void test_null_and_sizes(void **state)
{
    (void)state;
    satfeat_ctx *ctx;
    satfeat_detector *det = NULL;
    const satfeat_detector_params p = satfeat_detector_params_default();
    assert_int_equal(satfeat_ctx_new(&ctx, SATFEAT_BACKEND_CPU, 0), SATFEAT_OK);
    assert_int_equal(satfeat_detector_new(NULL, &p, 64, 64, &det), SATFEAT_ERR_ARG);
    assert_int_equal(satfeat_detector_new(ctx, NULL, 64, 64, &det), SATFEAT_ERR_ARG);
    assert_int_equal(satfeat_detector_new(ctx, &p, 64, 64, NULL), SATFEAT_ERR_ARG);
    assert_int_equal(satfeat_detector_new(ctx, &p, 0, 64, &det), SATFEAT_ERR_ARG);
    assert_int_equal(satfeat_detector_new(ctx, &p, 64, -3, &det), SATFEAT_ERR_ARG);
    assert_int_equal(satfeat_detector_new(ctx, &p, 70000, 10, &det), SATFEAT_ERR_OVERFLOW);
    assert_int_equal(satfeat_detector_new(ctx, &p, 100, 80, &det), SATFEAT_OK);

    uint8_t img[120 * 90];
    memset(img, 100, sizeof img);
    satfeat_keypoint kp[4];
    size_t n = 99;
    assert_int_equal(satfeat_detect_u8(NULL, img, 100, 100, 80, NULL, 0, 0, 0, kp, 4, &n), SATFEAT_ERR_ARG);
    assert_int_equal(satfeat_detect_u8(det, NULL, 100, 100, 80, NULL, 0, 0, 0, kp, 4, &n), SATFEAT_ERR_ARG);
    assert_int_equal(satfeat_detect_u8(det, img, 100, 100, 80, NULL, 0, 0, 0, kp, 4, NULL), SATFEAT_ERR_ARG);
    assert_int_equal(satfeat_detect_u8(det, img, 100, 100, 80, NULL, 0, 0, 0, NULL, 4, &n), SATFEAT_ERR_ARG);
    assert_int_equal(satfeat_detect_u8(det, img, 100, 0, 80, NULL, 0, 0, 0, kp, 4, &n), SATFEAT_ERR_ARG);
    assert_int_equal(satfeat_detect_u8(det, img, 99, 100, 80, NULL, 0, 0, 0, kp, 4, &n), SATFEAT_ERR_ARG);
    assert_int_equal(satfeat_detect_u8(det, img, 100, 100, 80, img, 50, 100, 80, kp, 4, &n), SATFEAT_ERR_ARG);
    /* frames larger than the maximum, in either direction */
    assert_int_equal(satfeat_detect_u8(det, img, 120, 101, 80, NULL, 0, 0, 0, kp, 4, &n), SATFEAT_ERR_ARG);
    assert_non_null(strstr(satfeat_ctx_last_error(ctx), "exceeds"));
    assert_int_equal(satfeat_detect_u8(det, img, 100, 100, 81, NULL, 0, 0, 0, kp, 4, &n), SATFEAT_ERR_ARG);
    /* smaller frames and padded strides are fine */
    assert_int_equal(satfeat_detect_u8(det, img, 120, 100, 80, NULL, 0, 0, 0, kp, 4, &n), SATFEAT_OK);
    assert_int_equal(n, 0);
    assert_int_equal(satfeat_detect_u8(det, img, 100, 37, 23, NULL, 0, 0, 0, NULL, 0, &n), SATFEAT_OK);
    satfeat_detector_delete(det);
    satfeat_ctx_delete(ctx);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_bad_params),
        cmocka_unit_test(test_null_and_sizes),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
