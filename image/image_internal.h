/* image_internal.h - the image reader's shared pieces: one read request that every format reader
 * fills, the size checks they all run before allocating, and the conversion to 8-bit gray. */
#ifndef SATFEAT_IMAGE_INTERNAL_H
#define SATFEAT_IMAGE_INTERNAL_H

#include "src/context_internal.h"

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/**
 * Decoded samples as a format reader hands them over: tightly packed rows of width * channels
 * samples, 1 byte each (bytes_per_sample 1) or native-endian uint16_t (bytes_per_sample 2).
 * Sample values lie in [0, maxval]; channels 2 and 4 carry alpha last.
 */
typedef struct satfeat_raw_image {
    void *samples; /* malloc'd; freed by satfeat_raw_image_free */
    int width;
    int height;
    int channels;
    int bytes_per_sample;
    unsigned maxval;
} satfeat_raw_image;

/** One read of one file: inputs set by image_io.c, outputs filled by a format reader. */
typedef struct satfeat_image_request {
    satfeat_ctx *ctx;         /* may be NULL */
    const char *path;         /* for messages */
    FILE *file;               /* open for binary reading, positioned at offset 0 */
    long file_size;           /* bytes in the file */
    int want_width;           /* > 0: the caller's buffer size, which the file must match */
    int want_height;
    int header_only;          /* 1: stop after the header (info), decode nothing */
    int gray_copy;            /* 1: the caller converts into a new w x h buffer (budgeted too) */
    satfeat_image_info info;  /* out: what the header says */
    satfeat_raw_image pixels; /* out: the decoded samples (unless header_only) */
} satfeat_image_request;

/**
 * Validates a header's size against SATFEAT_IMAGE_MAX_SIDE / SATFEAT_IMAGE_MAX_PIXELS
 * (zero or negative: SATFEAT_ERR_FORMAT; too large: SATFEAT_ERR_OVERFLOW) and against the
 * caller's buffer (mismatch: SATFEAT_ERR_ARG). Every reader calls it before allocating.
 */
satfeat_status satfeat_image_accept_size(satfeat_image_request *req, long long width,
                                         long long height);

/**
 * Checks that decoding a width x height image of `channels` samples of `bytes_per_sample` bytes
 * (plus `extra` bytes of the reader's own, plus the gray copy when req->gray_copy) fits in the
 * memory budget of the request's context (satfeat_memory_budget): SATFEAT_ERR_LIMIT with the
 * sizes otherwise. Every reader calls it before its pixel allocation.
 */
satfeat_status satfeat_image_check_budget(satfeat_image_request *req, int width, int height,
                                          int channels, int bytes_per_sample, size_t extra);

/** Records "<path>: <message>" in the request's context and returns `status`. */
satfeat_status satfeat_image_fail(const satfeat_image_request *req, satfeat_status status,
                                  const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;

/** Reads a P2/P3/P5/P6 file: header into req->info, then (unless header_only) the samples. */
satfeat_status satfeat_pnm_read(satfeat_image_request *req);

/** Reads a PNG file with libpng's simplified API: header, then (unless header_only) 8-bit samples. */
satfeat_status satfeat_png_read(satfeat_image_request *req);

/**
 * Reads a baseline, extended or progressive 8-bit JPEG with libjpeg-turbo, streamed from the open
 * file: header (with the EXIF orientation applied to the size), then (unless header_only) one
 * 8-bit gray channel, upright as a viewer shows it.
 */
satfeat_status satfeat_jpeg_read(satfeat_image_request *req);

/**
 * The EXIF orientation (1..8, TIFF tag 0x0112 of IFD0) of the payload of an APP1 marker, `n`
 * bytes starting after the "Exif\0\0" identifier (at the TIFF header). Every offset is checked
 * against `n`; anything missing, malformed or out of range gives 1 (as stored).
 */
int satfeat_exif_orientation(const unsigned char *tiff, size_t n);

/**
 * Where EXIF orientation `o` (1..8) puts the stored pixel (x, y) of a w x h image in the upright
 * output (row-major, tightly packed): out[base + x * step], with base and step for stored row y.
 */
void satfeat_exif_row_map(int o, int w, int h, int y, ptrdiff_t *base, ptrdiff_t *step);

/** Writes an 8-bit P5 (channels 1) or P6 (channels 3); arguments already validated. */
satfeat_status satfeat_pnm_write(satfeat_ctx *ctx, const char *path, const uint8_t *pixels,
                                 size_t stride, int width, int height, int channels);

/** Writes an 8-bit gray or RGB PNG; arguments already validated. */
satfeat_status satfeat_png_write(satfeat_ctx *ctx, const char *path, const uint8_t *pixels,
                                 size_t stride, int width, int height, int channels);

/** BT.601 luma in 8-bit fixed point, Y = (77 R + 150 G + 29 B + 128) >> 8: the weights sum to
 * 256, so white stays 255. The one colour-to-gray formula of the readers. */
static inline uint8_t satfeat_luma8(unsigned r, unsigned g, unsigned b)
{
    return (uint8_t)((77u * r + 150u * g + 29u * b + 128u) >> 8);
}

/**
 * Converts decoded samples to 8-bit gray: each sample scaled to 8 bits by
 * round(v * 255 / maxval) (a no-op when maxval is 255), then colour to gray by
 * Y = (77 R + 150 G + 29 B + 128) >> 8; alpha ignored.
 */
void satfeat_raw_image_to_gray8(const satfeat_raw_image *raw, uint8_t *dst, size_t stride);

/** Frees the samples of a raw image and clears it; safe on a zeroed or already freed image. */
void satfeat_raw_image_free(satfeat_raw_image *raw);

#endif
