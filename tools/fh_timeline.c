/* fh_timeline.c - where the octave kernel spends its time, block by block: detects one image on
 * the CUDA backend with the timeline buffer of detect/octave_timeline.h attached (the library must
 * be built with -DSATFEAT_FH_TIMELINE=1) and prints, for the last of a few frames, per octave:
 * blocks, their life and phases (mean, max), when they started and ended relative to the
 * kernel's first block, the maxima they refined; then how many blocks of each octave were
 * resident over the kernel's span (ten equal slices). Not a test: run by hand on the device
 * machine (docs/BENCHMARKS.md, issue 12).
 *   fh_timeline IMAGE [FRAMES [OCTAVES [LAYERS]]] */
#include "detect/octave_timeline.h"
#include "satfeat.h"

#include <cuda_runtime_api.h>
#include <stdio.h>
#include <stdlib.h>

#define TL_MAX_BLOCKS (1u << 17)
#define TL_OCTAVES 8
#define TL_SLICES 10

typedef unsigned long long u64;

static const char *const phase_names[SATFEAT_FH_TL_PHASES] = {"start", "responses", "listed",
                                                              "sparse", "end"};

static void die(const char *what, const char *why)
{
    fprintf(stderr, "fh_timeline: %s: %s\n", what, why);
    exit(1);
}

static void die_cuda(cudaError_t e, const char *what)
{
    if (e != cudaSuccess) die(what, cudaGetErrorString(e));
}

/* Per octave: blocks, phase means and maxima (us), start / end spread, maxima refined. */
static void print_octaves(const u64 *rec, size_t n, u64 t0)
{
    for (int o = 0; o < TL_OCTAVES; o++) {
        size_t cnt = 0;
        double ph[SATFEAT_FH_TL_PHASES] = {0}, phmax[SATFEAT_FH_TL_PHASES] = {0};
        double life = 0, lmax = 0, s0 = 1e30, s1 = 0, e0 = 1e30, e1 = 0, maxima = 0;
        for (size_t i = 0; i < n; i++) {
            const u64 *r = rec + i * SATFEAT_FH_TL_WORDS;
            if (r[SATFEAT_FH_TL_END] == 0 || (int)r[SATFEAT_FH_TL_OCTAVE] != o) continue;
            cnt++;
            for (int k = 1; k < SATFEAT_FH_TL_PHASES; k++) {
                const double d = (double)(long long)(r[k] - r[k - 1]) / 1000.0;
                ph[k] += d;
                if (d > phmax[k]) phmax[k] = d;
            }
            const double l = (double)(r[SATFEAT_FH_TL_END] - r[SATFEAT_FH_TL_START]) / 1000.0;
            const double st = (double)(long long)(r[SATFEAT_FH_TL_START] - t0) / 1000.0;
            const double en = (double)(long long)(r[SATFEAT_FH_TL_END] - t0) / 1000.0;
            life += l;
            if (l > lmax) lmax = l;
            if (st < s0) s0 = st;
            if (st > s1) s1 = st;
            if (en < e0) e0 = en;
            if (en > e1) e1 = en;
            maxima += (double)r[SATFEAT_FH_TL_MAXIMA];
        }
        if (cnt == 0) continue;
        printf("octave %d: %zu blocks, life mean %.2f max %.2f us, started %.2f - %.2f, ended "
               "%.2f - %.2f us, maxima %.1f a block, block-us %.0f\n",
               o, cnt, life / (double)cnt, lmax, s0, s1, e0, e1, maxima / (double)cnt, life);
        for (int k = 1; k < SATFEAT_FH_TL_PHASES; k++)
            printf("    %-10s mean %7.2f max %7.2f us\n", phase_names[k], ph[k] / (double)cnt,
                   phmax[k]);
    }
}

/* Resident blocks of each octave in each of TL_SLICES equal slices of the span (block-us / slice). */
static void print_slices(const u64 *rec, size_t n, u64 t0, double span)
{
    printf("resident blocks per slice of %.2f us (mean over the slice), by octave:\n",
           span / TL_SLICES);
    for (int s = 0; s < TL_SLICES; s++) {
        const double a = span * s / TL_SLICES, b = span * (s + 1) / TL_SLICES;
        double by[TL_OCTAVES] = {0}, all = 0;
        for (size_t i = 0; i < n; i++) {
            const u64 *r = rec + i * SATFEAT_FH_TL_WORDS;
            if (r[SATFEAT_FH_TL_END] == 0) continue;
            const double st = (double)(long long)(r[SATFEAT_FH_TL_START] - t0) / 1000.0;
            const double en = (double)(long long)(r[SATFEAT_FH_TL_END] - t0) / 1000.0;
            const double lo = st > a ? st : a, hi = en < b ? en : b;
            if (hi <= lo) continue;
            const int o = (int)r[SATFEAT_FH_TL_OCTAVE] % TL_OCTAVES;
            by[o] += (hi - lo) / (b - a);
            all += (hi - lo) / (b - a);
        }
        printf("  %6.2f - %6.2f us: %6.1f |", a, b, all);
        for (int o = 0; o < TL_OCTAVES; o++)
            if (by[o] > 0) printf(" o%d %.1f", o, by[o]);
        printf("\n");
    }
}

int main(int argc, char **argv)
{
    if (argc < 2) die("usage", "fh_timeline IMAGE [FRAMES [OCTAVES [LAYERS]]]");
    const int frames = argc > 2 ? atoi(argv[2]) : 5;
    satfeat_detector_params p = satfeat_detector_params_default();
    if (argc > 3) p.octaves = atoi(argv[3]);
    if (argc > 4) p.layers = atoi(argv[4]);
    satfeat_ctx *ctx = NULL;
    if (satfeat_ctx_new(&ctx, SATFEAT_BACKEND_CUDA, 0) != SATFEAT_OK) die("context", "no CUDA");
    uint8_t *img = NULL;
    int w = 0, h = 0;
    if (satfeat_image_load_gray8(ctx, argv[1], &img, &w, &h) != SATFEAT_OK) die(argv[1], "read");
    satfeat_detector *det = NULL;
    if (satfeat_detector_new(ctx, &p, w, h, &det) != SATFEAT_OK) die("detector", "new");
    u64 *d_rec = NULL;
    const size_t bytes = (size_t)TL_MAX_BLOCKS * SATFEAT_FH_TL_WORDS * sizeof(u64);
    die_cuda(cudaMalloc((void **)&d_rec, bytes), "cudaMalloc");
    die_cuda((cudaError_t)satfeat_fh_timeline_attach(d_rec, TL_MAX_BLOCKS), "attach");
    u64 *rec = malloc(bytes);
    satfeat_features *kp = NULL; /* refilled frame after frame */
    if (!rec) die("malloc", "out of memory");
    const satfeat_image_view view = satfeat_image_view_host(img, w, h, 0);
    for (int f = 0; f < frames; f++) {
        die_cuda(cudaMemset(d_rec, 0, bytes), "cudaMemset");
        if (satfeat_detect(det, &view, &kp) != SATFEAT_OK) die("detect", "failed");
        const size_t count = satfeat_features_count(kp);
        die_cuda(cudaMemcpy(rec, d_rec, bytes, cudaMemcpyDeviceToHost), "cudaMemcpy");
        size_t n = 0;
        u64 t0 = ~0ull, t1 = 0;
        for (size_t i = 0; i < TL_MAX_BLOCKS; i++) {
            const u64 *r = rec + i * SATFEAT_FH_TL_WORDS;
            if (r[SATFEAT_FH_TL_END] == 0) continue;
            n = i + 1;
            if (r[SATFEAT_FH_TL_START] < t0) t0 = r[SATFEAT_FH_TL_START];
            if (r[SATFEAT_FH_TL_END] > t1) t1 = r[SATFEAT_FH_TL_END];
        }
        if (n == 0) die("timeline", "no block stamped");
        const double span = (double)(t1 - t0) / 1000.0;
        printf("frame %d: %dx%d, %d octaves x %d layers, %zu keypoints, %zu blocks, first start "
               "-> last end %.2f us\n",
               f, w, h, p.octaves, p.layers, count, n, span);
        if (f + 1 == frames) {
            print_octaves(rec, n, t0);
            print_slices(rec, n, t0, span);
        }
    }
    satfeat_fh_timeline_attach(NULL, 0);
    cudaFree(d_rec);
    free(rec);
    satfeat_features_delete(kp);
    satfeat_free(img);
    satfeat_detector_delete(det);
    satfeat_ctx_delete(ctx);
    return 0;
}
