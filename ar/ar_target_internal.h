/* ar_target_internal.h - what a satfeat_ar_target holds: a reference image's keypoints (in
 * reference pixel coordinates, over all scales), their descriptors and its photometric samples
 * (ar_photo.h). */
#ifndef SATFEAT_AR_TARGET_INTERNAL_H
#define SATFEAT_AR_TARGET_INTERNAL_H

#include "ar/ar_photo.h"
#include "src/context_internal.h"

struct satfeat_ar_target {
    int width, height;     /* reference size in pixels */
    double width_m;        /* physical width; s = width_m / width metres per pixel */
    int scales;            /* scales detected */
    int dim;               /* floats per descriptor, 64 or 128 */
    size_t n;              /* keypoints */
    satfeat_keypoint *kp;  /* n keypoints: x, y, size, angle, response, laplacian meaningful */
    float *desc;           /* n * dim floats */
    satfeat_ar_photo photo; /* the photometric samples (none from a file of version 1) */
};

/** Allocates an empty target for n keypoints of `dim` floats (NULL when out of memory). */
satfeat_ar_target *satfeat_ar_target_alloc(size_t n, int dim);

/** Area-averaging resample of an 8-bit image to dw x dh (dst tightly packed); 0 on OOM. */
int satfeat_ar_resize_area(const uint8_t *src, size_t stride, int w, int h, uint8_t *dst, int dw,
                           int dh);

#endif
