/* image_gray.c - decoded samples to 8-bit gray: bit-depth scaling, then BT.601 luma. */
#include "image/image_internal.h"

#include <stdlib.h>

/* round(v * 255 / maxval) for 0 <= v <= maxval <= 65535, in exact integer arithmetic. */
static inline unsigned scale_to_8(unsigned v, unsigned maxval)
{
    return (2u * 255u * v + maxval) / (2u * maxval);
}

/* Reads sample i of a row as an 8-bit value. */
static inline unsigned sample8(const satfeat_raw_image *raw, const void *row, size_t i)
{
    unsigned v =
        raw->bytes_per_sample == 2 ? ((const uint16_t *)row)[i] : ((const uint8_t *)row)[i];
    return raw->maxval == 255u ? v : scale_to_8(v, raw->maxval);
}

void satfeat_raw_image_to_gray8(const satfeat_raw_image *raw, uint8_t *dst, size_t stride)
{
    const size_t w = (size_t)raw->width;
    const size_t ch = (size_t)raw->channels;
    const size_t row_bytes = w * ch * (size_t)raw->bytes_per_sample;
    for (int y = 0; y < raw->height; y++) {
        const void *row = (const uint8_t *)raw->samples + (size_t)y * row_bytes;
        uint8_t *out = dst + (size_t)y * stride;
        if (ch <= 2) {
            for (size_t x = 0; x < w; x++) out[x] = (uint8_t)sample8(raw, row, x * ch);
        } else {
            for (size_t x = 0; x < w; x++)
                out[x] = satfeat_luma8(sample8(raw, row, x * ch),
                                       sample8(raw, row, x * ch + 1),
                                       sample8(raw, row, x * ch + 2));
        }
    }
}

void satfeat_raw_image_free(satfeat_raw_image *raw)
{
    free(raw->samples);
    raw->samples = NULL;
}
