/* image_pnm.c - Netpbm gray and colour images: P2/P3 (ASCII) and P5/P6 (binary) reading with
 * maxval 1..65535 and '#' comments in the header; P5/P6 8-bit writing. */
#include "image/image_internal.h"
#include "src/file_replace.h"

#include <stdlib.h>
#include <string.h>

/* Largest header number accepted before the size check; keeps the arithmetic in range. */
#define PNM_NUMBER_CAP 2000000000L

/* A byte reader over the file that counts how many bytes it has consumed. */
typedef struct pnm_cursor {
    FILE *f;
    long pos;
} pnm_cursor;

static int next_byte(pnm_cursor *c)
{
    int ch = getc(c->f);
    if (ch != EOF) c->pos++;
    return ch;
}

static int is_space(int ch)
{
    return ch == ' ' || ch == '\t' || ch == '\n' || ch == '\r' || ch == '\v' || ch == '\f';
}

/* Skips whitespace and '#' comments (to the end of the line); returns the first other byte. */
static int skip_space_and_comments(pnm_cursor *c)
{
    int ch = next_byte(c);
    for (;;) {
        if (ch == '#') {
            while (ch != EOF && ch != '\n' && ch != '\r') ch = next_byte(c);
        } else if (!is_space(ch)) {
            return ch;
        }
        ch = next_byte(c);
    }
}

/* What may follow the digits of a number. */
typedef enum pnm_number_end {
    END_SPACE_OR_COMMENT, /* header fields: whitespace (consumed) or '#' (left for the next read) */
    END_ONE_SPACE,        /* binary maxval: exactly one whitespace byte, then the raster */
    END_SPACE_OR_EOF      /* ASCII maxval and samples: whitespace, '#' or the end of the file */
} pnm_number_end;

/* Reads one unsigned decimal number after optional whitespace and comments; `what` names it. */
static satfeat_status read_number(satfeat_image_request *req, pnm_cursor *c, const char *what,
                                  pnm_number_end end, long *out)
{
    int ch = skip_space_and_comments(c);
    if (ch == EOF)
        return satfeat_image_fail(req, SATFEAT_ERR_FORMAT, "truncated: the %s is missing", what);
    if (ch < '0' || ch > '9')
        return satfeat_image_fail(req, SATFEAT_ERR_FORMAT,
                                  "the %s is not an unsigned decimal number (found '%c')", what,
                                  ch >= 32 && ch < 127 ? ch : '?');
    long v = 0;
    int too_large = 0;
    while (ch >= '0' && ch <= '9') {
        if (v > (PNM_NUMBER_CAP - (ch - '0')) / 10) too_large = 1;
        else v = v * 10 + (ch - '0');
        ch = next_byte(c);
    }
    if (ch == EOF && end != END_SPACE_OR_EOF)
        return satfeat_image_fail(req, SATFEAT_ERR_FORMAT, "truncated: the file ends after the %s",
                                  what);
    if (ch == '#' && end != END_ONE_SPACE) {
        ungetc(ch, c->f);
        c->pos--;
    } else if (ch != EOF && !is_space(ch)) {
        return satfeat_image_fail(req, SATFEAT_ERR_FORMAT,
                                  "the %s is not an unsigned decimal number (found '%c')", what,
                                  ch >= 32 && ch < 127 ? ch : '?');
    }
    if (too_large)
        return satfeat_image_fail(req, SATFEAT_ERR_OVERFLOW, "the %s exceeds %ld", what,
                                  PNM_NUMBER_CAP);
    *out = v;
    return SATFEAT_OK;
}

/* Stores sample i (already checked against maxval) in the raw image. */
static void put_sample(satfeat_raw_image *raw, size_t i, unsigned v)
{
    if (raw->bytes_per_sample == 2) ((uint16_t *)raw->samples)[i] = (uint16_t)v;
    else ((uint8_t *)raw->samples)[i] = (uint8_t)v;
}

/* Reads the raster of a P2/P3 file: n whitespace-separated decimal samples. */
static satfeat_status read_ascii_samples(satfeat_image_request *req, pnm_cursor *c, size_t n)
{
    satfeat_raw_image *raw = &req->pixels;
    for (size_t i = 0; i < n; i++) {
        long v;
        satfeat_status st = read_number(req, c, "sample", END_SPACE_OR_EOF, &v);
        if (st != SATFEAT_OK) return st == SATFEAT_ERR_OVERFLOW ? SATFEAT_ERR_FORMAT : st;
        if (v > (long)raw->maxval)
            return satfeat_image_fail(req, SATFEAT_ERR_FORMAT, "sample %zu (%ld) exceeds maxval %u",
                                      i, v, raw->maxval);
        put_sample(raw, i, (unsigned)v);
    }
    return SATFEAT_OK;
}

/* Reads the raster of a P5/P6 file (big-endian when 2 bytes per sample) and checks maxval. */
static satfeat_status read_binary_samples(satfeat_image_request *req, size_t n)
{
    satfeat_raw_image *raw = &req->pixels;
    size_t bytes = n * (size_t)raw->bytes_per_sample;
    if (fread(raw->samples, 1, bytes, req->file) != bytes)
        return satfeat_image_fail(req, SATFEAT_ERR_FORMAT, "truncated: the pixel data ends early");
    uint8_t *b = raw->samples;
    for (size_t i = 0; i < n; i++) {
        unsigned v = b[i];
        if (raw->bytes_per_sample == 2) {
            uint16_t be = (uint16_t)((b[2 * i] << 8) | b[2 * i + 1]);
            memcpy(b + 2 * i, &be, 2); /* big-endian pair -> native uint16_t, in place */
            v = be;
        }
        if (v > raw->maxval)
            return satfeat_image_fail(req, SATFEAT_ERR_FORMAT, "sample %zu (%u) exceeds maxval %u",
                                      i, v, raw->maxval);
    }
    return SATFEAT_OK;
}

satfeat_status satfeat_pnm_read(satfeat_image_request *req)
{
    const int ascii = req->info.format == SATFEAT_FORMAT_PGM_ASCII ||
                      req->info.format == SATFEAT_FORMAT_PPM_ASCII;
    const int channels = req->info.format == SATFEAT_FORMAT_PPM_ASCII ||
                                 req->info.format == SATFEAT_FORMAT_PPM_BINARY
                             ? 3
                             : 1;
    pnm_cursor c = {req->file, 0};
    next_byte(&c); /* 'P' and the digit were checked by the sniffer */
    next_byte(&c);
    long w, h, maxval;
    satfeat_status st = read_number(req, &c, "width", END_SPACE_OR_COMMENT, &w);
    if (st == SATFEAT_OK) st = read_number(req, &c, "height", END_SPACE_OR_COMMENT, &h);
    if (st == SATFEAT_OK) st = satfeat_image_accept_size(req, w, h);
    if (st == SATFEAT_OK)
        st = read_number(req, &c, "maxval", ascii ? END_SPACE_OR_EOF : END_ONE_SPACE, &maxval);
    if (st != SATFEAT_OK) return st;
    if (maxval < 1 || maxval > 65535)
        return satfeat_image_fail(req, SATFEAT_ERR_FORMAT, "maxval %ld is outside 1..65535",
                                  maxval);
    req->info.width = (int)w;
    req->info.height = (int)h;
    req->info.channels = channels;
    req->info.bit_depth = maxval > 255 ? 16 : 8;
    if (req->header_only) return SATFEAT_OK;

    /* Sizes are within the limits, so these products fit in size_t on 64-bit hosts; check anyway.
     */
    const int bps = maxval > 255 ? 2 : 1;
    size_t n, bytes;
    if (satfeat_mul_overflows((size_t)w * (size_t)h, (size_t)channels, &n) ||
        satfeat_mul_overflows(n, (size_t)bps, &bytes))
        return satfeat_image_fail(req, SATFEAT_ERR_OVERFLOW, "%ldx%ld image too large", w, h);
    /* The file must be long enough for what the header claims, before anything is allocated. */
    size_t left = c.pos < req->file_size ? (size_t)(req->file_size - c.pos) : 0;
    if (!ascii && left < bytes)
        return satfeat_image_fail(
            req, SATFEAT_ERR_FORMAT,
            "truncated: the header promises %zu bytes of pixels but %zu follow", bytes, left);
    if (ascii && (left + 1) / 2 < n) /* n samples need n digits and n - 1 separators */
        return satfeat_image_fail(req, SATFEAT_ERR_FORMAT,
                                  "truncated: %zu samples cannot fit in the %zu bytes that follow",
                                  n, left);
    st = satfeat_image_check_budget(req, (int)w, (int)h, channels, bps, 0);
    if (st != SATFEAT_OK) return st;
    satfeat_raw_image *raw = &req->pixels;
    raw->samples = malloc(bytes);
    if (!raw->samples)
        return satfeat_image_fail(req, SATFEAT_ERR_ALLOC, "cannot allocate %zu bytes", bytes);
    raw->width = (int)w;
    raw->height = (int)h;
    raw->channels = channels;
    raw->bytes_per_sample = bps;
    raw->maxval = (unsigned)maxval;
    return ascii ? read_ascii_samples(req, &c, n) : read_binary_samples(req, n);
}

satfeat_status satfeat_pnm_write(satfeat_ctx *ctx, const char *path, const uint8_t *pixels,
                                 size_t stride, int width, int height, int channels)
{
    satfeat_replace out;
    satfeat_status st = satfeat_replace_open(ctx, path, &out);
    if (st != SATFEAT_OK) return st;
    FILE *f = out.file;
    const size_t row = (size_t)width * (size_t)channels;
    int ok = fprintf(f, "P%c\n%d %d\n255\n", channels == 3 ? '6' : '5', width, height) > 0;
    for (int y = 0; ok && y < height; y++)
        ok = fwrite(pixels + (size_t)y * stride, 1, row, f) == row;
    return satfeat_replace_close(ctx, path, &out, ok, "PNM write", NULL);
}
