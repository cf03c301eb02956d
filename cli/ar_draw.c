/* ar_draw.c - the drawing of `satfeat ar --draw` (ar_draw.h), through the library's own
 * projection (satfeat_ar_project_points), so the picture shows exactly what the pose says. */
#include "ar_draw.h"

#include <math.h>

/* Points per outline edge: enough for a distorted edge to look curved. */
#define EDGE_STEPS 16

/* Projects the plane points (x, y, z) and draws the polyline through them (a segment with an
 * end behind the camera is skipped: the projection gives NaN there, which the line refuses). */
static void draw_polyline(const cli_canvas *c, const satfeat_ar_camera *cam,
                          const satfeat_ar_result *r, const double *xyz, int n,
                          const uint8_t rgb[3])
{
    double uv[2 * (4 * EDGE_STEPS + 1)];
    if (n > 4 * EDGE_STEPS + 1 ||
        satfeat_ar_project_points(cam, r->rvec, r->tvec, xyz, (size_t)n, uv) != SATFEAT_OK)
        return;
    for (int i = 0; i + 1 < n; i++)
        cli_draw_line(c, uv[2 * i], uv[2 * i + 1], uv[2 * i + 2], uv[2 * i + 3], rgb);
}

static void draw_target(const cli_canvas *c, const satfeat_ar_camera *cam,
                        const cli_ar_drawn_target *t, const satfeat_ar_result *r)
{
    const double s = t->width_m / t->ref_width;
    /* the reference's outer pixel edges: pixel centres at integers, so -0.5 .. size - 0.5 */
    const double X[5] = {-0.5, t->ref_width - 0.5, t->ref_width - 0.5, -0.5, -0.5};
    const double Y[5] = {-0.5, -0.5, t->ref_height - 0.5, t->ref_height - 0.5, -0.5};
    double xyz[3 * (4 * EDGE_STEPS + 1)];
    int n = 0;
    for (int e = 0; e < 4; e++)
        for (int k = 0; k < EDGE_STEPS + (e == 3); k++) {
            const double f = (double)k / EDGE_STEPS;
            xyz[3 * n] = s * (X[e] + f * (X[e + 1] - X[e]));
            xyz[3 * n + 1] = s * (Y[e] + f * (Y[e + 1] - Y[e]));
            xyz[3 * n + 2] = 0.0;
            n++;
        }
    static const uint8_t yellow[3] = {255, 220, 0};
    draw_polyline(c, cam, r, xyz, n, yellow);
    const double cx = s * 0.5 * (t->ref_width - 1), cy = s * 0.5 * (t->ref_height - 1);
    const double len = 0.5 * t->width_m;
    static const uint8_t colors[3][3] = {{255, 40, 40}, {40, 230, 40}, {60, 120, 255}};
    for (int a = 0; a < 3; a++) {
        double axis[6] = {cx, cy, 0.0, cx, cy, 0.0};
        axis[3 + a] += len;
        draw_polyline(c, cam, r, axis, 2, colors[a]);
    }
}

void cli_ar_draw(const cli_canvas *canvas, const uint8_t *gray, const satfeat_ar_camera *camera,
                 const cli_ar_drawn_target *targets, const satfeat_ar_result *results, int n)
{
    cli_canvas_paste_gray(canvas, 0, 0, gray, canvas->width, canvas->height);
    for (int k = 0; k < n; k++)
        if (results[k].state != SATFEAT_AR_LOST && isfinite(results[k].tvec[2]))
            draw_target(canvas, camera, &targets[k], &results[k]);
}
