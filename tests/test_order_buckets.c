/* test_order_buckets.c - the CUDA detector's ordering without a sort (order_kernels.cu), replayed
 * on the CPU with the same keys (order_buckets.h): duplicate cells, response buckets, the
 * buckets' regions and prefixes from group counts and the within-bucket count must give exactly
 * the list that sorting all candidates with keypoint_order.h and flagging near duplicates by
 * brute force gives, on candidates with many exact response ties, equal positions, coordinates
 * outside the frame and a zero threshold. */
#include "detect/keypoint_order.h"
#include "detect/order_buckets.h"
#include "test_util.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* xorshift64 in [0, 1). */
static double urand(uint64_t *s)
{
    *s ^= *s << 13, *s ^= *s >> 7, *s ^= *s << 17;
    return (double)(*s >> 11) / 9007199254740992.0;
}

static int by_order(const void *a, const void *b)
{
    return satfeat_fh_order(a, b);
}

/* n random candidates over a w x h frame with responses above `threshold`. */
static satfeat_keypoint *candidates(size_t n, int w, int h, double threshold, uint64_t *s)
{
    satfeat_keypoint *c = calloc(n, sizeof *c);
    assert_non_null(c);
    static const double tied[] = {0.001, 0.0015, 0.25};
    for (size_t i = 0; i < n; i++) {
        satfeat_keypoint *k = &c[i];
        const double u = urand(s);
        k->x = -2.0 + (w + 4) * urand(s);
        k->y = -2.0 + (h + 4) * urand(s);
        if (i > 0 && u < 0.05) { /* same place as the previous one */
            k->x = c[i - 1].x;
            k->y = c[i - 1].y;
        }
        k->size = 9.0 + 6.0 * (double)(int)(urand(s) * 40);
        k->sigma = 1.2 * k->size / 9.0;
        if (u > 0.97) k->sigma = 0.0; /* no reach */
        if (u > 0.955 && u <= 0.97) k->sigma *= 8.0; /* a reach of several duplicate cells */
        const double v = urand(s);
        k->response = v < 0.3 ? tied[(int)(urand(s) * 3)]
                              : threshold + 1e-9 + 2.0 * v * v * v * v * v * v;
        if (v > 0.995) k->response = 0x1p40 * v; /* beyond the buckets' binades */
        k->laplacian = urand(s) < 0.5 ? -1 : 1;
        k->octave = (int)(urand(s) * 4);
        k->layer = 1 + (int)(urand(s) * 4);
        k->sample_x = (int)(urand(s) * 8);
        k->sample_y = (int)(urand(s) * 8);
    }
    return c;
}

/* The CPU reference (select_cpu.c): sort, flag near duplicates of stronger ones, mask. */
static size_t reference(const satfeat_keypoint *cand, size_t n, int w, int h, const uint8_t *mask,
                        int dedup, satfeat_keypoint *out)
{
    satfeat_keypoint *s = malloc(n * sizeof *s);
    assert_non_null(s);
    memcpy(s, cand, n * sizeof *s);
    qsort(s, n, sizeof *s, by_order);
    size_t m = 0;
    for (size_t k = 0; k < n; k++) {
        int dup = 0;
        for (size_t j = 0; dedup && j < k && !dup; j++) dup = satfeat_fh_near_duplicate(&s[k], &s[j]);
        if (dup) continue;
        if (mask && !mask[satfeat_fh_round_clamp(s[k].y, h) * w + satfeat_fh_round_clamp(s[k].x, w)])
            continue;
        out[m++] = s[k];
    }
    free(s);
    return m;
}

/* The GPU algorithm, step by step, sequentially (slots in index order: the kernels' atomics
 * give another order, which no result depends on). */
static size_t bucketed(const satfeat_keypoint *c, size_t n, int w, int h, const uint8_t *mask,
                       int dedup, double threshold, satfeat_keypoint *out)
{
    const int cw = satfeat_fh_dup_cells(w), ch = satfeat_fh_dup_cells(h);
    const size_t cells = (size_t)cw * (size_t)ch;
    uint32_t *cell_start = calloc(cells + 1, 4), *members = malloc(n * 4), *fill = calloc(cells, 4);
    /* per descending bucket and group: candidates (the octave kernel's counts), kept ones */
    uint32_t *cb = calloc(SATFEAT_FH_BUCKETS, 4), *cg = calloc(SATFEAT_FH_BUCKET_GROUPS, 4);
    uint32_t *kb = calloc(SATFEAT_FH_BUCKETS, 4), *kg = calloc(SATFEAT_FH_BUCKET_GROUPS, 4);
    uint32_t *bmembers = malloc((n ? n : 1) * 4);
    uint8_t *keep = malloc(n ? n : 1), *dup = calloc(n ? n : 1, 1);
    assert_true(cell_start && members && fill && cb && cg && kb && kg && bmembers && keep && dup);
    const uint32_t base = satfeat_fh_bucket_base(threshold);
    for (size_t i = 0; i < n; i++) { /* the octave kernel's counts */
        cell_start[satfeat_fh_dup_cell_index(c[i].x, c[i].y, cw, ch) + 1]++;
        const uint32_t k = satfeat_fh_bucket_desc(c[i].response, base);
        cb[k]++;
        cg[k / SATFEAT_FH_BUCKET_GROUP]++;
    }
    for (size_t k = 0; k < cells; k++) cell_start[k + 1] += cell_start[k]; /* scan */
    for (size_t i = 0; i < n; i++) { /* place */
        const size_t k = satfeat_fh_dup_cell_index(c[i].x, c[i].y, cw, ch);
        members[cell_start[k] + fill[k]++] = (uint32_t)i;
    }
    /* flag: each candidate against the candidates of its duplicate rectangle, read as the
     * kernel reads them (a row of cells is one range of the members) */
    for (size_t i = 0; dedup && i < n; i++) {
        int x0, x1, y0, y1;
        if (!satfeat_fh_dup_rect(c[i].x, c[i].y, c[i].sigma, cw, ch, &x0, &x1, &y0, &y1)) continue;
        for (int cy = y0; cy <= y1 && !dup[i]; cy++)
            for (uint32_t q = cell_start[cy * cw + x0]; q < cell_start[cy * cw + x1 + 1]; q++) {
                const uint32_t j = members[q];
                if (j != i && satfeat_fh_order(&c[j], &c[i]) < 0 &&
                    satfeat_fh_near_duplicate(&c[j], &c[i]))
                    dup[i] = 1;
            }
    }
    /* keep: listed in the bucket's region (after the candidates of the buckets before it) */
    for (size_t i = 0; i < n; i++) {
        keep[i] = !dup[i] && !(mask && !mask[satfeat_fh_round_clamp(c[i].y, h) * w +
                                              satfeat_fh_round_clamp(c[i].x, w)]);
        if (!keep[i]) continue;
        const uint32_t k = satfeat_fh_bucket_desc(c[i].response, base);
        const uint32_t region = satfeat_fh_bucket_prefix(cb, cg, k);
        assert_true(kb[k] < cb[k]); /* the region has room */
        bmembers[region + kb[k]++] = (uint32_t)i;
        kg[k / SATFEAT_FH_BUCKET_GROUP]++;
    }
    uint32_t total = 0;
    for (int g = 0; g < SATFEAT_FH_BUCKET_GROUPS; g++) total += kg[g];
    for (size_t i = 0; i < n; i++) { /* rank */
        if (!keep[i]) continue;
        const uint32_t k = satfeat_fh_bucket_desc(c[i].response, base);
        const uint32_t first = satfeat_fh_bucket_prefix(cb, cg, k), end = first + kb[k];
        uint32_t q = satfeat_fh_bucket_prefix(kb, kg, k);
        for (uint32_t m = first; m < end; m++)
            q += bmembers[m] != i && satfeat_fh_order(&c[bmembers[m]], &c[i]) < 0;
        assert_true(q < total);
        out[q] = c[i];
    }
    free(cell_start), free(members), free(fill), free(cb), free(cg), free(kb), free(kg);
    free(bmembers), free(keep), free(dup);
    return total;
}

static void check(size_t n, int w, int h, double threshold, int dedup, int masked, uint64_t seed)
{
    uint64_t s = seed;
    satfeat_keypoint *c = candidates(n, w, h, threshold, &s);
    uint8_t *mask = NULL;
    if (masked) {
        mask = malloc((size_t)w * (size_t)h);
        assert_non_null(mask);
        for (size_t i = 0; i < (size_t)w * (size_t)h; i++) mask[i] = urand(&s) < 0.7;
    }
    satfeat_keypoint *a = calloc(n, sizeof *a), *b = calloc(n, sizeof *b);
    assert_true(a && b);
    const size_t na = reference(c, n, w, h, mask, dedup, a);
    const size_t nb = bucketed(c, n, w, h, mask, dedup, threshold, b);
    assert_int_equal(na, nb);
    assert_memory_equal(a, b, na * sizeof *a);
    if (dedup) assert_true(na < n); /* some duplicates were found */
    free(a), free(b), free(c), free(mask);
}

static void test_same_list_as_sorting(void **state)
{
    (void)state;
    check(3000, 640, 480, 0.0004, 1, 0, 1);
    check(3000, 640, 480, 0.0004, 0, 0, 2);
    check(2000, 200, 150, 0.0, 1, 1, 3);   /* threshold 0: responses below the base */
    check(1500, 97, 61, 0.003, 1, 0, 4);   /* one cell column short of a full cell */
    check(2, 1, 1, 0.0004, 1, 1, 5);   /* a one-pixel frame: one cell */
}

static void test_bucket_monotone(void **state)
{
    (void)state;
    uint64_t s = 9;
    const double thresholds[] = {0.0, 1e-300, 0.0004, 0.5, 3.0};
    for (size_t t = 0; t < sizeof thresholds / sizeof thresholds[0]; t++) {
        const uint32_t base = satfeat_fh_bucket_base(thresholds[t]);
        for (int i = 0; i < 100000; i++) {
            const double a = 0x1p-60 * (1.0 + urand(&s)) * (double)(1ull << (int)(urand(&s) * 62));
            const double b = urand(&s) < 0.1 ? a : a * (1.0 + urand(&s) * 1e-3);
            const uint32_t ka = satfeat_fh_bucket(a, base), kb = satfeat_fh_bucket(b, base);
            assert_true(ka < SATFEAT_FH_BUCKETS && kb < SATFEAT_FH_BUCKETS);
            if (b > a) assert_true(kb >= ka);
            if (b == a) assert_true(kb == ka);
        }
    }
    /* 2^7 buckets per binade: 1.0 and 1.0 + 2^-7 are one bucket apart */
    const uint32_t base = satfeat_fh_bucket_base(0.0004);
    assert_int_equal(satfeat_fh_bucket(1.0 + 0x1p-7, base), satfeat_fh_bucket(1.0, base) + 1);
    assert_int_equal(satfeat_fh_dup_cell(-0.5, 4), 0);
    assert_int_equal(satfeat_fh_dup_cell(31.99, 4), 0);
    assert_int_equal(satfeat_fh_dup_cell(32.0, 4), 1);
    assert_int_equal(satfeat_fh_dup_cell(1e9, 4), 3);
    assert_int_equal(satfeat_fh_dup_cell(NAN, 4), 0);
}

/* The bucket prefix from group and bucket counts, whole and as the shares the GPU's 32 lanes
 * add, against a plain sum of the counts before each bucket (descending order: a bucket is
 * also the descending index of the response that falls in it). */
static void test_bucket_prefix(void **state)
{
    (void)state;
    uint64_t s = 11;
    uint32_t count[SATFEAT_FH_BUCKETS], groups[SATFEAT_FH_BUCKET_GROUPS];
    for (int round = 0; round < 20; round++) {
        memset(groups, 0, sizeof groups);
        for (uint32_t k = 0; k < SATFEAT_FH_BUCKETS; k++) {
            /* sparse rounds leave most buckets empty, dense ones fill large counts */
            count[k] = urand(&s) < (round % 2 ? 0.9 : 0.05) ? (uint32_t)(urand(&s) * 5000.0) : 0u;
            groups[k / SATFEAT_FH_BUCKET_GROUP] += count[k];
        }
        uint32_t plain = 0;
        for (uint32_t k = 0; k < SATFEAT_FH_BUCKETS; k++) {
            assert_int_equal(satfeat_fh_bucket_prefix(count, groups, k), plain);
            uint32_t lanes = 0; /* as the kernels' lanes add the terms: l, l + 32, l + 64 */
            for (uint32_t l = 0; l < 32; l++) {
                uint32_t share = 0;
                for (uint32_t t = l; t < SATFEAT_FH_BUCKET_TERMS; t += 32)
                    share += satfeat_fh_bucket_prefix_term(count, groups, k, t);
                lanes += share;
            }
            assert_int_equal(lanes, plain);
            plain += count[k];
        }
    }
    /* the descending index: the largest responses first */
    const uint32_t base = satfeat_fh_bucket_base(0.0004);
    assert_int_equal(satfeat_fh_bucket_desc(1e30, base), 0);
    assert_int_equal(satfeat_fh_bucket_desc(0.0004, base), SATFEAT_FH_BUCKETS - 1);
    assert_true(satfeat_fh_bucket_desc(0.5, base) < satfeat_fh_bucket_desc(0.25, base));
}

int main(void)
{
    const struct CMUnitTest tests[] = {cmocka_unit_test(test_same_list_as_sorting),
                                       cmocka_unit_test(test_bucket_monotone),
                                       cmocka_unit_test(test_bucket_prefix)};
    return cmocka_run_group_tests(tests, NULL, NULL);
}
