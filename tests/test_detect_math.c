/* test_detect_math.c - the shared per-sample math of the detector (detect/fh_*.h): scale-space
 * geometry, box filters against a naive weighted sum, the once-rounded exact response (integer
 * long division against IEEE division), NMS strictness and the quadratic fit. */
#include "test_util.h"

#include "extremum_refine.h"
#include "scale_space.h"
#include "hessian_response.h"

#include <math.h>
#include <stdlib.h>

static void test_geometry(void **state)
{
    (void)state;
    static const int sides[4][4] = {
        {9, 15, 21, 27}, {15, 27, 39, 51}, {27, 51, 75, 99}, {51, 99, 147, 195}};
    for (int o = 0; o < 4; o++) {
        for (int i = 0; i < 4; i++) assert_int_equal(satfeat_fh_side(o, i), sides[o][i]);
        assert_int_equal(satfeat_fh_side_step(o), sides[o][1] - sides[o][0]);
        assert_int_equal(satfeat_fh_step(2, o), 2 << o);
    }
    int a, b;
    /* L = 9 (r = 4) on 20 pixels, step 2: samples 4..14 -> k = 2..7 */
    assert_true(satfeat_fh_sample_range(20, 2, 9, 0, &a, &b));
    assert_int_equal(a, 2);
    assert_int_equal(b, 7);
    assert_true(satfeat_fh_sample_range(9, 1, 9, 0, &a, &b));
    assert_int_equal(a, 4);
    assert_int_equal(b, 4);
    assert_false(satfeat_fh_sample_range(8, 1, 9, 0, &a, &b));
    assert_false(satfeat_fh_sample_range(9, 1, 9, 1, &a, &b));
}

/* Naive filter weights at offset (dx, dy) from the centre for lobe l, following DESIGN.md. */
static int weight_dyy(int dx, int dy, int l)
{
    const int r = (3 * l - 1) / 2, h = (l - 1) / 2;
    if (abs(dx) > l - 1 || abs(dy) > r) return 0;
    return abs(dy) <= h ? -2 : 1;
}

static int weight_dxy(int dx, int dy, int l)
{
    if (dx == 0 || dy == 0 || abs(dx) > l || abs(dy) > l) return 0;
    return (dx < 0) == (dy < 0) ? 1 : -1;
}

static void test_filters_against_naive(void **state)
{
    (void)state;
    enum { W = 90, H = 80 };
    test_rng rng;
    test_rng_seed(&rng, 7);
    uint8_t img[W * H];
    uint32_t table[(W + 1) * (H + 1)];
    test_fill_u8(&rng, img, sizeof img);
    test_reference_sat_u8(img, W, W, H, table);
    static const int lobes[] = {3, 5, 7, 9, 13, 17};
    for (size_t k = 0; k < sizeof lobes / sizeof lobes[0]; k++) {
        const int l = lobes[k], r = (3 * l - 1) / 2;
        for (int t = 0; t < 40; t++) {
            const int x = test_rng_range(&rng, r, W - 1 - r), y = test_rng_range(&rng, r, H - 1 - r);
            long dxx = 0, dyy = 0, dxy = 0;
            for (int dy = -r; dy <= r; dy++)
                for (int dx = -r; dx <= r; dx++) {
                    const long v = img[(y + dy) * W + x + dx];
                    dyy += weight_dyy(dx, dy, l) * v;
                    dxx += weight_dyy(dy, dx, l) * v;
                    dxy += weight_dxy(dx, dy, l) * v;
                }
            const satfeat_fh_hessian d = satfeat_fh_filters(table, W + 1, x, y, l);
            assert_int_equal(d.dxx, dxx);
            assert_int_equal(d.dyy, dyy);
            assert_int_equal(d.dxy, dxy);
            const int64_t num = satfeat_fh_numerator(d);
            assert_true(num == 100 * (int64_t)dxx * dyy - 81 * (int64_t)dxy * dxy);
        }
    }
}

static int64_t random_i64(test_rng *rng, int bits)
{
    const uint64_t mag = test_rng_next(rng) >> (64 - bits);
    return (test_rng_next(rng) & 1) ? -(int64_t)mag : (int64_t)mag;
}

static void test_quotient_is_correctly_rounded(void **state)
{
    (void)state;
    test_rng rng;
    test_rng_seed(&rng, 99);
    /* exact operands: one IEEE division is the correctly rounded quotient */
    for (int o = 0; o < 4; o++)
        for (int i = 0; i < 4; i++) {
            const satfeat_fh_norm n = satfeat_fh_layer_norm(satfeat_fh_lobe(o, i));
            assert_true(n.fast); /* the default 4 x 4 scale space is all on the fast path */
            for (int t = 0; t < 20000; t++) {
                const int64_t num = random_i64(&rng, 1 + t % 53);
                const double want = (double)num / n.den_d;
                const double got = satfeat_fh_quotient(num, n.den);
                assert_memory_equal(&got, &want, sizeof got);
            }
        }
    /* large numerators: num / 2^k is (double)num scaled, with the conversion's rounding */
    for (int t = 0; t < 20000; t++) {
        const int64_t num = random_i64(&rng, 63);
        const int k = t % 40;
        const double want = (double)num / (double)((uint64_t)1 << k);
        const double got = satfeat_fh_quotient(num, (uint64_t)1 << k);
        assert_memory_equal(&got, &want, sizeof got);
    }
    /* ties go to even: 2^53 + 1 and 2^53 + 3 */
    assert_true(satfeat_fh_quotient(((int64_t)1 << 53) + 1, 1) == 9007199254740992.0);
    assert_true(satfeat_fh_quotient(((int64_t)1 << 53) + 3, 1) == 9007199254740996.0);
    assert_true(satfeat_fh_quotient(0, 12345) == 0.0);
    assert_true(satfeat_fh_quotient(-1, 3) == -1.0 / 3.0);
    /* the largest scale spaces leave the fast path: the integer path must be taken there */
    int slow = 0;
    for (int o = 0; o < SATFEAT_FH_MAX_OCTAVES; o++)
        for (int i = 0; i < SATFEAT_FH_MAX_LAYERS; i++)
            slow += !satfeat_fh_layer_norm(satfeat_fh_lobe(o, i)).fast;
    assert_true(slow > 0);
}

static void test_fast_path_matches_integer_path(void **state)
{
    (void)state;
    test_rng rng;
    test_rng_seed(&rng, 5);
    for (int o = 0; o < 4; o++)
        for (int i = 0; i < 4; i++) {
            const int l = satfeat_fh_lobe(o, i);
            const satfeat_fh_norm n = satfeat_fh_layer_norm(l);
            const int mxx = 510 * l * (2 * l - 1), mxy = 510 * l * l;
            for (int t = 0; t < 20000; t++) {
                satfeat_fh_hessian d;
                d.dxx = test_rng_range(&rng, -mxx, mxx);
                d.dyy = test_rng_range(&rng, -mxx, mxx);
                d.dxy = test_rng_range(&rng, -mxy, mxy);
                const double a = satfeat_fh_response_fast(d, n.den_d);
                const double b = satfeat_fh_quotient(satfeat_fh_numerator(d), n.den);
                assert_memory_equal(&a, &b, sizeof a);
            }
        }
}

static void test_nms_is_strict(void **state)
{
    (void)state;
    double lo[9], mid[9], hi[9];
    for (int k = 0; k < 9; k++) lo[k] = mid[k] = hi[k] = 1.0;
    mid[4] = 2.0;
    assert_true(satfeat_fh_is_max(lo + 4, mid + 4, hi + 4, 3));
    for (int k = 0; k < 9; k++) {
        double *layers[3] = {lo, mid, hi};
        for (int j = 0; j < 3; j++) {
            if (j == 1 && k == 4) continue;
            const double keep = layers[j][k];
            layers[j][k] = 2.0; /* an equal neighbour suppresses */
            assert_false(satfeat_fh_is_max(lo + 4, mid + 4, hi + 4, 3));
            layers[j][k] = keep;
        }
    }
}

static void test_fit_recovers_quadratic_peak(void **state)
{
    (void)state;
    /* f = 5 - (x-a)^2 - 2 (y-b)^2 - 0.5 (s-c)^2 + 0.3 (x-a)(y-b): the fit is exact */
    const double a = 0.3, b = -0.2, c = 0.4;
    double m[3][9];
    for (int s = -1; s <= 1; s++)
        for (int y = -1; y <= 1; y++)
            for (int x = -1; x <= 1; x++) {
                const double dx = x - a, dy = y - b, ds = s - c;
                m[s + 1][(y + 1) * 3 + x + 1] =
                    5 - dx * dx - 2 * dy * dy - 0.5 * ds * ds + 0.3 * dx * dy;
            }
    double off[3];
    assert_true(satfeat_fh_refine(m[0] + 4, m[1] + 4, m[2] + 4, 3, 0.5, off));
    assert_true(fabs(off[0] - a) < 1e-12 && fabs(off[1] - b) < 1e-12 && fabs(off[2] - c) < 1e-12);
    assert_false(satfeat_fh_refine(m[0] + 4, m[1] + 4, m[2] + 4, 3, 0.35, off));
    double x, y, size, sigma;
    satfeat_fh_fields(10, 20, 4, 51, 12, off, &x, &y, &size, &sigma);
    assert_true(fabs(x - 41.2) < 1e-12 && fabs(y - 79.2) < 1e-12);
    assert_true(fabs(size - 55.8) < 1e-12 && fabs(sigma - 55.8 * 1.2 / 9) < 1e-12);
    /* a flat neighbourhood is singular */
    double flat[9] = {1, 1, 1, 1, 1, 1, 1, 1, 1};
    assert_false(satfeat_fh_refine(flat + 4, flat + 4, flat + 4, 3, 1.0, off));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_geometry),
        cmocka_unit_test(test_filters_against_naive),
        cmocka_unit_test(test_quotient_is_correctly_rounded),
        cmocka_unit_test(test_fast_path_matches_integer_path),
        cmocka_unit_test(test_nms_is_strict),
        cmocka_unit_test(test_fit_recovers_quadratic_peak),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
