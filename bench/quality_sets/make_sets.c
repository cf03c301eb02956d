/* make_sets.c - renders the evaluation sequences of eval_sets.c from the photographs in
 * data/photos, with the exact homography from frame 1 to every frame.
 *
 * A frame is a pinhole camera (focal length 2 x frame width) looking at the photograph as a
 * plane that is rotated in-plane, scaled and turned out of plane (yaw, pitch); F maps photograph
 * pixels to frame pixels (pixel centres at integer coordinates on both sides) and
 * H1tok = F_k * F_1^-1 exactly (as doubles, then printed with 17 significant digits). Each frame
 * pixel is the mean of n x n bilinear samples spread over the pixel (n grows with the local
 * minification, so zooming out does not alias), blurred by a Gaussian of sigma
 * sqrt(0.5^2 + blur^2) px, changed in light (gain, gamma, bias), given noise from a fixed-seed
 * PRNG, rounded to 8 bits and, where asked, compressed and decompressed as a JPEG (libjpeg,
 * integer DCT). The base scale is the largest that keeps every frame of the set inside the
 * photograph (bisection). Everything is a function of the inputs only: the same bytes on every
 * run on one platform (libm's sin, cos, exp, pow are used).
 *
 * Writes OUTDIR/NAME/frame001.png .. frame006.png, H1to002p .. H1to006p (the layout of
 * tools/gen_sequence.c), OUTDIR/NAME/role (tuning or heldout) and OUTDIR/sets.tsv.
 *
 * usage: satfeat_eval_make_sets PHOTO_DIR OUTDIR [--only NAME[,NAME...]] [--shrink N]
 *   --shrink N divides the frame sizes by N (the ctest's quick sets)
 */
#include "eval_sets.h"
#include "render.h"
#include "satfeat.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#define PI 3.14159265358979323846

/* 1 when `name` is in the comma list `only` (NULL: every name). */
static int selected(const char *only, const char *name)
{
    if (!only) return 1;
    size_t n = strlen(name);
    for (const char *p = only; *p;) {
        const char *e = strchr(p, ',');
        size_t len = e ? (size_t)(e - p) : strlen(p);
        if (len == n && !strncmp(p, name, n)) return 1;
        if (!e) break;
        p = e + 1;
    }
    return 0;
}

/* Photograph -> frame map of frame `f` at base scale s0 (photograph pixels per frame pixel). */
static void photo_to_frame(const satfeat_eval_frame *f, double s0, int sw, int sh, int w, int h,
                           double out[9])
{
    const double zoom = f->zoom > 0 ? f->zoom : 1.0;
    const double a = zoom / s0, th = f->rot_deg * PI / 180.0;
    const double c = cos(th), s = sin(th);
    const double cx = 0.5 * (sw - 1), cy = 0.5 * (sh - 1);
    /* plane coordinates (frame pixels at zoom 1, origin at the view centre) */
    const double sim[9] = {a * c, a * s, -a * (c * cx + s * cy) - f->shift_x,
                           -a * s, a * c, -a * (-s * cx + c * cy) - f->shift_y,
                           0, 0, 1};
    const double yw = f->yaw_deg * PI / 180.0, pt = f->pitch_deg * PI / 180.0;
    /* R = Rx(pitch) * Ry(yaw); its first two columns carry the plane's axes */
    const double cyw = cos(yw), syw = sin(yw), cp = cos(pt), sp = sin(pt);
    const double r1[3] = {cyw, sp * syw, -cp * syw};
    const double r2[3] = {0, cp, sp};
    const double fl = 2.0 * w, hw = 0.5 * (w - 1), hh = 0.5 * (h - 1);
    const double m[9] = {fl * r1[0] + hw * r1[2], fl * r2[0] + hw * r2[2], hw * fl,
                         fl * r1[1] + hh * r1[2], fl * r2[1] + hh * r2[2], hh * fl,
                         r1[2], r2[2], fl};
    satfeat_render_mat_mul(m, sim, out);
}

/* 1 when every frame's border (every 4 px) maps inside the photograph with a 3 px margin. */
static int set_fits(const satfeat_eval_set *set, double s0, int sw, int sh, int w, int h)
{
    for (int k = 0; k < SATFEAT_EVAL_FRAMES; k++) {
        double f[9], g[9];
        photo_to_frame(&set->frames[k], s0, sw, sh, w, h, f);
        if (!satfeat_render_mat_inv(f, g)) return 0;
        for (int i = 0; i <= 2 * (w + h); i += 4) {
            double x, y, sx, sy;
            if (i <= w) x = i, y = 0;
            else if (i <= w + h) x = w, y = i - w;
            else if (i <= 2 * w + h) x = 2 * w + h - i, y = h;
            else x = 0, y = 2 * (w + h) - i;
            if (!satfeat_render_apply(g, x - 0.5, y - 0.5, &sx, &sy)) return 0;
            if (sx < 3 || sy < 3 || sx > sw - 4 || sy > sh - 4) return 0;
        }
    }
    return 1;
}

/* Writes h (scaled so that h[8] = 1) as three rows of three numbers. */
static int write_h(const char *path, const double h[9])
{
    FILE *f = fopen(path, "w");
    if (!f) return 0;
    for (int r = 0; r < 3; r++)
        fprintf(f, "%.17g %.17g %.17g\n", h[r * 3] / h[8], h[r * 3 + 1] / h[8], h[r * 3 + 2] / h[8]);
    return fclose(f) == 0;
}

/* Renders one set into dir; returns 0 on success. */
static int make_set(const satfeat_eval_set *set, const char *photo_dir, const char *dir, int shrink,
                    FILE *tsv)
{
    char path[4096];
    uint8_t *src = NULL;
    int sw = 0, sh = 0;
    snprintf(path, sizeof path, "%s/%s", photo_dir, set->photo);
    satfeat_status st = satfeat_image_load_gray8(NULL, path, &src, &sw, &sh);
    if (st != SATFEAT_OK) {
        fprintf(stderr, "make_sets: cannot read %s: %s\n", path, satfeat_status_string(st));
        return 1;
    }
    const int w = set->width / shrink, h = set->height / shrink;
    double lo = 0.01, hi = 64.0;
    int rc = 1;
    uint8_t *out = malloc((size_t)w * h);
    if (!out) goto done;
    if (!set_fits(set, lo, sw, sh, w, h)) {
        fprintf(stderr, "make_sets: %s does not fit in %s\n", set->name, set->photo);
        goto done;
    }
    for (int it = 0; it < 60; it++) {
        double mid = 0.5 * (lo + hi);
        if (set_fits(set, mid, sw, sh, w, h)) lo = mid;
        else hi = mid;
    }
    mkdir(dir, 0777);
    double f1[9], g1[9];
    photo_to_frame(&set->frames[0], lo, sw, sh, w, h, f1);
    if (!satfeat_render_mat_inv(f1, g1)) goto done;
    for (int k = 0; k < SATFEAT_EVAL_FRAMES; k++) {
        const satfeat_eval_frame *fr = &set->frames[k];
        double f[9], g[9], h1k[9];
        photo_to_frame(fr, lo, sw, sh, w, h, f);
        if (!satfeat_render_mat_inv(f, g)) goto done;
        satfeat_render_mat_mul(f, g1, h1k);
        if (k == 0)
            for (int i = 0; i < 9; i++) h1k[i] = i % 4 == 0;
        satfeat_render_params rp = {
            .blur = sqrt(0.25 + fr->blur * fr->blur),
            .gain = fr->gain > 0 ? fr->gain : 1.0,
            .gamma = fr->gamma > 0 ? fr->gamma : 1.0,
            .bias = fr->bias,
            .noise = fr->noise,
            .jpeg_quality = fr->jpeg_quality,
            .seed = 0x5a7fea7ull * 1000u + (uint64_t)(set - satfeat_eval_sets) * 16u + (uint64_t)k,
        };
        if (satfeat_render_frame(src, sw, sh, g, w, h, &rp, out)) goto done;
        if (snprintf(path, sizeof path, "%s/frame%03d.png", dir, k + 1) >= (int)sizeof path ||
            satfeat_image_write_png(NULL, path, out, (size_t)w, w, h, 1) != SATFEAT_OK) goto done;
        if (snprintf(path, sizeof path, "%s/H1to%03dp", dir, k + 1) >= (int)sizeof path || !write_h(path, h1k)) goto done;
    }
    if (snprintf(path, sizeof path, "%s/role", dir) >= (int)sizeof path) goto done;
    FILE *rf = fopen(path, "w");
    if (!rf) goto done;
    fprintf(rf, "%s\n", set->held_out ? "heldout" : "tuning");
    if (fclose(rf)) goto done;
    fprintf(tsv, "%s\t%s\t%s\t%dx%d\t%.4f\t%s\n", set->name, set->held_out ? "heldout" : "tuning",
            set->photo, w, h, lo, set->what);
    rc = 0;
done:
    if (rc) fprintf(stderr, "make_sets: %s failed\n", set->name);
    free(out);
    satfeat_free(src);
    return rc;
}

int main(int argc, char **argv)
{
    const char *only = NULL;
    int shrink = 1;
    if (argc < 3) goto usage;
    for (int i = 3; i < argc; i += 2) {
        if (i + 1 >= argc) goto usage;
        if (!strcmp(argv[i], "--only")) only = argv[i + 1];
        else if (!strcmp(argv[i], "--shrink")) shrink = atoi(argv[i + 1]);
        else goto usage;
    }
    if (shrink < 1 || shrink > 8) goto usage;
    mkdir(argv[2], 0777);
    char path[4096];
    snprintf(path, sizeof path, "%s/sets.tsv", argv[2]);
    FILE *tsv = fopen(path, "w");
    if (!tsv) {
        fprintf(stderr, "make_sets: cannot write %s\n", path);
        return 1;
    }
    fprintf(tsv, "name\trole\tphoto\tsize\tbase_scale\twhat\n");
    int rc = 0, made = 0;
    for (int s = 0; s < satfeat_eval_set_count && !rc; s++) {
        if (!selected(only, satfeat_eval_sets[s].name)) continue;
        snprintf(path, sizeof path, "%s/%s", argv[2], satfeat_eval_sets[s].name);
        rc = make_set(&satfeat_eval_sets[s], argv[1], path, shrink, tsv);
        made++;
    }
    if (fclose(tsv)) rc = 1;
    if (!made) {
        fprintf(stderr, "make_sets: no set named %s\n", only);
        return 2;
    }
    return rc;
usage:
    fprintf(stderr, "usage: satfeat_eval_make_sets PHOTO_DIR OUTDIR [--only NAME[,NAME...]] [--shrink N]\n");
    return 2;
}
