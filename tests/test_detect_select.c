/* test_detect_select.c - selection on the sorted list: top-N, per-cell caps on a grid, the mask,
 * and the capacity contract (count needed reported, nothing written past capacity). */
#include "detect_synth.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define W 320
#define H 240

static uint8_t *scene(size_t *n_all, satfeat_keypoint **all, satfeat_detector_params *p)
{
    test_rng rng;
    test_rng_seed(&rng, 3);
    uint8_t *img = synth_random_blobs(&rng, W, H, 80);
    *p = satfeat_detector_params_default();
    p->threshold = 0.0001;
    *all = synth_detect(p, 2, img, W, H, NULL, n_all);
    assert_true(*n_all >= 40);
    return img;
}

static void test_top_n(void **state)
{
    (void)state;
    satfeat_detector_params p;
    satfeat_keypoint *all;
    size_t n_all, n;
    uint8_t *img = scene(&n_all, &all, &p);
    p.max_keypoints = 17;
    satfeat_keypoint *k = synth_detect(&p, 2, img, W, H, NULL, &n);
    assert_int_equal(n, 17);
    synth_assert_same(k, all, n);
    free(k);
    p.max_keypoints = (int)n_all + 5; /* more than there are: all of them */
    k = synth_detect(&p, 2, img, W, H, NULL, &n);
    assert_int_equal(n, n_all);
    free(k);
    free(all);
    free(img);
}

static int cell(double v, int g, int n)
{
    int c = (int)floor(v * g / n);
    return c < 0 ? 0 : (c >= g ? g - 1 : c);
}

static void test_grid_caps(void **state)
{
    (void)state;
    satfeat_detector_params p;
    satfeat_keypoint *all;
    size_t n_all, n;
    uint8_t *img = scene(&n_all, &all, &p);
    for (int g = 1; g <= 5; g += 2)
        for (int cap = 1; cap <= 3; cap++) {
            p.grid = g;
            p.per_cell = cap;
            p.max_keypoints = 0;
            satfeat_keypoint *k = synth_detect(&p, 2, img, W, H, NULL, &n);
            /* expected: walk the full sorted list, keep while the cell has room */
            int counts[25] = {0};
            size_t want = 0;
            for (size_t i = 0; i < n_all; i++) {
                int *c = &counts[cell(all[i].y, g, H) * g + cell(all[i].x, g, W)];
                if (*c >= cap) continue;
                (*c)++;
                assert_true(want < n);
                synth_assert_same(&k[want], &all[i], 1);
                want++;
            }
            assert_int_equal(n, want);
            free(k);
            /* the cap applies before top-N */
            p.max_keypoints = 3;
            k = synth_detect(&p, 2, img, W, H, NULL, &n);
            assert_int_equal(n, want < 3 ? want : 3);
            free(k);
        }
    free(all);
    free(img);
}

static void test_mask(void **state)
{
    (void)state;
    satfeat_detector_params p;
    satfeat_keypoint *all;
    size_t n_all, n;
    uint8_t *img = scene(&n_all, &all, &p);
    uint8_t *mask = malloc(W * H);
    assert_non_null(mask);
    for (int y = 0; y < H; y++)
        for (int x = 0; x < W; x++) mask[y * W + x] = (uint8_t)(x < W / 2 && y >= 40 ? 7 : 0);
    satfeat_keypoint *k = synth_detect(&p, 2, img, W, H, mask, &n);
    size_t want = 0;
    for (size_t i = 0; i < n_all; i++) {
        const int mx = (int)floor(all[i].x + 0.5), my = (int)floor(all[i].y + 0.5);
        if (!mask[my * W + mx]) continue;
        assert_true(want < n);
        synth_assert_same(&k[want], &all[i], 1);
        want++;
    }
    assert_int_equal(n, want);
    assert_true(want > 0 && want < n_all);
    free(k);
    memset(mask, 0, W * H); /* nothing passes an empty mask */
    k = synth_detect(&p, 2, img, W, H, mask, &n);
    assert_int_equal(n, 0);
    free(k);
    free(mask);
    free(all);
    free(img);
}

static void test_capacity(void **state)
{
    (void)state;
    satfeat_detector_params p;
    satfeat_keypoint *all;
    size_t n_all;
    uint8_t *img = scene(&n_all, &all, &p);
    satfeat_ctx *ctx;
    satfeat_detector *det;
    assert_int_equal(satfeat_ctx_new(&ctx, SATFEAT_BACKEND_CPU, 0), SATFEAT_OK);
    assert_int_equal(satfeat_detector_new(ctx, &p, W, H, &det), SATFEAT_OK);
    satfeat_keypoint *buf = malloc((n_all + 1) * sizeof *buf);
    assert_non_null(buf);
    for (size_t cap = 0; cap <= 5; cap++) {
        memset(buf, 0xab, (n_all + 1) * sizeof *buf);
        size_t count = 0;
        assert_int_equal(satfeat_detect_u8(det, img, W, W, H, NULL, 0, 0, 0, cap ? buf : NULL, cap, &count),
                         SATFEAT_ERR_CAPACITY);
        assert_int_equal(count, n_all);
        assert_true(strlen(satfeat_ctx_last_error(ctx)) > 0);
        synth_assert_same(buf, all, cap);
        for (size_t b = cap * sizeof *buf; b < (n_all + 1) * sizeof *buf; b++)
            assert_int_equal(((uint8_t *)buf)[b], 0xab);
    }
    size_t count = 0; /* exactly enough */
    assert_int_equal(satfeat_detect_u8(det, img, W, W, H, NULL, 0, 0, 0, buf, n_all, &count), SATFEAT_OK);
    assert_int_equal(count, n_all);
    synth_assert_same(buf, all, n_all);
    free(buf);
    satfeat_detector_delete(det);
    satfeat_ctx_delete(ctx);
    free(all);
    free(img);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_top_n),
        cmocka_unit_test(test_grid_caps),
        cmocka_unit_test(test_mask),
        cmocka_unit_test(test_capacity),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
