/* drawn_frame.c - writing one drawn frame of a sequence command (drawn_frame.h). */
#include "drawn_frame.h"

#include "commands.h"
#include "out_file.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int cli_write_drawn_frame(satfeat_ctx *ctx, const char *dir, int k, const uint8_t *rgb, int width,
                          int height)
{
    const size_t size = strlen(dir) + 32;
    char *path = malloc(size);
    if (!path) {
        fprintf(stderr, "satfeat: out of memory\n");
        return 0;
    }
    snprintf(path, size, "%s/frame%04d.png", dir, k);
    const int guard = cli_out_guard_begin(path); /* its temporary file goes on a signal */
    const satfeat_status st = satfeat_image_write_png(ctx, path, rgb, (size_t)width * 3, width,
                                                      height, 3);
    cli_out_guard_end(guard);
    free(path);
    if (st != SATFEAT_OK) {
        cli_report("cannot write the drawn frame", st, ctx);
        return 0;
    }
    return 1;
}
