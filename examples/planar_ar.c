/* planar_ar.c - planar augmented reality with the tracker: a rectangle chosen in frame 1 is
 * carried through the sequence by each frame's estimated homography (frame 1 -> frame k), its
 * outline drawn into PNG frames and its corners printed.
 * usage: planar_ar [-r X0 Y0 X1 Y1] OUTDIR FRAME...
 *   (default rectangle: centred, a third of the frame's width and height) */
#include <satfeat.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Sets a 3x3 block of pixels (a thick point) in an RGB image, inside the image only. */
static void dot(uint8_t *rgb, int w, int h, long x, long y)
{
    for (long dy = -1; dy <= 1; dy++)
        for (long dx = -1; dx <= 1; dx++) {
            const long px = x + dx, py = y + dy;
            if (px < 0 || py < 0 || px >= w || py >= h) continue;
            uint8_t *p = rgb + ((size_t)py * (size_t)w + (size_t)px) * 3;
            p[0] = 255, p[1] = 0, p[2] = 255;
        }
}

/* Draws the segment a-b clipped to the image (Liang-Barsky on the parameter t in [0, 1]), one
 * dot per step along the longer axis. */
static void segment(uint8_t *rgb, int w, int h, const double a[2], const double b[2])
{
    const double d[2] = {b[0] - a[0], b[1] - a[1]};
    const double lo[2] = {-1.0, -1.0}, hi[2] = {w, h};
    double t0 = 0.0, t1 = 1.0;
    for (int k = 0; k < 2; k++) {
        if (d[k] == 0.0) {
            if (a[k] < lo[k] || a[k] > hi[k]) return;
            continue;
        }
        double ta = (lo[k] - a[k]) / d[k], tb = (hi[k] - a[k]) / d[k];
        if (ta > tb) {
            const double s = ta;
            ta = tb;
            tb = s;
        }
        t0 = fmax(t0, ta);
        t1 = fmin(t1, tb);
        if (t0 > t1) return;
    }
    const double len = fmax(fabs(d[0]), fabs(d[1])) * (t1 - t0);
    const long steps = (long)ceil(len);
    for (long s = 0; s <= steps; s++) {
        const double t = t0 + (steps ? (t1 - t0) * (double)s / (double)steps : 0.0);
        dot(rgb, w, h, lround(a[0] + t * d[0]), lround(a[1] + t * d[1]));
    }
}

/* Maps (x, y) by the row-major homography h; returns 0 when the point goes to or behind infinity. */
static int map(const double h[9], double x, double y, double out[2])
{
    const double z = h[6] * x + h[7] * y + h[8];
    if (!(z > 1e-12)) return 0;
    out[0] = (h[0] * x + h[1] * y + h[2]) / z;
    out[1] = (h[3] * x + h[4] * y + h[5]) / z;
    return isfinite(out[0]) && isfinite(out[1]);
}

int main(int argc, char **argv)
{
    double rect[4] = {0, 0, 0, 0};
    int arg = 1, have_rect = 0;
    if (argc > 1 && !strcmp(argv[1], "-r")) {
        if (argc < 6) {
            fprintf(stderr, "%s: -r needs X0 Y0 X1 Y1\n", argv[0]);
            return 2;
        }
        for (int k = 0; k < 4; k++) rect[k] = atof(argv[2 + k]);
        have_rect = 1;
        arg = 6;
    }
    if (argc - arg < 2) {
        fprintf(stderr, "usage: %s [-r X0 Y0 X1 Y1] OUTDIR FRAME...\n", argv[0]);
        return 2;
    }
    const char *outdir = argv[arg++];
    satfeat_ctx *ctx = NULL;
    satfeat_tracker *tracker = NULL;
    uint8_t *rgb = NULL;
    char path[4096];
    satfeat_status st = satfeat_ctx_new(&ctx, SATFEAT_BACKEND_AUTO, -1);
    for (int i = arg; st == SATFEAT_OK && i < argc; i++) {
        const int frame = i - arg + 1;
        uint8_t *img = NULL;
        int w = 0, h = 0;
        satfeat_frame_motion m;
        st = satfeat_image_load_gray8(ctx, argv[i], &img, &w, &h);
        if (st == SATFEAT_OK && !tracker) { /* the first frame sizes everything */
            st = satfeat_tracker_new(ctx, NULL, w, h, &tracker);
            rgb = malloc((size_t)w * (size_t)h * 3);
            if (st == SATFEAT_OK && !rgb) st = SATFEAT_ERR_ALLOC;
            if (!have_rect) {
                rect[0] = w / 3.0, rect[1] = h / 3.0, rect[2] = 2.0 * w / 3.0, rect[3] = 2.0 * h / 3.0;
            }
        }
        /* only the frame's motion is needed here, not the tracks */
        if (st == SATFEAT_OK) {
            const satfeat_image_view frame = satfeat_image_view_host(img, w, h, 0);
            st = satfeat_tracker_track(tracker, &frame, &m);
        }
        if (st != SATFEAT_OK) {
            fprintf(stderr, "planar_ar: %s: %s: %s\n", argv[i], satfeat_status_string(st),
                    satfeat_ctx_last_error(ctx));
            satfeat_free(img);
            break;
        }
        const double corners[4][2] = {{rect[0], rect[1]}, {rect[2], rect[1]}, {rect[2], rect[3]},
                                      {rect[0], rect[3]}};
        double q[4][2];
        int visible = 1;
        for (int c = 0; c < 4; c++) visible &= map(m.h_ref, corners[c][0], corners[c][1], q[c]);
        for (size_t p = 0; p < (size_t)w * (size_t)h; p++)
            rgb[3 * p] = rgb[3 * p + 1] = rgb[3 * p + 2] = img[p];
        satfeat_free(img);
        printf("frame %d", frame);
        if (visible) {
            for (int c = 0; c < 4; c++) {
                segment(rgb, w, h, q[c], q[(c + 1) % 4]);
                printf(" %.2f %.2f", q[c][0], q[c][1]);
            }
        } else {
            printf(" (rectangle behind the camera)");
        }
        printf("  inliers %zu%s\n", m.inliers, m.ref_valid || frame == 1 ? "" : " (chained)");
        snprintf(path, sizeof path, "%s/ar_%04d.png", outdir, frame);
        st = satfeat_image_write_png(ctx, path, rgb, (size_t)w * 3, w, h, 3);
        if (st != SATFEAT_OK)
            fprintf(stderr, "planar_ar: %s: %s\n", path, satfeat_ctx_last_error(ctx));
    }
    if (st != SATFEAT_OK && !ctx) fprintf(stderr, "planar_ar: cannot create a context\n");
    free(rgb);
    satfeat_tracker_delete(tracker);
    satfeat_ctx_delete(ctx);
    return st == SATFEAT_OK ? 0 : 1;
}
