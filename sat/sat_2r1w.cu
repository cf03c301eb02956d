/* sat_2r1w.cu - the tiled three-kernel SAT of Nehab et al. (2011): kernel 1 reduces each tile to
 * its row and column sums, kernel 2 scans those carries across tiles, kernel 3 recomputes each
 * tile's SAT with its carries added. The image is read twice and the table written once. */
#include "sat_kernels.h"
#include "sat_tile.cuh"

#include <cuda_runtime.h>

namespace satfeat_sat {
namespace {

constexpr int kScanThreads = 256;
constexpr int kScanChunks = kScanThreads / 32;
constexpr int kScanBatch = 8;

/** Pointer to the carry region of the work buffer (offset read from its header). */
template <typename Acc>
__device__ __forceinline__ Acc *carry_base(satfeat_sat_work_header *hdr)
{
    return reinterpret_cast<Acc *>(reinterpret_cast<char *>(hdr) + hdr->data_off);
}

/**
 * Kernel 1. One block per tile (2W threads): loads the tile of the padded image and writes its
 * W row sums to rows[tile][0..W) and its W column sums plus the tile total to
 * cols[tile][0..W]. Reads the image once; writes (2W+1) carries per tile.
 */
template <int W, bool VEC, typename In>
__global__ void __launch_bounds__(TileShape<W>::kThreads)
    reduce_tiles(SatGeom g, satfeat_sat_work_header *hdr)
{
    using Acc = typename SatTypes<In>::Acc;
    constexpr int R = TileShape<W>::kRows;
    constexpr int CG = TileShape<W>::kCols;
    __shared__ __align__(16) Acc part[kRowGroups * W];
    __shared__ Acc warp_tot[W / 32];
    const int tile = blockIdx.x;
    const int ti = tile / g.tiles_x, tj = tile % g.tiles_x;
    const int t = threadIdx.x, cg = t % CG, rg = t / CG;
    Acc v[R][4];
    load_tile<W, VEC, In>(g, ti, tj, cg, rg, v);
    Acc *rows = carry_base<Acc>(hdr);
    Acc *cols = rows + (size_t)g.tiles_x * g.tiles_y * W;
    /* row sums: each thread's four, then a butterfly over the CG lanes of the row */
    Acc s[R];
#pragma unroll
    for (int k = 0; k < R; k++) s[k] = ((v[k][0] + v[k][1]) + v[k][2]) + v[k][3];
#pragma unroll
    for (int d = CG / 2; d >= 1; d /= 2)
#pragma unroll
        for (int k = 0; k < R; k++) s[k] += __shfl_xor_sync(kFullMask, s[k], d, CG);
    if (cg == 0)
#pragma unroll
        for (int k = 0; k < R; k++) rows[(size_t)tile * W + rg * R + k] = s[k];
    /* column sums: inside the thread, then over the row groups through shared memory */
    Acc c[4];
#pragma unroll
    for (int i = 0; i < 4; i++) {
        c[i] = v[0][i];
#pragma unroll
        for (int k = 1; k < R; k++) c[i] += v[k][i];
    }
    using Vec = typename AccVec<Acc>::type;
    reinterpret_cast<Vec *>(part + rg * W)[cg] = Vec{c[0], c[1], c[2], c[3]};
    __syncthreads();
    if (t < W) {
        Acc col = part[t];
#pragma unroll
        for (int q = 1; q < kRowGroups; q++) col += part[q * W + t];
        cols[(size_t)tile * (W + 1) + t] = col;
#pragma unroll
        for (int d = 16; d >= 1; d /= 2) col += __shfl_xor_sync(kFullMask, col, d);
        if ((t & 31) == 0) warp_tot[t / 32] = col;
    }
    __syncthreads();
    if (t == 0) {
        Acc total = warp_tot[0];
#pragma unroll
        for (int q = 1; q < W / 32; q++) total += warp_tot[q];
        cols[(size_t)tile * (W + 1) + W] = total;
    }
}

/**
 * Kernel 2. Turns the carries into exclusive prefix sums along tile rows and tile columns.
 * Blocks [0, row_blocks) each take 32 "row lines" (one table row r of one tile band: the
 * values rows[(I, J)][r] for J = 0..tiles_x-1), the other blocks 32 "column lines" (one column
 * c <= W of one tile column band: cols[(I, J)][c] for I = 0..tiles_y-1; c = W scans the tile
 * totals vertically). Each line is cut into 8 chunks, one per warp: a warp sums its chunk, the
 * chunk sums are scanned in shared memory, and the chunk is rewritten exclusively. Reads each
 * carry twice and writes it once; touches nothing else.
 */
template <int W, typename Acc>
__global__ void __launch_bounds__(kScanThreads)
    scan_carries(satfeat_sat_work_header *hdr, int tiles_x, int tiles_y, int row_blocks)
{
    __shared__ Acc part[kScanChunks][32];
    const int lane = threadIdx.x & 31;
    const int chunk = threadIdx.x >> 5;
    Acc *rows = carry_base<Acc>(hdr);
    Acc *cols = rows + (size_t)tiles_x * tiles_y * W;
    Acc *base;
    size_t step;
    long long line, nlines;
    int len;
    if ((int)blockIdx.x < row_blocks) {
        line = (long long)blockIdx.x * 32 + lane;
        nlines = (long long)tiles_y * W;
        len = tiles_x;
        step = W;
        base = rows + (size_t)(line / W) * tiles_x * W + (size_t)(line % W);
    } else {
        line = (long long)(blockIdx.x - row_blocks) * 32 + lane;
        nlines = (long long)tiles_x * (W + 1);
        len = tiles_y;
        step = (size_t)tiles_x * (W + 1);
        base = cols + (size_t)line;
    }
    const bool active = line < nlines;
    const int per = (len + kScanChunks - 1) / kScanChunks;
    const int begin = chunk * per;
    const int end = min(len, begin + per);
    Acc sum = Acc(0);
    if (active) {
        for (int j = begin; j < end; j += kScanBatch) {
            Acc x[kScanBatch];
#pragma unroll
            for (int b = 0; b < kScanBatch; b++) x[b] = j + b < end ? base[(size_t)(j + b) * step] : Acc(0);
#pragma unroll
            for (int b = 0; b < kScanBatch; b++) sum += x[b];
        }
    }
    part[chunk][lane] = sum;
    __syncthreads();
    Acc run = Acc(0);
    for (int q = 0; q < chunk; q++) run += part[q][lane];
    if (active) {
        for (int j = begin; j < end; j += kScanBatch) {
            Acc x[kScanBatch];
#pragma unroll
            for (int b = 0; b < kScanBatch; b++) x[b] = j + b < end ? base[(size_t)(j + b) * step] : Acc(0);
#pragma unroll
            for (int b = 0; b < kScanBatch; b++) {
                if (j + b < end) {
                    base[(size_t)(j + b) * step] = run;
                    run += x[b];
                }
            }
        }
    }
}

/**
 * Kernel 3. One block per tile (2W threads): reads the tile's row carries (sums left of the
 * tile), column carries (sums above it) and the vertically scanned tile totals of the tiles to
 * its left in its band (their sum is the corner: everything above and left of the tile), loads
 * the tile again, computes its local SAT, adds the carries and writes the tile of the table.
 */
template <int W, bool VEC, typename In>
__global__ void __launch_bounds__(TileShape<W>::kThreads)
    apply_carries(SatGeom g, satfeat_sat_work_header *hdr)
{
    using Acc = typename SatTypes<In>::Acc;
    constexpr int R = TileShape<W>::kRows;
    constexpr int CG = TileShape<W>::kCols;
    constexpr int T = TileShape<W>::kThreads;
    __shared__ __align__(16) Acc part[kRowGroups * W];
    __shared__ __align__(16) Acc part_raw[kRowGroups * W];
    __shared__ __align__(16) Acc row_tot[W];
    __shared__ __align__(16) Acc col_tot[W];
    __shared__ __align__(16) Acc left[W];
    __shared__ __align__(16) Acc top[W];
    __shared__ Acc warp_tot[T / 32];
    __shared__ Acc corner_part[T / 32];
    const int tile = blockIdx.x;
    const int ti = tile / g.tiles_x, tj = tile % g.tiles_x;
    const int t = threadIdx.x, cg = t % CG, rg = t / CG;
    const Acc *rows = carry_base<Acc>(hdr);
    const Acc *cols = rows + (size_t)g.tiles_x * g.tiles_y * W;
    if (t < W) left[t] = rows[(size_t)tile * W + t];
    else top[t - W] = cols[(size_t)tile * (W + 1) + (t - W)];
    Acc corner = Acc(0);
    for (int j = t; j < tj; j += T) corner += cols[((size_t)ti * g.tiles_x + j) * (W + 1) + W];
#pragma unroll
    for (int d = 16; d >= 1; d /= 2) corner += __shfl_xor_sync(kFullMask, corner, d);
    if ((t & 31) == 0) corner_part[t / 32] = corner;
    Acc v[R][4];
    load_tile<W, VEC, In>(g, ti, tj, cg, rg, v);
    tile_local_sat<W>(v, cg, rg, part, part_raw, row_tot, col_tot);
    scan_two_vectors<W>(left, top, warp_tot);
    corner = corner_part[0];
#pragma unroll
    for (int q = 1; q < T / 32; q++) corner += corner_part[q];
    store_tile<W, VEC>(g, ti, tj, cg, rg, v, corner, left, top);
}

template <int W, bool VEC, typename In>
cudaError_t launch_tiled(const satfeat_sat_launch *l, const char **failed)
{
    using Acc = typename SatTypes<In>::Acc;
    SatGeom g{l->src, l->src_stride, l->dst, l->dst_stride, l->width, l->height,
              satfeat_sat_tiles_x(l->width, W), satfeat_sat_tiles_y(l->height, W)};
    cudaStream_t s = static_cast<cudaStream_t>(l->stream);
    auto *hdr = static_cast<satfeat_sat_work_header *>(l->work);
    const unsigned tiles = (unsigned)g.tiles_x * (unsigned)g.tiles_y;
    reduce_tiles<W, VEC, In><<<tiles, TileShape<W>::kThreads, 0, s>>>(g, hdr);
    cudaError_t e = cudaPeekAtLastError();
    if (e != cudaSuccess) {
        *failed = "2R1W kernel 1 (reduce_tiles) launch";
        return e;
    }
    const int row_blocks = (int)(((long long)g.tiles_y * W + 31) / 32);
    const int col_blocks = (int)(((long long)g.tiles_x * (W + 1) + 31) / 32);
    scan_carries<W, Acc><<<row_blocks + col_blocks, kScanThreads, 0, s>>>(hdr, g.tiles_x, g.tiles_y,
                                                                          row_blocks);
    e = cudaPeekAtLastError();
    if (e != cudaSuccess) {
        *failed = "2R1W kernel 2 (scan_carries) launch";
        return e;
    }
    apply_carries<W, VEC, In><<<tiles, TileShape<W>::kThreads, 0, s>>>(g, hdr);
    e = cudaPeekAtLastError();
    if (e != cudaSuccess) *failed = "2R1W kernel 3 (apply_carries) launch";
    return e;
}

template <typename In>
cudaError_t launch_2r1w(const satfeat_sat_launch *l, const char **failed)
{
    const bool vec = vector_ok<In>(l->src, l->src_stride, l->dst, l->dst_stride);
    switch (l->tile) {
    case 32: return vec ? launch_tiled<32, true, In>(l, failed) : launch_tiled<32, false, In>(l, failed);
    case 64: return vec ? launch_tiled<64, true, In>(l, failed) : launch_tiled<64, false, In>(l, failed);
    case 128: return vec ? launch_tiled<128, true, In>(l, failed) : launch_tiled<128, false, In>(l, failed);
    default: *failed = "2R1W tile side"; return cudaErrorInvalidValue;
    }
}

} // namespace
} // namespace satfeat_sat

extern "C" int satfeat_sat_2r1w_u8_launch(const satfeat_sat_launch *l, const char **failed_call)
{
    return (int)satfeat_sat::launch_2r1w<uint8_t>(l, failed_call);
}

extern "C" int satfeat_sat_2r1w_f32_launch(const satfeat_sat_launch *l, const char **failed_call)
{
    return (int)satfeat_sat::launch_2r1w<float>(l, failed_call);
}
