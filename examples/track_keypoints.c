/* track_keypoints.c - the tracking-style use of the detector: one detector sized for the largest
 * frame, reused for every frame, with an even spread (at most K keypoints per grid cell).
 * usage: track_keypoints IMAGE [IMAGE...] */
#include <satfeat.h>

#include <stdio.h>
#include <stdlib.h>

enum { MAX_SIDE = 4096, CAPACITY = 2000 };

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: %s IMAGE [IMAGE...]\n", argv[0]);
        return 2;
    }
    satfeat_ctx *ctx = NULL;
    satfeat_detector *det = NULL;
    satfeat_keypoint *kps = malloc(sizeof *kps * CAPACITY);
    satfeat_detector_params p = satfeat_detector_params_default();
    p.grid = 8;      /* 8 x 8 cells ... */
    p.per_cell = 10; /* ... of at most 10 keypoints each */
    satfeat_status st = kps ? satfeat_ctx_new(&ctx, SATFEAT_BACKEND_AUTO, -1) : SATFEAT_ERR_ALLOC;
    if (st == SATFEAT_OK) st = satfeat_detector_new(ctx, &p, MAX_SIDE, MAX_SIDE, &det);
    for (int i = 1; st == SATFEAT_OK && i < argc; i++) {
        uint8_t *img = NULL;
        int w = 0, h = 0;
        size_t n = 0;
        st = satfeat_image_load_gray8(ctx, argv[i], &img, &w, &h);
        if (st == SATFEAT_OK) st = satfeat_detect_u8(det, img, (size_t)w, w, h, NULL, 0, 0, 0, kps, CAPACITY, &n);
        if (st == SATFEAT_OK)
            printf("%s: %dx%d, %zu keypoints, strongest at (%.2f, %.2f) size %.2f\n", argv[i], w, h,
                   n, n ? kps[0].x : 0.0, n ? kps[0].y : 0.0, n ? kps[0].size : 0.0);
        satfeat_free(img);
    }
    if (st != SATFEAT_OK)
        fprintf(stderr, "track_keypoints: %s: %s\n", satfeat_status_string(st),
                ctx ? satfeat_ctx_last_error(ctx) : "");
    satfeat_detector_delete(det);
    satfeat_ctx_delete(ctx);
    free(kps);
    return st == SATFEAT_OK ? 0 : 1;
}
