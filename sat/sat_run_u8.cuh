/* sat_run_u8.cuh - SKSS-LB's walk for u8 input on runs: lane l of a group of 8 owns the run of
 * 16 consecutive table columns x0 + 16 l .. x0 + 16 l + 15 of the tile's strip. A row's input for
 * a run is one 16-byte load; the padded table's one-column shift (sat_layout.h) is one shuffle
 * and four funnel shifts; row sums and in-row prefixes are byte dot products and the column
 * partials of a group's rows add as 16-bit pairs (sat_byte_words.h). The first walk keeps each
 * row's shifted words and its sum over the runs of the lanes before this one, so the output walk
 * needs no shuffle: per row and lane 16 dot products (the row's prefix along the strip) and 16
 * additions (onto the row above). u32 arithmetic is modulo 2^32, so the order of additions does
 * not change a bit of the table (sat_walk.cuh's chunked walk, which f32 keeps, gives the same). */
#ifndef SATFEAT_SAT_RUN_U8_CUH
#define SATFEAT_SAT_RUN_U8_CUH

#include "sat/sat_byte_words.h"
#include "sat/sat_walk.cuh"

namespace satfeat_sat {

constexpr int kRunCols = 16;
static_assert(kGroupLanes * kRunCols == kStripCols, "a group's runs cover the strip");

/** One row of a lane's run: its 16 values as 4 words of bytes (byte m of word j: column
 * 4 j + m of the run), as loaded (input columns) until run_local_sums shifts them to table
 * columns; `left` is the input element left of the strip (lane 0 only, else 0). */
struct RunRow {
    uint32_t w[4];
    uint32_t left;
};

/** Loads the input of table row y (input row y - 1; y = 0 is the zero row) for the lane's run:
 * input columns x0 + 16 lane .. + 15, past `width` as zeros. VEC: one 16-byte load. */
template <bool VEC>
__device__ __forceinline__ void load_run_row(const SatGeom &g, int y, int x0, int lane, RunRow &r)
{
    const uint8_t *row = input_row<uint8_t>(g, y);
    const int xa = x0 + kRunCols * lane;
#pragma unroll
    for (int j = 0; j < 4; j++) r.w[j] = 0u;
    r.left = 0u;
    if (!row) return;
    if (VEC && xa + kRunCols <= g.width) {
        const uint4 q = __ldg(reinterpret_cast<const uint4 *>(row + xa));
        r.w[0] = q.x;
        r.w[1] = q.y;
        r.w[2] = q.z;
        r.w[3] = q.w;
    } else {
#pragma unroll
        for (int m = 0; m < kRunCols; m++)
            if (xa + m < g.width) r.w[m / 4] |= (uint32_t)__ldg(row + xa + m) << (8 * (m % 4));
    }
    if (lane == 0 && x0 > 0) r.left = __ldg(row + x0 - 1);
}

/** Inclusive sum of v over the lanes of the group up to this one (3 shuffle steps). */
__device__ __forceinline__ uint32_t group_scan(uint32_t v, int lane, unsigned mask)
{
#pragma unroll
    for (int d = 1; d < kGroupLanes; d *= 2) {
        const uint32_t x = __shfl_up_sync(mask, v, d, kGroupLanes);
        if (lane >= d) v += x;
    }
    return v;
}

/**
 * The first walk over the group's RPG rows, loaded by load_run_row: shifts each row to its table
 * columns in place (byte 0 of the run from the lane before, lane 0's from `left`), and gives
 * col[k], the sum of the run's column k over the rows; row_sum[u], row u's sum over the strip (in
 * every lane); and ex[u / 2], the sums of rows u (low half) and u + 1 (high half) over the runs of
 * the lanes before this one. A lane's row sum is at most 16 x 255 and a strip's 128 x 255, so two
 * rows scan in one word; a column's partial over RPG rows stays below 2^16 likewise.
 */
template <int RPG>
__device__ __forceinline__ void run_local_sums(RunRow (&rows)[RPG], int lane, unsigned mask,
                                               uint32_t (&col)[kRunCols], uint32_t (&row_sum)[RPG],
                                               uint32_t (&ex)[(RPG + 1) / 2])
{
    static_assert(RPG * 255 < 65536, "column partials in 16-bit halves");
    uint32_t even[4] = {0u, 0u, 0u, 0u}, odd[4] = {0u, 0u, 0u, 0u}, own[RPG];
#pragma unroll
    for (int u = 0; u < RPG; u++) {
        const uint32_t up = __shfl_up_sync(mask, rows[u].w[3], 1, kGroupLanes);
        uint32_t prev = lane == 0 ? rows[u].left << 24 : up;
        uint32_t s = 0u;
#pragma unroll
        for (int j = 0; j < 4; j++) {
            const uint32_t cur = rows[u].w[j];
            rows[u].w[j] = satfeat_sat_word_shift(cur, prev);
            prev = cur;
            s = satfeat_sat_word_sum(rows[u].w[j], s);
            even[j] += satfeat_sat_word_even(rows[u].w[j]);
            odd[j] += satfeat_sat_word_odd(rows[u].w[j]);
        }
        own[u] = s;
    }
#pragma unroll
    for (int p = 0; p < (RPG + 1) / 2; p++) {
        const uint32_t mine = satfeat_sat_half_pack(own[2 * p], 2 * p + 1 < RPG ? own[2 * p + 1] : 0u);
        const uint32_t incl = group_scan(mine, lane, mask);
        ex[p] = incl - mine;
        const uint32_t all = __shfl_sync(mask, incl, kGroupLanes - 1, kGroupLanes);
        row_sum[2 * p] = satfeat_sat_half(all, 0);
        if (2 * p + 1 < RPG) row_sum[2 * p + 1] = satfeat_sat_half(all, 1);
    }
#pragma unroll
    for (int j = 0; j < 4; j++) {
        col[4 * j] = satfeat_sat_half(even[j], 0);
        col[4 * j + 1] = satfeat_sat_half(odd[j], 0);
        col[4 * j + 2] = satfeat_sat_half(even[j], 1);
        col[4 * j + 3] = satfeat_sat_half(odd[j], 1);
    }
}

/**
 * Turns o (the lane's run of a row of values) into its prefix along the strip, plus `add`: the
 * in-run prefix, then the runs of the lanes before (3 shuffle steps).
 */
__device__ __forceinline__ void run_prefix(uint32_t (&o)[kRunCols], int lane, unsigned mask, uint32_t add)
{
#pragma unroll
    for (int k = 1; k < kRunCols; k++) o[k] += o[k - 1];
    const uint32_t base = group_scan(o[kRunCols - 1], lane, mask) - o[kRunCols - 1] + add;
#pragma unroll
    for (int k = 0; k < kRunCols; k++) o[k] += base;
}

/**
 * One output row of the run walk: o holds the table row above for the run and becomes this row:
 * each value gains the row's prefix along the strip, `base` (everything left of the run: the row
 * carry and the runs of the lanes before) plus the run's bytes up to its column.
 */
__device__ __forceinline__ void run_carry_row(const RunRow &r, uint32_t base, uint32_t (&o)[kRunCols])
{
#pragma unroll
    for (int j = 0; j < 4; j++) {
        uint32_t next = base;
#pragma unroll
        for (int m = 0; m < 4; m++) {
            const uint32_t p = satfeat_sat_word_prefix(r.w[j], m, base);
            o[4 * j + m] += p;
            if (m == 3) next = p;
        }
        base = next;
    }
}

/**
 * Stores the group's row of the strip, table row y, with the store pattern of sat_walk.cuh's
 * chunks: a run's 16 values cover only half of each 32-byte sector that one 16-byte store of a
 * warp touches (lanes 64 bytes apart), which measured far slower, so each lane puts its run into
 * the group's 128-word `stage` in shared memory, and after the group's sync writes table columns
 * x0 + 32 i + 4 lane .. + 3 (i = 0 .. 3) from there, eight lanes covering whole sectors. Chunk j
 * of lane l's run lies at word 16 l + 4 (j ^ ((l >> 1) & 3)), so that neither the eight lanes
 * writing nor the eight reading a 16-byte chunk share a bank. Columns past `width` (the table's
 * last column) are skipped; VEC: 16-byte stores. The group syncs again before `stage` is reused.
 */
template <bool VEC>
__device__ __forceinline__ void store_run(const SatGeom &g, int y, int x0, int lane, unsigned mask,
                                          uint32_t *stage, const uint32_t (&o)[kRunCols])
{
    const int swz = (lane >> 1) & 3;
#pragma unroll
    for (int j = 0; j < 4; j++)
        *reinterpret_cast<uint4 *>(&stage[kRunCols * lane + 4 * (j ^ swz)]) =
            make_uint4(o[4 * j], o[4 * j + 1], o[4 * j + 2], o[4 * j + 3]);
    __syncwarp(mask);
    uint32_t *row = reinterpret_cast<uint32_t *>(static_cast<char *>(g.dst) + (size_t)y * g.dst_stride);
#pragma unroll
    for (int i = 0; i < 4; i++) {
        /* columns 32 i + 4 lane ..: chunk lane & 3 of the run of lane 2 i + lane / 4 */
        const uint4 v = *reinterpret_cast<const uint4 *>(
            &stage[kRunCols * (2 * i + (lane >> 2)) + 4 * ((lane & 3) ^ i)]);
        const int x = x0 + chunk_col(i, lane);
        if (VEC && x + 3 <= g.width) {
            *reinterpret_cast<uint4 *>(row + x) = v;
        } else {
            const uint32_t e[4] = {v.x, v.y, v.z, v.w};
#pragma unroll
            for (int m = 0; m < 4; m++)
                if (x + m <= g.width) row[x + m] = e[m];
        }
    }
    __syncwarp(mask);
}

} // namespace satfeat_sat

#endif
