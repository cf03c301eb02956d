/* test_box.c - box sums, box means and the box-mean filter against direct sums. */
#include "test_util.h"

#include <math.h>
#include <stdlib.h>

static double direct_sum(const uint8_t *img, int w, int x, int y, int bw, int bh)
{
    double s = 0;
    for (int j = y; j < y + bh; j++)
        for (int i = x; i < x + bw; i++) s += img[(size_t)j * (size_t)w + (size_t)i];
    return s;
}

static void test_box_sums_and_filter(void **state)
{
    (void)state;
    const int w = 53, h = 37;
    uint8_t img[53 * 37];
    uint32_t tab[54 * 38];
    float fimg[53 * 37], ftab[54 * 38], filt[53 * 37];
    test_rng rng;
    test_rng_seed(&rng, 5);
    test_fill_u8(&rng, img, sizeof img);
    for (int i = 0; i < w * h; i++) fimg[i] = img[i] / 255.0f;
    satfeat_ctx *ctx = NULL;
    assert_int_equal(satfeat_ctx_new(&ctx, SATFEAT_BACKEND_CPU, 0), SATFEAT_OK);
    assert_int_equal(satfeat_sat_u8(ctx, img, w, w, h, tab, 54 * 4, SATFEAT_SAT_CPU), SATFEAT_OK);
    assert_int_equal(satfeat_sat_f32(ctx, fimg, w * 4, w, h, ftab, 54 * 4, SATFEAT_SAT_CPU),
                     SATFEAT_OK);
    satfeat_table_u32 t = {tab, 54 * 4, w, h};
    satfeat_table_f32 tf = {ftab, 54 * 4, w, h};
    for (int k = 0; k < 500; k++) {
        int bw = test_rng_range(&rng, 1, w), bh = test_rng_range(&rng, 1, h);
        int x = test_rng_range(&rng, 0, w - bw), y = test_rng_range(&rng, 0, h - bh);
        uint32_t s;
        double m;
        float fs;
        double want = direct_sum(img, w, x, y, bw, bh);
        assert_int_equal(satfeat_box_sum_u32(&t, x, y, bw, bh, &s), SATFEAT_OK);
        assert_int_equal(s, (uint32_t)want);
        assert_int_equal(satfeat_box_mean_u32(&t, x, y, bw, bh, &m), SATFEAT_OK);
        assert_true(fabs(m - want / (bw * bh)) < 1e-9);
        assert_int_equal(satfeat_box_sum_f32(&tf, x, y, bw, bh, &fs), SATFEAT_OK);
        assert_true(fabs(fs - want / 255.0) < 1e-3);
    }
    for (int r = 0; r <= 30; r += 3) {
        assert_int_equal(satfeat_box_filter_mean_u32(&t, r, filt, w * 4), SATFEAT_OK);
        for (int y = 0; y < h; y++)
            for (int x = 0; x < w; x++) {
                int x0 = x - r < 0 ? 0 : x - r, y0 = y - r < 0 ? 0 : y - r;
                int x1 = x + r >= w ? w - 1 : x + r, y1 = y + r >= h ? h - 1 : y + r;
                double want = direct_sum(img, w, x0, y0, x1 - x0 + 1, y1 - y0 + 1) /
                              ((x1 - x0 + 1) * (y1 - y0 + 1));
                assert_true(fabs(filt[y * w + x] - want) < 1e-4);
            }
    }
    satfeat_ctx_delete(ctx);
}

static void test_box_misuse(void **state)
{
    (void)state;
    uint32_t tab[4 * 4] = {0};
    satfeat_table_u32 t = {tab, 16, 3, 3};
    uint32_t s = 7;
    double m;
    float f[9];
    assert_int_equal(satfeat_box_sum_u32(NULL, 0, 0, 1, 1, &s), SATFEAT_ERR_ARG);
    assert_int_equal(satfeat_box_sum_u32(&t, 0, 0, 1, 1, NULL), SATFEAT_ERR_ARG);
    assert_int_equal(satfeat_box_sum_u32(&t, 0, 0, 0, 1, &s), SATFEAT_ERR_ARG);
    assert_int_equal(satfeat_box_sum_u32(&t, -1, 0, 1, 1, &s), SATFEAT_ERR_ARG);
    assert_int_equal(satfeat_box_sum_u32(&t, 2, 0, 2, 1, &s), SATFEAT_ERR_ARG);
    assert_int_equal(satfeat_box_sum_u32(&t, 0, 3, 1, 1, &s), SATFEAT_ERR_ARG);
    assert_int_equal(satfeat_box_sum_u32(&t, 0, 0, 3, 3, &s), SATFEAT_OK);
    assert_int_equal(satfeat_box_sum_u32(&t, 0x7fffffff, 0, 0x7fffffff, 1, &s), SATFEAT_ERR_ARG);
    assert_int_equal(satfeat_box_mean_u32(&t, 0, 0, 1, 1, NULL), SATFEAT_ERR_ARG);
    assert_int_equal(satfeat_box_mean_u32(&t, 0, 0, 1, 1, &m), SATFEAT_OK);
    t.stride = 12;
    assert_int_equal(satfeat_box_sum_u32(&t, 0, 0, 1, 1, &s), SATFEAT_ERR_ARG);
    assert_int_equal(satfeat_box_filter_mean_u32(&t, 1, f, 12), SATFEAT_ERR_ARG);
    t.stride = 16;
    assert_int_equal(satfeat_box_filter_mean_u32(&t, -1, f, 12), SATFEAT_ERR_ARG);
    assert_int_equal(satfeat_box_filter_mean_u32(&t, 1, f, 8), SATFEAT_ERR_ARG);
    assert_int_equal(satfeat_box_filter_mean_u32(&t, 1, NULL, 12), SATFEAT_ERR_ARG);
    assert_int_equal(satfeat_box_sum_f32(NULL, 0, 0, 1, 1, f), SATFEAT_ERR_ARG);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_box_sums_and_filter),
        cmocka_unit_test(test_box_misuse),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
