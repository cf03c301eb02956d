/* gen_jpeg_corpus.c - writes the seed corpus of the JPEG fuzz harness (tests/fuzz/corpus/jpeg):
 * small files that reach every path of the reader (gray, RGB 4:2:0 with EXIF orientation 6,
 * progressive 4:4:4 with a big-endian EXIF, CMYK, arithmetic coding), made by libjpeg-turbo's
 * encoder (tests/jpeg_testutil.c). Run once; the files are committed.
 * usage: satfeat_gen_jpeg_corpus DIR */
#include "jpeg_testutil.h"

#include <stdio.h>
#include <stdlib.h>

/* Writes DIR/name; returns 0 on success. */
static int put(const char *dir, const char *name, const uint8_t *px, int w, int h, int ch,
               const test_jpeg_opts *o)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    if (test_jpeg_write(path, px, w, h, ch, o) != 0) {
        fprintf(stderr, "cannot write %s\n", path);
        return 1;
    }
    return 0;
}

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: %s DIR\n", argv[0]);
        return 2;
    }
    enum { W = 16, H = 12 };
    uint8_t px[W * H * 4];
    for (int i = 0; i < W * H * 4; i++) px[i] = (uint8_t)((i * 37) ^ (i >> 3)); /* busy content */
    uint8_t exif_le[26], exif_be[26];
    test_jpeg_opts gray = {.quality = 50};
    test_jpeg_opts rgb = {.quality = 50, .exif = exif_le,
                          .exif_len = test_exif_orientation(exif_le, 6, 0)};
    test_jpeg_opts prog = {.quality = 50, .full_chroma = 1, .progressive = 1, .exif = exif_be,
                           .exif_len = test_exif_orientation(exif_be, 3, 1)};
    test_jpeg_opts cmyk = {.quality = 50};
    test_jpeg_opts arith = {.quality = 50, .arithmetic = 1};
    int rc = 0;
    rc |= put(argv[1], "gray.jpg", px, W, H, 1, &gray);
    rc |= put(argv[1], "rgb420_exif6.jpg", px, W, H, 3, &rgb);
    rc |= put(argv[1], "prog444_exif3.jpg", px, W, H, 3, &prog);
    rc |= put(argv[1], "cmyk.jpg", px, 8, 8, 4, &cmyk);
    rc |= put(argv[1], "arith.jpg", px, W, H, 1, &arith);
    return rc;
}
