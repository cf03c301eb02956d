/* test_context.c - contexts, backends, status strings, versions, API misuse. */
#include "test_util.h"

#include <stdio.h>
#include <string.h>

static void test_version(void **state)
{
    (void)state;
    int ma = -1, mi = -1, pa = -1;
    satfeat_version(&ma, &mi, &pa);
    assert_int_equal(ma, SATFEAT_VERSION_MAJOR);
    assert_int_equal(mi, SATFEAT_VERSION_MINOR);
    assert_int_equal(pa, SATFEAT_VERSION_PATCH);
    char buf[32];
    snprintf(buf, sizeof buf, "%d.%d.%d", ma, mi, pa);
    assert_string_equal(satfeat_version_string(), buf);
    satfeat_version(NULL, NULL, NULL);
    assert_true(SATFEAT_VERSION == SATFEAT_VERSION_NUMBER(ma, mi, pa));
    assert_true(SATFEAT_VERSION_NUMBER(1, 0, 0) > SATFEAT_VERSION_NUMBER(0, 999, 999));
    assert_true(SATFEAT_VERSION_NUMBER(1, 2, 0) > SATFEAT_VERSION_NUMBER(1, 1, 999));
}

static void test_status_strings(void **state)
{
    (void)state;
    for (int s = SATFEAT_OK; s <= SATFEAT_ERR_LIMIT; s++) {
        const char *t = satfeat_status_string((satfeat_status)s);
        assert_non_null(t);
        assert_true(strlen(t) > 1);
        assert_string_not_equal(t, "unknown status");
    }
    assert_string_equal(satfeat_status_string((satfeat_status)999), "unknown status");
    assert_string_equal(satfeat_status_string(SATFEAT_ERR_NO_DEVICE), "no CUDA device");
}

static void test_cpu_context(void **state)
{
    (void)state;
    satfeat_ctx *ctx = NULL;
    assert_int_equal(satfeat_ctx_new(&ctx, SATFEAT_BACKEND_CPU, 0), SATFEAT_OK);
    assert_non_null(ctx);
    assert_int_equal(satfeat_ctx_backend(ctx), SATFEAT_BACKEND_CPU);
    assert_int_equal(satfeat_ctx_device(ctx), -1);
    assert_string_equal(satfeat_ctx_last_error(ctx), "");
    assert_int_equal(satfeat_ctx_set_threads(ctx, 3), SATFEAT_OK);
    assert_int_equal(satfeat_ctx_threads(ctx), 3);
    assert_int_equal(satfeat_ctx_set_threads(ctx, 0), SATFEAT_OK);
    assert_true(satfeat_ctx_threads(ctx) >= 1);
    assert_int_equal(satfeat_ctx_set_threads(ctx, -1), SATFEAT_ERR_ARG);
    assert_true(strstr(satfeat_ctx_last_error(ctx), "thread") != NULL);
    assert_int_equal(satfeat_ctx_set_stream(ctx, NULL), SATFEAT_ERR_UNSUPPORTED);
    satfeat_ctx_delete(ctx);
    satfeat_ctx_delete(NULL);
}

static void test_auto_and_cuda_context(void **state)
{
    (void)state;
    satfeat_ctx *ctx = NULL;
    assert_int_equal(satfeat_ctx_new(&ctx, SATFEAT_BACKEND_AUTO, -1), SATFEAT_OK);
    int have_gpu = satfeat_has_cuda_build() && satfeat_cuda_device_count() > 0;
    assert_int_equal(satfeat_ctx_backend(ctx),
                     have_gpu ? SATFEAT_BACKEND_CUDA : SATFEAT_BACKEND_CPU);
    assert_string_equal(satfeat_ctx_last_error(ctx), "");
    satfeat_ctx_delete(ctx);

    ctx = (satfeat_ctx *)1;
    satfeat_status st = satfeat_ctx_new(&ctx, SATFEAT_BACKEND_CUDA, 0);
    if (have_gpu) {
        assert_int_equal(st, SATFEAT_OK);
        assert_int_equal(satfeat_ctx_device(ctx), 0);
        satfeat_ctx_delete(ctx);
        assert_int_equal(satfeat_ctx_new(&ctx, SATFEAT_BACKEND_CUDA, 1 << 20),
                         SATFEAT_ERR_NO_DEVICE);
    } else {
        assert_int_equal(st, satfeat_has_cuda_build() ? SATFEAT_ERR_NO_DEVICE
                                                      : SATFEAT_ERR_UNSUPPORTED);
        assert_null(ctx);
    }
}

static void test_misuse(void **state)
{
    (void)state;
    assert_int_equal(satfeat_ctx_new(NULL, SATFEAT_BACKEND_CPU, 0), SATFEAT_ERR_ARG);
    satfeat_ctx *ctx = NULL;
    assert_int_equal(satfeat_ctx_new(&ctx, (satfeat_backend)42, 0), SATFEAT_ERR_ARG);
    assert_null(ctx);
    assert_int_equal(satfeat_ctx_set_threads(NULL, 1), SATFEAT_ERR_ARG);
    assert_int_equal(satfeat_ctx_set_stream(NULL, NULL), SATFEAT_ERR_ARG);
    assert_int_equal(satfeat_ctx_backend(NULL), SATFEAT_BACKEND_CPU);
    assert_non_null(satfeat_ctx_last_error(NULL));
    satfeat_free(NULL);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_version),
        cmocka_unit_test(test_status_strings),
        cmocka_unit_test(test_cpu_context),
        cmocka_unit_test(test_auto_and_cuda_context),
        cmocka_unit_test(test_misuse),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
