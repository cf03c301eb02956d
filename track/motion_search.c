/* motion_search.c - the hypothesis search's state and update rule, and the CPU search: draw,
 * solve, score with early exit, accept, until the adaptive draw bound is reached. */
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
