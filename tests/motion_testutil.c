/* motion_testutil.c - correspondence sets with a known model, noise, outliers and hard cases. */
#include "motion_testutil.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

double motion_urand(test_rng *r, double lo, double hi)
{
    return lo + (hi - lo) * (double)(test_rng_next(r) >> 11) * (1.0 / 9007199254740992.0);
}

/* A plausible model of each kind for a frame of width fw (pixels). */
static void model_of(satfeat_motion_model model, double fw, double *h)
{
    const double ang = 0.05, sc = 1.03;
    const double c = cos(ang) * sc, s = sin(ang) * sc;
    const double sim[9] = {c, -s, 0.02 * fw, s, c, -0.01 * fw, 0, 0, 1};
    const double aff[9] = {1.04, 0.06, -0.015 * fw, -0.03, 0.97, 0.02 * fw, 0, 0, 1};
    const double hom[9] = {0.97, 0.04,  0.01 * fw,  -0.02, 1.01,
                           -0.008 * fw, 3e-2 / fw, -2e-2 / fw, 1};
    memcpy(h, model == SATFEAT_MOTION_HOMOGRAPHY ? hom : model == SATFEAT_MOTION_AFFINE ? aff : sim,
           9 * sizeof(double));
}

static void apply(const double *h, double x, double y, double *u, double *v)
{
    const double w = h[6] * x + h[7] * y + h[8];
    *u = (h[0] * x + h[1] * y + h[2]) / w;
    *v = (h[3] * x + h[4] * y + h[5]) / w;
}

/* Source point i of the flavour. */
static void source_point(test_rng *r, motion_flavour f, size_t i, double fw, double fh,
                         const double *cx, const double *cy, double *x, double *y)
{
    switch (f) {
    case MOTION_DEGENERATE:
        if (i % 2 == 0) { /* on one of three lines, or a repeat of an earlier point */
            const double t = motion_urand(r, 0, 1);
            const int line = (int)(i / 2 % 3);
            *x = line == 0 ? t * fw : line == 1 ? 0.5 * fw : t * fw;
            *y = line == 0 ? 0.3 * fh : line == 1 ? t * fh : t * fh * 0.5 + 10.0;
            if (i % 6 == 0 && i > 0) *x = floor(*x / 64.0) * 64.0, *y = floor(*y / 64.0) * 64.0;
            return;
        }
        break;
    case MOTION_CLUSTERED: {
        const int k = (int)(test_rng_next(r) % 5u);
        *x = cx[k] + motion_urand(r, -0.01, 0.01);
        *y = cy[k] + motion_urand(r, -0.01, 0.01);
        return;
    }
    default: break;
    }
    *x = motion_urand(r, 0, fw - 1);
    *y = motion_urand(r, 0, fh - 1);
}

void motion_problem_make(motion_problem *p, satfeat_motion_model model, size_t n, double inliers,
                         motion_flavour flavour, uint64_t seed)
{
    const size_t cells = n ? n : 1;
    p->n = n;
    p->src = malloc(2 * cells * sizeof(double));
    p->dst = malloc(2 * cells * sizeof(double));
    p->quality = malloc(cells * sizeof(float));
    assert_non_null(p->src);
    assert_non_null(p->dst);
    assert_non_null(p->quality);
    test_rng r;
    test_rng_seed(&r, seed);
    const double fw = 1920.0, fh = 1080.0;
    const double off = flavour == MOTION_EXTREME ? 1e7 : 0.0;
    double h[9], cx[5], cy[5];
    model_of(model, fw, h);
    for (int k = 0; k < 5; k++) cx[k] = motion_urand(&r, 0, fw), cy[k] = motion_urand(&r, 0, fh);
    for (size_t i = 0; i < n; i++) {
        double x, y, u, v;
        source_point(&r, flavour, i, fw, fh, cx, cy, &x, &y);
        apply(h, x, y, &u, &v);
        const int in = motion_urand(&r, 0, 1) < inliers;
        if (in) {
            u += motion_urand(&r, -0.5, 0.5);
            v += motion_urand(&r, -0.5, 0.5);
        } else if (flavour == MOTION_EXTREME && i % 3 == 0) {
            u += motion_urand(&r, -1e12, 1e12);
            v += motion_urand(&r, -1e12, 1e12);
        } else {
            u = motion_urand(&r, 0, fw - 1);
            v = motion_urand(&r, 0, fh - 1);
        }
        p->src[2 * i] = x + off, p->src[2 * i + 1] = y - off;
        p->dst[2 * i] = u + off, p->dst[2 * i + 1] = v - off;
        float q = (float)(in ? motion_urand(&r, 0.3, 1.0) : motion_urand(&r, 0.0, 0.7));
        if (flavour == MOTION_TIED) q = (float)(int)(q * 3.0f);
        p->quality[i] = q;
    }
}

void motion_problem_free(motion_problem *p)
{
    free(p->src);
    free(p->dst);
    free(p->quality);
    memset(p, 0, sizeof *p);
}
