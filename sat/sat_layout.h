/* sat_layout.h - geometry of the tiled GPU SAT and the layout of its context-owned work buffer.
 * Plain C with inline functions so that host C code and the CUDA kernels agree on every offset.
 *
 * The table of a w x h image is the inclusive SAT of the padded image P of (w+1) x (h+1)
 * entries, P(X, Y) = a(X-1, Y-1) for X, Y >= 1 and 0 on the first row and column. Tiles of
 * W x W cover P from the origin, so every tile's output starts on a multiple of W (aligned
 * vector stores), and a tile reads the input shifted by one row and one column.
 *
 * Work buffer (owned by the caller, see sat.h), fixed at allocation time, split in two halves:
 *   [0, 256)                      header (ticket counter and last tag, offsets)
 *   [256, data_off)               SKSS-LB pairs: (bytes - 256) / 2 rounded down to 256 bytes
 *   [data_off, bytes)             2R1W carries (the rest)
 * The pair region is written by nothing but SKSS-LB, always as tagged pairs (64 bits: tag,
 * state, value; see satfeat_sat_pair_*), so a stale pair always carries an older launch's tag and
 * is never taken for the current launch's. Tags run 1 .. SATFEAT_SAT_PAIR_TAG_MAX and then start
 * again at 1; the launch with the last tag clears the whole pair region when it ends, so that no
 * pair of a launch 2^31 - 1 launches ago can match. The data region holds only what the same 2R1W
 * launch sequence wrote. */
#ifndef SATFEAT_SAT_LAYOUT_H
#define SATFEAT_SAT_LAYOUT_H

#include <stddef.h>
#include <stdint.h>

#include "src/hd.h"


/** Work buffer header (first 256 bytes of the buffer). */
typedef struct satfeat_sat_work_header {
    uint64_t ticket;       /* SKSS-LB: tickets taken in this launch (low 32 bits) and the tag of
                            * the last launch (high 32 bits; 0: none yet) */
    uint64_t data_off;     /* byte offset of the data region (2R1W) */
    uint64_t pair_bytes;   /* bytes of the pair region, which starts at the header's end */
    uint32_t finished;     /* SKSS-LB: blocks finished in a launch with the last tag */
} satfeat_sat_work_header;

#define SATFEAT_SAT_WORK_HEADER_BYTES 256u
/* Largest pair tag (31 bits); after it the tags start again at 1. */
#define SATFEAT_SAT_PAIR_TAG_MAX 0x7fffffffu

/** The tag of the launch after one whose tag was `last` (0: the first launch). */
static inline SATFEAT_HD uint32_t satfeat_sat_pair_next_tag(uint64_t last)
{
    return last >= SATFEAT_SAT_PAIR_TAG_MAX ? 1u : (uint32_t)last + 1u;
}

/** A published value (its 32 bits) with the publishing launch's tag and its state (0: the
 * tile's local sum, 1: the global one). One 64-bit store publishes it, so a reader that sees the
 * tag sees the value. */
static inline SATFEAT_HD uint64_t satfeat_sat_pair(uint32_t tag, int global, uint32_t bits)
{
    return ((uint64_t)((tag << 1) | (global ? 1u : 0u)) << 32) | bits;
}

/** Whether pair p was published by the launch with tag `tag`. */
static inline SATFEAT_HD int satfeat_sat_pair_ready(uint64_t p, uint32_t tag)
{
    return (uint32_t)(p >> 33) == tag;
}

/** Whether pair p holds a global sum. */
static inline SATFEAT_HD int satfeat_sat_pair_global(uint64_t p) { return (int)((p >> 32) & 1u); }

/** Whether bands (2R1W, skss 0) or tiles (SKSS-LB, skss 1) of `rows` rows are built: 32, 64 or
 * 128, and 256 for SKSS-LB on u8 (is_f32 0). */
static inline SATFEAT_HD int satfeat_sat_rows_supported(int skss, int is_f32, int rows)
{
    return rows == 32 || rows == 64 || rows == 128 || (rows == 256 && skss && !is_f32);
}

/** Tile grid of a w x h image: (w+1) x (h+1) entries in tiles `tile` entries wide (x) or high (y). */
static inline SATFEAT_HD int satfeat_sat_tiles_x(int width, int tile)
{
    return (int)(((long long)width + 1 + tile - 1) / tile);
}

static inline SATFEAT_HD int satfeat_sat_tiles_y(int height, int tile)
{
    return (int)(((long long)height + 1 + tile - 1) / tile);
}

/** Pair region bytes (the first half after the header, rounded down to 256) and data offset
 * of a work buffer of `bytes` bytes. */
static inline SATFEAT_HD uint64_t satfeat_sat_work_pair_bytes(uint64_t bytes)
{
    return bytes > SATFEAT_SAT_WORK_HEADER_BYTES
               ? ((bytes - SATFEAT_SAT_WORK_HEADER_BYTES) / 2u) & ~(uint64_t)255u
               : 0;
}

static inline SATFEAT_HD uint64_t satfeat_sat_work_data_off(uint64_t bytes)
{
    return SATFEAT_SAT_WORK_HEADER_BYTES + satfeat_sat_work_pair_bytes(bytes);
}

/**
 * 2R1W carries (4-byte elements) for a w x h image cut into strips of 128 table columns and
 * bands of `band` table rows: row sums rows[strip][y] (strips x rows_pad) followed by column
 * sums cols[band][c] (bands x cols_pad): c < strips * 128 is a table column, c = strips * 128 + j
 * the total of segment (band, strip j). Pads keep every row of both 16-byte aligned.
 */
static inline SATFEAT_HD uint64_t satfeat_sat_2r1w_rows_pad(int height)
{
    return ((uint64_t)height + 1u + 3u) & ~(uint64_t)3u;
}

static inline SATFEAT_HD uint64_t satfeat_sat_2r1w_cols_pad(int strips)
{
    return (uint64_t)strips * 128u + (((uint64_t)strips + 3u) & ~(uint64_t)3u);
}

static inline SATFEAT_HD uint64_t satfeat_sat_2r1w_data_bytes(int width, int height, int band)
{
    const int strips = satfeat_sat_tiles_x(width, 128);
    const int bands = satfeat_sat_tiles_y(height, band);
    return ((uint64_t)strips * satfeat_sat_2r1w_rows_pad(height) +
            (uint64_t)bands * satfeat_sat_2r1w_cols_pad(strips)) * 4u;
}

/** Pair bytes SKSS-LB needs for `tiles` tiles of 128 columns x `tile_rows` rows: one pair per
 * row (its local, then its global row sum), one per column (the same for column sums) and one
 * per tile (its corner sums, or on grids small enough for the rectangle corner,
 * SATFEAT_SAT_TUNE_SKSS_RECT_CORNER_TILES, its total). */
static inline SATFEAT_HD uint64_t satfeat_sat_skss_pair_bytes(uint64_t tiles, int tile_rows)
{
    return tiles * (uint64_t)(tile_rows + 128 + 1) * 8u;
}

/**
 * Buffer size to request for a launch that needs `region` bytes of its half (SKSS-LB: pairs,
 * 2R1W: data). Whatever size >= this the buffer really has, each half holds `region` bytes: the
 * pair half of a buffer of s bytes is at least (s - 256) / 2 - 255 bytes, the data half at least
 * as much.
 */
static inline SATFEAT_HD uint64_t satfeat_sat_work_request(uint64_t region)
{
    return SATFEAT_SAT_WORK_HEADER_BYTES + 2u * region + 512u;
}

#endif
