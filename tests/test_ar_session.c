/* test_ar_session.c - the AR session on rendered sequences with exact poses (tools/ar_paths.c):
 * per path, recall (frames with >= 50% of the target visible that get a pose), no pose on
 * frames without the target, recovery within 3 frames of re-entry, and the rotation and
 * translation errors under bounds. The target is data/dune/frame001.png, 0.3 m wide. Without
 * arguments short sequences run (the default ctest run); `test_ar_session long` runs seven
 * longer paths of tools/ar_paths.c on that target (ctest test_ar_session_long, label slow,
 * docs/TESTING.md); the evaluation tables of docs/AR.md use other renderings and targets. */
#include "ar_reference.h"
#include "test_util.h"

#include "ar_sequence_eval.h"
#include "ar/ar_camera.h"
#include "ar/ar_session_internal.h" /* the joint match's per-target counts */
#include "src/features_internal.h"     /* the joint set is kept on a CUDA device */

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Runs path `name` over `frames` frames and checks it against the bounds. */
static void check_path(const char *name, int frames, double min_recall, double rot_med_max,
                       double tr_med_max, int max_wrong)
{
    satfeat_ctx *ctx;
    assert_int_equal(satfeat_ctx_new(&ctx, SATFEAT_BACKEND_CPU, -1), SATFEAT_OK);
    ar_seq_stats st;
    assert_int_equal(ar_seq_run(ctx, ar_ref, ar_rw, ar_rh, 0.3, name, frames, &st), 0);
    const double recall = st.visible ? (double)st.posed_visible / st.visible : 1.0;
    print_message("%-11s frames %d visible %d recall %.3f wrong %d absent %d false %d found %d "
                  "tracked %d lost %d | rot med %.3f p90 %.3f max %.3f deg | tr med %.4f p90 %.4f "
                  "max %.4f | recover %d | %.1f ms/frame\n", name, st.frames, st.visible, recall,
                  st.posed_visible - st.posed_correct, st.absent, st.false_poses, st.found,
                  st.tracked, st.lost, st.rot_med,
                  st.rot_p90, st.rot_max, st.tr_med, st.tr_p90, st.tr_max, st.max_recover,
                  st.ms_per_frame);
    assert_int_equal(st.false_poses, 0);
    assert_true(recall >= min_recall);
    assert_true(st.rot_med <= rot_med_max);
    assert_true(st.tr_med <= tr_med_max);
    assert_true(st.max_recover <= 3);
    /* wrong poses (beyond 5 degrees or 5% of the distance: ar_sequence_eval.h) */
    assert_true(st.posed_visible - st.posed_correct <= max_wrong);
    satfeat_ctx_delete(ctx);
}

/* One path's run and the bounds it must meet: about the measured values (CPU) with room for
 * rounding across platforms; they catch a regression, they are not the goals of docs/AR.md. */
typedef struct path_case {
    const char *name;
    int frames;
    double min_recall, rot_med_max, tr_med_max;
    int max_wrong; /* poses beyond 5 degrees or 5% of the distance */
} path_case;

/* The default run: short sequences (frames far apart, so every path still runs its whole
 * course), measured on the CPU: recall 0.786 / 1 / 1 / 0.75 / 1 / 1 / 0.938, rotation medians
 * 0.11 / 0.077 / 0.22 / 0.032 / 0.17 / 0.046 / 0.033 degrees, translation medians 0.03% / 0.03%
 * / 0.03% / 0.02% / 0.30% / 0.02% / 0.03%. The features' poses alone (photometric 0) give 2 - 12x
 * the rotation medians (0.73 / 0.52 / 0.25 / 0.28 / 0.39 / 0.28 / 0.38), so these bounds fail
 * without the photometric refinement; blur's translation median is the exception (0.16% with
 * the features alone: the alignment to a sharp template moves the heavily blurred frames 5 and
 * 6 in depth, while it lowers their 90th percentile from 1.1% to 0.44%). */
static const path_case short_cases[] = {
    {"approach", 14, 0.7, 0.3, 0.0008, 0},    {"leave", 16, 0.95, 0.2, 0.0008, 0},
    {"occlusion", 8, 0.95, 0.3, 0.0008, 0},  {"perspective", 8, 0.7, 0.1, 0.0006, 0},
    {"blur", 8, 0.95, 0.35, 0.0045, 0},       {"light", 8, 0.95, 0.12, 0.0006, 0},
    {"sample", 20, 0.8, 0.1, 0.0008, 0},
};

/* `test_ar_session long` (ctest test_ar_session_long, label slow): seven paths at the lengths of
 * docs/AR.md's sequences, rendered with this file's options (seed 77, 2 x 2 rays), measured on
 * the CPU: recall 0.85 / 1 / 1 / 1 / 1 / 1 / 0.896, rotation medians 0.12 / 0.061 / 0.14 / 0.019
 * / 0.19 / 0.052 / 0.045 degrees, translation medians 0.02% / 0.02% / 0.05% / 0.01% / 0.25% /
 * 0.02% / 0.05% (the features' poses alone: rotation 1.13 / 0.35 / 0.34 / 0.12 / 0.39 / 0.24 /
 * 0.37, translation 0.26% / 0.14% / 0.18% / 0.11% / 0.13% / 0.08% / 0.25%); wrong poses (beyond
 * 5 degrees or 5%) 0 / 0 / 1 / 0 / 1 / 1 / 1, none on the short paths. */
static const path_case long_cases[] = {
    {"approach", 40, 0.775, 0.25, 0.0006, 0},  {"leave", 40, 0.95, 0.15, 0.0006, 0},
    {"occlusion", 30, 0.95, 0.3, 0.001, 1},    {"perspective", 30, 0.95, 0.06, 0.0004, 0},
    {"blur", 30, 0.95, 0.35, 0.0035, 1},       {"light", 30, 0.95, 0.12, 0.0006, 1},
    {"sample", 60, 0.83, 0.12, 0.0008, 1},
};

static int g_long;

static void test_paths(void **s)
{
    (void)s;
    const path_case *c = g_long ? long_cases : short_cases;
    const size_t n = g_long ? sizeof long_cases / sizeof *long_cases
                            : sizeof short_cases / sizeof *short_cases;
    for (size_t k = 0; k < n; k++)
        check_path(c[k].name, c[k].frames, c[k].min_recall, c[k].rot_med_max, c[k].tr_med_max,
                   c[k].max_wrong);
}

/* A CPU session for the reference as a 0.3 m target, seen through a 60 degree camera of the
 * reference's size (the reference itself is then a frame where it is found). */
static satfeat_ar_session *reference_session(satfeat_ctx **ctx, satfeat_ar_target **t)
{
    assert_int_equal(satfeat_ctx_new(ctx, SATFEAT_BACKEND_CPU, -1), SATFEAT_OK);
    *t = NULL;
    satfeat_ar_session *ses = NULL;
    assert_int_equal(satfeat_ar_target_new(*ctx, ar_ref, (size_t)ar_rw, ar_rw, ar_rh, 0.3, NULL, t),
                     SATFEAT_OK);
    satfeat_ar_camera cam;
    assert_int_equal(satfeat_ar_camera_from_fov(ar_rw, ar_rh, 60.0, &cam), SATFEAT_OK);
    assert_int_equal(satfeat_ar_session_new(*ctx, (const satfeat_ar_target *const *)t, 1, &cam,
                                            NULL, ar_rw, ar_rh, &ses),
                     SATFEAT_OK);
    return ses;
}

/* The frame view's checks: a device view on a CPU context, a view larger than the session's
 * maximum, a NULL view, no pixels, too short a stride, too little room for the results. */
static void test_view_checks(void **s)
{
    (void)s;
    satfeat_ctx *ctx;
    satfeat_ar_target *t;
    satfeat_ar_session *ses = reference_session(&ctx, &t);
    satfeat_ar_result r;
    satfeat_image_view v = satfeat_image_view_device(ar_ref, ar_rw, ar_rh, 0, NULL);
    assert_int_equal(satfeat_ar_session_process(ses, &v, &r, 1), SATFEAT_ERR_UNSUPPORTED);
    assert_non_null(strstr(satfeat_ctx_last_error(ctx), "device view"));
    v = satfeat_image_view_host(ar_ref, ar_rw, ar_rh + 1, 0);
    assert_int_equal(satfeat_ar_session_process(ses, &v, &r, 1), SATFEAT_ERR_ARG);
    assert_int_equal(satfeat_ar_session_process(ses, NULL, &r, 1), SATFEAT_ERR_ARG);
    v = satfeat_image_view_host(NULL, ar_rw, ar_rh, 0);
    assert_int_equal(satfeat_ar_session_process(ses, &v, &r, 1), SATFEAT_ERR_ARG);
    v = satfeat_image_view_host(ar_ref, ar_rw, ar_rh, 0);
    v.stride = (size_t)ar_rw - 1;
    assert_int_equal(satfeat_ar_session_process(ses, &v, &r, 1), SATFEAT_ERR_ARG);
    v = satfeat_image_view_host(ar_ref, ar_rw, ar_rh, 0);
    assert_int_equal(satfeat_ar_session_process(ses, &v, &r, 0), SATFEAT_ERR_CAPACITY);
    assert_int_equal(satfeat_ar_session_process(ses, &v, NULL, 1), SATFEAT_ERR_ARG);
    /* the reference itself, seen through the camera: found, and a mask of zeros finds nothing */
    assert_int_equal(satfeat_ar_session_process(ses, &v, &r, 1), SATFEAT_OK);
    assert_int_equal(r.state, SATFEAT_AR_FOUND);
    uint8_t *zeros = calloc((size_t)ar_rw * ar_rh, 1);
    assert_non_null(zeros);
    v.mask = zeros;
    v.mask_stride = (size_t)ar_rw;
    assert_int_equal(satfeat_ar_session_reset(ses), SATFEAT_OK);
    assert_int_equal(satfeat_ar_session_process(ses, &v, &r, 1), SATFEAT_OK);
    assert_int_equal(r.state, SATFEAT_AR_LOST);
    free(zeros);
    satfeat_ar_session_delete(ses);
    satfeat_ar_target_delete(t);
    satfeat_ctx_delete(ctx);
}

/* The stage times: refused before a measured frame and after profiling is turned off; on a
 * measured frame every stage is >= 0, detection took time, and the stages add up to the frame
 * (other_us is the rest). */
static void test_profiling(void **s)
{
    (void)s;
    satfeat_ctx *ctx;
    satfeat_ar_target *t;
    satfeat_ar_session *ses = reference_session(&ctx, &t);
    satfeat_ar_stage_times st;
    assert_int_equal(satfeat_ar_session_stage_times(ses, &st), SATFEAT_ERR_ARG);
    assert_int_equal(satfeat_ar_session_set_profiling(NULL, 1), SATFEAT_ERR_ARG);
    assert_int_equal(satfeat_ar_session_set_profiling(ses, 1), SATFEAT_OK);
    assert_int_equal(satfeat_ar_session_stage_times(ses, &st), SATFEAT_ERR_ARG);
    assert_int_equal(satfeat_ar_session_stage_times(ses, NULL), SATFEAT_ERR_ARG);
    satfeat_ar_result r;
    const satfeat_image_view v = satfeat_image_view_host(ar_ref, ar_rw, ar_rh, 0);
    for (int k = 0; k < 2; k++) { /* found, then tracked (the region path) */
        assert_int_equal(satfeat_ar_session_process(ses, &v, &r, 1), SATFEAT_OK);
        assert_int_equal(r.state, k ? SATFEAT_AR_TRACKED : SATFEAT_AR_FOUND);
        assert_int_equal(satfeat_ar_session_stage_times(ses, &st), SATFEAT_OK);
        assert_true(st.detect_us > 0.0 && st.match_us > 0.0 && st.homography_us > 0.0 &&
                    st.pose_us > 0.0 && st.other_us >= 0.0);
        assert_true(st.detect_us + st.match_us + st.homography_us + st.pose_us + st.other_us <=
                    st.frame_us * (1.0 + 1e-9));
    }
    assert_int_equal(satfeat_ar_session_set_profiling(ses, 0), SATFEAT_OK);
    assert_int_equal(satfeat_ar_session_process(ses, &v, &r, 1), SATFEAT_OK);
    assert_int_equal(satfeat_ar_session_stage_times(ses, &st), SATFEAT_ERR_ARG);
    satfeat_ar_session_delete(ses);
    satfeat_ar_target_delete(t);
    satfeat_ctx_delete(ctx);
}

/* The reference mirrored left-right (flip 1) or upside down (flip 2), as another target. */
static satfeat_ar_target *flipped_target(satfeat_ctx *ctx, int flip)
{
    uint8_t *px = malloc((size_t)ar_rw * ar_rh);
    assert_non_null(px);
    for (int y = 0; y < ar_rh; y++)
        for (int x = 0; x < ar_rw; x++)
            px[(size_t)y * ar_rw + x] = flip == 1 ? ar_ref[(size_t)y * ar_rw + (ar_rw - 1 - x)]
                                                  : ar_ref[(size_t)(ar_rh - 1 - y) * ar_rw + x];
    satfeat_ar_target *t = NULL;
    assert_int_equal(satfeat_ar_target_new(ctx, px, (size_t)ar_rw, ar_rw, ar_rh, 0.3, NULL, &t),
                     SATFEAT_OK);
    free(px);
    return t;
}

/* Several lost targets take their whole-target matches from one joint matcher call; the
 * reference, the middle of three targets (so its queries are rebased from the joint set), gets
 * bit for bit the pose a session of its own gives. Once it is tracked the joint set holds the
 * two lost targets alone (and stays marked as kept), and the tracked pose is still the lone
 * session's. */
static void test_joint_match(void **s)
{
    (void)s;
    satfeat_ctx *ctx;
    satfeat_ar_target *t;
    satfeat_ar_session *alone = reference_session(&ctx, &t);
    satfeat_ar_target *targets[3] = {flipped_target(ctx, 1), t, flipped_target(ctx, 2)};
    satfeat_ar_camera cam;
    assert_int_equal(satfeat_ar_camera_from_fov(ar_rw, ar_rh, 60.0, &cam), SATFEAT_OK);
    satfeat_ar_session *three = NULL;
    assert_int_equal(satfeat_ar_session_new(ctx, (const satfeat_ar_target *const *)targets, 3,
                                            &cam, NULL, ar_rw, ar_rh, &three),
                     SATFEAT_OK);
    const satfeat_image_view v = satfeat_image_view_host(ar_ref, ar_rw, ar_rh, 0);
    satfeat_ar_result one, r[3];
    assert_int_equal(satfeat_ar_session_process(alone, &v, &one, 1), SATFEAT_OK);
    assert_int_equal(satfeat_ar_session_process(three, &v, r, 3), SATFEAT_OK);
    /* every target was lost before the frame: the CPU session made the joint match */
    assert_int_equal(three->joint_calls, 1);
    assert_int_equal(one.state, SATFEAT_AR_FOUND);
    assert_int_equal(r[1].state, SATFEAT_AR_FOUND);
    assert_int_equal(r[1].inliers, one.inliers);
    assert_memory_equal(r[1].R, one.R, sizeof one.R);
    assert_memory_equal(r[1].tvec, one.tvec, sizeof one.tvec);
    assert_memory_equal(&r[1].reproj_px, &one.reproj_px, sizeof one.reproj_px);
    /* the mirrored targets stay lost. The reference fills the frame, so it is tracked in the
     * whole frame; the lost targets, searched for in this frame, are not searched for in the
     * next (AR_SEARCH_EVERY), and the tracked pose is the lone session's */
    assert_int_equal(r[0].state, SATFEAT_AR_LOST);
    assert_int_equal(r[2].state, SATFEAT_AR_LOST);
    assert_int_equal(satfeat_ar_session_process(alone, &v, &one, 1), SATFEAT_OK);
    assert_int_equal(satfeat_ar_session_process(three, &v, r, 3), SATFEAT_OK);
    assert_int_equal(three->joint_calls, 1);
    assert_int_equal(r[1].state, SATFEAT_AR_TRACKED);
    assert_memory_equal(r[1].R, one.R, sizeof one.R);
    assert_int_equal(r[0].state, SATFEAT_AR_LOST);
    assert_int_equal(r[2].state, SATFEAT_AR_LOST);
    /* the frame after matches them jointly, without the tracked reference's features */
    assert_int_equal(satfeat_ar_session_process(alone, &v, &one, 1), SATFEAT_OK);
    assert_int_equal(satfeat_ar_session_process(three, &v, r, 3), SATFEAT_OK);
    assert_int_equal(three->joint_calls, 2);
    assert_int_equal(three->joint_held, 5);
    assert_int_equal(satfeat_features_count(three->joint), targets[0]->n + targets[2]->n);
    assert_int_equal(three->slots[2].first, targets[0]->n);
    /* rewritten in place, still the set a CUDA matcher keeps apart from the guided queries */
    assert_true(satfeat_features_kept(three->joint));
    assert_false(satfeat_features_kept(three->slots[1].all));
    assert_int_equal(one.state, SATFEAT_AR_TRACKED);
    assert_int_equal(r[1].state, SATFEAT_AR_TRACKED);
    assert_int_equal(r[1].inliers, one.inliers);
    assert_memory_equal(r[1].R, one.R, sizeof one.R);
    assert_memory_equal(r[1].tvec, one.tvec, sizeof one.tvec);
    satfeat_ar_session_delete(three);
    satfeat_ar_session_delete(alone);
    for (int k = 0; k < 3; k++) satfeat_ar_target_delete(targets[k]);
    satfeat_ctx_delete(ctx);
}

/* A frame of the reference at half size on a plain 640 x 480 field, its corner at (x0, y0). */
static uint8_t *small_reference_frame(int x0, int y0)
{
    enum { W = 640, H = 480 };
    uint8_t *f = malloc((size_t)W * H);
    assert_non_null(f);
    memset(f, 128, (size_t)W * H);
    for (int y = 0; y < ar_rh / 2 && y0 + y < H; y++)
        for (int x = 0; x < ar_rw / 2 && x0 + x < W; x++) {
            const uint8_t *p = ar_ref + (size_t)(2 * y) * ar_rw + 2 * x;
            f[(size_t)(y0 + y) * W + x0 + x] =
                (uint8_t)((p[0] + p[1] + p[ar_rw] + p[ar_rw + 1] + 2) / 4);
        }
    return f;
}

/* While one target is tracked and two are absent, the absent ones are searched for (the whole
 * frame and their joint match) every other frame, and the tracked one is located in its region
 * every frame: its results are a lone session's bit for bit. */
static void test_search_while_tracking(void **s)
{
    (void)s;
    satfeat_ctx *ctx;
    assert_int_equal(satfeat_ctx_new(&ctx, SATFEAT_BACKEND_CPU, -1), SATFEAT_OK);
    satfeat_ar_target *t = NULL;
    assert_int_equal(satfeat_ar_target_new(ctx, ar_ref, (size_t)ar_rw, ar_rw, ar_rh, 0.3, NULL, &t),
                     SATFEAT_OK);
    satfeat_ar_target *targets[3] = {flipped_target(ctx, 1), t, flipped_target(ctx, 2)};
    satfeat_ar_camera cam;
    assert_int_equal(satfeat_ar_camera_from_fov(640, 480, 60.0, &cam), SATFEAT_OK);
    satfeat_ar_session *alone = NULL, *three = NULL;
    assert_int_equal(satfeat_ar_session_new(ctx, (const satfeat_ar_target *const *)&t, 1, &cam,
                                            NULL, 640, 480, &alone),
                     SATFEAT_OK);
    assert_int_equal(satfeat_ar_session_new(ctx, (const satfeat_ar_target *const *)targets, 3,
                                            &cam, NULL, 640, 480, &three),
                     SATFEAT_OK);
    static const long joint_calls[6] = {1, 1, 2, 2, 3, 3};
    for (int i = 0; i < 6; i++) {
        uint8_t *f = small_reference_frame(150 + 2 * i, 110 + i);
        const satfeat_image_view v = satfeat_image_view_host(f, 640, 480, 0);
        satfeat_ar_result one, r[3];
        assert_int_equal(satfeat_ar_session_process(alone, &v, &one, 1), SATFEAT_OK);
        assert_int_equal(satfeat_ar_session_process(three, &v, r, 3), SATFEAT_OK);
        assert_int_equal(one.state, i == 0 ? SATFEAT_AR_FOUND : SATFEAT_AR_TRACKED);
        assert_int_equal(r[1].state, one.state);
        assert_int_equal(r[1].inliers, one.inliers);
        assert_memory_equal(r[1].R, one.R, sizeof one.R);
        assert_memory_equal(r[1].tvec, one.tvec, sizeof one.tvec);
        assert_int_equal(r[0].state, SATFEAT_AR_LOST);
        assert_int_equal(r[2].state, SATFEAT_AR_LOST);
        assert_int_equal((long)three->joint_calls, joint_calls[i]);
        free(f);
    }
    satfeat_ar_session_delete(three);
    satfeat_ar_session_delete(alone);
    for (int k = 0; k < 3; k++) satfeat_ar_target_delete(targets[k]);
    satfeat_ctx_delete(ctx);
}

/* Pastes `src` (w x h) at a quarter of its size into the 640-wide frame f at (x0, y0). */
static void paste_quarter(uint8_t *f, const uint8_t *src, int w, int h, int x0, int y0)
{
    for (int y = 0; y < h / 4; y++)
        for (int x = 0; x < w / 4; x++) {
            int sum = 0;
            for (int dy = 0; dy < 4; dy++)
                for (int dx = 0; dx < 4; dx++) sum += src[(size_t)(4 * y + dy) * w + 4 * x + dx];
            f[(size_t)(y0 + y) * 640 + x0 + x] = (uint8_t)((sum + 8) / 16);
        }
}

/* Two targets tracked side by side (their region half the frame); one is covered for a frame:
 * the frame after, while the other is still tracked, it is searched for and found at once (the
 * search cadence starts anew when every target was tracked). */
static void test_search_right_after_loss(void **s)
{
    (void)s;
    satfeat_ctx *ctx;
    assert_int_equal(satfeat_ctx_new(&ctx, SATFEAT_BACKEND_CPU, -1), SATFEAT_OK);
    uint8_t *mirror = malloc((size_t)ar_rw * ar_rh);
    assert_non_null(mirror);
    for (int y = 0; y < ar_rh; y++)
        for (int x = 0; x < ar_rw; x++)
            mirror[(size_t)y * ar_rw + x] = ar_ref[(size_t)(ar_rh - 1 - y) * ar_rw + x];
    satfeat_ar_target *targets[2] = {NULL, NULL};
    assert_int_equal(satfeat_ar_target_new(ctx, ar_ref, (size_t)ar_rw, ar_rw, ar_rh, 0.3, NULL,
                                           &targets[0]),
                     SATFEAT_OK);
    assert_int_equal(satfeat_ar_target_new(ctx, mirror, (size_t)ar_rw, ar_rw, ar_rh, 0.3, NULL,
                                           &targets[1]),
                     SATFEAT_OK);
    satfeat_ar_camera cam;
    assert_int_equal(satfeat_ar_camera_from_fov(640, 480, 60.0, &cam), SATFEAT_OK);
    satfeat_ar_session *two = NULL;
    assert_int_equal(satfeat_ar_session_new(ctx, (const satfeat_ar_target *const *)targets, 2,
                                            &cam, NULL, 640, 480, &two),
                     SATFEAT_OK);
    /* frame 0: both found; 1, 2: both tracked; 3: the second covered; 4: found again */
    static const int second_seen[5] = {1, 1, 1, 0, 1};
    for (int i = 0; i < 5; i++) {
        uint8_t *f = malloc(640 * 480);
        assert_non_null(f);
        memset(f, 128, 640 * 480);
        paste_quarter(f, ar_ref, ar_rw, ar_rh, 120 + i, 150);
        if (second_seen[i]) paste_quarter(f, mirror, ar_rw, ar_rh, 120 + ar_rw / 4 + 40 + i, 170);
        const satfeat_image_view v = satfeat_image_view_host(f, 640, 480, 0);
        satfeat_ar_result r[2];
        assert_int_equal(satfeat_ar_session_process(two, &v, r, 2), SATFEAT_OK);
        assert_int_not_equal(r[0].state, SATFEAT_AR_LOST);
        if (second_seen[i])
            assert_int_not_equal(r[1].state, SATFEAT_AR_LOST);
        else
            assert_int_equal(r[1].state, SATFEAT_AR_LOST);
        free(f);
    }
    satfeat_ar_session_delete(two);
    for (int k = 0; k < 2; k++) satfeat_ar_target_delete(targets[k]);
    free(mirror);
    satfeat_ctx_delete(ctx);
}

/* A target's answers do not depend on the absent targets a session holds: docs/AR.md's
 * dune-sample (the `sample` path rendered as bench/ar_tables.sh does; the target lost on some
 * frames in view, leaving and re-entering) with five more targets never in view gives the lone
 * session's found / tracked / lost counts and errors. A frame that loses a target starts its
 * search in the halves of the frame, which goes to the targets posed most recently first; taken
 * in turn among all the lost targets it came back later (13 / 28 / 19 instead of 13 / 35 / 12).
 * Not every path has the property: a target never posed yet, or lost for long, takes its turn
 * among all the lost targets. */
static void test_absent_targets_change_nothing(void **s)
{
    (void)s;
    satfeat_ctx *ctx;
    assert_int_equal(satfeat_ctx_new(&ctx, SATFEAT_BACKEND_CPU, -1), SATFEAT_OK);
    static const char *const photos[] = {"Aqua", "Coffee", "Garden", "LadyBird", "Wood"};
    enum { EXTRA = sizeof photos / sizeof *photos };
    satfeat_ar_target *extra[EXTRA];
    for (int k = 0; k < EXTRA; k++) {
        char path[512];
        snprintf(path, sizeof path, "%s/photos/%s.jpg", SATFEAT_TEST_DATA_DIR, photos[k]);
        uint8_t *pix;
        int w, h;
        assert_int_equal(satfeat_image_load_gray8(ctx, path, &pix, &w, &h), SATFEAT_OK);
        assert_int_equal(satfeat_ar_target_new(ctx, pix, (size_t)w, w, h, 0.3, NULL, &extra[k]),
                         SATFEAT_OK);
        satfeat_free(pix);
    }
    ar_seq_options opt = ar_seq_options_default();
    ar_seq_stats alone, many;
    opt.supersample = 3, opt.texture_seed = 1; /* docs/AR.md's dune-sample */
    assert_int_equal(ar_seq_eval(ctx, ar_ref, ar_rw, ar_rh, 0.3, "sample", 60, &opt, &alone), 0);
    opt.extra = (const satfeat_ar_target *const *)extra;
    opt.n_extra = EXTRA;
    assert_int_equal(ar_seq_eval(ctx, ar_ref, ar_rw, ar_rh, 0.3, "sample", 60, &opt, &many), 0);
    print_message("alone: found %d tracked %d lost %d; with %d absent targets: %d %d %d\n",
                  alone.found, alone.tracked, alone.lost, EXTRA, many.found, many.tracked,
                  many.lost);
    assert_true(alone.lost > alone.absent); /* the target is lost while in view too */
    assert_int_equal(many.other_poses, 0);
    assert_int_equal(many.found, alone.found);
    assert_int_equal(many.tracked, alone.tracked);
    assert_int_equal(many.lost, alone.lost);
    assert_true(many.rot_med == alone.rot_med && many.tr_med == alone.tr_med);
    for (int k = 0; k < EXTRA; k++) satfeat_ar_target_delete(extra[k]);
    satfeat_ctx_delete(ctx);
}

/* Runs the 40-frame approach path on data/photos/`photo` rendered as satfeat_gen_ar_sequence
 * renders it (docs/AR.md's `*-approach` sequences), a 0.3 m target, on the CPU. */
static void approach_on_photo(const char *photo, ar_seq_stats *st)
{
    satfeat_ctx *ctx;
    assert_int_equal(satfeat_ctx_new(&ctx, SATFEAT_BACKEND_CPU, -1), SATFEAT_OK);
    char path[512];
    snprintf(path, sizeof path, "%s/photos/%s", SATFEAT_TEST_DATA_DIR, photo);
    uint8_t *pix;
    int w, h;
    assert_int_equal(satfeat_image_load_gray8(ctx, path, &pix, &w, &h), SATFEAT_OK);
    ar_seq_options opt = ar_seq_options_default();
    opt.supersample = 3, opt.texture_seed = 1;
    assert_int_equal(ar_seq_eval(ctx, pix, w, h, 0.3, "approach", 40, &opt, st), 0);
    print_message("%s approach: %d of %d visible posed, %d correct, rotation median %.3f "
                  "degrees\n", photo, st->posed_visible, st->visible, st->posed_correct,
                  st->rot_med);
    satfeat_free(pix);
    satfeat_ctx_delete(ctx);
}

/* docs/AR.md's rocket-approach: on its tracked frames whose only matches lie on the rocket (the
 * towers' lattices fail the ratio test) the features fit poses 14 - 21 degrees off better than
 * the true one; the photometric refinement started from the last frame's rotation agrees with
 * the frame better and replaces them (ar_locate.c's weigh_prior). Without it: 6 correct poses
 * of 13, rotation median 13.6 degrees; with it 11 of 14 and 0.22. Its first poses (frames 22
 * and 23, no pose before them) chose the IPPE candidate 47 degrees off; the pixels now choose
 * the other (ar_locate.c's settle_by_pixels): 14 of 14 correct. */
static void test_prior_outweighs_partial_features(void **s)
{
    (void)s;
    ar_seq_stats st;
    approach_on_photo("Rocket.jpg", &st);
    assert_true(st.posed_correct >= 12);
    assert_int_equal(st.posed_correct, st.posed_visible);
    assert_true(st.rot_med < 1.0);
}

/* docs/AR.md's approach path starts with the target 70 px wide, where the features' pose is
 * open: its inliers spread less than 8 px across, or the other IPPE candidate fits them about
 * as well, and either candidate's tilt may be 15 - 60 degrees off. The frame's pixels settle it
 * (ar_locate.c's settle_by_pixels). Before: garden-approach 32 correct poses of 40 (the first
 * right one at frame 9), coffee-approach 34; now 39 and 40, the rotation medians under 0.2
 * degrees, and no pose more than 5 degrees off. */
static void test_pixels_settle_distant_target(void **s)
{
    (void)s;
    const char *photos[2] = {"Garden.jpg", "Coffee.jpg"};
    for (int k = 0; k < 2; k++) {
        ar_seq_stats st;
        approach_on_photo(photos[k], &st);
        assert_true(st.posed_correct >= 38);
        assert_int_equal(st.posed_correct, st.posed_visible);
        assert_true(st.rot_med < 0.2);
    }
}

/* A loosely fitting pose (rms above max_reproj_px) needs the frame's pixels to agree with the
 * target. On the short sample path (16 frames) the target leaves the view fast in frames 13 -
 * 14, blurred, and the tracked pass still matches 60 - 75 of its features to the blurred
 * background around the predicted outline, with a consistent homography (rms 3.3 - 4.4 px).
 * With the homography's threshold at 9 px the loose band reaches them and the agreement (-0.08,
 * -0.03 there) refuses them; the features alone under a 9 px bound report them. */
static void test_agreement_refuses_background(void **s)
{
    (void)s;
    satfeat_ctx *ctx;
    assert_int_equal(satfeat_ctx_new(&ctx, SATFEAT_BACKEND_CPU, -1), SATFEAT_OK);
    ar_seq_options opt = ar_seq_options_default();
    ar_seq_stats on, off;
    opt.texture_seed = 1; /* the rendering of cli_ar_fov_distortion */
    opt.threshold = 9.0;
    assert_int_equal(ar_seq_eval(ctx, ar_ref, ar_rw, ar_rh, 0.3, "sample", 16, &opt, &on), 0);
    opt.photometric = 0;
    opt.max_reproj_px = 9.0;
    assert_int_equal(ar_seq_eval(ctx, ar_ref, ar_rw, ar_rh, 0.3, "sample", 16, &opt, &off), 0);
    print_message("threshold 9: false poses %d with the photometric checks, %d without\n",
                  on.false_poses, off.false_poses);
    assert_true(on.absent > 0);
    assert_int_equal(on.false_poses, 0);
    assert_true(off.false_poses > 0);
    satfeat_ctx_delete(ctx);
}

/* A frame's keypoints are undistorted on first use: satfeat_ar_frame_ray gives what
 * satfeat_ar_pixel_to_normalized gives, bit for bit, keeps it for the frame's later calls, and
 * says 0 for a keypoint beyond the distortion's fold (no ray). */
static void test_frame_ray(void **state)
{
    (void)state;
    satfeat_ar_camera cam;
    assert_int_equal(satfeat_ar_camera_from_fov(640, 480, 60.0, &cam), SATFEAT_OK);
    cam.k1 = -0.12, cam.k2 = 0.0; /* folds at a radius of about 1.1 (normalised) */
    enum { N = 5 };
    satfeat_keypoint kp[N];
    memset(kp, 0, sizeof kp);
    const double xy[2 * N] = {320.0, 240.0, 0.5, 0.5, 639.25, 479.75, 101.3, 407.9, 1e5, 1e5};
    for (int i = 0; i < N; i++) kp[i].x = (float)xy[2 * i], kp[i].y = (float)xy[2 * i + 1];
    double und[2 * N], norm[2 * N];
    uint8_t ray[N];
    memset(ray, SATFEAT_AR_RAY_UNKNOWN, sizeof ray);
    satfeat_ar_frame fr = {kp, NULL, N, &cam, und, norm, ray, 640, 480, {NULL, 0, NULL, 0, 0, 0}};
    for (int i = N - 1; i >= 0; i--) {
        double x = 0, y = 0;
        const int want = satfeat_ar_pixel_to_normalized(&cam, kp[i].x, kp[i].y, &x, &y);
        assert_int_equal(satfeat_ar_frame_ray(&fr, (size_t)i), want);
        assert_int_equal(ray[i], want);
        assert_int_equal(want, i < N - 1); /* the last lies beyond the fold */
        if (!want) continue;
        const double u = cam.fx * x + cam.cx, v = cam.fy * y + cam.cy;
        assert_memory_equal(&norm[2 * i], &x, sizeof x);
        assert_memory_equal(&norm[2 * i + 1], &y, sizeof y);
        assert_memory_equal(&und[2 * i], &u, sizeof u);
        assert_memory_equal(&und[2 * i + 1], &v, sizeof v);
    }
    /* kept: a later call reads what the first computed */
    const double kept = norm[2];
    kp[1].x += 3.0f;
    assert_int_equal(satfeat_ar_frame_ray(&fr, 1), 1);
    assert_memory_equal(&norm[2], &kept, sizeof kept);
}

int main(int argc, char **argv)
{
    g_long = argc > 1 && !strcmp(argv[1], "long");
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_view_checks),
        cmocka_unit_test(test_profiling),
        cmocka_unit_test(test_joint_match),
        cmocka_unit_test(test_search_while_tracking),
        cmocka_unit_test(test_search_right_after_loss),
        cmocka_unit_test(test_absent_targets_change_nothing),
        cmocka_unit_test(test_agreement_refuses_background),
        cmocka_unit_test(test_prior_outweighs_partial_features),
        cmocka_unit_test(test_pixels_settle_distant_target),
        cmocka_unit_test(test_paths),
        cmocka_unit_test(test_frame_ray),
    };
    return cmocka_run_group_tests(tests, ar_reference_setup, ar_reference_teardown);
}
