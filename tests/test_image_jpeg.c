/* test_image_jpeg.c - the JPEG reader (issue 34) against libjpeg-turbo's own encoder and decoder:
 * gray, RGB 4:2:0 / 4:4:4, progressive, arithmetic, CMYK, djpeg -grayscale identity, the eight
 * EXIF orientations, hostile EXIF, truncation, huge headers, the memory budget, streaming, and
 * the formats named by their magic bytes. Every JPEG is made at test time. */
#define _XOPEN_SOURCE 700 /* ftruncate, getrusage, popen */
#include "test_util.h"
#include "jpeg_testutil.h"
#include "image/image_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

/* "<test dir>/jpeg_<name>" in one of four rotating buffers. */
static char *tmp_path(const char *name)
{
    static char buf[4][1024];
    static int next;
    char prefixed[512];
    snprintf(prefixed, sizeof prefixed, "jpeg_%s", name);
    char *p = buf[next++ % 4];
    test_path(p, sizeof buf[0], SATFEAT_TEST_TMP_DIR, prefixed);
    return p;
}

/* A smooth, asymmetric test pattern of `ch` channels (JPEG keeps such content well). */
static uint8_t *pattern(int w, int h, int ch)
{
    uint8_t *p = malloc((size_t)w * (size_t)h * (size_t)ch);
    assert_non_null(p);
    for (int y = 0; y < h; y++)
        for (int x = 0; x < w; x++)
            for (int c = 0; c < ch; c++)
                p[((size_t)y * (size_t)w + (size_t)x) * (size_t)ch + (size_t)c] =
                    (uint8_t)((x * (3 + c) * 255 / (w - 1) + y * 255 / (h - 1) * (c + 1) +
                               40 * c + ((x / 4 + y / 3) % 2) * 30) %
                              256);
    return p;
}

/* Loads through satfeat; asserts success and the format. */
static uint8_t *load_ok(const char *path, int *w, int *h)
{
    satfeat_ctx *ctx = NULL;
    assert_int_equal(satfeat_ctx_new(&ctx, SATFEAT_BACKEND_CPU, 0), SATFEAT_OK);
    satfeat_image_info info;
    assert_int_equal(satfeat_image_read_info(ctx, path, &info), SATFEAT_OK);
    assert_int_equal(info.format, SATFEAT_FORMAT_JPEG);
    assert_int_equal(info.bit_depth, 8);
    uint8_t *px = NULL;
    satfeat_status st = satfeat_image_load_gray8(ctx, path, &px, w, h);
    if (st != SATFEAT_OK) print_message("%s\n", satfeat_ctx_last_error(ctx));
    assert_int_equal(st, SATFEAT_OK);
    assert_int_equal(*w, info.width);
    assert_int_equal(*h, info.height);
    satfeat_ctx_delete(ctx);
    return px;
}

/* Status of loading `path`; the message is copied to msg. */
static satfeat_status load_status(const char *path, size_t limit, char *msg, size_t cap)
{
    satfeat_ctx *ctx = NULL;
    assert_int_equal(satfeat_ctx_new(&ctx, SATFEAT_BACKEND_CPU, 0), SATFEAT_OK);
    if (limit) assert_int_equal(satfeat_ctx_set_memory_limit(ctx, limit), SATFEAT_OK);
    uint8_t *px = NULL;
    int w = 0, h = 0;
    satfeat_status st = satfeat_image_load_gray8(ctx, path, &px, &w, &h);
    snprintf(msg, cap, "%s", satfeat_ctx_last_error(ctx));
    if (st != SATFEAT_OK) assert_null(px);
    satfeat_free(px);
    satfeat_ctx_delete(ctx);
    return st;
}

/* The reader's pixels equal libjpeg's own JCS_GRAYSCALE decode of the file. */
static void expect_reference_gray(const char *path, int w, int h)
{
    int rw = 0, rh = 0, sw = 0, sh = 0;
    uint8_t *ref = test_jpeg_decode(path, 1, &rw, &rh, NULL, NULL);
    assert_non_null(ref);
    uint8_t *px = load_ok(path, &sw, &sh);
    assert_int_equal(sw, w);
    assert_int_equal(sh, h);
    assert_int_equal(rw, w);
    assert_int_equal(rh, h);
    assert_memory_equal(px, ref, (size_t)w * (size_t)h);
    free(ref);
    satfeat_free(px);
}

/* Peak resident memory of this process, KiB. */
static long peak_rss_kib(void)
{
    struct rusage ru;
    assert_int_equal(getrusage(RUSAGE_SELF, &ru), 0);
    return ru.ru_maxrss;
}

/* A baseline JPEG followed by 1 GiB of (sparse) zeros decodes without the file ever being read
 * whole. Runs first, on a fresh peak. */
static void test_streamed_not_read_whole(void **state)
{
    (void)state;
    const char *path = tmp_path("sparse_tail.jpg");
    uint8_t *src = pattern(64, 48, 3);
    assert_int_equal(test_jpeg_write(path, src, 64, 48, 3, NULL), 0);
    int rw, rh;
    uint8_t *ref = test_jpeg_decode(path, 1, &rw, &rh, NULL, NULL);
    FILE *f = fopen(path, "r+b");
    assert_non_null(f);
    assert_int_equal(ftruncate(fileno(f), (off_t)1 << 30), 0);
    assert_int_equal(fclose(f), 0);
    const long before = peak_rss_kib();
    uint8_t px[64 * 48];
    assert_int_equal(satfeat_image_read_gray8(NULL, path, px, 64, 64, 48), SATFEAT_OK);
    const long grown = peak_rss_kib() - before;
    assert_memory_equal(px, ref, sizeof px);
    print_message("peak RSS grew by %ld KiB reading a 1 GiB JPEG file\n", grown);
    assert_true(grown < 64 * 1024);
    free(ref);
    free(src);
    remove(path);
}

static void test_gray_baseline(void **state)
{
    (void)state;
    const char *path = tmp_path("gray.jpg");
    uint8_t *src = pattern(37, 29, 1);
    test_jpeg_opts o = {.quality = 90};
    assert_int_equal(test_jpeg_write(path, src, 37, 29, 1, &o), 0);
    expect_reference_gray(path, 37, 29);
    satfeat_image_info info;
    assert_int_equal(satfeat_image_read_info(NULL, path, &info), SATFEAT_OK);
    assert_int_equal(info.channels, 1);
    free(src);
    remove(path);
}

static void test_rgb_420_and_444(void **state)
{
    (void)state;
    const char *path = tmp_path("rgb.jpg");
    uint8_t *src = pattern(45, 33, 3);
    for (int full = 0; full <= 1; full++) {
        test_jpeg_opts o = {.quality = 85, .full_chroma = full};
        assert_int_equal(test_jpeg_write(path, src, 45, 33, 3, &o), 0);
        expect_reference_gray(path, 45, 33);
        satfeat_image_info info;
        assert_int_equal(satfeat_image_read_info(NULL, path, &info), SATFEAT_OK);
        assert_int_equal(info.channels, 3);
    }
    free(src);
    remove(path);
}

/* A progressive file carries the same coefficients as the sequential one in another order, so
 * it decodes to the same pixels; arithmetic coding too. */
static void test_progressive_and_arithmetic(void **state)
{
    (void)state;
    const char *seq = tmp_path("seq.jpg"), *prog = tmp_path("prog.jpg"),
               *arith = tmp_path("arith.jpg");
    uint8_t *src = pattern(70, 50, 3);
    test_jpeg_opts o = {.quality = 80};
    assert_int_equal(test_jpeg_write(seq, src, 70, 50, 3, &o), 0);
    o.progressive = 1;
    assert_int_equal(test_jpeg_write(prog, src, 70, 50, 3, &o), 0);
    o.progressive = 0;
    o.arithmetic = 1;
    assert_int_equal(test_jpeg_write(arith, src, 70, 50, 3, &o), 0);
    expect_reference_gray(prog, 70, 50);
    expect_reference_gray(arith, 70, 50);
    int w, h;
    uint8_t *a = load_ok(seq, &w, &h), *b = load_ok(prog, &w, &h), *c = load_ok(arith, &w, &h);
    assert_memory_equal(a, b, 70 * 50);
    assert_memory_equal(a, c, 70 * 50);
    satfeat_free(a);
    satfeat_free(b);
    satfeat_free(c);
    free(src);
    remove(seq);
    remove(prog);
    remove(arith);
}

/* CMYK with libjpeg's Adobe marker: samples stored inverted, gray from the documented formula
 * on libjpeg's own CMYK output. */
static void test_cmyk(void **state)
{
    (void)state;
    const char *path = tmp_path("cmyk.jpg");
    uint8_t *src = pattern(24, 20, 4);
    assert_int_equal(test_jpeg_write(path, src, 24, 20, 4, NULL), 0);
    int w, h, ch, adobe;
    uint8_t *cmyk = test_jpeg_decode(path, 0, &w, &h, &ch, &adobe);
    assert_non_null(cmyk);
    assert_int_equal(ch, 4);
    assert_int_equal(adobe, 1);
    int sw, sh;
    uint8_t *px = load_ok(path, &sw, &sh);
    assert_int_equal(sw, 24);
    assert_int_equal(sh, 20);
    for (int i = 0; i < w * h; i++) {
        const uint8_t *p = cmyk + 4 * i;
        const unsigned r = (p[0] * p[3] + 127u) / 255u, g = (p[1] * p[3] + 127u) / 255u,
                       b = (p[2] * p[3] + 127u) / 255u;
        assert_int_equal(px[i], (77u * r + 150u * g + 29u * b + 128u) >> 8);
    }
    satfeat_image_info info;
    assert_int_equal(satfeat_image_read_info(NULL, path, &info), SATFEAT_OK);
    assert_int_equal(info.channels, 4);
    /* white paper (no ink: 255 stored in the inverted convention) reads white */
    memset(src, 255, 24 * 20 * 4);
    assert_int_equal(test_jpeg_write(path, src, 24, 20, 4, NULL), 0);
    satfeat_free(px);
    px = load_ok(path, &sw, &sh);
    for (int i = 0; i < 24 * 20; i++) assert_true(px[i] >= 254);
    satfeat_free(px);
    free(cmyk);
    free(src);
    remove(path);
}

/* Gray output is what `djpeg -grayscale` writes (skipped where djpeg is not installed). */
static void test_djpeg_grayscale_identity(void **state)
{
    (void)state;
    if (system("command -v djpeg >/dev/null 2>&1") != 0) {
        print_message("djpeg not installed (libjpeg-turbo-progs): skipped\n");
        skip();
    }
    const char *path = tmp_path("djpeg.jpg"), *pgm = tmp_path("djpeg.pgm");
    uint8_t *src = pattern(101, 67, 3);
    for (int prog = 0; prog <= 1; prog++) {
        test_jpeg_opts o = {.quality = 90, .progressive = prog};
        assert_int_equal(test_jpeg_write(path, src, 101, 67, 3, &o), 0);
        char cmd[2200];
        snprintf(cmd, sizeof cmd, "djpeg -grayscale -pnm -outfile '%s' '%s'", pgm, path);
        assert_int_equal(system(cmd), 0);
        int w, h, pw, ph;
        uint8_t *px = load_ok(path, &w, &h), *ref = NULL;
        assert_int_equal(satfeat_image_load_gray8(NULL, pgm, &ref, &pw, &ph), SATFEAT_OK);
        assert_int_equal(pw, w);
        assert_int_equal(ph, h);
        assert_memory_equal(px, ref, (size_t)w * (size_t)h);
        satfeat_free(px);
        satfeat_free(ref);
    }
    free(src);
    remove(path);
    remove(pgm);
}

/* The stored w x h image mirrored left-right, into a new buffer. */
static uint8_t *mirrored(const uint8_t *s, int w, int h)
{
    uint8_t *o = malloc((size_t)w * (size_t)h);
    assert_non_null(o);
    for (int y = 0; y < h; y++)
        for (int x = 0; x < w; x++) o[y * w + x] = s[y * w + (w - 1 - x)];
    return o;
}

/* A w x h image turned a quarter clockwise (h x w): the left column becomes the top row. */
static uint8_t *turned_cw(const uint8_t *s, int w, int h)
{
    uint8_t *o = malloc((size_t)w * (size_t)h);
    assert_non_null(o);
    for (int y = 0; y < w; y++)
        for (int x = 0; x < h; x++) o[y * h + x] = s[(h - 1 - x) * w + y];
    return o;
}

/* The upright image of EXIF orientation o in the spec's words: mirrored or not, then turned
 * clockwise by 0, 90, 180 or 270 degrees (4 = mirror + 180, 5 = mirror + 270, 7 = mirror + 90). */
static uint8_t *upright(const uint8_t *s, int w, int h, int o)
{
    static const int mirror[9] = {0, 0, 1, 0, 1, 1, 0, 1, 0};
    static const int turns[9] = {0, 0, 0, 2, 2, 3, 1, 1, 3};
    uint8_t *cur = mirror[o] ? mirrored(s, w, h) : NULL;
    if (!cur) {
        cur = malloc((size_t)w * (size_t)h);
        assert_non_null(cur);
        memcpy(cur, s, (size_t)w * (size_t)h);
    }
    for (int t = 0; t < turns[o]; t++) {
        uint8_t *next = turned_cw(cur, w, h);
        free(cur);
        cur = next;
        const int tmp = w;
        w = h;
        h = tmp;
    }
    return cur;
}

static void test_exif_orientations(void **state)
{
    (void)state;
    const int w = 13, h = 7;
    const char *path = tmp_path("orient.jpg");
    uint8_t *src = pattern(w, h, 3);
    test_jpeg_opts o = {.quality = 95};
    assert_int_equal(test_jpeg_write(path, src, w, h, 3, &o), 0);
    int sw, sh;
    uint8_t *stored = load_ok(path, &sw, &sh);
    for (int big = 0; big <= 1; big++) {
        for (unsigned ori = 1; ori <= 8; ori++) {
            uint8_t exif[26];
            o.exif = exif;
            o.exif_len = test_exif_orientation(exif, ori, big);
            assert_int_equal(test_jpeg_write(path, src, w, h, 3, &o), 0);
            const int ew = ori >= 5 ? h : w, eh = ori >= 5 ? w : h;
            satfeat_image_info info;
            assert_int_equal(satfeat_image_read_info(NULL, path, &info), SATFEAT_OK);
            assert_int_equal(info.width, ew);
            assert_int_equal(info.height, eh);
            int ow, oh;
            uint8_t *px = load_ok(path, &ow, &oh);
            assert_int_equal(ow, ew);
            assert_int_equal(oh, eh);
            uint8_t *want = upright(stored, w, h, (int)ori);
            assert_memory_equal(px, want, (size_t)w * (size_t)h);
            free(want);
            /* read_gray8 wants the upright size */
            uint8_t buf[13 * 7];
            if (ori >= 5)
                assert_int_equal(satfeat_image_read_gray8(NULL, path, buf, 13, 13, 7),
                                 SATFEAT_ERR_ARG);
            assert_int_equal(satfeat_image_read_gray8(NULL, path, buf, (size_t)ew, ew, eh),
                             SATFEAT_OK);
            assert_memory_equal(buf, px, sizeof buf);
            satfeat_free(px);
        }
    }
    /* 6 spelled out on a corner: the stored top-left pixel ends top-right */
    uint8_t exif[26];
    o.exif = exif;
    o.exif_len = test_exif_orientation(exif, 6, 1);
    assert_int_equal(test_jpeg_write(path, src, w, h, 3, &o), 0);
    int ow, oh;
    uint8_t *px = load_ok(path, &ow, &oh);
    assert_int_equal(px[ow - 1], stored[0]);
    assert_int_equal(px[(oh - 1) * ow], stored[w * h - 1]);
    satfeat_free(px);
    satfeat_free(stored);
    free(src);
    remove(path);
}

/* Hostile EXIF payloads: ignored (the stored orientation), never a crash or an overread. */
static void test_exif_hostile(void **state)
{
    (void)state;
    const int w = 16, h = 8;
    const char *path = tmp_path("hostile.jpg");
    uint8_t *src = pattern(w, h, 1);
    assert_int_equal(test_jpeg_write(path, src, w, h, 1, NULL), 0);
    int sw, sh;
    uint8_t *stored = load_ok(path, &sw, &sh);
    uint8_t cases[12][64];
    size_t lens[12];
    int n = 0;
    /* IFD0 offset past the end */
    lens[n] = test_exif_orientation(cases[n], 6, 1);
    cases[n][4] = 0xff, cases[n][5] = 0xff, cases[n][6] = 0xff, cases[n][7] = 0xf0, n++;
    /* IFD0 offset just at the end (no room for the count) */
    lens[n] = test_exif_orientation(cases[n], 6, 1);
    cases[n][7] = 25, n++;
    /* 65535 entries claimed in a 26-byte payload whose one entry is another tag */
    lens[n] = test_exif_orientation(cases[n], 6, 1);
    cases[n][8] = 0xff, cases[n][9] = 0xff, cases[n][11] = 0x13, n++;
    /* the entry cut in half */
    lens[n] = test_exif_orientation(cases[n], 6, 1) - 10, n++;
    /* IFD0 pointing at the TIFF header itself */
    lens[n] = test_exif_orientation(cases[n], 6, 1);
    cases[n][7] = 0, n++;
    /* wrong type (LONG), value 0, value 9, count 0 */
    lens[n] = test_exif_orientation(cases[n], 6, 1);
    cases[n][13] = 4, n++;
    lens[n] = test_exif_orientation(cases[n], 0, 1), n++;
    lens[n] = test_exif_orientation(cases[n], 9, 0), n++;
    lens[n] = test_exif_orientation(cases[n], 6, 1);
    cases[n][17] = 0, n++;
    /* bad byte order mark; nothing after "Exif\0\0" */
    lens[n] = test_exif_orientation(cases[n], 6, 1);
    cases[n][0] = 'X', n++;
    lens[n] = 0, n++;
    for (int i = 0; i < n; i++) {
        test_jpeg_opts o = {.exif = cases[i], .exif_len = lens[i]};
        assert_int_equal(test_jpeg_write(path, src, w, h, 1, &o), 0);
        int ow, oh;
        uint8_t *px = load_ok(path, &ow, &oh);
        assert_int_equal(ow, w);
        assert_int_equal(oh, h);
        assert_memory_equal(px, stored, (size_t)w * (size_t)h);
        satfeat_free(px);
    }
    /* 65535 entries claimed: the one inside the payload is read, no further */
    uint8_t many[26];
    test_exif_orientation(many, 6, 1);
    many[8] = many[9] = 0xff;
    assert_int_equal(satfeat_exif_orientation(many, sizeof many), 6);
    /* a next-IFD pointing back at IFD0 (a loop) is never followed: IFD0's 6 holds */
    uint8_t loop[26];
    test_exif_orientation(loop, 6, 0);
    loop[22] = 8;
    assert_int_equal(satfeat_exif_orientation(loop, sizeof loop), 6);
    /* the parser itself on every prefix of a valid payload, each in a buffer of exactly its
     * size (ASan sees any overread): the entry ends at byte 22, so shorter prefixes give 1 */
    for (int big = 0; big <= 1; big++) {
        uint8_t ok[26];
        test_exif_orientation(ok, 6, big);
        for (size_t len = 0; len <= sizeof ok; len++) {
            uint8_t *copy = malloc(len ? len : 1);
            memcpy(copy, ok, len);
            assert_int_equal(satfeat_exif_orientation(copy, len), len >= 22 ? 6 : 1);
            free(copy);
        }
    }
    assert_int_equal(satfeat_exif_orientation(NULL, 100), 1);
    satfeat_free(stored);
    free(src);
    remove(path);
}

/* Data cut short is an error, not a gray-filled image: baseline and progressive. */
static void test_truncated(void **state)
{
    (void)state;
    const char *path = tmp_path("cut.jpg");
    uint8_t *src = pattern(96, 64, 3);
    for (int prog = 0; prog <= 1; prog++) {
        test_jpeg_opts o = {.quality = 90, .progressive = prog};
        size_t n = 0;
        uint8_t *jpg = test_jpeg_encode(src, 96, 64, 3, &o, &n);
        assert_non_null(jpg);
        test_write_file(path, jpg, n * 2 / 3);
        char msg[512];
        assert_int_equal(load_status(path, 0, msg, sizeof msg), SATFEAT_ERR_FORMAT);
        assert_non_null(strstr(msg, "truncated JPEG"));
        /* the header alone still reads */
        satfeat_image_info info;
        assert_int_equal(satfeat_image_read_info(NULL, path, &info), SATFEAT_OK);
        assert_int_equal(info.width, 96);
        /* cut inside the header */
        test_write_file(path, jpg, 40);
        assert_int_equal(satfeat_image_read_info(NULL, path, &info), SATFEAT_ERR_FORMAT);
        assert_int_equal(load_status(path, 0, msg, sizeof msg), SATFEAT_ERR_FORMAT);
        free(jpg);
    }
    free(src);
    remove(path);
}

/* Offset of the SOF marker segment (FF C0..C2) in an encoded file without EXIF. */
static size_t sof_offset(const uint8_t *jpg, size_t n)
{
    for (size_t i = 2; i + 9 < n; i++)
        if (jpg[i] == 0xff && jpg[i + 1] >= 0xc0 && jpg[i + 1] <= 0xc2) return i;
    fail_msg("no SOF marker");
    return 0;
}

/* Writes `jpg` with the SOF's size (and precision) replaced. */
static void write_patched(const char *path, const uint8_t *jpg, size_t n, unsigned w, unsigned h,
                          unsigned precision)
{
    uint8_t *copy = malloc(n);
    memcpy(copy, jpg, n);
    const size_t s = sof_offset(copy, n);
    copy[s + 4] = (uint8_t)precision;
    copy[s + 5] = (uint8_t)(h >> 8), copy[s + 6] = (uint8_t)h;
    copy[s + 7] = (uint8_t)(w >> 8), copy[s + 8] = (uint8_t)w;
    test_write_file(path, copy, n);
    free(copy);
}

/* Huge headers are refused before any pixel allocation: the pixel limit, the memory budget
 * (progressive files count their coefficient buffer), and the data volume. 12-bit: unsupported. */
static void test_huge_headers_and_budget(void **state)
{
    (void)state;
    const char *path = tmp_path("huge.jpg");
    uint8_t *src = pattern(16, 16, 1);
    size_t n = 0;
    uint8_t *jpg = test_jpeg_encode(src, 16, 16, 1, NULL, &n);
    char msg[512];
    satfeat_image_info info;
    satfeat_ctx *ctx = NULL;
    assert_int_equal(satfeat_ctx_new(&ctx, SATFEAT_BACKEND_CPU, 0), SATFEAT_OK);
    write_patched(path, jpg, n, 65500, 65500, 8);
    assert_int_equal(satfeat_image_read_info(ctx, path, &info), SATFEAT_ERR_OVERFLOW);
    assert_non_null(strstr(satfeat_ctx_last_error(ctx), "65500x65500"));
    assert_int_equal(load_status(path, (size_t)1 << 20, msg, sizeof msg), SATFEAT_ERR_OVERFLOW);
    /* 16000 x 16000 under a 16 MiB budget: refused by the budget, naming the size */
    write_patched(path, jpg, n, 16000, 16000, 8);
    assert_int_equal(satfeat_image_read_info(ctx, path, &info), SATFEAT_OK);
    assert_int_equal(load_status(path, (size_t)16 << 20, msg, sizeof msg), SATFEAT_ERR_LIMIT);
    assert_non_null(strstr(msg, "16000x16000"));
    /* under the default budget: a few hundred bytes cannot hold 16M blocks */
    assert_int_equal(load_status(path, 0, msg, sizeof msg), SATFEAT_ERR_FORMAT);
    assert_non_null(strstr(msg, "cannot hold"));
    /* 12-bit */
    write_patched(path, jpg, n, 16, 16, 12);
    assert_int_equal(satfeat_image_read_info(ctx, path, &info), SATFEAT_ERR_UNSUPPORTED);
    assert_int_equal(load_status(path, 0, msg, sizeof msg), SATFEAT_ERR_UNSUPPORTED);
    assert_non_null(strstr(msg, "12"));
    free(jpg);
    free(src);
    /* a 512 x 512 4:4:4 progressive file needs its coefficient buffer (3 x 4096 blocks of 128
     * bytes = 1.5 MiB) beyond the 256 KiB of pixels: refused under 1 MiB, read under 4 MiB;
     * the sequential file reads under 1 MiB */
    uint8_t *rgb = pattern(512, 512, 3);
    test_jpeg_opts o = {.full_chroma = 1, .progressive = 1};
    assert_int_equal(test_jpeg_write(path, rgb, 512, 512, 3, &o), 0);
    assert_int_equal(load_status(path, (size_t)1 << 20, msg, sizeof msg), SATFEAT_ERR_LIMIT);
    assert_int_equal(load_status(path, (size_t)4 << 20, msg, sizeof msg), SATFEAT_OK);
    o.progressive = 0;
    assert_int_equal(test_jpeg_write(path, rgb, 512, 512, 3, &o), 0);
    assert_int_equal(load_status(path, (size_t)1 << 20, msg, sizeof msg), SATFEAT_OK);
    free(rgb);
    satfeat_ctx_delete(ctx);
    remove(path);
}

/* Formats the reader does not read are named by their magic bytes. */
static void test_unsupported_formats_named(void **state)
{
    (void)state;
    static const struct {
        const char *bytes;
        size_t n;
        const char *name;
    } cases[] = {
        {"II*\0\x08\0\0\0\0\0\0\0", 12, "TIFF is not supported"},
        {"MM\0*\0\0\0\x08\0\0\0\0", 12, "TIFF is not supported"},
        {"GIF89a\x01\0\x01\0\0\0", 12, "GIF is not supported"},
        {"GIF87a", 6, "GIF is not supported"},
        {"BM\x3e\0\0\0\0\0\0\0\x3e\0", 12, "BMP is not supported"},
        {"RIFF\x24\0\0\0WEBPVP8 ", 16, "WebP is not supported"},
        {"RIFF\x24\0\0\0WAVEfmt ", 16, "not a PNG, JPEG, PGM or PPM file"},
        {"BMW service notes\n", 18, "not a PNG, JPEG, PGM or PPM file"},
    };
    const char *path = tmp_path("magic.bin");
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        test_write_file(path, cases[i].bytes, cases[i].n);
        char msg[512];
        assert_int_equal(load_status(path, 0, msg, sizeof msg), SATFEAT_ERR_FORMAT);
        if (!strstr(msg, cases[i].name)) fail_msg("case %zu: %s", i, msg);
    }
    remove(path);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_streamed_not_read_whole),
        cmocka_unit_test(test_gray_baseline),
        cmocka_unit_test(test_rgb_420_and_444),
        cmocka_unit_test(test_progressive_and_arithmetic),
        cmocka_unit_test(test_cmyk),
        cmocka_unit_test(test_djpeg_grayscale_identity),
        cmocka_unit_test(test_exif_orientations),
        cmocka_unit_test(test_exif_hostile),
        cmocka_unit_test(test_truncated),
        cmocka_unit_test(test_huge_headers_and_budget),
        cmocka_unit_test(test_unsupported_formats_named),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
