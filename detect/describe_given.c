/* describe_given.c - satfeat_describe_keypoints: orientations and descriptors of keypoints the
 * caller gives (another detector's, a file's, another library's), with a detector's parameters.
 * It runs the detector's describe stage (describe/describe.h) on the CPU on a table of the
 * image in the context's host scratch, whatever the backend: the per-keypoint arithmetic is the
 * one both backends share, so the result is what a detector of either backend computes for the
 * same keypoints. */
#include "describe/describe.h"
#include "detect/detect.h"
#include "detect/detector_internal.h"
#include "sat/sat.h"
#include "src/features_internal.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

/* SATFEAT_ERR_ARG naming the first keypoint whose x, y or sigma cannot be described. */
static satfeat_status check_keypoints(satfeat_ctx *ctx, const satfeat_keypoint *kp, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        if (!isfinite(kp[i].x) || !isfinite(kp[i].y))
            return satfeat_fail(ctx, SATFEAT_ERR_ARG,
                                "describe: keypoint %zu: position (%g, %g) is not finite", i,
                                kp[i].x, kp[i].y);
        if (!isfinite(kp[i].sigma) || !(kp[i].sigma > 0))
            return satfeat_fail(ctx, SATFEAT_ERR_ARG,
                                "describe: keypoint %zu: sigma %g is not finite and > 0", i,
                                kp[i].sigma);
    }
    return SATFEAT_OK;
}

/* The view checks of satfeat_detect, then what describing adds: host pixels, no mask. */
static satfeat_status check_view(satfeat_detector *det, const satfeat_image_view *image)
{
    satfeat_status st = satfeat_detect_check_view(det, image);
    if (st != SATFEAT_OK) return st;
    if (image->memory != SATFEAT_MEMORY_HOST)
        return satfeat_fail(det->ctx, SATFEAT_ERR_UNSUPPORTED,
                            "describe: the image must be in host memory");
    if (image->mask)
        return satfeat_fail(det->ctx, SATFEAT_ERR_ARG,
                            "describe: a view with a mask (the keypoints are given, none is "
                            "selected)");
    return SATFEAT_OK;
}

satfeat_status satfeat_describe_keypoints(satfeat_detector *det, const satfeat_image_view *image,
                                          const satfeat_keypoint *kp, size_t n,
                                          satfeat_features **features)
{
    if (!det) return SATFEAT_ERR_ARG;
    satfeat_ctx *ctx = det->ctx;
    satfeat_status st = satfeat_features_out(features);
    if (st != SATFEAT_OK)
        return satfeat_fail(ctx, st, "describe: %s", features ? "out of memory" : "NULL features");
    st = check_view(det, image);
    if (st == SATFEAT_OK && !kp && n > 0)
        st = satfeat_fail(ctx, SATFEAT_ERR_ARG, "describe: NULL keypoints with n = %zu", n);
    if (st == SATFEAT_OK) st = check_keypoints(ctx, kp, n);
    if (st != SATFEAT_OK) {
        satfeat_features_clear(*features);
        return st;
    }
    const int w = image->width, h = image->height, threads = ctx->threads;
    const size_t sst = (size_t)w + 1;
    const size_t scratch_bytes = satfeat_sat_cpu_scratch_bytes(w, h, threads, sizeof(uint32_t));
    size_t sat_bytes;
    if (satfeat_mul_overflows(sst, (size_t)h + 1, &sat_bytes) ||
        satfeat_mul_overflows(sat_bytes, sizeof(uint32_t), &sat_bytes) ||
        sat_bytes > (size_t)-1 - scratch_bytes) {
        satfeat_features_clear(*features);
        return satfeat_fail(ctx, SATFEAT_ERR_OVERFLOW, "describe: a %dx%d image is too large", w,
                            h);
    }
    char what[80];
    snprintf(what, sizeof what, "describe: the table of a %dx%d image", w, h);
    st = satfeat_check_budget(ctx, what, sat_bytes + scratch_bytes);
    uint32_t *sat = NULL;
    if (st == SATFEAT_OK) {
        sat = satfeat_host_scratch(ctx, sat_bytes + scratch_bytes);
        if (!sat) st = SATFEAT_ERR_ALLOC; /* recorded by satfeat_host_scratch */
    }
    const satfeat_detector_params *p = &det->params;
    satfeat_keypoint *out_kp = NULL;
    float *desc = NULL;
    if (st == SATFEAT_OK) {
        st = satfeat_features_prepare(*features, n, p->descriptor, w, h, &out_kp, &desc);
        if (st != SATFEAT_OK) st = satfeat_fail(ctx, st, "describe: no memory for %zu features", n);
    }
    if (st != SATFEAT_OK) {
        satfeat_features_clear(*features);
        return st;
    }
    satfeat_sat_cpu_u8(image->pixels, image->stride, w, h, sat, sst * sizeof(uint32_t), threads,
                       (char *)sat + sat_bytes, SATFEAT_SAT_CPU_ISA_BEST);
    if (n) memcpy(out_kp, kp, n * sizeof *kp);
    if (p->upright) {
        for (size_t i = 0; i < n; i++) out_kp[i].angle = 0.0;
    } else {
        satfeat_orient_cpu(sat, sst, w, h, out_kp, n, &det->weights, threads);
    }
    if (desc)
        satfeat_describe_cpu(sat, sst, w, h, out_kp, n, satfeat_desc_flags(p), (int)p->descriptor,
                             &det->weights, desc, threads);
    return SATFEAT_OK;
}
