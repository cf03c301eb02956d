/* eval_keypoints.c - repeatability of two keypoint files from any detector, through the
 * library's evaluator (satfeat_eval_repeatability), so other detectors (OpenCV SIFT, ...) are
 * measured with exactly the protocol of `satfeat eval`.
 *
 * usage: eval_keypoints IMG1 KP1 IMG2 KP2 H
 * KPn: text, one keypoint per line "x y size [more columns ignored]" (the format `satfeat detect`
 * prints; lines starting with '#' are skipped); size is the region's diameter, as OpenCV's
 * KeyPoint::size. Images are read only for their sizes. Prints the lines of `satfeat eval`.
 * Built by bench/defaults_study.py (cc ... build/libsatfeat.a); not part of the library build.
 */
#include "satfeat.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Reads a keypoint file into a malloc'ed array; returns NULL on error. */
static satfeat_keypoint *read_kp(const char *path, size_t *n)
{
    FILE *f = fopen(path, "r");
    if (!f) return NULL;
    size_t cap = 1024;
    satfeat_keypoint *kp = malloc(cap * sizeof *kp);
    char line[1024];
    *n = 0;
    while (kp && fgets(line, sizeof line, f)) {
        double x, y, s;
        if (line[0] == '#' || sscanf(line, "%lf %lf %lf", &x, &y, &s) != 3) continue;
        if (*n == cap) {
            satfeat_keypoint *g = realloc(kp, 2 * cap * sizeof *kp);
            if (!g) {
                free(kp);
                kp = NULL;
                break;
            }
            kp = g;
            cap *= 2;
        }
        memset(&kp[*n], 0, sizeof kp[*n]);
        kp[*n].x = x;
        kp[*n].y = y;
        kp[*n].size = s;
        kp[*n].sigma = 1.2 * s / 9.0;
        (*n)++;
    }
    fclose(f);
    return kp;
}

int main(int argc, char **argv)
{
    if (argc != 6) {
        fprintf(stderr, "usage: eval_keypoints IMG1 KP1 IMG2 KP2 H\n");
        return 2;
    }
    satfeat_image_info i1, i2;
    double h[9];
    size_t n1 = 0, n2 = 0;
    if (satfeat_image_read_info(NULL, argv[1], &i1) != SATFEAT_OK ||
        satfeat_image_read_info(NULL, argv[3], &i2) != SATFEAT_OK ||
        satfeat_homography_read(NULL, argv[5], h) != SATFEAT_OK) {
        fprintf(stderr, "eval_keypoints: cannot read an image or the homography\n");
        return 1;
    }
    satfeat_keypoint *k1 = read_kp(argv[2], &n1), *k2 = read_kp(argv[4], &n2);
    satfeat_repeatability r;
    satfeat_features *f1 = NULL, *f2 = NULL;
    const int ok = k1 && k2 && satfeat_features_new(&f1) == SATFEAT_OK &&
                   satfeat_features_new(&f2) == SATFEAT_OK &&
                   satfeat_features_assign(f1, k1, NULL, n1, SATFEAT_DESCRIPTOR_NONE, i1.width,
                                           i1.height) == SATFEAT_OK &&
                   satfeat_features_assign(f2, k2, NULL, n2, SATFEAT_DESCRIPTOR_NONE, i2.width,
                                           i2.height) == SATFEAT_OK &&
                   satfeat_eval_repeatability(NULL, f1, f2, h, &r) == SATFEAT_OK;
    satfeat_features_delete(f1);
    satfeat_features_delete(f2);
    if (!ok) {
        fprintf(stderr, "eval_keypoints: evaluation failed\n");
        return 1;
    }
    printf("keypoints %zu %zu\ncommon %zu %zu\ncorrespondences %zu\nrepeatability %.4f\n", n1, n2,
           r.n1, r.n2, r.correspondences, r.repeatability);
    free(k1);
    free(k2);
    return 0;
}
