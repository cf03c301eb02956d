/* batch_testutil.c - see batch_testutil.h. */
#include "batch_testutil.h"

#include <stdlib.h>
#include <string.h>

bt_frames bt_frames_make(size_t n, uint64_t seed)
{
    bt_frames fr = {n, calloc(n, sizeof(uint8_t *)), calloc(n, sizeof(satfeat_image_view))};
    assert_non_null(fr.img);
    assert_non_null(fr.f);
    test_rng rng;
    test_rng_seed(&rng, seed);
    for (size_t i = 0; i < n; i++) {
        const int w = i % 3 == 1 ? BT_W - 40 : BT_W, h = i % 3 == 2 ? BT_H - 28 : BT_H;
        const int pad = i % 4 == 3 ? 9 : 0; /* a stride wider than the width */
        uint8_t *tight = synth_random_blobs(&rng, w, h, 24 + (int)(i % 7));
        uint8_t *img = malloc((size_t)(w + pad) * (size_t)h);
        assert_non_null(tight);
        assert_non_null(img);
        memset(img, 0xA5, (size_t)(w + pad) * (size_t)h);
        for (int y = 0; y < h; y++)
            memcpy(img + (size_t)y * (size_t)(w + pad), tight + (size_t)y * (size_t)w, (size_t)w);
        free(tight);
        fr.img[i] = img;
        fr.f[i] = satfeat_image_view_host(img, w, h, (size_t)(w + pad));
    }
    return fr;
}

void bt_frames_free(bt_frames *fr)
{
    for (size_t i = 0; i < fr->n; i++) free(fr->img[i]);
    free(fr->img);
    free(fr->f);
}

/* A CPU detector with the default parameters, as the batch's reference. */
typedef struct bt_ref {
    satfeat_ctx *ctx;
    satfeat_detector *det;
} bt_ref;

static bt_ref ref_new(void)
{
    bt_ref r = {0};
    const satfeat_detector_params p = satfeat_detector_params_default();
    assert_int_equal(satfeat_ctx_new(&r.ctx, SATFEAT_BACKEND_CPU, -1), SATFEAT_OK);
    assert_int_equal(satfeat_detector_new(r.ctx, &p, BT_W, BT_H, &r.det), SATFEAT_OK);
    return r;
}

static void ref_delete(bt_ref *r)
{
    satfeat_detector_delete(r->det);
    satfeat_ctx_delete(r->ctx);
}

/* Asserts that result `res` (status OK) holds the reference of frame f (its descriptors when
 * the set has any). */
static void assert_result_is_ref(bt_ref *ref, const satfeat_image_view *f,
                                 const satfeat_frame_result *res, int device)
{
    size_t n = 0;
    float *desc = NULL;
    satfeat_keypoint *kp =
        test_detect_copy(ref->det, f->pixels, f->stride, f->width, f->height, NULL, 0, &n, &desc);
    assert_int_equal(res->status, SATFEAT_OK);
    if (n <= 3) print_error("frame %dx%d: %zu keypoints\n", f->width, f->height, n);
    assert_true(n > 3);
    assert_int_equal(satfeat_features_count(res->features), n);
    assert_int_equal(res->device, device);
    int w = 0, h = 0;
    satfeat_features_image_size(res->features, &w, &h);
    assert_int_equal(w, f->width);
    assert_int_equal(h, f->height);
    synth_assert_same(satfeat_features_keypoints(res->features), kp, n);
    if (satfeat_features_descriptor_kind(res->features) != SATFEAT_DESCRIPTOR_NONE)
        assert_memory_equal(satfeat_features_descriptors(res->features), desc,
                            n * 64 * sizeof(float));
    free(kp);
    free(desc);
}

/* Result records for n frames without sets, status and device poisoned. */
static satfeat_frame_result *results_new(size_t n)
{
    satfeat_frame_result *r = calloc(n, sizeof *r);
    assert_non_null(r);
    for (size_t i = 0; i < n; i++) r[i].status = SATFEAT_ERR_CUDA, r[i].device = -7;
    return r;
}

static void results_free(satfeat_frame_result *r, size_t n)
{
    for (size_t i = 0; i < n; i++) satfeat_features_delete(r[i].features);
    free(r);
}

void bt_check_equal(satfeat_ctx *ctx, int lanes, const bt_frames *fr, int device, int lazy)
{
    const satfeat_detector_params p = satfeat_detector_params_default();
    satfeat_detector *det = NULL;
    satfeat_batch *b = NULL;
    assert_int_equal(satfeat_detector_new(ctx, &p, lazy ? 0 : BT_W, lazy ? 0 : BT_H, &det),
                     SATFEAT_OK);
    assert_int_equal(satfeat_batch_new(det, lanes, &b), SATFEAT_OK);
    assert_int_equal(satfeat_batch_lanes(b), lanes ? lanes : SATFEAT_BATCH_DEFAULT_LANES);
    bt_ref ref = ref_new();
    satfeat_frame_result *r = results_new(fr->n);
    const satfeat_keypoint **first = calloc(fr->n, sizeof *first);
    assert_non_null(first);
    for (int round = 0; round < 2; round++) { /* a batch is reused: replayed graphs */
        for (size_t i = 0; i < fr->n; i++) r[i].status = SATFEAT_ERR_CUDA;
        assert_int_equal(satfeat_batch_detect(b, fr->f, fr->n, r), SATFEAT_OK);
        for (size_t i = 0; i < fr->n; i++) {
            assert_result_is_ref(&ref, &fr->f[i], &r[i], device);
            /* the same frames again: each set is refilled in place, its arrays kept */
            if (round == 0) first[i] = satfeat_features_keypoints(r[i].features);
            else assert_ptr_equal(first[i], satfeat_features_keypoints(r[i].features));
        }
    }
    free(first);
    results_free(r, fr->n);
    ref_delete(&ref);
    satfeat_batch_delete(b);
    satfeat_detector_delete(det);
}

void bt_check_frame_errors(satfeat_ctx *ctx, int lanes)
{
    enum { N = 7 };
    const int device = satfeat_ctx_device(ctx);
    bt_frames fr = bt_frames_make(N, 5);
    uint8_t *big = calloc((size_t)(BT_W + 1) * BT_H, 1);
    assert_non_null(big);
    const satfeat_detector_params p = satfeat_detector_params_default();
    satfeat_detector *det = NULL;
    satfeat_batch *b = NULL;
    assert_int_equal(satfeat_detector_new(ctx, &p, BT_W, BT_H, &det), SATFEAT_OK);
    assert_int_equal(satfeat_batch_new(det, lanes, &b), SATFEAT_OK);
    satfeat_frame_result *r = results_new(N);
    assert_int_equal(satfeat_batch_detect(b, fr.f, N, r), SATFEAT_OK); /* every set full */
    fr.f[1] = satfeat_image_view_host(big, BT_W + 1, BT_H, 0); /* over the maximum */
    fr.f[3].memory = SATFEAT_MEMORY_DEVICE; /* host pixels called device memory: refused */
    fr.f[4].pixels = NULL;
    fr.f[5].stride = (size_t)fr.f[5].width - 1;
    assert_int_equal(satfeat_batch_detect(b, fr.f, N, r), SATFEAT_ERR_ARG);
    assert_non_null(strstr(satfeat_ctx_last_error(ctx), "batch: frame 1: "));
    assert_non_null(strstr(satfeat_ctx_last_error(ctx), "exceeds"));
    bt_ref ref = ref_new();
    const satfeat_status want[N] = {SATFEAT_OK,      SATFEAT_ERR_ARG, SATFEAT_OK,
                                    SATFEAT_ERR_UNSUPPORTED, SATFEAT_ERR_ARG, SATFEAT_ERR_ARG,
                                    SATFEAT_OK};
    for (int i = 0; i < N; i++) {
        assert_int_equal(r[i].status, want[i]);
        if (want[i] == SATFEAT_OK) assert_result_is_ref(&ref, &fr.f[i], &r[i], device);
        else assert_int_equal(satfeat_features_count(r[i].features), 0);
    }
    /* the failures left the batch usable: the good frames alone all succeed */
    const satfeat_image_view good[3] = {fr.f[0], fr.f[2], fr.f[6]};
    assert_int_equal(satfeat_batch_detect(b, good, 3, r), SATFEAT_OK);
    for (int i = 0; i < 3; i++) assert_result_is_ref(&ref, &good[i], &r[i], device);
    satfeat_batch_delete(b);
    satfeat_detector_delete(det);
    /* a detector without descriptors gives keypoints only, the same keypoints */
    satfeat_detector_params none = p;
    none.descriptor = SATFEAT_DESCRIPTOR_NONE;
    assert_int_equal(satfeat_detector_new(ctx, &none, BT_W, BT_H, &det), SATFEAT_OK);
    assert_int_equal(satfeat_batch_new(det, lanes, &b), SATFEAT_OK);
    assert_int_equal(satfeat_batch_detect(b, good, 3, r), SATFEAT_OK);
    for (int i = 0; i < 3; i++) {
        assert_int_equal(satfeat_features_descriptor_kind(r[i].features), SATFEAT_DESCRIPTOR_NONE);
        assert_null(satfeat_features_descriptors(r[i].features));
        assert_result_is_ref(&ref, &good[i], &r[i], device);
    }
    satfeat_batch_delete(b);
    satfeat_detector_delete(det);
    ref_delete(&ref);
    results_free(r, N);
    free(big);
    bt_frames_free(&fr);
}
