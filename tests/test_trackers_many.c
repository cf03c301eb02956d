/* test_trackers_many.c - satfeat_trackers_track (many streams in one call) gives every tracker
 * exactly the tracks, descriptors and motions of its own satfeat_tracker_track run, with
 * trackers on contexts of their own and trackers sharing one, on the CPU and (when a device is
 * there) on CUDA; a frame that fails fails alone; bad calls change nothing. Threads: label tsan. */
#include "tracker_testutil.h"

#include <stdlib.h>
#include <string.h>

enum { STREAMS = 6, FRAMES = 7, W = 240, H = 180, SHARED = 4 /* streams SHARED.. share a context */ };

/* Stream s: its own blob world seen through a window moving along its own path. */
static uint8_t **stream_frames(int s)
{
    blob_world w;
    blob_world_make(&w, 900, 0, 0, W + 160, H + 160, 100 + (uint64_t)s);
    uint8_t **f = calloc(FRAMES, sizeof *f);
    assert_non_null(f);
    for (int k = 0; k < FRAMES; k++) {
        f[k] = malloc((size_t)W * H);
        assert_non_null(f[k]);
        blob_world_render(&w, 40 + k * (1.5 + 0.4 * s), 40 + k * (0.8 - 0.3 * s), f[k], W, H);
    }
    blob_world_free(&w);
    return f;
}

/* The contexts of the many-streams run: one each for streams 0..SHARED-1, one for the rest. */
static satfeat_ctx *make_ctx(satfeat_backend backend)
{
    satfeat_ctx *ctx = NULL;
    assert_int_equal(satfeat_ctx_new(&ctx, backend, 0), SATFEAT_OK);
    if (backend == SATFEAT_BACKEND_CPU) assert_int_equal(satfeat_ctx_set_threads(ctx, 1), SATFEAT_OK);
    return ctx;
}

static void many_equals_single(satfeat_backend backend)
{
    uint8_t **f[STREAMS];
    tracker_frame_out *want[STREAMS], *got[STREAMS];
    satfeat_ctx *ctx[STREAMS] = {0};
    satfeat_tracker *t[STREAMS];
    for (int s = 0; s < STREAMS; s++) {
        f[s] = stream_frames(s);
        satfeat_ctx *single = make_ctx(backend);
        want[s] = tracker_run(single, NULL, f[s], FRAMES, W, H, 0);
        satfeat_ctx_delete(single);
        got[s] = calloc(FRAMES, sizeof *got[s]);
        assert_non_null(got[s]);
        ctx[s] = s <= SHARED ? make_ctx(backend) : ctx[SHARED];
        assert_int_equal(satfeat_tracker_new(ctx[s], NULL, W, H, &t[s]), SATFEAT_OK);
    }
    int threads[] = {0, 1, 3};
    for (int k = 0; k < FRAMES; k++) {
        satfeat_image_view v[STREAMS];
        satfeat_frame_motion m[STREAMS];
        satfeat_status st[STREAMS];
        for (int s = 0; s < STREAMS; s++) v[s] = satfeat_image_view_host(f[s][k], W, H, 0);
        assert_int_equal(satfeat_trackers_track(t, v, STREAMS, threads[k % 3], m, st), SATFEAT_OK);
        for (int s = 0; s < STREAMS; s++) {
            assert_int_equal(st[s], SATFEAT_OK);
            assert_int_equal(satfeat_tracker_pending(t[s]), 0);
            got[s][k].status = st[s];
            got[s][k].motion = m[s];
            tracker_frame_copy(t[s], 64, &got[s][k]);
        }
    }
    for (int s = 0; s < STREAMS; s++) {
        assert_true(want[s][FRAMES - 1].count > 20); /* the streams really track */
        tracker_runs_equal(want[s], got[s], FRAMES, 64);
        tracker_run_free(want[s], FRAMES);
        tracker_run_free(got[s], FRAMES);
        satfeat_tracker_delete(t[s]);
        frames_free(f[s], FRAMES);
    }
    for (int s = 0; s <= SHARED; s++) satfeat_ctx_delete(ctx[s]);
}

static void test_cpu_many_equals_single(void **state)
{
    (void)state;
    many_equals_single(SATFEAT_BACKEND_CPU);
}

static void test_cuda_many_equals_single(void **state)
{
    (void)state;
    satfeat_ctx_delete(test_cuda_ctx_or_skip());
    many_equals_single(SATFEAT_BACKEND_CUDA);
}

/* A frame of the wrong size fails alone; refused calls change no tracker. */
static void test_failures(void **state)
{
    (void)state;
    uint8_t **f = stream_frames(0);
    satfeat_ctx *ca = make_ctx(SATFEAT_BACKEND_CPU), *cb = make_ctx(SATFEAT_BACKEND_CPU);
    satfeat_tracker *t[3];
    assert_int_equal(satfeat_tracker_new(ca, NULL, W, H, &t[0]), SATFEAT_OK);
    assert_int_equal(satfeat_tracker_new(cb, NULL, W, H, &t[1]), SATFEAT_OK);
    assert_int_equal(satfeat_tracker_new(cb, NULL, W, H, &t[2]), SATFEAT_OK);
    satfeat_image_view v[3];
    satfeat_status st[3];
    satfeat_frame_motion m[3];
    for (int s = 0; s < 3; s++) v[s] = satfeat_image_view_host(f[0], W, H, 0);
    assert_int_equal(satfeat_trackers_track(t, v, 0, 0, m, st), SATFEAT_OK);
    assert_int_equal(satfeat_trackers_track(NULL, v, 3, 0, m, st), SATFEAT_ERR_ARG);
    assert_int_equal(satfeat_trackers_track(t, NULL, 3, 0, m, st), SATFEAT_ERR_ARG);
    assert_int_equal(satfeat_trackers_track(t, v, 3, 0, m, NULL), SATFEAT_ERR_ARG);
    assert_int_equal(satfeat_trackers_track(t, v, 3, -1, m, st), SATFEAT_ERR_ARG);
    satfeat_tracker *twice[3] = {t[0], t[1], t[0]};
    assert_int_equal(satfeat_trackers_track(twice, v, 3, 0, m, st), SATFEAT_ERR_ARG);
    assert_non_null(strstr(satfeat_ctx_last_error(ca), "listed twice"));
    satfeat_tracker *with_null[3] = {t[0], NULL, t[2]};
    assert_int_equal(satfeat_trackers_track(with_null, v, 3, 0, m, st), SATFEAT_ERR_ARG);
    for (int s = 0; s < 3; s++) assert_null(satfeat_tracker_tracks(t[s], NULL));

    /* the first frames: all tracked */
    assert_int_equal(satfeat_trackers_track(t, v, 3, 2, m, st), SATFEAT_OK);
    size_t before[3];
    for (int s = 0; s < 3; s++) satfeat_tracker_tracks(t[s], &before[s]);
    assert_true(before[0] > 20 && before[0] == before[1] && before[1] == before[2]);
    /* frame 2 of the second call has another size: it alone fails (a tracker's frames keep the
     * first frame's size), the others go on */
    for (int s = 0; s < 3; s++) v[s] = satfeat_image_view_host(f[1], W, H, 0);
    v[1] = satfeat_image_view_host(f[1], W - 8, H, W);
    assert_int_equal(satfeat_trackers_track(t, v, 3, 0, m, st), SATFEAT_ERR_ARG);
    assert_int_equal(st[0], SATFEAT_OK);
    assert_int_equal(st[1], SATFEAT_ERR_ARG);
    assert_int_equal(st[2], SATFEAT_OK);
    assert_true(m[0].valid && m[2].valid);
    size_t after1 = 0;
    satfeat_tracker_tracks(t[1], &after1);
    assert_int_equal(after1, before[1]);
    /* a tracker with a pushed frame pending is refused before anything runs */
    int popped = 0;
    assert_int_equal(satfeat_tracker_push(t[2], &v[2], NULL, &popped), SATFEAT_OK);
    v[1] = v[0];
    assert_int_equal(satfeat_trackers_track(t, v, 3, 0, m, st), SATFEAT_ERR_ARG);
    assert_non_null(strstr(satfeat_ctx_last_error(cb), "pending"));
    assert_int_equal(satfeat_tracker_pending(t[0]), 0);
    assert_int_equal(satfeat_tracker_pending(t[2]), 1);
    for (int s = 0; s < 3; s++) satfeat_tracker_delete(t[s]);
    satfeat_ctx_delete(ca);
    satfeat_ctx_delete(cb);
    frames_free(f, FRAMES);
}

/* Built twice: test_trackers_many (CPU; label tsan) and, with SATFEAT_TEST_MANY_CUDA,
 * test_trackers_many_cuda (label gpu: skipped without a device). */
int main(void)
{
#ifdef SATFEAT_TEST_MANY_CUDA
    const struct CMUnitTest tests[] = {cmocka_unit_test(test_cuda_many_equals_single)};
    (void)test_cpu_many_equals_single;
    (void)test_failures;
#else
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_cpu_many_equals_single),
        cmocka_unit_test(test_failures),
    };
    (void)test_cuda_many_equals_single;
#endif
    return cmocka_run_group_tests(tests, NULL, NULL);
}
