/* detect_one.c - the smallest program that detects keypoints in a PNG (or PGM/PPM): prints the
 * keypoint count and the five strongest.
 * usage: detect_one IMAGE */
#include <satfeat.h>

#include <stdio.h>

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: %s IMAGE\n", argv[0]);
        return 2;
    }
    satfeat_ctx *ctx = NULL;
    satfeat_status st = satfeat_ctx_new(&ctx, SATFEAT_BACKEND_AUTO, -1); /* CUDA when usable */
    if (st != SATFEAT_OK) {
        fprintf(stderr, "context: %s\n", satfeat_status_string(st));
        return 1;
    }
    uint8_t *pixels = NULL;
    int w = 0, h = 0;
    satfeat_detector *det = NULL;
    satfeat_features *features = NULL; /* made by the detect call, sized by the library */
    satfeat_detector_params params = satfeat_detector_params_default();
    st = satfeat_image_load_gray8(ctx, argv[1], &pixels, &w, &h);
    /* 0 x 0: the detector is sized by the frames it gets */
    if (st == SATFEAT_OK) st = satfeat_detector_new(ctx, &params, 0, 0, &det);
    const satfeat_image_view image = satfeat_image_view_host(pixels, w, h, 0);
    if (st == SATFEAT_OK) st = satfeat_detect(det, &image, &features);
    if (st == SATFEAT_OK) {
        const size_t n = satfeat_features_count(features);
        const satfeat_keypoint *kp = satfeat_features_keypoints(features);
        printf("%s: %dx%d, %zu keypoints\n", argv[1], w, h, n);
        for (size_t i = 0; i < n && i < 5; i++)
            printf("x %.2f y %.2f size %.2f response %.5f\n", kp[i].x, kp[i].y, kp[i].size,
                   kp[i].response);
    } else {
        fprintf(stderr, "detect_one: %s: %s\n", satfeat_status_string(st),
                satfeat_ctx_last_error(ctx));
    }
    satfeat_features_delete(features);
    satfeat_detector_delete(det);
    satfeat_free(pixels);
    satfeat_ctx_delete(ctx);
    return st == SATFEAT_OK ? 0 : 1;
}
