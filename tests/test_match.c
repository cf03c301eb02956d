/* test_match.c - the CPU matcher against a plain brute-force reference written here (the
 * distance order re-derived independently, decisions by explicit scans), hand-made cases
 * where each gate (ratio, mutual, Laplacian, radius, predicted positions) changes the result,
 * ties, exact sizing and reuse of match lists, bad arguments, thread-count and scalar/AVX identity, a shifted image, and
 * (printed, not asserted) the time of 2000 x 2000 x 64 on 2 threads. */
#include "match/descriptor_distance.h"
#include "match/match_cpu.h"
#include "match/match_cpu_grid.h"
#include "match_testutil.h"

#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* ---- the reference ------------------------------------------------------------------------ */

/* Squared distance: lane d % 8 accumulates dim d in increasing order, then the fixed tree. */
static float ref_dist_sq(const float *a, const float *b, int dim)
{
    float lane[8] = {0, 0, 0, 0, 0, 0, 0, 0};
    for (int d = 0; d < dim; d++) {
        const float t = a[d] - b[d];
        lane[d % 8] += t * t;
    }
    return ((lane[0] + lane[4]) + (lane[2] + lane[6])) + ((lane[1] + lane[5]) + (lane[3] + lane[7]));
}

static double ref_dist_double(const float *a, const float *b, int dim)
{
    double s = 0.0;
    for (int d = 0; d < dim; d++) s += ((double)a[d] - b[d]) * ((double)a[d] - b[d]);
    return sqrt(s);
}

static int ref_gate(const match_set *s, const double *pred, const satfeat_match_params *p,
                    size_t i, size_t j)
{
    if (p->same_laplacian && (s->kp1[i].laplacian < 0) != (s->kp2[j].laplacian < 0)) return 0;
    if (p->radius > 0) {
        const double qx = pred ? pred[2 * i] : s->kp1[i].x, qy = pred ? pred[2 * i + 1] : s->kp1[i].y;
        const double dx = s->kp2[j].x - qx, dy = s->kp2[j].y - qy;
        if (!(dx * dx + dy * dy <= p->radius * p->radius)) return 0;
    }
    return 1;
}

static float ref_d(const match_set *s, size_t i, size_t j)
{
    return ref_dist_sq(s->desc1 + i * (size_t)s->dim, s->desc2 + j * (size_t)s->dim, s->dim);
}

/* Naive matcher: explicit scans for best, second and the train's nearest query. */
static size_t ref_match(const match_set *s, const double *pred, const satfeat_match_params *p,
                        satfeat_match_pair *out)
{
    size_t n = 0;
    const float r2 = (float)(p->ratio * p->ratio);
    for (size_t i = 0; i < s->n1; i++) {
        long best = -1;
        float bd = 0;
        for (size_t j = 0; j < s->n2; j++) {
            if (!ref_gate(s, pred, p, i, j)) continue;
            const float d = ref_d(s, i, j);
            if (!(d <= FLT_MAX)) continue;
            if (best < 0 || d < bd) {
                best = (long)j;
                bd = d;
            }
        }
        if (best < 0) continue;
        int has_second = 0;
        float sd = 0;
        for (size_t j = 0; j < s->n2; j++) {
            if ((long)j == best || !ref_gate(s, pred, p, i, j)) continue;
            const float d = ref_d(s, i, j);
            if (!(d <= FLT_MAX)) continue;
            if (!has_second || d < sd) sd = d;
            has_second = 1;
        }
        if (p->ratio < 1.0 && has_second && !(bd < r2 * sd)) continue;
        if (p->mutual) {
            long nq = -1;
            float nd = 0;
            for (size_t k = 0; k < s->n1; k++) {
                if (!ref_gate(s, pred, p, k, (size_t)best)) continue;
                const float d = ref_d(s, k, (size_t)best);
                if (!(d <= FLT_MAX)) continue;
                if (nq < 0 || d < nd) {
                    nq = (long)k;
                    nd = d;
                }
            }
            if (nq != (long)i) continue;
        }
        out[n].query = (int)i;
        out[n].train = (int)best;
        out[n].distance = sqrtf(bd);
        n++;
    }
    return n;
}

/* ---- helpers ------------------------------------------------------------------------------ */

static satfeat_ctx *cpu_ctx(int threads)
{
    satfeat_ctx *ctx;
    assert_int_equal(satfeat_ctx_new(&ctx, SATFEAT_BACKEND_CPU, -1), SATFEAT_OK);
    assert_int_equal(satfeat_ctx_set_threads(ctx, threads), SATFEAT_OK);
    return ctx;
}


/* Compares a result with the reference: indices and float distances exactly, and the double
 * distance within a tolerance. */
static void expect_reference(const match_set *s, const double *pred, const satfeat_match_params *p,
                             const satfeat_match_pair *m, size_t n)
{
    satfeat_match_pair *ref = calloc(s->n1 + 1, sizeof *ref);
    assert_non_null(ref);
    const size_t nr = ref_match(s, pred, p, ref);
    assert_int_equal(n, nr);
    for (size_t k = 0; k < n; k++) {
        assert_int_equal(m[k].query, ref[k].query);
        assert_int_equal(m[k].train, ref[k].train);
        assert_true(m[k].distance == ref[k].distance);
        const double dd = ref_dist_double(s->desc1 + (size_t)m[k].query * (size_t)s->dim,
                                          s->desc2 + (size_t)m[k].train * (size_t)s->dim, s->dim);
        assert_true(fabs(m[k].distance - dd) <= 1e-5);
    }
    free(ref);
}

/* ---- tests -------------------------------------------------------------------------------- */

static void test_distance_order(void **state)
{
    (void)state;
    test_rng r;
    test_rng_seed(&r, 11);
    int differs_from_sequential = 0;
    for (int it = 0; it < 2000; it++) {
        const int dim = it % 2 ? 128 : 64;
        float a[128], b[128];
        for (int d = 0; d < dim; d++) {
            /* wide dynamic range so that the order of the sums shows */
            const float scale = (it % 3 == 0) ? powf(2.0f, (float)test_rng_range(&r, -12, 12)) : 1.0f;
            a[d] = (test_rng_unit(&r) - 0.5f) * scale;
            b[d] = (test_rng_unit(&r) - 0.5f) * scale;
        }
        const float got = satfeat_desc_dist_sq(a, b, dim);
        const float want = ref_dist_sq(a, b, dim);
        assert_memory_equal(&got, &want, sizeof got);
        double dd = ref_dist_double(a, b, dim);
        assert_true(fabs((double)got - dd * dd) <= 1e-5 * dd * dd + 1e-30);
        float seq = 0.0f;
        for (int d = 0; d < dim; d++) seq = seq + (a[d] - b[d]) * (a[d] - b[d]);
        if (seq != got) differs_from_sequential++;
    }
    /* the defined order is not a plain sequential sum (the test would not notice a swap) */
    assert_true(differs_from_sequential > 50);
}

static void test_reference_random(void **state)
{
    (void)state;
    satfeat_ctx *ctx = cpu_ctx(2);
    test_rng r;
    test_rng_seed(&r, 2024);
    const size_t sizes[][2] = {{1, 1}, {1, 9}, {9, 1}, {7, 13}, {57, 61}, {200, 173}, {300, 311}};
    size_t total = 0;
    for (size_t k = 0; k < sizeof sizes / sizeof sizes[0]; k++)
        for (int dim = 64; dim <= 128; dim += 64) {
            match_set s = match_set_random(&r, sizes[k][0], sizes[k][1], dim, 0.2f);
            const satfeat_match_params ps[] = {
                match_params_of(0.8, 1, 1, 0), match_params_of(1.0, 0, 0, 0),
                match_params_of(0.9, 0, 1, 0), match_params_of(0.7, 1, 0, 0),
                match_params_of(0.8, 1, 1, 12), match_params_of(1.0, 1, 0, 30)};
            for (size_t q = 0; q < sizeof ps / sizeof ps[0]; q++)
                for (int use_pred = 0; use_pred < 2; use_pred++) {
                    const double *pred = use_pred ? s.predicted : NULL;
                    satfeat_match_pair *m;
                    const size_t n = match_run(ctx, &s, pred, &ps[q], &m);
                    expect_reference(&s, pred, &ps[q], m, n);
                    total += n;
                    free(m);
                }
            match_set_free(&s);
        }
    printf("reference comparison: %zu matches checked\n", total);
    assert_true(total > 500);
    satfeat_ctx_delete(ctx);
}

/* Internal run with an explicit code path. */
static size_t run_isa(const match_set *s, const satfeat_match_params *p, const double *pred,
                      int threads, satfeat_match_cpu_isa isa, satfeat_match_pair *out)
{
    satfeat_match_problem pr;
    pr.kp1 = s->kp1;
    pr.desc1 = s->desc1;
    pr.n1 = (int)s->n1;
    pr.kp2 = s->kp2;
    pr.desc2 = s->desc2;
    pr.n2 = (int)s->n2;
    pr.dim = s->dim;
    pr.predicted = pred;
    pr.same_laplacian = p->same_laplacian;
    pr.mutual = p->mutual;
    pr.radius2 = p->radius * p->radius;
    pr.ratio2 = (float)(p->ratio * p->ratio);
    void *scratch = malloc(satfeat_match_cpu_scratch_bytes(pr.n1, pr.n2, pr.dim, threads));
    assert_non_null(scratch);
    satfeat_matches *list = NULL;
    assert_int_equal(satfeat_matches_new(&list), SATFEAT_OK);
    assert_int_equal(satfeat_match_cpu_run(&pr, threads, isa, scratch, list), SATFEAT_OK);
    const size_t n = satfeat_matches_count(list);
    if (n) memcpy(out, satfeat_matches_data(list), n * sizeof *out);
    satfeat_matches_delete(list);
    free(scratch);
    return n;
}

static void test_scalar_avx_and_threads(void **state)
{
    (void)state;
    test_rng r;
    test_rng_seed(&r, 77);
    for (int dim = 64; dim <= 128; dim += 64) {
        match_set s = match_set_random(&r, 411, 389, dim, 0.25f);
        const satfeat_match_params ps[] = {match_params_of(0.8, 1, 1, 0), match_params_of(1.0, 0, 0, 0),
                                           match_params_of(0.95, 1, 1, 20)};
        for (size_t q = 0; q < 3; q++) {
            satfeat_match_pair *a = calloc(s.n1 + 1, sizeof *a), *b = calloc(s.n1 + 1, sizeof *b);
            assert_non_null(a);
            assert_non_null(b);
            const size_t na = run_isa(&s, &ps[q], s.predicted, 1, SATFEAT_MATCH_CPU_SCALAR, a);
            assert_true(na > 10);
            const int threads[] = {1, 2, 3, 5, 8};
            for (int t = 0; t < 5; t++)
                for (int isa = 0; isa < 3; isa++) {
                    memset(b, 0x5a, (s.n1 + 1) * sizeof *b);
                    const size_t nb = run_isa(&s, &ps[q], s.predicted, threads[t],
                                              (satfeat_match_cpu_isa)isa, b);
                    assert_int_equal(na, nb);
                    assert_memory_equal(a, b, na * sizeof *a);
                }
            free(a);
            free(b);
        }
        match_set_free(&s);
    }
}

/* Runs s with p on every CPU path and thread count and requires the scalar brute force's
 * matches bit for bit; returns that count. */
static size_t expect_paths_agree(const match_set *s, const satfeat_match_params *p,
                                 const double *pred)
{
    satfeat_match_pair *a = calloc(s->n1 + 1, sizeof *a), *b = calloc(s->n1 + 1, sizeof *b);
    assert_non_null(a);
    assert_non_null(b);
    const size_t na = run_isa(s, p, pred, 1, SATFEAT_MATCH_CPU_SCALAR, a);
    const int threads[] = {1, 2, 3};
    for (int t = 0; t < 3; t++)
        for (int isa = 0; isa < 3; isa++) {
            memset(b, 0x5a, (s->n1 + 1) * sizeof *b);
            const size_t nb = run_isa(s, p, pred, threads[t], (satfeat_match_cpu_isa)isa, b);
            assert_int_equal(na, nb);
            assert_memory_equal(a, b, na * sizeof *a);
        }
    free(a);
    free(b);
    return na;
}

/* The problem of a match set as the CPU matcher sees it (for satfeat_match_grid_applies). */
static satfeat_match_problem problem_of(const match_set *s, double radius, const double *pred)
{
    satfeat_match_problem pr;
    memset(&pr, 0, sizeof pr);
    pr.kp1 = s->kp1, pr.desc1 = s->desc1, pr.n1 = (int)s->n1;
    pr.kp2 = s->kp2, pr.desc2 = s->desc2, pr.n2 = (int)s->n2;
    pr.dim = s->dim, pr.predicted = pred, pr.radius2 = radius * radius;
    return pr;
}

/* The grid path of radius-gated matching against brute force: radii from below a pixel to past
 * the frame, clustered and duplicated positions (trains on cell borders, equal distances),
 * non-finite descriptors, predictions that are NaN, far outside or on the trains, both gates
 * on and off, mutual on and off; and the cases it must leave to brute force. */
static void test_grid_path(void **state)
{
    (void)state;
    test_rng r;
    test_rng_seed(&r, 4242);
    size_t total = 0;
    for (int dim = 64; dim <= 128; dim += 64) {
        match_set s = match_set_random(&r, 530, 610, dim, 0.3f);
        /* a quarter of the trains on a coarse lattice (cell borders for radii 1, 2.5, 5, 40) and
         * some exact copies of other trains (equal distances: the smaller index must win) */
        for (size_t j = 0; j < s.n2; j += 4) {
            s.kp2[j].x = 20.0 * floor(s.kp2[j].x / 20.0);
            s.kp2[j].y = 5.0 * floor(s.kp2[j].y / 5.0);
        }
        for (size_t j = 1; j + 8 < s.n2; j += 37) {
            s.kp2[j + 8] = s.kp2[j];
            memcpy(s.desc2 + (j + 8) * (size_t)dim, s.desc2 + j * (size_t)dim,
                   sizeof(float) * (size_t)dim);
        }
        s.desc2[5 * (size_t)dim + 3] = NAN;
        s.desc2[11 * (size_t)dim] = INFINITY;
        /* predictions: NaN, far away, exactly on a train, beyond the trains' box */
        s.predicted[2 * 3] = NAN;
        s.predicted[2 * 4 + 1] = 1e30;
        s.predicted[2 * 6] = s.kp2[12].x, s.predicted[2 * 6 + 1] = s.kp2[12].y;
        s.predicted[2 * 7] = -30.0, s.predicted[2 * 7 + 1] = 490.0;
        const double radii[] = {0.3, 1.0, 2.5, 5.0, 16.0, 40.0, 2000.0};
        for (size_t k = 0; k < sizeof radii / sizeof radii[0]; k++) {
            const satfeat_match_problem pr = problem_of(&s, radii[k], s.predicted);
            assert_true(satfeat_match_grid_applies(&pr));
            const satfeat_match_params ps[] = {match_params_of(0.8, 1, 1, radii[k]),
                                               match_params_of(1.0, 0, 0, radii[k]),
                                               match_params_of(0.9, 0, 1, radii[k])};
            for (size_t q = 0; q < sizeof ps / sizeof ps[0]; q++) {
                total += expect_paths_agree(&s, &ps[q], s.predicted);
                total += expect_paths_agree(&s, &ps[q], NULL);
            }
        }
        /* trains beyond the grid's coordinate range, and no radius: brute force */
        const satfeat_match_problem none = problem_of(&s, 0.0, s.predicted);
        assert_false(satfeat_match_grid_applies(&none));
        const double keep = s.kp2[20].x;
        s.kp2[20].x = 5e7;
        const satfeat_match_problem far = problem_of(&s, 5.0, s.predicted);
        assert_false(satfeat_match_grid_applies(&far));
        const satfeat_match_params pf = match_params_of(0.8, 1, 1, 5.0);
        total += expect_paths_agree(&s, &pf, s.predicted);
        s.kp2[20].x = keep;
        match_set_free(&s);
    }
    printf("grid path: %zu matches compared\n", total);
    assert_true(total > 2000);
}

/* A tiny set built by hand: descriptors are e_k-like unit vectors mixed by weights. */
typedef struct hand {
    satfeat_keypoint kp1[4], kp2[4];
    float desc1[4 * 64], desc2[4 * 64];
    double pred[8];
    size_t n1, n2;
} hand;

/* An empty hand set of n1 queries and n2 trains (filled by the test). */
static hand hand_of(size_t n1, size_t n2)
{
    hand h;
    memset(&h, 0, sizeof h);
    h.n1 = n1;
    h.n2 = n2;
    return h;
}

static void hand_desc(float *v, float a, float b)
{
    memset(v, 0, 64 * sizeof *v);
    v[0] = a;
    v[1] = b;
    match_normalise(v, 64);
}

static void hand_kp(satfeat_keypoint *k, double x, double y, int lap)
{
    memset(k, 0, sizeof *k);
    k->x = x;
    k->y = y;
    k->size = 20;
    k->laplacian = lap;
}

static size_t hand_run(satfeat_ctx *ctx, const hand *h, const double *pred, satfeat_match_params p,
                       satfeat_match_pair *m)
{
    satfeat_matches *list = NULL;
    assert_int_equal(match_arrays(ctx, h->kp1, h->desc1, h->n1, h->kp2, h->desc2, h->n2, 64, pred,
                                  &p, &list),
                     SATFEAT_OK);
    const size_t n = satfeat_matches_count(list);
    assert_true(n <= 4);
    if (n) memcpy(m, satfeat_matches_data(list), n * sizeof *m);
    satfeat_matches_delete(list);
    return n;
}

static void test_gates_matter(void **state)
{
    (void)state;
    satfeat_ctx *ctx = cpu_ctx(2);
    satfeat_match_pair m[4];
    /* Laplacian: train 0 is identical but of the other sign, train 1 is close and same sign */
    hand h = hand_of(1, 2);
    hand_kp(&h.kp1[0], 10, 10, 1);
    hand_desc(h.desc1, 1, 0);
    hand_kp(&h.kp2[0], 10, 10, -1);
    hand_desc(h.desc2, 1, 0);
    hand_kp(&h.kp2[1], 10, 10, 1);
    hand_desc(h.desc2 + 64, 1, 0.3f);
    assert_int_equal(hand_run(ctx, &h, NULL, match_params_of(1, 1, 1, 0), m), 1);
    assert_int_equal(m[0].train, 1);
    assert_int_equal(hand_run(ctx, &h, NULL, match_params_of(1, 1, 0, 0), m), 1);
    assert_int_equal(m[0].train, 0);
    assert_true(m[0].distance == 0.0f);
    /* ratio: the two trains are almost equally near: 0.8 rejects, 1 keeps the nearer */
    hand_kp(&h.kp2[0], 10, 10, 1);
    hand_desc(h.desc2, 1, 0.30f);
    hand_desc(h.desc2 + 64, 1, 0.32f);
    assert_int_equal(hand_run(ctx, &h, NULL, match_params_of(0.8, 1, 1, 0), m), 0);
    assert_int_equal(hand_run(ctx, &h, NULL, match_params_of(1.0, 1, 1, 0), m), 1);
    assert_int_equal(m[0].train, 0);
    /* radius: train 0 identical but 50 px away, train 1 near and a bit different */
    hand_desc(h.desc2, 1, 0);
    hand_kp(&h.kp2[0], 60, 10, 1);
    hand_desc(h.desc2 + 64, 1, 0.2f);
    hand_kp(&h.kp2[1], 14, 13, 1);
    assert_int_equal(hand_run(ctx, &h, NULL, match_params_of(1, 1, 1, 0), m), 1);
    assert_int_equal(m[0].train, 0);
    assert_int_equal(hand_run(ctx, &h, NULL, match_params_of(1, 1, 1, 5.0), m), 1);
    assert_int_equal(m[0].train, 1); /* exactly 5 px away: the boundary is inclusive */
    assert_int_equal(hand_run(ctx, &h, NULL, match_params_of(1, 1, 1, 4.999), m), 0);
    /* predicted position: predict the query at (58, 12): the far train is in, the near out */
    h.pred[0] = 58;
    h.pred[1] = 12;
    assert_int_equal(hand_run(ctx, &h, h.pred, match_params_of(1, 1, 1, 5.0), m), 1);
    assert_int_equal(m[0].train, 0);
    /* mutual: queries 0 and 1 both prefer train 0; train 0 prefers query 1 */
    h.n1 = 2;
    h.n2 = 2;
    hand_kp(&h.kp1[1], 10, 10, 1);
    hand_desc(h.desc1, 1, 0.1f);
    hand_desc(h.desc1 + 64, 1, 0.01f);
    hand_desc(h.desc2, 1, 0);
    hand_desc(h.desc2 + 64, 0, 1);
    hand_kp(&h.kp2[0], 10, 10, 1);
    hand_kp(&h.kp2[1], 10, 10, 1);
    assert_int_equal(hand_run(ctx, &h, NULL, match_params_of(1, 1, 1, 0), m), 1);
    assert_int_equal(m[0].query, 1);
    assert_int_equal(m[0].train, 0);
    assert_int_equal(hand_run(ctx, &h, NULL, match_params_of(1, 0, 1, 0), m), 2);
    assert_int_equal(m[0].query, 0);
    assert_int_equal(m[0].train, 0);
    assert_int_equal(m[1].query, 1);
    assert_int_equal(m[1].train, 0);
    satfeat_ctx_delete(ctx);
}

static void test_ties(void **state)
{
    (void)state;
    satfeat_ctx *ctx = cpu_ctx(2);
    satfeat_match_pair m[4];
    /* trains 1 and 3 are the same vector: the smaller index wins; the ratio test sees the
     * other as an equal second (fails unless disabled) */
    hand h = hand_of(1, 4);
    hand_kp(&h.kp1[0], 0, 0, 1);
    hand_desc(h.desc1, 1, 0.5f);
    for (int j = 0; j < 4; j++) hand_kp(&h.kp2[j], 0, 0, 1);
    hand_desc(h.desc2, 0, 1);
    hand_desc(h.desc2 + 64, 1, 0.4f);
    hand_desc(h.desc2 + 128, 1, -1);
    hand_desc(h.desc2 + 192, 1, 0.4f);
    assert_int_equal(hand_run(ctx, &h, NULL, match_params_of(1, 1, 1, 0), m), 1);
    assert_int_equal(m[0].train, 1);
    assert_int_equal(hand_run(ctx, &h, NULL, match_params_of(0.99, 1, 1, 0), m), 0);
    /* two identical queries: the train's nearest query is the smaller index */
    h.n1 = 3;
    h.n2 = 1;
    for (int i = 0; i < 3; i++) hand_kp(&h.kp1[i], 0, 0, 1);
    hand_desc(h.desc1, 0, 1);
    hand_desc(h.desc1 + 64, 1, 0.2f);
    hand_desc(h.desc1 + 128, 1, 0.2f);
    hand_desc(h.desc2, 1, 0.1f);
    assert_int_equal(hand_run(ctx, &h, NULL, match_params_of(0.8, 1, 1, 0), m), 1);
    assert_int_equal(m[0].query, 1);
    assert_int_equal(hand_run(ctx, &h, NULL, match_params_of(0.8, 0, 1, 0), m), 3);
    satfeat_ctx_delete(ctx);
}

/* A list is sized exactly for each call and refilled in place: a reused list holds the same
 * matches as a new one, shrinking and growing, and an empty set gives an empty list. */
static void test_exact_size_and_reuse(void **state)
{
    (void)state;
    satfeat_ctx *ctx = cpu_ctx(2);
    test_rng r;
    test_rng_seed(&r, 5);
    match_set s = match_set_random(&r, 100, 120, 64, 0.2f);
    match_set t = match_set_random(&r, 30, 40, 64, 0.2f);
    satfeat_match_pair *all, *few;
    const size_t n = match_run(ctx, &s, NULL, NULL, &all);
    const size_t nt = match_run(ctx, &t, NULL, NULL, &few);
    assert_true(n > 10 && nt > 3 && nt < n);
    satfeat_features *f1 = test_features_of(s.kp1, s.desc1, s.n1, 64, 640, 480);
    satfeat_features *f2 = test_features_of(s.kp2, s.desc2, s.n2, 64, 640, 480);
    satfeat_features *g1 = test_features_of(t.kp1, t.desc1, t.n1, 64, 640, 480);
    satfeat_features *g2 = test_features_of(t.kp2, t.desc2, t.n2, 64, 640, 480);
    satfeat_features *empty = test_features_of(NULL, NULL, 0, 64, 640, 480);
    satfeat_matches *list = NULL;
    for (int round = 0; round < 2; round++) {
        assert_int_equal(satfeat_match(ctx, f1, f2, NULL, &list), SATFEAT_OK);
        assert_int_equal(satfeat_matches_count(list), n);
        assert_memory_equal(satfeat_matches_data(list), all, n * sizeof *all);
        const satfeat_match_pair *before = satfeat_matches_data(list);
        assert_int_equal(satfeat_match(ctx, g1, g2, NULL, &list), SATFEAT_OK);
        assert_int_equal(satfeat_matches_count(list), nt);
        assert_memory_equal(satfeat_matches_data(list), few, nt * sizeof *few);
        assert_ptr_equal(satfeat_matches_data(list), before); /* shrinking keeps the memory */
        assert_int_equal(satfeat_match(ctx, empty, f2, NULL, &list), SATFEAT_OK);
        assert_int_equal(satfeat_matches_count(list), 0);
        assert_null(satfeat_matches_data(list));
        assert_int_equal(satfeat_match(ctx, f1, empty, NULL, &list), SATFEAT_OK);
        assert_int_equal(satfeat_matches_count(list), 0);
    }
    satfeat_matches_delete(list);
    satfeat_features_delete(f1);
    satfeat_features_delete(f2);
    satfeat_features_delete(g1);
    satfeat_features_delete(g2);
    satfeat_features_delete(empty);
    free(all);
    free(few);
    match_set_free(&s);
    match_set_free(&t);
    satfeat_ctx_delete(ctx);
}

static void expect_arg(satfeat_ctx *ctx, satfeat_status st)
{
    assert_int_equal(st, SATFEAT_ERR_ARG);
    assert_true(strlen(satfeat_ctx_last_error(ctx)) > 0);
}

/* A failed call leaves an existing list empty. */
static void expect_arg_empty(satfeat_ctx *ctx, satfeat_status st, const satfeat_matches *list)
{
    expect_arg(ctx, st);
    assert_int_equal(satfeat_matches_count(list), 0);
}

static void test_bad_args(void **state)
{
    (void)state;
    satfeat_ctx *ctx = cpu_ctx(1);
    test_rng r;
    test_rng_seed(&r, 6);
    match_set s = match_set_random(&r, 10, 10, 64, 0.2f);
    match_set s128 = match_set_random(&r, 10, 10, 128, 0.2f);
    satfeat_match_params p = satfeat_match_params_default();
    assert_true(p.ratio == 0.8 && p.mutual == 1 && p.same_laplacian == 1 && p.radius == 0.0);
    satfeat_features *f1 = test_features_of(s.kp1, s.desc1, 10, 64, 640, 480);
    satfeat_features *f2 = test_features_of(s.kp2, s.desc2, 10, 64, 640, 480);
    satfeat_features *w128 = test_features_of(s128.kp2, s128.desc2, 10, 128, 640, 480);
    satfeat_features *bare = test_features_of(s.kp2, NULL, 10, 0, 640, 480);
    satfeat_features *fresh = NULL;
    assert_int_equal(satfeat_features_new(&fresh), SATFEAT_OK);
    satfeat_matches *list = NULL;
    assert_int_equal(satfeat_match(ctx, f1, f2, &p, &list), SATFEAT_OK);
    assert_true(satfeat_matches_count(list) > 0);
    /* NULL sets, sets without descriptors (a new one included), kinds that differ */
    expect_arg_empty(ctx, satfeat_match(ctx, NULL, f2, &p, &list), list);
    expect_arg_empty(ctx, satfeat_match(ctx, f1, NULL, &p, &list), list);
    expect_arg_empty(ctx, satfeat_match(ctx, f1, bare, &p, &list), list);
    assert_non_null(strstr(satfeat_ctx_last_error(ctx), "no descriptors"));
    expect_arg_empty(ctx, satfeat_match(ctx, bare, f2, &p, &list), list);
    expect_arg_empty(ctx, satfeat_match(ctx, fresh, f2, &p, &list), list);
    expect_arg_empty(ctx, satfeat_match(ctx, f1, w128, &p, &list), list);
    assert_non_null(strstr(satfeat_ctx_last_error(ctx), "kinds differ"));
    expect_arg(ctx, satfeat_match(ctx, f1, f2, &p, NULL));
    expect_arg(ctx, satfeat_match_guided(ctx, f1, f2, NULL, &p, &list));
    const double bad_ratio[] = {0.0, -0.5, 1.0000001, NAN, INFINITY};
    for (int k = 0; k < 5; k++) {
        p = satfeat_match_params_default();
        p.ratio = bad_ratio[k];
        expect_arg_empty(ctx, satfeat_match(ctx, f1, f2, &p, &list), list);
    }
    const double bad_radius[] = {-1e-9, -5, NAN, INFINITY};
    for (int k = 0; k < 4; k++) {
        p = satfeat_match_params_default();
        p.radius = bad_radius[k];
        expect_arg_empty(ctx, satfeat_match_guided(ctx, f1, f2, s.predicted, &p, &list), list);
    }
    /* a NULL context is an argument error too */
    assert_int_equal(satfeat_match(NULL, f1, f2, NULL, &list), SATFEAT_ERR_ARG);
    /* the device call needs a CUDA context, 64 or 128 floats, arrays, sizes below 2^31 */
    assert_int_equal(satfeat_match_descriptors_device(ctx, s.kp1, s.desc1, 10, s.kp2, s.desc2, 10,
                                                      64, NULL, NULL, &list, NULL),
                     SATFEAT_ERR_UNSUPPORTED);
    expect_arg(ctx, satfeat_match_descriptors_device(ctx, s.kp1, s.desc1, 10, s.kp2, s.desc2, 10,
                                                     32, NULL, NULL, &list, NULL));
    expect_arg(ctx, satfeat_match_descriptors_device(ctx, NULL, s.desc1, 10, s.kp2, s.desc2, 10,
                                                     64, NULL, NULL, &list, NULL));
    expect_arg(ctx, satfeat_match_descriptors_device(ctx, s.kp1, s.desc1, (size_t)1 << 31, s.kp2,
                                                     s.desc2, 10, 64, NULL, NULL, &list, NULL));
    expect_arg(ctx, satfeat_match_descriptors_device(ctx, s.kp1, s.desc1, 10, s.kp2, s.desc2,
                                                     SIZE_MAX, 64, NULL, NULL, &list, NULL));
    expect_arg(ctx, satfeat_match_descriptors_device(ctx, s.kp1, s.desc1, 10, s.kp2, s.desc2, 10,
                                                     64, NULL, NULL, NULL, NULL));
    /* edges accepted: ratio 1, tiny ratio, NaN descriptors never match */
    p = satfeat_match_params_default();
    p.ratio = 1.0;
    assert_int_equal(satfeat_match(ctx, f1, f2, &p, &list), SATFEAT_OK);
    p.ratio = 1e-300;
    assert_int_equal(satfeat_match(ctx, f1, f2, &p, &list), SATFEAT_OK);
    for (int i = 0; i < 10; i++) s.desc1[i * 64 + 5] = NAN;
    satfeat_features *nan1 = test_features_of(s.kp1, s.desc1, 10, 64, 640, 480);
    p.ratio = 1.0;
    assert_int_equal(satfeat_match(ctx, nan1, f2, &p, &list), SATFEAT_OK);
    assert_int_equal(satfeat_matches_count(list), 0);
    satfeat_matches_delete(list);
    satfeat_features_delete(f1);
    satfeat_features_delete(f2);
    satfeat_features_delete(w128);
    satfeat_features_delete(bare);
    satfeat_features_delete(fresh);
    satfeat_features_delete(nan1);
    match_set_free(&s);
    match_set_free(&s128);
    satfeat_ctx_delete(ctx);
}

/* ---- a shifted image ---------------------------------------------------------------------- */

/* 8 x 8 samples 2 px apart around the rounded keypoint (clamped), mean removed, unit length. */
static void patch_desc(const uint8_t *px, int w, int h, const satfeat_keypoint *k, float *v)
{
    const int cx = (int)floor(k->x + 0.5), cy = (int)floor(k->y + 0.5);
    double mean = 0.0;
    for (int y = 0; y < 8; y++)
        for (int x = 0; x < 8; x++) {
            int sx = cx + 2 * x - 7, sy = cy + 2 * y - 7;
            sx = sx < 0 ? 0 : (sx >= w ? w - 1 : sx);
            sy = sy < 0 ? 0 : (sy >= h ? h - 1 : sy);
            v[y * 8 + x] = (float)px[(size_t)sy * (size_t)w + (size_t)sx];
            mean += v[y * 8 + x];
        }
    mean /= 64.0;
    for (int d = 0; d < 64; d++) v[d] = (float)(v[d] - mean);
    match_normalise(v, 64);
}

static satfeat_keypoint *detect(const uint8_t *px, int w, int h, size_t *n, float **desc)
{
    satfeat_ctx *ctx = cpu_ctx(2);
    satfeat_detector_params p = satfeat_detector_params_default();
    p.octaves = 2; /* octaves 0 and 1 keep positions on a grid that a (7, 4) shift preserves */
    satfeat_detector *det;
    assert_int_equal(satfeat_detector_new(ctx, &p, w, h, &det), SATFEAT_OK);
    satfeat_keypoint *kp = test_detect_copy(det, px, (size_t)w, w, h, NULL, 0, n, NULL);
    *desc = calloc(*n * 64 + 1, sizeof(float));
    assert_non_null(*desc);
    for (size_t k = 0; k < *n; k++) patch_desc(px, w, h, &kp[k], *desc + k * 64);
    satfeat_detector_delete(det);
    satfeat_ctx_delete(ctx);
    return kp;
}

static void test_shifted_image(void **state)
{
    (void)state;
    char path[512];
    test_path(path, sizeof path, SATFEAT_TEST_DATA_DIR, "scene.png");
    uint8_t *px = NULL;
    int w = 0, h = 0;
    assert_int_equal(satfeat_image_load_gray8(NULL, path, &px, &w, &h), SATFEAT_OK);
    uint8_t *sh = malloc((size_t)w * (size_t)h);
    assert_non_null(sh);
    for (int y = 0; y < h; y++)
        for (int x = 0; x < w; x++) {
            const int sx = x - 7 < 0 ? 0 : x - 7, sy = y - 4 < 0 ? 0 : y - 4;
            sh[(size_t)y * (size_t)w + (size_t)x] = px[(size_t)sy * (size_t)w + (size_t)sx];
        }
    size_t n1, n2;
    float *d1, *d2;
    satfeat_keypoint *k1 = detect(px, w, h, &n1, &d1), *k2 = detect(sh, w, h, &n2, &d2);
    satfeat_ctx *ctx = cpu_ctx(2);
    satfeat_features *f1 = test_features_of(k1, d1, n1, 64, w, h);
    satfeat_features *f2 = test_features_of(k2, d2, n2, 64, w, h);
    satfeat_matches *list = NULL;
    const satfeat_match_params p = satfeat_match_params_default();
    assert_int_equal(satfeat_match(ctx, f1, f2, &p, &list), SATFEAT_OK);
    const satfeat_match_pair *m = satfeat_matches_data(list);
    const size_t n = satfeat_matches_count(list);
    size_t good = 0;
    for (size_t k = 0; k < n; k++) {
        const double dx = k2[m[k].train].x - k1[m[k].query].x - 7.0;
        const double dy = k2[m[k].train].y - k1[m[k].query].y - 4.0;
        if (dx * dx + dy * dy <= 1.0) good++;
    }
    printf("shifted scene: %zu / %zu keypoints, %zu matches, %zu recover the shift\n", n1, n2, n,
           good);
    assert_true(n >= 30);
    assert_true((double)good >= 0.95 * (double)n);
    /* with a radius around the predicted shift, the same or more correct matches */
    double *pred = malloc(2 * n1 * sizeof *pred);
    assert_non_null(pred);
    for (size_t i = 0; i < n1; i++) {
        pred[2 * i] = k1[i].x + 7.0;
        pred[2 * i + 1] = k1[i].y + 4.0;
    }
    satfeat_match_params pr = p;
    pr.radius = 3.0;
    assert_int_equal(satfeat_match_guided(ctx, f1, f2, pred, &pr, &list), SATFEAT_OK);
    m = satfeat_matches_data(list);
    const size_t nr = satfeat_matches_count(list);
    size_t good_r = 0;
    for (size_t k = 0; k < nr; k++) {
        const double dx = k2[m[k].train].x - k1[m[k].query].x - 7.0;
        const double dy = k2[m[k].train].y - k1[m[k].query].y - 4.0;
        if (dx * dx + dy * dy <= 1.0) good_r++;
    }
    printf("with radius 3 around the prediction: %zu matches, %zu correct\n", nr, good_r);
    assert_true(good_r >= good);
    /* a NaN prediction passes no gate: those queries get no match, and without the mutual check
     * every other query keeps its own */
    pr.mutual = 0;
    assert_int_equal(satfeat_match_guided(ctx, f1, f2, pred, &pr, &list), SATFEAT_OK);
    const size_t nu = satfeat_matches_count(list);
    satfeat_match_pair *mu = malloc((nu + 1) * sizeof *mu);
    assert_non_null(mu);
    memcpy(mu, satfeat_matches_data(list), nu * sizeof *mu);
    for (size_t i = 0; i < n1; i += 3) pred[2 * i] = pred[2 * i + 1] = NAN;
    assert_int_equal(satfeat_match_guided(ctx, f1, f2, pred, &pr, &list), SATFEAT_OK);
    m = satfeat_matches_data(list);
    const size_t nn = satfeat_matches_count(list);
    size_t kept = 0;
    for (size_t k = 0; k < nu; k++) {
        if (mu[k].query % 3 == 0) continue;
        assert_true(kept < nn);
        assert_memory_equal(&m[kept], &mu[k], sizeof *mu);
        kept++;
    }
    assert_int_equal(kept, nn);
    assert_true(nn >= 20 && nn < nu);
    free(mu);
    free(pred);
    satfeat_matches_delete(list);
    satfeat_features_delete(f1);
    satfeat_features_delete(f2);
    free(k1);
    free(k2);
    free(d1);
    free(d2);
    free(sh);
    satfeat_free(px);
    satfeat_ctx_delete(ctx);
}

/* ---- timing (printed, never asserted) ----------------------------------------------------- */

static double now_ms(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec * 1e3 + t.tv_nsec * 1e-6;
}

static void test_timing_2000(void **state)
{
    (void)state;
    if (getenv("SATFEAT_TEST_SMALL")) skip();
    test_rng r;
    test_rng_seed(&r, 99);
    match_set s = match_set_random(&r, 2000, 2000, 64, 0.2f);
    satfeat_ctx *ctx = cpu_ctx(2);
    satfeat_features *f1 = test_features_of(s.kp1, s.desc1, 2000, 64, 640, 480);
    satfeat_features *f2 = test_features_of(s.kp2, s.desc2, 2000, 64, 640, 480);
    satfeat_matches *list = NULL;
    const satfeat_match_params ps[] = {match_params_of(0.8, 1, 0, 0), match_params_of(0.8, 1, 1, 0),
                                       match_params_of(0.8, 1, 1, 20)};
    const char *names[] = {"no gates", "same Laplacian", "Laplacian + radius 20"};
    for (int q = 0; q < 3; q++) {
        double best = 1e30;
        size_t n = 0;
        for (int it = 0; it < 7; it++) {
            const double t0 = now_ms();
            assert_int_equal(satfeat_match_guided(ctx, f1, f2, s.predicted, &ps[q], &list),
                             SATFEAT_OK);
            n = satfeat_matches_count(list);
            const double t = now_ms() - t0;
            if (t < best) best = t;
        }
        printf("CPU match 2000 x 2000 x 64, 2 threads, %s: %.2f ms (best of 7), %zu matches\n",
               names[q], best, n);
    }
    satfeat_matches_delete(list);
    satfeat_features_delete(f1);
    satfeat_features_delete(f2);
    match_set_free(&s);
    satfeat_ctx_delete(ctx);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_distance_order),
        cmocka_unit_test(test_reference_random),
        cmocka_unit_test(test_scalar_avx_and_threads),
        cmocka_unit_test(test_grid_path),
        cmocka_unit_test(test_gates_matter),
        cmocka_unit_test(test_ties),
        cmocka_unit_test(test_exact_size_and_reuse),
        cmocka_unit_test(test_bad_args),
        cmocka_unit_test(test_shifted_image),
        cmocka_unit_test(test_timing_2000),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
