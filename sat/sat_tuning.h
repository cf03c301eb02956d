/* sat_tuning.h - every tuning constant of the CUDA SAT: the 2R1W band height and walk shape, the
 * SKSS-LB tile height per element type and size, and the AUTO choice between the algorithms.
 * 2R1W segments are 128 columns x a band of rows, one group of 8 lanes each (sat_walk.cuh).
 * SKSS-LB tiles are 128 columns x T rows, one block of 32 groups of 8 lanes each, so each group
 * keeps T/32 rows in registers (sat_skss_lb.cu; T = 256 only for u8).
 * Values are the fastest that bench/sat_cuda_tune.c and `satfeat bench sat` measured
 * (docs/BENCHMARKS.md explains the design). */
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

/* "Tile" per algorithm (2R1W: band height in rows; SKSS-LB: tile height in rows; 32, 64 or 128,
 * and 256 for SKSS-LB u8), type and size class: each the fastest of the tile heights that
 * bench/sat_cuda_tune.c sweeps for its class (2R1W bands of 32 rows everywhere but f32 above 2^27
 * entries; SKSS-LB tiles of 128 rows, and for large u8 tables 256, where half as many tiles pay
 * the per-tile chain of ticket, look-backs and corner). */
#define SATFEAT_SAT_TUNE_2R1W_U8_SMALL 32
#define SATFEAT_SAT_TUNE_2R1W_U8_MEDIUM 32
#define SATFEAT_SAT_TUNE_2R1W_U8_LARGE 32
#define SATFEAT_SAT_TUNE_2R1W_F32_SMALL 32
#define SATFEAT_SAT_TUNE_2R1W_F32_MEDIUM 32
#define SATFEAT_SAT_TUNE_2R1W_F32_LARGE 64
#define SATFEAT_SAT_TUNE_SKSS_U8_SMALL 128
#define SATFEAT_SAT_TUNE_SKSS_U8_MEDIUM 128
#define SATFEAT_SAT_TUNE_SKSS_U8_LARGE 256
#define SATFEAT_SAT_TUNE_SKSS_F32_SMALL 128
#define SATFEAT_SAT_TUNE_SKSS_F32_MEDIUM 128
#define SATFEAT_SAT_TUNE_SKSS_F32_LARGE 128

/* SKSS-LB tries the corner early (during the row and column look-backs) only on grids of at
 * least this many tiles (8192^2 at T = 128 has 4225, 4096^2 1089, 1920x1080 144). Overridable at
 * build time; 0 probes on every grid. */
#ifndef SATFEAT_SAT_TUNE_SKSS_EARLY_CORNER_TILES
#define SATFEAT_SAT_TUNE_SKSS_EARLY_CORNER_TILES 4096
#endif

/* SKSS-LB looks back in windows (the pairs of several tiles loaded together, sat_skss_lb.cu) on
 * grids of at most this many tiles (1920x1080 has 144, 1024^2 81, 2048^2 289, 4096^2 1089): on
 * about one wave most of a row's tiles publish only local sums, so loading ahead pays there, while
 * on larger grids it measured slower. Overridable at build time. */
#ifndef SATFEAT_SAT_TUNE_SKSS_WINDOW_TILES
#define SATFEAT_SAT_TUNE_SKSS_WINDOW_TILES 1024
#endif

/* SKSS-LB takes each tile's corner from the totals of the tiles up-left (no diagonal look-back) on
 * windowed grids of at most this many tiles (at most 1024): faster up to 289 tiles, slower from
 * 527, and 400 lies between, near one wave of u8 blocks (132 SMs x 3). Overridable at build
 * time. */
#ifndef SATFEAT_SAT_TUNE_SKSS_RECT_CORNER_TILES
#define SATFEAT_SAT_TUNE_SKSS_RECT_CORNER_TILES 400
#endif

/* AUTO runs SKSS-LB at every size and type: with its tagged pairs it is faster than 2R1W at every
 * measured size (docs/BENCHMARKS.md, "GPU SAT"). */

/* 0 small, 1 medium, 2 large. */
static inline int satfeat_sat_tune_class(int width, int height)
{
    const long long entries = ((long long)width + 1) * ((long long)height + 1);
    return entries <= SATFEAT_SAT_TUNE_SMALL_ENTRIES ? 0
           : entries <= SATFEAT_SAT_TUNE_MEDIUM_ENTRIES ? 1
                                                       : 2;
}

/** Band or tile height for `algo` (2R1W or SKSS_LB) on a width x height image of u8 (is_f32 0) or f32. */
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
    (void)is_f32;
    (void)width;
    (void)height;
    return SATFEAT_SAT_SKSS_LB;
}

#endif
