/* jpeg_testutil.h - JPEG files made at test time with libjpeg-turbo's own encoder, and the
 * reference decodes (libjpeg called directly, not through satfeat) the reader is checked against.
 * Plain C without cmocka, so tools/ and the fixture programs link it too. */
#ifndef SATFEAT_JPEG_TESTUTIL_H
#define SATFEAT_JPEG_TESTUTIL_H

#include <stddef.h>
#include <stdint.h>

/** How test_jpeg_write encodes. Zero-initialised: quality 75, 4:2:0, sequential, no EXIF. */
typedef struct test_jpeg_opts {
    int quality;              /**< 1..100; 0 = 75 */
    int full_chroma;          /**< 1: 4:4:4 (3-component input), else 4:2:0 */
    int progressive;          /**< 1: libjpeg's standard progression */
    int arithmetic;           /**< 1: arithmetic coding instead of Huffman */
    const uint8_t *exif;      /**< APP1 payload after "Exif\0\0" (the TIFF header on), or NULL */
    size_t exif_len;          /**< <= 65527 */
} test_jpeg_opts;

/**
 * Encodes w x h interleaved samples of `components` channels: 1 gray, 3 RGB (stored as YCbCr),
 * 4 CMYK (stored as CMYK with libjpeg's Adobe marker, so inverted by convention: the samples are
 * written as given). Returns 0, or -1 when the file cannot be written.
 */
int test_jpeg_write(const char *path, const uint8_t *samples, int w, int h, int components,
                    const test_jpeg_opts *opts);

/** The same, into a malloc'd buffer (*size bytes); NULL on failure. */
uint8_t *test_jpeg_encode(const uint8_t *samples, int w, int h, int components,
                          const test_jpeg_opts *opts, size_t *size);

/**
 * Decodes a JPEG file with libjpeg directly: `gray` 1 gives JCS_GRAYSCALE output (1 channel),
 * 0 the file's own colour space unconverted except YCCK -> CMYK (*channels set). *adobe tells
 * whether an Adobe marker was seen (may be NULL). malloc'd; NULL when the file cannot be read.
 */
uint8_t *test_jpeg_decode(const char *path, int gray, int *w, int *h, int *channels, int *adobe);

/**
 * An EXIF APP1 payload (TIFF header on) holding IFD0 with the one Orientation entry `value`,
 * big-endian when `big`; 26 bytes written to out[26]. Returns the length.
 */
size_t test_exif_orientation(uint8_t *out, unsigned value, int big);

#endif
