/* gen_ar_sequence.c - renders an AR test sequence: a reference image (the target, of a given
 * physical width) on a textured plane, seen along one of the camera paths of ar_paths.c, with
 * the exact pose of every frame.
 *
 * usage: satfeat_gen_ar_sequence REF WIDTH_M PATH OUTDIR [--frames N] [--size WxH]
 *                                [--supersample S] [--texture-seed S] [--check DIR]
 * writes OUTDIR/frame001.png .. frameNNN.png, OUTDIR/camera.txt ("fx fy cx cy k1 k2", the
 * values `satfeat ar --camera` and `--distortion` take) and OUTDIR/poses.txt: one line per
 * frame "frame tx ty tz rx ry rz visible" (frame 1-based, the pose of the target's world as
 * `satfeat ar` prints it, visible the fraction of the target inside the frame and not under
 * the occluder). Paths: those of ar_paths.h (approach, leave, occlusion, perspective, blur,
 * light, sample, orbit, handheld). With --check DIR the files are also compared with those of
 * DIR (a sequence generated before, e.g. data/ar_sample): the frames' pixels (not their PNG
 * bytes, which depend on zlib), camera.txt and poses.txt's text; the first difference is
 * reported and the exit status is 1. */
#include "ar_paths.h"
#include "ar_render.h"
#include "ar/ar_rotation.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Reads a whole text file into a malloc'ed string, NULL when it cannot. */
static char *read_text(const char *dir, const char *file)
{
    char name[4096];
    snprintf(name, sizeof name, "%s/%s", dir, file);
    FILE *f = fopen(name, "rb");
    if (!f) return NULL;
    char *s = NULL;
    long n = -1;
    if (fseek(f, 0, SEEK_END) == 0 && (n = ftell(f)) >= 0 && fseek(f, 0, SEEK_SET) == 0 &&
        (s = malloc((size_t)n + 1)) && fread(s, 1, (size_t)n, f) == (size_t)n) {
        s[n] = 0;
    } else {
        free(s);
        s = NULL;
    }
    fclose(f);
    return s;
}

/* --check: frame k's pixels against DIR/frameNNN.png; 0 when equal. */
static int check_frame(const char *dir, int k, const uint8_t *frame, int w, int h)
{
    char name[4096];
    snprintf(name, sizeof name, "%s/frame%03d.png", dir, k + 1);
    uint8_t *pix = NULL;
    int pw, ph;
    if (satfeat_image_load_gray8(NULL, name, &pix, &pw, &ph) != SATFEAT_OK || pw != w || ph != h) {
        fprintf(stderr, "gen_ar_sequence: check: %s is missing or not %dx%d\n", name, w, h);
        satfeat_free(pix);
        return 1;
    }
    size_t diff = 0;
    for (size_t i = 0; i < (size_t)w * h; i++) diff += pix[i] != frame[i];
    satfeat_free(pix);
    if (diff) fprintf(stderr, "gen_ar_sequence: check: %s differs in %zu pixels\n", name, diff);
    return diff != 0;
}

/* --check: OUTDIR/file against DIR/file, as text; 0 when equal. */
static int check_text(const char *outdir, const char *dir, const char *file)
{
    char *a = read_text(outdir, file), *b = read_text(dir, file);
    const int bad = !a || !b || strcmp(a, b) != 0;
    if (bad) fprintf(stderr, "gen_ar_sequence: check: %s/%s differs from %s/%s\n", outdir, file,
                     dir, file);
    free(a), free(b);
    return bad;
}

static int usage(void)
{
    fprintf(stderr, "usage: satfeat_gen_ar_sequence REF WIDTH_M PATH OUTDIR [--frames N] "
                    "[--size WxH] [--supersample S] [--texture-seed S] [--check DIR]\n");
    return 2;
}

int main(int argc, char **argv)
{
    if (argc < 5) return usage();
    const char *ref = argv[1], *path = argv[3], *outdir = argv[4], *check = NULL;
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
        else if (!strcmp(argv[i], "--check") && i + 1 < argc) check = argv[++i];
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
        if (rc == 0 && check && check_frame(check, k, frame, w, h)) rc = 2;
        double r[3];
        satfeat_ar_matrix_to_rodrigues(f.R, r);
        fprintf(fp, "%d %.17g %.17g %.17g %.17g %.17g %.17g %.4f\n", k + 1, f.t[0], f.t[1], f.t[2],
                r[0], r[1], r[2], ar_render_visible_fraction(&scene, 0, &cam, &f, w, h));
    }
    if (fc && fclose(fc) != 0) rc = 1;
    if (fp && fclose(fp) != 0) rc = 1;
    if (rc == 1) fprintf(stderr, "gen_ar_sequence: writing into %s failed\n", outdir);
    if (rc == 0 && check && (check_text(outdir, check, "camera.txt") ||
                             check_text(outdir, check, "poses.txt")))
        rc = 2;
    if (rc == 2) rc = 1; /* a difference from --check DIR (reported above) */
    free(frame);
    satfeat_free(pix);
    return rc;
}
