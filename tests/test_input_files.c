/* test_input_files.c - the library's readers refuse what is not a regular file (a FIFO, a
 * directory) at once with a message naming it, instead of blocking on a FIFO without a writer
 * (which hung every reader before file_input.c). An alarm turns a hang into a failure. */
#define _XOPEN_SOURCE 700 /* mkfifo, alarm */
#include "test_util.h"

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* Seconds a refusal may take before the test is killed as hung. */
#define HANG_SECONDS 20

static char *tmp_path(const char *name)
{
    static char buf[2][1024];
    static int next;
    char prefixed[256];
    snprintf(prefixed, sizeof prefixed, "input_%s", name);
    char *p = buf[next++ % 2];
    test_path(p, sizeof buf[0], SATFEAT_TEST_TMP_DIR, prefixed);
    return p;
}

static void expect_refused(satfeat_ctx *ctx, satfeat_status st, const char *kind)
{
    assert_int_equal(st, SATFEAT_ERR_IO);
    const char *msg = satfeat_ctx_last_error(ctx);
    print_message("%s\n", msg);
    assert_non_null(strstr(msg, kind));
    assert_non_null(strstr(msg, "not a regular file"));
}

static void test_fifo_refused(void **state)
{
    (void)state;
    const char *fifo = tmp_path("fifo.png");
    remove(fifo);
    if (mkfifo(fifo, 0600) != 0) skip();
    alarm(HANG_SECONDS);
    satfeat_ctx *ctx = NULL;
    assert_int_equal(satfeat_ctx_new(&ctx, SATFEAT_BACKEND_CPU, 0), SATFEAT_OK);
    satfeat_image_info info;
    expect_refused(ctx, satfeat_image_read_info(ctx, fifo, &info), "FIFO");
    uint8_t *px = NULL;
    int w = 0, h = 0;
    expect_refused(ctx, satfeat_image_load_gray8(ctx, fifo, &px, &w, &h), "FIFO");
    assert_null(px);
    uint8_t buf[16];
    expect_refused(ctx, satfeat_image_read_gray8(ctx, fifo, buf, 4, 4, 4), "FIFO");
    double hm[9];
    expect_refused(ctx, satfeat_homography_read(ctx, fifo, hm), "FIFO");
    FILE *f = (FILE *)1;
    expect_refused(ctx, satfeat_file_open_input(ctx, "list", fifo, &f), "FIFO");
    assert_null(f);
    expect_refused(ctx, satfeat_file_check_input(ctx, "list", fifo), "FIFO");
    assert_non_null(strstr(satfeat_ctx_last_error(ctx), "list: "));
    alarm(0);
    satfeat_ctx_delete(ctx);
    struct stat sb;
    assert_int_equal(lstat(fifo, &sb), 0);
    assert_true(S_ISFIFO(sb.st_mode)); /* untouched */
    remove(fifo);
}

static void test_directory_refused(void **state)
{
    (void)state;
    satfeat_ctx *ctx = NULL;
    assert_int_equal(satfeat_ctx_new(&ctx, SATFEAT_BACKEND_CPU, 0), SATFEAT_OK);
    satfeat_image_info info;
    expect_refused(ctx, satfeat_image_read_info(ctx, SATFEAT_TEST_TMP_DIR, &info), "directory");
    double hm[9];
    expect_refused(ctx, satfeat_homography_read(ctx, SATFEAT_TEST_TMP_DIR, hm), "directory");
    expect_refused(ctx, satfeat_file_check_input(ctx, "list", SATFEAT_TEST_TMP_DIR), "directory");
    satfeat_ctx_delete(ctx);
}

/* The public open and check: a regular file passes and reads, a missing one and NULL
 * arguments are refused with a status (and no crash). */
static void test_public_calls(void **state)
{
    (void)state;
    satfeat_ctx *ctx = NULL;
    assert_int_equal(satfeat_ctx_new(&ctx, SATFEAT_BACKEND_CPU, 0), SATFEAT_OK);
    const char *path = tmp_path("regular.txt");
    FILE *w = fopen(path, "w");
    assert_non_null(w);
    fputs("frame.png\n", w);
    fclose(w);
    assert_int_equal(satfeat_file_check_input(ctx, "list", path), SATFEAT_OK);
    FILE *f = NULL;
    assert_int_equal(satfeat_file_open_input(ctx, "list", path, &f), SATFEAT_OK);
    char line[32];
    assert_non_null(fgets(line, sizeof line, f));
    assert_string_equal(line, "frame.png\n");
    fclose(f);
    remove(path);
    assert_int_equal(satfeat_file_check_input(ctx, "list", path), SATFEAT_ERR_IO);
    assert_non_null(strstr(satfeat_ctx_last_error(ctx), "regular.txt"));
    f = (FILE *)1;
    assert_int_equal(satfeat_file_open_input(ctx, "list", path, &f), SATFEAT_ERR_IO);
    assert_null(f);
    assert_int_equal(satfeat_file_open_input(ctx, "list", NULL, &f), SATFEAT_ERR_ARG);
    assert_int_equal(satfeat_file_open_input(ctx, "list", path, NULL), SATFEAT_ERR_ARG);
    assert_int_equal(satfeat_file_check_input(ctx, NULL, path), SATFEAT_ERR_ARG);
    assert_int_equal(satfeat_file_check_input(NULL, "list", path), SATFEAT_ERR_IO);
    satfeat_ctx_delete(ctx);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_fifo_refused),
        cmocka_unit_test(test_directory_refused),
        cmocka_unit_test(test_public_calls),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
