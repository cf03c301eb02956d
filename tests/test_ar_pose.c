/* test_ar_pose.c - the AR pose math against synthetic ground truth: Rodrigues both ways, the
 * camera model (distortion and its inverse, field of view, projection convention), the
 * homography fit, IPPE + Levenberg-Marquardt on random poses with strong perspective and
 * noise. The bounds are tight enough that a flipped convention (R transposed, t negated, the
 * other IPPE branch) fails them. */
#include "test_util.h"

#include "ar/ar_camera.h"
#include "ar/ar_pose.h"
#include "ar/ar_rotation.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define PI 3.14159265358979323846

static double urand(test_rng *r, double lo, double hi)
{
    return lo + (hi - lo) * (double)(test_rng_next(r) >> 11) * (1.0 / 9007199254740992.0);
}

static double gauss(test_rng *r, double sd)
{
    const double u1 = urand(r, 1e-12, 1.0), u2 = urand(r, 0.0, 1.0);
    return sd * sqrt(-2.0 * log(u1)) * cos(2.0 * PI * u2);
}

static void random_axis(test_rng *r, double angle, double v[3])
{
    double n;
    do {
        v[0] = urand(r, -1, 1), v[1] = urand(r, -1, 1), v[2] = urand(r, -1, 1);
        n = sqrt(v[0] * v[0] + v[1] * v[1] + v[2] * v[2]);
    } while (n < 0.1 || n > 1.0);
    for (int k = 0; k < 3; k++) v[k] *= angle / n;
}

static void test_rodrigues_known(void **state)
{
    (void)state;
    /* +90 degrees about z turns x into y (right-handed, as OpenCV's Rodrigues) */
    const double r[3] = {0, 0, PI / 2};
    double R[9], x[3] = {1, 0, 0}, y[3];
    satfeat_ar_rodrigues_to_matrix(r, R);
    satfeat_ar_mat3_apply(R, x, y);
    assert_true(fabs(y[0]) < 1e-15 && fabs(y[1] - 1.0) < 1e-15 && fabs(y[2]) < 1e-15);
    /* 180 degrees about x: diag(1, -1, -1) and back to (pi, 0, 0) up to sign */
    const double Rx[9] = {1, 0, 0, 0, -1, 0, 0, 0, -1};
    double rv[3];
    satfeat_ar_matrix_to_rodrigues(Rx, rv);
    assert_true(fabs(fabs(rv[0]) - PI) < 1e-12 && fabs(rv[1]) < 1e-12 && fabs(rv[2]) < 1e-12);
}

static void test_rodrigues_roundtrip(void **state)
{
    (void)state;
    test_rng rng;
    test_rng_seed(&rng, 7);
    const double angles[] = {0.0, 1e-12, 1e-9, 1e-6, 1e-4, 0.01, 0.5, 1.0, 2.0, 3.0,
                             PI - 1e-3, PI - 1e-7};
    for (size_t a = 0; a < sizeof angles / sizeof angles[0]; a++) {
        for (int trial = 0; trial < 50; trial++) {
            double r[3], R[9], r2[3], R2[9];
            random_axis(&rng, angles[a], r);
            satfeat_ar_rodrigues_to_matrix(r, R);
            /* orthonormal, det +1 */
            for (int i = 0; i < 3; i++)
                for (int j = 0; j < 3; j++) {
                    double d = 0;
                    for (int k = 0; k < 3; k++) d += R[3 * k + i] * R[3 * k + j];
                    assert_true(fabs(d - (i == j)) < 1e-14);
                }
            satfeat_ar_matrix_to_rodrigues(R, r2);
            satfeat_ar_rodrigues_to_matrix(r2, R2);
            for (int k = 0; k < 9; k++) assert_true(fabs(R[k] - R2[k]) < 1e-13);
            if (angles[a] < 3.0) /* away from pi the vector itself is unique */
                for (int k = 0; k < 3; k++) assert_true(fabs(r[k] - r2[k]) < 1e-12 * (1 + fabs(r[k])));
            assert_true(fabs(satfeat_ar_rotation_angle_between(R, R2)) < 1e-12);
        }
    }
    /* the angle between two rotations is the angle of the relative rotation */
    double ra[3], Ra[9], Rb[9], Rd[9], rd[3] = {0, 0.3, 0};
    random_axis(&rng, 1.0, ra);
    satfeat_ar_rodrigues_to_matrix(ra, Ra);
    satfeat_ar_rodrigues_to_matrix(rd, Rd);
    satfeat_ar_mat3_mul(Ra, Rd, Rb);
    assert_true(fabs(satfeat_ar_rotation_angle_between(Ra, Rb) - 0.3) < 1e-13);
}

static void test_camera_distortion(void **state)
{
    (void)state;
    satfeat_ar_camera cam = {500, 520, 320, 240, 0.1, 0.0};
    double u, v;
    satfeat_ar_normalized_to_pixel(&cam, 0.2, 0.1, &u, &v); /* r^2 0.05, factor 1.005 */
    assert_true(fabs(u - (500 * 0.2 * 1.005 + 320)) < 1e-12);
    assert_true(fabs(v - (520 * 0.1 * 1.005 + 240)) < 1e-12);
    const double ks[][2] = {{0, 0}, {0.1, 0}, {-0.25, 0.05}, {0.2, 0.1}, {-0.1, -0.02}};
    for (size_t c = 0; c < sizeof ks / sizeof ks[0]; c++) {
        cam.k1 = ks[c][0];
        cam.k2 = ks[c][1];
        assert_int_equal(satfeat_ar_camera_check(NULL, &cam, 640, 480), SATFEAT_OK);
        for (double py = -0.5; py <= 479.5; py += 23.75)
            for (double px = -0.5; px <= 639.5; px += 31.25) {
                double x, y, pu, pv;
                assert_true(satfeat_ar_pixel_to_normalized(&cam, px, py, &x, &y));
                satfeat_ar_normalized_to_pixel(&cam, x, y, &pu, &pv);
                assert_true(fabs(pu - px) < 1e-9 && fabs(pv - py) < 1e-9);
            }
    }
    /* strong barrel distortion folds over inside a wide frame: refused */
    satfeat_ar_camera bad = {300, 300, 320, 240, -0.6, 0.0};
    assert_int_equal(satfeat_ar_camera_check(NULL, &bad, 640, 480), SATFEAT_ERR_ARG);
    bad.k1 = NAN;
    assert_int_equal(satfeat_ar_camera_check(NULL, &bad, 640, 480), SATFEAT_ERR_ARG);
}

/* The undistortion by Newton's method from the series inverse: round trips to 1e-10 px over
 * whole frames, corners and edges included, under strong barrel and pincushion distortion, in
 * a few steps (a broken start or step would need the bracketed fallback or many steps), and
 * the boundary of the monotonic part of the distortion exactly. */
static void test_camera_undistort_newton(void **state)
{
    (void)state;
    /* the rendered sequences' camera (60 degrees), strong barrel at 94 degrees, strong
     * pincushion, barrel with negative k2, pure k1 pincushion */
    const satfeat_ar_camera cams[] = {{554.3, 554.3, 319.5, 239.5, -0.12, 0.03},
                                      {300, 300, 319.5, 239.5, -0.25, 0.05},
                                      {300, 310, 319.5, 239.5, 0.2, 0.1},
                                      {500, 500, 319.5, 239.5, -0.1, -0.02},
                                      {400, 400, 300.0, 250.0, 0.35, 0.0}};
    for (size_t c = 0; c < sizeof cams / sizeof cams[0]; c++) {
        const satfeat_ar_camera *cam = &cams[c];
        assert_int_equal(satfeat_ar_camera_check(NULL, cam, 640, 480), SATFEAT_OK);
        long steps_sum = 0, points = 0;
        double worst = 0.0;
        for (int j = 0; j <= 48; j++)
            for (int i = 0; i <= 64; i++) {
                const double px = -0.5 + 640.0 * i / 64, py = -0.5 + 480.0 * j / 48;
                const double xd = (px - cam->cx) / cam->fx, yd = (py - cam->cy) / cam->fy;
                const double rd = sqrt(xd * xd + yd * yd);
                double ru, x, y, pu, pv;
                int steps;
                assert_true(satfeat_ar_undistort_radius(cam, rd, &ru, &steps));
                assert_true(rd == 0.0 ? steps == 0 : steps >= 1 && steps <= 7);
                steps_sum += steps, points++;
                assert_true(satfeat_ar_pixel_to_normalized(cam, px, py, &x, &y));
                satfeat_ar_normalized_to_pixel(cam, x, y, &pu, &pv);
                worst = fmax(worst, fmax(fabs(pu - px), fabs(pv - py)));
            }
        print_message("k1 %g k2 %g: round trip %.2g px, %.2f Newton steps a point\n", cam->k1,
                      cam->k2, worst, (double)steps_sum / (double)points);
        assert_true(worst < 1e-10);
        assert_true(steps_sum < 3.5 * (double)points);
    }
    /* 1 - 0.3 q - 0.1 q^2 (q = r^2) turns to 0 at q = 2: the distorted radius peaks at
     * sqrt 2 (1 - 0.2 - 0.08); just inside it the one ray, just beyond it none */
    const satfeat_ar_camera fold = {300, 300, 319.5, 239.5, -0.1, -0.02};
    const double peak = sqrt(2.0) * 0.72;
    double ru;
    assert_true(satfeat_ar_undistort_radius(&fold, peak * (1.0 - 1e-6), &ru, NULL));
    assert_true(ru < sqrt(2.0));
    assert_true(fabs(ru * (1.0 + ru * ru * (-0.1 - 0.02 * ru * ru)) - peak * (1.0 - 1e-6)) < 1e-14);
    assert_false(satfeat_ar_undistort_radius(&fold, peak * (1.0 + 1e-6), &ru, NULL));
    /* no distortion: the radius itself, no step */
    const satfeat_ar_camera plain = {300, 300, 319.5, 239.5, 0.0, 0.0};
    int steps = -5;
    assert_true(satfeat_ar_undistort_radius(&plain, 0.7, &ru, &steps) && ru == 0.7 && steps == 0);
}

static void test_camera_fov_project(void **state)
{
    (void)state;
    satfeat_ar_camera cam;
    assert_int_equal(satfeat_ar_camera_from_fov(640, 480, 90.0, &cam), SATFEAT_OK);
    assert_true(fabs(cam.fx - 320.0) < 1e-9 && fabs(cam.fy - 320.0) < 1e-9);
    assert_true(cam.cx == 319.5 && cam.cy == 239.5 && cam.k1 == 0 && cam.k2 == 0);
    assert_int_equal(satfeat_ar_camera_from_fov(640, 480, 180.0, &cam), SATFEAT_ERR_ARG);
    assert_int_equal(satfeat_ar_camera_from_fov(0, 480, 60.0, &cam), SATFEAT_ERR_ARG);
    assert_int_equal(satfeat_ar_camera_from_fov(640, 480, 60.0, NULL), SATFEAT_ERR_ARG);
    /* X_cam = R X + t: with R = +90 degrees about z, world x goes to camera y (down) */
    satfeat_ar_camera_from_fov(640, 480, 90.0, &cam);
    const double r[3] = {0, 0, PI / 2}, t[3] = {0, 0, 2};
    const double xyz[9] = {0.5, 0, 0, 0, 0, -2.5, 0, 0, 0};
    double uv[6];
    assert_int_equal(satfeat_ar_project_points(&cam, r, t, xyz, 3, uv), SATFEAT_OK);
    assert_true(fabs(uv[0] - 319.5) < 1e-9 && fabs(uv[1] - (239.5 + 320 * 0.25)) < 1e-9);
    assert_true(isnan(uv[2]) && isnan(uv[3])); /* behind the camera */
    assert_true(fabs(uv[4] - 319.5) < 1e-12 && fabs(uv[5] - 239.5) < 1e-12);
    assert_int_equal(satfeat_ar_project_points(&cam, r, t, NULL, 1, uv), SATFEAT_ERR_ARG);
}

/* A random camera looking at a square target of side 0.4 m (plane z = 0, x, y in [0, 0.4]):
 * distance 0.25 .. 3 m, tilt up to max_tilt degrees, any in-plane rotation, the target centre
 * off the optical axis by up to 15 degrees. */
static void random_pose(test_rng *rng, double max_tilt, satfeat_ar_pose *p)
{
    const double tilt = urand(rng, 0, max_tilt) * PI / 180.0, az = urand(rng, 0, 2 * PI);
    const double roll = urand(rng, -PI, PI), dist = exp(urand(rng, log(0.25), log(3.0)));
    /* R = Rz(roll) * R_axis(tilt about a horizontal axis at az) */
    const double rt[3] = {cos(az) * tilt, sin(az) * tilt, 0}, rr[3] = {0, 0, roll};
    double Rt[9], Rr[9];
    satfeat_ar_rodrigues_to_matrix(rt, Rt);
    satfeat_ar_rodrigues_to_matrix(rr, Rr);
    satfeat_ar_mat3_mul(Rt, Rr, p->R);
    const double off = urand(rng, 0, 15) * PI / 180.0, oaz = urand(rng, 0, 2 * PI);
    const double centre[3] = {0.2, 0.2, 0};
    double Rc[3];
    satfeat_ar_mat3_apply(p->R, centre, Rc);
    const double want[3] = {dist * sin(off) * cos(oaz), dist * sin(off) * sin(oaz), dist * cos(off)};
    for (int k = 0; k < 3; k++) p->t[k] = want[k] - Rc[k];
}

/* Rotation error (degrees) and relative translation error of `est` against `truth`. */
static void pose_error(const satfeat_ar_pose *truth, const satfeat_ar_pose *est, double *rot_deg,
                       double *trans_rel)
{
    *rot_deg = satfeat_ar_rotation_angle_between(truth->R, est->R) * 180.0 / PI;
    const double d = sqrt(truth->t[0] * truth->t[0] + truth->t[1] * truth->t[1] +
                          truth->t[2] * truth->t[2]);
    *trans_rel = sqrt(pow(truth->t[0] - est->t[0], 2) + pow(truth->t[1] - est->t[1], 2) +
                      pow(truth->t[2] - est->t[2], 2)) / d;
}

static int cmp_double(const void *a, const void *b)
{
    const double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* n points on the target, projected by `truth` with Gaussian pixel noise sd (f = 800 px). */
static int make_points(test_rng *rng, const satfeat_ar_pose *truth, int n, double sd,
                       double *world, double *norm)
{
    const double f = 800.0;
    for (int i = 0; i < n; i++) {
        world[2 * i] = urand(rng, 0, 0.4);
        world[2 * i + 1] = urand(rng, 0, 0.4);
        const double X[3] = {world[2 * i], world[2 * i + 1], 0};
        double P[3];
        satfeat_ar_mat3_apply(truth->R, X, P);
        for (int k = 0; k < 3; k++) P[k] += truth->t[k];
        if (P[2] <= 0.01) return 0;
        norm[2 * i] = P[0] / P[2] + gauss(rng, sd) / f;
        norm[2 * i + 1] = P[1] / P[2] + gauss(rng, sd) / f;
    }
    return 1;
}

static void test_pose_exact(void **state)
{
    (void)state;
    test_rng rng;
    test_rng_seed(&rng, 11);
    double world[2 * 40], norm[2 * 40], scratch[2 * 40];
    int done = 0;
    for (int trial = 0; trial < 300; trial++) {
        satfeat_ar_pose truth, est;
        random_pose(&rng, 75.0, &truth);
        if (!make_points(&rng, &truth, 40, 0.0, world, norm)) continue;
        const double rms = satfeat_ar_pose_planar(world, norm, NULL, 40, 800, 800, scratch, 1,
                                                  NULL, NULL, NULL, NULL, &est);
        assert_true(rms >= 0.0 && rms < 1e-6);
        double er, et;
        pose_error(&truth, &est, &er, &et);
        assert_true(er < 1e-6);
        assert_true(et < 1e-8);
        /* a homography fit reproduces the exact points too */
        double h[9];
        assert_true(satfeat_ar_homography_fit(world, norm, 40, h));
        for (int i = 0; i < 40; i++) {
            const double w = h[6] * world[2 * i] + h[7] * world[2 * i + 1] + h[8];
            const double x = (h[0] * world[2 * i] + h[1] * world[2 * i + 1] + h[2]) / w;
            assert_true(fabs(x - norm[2 * i]) < 1e-9);
        }
        done++;
    }
    assert_true(done > 250);
}

/* Noise levels: the median and the 90th percentile of the errors over random poses. The
 * bounds are about 2x the errors measured with this generator (0.06 / 0.18 / 0.31 degrees
 * median at 0.3 / 1 / 2 px); a flipped convention gives
 * errors of tens of degrees. */
static void test_pose_noise(void **state)
{
    (void)state;
    const double sds[3] = {0.3, 1.0, 2.0};
    const double rot_med_max[3] = {0.13, 0.4, 0.65}, tr_med_max[3] = {0.0006, 0.0022, 0.004};
    for (int s = 0; s < 3; s++) {
        test_rng rng;
        test_rng_seed(&rng, 100 + s);
        enum { N = 200, PTS = 60 };
        double rots[N], trs[N];
        int m = 0;
        double world[2 * PTS], norm[2 * PTS], scratch[2 * PTS];
        while (m < N) {
            satfeat_ar_pose truth, est;
            random_pose(&rng, 65.0, &truth);
            if (!make_points(&rng, &truth, PTS, sds[s], world, norm)) continue;
            const double rms = satfeat_ar_pose_planar(world, norm, NULL, PTS, 800, 800, scratch,
                                                      1, NULL, NULL, NULL, NULL, &est);
            assert_true(rms >= 0.0 && rms < 3.0 * sds[s]);
            /* the two candidates refined on two threads: the same bits (with a preferred
             * rotation, the other's error and weights too) */
            double wt[PTS], other1, other2;
            for (int i = 0; i < PTS; i++) wt[i] = 0.5 + (double)(i % 7) / 4.0;
            satfeat_ar_pose one, two;
            const double r1 = satfeat_ar_pose_planar(world, norm, wt, PTS, 800, 800, scratch, 1,
                                                     truth.R, &other1, NULL, NULL, &one);
            const double r2 = satfeat_ar_pose_planar(world, norm, wt, PTS, 800, 800, scratch, 2,
                                                     truth.R, &other2, NULL, NULL, &two);
            assert_memory_equal(&r1, &r2, sizeof r1);
            assert_memory_equal(&other1, &other2, sizeof other1);
            assert_memory_equal(&one, &two, sizeof one);
            pose_error(&truth, &est, &rots[m], &trs[m]);
            m++;
        }
        qsort(rots, N, sizeof(double), cmp_double);
        qsort(trs, N, sizeof(double), cmp_double);
        print_message("noise %.1f px: rotation median %.4f p90 %.4f deg, translation median "
                      "%.5f p90 %.5f\n", sds[s], rots[N / 2], rots[9 * N / 10], trs[N / 2],
                      trs[9 * N / 10]);
        assert_true(rots[N / 2] < rot_med_max[s]);
        assert_true(trs[N / 2] < tr_med_max[s]);
        assert_true(rots[9 * N / 10] < 3.5 * rot_med_max[s]);
    }
}

/* A preferred rotation on the wrong branch (the last frame's pose of a tracked target first
 * found on it): where the two candidates are not ambiguous the better one, near the truth,
 * stands and *switched says so; where they are, the one near the preferred rotation is kept. */
static void test_pose_branch(void **state)
{
    (void)state;
    test_rng rng;
    test_rng_seed(&rng, 21);
    enum { PTS = 60 };
    double world[2 * PTS], norm[2 * PTS], scratch[2 * PTS], wc[2 * PTS];
    int settled = 0, ambiguous = 0;
    for (int trial = 0; trial < 400; trial++) {
        satfeat_ar_pose truth;
        random_pose(&rng, 65.0, &truth);
        const double sd = trial % 2 ? 0.3 : 3.0;
        if (!make_points(&rng, &truth, PTS, sd, world, norm)) continue;
        /* the IPPE candidate of the other branch, from the centred points as the pose does */
        double mx = 0, my = 0, h[9], R1[9], R2[9];
        for (int i = 0; i < PTS; i++) mx += world[2 * i], my += world[2 * i + 1];
        for (int i = 0; i < PTS; i++) wc[2 * i] = world[2 * i] - mx / PTS;
        for (int i = 0; i < PTS; i++) wc[2 * i + 1] = world[2 * i + 1] - my / PTS;
        if (!satfeat_ar_homography_fit(wc, norm, PTS, h) || !satfeat_ar_ippe_rotations(h, R1, R2))
            continue;
        const double d1 = satfeat_ar_rotation_angle_between(truth.R, R1);
        const double d2 = satfeat_ar_rotation_angle_between(truth.R, R2);
        const double *wrong = d1 > d2 ? R1 : R2;
        if (satfeat_ar_rotation_angle_between(R1, R2) < 50.0 * PI / 180.0) continue;
        satfeat_ar_pose free_pose, held, other_pose;
        double other, other_held;
        int switched = -1, sw_free = -1;
        const double rms = satfeat_ar_pose_planar(world, norm, NULL, PTS, 800, 800, scratch, 1,
                                                  NULL, &other, &other_pose, &sw_free, &free_pose);
        if (other >= 0.0) { /* the candidate not taken, on the uncentred plane as the pose */
            const double e = satfeat_ar_pose_rms(world, norm, PTS, 800, 800, &other_pose);
            assert_true(fabs(e - other) <= 1e-6 * other + 1e-9);
            assert_true(satfeat_ar_rotation_angle_between(other_pose.R, free_pose.R) > 0.035);
        }
        const double rms_held = satfeat_ar_pose_planar(world, norm, NULL, PTS, 800, 800, scratch,
                                                       1, wrong, &other_held, NULL, &switched, &held);
        assert_int_equal(sw_free, 0);
        assert_true(rms >= 0.0 && rms_held >= 0.0);
        if (satfeat_ar_rotation_angle_between(truth.R, free_pose.R) > 10.0 * PI / 180.0 ||
            other < 0.0)
            continue; /* the data alone did not find the truth: not this test's case */
        if (!satfeat_ar_pose_ambiguous(rms, other, PTS)) {
            /* the same pose as without a preference, flagged as a change of branch where the
             * other candidate refined to within 20 degrees of the preference */
            assert_memory_equal(&held, &free_pose, sizeof held);
            settled += switched == 1;
        } else if (satfeat_ar_rotation_angle_between(wrong, held.R) < 20.0 * PI / 180.0) {
            assert_int_equal(switched, 0);
            ambiguous++;
        }
    }
    print_message("branch: %d settled by the data, %d ambiguous kept near the preference\n",
                  settled, ambiguous);
    assert_true(settled >= 20);
    assert_true(ambiguous >= 5);
}

/* The spread across the narrowest direction: points on a line have none, a square grid its
 * side's standard deviation whatever it is turned by, and a long thin strip its width's. */
static void test_points_min_spread(void **state)
{
    (void)state;
    enum { N = 64 };
    double xy[2 * N];
    const double fx = 500.0, fy = 400.0;
    for (int i = 0; i < N; i++) {
        xy[2 * i] = 0.01 * i / fx; /* a line: x = 0.01 i px, y = 0.5 x */
        xy[2 * i + 1] = 0.005 * i / fy;
    }
    assert_true(satfeat_ar_points_min_spread(xy, N, fx, fy) < 1e-9);
    assert_true(satfeat_ar_points_min_spread(xy, 0, fx, fy) == 0.0);
    /* an 8 x 8 grid of pitch 10 px: standard deviation 10 sqrt(63 / 12) px on each axis */
    const double sd = 10.0 * sqrt(63.0 / 12.0);
    for (int turn = 0; turn < 4; turn++) {
        const double a = turn * 0.4, c = cos(a), sn = sin(a);
        for (int i = 0; i < N; i++) {
            const double u = 10.0 * (i % 8), v = 10.0 * (i / 8);
            xy[2 * i] = (100.0 + c * u - sn * v) / fx;
            xy[2 * i + 1] = (50.0 + sn * u + c * v) / fy;
        }
        assert_true(fabs(satfeat_ar_points_min_spread(xy, N, fx, fy) - sd) < 1e-9);
    }
    /* a strip 2 px wide and 310 px long (points in pairs across it), turned by 30 degrees:
     * its width's spread, 1 px */
    for (int i = 0; i < N; i++) {
        const double u = 10.0 * (i / 2), v = i % 2 ? 1.0 : -1.0, a = PI / 6;
        xy[2 * i] = (cos(a) * u - sin(a) * v) / fx;
        xy[2 * i + 1] = (sin(a) * u + cos(a) * v) / fy;
    }
    assert_true(fabs(satfeat_ar_points_min_spread(xy, N, fx, fy) - 1.0) < 1e-6);
}

/* `truth` turned by `angle` radians about a random axis, moved by dx in x, t_z scaled by sz. */
static void perturb_pose(test_rng *rng, const satfeat_ar_pose *truth, double angle, double dx,
                         double sz, satfeat_ar_pose *p)
{
    *p = *truth;
    double d[3], dR[9];
    random_axis(rng, angle, d);
    satfeat_ar_rodrigues_to_matrix(d, dR);
    satfeat_ar_mat3_mul(dR, truth->R, p->R);
    p->t[0] += dx, p->t[2] *= sz;
}

/* LM from a perturbed start recovers the pose; a start behind the camera is refused. */
static void test_refine(void **state)
{
    (void)state;
    test_rng rng;
    test_rng_seed(&rng, 5);
    double world[2 * 30], norm[2 * 30];
    for (int trial = 0; trial < 50; trial++) {
        satfeat_ar_pose truth, p;
        random_pose(&rng, 50.0, &truth);
        if (!make_points(&rng, &truth, 30, 0.0, world, norm)) continue;
        perturb_pose(&rng, &truth, 0.05, 0.01, 1.03, &p);
        const double rms = satfeat_ar_pose_refine(world, norm, NULL, 30, 800, 800, 100, &p);
        assert_true(rms >= 0 && rms < 1e-6);
        double er, et;
        pose_error(&truth, &p, &er, &et);
        assert_true(er < 1e-6 && et < 1e-8);
        satfeat_ar_pose behind = truth;
        for (int k = 0; k < 3; k++) behind.t[k] = -behind.t[k] * 3;
        behind.t[2] = -5;
        assert_true(satfeat_ar_pose_refine(world, norm, NULL, 30, 800, 800, 10, &behind) < 0);
    }
}

/* On noisy points with outliers (in Huber's linear range) and weights, LM stops where it has
 * converged: refining its result once more moves the pose by a negligible amount. */
static void test_refine_converged(void **state)
{
    (void)state;
    test_rng rng;
    test_rng_seed(&rng, 9);
    double world[2 * 60], norm[2 * 60], wt[60];
    double er_max = 0.0, et_max = 0.0, drms_max = 0.0;
    int tried = 0;
    for (int trial = 0; trial < 40; trial++) {
        satfeat_ar_pose truth, p;
        random_pose(&rng, 60.0, &truth);
        if (!make_points(&rng, &truth, 60, 1.0, world, norm)) continue;
        for (int i = 0; i < 60; i++) wt[i] = urand(&rng, 0.25, 1.0);
        for (int i = 0; i < 6; i++) norm[2 * i] += urand(&rng, -8.0, 8.0) / 800.0;
        perturb_pose(&rng, &truth, 0.1, 0.02, 1.05, &p);
        const double rms = satfeat_ar_pose_refine(world, norm, wt, 60, 800, 800, 50, &p);
        assert_true(rms > 0.5 && rms < 5.0);
        satfeat_ar_pose again = p;
        const double rms2 = satfeat_ar_pose_refine(world, norm, wt, 60, 800, 800, 50, &again);
        double er, et;
        pose_error(&p, &again, &er, &et);
        er_max = fmax(er_max, er), et_max = fmax(et_max, et);
        drms_max = fmax(drms_max, fabs(rms2 - rms) / rms);
        tried++;
    }
    print_message("refined again: moved %.2g deg, %.2g of the distance, rms by %.2g of it\n",
                  er_max, et_max, drms_max);
    assert_true(tried >= 30);
    assert_true(er_max < 2e-4 && et_max < 1e-6 && drms_max < 2e-6);
}

/* The normal equations as written plainly: the camera point by satfeat_ar_mat3_apply, the two
 * rows of J in full, every entry of J^T W J summed on its own. */
static double plain_normal_equations(const double *world, const double *norm, const double *wt,
                                     size_t n, double fx, double fy, const satfeat_ar_pose *p,
                                     double JtJ[36], double Jte[6])
{
    memset(JtJ, 0, 36 * sizeof(double));
    memset(Jte, 0, 6 * sizeof(double));
    double cost = 0.0;
    for (size_t i = 0; i < n; i++) {
        const double X[3] = {world[2 * i], world[2 * i + 1], 0.0};
        double P[3];
        satfeat_ar_mat3_apply(p->R, X, P);
        const double x = P[0] + p->t[0], y = P[1] + p->t[1], z = P[2] + p->t[2];
        if (!(z > 0.0)) return -1.0;
        const double iz = 1.0 / z;
        const double eu = fx * (x * iz - norm[2 * i]), ev = fy * (y * iz - norm[2 * i + 1]);
        const double e = sqrt(eu * eu + ev * ev);
        const double wp = wt ? wt[i] : 1.0;
        const double w = wp * (e <= 2.0 ? 1.0 : 2.0 / e);
        cost += wp * (e <= 2.0 ? e * e : 2.0 * (2.0 * e - 2.0));
        /* the camera point's derivatives: -[P]x in the rotation increment, I in t */
        const double gx[6] = {0, P[2], -P[1], 1, 0, 0}, gy[6] = {-P[2], 0, P[0], 0, 1, 0};
        const double gz[6] = {P[1], -P[0], 0, 0, 0, 1};
        double ju[6], jv[6];
        for (int k = 0; k < 6; k++) {
            ju[k] = fx * iz * (gx[k] - x * iz * gz[k]);
            jv[k] = fy * iz * (gy[k] - y * iz * gz[k]);
        }
        for (int a = 0; a < 6; a++) {
            for (int b = 0; b < 6; b++) JtJ[6 * a + b] += w * (ju[a] * ju[b] + jv[a] * jv[b]);
            Jte[a] += w * (ju[a] * eu + jv[a] * ev);
        }
    }
    return cost;
}

/* The library's normal equations (summed two entries to a vector) give the plain sums' bits,
 * on weighted, noisy points with outliers beyond Huber's threshold, and refuse a point behind
 * the camera: the poses of a session must not depend on how the sums are laid out. */
static void test_normal_equations_bits(void **state)
{
    (void)state;
    test_rng rng;
    test_rng_seed(&rng, 21);
    enum { PTS = 57 };
    double world[2 * PTS], norm[2 * PTS], wt[PTS];
    int tried = 0;
    for (int trial = 0; trial < 60; trial++) {
        satfeat_ar_pose truth, p;
        random_pose(&rng, 70.0, &truth);
        if (!make_points(&rng, &truth, PTS, 1.5, world, norm)) continue;
        for (int i = 0; i < PTS; i++) wt[i] = urand(&rng, 0.1, 2.0);
        for (int i = 0; i < 8; i++) norm[2 * i + 1] += urand(&rng, -10.0, 10.0) / 800.0;
        perturb_pose(&rng, &truth, 0.05, 0.01, 1.02, &p);
        for (int weighted = 0; weighted < 2; weighted++) {
            double A[36], b[6], A2[36], b2[6];
            const double *w = weighted ? wt : NULL;
            const double c = satfeat_ar_pose_normal_equations(world, norm, w, PTS, 800, 790, &p,
                                                              A, b);
            const double c2 = plain_normal_equations(world, norm, w, PTS, 800, 790, &p, A2, b2);
            assert_true(c > 0.0);
            assert_memory_equal(&c, &c2, sizeof c);
            assert_memory_equal(A, A2, sizeof A);
            assert_memory_equal(b, b2, sizeof b);
        }
        satfeat_ar_pose behind = truth;
        behind.t[2] = -5;
        double A[36], b[6];
        assert_true(satfeat_ar_pose_normal_equations(world, norm, NULL, PTS, 800, 800, &behind, A,
                                                     b) < 0.0);
        tried++;
    }
    assert_true(tried >= 40);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_rodrigues_known),  cmocka_unit_test(test_rodrigues_roundtrip),
        cmocka_unit_test(test_camera_distortion), cmocka_unit_test(test_camera_fov_project),
        cmocka_unit_test(test_pose_exact),        cmocka_unit_test(test_pose_noise),
        cmocka_unit_test(test_pose_branch),       cmocka_unit_test(test_points_min_spread),
        cmocka_unit_test(test_refine),           cmocka_unit_test(test_refine_converged),
        cmocka_unit_test(test_camera_undistort_newton), cmocka_unit_test(test_normal_equations_bits),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
