/* detect_synth.c - see detect_synth.h. */
#include "detect_synth.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

uint8_t *synth_blobs(int w, int h, double background, const synth_blob *blobs, int n)
{
    uint8_t *img = malloc((size_t)w * (size_t)h);
    assert_non_null(img);
    for (int y = 0; y < h; y++)
        for (int x = 0; x < w; x++) {
            double v = background;
            for (int k = 0; k < n; k++) {
                const double dx = x - blobs[k].x, dy = y - blobs[k].y;
                v += blobs[k].amplitude *
                     exp(-(dx * dx + dy * dy) / (2.0 * blobs[k].sigma * blobs[k].sigma));
            }
            v = floor(v + 0.5);
            img[(size_t)y * (size_t)w + (size_t)x] = (uint8_t)(v < 0 ? 0 : (v > 255 ? 255 : v));
        }
    return img;
}

uint8_t *synth_random_blobs(test_rng *rng, int w, int h, int n)
{
    synth_blob *b = malloc((size_t)n * sizeof *b);
    assert_non_null(b);
    for (int k = 0; k < n; k++) {
        b[k].x = 20 + (w - 40) * (double)test_rng_unit(rng);
        b[k].y = 20 + (h - 40) * (double)test_rng_unit(rng);
        b[k].sigma = 2.5 + 9.5 * (double)test_rng_unit(rng);
        b[k].amplitude = (40 + 60 * (double)test_rng_unit(rng)) * (test_rng_next(rng) & 1 ? 1 : -1);
    }
    uint8_t *img = synth_blobs(w, h, 128, b, n);
    free(b);
    return img;
}

satfeat_keypoint *synth_detect(const satfeat_detector_params *params, int threads,
                               const uint8_t *img, int w, int h, const uint8_t *mask, size_t *n)
{
    satfeat_ctx *ctx = NULL;
    satfeat_detector *det = NULL;
    assert_int_equal(satfeat_ctx_new(&ctx, SATFEAT_BACKEND_CPU, 0), SATFEAT_OK);
    assert_int_equal(satfeat_ctx_set_threads(ctx, threads), SATFEAT_OK);
    assert_int_equal(satfeat_detector_new(ctx, params, w, h, &det), SATFEAT_OK);
    satfeat_keypoint *kp = test_detect_copy(det, img, (size_t)w, w, h, mask, (size_t)w, n, NULL);
    satfeat_detector_delete(det);
    satfeat_ctx_delete(ctx);
    return kp;
}

void synth_assert_same(const satfeat_keypoint *a, const satfeat_keypoint *b, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        const double da[5] = {a[i].x, a[i].y, a[i].size, a[i].sigma, a[i].response};
        const double db[5] = {b[i].x, b[i].y, b[i].size, b[i].sigma, b[i].response};
        const int ia[5] = {a[i].laplacian, a[i].octave, a[i].layer, a[i].sample_x, a[i].sample_y};
        const int ib[5] = {b[i].laplacian, b[i].octave, b[i].layer, b[i].sample_x, b[i].sample_y};
        if (memcmp(da, db, sizeof da) || memcmp(ia, ib, sizeof ia)) {
            print_error("keypoint %zu differs: (%.17g, %.17g) vs (%.17g, %.17g)\n", i, a[i].x,
                        a[i].y, b[i].x, b[i].y);
            fail();
        }
    }
}
