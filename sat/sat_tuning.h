/* sat_tuning.h - every tuning constant of the CUDA SAT: the 2R1W band height and walk shape, the
 * SKSS-LB tile height per element type and size, and the AUTO choice between the algorithms.
 * 2R1W segments are 128 columns x a band of rows, one group of 8 lanes each (sat_walk.cuh).
 * SKSS-LB tiles are 128 columns x T rows, one block of 32 groups of 8 lanes each, so each group
 * keeps T/32 rows in registers (sat_skss_lb.cu; T = 256 only for u8).
 * Values come from `satfeat bench sat` and tools/sat_cuda_tune.c runs recorded in
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

/* "Tile" per algorithm (2R1W: band height in rows; SKSS-LB: tile height in rows; 32, 64 or 128,
 * and 256 for SKSS-LB u8), type and size class: the fastest in the 2026-11-22 sweeps of
 * tools/sat_cuda_tune.c on an NVIDIA H200 (docs/BENCHMARKS.md). 2R1W: B=32 fastest or within 1%
 * everywhere except f32 at 16384^2 (B=128 1.730x, B=64 1.750x, B=32 1.804x of the floor). SKSS-LB: T=128 fastest at every size
 * and type (8192^2 u8: T=128 2.07x, T=64 2.52x, T=32 3.87x; f32: 1.71x, 1.96x, 2.60x). Since
 * 2026-11-24 SKSS-LB u8 has tiles of 256 rows too (each group walks 8 rows, 2 blocks an SM), used
 * for large tables: H200, against main's 128 rows in one call (docs/BENCHMARKS.md, "Issue 13,
 * eighth session"), 12288^2 u8 272.0 -> 262.1 us, 16384^2 463.4 -> 449.3; 6144^2 and 8192^2
 * (medium) unchanged within 0.5%, 4096^2 and smaller slower (tools/sat_cuda_tune). */
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

/* SKSS-LB looks back in windows (the pairs of SATFEAT_SAT_SKSS_WINDOW_BATCH tiles loaded together,
 * sat_skss_lb.cu) on grids of at most this many tiles: 1920x1080 has 144 tiles, 1024^2 81, 2048^2
 * 289, 4096^2 1089. Chosen when the windows were whole warps reading 32 tiles' flags (H200,
 * 2026-11-24, docs/BENCHMARKS.md, "Issue 13, third session": windows everywhere measured 1920x1080
 * about 7% and 1024^2 12% faster, 4096^2 -2% / +2%, and 8192^2 4%, 16384^2 7 - 10% slower); kept
 * for the pairs, not measured again. Overridable at build time. */
#ifndef SATFEAT_SAT_TUNE_SKSS_WINDOW_TILES
#define SATFEAT_SAT_TUNE_SKSS_WINDOW_TILES 1024
#endif

/* SKSS-LB takes each tile's corner from the totals of the tiles up-left (no diagonal look-back) on
 * windowed grids of at most this many tiles (at most 1024). H200, 2026-11-24 (docs/BENCHMARKS.md,
 * "Issue 13, fourth session"), against main's windowed diagonal in the same call: 1920x1080 (144
 * tiles) u8 -6.9%, f32 -5.3%; 1024^2 (81) -6%; 2048^2 (289) u8 -8.3%, f32 -2.8%; 3840x2160 (527)
 * u8 +1.9%, f32 +1.1%; 4000x4000 (1024) u8 +10.2%, f32 +7.7%. 400 lies between 289 and 527 (not
 * measured in between), near one wave of u8 blocks on an H200 (132 SMs x 3). Overridable at build
 * time. */
#ifndef SATFEAT_SAT_TUNE_SKSS_RECT_CORNER_TILES
#define SATFEAT_SAT_TUNE_SKSS_RECT_CORNER_TILES 400
#endif

/* AUTO runs SKSS-LB at every size and type. Until 2026-11-24 u8 ran 2R1W from 2^26 table entries
 * (8192^2: 2R1W 2.02x vs SKSS-LB 2.07x of the floor); since SKSS-LB publishes tagged pairs
 * (docs/BENCHMARKS.md, "Issue 13, sixth session") it measured 8192^2 u8 139 - 143 us and 16384^2
 * 495 - 534 us on an H200, against 2R1W's 170 - 175 and 614 - 617 in earlier calls. */

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
