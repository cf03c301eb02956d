/* test_cuda_faults.c - GPU faults are ordinary errors (issue 16), skipped without a CUDA device:
 *  - device memory exhausted at every creation: with the free memory swept from almost nothing
 *    up to enough, satfeat_detector_new, satfeat_sequence_new, satfeat_sequence_new_lanes (whose
 *    lanes create detectors of their own) and satfeat_tracker_new either
 *    succeed or return SATFEAT_ERR_ALLOC with a message (so every allocation of the creation path
 *    fails once somewhere in the sweep), never crash, and the context stays usable: a frame
 *    detected right after each failure equals the CPU's result;
 *  - the per-call device memory of satfeat_sat_u8 and satfeat_match likewise;
 *  - a CUDA error inside a call (synchronous work asked of a stream that is capturing a graph)
 *    is SATFEAT_ERR_CUDA with the CUDA text, and the next calls on the same context work. */
#include "features_testutil.h"
#include "detect_synth.h"

#include <stdlib.h>
#include <string.h>

#ifdef SATFEAT_TEST_HAVE_CUDA
#include <cuda_runtime_api.h>

#define FRAME 512
/* Free memory added at each step of a sweep: 2 MB, or 8 MB for the sequence with lanes, whose
 * twin detectors need several times a detector's memory (at 2 MB its sweep alone outlasted the
 * memcheck run's time limit). */
#define SWEEP_STEP ((size_t)2 << 20)
#define SWEEP_STEP_LANES ((size_t)8 << 20)

/* Takes device memory until about `keep` bytes are free; returns the blocks (NULL-terminated). */
static void **fill_device(size_t keep)
{
    void **blocks = calloc(64, sizeof *blocks);
    assert_non_null(blocks);
    int n = 0;
    size_t free_b = 0, total_b = 0;
    assert_int_equal(cudaMemGetInfo(&free_b, &total_b), cudaSuccess);
    /* large blocks first, then smaller ones, so the remainder is close to `keep` */
    for (size_t block = (size_t)1 << 34; block >= ((size_t)1 << 20) && n < 63; block /= 2) {
        while (n < 63 && free_b > keep + block) {
            if (cudaMalloc(&blocks[n], block) != cudaSuccess) {
                (void)cudaGetLastError();
                break;
            }
            n++;
            assert_int_equal(cudaMemGetInfo(&free_b, &total_b), cudaSuccess);
        }
    }
    return blocks;
}

static void release_device(void **blocks)
{
    for (int i = 0; blocks[i]; i++) assert_int_equal(cudaFree(blocks[i]), cudaSuccess);
    free(blocks);
}

typedef struct fault_fixture {
    satfeat_ctx *gpu, *cpu;
    satfeat_detector *ready; /* created before the memory is taken */
    uint8_t *img;
    satfeat_keypoint *cpu_kp;
    size_t cpu_n;
} fault_fixture;

static void open_fixture(fault_fixture *f)
{
    f->gpu = test_cuda_ctx_or_skip();
    assert_int_equal(satfeat_ctx_new(&f->cpu, SATFEAT_BACKEND_CPU, 0), SATFEAT_OK);
    test_rng r;
    test_rng_seed(&r, 1611);
    f->img = synth_random_blobs(&r, FRAME, FRAME, 40);
    const satfeat_detector_params p = satfeat_detector_params_default();
    assert_int_equal(satfeat_detector_new(f->gpu, &p, FRAME, FRAME, &f->ready), SATFEAT_OK);
    f->cpu_kp = synth_detect(&p, 1, f->img, FRAME, FRAME, NULL, &f->cpu_n);
    assert_true(f->cpu_n > 10);
}

static void close_fixture(fault_fixture *f)
{
    satfeat_detector_delete(f->ready);
    satfeat_ctx_delete(f->gpu);
    satfeat_ctx_delete(f->cpu);
    free(f->img);
    free(f->cpu_kp);
}

/* The context still works: the detector made before the failure returns the CPU's keypoints. */
static void expect_usable(fault_fixture *f)
{
    size_t n = 0;
    satfeat_keypoint *kp = test_detect_copy(f->ready, f->img, FRAME, FRAME, FRAME, NULL, 0, &n, NULL);
    assert_int_equal(n, f->cpu_n);
    synth_assert_same(kp, f->cpu_kp, n);
    free(kp);
}

/* One creation under a sweep of free memory: returns the number of SATFEAT_ERR_ALLOC seen. */
typedef satfeat_status (*creation_fn)(fault_fixture *f, void **made);

static satfeat_status make_detector(fault_fixture *f, void **made)
{
    const satfeat_detector_params p = satfeat_detector_params_default();
    return satfeat_detector_new(f->gpu, &p, FRAME, FRAME, (satfeat_detector **)made);
}

static satfeat_status make_sequence(fault_fixture *f, void **made)
{
    return satfeat_sequence_new(f->ready, 3, (satfeat_sequence **)made);
}

static satfeat_status make_sequence_lanes(fault_fixture *f, void **made)
{
    return satfeat_sequence_new_lanes(f->ready, 3, 2, (satfeat_sequence **)made);
}

static satfeat_status make_tracker(fault_fixture *f, void **made)
{
    return satfeat_tracker_new(f->gpu, NULL, FRAME, FRAME, (satfeat_tracker **)made);
}

static void destroy(int which, void *made)
{
    if (which == 0) satfeat_detector_delete(made);
    if (which == 1 || which == 3) satfeat_sequence_delete(made);
    if (which == 2) satfeat_tracker_delete(made);
}

static void test_oom_at_every_creation(void **state)
{
    (void)state;
    fault_fixture f;
    open_fixture(&f);
    const creation_fn make[4] = {make_detector, make_sequence, make_tracker, make_sequence_lanes};
    static const char *names[4] = {"detector_new", "sequence_new", "tracker_new",
                                   "sequence_new_lanes"};
    for (int which = 0; which < 4; which++) {
        int failures = 0, successes = 0;
        const size_t step = which == 3 ? SWEEP_STEP_LANES : SWEEP_STEP;
        for (size_t keep = 0; successes < 2 && keep < ((size_t)4 << 30); keep += step) {
            void **blocks = fill_device(keep);
            void *made = NULL;
            satfeat_status st = make[which](&f, &made);
            if (st == SATFEAT_OK) {
                successes++;
                destroy(which, made);
            } else {
                assert_int_equal(st, SATFEAT_ERR_ALLOC);
                assert_null(made);
                assert_true(strlen(satfeat_ctx_last_error(f.gpu)) > 0);
                failures++;
            }
            release_device(blocks);
            expect_usable(&f);
        }
        print_message("%s: %d failures before it fit\n", names[which], failures);
        assert_true(failures > 0 && successes > 0);
    }
    close_fixture(&f);
}

/* The per-call device memory of the public SAT and the matcher. */
static void test_oom_inside_calls(void **state)
{
    (void)state;
    fault_fixture f;
    open_fixture(&f);
    const int n = 4096;
    uint8_t *img = calloc((size_t)n * n, 1);
    uint32_t *tab = malloc((size_t)(n + 1) * (n + 1) * 4);
    const size_t m = 20000;
    float *desc = calloc(m * 64, sizeof *desc);
    satfeat_keypoint *kp = calloc(m, sizeof *kp);
    assert_true(img && tab && desc && kp);
    for (size_t i = 0; i < m; i++) desc[i * 64 + i % 64] = 1.0f;
    void **blocks = fill_device((size_t)1 << 20);
    assert_int_equal(satfeat_sat_u8(f.gpu, img, n, n, n, tab, (size_t)(n + 1) * 4, SATFEAT_SAT_AUTO),
                     SATFEAT_ERR_ALLOC);
    const satfeat_match_params mp = satfeat_match_params_default();
    satfeat_features *fs = test_features_of(kp, desc, m, 64, n, n);
    satfeat_matches *mt = NULL;
    assert_int_equal(satfeat_match(f.gpu, fs, fs, &mp, &mt), SATFEAT_ERR_ALLOC);
    assert_int_equal(satfeat_matches_count(mt), 0);
    assert_true(strlen(satfeat_ctx_last_error(f.gpu)) > 0);
    release_device(blocks);
    expect_usable(&f);
    img[0] = 9;
    assert_int_equal(satfeat_sat_u8(f.gpu, img, n, n, n, tab, (size_t)(n + 1) * 4, SATFEAT_SAT_AUTO),
                     SATFEAT_OK);
    assert_int_equal(tab[(size_t)(n + 1) * (n + 1) - 1], 9u);
    assert_int_equal(satfeat_match(f.gpu, fs, fs, &mp, &mt), SATFEAT_OK);
    free(img);
    free(tab);
    free(desc);
    free(kp);
    satfeat_matches_delete(mt);
    satfeat_features_delete(fs);
    close_fixture(&f);
}

/* A CUDA error inside a call, provoked in a way CUDA defines: the caller's stream is capturing
 * a graph, and a call that must synchronise that stream (satfeat_match_descriptors_device
 * waits for its matches) is refused by the runtime (synchronous work on a capturing stream is
 * an error; the capture is invalidated, the context is not). The call returns SATFEAT_ERR_CUDA
 * with CUDA's text; after the capture ends, the same call on the same stream and the same
 * context work. (An earlier version passed a destroyed stream: undefined in CUDA, it crashed
 * the runtime on the H200.) */
static void test_cuda_error_inside_call(void **state)
{
    (void)state;
    fault_fixture f;
    open_fixture(&f);
    enum { N = 64, DIM = 64 };
    satfeat_keypoint kp[N];
    float desc[N * DIM];
    memset(kp, 0, sizeof kp);
    test_rng r;
    test_rng_seed(&r, 77);
    for (int i = 0; i < N; i++) {
        kp[i].x = i;
        kp[i].y = i;
        kp[i].laplacian = 1;
        for (int k = 0; k < DIM; k++) desc[i * DIM + k] = test_rng_unit(&r);
    }
    satfeat_keypoint *d_kp = NULL;
    float *d_desc = NULL;
    assert_int_equal(cudaMalloc((void **)&d_kp, sizeof kp), cudaSuccess);
    assert_int_equal(cudaMalloc((void **)&d_desc, sizeof desc), cudaSuccess);
    assert_int_equal(cudaMemcpy(d_kp, kp, sizeof kp, cudaMemcpyHostToDevice), cudaSuccess);
    assert_int_equal(cudaMemcpy(d_desc, desc, sizeof desc, cudaMemcpyHostToDevice), cudaSuccess);
    cudaStream_t s;
    assert_int_equal(cudaStreamCreate(&s), cudaSuccess);
    satfeat_matches *list = NULL;

    assert_int_equal(cudaStreamBeginCapture(s, cudaStreamCaptureModeRelaxed), cudaSuccess);
    satfeat_status st = satfeat_match_descriptors_device(f.gpu, d_kp, d_desc, N, d_kp, d_desc, N,
                                                         DIM, NULL, NULL, &list, s);
    print_message("%s\n", satfeat_ctx_last_error(f.gpu));
    cudaGraph_t g = NULL;
    (void)cudaStreamEndCapture(s, &g); /* the invalidated capture ends; no graph */
    if (g) cudaGraphDestroy(g);
    (void)cudaGetLastError();
    assert_int_equal(st, SATFEAT_ERR_CUDA);
    /* the message is "match: <call> failed: <cudaGetErrorString text>" */
    assert_non_null(strstr(satfeat_ctx_last_error(f.gpu), "failed: "));

    /* no crash after the error: the same call on the same stream works (each descriptor is its
     * own nearest neighbour), then a detection */
    assert_int_equal(satfeat_match_descriptors_device(f.gpu, d_kp, d_desc, N, d_kp, d_desc, N,
                                                      DIM, NULL, NULL, &list, s),
                     SATFEAT_OK);
    assert_int_equal(satfeat_matches_count(list), N);
    const satfeat_match_pair *m = satfeat_matches_data(list);
    for (int i = 0; i < N; i++) assert_int_equal(m[i].train, m[i].query);
    satfeat_matches_delete(list);
    expect_usable(&f);
    assert_int_equal(cudaStreamDestroy(s), cudaSuccess);
    cudaFree(d_kp);
    cudaFree(d_desc);
    close_fixture(&f);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_oom_at_every_creation),
        cmocka_unit_test(test_oom_inside_calls),
        cmocka_unit_test(test_cuda_error_inside_call),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

#else /* built without CUDA: the test skips */

int main(void)
{
    return test_main_without_cuda();
}
#endif
