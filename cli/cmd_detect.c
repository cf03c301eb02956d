/* cmd_detect.c - `satfeat detect IMAGE`: Fast-Hessian keypoints of an image, one per line. */
#include "commands.h"
#include "detect_options.h"

#include <stdlib.h>
#include <string.h>

static void detect_help(FILE *out)
{
    fprintf(out, "usage: satfeat detect IMAGE [options] [--help]\n"
                 "\n"
                 "Loads IMAGE (PNG, PGM or PPM) as 8-bit gray and prints its keypoints, strongest\n"
                 "first, one per line after a '#' header: x y size response sigma laplacian octave\n"
                 "layer (x, y in pixels with pixel centres at integers; size = filter side L).\n"
                 "With --descriptors each line continues with the keypoint's descriptor values\n"
                 "(64 for surf64, 128 for surf128).\n"
                 "\n"
                 "  --descriptors       print the descriptors after the keypoint fields\n");
    cli_detect_options_help(out);
    fprintf(out, "\nExit status: 0 ok, 1 the work failed, 2 bad command line.\n");
}

int cli_cmd_detect(int argc, char **argv)
{
    cli_detect_options o;
    cli_detect_options_init(&o);
    const char *image = NULL;
    int nfiles = 0;
    int rc0 = cli_detect_parse(argc, argv, &o, &image, 1, &nfiles, "more than one image given",
                               detect_help, NULL, NULL);
    if (rc0 >= 0) return rc0;
    if (!image) {
        fprintf(stderr, "satfeat: no image given (see 'satfeat detect --help')\n");
        return CLI_EXIT_USAGE;
    }
    cli_detection d;
    if (o.descriptors && o.params.descriptor == SATFEAT_DESCRIPTOR_NONE) {
        fprintf(stderr, "satfeat: --descriptors needs a descriptor (not --descriptor none)\n");
        return CLI_EXIT_USAGE;
    }
    int rc = cli_detect_file(&o, image, o.descriptors, &d);
    if (rc != CLI_EXIT_OK) return rc;
    printf("# x y size response sigma laplacian octave layer%s\n",
           d.dim ? (d.dim == 64 ? " d0..d63" : " d0..d127") : "");
    for (size_t k = 0; k < d.n; k++) {
        const satfeat_keypoint *p = &d.kp[k];
        printf("%.3f %.3f %.3f %.6e %.4f %d %d %d", p->x, p->y, p->size, p->response, p->sigma,
               p->laplacian, p->octave, p->layer);
        for (int j = 0; j < d.dim; j++) printf(" %.9g", d.desc[k * (size_t)d.dim + (size_t)j]);
        putchar('\n');
    }
    if (o.repeat > 0)
        fprintf(stderr, "satfeat: %zu keypoints in %dx%d, median %.3f ms of %d detections\n", d.n,
                d.width, d.height, d.median_ms, o.repeat);
    cli_detection_free(&d);
    return fflush(stdout) == 0 ? CLI_EXIT_OK : CLI_EXIT_FAILURE;
}
