/* test_detect_cuda_api.c - the CUDA detector's entry points: device-resident images equal host
 * images, the sequence API returns frame-by-frame results in order with frames in flight (CUDA
 * and CPU detectors), frames too large are refused without harming the detector, capacity
 * errors report the count needed (skipped without a CUDA device). */
#include "detect_cuda_util.h"
#include "detect_synth.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifdef SATFEAT_TEST_HAVE_CUDA
#include <cuda_runtime_api.h>
#define CUDA_OK(call) assert_int_equal((int)(call), (int)cudaSuccess)

static void test_device_equals_host(void **state)
{
    (void)state;
    satfeat_ctx *ctx = test_cuda_ctx_or_skip();
    satfeat_detector_params p = satfeat_detector_params_default();
    p.grid = 6;
    p.per_cell = 4;
    const int w = 500, h = 377;
    satfeat_detector *det = NULL;
    assert_int_equal(satfeat_detector_new(ctx, &p, w, h, &det), SATFEAT_OK);
    test_rng r;
    test_rng_seed(&r, 9);
    uint8_t *img = synth_random_blobs(&r, w, h, 80);
    uint8_t *mask = malloc((size_t)w * (size_t)h);
    assert_non_null(mask);
    for (size_t i = 0; i < (size_t)w * (size_t)h; i++) mask[i] = (i / 7) % 5 != 0;
    const size_t pitch = 512;
    uint8_t *d_img = NULL, *d_mask = NULL;
    CUDA_OK(cudaMalloc((void **)&d_img, pitch * (size_t)h));
    CUDA_OK(cudaMalloc((void **)&d_mask, pitch * (size_t)h));
    CUDA_OK(cudaMemcpy2D(d_img, pitch, img, (size_t)w, (size_t)w, (size_t)h, cudaMemcpyHostToDevice));
    CUDA_OK(cudaMemcpy2D(d_mask, pitch, mask, (size_t)w, (size_t)w, (size_t)h, cudaMemcpyHostToDevice));
    cudaStream_t s;
    CUDA_OK(cudaStreamCreate(&s));
    for (int with_mask = 0; with_mask < 2; with_mask++) {
        size_t n = 0;
        satfeat_keypoint *ref = dcu_detect(det, img, (size_t)w, w, h, with_mask ? mask : NULL,
                                           (size_t)w, &n);
        assert_true(n > 10);
        satfeat_keypoint *kp = malloc((n + 1) * sizeof *kp);
        assert_non_null(kp);
        for (int rep = 0; rep < 3; rep++) { /* graph replay, on a stream and on the default one */
            size_t m = 0;
            memset(kp, 0x5A, (n + 1) * sizeof *kp);
            assert_int_equal(satfeat_detect_u8_device(det, d_img, pitch, w, h,
                                                      with_mask ? d_mask : NULL, pitch, w, h, kp, n + 1,
                                                      &m, rep == 2 ? NULL : (void *)s),
                             SATFEAT_OK);
            assert_int_equal(m, n);
            assert_memory_equal(kp, ref, n * sizeof *kp);
        }
        /* capacity too small: the count needed, the first `capacity` written, nothing past */
        size_t m = 0;
        memset(kp, 0x5A, (n + 1) * sizeof *kp);
        assert_int_equal(satfeat_detect_u8_device(det, d_img, pitch, w, h, with_mask ? d_mask : NULL,
                                                  pitch, w, h, kp, 3, &m, s),
                         SATFEAT_ERR_CAPACITY);
        assert_int_equal(m, n);
        assert_memory_equal(kp, ref, 3 * sizeof *kp);
        const unsigned char *past = (const unsigned char *)&kp[3];
        for (size_t i = 0; i < sizeof *kp; i++) assert_int_equal(past[i], 0x5A);
        free(kp);
        free(ref);
    }
    CUDA_OK(cudaStreamDestroy(s));
    CUDA_OK(cudaFree(d_img));
    CUDA_OK(cudaFree(d_mask));
    free(img);
    free(mask);
    satfeat_detector_delete(det);
    satfeat_ctx_delete(ctx);
}
#endif

#ifndef SATFEAT_TEST_CPU_SEQUENCE
static void test_errors_keep_detector_usable(void **state)
{
    (void)state;
    satfeat_ctx *ctx = test_cuda_ctx_or_skip();
    const satfeat_detector_params p = satfeat_detector_params_default();
    satfeat_detector *det = NULL;
    assert_int_equal(satfeat_detector_new(ctx, &p, 200, 150, &det), SATFEAT_OK);
    test_rng r;
    test_rng_seed(&r, 3);
    uint8_t *big = synth_random_blobs(&r, 300, 150, 30);
    size_t n = 0, m = 0;
    satfeat_keypoint kp[4];
    assert_int_equal(satfeat_detect_u8(det, big, 300, 300, 150, NULL, 0, 0, 0, kp, 4, &n), SATFEAT_ERR_ARG);
    assert_non_null(strstr(satfeat_ctx_last_error(ctx), "exceeds"));
    assert_int_equal(satfeat_detect_u8(det, big, 300, 200, 150, NULL, 0, 0, 0, kp, 0, &n),
                     SATFEAT_ERR_CAPACITY);
    assert_true(n > 4);
    satfeat_keypoint *all = dcu_detect(det, big, 300, 200, 150, NULL, 0, &m);
    assert_int_equal(m, n);
    assert_int_equal(satfeat_detect_u8(det, big, 300, 200, 150, NULL, 0, 0, 0, kp, 4, &n),
                     SATFEAT_ERR_CAPACITY);
    assert_memory_equal(kp, all, sizeof kp);
    assert_int_equal(satfeat_detect_u8_device(det, NULL, 300, 200, 150, NULL, 0, 0, 0, kp, 4, &n, NULL),
                     SATFEAT_ERR_ARG);
    free(all);
    free(big);
    satfeat_detector_delete(det);
    satfeat_ctx_delete(ctx);
}
#endif

/* 20 frames of varying content and size through a 3-slot sequence equal frame-by-frame calls. */
static void run_sequence(satfeat_ctx *ctx)
{
    satfeat_detector_params p = satfeat_detector_params_default();
    p.max_keypoints = 400;
    const int W = 320, H = 240, frames = 20;
    satfeat_detector *det = NULL;
    assert_int_equal(satfeat_detector_new(ctx, &p, W, H, &det), SATFEAT_OK);
    satfeat_sequence *seq = NULL;
    assert_int_equal(satfeat_sequence_new(det, 3, &seq), SATFEAT_OK);
    test_rng r;
    test_rng_seed(&r, 21);
    uint8_t *img[20];
    int ws[20], hs[20];
    satfeat_keypoint *ref[20];
    size_t nref[20];
    for (int f = 0; f < frames; f++) {
        ws[f] = f % 4 == 3 ? W - 37 : W;
        hs[f] = f % 5 == 4 ? H - 11 : H;
        img[f] = synth_random_blobs(&r, W, H, 10 + 5 * f); /* stride W */
        ref[f] = dcu_detect(det, img[f], W, ws[f], hs[f], NULL, 0, &nref[f]);
    }
    satfeat_keypoint *kp = malloc(1000 * sizeof *kp);
    assert_non_null(kp);
    int next = 0;
    for (int f = 0; f < frames; f++) {
        size_t n = 0;
        int popped = 0;
        assert_int_equal(satfeat_sequence_push(seq, img[f], W, ws[f], hs[f], kp, 1000, &n, &popped),
                         SATFEAT_OK);
        assert_int_equal(popped, f >= 3);
        if (popped) {
            assert_int_equal(n, nref[next]);
            assert_memory_equal(kp, ref[next], n * sizeof *kp);
            next++;
        }
        if (f == 7) { /* a frame too large is refused, nothing popped, the sequence goes on */
            uint8_t dummy[4] = {0};
            assert_int_equal(satfeat_sequence_push(seq, dummy, W + 1, W + 1, 1, kp, 1000, &n, &popped),
                             SATFEAT_ERR_ARG);
            assert_int_equal(popped, 0);
        }
    }
    assert_int_equal(satfeat_sequence_pending(seq), 3);
    while (satfeat_sequence_pending(seq) > 0) {
        size_t n = 0;
        assert_int_equal(satfeat_sequence_pop(seq, kp, 1000, &n), SATFEAT_OK);
        assert_int_equal(n, nref[next]);
        assert_memory_equal(kp, ref[next], n * sizeof *kp);
        next++;
    }
    assert_int_equal(next, frames);
    size_t n = 0;
    assert_int_equal(satfeat_sequence_pop(seq, kp, 1000, &n), SATFEAT_ERR_ARG);
    free(kp);
    for (int f = 0; f < frames; f++) {
        free(img[f]);
        free(ref[f]);
    }
    satfeat_sequence_delete(seq);
    satfeat_detector_delete(det);
}

#ifndef SATFEAT_TEST_CPU_SEQUENCE
static void test_sequence_cuda(void **state)
{
    (void)state;
    satfeat_ctx *ctx = test_cuda_ctx_or_skip();
    run_sequence(ctx);
    satfeat_ctx_delete(ctx);
}
#endif

#ifdef SATFEAT_TEST_CPU_SEQUENCE
static void test_sequence_cpu(void **state)
{
    (void)state;
    satfeat_ctx *ctx = NULL;
    assert_int_equal(satfeat_ctx_new(&ctx, SATFEAT_BACKEND_CPU, -1), SATFEAT_OK);
    run_sequence(ctx);
    satfeat_ctx_delete(ctx);
}
#endif

/* Built twice (tests/tests_detect.cmake): as the GPU test, and with SATFEAT_TEST_CPU_SEQUENCE as
 * a plain CPU test, so that a CPU failure can never hide behind the GPU test's "skipped". */
int main(void)
{
    const struct CMUnitTest tests[] = {
#ifdef SATFEAT_TEST_CPU_SEQUENCE
        cmocka_unit_test(test_sequence_cpu),
#else
#ifdef SATFEAT_TEST_HAVE_CUDA
        cmocka_unit_test(test_device_equals_host),
#endif
        cmocka_unit_test(test_errors_keep_detector_usable),
        cmocka_unit_test(test_sequence_cuda),
#endif
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
