/* test_detect_cuda_api.c - the CUDA detector's entry points: device-resident views equal host
 * views (and refill a set in place), the sequence API returns frame-by-frame results in order
 * with frames in flight (CUDA and CPU detectors, of a fixed size or sized by their frames while
 * frames are in flight), frames too large for a fixed detector are refused without harming it
 * (skipped without a CUDA device). */
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
        satfeat_features *set = NULL;
        const satfeat_keypoint *arr = NULL;
        for (int rep = 0; rep < 3; rep++) { /* graph replay, on a stream and on the default one */
            satfeat_image_view v =
                satfeat_image_view_device(d_img, w, h, pitch, rep == 2 ? NULL : (void *)s);
            if (with_mask) {
                v.mask = d_mask;
                v.mask_stride = pitch;
            }
            assert_int_equal(satfeat_detect(det, &v, &set), SATFEAT_OK);
            assert_int_equal(satfeat_features_count(set), n);
            assert_memory_equal(satfeat_features_keypoints(set), ref, n * sizeof *ref);
            if (rep == 0) arr = satfeat_features_keypoints(set);
            else assert_ptr_equal(satfeat_features_keypoints(set), arr); /* refilled in place */
        }
        satfeat_features_delete(set);
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

/* Sub-views of one frame whose size changes from call to call (as an AR session's detection
 * regions): more sizes than the detector caches graphs for, each met again later, so that a
 * frame runs without a graph, is captured when its key comes back, and is replayed; every
 * result, in whichever way it ran, equals the CPU detector's, with descriptors. */
static void test_changing_regions_equal_cpu(void **state)
{
    (void)state;
    satfeat_detector_params p = satfeat_detector_params_default();
    p.descriptor = SATFEAT_DESCRIPTOR_SURF64;
    const int w = 640, h = 480;
    dcu_pair q = dcu_pair_new(&p, w, h);
    test_rng r;
    test_rng_seed(&r, 21);
    uint8_t *img = synth_random_blobs(&r, w, h, 160);
    static const int order[] = {0, 1, 2, 0, 3, 4, 5, 6, 7, 8, 9, 10, 1, 1, 1, 0, 10, 2, 5, 5};
    satfeat_features *a = NULL, *b = NULL;
    for (size_t i = 0; i < sizeof order / sizeof order[0]; i++) {
        const int k = order[i];
        const int x0 = 7 * k, y0 = 5 * k, rw = 300 + 23 * k, rh = 260 + 17 * k;
        const uint8_t *sub = img + (size_t)y0 * (size_t)w + (size_t)x0;
        const satfeat_image_view v = satfeat_image_view_host(sub, rw, rh, (size_t)w);
        assert_int_equal(satfeat_detect(q.cpu, &v, &a), SATFEAT_OK);
        assert_int_equal(satfeat_detect(q.gpu, &v, &b), SATFEAT_OK);
        const size_t n = satfeat_features_count(a);
        assert_true(n > 20);
        assert_int_equal(satfeat_features_count(b), n);
        assert_memory_equal(satfeat_features_keypoints(b), satfeat_features_keypoints(a),
                            n * sizeof(satfeat_keypoint));
        assert_memory_equal(satfeat_features_descriptors(b), satfeat_features_descriptors(a),
                            n * 64 * sizeof(float));
    }
    satfeat_features_delete(a);
    satfeat_features_delete(b);
    free(img);
    dcu_pair_delete(&q);
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
    size_t m = 0;
    satfeat_features *set = NULL;
    satfeat_image_view v = satfeat_image_view_host(big, 300, 150, 300);
    assert_int_equal(satfeat_detect(det, &v, &set), SATFEAT_ERR_ARG);
    assert_non_null(strstr(satfeat_ctx_last_error(ctx), "exceeds"));
    assert_int_equal(satfeat_features_count(set), 0);
    satfeat_keypoint *all = dcu_detect(det, big, 300, 200, 150, NULL, 0, &m);
    assert_true(m > 4);
    v = satfeat_image_view_device(NULL, 200, 150, 300, NULL);
    assert_int_equal(satfeat_detect(det, &v, &set), SATFEAT_ERR_ARG);
    v = satfeat_image_view_host(big, 200, 150, 300);
    assert_int_equal(satfeat_detect(det, &v, &set), SATFEAT_OK);
    assert_int_equal(satfeat_features_count(set), m);
    assert_memory_equal(satfeat_features_keypoints(set), all, m * sizeof *all);
    satfeat_features_delete(set);
    free(all);
    free(big);
    satfeat_detector_delete(det);
    satfeat_ctx_delete(ctx);
}
#endif

/* 20 frames of varying content and size (growing over the first five, then mixed) through a
 * 3-slot sequence equal frame-by-frame calls of a detector created for the largest frame; on a
 * detector of a fixed size (lazy 0) or sized by its frames (lazy 1, growing with frames in
 * flight). */
static void run_sequence(satfeat_ctx *ctx, int lazy)
{
    satfeat_detector_params p = satfeat_detector_params_default();
    p.max_keypoints = 400;
    const int W = 320, H = 240, frames = 20;
    satfeat_detector *det = NULL, *ref_det = NULL;
    assert_int_equal(satfeat_detector_new(ctx, &p, lazy ? 0 : W, lazy ? 0 : H, &det), SATFEAT_OK);
    assert_int_equal(satfeat_detector_new(ctx, &p, W, H, &ref_det), SATFEAT_OK);
    satfeat_sequence *seq = NULL;
    assert_int_equal(satfeat_sequence_new(det, 3, &seq), SATFEAT_OK);
    test_rng r;
    test_rng_seed(&r, 21);
    uint8_t *img[20];
    int ws[20], hs[20];
    satfeat_keypoint *ref[20];
    size_t nref[20];
    for (int f = 0; f < frames; f++) {
        ws[f] = f < 5 ? W / 2 + 20 * f : f % 4 == 3 ? W - 37 : W;
        hs[f] = f < 5 ? H / 2 + 10 * f : f % 5 == 4 ? H - 11 : H;
        img[f] = synth_random_blobs(&r, W, H, 10 + 5 * f); /* stride W */
        ref[f] = dcu_detect(ref_det, img[f], W, ws[f], hs[f], NULL, 0, &nref[f]);
    }
    satfeat_features *out = NULL;
    int next = 0;
    for (int f = 0; f < frames; f++) {
        int popped = 0;
        const satfeat_image_view v = satfeat_image_view_host(img[f], ws[f], hs[f], W);
        assert_int_equal(satfeat_sequence_push(seq, &v, &out, &popped), SATFEAT_OK);
        assert_int_equal(popped, f >= 3);
        if (popped) {
            assert_int_equal(satfeat_features_count(out), nref[next]);
            assert_memory_equal(satfeat_features_keypoints(out), ref[next],
                                nref[next] * sizeof *ref[next]);
            next++;
        }
        if (f == 7 && !lazy) { /* a frame too large is refused, nothing popped, it goes on */
            uint8_t dummy[4] = {0};
            const satfeat_image_view big = satfeat_image_view_host(dummy, W + 1, 1, 0);
            assert_int_equal(satfeat_sequence_push(seq, &big, &out, &popped), SATFEAT_ERR_ARG);
            assert_int_equal(popped, 0);
        }
    }
    assert_int_equal(satfeat_sequence_pending(seq), 3);
    while (satfeat_sequence_pending(seq) > 0) {
        assert_int_equal(satfeat_sequence_pop(seq, &out), SATFEAT_OK);
        assert_int_equal(satfeat_features_count(out), nref[next]);
        assert_memory_equal(satfeat_features_keypoints(out), ref[next],
                            nref[next] * sizeof *ref[next]);
        next++;
    }
    assert_int_equal(next, frames);
    assert_int_equal(satfeat_sequence_pop(seq, &out), SATFEAT_ERR_ARG);
    satfeat_features_delete(out);
    for (int f = 0; f < frames; f++) {
        free(img[f]);
        free(ref[f]);
    }
    satfeat_sequence_delete(seq);
    satfeat_detector_delete(det);
    satfeat_detector_delete(ref_det);
}

#ifndef SATFEAT_TEST_CPU_SEQUENCE
static void test_sequence_cuda(void **state)
{
    (void)state;
    satfeat_ctx *ctx = test_cuda_ctx_or_skip();
    run_sequence(ctx, 0);
    run_sequence(ctx, 1);
    satfeat_ctx_delete(ctx);
}
#endif

#ifdef SATFEAT_TEST_CPU_SEQUENCE
static void test_sequence_cpu(void **state)
{
    (void)state;
    satfeat_ctx *ctx = NULL;
    assert_int_equal(satfeat_ctx_new(&ctx, SATFEAT_BACKEND_CPU, -1), SATFEAT_OK);
    run_sequence(ctx, 0);
    run_sequence(ctx, 1);
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
        cmocka_unit_test(test_changing_regions_equal_cpu),
#endif
        cmocka_unit_test(test_errors_keep_detector_usable),
        cmocka_unit_test(test_sequence_cuda),
#endif
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
