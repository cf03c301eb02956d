/* pool_testutil.c - see pool_testutil.h. */
#include "pool_testutil.h"

#include <stdlib.h>
#include <string.h>


/* Frames of different content (random blobs) and sizes (some smaller than the maximum). */
void make_frames(frames *fr)
{
    test_rng rng;
    test_rng_seed(&rng, 77);
    for (int i = 0; i < N_FRAMES; i++) {
        int w = i % 3 == 2 ? W - 24 : W, h = i % 4 == 3 ? H - 16 : H;
        fr->img[i] = synth_random_blobs(&rng, w, h, 12 + i);
        fr->f[i] = satfeat_image_view_host(fr->img[i], w, h, 0);
    }
}

void free_frames(frames *fr)
{
    for (int i = 0; i < N_FRAMES; i++) free(fr->img[i]);
}

/* What one CPU detector returns for a frame (keypoints and SURF-64 descriptors). */
static satfeat_keypoint *reference(const satfeat_image_view *f, size_t *n, float **desc)
{
    satfeat_ctx *ctx = NULL;
    satfeat_detector *det = NULL;
    satfeat_detector_params p = satfeat_detector_params_default();
    assert_int_equal(satfeat_ctx_new(&ctx, SATFEAT_BACKEND_CPU, -1), SATFEAT_OK);
    assert_int_equal(satfeat_detector_new(ctx, &p, W, H, &det), SATFEAT_OK);
    satfeat_keypoint *kp =
        test_detect_copy(det, f->pixels, f->stride, f->width, f->height, NULL, 0, n, desc);
    satfeat_detector_delete(det);
    satfeat_ctx_delete(ctx);
    return kp;
}

/* Runs `pool` over the frames and checks every result against the single-detector reference. */
void check_pool(satfeat_pool *pool, int cuda)
{
    frames fr;
    make_frames(&fr);
    satfeat_frame_result r[N_FRAMES];
    memset(r, 0, sizeof r);
    for (int round = 0; round < 2; round++) { /* a pool is reused across calls */
        for (int i = 0; i < N_FRAMES; i++) r[i].status = SATFEAT_ERR_ARG, r[i].device = -2;
        assert_int_equal(satfeat_pool_detect(pool, fr.f, N_FRAMES, r), SATFEAT_OK);
        assert_string_equal(satfeat_pool_last_error(pool), "");
        for (int i = 0; i < N_FRAMES; i++) {
            size_t n = 0;
            float *want_d = NULL;
            satfeat_keypoint *want = reference(&fr.f[i], &n, &want_d);
            assert_int_equal(r[i].status, SATFEAT_OK);
            assert_true(n > 3);
            assert_int_equal(satfeat_features_count(r[i].features), n);
            synth_assert_same(satfeat_features_keypoints(r[i].features), want, n);
            assert_memory_equal(satfeat_features_descriptors(r[i].features), want_d,
                                n * 64 * sizeof(float));
            if (cuda) assert_true(r[i].device >= 0);
            else assert_int_equal(r[i].device, -1);
            free(want);
            free(want_d);
        }
    }
    for (int i = 0; i < N_FRAMES; i++) satfeat_features_delete(r[i].features);
    free_frames(&fr);
}
