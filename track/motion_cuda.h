/* motion_cuda.h - the CUDA hypothesis scorer's launcher (extern "C", plain C): a batch of drawn
 * samples is solved (motion_minimal.h) and scored over every correspondence in the summation
 * order of motion_error.h, with PROSAC's best prefix (motion_stop.h); the caller owns the device
 * memory and the stream and replays the search rule over the records. */
#ifndef SATFEAT_MOTION_CUDA_H
#define SATFEAT_MOTION_CUDA_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/** Result of one hypothesis of a batch. */
typedef struct satfeat_motion_cuda_record {
    double h[9];        /* the minimal solver's model (zeros when degenerate) */
    double cost;        /* MSAC cost over all correspondences (not written when degenerate) */
    uint64_t num, den;  /* PROSAC's best prefix fraction, 0 / 1 when none (PROSAC only) */
    uint32_t count;     /* inliers: terms below t2 */
    uint32_t degenerate; /* 1 when the minimal solver rejected the sample */
} satfeat_motion_cuda_record;

/** Arguments of one batch (every pointer a device pointer). */
typedef struct satfeat_motion_cuda_args {
    const double *sx, *sy, *dx, *dy; /* n normalised correspondences in sample order */
    uint32_t n;
    int model;                       /* satfeat_motion_model */
    int m;                           /* sample size */
    int prosac;                      /* 1: find each hypothesis' best PROSAC prefix */
    double t2;                       /* squared threshold */
    const uint32_t *samples;         /* batch x 4 positions (the first m used) */
    uint32_t batch;                  /* 1 .. SATFEAT_MOTION_CUDA_MAX_BATCH hypotheses */
    satfeat_motion_cuda_record *rec; /* batch records */
    void *scratch;                   /* satfeat_motion_cuda_scratch_bytes(n, batch) bytes */
} satfeat_motion_cuda_args;

/** Largest batch one launch takes. */
#define SATFEAT_MOTION_CUDA_MAX_BATCH 1024u

/** Bytes of device scratch a batch of `batch` hypotheses over n correspondences needs: one
 * block sum, inlier count and inlier bit mask per hypothesis and block of 64. */
size_t satfeat_motion_cuda_scratch_bytes(uint32_t n, uint32_t batch);

/**
 * Queues the batch on `stream` (a cudaStream_t): the solve kernel, the block scoring kernel and
 * the per-hypothesis finish kernel, which write a.rec. n >= 1. Returns 0 or the cudaError_t of
 * the first failed launch, naming it in *failed.
 */
int satfeat_motion_cuda_launch(const satfeat_motion_cuda_args *a, void *stream,
                               const char **failed);

#ifdef __cplusplus
}
#endif

#endif
