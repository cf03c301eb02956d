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
    p = d; p.descriptor_norm = (satfeat_descriptor_norm)2; expect_bad_params(ctx, p);
    p = d; p.descriptor_norm = (satfeat_descriptor_norm)-1; expect_bad_params(ctx, p);
    p = d; p.orientation_refine = 2; expect_bad_params(ctx, p);
    p = d; p.orientation_refine = -1; expect_bad_params(ctx, p);
    p = d; p.descriptor_haar = 1; expect_bad_params(ctx, p);
    p = d; p.descriptor_haar = 5; expect_bad_params(ctx, p);
    assert_int_equal(d.descriptor_haar, 4); /* docs/EVALUATION.md */
    p = d; p.orientation_haar = 1; expect_bad_params(ctx, p);
    p = d; p.orientation_haar = 5; expect_bad_params(ctx, p);
    assert_int_equal(d.orientation_haar, 4);
    assert_int_equal(d.descriptor_norm, SATFEAT_DESCRIPTOR_NORM_ROOT); /* docs/EVALUATION.md */
    assert_int_equal(d.orientation_refine, 1);
    p = d; p.orientation_filter = (satfeat_orientation_filter)2; expect_bad_params(ctx, p);
    p = d; p.orientation_filter = (satfeat_orientation_filter)-1; expect_bad_params(ctx, p);
    assert_int_equal(d.orientation_filter, SATFEAT_ORIENTATION_SCHARR); /* docs/EVALUATION.md */
    /* the defaults and the edges of every range are accepted */
    satfeat_detector *det = NULL;
    p = d; p.octaves = 6; p.layers = 6; p.init_step = 2; p.threshold = 0; p.grid = 1;
    p.per_cell = 1; p.max_offset = 1; p.unique_scales = 0; p.descriptor_norm = SATFEAT_DESCRIPTOR_NORM_L2;
    p.orientation_refine = 0; p.descriptor_haar = 2; p.orientation_haar = 2;
    p.orientation_filter = SATFEAT_ORIENTATION_HAAR;
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
    /* NULL parameters are the defaults */
    assert_int_equal(satfeat_detector_new(ctx, NULL, 64, 64, &det), SATFEAT_OK);
    assert_int_equal(satfeat_detector_descriptor_dim(det), (int)p.descriptor);
    satfeat_detector_delete(det);
    det = NULL;
    assert_int_equal(satfeat_detector_new(ctx, &p, 64, 64, NULL), SATFEAT_ERR_ARG);
    assert_int_equal(satfeat_detector_new(ctx, &p, 0, 64, &det), SATFEAT_ERR_ARG);
    assert_int_equal(satfeat_detector_new(ctx, &p, 64, -3, &det), SATFEAT_ERR_ARG);
    assert_int_equal(satfeat_detector_new(ctx, &p, 70000, 10, &det), SATFEAT_ERR_OVERFLOW);
    assert_int_equal(satfeat_detector_new(ctx, &p, 100, 80, &det), SATFEAT_OK);

    uint8_t img[120 * 90];
    memset(img, 100, sizeof img);
    satfeat_features *f = NULL;
    satfeat_image_view v = satfeat_image_view_host(img, 100, 80, 0);
    satfeat_image_view bad;
    assert_int_equal(satfeat_detect(NULL, &v, &f), SATFEAT_ERR_ARG);
    assert_int_equal(satfeat_detect(det, NULL, &f), SATFEAT_ERR_ARG);
    assert_int_equal(satfeat_detect(det, &v, NULL), SATFEAT_ERR_ARG);
    assert_non_null(strstr(satfeat_ctx_last_error(ctx), "NULL features"));
    bad = v; bad.pixels = NULL;
    assert_int_equal(satfeat_detect(det, &bad, &f), SATFEAT_ERR_ARG);
    bad = v; bad.width = 0; /* zero size */
    assert_int_equal(satfeat_detect(det, &bad, &f), SATFEAT_ERR_ARG);
    assert_non_null(strstr(satfeat_ctx_last_error(ctx), "not positive"));
    bad = v; bad.height = -1;
    assert_int_equal(satfeat_detect(det, &bad, &f), SATFEAT_ERR_ARG);
    bad = v; bad.stride = 99; /* stride below the width */
    assert_int_equal(satfeat_detect(det, &bad, &f), SATFEAT_ERR_ARG);
    assert_non_null(strstr(satfeat_ctx_last_error(ctx), "stride 99 below width 100"));
    bad = v; bad.mask = img; bad.mask_stride = 50; /* mask stride below the width */
    assert_int_equal(satfeat_detect(det, &bad, &f), SATFEAT_ERR_ARG);
    assert_non_null(strstr(satfeat_ctx_last_error(ctx), "mask stride 50"));
    bad = v; bad.mask = img; bad.mask_stride = 0; /* a mask needs its stride */
    assert_int_equal(satfeat_detect(det, &bad, &f), SATFEAT_ERR_ARG);
    bad = v; bad.memory = (satfeat_memory)7;
    assert_int_equal(satfeat_detect(det, &bad, &f), SATFEAT_ERR_ARG);
    bad = v; bad.memory = SATFEAT_MEMORY_DEVICE; /* device memory on a CPU detector */
    assert_int_equal(satfeat_detect(det, &bad, &f), SATFEAT_ERR_UNSUPPORTED);
    assert_non_null(strstr(satfeat_ctx_last_error(ctx), "CUDA context"));
    bad = satfeat_image_view_device(img, 100, 80, 0, NULL);
    assert_int_equal(satfeat_detect(det, &bad, &f), SATFEAT_ERR_UNSUPPORTED);
    bad = v; bad.stride = SIZE_MAX / 2; /* rows past the address space */
    assert_int_equal(satfeat_detect(det, &bad, &f), SATFEAT_ERR_OVERFLOW);
    /* frames larger than the maximum, in either direction */
    bad = satfeat_image_view_host(img, 101, 80, 120);
    assert_int_equal(satfeat_detect(det, &bad, &f), SATFEAT_ERR_ARG);
    assert_non_null(strstr(satfeat_ctx_last_error(ctx), "exceeds"));
    bad = satfeat_image_view_host(img, 100, 81, 0);
    assert_int_equal(satfeat_detect(det, &bad, &f), SATFEAT_ERR_ARG);
    /* every failure above made the set (the first call with a valid features argument) and left
     * it empty; the detector stays usable: smaller frames and padded strides are fine */
    assert_non_null(f);
    assert_int_equal(satfeat_features_count(f), 0);
    v = satfeat_image_view_host(img, 100, 80, 120);
    assert_int_equal(satfeat_detect(det, &v, &f), SATFEAT_OK);
    assert_int_equal(satfeat_features_count(f), 0);
    int w = 0, h = 0;
    satfeat_features_image_size(f, &w, &h);
    assert_int_equal(w, 100);
    assert_int_equal(h, 80);
    v = satfeat_image_view_host(img, 37, 23, 100);
    assert_int_equal(satfeat_detect(det, &v, &f), SATFEAT_OK);
    satfeat_features_delete(f);
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
