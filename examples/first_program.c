/* first_program.c - the first program of the README: two frames -> descriptors -> matches ->
 * homography -> inlier count, on the best backend there is, with default parameters.
 * usage: first_program FRAME1.png FRAME2.png
 *
 * Library calls, deletes and the error message aside: satfeat_ctx_new, satfeat_image_load_gray8
 * x2, satfeat_detector_new, satfeat_detect x2, satfeat_match, satfeat_estimate_motion_matches
 * (8). The feature sets and the match list are created by the calls that fill them. */
#include <satfeat.h>

#include <stdio.h>

int main(int argc, char **argv)
{
    if (argc != 3) {
        fprintf(stderr, "usage: %s FRAME1 FRAME2\n", argv[0]);
        return 2;
    }
    satfeat_ctx *ctx = NULL;
    satfeat_detector *det = NULL;
    satfeat_features *f1 = NULL, *f2 = NULL;
    satfeat_matches *matches = NULL;
    uint8_t *px1 = NULL, *px2 = NULL;
    int w1 = 0, h1 = 0, w2 = 0, h2 = 0;
    satfeat_motion motion;
    satfeat_status st = satfeat_ctx_new(&ctx, SATFEAT_BACKEND_AUTO, -1);
    if (st == SATFEAT_OK) st = satfeat_image_load_gray8(ctx, argv[1], &px1, &w1, &h1);
    if (st == SATFEAT_OK) st = satfeat_image_load_gray8(ctx, argv[2], &px2, &w2, &h2);
    if (st == SATFEAT_OK) /* one detector for frames up to the larger size, default parameters */
        st = satfeat_detector_new(ctx, NULL, w1 > w2 ? w1 : w2, h1 > h2 ? h1 : h2, &det);
    const satfeat_image_view v1 = {.pixels = px1, .stride = (size_t)w1, .width = w1, .height = h1};
    const satfeat_image_view v2 = {.pixels = px2, .stride = (size_t)w2, .width = w2, .height = h2};
    if (st == SATFEAT_OK) st = satfeat_detect(det, &v1, &f1);
    if (st == SATFEAT_OK) st = satfeat_detect(det, &v2, &f2);
    if (st == SATFEAT_OK) st = satfeat_match(ctx, f1, f2, NULL, &matches);
    if (st == SATFEAT_OK)
        st = satfeat_estimate_motion_matches(ctx, f1, f2, matches, NULL, &motion, NULL);
    if (st == SATFEAT_OK) {
        printf("homography frame 1 -> frame 2:\n");
        for (int r = 0; r < 3; r++)
            printf("  %12.6g %12.6g %12.6g\n", motion.h[3 * r], motion.h[3 * r + 1],
                   motion.h[3 * r + 2]);
        printf("inliers: %zu (rms error %.3f px)\n", motion.inliers, motion.rms_error);
    } else {
        fprintf(stderr, "first_program: %s\n", ctx ? satfeat_ctx_last_error(ctx) : "no context");
    }
    satfeat_matches_delete(matches);
    satfeat_features_delete(f1);
    satfeat_features_delete(f2);
    satfeat_detector_delete(det);
    satfeat_free(px1);
    satfeat_free(px2);
    satfeat_ctx_delete(ctx);
    return st == SATFEAT_OK ? 0 : 1;
}
