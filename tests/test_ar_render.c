/* test_ar_render.c - the AR test renderer (tools/ar_render.c) against the conventions it
 * models: a fronto-parallel view at one frame pixel per reference pixel reproduces the
 * reference exactly (pixel centres at integers, X_cam = R X + t), and a small dark spot under
 * a distorted, tilted view lands where the library's satfeat_ar_project_points puts it. */
#include "test_util.h"

#include "ar_paths.h"
#include "ar_render.h"
#include "ar/ar_rotation.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static void test_identity_view(void **state)
{
    (void)state;
    enum { RW = 64, RH = 48, W = 100, H = 80 };
    uint8_t ref[RW * RH], frame[W * H];
    test_rng rng;
    test_rng_seed(&rng, 3);
    test_fill_u8(&rng, ref, sizeof ref);
    const double s = 0.001;
    ar_render_scene sc = {{{ref, RW, RH, RW * s, 0, 0}}, 1, 9, 1};
    const satfeat_ar_camera cam = {500, 500, 50, 40, 0, 0};
    ar_render_frame f = {{1, 0, 0, 0, 1, 0, 0, 0, 1}, {-0.04, -0.033, 0.5}, 0, 1, 0, 0, 0, 0, 0,
                         0, 0, 0};
    assert_int_equal(ar_render(&sc, &cam, &f, W, H, frame), 0);
    for (int j = 0; j < RH; j++)
        for (int i = 0; i < RW; i++) assert_int_equal(frame[(7 + j) * W + 10 + i], ref[j * RW + i]);
    assert_true(fabs(ar_render_visible_fraction(&sc, 0, &cam, &f, W, H) - 1.0) < 1e-12);
    f.t[0] = 1.0; /* moved far to the side: out of view */
    assert_true(ar_render_visible_fraction(&sc, 0, &cam, &f, W, H) == 0.0);
}

static void test_distorted_spot(void **state)
{
    (void)state;
    enum { RW = 41, W = 640, H = 480 };
    uint8_t ref[RW * RW];
    memset(ref, 255, sizeof ref);
    for (int j = 19; j <= 21; j++)
        for (int i = 19; i <= 21; i++) ref[j * RW + i] = 0;
    satfeat_ar_camera cam;
    assert_true(ar_path_camera("sample", W, H, &cam));
    assert_true(cam.k1 != 0.0);
    const double s = 0.002;
    /* the target alone on a white plane: texture seed irrelevant, placed far off the target */
    ar_render_scene sc = {{{ref, RW, RW, RW * s, 0, 0}}, 1, 5, 4};
    uint8_t *frame = malloc(W * H);
    assert_non_null(frame);
    const double offsets[3][2] = {{0, 0}, {0.25, -0.12}, {-0.2, 0.16}};
    for (int c = 0; c < 3; c++) {
        ar_render_frame f;
        memset(&f, 0, sizeof f);
        f.gain = 1;
        const double r[3] = {0.35, -0.2, 0.4};
        satfeat_ar_rodrigues_to_matrix(r, f.R);
        const double centre[3] = {20 * s, 20 * s, 0};
        double Rc[3];
        satfeat_ar_mat3_apply(f.R, centre, Rc);
        const double want[3] = {offsets[c][0], offsets[c][1], 0.5};
        for (int k = 0; k < 3; k++) f.t[k] = want[k] - Rc[k];
        assert_int_equal(ar_render(&sc, &cam, &f, W, H, frame), 0);
        double uv[2];
        const double xyz[3] = {20 * s, 20 * s, 0};
        assert_int_equal(satfeat_ar_project_points(&cam, r, f.t, xyz, 1, uv), SATFEAT_OK);
        /* darkness-weighted centroid in a window around the prediction, the plane's texture
         * masked out by taking only the target's dark spot (levels below 128) */
        double sw = 0, sx = 0, sy = 0;
        for (int y = (int)uv[1] - 12; y <= (int)uv[1] + 12; y++)
            for (int x = (int)uv[0] - 12; x <= (int)uv[0] + 12; x++) {
                if (x < 0 || y < 0 || x >= W || y >= H) continue;
                const double d = 255.0 - frame[y * W + x];
                if (frame[y * W + x] > 250 || d <= 0) continue;
                sw += d, sx += d * x, sy += d * y;
            }
        assert_true(sw > 0);
        print_message("spot %d: centroid (%.3f, %.3f), projected (%.3f, %.3f)\n", c, sx / sw,
                      sy / sw, uv[0], uv[1]);
        assert_true(fabs(sx / sw - uv[0]) < 0.05 && fabs(sy / sw - uv[1]) < 0.05);
    }
    free(frame);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_identity_view),
        cmocka_unit_test(test_distorted_spot),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
