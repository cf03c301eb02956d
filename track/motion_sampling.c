/* motion_sampling.c - splitmix64, RANSAC / PROSAC sample drawing and adaptive iteration counts. */
#include "track/motion_sampling.h"

#include <math.h>
#include <string.h>

void satfeat_motion_rng_seed(motion_rng *r, uint64_t seed)
{
    r->state = seed;
}

uint64_t satfeat_motion_rng_next(motion_rng *r)
{
    uint64_t z = (r->state += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

uint32_t satfeat_motion_rng_below(motion_rng *r, uint64_t bound)
{
    return (uint32_t)(((satfeat_motion_rng_next(r) >> 32) * bound) >> 32);
}

void satfeat_motion_sampler_init(motion_sampler *s, uint32_t n, uint32_t m, int prosac,
                                 uint64_t seed, double t_n)
{
    satfeat_motion_rng_seed(&s->rng, seed);
    s->n = n;
    s->m = m;
    s->prosac = prosac && n > m;
    s->prefix = m;
    s->draws = 0;
    /* T_m = T_N * C(m, m) / C(N, m) = T_N * prod_{i<m} (m - i) / (N - i) */
    double t = t_n < 1.0 ? 1.0 : t_n;
    for (uint32_t i = 0; i < m; i++) t *= (double)(m - i) / (double)(n - i);
    s->t_cur = t;
    s->t_prime = 1.0;
}

/* Appends `count` uniform positions from [0, range) to out[have..], distinct from out[0..have). */
static void draw_distinct(motion_rng *rng, uint32_t *out, uint32_t have, uint32_t count,
                          uint32_t range)
{
    for (uint32_t k = have; k < have + count; k++) {
        for (;;) {
            const uint32_t c = satfeat_motion_rng_below(rng, range);
            uint32_t j = 0;
            while (j < k && out[j] != c) j++;
            if (j == k) {
                out[k] = c;
                break;
            }
        }
    }
}

void satfeat_motion_sampler_draw(motion_sampler *s, uint32_t *out)
{
    s->draws++;
    if (!s->prosac) {
        draw_distinct(&s->rng, out, 0, s->m, s->n);
        return;
    }
    /* grow the prefix when the draw count reaches T'_n */
    if ((double)s->draws > s->t_prime && s->prefix < s->n) {
        const double next = s->t_cur * (double)(s->prefix + 1) / (double)(s->prefix + 1 - s->m);
        s->t_prime += ceil(next - s->t_cur);
        s->t_cur = next;
        s->prefix++;
    }
    if (s->prefix >= s->n && (double)s->draws > s->t_prime) {
        draw_distinct(&s->rng, out, 0, s->m, s->n);
        return;
    }
    out[0] = s->prefix - 1; /* the newest point of the prefix */
    draw_distinct(&s->rng, out, 1, s->m - 1, s->prefix - 1);
}

uint64_t satfeat_motion_iterations_needed(double ratio, int m, double confidence)
{
    double p = 1.0;
    for (int i = 0; i < m; i++) p *= ratio;
    if (p >= 1.0) return 1;
    const double miss = log1p(-p); /* log(1 - ratio^m), accurate for small p */
    if (!(miss < 0.0)) return UINT64_MAX;
    const double k = ceil(log1p(-confidence) / miss);
    if (!(k < 1.8e19)) return UINT64_MAX;
    return k < 1.0 ? 1 : (uint64_t)k;
}

void satfeat_motion_quality_order(const float *quality, size_t n, uint32_t *order, uint32_t *keys,
                          uint32_t *tmp_keys, uint32_t *tmp_idx)
{
    for (size_t i = 0; i < n; i++) {
        float q = quality[i];
        if (q == 0.0f) q = 0.0f; /* -0 sorts with +0 */
        uint32_t u;
        memcpy(&u, &q, sizeof u);
        /* monotone map of floats to unsigned ascending, then inverted for descending order */
        u = (u & 0x80000000u) ? ~u : (u | 0x80000000u);
        keys[i] = ~u;
        order[i] = (uint32_t)i;
    }
    uint32_t *ka = keys, *ia = order, *kb = tmp_keys, *ib = tmp_idx;
    for (int shift = 0; shift < 32; shift += 8) {
        size_t hist[256];
        memset(hist, 0, sizeof hist);
        for (size_t i = 0; i < n; i++) hist[(ka[i] >> shift) & 0xFFu]++;
        int single = 0;
        for (int b = 0; b < 256; b++)
            if (hist[b] == n) single = 1;
        if (single) continue; /* every key has the same byte here: the pass changes nothing */
        size_t pos = 0;
        for (int b = 0; b < 256; b++) {
            const size_t c = hist[b];
            hist[b] = pos;
            pos += c;
        }
        for (size_t i = 0; i < n; i++) {
            const size_t d = hist[(ka[i] >> shift) & 0xFFu]++;
            kb[d] = ka[i];
            ib[d] = ia[i];
        }
        uint32_t *t = ka;
        ka = kb;
        kb = t;
        t = ia;
        ia = ib;
        ib = t;
    }
    if (ia != order) memcpy(order, ia, n * sizeof *order);
}
