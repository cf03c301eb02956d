/* track_keypoints.c - the tracking-style use of the detector: one detector, sized by its frames
 * and reused for every frame, with an even spread (at most K keypoints per grid cell), and one
 * feature set refilled frame after frame (it reallocates only for a frame with more keypoints
 * than any before).
 * usage: track_keypoints IMAGE [IMAGE...] */
#include <satfeat.h>

#include <stdio.h>

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: %s IMAGE [IMAGE...]\n", argv[0]);
        return 2;
    }
    satfeat_ctx *ctx = NULL;
    satfeat_detector *det = NULL;
    satfeat_features *features = NULL;
    satfeat_detector_params p = satfeat_detector_params_default();
    p.grid = 8;      /* 8 x 8 cells ... */
    p.per_cell = 10; /* ... of at most 10 keypoints each */
    satfeat_status st = satfeat_ctx_new(&ctx, SATFEAT_BACKEND_AUTO, -1);
    if (st == SATFEAT_OK) st = satfeat_detector_new(ctx, &p, 0, 0, &det);
    for (int i = 1; st == SATFEAT_OK && i < argc; i++) {
        uint8_t *img = NULL;
        int w = 0, h = 0;
        st = satfeat_image_load_gray8(ctx, argv[i], &img, &w, &h);
        const satfeat_image_view view = satfeat_image_view_host(img, w, h, 0);
        if (st == SATFEAT_OK) st = satfeat_detect(det, &view, &features);
        if (st == SATFEAT_OK) {
            const size_t n = satfeat_features_count(features);
            const satfeat_keypoint *kps = satfeat_features_keypoints(features);
            printf("%s: %dx%d, %zu keypoints, strongest at (%.2f, %.2f) size %.2f\n", argv[i], w,
                   h, n, n ? kps[0].x : 0.0, n ? kps[0].y : 0.0, n ? kps[0].size : 0.0);
        }
        satfeat_free(img);
    }
    if (st != SATFEAT_OK)
        fprintf(stderr, "track_keypoints: %s: %s\n", satfeat_status_string(st),
                ctx ? satfeat_ctx_last_error(ctx) : "");
    satfeat_features_delete(features);
    satfeat_detector_delete(det);
    satfeat_ctx_delete(ctx);
    return st == SATFEAT_OK ? 0 : 1;
}
