/* match_cuda_host.c - the CUDA matcher's host side (built only with CUDA). Host inputs: copied
 * into the context's pinned staging and uploaded into the context's device scratch slots, a
 * feature set's copy kept under its stamp so that a set matched again unchanged (the frame's
 * keypoints over a tracker's or an AR session's passes, an AR target's whole feature list) is
 * not uploaded again; matched, and the matches with their count downloaded in one copy
 * (pageable copies and per-call device allocations would serialise the contexts of
 * satfeat_trackers_track). Device
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

/* One set of a host-memory call. A set (stamp != 0) lives in its own device slot, labelled with
 * its stamp, and is uploaded only when the slot holds another stamp; arrays of no set go into
 * the call's block like the predictions. */
typedef struct host_set {
    const satfeat_keypoint *kp;
    const float *desc;
    size_t n, dim;
    uint64_t stamp;          /* satfeat_features_stamp; 0: arrays of no set, never kept */
    satfeat_cuda_slot slot;  /* where a set's copy is kept */
    size_t desc_at, bytes;   /* the descriptors' offset in the copy, the copy's size */
    size_t block_at;         /* no stamp: the copy's offset in the call's block */
    size_t stage_at;         /* where the copy waits in the pinned staging */
    unsigned char *device;   /* the copy on the device */
    int upload;              /* 1 when the copy is made in this call */
} host_set;

/* Sizes set `h` and finds its place: its slot (kept when the label is its stamp; a growth
 * empties the label) or, without a stamp, `*inputs` bytes into the call's block. */
static satfeat_status place_set(satfeat_ctx *ctx, host_set *h, cudaStream_t s, size_t *inputs)
{
    h->desc_at = up256(h->n * sizeof(satfeat_keypoint));
    h->bytes = h->desc_at + up256(h->n * h->dim * sizeof(float));
    h->upload = 1;
    h->device = NULL;
    if (!h->stamp) {
        h->block_at = *inputs;
        *inputs += h->bytes;
        return SATFEAT_OK;
    }
    void *d = NULL;
    const satfeat_status st = satfeat_cuda_scratch(ctx, h->slot, h->bytes, s, &d, NULL);
    if (st != SATFEAT_OK) return st;
    h->device = d;
    h->upload = satfeat_cuda_scratch_label(ctx, h->slot) != h->stamp;
    return SATFEAT_OK;
}

satfeat_status satfeat_match_cuda_host(satfeat_ctx *ctx, const satfeat_match_problem *p,
                                       satfeat_matches *out)
{
    cudaError_t e = cudaSetDevice(ctx->device);
    if (e != cudaSuccess) return cuda_fail(ctx, e, "cudaSetDevice");
    cudaStream_t s = (cudaStream_t)ctx->stream;
    host_set sets[2];
    memset(sets, 0, sizeof sets);
    sets[0].kp = p->kp1, sets[0].desc = p->desc1, sets[0].n = (size_t)p->n1;
    /* a kept query set (an AR session's joint set) has a slot the other query sets leave alone */
    sets[0].stamp = p->stamp1;
    sets[0].slot = p->keep1 ? SATFEAT_SLOT_MATCH_KEPT : SATFEAT_SLOT_MATCH_QUERY;
    sets[1].kp = p->kp2, sets[1].desc = p->desc2, sets[1].n = (size_t)p->n2;
    sets[1].stamp = p->stamp2, sets[1].slot = SATFEAT_SLOT_MATCH_TRAIN;
    sets[0].dim = sets[1].dim = (size_t)p->dim;
    /* the call's block: its own inputs (sets without a stamp, the predictions), then run_on's
     * outputs and scratch */
    size_t inputs = 0;
    satfeat_status st = SATFEAT_OK;
    for (int i = 0; i < 2 && st == SATFEAT_OK; i++) st = place_set(ctx, &sets[i], s, &inputs);
    if (st != SATFEAT_OK) return st;
    const size_t pred_at = inputs;
    const size_t pred_bytes = p->predicted ? (size_t)p->n1 * 2u * sizeof(double) : 0u;
    inputs += up256(pred_bytes);
    /* the pinned staging holds every upload of the call (the block's inputs, then the sets to
     * their slots), later the results coming down */
    size_t staged = inputs;
    for (int i = 0; i < 2; i++) {
        host_set *h = &sets[i];
        h->stage_at = h->stamp ? staged : h->block_at;
        if (h->stamp && h->upload) staged += h->bytes;
    }
    const size_t out_bytes = up256((size_t)p->n1 * sizeof(satfeat_match_pair)) + 256u;
    unsigned char *stage = NULL, *block = NULL;
    st = satfeat_cuda_host_staging(ctx, SATFEAT_HOST_SLOT_MATCH,
                                   staged > out_bytes ? staged : out_bytes, (void **)&stage);
    if (st == SATFEAT_OK)
        st = satfeat_cuda_scratch(ctx, SATFEAT_SLOT_MATCH, inputs + block_bytes(p), s,
                                  (void **)&block, NULL);
    if (st != SATFEAT_OK) return st;
    for (int i = 0; i < 2; i++) {
        host_set *h = &sets[i];
        if (!h->stamp) h->device = block + h->block_at;
        if (!h->upload) continue;
        memcpy(stage + h->stage_at, h->kp, h->n * sizeof(satfeat_keypoint));
        memcpy(stage + h->stage_at + h->desc_at, h->desc, h->n * h->dim * sizeof(float));
    }
    if (pred_bytes) memcpy(stage + pred_at, p->predicted, pred_bytes);
    const char *failed = "cudaMemcpyAsync (match inputs)";
    e = inputs ? cudaMemcpyAsync(block, stage, inputs, cudaMemcpyHostToDevice, s) : cudaSuccess;
    for (int i = 0; i < 2 && e == cudaSuccess; i++) {
        host_set *h = &sets[i];
        if (!h->stamp || !h->upload) continue;
        satfeat_cuda_set_scratch_label(ctx, h->slot, 0); /* labelled once the copy is queued */
        e = cudaMemcpyAsync(h->device, stage + h->stage_at, h->bytes, cudaMemcpyHostToDevice, s);
        failed = "cudaMemcpyAsync (match set)";
        if (e == cudaSuccess) satfeat_cuda_set_scratch_label(ctx, h->slot, h->stamp);
    }
    satfeat_match_problem dp = *p;
    dp.kp1 = (const satfeat_keypoint *)sets[0].device;
    dp.desc1 = (const float *)(sets[0].device + sets[0].desc_at);
    dp.kp2 = (const satfeat_keypoint *)sets[1].device;
    dp.desc2 = (const float *)(sets[1].device + sets[1].desc_at);
    dp.predicted = p->predicted ? (const double *)(block + pred_at) : NULL;
    st = e == cudaSuccess ? run_on(ctx, &dp, block + inputs, s, stage, out)
                          : cuda_fail(ctx, e, failed);
    if (st != SATFEAT_OK) {
        /* a failure may leave copies queued on the staging: the next call must not find them,
         * nor trust a set's copy whose upload may not have completed */
        (void)cudaStreamSynchronize(s);
        for (int i = 0; i < 2; i++)
            if (sets[i].stamp && sets[i].upload)
                satfeat_cuda_set_scratch_label(ctx, sets[i].slot, 0);
    }
    return st;
}
