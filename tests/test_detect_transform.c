/* test_detect_transform.c - what the detector's geometry guarantees under image transforms,
 * and determinism.
 *
 * The box filters are symmetric about the centre pixel, Dxx is the transpose of Dyy and a
 * rotation by 90 degrees or a mirror only flips the sign of Dxy, which enters squared. So when
 * the sample grid maps onto itself (width-1 and height-1 multiples of the largest step), every
 * response is bit-for-bit the same at the transformed sample and NMS picks the same samples.
 * The quadratic fit is the same system with rows and columns permuted and signs flipped, which
 * the fixed cofactor order evaluates in a different order: offsets agree to rounding (1e-9 is
 * far above it), not bit for bit; list order can differ among equal responses.
 * Inverting the image (255 - I) negates Dxx, Dyy and Dxy exactly (every filter's weights sum
 * to 0), so the list is bit-identical except that each Laplacian sign flips. */
#include "detect_synth.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define W 193 /* 192 and 160 are multiples of 16, the largest step with init_step 2 */
#define H 161

typedef void (*map_fn)(double x, double y, double *tx, double *ty);

static void rot90(double x, double y, double *tx, double *ty)
{
    *tx = (H - 1) - y;
    *ty = x;
}

static void mirror(double x, double y, double *tx, double *ty)
{
    *tx = (W - 1) - x;
    *ty = y;
}

/* Every keypoint of `a` mapped by f matches exactly one of `b`: same sample response (bits),
 * octave, layer, Laplacian; position and size to 1e-9. */
static void check_mapped(const satfeat_keypoint *a, const satfeat_keypoint *b, size_t n, map_fn f)
{
    for (size_t i = 0; i < n; i++) {
        double tx, ty;
        f(a[i].x, a[i].y, &tx, &ty);
        int found = 0;
        for (size_t j = 0; j < n; j++) {
            if (fabs(b[j].x - tx) > 1e-9 || fabs(b[j].y - ty) > 1e-9) continue;
            assert_memory_equal(&a[i].response, &b[j].response, sizeof(double));
            assert_true(fabs(a[i].size - b[j].size) < 1e-9);
            assert_int_equal(a[i].octave, b[j].octave);
            assert_int_equal(a[i].layer, b[j].layer);
            assert_int_equal(a[i].laplacian, b[j].laplacian);
            found++;
        }
        if (found != 1) {
            print_error("keypoint %zu (%.3f, %.3f) matched %d times\n", i, a[i].x, a[i].y, found);
            fail();
        }
    }
}

static void run_transforms(int init_step, uint64_t seed)
{
    test_rng rng;
    test_rng_seed(&rng, seed);
    uint8_t *img = synth_random_blobs(&rng, W, H, 40);
    uint8_t *rot = malloc(W * H), *mir = malloc(W * H), *inv = malloc(W * H);
    assert_non_null(rot);
    assert_non_null(mir);
    assert_non_null(inv);
    for (int y = 0; y < H; y++)
        for (int x = 0; x < W; x++) {
            const uint8_t v = img[y * W + x];
            rot[x * H + (H - 1 - y)] = v; /* rotated image is H wide, W high */
            mir[y * W + (W - 1 - x)] = v;
            inv[y * W + x] = (uint8_t)(255 - v);
        }
    satfeat_detector_params p = satfeat_detector_params_default();
    p.init_step = init_step;
    p.threshold = 0.00005;
    /* the geometry of the detector itself: which of two near duplicates is the stronger can
     * change with the tie order (y, x) under the transforms */
    p.suppress_duplicates = 0;
    size_t n, nr, nm, ni;
    satfeat_keypoint *k = synth_detect(&p, 2, img, W, H, NULL, &n);
    satfeat_keypoint *kr = synth_detect(&p, 2, rot, H, W, NULL, &nr);
    satfeat_keypoint *km = synth_detect(&p, 2, mir, W, H, NULL, &nm);
    satfeat_keypoint *ki = synth_detect(&p, 2, inv, W, H, NULL, &ni);
    assert_true(n >= 20); /* the test means something */
    assert_int_equal(nr, n);
    assert_int_equal(nm, n);
    assert_int_equal(ni, n);
    check_mapped(k, kr, n, rot90);
    check_mapped(k, km, n, mirror);
    for (size_t i = 0; i < n; i++) {
        assert_int_equal(ki[i].laplacian, -k[i].laplacian);
        ki[i].laplacian = k[i].laplacian;
    }
    synth_assert_same(k, ki, n);
    free(k);
    free(kr);
    free(km);
    free(ki);
    free(img);
    free(rot);
    free(mir);
    free(inv);
}

static void test_rotation_mirror_inversion_step1(void **state)
{
    (void)state;
    run_transforms(1, 11);
    run_transforms(1, 12);
}

static void test_rotation_mirror_inversion_step2(void **state)
{
    (void)state;
    run_transforms(2, 13);
}

static void test_deterministic_across_runs_and_threads(void **state)
{
    (void)state;
    enum { DW = 300, DH = 220 };
    test_rng rng;
    test_rng_seed(&rng, 21);
    uint8_t *img = synth_random_blobs(&rng, DW, DH, 60);
    satfeat_detector_params p = satfeat_detector_params_default();
    p.threshold = 0.0001;
    size_t n1, n;
    satfeat_keypoint *ref = synth_detect(&p, 1, img, DW, DH, NULL, &n1);
    assert_true(n1 >= 30);
    for (int t = 1; t <= 4; t++) {
        satfeat_keypoint *k = synth_detect(&p, t, img, DW, DH, NULL, &n);
        assert_int_equal(n, n1);
        synth_assert_same(k, ref, n);
        free(k);
    }
    /* the same detector object twice, then a different frame, then the first again */
    satfeat_ctx *ctx;
    satfeat_detector *det;
    assert_int_equal(satfeat_ctx_new(&ctx, SATFEAT_BACKEND_CPU, 0), SATFEAT_OK);
    assert_int_equal(satfeat_detector_new(ctx, &p, DW, DH, &det), SATFEAT_OK);
    uint8_t *other = synth_random_blobs(&rng, DW - 37, DH - 11, 30);
    for (int r = 0; r < 2; r++) {
        satfeat_keypoint *k = test_detect_copy(det, img, DW, DW, DH, NULL, 0, &n, NULL);
        assert_int_equal(n, n1);
        synth_assert_same(k, ref, n);
        free(k);
        size_t no;
        free(test_detect_copy(det, other, DW - 37, DW - 37, DH - 11, NULL, 0, &no, NULL));
    }
    /* sorted in the documented total order */
    for (size_t i = 1; i < n1; i++) {
        const satfeat_keypoint *a = &ref[i - 1], *b = &ref[i];
        assert_true(a->response > b->response ||
                    (a->response == b->response && (a->y < b->y || (a->y == b->y && a->x <= b->x))));
    }
    free(other);
    free(img);
    free(ref);
    satfeat_detector_delete(det);
    satfeat_ctx_delete(ctx);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_rotation_mirror_inversion_step1),
        cmocka_unit_test(test_rotation_mirror_inversion_step2),
        cmocka_unit_test(test_deterministic_across_runs_and_threads),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
