/* match_cuda.h - the CUDA matcher's launchers (extern "C", plain C): the caller owns the
 * scratch and the stream; the kernels write the matches and their count to device memory. */
#ifndef SATFEAT_MATCH_CUDA_H
#define SATFEAT_MATCH_CUDA_H

#include "satfeat.h"

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/** Arguments of one device matching run (every pointer a device pointer). */
typedef struct satfeat_match_cuda_args {
    const satfeat_keypoint *kp1;
    const float *desc1;
    int n1;
    const satfeat_keypoint *kp2;
    const float *desc2;
    int n2;
    int dim;                 /* 64 or 128 */
    const double *predicted; /* n1 (x, y) pairs or NULL */
    int same_laplacian;
    int mutual;
    double radius2;          /* squared radius, 0 = no radius gate */
    float ratio2;            /* (float)(ratio * ratio); >= 1 disables the ratio test */
    satfeat_match_pair *matches;  /* device output, n1 entries (at most one match per query) */
    unsigned int *count;     /* device output: number of matches */
} satfeat_match_cuda_args;

/** Bytes of device scratch a run on n1 queries and n2 trains needs (256-byte aligned parts). */
size_t satfeat_match_cuda_scratch_bytes(size_t n1, size_t n2);

/**
 * Queues the whole matcher on `stream` (a cudaStream_t): a memset of the per-train keys, the
 * tiled distance kernel, the per-query decision and the compaction in query order. n1, n2 >= 1.
 * `scratch` holds satfeat_match_cuda_scratch_bytes(n1, n2) bytes of device memory. Returns 0
 * or the cudaError_t of the first failed call, naming it in *failed.
 */
int satfeat_match_cuda_launch(const satfeat_match_cuda_args *a, void *scratch, void *stream,
                              const char **failed);

#ifdef __cplusplus
}
#endif

#endif
