/* fuzz_detect.c - libFuzzer harness of detect + describe on the CPU backend: the first 12 bytes
 * choose the parameters, the frame size, the threads and a mask; the rest are the pixels
 * (repeated to fill the frame). Every result is checked: keypoints inside the image with sane
 * fields, in the documented total order, the counts consistent between a capacity query and a
 * full call, the caps (max_keypoints, per cell, mask) respected, descriptors of unit length (or
 * all zero), and the same call twice gives the same bytes. */
#include "satfeat.h"
#include "detect/keypoint_order.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Frames are at most FUZZ_SMALL_SIDE on a side unless a header bit asks for up to FUZZ_MAX_SIDE:
 * the cost of an input grows with its area, and small frames reach every code path but the
 * large filters of octaves 2 and 3, which the large ones keep covered (>= 300 inputs a second
 * on the CI machine instead of about 30 with every frame up to 96 x 96). */
#define FUZZ_SMALL_SIDE 40
#define FUZZ_MAX_SIDE 96
#define FUZZ_HEADER 12

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void fuzz_fail(const char *what, size_t k)
{
    fprintf(stderr, "fuzz invariant violated: %s (keypoint %zu)\n", what, k);
    abort();
}

/* Parameters from the header bytes; always within the documented ranges. */
static satfeat_detector_params params_from(const uint8_t *b)
{
    satfeat_detector_params p = satfeat_detector_params_default();
    p.octaves = 1 + b[0] % 4;
    p.layers = 3 + b[1] % 4;
    p.init_step = 1 + b[2] % 2;
    p.threshold = (b[3] / 255.0) * (b[3] / 255.0) * 0.004;
    p.max_keypoints = b[4] % 4 == 0 ? 0 : b[4] % 40;
    p.grid = b[5] % 5;
    p.per_cell = p.grid ? 1 + b[6] % 4 : 0;
    p.upright = b[7] & 1;
    p.suppress_duplicates = (b[7] >> 1) & 1;
    p.unique_scales = (b[7] >> 2) & 1;
    static const satfeat_descriptor_kind kinds[3] = {SATFEAT_DESCRIPTOR_NONE,
                                                     SATFEAT_DESCRIPTOR_SURF64,
                                                     SATFEAT_DESCRIPTOR_SURF128};
    p.descriptor = kinds[((b[7] >> 3) & 3) % 3];
    p.max_offset = (b[8] + 1) / 256.0;
    return p;
}

/* Checks one keypoint's fields against the frame and the parameters. */
static void check_keypoint(const satfeat_keypoint *kp, size_t k, int w, int h,
                           const satfeat_detector_params *p)
{
    if (!isfinite(kp->x) || !isfinite(kp->y) || !isfinite(kp->size) || !isfinite(kp->response))
        fuzz_fail("non-finite field", k);
    if (kp->x < 0 || kp->x > w - 1 || kp->y < 0 || kp->y > h - 1)
        fuzz_fail("keypoint outside the image", k);
    if (!(kp->size > 0) || !(kp->sigma > 0) || kp->response < p->threshold)
        fuzz_fail("size, sigma or response out of range", k);
    if (kp->octave < 0 || kp->octave >= p->octaves || kp->layer < 1 || kp->layer > p->layers - 2)
        fuzz_fail("octave or layer out of range", k);
    if (kp->laplacian != 1 && kp->laplacian != -1) fuzz_fail("laplacian not +-1", k);
    if (!(kp->angle >= 0 && kp->angle < 6.283185307179586) || (p->upright && kp->angle != 0))
        fuzz_fail("angle out of range", k);
    if (kp->reserved[0] != 0 || kp->reserved[1] != 0) fuzz_fail("reserved not zero", k);
}

/* Checks the whole list: order, caps, mask, descriptors. */
static void check_list(const satfeat_keypoint *kp, const float *desc, size_t n, int w, int h,
                       const satfeat_detector_params *p, const uint8_t *mask)
{
    if (p->max_keypoints > 0 && n > (size_t)p->max_keypoints) fuzz_fail("max_keypoints", n);
    int cells[16] = {0};
    for (size_t k = 0; k < n; k++) {
        check_keypoint(&kp[k], k, w, h, p);
        if (k > 0 && satfeat_fh_order(&kp[k - 1], &kp[k]) >= 0) fuzz_fail("not sorted", k);
        if (mask && !mask[(size_t)satfeat_fh_round_clamp(kp[k].y, h) * (size_t)w +
                          (size_t)satfeat_fh_round_clamp(kp[k].x, w)])
            fuzz_fail("keypoint outside the mask", k);
        if (p->grid > 0) {
            int c = satfeat_fh_cell_of(kp[k].y, p->grid, h) * p->grid +
                    satfeat_fh_cell_of(kp[k].x, p->grid, w);
            if (++cells[c] > p->per_cell) fuzz_fail("per-cell cap exceeded", k);
        }
        if (desc) {
            const int dim = (int)p->descriptor;
            double norm = 0;
            for (int i = 0; i < dim; i++) {
                const float v = desc[k * (size_t)dim + (size_t)i];
                if (!isfinite(v)) fuzz_fail("non-finite descriptor", k);
                norm += (double)v * v;
            }
            if (norm != 0 && fabs(norm - 1.0) > 1e-4) fuzz_fail("descriptor not unit length", k);
        }
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < FUZZ_HEADER) return 0;
    const satfeat_detector_params p = params_from(data);
    const int side = (data[11] >> 2) & 1 ? FUZZ_MAX_SIDE : FUZZ_SMALL_SIDE;
    const int w = 1 + data[9] % side, h = 1 + data[10] % side;
    const int threads = 1 + (data[11] & 1), use_mask = (data[11] >> 1) & 1;
    const uint8_t *pix = data + FUZZ_HEADER;
    const size_t npix = size - FUZZ_HEADER;
    uint8_t *img = malloc((size_t)w * (size_t)h), *mask = NULL;
    if (!img) return 0;
    for (size_t i = 0; i < (size_t)w * (size_t)h; i++) img[i] = npix ? pix[i % npix] : 0;
    if (use_mask) {
        mask = malloc((size_t)w * (size_t)h);
        if (!mask) abort();
        for (int y = 0; y < h; y++)
            for (int x = 0; x < w; x++) mask[(size_t)y * (size_t)w + (size_t)x] = ((x ^ y) & 8) != 0;
    }
    satfeat_ctx *ctx = NULL;
    satfeat_detector *det = NULL;
    if (satfeat_ctx_new(&ctx, SATFEAT_BACKEND_CPU, 0) != SATFEAT_OK) abort();
    satfeat_ctx_set_threads(ctx, threads);
    if (satfeat_detector_new(ctx, &p, w, h, &det) != SATFEAT_OK) fuzz_fail("detector_new", 0);
    satfeat_image_view view = satfeat_image_view_host(img, w, h, 0);
    view.mask = mask;
    view.mask_stride = mask ? (size_t)w : 0;
    satfeat_features *f = NULL, *f2 = NULL;
    satfeat_status st = satfeat_detect(det, &view, &f);
    if (st != SATFEAT_OK) fuzz_fail("detect", 0);
    const int dim = satfeat_detector_descriptor_dim(det);
    const size_t n = satfeat_features_count(f);
    const satfeat_keypoint *kp = satfeat_features_keypoints(f);
    const float *desc = satfeat_features_descriptors(f);
    if ((int)satfeat_features_descriptor_kind(f) != dim || (n && dim && !desc))
        fuzz_fail("descriptor kind differs from the detector's", n);
    check_list(kp, desc, n, w, h, &p, mask);
    st = satfeat_detect(det, &view, &f2);
    if (st != SATFEAT_OK || satfeat_features_count(f2) != n ||
        (n && memcmp(kp, satfeat_features_keypoints(f2), n * sizeof *kp) != 0) ||
        (n && dim &&
         memcmp(desc, satfeat_features_descriptors(f2), n * (size_t)dim * sizeof *desc) != 0))
        fuzz_fail("a second identical call differs", satfeat_features_count(f2));
    /* refilled in place: the same set again, its arrays kept */
    st = satfeat_detect(det, &view, &f);
    if (st != SATFEAT_OK || satfeat_features_count(f) != n ||
        (n && satfeat_features_keypoints(f) != kp))
        fuzz_fail("a refilled set moved its arrays", satfeat_features_count(f));
    satfeat_features_delete(f);
    satfeat_features_delete(f2);
    satfeat_detector_delete(det);
    satfeat_ctx_delete(ctx);
    free(img);
    free(mask);
    return 0;
}
