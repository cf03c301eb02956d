/* test_describe_given.c - satfeat_describe_keypoints: the detector's own keypoints described
 * again give satfeat_detect's angles and descriptors bit for bit (every descriptor kind, upright
 * too); keypoints of the caller's (off the border, huge or tiny scales) are described without
 * harm, and a keypoint reads the pixels around its own position; the argument checks. Built
 * twice: on CPU detectors, and with SATFEAT_TEST_DESCRIBE_CUDA the first test with a CUDA
 * detector's keypoints and descriptors (described again on it and on a CPU detector; skipped
 * without a CUDA device). */
#include "features_testutil.h"
#include "test_util.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define SCENE_W 640
#define SCENE_H 480

static uint8_t *load_scene(void)
{
    return test_load_gray(SATFEAT_TEST_DATA_DIR, "scene.png", SCENE_W, SCENE_H);
}

static satfeat_ctx *cpu_ctx(int threads)
{
    satfeat_ctx *ctx = NULL;
    assert_int_equal(satfeat_ctx_new(&ctx, SATFEAT_BACKEND_CPU, 0), SATFEAT_OK);
    assert_int_equal(satfeat_ctx_set_threads(ctx, threads), SATFEAT_OK);
    return ctx;
}

/* The context whose detector detects: CPU, or CUDA in the GPU variant. */
static satfeat_ctx *detect_ctx(void)
{
#ifdef SATFEAT_TEST_DESCRIBE_CUDA
    return test_cuda_ctx_or_skip();
#else
    return cpu_ctx(2);
#endif
}

/* Describes kp[0 .. n-1] (their angles wiped) on `det` and asserts that the result is `found`,
 * the detection they came from, bit for bit. */
static void assert_described_as_found(satfeat_detector *det, const satfeat_image_view *view,
                                      const satfeat_keypoint *kp, size_t n,
                                      const satfeat_features *found)
{
    const satfeat_descriptor_kind kind = satfeat_features_descriptor_kind(found);
    satfeat_features *again = NULL;
    assert_int_equal(satfeat_describe_keypoints(det, view, kp, n, &again), SATFEAT_OK);
    assert_int_equal(satfeat_features_count(again), n);
    assert_int_equal(satfeat_features_descriptor_kind(again), kind);
    int w = 0, h = 0;
    satfeat_features_image_size(again, &w, &h);
    assert_int_equal(w, view->width);
    assert_int_equal(h, view->height);
    assert_memory_equal(satfeat_features_keypoints(again), satfeat_features_keypoints(found),
                        n * sizeof *kp);
    if (kind != SATFEAT_DESCRIPTOR_NONE)
        assert_memory_equal(satfeat_features_descriptors(again),
                            satfeat_features_descriptors(found), n * (size_t)kind * sizeof(float));
    else
        assert_null(satfeat_features_descriptors(again));
    satfeat_features_delete(again);
}

/* For each descriptor kind, oriented and upright: detect, wipe the angles, describe the
 * keypoints again on the same detector and on a CPU detector of one thread, and compare
 * everything. */
static void test_same_as_detect(void **state)
{
    (void)state;
    satfeat_ctx *ctx = detect_ctx(), *ctx1 = cpu_ctx(1);
    uint8_t *img = load_scene();
    const satfeat_image_view view = satfeat_image_view_host(img, SCENE_W, SCENE_H, 0);
    const satfeat_descriptor_kind kinds[] = {SATFEAT_DESCRIPTOR_SURF64, SATFEAT_DESCRIPTOR_SURF128,
                                             SATFEAT_DESCRIPTOR_NONE};
    for (int upright = 0; upright <= 1; upright++) {
        for (size_t k = 0; k < sizeof kinds / sizeof kinds[0]; k++) {
            satfeat_detector_params p = satfeat_detector_params_default();
            p.upright = upright;
            p.descriptor = kinds[k];
            satfeat_detector *det = NULL, *det1 = NULL;
            assert_int_equal(satfeat_detector_new(ctx, &p, 0, 0, &det), SATFEAT_OK);
            assert_int_equal(satfeat_detector_new(ctx1, &p, 0, 0, &det1), SATFEAT_OK);
            satfeat_features *found = NULL;
            assert_int_equal(satfeat_detect(det, &view, &found), SATFEAT_OK);
            const size_t n = satfeat_features_count(found);
            assert_true(n > 100);
            satfeat_keypoint *kp = malloc(n * sizeof *kp);
            assert_non_null(kp);
            memcpy(kp, satfeat_features_keypoints(found), n * sizeof *kp);
            size_t nonzero = 0;
            for (size_t i = 0; i < n; i++) {
                nonzero += kp[i].angle != 0.0;
                kp[i].angle = 1.0; /* computed again, never read */
            }
            assert_true(upright ? nonzero == 0 : nonzero > n / 2);
            assert_described_as_found(det, &view, kp, n, found);
            assert_described_as_found(det1, &view, kp, n, found);
            free(kp);
            satfeat_features_delete(found);
            satfeat_detector_delete(det);
            satfeat_detector_delete(det1);
        }
    }
    satfeat_ctx_delete(ctx);
    satfeat_ctx_delete(ctx1);
    satfeat_free(img);
}

#ifndef SATFEAT_TEST_DESCRIBE_CUDA /* the CPU variant's other tests */
/* Keypoints of the caller's: a grid inside the image described in the image and, shifted by
 * (dx, dy), in the view that starts at (dx, dy) give the same bits (what a keypoint reads moves
 * with it); keypoints on and beyond the border, and tiny and huge scales, give finite
 * descriptors of unit length or zero. */
static void test_given_keypoints(void **state)
{
    (void)state;
    uint8_t *img = load_scene();
    satfeat_ctx *ctx = cpu_ctx(2);
    satfeat_detector *det = NULL;
    assert_int_equal(satfeat_detector_new(ctx, NULL, 0, 0, &det), SATFEAT_OK);
    enum { GRID = 8, DX = 23, DY = 11 };
    satfeat_keypoint kp[GRID * GRID], moved[GRID * GRID];
    memset(kp, 0, sizeof kp);
    for (int j = 0; j < GRID; j++) {
        for (int i = 0; i < GRID; i++) {
            satfeat_keypoint *k = &kp[j * GRID + i];
            k->x = 140.25 + 45.0 * i; /* sigma <= 4: the windows stay 25 sigma inside */
            k->y = 120.5 + 30.0 * j;
            k->size = 9.0 + 3.0 * ((i + j) % 4);
            k->sigma = 1.2 * k->size / 9.0;
            k->laplacian = (i + j) % 2 ? 1 : -1;
        }
    }
    memcpy(moved, kp, sizeof kp);
    for (int i = 0; i < GRID * GRID; i++) {
        moved[i].x -= DX;
        moved[i].y -= DY;
    }
    const satfeat_image_view whole = satfeat_image_view_host(img, SCENE_W, SCENE_H, 0);
    const satfeat_image_view part = satfeat_image_view_host(
        img + (size_t)DY * SCENE_W + DX, SCENE_W - DX - 40, SCENE_H - DY - 30, SCENE_W);
    satfeat_features *a = NULL, *b = NULL;
    assert_int_equal(satfeat_describe_keypoints(det, &whole, kp, GRID * GRID, &a), SATFEAT_OK);
    assert_int_equal(satfeat_describe_keypoints(det, &part, moved, GRID * GRID, &b), SATFEAT_OK);
    assert_int_equal(satfeat_features_count(a), GRID * GRID);
    assert_memory_equal(satfeat_features_descriptors(a), satfeat_features_descriptors(b),
                        sizeof(float) * 64 * GRID * GRID);
    const satfeat_keypoint *ka = satfeat_features_keypoints(a), *kb = satfeat_features_keypoints(b);
    for (int i = 0; i < GRID * GRID; i++) {
        assert_true(ka[i].angle == kb[i].angle);
        assert_true(ka[i].angle >= 0.0 && ka[i].angle < 6.283185307179586);
        assert_true(ka[i].x == kp[i].x && ka[i].size == kp[i].size); /* copied */
        assert_int_equal(ka[i].laplacian, kp[i].laplacian);
    }

    /* on, near and far beyond the border; scales from tiny to beyond the clamp */
    const double xs[] = {0.0, -0.5, SCENE_W - 1, SCENE_W + 300.0, -1e6, 1e9};
    const double sigmas[] = {1e-3, 0.5, 1.2, 40.0, 5000.0, 1e300};
    satfeat_keypoint edge[36];
    memset(edge, 0, sizeof edge);
    for (int i = 0; i < 6; i++) {
        for (int j = 0; j < 6; j++) {
            edge[i * 6 + j].x = xs[i];
            edge[i * 6 + j].y = xs[(i + j) % 6] * 0.5;
            edge[i * 6 + j].sigma = sigmas[j];
        }
    }
    assert_int_equal(satfeat_describe_keypoints(det, &whole, edge, 36, &a), SATFEAT_OK);
    assert_int_equal(satfeat_features_count(a), 36);
    const float *d = satfeat_features_descriptors(a);
    for (int i = 0; i < 36; i++) {
        double norm2 = 0.0;
        for (int j = 0; j < 64; j++) {
            assert_true(isfinite(d[i * 64 + j]));
            norm2 += (double)d[i * 64 + j] * d[i * 64 + j];
        }
        assert_true(norm2 == 0.0 || fabs(norm2 - 1.0) < 1e-5);
    }
    /* no keypoint: an empty set of the image's size */
    assert_int_equal(satfeat_describe_keypoints(det, &part, NULL, 0, &a), SATFEAT_OK);
    assert_int_equal(satfeat_features_count(a), 0);
    int w = 0, h = 0;
    satfeat_features_image_size(a, &w, &h);
    assert_int_equal(w, part.width);
    assert_int_equal(h, part.height);
    satfeat_features_delete(a);
    satfeat_features_delete(b);
    satfeat_detector_delete(det);
    satfeat_ctx_delete(ctx);
    satfeat_free(img);
}

/* Expects `st` with a non-empty message and the set emptied. */
static void expect_error(satfeat_ctx *ctx, satfeat_status st, satfeat_status want,
                         const satfeat_features *set, const char *needle)
{
    assert_int_equal(st, want);
    if (!strstr(satfeat_ctx_last_error(ctx), needle)) {
        printf("message \"%s\" lacks \"%s\"\n", satfeat_ctx_last_error(ctx), needle);
        fail();
    }
    assert_int_equal(satfeat_features_count(set), 0);
}

static void test_errors(void **state)
{
    (void)state;
    uint8_t *img = load_scene();
    satfeat_ctx *ctx = cpu_ctx(1);
    satfeat_detector *det = NULL;
    assert_int_equal(satfeat_detector_new(ctx, NULL, SCENE_W, SCENE_H, &det), SATFEAT_OK);
    satfeat_image_view view = satfeat_image_view_host(img, SCENE_W, SCENE_H, 0);
    satfeat_keypoint kp[2];
    memset(kp, 0, sizeof kp);
    kp[0].x = kp[1].x = 100;
    kp[0].y = kp[1].y = 100;
    kp[0].sigma = kp[1].sigma = 2;
    satfeat_features *set = NULL;
    assert_int_equal(satfeat_describe_keypoints(det, &view, kp, 2, &set), SATFEAT_OK);
    assert_int_equal(satfeat_describe_keypoints(NULL, &view, kp, 2, &set), SATFEAT_ERR_ARG);
    assert_int_equal(satfeat_describe_keypoints(det, &view, kp, 2, NULL), SATFEAT_ERR_ARG);
    expect_error(ctx, satfeat_describe_keypoints(det, NULL, kp, 2, &set), SATFEAT_ERR_ARG, set,
                 "NULL view");
    assert_int_equal(satfeat_describe_keypoints(det, &view, kp, 2, &set), SATFEAT_OK);
    expect_error(ctx, satfeat_describe_keypoints(det, &view, NULL, 2, &set), SATFEAT_ERR_ARG, set,
                 "NULL keypoints");
    kp[1].y = NAN;
    expect_error(ctx, satfeat_describe_keypoints(det, &view, kp, 2, &set), SATFEAT_ERR_ARG, set,
                 "keypoint 1: position");
    kp[1].y = 100;
    kp[1].sigma = 0;
    expect_error(ctx, satfeat_describe_keypoints(det, &view, kp, 2, &set), SATFEAT_ERR_ARG, set,
                 "keypoint 1: sigma");
    kp[1].sigma = INFINITY;
    expect_error(ctx, satfeat_describe_keypoints(det, &view, kp, 2, &set), SATFEAT_ERR_ARG, set,
                 "keypoint 1: sigma");
    kp[1].sigma = 2;
    satfeat_image_view masked = view;
    masked.mask = img;
    masked.mask_stride = SCENE_W;
    expect_error(ctx, satfeat_describe_keypoints(det, &masked, kp, 2, &set), SATFEAT_ERR_ARG, set,
                 "mask");
    satfeat_image_view narrow = view;
    narrow.stride = SCENE_W - 1;
    expect_error(ctx, satfeat_describe_keypoints(det, &narrow, kp, 2, &set), SATFEAT_ERR_ARG, set,
                 "stride");
    satfeat_image_view device = view;
    device.memory = SATFEAT_MEMORY_DEVICE;
    expect_error(ctx, satfeat_describe_keypoints(det, &device, kp, 2, &set),
                 SATFEAT_ERR_UNSUPPORTED, set, "device");
    /* the table of a 640x480 image (1.2 MB) above a 1 MB limit */
    assert_int_equal(satfeat_ctx_set_memory_limit(ctx, 1u << 20), SATFEAT_OK);
    expect_error(ctx, satfeat_describe_keypoints(det, &view, kp, 2, &set), SATFEAT_ERR_LIMIT, set,
                 "memory limit");
    assert_int_equal(satfeat_ctx_set_memory_limit(ctx, 0), SATFEAT_OK);
    assert_int_equal(satfeat_describe_keypoints(det, &view, kp, 2, &set), SATFEAT_OK);
    assert_int_equal(satfeat_features_count(set), 2);
    satfeat_features_delete(set);
    satfeat_detector_delete(det);
    satfeat_ctx_delete(ctx);
    satfeat_free(img);
}

#endif /* SATFEAT_TEST_DESCRIBE_CUDA */

int main(void)
{
#ifdef SATFEAT_TEST_DESCRIBE_CUDA
    const struct CMUnitTest tests[] = {cmocka_unit_test(test_same_as_detect)};
#else
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_same_as_detect),
        cmocka_unit_test(test_given_keypoints),
        cmocka_unit_test(test_errors),
    };
#endif
    return cmocka_run_group_tests(tests, NULL, NULL);
}
