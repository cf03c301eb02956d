/* test_video.c - the video frame source (satfeat_video_*) on files libavcodec's encoders write
 * at test time: exact pixels of lossless FFV1 gray, counts and rates, exact seeking, the end of
 * the stream, and hostile inputs (FIFO, URL, not a video, truncated, memory limit). */
#define _XOPEN_SOURCE 700 /* mkfifo, alarm */
#include "test_util.h"
#include "video_testutil.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#ifdef SATFEAT_TEST_NO_VIDEO
/* A build without FFmpeg: the calls exist and answer SATFEAT_ERR_UNSUPPORTED with the message. */
int main(void)
{
    satfeat_ctx *ctx = NULL;
    if (satfeat_ctx_new(&ctx, SATFEAT_BACKEND_CPU, -1) != SATFEAT_OK) return 1;
    satfeat_video *v = (satfeat_video *)&ctx;
    const satfeat_status st = satfeat_video_open(ctx, "x.mkv", 0, &v);
    printf("open: %s (%s)\n", satfeat_status_string(st), satfeat_ctx_last_error(ctx));
    const int ok = st == SATFEAT_ERR_UNSUPPORTED && v == NULL && !satfeat_has_video_build() &&
                   strstr(satfeat_ctx_last_error(ctx), "video support was not built") != NULL;
    satfeat_ctx_delete(ctx);
    return ok ? 0 : 1;
}
#else
#define W 160
#define H 120
#define N 12
#define HANG_SECONDS 20

static char mkv[4096], nut[4096];

/* Writes the fixtures once for the whole run. */
static int setup_files(void **state)
{
    (void)state;
    test_path(mkv, sizeof mkv, SATFEAT_TEST_TMP_DIR, "test_video.mkv");
    test_path(nut, sizeof nut, SATFEAT_TEST_TMP_DIR, "test_video.nut");
    if (video_test_encode(mkv, "matroska", "ffv1", W, H, N, 25, 4, 0, video_test_synthetic, NULL) ||
        video_test_encode(nut, "nut", "ffv1", W, H, N, 25, 4, 0, video_test_synthetic, NULL))
        return -1;
    return 0;
}

static satfeat_ctx *cpu_ctx(void)
{
    satfeat_ctx *ctx = NULL;
    assert_int_equal(satfeat_ctx_new(&ctx, SATFEAT_BACKEND_CPU, -1), SATFEAT_OK);
    return ctx;
}

/* Asserts that the next frame read is synthetic frame k, bit for bit. */
static void expect_frame(satfeat_video *v, int k)
{
    static uint8_t got[H * (W + 7)], want[W * H];
    int got_frame = 0;
    memset(got, 0xa5, sizeof got);
    assert_int_equal(satfeat_video_read_gray8(v, got, W + 7, &got_frame), SATFEAT_OK);
    assert_int_equal(got_frame, 1);
    video_test_frame(want, W, W, H, k);
    for (int y = 0; y < H; y++) {
        assert_memory_equal(got + (size_t)y * (W + 7), want + (size_t)y * W, W);
        if (y + 1 < H) assert_int_equal(got[(size_t)y * (W + 7) + W], 0xa5); /* padding kept */
    }
}

static void expect_end(satfeat_video *v)
{
    uint8_t px[W * H];
    int got_frame = 1;
    assert_int_equal(satfeat_video_read_gray8(v, px, W, &got_frame), SATFEAT_OK);
    assert_int_equal(got_frame, 0);
}

/* Every frame of a lossless gray FFV1 file comes back exactly; then the end, twice. */
static void run_identity(const char *path, int exact_count)
{
    satfeat_ctx *ctx = cpu_ctx();
    satfeat_video *v = NULL;
    assert_int_equal(satfeat_video_open(ctx, path, 0, &v), SATFEAT_OK);
    satfeat_video_info info;
    assert_int_equal(satfeat_video_get_info(v, &info), SATFEAT_OK);
    assert_int_equal(info.width, W);
    assert_int_equal(info.height, H);
    if (exact_count) assert_int_equal(info.frame_count, N);
    else assert_in_range(info.frame_count, N - 1, N); /* from the last timestamp: an estimate */
    assert_true(fabs(info.fps - 25.0) < 1e-9);
    assert_string_equal(info.codec, "ffv1");
    for (int k = 0; k < N; k++) {
        assert_int_equal(satfeat_video_tell(v), k);
        expect_frame(v, k);
    }
    expect_end(v);
    expect_end(v);
    assert_int_equal(satfeat_video_tell(v), N);
    satfeat_video_delete(v);
    satfeat_ctx_delete(ctx);
}

static void test_identity_mkv(void **state)
{
    (void)state;
    run_identity(mkv, 1); /* Matroska stores each track's duration */
}

static void test_identity_nut(void **state)
{
    (void)state;
    run_identity(nut, 0);
}

/* Seeks land exactly: forward past keyframes, backward, short jumps, to and past the end. */
static void test_seek(void **state)
{
    (void)state;
    satfeat_ctx *ctx = cpu_ctx();
    satfeat_video *v = NULL;
    assert_int_equal(satfeat_video_open(ctx, mkv, 0, &v), SATFEAT_OK);
    static const int order[] = {7, 2, 3, 5, 11, 0, 9, 6, 1, 10};
    for (size_t i = 0; i < sizeof order / sizeof order[0]; i++) {
        assert_int_equal(satfeat_video_seek(v, order[i]), SATFEAT_OK);
        assert_int_equal(satfeat_video_tell(v), order[i]);
        expect_frame(v, order[i]);
        assert_int_equal(satfeat_video_tell(v), order[i] + 1);
    }
    expect_frame(v, 11); /* reading goes on after a seek */
    expect_end(v);
    assert_int_equal(satfeat_video_seek(v, 4), SATFEAT_OK); /* from the end, backwards */
    expect_frame(v, 4);
    assert_int_equal(satfeat_video_seek(v, N), SATFEAT_OK);
    expect_end(v);
    assert_int_equal(satfeat_video_seek(v, 1000), SATFEAT_OK);
    expect_end(v);
    assert_int_equal(satfeat_video_seek(v, -1), SATFEAT_ERR_ARG);
    assert_non_null(strstr(satfeat_ctx_last_error(ctx), "negative"));
    assert_int_equal(satfeat_video_seek(v, 0), SATFEAT_OK);
    expect_frame(v, 0);
    satfeat_video_delete(v);
    satfeat_ctx_delete(ctx);
}

/* The library-owned buffer: tight rows, NULL at the end. */
static void test_owned_buffer(void **state)
{
    (void)state;
    satfeat_ctx *ctx = cpu_ctx();
    satfeat_video *v = NULL;
    assert_int_equal(satfeat_video_open(ctx, mkv, 0, &v), SATFEAT_OK);
    assert_int_equal(satfeat_video_seek(v, N - 2), SATFEAT_OK);
    uint8_t want[W * H];
    for (int k = N - 2; k < N; k++) {
        const uint8_t *px = NULL;
        int got = 0;
        assert_int_equal(satfeat_video_next_gray8(v, &px, &got), SATFEAT_OK);
        assert_int_equal(got, 1);
        video_test_frame(want, W, W, H, k);
        assert_memory_equal(px, want, sizeof want);
    }
    const uint8_t *px = want;
    int got = 1;
    assert_int_equal(satfeat_video_next_gray8(v, &px, &got), SATFEAT_OK);
    assert_int_equal(got, 0);
    assert_null(px);
    satfeat_video_delete(v);
    satfeat_ctx_delete(ctx);
}

/* A lossy stream with B-frames (decoding order differs from presentation order) in Matroska's
 * millisecond timestamps at 30 fps (1000/33 on average): every seek returns the frame that
 * sequential reading returns at that number, byte for byte. */
static void test_seek_bframes(void **state)
{
    (void)state;
    enum { FRAMES = 40 };
    char path[4096];
    test_path(path, sizeof path, SATFEAT_TEST_TMP_DIR, "test_video_bframes.mkv");
    assert_int_equal(video_test_encode(path, "matroska", "mpeg4", W, H, FRAMES, 30, 7, 2,
                                       video_test_synthetic, NULL), 0);
    satfeat_ctx *ctx = cpu_ctx();
    satfeat_video *v = NULL;
    assert_int_equal(satfeat_video_open(ctx, path, 0, &v), SATFEAT_OK);
    satfeat_video_info info;
    assert_int_equal(satfeat_video_get_info(v, &info), SATFEAT_OK);
    assert_true(fabs(info.fps - 30.0) < 1e-9);
    assert_int_equal(info.frame_count, FRAMES);
    static uint8_t all[FRAMES][W * H];
    int got = 0;
    for (int k = 0; k < FRAMES; k++) {
        assert_int_equal(satfeat_video_read_gray8(v, all[k], W, &got), SATFEAT_OK);
        assert_int_equal(got, 1);
    }
    expect_end(v);
    static const int order[] = {33, 8, 39, 0, 14, 13, 21, 6, 27, 1, 34, 20};
    uint8_t px[W * H];
    for (size_t i = 0; i < sizeof order / sizeof order[0]; i++) {
        assert_int_equal(satfeat_video_seek(v, order[i]), SATFEAT_OK);
        assert_int_equal(satfeat_video_read_gray8(v, px, W, &got), SATFEAT_OK);
        assert_int_equal(got, 1);
        assert_memory_equal(px, all[order[i]], sizeof px);
    }
    satfeat_video_delete(v);
    satfeat_ctx_delete(ctx);
}

/* A lossy YUV stream: gray is its luma expanded from limited to full range. */
static void test_yuv_range(void **state)
{
    (void)state;
    char path[4096];
    test_path(path, sizeof path, SATFEAT_TEST_TMP_DIR, "test_video_mpeg4.avi");
    assert_int_equal(video_test_encode(path, "avi", "mpeg4", W, H, 2, 25, 1, 0, video_test_synthetic,
                                       NULL), 0);
    satfeat_ctx *ctx = cpu_ctx();
    satfeat_video *v = NULL;
    assert_int_equal(satfeat_video_open(ctx, path, 0, &v), SATFEAT_OK);
    uint8_t got[W * H], src[W * H];
    int got_frame = 0;
    assert_int_equal(satfeat_video_read_gray8(v, got, W, &got_frame), SATFEAT_OK);
    assert_int_equal(got_frame, 1);
    video_test_frame(src, W, W, H, 0);
    double err = 0;
    for (int i = 0; i < W * H; i++) {
        const double want = (src[i] - 16.0) * 255.0 / 219.0;
        const double clamped = want < 0 ? 0 : want > 255 ? 255 : want;
        err += fabs(got[i] - clamped);
    }
    assert_true(err / (W * H) < 4.0); /* mean error of the lossy codec, not of the range */
    satfeat_video_delete(v);
    satfeat_ctx_delete(ctx);
}

/* The caller's buffer receives the frame's bytes and nothing else: libswscale's vector code writes
 * whole vectors past a row's end, which on the last row of a tightly packed buffer is past the
 * buffer (a width that is not a multiple of 16, a conversion that scales the range). Guard bytes
 * after the buffer and between rows must survive every read. */
static void test_buffer_bounds(void **state)
{
    (void)state;
    enum { SW = 38, SH = 10, GUARD = 64 };
    char path[4096];
    test_path(path, sizeof path, SATFEAT_TEST_TMP_DIR, "test_video_narrow.avi");
    assert_int_equal(video_test_encode(path, "avi", "mpeg4", SW, SH, 3, 25, 1, 0,
                                       video_test_synthetic, NULL), 0);
    satfeat_ctx *ctx = cpu_ctx();
    satfeat_video *v = NULL;
    assert_int_equal(satfeat_video_open(ctx, path, 0, &v), SATFEAT_OK);
    for (size_t stride = SW; stride <= SW + 3; stride += 3) {
        uint8_t buf[(SW + 3) * SH + GUARD];
        memset(buf, 0xa5, sizeof buf);
        const size_t used = stride * (SH - 1) + SW;
        int got = 0;
        assert_int_equal(satfeat_video_read_gray8(v, buf, stride, &got), SATFEAT_OK);
        assert_int_equal(got, 1);
        for (size_t i = used; i < sizeof buf; i++) assert_int_equal(buf[i], 0xa5);
        for (size_t y = 0; y + 1 < SH; y++)
            for (size_t x = SW; x < stride; x++) assert_int_equal(buf[y * stride + x], 0xa5);
    }
    satfeat_video_delete(v);
    satfeat_ctx_delete(ctx);
}

/* A FIFO is refused at once (an alarm turns a hang into a failure). */
static void test_fifo(void **state)
{
    (void)state;
    char fifo[4096];
    test_path(fifo, sizeof fifo, SATFEAT_TEST_TMP_DIR, "test_video.fifo");
    unlink(fifo);
    if (mkfifo(fifo, 0600) != 0) skip();
    satfeat_ctx *ctx = cpu_ctx();
    satfeat_video *v = (satfeat_video *)1;
    alarm(HANG_SECONDS);
    assert_int_equal(satfeat_video_open(ctx, fifo, 0, &v), SATFEAT_ERR_IO);
    assert_null(v);
    assert_non_null(strstr(satfeat_ctx_last_error(ctx), "is a FIFO, not a regular file"));
    int is_video = 1;
    assert_int_equal(satfeat_video_probe(ctx, fifo, &is_video), SATFEAT_ERR_IO);
    assert_int_equal(is_video, 0);
    /* a FIFO is no camera either */
    assert_int_equal(satfeat_video_open(ctx, fifo, SATFEAT_VIDEO_DEVICE, &v), SATFEAT_ERR_IO);
    assert_non_null(strstr(satfeat_ctx_last_error(ctx), "not a camera device"));
    alarm(0);
    unlink(fifo);
    satfeat_ctx_delete(ctx);
}

/* URLs, non-videos, images, a regular file asked for as a camera, the memory limit, NULLs. */
static void test_refusals(void **state)
{
    (void)state;
    satfeat_ctx *ctx = cpu_ctx();
    satfeat_video *v = NULL;
    assert_int_equal(satfeat_video_open(ctx, "http://example.com/a.mkv", 0, &v), SATFEAT_ERR_ARG);
    assert_non_null(strstr(satfeat_ctx_last_error(ctx), "URLs (http://) are not read"));
    assert_int_equal(satfeat_video_open(ctx, "file:///tmp/a.mkv", 0, &v), SATFEAT_ERR_ARG);

    char text[4096];
    test_path(text, sizeof text, SATFEAT_TEST_TMP_DIR, "test_video_notes.mkv");
    static const char words[] = "this is a text file, not a video\n";
    test_write_file(text, words, sizeof words - 1);
    assert_int_equal(satfeat_video_open(ctx, text, 0, &v), SATFEAT_ERR_FORMAT);
    assert_null(v);
    assert_non_null(strstr(satfeat_ctx_last_error(ctx), "not a video FFmpeg can read"));
    int is_video = 1;
    assert_int_equal(satfeat_video_probe(ctx, text, &is_video), SATFEAT_OK);
    assert_int_equal(is_video, 0);
    assert_int_equal(satfeat_video_probe(ctx, mkv, &is_video), SATFEAT_OK);
    assert_int_equal(is_video, 1);
    assert_int_equal(satfeat_video_probe(ctx, nut, &is_video), SATFEAT_OK);
    assert_int_equal(is_video, 1);
    char png[4096];
    test_path(png, sizeof png, SATFEAT_TEST_DATA_DIR, "scene.png");
    assert_int_equal(satfeat_video_probe(ctx, png, &is_video), SATFEAT_OK);
    assert_int_equal(is_video, 0);

    assert_int_equal(satfeat_video_open(ctx, mkv, SATFEAT_VIDEO_DEVICE, &v), SATFEAT_ERR_IO);
    assert_non_null(strstr(satfeat_ctx_last_error(ctx), "is a regular file, not a camera device"));
    assert_int_equal(satfeat_video_open(ctx, mkv, 8u, &v), SATFEAT_ERR_ARG);
    assert_int_equal(satfeat_video_open(ctx, NULL, 0, &v), SATFEAT_ERR_ARG);

    assert_int_equal(satfeat_ctx_set_memory_limit(ctx, 1000), SATFEAT_OK);
    assert_int_equal(satfeat_video_open(ctx, mkv, 0, &v), SATFEAT_ERR_LIMIT);
    assert_non_null(strstr(satfeat_ctx_last_error(ctx), "above the memory limit of 1000 bytes"));
    assert_int_equal(satfeat_ctx_set_memory_limit(ctx, 0), SATFEAT_OK);

    assert_int_equal(satfeat_video_open(ctx, mkv, 0, &v), SATFEAT_OK);
    uint8_t px[W * H];
    int got = 1;
    assert_int_equal(satfeat_video_read_gray8(v, px, W - 1, &got), SATFEAT_ERR_ARG);
    assert_int_equal(got, 0);
    assert_int_equal(satfeat_video_read_gray8(v, NULL, W, &got), SATFEAT_ERR_ARG);
    assert_int_equal(satfeat_video_get_info(v, NULL), SATFEAT_ERR_ARG);
    satfeat_video_delete(v);
    satfeat_video_delete(NULL);
    assert_int_equal(satfeat_video_tell(NULL), -1);
    satfeat_ctx_delete(ctx);
}

/* Only single-file video containers and video decoders are handed to FFmpeg: an HLS playlist (a
 * demuxer that would open other files) and a codec outside the list are refused by name, before
 * FFmpeg parses them (test_yuv_range opens a listed one, MPEG-4 in AVI). */
static void test_format_lists(void **state)
{
    (void)state;
    satfeat_ctx *ctx = cpu_ctx();
    satfeat_video *v = NULL;
    char path[4096];
    test_path(path, sizeof path, SATFEAT_TEST_TMP_DIR, "test_video_playlist.mkv");
    static const char hls[] = "#EXTM3U\n#EXT-X-TARGETDURATION:10\n#EXTINF:10,\nsegment0.ts\n"
                              "#EXT-X-ENDLIST\n";
    test_write_file(path, hls, sizeof hls - 1);
    assert_int_equal(satfeat_video_open(ctx, path, 0, &v), SATFEAT_ERR_FORMAT);
    assert_null(v);
    assert_non_null(strstr(satfeat_ctx_last_error(ctx), "not a video container this library reads"));
    assert_non_null(strstr(satfeat_ctx_last_error(ctx), "Matroska/WebM, MP4/MOV"));
    int is_video = 1;
    assert_int_equal(satfeat_video_probe(ctx, path, &is_video), SATFEAT_OK);
    assert_int_equal(is_video, 0);

    test_path(path, sizeof path, SATFEAT_TEST_TMP_DIR, "test_video_ffvhuff.nut");
    assert_int_equal(video_test_encode(path, "nut", "ffvhuff", W, H, 3, 25, 1, 0,
                                       video_test_synthetic, NULL), 0);
    assert_int_equal(satfeat_video_probe(ctx, path, &is_video), SATFEAT_OK);
    assert_int_equal(is_video, 1); /* the container is fine: the codec is refused when opened */
    assert_int_equal(satfeat_video_open(ctx, path, 0, &v), SATFEAT_ERR_FORMAT);
    assert_null(v);
    assert_non_null(strstr(satfeat_ctx_last_error(ctx), "the codec ffvhuff is not one this library "
                                                        "decodes"));
    satfeat_ctx_delete(ctx);
}

/* A container cut in the middle: an error with a message, never a crash or silent success. */
static void test_truncated(void **state)
{
    (void)state;
    FILE *in = fopen(mkv, "rb");
    assert_non_null(in);
    static uint8_t bytes[1 << 20];
    const size_t size = fread(bytes, 1, sizeof bytes, in);
    fclose(in);
    assert_true(size > 1000 && size < sizeof bytes);
    char cut[4096];
    test_path(cut, sizeof cut, SATFEAT_TEST_TMP_DIR, "test_video_cut.mkv");
    satfeat_ctx *ctx = cpu_ctx();
    for (int tenth = 1; tenth <= 9; tenth++) {
        test_write_file(cut, bytes, size * (size_t)tenth / 10);
        satfeat_video *v = NULL;
        satfeat_status st = satfeat_video_open(ctx, cut, 0, &v);
        int frames = 0, got = 1;
        uint8_t px[W * H];
        while (st == SATFEAT_OK && got) {
            st = satfeat_video_read_gray8(v, px, W, &got);
            frames += got;
        }
        /* the cut loses frames: that must be an error, not a short video */
        printf("cut at %d0%%: %d frames, %s: %s\n", tenth, frames, satfeat_status_string(st),
               satfeat_ctx_last_error(ctx));
        assert_int_not_equal(st, SATFEAT_OK);
        assert_true(frames < N);
        assert_true(strlen(satfeat_ctx_last_error(ctx)) > 0);
        satfeat_video_delete(v);
    }
    satfeat_ctx_delete(ctx);
}

/* Garbage written over the container at many places: every call returns a status (an error
 * carries a message), nothing crashes or reads out of bounds (ASan build), and frames that do
 * come back have the stream's size. */
static void test_corrupt(void **state)
{
    (void)state;
    FILE *in = fopen(mkv, "rb");
    assert_non_null(in);
    static uint8_t bytes[1 << 20], bad[1 << 20];
    const size_t size = fread(bytes, 1, sizeof bytes, in);
    fclose(in);
    char path[4096];
    test_path(path, sizeof path, SATFEAT_TEST_TMP_DIR, "test_video_corrupt.mkv");
    satfeat_ctx *ctx = cpu_ctx();
    test_rng rng;
    test_rng_seed(&rng, 34);
    int errors = 0;
    for (int round = 0; round < 40; round++) {
        memcpy(bad, bytes, size);
        const size_t at = (size_t)test_rng_range(&rng, 0, (int)size - 65);
        for (size_t i = 0; i < 64; i++) bad[at + i] = (uint8_t)test_rng_next(&rng);
        test_write_file(path, bad, size);
        satfeat_video *v = NULL;
        satfeat_status st = satfeat_video_open(ctx, path, 0, &v);
        int got = 1, frames = 0;
        uint8_t px[W * H];
        while (st == SATFEAT_OK && got && frames < 2 * N) {
            st = satfeat_video_read_gray8(v, px, W, &got);
            frames += got;
        }
        if (st == SATFEAT_OK && v) st = satfeat_video_seek(v, 3);
        if (st != SATFEAT_OK) {
            errors++;
            assert_true(strlen(satfeat_ctx_last_error(ctx)) > 0);
        }
        satfeat_video_delete(v);
    }
    printf("corrupt: %d of 40 damaged files reported an error\n", errors);
    assert_true(errors > 0); /* the headers and sizes are among the places hit */
    satfeat_ctx_delete(ctx);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_identity_mkv), cmocka_unit_test(test_identity_nut),
        cmocka_unit_test(test_seek),         cmocka_unit_test(test_owned_buffer),
        cmocka_unit_test(test_yuv_range),    cmocka_unit_test(test_seek_bframes),
        cmocka_unit_test(test_buffer_bounds),
        cmocka_unit_test(test_fifo),
        cmocka_unit_test(test_refusals),     cmocka_unit_test(test_format_lists),
        cmocka_unit_test(test_truncated),
        cmocka_unit_test(test_corrupt),
    };
    return cmocka_run_group_tests(tests, setup_files, NULL);
}
#endif
