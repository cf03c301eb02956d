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

#include "sat_tile.cuh"
#include "sat_tuning.h"

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

/** Loads input columns xa..xa+15 of one row (`row` null: a row of zeros); columns at or past
 * `width` read as 0. VEC: vector loads when all 16 lie inside the row. */
template <bool VEC, typename In>
__device__ __forceinline__ void load_raw16(const In *row, int xa, int width, Raw16<In> &r)
{
    if (row && VEC && xa + kLaneCols <= width) {
        const uint4 *p = reinterpret_cast<const uint4 *>(row + xa);
#pragma unroll
        for (int i = 0; i < (int)sizeof(In); i++) r.q[i] = __ldg(p + i);
        return;
    }
    uint32_t w[4 * sizeof(In)];
#pragma unroll
    for (int i = 0; i < 4 * (int)sizeof(In); i++) w[i] = 0u;
    if (row) {
#pragma unroll
        for (int k = 0; k < kLaneCols; k++) {
            if (xa + k < width) {
                if (sizeof(In) == 1)
                    w[k / 4] |= (uint32_t)__ldg(reinterpret_cast<const uint8_t *>(row) + xa + k) << (8 * (k % 4));
                else
                    w[k] = __float_as_uint(__ldg(reinterpret_cast<const float *>(row) + xa + k));
            }
        }
    }
#pragma unroll
    for (int i = 0; i < (int)sizeof(In); i++) r.q[i] = make_uint4(w[4 * i], w[4 * i + 1], w[4 * i + 2], w[4 * i + 3]);
}

/** Element k (0..15) of a raw row as an accumulator value. */
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
    load_raw16<VEC>(row, x0 + kLaneCols * lane, g.width, r.raw);
    r.left = (row && lane == 0 && x0 > 0) ? (Acc)__ldg(row + x0 - 1) : Acc(0);
}

/** The 16 table-column values v[k] = P(x0 + 16 lane + k, y) of a loaded row (one shuffle). */
template <typename In>
__device__ __forceinline__ void walk_values(const WalkRow<In> &r, int lane, unsigned mask,
                                            typename SatTypes<In>::Acc (&v)[kLaneCols])
{
    using Acc = typename SatTypes<In>::Acc;
    const Acc last = raw_elem(r.raw, kLaneCols - 1);
    const Acc prev = __shfl_up_sync(mask, last, 1, kGroupLanes);
    v[0] = lane == 0 ? r.left : prev;
#pragma unroll
    for (int k = 1; k < kLaneCols; k++) v[k] = raw_elem(r.raw, k - 1);
}

/** In-lane inclusive prefix of v, then the exclusive sum of the lanes before this one in the
 * group (3 shuffle steps). */
template <typename Acc>
__device__ __forceinline__ Acc row_prefix(Acc (&v)[kLaneCols], int lane, unsigned mask)
{
#pragma unroll
    for (int k = 1; k < kLaneCols; k++) v[k] += v[k - 1];
    Acc s = v[kLaneCols - 1];
#pragma unroll
    for (int d = 1; d < kGroupLanes; d *= 2) {
        const Acc o = __shfl_up_sync(mask, s, d, kGroupLanes);
        if (lane >= d) s += o;
    }
    Acc ex = __shfl_up_sync(mask, s, 1, kGroupLanes);
    return lane == 0 ? Acc(0) : ex;
}

/** Sum over the 8 lanes of the group (butterfly; every lane gets it). */
template <typename Acc>
__device__ __forceinline__ Acc group_sum(Acc s, unsigned mask)
{
#pragma unroll
    for (int d = kGroupLanes / 2; d >= 1; d /= 2) s += __shfl_xor_sync(mask, s, d, kGroupLanes);
    return s;
}

/** Stores the lane's 16 entries of table row y at columns x..x+15; columns past `width` (the
 * table has width+1 columns) are skipped. VEC: four 16-byte stores when all 16 lie inside. */
template <bool VEC, typename Acc>
__device__ __forceinline__ void store16(const SatGeom &g, int y, int x, const Acc (&o)[kLaneCols])
{
    Acc *row = reinterpret_cast<Acc *>(static_cast<char *>(g.dst) + (size_t)y * g.dst_stride);
    if (VEC && x + kLaneCols - 1 <= g.width) {
        using Vec = typename AccVec<Acc>::type;
        Vec *p = reinterpret_cast<Vec *>(row + x);
#pragma unroll
        for (int i = 0; i < kLaneCols / 4; i++) p[i] = Vec{o[4 * i], o[4 * i + 1], o[4 * i + 2], o[4 * i + 3]};
    } else {
#pragma unroll
        for (int k = 0; k < kLaneCols; k++)
            if (x + k <= g.width) row[x + k] = o[k];
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
