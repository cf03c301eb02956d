/* test_detect_math.c - the shared per-sample math of the detector (scale_space.h, hessian_response.h,
 * extremum_refine.h, frame_plan.h): scale-space geometry and sample rectangles against brute force,
 * box filters against a naive weighted sum, the once-rounded exact response (integer long
 * division against IEEE division, the division through a reciprocal), the chained filters of hessian_chain.h against the per-sample
 * ones, the CUDA detector's per-frame plan, NMS strictness and its two halves, the quadratic fit
 * and keypoint building. */
#include "test_util.h"

#include "detect/extremum_refine.h"
#include "detect/scale_space.h"
#include "detect/frame_plan.h"
#include "detect/layers.h"
#include "detect/hessian_chain.h"
#include "detect/hessian_response.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

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

/* Sample rectangles and the lobe, reach and window macros against brute force / plain formulas. */
static void test_sample_rect_brute_force(void **state)
{
    (void)state;
    for (int o = 0; o < 6; o++)
        for (int i = 0; i < 6; i++) {
            assert_int_equal(satfeat_fh_lobe(o, i), (1 << (o + 1)) * (i + 1) + 1);
            const int l = SATFEAT_FH_LOBE(o, i);
            assert_int_equal(SATFEAT_FH_REACH(l), (satfeat_fh_side(o, i) - 1) / 2);
        }
    /* a tile of 32 centres from k0 = 0, step 2, reach 40: columns -1*2-40 .. 32*2+40+1 */
    assert_int_equal(SATFEAT_FH_WINDOW(32, 2, 40), (32 * 2 + 40 + 1) - (-1 * 2 - 40) + 1);
    for (int w = 1; w <= 70; w += 3)
        for (int h = 1; h <= 70; h += 7)
            for (int step = 1; step <= 8; step *= 2)
                for (int side = 9; side <= 51; side += 6)
                    for (int margin = 0; margin <= 1; margin++) {
                        const int r = (side - 1) / 2;
                        int bx0 = 1 << 30, bx1 = -1, by0 = 1 << 30, by1 = -1;
                        for (int k = 0; k * step < w; k++) /* filter pixels inside the image */
                            if (k * step - r >= 0 && k * step + r <= w - 1) {
                                if (k < bx0) bx0 = k;
                                bx1 = k;
                            }
                        for (int k = 0; k * step < h; k++)
                            if (k * step - r >= 0 && k * step + r <= h - 1) {
                                if (k < by0) by0 = k;
                                by1 = k;
                            }
                        bx0 += margin, bx1 -= margin, by0 += margin, by1 -= margin;
                        const int any = bx1 >= 0 && by1 >= 0 && bx0 <= bx1 && by0 <= by1;
                        satfeat_fh_rect q;
                        assert_int_equal(satfeat_fh_sample_rect(w, h, step, side, margin, &q), any);
                        if (any) {
                            assert_int_equal(q.x0, bx0);
                            assert_int_equal(q.x1, bx1);
                            assert_int_equal(q.y0, by0);
                            assert_int_equal(q.y1, by1);
                        } else {
                            assert_true(q.x0 > q.x1 && q.y0 > q.y1);
                        }
                    }
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

/* The chained filters (hessian_chain.h) against satfeat_fh_filters on every sample of chains one
 * lobe apart down columns, for every step-1 lobe the octave kernel chains and a few more. A
 * table of a random image, so the true box sums fit an int32 as in the detector. */
static void test_chain_matches_filters(void **state)
{
    (void)state;
    enum { W = 120, H = 150 };
    test_rng rng;
    test_rng_seed(&rng, 11);
    uint8_t img[W * H];
    static uint32_t table[(W + 1) * (H + 1)];
    test_fill_u8(&rng, img, sizeof img);
    test_reference_sat_u8(img, W, W, H, table);
    static const int lobes[] = {3, 5, 7, 9, 11, 13, 17, 25};
    size_t compared = 0;
    for (size_t k = 0; k < sizeof lobes / sizeof lobes[0]; k++) {
        const int l = lobes[k], r = (3 * l - 1) / 2;
        for (int x = r; x <= W - 1 - r; x += 7)
            for (int y0 = r; y0 < r + l; y0++) {
                int x_ = x, y_ = y0;
#define CHAIN_READ(R, C) table[(size_t)(y_ + (R)) * (W + 1) + (size_t)(x_ + (C))]
                satfeat_fh_chain c;
                SATFEAT_FH_CHAIN_START(c, CHAIN_READ, l);
                for (;;) {
                    const satfeat_fh_hessian d =
                        satfeat_fh_chain_filters(&c, SATFEAT_FH_CHAIN_DXX(CHAIN_READ, l));
                    const satfeat_fh_hessian e = satfeat_fh_filters(table, W + 1, x_, y_, l);
                    assert_int_equal(d.dxx, e.dxx);
                    assert_int_equal(d.dyy, e.dyy);
                    assert_int_equal(d.dxy, e.dxy);
                    compared++;
                    if (y_ + l > H - 1 - r) break;
                    y_ += l;
                    SATFEAT_FH_CHAIN_NEXT(c, CHAIN_READ, l);
                }
#undef CHAIN_READ
            }
    }
    assert_true(compared > 5000);
}

static int64_t random_i64(test_rng *rng, int bits)
{
    const uint64_t mag = test_rng_next(rng) >> (64 - bits);
    return (test_rng_next(rng) & 1) ? -(int64_t)mag : (int64_t)mag;
}

/* The division through the layer's reciprocal (satfeat_fh_div_rcp) against IEEE division, bit for
 * bit, on every fast layer the detector can build (6 octaves x 6 layers where fast): random
 * integer numerators of every length up to 2^53, numerators next to multiples and half multiples
 * of the denominator (where a quotient lies near an integer or a half), the extremes and both
 * zeros. */
static void test_div_rcp_matches_division(void **state)
{
    (void)state;
    test_rng rng;
    test_rng_seed(&rng, 2026);
    const double two53 = 9007199254740992.0;
    size_t layers = 0;
    for (int o = 0; o < SATFEAT_FH_MAX_OCTAVES; o++)
        for (int i = 0; i < SATFEAT_FH_MAX_LAYERS; i++) {
            const satfeat_fh_norm n = satfeat_fh_layer_norm(satfeat_fh_lobe(o, i));
            if (!n.fast) continue;
            layers++;
            double nums[12] = {0.0, -0.0, 1.0, -1.0, two53, -two53, n.den_d, -n.den_d,
                               two53 - 1.0, 1.0 - two53, 3.0 * n.den_d, 0.5 * n.den_d};
            for (int t = 0; t < 60000 + 12; t++) {
                double num;
                if (t < 12) {
                    num = nums[t];
                } else if (t % 3 == 0) {
                    num = (double)random_i64(&rng, 1 + t % 53);
                } else { /* k * den / 2 + a small offset, kept within 2^53 */
                    const double k = (double)(test_rng_next(&rng) >> 40);
                    double v = floor(k * n.den_d / 2.0) + (double)random_i64(&rng, 1 + t % 8);
                    if (!(fabs(v) <= two53)) v = fmod(v, two53);
                    num = (test_rng_next(&rng) & 1) ? -v : v;
                }
                if (!(fabs(num) <= two53) || num != floor(num)) continue;
                const double want = num / n.den_d;
                const double got = satfeat_fh_div_rcp(num, n.den_d, n.rcp_d);
                assert_memory_equal(&got, &want, sizeof got);
            }
        }
    assert_true(layers >= 16);
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

/* The CUDA detector's per-frame plan (built on the host, so tested here): every block's shared
 * memory within the kernel's maximum, tiles covering each octave's NMS range, tall tiles only
 * on fixed step-1 octaves, fixed window strides 4 modulo 8 words, and the default
 * configuration at 1080p on the fast paths (octave 0 tall, octave 1 split). */
static void test_octave_plan(void **state)
{
    (void)state;
    satfeat_ctx *ctx = NULL;
    assert_int_equal(satfeat_ctx_new(&ctx, SATFEAT_BACKEND_CPU, 0), SATFEAT_OK);
    static const int sizes[][2] = {{1920, 1080}, {640, 480}, {97, 61}, {3840, 2160}};
    for (int k = 0; k < 6; k++)
        for (size_t z = 0; z < sizeof sizes / sizeof sizes[0]; z++) {
            satfeat_detector_params p = satfeat_detector_params_default();
            if (k == 1) p.layers = 4;
            if (k == 2) p.layers = 3;
            if (k == 3) p.layers = 5, p.octaves = 5;
            if (k == 4) p.init_step = 2;
            if (k == 5) p.octaves = 6;
            const int w = sizes[z][0], h = sizes[z][1];
            satfeat_fh_layer layers[SATFEAT_FH_MAX_LAYER_RECORDS];
            satfeat_fh_layers_init(&p, layers);
            satfeat_fh_plan plan;
            satfeat_fh_plan_build(&p, layers, 0, w, h, (size_t)w + 32, &plan);
            assert_true(plan.smem_bytes <= SATFEAT_FH_SMEM_MAX);
            int blocks = 0;
            for (int o = 0; o < plan.n_oct; o++) {
                const satfeat_fh_plan_octave *oc = &plan.oct[o];
                /* room for the response tiles and, after them, the window or the NMS lists */
                const size_t resp = (size_t)p.layers * (SATFEAT_FH_TILE_X + 2) *
                                    (size_t)(oc->tile_h + 2) * sizeof(double);
                assert_true(plan.smem_bytes >= resp + SATFEAT_FH_NMS_LIST_BYTES);
                assert_true(plan.smem_bytes >= resp + (size_t)oc->win_w * oc->win_h * 4u);
                const satfeat_fh_plan_map *m1 = &plan.maps[oc->octave * p.layers + 1];
                assert_int_equal(oc->first, blocks);
                blocks += oc->tiles_x * oc->tiles_y;
                assert_true(oc->kx0 + oc->tiles_x * SATFEAT_FH_TILE_X > m1->nx1);
                assert_true(oc->ky0 + oc->tiles_y * oc->tile_h > m1->ny1);
                if (oc->tile_h == SATFEAT_FH_TILE_Y_TALL)
                    assert_true(oc->fixed && oc->step == 1);
                else
                    assert_int_equal(oc->tile_h, SATFEAT_FH_TILE_Y);
                if (oc->fixed) assert_int_equal(oc->win_w % 8, 4);
                if (oc->split) assert_true(oc->fixed && oc->step == 2);
                const int defaults = k == 0 && w == 1920;
                if (defaults && oc->octave == 0)
                    assert_true(oc->fixed && oc->tile_h == SATFEAT_FH_TILE_Y_TALL);
                if (defaults && oc->octave == 1) assert_true(oc->fixed && oc->split);
            }
            assert_int_equal(plan.blocks, blocks);
            /* the launch order is a permutation; the coarse blocks (read through L1) keep their
             * order and go first unless spread (a CPU context counts no SMs: spread whenever
             * there are coarse blocks) */
            int coarse = 0;
            for (int o = 0; o < plan.n_oct && plan.oct[o].win_w == 0; o++)
                coarse += plan.oct[o].tiles_x * plan.oct[o].tiles_y;
            assert_int_equal(plan.coarse_blocks, coarse);
            assert_true(plan.coarse_stride >= 1);
            if (coarse > 0 && coarse < blocks) assert_true(plan.coarse_stride > 1);
            unsigned char *seen = calloc((size_t)blocks + 1, 1);
            assert_non_null(seen);
            int last_coarse = -1, last_staged = coarse - 1;
            for (int b = 0; b < blocks; b++) {
                const int v = satfeat_fh_block_slot(&plan, b);
                assert_true(v >= 0 && v < blocks && !seen[v]);
                seen[v] = 1;
                if (v < coarse) assert_int_equal(v, ++last_coarse);
                else assert_int_equal(v, ++last_staged);
            }
            free(seen);
        }
    satfeat_ctx_delete(ctx);
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

/* The plain definition of a strict 3x3x3 maximum: the centre compares greater than each of
 * its 26 neighbours (a NaN anywhere, or a tie, suppresses). */
static int plain_is_max(double *const layers[3])
{
    const double v = layers[1][4];
    for (int j = 0; j < 3; j++)
        for (int k = 0; k < 9; k++)
            if (!(j == 1 && k == 4) && !(v > layers[j][k])) return 0;
    return 1;
}

/* The NMS in two halves (satfeat_fh_is_max_two, the CUDA detector's test before the outer
 * layers exist): on random 3x3x3 neighbourhoods with many ties and NaNs, the full test is
 * exactly the conjunction of the two halves, and both agree with the plain definition. */
static void test_nms_halves(void **state)
{
    (void)state;
    test_rng r;
    test_rng_seed(&r, 333);
    static const double vals[] = {0.0, 1.0, 2.0, 3.0, NAN};
    int maxima = 0;
    for (int it = 0; it < 200000; it++) {
        double lo[9], mid[9], hi[9];
        double *layers[3] = {lo, mid, hi};
        for (int j = 0; j < 3; j++)
            for (int k = 0; k < 9; k++) { /* 3 (a tie with the centre) or NaN one time in 32 */
                const uint64_t u = test_rng_next(&r);
                layers[j][k] = vals[(u & 31u) == 0 ? 3u + (unsigned)((u >> 5) & 1u) : (unsigned)((u >> 6) % 3u)];
            }
        if (it % 3 == 0) mid[4] = 3.0; /* often a candidate */
        const int full = satfeat_fh_is_max(lo + 4, mid + 4, hi + 4, 3);
        const int below = satfeat_fh_is_max_two(mid + 4, lo + 4, 3);
        const int above = satfeat_fh_is_max_two(mid + 4, hi + 4, 3);
        assert_int_equal(full, below && above);
        assert_int_equal(full, plain_is_max(layers));
        maxima += full;
    }
    assert_true(maxima > 1000 && maxima < 190000); /* the test saw both answers */
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

/* satfeat_fh_build_keypoint against the plain formulas of its fields (DESIGN.md). */
static void test_build_keypoint_reference(void **state)
{
    (void)state;
    enum { W = 120, H = 100 };
    test_rng rng;
    test_rng_seed(&rng, 11);
    uint8_t img[W * H];
    uint32_t table[(W + 1) * (H + 1)];
    test_fill_u8(&rng, img, sizeof img);
    test_reference_sat_u8(img, W, W, H, table);
    const double a = 0.25, b = -0.125, c = 0.375;
    double m[3][9];
    for (int s = -1; s <= 1; s++)
        for (int y = -1; y <= 1; y++)
            for (int x = -1; x <= 1; x++) {
                const double dx = x - a, dy = y - b, ds = s - c;
                m[s + 1][(y + 1) * 3 + x + 1] = 5 - dx * dx - 2 * dy * dy - 0.5 * ds * ds;
            }
    const satfeat_fh_kp_layer ly = {1, 1, satfeat_fh_lobe(1, 1), satfeat_fh_side(1, 1),
                                    satfeat_fh_side_step(1), satfeat_fh_step(1, 1)};
    satfeat_fh_kp_rules rules = {0.5, 0, 4, 1, W, H};
    const int kx = 25, ky = 20; /* pixel (50, 40), lobe 9: inside */
    satfeat_keypoint kp;
    memset(&kp, 0x5A, sizeof kp);
    assert_true(satfeat_fh_build_keypoint(m[0] + 4, m[1] + 4, m[2] + 4, 3, kx, ky, &ly, &rules,
                                          table, W + 1, &kp));
    assert_true(fabs(kp.x - (kx + a) * 2) < 1e-12 && fabs(kp.y - (ky + b) * 2) < 1e-12);
    assert_true(fabs(kp.size - (27 + c * 12)) < 1e-12);
    assert_true(fabs(kp.sigma - kp.size * 1.2 / 9) < 1e-12);
    assert_true(kp.response == m[1][4]);
    /* the Laplacian sign from the naive weighted sums at pixel (50, 40) */
    long tr = 0;
    const int l = ly.lobe, r = (3 * l - 1) / 2;
    for (int dy = -r; dy <= r; dy++)
        for (int dx = -r; dx <= r; dx++)
            tr += (long)(weight_dyy(dx, dy, l) + weight_dyy(dy, dx, l)) *
                  img[(40 + dy) * W + 50 + dx];
    assert_int_equal(kp.laplacian, tr > 0 ? 1 : (tr < 0 ? -1 : 0));
    assert_int_equal(kp.octave, 1);
    assert_int_equal(kp.layer, 1);
    assert_int_equal(kp.sample_x, kx);
    assert_int_equal(kp.sample_y, ky);
    /* a fit beyond max_offset is dropped */
    rules.max_offset = 0.3;
    assert_false(satfeat_fh_build_keypoint(m[0] + 4, m[1] + 4, m[2] + 4, 3, kx, ky, &ly, &rules,
                                           table, W + 1, &kp));
    /* ownership: a size at the start of octave 2's range goes to octave 2 when it can see the
     * point (unique_scales 1), and stays with octave 1 otherwise */
    const satfeat_fh_kp_layer big = {1, 2, satfeat_fh_lobe(1, 2), satfeat_fh_side(1, 2),
                                     satfeat_fh_side_step(1), satfeat_fh_step(1, 1)};
    rules.max_offset = 0.5;
    rules.unique_scales = 1;
    const double start = satfeat_fh_side(2, 1) - satfeat_fh_side_step(2) / 2; /* 39 */
    const int owned = satfeat_fh_build_keypoint(m[0] + 4, m[1] + 4, m[2] + 4, 3, kx, ky, &big,
                                                &rules, table, W + 1, &kp);
    const double size = satfeat_fh_side(1, 2) + c * satfeat_fh_side_step(1); /* 43.5 */
    assert_true(size >= start);
    int x0, x1, y0, y1; /* octave 2's NMS samples, step 4, from the side of its layer 2 */
    const int seen = satfeat_fh_sample_range(W, 4, satfeat_fh_side(2, 2), 1, &x0, &x1) &&
                     satfeat_fh_sample_range(H, 4, satfeat_fh_side(2, 2), 1, &y0, &y1) &&
                     (kx + a) * 2 >= x0 * 4 && (kx + a) * 2 <= x1 * 4 &&
                     (ky + b) * 2 >= y0 * 4 && (ky + b) * 2 <= y1 * 4;
    assert_int_equal(owned, !seen);
    rules.unique_scales = 0;
    assert_true(satfeat_fh_build_keypoint(m[0] + 4, m[1] + 4, m[2] + 4, 3, kx, ky, &big, &rules,
                                          table, W + 1, &kp));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_geometry),
        cmocka_unit_test(test_sample_rect_brute_force),
        cmocka_unit_test(test_build_keypoint_reference),
        cmocka_unit_test(test_filters_against_naive),
        cmocka_unit_test(test_chain_matches_filters),
        cmocka_unit_test(test_quotient_is_correctly_rounded),
        cmocka_unit_test(test_div_rcp_matches_division),
        cmocka_unit_test(test_fast_path_matches_integer_path),
        cmocka_unit_test(test_octave_plan),
        cmocka_unit_test(test_nms_is_strict),
        cmocka_unit_test(test_nms_halves),
        cmocka_unit_test(test_fit_recovers_quadratic_peak),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
