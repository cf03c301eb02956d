/* match_cuda_host.c - the CUDA matcher's host side (built only with CUDA): device scratch
 * taken stream-ordered per call (cudaMallocAsync / cudaFreeAsync on the call's stream; the
 * coordinator may move it to context-owned scratch), uploads of host inputs, the launch, and
 * the download of the count, then of exactly that many matches into the caller's list. */
#include "src/context_internal.h"
#include "src/cuda_state.h"
#include "src/features_internal.h"
#include "match/match_cuda.h"
#include "match/match_cuda_host.h"

#include <cuda_runtime_api.h>

/* The library's one CUDA failure path (src/cuda_state.h), with this module's name. */
static satfeat_status cuda_fail(satfeat_ctx *ctx, cudaError_t e, const char *call)
{
    return satfeat_cuda_fail(ctx, (int)e, "match", call);
}

static size_t up256(size_t v)
{
    return (v + 255u) & ~(size_t)255u;
}

/*
 * Runs the launcher on device arrays `p` in `block` (which starts with the outputs: n1 matches
 * and the count, then the scratch) and downloads the result; the caller frees `block`.
 */
static satfeat_status run_on(satfeat_ctx *ctx, const satfeat_match_problem *p,
                             unsigned char *block, cudaStream_t s, satfeat_matches *out)
{
    const size_t out_bytes = up256((size_t)p->n1 * sizeof(satfeat_match_pair));
    satfeat_match_cuda_args a;
    a.kp1 = p->kp1;
    a.desc1 = p->desc1;
    a.n1 = p->n1;
    a.kp2 = p->kp2;
    a.desc2 = p->desc2;
    a.n2 = p->n2;
    a.dim = p->dim;
    a.predicted = p->predicted;
    a.same_laplacian = p->same_laplacian;
    a.mutual = p->mutual;
    a.radius2 = p->radius2;
    a.ratio2 = p->ratio2;
    a.matches = (satfeat_match_pair *)block;
    a.count = (unsigned int *)(block + out_bytes);
    const char *failed = "match launch";
    int err = satfeat_match_cuda_launch(&a, block + out_bytes + 256u, s, &failed);
    if (err != 0) return cuda_fail(ctx, (cudaError_t)err, failed);
    unsigned int n = 0;
    cudaError_t e = cudaMemcpyAsync(&n, a.count, sizeof n, cudaMemcpyDeviceToHost, s);
    if (e != cudaSuccess) return cuda_fail(ctx, e, "cudaMemcpyAsync (match count)");
    e = cudaStreamSynchronize(s);
    if (e != cudaSuccess) return cuda_fail(ctx, e, "cudaStreamSynchronize (match count)");
    satfeat_match_pair *m = NULL;
    const satfeat_status st = satfeat_matches_prepare(out, n, &m);
    if (st != SATFEAT_OK)
        return satfeat_fail(ctx, st, "match: no host memory for %u matches", n);
    if (n) {
        e = cudaMemcpyAsync(m, a.matches, (size_t)n * sizeof(satfeat_match_pair),
                            cudaMemcpyDeviceToHost, s);
        failed = "cudaMemcpyAsync (matches)";
        if (e == cudaSuccess) {
            e = cudaStreamSynchronize(s);
            failed = "cudaStreamSynchronize (matches)";
        }
        if (e != cudaSuccess) {
            satfeat_matches_prepare(out, 0, NULL);
            return cuda_fail(ctx, e, failed);
        }
    }
    return SATFEAT_OK;
}

/* Bytes of the outputs and scratch block for n1 x n2. */
static size_t block_bytes(const satfeat_match_problem *p)
{
    return up256((size_t)p->n1 * sizeof(satfeat_match_pair)) + 256u +
           satfeat_match_cuda_scratch_bytes((size_t)p->n1, (size_t)p->n2);
}

satfeat_status satfeat_match_cuda_device(satfeat_ctx *ctx, const satfeat_match_problem *p,
                                         void *stream, satfeat_matches *out)
{
    cudaError_t e = cudaSetDevice(ctx->device);
    if (e != cudaSuccess) return cuda_fail(ctx, e, "cudaSetDevice");
    cudaStream_t s = (cudaStream_t)stream;
    void *block = NULL;
    e = cudaMallocAsync(&block, block_bytes(p), s);
    if (e != cudaSuccess) return cuda_fail(ctx, e, "cudaMallocAsync (match scratch)");
    satfeat_status st = run_on(ctx, p, (unsigned char *)block, s, out);
    e = cudaFreeAsync(block, s);
    if (e != cudaSuccess && st == SATFEAT_OK) st = cuda_fail(ctx, e, "cudaFreeAsync");
    return st;
}

satfeat_status satfeat_match_cuda_host(satfeat_ctx *ctx, const satfeat_match_problem *p,
                                       satfeat_matches *out)
{
    cudaError_t e = cudaSetDevice(ctx->device);
    if (e != cudaSuccess) return cuda_fail(ctx, e, "cudaSetDevice");
    cudaStream_t s = (cudaStream_t)ctx->stream;
    const size_t kp1 = up256((size_t)p->n1 * sizeof(satfeat_keypoint));
    const size_t kp2 = up256((size_t)p->n2 * sizeof(satfeat_keypoint));
    const size_t d1 = up256((size_t)p->n1 * (size_t)p->dim * sizeof(float));
    const size_t d2 = up256((size_t)p->n2 * (size_t)p->dim * sizeof(float));
    const size_t pr = p->predicted ? up256((size_t)p->n1 * 2u * sizeof(double)) : 0u;
    const size_t inputs = kp1 + kp2 + d1 + d2 + pr;
    unsigned char *block = NULL;
    e = cudaMallocAsync((void **)&block, inputs + block_bytes(p), s);
    if (e != cudaSuccess) return cuda_fail(ctx, e, "cudaMallocAsync (match inputs and scratch)");
    satfeat_match_problem dp = *p;
    unsigned char *at = block;
    dp.kp1 = (const satfeat_keypoint *)at;
    e = cudaMemcpyAsync(at, p->kp1, (size_t)p->n1 * sizeof(satfeat_keypoint),
                        cudaMemcpyHostToDevice, s);
    at += kp1;
    dp.kp2 = (const satfeat_keypoint *)at;
    if (e == cudaSuccess)
        e = cudaMemcpyAsync(at, p->kp2, (size_t)p->n2 * sizeof(satfeat_keypoint),
                            cudaMemcpyHostToDevice, s);
    at += kp2;
    dp.desc1 = (const float *)at;
    if (e == cudaSuccess)
        e = cudaMemcpyAsync(at, p->desc1, (size_t)p->n1 * (size_t)p->dim * sizeof(float),
                            cudaMemcpyHostToDevice, s);
    at += d1;
    dp.desc2 = (const float *)at;
    if (e == cudaSuccess)
        e = cudaMemcpyAsync(at, p->desc2, (size_t)p->n2 * (size_t)p->dim * sizeof(float),
                            cudaMemcpyHostToDevice, s);
    at += d2;
    if (p->predicted) {
        dp.predicted = (const double *)at;
        if (e == cudaSuccess)
            e = cudaMemcpyAsync(at, p->predicted, (size_t)p->n1 * 2u * sizeof(double),
                                cudaMemcpyHostToDevice, s);
        at += pr;
    }
    satfeat_status st = e == cudaSuccess ? run_on(ctx, &dp, at, s, out)
                                         : cuda_fail(ctx, e, "cudaMemcpyAsync (match inputs)");
    e = cudaFreeAsync(block, s);
    if (e != cudaSuccess && st == SATFEAT_OK) st = cuda_fail(ctx, e, "cudaFreeAsync");
    return st;
}
