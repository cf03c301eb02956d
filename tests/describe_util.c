/* describe_util.c - see describe_util.h. */
#include "describe_util.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

du_blob *du_random_blobs(test_rng *rng, int w, int h, int n)
{
    du_blob *b = malloc((size_t)n * sizeof *b);
    assert_non_null(b);
    for (int k = 0; k < n; k++) {
        b[k].x = w * (double)test_rng_unit(rng);
        b[k].y = h * (double)test_rng_unit(rng);
        b[k].s_major = 2.0 + 8.0 * (double)test_rng_unit(rng);
        b[k].s_minor = b[k].s_major * (0.3 + 0.5 * (double)test_rng_unit(rng));
        b[k].theta = 3.141592653589793 * (double)test_rng_unit(rng);
        b[k].amplitude = (30.0 + 50.0 * (double)test_rng_unit(rng)) * (test_rng_next(rng) & 1 ? 1 : -1);
    }
    return b;
}

uint8_t *du_render(const du_blob *b, int n, int w, int h, double scale, double angle, double cx,
                   double cy, double ox, double oy)
{
    double *acc = calloc((size_t)w * (size_t)h, sizeof *acc);
    uint8_t *img = malloc((size_t)w * (size_t)h);
    assert_non_null(acc);
    assert_non_null(img);
    const double ca = cos(angle), sa = sin(angle);
    for (int k = 0; k < n; k++) {
        const double px = b[k].x - cx, py = b[k].y - cy;
        const double bx = ox + scale * (ca * px - sa * py), by = oy + scale * (sa * px + ca * py);
        const double s1 = b[k].s_major * scale, s2 = b[k].s_minor * scale;
        const double th = b[k].theta + angle, ct = cos(th), st = sin(th);
        const int r = (int)ceil(4.0 * s1);
        for (int y = (int)floor(by) - r; y <= (int)floor(by) + r; y++) {
            if (y < 0 || y >= h) continue;
            for (int x = (int)floor(bx) - r; x <= (int)floor(bx) + r; x++) {
                if (x < 0 || x >= w) continue;
                const double dx = x - bx, dy = y - by;
                const double u = ct * dx + st * dy, v = -st * dx + ct * dy;
                acc[(size_t)y * w + x] +=
                    b[k].amplitude * exp(-0.5 * (u * u / (s1 * s1) + v * v / (s2 * s2)));
            }
        }
    }
    for (size_t i = 0; i < (size_t)w * (size_t)h; i++) {
        const double v = floor(128.0 + acc[i] + 0.5);
        img[i] = (uint8_t)(v < 0 ? 0 : (v > 255 ? 255 : v));
    }
    free(acc);
    return img;
}

uint8_t *du_rotate_bilinear(const uint8_t *img, int w, int h, double angle, double cx, double cy)
{
    uint8_t *out = malloc((size_t)w * (size_t)h);
    assert_non_null(out);
    const double ca = cos(angle), sa = sin(angle);
    for (int y = 0; y < h; y++)
        for (int x = 0; x < w; x++) {
            const double px = x - cx, py = y - cy;
            const double sx = cx + ca * px + sa * py, sy = cy - sa * px + ca * py;
            double v = 128.0;
            const int x0 = (int)floor(sx), y0 = (int)floor(sy);
            if (x0 >= 0 && y0 >= 0 && x0 + 1 < w && y0 + 1 < h) {
                const double fx = sx - x0, fy = sy - y0;
                const uint8_t *p = img + (size_t)y0 * w + x0;
                const double top = p[0] * (1 - fx) + p[1] * fx;
                const double bot = p[w] * (1 - fx) + p[w + 1] * fx;
                v = top * (1 - fy) + bot * fy;
            }
            v = floor(v + 0.5);
            out[(size_t)y * w + x] = (uint8_t)(v < 0 ? 0 : (v > 255 ? 255 : v));
        }
    return out;
}

uint8_t *du_rotate90(const uint8_t *img, int w, int h)
{
    uint8_t *out = malloc((size_t)w * (size_t)h);
    assert_non_null(out);
    for (int y = 0; y < h; y++)
        for (int x = 0; x < w; x++) out[(size_t)x * h + (h - 1 - y)] = img[(size_t)y * w + x];
    return out;
}

uint32_t *du_table(const uint8_t *img, int w, int h)
{
    uint32_t *t = malloc((size_t)(w + 1) * (size_t)(h + 1) * sizeof *t);
    assert_non_null(t);
    test_reference_sat_u8(img, (size_t)w, w, h, t);
    return t;
}

satfeat_keypoint *du_detect(const uint8_t *img, int w, int h, int max_kp, size_t *n)
{
    satfeat_detector_params p = satfeat_detector_params_default();
    p.unique_scales = 1; /* one keypoint per structure: its geometric partner is unique */
    if (max_kp > 0) p.max_keypoints = max_kp;
    satfeat_ctx *ctx = NULL;
    satfeat_detector *det = NULL;
    assert_int_equal(satfeat_ctx_new(&ctx, SATFEAT_BACKEND_CPU, 0), SATFEAT_OK);
    assert_int_equal(satfeat_ctx_set_threads(ctx, 2), SATFEAT_OK);
    assert_int_equal(satfeat_detector_new(ctx, &p, w, h, &det), SATFEAT_OK);
    satfeat_keypoint *kp = test_detect_copy(det, img, (size_t)w, w, h, NULL, 0, n, NULL);
    satfeat_detector_delete(det);
    satfeat_ctx_delete(ctx);
    return kp;
}

size_t du_nearest(const float *q, const float *set, size_t n, int dim)
{
    size_t best = 0;
    double bd = INFINITY;
    for (size_t i = 0; i < n; i++) {
        double d = 0.0;
        for (int k = 0; k < dim; k++) {
            const double e = (double)q[k] - (double)set[i * (size_t)dim + k];
            d += e * e;
        }
        if (d < bd) {
            bd = d;
            best = i;
        }
    }
    return best;
}

du_scene du_scene_make(int w, int h, uint64_t seed, int blobs, int max_kp)
{
    du_scene s;
    test_rng rng;
    test_rng_seed(&rng, seed);
    s.blobs = du_random_blobs(&rng, w, h, blobs);
    s.img = du_render(s.blobs, blobs, w, h, 1.0, 0.0, 0, 0, 0, 0);
    s.table = du_table(s.img, w, h);
    s.n = 0;
    s.kp = du_detect(s.img, w, h, max_kp, &s.n);
    satfeat_describe_weights_init(&s.wt);
    return s;
}

void du_scene_free(du_scene *s)
{
    free(s->kp);
    free(s->table);
    free(s->img);
    free(s->blobs);
}
