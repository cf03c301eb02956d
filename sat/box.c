/* box.c - O(1) box sums, means and the whole-image box-mean filter on a summed area table. */
#include "src/context_internal.h"

static const uint32_t *u32_row(const satfeat_table_u32 *t, int y)
{
    return (const uint32_t *)((const uint8_t *)t->data + (size_t)y * t->stride);
}

static const float *f32_row(const satfeat_table_f32 *t, int y)
{
    return (const float *)((const uint8_t *)t->data + (size_t)y * t->stride);
}

/* Returns SATFEAT_OK when the table view is usable and the box lies inside its image. */
static satfeat_status check_box(const void *data, size_t stride, size_t elem, int tw, int th,
                                int x, int y, int bw, int bh, const void *out)
{
    if (!data || !out || tw <= 0 || th <= 0 || stride < ((size_t)tw + 1u) * elem)
        return SATFEAT_ERR_ARG;
    if (bw <= 0 || bh <= 0 || x < 0 || y < 0 || x > tw - bw || y > th - bh) return SATFEAT_ERR_ARG;
    return SATFEAT_OK;
}

satfeat_status satfeat_box_sum_u32(const satfeat_table_u32 *t, int x, int y, int bw, int bh,
                                   uint32_t *sum)
{
    if (!t) return SATFEAT_ERR_ARG;
    satfeat_status st = check_box(t->data, t->stride, 4, t->width, t->height, x, y, bw, bh, sum);
    if (st != SATFEAT_OK) return st;
    const uint32_t *top = u32_row(t, y), *bottom = u32_row(t, y + bh);
    /* modulo-2^32 arithmetic: exact whenever the true sum fits in 32 bits */
    *sum = bottom[x + bw] - bottom[x] - top[x + bw] + top[x];
    return SATFEAT_OK;
}

satfeat_status satfeat_box_mean_u32(const satfeat_table_u32 *t, int x, int y, int bw, int bh,
                                    double *mean)
{
    uint32_t sum;
    if (!mean) return SATFEAT_ERR_ARG;
    satfeat_status st = satfeat_box_sum_u32(t, x, y, bw, bh, &sum);
    if (st == SATFEAT_OK) *mean = (double)sum / ((double)bw * (double)bh);
    return st;
}

satfeat_status satfeat_box_sum_f32(const satfeat_table_f32 *t, int x, int y, int bw, int bh,
                                   float *sum)
{
    if (!t) return SATFEAT_ERR_ARG;
    satfeat_status st = check_box(t->data, t->stride, 4, t->width, t->height, x, y, bw, bh, sum);
    if (st != SATFEAT_OK) return st;
    const float *top = f32_row(t, y), *bottom = f32_row(t, y + bh);
    *sum = (bottom[x + bw] - bottom[x]) - (top[x + bw] - top[x]);
    return SATFEAT_OK;
}

satfeat_status satfeat_box_filter_mean_u32(const satfeat_table_u32 *t, int radius, float *dst,
                                           size_t dst_stride)
{
    if (!t || !dst || !t->data || t->width <= 0 || t->height <= 0 || radius < 0 ||
        t->stride < ((size_t)t->width + 1u) * 4u || dst_stride < (size_t)t->width * 4u)
        return SATFEAT_ERR_ARG;
    for (int y = 0; y < t->height; y++) {
        int y0 = y - radius < 0 ? 0 : y - radius;
        int y1 = y > t->height - 1 - radius ? t->height : y + radius + 1;
        const uint32_t *top = u32_row(t, y0), *bottom = u32_row(t, y1);
        float *out = (float *)((uint8_t *)dst + (size_t)y * dst_stride);
        for (int x = 0; x < t->width; x++) {
            int x0 = x - radius < 0 ? 0 : x - radius;
            int x1 = x > t->width - 1 - radius ? t->width : x + radius + 1;
            uint32_t sum = bottom[x1] - bottom[x0] - top[x1] + top[x0];
            out[x] = (float)((double)sum / ((double)(x1 - x0) * (double)(y1 - y0)));
        }
    }
    return SATFEAT_OK;
}
