/* test_match_eval.c - satfeat_eval_matching on hand-made cases with known counts: correct and
 * incorrect matches, keypoints whose image falls outside the other image, a scaling
 * homography, and bad arguments. */
#include "match_testutil.h"

#include <math.h>
#include <string.h>

static void kp_at(satfeat_keypoint *k, double x, double y)
{
    memset(k, 0, sizeof *k);
    k->x = x;
    k->y = y;
    k->size = 20;
    k->laplacian = 1;
}

/* desc = e_axis (dim 64) */
static void axis(float *v, int a)
{
    memset(v, 0, 64 * sizeof *v);
    v[a] = 1.0f;
}

/* satfeat_eval_matching on arrays (copied into two sets of the given image sizes). */
static satfeat_status eval_arrays(satfeat_ctx *ctx, const satfeat_keypoint *k1, const float *d1,
                                  size_t n1, int w1, int h1, const satfeat_keypoint *k2,
                                  const float *d2, size_t n2, int w2, int h2, const double h[9],
                                  satfeat_matching_eval *r)
{
    satfeat_features *f1 = test_features_of(k1, d1, n1, 64, w1, h1);
    satfeat_features *f2 = test_features_of(k2, d2, n2, 64, w2, h2);
    const satfeat_status st = satfeat_eval_matching(ctx, f1, f2, h, r);
    satfeat_features_delete(f1);
    satfeat_features_delete(f2);
    return st;
}

static void test_translation(void **state)
{
    (void)state;
    satfeat_ctx *ctx;
    assert_int_equal(satfeat_ctx_new(&ctx, SATFEAT_BACKEND_CPU, -1), SATFEAT_OK);
    const double h[9] = {1, 0, 10, 0, 1, 5, 0, 0, 1};
    satfeat_keypoint k1[4], k2[4];
    float d1[4 * 64], d2[4 * 64];
    kp_at(&k1[0], 20, 20); axis(d1, 0);         /* -> (30, 25) */
    kp_at(&k1[1], 50, 50); axis(d1 + 64, 1);    /* -> (60, 55) */
    kp_at(&k1[2], 70, 30); axis(d1 + 128, 2);   /* -> (80, 35) */
    kp_at(&k1[3], 95, 50); axis(d1 + 192, 10);  /* -> (105, 55): outside image 2 */
    kp_at(&k2[0], 30, 25); axis(d2, 0);         /* correct */
    kp_at(&k2[1], 61.5, 57); axis(d2 + 64, 1);  /* correct: 2.5 px away */
    kp_at(&k2[2], 20, 80); axis(d2 + 128, 2);   /* matched, wrong place */
    kp_at(&k2[3], 5, 3); axis(d2 + 192, 20);    /* H^-1 -> (-5, -2): outside image 1 */
    satfeat_matching_eval r;
    memset(&r, 0xff, sizeof r);
    assert_int_equal(eval_arrays(ctx, k1, d1, 4, 100, 100, k2, d2, 4, 100, 100, h, &r),
                     SATFEAT_OK);
    assert_int_equal(r.matches, 3); /* query 3 has four equally far trains: the ratio test drops it */
    assert_int_equal(r.correct, 2);
    assert_int_equal(r.n1, 3);
    assert_int_equal(r.n2, 3);
    assert_true(fabs(r.matching_score - 2.0 / 3.0) < 1e-12);
    assert_true(fabs(r.precision - 2.0 / 3.0) < 1e-12);
    /* 3.5 px away is not correct any more */
    k2[1].x = 62.5;
    k2[1].y = 57.5;
    assert_int_equal(eval_arrays(ctx, k1, d1, 4, 100, 100, k2, d2, 4, 100, 100, h, &r),
                     SATFEAT_OK);
    assert_int_equal(r.correct, 1);
    assert_true(fabs(r.matching_score - 1.0 / 3.0) < 1e-12);
    /* opposite Laplacian: that pair is no longer compared */
    k2[0].laplacian = -1;
    assert_int_equal(eval_arrays(ctx, k1, d1, 4, 100, 100, k2, d2, 4, 100, 100, h, &r),
                     SATFEAT_OK);
    assert_int_equal(r.matches, 2);
    assert_int_equal(r.correct, 0);
    satfeat_ctx_delete(ctx);
}

static void test_scaling_and_empty(void **state)
{
    (void)state;
    satfeat_ctx *ctx;
    assert_int_equal(satfeat_ctx_new(&ctx, SATFEAT_BACKEND_CPU, -1), SATFEAT_OK);
    /* image 2 is image 1 at half size */
    const double h[9] = {0.5, 0, 0, 0, 0.5, 0, 0, 0, 1};
    satfeat_keypoint k1[3], k2[2];
    float d1[3 * 64], d2[2 * 64];
    kp_at(&k1[0], 100, 60); axis(d1, 3);   /* -> (50, 30) */
    kp_at(&k1[1], 10, 190); axis(d1 + 64, 4); /* -> (5, 95) */
    kp_at(&k1[2], 180, 20); axis(d1 + 128, 5); /* -> (90, 10) */
    kp_at(&k2[0], 51, 31); axis(d2, 3);    /* correct (1.4 px) */
    kp_at(&k2[1], 90, 13.5); axis(d2 + 64, 5); /* 3.5 px: incorrect */
    satfeat_matching_eval r;
    assert_int_equal(eval_arrays(ctx, k1, d1, 3, 200, 200, k2, d2, 2, 100, 100, h, &r),
                     SATFEAT_OK);
    assert_int_equal(r.n1, 3);
    assert_int_equal(r.n2, 2);
    assert_int_equal(r.matches, 2);
    assert_int_equal(r.correct, 1);
    assert_true(fabs(r.matching_score - 0.5) < 1e-12);
    assert_true(fabs(r.precision - 0.5) < 1e-12);
    /* no keypoints in image 2 */
    assert_int_equal(eval_arrays(ctx, k1, d1, 3, 200, 200, NULL, NULL, 0, 100, 100, h, &r),
                     SATFEAT_OK);
    assert_int_equal(r.n2, 0);
    assert_int_equal(r.matches, 0);
    assert_true(r.matching_score == 0.0 && r.precision == 0.0);
    /* errors */
    const double singular[9] = {1, 2, 3, 2, 4, 6, 0, 0, 1};
    assert_int_equal(eval_arrays(ctx, k1, d1, 3, 200, 200, k2, d2, 2, 100, 100, singular, &r),
                     SATFEAT_ERR_ARG);
    assert_int_equal(eval_arrays(ctx, k1, d1, 3, 200, 200, k2, d2, 2, 100, 100, h, NULL),
                     SATFEAT_ERR_ARG);
    /* sets without an image size or descriptors, descriptor kinds that differ, NULL sets */
    satfeat_features *f1 = test_features_of(k1, d1, 3, 64, 200, 200);
    satfeat_features *f2 = test_features_of(k2, d2, 2, 64, 100, 100);
    satfeat_features *bare = test_features_of(k2, NULL, 2, 0, 100, 100);
    float d128[2 * 128] = {0};
    d128[0] = d128[128 + 1] = 1.0f;
    satfeat_features *wide = test_features_of(k2, d128, 2, 128, 100, 100);
    satfeat_features *fresh = NULL;
    assert_int_equal(satfeat_features_new(&fresh), SATFEAT_OK);
    assert_int_equal(satfeat_eval_matching(ctx, f1, f2, h, &r), SATFEAT_OK);
    assert_int_equal(satfeat_eval_matching(ctx, fresh, f2, h, &r), SATFEAT_ERR_ARG);
    assert_non_null(strstr(satfeat_ctx_last_error(ctx), "image size"));
    assert_int_equal(satfeat_eval_matching(ctx, f1, bare, h, &r), SATFEAT_ERR_ARG);
    assert_non_null(strstr(satfeat_ctx_last_error(ctx), "no descriptors"));
    assert_int_equal(satfeat_eval_matching(ctx, f1, wide, h, &r), SATFEAT_ERR_ARG);
    assert_int_equal(satfeat_eval_matching(ctx, NULL, f2, h, &r), SATFEAT_ERR_ARG);
    assert_int_equal(satfeat_eval_matching(ctx, f1, NULL, h, &r), SATFEAT_ERR_ARG);
    assert_int_equal(satfeat_eval_matching(ctx, f1, f2, NULL, &r), SATFEAT_ERR_ARG);
    assert_int_equal(satfeat_eval_matching(NULL, f1, f2, h, &r), SATFEAT_ERR_ARG);
    satfeat_features_delete(f1);
    satfeat_features_delete(f2);
    satfeat_features_delete(bare);
    satfeat_features_delete(wide);
    satfeat_features_delete(fresh);
    satfeat_ctx_delete(ctx);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_translation),
        cmocka_unit_test(test_scaling_and_empty),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
