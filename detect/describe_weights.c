/* describe_weights.c - fills the orientation and descriptor weight tables (see the header). */
#include "describe_weights.h"

#include <math.h>
#include <string.h>

void satfeat_describe_weights_init(satfeat_describe_weights *w)
{
    memset(w, 0, sizeof *w);
    int k = 0;
    for (int j = -5; j <= 5; j++)
        for (int i = -5; i <= 5; i++) {
            if (i * i + j * j >= 36 || k >= SATFEAT_ORI_SAMPLES) continue;
            w->ori_i[k] = i;
            w->ori_j[k] = j;
            w->ori_w[k] = exp(-(double)(i * i + j * j) / 8.0);
            k++;
        }
    const double two_var = 2.0 * 3.3 * 3.3;
    for (int r = 0; r < SATFEAT_DESC_GRID; r++)
        for (int c = 0; c < SATFEAT_DESC_GRID; c++) {
            const double u = (double)c - 9.5, v = (double)r - 9.5;
            w->desc_w[r * SATFEAT_DESC_GRID + c] = exp(-(u * u + v * v) / two_var);
        }
}
