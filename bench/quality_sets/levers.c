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

/* The angles of one keypoint (the dominant one first); returns their count. */
static int angles_of(const uint32_t *t, size_t st, int width, int height,
                     const satfeat_keypoint *kp, const satfeat_describe_weights *w,
                     const satfeat_ev_levers *l, double *out)
{
    const satfeat_ori_setup o = satfeat_ori_prepare(kp->x, kp->y, kp->sigma);
    const int nb = l->bins, win = nb / 6;
    double wx[SATFEAT_ORI_SAMPLES], wy[SATFEAT_ORI_SAMPLES], wa[SATFEAT_ORI_SAMPLES];
    double bx[MAX_BINS], by[MAX_BINS], n2[MAX_BINS], ax[MAX_BINS], ay[MAX_BINS];
    for (int b = 0; b < nb; b++) bx[b] = by[b] = 0.0;
    for (int k = 0; k < SATFEAT_ORI_SAMPLES; k++) {
        int32_t dx, dy;
        satfeat_ori_haar(t, st, width, height, &o, w, k, &dx, &dy);
        wx[k] = w->ori_w[k] * (double)dx;
        wy[k] = w->ori_w[k] * (double)dy;
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
            a = satfeat_ori_refine(wx, wy, SATFEAT_ORI_SAMPLES, a);
        int far = 1;
        for (int m = 0; m < count; m++) far = far && ang_dist(a, out[m]) > l->sep;
        if (c == 0 || far) out[count++] = a;
    }
    return count;
}

/* The descriptor (dim 64) of a keypoint with angle a, normalised as the library is (root or unit
 * L2), or clipped first (unit L2, clip, unit L2, then the root normalisation when root). */
static void describe(const uint32_t *t, size_t st, int width, int height,
                     const satfeat_keypoint *kp, double a, const satfeat_describe_weights *w,
                     const satfeat_ev_levers *l, float *out)
{
    double rx[SATFEAT_DESC_SAMPLES], ry[SATFEAT_DESC_SAMPLES], vals[64];
    const satfeat_desc_setup d = satfeat_desc_prepare(kp->x, kp->y, kp->sigma, a, 0);
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
    const size_t st = (size_t)width + 1;
    uint32_t *t = calloc(st * ((size_t)height + 1), sizeof *t);
    satfeat_describe_weights *w = malloc(sizeof *w);
    satfeat_keypoint *kp = malloc((f->n * MAX_ANGLES + 1) * sizeof *kp);
    float *desc = malloc((f->n * MAX_ANGLES + 1) * 64 * sizeof *desc);
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
    const int plain = l->bins == SATFEAT_ORI_BINS && l->refine == SATFEAT_EV_LEVER_REFINE && !(l->multi > 0.0) &&
                      !(l->clip > 0.0);
    size_t n = 0, differ = 0;
    for (size_t i = 0; i < f->n; i++) {
        double a[MAX_ANGLES];
        const int na = angles_of(t, st, width, height, &f->kp[i], w, l, a);
        for (int m = 0; m < na; m++) {
            kp[n] = f->kp[i];
            kp[n].angle = a[m];
            describe(t, st, width, height, &kp[n], a[m], w, l, desc + n * 64);
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
    free(t);
    free(w);
    return 0;
}
