/* test_batch_cuda.c - satfeat_batch on a CUDA detector: with 1, 2, 3 and 8 lanes, and batches
 * smaller and larger than the lane count, every frame (mixed sizes and strides) equals the CPU
 * detector's keypoints and descriptors in input order; failures stay with their frame. Skips
 * with "no CUDA device" without one. SATFEAT_TEST_SMALL=1 (sanitizer runs) runs fewer cases. */
#include "batch_testutil.h"
#include "detect_cuda_util.h"

static void cuda_batch_equals_cpu(void **state)
{
    (void)state;
    satfeat_ctx *ctx = test_cuda_ctx_or_skip();
    const int device = satfeat_ctx_device(ctx);
    const int small = dcu_small();
    static const int lanes_list[] = {1, 2, 3, 8};
    const int n_lanes = small ? 2 : 4;
    for (int li = 0; li < n_lanes; li++) {
        const int lanes = lanes_list[small ? li * 2 + 1 : li]; /* small: 2 and 8 */
        const size_t counts[3] = {1, (size_t)lanes + 1, 2u * (size_t)lanes + 3};
        for (int ci = 0; ci < 3; ci++) {
            bt_frames fr = bt_frames_make(counts[ci], 100u + (uint64_t)ci);
            bt_check_equal(ctx, lanes, &fr, device, 0);
            bt_frames_free(&fr);
        }
    }
    /* the context's thread count caps the batch's host threads: one thread, all lanes */
    assert_int_equal(satfeat_ctx_set_threads(ctx, 1), SATFEAT_OK);
    bt_frames fr = bt_frames_make(13, 7);
    bt_check_equal(ctx, 4, &fr, device, 0);
    bt_check_equal(ctx, 3, &fr, device, 1); /* a detector sized by its frames */
    bt_frames_free(&fr);
    satfeat_ctx_delete(ctx);
}

static void cuda_failures_stay_with_their_frame(void **state)
{
    (void)state;
    satfeat_ctx *ctx = test_cuda_ctx_or_skip();
    bt_check_frame_errors(ctx, 3);
    bt_check_frame_errors(ctx, 1);
    satfeat_ctx_delete(ctx);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(cuda_batch_equals_cpu),
        cmocka_unit_test(cuda_failures_stay_with_their_frame),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
