/* test_detect_cuda_equal.c - the CUDA detector returns the CPU detector's keypoint list bit for
 * bit, element for element (memcmp), on synthetic blobs, data/scene.png, random noise, awkward
 * sizes and many parameter sets, with and without a mask (skipped without a CUDA device;
 * SATFEAT_TEST_SMALL=1 shrinks the inputs for sanitizer runs); with the argument "boat", on the
 * six Oxford boat images of the shared data. */
#include "detect_cuda_util.h"
#include "detect_synth.h"
#include "detect/order_buckets.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void test_blobs_and_scene(void **state)
{
    (void)state;
    const satfeat_detector_params p = satfeat_detector_params_default();
    dcu_pair q = dcu_pair_new(&p, 640, 480);
    const synth_blob blobs[] = {{100, 100, 2.5, 90}, {200, 120, 4, -80}, {320, 240, 8, 100},
                                {450, 300, 12, -70}, {560, 400, 16, 60}, {150, 380, 6, 50}};
    uint8_t *img = synth_blobs(640, 480, 128, blobs, 6);
    assert_true(dcu_assert_same(q.cpu, q.gpu, img, 640, 640, 480, NULL, 0) >= 1);
    free(img);
    /* identical blobs on a regular lattice: many equal responses (tie order) */
    synth_blob lattice[36];
    for (int i = 0; i < 36; i++) lattice[i] = (synth_blob){60 + 100 * (i % 6), 40 + 80 * (i / 6), 5, 80};
    img = synth_blobs(640, 480, 100, lattice, 36);
    assert_true(dcu_assert_same(q.cpu, q.gpu, img, 640, 640, 480, NULL, 0) >= 36);
    free(img);
    char path[512];
    test_path(path, sizeof path, SATFEAT_TEST_DATA_DIR, "scene.png");
    uint8_t *px = NULL;
    int w = 0, h = 0;
    assert_int_equal(satfeat_image_load_gray8(NULL, path, &px, &w, &h), SATFEAT_OK);
    assert_true(dcu_assert_same(q.cpu, q.gpu, px, (size_t)w, w, h, NULL, 0) > 50);
    satfeat_free(px);
    dcu_pair_delete(&q);
}

static void test_boat(void **state)
{
    (void)state;
    const satfeat_detector_params p = satfeat_detector_params_default();
    dcu_pair q = dcu_pair_new(&p, 850, 680);
    for (int k = 1; k <= (dcu_small() ? 1 : 6); k++) {
        char path[512];
        snprintf(path, sizeof path, "%s/oxford-boat/img%d.pgm", SATFEAT_SHARED_DATA_DIR, k);
        uint8_t *px = NULL;
        int w = 0, h = 0;
        assert_int_equal(satfeat_image_load_gray8(NULL, path, &px, &w, &h), SATFEAT_OK);
        const size_t n = dcu_assert_same(q.cpu, q.gpu, px, (size_t)w, w, h, NULL, 0);
        printf("boat img%d: %zu identical keypoints\n", k, n);
        satfeat_free(px);
    }
    dcu_pair_delete(&q);
}

static void test_noise_and_awkward_sizes(void **state)
{
    (void)state;
    const satfeat_detector_params p = satfeat_detector_params_default();
    const int big = dcu_small() ? 700 : 4097;
    dcu_pair q = dcu_pair_new(&p, big, 300);
    const int sizes[][2] = {{1, 1}, {17, 9}, {big, 33}, {26, 26}, {27, 27}, {60, 200},
                            {101, 67}, {257, 129}, {640, 300}, {31, 300}};
    test_rng r;
    test_rng_seed(&r, 77);
    for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++) {
        const int w = sizes[i][0], h = sizes[i][1];
        const size_t stride = (size_t)w + 3;
        uint8_t *img = malloc(stride * (size_t)h);
        assert_non_null(img);
        test_fill_u8(&r, img, stride * (size_t)h);
        dcu_assert_same(q.cpu, q.gpu, img, stride, w, h, NULL, 0);
        uint8_t *blobs = synth_random_blobs(&r, w, h, 20);
        dcu_assert_same(q.cpu, q.gpu, blobs, (size_t)w, w, h, NULL, 0);
        free(blobs);
        free(img);
    }
    dcu_pair_delete(&q);
}

/* A w x h frame of uniform noise (row stride w) from seed `seed`; the caller frees it. */
static uint8_t *noise_frame(int w, int h, uint64_t seed)
{
    test_rng r;
    test_rng_seed(&r, seed);
    uint8_t *img = malloc((size_t)w * (size_t)h);
    assert_non_null(img);
    test_fill_u8(&r, img, (size_t)w * (size_t)h);
    return img;
}

/* Noise with the default threshold: tens of thousands of keypoints, past the 16384 that land in
 * host memory with the count, so the GPU's second copy is compared with the CPU list too. */
static void test_many_keypoints(void **state)
{
    (void)state;
    const satfeat_detector_params p = satfeat_detector_params_default();
    const int w = dcu_small() ? 1024 : 2048, h = dcu_small() ? 1024 : 1536;
    dcu_pair q = dcu_pair_new(&p, w, h);
    uint8_t *img = noise_frame(w, h, 2026);
    const size_t n = dcu_assert_same(q.cpu, q.gpu, img, (size_t)w, w, h, NULL, 0);
    if (!dcu_small()) assert_true(n > 16384);
    dcu_pair_delete(&q);
    /* upright: the download kernel lands the first 16384, the host copies the whole list from
     * the device */
    satfeat_detector_params pu = p;
    pu.upright = 1;
    q = dcu_pair_new(&pu, w, h);
    const size_t nu = dcu_assert_same(q.cpu, q.gpu, img, (size_t)w, w, h, NULL, 0);
    if (!dcu_small()) assert_true(nu > 16384);
    free(img);
    dcu_pair_delete(&q);
}

/* A frame of more duplicate cells (order_buckets.h) than the cell place kernel scans per block
 * (FOLD_MAX_CELLS = 8192 in order_kernels.cu), so that the cell counts take the scan kernel of
 * their own: narrow and tall, noise, duplicates suppressed (the default). */
static void test_many_cells(void **state)
{
    (void)state;
    const satfeat_detector_params p = satfeat_detector_params_default();
    const int w = 129, h = 1639 * SATFEAT_FH_DUP_CELL; /* 5 x 1639 cells */
    assert_true(satfeat_fh_dup_cells(w) * satfeat_fh_dup_cells(h) > 8192);
    dcu_pair q = dcu_pair_new(&p, w, h);
    uint8_t *img = noise_frame(w, h, 8192);
    assert_true(dcu_assert_same(q.cpu, q.gpu, img, (size_t)w, w, h, NULL, 0) > 1000);
    free(img);
    dcu_pair_delete(&q);
}

/* Parameter sets: octaves, layers, steps, thresholds, caps, grids, offsets, unique scales,
 * upright (whose keypoints the download kernel lands, not the orientation kernel). */
static void test_parameter_sets(void **state)
{
    (void)state;
    satfeat_ctx_delete(test_cuda_ctx_or_skip()); /* skip before anything is allocated */
    const int w = dcu_small() ? 300 : 640, h = dcu_small() ? 220 : 480;
    test_rng r;
    test_rng_seed(&r, 5);
    uint8_t *img = synth_random_blobs(&r, w, h, 120);
    uint8_t *noise = malloc((size_t)w * (size_t)h);
    uint8_t *mask = malloc((size_t)w * (size_t)h);
    assert_non_null(noise);
    assert_non_null(mask);
    test_fill_u8(&r, noise, (size_t)w * (size_t)h);
    for (int y = 0; y < h; y++)
        for (int x = 0; x < w; x++) mask[(size_t)y * (size_t)w + (size_t)x] = (x / 37 + y / 23) % 3 != 0;
    for (int k = 0; k < 21; k++) {
        satfeat_detector_params p = satfeat_detector_params_default();
        switch (k) {
        case 1: p.octaves = 1; p.layers = 3; break;
        case 2: p.octaves = 6; p.layers = 6; p.threshold = 0.0001; break;
        case 3: p.init_step = 2; break;
        case 4: p.threshold = 0; p.octaves = 2; break;
        case 5: p.max_keypoints = 50; break;
        case 6: p.grid = 8; p.per_cell = 3; break;
        case 7: p.grid = 5; p.per_cell = 1; p.max_keypoints = 17; break;
        case 8: p.unique_scales = 0; break;
        case 9: p.max_offset = 1.0; p.unique_scales = 0; break;
        case 10: p.max_offset = 0.1; break;
        case 11: p.octaves = 5; p.layers = 5; p.init_step = 2; p.threshold = 0.0002; break;
        case 12: p.grid = 4096; p.per_cell = 1; break;
        case 13: p.layers = 3; p.octaves = 3; p.threshold = 0.002; break;
        case 14: p.suppress_duplicates = 0; break; /* the direct scatter path */
        case 15: p.suppress_duplicates = 0; p.max_keypoints = 50; p.threshold = 0; break;
        case 16: p.layers = 4; break; /* the octave kernel's 4-layer fixed geometry */
        case 17: p.layers = 4; p.threshold = 0; p.suppress_duplicates = 0; break;
        case 18: p.upright = 1; break; /* no orientation kernel: the download kernel lands them */
        case 19: p.upright = 1; p.grid = 8; p.per_cell = 3; break;
        case 20: p.upright = 1; p.layers = 4; p.suppress_duplicates = 0; break; /* issue 12's set */
        default: break;
        }
        dcu_pair q = dcu_pair_new(&p, w, h);
        dcu_assert_same(q.cpu, q.gpu, img, (size_t)w, w, h, NULL, 0);
        dcu_assert_same(q.cpu, q.gpu, img, (size_t)w, w, h, mask, (size_t)w);
        dcu_assert_same(q.cpu, q.gpu, noise, (size_t)w, w, h, NULL, 0);
        dcu_assert_same(q.cpu, q.gpu, noise, (size_t)w, w, h, mask, (size_t)w);
        /* a smaller frame on the same detectors (another captured graph) */
        dcu_assert_same(q.cpu, q.gpu, img, (size_t)w, w / 2 + 1, h / 2 + 3, NULL, 0);
        dcu_pair_delete(&q);
    }
    free(img);
    free(noise);
    free(mask);
}

/* With the argument "boat" only the boat images are compared (ctest test_detect_cuda_equal_boat,
 * skipped with exit status 77 without the shared data); without it everything else. */
int main(int argc, char **argv)
{
    if (argc > 1 && !strcmp(argv[1], "boat")) {
        if (!test_shared_data_present("oxford-boat/img1.pgm")) return TEST_EXIT_SKIPPED;
        const struct CMUnitTest boat[] = {cmocka_unit_test(test_boat)};
        return cmocka_run_group_tests(boat, NULL, NULL);
    }
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_blobs_and_scene),
        cmocka_unit_test(test_noise_and_awkward_sizes),
        cmocka_unit_test(test_parameter_sets),
        cmocka_unit_test(test_many_keypoints),
        cmocka_unit_test(test_many_cells),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
