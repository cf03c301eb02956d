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
    const satfeat_image_view v = satfeat_image_view_host(img, width, height, stride);
    satfeat_status st = satfeat_detect(det, &v, features);
    if (st != SATFEAT_OK || kind != SATFEAT_DESCRIPTOR_NONE ||
        satfeat_features_descriptor_kind(*features) == SATFEAT_DESCRIPTOR_NONE)
        return st;
    /* keypoints only: the set again without its descriptors */
    const size_t n = satfeat_features_count(*features);
    satfeat_keypoint *kp = malloc((n ? n : 1) * sizeof *kp);
    if (!kp) return SATFEAT_ERR_ALLOC;
    for (size_t i = 0; i < n; i++) kp[i] = satfeat_features_keypoints(*features)[i];
    st = satfeat_features_assign(*features, kp, NULL, n, SATFEAT_DESCRIPTOR_NONE, width, height);
    free(kp);
    return st;
}
