/* ar_overlay.c - the smallest augmented-reality program: a known picture (the target) and its
 * printed width, the camera's intrinsics, frames in; per frame the camera's pose, and the frame
 * written with a cube standing on the target drawn through that pose.
 * usage: ar_overlay TARGET WIDTH_M FX,FY,CX,CY[,K1,K2] OUTDIR FRAME...
 *   e.g. ar_overlay data/photos/Astronaut.jpg 0.2 "$(tr ' ' , <data/ar_sample/camera.txt)" \
 *          out data/ar_sample/frame*.png */
#include <satfeat.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Draws the segment a-b in white into a gray image, one pixel per step (clipped per pixel). */
static void line(uint8_t *img, int w, int h, const double a[2], const double b[2])
{
    if (!isfinite(a[0]) || !isfinite(a[1]) || !isfinite(b[0]) || !isfinite(b[1])) return;
    const double n = fmax(fabs(b[0] - a[0]), fabs(b[1] - a[1]));
    if (n > 8 * (w + h)) return; /* a corner far outside: skip rather than walk to it */
    for (int s = 0; s <= (int)n; s++) {
        const double t = n > 0 ? s / n : 0;
        const long x = lround(a[0] + t * (b[0] - a[0])), y = lround(a[1] + t * (b[1] - a[1]));
        if (x >= 0 && y >= 0 && x < w && y < h) img[(size_t)y * (size_t)w + (size_t)x] = 255;
    }
}

int main(int argc, char **argv)
{
    if (argc < 6) {
        fprintf(stderr, "usage: ar_overlay TARGET WIDTH_M FX,FY,CX,CY[,K1,K2] OUTDIR FRAME...\n");
        return 2;
    }
    satfeat_ar_camera cam = {0};
    if (sscanf(argv[3], "%lf,%lf,%lf,%lf,%lf,%lf", &cam.fx, &cam.fy, &cam.cx, &cam.cy, &cam.k1,
               &cam.k2) < 4) {
        fprintf(stderr, "ar_overlay: bad intrinsics %s\n", argv[3]);
        return 2;
    }
    satfeat_ctx *ctx = NULL;
    satfeat_ar_target *target = NULL;
    satfeat_ar_session *session = NULL;
    uint8_t *ref = NULL, *frame = NULL;
    int rw, rh, w, h, rc = 1;
    const double width_m = atof(argv[2]);
    if (satfeat_ctx_new(&ctx, SATFEAT_BACKEND_AUTO, 0) != SATFEAT_OK) return 1;
    /* the target, and a session sized by the first frame */
    if (satfeat_image_load_gray8(ctx, argv[1], &ref, &rw, &rh) != SATFEAT_OK ||
        satfeat_ar_target_new(ctx, ref, (size_t)rw, rw, rh, width_m, NULL, &target) != SATFEAT_OK ||
        satfeat_image_load_gray8(ctx, argv[5], &frame, &w, &h) != SATFEAT_OK ||
        satfeat_ar_session_new(ctx, (const satfeat_ar_target *const *)&target, 1, &cam, NULL, w,
                               h, &session) != SATFEAT_OK)
        goto done;
    /* a cube half as wide as the target standing on its centre, towards the camera (which
     * looks at the target's front, from negative z) */
    const double s = width_m / rw, c[2] = {0.5 * s * (rw - 1), 0.5 * s * (rh - 1)};
    const double e = 0.25 * width_m;
    double cube[8][3], px[8][2];
    for (int k = 0; k < 8; k++) {
        cube[k][0] = c[0] + ((k & 1) ? e : -e);
        cube[k][1] = c[1] + ((k & 2) ? e : -e);
        cube[k][2] = (k & 4) ? -2 * e : 0.0;
    }
    static const int edges[12][2] = {{0, 1}, {1, 3}, {3, 2}, {2, 0}, {4, 5}, {5, 7},
                                     {7, 6}, {6, 4}, {0, 4}, {1, 5}, {2, 6}, {3, 7}};
    for (int f = 5; f < argc; f++) {
        if (f > 5) {
            satfeat_free(frame);
            frame = NULL;
            int fw, fh;
            if (satfeat_image_load_gray8(ctx, argv[f], &frame, &fw, &fh) != SATFEAT_OK ||
                fw != w || fh != h)
                goto done;
        }
        const satfeat_image_view view = satfeat_image_view_host(frame, w, h, 0);
        satfeat_ar_result r;
        if (satfeat_ar_session_process(session, &view, &r, 1) != SATFEAT_OK) goto done;
        static const char *const states[] = {"lost", "found", "tracked"};
        printf("frame %d %s", f - 4, states[r.state]);
        if (r.state != SATFEAT_AR_LOST) {
            printf(" t %.4f %.4f %.4f r %.4f %.4f %.4f", r.tvec[0], r.tvec[1], r.tvec[2],
                   r.rvec[0], r.rvec[1], r.rvec[2]);
            if (satfeat_ar_project_points(&cam, r.rvec, r.tvec, &cube[0][0], 8, &px[0][0]) !=
                SATFEAT_OK)
                goto done;
            for (int k = 0; k < 12; k++) line(frame, w, h, px[edges[k][0]], px[edges[k][1]]);
        }
        printf("\n");
        char out[4096];
        snprintf(out, sizeof out, "%s/frame%04d.png", argv[4], f - 4);
        if (satfeat_image_write_png(ctx, out, frame, (size_t)w, w, h, 1) != SATFEAT_OK) goto done;
    }
    rc = 0;
done:
    if (rc) fprintf(stderr, "ar_overlay: %s\n", satfeat_ctx_last_error(ctx));
    satfeat_ar_session_delete(session);
    satfeat_ar_target_delete(target);
    satfeat_free(ref);
    satfeat_free(frame);
    satfeat_ctx_delete(ctx);
    return rc;
}
