/* motion_sampling.h - sample drawing for robust estimation: a small seeded PRNG (splitmix64),
 * uniform RANSAC samples and PROSAC samples from growing prefixes of a quality order, and the
 * adaptive iteration counts. All state lives in the caller's structs; nothing global. */
#ifndef SATFEAT_MOTION_SAMPLING_H
#define SATFEAT_MOTION_SAMPLING_H

#include <stddef.h>
#include <stdint.h>

/** splitmix64 generator state. */
typedef struct motion_rng {
    uint64_t state;
} motion_rng;

/** Seeds the generator (every seed, 0 included, is valid). */
void satfeat_motion_rng_seed(motion_rng *r, uint64_t seed);

/** Next 64 random bits. */
uint64_t satfeat_motion_rng_next(motion_rng *r);

/** Uniform integer in [0, bound) for 1 <= bound <= 2^32 (multiply-shift of the top 32 bits). */
uint32_t satfeat_motion_rng_below(motion_rng *r, uint64_t bound);

/**
 * Sampler over n items (positions 0..n-1) drawing samples of m distinct positions. With
 * `prosac` 0 every sample is uniform over all n. With `prosac` 1 the positions are taken to be
 * sorted by decreasing quality and samples come from a prefix that grows with the number of
 * draws (PROSAC, Chum and Matas 2005): the prefix size n_t grows from m so that by `t_n`
 * draws it covers all n; each sample takes the newest point of the prefix plus m-1 uniform from
 * the rest of it, until the prefix is complete, after which samples are uniform.
 */
typedef struct motion_sampler {
    motion_rng rng;
    uint32_t n, m;
    int prosac;
    uint32_t prefix;   /* PROSAC: current prefix size n_t */
    double t_cur;      /* PROSAC: T_{n_t} of the growth function (real valued) */
    double t_prime;    /* PROSAC: T'_{n_t}, the draw at which the prefix grows next */
    uint64_t draws;    /* samples drawn so far */
} motion_sampler;

/**
 * Prepares a sampler (n >= m >= 1, m <= 8, n < 2^32). `t_n` (>= 1) is the draw count by which the
 * PROSAC prefix reaches n.
 */
void satfeat_motion_sampler_init(motion_sampler *s, uint32_t n, uint32_t m, int prosac,
                                 uint64_t seed, double t_n);

/** Draws the next sample: m distinct positions into `out`, ascending within the draw order. */
void satfeat_motion_sampler_draw(motion_sampler *s, uint32_t *out);

/**
 * PROSAC order: writes into `order` the indices 0..n-1 sorted by quality descending, ties (and
 * -0 against +0) by index ascending, with a stable LSD radix sort on the float bits (n < 2^32,
 * finite qualities). `keys`, `tmp_keys` and `tmp_idx` are caller scratch of n entries each.
 */
void satfeat_motion_quality_order(const float *quality, size_t n, uint32_t *order, uint32_t *keys,
                          uint32_t *tmp_keys, uint32_t *tmp_idx);

/**
 * Number of samples after which the probability of having missed an all-inlier sample falls
 * below 1 - confidence, for an inlier ratio `ratio` in [0, 1] and sample size m:
 * ceil(log(1 - confidence) / log(1 - ratio^m)), at least 1; UINT64_MAX when ratio^m underflows.
 */
uint64_t satfeat_motion_iterations_needed(double ratio, int m, double confidence);

#endif
