/* test_threads_ctx.c - the header's promise that separate contexts used from separate threads
 * never interfere, checked with POSIX threads: each thread makes its own context, SAT, detector
 * (features), matcher call and tracker over frames of its own, all at once, and every result
 * must equal the same work done serially first. Under ThreadSanitizer (SATFEAT_TSAN, label tsan)
 * this also catches shared mutable state inside the library (lazily filled tables, globals). */
#include "detect_synth.h"
#include "features_testutil.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NT 4
#define W 160
#define H 120
#define CAP 4096

/* What one thread computes; the serial run fills `want`, the threaded run `got`. */
typedef struct work {
    const uint8_t *img[2]; /* two frames: the second is the first moved by a few pixels */
    uint32_t sat[(W + 1) * (H + 1)];
    satfeat_features *f[2]; /* the two frames' features */
    size_t n_kp;
    satfeat_match_pair matches[CAP];
    size_t n_matches;
    satfeat_track tracks[CAP];
    size_t n_tracks;
    satfeat_status status;
    char error[256]; /* the context's message when status is not SATFEAT_OK */
} work;

/* Detects frame 0 and 1, matches them, tracks both and takes frame 0's table; records the first
 * failing status (cmocka's asserts must stay on the main thread). */
static void *run(void *arg)
{
    work *w = arg;
    satfeat_ctx *ctx = NULL;
    satfeat_detector *det = NULL;
    satfeat_tracker *tr = NULL;
    satfeat_matches *list = NULL;
    satfeat_status st = satfeat_ctx_new(&ctx, SATFEAT_BACKEND_CPU, -1);
    if (st == SATFEAT_OK) st = satfeat_sat_u8(ctx, w->img[0], W, W, H, w->sat,
                                              (W + 1) * sizeof(uint32_t), SATFEAT_SAT_AUTO);
    const satfeat_detector_params dp = satfeat_detector_params_default();
    if (st == SATFEAT_OK) st = satfeat_detector_new(ctx, &dp, W, H, &det);
    for (int k = 0; k < 2 && st == SATFEAT_OK; k++) {
        const satfeat_image_view v = satfeat_image_view_host(w->img[k], W, H, 0);
        st = satfeat_detect(det, &v, &w->f[k]);
    }
    w->n_kp = satfeat_features_count(w->f[0]);
    satfeat_match_params mp = satfeat_match_params_default();
    if (st == SATFEAT_OK) st = satfeat_match(ctx, w->f[0], w->f[1], &mp, &list);
    if (st == SATFEAT_OK) {
        w->n_matches = satfeat_matches_count(list); /* at most one per query: <= CAP */
        memcpy(w->matches, satfeat_matches_data(list), w->n_matches * sizeof *w->matches);
    }
    if (st == SATFEAT_OK) st = satfeat_tracker_new(ctx, NULL, W, H, &tr);
    satfeat_frame_motion m;
    for (int f = 0; f < 2 && st == SATFEAT_OK; f++) {
        const satfeat_image_view v = satfeat_image_view_host(w->img[f], W, H, 0);
        st = satfeat_tracker_track(tr, &v, &m);
    }
    if (st == SATFEAT_OK) {
        const satfeat_track *t = satfeat_tracker_tracks(tr, &w->n_tracks);
        if (w->n_tracks > CAP) st = SATFEAT_ERR_LIMIT;
        else memcpy(w->tracks, t, w->n_tracks * sizeof *t);
    }
    if (st != SATFEAT_OK && ctx) snprintf(w->error, sizeof w->error, "%s", satfeat_ctx_last_error(ctx));
    satfeat_tracker_delete(tr);
    satfeat_matches_delete(list);
    satfeat_detector_delete(det);
    satfeat_ctx_delete(ctx);
    w->status = st;
    return NULL;
}

static void test_threads_with_own_contexts(void **state)
{
    (void)state;
    uint8_t *frames[NT][2];
    work *want = calloc(NT, sizeof *want), *got = calloc(NT, sizeof *got);
    assert_true(want && got);
    for (int t = 0; t < NT; t++) {
        test_rng rng;
        test_rng_seed(&rng, 100 + (uint64_t)t);
        frames[t][0] = synth_random_blobs(&rng, W, H, 40);
        frames[t][1] = malloc(W * H);
        assert_non_null(frames[t][1]);
        for (int y = 0; y < H; y++) /* frame 1: frame 0 moved 3 px right and 2 px down */
            for (int x = 0; x < W; x++)
                frames[t][1][y * W + x] =
                    frames[t][0][(y >= 2 ? y - 2 : 0) * W + (x >= 3 ? x - 3 : 0)];
        want[t].img[0] = got[t].img[0] = frames[t][0];
        want[t].img[1] = got[t].img[1] = frames[t][1];
        run(&want[t]);
        if (want[t].status != SATFEAT_OK) print_error("serial run %d: %s\n", t, want[t].error);
        assert_int_equal(want[t].status, SATFEAT_OK);
        print_message("thread %d: %zu keypoints, %zu matches, %zu tracks\n", t, want[t].n_kp,
                      want[t].n_matches, want[t].n_tracks);
        assert_true(want[t].n_kp > 10 && want[t].n_matches > 5 && want[t].n_tracks > 5);
    }
    pthread_t th[NT];
    for (int t = 0; t < NT; t++) assert_int_equal(pthread_create(&th[t], NULL, run, &got[t]), 0);
    for (int t = 0; t < NT; t++) assert_int_equal(pthread_join(th[t], NULL), 0);
    for (int t = 0; t < NT; t++) {
        if (got[t].status != SATFEAT_OK) print_error("thread %d: %s\n", t, got[t].error);
        assert_int_equal(got[t].status, SATFEAT_OK);
        assert_memory_equal(got[t].sat, want[t].sat, sizeof want[t].sat);
        assert_int_equal(got[t].n_kp, want[t].n_kp);
        synth_assert_same(satfeat_features_keypoints(got[t].f[0]),
                          satfeat_features_keypoints(want[t].f[0]), want[t].n_kp);
        assert_memory_equal(satfeat_features_descriptors(got[t].f[0]),
                            satfeat_features_descriptors(want[t].f[0]),
                            want[t].n_kp * 64 * sizeof(float));
        assert_int_equal(got[t].n_matches, want[t].n_matches);
        assert_memory_equal(got[t].matches, want[t].matches,
                            want[t].n_matches * sizeof(satfeat_match_pair));
        assert_int_equal(got[t].n_tracks, want[t].n_tracks);
        assert_memory_equal(got[t].tracks, want[t].tracks, want[t].n_tracks * sizeof(satfeat_track));
        free(frames[t][0]);
        free(frames[t][1]);
        for (int k = 0; k < 2; k++) {
            satfeat_features_delete(want[t].f[k]);
            satfeat_features_delete(got[t].f[k]);
        }
    }
    free(want);
    free(got);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_threads_with_own_contexts),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
