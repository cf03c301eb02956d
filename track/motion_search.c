/* motion_search.c - the hypothesis search's state and update rule; the CPU search (draw, solve,
 * score with early exit, accept, until the adaptive draw bound is reached) and the batched
 * search (draw a batch, have it scored, replay the rule over its records). */
#include "track/motion_search.h"

#include "track/motion_score.h"
#include "track/motion_stop.h"

#include <math.h>
#include <string.h>

void satfeat_motion_search_init(motion_search *s, const satfeat_motion_params *p, int prosac,
                                double t2)
{
    memset(s, 0, sizeof *s);
    s->model = p->model;
    s->m = satfeat_motion_model_sample_size(p->model);
    s->projective = p->model == SATFEAT_MOTION_HOMOGRAPHY;
    s->prosac = prosac;
    s->confidence = p->confidence;
    s->t2 = t2;
    s->max_iter = (uint64_t)p->max_iterations;
    s->draws = 0;
    s->stop = s->max_iter;
    s->best_cost = INFINITY;
    s->have = 0;
}

void satfeat_motion_search_accept(motion_search *s, const double h[9], double cost, double ratio)
{
    s->best_cost = cost;
    memcpy(s->best, h, sizeof s->best);
    s->have = 1;
    const uint64_t bound = satfeat_motion_iterations_needed(ratio, s->m, s->confidence);
    s->stop = bound < s->max_iter ? bound : s->max_iter;
}

void satfeat_motion_prosac_prefix(const uint8_t *mask, size_t n, int m, uint64_t *num,
                                  uint64_t *den)
{
    const uint64_t min_prefix = satfeat_motion_min_prefix(m);
    uint64_t in = 0;
    *num = 0;
    *den = 1;
    for (size_t i = 0; i + 1 < n; i++) {
        in += mask[i];
        const uint64_t len = i + 1;
        if (len >= min_prefix) satfeat_motion_prefix_offer(in, len, m, num, den);
    }
}

void satfeat_motion_search_cpu(motion_search *s, motion_sampler *smp, const motion_points *pts,
                               uint8_t *mask)
{
    const int m = s->m;
    while (s->draws < s->stop) {
        uint32_t idx[4];
        double ssx[4], ssy[4], sdx[4], sdy[4], h[9];
        satfeat_motion_sampler_draw(smp, idx);
        s->draws++;
        for (int k = 0; k < m; k++) {
            ssx[k] = pts->sx[idx[k]];
            ssy[k] = pts->sy[idx[k]];
            sdx[k] = pts->dx[idx[k]];
            sdy[k] = pts->dy[idx[k]];
        }
        if (satfeat_motion_solve_minimal(s->model, ssx, ssy, sdx, sdy, h) != 0) continue;
        size_t count = 0;
        const double cost =
            satfeat_motion_msac_cost(h, s->projective, pts, s->t2, s->best_cost, &count);
        if (!(cost < s->best_cost)) continue;
        uint64_t num = 0, den = 1;
        if (s->prosac) {
            satfeat_motion_select_inliers(h, s->projective, pts, s->t2, mask, NULL, NULL);
            satfeat_motion_prosac_prefix(mask, pts->n, m, &num, &den);
        }
        satfeat_motion_search_accept(s, h, cost,
                                     satfeat_motion_stop_ratio(count, pts->n, num, den));
    }
}

/* Replays the rule over the records of draws s->draws + 1 .. + count, in order, while the rule
 * lets draws be processed. */
static void replay(motion_search *s, const satfeat_motion_cuda_record *rec, uint32_t count,
                   uint64_t n)
{
    for (uint32_t b = 0; b < count && s->draws < s->stop; b++) {
        s->draws++;
        const satfeat_motion_cuda_record *r = &rec[b];
        if (r->degenerate || !(r->cost < s->best_cost)) continue;
        const uint64_t num = s->prosac ? r->num : 0;
        satfeat_motion_search_accept(s, r->h, r->cost,
                                     satfeat_motion_stop_ratio(r->count, n, num, r->den));
    }
}

satfeat_status satfeat_motion_search_batched(motion_search *s, motion_sampler *smp, uint64_t n,
                                             uint32_t cap, uint32_t *samples,
                                             satfeat_motion_cuda_record *rec,
                                             motion_batch_fn score, void *user)
{
    uint64_t batch = SATFEAT_MOTION_FIRST_BATCH;
    if (cap == 0) cap = 1;
    while (s->draws < s->stop) {
        /* draws past the current bound would never be processed */
        uint64_t count = s->stop - s->draws;
        if (count > batch) count = batch;
        if (count > cap) count = cap;
        memset(samples, 0, (size_t)count * 4u * sizeof *samples);
        for (uint64_t b = 0; b < count; b++) satfeat_motion_sampler_draw(smp, samples + 4u * b);
        const satfeat_status st = score(user, samples, (uint32_t)count, rec);
        if (st != SATFEAT_OK) return st;
        replay(s, rec, (uint32_t)count, n);
        if (batch < cap) batch *= 4u;
    }
    return SATFEAT_OK;
}
