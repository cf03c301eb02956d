/* test_image_io.c - image reading and writing: round trips through every supported format, the
 * gray conversion on known colours, a corpus of malformed files generated at run time, and API
 * misuse. PNG variants the library does not write come from a small test-local encoder. */
#include "test_util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <zlib.h>

#define POISON 0xa5u

/* ---- files ---------------------------------------------------------------------------------- */

static char *tmp_path(const char *name)
{
    static char buf[8][1024];
    static int next;
    char *p = buf[next++ % 8];
    snprintf(p, sizeof buf[0], "%s/io_%s", SATFEAT_TEST_TMP_DIR, name);
    return p;
}

/* Writes a text header followed by `n` raw bytes. */
static void write_header_and_bytes(const char *path, const char *header, const void *data, size_t n)
{
    size_t hn = strlen(header);
    uint8_t *buf = malloc(hn + n + 1);
    assert_non_null(buf);
    memcpy(buf, header, hn);
    if (n) memcpy(buf + hn, data, n);
    test_write_file(path, buf, hn + n);
    free(buf);
}

static uint8_t *read_whole_file(const char *path, size_t *n)
{
    FILE *f = fopen(path, "rb");
    assert_non_null(f);
    assert_int_equal(fseek(f, 0, SEEK_END), 0);
    long len = ftell(f);
    assert_true(len > 0);
    rewind(f);
    uint8_t *buf = malloc((size_t)len);
    assert_non_null(buf);
    assert_int_equal(fread(buf, 1, (size_t)len, f), (size_t)len);
    fclose(f);
    *n = (size_t)len;
    return buf;
}

/* ---- a test-local PNG encoder (filter 0, zlib, hand-made chunks) ----------------------------- */

static void put_be32(uint8_t *p, uint32_t v)
{
    p[0] = (uint8_t)(v >> 24);
    p[1] = (uint8_t)(v >> 16);
    p[2] = (uint8_t)(v >> 8);
    p[3] = (uint8_t)v;
}

/* Appends one chunk with a correct CRC at out + *len. */
static void add_chunk(uint8_t *out, size_t *len, const char *type, const uint8_t *data, uint32_t n)
{
    uint8_t *p = out + *len;
    put_be32(p, n);
    memcpy(p + 4, type, 4);
    if (n) memcpy(p + 8, data, n);
    put_be32(p + 8 + n, (uint32_t)crc32(0L, p + 4, 4 + n));
    *len += 12 + (size_t)n;
}

typedef struct test_png {
    int width, height, bit_depth, color_type;
    const uint16_t *samples;  /* width * height * channels values (palette indices for type 3) */
    const uint8_t *plte;      /* type 3: RGB triples */
    int plte_entries;
    const uint8_t *trns;      /* optional tRNS chunk data */
    int trns_bytes;
    uint32_t gamma;           /* gAMA value * 100000, 0 = no gAMA chunk */
} test_png;

static int png_channels(int color_type)
{
    switch (color_type) {
    case 0: return 1;
    case 2: return 3;
    case 3: return 1;
    case 4: return 2;
    default: return 4;
    }
}

/* Encodes a PNG in memory; returns a malloc'd buffer and its length. */
static uint8_t *encode_png(const test_png *p, size_t *out_len)
{
    const int ch = png_channels(p->color_type);
    const size_t row_bytes = ((size_t)p->width * (size_t)ch * (size_t)p->bit_depth + 7) / 8;
    const size_t raw_len = (row_bytes + 1) * (size_t)p->height;
    uint8_t *raw = calloc(raw_len, 1);
    assert_non_null(raw);
    for (int y = 0; y < p->height; y++) {
        uint8_t *row = raw + (size_t)y * (row_bytes + 1) + 1; /* filter byte 0 before it */
        for (size_t i = 0; i < (size_t)p->width * (size_t)ch; i++) {
            unsigned v = p->samples[(size_t)y * (size_t)p->width * (size_t)ch + i];
            if (p->bit_depth == 16) {
                row[2 * i] = (uint8_t)(v >> 8);
                row[2 * i + 1] = (uint8_t)v;
            } else if (p->bit_depth == 8) {
                row[i] = (uint8_t)v;
            } else {
                size_t bit = i * (size_t)p->bit_depth;
                row[bit / 8] |= (uint8_t)(v << (8 - p->bit_depth - bit % 8));
            }
        }
    }
    uLongf z_len = compressBound((uLong)raw_len);
    uint8_t *z = malloc(z_len);
    assert_non_null(z);
    assert_int_equal(compress2(z, &z_len, raw, (uLong)raw_len, 6), Z_OK);
    free(raw);
    uint8_t *out = malloc(z_len + 1024 + (size_t)p->plte_entries * 3);
    assert_non_null(out);
    static const uint8_t sig[8] = {0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n'};
    memcpy(out, sig, 8);
    size_t len = 8;
    uint8_t ihdr[13] = {0};
    put_be32(ihdr, (uint32_t)p->width);
    put_be32(ihdr + 4, (uint32_t)p->height);
    ihdr[8] = (uint8_t)p->bit_depth;
    ihdr[9] = (uint8_t)p->color_type;
    add_chunk(out, &len, "IHDR", ihdr, 13);
    if (p->gamma) {
        uint8_t g[4];
        put_be32(g, p->gamma);
        add_chunk(out, &len, "gAMA", g, 4);
    }
    if (p->plte) add_chunk(out, &len, "PLTE", p->plte, (uint32_t)p->plte_entries * 3);
    if (p->trns) add_chunk(out, &len, "tRNS", p->trns, (uint32_t)p->trns_bytes);
    add_chunk(out, &len, "IDAT", z, (uint32_t)z_len);
    add_chunk(out, &len, "IEND", NULL, 0);
    free(z);
    *out_len = len;
    return out;
}

static void write_test_png(const char *path, const test_png *p)
{
    size_t n;
    uint8_t *buf = encode_png(p, &n);
    test_write_file(path, buf, n);
    free(buf);
}

/* ---- expected conversion, computed independently of the library ----------------------------- */

/* round(v * 255 / maxval) through double arithmetic. */
static unsigned expect_scale(unsigned v, unsigned maxval)
{
    return (unsigned)((double)v * 255.0 / (double)maxval + 0.5);
}

static uint8_t expect_luma(unsigned r, unsigned g, unsigned b)
{
    return (uint8_t)((77 * r + 150 * g + 29 * b + 128) / 256);
}

/* Expected gray of sample tuple s[0..ch) with samples of the given maxval. */
static uint8_t expect_gray(const uint16_t *s, int ch, unsigned maxval)
{
    if (ch <= 2) return (uint8_t)expect_scale(s[0], maxval);
    return expect_luma(expect_scale(s[0], maxval), expect_scale(s[1], maxval),
                       expect_scale(s[2], maxval));
}

/* Reads `path` with read_gray8 (padded stride) and load_gray8 and compares both with `want`. */
static void check_gray(const char *path, const uint8_t *want, int w, int h)
{
    satfeat_ctx *ctx = NULL;
    assert_int_equal(satfeat_ctx_new(&ctx, SATFEAT_BACKEND_CPU, 0), SATFEAT_OK);
    const size_t stride = (size_t)w + 5;
    uint8_t *buf = malloc(stride * (size_t)h);
    assert_non_null(buf);
    memset(buf, POISON, stride * (size_t)h);
    satfeat_status st = satfeat_image_read_gray8(ctx, path, buf, stride, w, h);
    if (st != SATFEAT_OK) print_error("%s: %s\n", path, satfeat_ctx_last_error(ctx));
    assert_int_equal(st, SATFEAT_OK);
    for (int y = 0; y < h; y++) {
        for (int x = 0; x < w; x++) {
            if (buf[(size_t)y * stride + (size_t)x] != want[(size_t)y * (size_t)w + (size_t)x]) {
                print_error("%s: pixel (%d,%d) is %u, want %u\n", path, x, y,
                            buf[(size_t)y * stride + (size_t)x],
                            want[(size_t)y * (size_t)w + (size_t)x]);
                fail();
            }
        }
        for (size_t x = (size_t)w; x < stride; x++)
            assert_int_equal(buf[(size_t)y * stride + x], POISON);
    }
    uint8_t *loaded = NULL;
    int lw = 0, lh = 0;
    assert_int_equal(satfeat_image_load_gray8(NULL, path, &loaded, &lw, &lh), SATFEAT_OK);
    assert_int_equal(lw, w);
    assert_int_equal(lh, h);
    assert_memory_equal(loaded, want, (size_t)w * (size_t)h);
    satfeat_free(loaded);
    free(buf);
    satfeat_ctx_delete(ctx);
}

static void check_info(const char *path, int w, int h, int ch, int depth, satfeat_image_format fmt)
{
    satfeat_image_info info;
    memset(&info, 0, sizeof info);
    assert_int_equal(satfeat_image_read_info(NULL, path, &info), SATFEAT_OK);
    assert_int_equal(info.width, w);
    assert_int_equal(info.height, h);
    assert_int_equal(info.channels, ch);
    assert_int_equal(info.bit_depth, depth);
    assert_int_equal(info.format, fmt);
}

/* ---- round trips through the library's writers ----------------------------------------------- */

static void roundtrip_writer(int png, int channels, int w, int h, uint64_t seed)
{
    test_rng rng;
    test_rng_seed(&rng, seed);
    const size_t stride = (size_t)w * (size_t)channels + 3;
    uint8_t *px = malloc(stride * (size_t)h);
    uint8_t *want = malloc((size_t)w * (size_t)h);
    assert_non_null(px);
    assert_non_null(want);
    test_fill_u8(&rng, px, stride * (size_t)h);
    for (int y = 0; y < h; y++)
        for (int x = 0; x < w; x++) {
            const uint8_t *p = px + (size_t)y * stride + (size_t)x * (size_t)channels;
            want[(size_t)y * (size_t)w + (size_t)x] =
                channels == 1 ? p[0] : expect_luma(p[0], p[1], p[2]);
        }
    char name[64];
    snprintf(name, sizeof name, "rt_%dx%d_c%d.%s", w, h, channels, png ? "png" : "pnm");
    const char *path = tmp_path(name);
    satfeat_status st = png ? satfeat_image_write_png(NULL, path, px, stride, w, h, channels)
                            : satfeat_image_write_pnm(NULL, path, px, stride, w, h, channels);
    assert_int_equal(st, SATFEAT_OK);
    check_info(path, w, h, channels, 8,
               png ? SATFEAT_FORMAT_PNG
                   : channels == 1 ? SATFEAT_FORMAT_PGM_BINARY : SATFEAT_FORMAT_PPM_BINARY);
    check_gray(path, want, w, h);
    free(px);
    free(want);
}

static void test_writer_round_trips(void **state)
{
    (void)state;
    static const int sizes[][2] = {{1, 1}, {1, 17}, {17, 1}, {37, 23}, {256, 3}, {640, 480}};
    for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++)
        for (int png = 0; png <= 1; png++)
            for (int ch = 1; ch <= 3; ch += 2)
                roundtrip_writer(png, ch, sizes[i][0], sizes[i][1], 100 + i);
}

/* A flat image compresses close to deflate's 1032:1 limit and must still pass the reader's
 * data-volume check against decompression bombs. */
static void test_flat_image_compresses_and_reads(void **state)
{
    (void)state;
    const int w = 4096, h = 2048;
    uint8_t *px = calloc((size_t)w * (size_t)h, 1);
    assert_non_null(px);
    const char *path = tmp_path("flat.png");
    assert_int_equal(satfeat_image_write_png(NULL, path, px, (size_t)w, w, h, 1), SATFEAT_OK);
    size_t n;
    free(read_whole_file(path, &n));
    print_message("flat %dx%d PNG: %zu bytes (%.0f:1)\n", w, h, n, (double)w * h / (double)n);
    check_gray(path, px, w, h);
    free(px);
}

/* ---- known colours -------------------------------------------------------------------------- */

static void test_gray_formula_known_colours(void **state)
{
    (void)state;
    /* Expected values worked out by hand from Y = (77 R + 150 G + 29 B + 128) >> 8. */
    static const uint8_t rgb[8][3] = {{0, 0, 0},     {255, 255, 255}, {255, 0, 0},  {0, 255, 0},
                                      {0, 0, 255},   {128, 128, 128}, {10, 200, 30}, {255, 255, 0}};
    static const uint8_t want[8] = {0, 255, 77, 149, 29, 128, 124, 226};
    const char *ppm = tmp_path("colours.ppm");
    const char *png = tmp_path("colours.png");
    assert_int_equal(satfeat_image_write_pnm(NULL, ppm, &rgb[0][0], 24, 8, 1, 3), SATFEAT_OK);
    assert_int_equal(satfeat_image_write_png(NULL, png, &rgb[0][0], 24, 8, 1, 3), SATFEAT_OK);
    check_gray(ppm, want, 8, 1);
    check_gray(png, want, 8, 1);
    /* The same colours as 16-bit PPM samples (v * 257 scales back to v exactly). */
    uint8_t be[8 * 3 * 2];
    for (int i = 0; i < 24; i++) {
        unsigned v = (&rgb[0][0])[i] * 257u;
        be[2 * i] = (uint8_t)(v >> 8);
        be[2 * i + 1] = (uint8_t)v;
    }
    const char *ppm16 = tmp_path("colours16.ppm");
    write_header_and_bytes(ppm16, "P6\n8 1\n65535\n", be, sizeof be);
    check_info(ppm16, 8, 1, 3, 16, SATFEAT_FORMAT_PPM_BINARY);
    check_gray(ppm16, want, 8, 1);
}

/* ---- PNM variants the library does not write ------------------------------------------------ */

/* Writes w x h x ch samples as P2/P3 text (with comments) or P5/P6 binary with `maxval`. */
static void write_test_pnm(const char *path, int ascii, int ch, int w, int h, unsigned maxval,
                           const uint16_t *s)
{
    FILE *f = fopen(path, "wb");
    assert_non_null(f);
    fprintf(f, "P%d\n# a comment line\n%d # width\n%d\n#another\n%u\n",
            ascii ? (ch == 3 ? 3 : 2) : (ch == 3 ? 6 : 5), w, h, maxval);
    size_t n = (size_t)w * (size_t)h * (size_t)ch;
    for (size_t i = 0; i < n; i++) {
        if (ascii) {
            fprintf(f, "%u%s", s[i], (i + 1) % 7 ? " " : "\n");
        } else if (maxval > 255) {
            fputc(s[i] >> 8, f);
            fputc(s[i] & 0xff, f);
        } else {
            fputc(s[i], f);
        }
    }
    assert_int_equal(fclose(f), 0);
}

/* n random samples in [0, maxval] (seed `seed`) and room for the `pixels` expected gray values
 * in *want; both malloc'd and checked. */
static uint16_t *random_samples(uint64_t seed, size_t n, unsigned maxval, size_t pixels,
                                uint8_t **want)
{
    test_rng rng;
    test_rng_seed(&rng, seed);
    uint16_t *s = malloc(n * sizeof *s);
    *want = malloc(pixels);
    assert_non_null(s);
    assert_non_null(*want);
    for (size_t i = 0; i < n; i++) s[i] = (uint16_t)test_rng_range(&rng, 0, (int)maxval);
    return s;
}

static void check_pnm_variant(int ascii, int ch, int w, int h, unsigned maxval, uint64_t seed)
{
    size_t n = (size_t)w * (size_t)h * (size_t)ch;
    uint8_t *want = NULL;
    uint16_t *s = random_samples(seed, n, maxval, (size_t)w * (size_t)h, &want);
    s[0] = (uint16_t)maxval; /* both ends of the range appear */
    s[n - 1] = 0;
    for (size_t i = 0; i < (size_t)w * (size_t)h; i++)
        want[i] = expect_gray(s + i * (size_t)ch, ch, maxval);
    char name[64];
    snprintf(name, sizeof name, "var_%c%d_%u.pnm", ascii ? 'a' : 'b', ch, maxval);
    const char *path = tmp_path(name);
    write_test_pnm(path, ascii, ch, w, h, maxval, s);
    satfeat_image_format fmt =
        ascii ? (ch == 3 ? SATFEAT_FORMAT_PPM_ASCII : SATFEAT_FORMAT_PGM_ASCII)
              : (ch == 3 ? SATFEAT_FORMAT_PPM_BINARY : SATFEAT_FORMAT_PGM_BINARY);
    check_info(path, w, h, ch, maxval > 255 ? 16 : 8, fmt);
    check_gray(path, want, w, h);
    free(s);
    free(want);
}

static void test_pnm_variants(void **state)
{
    (void)state;
    static const unsigned maxvals[] = {1, 15, 100, 255, 256, 1000, 4095, 65535};
    for (int ascii = 0; ascii <= 1; ascii++)
        for (int ch = 1; ch <= 3; ch += 2)
            for (size_t m = 0; m < sizeof maxvals / sizeof maxvals[0]; m++)
                check_pnm_variant(ascii, ch, 29, 11, maxvals[m], 7 + m);
}

/* Every 16-bit value through P5 maxval 65535 and PNG 16-bit gray (a 256 x 256 image). */
static void test_16bit_exhaustive(void **state)
{
    (void)state;
    uint16_t *s = malloc(65536 * sizeof *s);
    uint8_t *want = malloc(65536);
    assert_non_null(s);
    assert_non_null(want);
    for (unsigned v = 0; v < 65536; v++) {
        s[v] = (uint16_t)v;
        want[v] = (uint8_t)expect_scale(v, 65535);
    }
    const char *pgm = tmp_path("all16.pgm");
    write_test_pnm(pgm, 0, 1, 256, 256, 65535, s);
    check_gray(pgm, want, 256, 256);
    const char *png = tmp_path("all16.png");
    /* Without gAMA, with a linear gAMA (what libpng's own 16-bit writer emits) and with an sRGB
     * one: libpng must not apply any of them. */
    static const uint32_t gammas[] = {0, 100000, 45455};
    for (size_t g = 0; g < 3; g++) {
        test_png p = {.width = 256, .height = 256, .bit_depth = 16, .color_type = 0,
                      .samples = s, .gamma = gammas[g]};
        write_test_png(png, &p);
        check_info(png, 256, 256, 1, 16, SATFEAT_FORMAT_PNG);
        check_gray(png, want, 256, 256);
    }
    free(s);
    free(want);
}

/* One PNG variant: random samples of the given type and depth, optional gAMA. */
static void check_png_variant(int color_type, int depth, uint32_t gamma, uint64_t seed)
{
    const int w = 41, h = 13, ch = png_channels(color_type);
    const unsigned maxval = (1u << depth) - 1u;
    size_t n = (size_t)w * (size_t)h * (size_t)ch;
    uint8_t *want = NULL;
    uint16_t *s = random_samples(seed, n, maxval, (size_t)w * (size_t)h, &want);
    if (ch == 2 || ch == 4) /* alpha 0 and full alpha must not change the colour */
        for (size_t i = 0; i < (size_t)w * (size_t)h; i += 3)
            s[i * (size_t)ch + (size_t)ch - 1] = 0;
    for (size_t i = 0; i < (size_t)w * (size_t)h; i++)
        want[i] = expect_gray(s + i * (size_t)ch, ch, maxval);
    test_png p = {.width = w, .height = h, .bit_depth = depth, .color_type = color_type,
                  .samples = s, .gamma = gamma};
    char name[64];
    snprintf(name, sizeof name, "var_t%d_d%d_g%u.png", color_type, depth, (unsigned)gamma);
    const char *path = tmp_path(name);
    write_test_png(path, &p);
    check_info(path, w, h, ch, depth == 16 ? 16 : 8, SATFEAT_FORMAT_PNG);
    check_gray(path, want, w, h);
    free(s);
    free(want);
}

static void test_png_variants(void **state)
{
    (void)state;
    static const uint32_t gammas[] = {0, 100000, 45455, 220000};
    for (size_t g = 0; g < 4; g++) {
        check_png_variant(0, 8, gammas[g], 1);
        check_png_variant(4, 8, gammas[g], 2);  /* gray + alpha */
        check_png_variant(2, 8, gammas[g], 3);  /* RGB */
        check_png_variant(6, 8, gammas[g], 4);  /* RGBA */
        check_png_variant(0, 16, gammas[g], 5);
        check_png_variant(4, 16, gammas[g], 6);
        check_png_variant(2, 16, gammas[g], 7);
        check_png_variant(6, 16, gammas[g], 8);
        check_png_variant(0, 1, gammas[g], 9);  /* low-depth gray expands exactly */
        check_png_variant(0, 2, gammas[g], 10);
        check_png_variant(0, 4, gammas[g], 11);
    }
}

/* Palette PNG with a tRNS chunk: colours come from the palette, alpha is ignored. */
static void test_png_palette(void **state)
{
    (void)state;
    static const uint8_t plte[4 * 3] = {255, 0, 0, 0, 255, 0, 0, 0, 255, 10, 200, 30};
    static const uint8_t trns[4] = {0, 128, 255, 7};
    static const uint16_t idx[8] = {0, 1, 2, 3, 3, 2, 1, 0};
    static const uint8_t want[8] = {77, 149, 29, 124, 124, 29, 149, 77};
    test_png p = {.width = 4, .height = 2, .bit_depth = 8, .color_type = 3, .samples = idx,
                  .plte = plte, .plte_entries = 4, .trns = trns, .trns_bytes = 4};
    const char *path = tmp_path("palette.png");
    write_test_png(path, &p);
    check_info(path, 4, 2, 4, 8, SATFEAT_FORMAT_PNG);
    check_gray(path, want, 4, 2);
}

/* ---- malformed files ---------------------------------------------------------------------- */

/* Expects every read entry point to fail on `path` with `want`, naming the file in the message,
 * leaving the caller's buffer untouched, and doing so quickly. read_gray8 is tried with a w x h
 * buffer; w == 0 tries only load_gray8 (for headers whose size no test buffer should match). */
static void expect_bad_file(const char *path, satfeat_status want, int w, int h)
{
    satfeat_ctx *ctx = NULL;
    assert_int_equal(satfeat_ctx_new(&ctx, SATFEAT_BACKEND_CPU, 0), SATFEAT_OK);
    clock_t t0 = clock();
    const size_t n = (size_t)w * (size_t)h;
    uint8_t *buf = w > 0 ? malloc(n) : NULL;
    if (w > 0) {
        assert_non_null(buf);
        memset(buf, POISON, n);
    }
    satfeat_status st = w > 0 ? satfeat_image_read_gray8(ctx, path, buf, (size_t)w, w, h)
                              : satfeat_image_load_gray8(ctx, path, &buf, &(int){0}, &(int){0});
    if (st != want)
        print_error("%s: got %s (%s), want %s\n", path, satfeat_status_string(st),
                    satfeat_ctx_last_error(ctx), satfeat_status_string(want));
    assert_int_equal(st, want);
    assert_non_null(strstr(satfeat_ctx_last_error(ctx), path));
    if (w > 0) {
        for (size_t i = 0; i < n; i++) assert_int_equal(buf[i], POISON);
        assert_int_equal(satfeat_image_read_gray8(NULL, path, buf, (size_t)w, w, h), want);
        free(buf);
    } else {
        assert_null(buf);
    }
    uint8_t *px = (uint8_t *)&t0; /* any non-NULL value: it must come back NULL */
    int lw = -1, lh = -1;
    assert_int_equal(satfeat_image_load_gray8(ctx, path, &px, &lw, &lh), want);
    assert_null(px);
    assert_int_equal(satfeat_image_load_gray8(NULL, path, &px, &lw, &lh), want);
    assert_null(px);
    /* Failing on bad input must not take long (no huge allocation, no long decode). */
    double secs = (double)(clock() - t0) / CLOCKS_PER_SEC;
    if (secs > 0.5) print_error("%s: took %.3f s to fail\n", path, secs);
    assert_true(secs <= 0.5);
    satfeat_ctx_delete(ctx);
}

static void expect_bad_text_sized(const char *name, const char *content, satfeat_status want,
                                  int w, int h)
{
    const char *path = tmp_path(name);
    test_write_file(path, content, strlen(content));
    expect_bad_file(path, want, w, h);
    satfeat_image_info info;
    satfeat_status st = satfeat_image_read_info(NULL, path, &info);
    /* Header-level problems are seen by read_info too; raster problems are not its business. */
    if (st != SATFEAT_OK) assert_int_equal(st, want);
}

static void expect_bad_text(const char *name, const char *content, satfeat_status want)
{
    expect_bad_text_sized(name, content, want, 4, 4);
}

static void test_bad_pnm(void **state)
{
    (void)state;
    expect_bad_text("empty.pgm", "", SATFEAT_ERR_FORMAT);
    expect_bad_text("garbage.pgm", "GIF89a garbage that is no image", SATFEAT_ERR_FORMAT);
    expect_bad_text("p4.pbm", "P4\n8 1\n\xff", SATFEAT_ERR_FORMAT);
    expect_bad_text("p7.pam", "P7\nWIDTH 1\n", SATFEAT_ERR_FORMAT);
    expect_bad_text("zero_w.pgm", "P5\n0 4\n255\n", SATFEAT_ERR_FORMAT);
    expect_bad_text("zero_h.pgm", "P2\n4 0\n255\n", SATFEAT_ERR_FORMAT);
    expect_bad_text("huge.pgm", "P5\n100000 100000\n255\n\x01\x02", SATFEAT_ERR_OVERFLOW);
    expect_bad_text("huge_pixels.pgm", "P5\n65536 65536\n255\n\x01", SATFEAT_ERR_OVERFLOW);
    expect_bad_text("huge_digits.pgm", "P5\n99999999999999999999 4\n255\n", SATFEAT_ERR_OVERFLOW);
    expect_bad_text("lying.pgm", "P5\n4 4\n255\n0123456789", SATFEAT_ERR_FORMAT);
    /* Lying headers within the limits: the length check fails them before any allocation. */
    expect_bad_text_sized("lying_big.pgm", "P5\n60000 17000\n255\n0123456789",
                          SATFEAT_ERR_FORMAT, 0, 0);
    expect_bad_text_sized("lying_big.ppm", "P6\n32768 32768\n65535\n0123456789",
                          SATFEAT_ERR_FORMAT, 0, 0);
    expect_bad_text_sized("lying_big_ascii.pgm", "P2\n32768 32768\n255\n1 2 3\n",
                          SATFEAT_ERR_FORMAT, 0, 0);
    expect_bad_text("lying_ascii.pgm", "P2\n4 4\n255\n1 2 3 4 5 6 7 8 9 10\n", SATFEAT_ERR_FORMAT);
    expect_bad_text("maxval0.pgm", "P5\n4 4\n0\n0123456789abcdef", SATFEAT_ERR_FORMAT);
    expect_bad_text("maxval_big.pgm", "P5\n4 4\n65536\n0123456789abcdef", SATFEAT_ERR_FORMAT);
    expect_bad_text("nonnum.pgm", "P5\nabc 4\n255\n0123456789abcdef", SATFEAT_ERR_FORMAT);
    expect_bad_text("nonnum2.pgm", "P5\n4x 4\n255\n0123456789abcdef", SATFEAT_ERR_FORMAT);
    expect_bad_text("negative.pgm", "P5\n-4 4\n255\n0123456789abcdef", SATFEAT_ERR_FORMAT);
    expect_bad_text("negative_h.pgm", "P2\n4 -4\n255\n", SATFEAT_ERR_FORMAT);
    expect_bad_text("header_cut.pgm", "P5\n4", SATFEAT_ERR_FORMAT);
    expect_bad_text("header_cut2.pgm", "P5\n4 4\n", SATFEAT_ERR_FORMAT);
    expect_bad_text("comment_cut.pgm", "P5\n4 4 # and then nothing", SATFEAT_ERR_FORMAT);
    expect_bad_text("over_maxval.pgm", "P5\n4 4\n100\n\x01\x02\x03\xc8\x01\x02\x03\x04\x01\x02\x03"
                    "\x04\x01\x02\x03\x04", SATFEAT_ERR_FORMAT);
    expect_bad_text_sized("over_maxval.pgm2", "P2\n2 2\n255\n1 2 300 4\n", SATFEAT_ERR_FORMAT, 2,
                          2);
    expect_bad_text_sized("ascii_junk.pgm", "P2\n2 2\n255\n1 2 x 4\n", SATFEAT_ERR_FORMAT, 2, 2);
    expect_bad_text_sized("ascii_neg.pgm", "P2\n2 2\n255\n1 2 -3 4\n", SATFEAT_ERR_FORMAT, 2, 2);
    /* 16-bit raster cut short by one byte */
    uint8_t px16[31] = {0};
    const char *cut16 = tmp_path("cut16.pgm");
    write_header_and_bytes(cut16, "P5\n4 4\n65535\n", px16, sizeof px16);
    expect_bad_file(cut16, SATFEAT_ERR_FORMAT, 4, 4);
    /* Missing file and a directory. */
    expect_bad_file(tmp_path("does_not_exist.pgm"), SATFEAT_ERR_IO, 4, 4);
    satfeat_image_info info;
    assert_int_equal(satfeat_image_read_info(NULL, tmp_path("does_not_exist.pgm"), &info),
                     SATFEAT_ERR_IO);
}

/* A small valid PNG in memory (16 x 16 random RGB, so IDAT is not tiny). */
static uint8_t *small_png(size_t *n, uint16_t *s)
{
    test_rng rng;
    test_rng_seed(&rng, 99);
    for (int i = 0; i < 16 * 16 * 3; i++) s[i] = (uint16_t)test_rng_range(&rng, 0, 255);
    test_png p = {.width = 16, .height = 16, .bit_depth = 8, .color_type = 2, .samples = s};
    return encode_png(&p, n);
}

/* Offset of the first chunk of `type` in a PNG buffer. */
static size_t chunk_offset(const uint8_t *b, size_t n, const char *type)
{
    size_t pos = 8;
    while (pos + 12 <= n) {
        uint32_t len = (uint32_t)b[pos] << 24 | (uint32_t)b[pos + 1] << 16 |
                       (uint32_t)b[pos + 2] << 8 | b[pos + 3];
        if (!memcmp(b + pos + 4, type, 4)) return pos;
        pos += 12 + len;
    }
    fail_msg("no %s chunk", type);
    return 0;
}

/* Writes a PNG whose IHDR claims w x h (correct CRC), followed by the given IDAT and IEND. */
static void write_png_with_size(const char *path, uint32_t w, uint32_t h)
{
    uint8_t buf[256];
    static const uint8_t sig[8] = {0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n'};
    memcpy(buf, sig, 8);
    size_t len = 8;
    uint8_t ihdr[13] = {0};
    put_be32(ihdr, w);
    put_be32(ihdr + 4, h);
    ihdr[8] = 8; /* 8-bit gray */
    add_chunk(buf, &len, "IHDR", ihdr, 13);
    /* A few rows' worth of compressed zeros: far less than the header claims. */
    uint8_t zeros[64] = {0}, z[128];
    uLongf zl = sizeof z;
    assert_int_equal(compress2(z, &zl, zeros, sizeof zeros, 9), Z_OK);
    add_chunk(buf, &len, "IDAT", z, (uint32_t)zl);
    add_chunk(buf, &len, "IEND", NULL, 0);
    test_write_file(path, buf, len);
}

static void test_bad_png(void **state)
{
    (void)state;
    uint16_t s[16 * 16 * 3];
    size_t n;
    uint8_t *good = small_png(&n, s);
    const char *path = tmp_path("good.png");
    test_write_file(path, good, n);
    uint8_t want[256];
    for (int i = 0; i < 256; i++) want[i] = expect_gray(s + 3 * i, 3, 255);
    check_gray(path, want, 16, 16);

    /* Truncated in the image data, in the middle of IHDR, and just after the signature. */
    test_write_file(tmp_path("trunc.png"), good, n - 20);
    expect_bad_file(tmp_path("trunc.png"), SATFEAT_ERR_FORMAT, 16, 16);
    test_write_file(tmp_path("trunc_half.png"), good, n / 2);
    expect_bad_file(tmp_path("trunc_half.png"), SATFEAT_ERR_FORMAT, 16, 16);
    test_write_file(tmp_path("trunc_ihdr.png"), good, 20);
    expect_bad_file(tmp_path("trunc_ihdr.png"), SATFEAT_ERR_FORMAT, 16, 16);
    test_write_file(tmp_path("sig_only.png"), good, 8);
    expect_bad_file(tmp_path("sig_only.png"), SATFEAT_ERR_FORMAT, 16, 16);

    /* Corrupted CRCs: IDAT (seen while decoding) and IHDR (seen while reading the header). */
    uint8_t *bad = malloc(n);
    assert_non_null(bad);
    size_t idat = chunk_offset(good, n, "IDAT");
    uint32_t idat_len = (uint32_t)good[idat] << 24 | (uint32_t)good[idat + 1] << 16 |
                        (uint32_t)good[idat + 2] << 8 | good[idat + 3];
    memcpy(bad, good, n);
    bad[idat + 8 + idat_len] ^= 0x55;
    test_write_file(tmp_path("crc_idat.png"), bad, n);
    expect_bad_file(tmp_path("crc_idat.png"), SATFEAT_ERR_FORMAT, 16, 16);
    memcpy(bad, good, n);
    bad[8 + 8 + 13] ^= 0x01;
    test_write_file(tmp_path("crc_ihdr.png"), bad, n);
    expect_bad_file(tmp_path("crc_ihdr.png"), SATFEAT_ERR_FORMAT, 16, 16);
    /* Corrupted compressed data with a CRC that matches it. */
    memcpy(bad, good, n);
    for (uint32_t i = 2; i < idat_len; i += 3) bad[idat + 8 + i] ^= 0xff;
    put_be32(bad + idat + 8 + idat_len, (uint32_t)crc32(0L, bad + idat + 4, 4 + idat_len));
    test_write_file(tmp_path("zlib_bad.png"), bad, n);
    expect_bad_file(tmp_path("zlib_bad.png"), SATFEAT_ERR_FORMAT, 16, 16);
    free(bad);
    free(good);

    /* Sizes from a hand-written IHDR with a correct CRC. */
    write_png_with_size(tmp_path("huge.png"), 100000, 100000);
    expect_bad_file(tmp_path("huge.png"), SATFEAT_ERR_OVERFLOW, 4, 4);
    write_png_with_size(tmp_path("huge_pixels.png"), 65536, 65536);
    expect_bad_file(tmp_path("huge_pixels.png"), SATFEAT_ERR_OVERFLOW, 4, 4);
    write_png_with_size(tmp_path("huge_side.png"), 0x7fffffff, 1);
    expect_bad_file(tmp_path("huge_side.png"), SATFEAT_ERR_OVERFLOW, 4, 4);
    write_png_with_size(tmp_path("zero_w.png"), 0, 16);
    expect_bad_file(tmp_path("zero_w.png"), SATFEAT_ERR_FORMAT, 4, 4);
    /* Within the limits, but 1000x more pixels than the compressed data can hold: rejected
     * from the data volume before the pixel buffer is allocated. */
    satfeat_ctx *ctx = NULL;
    assert_int_equal(satfeat_ctx_new(&ctx, SATFEAT_BACKEND_CPU, 0), SATFEAT_OK);
    write_png_with_size(tmp_path("bomb.png"), 30000, 30000);
    expect_bad_file(tmp_path("bomb.png"), SATFEAT_ERR_FORMAT, 0, 0);
    uint8_t *none = NULL;
    int bw, bh;
    assert_int_equal(satfeat_image_load_gray8(ctx, tmp_path("bomb.png"), &none, &bw, &bh),
                     SATFEAT_ERR_FORMAT);
    assert_non_null(strstr(satfeat_ctx_last_error(ctx), "cannot hold 30000x30000 pixels"));
    /* Plausible volume but too few rows: libpng stops while decoding; dst stays untouched. */
    write_png_with_size(tmp_path("short_rows.png"), 64, 64);
    uint8_t *big = malloc(64 * 64);
    assert_non_null(big);
    memset(big, POISON, 64 * 64);
    assert_int_equal(satfeat_image_read_gray8(ctx, tmp_path("short_rows.png"), big, 64, 64, 64),
                     SATFEAT_ERR_FORMAT);
    assert_null(strstr(satfeat_ctx_last_error(ctx), "cannot hold"));
    for (size_t i = 0; i < 64 * 64; i++)
        if (big[i] != POISON) fail_msg("byte %zu written on a failed read", i);
    free(big);
    satfeat_ctx_delete(ctx);
    satfeat_image_info info;
    assert_int_equal(satfeat_image_read_info(NULL, tmp_path("huge.png"), &info),
                     SATFEAT_ERR_OVERFLOW);
    assert_int_equal(satfeat_image_read_info(NULL, tmp_path("zero_w.png"), &info),
                     SATFEAT_ERR_FORMAT);
}

/* ---- API misuse ------------------------------------------------------------------------------ */

static void test_api_misuse(void **state)
{
    (void)state;
    satfeat_ctx *ctx = NULL;
    assert_int_equal(satfeat_ctx_new(&ctx, SATFEAT_BACKEND_CPU, 0), SATFEAT_OK);
    uint8_t px[6 * 4 * 3];
    memset(px, 7, sizeof px);
    const char *path = tmp_path("misuse.pgm");
    assert_int_equal(satfeat_image_write_pnm(ctx, path, px, 6, 6, 4, 1), SATFEAT_OK);
    satfeat_image_info info;
    uint8_t buf[64];
    uint8_t *loaded = NULL;
    int w, h;

    assert_int_equal(satfeat_image_read_info(ctx, NULL, &info), SATFEAT_ERR_ARG);
    assert_int_equal(satfeat_image_read_info(NULL, path, NULL), SATFEAT_ERR_ARG);
    assert_int_equal(satfeat_image_read_gray8(ctx, NULL, buf, 6, 6, 4), SATFEAT_ERR_ARG);
    assert_int_equal(satfeat_image_read_gray8(ctx, path, NULL, 6, 6, 4), SATFEAT_ERR_ARG);
    assert_int_equal(satfeat_image_read_gray8(ctx, path, buf, 5, 6, 4), SATFEAT_ERR_ARG);
    assert_int_equal(satfeat_image_read_gray8(ctx, path, buf, 6, 0, 4), SATFEAT_ERR_ARG);
    assert_int_equal(satfeat_image_read_gray8(ctx, path, buf, 6, 6, -1), SATFEAT_ERR_ARG);
    /* The buffer's size must match the file; nothing is written when it does not. */
    memset(buf, POISON, sizeof buf);
    assert_int_equal(satfeat_image_read_gray8(ctx, path, buf, 8, 8, 4), SATFEAT_ERR_ARG);
    assert_non_null(strstr(satfeat_ctx_last_error(ctx), "6x4"));
    assert_int_equal(satfeat_image_read_gray8(ctx, path, buf, 6, 6, 3), SATFEAT_ERR_ARG);
    for (size_t i = 0; i < sizeof buf; i++) assert_int_equal(buf[i], POISON);
    assert_int_equal(satfeat_image_read_gray8(ctx, path, buf, 6, 6, 4), SATFEAT_OK);
    assert_int_equal(buf[0], 7);

    assert_int_equal(satfeat_image_load_gray8(ctx, NULL, &loaded, &w, &h), SATFEAT_ERR_ARG);
    assert_int_equal(satfeat_image_load_gray8(ctx, path, NULL, &w, &h), SATFEAT_ERR_ARG);
    assert_int_equal(satfeat_image_load_gray8(ctx, path, &loaded, NULL, &h), SATFEAT_ERR_ARG);
    assert_int_equal(satfeat_image_load_gray8(ctx, path, &loaded, &w, NULL), SATFEAT_ERR_ARG);
    assert_null(loaded);

    const char *out = tmp_path("misuse_out.png");
    for (int png = 0; png <= 1; png++) {
        satfeat_status (*wr)(satfeat_ctx *, const char *, const uint8_t *, size_t, int, int, int) =
            png ? satfeat_image_write_png : satfeat_image_write_pnm;
        assert_int_equal(wr(ctx, NULL, px, 6, 6, 4, 1), SATFEAT_ERR_ARG);
        assert_int_equal(wr(ctx, out, NULL, 6, 6, 4, 1), SATFEAT_ERR_ARG);
        assert_int_equal(wr(ctx, out, px, 6, 6, 4, 2), SATFEAT_ERR_ARG);
        assert_int_equal(wr(ctx, out, px, 24, 6, 4, 4), SATFEAT_ERR_ARG);
        assert_int_equal(wr(ctx, out, px, 6, 6, 4, 0), SATFEAT_ERR_ARG);
        assert_int_equal(wr(ctx, out, px, 5, 6, 4, 1), SATFEAT_ERR_ARG);
        assert_int_equal(wr(ctx, out, px, 17, 6, 4, 3), SATFEAT_ERR_ARG);
        assert_int_equal(wr(ctx, out, px, 6, 0, 4, 1), SATFEAT_ERR_ARG);
        assert_int_equal(wr(ctx, out, px, 6, 6, -4, 1), SATFEAT_ERR_ARG);
        assert_int_equal(wr(ctx, out, px, 70000, 70000, 1, 1), SATFEAT_ERR_OVERFLOW);
        assert_int_equal(wr(NULL, out, px, 6, 6, 4, 3), SATFEAT_ERR_ARG);
        /* A directory that does not exist: an I/O error naming the file. */
        const char *nowhere = "/nonexistent-satfeat-dir/out.img";
        assert_int_equal(wr(ctx, nowhere, px, 6, 6, 4, 1), SATFEAT_ERR_IO);
        assert_non_null(strstr(satfeat_ctx_last_error(ctx), nowhere));
    }
    satfeat_ctx_delete(ctx);
}

/* Reading the same file twice into fresh buffers gives identical pixels (no hidden state). */
static void test_file_bytes_stable(void **state)
{
    (void)state;
    uint8_t px[3 * 5] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15};
    const char *path = tmp_path("stable.pgm");
    assert_int_equal(satfeat_image_write_pnm(NULL, path, px, 3, 3, 5, 1), SATFEAT_OK);
    size_t n;
    uint8_t *bytes = read_whole_file(path, &n);
    static const char header[] = "P5\n3 5\n255\n";
    assert_int_equal(n, sizeof header - 1 + sizeof px);
    assert_memory_equal(bytes, header, sizeof header - 1);
    assert_memory_equal(bytes + sizeof header - 1, px, sizeof px);
    free(bytes);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_writer_round_trips),
        cmocka_unit_test(test_flat_image_compresses_and_reads),
        cmocka_unit_test(test_gray_formula_known_colours),
        cmocka_unit_test(test_pnm_variants),
        cmocka_unit_test(test_16bit_exhaustive),
        cmocka_unit_test(test_png_variants),
        cmocka_unit_test(test_png_palette),
        cmocka_unit_test(test_bad_pnm),
        cmocka_unit_test(test_bad_png),
        cmocka_unit_test(test_api_misuse),
        cmocka_unit_test(test_file_bytes_stable),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
