/* test_detect_features.c - the public features calls on a CPU detector: keypoints with angles and
 * descriptors (satfeat_detect_features_u8, the sequence variants), their argument checks, and
 * what a tracker relies on: the descriptors of an image and of the same image shifted, or rotated
 * by 90 degrees, match at the true displacement. */
#include "features_testutil.h"
#include "test_util.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define SCENE_W 640
#define SCENE_H 480

static uint8_t *load_scene(void)
{
    char path[512];
    test_path(path, sizeof path, SATFEAT_TEST_DATA_DIR, "scene.png");
    uint8_t *px = NULL;
    int w = 0, h = 0;
    assert_int_equal(satfeat_image_load_gray8(NULL, path, &px, &w, &h), SATFEAT_OK);
    assert_int_equal(w, SCENE_W);
    assert_int_equal(h, SCENE_H);
    return px;
}

typedef struct features {
    satfeat_keypoint *kp;
    float *d;
    size_t n;
    int dim;
} features;

/* Detects with descriptors (exact buffers: a first call learns the count). */
static features detect_features(satfeat_ctx *ctx, const satfeat_detector_params *p,
                                const uint8_t *img, int w, int h)
{
    satfeat_detector *det = NULL;
    assert_int_equal(satfeat_detector_new(ctx, p, w, h, &det), SATFEAT_OK);
    features f = {NULL, NULL, 0, satfeat_detector_descriptor_dim(det)};
    size_t need = 0;
    satfeat_status st = satfeat_detect_u8(det, img, (size_t)w, w, h, NULL, 0, 0, 0, NULL, 0, &need);
    assert_true(st == SATFEAT_OK || st == SATFEAT_ERR_CAPACITY);
    f.kp = malloc((need + 1) * sizeof *f.kp);
    f.d = malloc((need + 1) * (size_t)f.dim * sizeof *f.d);
    assert_non_null(f.kp);
    assert_non_null(f.d);
    assert_int_equal(satfeat_detect_features_u8(det, img, (size_t)w, w, h, NULL, 0, 0, 0, f.kp, f.d, need,
                                                &f.n),
                     SATFEAT_OK);
    assert_int_equal(f.n, need);
    satfeat_detector_delete(det);
    return f;
}

static void features_free(features *f)
{
    free(f->kp);
    free(f->d);
}

static satfeat_ctx *cpu_ctx(void)
{
    satfeat_ctx *ctx = NULL;
    assert_int_equal(satfeat_ctx_new(&ctx, SATFEAT_BACKEND_CPU, 0), SATFEAT_OK);
    assert_int_equal(satfeat_ctx_set_threads(ctx, 2), SATFEAT_OK);
    return ctx;
}

/* Defaults, the keypoint-only call agrees with the features call, unit descriptors, angles in
 * range, upright and SURF-128 variants, capacity below the count. */
static void test_features_call(void **state)
{
    (void)state;
    uint8_t *img = load_scene();
    satfeat_ctx *ctx = cpu_ctx();
    satfeat_detector_params p = satfeat_detector_params_default();
    assert_int_equal(p.descriptor, SATFEAT_DESCRIPTOR_SURF64);
    assert_int_equal(p.upright, 0);
    features f = detect_features(ctx, &p, img, SCENE_W, SCENE_H);
    assert_int_equal(f.dim, 64);
    assert_true(f.n > 100);
    size_t nonzero_angles = 0;
    for (size_t i = 0; i < f.n; i++) {
        assert_true(f.kp[i].angle >= 0.0 && f.kp[i].angle < 6.283185307179586);
        nonzero_angles += f.kp[i].angle != 0.0;
        double norm2 = 0.0;
        for (int j = 0; j < f.dim; j++) norm2 += (double)f.d[i * 64 + (size_t)j] * f.d[i * 64 + (size_t)j];
        assert_true(fabs(norm2 - 1.0) < 1e-5);
    }
    assert_true(nonzero_angles > f.n / 2);

    /* the keypoint-only call returns the same keypoints, angles included */
    satfeat_detector *det = NULL;
    assert_int_equal(satfeat_detector_new(ctx, &p, SCENE_W, SCENE_H, &det), SATFEAT_OK);
    satfeat_keypoint *kp = malloc(f.n * sizeof *kp);
    size_t n = 0;
    assert_int_equal(satfeat_detect_u8(det, img, SCENE_W, SCENE_W, SCENE_H, NULL, 0, 0, 0, kp, f.n, &n),
                     SATFEAT_OK);
    assert_int_equal(n, f.n);
    assert_memory_equal(kp, f.kp, n * sizeof *kp);

    /* capacity below the count: the first `cap` keypoints and descriptors, nothing past them */
    const size_t cap = 7;
    float *d = malloc((cap + 1) * 64 * sizeof *d);
    for (size_t i = 0; i < (cap + 1) * 64; i++) d[i] = -7.0f;
    assert_int_equal(satfeat_detect_features_u8(det, img, SCENE_W, SCENE_W, SCENE_H, NULL, 0, 0, 0, kp, d,
                                                cap, &n),
                     SATFEAT_ERR_CAPACITY);
    assert_int_equal(n, f.n);
    assert_memory_equal(d, f.d, cap * 64 * sizeof *d);
    for (size_t i = cap * 64; i < (cap + 1) * 64; i++) assert_true(d[i] == -7.0f);
    free(d);
    free(kp);
    satfeat_detector_delete(det);

    /* upright: every angle 0, descriptors still unit length */
    satfeat_detector_params u = p;
    u.upright = 1;
    features fu = detect_features(ctx, &u, img, SCENE_W, SCENE_H);
    assert_int_equal(fu.n, f.n);
    for (size_t i = 0; i < fu.n; i++) assert_true(fu.kp[i].angle == 0.0);
    assert_true(memcmp(fu.d, f.d, f.n * 64 * sizeof(float)) != 0);

    /* SURF-128 */
    satfeat_detector_params e = p;
    e.descriptor = SATFEAT_DESCRIPTOR_SURF128;
    features fe = detect_features(ctx, &e, img, SCENE_W, SCENE_H);
    assert_int_equal(fe.dim, 128);
    assert_int_equal(fe.n, f.n);
    assert_memory_equal(fe.kp, f.kp, f.n * sizeof *f.kp);
    features_free(&fe);
    features_free(&fu);
    features_free(&f);
    satfeat_ctx_delete(ctx);
    satfeat_free(img);
}

/* Bad arguments give statuses and messages; the detector stays usable. */
static void test_features_arguments(void **state)
{
    (void)state;
    uint8_t *img = load_scene();
    satfeat_ctx *ctx = cpu_ctx();
    satfeat_detector_params p = satfeat_detector_params_default();
    satfeat_detector *det = NULL;
    p.descriptor = (satfeat_descriptor_kind)32;
    assert_int_equal(satfeat_detector_new(ctx, &p, SCENE_W, SCENE_H, &det), SATFEAT_ERR_ARG);
    assert_non_null(strstr(satfeat_ctx_last_error(ctx), "descriptor 32"));
    p = satfeat_detector_params_default();
    p.upright = 2;
    assert_int_equal(satfeat_detector_new(ctx, &p, SCENE_W, SCENE_H, &det), SATFEAT_ERR_ARG);
    assert_non_null(strstr(satfeat_ctx_last_error(ctx), "upright"));

    /* descriptors asked of a detector that computes none */
    p = satfeat_detector_params_default();
    p.descriptor = SATFEAT_DESCRIPTOR_NONE;
    assert_int_equal(satfeat_detector_new(ctx, &p, SCENE_W, SCENE_H, &det), SATFEAT_OK);
    assert_int_equal(satfeat_detector_descriptor_dim(det), 0);
    satfeat_keypoint kp[4];
    float d[4 * 64];
    size_t n = 0;
    assert_int_equal(satfeat_detect_features_u8(det, img, SCENE_W, SCENE_W, SCENE_H, NULL, 0, 0, 0, kp, d,
                                                4, &n),
                     SATFEAT_ERR_ARG);
    assert_non_null(strstr(satfeat_ctx_last_error(ctx), "descriptor is NONE"));
    /* keypoints alone still work on it */
    satfeat_status st = satfeat_detect_features_u8(det, img, SCENE_W, SCENE_W, SCENE_H, NULL, 0, 0, 0,
                                                   kp, NULL, 4, &n);
    assert_true(st == SATFEAT_ERR_CAPACITY && n > 4);
    satfeat_detector_delete(det);

    /* NULL image / count, a frame over the maximum, a device call on a CPU detector */
    p = satfeat_detector_params_default();
    assert_int_equal(satfeat_detector_new(ctx, &p, 64, 64, &det), SATFEAT_OK);
    assert_int_equal(satfeat_detect_features_u8(det, NULL, 64, 64, 64, NULL, 0, 0, 0, kp, d, 4, &n),
                     SATFEAT_ERR_ARG);
    assert_int_equal(satfeat_detect_features_u8(det, img, SCENE_W, 64, 64, NULL, 0, 0, 0, kp, d, 4, NULL),
                     SATFEAT_ERR_ARG);
    assert_int_equal(satfeat_detect_features_u8(det, img, SCENE_W, 65, 64, NULL, 0, 0, 0, kp, d, 4, &n),
                     SATFEAT_ERR_ARG);
    assert_int_equal(satfeat_detect_features_u8_device(det, img, SCENE_W, 64, 64, NULL, 0, 0, 0, kp, d, 4,
                                                       &n, NULL),
                     SATFEAT_ERR_UNSUPPORTED);
    assert_int_equal(satfeat_detect_features_u8(NULL, img, 64, 64, 64, NULL, 0, 0, 0, kp, d, 4, &n),
                     SATFEAT_ERR_ARG);
    assert_int_equal(satfeat_detector_descriptor_dim(NULL), 0);
    /* still usable */
    st = satfeat_detect_features_u8(det, img, SCENE_W, 64, 64, NULL, 0, 0, 0, kp, d, 4, &n);
    assert_true(st == SATFEAT_OK || st == SATFEAT_ERR_CAPACITY);
    satfeat_detector_delete(det);
    satfeat_ctx_delete(ctx);
    satfeat_free(img);
}

/* A two-slot sequence on a CPU detector with the default parameters, the scene, its
 * single-frame features and output buffers for one frame. */
typedef struct seq_case {
    uint8_t *img;
    satfeat_ctx *ctx;
    features f;
    satfeat_detector *det;
    satfeat_sequence *seq;
    satfeat_keypoint *kp;
    float *d;
} seq_case;

static seq_case seq_case_new(void)
{
    seq_case c;
    c.img = load_scene();
    c.ctx = cpu_ctx();
    const satfeat_detector_params p = satfeat_detector_params_default();
    c.f = detect_features(c.ctx, &p, c.img, SCENE_W, SCENE_H);
    c.det = NULL;
    c.seq = NULL;
    assert_int_equal(satfeat_detector_new(c.ctx, &p, SCENE_W, SCENE_H, &c.det), SATFEAT_OK);
    assert_int_equal(satfeat_sequence_new(c.det, 2, &c.seq), SATFEAT_OK);
    c.kp = malloc(c.f.n * sizeof *c.kp);
    c.d = malloc(c.f.n * 64 * sizeof *c.d);
    assert_true(c.kp && c.d);
    return c;
}

static void seq_case_delete(seq_case *c)
{
    free(c->kp);
    free(c->d);
    satfeat_sequence_delete(c->seq);
    satfeat_detector_delete(c->det);
    features_free(&c->f);
    satfeat_ctx_delete(c->ctx);
    satfeat_free(c->img);
}

/* A frame pushed by satfeat_sequence_push is not described: asking its descriptors fails and
 * leaves it pending, and it pops with the single-frame call's keypoints. */
static void test_sequence_keypoints_only(void **state)
{
    (void)state;
    seq_case c = seq_case_new();
    const features *f = &c.f;
    size_t n = 0;
    int popped = 1;
    assert_int_equal(satfeat_sequence_push(c.seq, c.img, SCENE_W, SCENE_W, SCENE_H, c.kp, f->n,
                                           &n, &popped),
                     SATFEAT_OK);
    assert_int_equal(popped, 0);
    assert_int_equal(satfeat_sequence_pop_features(c.seq, c.kp, c.d, f->n, &n), SATFEAT_ERR_ARG);
    assert_non_null(strstr(satfeat_ctx_last_error(c.ctx), "pushed without them"));
    assert_int_equal(satfeat_sequence_pending(c.seq), 1);
    /* a described frame behind it (two slots: nothing has to pop) */
    assert_int_equal(satfeat_sequence_push_features(c.seq, c.img, SCENE_W, SCENE_W, SCENE_H, c.kp,
                                                    NULL, f->n, &n, &popped),
                     SATFEAT_OK);
    assert_int_equal(popped, 0);
    assert_int_equal(satfeat_sequence_pop(c.seq, c.kp, f->n, &n), SATFEAT_OK);
    assert_int_equal(n, f->n);
    assert_memory_equal(c.kp, f->kp, n * sizeof *c.kp);
    assert_int_equal(satfeat_sequence_pop_features(c.seq, c.kp, c.d, f->n, &n), SATFEAT_OK);
    assert_int_equal(n, f->n);
    assert_memory_equal(c.kp, f->kp, n * sizeof *c.kp);
    assert_memory_equal(c.d, f->d, n * 64 * sizeof *c.d);
    seq_case_delete(&c);
}

/* A sequence with descriptors returns exactly what the single-frame call returns. */
static void test_sequence_features(void **state)
{
    (void)state;
    seq_case c = seq_case_new();
    const features *f = &c.f;
    int frames = 0;
    for (int k = 0; k < 3; k++) {
        size_t n = 0;
        int popped = 0;
        assert_int_equal(satfeat_sequence_push_features(c.seq, c.img, SCENE_W, SCENE_W, SCENE_H,
                                                        c.kp, c.d, f->n, &n, &popped),
                         SATFEAT_OK);
        if (popped) {
            assert_int_equal(n, f->n);
            assert_memory_equal(c.kp, f->kp, n * sizeof *c.kp);
            assert_memory_equal(c.d, f->d, n * 64 * sizeof *c.d);
            frames++;
        }
    }
    while (satfeat_sequence_pending(c.seq) > 0) {
        size_t n = 0;
        assert_int_equal(satfeat_sequence_pop_features(c.seq, c.kp, c.d, f->n, &n), SATFEAT_OK);
        assert_int_equal(n, f->n);
        assert_memory_equal(c.d, f->d, n * 64 * sizeof *c.d);
        frames++;
    }
    assert_int_equal(frames, 3);
    seq_case_delete(&c);
}

/* satfeat_sequence_new_lanes checks its arguments with a message (nothing is created) and, on a
 * CPU detector, ignores the lanes: the frames come back as from satfeat_sequence_new. */
static void test_sequence_lanes_arguments(void **state)
{
    (void)state;
    seq_case c = seq_case_new();
    satfeat_sequence *q = (satfeat_sequence *)&c; /* must be cleared by a refusal */
    assert_int_equal(satfeat_sequence_new_lanes(NULL, 2, 1, &q), SATFEAT_ERR_ARG);
    assert_int_equal(satfeat_sequence_new_lanes(c.det, 2, 1, NULL), SATFEAT_ERR_ARG);
    assert_int_equal(satfeat_sequence_new_lanes(c.det, 2, 0, &q), SATFEAT_ERR_ARG);
    assert_null(q);
    assert_non_null(strstr(satfeat_ctx_last_error(c.ctx), "lanes 0 not in 1..2"));
    assert_int_equal(satfeat_sequence_new_lanes(c.det, 2, 3, &q), SATFEAT_ERR_ARG);
    assert_non_null(strstr(satfeat_ctx_last_error(c.ctx), "lanes 3 not in 1..2"));
    assert_int_equal(satfeat_sequence_new_lanes(c.det, SATFEAT_SEQUENCE_MAX_SLOTS + 1, 1, &q),
                     SATFEAT_ERR_ARG);
    assert_non_null(strstr(satfeat_ctx_last_error(c.ctx), "slots 65 not in 1..64"));
    assert_null(q);
    assert_int_equal(satfeat_sequence_new_lanes(c.det, 3, 3, &q), SATFEAT_OK);
    const features *f = &c.f;
    for (int k = 0; k < 4; k++) {
        size_t n = 0;
        int popped = 0;
        assert_int_equal(satfeat_sequence_push_features(q, c.img, SCENE_W, SCENE_W, SCENE_H, c.kp,
                                                        c.d, f->n, &n, &popped),
                         SATFEAT_OK);
        assert_int_equal(popped, k == 3);
        if (popped) assert_memory_equal(c.kp, f->kp, f->n * sizeof *c.kp);
    }
    assert_int_equal(satfeat_sequence_pending(q), 3);
    satfeat_sequence_delete(q);
    seq_case_delete(&c);
}

/* Matches of a against b (default matcher); returns the fraction of matches whose image-b
 * keypoint lies within 1.5 px of map(image-a keypoint), and the match count in *count. */
static double matched_fraction(satfeat_ctx *ctx, const features *a, const features *b,
                               void (*map)(double, double, double *, double *), size_t *count)
{
    satfeat_features *fa = test_features_of(a->kp, a->d, a->n, a->dim, 1, 1);
    satfeat_features *fb = test_features_of(b->kp, b->d, b->n, b->dim, 1, 1);
    satfeat_matches *list = NULL;
    assert_int_equal(satfeat_match(ctx, fa, fb, NULL, &list), SATFEAT_OK);
    const satfeat_match_pair *m = satfeat_matches_data(list);
    *count = satfeat_matches_count(list);
    size_t good = 0;
    for (size_t k = 0; k < *count; k++) {
        double x, y;
        map(a->kp[m[k].query].x, a->kp[m[k].query].y, &x, &y);
        good += hypot(b->kp[m[k].train].x - x, b->kp[m[k].train].y - y) <= 1.5;
    }
    satfeat_matches_delete(list);
    satfeat_features_delete(fa);
    satfeat_features_delete(fb);
    return *count ? (double)good / (double)*count : 0.0;
}

static void map_shift(double x, double y, double *ox, double *oy)
{
    *ox = x + 7.0;
    *oy = y + 4.0;
}

static void map_rot90(double x, double y, double *ox, double *oy)
{
    *ox = (SCENE_H - 1) - y; /* rotated image: width SCENE_H, height SCENE_W */
    *oy = x;
}

/* The scene against itself shifted by (7, 4) and rotated by 90 degrees: nearly every match lands
 * on the true displacement (upright descriptors fail the rotation, so the check can fail). */
static void test_matching_recovers_motion(void **state)
{
    (void)state;
    uint8_t *img = load_scene();
    uint8_t *shifted = calloc((size_t)SCENE_W * SCENE_H, 1);
    uint8_t *rot = malloc((size_t)SCENE_W * SCENE_H);
    for (int y = 0; y < SCENE_H; y++)
        for (int x = 0; x < SCENE_W; x++) {
            if (x >= 7 && y >= 4) shifted[y * SCENE_W + x] = img[(y - 4) * SCENE_W + x - 7];
            rot[x * SCENE_H + (SCENE_H - 1 - y)] = img[y * SCENE_W + x]; /* (x, y) -> (H-1-y, x) */
        }
    satfeat_ctx *ctx = cpu_ctx();
    for (int upright = 0; upright <= 1; upright++) {
        satfeat_detector_params p = satfeat_detector_params_default();
        p.upright = upright;
        p.max_keypoints = 500;
        features a = detect_features(ctx, &p, img, SCENE_W, SCENE_H);
        features s = detect_features(ctx, &p, shifted, SCENE_W, SCENE_H);
        features r = detect_features(ctx, &p, rot, SCENE_H, SCENE_W);
        size_t ns = 0, nr = 0;
        const double fs = matched_fraction(ctx, &a, &s, map_shift, &ns);
        const double fr = matched_fraction(ctx, &a, &r, map_rot90, &nr);
        printf("%s: shift (7, 4): %zu matches, %.1f%% at the shift; rotation 90: %zu matches, "
               "%.1f%% at the rotation\n", upright ? "upright" : "oriented", ns, 100 * fs, nr,
               100 * fr);
        assert_true(ns >= 100 && fs >= 0.95);
        if (!upright) assert_true(nr >= 100 && fr >= 0.90);
        else assert_true(fr < 0.5 || nr < 50);
        features_free(&a);
        features_free(&s);
        features_free(&r);
    }
    satfeat_ctx_delete(ctx);
    free(rot);
    free(shifted);
    satfeat_free(img);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_features_call),
        cmocka_unit_test(test_features_arguments),
        cmocka_unit_test(test_sequence_features),
        cmocka_unit_test(test_sequence_keypoints_only),
        cmocka_unit_test(test_sequence_lanes_arguments),
        cmocka_unit_test(test_matching_recovers_motion),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
