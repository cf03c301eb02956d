/* ar_target.c - building a target: the reference at several scales, each detected with
 * descriptors, keypoints mapped back to reference pixels (satfeat_ar_target_new and friends). */
#include "ar/ar_features.h"
#include "ar/ar_target_internal.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

satfeat_ar_target_params satfeat_ar_target_params_default(void)
{
    satfeat_ar_target_params p;
    p.detector = satfeat_detector_params_default();
    p.detector.threshold = 0.0002;
    p.detector.grid = 8;
    p.detector.per_cell = 24;
    /* the descriptors AR's bounds and docs/AR.md were measured with (SURF's unit L2, the
     * unrefined orientation, Haar sides 3s): the detector's newer defaults are not measured on
     * AR's sequences */
    p.detector.descriptor_norm = SATFEAT_DESCRIPTOR_NORM_L2;
    p.detector.orientation_refine = 0;
    p.detector.descriptor_haar = 3;
    p.detector.orientation_haar = 3;
    p.detector.orientation_filter = SATFEAT_ORIENTATION_HAAR;
    p.scale_step = 0.70710678118654752;
    p.min_width = 80;
    p.max_features = 500;
    return p;
}

satfeat_ar_target *satfeat_ar_target_alloc(size_t n, int dim)
{
    satfeat_ar_target *t = calloc(1, sizeof *t);
    if (!t) return NULL;
    t->dim = dim;
    t->n = n;
    t->kp = calloc(n ? n : 1, sizeof *t->kp);
    t->desc = malloc((n ? n : 1) * (size_t)dim * sizeof(float));
    if (!t->kp || !t->desc) {
        satfeat_ar_target_delete(t);
        return NULL;
    }
    return t;
}

void satfeat_ar_target_delete(satfeat_ar_target *target)
{
    if (!target) return;
    free(target->kp);
    free(target->desc);
    satfeat_ar_photo_free(&target->photo);
    free(target);
}

satfeat_status satfeat_ar_target_get_info(const satfeat_ar_target *target,
                                          satfeat_ar_target_info *info)
{
    if (!target || !info) return SATFEAT_ERR_ARG;
    info->width = target->width;
    info->height = target->height;
    info->width_m = target->width_m;
    info->features = target->n;
    info->scales = target->scales;
    info->descriptor_dim = target->dim;
    return SATFEAT_OK;
}

/* One axis of an area resample: weights of source pixels over [i sx, (i + 1) sx). */
static void area_row(const float *src, int n, float *dst, int dn, size_t sstep, size_t dstep)
{
    const double s = (double)n / dn;
    for (int i = 0; i < dn; i++) {
        const double a = i * s, b = (i + 1) * s;
        double acc = 0.0;
        for (int p = (int)floor(a); p < n && p < b; p++) {
            const double w = fmin(b, p + 1.0) - fmax(a, (double)p);
            if (w > 0) acc += w * src[(size_t)p * sstep];
        }
        dst[(size_t)i * dstep] = (float)(acc / s);
    }
}

int satfeat_ar_resize_area(const uint8_t *src, size_t stride, int w, int h, uint8_t *dst, int dw,
                           int dh)
{
    float *a = malloc(sizeof(float) * (size_t)w * h), *b = malloc(sizeof(float) * (size_t)dw * h);
    float *c = malloc(sizeof(float) * (size_t)dw * dh);
    if (!a || !b || !c) {
        free(a), free(b), free(c);
        return 0;
    }
    for (int y = 0; y < h; y++)
        for (int x = 0; x < w; x++) a[(size_t)y * w + x] = src[(size_t)y * stride + x];
    for (int y = 0; y < h; y++) area_row(a + (size_t)y * w, w, b + (size_t)y * dw, dw, 1, 1);
    for (int x = 0; x < dw; x++) area_row(b + x, h, c + x, dh, (size_t)dw, (size_t)dw);
    for (size_t k = 0; k < (size_t)dw * dh; k++) {
        const float v = floorf(c[k] + 0.5f);
        dst[k] = (uint8_t)(v < 0 ? 0 : v > 255 ? 255 : v);
    }
    free(a), free(b), free(c);
    return 1;
}

/* Sizes of the scales: scale k is round(w step^k) x round(h step^k) while at least min_width
 * wide and 32 high (at most 16 scales). Returns the count. */
static int plan_scales(int w, int h, const satfeat_ar_target_params *p, int sw[16], int sh[16])
{
    int n = 0;
    for (double f = 1.0; n < 16; f *= p->scale_step) {
        const int a = (int)floor(w * f + 0.5), b = (int)floor(h * f + 0.5);
        if (n > 0 && (a < p->min_width || b < 32)) break;
        sw[n] = a, sh[n] = b;
        n++;
    }
    return n;
}

static satfeat_status check_args(satfeat_ctx *ctx, const uint8_t *image, size_t stride, int width,
                                 int height, double width_m, const satfeat_ar_target_params *p)
{
    if (!image || width < 32 || height < 32 || stride < (size_t)width)
        return satfeat_fail(ctx, SATFEAT_ERR_ARG,
                            "ar target: need an image of at least 32x32 with stride >= width "
                            "(got %dx%d)", width, height);
    if (width > SATFEAT_IMAGE_MAX_SIDE || height > SATFEAT_IMAGE_MAX_SIDE ||
        (uint64_t)width * (uint64_t)height > SATFEAT_IMAGE_MAX_PIXELS)
        return satfeat_fail(ctx, SATFEAT_ERR_OVERFLOW, "ar target: %dx%d is too large", width,
                            height);
    if (!(width_m > 0.0) || !isfinite(width_m))
        return satfeat_fail(ctx, SATFEAT_ERR_ARG, "ar target: width %g m must be finite and > 0",
                            width_m);
    if (!(p->scale_step >= 0.3 && p->scale_step <= 0.9) || p->min_width < 32 ||
        p->max_features < 16 || p->detector.descriptor == SATFEAT_DESCRIPTOR_NONE)
        return satfeat_fail(ctx, SATFEAT_ERR_ARG,
                            "ar target: scale_step in [0.3, 0.9], min_width >= 32, max_features "
                            ">= 16 and a descriptor are required");
    return SATFEAT_OK;
}

satfeat_status satfeat_ar_target_new(satfeat_ctx *ctx, const uint8_t *image, size_t stride,
                                     int width, int height, double width_m,
                                     const satfeat_ar_target_params *params,
                                     satfeat_ar_target **out)
{
    if (!ctx || !out) return ctx ? satfeat_fail(ctx, SATFEAT_ERR_ARG, "ar target: NULL out")
                                 : SATFEAT_ERR_ARG;
    *out = NULL;
    const satfeat_ar_target_params p = params ? *params : satfeat_ar_target_params_default();
    satfeat_status st = check_args(ctx, image, stride, width, height, width_m, &p);
    if (st != SATFEAT_OK) return st;
    int sw[16], sh[16];
    const int ns = plan_scales(width, height, &p, sw, sh);
    size_t cap = 0;
    int keep[16];
    for (int k = 0; k < ns; k++) {
        const double m = p.max_features * pow(p.scale_step, k);
        keep[k] = m > 100.0 ? (int)m : (p.max_features < 100 ? p.max_features : 100);
        cap += (size_t)keep[k];
    }
    const int dim = (int)p.detector.descriptor;
    satfeat_ar_target *t = satfeat_ar_target_alloc(cap, dim);
    uint8_t *scaled = malloc((size_t)width * height);
    satfeat_detector_params dp = p.detector;
    dp.max_keypoints = keep[0];
    satfeat_ar_features *feat = NULL;
    if (!t || !scaled) st = satfeat_fail(ctx, SATFEAT_ERR_ALLOC, "ar target: out of memory");
    else st = satfeat_ar_features_new(ctx, &dp, width, height, &feat);
    size_t n = 0;
    for (int k = 0; k < ns && st == SATFEAT_OK; k++) {
        const uint8_t *img = image;
        size_t istride = stride;
        if (k > 0) {
            if (!satfeat_ar_resize_area(image, stride, width, height, scaled, sw[k], sh[k])) {
                st = satfeat_fail(ctx, SATFEAT_ERR_ALLOC, "ar target: out of memory");
                break;
            }
            img = scaled;
            istride = (size_t)sw[k];
        }
        const satfeat_keypoint *kp;
        const float *desc;
        size_t m;
        const satfeat_image_view v = satfeat_image_view_host(img, sw[k], sh[k], istride);
        st = satfeat_ar_features_detect(feat, &v, 0, 0, &kp, &desc, &m);
        if (st != SATFEAT_OK) break;
        if (m > (size_t)keep[k]) m = (size_t)keep[k];
        const double fx = (double)width / sw[k], fy = (double)height / sh[k];
        for (size_t i = 0; i < m; i++) {
            satfeat_keypoint q;
            memset(&q, 0, sizeof q);
            q.x = (kp[i].x + 0.5) * fx - 0.5;
            q.y = (kp[i].y + 0.5) * fy - 0.5;
            q.size = kp[i].size * 0.5 * (fx + fy);
            q.sigma = kp[i].sigma * 0.5 * (fx + fy);
            q.response = kp[i].response;
            q.angle = kp[i].angle;
            q.laplacian = kp[i].laplacian;
            q.octave = k; /* the scale it came from */
            t->kp[n] = q;
            memcpy(t->desc + n * (size_t)dim, desc + i * (size_t)dim, sizeof(float) * (size_t)dim);
            n++;
        }
    }
    satfeat_ar_features_delete(feat);
    free(scaled);
    if (st == SATFEAT_OK && !satfeat_ar_photo_build(image, stride, width, height, &t->photo))
        st = satfeat_fail(ctx, SATFEAT_ERR_ALLOC, "ar target: out of memory");
    if (st == SATFEAT_OK && n < 16)
        st = satfeat_fail(ctx, SATFEAT_ERR_NO_MODEL,
                          "ar target: the reference has %zu keypoints over %d scales, at least "
                          "16 are needed", n, ns);
    if (st != SATFEAT_OK) {
        satfeat_ar_target_delete(t);
        return st;
    }
    t->n = n;
    t->width = width;
    t->height = height;
    t->width_m = width_m;
    t->scales = ns;
    *out = t;
    return SATFEAT_OK;
}
