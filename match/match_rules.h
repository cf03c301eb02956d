/* match_rules.h - the per-pair rules of the matcher that the CPU and CUDA paths share: the
 * gates (Laplacian sign, radius around the predicted position), the candidate order (squared
 * distance, then index), the best/second state and its merge, and the ratio test. */
#ifndef SATFEAT_MATCH_RULES_H
#define SATFEAT_MATCH_RULES_H

#include "src/hd.h"

#include <float.h>
#include <limits.h>
#include <math.h>

/** Best and second-best candidate of one query (or of part of its candidates). */
typedef struct satfeat_match_top2 {
    float best;   /* smallest squared distance, +inf when none */
    int best_j;   /* its train index (ties to the smaller index), INT_MAX when none */
    float second; /* smallest squared distance among the other candidates, +inf when none */
} satfeat_match_top2;

/** The empty state (no candidate seen). */
static inline SATFEAT_HD satfeat_match_top2 satfeat_match_top2_empty(void)
{
    satfeat_match_top2 t;
    t.best = INFINITY;
    t.best_j = INT_MAX;
    t.second = INFINITY;
    return t;
}

/** 1 when a squared distance can be a candidate at all: finite (NaN and inf never are). */
static inline SATFEAT_HD int satfeat_match_dist_ok(float d)
{
    return d <= FLT_MAX;
}

/** Candidate order: (d1, j1) before (d2, j2) when d1 < d2, or equal distances and j1 < j2. */
static inline SATFEAT_HD int satfeat_match_before(float d1, int j1, float d2, int j2)
{
    return d1 < d2 || (d1 == d2 && j1 < j2);
}

/** Adds candidate (d, j) to a state. */
static inline SATFEAT_HD void satfeat_match_top2_add(satfeat_match_top2 *t, float d, int j)
{
    if (satfeat_match_before(d, j, t->best, t->best_j)) {
        t->second = t->best;
        t->best = d;
        t->best_j = j;
    } else if (d < t->second) {
        t->second = d;
    }
}

/** Merges state `o` (candidates disjoint from those of `t`) into `t`; order independent. */
static inline SATFEAT_HD void satfeat_match_top2_merge(satfeat_match_top2 *t,
                                                       const satfeat_match_top2 *o)
{
    if (satfeat_match_before(o->best, o->best_j, t->best, t->best_j)) {
        t->second = t->best < o->second ? t->best : o->second;
        t->best = o->best;
        t->best_j = o->best_j;
    } else if (o->best < t->second) {
        t->second = o->best;
    }
}

/** The gate: same Laplacian sign (negative or not) when `same_lap`; within the radius when
 * r2 > 0 (squared radius, in double: dx*dx + dy*dy <= r2, d = train - predicted query). */
static inline SATFEAT_HD int satfeat_match_gate(int same_lap, int lap_q, int lap_t, double r2,
                                                double qx, double qy, double tx, double ty)
{
    if (same_lap && ((lap_q < 0) != (lap_t < 0))) return 0;
    if (r2 > 0.0) {
        const double dx = tx - qx, dy = ty - qy;
        if (!(dx * dx + dy * dy <= r2)) return 0;
    }
    return 1;
}

/** Ratio test on squared distances: passes without a second candidate (second == inf) or
 * when best < ratio2 * second; ratio2 >= 1 (ratio 1) disables it. */
static inline SATFEAT_HD int satfeat_match_ratio_ok(const satfeat_match_top2 *t, float ratio2)
{
    if (ratio2 >= 1.0f || !(t->second <= FLT_MAX)) return 1;
    return t->best < ratio2 * t->second;
}

#endif
