/* gen_ar_sequence.c - renders an AR test sequence: a reference image (the target, of a given
 * physical width) on a textured plane, seen along one of the camera paths of ar_paths.c, with
 * the exact pose of every frame.
 *
 * usage: satfeat_gen_ar_sequence REF WIDTH_M PATH OUTDIR [--frames N] [--size WxH]
 *                                [--supersample S] [--texture-seed S]
 * writes OUTDIR/frame001.png .. frameNNN.png, OUTDIR/camera.txt ("fx fy cx cy k1 k2", the
 * values `satfeat ar --camera` and `--distortion` take) and OUTDIR/poses.txt: one line per
 * frame "frame tx ty tz rx ry rz visible" (frame 1-based, the pose of the target's world as
 * `satfeat ar` prints it, visible the fraction of the target inside the frame and not under
 * the occluder). Paths: those of ar_paths.h (approach, leave, occlusion, perspective, blur,
 * light, sample, orbit, handheld). */
#include "ar_paths.h"
#include "ar_render.h"
#include "ar/ar_rotation.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int usage(void)
{
    fprintf(stderr, "usage: satfeat_gen_ar_sequence REF WIDTH_M PATH OUTDIR [--frames N] "
                    "[--size WxH] [--supersample S] [--texture-seed S]\n");
    return 2;
}

int main(int argc, char **argv)
{
    if (argc < 5) return usage();
    const char *ref = argv[1], *path = argv[3], *outdir = argv[4];
    const double width_m = atof(argv[2]);
    int frames = 60, w = 640, h = 480, ss = 3;
    unsigned long long tseed = 1;
    for (int i = 5; i < argc; i++) {
        if (!strcmp(argv[i], "--frames") && i + 1 < argc) frames = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--size") && i + 1 < argc) {
            if (sscanf(argv[++i], "%dx%d", &w, &h) != 2) return usage();
        } else if (!strcmp(argv[i], "--supersample") && i + 1 < argc) ss = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--texture-seed") && i + 1 < argc)
            tseed = strtoull(argv[++i], NULL, 10);
        else return usage();
    }
    if (!(width_m > 0) || frames < 1 || w < 16 || h < 16 || ss < 1 || ss > 8) return usage();
    ar_render_scene scene = {0};
    uint8_t *pix = NULL;
    int rw, rh;
    if (satfeat_image_load_gray8(NULL, ref, &pix, &rw, &rh) != SATFEAT_OK) {
        fprintf(stderr, "gen_ar_sequence: cannot read %s\n", ref);
        return 1;
    }
    scene.targets[0] = (ar_render_target){pix, rw, rh, width_m, 0.0, 0.0};
    scene.n_targets = 1;
    scene.texture_seed = tseed;
    scene.supersample = ss;
    satfeat_ar_camera cam;
    if (!ar_path_camera(path, w, h, &cam)) {
        fprintf(stderr, "gen_ar_sequence: unknown path %s\n", path);
        satfeat_free(pix);
        return 2;
    }
    char name[4096];
    snprintf(name, sizeof name, "%s/camera.txt", outdir);
    FILE *fc = fopen(name, "w");
    snprintf(name, sizeof name, "%s/poses.txt", outdir);
    FILE *fp = fopen(name, "w");
    uint8_t *frame = malloc((size_t)w * h);
    int rc = (fc && fp && frame) ? 0 : 1;
    if (fc) fprintf(fc, "%.17g %.17g %.17g %.17g %.17g %.17g\n", cam.fx, cam.fy, cam.cx, cam.cy,
                    cam.k1, cam.k2);
    for (int k = 0; k < frames && rc == 0; k++) {
        ar_render_frame f;
        ar_path_frame(path, k, frames, width_m, width_m * rh / rw, &cam, w, h, &f);
        if (ar_render(&scene, &cam, &f, w, h, frame) != 0) rc = 1;
        snprintf(name, sizeof name, "%s/frame%03d.png", outdir, k + 1);
        if (rc == 0 && satfeat_image_write_png(NULL, name, frame, (size_t)w, w, h, 1) != SATFEAT_OK)
            rc = 1;
        double r[3];
        satfeat_ar_matrix_to_rodrigues(f.R, r);
        fprintf(fp, "%d %.17g %.17g %.17g %.17g %.17g %.17g %.4f\n", k + 1, f.t[0], f.t[1], f.t[2],
                r[0], r[1], r[2], ar_render_visible_fraction(&scene, 0, &cam, &f, w, h));
    }
    if (fc && fclose(fc) != 0) rc = 1;
    if (fp && fclose(fp) != 0) rc = 1;
    if (rc) fprintf(stderr, "gen_ar_sequence: writing into %s failed\n", outdir);
    free(frame);
    satfeat_free(pix);
    return rc;
}
