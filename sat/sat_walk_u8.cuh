/* sat_walk_u8.cuh - the u8 -> u32 pieces of the SKSS-LB tile walk that work on packed bytes and
 * 16-bit halves instead of one 32-bit value per element (sat_skss_lb.cu; layout of the lanes and
 * chunks as in sat_walk.cuh).
 *
 * Every sum they form inside a tile fits in 16 bits: a row of the tile is at most 128 x 255 =
 * 32640, a column partial of one group (at most 8 rows) 2040. So the local row sums use dp4a,
 * the column partials add the even and odd bytes of a word as two 16-bit halves, and the carry
 * walk scans two table rows at once (row u in the low half, row u + 1 in the high half) and then
 * adds each half to the running 32-bit table values. u32 arithmetic is modular, so the table is
 * the same whatever the order of the additions. */
#ifndef SATFEAT_SAT_WALK_U8_CUH
#define SATFEAT_SAT_WALK_U8_CUH

#include "sat_walk.cuh"

namespace satfeat_sat {

/** Word i (chunk i: input columns x0 + 32 i + 4 lane .. + 3, one byte each) of a loaded u8 row. */
__device__ __forceinline__ uint32_t u8_word(const WalkRow<uint8_t> &r, int i)
{
    const uint4 q = r.raw.q[0];
    return i == 0 ? q.x : i == 1 ? q.y : i == 2 ? q.z : q.w;
}

/** The lane's share of the sum of one table row over the strip (table columns x0 .. x0 + 127 =
 * input columns x0 - 1 .. x0 + 126): its 16 input columns, plus the column left of the strip
 * (lane 0, in r.left), minus input column x0 + 127 (lane 7's last byte). At most 17 x 255. */
__device__ __forceinline__ uint32_t u8_row_share(const WalkRow<uint8_t> &r, int lane)
{
    const uint4 q = r.raw.q[0];
    uint32_t s = __dp4a(q.x, 0x01010101u, r.left);
    s = __dp4a(q.y, 0x01010101u, s);
    s = __dp4a(q.z, 0x01010101u, s);
    s = __dp4a(q.w, 0x01010101u, s);
    if (lane == kGroupLanes - 1) s -= q.w >> 24;
    return s;
}

/**
 * Local sums of a group's N rows (N <= 8, so every partial fits in 16 bits): writes the table
 * row sums of the strip to row_tot[0 .. N) (lane 0) and returns in col[k] the sum over the N
 * rows of the lane's table column k (chunk-major, as walk_values orders them).
 */
template <int N>
__device__ __forceinline__ void u8_local_sums(const WalkRow<uint8_t> (&rows)[N], int lane, unsigned mask,
                                              uint32_t *row_tot, uint32_t (&col)[kLaneCols])
{
    static_assert(N >= 1 && N <= 8, "u8 local sums: 1 to 8 rows per group");
#pragma unroll
    for (int u = 0; u < N; u += 2) {
        uint32_t s = u8_row_share(rows[u], lane);
        if (u + 1 < N) s += u8_row_share(rows[u + 1], lane) << 16;
        s = group_sum(s, mask);
        if (lane == 0) {
            row_tot[u] = s & 0xffffu;
            if (u + 1 < N) row_tot[u + 1] = s >> 16;
        }
    }
    uint32_t in[kLaneCols]; /* column sums of the lane's input columns, not yet shifted */
    uint32_t left = 0;
#pragma unroll
    for (int u = 0; u < N; u++) left += rows[u].left;
#pragma unroll
    for (int i = 0; i < 4; i++) {
        uint32_t even = 0, odd = 0; /* bytes 0 and 2, bytes 1 and 3, as 16-bit halves */
#pragma unroll
        for (int u = 0; u < N; u++) {
            const uint32_t w = u8_word(rows[u], i);
            even += w & 0x00ff00ffu;
            odd += __byte_perm(w, 0u, 0x4341);
        }
        in[4 * i] = even & 0xffffu;
        in[4 * i + 1] = odd & 0xffffu;
        in[4 * i + 2] = even >> 16;
        in[4 * i + 3] = odd >> 16;
    }
    shift_in(in, left, lane, mask, col);
}

/**
 * Table rows ya + u and ya + u + 1 of the carry walk (has_b false: row u alone). O[k] holds the
 * table value of the row above in the lane's column k and is advanced row by row:
 * O += (prefix of the row inside the strip) + (the row's carry from the left); each row is stored
 * (store16) when y <= height. The two rows' values are packed as 16-bit halves for the shift and
 * the prefix along the strip, whose sums fit in 16 bits.
 */
template <bool VEC>
__device__ __forceinline__ void u8_carry_pair(const SatGeom &g, int y, int x0, int lane, unsigned mask,
                                              const WalkRow<uint8_t> &a, const WalkRow<uint8_t> &b,
                                              bool has_b, uint32_t carry_a, uint32_t carry_b,
                                              uint32_t (&O)[kLaneCols])
{
    uint32_t e[kLaneCols];
#pragma unroll
    for (int i = 0; i < 4; i++) {
        const uint32_t wa = u8_word(a, i), wb = has_b ? u8_word(b, i) : 0u;
        const uint32_t lo = __byte_perm(wa, wb, 0x5140); /* a0 b0 a1 b1 */
        const uint32_t hi = __byte_perm(wa, wb, 0x7362); /* a2 b2 a3 b3 */
        e[4 * i] = __byte_perm(lo, 0u, 0x4140);          /* a0 | b0 << 16 */
        e[4 * i + 1] = __byte_perm(lo, 0u, 0x4342);
        e[4 * i + 2] = __byte_perm(hi, 0u, 0x4140);
        e[4 * i + 3] = __byte_perm(hi, 0u, 0x4342);
    }
    const uint32_t left = a.left | (has_b ? b.left << 16 : 0u);
    uint32_t v[kLaneCols];
    shift_in(e, left, lane, mask, v);
    uint32_t ex[4];
    row_prefix(v, lane, mask, ex);
#pragma unroll
    for (int k = 0; k < kLaneCols; k++) v[k] += ex[k / 4];
    uint32_t o[kLaneCols];
#pragma unroll
    for (int k = 0; k < kLaneCols; k++) {
        O[k] += (v[k] & 0xffffu) + carry_a;
        o[k] = O[k];
    }
    if (y <= g.height) store16<VEC>(g, y, x0, lane, o);
    if (has_b) {
#pragma unroll
        for (int k = 0; k < kLaneCols; k++) {
            O[k] += (v[k] >> 16) + carry_b;
            o[k] = O[k];
        }
        if (y + 1 <= g.height) store16<VEC>(g, y + 1, x0, lane, o);
    }
}

} // namespace satfeat_sat

#endif
