/* sat_walk.cuh - device pieces of the row-walking 2R1W kernels: a segment of the padded image
 * (kStripCols = 128 table columns x a band of rows) is handled by one group of 8 consecutive
 * lanes; lane l owns the 16 consecutive columns x0 + 16 l .. x0 + 16 l + 15 and walks down the
 * rows of the band. A row of a segment is loaded as one 16-byte vector per lane (u8) or four
 * (f32), kept raw ("Raw16": 16 bytes per 4 bytes of input element size) until it is used, so
 * that several rows can be in flight while earlier ones are scanned and stored.
 *
 * Table column X holds input column X - 1 (the padded image P of sat_layout.h): a lane loads
 * the aligned input columns x0 + 16 l .. + 15 and takes the element left of them from the
 * previous lane; the first lane of the group loads that element itself. */
#ifndef SATFEAT_SAT_WALK_CUH
#define SATFEAT_SAT_WALK_CUH

#include "sat/sat_types.cuh"
#include "sat/sat_tuning.h"

namespace satfeat_sat {

constexpr int kGroupLanes = 8;
constexpr int kLaneCols = 16;
constexpr int kStripCols = kGroupLanes * kLaneCols; /* 128 */
static_assert(SATFEAT_SAT_TUNE_WALK_THREADS % 32 == 0, "walk blocks are whole warps");
constexpr int kWalkThreads = SATFEAT_SAT_TUNE_WALK_THREADS;
constexpr int kWalkGroups = kWalkThreads / kGroupLanes;

/** Raw input of one lane's 16 columns of one row: 16 bytes per byte of input element. */
template <typename In>
struct Raw16 {
    uint4 q[sizeof(In)];
};

/** Rows loaded ahead per batch of the walk (registers: 16 x batch x sizeof(In) bytes). */
template <typename In>
struct WalkBatch {
    static constexpr int kRows = sizeof(In) == 1 ? SATFEAT_SAT_TUNE_WALK_BATCH_U8 : SATFEAT_SAT_TUNE_WALK_BATCH_F32;
};

/** Mask of the 8 lanes of this thread's group (shuffles stay inside the group). */
__device__ __forceinline__ unsigned group_mask()
{
    return 0xffu << (threadIdx.x & 24u);
}

/** Lane `lane`'s first column of chunk i, relative to the strip. */
__device__ __forceinline__ int chunk_col(int i, int lane)
{
    return 32 * i + 4 * lane;
}

/** Loads the lane's 16 input columns of one row (`row` null: a row of zeros); columns at or
 * past `width` read as 0. VEC: one 4-byte (u8) or 16-byte (f32) load per chunk inside the row. */
template <bool VEC, typename In>
__device__ __forceinline__ void load_raw16(const In *row, int x0, int lane, int width, Raw16<In> &r)
{
    uint32_t w[4 * sizeof(In)];
#pragma unroll
    for (int i = 0; i < 4 * (int)sizeof(In); i++) w[i] = 0u;
    if (row) {
#pragma unroll
        for (int i = 0; i < 4; i++) {
            const int xa = x0 + chunk_col(i, lane);
            if (VEC && xa + 4 <= width) {
                if (sizeof(In) == 1) {
                    w[i] = __ldg(reinterpret_cast<const unsigned int *>(row + xa));
                } else {
                    const uint4 q = __ldg(reinterpret_cast<const uint4 *>(row + xa));
                    w[4 * i] = q.x;
                    w[4 * i + 1] = q.y;
                    w[4 * i + 2] = q.z;
                    w[4 * i + 3] = q.w;
                }
            } else {
#pragma unroll
                for (int m = 0; m < 4; m++) {
                    if (xa + m < width) {
                        if (sizeof(In) == 1)
                            w[i] |= (uint32_t)__ldg(reinterpret_cast<const uint8_t *>(row) + xa + m) << (8 * m);
                        else
                            w[4 * i + m] = __float_as_uint(__ldg(reinterpret_cast<const float *>(row) + xa + m));
                    }
                }
            }
        }
    }
#pragma unroll
    for (int i = 0; i < (int)sizeof(In); i++) r.q[i] = make_uint4(w[4 * i], w[4 * i + 1], w[4 * i + 2], w[4 * i + 3]);
}

/** Element k = 4 i + m (chunk i, column m) of a raw row as an accumulator value. */
__device__ __forceinline__ uint32_t raw_elem(const Raw16<uint8_t> &r, int k)
{
    const uint4 q = r.q[0];
    const uint32_t w = k < 4 ? q.x : k < 8 ? q.y : k < 12 ? q.z : q.w;
    return (w >> (8 * (k % 4))) & 0xffu;
}

__device__ __forceinline__ float raw_elem(const Raw16<float> &r, int k)
{
    const uint4 q = r.q[k / 4];
    const uint32_t w = k % 4 == 0 ? q.x : k % 4 == 1 ? q.y : k % 4 == 2 ? q.z : q.w;
    return __uint_as_float(w);
}

/** The input row of table row y (y - 1), or null for the zero row y = 0. */
template <typename In>
__device__ __forceinline__ const In *input_row(const SatGeom &g, int y)
{
    return y >= 1 ? reinterpret_cast<const In *>(static_cast<const char *>(g.src) +
                                                 (size_t)(y - 1) * g.src_stride)
                  : nullptr;
}

/** One row as loaded: the lane's raw 16 input columns and, for lane 0, the element left of the
 * segment (input column x0 - 1). */
template <typename In>
struct WalkRow {
    Raw16<In> raw;
    typename SatTypes<In>::Acc left;
};

template <bool VEC, typename In>
__device__ __forceinline__ void load_walk_row(const SatGeom &g, int y, int x0, int lane,
                                              WalkRow<In> &r)
{
    using Acc = typename SatTypes<In>::Acc;
    const In *row = input_row<In>(g, y);
    load_raw16<VEC>(row, x0, lane, g.width, r.raw);
    r.left = (row && lane == 0 && x0 > 0) ? (Acc)__ldg(row + x0 - 1) : Acc(0);
}

/** Shifts the lane's 16 input-column values e (chunk-major) by one column: v[4 i + m] becomes
 * the value of table column x0 + 32 i + 4 l + m, i.e. input column one to the left; `left` is
 * the value left of the strip (used by lane 0). Four shuffles. */
template <typename Acc>
__device__ __forceinline__ void shift_in(const Acc (&e)[kLaneCols], Acc left, int lane,
                                         unsigned mask, Acc (&v)[kLaneCols])
{
    const int from = (threadIdx.x & ~7u) | ((lane + kGroupLanes - 1) & (kGroupLanes - 1));
    Acc before = left; /* lane 0: lane 7's last column of the previous chunk */
#pragma unroll
    for (int i = 0; i < 4; i++) {
        const Acc got = __shfl_sync(mask, e[4 * i + 3], from & 31);
        v[4 * i] = lane == 0 ? before : got;
        before = got;
#pragma unroll
        for (int m = 1; m < 4; m++) v[4 * i + m] = e[4 * i + m - 1];
    }
}

/** The 16 table-column values of a loaded row. */
template <typename In>
__device__ __forceinline__ void walk_values(const WalkRow<In> &r, int lane, unsigned mask,
                                            typename SatTypes<In>::Acc (&v)[kLaneCols])
{
    typename SatTypes<In>::Acc e[kLaneCols];
#pragma unroll
    for (int k = 0; k < kLaneCols; k++) e[k] = raw_elem(r.raw, k);
    shift_in(e, r.left, lane, mask, v);
}

/** Turns v into its prefix inside each 4-column piece and returns in ex[i] what must be added
 * to chunk i's piece for the prefix along the strip: the totals of the chunks before it plus the
 * pieces of the lanes before this one (3 shuffle steps on four values). */
template <typename Acc>
__device__ __forceinline__ void row_prefix(Acc (&v)[kLaneCols], int lane, unsigned mask, Acc (&ex)[4])
{
    Acc s[4];
#pragma unroll
    for (int i = 0; i < 4; i++) {
        v[4 * i + 1] += v[4 * i];
        v[4 * i + 2] += v[4 * i + 1];
        v[4 * i + 3] += v[4 * i + 2];
        s[i] = v[4 * i + 3];
    }
#pragma unroll
    for (int d = 1; d < kGroupLanes; d *= 2) {
#pragma unroll
        for (int i = 0; i < 4; i++) {
            const Acc o = __shfl_up_sync(mask, s[i], d, kGroupLanes);
            if (lane >= d) s[i] += o;
        }
    }
    Acc before = Acc(0);
#pragma unroll
    for (int i = 0; i < 4; i++) {
        const Acc e = __shfl_up_sync(mask, s[i], 1, kGroupLanes);
        ex[i] = lane == 0 ? before : before + e;
        if (i < 3) before += __shfl_sync(mask, s[i], kGroupLanes - 1, kGroupLanes);
    }
}

/** Turns v into its prefix along the strip (row_prefix plus the chunk offsets), in place. */
template <typename Acc>
__device__ __forceinline__ void row_prefix_full(Acc (&v)[kLaneCols], int lane, unsigned mask)
{
    Acc ex[4];
    row_prefix(v, lane, mask, ex);
#pragma unroll
    for (int k = 0; k < kLaneCols; k++) v[k] += ex[k / 4];
}

/**
 * One output row of the carry walk that both algorithms end with: adds the row's values to the
 * running column sums r (r[4 i + m]: everything above in column x0 + 32 i + 4 lane + m), its
 * in-row prefix to the per-chunk runs lane_run, its row carry to left_run (everything left of
 * the strip), and writes the table row o = r + lane_run + left_run, chunk by chunk, in that
 * order of operations (the f32 results depend on it). The row carry is taken by reference so
 * that it is read where the kernels read it before the helper existed (after the row prefix).
 */
template <typename In>
__device__ __forceinline__ void carry_row(const WalkRow<In> &row, int lane, unsigned mask,
                                          const typename SatTypes<In>::Acc &row_carry,
                                          typename SatTypes<In>::Acc (&r)[kLaneCols],
                                          typename SatTypes<In>::Acc (&lane_run)[4],
                                          typename SatTypes<In>::Acc &left_run,
                                          typename SatTypes<In>::Acc (&o)[kLaneCols])
{
    using Acc = typename SatTypes<In>::Acc;
    Acc v[kLaneCols];
    walk_values(row, lane, mask, v);
    Acc ex[4];
    row_prefix(v, lane, mask, ex);
    left_run += row_carry;
#pragma unroll
    for (int i = 0; i < 4; i++) {
        lane_run[i] += ex[i];
        const Acc add = lane_run[i] + left_run;
#pragma unroll
        for (int m = 0; m < 4; m++) {
            r[4 * i + m] += v[4 * i + m];
            o[4 * i + m] = r[4 * i + m] + add;
        }
    }
}

/** Sum over the 8 lanes of the group (butterfly; every lane gets it). */
template <typename Acc>
__device__ __forceinline__ Acc group_sum(Acc s, unsigned mask)
{
#pragma unroll
    for (int d = kGroupLanes / 2; d >= 1; d /= 2) s += __shfl_xor_sync(mask, s, d, kGroupLanes);
    return s;
}

/** Stores the lane's 16 entries (chunk-major) of table row y of the strip at x0; columns past
 * `width` (the table has width+1 columns) are skipped. VEC: a 16-byte store per chunk inside. */
template <bool VEC, typename Acc>
__device__ __forceinline__ void store16(const SatGeom &g, int y, int x0, int lane, const Acc (&o)[kLaneCols])
{
    Acc *row = reinterpret_cast<Acc *>(static_cast<char *>(g.dst) + (size_t)y * g.dst_stride);
    using Vec = typename AccVec<Acc>::type;
#pragma unroll
    for (int i = 0; i < 4; i++) {
        const int x = x0 + chunk_col(i, lane);
        if (VEC && x + 3 <= g.width) {
            *reinterpret_cast<Vec *>(row + x) = Vec{o[4 * i], o[4 * i + 1], o[4 * i + 2], o[4 * i + 3]};
        } else {
#pragma unroll
            for (int m = 0; m < 4; m++)
                if (x + m <= g.width) row[x + m] = o[4 * i + m];
        }
    }
}

/** Whether pointers and strides allow the walk's vector paths (16-byte loads and stores). */
inline bool walk_vector_ok(const void *src, size_t src_stride, const void *dst, size_t dst_stride)
{
    return ((uintptr_t)src % 16) == 0 && src_stride % 16 == 0 && ((uintptr_t)dst % 16) == 0 &&
           dst_stride % 16 == 0;
}

} // namespace satfeat_sat

#endif
