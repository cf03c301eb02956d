/* eval_ellipse.c - see eval_ellipse.h. */
#include "eval/eval_ellipse.h"

#include <math.h>

#define EVAL_RADIUS 30.0

satfeat_ellipse satfeat_ellipse_circle(double x, double y, double r)
{
    satfeat_ellipse e = {x, y, 1.0 / (r * r), 0.0, 1.0 / (r * r)};
    return e;
}

int satfeat_ellipse_map(const satfeat_ellipse *e, const double h[9], satfeat_ellipse *out)
{
    const double x = e->cx, y = e->cy;
    const double w = h[6] * x + h[7] * y + h[8];
    if (!(w > 0) || !isfinite(w)) return 0;
    const double u = (h[0] * x + h[1] * y + h[2]) / w;
    const double v = (h[3] * x + h[4] * y + h[5]) / w;
    /* Jacobian of (u, v) at (x, y) */
    const double j00 = (h[0] - u * h[6]) / w, j01 = (h[1] - u * h[7]) / w;
    const double j10 = (h[3] - v * h[6]) / w, j11 = (h[4] - v * h[7]) / w;
    const double det = e->a * e->c - e->b * e->b;
    if (!(det > 0)) return 0;
    /* S = M^-1 = [c -b; -b a] / det, then T = J S J^T, M' = T^-1 */
    const double s00 = e->c / det, s01 = -e->b / det, s11 = e->a / det;
    const double t00 = j00 * (j00 * s00 + j01 * s01) + j01 * (j00 * s01 + j01 * s11);
    const double t01 = j10 * (j00 * s00 + j01 * s01) + j11 * (j00 * s01 + j01 * s11);
    const double t11 = j10 * (j10 * s00 + j11 * s01) + j11 * (j10 * s01 + j11 * s11);
    const double tdet = t00 * t11 - t01 * t01;
    if (!(tdet > 0) || !isfinite(tdet)) return 0;
    out->cx = u;
    out->cy = v;
    out->a = t11 / tdet;
    out->b = -t01 / tdet;
    out->c = t00 / tdet;
    return 1;
}

void satfeat_ellipse_half_box(const satfeat_ellipse *e, double *hx, double *hy)
{
    const double det = e->a * e->c - e->b * e->b;
    *hx = sqrt(e->c / det);
    *hy = sqrt(e->a / det);
}

double satfeat_ellipse_radius(const satfeat_ellipse *e)
{
    return 1.0 / sqrt(sqrt(e->a * e->c - e->b * e->b));
}

int satfeat_ellipse_inside(const satfeat_ellipse *e, int width, int height)
{
    double hx, hy;
    satfeat_ellipse_half_box(e, &hx, &hy);
    return e->cx - hx >= 0 && e->cx + hx <= width - 1 && e->cy - hy >= 0 &&
           e->cy + hy <= height - 1;
}

static int contains(const satfeat_ellipse *e, double px, double py)
{
    const double dx = px - e->cx, dy = py - e->cy;
    return e->a * dx * dx + 2.0 * e->b * dx * dy + e->c * dy * dy <= 1.0;
}

double satfeat_ellipse_overlap_error(const satfeat_ellipse *a, const satfeat_ellipse *b)
{
    const double f = EVAL_RADIUS / satfeat_ellipse_radius(a);
    const double k = 1.0 / (f * f); /* semi-axes times f: the matrix divided by f^2 */
    const satfeat_ellipse sa = {a->cx, a->cy, a->a * k, a->b * k, a->c * k};
    const satfeat_ellipse sb = {b->cx, b->cy, b->a * k, b->b * k, b->c * k};
    double ax, ay, bx, by;
    satfeat_ellipse_half_box(&sa, &ax, &ay);
    satfeat_ellipse_half_box(&sb, &bx, &by);
    if (fabs(sa.cx - sb.cx) > ax + bx || fabs(sa.cy - sb.cy) > ay + by) return 1.0;
    /* grid offsets (i, j) from A's centre covering both boxes */
    const double x0 = fmin(-ax, sb.cx - sa.cx - bx), x1 = fmax(ax, sb.cx - sa.cx + bx);
    const double y0 = fmin(-ay, sb.cy - sa.cy - by), y1 = fmax(ay, sb.cy - sa.cy + by);
    long in_a = 0, in_b = 0, in_both = 0;
    for (long j = (long)ceil(y0); j <= (long)floor(y1); j++) {
        const double py = sa.cy + (double)j;
        for (long i = (long)ceil(x0); i <= (long)floor(x1); i++) {
            const double px = sa.cx + (double)i;
            const int ia = contains(&sa, px, py), ib = contains(&sb, px, py);
            in_a += ia;
            in_b += ib;
            in_both += ia & ib;
        }
    }
    const long uni = in_a + in_b - in_both;
    return uni > 0 ? 1.0 - (double)in_both / (double)uni : 1.0;
}

int satfeat_mat3_inverse(const double m[9], double out[9])
{
    const double c00 = m[4] * m[8] - m[5] * m[7], c01 = m[5] * m[6] - m[3] * m[8],
                 c02 = m[3] * m[7] - m[4] * m[6];
    const double det = m[0] * c00 + m[1] * c01 + m[2] * c02;
    if (det == 0 || !isfinite(det)) return 0;
    out[0] = c00 / det;
    out[1] = (m[2] * m[7] - m[1] * m[8]) / det;
    out[2] = (m[1] * m[5] - m[2] * m[4]) / det;
    out[3] = c01 / det;
    out[4] = (m[0] * m[8] - m[2] * m[6]) / det;
    out[5] = (m[2] * m[3] - m[0] * m[5]) / det;
    out[6] = c02 / det;
    out[7] = (m[1] * m[6] - m[0] * m[7]) / det;
    out[8] = (m[0] * m[4] - m[1] * m[3]) / det;
    return 1;
}
