/* render.c - resampling and degradation of one evaluation frame (render.h). */
#include "render.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jpeglib.h>

void satfeat_render_mat_mul(const double a[9], const double b[9], double c[9])
{
    for (int r = 0; r < 3; r++)
        for (int k = 0; k < 3; k++)
            c[r * 3 + k] = a[r * 3] * b[k] + a[r * 3 + 1] * b[3 + k] + a[r * 3 + 2] * b[6 + k];
}

int satfeat_render_mat_inv(const double m[9], double out[9])
{
    double c[9] = {m[4] * m[8] - m[5] * m[7], m[2] * m[7] - m[1] * m[8], m[1] * m[5] - m[2] * m[4],
                   m[5] * m[6] - m[3] * m[8], m[0] * m[8] - m[2] * m[6], m[2] * m[3] - m[0] * m[5],
                   m[3] * m[7] - m[4] * m[6], m[1] * m[6] - m[0] * m[7], m[0] * m[4] - m[1] * m[3]};
    double det = m[0] * c[0] + m[1] * c[3] + m[2] * c[6];
    if (!(fabs(det) > 0.0)) return 0;
    for (int i = 0; i < 9; i++) out[i] = c[i] / det;
    return 1;
}

int satfeat_render_apply(const double h[9], double x, double y, double *ox, double *oy)
{
    double z = h[6] * x + h[7] * y + h[8];
    if (!(z > 1e-12)) return 0;
    *ox = (h[0] * x + h[1] * y + h[2]) / z;
    *oy = (h[3] * x + h[4] * y + h[5]) / z;
    return 1;
}

double satfeat_render_bilinear(const uint8_t *src, int sw, int sh, double x, double y)
{
    x = x < 0 ? 0 : (x > sw - 1 ? sw - 1 : x);
    y = y < 0 ? 0 : (y > sh - 1 ? sh - 1 : y);
    int x0 = (int)x, y0 = (int)y;
    int x1 = x0 + 1 < sw ? x0 + 1 : x0, y1 = y0 + 1 < sh ? y0 + 1 : y0;
    double fx = x - x0, fy = y - y0;
    const uint8_t *r0 = src + (size_t)y0 * sw, *r1 = src + (size_t)y1 * sw;
    double a = r0[x0] + fx * (r0[x1] - r0[x0]);
    double b = r1[x0] + fx * (r1[x1] - r1[x0]);
    return a + fy * (b - a);
}

/* Largest photograph-pixel step of one frame pixel, over the corners and the centre. */
static double max_local_scale(const double g[9], int w, int h)
{
    const double pts[5][2] = {{0, 0}, {w - 1, 0}, {0, h - 1}, {w - 1, h - 1}, {0.5 * w, 0.5 * h}};
    double best = 0.0;
    for (int i = 0; i < 5; i++) {
        double x0, y0, x1, y1, x2, y2;
        if (!satfeat_render_apply(g, pts[i][0], pts[i][1], &x0, &y0) ||
            !satfeat_render_apply(g, pts[i][0] + 1, pts[i][1], &x1, &y1) ||
            !satfeat_render_apply(g, pts[i][0], pts[i][1] + 1, &x2, &y2))
            continue;
        double a = hypot(x1 - x0, y1 - y0), b = hypot(x2 - x0, y2 - y0);
        if (a > best) best = a;
        if (b > best) best = b;
    }
    return best;
}

/* Mean of n x n bilinear samples spread over each pixel (n from the local minification). */
static void resample(const uint8_t *src, int sw, int sh, const double g[9], int w, int h,
                     double *dst)
{
    int n = (int)ceil(2.0 * max_local_scale(g, w, h));
    n = n < 2 ? 2 : (n > 12 ? 12 : n);
    for (int y = 0; y < h; y++)
        for (int x = 0; x < w; x++) {
            double acc = 0.0;
            for (int j = 0; j < n; j++)
                for (int i = 0; i < n; i++) {
                    double sx = 0, sy = 0;
                    satfeat_render_apply(g, x + (i + 0.5) / n - 0.5, y + (j + 0.5) / n - 0.5, &sx, &sy);
                    acc += satfeat_render_bilinear(src, sw, sh, sx, sy);
                }
            dst[(size_t)y * w + x] = acc / (n * n);
        }
}

/* One separable pass of kernel k (radius r) along rows (dx 1) or columns, borders replicated. */
static void blur_pass(const double *in, double *out, int w, int h, const double *k, int r, int along_x)
{
    for (int y = 0; y < h; y++)
        for (int x = 0; x < w; x++) {
            double a = 0.0;
            for (int i = -r; i <= r; i++) {
                int xx = along_x ? x + i : x, yy = along_x ? y : y + i;
                xx = xx < 0 ? 0 : (xx >= w ? w - 1 : xx);
                yy = yy < 0 ? 0 : (yy >= h ? h - 1 : yy);
                a += k[i + r] * in[(size_t)yy * w + xx];
            }
            out[(size_t)y * w + x] = a;
        }
}

int satfeat_render_gaussian_blur(double *img, int w, int h, double sigma, double radius_sigmas)
{
    if (!(sigma > 0.0)) return 0;
    int r = (int)ceil(radius_sigmas * sigma);
    double *k = malloc((size_t)(2 * r + 1) * sizeof *k);
    double *tmp = malloc((size_t)w * h * sizeof *tmp);
    if (!k || !tmp) {
        free(k);
        free(tmp);
        return 1;
    }
    double sum = 0.0;
    for (int i = -r; i <= r; i++) sum += k[i + r] = exp(-0.5 * i * i / (sigma * sigma));
    for (int i = 0; i <= 2 * r; i++) k[i] /= sum;
    blur_pass(img, tmp, w, h, k, r, 1);
    blur_pass(tmp, img, w, h, k, r, 0);
    free(k);
    free(tmp);
    return 0;
}

/* splitmix64 step. */
static uint64_t splitmix64(uint64_t *s)
{
    uint64_t z = (*s += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

/* The sum of four uniforms, recentred and rescaled. */
double satfeat_render_noise_unit(uint64_t *s)
{
    double a = 0.0;
    for (int i = 0; i < 4; i++) a += (double)(splitmix64(s) >> 11) * (1.0 / 9007199254740992.0);
    return (a - 2.0) * 1.7320508075688772;
}

/* Compresses the gray image as a JPEG of quality q and decodes it back in place. */
static int jpeg_round_trip(uint8_t *img, int w, int h, int q)
{
    struct jpeg_error_mgr jerr;
    struct jpeg_compress_struct c;
    unsigned char *buf = NULL;
    unsigned long len = 0;
    c.err = jpeg_std_error(&jerr);
    jpeg_create_compress(&c);
    jpeg_mem_dest(&c, &buf, &len);
    c.image_width = (JDIMENSION)w;
    c.image_height = (JDIMENSION)h;
    c.input_components = 1;
    c.in_color_space = JCS_GRAYSCALE;
    jpeg_set_defaults(&c);
    c.dct_method = JDCT_ISLOW;
    jpeg_set_quality(&c, q, TRUE);
    jpeg_start_compress(&c, TRUE);
    while (c.next_scanline < c.image_height) {
        JSAMPROW row = img + (size_t)c.next_scanline * w;
        jpeg_write_scanlines(&c, &row, 1);
    }
    jpeg_finish_compress(&c);
    jpeg_destroy_compress(&c);

    struct jpeg_decompress_struct d;
    d.err = jpeg_std_error(&jerr);
    jpeg_create_decompress(&d);
    jpeg_mem_src(&d, buf, len);
    int rc = 1;
    if (jpeg_read_header(&d, TRUE) == JPEG_HEADER_OK) {
        d.dct_method = JDCT_ISLOW;
        d.out_color_space = JCS_GRAYSCALE;
        jpeg_start_decompress(&d);
        if ((int)d.output_width == w && (int)d.output_height == h && d.output_components == 1) {
            while (d.output_scanline < d.output_height) {
                JSAMPROW row = img + (size_t)d.output_scanline * w;
                jpeg_read_scanlines(&d, &row, 1);
            }
            rc = 0;
        }
        jpeg_finish_decompress(&d);
    }
    jpeg_destroy_decompress(&d);
    free(buf);
    return rc;
}

int satfeat_render_frame(const uint8_t *src, int sw, int sh, const double g[9], int w, int h,
                         const satfeat_render_params *p, uint8_t *out)
{
    double *img = malloc((size_t)w * h * sizeof *img);
    if (!img) return 1;
    resample(src, sw, sh, g, w, h, img);
    if (p->blur > 0.0 && satfeat_render_gaussian_blur(img, w, h, p->blur, 3.5)) {
        free(img);
        return 1;
    }
    uint64_t state = p->seed;
    for (size_t i = 0; i < (size_t)w * h; i++) {
        double v = img[i] < 0 ? 0 : img[i];
        v = 255.0 * p->gain * pow(v / 255.0, p->gamma) + p->bias;
        if (p->noise > 0.0) v += p->noise * satfeat_render_noise_unit(&state);
        v = floor(v + 0.5);
        out[i] = (uint8_t)(v < 0 ? 0 : (v > 255 ? 255 : v));
    }
    free(img);
    return p->jpeg_quality > 0 ? jpeg_round_trip(out, w, h, p->jpeg_quality) : 0;
}
