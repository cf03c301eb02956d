/* test_tracker.c - the tracker on the CPU: a blob world translating by a known sub-pixel step
 * (ids continue, positions and motions follow the true shift), a target that leaves the view
 * and returns (new ids after more than max_missed frames, old ids after fewer), determinism
 * across runs and thread counts, the dune sequence against its ground-truth homographies
 * (correct-step fraction, track lengths, h_ref corner error, time per frame; floors asserted),
 * and bad input. */
#include "features_testutil.h"
#include "tracker_testutil.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define TW 320
#define TH 240
#define TN 10
static const double DX = 3.3, DY = -1.7;

/* The translating sequence: frame k shows the world from (40 + k*DX, 40 + k*DY). */
static uint8_t **translate_frames(void)
{
    blob_world w;
    blob_world_make(&w, 3000, 0, 0, TW + 120, TH + 120, 42);
    uint8_t **f = malloc(TN * sizeof *f);
    assert_non_null(f);
    for (int k = 0; k < TN; k++) {
        f[k] = malloc(TW * TH);
        assert_non_null(f[k]);
        blob_world_render(&w, 40 + k * DX, 40 + k * DY, f[k], TW, TH);
    }
    blob_world_free(&w);
    return f;
}

static satfeat_ctx *cpu_ctx(int threads)
{
    satfeat_ctx *ctx = NULL;
    assert_int_equal(satfeat_ctx_new(&ctx, SATFEAT_BACKEND_CPU, -1), SATFEAT_OK);
    assert_int_equal(satfeat_ctx_set_threads(ctx, threads), SATFEAT_OK);
    return ctx;
}

/* Index of track `id` in a frame's output (ascending ids: binary search), or -1. */
static long find_id(const tracker_frame_out *f, uint64_t id)
{
    size_t lo = 0, hi = f->count;
    while (lo < hi) {
        const size_t mid = (lo + hi) / 2;
        if (f->tracks[mid].id < id) lo = mid + 1;
        else hi = mid;
    }
    return (lo < f->count && f->tracks[lo].id == id) ? (long)lo : -1;
}

/* Ids ascending in every frame; a frame's new ids (age 0) exceed every id seen before. */
static void check_id_order(const tracker_frame_out *out, int n)
{
    uint64_t max_seen = 0;
    for (int k = 0; k < n; k++) {
        uint64_t frame_max = max_seen;
        for (size_t i = 0; i < out[k].count; i++) {
            const satfeat_track *t = &out[k].tracks[i];
            if (i > 0) assert_true(t->id > out[k].tracks[i - 1].id);
            if (t->age == 0) assert_true(t->id > max_seen);
            else assert_true(t->id <= max_seen);
            if (t->id > frame_max) frame_max = t->id;
        }
        max_seen = frame_max;
    }
}

static void test_translate(void **state)
{
    (void)state;
    uint8_t **f = translate_frames();
    satfeat_ctx *ctx = cpu_ctx(2);
    tracker_frame_out *out = tracker_run(ctx, NULL, f, TN, TW, TH, 0);
    check_id_order(out, TN);
    assert_true(out[0].count > 100);
    size_t steps = 0, good = 0, inl = 0;
    for (int k = 1; k < TN; k++) {
        const satfeat_frame_motion *m = &out[k].motion;
        /* the world moves by -(DX, DY) per frame in the image */
        double tr[9] = {1, 0, -DX, 0, 1, -DY, 0, 0, 1},
               acc[9] = {1, 0, -k * DX, 0, 1, -k * DY, 0, 0, 1};
        const double ep = corner_error(m->h_prev, tr, TW, TH), er = corner_error(m->h_ref, acc, TW, TH);
        printf("frame %d: %zu tracks, %zu keypoints, %zu matches, %zu inliers, h_prev corner err "
               "%.3f px, h_ref %.3f px (ref_valid %d)\n", k, out[k].count, m->keypoints,
               m->matches, m->inliers, ep, er, m->ref_valid);
        assert_int_equal(m->valid, 1);
        assert_true(ep < 0.2);
        assert_true(er < 0.3);
        for (size_t i = 0; i < out[k].count; i++) {
            const satfeat_track *t = &out[k].tracks[i];
            if (t->missed != 0 || t->age == 0) continue;
            const long j = find_id(&out[k - 1], t->id);
            assert_true(j >= 0);
            const satfeat_track *p = &out[k - 1].tracks[j];
            if (p->missed != 0) continue;
            steps++;
            inl += t->inlier;
            /* the world moves by -(DX, DY) in the frame */
            if (hypot(t->x - p->x + DX, t->y - p->y + DY) <= 0.5) good++;
        }
    }
    /* Tracks of frame 0 well inside the view for all frames: how many live on with one id. */
    size_t inside = 0, through = 0;
    for (size_t i = 0; i < out[0].count; i++) {
        const satfeat_track *t = &out[0].tracks[i];
        const double xe = t->x - (TN - 1) * DX, ye = t->y - (TN - 1) * DY;
        if (t->x < 20 || t->y < 20 || t->x > TW - 21 || t->y > TH - 21) continue;
        if (xe < 20 || ye < 20 || xe > TW - 21 || ye > TH - 21) continue;
        inside++;
        const long j = find_id(&out[TN - 1], t->id);
        if (j >= 0 && out[TN - 1].tracks[j].missed == 0 &&
            hypot(out[TN - 1].tracks[j].x - xe, out[TN - 1].tracks[j].y - ye) < 1.0)
            through++;
    }
    printf("translate: %zu/%zu steps within 0.5 px of the true shift, %zu inliers; %zu/%zu "
           "frame-0 tracks followed to the last frame\n", good, steps, inl, through, inside);
    assert_true(steps > 500);
    assert_true(good >= 0.95 * steps);
    assert_true(inl >= 0.95 * steps);
    assert_true(through >= 0.8 * inside);
    tracker_run_free(out, TN);
    satfeat_ctx_delete(ctx);
    frames_free(f, TN);
}

/* A jump the prediction cannot foresee: the translating world for JUMP_AT frames, then one step
 * of (JX, JY) px, far beyond the 30 px search radius around the predicted positions, then the
 * steady step again. The radius pass finds no model, the whole-frame retry finds it: every
 * frame has a motion, the jump's h_prev is right, and the tracks keep their ids across it. */
#define JUMP_N 8
#define JUMP_AT 4
static const double JX = 52.0, JY = -41.0;

static void test_jump(void **state)
{
    (void)state;
    blob_world w;
    blob_world_make(&w, 3000, 0, 0, TW + 200, TH + 200, 43);
    uint8_t **f = malloc(JUMP_N * sizeof *f);
    assert_non_null(f);
    double ox[JUMP_N], oy[JUMP_N];
    for (int k = 0; k < JUMP_N; k++) {
        ox[k] = 30 + k * DX + (k >= JUMP_AT ? JX : 0.0);
        oy[k] = 100 + k * DY + (k >= JUMP_AT ? JY : 0.0);
        f[k] = malloc(TW * TH);
        assert_non_null(f[k]);
        blob_world_render(&w, ox[k], oy[k], f[k], TW, TH);
    }
    blob_world_free(&w);
    satfeat_ctx *ctx = cpu_ctx(2);
    tracker_frame_out *out = tracker_run(ctx, NULL, f, JUMP_N, TW, TH, 0);
    check_id_order(out, JUMP_N);
    for (int k = 1; k < JUMP_N; k++) {
        const satfeat_frame_motion *m = &out[k].motion;
        const double tr[9] = {1, 0, -(ox[k] - ox[k - 1]), 0, 1, -(oy[k] - oy[k - 1]), 0, 0, 1};
        const double acc[9] = {1, 0, -(ox[k] - ox[0]), 0, 1, -(oy[k] - oy[0]), 0, 0, 1};
        const double ep = corner_error(m->h_prev, tr, TW, TH);
        const double er = corner_error(m->h_ref, acc, TW, TH);
        printf("jump frame %d: %zu matches, %zu inliers, h_prev corner err %.3f px, h_ref %.3f px\n",
               k, m->matches, m->inliers, ep, er);
        assert_int_equal(m->valid, 1);
        assert_true(ep < 0.3);
        assert_true(er < 0.3);
    }
    /* tracks seen just before the jump and inside the view after it continue with their ids */
    size_t before = 0, kept = 0;
    const tracker_frame_out *a = &out[JUMP_AT - 1], *b = &out[JUMP_AT];
    const double sx = ox[JUMP_AT] - ox[JUMP_AT - 1], sy = oy[JUMP_AT] - oy[JUMP_AT - 1];
    for (size_t i = 0; i < a->count; i++) {
        const satfeat_track *t = &a->tracks[i];
        const double xe = t->x - sx, ye = t->y - sy;
        if (t->missed != 0 || xe < 20 || ye < 20 || xe > TW - 21 || ye > TH - 21) continue;
        before++;
        const long j = find_id(b, t->id);
        if (j >= 0 && b->tracks[j].missed == 0 &&
            hypot(b->tracks[j].x - xe, b->tracks[j].y - ye) < 1.0)
            kept++;
    }
    printf("jump: %zu of %zu tracks inside the view continue across the jump\n", kept, before);
    assert_true(before > 50);
    assert_true(kept >= 0.8 * before);
    tracker_run_free(out, JUMP_N);
    satfeat_ctx_delete(ctx);
    frames_free(f, JUMP_N);
}

/* A textured patch on a flat background, shown for 3 frames, gone for `gone` frames, back. */
static void run_leave_return(int gone, int max_missed)
{
    blob_world w;
    blob_world_make(&w, 200, 60, 50, 200, 190, 7);
    const int n = 3 + gone + 2;
    uint8_t **f = malloc((size_t)n * sizeof *f);
    assert_non_null(f);
    for (int k = 0; k < n; k++) {
        f[k] = malloc(TW * TH);
        assert_non_null(f[k]);
        const int away = k >= 3 && k < 3 + gone;
        blob_world_render(&w, away ? -1000.0 : 0.0, 0.0, f[k], TW, TH);
    }
    satfeat_ctx *ctx = cpu_ctx(2);
    satfeat_tracker_params p = satfeat_tracker_params_default();
    p.max_missed = max_missed;
    tracker_frame_out *out = tracker_run(ctx, &p, f, n, TW, TH, 0);
    check_id_order(out, n);
    uint64_t max_before = 0;
    for (size_t i = 0; i < out[2].count; i++)
        if (out[2].tracks[i].id > max_before) max_before = out[2].tracks[i].id;
    assert_true(out[2].count > 50);
    const tracker_frame_out *back = &out[3 + gone];
    size_t old = 0;
    for (size_t i = 0; i < back->count; i++) old += back->tracks[i].id <= max_before;
    printf("gone %d frames (max_missed %d): %zu tracks before, %zu live in the last absent frame, "
           "%zu on return of which %zu keep old ids\n", gone, max_missed, out[2].count,
           out[2 + gone].count, back->count, old);
    if (gone > max_missed) {
        assert_int_equal(out[2 + gone].count, 0);
        assert_int_equal(old, 0);
        assert_true(back->count > 50);
        for (size_t i = 0; i < back->count; i++) assert_int_equal(back->tracks[i].age, 0);
    } else {
        assert_true(old >= 0.8 * out[2].count);
    }
    tracker_run_free(out, n);
    satfeat_ctx_delete(ctx);
    frames_free(f, n);
    blob_world_free(&w);
}

static void test_leave_return(void **state)
{
    (void)state;
    run_leave_return(7, 5); /* longer than max_missed: every returning feature is new */
    run_leave_return(2, 5); /* shorter: the tracks are picked up again with their ids */
}

static void test_determinism(void **state)
{
    (void)state;
    uint8_t **f = translate_frames();
    satfeat_ctx *c1 = cpu_ctx(1), *c2 = cpu_ctx(2);
    tracker_frame_out *a = tracker_run(c2, NULL, f, TN, TW, TH, 0);
    tracker_frame_out *b = tracker_run(c2, NULL, f, TN, TW, TH, 0);
    tracker_frame_out *c = tracker_run(c1, NULL, f, TN, TW, TH, 0);
    tracker_runs_equal(a, b, TN, 64);
    tracker_runs_equal(a, c, TN, 64);
    tracker_run_free(a, TN);
    tracker_run_free(b, TN);
    tracker_run_free(c, TN);
    satfeat_ctx_delete(c1);
    satfeat_ctx_delete(c2);
    frames_free(f, TN);
}

static int cmp_int(const void *a, const void *b)
{
    const int x = *(const int *)a, y = *(const int *)b;
    return (x > y) - (x < y);
}

#define DUNE_N 30
#define DUNE_MAX_IDS (1 << 18)

static void test_dune(void **state)
{
    (void)state;
    uint8_t **f = malloc(DUNE_N * sizeof *f);
    assert_non_null(f);
    double (*truth)[9] = malloc(DUNE_N * sizeof *truth);
    assert_non_null(truth);
    for (int k = 0; k < DUNE_N; k++) {
        f[k] = malloc(640 * 480);
        assert_non_null(f[k]);
        dune_load(k + 1, f[k]);
        dune_truth(k + 1, truth[k]);
    }
    satfeat_ctx *ctx = cpu_ctx(2);
    struct timespec t0, t1, c0, c1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &c0);
    tracker_frame_out *out = tracker_run(ctx, NULL, f, DUNE_N, 640, 480, 0);
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &c1);
    clock_gettime(CLOCK_MONOTONIC, &t1);
    const double ms = ((t1.tv_sec - t0.tv_sec) * 1e3 + (t1.tv_nsec - t0.tv_nsec) * 1e-6) / DUNE_N;
    const double cpu_ms =
        ((c1.tv_sec - c0.tv_sec) * 1e3 + (c1.tv_nsec - c0.tv_nsec) * 1e-6) / DUNE_N;
    printf("dune: tracker %.1f ms per frame wall, %.1f ms CPU time (both threads)\n", ms, cpu_ms);
    check_id_order(out, DUNE_N);
    /* the detector alone on the same frames, for the tracker's own share of the time */
    {
        const satfeat_tracker_params tp = satfeat_tracker_params_default();
        satfeat_detector *det = NULL;
        assert_int_equal(satfeat_detector_new(ctx, &tp.detector, 640, 480, &det), SATFEAT_OK);
        satfeat_features *fs = NULL; /* reused frame after frame */
        struct timespec d0, d1, e0, e1;
        clock_gettime(CLOCK_MONOTONIC, &d0);
        clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &e0);
        for (int k = 0; k < DUNE_N; k++) {
            const satfeat_image_view v = satfeat_image_view_host(f[k], 640, 480, 0);
            assert_int_equal(satfeat_detect(det, &v, &fs), SATFEAT_OK);
        }
        clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &e1);
        clock_gettime(CLOCK_MONOTONIC, &d1);
        printf("dune: detector alone %.1f ms per frame wall, %.1f ms CPU time\n",
               ((d1.tv_sec - d0.tv_sec) * 1e3 + (d1.tv_nsec - d0.tv_nsec) * 1e-6) / DUNE_N,
               ((e1.tv_sec - e0.tv_sec) * 1e3 + (e1.tv_nsec - e0.tv_nsec) * 1e-6) / DUNE_N);
        satfeat_features_delete(fs);
        satfeat_detector_delete(det);
    }

    int *birth = malloc(DUNE_MAX_IDS * sizeof(int)), *last = malloc(DUNE_MAX_IDS * sizeof(int));
    double *bx = malloc(DUNE_MAX_IDS * sizeof(double)), *by = malloc(DUNE_MAX_IDS * sizeof(double));
    assert_true(birth && last && bx && by);
    for (int i = 0; i < DUNE_MAX_IDS; i++) birth[i] = -1;
    size_t steps = 0, good = 0, inl_steps = 0, inl_good = 0;
    double ref_sum = 0, ref_max = 0;
    for (int k = 0; k < DUNE_N; k++) {
        for (size_t i = 0; i < out[k].count; i++) {
            const satfeat_track *t = &out[k].tracks[i];
            assert_true(t->id < DUNE_MAX_IDS);
            if (t->age == 0) {
                birth[t->id] = k;
                bx[t->id] = t->x;
                by[t->id] = t->y;
            }
            assert_int_equal(birth[t->id], k - t->age);
            if (t->missed == 0) last[t->id] = k;
            if (t->missed != 0 || t->age == 0) continue;
            /* birth frame b -> frame k through the truth: H1tok * inverse(H1tob) */
            double inv[9], m[9], u, v;
            mat3_inv(truth[birth[t->id]], inv);
            mat3_mul(truth[k], inv, m);
            map_point(m, bx[t->id], by[t->id], &u, &v);
            const int ok = hypot(t->x - u, t->y - v) <= 2.0;
            steps++;
            good += ok;
            inl_steps += t->inlier;
            inl_good += ok && t->inlier;
        }
        const double ce = corner_error(out[k].motion.h_ref, truth[k], 640, 480);
        if (k > 0) {
            ref_sum += ce;
            if (ce > ref_max) ref_max = ce;
        }
        printf("dune frame %2d: %4zu tracks %4zu kps %4zu matches %4zu inliers (valid %d ref %d) "
               "born %4zu ended %4zu, h_ref corner error %.2f px\n", k + 1, out[k].count,
               out[k].motion.keypoints, out[k].motion.matches, out[k].motion.inliers,
               out[k].motion.valid, out[k].motion.ref_valid, out[k].motion.born,
               out[k].motion.ended, ce);
        if (k > 0) assert_int_equal(out[k].motion.valid, 1);
    }
    /* track lengths: frames from birth to the last observation, over every track */
    int *len = malloc(DUNE_MAX_IDS * sizeof(int));
    assert_non_null(len);
    size_t ntr = 0;
    double len_sum = 0;
    for (int id = 0; id < DUNE_MAX_IDS; id++) {
        if (birth[id] < 0) continue;
        len[ntr] = last[id] - birth[id] + 1;
        len_sum += len[ntr];
        ntr++;
    }
    qsort(len, ntr, sizeof(int), cmp_int);
    const double frac = steps ? (double)good / (double)steps : 0;
    const double mean_len = len_sum / (double)ntr, median_len = len[ntr / 2];
    printf("dune: %zu track steps, %.4f within 2 px of the truth (inliers only: %.4f of %zu); %zu "
           "tracks, length mean %.2f median %.0f frames; h_ref corner error mean %.2f max %.2f "
           "px\n", steps, frac,
           inl_steps ? (double)inl_good / (double)inl_steps : 0, inl_steps, ntr, mean_len,
           median_len, ref_sum / (DUNE_N - 1), ref_max);
    /* floors below the measured values (docs/TRACKING.md: 20019 steps, 0.9972 correct, mean
     * length 12.01, h_ref corner error mean 0.62 max 1.72 px) with a margin; the correct-step
     * floor is issue 11's goal; the length floor fails without max_missed 30 and the birth
     * confirmation (8.55 without them) */
    assert_true(steps > 18000);
    assert_true(frac >= 0.99);
    assert_true(mean_len >= 11.0);
    assert_true(ref_sum / (DUNE_N - 1) <= 1.0);
    assert_true(ref_max <= 2.0);
    free(len);
    free(birth);
    free(last);
    free(bx);
    free(by);
    tracker_run_free(out, DUNE_N);
    satfeat_ctx_delete(ctx);
    for (int k = 0; k < DUNE_N; k++) free(f[k]);
    free(f);
    free(truth);
}

/* reject_outliers: with it (the default) every track seen in a frame after its birth is an
 * inlier of that frame's motion; without it (and without the guided pass, the first tracker's
 * behaviour) matches off the motion continue their tracks, flagged as outliers. Dune 1..8. */
static size_t outlier_steps(const satfeat_tracker_params *p, uint8_t **f, int n)
{
    satfeat_ctx *ctx = cpu_ctx(2);
    tracker_frame_out *out = tracker_run(ctx, p, f, n, 640, 480, 0);
    size_t bad = 0;
    for (int k = 1; k < n; k++)
        for (size_t i = 0; i < out[k].count; i++) {
            const satfeat_track *t = &out[k].tracks[i];
            bad += t->age > 0 && t->missed == 0 && !t->inlier;
        }
    tracker_run_free(out, n);
    satfeat_ctx_delete(ctx);
    return bad;
}

static void test_reject_outliers(void **state)
{
    (void)state;
    enum { N = 8 };
    uint8_t **f = dune_frames(N);
    satfeat_tracker_params p = satfeat_tracker_params_default();
    const size_t with = outlier_steps(&p, f, N);
    p.reject_outliers = 0;
    p.guided_radius = 0;
    const size_t without = outlier_steps(&p, f, N);
    printf("dune 1..8: %zu outlier observations continue tracks with reject_outliers, %zu "
           "without\n", with, without);
    assert_int_equal(with, 0);
    assert_true(without > 20);
    frames_free(f, N);
}

/* Frames in flight: push / pop give the synchronous tracker's tracks, descriptors and motions
 * bit for bit (dune 1..12, CPU); pending counts; refusals leave the queue as it was; a
 * synchronous frame is refused while frames are pending; reset drops them. */
static void test_pipeline(void **state)
{
    (void)state;
    enum { N = 12 };
    uint8_t **f = dune_frames(N);
    satfeat_ctx *ctx = cpu_ctx(2);
    tracker_frame_out *a = tracker_run(ctx, NULL, f, N, 640, 480, 0);
    tracker_frame_out *b = tracker_run_pipelined(ctx, NULL, f, N, 640, 480);
    tracker_runs_equal(a, b, N, 64);
    tracker_run_free(a, N);
    tracker_run_free(b, N);

    satfeat_tracker *t = NULL;
    assert_int_equal(satfeat_tracker_new(ctx, NULL, 640, 480, &t), SATFEAT_OK);
    size_t n = 0;
    int popped = -1;
    satfeat_frame_motion m;
    const satfeat_image_view v0 = satfeat_image_view_host(f[0], 640, 480, 0);
    const satfeat_image_view v1 = satfeat_image_view_host(f[1], 640, 480, 0);
    const satfeat_image_view v2 = satfeat_image_view_host(f[2], 640, 480, 0);
    const satfeat_image_view narrow = satfeat_image_view_host(f[1], 320, 480, 640);
    satfeat_image_view none = v0;
    none.pixels = NULL;
    assert_int_equal(satfeat_tracker_pending(NULL), 0);
    assert_int_equal(satfeat_tracker_pop(t, &m), SATFEAT_ERR_ARG);
    assert_int_equal(satfeat_tracker_pop(NULL, &m), SATFEAT_ERR_ARG);
    assert_int_equal(satfeat_tracker_push(t, &v0, &m, NULL), SATFEAT_ERR_ARG);
    assert_int_equal(satfeat_tracker_push(t, &none, &m, &popped), SATFEAT_ERR_ARG);
    assert_int_equal(popped, 0);
    assert_int_equal(satfeat_tracker_push(t, NULL, &m, &popped), SATFEAT_ERR_ARG);
    assert_int_equal(satfeat_tracker_push(t, &v0, &m, &popped), SATFEAT_OK);
    assert_int_equal(popped, 0);
    assert_null(satfeat_tracker_tracks(t, &n)); /* nothing consumed yet */
    assert_int_equal(n, 0);
    /* another size than the first pushed frame: refused, not queued */
    assert_int_equal(satfeat_tracker_push(t, &narrow, &m, &popped), SATFEAT_ERR_ARG);
    assert_int_equal(satfeat_tracker_pending(t), 1);
    /* a synchronous frame while one is pending: refused */
    assert_int_equal(satfeat_tracker_track(t, &v1, &m), SATFEAT_ERR_ARG);
    assert_non_null(strstr(satfeat_ctx_last_error(ctx), "pending"));
    assert_int_equal(satfeat_tracker_push(t, &v1, NULL, &popped), SATFEAT_OK);
    assert_int_equal(satfeat_tracker_pending(t), 2);
    assert_int_equal(satfeat_tracker_pop(t, &m), SATFEAT_OK);
    assert_int_equal(m.frame, 0);
    assert_int_equal(satfeat_tracker_pending(t), 1);
    const satfeat_track *tr = satfeat_tracker_tracks(t, &n);
    assert_true(n > 0 && tr != NULL);
    /* reset drops the pending frame and the tracks: the next frame is a first frame (ids
     * continue) */
    const uint64_t max_id = tr[n - 1].id;
    assert_int_equal(satfeat_tracker_reset(t), SATFEAT_OK);
    assert_int_equal(satfeat_tracker_pending(t), 0);
    assert_null(satfeat_tracker_tracks(t, &n));
    assert_null(satfeat_tracker_track_descriptors(t));
    assert_int_equal(satfeat_tracker_track(t, &v2, &m), SATFEAT_OK);
    assert_int_equal(m.frame, 0);
    tr = satfeat_tracker_tracks(t, &n);
    assert_true(n > 0 && tr[0].id > max_id);
    satfeat_tracker_delete(t);
    satfeat_ctx_delete(ctx);
    frames_free(f, N);
}

static void test_bad_input(void **state)
{
    (void)state;
    satfeat_ctx *ctx = cpu_ctx(2);
    satfeat_tracker *t = NULL;
    satfeat_tracker_params p = satfeat_tracker_params_default();
    assert_int_equal(satfeat_tracker_new(NULL, &p, TW, TH, &t), SATFEAT_ERR_ARG);
    assert_int_equal(satfeat_tracker_new(ctx, &p, TW, TH, NULL), SATFEAT_ERR_ARG);
    assert_int_equal(satfeat_tracker_new(ctx, &p, 0, TH, &t), SATFEAT_ERR_ARG);
    assert_null(t);
    satfeat_tracker_params q = p;
    q.max_missed = -1;
    assert_int_equal(satfeat_tracker_new(ctx, &q, TW, TH, &t), SATFEAT_ERR_ARG);
    q = p;
    q.max_tracks = 0;
    assert_int_equal(satfeat_tracker_new(ctx, &q, TW, TH, &t), SATFEAT_ERR_ARG);
    q = p;
    q.detector.max_keypoints = 0;
    assert_int_equal(satfeat_tracker_new(ctx, &q, TW, TH, &t), SATFEAT_ERR_ARG);
    q = p;
    q.detector.descriptor = SATFEAT_DESCRIPTOR_NONE;
    assert_int_equal(satfeat_tracker_new(ctx, &q, TW, TH, &t), SATFEAT_ERR_ARG);
    q = p;
    q.match.radius = -1;
    assert_int_equal(satfeat_tracker_new(ctx, &q, TW, TH, &t), SATFEAT_ERR_ARG);
    q = p;
    q.min_birth_distance = NAN;
    assert_int_equal(satfeat_tracker_new(ctx, &q, TW, TH, &t), SATFEAT_ERR_ARG);
    q = p;
    q.motion.threshold = 0;
    assert_int_equal(satfeat_tracker_new(ctx, &q, TW, TH, &t), SATFEAT_ERR_ARG);
    q = p;
    q.guided_radius = NAN;
    assert_int_equal(satfeat_tracker_new(ctx, &q, TW, TH, &t), SATFEAT_ERR_ARG);
    q = p;
    q.guided_radius = -1;
    assert_int_equal(satfeat_tracker_new(ctx, &q, TW, TH, &t), SATFEAT_ERR_ARG);
    q = p;
    q.reject_outliers = 2;
    assert_int_equal(satfeat_tracker_new(ctx, &q, TW, TH, &t), SATFEAT_ERR_ARG);
    q = p;
    q.detector.octaves = 0;
    assert_int_equal(satfeat_tracker_new(ctx, &q, TW, TH, &t), SATFEAT_ERR_ARG);
    assert_null(t);
    assert_int_equal(satfeat_tracker_new(ctx, NULL, TW, TH, &t), SATFEAT_OK);
    assert_non_null(t);

    uint8_t **f = translate_frames();
    uint8_t *big = calloc((size_t)(TW + 1) * (TH + 1), 1);
    assert_non_null(big);
    satfeat_frame_motion m;
    const satfeat_image_view v[4] = {
        satfeat_image_view_host(f[0], TW, TH, 0), satfeat_image_view_host(f[1], TW, TH, 0),
        satfeat_image_view_host(f[2], TW, TH, 0), satfeat_image_view_host(f[3], TW, TH, 0)};
    satfeat_image_view bad = v[0];
    assert_int_equal(satfeat_tracker_track(NULL, &v[0], &m), SATFEAT_ERR_ARG);
    assert_int_equal(satfeat_tracker_track(t, NULL, &m), SATFEAT_ERR_ARG);
    bad.pixels = NULL;
    assert_int_equal(satfeat_tracker_track(t, &bad, &m), SATFEAT_ERR_ARG);
    bad = v[0];
    bad.stride = TW - 1;
    assert_int_equal(satfeat_tracker_track(t, &bad, &m), SATFEAT_ERR_ARG);
    const satfeat_image_view too_big = satfeat_image_view_host(big, TW + 1, TH, 0);
    assert_int_equal(satfeat_tracker_track(t, &too_big, &m), SATFEAT_ERR_ARG); /* above max */
    bad = v[0];
    bad.width = 0;
    assert_int_equal(satfeat_tracker_track(t, &bad, &m), SATFEAT_ERR_ARG);
    bad = v[0];
    bad.mask = f[0];
    bad.mask_stride = TW;
    assert_int_equal(satfeat_tracker_track(t, &bad, &m), SATFEAT_ERR_ARG);
    assert_non_null(strstr(satfeat_ctx_last_error(ctx), "mask"));
    bad = v[0];
    bad.memory = (satfeat_memory)7;
    assert_int_equal(satfeat_tracker_track(t, &bad, &m), SATFEAT_ERR_ARG);
    const satfeat_image_view dev = satfeat_image_view_device(f[0], TW, TH, 0, NULL);
    assert_int_equal(satfeat_tracker_track(t, &dev, &m), SATFEAT_ERR_UNSUPPORTED);
    int popped = 0;
    assert_int_equal(satfeat_tracker_push(t, &dev, &m, &popped), SATFEAT_ERR_UNSUPPORTED);
    assert_int_equal(satfeat_tracker_pending(t), 0);
    assert_int_equal(satfeat_tracker_reset(NULL), SATFEAT_ERR_ARG);
    satfeat_tracker_delete(NULL);
    size_t n = 7;
    assert_null(satfeat_tracker_tracks(NULL, &n));
    assert_int_equal(n, 0);
    assert_null(satfeat_tracker_track_descriptors(NULL));
    /* stage times: none before a timed frame; profiling flag checked */
    satfeat_tracker_times tt;
    assert_int_equal(satfeat_tracker_stage_times(t, &tt), SATFEAT_ERR_ARG);
    assert_int_equal(satfeat_tracker_stage_times(t, NULL), SATFEAT_ERR_ARG);
    assert_int_equal(satfeat_tracker_stage_times(NULL, &tt), SATFEAT_ERR_ARG);
    assert_int_equal(satfeat_tracker_set_profiling(t, 2), SATFEAT_ERR_ARG);
    assert_int_equal(satfeat_tracker_set_profiling(NULL, 1), SATFEAT_ERR_ARG);
    assert_int_equal(satfeat_tracker_set_profiling(t, 1), SATFEAT_OK);
    assert_int_equal(satfeat_tracker_stage_times(t, &tt), SATFEAT_ERR_ARG); /* refused frames */

    /* the first frame; a frame of another size is refused and changes nothing */
    assert_int_equal(satfeat_tracker_track(t, &v[0], &m), SATFEAT_OK);
    assert_int_equal(satfeat_tracker_stage_times(t, &tt), SATFEAT_OK);
    assert_true(tt.frame_us > 0 && tt.detect_us > 0 && tt.detect_us <= tt.frame_us);
    assert_int_equal(tt.match_passes, 0); /* the first frame matches nothing */
    assert_int_equal(satfeat_tracker_set_profiling(t, 0), SATFEAT_OK);
    const satfeat_track *first = satfeat_tracker_tracks(t, &n);
    assert_true(n > 0);
    satfeat_track *tr = malloc(n * sizeof *tr);
    assert_non_null(tr);
    memcpy(tr, first, n * sizeof *tr);
    assert_int_equal(m.frame, 0);
    assert_int_equal(m.valid, 0);
    assert_string_equal(satfeat_ctx_last_error(ctx), ""); /* no motion on frame 0: no error */
    const satfeat_image_view narrow = satfeat_image_view_host(f[1], TW - 8, TH, TW);
    assert_int_equal(satfeat_tracker_track(t, &narrow, &m), SATFEAT_ERR_ARG);
    assert_true(strstr(satfeat_ctx_last_error(ctx), "differs") != NULL);
    size_t n_after = 0;
    assert_ptr_equal(satfeat_tracker_tracks(t, &n_after), first); /* unchanged */
    assert_int_equal(n_after, n);
    /* every frame's tracks are there to read, whatever their number (no capacity) */
    assert_int_equal(satfeat_tracker_track(t, &v[1], &m), SATFEAT_OK);
    assert_int_equal(m.frame, 1);
    assert_int_equal(m.valid, 1);
    assert_int_equal(satfeat_tracker_track(t, &v[2], NULL), SATFEAT_OK);
    assert_int_equal(satfeat_tracker_track(t, &v[3], &m), SATFEAT_OK);
    assert_int_equal(m.frame, 3);
    assert_int_equal(m.valid, 1);

    /* reset: the next frame is a first frame (any size), ids continue above the old ones */
    size_t n2 = 0;
    const satfeat_track *tr2 = satfeat_tracker_tracks(t, &n2);
    uint64_t max_id = 0;
    for (size_t i = 0; i < n2; i++)
        if (tr2[i].id > max_id) max_id = tr2[i].id;
    assert_int_equal(satfeat_tracker_reset(t), SATFEAT_OK);
    const satfeat_image_view flat = satfeat_image_view_host(big, TW, TH - 10, TW + 1);
    assert_int_equal(satfeat_tracker_track(t, &flat, &m), SATFEAT_OK);
    assert_int_equal(m.frame, 0);
    assert_null(satfeat_tracker_tracks(t, &n2));
    assert_int_equal(n2, 0); /* a flat frame has no features */
    assert_int_equal(satfeat_tracker_reset(t), SATFEAT_OK);
    assert_int_equal(satfeat_tracker_track(t, &v[0], &m), SATFEAT_OK);
    tr2 = satfeat_tracker_tracks(t, &n2);
    assert_int_equal(n2, n);
    for (size_t i = 0; i < n2; i++) {
        assert_true(tr2[i].id > max_id);
        assert_true(tr2[i].x == tr[i].x && tr2[i].y == tr[i].y);
        assert_int_equal(tr2[i].age, 0);
    }
    free(tr);
    free(big);
    frames_free(f, TN);
    satfeat_tracker_delete(t);
    satfeat_ctx_delete(ctx);
}

/* max_tracks sizes gigabytes of buffers: satfeat_tracker_new asks the context's memory limit
 * first and fails with SATFEAT_ERR_LIMIT, naming the bytes, instead of allocating them. */
static void test_memory_limit(void **state)
{
    (void)state;
    satfeat_ctx *ctx = cpu_ctx(1);
    assert_int_equal(satfeat_ctx_set_memory_limit(ctx, (size_t)64 << 20), SATFEAT_OK);
    satfeat_tracker_params p = satfeat_tracker_params_default();
    p.max_tracks = 1 << 24; /* about 5 GB of SURF64 track buffers */
    satfeat_tracker *t = (satfeat_tracker *)&p; /* must be cleared on failure */
    assert_int_equal(satfeat_tracker_new(ctx, &p, TW, TH, &t), SATFEAT_ERR_LIMIT);
    assert_null(t);
    const char *msg = satfeat_ctx_last_error(ctx);
    assert_non_null(strstr(msg, "16777216 tracks"));
    assert_non_null(strstr(msg, "above the memory limit of 67108864 bytes"));
    unsigned long long need = 0;
    const char *at = strstr(msg, "need ");
    assert_non_null(at);
    assert_int_equal(sscanf(at, "need %llu bytes", &need), 1);
    assert_true(need > (1ull << 24) * (sizeof(satfeat_track) + 64 * sizeof(float)));
    /* the default parameters fit in the same limit, and so do 2^17 tracks in a larger one */
    assert_int_equal(satfeat_tracker_new(ctx, NULL, TW, TH, &t), SATFEAT_OK);
    satfeat_tracker_delete(t);
    p.max_tracks = 1 << 17;
    assert_int_equal(satfeat_tracker_new(ctx, &p, TW, TH, &t), SATFEAT_ERR_LIMIT);
    assert_int_equal(satfeat_ctx_set_memory_limit(ctx, (size_t)512 << 20), SATFEAT_OK);
    assert_int_equal(satfeat_tracker_new(ctx, &p, TW, TH, &t), SATFEAT_OK);
    satfeat_tracker_delete(t);
    satfeat_ctx_delete(ctx);
}

/* The tracker keeps the descriptor and orientation settings its tracks were measured with
 * (docs/QUALITY.md, "Tracking against OpenCV"), whatever the detector's defaults become: with
 * the detector's root normalisation and refined orientation the tracks of a rotation sequence
 * drifted (id switches, corner error 2.0 -> 6.2 px). */
static void test_default_detector_settings(void **state)
{
    (void)state;
    const satfeat_tracker_params p = satfeat_tracker_params_default();
    assert_int_equal(p.detector.descriptor_norm, SATFEAT_DESCRIPTOR_NORM_L2);
    assert_int_equal(p.detector.orientation_refine, 0);
    assert_int_equal(p.detector.descriptor_haar, 3);
    assert_int_equal(p.detector.orientation_haar, 3);
    assert_int_equal(p.detector.orientation_filter, SATFEAT_ORIENTATION_HAAR);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_default_detector_settings),
        cmocka_unit_test(test_translate),
        cmocka_unit_test(test_jump),
        cmocka_unit_test(test_leave_return),
        cmocka_unit_test(test_determinism),
        cmocka_unit_test(test_dune),
        cmocka_unit_test(test_reject_outliers),
        cmocka_unit_test(test_pipeline),
        cmocka_unit_test(test_bad_input),
        cmocka_unit_test(test_memory_limit),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
