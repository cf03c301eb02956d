/* sat_tile.cuh - device pieces shared by the 2R1W and SKSS-LB kernels: element types, loading a
 * W x W tile of the padded image into registers, the in-register tile SAT, carry application
 * and vector stores.
 *
 * Thread layout of a tile (TileShape): each thread owns 4 consecutive columns of R = W/8
 * consecutive rows, so a block has CG = W/4 column groups times RG = 8 row groups = 2W threads.
 * The lanes of one row group are consecutive, so a row of a tile is a segment of CG lanes in
 * one warp (W <= 128): row-wise scans are warp shuffles, the column-wise scan is in registers
 * plus one exchange of 8 x W partial column sums through shared memory, read as 16-byte
 * vectors by consecutive lanes (conflict-free). The tile itself never goes through shared
 * memory, so no diagonal arrangement is needed. */
#ifndef SATFEAT_SAT_TILE_CUH
#define SATFEAT_SAT_TILE_CUH

#include <cstddef>
#include <cstdint>

#include "sat_layout.h"

namespace satfeat_sat {

constexpr unsigned kFullMask = 0xffffffffu;
constexpr int kRowGroups = 8;

/** Compile-time shape of a tile of side W. */
template <int W>
struct TileShape {
    static_assert(W == 32 || W == 64 || W == 128, "tile side must be 32, 64 or 128");
    static constexpr int kCols = W / 4;            /* column groups: lanes per tile row */
    static constexpr int kRows = W / kRowGroups;   /* rows per thread */
    static constexpr int kThreads = kCols * kRowGroups; /* = 2W */
};

/** Input and accumulator types: u8 -> u32 (wrap-around) and f32 -> f32. */
template <typename In>
struct SatTypes;

template <>
struct SatTypes<uint8_t> {
    using Acc = uint32_t;
};

template <>
struct SatTypes<float> {
    using Acc = float;
};

/** The 16-byte vector of four accumulators. */
template <typename Acc>
struct AccVec;

template <>
struct AccVec<uint32_t> {
    using type = uint4;
};

template <>
struct AccVec<float> {
    using type = float4;
};

/** Geometry of one launch, passed by value to every kernel. */
struct SatGeom {
    const void *src;
    size_t src_stride; /* bytes */
    void *dst;
    size_t dst_stride; /* bytes */
    int width, height; /* image size: the table is (width+1) x (height+1) */
    int tiles_x, tiles_y;
};

/** Loads input elements x..x+3 of one row (x a multiple of 4) as accumulator values; entries
 * at or past `width` are 0. VEC: 4-byte (u8) or 16-byte (f32) load when the four lie inside. */
template <bool VEC>
__device__ __forceinline__ void load4(const uint8_t *row, int x, int width, uint32_t e[4])
{
    if (VEC && x + 3 < width) {
        uint32_t word = __ldg(reinterpret_cast<const unsigned int *>(row + x));
#pragma unroll
        for (int i = 0; i < 4; i++) e[i] = (word >> (8 * i)) & 0xffu;
    } else {
#pragma unroll
        for (int i = 0; i < 4; i++) e[i] = x + i < width ? (uint32_t)__ldg(row + x + i) : 0u;
    }
}

template <bool VEC>
__device__ __forceinline__ void load4(const float *row, int x, int width, float e[4])
{
    if (VEC && x + 3 < width) {
        float4 q = __ldg(reinterpret_cast<const float4 *>(row + x));
        e[0] = q.x;
        e[1] = q.y;
        e[2] = q.z;
        e[3] = q.w;
    } else {
#pragma unroll
        for (int i = 0; i < 4; i++) e[i] = x + i < width ? __ldg(row + x + i) : 0.0f;
    }
}

template <typename In>
__device__ __forceinline__ typename SatTypes<In>::Acc load1(const In *row, int x)
{
    return (typename SatTypes<In>::Acc)__ldg(row + x);
}

/**
 * Loads this thread's 4 x R block of the padded image P of tile (ti, tj) into v[k][i]
 * (row r0 + k, column c0 + i of the tile). P(X, Y) = a(X-1, Y-1): each thread loads the
 * aligned input columns X..X+3 of row Y-1 and takes the element left of them from the
 * neighbouring lane (the first lane of a row loads it itself). All loads are issued before
 * the first shuffle so that R of them are in flight.
 */
template <int W, bool VEC, typename In>
__device__ __forceinline__ void load_tile(const SatGeom &g, int ti, int tj, int cg, int rg,
                                          typename SatTypes<In>::Acc (&v)[TileShape<W>::kRows][4])
{
    using Acc = typename SatTypes<In>::Acc;
    constexpr int R = TileShape<W>::kRows;
    constexpr int CG = TileShape<W>::kCols;
    const int x0 = tj * W;
    const int xa = x0 + 4 * cg; /* first input column this thread loads */
    const int y0 = ti * W + rg * R;
    Acc e[R][4];
    Acc left[R];
#pragma unroll
    for (int k = 0; k < R; k++) {
        const int y = y0 + k - 1; /* input row of table row y0 + k */
        const bool row_ok = y >= 0 && y < g.height;
        const In *row = reinterpret_cast<const In *>(static_cast<const char *>(g.src) +
                                                     (size_t)(row_ok ? y : 0) * g.src_stride);
        if (row_ok) {
            load4<VEC>(row, xa, g.width, e[k]);
            left[k] = (cg == 0 && x0 > 0) ? load1<In>(row, x0 - 1) : Acc(0);
        } else {
#pragma unroll
            for (int i = 0; i < 4; i++) e[k][i] = Acc(0);
            left[k] = Acc(0);
        }
    }
#pragma unroll
    for (int k = 0; k < R; k++) {
        Acc prev = __shfl_up_sync(kFullMask, e[k][3], 1, CG);
        v[k][0] = cg == 0 ? left[k] : prev;
        v[k][1] = e[k][0];
        v[k][2] = e[k][1];
        v[k][3] = e[k][2];
    }
}

/**
 * Turns v (this thread's 4 x R block of a tile) into the tile's local inclusive SAT.
 * Writes the tile's row sums to row_tot[W] and column sums to col_tot[W] (shared memory);
 * `part` and `part_raw` are shared scratch of kRowGroups x W each (16-byte aligned). Ends with the block synchronised and row_tot,
 * col_tot readable by every thread.
 */
template <int W, typename Acc>
__device__ __forceinline__ void tile_local_sat(Acc (&v)[TileShape<W>::kRows][4], int cg, int rg,
                                               Acc *part, Acc *part_raw, Acc *row_tot,
                                               Acc *col_tot)
{
    constexpr int R = TileShape<W>::kRows;
    constexpr int CG = TileShape<W>::kCols;
    using Vec = typename AccVec<Acc>::type;
    /* pure column sums of this thread's block, before any scan */
    {
        Acc c[4];
#pragma unroll
        for (int i = 0; i < 4; i++) {
            c[i] = v[0][i];
#pragma unroll
            for (int k = 1; k < R; k++) c[i] += v[k][i];
        }
        reinterpret_cast<Vec *>(part_raw + rg * W)[cg] = Vec{c[0], c[1], c[2], c[3]};
    }
    /* rows: inside the thread, then across the CG lanes of the row segment */
#pragma unroll
    for (int k = 0; k < R; k++) {
        v[k][1] += v[k][0];
        v[k][2] += v[k][1];
        v[k][3] += v[k][2];
    }
    Acc s[R];
#pragma unroll
    for (int k = 0; k < R; k++) s[k] = v[k][3];
#pragma unroll
    for (int d = 1; d < CG; d *= 2) {
#pragma unroll
        for (int k = 0; k < R; k++) {
            Acc o = __shfl_up_sync(kFullMask, s[k], d, CG);
            if (cg >= d) s[k] += o;
        }
    }
#pragma unroll
    for (int k = 0; k < R; k++) {
        Acc ex = __shfl_up_sync(kFullMask, s[k], 1, CG);
        if (cg == 0) ex = Acc(0);
#pragma unroll
        for (int i = 0; i < 4; i++) v[k][i] += ex;
        if (cg == CG - 1) row_tot[rg * R + k] = v[k][3];
    }
    /* columns: inside the thread, then across the row groups through shared memory */
#pragma unroll
    for (int k = 1; k < R; k++)
#pragma unroll
        for (int i = 0; i < 4; i++) v[k][i] += v[k - 1][i];
    reinterpret_cast<Vec *>(part + rg * W)[cg] =
        Vec{v[R - 1][0], v[R - 1][1], v[R - 1][2], v[R - 1][3]};
    __syncthreads();
    Acc above[4] = {Acc(0), Acc(0), Acc(0), Acc(0)};
#pragma unroll
    for (int q = 0; q < kRowGroups - 1; q++) {
        if (q < rg) {
            Vec p = reinterpret_cast<const Vec *>(part + q * W)[cg];
            above[0] += p.x;
            above[1] += p.y;
            above[2] += p.z;
            above[3] += p.w;
        }
    }
#pragma unroll
    for (int k = 0; k < R; k++)
#pragma unroll
        for (int i = 0; i < 4; i++) v[k][i] += above[i];
    const int t = rg * CG + cg;
    if (t < W) {
        Acc col = part_raw[t];
#pragma unroll
        for (int q = 1; q < kRowGroups; q++) col += part_raw[q * W + t];
        col_tot[t] = col;
    }
    __syncthreads();
}

/**
 * Inclusive scan of two W-vectors in shared memory at once: threads [0, W) scan a[], threads
 * [W, 2W) scan b[] (in place). `warp_tot` is shared scratch of 2W/32 entries. Must be called by
 * all 2W threads of the block; ends synchronised.
 */
template <int W, typename Acc>
__device__ __forceinline__ void scan_two_vectors(Acc *a, Acc *b, Acc *warp_tot)
{
    const int t = threadIdx.x;
    const int lane = t & 31;
    const int warp = t >> 5;
    Acc *vec = t < W ? a : b;
    const int idx = t < W ? t : t - W;
    Acc x = vec[idx];
#pragma unroll
    for (int d = 1; d < 32; d *= 2) {
        Acc o = __shfl_up_sync(kFullMask, x, d);
        if (lane >= d) x += o;
    }
    if (lane == 31) warp_tot[warp] = x;
    __syncthreads();
    const int first_warp = t < W ? 0 : W / 32;
    Acc before = Acc(0);
#pragma unroll
    for (int q = 0; q < W / 32 - 1; q++)
        if (first_warp + q < warp) before += warp_tot[first_warp + q];
    vec[idx] = before + x;
    __syncthreads();
}

/** Stores 4 table entries of row `y` starting at column x (a multiple of 4); entries past
 * column `width` (the table has width+1 columns) are skipped. */
template <bool VEC>
__device__ __forceinline__ void store4(uint32_t *row, int x, int width, const uint32_t o[4])
{
    if (VEC && x + 3 <= width) {
        *reinterpret_cast<uint4 *>(row + x) = make_uint4(o[0], o[1], o[2], o[3]);
    } else {
#pragma unroll
        for (int i = 0; i < 4; i++)
            if (x + i <= width) row[x + i] = o[i];
    }
}

template <bool VEC>
__device__ __forceinline__ void store4(float *row, int x, int width, const float o[4])
{
    if (VEC && x + 3 <= width) {
        *reinterpret_cast<float4 *>(row + x) = make_float4(o[0], o[1], o[2], o[3]);
    } else {
#pragma unroll
        for (int i = 0; i < 4; i++)
            if (x + i <= width) row[x + i] = o[i];
    }
}

/**
 * Adds the carries to the local SAT and stores the tile: entry (r, c) of the tile becomes
 * v + (corner + left_scan[r]) + top_scan[c], where left_scan / top_scan are the inclusive
 * scans of the row sums left of the tile and the column sums above it.
 */
template <int W, bool VEC, typename Acc>
__device__ __forceinline__ void store_tile(const SatGeom &g, int ti, int tj, int cg, int rg,
                                           const Acc (&v)[TileShape<W>::kRows][4], Acc corner,
                                           const Acc *left_scan, const Acc *top_scan)
{
    constexpr int R = TileShape<W>::kRows;
    const int x = tj * W + 4 * cg;
    const int y0 = ti * W + rg * R;
    Acc top[4];
#pragma unroll
    for (int i = 0; i < 4; i++) top[i] = top_scan[4 * cg + i];
#pragma unroll
    for (int k = 0; k < R; k++) {
        const int y = y0 + k;
        if (y > g.height) break;
        Acc rowc = corner + left_scan[rg * R + k];
        Acc o[4];
#pragma unroll
        for (int i = 0; i < 4; i++) o[i] = (v[k][i] + rowc) + top[i];
        Acc *row = reinterpret_cast<Acc *>(static_cast<char *>(g.dst) + (size_t)y * g.dst_stride);
        if (x <= g.width) store4<VEC>(row, x, g.width, o);
    }
}

/** Whether pointers and strides allow the vector paths (4-byte u8 loads, 16-byte f32 loads,
 * 16-byte stores). */
template <typename In>
inline bool vector_ok(const void *src, size_t src_stride, const void *dst, size_t dst_stride)
{
    const size_t in_align = sizeof(In) == 1 ? 4 : 16;
    return ((uintptr_t)src % in_align) == 0 && src_stride % in_align == 0 &&
           ((uintptr_t)dst % 16) == 0 && dst_stride % 16 == 0;
}

} // namespace satfeat_sat

#endif
