/* test_detect_profile.c - the detector's profiling API (satfeat_detector_set_profiling,
 * satfeat_detector_stage_times): refusals, measured times that add up, and keypoints that do
 * not change with profiling on. Built twice: on a CPU detector (always runs) and with
 * SATFEAT_TEST_PROFILE_CUDA on a CUDA detector (skipped without a CUDA device). */
#include "detect_cuda_util.h"
#include "detect_synth.h"

#include <stdlib.h>
#include <string.h>

/* The CUDA variant of a build without CUDA only reports itself skipped. */
#if !defined(SATFEAT_TEST_PROFILE_CUDA) || defined(SATFEAT_TEST_HAVE_CUDA)
#define PROFILE_TESTS_RUN 1

static satfeat_ctx *make_ctx(void)
{
#ifdef SATFEAT_TEST_PROFILE_CUDA
    return test_cuda_ctx_or_skip();
#else
    satfeat_ctx *ctx = NULL;
    assert_int_equal(satfeat_ctx_new(&ctx, SATFEAT_BACKEND_CPU, -1), SATFEAT_OK);
    return ctx;
#endif
}

static void test_refusals(void **state)
{
    (void)state;
    satfeat_ctx *ctx = make_ctx();
    satfeat_detector_params p = satfeat_detector_params_default();
    satfeat_detector *det = NULL;
    assert_int_equal(satfeat_detector_new(ctx, &p, 64, 48, &det), SATFEAT_OK);
    satfeat_stage_times t;
    assert_int_equal(satfeat_detector_set_profiling(NULL, SATFEAT_PROFILING_FRAME), SATFEAT_ERR_ARG);
    assert_int_equal(satfeat_detector_stage_times(NULL, &t), SATFEAT_ERR_ARG);
    assert_int_equal(satfeat_detector_stage_times(det, NULL), SATFEAT_ERR_ARG);
    assert_int_equal(satfeat_detector_set_profiling(det, (satfeat_profiling)7), SATFEAT_ERR_ARG);
    /* nothing measured yet, and nothing while profiling is off */
    assert_int_equal(satfeat_detector_stage_times(det, &t), SATFEAT_ERR_ARG);
    uint8_t img[64 * 48];
    memset(img, 90, sizeof img);
    size_t n = 0;
    free(test_detect_copy(det, img, 64, 64, 48, NULL, 0, &n, NULL));
    assert_int_equal(satfeat_detector_stage_times(det, &t), SATFEAT_ERR_ARG);
    assert_true(strlen(satfeat_ctx_last_error(ctx)) > 0);
    satfeat_detector_delete(det);
    satfeat_ctx_delete(ctx);
}

/* Detects the same frame with profiling off, FRAME and STAGES: identical lists, sane times. */
static void test_times_and_identity(void **state)
{
    (void)state;
    satfeat_ctx *ctx = make_ctx();
    satfeat_detector_params p = satfeat_detector_params_default();
    p.grid = 4;
    p.per_cell = 20;
    const int w = 320, h = 240;
    satfeat_detector *det = NULL;
    assert_int_equal(satfeat_detector_new(ctx, &p, w, h, &det), SATFEAT_OK);
    test_rng r;
    test_rng_seed(&r, 21);
    uint8_t *img = synth_random_blobs(&r, w, h, 40);
    size_t n = 0;
    satfeat_keypoint *ref = dcu_detect(det, img, (size_t)w, w, h, NULL, 0, &n);
    assert_true(n > 5);
    const satfeat_profiling modes[2] = {SATFEAT_PROFILING_FRAME, SATFEAT_PROFILING_STAGES};
    for (int m = 0; m < 2; m++) {
        assert_int_equal(satfeat_detector_set_profiling(det, modes[m]), SATFEAT_OK);
        for (int rep = 0; rep < 2; rep++) {
            size_t k = 0;
            satfeat_keypoint *kp = dcu_detect(det, img, (size_t)w, w, h, NULL, 0, &k);
            assert_int_equal(k, n);
            assert_memory_equal(kp, ref, n * sizeof *kp);
            free(kp);
            satfeat_stage_times t;
            memset(&t, 0xFF, sizeof t);
            assert_int_equal(satfeat_detector_stage_times(det, &t), SATFEAT_OK);
            assert_true(t.frame_us > 0.0);
            const double parts[6] = {t.sat_us,    t.detect_us,   t.order_us,
                                     t.select_us, t.describe_us, t.download_us};
            double sum = 0.0;
            for (int i = 0; i < 6; i++) {
                assert_true(parts[i] >= 0.0);
                sum += parts[i];
            }
#ifdef SATFEAT_TEST_PROFILE_CUDA
            const int staged = modes[m] == SATFEAT_PROFILING_STAGES;
            assert_int_equal(t.stages, staged);
            if (staged) { /* consecutive event intervals: they add up to the frame */
                assert_true(t.sat_us > 0.0 && t.detect_us > 0.0);
                assert_true(t.describe_us > 0.0); /* oriented (the default is not upright) */
                assert_true(sum <= t.frame_us * 1.001 + 1.0 && sum >= t.frame_us * 0.999 - 1.0);
            } else {
                assert_true(sum == 0.0);
            }
#else
            assert_int_equal(t.stages, 1); /* the CPU clock times every stage in both modes */
            assert_true(t.select_us == 0.0 && t.download_us == 0.0);
            assert_true(sum <= t.frame_us * 1.000001 + 1e-6 && sum >= t.frame_us * 0.999999 - 1e-6);
#endif
        }
    }
    /* off again: no measurement is reported */
    assert_int_equal(satfeat_detector_set_profiling(det, SATFEAT_PROFILING_OFF), SATFEAT_OK);
    satfeat_stage_times t;
    assert_int_equal(satfeat_detector_stage_times(det, &t), SATFEAT_ERR_ARG);
    free(ref);
    free(img);
    satfeat_detector_delete(det);
    satfeat_ctx_delete(ctx);
}

#endif /* PROFILE_TESTS_RUN */

int main(void)
{
#ifndef PROFILE_TESTS_RUN
    return test_main_without_cuda();
#else
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_refusals),
        cmocka_unit_test(test_times_and_identity),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
#endif
}
