/* test_detect_hostile.c - hostile detector calls: strides whose rows overflow the address space
 * (image, mask, sequence frames) and mask views that cannot cover the image, each refused with
 * its own status and message before anything is read. */
#include "detect_synth.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

typedef struct fixture {
    satfeat_ctx *ctx;
    satfeat_detector *det;
    uint8_t *img; /* 96 x 96 blobs, stride 96 */
} fixture;

static void open_fixture(fixture *f)
{
    assert_int_equal(satfeat_ctx_new(&f->ctx, SATFEAT_BACKEND_CPU, 0), SATFEAT_OK);
    const satfeat_detector_params p = satfeat_detector_params_default();
    assert_int_equal(satfeat_detector_new(f->ctx, &p, 96, 96, &f->det), SATFEAT_OK);
    test_rng r;
    test_rng_seed(&r, 1616);
    f->img = synth_random_blobs(&r, 96, 96, 12);
}

static void close_fixture(fixture *f)
{
    satfeat_detector_delete(f->det);
    satfeat_ctx_delete(f->ctx);
    free(f->img);
}

static void expect_error(fixture *f, satfeat_status got, satfeat_status want, const char *words)
{
    assert_int_equal(got, want);
    print_message("%s\n", satfeat_ctx_last_error(f->ctx));
    assert_non_null(strstr(satfeat_ctx_last_error(f->ctx), words));
}

/* Defect 4: a stride that overflows over the frame's rows (old code: pointer arithmetic past the
 * address space, undefined behaviour, then a wild read) is SATFEAT_ERR_OVERFLOW, and the message
 * names the image or the mask. */
static void test_stride_overflow(void **state)
{
    (void)state;
    fixture f;
    open_fixture(&f);
    satfeat_features *fs = NULL;
    const size_t huge = (SIZE_MAX >> 1) + 1; /* 2^63: row 1 lies past PTRDIFF_MAX */
    satfeat_image_view v = test_view(f.img, huge, 96, 96, NULL, 0);
    expect_error(&f, satfeat_detect(f.det, &v, &fs), SATFEAT_ERR_OVERFLOW, "image stride");
    v = test_view(f.img, 96, 96, 96, f.img, huge);
    expect_error(&f, satfeat_detect(f.det, &v, &fs), SATFEAT_ERR_OVERFLOW, "mask stride");
    /* the same stride wraps to a small one when multiplied by 2 rows: still refused */
    v = test_view(f.img, 96, 96, 3, f.img, SIZE_MAX / 2 + 1);
    expect_error(&f, satfeat_detect(f.det, &v, &fs), SATFEAT_ERR_OVERFLOW, "mask stride");
    /* the largest stride that still fits works with one row, where it is never multiplied */
    v = test_view(f.img, SIZE_MAX, 96, 1, f.img, SIZE_MAX);
    assert_int_equal(satfeat_detect(f.det, &v, &fs), SATFEAT_OK);
    /* sequences check the frames they copy */
    satfeat_sequence *seq = NULL;
    assert_int_equal(satfeat_sequence_new(f.det, 2, &seq), SATFEAT_OK);
    int popped = 1;
    v = test_view(f.img, huge, 96, 96, NULL, 0);
    expect_error(&f, satfeat_sequence_push(seq, &v, &fs, &popped), SATFEAT_ERR_OVERFLOW,
                 "image stride");
    assert_int_equal(popped, 0);
    assert_int_equal(satfeat_sequence_pending(seq), 0);
    satfeat_sequence_delete(seq);
    /* the detector is still usable */
    v = test_view(f.img, 96, 96, 96, NULL, 0);
    assert_int_equal(satfeat_detect(f.det, &v, &fs), SATFEAT_OK);
    assert_true(satfeat_features_count(fs) > 0);
    satfeat_features_delete(fs);
    close_fixture(&f);
}

/* A mask is a view of the image's size: one whose rows are closer than the width (a short
 * buffer) is refused, never read past its end; a device mask on a CPU detector is refused; a
 * mask of ones keeps every keypoint. */
static void test_mask_view(void **state)
{
    (void)state;
    fixture f;
    open_fixture(&f);
    satfeat_features *fs = NULL;
    uint8_t *short_mask = malloc(96 * 40); /* too short for 96 rows of 96 */
    assert_non_null(short_mask);
    memset(short_mask, 1, 96 * 40);
    satfeat_image_view v = test_view(f.img, 96, 96, 96, short_mask, 40);
    expect_error(&f, satfeat_detect(f.det, &v, &fs), SATFEAT_ERR_ARG,
                 "mask stride 40 below width 96");
    v = test_view(f.img, 96, 96, 96, short_mask, 95);
    expect_error(&f, satfeat_detect(f.det, &v, &fs), SATFEAT_ERR_ARG, "mask stride 95");
    v = test_view(f.img, 96, 96, 96, short_mask, 96);
    v.memory = SATFEAT_MEMORY_DEVICE;
    expect_error(&f, satfeat_detect(f.det, &v, &fs), SATFEAT_ERR_UNSUPPORTED, "CUDA");
    assert_int_equal(satfeat_features_count(fs), 0);
    free(short_mask);
    /* a full mask of ones keeps every keypoint; a NULL mask ignores mask_stride */
    uint8_t *ones = malloc(96 * 96);
    assert_non_null(ones);
    memset(ones, 1, 96 * 96);
    size_t n = 0, n_full = 0;
    free(test_detect_copy(f.det, f.img, 96, 96, 96, NULL, 7, &n_full, NULL));
    free(test_detect_copy(f.det, f.img, 96, 96, 96, ones, 96, &n, NULL));
    assert_int_equal(n, n_full);
    assert_true(n > 0);
    satfeat_features_delete(fs);
    free(ones);
    close_fixture(&f);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_stride_overflow),
        cmocka_unit_test(test_mask_view),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
