/* skss_stress.c - stress of the one-kernel SAT (1R1W-SKSS-LB, seed 002): thousands of launches
 * of random sizes on two streams (one context each, so their work memories are separate) while
 * a kernel holds most SMs, every table compared exactly with the CPU reference, every launch
 * watched for a hang. Not a test: run by hand on the device machine (docs/TESTING.md).
 *   skss_stress [--launches N] [--max-side S] [--seed X] [--free-sms K] [--timeout-ms T]
 *               [--algo skss|2r1w]
 * Exit 0: no mismatch, no hang; 1: a mismatch or an error; 2: a launch did not finish in time. */
#define _POSIX_C_SOURCE 200809L /* clock_gettime */
#include "bench_clock.h"
#include "satfeat.h"
#include "skss_stress_occupier.h"

#include <cuda_runtime_api.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

typedef struct stress_opts {
    long launches;
    int max_side, free_sms, timeout_ms;
    uint64_t seed;
    satfeat_sat_algo algo;
} stress_opts;

/* One stream's lane: its context, buffers and the launch in flight. */
typedef struct lane {
    satfeat_ctx *ctx;
    cudaStream_t stream;
    cudaEvent_t done;
    uint8_t *h_img, *d_img;
    uint32_t *h_tab, *d_tab;
    int w, h, busy;
    size_t dst_stride; /* bytes, >= 4 * (w + 1) */
    long index;
} lane;

static uint64_t rng_next(uint64_t *s)
{
    *s ^= *s >> 12;
    *s ^= *s << 25;
    *s ^= *s >> 27;
    return *s * 2685821657736338717ull;
}

static void die_cuda(cudaError_t e, const char *what)
{
    if (e == cudaSuccess) return;
    fprintf(stderr, "skss_stress: %s: %s\n", what, cudaGetErrorString(e));
    exit(1);
}

static void parse(int argc, char **argv, stress_opts *o)
{
    o->launches = 4000;
    o->max_side = 2048;
    o->seed = 0x5eed16;
    o->free_sms = 2;
    o->timeout_ms = 10000;
    o->algo = SATFEAT_SAT_SKSS_LB;
    for (int i = 1; i + 1 < argc; i += 2) {
        const char *k = argv[i], *v = argv[i + 1];
        if (!strcmp(k, "--launches")) o->launches = strtol(v, NULL, 10);
        else if (!strcmp(k, "--max-side")) o->max_side = (int)strtol(v, NULL, 10);
        else if (!strcmp(k, "--seed")) o->seed = strtoull(v, NULL, 0);
        else if (!strcmp(k, "--free-sms")) o->free_sms = (int)strtol(v, NULL, 10);
        else if (!strcmp(k, "--timeout-ms")) o->timeout_ms = (int)strtol(v, NULL, 10);
        else if (!strcmp(k, "--algo")) o->algo = !strcmp(v, "2r1w") ? SATFEAT_SAT_2R1W : SATFEAT_SAT_SKSS_LB;
        else {
            fprintf(stderr, "skss_stress: unknown option %s\n", k);
            exit(1);
        }
    }
    if (o->launches < 1 || o->max_side < 1 || o->max_side > 16384 || o->free_sms < 0 ||
        o->timeout_ms < 1 || o->seed == 0) {
        fprintf(stderr, "skss_stress: bad option value\n");
        exit(1);
    }
}

static void lane_open(lane *l, const stress_opts *o)
{
    memset(l, 0, sizeof *l);
    if (satfeat_ctx_new(&l->ctx, SATFEAT_BACKEND_CUDA, 0) != SATFEAT_OK) {
        fprintf(stderr, "skss_stress: no CUDA context: %s\n", satfeat_ctx_last_error(l->ctx));
        exit(1);
    }
    const size_t side = (size_t)o->max_side;
    const size_t img = side * side, tab = (side + 1 + 64) * (side + 1) * 4;
    die_cuda(cudaStreamCreateWithFlags(&l->stream, cudaStreamNonBlocking), "cudaStreamCreate");
    die_cuda(cudaEventCreateWithFlags(&l->done, cudaEventDisableTiming), "cudaEventCreate");
    die_cuda(cudaHostAlloc((void **)&l->h_img, img, cudaHostAllocDefault), "cudaHostAlloc");
    die_cuda(cudaHostAlloc((void **)&l->h_tab, tab, cudaHostAllocDefault), "cudaHostAlloc");
    die_cuda(cudaMalloc((void **)&l->d_img, img), "cudaMalloc");
    die_cuda(cudaMalloc((void **)&l->d_tab, tab), "cudaMalloc");
}

/* Queues one launch of a random size on the lane: upload, poison, SAT, download, event. */
static void lane_launch(lane *l, const stress_opts *o, uint64_t *rng, long index)
{
    const uint64_t r = rng_next(rng);
    const int small = (int)(r & 3) != 0; /* three in four launches are small */
    const int cap = small && o->max_side > 300 ? 300 : o->max_side;
    l->w = 1 + (int)(rng_next(rng) % (uint64_t)cap);
    l->h = 1 + (int)(rng_next(rng) % (uint64_t)cap);
    if ((r >> 8) % 16 == 0) l->w = 1; /* thin images too */
    if ((r >> 12) % 16 == 0) l->h = 1;
    l->dst_stride = ((size_t)l->w + 1 + (size_t)((r >> 16) % 64)) * 4;
    for (size_t i = 0; i < (size_t)l->w * (size_t)l->h; i++) l->h_img[i] = (uint8_t)(rng_next(rng) >> 56);
    const size_t tab_bytes = l->dst_stride * ((size_t)l->h + 1);
    die_cuda(cudaMemcpyAsync(l->d_img, l->h_img, (size_t)l->w * (size_t)l->h,
                             cudaMemcpyHostToDevice, l->stream), "upload");
    die_cuda(cudaMemsetAsync(l->d_tab, 0xff, tab_bytes, l->stream), "poison");
    if (satfeat_sat_u8_device(l->ctx, l->d_img, (size_t)l->w, l->w, l->h, l->d_tab, l->dst_stride,
                              o->algo, l->stream) != SATFEAT_OK) {
        fprintf(stderr, "skss_stress: launch %ld (%dx%d): %s\n", index, l->w, l->h,
                satfeat_ctx_last_error(l->ctx));
        exit(1);
    }
    die_cuda(cudaMemcpyAsync(l->h_tab, l->d_tab, tab_bytes, cudaMemcpyDeviceToHost, l->stream),
             "download");
    die_cuda(cudaEventRecord(l->done, l->stream), "cudaEventRecord");
    l->busy = 1;
    l->index = index;
}

/* Waits for the lane's launch (a hang past the timeout exits 2) and compares it exactly with the
 * CPU table; returns the wait in ms. */
static double lane_check(lane *l, const stress_opts *o, satfeat_ctx *cpu, uint32_t *ref)
{
    const size_t ref_stride = ((size_t)l->w + 1) * 4;
    satfeat_sat_u8(cpu, l->h_img, (size_t)l->w, l->w, l->h, ref, ref_stride, SATFEAT_SAT_CPU);
    const double t0 = bench_now_ms();
    cudaError_t e;
    while ((e = cudaEventQuery(l->done)) == cudaErrorNotReady) {
        if (bench_now_ms() - t0 > o->timeout_ms) {
            fprintf(stderr, "skss_stress: HANG: launch %ld (%dx%d) unfinished after %d ms\n",
                    l->index, l->w, l->h, o->timeout_ms);
            exit(2);
        }
    }
    die_cuda(e, "launch");
    const double waited = bench_now_ms() - t0;
    for (int y = 0; y <= l->h; y++) {
        const uint32_t *got = (const uint32_t *)((const uint8_t *)l->h_tab + (size_t)y * l->dst_stride);
        if (memcmp(got, ref + (size_t)y * ((size_t)l->w + 1), ref_stride) != 0) {
            for (int x = 0; x <= l->w; x++)
                if (got[x] != ref[(size_t)y * ((size_t)l->w + 1) + (size_t)x]) {
                    fprintf(stderr, "skss_stress: MISMATCH: launch %ld (%dx%d) at (%d, %d): %u, "
                            "expected %u\n", l->index, l->w, l->h, x, y, got[x],
                            ref[(size_t)y * ((size_t)l->w + 1) + (size_t)x]);
                    exit(1);
                }
        }
    }
    l->busy = 0;
    return waited;
}

int main(int argc, char **argv)
{
    stress_opts o;
    parse(argc, argv, &o);
    setvbuf(stdout, NULL, _IOLBF, 0); /* lines appear as they are printed, also into a file */
    /* Before the first CUDA call: load every kernel when the context is created. With CUDA's
     * default lazy loading, the first launch of a kernel loads its module, which waits for the
     * device to be idle: beside the spinning occupier that never happens, and the program would
     * hang. */
    setenv("CUDA_MODULE_LOADING", "EAGER", 1);
    if (satfeat_cuda_device_count() == 0) {
        printf("skss_stress: no CUDA device\n");
        return 0;
    }
    lane lanes[2];
    lane_open(&lanes[0], &o);
    lane_open(&lanes[1], &o);
    satfeat_ctx *cpu = NULL;
    satfeat_ctx_new(&cpu, SATFEAT_BACKEND_CPU, 0);
    uint32_t *ref = malloc(((size_t)o.max_side + 1) * ((size_t)o.max_side + 1) * 4);
    if (!cpu || !ref) return 1;
    /* one checked launch per lane before the occupier starts (warm work memory and streams) */
    uint64_t warm_rng = o.seed ^ 0x9e3779b97f4a7c15ull;
    for (int k = 0; k < 2; k++) {
        lane_launch(&lanes[k], &o, &warm_rng, -1 - k);
        lane_check(&lanes[k], &o, cpu, ref);
    }
    int sms = 0;
    die_cuda(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0), "SM count");
    const int occupy = sms - o.free_sms > 0 ? sms - o.free_sms : 0;
    int *h_stop = NULL, *d_stop = NULL;
    unsigned long long *d_spins = NULL, spins = 0;
    cudaStream_t side;
    die_cuda(cudaHostAlloc((void **)&h_stop, sizeof *h_stop, cudaHostAllocMapped), "cudaHostAlloc");
    *h_stop = 0;
    die_cuda(cudaHostGetDevicePointer((void **)&d_stop, h_stop, 0), "cudaHostGetDevicePointer");
    die_cuda(cudaMalloc((void **)&d_spins, sizeof *d_spins), "cudaMalloc");
    die_cuda(cudaMemset(d_spins, 0, sizeof *d_spins), "cudaMemset");
    die_cuda(cudaStreamCreateWithFlags(&side, cudaStreamNonBlocking), "cudaStreamCreate");
    if (occupy > 0)
        die_cuda((cudaError_t)skss_stress_occupy_launch(occupy, d_stop, d_spins, side), "occupier");
    printf("skss_stress: %ld launches of up to %dx%d (%s) on 2 streams, %d of %d SMs occupied, "
           "seed %#llx\n", o.launches, o.max_side, o.max_side,
           o.algo == SATFEAT_SAT_2R1W ? "2R1W" : "SKSS-LB", occupy, sms,
           (unsigned long long)o.seed);
    uint64_t rng = o.seed;
    double max_wait = 0, t_start = bench_now_ms();
    for (long i = 0; i < o.launches; i++) {
        lane *l = &lanes[i % 2];
        if (l->busy) {
            const double w = lane_check(l, &o, cpu, ref);
            if (w > max_wait) max_wait = w;
        }
        lane_launch(l, &o, &rng, i);
    }
    for (int k = 0; k < 2; k++)
        if (lanes[k].busy) {
            const double w = lane_check(&lanes[k], &o, cpu, ref);
            if (w > max_wait) max_wait = w;
        }
    *(volatile int *)h_stop = 1;
    die_cuda(cudaStreamSynchronize(side), "occupier finish");
    die_cuda(cudaMemcpy(&spins, d_spins, sizeof spins, cudaMemcpyDeviceToHost), "spins");
    printf("skss_stress: OK: %ld launches checked exactly, 0 mismatches, 0 hangs; longest wait "
           "%.1f ms; %.1f s in all; occupier spun %llu times (it was running)\n", o.launches,
           max_wait, (bench_now_ms() - t_start) / 1e3, spins);
    return 0;
}
