/* draw_keypoints.c - see draw_keypoints.h. */
#include "draw_keypoints.h"

#include <math.h>

void cli_draw_keypoints(const cli_canvas *c, int x0, int y0, const satfeat_keypoint *kp, size_t n,
                        int oriented)
{
    static const uint8_t bright[3] = {255, 150, 0}, dark[3] = {0, 190, 255};
    for (size_t i = 0; i < n; i++) {
        const uint8_t *col = kp[i].laplacian < 0 ? bright : dark;
        const double x = x0 + kp[i].x, y = y0 + kp[i].y, r = 0.5 * kp[i].size;
        cli_draw_circle(c, x, y, r, col);
        if (oriented)
            cli_draw_line(c, x, y, x + r * cos(kp[i].angle), y + r * sin(kp[i].angle), col);
    }
}

/* 1 when h maps (x1, y1) within 3 px of (x2, y2). */
static int maps_within_3px(const double h[9], double x1, double y1, double x2, double y2)
{
    const double w = h[6] * x1 + h[7] * y1 + h[8];
    if (!(fabs(w) > 1e-12)) return 0;
    const double u = (h[0] * x1 + h[1] * y1 + h[2]) / w, v = (h[3] * x1 + h[4] * y1 + h[5]) / w;
    return hypot(u - x2, v - y2) <= 3.0;
}

size_t cli_draw_matches(const cli_canvas *c, int x2, const satfeat_keypoint *kp1,
                        const satfeat_keypoint *kp2, const satfeat_match_pair *m, size_t n,
                        const double *h)
{
    static const uint8_t plain[3] = {255, 230, 0}, inlier[3] = {0, 230, 0},
                         outlier[3] = {240, 30, 30};
    size_t inliers = 0;
    for (size_t i = 0; i < n; i++) {
        const satfeat_keypoint *a = &kp1[m[i].query], *b = &kp2[m[i].train];
        const uint8_t *col = plain;
        if (h) {
            const int in = maps_within_3px(h, a->x, a->y, b->x, b->y);
            inliers += (size_t)in;
            col = in ? inlier : outlier;
        }
        cli_draw_line(c, a->x, a->y, x2 + b->x, b->y, col);
        cli_draw_circle(c, a->x, a->y, 3.0, col);
        cli_draw_circle(c, x2 + b->x, b->y, 3.0, col);
    }
    return inliers;
}
