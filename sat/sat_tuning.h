/* sat_tuning.h - every tuning constant of the CUDA SAT: tile side W per algorithm, element type
 * and size, and the AUTO choice between the algorithms. A block always has 2W threads (8 row
 * groups of W/4 threads, see sat_tile.cuh), so W also fixes the threads per block.
 * Values come from `satfeat bench sat` and tests/sat_cuda_tune.c runs recorded in
 * docs/BENCHMARKS.md (section "GPU SAT"). */
#ifndef SATFEAT_SAT_TUNING_H
#define SATFEAT_SAT_TUNING_H

#include "satfeat.h"

/* Images with at most this many table entries count as small. */
#define SATFEAT_SAT_TUNE_SMALL_ENTRIES (1024L * 1024L)

/* Tile sides (32, 64 or 128). */
#define SATFEAT_SAT_TUNE_SKSS_U8_SMALL 64
#define SATFEAT_SAT_TUNE_SKSS_U8_LARGE 64
#define SATFEAT_SAT_TUNE_SKSS_F32_SMALL 64
#define SATFEAT_SAT_TUNE_SKSS_F32_LARGE 64
#define SATFEAT_SAT_TUNE_2R1W_U8_SMALL 64
#define SATFEAT_SAT_TUNE_2R1W_U8_LARGE 64
#define SATFEAT_SAT_TUNE_2R1W_F32_SMALL 64
#define SATFEAT_SAT_TUNE_2R1W_F32_LARGE 64

/** Tile side for `algo` (2R1W or SKSS_LB) on a width x height image of u8 (is_f32 0) or f32. */
static inline int satfeat_sat_tune_tile(satfeat_sat_algo algo, int is_f32, int width, int height)
{
    const int small = ((long)width + 1) * ((long)height + 1) <= SATFEAT_SAT_TUNE_SMALL_ENTRIES;
    if (algo == SATFEAT_SAT_2R1W) {
        if (is_f32) return small ? SATFEAT_SAT_TUNE_2R1W_F32_SMALL : SATFEAT_SAT_TUNE_2R1W_F32_LARGE;
        return small ? SATFEAT_SAT_TUNE_2R1W_U8_SMALL : SATFEAT_SAT_TUNE_2R1W_U8_LARGE;
    }
    if (is_f32) return small ? SATFEAT_SAT_TUNE_SKSS_F32_SMALL : SATFEAT_SAT_TUNE_SKSS_F32_LARGE;
    return small ? SATFEAT_SAT_TUNE_SKSS_U8_SMALL : SATFEAT_SAT_TUNE_SKSS_U8_LARGE;
}

/** The algorithm AUTO runs on a CUDA context. */
static inline satfeat_sat_algo satfeat_sat_tune_auto(int is_f32, int width, int height)
{
    (void)is_f32;
    (void)width;
    (void)height;
    return SATFEAT_SAT_SKSS_LB;
}

#endif
