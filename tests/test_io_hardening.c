/* test_io_hardening.c - hostile files and failing writes (issue 16): a PNG is streamed, never
 * read whole; true sizes in the messages; the memory limit refuses decompression bombs before
 * allocating; a failed write leaves the existing file byte-identical; errno texts. */
#define _XOPEN_SOURCE 700 /* setrlimit, getrusage, symlink, ftruncate */
#include "test_util.h"
#include "src/errno_text.h"
#include "png_testutil.h"

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

/* "<test dir>/hard_<name>" in one of four rotating buffers. */
static char *tmp_path(const char *name)
{
    static char buf[4][1024];
    static int next;
    char prefixed[512];
    snprintf(prefixed, sizeof prefixed, "hard_%s", name);
    char *p = buf[next++ % 4];
    test_path(p, sizeof buf[0], SATFEAT_TEST_TMP_DIR, prefixed);
    return p;
}

/* Reads a whole (small) file; returns its length, -1 when it cannot be opened. */
static long read_file(const char *path, char *buf, size_t cap)
{
    FILE *f = fopen(path, "rb");
    if (!f) return -1;
    size_t n = fread(buf, 1, cap, f);
    fclose(f);
    return (long)n;
}

/* A valid PNG of a 1-bit w x h all-zero image, deflated (a decompression bomb when large). */
static void write_zero_png_1bit(const char *path, uint32_t w, uint32_t h)
{
    const size_t row = 1 + (w + 7) / 8;
    uint8_t *line = calloc(row, 1);
    size_t cap = row * h / 500 + 4096, used = 0;
    uint8_t *z = malloc(cap);
    assert_true(line && z);
    z_stream s;
    memset(&s, 0, sizeof s);
    assert_int_equal(deflateInit(&s, 9), Z_OK);
    for (uint32_t y = 0; y < h; y++) {
        s.next_in = line;
        s.avail_in = (uInt)row;
        const int flush = y + 1 == h ? Z_FINISH : Z_NO_FLUSH;
        do {
            s.next_out = z + used;
            s.avail_out = (uInt)(cap - used);
            int rc = deflate(&s, flush);
            assert_true(rc == Z_OK || rc == Z_STREAM_END || rc == Z_BUF_ERROR);
            used = cap - s.avail_out;
            assert_true(used < cap);
        } while (s.avail_in > 0 || (flush == Z_FINISH && s.avail_out == 0));
    }
    deflateEnd(&s);
    test_png_write(path, w, h, 1, 0, z, (uint32_t)used);
    free(z);
    free(line);
}

/* Peak resident memory of this process, KiB. */
static long peak_rss_kib(void)
{
    struct rusage ru;
    assert_int_equal(getrusage(RUSAGE_SELF, &ru), 0);
    return ru.ru_maxrss;
}

/* Defect 1: a valid PNG followed by 1 GiB of (sparse) zeros is decoded without the file ever
 * being read whole: the peak RSS grows by far less than the file. Runs first, on a fresh peak. */
static void test_png_streamed_not_read_whole(void **state)
{
    (void)state;
    const char *path = tmp_path("sparse_tail.png");
    uint8_t raw[4 * 5] = {0}, z[64];
    for (int y = 0; y < 4; y++) raw[y * 5 + 1 + y] = 200; /* filter byte 0, then 4 gray pixels */
    uLongf zl = sizeof z;
    assert_int_equal(compress2(z, &zl, raw, sizeof raw, 9), Z_OK);
    test_png_write(path, 4, 4, 8, 0, z, (uint32_t)zl);
    FILE *f = fopen(path, "r+b");
    assert_non_null(f);
    assert_int_equal(ftruncate(fileno(f), (off_t)1 << 30), 0); /* a 1 GiB file, sparse tail */
    assert_int_equal(fclose(f), 0);
    const long before = peak_rss_kib();
    uint8_t px[16];
    satfeat_ctx *ctx = NULL;
    assert_int_equal(satfeat_ctx_new(&ctx, SATFEAT_BACKEND_CPU, 0), SATFEAT_OK);
    satfeat_status st = satfeat_image_read_gray8(ctx, path, px, 4, 4, 4);
    const long grown = peak_rss_kib() - before;
    assert_int_equal(st, SATFEAT_OK);
    assert_int_equal(px[0], 200);
    assert_int_equal(px[5], 200);
    assert_int_equal(px[1], 0);
    print_message("peak RSS grew by %ld KiB reading a 1 GiB PNG file\n", grown);
    assert_true(grown < 64 * 1024);
    satfeat_ctx_delete(ctx);
    remove(path);
}

/* Defect 7: sizes in messages are the file's, not clipped to 2^31-1. */
static void test_png_true_size_reported(void **state)
{
    (void)state;
    satfeat_ctx *ctx = NULL;
    assert_int_equal(satfeat_ctx_new(&ctx, SATFEAT_BACKEND_CPU, 0), SATFEAT_OK);
    const char *path = tmp_path("wide.png");
    test_png_write(path, 0xFFFFFFFFu, 1, 8, 0, NULL, 16);
    satfeat_image_info info;
    assert_int_equal(satfeat_image_read_info(ctx, path, &info), SATFEAT_ERR_OVERFLOW);
    assert_non_null(strstr(satfeat_ctx_last_error(ctx), "4294967295x1"));
    test_png_write(path, 7, 0x80000000u, 8, 0, NULL, 16);
    assert_int_equal(satfeat_image_read_info(ctx, path, &info), SATFEAT_ERR_OVERFLOW);
    assert_non_null(strstr(satfeat_ctx_last_error(ctx), "7x2147483648"));
    satfeat_ctx_delete(ctx);
    remove(path);
}

/* Defects 2 and 7: a 2^30-pixel RGBA PNG needs 4 GiB of samples; under a 1 GiB limit it is
 * refused with SATFEAT_ERR_LIMIT naming both sizes, before any large allocation. */
static void test_png_rgba_limit_before_allocation(void **state)
{
    (void)state;
    satfeat_ctx *ctx = NULL;
    assert_int_equal(satfeat_ctx_new(&ctx, SATFEAT_BACKEND_CPU, 0), SATFEAT_OK);
    assert_int_equal(satfeat_ctx_set_memory_limit(ctx, (size_t)1 << 30), SATFEAT_OK);
    assert_int_equal(satfeat_ctx_memory_limit(ctx), (size_t)1 << 30);
    const char *path = tmp_path("rgba_2p30.png");
    /* enough image data for the 1032:1 volume check (4 GiB / 1032 = 4.16 MB) */
    test_png_write(path, 65536, 16384, 8, 6, NULL, 4200000u);
    uint8_t *px = NULL;
    int w = 0, h = 0;
    const long before = peak_rss_kib();
    assert_int_equal(satfeat_image_load_gray8(ctx, path, &px, &w, &h), SATFEAT_ERR_LIMIT);
    assert_true(peak_rss_kib() - before < 256 * 1024);
    assert_null(px);
    const char *msg = satfeat_ctx_last_error(ctx);
    print_message("%s\n", msg);
    /* 4 GiB of RGBA samples plus the 1 GiB gray copy plus 16384 row pointers */
    assert_non_null(strstr(msg, "65536x16384"));
    assert_non_null(strstr(msg, "5368840192 bytes"));
    assert_non_null(strstr(msg, "limit of 1073741824 bytes"));
    assert_string_equal(satfeat_status_string(SATFEAT_ERR_LIMIT), "memory limit exceeded");
    satfeat_ctx_delete(ctx);
    remove(path);
}

/* Defect 2: a 33 KB 1-bit 16384 x 16384 PNG (a bomb) is refused by the reader and the detector
 * for that frame size is refused too, both under a 256 MiB limit, before allocating. */
static void test_decompression_bomb_limited(void **state)
{
    (void)state;
    const char *path = tmp_path("bomb_1bit.png");
    write_zero_png_1bit(path, 16384, 16384);
    struct stat sb;
    assert_int_equal(stat(path, &sb), 0);
    print_message("1-bit 16384x16384 PNG: %lld bytes\n", (long long)sb.st_size);
    assert_true(sb.st_size < 64 * 1024);
    satfeat_ctx *ctx = NULL;
    assert_int_equal(satfeat_ctx_new(&ctx, SATFEAT_BACKEND_CPU, 0), SATFEAT_OK);
    assert_int_equal(satfeat_ctx_set_memory_limit(ctx, (size_t)256 << 20), SATFEAT_OK);
    uint8_t *px = NULL;
    int w = 0, h = 0;
    assert_int_equal(satfeat_image_load_gray8(ctx, path, &px, &w, &h), SATFEAT_ERR_LIMIT);
    assert_non_null(strstr(satfeat_ctx_last_error(ctx), "16384x16384"));
    satfeat_detector_params p = satfeat_detector_params_default();
    satfeat_detector *det = NULL;
    assert_int_equal(satfeat_detector_new(ctx, &p, 16384, 16384, &det), SATFEAT_ERR_LIMIT);
    assert_null(det);
    print_message("%s\n", satfeat_ctx_last_error(ctx));
    assert_non_null(strstr(satfeat_ctx_last_error(ctx), "16384x16384"));
    /* 0 restores the default limit */
    assert_int_equal(satfeat_ctx_set_memory_limit(ctx, 0), SATFEAT_OK);
    assert_int_equal(satfeat_ctx_memory_limit(ctx), satfeat_default_memory_limit());
    assert_true(satfeat_default_memory_limit() > 0);
    satfeat_ctx_delete(ctx);
    remove(path);
}

/* The memory limit, just under and just over: a 100 x 100 P6 needs 30000 bytes of samples to
 * read into the caller's buffer, and 10000 more for load_gray8's gray copy. */
static void test_memory_limit_edges(void **state)
{
    (void)state;
    const char *path = tmp_path("edge.ppm");
    static uint8_t rgb[100 * 100 * 3];
    for (size_t i = 0; i < sizeof rgb; i++) rgb[i] = (uint8_t)(i * 7);
    assert_int_equal(satfeat_image_write_pnm(NULL, path, rgb, 300, 100, 100, 3), SATFEAT_OK);
    satfeat_ctx *ctx = NULL;
    assert_int_equal(satfeat_ctx_new(&ctx, SATFEAT_BACKEND_CPU, 0), SATFEAT_OK);
    static uint8_t gray[100 * 100];
    assert_int_equal(satfeat_ctx_set_memory_limit(ctx, 30000), SATFEAT_OK);
    assert_int_equal(satfeat_image_read_gray8(ctx, path, gray, 100, 100, 100), SATFEAT_OK);
    uint8_t *px = NULL;
    int w, h;
    assert_int_equal(satfeat_image_load_gray8(ctx, path, &px, &w, &h), SATFEAT_ERR_LIMIT);
    assert_non_null(strstr(satfeat_ctx_last_error(ctx), "need 40000 bytes"));
    assert_int_equal(satfeat_ctx_set_memory_limit(ctx, 40000), SATFEAT_OK);
    assert_int_equal(satfeat_image_load_gray8(ctx, path, &px, &w, &h), SATFEAT_OK);
    satfeat_free(px);
    assert_int_equal(satfeat_ctx_set_memory_limit(ctx, 29999), SATFEAT_OK);
    assert_int_equal(satfeat_image_read_gray8(ctx, path, gray, 100, 100, 100), SATFEAT_ERR_LIMIT);
    assert_non_null(strstr(satfeat_ctx_last_error(ctx), "need 30000 bytes"));
    assert_non_null(strstr(satfeat_ctx_last_error(ctx), "limit of 29999 bytes"));

    /* the detector: the size it reports needing is the exact edge */
    satfeat_detector_params p = satfeat_detector_params_default();
    satfeat_detector *det = NULL;
    assert_int_equal(satfeat_ctx_set_memory_limit(ctx, 1000), SATFEAT_OK);
    assert_int_equal(satfeat_detector_new(ctx, &p, 640, 480, &det), SATFEAT_ERR_LIMIT);
    const char *need = strstr(satfeat_ctx_last_error(ctx), "need ");
    assert_non_null(need);
    const size_t bytes = (size_t)strtoull(need + 5, NULL, 10);
    assert_true(bytes > 640 * 480);
    assert_int_equal(satfeat_ctx_set_memory_limit(ctx, bytes - 1), SATFEAT_OK);
    assert_int_equal(satfeat_detector_new(ctx, &p, 640, 480, &det), SATFEAT_ERR_LIMIT);
    assert_int_equal(satfeat_ctx_set_memory_limit(ctx, bytes), SATFEAT_OK);
    assert_int_equal(satfeat_detector_new(ctx, &p, 640, 480, &det), SATFEAT_OK);
    satfeat_detector_delete(det);
    satfeat_ctx_delete(ctx);
    remove(path);
}

/* Names in the test directory that start with `prefix` (leftover temporary files). */
static int count_prefixed(const char *prefix)
{
    char cmd[2048];
    snprintf(cmd, sizeof cmd, "ls -a '%s' | grep -c '^%s' || true", SATFEAT_TEST_TMP_DIR, prefix);
    FILE *p = popen(cmd, "r");
    assert_non_null(p);
    int n = -1;
    assert_int_equal(fscanf(p, "%d", &n), 1);
    pclose(p);
    return n;
}

/* Defect 3: a write that fails part-way (the file size limit, EFBIG) leaves the existing file
 * byte-identical and no temporary file behind; the old writers truncated it, then removed it. */
static void test_failed_write_keeps_existing_file(void **state)
{
    (void)state;
    static uint8_t px[256 * 256];
    test_rng r;
    test_rng_seed(&r, 16);
    test_fill_u8(&r, px, sizeof px); /* incompressible: the PNG is > 64 KB too */
    static const char original[] = "the user's precious file\n";
    for (int png = 0; png <= 1; png++) {
        const char *path = tmp_path(png ? "keep.png" : "keep.pgm");
        test_write_file(path, original, sizeof original - 1);
        struct rlimit old;
        assert_int_equal(getrlimit(RLIMIT_FSIZE, &old), 0);
        struct rlimit small = {4096, old.rlim_max};
        void (*old_handler)(int) = signal(SIGXFSZ, SIG_IGN);
        assert_int_equal(setrlimit(RLIMIT_FSIZE, &small), 0);
        satfeat_ctx *ctx = NULL;
        assert_int_equal(satfeat_ctx_new(&ctx, SATFEAT_BACKEND_CPU, 0), SATFEAT_OK);
        satfeat_status st = png ? satfeat_image_write_png(ctx, path, px, 256, 256, 256, 1)
                                : satfeat_image_write_pnm(ctx, path, px, 256, 256, 256, 1);
        assert_int_equal(setrlimit(RLIMIT_FSIZE, &old), 0);
        signal(SIGXFSZ, old_handler);
        assert_int_equal(st, SATFEAT_ERR_IO);
        print_message("%s\n", satfeat_ctx_last_error(ctx));
        char back[256];
        assert_int_equal(read_file(path, back, sizeof back), (long)sizeof original - 1);
        assert_memory_equal(back, original, sizeof original - 1);
        assert_int_equal(count_prefixed(png ? "hard_keep.png." : "hard_keep.pgm."), 0);
        satfeat_ctx_delete(ctx);
        remove(path);
    }
}

/* Defect 3: writing to a device that fails (/dev/full) reports the error and leaves the device
 * node in place (the old writers removed it). Runs only inside the private /dev that
 * tests/private_dev.sh makes (ctest test_io_hardening_private_dev): a regression must never
 * replace the machine's /dev/full. */
static void test_failed_write_to_device_keeps_it(void **state)
{
    (void)state;
    struct stat sb;
    if (!getenv("SATFEAT_PRIVATE_DEV")) skip();
    if (stat("/dev/full", &sb) != 0 || !S_ISCHR(sb.st_mode)) skip();
    static uint8_t px[64 * 64];
    for (int png = 0; png <= 1; png++) {
        satfeat_ctx *ctx = NULL;
        assert_int_equal(satfeat_ctx_new(&ctx, SATFEAT_BACKEND_CPU, 0), SATFEAT_OK);
        satfeat_status st = png ? satfeat_image_write_png(ctx, "/dev/full", px, 64, 64, 64, 1)
                                : satfeat_image_write_pnm(ctx, "/dev/full", px, 64, 64, 64, 1);
        assert_int_equal(st, SATFEAT_ERR_IO);
        print_message("%s\n", satfeat_ctx_last_error(ctx));
        assert_int_equal(stat("/dev/full", &sb), 0);
        assert_true(S_ISCHR(sb.st_mode));
        satfeat_ctx_delete(ctx);
    }
}

/* Defect 3: when no temporary file can be made next to the target (its name is already the
 * longest a directory entry may have), the write fails and the target is untouched. */
static void test_no_temp_keeps_existing_file(void **state)
{
    (void)state;
    char name[256];
    memset(name, 'n', 250);
    name[250] = '\0';
    const char *path = tmp_path(name); /* "hard_" + 250 = NAME_MAX: no suffix fits after it */
    static const char original[] = "still here";
    test_write_file(path, original, sizeof original - 1);
    static uint8_t px[16 * 16];
    for (int png = 0; png <= 1; png++) {
        satfeat_ctx *ctx = NULL;
        assert_int_equal(satfeat_ctx_new(&ctx, SATFEAT_BACKEND_CPU, 0), SATFEAT_OK);
        satfeat_status st = png ? satfeat_image_write_png(ctx, path, px, 16, 16, 16, 1)
                                : satfeat_image_write_pnm(ctx, path, px, 16, 16, 16, 1);
        assert_int_equal(st, SATFEAT_ERR_IO);
        assert_non_null(strstr(satfeat_ctx_last_error(ctx), "cannot open for writing"));
        char back[64];
        assert_int_equal(read_file(path, back, sizeof back), (long)sizeof original - 1);
        assert_memory_equal(back, original, sizeof original - 1);
        satfeat_ctx_delete(ctx);
    }
    remove(path);
}

/* A successful write replaces the file; a symbolic link stays a link to the new contents. */
static void test_write_replaces_and_keeps_links(void **state)
{
    (void)state;
    const char *target = tmp_path("link_target.pgm");
    char link[1024];
    snprintf(link, sizeof link, "%s", tmp_path("link.pgm"));
    test_write_file(target, "old", 3);
    remove(link);
    assert_int_equal(symlink(target, link), 0);
    uint8_t px[4] = {1, 2, 3, 4};
    assert_int_equal(satfeat_image_write_pnm(NULL, link, px, 2, 2, 2, 1), SATFEAT_OK);
    struct stat sb;
    assert_int_equal(lstat(link, &sb), 0);
    assert_true(S_ISLNK(sb.st_mode));
    char back[64];
    const long n = read_file(target, back, sizeof back);
    assert_int_equal(n, 11 + 4);
    assert_memory_equal(back, "P5\n2 2\n255\n", 11);
    assert_memory_equal(back + 11, px, 4);
    remove(link);
    remove(target);
}

/* Defect 10: errno texts come from strerror_r (the library never calls strerror: the ctest
 * no_strerror checks the sources); the texts are the C library's. */
static void test_errno_text(void **state)
{
    (void)state;
    char buf[SATFEAT_ERRNO_TEXT_MAX];
    assert_string_equal(satfeat_errno_text(ENOENT, buf, sizeof buf), "No such file or directory");
    assert_string_equal(satfeat_errno_text(0, buf, sizeof buf), "unknown error");
    assert_non_null(satfeat_errno_text(123456, buf, sizeof buf));
    satfeat_ctx *ctx = NULL;
    assert_int_equal(satfeat_ctx_new(&ctx, SATFEAT_BACKEND_CPU, 0), SATFEAT_OK);
    satfeat_image_info info;
    assert_int_equal(satfeat_image_read_info(ctx, tmp_path("does_not_exist.png"), &info),
                     SATFEAT_ERR_IO);
    assert_non_null(strstr(satfeat_ctx_last_error(ctx), "No such file or directory"));
    satfeat_ctx_delete(ctx);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_png_streamed_not_read_whole),
        cmocka_unit_test(test_png_true_size_reported),
        cmocka_unit_test(test_png_rgba_limit_before_allocation),
        cmocka_unit_test(test_decompression_bomb_limited),
        cmocka_unit_test(test_memory_limit_edges),
        cmocka_unit_test(test_failed_write_keeps_existing_file),
        cmocka_unit_test(test_failed_write_to_device_keeps_it),
        cmocka_unit_test(test_no_temp_keeps_existing_file),
        cmocka_unit_test(test_write_replaces_and_keeps_links),
        cmocka_unit_test(test_errno_text),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
