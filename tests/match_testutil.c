/* match_testutil.c - random matching problems for the matcher tests. */
#include "match_testutil.h"
#include "test_util.h"

#include <stdio.h>

#include <math.h>
#include <stdlib.h>
#include <string.h>

void match_normalise(float *v, int dim)
{
    double s = 0.0;
    for (int d = 0; d < dim; d++) s += (double)v[d] * v[d];
    if (s <= 0.0) return;
    const double r = 1.0 / sqrt(s);
    for (int d = 0; d < dim; d++) v[d] = (float)(v[d] * r);
}

static void random_kp(test_rng *r, satfeat_keypoint *k)
{
    memset(k, 0, sizeof *k);
    k->x = 640.0 * test_rng_unit(r);
    k->y = 480.0 * test_rng_unit(r);
    k->size = 9.0 + 40.0 * test_rng_unit(r);
    k->sigma = 1.2 * k->size / 9.0;
    k->response = 0.001;
    k->laplacian = test_rng_unit(r) < 0.5f ? -1 : 1;
}

match_set match_set_random(test_rng *r, size_t n1, size_t n2, int dim, float noise)
{
    match_set s;
    s.n1 = n1;
    s.n2 = n2;
    s.dim = dim;
    s.kp1 = calloc(n1 + 1, sizeof *s.kp1);
    s.kp2 = calloc(n2 + 1, sizeof *s.kp2);
    s.desc1 = calloc(n1 * (size_t)dim + 1, sizeof(float));
    s.desc2 = calloc(n2 * (size_t)dim + 1, sizeof(float));
    s.predicted = calloc(2 * n1 + 1, sizeof(double));
    assert_non_null(s.kp1);
    assert_non_null(s.kp2);
    assert_non_null(s.desc1);
    assert_non_null(s.desc2);
    assert_non_null(s.predicted);
    for (size_t i = 0; i < n1; i++) {
        random_kp(r, &s.kp1[i]);
        float *v = s.desc1 + i * (size_t)dim;
        for (int d = 0; d < dim; d++) v[d] = test_rng_unit(r) - 0.3f;
        match_normalise(v, dim);
        s.predicted[2 * i] = s.kp1[i].x + 5.0;
        s.predicted[2 * i + 1] = s.kp1[i].y - 3.0;
    }
    for (size_t j = 0; j < n2; j++) {
        random_kp(r, &s.kp2[j]);
        float *v = s.desc2 + j * (size_t)dim;
        if (n1 > 0 && j % 2 == 0) {
            /* a noisy copy of a random query, near its predicted position */
            const size_t i = (size_t)test_rng_range(r, 0, (int)n1 - 1);
            const float *q = s.desc1 + i * (size_t)dim;
            for (int d = 0; d < dim; d++) v[d] = q[d] + noise * (test_rng_unit(r) - 0.5f);
            s.kp2[j].x = s.predicted[2 * i] + 8.0 * (test_rng_unit(r) - 0.5);
            s.kp2[j].y = s.predicted[2 * i + 1] + 8.0 * (test_rng_unit(r) - 0.5);
            s.kp2[j].laplacian = test_rng_unit(r) < 0.9f ? s.kp1[i].laplacian : -s.kp1[i].laplacian;
        } else {
            for (int d = 0; d < dim; d++) v[d] = test_rng_unit(r) - 0.3f;
        }
        match_normalise(v, dim);
    }
    return s;
}

void match_set_free(match_set *s)
{
    free(s->kp1);
    free(s->kp2);
    free(s->desc1);
    free(s->desc2);
    free(s->predicted);
    memset(s, 0, sizeof *s);
}

satfeat_status match_arrays(satfeat_ctx *ctx, const satfeat_keypoint *kp1, const float *desc1,
                            size_t n1, const satfeat_keypoint *kp2, const float *desc2, size_t n2,
                            int dim, const double *pred, const satfeat_match_params *p,
                            satfeat_matches **out)
{
    satfeat_features *f1 = test_features_of(kp1, desc1, n1, dim, 640, 480);
    satfeat_features *f2 = test_features_of(kp2, desc2, n2, dim, 640, 480);
    const satfeat_status st = pred ? satfeat_match_guided(ctx, f1, f2, pred, p, out)
                                   : satfeat_match(ctx, f1, f2, p, out);
    satfeat_features_delete(f1);
    satfeat_features_delete(f2);
    return st;
}

size_t match_run(satfeat_ctx *ctx, const match_set *s, const double *pred,
                 const satfeat_match_params *p, satfeat_match_pair **out)
{
    satfeat_matches *list = NULL;
    satfeat_status st = match_arrays(ctx, s->kp1, s->desc1, s->n1, s->kp2, s->desc2, s->n2,
                                     s->dim, pred, p, &list);
    if (st != SATFEAT_OK) fprintf(stderr, "%s\n", satfeat_ctx_last_error(ctx));
    assert_int_equal(st, SATFEAT_OK);
    const size_t n = satfeat_matches_count(list);
    *out = calloc(n + 1, sizeof **out);
    assert_non_null(*out);
    if (n) memcpy(*out, satfeat_matches_data(list), n * sizeof **out);
    satfeat_matches_delete(list);
    return n;
}

satfeat_match_params match_params_of(double ratio, int mutual, int lap, double radius)
{
    satfeat_match_params p;
    p.ratio = ratio;
    p.mutual = mutual;
    p.same_laplacian = lap;
    p.radius = radius;
    return p;
}
