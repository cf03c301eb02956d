/* jpeg_fixture.c - makes a colour JPEG of a gray image and, beside it, the PGM of the very
 * pixels libjpeg's own decoder gives for it (JCS_GRAYSCALE, libjpeg called directly), so the CLI
 * and Python tests can check that reading the JPEG through satfeat gives the same results as
 * reading those pixels as a PGM.
 * usage: satfeat_test_jpeg_fixture SRC OUT.jpg OUT.pgm */
#include "jpeg_testutil.h"
#include "satfeat.h"

#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
    if (argc != 4) {
        fprintf(stderr, "usage: %s SRC OUT.jpg OUT.pgm\n", argv[0]);
        return 2;
    }
    uint8_t *gray = NULL;
    int w = 0, h = 0;
    if (satfeat_image_load_gray8(NULL, argv[1], &gray, &w, &h) != SATFEAT_OK) {
        fprintf(stderr, "cannot load %s\n", argv[1]);
        return 1;
    }
    /* colour planes that differ, so the chroma of the file carries content the luma must not
     * pick up: R = gray, G = gray shifted by a horizontal ramp, B = its inverse */
    uint8_t *rgb = malloc((size_t)w * (size_t)h * 3);
    if (!rgb) return 1;
    for (int y = 0; y < h; y++)
        for (int x = 0; x < w; x++) {
            const size_t i = (size_t)y * (size_t)w + (size_t)x;
            const int g = gray[i] + (x * 64) / w;
            rgb[3 * i] = gray[i];
            rgb[3 * i + 1] = (uint8_t)(g > 255 ? 255 : g);
            rgb[3 * i + 2] = (uint8_t)(255 - gray[i]);
        }
    test_jpeg_opts o = {.quality = 90};
    int rc = test_jpeg_write(argv[2], rgb, w, h, 3, &o) == 0 ? 0 : 1;
    int rw = 0, rh = 0;
    uint8_t *ref = rc == 0 ? test_jpeg_decode(argv[2], 1, &rw, &rh, NULL, NULL) : NULL;
    if (!ref || satfeat_image_write_pnm(NULL, argv[3], ref, (size_t)rw, rw, rh, 1) != SATFEAT_OK)
        rc = 1;
    free(ref);
    free(rgb);
    satfeat_free(gray);
    return rc;
}
