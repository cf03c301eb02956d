/* gen_sequence.c - renders an image sequence with known homographies from one photograph.
 *
 * A virtual camera looks at a planar photograph (any image the library reads, converted to
 * 8-bit gray) along a smooth path of perspective homographies; each frame is rendered with
 * supersampled bilinear resampling, then a Gaussian blur, a brightness/contrast change and
 * pixel noise from a fixed-seed PRNG. Beside the frames it writes the homography from frame 1
 * to frame k in the Oxford affine data set's format (nine numbers, row-major, mapping frame-1
 * pixels to frame-k pixels, pixel centres at integer coordinates), which is what
 * satfeat_homography_read and `satfeat eval` read.
 *
 * Files written into OUTDIR: frame001.png .. frameNNN.png and H1to001p .. H1toNNNp
 * (H1to001p is the identity).
 *
 * Motions (t = (k-1)/(N-1) runs from 0 to 1 over the sequence):
 *   track      smooth mixed camera path for tracking: pan, rotation up to ~14 degrees, zoom in
 *              up to 1.4x, a mild tilt, a varying blur and a brightness/contrast drift
 *   rotation   in-plane rotation 0 .. 60 degrees about the frame centre
 *   zoom       zoom in 1x .. 2.2x with a 10 degree rotation
 *   viewpoint  perspective tilt about the vertical axis (one side shrinks up to ~2.3x)
 *   blur       Gaussian blur sigma 0.6 .. 4 px with a few pixels of shift
 *   light      brightness and contrast falling to 30% with a few pixels of shift
 * The base scale (source pixels per frame pixel) is the largest that keeps every frame inside
 * the photograph, found by bisection.
 *
 * The geometry uses libm (sin, cos, exp), so the bytes are the same from run to run on one
 * platform; another libm may change a rare pixel by one level.
 *
 * usage: satfeat_gen_sequence SOURCE OUTDIR [--motion M] [--frames N] [--size WxH]
 *                             [--seed S] [--noise SIGMA]
 */
#include "satfeat.h"
#include "bench/quality_sets/render.h" /* 3x3 maps, sampling, blur, noise */

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define PI 3.14159265358979323846

/* What one frame is: camera pose on the photograph and photometric changes. */
typedef struct frame_params {
    double ox, oy;    /* centre offset, as fractions of the source width and height */
    double theta;     /* in-plane rotation (radians) */
    double zoom;      /* >1 zooms in (fewer source pixels per frame pixel) */
    double tilt_x;    /* perspective: denominator 1 + tilt_x*u + tilt_y*v, u, v in [-1, 1] */
    double tilt_y;
    double blur;      /* Gaussian sigma in frame pixels (0 = none) */
    double gain, bias; /* v' = gain * v + bias (levels) */
} frame_params;

/* Per-frame parameters of motion `m` at t in [0, 1]; returns 0 for an unknown motion. */
static int motion_params(const char *m, double t, frame_params *p)
{
    memset(p, 0, sizeof *p);
    p->zoom = 1.0;
    p->gain = 1.0;
    p->blur = 0.6;
    if (!strcmp(m, "track")) {
        p->ox = 0.10 * sin(1.5 * PI * t);
        p->oy = 0.06 * (1.0 - cos(PI * t)) - 0.03 * sin(2.0 * PI * t);
        p->theta = 0.20 * sin(PI * t) - 0.05 * sin(3.0 * PI * t);
        p->zoom = 1.0 + 0.4 * sin(0.5 * PI * t);
        p->tilt_x = 0.08 * sin(PI * t);
        p->tilt_y = -0.05 * sin(2.0 * PI * t);
        p->blur = 0.6 + 0.5 * sin(3.0 * PI * t) * sin(3.0 * PI * t);
        p->gain = 1.0 + 0.15 * sin(2.0 * PI * t);
        p->bias = 12.0 * sin(PI * t) - 6.0 * t;
    } else if (!strcmp(m, "rotation")) {
        p->theta = t * PI / 3.0;
    } else if (!strcmp(m, "zoom")) {
        p->zoom = 1.0 + 1.2 * t;
        p->theta = t * PI / 18.0;
    } else if (!strcmp(m, "viewpoint")) {
        p->tilt_x = 0.40 * t;
        p->zoom = 1.0 + 0.25 * t;
    } else if (!strcmp(m, "blur")) {
        p->blur = 0.6 + 3.4 * t;
        p->ox = 0.004 * t;
        p->oy = -0.003 * t;
    } else if (!strcmp(m, "light")) {
        p->gain = 1.0 - 0.7 * t;
        p->bias = -10.0 * t;
        p->ox = -0.004 * t;
        p->oy = 0.003 * t;
    } else {
        return 0;
    }
    return 1;
}

/*
 * G: frame pixel -> source pixel for base scale s0 (source pixels per frame pixel):
 * source = centre + s0/zoom * R(theta) * (q / (1 + tilt . q_normalised)), q = pixel - frame centre.
 */
static void frame_to_source(const frame_params *p, double s0, int sw, int sh, int w, int h,
                            double g[9])
{
    const double hw = 0.5 * (w - 1), hh = 0.5 * (h - 1);
    const double s = s0 / p->zoom, c = cos(p->theta), n = sin(p->theta);
    const double cx = 0.5 * (sw - 1) + p->ox * sw, cy = 0.5 * (sh - 1) + p->oy * sh;
    const double to_centre[9] = {1, 0, -hw, 0, 1, -hh, 0, 0, 1};
    const double persp[9] = {1, 0, 0, 0, 1, 0, p->tilt_x / hw, p->tilt_y / hh, 1};
    const double rs[9] = {s * c, -s * n, cx, s * n, s * c, cy, 0, 0, 1};
    double t[9];
    satfeat_render_mat_mul(persp, to_centre, t);
    satfeat_render_mat_mul(rs, t, g);
}

/* 1 when every frame's border (sampled every 8 pixels) lies inside the source with a margin. */
static int path_fits(const frame_params *fp, int n, double s0, int sw, int sh, int w, int h)
{
    const double margin = 3.0;
    for (int k = 0; k < n; k++) {
        double g[9];
        frame_to_source(&fp[k], s0, sw, sh, w, h, g);
        for (int i = 0; i <= 2 * (w + h); i += 8) {
            double x, y, sx, sy;
            if (i <= w) x = i, y = 0;
            else if (i <= w + h) x = w, y = i - w;
            else if (i <= 2 * w + h) x = 2 * w + h - i, y = h;
            else x = 0, y = 2 * (w + h) - i;
            x -= 0.5, y -= 0.5; /* the outer edge of the border pixels */
            if (!satfeat_render_apply(g, x, y, &sx, &sy)) return 0;
            if (sx < margin || sy < margin || sx > sw - 1 - margin || sy > sh - 1 - margin)
                return 0;
        }
    }
    return 1;
}

/* Renders frame pixels as the mean of SS x SS bilinear samples spread over each pixel. */
static void render(const uint8_t *src, int sw, int sh, const double g[9], int w, int h, double *dst)
{
    enum { SS = 4 };
    for (int y = 0; y < h; y++)
        for (int x = 0; x < w; x++) {
            double acc = 0.0;
            for (int j = 0; j < SS; j++)
                for (int i = 0; i < SS; i++) {
                    double sx, sy;
                    double px = x + (i + 0.5) / SS - 0.5, py = y + (j + 0.5) / SS - 0.5;
                    if (!satfeat_render_apply(g, px, py, &sx, &sy)) sx = sy = 0.0;
                    acc += satfeat_render_bilinear(src, sw, sh, sx, sy);
                }
            dst[(size_t)y * w + x] = acc / (SS * SS);
        }
}

/* Writes h (normalised so h[8] = 1) as three rows of three numbers. */
static int write_h(const char *path, const double h[9])
{
    FILE *f = fopen(path, "w");
    if (!f) return 0;
    for (int r = 0; r < 3; r++)
        fprintf(f, "%.12e %.12e %.12e\n", h[r * 3] / h[8], h[r * 3 + 1] / h[8], h[r * 3 + 2] / h[8]);
    return fclose(f) == 0;
}

static int usage(void)
{
    fprintf(stderr, "usage: satfeat_gen_sequence SOURCE OUTDIR [--motion track|rotation|zoom|"
                    "viewpoint|blur|light]\n"
                    "                            [--frames N] [--size WxH] [--seed S] "
                    "[--noise SIGMA]\n");
    return 2;
}

int main(int argc, char **argv)
{
    if (argc < 3) return usage();
    const char *src_path = argv[1], *outdir = argv[2], *motion = "track";
    int n = 30, w = 640, h = 480;
    unsigned long long seed = 1;
    double noise = 2.0;
    for (int i = 3; i < argc; i++) {
        if (i + 1 >= argc) return usage();
        const char *o = argv[i], *v = argv[++i];
        if (!strcmp(o, "--motion")) motion = v;
        else if (!strcmp(o, "--frames")) n = atoi(v);
        else if (!strcmp(o, "--size")) {
            if (sscanf(v, "%dx%d", &w, &h) != 2) return usage();
        } else if (!strcmp(o, "--seed")) seed = strtoull(v, NULL, 10);
        else if (!strcmp(o, "--noise")) noise = atof(v);
        else return usage();
    }
    if (n < 2 || n > 999 || w < 16 || h < 16 || w > 8192 || h > 8192 || !(noise >= 0.0)) return usage();

    uint8_t *src = NULL;
    int sw = 0, sh = 0;
    satfeat_status st = satfeat_image_load_gray8(NULL, src_path, &src, &sw, &sh);
    if (st != SATFEAT_OK) {
        fprintf(stderr, "gen_sequence: cannot read %s: %s\n", src_path, satfeat_status_string(st));
        return 1;
    }
    frame_params *fp = malloc((size_t)n * sizeof *fp);
    double *img = malloc((size_t)w * h * sizeof *img);
    uint8_t *out = malloc((size_t)w * h);
    int rc = 1;
    if (!fp || !img || !out) {
        fprintf(stderr, "gen_sequence: out of memory\n");
        goto done;
    }
    for (int k = 0; k < n; k++)
        if (!motion_params(motion, (double)k / (n - 1), &fp[k])) {
            fprintf(stderr, "gen_sequence: unknown motion '%s'\n", motion);
            rc = 2;
            goto done;
        }
    /* largest base scale that keeps the whole path inside the photograph */
    double lo = 0.05, hi = 64.0;
    if (!path_fits(fp, n, lo, sw, sh, w, h)) {
        fprintf(stderr, "gen_sequence: the path does not fit in a %d x %d source\n", sw, sh);
        goto done;
    }
    for (int it = 0; it < 60; it++) {
        double mid = 0.5 * (lo + hi);
        if (path_fits(fp, n, mid, sw, sh, w, h)) lo = mid;
        else hi = mid;
    }
    const double s0 = lo;
    fprintf(stderr, "gen_sequence: %s, %d frames %dx%d from %dx%d, base scale %.4f\n", motion, n,
            w, h, sw, sh, s0);
    double g1[9];
    frame_to_source(&fp[0], s0, sw, sh, w, h, g1);
    for (int k = 0; k < n; k++) {
        double g[9], ginv[9], h1k[9];
        char path[4096];
        frame_to_source(&fp[k], s0, sw, sh, w, h, g);
        if (!satfeat_render_mat_inv(g, ginv)) {
            fprintf(stderr, "gen_sequence: singular frame map\n");
            goto done;
        }
        satfeat_render_mat_mul(ginv, g1, h1k); /* frame 1 -> source -> frame k */
        if (k == 0)
            for (int i = 0; i < 9; i++) h1k[i] = i % 4 == 0; /* exactly the identity */
        render(src, sw, sh, g, w, h, img);
        if (satfeat_render_gaussian_blur(img, w, h, fp[k].blur, 3.0)) {
            fprintf(stderr, "gen_sequence: out of memory\n");
            goto done;
        }
        uint64_t state = seed * 0x100000001B3ull + (uint64_t)(k + 1);
        for (size_t i = 0; i < (size_t)w * h; i++) {
            double v = fp[k].gain * img[i] + fp[k].bias + noise * satfeat_render_noise_unit(&state);
            v = floor(v + 0.5);
            out[i] = (uint8_t)(v < 0 ? 0 : (v > 255 ? 255 : v));
        }
        snprintf(path, sizeof path, "%s/frame%03d.png", outdir, k + 1);
        if ((st = satfeat_image_write_png(NULL, path, out, (size_t)w, w, h, 1)) != SATFEAT_OK) {
            fprintf(stderr, "gen_sequence: cannot write %s: %s\n", path, satfeat_status_string(st));
            goto done;
        }
        snprintf(path, sizeof path, "%s/H1to%03dp", outdir, k + 1);
        if (!write_h(path, h1k)) {
            fprintf(stderr, "gen_sequence: cannot write %s\n", path);
            goto done;
        }
    }
    rc = 0;
done:
    free(fp);
    free(img);
    free(out);
    satfeat_free(src);
    return rc;
}
