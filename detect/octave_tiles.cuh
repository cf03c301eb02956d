/* octave_tiles.cuh - the response tiles of the octave kernel (octave_kernel.cu, its one
 * includer): tile geometry, the fixed geometry of the common octaves with its staged table
 * window and chained layers, and the generic per-sample responses, all in the block's shared
 * memory. Device code only; built with --fmad=false like its includer. */
#ifndef SATFEAT_FH_OCTAVE_TILES_CUH
#define SATFEAT_FH_OCTAVE_TILES_CUH

#include "detect/kernels_cuda.h"
#include "detect/hessian_chain.h"
#include "detect/hessian_response.h"

#include <cuda_pipeline_primitives.h>
#include <cuda_runtime.h>

#define TX SATFEAT_FH_TILE_X
#define TY SATFEAT_FH_TILE_Y
#define TT SATFEAT_FH_TILE_Y_TALL /* rows of a tall tile (fixed step-1 octaves) */
#define SX (TX + 2) /* response tile with a one-sample apron */
/* Most middle layers of an octave (maxima are listed per sample and layer). */
#define MAX_MIDDLE (SATFEAT_FH_MAX_LAYERS - 2)
/* Entries of a warp's list of samples above the threshold: its lanes x the rows it owns x the
 * middle layers (SATFEAT_FH_NMS_LIST_BYTES for the block's warps). */
#define FH_NMS_PER_WARP (32 * (TT / TY) * MAX_MIDDLE)
static_assert((TX * TY / 32) * FH_NMS_PER_WARP * 2 == SATFEAT_FH_NMS_LIST_BYTES,
              "NMS lists and the plan's shared memory disagree");
/* A warp's list in a tile of TH rows: its lanes x its rows x the middle layers. */
template <int TH> constexpr int FH_NMS_LIST = 32 * (TH / TY) * MAX_MIDDLE;
static_assert(SX * (TT + 2) * sizeof(double) >= (TX * TY / 32) * FH_NMS_LIST<TT> * 2 &&
                  SX * (TY + 2) * sizeof(double) >= (TX * TY / 32) * FH_NMS_LIST<TY> * 2,
              "a tile's layer-0 tile must hold the NMS lists (sparse outer layers)");

/* The octave kernel's dynamic shared memory as 32-bit words: the response tiles (doubles), then
 * the staged table window. */
extern __shared__ __align__(16) uint32_t fh_words[];

/* The octave of block `b` (octaves are in increasing `first`): compares with every later
 * octave's first block at constant offsets instead of a search loop. */
__device__ static int octave_of(const satfeat_fh_plan &plan, int b)
{
    int k = 0;
#pragma unroll
    for (int j = 1; j < SATFEAT_FH_MAX_OCTAVES; j++)
        k += j < plan.n_oct && plan.oct[j].first <= b;
    return k;
}

/* The filters of the sample (kx, ky) of layer m: from the staged window (origin x0, y0, row
 * stride ws) when `win` is set, else from the global table. Box sums depend only on
 * differences of table entries, so both give the same exact integers. */
__device__ static satfeat_fh_hessian filters_at(const satfeat_fh_plan &plan,
                                                const satfeat_fh_plan_map &m,
                                                const uint32_t *__restrict__ sat,
                                                const uint32_t *win, int ws, int x0, int y0,
                                                int kx, int ky)
{
    return win ? satfeat_fh_filters(win, (size_t)ws, kx * m.step - x0, ky * m.step - y0, m.lobe)
               : satfeat_fh_filters(sat, (size_t)plan.sat_pitch, kx * m.step, ky * m.step,
                                    m.lobe);
}

/* The response of a sample of layer m with filters d (the CPU's function). */
__device__ __forceinline__ double tile_value(const satfeat_fh_hessian &d,
                                             const satfeat_fh_plan_map &m)
{
    return m.norm.fast ? satfeat_fh_response_rcp(d, m.norm.den_d, m.norm.rcp_d)
                       : satfeat_fh_response(d, &m.norm);
}

/* Compile-time geometry of octave O (0 or 1) of a configuration with L layers (4 or 6) and
 * initial step 1, in tiles of TH rows: lobes, step, reach and the staged window's row stride,
 * from the formulas the plan uses (SATFEAT_FH_LOBE, SATFEAT_FH_REACH, SATFEAT_FH_WINDOW). A
 * step-2 window is split (frame_plan.h): each row holds its even columns, then its odd ones,
 * HALF entries each, so the lanes of a warp (consecutive samples, two columns apart) read
 * consecutive words. With this geometry every table read of a filter is a shared load at a
 * constant offset. */
template <int O, int L, int TH> struct fh_fixed {
    static constexpr int step = 1 << O;
    static constexpr int sy = TH + 2; /* rows of the response tile */
    __host__ __device__ static constexpr int lobe(int i) { return SATFEAT_FH_LOBE(O, i); }
    static constexpr int reach = SATFEAT_FH_REACH(lobe(L - 1));
    static constexpr int width = SATFEAT_FH_WINDOW(TX, step, reach);
    static constexpr int half = SATFEAT_FH_WINDOW_HALF16(width);
    static constexpr int stride = step == 1 ? SATFEAT_FH_WINDOW_STRIDE16(width) : 2 * half;
    /* First word of the window in the dynamic shared memory: after L response tiles. */
    static constexpr int origin = L * SX * sy * (int)(sizeof(double) / sizeof(uint32_t));
    /* The window entry of row r and column c relative to a sample whose own entry has index s
     * in fh_words: the window starts sh = x0 & 3 entries before x0 (16-byte aligned), so the
     * sample sits at column sh + step * u + reach of the window, u being its column in the
     * response tile. In a split window that column is even (x0 has the parity of reach, and so
     * has sh), so column c of the sample lies in plane c & 1, (c >> 1) entries on. Indexing the
     * shared array itself (not a generic pointer) lets every read be one shared load at a
     * constant offset from s. */
    __device__ static uint32_t at(int s, int r, int c)
    {
        return step == 1 ? fh_words[s + r * stride + c]
                         : fh_words[s + r * stride + (c & 1) * half + (c >> 1)];
    }
    /* Sum of the pixels in columns [c0, c1) between rows r0 and r1 (relative to the sample). */
    __device__ static int32_t box(int s, int r0, int r1, int c0, int c1)
    {
        return (int32_t)(at(s, r1, c1) - at(s, r1, c0) - at(s, r0, c1) + at(s, r0, c0));
    }
};

/* Response of layer I at the sample whose window entry is s: the filter formula
 * of hessian_response.h with rows and columns relative to the sample (all compile-time), the
 * same exact box sums and the same response function as the CPU. */
template <int O, int L, int TH, int I>
__device__ __forceinline__ double fixed_response(int s, const satfeat_fh_plan_map &m)
{
    typedef fh_fixed<O, L, TH> G;
    constexpr int l = G::lobe(I);
    constexpr int r = (3 * l - 1) / 2, h = (l - 1) / 2;
    const satfeat_fh_row_index i = satfeat_fh_filter_row_index(0, l);
    satfeat_fh_hessian d;
#define FH_FIXED_BOX(A, B, X0, X1) G::box(s, i.A, i.B, X0, X1)
    SATFEAT_FH_FILTER_FORMULA(d, FH_FIXED_BOX, 0, l, r, h);
#undef FH_FIXED_BOX
    return satfeat_fh_response_rcp(d, m.norm.den_d, m.norm.rcp_d); /* fixed: fast layers only */
}

/* Whether sample (kx, ky) of layer m has a response (inside its response rectangle). */
__device__ __forceinline__ bool has_response(const satfeat_fh_plan_map &m, int kx, int ky)
{
    return kx >= m.rx0 && kx <= m.rx1 && ky >= m.ry0 && ky <= m.ry1;
}

/* What every thread of a block needs to know about its tile, worked out once by warp 0: at the
 * kernel's start (fh_octave_kernel) the octave (index into plan.oct) of the tile that the launch
 * position takes (satfeat_fh_block_slot) and the tile's first centre; while the fixed geometry's
 * window is staged (tile_all_in_setup) which layers of the octave have a response at every
 * sample of the tile and its one-sample apron (bit i: layer i), so that those layers need no
 * per-sample bounds test. */
struct fh_tile_setup {
    int oct, kx_org, ky_org;
    uint32_t all_in;
};
__shared__ fh_tile_setup fh_setup;

/* Whether layer i of the block's octave has a response at every sample of the tile and apron
 * (block-uniform). */
__device__ __forceinline__ bool tile_all_in(int i) { return (fh_setup.all_in >> i) & 1u; }

/* Warp 0 (the caller; lane i tests layer i) fills fh_setup.all_in for the tile fh_setup names.
 * The fixed stage functions call it while their table copies are in flight, after the block's
 * first barrier, so the constant-bank reads of the layers' rectangles (a different map per
 * lane) are no longer part of the set-up every warp waits for; all_in is read only after the
 * staged window's barrier, and only by the fixed geometry. */
__device__ __forceinline__ void tile_all_in_setup(const satfeat_fh_plan &plan)
{
    const int lane = (int)threadIdx.x, kx = fh_setup.kx_org, ky = fh_setup.ky_org;
    const satfeat_fh_plan_octave &o = plan.oct[fh_setup.oct];
    bool in = false;
    if (lane < plan.layers) {
        const satfeat_fh_plan_map &m = plan.maps[o.octave * plan.layers + lane];
        in = kx - 1 >= m.rx0 && kx + TX <= m.rx1 && ky - 1 >= m.ry0 && ky + o.tile_h <= m.ry1;
    }
    const uint32_t all_in = __ballot_sync(0xffffffffu, in);
    if (lane == 0) fh_setup.all_in = all_in;
}

/* The response of layer I at column u, row v of the response tile (TH + 2 rows, SX columns): 0
 * where the layer has no response (never read by a tested sample); all_in: the whole tile and
 * apron have responses (block-uniform), so no per-sample bounds test. */
template <int O, int L, int TH, int I>
__device__ __forceinline__ double fixed_value(const satfeat_fh_plan_map &m, bool all_in,
                                              int kx_org, int ky_org, int sh, int v, int u)
{
    typedef fh_fixed<O, L, TH> G;
    const int kx = kx_org - 1 + u, ky = ky_org - 1 + v;
    const int s = G::origin + (G::step * v + G::reach) * G::stride +
                  (G::step == 1 ? u + G::reach + sh : u + ((sh + G::reach) >> 1));
    double val = 0.0;
    if (all_in || has_response(m, kx, ky)) val = fixed_response<O, L, TH, I>(s, m);
    return val;
}

/* fixed_value stored in its place of the response tiles `resp`. */
template <int O, int L, int TH, int I>
__device__ __forceinline__ void fixed_sample(const satfeat_fh_plan_map &m, bool all_in,
                                             int kx_org, int ky_org, int sh, int v, int u,
                                             double *resp)
{
    resp[I * SX * fh_fixed<O, L, TH>::sy + v * SX + u] =
        fixed_value<O, L, TH, I>(m, all_in, kx_org, ky_org, sh, v, u);
}

/* Step-1 layers run in chains (hessian_chain.h): a warp's lanes take columns 0..31 of the tile
 * and walk down rows v, v + l, v + 2l, ... of layer I (lobe l), so every sample after a chain's
 * first reads 18 table entries instead of 32. A chain covers at most FH_CHAIN_MAX samples (long
 * chains are cut into about equal segments), the tile's last two columns go in chunks of 32
 * samples read whole, as in fixed_layer. */
#define FH_CHAIN_MAX 6
/* Most work items (chains and chunks) of one layer a warp may get. */
#define FH_CHAIN_ITEMS 8
#define FH_WARPS (TX * TY / 32)

/* The block's work items of the chained layers of an L-layer step-1 octave in tiles of SYT
 * response rows, spread over the warps at compile time by longest-first greedy assignment (each
 * warp gets the items that keep its load lowest), for a measured balance instead of a fixed
 * round robin. Middle layers only: the outer layers are computed where the maxima need them
 * (the sparse NMS of octave_tile); their items stay empty. first[I][w][k]: row of the first
 * sample of warp w's k-th item of layer I, or FH_CHUNK | c for chunk c of the last two columns;
 * count[I][w][k]: samples of a chain (1 for a chunk), 0 past a warp's last item. */
#define FH_CHUNK 0x80
template <int L, int SYT> struct fh_chain_sched {
    unsigned char first[L][FH_WARPS][FH_CHAIN_ITEMS];
    unsigned char count[L][FH_WARPS][FH_CHAIN_ITEMS];
    bool fits; /* every warp's items fit FH_CHAIN_ITEMS */
};

/* Samples of a chain segment of lobe l in tiles of SYT rows: the longest chain, cut into about
 * equal segments of at most FH_CHAIN_MAX. */
__host__ __device__ constexpr int fh_chain_seg(int syt, int l)
{
    const int longest = (syt + l - 1) / l, segs = (longest + FH_CHAIN_MAX - 1) / FH_CHAIN_MAX;
    return (longest + segs - 1) / segs;
}

template <int L, int SYT> constexpr fh_chain_sched<L, SYT> fh_chain_sched_make()
{
    fh_chain_sched<L, SYT> t{};
    constexpr int most = L * (SYT + 4); /* items of all layers, with room to spare */
    int lay[most] = {}, fst[most] = {}, cnt[most] = {}, cost[most] = {};
    int n = 0;
    for (int i = 1; i + 1 < L; i++) {
        const int l = SATFEAT_FH_LOBE(0, i);
        const int seg = fh_chain_seg(SYT, l), segs = ((SYT + l - 1) / l + seg - 1) / seg;
        for (int j = 0; j < l * segs; j++) {
            const int v = j % l + (j / l) * seg * l;
            if (v >= SYT) continue;
            const int c = (SYT - 1 - v) / l + 1 < seg ? (SYT - 1 - v) / l + 1 : seg;
            lay[n] = i, fst[n] = v, cnt[n] = c;
            cost[n++] = 92 + 75 * (c - 1); /* warp instructions: a chain's first sample, the rest */
        }
        for (int c = 0; c * 32 < 2 * SYT; c++) /* chunks of the last two columns */
            lay[n] = i, fst[n] = FH_CHUNK | c, cnt[n] = 1, cost[n++] = 92;
    }
    for (int a = 1; a < n; a++) /* stable insertion sort by cost, largest first */
        for (int b = a; b > 0 && cost[b - 1] < cost[b]; b--) {
            int u = 0;
            u = lay[b], lay[b] = lay[b - 1], lay[b - 1] = u;
            u = fst[b], fst[b] = fst[b - 1], fst[b - 1] = u;
            u = cnt[b], cnt[b] = cnt[b - 1], cnt[b - 1] = u;
            u = cost[b], cost[b] = cost[b - 1], cost[b - 1] = u;
        }
    int load[FH_WARPS] = {}, items[L][FH_WARPS] = {};
    t.fits = true;
    for (int k = 0; k < n; k++) {
        int w = 0;
        for (int v = 1; v < FH_WARPS; v++)
            if (load[v] < load[w]) w = v;
        load[w] += cost[k];
        int &m = items[lay[k]][w];
        if (m == FH_CHAIN_ITEMS) {
            t.fits = false;
            continue;
        }
        t.first[lay[k]][w][m] = (unsigned char)fst[k];
        t.count[lay[k]][w][m++] = (unsigned char)cnt[k];
    }
    return t;
}

/* The schedules of the two chained geometries (4 and 6 layers, tall tiles), in constant memory:
 * a warp reads its own items (uniform across its lanes). */
typedef fh_chain_sched<4, TT + 2> fh_chain_sched4;
typedef fh_chain_sched<6, TT + 2> fh_chain_sched6;
static_assert(fh_chain_sched_make<4, TT + 2>().fits, "chain items exceed FH_CHAIN_ITEMS");
static_assert(fh_chain_sched_make<6, TT + 2>().fits, "chain items exceed FH_CHAIN_ITEMS");
__constant__ fh_chain_sched4 fh_chain4 = fh_chain_sched_make<4, TT + 2>();
__constant__ fh_chain_sched6 fh_chain6 = fh_chain_sched_make<6, TT + 2>();

template <int L> __device__ __forceinline__ const fh_chain_sched<L, TT + 2> &fh_chain_of()
{
    if constexpr (L == 4)
        return fh_chain4;
    else
        return fh_chain6;
}

/* Layer I of a step-1 octave in chains (the schedule above): warp `warp` runs its items; a
 * chain's lanes hold the row differences of hessian_chain.h from one sample to the next. The
 * same responses as fixed_layer. */
template <int O, int L, int TH, int I>
__device__ __forceinline__ void chain_layer(const satfeat_fh_plan &plan, int kx_org, int ky_org,
                                            int sh, int warp, int lane, double *resp)
{
    typedef fh_fixed<O, L, TH> G;
    static_assert(G::step == 1 && TH == TT, "chains: the tall step-1 octave only");
    constexpr int SYT = G::sy, l = G::lobe(I);
    constexpr int seg = fh_chain_seg(SYT, l);
    const fh_chain_sched<L, SYT> &sched = fh_chain_of<L>();
    const satfeat_fh_plan_map &m = plan.maps[O * L + I];
    const bool all_in = tile_all_in(I);
    for (int q = 0; q < FH_CHAIN_ITEMS; q++) {
        const int count = sched.count[I][warp][q], first = sched.first[I][warp][q];
        if (count == 0) break; /* warp-uniform */
        if (first & FH_CHUNK) { /* 32 samples of the last two columns */
            const int k = (first & ~FH_CHUNK) * 32 + lane;
            if (k < 2 * SYT)
                fixed_sample<O, L, TH, I>(m, all_in, kx_org, ky_org, sh, k >> 1, 32 + (k & 1),
                                          resp);
            continue;
        }
        const int kx = kx_org - 1 + lane;
        const bool col_in = all_in || (kx >= m.rx0 && kx <= m.rx1);
        const int s0 = G::origin + (first + G::reach) * G::stride + lane + G::reach + sh;
#define FH_CHAIN_READ(R, C) G::at(s0 + k * l * G::stride, R, C)
        satfeat_fh_chain c;
        /* unrolled, so that handing the row values on is register renaming, not moves */
#pragma unroll
        for (int k = 0; k < seg; k++) {
            if (k == 0) {
                SATFEAT_FH_CHAIN_START(c, FH_CHAIN_READ, l);
            } else {
                if (k == count) break;
                SATFEAT_FH_CHAIN_NEXT(c, FH_CHAIN_READ, l);
            }
            const int v = first + k * l, ky = ky_org - 1 + v;
            satfeat_fh_hessian d = satfeat_fh_chain_filters(&c, SATFEAT_FH_CHAIN_DXX(FH_CHAIN_READ, l));
            if (!(col_in && (all_in || (ky >= m.ry0 && ky <= m.ry1))))
                d.dxx = d.dyy = d.dxy = 0; /* no response here (0): never read by a tested sample */
            resp[I * SX * SYT + v * SX + lane] = satfeat_fh_response_rcp(d, m.norm.den_d, m.norm.rcp_d);
        }
#undef FH_CHAIN_READ
    }
}

/* Layer I of fixed_tile: the response tile (SX = 34 columns, TH + 2 rows) is cut into chunks of
 * 32 elements: first one chunk per row (its columns 0..31), then the rows' last two columns,
 * 32 at a time. A row chunk's lanes read consecutive window words, so its shared loads are free
 * of bank conflicts (chunks of 32 consecutive tile elements straddled two rows and conflicted
 * two ways). Warp w takes the chunks whose index over all layers (layer-major) is w modulo the
 * block's warps, so the block's threads stay busy across the L x SX x (TH + 2) responses
 * instead of idling through a short last round, and the layer (its geometry and its plan entry)
 * is a compile-time constant. */
template <int O, int L, int TH, int I>
__device__ __forceinline__ void fixed_layer(const satfeat_fh_plan &plan, int kx_org, int ky_org,
                                            int sh, int warp, int lane, double *resp)
{
    typedef fh_fixed<O, L, TH> G;
    static_assert(SX == 34, "row chunks assume 32 + 2 columns");
    constexpr int SYT = G::sy, chunks = SYT + (2 * SYT + 31) / 32, warps = TX * TY / 32;
    static_assert((warps & (warps - 1)) == 0, "the first chunk below takes a power of two");
    const satfeat_fh_plan_map &m = plan.maps[O * L + I];
    const bool all_in = tile_all_in(I);
    for (int j = (warp - I * chunks) & (warps - 1); j < chunks; j += warps) {
        const int k = (j - SYT) * 32 + lane; /* element of the last two columns */
        if (j >= SYT && k >= 2 * SYT) continue;
        fixed_sample<O, L, TH, I>(m, all_in, kx_org, ky_org, sh, j < SYT ? j : k >> 1,
                                  j < SYT ? lane : 32 + (k & 1), resp);
    }
}

/* Layer I of a fixed octave: in chains at step 1, by row chunks at step 2. */
template <int O, int L, int TH, int I>
__device__ __forceinline__ void tile_layer(const satfeat_fh_plan &plan, int kx_org, int ky_org,
                                           int sh, int warp, int lane, double *resp)
{
    if constexpr (fh_fixed<O, L, TH>::step == 1)
        chain_layer<O, L, TH, I>(plan, kx_org, ky_org, sh, warp, lane, resp);
    else
        fixed_layer<O, L, TH, I>(plan, kx_org, ky_org, sh, warp, lane, resp);
}

/* The tile's responses of the L layers of octave O from the staged window (which must start at
 * G::origin, sh entries before the column x0 of the tile's first filter, see fixed_stage), the
 * same values as the generic loop: every layer, or (SPARSE) the middle layers only, the outer
 * ones being left to the sparse NMS of octave_tile. */
template <int O, int L, int TH, bool SPARSE>
__device__ static void fixed_tile(const satfeat_fh_plan &plan, int kx_org, int ky_org, int sh,
                                  int tid, double *resp)
{
    const int warp = tid >> 5, lane = tid & 31;
    if constexpr (!SPARSE) tile_layer<O, L, TH, 0>(plan, kx_org, ky_org, sh, warp, lane, resp);
    tile_layer<O, L, TH, 1>(plan, kx_org, ky_org, sh, warp, lane, resp);
    tile_layer<O, L, TH, 2>(plan, kx_org, ky_org, sh, warp, lane, resp);
    if constexpr (!SPARSE || L > 4) tile_layer<O, L, TH, 3>(plan, kx_org, ky_org, sh, warp, lane, resp);
    if constexpr (L > 4 && (!SPARSE || L > 5))
        tile_layer<O, L, TH, 4>(plan, kx_org, ky_org, sh, warp, lane, resp);
    if constexpr (L > 5 && !SPARSE) tile_layer<O, L, TH, 5>(plan, kx_org, ky_org, sh, warp, lane, resp);
}

/* A window staged in groups of four entries: thread tid copies group column tid % quads of the
 * rows tid / quads, + rows_per_pass, ... (rows_per_pass = the block's threads / quads; the
 * threads beyond stay idle), so its column, and its column's bounds test, are fixed. */
template <int QUADS> struct fh_groups {
    static constexpr int rows_per_pass = TX * TY / QUADS;
    __host__ __device__ static constexpr int passes(int rows)
    {
        return (rows + rows_per_pass - 1) / rows_per_pass;
    }
};

/* One group of four table entries (row gy, columns gx..gx+3) as the window holds them: entries
 * outside the table are 0. */
__device__ __forceinline__ uint4 table_group(const satfeat_fh_plan &plan,
                                             const uint32_t *__restrict__ sat, int gy, int gx,
                                             bool col_in)
{
    const bool row_in = gy >= 0 && gy <= plan.height;
    const long long row = (long long)(row_in ? gy : 0) * (long long)plan.sat_pitch;
    if (row_in && col_in) return __ldg((const uint4 *)&sat[row + gx]);
    uint32_t e[4];
    for (int j = 0; j < 4; j++)
        e[j] = row_in && gx + j >= 0 && gx + j <= plan.width ? sat[row + gx + j] : 0u;
    return make_uint4(e[0], e[1], e[2], e[3]);
}

/* The step-1 window of fixed_stage in 16-byte asynchronous copies: it starts at column
 * xa = x0 - sh, the 16-byte boundary at or below x0 (the table's rows are 128-byte aligned); a
 * group that leaves the table is read entry by entry, entries outside the table set to 0. */
template <int O, int L, int TH>
__device__ static void fixed_stage16(const satfeat_fh_plan &plan,
                                     const uint32_t *__restrict__ sat, int xa, int y0)
{
    typedef fh_fixed<O, L, TH> G;
    typedef fh_groups<G::stride / 4> P;
    constexpr int rows = SATFEAT_FH_WINDOW(TH, 1, G::reach), quads = G::stride / 4;
    const int tid = (int)(threadIdx.y * TX + threadIdx.x);
    const int r0 = tid / quads, c = (tid - r0 * quads) * 4, gx = xa + c;
    const bool col_in = gx >= 0 && gx + 3 <= plan.width;
    if (r0 < P::rows_per_pass) {
#pragma unroll
        for (int k = 0; k < P::passes(rows); k++) {
            const int r = r0 + k * P::rows_per_pass;
            if (r >= rows) break;
            const int gy = y0 + r;
            uint32_t *dst = fh_words + G::origin + r * G::stride + c;
            if (col_in && gy >= 0 && gy <= plan.height) {
                __pipeline_memcpy_async(dst, &sat[(long long)gy * (long long)plan.sat_pitch + gx],
                                        4 * sizeof(uint32_t));
            } else {
                const uint4 v = table_group(plan, sat, gy, gx, col_in);
                *(uint4 *)dst = v;
            }
        }
    }
    __pipeline_commit();
    if (threadIdx.y == 0) tile_all_in_setup(plan);
    __pipeline_wait_prior(0);
    __syncthreads();
}

/* The split step-2 window of fixed_stage: it starts at column xa = x0 - (x0 & 3) like
 * fixed_stage16; each thread loads its groups of four entries (16 bytes) into registers, all of
 * them before any store so the loads are in flight together, then stores a group's even columns
 * to plane 0 and its odd columns to plane 1 (8 bytes each). */
template <int O, int L, int TH>
__device__ static void fixed_stage_split(const satfeat_fh_plan &plan,
                                         const uint32_t *__restrict__ sat, int xa, int y0)
{
    typedef fh_fixed<O, L, TH> G;
    typedef fh_groups<G::half / 2> P;
    constexpr int rows = SATFEAT_FH_WINDOW(TH, G::step, G::reach), quads = G::half / 2;
    constexpr int passes = P::passes(rows);
    static_assert(P::rows_per_pass * quads >= 32, "warp 0 must take part (tile_all_in_setup)");
    const int tid = (int)(threadIdx.y * TX + threadIdx.x);
    const int r0 = tid / quads, c = (tid - r0 * quads) * 4, gx = xa + c;
    const bool col_in = gx >= 0 && gx + 3 <= plan.width;
    if (r0 < P::rows_per_pass) {
        uint4 v[passes];
#pragma unroll
        for (int k = 0; k < passes; k++) {
            const int r = r0 + k * P::rows_per_pass;
            v[k] = r < rows ? table_group(plan, sat, y0 + r, gx, col_in) : make_uint4(0, 0, 0, 0);
        }
        if (threadIdx.y == 0) tile_all_in_setup(plan); /* warp 0's loads in flight */
#pragma unroll
        for (int k = 0; k < passes; k++) {
            const int r = r0 + k * P::rows_per_pass;
            if (r >= rows) break;
            uint32_t *dst = fh_words + G::origin + r * G::stride + c / 2;
            *(uint2 *)dst = make_uint2(v[k].x, v[k].z);
            *(uint2 *)(dst + G::half) = make_uint2(v[k].y, v[k].w);
        }
    }
    __syncthreads();
}

/* stage_window for the fixed geometry: the window's rows, columns and stride are compile-time
 * constants, so every copy is an address at a constant offset from a per-thread base; the same
 * entries and zeros as stage_window, the window starting x0 & 3 entries before x0 (step 1:
 * fixed_stage16, 16-byte asynchronous copies; step 2: fixed_stage_split). */
template <int O, int L, int TH>
__device__ static void fixed_stage(const satfeat_fh_plan &plan, const uint32_t *__restrict__ sat,
                                   int x0, int y0)
{
    if constexpr (fh_fixed<O, L, TH>::step == 1)
        fixed_stage16<O, L, TH>(plan, sat, x0 - (x0 & 3), y0);
    else
        fixed_stage_split<O, L, TH>(plan, sat, x0 - (x0 & 3), y0);
}

/* Whether the fixed geometry of octave O with L layers matches the plan's window. */
template <int O, int L, int TH>
__device__ static bool fixed_fits(const satfeat_fh_plan_octave &oc, int layers)
{
    return layers == L && oc.octave == O && oc.tile_h == TH &&
           oc.win_w == fh_fixed<O, L, TH>::stride && oc.split == (fh_fixed<O, L, TH>::step == 2);
}

/* Stages the table window of a tile (origin x0, y0; oc.win_h rows of oc.win_w entries) into
 * `win` with asynchronous copies, entries outside the table set to 0 (never read by a sample
 * with a response). Windows wholly inside the table, most of them, skip the per-entry bounds
 * tests. (Split windows have the fixed geometry: fixed_stage.) */
__device__ static void stage_window(const satfeat_fh_plan &plan, const uint32_t *__restrict__ sat,
                                   const satfeat_fh_plan_octave &oc, uint32_t *win, int x0, int y0)
{
    const bool inside = x0 >= 0 && y0 >= 0 && x0 + oc.win_w - 1 <= plan.width &&
                        y0 + oc.win_h - 1 <= plan.height;
    for (int r = (int)threadIdx.y; r < oc.win_h; r += TY) {
        const int gy = y0 + r;
        const bool row_in = gy >= 0 && gy <= plan.height;
        const size_t row = row_in ? (size_t)gy * plan.sat_pitch : 0;
        uint32_t *dst = win + r * oc.win_w;
        for (int c = (int)threadIdx.x; c < oc.win_w; c += TX) {
            const int gx = x0 + c;
            if (inside || (row_in && gx >= 0 && gx <= plan.width))
                __pipeline_memcpy_async(dst + c, &sat[row + (size_t)gx], sizeof(uint32_t));
            else
                dst[c] = 0;
        }
    }
    __pipeline_commit();
    __pipeline_wait_prior(0);
    __syncthreads();
}

#endif
