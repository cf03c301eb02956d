/* detect_cuda_util.c - see detect_cuda_util.h. */
#include "detect_cuda_util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

satfeat_keypoint *dcu_detect(satfeat_detector *det, const uint8_t *img, size_t stride, int w,
                             int h, const uint8_t *mask, size_t mask_stride, size_t *n)
{
    return test_detect_copy(det, img, stride, w, h, mask, mask_stride, n, NULL);
}

size_t dcu_assert_same(satfeat_detector *cpu, satfeat_detector *gpu, const uint8_t *img,
                       size_t stride, int w, int h, const uint8_t *mask, size_t mask_stride)
{
    size_t nc = 0, ng = 0;
    satfeat_keypoint *a = dcu_detect(cpu, img, stride, w, h, mask, mask_stride, &nc);
    satfeat_keypoint *b = dcu_detect(gpu, img, stride, w, h, mask, mask_stride, &ng);
    if (nc != ng) fprintf(stderr, "%dx%d: CPU %zu keypoints, GPU %zu\n", w, h, nc, ng);
    assert_int_equal(nc, ng);
    for (size_t i = 0; i < nc; i++)
        if (memcmp(&a[i], &b[i], sizeof a[i]) != 0) {
            fprintf(stderr, "%dx%d: keypoint %zu differs: CPU (%.17g %.17g %.17g %.17g angle "
                            "%.17g) GPU (%.17g %.17g %.17g %.17g angle %.17g)\n",
                    w, h, i, a[i].x, a[i].y, a[i].size, a[i].response, a[i].angle, b[i].x,
                    b[i].y, b[i].size, b[i].response, b[i].angle);
            fail();
        }
    free(a);
    free(b);
    return nc;
}

int dcu_small(void)
{
    const char *v = getenv("SATFEAT_TEST_SMALL");
    return v && *v && strcmp(v, "0") != 0;
}

dcu_pair dcu_pair_new(const satfeat_detector_params *p, int max_w, int max_h)
{
    dcu_pair q;
    q.gpu_ctx = test_cuda_ctx_or_skip();
    assert_int_equal(satfeat_ctx_new(&q.cpu_ctx, SATFEAT_BACKEND_CPU, -1), SATFEAT_OK);
    assert_int_equal(satfeat_ctx_set_threads(q.cpu_ctx, 2), SATFEAT_OK);
    assert_int_equal(satfeat_detector_new(q.cpu_ctx, p, max_w, max_h, &q.cpu), SATFEAT_OK);
    satfeat_status st = satfeat_detector_new(q.gpu_ctx, p, max_w, max_h, &q.gpu);
    if (st != SATFEAT_OK) fprintf(stderr, "%s\n", satfeat_ctx_last_error(q.gpu_ctx));
    assert_int_equal(st, SATFEAT_OK);
    return q;
}

void dcu_pair_delete(dcu_pair *q)
{
    satfeat_detector_delete(q->cpu);
    satfeat_detector_delete(q->gpu);
    satfeat_ctx_delete(q->cpu_ctx);
    satfeat_ctx_delete(q->gpu_ctx);
}
