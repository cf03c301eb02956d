/* test_cuda_oom.c - an out-of-memory GPU is an ordinary error: with nearly all device memory taken
 * by the test, the host-memory SAT and the CUDA detector's creation fail with SATFEAT_ERR_ALLOC
 * and a message, leave the context usable, and succeed once the memory is back (skipped without
 * a CUDA device). */
#include "test_util.h"

#include <stdlib.h>
#include <string.h>

#ifdef SATFEAT_TEST_HAVE_CUDA
#include <cuda_runtime_api.h>

/*
 * Leaves about `keep` bytes of device memory free; returns the filler to cudaFree.
 *
 * Under compute-sanitizer memcheck every cudaMalloc this test makes fail on purpose is reported
 * as an API error ("Program hit cudaErrorMemoryAllocation ... on CUDA API call to cudaMalloc"):
 * the refused attempts here (printed; the sanitizer's own device memory makes the first figure
 * fail more often), one in satfeat_sat_u8 and one in satfeat_detector_new. They are the provoked
 * failures, not faults: docs/TESTING.md gives the command that filters exactly these.
 */
static void *fill_device(size_t keep)
{
    size_t free_b = 0, total_b = 0;
    assert_int_equal(cudaMemGetInfo(&free_b, &total_b), cudaSuccess);
    assert_true(free_b > keep);
    void *filler = NULL;
    size_t want = free_b - keep;
    /* the driver may refuse the exact figure: step down until a block is granted */
    int refused = 0;
    while (cudaMalloc(&filler, want) != cudaSuccess) {
        (void)cudaGetLastError();
        refused++;
        assert_true(want > ((size_t)1 << 30));
        want -= (size_t)256 << 20;
    }
    print_message("fill_device: %d cudaMalloc attempt(s) refused before the filler fit\n",
                  refused);
    return filler;
}

static void test_out_of_memory_is_an_error(void **state)
{
    (void)state;
    satfeat_ctx *ctx = test_cuda_ctx_or_skip();
    const int n = 8192; /* the host SAT needs 64 MiB + 256 MiB of device scratch */
    uint8_t *img = calloc((size_t)n * n, 1);
    uint32_t *tab = malloc((size_t)(n + 1) * (n + 1) * 4);
    assert_non_null(img);
    assert_non_null(tab);
    img[0] = 7;

    void *filler = fill_device((size_t)64 << 20);
    satfeat_status st =
        satfeat_sat_u8(ctx, img, n, n, n, tab, (size_t)(n + 1) * 4, SATFEAT_SAT_AUTO);
    assert_int_equal(st, SATFEAT_ERR_ALLOC);
    assert_true(strlen(satfeat_ctx_last_error(ctx)) > 0);
    satfeat_detector_params p = satfeat_detector_params_default();
    satfeat_detector *det = (satfeat_detector *)&p;
    assert_int_equal(satfeat_detector_new(ctx, &p, 4096, 4096, &det), SATFEAT_ERR_ALLOC);
    assert_null(det);
    assert_true(strlen(satfeat_ctx_last_error(ctx)) > 0);
    assert_int_equal(cudaFree(filler), cudaSuccess);

    /* the same calls succeed once the memory is back */
    assert_int_equal(satfeat_sat_u8(ctx, img, n, n, n, tab, (size_t)(n + 1) * 4, SATFEAT_SAT_AUTO),
                     SATFEAT_OK);
    assert_int_equal(tab[(size_t)(n + 1) * (n + 1) - 1], 7u);
    assert_int_equal(tab[(size_t)(n + 1) + 1], 7u);
    assert_int_equal(satfeat_detector_new(ctx, &p, 4096, 4096, &det), SATFEAT_OK);
    size_t count = 1;
    free(test_detect_copy(det, img, (size_t)n, 4096, 4096, NULL, 0, &count, NULL));
    assert_int_equal(count, 0);
    satfeat_detector_delete(det);
    satfeat_ctx_delete(ctx);
    free(img);
    free(tab);
}

int main(void)
{
    const struct CMUnitTest tests[] = {cmocka_unit_test(test_out_of_memory_is_an_error)};
    return cmocka_run_group_tests(tests, NULL, NULL);
}

#else /* built without CUDA: the test skips */

int main(void)
{
    return test_main_without_cuda();
}
#endif
