/* levers.c - descriptor levers recomputed with the library's header code (levers.h). */
#include "levers.h"

#include "describe/descriptor.h"
#include "describe/orientation.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_BINS 360
#define MAX_ANGLES 4

int satfeat_ev_levers_parse(satfeat_ev_levers *l, const char *spec)
{
    char name[32];
    double v;
    if (sscanf(spec, "%31[a-z]=%lf", name, &v) != 2) return 1;
    l->active = 1;
    if (!strcmp(name, "bins") && v >= 12 && v <= MAX_BINS && (int)v % 6 == 0) l->bins = (int)v;
    else if (!strcmp(name, "refine") && v >= 0 && v <= 10) l->refine = (int)v;
    else if (!strcmp(name, "multi") && v >= 0 && v <= 1) l->multi = v;
    else if (!strcmp(name, "sep") && v >= 0 && v <= 3.2) l->sep = v;
    else if (!strcmp(name, "clip") && v >= 0 && v <= 1) l->clip = v;
    else if (!strcmp(name, "hist") && (v == 0 || v == 8)) l->hist = (int)v;
    else if (!strcmp(name, "cat") && (v == 0 || v == 1)) l->cat = (int)v;
    else if (!strcmp(name, "dwin") && v >= 0.5 && v <= 2) l->dwin = v;
    else if (!strcmp(name, "dhaar") && v >= 1 && v <= 8) l->dhaar = v;
    else if (!strcmp(name, "ohaar") && v >= 1 && v <= 8) l->ohaar = v;
    else if (!strcmp(name, "rfd") && v >= 0.5 && v <= 4) l->rfd = v;
    else if (!strcmp(name, "rbox") && v >= 0.25 && v <= 4) l->rbox = v;
    else if (!strcmp(name, "oscharr") && v >= 0.25 && v <= 4) l->oscharr = v;
    else if (!strcmp(name, "ostep") && (v == 1 || v == 2)) l->ostep = (int)v;
    else return 1;
    return 0;
}

/* |a - b| on the circle, in [0, pi]. */
static double ang_dist(double a, double b)
{
    double d = fabs(a - b);
    while (d > SATFEAT_AM_2PI) d -= SATFEAT_AM_2PI;
    return d > SATFEAT_AM_PI ? SATFEAT_AM_2PI - d : d;
}

/* Orientation sample k's gradient by the oscharr lever: box sums on a 3 x 3 grid of spacing
 * oscharr x s around the sample's corner (boxes as wide as the spacing), combined with Scharr's
 * weights 3, 10, 3 across the derivative; a near-isotropic derivative where the two halves of a
 * Haar pair answer an edge by its angle to the image axes. */
static void scharr_sample(const uint32_t *t, size_t st, int width, int height,
                          const satfeat_ori_setup *o, const satfeat_describe_weights *w, int k,
                          double spacing, double *dx, double *dy)
{
    const int cx = satfeat_dg_corner(o->x + (double)w->ori_i[k] * o->hs);
    const int cy = satfeat_dg_corner(o->y + (double)w->ori_j[k] * o->hs);
    const int d = satfeat_dg_half(2.0 * spacing * o->s), h = d / 2 > 0 ? d / 2 : 1;
    double b[3][3];
    for (int j = 0; j < 3; j++)
        for (int i = 0; i < 3; i++) {
            const int x = cx + (i - 1) * d, y = cy + (j - 1) * d;
            b[j][i] = (double)satfeat_haar_box(t, st, width, height, x - h, y - h, x - h + d,
                                               y - h + d);
        }
    static const double wt[3] = {3.0, 10.0, 3.0};
    *dx = *dy = 0.0;
    for (int m = 0; m < 3; m++) {
        *dx += wt[m] * (b[m][2] - b[m][0]);
        *dy += wt[m] * (b[2][m] - b[0][m]);
    }
}

/* The angles of one keypoint (the dominant one first); returns their count. */
static int angles_of(const uint32_t *t, size_t st, int width, int height,
                     const satfeat_keypoint *kp, const satfeat_describe_weights *w,
                     const satfeat_ev_levers *l, double *out)
{
    satfeat_ori_setup o = satfeat_ori_prepare(kp->x, kp->y, kp->sigma, w);
    if (l->ohaar > 0.0) o.half = satfeat_dg_half(l->ohaar * o.s);
    const int nb = l->bins, win = nb / 6;
    double wx[SATFEAT_ORI_SAMPLES], wy[SATFEAT_ORI_SAMPLES], wa[SATFEAT_ORI_SAMPLES];
    double bx[MAX_BINS], by[MAX_BINS], n2[MAX_BINS], ax[MAX_BINS], ay[MAX_BINS];
    for (int b = 0; b < nb; b++) bx[b] = by[b] = 0.0;
    for (int k = 0; k < w->ori_n; k++) {
        double dx, dy;
        if (l->ostep == 2 && ((w->ori_i[k] & 1) || (w->ori_j[k] & 1))) {
            wx[k] = wy[k] = wa[k] = 0.0; /* left out: adds nothing to any bin or window */
            continue;
        }
        if (l->oscharr > 0.0) {
            scharr_sample(t, st, width, height, &o, w, k, l->oscharr, &dx, &dy);
        } else {
            int32_t ix, iy;
            satfeat_ori_response(t, st, width, height, &o, w, k, &ix, &iy);
            dx = (double)ix, dy = (double)iy;
        }
        wx[k] = w->ori_w[k] * dx;
        wy[k] = w->ori_w[k] * dy;
        wa[k] = satfeat_am_angle(wy[k], wx[k]);
        int b = nb == SATFEAT_ORI_BINS ? satfeat_ori_bin(wy[k], wx[k])
                                       : (int)(wa[k] * ((double)nb / SATFEAT_AM_2PI));
        b = b < 0 ? 0 : (b >= nb ? nb - 1 : b);
        bx[b] += wx[k];
        by[b] += wy[k];
    }
    int best = 0;
    for (int k = 0; k < nb; k++) {
        double sx = 0.0, sy = 0.0;
        for (int m = 0; m < win; m++) {
            sx += bx[(k + m) % nb];
            sy += by[(k + m) % nb];
        }
        ax[k] = sx;
        ay[k] = sy;
        n2[k] = sx * sx + sy * sy;
        if (n2[k] > n2[best]) best = k;
    }
    int n = 0;
    int cand[MAX_BINS];
    cand[n++] = best;
    if (l->multi > 0.0)
        for (int k = 0; k < nb; k++) {
            const double p = n2[(k + nb - 1) % nb], q = n2[(k + 1) % nb];
            if (k == best || !(n2[k] >= p && n2[k] > q)) continue;
            if (!(n2[k] >= l->multi * l->multi * n2[best])) continue;
            cand[n++] = k;
        }
    int count = 0;
    for (int c = 0; c < n && count < MAX_ANGLES; c++) {
        double a = satfeat_am_angle(ay[cand[c]], ax[cand[c]]);
        for (int it = 0; it < l->refine; it++) /* the library's rule, iterated */
            a = satfeat_ori_refine(wx, wy, w->ori_n, a);
        int far = 1;
        for (int m = 0; m < count; m++) far = far && ang_dist(a, out[m]) > l->sep;
        if (c == 0 || far) out[count++] = a;
    }
    return count;
}

/* The library's descriptor constants of a keypoint, with the sample spacing (hence the window)
 * times dwin and the Haar side dhaar x spacing when those levers are set (0: the library's,
 * w->desc_haar x spacing). */
static satfeat_desc_setup desc_setup(const satfeat_keypoint *kp, double a,
                                     const satfeat_describe_weights *w, const satfeat_ev_levers *l)
{
    satfeat_desc_setup d = satfeat_desc_prepare(kp->x, kp->y, kp->sigma, a, 0, w->desc_haar);
    if (l->dwin > 0.0) d.s *= l->dwin;
    if (l->dwin > 0.0 || l->dhaar > 0.0)
        d.half = satfeat_dg_half((l->dhaar > 0.0 ? l->dhaar : (double)w->desc_haar) * d.s);
    return d;
}

/* The gradient-histogram descriptor (dim 16 * hist) of a keypoint with angle a: the same 576
 * Haar samples and overlapping subregions as the library's descriptor, each sample's rotated
 * response (rx, ry) adding its magnitude to the two nearest of `hist` direction bins (bin b
 * centred on b * 2 pi / hist, linear in the angle), weighted by sub_w and reg_w as the SURF sums;
 * then clipped (clip > 0: unit L2, clip, as in SIFT) and normalised as the library does. cat:
 * the library's 64 SURF sums first, then the histograms, normalised together (dim 64 + 128). */
static void describe_hist(const uint32_t *t, size_t st, int width, int height,
                          const satfeat_keypoint *kp, double a,
                          const satfeat_describe_weights *w, const satfeat_ev_levers *l,
                          float *out)
{
    enum { MAXDIM = 64 + 16 * 8 };
    const int nb = l->hist, off = l->cat ? 64 : 0, dim = off + 16 * nb;
    double rx[SATFEAT_DESC_SAMPLES], ry[SATFEAT_DESC_SAMPLES], vals[MAXDIM];
    double mag[SATFEAT_DESC_SAMPLES], frac[SATFEAT_DESC_SAMPLES];
    int bin[SATFEAT_DESC_SAMPLES];
    const satfeat_desc_setup d = desc_setup(kp, a, w, l);
    for (int k = 0; k < SATFEAT_DESC_SAMPLES; k++) {
        satfeat_desc_sample(t, st, width, height, &d, k, &rx[k], &ry[k]);
        mag[k] = sqrt(rx[k] * rx[k] + ry[k] * ry[k]);
        const double u = satfeat_am_angle(ry[k], rx[k]) * ((double)nb / SATFEAT_AM_2PI);
        int b = (int)floor(u);
        frac[k] = u - (double)b;
        bin[k] = b < 0 ? 0 : (b >= nb ? nb - 1 : b);
    }
    for (int q = 0; q < 16; q++) {
        const int r0 = (q / 4) * SATFEAT_DESC_STEP, c0 = (q % 4) * SATFEAT_DESC_STEP;
        double h[8] = {0.0};
        for (int r = 0; r < SATFEAT_DESC_SUB; r++)
            for (int c = 0; c < SATFEAT_DESC_SUB; c++) {
                const int k = (r0 + r) * SATFEAT_DESC_GRID + (c0 + c);
                const double v = w->sub_w[r * SATFEAT_DESC_SUB + c] * mag[k];
                h[bin[k]] += v * (1.0 - frac[k]);
                h[(bin[k] + 1) % nb] += v * frac[k];
            }
        for (int b = 0; b < nb; b++) vals[off + q * nb + b] = w->reg_w[q] * h[b];
        if (off)
            for (int part = 0; part < 2; part++) satfeat_desc_part(rx, ry, w, q, part, 64, vals);
    }
    if (l->clip > 0.0) {
        const double norm = sqrt(satfeat_desc_norm2(vals, dim));
        for (int i = 0; i < dim; i++) {
            const double v = norm > 0.0 ? vals[i] / norm : 0.0;
            vals[i] = v > l->clip ? l->clip : (v < -l->clip ? -l->clip : v);
        }
    }
    const double scale = satfeat_desc_scale(vals, dim, l->root);
    for (int i = 0; i < dim; i++) out[i] = satfeat_desc_value(vals, i, scale, l->root);
}

/* Sum of the box of half side h (table corners) centred on the table corner nearest to the
 * keypoint-frame offset (u, v) (units of pixels) of setup d; clipped to the image. */
static double rotated_box(const uint32_t *t, size_t st, int width, int height,
                          const satfeat_desc_setup *d, double u, double v, int h)
{
    const int cx = satfeat_dg_corner(d->x + (d->c * u - d->sn * v));
    const int cy = satfeat_dg_corner(d->y + (d->sn * u + d->c * v));
    return (double)satfeat_haar_box(t, st, width, height, cx - h, cy - h, cx + h, cy + h);
}

/* The 576 samples of the rotated-finite-difference lever: rx of sample (row, col) is the box at
 * ((col - 11.5 + D) s, (row - 11.5) s) minus the box at ((col - 11.5 - D) s, (row - 11.5) s) in
 * the keypoint frame (D = rfd), ry the same along the rows; boxes of half side rbox x s. The
 * derivative is taken along the keypoint's own axes, so a rotated image gives the rotated
 * pattern's samples up to rounding, where a Haar pair's axis-aligned boxes answer an edge by
 * its angle to the image axes. */
static void rfd_samples(const uint32_t *t, size_t st, int width, int height,
                        const satfeat_desc_setup *d, const satfeat_ev_levers *l, double *rx,
                        double *ry)
{
    const double D = l->rfd * d->s;
    const int h = satfeat_dg_half(2.0 * (l->rbox > 0.0 ? l->rbox : 1.0) * d->s);
    for (int k = 0; k < SATFEAT_DESC_SAMPLES; k++) {
        const int row = k / SATFEAT_DESC_GRID, col = k % SATFEAT_DESC_GRID;
        const double u = ((double)col - 11.5) * d->s, v = ((double)row - 11.5) * d->s;
        rx[k] = rotated_box(t, st, width, height, d, u + D, v, h) -
                rotated_box(t, st, width, height, d, u - D, v, h);
        ry[k] = rotated_box(t, st, width, height, d, u, v + D, h) -
                rotated_box(t, st, width, height, d, u, v - D, h);
    }
}

/* The descriptor (dim 64) of a keypoint with angle a, normalised as the library is (root or unit
 * L2), or clipped first (unit L2, clip, unit L2, then the root normalisation when root). */
static void describe(const uint32_t *t, size_t st, int width, int height,
                     const satfeat_keypoint *kp, double a, const satfeat_describe_weights *w,
                     const satfeat_ev_levers *l, float *out)
{
    double rx[SATFEAT_DESC_SAMPLES], ry[SATFEAT_DESC_SAMPLES], vals[64];
    const satfeat_desc_setup d = desc_setup(kp, a, w, l);
    if (l->rfd > 0.0)
        rfd_samples(t, st, width, height, &d, l, rx, ry);
    else
        for (int k = 0; k < SATFEAT_DESC_SAMPLES; k++)
            satfeat_desc_sample(t, st, width, height, &d, k, &rx[k], &ry[k]);
    for (int q = 0; q < 16; q++)
        for (int part = 0; part < 2; part++) satfeat_desc_part(rx, ry, w, q, part, 64, vals);
    if (!(l->clip > 0.0)) { /* the library's normalisation, by the library's functions */
        const double scale = satfeat_desc_scale(vals, 64, l->root);
        for (int i = 0; i < 64; i++) out[i] = satfeat_desc_value(vals, i, scale, l->root);
        return;
    }
    const double norm = sqrt(satfeat_desc_norm2(vals, 64));
    double u[64], n2 = 0.0, n1 = 0.0;
    for (int i = 0; i < 64; i++) {
        double v = norm > 0.0 ? vals[i] / norm : 0.0;
        v = v > l->clip ? l->clip : (v < -l->clip ? -l->clip : v);
        u[i] = v;
        n2 += v * v;
    }
    const double nn = sqrt(n2);
    for (int i = 0; i < 64; i++) {
        u[i] = nn > 0.0 ? u[i] / nn : 0.0;
        n1 += fabs(u[i]);
    }
    for (int i = 0; i < 64; i++) {
        const double r = n1 > 0.0 ? sqrt(fabs(u[i]) / n1) : 0.0;
        out[i] = (float)(l->root ? (u[i] < 0.0 ? -r : r) : u[i]);
    }
}

int satfeat_ev_levers_apply(const satfeat_ev_levers *l, const uint8_t *img, int width,
                            int height, int first_image, satfeat_ev_features *f)
{
    if (!l->active || f->binary || f->dim != 64) return l->active ? 1 : 0;
    const size_t dim = l->hist ? (l->cat ? 64 : 0) + 16 * (size_t)l->hist : 64;
    const size_t st = (size_t)width + 1;
    uint32_t *t = calloc(st * ((size_t)height + 1), sizeof *t);
    satfeat_describe_weights *w = malloc(sizeof *w);
    satfeat_keypoint *kp = malloc((f->n * MAX_ANGLES + 1) * sizeof *kp);
    float *desc = malloc((f->n * MAX_ANGLES + 1) * dim * sizeof *desc);
    if (!t || !w || !kp || !desc) {
        free(t), free(w), free(kp), free(desc);
        return 1;
    }
    for (int y = 0; y < height; y++) {
        uint32_t row = 0;
        for (int x = 0; x < width; x++) {
            row += img[(size_t)y * (size_t)width + (size_t)x];
            t[(size_t)(y + 1) * st + (size_t)(x + 1)] = t[(size_t)y * st + (size_t)(x + 1)] + row;
        }
    }
    satfeat_describe_weights_init(w);
    satfeat_describe_weights_orientation(w, l->filter_lib);
    w->desc_haar = l->haar;
    w->ori_haar = l->ohaar_lib;
    const int plain = l->bins == SATFEAT_ORI_BINS && l->refine == SATFEAT_EV_LEVER_REFINE && !(l->multi > 0.0) &&
                      !(l->clip > 0.0) && !l->hist && !(l->dwin > 0.0) && !(l->dhaar > 0.0) &&
                      !(l->ohaar > 0.0) && !(l->rfd > 0.0) && !(l->oscharr > 0.0) && l->ostep != 2;
    size_t n = 0, differ = 0;
    for (size_t i = 0; i < f->n; i++) {
        double a[MAX_ANGLES];
        const int na = angles_of(t, st, width, height, &f->kp[i], w, l, a);
        for (int m = 0; m < na; m++) {
            kp[n] = f->kp[i];
            kp[n].angle = a[m];
            if (l->hist)
                describe_hist(t, st, width, height, &kp[n], a[m], w, l, desc + n * dim);
            else
                describe(t, st, width, height, &kp[n], a[m], w, l, desc + n * dim);
            if (plain && (a[m] != f->kp[i].angle ||
                          memcmp(desc + n * 64, f->desc + i * 64, 64 * sizeof *desc)))
                differ++;
            n++;
        }
    }
    if (differ)
        fprintf(stderr, "levers: %zu of %zu keypoints differ from the library\n", differ, f->n);
    if (first_image && n > (size_t)l->target) n = (size_t)l->target;
    free(f->kp);
    free(f->desc);
    f->kp = kp;
    f->desc = desc;
    f->n = n;
    f->dim = (int)dim;
    free(t);
    free(w);
    return 0;
}
