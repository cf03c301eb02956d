/* sat_skss_lb.cu - the single-kernel 1R1W-SKSS-LB SAT (seed 002): one block per tile of 128 table
 * columns x T table rows, tiles handed out by ticket in diagonal-major order (sat_ticket.h),
 * carries obtained by looking back left and up at what earlier tiles published, and the corner
 * along the diagonal (larger grids) or from the totals of the tiles up-left (grids of about one
 * wave). Inside a tile each group of 8 lanes owns T/32 consecutive rows, keeps them raw in
 * registers (u8 rows packed 4 per 32-bit word), and walks them twice: once for the local sums,
 * once with the carries to write the table. u8 walks runs of 16 columns a lane with packed-byte
 * arithmetic (sat_run_u8.cuh), f32 the chunks of sat_walk.cuh. One read and one write per
 * element.
 *
 * Synchronisation between blocks: every value a tile publishes for others (a row or column sum,
 * a corner sum, a total) is one 64-bit pair of the work buffer's pair region (sat_layout.h): the
 * launch's tag, the value's state (the tile's local sum or the global one) and its 32 bits,
 * written with one relaxed store at device scope. A reader loads the pair (relaxed, device scope)
 * until it carries this launch's tag and takes the value from the same load, so no fence, flag or
 * barrier stands between a tile's sums and its successors (the flag and value packed in one word
 * of Merrill and Garland's single-pass scan). Each thread looks back for its own element, nearest
 * tile first, adding local sums until it meets a global one. Pairs left by earlier launches carry
 * older tags and nothing is reset between launches. The header's ticket word holds the tickets
 * taken (low half) and the last launch's tag (high half), so the one atomic that gives a block
 * its ticket also gives it the launch's tag; the block that takes the last ticket stores the
 * launch's tag with no tickets taken for the next launch. */
#include "sat/sat_kernels.h"
#include "sat/sat_ticket.h"
#include "sat/sat_run_u8.cuh"
#include "sat/sat_walk.cuh"

#include <cuda/atomic>
#include <cuda_runtime.h>
#include <type_traits>

namespace satfeat_sat {
namespace {

using PairRef = cuda::atomic_ref<unsigned long long, cuda::thread_scope_device>;

/** The 32 bits of an accumulator value and back (u32 as it is, f32 by its bit pattern). */
template <typename Acc>
struct AccBits;

template <>
struct AccBits<uint32_t> {
    __device__ static uint32_t to(uint32_t v) { return v; }
    __device__ static uint32_t from(uint32_t b) { return b; }
};

template <>
struct AccBits<float> {
    __device__ static uint32_t to(float v) { return __float_as_uint(v); }
    __device__ static float from(uint32_t b) { return __uint_as_float(b); }
};

/** Publishes value v of the launch with tag `tag` (global: an inclusive sum) in *p. */
template <typename Acc>
__device__ __forceinline__ void publish(unsigned long long *p, uint32_t tag, bool global, Acc v)
{
    PairRef(*p).store(satfeat_sat_pair(tag, global, AccBits<Acc>::to(v)), cuda::memory_order_relaxed);
}

__device__ __forceinline__ unsigned long long pair_load(unsigned long long *p)
{
    return PairRef(*p).load(cuda::memory_order_relaxed);
}

/**
 * Decoupled look-back of E elements of one thread over `count` earlier tiles, nearest first: tile
 * k (0 .. count-1) has element e's pair at pairs[(first - k step) len + elem + e estride]. The
 * pairs of B tiles are loaded together (all in flight, every element still open), then taken in
 * order: a pair without this launch's tag is re-read until it has it, a local value is added and
 * the element's walk goes on, a global one is added and ends it (the order of a tile-by-tile
 * walk, so f32 sums add in the same order). Leaves the sums in acc.
 */
template <int B, int E, typename Acc>
__device__ __forceinline__ void look_back(unsigned long long *pairs, long long first, long long step,
                                          int count, int len, int elem, int estride, uint32_t tag,
                                          Acc (&acc)[E])
{
    bool open[E];
#pragma unroll
    for (int e = 0; e < E; e++) {
        acc[e] = Acc(0);
        open[e] = true;
    }
    for (int k0 = 0; k0 < count; k0 += B) {
        unsigned long long p[E][B];
#pragma unroll
        for (int e = 0; e < E; e++)
#pragma unroll
            for (int u = 0; u < B; u++)
                if (open[e] && k0 + u < count)
                    p[e][u] = pair_load(&pairs[(first - (long long)(k0 + u) * step) * len + elem + e * estride]);
        bool more = false;
#pragma unroll
        for (int e = 0; e < E; e++) {
#pragma unroll
            for (int u = 0; u < B; u++) {
                if (!open[e] || k0 + u >= count) break;
                while (!satfeat_sat_pair_ready(p[e][u], tag)) {
                    __nanosleep(32);
                    p[e][u] = pair_load(&pairs[(first - (long long)(k0 + u) * step) * len + elem + e * estride]);
                }
                acc[e] += AccBits<Acc>::from((uint32_t)p[e][u]);
                if (satfeat_sat_pair_global(p[e][u])) open[e] = false;
            }
            more = more || open[e];
        }
        if (!more) return;
    }
}

/** The one-element look-back (look_back with E = 1): returns the sum. */
template <int B, typename Acc>
__device__ __forceinline__ Acc look_back1(unsigned long long *pairs, long long first, long long step,
                                          int count, int len, int elem, uint32_t tag)
{
    Acc acc[1];
    look_back<B, 1, Acc>(pairs, first, step, count, len, elem, 0, tag, acc);
    return acc[0];
}

/** Threads of an SKSS-LB block: 32 groups of 8 lanes; threads [0, min(T, 128)) look back along
 * the rows (rows t and t + 128 on u8 tiles of 256 rows), threads [128, 256) up the columns. */
constexpr int kSkssThreads = 2 * kStripCols;
constexpr int kSkssGroups = kSkssThreads / kGroupLanes;

/** The pairs of one launch of n tiles of T rows (sat_layout.h): one per row of each tile, one
 * per column, one per tile (corner sums, or on RECT grids the tile's total). */
struct SkssPairs {
    unsigned long long *row, *col, *tile;
};

__device__ __forceinline__ SkssPairs skss_pairs(satfeat_sat_work_header *hdr, size_t n, int T)
{
    SkssPairs w;
    w.row = reinterpret_cast<unsigned long long *>(reinterpret_cast<char *>(hdr) +
                                                   SATFEAT_SAT_WORK_HEADER_BYTES);
    w.col = w.row + n * T;
    w.tile = w.col + n * kStripCols;
    return w;
}

/** Sum over the 32 lanes of a warp (butterfly). */
template <typename Acc>
__device__ __forceinline__ Acc warp_sum(Acc s)
{
#pragma unroll
    for (int d = 16; d >= 1; d /= 2) s += __shfl_xor_sync(0xffffffffu, s, d);
    return s;
}

/* Small grids take the corner from the totals of the tiles up-left (rect_corner); the per-lane
 * sums there (and the f32 bound of docs/PRECISION.md) assume at most 32 of them per lane. */
static_assert(SATFEAT_SAT_TUNE_SKSS_RECT_CORNER_TILES <= 1024,
              "the rectangle corner of SKSS-LB reads at most 1024 tile totals per tile");

/* Rectangle tiles a lane of rect_corner takes per round, their pairs loaded together: 8 a lane
 * cover 256 tiles a round, more than a whole 1080p grid (144 tiles), in one round trip. */
constexpr int kRectBatch = 8;
static_assert(kRectBatch >= 1 && kRectBatch <= 32, "rect_corner rounds: 1 to 32 tiles per lane");

/**
 * The corner of tile (ti, tj) on a RECT grid, by one whole warp: the sum of the totals of the
 * ti x tj tiles up-left of it (tile rows 0 .. ti-1, columns 0 .. tj-1), each published as its
 * tile's pair. Lane l takes the rectangle's tiles l, l + 32, l + 64, ... (row-major in the
 * rectangle) in rounds of kRectBatch: it loads their pairs together, re-reads those without this
 * launch's tag until they have it, and adds the totals in turn; the warp then adds its lanes' sums
 * (butterfly). Every such tile is on an earlier diagonal (earlier ticket).
 */
template <typename Acc>
__device__ __forceinline__ Acc rect_corner(unsigned long long *tile_pair, int ti, int tj, int tiles_x,
                                           uint32_t tag)
{
    const int lane = threadIdx.x & 31;
    const int count = ti * tj;
    Acc acc = Acc(0);
    for (int k0 = 0; k0 < count; k0 += 32 * kRectBatch) {
        int idx[kRectBatch]; /* tile indices: below SATFEAT_SAT_TUNE_SKSS_WINDOW_TILES */
        unsigned long long p[kRectBatch];
        unsigned pending = 0;
#pragma unroll
        for (int u = 0; u < kRectBatch; u++) {
            const int k = k0 + 32 * u + lane;
            idx[u] = k < count ? (k / tj) * tiles_x + k % tj : 0;
            if (k < count) pending |= 1u << u;
        }
        const unsigned present = pending;
        for (;;) {
#pragma unroll
            for (int u = 0; u < kRectBatch; u++)
                if ((pending >> u) & 1u) p[u] = pair_load(&tile_pair[idx[u]]);
#pragma unroll
            for (int u = 0; u < kRectBatch; u++)
                if (((pending >> u) & 1u) && satfeat_sat_pair_ready(p[u], tag)) pending &= ~(1u << u);
            if (!__any_sync(0xffffffffu, pending != 0)) break;
            __nanosleep(32);
        }
#pragma unroll
        for (int u = 0; u < kRectBatch; u++)
            if ((present >> u) & 1u) acc += AccBits<Acc>::from((uint32_t)p[u]);
    }
    return warp_sum(acc);
}

/* Tiles a thread's look-back loads together (look_back). Windowed grids (about one wave, where
 * most of a row's tiles publish only local sums) load 4, the most that keeps the u8 kernel at 80
 * registers; on larger grids a global sum is usually a few tiles back, so u8 loads 2 (faster than
 * 1 at 8192^2 and 16384^2) and f32 1 (2 was slower there). */
constexpr int kWindowBatch = 4;
constexpr int kWalkBatchU8 = 2;
constexpr int kWalkBatchF32 = 1;

/**
 * The whole SAT in one launch. One block (256 threads) per tile of 128 table columns x T table
 * rows, the tile chosen by ticket. Group q (8 lanes) loads the tile's rows q*T/32 .. +T/32-1 of
 * the padded image into registers (one read of the input) and walks them for its row sums and
 * its partial column sums; the block adds the groups' column partials in shared memory (also
 * giving each group the column sums of the rows above it in the tile). Thread r < T publishes
 * its row's local sum (the first tile column: the global one) as a pair and looks back left for
 * the sum of its row over all tiles to its left (adding local sums until it meets a global one),
 * then publishes its row's global sum; thread 128 + c does the same up column c. No barrier or
 * fence stands between a tile's sums and the look-backs of its successors. After the look-back
 * barrier, warp 0 forms the local corner sum (GLS = everything left, above and inside), publishes
 * it and, after looking back along the diagonal, publishes the global corner (GS). While the
 * look-backs run, the last thread already tries the diagonal look-back without waiting (grids of
 * SATFEAT_SAT_TUNE_SKSS_EARLY_CORNER_TILES and more); when that finds the corner, the block
 * publishes GS at once and its warps skip the barrier that waits for the corner. Finally each
 * group walks its kept rows again, adding the carries, and writes them (one write). WINDOW
 * (grids of at most SATFEAT_SAT_TUNE_SKSS_WINDOW_TILES tiles): look-backs load the pairs of
 * kWindowBatch tiles at once, larger grids kWalkBatchU8 / kWalkBatchF32. RECT
 * (grids of at most SATFEAT_SAT_TUNE_SKSS_RECT_CORNER_TILES tiles, windowed too) has no
 * diagonal: the block publishes its total (the sum of its inputs) with its local sums, and its
 * last warp, before its column look-back, adds the totals of the tiles up-left (rect_corner), so
 * the corner is known at the look-back barrier without waiting for the corner sums of the tiles
 * up-left, which come only after their own look-backs. The block that takes the last ticket
 * resets the ticket word for the next launch (nothing counts blocks at their end). In the launch
 * with the last tag, the last block to finish clears the pair region (sat_layout.h).
 */
/** Block-wide clear of the pair region (the launch with the last tag, its last block). */
__device__ void clear_pairs(satfeat_sat_work_header *hdr, uint64_t pair_bytes)
{
    uint4 *p = reinterpret_cast<uint4 *>(reinterpret_cast<char *>(hdr) + SATFEAT_SAT_WORK_HEADER_BYTES);
    for (uint64_t k = threadIdx.x; k < pair_bytes / sizeof(uint4); k += blockDim.x) p[k] = make_uint4(0, 0, 0, 0);
}

/* Blocks an SM the launch bounds ask for: u8 tiles of 256 rows 2 (up to 128 registers, no
 * spills; 3 would cap them at 80 registers and spill, which measured 2 - 3% slower at 12288^2 and
 * 16384^2); other tiles leave the register count to the compiler (0). */
template <int T>
constexpr int kMinBlocks = T > kStripCols ? 2 : 0;

template <int T, bool VEC, bool WINDOW, bool RECT, typename In>
static __global__ void __launch_bounds__(kSkssThreads, kMinBlocks<T>)
    skss_lb(SatGeom g, satfeat_sat_work_header *hdr)
{
    using Acc = typename SatTypes<In>::Acc;
    constexpr bool RUNS = sizeof(In) == 1; /* the u8 walk on runs (sat_run_u8.cuh) */
    static_assert(T % kSkssGroups == 0 && (T <= kStripCols || (RUNS && T == 2 * kStripCols)),
                  "tile rows: a multiple of 32, at most 128 (u8: 256)");
    constexpr int RPG = T / kSkssGroups;                 /* rows per group */
    constexpr int RPT = T > kStripCols ? T / kStripCols : 1; /* rows per row look-back thread */
    constexpr int B = WINDOW ? kWindowBatch : sizeof(In) == 1 ? kWalkBatchU8 : kWalkBatchF32;
    static_assert(B >= 1 && B <= 16, "look-back batches: 1 to 16 tiles");
    __shared__ __align__(16) Acc col_part[kSkssGroups][kStripCols];
    __shared__ Acc row_tot[T];
    __shared__ Acc col_tot[kStripCols];
    __shared__ __align__(16) Acc left[T];
    __shared__ __align__(16) Acc top[kStripCols];
    __shared__ Acc s_corner;
    __shared__ int s_known;
    __shared__ long long s_ticket;
    __shared__ int s_ti, s_tj;
    __shared__ uint32_t s_tag;
    const int t = threadIdx.x, grp = t / kGroupLanes, lane = t % kGroupLanes;
    const unsigned mask = group_mask();
    const size_t n = (size_t)g.tiles_x * g.tiles_y;
    if (t == 0) {
        /* ticket and tag from one atomic (tickets never reach the high half: n < 2^31); the last
         * ticket's block resets the count and stores the tag at once: its store follows every
         * other block's increment in the word's modification order, and no block reads the word
         * otherwise, so no other ordering is needed */
        PairRef ticket(*reinterpret_cast<unsigned long long *>(&hdr->ticket));
        const unsigned long long word = ticket.fetch_add(1ull, cuda::memory_order_relaxed);
        s_ticket = (long long)(word & 0xffffffffu);
        s_tag = satfeat_sat_pair_next_tag(word >> 32);
        if ((word & 0xffffffffu) == n - 1u)
            ticket.store((unsigned long long)s_tag << 32, cuda::memory_order_relaxed);
        uint32_t ti0, tj0; /* the tile, worked out here while the other threads wait */
        satfeat_sat_tile_of_ticket((uint32_t)s_ticket, (uint32_t)g.tiles_x, (uint32_t)g.tiles_y, &ti0, &tj0);
        s_ti = (int)ti0;
        s_tj = (int)tj0;
    }
    __syncthreads();
    const int ti = s_ti, tj = s_tj;
    const size_t tile = (size_t)ti * g.tiles_x + tj;
    const uint32_t tag = s_tag;
    const SkssPairs wk = skss_pairs(hdr, n, T);
    const bool need_row = tj < g.tiles_x - 1; /* a tile to the right will look back at us */
    const bool need_col = ti < g.tiles_y - 1;
    const int x0 = tj * kStripCols;
    const int r0 = grp * RPG;          /* the group's first row in the tile */
    const int ya = ti * T + r0;        /* ... in the table */

    /* load the group's rows (rows past the table read as zeros) and walk them for local sums:
     * u8 on runs of 16 columns a lane (sat_run_u8.cuh), f32 on chunks (sat_walk.cuh) */
    using Row = std::conditional_t<RUNS, RunRow, WalkRow<In>>;
    Row rows[RPG];
    uint32_t run_ex[(RPG + 1) / 2]; /* RUNS: the lanes-before sums of the rows (two a word) */
#pragma unroll
    for (int u = 0; u < RPG; u++) {
        const int y = ya + u <= g.height ? ya + u : 0;
        if constexpr (RUNS)
            load_run_row<VEC>(g, y, x0, lane, rows[u]);
        else
            load_walk_row<VEC, In>(g, y, x0, lane, rows[u]);
    }
    if constexpr (RUNS) {
        uint32_t col[kRunCols], row_sum[RPG];
        run_local_sums<RPG>(rows, lane, mask, col, row_sum, run_ex);
        if (lane == 0) {
#pragma unroll
            for (int u = 0; u < RPG; u++) row_tot[r0 + u] = row_sum[u];
        }
#pragma unroll
        for (int j = 0; j < 4; j++)
            *reinterpret_cast<uint4 *>(&col_part[grp][kRunCols * lane + 4 * j]) =
                make_uint4(col[4 * j], col[4 * j + 1], col[4 * j + 2], col[4 * j + 3]);
    } else {
        Acc col[kLaneCols];
#pragma unroll
        for (int k = 0; k < kLaneCols; k++) col[k] = Acc(0);
#pragma unroll
        for (int u = 0; u < RPG; u++) {
            Acc v[kLaneCols];
            walk_values(rows[u], lane, mask, v);
            Acc s = Acc(0);
#pragma unroll
            for (int k = 0; k < kLaneCols; k++) {
                col[k] += v[k];
                s += v[k];
            }
            s = group_sum(s, mask);
            if (lane == 0) row_tot[r0 + u] = s;
        }
        using Vec = typename AccVec<Acc>::type;
#pragma unroll
        for (int i = 0; i < 4; i++)
            *reinterpret_cast<Vec *>(&col_part[grp][chunk_col(i, lane)]) =
                Vec{col[4 * i], col[4 * i + 1], col[4 * i + 2], col[4 * i + 3]};
    }
    __syncthreads();
    /* column c: exclusive scan of the groups' partials in place, total to col_tot */
    if (t < kStripCols) {
        Acc run = Acc(0);
#pragma unroll 8
        for (int q = 0; q < kSkssGroups; q++) {
            const Acc x = col_part[q][t];
            col_part[q][t] = run;
            run += x;
        }
        col_tot[t] = run;
    }
    __syncthreads();

    /* publish the local sums (global ones straight away on the first row / column of tiles), look
     * back and publish the global ones: threads [0, T) along their row, threads [128, 256) up
     * their column */
    if (t < T && t < kStripCols) {
        /* rows t, t + 128 (tiles of 256 rows) */
#pragma unroll
        for (int e = 0; e < RPT; e++)
            if (need_row) publish(&wk.row[tile * T + t + e * kStripCols], tag, tj == 0, row_tot[t + e * kStripCols]);
        Acc acc[RPT];
        look_back<B, RPT, Acc>(wk.row, (long long)tile - 1, 1, tj, T, t, kStripCols, tag, acc);
#pragma unroll
        for (int e = 0; e < RPT; e++) {
            const int r = t + e * kStripCols;
            left[r] = acc[e];
            if (need_row && tj > 0) publish(&wk.row[tile * T + r], tag, true, acc[e] + row_tot[r]);
        }
    } else if (t >= kStripCols) {
        const int c = t - kStripCols;
        if (need_col) publish(&wk.col[tile * kStripCols + c], tag, ti == 0, col_tot[c]);
        if (RECT && t < kStripCols + 32 && need_row && need_col) {
            /* the tile total, for the corners of the tiles down-right (rect_corner): each lane adds
             * four column totals, the warp the lanes' sums */
            const Acc s = warp_sum(((col_tot[c] + col_tot[c + 32]) + col_tot[c + 64]) + col_tot[c + 96]);
            if (c == 0) publish(&wk.tile[tile], tag, false, s);
        }
        Acc corner = Acc(0);
        if (RECT && t >= kSkssThreads - 32) {
            /* RECT grids: the corner from the totals of the tiles up-left, by the last warp,
             * before its column look-back (after it measured slower: the tiles up-left publish
             * before the tile above) */
            corner = rect_corner<Acc>(wk.tile, ti, tj, g.tiles_x, tag);
        }
        const Acc acc = look_back1<B, Acc>(wk.col, (long long)tile - g.tiles_x, g.tiles_x, ti, kStripCols, c, tag);
        top[c] = acc;
        if (need_col && ti > 0) publish(&wk.col[tile * kStripCols + c], tag, true, acc + col_tot[c]);
        if (t == kSkssThreads - 1) {
            bool known = true;
            if (!RECT && ti > 0 && tj > 0) {
                /* the corner early, if the diagonal already has it: its pairs without waiting,
                 * giving up (known false) at the first one this launch has not published yet.
                 * Only on grids of many waves (SATFEAT_SAT_TUNE_SKSS_EARLY_CORNER_TILES, above the
                 * windowed ones unless the tuning says otherwise): on one to a few the tiles
                 * up-left have rarely published yet and the probe only costs its round trips. */
                const bool probe = (long long)n >= (long long)SATFEAT_SAT_TUNE_SKSS_EARLY_CORNER_TILES;
                const long long first = (long long)tile - g.tiles_x - 1, step = g.tiles_x + 1;
                known = false;
                for (int k = 0; probe && k < min(ti, tj); k++) {
                    const unsigned long long p = pair_load(&wk.tile[first - k * step]);
                    if (!satfeat_sat_pair_ready(p, tag)) break;
                    corner += AccBits<Acc>::from((uint32_t)p);
                    if (satfeat_sat_pair_global(p)) {
                        known = true;
                        break;
                    }
                }
            }
            s_corner = corner;
            s_known = known;
        }
    }
    __syncthreads();
    /* the corner is in s_corner (the same for the whole block); always on RECT grids */
    const bool known = RECT || s_known != 0;

    /* other than RECT grids, warp 0: totals of left, top and the tile; thread 0 publishes the
     * tile's corner sum for the tile down-right of it: the global one (GS = corner + GLS) at once
     * when the corner is known, else the local one (GLS = left + top + tile), then the corner by
     * diagonal look-back, then GS. Only in that second case do the other warps wait for it. RECT
     * grids have their corner already (rect_corner) and publish no corner sums. */
    if (!RECT && t < 32) {
        Acc sums[3];
#pragma unroll
        for (int w = 0; w < 3; w++) {
            const Acc *src = w == 0 ? left : w == 1 ? top : col_tot;
            const int len = w == 0 ? T : kStripCols;
            Acc s = Acc(0);
            for (int k = t; k < len; k += 32) s += src[k];
            sums[w] = warp_sum(s);
        }
        if (t == 0) {
            const Acc gls = (sums[0] + sums[1]) + sums[2];
            const bool need_diag = need_row && need_col;
            Acc corner = s_corner;
            if (!known) {
                if (need_diag) publish(&wk.tile[tile], tag, false, gls);
                corner = look_back1<B, Acc>(wk.tile, (long long)tile - g.tiles_x - 1, g.tiles_x + 1,
                                           min(ti, tj), 1, 0, tag);
                s_corner = corner;
            }
            if (need_diag) publish(&wk.tile[tile], tag, true, corner + gls);
        }
    }
    if (!known) __syncthreads();

    Acc before = Acc(0); /* row carries of the tile's rows above the group */
    for (int q = lane; q < r0; q += kGroupLanes) before += left[q];
    before = group_sum(before, mask);
    Acc left_run = s_corner + before;
    if constexpr (RUNS) {
        /* u8 runs: o[k] starts as the table row above the group's rows in the run's column k
         * (everything above them in the strip, its prefix along the strip, and everything left
         * of the strip above them) and becomes each row in turn */
        uint32_t o[kRunCols];
#pragma unroll
        for (int k = 0; k < kRunCols; k++) {
            const int c = kRunCols * lane + k;
            o[k] = top[c] + col_part[grp][c];
        }
        run_prefix(o, lane, mask, left_run);
        /* the group's column partials are read: their words stage its output rows (store_run;
         * each lane's first writes stay inside the words it read itself) */
        uint32_t *stage = &col_part[grp][0];
#pragma unroll
        for (int u = 0; u < RPG; u++) {
            const uint32_t base = satfeat_sat_half(run_ex[u / 2], u % 2) + left[r0 + u];
            run_carry_row(rows[u], base, o);
            if (ya + u <= g.height) store_run<VEC>(g, ya + u, x0, lane, mask, stage, o);
        }
    } else {
        /* walk the kept rows with the carries: r[4 i + m] starts as everything above the group's
         * rows in table columns x0 .. x0 + 32 i + 4 lane + m (above the tile and in the tile) */
        Acc r[kLaneCols];
#pragma unroll
        for (int k = 0; k < kLaneCols; k++) {
            const int c = chunk_col(k / 4, lane) + k % 4;
            r[k] = top[c] + col_part[grp][c];
        }
        row_prefix_full(r, lane, mask);
        Acc lane_run[4] = {Acc(0), Acc(0), Acc(0), Acc(0)};
#pragma unroll
        for (int u = 0; u < RPG; u++) {
            Acc o[kLaneCols];
            carry_row<In>(rows[u], lane, mask, left[r0 + u], r, lane_run, left_run, o);
            if (ya + u <= g.height) store16<VEC>(g, ya + u, x0, lane, o);
        }
    }

    if (tag == SATFEAT_SAT_PAIR_TAG_MAX) {
        /* the launch with the last tag (once in 2^31 - 1 launches): the last block to finish clears
         * the pair region, so that the next launch (tag 1 again) finds no pair with its tag */
        __shared__ int s_clear;
        __syncthreads(); /* every thread of the block has done its look-backs */
        if (t == 0) {
            cuda::atomic_ref<unsigned int, cuda::thread_scope_device> fin(hdr->finished);
            s_clear = fin.fetch_add(1u, cuda::memory_order_acq_rel) == (unsigned)n - 1u;
        }
        __syncthreads();
        if (s_clear) {
            clear_pairs(hdr, hdr->pair_bytes);
            if (t == 0) hdr->finished = 0;
        }
    }
}
template <int T, bool VEC, typename In>
cudaError_t launch_skss(const satfeat_sat_launch *l, const char **failed)
{
    SatGeom g{l->src, l->src_stride, l->dst, l->dst_stride, l->width, l->height,
              satfeat_sat_tiles_x(l->width, kStripCols), satfeat_sat_tiles_y(l->height, T)};
    const unsigned tiles = (unsigned)g.tiles_x * (unsigned)g.tiles_y;
    const cudaStream_t stream = static_cast<cudaStream_t>(l->stream);
    satfeat_sat_work_header *work = static_cast<satfeat_sat_work_header *>(l->work);
    if (tiles <= (unsigned)SATFEAT_SAT_TUNE_SKSS_RECT_CORNER_TILES && tiles <= (unsigned)SATFEAT_SAT_TUNE_SKSS_WINDOW_TILES)
        skss_lb<T, VEC, true, true, In><<<tiles, kSkssThreads, 0, stream>>>(g, work);
    else if (tiles <= (unsigned)SATFEAT_SAT_TUNE_SKSS_WINDOW_TILES)
        skss_lb<T, VEC, true, false, In><<<tiles, kSkssThreads, 0, stream>>>(g, work);
    else
        skss_lb<T, VEC, false, false, In><<<tiles, kSkssThreads, 0, stream>>>(g, work);
    cudaError_t e = cudaPeekAtLastError();
    if (e != cudaSuccess) *failed = "SKSS-LB kernel launch";
    return e;
}

template <typename In>
cudaError_t launch_skss_any(const satfeat_sat_launch *l, const char **failed)
{
    const bool vec = walk_vector_ok(l->src, l->src_stride, l->dst, l->dst_stride);
    switch (l->tile) {
    case 32: return vec ? launch_skss<32, true, In>(l, failed) : launch_skss<32, false, In>(l, failed);
    case 64: return vec ? launch_skss<64, true, In>(l, failed) : launch_skss<64, false, In>(l, failed);
    case 128: return vec ? launch_skss<128, true, In>(l, failed) : launch_skss<128, false, In>(l, failed);
    case 256:
        if constexpr (sizeof(In) == 1)
            return vec ? launch_skss<256, true, In>(l, failed) : launch_skss<256, false, In>(l, failed);
        *failed = "SKSS-LB tile rows (f32: at most 128)";
        return cudaErrorInvalidValue;
    default: *failed = "SKSS-LB tile rows"; return cudaErrorInvalidValue;
    }
}

} // namespace
} // namespace satfeat_sat

extern "C" int satfeat_sat_skss_lb_u8_launch(const satfeat_sat_launch *l, const char **failed_call)
{
    return (int)satfeat_sat::launch_skss_any<uint8_t>(l, failed_call);
}

extern "C" int satfeat_sat_skss_lb_f32_launch(const satfeat_sat_launch *l, const char **failed_call)
{
    return (int)satfeat_sat::launch_skss_any<float>(l, failed_call);
}
