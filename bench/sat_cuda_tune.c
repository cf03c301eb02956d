/* sat_cuda_tune.c - measures every band or tile height (32, 64, 128, and 256 for SKSS-LB on u8) of
 * both GPU SAT algorithms for both element types at a few sizes, as the ratio to a same-bytes
 * device copy; the source of the values in sat/sat_tuning.h. Every u8 table is also compared bit for bit with the 2R1W
 * B=32 table of the same image (a mismatch is printed and the exit status is 2). Not a test:
 * run by hand on the device machine. */
#include "sat/sat_cuda.h"
#include "sat/sat_layout.h"
#include "satfeat.h"

#include <cuda_runtime_api.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define REPS 31

static int cmpf(const void *a, const void *b)
{
    float x = *(const float *)a, y = *(const float *)b;
    return (x > y) - (x < y);
}

/* Median microseconds of `tile` (0 = the copy floor) for one case. */
static double time_case(satfeat_ctx *ctx, int is_f32, int algo, int tile, const void *src,
                        size_t sp, int w, int h, void *dst, size_t dp, void *ca, void *cb,
                        size_t cbytes)
{
    float t[REPS];
    cudaEvent_t e0, e1;
    cudaEventCreate(&e0);
    cudaEventCreate(&e1);
    for (int i = -3; i < REPS; i++) {
        cudaEventRecord(e0, 0);
        if (tile == 0) cudaMemcpyAsync(cb, ca, cbytes, cudaMemcpyDeviceToDevice, 0);
        else if (satfeat_sat_cuda_run(ctx, is_f32, src, sp, w, h, dst, dp, (satfeat_sat_algo)algo,
                                      tile, NULL) != SATFEAT_OK) {
            fprintf(stderr, "%s\n", satfeat_ctx_last_error(ctx));
            exit(1);
        }
        cudaEventRecord(e1, 0);
        cudaEventSynchronize(e1);
        if (i >= 0) cudaEventElapsedTime(&t[i], e0, e1);
    }
    cudaEventDestroy(e0);
    cudaEventDestroy(e1);
    qsort(t, REPS, sizeof t[0], cmpf);
    return 1000.0 * t[REPS / 2];
}

int main(int argc, char **argv)
{
    static const int sizes[][2] = {{1920, 1080}, {1024, 1024}, {4096, 4096}, {8192, 8192}, {16384, 16384}};
    int n = argc > 1 ? atoi(argv[1]) : 5;
    satfeat_ctx *ctx = NULL;
    if (satfeat_ctx_new(&ctx, SATFEAT_BACKEND_CUDA, 0) != SATFEAT_OK) return 1;
    int mismatches = 0;
    printf("size        type algo     W=32x   W=64x   W=128x  W=256x  (ratio to copy floor)\n");
    for (int s = 0; s < n && s < 5; s++) {
        const int w = sizes[s][0], h = sizes[s][1];
        for (int is_f32 = 0; is_f32 < 2; is_f32++) {
            const size_t in = is_f32 ? 4 : 1;
            const size_t sp = ((size_t)w * in + 127) & ~(size_t)127, dp = (((size_t)w + 1) * 4 + 127) & ~(size_t)127;
            const size_t cbytes = (size_t)w * h * (in + 4) / 2;
            void *src, *dst, *ca, *cb;
            if (cudaMalloc(&src, sp * h) || cudaMalloc(&dst, dp * (h + 1)) || cudaMalloc(&ca, cbytes) ||
                cudaMalloc(&cb, cbytes))
                return 1;
            unsigned char *host = malloc(sp * h);
            for (size_t i = 0; i < sp * h; i++) host[i] = (unsigned char)((i * 2654435761u) >> 13);
            if (is_f32)
                for (size_t i = 0; i < sp * h / 4; i++) ((float *)host)[i] = (float)(i % 977) * 0.25f;
            cudaMemcpy(src, host, sp * h, cudaMemcpyHostToDevice);
            cudaMemset(ca, 0x33, cbytes);
            free(host);
            const double fl = time_case(ctx, is_f32, 0, 0, src, sp, w, h, dst, dp, ca, cb, cbytes);
            const size_t tbytes = dp * ((size_t)h + 1);
            unsigned char *ref = is_f32 ? NULL : malloc(tbytes), *got = is_f32 ? NULL : malloc(tbytes);
            for (int algo = SATFEAT_SAT_2R1W; algo <= SATFEAT_SAT_SKSS_LB; algo++) {
                printf("%5dx%-5d %-4s %-8s", w, h, is_f32 ? "f32" : "u8", algo == SATFEAT_SAT_2R1W ? "2R1W" : "SKSS-LB");
                for (int tile = 32; tile <= 256; tile *= 2) {
                    if (!satfeat_sat_rows_supported(algo == SATFEAT_SAT_SKSS_LB, is_f32, tile)) {
                        printf(" %7s", "-");
                        continue;
                    }
                    printf(" %7.3f", time_case(ctx, is_f32, algo, tile, src, sp, w, h, dst, dp, ca, cb, cbytes) / fl);
                    if (!ref || !got) continue;
                    unsigned char *into = algo == SATFEAT_SAT_2R1W && tile == 32 ? ref : got;
                    if (cudaMemcpy(into, dst, tbytes, cudaMemcpyDeviceToHost) != cudaSuccess) return 1;
                    for (int y = 0; into == got && y <= h; y++)
                        if (memcmp(ref + (size_t)y * dp, got + (size_t)y * dp, ((size_t)w + 1) * 4)) {
                            printf(" MISMATCH(row %d)", y);
                            mismatches++;
                            break;
                        }
                }
                printf("   floor %.2f us\n", fl);
                fflush(stdout);
            }
            cudaFree(src);
            free(ref);
            free(got);
            cudaFree(dst);
            cudaFree(ca);
            cudaFree(cb);
        }
    }
    satfeat_ctx_delete(ctx);
    if (mismatches) printf("%d mismatching u8 tables\n", mismatches);
    return mismatches ? 2 : 0;
}
