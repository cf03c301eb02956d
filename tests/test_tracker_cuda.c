/* test_tracker_cuda.c - the tracker on a CUDA context returns the CPU tracker's tracks bit for
 * bit (ids, positions, every field, descriptors) and the same frame motions, on a translating
 * blob world and on the first 12 frames of dune (with the defaults and with continue_threshold),
 * through host frames, through device frames on a caller stream and through frames in flight
 * (push / pop). Skipped without a CUDA device. */
#include "tracker_testutil.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifdef SATFEAT_TEST_HAVE_CUDA

/* Runs `n` frames on the CPU and on `gpu` (host and device frames) with `p` (NULL: the
 * defaults) and requires equality. */
static void compare(satfeat_ctx *gpu, const satfeat_tracker_params *p, uint8_t **f, int n, int w,
                    int h)
{
    satfeat_ctx *cpu = NULL;
    assert_int_equal(satfeat_ctx_new(&cpu, SATFEAT_BACKEND_CPU, -1), SATFEAT_OK);
    tracker_frame_out *a = tracker_run(cpu, p, f, n, w, h, 0);
    tracker_frame_out *b = tracker_run(gpu, p, f, n, w, h, 0);
    tracker_frame_out *c = tracker_run(gpu, p, f, n, w, h, 1);
    tracker_frame_out *d = tracker_run_pipelined(gpu, p, f, n, w, h);
    size_t total = 0;
    for (int k = 0; k < n; k++) total += a[k].count;
    printf("%d frames of %d x %d: %zu track records compared\n", n, w, h, total);
    assert_true(total > 0);
    tracker_runs_equal(a, b, n, 64);
    tracker_runs_equal(a, c, n, 64);
    tracker_runs_equal(a, d, n, 64);
    tracker_run_free(a, n);
    tracker_run_free(b, n);
    tracker_run_free(c, n);
    tracker_run_free(d, n);
    satfeat_ctx_delete(cpu);
}

static void test_translate_equal(void **state)
{
    (void)state;
    satfeat_ctx *gpu = test_cuda_ctx_or_skip();
    enum { W = 320, H = 240, N = 10 };
    blob_world world;
    blob_world_make(&world, 700, 0, 0, W + 120, H + 120, 42);
    uint8_t *f[N];
    for (int k = 0; k < N; k++) {
        f[k] = malloc(W * H);
        assert_non_null(f[k]);
        blob_world_render(&world, 40 + k * 3.3, 40 - k * 1.7, f[k], W, H);
    }
    compare(gpu, NULL, f, N, W, H);
    for (int k = 0; k < N; k++) free(f[k]);
    blob_world_free(&world);
    satfeat_ctx_delete(gpu);
}

static void test_dune_equal(void **state)
{
    (void)state;
    satfeat_ctx *gpu = test_cuda_ctx_or_skip();
    enum { N = 12 };
    uint8_t **f = dune_frames(N);
    compare(gpu, NULL, f, N, 640, 480);
    frames_free(f, N);
    satfeat_ctx_delete(gpu);
}

/* The last-chance pass on (continue_threshold): the weak keypoints and their matches too. */
static void test_dune_weak_equal(void **state)
{
    (void)state;
    satfeat_ctx *gpu = test_cuda_ctx_or_skip();
    enum { N = 12 };
    uint8_t **f = dune_frames(N);
    satfeat_tracker_params p = satfeat_tracker_params_default();
    p.continue_threshold = 0.00005;
    compare(gpu, &p, f, N, 640, 480);
    frames_free(f, N);
    satfeat_ctx_delete(gpu);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_translate_equal),
        cmocka_unit_test(test_dune_equal),
        cmocka_unit_test(test_dune_weak_equal),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

#else

int main(void)
{
    return test_main_without_cuda();
}

#endif
