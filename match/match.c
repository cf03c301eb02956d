/* match.c - the public matching calls: argument checks, the problem description, and the
 * dispatch to the CPU matcher or the CUDA matcher. */
#include "src/context_internal.h"
#include "match/match_cpu.h"
#include "src/features_internal.h"
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

/* Checks the parameters and the list sizes and fills the rest of `p` (its arrays are set). */
static satfeat_status check(satfeat_ctx *ctx, size_t n1, size_t n2,
                            const satfeat_match_params *params, satfeat_match_problem *p)
{
    if (n1 > MATCH_MAX_N || n2 > MATCH_MAX_N)
        return satfeat_fail(ctx, SATFEAT_ERR_ARG, "match: %zu x %zu keypoints, at most %zu each",
                            n1, n2, MATCH_MAX_N);
    const satfeat_match_params def = satfeat_match_params_default();
    if (!params) params = &def;
    if (!(params->ratio > 0.0 && params->ratio <= 1.0))
        return satfeat_fail(ctx, SATFEAT_ERR_ARG, "match: ratio %g is not in (0, 1]",
                            params->ratio);
    if (!(params->radius >= 0.0 && params->radius <= DBL_MAX))
        return satfeat_fail(ctx, SATFEAT_ERR_ARG, "match: radius %g is negative or not finite",
                            params->radius);
    p->n1 = (int)n1;
    p->n2 = (int)n2;
    p->stamp1 = p->stamp2 = 0;
    p->keep1 = 0;
    p->same_laplacian = params->same_laplacian != 0;
    p->mutual = params->mutual != 0;
    p->radius2 = params->radius * params->radius;
    if (params->radius > 0.0 && !(p->radius2 > 0.0)) p->radius2 = DBL_TRUE_MIN; /* keep it on */
    if (p->radius2 > DBL_MAX) p->radius2 = DBL_MAX; /* huge radius: every finite offset passes */
    p->ratio2 = (float)(params->ratio * params->ratio);
    return SATFEAT_OK;
}

/* Runs a checked problem with host arrays on the context's backend into `out`. */
static satfeat_status run_host(satfeat_ctx *ctx, const satfeat_match_problem *p,
                               satfeat_matches *out)
{
    if (p->n1 == 0 || p->n2 == 0) return SATFEAT_OK;
    if (ctx->backend == SATFEAT_BACKEND_CUDA) {
#ifdef SATFEAT_HAVE_CUDA
        return satfeat_match_cuda_host(ctx, p, out);
#else
        return satfeat_fail(ctx, SATFEAT_ERR_UNSUPPORTED, "match: built without CUDA");
#endif
    }
    const size_t bytes = satfeat_match_cpu_scratch_bytes(p->n1, p->n2, p->dim, ctx->threads);
    if (bytes == 0)
        return satfeat_fail(ctx, SATFEAT_ERR_OVERFLOW, "match: %d x %d too large", p->n1, p->n2);
    void *scratch = satfeat_host_scratch(ctx, bytes);
    if (!scratch) return SATFEAT_ERR_ALLOC;
    const satfeat_status st =
        satfeat_match_cpu_run(p, ctx->threads, SATFEAT_MATCH_CPU_BEST, scratch, out);
    if (st != SATFEAT_OK) return satfeat_fail(ctx, st, "match: no memory for the match list");
    return SATFEAT_OK;
}

/* Checks one feature set of a match call: present, with descriptors. */
static satfeat_status check_set(satfeat_ctx *ctx, const satfeat_features *f, const char *which)
{
    if (!f) return satfeat_fail(ctx, SATFEAT_ERR_ARG, "match: the %s set is NULL", which);
    if (satfeat_features_descriptor_kind(f) == SATFEAT_DESCRIPTOR_NONE)
        return satfeat_fail(ctx, SATFEAT_ERR_ARG, "match: the %s set has no descriptors", which);
    return SATFEAT_OK;
}

/* satfeat_match and satfeat_match_guided (predicted NULL: no prediction). */
static satfeat_status match_sets(satfeat_ctx *ctx, const satfeat_features *query,
                                 const satfeat_features *train, const double *predicted,
                                 int guided, const satfeat_match_params *params,
                                 satfeat_matches **matches)
{
    if (!ctx) return SATFEAT_ERR_ARG;
    satfeat_status st = satfeat_matches_out(matches);
    if (st == SATFEAT_ERR_ARG) return satfeat_fail(ctx, st, "match: matches is NULL");
    if (st != SATFEAT_OK) return satfeat_fail(ctx, st, "match: no memory for a match list");
    if ((st = check_set(ctx, query, "query")) != SATFEAT_OK ||
        (st = check_set(ctx, train, "train")) != SATFEAT_OK)
        return st;
    const satfeat_descriptor_kind k1 = satfeat_features_descriptor_kind(query);
    const satfeat_descriptor_kind k2 = satfeat_features_descriptor_kind(train);
    if (k1 != k2)
        return satfeat_fail(ctx, SATFEAT_ERR_ARG,
                            "match: descriptor kinds differ (%d and %d floats)", (int)k1, (int)k2);
    if (guided && !predicted)
        return satfeat_fail(ctx, SATFEAT_ERR_ARG, "match_guided: predicted is NULL");
    satfeat_match_problem p;
    st = check(ctx, satfeat_features_count(query), satfeat_features_count(train), params, &p);
    if (st != SATFEAT_OK) return st;
    p.kp1 = satfeat_features_keypoints(query);
    p.desc1 = satfeat_features_descriptors(query);
    p.kp2 = satfeat_features_keypoints(train);
    p.desc2 = satfeat_features_descriptors(train);
    p.dim = (int)k1;
    p.predicted = predicted;
    p.stamp1 = satfeat_features_stamp(query);
    p.stamp2 = satfeat_features_stamp(train);
    p.keep1 = satfeat_features_kept(query);
    return run_host(ctx, &p, *matches);
}

satfeat_status satfeat_match(satfeat_ctx *ctx, const satfeat_features *query,
                             const satfeat_features *train, const satfeat_match_params *params,
                             satfeat_matches **matches)
{
    return match_sets(ctx, query, train, NULL, 0, params, matches);
}

satfeat_status satfeat_match_guided(satfeat_ctx *ctx, const satfeat_features *query,
                                    const satfeat_features *train, const double *predicted,
                                    const satfeat_match_params *params,
                                    satfeat_matches **matches)
{
    return match_sets(ctx, query, train, predicted, 1, params, matches);
}

satfeat_status satfeat_match_descriptors_device(satfeat_ctx *ctx, const satfeat_keypoint *d_kp1,
                                                const float *d_desc1, size_t n1,
                                                const satfeat_keypoint *d_kp2,
                                                const float *d_desc2, size_t n2, int dim,
                                                const double *d_predicted,
                                                const satfeat_match_params *params,
                                                satfeat_matches **matches, void *stream)
{
    if (!ctx) return SATFEAT_ERR_ARG;
    satfeat_status st = satfeat_matches_out(matches);
    if (st == SATFEAT_ERR_ARG) return satfeat_fail(ctx, st, "match: matches is NULL");
    if (st != SATFEAT_OK) return satfeat_fail(ctx, st, "match: no memory for a match list");
    if (dim != 64 && dim != 128)
        return satfeat_fail(ctx, SATFEAT_ERR_ARG, "match: dim %d is not 64 or 128", dim);
    satfeat_match_problem p;
    st = check(ctx, n1, n2, params, &p);
    if (st != SATFEAT_OK) return st;
    if ((n1 && (!d_kp1 || !d_desc1)) || (n2 && (!d_kp2 || !d_desc2)))
        return satfeat_fail(ctx, SATFEAT_ERR_ARG, "match: NULL keypoints or descriptors");
    if (ctx->backend != SATFEAT_BACKEND_CUDA)
        return satfeat_fail(ctx, SATFEAT_ERR_UNSUPPORTED,
                            "match: satfeat_match_descriptors_device needs a CUDA context");
    if (n1 == 0 || n2 == 0) return SATFEAT_OK;
    p.kp1 = d_kp1;
    p.desc1 = d_desc1;
    p.kp2 = d_kp2;
    p.desc2 = d_desc2;
    p.dim = dim;
    p.predicted = d_predicted;
#ifdef SATFEAT_HAVE_CUDA
    return satfeat_match_cuda_device(ctx, &p, stream, *matches);
#else
    (void)stream;
    return satfeat_fail(ctx, SATFEAT_ERR_UNSUPPORTED, "match: built without CUDA");
#endif
}
