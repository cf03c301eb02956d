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
        fr->f[i] = (satfeat_pool_frame){fr->img[i], (size_t)w, w, h};
    }
}

void free_frames(frames *fr)
{
    for (int i = 0; i < N_FRAMES; i++) free(fr->img[i]);
}

/* What one CPU detector returns for a frame (keypoints and SURF-64 descriptors). */
static size_t reference(const satfeat_pool_frame *f, satfeat_keypoint *kp, float *desc, size_t cap)
{
    satfeat_ctx *ctx = NULL;
    satfeat_detector *det = NULL;
    satfeat_detector_params p = satfeat_detector_params_default();
    size_t n = 0;
    assert_int_equal(satfeat_ctx_new(&ctx, SATFEAT_BACKEND_CPU, -1), SATFEAT_OK);
    assert_int_equal(satfeat_detector_new(ctx, &p, W, H, &det), SATFEAT_OK);
    assert_int_equal(satfeat_detect_features_u8(det, f->image, f->stride, f->width, f->height,
                                                NULL, 0, 0, 0, kp, desc, cap, &n),
                     SATFEAT_OK);
    satfeat_detector_delete(det);
    satfeat_ctx_delete(ctx);
    return n;
}

/* Runs `pool` over the frames and checks every result against the single-detector reference. */
void check_pool(satfeat_pool *pool, int cuda)
{
    enum { CAP = 2000 };
    frames fr;
    make_frames(&fr);
    satfeat_pool_result r[N_FRAMES];
    satfeat_keypoint *kp = malloc(N_FRAMES * CAP * sizeof *kp), *want = malloc(CAP * sizeof *want);
    float *desc = malloc(N_FRAMES * CAP * 64 * sizeof *desc), *want_d = malloc(CAP * 64 * sizeof *want_d);
    assert_non_null(kp);
    assert_non_null(desc);
    assert_non_null(want);
    assert_non_null(want_d);
    for (int round = 0; round < 2; round++) { /* a pool is reused across calls */
        for (int i = 0; i < N_FRAMES; i++)
            r[i] = (satfeat_pool_result){kp + (size_t)i * CAP, desc + (size_t)i * CAP * 64, CAP,
                                         0, SATFEAT_ERR_ARG, -2};
        assert_int_equal(satfeat_pool_detect_u8(pool, fr.f, N_FRAMES, r), SATFEAT_OK);
        assert_string_equal(satfeat_pool_last_error(pool), "");
        for (int i = 0; i < N_FRAMES; i++) {
            size_t n = reference(&fr.f[i], want, want_d, CAP);
            assert_int_equal(r[i].status, SATFEAT_OK);
            assert_true(n > 3);
            assert_int_equal(r[i].count, n);
            synth_assert_same(r[i].keypoints, want, n);
            assert_memory_equal(r[i].descriptors, want_d, n * 64 * sizeof(float));
            if (cuda) assert_true(r[i].device >= 0);
            else assert_int_equal(r[i].device, -1);
        }
    }
    free(kp);
    free(desc);
    free(want);
    free(want_d);
    free_frames(&fr);
}

