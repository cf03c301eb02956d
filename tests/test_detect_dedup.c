/* test_detect_dedup.c - near-duplicate suppression (suppress_duplicates) on the CPU: the
 * selected list equals the list without suppression filtered by a plain O(n^2) reference of the
 * rule, also under a mask, a grid cap and max_keypoints; no near-duplicate pair survives; the
 * result does not depend on the thread count; bad values are refused. */
#include "detect_synth.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The rule written plainly: same Laplacian sign, size ratio below 1.3, centres closer than half
 * the smaller sigma. */
static int ref_near(const satfeat_keypoint *a, const satfeat_keypoint *b)
{
    if ((a->laplacian < 0) != (b->laplacian < 0)) return 0;
    const double ratio = a->size > b->size ? a->size / b->size : b->size / a->size;
    const double smin = a->sigma < b->sigma ? a->sigma : b->sigma;
    return ratio < 1.3 && hypot(a->x - b->x, a->y - b->y) < 0.5 * smin;
}

/* The reference selection on the full sorted list `all`: drop every keypoint that has a near
 * duplicate earlier in the list, then the mask, the grid cap and max_keypoints. */
static size_t ref_select(const satfeat_keypoint *all, size_t n, const uint8_t *mask, int w, int h,
                         int grid, int per_cell, int max_kp, satfeat_keypoint *out)
{
    int *cells = calloc((size_t)(grid > 0 ? grid * grid : 1), sizeof *cells);
    assert_non_null(cells);
    size_t m = 0;
    for (size_t k = 0; k < n; k++) {
        if (max_kp > 0 && m >= (size_t)max_kp) break;
        int dup = 0;
        for (size_t j = 0; j < k && !dup; j++) dup = ref_near(&all[j], &all[k]);
        if (dup) continue;
        const satfeat_keypoint *kp = &all[k];
        if (mask) {
            int mx = (int)floor(kp->x + 0.5), my = (int)floor(kp->y + 0.5);
            mx = mx < 0 ? 0 : mx > w - 1 ? w - 1 : mx;
            my = my < 0 ? 0 : my > h - 1 ? h - 1 : my;
            if (!mask[(size_t)my * (size_t)w + (size_t)mx]) continue;
        }
        if (grid > 0) {
            int cx = (int)floor(kp->x * grid / w), cy = (int)floor(kp->y * grid / h);
            cx = cx < 0 ? 0 : cx > grid - 1 ? grid - 1 : cx;
            cy = cy < 0 ? 0 : cy > grid - 1 ? grid - 1 : cy;
            if (cells[cy * grid + cx] >= per_cell) continue;
            cells[cy * grid + cx]++;
        }
        out[m++] = *kp;
    }
    free(cells);
    return m;
}

/* Blobs drawn twice at nearly the same place, so both octaves and both copies answer. */
static uint8_t *dup_image(int w, int h)
{
    test_rng rng;
    test_rng_seed(&rng, 4242);
    return synth_random_blobs(&rng, w, h, 120);
}

static void test_matches_reference(void **state)
{
    (void)state;
    const int w = 400, h = 300;
    uint8_t *img = dup_image(w, h);
    uint8_t *mask = malloc((size_t)w * h);
    assert_non_null(mask);
    for (int y = 0; y < h; y++)
        for (int x = 0; x < w; x++) mask[(size_t)y * w + x] = (x / 41 + y / 29) % 3 != 0;
    satfeat_detector_params p = satfeat_detector_params_default();
    p.threshold = 0.00005;
    p.suppress_duplicates = 0;
    size_t n_all;
    satfeat_keypoint *all = synth_detect(&p, 1, img, w, h, NULL, &n_all);
    assert_true(n_all > 100);
    satfeat_keypoint *ref = malloc(n_all * sizeof *ref);
    assert_non_null(ref);
    const struct {
        int masked, grid, per_cell, max_kp;
    } cases[] = {{0, 0, 0, 0}, {1, 0, 0, 0}, {0, 4, 5, 0}, {1, 3, 2, 0}, {0, 0, 0, 25}, {1, 5, 3, 40}};
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        satfeat_detector_params q = p;
        q.suppress_duplicates = 1;
        q.grid = cases[c].grid;
        q.per_cell = cases[c].per_cell;
        q.max_keypoints = cases[c].max_kp;
        const uint8_t *m = cases[c].masked ? mask : NULL;
        size_t n1, n2;
        satfeat_keypoint *got = synth_detect(&q, 1, img, w, h, m, &n1);
        satfeat_keypoint *got2 = synth_detect(&q, 2, img, w, h, m, &n2);
        const size_t nr = ref_select(all, n_all, m, w, h, q.grid, q.per_cell, q.max_keypoints, ref);
        assert_int_equal(n1, nr);
        synth_assert_same(got, ref, nr);
        assert_int_equal(n2, n1);
        synth_assert_same(got2, got, n1);
        if (c == 0) {
            printf("near duplicates: %zu keypoints, %zu after suppression\n", n_all, n1);
            assert_true(n1 < n_all); /* the image has duplicates, so the test can fail */
            for (size_t i = 0; i < n1; i++)
                for (size_t j = i + 1; j < n1; j++) assert_false(ref_near(&got[i], &got[j]));
        }
        free(got);
        free(got2);
    }
    free(ref);
    free(all);
    free(mask);
    free(img);
}

static void test_bad_value(void **state)
{
    (void)state;
    satfeat_ctx *ctx;
    assert_int_equal(satfeat_ctx_new(&ctx, SATFEAT_BACKEND_CPU, 0), SATFEAT_OK);
    satfeat_detector_params p = satfeat_detector_params_default();
    assert_int_equal(p.suppress_duplicates, 1);
    satfeat_detector *det = NULL;
    p.suppress_duplicates = 2;
    assert_int_equal(satfeat_detector_new(ctx, &p, 64, 64, &det), SATFEAT_ERR_ARG);
    assert_null(det);
    assert_non_null(strstr(satfeat_ctx_last_error(ctx), "suppress_duplicates"));
    p.suppress_duplicates = -1;
    assert_int_equal(satfeat_detector_new(ctx, &p, 64, 64, &det), SATFEAT_ERR_ARG);
    satfeat_ctx_delete(ctx);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_matches_reference),
        cmocka_unit_test(test_bad_value),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
