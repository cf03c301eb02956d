/* cli_reference_keypoints.c - the library's own keypoint lists for the CLI format tests: detects
 * each frame with the default parameters (CPU, descriptors of length DIM when DIM > 0, at most
 * MAX keypoints when MAX > 0) and prints every number in C99 hexadecimal floating point, exact:
 *   frame K N
 *   x y size response sigma angle laplacian octave layer [d0 ...]     (N lines)
 * usage: cli_reference_keypoints DIM MAX FRAME... */
#include "satfeat.h"

#include <stdio.h>
#include <stdlib.h>

/* Detects one frame and prints it; returns 0 on failure (message on stderr). */
static int dump_frame(satfeat_ctx *ctx, const satfeat_detector_params *p, int k, const char *path)
{
    uint8_t *img = NULL;
    int w = 0, h = 0;
    satfeat_detector *det = NULL;
    satfeat_features *f = NULL;
    const int dim = (int)p->descriptor;
    int ok = satfeat_image_load_gray8(ctx, path, &img, &w, &h) == SATFEAT_OK &&
             satfeat_detector_new(ctx, p, w, h, &det) == SATFEAT_OK;
    const satfeat_image_view view = satfeat_image_view_host(img, w, h, 0);
    ok = ok && satfeat_detect(det, &view, &f) == SATFEAT_OK;
    const satfeat_keypoint *kp = satfeat_features_keypoints(f);
    const float *desc = satfeat_features_descriptors(f);
    const size_t n = satfeat_features_count(f);
    if (ok) {
        printf("frame %d %zu\n", k, n);
        for (size_t i = 0; i < n; i++) {
            const satfeat_keypoint *q = &kp[i];
            printf("%a %a %a %a %a %a %d %d %d", q->x, q->y, q->size, q->response, q->sigma,
                   q->angle, q->laplacian, q->octave, q->layer);
            for (int j = 0; j < dim; j++) printf(" %a", (double)desc[i * (size_t)dim + (size_t)j]);
            putchar('\n');
        }
    } else {
        fprintf(stderr, "cli_reference_keypoints: %s: %s\n", path, satfeat_ctx_last_error(ctx));
    }
    satfeat_features_delete(f);
    satfeat_detector_delete(det);
    satfeat_free(img);
    return ok;
}

int main(int argc, char **argv)
{
    if (argc < 4) {
        fprintf(stderr, "usage: cli_reference_keypoints DIM MAX FRAME...\n");
        return 2;
    }
    satfeat_detector_params p = satfeat_detector_params_default();
    const int dim = atoi(argv[1]);
    p.descriptor = dim == 128 ? SATFEAT_DESCRIPTOR_SURF128
                   : dim == 64 ? SATFEAT_DESCRIPTOR_SURF64
                               : SATFEAT_DESCRIPTOR_NONE;
    p.max_keypoints = atoi(argv[2]);
    satfeat_ctx *ctx = NULL;
    if (satfeat_ctx_new(&ctx, SATFEAT_BACKEND_CPU, -1) != SATFEAT_OK) return 1;
    int ok = 1;
    for (int i = 3; ok && i < argc; i++) ok = dump_frame(ctx, &p, i - 2, argv[i]);
    satfeat_ctx_delete(ctx);
    return ok && fflush(stdout) == 0 ? 0 : 1;
}
