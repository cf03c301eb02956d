/* ar_paths.c - camera paths of the AR test sequences (ar_paths.h). A camera looks at a point L
 * of the plane from distance d, tilted by `tilt` from the plane's normal towards azimuth `az`,
 * rolled by `roll` about its axis; the plane's image axes are x right, y down, and a camera
 * with no tilt and roll sees the target upright (R = I). */
#include "ar_paths.h"

#include <math.h>
#include <string.h>

#define PI 3.14159265358979323846

const char *const ar_path_names[] = {"approach", "leave",  "occlusion", "perspective", "blur",
                                     "light",    "sample", "orbit",     "handheld",    NULL};

static void normalize3(double v[3])
{
    const double n = sqrt(v[0] * v[0] + v[1] * v[1] + v[2] * v[2]);
    v[0] /= n, v[1] /= n, v[2] /= n;
}

static void look_at(double Lx, double Ly, double d, double tilt_deg, double az_deg,
                    double roll_deg, ar_render_frame *f)
{
    const double tl = tilt_deg * PI / 180, az = az_deg * PI / 180, rl = roll_deg * PI / 180;
    const double C[3] = {Lx + d * sin(tl) * cos(az), Ly + d * sin(tl) * sin(az), -d * cos(tl)};
    double z[3] = {Lx - C[0], Ly - C[1], -C[2]};
    normalize3(z);
    const double down[3] = {0, 1, 0};
    double x[3] = {down[1] * z[2] - down[2] * z[1], down[2] * z[0] - down[0] * z[2],
                   down[0] * z[1] - down[1] * z[0]};
    normalize3(x);
    const double y[3] = {z[1] * x[2] - z[2] * x[1], z[2] * x[0] - z[0] * x[2],
                         z[0] * x[1] - z[1] * x[0]};
    /* roll: rotate x, y about z */
    const double c = cos(rl), s = sin(rl);
    for (int k = 0; k < 3; k++) {
        f->R[k] = c * x[k] + s * y[k];
        f->R[3 + k] = -s * x[k] + c * y[k];
        f->R[6 + k] = z[k];
    }
    for (int i = 0; i < 3; i++)
        f->t[i] = -(f->R[3 * i] * C[0] + f->R[3 * i + 1] * C[1] + f->R[3 * i + 2] * C[2]);
}

int ar_path_camera(const char *name, int width, int height, satfeat_ar_camera *camera)
{
    int known = 0;
    for (int k = 0; ar_path_names[k]; k++) known |= !strcmp(name, ar_path_names[k]);
    if (!known) return 0;
    const double f = 0.5 * width / tan(30.0 * PI / 180.0);
    camera->fx = camera->fy = f;
    camera->cx = 0.5 * (width - 1);
    camera->cy = 0.5 * (height - 1);
    camera->k1 = camera->k2 = 0.0;
    if (!strcmp(name, "sample")) {
        camera->k1 = -0.12;
        camera->k2 = 0.03;
    }
    return 1;
}

int ar_path_frame(const char *name, int k, int n, double W, double H,
                  const satfeat_ar_camera *cam, int width, int height, ar_render_frame *f)
{
    memset(f, 0, sizeof *f);
    f->gain = 1.0;
    f->blur = 0.5;
    f->noise = 1.5;
    f->seed = (uint64_t)k * 7919u + 17u;
    const double t = n > 1 ? (double)k / (n - 1) : 0.0;
    const double cx = 0.5 * W, cy = 0.5 * H;
    (void)height;
    /* d such that the target is `px` pixels wide on screen (fronto-parallel) */
    const double fx = cam->fx;
#define DIST_FOR(px) (fx * W / (px))
    if (!strcmp(name, "approach")) {
        const double px = 70.0 * pow(480.0 / 70.0, t);
        look_at(cx + 0.05 * W * sin(3 * t), cy, DIST_FOR(px), 20 + 10 * sin(2 * PI * t),
                200 * t, 15 * sin(PI * t), f);
    } else if (!strcmp(name, "leave")) {
        const double s = sin(PI * t);
        look_at(cx + 2.6 * W * s * s, cy + 0.2 * W * s, DIST_FOR(300.0), 15, 30 + 40 * t,
                -5 + 10 * t, f);
    } else if (!strcmp(name, "occlusion")) {
        look_at(cx + 0.05 * W * sin(2 * PI * t), cy, DIST_FOR(360.0), 15, 120, 5 * t, f);
        f->occluder = 1;
        const double w = 0.38 * 360.0, x0 = -w + (width + w) * t;
        f->occ_x0 = x0, f->occ_x1 = x0 + w;
        f->occ_y0 = 0, f->occ_y1 = height;
    } else if (!strcmp(name, "perspective")) {
        look_at(cx, cy, DIST_FOR(380.0), 70 * sin(0.5 * PI * t), 60 + 90 * t, 10 * t, f);
    } else if (!strcmp(name, "blur")) {
        look_at(cx + 0.04 * W * sin(2 * PI * t), cy, DIST_FOR(330.0), 18, 240, 8 * t, f);
        f->blur = 0.5 + 2.5 * t;
    } else if (!strcmp(name, "light")) {
        look_at(cx, cy + 0.04 * W * sin(2 * PI * t), DIST_FOR(330.0), 22, 45 * t, -6 * t, f);
        f->gain = 1.0 - 0.7 * sin(PI * t) + 0.25 * t;
        f->bias = -25 * sin(PI * t) + 30 * t;
    } else if (!strcmp(name, "sample")) {
        /* approach, a 6-DoF wander with tilt up to 55 degrees, blur and light in the middle, an
         * occluder, then the target leaves the view and comes back */
        const double px = 90.0 * pow(420.0 / 90.0, fmin(1.0, 2.5 * t));
        double Lx = cx + 0.08 * W * sin(5 * t), Ly = cy + 0.06 * H * cos(4 * t);
        if (t > 0.7) {
            const double s = sin(PI * (t - 0.7) / 0.3);
            Lx += 2.8 * W * s * s;
        }
        look_at(Lx, Ly, DIST_FOR(px), 25 + 30 * sin(PI * t), 300 * t, 20 * sin(2 * PI * t), f);
        if (t > 0.35 && t < 0.5) f->blur = 0.5 + 2.0 * sin(PI * (t - 0.35) / 0.15);
        f->gain = 1.0 - 0.5 * sin(PI * fmin(1.0, fmax(0.0, (t - 0.45) / 0.25)));
        if (t > 0.5 && t < 0.65) {
            f->occluder = 1;
            const double w = 0.3 * width, x0 = -w + (width + w) * (t - 0.5) / 0.15;
            f->occ_x0 = x0, f->occ_x1 = x0 + w;
            f->occ_y0 = 0.2 * height, f->occ_y1 = height;
        }
    } else if (!strcmp(name, "orbit")) {
        /* a full turn around the target at a tilt of 35 - 50 degrees, the camera rolling with
         * it (the target turns by 360 degrees in the image) */
        look_at(cx, cy, DIST_FOR(320.0 + 60.0 * sin(2 * PI * t)), 42 + 8 * sin(4 * PI * t),
                360 * t, 360 * t, f);
    } else if (!strcmp(name, "handheld")) {
        /* an unsteady hand: fast irregular shifts, roll to +-40 degrees, distance changes and
         * a motion blur that follows the speed */
        const double j = sin(11 * t) + 0.6 * sin(23 * t + 1) + 0.3 * sin(41 * t + 2);
        look_at(cx + 0.12 * W * j, cy + 0.1 * W * sin(17 * t + 0.5),
                DIST_FOR(300.0 + 90 * sin(7 * t)), 20 + 15 * sin(9 * t), 80 + 120 * t,
                40 * sin(5 * t), f);
        f->blur = 0.5 + 1.0 * fabs(cos(11 * t));
    } else {
        return 0;
    }
#undef DIST_FOR
    return 1;
}
