/* match_cuda_host.c - the CUDA matcher's host side (built only with CUDA). Host inputs: copied
 * into the context's pinned staging, uploaded in one copy into the context's device scratch
 * slot, matched, and the matches with their count downloaded in one copy (pageable copies and
 * per-call device allocations would serialise the contexts of satfeat_trackers_track). Device
 * inputs: scratch taken stream-ordered per call on the caller's stream, the count downloaded,
 * then exactly that many matches into the caller's list. */
#include "src/context_internal.h"
#include "src/cuda_state.h"
#include "src/features_internal.h"
#include "match/match_cuda.h"
#include "match/match_cuda_host.h"

#include <cuda_runtime_api.h>
#include <string.h>

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
 * and the count, then the scratch) and downloads the result: with `stage` (pinned, large enough
 * for the outputs) in one copy through it, else the count and then the matches directly.
 */
static satfeat_status run_on(satfeat_ctx *ctx, const satfeat_match_problem *p,
                             unsigned char *block, cudaStream_t s, unsigned char *stage,
                             satfeat_matches *out)
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
    if (stage) { /* the matches and the count behind them in one copy, one wait */
        cudaError_t e = cudaMemcpyAsync(stage, block, out_bytes + sizeof(unsigned int),
                                        cudaMemcpyDeviceToHost, s);
        if (e == cudaSuccess) e = cudaStreamSynchronize(s);
        if (e != cudaSuccess) return cuda_fail(ctx, e, "match results download");
        unsigned int n;
        memcpy(&n, stage + out_bytes, sizeof n);
        if (n > (unsigned int)p->n1)
            return satfeat_fail(ctx, SATFEAT_ERR_CUDA, "match: the device counted %u matches of %zu",
                                n, (size_t)p->n1);
        satfeat_match_pair *m = NULL;
        const satfeat_status st = satfeat_matches_prepare(out, n, &m);
        if (st != SATFEAT_OK)
            return satfeat_fail(ctx, st, "match: no host memory for %u matches", n);
        if (n) memcpy(m, stage, (size_t)n * sizeof(satfeat_match_pair));
        return SATFEAT_OK;
    }
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
    satfeat_status st = run_on(ctx, p, (unsigned char *)block, s, NULL, out);
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
    /* the inputs' sizes and places, the same in the pinned staging and on the device */
    const size_t sizes[5] = {(size_t)p->n1 * sizeof(satfeat_keypoint),
                             (size_t)p->n2 * sizeof(satfeat_keypoint),
                             (size_t)p->n1 * (size_t)p->dim * sizeof(float),
                             (size_t)p->n2 * (size_t)p->dim * sizeof(float),
                             p->predicted ? (size_t)p->n1 * 2u * sizeof(double) : 0u};
    const void *from[5] = {p->kp1, p->kp2, p->desc1, p->desc2, p->predicted};
    size_t at[6] = {0};
    for (int i = 0; i < 5; i++) at[i + 1] = at[i] + up256(sizes[i]);
    const size_t inputs = at[5];
    const size_t out_bytes = up256((size_t)p->n1 * sizeof(satfeat_match_pair)) + 256u;
    unsigned char *stage = NULL, *block = NULL;
    satfeat_status st = satfeat_cuda_host_staging(ctx, SATFEAT_HOST_SLOT_MATCH,
                                                  inputs > out_bytes ? inputs : out_bytes,
                                                  (void **)&stage);
    if (st == SATFEAT_OK)
        st = satfeat_cuda_scratch(ctx, SATFEAT_SLOT_MATCH, inputs + block_bytes(p), s,
                                  (void **)&block, NULL);
    if (st != SATFEAT_OK) return st;
    for (int i = 0; i < 5; i++)
        if (sizes[i]) memcpy(stage + at[i], from[i], sizes[i]);
    e = cudaMemcpyAsync(block, stage, inputs, cudaMemcpyHostToDevice, s);
    if (e != cudaSuccess) return cuda_fail(ctx, e, "cudaMemcpyAsync (match inputs)");
    satfeat_match_problem dp = *p;
    dp.kp1 = (const satfeat_keypoint *)(block + at[0]);
    dp.kp2 = (const satfeat_keypoint *)(block + at[1]);
    dp.desc1 = (const float *)(block + at[2]);
    dp.desc2 = (const float *)(block + at[3]);
    dp.predicted = p->predicted ? (const double *)(block + at[4]) : NULL;
    st = run_on(ctx, &dp, block + inputs, s, stage, out);
    /* a failure may leave copies queued on the staging: the next call must not find them */
    if (st != SATFEAT_OK) (void)cudaStreamSynchronize(s);
    return st;
}
