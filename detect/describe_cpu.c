/* describe_cpu.c - orientation and descriptors on the CPU: the per-keypoint functions of
 * orientation.h and descriptor.h, threaded over keypoints (each keypoint is computed by one
 * thread in the headers' fixed order, so results do not depend on the thread count). */
#include "describe_cpu.h"
#include "descriptor.h"
#include "orientation.h"

void satfeat_orient_cpu(const uint32_t *sat, size_t sat_stride, int width, int height,
                        satfeat_keypoint *kp, size_t n, const satfeat_describe_weights *w,
                        int threads)
{
    const long count = (long)n;
    if (threads < 1) threads = 1;
#pragma omp parallel for num_threads(threads) schedule(dynamic, 16) if (threads > 1 && count > 16)
    for (long i = 0; i < count; i++)
        kp[i].angle = satfeat_orientation(sat, sat_stride, width, height, kp[i].x, kp[i].y,
                                          kp[i].sigma, w);
}

void satfeat_describe_cpu(const uint32_t *sat, size_t sat_stride, int width, int height,
                          const satfeat_keypoint *kp, size_t n, int upright, int dim,
                          const satfeat_describe_weights *w, float *desc, int threads)
{
    const long count = (long)n;
    if (dim != 128) dim = 64;
    if (threads < 1) threads = 1;
#pragma omp parallel num_threads(threads) if (threads > 1 && count > 16)
    {
        double rx[SATFEAT_DESC_SAMPLES], ry[SATFEAT_DESC_SAMPLES], vals[128];
#pragma omp for schedule(dynamic, 16)
        for (long i = 0; i < count; i++) {
            const satfeat_desc_setup d =
                satfeat_desc_prepare(kp[i].x, kp[i].y, kp[i].sigma, kp[i].angle, upright);
            satfeat_descriptor(sat, sat_stride, width, height, &d, w, dim, rx, ry, vals,
                               desc + (size_t)i * (size_t)dim);
        }
    }
}
