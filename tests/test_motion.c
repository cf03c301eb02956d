/* test_motion.c - satfeat_estimate_motion: known models recovered under 50% / 70% outliers with
 * 0.5 px noise, determinism, PROSAC against RANSAC, bad and degenerate input, timing. */
#define _POSIX_C_SOURCE 199309L /* clock_gettime */
#include "features_testutil.h"
#include "test_util.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define W 640.0
#define H 480.0

static double urand(test_rng *r, double lo, double hi)
{
    return lo + (hi - lo) * (double)(test_rng_next(r) >> 11) * (1.0 / 9007199254740992.0);
}

/* Gaussian sample (Box-Muller) with standard deviation sd. */
static double gauss(test_rng *r, double sd)
{
    const double u1 = urand(r, 1e-12, 1.0), u2 = urand(r, 0.0, 1.0);
    return sd * sqrt(-2.0 * log(u1)) * cos(6.283185307179586 * u2);
}

static void apply(const double *h, double x, double y, double *u, double *v)
{
    const double w = h[6] * x + h[7] * y + h[8];
    *u = (h[0] * x + h[1] * y + h[2]) / w;
    *v = (h[3] * x + h[4] * y + h[5]) / w;
}

/* Largest distance between the images of the four image corners under a and b. */
static double corner_error(const double *a, const double *b)
{
    const double cx[4] = {0, W - 1, W - 1, 0}, cy[4] = {0, 0, H - 1, H - 1};
    double e = 0;
    for (int i = 0; i < 4; i++) {
        double ua, va, ub, vb;
        apply(a, cx[i], cy[i], &ua, &va);
        apply(b, cx[i], cy[i], &ub, &vb);
        e = fmax(e, hypot(ua - ub, va - vb));
    }
    return e;
}

/* A known model of each kind in pixels (a plausible camera motion). */
static void true_model(satfeat_motion_model model, double *h)
{
    const double ang = 0.12, sc = 1.08;
    const double c = cos(ang) * sc, s = sin(ang) * sc;
    const double sim[9] = {c, -s, 25.0, s, c, -14.0, 0, 0, 1};
    const double aff[9] = {1.05, 0.12, -18.0, -0.07, 0.93, 22.0, 0, 0, 1};
    const double hom[9] = {0.92, 0.08, 31.0, -0.05, 1.02, -12.0, 1.2e-4, -8.0e-5, 1};
    memcpy(h, model == SATFEAT_MOTION_HOMOGRAPHY ? hom : model == SATFEAT_MOTION_AFFINE ? aff : sim,
           9 * sizeof(double));
}

/* A synthetic problem: n correspondences, a fraction `outliers` of them outliers (a fifth of
 * them 4 to 15 px off the true model, the rest uniform and > 20 px off), inliers with Gaussian noise of sd px on each destination coordinate. */
typedef struct problem {
    size_t n;
    double *src, *dst;
    float *quality;
    uint8_t *is_inlier;
    double h[9];
} problem;

static problem make_problem(satfeat_motion_model model, size_t n, double outliers, double sd,
                            uint64_t seed)
{
    problem p;
    p.n = n;
    p.src = test_malloc(2 * n * sizeof(double));
    p.dst = test_malloc(2 * n * sizeof(double));
    p.quality = test_malloc(n * sizeof(float));
    p.is_inlier = test_malloc(n);
    true_model(model, p.h);
    test_rng r;
    test_rng_seed(&r, seed);
    for (size_t i = 0; i < n; i++) {
        const double x = urand(&r, 0, W - 1), y = urand(&r, 0, H - 1);
        double u, v;
        apply(p.h, x, y, &u, &v);
        p.src[2 * i] = x, p.src[2 * i + 1] = y;
        p.is_inlier[i] = urand(&r, 0, 1) >= outliers;
        if (p.is_inlier[i]) {
            p.dst[2 * i] = u + gauss(&r, sd), p.dst[2 * i + 1] = v + gauss(&r, sd);
            p.quality[i] = (float)urand(&r, 0.3, 1.0); /* overlaps the outliers' range */
        } else {
            double a, b;
            if (urand(&r, 0, 1) < 0.2) { /* a near miss, 4 to 15 px off */
                const double ang = urand(&r, 0, 6.283185307179586), d = urand(&r, 4.0, 15.0);
                a = u + d * cos(ang), b = v + d * sin(ang);
            } else {
                do {
                    a = urand(&r, 0, W - 1), b = urand(&r, 0, H - 1);
                } while (hypot(a - u, b - v) < 20.0);
            }
            p.dst[2 * i] = a, p.dst[2 * i + 1] = b;
            p.quality[i] = (float)urand(&r, 0.0, 0.5);
        }
    }
    return p;
}

static void free_problem(problem *p)
{
    test_free(p->src);
    test_free(p->dst);
    test_free(p->quality);
    test_free(p->is_inlier);
}

/* Checks a result against the problem: corners within 1 px, > 95% of inliers found, no gross
 * outlier marked, the count agrees with the mask. Returns the corner error. */
static double check_result(const problem *p, const satfeat_motion *m, const uint8_t *mask)
{
    const double ce = corner_error(m->h, p->h);
    size_t found = 0, inl = 0, marked = 0;
    for (size_t i = 0; i < p->n; i++) {
        /* the mask is exactly "forward error under the returned h below the threshold" */
        double u, v;
        apply(m->h, p->src[2 * i], p->src[2 * i + 1], &u, &v);
        const double e2 = (u - p->dst[2 * i]) * (u - p->dst[2 * i]) +
                          (v - p->dst[2 * i + 1]) * (v - p->dst[2 * i + 1]);
        assert_int_equal(mask[i], e2 < 9.0);
        marked += mask[i];
        if (p->is_inlier[i]) inl++, found += mask[i];
        else assert_int_equal(mask[i], 0);
    }
    assert_true(ce < 1.0);
    assert_true((double)found > 0.95 * (double)inl);
    assert_int_equal(marked, m->inliers);
    assert_true(m->h[8] == 1.0);
    assert_true(m->rms_error > 0.0 && m->rms_error < 3.0);
    return ce;
}

static satfeat_ctx *new_ctx(void)
{
    satfeat_ctx *ctx = NULL;
    assert_int_equal(satfeat_ctx_new(&ctx, SATFEAT_BACKEND_CPU, 0), SATFEAT_OK);
    return ctx;
}

static void run_accuracy(satfeat_motion_model model, double outliers, size_t n, int use_quality)
{
    satfeat_ctx *ctx = new_ctx();
    problem p = make_problem(model, n, outliers, 0.5, 100 + (uint64_t)model * 7 +
                                                          (uint64_t)(outliers * 100));
    satfeat_motion_params prm = satfeat_motion_params_default();
    prm.model = model;
    satfeat_motion m;
    uint8_t *mask = test_malloc(n);
    satfeat_status st = satfeat_estimate_motion(ctx, p.src, p.dst, n, use_quality ? p.quality : NULL,
                                                &prm, &m, mask);
    if (st != SATFEAT_OK) print_message("error: %s\n", satfeat_ctx_last_error(ctx));
    assert_int_equal(st, SATFEAT_OK);
    const double ce = check_result(&p, &m, mask);
    if (model != SATFEAT_MOTION_HOMOGRAPHY) assert_true(m.h[6] == 0 && m.h[7] == 0);
    print_message("model %d outliers %.0f%% %s: corner error %.3f px, %zu inliers, rms %.3f px, "
                  "%d iterations\n", (int)model, outliers * 100, use_quality ? "PROSAC" : "RANSAC",
                  ce, m.inliers, m.rms_error, m.iterations);
    test_free(mask);
    free_problem(&p);
    satfeat_ctx_delete(ctx);
}

static void test_homography_outliers(void **state)
{
    (void)state;
    run_accuracy(SATFEAT_MOTION_HOMOGRAPHY, 0.5, 1000, 0);
    run_accuracy(SATFEAT_MOTION_HOMOGRAPHY, 0.7, 1000, 0);
    run_accuracy(SATFEAT_MOTION_HOMOGRAPHY, 0.5, 1000, 1);
    run_accuracy(SATFEAT_MOTION_HOMOGRAPHY, 0.7, 1000, 1);
}

static void test_affine_outliers(void **state)
{
    (void)state;
    run_accuracy(SATFEAT_MOTION_AFFINE, 0.5, 1000, 0);
    run_accuracy(SATFEAT_MOTION_AFFINE, 0.7, 1000, 0);
    run_accuracy(SATFEAT_MOTION_AFFINE, 0.7, 1000, 1);
}

static void test_similarity_outliers(void **state)
{
    (void)state;
    run_accuracy(SATFEAT_MOTION_SIMILARITY, 0.5, 1000, 0);
    run_accuracy(SATFEAT_MOTION_SIMILARITY, 0.7, 1000, 0);
    run_accuracy(SATFEAT_MOTION_SIMILARITY, 0.7, 1000, 1);
}

/* Noise-free inliers: the refined model is the true one to rounding. */
static void test_exact_recovery(void **state)
{
    (void)state;
    satfeat_ctx *ctx = new_ctx();
    const satfeat_motion_model models[3] = {SATFEAT_MOTION_HOMOGRAPHY, SATFEAT_MOTION_AFFINE,
                                            SATFEAT_MOTION_SIMILARITY};
    for (int k = 0; k < 3; k++) {
        problem p = make_problem(models[k], 300, 0.4, 0.0, 7 + (uint64_t)k);
        satfeat_motion_params prm = satfeat_motion_params_default();
        prm.model = models[k];
        satfeat_motion m;
        assert_int_equal(satfeat_estimate_motion(ctx, p.src, p.dst, p.n, NULL, &prm, &m, NULL),
                         SATFEAT_OK);
        for (int i = 0; i < 9; i++) assert_true(fabs(m.h[i] - p.h[i]) <= 1e-9 * fmax(1.0, fabs(p.h[i])));
        assert_true(m.rms_error < 1e-8);
        free_problem(&p);
    }
    satfeat_ctx_delete(ctx);
}

static void test_determinism(void **state)
{
    (void)state;
    satfeat_ctx *ctx = new_ctx(), *ctx2 = new_ctx();
    problem p = make_problem(SATFEAT_MOTION_HOMOGRAPHY, 800, 0.6, 0.5, 31);
    satfeat_motion_params prm = satfeat_motion_params_default();
    satfeat_motion a, b, c;
    uint8_t ma[800], mb[800], mc[800];
    memset(&a, 0, sizeof a), memset(&b, 0xFF, sizeof b), memset(&c, 0, sizeof c);
    for (int q = 0; q < 2; q++) {
        const float *qual = q ? p.quality : NULL;
        assert_int_equal(satfeat_estimate_motion(ctx, p.src, p.dst, p.n, qual, &prm, &a, ma),
                         SATFEAT_OK);
        assert_int_equal(satfeat_estimate_motion(ctx2, p.src, p.dst, p.n, qual, &prm, &b, mb),
                         SATFEAT_OK);
        assert_memory_equal(a.h, b.h, sizeof a.h);
        assert_true(a.inliers == b.inliers && a.iterations == b.iterations);
        assert_memory_equal(&a.rms_error, &b.rms_error, sizeof a.rms_error);
        assert_memory_equal(ma, mb, sizeof ma);
        /* another seed: another sample sequence, still a correct model */
        satfeat_motion_params other = prm;
        other.seed = 0x1234567;
        assert_int_equal(satfeat_estimate_motion(ctx, p.src, p.dst, p.n, qual, &other, &c, mc),
                         SATFEAT_OK);
        check_result(&p, &c, mc);
        check_result(&p, &a, ma);
    }
    free_problem(&p);
    satfeat_ctx_delete(ctx);
    satfeat_ctx_delete(ctx2);
}

static void test_prosac_fewer_iterations(void **state)
{
    (void)state;
    satfeat_ctx *ctx = new_ctx();
    for (int k = 0; k < 3; k++) {
        problem p = make_problem(SATFEAT_MOTION_HOMOGRAPHY, 1000, 0.5 + 0.1 * k, 0.5, 50 + (uint64_t)k);
        satfeat_motion_params prm = satfeat_motion_params_default();
        satfeat_motion a, b;
        uint8_t *mask = test_malloc(p.n);
        assert_int_equal(satfeat_estimate_motion(ctx, p.src, p.dst, p.n, NULL, &prm, &a, mask),
                         SATFEAT_OK);
        check_result(&p, &a, mask);
        assert_int_equal(satfeat_estimate_motion(ctx, p.src, p.dst, p.n, p.quality, &prm, &b, mask),
                         SATFEAT_OK);
        check_result(&p, &b, mask);
        print_message("outliers %d%%: RANSAC %d iterations, PROSAC %d\n", 50 + 10 * k,
                      a.iterations, b.iterations);
        assert_true(b.iterations * 5 < a.iterations);
        test_free(mask);
        free_problem(&p);
    }
    satfeat_ctx_delete(ctx);
}

/* PROSAC with an uninformative quality (random) and with one that favours the outliers still
 * finds the model: the sampled prefix grows to the whole set. */
static void test_prosac_bad_quality(void **state)
{
    (void)state;
    satfeat_ctx *ctx = new_ctx();
    test_rng r;
    test_rng_seed(&r, 99);
    for (int adversarial = 0; adversarial < 2; adversarial++) {
        problem p = make_problem(SATFEAT_MOTION_HOMOGRAPHY, 1000, 0.5, 0.5, 60 + (uint64_t)adversarial);
        for (size_t i = 0; i < p.n; i++)
            p.quality[i] = adversarial ? (float)(p.is_inlier[i] ? urand(&r, 0, 0.6) : urand(&r, 0.4, 1))
                                       : (float)urand(&r, 0, 1);
        satfeat_motion_params prm = satfeat_motion_params_default();
        satfeat_motion m;
        uint8_t *mask = test_malloc(p.n);
        assert_int_equal(satfeat_estimate_motion(ctx, p.src, p.dst, p.n, p.quality, &prm, &m, mask),
                         SATFEAT_OK);
        check_result(&p, &m, mask);
        print_message("PROSAC with %s quality: %d iterations\n",
                      adversarial ? "adversarial" : "random", m.iterations);
        test_free(mask);
        free_problem(&p);
    }
    satfeat_ctx_delete(ctx);
}

/* Calls estimate_motion on poisoned outputs, checks the status and that nothing was written. */
static void expect_status(satfeat_ctx *ctx, const double *src, const double *dst, size_t n,
                          const float *q, const satfeat_motion_params *prm, int null_out,
                          satfeat_status want)
{
    satfeat_motion m, m0;
    uint8_t mask[64], mask0[64];
    memset(&m, 0xAB, sizeof m), memset(&m0, 0xAB, sizeof m0);
    memset(mask, 0xCD, sizeof mask), memset(mask0, 0xCD, sizeof mask0);
    const satfeat_status st =
        satfeat_estimate_motion(ctx, src, dst, n, q, prm, null_out ? NULL : &m, mask);
    assert_int_equal(st, want);
    assert_memory_equal(&m, &m0, sizeof m);
    assert_memory_equal(mask, mask0, sizeof mask);
    if (ctx) assert_true(strlen(satfeat_ctx_last_error(ctx)) > 0);
}

static void test_bad_and_degenerate_input(void **state)
{
    (void)state;
    satfeat_ctx *ctx = new_ctx();
    problem p = make_problem(SATFEAT_MOTION_HOMOGRAPHY, 64, 0.3, 0.5, 77);
    const satfeat_motion_params d = satfeat_motion_params_default();
    satfeat_motion_params prm = d;
    /* NULL pointers */
    assert_int_equal(satfeat_estimate_motion(NULL, p.src, p.dst, p.n, NULL, &d, NULL, NULL),
                     SATFEAT_ERR_ARG);
    expect_status(ctx, NULL, p.dst, p.n, NULL, &d, 0, SATFEAT_ERR_ARG);
    expect_status(ctx, p.src, NULL, p.n, NULL, &d, 0, SATFEAT_ERR_ARG);
    expect_status(ctx, p.src, p.dst, p.n, NULL, &d, 1, SATFEAT_ERR_ARG);
    /* parameters */
    const double bad_t[4] = {0.0, -1.0, NAN, INFINITY};
    for (int i = 0; i < 4; i++) {
        prm = d, prm.threshold = bad_t[i];
        expect_status(ctx, p.src, p.dst, p.n, NULL, &prm, 0, SATFEAT_ERR_ARG);
    }
    const double bad_c[5] = {0.0, 1.0, -0.5, 1.5, NAN};
    for (int i = 0; i < 5; i++) {
        prm = d, prm.confidence = bad_c[i];
        expect_status(ctx, p.src, p.dst, p.n, NULL, &prm, 0, SATFEAT_ERR_ARG);
    }
    prm = d, prm.max_iterations = 0;
    expect_status(ctx, p.src, p.dst, p.n, NULL, &prm, 0, SATFEAT_ERR_ARG);
    prm = d, prm.model = (satfeat_motion_model)7;
    expect_status(ctx, p.src, p.dst, p.n, NULL, &prm, 0, SATFEAT_ERR_ARG);
    prm = d, prm.refine = 2;
    expect_status(ctx, p.src, p.dst, p.n, NULL, &prm, 0, SATFEAT_ERR_ARG);
    /* NaN coordinates and quality */
    double src[128], dst[128];
    float q[64];
    memcpy(src, p.src, sizeof src), memcpy(dst, p.dst, sizeof dst), memcpy(q, p.quality, sizeof q);
    src[17] = NAN;
    expect_status(ctx, src, dst, 64, NULL, &d, 0, SATFEAT_ERR_ARG);
    src[17] = p.src[17], dst[40] = -INFINITY;
    expect_status(ctx, src, dst, 64, NULL, &d, 0, SATFEAT_ERR_ARG);
    dst[40] = p.dst[40], q[5] = NAN;
    expect_status(ctx, src, dst, 64, q, &d, 0, SATFEAT_ERR_ARG);
    /* too few correspondences: below the minimal sample, and below 2x it */
    expect_status(ctx, p.src, p.dst, 3, NULL, &d, 0, SATFEAT_ERR_NO_MODEL);
    expect_status(ctx, p.src, p.dst, 7, NULL, &d, 0, SATFEAT_ERR_NO_MODEL);
    expect_status(ctx, p.src, p.dst, 0, NULL, &d, 0, SATFEAT_ERR_NO_MODEL);
    prm = d, prm.model = SATFEAT_MOTION_SIMILARITY;
    expect_status(ctx, p.src, p.dst, 1, NULL, &prm, 0, SATFEAT_ERR_NO_MODEL);
    /* all points identical */
    for (int i = 0; i < 64; i++) src[2 * i] = 10.0, src[2 * i + 1] = 20.0;
    expect_status(ctx, src, p.dst, 64, NULL, &d, 0, SATFEAT_ERR_NO_MODEL);
    prm = d, prm.model = SATFEAT_MOTION_SIMILARITY;
    expect_status(ctx, src, p.dst, 64, NULL, &prm, 0, SATFEAT_ERR_NO_MODEL);
    /* collinear points (affine, homography) */
    for (int i = 0; i < 64; i++) {
        src[2 * i] = 3.0 * i, src[2 * i + 1] = 2.0 * i + 1.0;
        dst[2 * i] = 3.0 * i + 5.0, dst[2 * i + 1] = 2.0 * i - 4.0;
    }
    expect_status(ctx, src, dst, 64, NULL, &d, 0, SATFEAT_ERR_NO_MODEL);
    prm = d, prm.model = SATFEAT_MOTION_AFFINE;
    expect_status(ctx, src, dst, 64, NULL, &prm, 0, SATFEAT_ERR_NO_MODEL);
    /* ... but a translation along the line is a valid similarity */
    satfeat_motion m;
    prm = d, prm.model = SATFEAT_MOTION_SIMILARITY;
    assert_int_equal(satfeat_estimate_motion(ctx, src, dst, 64, NULL, &prm, &m, NULL), SATFEAT_OK);
    assert_true(fabs(m.h[2] - 5.0) < 1e-9 && fabs(m.h[5] + 5.0) < 1e-9 && m.inliers == 64);
    /* no model with enough inliers: 5 consistent points and 3 gross outliers (8 needed) */
    double hs[8 * 2], hd[8 * 2];
    const double px[8] = {10, 300, 600, 50, 320, 100, 500, 250};
    const double py[8] = {10, 40, 30, 400, 240, 200, 450, 120};
    for (int i = 0; i < 8; i++) {
        hs[2 * i] = px[i], hs[2 * i + 1] = py[i];
        apply(p.h, px[i], py[i], &hd[2 * i], &hd[2 * i + 1]);
        if (i >= 5) hd[2 * i] += 40.0 * i, hd[2 * i + 1] -= 25.0 * i;
    }
    expect_status(ctx, hs, hd, 8, NULL, &d, 0, SATFEAT_ERR_NO_MODEL);
    /* the context still works after all that */
    assert_int_equal(satfeat_estimate_motion(ctx, p.src, p.dst, p.n, NULL, NULL, &m, NULL),
                     SATFEAT_OK);
    assert_true(corner_error(m.h, p.h) < 1.0);
    free_problem(&p);
    satfeat_ctx_delete(ctx);
}

/* Without refinement the best minimal-sample model is returned: still close, less accurate. */
static void test_no_refinement(void **state)
{
    (void)state;
    satfeat_ctx *ctx = new_ctx();
    const satfeat_motion_model models[3] = {SATFEAT_MOTION_HOMOGRAPHY, SATFEAT_MOTION_AFFINE,
                                            SATFEAT_MOTION_SIMILARITY};
    for (int k = 0; k < 3; k++)
        for (int q = 0; q < 2; q++) {
            problem p = make_problem(models[k], 1000, 0.5, 0.5, 300 + (uint64_t)k);
            satfeat_motion_params prm = satfeat_motion_params_default();
            prm.model = models[k];
            prm.refine = 0;
            satfeat_motion a, b;
            assert_int_equal(satfeat_estimate_motion(ctx, p.src, p.dst, p.n, q ? p.quality : NULL,
                                                     &prm, &a, NULL),
                             SATFEAT_OK);
            prm.refine = 1;
            assert_int_equal(satfeat_estimate_motion(ctx, p.src, p.dst, p.n, q ? p.quality : NULL,
                                                     &prm, &b, NULL),
                             SATFEAT_OK);
            const double ea = corner_error(a.h, p.h), eb = corner_error(b.h, p.h);
            print_message("model %d %s: corner error %.3f px unrefined, %.3f px refined\n", k,
                          q ? "PROSAC" : "RANSAC", ea, eb);
            assert_true(ea < 10.0);
            assert_true(eb < 1.0);
            assert_true(b.rms_error <= a.rms_error * 1.05);
            free_problem(&p);
        }
    satfeat_ctx_delete(ctx);
}

/* A mirrored scene: every sample flips orientation, so no homography or affine model exists. */
static void test_mirror_rejected(void **state)
{
    (void)state;
    satfeat_ctx *ctx = new_ctx();
    problem p = make_problem(SATFEAT_MOTION_AFFINE, 200, 0.0, 0.2, 5);
    for (size_t i = 0; i < p.n; i++) p.dst[2 * i] = W - p.dst[2 * i];
    satfeat_motion_params prm = satfeat_motion_params_default();
    expect_status(ctx, p.src, p.dst, p.n, NULL, &prm, 0, SATFEAT_ERR_NO_MODEL);
    prm.model = SATFEAT_MOTION_AFFINE;
    expect_status(ctx, p.src, p.dst, p.n, NULL, &prm, 0, SATFEAT_ERR_NO_MODEL);
    free_problem(&p);
    satfeat_ctx_delete(ctx);
}

static double now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1e3 + ts.tv_nsec * 1e-6;
}

static int cmp_double(const void *a, const void *b)
{
    const double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* Prints the median time of 2000 correspondences with 50% outliers (not asserted). */
/* Two feature sets of one scene under the true homography: n keypoints with random unit
 * SURF-64 descriptors; the second set has the same descriptors slightly perturbed at the mapped
 * positions, except every fifth one moved far away (an outlier match). */
static void scene_sets(test_rng *r, size_t n, satfeat_features **f1, satfeat_features **f2,
                       double *h)
{
    true_model(SATFEAT_MOTION_HOMOGRAPHY, h);
    satfeat_keypoint *k1 = calloc(n, sizeof *k1), *k2 = calloc(n, sizeof *k2);
    float *d1 = calloc(n * 64, sizeof *d1), *d2 = calloc(n * 64, sizeof *d2);
    assert_true(k1 && k2 && d1 && d2);
    for (size_t i = 0; i < n; i++) {
        k1[i].x = urand(r, 40, W - 40);
        k1[i].y = urand(r, 40, H - 40);
        k1[i].size = 12;
        k1[i].laplacian = 1;
        k2[i] = k1[i];
        apply(h, k1[i].x, k1[i].y, &k2[i].x, &k2[i].y);
        if (i % 5 == 4) k2[i].x = fmod(k2[i].x + 200.0, W);
        double norm = 0;
        for (int d = 0; d < 64; d++) {
            d1[i * 64 + d] = (float)gauss(r, 1.0);
            norm += (double)d1[i * 64 + d] * d1[i * 64 + d];
        }
        for (int d = 0; d < 64; d++) {
            d1[i * 64 + d] = (float)(d1[i * 64 + d] / sqrt(norm));
            d2[i * 64 + d] = d1[i * 64 + d] + (float)gauss(r, 0.01);
        }
    }
    *f1 = test_features_of(k1, d1, n, 64, (int)W, (int)H);
    *f2 = test_features_of(k2, d2, n, 64, (int)W, (int)H);
    free(k1);
    free(k2);
    free(d1);
    free(d2);
}

/* satfeat_estimate_motion_matches gives bit for bit what satfeat_estimate_motion gives on the
 * matched keypoints' positions with the quality 1 / (distance + 0.001), and finds the scene's
 * homography; its argument errors. */
static void test_motion_from_matches(void **state)
{
    (void)state;
    satfeat_ctx *ctx = new_ctx();
    test_rng r;
    test_rng_seed(&r, 31);
    satfeat_features *f1, *f2;
    double truth[9];
    scene_sets(&r, 300, &f1, &f2, truth);
    satfeat_matches *list = NULL;
    assert_int_equal(satfeat_match(ctx, f1, f2, NULL, &list), SATFEAT_OK);
    const size_t n = satfeat_matches_count(list);
    assert_true(n > 200);
    satfeat_motion mo, ref;
    uint8_t *mask = malloc(n), *ref_mask = malloc(n);
    double *src = malloc(2 * n * sizeof *src), *dst = malloc(2 * n * sizeof *dst);
    float *q = malloc(n * sizeof *q);
    assert_true(mask && ref_mask && src && dst && q);
    assert_int_equal(satfeat_estimate_motion_matches(ctx, f1, f2, list, NULL, &mo, mask),
                     SATFEAT_OK);
    const satfeat_match_pair *m = satfeat_matches_data(list);
    const satfeat_keypoint *k1 = satfeat_features_keypoints(f1);
    const satfeat_keypoint *k2 = satfeat_features_keypoints(f2);
    for (size_t k = 0; k < n; k++) {
        src[2 * k] = k1[m[k].query].x;
        src[2 * k + 1] = k1[m[k].query].y;
        dst[2 * k] = k2[m[k].train].x;
        dst[2 * k + 1] = k2[m[k].train].y;
        q[k] = 1.0f / (m[k].distance + 0.001f);
    }
    assert_int_equal(satfeat_estimate_motion(ctx, src, dst, n, q, NULL, &ref, ref_mask),
                     SATFEAT_OK);
    assert_memory_equal(mo.h, ref.h, sizeof mo.h);
    assert_int_equal(mo.inliers, ref.inliers);
    assert_int_equal(mo.iterations, ref.iterations);
    assert_memory_equal(mask, ref_mask, n);
    assert_true(corner_error(mo.h, truth) < 0.5);
    assert_true(mo.inliers >= n * 7 / 10 && mo.inliers < n);

    /* matches of other sets: indices past the sets' ends are an argument error */
    satfeat_features *s1 = test_features_of(k1, satfeat_features_descriptors(f1), 20, 64,
                                            (int)W, (int)H);
    assert_int_equal(satfeat_estimate_motion_matches(ctx, s1, f2, list, NULL, &mo, mask),
                     SATFEAT_ERR_ARG);
    assert_non_null(strstr(satfeat_ctx_last_error(ctx), "outside"));
    assert_int_equal(satfeat_estimate_motion_matches(ctx, f1, s1, list, NULL, &mo, mask),
                     SATFEAT_ERR_ARG);
    assert_int_equal(satfeat_estimate_motion_matches(ctx, NULL, f2, list, NULL, &mo, mask),
                     SATFEAT_ERR_ARG);
    assert_int_equal(satfeat_estimate_motion_matches(ctx, f1, NULL, list, NULL, &mo, mask),
                     SATFEAT_ERR_ARG);
    assert_int_equal(satfeat_estimate_motion_matches(ctx, f1, f2, NULL, NULL, &mo, mask),
                     SATFEAT_ERR_ARG);
    assert_int_equal(satfeat_estimate_motion_matches(ctx, f1, f2, list, NULL, NULL, mask),
                     SATFEAT_ERR_ARG);
    assert_int_equal(satfeat_estimate_motion_matches(NULL, f1, f2, list, NULL, &mo, mask),
                     SATFEAT_ERR_ARG);
    satfeat_motion_params bad = satfeat_motion_params_default();
    bad.threshold = -1;
    assert_int_equal(satfeat_estimate_motion_matches(ctx, f1, f2, list, &bad, &mo, mask),
                     SATFEAT_ERR_ARG);
    /* no match: no model */
    satfeat_matches *none = NULL;
    assert_int_equal(satfeat_matches_new(&none), SATFEAT_OK);
    assert_int_equal(satfeat_estimate_motion_matches(ctx, f1, f2, none, NULL, &mo, NULL),
                     SATFEAT_ERR_NO_MODEL);
    /* matches from elsewhere (satfeat_matches_assign): the same pairs, the same motion */
    assert_int_equal(satfeat_matches_assign(none, m, n), SATFEAT_OK);
    assert_int_equal(satfeat_matches_count(none), n);
    assert_memory_equal(satfeat_matches_data(none), m, n * sizeof *m);
    satfeat_motion copied;
    assert_int_equal(satfeat_estimate_motion_matches(ctx, f1, f2, none, NULL, &copied, ref_mask),
                     SATFEAT_OK);
    assert_memory_equal(copied.h, mo.h, sizeof mo.h);
    assert_int_equal(copied.inliers, mo.inliers);
    assert_int_equal(copied.iterations, mo.iterations);
    assert_memory_equal(&copied.rms_error, &mo.rms_error, sizeof mo.rms_error);
    assert_memory_equal(ref_mask, mask, n);
    assert_int_equal(satfeat_matches_assign(none, NULL, 0), SATFEAT_OK);
    assert_int_equal(satfeat_matches_count(none), 0);
    assert_int_equal(satfeat_matches_assign(none, NULL, 1), SATFEAT_ERR_ARG);
    assert_int_equal(satfeat_matches_assign(NULL, m, 1), SATFEAT_ERR_ARG);
    satfeat_matches_delete(none);
    satfeat_matches_delete(list);
    satfeat_features_delete(f1);
    satfeat_features_delete(f2);
    satfeat_features_delete(s1);
    free(mask);
    free(ref_mask);
    free(src);
    free(dst);
    free(q);
    satfeat_ctx_delete(ctx);
}

static void test_timing(void **state)
{
    (void)state;
    satfeat_ctx *ctx = new_ctx();
    const satfeat_motion_model models[3] = {SATFEAT_MOTION_HOMOGRAPHY, SATFEAT_MOTION_AFFINE,
                                            SATFEAT_MOTION_SIMILARITY};
    const char *names[3] = {"homography", "affine", "similarity"};
    for (int k = 0; k < 3; k++)
        for (int q = 0; q < 2; q++) {
            problem p = make_problem(models[k], 2000, 0.5, 0.5, 900 + (uint64_t)k);
            satfeat_motion_params prm = satfeat_motion_params_default();
            prm.model = models[k];
            uint8_t *mask = test_malloc(p.n);
            satfeat_motion m;
            enum { RUNS = 31 };
            double t[RUNS];
            for (int r = -3; r < RUNS; r++) {
                prm.seed = 1000 + (uint64_t)(r + 3);
                const double t0 = now_ms();
                assert_int_equal(satfeat_estimate_motion(ctx, p.src, p.dst, p.n,
                                                         q ? p.quality : NULL, &prm, &m, mask),
                                 SATFEAT_OK);
                const double t1 = now_ms();
                if (r >= 0) t[r] = t1 - t0;
                check_result(&p, &m, mask);
            }
            qsort(t, RUNS, sizeof t[0], cmp_double);
            print_message("timing %s %s, 2000 correspondences, 50%% outliers: median %.3f ms "
                          "(min %.3f, max %.3f), %d iterations\n", names[k],
                          q ? "PROSAC" : "RANSAC", t[RUNS / 2], t[0], t[RUNS - 1], m.iterations);
            test_free(mask);
            free_problem(&p);
        }
    satfeat_ctx_delete(ctx);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_homography_outliers),
        cmocka_unit_test(test_affine_outliers),
        cmocka_unit_test(test_similarity_outliers),
        cmocka_unit_test(test_exact_recovery),
        cmocka_unit_test(test_determinism),
        cmocka_unit_test(test_prosac_fewer_iterations),
        cmocka_unit_test(test_prosac_bad_quality),
        cmocka_unit_test(test_bad_and_degenerate_input),
        cmocka_unit_test(test_no_refinement),
        cmocka_unit_test(test_mirror_rejected),
        cmocka_unit_test(test_motion_from_matches),
        cmocka_unit_test(test_timing),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
