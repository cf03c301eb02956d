/* motion.c - satfeat_estimate_motion: argument checks, normalisation and sample order, the
 * hypothesis search on the context's backend (motion_search.h), iterated least-squares
 * refinement, output in pixels. */
#include "src/context_internal.h"
#include "track/linalg_small.h"
#include "track/motion_sampling.h"
#include "track/motion_score.h"
#include "track/motion_search.h"
#include "track/motion_solvers.h"

#include <math.h>
#include <string.h>

#define MOTION_DEFAULT_SEED 0x5A7FEA7D0C0FFEEull
#define MOTION_REFINE_PASSES 5
#define MOTION_LM_ITERATIONS 20
/* Levenberg-Marquardt stops after a step that lowers the inliers' RMS error by less than this
 * fraction of the threshold: near the optimum the error is quadratic, what a further step
 * could gain is smaller still (bench_motion: err px unchanged to 1e-4 px), and the steps saved
 * cost as much as the rest of the refinement */
#define MOTION_LM_MIN_RMS_GAIN 0.003

satfeat_motion_params satfeat_motion_params_default(void)
{
    satfeat_motion_params p;
    p.model = SATFEAT_MOTION_HOMOGRAPHY;
    p.threshold = 3.0;
    p.max_iterations = 2000;
    p.confidence = 0.999;
    p.seed = MOTION_DEFAULT_SEED;
    p.refine = 1;
    return p;
}

/* Scratch of one call, carved from the context's host scratch. */
typedef struct motion_work {
    double *sx, *sy, *dx, *dy; /* normalised coordinates in sample order */
    uint32_t *order;           /* sample position -> original index */
    uint32_t *idx;             /* inlier positions */
    uint8_t *mask_a, *mask_b;  /* inlier flags in sample order */
    uint8_t *final_mask;       /* inlier flags of the result, input order */
    double *gx, *gy, *gu, *gv; /* the current inliers' coordinates, contiguous */
    uint32_t *sort_a, *sort_b; /* radix sort scratch */
} motion_work;

/* Validates the arguments; returns SATFEAT_OK or the status after recording the reason. */
static satfeat_status check_args(satfeat_ctx *ctx, const double *src_xy, const double *dst_xy,
                                 size_t n, const float *quality, const satfeat_motion_params *p,
                                 const satfeat_motion *out)
{
    if (!src_xy || !dst_xy || !out)
        return satfeat_fail(ctx, SATFEAT_ERR_ARG, "estimate_motion: src_xy, dst_xy and out must "
                                                  "not be NULL");
    if (p->model != SATFEAT_MOTION_HOMOGRAPHY && p->model != SATFEAT_MOTION_AFFINE &&
        p->model != SATFEAT_MOTION_SIMILARITY)
        return satfeat_fail(ctx, SATFEAT_ERR_ARG, "estimate_motion: unknown model %d",
                            (int)p->model);
    if (!(p->threshold > 0.0) || !isfinite(p->threshold))
        return satfeat_fail(ctx, SATFEAT_ERR_ARG,
                            "estimate_motion: threshold %g must be finite and > 0", p->threshold);
    if (p->max_iterations < 1)
        return satfeat_fail(ctx, SATFEAT_ERR_ARG, "estimate_motion: max_iterations %d must be >= 1",
                            p->max_iterations);
    if (!(p->confidence > 0.0 && p->confidence < 1.0))
        return satfeat_fail(ctx, SATFEAT_ERR_ARG,
                            "estimate_motion: confidence %g must lie in (0, 1)", p->confidence);
    if (p->refine != 0 && p->refine != 1)
        return satfeat_fail(ctx, SATFEAT_ERR_ARG, "estimate_motion: refine %d must be 0 or 1",
                            p->refine);
    if (n >= ((size_t)1 << 31))
        return satfeat_fail(ctx, SATFEAT_ERR_ARG, "estimate_motion: %zu correspondences, at most "
                                                  "2^31 - 1 supported", n);
    for (size_t i = 0; i < n; i++) {
        if (!isfinite(src_xy[2 * i]) || !isfinite(src_xy[2 * i + 1]) ||
            !isfinite(dst_xy[2 * i]) || !isfinite(dst_xy[2 * i + 1]))
            return satfeat_fail(ctx, SATFEAT_ERR_ARG,
                                "estimate_motion: correspondence %zu has a non-finite coordinate",
                                i);
        if (quality && !isfinite(quality[i]))
            return satfeat_fail(ctx, SATFEAT_ERR_ARG,
                                "estimate_motion: quality %zu is not finite", i);
    }
    return SATFEAT_OK;
}

/* Carves the call's arrays from the context's host scratch; OVERFLOW or ALLOC (recorded) when
 * it cannot. */
static satfeat_status work_alloc(satfeat_ctx *ctx, size_t n, motion_work *w)
{
    /* 8 doubles + 4 u32 + 3 u8 = 83 bytes per correspondence, 64-byte aligned parts */
    const size_t pad = 64;
    if (n > ((size_t)-1 - 32 * pad) / 128)
        return satfeat_fail(ctx, SATFEAT_ERR_OVERFLOW,
                            "estimate_motion: scratch for %zu correspondences overflows", n);
    const size_t bytes = 8 * (n * sizeof(double) + pad) + 4 * (n * sizeof(uint32_t) + pad) +
                         3 * (n + pad) + 2 * pad;
    unsigned char *base = satfeat_host_scratch(ctx, bytes);
    if (!base) return SATFEAT_ERR_ALLOC;
    size_t off = 0;
#define MOTION_CARVE(ptr, type, count)                                                            \
    do {                                                                                          \
        off = (off + pad - 1) / pad * pad;                                                        \
        ptr = (type *)(void *)(base + off);                                                       \
        off += (count) * sizeof(type);                                                            \
    } while (0)
    MOTION_CARVE(w->sx, double, n);
    MOTION_CARVE(w->sy, double, n);
    MOTION_CARVE(w->dx, double, n);
    MOTION_CARVE(w->dy, double, n);
    MOTION_CARVE(w->order, uint32_t, n);
    MOTION_CARVE(w->idx, uint32_t, n);
    MOTION_CARVE(w->mask_a, uint8_t, n);
    MOTION_CARVE(w->mask_b, uint8_t, n);
    MOTION_CARVE(w->final_mask, uint8_t, n);
    MOTION_CARVE(w->sort_a, uint32_t, n);
    MOTION_CARVE(w->sort_b, uint32_t, n);
    MOTION_CARVE(w->gx, double, n);
    MOTION_CARVE(w->gy, double, n);
    MOTION_CARVE(w->gu, double, n);
    MOTION_CARVE(w->gv, double, n);
#undef MOTION_CARVE
    return SATFEAT_OK;
}

/* Iterated refinement of `best` (cost *best_cost) on its inliers: fit, keep it when the MSAC
 * cost does not grow, re-select the inliers, until they stop changing. The fits run on the
 * inliers gathered contiguously by the scan that scored the model (tn: the threshold in
 * normalised units, t2 its square). */
static void refine(satfeat_motion_model model, const motion_points *pts, double tn, double t2,
                   motion_work *w, double best[9], double *best_cost)
{
    const int projective = model == SATFEAT_MOTION_HOMOGRAPHY;
    const size_t n = pts->n;
    const motion_points in_all = {w->gx, w->gy, w->gu, w->gv, 0};
    size_t k = 0;
    (void)satfeat_motion_score_gather(best, projective, pts, t2, w->mask_a, w->gx, w->gy, w->gu,
                                      w->gv, &k);
    for (int pass = 0; pass < MOTION_REFINE_PASSES; pass++) {
        motion_points in = in_all;
        in.n = k;
        /* the homography's linear (algebraic) fit only seeds the first pass; later passes
         * continue Levenberg-Marquardt from the current model on the new inliers */
        double cand[9];
        memcpy(cand, best, sizeof cand);
        if ((!projective || pass == 0) && satfeat_motion_fit_linear(model, &in, NULL, k, cand) != 0)
            break;
        if (projective) {
            const int steps = satfeat_motion_refine_homography(&in, cand, MOTION_LM_ITERATIONS,
                                                               MOTION_LM_MIN_RMS_GAIN * tn);
            if (steps < 0) break;
            /* no step from best (h[8] = 1 since the first pass): cand is best's bits, whose
             * inliers were just gathered; the scan below would find them unchanged */
            if (steps == 0 && pass > 0) break;
        }
        /* scoring overwrites the gathered inliers: the fit above was their last use */
        size_t k2 = 0;
        const double cost = satfeat_motion_score_gather(cand, projective, pts, t2, w->mask_b,
                                                        w->gx, w->gy, w->gu, w->gv, &k2);
        if (!(cost <= *best_cost)) break;
        *best_cost = cost;
        memcpy(best, cand, 9 * sizeof *best);
        const int same = k2 == k && memcmp(w->mask_a, w->mask_b, n) == 0;
        uint8_t *t = w->mask_a;
        w->mask_a = w->mask_b;
        w->mask_b = t;
        k = k2;
        if (same) break;
    }
}

/* Runs the hypothesis search `s` (initialised) on the context's backend: the CPU search, or on a
 * CUDA context the batched device search; both leave the same state. */
static satfeat_status run_search(satfeat_ctx *ctx, const satfeat_motion_params *p, int prosac,
                                 const motion_points *pts, motion_work *w, motion_search *s)
{
    motion_sampler smp;
    satfeat_motion_sampler_init(&smp, (uint32_t)pts->n, (uint32_t)s->m, prosac, p->seed,
                                (double)p->max_iterations);
    if (ctx->backend == SATFEAT_BACKEND_CUDA) {
#ifdef SATFEAT_HAVE_CUDA
        return satfeat_motion_search_cuda(ctx, s, &smp, pts);
#else
        return satfeat_fail(ctx, SATFEAT_ERR_UNSUPPORTED, "estimate_motion: built without CUDA");
#endif
    }
    satfeat_motion_search_cpu(s, &smp, pts, w->mask_a);
    return SATFEAT_OK;
}

satfeat_status satfeat_estimate_motion(satfeat_ctx *ctx, const double *src_xy,
                                       const double *dst_xy, size_t n, const float *quality,
                                       const satfeat_motion_params *params, satfeat_motion *out,
                                       uint8_t *inlier_mask)
{
    if (!ctx) return SATFEAT_ERR_ARG;
    const satfeat_motion_params p = params ? *params : satfeat_motion_params_default();
    satfeat_status st = check_args(ctx, src_xy, dst_xy, n, quality, &p, out);
    if (st != SATFEAT_OK) return st;
    const satfeat_motion_model model = p.model;
    const int m = satfeat_motion_model_sample_size(model);
    const int projective = model == SATFEAT_MOTION_HOMOGRAPHY;
    const size_t min_inliers = 2 * (size_t)m;
    if (n < (size_t)m || n < min_inliers)
        return satfeat_fail(ctx, SATFEAT_ERR_NO_MODEL,
                            "estimate_motion: %zu correspondences, the model needs at least %zu",
                            n, min_inliers);

    motion_norm ns, nd;
    if (satfeat_motion_norm_compute(src_xy, n, &ns) != 0 ||
        satfeat_motion_norm_compute(dst_xy, n, &nd) != 0)
        return satfeat_fail(ctx, SATFEAT_ERR_NO_MODEL,
                            "estimate_motion: all source or all destination points coincide");
    motion_work w;
    memset(&w, 0, sizeof w);
    st = work_alloc(ctx, n, &w);
    if (st != SATFEAT_OK) return st;

    /* sample order: quality descending (PROSAC) or the input order (RANSAC) */
    if (quality) {
        satfeat_motion_quality_order(quality, n, w.order, w.sort_a, w.sort_b, w.idx);
    } else {
        for (size_t i = 0; i < n; i++) w.order[i] = (uint32_t)i;
    }
    for (size_t k = 0; k < n; k++) {
        const size_t i = w.order[k];
        w.sx[k] = ns.s * (src_xy[2 * i] - ns.cx);
        w.sy[k] = ns.s * (src_xy[2 * i + 1] - ns.cy);
        w.dx[k] = nd.s * (dst_xy[2 * i] - nd.cx);
        w.dy[k] = nd.s * (dst_xy[2 * i + 1] - nd.cy);
    }
    const motion_points pts = {w.sx, w.sy, w.dx, w.dy, n};
    if (model != SATFEAT_MOTION_SIMILARITY && (satfeat_motion_spread_ratio(w.sx, w.sy, n) < 1e-10 ||
                                               satfeat_motion_spread_ratio(w.dx, w.dy, n) < 1e-10))
        return satfeat_fail(ctx, SATFEAT_ERR_NO_MODEL,
                            "estimate_motion: the source or destination points are collinear");

    /* threshold in normalised destination units */
    const double tn = p.threshold * nd.s;
    const double t2 = tn * tn;

    motion_search search;
    satfeat_motion_search_init(&search, &p, quality != NULL, t2);
    st = run_search(ctx, &p, quality != NULL, &pts, &w, &search);
    if (st != SATFEAT_OK) return st;
    const int iterations = (int)search.draws;
    if (!search.have)
        return satfeat_fail(ctx, SATFEAT_ERR_NO_MODEL,
                            "estimate_motion: every one of %d samples was degenerate", iterations);
    double best[9], best_cost = search.best_cost;
    memcpy(best, search.best, sizeof best);

    if (p.refine) refine(model, &pts, tn, t2, &w, best, &best_cost);

    /* back to pixels: H = Td^-1 Hn Ts, evaluated with w > 0 at the inliers, reported with h8 = 1 */
    double ts[9], tdi[9], tmp[9], hp[9];
    satfeat_motion_norm_matrix(&ns, ts);
    satfeat_motion_norm_inverse_matrix(&nd, tdi);
    satfeat_lin_mat3_mul(best, ts, tmp);
    satfeat_lin_mat3_mul(tdi, tmp, hp);
    double frob = 0.0;
    for (int a = 0; a < 9; a++) frob += hp[a] * hp[a];
    if (!(fabs(hp[8]) > 1e-12 * sqrt(frob)) || !isfinite(frob))
        return satfeat_fail(ctx, SATFEAT_ERR_NO_MODEL,
                            "estimate_motion: the homography maps the pixel origin to infinity");
    /* hout is reported; he = +-hout has w > 0 at the inliers (they are the same matrix unless
     * the pixel origin lies across the horizon) */
    double he[9], hout[9];
    const double r8 = 1.0 / hp[8];
    for (int a = 0; a < 8; a++) hout[a] = hp[a] * r8;
    hout[8] = 1.0;
    if (!projective) hout[6] = hout[7] = 0.0;
    for (int a = 0; a < 9; a++) he[a] = hp[8] > 0.0 ? hout[a] : -hout[a];
    const double tp2 = p.threshold * p.threshold;
    size_t count = 0;
    double sum = 0.0;
    for (size_t i = 0; i < n; i++) {
        const double e = motion_error2(he, projective, src_xy[2 * i], src_xy[2 * i + 1],
                                       dst_xy[2 * i], dst_xy[2 * i + 1]);
        const int in = e < tp2;
        w.final_mask[i] = (uint8_t)in;
        if (in) {
            count++;
            sum += e;
        }
    }
    if (count < min_inliers)
        return satfeat_fail(ctx, SATFEAT_ERR_NO_MODEL,
                            "estimate_motion: the best model has %zu inliers, at least %zu needed",
                            count, min_inliers);
    if (inlier_mask) memcpy(inlier_mask, w.final_mask, n);
    memcpy(out->h, hout, sizeof hout);
    out->inliers = count;
    out->rms_error = sqrt(sum / (double)count);
    out->iterations = iterations;
    return SATFEAT_OK;
}
