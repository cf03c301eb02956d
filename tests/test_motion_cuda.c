/* test_motion_cuda.c - satfeat_estimate_motion on a CUDA context (hypotheses scored on the
 * device) returns the CPU context's results bit for bit: status and message, model, inlier
 * count, RMS error, draws and inlier mask, over random problems of the three models (10% to 90%
 * inliers, 8 to 12000 correspondences, RANSAC and PROSAC, refinement on and off, draw caps from
 * 1 to 3000, degenerate samples, extreme coordinates, clustered points, tied qualities), the
 * zero / few-correspondence and degenerate-set refusals, and real matches of dune frames
 * (satfeat_estimate_motion_matches). Prints the time of both at tracking sizes. Skipped without a
 * CUDA device. */
#define _POSIX_C_SOURCE 199309L /* clock_gettime */
#include "motion_testutil.h"
#include "tracker_testutil.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* One run's outputs. */
typedef struct motion_run {
    satfeat_status st;
    satfeat_motion mo;
    uint8_t *mask;
    char error[512];
} motion_run;

static void run_on(satfeat_ctx *ctx, const motion_problem *p, int prosac,
                   const satfeat_motion_params *par, motion_run *out)
{
    memset(&out->mo, 0xA5, sizeof out->mo); /* untouched fields compare equal too */
    out->mask = malloc(p->n ? p->n : 1);
    assert_non_null(out->mask);
    memset(out->mask, 7, p->n ? p->n : 1);
    out->st = satfeat_estimate_motion(ctx, p->src, p->dst, p->n, prosac ? p->quality : NULL, par,
                                      &out->mo, out->mask);
    snprintf(out->error, sizeof out->error, "%s", satfeat_ctx_last_error(ctx));
}

/* Requires the two runs to agree bit for bit; returns 1 when they found a model. */
static int runs_equal(const motion_run *a, const motion_run *b, size_t n, const char *what)
{
    const int same = a->st == b->st && memcmp(&a->mo, &b->mo, sizeof a->mo) == 0 &&
                     memcmp(a->mask, b->mask, n ? n : 1) == 0 && strcmp(a->error, b->error) == 0;
    if (!same)
        fprintf(stderr,
                "differs: %s: status %d / %d, inliers %zu / %zu, draws %d / %d, '%s' / '%s'\n",
                what, (int)a->st, (int)b->st, a->mo.inliers, b->mo.inliers, a->mo.iterations,
                b->mo.iterations, a->error, b->error);
    assert_int_equal(a->st, b->st);
    assert_memory_equal(&a->mo, &b->mo, sizeof a->mo);
    assert_memory_equal(a->mask, b->mask, n ? n : 1);
    assert_string_equal(a->error, b->error);
    return a->st == SATFEAT_OK;
}

static void compare_problem(satfeat_ctx *cpu, satfeat_ctx *gpu, const motion_problem *p, int prosac,
                            const satfeat_motion_params *par, const char *what, size_t *models)
{
    motion_run a, b;
    run_on(cpu, p, prosac, par, &a);
    run_on(gpu, p, prosac, par, &b);
    *models += (size_t)runs_equal(&a, &b, p->n, what);
    free(a.mask);
    free(b.mask);
}

static void test_synthetic_equal(void **state)
{
    (void)state;
    satfeat_ctx *gpu = test_cuda_ctx_or_skip(), *cpu;
    assert_int_equal(satfeat_ctx_new(&cpu, SATFEAT_BACKEND_CPU, -1), SATFEAT_OK);
    const int small = getenv("SATFEAT_TEST_SMALL") != NULL;
    const satfeat_motion_model models[] = {SATFEAT_MOTION_HOMOGRAPHY, SATFEAT_MOTION_AFFINE,
                                           SATFEAT_MOTION_SIMILARITY};
    const size_t sizes[] = {8, 9, 17, 63, 64, 65, 200, 1000, 2500, 12000};
    /* SATFEAT_TEST_SMALL (compute-sanitizer runs): up to 65 correspondences */
    const size_t nsizes = small ? 6 : sizeof sizes / sizeof sizes[0];
    const double ratios[] = {0.1, 0.3, 0.5, 0.7, 0.9};
    const int iters[] = {1, 7, 300, 2000, 3000};
    size_t runs = 0, found = 0;
    uint64_t seed = 1;
    for (int mi = 0; mi < 3; mi++)
        for (size_t k = 0; k < nsizes; k++)
            for (int ri = 0; ri < 5; ri++)
                for (int fl = 0; fl < MOTION_FLAVOURS; fl++, seed++) {
                    motion_problem p;
                    motion_problem_make(&p, models[mi], sizes[k], ratios[ri], (motion_flavour)fl,
                                        seed);
                    satfeat_motion_params par = satfeat_motion_params_default();
                    par.model = models[mi];
                    par.max_iterations = iters[seed % 5];
                    par.refine = (int)(seed / 5 % 2);
                    par.threshold = seed % 3 == 0 ? 1.0 : 3.0;
                    par.seed = seed * 7919;
                    char what[128];
                    for (int prosac = 0; prosac < 2; prosac++) {
                        snprintf(what, sizeof what, "model %d n %zu inliers %.1f flavour %d "
                                 "prosac %d draws %d", mi, sizes[k], ratios[ri], fl, prosac,
                                 par.max_iterations);
                        compare_problem(cpu, gpu, &p, prosac, &par, what, &found);
                        runs++;
                    }
                    motion_problem_free(&p);
                }
    printf("CUDA == CPU on %zu synthetic problems, %zu with a model\n", runs, found);
    assert_true(found > runs / 3);
    satfeat_ctx_delete(cpu);
    satfeat_ctx_delete(gpu);
}

/* Too few correspondences, coincident and collinear sets, a bad argument: the same refusal. */
static void test_refusals_equal(void **state)
{
    (void)state;
    satfeat_ctx *gpu = test_cuda_ctx_or_skip(), *cpu;
    assert_int_equal(satfeat_ctx_new(&cpu, SATFEAT_BACKEND_CPU, -1), SATFEAT_OK);
    size_t found = 0;
    for (size_t n = 0; n <= 9; n++)
        for (int mi = 0; mi < 3; mi++) {
            motion_problem p;
            motion_problem_make(&p, (satfeat_motion_model)mi, n, 1.0, MOTION_PLAIN, 100 + n);
            satfeat_motion_params par = satfeat_motion_params_default();
            par.model = (satfeat_motion_model)mi;
            compare_problem(cpu, gpu, &p, (int)(n % 2), &par, "few", &found);
            /* all coincident, then all on one line */
            for (size_t i = 0; i < n; i++) p.src[2 * i] = 5.0, p.src[2 * i + 1] = 7.0;
            compare_problem(cpu, gpu, &p, 1, &par, "coincident", &found);
            for (size_t i = 0; i < n; i++) p.src[2 * i] = 5.0 + (double)i;
            compare_problem(cpu, gpu, &p, 0, &par, "collinear", &found);
            par.threshold = -1.0;
            compare_problem(cpu, gpu, &p, 0, &par, "bad threshold", &found);
            motion_problem_free(&p);
        }
    /* every sample degenerate: duplicated points only */
    motion_problem p;
    motion_problem_make(&p, SATFEAT_MOTION_HOMOGRAPHY, 300, 0.5, MOTION_PLAIN, 5);
    for (size_t i = 0; i < 300; i++) {
        p.src[2 * i] = (double)(i % 3) * 100.0, p.src[2 * i + 1] = (double)(i % 3 == 1) * 50.0;
        p.dst[2 * i] = p.src[2 * i] + 3.0, p.dst[2 * i + 1] = p.src[2 * i + 1] - 2.0;
    }
    satfeat_motion_params par = satfeat_motion_params_default();
    compare_problem(cpu, gpu, &p, 1, &par, "three distinct points", &found);
    motion_problem_free(&p);
    printf("refusals equal (%zu models among them)\n", found);
    satfeat_ctx_delete(cpu);
    satfeat_ctx_delete(gpu);
}

/* Features of dune frames 1 and k (CPU detector and matcher), their motion on both contexts. */
static void test_dune_matches_equal(void **state)
{
    (void)state;
    satfeat_ctx *gpu = test_cuda_ctx_or_skip(), *cpu;
    assert_int_equal(satfeat_ctx_new(&cpu, SATFEAT_BACKEND_CPU, -1), SATFEAT_OK);
    enum { N = 8 };
    uint8_t **f = dune_frames(N);
    satfeat_detector_params dp = satfeat_detector_params_default();
    satfeat_detector *det = NULL;
    assert_int_equal(satfeat_detector_new(cpu, &dp, 640, 480, &det), SATFEAT_OK);
    satfeat_features *sets[N] = {NULL};
    for (int k = 0; k < N; k++) {
        const satfeat_image_view v = satfeat_image_view_host(f[k], 640, 480, 640);
        assert_int_equal(satfeat_detect(det, &v, &sets[k]), SATFEAT_OK);
    }
    satfeat_matches *list = NULL;
    size_t pairs = 0;
    for (int k = 1; k < N; k++)
        for (int mi = 0; mi < 3; mi++) {
            assert_int_equal(satfeat_match(cpu, sets[0], sets[k], NULL, &list), SATFEAT_OK);
            const size_t n = satfeat_matches_count(list);
            satfeat_motion_params par = satfeat_motion_params_default();
            par.model = (satfeat_motion_model)mi;
            par.threshold = 2.0;
            satfeat_motion a, b;
            memset(&a, 0, sizeof a); /* padding compares equal too */
            memset(&b, 0, sizeof b);
            uint8_t *ma = malloc(n + 1), *mb = malloc(n + 1);
            assert_true(ma && mb);
            const satfeat_status sa =
                satfeat_estimate_motion_matches(cpu, sets[0], sets[k], list, &par, &a, ma);
            const satfeat_status sb =
                satfeat_estimate_motion_matches(gpu, sets[0], sets[k], list, &par, &b, mb);
            assert_int_equal(sa, sb);
            if (sa == SATFEAT_OK) {
                assert_memory_equal(&a, &b, sizeof a);
                assert_memory_equal(ma, mb, n);
                pairs++;
            }
            free(ma);
            free(mb);
        }
    printf("dune frame 1 against 2..%d: %zu motions equal\n", N, pairs);
    assert_true(pairs >= 14);
    satfeat_matches_delete(list);
    for (int k = 0; k < N; k++) satfeat_features_delete(sets[k]);
    satfeat_detector_delete(det);
    frames_free(f, N);
    satfeat_ctx_delete(cpu);
    satfeat_ctx_delete(gpu);
}

static double now_us(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec * 1e6 + (double)t.tv_nsec * 1e-3;
}

static int cmp_double(const void *a, const void *b)
{
    const double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

/* Median wall time of 15 calls on ctx, after 2 warm-up calls (PROSAC when `prosac`). */
static double median_us(satfeat_ctx *ctx, const motion_problem *p, int prosac,
                        const satfeat_motion_params *par, satfeat_motion *mo)
{
    double t[15];
    memset(mo, 0, sizeof *mo);
    for (int i = 0; i < 17; i++) {
        const double t0 = now_us();
        assert_int_equal(satfeat_estimate_motion(ctx, p->src, p->dst, p->n,
                                                 prosac ? p->quality : NULL, par, mo, NULL),
                         SATFEAT_OK);
        if (i >= 2) t[i - 2] = now_us() - t0;
    }
    qsort(t, 15, sizeof t[0], cmp_double);
    return t[7];
}

/* Wall time of both contexts at tracking sizes (homography, threshold 2 px, RANSAC and PROSAC
 * with qualities favouring the inliers, refinement off and on); SATFEAT_TEST_SMALL: 2000 only. */
static void test_timing(void **state)
{
    (void)state;
    satfeat_ctx *gpu = test_cuda_ctx_or_skip(), *cpu;
    assert_int_equal(satfeat_ctx_new(&cpu, SATFEAT_BACKEND_CPU, -1), SATFEAT_OK);
    const int nsizes = getenv("SATFEAT_TEST_SMALL") ? 1 : 3;
    const size_t sizes[] = {2000, 5000, 12000};
    const double ratios[] = {0.3, 0.5, 0.7};
    for (int k = 0; k < nsizes; k++)
        for (int ri = 0; ri < 3; ri++)
            for (int mode = 0; mode < 4; mode++) {
                const int prosac = mode / 2, refine = mode % 2;
                motion_problem p;
                motion_problem_make(&p, SATFEAT_MOTION_HOMOGRAPHY, sizes[k], ratios[ri],
                                    MOTION_PLAIN, 40 + (uint64_t)k);
                satfeat_motion_params par = satfeat_motion_params_default();
                par.threshold = 2.0;
                par.refine = refine;
                satfeat_motion a, b;
                const double tc = median_us(cpu, &p, prosac, &par, &a);
                const double tg = median_us(gpu, &p, prosac, &par, &b);
                assert_memory_equal(&a, &b, sizeof a);
                printf("n %5zu inliers %.1f %s refine %d: %4d draws, CPU %8.1f us, CUDA %8.1f us\n",
                       sizes[k], ratios[ri], prosac ? "PROSAC" : "RANSAC", refine, a.iterations,
                       tc, tg);
                motion_problem_free(&p);
            }
    satfeat_ctx_delete(cpu);
    satfeat_ctx_delete(gpu);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_synthetic_equal),
        cmocka_unit_test(test_refusals_equal),
        cmocka_unit_test(test_dune_matches_equal),
        cmocka_unit_test(test_timing),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
