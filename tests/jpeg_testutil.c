/* jpeg_testutil.c - see jpeg_testutil.h. */
#include "jpeg_testutil.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
/* jpeglib.h needs stdio.h and stddef.h first */
#include <jpeglib.h>

/* Sets up the compressor for the samples and options, then writes everything to its dest. */
static void compress_all(struct jpeg_compress_struct *ci, const uint8_t *samples, int w, int h,
                         int components, const test_jpeg_opts *opts)
{
    ci->image_width = (JDIMENSION)w;
    ci->image_height = (JDIMENSION)h;
    ci->input_components = components;
    ci->in_color_space = components == 1 ? JCS_GRAYSCALE : components == 3 ? JCS_RGB : JCS_CMYK;
    jpeg_set_defaults(ci);
    jpeg_set_quality(ci, opts->quality > 0 ? opts->quality : 75, TRUE);
    if (components == 3 && opts->full_chroma) {
        ci->comp_info[0].h_samp_factor = 1;
        ci->comp_info[0].v_samp_factor = 1;
    }
    if (components == 3 && !opts->full_chroma) {
        ci->comp_info[0].h_samp_factor = 2; /* 4:2:0, whatever the library's default */
        ci->comp_info[0].v_samp_factor = 2;
    }
    if (opts->progressive) jpeg_simple_progression(ci);
    ci->arith_code = opts->arithmetic ? TRUE : FALSE;
    jpeg_start_compress(ci, TRUE);
    if (opts->exif) {
        uint8_t *m = malloc(opts->exif_len + 6);
        if (m) {
            memcpy(m, "Exif\0\0", 6);
            memcpy(m + 6, opts->exif, opts->exif_len);
            jpeg_write_marker(ci, JPEG_APP0 + 1, m, (unsigned)(opts->exif_len + 6));
            free(m);
        }
    }
    const size_t row = (size_t)w * (size_t)components;
    while (ci->next_scanline < ci->image_height) {
        JSAMPROW r = (JSAMPROW)(samples + ci->next_scanline * row);
        jpeg_write_scanlines(ci, &r, 1);
    }
    jpeg_finish_compress(ci);
}

uint8_t *test_jpeg_encode(const uint8_t *samples, int w, int h, int components,
                          const test_jpeg_opts *opts, size_t *size)
{
    static const test_jpeg_opts none;
    struct jpeg_compress_struct ci;
    struct jpeg_error_mgr err;
    ci.err = jpeg_std_error(&err); /* errors exit the test program: encoding cannot fail here */
    jpeg_create_compress(&ci);
    unsigned char *buf = NULL;
    unsigned long len = 0;
    jpeg_mem_dest(&ci, &buf, &len);
    compress_all(&ci, samples, w, h, components, opts ? opts : &none);
    jpeg_destroy_compress(&ci);
    *size = (size_t)len;
    return buf;
}

int test_jpeg_write(const char *path, const uint8_t *samples, int w, int h, int components,
                    const test_jpeg_opts *opts)
{
    size_t n = 0;
    uint8_t *buf = test_jpeg_encode(samples, w, h, components, opts, &n);
    FILE *f = buf ? fopen(path, "wb") : NULL;
    int ok = f && fwrite(buf, 1, n, f) == n;
    if (f && fclose(f) != 0) ok = 0;
    free(buf);
    return ok ? 0 : -1;
}

uint8_t *test_jpeg_decode(const char *path, int gray, int *w, int *h, int *channels, int *adobe)
{
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    struct jpeg_decompress_struct ci;
    struct jpeg_error_mgr err;
    ci.err = jpeg_std_error(&err);
    jpeg_create_decompress(&ci);
    jpeg_stdio_src(&ci, f);
    jpeg_read_header(&ci, TRUE);
    if (gray) ci.out_color_space = JCS_GRAYSCALE;
    else if (ci.jpeg_color_space == JCS_YCCK) ci.out_color_space = JCS_CMYK;
    jpeg_start_decompress(&ci);
    const size_t row = (size_t)ci.output_width * (size_t)ci.output_components;
    uint8_t *px = malloc(row * ci.output_height);
    while (px && ci.output_scanline < ci.output_height) {
        JSAMPROW r = px + ci.output_scanline * row;
        jpeg_read_scanlines(&ci, &r, 1);
    }
    *w = (int)ci.output_width;
    *h = (int)ci.output_height;
    if (channels) *channels = ci.output_components;
    if (adobe) *adobe = ci.saw_Adobe_marker;
    jpeg_finish_decompress(&ci);
    jpeg_destroy_decompress(&ci);
    fclose(f);
    return px;
}

size_t test_exif_orientation(uint8_t *out, unsigned value, int big)
{
    /* TIFF header (8 bytes, IFD0 at 8), entry count 1, one 12-byte entry, next-IFD offset 0 */
    static const uint8_t mm[26] = {'M', 'M', 0, 42, 0, 0, 0, 8, 0, 1, 0x01, 0x12, 0, 3,
                                   0,   0,   0, 1,  0, 0, 0, 0, 0, 0, 0,    0};
    memcpy(out, mm, sizeof mm);
    out[18] = (uint8_t)(value >> 8);
    out[19] = (uint8_t)value;
    if (!big) { /* the same fields little-endian */
        const uint8_t ii[26] = {'I', 'I', 42, 0, 8, 0, 0, 0, 1, 0, 0x12, 0x01, 3, 0,
                                1,   0,   0,  0, (uint8_t)value, (uint8_t)(value >> 8), 0, 0,
                                0,   0,   0,  0};
        memcpy(out, ii, sizeof ii);
    }
    return sizeof mm;
}
