/* batch_testutil.c - see batch_testutil.h. */
#include "batch_testutil.h"

#include <stdlib.h>
#include <string.h>

bt_frames bt_frames_make(size_t n, uint64_t seed)
{
    bt_frames fr = {n, calloc(n, sizeof(uint8_t *)), calloc(n, sizeof(satfeat_pool_frame))};
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
        fr.f[i] = (satfeat_pool_frame){img, (size_t)(w + pad), w, h};
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
    satfeat_keypoint *kp;
    float *desc;
} bt_ref;

static bt_ref ref_new(void)
{
    bt_ref r = {0};
    const satfeat_detector_params p = satfeat_detector_params_default();
    assert_int_equal(satfeat_ctx_new(&r.ctx, SATFEAT_BACKEND_CPU, -1), SATFEAT_OK);
    assert_int_equal(satfeat_detector_new(r.ctx, &p, BT_W, BT_H, &r.det), SATFEAT_OK);
    r.kp = malloc(BT_CAP * sizeof *r.kp);
    r.desc = malloc(BT_CAP * 64 * sizeof *r.desc);
    assert_non_null(r.kp);
    assert_non_null(r.desc);
    return r;
}

static void ref_delete(bt_ref *r)
{
    satfeat_detector_delete(r->det);
    satfeat_ctx_delete(r->ctx);
    free(r->kp);
    free(r->desc);
}

/* The reference keypoints and descriptors of frame f into r->kp / r->desc; returns the count. */
static size_t ref_detect(bt_ref *r, const satfeat_pool_frame *f)
{
    size_t n = 0;
    assert_int_equal(satfeat_detect_features_u8(r->det, f->image, f->stride, f->width, f->height,
                                                NULL, 0, 0, 0, r->kp, r->desc, BT_CAP, &n),
                     SATFEAT_OK);
    return n;
}

/* Asserts that result `res` (status OK) holds the reference of frame f. */
static void assert_result_is_ref(bt_ref *ref, const satfeat_pool_frame *f,
                                 const satfeat_pool_result *res, int device)
{
    const size_t n = ref_detect(ref, f);
    assert_int_equal(res->status, SATFEAT_OK);
    if (n <= 3) print_error("frame %dx%d: %zu keypoints\n", f->width, f->height, n);
    assert_true(n > 3);
    assert_int_equal(res->count, n);
    assert_int_equal(res->device, device);
    synth_assert_same(res->keypoints, ref->kp, n);
    if (res->descriptors) assert_memory_equal(res->descriptors, ref->desc, n * 64 * sizeof(float));
}

/* Result records for n frames over one keypoint and one descriptor block (descriptors for every
 * frame but each third), status and device poisoned. */
static satfeat_pool_result *results_new(size_t n, satfeat_keypoint **kp, float **desc)
{
    satfeat_pool_result *r = malloc(n * sizeof *r);
    *kp = malloc(n * BT_CAP * sizeof **kp);
    *desc = malloc(n * BT_CAP * 64 * sizeof **desc);
    assert_non_null(r);
    assert_non_null(*kp);
    assert_non_null(*desc);
    for (size_t i = 0; i < n; i++)
        r[i] = (satfeat_pool_result){*kp + i * BT_CAP, i % 3 == 2 ? NULL : *desc + i * BT_CAP * 64,
                                     BT_CAP, 0, SATFEAT_ERR_CUDA, -7};
    return r;
}

void bt_check_equal(satfeat_ctx *ctx, int lanes, const bt_frames *fr, int device)
{
    const satfeat_detector_params p = satfeat_detector_params_default();
    satfeat_detector *det = NULL;
    satfeat_batch *b = NULL;
    assert_int_equal(satfeat_detector_new(ctx, &p, BT_W, BT_H, &det), SATFEAT_OK);
    assert_int_equal(satfeat_batch_new(det, lanes, &b), SATFEAT_OK);
    assert_int_equal(satfeat_batch_lanes(b), lanes ? lanes : SATFEAT_BATCH_DEFAULT_LANES);
    bt_ref ref = ref_new();
    satfeat_keypoint *kp;
    float *desc;
    satfeat_pool_result *r = results_new(fr->n, &kp, &desc);
    for (int round = 0; round < 2; round++) { /* a batch is reused: replayed graphs */
        for (size_t i = 0; i < fr->n; i++) r[i].status = SATFEAT_ERR_CUDA, r[i].count = 0;
        assert_int_equal(satfeat_batch_detect_u8(b, fr->f, fr->n, r), SATFEAT_OK);
        for (size_t i = 0; i < fr->n; i++) assert_result_is_ref(&ref, &fr->f[i], &r[i], device);
    }
    free(r);
    free(kp);
    free(desc);
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
    fr.f[1] = (satfeat_pool_frame){big, BT_W + 1, BT_W + 1, BT_H}; /* over the maximum */
    fr.f[4].image = NULL;
    fr.f[5].stride = (size_t)fr.f[5].width - 1;
    const satfeat_detector_params p = satfeat_detector_params_default();
    satfeat_detector *det = NULL;
    satfeat_batch *b = NULL;
    assert_int_equal(satfeat_detector_new(ctx, &p, BT_W, BT_H, &det), SATFEAT_OK);
    assert_int_equal(satfeat_batch_new(det, lanes, &b), SATFEAT_OK);
    satfeat_keypoint *kp;
    float *desc;
    satfeat_pool_result *r = results_new(N, &kp, &desc);
    r[3].capacity = 2; /* too small: count needed, the first two written */
    assert_int_equal(satfeat_batch_detect_u8(b, fr.f, N, r), SATFEAT_ERR_ARG);
    assert_non_null(strstr(satfeat_ctx_last_error(ctx), "batch: frame 1: "));
    assert_non_null(strstr(satfeat_ctx_last_error(ctx), "exceeds"));
    bt_ref ref = ref_new();
    const satfeat_status want[N] = {SATFEAT_OK,  SATFEAT_ERR_ARG, SATFEAT_OK, SATFEAT_ERR_CAPACITY,
                                    SATFEAT_ERR_ARG, SATFEAT_ERR_ARG, SATFEAT_OK};
    for (int i = 0; i < N; i++) {
        assert_int_equal(r[i].status, want[i]);
        if (want[i] == SATFEAT_OK) assert_result_is_ref(&ref, &fr.f[i], &r[i], device);
    }
    const size_t n3 = ref_detect(&ref, &fr.f[3]);
    assert_true(n3 > 2);
    assert_int_equal(r[3].count, n3);
    synth_assert_same(r[3].keypoints, ref.kp, 2);
    assert_memory_equal(r[3].descriptors, ref.desc, 2 * 64 * sizeof(float));
    /* the failures left the batch usable: the good frames alone all succeed */
    const satfeat_pool_frame good[3] = {fr.f[0], fr.f[2], fr.f[6]};
    assert_int_equal(satfeat_batch_detect_u8(b, good, 3, r), SATFEAT_OK);
    for (int i = 0; i < 3; i++) assert_result_is_ref(&ref, &good[i], &r[i], device);
    satfeat_batch_delete(b);
    satfeat_detector_delete(det);
    /* descriptors asked of a detector without them fail for that frame only */
    satfeat_detector_params none = p;
    none.descriptor = SATFEAT_DESCRIPTOR_NONE;
    assert_int_equal(satfeat_detector_new(ctx, &none, BT_W, BT_H, &det), SATFEAT_OK);
    assert_int_equal(satfeat_batch_new(det, lanes, &b), SATFEAT_OK);
    r[0].descriptors = NULL;
    r[1].descriptors = desc;
    r[2].descriptors = NULL;
    assert_int_equal(satfeat_batch_detect_u8(b, good, 3, r), SATFEAT_ERR_ARG);
    assert_non_null(strstr(satfeat_ctx_last_error(ctx), "batch: frame 1: "));
    assert_int_equal(r[1].status, SATFEAT_ERR_ARG);
    assert_result_is_ref(&ref, &good[0], &r[0], device);
    assert_result_is_ref(&ref, &good[2], &r[2], device);
    satfeat_batch_delete(b);
    satfeat_detector_delete(det);
    ref_delete(&ref);
    free(r);
    free(kp);
    free(desc);
    free(big);
    bt_frames_free(&fr);
}
