/* sat_layout.h - geometry of the tiled GPU SAT and the layout of its context-owned work buffer.
 * Plain C with inline functions so that host C code and the CUDA kernels agree on every offset.
 *
 * The table of a w x h image is the inclusive SAT of the padded image P of (w+1) x (h+1)
 * entries, P(X, Y) = a(X-1, Y-1) for X, Y >= 1 and 0 on the first row and column. Tiles of
 * W x W cover P from the origin, so every tile's output starts on a multiple of W (aligned
 * vector stores), and a tile reads the input shifted by one row and one column.
 *
 * Work buffer (owned by the caller, see sat.h), fixed at allocation time:
 *   [0, 256)                      header (ticket counter, launch epoch, data offset)
 *   [256, data_off)               SKSS-LB flags: 3 x 8 bytes per tile, for up to
 *                                 (bytes - 256) / SATFEAT_SAT_WORK_BYTES_PER_FLAG_TILE tiles
 *   [data_off, bytes)             carries of either algorithm (free for both)
 * The flag region is written by nothing but SKSS-LB, so a stale flag is always an older
 * epoch's and can never be taken for the current launch's; the data region holds values
 * that are only read after a flag of the current launch says they are ready (SKSS-LB) or
 * that the same launch sequence wrote (2R1W). */
#ifndef SATFEAT_SAT_LAYOUT_H
#define SATFEAT_SAT_LAYOUT_H

#include <stddef.h>
#include <stdint.h>

#include "hd.h"


/** Work buffer header (first 256 bytes of the buffer). */
typedef struct satfeat_sat_work_header {
    uint32_t ticket;       /* SKSS-LB: tickets taken in this launch */
    uint32_t done;         /* SKSS-LB: blocks finished in this launch */
    uint64_t epoch;        /* SKSS-LB: launches completed on this buffer */
    uint64_t data_off;     /* byte offset of the data region */
    uint64_t flag_tiles;   /* capacity of the flag region in tiles */
} satfeat_sat_work_header;

#define SATFEAT_SAT_WORK_HEADER_BYTES 256u
/* Bytes of buffer that each tile of flag capacity is granted (24 of them hold the flags). */
#define SATFEAT_SAT_WORK_BYTES_PER_FLAG_TILE 256u

/** Tile grid of a w x h image: (w+1) x (h+1) entries in tiles `tile` entries wide (x) or high (y). */
static inline SATFEAT_HD int satfeat_sat_tiles_x(int width, int tile)
{
    return (int)(((long long)width + 1 + tile - 1) / tile);
}

static inline SATFEAT_HD int satfeat_sat_tiles_y(int height, int tile)
{
    return (int)(((long long)height + 1 + tile - 1) / tile);
}

/** Flag region capacity (tiles) and data offset of a work buffer of `bytes` bytes. */
static inline SATFEAT_HD uint64_t satfeat_sat_work_flag_tiles(uint64_t bytes)
{
    return bytes > SATFEAT_SAT_WORK_HEADER_BYTES
               ? (bytes - SATFEAT_SAT_WORK_HEADER_BYTES) / SATFEAT_SAT_WORK_BYTES_PER_FLAG_TILE
               : 0;
}

static inline SATFEAT_HD uint64_t satfeat_sat_work_data_off(uint64_t bytes)
{
    uint64_t flags = satfeat_sat_work_flag_tiles(bytes) * 24u;
    return SATFEAT_SAT_WORK_HEADER_BYTES + ((flags + 255u) & ~(uint64_t)255u);
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

/** Data bytes SKSS-LB needs for `tiles` tiles of 128 columns x `tile_rows` rows: LRS and GRS
 * (tile_rows each), LCS and GCS (128 each), GLS and GS (one each) per tile. (Grids small enough
 * for the rectangle corner (SATFEAT_SAT_TUNE_SKSS_RECT_CORNER_TILES) keep each tile's total in
 * its GLS slot instead: they have no diagonal.) */
static inline SATFEAT_HD uint64_t satfeat_sat_skss_data_bytes(uint64_t tiles, int tile_rows)
{
    return tiles * (uint64_t)(2 * tile_rows + 2 * 128 + 2) * 4u;
}

/**
 * Buffer size to request for `tiles` tiles and `data` data bytes. Whatever size >= this the
 * buffer really has, its flag region holds `tiles` flags and its data region `data` bytes:
 * the data region of a buffer of s bytes is at least (s - 256) * (1 - 24/256) - 256 bytes.
 */
static inline SATFEAT_HD uint64_t satfeat_sat_work_request(uint64_t tiles, uint64_t data)
{
    return SATFEAT_SAT_WORK_HEADER_BYTES + tiles * SATFEAT_SAT_WORK_BYTES_PER_FLAG_TILE + data +
           data / 8u + 512u;
}

#endif
