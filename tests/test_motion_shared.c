/* test_motion_shared.c - the motion arithmetic the CUDA search shares with the CPU, on the CPU:
 * the MSAC terms against a plain formula, the lane partial sums of the summation order combined
 * as the score kernel does against satfeat_motion_msac_cost and satfeat_motion_select_inliers
 * (bit for bit), the PROSAC prefix fraction against the ratio loop it replaced (offered in any
 * block order), and the batched search with a host rendering of the device batch against the
 * CPU search (same draws, best model, cost and draw bound, bit for bit) for batch caps from 1 to
 * 1024. */
#include "motion_testutil.h"

#include "track/motion_error.h"
#include "track/motion_sampling.h"
#include "track/motion_score.h"
#include "track/motion_search.h"
#include "track/motion_solvers.h"
#include "track/motion_stop.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static int same_bits(double a, double b)
{
    return memcmp(&a, &b, sizeof a) == 0;
}

/* Random points in normalised units and a model of the kind (w <= 0 for some points of the
 * homography when `horizon`). */
static void random_case(test_rng *r, int projective, int horizon, size_t n, double *sx, double *sy,
                        double *dx, double *dy, double h[9])
{
    for (int a = 0; a < 9; a++) h[a] = motion_urand(r, -0.2, 0.2);
    h[0] += 1.0, h[4] += 1.0, h[8] = 1.0;
    if (!projective) h[6] = h[7] = 0.0;
    if (horizon) h[6] = 0.9; /* w = 0.9 x + ... + 1 <= 0 left of x ~ -1.1 */
    for (size_t i = 0; i < n; i++) {
        sx[i] = motion_urand(r, -2, 2), sy[i] = motion_urand(r, -2, 2);
        const double w = h[6] * sx[i] + h[7] * sy[i] + h[8];
        dx[i] = (h[0] * sx[i] + h[1] * sy[i] + h[2]) / w + motion_urand(r, -0.05, 0.05);
        dy[i] = (h[3] * sx[i] + h[4] * sy[i] + h[5]) / w + motion_urand(r, -0.05, 0.05);
        if (i % 3 == 1) dx[i] += motion_urand(r, -3, 3), dy[i] += motion_urand(r, -3, 3);
    }
}

/* The terms against the plain definition: min(e^2, t2), t2 at or behind the horizon. */
static void test_terms(void **state)
{
    (void)state;
    test_rng r;
    test_rng_seed(&r, 71);
    double sx[500], sy[500], dx[500], dy[500], h[9];
    for (int projective = 0; projective < 2; projective++) {
        random_case(&r, projective, projective, 500, sx, sy, dx, dy, h);
        const double t2 = 0.01;
        for (int i = 0; i < 500; i++) {
            const double w = projective ? h[6] * sx[i] + h[7] * sy[i] + h[8] : 1.0;
            const double u = (h[0] * sx[i] + h[1] * sy[i] + h[2]) / w;
            const double v = (h[3] * sx[i] + h[4] * sy[i] + h[5]) / w;
            double e = (u - dx[i]) * (u - dx[i]) + (v - dy[i]) * (v - dy[i]);
            if (!(w > 0.0) || !(e < t2)) e = t2;
            const double c = satfeat_motion_term(h, projective, sx[i], sy[i], dx[i], dy[i], t2);
            assert_true(fabs(c - e) <= 1e-12 * (e + 1e-300));
            assert_int_equal(c < t2, e < t2);
        }
    }
    const double flip[9] = {1, 0, 0, 0, 1, 0, 0, 0, -1}, nan_h[9] = {NAN, 0, 0, 0, 1, 0, 0, 0, 1};
    assert_true(satfeat_motion_term(flip, 1, 0.5, 0.5, -0.5, -0.5, 4.0) == 4.0);
    assert_true(satfeat_motion_term(nan_h, 1, 0.5, 0.5, 0.5, 0.5, 4.0) == 4.0);
    assert_true(satfeat_motion_term(nan_h, 0, 0.5, 0.5, 0.5, 0.5, 4.0) == 4.0);
}

/* The score kernel's rendering of the summation order: lane sums per block, combined
 * (s0 + s1) + (s2 + s3), the blocks added in order; counts and bits per block. */
static double lanes_cost(const double h[9], int projective, const motion_points *p, double t2,
                         size_t *count, uint8_t *mask)
{
    double cost = 0.0;
    *count = 0;
    for (size_t base = 0; base < p->n; base += SATFEAT_MOTION_SCORE_BLOCK) {
        const size_t rest = p->n - base;
        const int len = rest < SATFEAT_MOTION_SCORE_BLOCK ? (int)rest : SATFEAT_MOTION_SCORE_BLOCK;
        double s[4];
        unsigned cnt = 0;
        uint64_t bits = 0;
        for (int r = 0; r < 4; r++)
            s[r] = satfeat_motion_lane_sum(h, projective, p->sx + base, p->sy + base,
                                           p->dx + base, p->dy + base, len, r, t2, &cnt, &bits);
        cost += (s[0] + s[1]) + (s[2] + s[3]);
        *count += cnt;
        for (int j = 0; j < len; j++) mask[base + (size_t)j] = (uint8_t)((bits >> j) & 1u);
        assert_true(len == 64 || (bits >> len) == 0);
    }
    return cost;
}

static void test_lane_sums(void **state)
{
    (void)state;
    test_rng r;
    test_rng_seed(&r, 72);
    enum { N = 1300 };
    static double sx[N], sy[N], dx[N], dy[N];
    static uint8_t m1[N], m2[N];
    const size_t sizes[] = {1, 2, 3, 4, 5, 7, 63, 64, 65, 66, 67, 127, 128, 129, 1000, N};
    size_t checked = 0;
    for (size_t k = 0; k < sizeof sizes / sizeof sizes[0]; k++)
        for (int kind = 0; kind < 3; kind++) {
            const int projective = kind > 0, horizon = kind == 2;
            double h[9];
            random_case(&r, projective, horizon, sizes[k], sx, sy, dx, dy, h);
            const motion_points p = {sx, sy, dx, dy, sizes[k]};
            const double t2s[] = {1e-4, 0.01, 1.0, INFINITY};
            for (int t = 0; t < 4; t++) {
                size_t c1 = 0, c2 = 0;
                const double a = satfeat_motion_msac_cost(h, projective, &p, t2s[t], INFINITY, &c1);
                const double b = lanes_cost(h, projective, &p, t2s[t], &c2, m2);
                assert_true(same_bits(a, b));
                assert_int_equal(c1, c2);
                assert_int_equal(satfeat_motion_select_inliers(h, projective, &p, t2s[t], m1, NULL,
                                                               NULL),
                                 c1);
                assert_memory_equal(m1, m2, sizes[k]);
                checked++;
            }
        }
    assert_int_equal(checked, 16 * 3 * 4);
}

/* The ratio of the stopping rule as a plain loop over prefixes with running double compares. */
static double plain_ratio(const uint8_t *mask, size_t n, size_t inliers, int m)
{
    double ratio = (double)inliers / (double)n;
    const size_t min_prefix = (size_t)(10 * m) > 20 ? (size_t)(10 * m) : 20;
    size_t in = 0;
    for (size_t i = 0; i + 1 < n; i++) {
        in += mask[i];
        const size_t len = i + 1;
        if (len < min_prefix) continue;
        const double r = (double)(in + 1) / (double)(len + 2);
        const double need = (double)m + 0.05 * (double)len +
                            3.0 * sqrt((double)len * 0.05 * (1.0 - 0.05));
        if (r > ratio && (double)in >= need) ratio = r;
    }
    return ratio;
}

/* PROSAC's best prefix as the finish kernel's threads find it: per chunk of 128 blocks of 64
 * positions, position q of the chunk goes to thread q mod 128, each thread offers its positions
 * in increasing order, and the threads' results are merged (here in reverse thread order; the
 * kernel merges by shuffles). */
static void blocks_prefix(const uint8_t *mask, size_t n, int m, uint64_t *num, uint64_t *den)
{
    enum { THREADS = 128 };
    const uint64_t min_prefix = satfeat_motion_min_prefix(m);
    satfeat_motion_prefix_best best[THREADS];
    for (int t = 0; t < THREADS; t++) best[t] = (satfeat_motion_prefix_best){0, 1, 0};
    uint64_t *upto = malloc((n + 1) * sizeof *upto); /* inliers among the first i positions */
    assert_non_null(upto);
    upto[0] = 0;
    for (size_t i = 0; i < n; i++) upto[i + 1] = upto[i] + mask[i];
    const size_t chunk = (size_t)THREADS * 64;
    for (size_t c0 = 0; c0 < n; c0 += chunk)
        for (int t = 0; t < THREADS; t++)
            for (size_t q = (size_t)t; q < chunk && c0 + q < n; q += THREADS) {
                const uint64_t len = c0 + q + 1;
                if (len >= n) break;
                if (len >= min_prefix) satfeat_motion_prefix_offer_at(upto[len], len, m, &best[t]);
            }
    free(upto);
    satfeat_motion_prefix_best all = {0, 1, 0};
    for (int t = THREADS; t-- > 0;) satfeat_motion_prefix_keep(&all, best[t]);
    *num = all.num;
    *den = all.den;
}

static void test_prefix_ratio(void **state)
{
    (void)state;
    test_rng r;
    test_rng_seed(&r, 73);
    enum { N = 20000 }; /* beyond one chunk of the finish kernel (8192 positions) */
    static uint8_t mask[N];
    for (int trial = 0; trial < 300; trial++) {
        const size_t n = trial < 40 ? (size_t)trial + 1 : (size_t)test_rng_range(&r, 2, N);
        const int m = 2 + trial % 3;
        /* inliers dense at the front, thinning out: the best prefix lies inside */
        const double front = motion_urand(&r, 0, 1), back = motion_urand(&r, 0, front);
        size_t count = 0;
        for (size_t i = 0; i < n; i++) {
            const double pr = front + (back - front) * (double)i / (double)n;
            mask[i] = motion_urand(&r, 0, 1) < pr;
            count += mask[i];
        }
        uint64_t num, den;
        satfeat_motion_prosac_prefix(mask, n, m, &num, &den);
        const double want = plain_ratio(mask, n, count, m);
        assert_true(same_bits(satfeat_motion_stop_ratio(count, n, num, den), want));
        uint64_t bn, bd;
        blocks_prefix(mask, n, m, &bn, &bd);
        assert_true(same_bits(satfeat_motion_stop_ratio(count, n, bn, bd), want));
        assert_true(bn == num && bd == den); /* the same fraction, written the same way */
    }
    /* the non-randomness minimum against its formula */
    for (uint64_t len = 1; len < 100000; len += 997)
        assert_true(same_bits(satfeat_motion_nonrandom_min(len, 4),
                              4.0 + 0.05 * (double)len + 3.0 * sqrt((double)len * 0.05 * 0.95)));
}

/* The host rendering of one device batch: the score kernel's lanes and the finish kernel's
 * scan, prefix offers (blocks in reverse order) and merge. */
typedef struct host_batch {
    const motion_search *s;
    const motion_points *p;
    size_t batches;
} host_batch;

static satfeat_status host_batch_score(void *user, const uint32_t *samples, uint32_t count,
                                       satfeat_motion_cuda_record *rec)
{
    host_batch *hb = user;
    const motion_points *p = hb->p;
    const int m = hb->s->m, projective = hb->s->projective;
    const double t2 = hb->s->t2;
    hb->batches++;
    for (uint32_t b = 0; b < count; b++) {
        double sx[4], sy[4], dx[4], dy[4];
        memset(&rec[b], 0, sizeof rec[b]);
        rec[b].den = 1;
        for (int k = 0; k < m; k++) {
            const uint32_t i = samples[4 * b + (uint32_t)k];
            sx[k] = p->sx[i], sy[k] = p->sy[i], dx[k] = p->dx[i], dy[k] = p->dy[i];
        }
        if (satfeat_motion_solve_minimal(hb->s->model, sx, sy, dx, dy, rec[b].h) != 0) {
            rec[b].degenerate = 1;
            continue;
        }
        size_t count_in = 0;
        uint8_t *mask = malloc(p->n);
        assert_non_null(mask);
        rec[b].cost = lanes_cost(rec[b].h, projective, p, t2, &count_in, mask);
        rec[b].count = (uint32_t)count_in;
        if (hb->s->prosac) blocks_prefix(mask, p->n, m, &rec[b].num, &rec[b].den);
        free(mask);
    }
    return SATFEAT_OK;
}

/* Coverage of the batched-search comparisons. */
typedef struct search_tally {
    uint64_t draws;
    size_t runs, multi_batch, no_model;
} search_tally;

/* Runs one problem through the CPU search and the batched search with a cap; requires the same
 * final state, and adds to the tally. */
static void compare_search(const motion_problem *pb, satfeat_motion_model model, int prosac,
                           int max_iter, uint32_t cap, double *sx, double *sy, double *dx,
                           double *dy, uint32_t *order, uint32_t *tmp, uint8_t *mask,
                           search_tally *tally)
{
    const size_t n = pb->n;
    satfeat_motion_params par = satfeat_motion_params_default();
    par.model = model;
    par.max_iterations = max_iter;
    par.seed = 977 + (uint64_t)n;
    motion_norm ns, nd;
    if (satfeat_motion_norm_compute(pb->src, n, &ns) != 0 ||
        satfeat_motion_norm_compute(pb->dst, n, &nd) != 0)
        return;
    if (prosac)
        satfeat_motion_quality_order(pb->quality, n, order, tmp, tmp + n, tmp + 2 * n);
    else
        for (size_t i = 0; i < n; i++) order[i] = (uint32_t)i;
    for (size_t k = 0; k < n; k++) {
        const size_t i = order[k];
        sx[k] = ns.s * (pb->src[2 * i] - ns.cx), sy[k] = ns.s * (pb->src[2 * i + 1] - ns.cy);
        dx[k] = nd.s * (pb->dst[2 * i] - nd.cx), dy[k] = nd.s * (pb->dst[2 * i + 1] - nd.cy);
    }
    const motion_points p = {sx, sy, dx, dy, n};
    const double tn = par.threshold * nd.s;
    motion_search a, b;
    satfeat_motion_search_init(&a, &par, prosac, tn * tn);
    satfeat_motion_search_init(&b, &par, prosac, tn * tn);
    const int m = a.m;
    motion_sampler sa, sb;
    satfeat_motion_sampler_init(&sa, (uint32_t)n, (uint32_t)m, prosac, par.seed, max_iter);
    satfeat_motion_sampler_init(&sb, (uint32_t)n, (uint32_t)m, prosac, par.seed, max_iter);
    satfeat_motion_search_cpu(&a, &sa, &p, mask);
    uint32_t *samples = malloc((size_t)cap * 4 * sizeof *samples);
    satfeat_motion_cuda_record *rec = malloc((size_t)cap * sizeof *rec);
    assert_non_null(samples);
    assert_non_null(rec);
    host_batch hb = {&b, &p, 0};
    assert_int_equal(satfeat_motion_search_batched(&b, &sb, n, cap, samples, rec,
                                                   host_batch_score, &hb),
                     SATFEAT_OK);
    free(samples);
    free(rec);
    assert_true(a.draws == b.draws);
    assert_true(a.stop == b.stop);
    assert_int_equal(a.have, b.have);
    assert_true(same_bits(a.best_cost, b.best_cost));
    if (a.have) assert_memory_equal(a.best, b.best, sizeof a.best);
    assert_true(hb.batches >= 1);
    tally->draws += a.draws;
    tally->runs++;
    tally->multi_batch += hb.batches > 1;
    tally->no_model += !a.have;
}

static void test_batched_search(void **state)
{
    (void)state;
    enum { N = 2500 };
    static double sx[N], sy[N], dx[N], dy[N];
    static uint32_t order[N], tmp[3 * N];
    static uint8_t mask[N];
    const satfeat_motion_model models[] = {SATFEAT_MOTION_HOMOGRAPHY, SATFEAT_MOTION_AFFINE,
                                           SATFEAT_MOTION_SIMILARITY};
    const size_t sizes[] = {8, 9, 30, 64, 65, 300, 2500};
    const double ratios[] = {0.1, 0.3, 0.5, 0.7, 0.9};
    const uint32_t caps[] = {1, 5, 64, 1024};
    const int iters[] = {1, 7, 300, 2000};
    search_tally tally = {0, 0, 0, 0};
    size_t seed = 1;
    for (int mi = 0; mi < 3; mi++)
        for (size_t k = 0; k < sizeof sizes / sizeof sizes[0]; k++)
            for (int ri = 0; ri < 5; ri++, seed++) {
                motion_problem pb;
                const motion_flavour fl = (motion_flavour)(seed % MOTION_FLAVOURS);
                motion_problem_make(&pb, models[mi], sizes[k], ratios[ri], fl, seed);
                const int prosac = (int)(seed / 3 % 2);
                const uint32_t cap = caps[seed % 4];
                const int it = iters[(seed / 4 + (size_t)ri) % 4];
                compare_search(&pb, models[mi], prosac, it, cap, sx, sy, dx, dy, order, tmp, mask,
                               &tally);
                motion_problem_free(&pb);
            }
    printf("batched search == CPU search: %zu problems (%zu in several batches, %zu without a "
           "model), %llu draws\n",
           tally.runs, tally.multi_batch, tally.no_model, (unsigned long long)tally.draws);
    assert_true(tally.draws > 5000);
    assert_true(tally.multi_batch > 10);
    assert_true(tally.no_model > 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_terms),
        cmocka_unit_test(test_lane_sums),
        cmocka_unit_test(test_prefix_ratio),
        cmocka_unit_test(test_batched_search),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
