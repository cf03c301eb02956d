/* box_filter.c - the summed area table as an O(1) box blur: every output pixel is the mean of the
 * (2R+1) x (2R+1) window around it (clipped at the borders), four table reads whatever R is;
 * written as an 8-bit gray PNG.
 * usage: box_filter IMAGE RADIUS OUT.png */
#include <satfeat.h>

#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
    if (argc != 4) {
        fprintf(stderr, "usage: %s IMAGE RADIUS OUT.png\n", argv[0]);
        return 2;
    }
    const int radius = atoi(argv[2]);
    satfeat_ctx *ctx = NULL;
    satfeat_status st = satfeat_ctx_new(&ctx, SATFEAT_BACKEND_AUTO, -1);
    if (st != SATFEAT_OK) {
        fprintf(stderr, "context: %s\n", satfeat_status_string(st));
        return 1;
    }
    uint8_t *pixels = NULL, *blurred = NULL;
    uint32_t *table = NULL;
    float *mean = NULL;
    int w = 0, h = 0;
    st = satfeat_image_load_gray8(ctx, argv[1], &pixels, &w, &h);
    if (st == SATFEAT_OK) {
        const size_t n = (size_t)w * (size_t)h;
        table = malloc(sizeof *table * ((size_t)w + 1) * ((size_t)h + 1));
        mean = malloc(sizeof *mean * n);
        blurred = malloc(n);
        st = table && mean && blurred ? SATFEAT_OK : SATFEAT_ERR_ALLOC;
    }
    if (st == SATFEAT_OK) /* the (w+1) x (h+1) table on the GPU or the CPU */
        st = satfeat_sat_u8(ctx, pixels, (size_t)w, w, h, table, ((size_t)w + 1) * 4,
                            SATFEAT_SAT_AUTO);
    if (st == SATFEAT_OK) {
        const satfeat_table_u32 view = {table, ((size_t)w + 1) * 4, w, h};
        st = satfeat_box_filter_mean_u32(&view, radius, mean, (size_t)w * sizeof *mean);
    }
    if (st == SATFEAT_OK) {
        for (size_t i = 0; i < (size_t)w * (size_t)h; i++) blurred[i] = (uint8_t)(mean[i] + 0.5f);
        st = satfeat_image_write_png(ctx, argv[3], blurred, (size_t)w, w, h, 1);
    }
    if (st == SATFEAT_OK)
        printf("%s: %dx%d blurred with a %dx%d box into %s\n", argv[1], w, h, 2 * radius + 1,
               2 * radius + 1, argv[3]);
    else
        fprintf(stderr, "box_filter: %s: %s\n", satfeat_status_string(st),
                satfeat_ctx_last_error(ctx));
    free(blurred);
    free(mean);
    free(table);
    satfeat_free(pixels);
    satfeat_ctx_delete(ctx);
    return st == SATFEAT_OK ? 0 : 1;
}
