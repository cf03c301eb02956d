/* test_sat_cuda_f32.c - the CUDA f32 SAT (2R1W and SKSS-LB, device and host entry points) against
 * a float64 reference, entry by entry within the bound of docs/PRECISION.md, on images of
 * non-negative and of mixed-sign values; every entry must be written (outputs poisoned). */
#include "test_util.h"

#ifdef SATFEAT_TEST_HAVE_CUDA
#include "sat_cuda_check.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Checks one w x h image with both algorithms; returns the largest error / bound seen. */
static double check_f32(satfeat_ctx *gpu, test_rng *rng, int w, int h, int mixed_sign, int host)
{
    const size_t ss = ((size_t)w + (size_t)test_rng_range(rng, 0, 2) * 4) * 4;
    const size_t ds = ((size_t)w + 1 + (size_t)test_rng_range(rng, 0, 2) * 4) * 4;
    const size_t tw = (size_t)w + 1, th = (size_t)h + 1;
    float *src = malloc(ss * (size_t)h);
    float *abs_src = malloc(ss * (size_t)h);
    float *out = malloc(ds * th);
    double *ref = malloc(tw * th * sizeof(double));
    double *ref_abs = malloc(tw * th * sizeof(double));
    assert_true(src && abs_src && out && ref && ref_abs);
    for (size_t i = 0; i < ss / 4 * (size_t)h; i++) {
        float v = test_rng_unit(rng) * 255.0f;
        if (mixed_sign && (test_rng_next(rng) & 1)) v = -v;
        src[i] = v;
        abs_src[i] = fabsf(v);
    }
    test_reference_sat_f64(src, ss, w, h, ref);
    test_reference_sat_f64(abs_src, ss, w, h, ref_abs);
    const double gamma = sat_check_f32_gamma(w, h);
    float *d_src = NULL, *d_dst = NULL;
    if (!host) {
        CUDA_OK(cudaMalloc((void **)&d_src, ss * (size_t)h));
        CUDA_OK(cudaMalloc((void **)&d_dst, ds * th));
        CUDA_OK(cudaMemcpy(d_src, src, ss * (size_t)h, cudaMemcpyHostToDevice));
    }
    static const satfeat_sat_algo algos[] = {SATFEAT_SAT_2R1W, SATFEAT_SAT_SKSS_LB};
    double worst = 0;
    for (int a = 0; a < 2; a++) {
        if (host) {
            memset(out, 0xff, ds * th); /* NaN */
            assert_int_equal(satfeat_sat_f32(gpu, src, ss, w, h, out, ds, algos[a]), SATFEAT_OK);
        } else {
            CUDA_OK(cudaMemset(d_dst, 0xff, ds * th));
            satfeat_status st = satfeat_sat_f32_device(gpu, d_src, ss, w, h, d_dst, ds, algos[a], NULL);
            if (st != SATFEAT_OK) print_error("%s\n", satfeat_ctx_last_error(gpu));
            assert_int_equal(st, SATFEAT_OK);
            CUDA_OK(cudaMemcpy(out, d_dst, ds * th, cudaMemcpyDeviceToHost));
        }
        for (size_t y = 0; y < th; y++)
            for (size_t x = 0; x < tw; x++) {
                const double got = out[y * (ds / 4) + x];
                const double want = ref[y * tw + x];
                const double bound = gamma * ref_abs[y * tw + x];
                const double err = fabs(got - want);
                if (!(err <= bound)) { /* also catches NaN (unwritten) */
                    print_error("%s %dx%d entry (%zu, %zu): %.9g want %.9g, |err| %.3g > bound %.3g\n",
                                a ? "SKSS-LB" : "2R1W", w, h, x, y, got, want, err, bound);
                    fail();
                }
                if (bound > 0 && err / bound > worst) worst = err / bound;
            }
    }
    cudaFree(d_src);
    cudaFree(d_dst);
    free(src);
    free(abs_src);
    free(out);
    free(ref);
    free(ref_abs);
    return worst;
}

static void test_f32_within_bound(void **state)
{
    (void)state;
    satfeat_ctx *gpu = test_cuda_ctx_or_skip();
    sat_check_watchdog(300);
    test_rng rng;
    test_rng_seed(&rng, 4242);
    static const int fixed[][2] = {{1, 1}, {2, 3}, {33, 65}, {64, 64}, {129, 127}, {1920, 1080},
                                   {4096, 2048}, {1, 5000}, {5000, 1}};
    const int small = sat_check_small();
    double worst = 0;
    int count = 0;
    for (size_t i = 0; i < sizeof fixed / sizeof fixed[0]; i++) {
        if (small && (fixed[i][0] > 300 || fixed[i][1] > 300)) continue;
        for (int mixed = 0; mixed < 2; mixed++) {
            double r = check_f32(gpu, &rng, fixed[i][0], fixed[i][1], mixed, 0);
            worst = r > worst ? r : worst;
            count++;
        }
    }
    for (int i = 0; i < (small ? 6 : 40); i++) {
        int w = test_rng_range(&rng, 1, small ? 200 : 1500);
        int h = test_rng_range(&rng, 1, small ? 200 : 1100);
        double r = check_f32(gpu, &rng, w, h, i & 1, i % 4 == 3);
        worst = r > worst ? r : worst;
        count++;
    }
    printf("f32: %d images x 2 algorithms within the bound; largest error / bound = %.3g\n", count,
           worst);
    satfeat_ctx_delete(gpu);
}

int main(void)
{
    const struct CMUnitTest tests[] = {cmocka_unit_test(test_f32_within_bound)};
    return cmocka_run_group_tests(tests, NULL, NULL);
}

#else

int main(void)
{
    return test_main_without_cuda();
}
#endif
