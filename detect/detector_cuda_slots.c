/* detector_cuda_slots.c - frames into the CUDA backend and features out of it: frame slots
 * (own stream, pinned buffers; a host frame is copied, uploaded and queued, and collected
 * later), frames from device memory, the copy of a finished frame's exact count of keypoints
 * and descriptors into a feature set, and the backend's table of calls (backend.h). Built with
 * CUDA only. */
#include "detect/detector_cuda_state.h"
#include "src/cuda_state.h"
#include "src/features_internal.h"

#include <cuda_runtime_api.h>
#include <stdlib.h>
#include <string.h>

cudaError_t satfeat_fh_landing_new(const satfeat_fh_cuda *g, satfeat_fh_landing *l)
{
    const uint32_t cap = satfeat_fh_cuda_out_cap(g);
    l->cap = cap < SLOT_STAGE_KEYPOINTS ? cap : SLOT_STAGE_KEYPOINTS;
    l->dim = satfeat_fh_cuda_dim(g);
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

void satfeat_fh_landing_free(satfeat_fh_landing *l)
{
    if (l->h_count) cudaFreeHost(l->h_count);
    if (l->h_kp) cudaFreeHost(l->h_kp);
    if (l->h_desc) cudaFreeHost(l->h_desc);
    memset(l, 0, sizeof *l);
}

satfeat_status satfeat_fh_slot_new(satfeat_fh_cuda *g, satfeat_fh_slot **out)
{
    satfeat_ctx *ctx = g->cfg.ctx;
    *out = NULL;
    satfeat_fh_slot *sl = calloc(1, sizeof *sl);
    if (!sl) return satfeat_fail(ctx, SATFEAT_ERR_ALLOC, "detect: out of memory");
    sl->ctx = ctx;
    sl->pitch = satfeat_fh_round128((size_t)g->cfg.max_width);
    const size_t img = sl->pitch * (size_t)g->cfg.max_height;
    const size_t cap = g->cfg.candidate_cap;
    const size_t out_cap = satfeat_fh_cuda_out_cap(g);
    const int dim = satfeat_fh_cuda_dim(g);
    cudaError_t e = cudaSetDevice(ctx->device);
    if (e == cudaSuccess) e = cudaStreamCreateWithFlags(&sl->stream, cudaStreamNonBlocking);
    if (e == cudaSuccess) e = cudaEventCreateWithFlags(&sl->done, cudaEventDisableTiming);
    if (e == cudaSuccess) e = cudaHostAlloc((void **)&sl->h_image, img, cudaHostAllocDefault);
    if (e == cudaSuccess) e = cudaHostAlloc((void **)&sl->h_mask, img, cudaHostAllocDefault);
    if (e == cudaSuccess) e = satfeat_fh_landing_new(g, &sl->land);
    if (e == cudaSuccess) e = cudaMalloc((void **)&sl->d_image, img);
    if (e == cudaSuccess) e = cudaMalloc((void **)&sl->d_mask, img);
    if (e == cudaSuccess)
        e = cudaMalloc((void **)&sl->d_out, (cap ? cap : 1) * sizeof(satfeat_keypoint));
    if (e == cudaSuccess && dim > 0)
        e = cudaMalloc((void **)&sl->d_desc, (out_cap ? out_cap : 1) * (size_t)dim * sizeof(float));
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
    satfeat_fh_landing_free(&sl->land);
    if (sl->d_image) cudaFree(sl->d_image);
    if (sl->d_mask) cudaFree(sl->d_mask);
    if (sl->d_out) cudaFree(sl->d_out);
    if (sl->d_desc) cudaFree(sl->d_desc);
    if (sl->done) cudaEventDestroy(sl->done);
    if (sl->stream) cudaStreamDestroy(sl->stream);
    (void)cudaGetLastError();
    free(sl);
}

/* After a finished frame of `width` x `height`: sizes `out` for its n keypoints (and, when
 * `described`, their descriptors, computed into `d_desc`) and copies them from the landing
 * buffer when they are all there, else from `d_out` / `d_desc` (a second copy). */
static satfeat_status copy_out(satfeat_ctx *ctx, const satfeat_keypoint *d_out,
                               const float *d_desc, const satfeat_fh_landing *land,
                               int described, int width, int height, satfeat_features *out,
                               cudaStream_t s)
{
    const size_t n = *land->h_count;
    const satfeat_descriptor_kind kind =
        described ? (satfeat_descriptor_kind)land->dim : SATFEAT_DESCRIPTOR_NONE;
    satfeat_keypoint *kp;
    float *desc;
    satfeat_status st = satfeat_features_prepare(out, n, kind, width, height, &kp, &desc);
    if (st != SATFEAT_OK) return satfeat_fail(ctx, st, "detect: no memory for %zu features", n);
    const size_t dfloats = desc ? n * (size_t)land->dim : 0;
    if (n > 0 && n <= land->cap) {
        memcpy(kp, land->h_kp, n * sizeof *kp);
        if (dfloats) memcpy(desc, land->h_desc, dfloats * sizeof(float));
    } else if (n > 0) {
        FH_CK(cudaMemcpyAsync(kp, d_out, n * sizeof *kp, cudaMemcpyDeviceToHost, s),
              "cudaMemcpyAsync (keypoints)");
        if (dfloats)
            FH_CK(cudaMemcpyAsync(desc, d_desc, dfloats * sizeof(float), cudaMemcpyDeviceToHost,
                                  s),
                  "cudaMemcpyAsync (descriptors)");
        FH_CK(cudaStreamSynchronize(s), "cudaStreamSynchronize (keypoints)");
    }
    return SATFEAT_OK;
}

/* The own slot of `g`, made by the first frame that needs it. */
static satfeat_status own_slot(satfeat_fh_cuda *g)
{
    return g->own ? SATFEAT_OK : satfeat_fh_slot_new(g, &g->own);
}

/* A view of device memory: queued on the view's stream after the work already there, then the
 * stream is synchronized and the features copied out. */
static satfeat_status detect_device(satfeat_fh_cuda *g, const satfeat_image_view *v,
                                    int describe, satfeat_features *out)
{
    satfeat_ctx *ctx = g->cfg.ctx;
    satfeat_status st = own_slot(g); /* its descriptor buffer serves this frame too */
    if (st != SATFEAT_OK) return st;
    cudaStream_t s = (cudaStream_t)v->stream;
    satfeat_fh_graph_key k;
    memset(&k, 0, sizeof k);
    k.image = v->pixels;
    k.stride = v->stride;
    k.width = v->width;
    k.height = v->height;
    k.mask = v->mask;
    k.mask_stride = v->mask ? v->mask_stride : 0;
    k.out = g->out;
    k.desc = describe ? g->own->d_desc : NULL;
    k.land = &g->land;
    st = satfeat_fh_enqueue(g, &k, s);
    if (st != SATFEAT_OK) return st;
    FH_CK(cudaStreamSynchronize(s), "cudaStreamSynchronize");
    return copy_out(ctx, g->out, g->own->d_desc, &g->land, describe, v->width, v->height, out, s);
}

/* Most threads one frame copy takes: the copy is bound by memory bandwidth, which a few threads
 * reach, and a team costs more to wake the larger it is (with a team of every core of a 64-core
 * host, a 1080p sequence ran at a tenth of its 16-core rate). */
#define COPY_MAX_THREADS 4

/* Copies `rows` rows of `bytes` bytes into a pitched buffer, threaded for large frames. */
static void copy_rows(uint8_t *dst, size_t dpitch, const uint8_t *src, size_t spitch,
                      size_t bytes, int rows, int threads)
{
    if (threads > COPY_MAX_THREADS) threads = COPY_MAX_THREADS;
#pragma omp parallel for num_threads(threads) if (threads > 1 && bytes * (size_t)rows > (1u << 20))
    for (int y = 0; y < rows; y++) memcpy(dst + (size_t)y * dpitch, src + (size_t)y * spitch, bytes);
}

static satfeat_status cuda_submit(void *state, void *slot, const satfeat_image_view *v,
                                  int describe)
{
    satfeat_fh_cuda *g = state;
    satfeat_fh_slot *sl = slot;
    satfeat_ctx *ctx = g->cfg.ctx;
    const int width = v->width, height = v->height;
    FH_CK(cudaSetDevice(ctx->device), "cudaSetDevice");
    /* the pinned buffers may still feed the previous upload of this slot */
    FH_CK(cudaEventSynchronize(sl->done), "cudaEventSynchronize");
    copy_rows(sl->h_image, sl->pitch, v->pixels, v->stride, (size_t)width, height, ctx->threads);
    FH_CK(cudaMemcpyAsync(sl->d_image, sl->h_image, sl->pitch * (size_t)height,
                          cudaMemcpyHostToDevice, sl->stream),
          "cudaMemcpyAsync (image)");
    if (v->mask) {
        copy_rows(sl->h_mask, sl->pitch, v->mask, v->mask_stride, (size_t)width, height,
                  ctx->threads);
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
    k.mask = v->mask ? sl->d_mask : NULL;
    k.mask_stride = v->mask ? sl->pitch : 0;
    k.out = sl->d_out;
    k.desc = describe ? sl->d_desc : NULL;
    k.land = &sl->land;
    sl->described = 0;
    satfeat_status st = satfeat_fh_enqueue(g, &k, sl->stream);
    if (st != SATFEAT_OK) return st;
    sl->described = describe != 0;
    sl->width = width;
    sl->height = height;
    FH_CK(cudaEventRecord(sl->done, sl->stream), "cudaEventRecord");
    return SATFEAT_OK;
}

/* Waits for the slot's frame and copies its features out; reads nothing of the state, so a
 * slot made for an outgrown state is collected the same way. */
static satfeat_status cuda_collect(void *state, void *slot, satfeat_features *out)
{
    (void)state;
    satfeat_fh_slot *sl = slot;
    satfeat_ctx *ctx = sl->ctx;
    FH_CK(cudaSetDevice(ctx->device), "cudaSetDevice");
    FH_CK(cudaEventSynchronize(sl->done), "cudaEventSynchronize");
    return copy_out(ctx, sl->d_out, sl->d_desc, &sl->land, sl->described, sl->width, sl->height,
                    out, sl->stream);
}

static satfeat_status cuda_detect(void *state, const satfeat_image_view *v, int describe,
                                  satfeat_features *out)
{
    satfeat_fh_cuda *g = state;
    if (v->memory == SATFEAT_MEMORY_DEVICE) return detect_device(g, v, describe, out);
    satfeat_status st = own_slot(g);
    if (st == SATFEAT_OK) st = cuda_submit(g, g->own, v, describe);
    if (st == SATFEAT_OK) st = cuda_collect(g, g->own, out);
    return st;
}

static satfeat_status cuda_slot_new(void *state, void **slot)
{
    satfeat_fh_slot *sl = NULL;
    satfeat_status st = satfeat_fh_slot_new(state, &sl);
    *slot = sl;
    return st;
}

static void cuda_slot_delete(void *slot)
{
    satfeat_fh_slot_delete(slot);
}

const satfeat_fh_backend satfeat_fh_backend_cuda = {
    1, 1, satfeat_fh_cuda_create, satfeat_fh_cuda_destroy, cuda_detect, cuda_slot_new,
    cuda_slot_delete, cuda_submit, cuda_collect, satfeat_fh_cuda_set_profiling,
    satfeat_fh_cuda_stage_times};
