/* sat_stage.cuh - asynchronous staging of one SKSS-LB input tile in shared memory, for the
 * persistent SKSS-LB kernel (sat_skss_lb.cu): while a block works on one tile, the input of its
 * next ticket's tile is already on its way into shared memory, and the block later moves it into
 * the walk's registers (WalkRow of sat_walk.cuh) from there.
 *
 * A staged tile is T rows x 128 input columns x0 .. x0 + 127 (x0 = 128 tj, the tile's table
 * columns are input columns x0 - 1 .. x0 + 126) as 16-byte chunks, 8 (u8) or 32 (f32) per row,
 * and T words with the element left of the tile (input column x0 - 1) for each row. Row r of
 * the tile is table row T ti + r, i.e. input row T ti + r - 1; rows outside the image and
 * columns at or past the width are zeros. On sm_80 and later the chunks travel by cp.async with
 * zero fill (16 bytes, or 4 for the left words); older GPUs copy them with ordinary loads and
 * shared stores. Only the vector path (16-byte aligned image rows) is staged. */
#ifndef SATFEAT_SAT_STAGE_CUH
#define SATFEAT_SAT_STAGE_CUH

#include "sat_walk.cuh"

namespace satfeat_sat {

/** 16-byte chunks per staged row. */
template <typename In>
struct StageShape {
    static constexpr int kChunks = kStripCols * (int)sizeof(In) / 16;
};

/** Bytes of shared memory one staged tile of T rows takes (chunks, then the left words). */
template <int T, typename In>
constexpr size_t stage_bytes()
{
    return (size_t)T * StageShape<In>::kChunks * 16u + (size_t)T * 4u;
}

/** Chunk slot of chunk k of tile row r. u8: the groups of a warp read words 8 i + l of four
 * different rows (rows r / RPG = group), all in the same 8 banks unless the chunk pairs are
 * moved apart: chunk k goes to k ^ 2 (group mod 4), which keeps each 16-byte chunk whole and the
 * 32 reads of a warp on 32 different banks. f32: each group's 8 lanes read 128 contiguous bytes
 * per 16-byte access phase already, so nothing moves. */
template <int RPG, typename In>
__device__ __forceinline__ int stage_slot(int r, int k)
{
    return sizeof(In) == 1 ? (k ^ (((r / RPG) & 3) << 1)) : k;
}

/** Copies `bytes` (0 - 16) bytes from global `src` to shared `dst` and zeros the rest of the
 * 16, asynchronously where the GPU can (completed by stage_wait). */
__device__ __forceinline__ void stage_copy16(void *dst, const void *src, int bytes)
{
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
    const unsigned s = (unsigned)__cvta_generic_to_shared(dst);
    asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;\n" ::"r"(s), "l"(src), "r"(bytes) : "memory");
#else
    if (bytes == 16) {
        *static_cast<uint4 *>(dst) = __ldg(static_cast<const uint4 *>(src));
    } else {
        unsigned char *d = static_cast<unsigned char *>(dst);
        for (int i = 0; i < 16; i++) d[i] = i < bytes ? __ldg(static_cast<const unsigned char *>(src) + i) : 0;
    }
#endif
}

/** Copies 4 bytes (bytes = 4) or zeros (bytes = 0) into the shared word `dst`, like stage_copy16. */
__device__ __forceinline__ void stage_copy4(uint32_t *dst, const void *src, int bytes)
{
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
    const unsigned s = (unsigned)__cvta_generic_to_shared(dst);
    asm volatile("cp.async.ca.shared.global [%0], [%1], 4, %2;\n" ::"r"(s), "l"(src), "r"(bytes) : "memory");
#else
    *dst = bytes ? __ldg(static_cast<const uint32_t *>(src)) : 0u;
#endif
}

/** Closes the copies this thread issued since the last commit into one group. */
__device__ __forceinline__ void stage_commit()
{
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
    asm volatile("cp.async.commit_group;\n" ::: "memory");
#endif
}

/** Waits for every copy this thread issued (a block barrier must follow before others read). */
__device__ __forceinline__ void stage_wait()
{
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
    asm volatile("cp.async.wait_all;\n" ::: "memory");
#endif
}

/**
 * Issues (every thread of the block, NT threads) the copies of the input of tile (ti, tj) of T
 * rows into `chunks` (T x kChunks 16-byte slots) and `left` (T words), then commits them.
 */
template <int T, int NT, int RPG, typename In>
__device__ __forceinline__ void stage_tile(const SatGeom &g, int ti, int tj, uint4 *chunks, uint32_t *left)
{
    constexpr int K = StageShape<In>::kChunks;
    constexpr int kPerChunk = 16 / (int)sizeof(In); /* elements per chunk */
    const int x0 = tj * kStripCols;
    for (int c = threadIdx.x; c < T * K; c += NT) {
        const int r = c / K, k = c % K;
        const int y = ti * T + r; /* table row; input row y - 1 */
        const int xa = x0 + k * kPerChunk;
        int bytes = 0;
        const void *src = g.src;
        if (y >= 1 && y <= g.height && xa < g.width) {
            bytes = (g.width - xa >= kPerChunk ? kPerChunk : g.width - xa) * (int)sizeof(In);
            src = input_row<In>(g, y) + xa;
        }
        stage_copy16(&chunks[r * K + stage_slot<RPG, In>(r, k)], src, bytes);
    }
    for (int r = threadIdx.x; r < T; r += NT) {
        const int y = ti * T + r;
        const bool has = y >= 1 && y <= g.height && x0 > 0;
        /* the aligned word that ends with input column x0 - 1 (u8: its last byte) */
        const void *src = has ? static_cast<const void *>(input_row<In>(g, y) + x0 - 4 / (int)sizeof(In)) : g.src;
        stage_copy4(&left[r], src, has ? 4 : 0);
    }
    stage_commit();
}

/** Reads tile row r of a staged tile into a WalkRow: the lane's 16 columns and, for lane 0, the
 * element left of the tile (what load_walk_row reads from global memory). */
template <int RPG, typename In>
__device__ __forceinline__ void stage_read_row(const uint4 *chunks, const uint32_t *left, int r, int lane,
                                               WalkRow<In> &row)
{
    using Acc = typename SatTypes<In>::Acc;
    constexpr int K = StageShape<In>::kChunks;
    if (sizeof(In) == 1) {
        /* lane l's chunk i is input bytes 32 i + 4 l .. + 3: word l % 4 of 16-byte chunk 2 i + l / 4 */
        const uint32_t *words = reinterpret_cast<const uint32_t *>(chunks + r * K);
        uint32_t w[4];
#pragma unroll
        for (int i = 0; i < 4; i++) w[i] = words[4 * stage_slot<RPG, In>(r, 2 * i + lane / 4) + lane % 4];
        row.raw.q[0] = make_uint4(w[0], w[1], w[2], w[3]);
        row.left = lane == 0 ? (Acc)(left[r] >> 24) : Acc(0);
    } else {
        /* lane l's chunk i is input columns 32 i + 4 l .. + 3: 16-byte chunk 8 i + l */
#pragma unroll
        for (int i = 0; i < (int)sizeof(In); i++) row.raw.q[i] = chunks[r * K + stage_slot<RPG, In>(r, 8 * i + lane)];
        row.left = lane == 0 ? (Acc)__uint_as_float(left[r]) : Acc(0);
    }
}

} // namespace satfeat_sat

#endif
