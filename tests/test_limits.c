/* test_limits.c - every documented limit (include/satfeat.h "Limits", README) just under and
 * just over it: sides, pixels, threads, keypoint capacity, and the memory limit of a detector
 * frame (the reader's memory edges are in test_io_hardening.c). */
#include "test_util.h"
#include "png_testutil.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The header of a w x h 8-bit gray PNG (IDAT empty): enough for satfeat_image_read_info. */
static satfeat_status png_info_of_size(satfeat_ctx *ctx, uint32_t w, uint32_t h)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/limits_%ux%u.png", SATFEAT_TEST_TMP_DIR, w, h);
    test_png_write(path, w, h, 8, 0, NULL, 0);
    satfeat_image_info info;
    satfeat_status st = satfeat_image_read_info(ctx, path, &info);
    if (st == SATFEAT_OK) {
        assert_int_equal(info.width, (int)w);
        assert_int_equal(info.height, (int)h);
    }
    remove(path);
    return st;
}

static void test_image_sides_and_pixels(void **state)
{
    (void)state;
    satfeat_ctx *ctx;
    assert_int_equal(satfeat_ctx_new(&ctx, SATFEAT_BACKEND_CPU, 0), SATFEAT_OK);
    assert_int_equal(png_info_of_size(ctx, SATFEAT_IMAGE_MAX_SIDE, 1), SATFEAT_OK);
    assert_int_equal(png_info_of_size(ctx, SATFEAT_IMAGE_MAX_SIDE + 1, 1), SATFEAT_ERR_OVERFLOW);
    assert_non_null(strstr(satfeat_ctx_last_error(ctx), "65537x1"));
    assert_int_equal(png_info_of_size(ctx, 1, SATFEAT_IMAGE_MAX_SIDE), SATFEAT_OK);
    assert_int_equal(png_info_of_size(ctx, 1, SATFEAT_IMAGE_MAX_SIDE + 1), SATFEAT_ERR_OVERFLOW);
    /* 2^30 pixels exactly, then one row more */
    assert_int_equal(png_info_of_size(ctx, 32768, 32768), SATFEAT_OK);
    assert_int_equal(png_info_of_size(ctx, 32768, 32769), SATFEAT_ERR_OVERFLOW);
    assert_non_null(strstr(satfeat_ctx_last_error(ctx), "largest pixel count 1073741824"));
    assert_int_equal(png_info_of_size(ctx, 65536, 16384), SATFEAT_OK);
    assert_int_equal(png_info_of_size(ctx, 65536, 16385), SATFEAT_ERR_OVERFLOW);
    satfeat_ctx_delete(ctx);
}

/* A detector's maximum frame: sides and pixels as for images. Under a 1 MiB memory limit the
 * sizes inside the limits reach the memory check (SATFEAT_ERR_LIMIT) without allocating. */
static void test_detector_sizes(void **state)
{
    (void)state;
    satfeat_ctx *ctx;
    assert_int_equal(satfeat_ctx_new(&ctx, SATFEAT_BACKEND_CPU, 0), SATFEAT_OK);
    assert_int_equal(satfeat_ctx_set_memory_limit(ctx, (size_t)1 << 20), SATFEAT_OK);
    const satfeat_detector_params p = satfeat_detector_params_default();
    satfeat_detector *det = NULL;
    assert_int_equal(satfeat_detector_new(ctx, &p, SATFEAT_IMAGE_MAX_SIDE, 1, &det),
                     SATFEAT_ERR_LIMIT);
    assert_int_equal(satfeat_detector_new(ctx, &p, SATFEAT_IMAGE_MAX_SIDE + 1, 1, &det),
                     SATFEAT_ERR_OVERFLOW);
    assert_int_equal(satfeat_detector_new(ctx, &p, 1, SATFEAT_IMAGE_MAX_SIDE, &det),
                     SATFEAT_ERR_LIMIT);
    assert_int_equal(satfeat_detector_new(ctx, &p, 1, SATFEAT_IMAGE_MAX_SIDE + 1, &det),
                     SATFEAT_ERR_OVERFLOW);
    assert_int_equal(satfeat_detector_new(ctx, &p, 32768, 32768, &det), SATFEAT_ERR_LIMIT);
    assert_int_equal(satfeat_detector_new(ctx, &p, 32768, 32769, &det), SATFEAT_ERR_OVERFLOW);
    assert_null(det);
    /* a small frame fits the same limit */
    assert_int_equal(satfeat_detector_new(ctx, &p, 64, 64, &det), SATFEAT_OK);
    satfeat_detector_delete(det);
    satfeat_ctx_delete(ctx);
}

static void test_threads(void **state)
{
    (void)state;
    satfeat_ctx *ctx;
    assert_int_equal(satfeat_ctx_new(&ctx, SATFEAT_BACKEND_CPU, 0), SATFEAT_OK);
    assert_int_equal(satfeat_ctx_set_threads(ctx, SATFEAT_MAX_THREADS), SATFEAT_OK);
    assert_int_equal(satfeat_ctx_threads(ctx), SATFEAT_MAX_THREADS);
    assert_int_equal(satfeat_ctx_set_threads(ctx, SATFEAT_MAX_THREADS + 1), SATFEAT_ERR_ARG);
    assert_int_equal(satfeat_ctx_threads(ctx), SATFEAT_MAX_THREADS); /* unchanged */
    assert_int_equal(satfeat_ctx_set_threads(ctx, -1), SATFEAT_ERR_ARG);
    satfeat_ctx_delete(ctx);
}

/* Keypoints: a set holds exactly the n selected; max_keypoints n - 1 selects the first n - 1. */
static void test_keypoint_count(void **state)
{
    (void)state;
    satfeat_ctx *ctx;
    assert_int_equal(satfeat_ctx_new(&ctx, SATFEAT_BACKEND_CPU, 0), SATFEAT_OK);
    const int w = 128, h = 128;
    uint8_t *img = malloc((size_t)w * h);
    assert_non_null(img);
    for (int y = 0; y < h; y++)
        for (int x = 0; x < w; x++)
            img[y * w + x] = (uint8_t)(((x / 10) % 3 == 1 && (y / 10) % 3 == 1) ? 230 : 20);
    satfeat_detector_params p = satfeat_detector_params_default();
    satfeat_detector *det;
    assert_int_equal(satfeat_detector_new(ctx, &p, w, h, &det), SATFEAT_OK);
    size_t n = 0, got = 0;
    satfeat_keypoint *kp = test_detect_copy(det, img, (size_t)w, w, h, NULL, 0, &n, NULL);
    assert_true(n > 2);
    satfeat_detector_delete(det);
    p.max_keypoints = (int)n - 1;
    assert_int_equal(satfeat_detector_new(ctx, &p, w, h, &det), SATFEAT_OK);
    satfeat_keypoint *top = test_detect_copy(det, img, (size_t)w, w, h, NULL, 0, &got, NULL);
    assert_int_equal(got, n - 1);
    assert_memory_equal(top, kp, (n - 1) * sizeof *kp);
    satfeat_detector_delete(det);
    free(top);
    free(kp);
    free(img);
    satfeat_ctx_delete(ctx);
}

/* CPU sequences: their frame copies count against the memory limit too (each slot's copy is
 * made by the first frame pushed to it). */
static void test_sequence_memory(void **state)
{
    (void)state;
    satfeat_ctx *ctx;
    assert_int_equal(satfeat_ctx_new(&ctx, SATFEAT_BACKEND_CPU, 0), SATFEAT_OK);
    const satfeat_detector_params p = satfeat_detector_params_default();
    satfeat_detector *det;
    assert_int_equal(satfeat_detector_new(ctx, &p, 100, 100, &det), SATFEAT_OK);
    uint8_t *img = calloc(100 * 100, 1);
    assert_non_null(img);
    const satfeat_image_view v = satfeat_image_view_host(img, 100, 100, 0);
    satfeat_sequence *seq = NULL;
    satfeat_features *f = NULL;
    int popped = 0;
    assert_int_equal(satfeat_ctx_set_memory_limit(ctx, 100 * 100), SATFEAT_OK);
    assert_int_equal(satfeat_sequence_new(det, 3, &seq), SATFEAT_OK);
    assert_int_equal(satfeat_sequence_push(seq, &v, &f, &popped), SATFEAT_OK);
    satfeat_sequence_delete(seq);
    assert_int_equal(satfeat_ctx_set_memory_limit(ctx, 100 * 100 - 1), SATFEAT_OK);
    assert_int_equal(satfeat_sequence_new(det, 3, &seq), SATFEAT_OK);
    assert_int_equal(satfeat_sequence_push(seq, &v, &f, &popped), SATFEAT_ERR_LIMIT);
    assert_int_equal(satfeat_sequence_pending(seq), 0);
    assert_non_null(strstr(satfeat_ctx_last_error(ctx), "need 10000 bytes"));
    satfeat_sequence_delete(seq);
    satfeat_features_delete(f);
    free(img);
    satfeat_detector_delete(det);
    satfeat_ctx_delete(ctx);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_image_sides_and_pixels), cmocka_unit_test(test_detector_sizes),
        cmocka_unit_test(test_threads),                cmocka_unit_test(test_keypoint_count),
        cmocka_unit_test(test_sequence_memory),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
