/* image_io.c - the public image entry points: argument checks, format sniffing by magic bytes,
 * dispatch to the PNG, JPEG and PNM readers and writers, size validation, conversion to gray. */
#include "image/image_internal.h"
#include "src/errno_text.h"
#include "src/file_input.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

satfeat_status satfeat_image_fail(const satfeat_image_request *req, satfeat_status status,
                                  const char *fmt, ...)
{
    if (req->ctx) {
        char what[SATFEAT_ERROR_TEXT_MAX];
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(what, sizeof what, fmt, ap);
        va_end(ap);
        satfeat_fail(req->ctx, status, "%s: %s", req->path, what);
    }
    return status;
}

/* Validates width x height against the image limits; non-positive sizes give `zero_status`. */
static satfeat_status check_limits(satfeat_ctx *ctx, const char *path, long long width,
                                   long long height, satfeat_status zero_status)
{
    if (width <= 0 || height <= 0)
        return satfeat_fail(ctx, zero_status, "%s: image size %lldx%lld is not positive", path,
                            width, height);
    if (width > SATFEAT_IMAGE_MAX_SIDE || height > SATFEAT_IMAGE_MAX_SIDE)
        return satfeat_fail(ctx, SATFEAT_ERR_OVERFLOW,
                            "%s: image size %lldx%lld exceeds the largest side %d", path, width,
                            height, SATFEAT_IMAGE_MAX_SIDE);
    if ((unsigned long long)width * (unsigned long long)height > SATFEAT_IMAGE_MAX_PIXELS)
        return satfeat_fail(ctx, SATFEAT_ERR_OVERFLOW,
                            "%s: image size %lldx%lld exceeds the largest pixel count %u", path,
                            width, height, SATFEAT_IMAGE_MAX_PIXELS);
    return SATFEAT_OK;
}

satfeat_status satfeat_image_check_budget(satfeat_image_request *req, int width, int height,
                                          int channels, int bytes_per_sample, size_t extra)
{
    /* sizes are within the image limits: every product below fits in 64 bits */
    const size_t pixels = (size_t)width * (size_t)height;
    size_t bytes = pixels * (size_t)channels * (size_t)bytes_per_sample + extra;
    if (req->gray_copy && (channels != 1 || bytes_per_sample != 1)) bytes += pixels;
    char what[SATFEAT_ERROR_TEXT_MAX];
    snprintf(what, sizeof what, "%s: %dx%d pixels of %d channel(s) at %d byte(s)", req->path,
             width, height, channels, bytes_per_sample);
    return satfeat_check_budget(req->ctx, what, bytes);
}

satfeat_status satfeat_image_accept_size(satfeat_image_request *req, long long width,
                                         long long height)
{
    satfeat_status st = check_limits(req->ctx, req->path, width, height, SATFEAT_ERR_FORMAT);
    if (st != SATFEAT_OK) return st;
    if (req->want_width > 0 && (width != req->want_width || height != req->want_height))
        return satfeat_image_fail(req, SATFEAT_ERR_ARG,
                                  "the file is %lldx%lld but the buffer is %dx%d", width, height,
                                  req->want_width, req->want_height);
    return SATFEAT_OK;
}

/* Names the format from the first bytes of a file. */
static satfeat_image_format sniff(const unsigned char *b, size_t n)
{
    static const unsigned char png_sig[8] = {0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n'};
    if (n >= 8 && !memcmp(b, png_sig, 8)) return SATFEAT_FORMAT_PNG;
    if (n >= 3 && b[0] == 0xff && b[1] == 0xd8 && b[2] == 0xff) return SATFEAT_FORMAT_JPEG;
    if (n >= 3 && b[0] == 'P' && strchr(" \t\r\n\v\f", b[2]) && b[2] != '\0') {
        switch (b[1]) {
        case '2': return SATFEAT_FORMAT_PGM_ASCII;
        case '3': return SATFEAT_FORMAT_PPM_ASCII;
        case '5': return SATFEAT_FORMAT_PGM_BINARY;
        case '6': return SATFEAT_FORMAT_PPM_BINARY;
        default: break;
        }
    }
    return SATFEAT_FORMAT_UNKNOWN;
}

/* Names a format the reader does not read from its magic bytes; NULL when unknown. */
static const char *unsupported_kind(const unsigned char *b, size_t n)
{
    if (n >= 4 && (!memcmp(b, "II*\0", 4) || !memcmp(b, "MM\0*", 4))) return "TIFF";
    if (n >= 6 && (!memcmp(b, "GIF87a", 6) || !memcmp(b, "GIF89a", 6))) return "GIF";
    if (n >= 12 && !memcmp(b, "RIFF", 4) && !memcmp(b + 8, "WEBP", 4)) return "WebP";
    /* "BM" alone starts text too: also ask for the two reserved 16-bit fields, always zero */
    if (n >= 12 && b[0] == 'B' && b[1] == 'M' && !memcmp(b + 6, "\0\0\0\0", 4)) return "BMP";
    return NULL;
}

/* Opens req->path, measures it, recognises its format and runs the matching reader. */
static satfeat_status run_request(satfeat_image_request *req)
{
    char ebuf[SATFEAT_ERRNO_TEXT_MAX];
    satfeat_status st = satfeat_file_open_input(req->ctx, "image", req->path, &req->file);
    if (st != SATFEAT_OK) return st;
    unsigned char magic[12];
    size_t got = 0;
    if (fseek(req->file, 0, SEEK_END) != 0 || (req->file_size = ftell(req->file)) < 0 ||
        fseek(req->file, 0, SEEK_SET) != 0) {
        st = satfeat_image_fail(req, SATFEAT_ERR_IO, "cannot determine the file size");
        goto done;
    }
    errno = 0;
    got = fread(magic, 1, sizeof magic, req->file);
    if (ferror(req->file)) {
        st = satfeat_image_fail(req, SATFEAT_ERR_IO, "read error: %s",
                                satfeat_errno_text(errno, ebuf, sizeof ebuf));
        goto done;
    }
    if (got == 0) {
        st = satfeat_image_fail(req, SATFEAT_ERR_FORMAT, "empty file");
        goto done;
    }
    req->info.format = sniff(magic, got);
    if (fseek(req->file, 0, SEEK_SET) != 0) {
        st = satfeat_image_fail(req, SATFEAT_ERR_IO, "cannot seek");
        goto done;
    }
    switch (req->info.format) {
    case SATFEAT_FORMAT_PNG: st = satfeat_png_read(req); break;
    case SATFEAT_FORMAT_JPEG: st = satfeat_jpeg_read(req); break;
    case SATFEAT_FORMAT_UNKNOWN:
        if (unsupported_kind(magic, got))
            st = satfeat_image_fail(req, SATFEAT_ERR_FORMAT,
                                    "%s is not supported (PNG, JPEG, PGM and PPM are read)",
                                    unsupported_kind(magic, got));
        else if (got >= 2 && magic[0] == 'P' && strchr("147", magic[1]) && magic[1] != '\0')
            st = satfeat_image_fail(req, SATFEAT_ERR_FORMAT,
                                    "P%c (PBM or PAM) files are not supported", magic[1]);
        else
            st = satfeat_image_fail(req, SATFEAT_ERR_FORMAT,
                                    "not a PNG, JPEG, PGM or PPM file (unrecognised magic bytes)");
        break;
    default: st = satfeat_pnm_read(req); break;
    }
done:
    fclose(req->file);
    req->file = NULL;
    if (st != SATFEAT_OK) satfeat_raw_image_free(&req->pixels);
    return st;
}

satfeat_status satfeat_image_read_info(satfeat_ctx *ctx, const char *path,
                                       satfeat_image_info *info)
{
    if (!path || !info)
        return satfeat_fail(ctx, SATFEAT_ERR_ARG, "image_read_info: NULL path or info");
    satfeat_image_request req = {.ctx = ctx, .path = path, .header_only = 1};
    satfeat_status st = run_request(&req);
    if (st == SATFEAT_OK) *info = req.info;
    return st;
}

satfeat_status satfeat_image_read_gray8(satfeat_ctx *ctx, const char *path, uint8_t *dst,
                                        size_t stride, int width, int height)
{
    if (!path || !dst)
        return satfeat_fail(ctx, SATFEAT_ERR_ARG, "image_read_gray8: NULL path or buffer");
    if (width <= 0 || height <= 0)
        return satfeat_fail(ctx, SATFEAT_ERR_ARG, "image_read_gray8: size %dx%d is not positive",
                            width, height);
    if (stride < (size_t)width)
        return satfeat_fail(ctx, SATFEAT_ERR_ARG,
                            "image_read_gray8: stride %zu is below the width %d", stride, width);
    satfeat_image_request req = {.ctx = ctx, .path = path, .want_width = width,
                                 .want_height = height};
    satfeat_status st = run_request(&req);
    if (st != SATFEAT_OK) return st;
    satfeat_raw_image_to_gray8(&req.pixels, dst, stride);
    satfeat_raw_image_free(&req.pixels);
    return SATFEAT_OK;
}

satfeat_status satfeat_image_load_gray8(satfeat_ctx *ctx, const char *path, uint8_t **pixels,
                                        int *width, int *height)
{
    if (pixels) *pixels = NULL;
    if (!path || !pixels || !width || !height)
        return satfeat_fail(ctx, SATFEAT_ERR_ARG,
                            "image_load_gray8: NULL path, pixel or size pointer");
    satfeat_image_request req = {.ctx = ctx, .path = path, .gray_copy = 1};
    satfeat_status st = run_request(&req);
    if (st != SATFEAT_OK) return st;
    satfeat_raw_image *raw = &req.pixels;
    uint8_t *gray;
    if (raw->channels == 1 && raw->bytes_per_sample == 1 && raw->maxval == 255u) {
        gray = raw->samples; /* already 8-bit gray, tightly packed: hand it over */
        raw->samples = NULL;
    } else {
        gray = malloc((size_t)raw->width * (size_t)raw->height);
        if (!gray) {
            satfeat_raw_image_free(raw);
            return satfeat_fail(ctx, SATFEAT_ERR_ALLOC, "%s: cannot allocate a %dx%d gray image",
                                path, raw->width, raw->height);
        }
        satfeat_raw_image_to_gray8(raw, gray, (size_t)raw->width);
        satfeat_raw_image_free(raw);
    }
    *pixels = gray;
    *width = req.info.width;
    *height = req.info.height;
    return SATFEAT_OK;
}

/* Checks the arguments shared by both writers. */
static satfeat_status check_write_args(satfeat_ctx *ctx, const char *what, const char *path,
                                       const uint8_t *pixels, size_t stride, int width,
                                       int height, int channels)
{
    if (!path || !pixels)
        return satfeat_fail(ctx, SATFEAT_ERR_ARG, "%s: NULL path or pixels", what);
    if (channels != 1 && channels != 3)
        return satfeat_fail(ctx, SATFEAT_ERR_ARG, "%s: %s: channels must be 1 or 3, got %d", what,
                            path, channels);
    satfeat_status st = check_limits(ctx, path, width, height, SATFEAT_ERR_ARG);
    if (st != SATFEAT_OK) return st;
    if (stride < (size_t)width * (size_t)channels)
        return satfeat_fail(ctx, SATFEAT_ERR_ARG, "%s: %s: stride %zu is below %d x %d bytes",
                            what, path, stride, width, channels);
    return SATFEAT_OK;
}

satfeat_status satfeat_image_write_png(satfeat_ctx *ctx, const char *path, const uint8_t *pixels,
                                       size_t stride, int width, int height, int channels)
{
    satfeat_status st =
        check_write_args(ctx, "image_write_png", path, pixels, stride, width, height, channels);
    if (st != SATFEAT_OK) return st;
    return satfeat_png_write(ctx, path, pixels, stride, width, height, channels);
}

satfeat_status satfeat_image_write_pnm(satfeat_ctx *ctx, const char *path, const uint8_t *pixels,
                                       size_t stride, int width, int height, int channels)
{
    satfeat_status st =
        check_write_args(ctx, "image_write_pnm", path, pixels, stride, width, height, channels);
    if (st != SATFEAT_OK) return st;
    return satfeat_pnm_write(ctx, path, pixels, stride, width, height, channels);
}
