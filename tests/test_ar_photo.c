/* test_ar_photo.c - the photometric pose refinement (ar/ar_photo.h): the samples a reference
 * gives (levels, places, values), a perturbed pose brought back to the rendered frame's true
 * pose (with distortion, tilt and a change of light), the refusals (a flat frame, a mask of
 * zeros) that leave the pose untouched, and the agreement of a frame with the target. With SATFEAT_TEST_AR_PHOTO_CUDA (test_ar_photo_cuda): a
 * CUDA session on a device view of the frames gives the CPU session's poses on host views bit
 * for bit, the device frame copied to the host for the refinement. */
#include "ar_reference.h"
#include "test_util.h"

#include "ar_render.h"
#include "ar/ar_camera.h"
#include "ar/ar_photo.h"
#include "ar/ar_rotation.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#ifdef SATFEAT_TEST_HAVE_CUDA
#include <cuda_runtime_api.h>
#endif

#define AR_TEST_PI 3.14159265358979323846

enum { W = 640, H = 480 };
static const double WIDTH_M = 0.3;

static satfeat_ar_camera test_camera(void)
{
    const satfeat_ar_camera cam = {600.0, 600.0, 319.5, 239.5, -0.1, 0.02};
    return cam;
}

/* The true pose of the rendered frames: the target tilted 25 degrees about x, 0.8 m away. */
static void true_pose(satfeat_ar_pose *p)
{
    const double deg = AR_TEST_PI / 180.0;
    const double r[3] = {25.0 * deg, -8.0 * deg, 5.0 * deg};
    satfeat_ar_rodrigues_to_matrix(r, p->R);
    p->t[0] = -0.15, p->t[1] = -0.1, p->t[2] = 0.8;
}

/* Renders the reference at pose p with the given light into frame (W x H). */
static void render(const satfeat_ar_pose *p, double gain, double bias, uint8_t *frame)
{
    ar_render_scene sc;
    memset(&sc, 0, sizeof sc);
    sc.targets[0] = (ar_render_target){ar_ref, ar_rw, ar_rh, WIDTH_M, 0.0, 0.0};
    sc.n_targets = 1;
    sc.texture_seed = 5;
    sc.supersample = 2;
    ar_render_frame f;
    memset(&f, 0, sizeof f);
    memcpy(f.R, p->R, sizeof f.R);
    memcpy(f.t, p->t, sizeof f.t);
    f.gain = gain, f.bias = bias;
    const satfeat_ar_camera cam = test_camera();
    assert_int_equal(ar_render(&sc, &cam, &f, W, H, frame), 0);
}

static double turn_deg(const satfeat_ar_pose *a, const satfeat_ar_pose *b)
{
    return satfeat_ar_rotation_angle_between(a->R, b->R) * 180.0 / AR_TEST_PI;
}

static double move_frac(const satfeat_ar_pose *a, const satfeat_ar_pose *b)
{
    double d = 0.0, n = 0.0;
    for (int k = 0; k < 3; k++) {
        d += (a->t[k] - b->t[k]) * (a->t[k] - b->t[k]);
        n += b->t[k] * b->t[k];
    }
    return sqrt(d / n);
}

#ifndef SATFEAT_TEST_AR_PHOTO_CUDA
/* A pose off the true one by 0.35 degrees and 0.5% of the distance (3 - 4 px at the target's
 * corners), about a features' median error (docs/AR.md). */
static void perturbed(const satfeat_ar_pose *truth, satfeat_ar_pose *p)
{
    const double d[3] = {0.004, -0.0035, 0.003};
    double dR[9];
    satfeat_ar_rodrigues_to_matrix(d, dR);
    satfeat_ar_mat3_mul(dR, truth->R, p->R);
    p->t[0] = truth->t[0] + 0.002, p->t[1] = truth->t[1] - 0.0015, p->t[2] = truth->t[2] + 0.0035;
}

static void test_samples(void **state)
{
    (void)state;
    satfeat_ar_photo ph;
    assert_int_equal(satfeat_ar_photo_build(ar_ref, (size_t)ar_rw, ar_rw, ar_rh, &ph), 1);
    /* 640 x 480 halves to 40 x 30 at level 4: levels 0 .. 3 have a short side of 32 or more */
    assert_int_equal(ph.levels, 4);
    assert_int_equal(ph.first[0], 0);
    for (int k = 0; k < ph.levels; k++) {
        const uint32_t n = ph.first[k + 1] - ph.first[k];
        print_message("level %d: %u samples\n", k, n);
        assert_true(n >= 100 && n <= SATFEAT_AR_PHOTO_PER_LEVEL);
        const double step = (double)(1 << k);
        for (uint32_t i = ph.first[k]; i < ph.first[k + 1]; i++) {
            /* at the centre of a level pixel, inside the reference */
            const double cx = (ph.u[i] + 0.5) / step - 0.5, cy = (ph.v[i] + 0.5) / step - 0.5;
            assert_true(cx == floor(cx) && cy == floor(cy));
            assert_true(cx >= 1 && cy >= 1 && cx < (ar_rw >> k) - 1 && cy < (ar_rh >> k) - 1);
            if (k == 0) /* level 0 is the reference itself */
                assert_true(ph.value[i] == ar_ref[(size_t)cy * ar_rw + (size_t)cx]);
            else
                assert_true(ph.value[i] >= 0.0f && ph.value[i] <= 255.0f);
        }
    }
    satfeat_ar_photo copy;
    assert_int_equal(satfeat_ar_photo_copy(&ph, &copy), 1);
    assert_int_equal(copy.levels, ph.levels);
    assert_memory_equal(copy.first, ph.first, sizeof ph.first);
    assert_memory_equal(copy.value, ph.value, ph.first[ph.levels] * sizeof *ph.value);
    satfeat_ar_photo_free(&copy);
    satfeat_ar_photo_free(&ph);
    assert_int_equal(ph.levels, 0);
}

/* Refines `start` on a frame rendered at the true pose with light (gain, bias); returns the
 * refinement's answer with the result in *out. */
static int refine_on(double gain, double bias, const satfeat_ar_pose *start, const uint8_t *mask,
                     satfeat_ar_pose *out)
{
    satfeat_ar_pose truth;
    true_pose(&truth);
    uint8_t *frame = malloc((size_t)W * H);
    render(&truth, gain, bias, frame);
    satfeat_ar_photo ph;
    assert_int_equal(satfeat_ar_photo_build(ar_ref, (size_t)ar_rw, ar_rw, ar_rh, &ph), 1);
    const satfeat_ar_camera cam = test_camera();
    const satfeat_ar_pixels px = {frame, W, mask, W, W, H};
    double *scratch = malloc(SATFEAT_AR_PHOTO_SCRATCH * sizeof *scratch);
    *out = *start;
    const int got = satfeat_ar_photo_refine(&ph, ar_rw, ar_rh, WIDTH_M / ar_rw, &cam, &px,
                                            &satfeat_ar_photo_near, scratch, out);
    free(scratch);
    satfeat_ar_photo_free(&ph);
    free(frame);
    return got;
}

static void test_refines_to_truth(void **state)
{
    (void)state;
    satfeat_ar_pose truth, start, got;
    true_pose(&truth);
    perturbed(&truth, &start);
    print_message("start: %.3f deg, %.3f%% off\n", turn_deg(&start, &truth),
                  100.0 * move_frac(&start, &truth));
    assert_true(turn_deg(&start, &truth) > 0.3);
    /* from the truth it stays there */
    refine_on(1.0, 0.0, &truth, NULL, &got);
    print_message("from the truth: %.4f deg, %.4f%%\n", turn_deg(&got, &truth),
                  100.0 * move_frac(&got, &truth));
    assert_true(turn_deg(&got, &truth) < 0.05);
    assert_true(move_frac(&got, &truth) < 0.0005);
    /* the same light, then darker with less contrast: the light is estimated with the pose */
    const double light[2][2] = {{1.0, 0.0}, {0.45, 40.0}};
    for (int k = 0; k < 2; k++) {
        assert_int_equal(refine_on(light[k][0], light[k][1], &start, NULL, &got), 1);
        print_message("gain %.2f: refined to %.4f deg, %.4f%%\n", light[k][0],
                      turn_deg(&got, &truth), 100.0 * move_frac(&got, &truth));
        assert_true(turn_deg(&got, &truth) < 0.12);
        assert_true(move_frac(&got, &truth) < 0.001);
    }
}

static void test_refusals(void **state)
{
    (void)state;
    satfeat_ar_pose truth, start, got;
    true_pose(&truth);
    perturbed(&truth, &start);
    /* a mask of zeros: no sample may be used */
    uint8_t *zeros = calloc((size_t)W * H, 1);
    assert_int_equal(refine_on(1.0, 0.0, &start, zeros, &got), 0);
    assert_memory_equal(&got, &start, sizeof got);
    free(zeros);
    /* a flat frame: nothing of the target there */
    satfeat_ar_photo ph;
    assert_int_equal(satfeat_ar_photo_build(ar_ref, (size_t)ar_rw, ar_rw, ar_rh, &ph), 1);
    uint8_t *flat = malloc((size_t)W * H);
    memset(flat, 128, (size_t)W * H);
    const satfeat_ar_camera cam = test_camera();
    const satfeat_ar_pixels px = {flat, W, NULL, 0, W, H};
    double *scratch = malloc(SATFEAT_AR_PHOTO_SCRATCH * sizeof *scratch);
    got = start;
    assert_int_equal(satfeat_ar_photo_refine(&ph, ar_rw, ar_rh, WIDTH_M / ar_rw, &cam, &px,
                                             &satfeat_ar_photo_near, scratch, &got),
                     0);
    assert_memory_equal(&got, &start, sizeof got);
    /* the target behind the camera, and a target without samples (a version-1 file) */
    got = start;
    got.t[2] = -1.0;
    assert_int_equal(satfeat_ar_photo_refine(&ph, ar_rw, ar_rh, WIDTH_M / ar_rw, &cam, &px,
                                             &satfeat_ar_photo_near, scratch, &got),
                     0);
    satfeat_ar_photo none;
    memset(&none, 0, sizeof none);
    got = start;
    assert_int_equal(satfeat_ar_photo_refine(&none, ar_rw, ar_rh, WIDTH_M / ar_rw, &cam, &px,
                                             &satfeat_ar_photo_near, scratch, &got),
                     0);
    free(scratch);
    free(flat);
    satfeat_ar_photo_free(&ph);
}

/* A distant target (75 px wide) tilted 25 degrees, and a pose whose tilt is 18 degrees more
 * with the target's centre where it is: what the features' pose of such a target is when its
 * keypoints are off by a pixel or two (docs/AR.md, "settled by the pixels"). The near reach may
 * not turn that far; the far reach brings it to the truth, and the frame agrees with its result
 * better than with the start. */
static void test_far_reach(void **state)
{
    (void)state;
    const double deg = AR_TEST_PI / 180.0;
    satfeat_ar_pose truth, start;
    const double r[3] = {25.0 * deg, 6.0 * deg, -4.0 * deg};
    satfeat_ar_rodrigues_to_matrix(r, truth.R);
    truth.t[0] = -0.12, truth.t[1] = -0.08, truth.t[2] = 2.4;
    uint8_t *frame = malloc((size_t)W * H);
    render(&truth, 1.0, 0.0, frame);
    /* the start: turned 18 degrees about the target's x axis, about its centre */
    const double s = WIDTH_M / ar_rw;
    const double centre[3] = {0.5 * ar_rw * s, 0.5 * ar_rh * s, 0.0}, tilt[3] = {18.0 * deg, 0, 0};
    double Rx[9], Pc[3], Rc[3];
    satfeat_ar_rodrigues_to_matrix(tilt, Rx);
    satfeat_ar_mat3_mul(truth.R, Rx, start.R);
    satfeat_ar_mat3_apply(truth.R, centre, Pc);
    satfeat_ar_mat3_apply(start.R, centre, Rc);
    for (int k = 0; k < 3; k++) start.t[k] = Pc[k] + truth.t[k] - Rc[k];

    satfeat_ar_photo ph;
    assert_int_equal(satfeat_ar_photo_build(ar_ref, (size_t)ar_rw, ar_rw, ar_rh, &ph), 1);
    const satfeat_ar_camera cam = test_camera();
    const satfeat_ar_pixels px = {frame, W, NULL, 0, W, H};
    double *scratch = malloc(SATFEAT_AR_PHOTO_SCRATCH * sizeof *scratch);
    satfeat_ar_pose near = start, far = start;
    satfeat_ar_photo_refine(&ph, ar_rw, ar_rh, s, &cam, &px, &satfeat_ar_photo_near, scratch,
                            &near);
    assert_int_equal(satfeat_ar_photo_refine(&ph, ar_rw, ar_rh, s, &cam, &px,
                                             &satfeat_ar_photo_far, scratch, &far),
                     1);
    const double a0 = satfeat_ar_photo_agreement(&ph, ar_rw, ar_rh, s, &cam, &px, scratch, &start);
    const double a1 = satfeat_ar_photo_agreement(&ph, ar_rw, ar_rh, s, &cam, &px, scratch, &far);
    print_message("start %.2f deg off; near reach %.2f deg; far reach %.3f deg, %.3f%%; "
                  "agreement %.4f -> %.4f\n", turn_deg(&start, &truth), turn_deg(&near, &truth),
                  turn_deg(&far, &truth), 100.0 * move_frac(&far, &truth), a0, a1);
    assert_true(turn_deg(&near, &truth) > 5.0);
    assert_true(turn_deg(&far, &truth) < 1.5);
    assert_true(move_frac(&far, &truth) < 0.01);
    assert_true(a1 > a0 + 0.01);
    free(scratch);
    free(frame);
    satfeat_ar_photo_free(&ph);
}

/* The agreement of a frame with the target under a pose: near 1 where the frame shows the
 * target there, near 0 on the background's texture alone, 0 on a flat frame, NaN when too few
 * samples are in the frame (or off the mask's zeros) or the target has none. */
static void test_agreement(void **state)
{
    (void)state;
    satfeat_ar_pose truth, away;
    true_pose(&truth);
    away = truth;
    away.t[0] += 1.0; /* the target out of the frame: the background's texture alone */
    uint8_t *shown = malloc((size_t)W * H), *background = malloc((size_t)W * H);
    uint8_t *flat = malloc((size_t)W * H), *zeros = calloc((size_t)W * H, 1);
    render(&truth, 0.6, 30.0, shown);
    render(&away, 1.0, 0.0, background);
    memset(flat, 128, (size_t)W * H);
    satfeat_ar_photo ph, none;
    assert_int_equal(satfeat_ar_photo_build(ar_ref, (size_t)ar_rw, ar_rw, ar_rh, &ph), 1);
    memset(&none, 0, sizeof none);
    const satfeat_ar_camera cam = test_camera();
    double *scratch = malloc(SATFEAT_AR_PHOTO_SCRATCH * sizeof *scratch);
    const double s = WIDTH_M / ar_rw;
    const satfeat_ar_pixels on_shown = {shown, W, NULL, 0, W, H};
    const satfeat_ar_pixels on_background = {background, W, NULL, 0, W, H};
    const satfeat_ar_pixels on_flat = {flat, W, NULL, 0, W, H};
    const satfeat_ar_pixels masked = {shown, W, zeros, W, W, H};
    const double a_shown =
        satfeat_ar_photo_agreement(&ph, ar_rw, ar_rh, s, &cam, &on_shown, scratch, &truth);
    const double a_background =
        satfeat_ar_photo_agreement(&ph, ar_rw, ar_rh, s, &cam, &on_background, scratch, &truth);
    print_message("agreement: target shown %.3f, background %.3f\n", a_shown, a_background);
    assert_true(a_shown > 0.9);
    assert_true(a_background < 0.3); /* far below the 0.6 a loose pose needs */
    assert_true(satfeat_ar_photo_agreement(&ph, ar_rw, ar_rh, s, &cam, &on_flat, scratch,
                                           &truth) == 0.0);
    assert_true(isnan(
        satfeat_ar_photo_agreement(&ph, ar_rw, ar_rh, s, &cam, &masked, scratch, &truth)));
    assert_true(isnan(
        satfeat_ar_photo_agreement(&ph, ar_rw, ar_rh, s, &cam, &on_shown, scratch, &away)));
    assert_true(isnan(
        satfeat_ar_photo_agreement(&none, ar_rw, ar_rh, s, &cam, &on_shown, scratch, &truth)));
    free(scratch);
    satfeat_ar_photo_free(&ph);
    free(shown);
    free(background);
    free(flat);
    free(zeros);
}

#else
/* A CUDA session on device views gives the CPU session's poses on host views, bit for bit: the
 * refinement runs on the host on a copy of the device frame. */
static void test_device_view_equals_host(void **state)
{
    (void)state;
    satfeat_ctx *gpu = test_cuda_ctx_or_skip(), *cpu;
    assert_int_equal(satfeat_ctx_new(&cpu, SATFEAT_BACKEND_CPU, -1), SATFEAT_OK);
    satfeat_ar_target *t;
    assert_int_equal(satfeat_ar_target_new(cpu, ar_ref, (size_t)ar_rw, ar_rw, ar_rh, WIDTH_M,
                                           NULL, &t),
                     SATFEAT_OK);
    const satfeat_ar_camera cam = test_camera();
    const satfeat_ar_target *ts[1] = {t};
    satfeat_ar_session *sc, *sg;
    assert_int_equal(satfeat_ar_session_new(cpu, ts, 1, &cam, NULL, W, H, &sc), SATFEAT_OK);
    assert_int_equal(satfeat_ar_session_new(gpu, ts, 1, &cam, NULL, W, H, &sg), SATFEAT_OK);
    uint8_t *frame = malloc((size_t)W * H);
    void *d_frame = NULL;
#ifdef SATFEAT_TEST_HAVE_CUDA
    assert_int_equal(cudaMalloc(&d_frame, (size_t)W * H), cudaSuccess);
#endif
    satfeat_ar_pose truth;
    true_pose(&truth);
    for (int i = 0; i < 4; i++) {
        truth.t[0] += 0.004 * i; /* a short pan: found, then tracked */
        render(&truth, 1.0, 0.0, frame);
#ifdef SATFEAT_TEST_HAVE_CUDA
        assert_int_equal(cudaMemcpy(d_frame, frame, (size_t)W * H, cudaMemcpyHostToDevice),
                         cudaSuccess);
#endif
        const satfeat_image_view hv = satfeat_image_view_host(frame, W, H, 0);
        const satfeat_image_view dv = satfeat_image_view_device(d_frame, W, H, 0, NULL);
        satfeat_ar_result rc, rg;
        assert_int_equal(satfeat_ar_session_process(sc, &hv, &rc, 1), SATFEAT_OK);
        assert_int_equal(satfeat_ar_session_process(sg, &dv, &rg, 1), SATFEAT_OK);
        assert_int_not_equal(rc.state, SATFEAT_AR_LOST);
        assert_int_equal(rg.state, rc.state);
        assert_memory_equal(rg.R, rc.R, sizeof rc.R);
        assert_memory_equal(rg.tvec, rc.tvec, sizeof rc.tvec);
        satfeat_ar_pose p;
        memcpy(p.R, rc.R, sizeof p.R);
        memcpy(p.t, rc.tvec, sizeof p.t);
        print_message("frame %d: %.4f deg, %.4f%%\n", i, turn_deg(&p, &truth),
                      100.0 * move_frac(&p, &truth));
        assert_true(turn_deg(&p, &truth) < 0.3);
    }
#ifdef SATFEAT_TEST_HAVE_CUDA
    cudaFree(d_frame);
#endif
    free(frame);
    satfeat_ar_session_delete(sc);
    satfeat_ar_session_delete(sg);
    satfeat_ar_target_delete(t);
    satfeat_ctx_delete(cpu);
    satfeat_ctx_delete(gpu);
}
#endif

int main(void)
{
    const struct CMUnitTest tests[] = {
#ifdef SATFEAT_TEST_AR_PHOTO_CUDA
        cmocka_unit_test(test_device_view_equals_host),
#else
        cmocka_unit_test(test_samples),
        cmocka_unit_test(test_refines_to_truth),
        cmocka_unit_test(test_refusals),
        cmocka_unit_test(test_far_reach),
        cmocka_unit_test(test_agreement),
#endif
    };
    return cmocka_run_group_tests(tests, ar_reference_setup, ar_reference_teardown);
}
