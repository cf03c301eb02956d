/* test_motion_solvers.c - track/ internals: small linear algebra against plain references,
 * minimal and least-squares motion solvers on exact data, PRNG / sampling, MSAC scoring. */
#include "test_util.h"

#include "track/linalg_small.h"
#include "track/motion_sampling.h"
#include "track/motion_score.h"
#include "track/motion_solvers.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Uniform double in [lo, hi). */
static double urand(test_rng *r, double lo, double hi)
{
    return lo + (hi - lo) * (double)(test_rng_next(r) >> 11) * (1.0 / 9007199254740992.0);
}

/* Random orthogonal n x n matrix: Gram-Schmidt of random columns (plain reference code). */
static void random_orthogonal(test_rng *r, int n, double *q)
{
    for (int j = 0; j < n; j++) {
        double c[9];
        for (int i = 0; i < n; i++) c[i] = urand(r, -1, 1);
        for (int pass = 0; pass < 2; pass++)
            for (int k = 0; k < j; k++) {
                double d = 0;
                for (int i = 0; i < n; i++) d += c[i] * q[i * n + k];
                for (int i = 0; i < n; i++) c[i] -= d * q[i * n + k];
            }
        double nn = 0;
        for (int i = 0; i < n; i++) nn += c[i] * c[i];
        nn = sqrt(nn);
        for (int i = 0; i < n; i++) q[i * n + j] = c[i] / nn;
    }
}

static void test_null_vector(void **state)
{
    (void)state;
    test_rng r;
    test_rng_seed(&r, 11);
    for (int trial = 0; trial < 200; trial++) {
        /* rows with a known null vector v0: random rows with their v0 component projected out */
        double v0[9], a[8 * 9], v[9], n2 = 0;
        for (int j = 0; j < 9; j++) {
            v0[j] = urand(&r, -1, 1);
            n2 += v0[j] * v0[j];
        }
        for (int j = 0; j < 9; j++) v0[j] /= sqrt(n2);
        for (int i = 0; i < 8; i++) {
            double d = 0;
            for (int j = 0; j < 9; j++) d += (a[i * 9 + j] = urand(&r, -2, 2)) * v0[j];
            for (int j = 0; j < 9; j++) a[i * 9 + j] -= d * v0[j];
        }
        assert_int_equal(satfeat_lin_null_vector(a, 8, 9, 1e-12, v), 0);
        const double sgn = v[0] * v0[0] < 0 ? -1.0 : 1.0;
        for (int j = 0; j < 9; j++) assert_true(fabs(v[j] - sgn * v0[j]) < 1e-10);
    }
    /* rank 7: two null directions -> -1 */
    double a[8 * 9], v[9];
    for (int i = 0; i < 8; i++)
        for (int j = 0; j < 9; j++) a[i * 9 + j] = (j < 7 && i < 7) ? (i == j ? 1.0 : 0.1) : 0.0;
    assert_int_equal(satfeat_lin_null_vector(a, 8, 9, 1e-12, v), -1);
}

static void test_sym_eigen(void **state)
{
    (void)state;
    test_rng r;
    test_rng_seed(&r, 12);
    for (int n = 2; n <= 9; n++)
        for (int trial = 0; trial < 20; trial++) {
            double q[81], lam[9], a[81], w[9], v[81];
            random_orthogonal(&r, n, q);
            for (int i = 0; i < n; i++) lam[i] = urand(&r, -5, 5);
            if (trial == 0) lam[0] = lam[1] = 0.5; /* a repeated eigenvalue */
            for (int i = 0; i < n; i++)
                for (int j = 0; j < n; j++) {
                    double s = 0;
                    for (int k = 0; k < n; k++) s += q[i * n + k] * lam[k] * q[j * n + k];
                    a[i * n + j] = s;
                }
            /* sort the reference eigenvalues ascending (insertion sort) */
            for (int i = 1; i < n; i++)
                for (int j = i; j > 0 && lam[j] < lam[j - 1]; j--) {
                    double t = lam[j];
                    lam[j] = lam[j - 1];
                    lam[j - 1] = t;
                }
            satfeat_lin_sym_eigen(a, n, w, v);
            for (int i = 0; i < n; i++) assert_true(fabs(w[i] - lam[i]) < 1e-12 * 10);
            for (int c = 0; c < n; c++) { /* A v = w v, V^T V = I */
                for (int i = 0; i < n; i++) {
                    double s = 0;
                    for (int k = 0; k < n; k++) s += a[i * n + k] * v[k * n + c];
                    assert_true(fabs(s - w[c] * v[i * n + c]) < 1e-12 * 20);
                }
                for (int d = 0; d < n; d++) {
                    double s = 0;
                    for (int k = 0; k < n; k++) s += v[k * n + c] * v[k * n + d];
                    assert_true(fabs(s - (c == d ? 1.0 : 0.0)) < 1e-13 * 20);
                }
            }
        }
}

static void test_cholesky_and_mat3(void **state)
{
    (void)state;
    test_rng r;
    test_rng_seed(&r, 13);
    for (int n = 1; n <= 9; n++) {
        double b[81], a[81], x[9], rhs[9];
        for (int i = 0; i < n * n; i++) b[i] = urand(&r, -1, 1);
        for (int i = 0; i < n; i++)
            for (int j = 0; j < n; j++) {
                double s = i == j ? 0.5 : 0.0;
                for (int k = 0; k < n; k++) s += b[k * n + i] * b[k * n + j];
                a[i * n + j] = s;
            }
        for (int i = 0; i < n; i++) x[i] = urand(&r, -3, 3);
        for (int i = 0; i < n; i++) {
            double s = 0;
            for (int k = 0; k < n; k++) s += a[i * n + k] * x[k];
            rhs[i] = s;
        }
        assert_int_equal(satfeat_lin_cholesky_solve(a, n, rhs), 0);
        for (int i = 0; i < n; i++) assert_true(fabs(rhs[i] - x[i]) < 1e-9);
    }
    const double indef[4] = {1, 2, 2, 1};
    double bb[2] = {7, 8};
    assert_int_equal(satfeat_lin_cholesky_solve(indef, 2, bb), -1);
    assert_true(bb[0] == 7 && bb[1] == 8);

    const double m[9] = {2, 1, 0.5, -1, 3, 2, 0.25, 0, 1}, sing[9] = {1, 2, 3, 2, 4, 6, 0, 1, 1};
    double inv[9], prod[9];
    assert_int_equal(satfeat_lin_mat3_inverse(m, inv), 0);
    satfeat_lin_mat3_mul(m, inv, prod);
    for (int i = 0; i < 9; i++) assert_true(fabs(prod[i] - (i % 4 == 0 ? 1.0 : 0.0)) < 1e-14);
    assert_int_equal(satfeat_lin_mat3_inverse(sing, inv), -1);
}

/* Maps (x, y) through h. */
static void apply(const double *h, double x, double y, double *u, double *v)
{
    const double w = h[6] * x + h[7] * y + h[8];
    *u = (h[0] * x + h[1] * y + h[2]) / w;
    *v = (h[3] * x + h[4] * y + h[5]) / w;
}

/* Max |a/a8 - b/b8| over the entries. */
static double h_diff(const double *a, const double *b)
{
    double d = 0;
    for (int i = 0; i < 9; i++) d = fmax(d, fabs(a[i] / a[8] - b[i] / b[8]));
    return d;
}

static void random_model(test_rng *r, satfeat_motion_model model, double *h)
{
    const double ang = urand(r, -0.5, 0.5), sc = urand(r, 0.7, 1.4);
    h[0] = sc * cos(ang), h[1] = -sc * sin(ang), h[2] = urand(r, -0.3, 0.3);
    h[3] = sc * sin(ang), h[4] = sc * cos(ang), h[5] = urand(r, -0.3, 0.3);
    h[6] = 0, h[7] = 0, h[8] = 1;
    if (model != SATFEAT_MOTION_SIMILARITY) {
        h[0] += urand(r, -0.2, 0.2), h[1] += urand(r, -0.2, 0.2);
        h[3] += urand(r, -0.2, 0.2), h[4] += urand(r, -0.2, 0.2);
    }
    if (model == SATFEAT_MOTION_HOMOGRAPHY)
        h[6] = urand(r, -0.15, 0.15), h[7] = urand(r, -0.15, 0.15);
}

static void test_minimal_solvers_exact(void **state)
{
    (void)state;
    test_rng r;
    test_rng_seed(&r, 14);
    const satfeat_motion_model models[3] = {SATFEAT_MOTION_HOMOGRAPHY, SATFEAT_MOTION_AFFINE,
                                            SATFEAT_MOTION_SIMILARITY};
    for (int mi = 0; mi < 3; mi++) {
        const int m = satfeat_motion_model_sample_size(models[mi]);
        int solved = 0;
        for (int trial = 0; trial < 500; trial++) {
            double h[9], est[9], sx[4], sy[4], dx[4], dy[4];
            random_model(&r, models[mi], h);
            for (int i = 0; i < m; i++) {
                sx[i] = urand(&r, -1.5, 1.5), sy[i] = urand(&r, -1.5, 1.5);
                apply(h, sx[i], sy[i], &dx[i], &dy[i]);
            }
            if (satfeat_motion_solve_minimal(models[mi], sx, sy, dx, dy, est) != 0) continue;
            solved++;
            assert_true(h_diff(est, h) < 1e-9);
            if (models[mi] != SATFEAT_MOTION_HOMOGRAPHY)
                assert_true(est[6] == 0 && est[7] == 0 && est[8] == 1);
        }
        assert_true(solved > 400); /* only thin random triangles are rejected */
    }
    /* degenerate samples: collinear, coincident, mirrored */
    const double lx[4] = {0, 1, 2, 3}, ly[4] = {0, 0.5, 1, 1.5};
    const double qx[4] = {0, 1, 1, 0}, qy[4] = {0, 0, 1, 1};
    const double mx[4] = {0, -1, -1, 0}; /* the square mirrored in x */
    double est[9];
    assert_int_equal(satfeat_motion_solve_minimal(SATFEAT_MOTION_HOMOGRAPHY, lx, ly, qx, qy, est),
                     -1);
    assert_int_equal(satfeat_motion_solve_minimal(SATFEAT_MOTION_HOMOGRAPHY, qx, qy, lx, ly, est),
                     -1);
    assert_int_equal(satfeat_motion_solve_minimal(SATFEAT_MOTION_HOMOGRAPHY, qx, qy, mx, qy, est),
                     -1);
    assert_int_equal(satfeat_motion_solve_minimal(SATFEAT_MOTION_HOMOGRAPHY, qx, qy, qx, qy, est),
                     0);
    assert_int_equal(satfeat_motion_solve_minimal(SATFEAT_MOTION_AFFINE, lx, ly, qx, qy, est), -1);
    assert_int_equal(satfeat_motion_solve_minimal(SATFEAT_MOTION_AFFINE, qx, qy, mx, qy, est), -1);
    const double cx[2] = {1, 1}, cy[2] = {2, 2};
    assert_int_equal(satfeat_motion_solve_minimal(SATFEAT_MOTION_SIMILARITY, cx, cy, qx, qy, est),
                     -1);
}

static void test_least_squares_exact(void **state)
{
    (void)state;
    test_rng r;
    test_rng_seed(&r, 15);
    enum { N = 60 };
    double sx[N], sy[N], dx[N], dy[N];
    uint32_t idx[N];
    for (int i = 0; i < N; i++) idx[i] = (uint32_t)i;
    const motion_points p = {sx, sy, dx, dy, N};
    const satfeat_motion_model models[3] = {SATFEAT_MOTION_HOMOGRAPHY, SATFEAT_MOTION_AFFINE,
                                            SATFEAT_MOTION_SIMILARITY};
    for (int mi = 0; mi < 3; mi++)
        for (int trial = 0; trial < 50; trial++) {
            double h[9], est[9];
            random_model(&r, models[mi], h);
            for (int i = 0; i < N; i++) {
                sx[i] = urand(&r, -1.5, 1.5), sy[i] = urand(&r, -1.5, 1.5);
                apply(h, sx[i], sy[i], &dx[i], &dy[i]);
            }
            assert_int_equal(satfeat_motion_fit_linear(models[mi], &p, idx, N, est), 0);
            assert_true(h_diff(est, h) < 1e-9);
        }
    /* LM: from a perturbed start on exact data it converges to the true homography; on noisy
     * data it never increases the forward error of the linear fit */
    for (int trial = 0; trial < 30; trial++) {
        double h[9], est[9];
        random_model(&r, SATFEAT_MOTION_HOMOGRAPHY, h);
        for (int i = 0; i < N; i++) {
            sx[i] = urand(&r, -1.5, 1.5), sy[i] = urand(&r, -1.5, 1.5);
            apply(h, sx[i], sy[i], &dx[i], &dy[i]);
        }
        for (int i = 0; i < 9; i++) est[i] = h[i] / h[8] + (i < 8 ? urand(&r, -0.01, 0.01) : 0);
        assert_true(satfeat_motion_refine_homography(&p, est, 50, 0.0) > 0);
        assert_true(h_diff(est, h) < 1e-9);
        for (int i = 0; i < N; i++)
            dx[i] += urand(&r, -0.01, 0.01), dy[i] += urand(&r, -0.01, 0.01);
        assert_int_equal(satfeat_motion_fit_linear(SATFEAT_MOTION_HOMOGRAPHY, &p, idx, N, est), 0);
        const double before = satfeat_motion_msac_cost(est, 1, &p, INFINITY, INFINITY, NULL);
        assert_true(satfeat_motion_refine_homography(&p, est, 20, 0.0) >= 0);
        const double after = satfeat_motion_msac_cost(est, 1, &p, INFINITY, INFINITY, NULL);
        assert_true(after <= before);
        /* the RMS-gain stop from the linear fit: no higher error than that fit (but the
         * rounding of scaling it to h[8] = 1), and the result within a small fraction of the
         * noise (0.01) of the fully iterated one */
        double quick[9];
        assert_int_equal(satfeat_motion_fit_linear(SATFEAT_MOTION_HOMOGRAPHY, &p, NULL, N, quick),
                         0);
        const int full_steps = satfeat_motion_refine_homography(&p, est, 20, 0.0);
        const int quick_steps = satfeat_motion_refine_homography(&p, quick, 20, 1e-4);
        assert_true(quick_steps >= 0 && full_steps >= 0);
        assert_true(satfeat_motion_msac_cost(quick, 1, &p, INFINITY, INFINITY, NULL) <=
                    before * (1.0 + 1e-12));
        assert_true(h_diff(quick, est) < 1e-3);
    }
    /* collinear points do not determine an affine map or a homography */
    for (int i = 0; i < N; i++)
        sx[i] = i * 0.01, sy[i] = 2 * i * 0.01, dx[i] = sx[i], dy[i] = sy[i];
    double est[9];
    assert_int_equal(satfeat_motion_fit_linear(SATFEAT_MOTION_AFFINE, &p, idx, N, est), -1);
    assert_int_equal(satfeat_motion_fit_linear(SATFEAT_MOTION_HOMOGRAPHY, &p, idx, N, est), -1);
    assert_true(satfeat_motion_spread_ratio(sx, sy, N) < 1e-12);
}

static void test_sampling(void **state)
{
    (void)state;
    motion_rng a, b;
    satfeat_motion_rng_seed(&a, 42);
    satfeat_motion_rng_seed(&b, 42);
    for (int i = 0; i < 100; i++)
        assert_true(satfeat_motion_rng_next(&a) == satfeat_motion_rng_next(&b));
    satfeat_motion_rng_seed(&b, 43);
    assert_true(satfeat_motion_rng_next(&a) != satfeat_motion_rng_next(&b));
    /* splitmix64 reference value for seed 0 (first output) */
    satfeat_motion_rng_seed(&a, 0);
    assert_true(satfeat_motion_rng_next(&a) == 0xE220A8397B1DCDAFull);
    for (int i = 0; i < 1000; i++) assert_true(satfeat_motion_rng_below(&a, 7) < 7);

    motion_sampler s;
    uint32_t out[4];
    satfeat_motion_sampler_init(&s, 100, 4, 0, 1, 2000);
    for (int t = 0; t < 500; t++) {
        satfeat_motion_sampler_draw(&s, out);
        for (int i = 0; i < 4; i++) {
            assert_true(out[i] < 100);
            for (int j = 0; j < i; j++) assert_true(out[i] != out[j]);
        }
    }
    /* PROSAC: the first sample is the top 4; the prefix grows by one per draw at first and
     * every sample holds the newest point of its prefix */
    satfeat_motion_sampler_init(&s, 1000, 4, 1, 1, 2000);
    satfeat_motion_sampler_draw(&s, out);
    uint32_t seen = 0;
    for (int i = 0; i < 4; i++) seen |= 1u << out[i];
    assert_int_equal(seen, 0xF);
    uint32_t last_prefix = s.prefix;
    for (int t = 1; t < 300; t++) {
        satfeat_motion_sampler_draw(&s, out);
        assert_true(s.prefix >= last_prefix && s.prefix <= last_prefix + 1);
        last_prefix = s.prefix;
        uint32_t mx = 0;
        for (int i = 0; i < 4; i++) mx = out[i] > mx ? out[i] : mx;
        assert_int_equal(mx, s.prefix - 1);
    }
    assert_true(s.prefix > 100 && s.prefix < 1000);

    assert_true(satfeat_motion_iterations_needed(0.5, 4, 0.999) == 108);
    assert_true(satfeat_motion_iterations_needed(0.3, 4, 0.999) == 850);
    assert_true(satfeat_motion_iterations_needed(0.8, 2, 0.99) == 5);
    assert_true(satfeat_motion_iterations_needed(1.0, 4, 0.999) == 1);
    assert_true(satfeat_motion_iterations_needed(0.0, 4, 0.999) == UINT64_MAX);
}

typedef struct ranked {
    float q;
    uint32_t i;
} ranked;

/* Reference order: quality descending, index ascending (-0 equals +0 under ==). */
static int ranked_cmp(const void *a, const void *b)
{
    const ranked *x = a, *y = b;
    if (x->q > y->q) return -1;
    if (x->q < y->q) return 1;
    return (x->i > y->i) - (x->i < y->i);
}

static void test_quality_order(void **state)
{
    (void)state;
    test_rng r;
    test_rng_seed(&r, 17);
    enum { N = 3000 };
    static float q[N];
    static uint32_t order[N], k1[N], k2[N], k3[N];
    static ranked ref[N];
    for (int trial = 0; trial < 6; trial++) {
        const int n = trial == 0 ? 1 : trial == 1 ? 7 : N - trial;
        for (int i = 0; i < n; i++) {
            switch (trial % 3) {
            case 0: q[i] = (float)urand(&r, -1e6, 1e6); break;
            case 1: q[i] = (float)test_rng_range(&r, -3, 3); break; /* many ties */
            default: q[i] = (float)urand(&r, 0.0, 1e-30); break;   /* tiny and denormal-ish */
            }
            if (i % 17 == 0) q[i] = (i % 34 == 0) ? -0.0f : 0.0f;
            ref[i].q = q[i];
            ref[i].i = (uint32_t)i;
        }
        qsort(ref, (size_t)n, sizeof ref[0], ranked_cmp);
        satfeat_motion_quality_order(q, (size_t)n, order, k1, k2, k3);
        for (int i = 0; i < n; i++) assert_int_equal(order[i], ref[i].i);
    }
}

static void test_msac_score(void **state)
{
    (void)state;
    test_rng r;
    test_rng_seed(&r, 16);
    enum { N = 301 };
    double sx[N], sy[N], dx[N], dy[N];
    const motion_points p = {sx, sy, dx, dy, N};
    double h[9];
    random_model(&r, SATFEAT_MOTION_HOMOGRAPHY, h);
    for (int i = 0; i < N; i++) {
        sx[i] = urand(&r, -1.5, 1.5), sy[i] = urand(&r, -1.5, 1.5);
        apply(h, sx[i], sy[i], &dx[i], &dy[i]);
        if (i % 3 == 0) dx[i] += urand(&r, -0.2, 0.2), dy[i] += urand(&r, -0.2, 0.2);
    }
    const double t2 = 0.01;
    double ref = 0, ref_in = 0;
    size_t ref_count = 0;
    for (int i = 0; i < N; i++) {
        double u, v;
        apply(h, sx[i], sy[i], &u, &v);
        const double e = (u - dx[i]) * (u - dx[i]) + (v - dy[i]) * (v - dy[i]);
        ref += e < t2 ? e : t2;
        if (e < t2) ref_count++, ref_in += e;
    }
    size_t cnt = 0, cnt2 = 12345;
    const double cost = satfeat_motion_msac_cost(h, 1, &p, t2, INFINITY, &cnt);
    assert_true(fabs(cost - ref) <= 1e-12 * ref);
    assert_int_equal(cnt, ref_count);
    assert_true(satfeat_motion_msac_cost(h, 1, &p, t2, 0.1 * ref, &cnt2) >
                0.1 * ref);        /* early exit */
    assert_int_equal(cnt2, 12345); /* no count after an early exit */
    uint8_t mask[N];
    uint32_t idx[N];
    double sum;
    assert_int_equal(satfeat_motion_select_inliers(h, 1, &p, t2, mask, idx, &sum), ref_count);
    assert_true(fabs(sum - ref_in) <= 1e-12 * ref_in + 1e-300);
    size_t c = 0;
    for (int i = 0; i < N; i++)
        if (mask[i]) assert_int_equal(idx[c++], i);
    /* the refinement's one scan: the full cost's bits, the same mask, the inliers gathered */
    double gx[N], gy[N], gu[N], gv[N];
    uint8_t mask2[N];
    size_t k = 0;
    const double cost2 = satfeat_motion_score_gather(h, 1, &p, t2, mask2, gx, gy, gu, gv, &k);
    assert_memory_equal(&cost2, &cost, sizeof cost);
    assert_int_equal(k, ref_count);
    assert_memory_equal(mask2, mask, N);
    for (size_t j = 0; j < k; j++) {
        assert_true(gx[j] == sx[idx[j]] && gy[j] == sy[idx[j]]);
        assert_true(gu[j] == dx[idx[j]] && gv[j] == dy[idx[j]]);
    }
    /* a point mapped behind the camera is never an inlier */
    const double flip[9] = {1, 0, 0, 0, 1, 0, 0, 0, -1};
    assert_true(isinf(motion_error2(flip, 1, 0.5, 0.5, -0.5, -0.5)));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_null_vector),          cmocka_unit_test(test_sym_eigen),
        cmocka_unit_test(test_cholesky_and_mat3),    cmocka_unit_test(test_minimal_solvers_exact),
        cmocka_unit_test(test_least_squares_exact),  cmocka_unit_test(test_sampling),
        cmocka_unit_test(test_msac_score),          cmocka_unit_test(test_quality_order),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
