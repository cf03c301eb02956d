/* ar_features.c - the AR module's calls into the detector, matcher and motion estimator
 * (ar_features.h): the only file of ar/ that names them. */
#include "ar/ar_features.h"
#include "src/context_internal.h" /* satfeat_fail */
#include "src/features_internal.h"

#include <stdlib.h>
#include <string.h>

struct satfeat_ar_features {
    satfeat_ctx *ctx;
    satfeat_detector *det;
    satfeat_features *set; /* the last frame's features, reserved for max_keypoints */
    int dim;
    /* the matcher's train and list, kept from call to call so that a match allocates nothing
     * once they have grown: the train holds the frame's features, given once a frame, unless
     * `set` itself holds them unchanged */
    satfeat_features *train;
    const satfeat_features *frame; /* the train of the frame's matches: `set` or `train` */
    satfeat_matches *matches;
    /* the robust homography's context on a CUDA adapter (satfeat_ar_homography_robust) */
    satfeat_ctx *host;
};

satfeat_status satfeat_ar_features_new(satfeat_ctx *ctx, const satfeat_detector_params *params,
                                       int max_width, int max_height, satfeat_ar_features **out)
{
    *out = NULL;
    if (params->max_keypoints < 1 || params->descriptor == SATFEAT_DESCRIPTOR_NONE)
        return SATFEAT_ERR_ARG;
    satfeat_ar_features *f = calloc(1, sizeof *f);
    if (!f) return SATFEAT_ERR_ALLOC;
    f->ctx = ctx;
    f->dim = (int)params->descriptor;
    satfeat_status st = satfeat_features_new(&f->set);
    if (st == SATFEAT_OK) st = satfeat_features_new(&f->train);
    if (st == SATFEAT_OK) st = satfeat_matches_new(&f->matches);
    if (st == SATFEAT_OK)
        st = satfeat_features_reserve(f->set, (size_t)params->max_keypoints, params->descriptor);
    if (st == SATFEAT_OK) st = satfeat_detector_new(ctx, params, max_width, max_height, &f->det);
    if (st != SATFEAT_OK) {
        satfeat_ar_features_delete(f);
        return st;
    }
    *out = f;
    return SATFEAT_OK;
}

void satfeat_ar_features_delete(satfeat_ar_features *f)
{
    if (!f) return;
    satfeat_detector_delete(f->det);
    satfeat_features_delete(f->set);
    satfeat_features_delete(f->train);
    satfeat_matches_delete(f->matches);
    satfeat_ctx_delete(f->host);
    free(f);
}

int satfeat_ar_features_dim(const satfeat_ar_features *f) { return f->dim; }

satfeat_status satfeat_ar_features_detect(satfeat_ar_features *f, const satfeat_image_view *v,
                                          int dx, int dy, const satfeat_keypoint **kp,
                                          const float **desc, size_t *n)
{
    satfeat_status st = satfeat_detect(f->det, v, &f->set);
    if (st != SATFEAT_OK) return st;
    const size_t count = satfeat_features_count(f->set);
    if (dx != 0 || dy != 0) {
        /* moved where they lie, so the set stays the frame's train (set_train copies nothing);
         * sized again for its own count, its arrays stay put, and it takes a new stamp for its
         * new contents */
        int w, h;
        satfeat_features_image_size(f->set, &w, &h);
        satfeat_keypoint *k;
        st = satfeat_features_prepare(f->set, count, satfeat_features_descriptor_kind(f->set), w, h,
                                      &k, NULL);
        if (st != SATFEAT_OK) return st;
        for (size_t i = 0; i < count; i++) {
            k[i].x += dx;
            k[i].y += dy;
        }
    }
    *kp = satfeat_features_keypoints(f->set);
    *desc = satfeat_features_descriptors(f->set);
    *n = count;
    return SATFEAT_OK;
}

satfeat_status satfeat_ar_features_set_train(satfeat_ar_features *f, const satfeat_keypoint *kt,
                                             const float *dt, size_t nt)
{
    /* the matcher takes feature sets (the image size is not read): the detector's own set
     * when these are its features, else one copy a frame */
    if (nt == satfeat_features_count(f->set) && kt == satfeat_features_keypoints(f->set) &&
        dt == satfeat_features_descriptors(f->set)) {
        f->frame = f->set;
        return SATFEAT_OK;
    }
    f->frame = f->train;
    return satfeat_features_assign(f->train, kt, dt, nt, (satfeat_descriptor_kind)f->dim, 1, 1);
}

satfeat_status satfeat_ar_query_new(const satfeat_keypoint *kq, const float *dq, size_t nq,
                                    int dim, satfeat_features **out)
{
    *out = NULL;
    satfeat_status st = satfeat_features_new(out);
    if (st == SATFEAT_OK)
        st = satfeat_features_assign(*out, kq, dq, nq, (satfeat_descriptor_kind)dim, 1, 1);
    if (st != SATFEAT_OK) {
        satfeat_features_delete(*out);
        *out = NULL;
    }
    return st;
}

satfeat_status satfeat_ar_query_resize(satfeat_features *q, size_t n, int dim,
                                       satfeat_keypoint **kp, float **desc)
{
    return satfeat_features_prepare(q, n, (satfeat_descriptor_kind)dim, 1, 1, kp, desc);
}

void satfeat_ar_query_keep(satfeat_features *q) { satfeat_features_set_kept(q, 1); }

void satfeat_ar_query_delete(satfeat_features *q) { satfeat_features_delete(q); }

satfeat_status satfeat_ar_match(satfeat_ar_features *f, const satfeat_features *query,
                                const double *predicted, double ratio, double radius,
                                satfeat_match_pair *matches, size_t capacity, size_t *count)
{
    satfeat_match_params mp = satfeat_match_params_default();
    mp.ratio = ratio;
    mp.mutual = 0;
    mp.same_laplacian = 1;
    mp.radius = radius;
    *count = 0;
    if (!f->frame) return SATFEAT_ERR_ARG;
    const satfeat_status st =
        radius > 0 ? satfeat_match_guided(f->ctx, query, f->frame, predicted, &mp, &f->matches)
                   : satfeat_match(f->ctx, query, f->frame, &mp, &f->matches);
    if (st != SATFEAT_OK) return st;
    *count = satfeat_matches_count(f->matches);
    if (*count > capacity) return SATFEAT_ERR_CAPACITY;
    if (*count) memcpy(matches, satfeat_matches_data(f->matches), *count * sizeof *matches);
    return SATFEAT_OK;
}

/* The most pairs whose robust homography a CUDA adapter searches on the host (see below). */
#define AR_HOST_SEARCH_MAX_PAIRS 160

satfeat_status satfeat_ar_homography_robust(satfeat_ar_features *f, const double *src_xy,
                                            const double *dst_xy, size_t n, const float *quality,
                                            double threshold, double h[9], uint8_t *inliers,
                                            size_t *n_inliers)
{
    /* On a CUDA context a search runs in batches of device round trips: up to three for a
     * search on wrong matches, which runs to its cap of draws, each longer than the host needs
     * to score a draw on a few tens of pairs; a search on hundreds of pairs (a tracked target)
     * is faster on the device. Both searches give the same bits (docs/MOTION.md, "Backends"),
     * so the choice changes no answer. */
    satfeat_ctx *ctx = f->ctx;
    if (n <= AR_HOST_SEARCH_MAX_PAIRS && satfeat_ctx_backend(f->ctx) == SATFEAT_BACKEND_CUDA) {
        if (!f->host && satfeat_ctx_new(&f->host, SATFEAT_BACKEND_CPU, -1) != SATFEAT_OK) {
            f->host = NULL;
            return satfeat_fail(f->ctx, SATFEAT_ERR_ALLOC,
                                "ar: no host context for the robust homography");
        }
        ctx = f->host;
    }
    satfeat_motion_params p = satfeat_motion_params_default();
    p.model = SATFEAT_MOTION_HOMOGRAPHY;
    p.threshold = threshold;
    p.max_iterations = 1000;
    satfeat_motion m;
    const satfeat_status st = satfeat_estimate_motion(ctx, src_xy, dst_xy, n, quality, &p, &m,
                                                      inliers);
    if (st != SATFEAT_OK && st != SATFEAT_ERR_NO_MODEL && ctx != f->ctx)
        return satfeat_fail(f->ctx, st, "%s", satfeat_ctx_last_error(ctx));
    if (st != SATFEAT_OK) return st;
    for (int k = 0; k < 9; k++) h[k] = m.h[k];
    *n_inliers = m.inliers;
    return SATFEAT_OK;
}
