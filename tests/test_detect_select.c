/* test_detect_select.c - selection on the sorted list: top-N, per-cell caps on a grid, the mask,
 * and the feature-set contract (exactly the selected keypoints; a set refilled in place). */
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

/* A CPU context and a detector of `p` for frames of w x h (0 x 0: sized by its frames). */
static satfeat_detector *cpu_detector(const satfeat_detector_params *p, int w, int h,
                                      satfeat_ctx **ctx)
{
    satfeat_detector *det = NULL;
    assert_int_equal(satfeat_ctx_new(ctx, SATFEAT_BACKEND_CPU, 0), SATFEAT_OK);
    assert_int_equal(satfeat_detector_new(*ctx, p, w, h, &det), SATFEAT_OK);
    return det;
}

static void test_exact_sets(void **state)
{
    (void)state;
    satfeat_detector_params p;
    satfeat_keypoint *all;
    size_t n_all;
    uint8_t *img = scene(&n_all, &all, &p);
    satfeat_ctx *ctx;
    satfeat_detector *det = cpu_detector(&p, W, H, &ctx);
    /* a new set holds exactly the selected keypoints */
    satfeat_features *f = NULL;
    const satfeat_image_view v = satfeat_image_view_host(img, W, H, 0);
    assert_int_equal(satfeat_detect(det, &v, &f), SATFEAT_OK);
    assert_int_equal(satfeat_features_count(f), n_all);
    synth_assert_same(satfeat_features_keypoints(f), all, n_all);
    /* refilled by the same frame, then by frames with fewer features (half the frame masked
     * out, then a smaller crop): the set keeps its arrays, so steady frames allocate nothing */
    const satfeat_keypoint *arr = satfeat_features_keypoints(f);
    const float *darr = satfeat_features_descriptors(f);
    assert_int_equal(satfeat_detect(det, &v, &f), SATFEAT_OK);
    assert_ptr_equal(satfeat_features_keypoints(f), arr);
    uint8_t *mask = calloc((size_t)W * H, 1);
    assert_non_null(mask);
    memset(mask, 1, (size_t)W * H / 2);
    satfeat_image_view masked = v;
    masked.mask = mask;
    masked.mask_stride = W;
    assert_int_equal(satfeat_detect(det, &masked, &f), SATFEAT_OK);
    const size_t n_masked = satfeat_features_count(f);
    assert_true(n_masked > 0 && n_masked < n_all);
    assert_ptr_equal(satfeat_features_keypoints(f), arr);
    assert_ptr_equal(satfeat_features_descriptors(f), darr);
    const satfeat_image_view crop = satfeat_image_view_host(img, W / 2, H / 2, W);
    assert_int_equal(satfeat_detect(det, &crop, &f), SATFEAT_OK);
    assert_true(satfeat_features_count(f) < n_all);
    assert_ptr_equal(satfeat_features_keypoints(f), arr);
    int fw = 0, fh = 0;
    satfeat_features_image_size(f, &fw, &fh);
    assert_int_equal(fw, W / 2);
    assert_int_equal(fh, H / 2);
    /* the whole frame again: exact, and still in the same arrays */
    assert_int_equal(satfeat_detect(det, &v, &f), SATFEAT_OK);
    assert_int_equal(satfeat_features_count(f), n_all);
    assert_ptr_equal(satfeat_features_keypoints(f), arr);
    synth_assert_same(satfeat_features_keypoints(f), all, n_all);
    /* a reserved set is filled, then refilled with fewer features, in place */
    satfeat_features *g = NULL;
    assert_int_equal(satfeat_features_new(&g), SATFEAT_OK);
    assert_int_equal(satfeat_features_reserve(g, n_all + 10, SATFEAT_DESCRIPTOR_SURF64), SATFEAT_OK);
    arr = satfeat_features_keypoints(g); /* NULL while empty */
    assert_null(arr);
    assert_int_equal(satfeat_detect(det, &v, &g), SATFEAT_OK);
    arr = satfeat_features_keypoints(g);
    assert_int_equal(satfeat_detect(det, &masked, &g), SATFEAT_OK);
    assert_ptr_equal(satfeat_features_keypoints(g), arr);
    satfeat_features_delete(g);
    satfeat_features_delete(f);
    free(mask);
    satfeat_detector_delete(det);
    satfeat_ctx_delete(ctx);
    free(all);
    free(img);
}

/* A detector sized by its frames (0 x 0) grows with larger frames (wider, then taller, then
 * both) and gives, frame for frame, what a detector created for the largest gives; a frame too
 * large for any detector is refused and leaves it usable. */
static void test_lazy_sizing(void **state)
{
    (void)state;
    satfeat_ctx *ctx;
    satfeat_detector_params p;
    satfeat_keypoint *all;
    size_t n_all;
    uint8_t *img = scene(&n_all, &all, &p);
    satfeat_detector *lazy = NULL, *big = cpu_detector(&p, W, H, &ctx);
    assert_int_equal(satfeat_detector_new(ctx, &p, 0, 5, &lazy), SATFEAT_ERR_ARG);
    assert_int_equal(satfeat_detector_new(ctx, &p, 0, 0, &lazy), SATFEAT_OK);
    static const int sizes[][2] = {{W / 3, H / 3}, {W / 2, H / 3}, {W / 2, H}, {W / 4, H / 4},
                                   {W, H},         {W - 7, H - 5}, {W / 3, H / 3}};
    satfeat_features *f = NULL;
    for (size_t k = 0; k < sizeof sizes / sizeof sizes[0]; k++) {
        const int w = sizes[k][0], h = sizes[k][1];
        size_t n_big = 0;
        satfeat_keypoint *want = test_detect_copy(big, img, W, w, h, NULL, 0, &n_big, NULL);
        const satfeat_image_view v = satfeat_image_view_host(img, w, h, W);
        assert_int_equal(satfeat_detect(lazy, &v, &f), SATFEAT_OK);
        assert_int_equal(satfeat_features_count(f), n_big);
        synth_assert_same(satfeat_features_keypoints(f), want, n_big);
        free(want);
    }
    /* beyond SATFEAT_IMAGE_MAX_SIDE: refused, the detector and its set still usable */
    const satfeat_image_view huge = satfeat_image_view_host(img, SATFEAT_IMAGE_MAX_SIDE + 1, 1, 0);
    assert_int_equal(satfeat_detect(lazy, &huge, &f), SATFEAT_ERR_OVERFLOW);
    assert_int_equal(satfeat_features_count(f), 0);
    const satfeat_image_view whole = satfeat_image_view_host(img, W, H, 0);
    assert_int_equal(satfeat_detect(lazy, &whole, &f), SATFEAT_OK);
    assert_int_equal(satfeat_features_count(f), n_all);
    synth_assert_same(satfeat_features_keypoints(f), all, n_all);
    satfeat_features_delete(f);
    satfeat_detector_delete(lazy);
    satfeat_detector_delete(big);
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
        cmocka_unit_test(test_exact_sets),
        cmocka_unit_test(test_lazy_sizing),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
