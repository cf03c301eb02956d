/* ar_features.c - the AR module's calls into the detector, matcher and motion estimator
 * (ar_features.h): the only file of ar/ that names them. */
#include "ar/ar_features.h"

#include <stdlib.h>

struct satfeat_ar_features {
    satfeat_detector *det;
    satfeat_keypoint *kp;
    float *desc;
    size_t capacity;
    int dim;
};

satfeat_status satfeat_ar_features_new(satfeat_ctx *ctx, const satfeat_detector_params *params,
                                       int max_width, int max_height, satfeat_ar_features **out)
{
    *out = NULL;
    if (params->max_keypoints < 1 || params->descriptor == SATFEAT_DESCRIPTOR_NONE)
        return SATFEAT_ERR_ARG;
    satfeat_ar_features *f = calloc(1, sizeof *f);
    if (!f) return SATFEAT_ERR_ALLOC;
    f->capacity = (size_t)params->max_keypoints;
    f->dim = (int)params->descriptor;
    f->kp = malloc(f->capacity * sizeof *f->kp);
    f->desc = malloc(f->capacity * (size_t)f->dim * sizeof(float));
    if (!f->kp || !f->desc) {
        satfeat_ar_features_delete(f);
        return SATFEAT_ERR_ALLOC;
    }
    const satfeat_status st = satfeat_detector_new(ctx, params, max_width, max_height, &f->det);
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
    free(f->kp);
    free(f->desc);
    free(f);
}

int satfeat_ar_features_dim(const satfeat_ar_features *f) { return f->dim; }

satfeat_status satfeat_ar_features_detect(satfeat_ar_features *f, const satfeat_image_view *v,
                                          const satfeat_keypoint **kp, const float **desc,
                                          size_t *n)
{
    size_t count = 0;
    const int mw = v->mask ? v->width : 0, mh = v->mask ? v->height : 0;
    const satfeat_status st =
        v->memory == SATFEAT_MEMORY_DEVICE
            ? satfeat_detect_features_u8_device(f->det, v->pixels, v->stride, v->width, v->height,
                                                v->mask, v->mask_stride, mw, mh, f->kp, f->desc,
                                                f->capacity, &count, v->stream)
            : satfeat_detect_features_u8(f->det, v->pixels, v->stride, v->width, v->height,
                                         v->mask, v->mask_stride, mw, mh, f->kp, f->desc,
                                         f->capacity, &count);
    /* max_keypoints equals the capacity, so the detector never reports more */
    if (st != SATFEAT_OK) return st;
    *kp = f->kp;
    *desc = f->desc;
    *n = count;
    return SATFEAT_OK;
}

satfeat_status satfeat_ar_match(satfeat_ctx *ctx, const satfeat_keypoint *kq, const float *dq,
                                size_t nq, const satfeat_keypoint *kt, const float *dt,
                                size_t nt, int dim, const double *predicted, double ratio,
                                double radius, satfeat_match *matches, size_t capacity,
                                size_t *count)
{
    satfeat_match_params mp = satfeat_match_params_default();
    mp.ratio = ratio;
    mp.mutual = 0;
    mp.same_laplacian = 1;
    mp.radius = radius;
    return satfeat_match_descriptors(ctx, kq, dq, nq, kt, dt, nt, dim,
                                     radius > 0 ? predicted : NULL, &mp, matches, capacity,
                                     count);
}

satfeat_status satfeat_ar_homography_robust(satfeat_ctx *ctx, const double *src_xy,
                                            const double *dst_xy, size_t n, const float *quality,
                                            double threshold, double h[9], uint8_t *inliers,
                                            size_t *n_inliers)
{
    satfeat_motion_params p = satfeat_motion_params_default();
    p.model = SATFEAT_MOTION_HOMOGRAPHY;
    p.threshold = threshold;
    p.max_iterations = 1000;
    satfeat_motion m;
    const satfeat_status st = satfeat_estimate_motion(ctx, src_xy, dst_xy, n, quality, &p, &m,
                                                      inliers);
    if (st != SATFEAT_OK) return st;
    for (int k = 0; k < 9; k++) h[k] = m.h[k];
    *n_inliers = m.inliers;
    return SATFEAT_OK;
}
