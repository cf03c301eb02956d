/* describe_weights.c - fills the orientation and descriptor weight tables (see the header). */
#include "describe/describe_weights.h"

#include <math.h>
#include <string.h>

void satfeat_describe_weights_orientation(satfeat_describe_weights *w, int filter)
{
    const int haar = filter == SATFEAT_ORI_FILTER_HAAR;
    /* the Haar filter samples every offset of the disc, the Scharr filter the even ones */
    const int r = SATFEAT_ORI_RADIUS, step = haar ? 1 : 2;
    memset(w->ori_w, 0, sizeof w->ori_w);
    memset(w->ori_i, 0, sizeof w->ori_i);
    memset(w->ori_j, 0, sizeof w->ori_j);
    w->ori_filter = haar ? SATFEAT_ORI_FILTER_HAAR : SATFEAT_ORI_FILTER_SCHARR;
    int k = 0;
    for (int j = -r; j <= r; j++)
        for (int i = -r; i <= r; i++) {
            if (i * i + j * j >= r * r || k >= SATFEAT_ORI_SAMPLES) continue;
            if ((i % step) != 0 || (j % step) != 0) continue;
            w->ori_i[k] = i;
            w->ori_j[k] = j;
            /* rounded to the nearest multiple of 2^-14 (every step after exp is exact) */
            const double g = exp(-(double)(i * i + j * j) / 50.0);
            w->ori_w[k] = ldexp(floor(ldexp(g, SATFEAT_ORI_WEIGHT_BITS) + 0.5),
                                -SATFEAT_ORI_WEIGHT_BITS);
            k++;
        }
    w->ori_n = k;
}

void satfeat_describe_weights_init(satfeat_describe_weights *w)
{
    memset(w, 0, sizeof *w);
    satfeat_describe_weights_orientation(w, SATFEAT_ORI_FILTER_SCHARR);
    const double two_var = 2.0 * 2.5 * 2.5, mid = 0.5 * (SATFEAT_DESC_SUB - 1);
    for (int y = 0; y < SATFEAT_DESC_SUB; y++)
        for (int x = 0; x < SATFEAT_DESC_SUB; x++) {
            const double u = (double)x - mid, v = (double)y - mid;
            w->sub_w[y * SATFEAT_DESC_SUB + x] = exp(-(u * u + v * v) / two_var);
        }
    for (int q = 0; q < 16; q++) {
        const double u = (double)(q % 4) - 1.5, v = (double)(q / 4) - 1.5;
        w->reg_w[q] = exp(-(u * u + v * v) / (2.0 * 1.5 * 1.5));
    }
    w->ori_refine = 1;
    w->desc_haar = 4;
    w->ori_haar = 4;
}
