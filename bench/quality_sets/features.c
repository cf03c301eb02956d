/* features.c - feature files, descriptor post-processing, the matcher and the scores of the
 * evaluation harness (features.h). */
#include "features.h"

#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int satfeat_ev_map(const double h[9], double x, double y, double *ox, double *oy)
{
    const double w = h[6] * x + h[7] * y + h[8];
    if (!(w > 0.0)) return 0;
    *ox = (h[0] * x + h[1] * y + h[2]) / w;
    *oy = (h[3] * x + h[4] * y + h[5]) / w;
    return 1;
}

void satfeat_ev_features_free(satfeat_ev_features *f)
{
    free(f->kp);
    free(f->desc);
    free(f->bits);
    memset(f, 0, sizeof *f);
}

int satfeat_ev_features_read(const char *path, int width, int height, satfeat_ev_features *f)
{
    memset(f, 0, sizeof *f);
    FILE *in = fopen(path, "rb");
    if (!in) return 1;
    char kind[16] = {0};
    size_t n = 0;
    int dim = 0, rc = 1;
    if (fscanf(in, "satfeat-features %zu %d %15s", &n, &dim, kind) != 3 || fgetc(in) != '\n' ||
        dim < 1 || dim > 1024 || n > 10000000)
        goto done;
    f->binary = !strcmp(kind, "bits");
    if (!f->binary && strcmp(kind, "f32")) goto done;
    f->n = n;
    f->dim = dim;
    f->width = width;
    f->height = height;
    f->kp = calloc(n ? n : 1, sizeof *f->kp);
    if (!f->kp) goto done;
    for (size_t i = 0; i < n; i++) {
        double r[5];
        if (fread(r, sizeof r, 1, in) != 1) goto done;
        f->kp[i].x = r[0];
        f->kp[i].y = r[1];
        f->kp[i].size = r[2];
        f->kp[i].sigma = 1.2 * r[2] / 9.0;
        f->kp[i].angle = r[3];
        f->kp[i].response = r[4];
    }
    if (f->binary) {
        f->bits = malloc(n * dim + 1);
        if (!f->bits || fread(f->bits, 1, n * dim, in) != n * dim) goto done;
    } else {
        f->desc = malloc((n * dim + 1) * sizeof *f->desc);
        if (!f->desc || fread(f->desc, sizeof *f->desc, n * dim, in) != n * dim) goto done;
    }
    rc = 0;
done:
    fclose(in);
    if (rc) satfeat_ev_features_free(f);
    return rc;
}

void satfeat_ev_features_normalise(satfeat_ev_features *f, satfeat_ev_norm norm)
{
    if (norm == SATFEAT_EV_NORM_NONE || f->binary) return;
    for (size_t i = 0; i < f->n; i++) {
        float *d = f->desc + i * f->dim;
        double l1 = 0.0, l2 = 0.0;
        for (int k = 0; k < f->dim; k++) l1 += fabs(d[k]);
        if (!(l1 > 0.0)) continue;
        for (int k = 0; k < f->dim; k++) {
            double v = sqrt(fabs(d[k]) / l1);
            d[k] = (float)(d[k] < 0 ? -v : v);
            l2 += (double)d[k] * d[k];
        }
        for (int k = 0; k < f->dim; k++) d[k] = (float)(d[k] / sqrt(l2));
    }
}

/* Squared L2 distance in satfeat_match_descriptors' order (8 lanes, fixed tree, no fma). */
static float l2sq(const float *a, const float *b, int dim)
{
    float s[8];
    for (int k = 0; k < 8; k++) {
        float t = 0.0f;
        for (int d = k; d < dim; d += 8) {
            const float u = a[d] - b[d];
            t = t + u * u;
        }
        s[k] = t;
    }
    return ((s[0] + s[4]) + (s[2] + s[6])) + ((s[1] + s[5]) + (s[3] + s[7]));
}

float satfeat_ev_dist(const satfeat_ev_features *a, size_t i, const satfeat_ev_features *b, size_t j)
{
    if (!a->binary) return l2sq(a->desc + i * a->dim, b->desc + j * b->dim, a->dim);
    const uint8_t *p = a->bits + i * a->dim, *q = b->bits + j * b->dim;
    int h = 0;
    for (int k = 0; k < a->dim; k++) h += __builtin_popcount((unsigned)(p[k] ^ q[k]));
    return (float)h;
}

/* Nearest and second-nearest candidate of row i (ties to the smaller index). */
typedef struct top2 {
    float best, second;
    long idx;
} top2;

static int gate(const satfeat_keypoint *p, const satfeat_keypoint *q, int same_lap)
{
    return !same_lap || ((p->laplacian < 0) == (q->laplacian < 0));
}

long satfeat_ev_match_all(const satfeat_ev_features *a, const satfeat_ev_features *b,
                          double ratio, int same_laplacian, satfeat_ev_match *m)
{
    if (a->n == 0 || b->n == 0) return 0; /* nothing to match (a file without keypoints may
                                              * name any descriptor kind) */
    if (a->binary != b->binary || a->dim != b->dim) return -1;
    float *d = malloc((a->n * b->n + 1) * sizeof *d);
    long *best_q = malloc((b->n + 1) * sizeof *best_q);
    if (!d || !best_q) {
        free(d);
        free(best_q);
        return -1;
    }
    /* rows are independent: the matrix is the same on any number of threads */
#pragma omp parallel for schedule(static)
    for (size_t i = 0; i < a->n; i++)
        for (size_t j = 0; j < b->n; j++)
            d[i * b->n + j] = gate(&a->kp[i], &b->kp[j], same_laplacian)
                                  ? satfeat_ev_dist(a, i, b, j) : INFINITY;
    /* the train's nearest query among those that pass the gates with it */
    for (size_t j = 0; j < b->n; j++) {
        float bd = INFINITY;
        best_q[j] = -1;
        for (size_t i = 0; i < a->n; i++)
            if (d[i * b->n + j] < bd) bd = d[i * b->n + j], best_q[j] = (long)i;
    }
    const float r2 = a->binary ? (float)ratio : (float)(ratio * ratio);
    long nm = 0;
    for (size_t i = 0; i < a->n; i++) {
        top2 t = {INFINITY, INFINITY, -1};
        for (size_t j = 0; j < b->n; j++) {
            const float v = d[i * b->n + j];
            if (!(v <= FLT_MAX)) continue;
            if (v < t.best) t.second = t.best, t.best = v, t.idx = (long)j;
            else if (v < t.second) t.second = v;
        }
        if (t.idx < 0) continue;
        if (ratio < 1.0 && t.second <= FLT_MAX && !(t.best < r2 * t.second)) continue;
        if (best_q[t.idx] != (long)i) continue;
        m[nm].query = (int)i;
        m[nm].train = (int)t.idx;
        m[nm].dist2 = t.best;
        nm++;
    }
    free(d);
    free(best_q);
    return nm;
}

/* Keypoints of f whose image under h lies inside a w x h image. */
static size_t visible(const satfeat_ev_features *f, const double h[9], int w, int hh)
{
    size_t c = 0;
    for (size_t k = 0; k < f->n; k++) {
        double x, y;
        if (satfeat_ev_map(h, f->kp[k].x, f->kp[k].y, &x, &y) && x >= 0.0 && y >= 0.0 &&
            x <= (double)(w - 1) && y <= (double)(hh - 1))
            c++;
    }
    return c;
}

/* 3x3 inverse through the adjugate; 0 when singular. */
static int inverse3(const double m[9], double o[9])
{
    double c[9] = {m[4] * m[8] - m[5] * m[7], m[2] * m[7] - m[1] * m[8], m[1] * m[5] - m[2] * m[4],
                   m[5] * m[6] - m[3] * m[8], m[0] * m[8] - m[2] * m[6], m[2] * m[3] - m[0] * m[5],
                   m[3] * m[7] - m[4] * m[6], m[1] * m[6] - m[0] * m[7], m[0] * m[4] - m[1] * m[3]};
    double det = m[0] * c[0] + m[1] * c[3] + m[2] * c[6];
    if (!(fabs(det) > 0.0)) return 0;
    for (int i = 0; i < 9; i++) o[i] = c[i] * (1.0 / det);
    return 1;
}

int satfeat_ev_score_matches(const satfeat_ev_features *a, const satfeat_ev_features *b,
                             const double h1to2[9], const satfeat_ev_match *m, size_t nm,
                             satfeat_ev_score *s)
{
    double h21[9];
    if (!inverse3(h1to2, h21)) return 1;
    memset(s, 0, sizeof *s);
    for (size_t k = 0; k < nm; k++) {
        const satfeat_keypoint *p = &a->kp[m[k].query], *q = &b->kp[m[k].train];
        double x, y;
        if (!satfeat_ev_map(h1to2, p->x, p->y, &x, &y)) continue;
        if ((x - q->x) * (x - q->x) + (y - q->y) * (y - q->y) <= 9.0) s->correct++;
    }
    s->matches = nm;
    s->n1 = visible(a, h1to2, b->width, b->height);
    s->n2 = visible(b, h21, a->width, a->height);
    const size_t lo = s->n1 < s->n2 ? s->n1 : s->n2;
    s->matching_score = lo ? (double)s->correct / (double)lo : 0.0;
    s->precision = nm ? (double)s->correct / (double)nm : 0.0;
    return 0;
}
