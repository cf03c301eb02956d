/* match_cuda_host.h - the CUDA matcher's host side (built only with CUDA): scratch taken
 * stream-ordered, uploads for host inputs, launch, download of the count and the matches. */
#ifndef SATFEAT_MATCH_CUDA_HOST_H
#define SATFEAT_MATCH_CUDA_HOST_H

#include "match/match_cpu.h"

/**
 * Matches `p` (host pointers) on the context's device and stream: uploads the inputs, runs
 * satfeat_match_cuda_launch and downloads exactly the matches into `out` (left empty on failure).
 */
satfeat_status satfeat_match_cuda_host(satfeat_ctx *ctx, const satfeat_match_problem *p,
                                       satfeat_matches *out);

/** As satfeat_match_cuda_host with every array of `p` in device memory, on `stream`. */
satfeat_status satfeat_match_cuda_device(satfeat_ctx *ctx, const satfeat_match_problem *p,
                                         void *stream, satfeat_matches *out);

#endif
