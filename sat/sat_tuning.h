/* sat_tuning.h - every tuning constant of the CUDA SAT: the 2R1W band height and walk shape, the
 * SKSS-LB tile side W per element type and size, and the AUTO choice between the algorithms.
 * An SKSS-LB block always has 2W threads (8 row groups of W/4 threads, see sat_tile.cuh), so W
 * also fixes its threads per block. 2R1W segments are 128 columns x a band of rows, one group of
 * 8 lanes each (sat_walk.cuh).
 * Values come from `satfeat bench sat` and tests/sat_cuda_tune.c runs recorded in
 * docs/BENCHMARKS.md (section "GPU SAT"). */
#ifndef SATFEAT_SAT_TUNING_H
#define SATFEAT_SAT_TUNING_H

#include "satfeat.h"

/* Size classes by table entries (w+1)(h+1): small up to 2^21 (1920x1080 is small), medium up
 * to 2^27 (8192x8192 is medium), large above. */
#define SATFEAT_SAT_TUNE_SMALL_ENTRIES (1LL << 21)
#define SATFEAT_SAT_TUNE_MEDIUM_ENTRIES (1LL << 27)

/* 2R1W walk: threads per block (groups of 8 lanes, one segment each) and rows loaded ahead per
 * batch (registers: 16 bytes x sizeof(input) per row and lane, twice for double buffering). */
#define SATFEAT_SAT_TUNE_WALK_THREADS 256
#define SATFEAT_SAT_TUNE_WALK_BATCH_U8 4
#define SATFEAT_SAT_TUNE_WALK_BATCH_F32 2

/* "Tile" per algorithm (2R1W: band height in rows; SKSS-LB: tile side; 32, 64 or 128), type and size class: the fastest in the
 * second 2026-11-22 sweep of tests/sat_cuda_tune.c (128-byte row pitches) on an NVIDIA H200 (docs/BENCHMARKS.md). */
#define SATFEAT_SAT_TUNE_2R1W_U8_SMALL 32
#define SATFEAT_SAT_TUNE_2R1W_U8_MEDIUM 32
#define SATFEAT_SAT_TUNE_2R1W_U8_LARGE 64 /* W=32 was 5% faster at 16384^2 but is unmeasured at 32768^2, where kernel 3 sums up to 1024 tile totals per tile */
#define SATFEAT_SAT_TUNE_2R1W_F32_SMALL 32
#define SATFEAT_SAT_TUNE_2R1W_F32_MEDIUM 32
#define SATFEAT_SAT_TUNE_2R1W_F32_LARGE 64
#define SATFEAT_SAT_TUNE_SKSS_U8_SMALL 128
#define SATFEAT_SAT_TUNE_SKSS_U8_MEDIUM 64
#define SATFEAT_SAT_TUNE_SKSS_U8_LARGE 64
#define SATFEAT_SAT_TUNE_SKSS_F32_SMALL 128
#define SATFEAT_SAT_TUNE_SKSS_F32_MEDIUM 128
#define SATFEAT_SAT_TUNE_SKSS_F32_LARGE 128

/* AUTO: u8 runs 2R1W at every size (faster than SKSS-LB in the sweep); f32 runs SKSS-LB from
 * this many table entries up (at or below it the two were within 2%). */
#define SATFEAT_SAT_TUNE_AUTO_F32_SKSS_FROM (1LL << 24)

/* 0 small, 1 medium, 2 large. */
static inline int satfeat_sat_tune_class(int width, int height)
{
    const long long entries = ((long long)width + 1) * ((long long)height + 1);
    return entries <= SATFEAT_SAT_TUNE_SMALL_ENTRIES ? 0
           : entries <= SATFEAT_SAT_TUNE_MEDIUM_ENTRIES ? 1
                                                       : 2;
}

/** Tile side for `algo` (2R1W or SKSS_LB) on a width x height image of u8 (is_f32 0) or f32. */
static inline int satfeat_sat_tune_tile(satfeat_sat_algo algo, int is_f32, int width, int height)
{
    static const int tiles[2][2][3] = {
        {{SATFEAT_SAT_TUNE_2R1W_U8_SMALL, SATFEAT_SAT_TUNE_2R1W_U8_MEDIUM, SATFEAT_SAT_TUNE_2R1W_U8_LARGE},
         {SATFEAT_SAT_TUNE_2R1W_F32_SMALL, SATFEAT_SAT_TUNE_2R1W_F32_MEDIUM, SATFEAT_SAT_TUNE_2R1W_F32_LARGE}},
        {{SATFEAT_SAT_TUNE_SKSS_U8_SMALL, SATFEAT_SAT_TUNE_SKSS_U8_MEDIUM, SATFEAT_SAT_TUNE_SKSS_U8_LARGE},
         {SATFEAT_SAT_TUNE_SKSS_F32_SMALL, SATFEAT_SAT_TUNE_SKSS_F32_MEDIUM, SATFEAT_SAT_TUNE_SKSS_F32_LARGE}}};
    return tiles[algo == SATFEAT_SAT_SKSS_LB][is_f32 != 0][satfeat_sat_tune_class(width, height)];
}

/** The algorithm AUTO runs on a CUDA context. */
static inline satfeat_sat_algo satfeat_sat_tune_auto(int is_f32, int width, int height)
{
    const long long entries = ((long long)width + 1) * ((long long)height + 1);
    if (is_f32 && entries >= SATFEAT_SAT_TUNE_AUTO_F32_SKSS_FROM) return SATFEAT_SAT_SKSS_LB;
    return SATFEAT_SAT_2R1W;
}

#endif
