/* sat_skss_lb.cu - the single-kernel 1R1W-SKSS-LB SAT (seed 002) on the walk of sat_walk.cuh: one
 * block per tile of 128 table columns x T table rows, tiles handed out by ticket in diagonal-major
 * order, carries obtained by looking back left and up at what earlier tiles published, and the
 * corner along the diagonal (larger grids) or from the totals of the tiles up-left (grids of
 * about one wave). Inside a tile each group of 8 lanes owns T/32 consecutive rows, keeps them raw in
 * registers (u8 rows packed 4 per 32-bit word), and walks them twice: once for the local sums,
 * once with the carries to write the table. One read and one write per element.
 *
 * Synchronisation between blocks: a tile publishes a vector (or a scalar) by writing it with
 * plain stores, fencing (__threadfence), a block barrier, and one thread storing the tile's flag
 * with release semantics at device scope; readers load the flag with acquire semantics
 * (cuda::atomic_ref) before loading the data (the rectangle corner loads a round of flags relaxed
 * and then fences once with acquire semantics: the same ordering for every flag it saw). A flag
 * is (tag << 2) | state with tag = launch epoch + 1, so flags left by earlier launches are never
 * taken for this launch's and nothing is reset between launches. The ticket counter and a finished-blocks counter live in the work
 * buffer's header; the last block to finish resets both and advances the epoch. */
#include "sat_kernels.h"
#include "sat_timeline.h"
#include "sat_walk.cuh"

#include <cuda/atomic>
#include <cuda_runtime.h>

namespace satfeat_sat {
namespace {

constexpr uint64_t kLocal = 1;  /* flag state: the tile's local sums are published */
constexpr uint64_t kGlobal = 2; /* flag state: the tile's global (inclusive) sums are published */

using FlagRef = cuda::atomic_ref<unsigned long long, cuda::thread_scope_device>;

__device__ __forceinline__ void publish(unsigned long long *flag, uint64_t tag, uint64_t state)
{
    FlagRef(*flag).store((tag << 2) | state, cuda::memory_order_release);
}

/** Spins until `flag` carries this launch's tag; returns its state (kLocal or kGlobal). With the
 * timeline on, counts the flag loads that found it not yet set in *spins. */
__device__ __forceinline__ uint64_t wait_flag(unsigned long long *flag, uint64_t tag, unsigned long long *spins)
{
    FlagRef ref(*flag);
    unsigned long long f = ref.load(cuda::memory_order_acquire);
    while ((f >> 2) != tag) {
        if (SATFEAT_SAT_SKSS_TIMELINE && spins) ++*spins;
        __nanosleep(32);
        f = ref.load(cuda::memory_order_acquire);
    }
    return f & 3u;
}

/**
 * Decoupled look-back by one thread over `count` earlier tiles, nearest first (tiles, values and
 * result as in look_back_warp below): a walk that waits for each tile's flag in turn, adds its
 * local value and goes on, or adds its global value and stops. Returns the tiles added in *used.
 */
template <typename Acc>
__device__ __forceinline__ Acc look_back_walk(unsigned long long *flags, const Acc *loc, const Acc *glob,
                                              long long first, long long step, int count, int len, int elem,
                                              uint64_t tag, int *used, unsigned long long *spins)
{
    Acc acc = Acc(0);
    int k = 0;
    while (k < count) {
        const long long idx = first - (long long)k * step;
        k++;
        if (wait_flag(&flags[idx], tag, spins) == kGlobal) {
            acc += glob[idx * len + elem];
            break;
        }
        acc += loc[idx * len + elem];
    }
    *used = k;
    return acc;
}

/**
 * Decoupled look-back by one whole warp over `count` earlier tiles, nearest first: tile k (0 ..
 * count-1) has its flag at flags[first - k step] and its local and global values at loc / glob +
 * (first - k step) len + elem. Per window of 32 tiles, lane k loads tile k's flag (one acquire
 * load per lane, all in flight together), the warp finds the nearest tile with its global value
 * published and, once every tile nearer than that carries at least its local one, each lane adds
 * its element's values nearest first (the order of a tile-by-tile walk; loads in batches of 8).
 * A window without a global value is added whole and the next one read; the warp spins until
 * the flags it needs are there. Returns the sum and the tiles added in *used. With the timeline
 * on, counts the re-reads of a window in *spins.
 */
template <typename Acc>
__device__ __forceinline__ Acc look_back_warp(unsigned long long *flags, const Acc *loc, const Acc *glob,
                                              long long first, long long step, int count, int len, int elem,
                                              uint64_t tag, int *used, unsigned long long *spins)
{
    const int lane = threadIdx.x & 31;
    Acc acc = Acc(0);
    int k0 = 0;
    while (k0 < count) {
        const int n = min(32, count - k0);
        const unsigned window = n == 32 ? 0xffffffffu : (1u << n) - 1u;
        unsigned glob_mask, need;
        for (;;) {
            unsigned long long f = 0;
            if (lane < n) f = FlagRef(flags[first - (long long)(k0 + lane) * step]).load(cuda::memory_order_acquire);
            const bool ready = (f >> 2) == tag;
            glob_mask = __ballot_sync(0xffffffffu, ready && (f & 3u) == kGlobal);
            const unsigned ready_mask = __ballot_sync(0xffffffffu, ready);
            /* the tiles up to and including the nearest global one, else the whole window */
            need = glob_mask ? (glob_mask ^ (glob_mask - 1u)) : window;
            if ((ready_mask & need) == need) break;
            if (SATFEAT_SAT_SKSS_TIMELINE && spins) ++*spins;
            __nanosleep(32);
        }
        /* orders the lanes' acquire loads before every lane's value loads (__syncwarp orders
         * memory among the warp's threads); the values bypass L1 */
        __syncwarp();
        const int m = __popc(need);
        for (int b = 0; b < m; b += 8) {
            Acc v[8];
#pragma unroll
            for (int u = 0; u < 8; u++) {
                const int k = b + u;
                const long long idx = first - (long long)(k0 + k) * step;
                v[u] = k < m ? __ldcg((((glob_mask >> k) & 1u) ? glob : loc) + idx * len + elem) : Acc(0);
            }
#pragma unroll
            for (int u = 0; u < 8; u++)
                if (b + u < m) acc += v[u];
        }
        k0 += m;
        if (glob_mask) break;
    }
    *used = k0;
    return acc;
}

/** The look-back of one thread's element: by its whole warp with windows (WINDOW; every lane of
 * the warp must call it) or by the thread alone, tile by tile. */
template <bool WINDOW, typename Acc>
__device__ __forceinline__ Acc look_back(unsigned long long *flags, const Acc *loc, const Acc *glob, long long first,
                                         long long step, int count, int len, int elem, uint64_t tag, int *used,
                                         unsigned long long *spins)
{
    if (WINDOW) return look_back_warp(flags, loc, glob, first, step, count, len, elem, tag, used, spins);
    return look_back_walk(flags, loc, glob, first, step, count, len, elem, tag, used, spins);
}

#if SATFEAT_SAT_SKSS_TIMELINE
/* The attached timeline buffer (sat_timeline.h): a measuring aid compiled only with the macro. */
__device__ unsigned long long *g_tl_records;
__device__ unsigned long long g_tl_tiles;

/** Stamps phase k of this tile into the block's record in shared memory. */
__device__ __forceinline__ void tl_stamp(unsigned long long *rec, int k)
{
    unsigned long long gt;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(gt));
    rec[k] = gt;
    rec[SATFEAT_SAT_TL_PHASES + k] = (unsigned long long)clock64();
}
#define SKSS_TL(k)                                      \
    do {                                                \
        if (t == 0) tl_stamp(s_tl, SATFEAT_SAT_TL_##k); \
    } while (0)
#define SKSS_TL_SET(field, v) (s_tl[SATFEAT_SAT_TL_##field] = (unsigned long long)(v))
#define SKSS_TL_SPINS(field) (&s_tl[SATFEAT_SAT_TL_##field])
#else
#define SKSS_TL(k) \
    do {           \
    } while (0)
#define SKSS_TL_SET(field, v) ((void)0)
#define SKSS_TL_SPINS(field) nullptr
#endif

/** Largest d with d(d+1)/2 <= t. */
__device__ __forceinline__ long long tri_root(long long t)
{
    long long d = (long long)((sqrt(8.0 * (double)t + 1.0) - 1.0) * 0.5);
    while (d > 0 && d * (d + 1) / 2 > t) d--;
    while ((d + 1) * (d + 2) / 2 <= t) d++;
    return d;
}

/**
 * Maps a ticket to a tile in diagonal-major order: anti-diagonals I+J = 0, 1, ... in turn, each
 * by increasing I. Every tile a tile looks back at (left, above, up-left) lies on an earlier
 * diagonal, so it got an earlier ticket.
 */
__device__ void tile_of_ticket(long long t, int nx, int ny, int *ti, int *tj)
{
    const long long m = min(nx, ny), big = max(nx, ny);
    const long long tri = m * (m + 1) / 2;
    const long long band = (big - m) * m;
    if (t < tri) {
        long long d = tri_root(t);
        long long i = t - d * (d + 1) / 2;
        *ti = (int)i;
        *tj = (int)(d - i);
    } else if (t < tri + band) {
        long long q = t - tri;
        long long d = m + q / m;
        long long imin = d - nx + 1 > 0 ? d - nx + 1 : 0;
        long long i = imin + q % m;
        *ti = (int)i;
        *tj = (int)(d - i);
    } else {
        long long tm = (long long)nx * ny - 1 - t; /* mirrored into the first triangle */
        long long d = tri_root(tm);
        long long i = tm - d * (d + 1) / 2;
        *ti = ny - 1 - (int)i;
        *tj = nx - 1 - (int)(d - i);
    }
}

/** Threads of an SKSS-LB block: 32 groups of 8 lanes; threads [0, T) look back along the rows,
 * threads [128, 256) up the columns. */
constexpr int kSkssThreads = 2 * kStripCols;
constexpr int kSkssGroups = kSkssThreads / kGroupLanes;

/** Pointers into the work buffer for one launch of n tiles of T rows (layout in sat_layout.h). */
template <typename Acc>
struct SkssWork {
    unsigned long long *row_flag, *col_flag, *diag_flag;
    Acc *lrs, *grs, *lcs, *gcs, *gls, *gs;
    Acc *tot; /* RECT grids: the tile totals, in the GLS slots (which only the other grids use) */
};

template <typename Acc>
__device__ __forceinline__ SkssWork<Acc> skss_work(satfeat_sat_work_header *hdr, uint64_t data_off,
                                                   size_t n, int T)
{
    char *base = reinterpret_cast<char *>(hdr);
    SkssWork<Acc> w;
    w.row_flag = reinterpret_cast<unsigned long long *>(base + SATFEAT_SAT_WORK_HEADER_BYTES);
    w.col_flag = w.row_flag + n;
    w.diag_flag = w.col_flag + n;
    w.lrs = reinterpret_cast<Acc *>(base + data_off);
    w.grs = w.lrs + n * T;
    w.lcs = w.grs + n * T;
    w.gcs = w.lcs + n * kStripCols;
    w.gls = w.gcs + n * kStripCols;
    w.gs = w.gls + n;
    w.tot = w.gls;
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

/* Rectangle tiles a lane of rect_corner takes per round (their flags loaded together); an A/B
 * switch of docs/BENCHMARKS.md, "Issue 13, fourth session". */
#ifndef SATFEAT_SAT_SKSS_RECT_BATCH
#define SATFEAT_SAT_SKSS_RECT_BATCH 8
#endif
constexpr int kRectBatch = SATFEAT_SAT_SKSS_RECT_BATCH;
static_assert(kRectBatch >= 1 && kRectBatch <= 32, "rect_corner rounds: 1 to 32 tiles per lane");

/**
 * The corner of tile (ti, tj) on a RECT grid, by one whole warp: the sum of the totals of the
 * ti x tj tiles up-left of it (tile rows 0 .. ti-1, columns 0 .. tj-1), each written with the
 * tile's local sums before its row flag. Lane l takes the rectangle's tiles l, l + 32, l + 64, ...
 * (row-major in the rectangle) in rounds of kRectBatch: it loads their row flags together
 * (relaxed), the warp re-reads until every one carries this launch's tag (any state), one acquire
 * fence orders the lane's total loads (L2) after them, and the lane adds the totals in turn; the
 * warp then adds its lanes' sums (butterfly). Every such tile is on an earlier diagonal (earlier
 * ticket) and has a tile to its right, so it publishes a row flag. With the timeline on, counts
 * the re-reads in *spins.
 */
template <typename Acc>
__device__ __forceinline__ Acc rect_corner(unsigned long long *row_flag, const Acc *tot, int ti, int tj,
                                           int tiles_x, uint64_t tag, unsigned long long *spins)
{
    const int lane = threadIdx.x & 31;
    const int count = ti * tj;
    Acc acc = Acc(0);
    for (int k0 = 0; k0 < count; k0 += 32 * kRectBatch) {
        int idx[kRectBatch]; /* tile indices: below SATFEAT_SAT_TUNE_SKSS_WINDOW_TILES */
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
                if ((pending >> u) & 1u) {
                    const unsigned long long f = FlagRef(row_flag[idx[u]]).load(cuda::memory_order_relaxed);
                    if ((f >> 2) == tag) pending &= ~(1u << u);
                }
            if (!__any_sync(0xffffffffu, pending != 0)) break;
            if (SATFEAT_SAT_SKSS_TIMELINE && spins) ++*spins;
            __nanosleep(32);
        }
        cuda::atomic_thread_fence(cuda::memory_order_acquire, cuda::thread_scope_device);
        Acc v[kRectBatch];
#pragma unroll
        for (int u = 0; u < kRectBatch; u++) v[u] = ((present >> u) & 1u) ? __ldcg(tot + idx[u]) : Acc(0);
#pragma unroll
        for (int u = 0; u < kRectBatch; u++)
            if ((present >> u) & 1u) acc += v[u];
    }
    return warp_sum(acc);
}

/**
 * The whole SAT in one launch. One block (256 threads) per tile of 128 table columns x T table
 * rows, the tile chosen by ticket. Group q (8 lanes) loads the tile's rows q*T/32 .. +T/32-1 of
 * the padded image into registers (one read of the input) and walks them for its row sums and
 * its partial column sums; the block adds the groups' column partials in shared memory (also
 * giving each group the column sums of the rows above it in the tile). The block publishes its
 * local row sums (LRS) and column sums (LCS), looks back left for the sum of each of its rows
 * over all tiles to its left and up for the sum of each column above it (adding local sums of
 * tiles that have not finished until it meets a tile whose global sums are published), publishes
 * its own global row/column sums (GRS/GCS), then its local corner sum (GLS = everything left,
 * above and inside) and, after looking back along the diagonal, its global corner (GS). While
 * the look-backs run, the last thread already tries the diagonal look-back without waiting; when
 * that finds the corner (the tiles up-left have published), the block publishes GS at once and
 * its warps skip the barrier that waits for the corner. Finally each group walks its kept rows
 * again, adding the carries, and writes them (one write). WINDOW (grids of at most
 * SATFEAT_SAT_TUNE_SKSS_WINDOW_TILES tiles): every look-back is done by whole warps reading the
 * flags of up to 32 tiles at once (look_back_warp) instead of tile by tile. RECT (grids of at
 * most SATFEAT_SAT_TUNE_SKSS_RECT_CORNER_TILES tiles, windowed too) has no diagonal: the block
 * publishes its total (the sum of its inputs) with its local sums, and its
 * last warp, before its column look-back, adds the totals of the tiles up-left (rect_corner), so
 * the corner is known at the look-back barrier without waiting for the corner sums of the tiles
 * up-left, which come only after their own look-backs; no GLS, GS or diagonal flag is written.
 */
/* Blocks per SM the timeline build holds the kernel to, so that its stamps do not cost the u8
 * kernel its third block per SM (0: no bound, the normal build). */
template <typename In>
constexpr int kTimelineMinBlocks = SATFEAT_SAT_SKSS_TIMELINE ? (sizeof(In) == 1 ? 3 : 2) : 0;

template <int T, bool VEC, bool WINDOW, bool RECT, typename In>
__global__ void __launch_bounds__(kSkssThreads, kTimelineMinBlocks<In>)
    skss_lb(SatGeom g, satfeat_sat_work_header *hdr)
{
    using Acc = typename SatTypes<In>::Acc;
    static_assert(T % kSkssGroups == 0 && T <= kStripCols, "tile rows: a multiple of 32, at most 128");
    constexpr int RPG = T / kSkssGroups; /* rows per group */
    __shared__ __align__(16) Acc col_part[kSkssGroups][kStripCols];
    __shared__ Acc row_tot[T];
    __shared__ Acc col_tot[kStripCols];
    __shared__ Acc left[T];
    __shared__ Acc top[kStripCols];
    __shared__ Acc s_corner;
    __shared__ int s_known;
    __shared__ long long s_ticket;
    __shared__ unsigned long long s_tag, s_data_off;
    const int t = threadIdx.x, grp = t / kGroupLanes, lane = t % kGroupLanes;
    const unsigned mask = group_mask();
#if SATFEAT_SAT_SKSS_TIMELINE
    __shared__ unsigned long long s_tl[SATFEAT_SAT_TL_WORDS];
    if (t < SATFEAT_SAT_TL_WORDS) s_tl[t] = 0;
    __syncthreads();
#endif
    SKSS_TL(START);
    if (t == 0) {
        s_ticket = atomicAdd(&hdr->ticket, 1u);
        s_tag = hdr->epoch + 1u;
        s_data_off = hdr->data_off;
    }
    __syncthreads();
    const size_t n = (size_t)g.tiles_x * g.tiles_y;
    SKSS_TL(TICKET);
    int ti, tj;
    tile_of_ticket(s_ticket, g.tiles_x, g.tiles_y, &ti, &tj);
    const size_t tile = (size_t)ti * g.tiles_x + tj;
    const uint64_t tag = s_tag;
    const SkssWork<Acc> wk = skss_work<Acc>(hdr, s_data_off, n, T);
    const bool need_row = tj < g.tiles_x - 1; /* a tile to the right will look back at us */
    const bool need_col = ti < g.tiles_y - 1;
    const int x0 = tj * kStripCols;
    const int r0 = grp * RPG;          /* the group's first row in the tile */
    const int ya = ti * T + r0;        /* ... in the table */

    /* load the group's rows (rows past the table read as zeros) and walk them for local sums */
    WalkRow<In> rows[RPG];
#pragma unroll
    for (int u = 0; u < RPG; u++) load_walk_row<VEC, In>(g, ya + u <= g.height ? ya + u : 0, x0, lane, rows[u]);
    {
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
    SKSS_TL(LOADED);
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
    SKSS_TL(LOCAL);

    /* publish the local sums (global ones straight away on the first row/column of tiles) */
    if (t < T) {
        if (need_row) (tj == 0 ? wk.grs : wk.lrs)[tile * T + t] = row_tot[t];
    } else if (t >= kStripCols) {
        if (need_col) (ti == 0 ? wk.gcs : wk.lcs)[tile * kStripCols + (t - kStripCols)] = col_tot[t - kStripCols];
        if (RECT && t < kStripCols + 32 && need_row && need_col) {
            /* the tile total, for the corners of the tiles down-right (rect_corner): each lane adds
             * four column totals, the warp the lanes' sums */
            const int l = t - kStripCols;
            const Acc s = warp_sum(((col_tot[l] + col_tot[l + 32]) + col_tot[l + 64]) + col_tot[l + 96]);
            if (l == 0) wk.tot[tile] = s;
        }
    }
    __threadfence();
    __syncthreads();
    if (t == 0 && need_row) publish(&wk.row_flag[tile], tag, tj == 0 ? kGlobal : kLocal);
    if (t == kStripCols && need_col) publish(&wk.col_flag[tile], tag, ti == 0 ? kGlobal : kLocal);
    SKSS_TL(PUBLISHED);

    /* look back: threads [0, T) along their row, threads [128, 256) up their column */
    if (t < T) {
        int used;
        const Acc acc = look_back<WINDOW>(wk.row_flag, wk.lrs, wk.grs, (long long)tile - 1, 1, tj, T, t, tag,
                                          &used, t == 0 ? SKSS_TL_SPINS(ROW_SPIN) : nullptr);
        if (t == 0) SKSS_TL_SET(ROW_STEPS, used);
        left[t] = acc;
        if (need_row && tj > 0) wk.grs[tile * T + t] = acc + row_tot[t];
    } else if (t >= kStripCols) {
        const int c = t - kStripCols;
        if (RECT && t >= kSkssThreads - 32) {
            /* RECT grids: the corner from the totals of the tiles up-left, by the last warp,
             * before its column look-back (after it measured slower: the tiles up-left publish
             * before the tile above) */
            const Acc corner = rect_corner(wk.row_flag, wk.tot, ti, tj, g.tiles_x, tag,
                                           t == kSkssThreads - 1 ? SKSS_TL_SPINS(CORNER_SPIN) : nullptr);
            if (t == kSkssThreads - 1) s_corner = corner;
        }
        int used;
        const Acc acc = look_back<WINDOW>(wk.col_flag, wk.lcs, wk.gcs, (long long)tile - g.tiles_x, g.tiles_x, ti,
                                          kStripCols, c, tag, &used,
                                          t == kStripCols ? SKSS_TL_SPINS(COL_SPIN) : nullptr);
        if (t == kStripCols) SKSS_TL_SET(COL_STEPS, used);
        top[c] = acc;
        if (need_col && ti > 0) wk.gcs[tile * kStripCols + c] = acc + col_tot[c];
        if (!RECT && t == kSkssThreads - 1) {
            /* the corner early, if the diagonal already has it: the look-back below without
             * waiting, giving up (s_known 0) when a tile it needs has published nothing yet. Only
             * on grids of many waves (SATFEAT_SAT_TUNE_SKSS_EARLY_CORNER_TILES, above the windowed
             * ones unless the tuning says otherwise): on one to a few the tiles up-left have
             * rarely published yet and the probe only costs its round trips. */
            const bool probe = (long long)n >= (long long)SATFEAT_SAT_TUNE_SKSS_EARLY_CORNER_TILES;
            Acc corner = Acc(0);
            bool known = true;
            if (ti > 0 && tj > 0) {
                int used = 0;
                const long long first = (long long)tile - g.tiles_x - 1, step = g.tiles_x + 1;
                known = false;
                for (int k = 0; probe && k < min(ti, tj); k++) {
                    const long long other = first - k * step;
                    const unsigned long long f = FlagRef(wk.diag_flag[other]).load(cuda::memory_order_acquire);
                    if ((f >> 2) != tag) break;
                    used = k + 1;
                    if ((f & 3u) == kGlobal) {
                        corner += wk.gs[other];
                        known = true;
                        break;
                    }
                    corner += wk.gls[other];
                }
                if (known) SKSS_TL_SET(DIAG_STEPS, used);
            }
            s_corner = corner;
            s_known = known;
        }
    }
    __threadfence();
    __syncthreads();
    /* the corner is in s_corner (the same for the whole block); always on RECT grids */
    const bool known = RECT || s_known != 0;
    SKSS_TL(LOOKED_BACK);
    if (t == 0 && need_row && tj > 0) publish(&wk.row_flag[tile], tag, kGlobal);
    if (t == kStripCols && need_col && ti > 0) publish(&wk.col_flag[tile], tag, kGlobal);

    /* other than RECT grids, warp 0: totals of left, top and the tile; thread 0 publishes the
     * tile's corner sums for the tile down-right of it: the global one (GS = corner + GLS) at once
     * when the corner is known, else the local one (GLS = left + top + tile), then the corner by
     * diagonal look-back (by the whole warp on windowed grids), then GS. Only in that second case
     * do the other warps wait for it. RECT grids have their corner already (rect_corner) and
     * publish no corner sums. */
    if (RECT) {
        if (t == 0) {
            SKSS_TL_SET(DIAG_STEPS, ti * tj);
            SKSS_TL_SET(EARLY, 2);
        }
        SKSS_TL(CORNER);
    } else if (t < 32) {
        Acc sums[3];
#pragma unroll
        for (int w = 0; w < 3; w++) {
            const Acc *src = w == 0 ? left : w == 1 ? top : col_tot;
            const int len = w == 0 ? T : kStripCols;
            Acc s = Acc(0);
            for (int k = t; k < len; k += 32) s += src[k];
            sums[w] = warp_sum(s);
        }
        const Acc gls = (sums[0] + sums[1]) + sums[2];
        const bool need_diag = need_row && need_col;
        Acc corner = Acc(0);
        if (known) {
            corner = s_corner;
        } else {
            if (t == 0 && need_diag) {
                wk.gls[tile] = gls;
                publish(&wk.diag_flag[tile], tag, kLocal);
            }
            int used = 0;
            if (WINDOW || t == 0)
                corner = look_back<WINDOW>(wk.diag_flag, wk.gls, wk.gs, (long long)tile - g.tiles_x - 1,
                                           g.tiles_x + 1, min(ti, tj), 1, 0, tag, &used, nullptr);
            if (t == 0) SKSS_TL_SET(DIAG_STEPS, used);
        }
        if (t == 0) {
            if (need_diag) {
                wk.gs[tile] = corner + gls;
                publish(&wk.diag_flag[tile], tag, kGlobal);
            }
            if (!known) s_corner = corner;
            SKSS_TL_SET(EARLY, known);
            SKSS_TL(CORNER);
        }
    }
    if (!known) __syncthreads();

    /* walk the kept rows with the carries: r[4 i + m] starts as everything above the group's
     * rows in table columns x0 .. x0 + 32 i + 4 lane + m (above the tile and in the tile) */
    Acc r[kLaneCols];
#pragma unroll
    for (int k = 0; k < kLaneCols; k++) {
        const int c = chunk_col(k / 4, lane) + k % 4;
        r[k] = top[c] + col_part[grp][c];
    }
    row_prefix_full(r, lane, mask);
    Acc before = Acc(0); /* row carries of the tile's rows above the group */
    for (int q = lane; q < r0; q += kGroupLanes) before += left[q];
    before = group_sum(before, mask);
    Acc left_run = s_corner + before;
    Acc lane_run[4] = {Acc(0), Acc(0), Acc(0), Acc(0)};
#pragma unroll
    for (int u = 0; u < RPG; u++) {
        Acc o[kLaneCols];
        carry_row<In>(rows[u], lane, mask, left[r0 + u], r, lane_run, left_run, o);
        if (ya + u <= g.height) store16<VEC>(g, ya + u, x0, lane, o);
    }
    SKSS_TL(STORED);
#if SATFEAT_SAT_SKSS_TIMELINE
    __syncthreads();
#endif

    if (t == 0) {
        /* Relaxed: the count orders nothing the last block reads. Every block took its ticket and
         * read the epoch before it counts itself (their values fed everything since), and the
         * next launch sees the reset only after this kernel ends. (acq_rel made thread 0 wait
         * for its output stores to complete before the block could leave its SM.) */
        cuda::atomic_ref<unsigned int, cuda::thread_scope_device> done(hdr->done);
        /* acq_rel: every block's ticket update happens before the last block's reset (a relaxed
         * count measured 1 - 2.5% faster from 4096^2 but gives no such order) */
        if (done.fetch_add(1u, cuda::memory_order_acq_rel) == (unsigned)n - 1u) {
            /* the last block: every ticket is taken and every block has finished its flags */
            hdr->ticket = 0;
            hdr->done = 0;
            hdr->epoch = tag;
        }
    }
#if SATFEAT_SAT_SKSS_TIMELINE
    SKSS_TL(END);
    if (t == 0) {
        unsigned int sm;
        asm volatile("mov.u32 %0, %%smid;" : "=r"(sm));
        s_tl[SATFEAT_SAT_TL_TI] = (unsigned long long)ti;
        s_tl[SATFEAT_SAT_TL_TJ] = (unsigned long long)tj;
        s_tl[SATFEAT_SAT_TL_SM] = sm;
        s_tl[SATFEAT_SAT_TL_TICKETNO] = (unsigned long long)s_ticket;
    }
    __syncthreads();
    if (g_tl_records && tile < g_tl_tiles && t < SATFEAT_SAT_TL_WORDS)
        g_tl_records[tile * SATFEAT_SAT_TL_WORDS + t] = s_tl[t];
#endif
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
    default: *failed = "SKSS-LB tile rows"; return cudaErrorInvalidValue;
    }
}

} // namespace
} // namespace satfeat_sat

extern "C" int satfeat_sat_skss_timeline_attach(unsigned long long *d_records, unsigned long long tiles)
{
#if SATFEAT_SAT_SKSS_TIMELINE
    cudaError_t e = cudaMemcpyToSymbol(satfeat_sat::g_tl_records, &d_records, sizeof d_records);
    if (e == cudaSuccess) e = cudaMemcpyToSymbol(satfeat_sat::g_tl_tiles, &tiles, sizeof tiles);
    return (int)e;
#else
    (void)d_records;
    (void)tiles;
    return (int)cudaErrorNotSupported;
#endif
}

extern "C" int satfeat_sat_skss_lb_u8_launch(const satfeat_sat_launch *l, const char **failed_call)
{
    return (int)satfeat_sat::launch_skss_any<uint8_t>(l, failed_call);
}

extern "C" int satfeat_sat_skss_lb_f32_launch(const satfeat_sat_launch *l, const char **failed_call)
{
    return (int)satfeat_sat::launch_skss_any<float>(l, failed_call);
}
