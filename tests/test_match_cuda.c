/* test_match_cuda.c - the CUDA matcher returns the CPU matcher's matches bit for bit (memcmp of
 * the arrays) over random sets of many sizes (0, 1, tile edges, 2000 x 2000, larger), both
 * dims, with and without gates and predicted positions; satfeat_match_descriptors_device on
 * device arrays and a stream; match lists refilled in place; feature sets kept on the device
 * between calls and refilled in place (test_kept_sets); and the time of 2000 x 2000 x 64 with CUDA events
 * (printed in microseconds). Skipped without a CUDA device. */
#include "match_testutil.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifdef SATFEAT_TEST_HAVE_CUDA
#include "match/match_cuda.h"

#include <cuda_runtime_api.h>

#define CK(call) assert_int_equal((int)(call), (int)cudaSuccess)

static void test_equal_to_cpu(void **state)
{
    (void)state;
    satfeat_ctx *gpu = test_cuda_ctx_or_skip(), *cpu;
    assert_int_equal(satfeat_ctx_new(&cpu, SATFEAT_BACKEND_CPU, -1), SATFEAT_OK);
    assert_int_equal(satfeat_ctx_set_threads(cpu, 2), SATFEAT_OK);
    const int small = getenv("SATFEAT_TEST_SMALL") != NULL;
    const size_t sizes[][2] = {{0, 5},     {5, 0},      {1, 1},      {1, 2},     {2, 1},
                               {1, 2000},  {2000, 1},   {63, 65},    {64, 64},   {65, 129},
                               {127, 191}, {500, 2100}, {2000, 2000}, {3001, 2500}};
    const size_t nsizes = small ? 10 : sizeof sizes / sizeof sizes[0];
    const satfeat_match_params ps[] = {match_params_of(0.8, 1, 1, 0), match_params_of(1.0, 0, 0, 0),
                                       match_params_of(0.9, 0, 1, 0), match_params_of(0.7, 1, 0, 0),
                                       match_params_of(0.8, 1, 1, 15), match_params_of(1.0, 1, 0, 40)};
    test_rng r;
    test_rng_seed(&r, 31337);
    size_t checked = 0, sets = 0;
    for (size_t k = 0; k < nsizes; k++)
        for (int dim = 64; dim <= 128; dim += 64) {
            match_set s = match_set_random(&r, sizes[k][0], sizes[k][1], dim, 0.25f);
            for (size_t q = 0; q < sizeof ps / sizeof ps[0]; q++)
                for (int use_pred = 0; use_pred < 2; use_pred++) {
                    const double *pred = use_pred ? s.predicted : NULL;
                    satfeat_match_pair *a, *b;
                    const size_t na = match_run(cpu, &s, pred, &ps[q], &a);
                    const size_t nb = match_run(gpu, &s, pred, &ps[q], &b);
                    if (na != nb || memcmp(a, b, na * sizeof *a) != 0)
                        fprintf(stderr, "differs: %zu x %zu dim %d params %zu pred %d: %zu vs %zu\n",
                                s.n1, s.n2, dim, q, use_pred, na, nb);
                    assert_int_equal(na, nb);
                    assert_memory_equal(a, b, na * sizeof *a);
                    checked += na;
                    sets++;
                    free(a);
                    free(b);
                }
            match_set_free(&s);
        }
    printf("CUDA == CPU on %zu runs, %zu matches\n", sets, checked);
    assert_true(checked > 1000);
    satfeat_ctx_delete(cpu);
    satfeat_ctx_delete(gpu);
}

/* Copies a set to the device. */
typedef struct dev_set {
    satfeat_keypoint *kp1, *kp2;
    float *desc1, *desc2;
    double *pred;
} dev_set;

static void *upload(const void *p, size_t bytes)
{
    void *d = NULL;
    CK(cudaMalloc(&d, bytes ? bytes : 1));
    if (bytes) CK(cudaMemcpy(d, p, bytes, cudaMemcpyHostToDevice));
    return d;
}

static dev_set dev_upload(const match_set *s)
{
    dev_set d;
    d.kp1 = upload(s->kp1, s->n1 * sizeof *s->kp1);
    d.kp2 = upload(s->kp2, s->n2 * sizeof *s->kp2);
    d.desc1 = upload(s->desc1, s->n1 * (size_t)s->dim * sizeof(float));
    d.desc2 = upload(s->desc2, s->n2 * (size_t)s->dim * sizeof(float));
    d.pred = upload(s->predicted, s->n1 * 2 * sizeof(double));
    return d;
}

static void dev_free(dev_set *d)
{
    CK(cudaFree(d->kp1));
    CK(cudaFree(d->kp2));
    CK(cudaFree(d->desc1));
    CK(cudaFree(d->desc2));
    CK(cudaFree(d->pred));
}

static void test_device_entry(void **state)
{
    (void)state;
    satfeat_ctx *gpu = test_cuda_ctx_or_skip(), *cpu;
    assert_int_equal(satfeat_ctx_new(&cpu, SATFEAT_BACKEND_CPU, -1), SATFEAT_OK);
    test_rng r;
    test_rng_seed(&r, 4242);
    match_set s = match_set_random(&r, 777, 1023, 128, 0.2f);
    dev_set d = dev_upload(&s);
    cudaStream_t stream;
    CK(cudaStreamCreate(&stream));
    const satfeat_match_params p = match_params_of(0.8, 1, 1, 25);
    satfeat_match_pair *a;
    const size_t na = match_run(cpu, &s, s.predicted, &p, &a);
    assert_true(na > 50);
    satfeat_matches *list = NULL;
    assert_int_equal(satfeat_match_descriptors_device(gpu, d.kp1, d.desc1, s.n1, d.kp2, d.desc2,
                                                      s.n2, 128, d.pred, &p, &list, stream),
                     SATFEAT_OK);
    assert_int_equal(satfeat_matches_count(list), na);
    assert_memory_equal(a, satfeat_matches_data(list), na * sizeof *a);
    /* the host-memory call on the GPU: the same list, refilled in place */
    satfeat_matches *host = NULL;
    assert_int_equal(match_arrays(gpu, s.kp1, s.desc1, s.n1, s.kp2, s.desc2, s.n2, 128,
                                  s.predicted, &p, &host),
                     SATFEAT_OK);
    assert_int_equal(satfeat_matches_count(host), na);
    assert_memory_equal(a, satfeat_matches_data(host), na * sizeof *a);
    /* the legacy default stream, and empty lists */
    assert_int_equal(satfeat_match_descriptors_device(gpu, d.kp1, d.desc1, s.n1, d.kp2, d.desc2,
                                                      s.n2, 128, NULL, &p, &list, NULL),
                     SATFEAT_OK);
    assert_int_equal(satfeat_match_descriptors_device(gpu, d.kp1, d.desc1, 0, d.kp2, d.desc2,
                                                      s.n2, 128, NULL, &p, &list, stream),
                     SATFEAT_OK);
    assert_int_equal(satfeat_matches_count(list), 0);
    satfeat_matches_delete(list);
    satfeat_matches_delete(host);
    CK(cudaStreamDestroy(stream));
    dev_free(&d);
    free(a);
    match_set_free(&s);
    satfeat_ctx_delete(cpu);
    satfeat_ctx_delete(gpu);
}

/* Matches query against train (guided when pred is not NULL) on both contexts, asserts the same
 * list, and returns a malloc'd copy of it with its count in *n. */
static satfeat_match_pair *same_on_both(satfeat_ctx *gpu, satfeat_ctx *cpu,
                                        const satfeat_features *query,
                                        const satfeat_features *train, const double *pred,
                                        const satfeat_match_params *p, size_t *n)
{
    satfeat_matches *lists[2] = {NULL, NULL};
    satfeat_ctx *ctxs[2] = {gpu, cpu};
    for (int i = 0; i < 2; i++)
        assert_int_equal(pred ? satfeat_match_guided(ctxs[i], query, train, pred, p, &lists[i])
                              : satfeat_match(ctxs[i], query, train, p, &lists[i]),
                         SATFEAT_OK);
    *n = satfeat_matches_count(lists[1]);
    assert_int_equal(satfeat_matches_count(lists[0]), *n);
    satfeat_match_pair *copy = malloc((*n + 1) * sizeof *copy);
    assert_non_null(copy);
    if (*n) {
        assert_memory_equal(satfeat_matches_data(lists[0]), satfeat_matches_data(lists[1]),
                            *n * sizeof *copy);
        memcpy(copy, satfeat_matches_data(lists[1]), *n * sizeof *copy);
    }
    satfeat_matches_delete(lists[0]);
    satfeat_matches_delete(lists[1]);
    return copy;
}

/* 1 when two match lists differ. */
static int lists_differ(const satfeat_match_pair *a, size_t na, const satfeat_match_pair *b,
                        size_t nb)
{
    return na != nb || (na && memcmp(a, b, na * sizeof *a) != 0);
}

/* The device copies a context keeps of feature sets (their stamps): a set matched again unchanged
 * is not uploaded again, and a set refilled in place (the same arrays, new contents; fewer
 * features; emptied) is. Every answer equals the CPU's and follows the new contents. */
static void test_kept_sets(void **state)
{
    (void)state;
    satfeat_ctx *gpu = test_cuda_ctx_or_skip(), *cpu;
    assert_int_equal(satfeat_ctx_new(&cpu, SATFEAT_BACKEND_CPU, -1), SATFEAT_OK);
    test_rng r;
    test_rng_seed(&r, 5151);
    match_set a = match_set_random(&r, 600, 900, 64, 0.2f);
    match_set b = match_set_random(&r, 600, 900, 64, 0.2f);
    satfeat_features *q = NULL, *t = NULL;
    assert_int_equal(satfeat_features_new(&q), SATFEAT_OK);
    assert_int_equal(satfeat_features_new(&t), SATFEAT_OK);
    const satfeat_descriptor_kind k = SATFEAT_DESCRIPTOR_SURF64;
    assert_int_equal(satfeat_features_assign(q, a.kp1, a.desc1, a.n1, k, 640, 480), SATFEAT_OK);
    assert_int_equal(satfeat_features_assign(t, a.kp2, a.desc2, a.n2, k, 640, 480), SATFEAT_OK);
    const satfeat_match_params p = match_params_of(0.8, 1, 1, 0);
    const satfeat_match_params pg = match_params_of(0.8, 0, 1, 25);
    size_t n0, n1, n2, n3, n4;
    satfeat_match_pair *m0 = same_on_both(gpu, cpu, q, t, NULL, &p, &n0);
    assert_true(n0 > 50);
    satfeat_match_pair *m1 = same_on_both(gpu, cpu, q, t, NULL, &p, &n1); /* both kept */
    assert_false(lists_differ(m0, n0, m1, n1));
    free(m1);
    m1 = same_on_both(gpu, cpu, q, t, a.predicted, &pg, &n1); /* kept, guided */
    {
        /* NaN predictions (an AR session's features predicted outside the frame): those
         * queries get no match, on both backends; without the mutual check the others keep
         * theirs */
        double *pn = malloc(2 * a.n1 * sizeof *pn);
        assert_non_null(pn);
        memcpy(pn, a.predicted, 2 * a.n1 * sizeof *pn);
        for (size_t i = 0; i < a.n1; i += 3) pn[2 * i] = pn[2 * i + 1] = NAN;
        const satfeat_match_params pu = match_params_of(0.8, 0, 1, 25);
        size_t nu, nn, kept = 0;
        satfeat_match_pair *mu = same_on_both(gpu, cpu, q, t, a.predicted, &pu, &nu);
        satfeat_match_pair *mn = same_on_both(gpu, cpu, q, t, pn, &pu, &nn);
        for (size_t j = 0; j < nu; j++)
            if (mu[j].query % 3 != 0) {
                assert_true(kept < nn);
                assert_memory_equal(&mn[kept], &mu[j], sizeof *mu);
                kept++;
            }
        assert_int_equal(kept, nn);
        assert_true(nn > 20 && nn < nu);
        free(mu);
        free(mn);
        free(pn);
    }
    /* the train refilled in place: same size, so the same host arrays, other contents */
    const satfeat_keypoint *before = satfeat_features_keypoints(t);
    assert_int_equal(satfeat_features_assign(t, b.kp2, b.desc2, b.n2, k, 640, 480), SATFEAT_OK);
    assert_ptr_equal(satfeat_features_keypoints(t), before);
    satfeat_match_pair *m2 = same_on_both(gpu, cpu, q, t, NULL, &p, &n2);
    assert_true(lists_differ(m0, n0, m2, n2));
    /* the query refilled, then the train cut to a third */
    assert_int_equal(satfeat_features_assign(q, b.kp1, b.desc1, b.n1, k, 640, 480), SATFEAT_OK);
    satfeat_match_pair *m3 = same_on_both(gpu, cpu, q, t, NULL, &p, &n3);
    assert_true(lists_differ(m2, n2, m3, n3));
    assert_int_equal(satfeat_features_assign(t, b.kp2, b.desc2, b.n2 / 3, k, 640, 480),
                     SATFEAT_OK);
    satfeat_match_pair *m4 = same_on_both(gpu, cpu, q, t, NULL, &p, &n4);
    assert_true(lists_differ(m3, n3, m4, n4));
    /* the roles swapped (each set now in the other's slot), and back */
    free(same_on_both(gpu, cpu, t, q, NULL, &p, &n4));
    free(same_on_both(gpu, cpu, q, t, NULL, &p, &n4));
    free(m0);
    free(m1);
    free(m2);
    free(m3);
    free(m4);
    satfeat_features_delete(q);
    satfeat_features_delete(t);
    match_set_free(&a);
    match_set_free(&b);
    satfeat_ctx_delete(cpu);
    satfeat_ctx_delete(gpu);
}

static int cmp_float(const void *a, const void *b)
{
    const float x = *(const float *)a, y = *(const float *)b;
    return x < y ? -1 : x > y;
}

/* Kernel time of the launcher (CUDA events, median of 50 after warm-up) and wall time of the
 * public device call, for 2000 x 2000 x 64. */
static void test_timing(void **state)
{
    (void)state;
    satfeat_ctx *gpu = test_cuda_ctx_or_skip();
    test_rng r;
    test_rng_seed(&r, 99);
    match_set s = match_set_random(&r, 2000, 2000, 64, 0.2f);
    dev_set d = dev_upload(&s);
    const satfeat_match_params pars[] = {match_params_of(0.8, 1, 0, 0), match_params_of(0.8, 1, 1, 0),
                                         match_params_of(0.8, 1, 1, 20)};
    const char *names[] = {"no gates", "same Laplacian", "Laplacian + radius 20"};
    cudaStream_t stream;
    CK(cudaStreamCreate(&stream));
    void *scratch = NULL, *out = NULL;
    CK(cudaMalloc(&scratch, satfeat_match_cuda_scratch_bytes(2000, 2000)));
    CK(cudaMalloc(&out, 2000 * sizeof(satfeat_match_pair) + 256));
    cudaEvent_t e0, e1;
    CK(cudaEventCreate(&e0));
    CK(cudaEventCreate(&e1));
    for (int q = 0; q < 3; q++) {
        satfeat_match_cuda_args a;
        memset(&a, 0, sizeof a);
        a.kp1 = d.kp1;
        a.desc1 = d.desc1;
        a.n1 = 2000;
        a.kp2 = d.kp2;
        a.desc2 = d.desc2;
        a.n2 = 2000;
        a.dim = 64;
        a.predicted = d.pred;
        a.same_laplacian = pars[q].same_laplacian;
        a.mutual = pars[q].mutual;
        a.radius2 = pars[q].radius * pars[q].radius;
        a.ratio2 = (float)(pars[q].ratio * pars[q].ratio);
        a.matches = out;
        a.count = (unsigned int *)((char *)out + 2000 * sizeof(satfeat_match_pair));
        /* under the sanitizers (SATFEAT_TEST_SMALL) a few launches exercise the same code */
        const int timed = getenv("SATFEAT_TEST_SMALL") ? 3 : 50;
        float ms[50];
        const char *failed = "";
        for (int it = 0; it < 10 + timed; it++) {
            CK(cudaEventRecord(e0, stream));
            assert_int_equal(satfeat_match_cuda_launch(&a, scratch, stream, &failed), 0);
            CK(cudaEventRecord(e1, stream));
            CK(cudaEventSynchronize(e1));
            if (it >= 10) CK(cudaEventElapsedTime(&ms[it - 10], e0, e1));
        }
        qsort(ms, (size_t)timed, sizeof ms[0], cmp_float);
        printf("CUDA match 2000 x 2000 x 64, %s: %.1f us (kernels, median of %d; min %.1f)\n",
               names[q], ms[timed / 2] * 1000.0, timed, ms[0] * 1000.0);
        /* the public device call, wall time including scratch, syncs and the download */
        satfeat_matches *m = NULL;
        CK(cudaEventRecord(e0, stream));
        const int calls = getenv("SATFEAT_TEST_SMALL") ? 2 : 20;
        for (int it = 0; it < calls; it++)
            assert_int_equal(satfeat_match_descriptors_device(gpu, d.kp1, d.desc1, 2000, d.kp2,
                                                              d.desc2, 2000, 64, d.pred, &pars[q],
                                                              &m, stream),
                             SATFEAT_OK);
        const size_t n = satfeat_matches_count(m);
        satfeat_matches_delete(m);
        CK(cudaEventRecord(e1, stream));
        CK(cudaEventSynchronize(e1));
        float total = 0;
        CK(cudaEventElapsedTime(&total, e0, e1));
        printf("  satfeat_match_descriptors_device: %.1f us per call (mean of %d), %zu matches\n",
               total * 1000.0 / calls, calls, n);
    }
    struct cudaDeviceProp prop;
    CK(cudaGetDeviceProperties(&prop, 0));
    printf("device: %s\n", prop.name);
    CK(cudaEventDestroy(e0));
    CK(cudaEventDestroy(e1));
    CK(cudaFree(scratch));
    CK(cudaFree(out));
    CK(cudaStreamDestroy(stream));
    dev_free(&d);
    match_set_free(&s);
    satfeat_ctx_delete(gpu);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_equal_to_cpu),
        cmocka_unit_test(test_device_entry),
        cmocka_unit_test(test_kept_sets),
        cmocka_unit_test(test_timing),
    };
    if (getenv("SATFEAT_TEST_TIMING_ONLY")) /* profiling: only the timing test */
        return _cmocka_run_group_tests("timing", tests + 3, 1, NULL, NULL);
    return cmocka_run_group_tests(tests, NULL, NULL);
}
#else
int main(void)
{
    return test_main_without_cuda();
}
#endif
