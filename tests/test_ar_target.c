/* test_ar_target.c - AR targets: building (scales, keypoints on the reference, bad arguments,
 * a featureless reference), the target file round trip, and the loader against hostile files
 * (wrong magic, version, truncation, trailing bytes, huge counts, NaN, a bad checksum, a FIFO):
 * each a clear status and message. */
#define _POSIX_C_SOURCE 200809L /* mkfifo */
#include "ar_reference.h"
#include "test_util.h"

#include "ar/ar_features.h"
#include "ar/ar_target_internal.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static satfeat_ar_target *build(satfeat_ctx *ctx)
{
    satfeat_ar_target *t = NULL;
    assert_int_equal(satfeat_ar_target_new(ctx, ar_ref, (size_t)ar_rw, ar_rw, ar_rh, 0.3, NULL, &t),
                     SATFEAT_OK);
    return t;
}

static void test_build(void **state)
{
    (void)state;
    satfeat_ctx *ctx;
    assert_int_equal(satfeat_ctx_new(&ctx, SATFEAT_BACKEND_CPU, -1), SATFEAT_OK);
    satfeat_ar_target *t = build(ctx);
    satfeat_ar_target_info info;
    assert_int_equal(satfeat_ar_target_get_info(t, &info), SATFEAT_OK);
    assert_int_equal(info.width, 640);
    assert_int_equal(info.height, 480);
    assert_true(info.width_m == 0.3);
    assert_int_equal(info.descriptor_dim, 64);
    assert_int_equal(info.scales, 7); /* 640 * 0.7071^6 = 80 px wide, the last scale */
    assert_true(info.features > 500 && info.features <= 500 + 353 + 250 + 176 + 125 + 100 + 100);
    int per_scale[16] = {0};
    for (size_t i = 0; i < t->n; i++) {
        assert_true(t->kp[i].x >= -0.5 && t->kp[i].x <= 639.5);
        assert_true(t->kp[i].y >= -0.5 && t->kp[i].y <= 479.5);
        per_scale[t->kp[i].octave]++;
    }
    for (int k = 0; k < info.scales; k++) {
        print_message("scale %d: %d keypoints\n", k, per_scale[k]);
        /* the 80x60 scale fits only the smallest filters: a few keypoints */
        assert_true(per_scale[k] >= (k < 6 ? 20 : 1));
    }
    /* coarse scales hold larger keypoints (in reference pixels) */
    double mean0 = 0, mean6 = 0;
    for (size_t i = 0; i < t->n; i++) {
        if (t->kp[i].octave == 0) mean0 += t->kp[i].size / per_scale[0];
        if (t->kp[i].octave == 5) mean6 += t->kp[i].size / per_scale[5];
    }
    assert_true(mean6 > 3.0 * mean0); /* scale 5 is 0.177 of the reference */
    satfeat_ar_target_delete(t);
    /* bad arguments and a blank reference */
    satfeat_ar_target *bad = (satfeat_ar_target *)1;
    assert_int_equal(satfeat_ar_target_new(ctx, ar_ref, 640, 640, 480, NAN, NULL, &bad),
                     SATFEAT_ERR_ARG);
    assert_null(bad);
    assert_true(strstr(satfeat_ctx_last_error(ctx), "width") != NULL);
    assert_int_equal(satfeat_ar_target_new(ctx, ar_ref, 640, 16, 480, 0.3, NULL, &bad),
                     SATFEAT_ERR_ARG);
    satfeat_ar_target_params p = satfeat_ar_target_params_default();
    p.scale_step = 0.95;
    assert_int_equal(satfeat_ar_target_new(ctx, ar_ref, 640, 640, 480, 0.3, &p, &bad),
                     SATFEAT_ERR_ARG);
    uint8_t *blank = calloc(200 * 200, 1);
    assert_int_equal(satfeat_ar_target_new(ctx, blank, 200, 200, 200, 0.3, NULL, &bad),
                     SATFEAT_ERR_NO_MODEL);
    assert_true(strstr(satfeat_ctx_last_error(ctx), "keypoints") != NULL);
    free(blank);
    satfeat_ctx_delete(ctx);
}

static void test_save_load(void **state)
{
    (void)state;
    satfeat_ctx *ctx;
    assert_int_equal(satfeat_ctx_new(&ctx, SATFEAT_BACKEND_CPU, -1), SATFEAT_OK);
    satfeat_ar_target *t = build(ctx), *u = NULL;
    char path[1024];
    test_path(path, sizeof path, SATFEAT_TEST_TMP_DIR, "ar_target_roundtrip.sft");
    assert_int_equal(satfeat_ar_target_save(ctx, t, path), SATFEAT_OK);
    assert_int_equal(satfeat_ar_target_load(ctx, path, &u), SATFEAT_OK);
    assert_int_equal(u->n, t->n);
    assert_int_equal(u->width, t->width);
    assert_int_equal(u->scales, t->scales);
    assert_true(u->width_m == t->width_m);
    for (size_t i = 0; i < t->n; i++) {
        assert_true(u->kp[i].x == t->kp[i].x && u->kp[i].y == t->kp[i].y);
        assert_true(u->kp[i].size == t->kp[i].size && u->kp[i].angle == t->kp[i].angle);
        assert_int_equal(u->kp[i].laplacian, t->kp[i].laplacian);
        assert_int_equal(u->kp[i].octave, t->kp[i].octave);
    }
    assert_memory_equal(u->desc, t->desc, t->n * 64 * sizeof(float));
    /* the photometric samples (ar/ar_photo.h) travel with the target */
    assert_true(t->photo.levels >= 1);
    assert_int_equal(u->photo.levels, t->photo.levels);
    assert_memory_equal(u->photo.first, t->photo.first, sizeof t->photo.first);
    const size_t ns = t->photo.first[t->photo.levels];
    assert_memory_equal(u->photo.u, t->photo.u, ns * sizeof(float));
    assert_memory_equal(u->photo.v, t->photo.v, ns * sizeof(float));
    assert_memory_equal(u->photo.value, t->photo.value, ns * sizeof(float));
    satfeat_ar_target_delete(u);
    satfeat_ar_target_delete(t);
    satfeat_ctx_delete(ctx);
}

/* The file's checksum (FNV-1a 64 of bytes 12 .. n-9) rewritten into its last 8 bytes. */
static void reseal(uint8_t *data, size_t n)
{
    uint64_t h = 0xcbf29ce484222325ull;
    for (size_t i = 12; i < n - 8; i++) h = (h ^ data[i]) * 0x100000001b3ull;
    for (int k = 0; k < 8; k++) data[n - 8 + k] = (uint8_t)(h >> (8 * k));
}

static void put32(uint8_t *p, uint32_t v)
{
    for (int k = 0; k < 4; k++) p[k] = (uint8_t)(v >> (8 * k));
}

/* Writes `n` bytes of `data` with byte `at` replaced by `v` (at < 0: none) and loads it. */
static satfeat_status load_bytes(satfeat_ctx *ctx, const uint8_t *data, size_t n, long at,
                                 uint8_t v, const char *expect)
{
    char path[1024];
    test_path(path, sizeof path, SATFEAT_TEST_TMP_DIR, "ar_target_hostile.sft");
    uint8_t *copy = malloc(n ? n : 1);
    memcpy(copy, data, n);
    if (at >= 0) copy[at] = v;
    test_write_file(path, copy, n);
    free(copy);
    satfeat_ar_target *t = (satfeat_ar_target *)1;
    const satfeat_status st = satfeat_ar_target_load(ctx, path, &t);
    assert_null(t);
    if (expect && !strstr(satfeat_ctx_last_error(ctx), expect))
        fail_msg("message \"%s\" lacks \"%s\"", satfeat_ctx_last_error(ctx), expect);
    return st;
}

static void test_hostile_files(void **state)
{
    (void)state;
    satfeat_ctx *ctx;
    assert_int_equal(satfeat_ctx_new(&ctx, SATFEAT_BACKEND_CPU, -1), SATFEAT_OK);
    satfeat_ar_target *t = build(ctx);
    char path[1024];
    test_path(path, sizeof path, SATFEAT_TEST_TMP_DIR, "ar_target_good.sft");
    assert_int_equal(satfeat_ar_target_save(ctx, t, path), SATFEAT_OK);
    satfeat_ar_target_delete(t);
    FILE *f = fopen(path, "rb");
    assert_non_null(f);
    static uint8_t buf[1 << 20];
    const size_t n = fread(buf, 1, sizeof buf, f);
    fclose(f);
    assert_true(n > 1000 && n < sizeof buf);
    const satfeat_status E = SATFEAT_ERR_FORMAT;
    assert_int_equal(load_bytes(ctx, buf, n, 0, 'X', "bad magic"), E);
    assert_int_equal(load_bytes(ctx, buf, n, 8, 3, "version 3"), E);
    assert_int_equal(load_bytes(ctx, buf, n - 1, -1, 0, "truncated"), E);
    assert_int_equal(load_bytes(ctx, buf, 30, -1, 0, "truncated header"), E);
    assert_int_equal(load_bytes(ctx, buf, 0, -1, 0, "bad magic"), E);
    /* a feature count the file cannot hold: never allocated */
    assert_int_equal(load_bytes(ctx, buf, n, 36 + 3, 0x7f, "features"), E);
    assert_int_equal(load_bytes(ctx, buf, n, 36 + 2, 0x10, "truncated"), E);
    /* width_m NaN: the exponent bytes of the f64 at offset 20 */
    {
        const double nan_v = NAN;
        uint8_t *all = malloc(n);
        memcpy(all, buf, n);
        memcpy(all + 20, &nan_v, 8); /* little-endian hosts: the file's byte order */
        assert_int_equal(load_bytes(ctx, all, n, -1, 0, "width"), E);
        free(all);
    }
    assert_int_equal(load_bytes(ctx, buf, n, 32, 65, "descriptor size"), E);
    {
        uint8_t *zero_w = malloc(n);
        memcpy(zero_w, buf, n);
        memset(zero_w + 12, 0, 4); /* width 0 */
        assert_int_equal(load_bytes(ctx, zero_w, n, -1, 0, "reference size"), E);
        free(zero_w);
    }
    /* one flipped bit in a descriptor: the checksum */
    assert_int_equal(load_bytes(ctx, buf, n, 44 + 100, buf[44 + 100] ^ 1, "checksum"), E);
    /* trailing bytes */
    {
        uint8_t *longer = calloc(n + 4, 1);
        memcpy(longer, buf, n);
        assert_int_equal(load_bytes(ctx, longer, n + 4, -1, 0, "trailing"), E);
        free(longer);
    }
    /* the photometric part (version 2), each damage sealed with a valid checksum so the
     * loader's own checks meet it: after the header and the features */
    {
        const uint32_t dim = buf[32], nf = (uint32_t)buf[36] | (uint32_t)buf[37] << 8;
        const size_t at = 44 + (size_t)nf * (48 + 4 * dim);
        const uint32_t levels = buf[at];
        assert_true(levels >= 1 && levels <= 8);
        uint8_t *bad = malloc(n);
        const size_t first = at + 4 + 4 * (size_t)levels; /* the first sample: u, v, value */
        struct {
            size_t off;
            uint32_t v;
            const char *expect;
        } cases[] = {
            {at, 9, "too many photometric levels"},
            {at + 4, 513, "too many samples"},
            {at + 4, 3, "trailing bytes"},
            {at + 8, 500, "truncated"}, /* level 1 holds fewer */
            {first, 0x4e6e6b28u, "off the reference"},      /* u = 1e9 */
            {first + 8, 0x43960000u, "outside 0 .. 255"},    /* value 300 */
            {first + 8, 0x7fc00000u, "outside 0 .. 255"},    /* value NaN */
        };
        for (size_t c = 0; c < sizeof cases / sizeof *cases; c++) {
            memcpy(bad, buf, n);
            put32(bad + cases[c].off, cases[c].v);
            reseal(bad, n);
            assert_int_equal(load_bytes(ctx, bad, n, -1, 0, cases[c].expect), E);
        }
        /* a version-1 file (no photometric part) still loads, without samples */
        memcpy(bad, buf, at);
        memcpy(bad + at, buf + n - 8, 8);
        bad[8] = 1;
        reseal(bad, at + 8);
        test_write_file(path, bad, at + 8);
        satfeat_ar_target *v1 = NULL;
        assert_int_equal(satfeat_ar_target_load(ctx, path, &v1), SATFEAT_OK);
        assert_int_equal(v1->photo.levels, 0);
        satfeat_ar_target_delete(v1);
        /* ... and a version-2 file cut where the photometric part begins is truncated */
        memcpy(bad, buf, at + 8);
        reseal(bad, at + 8);
        assert_int_equal(load_bytes(ctx, bad, at + 8, -1, 0, "truncated"), E);
        free(bad);
    }
    /* a FIFO is refused at once, never waited on */
    char fifo[1024];
    test_path(fifo, sizeof fifo, SATFEAT_TEST_TMP_DIR, "ar_target_fifo");
    unlink(fifo);
    assert_int_equal(mkfifo(fifo, 0600), 0);
    satfeat_ar_target *u = NULL;
    assert_int_equal(satfeat_ar_target_load(ctx, fifo, &u), SATFEAT_ERR_IO);
    assert_true(strstr(satfeat_ctx_last_error(ctx), "FIFO") != NULL);
    unlink(fifo);
    assert_int_equal(satfeat_ar_target_load(ctx, "/nonexistent/x.sft", &u), SATFEAT_ERR_IO);
    satfeat_ctx_delete(ctx);
}

/* The adapter's detection of a sub-view moved by its origin: the same keypoints, each moved by
 * exactly (dx, dy), and the same descriptors, as the sub-view's own detection. */
static void test_detect_moved(void **state)
{
    (void)state;
    satfeat_ctx *ctx;
    assert_int_equal(satfeat_ctx_new(&ctx, SATFEAT_BACKEND_CPU, -1), SATFEAT_OK);
    satfeat_detector_params dp = satfeat_detector_params_default();
    dp.max_keypoints = 400;
    satfeat_ar_features *f;
    assert_int_equal(satfeat_ar_features_new(ctx, &dp, ar_rw, ar_rh, &f), SATFEAT_OK);
    const int dx = 37, dy = 21, w = ar_rw - 60, h = ar_rh - 40;
    const satfeat_image_view v =
        satfeat_image_view_host(ar_ref + (size_t)dy * (size_t)ar_rw + (size_t)dx, w, h,
                                (size_t)ar_rw);
    const satfeat_keypoint *kp;
    const float *desc;
    size_t n, m;
    assert_int_equal(satfeat_ar_features_detect(f, &v, 0, 0, &kp, &desc, &n), SATFEAT_OK);
    assert_true(n > 50);
    satfeat_keypoint *want = malloc(n * sizeof *want);
    float *want_desc = malloc(n * (size_t)dp.descriptor * sizeof(float));
    assert_non_null(want);
    assert_non_null(want_desc);
    memcpy(want, kp, n * sizeof *want);
    memcpy(want_desc, desc, n * (size_t)dp.descriptor * sizeof(float));
    for (size_t i = 0; i < n; i++) want[i].x += dx, want[i].y += dy;
    assert_int_equal(satfeat_ar_features_detect(f, &v, dx, dy, &kp, &desc, &m), SATFEAT_OK);
    assert_int_equal(m, n);
    assert_memory_equal(kp, want, n * sizeof *want);
    assert_memory_equal(desc, want_desc, n * (size_t)dp.descriptor * sizeof(float));
    assert_int_equal(satfeat_ar_features_set_train(f, kp, desc, m), SATFEAT_OK);
    free(want);
    free(want_desc);
    satfeat_ar_features_delete(f);
    satfeat_ctx_delete(ctx);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_build),
        cmocka_unit_test(test_save_load),
        cmocka_unit_test(test_hostile_files),
        cmocka_unit_test(test_detect_moved),
    };
    return cmocka_run_group_tests(tests, ar_reference_setup, ar_reference_teardown);
}
