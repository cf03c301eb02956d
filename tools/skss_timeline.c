/* skss_timeline.c - where an SKSS-LB launch spends its time, tile by tile: runs the SAT of one
 * size with the timeline buffer of sat/sat_timeline.h attached (the library must be built with
 * -DSATFEAT_SAT_SKSS_TIMELINE=1) and prints, for a few launches, each phase's mean and maximum
 * duration over the tiles, the look-back steps, how many tiles were resident, and the critical
 * path: from the last tile to finish back through the tile whose published sums it waited for
 * last. Not a test: run by hand on the device machine (docs/BENCHMARKS.md, issue 13).
 *   skss_timeline WIDTH HEIGHT u8|f32 [LAUNCHES [TILE_ROWS]]   (tile rows: 128 unless given) */
#include "sat/sat_cuda.h"
#include "sat/sat_layout.h"
#include "sat/sat_timeline.h"
#include "satfeat.h"

#include <cuda_runtime_api.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define TL_PATH_LINES 48

typedef unsigned long long u64;

static const char *const phase_names[SATFEAT_SAT_TL_PHASES] = {
    "start", "ticket", "loaded", "local", "published", "looked back", "corner", "stored", "end"};

static void die_cuda(cudaError_t e, const char *what)
{
    if (e == cudaSuccess) return;
    fprintf(stderr, "skss_timeline: %s: %s\n", what, cudaGetErrorString(e));
    exit(1);
}

/* Globaltimer stamp of phase k of record r, in ns after t0. */
static double at(const u64 *r, int k, u64 t0)
{
    return (double)(long long)(r[k] - t0);
}

/* Per phase: mean and maximum duration (ns and SM cycles) from the previous phase. */
static void print_phases(const u64 *rec, size_t n)
{
    printf("  phase (from previous)    mean ns    max ns   mean cyc   max cyc\n");
    for (int k = 1; k < SATFEAT_SAT_TL_PHASES; k++) {
        double sn = 0, mn = 0, sc = 0, mc = 0;
        for (size_t i = 0; i < n; i++) {
            const u64 *r = rec + i * SATFEAT_SAT_TL_WORDS;
            const double dn = (double)(long long)(r[k] - r[k - 1]);
            const double dc = (double)(long long)(r[SATFEAT_SAT_TL_PHASES + k] - r[SATFEAT_SAT_TL_PHASES + k - 1]);
            sn += dn;
            sc += dc;
            if (dn > mn) mn = dn;
            if (dc > mc) mc = dc;
        }
        printf("  %-22s %9.0f %9.0f %10.0f %9.0f\n", phase_names[k], sn / (double)n, mn, sc / (double)n, mc);
    }
    double life = 0, lifec = 0, steps[3] = {0, 0, 0}, spins[3] = {0, 0, 0}, early = 0, rect = 0, mx[3] = {0, 0, 0};
    for (size_t i = 0; i < n; i++) {
        const u64 *r = rec + i * SATFEAT_SAT_TL_WORDS;
        life += (double)(r[SATFEAT_SAT_TL_END] - r[SATFEAT_SAT_TL_START]);
        lifec += (double)(r[SATFEAT_SAT_TL_PHASES + SATFEAT_SAT_TL_END] - r[SATFEAT_SAT_TL_PHASES]);
        for (int s = 0; s < 3; s++) {
            const double v = (double)r[SATFEAT_SAT_TL_ROW_STEPS + s];
            steps[s] += v;
            if (v > mx[s]) mx[s] = v;
        }
        spins[0] += (double)r[SATFEAT_SAT_TL_ROW_SPIN];
        spins[1] += (double)r[SATFEAT_SAT_TL_COL_SPIN];
        spins[2] += (double)r[SATFEAT_SAT_TL_CORNER_SPIN];
        early += r[SATFEAT_SAT_TL_EARLY] == 1 ? 1.0 : 0.0;
        rect += r[SATFEAT_SAT_TL_EARLY] == 2 ? 1.0 : 0.0;
    }
    printf("  block life: mean %.0f ns, %.0f cycles (%.2f GHz)\n", life / (double)n, lifec / (double)n,
           lifec / life);
    printf("  look-back tiles per tile: row mean %.2f max %.0f, column mean %.2f max %.0f, diagonal (small "
           "grids: tiles up-left) mean %.2f max %.0f; spins row %.2f column %.2f corner %.2f; corner known early "
           "or trivially %.0f%%, from the tiles up-left (small grids) %.0f%%\n",
           steps[0] / (double)n, mx[0], steps[1] / (double)n, mx[1], steps[2] / (double)n, mx[2],
           spins[0] / (double)n, spins[1] / (double)n, spins[2] / (double)n, 100.0 * early / (double)n,
           100.0 * rect / (double)n);
}

/* Global-flag time of tile (i, j) for the row (or column) direction: published at once on the
 * first column (row), else after its look-back. */
static u64 global_time(const u64 *r, int first)
{
    return first ? r[SATFEAT_SAT_TL_PUBLISHED] : r[SATFEAT_SAT_TL_LOOKED_BACK];
}

/* From the tile that ended last, back through the flag each tile waited for last. */
static void print_path(const u64 *rec, int nx, int ny, u64 t0)
{
    size_t x = 0;
    for (size_t i = 1; i < (size_t)nx * ny; i++)
        if (rec[i * SATFEAT_SAT_TL_WORDS + SATFEAT_SAT_TL_END] > rec[x * SATFEAT_SAT_TL_WORDS + SATFEAT_SAT_TL_END]) x = i;
    printf("  critical path (us after the first start; dep: what the tile waited for last)\n"
           "  tile     ticket  sm   start loaded local  publ lookbk corner stored   end  steps r/c/d dep\n");
    for (int line = 0; line < TL_PATH_LINES; line++) {
        const u64 *r = rec + x * SATFEAT_SAT_TL_WORDS;
        const int ti = (int)r[SATFEAT_SAT_TL_TI], tj = (int)r[SATFEAT_SAT_TL_TJ];
        const int rs = (int)r[SATFEAT_SAT_TL_ROW_STEPS], cs = (int)r[SATFEAT_SAT_TL_COL_STEPS];
        const int ds = (int)r[SATFEAT_SAT_TL_DIAG_STEPS];
        /* the latest flag among those read, per direction */
        u64 best = 0;
        size_t dep = (size_t)-1;
        const char *why = "none";
        for (int s = 1; s <= rs; s++) {
            const size_t o = (size_t)ti * nx + (tj - s);
            const u64 *q = rec + o * SATFEAT_SAT_TL_WORDS;
            const u64 tq = s == rs ? global_time(q, tj - s == 0) : q[SATFEAT_SAT_TL_PUBLISHED];
            if (tq > best) best = tq, dep = o, why = s == rs ? "row G" : "row L";
        }
        for (int s = 1; s <= cs; s++) {
            const size_t o = (size_t)(ti - s) * nx + tj;
            const u64 *q = rec + o * SATFEAT_SAT_TL_WORDS;
            const u64 tq = s == cs ? global_time(q, ti - s == 0) : q[SATFEAT_SAT_TL_PUBLISHED];
            if (tq > best) best = tq, dep = o, why = s == cs ? "col G" : "col L";
        }
        if (r[SATFEAT_SAT_TL_EARLY] == 2) {
            /* small (RECT) grid: the corner waited for the local sums (and totals) of the tiles up-left */
            for (int i = 0; i < ti; i++)
                for (int j = 0; j < tj; j++) {
                    const size_t o = (size_t)i * nx + j;
                    const u64 tq = rec[o * SATFEAT_SAT_TL_WORDS + SATFEAT_SAT_TL_PUBLISHED];
                    if (tq > best) best = tq, dep = o, why = "rect";
                }
        }
        const int rc_blocked = best > r[SATFEAT_SAT_TL_PUBLISHED];
        if (!rc_blocked) dep = (size_t)-1, why = "none";
        if (!r[SATFEAT_SAT_TL_EARLY] && ds > 0) {
            u64 db = 0;
            size_t dd = 0;
            for (int s = 1; s <= ds; s++) {
                const size_t o = (size_t)(ti - s) * nx + (tj - s);
                const u64 *q = rec + o * SATFEAT_SAT_TL_WORDS;
                const u64 tq = s == ds ? q[SATFEAT_SAT_TL_CORNER] : q[SATFEAT_SAT_TL_LOOKED_BACK];
                if (tq > db) db = tq, dd = o;
            }
            if (db > r[SATFEAT_SAT_TL_LOOKED_BACK]) dep = dd, why = "diag";
        }
        printf("  (%2d,%2d) %6llu %3llu", ti, tj, r[SATFEAT_SAT_TL_TICKETNO], r[SATFEAT_SAT_TL_SM]);
        for (int k = 0; k < SATFEAT_SAT_TL_PHASES; k++)
            if (k != SATFEAT_SAT_TL_TICKET) printf(" %6.2f", at(r, k, t0) / 1000.0);
        printf("  %2d/%2d/%2d %s\n", rs, cs, ds, why);
        if (dep == (size_t)-1) break;
        x = dep;
    }
}

static void analyse(const u64 *rec, int nx, int ny)
{
    const size_t n = (size_t)nx * ny;
    u64 t0 = ~0ull, t1 = 0, last_start = 0, gran = ~0ull;
    double busy = 0;
    for (size_t i = 0; i < n; i++) {
        const u64 *r = rec + i * SATFEAT_SAT_TL_WORDS;
        if (r[SATFEAT_SAT_TL_START] < t0) t0 = r[SATFEAT_SAT_TL_START];
        if (r[SATFEAT_SAT_TL_END] > t1) t1 = r[SATFEAT_SAT_TL_END];
        if (r[SATFEAT_SAT_TL_START] > last_start) last_start = r[SATFEAT_SAT_TL_START];
        busy += (double)(r[SATFEAT_SAT_TL_END] - r[SATFEAT_SAT_TL_START]);
        for (int k = 1; k < SATFEAT_SAT_TL_PHASES; k++) {
            const u64 d = r[k] - r[k - 1];
            if (d > 0 && d < gran) gran = d;
        }
    }
    printf("  %zu tiles (%d x %d): first start -> last end %.2f us, last start at %.2f us, %.1f tiles "
           "resident on average; smallest non-zero globaltimer step %llu ns\n",
           n, ny, nx, (double)(t1 - t0) / 1000.0, (double)(last_start - t0) / 1000.0, busy / (double)(t1 - t0),
           gran);
    print_phases(rec, n);
    print_path(rec, nx, ny, t0);
}

int main(int argc, char **argv)
{
    if (argc < 4) {
        fprintf(stderr, "usage: skss_timeline WIDTH HEIGHT u8|f32 [LAUNCHES [TILE_ROWS]]\n");
        return 1;
    }
    const int w = atoi(argv[1]), h = atoi(argv[2]), is_f32 = strcmp(argv[3], "f32") == 0;
    const int launches = argc > 4 ? atoi(argv[4]) : 3, tile = argc > 5 ? atoi(argv[5]) : 128;
    if (w < 1 || h < 1 || launches < 1 || tile < 32) {
        fprintf(stderr, "skss_timeline: bad size or launch count\n");
        return 1;
    }
    const int nx = satfeat_sat_tiles_x(w, 128), ny = satfeat_sat_tiles_y(h, tile);
    const size_t n = (size_t)nx * ny, in = is_f32 ? 4 : 1;
    const size_t sp = ((size_t)w * in + 127) & ~(size_t)127, dp = (((size_t)w + 1) * 4 + 127) & ~(size_t)127;
    satfeat_ctx *ctx = NULL;
    if (satfeat_ctx_new(&ctx, SATFEAT_BACKEND_CUDA, 0) != SATFEAT_OK) {
        fprintf(stderr, "skss_timeline: no CUDA context\n");
        return 1;
    }
    void *src, *dst;
    u64 *d_rec;
    die_cuda(cudaMalloc(&src, sp * (size_t)h), "cudaMalloc");
    die_cuda(cudaMalloc(&dst, dp * ((size_t)h + 1)), "cudaMalloc");
    die_cuda(cudaMalloc((void **)&d_rec, n * SATFEAT_SAT_TL_WORDS * sizeof(u64)), "cudaMalloc");
    die_cuda(cudaMemset(src, 0x5a, sp * (size_t)h), "cudaMemset");
    const cudaError_t att = (cudaError_t)satfeat_sat_skss_timeline_attach(d_rec, n);
    if (att == cudaErrorNotSupported) {
        fprintf(stderr, "skss_timeline: the library was built without -DSATFEAT_SAT_SKSS_TIMELINE=1\n");
        return 3;
    }
    die_cuda(att, "timeline attach");
    u64 *rec = malloc(n * SATFEAT_SAT_TL_WORDS * sizeof(u64));
    if (!rec) return 1;
    for (int l = -5; l < launches; l++) {
        die_cuda(cudaMemset(d_rec, 0, n * SATFEAT_SAT_TL_WORDS * sizeof(u64)), "cudaMemset");
        if (satfeat_sat_cuda_run(ctx, is_f32, src, sp, w, h, dst, dp, SATFEAT_SAT_SKSS_LB, tile, NULL) !=
            SATFEAT_OK) {
            fprintf(stderr, "skss_timeline: %s\n", satfeat_ctx_last_error(ctx));
            return 1;
        }
        die_cuda(cudaDeviceSynchronize(), "SKSS-LB launch");
        if (l < 0) continue;
        die_cuda(cudaMemcpy(rec, d_rec, n * SATFEAT_SAT_TL_WORDS * sizeof(u64), cudaMemcpyDeviceToHost), "cudaMemcpy");
        printf("%dx%d %s, launch %d:\n", w, h, is_f32 ? "f32" : "u8", l + 1);
        analyse(rec, nx, ny);
    }
    die_cuda((cudaError_t)satfeat_sat_skss_timeline_attach(NULL, 0), "timeline detach");
    free(rec);
    cudaFree(d_rec);
    cudaFree(dst);
    cudaFree(src);
    satfeat_ctx_delete(ctx);
    return 0;
}
