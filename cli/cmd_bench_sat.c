/* cmd_bench_sat.c - `satfeat bench sat`: times the GPU SAT algorithms against the copy floor (a
 * device-to-device copy moving the same bytes) and, where the toolkit has NPP, against
 * nppiIntegral_8u32s_C1R_Ctx. Median of CUDA-event times after warm-up; inputs and outputs are
 * rotated over several buffer sets when one set would fit in the L2 cache. */
#include "commands.h"
#include "out_file.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The help of `satfeat bench` (and `bench sat`), with or without CUDA. */
static void cli_bench_sat_usage(FILE *f)
{
    fprintf(f, "usage: satfeat bench sat [--csv FILE] [--sizes LIST] [--types u8,f32] [--device N]\n"
               "                         [--memory-limit N]\n"
               "       satfeat bench detect IMAGE [options]   (see 'satfeat bench detect --help')\n"
               "       satfeat bench batch IMAGE [options]    (see 'satfeat bench batch --help')\n"
               "\n"
               "GPU summed area table timings per size and type against the copy floor (and NPP\n"
               "when present); needs a CUDA build and device. The 'launch' row times an empty\n"
               "kernel the same way: the cost of one launch.\n"
               "  LIST: comma-separated N (square) or WxH; default 256,512,...,32768,1920x1080\n"
               "  --csv FILE: the rows also as CSV (written through a temporary file, see\n"
               "  'satfeat detect --help' for the output rules)\n"
               "  --memory-limit N: the context's host memory limit (K, M, G, T suffixes)\n"
               "\nexample:\n  satfeat bench sat --sizes 1024,1920x1080 --csv sat.csv\n"
               "\nExit status: 0 ok, 1 the work failed, 2 bad command line.\n");
}

#ifdef SATFEAT_HAVE_CUDA
#include <cuda_runtime_api.h>
#ifdef SATFEAT_HAVE_NPP
#include <nppi.h>
#endif

#define BENCH_MAX_SIZES 64
#define BENCH_MAX_SETS 16
#define BENCH_MAX_REPS 200
#define BENCH_MIN_REPS 15
#define BENCH_WARMUP 5
#define BENCH_ROTATE_BYTES (256.0 * 1024 * 1024) /* rotate while one set is below this / 4 */

typedef struct bench_size {
    int w, h;
} bench_size;

/* M_LAUNCH: an empty kernel (bench_empty_kernel.cu), the cost of one launch timed the same way
 * (the SAT of small images is held to the copy floor plus one launch). */
typedef enum bench_method { M_FLOOR, M_LAUNCH, M_2R1W, M_SKSS, M_NPP, M_COUNT } bench_method;
static const char *const method_names[M_COUNT] = {"copy-floor", "launch", "2R1W", "SKSS-LB",
                                                  "NPP"};

/* Enqueues an empty kernel on s (bench_empty_kernel.cu). */
cudaError_t cli_bench_empty_launch(cudaStream_t s);

/* Buffers of one benchmark case, `sets` copies of each. */
typedef struct bench_bufs {
    int sets;
    void *src[BENCH_MAX_SETS], *dst[BENCH_MAX_SETS];
    void *copy_a[BENCH_MAX_SETS], *copy_b[BENCH_MAX_SETS];
    size_t src_pitch, dst_pitch, copy_bytes;
} bench_bufs;

static int cuda_check(cudaError_t e, const char *what)
{
    if (e == cudaSuccess) return 1;
    fprintf(stderr, "satfeat: bench: %s: %s\n", what, cudaGetErrorString(e));
    return 0;
}

/* Fills n bytes with xorshift noise (never time on zeros); f32 images get values in [0, 256). */
static void fill_random(void *p, size_t n, int is_f32, uint64_t seed)
{
    uint64_t s = seed | 1u;
    if (is_f32) {
        float *f = p;
        for (size_t i = 0; i < n / 4; i++) {
            s ^= s << 13;
            s ^= s >> 7;
            s ^= s << 17;
            f[i] = (float)(s >> 40) * (1.0f / 65536.0f);
        }
    } else {
        uint8_t *b = p;
        size_t i = 0;
        for (; i + 8 <= n; i += 8) {
            s ^= s << 13;
            s ^= s >> 7;
            s ^= s << 17;
            memcpy(b + i, &s, 8);
        }
        for (; i < n; i++) b[i] = (uint8_t)(i * 131u);
    }
}

static void free_bufs(bench_bufs *b)
{
    for (int i = 0; i < b->sets; i++) {
        cudaFree(b->src[i]);
        cudaFree(b->dst[i]);
        cudaFree(b->copy_a[i]);
        cudaFree(b->copy_b[i]);
    }
    memset(b, 0, sizeof *b);
}

static int alloc_bufs(bench_bufs *b, int w, int h, int is_f32)
{
    memset(b, 0, sizeof *b);
    const size_t in = is_f32 ? 4 : 1;
    /* rows start on 128-byte lines, as cudaMallocPitch would place them */
    b->src_pitch = ((size_t)w * in + 127u) & ~(size_t)127u;
    b->dst_pitch = (((size_t)w + 1) * 4u + 127u) & ~(size_t)127u;
    b->copy_bytes = (size_t)w * (size_t)h * (in + 4u) / 2u;
    const double set_bytes = (double)b->src_pitch * h + (double)b->dst_pitch * (h + 1);
    int sets = 1;
    if (set_bytes * 4 < BENCH_ROTATE_BYTES) sets = (int)(BENCH_ROTATE_BYTES / set_bytes);
    if (sets > BENCH_MAX_SETS) sets = BENCH_MAX_SETS;
    size_t host_bytes = b->src_pitch * (size_t)h;
    void *host = malloc(host_bytes);
    if (!host) {
        fprintf(stderr, "satfeat: bench: out of host memory\n");
        return 0;
    }
    for (int i = 0; i < sets; i++) {
        b->sets = i + 1;
        if (!cuda_check(cudaMalloc(&b->src[i], b->src_pitch * (size_t)h), "cudaMalloc (image)") ||
            !cuda_check(cudaMalloc(&b->dst[i], b->dst_pitch * ((size_t)h + 1)), "cudaMalloc (table)") ||
            !cuda_check(cudaMalloc(&b->copy_a[i], b->copy_bytes), "cudaMalloc (copy source)") ||
            !cuda_check(cudaMalloc(&b->copy_b[i], b->copy_bytes), "cudaMalloc (copy target)")) {
            free(host);
            free_bufs(b);
            return 0;
        }
        fill_random(host, host_bytes, is_f32, 0x9e3779b97f4a7c15ull + (uint64_t)i);
        if (!cuda_check(cudaMemcpy(b->src[i], host, host_bytes, cudaMemcpyHostToDevice), "upload") ||
            !cuda_check(cudaMemset(b->copy_a[i], 0x5a, b->copy_bytes), "cudaMemset")) {
            free(host);
            free_bufs(b);
            return 0;
        }
    }
    free(host);
    return 1;
}

#ifdef SATFEAT_HAVE_NPP
static NppStreamContext npp_context(cudaStream_t s)
{
    NppStreamContext c;
    memset(&c, 0, sizeof c);
    int dev = 0;
    cudaGetDevice(&dev);
    struct cudaDeviceProp p;
    cudaGetDeviceProperties(&p, dev);
    c.hStream = s;
    c.nCudaDeviceId = dev;
    c.nMultiProcessorCount = p.multiProcessorCount;
    c.nMaxThreadsPerMultiProcessor = p.maxThreadsPerMultiProcessor;
    c.nMaxThreadsPerBlock = p.maxThreadsPerBlock;
    c.nSharedMemPerBlock = p.sharedMemPerBlock;
    c.nCudaDevAttrComputeCapabilityMajor = p.major;
    c.nCudaDevAttrComputeCapabilityMinor = p.minor;
    unsigned flags = 0;
    cudaStreamGetFlags(s, &flags);
    c.nStreamFlags = flags;
    return c;
}
#endif

/* Enqueues one run of `m` on buffer set `k`; returns 0 on failure (message printed). */
static int run_method(satfeat_ctx *ctx, bench_method m, const bench_bufs *b, int k, int w, int h,
                      int is_f32, cudaStream_t s)
{
    satfeat_status st = SATFEAT_OK;
    switch (m) {
    case M_FLOOR:
        return cuda_check(cudaMemcpyAsync(b->copy_b[k], b->copy_a[k], b->copy_bytes,
                                          cudaMemcpyDeviceToDevice, s),
                          "cudaMemcpyAsync");
    case M_LAUNCH: return cuda_check(cli_bench_empty_launch(s), "empty kernel launch");
    case M_2R1W:
    case M_SKSS: {
        satfeat_sat_algo a = m == M_2R1W ? SATFEAT_SAT_2R1W : SATFEAT_SAT_SKSS_LB;
        st = is_f32 ? satfeat_sat_f32_device(ctx, b->src[k], b->src_pitch, w, h, b->dst[k],
                                             b->dst_pitch, a, s)
                    : satfeat_sat_u8_device(ctx, b->src[k], b->src_pitch, w, h, b->dst[k],
                                            b->dst_pitch, a, s);
        if (st != SATFEAT_OK) cli_report("bench sat", st, ctx);
        return st == SATFEAT_OK;
    }
    case M_NPP: {
#ifdef SATFEAT_HAVE_NPP
        NppiSize roi = {w, h};
        static NppStreamContext nc;
        static cudaStream_t nc_stream;
        static int nc_ready;
        if (!nc_ready || nc_stream != s) {
            nc = npp_context(s);
            nc_stream = s;
            nc_ready = 1;
        }
        NppStatus ns = nppiIntegral_8u32s_C1R_Ctx(b->src[k], (int)b->src_pitch, b->dst[k],
                                                  (int)b->dst_pitch, roi, 0, nc);
        if (ns != NPP_SUCCESS) {
            fprintf(stderr, "satfeat: bench: nppiIntegral_8u32s_C1R_Ctx failed (%d)\n", (int)ns);
            return 0;
        }
        return 1;
#else
        return 0;
#endif
    }
    default: return 0;
    }
}

/* Median time in microseconds of `m` (CUDA events around each run, after warm-up). */
static int time_method(satfeat_ctx *ctx, bench_method m, const bench_bufs *b, int w, int h,
                       int is_f32, cudaStream_t s, int reps, double *median_us)
{
    static double times[BENCH_MAX_REPS];
    cudaEvent_t e0, e1;
    if (!cuda_check(cudaEventCreate(&e0), "cudaEventCreate") ||
        !cuda_check(cudaEventCreate(&e1), "cudaEventCreate"))
        return 0;
    int ok = 1;
    for (int i = 0; i < BENCH_WARMUP && ok; i++) ok = run_method(ctx, m, b, i % b->sets, w, h, is_f32, s);
    if (ok) ok = cuda_check(cudaStreamSynchronize(s), "warm-up");
    for (int i = 0; i < reps && ok; i++) {
        const int k = i % b->sets;
        float ms = 0;
        ok = cuda_check(cudaEventRecord(e0, s), "cudaEventRecord") &&
             run_method(ctx, m, b, k, w, h, is_f32, s) &&
             cuda_check(cudaEventRecord(e1, s), "cudaEventRecord") &&
             cuda_check(cudaEventSynchronize(e1), "cudaEventSynchronize") &&
             cuda_check(cudaEventElapsedTime(&ms, e0, e1), "cudaEventElapsedTime");
        times[i] = (double)ms;
    }
    cudaEventDestroy(e0);
    cudaEventDestroy(e1);
    if (!ok) return 0;
    *median_us = 1000.0 * cli_median(times, reps);
    return 1;
}

static int parse_sizes(const char *text, bench_size *out, int *n)
{
    char buf[1024];
    if (strlen(text) >= sizeof buf) return 0;
    strcpy(buf, text);
    *n = 0;
    for (char *tok = strtok(buf, ","); tok; tok = strtok(NULL, ",")) {
        if (*n >= BENCH_MAX_SIZES) return 0;
        char *x = strchr(tok, 'x');
        int w, h;
        if (x) {
            *x = '\0';
            if (!cli_parse_int(tok, 1, 1 << 20, "width", &w) || !cli_parse_int(x + 1, 1, 1 << 20, "height", &h))
                return 0;
        } else {
            if (!cli_parse_int(tok, 1, 1 << 20, "size", &w)) return 0;
            h = w;
        }
        out[*n].w = w;
        out[*n].h = h;
        (*n)++;
    }
    return *n > 0;
}


static int bench_sat(int argc, char **argv)
{
    const char *csv_path = NULL;
    size_t memory_limit = 0; /* --memory-limit, 0 = the library's default */
    const char *types = "u8,f32";
    int device = 0;
    bench_size sizes[BENCH_MAX_SIZES];
    int n_sizes = 0;
    for (int s = 256; s <= 32768; s *= 2) sizes[n_sizes++] = (bench_size){s, s};
    sizes[n_sizes++] = (bench_size){1920, 1080};
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--help")) {
            cli_bench_sat_usage(stdout);
            return CLI_EXIT_OK;
        } else if (!strcmp(argv[i], "--csv") && i + 1 < argc) {
            csv_path = argv[++i];
        } else if (!strcmp(argv[i], "--memory-limit") && i + 1 < argc) {
            if (!cli_parse_memory_limit(argv[++i], &memory_limit)) return CLI_EXIT_USAGE;
        } else if (!strcmp(argv[i], "--sizes") && i + 1 < argc) {
            if (!parse_sizes(argv[++i], sizes, &n_sizes)) {
                fprintf(stderr, "satfeat: bench sat: bad --sizes list\n");
                return CLI_EXIT_USAGE;
            }
        } else if (!strcmp(argv[i], "--types") && i + 1 < argc) {
            types = argv[++i];
        } else if (!strcmp(argv[i], "--device") && i + 1 < argc) {
            if (!cli_parse_int(argv[++i], 0, 1024, "device", &device)) return CLI_EXIT_USAGE;
        } else {
            cli_bench_sat_usage(stderr);
            return CLI_EXIT_USAGE;
        }
    }
    const int do_u8 = strstr(types, "u8") != NULL, do_f32 = strstr(types, "f32") != NULL;
    cli_out csv_out; /* opened before the work: a bad --csv path fails at once */
    FILE *csv = NULL;
    if (csv_path) {
        if (!cli_out_open(&csv_out, csv_path)) return CLI_EXIT_FAILURE;
        csv = csv_out.f;
    }
    satfeat_ctx *ctx = NULL;
    satfeat_status st = satfeat_ctx_new(&ctx, SATFEAT_BACKEND_CUDA, device);
    if (st == SATFEAT_OK && memory_limit) st = satfeat_ctx_set_memory_limit(ctx, memory_limit);
    if (st != SATFEAT_OK) {
        cli_report("bench sat", st, ctx);
        satfeat_ctx_delete(ctx);
        if (csv) cli_out_close(&csv_out, 0);
        return CLI_EXIT_FAILURE;
    }
    struct cudaDeviceProp prop;
    if (!cuda_check(cudaGetDeviceProperties(&prop, device), "cudaGetDeviceProperties")) {
        satfeat_ctx_delete(ctx);
        if (csv) cli_out_close(&csv_out, 0);
        return CLI_EXIT_FAILURE;
    }
    if (csv) fprintf(csv, "device,width,height,type,method,median_us,ratio_to_floor,bytes_moved,GB_per_s\n");
    printf("device: %s (%d SMs)\n", prop.name, prop.multiProcessorCount);
    printf("%-11s %-4s %-10s %12s %9s %9s\n", "size", "type", "method", "median_us", "x_floor", "GB/s");
    cudaStream_t s;
    int ok = cuda_check(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking), "cudaStreamCreate");
    for (int si = 0; si < n_sizes && ok; si++) {
        for (int ty = 0; ty < 2 && ok; ty++) {
            const int is_f32 = ty == 1;
            if ((is_f32 && !do_f32) || (!is_f32 && !do_u8)) continue;
            const int w = sizes[si].w, h = sizes[si].h;
            bench_bufs b;
            if (!alloc_bufs(&b, w, h, is_f32)) {
                ok = 0;
                break;
            }
            const double bytes = (double)w * h * ((is_f32 ? 4.0 : 1.0) + 4.0);
            double floor_us = 0;
            for (int m = 0; m < M_COUNT && ok; m++) {
#ifndef SATFEAT_HAVE_NPP
                if (m == M_NPP) continue;
#endif
                if (m == M_NPP && is_f32) continue;
                double us = 0;
                int reps = BENCH_MAX_REPS;
                if (floor_us > 0) {
                    reps = (int)(300000.0 / floor_us);
                    reps = reps < BENCH_MIN_REPS ? BENCH_MIN_REPS : reps > BENCH_MAX_REPS ? BENCH_MAX_REPS : reps;
                }
                if (!time_method(ctx, (bench_method)m, &b, w, h, is_f32, s, reps, &us)) {
                    ok = 0;
                    break;
                }
                if (m == M_FLOOR) floor_us = us;
                const double moved = m == M_LAUNCH ? 0.0 : bytes;
                char size_text[32];
                snprintf(size_text, sizeof size_text, "%dx%d", w, h);
                printf("%-11s %-4s %-10s %12.2f %9.3f %9.1f\n", size_text, is_f32 ? "f32" : "u8",
                       method_names[m], us, us / floor_us, moved / us / 1000.0);
                if (csv)
                    fprintf(csv, "\"%s\",%d,%d,%s,%s,%.3f,%.4f,%.0f,%.1f\n", prop.name, w, h,
                            is_f32 ? "f32" : "u8", method_names[m], us, us / floor_us, moved,
                            moved / us / 1000.0);
            }
            fflush(stdout);
            free_bufs(&b);
        }
    }
    cudaStreamDestroy(s);
    if (csv) ok = cli_out_close(&csv_out, ok) && ok;
    satfeat_ctx_delete(ctx);
    return ok ? CLI_EXIT_OK : CLI_EXIT_FAILURE;
}
#endif /* SATFEAT_HAVE_CUDA */

int cli_cmd_bench(int argc, char **argv)
{
    if (argc >= 2 && !strcmp(argv[1], "detect")) return cli_cmd_bench_detect(argc - 1, argv + 1);
    if (argc >= 2 && !strcmp(argv[1], "batch")) return cli_cmd_bench_batch(argc - 1, argv + 1);
    const int help = argc >= 2 && (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h"));
    if (argc < 2 || help || strcmp(argv[1], "sat") != 0) {
        if (argc >= 2 && !help) {
            static const char *const names[] = {"sat", "detect", "batch"};
            const char *near = cli_nearest_name(argv[1], names, 3);
            fprintf(stderr, "satfeat: bench: unknown benchmark '%s'%s%s%s\n", argv[1],
                    near ? "; did you mean " : "", near ? near : "", near ? "?" : "");
        }
        cli_bench_sat_usage(help ? stdout : stderr);
        return help ? CLI_EXIT_OK : CLI_EXIT_USAGE;
    }
    if (argc >= 3 && (!strcmp(argv[2], "--help") || !strcmp(argv[2], "-h"))) {
        cli_bench_sat_usage(stdout);
        return CLI_EXIT_OK;
    }
#ifdef SATFEAT_HAVE_CUDA
    return bench_sat(argc - 1, argv + 1);
#else
    fprintf(stderr, "satfeat: bench sat: built without CUDA\n");
    return CLI_EXIT_FAILURE;
#endif
}
