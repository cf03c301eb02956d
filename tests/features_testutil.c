/* features_testutil.c - feature sets for the tests (features_testutil.h). */
#include "features_testutil.h"
#include "test_util.h"

#include <stdlib.h>

satfeat_features *test_features_of(const satfeat_keypoint *kp, const float *desc, size_t n,
                                   int dim, int width, int height)
{
    satfeat_features *f = NULL;
    assert_int_equal(satfeat_features_new(&f), SATFEAT_OK);
    assert_int_equal(satfeat_features_assign(f, kp, dim ? desc : NULL, n,
                                             (satfeat_descriptor_kind)dim, width, height),
                     SATFEAT_OK);
    return f;
}

satfeat_status test_detect_set(satfeat_detector *det, satfeat_descriptor_kind kind,
                               const uint8_t *img, int width, int height, size_t stride,
                               satfeat_features **features)
{
    size_t n = 0;
    satfeat_status st = kind == SATFEAT_DESCRIPTOR_NONE
                            ? satfeat_detect_u8(det, img, stride, width, height, NULL, 0, 0, 0,
                                                NULL, 0, &n)
                            : satfeat_detect_features_u8(det, img, stride, width, height, NULL,
                                                         0, 0, 0, NULL, NULL, 0, &n);
    if (!*features && satfeat_features_new(features) != SATFEAT_OK) return SATFEAT_ERR_ALLOC;
    satfeat_features_assign(*features, NULL, NULL, 0, SATFEAT_DESCRIPTOR_NONE, width, height);
    if (st != SATFEAT_OK && st != SATFEAT_ERR_CAPACITY) return st;
    satfeat_keypoint *kp = malloc((n ? n : 1) * sizeof *kp);
    float *desc = malloc((n ? n : 1) * (size_t)(kind ? kind : 1) * sizeof *desc);
    if (!kp || !desc) {
        free(kp);
        free(desc);
        return SATFEAT_ERR_ALLOC;
    }
    st = kind == SATFEAT_DESCRIPTOR_NONE
             ? satfeat_detect_u8(det, img, stride, width, height, NULL, 0, 0, 0, kp, n, &n)
             : satfeat_detect_features_u8(det, img, stride, width, height, NULL, 0, 0, 0, kp,
                                          desc, n, &n);
    if (st == SATFEAT_OK) st = satfeat_features_assign(*features, kp, desc, n, kind, width, height);
    free(kp);
    free(desc);
    return st;
}
