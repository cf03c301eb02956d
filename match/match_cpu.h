/* match_cpu.h - the CPU matcher: brute force over all pairs, threaded over queries, with an
 * AVX2 path (8 trains per vector) and a scalar path giving the same bits; radius-gated problems
 * take a grid path (match_cpu_grid.h), again the same bits. */
#ifndef SATFEAT_MATCH_CPU_H
#define SATFEAT_MATCH_CPU_H

#include "satfeat.h"

#include <stddef.h>
#include <stdint.h>
#ifdef _OPENMP
#include <omp.h>
#endif

/** One matching problem, arguments already checked (n1, n2 <= INT_MAX - 64, dim 64 or 128). */
typedef struct satfeat_match_problem {
    const satfeat_keypoint *kp1;
    const float *desc1;
    int n1;
    const satfeat_keypoint *kp2;
    const float *desc2;
    int n2;
    int dim;
    const double *predicted; /* n1 (x, y) pairs or NULL */
    int same_laplacian;
    int mutual;
    double radius2; /* squared radius in pixels^2, 0 = no radius gate */
    float ratio2;   /* (float)(ratio * ratio); >= 1 disables the ratio test */
    /* satfeat_features_stamp of the query and the train set, 0 when the arrays are not a set's:
     * the CUDA matcher keeps the device copy of a set it has seen with the same stamp */
    uint64_t stamp1, stamp2;
    /* 1 when the query set is kept on the device in a slot of its own (satfeat_features_kept) */
    int keep1;
} satfeat_match_problem;

/** Which CPU code runs: the best the machine has (the grid path for a radius gate), the
 *  portable scalar loop over every pair, or the best brute-force loop (tests compare them). */
typedef enum satfeat_match_cpu_isa {
    SATFEAT_MATCH_CPU_BEST = 0,
    SATFEAT_MATCH_CPU_SCALAR,
    SATFEAT_MATCH_CPU_BRUTE
} satfeat_match_cpu_isa;

/** Bytes of scratch satfeat_match_cpu_run needs (0 when the sizes overflow size_t). */
size_t satfeat_match_cpu_scratch_bytes(int n1, int n2, int dim, int threads);

/**
 * Runs the matcher with `threads` OpenMP threads in `scratch` (64-byte aligned is not
 * required) and fills `out` with exactly the matches (ascending query). Fails only when the list
 * cannot grow (SATFEAT_ERR_ALLOC / SATFEAT_ERR_OVERFLOW, the list left empty; no message).
 */
satfeat_status satfeat_match_cpu_run(const satfeat_match_problem *p, int threads,
                                     satfeat_match_cpu_isa isa, void *scratch,
                                     satfeat_matches *out);

/** Query position the radius gate uses: predicted[2i], predicted[2i+1] or the keypoint's own. */
static inline void satfeat_match_query_pos(const satfeat_match_problem *p, int i, double *x,
                                           double *y)
{
    if (p->predicted) {
        *x = p->predicted[2 * (size_t)i];
        *y = p->predicted[2 * (size_t)i + 1];
    } else {
        *x = p->kp1[i].x;
        *y = p->kp1[i].y;
    }
}

/** The calling OpenMP thread's number (*tid) and its contiguous range [*i0, *i1) of n1 queries,
 *  walked in increasing order; outside a parallel region thread 0 takes all of them. */
static inline void satfeat_match_thread_queries(int n1, int *tid, int *i0, int *i1)
{
    int t = 0, nt = 1;
#ifdef _OPENMP
    t = omp_get_thread_num();
    nt = omp_get_num_threads();
#endif
    *tid = t;
    *i0 = (int)((int64_t)n1 * t / nt);
    *i1 = (int)((int64_t)n1 * (t + 1) / nt);
}

#endif
