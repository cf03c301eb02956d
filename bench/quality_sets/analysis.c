/* analysis.c - loss analysis of one pair (analysis.h). */
#include "analysis.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define PI 3.14159265358979323846

enum { LOST_OK, LOST_LAP, LOST_NN_ORI, LOST_NN_DESC, LOST_RATIO, LOST_MUTUAL, LOST_N };

static int cmp_double(const void *x, const void *y)
{
    double a = *(const double *)x, b = *(const double *)y;
    return (a > b) - (a < b);
}

/* Median of v[0..n) (sorts v); NAN when empty. */
static double median(double *v, size_t n)
{
    if (!n) return NAN;
    qsort(v, n, sizeof *v, cmp_double);
    return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

/* Local rotation (of direction `ang`) and zoom of h at (x, y), by finite differences. */
static void local_map(const double h[9], double x, double y, double ang, double *rot, double *zoom)
{
    double x0, y0, x1, y1, x2, y2, xa, ya;
    const double e = 0.5;
    satfeat_ev_map(h, x, y, &x0, &y0);
    satfeat_ev_map(h, x + e, y, &x1, &y1);
    satfeat_ev_map(h, x, y + e, &x2, &y2);
    satfeat_ev_map(h, x + e * cos(ang), y + e * sin(ang), &xa, &ya);
    const double j00 = (x1 - x0) / e, j10 = (y1 - y0) / e, j01 = (x2 - x0) / e, j11 = (y2 - y0) / e;
    *zoom = sqrt(fabs(j00 * j11 - j01 * j10));
    *rot = atan2(ya - y0, xa - x0);
}

/* Wraps an angle difference to (-180, 180] degrees. */
static double wrap_deg(double r)
{
    double d = fmod(r * 180.0 / PI, 360.0);
    if (d > 180.0) d -= 360.0;
    if (d <= -180.0) d += 360.0;
    return d;
}

void satfeat_ev_analyse_header(FILE *out)
{
    fprintf(out, "set\trole\tpair\tmin_n\tpartners\tok\tlost_laplacian\tlost_nn_orientation\t"
                 "lost_nn_descriptor\tlost_ratio\tlost_mutual\tori_med_deg\tori_within10\t"
                 "ori_within30\tscale_med_log2\td_true_med\td_false_med\ttrue_nearer\n");
}

void satfeat_ev_analyse(FILE *out, const char *set, const char *role, int k,
                        const satfeat_ev_features *a, const satfeat_ev_features *b,
                        const double h[9], const satfeat_ev_match *m, size_t nm, int same_lap)
{
    size_t cnt[LOST_N] = {0}, np = 0, nearer = 0;
    double *ori = malloc((a->n + 1) * sizeof *ori), *sc = malloc((a->n + 1) * sizeof *sc);
    double *dt = malloc((a->n + 1) * sizeof *dt), *df = malloc((a->n + 1) * sizeof *df);
    char *matched = calloc(a->n + 1, 1);
    if (!ori || !sc || !dt || !df || !matched) goto done;
    for (size_t t = 0; t < nm; t++) {
        double x, y;
        const satfeat_keypoint *q = &b->kp[m[t].train];
        if (satfeat_ev_map(h, a->kp[m[t].query].x, a->kp[m[t].query].y, &x, &y) &&
            (x - q->x) * (x - q->x) + (y - q->y) * (y - q->y) <= 9.0)
            matched[m[t].query] = 1;
    }
    const float r2 = a->binary ? 0.8f : (float)(0.8 * 0.8);
    for (size_t i = 0; i < a->n; i++) {
        const satfeat_keypoint *p = &a->kp[i];
        double x, y, best_px = 9.0;
        long jp = -1;
        if (!satfeat_ev_map(h, p->x, p->y, &x, &y)) continue;
        float d_true = INFINITY, d_false = INFINITY, best = INFINITY, second = INFINITY;
        for (size_t j = 0; j < b->n; j++) {
            const satfeat_keypoint *q = &b->kp[j];
            const double e = (x - q->x) * (x - q->x) + (y - q->y) * (y - q->y);
            if (e <= best_px) best_px = e, jp = (long)j;
            if (same_lap && (p->laplacian < 0) != (q->laplacian < 0)) continue;
            const float d = satfeat_ev_dist(a, i, b, j);
            if (e <= 9.0 && d < d_true) d_true = d;
            if (e > 9.0 && d < d_false) d_false = d;
            if (d < best) second = best, best = d;
            else if (d < second) second = d;
        }
        if (jp < 0) continue;
        const satfeat_keypoint *q = &b->kp[jp];
        double rot, zoom;
        local_map(h, p->x, p->y, p->angle, &rot, &zoom);
        const double oe = wrap_deg(q->angle - rot);
        ori[np] = fabs(oe);
        sc[np] = fabs(log2(q->size / (p->size * zoom)));
        dt[np] = a->binary ? d_true : sqrt(d_true);
        df[np] = a->binary ? d_false : sqrt(d_false);
        nearer += d_true < d_false;
        np++;
        if (matched[i]) cnt[LOST_OK]++;
        else if (!(d_true <= 1e30f)) cnt[LOST_LAP]++;
        else if (!(d_true <= d_false)) cnt[fabs(oe) > 20.0 ? LOST_NN_ORI : LOST_NN_DESC]++;
        else if (!(best < r2 * second)) cnt[LOST_RATIO]++;
        else cnt[LOST_MUTUAL]++;
    }
    size_t w10 = 0, w30 = 0;
    for (size_t t = 0; t < np; t++) w10 += ori[t] <= 10.0, w30 += ori[t] <= 30.0;
    satfeat_ev_score s;
    satfeat_ev_score_matches(a, b, h, m, nm, &s);
    fprintf(out, "%s\t%s\t1-%d\t%zu\t%zu", set, role, k, s.n1 < s.n2 ? s.n1 : s.n2, np);
    for (int c = 0; c < LOST_N; c++) fprintf(out, "\t%zu", cnt[c]);
    fprintf(out, "\t%.2f\t%.3f\t%.3f\t%.3f\t%.4f\t%.4f\t%.3f\n", median(ori, np),
            np ? (double)w10 / np : 0.0, np ? (double)w30 / np : 0.0, median(sc, np),
            median(dt, np), median(df, np), np ? (double)nearer / np : 0.0);
done:
    free(ori);
    free(sc);
    free(dt);
    free(df);
    free(matched);
}
