/* sat_skss_lb.cu - the single-kernel 1R1W-SKSS-LB SAT (seed 002): one block per tile, tiles handed
 * out by ticket in diagonal-major order, carries obtained by looking back left, up and along the
 * diagonal at what earlier tiles published. One read and one write per element.
 *
 * Synchronisation between blocks: a tile publishes a W-vector (or a scalar) by writing it with
 * plain stores, fencing (__threadfence), a block barrier, and one thread storing the tile's flag
 * with release semantics at device scope; readers load the flag with acquire semantics
 * (cuda::atomic_ref) before loading the data. A flag is (tag << 2) | state with tag = launch
 * epoch + 1, so flags left by earlier launches are never taken for this launch's and nothing is
 * reset between launches. The ticket counter and a finished-blocks counter live in the work
 * buffer's header; the last block to finish resets both and advances the epoch. */
#include "sat_kernels.h"
#include "sat_tile.cuh"

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

/** Spins until `flag` carries this launch's tag; returns its state (kLocal or kGlobal). */
__device__ __forceinline__ uint64_t wait_flag(unsigned long long *flag, uint64_t tag)
{
    FlagRef ref(*flag);
    unsigned long long f = ref.load(cuda::memory_order_acquire);
    while ((f >> 2) != tag) {
        __nanosleep(32);
        f = ref.load(cuda::memory_order_acquire);
    }
    return f & 3u;
}

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

/** Pointers into the work buffer for one launch of n tiles (layout in sat_layout.h). */
template <typename Acc>
struct SkssWork {
    unsigned long long *row_flag, *col_flag, *diag_flag;
    Acc *lrs, *grs, *lcs, *gcs, *gls, *gs;
};

template <typename Acc>
__device__ __forceinline__ SkssWork<Acc> skss_work(satfeat_sat_work_header *hdr, uint64_t data_off,
                                                   size_t n, int W)
{
    char *base = reinterpret_cast<char *>(hdr);
    SkssWork<Acc> w;
    w.row_flag = reinterpret_cast<unsigned long long *>(base + SATFEAT_SAT_WORK_HEADER_BYTES);
    w.col_flag = w.row_flag + n;
    w.diag_flag = w.col_flag + n;
    w.lrs = reinterpret_cast<Acc *>(base + data_off);
    w.grs = w.lrs + n * W;
    w.lcs = w.grs + n * W;
    w.gcs = w.lcs + n * W;
    w.gls = w.gcs + n * W;
    w.gs = w.gls + n;
    return w;
}

/**
 * The whole SAT in one launch. One block (2W threads) per tile, the tile chosen by ticket.
 * A block loads its tile of the padded image (one read of the input), computes the local SAT in
 * registers, publishes its local row sums (LRS) and column sums (LCS), looks back left for the
 * sums of each of its rows over all tiles to its left and up for the sums of each column above
 * it (adding local sums of tiles that have not finished until it meets a tile whose global sums
 * are published), publishes its own global row/column sums (GRS/GCS), then its local corner
 * sum (GLS = everything left, above and inside) and, after looking back along the diagonal, its
 * global corner (GS), and finally writes its tile of the table (one write of the output).
 */
template <int W, bool VEC, typename In>
__global__ void __launch_bounds__(TileShape<W>::kThreads)
    skss_lb(SatGeom g, satfeat_sat_work_header *hdr)
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
    __shared__ Acc s_total, s_corner;
    __shared__ long long s_ticket;
    __shared__ unsigned long long s_tag, s_data_off;
    const int t = threadIdx.x, cg = t % CG, rg = t / CG;
    if (t == 0) {
        s_ticket = atomicAdd(&hdr->ticket, 1u);
        s_tag = hdr->epoch + 1u;
        s_data_off = hdr->data_off;
    }
    __syncthreads();
    const size_t n = (size_t)g.tiles_x * g.tiles_y;
    int ti, tj;
    tile_of_ticket(s_ticket, g.tiles_x, g.tiles_y, &ti, &tj);
    const size_t tile = (size_t)ti * g.tiles_x + tj;
    const uint64_t tag = s_tag;
    const SkssWork<Acc> wk = skss_work<Acc>(hdr, s_data_off, n, W);
    const bool need_row = tj < g.tiles_x - 1; /* a tile to the right will look back at us */
    const bool need_col = ti < g.tiles_y - 1;

    Acc v[R][4];
    load_tile<W, VEC, In>(g, ti, tj, cg, rg, v);
    tile_local_sat<W>(v, cg, rg, part, part_raw, row_tot, col_tot);
    if (t == T - 1) s_total = v[R - 1][3];

    /* publish the local sums (global ones straight away on the first row/column of tiles) */
    if (t < W) {
        if (need_row) (tj == 0 ? wk.grs : wk.lrs)[tile * W + t] = row_tot[t];
    } else {
        if (need_col) (ti == 0 ? wk.gcs : wk.lcs)[tile * W + (t - W)] = col_tot[t - W];
    }
    __threadfence();
    __syncthreads();
    if (t == 0 && need_row) publish(&wk.row_flag[tile], tag, tj == 0 ? kGlobal : kLocal);
    if (t == W && need_col) publish(&wk.col_flag[tile], tag, ti == 0 ? kGlobal : kLocal);

    /* look back: threads [0, W) along their row, threads [W, 2W) up their column */
    if (t < W) {
        Acc acc = Acc(0);
        for (int j = tj - 1; j >= 0; j--) {
            const size_t other = (size_t)ti * g.tiles_x + j;
            if (wait_flag(&wk.row_flag[other], tag) == kGlobal) {
                acc += wk.grs[other * W + t];
                break;
            }
            acc += wk.lrs[other * W + t];
        }
        left[t] = acc;
        if (need_row && tj > 0) wk.grs[tile * W + t] = acc + row_tot[t];
    } else {
        const int c = t - W;
        Acc acc = Acc(0);
        for (int i = ti - 1; i >= 0; i--) {
            const size_t other = (size_t)i * g.tiles_x + tj;
            if (wait_flag(&wk.col_flag[other], tag) == kGlobal) {
                acc += wk.gcs[other * W + c];
                break;
            }
            acc += wk.lcs[other * W + c];
        }
        top[c] = acc;
        if (need_col && ti > 0) wk.gcs[tile * W + c] = acc + col_tot[c];
    }
    __threadfence();
    __syncthreads();
    if (t == 0 && need_row && tj > 0) publish(&wk.row_flag[tile], tag, kGlobal);
    if (t == W && need_col && ti > 0) publish(&wk.col_flag[tile], tag, kGlobal);

    scan_two_vectors<W>(left, top, warp_tot);

    /* the corner: everything above and to the left of the tile, by diagonal look-back */
    if (t == 0) {
        const Acc gls = (left[W - 1] + top[W - 1]) + s_total;
        const bool need_diag = need_row && need_col;
        Acc corner = Acc(0);
        if (ti > 0 && tj > 0) {
            if (need_diag) {
                wk.gls[tile] = gls;
                publish(&wk.diag_flag[tile], tag, kLocal);
            }
            for (int k = 1; k <= ti && k <= tj; k++) {
                const size_t other = (size_t)(ti - k) * g.tiles_x + (tj - k);
                if (wait_flag(&wk.diag_flag[other], tag) == kGlobal) {
                    corner += wk.gs[other];
                    break;
                }
                corner += wk.gls[other];
            }
        }
        if (need_diag) {
            wk.gs[tile] = corner + gls;
            publish(&wk.diag_flag[tile], tag, kGlobal);
        }
        s_corner = corner;
    }
    __syncthreads();
    store_tile<W, VEC>(g, ti, tj, cg, rg, v, s_corner, left, top);

    if (t == 0) {
        cuda::atomic_ref<unsigned int, cuda::thread_scope_device> done(hdr->done);
        if (done.fetch_add(1u, cuda::memory_order_acq_rel) == (unsigned)n - 1u) {
            /* the last block: every ticket is taken and every block has finished its flags */
            hdr->ticket = 0;
            hdr->done = 0;
            hdr->epoch = tag;
        }
    }
}

template <int W, bool VEC, typename In>
cudaError_t launch_skss(const satfeat_sat_launch *l, const char **failed)
{
    SatGeom g{l->src, l->src_stride, l->dst, l->dst_stride, l->width, l->height,
              satfeat_sat_tiles_x(l->width, W), satfeat_sat_tiles_y(l->height, W)};
    const unsigned tiles = (unsigned)g.tiles_x * (unsigned)g.tiles_y;
    skss_lb<W, VEC, In><<<tiles, TileShape<W>::kThreads, 0, static_cast<cudaStream_t>(l->stream)>>>(
        g, static_cast<satfeat_sat_work_header *>(l->work));
    cudaError_t e = cudaPeekAtLastError();
    if (e != cudaSuccess) *failed = "SKSS-LB kernel launch";
    return e;
}

template <typename In>
cudaError_t launch_skss_any(const satfeat_sat_launch *l, const char **failed)
{
    const bool vec = vector_ok<In>(l->src, l->src_stride, l->dst, l->dst_stride);
    switch (l->tile) {
    case 32: return vec ? launch_skss<32, true, In>(l, failed) : launch_skss<32, false, In>(l, failed);
    case 64: return vec ? launch_skss<64, true, In>(l, failed) : launch_skss<64, false, In>(l, failed);
    case 128: return vec ? launch_skss<128, true, In>(l, failed) : launch_skss<128, false, In>(l, failed);
    default: *failed = "SKSS-LB tile side"; return cudaErrorInvalidValue;
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
