/* detector_cuda.c - the CUDA detector: device buffers sized at creation, the per-frame work
 * (SAT, responses, extrema, order, selection, orientation and descriptors, download) captured
 * once per frame key into a CUDA graph
 * and replayed, frames from device memory and from host memory through slots. Built with CUDA
 * only. Frames of one detector run one after another on the GPU (an event chains them, whatever
 * stream they are queued on), because they share the table, maps and candidate buffers. */
#include "detect/detector_cuda_state.h"
#include "src/cuda_state.h"
#include "describe/describe.h"
#include "detect/kernels_cuda.h"
#include "detect/order_buckets.h"
#include "sat/sat.h"

#include <cuda_runtime_api.h>
#include <stdlib.h>
#include <string.h>

size_t satfeat_fh_round128(size_t v)
{
    return (v + 127u) & ~(size_t)127u;
}

/* The most keypoints selection can output for `det`: the candidate bound, or max_keypoints
 * when that is smaller (the creation checks keep the bound below 2^31). */
static uint32_t out_cap_of(const satfeat_detector *det)
{
    size_t cap = det->candidate_cap;
    const int mk = det->params.max_keypoints;
    if (mk > 0 && (size_t)mk < cap) cap = (size_t)mk;
    return (uint32_t)cap;
}

/* Floats per descriptor of `det` (0: no descriptors). */
static int desc_dim(const satfeat_detector *det)
{
    return (int)det->params.descriptor;
}

/* Allocates a landing buffer of min(out_cap, SLOT_STAGE_KEYPOINTS) keypoints and, when the
 * detector has descriptors, as many descriptors (mapped pinned memory) into *l; what was
 * allocated before a failure is freed by landing_free. */
static cudaError_t landing_new(const satfeat_detector *det, satfeat_fh_landing *l)
{
    const uint32_t cap = out_cap_of(det);
    l->cap = cap < SLOT_STAGE_KEYPOINTS ? cap : SLOT_STAGE_KEYPOINTS;
    l->dim = desc_dim(det);
    const size_t slots = l->cap ? l->cap : 1u;
    cudaError_t e = cudaHostAlloc((void **)&l->h_count, sizeof(uint32_t), cudaHostAllocMapped);
    if (e == cudaSuccess)
        e = cudaHostAlloc((void **)&l->h_kp, slots * sizeof(satfeat_keypoint), cudaHostAllocMapped);
    if (e == cudaSuccess && l->dim > 0)
        e = cudaHostAlloc((void **)&l->h_desc, slots * (size_t)l->dim * sizeof(float),
                          cudaHostAllocMapped);
    if (e == cudaSuccess) e = cudaHostGetDevicePointer((void **)&l->d_count, l->h_count, 0);
    if (e == cudaSuccess) e = cudaHostGetDevicePointer((void **)&l->d_kp, l->h_kp, 0);
    if (e == cudaSuccess && l->h_desc)
        e = cudaHostGetDevicePointer((void **)&l->d_desc, l->h_desc, 0);
    return e;
}

static void landing_free(satfeat_fh_landing *l)
{
    if (l->h_count) cudaFreeHost(l->h_count);
    if (l->h_kp) cudaFreeHost(l->h_kp);
    if (l->h_desc) cudaFreeHost(l->h_desc);
    memset(l, 0, sizeof *l);
}

/* Device bytes of the descriptors of `det`'s largest selection (0 without descriptors). */
static size_t desc_bytes(const satfeat_detector *det)
{
    const size_t cap = out_cap_of(det);
    return (cap ? cap : 1u) * (size_t)desc_dim(det) * sizeof(float);
}

/* Allocates `bytes` of device memory into *p (NULL on failure, recorded). */
static satfeat_status dev_alloc(satfeat_ctx *ctx, void **p, size_t bytes)
{
    FH_CK(cudaMalloc(p, bytes ? bytes : 1), "cudaMalloc");
    return SATFEAT_OK;
}

satfeat_status satfeat_fh_cuda_new(satfeat_detector *det)
{
    satfeat_ctx *ctx = det->ctx;
    struct satfeat_fh_cuda *g = calloc(1, sizeof *g);
    if (!g) return satfeat_fail(ctx, SATFEAT_ERR_ALLOC, "detect: out of memory");
    det->gpu = g;
    FH_CK(cudaSetDevice(ctx->device), "cudaSetDevice");
    FH_CK(cudaStreamCreateWithFlags(&g->capture, cudaStreamNonBlocking), "cudaStreamCreate");
    FH_CK(cudaEventCreateWithFlags(&g->serial, cudaEventDisableTiming), "cudaEventCreate");
    FH_CK(satfeat_fh_kernels_init(), "cudaFuncSetAttribute (octave kernel shared memory)");
    const size_t cap = det->candidate_cap;
    if (cap >= (size_t)1 << 31)
        return satfeat_fail(ctx, SATFEAT_ERR_OVERFLOW, "detect: %zu candidates too many", cap);
    const size_t sat_bytes =
        satfeat_fh_round128(((size_t)det->max_width + 1) * 4u) * ((size_t)det->max_height + 1);
    satfeat_fh_order_bufs *b = &g->ob;
    b->cap = cap;
    satfeat_status st = SATFEAT_OK;
    b->cells_cap = satfeat_fh_order_cells(det->max_width, det->max_height);
    uint32_t **per_cand[] = {&b->bucket_members, &b->cell_members, &b->cell_pos, &b->key,
                             &b->val,            &b->val2,         &b->ck2,      &b->pos2};
    if (st == SATFEAT_OK) st = dev_alloc(ctx, (void **)&g->sat, sat_bytes);
    if (st == SATFEAT_OK) st = dev_alloc(ctx, (void **)&b->resp, cap * sizeof(double));
    if (st == SATFEAT_OK) st = dev_alloc(ctx, (void **)&b->bucket_resp, cap * sizeof(double));
    if (st == SATFEAT_OK) st = dev_alloc(ctx, (void **)&b->cand, cap * sizeof(satfeat_keypoint));
    if (st == SATFEAT_OK) st = dev_alloc(ctx, (void **)&g->out, cap * sizeof(satfeat_keypoint));
    g->out_cap = out_cap_of(det);
    if (st == SATFEAT_OK)
        st = dev_alloc(ctx, (void **)&g->weights, satfeat_describe_weights_bytes());
    for (size_t i = 0; i < sizeof per_cand / sizeof per_cand[0] && st == SATFEAT_OK; i++)
        st = dev_alloc(ctx, (void **)per_cand[i], cap * 4u);
    if (st == SATFEAT_OK) st = dev_alloc(ctx, (void **)&b->keep, cap);
    /* counters, bucket counts and cell counts: one region, zeroed per frame */
    const size_t zero_bytes = satfeat_fh_order_zero_bytes(b->cells_cap);
    if (st == SATFEAT_OK) st = dev_alloc(ctx, (void **)&b->counters, zero_bytes);
    if (st == SATFEAT_OK)
        st = dev_alloc(ctx, (void **)&b->cell_start, (b->cells_cap + 1) * sizeof(uint32_t));
    if (st != SATFEAT_OK) return st;
    b->cand_buckets = b->counters + 4;
    b->cand_groups = b->cand_buckets + SATFEAT_FH_BUCKETS;
    b->kept_buckets = b->cand_groups + SATFEAT_FH_BUCKET_GROUPS;
    b->kept_groups = b->kept_buckets + SATFEAT_FH_BUCKETS;
    b->cell_hist = b->kept_groups + SATFEAT_FH_BUCKET_GROUPS;
    FH_CK(satfeat_fh_order_temp_bytes(cap, &b->temp_bytes), "CUB temporary storage query");
    st = dev_alloc(ctx, &b->temp, b->temp_bytes);
    if (st != SATFEAT_OK) return st;
    FH_CK(cudaMemset(b->counters, 0, zero_bytes), "cudaMemset");
    /* det->weights lives as long as the detector; the stream is synchronized below */
    FH_CK(satfeat_describe_weights_upload(&det->weights, g->weights, g->capture),
          "uploading the describe weights");
    FH_CK(landing_new(det, &g->land), "cudaHostAlloc (mapped landing buffer)");
    st = satfeat_fh_slot_new(det, &g->own);
    if (st != SATFEAT_OK) return st;
    /* satfeat_detect_u8 (own slot) and satfeat_detect_u8_device both finish their frame before
     * returning, so they share one descriptor buffer (the largest buffer of a detector) */
    g->desc = g->own->d_desc;
    /* the detector's own SAT work memory, for every frame up to the maximum size (sat.h) */
    st = satfeat_sat_cuda_work_bytes(ctx, det->max_width, det->max_height, &g->sat_work_bytes);
    if (st == SATFEAT_OK) st = dev_alloc(ctx, &g->sat_work, g->sat_work_bytes);
    if (st == SATFEAT_OK) st = satfeat_sat_cuda_work_init(ctx, g->sat_work, g->sat_work_bytes, g->capture);
    if (st != SATFEAT_OK) return st;
    FH_CK(cudaStreamSynchronize(g->capture), "cudaStreamSynchronize");
    return SATFEAT_OK;
}

void satfeat_fh_cuda_delete(satfeat_detector *det)
{
    struct satfeat_fh_cuda *g = det->gpu;
    if (!g) return;
    cudaSetDevice(det->ctx->device);
    satfeat_fh_slot_delete(g->own);
    cudaDeviceSynchronize();
    for (int i = 0; i < GRAPH_CACHE; i++)
        if (g->graphs[i].exec) cudaGraphExecDestroy(g->graphs[i].exec);
    const satfeat_fh_order_bufs *b = &g->ob;
    void *bufs[] = {g->sat,          g->sat_work,  b->resp,        g->out,
                    g->weights,      b->cand,      b->bucket_resp, b->bucket_members,
                    b->cell_members, b->cell_pos,  b->key,         b->val,
                    b->val2,         b->ck2,       b->pos2,        b->keep,
                    b->counters,     b->cell_start, b->temp};
    /* g->desc belongs to g->own */
    for (size_t i = 0; i < sizeof bufs / sizeof bufs[0]; i++)
        if (bufs[i]) cudaFree(bufs[i]);
    landing_free(&g->land);
    for (int i = 0; i < SATFEAT_FH_PROF_EVENTS; i++)
        if (g->prof[i]) cudaEventDestroy(g->prof[i]);
    if (g->serial) cudaEventDestroy(g->serial);
    if (g->capture) cudaStreamDestroy(g->capture);
    (void)cudaGetLastError();
    free(g);
    det->gpu = NULL;
}

satfeat_status satfeat_fh_record_frame(satfeat_detector *det, const satfeat_fh_graph_key *k,
                                       cudaStream_t s, cudaEvent_t stage[SATFEAT_FH_STAGE_EVENTS])
{
    satfeat_ctx *ctx = det->ctx;
    struct satfeat_fh_cuda *g = det->gpu;
    const satfeat_detector_params *p = &det->params;
    const size_t sat_pitch = satfeat_fh_round128(((size_t)k->width + 1) * 4u);
    satfeat_fh_plan plan;
    satfeat_fh_plan_build(det, k->width, k->height, sat_pitch / 4u, &plan);
    const size_t zero_bytes =
        satfeat_fh_order_zero_bytes(satfeat_fh_order_cells(k->width, k->height));
    FH_CK(cudaMemsetAsync(g->ob.counters, 0, zero_bytes, s), "cudaMemsetAsync");
    satfeat_status st =
        satfeat_sat_cuda_u8_work(ctx, k->image, k->stride, k->width, k->height, g->sat, sat_pitch,
                                 SATFEAT_SAT_AUTO, g->sat_work, g->sat_work_bytes, s);
    if (st != SATFEAT_OK) return st;
    if (stage) FH_CK(cudaEventRecord(stage[0], s), "cudaEventRecord");
    FH_CK(satfeat_fh_launch_octaves(&plan, g->sat, &g->ob, s), "octave kernel");
    if (stage) FH_CK(cudaEventRecord(stage[1], s), "cudaEventRecord");
    /* a described frame with duplicate cells and no grid: the ordering also lays the selected
     * keypoints out in cell order (g->ob.key, holes where a candidate was not selected), and the
     * descriptor kernel takes them in that order, so a block's warps read nearby table rows (the
     * orientation kernel measured slower in that order and keeps index order) */
    const int dim = k->desc ? desc_dim(det) : 0;
    const int spatial = dim > 0 && p->suppress_duplicates && p->grid <= 0;
    FH_CK(satfeat_fh_launch_sort(&g->ob, k->width, k->height, k->mask, k->mask_stride, p->grid,
                                 p->suppress_duplicates, plan.bucket_base, p->max_keypoints, k->out,
                                 spatial ? g->ob.key : NULL, s),
          "ordering");
    if (stage) FH_CK(cudaEventRecord(stage[2], s), "cudaEventRecord");
    FH_CK(satfeat_fh_launch_select(&g->ob, p->grid, p->per_cell, p->max_keypoints, k->out, s),
          "selection");
    if (stage) FH_CK(cudaEventRecord(stage[3], s), "cudaEventRecord");
    /* orientation and descriptors of the selected keypoints, in place in k->out: the count is
     * counters[1] (written by selection), read on the device; out_cap bounds it */
    const uint32_t *d_selected = g->ob.counters + 1;
    const size_t sat_stride = sat_pitch / sizeof(uint32_t);
    /* the orientation and descriptor kernels write what they finish to the landing buffer too,
     * so that the copy to the host overlaps them; the download kernel then writes the count and
     * whatever no kernel landed */
    const satfeat_land_dst land = {!p->upright ? k->land->d_kp : NULL,
                                   dim > 0 ? k->land->d_desc : NULL, k->land->cap};
    if (!p->upright)
        FH_CK(satfeat_orient_cuda(g->sat, sat_stride, k->width, k->height, k->out, d_selected,
                                  g->out_cap, g->weights, land, s),
              "orientation kernel");
    if (dim > 0) /* spatial: the order's entries are the candidates, at most cap */
        FH_CK(satfeat_describe_cuda_ordered(
                  g->sat, sat_stride, k->width, k->height, k->out,
                  spatial ? g->ob.counters : d_selected,
                  spatial ? (uint32_t)g->ob.cap : (uint32_t)g->out_cap,
                  spatial ? g->ob.key : NULL, p->upright, dim, g->weights, k->desc, land, s),
              "descriptor kernel");
    if (stage) FH_CK(cudaEventRecord(stage[4], s), "cudaEventRecord");
    FH_CK(satfeat_fh_launch_download(&g->ob, land.kp ? NULL : k->out, k->land->d_count,
                                     k->land->d_kp, k->land->cap, s),
          "download kernel");
    return SATFEAT_OK;
}

/* Captures the frame of key `k` into a graph and instantiates it into entry `e`. */
static satfeat_status capture(satfeat_detector *det, const satfeat_fh_graph_key *k, satfeat_fh_graph_entry *e)
{
    satfeat_ctx *ctx = det->ctx;
    struct satfeat_fh_cuda *g = det->gpu;
    cudaGraph_t graph = NULL;
    FH_CK(cudaStreamBeginCapture(g->capture, cudaStreamCaptureModeThreadLocal),
       "cudaStreamBeginCapture");
    satfeat_status st = satfeat_fh_record_frame(det, k, g->capture, NULL);
    cudaError_t ce = cudaStreamEndCapture(g->capture, &graph);
    if (st != SATFEAT_OK) {
        if (graph) cudaGraphDestroy(graph);
        return st;
    }
    FH_CK(ce, "cudaStreamEndCapture");
    if (e->exec) { /* an entry being replaced: a fresh instantiation (the topology may differ) */
        cudaGraphExecDestroy(e->exec);
        e->exec = NULL;
    }
    if (!e->exec) ce = cudaGraphInstantiate(&e->exec, graph, 0);
    cudaGraphDestroy(graph);
    if (ce != cudaSuccess) {
        e->exec = NULL;
        return satfeat_cuda_fail(ctx, (int)ce, "detect", "cudaGraphInstantiate");
    }
    e->key = *k;
    return SATFEAT_OK;
}

satfeat_status satfeat_fh_enqueue(satfeat_detector *det, satfeat_fh_graph_key *k, cudaStream_t s)
{
    satfeat_ctx *ctx = det->ctx;
    struct satfeat_fh_cuda *g = det->gpu;
    FH_CK(cudaSetDevice(ctx->device), "cudaSetDevice");
    satfeat_fh_graph_entry *hit = NULL, *victim = &g->graphs[0];
    for (int i = 0; i < GRAPH_CACHE; i++) {
        satfeat_fh_graph_entry *e = &g->graphs[i];
        if (e->exec && memcmp(&e->key, k, sizeof *k) == 0) hit = e;
        if (!e->exec || (victim->exec && e->used < victim->used)) victim = e;
    }
    if (!hit) {
        /* a plain run first: surfaces errors outside a capture; then capture */
        FH_CK(cudaStreamWaitEvent(s, g->serial, 0), "cudaStreamWaitEvent");
        satfeat_status st = satfeat_fh_record_frame(det, k, s, NULL);
        if (st != SATFEAT_OK) return st;
        FH_CK(cudaStreamSynchronize(s), "cudaStreamSynchronize (warm-up frame)");
        st = capture(det, k, victim);
        if (st != SATFEAT_OK) return st;
        hit = victim;
    }
    hit->used = ++g->clock;
    if (g->profiling != SATFEAT_PROFILING_OFF)
        return satfeat_fh_enqueue_profiled(det, k, s, hit->exec);
    FH_CK(cudaStreamWaitEvent(s, g->serial, 0), "cudaStreamWaitEvent");
    FH_CK(cudaGraphLaunch(hit->exec, s), "cudaGraphLaunch");
    FH_CK(cudaEventRecord(g->serial, s), "cudaEventRecord");
    return SATFEAT_OK;
}

/* After a finished frame: copies min(n, capacity) of its n keypoints to `keypoints` and, when
 * `descriptors` is non-NULL, their descriptors (from a frame that computed them into `d_desc`),
 * from the landing buffer when they are all there, else from `d_out` / `d_desc` (a second
 * copy), and sets *count. */
static satfeat_status copy_out(satfeat_ctx *ctx, const satfeat_keypoint *d_out,
                               const float *d_desc, const satfeat_fh_landing *land,
                               satfeat_keypoint *keypoints, float *descriptors, size_t capacity,
                               size_t *count, cudaStream_t s)
{
    const size_t n = *land->h_count;
    const size_t m = n < capacity ? n : capacity;
    const size_t dfloats = descriptors ? m * (size_t)land->dim : 0;
    if (m > 0 && m <= land->cap) {
        memcpy(keypoints, land->h_kp, m * sizeof *d_out);
        if (dfloats) memcpy(descriptors, land->h_desc, dfloats * sizeof(float));
    } else if (m > 0) {
        FH_CK(cudaMemcpyAsync(keypoints, d_out, m * sizeof *d_out, cudaMemcpyDeviceToHost, s),
           "cudaMemcpyAsync (keypoints)");
        if (dfloats)
            FH_CK(cudaMemcpyAsync(descriptors, d_desc, dfloats * sizeof(float),
                                  cudaMemcpyDeviceToHost, s),
                  "cudaMemcpyAsync (descriptors)");
        FH_CK(cudaStreamSynchronize(s), "cudaStreamSynchronize (keypoints)");
    }
    *count = n;
    return satfeat_fh_count_status(ctx, n, capacity);
}

satfeat_status satfeat_fh_cuda_detect_device(satfeat_detector *det, const uint8_t *d_image,
                                             size_t stride, int width, int height,
                                             const uint8_t *d_mask, size_t mask_stride,
                                             satfeat_keypoint *keypoints, float *descriptors,
                                             size_t capacity, size_t *count, void *stream)
{
    satfeat_ctx *ctx = det->ctx;
    struct satfeat_fh_cuda *g = det->gpu;
    if (descriptors && !g->desc) /* the callers refuse this already (descriptor NONE) */
        return satfeat_fail(ctx, SATFEAT_ERR_ARG, "detect: the detector computes no descriptors");
    cudaStream_t s = (cudaStream_t)stream;
    satfeat_fh_graph_key k;
    memset(&k, 0, sizeof k);
    k.image = d_image;
    k.stride = stride;
    k.width = width;
    k.height = height;
    k.mask = d_mask;
    k.mask_stride = d_mask ? mask_stride : 0;
    k.out = g->out;
    k.desc = descriptors ? g->desc : NULL;
    k.land = &g->land;
    satfeat_status st = satfeat_fh_enqueue(det, &k, s);
    if (st != SATFEAT_OK) return st;
    FH_CK(cudaStreamSynchronize(s), "cudaStreamSynchronize");
    return copy_out(ctx, g->out, g->desc, &g->land, keypoints, descriptors, capacity, count, s);
}

satfeat_status satfeat_fh_slot_new(satfeat_detector *det, satfeat_fh_slot **out)
{
    satfeat_ctx *ctx = det->ctx;
    *out = NULL;
    satfeat_fh_slot *sl = calloc(1, sizeof *sl);
    if (!sl) return satfeat_fail(ctx, SATFEAT_ERR_ALLOC, "detect: out of memory");
    sl->det = det;
    sl->pitch = satfeat_fh_round128((size_t)det->max_width);
    const size_t img = sl->pitch * (size_t)det->max_height;
    const size_t cap = det->candidate_cap;
    cudaError_t e = cudaSetDevice(ctx->device);
    if (e == cudaSuccess) e = cudaStreamCreateWithFlags(&sl->stream, cudaStreamNonBlocking);
    if (e == cudaSuccess) e = cudaEventCreateWithFlags(&sl->done, cudaEventDisableTiming);
    if (e == cudaSuccess) e = cudaHostAlloc((void **)&sl->h_image, img, cudaHostAllocDefault);
    if (e == cudaSuccess) e = cudaHostAlloc((void **)&sl->h_mask, img, cudaHostAllocDefault);
    if (e == cudaSuccess) e = landing_new(det, &sl->land);
    if (e == cudaSuccess) e = cudaMalloc((void **)&sl->d_image, img);
    if (e == cudaSuccess) e = cudaMalloc((void **)&sl->d_mask, img);
    if (e == cudaSuccess)
        e = cudaMalloc((void **)&sl->d_out, (cap ? cap : 1) * sizeof(satfeat_keypoint));
    if (e == cudaSuccess && desc_dim(det) > 0) e = cudaMalloc((void **)&sl->d_desc, desc_bytes(det));
    if (e != cudaSuccess) {
        satfeat_fh_slot_delete(sl);
        return satfeat_cuda_fail(ctx, (int)e, "detect", "allocating a frame slot");
    }
    *out = sl;
    return SATFEAT_OK;
}

void satfeat_fh_slot_delete(satfeat_fh_slot *sl)
{
    if (!sl) return;
    if (sl->stream) cudaStreamSynchronize(sl->stream);
    if (sl->h_image) cudaFreeHost(sl->h_image);
    if (sl->h_mask) cudaFreeHost(sl->h_mask);
    landing_free(&sl->land);
    if (sl->d_image) cudaFree(sl->d_image);
    if (sl->d_mask) cudaFree(sl->d_mask);
    if (sl->d_out) cudaFree(sl->d_out);
    if (sl->d_desc) cudaFree(sl->d_desc);
    if (sl->done) cudaEventDestroy(sl->done);
    if (sl->stream) cudaStreamDestroy(sl->stream);
    (void)cudaGetLastError();
    free(sl);
}

/* Copies `rows` rows of `bytes` bytes into a pitched buffer, threaded for large frames. */
static void copy_rows(uint8_t *dst, size_t dpitch, const uint8_t *src, size_t spitch,
                      size_t bytes, int rows, int threads)
{
#pragma omp parallel for num_threads(threads) if (threads > 1 && bytes * (size_t)rows > (1u << 20))
    for (int y = 0; y < rows; y++) memcpy(dst + (size_t)y * dpitch, src + (size_t)y * spitch, bytes);
}

satfeat_status satfeat_fh_slot_submit(satfeat_detector *det, satfeat_fh_slot *sl,
                                      const uint8_t *image, size_t stride, int width, int height,
                                      const uint8_t *mask, size_t mask_stride, int descriptors)
{
    satfeat_ctx *ctx = det->ctx;
    if (descriptors && !sl->d_desc) /* the callers refuse this already (descriptor NONE) */
        return satfeat_fail(ctx, SATFEAT_ERR_ARG, "detect: the detector computes no descriptors");
    FH_CK(cudaSetDevice(ctx->device), "cudaSetDevice");
    /* the pinned buffers may still feed the previous upload of this slot */
    FH_CK(cudaEventSynchronize(sl->done), "cudaEventSynchronize");
    copy_rows(sl->h_image, sl->pitch, image, stride, (size_t)width, height, ctx->threads);
    FH_CK(cudaMemcpyAsync(sl->d_image, sl->h_image, sl->pitch * (size_t)height,
                       cudaMemcpyHostToDevice, sl->stream),
       "cudaMemcpyAsync (image)");
    if (mask) {
        copy_rows(sl->h_mask, sl->pitch, mask, mask_stride, (size_t)width, height, ctx->threads);
        FH_CK(cudaMemcpyAsync(sl->d_mask, sl->h_mask, sl->pitch * (size_t)height,
                           cudaMemcpyHostToDevice, sl->stream),
           "cudaMemcpyAsync (mask)");
    }
    satfeat_fh_graph_key k;
    memset(&k, 0, sizeof k);
    k.image = sl->d_image;
    k.stride = sl->pitch;
    k.width = width;
    k.height = height;
    k.mask = mask ? sl->d_mask : NULL;
    k.mask_stride = mask ? sl->pitch : 0;
    k.out = sl->d_out;
    k.desc = descriptors ? sl->d_desc : NULL;
    k.land = &sl->land;
    sl->described = 0;
    satfeat_status st = satfeat_fh_enqueue(det, &k, sl->stream);
    if (st != SATFEAT_OK) return st;
    sl->described = descriptors != 0;
    FH_CK(cudaEventRecord(sl->done, sl->stream), "cudaEventRecord");
    return SATFEAT_OK;
}

satfeat_status satfeat_fh_slot_collect(satfeat_detector *det, satfeat_fh_slot *sl,
                                       satfeat_keypoint *keypoints, float *descriptors,
                                       size_t capacity, size_t *count)
{
    satfeat_ctx *ctx = det->ctx;
    FH_CK(cudaSetDevice(ctx->device), "cudaSetDevice");
    FH_CK(cudaEventSynchronize(sl->done), "cudaEventSynchronize");
    if (descriptors && !sl->described)
        return satfeat_fail(ctx, SATFEAT_ERR_ARG,
                            "detect: descriptors requested of a frame queued without them");
    return copy_out(ctx, sl->d_out, sl->d_desc, &sl->land, keypoints, descriptors, capacity,
                    count, sl->stream);
}

satfeat_fh_slot *satfeat_fh_cuda_own_slot(satfeat_detector *det)
{
    return det->gpu ? det->gpu->own : NULL;
}
