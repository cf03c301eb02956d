/* test_detect_cuda_unsupported.c - until the CUDA detector exists, a detector on a CUDA context
 * is refused with SATFEAT_ERR_UNSUPPORTED and a message (skipped without a CUDA device). */
#include "test_util.h"

#include <string.h>

static void test_cuda_context_refused(void **state)
{
    (void)state;
    satfeat_ctx *ctx = test_cuda_ctx_or_skip();
    const satfeat_detector_params p = satfeat_detector_params_default();
    satfeat_detector *det = NULL;
    assert_int_equal(satfeat_detector_new(ctx, &p, 640, 480, &det), SATFEAT_ERR_UNSUPPORTED);
    assert_null(det);
    assert_non_null(strstr(satfeat_ctx_last_error(ctx), "CUDA detector"));
    satfeat_ctx_delete(ctx);
}

int main(void)
{
    const struct CMUnitTest tests[] = {cmocka_unit_test(test_cuda_context_refused)};
    return cmocka_run_group_tests(tests, NULL, NULL);
}
