/* test_describe_fast.c - the fast CPU path of the orientation and the descriptors gives the same
 * bits as the reference path (the per-sample functions of orientation.h / descriptor.h that the
 * CUDA kernels follow) and as the fast path with every table read clamped (interior keypoints
 * forced through the border code); and the lane-wise helpers of describe_vec.h equal their
 * scalar models on dense sweeps and adversarial inputs; satfeat_haar_block's vector code gives
 * satfeat_haar_xy's pairs at corners inside, on and beyond the border. */
#include "describe/describe.h"
#include "describe/describe_geom.h"
#include "describe_util.h"
#include "describe/describe_vec.h"
#include "describe/haar.h"
#include "describe/haar_block.h"
#include "describe/orientation.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Uniform double in [0, 1) with 53 random bits. */
static double test_rng_unit01(test_rng *r)
{
    return (double)(test_rng_next(r) >> 11) / 9007199254740992.0;
}

/* Scalar orientation bin exactly as satfeat_ori_sample computes it from (wdx, wdy). */
static int scalar_bin(double wdy, double wdx)
{
    int b = (int)(satfeat_am_angle(wdy, wdx) * ((double)SATFEAT_ORI_BINS / SATFEAT_AM_2PI));
    return b < 0 ? 0 : (b >= SATFEAT_ORI_BINS ? SATFEAT_ORI_BINS - 1 : b);
}

/* Checks 4 (y, x) pairs through sf_ori_bin4 against scalar_bin; returns mismatches. */
static int check_bins4(const double *y, const double *x)
{
    sf_v4d vy, vx;
    for (int l = 0; l < 4; l++) {
        vy[l] = y[l];
        vx[l] = x[l];
    }
    const sf_v4i b = sf_ori_bin4(&vy, &vx);
    int bad = 0;
    for (int l = 0; l < 4; l++)
        if (b[l] != scalar_bin(y[l], x[l])) {
            if (bad < 5)
                fprintf(stderr, "bin(%.17g, %.17g): lanes %d, scalar %d\n", y[l], x[l], b[l],
                        scalar_bin(y[l], x[l]));
            bad++;
        }
    return bad;
}

/* sf_ori_bin4 equals the scalar bin on integer responses times every orientation weight (the
 * values the orientation sees), on directions right at the bin boundaries, on signed zeros,
 * NaN, inf and huge values. */
static void test_lane_bins_equal_scalar(void **state)
{
    (void)state;
    satfeat_describe_weights w;
    satfeat_describe_weights_init(&w);
    satfeat_describe_weights_orientation(&w, SATFEAT_ORI_FILTER_HAAR); /* all 437 weights */
    int bad = 0;
    double y[4], x[4];
    int f = 0;
    /* every integer vector in [-40, 40]^2 times a few weights */
    const int wk[4] = {0, 17, 54, 108};
    for (int a = 0; a < 4; a++)
        for (int iy = -40; iy <= 40; iy++)
            for (int ix = -40; ix <= 40; ix++) {
                y[f] = w.ori_w[wk[a]] * (double)iy;
                x[f] = w.ori_w[wk[a]] * (double)ix;
                if (++f == 4) {
                    bad += check_bins4(y, x);
                    f = 0;
                }
            }
    /* boundary directions: r (cos, sin) of b * 5 degrees, nudged by a few ulps both ways */
    test_rng rng;
    test_rng_seed(&rng, 77);
    for (int b = 0; b < SATFEAT_ORI_BINS; b++)
        for (int rep = 0; rep < 200; rep++) {
            const double th = (double)b * (SATFEAT_AM_2PI / SATFEAT_ORI_BINS);
            const double r = 1.0 + 1e5 * test_rng_unit01(&rng);
            double cy = r * sin(th), cx = r * cos(th);
            for (int u = 0; u < rep % 7; u++) {
                cy = nextafter(cy, rep & 8 ? INFINITY : -INFINITY);
                cx = nextafter(cx, rep & 16 ? INFINITY : -INFINITY);
            }
            y[f] = cy;
            x[f] = cx;
            if (++f == 4) {
                bad += check_bins4(y, x);
                f = 0;
            }
        }
    /* random magnitudes over many decades */
    for (int rep = 0; rep < 200000; rep++) {
        y[f] = (test_rng_unit01(&rng) - 0.5) * pow(10.0, 12.0 * test_rng_unit01(&rng) - 6.0);
        x[f] = (test_rng_unit01(&rng) - 0.5) * pow(10.0, 12.0 * test_rng_unit01(&rng) - 6.0);
        if (++f == 4) {
            bad += check_bins4(y, x);
            f = 0;
        }
    }
    const double sp[] = {0.0, -0.0, 1.0, -1.0, NAN, INFINITY, -INFINITY, 1e300, -1e300, 2e300,
                         4.9e-324, -4.9e-324, 1e-310};
    const int ns = (int)(sizeof sp / sizeof sp[0]);
    for (int i = 0; i < ns; i++)
        for (int j = 0; j < ns; j++) {
            y[f] = sp[i];
            x[f] = sp[j];
            if (++f == 4) {
                bad += check_bins4(y, x);
                f = 0;
            }
        }
    assert_int_equal(bad, 0);
}

/* sf_corner4 equals satfeat_dg_corner: halves and their neighbours, random values over many
 * decades, the clamp limits, NaN and infinities. */
static void test_lane_corner_equal_scalar(void **state)
{
    (void)state;
    test_rng rng;
    test_rng_seed(&rng, 78);
    int bad = 0, f = 0;
    double v[4];
    for (long rep = 0; rep < 400000; rep++) {
        double x;
        switch (rep % 4) {
        case 0: x = (double)(rep / 4 % 4001 - 2000) * 0.5; break; /* exact halves */
        case 1: x = nextafter((double)(rep / 4 % 4001 - 2000) * 0.5, rep & 8 ? 1e9 : -1e9); break;
        case 2: x = (test_rng_unit01(&rng) - 0.5) * 4000.0; break;
        default: x = (test_rng_unit01(&rng) - 0.5) * pow(2.0, 40.0 * test_rng_unit01(&rng)); break;
        }
        v[f] = x;
        if (++f == 4) {
            sf_v4d vv = {v[0], v[1], v[2], v[3]};
            const sf_v4i c = sf_corner4(vv);
            for (int l = 0; l < 4; l++) bad += c[l] != satfeat_dg_corner(v[l]);
            f = 0;
        }
    }
    const double sp[8] = {NAN, INFINITY, -INFINITY, 268435456.0, -268435456.5, 268435455.5,
                          -268435457.0, 1e18};
    for (int i = 0; i < 8; i += 4) {
        sf_v4d vv = {sp[i], sp[i + 1], sp[i + 2], sp[i + 3]};
        const sf_v4i c = sf_corner4(vv);
        for (int l = 0; l < 4; l++) bad += c[l] != satfeat_dg_corner(sp[i + l]);
    }
    assert_int_equal(bad, 0);
}

/* Random keypoints over [-pad, w+pad) x [-pad, h+pad) with sigma in [0.5, smax) and random
 * angles; every tenth keypoint gets garbage (NaN / huge position, sigma or angle). */
static satfeat_keypoint *random_kps(test_rng *rng, size_t n, int w, int h, double pad,
                                    double smax)
{
    satfeat_keypoint *kp = calloc(n, sizeof *kp);
    assert_non_null(kp);
    for (size_t i = 0; i < n; i++) {
        kp[i].x = -pad + test_rng_unit01(rng) * (w + 2 * pad);
        kp[i].y = -pad + test_rng_unit01(rng) * (h + 2 * pad);
        kp[i].sigma = 0.5 + test_rng_unit01(rng) * (smax - 0.5);
        kp[i].angle = test_rng_unit01(rng) * 7.0 - 0.3;
        if (i % 10 == 9) {
            switch (i / 10 % 5) {
            case 0: kp[i].x = NAN; break;
            case 1: kp[i].sigma = 1e9; break;
            case 2: kp[i].angle = INFINITY; break;
            case 3: kp[i].y = -1e12; break;
            default: kp[i].sigma = -3.0; break;
            }
        }
    }
    return kp;
}

/* Values per keypoint run_path writes: unit L2 64, 128, upright 64, then the same three
 * root-normalised. */
#define PATH_VALUES 512

/* Angles and descriptors (64, 128, upright 64; unit L2, then root-normalised) of one path;
 * angles written to kp[].angle by the orientation and restored to `angles0` before the
 * descriptors so every path sees the same. */
static void run_path(const uint32_t *t, int w, int h, satfeat_keypoint *kp, size_t n,
                     const double *angles0, const satfeat_describe_weights *wt,
                     satfeat_desc_path path, double *angles, float *desc)
{
    satfeat_orient_cpu_path(t, (size_t)w + 1, w, h, kp, n, wt, 2, path);
    for (size_t i = 0; i < n; i++) {
        angles[i] = kp[i].angle;
        kp[i].angle = angles0[i];
    }
    satfeat_describe_cpu_path(t, (size_t)w + 1, w, h, kp, n, 0, 64, wt, desc, 2, path);
    satfeat_describe_cpu_path(t, (size_t)w + 1, w, h, kp, n, 0, 128, wt, desc + n * 64, 1, path);
    satfeat_describe_cpu_path(t, (size_t)w + 1, w, h, kp, n, 1, 64, wt, desc + n * 192, 2, path);
    const int root = SATFEAT_DESC_ROOT, up = SATFEAT_DESC_UPRIGHT;
    float *rd = desc + n * 256;
    satfeat_describe_cpu_path(t, (size_t)w + 1, w, h, kp, n, root, 64, wt, rd, 2, path);
    satfeat_describe_cpu_path(t, (size_t)w + 1, w, h, kp, n, root, 128, wt, rd + n * 64, 1, path);
    satfeat_describe_cpu_path(t, (size_t)w + 1, w, h, kp, n, root | up, 64, wt, rd + n * 192, 2,
                              path);
}

/** The paths check_paths compares. */
#define NPATHS 4

/* Fast (block and scalar Haar reads), clamped and reference paths agree bit for bit on one image
 * and keypoint set, with the orientation filter `filter`; the reference descriptors have more
 * than min_nonzero non-zero values per keypoint on average. */
static void check_paths_filter(const uint8_t *img, int w, int h, satfeat_keypoint *kp, size_t n,
                               size_t min_nonzero, int filter)
{
    satfeat_describe_weights wt;
    satfeat_describe_weights_init(&wt);
    satfeat_describe_weights_orientation(&wt, filter);
    uint32_t *t = du_table(img, w, h);
    double *a0 = malloc(n * sizeof *a0), *ang[NPATHS];
    float *desc[NPATHS];
    assert_non_null(a0);
    for (size_t i = 0; i < n; i++) a0[i] = kp[i].angle;
    const satfeat_desc_path paths[NPATHS] = {SATFEAT_DESC_PATH_REFERENCE, SATFEAT_DESC_PATH_FAST,
                                             SATFEAT_DESC_PATH_CLAMPED,
                                             SATFEAT_DESC_PATH_FAST_SCALAR};
    for (int p = 0; p < NPATHS; p++) {
        ang[p] = malloc(n * sizeof *ang[p]);
        desc[p] = malloc(n * PATH_VALUES * sizeof *desc[p]);
        assert_non_null(ang[p]);
        assert_non_null(desc[p]);
        run_path(t, w, h, kp, n, a0, &wt, paths[p], ang[p], desc[p]);
    }
    size_t nonzero = 0;
    for (size_t i = 0; i < n * 256; i++) nonzero += desc[0][i] != 0.0f;
    if (nonzero <= n * min_nonzero) fprintf(stderr, "only %zu non-zero values\n", nonzero);
    assert_true(nonzero > n * min_nonzero); /* the sets really describe texture */
    for (int p = 1; p < NPATHS; p++) {
        for (size_t i = 0; i < n; i++)
            if (memcmp(&ang[0][i], &ang[p][i], sizeof(double))) {
                fprintf(stderr, "path %d: angle %zu %.17g != reference %.17g\n", (int)paths[p],
                        i, ang[p][i], ang[0][i]);
                fail();
            }
        for (size_t i = 0; i < n * PATH_VALUES; i++)
            if (memcmp(&desc[0][i], &desc[p][i], sizeof(float))) {
                fprintf(stderr, "path %d: descriptor value %zu differs\n", (int)paths[p], i);
                fail();
            }
    }
    for (int p = 0; p < NPATHS; p++) {
        free(ang[p]);
        free(desc[p]);
    }
    free(a0);
    free(t);
}

/* check_paths_filter with each orientation filter. */
static void check_paths(const uint8_t *img, int w, int h, satfeat_keypoint *kp, size_t n,
                        size_t min_nonzero)
{
    check_paths_filter(img, w, h, kp, n, min_nonzero, SATFEAT_ORI_FILTER_SCHARR);
    check_paths_filter(img, w, h, kp, n, min_nonzero, SATFEAT_ORI_FILTER_HAAR);
}

/* A 640x400 texture: detected keypoints and random ones (interior, border, outside, garbage). */
static void test_paths_equal_texture(void **state)
{
    (void)state;
    test_rng rng;
    test_rng_seed(&rng, 79);
    const int w = 640, h = 400;
    du_blob *b = du_random_blobs(&rng, w, h, 700);
    uint8_t *img = du_render(b, 700, w, h, 1.0, 0.0, 0, 0, 0, 0);
    size_t n = 0;
    satfeat_keypoint *kp = du_detect(img, w, h, 0, &n);
    assert_true(n > 100);
    for (size_t i = 0; i < n; i++) kp[i].angle = test_rng_unit01(&rng) * SATFEAT_AM_2PI;
    check_paths(img, w, h, kp, n, 150);
    free(kp);
    satfeat_keypoint *r = random_kps(&rng, 3000, w, h, 40.0, 10.0);
    check_paths(img, w, h, r, 3000, 150);
    free(r);
    r = random_kps(&rng, 1000, w, h, 200.0, 60.0);
    check_paths(img, w, h, r, 1000, 100);
    free(r);
    free(img);
    free(b);
}

/* A tiny image where almost every footprint crosses the border, and a thin one. */
static void test_paths_equal_small(void **state)
{
    (void)state;
    test_rng rng;
    test_rng_seed(&rng, 80);
    const int sizes[2][2] = {{37, 23}, {300, 9}};
    for (int s = 0; s < 2; s++) {
        const int w = sizes[s][0], h = sizes[s][1];
        du_blob *b = du_random_blobs(&rng, w, h, 30);
        uint8_t *img = du_render(b, 30, w, h, 1.0, 0.0, 0, 0, 0, 0);
        satfeat_keypoint *r = random_kps(&rng, 2000, w, h, 15.0, 5.0);
        check_paths(img, w, h, r, 2000, 30);
        free(r);
        free(img);
        free(b);
    }
}

/* satfeat_haar_block (vector code where this processor has it) and its scalar code equal
 * satfeat_haar_xy per corner: a table of random u32 entries (the pairs wrap modulo 2^32), corners
 * inside, near and far outside the image, counts that are not whole groups of 8. */
static void test_haar_block_equal_scalar(void **state)
{
    (void)state;
    test_rng rng;
    test_rng_seed(&rng, 2027);
    const int sizes[3][2] = {{97, 61}, {640, 480}, {5, 300}};
    for (int z = 0; z < 3; z++) {
        const int w = sizes[z][0], h = sizes[z][1];
        const size_t st = (size_t)w + 1 + (size_t)z; /* also a padded row stride */
        uint32_t *t = malloc(st * ((size_t)h + 1) * sizeof *t);
        assert_non_null(t);
        for (size_t i = 0; i < st * ((size_t)h + 1); i++)
            t[i] = (uint32_t)(test_rng_unit01(&rng) * 4294967296.0);
        enum { N = 603 };
        int32_t cx[N], cy[N], dx[2][N], dy[2][N];
        for (int half = 1; half <= 70; half += 3) {
            for (int k = 0; k < N; k++) {
                cx[k] = (int32_t)(test_rng_unit01(&rng) * (w + 2 * half + 40)) - half - 20;
                cy[k] = (int32_t)(test_rng_unit01(&rng) * (h + 2 * half + 40)) - half - 20;
            }
            cx[0] = -268435456, cy[1] = 268435456; /* the extremes haar.h allows */
            for (int n = N - 8; n <= N; n += 3) {
                satfeat_haar_block_isa(t, st, w, h, cx, cy, n, half, dx[0], dy[0],
                                       SATFEAT_HAAR_ISA_BEST);
                satfeat_haar_block_isa(t, st, w, h, cx, cy, n, half, dx[1], dy[1],
                                       SATFEAT_HAAR_ISA_SCALAR);
                for (int k = 0; k < n; k++) {
                    int32_t ex, ey;
                    satfeat_haar_xy(t, st, w, h, cx[k], cy[k], half, &ex, &ey);
                    assert_int_equal(dx[0][k], ex);
                    assert_int_equal(dy[0][k], ey);
                    assert_int_equal(dx[1][k], ex);
                    assert_int_equal(dy[1][k], ey);
                }
            }
        }
        free(t);
    }
    /* a table whose indices would overflow an int32 is never given to the vector code */
    assert_int_equal(satfeat_haar_block_vector(70001, 70000, 40000), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_lane_bins_equal_scalar),
        cmocka_unit_test(test_lane_corner_equal_scalar),
        cmocka_unit_test(test_haar_block_equal_scalar),
        cmocka_unit_test(test_paths_equal_texture),
        cmocka_unit_test(test_paths_equal_small),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
