/* test_describe_math.c - the shared per-sample math of orientation and descriptors against plain
 * references: own atan2/sin/cos against libm, clipped Haar responses against naive pixel sums,
 * the weight tables against their formulas and symmetries, the rounding helpers, the float
 * orientation-bin estimate of the CUDA kernel against the exact bin, the orientation's double
 * sums against the integer sums the CUDA kernel forms, and the int32 parts it forms them in. */
#include "describe/angle_math.h"
#include "describe/describe_geom.h"
#include "describe/describe_weights.h"
#include "describe/haar.h"
#include "describe/ori_bin_fast.h"
#include "describe/ori_parts.h"
#include "describe/orientation.h"
#include "describe/scharr.h"
#include "test_util.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void test_atan2_vs_libm(void **state)
{
    (void)state;
    double worst = 0.0;
    /* dense sweep of directions at several radii, plus the axes and diagonals exactly */
    const double radii[] = {1e-9, 1e-3, 1.0, 7.5, 1e4, 1e9};
    for (int r = 0; r < 6; r++)
        for (int i = 0; i <= 400000; i++) {
            const double t = -SATFEAT_AM_PI + 2.0 * SATFEAT_AM_PI * i / 400000.0;
            const double x = radii[r] * cos(t), y = radii[r] * sin(t);
            const double e = fabs(satfeat_am_atan2(y, x) - atan2(y, x));
            if (e > worst && e < SATFEAT_AM_PI) worst = e; /* +-pi at the cut are the same angle */
        }
    test_rng rng;
    test_rng_seed(&rng, 7);
    for (int i = 0; i < 200000; i++) { /* integers like the Haar sums */
        const double x = test_rng_range(&rng, -3000, 3000), y = test_rng_range(&rng, -3000, 3000);
        if (x == 0 && y == 0) continue;
        double e = fabs(satfeat_am_atan2(y, x) - atan2(y, x));
        if (e > SATFEAT_AM_PI) e = fabs(e - 2 * SATFEAT_AM_PI);
        if (e > worst) worst = e;
    }
    printf("atan2: max |error| %.3g rad\n", worst);
    assert_true(worst < 1e-12);
    assert_true(satfeat_am_atan2(0.0, 0.0) == 0.0);
    assert_true(satfeat_am_atan2(NAN, 1.0) == 0.0);
    assert_true(fabs(satfeat_am_atan2(0.0, -1.0) - SATFEAT_AM_PI) < 1e-15);
    assert_true(satfeat_am_atan2(0.0, 5.0) == 0.0);
    /* the [0, 2 pi) variant */
    for (int i = 0; i < 100000; i++) {
        const double t = 2.0 * SATFEAT_AM_PI * i / 100000.0;
        const double a = satfeat_am_angle(sin(t), cos(t));
        assert_true(a >= 0.0 && a < 2.0 * SATFEAT_AM_PI);
        double e = fabs(a - t);
        if (e > SATFEAT_AM_PI) e = fabs(e - 2 * SATFEAT_AM_PI);
        assert_true(e < 1e-12);
    }
    assert_true(satfeat_am_angle(-1e-300, 1.0) < 2.0 * SATFEAT_AM_PI);
}

static void test_sincos_vs_libm(void **state)
{
    (void)state;
    double worst = 0.0;
    for (int i = 0; i <= 2000000; i++) {
        const double a = -20.0 + 40.0 * i / 2000000.0;
        double s, c;
        satfeat_am_sincos(a, &s, &c);
        const double e = fmax(fabs(s - sin(a)), fabs(c - cos(a)));
        if (e > worst) worst = e;
    }
    printf("sincos: max |error| %.3g on [-20, 20]\n", worst);
    assert_true(worst < 1e-12);
    double s, c;
    satfeat_am_sincos(0.0, &s, &c);
    assert_true(s == 0.0 && c == 1.0); /* upright descriptors rely on this */
    satfeat_am_sincos(NAN, &s, &c);
    assert_true(s == 0.0 && c == 1.0);
    satfeat_am_sincos(1e300, &s, &c);
    assert_true(isfinite(s) && isfinite(c));
}

/* Naive clipped box sum over pixels. */
static int64_t naive_box(const uint8_t *img, int w, int h, int x0, int y0, int x1, int y1)
{
    int64_t s = 0;
    for (int y = y0; y < y1; y++)
        for (int x = x0; x < x1; x++)
            if (x >= 0 && x < w && y >= 0 && y < h) s += img[(size_t)y * w + x];
    return s;
}

/* The sizes of the small random images the filters are checked on (1 x 1, thin ones). */
static const int small_sizes[4][2] = {{1, 1}, {37, 23}, {5, 64}, {64, 3}};

/* A random w x h image (*img, malloc'ed) and its reference table (returned, malloc'ed). */
static uint32_t *random_image_table(test_rng *rng, int w, int h, uint8_t **img)
{
    *img = malloc((size_t)w * h);
    assert_non_null(*img);
    test_fill_u8(rng, *img, (size_t)w * h);
    uint32_t *t = malloc((size_t)(w + 1) * (h + 1) * sizeof *t);
    assert_non_null(t);
    test_reference_sat_u8(*img, (size_t)w, w, h, t);
    return t;
}

static void test_haar_vs_naive(void **state)
{
    (void)state;
    test_rng rng;
    test_rng_seed(&rng, 11);
    for (int z = 0; z < 4; z++) {
        const int w = small_sizes[z][0], h = small_sizes[z][1];
        uint8_t *img;
        uint32_t *t = random_image_table(&rng, w, h, &img);
        for (int it = 0; it < 20000; it++) {
            const int cx = test_rng_range(&rng, -15, w + 15), cy = test_rng_range(&rng, -15, h + 15);
            const int half = test_rng_range(&rng, 1, 12);
            int32_t dx, dy;
            satfeat_haar_xy(t, (size_t)w + 1, w, h, cx, cy, half, &dx, &dy);
            const int64_t rdx = naive_box(img, w, h, cx, cy - half, cx + half, cy + half) -
                                naive_box(img, w, h, cx - half, cy - half, cx, cy + half);
            const int64_t rdy = naive_box(img, w, h, cx - half, cy, cx + half, cy + half) -
                                naive_box(img, w, h, cx - half, cy - half, cx + half, cy);
            assert_int_equal(dx, rdx);
            assert_int_equal(dy, rdy);
            const int x0 = test_rng_range(&rng, -20, w + 20), y0 = test_rng_range(&rng, -20, h + 20);
            const int x1 = x0 + test_rng_range(&rng, 0, 30), y1 = y0 + test_rng_range(&rng, 0, 30);
            assert_int_equal(satfeat_haar_box(t, (size_t)w + 1, w, h, x0, y0, x1, y1),
                             naive_box(img, w, h, x0, y0, x1, y1));
        }
        free(img);
        free(t);
    }
    /* wrap-around: a table of a large bright image whose corner entries exceed 2^32 */
    const int w = 3000, h = 3000;
    uint8_t *img = malloc((size_t)w * h);
    assert_non_null(img);
    for (size_t i = 0; i < (size_t)w * h; i++) img[i] = (uint8_t)(i % 7 == 0 ? 0 : 255);
    uint32_t *t = malloc((size_t)(w + 1) * (h + 1) * sizeof *t);
    assert_non_null(t);
    test_reference_sat_u8(img, (size_t)w, w, h, t);
    int32_t dx, dy;
    satfeat_haar_xy(t, (size_t)w + 1, w, h, 2990, 2990, 40, &dx, &dy);
    assert_int_equal(dx, naive_box(img, w, h, 2990, 2950, 3030, 3030) -
                             naive_box(img, w, h, 2950, 2950, 2990, 3030));
    assert_int_equal(dy, naive_box(img, w, h, 2950, 2990, 3030, 3030) -
                             naive_box(img, w, h, 2950, 2950, 3030, 2990));
    free(img);
    free(t);
}

/* The Scharr derivative of half side r at corner (cx, cy) from naive pixel sums: boxes of side
 * 2r, the middle one centred on the corner, weights 3, 10, 3. */
static void naive_scharr(const uint8_t *img, int w, int h, int cx, int cy, int r, int64_t *dx,
                         int64_t *dy)
{
    const int d = 2 * r;
    int64_t b[3][3];
    for (int j = 0; j < 3; j++)
        for (int i = 0; i < 3; i++) {
            const int x = cx - r + (i - 1) * d, y = cy - r + (j - 1) * d;
            b[j][i] = naive_box(img, w, h, x, y, x + d, y + d);
        }
    *dx = 3 * (b[0][2] - b[0][0]) + 10 * (b[1][2] - b[1][0]) + 3 * (b[2][2] - b[2][0]);
    *dy = 3 * (b[2][0] - b[0][0]) + 10 * (b[2][1] - b[0][1]) + 3 * (b[2][2] - b[0][2]);
}

/* satfeat_scharr_xy equals the naive sums, clipped at every border, for half sides 1..12; and at
 * the largest half side on a bright image whose table wraps modulo 2^32. */
static void test_scharr_vs_naive(void **state)
{
    (void)state;
    test_rng rng;
    test_rng_seed(&rng, 12);
    for (int z = 0; z < 4; z++) {
        const int w = small_sizes[z][0], h = small_sizes[z][1];
        uint8_t *img;
        uint32_t *t = random_image_table(&rng, w, h, &img);
        for (int it = 0; it < 20000; it++) {
            const int cx = test_rng_range(&rng, -40, w + 40);
            const int cy = test_rng_range(&rng, -40, h + 40);
            const int r = test_rng_range(&rng, 1, 12);
            int32_t dx, dy;
            int64_t rdx, rdy;
            satfeat_scharr_xy(t, (size_t)w + 1, w, h, cx, cy, r, &dx, &dy);
            naive_scharr(img, w, h, cx, cy, r, &rdx, &rdy);
            assert_int_equal(dx, rdx);
            assert_int_equal(dy, rdy);
        }
        free(img);
        free(t);
    }
    /* the largest side on a full-contrast image: |dx| near its bound, table entries past 2^32 */
    const int w = 3000, h = 3000, r = SATFEAT_SCHARR_MAX_HALF, d = 2 * r;
    uint8_t *img = malloc((size_t)w * h);
    assert_non_null(img);
    for (int y = 0; y < h; y++)
        for (int x = 0; x < w; x++) img[(size_t)y * w + x] = (uint8_t)(x >= 1500 ? 255 : 0);
    uint32_t *t = malloc((size_t)(w + 1) * (h + 1) * sizeof *t);
    assert_non_null(t);
    test_reference_sat_u8(img, (size_t)w, w, h, t);
    int32_t dx, dy;
    int64_t rdx, rdy;
    satfeat_scharr_xy(t, (size_t)w + 1, w, h, 1500 + r, 1500, r, &dx, &dy);
    naive_scharr(img, w, h, 1500 + r, 1500, r, &rdx, &rdy);
    assert_true(rdx == 16LL * 255 * d * d); /* the bound of scharr.h, reached */
    assert_int_equal(dx, rdx);
    assert_int_equal(dy, rdy);
    free(img);
    free(t);
}

/* One filter's orientation samples: offsets of the grid of step `step` (in units of s/2) within
 * radius 6s, row-major, symmetric, with the Gaussian weights rounded to multiples of 2^-14. */
static void check_ori_samples(const satfeat_describe_weights *wp, int step, int expect_n)
{
    const satfeat_describe_weights w = *wp;
    int n = 0;
    for (int j = -12; j <= 12; j++)
        for (int i = -12; i <= 12; i++) n += i * i + j * j < 144 && i % step == 0 && j % step == 0;
    assert_int_equal(n, expect_n);
    assert_int_equal(w.ori_n, n);
    int centre = -1;
    for (int k = n; k < SATFEAT_ORI_SAMPLES; k++) /* past the samples: zero */
        assert_true(w.ori_w[k] == 0.0 && w.ori_i[k] == 0 && w.ori_j[k] == 0);
    for (int k = 0; k < n; k++) {
        const int i = w.ori_i[k], j = w.ori_j[k];
        assert_true(i * i + j * j < 144 && i % step == 0 && j % step == 0);
        if (k > 0) /* row-major order, no duplicates */
            assert_true(j > w.ori_j[k - 1] || (j == w.ori_j[k - 1] && i > w.ori_i[k - 1]));
        /* sigma 2.5s: exp(-((i/2)^2 + (j/2)^2) / (2 * 2.5^2)) */
        const double u = 0.5 * i, v = 0.5 * j;
        /* rounded to the nearest multiple of 2^-14 */
        const double q = w.ori_w[k] * 16384.0;
        assert_true(q == floor(q) && q >= 1.0 && q <= 16384.0);
        assert_true(fabs(w.ori_w[k] - exp(-(u * u + v * v) / (2 * 2.5 * 2.5))) <= 0x1p-15);
        if (i == 0 && j == 0) centre = k;
        /* the mirrored sample (-i, -j) is at index n - 1 - k and has the same weight */
        assert_int_equal(w.ori_i[n - 1 - k], -i);
        assert_int_equal(w.ori_j[n - 1 - k], -j);
        assert_true(w.ori_w[n - 1 - k] == w.ori_w[k]);
    }
    assert_int_equal(centre, n / 2);
    assert_true(w.ori_w[centre] == 1.0);
}

static void test_weights(void **state)
{
    (void)state;
    satfeat_describe_weights w;
    satfeat_describe_weights_init(&w);
    /* orientation: the default is the Scharr filter on the grid of step s (offsets in half
     * units), the Haar filter on the grid of step s/2, both within radius 6s */
    assert_int_equal(w.ori_filter, SATFEAT_ORI_FILTER_SCHARR);
    check_ori_samples(&w, 2, SATFEAT_ORI_SAMPLES_SCHARR);
    satfeat_describe_weights_orientation(&w, SATFEAT_ORI_FILTER_HAAR);
    assert_int_equal(w.ori_filter, SATFEAT_ORI_FILTER_HAAR);
    check_ori_samples(&w, 1, SATFEAT_ORI_SAMPLES);
    satfeat_describe_weights_orientation(&w, SATFEAT_ORI_FILTER_SCHARR);
    check_ori_samples(&w, 2, SATFEAT_ORI_SAMPLES_SCHARR);
    /* descriptor: 9 x 9 subregion weights of sigma 2.5 about the subregion centre */
    const int g = SATFEAT_DESC_SUB;
    assert_int_equal(SATFEAT_DESC_GRID, 3 * SATFEAT_DESC_STEP + SATFEAT_DESC_SUB);
    for (int r = 0; r < g; r++)
        for (int c = 0; c < g; c++) {
            const double v = w.sub_w[r * g + c];
            const double u = c - 4.0, q = r - 4.0;
            assert_true(fabs(v - exp(-(u * u + q * q) / (2 * 2.5 * 2.5))) < 1e-15);
            assert_true(v == w.sub_w[(g - 1 - r) * g + c]);
            assert_true(v == w.sub_w[r * g + (g - 1 - c)]);
            assert_true(v == w.sub_w[c * g + r]);
            assert_true(v > 0.0 && v <= 1.0);
        }
    assert_true(w.sub_w[4 * g + 4] == 1.0);
    /* subregion weights of sigma 1.5 subregions about the window centre */
    for (int q = 0; q < 16; q++) {
        const double u = (q % 4) - 1.5, v = (q / 4) - 1.5;
        assert_true(fabs(w.reg_w[q] - exp(-(u * u + v * v) / (2 * 1.5 * 1.5))) < 1e-15);
        assert_true(w.reg_w[q] == w.reg_w[15 - q]);
    }
    assert_true(w.reg_w[5] > w.reg_w[1] && w.reg_w[1] > w.reg_w[0]);
}

/* The orientation as the CUDA kernel forms it: integer sums of q * dx, q * dy (q = weight * 2^14)
 * per bin and per window, turned into doubles (times 2^-14) only to rank and measure the windows.
 * (long long)(weight * 2^14) truncates: it is the weight only when the weight is a multiple of
 * 2^-14. */
static double orientation_integer(const uint32_t *t, size_t st, int w, int h, double x, double y,
                                  double sigma, const satfeat_describe_weights *wt)
{
    const satfeat_ori_setup o = satfeat_ori_prepare(x, y, sigma, wt);
    long long bx[SATFEAT_ORI_BINS] = {0}, by[SATFEAT_ORI_BINS] = {0};
    for (int k = wt->ori_n - 1; k >= 0; k--) { /* the reverse order, for good measure */
        int32_t dx, dy;
        satfeat_ori_response(t, st, w, h, &o, wt, k, &dx, &dy);
        const double g = wt->ori_w[k];
        const long long q = (long long)(g * 16384.0);
        const int b = satfeat_ori_bin(g * (double)dy, g * (double)dx);
        bx[b] += q * dx;
        by[b] += q * dy;
    }
    double best = -1.0, bsx = 0.0, bsy = 0.0;
    for (int k = 0; k < SATFEAT_ORI_BINS; k++) {
        long long sx = 0, sy = 0;
        for (int m = 0; m < SATFEAT_ORI_WINDOW; m++) {
            sx += bx[(k + m) % SATFEAT_ORI_BINS];
            sy += by[(k + m) % SATFEAT_ORI_BINS];
        }
        const double dx = (double)sx / 16384.0, dy = (double)sy / 16384.0;
        const double n2 = dx * dx + dy * dy;
        if (n2 > best) {
            best = n2;
            bsx = dx;
            bsy = dy;
        }
    }
    const double a = satfeat_am_angle(bsy, bsx);
    if (!wt->ori_refine) return a;
    /* the refinement as the CUDA kernel does it: integer sums of the responses in the window
     * around a, in the reverse order */
    double sn, c;
    satfeat_am_sincos(a, &sn, &c);
    long long rx = 0, ry = 0;
    for (int k = wt->ori_n - 1; k >= 0; k--) {
        int32_t dx, dy;
        satfeat_ori_response(t, st, w, h, &o, wt, k, &dx, &dy);
        const double g = wt->ori_w[k];
        if (satfeat_ori_in_window(g * (double)dx, g * (double)dy, c, sn)) {
            const long long q = (long long)(g * 16384.0);
            rx += q * dx;
            ry += q * dy;
        }
    }
    return satfeat_ori_refined(a, (double)rx / 16384.0, (double)ry / 16384.0);
}

/* The CPU orientation (double sums in sample order) equals the integer sums bit for bit, on a
 * 3000 x 3000 image of full-contrast stripes and noise, at scales up to 240 (Haar half side
 * 360, responses up to 6.6e7; Scharr side up to the cap of 512), for both filters: the weights
 * make every sum exact (orientation.h). With unrounded weights the two differ. */
static void test_orientation_sums_exact(void **state)
{
    /* with and without the refinement (describe_weights.h, ori_refine) */
    (void)state;
    const int w = 3000, h = 3000;
    uint8_t *img = malloc((size_t)w * h);
    assert_non_null(img);
    test_rng rng;
    test_rng_seed(&rng, 23);
    for (int y = 0; y < h; y++)
        for (int x = 0; x < w; x++) {
            const int stripe = ((x / 97) + (y / 131)) & 1;
            img[(size_t)y * w + x] = (uint8_t)(stripe ? 255 - test_rng_range(&rng, 0, 40)
                                                     : test_rng_range(&rng, 0, 40));
        }
    uint32_t *t = malloc((size_t)(w + 1) * (h + 1) * sizeof *t);
    assert_non_null(t);
    test_reference_sat_u8(img, (size_t)w, w, h, t);
    satfeat_describe_weights wt;
    satfeat_describe_weights_init(&wt);
    int checked = 0;
    for (int it = 0; it < 600; it++) {
        /* both filters; at scales above 204.6 the Scharr side is capped at 512 */
        satfeat_describe_weights_orientation(&wt, it & 1 ? SATFEAT_ORI_FILTER_HAAR
                                                         : SATFEAT_ORI_FILTER_SCHARR);
        wt.ori_refine = it % 3 != 0;
        const double sigma = it < 200 ? test_rng_range(&rng, 1, 20) + 0.37
                                      : test_rng_range(&rng, 20, 240) + 0.61;
        const double x = test_rng_range(&rng, -50, w + 50) + 0.25;
        const double y = test_rng_range(&rng, -50, h + 50) + 0.75;
        const double a = satfeat_orientation(t, (size_t)w + 1, w, h, x, y, sigma, &wt);
        const double b = orientation_integer(t, (size_t)w + 1, w, h, x, y, sigma, &wt);
        if (memcmp(&a, &b, sizeof a) != 0) {
            fprintf(stderr, "orientation (%g, %g, %g): %.17g, integer sums %.17g\n", x, y, sigma,
                    a, b);
            fail();
        }
        checked++;
    }
    assert_int_equal(checked, 600);
    free(img);
    free(t);
}

/* Checks one weighted response's parts (ori_parts.h) against their definition. */
static void check_parts(int64_t v)
{
    const int32_t lo = satfeat_ori_lo(v), hi = satfeat_ori_hi(v, lo);
    const int64_t half = (int64_t)1 << (SATFEAT_ORI_LO_BITS - 1);
    if (!(lo >= -half && lo < half) || satfeat_ori_join(hi, lo) != v ||
        (hi == 0) != (v >= -half && v < half) || (v - lo) % (2 * half) != 0 ||
        hi > (1 << 22) || hi < -(1 << 22)) {
        fprintf(stderr, "v %lld: lo %d hi %d\n", (long long)v, lo, hi);
        fail();
    }
}

/* The CUDA orientation's int32 parts: every response v = q * d (|q| <= 2^14, |d| <= 2.04e9)
 * is hi * 2^23 + lo with lo in [-2^22, 2^22) and hi = 0 exactly when v is in that range; and the
 * parts of 437 responses of the largest magnitude, or of any signs, sum without leaving an int32
 * to the parts of the sum. */
static void test_ori_parts(void **state)
{
    (void)state;
    const int64_t qmax = (int64_t)1 << SATFEAT_ORI_WEIGHT_BITS, dmax = 2040000000;
    const int64_t half = (int64_t)1 << (SATFEAT_ORI_LO_BITS - 1);
    const int64_t edges[] = {0, 1, -1, half - 1, half, half + 1, -half, -half - 1, -half + 1,
                             2 * half, -2 * half, qmax * dmax, -qmax * dmax, qmax * dmax - 1};
    for (size_t i = 0; i < sizeof edges / sizeof edges[0]; i++) check_parts(edges[i]);
    test_rng rng;
    test_rng_seed(&rng, 71);
    for (int it = 0; it < 2000000; it++) {
        const int64_t q = test_rng_range(&rng, 0, (int)qmax);
        const int64_t d = (int64_t)(test_rng_next(&rng) % (uint64_t)(2 * dmax + 1)) - dmax;
        check_parts(it % 4 == 0 ? q * (d >> test_rng_range(&rng, 0, 30)) : q * d);
    }
    for (int mix = 0; mix < 4000; mix++) { /* 437 responses: all extreme, or random signs */
        int64_t sum = 0, lo_sum = 0, hi_sum = 0;
        for (int k = 0; k < SATFEAT_ORI_SAMPLES; k++) {
            int64_t v = qmax * dmax;
            if (mix == 1 || (mix > 3 && (test_rng_next(&rng) & 1))) v = -v;
            if (mix == 2) v = -half;
            if (mix == 3) v = half - 1;
            if (mix > 3 && (test_rng_next(&rng) & 3) != 0)
                v = (v / qmax) * test_rng_range(&rng, 0, (int)qmax) - test_rng_range(&rng, 0, 9);
            const int32_t lo = satfeat_ori_lo(v);
            sum += v;
            lo_sum += lo;
            hi_sum += satfeat_ori_hi(v, lo);
        }
        assert_true(lo_sum >= INT32_MIN && lo_sum <= INT32_MAX);
        assert_true(hi_sum >= INT32_MIN && hi_sum <= INT32_MAX);
        assert_true(satfeat_ori_join((int32_t)hi_sum, (int32_t)lo_sum) == sum);
    }
}

static void test_geometry_rounding(void **state)
{
    (void)state;
    assert_int_equal(satfeat_dg_half(4.0 * 1.2), 2);  /* side 4.8 -> 4 */
    assert_int_equal(satfeat_dg_half(4.0 * 1.6), 3);  /* side 6.4 -> 6 */
    assert_int_equal(satfeat_dg_half(2.0 * 1.2), 1);  /* side 2.4 -> 2 */
    assert_int_equal(satfeat_dg_half(0.1), 1);        /* at least 2 */
    assert_int_equal(satfeat_dg_half(2.0 * 2.5), 3);  /* 5 -> half 2.5 rounds up to 3 */
    assert_int_equal(satfeat_dg_corner(10.0), 11);     /* pixel 10 spans corners 10..11 */
    assert_int_equal(satfeat_dg_corner(9.6), 10);
    assert_int_equal(satfeat_dg_corner(9.4), 10);
    assert_int_equal(satfeat_dg_corner(-0.6), 0);
    assert_int_equal(satfeat_dg_corner(NAN), 0);
    assert_int_equal(satfeat_dg_corner(1e30), 268435456);
    assert_int_equal(satfeat_dg_corner(-1e30), -268435456);
    assert_true(satfeat_dg_scale(NAN) == 1.0);
    assert_true(satfeat_dg_scale(1e9) == 1000.0);
    assert_true(satfeat_dg_scale(-3) == 0.5);
    assert_true(satfeat_dg_scale(2.4) == 2.4);
}

/* One (dx, dy): where the estimate answers, it must be the exact bin for every weight tried
 * (the kernel's weights lie in [0.057, 1]); counts the answers in *decided. */
static void check_bin(int32_t dx, int32_t dy, long *decided)
{
    static const double g[3] = {1.0, 0.0571209064112622, 0.7117703227626097};
    const int e = satfeat_ori_bin_estimate(dx, dy);
    if (e < 0) return;
    ++*decided;
    for (int i = 0; i < 3; i++) {
        const int x = satfeat_ori_bin(g[i] * (double)dy, g[i] * (double)dx);
        if (x != e) {
            fprintf(stderr, "bin estimate (%d, %d): %d, exact %d (g %.17g)\n", (int)dx, (int)dy, e,
                    x, g[i]);
            fail();
        }
    }
}

/* The response (round(r cos a), round(r sin a)) clamped to int32. */
static void check_polar(double r, double a, long *decided)
{
    double x = floor(r * cos(a) + 0.5), y = floor(r * sin(a) + 0.5);
    x = x > 2147483647.0 ? 2147483647.0 : (x < -2147483647.0 ? -2147483647.0 : x);
    y = y > 2147483647.0 ? 2147483647.0 : (y < -2147483647.0 ? -2147483647.0 : y);
    check_bin((int32_t)x, (int32_t)y, decided);
}

static void test_ori_bin_estimate(void **state)
{
    (void)state;
    long decided = 0, tried = 0;
    for (int32_t dy = -400; dy <= 400; dy++) /* every small response */
        for (int32_t dx = -400; dx <= 400; dx++, tried++) check_bin(dx, dy, &decided);
    printf("small responses: %ld of %ld decided by the estimate\n", decided, tried);
    assert_true(decided > tried * 95 / 100);
    /* close to every boundary (5 degree steps), at magnitudes up to the int32 range */
    const double rs[6] = {50.0, 1e3, 1e5, 1e7, 1e9, 2.1e9};
    long near = 0;
    for (int b = 0; b < 72; b++)
        for (int ri = 0; ri < 6; ri++)
            for (int e = 3; e <= 12; e++)
                for (int sgn = -1; sgn <= 1; sgn++) {
                    const double a = (double)b * (SATFEAT_AM_PI / 36.0);
                    check_polar(rs[ri], a + sgn * pow(10.0, -e), &near);
                    check_polar(rs[ri], a + sgn * 3.7 * pow(10.0, -e), &near);
                }
    printf("near boundaries: %ld decided\n", near);
    /* random responses of every magnitude, and the extremes */
    test_rng rng;
    test_rng_seed(&rng, 72);
    long rnd = 0;
    for (int i = 0; i < 2000000; i++) {
        const uint64_t v = test_rng_next(&rng);
        const int shift = (int)(v >> 59); /* 0..31 */
        const int32_t dx = (int32_t)(uint32_t)v >> shift, dy = (int32_t)(uint32_t)(v >> 32) >> shift;
        check_bin(dx, dy, &rnd);
    }
    printf("random responses: %ld of 2000000 decided\n", rnd);
    assert_true(rnd > 2000000L * 9 / 10); /* tiny shifted values sit on axes or diagonals */
    const int32_t ext[6] = {INT32_MIN, INT32_MIN + 1, -1, 0, 1, INT32_MAX};
    long xd = 0;
    for (int i = 0; i < 6; i++)
        for (int j = 0; j < 6; j++) check_bin(ext[i], ext[j], &xd);
    assert_int_equal(satfeat_ori_bin_estimate(0, 0), -1);
    /* the exact bins of the axes and diagonals the estimate answers without the exact path */
    assert_int_equal(satfeat_ori_bin(0.0, 1.0), 0);
    assert_int_equal(satfeat_ori_bin(1.0, 0.0), 18);
    assert_int_equal(satfeat_ori_bin(0.0, -1.0), 36);
    assert_int_equal(satfeat_ori_bin(-1.0, 0.0), 54);
    /* exact diagonals are decided at every magnitude (the exact path sees the ratio 1) */
    const int32_t mag[6] = {1, 2, 7, 400, 65537, INT32_MAX};
    for (int i = 0; i < 6; i++)
        for (int q = 0; q < 4; q++) {
            const int32_t dx = q & 1 ? -mag[i] : mag[i], dy = q & 2 ? -mag[i] : mag[i];
            long dd = 0;
            check_bin(dx, dy, &dd);
            assert_int_equal(dd, 1);
            dd = 0;
            check_bin(dx, 0, &dd); /* and axes */
            check_bin(0, dy, &dd);
            assert_int_equal(dd, 2);
        }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_atan2_vs_libm),
        cmocka_unit_test(test_sincos_vs_libm),
        cmocka_unit_test(test_haar_vs_naive),
        cmocka_unit_test(test_scharr_vs_naive),
        cmocka_unit_test(test_weights),
        cmocka_unit_test(test_orientation_sums_exact),
        cmocka_unit_test(test_ori_parts),
        cmocka_unit_test(test_geometry_rounding),
        cmocka_unit_test(test_ori_bin_estimate),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
