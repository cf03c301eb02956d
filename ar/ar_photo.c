/* ar_photo.c - the target's photometric samples and the photometric pose refinement
 * (ar_photo.h). */
#include "ar/ar_photo.h"
#include "ar/ar_camera.h"
#include "ar/ar_linsolve.h"
#include "ar/ar_rotation.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* The smallest gradient (levels a pixel, central differences) a sample needs: flat pixels
 * carry no position. */
#define PHOTO_MIN_GRADIENT 4.0
/* Cells of the sample grid on a side (fewer on a small level: a cell is at least 4 pixels). */
#define PHOTO_GRID 16
/* Huber's threshold in robust standard deviations (95% efficiency on Gaussian noise). */
#define PHOTO_HUBER 1.345

/* Near: of 3, 5 and 8 Gauss-Newton steps, 3 gave the smallest medians on the tuning sequences
 * of docs/AR.md (from the features' pose the alignment is near its minimum after 2 - 3), and
 * each step is a pass over the samples. Its bounds: a larger change is not a refinement of the
 * features' pose but another pose, which the photometric cost alone does not make trusted. */
const satfeat_ar_photo_reach satfeat_ar_photo_near = {3, 0.1745, 0.1};
/* Far: from the IPPE candidate on the true branch of a target 70 - 100 px wide, whose tilt the
 * keypoints left off (16 degrees on garden-approach's first pose), the alignment reached the
 * truth within half a degree in 15 - 20 steps on the tuning sequences of docs/AR.md (6 and 10
 * steps left some short, 30 gave what 20 gave); the other branch's candidate stops in a local
 * optimum the caller's margin tells apart. What it finds is trusted only by the checks of its
 * caller (ar_locate.c's settle_by_pixels). */
const satfeat_ar_photo_reach satfeat_ar_photo_far = {20, 1.0472, 0.5};

/* Steps below these (radians; a fraction of the distance) end the iterations. */
#define PHOTO_TINY_STEP 1e-6

void satfeat_ar_photo_free(satfeat_ar_photo *p)
{
    free(p->u);
    free(p->v);
    free(p->value);
    memset(p, 0, sizeof *p);
}

int satfeat_ar_photo_alloc(satfeat_ar_photo *p, int levels, size_t n)
{
    memset(p, 0, sizeof *p);
    const size_t m = n ? n : 1;
    p->u = malloc(m * sizeof *p->u);
    p->v = malloc(m * sizeof *p->v);
    p->value = malloc(m * sizeof *p->value);
    if (!p->u || !p->v || !p->value) {
        satfeat_ar_photo_free(p);
        return 0;
    }
    p->levels = levels;
    return 1;
}

int satfeat_ar_photo_copy(const satfeat_ar_photo *src, satfeat_ar_photo *dst)
{
    const size_t n = src->levels ? src->first[src->levels] : 0;
    if (!satfeat_ar_photo_alloc(dst, src->levels, n)) return 0;
    memcpy(dst->first, src->first, sizeof dst->first);
    if (n) {
        memcpy(dst->u, src->u, n * sizeof *dst->u);
        memcpy(dst->v, src->v, n * sizeof *dst->v);
        memcpy(dst->value, src->value, n * sizeof *dst->value);
    }
    return 1;
}

/* Level k+1 from level k (w x h): each pixel the mean of a 2 x 2 block. */
static void halve(const float *a, int w, int h, float *b)
{
    const int bw = w / 2, bh = h / 2;
    for (int y = 0; y < bh; y++) {
        const float *r0 = a + (size_t)(2 * y) * w, *r1 = r0 + w;
        for (int x = 0; x < bw; x++)
            b[(size_t)y * bw + x] =
                0.25f * ((r0[2 * x] + r0[2 * x + 1]) + (r1[2 * x] + r1[2 * x + 1]));
    }
}

/* Appends to p the samples of one level (img, w x h, level k): in each grid cell over the
 * interior pixels the `per` pixels of largest squared gradient above the minimum, in scan order
 * among equals. */
static void select_level(const float *img, int w, int h, int k, satfeat_ar_photo *p, uint32_t *n)
{
    const int gx = w - 2 < 4 * PHOTO_GRID ? ((w - 2) / 4 > 0 ? (w - 2) / 4 : 1) : PHOTO_GRID;
    const int gy = h - 2 < 4 * PHOTO_GRID ? ((h - 2) / 4 > 0 ? (h - 2) / 4 : 1) : PHOTO_GRID;
    int per = SATFEAT_AR_PHOTO_PER_LEVEL / (gx * gy);
    if (per < 1) per = 1;
    if (per > 32) per = 32;
    const double scale = (double)(1 << k);
    for (int cy = 0; cy < gy; cy++)
        for (int cx = 0; cx < gx; cx++) {
            const int x0 = 1 + (int)((long)cx * (w - 2) / gx);
            const int x1 = 1 + (int)((long)(cx + 1) * (w - 2) / gx);
            const int y0 = 1 + (int)((long)cy * (h - 2) / gy);
            const int y1 = 1 + (int)((long)(cy + 1) * (h - 2) / gy);
            float best[32];
            int bx[32], by[32], nb = 0;
            for (int y = y0; y < y1; y++)
                for (int x = x0; x < x1; x++) {
                    const float *c = img + (size_t)y * w + x;
                    const float dx = 0.5f * (c[1] - c[-1]), dy = 0.5f * (c[w] - c[-w]);
                    const float g = dx * dx + dy * dy;
                    if (!(g >= (float)(PHOTO_MIN_GRADIENT * PHOTO_MIN_GRADIENT))) continue;
                    if (nb == per && !(g > best[nb - 1])) continue;
                    int at = nb < per ? nb++ : nb - 1;
                    while (at > 0 && g > best[at - 1]) {
                        best[at] = best[at - 1], bx[at] = bx[at - 1], by[at] = by[at - 1];
                        at--;
                    }
                    best[at] = g, bx[at] = x, by[at] = y;
                }
            for (int i = 0; i < nb; i++) {
                p->u[*n] = (float)((bx[i] + 0.5) * scale - 0.5);
                p->v[*n] = (float)((by[i] + 0.5) * scale - 0.5);
                p->value[*n] = img[(size_t)by[i] * w + bx[i]];
                (*n)++;
            }
        }
}

int satfeat_ar_photo_build(const uint8_t *image, size_t stride, int width, int height,
                           satfeat_ar_photo *out)
{
    int levels = 1;
    while (levels < SATFEAT_AR_PHOTO_MAX_LEVELS && (width >> levels) >= 32 &&
           (height >> levels) >= 32)
        levels++;
    float *a = malloc((size_t)width * height * sizeof *a);
    float *b = malloc(((size_t)(width / 2) * (height / 2) + 1) * sizeof *b);
    if (!a || !b ||
        !satfeat_ar_photo_alloc(out, levels, (size_t)levels * SATFEAT_AR_PHOTO_PER_LEVEL)) {
        free(a);
        free(b);
        memset(out, 0, sizeof *out);
        return 0;
    }
    for (int y = 0; y < height; y++)
        for (int x = 0; x < width; x++) a[(size_t)y * width + x] = image[(size_t)y * stride + x];
    uint32_t n = 0;
    int w = width, h = height;
    for (int k = 0; k < levels; k++) {
        out->first[k] = n;
        select_level(a, w, h, k, out, &n);
        if (k + 1 < levels) {
            halve(a, w, h, b);
            float *t = a;
            a = b, b = t;
            w /= 2, h /= 2;
        }
    }
    out->first[levels] = n;
    free(a);
    free(b);
    return 1;
}

/* Bilinear value of the frame at (x, y) (pixel centres at integers); the caller keeps the 2 x 2
 * neighbourhood inside. */
static double bilinear(const satfeat_ar_pixels *f, double x, double y)
{
    const int x0 = (int)floor(x), y0 = (int)floor(y);
    const double ax = x - x0, ay = y - y0;
    const uint8_t *r0 = f->pix + (size_t)y0 * f->stride + x0, *r1 = r0 + f->stride;
    const double top = r0[0] + ax * ((double)r0[1] - r0[0]);
    const double bottom = r1[0] + ax * ((double)r1[1] - r1[0]);
    return top + ay * (bottom - top);
}

/* Huber's cost of a residual at threshold c. */
static double huber(double r, double c)
{
    const double a = fabs(r);
    return a <= c ? 0.5 * r * r : c * (a - 0.5 * c);
}
/* One pass over the samples [b, e) at the pose (R, t) and light (ga, gb): residuals into r[],
 * their gradients (rotation increment, translation, gain, bias) into rows[8 m]; returns the
 * count m of samples that project inside the frame (with the 1-pixel margin of the gradient)
 * and off the mask's zeros. */
static size_t residuals(const satfeat_ar_photo *p, uint32_t b, uint32_t e, double s,
                        const satfeat_ar_camera *cam, const satfeat_ar_pixels *f,
                        const double R[9], const double t[3], double ga, double gb, double *r,
                        double *rows)
{
    size_t m = 0;
    for (uint32_t i = b; i < e; i++) {
        const double X = p->u[i] * s, Y = p->v[i] * s;
        const double P0 = R[0] * X + R[1] * Y, P1 = R[3] * X + R[4] * Y, P2 = R[6] * X + R[7] * Y;
        const double z = P2 + t[2];
        if (!(z > 0.0)) continue;
        const double iz = 1.0 / z, xn = (P0 + t[0]) * iz, yn = (P1 + t[1]) * iz;
        const double r2 = xn * xn + yn * yn;
        const double g = 1.0 + r2 * (cam->k1 + cam->k2 * r2), gp = cam->k1 + 2.0 * cam->k2 * r2;
        const double px = cam->fx * xn * g + cam->cx, py = cam->fy * yn * g + cam->cy;
        if (!(px >= 1.0 && py >= 1.0 && px < f->width - 2.0 && py < f->height - 2.0)) continue;
        if (f->mask && !f->mask[(size_t)(int)(py + 0.5) * f->mask_stride + (size_t)(int)(px + 0.5)])
            continue;
        const double I = bilinear(f, px, py);
        const double gx = 0.5 * (bilinear(f, px + 1.0, py) - bilinear(f, px - 1.0, py));
        const double gy = 0.5 * (bilinear(f, px, py + 1.0) - bilinear(f, px, py - 1.0));
        /* the gradient with respect to the normalised point, through the distortion */
        const double cross = 2.0 * xn * yn * gp;
        const double ex = gx * cam->fx * (g + 2.0 * xn * xn * gp) + gy * cam->fy * cross;
        const double ey = gx * cam->fx * cross + gy * cam->fy * (g + 2.0 * yn * yn * gp);
        /* ... to the camera point (P + t), then to the rotation increment (P x q) and t (q) */
        const double q0 = ex * iz, q1 = ey * iz, q2 = -(ex * xn + ey * yn) * iz;
        double *j = rows + 8 * m;
        j[0] = P1 * q2 - P2 * q1;
        j[1] = P2 * q0 - P0 * q2;
        j[2] = P0 * q1 - P1 * q0;
        j[3] = q0, j[4] = q1, j[5] = q2;
        j[6] = -p->value[i];
        j[7] = -1.0;
        r[m] = I - ga * p->value[i] - gb;
        m++;
    }
    return m;
}

/* The robust deviation of r[0 .. m-1] (1.4826 x the median absolute deviation), at least 0.5
 * levels (the rounding of 8-bit pixels); tmp: m doubles. */
static double robust_sigma(const double *r, size_t m, double *tmp)
{
    memcpy(tmp, r, m * sizeof *tmp);
    const double med = satfeat_ar_kth_smallest(tmp, m, m / 2);
    for (size_t i = 0; i < m; i++) tmp[i] = fabs(r[i] - med);
    const double mad = 1.4826 * satfeat_ar_kth_smallest(tmp, m, m / 2);
    return mad > 0.5 ? mad : 0.5;
}

static double mean_cost(const double *r, size_t m, double c)
{
    double sum = 0.0;
    for (size_t i = 0; i < m; i++) sum += huber(r[i], c);
    return sum / (double)m;
}

/* Samples a level needs in the frame: a quarter of them, at least 24. */
static size_t needed(const satfeat_ar_photo *p, int level)
{
    const size_t n = p->first[level + 1] - p->first[level];
    return n / 4 > 24 ? n / 4 : 24;
}

/* The means, variances and covariance of the samples' values T and the frame's I over m
 * samples, from residuals() at zero light (r[] holds I, rows[8 i + 6] minus T). */
typedef struct light_moments {
    double mt, mi, vt, vi, cov;
} light_moments;

static light_moments moments(const double *r, const double *rows, size_t m)
{
    double st = 0, si = 0, stt = 0, sti = 0, sii = 0;
    for (size_t i = 0; i < m; i++) {
        const double T = -rows[8 * i + 6], I = r[i];
        st += T, si += I, stt += T * T, sti += T * I, sii += I * I;
    }
    light_moments q;
    q.mt = st / m, q.mi = si / m;
    q.vt = stt / m - q.mt * q.mt, q.vi = sii / m - q.mi * q.mi, q.cov = sti / m - q.mt * q.mi;
    return q;
}

/* The light (a, b) of the frame at the level's samples for pose `cur` (least squares of the
 * frame's values on the samples'), the residuals then in r[], their gradients in rows[]; the
 * count of samples used, 0 when too few or when the frame does not look like the target
 * there (no positive gain). */
static size_t start_light(const satfeat_ar_photo *p, int level, double s,
                          const satfeat_ar_camera *cam, const satfeat_ar_pixels *f,
                          const satfeat_ar_pose *cur, double *r, double *rows, double *ga,
                          double *gb)
{
    const uint32_t b = p->first[level], e = p->first[level + 1];
    size_t m = residuals(p, b, e, s, cam, f, cur->R, cur->t, 0.0, 0.0, r, rows);
    if (m < needed(p, level)) return 0;
    const light_moments q = moments(r, rows, m);
    const double mt = q.mt, mi = q.mi, vt = q.vt;
    *ga = vt > 1.0 ? q.cov / vt : 1.0;
    if (!(*ga > 0.05)) return 0;
    *gb = mi - *ga * mt;
    /* the same samples at the same pose: only the light changes the residuals (rows[6] is
     * minus the sample's value) */
    for (size_t i = 0; i < m; i++) r[i] = r[i] - *ga * -rows[8 * i + 6] - *gb;
    return m;
}

/* The level whose pixel spans about two frame pixels at the reference's centre under *pose:
 * the frame's pixels, sampled bilinearly, then see a template smoother than themselves, and
 * blur and aliasing disturb the alignment less (one frame pixel a level pixel gave 2 - 3x the
 * median errors on the tuning sequences, docs/AR.md). -1 when the centre is not in front. */
static int pick_level(const satfeat_ar_photo *photo, int ref_width, int ref_height, double s,
                      const satfeat_ar_camera *cam, const satfeat_ar_pose *pose)
{
    double c[3][2];
    const double cu = 0.5 * ref_width, cv = 0.5 * ref_height;
    const double du[3] = {0.0, 1.0, 0.0}, dv[3] = {0.0, 0.0, 1.0};
    for (int k = 0; k < 3; k++) {
        const double X[3] = {(cu + du[k]) * s, (cv + dv[k]) * s, 0.0};
        double P[3];
        satfeat_ar_mat3_apply(pose->R, X, P);
        const double z = P[2] + pose->t[2];
        if (!(z > 0.0)) return -1;
        satfeat_ar_normalized_to_pixel(cam, (P[0] + pose->t[0]) / z, (P[1] + pose->t[1]) / z,
                                       &c[k][0], &c[k][1]);
    }
    const double area = fabs((c[1][0] - c[0][0]) * (c[2][1] - c[0][1]) -
                             (c[1][1] - c[0][1]) * (c[2][0] - c[0][0]));
    if (!(area > 0.0) || !isfinite(area)) return -1;
    const double lv = floor(-0.5 * log2(area) + 0.5) + 1.0;
    return lv < 0.0 ? 0 : (lv >= photo->levels - 1 ? photo->levels - 1 : (int)lv);
}

int satfeat_ar_photo_refine(const satfeat_ar_photo *photo, int ref_width, int ref_height,
                            double s, const satfeat_ar_camera *cam, const satfeat_ar_pixels *frame,
                            const satfeat_ar_photo_reach *reach, double *scratch,
                            satfeat_ar_pose *pose)
{
    if (!photo || photo->levels < 1 || !frame || !frame->pix || !reach) return 0;
    const int level = pick_level(photo, ref_width, ref_height, s, cam, pose);
    if (level < 0 || photo->first[level + 1] - photo->first[level] < 24) return 0;
    const uint32_t b = photo->first[level], e = photo->first[level + 1];
    double *r = scratch, *tmp = r + SATFEAT_AR_PHOTO_PER_LEVEL;
    double *rows = tmp + SATFEAT_AR_PHOTO_PER_LEVEL;
    /* the starting pose's light, residuals and robust cost (the yardstick of the result) */
    double ga, gb;
    size_t m = start_light(photo, level, s, cam, frame, pose, r, rows, &ga, &gb);
    if (m < needed(photo, level)) return 0;
    const double c0 = PHOTO_HUBER * robust_sigma(r, m, tmp), cost0 = mean_cost(r, m, c0);
    satfeat_ar_pose cur = *pose;
    for (int it = 0; it < reach->steps; it++) {
        const double cth = it == 0 ? c0 : PHOTO_HUBER * robust_sigma(r, m, tmp);
        double A[64] = {0}, g[8] = {0}, d[8];
        for (size_t i = 0; i < m; i++) {
            const double *j = rows + 8 * i;
            const double w = fabs(r[i]) <= cth ? 1.0 : cth / fabs(r[i]);
            for (int a = 0; a < 8; a++) {
                const double wa = w * j[a];
                g[a] -= wa * r[i];
                for (int q = a; q < 8; q++) A[8 * a + q] += wa * j[q];
            }
        }
        for (int a = 0; a < 8; a++)
            for (int q = 0; q < a; q++) A[8 * a + q] = A[8 * q + a];
        if (!satfeat_ar_solve(A, g, 8, d)) break;
        double dR[9], R2[9];
        satfeat_ar_rodrigues_to_matrix(d, dR);
        satfeat_ar_mat3_mul(dR, cur.R, R2);
        memcpy(cur.R, R2, sizeof cur.R);
        for (int k = 0; k < 3; k++) cur.t[k] += d[3 + k];
        ga += d[6];
        gb += d[7];
        m = residuals(photo, b, e, s, cam, frame, cur.R, cur.t, ga, gb, r, rows);
        if (m < needed(photo, level)) return 0;
        const double turn = sqrt(d[0] * d[0] + d[1] * d[1] + d[2] * d[2]);
        const double move = sqrt(d[3] * d[3] + d[4] * d[4] + d[5] * d[5]);
        const double dist = sqrt(cur.t[0] * cur.t[0] + cur.t[1] * cur.t[1] + cur.t[2] * cur.t[2]);
        if (turn < PHOTO_TINY_STEP && move < PHOTO_TINY_STEP * dist) break;
    }
    if (!(mean_cost(r, m, c0) < cost0)) return 0;
    double dt2 = 0.0, t2 = 0.0;
    for (int k = 0; k < 3; k++) {
        dt2 += (cur.t[k] - pose->t[k]) * (cur.t[k] - pose->t[k]);
        t2 += pose->t[k] * pose->t[k];
    }
    if (!(satfeat_ar_rotation_angle_between(pose->R, cur.R) < reach->max_turn_rad) ||
        !(dt2 < reach->max_move * reach->max_move * t2))
        return 0;
    *pose = cur;
    return 1;
}

double satfeat_ar_photo_agreement(const satfeat_ar_photo *photo, int ref_width, int ref_height,
                                  double s, const satfeat_ar_camera *cam,
                                  const satfeat_ar_pixels *frame, double *scratch,
                                  const satfeat_ar_pose *pose)
{
    if (!photo || photo->levels < 1 || !frame || !frame->pix) return NAN;
    const int level = pick_level(photo, ref_width, ref_height, s, cam, pose);
    if (level < 0 || photo->first[level + 1] - photo->first[level] < 24) return NAN;
    double *r = scratch, *rows = r + 2 * SATFEAT_AR_PHOTO_PER_LEVEL;
    const size_t m = residuals(photo, photo->first[level], photo->first[level + 1], s, cam,
                               frame, pose->R, pose->t, 0.0, 0.0, r, rows);
    if (m < needed(photo, level)) return NAN;
    const light_moments q = moments(r, rows, m);
    /* a flat patch of frame (variance under a level) correlates with nothing */
    return q.vi > 1.0 && q.vt > 1.0 ? q.cov / sqrt(q.vt * q.vi) : 0.0;
}
