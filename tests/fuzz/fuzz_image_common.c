/* fuzz_image_common.c - the reader invariants shared by fuzz_png and fuzz_pnm. */
#include "fuzz_image_common.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A violated invariant: print it and abort, which libFuzzer records as a finding. */
static void fuzz_fail(const char *what, const char *detail)
{
    fprintf(stderr, "fuzz invariant violated: %s (%s)\n", what, detail);
    abort();
}

void fuzz_check_image_file(const char *path)
{
    satfeat_ctx *ctx = NULL;
    if (satfeat_ctx_new(&ctx, SATFEAT_BACKEND_CPU, 0) != SATFEAT_OK) return;
    satfeat_ctx_set_memory_limit(ctx, FUZZ_MEMORY_LIMIT);
    satfeat_image_info info;
    const satfeat_status st_info = satfeat_image_read_info(ctx, path, &info);
    if (strlen(satfeat_ctx_last_error(ctx)) == 0 && st_info != SATFEAT_OK)
        fuzz_fail("an error without a message", satfeat_status_string(st_info));
    uint8_t *px = NULL;
    int w = -1, h = -1;
    const satfeat_status st = satfeat_image_load_gray8(ctx, path, &px, &w, &h);
    if (st != SATFEAT_OK) {
        if (px) fuzz_fail("load_gray8 failed but returned pixels", satfeat_ctx_last_error(ctx));
        satfeat_ctx_delete(ctx);
        return;
    }
    if (st_info != SATFEAT_OK) fuzz_fail("load_gray8 read a file read_info refused", path);
    if (w != info.width || h != info.height)
        fuzz_fail("load_gray8 and read_info disagree on the size", path);
    if (w < 1 || h < 1 || w > SATFEAT_IMAGE_MAX_SIDE || h > SATFEAT_IMAGE_MAX_SIDE ||
        (size_t)w * (size_t)h > SATFEAT_IMAGE_MAX_PIXELS)
        fuzz_fail("a size outside the limits was accepted", path);
    if (info.channels < 1 || info.channels > 4 || (info.bit_depth != 8 && info.bit_depth != 16))
        fuzz_fail("impossible channels or bit depth", path);
    /* read_gray8 into a padded buffer: the same pixels, the padding untouched */
    const size_t stride = (size_t)w + 3;
    uint8_t *buf = malloc(stride * (size_t)h);
    if (buf) {
        memset(buf, 0xa5, stride * (size_t)h);
        if (satfeat_image_read_gray8(ctx, path, buf, stride, w, h) != SATFEAT_OK)
            fuzz_fail("read_gray8 failed where load_gray8 succeeded", satfeat_ctx_last_error(ctx));
        for (int y = 0; y < h; y++) {
            if (memcmp(buf + (size_t)y * stride, px + (size_t)y * (size_t)w, (size_t)w) != 0)
                fuzz_fail("read_gray8 and load_gray8 differ", path);
            for (size_t x = (size_t)w; x < stride; x++)
                if (buf[(size_t)y * stride + x] != 0xa5) fuzz_fail("padding overwritten", path);
        }
        /* a buffer of another size is refused */
        if (satfeat_image_read_gray8(ctx, path, buf, stride, w + 1, h) != SATFEAT_ERR_ARG)
            fuzz_fail("a buffer of the wrong size was accepted", path);
        free(buf);
    }
    satfeat_free(px);
    satfeat_ctx_delete(ctx);
}
