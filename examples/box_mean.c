/* box_mean.c - reads an image, builds its summed area table and prints the mean of a box.
 * usage: box_mean IMAGE X Y W H */
#include <satfeat.h>

#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
    if (argc != 6) {
        fprintf(stderr, "usage: %s IMAGE X Y W H\n", argv[0]);
        return 2;
    }
    satfeat_ctx *ctx = NULL;
    satfeat_status st = satfeat_ctx_new(&ctx, SATFEAT_BACKEND_AUTO, -1);
    if (st != SATFEAT_OK) {
        fprintf(stderr, "context: %s\n", satfeat_status_string(st));
        return 1;
    }
    uint8_t *pixels = NULL;
    int w = 0, h = 0;
    st = satfeat_image_load_gray8(ctx, argv[1], &pixels, &w, &h);
    uint32_t *table = NULL;
    if (st == SATFEAT_OK) {
        table = malloc(sizeof *table * ((size_t)w + 1) * ((size_t)h + 1));
        st = table ? satfeat_sat_u8(ctx, pixels, (size_t)w, w, h, table, ((size_t)w + 1) * 4,
                                    SATFEAT_SAT_AUTO)
                   : SATFEAT_ERR_ALLOC;
    }
    double mean = 0;
    if (st == SATFEAT_OK) {
        satfeat_table_u32 view = {table, ((size_t)w + 1) * 4, w, h};
        st = satfeat_box_mean_u32(&view, atoi(argv[2]), atoi(argv[3]), atoi(argv[4]),
                                  atoi(argv[5]), &mean);
    }
    if (st == SATFEAT_OK)
        printf("image %dx%d, backend %s, box mean %.4f\n", w, h,
               satfeat_ctx_backend(ctx) == SATFEAT_BACKEND_CUDA ? "cuda" : "cpu", mean);
    else
        fprintf(stderr, "box_mean: %s: %s\n", satfeat_status_string(st), satfeat_ctx_last_error(ctx));
    free(table);
    satfeat_free(pixels);
    satfeat_ctx_delete(ctx);
    return st == SATFEAT_OK ? 0 : 1;
}
