/* test_tracker_weak.c - the last-chance pass (continue_threshold): a world of separated blobs
 * translating; in frames FADE_FROM..FADE_TO some blobs fade to a response between
 * continue_threshold and the detector threshold (their tracks are seen there with the pass and
 * missed without it), and others fade and move 4 px off the world's motion (no track continues
 * through them). */
#include "tracker_testutil.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define WW 320
#define WH 240
#define WN 12
#define SPACING 26.0
#define FADE_FROM 5
#define FADE_TO 7
#define WEAK_AMP 15.0 /* response about 1e-4: below 2e-4, above 5e-5 (sigma 2.5 .. 4) */
static const double DX = 2.2, DY = 1.1;

static double ox(int k) { return 30.0 + k * DX; }
static double oy(int k) { return 30.0 + k * DY; }

/* Blob b's role: 0 stays, 1 fades, 2 fades and moves (every third of the even ones). */
static int role(int b) { return (b % 2) ? 0 : ((b % 6) == 0 ? 2 : 1); }

typedef struct weak_scene {
    blob_world w;
    uint8_t *frames[WN];
} weak_scene;

static void scene_make(weak_scene *s)
{
    const int cols = (int)((WW + 60) / SPACING), rows = (int)((WH + 40) / SPACING);
    blob_world_make(&s->w, cols * rows, 0, 0, 1, 1, 23);
    test_rng r;
    test_rng_seed(&r, 5);
    for (int j = 0; j < rows; j++)
        for (int i = 0; i < cols; i++) {
            const int b = j * cols + i;
            s->w.x[b] = 30.0 + SPACING * (i + 0.5) + 6.0 * (test_rng_unit(&r) - 0.5);
            s->w.y[b] = 30.0 + SPACING * (j + 0.5) + 6.0 * (test_rng_unit(&r) - 0.5);
            s->w.sigma[b] = 2.5 + 1.5 * test_rng_unit(&r);
        }
    blob_world f;
    blob_world_make(&f, s->w.n, 0, 0, 1, 1, 1);
    for (int k = 0; k < WN; k++) {
        const int faded = k >= FADE_FROM && k <= FADE_TO;
        for (int b = 0; b < s->w.n; b++) {
            f.x[b] = s->w.x[b] + ((faded && role(b) == 2) ? 4.0 : 0.0);
            f.y[b] = s->w.y[b];
            f.sigma[b] = s->w.sigma[b];
            f.amp[b] = (faded && role(b) != 0) ? copysign(WEAK_AMP, s->w.amp[b]) : s->w.amp[b];
        }
        s->frames[k] = malloc(WW * WH);
        assert_non_null(s->frames[k]);
        blob_world_render(&f, ox(k), oy(k), s->frames[k], WW, WH);
    }
    blob_world_free(&f);
}

static void scene_free(weak_scene *s)
{
    for (int k = 0; k < WN; k++) free(s->frames[k]);
    blob_world_free(&s->w);
}

/* The track within r px of world point (wx, wy) in frame k (missed 0 only when `seen`). */
static const satfeat_track *track_near(const tracker_frame_out *f, int k, double wx, double wy,
                                       double r, int seen)
{
    const double x = wx - ox(k), y = wy - oy(k);
    for (size_t i = 0; i < f->count; i++)
        if ((!seen || f->tracks[i].missed == 0) && hypot(f->tracks[i].x - x, f->tracks[i].y - y) < r)
            return &f->tracks[i];
    return NULL;
}

/* 1 when b lies well inside frames k0..k1. */
static int inside(const weak_scene *s, int b, int k0, int k1)
{
    for (int k = k0; k <= k1; k++) {
        const double x = s->w.x[b] - ox(k), y = s->w.y[b] - oy(k);
        if (x < 20 || y < 20 || x > WW - 21 || y > WH - 21) return 0;
    }
    return 1;
}

typedef struct weak_counts {
    size_t faded, faded_seen;    /* fading blobs tracked before; seen with their id in fade */
    size_t moved, moved_seen;    /* fading and moving ones; seen (same id) at the moved spot */
    size_t off_path;             /* observations > 3 px off the track's true path */
} weak_counts;

static weak_counts count(const weak_scene *s, const tracker_frame_out *out)
{
    weak_counts c;
    memset(&c, 0, sizeof c);
    for (int b = 0; b < s->w.n; b++) {
        if (role(b) == 0 || !inside(s, b, FADE_FROM - 1, FADE_TO)) continue;
        const satfeat_track *t =
            track_near(&out[FADE_FROM - 1], FADE_FROM - 1, s->w.x[b], s->w.y[b], 1.0, 1);
        if (!t) continue;
        const double dx = role(b) == 2 ? 4.0 : 0.0;
        int seen_all = 1, seen_any = 0;
        for (int k = FADE_FROM; k <= FADE_TO; k++) {
            const satfeat_track *u = track_near(&out[k], k, s->w.x[b] + dx, s->w.y[b], 1.0, 1);
            const int same = u && u->id == t->id;
            seen_all &= same;
            seen_any |= same;
        }
        if (role(b) == 1) {
            c.faded++;
            c.faded_seen += (size_t)seen_all;
        } else {
            c.moved++;
            c.moved_seen += (size_t)seen_any;
        }
    }
    c.off_path = tracker_off_path(out, WN, DX, DY, 3.0);
    return c;
}

static void test_weak_continues(void **state)
{
    (void)state;
    weak_scene s;
    scene_make(&s);
    satfeat_ctx *ctx = tracker_cpu_ctx();
    satfeat_tracker_params p = satfeat_tracker_params_default();
    p.continue_threshold = 0.00005;
    tracker_frame_out *on = tracker_run(ctx, &p, s.frames, WN, WW, WH, 0);
    p.continue_threshold = 0.0;
    tracker_frame_out *off = tracker_run(ctx, &p, s.frames, WN, WW, WH, 0);
    for (int k = 1; k < WN; k++) {
        assert_int_equal(on[k].status, SATFEAT_OK);
        assert_int_equal(on[k].motion.valid, 1);
    }
    const weak_counts a = count(&s, on), b = count(&s, off);
    printf("continue_threshold 5e-5: %zu of %zu faded tracks seen through the fade, %zu of %zu "
           "moved ones continued, %zu observations off path; off: %zu of %zu seen, %zu of %zu "
           "continued, %zu off path\n", a.faded_seen, a.faded, a.moved_seen, a.moved, a.off_path,
           b.faded_seen, b.faded, b.moved_seen, b.moved, b.off_path);
    assert_true(a.faded >= 20 && a.moved >= 8);
    assert_true(a.faded_seen * 10 >= a.faded * 8); /* the pass continues faded tracks */
    assert_true(b.faded_seen * 10 <= b.faded);     /* without it they are missed */
    assert_int_equal(a.moved_seen, 0);             /* never through a keypoint off the motion */
    assert_int_equal(a.off_path, 0);
    assert_int_equal(b.off_path, 0);
    tracker_run_free(on, WN);
    tracker_run_free(off, WN);

    /* A continue_threshold at or above the detector's threshold is off: the same run as 0. */
    p.continue_threshold = p.detector.threshold;
    tracker_frame_out *same = tracker_run(ctx, &p, s.frames, WN, WW, WH, 0);
    p.continue_threshold = 0.0;
    off = tracker_run(ctx, &p, s.frames, WN, WW, WH, 0);
    tracker_runs_equal(same, off, WN, (int)p.detector.descriptor);
    tracker_run_free(same, WN);
    tracker_run_free(off, WN);
    satfeat_ctx_delete(ctx);
    scene_free(&s);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_weak_continues),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
