/* ar_render.c - renders planar targets on a textured plane through a camera with radial
 * distortion (ar_render.h). Each frame pixel is the mean of supersample^2 rays; a ray is cast
 * by inverting the distortion by bisection on the radius (not the library's Newton inverse),
 * intersected with the plane z = 0, and sampled bilinearly from a target or from the plane's
 * value-noise texture; then blur, gain/bias, the occluder and noise, rounded to 8 bits. */
#include "ar_render.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* splitmix64 */
static uint64_t mix64(uint64_t x)
{
    x += 0x9e3779b97f4a7c15ull;
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
    return x ^ (x >> 31);
}

static double lattice(int64_t ix, int64_t iy, uint64_t seed)
{
    const uint64_t h = mix64(seed ^ mix64((uint64_t)ix * 0x632be59bd9b4e019ull ^ (uint64_t)iy));
    return (double)(h >> 11) * (1.0 / 9007199254740992.0);
}

/* smooth value noise in [0, 1] with period 1 */
static double value_noise(double x, double y, uint64_t seed)
{
    const double fx = floor(x), fy = floor(y);
    const int64_t ix = (int64_t)fx, iy = (int64_t)fy;
    double ax = x - fx, ay = y - fy;
    ax = ax * ax * (3 - 2 * ax);
    ay = ay * ay * (3 - 2 * ay);
    const double a = lattice(ix, iy, seed), b = lattice(ix + 1, iy, seed);
    const double c = lattice(ix, iy + 1, seed), d = lattice(ix + 1, iy + 1, seed);
    return (a + (b - a) * ax) * (1 - ay) + (c + (d - c) * ax) * ay;
}

/* The plane's background texture at (X, Y) metres: three octaves of value noise. */
static double texture(double X, double Y, uint64_t seed)
{
    const double v = 0.5 * value_noise(X / 0.011, Y / 0.011, seed) +
                     0.3 * value_noise(X / 0.029, Y / 0.029, seed + 1) +
                     0.2 * value_noise(X / 0.083, Y / 0.083, seed + 2);
    return 30.0 + 190.0 * v;
}

static double bilinear(const ar_render_target *t, double u, double v)
{
    if (u < 0) u = 0;
    if (v < 0) v = 0;
    if (u > t->width - 1) u = t->width - 1;
    if (v > t->height - 1) v = t->height - 1;
    int x0 = (int)u, y0 = (int)v;
    if (x0 > t->width - 2) x0 = t->width > 1 ? t->width - 2 : 0;
    if (y0 > t->height - 2) y0 = t->height > 1 ? t->height - 2 : 0;
    const int x1 = t->width > 1 ? x0 + 1 : x0, y1 = t->height > 1 ? y0 + 1 : y0;
    const double ax = u - x0, ay = v - y0;
    const uint8_t *p = t->pixels;
    const double a = p[(size_t)y0 * t->width + x0], b = p[(size_t)y0 * t->width + x1];
    const double c = p[(size_t)y1 * t->width + x0], d = p[(size_t)y1 * t->width + x1];
    return (a + (b - a) * ax) * (1 - ay) + (c + (d - c) * ax) * ay;
}

/* r (1 + k1 r^2 + k2 r^4) */
static double radial(const satfeat_ar_camera *cam, double r)
{
    const double r2 = r * r;
    return r * (1 + cam->k1 * r2 + cam->k2 * r2 * r2);
}

/* Undistorted normalised ray of the distorted normalised point (xd, yd): the first radius
 * whose distorted radius reaches rd, found by marching out in steps of rd / 16 and bisecting
 * the last step; 0 when none below 100. */
static int undistort(const satfeat_ar_camera *cam, double xd, double yd, double *x, double *y)
{
    const double rd = sqrt(xd * xd + yd * yd);
    if (rd == 0.0 || (cam->k1 == 0.0 && cam->k2 == 0.0)) {
        *x = xd, *y = yd;
        return 1;
    }
    const double step = rd / 16.0;
    double hi = step;
    while (radial(cam, hi) < rd) {
        hi += step;
        if (hi > 100.0) return 0;
    }
    double lo = hi - step;
    for (int it = 0; it < 60; it++) {
        const double m = 0.5 * (lo + hi);
        if (radial(cam, m) < rd) lo = m;
        else hi = m;
    }
    const double s = 0.5 * (lo + hi) / rd;
    *x = xd * s, *y = yd * s;
    return 1;
}

/* The undistortion as a table of ru / rd over rd in [0, rd_max] (AR_LUT + 1 entries, each by
 * undistort()), interpolated linearly: a smooth function, so the interpolation error is below
 * 1e-8 of the radius, and a frame costs AR_LUT bisections instead of one per ray. */
#define AR_LUT 8192
typedef struct undistort_lut {
    double rd_max, step;
    double ratio[AR_LUT + 1];
    int ok[AR_LUT + 1];
} undistort_lut;

static void lut_build(const satfeat_ar_camera *cam, int width, int height, undistort_lut *lut)
{
    lut->rd_max = 0;
    for (int c = 0; c < 4; c++) {
        const double u = (c & 1) ? width : -1.0, v = (c & 2) ? height : -1.0;
        const double r = hypot((u - cam->cx) / cam->fx, (v - cam->cy) / cam->fy);
        if (r > lut->rd_max) lut->rd_max = r;
    }
    lut->step = lut->rd_max / AR_LUT;
    for (int i = 0; i <= AR_LUT; i++) {
        const double rd = i * lut->step;
        double x, y;
        lut->ok[i] = rd == 0.0 ? 1 : undistort(cam, rd, 0.0, &x, &y);
        lut->ratio[i] = rd == 0.0 ? 1.0 : (lut->ok[i] ? x / rd : 0.0);
    }
}

static int lut_undistort(const undistort_lut *lut, double xd, double yd, double *x, double *y)
{
    const double rd = sqrt(xd * xd + yd * yd), p = rd / lut->step;
    int i = (int)p;
    if (i >= AR_LUT) i = AR_LUT - 1;
    if (!lut->ok[i] || !lut->ok[i + 1]) return 0;
    const double a = p - i, s = lut->ratio[i] + a * (lut->ratio[i + 1] - lut->ratio[i]);
    *x = xd * s, *y = yd * s;
    return 1;
}

/* Gray level seen along the normalised ray (x, y, 1). */
static double shade(const ar_render_scene *sc, const ar_render_frame *f, double x, double y)
{
    /* X = R^T (l d - t) with z = 0: l = (c3 . t) / (c3 . d), c3 the third column of R */
    const double cd = f->R[2] * x + f->R[5] * y + f->R[8];
    const double ct = f->R[2] * f->t[0] + f->R[5] * f->t[1] + f->R[8] * f->t[2];
    if (fabs(cd) < 1e-12) return 100.0;
    const double l = ct / cd;
    if (!(l > 0.0)) return 100.0; /* the ray misses the plane: a plain sky */
    const double q[3] = {l * x - f->t[0], l * y - f->t[1], l - f->t[2]};
    const double X = f->R[0] * q[0] + f->R[3] * q[1] + f->R[6] * q[2];
    const double Y = f->R[1] * q[0] + f->R[4] * q[1] + f->R[7] * q[2];
    for (int k = 0; k < sc->n_targets; k++) {
        const ar_render_target *tg = &sc->targets[k];
        const double s = tg->width_m / tg->width;
        const double u = (X - tg->x0) / s, v = (Y - tg->y0) / s;
        if (u >= -0.5 && v >= -0.5 && u < tg->width - 0.5 && v < tg->height - 0.5)
            return bilinear(tg, u, v);
    }
    return texture(X, Y, sc->texture_seed);
}

static int blur(double *img, int w, int h, double sigma)
{
    const int r = (int)ceil(3.0 * sigma);
    double *k = malloc(sizeof(double) * (2 * r + 1));
    double *tmp = malloc(sizeof(double) * (size_t)w * h);
    if (!k || !tmp) {
        free(k);
        free(tmp);
        return -1;
    }
    double sum = 0;
    for (int i = -r; i <= r; i++) sum += k[i + r] = exp(-0.5 * i * i / (sigma * sigma));
    for (int i = 0; i <= 2 * r; i++) k[i] /= sum;
    for (int y = 0; y < h; y++)
        for (int x = 0; x < w; x++) {
            double a = 0;
            for (int i = -r; i <= r; i++) {
                int xx = x + i;
                xx = xx < 0 ? -xx : xx >= w ? 2 * w - 2 - xx : xx;
                if (xx < 0 || xx >= w) xx = x;
                a += k[i + r] * img[(size_t)y * w + xx];
            }
            tmp[(size_t)y * w + x] = a;
        }
    for (int y = 0; y < h; y++)
        for (int x = 0; x < w; x++) {
            double a = 0;
            for (int i = -r; i <= r; i++) {
                int yy = y + i;
                yy = yy < 0 ? -yy : yy >= h ? 2 * h - 2 - yy : yy;
                if (yy < 0 || yy >= h) yy = y;
                a += k[i + r] * tmp[(size_t)yy * w + x];
            }
            img[(size_t)y * w + x] = a;
        }
    free(k);
    free(tmp);
    return 0;
}

static double gauss_noise(uint64_t *state)
{
    *state += 1;
    const double u1 = ((double)(mix64(*state) >> 11) + 1.0) * (1.0 / 9007199254740993.0);
    *state += 1;
    const double u2 = (double)(mix64(*state) >> 11) * (1.0 / 9007199254740992.0);
    return sqrt(-2.0 * log(u1)) * cos(6.283185307179586 * u2);
}

int ar_render(const ar_render_scene *sc, const satfeat_ar_camera *cam, const ar_render_frame *f,
              int width, int height, uint8_t *out)
{
    if (!sc || !cam || !f || !out || width < 1 || height < 1 || sc->n_targets < 0 ||
        sc->n_targets > AR_RENDER_MAX_TARGETS || sc->supersample < 1 || sc->supersample > 8)
        return -1;
    double *img = malloc(sizeof(double) * (size_t)width * height);
    if (!img) return -1;
    const int ss = sc->supersample;
    const int distorted = cam->k1 != 0.0 || cam->k2 != 0.0;
    undistort_lut *lut = distorted ? malloc(sizeof *lut) : NULL;
    if (distorted && !lut) {
        free(img);
        return -1;
    }
    if (lut) lut_build(cam, width, height, lut);
    for (int py = 0; py < height; py++)
        for (int px = 0; px < width; px++) {
            double acc = 0;
            for (int sy = 0; sy < ss; sy++)
                for (int sx = 0; sx < ss; sx++) {
                    const double u = px - 0.5 + (sx + 0.5) / ss, v = py - 0.5 + (sy + 0.5) / ss;
                    const double xd = (u - cam->cx) / cam->fx, yd = (v - cam->cy) / cam->fy;
                    double x = xd, y = yd;
                    const int ok = lut ? lut_undistort(lut, xd, yd, &x, &y) : 1;
                    acc += ok ? shade(sc, f, x, y) : 100.0;
                }
            img[(size_t)py * width + px] = acc / (ss * ss);
        }
    free(lut);
    if (f->blur > 0 && blur(img, width, height, f->blur) != 0) {
        free(img);
        return -1;
    }
    uint64_t state = f->seed * 0x2545f4914f6cdd1dull + 1;
    for (int py = 0; py < height; py++)
        for (int px = 0; px < width; px++) {
            double v = f->gain * img[(size_t)py * width + px] + f->bias;
            if (f->occluder && px >= f->occ_x0 && px <= f->occ_x1 && py >= f->occ_y0 &&
                py <= f->occ_y1)
                v = 70.0 + 0.05 * (px - f->occ_x0); /* a flat, slightly shaded object */
            if (f->noise > 0) v += f->noise * gauss_noise(&state);
            v = floor(v + 0.5);
            out[(size_t)py * width + px] = (uint8_t)(v < 0 ? 0 : v > 255 ? 255 : v);
        }
    free(img);
    return 0;
}

int ar_render_project(const satfeat_ar_camera *cam, const double R[9], const double t[3],
                      double X, double Y, double *u, double *v)
{
    const double x = R[0] * X + R[1] * Y + t[0], y = R[3] * X + R[4] * Y + t[1];
    const double z = R[6] * X + R[7] * Y + t[2];
    if (!(z > 0.0)) return 0;
    const double xn = x / z, yn = y / z, r2 = xn * xn + yn * yn;
    const double g = 1 + cam->k1 * r2 + cam->k2 * r2 * r2;
    *u = cam->fx * xn * g + cam->cx;
    *v = cam->fy * yn * g + cam->cy;
    return 1;
}

double ar_render_visible_fraction(const ar_render_scene *sc, int k, const satfeat_ar_camera *cam,
                                  const ar_render_frame *f, int width, int height)
{
    if (!sc || k < 0 || k >= sc->n_targets) return 0.0;
    const ar_render_target *tg = &sc->targets[k];
    const double s = tg->width_m / tg->width;
    int seen = 0;
    for (int j = 0; j < 24; j++)
        for (int i = 0; i < 24; i++) {
            const double X = tg->x0 + s * ((i + 0.5) / 24.0 * tg->width - 0.5);
            const double Y = tg->y0 + s * ((j + 0.5) / 24.0 * tg->height - 0.5);
            double u, v;
            if (!ar_render_project(cam, f->R, f->t, X, Y, &u, &v)) continue;
            if (u < -0.5 || v < -0.5 || u > width - 0.5 || v > height - 0.5) continue;
            if (f->occluder && u >= f->occ_x0 && u <= f->occ_x1 && v >= f->occ_y0 &&
                v <= f->occ_y1)
                continue;
            seen++;
        }
    return seen / 576.0;
}
