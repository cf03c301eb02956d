/* image_png.c - PNG reading and writing through libpng's simplified API (png_image).
 *
 * Reading keeps the samples as stored: every file is decoded to 8 bits per channel with its own
 * channels (gray, gray+alpha, RGB, RGBA; palettes and 1/2/4-bit gray expanded), so libpng never
 * composes alpha or converts colour to gray. Two libpng defaults would alter sample values and
 * are switched off: 16-bit data is declared sRGB-encoded (PNG_IMAGE_FLAG_16BIT_sRGB) so the
 * 16 -> 8 bit step is libpng's exact round(v * 255 / 65535) and not a linear -> sRGB curve, and
 * gAMA chunks are renamed to an unknown private chunk in the in-memory copy of the file so no
 * gamma correction runs.
 *
 * Against decompression bombs the size is checked three times before the pixel buffer is
 * allocated: the IHDR read by hand (limits), the volume of compressed data (at most 1032:1),
 * and libpng's own header (limits again). */
#include "image_internal.h"

#include <png.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#define PNG_SIG_BYTES 8
#define PNG_IHDR_END 33 /* signature, IHDR length and type, 13 data bytes, CRC */

static uint32_t be32(const unsigned char *p)
{
    return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | (uint32_t)p[3];
}

static void put_be32(unsigned char *p, uint32_t v)
{
    p[0] = (unsigned char)(v >> 24);
    p[1] = (unsigned char)(v >> 16);
    p[2] = (unsigned char)(v >> 8);
    p[3] = (unsigned char)v;
}

/* Reads the IHDR chunk by hand and validates the size before libpng or we allocate anything. */
static satfeat_status check_ihdr(satfeat_image_request *req)
{
    unsigned char head[PNG_IHDR_END];
    if (req->file_size < PNG_IHDR_END || fread(head, 1, sizeof head, req->file) != sizeof head)
        return satfeat_image_fail(req, SATFEAT_ERR_FORMAT, "truncated: too short for a PNG header");
    if (be32(head + 8) != 13 || memcmp(head + 12, "IHDR", 4) != 0)
        return satfeat_image_fail(req, SATFEAT_ERR_FORMAT, "PNG: the first chunk is not IHDR");
    uint32_t w = be32(head + 16), h = be32(head + 20);
    const long cap = 0x7fffffffL; /* PNG's own limit on a side; far above ours */
    satfeat_status st = satfeat_image_accept_size(req, w > (uint32_t)cap ? cap : (long)w,
                                                  h > (uint32_t)cap ? cap : (long)h);
    if (st == SATFEAT_OK && fseek(req->file, 0, SEEK_SET) != 0)
        st = satfeat_image_fail(req, SATFEAT_ERR_IO, "cannot seek");
    return st;
}

/* Fills req->info from a png_image whose header libpng has read. */
static void fill_info(satfeat_image_request *req, const png_image *img)
{
    req->info.width = (int)img->width;
    req->info.height = (int)img->height;
    req->info.channels = (int)(img->format & (PNG_FORMAT_FLAG_COLOR | PNG_FORMAT_FLAG_ALPHA)) + 1;
    req->info.bit_depth = (img->format & PNG_FORMAT_FLAG_LINEAR) ? 16 : 8;
}

/*
 * Walks the chunks of an in-memory PNG: renames every gAMA chunk to "gaMA" (ancillary, private,
 * so libpng skips it), recomputing its CRC when the original CRC was valid, and returns the total
 * length of the IDAT chunks. Stops quietly at the first malformed chunk: libpng reports it.
 */
static size_t scan_chunks(unsigned char *buf, size_t len)
{
    size_t pos = PNG_SIG_BYTES, idat = 0;
    while (len - pos >= 12) {
        uint32_t n = be32(buf + pos);
        if (n > len - pos - 12) break;
        unsigned char *type = buf + pos + 4;
        if (!memcmp(type, "IEND", 4)) break;
        if (!memcmp(type, "IDAT", 4)) idat += n;
        if (!memcmp(type, "gAMA", 4)) {
            uint32_t stored = be32(type + 4 + n);
            int crc_ok = crc32(0L, type, 4 + n) == stored;
            type[1] = 'a';
            if (crc_ok) put_be32(type + 4 + n, (uint32_t)crc32(0L, type, 4 + n));
        }
        pos += 12 + (size_t)n;
    }
    return idat;
}

/*
 * Rejects a header whose pixels cannot come out of the file's image data: deflate expands at
 * most 1032:1 (a 258-byte copy coded in 2 bits), so a small file claiming a large image fails
 * here instead of after a large allocation. `buf` starts with the checked signature and IHDR.
 */
static satfeat_status check_data_volume(satfeat_image_request *req, const unsigned char *buf,
                                        size_t idat_bytes)
{
    static const unsigned channels_of_type[7] = {1, 0, 3, 1, 2, 0, 4};
    unsigned type = buf[25], depth = buf[24];
    unsigned bits = type < 7 ? channels_of_type[type] * depth : 0;
    /* Filtered rows hold at least width * bits / 8 bytes each (interlaced images hold more). */
    unsigned long long raw = (unsigned long long)be32(buf + 16) * be32(buf + 20) * bits / 8;
    if (bits != 0 && raw > 1032ull * idat_bytes + 1024ull)
        return satfeat_image_fail(req, SATFEAT_ERR_FORMAT,
                                  "PNG: %zu bytes of image data cannot hold %lux%lu pixels",
                                  idat_bytes, (unsigned long)be32(buf + 16),
                                  (unsigned long)be32(buf + 20));
    return SATFEAT_OK; /* an invalid type or depth is left for libpng to report */
}

/* Header only: libpng reads the chunks up to the image data from the open file. */
static satfeat_status read_png_header(satfeat_image_request *req)
{
    png_image img;
    memset(&img, 0, sizeof img);
    img.version = PNG_IMAGE_VERSION;
    if (!png_image_begin_read_from_stdio(&img, req->file)) {
        satfeat_status st = satfeat_image_fail(req, SATFEAT_ERR_FORMAT, "PNG: %s", img.message);
        png_image_free(&img);
        return st;
    }
    fill_info(req, &img);
    png_image_free(&img);
    return SATFEAT_OK;
}

/* Decodes the PNG held in `buf` into req->pixels, 8 bits per sample, the file's channels. */
static satfeat_status decode_png(satfeat_image_request *req, unsigned char *buf, size_t len)
{
    png_image img;
    memset(&img, 0, sizeof img);
    img.version = PNG_IMAGE_VERSION;
    satfeat_status st = SATFEAT_OK;
    if (!png_image_begin_read_from_memory(&img, buf, len)) {
        st = satfeat_image_fail(req, SATFEAT_ERR_FORMAT, "PNG: %s", img.message);
        goto done;
    }
    /* libpng's view of the size, checked again before the big allocation and the inflate. */
    st = satfeat_image_accept_size(req, (long)img.width, (long)img.height);
    if (st != SATFEAT_OK) goto done;
    fill_info(req, &img);
    img.format &= PNG_FORMAT_FLAG_COLOR | PNG_FORMAT_FLAG_ALPHA; /* 8-bit, no colour map */
    img.flags |= PNG_IMAGE_FLAG_16BIT_sRGB;
    const size_t row = (size_t)req->info.width * (size_t)req->info.channels;
    satfeat_raw_image *raw = &req->pixels;
    raw->samples = malloc(row * (size_t)req->info.height);
    if (!raw->samples) {
        st = satfeat_image_fail(req, SATFEAT_ERR_ALLOC, "cannot allocate %zu bytes",
                                row * (size_t)req->info.height);
        goto done;
    }
    raw->width = req->info.width;
    raw->height = req->info.height;
    raw->channels = req->info.channels;
    raw->bytes_per_sample = 1;
    raw->maxval = 255;
    if (!png_image_finish_read(&img, NULL, raw->samples, (png_int_32)row, NULL))
        st = satfeat_image_fail(req, SATFEAT_ERR_FORMAT, "PNG: %s", img.message);
done:
    png_image_free(&img);
    return st;
}

satfeat_status satfeat_png_read(satfeat_image_request *req)
{
    satfeat_status st = check_ihdr(req);
    if (st != SATFEAT_OK) return st;
    if (req->header_only) return read_png_header(req);
    size_t len = (size_t)req->file_size;
    unsigned char *buf = malloc(len);
    if (!buf)
        return satfeat_image_fail(req, SATFEAT_ERR_ALLOC, "cannot allocate %zu bytes for the file",
                                  len);
    if (fread(buf, 1, len, req->file) != len) {
        free(buf);
        return satfeat_image_fail(req, SATFEAT_ERR_IO, "read error");
    }
    st = check_data_volume(req, buf, scan_chunks(buf, len));
    if (st == SATFEAT_OK) st = decode_png(req, buf, len);
    free(buf);
    return st;
}

satfeat_status satfeat_png_write(satfeat_ctx *ctx, const char *path, const uint8_t *pixels,
                                 size_t stride, int width, int height, int channels)
{
    if (stride > 0x7fffffff)
        return satfeat_fail(ctx, SATFEAT_ERR_ARG, "%s: stride %zu is too large for libpng", path,
                            stride);
    FILE *f = fopen(path, "wb");
    if (!f) return satfeat_fail(ctx, SATFEAT_ERR_IO, "%s: cannot open for writing", path);
    png_image img;
    memset(&img, 0, sizeof img);
    img.version = PNG_IMAGE_VERSION;
    img.width = (png_uint_32)width;
    img.height = (png_uint_32)height;
    img.format = channels == 3 ? PNG_FORMAT_RGB : PNG_FORMAT_GRAY;
    int ok = png_image_write_to_stdio(&img, f, 0, pixels, (png_int_32)stride, NULL);
    char message[sizeof img.message];
    memcpy(message, img.message, sizeof message);
    png_image_free(&img);
    if (fclose(f) != 0 && ok) {
        ok = 0;
        snprintf(message, sizeof message, "close failed");
    }
    if (!ok) {
        remove(path);
        return satfeat_fail(ctx, SATFEAT_ERR_IO, "%s: PNG write failed: %s", path, message);
    }
    return SATFEAT_OK;
}
