/* motion_search.h - the hypothesis search of satfeat_estimate_motion: its state (best model and
 * MSAC cost, draws processed, the draw bound) and the one update rule both backends apply in
 * draw order: the CPU search draws, solves and scores one hypothesis at a time; on a CUDA
 * context the device solves and scores batches of drawn hypotheses (motion_cuda_host.c) and the
 * host replays the rule over each batch's records. Same inputs, same draws, same bits.
 *
 * The draws stay on the host: the sampler is a sequential recurrence (a draw consumes as many
 * generator outputs as its repeated positions need, and PROSAC's prefix schedule is a rounded
 * recurrence), so each draw depends on all earlier ones; the host takes tens of nanoseconds a
 * draw, against a batch's round trip of microseconds. The draw bound needs libm's log1p, which
 * the device does not share, so the rule is replayed on the host too. */
#ifndef SATFEAT_MOTION_SEARCH_H
#define SATFEAT_MOTION_SEARCH_H

#include "satfeat.h"
#include "track/motion_cuda.h"
#include "track/motion_sampling.h"
#include "track/motion_solvers.h"

#include <stddef.h>
#include <stdint.h>

/** The search: its problem and its state. */
typedef struct motion_search {
    satfeat_motion_model model;
    int m;             /* sample size */
    int projective;    /* 1 for the homography */
    int prosac;        /* 1: PROSAC prefixes take part in the stopping rule (a quality given) */
    double confidence;
    double t2;         /* squared inlier threshold, normalised destination units */
    uint64_t max_iter;
    uint64_t draws;    /* draws processed */
    uint64_t stop;     /* the search ends once draws reaches stop */
    double best[9];    /* the best model so far (valid when have) */
    double best_cost;  /* its MSAC cost, +inf before the first */
    int have;
} motion_search;

/** Prepares the search for parameters p (checked), with PROSAC stopping when `prosac`, and the
 * normalised squared threshold t2. */
void satfeat_motion_search_init(motion_search *s, const satfeat_motion_params *p, int prosac,
                                double t2);

/**
 * The update of a hypothesis that lowers the best cost (cost < s->best_cost): it becomes the
 * best, and the draw bound becomes the draws needed at the inlier ratio `ratio`
 * (satfeat_motion_stop_ratio), capped at max_iter.
 */
void satfeat_motion_search_accept(motion_search *s, const double h[9], double cost,
                                  double ratio);

/**
 * PROSAC's best prefix from a hypothesis' inlier flags (sample order, n entries): every prefix
 * of min_prefix .. n - 1 positions offered to satfeat_motion_prefix_offer, the result in
 * (*num, *den) (0 / 1 when none qualifies).
 */
void satfeat_motion_prosac_prefix(const uint8_t *mask, size_t n, int m, uint64_t *num,
                                  uint64_t *den);

/**
 * The CPU search: draws from `smp`, solves and scores one hypothesis at a time (the MSAC scan
 * stopping early once it cannot win) until the rule ends it. `mask` is scratch of pts->n
 * flags.
 */
void satfeat_motion_search_cpu(motion_search *s, motion_sampler *smp, const motion_points *pts,
                               uint8_t *mask);

/** First batch of satfeat_motion_search_batched: most tracking frames stop within it (PROSAC
 * with a useful quality needs a few dozen draws); each later batch is four times the last. */
#define SATFEAT_MOTION_FIRST_BATCH 64u

/** Scores a batch: fills rec[0..count) for the samples samples[4 b .. 4 b + m) (b < count) as
 * the device does (motion_cuda.h). Returns SATFEAT_OK or the failure (recorded). */
typedef satfeat_status (*motion_batch_fn)(void *user, const uint32_t *samples, uint32_t count,
                                          satfeat_motion_cuda_record *rec);

/**
 * The search in batches: draws the next batch from `smp` (never past the current draw bound, at
 * most `cap` <= SATFEAT_MOTION_CUDA_MAX_BATCH), has `score` score it, then replays the rule over
 * the records in draw order; until the rule ends the search. `samples` (4 cap entries) and
 * `rec` (cap records) are the caller's. Leaves s as satfeat_motion_search_cpu does.
 */
satfeat_status satfeat_motion_search_batched(motion_search *s, motion_sampler *smp, uint64_t n,
                                             uint32_t cap, uint32_t *samples,
                                             satfeat_motion_cuda_record *rec,
                                             motion_batch_fn score, void *user);

#ifdef SATFEAT_HAVE_CUDA
/**
 * The CUDA search on the context's device and stream, in the context's motion scratch slot and
 * pinned host staging (src/cuda_state.h): uploads the points, then runs
 * satfeat_motion_search_batched with the device scoring each batch (motion_cuda.h). Leaves s as
 * the CPU search would; returns SATFEAT_OK or the CUDA failure (recorded).
 */
satfeat_status satfeat_motion_search_cuda(satfeat_ctx *ctx, motion_search *s, motion_sampler *smp,
                                          const motion_points *pts);
#endif

#endif
