/* sat_2r1w.cu - the three-kernel SAT after Nehab et al. (2011), with row-walking kernels: the
 * table is cut into segments of 128 columns (a strip) x `band` rows (a band), each handled by
 * one group of 8 lanes that walks down its rows (sat_walk.cuh). Kernel 1 reduces each segment
 * to its row sums and column sums, kernel 2 scans those carries across strips and bands, kernel
 * 3 walks each segment again and writes its part of the table with the carries added. The
 * image is read twice and the table written once; the carries are about 4 / band + 4 / 128
 * bytes per element. */
#include "sat/sat_kernels.h"
#include "sat/sat_walk.cuh"

#include <cuda_runtime.h>

namespace satfeat_sat {
namespace {

constexpr int kScanThreads = 256;
constexpr int kScanChunks = kScanThreads / 32;
constexpr int kScanBatch = 8;

/** The carry arrays in the work buffer's data region (layout in sat_layout.h). */
template <typename Acc>
struct Carries {
    Acc *rows;       /* rows[strip * rows_pad + y]: sum of the segment's row y (kernel 2: of all strips left of it) */
    Acc *cols;       /* cols[band * cols_pad + c]: column sums and segment totals (kernel 2: of all bands above) */
    size_t rows_pad, cols_pad;
};

template <typename Acc>
__device__ __forceinline__ Carries<Acc> carries(satfeat_sat_work_header *hdr, int height, int strips)
{
    Carries<Acc> c;
    c.rows = reinterpret_cast<Acc *>(reinterpret_cast<char *>(hdr) + hdr->data_off);
    c.rows_pad = (size_t)satfeat_sat_2r1w_rows_pad(height);
    c.cols_pad = (size_t)satfeat_sat_2r1w_cols_pad(strips);
    c.cols = c.rows + (size_t)strips * c.rows_pad;
    return c;
}

/** Segment of this thread's group: strip j, rows [y0, y1); false when past the last one. */
__device__ __forceinline__ bool my_segment(const SatGeom &g, int band, int *j, int *b, int *y0, int *y1)
{
    const long long seg = (long long)blockIdx.x * kWalkGroups + (threadIdx.x / kGroupLanes);
    if (seg >= (long long)g.tiles_x * g.tiles_y) return false;
    *j = (int)(seg % g.tiles_x);
    *b = (int)(seg / g.tiles_x);
    *y0 = *b * band;
    *y1 = min(*y0 + band, g.height + 1);
    return true;
}

/** Loads rows y..y+U-1 of a segment (rows at or past y1 read as zeros, without loads) and, if
 * `carry` is given, their row carries. */
template <bool VEC, typename In, int U>
__device__ __forceinline__ void load_batch(const SatGeom &g, int y, int y1, int x0, int lane,
                                           WalkRow<In> (&r)[U], const typename SatTypes<In>::Acc *carry,
                                           typename SatTypes<In>::Acc (&c)[U])
{
    using Acc = typename SatTypes<In>::Acc;
#pragma unroll
    for (int u = 0; u < U; u++) {
        const bool ok = y + u < y1;
        load_walk_row<VEC, In>(g, ok ? y + u : 0, x0, lane, r[u]);
        c[u] = (carry && ok) ? __ldg(carry + y + u) : Acc(0);
    }
}

/**
 * Kernel 1. One group of 8 lanes per segment (kWalkGroups segments per block): walks the
 * segment's rows, reading the image once, and writes each row's sum over the segment to
 * rows[strip][y], each table column's sum over the band to cols[band][x] and the segment's
 * total to cols[band][strips * 128 + strip].
 */
template <bool VEC, typename In>
static __global__ void __launch_bounds__(kWalkThreads)
    reduce_segments(SatGeom g, int band, satfeat_sat_work_header *hdr)
{
    using Acc = typename SatTypes<In>::Acc;
    constexpr int U = WalkBatch<In>::kRows;
    int j, b, y0, y1;
    if (!my_segment(g, band, &j, &b, &y0, &y1)) return;
    const int lane = threadIdx.x % kGroupLanes;
    const unsigned mask = group_mask();
    const int x0 = j * kStripCols;
    const Carries<Acc> cr = carries<Acc>(hdr, g.height, g.tiles_x);
    Acc *rows = cr.rows + (size_t)j * cr.rows_pad;
    Acc col[kLaneCols]; /* sums of the lane's input columns (chunk-major) */
#pragma unroll
    for (int k = 0; k < kLaneCols; k++) col[k] = Acc(0);
    Acc col_left = Acc(0); /* lane 0: sum of input column x0 - 1 */
    WalkRow<In> cur[U];
    Acc unused[U];
    load_batch<VEC, In, U>(g, y0, y1, x0, lane, cur, nullptr, unused);
    for (int y = y0; y < y1; y += U) {
        WalkRow<In> nxt[U];
        load_batch<VEC, In, U>(g, y + U, y1, x0, lane, nxt, nullptr, unused);
#pragma unroll
        for (int u = 0; u < U; u++) {
            Acc s = Acc(0);
#pragma unroll
            for (int k = 0; k < kLaneCols - 1; k++) {
                const Acc e = raw_elem(cur[u].raw, k);
                col[k] += e;
                s += e;
            }
            const Acc last = raw_elem(cur[u].raw, kLaneCols - 1);
            col[kLaneCols - 1] += last;
            if (lane != kGroupLanes - 1) s += last; /* input column x0 + 127 is the next strip's */
            if (lane == 0) {
                s += cur[u].left;
                col_left += cur[u].left;
            }
            s = group_sum(s, mask);
            if (lane == 0 && y + u < y1) rows[y + u] = s;
        }
#pragma unroll
        for (int u = 0; u < U; u++) cur[u] = nxt[u];
    }
    /* table column X holds input column X - 1 */
    Acc v[kLaneCols];
    shift_in(col, col_left, lane, mask, v);
    Acc *cols = cr.cols + (size_t)b * cr.cols_pad;
    using Vec = typename AccVec<Acc>::type;
#pragma unroll
    for (int i = 0; i < 4; i++)
        *reinterpret_cast<Vec *>(cols + x0 + chunk_col(i, lane)) = Vec{v[4 * i], v[4 * i + 1], v[4 * i + 2], v[4 * i + 3]};
    Acc t = v[0];
#pragma unroll
    for (int k = 1; k < kLaneCols; k++) t += v[k];
    t = group_sum(t, mask);
    if (lane == 0) cols[(size_t)g.tiles_x * kStripCols + j] = t;
}

/**
 * Kernel 2. Turns the carries into exclusive prefix sums: blocks [0, row_blocks) each take 32
 * row lines (table row y: rows[j][y] for strips j = 0..strips-1), the other blocks 32 column
 * lines (entry c of cols[i][c] for bands i = 0..bands-1: a table column, or a segment total).
 * Each line is cut into 8 chunks, one per warp: a warp sums its chunk, the chunk sums are
 * combined in shared memory, and the chunk is rewritten exclusively. Reads each carry twice and
 * writes it once; touches nothing else.
 */
template <typename Acc>
static __global__ void __launch_bounds__(kScanThreads)
    scan_carries(satfeat_sat_work_header *hdr, int height, int strips, int bands, int row_blocks)
{
    __shared__ Acc part[kScanChunks][32];
    const int lane = threadIdx.x & 31;
    const int chunk = threadIdx.x >> 5;
    const Carries<Acc> cr = carries<Acc>(hdr, height, strips);
    Acc *base;
    size_t step;
    long long line, nlines;
    int len;
    if ((int)blockIdx.x < row_blocks) {
        line = (long long)blockIdx.x * 32 + lane;
        nlines = (long long)height + 1;
        len = strips;
        step = cr.rows_pad;
        base = cr.rows + (size_t)line;
    } else {
        line = (long long)(blockIdx.x - row_blocks) * 32 + lane;
        nlines = (long long)strips * (kStripCols + 1);
        len = bands;
        step = cr.cols_pad;
        base = cr.cols + (size_t)line;
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
 * Kernel 3. One group of 8 lanes per segment: starts from the column carries of the band (the
 * sums of everything above it, scanned along the strip) and the corner (everything above and
 * left of the segment), then walks the segment's rows, reading the image a second time, and
 * writes each row of the table: the row's prefix inside the strip plus the row carry (the sum of
 * the row left of the strip) accumulated over the band, plus the starting carries. Loads of the
 * next batch of rows are issued before the current batch is scanned and stored.
 */
template <bool VEC, typename In>
static __global__ void __launch_bounds__(kWalkThreads)
    apply_carries(SatGeom g, int band, satfeat_sat_work_header *hdr)
{
    using Acc = typename SatTypes<In>::Acc;
    constexpr int U = WalkBatch<In>::kRows;
    int j, b, y0, y1;
    if (!my_segment(g, band, &j, &b, &y0, &y1)) return;
    const int lane = threadIdx.x % kGroupLanes;
    const unsigned mask = group_mask();
    const int x0 = j * kStripCols;
    const Carries<Acc> cr = carries<Acc>(hdr, g.height, g.tiles_x);
    const Acc *rows = cr.rows + (size_t)j * cr.rows_pad;
    const Acc *cols = cr.cols + (size_t)b * cr.cols_pad;
    WalkRow<In> cur[U];
    Acc cur_c[U];
    load_batch<VEC, In, U>(g, y0, y1, x0, lane, cur, rows, cur_c);
    /* corner: the band-scanned totals of the segments left of this one in the band */
    Acc corner = Acc(0);
    for (int q = lane; q < j; q += kGroupLanes) corner += __ldg(cols + (size_t)g.tiles_x * kStripCols + q);
    corner = group_sum(corner, mask);
    /* r[4 i + m]: everything above the band in columns x0 .. x0 + 32 i + 4 lane + m */
    Acc r[kLaneCols];
    {
        using Vec = typename AccVec<Acc>::type;
#pragma unroll
        for (int i = 0; i < 4; i++) {
            const Vec q = __ldg(reinterpret_cast<const Vec *>(cols + x0 + chunk_col(i, lane)));
            r[4 * i] = q.x;
            r[4 * i + 1] = q.y;
            r[4 * i + 2] = q.z;
            r[4 * i + 3] = q.w;
        }
        row_prefix_full(r, lane, mask);
    }
    Acc lane_run[4] = {Acc(0), Acc(0), Acc(0), Acc(0)}; /* per chunk: sum over walked rows of the strip columns before this lane's piece */
    Acc left_run = corner; /* corner + sum over walked rows of the row left of the strip */
    for (int y = y0; y < y1; y += U) {
        WalkRow<In> nxt[U];
        Acc nxt_c[U];
        load_batch<VEC, In, U>(g, y + U, y1, x0, lane, nxt, rows, nxt_c);
#pragma unroll
        for (int u = 0; u < U; u++) {
            Acc o[kLaneCols];
            carry_row<In>(cur[u], lane, mask, cur_c[u], r, lane_run, left_run, o);
            if (y + u < y1) store16<VEC>(g, y + u, x0, lane, o);
        }
#pragma unroll
        for (int u = 0; u < U; u++) {
            cur[u] = nxt[u];
            cur_c[u] = nxt_c[u];
        }
    }
}

template <bool VEC, typename In>
cudaError_t launch_walk(const satfeat_sat_launch *l, const char **failed)
{
    using Acc = typename SatTypes<In>::Acc;
    const int band = l->tile;
    SatGeom g{l->src, l->src_stride, l->dst, l->dst_stride, l->width, l->height,
              satfeat_sat_tiles_x(l->width, kStripCols), satfeat_sat_tiles_y(l->height, band)};
    cudaStream_t s = static_cast<cudaStream_t>(l->stream);
    auto *hdr = static_cast<satfeat_sat_work_header *>(l->work);
    const long long segments = (long long)g.tiles_x * g.tiles_y;
    const unsigned blocks = (unsigned)((segments + kWalkGroups - 1) / kWalkGroups);
    reduce_segments<VEC, In><<<blocks, kWalkThreads, 0, s>>>(g, band, hdr);
    cudaError_t e = cudaPeekAtLastError();
    if (e != cudaSuccess) {
        *failed = "2R1W kernel 1 (reduce_segments) launch";
        return e;
    }
    const int row_blocks = (int)(((long long)g.height + 1 + 31) / 32);
    const int col_blocks = (int)(((long long)g.tiles_x * (kStripCols + 1) + 31) / 32);
    scan_carries<Acc><<<row_blocks + col_blocks, kScanThreads, 0, s>>>(hdr, g.height, g.tiles_x,
                                                                       g.tiles_y, row_blocks);
    e = cudaPeekAtLastError();
    if (e != cudaSuccess) {
        *failed = "2R1W kernel 2 (scan_carries) launch";
        return e;
    }
    apply_carries<VEC, In><<<blocks, kWalkThreads, 0, s>>>(g, band, hdr);
    e = cudaPeekAtLastError();
    if (e != cudaSuccess) *failed = "2R1W kernel 3 (apply_carries) launch";
    return e;
}

template <typename In>
cudaError_t launch_2r1w(const satfeat_sat_launch *l, const char **failed)
{
    if (l->tile != 32 && l->tile != 64 && l->tile != 128) {
        *failed = "2R1W band height";
        return cudaErrorInvalidValue;
    }
    return walk_vector_ok(l->src, l->src_stride, l->dst, l->dst_stride) ? launch_walk<true, In>(l, failed)
                                                                         : launch_walk<false, In>(l, failed);
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
