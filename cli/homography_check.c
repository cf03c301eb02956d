/* homography_check.c - see homography_check.h. */
#include "homography_check.h"
#include "commands.h"
#include "name_escape.h"

#include <math.h>
#include <stdio.h>

int cli_homography_check(const double h[9], int width, int height, const char **why)
{
    for (int k = 0; k < 9; k++)
        if (!isfinite(h[k])) {
            *why = "an entry is not a finite number";
            return 0;
        }
    const double det = h[0] * (h[4] * h[8] - h[5] * h[7]) - h[1] * (h[3] * h[8] - h[5] * h[6]) +
                       h[2] * (h[3] * h[7] - h[4] * h[6]);
    double norms = 1;
    for (int c = 0; c < 3; c++)
        norms *= sqrt(h[c] * h[c] + h[3 + c] * h[3 + c] + h[6 + c] * h[6 + c]);
    if (!(norms > 0) || !isfinite(norms) || !(fabs(det) >= CLI_HOMOGRAPHY_MIN_HADAMARD * norms)) {
        *why = "it is singular or nearly so (|det H| / (|h1| |h2| |h3|) below 1e-10, h1..h3 "
               "its columns)";
        return 0;
    }
    const double xs[2] = {0, width}, ys[2] = {0, height};
    for (int i = 0; i < 2; i++)
        for (int j = 0; j < 2; j++) {
            const double a = h[6] * xs[i], b = h[7] * ys[j];
            const double w = a + b + h[8], scale = fabs(a) + fabs(b) + fabs(h[8]);
            if (!(w >= CLI_HOMOGRAPHY_MIN_DEPTH * scale)) {
                *why = "it maps a corner of image 1 behind the camera or to the horizon "
                       "(h31 x + h32 y + h33 must be positive, at least 1e-3 of |h31 x| + "
                       "|h32 y| + |h33|, at every corner)";
                return 0;
            }
        }
    return 1;
}

int cli_homography_load(satfeat_ctx *ctx, const char *path, const char *image1, double h[9])
{
    satfeat_status st = satfeat_homography_read(ctx, path, h);
    if (st != SATFEAT_OK) {
        cli_report("cannot read the homography", st, ctx);
        return 0;
    }
    satfeat_image_info info;
    if ((st = satfeat_image_read_info(ctx, image1, &info)) != SATFEAT_OK) {
        cli_report("cannot read image 1", st, ctx);
        return 0;
    }
    const char *why = NULL;
    if (cli_homography_check(h, info.width, info.height, &why)) return 1;
    fputs("satfeat: homography ", stderr);
    cli_put_name_c(stderr, path);
    fprintf(stderr, ": %s\n", why);
    return 0;
}
