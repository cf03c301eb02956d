/* test_detect_eval.c - the repeatability evaluator on constructed cases with known answers:
 * the overlap error of two circles against the closed form, the radius-30 normalisation, the
 * identity and a scaling homography, common-part filtering, one-to-one matching, and the
 * homography reader. */
#include "features_testutil.h"
#include "test_util.h"

#include "eval/eval_ellipse.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#define PI 3.14159265358979323846

/* Overlap error of two discs of radius r whose centres are d apart (closed form). */
static double disc_error(double r, double d)
{
    if (d >= 2 * r) return 1.0;
    const double inter = 2 * r * r * acos(d / (2 * r)) - 0.5 * d * sqrt(4 * r * r - d * d);
    return 1.0 - inter / (2 * PI * r * r - inter);
}

static void test_circle_overlap_closed_form(void **state)
{
    (void)state;
    static const double dists[] = {0, 2.5, 5, 10, 15, 20, 30, 45, 59};
    for (size_t k = 0; k < sizeof dists / sizeof dists[0]; k++) {
        const double d = dists[k];
        const satfeat_ellipse a = satfeat_ellipse_circle(100.25, 80.5, 30);
        const satfeat_ellipse b = satfeat_ellipse_circle(100.25 + d * 0.6, 80.5 + d * 0.8, 30);
        const double got = satfeat_ellipse_overlap_error(&a, &b), want = disc_error(30, d);
        if (fabs(got - want) > 0.01) {
            print_error("d %.1f: grid %.4f closed form %.4f\n", d, got, want);
            fail();
        }
    }
    /* far apart: no overlap at all */
    const satfeat_ellipse a = satfeat_ellipse_circle(0, 0, 30), b = satfeat_ellipse_circle(70, 0, 30);
    assert_true(satfeat_ellipse_overlap_error(&a, &b) == 1.0);
}

static void test_normalisation_to_radius_30(void **state)
{
    (void)state;
    /* radius-5 discs 3 px apart are scaled to radius 30 with the centres left in place: the
     * error is that of radius-30 discs 3 px apart, not of radius-5 discs */
    const satfeat_ellipse a = satfeat_ellipse_circle(50, 50, 5), b = satfeat_ellipse_circle(53, 50, 5);
    const double got = satfeat_ellipse_overlap_error(&a, &b);
    assert_true(fabs(got - disc_error(30, 3)) < 0.01);
    assert_true(disc_error(5, 3) > 0.5 && got < 0.13); /* 0.547 vs 0.120 */
    /* a disc against one of twice the radius, same centre: error 1 - 1/4 */
    const satfeat_ellipse c = satfeat_ellipse_circle(50, 50, 60), e = satfeat_ellipse_circle(50, 50, 30);
    assert_true(fabs(satfeat_ellipse_overlap_error(&e, &c) - 0.75) < 0.01);
}

static void test_ellipse_mapping(void **state)
{
    (void)state;
    /* an affine map x' = 2x + 10, y' = 0.5y - 3 sends a disc of radius 4 to an ellipse with
     * half box 8 x 2 centred on the mapped centre */
    const double h[9] = {2, 0, 10, 0, 0.5, -3, 0, 0, 1};
    const satfeat_ellipse e = satfeat_ellipse_circle(20, 40, 4);
    satfeat_ellipse t;
    assert_true(satfeat_ellipse_map(&e, h, &t));
    double hx, hy;
    satfeat_ellipse_half_box(&t, &hx, &hy);
    assert_true(fabs(t.cx - 50) < 1e-12 && fabs(t.cy - 17) < 1e-12);
    assert_true(fabs(hx - 8) < 1e-12 && fabs(hy - 2) < 1e-12);
    assert_true(fabs(satfeat_ellipse_radius(&t) - 4) < 1e-12);
    double inv[9];
    assert_true(satfeat_mat3_inverse(h, inv));
    assert_true(fabs(inv[0] - 0.5) < 1e-15 && fabs(inv[2] + 5) < 1e-15 && fabs(inv[4] - 2) < 1e-15);
    const double singular[9] = {1, 2, 3, 2, 4, 6, 0, 0, 1};
    assert_false(satfeat_mat3_inverse(singular, inv));
}

static satfeat_keypoint kp_at(double x, double y, double size)
{
    satfeat_keypoint k;
    memset(&k, 0, sizeof k);
    k.x = x;
    k.y = y;
    k.size = size;
    return k;
}

/* satfeat_eval_repeatability on keypoint arrays (copied into two sets of the given sizes). */
static satfeat_status rep_arrays(const satfeat_keypoint *k1, size_t n1, int w1, int h1,
                                 const satfeat_keypoint *k2, size_t n2, int w2, int h2,
                                 const double h[9], satfeat_repeatability *r)
{
    satfeat_features *f1 = test_features_of(k1, NULL, n1, 0, w1, h1);
    satfeat_features *f2 = test_features_of(k2, NULL, n2, 0, w2, h2);
    const satfeat_status st = satfeat_eval_repeatability(NULL, f1, f2, h, r);
    satfeat_features_delete(f1);
    satfeat_features_delete(f2);
    return st;
}

static void test_identity_and_scaling(void **state)
{
    (void)state;
    satfeat_keypoint a[6];
    for (int i = 0; i < 6; i++) a[i] = kp_at(40 + 30 * i, 50 + 7 * i, 10 + 3 * i);
    const double id[9] = {1, 0, 0, 0, 1, 0, 0, 0, 1};
    satfeat_repeatability r;
    assert_int_equal(rep_arrays(a, 6, 300, 200, a, 6, 300, 200, id, &r),
                     SATFEAT_OK);
    assert_int_equal(r.n1, 6);
    assert_int_equal(r.n2, 6);
    assert_int_equal(r.correspondences, 6);
    assert_true(r.repeatability == 1.0);
    /* image 2 is image 1 scaled by 2: matching keypoints have twice the position and size */
    const double s2[9] = {2, 0, 0, 0, 2, 0, 0, 0, 1};
    satfeat_keypoint b[6], c[6];
    for (int i = 0; i < 6; i++) {
        b[i] = kp_at(2 * a[i].x, 2 * a[i].y, 2 * a[i].size);
        c[i] = kp_at(2 * a[i].x, 2 * a[i].y, a[i].size); /* right place, wrong scale */
    }
    assert_int_equal(rep_arrays(a, 6, 300, 200, b, 6, 600, 400, s2, &r),
                     SATFEAT_OK);
    assert_int_equal(r.correspondences, 6);
    assert_true(r.repeatability == 1.0);
    /* half the size is a quarter of the area: overlap error 0.75, no match */
    assert_int_equal(rep_arrays(a, 6, 300, 200, c, 6, 600, 400, s2, &r),
                     SATFEAT_OK);
    assert_int_equal(r.correspondences, 0);
    assert_true(r.repeatability == 0.0);
}

static void test_partial_overlap_and_one_to_one(void **state)
{
    (void)state;
    const double id[9] = {1, 0, 0, 0, 1, 0, 0, 0, 1};
    const satfeat_keypoint a = kp_at(100, 100, 60);
    satfeat_repeatability r;
    /* radius 30 discs: 10 px apart -> error 0.349 (match); 15 px -> 0.479 (none) */
    assert_true(fabs(disc_error(30, 10) - 0.349) < 0.001 && fabs(disc_error(30, 15) - 0.479) < 0.001);
    satfeat_keypoint b = kp_at(110, 100, 60);
    assert_int_equal(rep_arrays(&a, 1, 300, 300, &b, 1, 300, 300, id, &r),
                     SATFEAT_OK);
    assert_int_equal(r.correspondences, 1);
    b.x = 115;
    assert_int_equal(rep_arrays(&a, 1, 300, 300, &b, 1, 300, 300, id, &r),
                     SATFEAT_OK);
    assert_int_equal(r.correspondences, 0);
    /* two image-2 regions near one image-1 region: one correspondence; n2 = 2 so 1/min(1,2) */
    satfeat_keypoint two[2] = {kp_at(102, 100, 60), kp_at(98, 101, 60)};
    assert_int_equal(rep_arrays(&a, 1, 300, 300, two, 2, 300, 300, id, &r),
                     SATFEAT_OK);
    assert_int_equal(r.correspondences, 1);
    assert_int_equal(r.n2, 2);
    assert_true(r.repeatability == 1.0);
}

static void test_common_part(void **state)
{
    (void)state;
    /* image 2 is image 1 shifted left by 100 px: x2 = x1 - 100 */
    const double shift[9] = {1, 0, -100, 0, 1, 0, 0, 0, 1};
    satfeat_keypoint k1[3] = {kp_at(50, 50, 20), kp_at(150, 50, 20), kp_at(195, 50, 20)};
    satfeat_keypoint k2[3] = {kp_at(50, 50, 20), kp_at(5, 50, 20), kp_at(120, 80, 20)};
    satfeat_repeatability r;
    assert_int_equal(rep_arrays(k1, 3, 200, 100, k2, 3, 200, 100, shift, &r),
                     SATFEAT_OK);
    /* k1[0] maps outside image 2; k1[2] lies partly outside image 1; k2[1] partly outside
     * image 2; k2[2] maps to x = 220, outside image 1 */
    assert_int_equal(r.n1, 1);
    assert_int_equal(r.n2, 1);
    assert_int_equal(r.correspondences, 1); /* k1[1] and k2[0] are the same region */
    assert_true(r.repeatability == 1.0);
    /* bad arguments */
    const double singular[9] = {0};
    assert_int_equal(rep_arrays(k1, 3, 200, 100, k2, 3, 200, 100, singular, &r),
                     SATFEAT_ERR_ARG);
    satfeat_features *f1 = test_features_of(k1, NULL, 3, 0, 200, 100);
    satfeat_features *fresh = NULL;
    assert_int_equal(satfeat_features_new(&fresh), SATFEAT_OK);
    assert_int_equal(satfeat_eval_repeatability(NULL, NULL, f1, shift, &r), SATFEAT_ERR_ARG);
    assert_int_equal(satfeat_eval_repeatability(NULL, f1, NULL, shift, &r), SATFEAT_ERR_ARG);
    assert_int_equal(satfeat_eval_repeatability(NULL, f1, f1, NULL, &r), SATFEAT_ERR_ARG);
    assert_int_equal(satfeat_eval_repeatability(NULL, f1, f1, shift, NULL), SATFEAT_ERR_ARG);
    assert_int_equal(satfeat_eval_repeatability(NULL, fresh, f1, shift, &r), SATFEAT_ERR_ARG);
    satfeat_features_delete(f1);
    satfeat_features_delete(fresh);
    assert_int_equal(rep_arrays(NULL, 0, 200, 100, NULL, 0, 200, 100, shift, &r), SATFEAT_OK);
    assert_true(r.repeatability == 0.0 && r.n1 == 0 && r.n2 == 0);
}

static void write_text(const char *path, const char *text)
{
    FILE *f = fopen(path, "wb");
    assert_non_null(f);
    fputs(text, f);
    fclose(f);
}

static void test_homography_read(void **state)
{
    (void)state;
    char path[512];
    test_path(path, sizeof path, SATFEAT_TEST_TMP_DIR, "test_detect_eval_H.txt");
    double h[9];
    write_text(path, "   8.5e-01   2.1e-01   9.9e+00\n  -2.1e-01 8.58e-01 130.47\n 2e-06 1e-06 1\n");
    assert_int_equal(satfeat_homography_read(NULL, path, h), SATFEAT_OK);
    assert_true(h[0] == 0.85 && h[5] == 130.47 && h[6] == 2e-06 && h[8] == 1);
    write_text(path, "1 0 0 0 1 0 0 0\n");
    assert_int_equal(satfeat_homography_read(NULL, path, h), SATFEAT_ERR_FORMAT);
    write_text(path, "1 0 0 0 1 0 0 0 1 7\n");
    assert_int_equal(satfeat_homography_read(NULL, path, h), SATFEAT_ERR_FORMAT);
    write_text(path, "1 0 0 0 x 0 0 0 1\n");
    assert_int_equal(satfeat_homography_read(NULL, path, h), SATFEAT_ERR_FORMAT);
    remove(path);
    assert_int_equal(satfeat_homography_read(NULL, path, h), SATFEAT_ERR_IO);
    assert_int_equal(satfeat_homography_read(NULL, NULL, h), SATFEAT_ERR_ARG);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_circle_overlap_closed_form),
        cmocka_unit_test(test_normalisation_to_radius_30),
        cmocka_unit_test(test_ellipse_mapping),
        cmocka_unit_test(test_identity_and_scaling),
        cmocka_unit_test(test_partial_overlap_and_one_to_one),
        cmocka_unit_test(test_common_part),
        cmocka_unit_test(test_homography_read),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
