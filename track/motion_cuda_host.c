/* motion_cuda_host.c - the CUDA hypothesis search (built only with CUDA): the context's motion
 * scratch slot and pinned host staging (grown on demand, kept between calls; every call runs on
 * the context's stream and ends synchronised), the points uploaded once, then the batched search of motion_search.c with
 * the device scoring each batch (one upload of its samples, three kernels, one download of its
 * records). */
#include "src/context_internal.h"
#include "src/cuda_state.h"
#include "track/motion_cuda.h"
#include "track/motion_error.h"
#include "track/motion_search.h"

#include <cuda_runtime_api.h>
#include <stdint.h>
#include <string.h>

/* Scratch cells (hypothesis x block of 64) one batch may use: 4 Mi cells are 80 MB. */
#define MOTION_CUDA_MAX_CELLS ((size_t)1 << 22)

static satfeat_status cuda_fail(satfeat_ctx *ctx, cudaError_t e, const char *call)
{
    return satfeat_cuda_fail(ctx, (int)e, "estimate_motion", call);
}

static size_t up256(size_t v)
{
    return (v + 255u) & ~(size_t)255u;
}


/* Largest batch for n correspondences: the launch's maximum, bounded by the scratch cells. */
static uint32_t batch_cap(uint32_t n)
{
    const size_t blocks =
        ((size_t)n + SATFEAT_MOTION_SCORE_BLOCK - 1) / SATFEAT_MOTION_SCORE_BLOCK;
    const size_t by_cells = MOTION_CUDA_MAX_CELLS / blocks;
    if (by_cells < 1) return 1;
    return by_cells < SATFEAT_MOTION_CUDA_MAX_BATCH ? (uint32_t)by_cells
                                                    : SATFEAT_MOTION_CUDA_MAX_BATCH;
}

/* Device memory of one call (in the context's motion slot): the points, the samples and
 * records of a batch, the scratch. */
typedef struct motion_device {
    unsigned char *block;
    satfeat_motion_cuda_args a;
} motion_device;

/* Byte offsets in the block of the points' four arrays, the samples, the records and the
 * scratch for n points and batches of up to cap (off[7] is the total). */
static void device_layout(uint32_t n, uint32_t cap, size_t off[8])
{
    const size_t pts = up256((size_t)n * sizeof(double));
    off[0] = 0;
    off[1] = off[0] + pts;
    off[2] = off[1] + pts;
    off[3] = off[2] + pts;
    off[4] = off[3] + pts;
    off[5] = off[4] + up256((size_t)cap * 4u * sizeof(uint32_t));
    off[6] = off[5] + up256((size_t)cap * sizeof(satfeat_motion_cuda_record));
    off[7] = off[6] + satfeat_motion_cuda_scratch_bytes(n, cap);
}

/* Points dev->a's arrays into dev->block by the layout. */
static void device_point(motion_device *dev, uint32_t n, uint32_t cap)
{
    size_t off[8];
    device_layout(n, cap, off);
    unsigned char *b = dev->block;
    dev->a.sx = (const double *)(b + off[0]);
    dev->a.sy = (const double *)(b + off[1]);
    dev->a.dx = (const double *)(b + off[2]);
    dev->a.dy = (const double *)(b + off[3]);
    dev->a.samples = (const uint32_t *)(b + off[4]);
    dev->a.rec = (satfeat_motion_cuda_record *)(b + off[5]);
    dev->a.scratch = b + off[6];
}

/* Copies the points of `pts` into the pinned staging `stage` in the device layout (four arrays
 * of up256(n doubles)) and uploads them in one copy. */
static cudaError_t upload_points(const motion_device *dev, const motion_points *pts,
                                 unsigned char *stage, cudaStream_t st)
{
    const size_t bytes = pts->n * sizeof(double), step = up256(bytes);
    const double *from[4] = {pts->sx, pts->sy, pts->dx, pts->dy};
    for (int i = 0; i < 4; i++) memcpy(stage + (size_t)i * step, from[i], bytes);
    return cudaMemcpyAsync((void *)dev->a.sx, stage, 4 * step, cudaMemcpyHostToDevice, st);
}

/* The device batch of satfeat_motion_search_batched: one call's context, device memory and
 * stream. */
typedef struct motion_device_batch {
    satfeat_ctx *ctx;
    motion_device *dev;
    cudaStream_t stream;
} motion_device_batch;

/* Solves and scores `count` samples on the device and copies their records into `rec`. */
static satfeat_status device_batch(void *user, const uint32_t *samples, uint32_t count,
                                   satfeat_motion_cuda_record *rec)
{
    motion_device_batch *db = (motion_device_batch *)user;
    satfeat_ctx *ctx = db->ctx;
    motion_device *dev = db->dev;
    cudaStream_t st = db->stream;
    dev->a.batch = count;
    cudaError_t e = cudaMemcpyAsync((void *)dev->a.samples, samples,
                                    (size_t)count * 4u * sizeof *samples, cudaMemcpyHostToDevice,
                                    st);
    if (e != cudaSuccess) return cuda_fail(ctx, e, "cudaMemcpyAsync (motion samples)");
    const char *failed = "motion launch";
    const int err = satfeat_motion_cuda_launch(&dev->a, st, &failed);
    if (err != 0) return cuda_fail(ctx, (cudaError_t)err, failed);
    e = cudaMemcpyAsync(rec, dev->a.rec, (size_t)count * sizeof *rec, cudaMemcpyDeviceToHost, st);
    if (e != cudaSuccess) return cuda_fail(ctx, e, "cudaMemcpyAsync (motion records)");
    e = cudaStreamSynchronize(st);
    if (e != cudaSuccess) return cuda_fail(ctx, e, "cudaStreamSynchronize (motion records)");
    return SATFEAT_OK;
}

satfeat_status satfeat_motion_search_cuda(satfeat_ctx *ctx, motion_search *s, motion_sampler *smp,
                                          const motion_points *pts)
{
    cudaError_t e = cudaSetDevice(ctx->device);
    if (e != cudaSuccess) return cuda_fail(ctx, e, "cudaSetDevice");
    cudaStream_t st = (cudaStream_t)ctx->stream;
    const uint32_t n = (uint32_t)pts->n;
    const uint32_t cap = batch_cap(n);
    motion_device dev;
    memset(&dev, 0, sizeof dev);
    dev.a.n = n;
    dev.a.model = (int)s->model;
    dev.a.m = s->m;
    dev.a.prosac = s->prosac;
    dev.a.t2 = s->t2;
    size_t off[8];
    device_layout(n, cap, off);
    void *block = NULL;
    satfeat_status st_ok = satfeat_cuda_scratch(ctx, SATFEAT_SLOT_MOTION, off[7], st, &block, NULL);
    if (st_ok != SATFEAT_OK) return st_ok;
    dev.block = (unsigned char *)block;
    device_point(&dev, n, cap);
    /* pinned staging: the points (while they upload), then a batch's samples and records */
    const size_t samples_bytes = up256((size_t)cap * 4u * sizeof(uint32_t));
    const size_t batch_bytes = samples_bytes + (size_t)cap * sizeof(satfeat_motion_cuda_record);
    const size_t points_bytes = 4 * up256((size_t)n * sizeof(double));
    unsigned char *stage = NULL;
    st_ok = satfeat_cuda_host_staging(ctx, SATFEAT_HOST_SLOT_MOTION,
                                      points_bytes + batch_bytes, (void **)&stage);
    if (st_ok != SATFEAT_OK) return st_ok;
    uint32_t *samples = (uint32_t *)(stage + points_bytes);
    satfeat_motion_cuda_record *rec =
        (satfeat_motion_cuda_record *)(stage + points_bytes + samples_bytes);
    e = upload_points(&dev, pts, stage, st);
    if (e != cudaSuccess) return cuda_fail(ctx, e, "cudaMemcpyAsync (motion points)");
    motion_device_batch db = {ctx, &dev, st};
    st_ok = satfeat_motion_search_batched(s, smp, n, cap, samples, rec, device_batch, &db);
    /* a failure may leave copies queued on the staging: the next call must not find them */
    if (st_ok != SATFEAT_OK) (void)cudaStreamSynchronize(st);
    return st_ok;
}
