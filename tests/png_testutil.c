/* png_testutil.c - hand-made PNG files (see png_testutil.h). */
#include "png_testutil.h"
#include "test_util.h"

#include <stdlib.h>
#include <string.h>
#include <zlib.h>

static void put_be32(uint8_t *p, uint32_t v)
{
    p[0] = (uint8_t)(v >> 24);
    p[1] = (uint8_t)(v >> 16);
    p[2] = (uint8_t)(v >> 8);
    p[3] = (uint8_t)v;
}

void test_png_put_chunk(FILE *f, const char *type, const uint8_t *data, uint32_t n)
{
    uint8_t head[8], tail[4];
    put_be32(head, n);
    memcpy(head + 4, type, 4);
    uLong crc = crc32(0L, head + 4, 4);
    if (n) crc = crc32(crc, data, n);
    put_be32(tail, (uint32_t)crc);
    assert_int_equal(fwrite(head, 1, 8, f), 8);
    if (n) assert_int_equal(fwrite(data, 1, n, f), n);
    assert_int_equal(fwrite(tail, 1, 4, f), 4);
}

void test_png_write(const char *path, uint32_t w, uint32_t h, int depth, int color_type,
                    const uint8_t *idat, uint32_t idat_len)
{
    FILE *f = fopen(path, "wb");
    assert_non_null(f);
    static const uint8_t sig[8] = {0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n'};
    assert_int_equal(fwrite(sig, 1, 8, f), 8);
    uint8_t ihdr[13] = {0};
    put_be32(ihdr, w);
    put_be32(ihdr + 4, h);
    ihdr[8] = (uint8_t)depth;
    ihdr[9] = (uint8_t)color_type;
    test_png_put_chunk(f, "IHDR", ihdr, 13);
    uint8_t *zeros = NULL;
    if (!idat && idat_len) {
        zeros = calloc(idat_len, 1);
        assert_non_null(zeros);
    }
    test_png_put_chunk(f, "IDAT", idat ? idat : zeros, idat_len);
    free(zeros);
    test_png_put_chunk(f, "IEND", NULL, 0);
    assert_int_equal(fclose(f), 0);
}
