/* detector_cuda_bench.c - timing hooks of the CUDA detector (see detector_cuda_bench.h). */
#include "detector_cuda_bench.h"
#include "detector_cuda_state.h"

#include <stdlib.h>
#include <string.h>

static satfeat_status bench_fail(satfeat_ctx *ctx, cudaError_t e, const char *what)
{
    (void)cudaGetLastError();
    return satfeat_fail(ctx, SATFEAT_ERR_CUDA, "bench: %s failed: %s", what, cudaGetErrorString(e));
}

static satfeat_fh_graph_key device_key(satfeat_detector *det, const uint8_t *d_image,
                                       size_t stride, int width, int height)
{
    satfeat_fh_graph_key k;
    memset(&k, 0, sizeof k);
    k.image = d_image;
    k.stride = stride;
    k.width = width;
    k.height = height;
    k.out = det->gpu->out;
    k.land = &det->gpu->land;
    return k;
}

satfeat_status satfeat_fh_bench_enqueue(satfeat_detector *det, const uint8_t *d_image,
                                        size_t stride, int width, int height, void *stream)
{
    if (!det || !det->gpu) return SATFEAT_ERR_UNSUPPORTED;
    satfeat_fh_graph_key k = device_key(det, d_image, stride, width, height);
    return satfeat_fh_enqueue(det, &k, (cudaStream_t)stream);
}

static int cmp_double(const void *a, const void *b)
{
    const double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

satfeat_status satfeat_fh_bench_stages(satfeat_detector *det, const uint8_t *d_image,
                                       size_t stride, int width, int height, int reps,
                                       double us[5])
{
    if (!det || !det->gpu || reps < 1) return SATFEAT_ERR_ARG;
    satfeat_ctx *ctx = det->ctx;
    struct satfeat_fh_cuda *g = det->gpu;
    cudaStream_t s = g->capture;
    satfeat_fh_graph_key k = device_key(det, d_image, stride, width, height);
    cudaEvent_t ev[7];
    double *t = malloc(sizeof(double) * 5 * (size_t)reps);
    if (!t) return satfeat_fail(ctx, SATFEAT_ERR_ALLOC, "bench: out of memory");
    int made = 0;
    cudaError_t e = cudaSuccess;
    for (; made < 7 && e == cudaSuccess; made++) e = cudaEventCreate(&ev[made]);
    satfeat_status st = e == cudaSuccess ? SATFEAT_OK : bench_fail(ctx, e, "cudaEventCreate");
    for (int r = -1; r < reps && st == SATFEAT_OK; r++) { /* r = -1: warm-up */
        if ((e = cudaStreamWaitEvent(s, g->serial, 0)) != cudaSuccess) break;
        if ((e = cudaEventRecord(ev[0], s)) != cudaSuccess) break;
        st = satfeat_fh_record_frame(det, &k, s, &ev[1]);
        if (st != SATFEAT_OK) break;
        if ((e = cudaEventRecord(ev[5], s)) != cudaSuccess) break;
        if ((e = cudaEventRecord(g->serial, s)) != cudaSuccess) break;
        if ((e = cudaStreamSynchronize(s)) != cudaSuccess) break;
        if (r < 0) continue;
        for (int i = 0; i < 5; i++) {
            float ms = 0;
            if ((e = cudaEventElapsedTime(&ms, ev[i], ev[i + 1])) != cudaSuccess) break;
            t[(size_t)i * (size_t)reps + (size_t)r] = 1000.0 * ms;
        }
        if (e != cudaSuccess) break;
    }
    if (st == SATFEAT_OK && e != cudaSuccess) st = bench_fail(ctx, e, "stage timing");
    if (st == SATFEAT_OK)
        for (int i = 0; i < 5; i++) {
            qsort(t + (size_t)i * (size_t)reps, (size_t)reps, sizeof(double), cmp_double);
            us[i] = t[(size_t)i * (size_t)reps + (size_t)reps / 2];
        }
    for (int i = 0; i < made; i++) cudaEventDestroy(ev[i]);
    free(t);
    return st;
}
