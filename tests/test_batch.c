/* test_batch.c - satfeat_batch on a CPU detector: frames of mixed sizes come back in input order
 * with exactly the keypoints and descriptors of one-at-a-time calls; failures stay with their
 * frame; bad arguments are refused with a clear status and touch nothing. */
#include "batch_testutil.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

static satfeat_ctx *cpu_ctx(void)
{
    satfeat_ctx *ctx = NULL;
    assert_int_equal(satfeat_ctx_new(&ctx, SATFEAT_BACKEND_CPU, -1), SATFEAT_OK);
    assert_int_equal(satfeat_ctx_set_threads(ctx, 2), SATFEAT_OK);
    return ctx;
}

static void cpu_batch_equals_one_at_a_time(void **state)
{
    (void)state;
    satfeat_ctx *ctx = cpu_ctx();
    bt_frames fr = bt_frames_make(11, 31);
    bt_check_equal(ctx, 0, &fr, -1, 0);
    bt_check_equal(ctx, 3, &fr, -1, 0);
    bt_check_equal(ctx, 2, &fr, -1, 1); /* a detector sized by its frames */
    bt_frames_free(&fr);
    satfeat_ctx_delete(ctx);
}

static void cpu_failures_stay_with_their_frame(void **state)
{
    (void)state;
    satfeat_ctx *ctx = cpu_ctx();
    bt_check_frame_errors(ctx, 2);
    satfeat_ctx_delete(ctx);
}

static void bad_arguments(void **state)
{
    (void)state;
    satfeat_ctx *ctx = cpu_ctx();
    const satfeat_detector_params p = satfeat_detector_params_default();
    satfeat_detector *det = NULL;
    assert_int_equal(satfeat_detector_new(ctx, &p, BT_W, BT_H, &det), SATFEAT_OK);
    satfeat_batch *b = (satfeat_batch *)&ctx; /* poisoned: must come back NULL */
    assert_int_equal(satfeat_batch_new(NULL, 1, &b), SATFEAT_ERR_ARG);
    assert_int_equal(satfeat_batch_new(det, 1, NULL), SATFEAT_ERR_ARG);
    assert_int_equal(satfeat_batch_new(det, -1, &b), SATFEAT_ERR_ARG);
    assert_null(b);
    assert_non_null(strstr(satfeat_ctx_last_error(ctx), "lanes -1"));
    assert_int_equal(satfeat_batch_new(det, SATFEAT_BATCH_MAX_LANES + 1, &b), SATFEAT_ERR_ARG);
    assert_null(b);
    assert_int_equal(satfeat_batch_lanes(NULL), 0);
    satfeat_batch_delete(NULL);
    assert_int_equal(satfeat_batch_new(det, SATFEAT_BATCH_MAX_LANES, &b), SATFEAT_OK);
    assert_int_equal(satfeat_batch_lanes(b), SATFEAT_BATCH_MAX_LANES);

    bt_frames fr = bt_frames_make(2, 9);
    const satfeat_frame_result poison = {NULL, SATFEAT_ERR_CUDA, -9};
    satfeat_frame_result r[2] = {poison, poison};
    assert_int_equal(satfeat_batch_detect(NULL, fr.f, 2, r), SATFEAT_ERR_ARG);
    assert_int_equal(satfeat_batch_detect(b, NULL, 2, r), SATFEAT_ERR_ARG);
    assert_non_null(strstr(satfeat_ctx_last_error(ctx), "NULL frames or results"));
    assert_int_equal(satfeat_batch_detect(b, fr.f, 2, NULL), SATFEAT_ERR_ARG);
    assert_int_equal(satfeat_batch_detect(b, NULL, 0, NULL), SATFEAT_OK);
    assert_int_equal(satfeat_batch_detect(b, fr.f, 0, r), SATFEAT_OK);
    assert_int_equal(satfeat_batch_detect(b, fr.f, SIZE_MAX, r), SATFEAT_ERR_OVERFLOW);
    assert_non_null(strstr(satfeat_ctx_last_error(ctx), "exceed any array"));
    for (int i = 0; i < 2; i++) assert_memory_equal(&r[i], &poison, sizeof poison);
    /* the batch still works: each result gets a set of its own, sized by the library */
    assert_int_equal(satfeat_batch_detect(b, fr.f, 2, r), SATFEAT_OK);
    for (int i = 0; i < 2; i++) {
        assert_int_equal(r[i].status, SATFEAT_OK);
        assert_non_null(r[i].features);
        assert_true(satfeat_features_count(r[i].features) > 4);
        assert_int_equal(r[i].device, -1);
        satfeat_features_delete(r[i].features);
    }
    bt_frames_free(&fr);
    satfeat_batch_delete(b);
    satfeat_detector_delete(det);
    satfeat_ctx_delete(ctx);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(cpu_batch_equals_one_at_a_time),
        cmocka_unit_test(cpu_failures_stay_with_their_frame),
        cmocka_unit_test(bad_arguments),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
