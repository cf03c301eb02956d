/* match.c - the public matching calls: argument checks, the problem description, and the
 * dispatch to the CPU matcher or the CUDA matcher. */
#include "src/context_internal.h"
#include "match/match_cpu.h"
#ifdef SATFEAT_HAVE_CUDA
#include "match/match_cuda_host.h"
#endif

#include <float.h>
#include <limits.h>
#include <math.h>

/* Largest list length: indices are int and the CUDA tiles round sizes up. */
#define MATCH_MAX_N ((size_t)INT_MAX - 64u)

satfeat_match_params satfeat_match_params_default(void)
{
    satfeat_match_params p;
    p.ratio = 0.8;
    p.mutual = 1;
    p.same_laplacian = 1;
    p.radius = 0.0;
    return p;
}

/* Checks the arguments common to both calls and fills `p`; *empty is set when n1 or n2 is 0. */
static satfeat_status check(satfeat_ctx *ctx, const satfeat_keypoint *kp1, const float *desc1,
                            size_t n1, const satfeat_keypoint *kp2, const float *desc2, size_t n2,
                            int dim, const double *predicted, const satfeat_match_params *params,
                            satfeat_match *matches, size_t capacity, size_t *count,
                            satfeat_match_problem *p)
{
    if (!ctx) return SATFEAT_ERR_ARG;
    if (!count) return satfeat_fail(ctx, SATFEAT_ERR_ARG, "match: count is NULL");
    *count = 0;
    if (!matches && capacity > 0)
        return satfeat_fail(ctx, SATFEAT_ERR_ARG, "match: matches is NULL with capacity %zu",
                            capacity);
    if (dim != 64 && dim != 128)
        return satfeat_fail(ctx, SATFEAT_ERR_ARG, "match: dim %d is not 64 or 128", dim);
    if (n1 > MATCH_MAX_N || n2 > MATCH_MAX_N)
        return satfeat_fail(ctx, SATFEAT_ERR_ARG, "match: %zu x %zu keypoints, at most %zu each",
                            n1, n2, MATCH_MAX_N);
    if ((n1 && (!kp1 || !desc1)) || (n2 && (!kp2 || !desc2)))
        return satfeat_fail(ctx, SATFEAT_ERR_ARG, "match: NULL keypoints or descriptors");
    const satfeat_match_params def = satfeat_match_params_default();
    if (!params) params = &def;
    if (!(params->ratio > 0.0 && params->ratio <= 1.0))
        return satfeat_fail(ctx, SATFEAT_ERR_ARG, "match: ratio %g is not in (0, 1]",
                            params->ratio);
    if (!(params->radius >= 0.0 && params->radius <= DBL_MAX))
        return satfeat_fail(ctx, SATFEAT_ERR_ARG, "match: radius %g is negative or not finite",
                            params->radius);
    p->kp1 = kp1;
    p->desc1 = desc1;
    p->n1 = (int)n1;
    p->kp2 = kp2;
    p->desc2 = desc2;
    p->n2 = (int)n2;
    p->dim = dim;
    p->predicted = predicted;
    p->same_laplacian = params->same_laplacian != 0;
    p->mutual = params->mutual != 0;
    p->radius2 = params->radius * params->radius;
    if (params->radius > 0.0 && !(p->radius2 > 0.0)) p->radius2 = DBL_TRUE_MIN; /* keep it on */
    if (p->radius2 > DBL_MAX) p->radius2 = DBL_MAX; /* huge radius: every finite offset passes */
    p->ratio2 = (float)(params->ratio * params->ratio);
    return SATFEAT_OK;
}

satfeat_status satfeat_match_descriptors(satfeat_ctx *ctx, const satfeat_keypoint *kp1,
                                         const float *desc1, size_t n1,
                                         const satfeat_keypoint *kp2, const float *desc2,
                                         size_t n2, int dim, const double *predicted,
                                         const satfeat_match_params *params,
                                         satfeat_match *matches, size_t capacity, size_t *count)
{
    satfeat_match_problem p;
    satfeat_status st = check(ctx, kp1, desc1, n1, kp2, desc2, n2, dim, predicted, params, matches,
                              capacity, count, &p);
    if (st != SATFEAT_OK || n1 == 0 || n2 == 0) return st;
    if (ctx->backend == SATFEAT_BACKEND_CUDA) {
#ifdef SATFEAT_HAVE_CUDA
        st = satfeat_match_cuda_host(ctx, &p, matches, capacity, count);
#else
        st = satfeat_fail(ctx, SATFEAT_ERR_UNSUPPORTED, "match: built without CUDA");
#endif
    } else {
        const size_t bytes = satfeat_match_cpu_scratch_bytes(p.n1, p.n2, dim, ctx->threads);
        if (bytes == 0)
            return satfeat_fail(ctx, SATFEAT_ERR_OVERFLOW, "match: %zu x %zu too large", n1, n2);
        void *scratch = satfeat_host_scratch(ctx, bytes);
        if (!scratch) return SATFEAT_ERR_ALLOC;
        satfeat_match_cpu_run(&p, ctx->threads, SATFEAT_MATCH_CPU_BEST, scratch, matches,
                              capacity, count);
    }
    if (st == SATFEAT_OK && *count > capacity)
        st = satfeat_fail(ctx, SATFEAT_ERR_CAPACITY, "match: %zu matches, capacity %zu", *count,
                          capacity);
    return st;
}

satfeat_status satfeat_match_descriptors_device(satfeat_ctx *ctx, const satfeat_keypoint *d_kp1,
                                                const float *d_desc1, size_t n1,
                                                const satfeat_keypoint *d_kp2,
                                                const float *d_desc2, size_t n2, int dim,
                                                const double *d_predicted,
                                                const satfeat_match_params *params,
                                                satfeat_match *matches, size_t capacity,
                                                size_t *count, void *stream)
{
    satfeat_match_problem p;
    satfeat_status st = check(ctx, d_kp1, d_desc1, n1, d_kp2, d_desc2, n2, dim, d_predicted,
                              params, matches, capacity, count, &p);
    if (st != SATFEAT_OK) return st;
    if (ctx->backend != SATFEAT_BACKEND_CUDA)
        return satfeat_fail(ctx, SATFEAT_ERR_UNSUPPORTED,
                            "match: satfeat_match_device needs a CUDA context");
    if (n1 == 0 || n2 == 0) return SATFEAT_OK;
#ifdef SATFEAT_HAVE_CUDA
    st = satfeat_match_cuda_device(ctx, &p, stream, matches, capacity, count);
#else
    (void)stream;
    st = satfeat_fail(ctx, SATFEAT_ERR_UNSUPPORTED, "match: built without CUDA");
#endif
    if (st == SATFEAT_OK && *count > capacity)
        st = satfeat_fail(ctx, SATFEAT_ERR_CAPACITY, "match: %zu matches, capacity %zu", *count,
                          capacity);
    return st;
}
