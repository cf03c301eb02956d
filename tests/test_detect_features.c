/* test_detect_features.c - the public features calls on a CPU detector: keypoints with angles and
 * descriptors (satfeat_detect, sequences), their argument checks, and
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
    return test_load_gray(SATFEAT_TEST_DATA_DIR, "scene.png", SCENE_W, SCENE_H);
}

typedef struct features {
    satfeat_keypoint *kp;
    float *d;
    size_t n;
    int dim;
} features;

/* Detects with the detector's descriptors into copies of the set's arrays. */
static features detect_features(satfeat_ctx *ctx, const satfeat_detector_params *p,
                                const uint8_t *img, int w, int h)
{
    satfeat_detector *det = NULL;
    assert_int_equal(satfeat_detector_new(ctx, p, w, h, &det), SATFEAT_OK);
    features f = {NULL, NULL, 0, satfeat_detector_descriptor_dim(det)};
    f.kp = test_detect_copy(det, img, (size_t)w, w, h, NULL, 0, &f.n, &f.d);
    satfeat_detector_delete(det);
    return f;
}

/* Asserts that `set` holds the keypoints and (when it has any) descriptors of `f`. */
static void assert_set_is(const satfeat_features *set, const features *f)
{
    assert_int_equal(satfeat_features_count(set), f->n);
    assert_memory_equal(satfeat_features_keypoints(set), f->kp, f->n * sizeof *f->kp);
    if (satfeat_features_descriptor_kind(set) != SATFEAT_DESCRIPTOR_NONE)
        assert_memory_equal(satfeat_features_descriptors(set), f->d,
                            f->n * (size_t)f->dim * sizeof *f->d);
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

    /* a detector without descriptors returns the same keypoints, angles included */
    satfeat_detector_params kp_only = p;
    kp_only.descriptor = SATFEAT_DESCRIPTOR_NONE;
    features fk = detect_features(ctx, &kp_only, img, SCENE_W, SCENE_H);
    assert_int_equal(fk.n, f.n);
    assert_null(fk.d);
    assert_memory_equal(fk.kp, f.kp, f.n * sizeof *f.kp);
    features_free(&fk);

    /* one set refilled frame after frame holds each frame's exact features */
    satfeat_detector *det = NULL;
    assert_int_equal(satfeat_detector_new(ctx, &p, SCENE_W, SCENE_H, &det), SATFEAT_OK);
    satfeat_features *set = NULL;
    const satfeat_image_view whole = satfeat_image_view_host(img, SCENE_W, SCENE_H, 0);
    const satfeat_image_view part = satfeat_image_view_host(img, 200, 150, SCENE_W);
    for (int k = 0; k < 3; k++) {
        assert_int_equal(satfeat_detect(det, &whole, &set), SATFEAT_OK);
        assert_int_equal(satfeat_features_descriptor_kind(set), SATFEAT_DESCRIPTOR_SURF64);
        assert_set_is(set, &f);
        assert_int_equal(satfeat_detect(det, &part, &set), SATFEAT_OK);
        assert_true(satfeat_features_count(set) < f.n);
    }
    satfeat_features_delete(set);
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

    /* a detector that computes no descriptors gives keypoint sets */
    p = satfeat_detector_params_default();
    p.descriptor = SATFEAT_DESCRIPTOR_NONE;
    assert_int_equal(satfeat_detector_new(ctx, &p, SCENE_W, SCENE_H, &det), SATFEAT_OK);
    assert_int_equal(satfeat_detector_descriptor_dim(det), 0);
    satfeat_features *set = NULL;
    satfeat_image_view v = satfeat_image_view_host(img, SCENE_W, SCENE_H, 0);
    assert_int_equal(satfeat_detect(det, &v, &set), SATFEAT_OK);
    assert_true(satfeat_features_count(set) > 4);
    assert_int_equal(satfeat_features_descriptor_kind(set), SATFEAT_DESCRIPTOR_NONE);
    assert_null(satfeat_features_descriptors(set));
    satfeat_detector_delete(det);

    /* NULL pixels or set, a frame over the maximum, a device view on a CPU detector */
    p = satfeat_detector_params_default();
    assert_int_equal(satfeat_detector_new(ctx, &p, 64, 64, &det), SATFEAT_OK);
    v = satfeat_image_view_host(NULL, 64, 64, SCENE_W);
    assert_int_equal(satfeat_detect(det, &v, &set), SATFEAT_ERR_ARG);
    assert_int_equal(satfeat_features_count(set), 0); /* a failed call leaves the set empty */
    v = satfeat_image_view_host(img, 64, 64, SCENE_W);
    assert_int_equal(satfeat_detect(det, &v, NULL), SATFEAT_ERR_ARG);
    v = satfeat_image_view_host(img, 65, 64, SCENE_W);
    assert_int_equal(satfeat_detect(det, &v, &set), SATFEAT_ERR_ARG);
    v = satfeat_image_view_device(img, 64, 64, SCENE_W, NULL);
    assert_int_equal(satfeat_detect(det, &v, &set), SATFEAT_ERR_UNSUPPORTED);
    v = satfeat_image_view_host(img, 64, 64, SCENE_W);
    assert_int_equal(satfeat_detect(NULL, &v, &set), SATFEAT_ERR_ARG);
    assert_int_equal(satfeat_detector_descriptor_dim(NULL), 0);
    /* still usable */
    assert_int_equal(satfeat_detect(det, &v, &set), SATFEAT_OK);
    assert_int_equal(satfeat_features_descriptor_kind(set), SATFEAT_DESCRIPTOR_SURF64);
    satfeat_features_delete(set);
    satfeat_detector_delete(det);
    satfeat_ctx_delete(ctx);
    satfeat_free(img);
}

/* A two-slot sequence on a CPU detector with the default parameters, the scene, its
 * single-frame features and a set for the popped frames. */
typedef struct seq_case {
    uint8_t *img;
    satfeat_image_view view;
    satfeat_ctx *ctx;
    features f;
    satfeat_detector *det;
    satfeat_sequence *seq;
    satfeat_features *out;
} seq_case;

static seq_case seq_case_new(const satfeat_detector_params *p)
{
    seq_case c;
    c.img = load_scene();
    c.view = satfeat_image_view_host(c.img, SCENE_W, SCENE_H, 0);
    c.ctx = cpu_ctx();
    c.f = detect_features(c.ctx, p, c.img, SCENE_W, SCENE_H);
    c.det = NULL;
    c.seq = NULL;
    c.out = NULL;
    assert_int_equal(satfeat_detector_new(c.ctx, p, SCENE_W, SCENE_H, &c.det), SATFEAT_OK);
    assert_int_equal(satfeat_sequence_new(c.det, 2, &c.seq), SATFEAT_OK);
    return c;
}

static void seq_case_delete(seq_case *c)
{
    satfeat_features_delete(c->out);
    satfeat_sequence_delete(c->seq);
    satfeat_detector_delete(c->det);
    features_free(&c->f);
    satfeat_ctx_delete(c->ctx);
    satfeat_free(c->img);
}

/* On a detector without descriptors a sequence gives the single-frame keypoints only; popping
 * with nothing pending, or into no set, is refused. */
static void test_sequence_keypoints_only(void **state)
{
    (void)state;
    satfeat_detector_params p = satfeat_detector_params_default();
    p.descriptor = SATFEAT_DESCRIPTOR_NONE;
    seq_case c = seq_case_new(&p);
    int popped = 1;
    assert_int_equal(satfeat_sequence_pop(c.seq, &c.out), SATFEAT_ERR_ARG);
    assert_non_null(strstr(satfeat_ctx_last_error(c.ctx), "no frame pending"));
    assert_int_equal(satfeat_sequence_push(c.seq, &c.view, &c.out, &popped), SATFEAT_OK);
    assert_int_equal(popped, 0);
    assert_int_equal(satfeat_sequence_pop(c.seq, NULL), SATFEAT_ERR_ARG);
    assert_int_equal(satfeat_sequence_pending(c.seq), 1);
    assert_int_equal(satfeat_sequence_push(c.seq, &c.view, NULL, &popped), SATFEAT_ERR_ARG);
    assert_int_equal(satfeat_sequence_push(c.seq, &c.view, &c.out, NULL), SATFEAT_ERR_ARG);
    assert_int_equal(satfeat_sequence_pending(c.seq), 1);
    assert_int_equal(satfeat_sequence_pop(c.seq, &c.out), SATFEAT_OK);
    assert_int_equal(satfeat_features_descriptor_kind(c.out), SATFEAT_DESCRIPTOR_NONE);
    assert_set_is(c.out, &c.f);
    seq_case_delete(&c);
}

/* A sequence with descriptors returns exactly what the single-frame call returns. */
static void test_sequence_features(void **state)
{
    (void)state;
    const satfeat_detector_params p = satfeat_detector_params_default();
    seq_case c = seq_case_new(&p);
    int frames = 0;
    for (int k = 0; k < 3; k++) {
        int popped = 0;
        assert_int_equal(satfeat_sequence_push(c.seq, &c.view, &c.out, &popped), SATFEAT_OK);
        if (popped) {
            assert_int_equal(satfeat_features_descriptor_kind(c.out), SATFEAT_DESCRIPTOR_SURF64);
            assert_set_is(c.out, &c.f);
            frames++;
        }
    }
    while (satfeat_sequence_pending(c.seq) > 0) {
        assert_int_equal(satfeat_sequence_pop(c.seq, &c.out), SATFEAT_OK);
        assert_set_is(c.out, &c.f);
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
    const satfeat_detector_params p = satfeat_detector_params_default();
    seq_case c = seq_case_new(&p);
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
    for (int k = 0; k < 4; k++) {
        int popped = 0;
        assert_int_equal(satfeat_sequence_push(q, &c.view, &c.out, &popped), SATFEAT_OK);
        assert_int_equal(popped, k == 3);
        if (popped) assert_set_is(c.out, &c.f);
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
